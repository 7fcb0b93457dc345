/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smodemd's stand-in for <linux/seq_file.h>: the modem's stats lines into
 * a fixed buffer (the shared area's), truncated, never allocated.
 */
#ifndef SMODEMD_SHIM_SEQ_FILE_H
#define SMODEMD_SHIM_SEQ_FILE_H

#include <stddef.h>

struct seq_file {
	char *buf;
	size_t size;
	size_t len;
};

void seq_printf(struct seq_file *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void seq_puts(struct seq_file *m, const char *s);

#endif
