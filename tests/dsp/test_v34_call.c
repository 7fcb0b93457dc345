// SPDX-License-Identifier: GPL-2.0
/*
 * A whole V.34 call between two of our ends (dsp/v34.c): from the silence
 * after phase 1, phase 2, the hand-over, phases 3 and 4, then data both
 * ways, over the line model (tests/dsp/common/line.c), 4-wire and 2-wire.
 *
 * - Eleven lines (loss, white noise, one-way delays of 12-600 ms, +-100 ppm
 *   between the clocks, the telephone, flat, bass-cut, narrow and long-loop
 *   channels, blocks of 80 and 37 samples): both ends reach the data mode;
 *   each end's two directions are those phase 2 settled (the same at both
 *   ends: symbol rate, carrier, pre-emphasis), phase 2's projected rate
 *   for each direction within one 2400 bit/s step of the rule of
 *   v34_probe.c applied to the true channel (tests/dsp/common/v34rule.c:
 *   white noise over a known channel), each direction's data rate that,
 *   limited by max_rate where one is set and by the rate the receiving
 *   end's MP asks for (its own choice from its trained error, never above
 *   the other two; test_v34_rate judges it); a PRBS each way arrives without
 *   a bit error over 3 s of data
 *   (aligned by the first 23 bits received), and the bits counted match.
 * - The order on the line: the answer modem's S starts on the sample where
 *   INFO1a's last symbol ends (computed here in floating point from phase
 *   2's end) and it is never 2 ms silent from there to the data (4-wire); the call
 *   modem is silent from its phase 2's end until the answer modem's J has
 *   reached it (the line's delay and under 100 ms more), then sends S.
 * - Four 2-wire lines (both ends two_wire; G.168 hybrids at ERL 6-12 dB,
 *   far echoes 26-30 dB down and -7 to +7 Hz, 12-250 ms one way, 2400 to
 *   3429 baud offered, no max_rate: the rates each receiver's MP asks for):
 *   phase 2 completes with the echoes on, both ends reach the data mode and
 *   the PRBS arrives without a bit error, judged as the 4-wire calls, the
 *   answer modem silent while the call modem trains, each canceller's ERLE
 *   at its training's end at least ERLE_MIN.
 * - The call modem given again what it heard in one call, in blocks of 80,
 *   37 and 1: the same samples sent, sample for sample.
 * - The answer modem's S to TRN against a training transmitter created with
 *   phase 2's parameters (v34.c sets its own up in place): the same signal,
 *   at our level less the power reduction.
 * - Phase 2 going back after a fault past its INFO0 exchange (the far L2
 *   lost at the call modem, INFO1a lost, 4-wire 12 ms; INFO1c and INFO1a
 *   corrupted, 2-wire 12 ms; INFO1a corrupted, 4-wire 600 ms): the data
 *   reached without a bit error, with the same phase 2 rates and data rates
 *   as the same call without the fault, the answer modem out of its phase 3
 *   again when the call modem lost INFO1a; the time it cost printed.
 * - A far end that is noise only, or silent: phase 2 fails and the object
 *   ends FAILED with phase 2's reason, in bounded time; so does the answer
 *   modem back from its phase 3 when the call modem that lost INFO1a is
 *   gone after its tone. A far end gone after
 *   phase 2: FAILED, no S, within the training's time limit. A far end gone
 *   in the data: FAILED, lost, within 1.5 s. Bad configurations refused at
 *   create; print, reset.
 * Options: --quick (1.5 s of data), -v (each end's line at each change),
 * --line=channel,loss_db,noise_dbm0,ppm,delay_ms (one call on that line),
 * --trn=N (phase 3's TRN length at both ends), --p2-faults (each phase 2
 * fault on each of four lines).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <complex.h>
#include <smdsp/v34.h>
#include <smdsp/v34_train.h>
#include <smdsp/v34_probe.h>
#include <smdsp/v34_mod.h>
#include <smdsp/private/v34.h>
#include "line.h"
#include "chan.h"
#include "v34rule.h"
#include "v34fault.h"
#include "tutil.h"
#include "check.h"

#define LEVEL (-120)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAXBLK 80

static int verbose;
static unsigned int trn_symbols;	/* --trn=N: phase 3's TRN at both ends (0: the default) */
static double data_seconds = 3.0;

static const int sym_rate[6] = { 2400, 2743, 2800, 3000, 3200, 3429 };

/* ---- the data: a PRBS each way, checked after alignment ---- */

struct prbs {
	uint32_t s;
};

static int prbs_bit(struct prbs *p)
{
	/* x^23 + x^18 + 1, as V.34's own scrambler would not be */
	int b = (int)(((p->s >> 22) ^ (p->s >> 17)) & 1);

	p->s = (p->s << 1) | (uint32_t)b;
	return b;
}

struct src {
	struct prbs p;
	unsigned long sent;
};

static int src_bit(void *user)
{
	struct src *s = user;

	s->sent++;
	return prbs_bit(&s->p);
}

/* the receiver's PRBS is seeded from the first 23 bits it gets, then checked */
struct sink {
	struct prbs p;
	unsigned long bits, checked, errors;
};

static void sink_bit(void *user, int bit)
{
	struct sink *k = user;

	if (k->bits++ < 23) {
		k->p.s = (k->p.s << 1) | (uint32_t)(bit & 1);
		return;
	}
	k->checked++;
	k->errors += (unsigned long)(prbs_bit(&k->p) != bit);
}

/* ---- one call ---- */

struct call_cfg {
	struct line_cfg line;
	unsigned int max_rate_c, max_rate_a;	/* 0: 33600 */
	bool trn16;
	int blk;
	/* 2-wire: both ends two_wire, told echo_latency = blk (a block's echo is heard in the next block) */
	bool two_wire;
	struct smdsp_v34_info0 info0;	/* the symbol rates offered (2-wire lines; else all) */
	bool silent_answer;		/* the answer modem never on the line */
	bool noise_answer;		/* the call modem hears noise only */
	bool answer_stops;		/* the answer modem off the line once its phase 2 is done */
	bool answer_gone;		/* ... once both have been in data for 0.5 s */
	bool call_gone_back;		/* the call modem off the line once the answer modem left its phase 3 */
	int16_t *record;		/* what the call modem heard, sample by sample (NULL: not kept) */
	int16_t *record_a;		/* what the answer modem sent (NULL: not kept) */
	double seconds;			/* line time at most (the data's few seconds once both are in it) */
	/* faults in phase 2 past its INFO0 exchange, each once (enum v34_fault bits: common/v34fault.h) */
	unsigned int p2_faults;
};

struct end_out {
	enum smdsp_v34_state st;
	enum smdsp_v34_fail fail;
	struct smdsp_v34_stats stats;
	struct smdsp_v34_phase2_result p2;
	struct smdsp_v34_phase2_stats p2st;
	bool p2_end;
	struct sink sink;
	struct src src;
};

struct call_out {
	struct end_out c, a;
	long data_ms;			/* both ends in data at */
	uint64_t c_hash;		/* of everything the call modem sent */
	long samples;			/* line time, samples */
	double cpu;			/* s of CPU in the two ends */
	bool answer_gap;		/* the answer modem silent for 2 ms or more between INFO1a and data */
	bool call_quiet;		/* the call modem silent from its phase 2's end to its S */
	long call_s_after_j;		/* the call modem's S after the answer modem's J began, samples */
};

static uint32_t noise_state = 12345;

static int16_t noise_sample(void)
{
	/* about -20 dBm0 of uniform noise */
	noise_state = noise_state * 1103515245u + 12345u;
	return (int16_t)((int32_t)(noise_state >> 16) % 8000 - 4000);
}

static void end_out(const struct smdsp_v34 *m, struct end_out *o)
{
	o->st = smdsp_v34_state(m);
	o->fail = smdsp_v34_fail(m);
	smdsp_v34_get_stats(m, &o->stats);
	o->p2_end = smdsp_v34_get_phase2(m, &o->p2);
	smdsp_v34_phase2_get_stats(&m->p2, &o->p2st);
}

static void run_call(const struct call_cfg *cc, struct call_out *o)
{
	struct smdsp_v34_config ccfg = { .calling = true, .level_dbm0_10 = LEVEL, .far_level_dbm0_10 = LEVEL,
					 .max_rate = cc->max_rate_c, .trn16 = cc->trn16, .trn_symbols = trn_symbols };
	struct smdsp_v34_config acfg = { .calling = false, .level_dbm0_10 = LEVEL, .far_level_dbm0_10 = LEVEL,
					 .max_rate = cc->max_rate_a, .trn16 = cc->trn16, .trn_symbols = trn_symbols };
	static const struct smdsp_v34_info0 all = {
		.rate_2743 = 1, .rate_2800 = 1, .rate_3429 = 1, .low_3000 = 1, .high_3000 = 1, .low_3200 = 1,
		.high_3200 = 1, .allow_3429 = 1, .power_reduction = 1, .c1664 = 1
	};
	struct smdsp_v34 *c, *a;
	struct line *l = line_create(&cc->line);
	int16_t c_tx[MAXBLK], a_tx[MAXBLK], c_rx[MAXBLK] = { 0 }, a_rx[MAXBLK] = { 0 };
	long t, total = (long)(cc->seconds * 8000), blk = cc->blk ? cc->blk : MAXBLK, stop = -1;
	enum smdsp_v34_state pc = SMDSP_V34_STATES, pa = SMDSP_V34_STATES;
	long a_quiet = 0, a_j_at = -1, c_p2_end = -1;
	uint64_t h = 1469598103934665603ULL;
	long rec = 0, a_p3 = 0;
	struct v34_faults flt;
	int i;

	memset(o, 0, sizeof(*o));
	v34_faults_init(&flt, cc->p2_faults);
	o->data_ms = -1;
	o->call_quiet = true;
	o->call_s_after_j = -1;
	o->c.src.p.s = 0x1abcdeu + (uint32_t)cc->line.seed;
	o->a.src.p.s = 0x2fedcbu + (uint32_t)cc->line.seed;
	ccfg.info0 = cc->two_wire ? cc->info0 : all;
	acfg.info0 = ccfg.info0;
	ccfg.two_wire = cc->two_wire;
	acfg.two_wire = cc->two_wire;
	ccfg.echo_latency = cc->two_wire ? (int)blk : 0;
	acfg.echo_latency = ccfg.echo_latency;
	ccfg.get_bit = src_bit;
	ccfg.get_user = &o->c.src;
	ccfg.put_bit = sink_bit;
	ccfg.put_user = &o->c.sink;
	acfg.get_bit = src_bit;
	acfg.get_user = &o->a.src;
	acfg.put_bit = sink_bit;
	acfg.put_user = &o->a.sink;
	c = smdsp_v34_create(&ccfg);
	a = smdsp_v34_create(&acfg);
	CHECK(c && a && l);
	if (!c || !a || !l)
		return;
	for (t = 0; t < total; t += blk) {
		struct smdsp_v34_stats cs, as;

		clock_t t0 = clock();

		smdsp_v34_process(c, c_rx, c_tx, (unsigned int)blk);
		smdsp_v34_process(a, a_rx, a_tx, (unsigned int)blk);
		o->cpu += (double)(clock() - t0) / CLOCKS_PER_SEC;
		smdsp_v34_get_stats(c, &cs);
		smdsp_v34_get_stats(a, &as);
		for (i = 0; i < blk; i++) {
			long n = t + i;

			h = (h ^ (uint16_t)c_tx[i]) * 1099511628211ULL;
			if (cc->record_a && rec < total)
				cc->record_a[rec] = a_tx[i];
			if (cc->record && rec < total)
				cc->record[rec++] = c_rx[i];
			/* the answer modem from its INFO1a's end (its phase 3) to the data: 2 ms silent? */
			if (as.phase3_at && n >= (long)as.phase3_at && !as.tx_data_at) {
				a_quiet = a_tx[i] ? 0 : a_quiet + 1;
				if (a_quiet >= 16)
					o->answer_gap = true;
			}
			/* the call modem between its phase 2's end and its S */
			if (c_p2_end >= 0 && n > c_p2_end + 100 && (!cs.phase3_at || n < (long)cs.phase3_at) && c_tx[i])
				o->call_quiet = false;
		}
		if (c_p2_end < 0 && smdsp_v34_state(c) > SMDSP_V34_PHASE2) {
			struct smdsp_v34_phase2_result r;

			smdsp_v34_get_phase2(c, &r);
			c_p2_end = r.done_at;
		}
		/* (again if it left its phase 3 for phase 2: the call modem lost INFO1a) */
		if (as.phase3_at && as.phase3_at != a_p3 && as.tx.symrate < 6) {
			/* the answer modem's J begins after S, S-bar, PP and TRN (2-wire: 1.25 s of TRN at least) */
			unsigned int trn = trn_symbols ? trn_symbols : 2048;
			unsigned int trn2 = (unsigned int)(smdsp_v34_symrate_mbaud(as.tx.symrate) * 5 / 4000);
			double syms = 128 + 16 + 288 + (cc->two_wire && !trn_symbols && trn2 > trn ? trn2 : trn);

			a_j_at = (long)as.phase3_at + (long)(syms * 8000 / sym_rate[as.tx.symrate]);
			a_p3 = as.phase3_at;
		}
		if (o->call_s_after_j < 0 && cs.phase3_at && a_j_at >= 0)
			o->call_s_after_j = (long)cs.phase3_at - a_j_at;
		v34_faults_apply(&flt, t, c_tx, a_tx, &c->p2, &a->p2, (int)blk);
		if (cc->silent_answer)
			memset(a_tx, 0, sizeof(a_tx));
		if (cc->answer_stops && smdsp_v34_state(a) > SMDSP_V34_PHASE2)
			memset(a_tx, 0, sizeof(a_tx));
		if (cc->answer_gone && o->data_ms >= 0 && t / 8 >= o->data_ms + 500)
			memset(a_tx, 0, sizeof(a_tx));
		if (cc->call_gone_back && as.p3_left)
			memset(c_tx, 0, sizeof(c_tx));
		line_process(l, c_tx, c_rx, a_tx, a_rx, (int)blk);
		if (cc->noise_answer)
			for (i = 0; i < blk; i++)
				c_rx[i] = noise_sample();
		if (verbose && (smdsp_v34_state(c) != pc || smdsp_v34_state(a) != pa)) {
			char b1[300], b2[300];

			pc = smdsp_v34_state(c);
			pa = smdsp_v34_state(a);
			smdsp_v34_print(c, b1, sizeof(b1));
			smdsp_v34_print(a, b2, sizeof(b2));
			printf("  %6ld ms: %s\n  %6s    %s\n", t / 8, b1, "", b2);
		}
		if (o->data_ms < 0 && smdsp_v34_state(c) == SMDSP_V34_DATA && smdsp_v34_state(a) == SMDSP_V34_DATA) {
			o->data_ms = t / 8;
			/* then a few seconds of data */
			stop = t + (long)(data_seconds * 8000);
		}
		if (stop >= 0 && t >= stop && !cc->answer_gone)
			break;
		if (smdsp_v34_state(c) == SMDSP_V34_FAILED && smdsp_v34_state(a) == SMDSP_V34_FAILED)
			break;
	}
	end_out(c, &o->c);
	end_out(a, &o->a);
	o->c.sink = *(struct sink *)ccfg.put_user;
	o->a.sink = *(struct sink *)acfg.put_user;
	o->c.src = *(struct src *)ccfg.get_user;
	o->a.src = *(struct src *)acfg.get_user;
	o->c_hash = h;
	o->samples = t < total ? t + blk : t;
	if (verbose) {
		char b[300];

		smdsp_v34_print(c, b, sizeof(b));
		printf("  end: %s\n", b);
		smdsp_v34_print(a, b, sizeof(b));
		printf("  end: %s\n", b);
	}
	CHECK(line_starved(l) == 0);
	smdsp_v34_free(c);
	smdsp_v34_free(a);
	line_free(l);
}

/* ---- the rule of v34_probe.c on the true channel (common/v34rule.c) ---- */

/* ---- the lines ---- */

/*
 * Where the answer modem's S starts after phase 2's end: INFO1a's last DPSK
 * symbol (taken on phase 2's last sample) ends half a symbol after its
 * pulse's centre, 40 + 20/3 samples on; S's first pulse is centred 10 of its
 * symbols after its start, so its start is 9.5 symbols before that end
 */
static uint32_t s_offset(enum smdsp_v34_symrate r)
{
	return (uint32_t)ceil(40 + 20.0 / 3 - 9.5 * 8000 / (smdsp_v34_symrate_mbaud(r) / 1000.0) - 1e-9);
}

static void judge_call(const char *what, const struct call_cfg *cc, const struct call_out *o)
{
	const struct end_out *c = &o->c, *a = &o->a;
	unsigned int mc = cc->max_rate_c ? cc->max_rate_c : 33600, ma = cc->max_rate_a ? cc->max_rate_a : 33600;
	unsigned int lim = mc < ma ? mc : ma, ca, ac;
	int rates[6];

	CHECK(c->st == SMDSP_V34_DATA && a->st == SMDSP_V34_DATA, "%s: states %s/%s (%s/%s)", what,
	      smdsp_v34_state_name(c->st), smdsp_v34_state_name(a->st), smdsp_v34_fail_name(c->fail),
	      smdsp_v34_fail_name(a->fail));
	if (c->st != SMDSP_V34_DATA || a->st != SMDSP_V34_DATA)
		return;
	/* each end's directions are phase 2's, and the two ends agree */
	CHECK(c->p2_end && a->p2_end && c->p2.fail == SMDSP_V34P2_OK && a->p2.fail == SMDSP_V34P2_OK);
	CHECK(c->stats.tx.symrate == c->p2.c_to_a.symrate && c->stats.tx.high == c->p2.c_to_a.high_carrier &&
	      c->stats.tx.preemph == c->p2.c_to_a.preemph && c->stats.rx.symrate == c->p2.a_to_c.symrate &&
	      c->stats.rx.high == c->p2.a_to_c.high_carrier, "%s: the call modem's directions", what);
	CHECK(a->stats.tx.symrate == a->p2.a_to_c.symrate && a->stats.tx.high == a->p2.a_to_c.high_carrier &&
	      a->stats.tx.preemph == a->p2.a_to_c.preemph && a->stats.rx.symrate == a->p2.c_to_a.symrate &&
	      a->stats.rx.high == a->p2.c_to_a.high_carrier, "%s: the answer modem's directions", what);
	CHECK(!memcmp(&c->p2.a_to_c, &a->p2.a_to_c, sizeof(c->p2.a_to_c)) &&
	      !memcmp(&c->p2.c_to_a, &a->p2.c_to_a, sizeof(c->p2.c_to_a)), "%s: phase 2 differs", what);
	/*
	 * the rates: phase 2's, limited by max_rate and by what the receiving
	 * end's trained error supports (the rate in its MP, never above the
	 * other two), settled the same at both ends
	 */
	ca = c->p2.c_to_a.max_rate < lim ? c->p2.c_to_a.max_rate : lim;
	ac = c->p2.a_to_c.max_rate < lim ? c->p2.a_to_c.max_rate : lim;
	CHECK(a->stats.rx.mp_rate >= 2400 && a->stats.rx.mp_rate <= c->p2.c_to_a.max_rate &&
	      a->stats.rx.mp_rate <= ma && c->stats.rx.mp_rate >= 2400 &&
	      c->stats.rx.mp_rate <= c->p2.a_to_c.max_rate && c->stats.rx.mp_rate <= mc,
	      "%s: MP rates %u/%u, phase 2 %u/%u, max_rate %u/%u", what, c->stats.rx.mp_rate, a->stats.rx.mp_rate,
	      c->p2.a_to_c.max_rate, c->p2.c_to_a.max_rate, mc, ma);
	CHECK(c->stats.tx.rate == (a->stats.rx.mp_rate < ca ? a->stats.rx.mp_rate : ca) &&
	      a->stats.tx.rate == (c->stats.rx.mp_rate < ac ? c->stats.rx.mp_rate : ac),
	      "%s: rates %u/%u, phase 2 %u/%u, MP %u/%u, limit %u", what, c->stats.tx.rate, a->stats.tx.rate,
	      c->p2.c_to_a.max_rate, a->p2.a_to_c.max_rate, a->stats.rx.mp_rate, c->stats.rx.mp_rate, lim);
	CHECK(c->stats.rx.rate == a->stats.tx.rate && a->stats.rx.rate == c->stats.tx.rate,
	      "%s: the receivers' rates %u/%u, the transmitters' %u/%u", what, c->stats.rx.rate, a->stats.rx.rate,
	      a->stats.tx.rate, c->stats.tx.rate);
	if (!cc->two_wire) {
		int r, best = 0;

		/* white noise over a known channel: the rule applies (every symbol rate allowed here) */
		v34_rule_line_rates(&cc->line, LEVEL, rates);
		for (r = 0; r < 6; r++)
			best = 2 * rates[r] > best ? 2 * rates[r] : best;
		CHECK(abs((int)c->p2.a_to_c.max_rate / 2400 - rates[c->p2.a_to_c.symrate]) <= 1 &&
		      abs((int)c->p2.c_to_a.max_rate / 2400 - rates[c->p2.c_to_a.symrate]) <= 1,
		      "%s: %u/%u bit/s, the rule %d/%d", what, c->p2.a_to_c.max_rate, c->p2.c_to_a.max_rate,
		      2400 * rates[c->p2.a_to_c.symrate], 2400 * rates[c->p2.c_to_a.symrate]);
		CHECK((int)(c->p2.a_to_c.max_rate + c->p2.c_to_a.max_rate) / 2400 >= best - 2,
		      "%s: %u + %u bit/s, the rule's best %d", what, c->p2.a_to_c.max_rate, c->p2.c_to_a.max_rate,
		      2400 * best);
	}
	/* the data: a few seconds each way, not a bit wrong */
	CHECK(c->sink.checked > (unsigned long)(0.8 * data_seconds * a->stats.tx.rate) &&
	      a->sink.checked > (unsigned long)(0.8 * data_seconds * c->stats.tx.rate),
	      "%s: %lu and %lu bits checked", what, c->sink.checked, a->sink.checked);
	CHECK(c->sink.errors == 0 && a->sink.errors == 0, "%s: %lu and %lu bit errors", what, c->sink.errors,
	      a->sink.errors);
	CHECK(c->stats.bits_received == c->sink.bits && a->stats.bits_received == a->sink.bits &&
	      c->stats.bits_sent == c->src.sent && a->stats.bits_sent == a->src.sent, "%s: bit counts", what);
	/* the order on the line */
	/* 4-wire the answer modem sends J while the call modem trains; 2-wire it falls silent then */
	CHECK(o->answer_gap == cc->two_wire, "%s: the answer modem %s between INFO1a and the data", what,
	      o->answer_gap ? "fell silent" : "never fell silent");
	CHECK(a->stats.phase3_at == a->p2.done_at + s_offset(a->stats.tx.symrate),
	      "%s: the answer modem's S at %u, phase 2 done at %u", what, a->stats.phase3_at, a->p2.done_at);
	CHECK(o->call_quiet, "%s: the call modem sent before its S", what);
	/* J reaches the call modem a one-way delay later; two Js and the receiver's delays, under 100 ms */
	CHECK(o->call_s_after_j > cc->line.delay && o->call_s_after_j < cc->line.delay + 800,
	      "%s: the call modem's S %ld samples after the answer modem's J", what, o->call_s_after_j);
}

static void print_call(const char *what, const struct call_out *o)
{
	const struct end_out *c = &o->c, *a = &o->a;

	if (c->stats.erle_db10 || a->stats.erle_db10)
		printf("%-50s: ERLE %d.%d/%d.%d dB (call/answer), round trip %d samples\n", what,
		       c->stats.erle_db10 / 10, abs(c->stats.erle_db10 % 10), a->stats.erle_db10 / 10,
		       abs(a->stats.erle_db10 % 10), c->stats.rtd);

	printf("%-50s: a->c %4d baud%s pe %u %5u bit/s, c->a %4d baud%s pe %u %5u bit/s; data at %5ld ms; "
	       "%lu/%lu bits, %lu/%lu errors; mse %d.%d/%d.%d dB; S %ld ms after J; %.1f us/10 ms an end\n", what,
	       sym_rate[a->stats.tx.symrate % 6], a->stats.tx.high ? "h" : "l", a->stats.tx.preemph,
	       a->stats.tx.rate, sym_rate[c->stats.tx.symrate % 6], c->stats.tx.high ? "h" : "l",
	       c->stats.tx.preemph, c->stats.tx.rate, o->data_ms, c->sink.checked, a->sink.checked,
	       c->sink.errors, a->sink.errors, c->stats.mse_db10 / 10, abs(c->stats.mse_db10 % 10),
	       a->stats.mse_db10 / 10, abs(a->stats.mse_db10 % 10), o->call_s_after_j / 8,
	       o->cpu / 2 / (o->samples / 80.0) * 1e6);
}

struct line_case {
	const char *name;
	int channel;
	double loss, noise, ppm;
	int delay_ms, blk;
	unsigned int max_c, max_a;
	bool trn16;
};

static const struct line_case lines[] = {
	{ "telephone, 10 dB, -48 dBm0", CHAN_TELEPHONE, 10, -48, 100, 12, 80, 0, 0, false },
	{ "flat, 8 dB, -48 dBm0, 16-point TRN", CHAN_FLAT, 8, -48, -100, 40, 80, 0, 0, true },
	{ "bass cut, 12 dB, -50 dBm0", CHAN_BASS_CUT, 12, -50, 0, 150, 37, 0, 0, false },
	{ "long loop, 6 dB, -52 dBm0", CHAN_LONG_LOOP, 6, -52, 50, 25, 80, 0, 0, false },
	{ "telephone, 10 dB, -49 dBm0", CHAN_TELEPHONE, 10, -49, -100, 300, 80, 0, 0, false },
	{ "bass cut, 10 dB, -49 dBm0", CHAN_BASS_CUT, 10, -49, 100, 450, 80, 0, 0, false },
	{ "narrow, 10 dB, -50 dBm0", CHAN_NARROW, 10, -50, -100, 30, 80, 0, 0, false },
	{ "long loop, 12 dB, -50 dBm0", CHAN_LONG_LOOP, 12, -50, -100, 200, 80, 0, 0, false },
	{ "telephone, 12 dB, -50 dBm0", CHAN_TELEPHONE, 12, -50, 100, 600, 80, 0, 0, false },
	{ "bass cut, 6 dB, -48 dBm0", CHAN_BASS_CUT, 6, -48, -100, 75, 80, 0, 0, false },
	{ "telephone, 6 dB, -58 dBm0, max 19200/33600", CHAN_TELEPHONE, 6, -58, -50, 5, 80, 19200, 33600, false },
};

static void case_cfg(const struct line_case *lc, unsigned int i, struct call_cfg *cc)
{
	memset(cc, 0, sizeof(*cc));
	cc->line.loss_db = lc->loss;
	cc->line.noise_dbm0 = lc->noise;
	cc->line.echo_db = -999;
	cc->line.delay = lc->delay_ms * 8 + (int)i;
	cc->line.ppm = lc->ppm;
	cc->line.seed = 11 + i;
	cc->line.channel = lc->channel;
	cc->max_rate_c = lc->max_c;
	cc->max_rate_a = lc->max_a;
	cc->trn16 = lc->trn16;
	cc->blk = lc->blk;
	cc->seconds = 30;
}

static void test_lines(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		const struct line_case *lc = &lines[i];
		struct call_cfg cc;
		struct call_out o;
		char what[120];

		case_cfg(lc, i, &cc);
		snprintf(what, sizeof(what), "%s, %d ms, %+.0f ppm, blocks of %d", lc->name, lc->delay_ms, lc->ppm,
			 lc->blk);
		run_call(&cc, &o);
		print_call(what, &o);
		judge_call(what, &cc, &o);
		/* each end's max_rate limits both its directions */
		if (lc->max_c)
			CHECK(o.c.stats.tx.rate == lc->max_c && o.a.stats.tx.rate == lc->max_c,
			      "%s: max_rate: %u/%u bit/s", what, o.c.stats.tx.rate, o.a.stats.tx.rate);
	}
}

/*
 * 2-wire lines (two_wire at both ends): each end hears its own signal
 * through a G.168 hybrid model (ERL 6-12 dB: the near echo up to 4 dB above
 * the far end's signal after the line's loss) and, a round trip later, from
 * the far hybrid 26-30 dB below what it sent, shifted 0-7 Hz. The symbol
 * rates offered (INFO0) pick the symbol rate; no max_rate: each receiver's
 * MP asks for what the worse of its phase 3 and phase 4 TRN errors carries
 * (phase 4's heard with its own echo and the canceller, as the data is;
 * test_v34_rate judges that choice). The call is judged
 * as the 4-wire ones (phase 2's parameters and rates, the PRBS, the order
 * on the line) but the answer modem must fall silent while the call modem
 * trains, and each canceller's ERLE at its training's end must reach
 * ERLE_MIN.
 */
#define ERLE_MIN 25

struct wire2_case {
	const char *name;
	int channel;
	double loss, noise, ppm;
	int delay_ms, blk;
	int hybrid;
	double erl, far_db, hz;
	int max_baud;			/* the highest symbol rate offered */
};

static const struct wire2_case wire2[] = {
	{ "2-wire telephone, 10 dB, -55 dBm0", CHAN_TELEPHONE, 10, -55, 100, 12, 80, 1, 6, 26, 0.0, 2400 },
	{ "2-wire telephone, 10 dB, -55 dBm0", CHAN_TELEPHONE, 10, -55, -100, 100, 80, 4, 8, 28, -7.0, 3000 },
	{ "2-wire flat, 8 dB, -55 dBm0", CHAN_FLAT, 8, -55, 50, 250, 37, 5, 12, 30, 7.0, 3200 },
	{ "2-wire telephone, 10 dB, -55 dBm0", CHAN_TELEPHONE, 10, -55, 100, 40, 80, 6, 10, 27, 3.0, 3429 },
};

static void test_two_wire(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(wire2); i++) {
		const struct wire2_case *w = &wire2[i];
		struct call_cfg cc;
		struct call_out o;
		char what[120];

		memset(&cc, 0, sizeof(cc));
		cc.line.loss_db = w->loss;
		cc.line.noise_dbm0 = w->noise;
		cc.line.echo_db = -999;
		cc.line.delay = w->delay_ms * 8;
		cc.line.ppm = w->ppm;
		cc.line.seed = 41 + i;
		cc.line.channel = w->channel;
		cc.line.hybrid = w->hybrid;
		cc.line.hybrid_erl_db = w->erl;
		cc.line.far_echo_db = w->far_db;
		cc.line.far_hybrid = 1 + w->hybrid % 8;
		cc.line.far_echo_hz = w->hz;
		/* the far hybrid at the far modem: the line's round trip */
		cc.line.far_echo_delay = 2 * (cc.line.delay + 16);
		cc.blk = w->blk;
		cc.two_wire = true;
		v34_info0_upto(w->max_baud, &cc.info0);
		cc.seconds = 30;
		snprintf(what, sizeof(what), "%s, %d ms, ERL %.0f, far %.0f dB %+.0f Hz, up to %d baud", w->name,
			 w->delay_ms, w->erl, w->far_db, w->hz, w->max_baud);
		run_call(&cc, &o);
		print_call(what, &o);
		judge_call(what, &cc, &o);
		CHECK(o.c.stats.erle_db10 >= 10 * ERLE_MIN && o.a.stats.erle_db10 >= 10 * ERLE_MIN,
		      "%s: ERLE %d/%d (tenths of dB)", what, o.c.stats.erle_db10, o.a.stats.erle_db10);
	}
}

/*
 * Phase 2 recovering from a fault past its INFO0 exchange (v34_phase2.c's
 * recovery; common/v34fault.h's faults) in a whole call: each call is
 * judged as the others, with the same phase 2 parameters and data rates as
 * the same call without the fault; the time the recovery took is the
 * difference in when the data began. INFO1a lost or corrupted has the call
 * modem go back in phase 2 while the answer modem is in its phase 3: that
 * one leaves it (v34.c's far_back()), the others never. By default a few
 * faults on three lines; --p2-faults: each fault on each of four lines
 * (4-wire 12 and 600 ms one way, 2-wire 12 and 250 ms).
 */
static bool all_p2_faults;

static void p2_fault_line(unsigned int l, struct call_cfg *cc)
{
	if (l == 0 || l == 2) {
		/* 4-wire, 12 and 600 ms */
		case_cfg(&lines[l ? 8 : 0], l ? 8 : 0, cc);
		cc->seconds = 60;
		return;
	}
	/* 2-wire, 12 ms at ERL 6 dB and 250 ms at ERL 12 dB (the longest of test_two_wire's lines) */
	memset(cc, 0, sizeof(*cc));
	cc->line = (struct line_cfg){ .loss_db = 10, .noise_dbm0 = -55, .echo_db = -999, .delay = l == 1 ? 96 : 2000,
				      .ppm = 100, .seed = 41, .channel = CHAN_TELEPHONE, .hybrid = l == 1 ? 1 : 5,
				      .hybrid_erl_db = l == 1 ? 6 : 12, .far_echo_db = 26, .far_hybrid = 2 };
	cc->line.far_echo_delay = 2 * (cc->line.delay + 16);
	cc->blk = 80;
	cc->two_wire = true;
	v34_info0_upto(2400, &cc->info0);
	cc->seconds = 60;
}

/*
 * The data rates as the call without the fault's: on a 2-wire line each MP's
 * rate also rests on phase 4's TRN error, a few hundred symbols heard through
 * the cancellers as they track; a call whose phase 2 restarted reaches them
 * at another moment, and its error differs by up to 2 dB (the 2-wire ERL 6
 * dB line's answer modem: 30.5 without the fault, 31.6-32.6 with): one rate
 * step either way.
 */
static bool rate_near(unsigned int r, unsigned int ref, bool two_wire)
{
	return two_wire ? r + 2400 >= ref && r <= ref + 2400 : r == ref;
}

static void test_p2_faults(void)
{
	static const char *const line_names[4] = { "4-wire, 12 ms", "2-wire ERL 6 dB, 12 ms", "4-wire, 600 ms",
						   "2-wire ERL 12 dB, 250 ms" };
	static const struct {
		unsigned int f;
		const char *name;
		unsigned int lines;	/* the lines (bits) it runs on by default */
	} cases[] = {
		{ V34F_L2_AT_C, "A's L2 lost at C", 1 }, { V34F_L2_AT_A, "C's L2 burst at A", 0 },
		{ V34F_TONE_B, "tone B lost", 0 }, { V34F_TONE_A, "tone A lost", 0 },
		{ V34F_INFO1C_BAD, "INFO1c corrupted", 2 }, { V34F_INFO1C_BURST, "INFO1c burst", 0 },
		{ V34F_INFO1A_BAD, "INFO1a corrupted", 2 | 4 }, { V34F_INFO1A_LOST, "INFO1a lost", 1 },
	};
	unsigned int l, k;

	for (l = 0; l < 4; l++) {
		struct call_cfg cc;
		struct call_out ref;
		bool ref_run = false;

		for (k = 0; k < ARRAY_SIZE(cases); k++) {
			bool info1a = cases[k].f & (V34F_INFO1A_BAD | V34F_INFO1A_LOST);
			struct call_out o;
			char what[120];

			if (!all_p2_faults && !(cases[k].lines & (1u << l)))
				continue;
			p2_fault_line(l, &cc);
			if (!ref_run) {
				run_call(&cc, &ref);
				ref_run = true;
			}
			cc.p2_faults = cases[k].f;
			snprintf(what, sizeof(what), "%s, %s", line_names[l], cases[k].name);
			run_call(&cc, &o);
			print_call(what, &o);
			judge_call(what, &cc, &o);
			CHECK(o.c.p2_end && o.a.p2_end && o.c.p2.a_to_c.symrate == ref.c.p2.a_to_c.symrate &&
			      o.c.p2.c_to_a.symrate == ref.c.p2.c_to_a.symrate &&
			      o.c.p2.a_to_c.max_rate == ref.c.p2.a_to_c.max_rate &&
			      o.c.p2.c_to_a.max_rate == ref.c.p2.c_to_a.max_rate &&
			      rate_near(o.c.stats.tx.rate, ref.c.stats.tx.rate, cc.two_wire) &&
			      rate_near(o.a.stats.tx.rate, ref.a.stats.tx.rate, cc.two_wire),
			      "%s: %u/%u bit/s in phase 2, %u/%u in the data; without the fault %u/%u, %u/%u", what,
			      o.c.p2.a_to_c.max_rate, o.c.p2.c_to_a.max_rate, o.c.stats.tx.rate, o.a.stats.tx.rate,
			      ref.c.p2.a_to_c.max_rate, ref.c.p2.c_to_a.max_rate, ref.c.stats.tx.rate,
			      ref.a.stats.tx.rate);
			CHECK(o.data_ms > ref.data_ms && o.data_ms - ref.data_ms < 15000,
			      "%s: data at %ld ms, %ld without the fault", what, o.data_ms, ref.data_ms);
			CHECK(o.c.p2st.restarts + o.a.p2st.restarts >= 1 &&
			      o.c.p2st.far_restarts + o.a.p2st.far_restarts >= 1,
			      "%s: restarts %u/%u, followed %u/%u", what, o.c.p2st.restarts, o.a.p2st.restarts,
			      o.c.p2st.far_restarts, o.a.p2st.far_restarts);
			CHECK(o.a.stats.p3_left == (info1a ? 1u : 0u) && !o.c.stats.p3_left,
			      "%s: the answer modem left its phase 3 %u times", what, o.a.stats.p3_left);
			printf("%s: phase 2 went back (restarts %u/%u, followed %u/%u, phase 3 left %u), data at %ld ms "
			       "(%ld without the fault: the recovery took %ld ms)\n", what, o.c.p2st.restarts,
			       o.a.p2st.restarts, o.c.p2st.far_restarts, o.a.p2st.far_restarts, o.a.stats.p3_left,
			       o.data_ms, ref.data_ms, o.data_ms - ref.data_ms);
		}
	}
}

/*
 * The call modem of a call in blocks of 80 given what it heard again, in
 * blocks of 37 and of 1: it sends the same samples, sample for sample (its
 * decisions are on its own grid, not at the ends of blocks)
 */
static uint64_t replay(const int16_t *rec, long n, int blk, unsigned long *errors)
{
	struct src src = { .p.s = 0x1abcdeu + 11 };
	struct sink sink = { .bits = 0 };
	struct smdsp_v34_config cfg = { .calling = true, .level_dbm0_10 = LEVEL, .far_level_dbm0_10 = LEVEL,
					.get_bit = src_bit, .get_user = &src, .put_bit = sink_bit, .put_user = &sink };
	static const struct smdsp_v34_info0 all = {
		.rate_2743 = 1, .rate_2800 = 1, .rate_3429 = 1, .low_3000 = 1, .high_3000 = 1, .low_3200 = 1,
		.high_3200 = 1, .allow_3429 = 1, .power_reduction = 1, .c1664 = 1
	};
	struct smdsp_v34 *c;
	uint64_t h = 1469598103934665603ULL;
	int16_t tx[MAXBLK];
	long t;
	int i;

	cfg.info0 = all;
	c = smdsp_v34_create(&cfg);
	if (!c)
		return 0;
	for (t = 0; t + blk <= n; t += blk) {
		smdsp_v34_process(c, rec + t, tx, (unsigned int)blk);
		for (i = 0; i < blk; i++)
			h = (h ^ (uint16_t)tx[i]) * 1099511628211ULL;
	}
	*errors = sink.errors;
	smdsp_v34_free(c);
	return h;
}

/*
 * The answer modem's phase 3 (S to TRN, which owe nothing to its receiver)
 * is what a training transmitter created with phase 2's parameters sends
 * (v34.c sets its own up in place), at our level less the power reduction
 */
static void same_as_created(const struct call_out *o, const int16_t *sent)
{
	const struct end_out *a = &o->a;
	struct smdsp_v34_train_config tc = { .symrate = a->stats.tx.symrate, .high = a->stats.tx.high,
					     .data_rate = a->stats.tx.max_rate, .preemph = a->stats.tx.preemph };
	struct smdsp_v34_train_tx *t = smdsp_v34_train_tx_create(&tc, NULL, NULL);
	/* from 25 ms into S (INFO1a's tail gone) for 250 ms: S, S-bar, PP, TRN */
	const long from = 200, n = 2000;
	int16_t ref[2200];
	double xy = 0, xx = 0, yy = 0, corr, db;
	long i;

	CHECK(t != NULL);
	if (!t)
		return;
	smdsp_v34_train_tx_process(t, ref, (unsigned int)(from + n));
	for (i = from; i < from + n; i++) {
		double x = sent[a->stats.phase3_at + i], y = ref[i];

		xy += x * y;
		xx += x * x;
		yy += y * y;
	}
	corr = xy / sqrt(xx * yy + 1e-9);
	db = 10 * log10(xx / n / (pow(32767.0 * pow(10, -3.14 / 20), 2) / 2));
	printf("the answer modem's S to TRN against a train transmitter created for %d baud, pre-emphasis %u:",
	       sym_rate[tc.symrate], tc.preemph);
	printf(" correlation %.6f, level %.2f dBm0 (%.1f less %u dB)\n", corr, db, LEVEL / 10.0,
	       a->p2.a_to_c.power_red);
	CHECK(corr > 0.9999, "correlation %.6f", corr);
	CHECK(fabs(db - (LEVEL / 10.0 - a->p2.a_to_c.power_red)) < 0.3, "level %.2f dBm0", db);
	smdsp_v34_train_tx_free(t);
}

static void test_blocks(void)
{
	struct call_cfg cc;
	struct call_out o;
	unsigned long errors = 1;
	long n;

	case_cfg(&lines[0], 0, &cc);
	cc.line.seed = 11 + 0;
	cc.record = calloc(8000 * 30, sizeof(int16_t));
	cc.record_a = calloc(8000 * 30, sizeof(int16_t));
	if (!cc.record || !cc.record_a)
		return;
	run_call(&cc, &o);
	judge_call("recorded", &cc, &o);
	/* whole blocks of 80, 37 and 1 alike */
	n = o.samples / (80 * 37) * (80 * 37);
	CHECK(replay(cc.record, o.samples, 80, &errors) == o.c_hash, "the replay in blocks of 80 differs");
	CHECK(replay(cc.record, n, 80, &errors) == replay(cc.record, n, 37, &errors),
	      "blocks of 37: other samples sent than in blocks of 80");
	CHECK(replay(cc.record, n, 80, &errors) == replay(cc.record, n, 1, &errors) && errors == 0,
	      "blocks of 1: other samples sent than in blocks of 80 (%lu errors)", errors);
	printf("the call modem given what it heard (%.1f s) in blocks of 80, 37 and 1: the same samples sent\n",
	       n / 8000.0);
	same_as_created(&o, cc.record_a);
	free(cc.record);
	free(cc.record_a);
}

/* phase 2 cannot finish: FAILED with phase 2's reason, in bounded time, then silence */
static void test_failures(void)
{
	struct call_cfg cc;
	struct call_out o;

	case_cfg(&lines[0], 30, &cc);
	cc.noise_answer = true;
	cc.seconds = 30;
	run_call(&cc, &o);
	printf("noise only at the call modem: %s (%s, phase 2 %s) at %.2f s;", smdsp_v34_state_name(o.c.st),
	       smdsp_v34_fail_name(o.c.fail), smdsp_v34_phase2_fail_name(o.c.p2.fail), o.c.stats.failed_at / 8000.0);
	printf(" the answer modem %s (%s, phase 2 %s) at %.2f s\n", smdsp_v34_state_name(o.a.st),
	       smdsp_v34_fail_name(o.a.fail), smdsp_v34_phase2_fail_name(o.a.p2.fail), o.a.stats.failed_at / 8000.0);
	CHECK(o.c.st == SMDSP_V34_FAILED && o.c.fail == SMDSP_V34_FAIL_PHASE2 && o.c.p2_end &&
	      o.c.p2.fail == SMDSP_V34P2_NO_INFO0 && o.c.stats.failed_at <= 8000 * 9);
	/* the answer modem hears INFO0c but no reversal: three restarts of 3 s each */
	CHECK(o.a.st == SMDSP_V34_FAILED && o.a.fail == SMDSP_V34_FAIL_PHASE2 && o.a.p2.fail != SMDSP_V34P2_OK &&
	      o.a.stats.failed_at <= 8000 * 20);
	CHECK(o.samples < 8000 * 21, "both failed: the run stopped");

	case_cfg(&lines[0], 31, &cc);
	cc.silent_answer = true;
	cc.seconds = 20;
	run_call(&cc, &o);
	printf("a silent answer modem: the call modem %s (%s, phase 2 %s) at %.2f s\n", smdsp_v34_state_name(o.c.st),
	       smdsp_v34_fail_name(o.c.fail), smdsp_v34_phase2_fail_name(o.c.p2.fail), o.c.stats.failed_at / 8000.0);
	CHECK(o.c.st == SMDSP_V34_FAILED && o.c.fail == SMDSP_V34_FAIL_PHASE2 && o.c.p2.fail == SMDSP_V34P2_NO_INFO0 &&
	      o.c.stats.failed_at <= 8000 * 9);

	/* the answer modem gone after phase 2: the call modem never hears S */
	case_cfg(&lines[0], 32, &cc);
	cc.answer_stops = true;
	cc.seconds = 25;
	run_call(&cc, &o);
	printf("the answer modem gone after phase 2: the call modem %s (%s) %.2f s after phase 2's end",
	       smdsp_v34_state_name(o.c.st), smdsp_v34_fail_name(o.c.fail),
	       (o.c.stats.failed_at - o.c.p2.done_at) / 8000.0);
	printf(" (round trip %.1f ms)\n", o.c.p2.rtd / 8.0);
	CHECK(o.c.st == SMDSP_V34_FAILED && o.c.fail == SMDSP_V34_FAIL_NO_S && o.c.p2.fail == SMDSP_V34P2_OK);
	CHECK(o.c.stats.failed_at - o.c.p2.done_at <= 8000 * 6 + 2 * (uint32_t)o.c.p2.rtd + 8,
	      "failed %u samples after phase 2", o.c.stats.failed_at - o.c.p2.done_at);
	/* the answer modem heard the call modem's silence after phase 2: no S either */
	CHECK(o.a.st == SMDSP_V34_FAILED && o.a.fail == SMDSP_V34_FAIL_NO_S);

	/*
	 * INFO1a lost, and the call modem gone once the answer modem heard it go
	 * back and left its phase 3: the answer modem fails in its phase 2 again,
	 * with phase 2's reason, within phase 2's retransmissions (three of 3 s)
	 */
	case_cfg(&lines[0], 34, &cc);
	cc.p2_faults = V34F_INFO1A_LOST;
	cc.call_gone_back = true;
	cc.seconds = 30;
	run_call(&cc, &o);
	printf("INFO1a lost, the call modem gone after its tone: the answer modem left its phase 3 %u time(s), %s (%s, "
	       "phase 2 %s) at %.2f s\n", o.a.stats.p3_left, smdsp_v34_state_name(o.a.st), smdsp_v34_fail_name(o.a.fail),
	       smdsp_v34_phase2_fail_name(o.a.p2.fail), o.a.stats.failed_at / 8000.0);
	CHECK(o.a.stats.p3_left == 1 && o.a.st == SMDSP_V34_FAILED && o.a.fail == SMDSP_V34_FAIL_PHASE2 &&
	      o.a.p2.fail != SMDSP_V34P2_OK && o.a.stats.failed_at <= 8000 * 25,
	      "the answer modem: %s (%s, phase 2 %s) at %u, phase 3 left %u", smdsp_v34_state_name(o.a.st),
	      smdsp_v34_fail_name(o.a.fail), smdsp_v34_phase2_fail_name(o.a.p2.fail), o.a.stats.failed_at,
	      o.a.stats.p3_left);

	/* the answer modem gone in the data mode: the call modem fails (lost) within 1.5 s */
	case_cfg(&lines[0], 33, &cc);
	cc.answer_gone = true;
	cc.seconds = 12;
	run_call(&cc, &o);
	printf("the answer modem gone 0.5 s into the data: the call modem %s (%s) %.2f s after it went\n",
	       smdsp_v34_state_name(o.c.st), smdsp_v34_fail_name(o.c.fail),
	       o.c.stats.failed_at / 8000.0 - (o.data_ms + 500) / 1000.0);
	CHECK(o.data_ms > 0 && o.c.st == SMDSP_V34_FAILED && o.c.fail == SMDSP_V34_FAIL_LOST &&
	      o.c.stats.failed_at <= (uint32_t)(8 * (o.data_ms + 500) + 8000 * 3 / 2), "lost: %s at %u",
	      smdsp_v34_fail_name(o.c.fail), o.c.stats.failed_at);
	/* and the answer modem when the failed call modem fell silent in turn */
	CHECK(o.a.st == SMDSP_V34_FAILED && o.a.fail == SMDSP_V34_FAIL_LOST && o.a.stats.failed_at > o.c.stats.failed_at &&
	      o.a.stats.failed_at <= o.c.stats.failed_at + 8000 * 3 / 2);
}

static void test_config(void)
{
	struct smdsp_v34_config cfg = { .calling = true, .level_dbm0_10 = LEVEL, .far_level_dbm0_10 = LEVEL };
	struct smdsp_v34_config bad;
	struct smdsp_v34 *s;
	int16_t rx[100] = { 0 }, tx[100];
	char buf[300];
	int i, n;

	bad = cfg;
	bad.max_rate = 2500;
	CHECK(!smdsp_v34_create(&bad), "a rate not a multiple of 2400");
	bad.max_rate = 36000;
	CHECK(!smdsp_v34_create(&bad), "a rate above 33600");
	bad = cfg;
	bad.level_dbm0_10 = -500;
	CHECK(!smdsp_v34_create(&bad), "a level out of range");
	bad = cfg;
	bad.trn_symbols = 100;
	CHECK(!smdsp_v34_create(&bad), "a TRN too short");
	bad = cfg;
	bad.info0.max_rate_diff = 7;
	CHECK(!smdsp_v34_create(&bad), "an INFO0 field out of range");
	s = smdsp_v34_create(NULL);
	CHECK(s && smdsp_v34_state(s) == SMDSP_V34_PHASE2, "the defaults");
	smdsp_v34_free(s);
	s = smdsp_v34_create(&cfg);
	CHECK(s != NULL);
	if (!s)
		return;
	for (i = 0; i < 10; i++)
		smdsp_v34_process(s, rx, tx, 100);
	n = smdsp_v34_print(s, buf, sizeof(buf));
	CHECK(n > 0 && !strncmp(buf, "v34 call phase2", 15), "%s", buf);
	smdsp_v34_reset(s);
	{
		struct smdsp_v34_stats st;

		smdsp_v34_get_stats(s, &st);
		CHECK(st.now == 0 && smdsp_v34_state(s) == SMDSP_V34_PHASE2 && smdsp_v34_fail(s) == SMDSP_V34_OK);
	}
	smdsp_v34_free(s);
	smdsp_v34_free(NULL);
}

/* --line=channel,loss,noise,ppm,delay_ms: one call on that line, judged and printed */
static void one_line(const char *spec)
{
	struct call_cfg cc = { .line = { .echo_db = -999, .seed = 5 }, .blk = 80, .seconds = 30 };
	struct call_out o;
	int ch = 0, d = 0;
	char what[120];

	if (sscanf(spec, "%d,%lf,%lf,%lf,%d", &ch, &cc.line.loss_db, &cc.line.noise_dbm0, &cc.line.ppm, &d) != 5) {
		CHECK(0, "bad --line=%s", spec);
		return;
	}
	cc.line.channel = ch;
	cc.line.delay = d * 8;
	snprintf(what, sizeof(what), "%s, %.0f dB, %.0f dBm0, %+.0f ppm, %d ms", chan_name(ch), cc.line.loss_db,
		 cc.line.noise_dbm0, cc.line.ppm, d);
	run_call(&cc, &o);
	print_call(what, &o);
	printf("  phase 2: a->c %u, c->a %u bit/s\n", o.c.p2.a_to_c.max_rate, o.c.p2.c_to_a.max_rate);
	judge_call(what, &cc, &o);
}

int main(int argc, char **argv)
{
	const char *line = NULL;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose++;
		else if (!strcmp(argv[i], "--quick"))
			data_seconds = 1.5;
		else if (!strcmp(argv[i], "--p2-faults"))
			all_p2_faults = true;
		else if (!strncmp(argv[i], "--trn=", 6))
			trn_symbols = (unsigned int)atoi(argv[i] + 6);
		else if (!strncmp(argv[i], "--line=", 7))
			line = argv[i] + 7;
	}
	if (line) {
		one_line(line);
		return t_report("test_v34_call");
	}
	test_config();
	test_lines();
	test_two_wire();
	test_blocks();
	test_failures();
	test_p2_faults();
	return t_report("test_v34_call");
}
