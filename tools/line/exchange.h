/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exchange: hook state, dial tone, DTMF and pulse digit collection,
 * routing, ringback / busy / reorder tones, ringing for incoming calls,
 * the far modem and its data service, and one JSON record per call.
 * Runs in the network's clock domain, in samples.
 */
#ifndef SML_EXCHANGE_H
#define SML_EXCHANGE_H

#include <stdio.h>

#include "fax.h"
#include "modem.h"
#include "service.h"
#include "wire.h"

enum sml_route_type { SML_R_ANSWER, SML_R_BUSY, SML_R_NOANSWER, SML_R_UNOBTAINABLE };

/*
 * The line worsening in a call (route words worsen=SECONDS, worsen_noise=DBM0,
 * worsen_loss=DB): at_s of line time into the far modem's data phase, the
 * wire's noise raised and its loss increased (sml_wire_worsen()) until the
 * call ends.
 */
struct sml_worsen {
	bool on;
	double at_s;
	bool noise;		/* noise_dbm0 given */
	double noise_dbm0;	/* white noise added at each receiver */
	double loss_db;		/* more loss each way (0: none) */
};

struct sml_party {
	struct sml_modem_cfg modem;
	struct sml_service_cfg service;
	struct sml_fax_cfg fax;	/* fax.on: a T.30 terminal instead of the modem */
	struct sml_worsen worsen;
	int rings;		/* answer: after this many ringback cycles;
				 * incoming: give up after this many rings */
};

struct sml_route {
	char number[32];
	enum sml_route_type type;
	struct sml_party party;
};

struct sml_incoming {
	int64_t at;		/* network sample; the call waits for an idle line */
	char from[32];
	struct sml_party party;
};

#define SML_MAX_ROUTES 64
#define SML_MAX_INCOMING 16
#define SML_MAX_UNPLUGGED 16

struct sml_exchange_cfg {
	struct sml_route routes[SML_MAX_ROUTES];
	int nroutes;
	struct sml_incoming incoming[SML_MAX_INCOMING];
	int nincoming;
	bool no_dialtone;	/* "line unplugged": silence, digits ignored */
	int unplugged[SML_MAX_UNPLUGGED];	/* these calls (record numbers) */
	int nunplugged;				/* find the line unplugged */
	int dialtone_timeout_ms;
	int interdigit_ms;
	int hangup_ms;		/* loop open this long = on-hook (shorter: pulse/flash) */
	double ring_hz, ring_dbm0;
	int ring_on_ms, ring_off_ms;
	int clear_ms;		/* after the far end clears: silence, then busy tone */
	FILE *json;		/* call records, one JSON object per line */
	const struct sml_wire_cfg *wire;	/* for the records */
	struct sml_wire *line;	/* the wire worsen= changes (NULL: such routes refused) */
	const char *transport;
	int block;		/* the main loop's, samples: the far modems' I/O latency */
};

void sml_exchange_cfg_default(struct sml_exchange_cfg *c);
/* "5551234=answer:v22bis,v42,rings=2,send=random:4096:7" */
int sml_route_parse(struct sml_route *r, const char *spec);
/* "AT_SECONDS=WORDS", WORDS as for an answer route plus from=NUMBER */
int sml_incoming_parse(struct sml_incoming *in, const char *spec);
/*
 * words shared by both: modem words, service words, fax words, rings=N,
 * worsen=...; -1 bad (reason printed), -2 bad with the reason printed in
 * one line (the fax's files unusable, a worsen= word out of range)
 */
int sml_party_parse(struct sml_party *p, const char *words, char *from,
		    size_t fromlen);

struct sml_exchange;

/* NULL without memory, or (said on stderr) with a worsen= route and no cfg->line */
struct sml_exchange *sml_exchange_new(const struct sml_exchange_cfg *cfg);
void sml_exchange_free(struct sml_exchange *x);
/*
 * rx: m samples heard from the modem (after the wire); tx: m samples to
 * send towards it; loop_closed: the modem draws loop current (off-hook).
 */
void sml_exchange_process(struct sml_exchange *x, const int16_t *rx,
			  int16_t *tx, int m, bool loop_closed);
/* an incoming call now (control socket) */
void sml_exchange_ring_now(struct sml_exchange *x, const struct sml_incoming *in);
/* "line unplugged" from now on (true) or not (control socket) */
void sml_exchange_set_unplugged(struct sml_exchange *x, bool unplugged);
/* side-channel hook override: -1 follow the loop, 0 on-hook, 1 off-hook */
void sml_exchange_force_hook(struct sml_exchange *x, int state);
int sml_exchange_calls(const struct sml_exchange *x);
bool sml_exchange_idle(const struct sml_exchange *x);
int64_t sml_exchange_now(const struct sml_exchange *x);
/* ends a call in progress with end "shutdown" and writes its record */
void sml_exchange_shutdown(struct sml_exchange *x);

#endif /* SML_EXCHANGE_H */
