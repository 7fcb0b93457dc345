// SPDX-License-Identifier: GPL-2.0
/*
 * V.34's data mode between two whole ends (dsp/v34.c) over the line model
 * (tests/dsp/common/line.c), for what MP chooses in it:
 *
 * - The trellis codes (9.6): each receiver asks the far transmitter for the
 *   16-, 32- or 64-state code in its MP (smdsp_v34_config's trellis) and
 *   decodes it; calls with each code both ways and with a different code
 *   each way (4-wire, and one 2-wire with the auxiliary channel) reach the
 *   data, each direction coded with what its receiver asked (the stats'
 *   states at both ends), and carry a PRBS both ways without a bit error;
 *   the default code; codes V.34 has not refused.
 * - The superframe sync check: v34_data alone, in step with noise at the
 *   16-state code's need (no bad superframe) and out of step by a 2D
 *   symbol, a 4D symbol, a mapping frame, half a data frame and a data
 *   frame (lost in the second superframe); every clean call in step; on the
 *   line, the answer modem's input slipping two symbols in the data: it
 *   fails, lost, within three superframes, though its decisions are as good
 *   as before (the garbage it decoded meanwhile counted).
 * - The auxiliary channel: offered by both ends, its PRBS arrives both ways
 *   from its first bit without an error beside the main data's; offered by
 *   one, off at both and never asked for a bit.
 *
 * Options: -v (each end's line at each change of state).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>
#include <smdsp/v34.h>
#include <smdsp/v34_data.h>
#include "line.h"
#include "chan.h"
#include "tutil.h"
#include "check.h"

#define LEVEL (-120)
#define BLK 80
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int verbose;

/* ---- the data: a PRBS each way, checked after alignment ---- */

struct prbs {
	uint32_t s;
};

static int prbs_bit(struct prbs *p)
{
	/* x^23 + x^18 + 1, not V.34's own scrambler */
	int b = (int)(((p->s >> 22) ^ (p->s >> 17)) & 1);

	p->s = (p->s << 1) | (uint32_t)b;
	return b;
}

static int src_bit(void *user)
{
	return prbs_bit(user);
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

/* the auxiliary channel: its PRBS from its first bit, no alignment (B1's are the transmitter's own) */
struct aux_sink {
	struct prbs ref;
	unsigned long bits, errors;
};

static void aux_sink_bit(void *user, int bit)
{
	struct aux_sink *k = user;

	k->bits++;
	k->errors += (unsigned long)(prbs_bit(&k->ref) != bit);
}

/* ---- one call ---- */

struct call_cfg {
	struct line_cfg line;
	unsigned int trellis_c, trellis_a;	/* what each end's receiver asks for (0: the default) */
	double data_seconds;			/* of data once both ends are in it */
	bool no_3429;				/* 3429 baud not offered */
	bool aux_c, aux_a;			/* each end offers the auxiliary channel */
	/* 2-wire: both ends two_wire, told echo_latency = BLK; max_rate at both ends (0: 33600) */
	bool two_wire;
	unsigned int max_rate;
	/*
	 * 0.5 s into the data, the answer modem's input slips: `slip` samples
	 * more of delay from then on (zeros inserted), as a sound card's
	 * input losing its place would
	 */
	int slip;
};

#define SLIP_MAX 16

struct call_out {
	enum smdsp_v34_state st[2];		/* the call modem's, the answer modem's */
	enum smdsp_v34_fail fail[2];
	struct smdsp_v34_stats stats[2];
	struct sink sink[2];
	struct aux_sink aux[2];			/* what each end's auxiliary channel received */
	long data_ms;
	double cpu;
	long slip_ms, failed_ms[2];		/* the slip, each end's failure (-1: none) */
	unsigned long errors_before_slip;	/* the answer modem's bit errors before it */
	int mse_after_slip;			/* its receiver's decision error when it failed */
};

static void run_call(const struct call_cfg *cc, struct call_out *o)
{
	static const struct smdsp_v34_info0 all = {
		.rate_2743 = 1, .rate_2800 = 1, .rate_3429 = 1, .low_3000 = 1, .high_3000 = 1, .low_3200 = 1,
		.high_3200 = 1, .allow_3429 = 1, .power_reduction = 1, .c1664 = 1
	};
	struct smdsp_v34_config cfg[2];
	struct prbs src[2] = { { 0x1abcdeu + (uint32_t)cc->line.seed }, { 0x2fedcbu + (uint32_t)cc->line.seed } };
	struct prbs aux_src[2] = { { 0x3a5a5au + (uint32_t)cc->line.seed }, { 0x45c3c3u + (uint32_t)cc->line.seed } };
	struct smdsp_v34 *m[2];
	struct line *l = line_create(&cc->line);
	int16_t tx[2][BLK], rx[2][BLK] = { { 0 } };
	long t, stop = -1, total = 30 * 8000;
	enum smdsp_v34_state prev[2] = { SMDSP_V34_STATES, SMDSP_V34_STATES };
	int16_t late[SLIP_MAX] = { 0 };
	int i, lp = 0;

	memset(o, 0, sizeof(*o));
	o->data_ms = -1;
	o->slip_ms = -1;
	o->failed_ms[0] = -1;
	o->failed_ms[1] = -1;
	o->aux[0].ref = aux_src[1];
	o->aux[1].ref = aux_src[0];
	for (i = 0; i < 2; i++) {
		memset(&cfg[i], 0, sizeof(cfg[i]));
		cfg[i].calling = i == 0;
		cfg[i].level_dbm0_10 = LEVEL;
		cfg[i].far_level_dbm0_10 = LEVEL;
		cfg[i].info0 = all;
		if (cc->no_3429) {
			cfg[i].info0.rate_3429 = 0;
			cfg[i].info0.allow_3429 = 0;
		}
		cfg[i].two_wire = cc->two_wire;
		cfg[i].echo_latency = cc->two_wire ? BLK : 0;
		cfg[i].max_rate = cc->max_rate;
		cfg[i].trellis = i ? cc->trellis_a : cc->trellis_c;
		cfg[i].get_bit = src_bit;
		cfg[i].get_user = &src[i];
		cfg[i].put_bit = sink_bit;
		cfg[i].put_user = &o->sink[i];
		cfg[i].aux = i ? cc->aux_a : cc->aux_c;
		/* the slip's end gives up rather than retrain: the check's verdict, not what follows */
		cfg[i].no_auto = cc->slip > 0;
		cfg[i].aux_get_bit = src_bit;
		cfg[i].aux_get_user = &aux_src[i];
		cfg[i].aux_put_bit = aux_sink_bit;
		cfg[i].aux_put_user = &o->aux[i];
		m[i] = smdsp_v34_create(&cfg[i]);
	}
	CHECK(m[0] && m[1] && l);
	if (!m[0] || !m[1] || !l)
		goto out;
	for (t = 0; t < total; t += BLK) {
		clock_t t0 = clock();

		for (i = 0; i < 2; i++)
			smdsp_v34_process(m[i], rx[i], tx[i], BLK);
		o->cpu += (double)(clock() - t0) / CLOCKS_PER_SEC;
		line_process(l, tx[0], rx[0], tx[1], rx[1], BLK);
		if (cc->slip > 0 && cc->slip <= SLIP_MAX && o->slip_ms < 0 && o->data_ms >= 0 &&
		    t / 8 >= o->data_ms + 500) {
			o->slip_ms = t / 8;
			o->errors_before_slip = o->sink[1].errors;
		}
		for (i = 0; o->slip_ms >= 0 && i < BLK; i++) {
			int16_t v = late[lp];

			late[lp] = rx[1][i];
			rx[1][i] = v;
			lp = (lp + 1) % cc->slip;
		}
		for (i = 0; i < 2; i++) {
			if (o->failed_ms[i] < 0 && smdsp_v34_state(m[i]) == SMDSP_V34_FAILED) {
				struct smdsp_v34_stats st;

				o->failed_ms[i] = t / 8;
				smdsp_v34_get_stats(m[i], &st);
				if (i)
					o->mse_after_slip = st.mse_db10;
			}
		}
		for (i = 0; verbose && i < 2; i++) {
			char b[300];

			if (smdsp_v34_state(m[i]) == prev[i])
				continue;
			prev[i] = smdsp_v34_state(m[i]);
			smdsp_v34_print(m[i], b, sizeof(b));
			printf("  %6ld ms: %s\n", t / 8, b);
		}
		if (o->data_ms < 0 && smdsp_v34_state(m[0]) == SMDSP_V34_DATA &&
		    smdsp_v34_state(m[1]) == SMDSP_V34_DATA) {
			o->data_ms = t / 8;
			stop = t + (long)(cc->data_seconds * 8000);
		}
		if ((stop >= 0 && t >= stop) ||
		    (smdsp_v34_state(m[0]) == SMDSP_V34_FAILED && smdsp_v34_state(m[1]) == SMDSP_V34_FAILED))
			break;
	}
	for (i = 0; i < 2; i++) {
		o->st[i] = smdsp_v34_state(m[i]);
		o->fail[i] = smdsp_v34_fail(m[i]);
		smdsp_v34_get_stats(m[i], &o->stats[i]);
	}
	CHECK(line_starved(l) == 0);
out:
	smdsp_v34_free(m[0]);
	smdsp_v34_free(m[1]);
	line_free(l);
}

static void print_call(const char *what, const struct call_out *o)
{
	const struct smdsp_v34_stats *c = &o->stats[0], *a = &o->stats[1];

	printf("%-44s: %s/%s; c->a %5u bit/s %2u states, a->c %5u bit/s %2u states; data at %5ld ms; ", what,
	       smdsp_v34_fail_name(o->fail[0]), smdsp_v34_fail_name(o->fail[1]), c->tx.rate, c->tx.states,
	       a->tx.rate, a->tx.states, o->data_ms);
	printf("%lu/%lu bits, %lu/%lu errors; decoder %d.%d/%d.%d dB; %.1f us/10 ms an end\n", o->sink[0].checked,
	       o->sink[1].checked, o->sink[0].errors, o->sink[1].errors, c->wmse_db10 / 10, abs(c->wmse_db10 % 10),
	       a->wmse_db10 / 10, abs(a->wmse_db10 % 10), o->cpu / 2 / (c->now / 80.0) * 1e6);
}

/* both ends in the data, the rates settled alike at both ends, every bit each way right */
static void judge_data(const char *what, const struct call_cfg *cc, const struct call_out *o)
{
	const struct smdsp_v34_stats *c = &o->stats[0], *a = &o->stats[1];

	CHECK(o->st[0] == SMDSP_V34_DATA && o->st[1] == SMDSP_V34_DATA, "%s: %s/%s (%s/%s)", what,
	      smdsp_v34_state_name(o->st[0]), smdsp_v34_state_name(o->st[1]), smdsp_v34_fail_name(o->fail[0]),
	      smdsp_v34_fail_name(o->fail[1]));
	CHECK(c->tx.rate >= 2400 && c->tx.rate == a->rx.rate && a->tx.rate >= 2400 && a->tx.rate == c->rx.rate,
	      "%s: rates %u/%u, %u/%u", what, c->tx.rate, a->rx.rate, a->tx.rate, c->rx.rate);
	CHECK(o->sink[0].checked > (unsigned long)(0.8 * cc->data_seconds * a->tx.rate) &&
	      o->sink[1].checked > (unsigned long)(0.8 * cc->data_seconds * c->tx.rate),
	      "%s: %lu and %lu bits checked", what, o->sink[0].checked, o->sink[1].checked);
	CHECK(o->sink[0].errors == 0 && o->sink[1].errors == 0, "%s: %lu and %lu bit errors", what,
	      o->sink[0].errors, o->sink[1].errors);
	/* in step all along: the sync check checked, and never judged a superframe bad */
	CHECK(c->sync_checks >= 2 * 7 * (unsigned int)(cc->data_seconds / 0.28) &&
	      a->sync_checks >= 2 * 7 * (unsigned int)(cc->data_seconds / 0.28) && !c->bad_superframes &&
	      !a->bad_superframes && !c->sync_lost && !a->sync_lost, "%s: sync checks %u/%u, bad %u/%u", what,
	      c->sync_checks, a->sync_checks, c->bad_superframes, a->bad_superframes);
}

/* ---- the trellis codes ---- */

static void test_codes(void)
{
	static const struct {
		unsigned int c, a;	/* asked by the call modem's receiver, the answer modem's */
		int channel;
		double loss, noise, ppm;
		int delay_ms;
	} cases[] = {
		{ 32, 32, CHAN_TELEPHONE, 10, -50, 100, 20 },
		{ 64, 64, CHAN_FLAT, 8, -52, -100, 60 },
		{ 16, 64, CHAN_BASS_CUT, 10, -50, 50, 120 },
		{ 64, 32, CHAN_TELEPHONE, 6, -54, -50, 35 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct call_cfg cc = { .trellis_c = cases[i].c, .trellis_a = cases[i].a, .data_seconds = 1.5 };
		struct call_out o;
		char what[100];

		cc.line.loss_db = cases[i].loss;
		cc.line.noise_dbm0 = cases[i].noise;
		cc.line.echo_db = -999;
		cc.line.delay = cases[i].delay_ms * 8;
		cc.line.ppm = cases[i].ppm;
		cc.line.seed = 31 + i;
		cc.line.channel = cases[i].channel;
		snprintf(what, sizeof(what), "codes c<-%u a<-%u, %.0f dB, %.0f dBm0", cases[i].c, cases[i].a,
			 cases[i].loss, cases[i].noise);
		run_call(&cc, &o);
		print_call(what, &o);
		judge_data(what, &cc, &o);
		/* each direction in the code its receiver asked for, known at both ends */
		CHECK(o.stats[0].rx.states == cases[i].c && o.stats[1].tx.states == cases[i].c &&
		      o.stats[1].rx.states == cases[i].a && o.stats[0].tx.states == cases[i].a,
		      "%s: states c rx %u tx %u, a rx %u tx %u", what, o.stats[0].rx.states, o.stats[0].tx.states,
		      o.stats[1].rx.states, o.stats[1].tx.states);
	}
	{
		/*
		 * 2-wire (the cancellers; test_v34_call's fourth line: a G.168
		 * hybrid at ERL 10 dB, a far echo 27 dB down shifted 3 Hz, at the
		 * rate v34_train holds there), a different code each way and the
		 * auxiliary channel
		 */
		struct call_cfg cc = { .trellis_c = 64, .trellis_a = 32, .aux_c = true, .aux_a = true,
				       .two_wire = true, .max_rate = 21600, .data_seconds = 1.5 };
		const char *what = "codes c<-64 a<-32, 2-wire, aux";
		struct call_out o;

		cc.line.loss_db = 10;
		cc.line.noise_dbm0 = -55;
		cc.line.echo_db = -999;
		cc.line.delay = 40 * 8;
		cc.line.ppm = 100;
		cc.line.seed = 44;
		cc.line.channel = CHAN_TELEPHONE;
		cc.line.hybrid = 6;
		cc.line.hybrid_erl_db = 10;
		cc.line.far_echo_db = 27;
		cc.line.far_hybrid = 7;
		cc.line.far_echo_hz = 3;
		cc.line.far_echo_delay = 2 * (cc.line.delay + 16);
		run_call(&cc, &o);
		print_call(what, &o);
		judge_data(what, &cc, &o);
		CHECK(o.stats[0].rx.states == 64 && o.stats[1].tx.states == 64 && o.stats[1].rx.states == 32 &&
		      o.stats[0].tx.states == 32 && o.stats[0].aux && o.stats[1].aux && o.aux[0].bits > 200 &&
		      o.aux[1].bits > 200 && !o.aux[0].errors && !o.aux[1].errors,
		      "%s: states %u/%u, aux %lu/%lu bits, %lu/%lu errors", what, o.stats[0].rx.states,
		      o.stats[1].rx.states, o.aux[0].bits, o.aux[1].bits, o.aux[0].errors, o.aux[1].errors);
	}
	{
		/* unconfigured: the default, both ways */
		struct call_cfg cc = { .data_seconds = 1.0 };
		struct call_out o;

		cc.line.loss_db = 10;
		cc.line.noise_dbm0 = -52;
		cc.line.echo_db = -999;
		cc.line.delay = 100;
		cc.line.seed = 41;
		run_call(&cc, &o);
		print_call("codes by default", &o);
		judge_data("codes by default", &cc, &o);
		CHECK(o.stats[0].rx.states == SMDSP_V34_TRELLIS_DEFAULT &&
		      o.stats[0].tx.states == SMDSP_V34_TRELLIS_DEFAULT &&
		      o.stats[1].rx.states == SMDSP_V34_TRELLIS_DEFAULT &&
		      o.stats[1].tx.states == SMDSP_V34_TRELLIS_DEFAULT, "the default code");
	}
	{
		/* a code V.34 has not: refused at create */
		struct smdsp_v34_config bad = { .calling = true, .level_dbm0_10 = LEVEL, .far_level_dbm0_10 = LEVEL,
						.trellis = 48 };

		CHECK(!smdsp_v34_create(&bad), "48 states");
		bad.trellis = 8;
		CHECK(!smdsp_v34_create(&bad), "8 states");
	}
}

/* ---- the superframe sync check, in the signal-point domain ---- */

struct sync_out {
	struct smdsp_v34_data_stats st;
	unsigned long bits, errors;
	long lost_at;				/* the mapping frame the check said lost at (-1: never) */
};

/*
 * v34_data's transmitter to its receiver, the receiver's input late by
 * `shift` 2D symbols (zeros first: it starts out of step with the frames
 * by that much), white noise of sigma per dimension (units), `frames`
 * mapping frames at symbol rate index sr, `rate` bit/s
 */
static void sync_run(unsigned int sr, unsigned int rate, unsigned int states, unsigned int shift, double sigma,
		     unsigned int frames, struct sync_out *o)
{
	struct smdsp_v34_data_config cfg = { .symbol_rate = sr, .data_rate = rate, .states = states };
	struct smdsp_v34_data_tx *tx = smdsp_v34_data_tx_create(&cfg);
	struct smdsp_v34_data_rx *rx = smdsp_v34_data_rx_create(&cfg);
	static uint8_t sent[16][SMDSP_V34_MAX_B];
	static unsigned int sent_n[16];
	static int32_t q[16 + 2 * 128];
	uint64_t seed = 0x5e9c0ULL + shift + states;
	unsigned int f, i, nq = 2 * shift;

	memset(o, 0, sizeof(*o));
	o->lost_at = -1;
	memset(q, 0, sizeof(q));
	CHECK(tx && rx && shift <= 128);
	if (!tx || !rx || shift > 128)
		goto out;
	for (f = 0; f < frames; f++) {
		int32_t x[16];
		uint8_t out[SMDSP_V34_MAX_B], aux;
		unsigned int n = smdsp_v34_data_tx_bits(tx), no;

		for (i = 0; i < n; i++)
			sent[f % 16][i] = (uint8_t)(t_rand64(&seed) >> 63);
		sent_n[f % 16] = n;
		smdsp_v34_data_tx_frame(tx, sent[f % 16], 0, x, NULL);
		for (i = 0; i < 16; i++)
			q[nq++] = x[i] + (int32_t)lrint(sigma * 128 * t_gauss(&seed));
		no = smdsp_v34_data_rx_frame(rx, q, out, &aux);
		nq -= 16;
		memmove(q, q + 16, nq * sizeof(q[0]));
		if (f >= SMDSP_V34_DATA_DELAY_FRAMES && !shift) {
			unsigned int d = (f - SMDSP_V34_DATA_DELAY_FRAMES) % 16;

			for (i = 0; i < no && i < sent_n[d]; i++)
				o->errors += out[i] != sent[d][i];
			o->bits += sent_n[d];
		}
		smdsp_v34_data_rx_get_stats(rx, &o->st);
		if (o->lost_at < 0 && o->st.sync_lost)
			o->lost_at = f;
	}
out:
	smdsp_v34_data_tx_free(tx);
	smdsp_v34_data_rx_free(rx);
}

static void test_sync_data(void)
{
	struct sync_out o;
	/* 3200 baud, 28,800 bit/s (P = 16, J = 7) and 3429 baud, 33,600 (P = 15, J = 8) */
	static const unsigned int sr[2] = { 4, 5 }, rate[2] = { 28800, 33600 }, p[2] = { 16, 15 }, j[2] = { 7, 8 };
	unsigned int r, c, k;

	for (r = 0; r < 2; r++) {
		/* one superframe: J P mapping frames */
		unsigned int sf = j[r] * p[r];
		/* out of step by one 2D symbol, a 4D symbol, a mapping frame, half a data frame, a data frame */
		const unsigned int shifts[5] = { 1, 2, 8, 4 * p[r], 8 * p[r] };

		for (c = 0; c < 3; c++) {
			/* in step, the noise at the decoder near the 16-state code's need (2 / sigma = 5.5) */
			sync_run(sr[r], rate[r], 16u << c, 0, 0.36, 60 * sf, &o);
			printf("sync %u baud %u bit/s %u states, in step, sigma 0.36: ", smdsp_v34_symbol_rate(sr[r]),
			       rate[r], 16u << c);
			printf("%u/%u positions missed, %u/%u superframes bad, %lu/%lu bit errors\n",
			       o.st.sync_misses, o.st.sync_checks, o.st.bad_superframes, o.st.superframes, o.errors,
			       o.bits);
			CHECK(o.st.superframes >= 59 && o.st.sync_checks >= 59 * 2 * j[r] && !o.st.sync_lost &&
			      o.st.bad_superframes == 0, "in step: %u bad of %u", o.st.bad_superframes,
			      o.st.superframes);
			/* a miss (the inverse V0 fitting better by the margin): under 1 position in 100 */
			CHECK(o.st.sync_misses * 100 < o.st.sync_checks, "misses %u", o.st.sync_misses);
			for (k = 0; k < 5; k++) {
				sync_run(sr[r], rate[r], 16u << c, shifts[k], 0.2, 8 * sf, &o);
				printf("  out of step by %3u 2D symbols: %u/%u positions missed, ", shifts[k],
				       o.st.sync_misses, o.st.sync_checks);
				printf("%u/%u superframes bad, lost after %ld mapping frames\n", o.st.bad_superframes,
				       o.st.superframes, o.lost_at);
				/*
				 * lost by the fifth superframe's end (the first is cut short by the
				 * decoder's filling; one out of step by a 2D symbol may pass as good
				 * now and then)
				 */
				CHECK(o.st.sync_lost && o.lost_at >= 0 && o.lost_at < (long)(5 * sf + 8),
				      "%u states, shift %u: lost at %ld", 16u << c, shifts[k], o.lost_at);
			}
		}
	}
	/* in step 1.5 dB under the need (a BER about 1e-3): noise alone is not a loss of sync */
	sync_run(5, 33600, 16, 0, 0.43, 100 * 8 * 15, &o);
	printf("sync 3429 baud 33600 bit/s 16 states, in step, sigma 0.43: %u/%u positions missed, ",
	       o.st.sync_misses, o.st.sync_checks);
	printf("%u/%u superframes bad, lost %d\n", o.st.bad_superframes, o.st.superframes, o.st.sync_lost);
	CHECK(!o.st.sync_lost && o.st.superframes >= 99 && o.st.bad_superframes <= 3, "sigma 0.43: %u bad, lost %d",
	      o.st.bad_superframes, o.st.sync_lost);
}

/* ---- the superframe sync check on the line: a slip ---- */

static void test_slip(void)
{
	static const int channel[3] = { CHAN_FLAT, CHAN_TELEPHONE, CHAN_BASS_CUT };
	unsigned int k;

	for (k = 0; k < 3; k++) {
		struct call_cfg cc = { .data_seconds = 4.0, .no_3429 = true, .trellis_a = 16u << k };
		struct call_out o;
		char what[100];
		int baud;

		cc.line.loss_db = 8;
		cc.line.noise_dbm0 = -54;
		cc.line.echo_db = -999;
		cc.line.delay = 160 + 40 * (int)k;
		cc.line.ppm = k == 1 ? 50 : -50;
		cc.line.seed = 51 + k;
		cc.line.channel = channel[k];
		/* the line's symbol rate from a call without the slip, then two of its symbols (a 4D symbol) */
		run_call(&cc, &o);
		judge_data("slip: the line without it", &cc, &o);
		baud = smdsp_v34_symbol_rate(o.stats[0].tx.symrate);
		cc.slip = baud ? (16000 + baud / 2) / baud : 5;
		run_call(&cc, &o);
		snprintf(what, sizeof(what), "slip of %d samples at %d baud, %u states", cc.slip, baud, cc.trellis_a);
		print_call(what, &o);
		printf("  slipped at %ld ms: the answer modem failed (%s) %ld ms later, %u bad superframes, ",
		       o.slip_ms, smdsp_v34_fail_name(o.fail[1]), o.failed_ms[1] - o.slip_ms,
		       o.stats[1].bad_superframes);
		printf("its decision error %d.%d dB; bit errors %lu before the slip, %lu after\n",
		       o.mse_after_slip / 10, abs(o.mse_after_slip % 10), o.errors_before_slip,
		       o.sink[1].errors - o.errors_before_slip);
		/* its decoder out of step: failed, lost, within three superframes and the decoder's delay */
		CHECK(o.slip_ms > 0 && o.fail[1] == SMDSP_V34_FAIL_LOST && o.stats[1].sync_lost &&
		      o.stats[1].bad_superframes >= SMDSP_V34_SYNC_LOST && o.failed_ms[1] > o.slip_ms &&
		      o.failed_ms[1] - o.slip_ms <= 3 * 280 + 100, "%s: %s after %ld ms", what,
		      smdsp_v34_fail_name(o.fail[1]), o.failed_ms[1] - o.slip_ms);
		/* not for noise: its decisions were as good as before, only out of step */
		CHECK(o.mse_after_slip > 200, "%s: decision error %d", what, o.mse_after_slip);
		/* what it delivered before the slip was right, what it decoded after was not */
		CHECK(o.errors_before_slip == 0 && o.sink[1].errors > 100, "%s: errors %lu, %lu", what,
		      o.errors_before_slip, o.sink[1].errors);
	}
}

/* ---- the auxiliary channel ---- */

static void test_aux(void)
{
	static const struct {
		bool c, a;		/* offered by the call modem, the answer modem */
		unsigned int tc, ta;	/* the codes asked */
		int channel;
		double loss, noise;
	} cases[] = {
		{ true, true, 16, 16, CHAN_TELEPHONE, 10, -50 },
		{ true, true, 64, 32, CHAN_FLAT, 6, -56 },
		{ true, false, 16, 16, CHAN_BASS_CUT, 8, -52 },
		{ false, true, 32, 16, CHAN_TELEPHONE, 8, -54 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct call_cfg cc = { .aux_c = cases[i].c, .aux_a = cases[i].a, .trellis_c = cases[i].tc,
				       .trellis_a = cases[i].ta, .data_seconds = 3.0 };
		const struct smdsp_v34_stats *c, *a;
		bool on = cases[i].c && cases[i].a;
		struct call_out o;
		char what[100];

		cc.line.loss_db = cases[i].loss;
		cc.line.noise_dbm0 = cases[i].noise;
		cc.line.echo_db = -999;
		cc.line.delay = 200 + 8 * (int)i;
		cc.line.ppm = i & 1 ? -100 : 100;
		cc.line.seed = 61 + i;
		cc.line.channel = cases[i].channel;
		snprintf(what, sizeof(what), "aux offered %d/%d, codes %u/%u", cases[i].c, cases[i].a, cases[i].tc,
			 cases[i].ta);
		run_call(&cc, &o);
		print_call(what, &o);
		c = &o.stats[0];
		a = &o.stats[1];
		printf("  aux %s: sent %u/%u, received %lu/%lu bits, %lu/%lu errors\n", c->aux ? "on" : "off",
		       c->aux_sent, a->aux_sent, o.aux[0].bits, o.aux[1].bits, o.aux[0].errors, o.aux[1].errors);
		judge_data(what, &cc, &o);
		/* on when both offered it, at both ends; never asked for its bits otherwise */
		CHECK(c->aux == on && a->aux == on, "%s: aux %d/%d", what, c->aux, a->aux);
		if (!on) {
			CHECK(!c->aux_sent && !a->aux_sent && !o.aux[0].bits && !o.aux[1].bits, "%s: aux bits %u/%u",
			      what, c->aux_sent, a->aux_sent);
			continue;
		}
		/* 200 bit/s each way for the data's seconds (less the decoder's delay), every bit right */
		CHECK(o.aux[0].bits > 0.9 * 200 * cc.data_seconds && o.aux[1].bits > 0.9 * 200 * cc.data_seconds &&
		      o.aux[0].bits <= a->aux_sent && o.aux[1].bits <= c->aux_sent &&
		      o.aux[0].bits == c->aux_received && o.aux[1].bits == a->aux_received,
		      "%s: aux bits %lu/%lu received, %u/%u sent", what, o.aux[0].bits, o.aux[1].bits, a->aux_sent,
		      c->aux_sent);
		CHECK(o.aux[0].errors == 0 && o.aux[1].errors == 0, "%s: aux errors %lu/%lu", what, o.aux[0].errors,
		      o.aux[1].errors);
	}
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-v"))
			verbose++;
	test_sync_data();
	test_codes();
	test_slip();
	test_aux();
	return t_report("test_v34_codes");
}
