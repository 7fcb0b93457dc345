// SPDX-License-Identifier: GPL-2.0
/*
 * Our engine (dsp/modem.c, as the driver runs it) dials smline's far modem
 * (tools/line/modem.c under the route words smline's --route takes) through
 * smline's exchange, over its wire with the guest's hybrid on it (G.168 m3,
 * ERL 12 dB, as test_modem.py's), in-process and counting samples only:
 * the guest's V.32bis call through V.8 without the guest.
 *
 * The engine's I/O loop is the driver's: one call per period (the period
 * the engine asks for, phase_periods=1, or one imposed), the loop current
 * as a DC offset on its output, which reaches the line --up samples after
 * it left smdsp_modem_process() (the ring's output lead and what an audio
 * path beyond it adds), the line's samples reaching it --down later; its
 * configuration has only the lead (echo_latency), as smodem_call_config()
 * gives it.  smline's side is its main loop without a transport: blocks
 * of SML_BLOCK through the hook detector, the wire (the hybrid's echo of
 * the engine's own signal added on the way down) and the exchange (dial
 * tone, digits, ringback, the far modem and its echo service).  The
 * engine's first period (on hook) is --start samples long, which moves its
 * periods against smline's blocks, and so the far modem's answer tone, V.8
 * and V.32bis against them.
 *
 * callfar [options]   one call, one RESULT line (and the engine's state and
 *                     smline's call record when it failed); exit 0 if the
 *                     engine connected at --rate through V.8 (by the
 *                     automode for a route without it), measured the round
 *                     trip and had --bytes echoed back intact
 *   --period N --lead N --up N --down N --start N --delay-ms MS --atten DB
 *   --noise DBM0 --route WORDS (default answer:v32bis,v42,v8,echo,ansdelay=1000)
 *   --rate BPS (default 14400) --bytes N --max-s S -v
 *   --codec none|ulaw|alaw  G.711 at the line card (smline's --codec)
 *   --incoming WORDS    smline's far modem calls instead (its --incoming
 *                       call, e.g. v34,v42,echo) and the engine answers at
 *                       the first ring, as mgetty's ATA
 *   --no-hybrid         no hybrid on the wire (test_clients' line)
 *   --record            print smline's record of the call (a RECORD line) even when it went well
 *   --factory           the engine offers V.34 whatever the far modem runs,
 *                       as the factory profile's ATD and ATA (AT&F: +MS=V34
 *                       with its automode, V.8 since V.34 needs it)
 *   The engine offers V.34 (AT+MS=V34) when the far modem's words name it.
 * callfar --sweep     the cases test_line.py keeps, CHECKed (tests/common/check.h)
 * callfar --sweep-v34 V.34 both ways round on the lab's paths and a grid of them, the same
 * callfar --sweep-ans far ends with and without V.8, 0-15 dB down, the same
 * callfar --sweep-factory  the factory profile dialling and answering far ends
 *                     from V.21 to V.34, with and without V.8, the same
 * callfar --sweep-far V.32bis with a far echo behind the lab's paths, the same
 * callfar --grid-ans  the 720 calls --sweep-ans was drawn from, counted
 * callfar --help      the options
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <smdsp/modem.h>

#include "exchange.h"
#include "hook.h"
#include "modem.h"
#include "service.h"
#include "wire.h"
#include "check.h"

#define SML_BLOCK	80	/* smline's --block default */
#define MAX_PERIOD	1024
#define MAX_PATH	16384
#define PAYLOAD_SEED	29
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct delay {
	int16_t q[MAX_PATH + MAX_PERIOD + SML_BLOCK];
	size_t head, len;
};

static void delay_push(struct delay *d, const int16_t *x, size_t n)
{
	size_t i, cap = ARRAY_SIZE(d->q);

	for (i = 0; i < n && d->len < cap; i++, d->len++)
		d->q[(d->head + d->len) % cap] = x ? x[i] : 0;
}

static void delay_pop(struct delay *d, int16_t *x, size_t n)
{
	size_t i, cap = ARRAY_SIZE(d->q);

	for (i = 0; i < n; i++) {
		x[i] = d->len ? d->q[d->head] : 0;
		if (d->len) {
			d->head = (d->head + 1) % cap;
			d->len--;
		}
	}
}

struct cfg {
	unsigned int period, lead, up, down, start, rate, bytes;
	double delay_ms, max_s, atten_db, noise_dbm0;
	/* the far echo: our signal back from the far hybrid (m far_hybrid), dB down (0: none) */
	double far_echo_db, far_echo_ms, far_echo_hz;
	int far_hybrid;
	int codec;		/* G.711 at the line card (SML_CODEC_*) */
	const char *route;
	const char *incoming;	/* smline's far modem calls ours: its words */
	bool no_hybrid;		/* a line without the guest's hybrid (test_clients') */
	bool record;		/* print smline's record of the call, whatever the result */
	bool factory;		/* the factory profile's +MS=V34 whatever the far end runs */
};

struct result {
	bool connected, v8;
	unsigned int rate, retrains;
	/* each direction's rate as the call ended, V.34's renegotiations and retrains */
	unsigned int tx_rate_end, rx_rate_end, v34_renegs, v34_retrains;
	/* the first retrain (or renegotiation) began, every byte back */
	double retrain_s, done_s;
	/* the data mode's retrains and reconnections: "t_s:rate ..." (0: a retrain) */
	char phases[512];
	int rtd, echo_latency, erle_db;
	/* V.34: where phase 2 heard our echo begin (-1: not), the far window's delay, the error at the end */
	int near_latency, far_delay, mse_db10;
	uint32_t cause;
	bool hung;
	double connect_s;
	size_t echoed, bad;
	char caller_state[256];
	char record[8192];	/* smline's JSON record of the call */
};

/* the far modem's words: the route we dial, or the call smline places to us */
static const char *far_words(const struct cfg *c)
{
	return c->incoming ? c->incoming : c->route;
}

static bool far_v34(const struct cfg *c)
{
	return strstr(far_words(c), "v34");
}

static void pump_bytes(struct smdsp_modem *m, const struct cfg *c, size_t *sent, size_t *got,
		       size_t *bad)
{
	uint8_t buf[256], want[256];
	unsigned int n, i;

	if (!smdsp_modem_rate(m))
		return;
	while (*sent < c->bytes) {
		n = c->bytes - *sent < sizeof(buf) ? (unsigned int)(c->bytes - *sent) : sizeof(buf);
		sml_payload_fill(PAYLOAD_SEED, *sent, buf, n);
		n = smdsp_modem_write(m, buf, n);
		if (!n)
			break;
		*sent += n;
	}
	while ((n = smdsp_modem_read(m, buf, sizeof(buf))) > 0) {
		sml_payload_fill(PAYLOAD_SEED, *got, want, n);
		for (i = 0; i < n; i++)
			*bad += buf[i] != want[i];
		*got += n;
	}
}

/* smline's side of the line: its main loop's objects */
struct smline {
	struct sml_hook hook;
	struct sml_wire *w;
	struct sml_exchange *x;
};

/* one block of smline's main loop: the engine's output in, the line's back */
static void smline_block(struct smline *sl, struct delay *up, struct delay *down)
{
	int16_t gtx[SML_BLOCK], clean[SML_BLOCK], lup[SML_BLOCK + 16];
	int16_t ldown[SML_BLOCK + 16], grx[SML_BLOCK];
	bool closed;
	int k;

	delay_pop(up, gtx, SML_BLOCK);
	closed = sml_hook_process(&sl->hook, gtx, clean, SML_BLOCK);
	k = sml_wire_up(sl->w, clean, SML_BLOCK, lup, SML_BLOCK + 16);
	sml_exchange_process(sl->x, lup, ldown, k, closed);
	sml_wire_down(sl->w, ldown, k, clean, grx, SML_BLOCK);
	delay_push(down, grx, SML_BLOCK);
}

/*
 * The driver's loop-current convention: its output carries this DC while
 * off hook (SMODEM_HOOK_DC), which smline's hook detector takes out.
 */
#define HOOK_DC 4096

static const char usage[] =
	"usage: callfar [options]   one call from our engine to smline's far modem\n"
	"  --route WORDS      smline's route (answer:v32bis,v42,v8,echo,ansdelay=1000)\n"
	"  --incoming WORDS   smline's far modem calls, ours answers at the first ring\n"
	"  --rate BPS         the rate the call must reach (14400)\n"
	"  --bytes N          bytes to have echoed back (1024)\n"
	"  --period N         the engine's period in samples (0: the one it asks for)\n"
	"  --lead N           the engine's echo_latency (2048)\n"
	"  --up N, --down N   the path each way beyond the engine (3048, 1000)\n"
	"  --start N          the engine's first period, against smline's blocks\n"
	"  --delay-ms MS      the line's delay each way\n"
	"  --atten DB         the far end's loss on the way to the engine\n"
	"  --noise DBM0       the line's noise (-99: none)\n"
	"  --no-hybrid        no hybrid (no near echo) on the wire\n"
	"  --far-echo DB --far-echo-ms MS --far-echo-hz HZ --far-hybrid M\n"
	"                     a far echo of ours, DB down, MS round trip, shifted HZ (none)\n"
	"  --codec none|ulaw|alaw   G.711 at the line card: the network carries its codes (none)\n"
	"  --max-s S          the call's limit in line seconds (40)\n"
	"  --record           smline's record of the call (a RECORD line), even when it went well\n"
	"  --factory          the engine offers V.34 whatever the far end runs (AT&F's +MS=V34)\n"
	"  -v                 smline's log\n"
	"  --sweep, --sweep-v34, --sweep-ans, --sweep-factory, --sweep-far   the kept cases, CHECKed\n"
	"  --grid-ans         720 calls with and without V.8's answer tone (minutes)\n"
	"  --help             this text\n"
	"exit 0 if the call connected at --rate (through V.8 when the far end has it) and\n"
	"the bytes came back intact\n";

static int one_call(const struct cfg *c, struct result *r)
{
	struct smdsp_modem_config mc;
	struct smdsp_modem_stats st;
	struct smdsp_modem_event ev;
	struct sml_wire_cfg wc;
	struct sml_exchange_cfg xc;
	struct smline sl;
	struct smdsp_modem *m;
	static struct delay up, down;
	int16_t rx[MAX_PERIOD], tx[MAX_PERIOD];
	int64_t now = 0, end = (int64_t)(c->max_s * SML_RATE), hung_at = -1;
	size_t sent = 0, got = 0, bad = 0, reclen = 0;
	char spec[512], *rec = NULL;
	unsigned int n, i;

	memset(r, 0, sizeof(*r));
	r->rtd = -1;
	sml_exchange_cfg_default(&xc);
	snprintf(spec, sizeof(spec), "8=%s", c->route);
	if (sml_route_parse(&xc.routes[0], spec)) {
		fprintf(stderr, "callfar: bad route %s\n", c->route);
		return -1;
	}
	xc.nroutes = 1;
	if (c->incoming) {
		/* the call rings at once, as smline's --incoming "0=WORDS" */
		snprintf(spec, sizeof(spec), "0=%s", c->incoming);
		if (sml_incoming_parse(&xc.incoming[0], spec)) {
			fprintf(stderr, "callfar: bad incoming call %s\n", c->incoming);
			return -1;
		}
		xc.nincoming = 1;
	}
	xc.block = SML_BLOCK;
	xc.transport = "callfar";
	xc.json = open_memstream(&rec, &reclen);
	sml_wire_cfg_default(&wc);
	wc.hybrid = c->no_hybrid ? 0 : 3;
	wc.hybrid_erl_db = 12;
	wc.delay_ms = c->delay_ms;
	wc.atten_db = c->atten_db;
	wc.noise_dbm0 = c->noise_dbm0;
	wc.far_echo_db = c->far_echo_db;
	wc.far_echo_ms = c->far_echo_ms;
	wc.far_echo_hz = c->far_echo_hz;
	wc.far_hybrid = c->far_hybrid;
	wc.codec = c->codec;
	xc.wire = &wc;
	sl.w = sml_wire_new(&wc);
	xc.line = sl.w;
	sl.x = sl.w ? sml_exchange_new(&xc) : NULL;
	sml_hook_init(&sl.hook, 0);

	/*
	 * what smodem_call_config() gives ATD or ATA after AT+MS=V32B (ATX4: a
	 * dial tone first), or AT+MS=V34 (the factory's) when the far modem
	 * runs V.34 or --factory asks for it
	 */
	memset(&mc, 0, sizeof(mc));
	mc.sample_rate = 8000;
	mc.modulations = SMDSP_MODEM_V32BIS | SMDSP_MODEM_V22BIS | SMDSP_MODEM_V22 | SMDSP_MODEM_V21;
	if (far_v34(c) || c->factory)
		mc.modulations |= SMDSP_MODEM_V34;
	mc.flags = SMDSP_MODEM_FLAG_V8 | SMDSP_MODEM_FLAG_V42;
	mc.v42bis_dirs = SMDSP_V42BIS_DIR_BOTH;
	mc.wait_answer_ms = 50000;
	mc.echo_latency = c->lead;
	m = smdsp_modem_create(&mc);
	if (!sl.w || !sl.x || !xc.json || !m) {
		smdsp_modem_free(m);
		sml_exchange_free(sl.x);
		sml_wire_free(sl.w);
		if (xc.json)
			fclose(xc.json);
		free(rec);
		return -1;
	}
	memset(&up, 0, sizeof(up));
	memset(&down, 0, sizeof(down));
	delay_push(&up, NULL, c->up);
	delay_push(&down, NULL, c->down);
	for (now = 0; now < end; now += n) {
		/* smline's main loop: whole blocks as the engine's output reaches it */
		while (up.len >= SML_BLOCK)
			smline_block(&sl, &up, &down);
		/* phase_periods=1: the period the engine asks for, unless one is imposed */
		n = c->period ? c->period : smdsp_modem_period(m);
		if (!now && c->start)
			n = c->start;
		delay_pop(&down, rx, n);
		smdsp_modem_process(m, rx, tx, n);
		if (smdsp_modem_offhook(m))
			for (i = 0; i < n; i++)
				tx[i] = sml_clip16(tx[i] + HOOK_DC);
		delay_push(&up, tx, n);
		pump_bytes(m, c, &sent, &got, &bad);
		while (smdsp_modem_get_event(m, &ev)) {
			/* an incoming call: answered at its first ring, as mgetty's ATA */
			if (ev.type == SMDSP_EV_RING && c->incoming &&
			    smdsp_modem_phase(m) == SMDSP_PHASE_ONHOOK)
				smdsp_modem_answer(m);
			if (ev.type != SMDSP_EV_PHASE)
				continue;
			if ((ev.phase == SMDSP_PHASE_CONNECTED && r->connected) ||
			    ev.phase == SMDSP_PHASE_RETRAIN) {
				size_t l = strlen(r->phases);

				/* 0 for a retrain's start, the rate for the data again */
				snprintf(r->phases + l, sizeof(r->phases) - l, " %.2f:%u",
					 ev.time_ms / 1000.0,
					 ev.phase == SMDSP_PHASE_RETRAIN ? 0 : ev.arg);
			}
			if (ev.phase == SMDSP_PHASE_CONNECTED && !r->connected) {
				r->connected = true;
				r->rate = ev.arg;
				r->connect_s = ev.time_ms / 1000.0;
			} else if (ev.phase == SMDSP_PHASE_RETRAIN) {
				if (!r->retrains++)
					r->retrain_s = ev.time_ms / 1000.0;
			} else if (ev.phase == SMDSP_PHASE_HUNGUP) {
				r->hung = true;
				r->cause = ev.arg;
			}
		}
		if (now == 0 && !c->incoming)
			smdsp_modem_dial(m, "8");
		if (!r->hung && got >= c->bytes && r->connected) {
			r->done_s = (double)now / SML_RATE;
			smdsp_modem_hangup(m);
			r->hung = true;
		}
		/* the record is written once smline has seen the hang-up */
		if (r->hung && hung_at < 0)
			hung_at = now;
		if (hung_at >= 0 && now - hung_at > SML_MS(1000) + c->up)
			break;
	}
	smdsp_modem_get_stats(m, &st);
	r->v8 = st.v8_used &&
		st.v8.selected == (far_v34(c) ? SMDSP_V8_MOD_V34 :
				   c->rate <= 2400 ? SMDSP_V8_MOD_V22 : SMDSP_V8_MOD_V32);
	r->rtd = st.v34_used ? st.v34_rtd : st.v32_rtd;
	r->echo_latency = st.echo_latency;
	r->erle_db = st.echo_erle_db_q8 / 256;
	r->near_latency = st.v34_used ? st.v34.near_latency : -1;
	r->far_delay = st.v34_used ? st.v34.far_delay : -1;
	r->mse_db10 = st.v34_used ? st.v34_mse_db10 : 0;
	r->echoed = got;
	r->bad = bad;
	r->tx_rate_end = st.tx_rate;
	r->rx_rate_end = st.rx_rate;
	if (st.v34_used) {
		r->v34_renegs = st.v34.renegs;
		r->v34_retrains = st.v34.retrains;
	}
	smdsp_modem_print(m, r->caller_state, sizeof(r->caller_state));
	sml_exchange_shutdown(sl.x);
	fclose(xc.json);
	snprintf(r->record, sizeof(r->record), "%s", rec ? rec : "");
	free(rec);
	sml_exchange_free(sl.x);
	sml_wire_free(sl.w);
	smdsp_modem_free(m);
	return 0;
}

/*
 * Through V.8 (by the automode, a route without it) at the rate asked for,
 * the bytes back intact, the call ended by us: the start-up measured a
 * round trip.
 */
static bool call_ok(const struct cfg *c, const struct result *r)
{
	const char *w = far_words(c);
	/* smline's V.34 runs only after V.8 */
	bool v8 = far_v34(c) || (strstr(w, "v8") && !strstr(w, "nov8"));

	/* V.22bis and V.21 measure no round trip */
	return r->connected && r->v8 == v8 && r->rate == c->rate && r->cause == SMDSP_CAUSE_LOCAL &&
	       r->echoed == c->bytes && !r->bad && (r->rtd >= 0 || c->rate <= 2400);
}

static void print_result(const struct cfg *c, const struct result *r)
{
	printf("RESULT %s period=%u lead=%u up=%u down=%u delay_ms=%.1f atten_db=%.1f start=%u hybrid=%d ok=%d connected=%d v8=%d rate=%u connect_s=%.2f rtd=%d echo_latency=%d erle_db=%d near_latency=%d far_delay=%d mse_db=%.1f retrains=%u cause=%u echoed=%zu bad=%zu tx_rate_end=%u rx_rate_end=%u v34_renegs=%u v34_retrains=%u\n",
	       c->incoming ? "answering" : "dialling", c->period, c->lead, c->up, c->down, c->delay_ms, c->atten_db, c->start,
	       !c->no_hybrid, call_ok(c, r), r->connected, r->v8, r->rate, r->connect_s, r->rtd, r->echo_latency,
	       r->erle_db, r->near_latency, r->far_delay, r->mse_db10 / 10.0, r->retrains, r->cause, r->echoed, r->bad,
	       r->tx_rate_end, r->rx_rate_end, r->v34_renegs, r->v34_retrains);
	printf("  retrain_s=%.2f done_s=%.2f retrains and rates:%s\n", r->retrain_s, r->done_s,
	       r->phases);
	if (c->record)
		printf("RECORD %s", r->record);
	if (!call_ok(c, r))
		printf("  caller: %s\n  smline: %s", r->caller_state, r->record);
}

/*
 * The kept sweep: the lab's paths (the echo 3500-4600 samples back, the
 * lead 2048 of it), the engine's own periods and others, the engine's
 * periods moved against smline's blocks, a line delay, and the far end's
 * signal 10-12 dB down on the way to the engine (which before the fix
 * lost its turn detection under its own echo: 11 of these 18 calls hung
 * in the start-up), each through V.8 to 14400.
 */
static int sweep(const struct cfg *base)
{
	static const struct {
		unsigned int echo, down, start, period;
		double atten_db, delay_ms;
	} cases[] = {
		{ 3500, 300, 0, 0, 0, 0 }, { 4000, 1000, 500, 0, 0, 0 }, { 4600, 2000, 250, 0, 0, 0 },
		{ 3712, 232, 200, 0, 10, 0 }, { 3712, 232, 600, 0, 10, 0 },
		{ 3500, 300, 100, 0, 12, 0 }, { 3500, 300, 500, 0, 12, 0 }, { 3500, 300, 900, 0, 12, 0 },
		{ 4000, 1000, 0, 0, 12, 0 }, { 4000, 1000, 300, 0, 12, 0 }, { 4000, 1000, 700, 0, 12, 0 },
		{ 4600, 2000, 100, 0, 12, 0 }, { 4600, 2000, 500, 0, 12, 0 }, { 4600, 2000, 900, 0, 12, 0 },
		{ 4000, 1000, 0, 80, 10, 0 }, { 4000, 1000, 0, 160, 10, 0 }, { 4000, 1000, 0, 256, 6, 0 },
		{ 4000, 1000, 0, 0, 6, 30 },
	};
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		struct cfg c = *base;
		struct result r;
		int loop;

		c.up = cases[k].echo - cases[k].down;
		c.down = cases[k].down;
		c.start = cases[k].start;
		c.period = cases[k].period;
		c.atten_db = cases[k].atten_db;
		c.delay_ms = cases[k].delay_ms;
		if (one_call(&c, &r))
			return 2;
		print_result(&c, &r);
		CHECK(call_ok(&c, &r), "case %u: connected %d at %u, V.8 %d, round trip %d, %zu bytes back",
		      k, r.connected, r.rate, r.v8, r.rtd, r.echoed);
		/*
		 * the round trip the tones measured is the path's: the echo's
		 * delay and the line's both ways, less the detector's calibration
		 * on its own line (a loop of 2 x 160 samples where smline's is
		 * its 80-sample block)
		 */
		loop = (int)cases[k].echo + (int)(2 * cases[k].delay_ms * 8);
		CHECK(r.rtd >= loop - 500 && r.rtd <= loop, "case %u: round trip %d, the loop %d", k,
		      r.rtd, loop);
	}
	return t_report("callfar");
}

/*
 * V.34 through V.8 both ways round: our engine answering smline's V.34
 * caller (its --incoming call, answered at the first ring as mgetty's ATA)
 * and dialling its V.34 answerer, behind the lead alone and behind the
 * lab's paths (the audio path 0-2600 samples beyond the lead), with the
 * guest's hybrid and without it (test_clients' line): each call at
 * 33,600 with V.42, 4 KiB each way (smline's echo service sends ours
 * back), the round trip phase 2 measured the loop's, and no retrain or
 * renegotiation on the way: on these clean lines the rate holds. With the
 * hybrid, phase 2 found our echo where the path puts it (near_latency):
 * answering, it used not to (the call modem's INFO0 and tone B, 12 dB
 * above our echo, swamped the search), the echo fell in the canceller's
 * far window, and its phase loop's residue cost the data 15 dB: on most
 * of the grid's paths the call retrained, on some V.42 never came up.
 */
struct v34_path {
	unsigned int echo, down, start;
	bool no_hybrid;
	double delay_ms, atten_db;
};

/* where phase 2 hears our echo begin: the path, give or take the hybrid's first taps and the pulse's rise */
#define NEAR_TOL 24

static void v34_call(const struct cfg *base, const struct v34_path *p, unsigned int role, unsigned int k,
		     int *err)
{
	const char *who = role ? "dialling" : "answering";
	struct cfg c = *base;
	struct result r;

	c.incoming = role ? NULL : "v34,v42,echo";
	c.route = "answer:v34,v42,v8,echo,ansdelay=1000";
	c.rate = 33600;
	c.bytes = 4096;
	c.max_s = 60;
	c.up = p->echo - p->down;
	c.down = p->down;
	c.start = p->start;
	c.no_hybrid = p->no_hybrid;
	c.delay_ms = p->delay_ms;
	c.atten_db = p->atten_db;
	if (one_call(&c, &r)) {
		*err = 1;
		return;
	}
	print_result(&c, &r);
	CHECK(call_ok(&c, &r), "%s, path %u: connected %d at %u, V.8 %d, %zu bytes back", who, k, r.connected,
	      r.rate, r.v8, r.echoed);
	CHECK(!r.retrains, "%s, path %u: %u retrains or renegotiations, the error %.1f dB at the end", who, k,
	      r.retrains, r.mse_db10 / 10.0);
	/* phase 2's round trip: the path both ways and the line's, within a few symbols */
	CHECK(abs(r.rtd - (int)(p->echo + 16 * p->delay_ms)) <= 100, "%s, path %u: round trip %d, the loop %u",
	      who, k, r.rtd, p->echo);
	if (!p->no_hybrid)
		CHECK(abs(r.near_latency - (int)p->echo) <= NEAR_TOL, "%s, path %u: our echo heard at %d, the path %u",
		      who, k, r.near_latency, p->echo);
}

static int sweep_v34(const struct cfg *base)
{
	static const struct v34_path paths[] = {
		{ 2148, 100, 0, false, 0, 0 }, { 3500, 300, 500, false, 0, 0 }, { 4600, 2000, 250, false, 0, 0 },
		{ 4648, 2600, 700, false, 0, 0 }, { 2148, 100, 0, true, 0, 0 }, { 4000, 1000, 300, true, 0, 0 },
		{ 4648, 2600, 0, true, 0, 0 },
		/*
		 * round trips where SpanDSP's caller cuts its CM so that CJ
		 * misses our octet framing: V.8 timed out answering them
		 * before dsp/v8.c heard CJ in the raw bits
		 */
		{ 2784, 736, 0, true, 0, 0 }, { 3579, 1531, 0, true, 0, 0 }, { 4427, 2379, 0, true, 0, 0 },
		/* a line's delay and loss between the hybrid and the far modem */
		{ 3048, 400, 250, false, 30, 0 }, { 2748, 169, 0, false, 0, 6 },
	};
	/* the grid: the audio path beyond the lead, split unevenly between the two ways */
	static const unsigned int extra[] = { 0, 100, 300, 600, 1000, 1500, 2000, 2600 };
	static const unsigned int down[] = { 100, 169, 400, 736 };
	unsigned int k, i, j, role;
	int err = 0;

	for (role = 0; role < 2 && !err; role++) {
		for (k = 0; k < ARRAY_SIZE(paths) && !err; k++)
			v34_call(base, &paths[k], role, k, &err);
		for (i = 0; i < ARRAY_SIZE(extra) && !err; i++) {
			for (j = 0; j < ARRAY_SIZE(down) && !err; j++) {
				/* the engine's periods against smline's blocks: two phases, a checkerboard */
				struct v34_path p = { .echo = base->lead + extra[i] + down[j], .down = down[j],
						      .start = (i + j) % 2 ? 250 : 0 };

				v34_call(base, &p, role, k + i * ARRAY_SIZE(down) + j, &err);
			}
		}
	}
	return err ? 2 : t_report("callfar");
}

/*
 * The answer tone under the caller's own echo: smline's far end with V.8
 * (ANSam) and without it (plain ANS: V.32bis, V.22bis and V.21 by the
 * automode), its signal 0-15 dB down, round trips 0-600 ms, with the
 * guest's hybrid and without it; our caller has V.8 on, as AT+A8E=1. With
 * the hybrid and the far end 11 dB or more down, the echo of the caller's
 * CI was as loud as a plain ANS, and the answer tone detector lost the tone
 * at each burst's echo before it could tell ANS from ANSam: V.8 never
 * ended, the far end gave up and the exchange's busy tone ended the call
 * (cases 0-5 and 8-10 failed so, and the V.21 call, case 14, never
 * connected). Each call at the far end's best rate: none at V.21's 300
 * bit/s from the answer tone taken for V.21's carrier.
 */
static int sweep_ans(const struct cfg *base)
{
	static const char *const routes[] = {
		"answer:v32bis,v42,echo,ansdelay=1000",
		"answer:v22bis,v42,echo,ansdelay=1000",
		"answer:v32bis,v42,v8,echo,ansdelay=1000",
		"answer:v22bis,v42,v8,echo,ansdelay=1000",
		"answer:v21,echo,ansdelay=1000",
	};
	static const unsigned int rates[] = { 14400, 2400, 14400, 2400, 300 };
	static const struct {
		unsigned int route, start;
		double atten_db, delay_ms;
		bool no_hybrid;
	} cases[] = {
		{ 0, 0, 12, 0, false }, { 0, 500, 12, 0, false }, { 0, 300, 15, 0, false },
		{ 0, 700, 11, 20, false }, { 0, 0, 13, 150, false }, { 0, 300, 14, 300, false },
		{ 0, 0, 0, 300, true }, { 0, 700, 15, 150, true },
		{ 1, 300, 12, 0, false }, { 1, 0, 15, 300, false }, { 1, 700, 11, 20, false },
		{ 1, 300, 0, 150, true },
		{ 2, 300, 15, 300, false }, { 3, 0, 15, 150, false },
		{ 4, 300, 12, 0, false },
	};
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		struct cfg c = *base;
		struct result r;

		c.route = routes[cases[k].route];
		c.rate = rates[cases[k].route];
		/* V.21: a few bytes, at 300 bit/s */
		if (c.rate == 300)
			c.bytes = 32;
		c.start = cases[k].start;
		c.atten_db = cases[k].atten_db;
		c.delay_ms = cases[k].delay_ms;
		c.no_hybrid = cases[k].no_hybrid;
		c.max_s = 60;
		if (one_call(&c, &r))
			return 2;
		print_result(&c, &r);
		CHECK(call_ok(&c, &r), "case %u: connected %d at %u, V.8 %d, %zu bytes back, cause %u",
		      k, r.connected, r.rate, r.v8, r.echoed, r.cause);
		/* V.32bis's round trip: the path's, as in sweep() */
		if (c.rate > 2400) {
			int loop = (int)(c.up + c.down) + (int)(2 * c.delay_ms * 8);

			CHECK(r.rtd >= loop - 500 && r.rtd <= loop, "case %u: round trip %d, the loop %d",
			      k, r.rtd, loop);
		}
	}
	return t_report("callfar");
}

/*
 * The grid the sweep above was drawn from (not a test: about 4 minutes of
 * CPU): the far ends with plain ANS (V.32bis, V.22bis) and with ANSam
 * (V.32bis), 0-15 dB down, line delays 0-300 ms each way, with the hybrid
 * and without, three engine phases; one RESULT line per call, and a count.
 */
static int grid_ans(const struct cfg *base)
{
	static const char *const routes[] = {
		"answer:v32bis,v42,echo,ansdelay=1000",
		"answer:v32bis,v42,v8,echo,ansdelay=1000",
		"answer:v22bis,v42,echo,ansdelay=1000",
	};
	static const unsigned int rates[] = { 14400, 14400, 2400 };
	static const double attens[] = { 0, 3, 6, 9, 10, 11, 12, 13, 14, 15 };
	static const double delays[] = { 0, 40, 150, 300 };
	static const unsigned int starts[] = { 0, 300, 700 };
	unsigned int n = ARRAY_SIZE(routes) * ARRAY_SIZE(attens) * ARRAY_SIZE(delays) * 2 *
			 ARRAY_SIZE(starts);
	unsigned int k, calls = 0, failed = 0;

	/* k's digits, fastest first: phase, hybrid, delay, level, far end */
	for (k = 0; k < n; k++) {
		unsigned int x = k, ro, a, d, h, st;
		struct cfg c = *base;
		struct result r;

		st = x % ARRAY_SIZE(starts);
		x /= ARRAY_SIZE(starts);
		h = x % 2;
		x /= 2;
		d = x % ARRAY_SIZE(delays);
		x /= ARRAY_SIZE(delays);
		a = x % ARRAY_SIZE(attens);
		ro = x / ARRAY_SIZE(attens);
		c.route = routes[ro];
		c.rate = rates[ro];
		c.atten_db = attens[a];
		c.delay_ms = delays[d];
		c.no_hybrid = h;
		c.start = starts[st];
		c.max_s = 45;
		if (one_call(&c, &r))
			return 2;
		printf("%s %s ", routes[ro], h ? "no-hybrid" : "hybrid");
		print_result(&c, &r);
		calls++;
		failed += !call_ok(&c, &r);
	}
	printf("grid: %u of %u calls failed\n", failed, calls);
	return failed ? 1 : 0;
}

/*
 * The factory profile (AT&F: +MS=V34 with its automode, +A8E off, \N3)
 * against every far end a user may meet: a plain ATDT reaches the best
 * rate the far end allows, V.34's 33,600 through V.8, or, after a V.25
 * answerer's plain ANS, V.32bis's 14,400, V.22bis's 2400 or V.21's 300
 * without V.8 (the caller's V.8 falls back); answering (ATA, mgetty's), a
 * caller that sends no CM gets the V.25 start-up after ANSam, one with CM
 * what V.8 agrees.  The lab's path with the guest's hybrid, and a line
 * 12 dB down with 150 ms each way.
 */
static int sweep_factory(const struct cfg *base)
{
	static const struct {
		const char *route, *incoming;
		unsigned int rate;
	} fars[] = {
		{ "answer:v34,v42,v8,echo,ansdelay=1000", NULL, 33600 },
		{ "answer:v32bis,v42,echo,ansdelay=1000", NULL, 14400 },
		{ "answer:v22bis,v42,echo,ansdelay=1000", NULL, 2400 },
		{ "answer:v22bis,v42,v8,echo,ansdelay=1000", NULL, 2400 },
		{ "answer:v22bis,echo,ansdelay=1000", NULL, 2400 },
		{ "answer:v21,echo,ansdelay=1000", NULL, 300 },
		{ NULL, "v34,v42,echo", 33600 },
		{ NULL, "v32bis,v42,echo", 14400 },
		{ NULL, "v22bis,v42,echo", 2400 },
	};
	static const struct {
		double atten_db, delay_ms;
	} lines[] = { { 0, 0 }, { 12, 150 } };
	unsigned int k, l;

	for (k = 0; k < ARRAY_SIZE(fars); k++) {
		for (l = 0; l < ARRAY_SIZE(lines); l++) {
			struct cfg c = *base;
			struct result r;

			c.factory = true;
			if (fars[k].route)
				c.route = fars[k].route;
			c.incoming = fars[k].incoming;
			c.rate = fars[k].rate;
			c.bytes = c.rate == 300 ? 32 : 1024;
			c.atten_db = lines[l].atten_db;
			c.delay_ms = lines[l].delay_ms;
			c.max_s = 60;
			if (one_call(&c, &r))
				return 2;
			print_result(&c, &r);
			CHECK(call_ok(&c, &r),
			      "%s, line %u: connected %d at %u, V.8 %d, %zu bytes back, cause %u",
			      fars[k].route ? fars[k].route : fars[k].incoming, l, r.connected,
			      r.rate, r.v8, r.echoed, r.cause);
		}
	}
	return t_report("callfar");
}

/*
 * V.32bis dialled over the lab's paths (the guest's audio path each way, our
 * echo 3500-4600 samples back) and a line 12.5-100 ms each way whose far
 * hybrid returns our signal 10-15 dB down, shifted -7..+7 Hz: the far echo
 * comes back the line's round trip (and the far hybrid's few ms) after the
 * near one, behind the audio path as in the guest, where the far canceller's
 * window must find it.  Each call must reach 14400 with every byte back, no
 * retrain, and the canceller's ERLE at 20 dB or more.
 */
static int sweep_far(const struct cfg *base)
{
	static const struct {
		unsigned int echo, down;
		double far_db, far_hz, delay_ms, far_loop_ms;
		int far_hybrid;
	} cases[] = {
		{ 3500, 300, 12, 0, 25, 0, 1 }, { 4000, 1000, 10, 3, 50, 2, 3 },
		{ 4600, 2000, 15, -7, 100, 0, 5 }, { 3712, 232, 12, 7, 12.5, 1, 2 },
		{ 4000, 1000, 12, -5.5, 75, 3, 4 }, { 4600, 2000, 10, 5.5, 37.5, 0, 1 },
	};
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		struct cfg c = *base;
		struct result r;

		c.up = cases[k].echo - cases[k].down;
		c.down = cases[k].down;
		c.delay_ms = cases[k].delay_ms;
		c.far_echo_db = cases[k].far_db;
		c.far_echo_ms = 2 * cases[k].delay_ms + cases[k].far_loop_ms;
		c.far_echo_hz = cases[k].far_hz;
		c.far_hybrid = cases[k].far_hybrid;
		c.bytes = 4096;
		c.max_s = 60;
		if (one_call(&c, &r))
			return 2;
		print_result(&c, &r);
		CHECK(call_ok(&c, &r) && r.retrains == 0 && r.erle_db >= 20,
		      "case %u: connected %d at %u, %zu bytes back, %u retrains, ERLE %d dB", k,
		      r.connected, r.rate, r.echoed, r.retrains, r.erle_db);
	}
	return t_report("callfar");
}

int main(int argc, char **argv)
{
	struct cfg c = { .period = 0, .lead = 2048, .up = 3048, .down = 1000, .rate = 14400,
			 .bytes = 1024, .max_s = 40, .noise_dbm0 = -99,
			 .route = "answer:v32bis,v42,v8,echo,ansdelay=1000" };
	struct result r;
	int i;

	sml_log_prog = "callfar";
	sml_log_level = SML_LOG_ERR;
	for (i = 1; i < argc; i++) {
		const char *o = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "-v")) {
			sml_log_level = SML_LOG_DEBUG;
			continue;
		}
		if (!strcmp(o, "--no-hybrid")) {
			c.no_hybrid = true;
			continue;
		}
		if (!strcmp(o, "--record")) {
			c.record = true;
			continue;
		}
		if (!strcmp(o, "--factory")) {
			c.factory = true;
			continue;
		}
		if (!strcmp(o, "--sweep"))
			return sweep(&c);
		if (!strcmp(o, "--sweep-v34"))
			return sweep_v34(&c);
		if (!strcmp(o, "--sweep-ans"))
			return sweep_ans(&c);
		if (!strcmp(o, "--sweep-factory"))
			return sweep_factory(&c);
		if (!strcmp(o, "--sweep-far"))
			return sweep_far(&c);
		if (!strcmp(o, "--grid-ans"))
			return grid_ans(&c);
		if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
			fputs(usage, stdout);
			return 0;
		}
		if (!v) {
			fprintf(stderr, "callfar: bad option %s (--help)\n", o);
			return 2;
		}
		i++;
		if (!strcmp(o, "--period"))
			c.period = (unsigned int)atoi(v);
		else if (!strcmp(o, "--lead"))
			c.lead = (unsigned int)atoi(v);
		else if (!strcmp(o, "--up"))
			c.up = (unsigned int)atoi(v);
		else if (!strcmp(o, "--down"))
			c.down = (unsigned int)atoi(v);
		else if (!strcmp(o, "--start"))
			c.start = (unsigned int)atoi(v);
		else if (!strcmp(o, "--delay-ms"))
			c.delay_ms = atof(v);
		else if (!strcmp(o, "--atten"))
			c.atten_db = atof(v);
		else if (!strcmp(o, "--noise"))
			c.noise_dbm0 = atof(v);
		else if (!strcmp(o, "--far-echo"))
			c.far_echo_db = atof(v);
		else if (!strcmp(o, "--far-echo-ms"))
			c.far_echo_ms = atof(v);
		else if (!strcmp(o, "--far-echo-hz"))
			c.far_echo_hz = atof(v);
		else if (!strcmp(o, "--far-hybrid"))
			c.far_hybrid = atoi(v);
		else if (!strcmp(o, "--codec") && sml_codec_parse(v) >= 0)
			c.codec = sml_codec_parse(v);
		else if (!strcmp(o, "--rate"))
			c.rate = (unsigned int)atoi(v);
		else if (!strcmp(o, "--bytes"))
			c.bytes = (unsigned int)atoi(v);
		else if (!strcmp(o, "--max-s"))
			c.max_s = atof(v);
		else if (!strcmp(o, "--route"))
			c.route = v;
		else if (!strcmp(o, "--incoming"))
			c.incoming = v;
		else {
			fprintf(stderr, "callfar: bad option %s (--help)\n", o);
			return 2;
		}
	}
	if (c.period > MAX_PERIOD || c.up > MAX_PATH || c.start > MAX_PERIOD || c.down > MAX_PATH ||
	    c.up + c.down < (c.period ? c.period : 100) + SML_BLOCK) {
		fprintf(stderr, "callfar: bad period or path\n");
		return 2;
	}
	if (one_call(&c, &r))
		return 2;
	print_result(&c, &r);
	return call_ok(&c, &r) ? 0 : 1;
}
