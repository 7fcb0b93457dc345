/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smline's options: what the command line and --config files set, read
 * before the line starts and never changed while it runs.
 */
#ifndef SML_OPTIONS_H
#define SML_OPTIONS_H

#include <stdbool.h>

#include "exchange.h"
#include "wire.h"

/* the longest block a transport moves at once (--block) */
#define SML_MAX_BLOCK 1024

struct sml_opts {
	char transport[1024];
	struct sml_exchange_cfg x;
	struct sml_wire_cfg w;
	bool hook_control;
	int hook_threshold;
	const char *control;
	const char *json;
	const char *events;
	int calls;
	double duration_s;
	int block;
	double tone_test_s;
	double tone_hz, tone_dbm0;
};

/*
 * Fill *o with the defaults, then argv's options in order (a --config file's
 * lines where it stands). --help prints the usage and exits; returns 0, or -1
 * with the reason on stderr.
 */
int sml_opts_parse(struct sml_opts *o, int argc, char **argv);

#endif /* SML_OPTIONS_H */
