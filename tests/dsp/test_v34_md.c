// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 phase 3's MD (the manufacturer-defined signal before each end's S,
 * its length in the sender's INFO1, 35 ms units) between two of our ends
 * (dsp/v34.c) over the line model, 4-wire and 2-wire.
 *
 * Each call runs from silence to the data mode with the call modem, the
 * answer modem or both configured to send MD of 0, 1, 5 or 127 x 35 ms (127:
 * the most INFO1's 7-bit field holds, 4.445 s), and checks:
 * - both ends reach the data mode and carry a PRBS both ways for 2 s
 *   without a bit error;
 * - each end's own MD length (its INFO1 as sent) and the far end's (its
 *   INFO1 as decoded) are what the two were configured with;
 * - each end's S starts its MD later than where it would without one: the
 *   answer modem's at INFO1a's end and MD, the call modem's at its receiver
 *   trained and MD (as measured with MD 0 on the same line);
 * - where the answer modem's MD is long enough for our receiver to ignore
 *   part of it (5 and up: it listens again 40 ms before the MD's end), the
 *   test puts a manufacturer's signal there at the call modem's input: a
 *   whole training from another transmitter (S, S-bar, PP, TRN: everything
 *   a receiver that listened would train on), which the call must not
 *   notice; and the mirror: where the call modem's MD is as long, the same
 *   at the answer modem's input from the call modem's MD's start (its
 *   receiver trained) to 40 ms before its end, which the answer modem lets
 *   pass by the length the call modem's INFO1c gave (11.3), 4- and 2-wire
 *   (there, with its canceller tracking through it).
 * Options: --quick (the first calls), -v (each call's ends at the end).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <smdsp/v34.h>
#include <smdsp/v34_train.h>
#include "line.h"
#include "chan.h"
#include "tutil.h"
#include "check.h"
#include "v34rule.h"

#define LEVEL (-120)
#define BLK 80
#define DATA_S 2		/* seconds of data judged each way */
#define MD_UNIT 280		/* samples in 35 ms */
#define MD_EARLY 320		/* v34.c: the call modem listens again this long before the far MD's end */

static int verbose;
static bool quick;

/* ---- one call ---- */

struct call {
	const char *line_name;
	struct line_cfg line;
	bool two_wire;
	unsigned int md[2];		/* the call modem's, the answer modem's */
	bool fake;			/* a manufacturer's MD at the call modem's input (see the top) */
	bool fake_ans;			/* ... and at the answer modem's, in the call modem's MD */
};

struct result {
	bool data[2];
	struct smdsp_v34_stats st[2];
	uint32_t p2_done[2];		/* phase 2's end, each end's samples */
	struct t_prbs rx[2];
	long fake_from, fake_to;	/* the fake MD's samples at the call modem (-1: none) */
	long afake_from, afake_to;	/* ... at the answer modem */
};

/*
 * The manufacturer's MD the test plays: a whole training (S, S-bar, PP,
 * TRN) of another transmitter at the answer modem's symbol rate and
 * carrier, at the level the line would deliver
 */
static struct smdsp_v34_train_tx *fake_tx(const struct smdsp_v34_stats *st, bool caller)
{
	struct smdsp_v34_train_config tc = {
		.symrate = st->rx.symrate, .high = st->rx.high, .data_rate = 14400, .caller = caller,
	};

	return smdsp_v34_train_tx_create(&tc, NULL, NULL);
}

static void run_call(const struct call *c, struct result *r)
{
	struct smdsp_v34_config cfg[2];
	struct smdsp_v34 *m[2];
	struct line *l = line_create(&c->line);
	struct smdsp_v34_train_tx *fake = NULL, *afake = NULL;
	struct t_prbs tx[2];
	int16_t out[2][BLK], in[2][BLK] = { { 0 } };
	double fgain = pow(10, -c->line.loss_db / 20);
	long t, data_at = -1, stop = 8000L * 40;
	int i, k;

	memset(r, 0, sizeof(*r));
	r->fake_from = -1;
	r->fake_to = -1;
	r->afake_from = -1;
	r->afake_to = -1;
	for (i = 0; i < 2; i++) {
		memset(&cfg[i], 0, sizeof(cfg[i]));
		cfg[i].calling = i == 0;
		cfg[i].level_dbm0_10 = LEVEL;
		cfg[i].far_level_dbm0_10 = LEVEL;
		v34_info0_upto(c->two_wire ? 3000 : 3429, &cfg[i].info0);
		cfg[i].max_rate = c->two_wire ? 19200 : 0;
		cfg[i].two_wire = c->two_wire;
		cfg[i].echo_latency = c->two_wire ? BLK : 0;
		cfg[i].md_len = c->md[i];
		memset(&tx[i], 0, sizeof(tx[i]));
		tx[i].s = 0x2468acu + 0x1357u * (uint32_t)i;
		cfg[i].get_bit = t_prbs_src_bit;
		cfg[i].get_user = &tx[i];
		cfg[i].put_bit = t_prbs_sink_bit;
		cfg[i].put_user = &r->rx[i];
		m[i] = smdsp_v34_create(&cfg[i]);
	}
	CHECK(m[0] && m[1] && l);
	if (!m[0] || !m[1] || !l)
		goto out;
	for (t = 0; t < stop; t += BLK) {
		for (i = 0; i < 2; i++)
			smdsp_v34_process(m[i], in[i], out[i], BLK);
		for (i = 0; i < 2; i++) {
			struct smdsp_v34_phase2_result p2;

			if (!r->p2_done[i] && smdsp_v34_get_phase2(m[i], &p2) && p2.fail == SMDSP_V34P2_OK)
				r->p2_done[i] = p2.done_at;
		}
		if (data_at < 0 && smdsp_v34_state(m[0]) == SMDSP_V34_DATA && smdsp_v34_state(m[1]) == SMDSP_V34_DATA) {
			data_at = t;
			stop = t + 8000L * DATA_S;
		}
		if (smdsp_v34_state(m[0]) == SMDSP_V34_FAILED || smdsp_v34_state(m[1]) == SMDSP_V34_FAILED)
			break;
		line_process(l, out[0], in[0], out[1], in[1], BLK);
		/* the fake MD: from INFO1a's tail to 40 ms before our receiver listens again */
		if (c->fake && r->p2_done[0] && r->fake_from < 0) {
			struct smdsp_v34_stats st;

			smdsp_v34_get_stats(m[0], &st);
			r->fake_from = (long)r->p2_done[0] + 100;
			r->fake_to = (long)r->p2_done[0] + (long)c->md[1] * MD_UNIT - MD_EARLY - 320;
			fake = fake_tx(&st, false);
			CHECK(fake != NULL && r->fake_to > r->fake_from + 400);
		}
		if (fake && t + BLK > r->fake_from && t < r->fake_to) {
			int16_t f[BLK];

			smdsp_v34_train_tx_process(fake, f, BLK);
			for (k = 0; k < BLK; k++)
				if (t + k >= r->fake_from && t + k < r->fake_to)
					in[0][k] = (int16_t)lrint(fmax(-32768, fmin(32767, in[0][k] + fgain * f[k])));
		}
		/*
		 * the mirror: the call modem's MD starts in the block its receiver
		 * trained (its MP's rate set) and reaches the answer modem the
		 * line's delay later (its own 16 samples with it)
		 */
		if (c->fake_ans && r->afake_from < 0) {
			struct smdsp_v34_stats st;

			smdsp_v34_get_stats(m[0], &st);
			if (st.rx.mp_rate) {
				long at = t + c->line.delay + 16;

				smdsp_v34_get_stats(m[1], &st);
				r->afake_from = at + BLK + 100;
				r->afake_to = at + (long)c->md[0] * MD_UNIT - MD_EARLY - 320;
				afake = fake_tx(&st, true);
				CHECK(afake != NULL && r->afake_to > r->afake_from + 400);
			}
		}
		if (afake && t + BLK > r->afake_from && t < r->afake_to) {
			int16_t f[BLK];

			smdsp_v34_train_tx_process(afake, f, BLK);
			for (k = 0; k < BLK; k++)
				if (t + k >= r->afake_from && t + k < r->afake_to)
					in[1][k] = (int16_t)lrint(fmax(-32768, fmin(32767, in[1][k] + fgain * f[k])));
		}
	}
	for (i = 0; i < 2; i++) {
		r->data[i] = smdsp_v34_state(m[i]) == SMDSP_V34_DATA;
		smdsp_v34_get_stats(m[i], &r->st[i]);
		if (verbose) {
			char b[300];

			smdsp_v34_print(m[i], b, sizeof(b));
			printf("  %s\n", b);
		}
	}
out:
	for (i = 0; i < 2; i++)
		smdsp_v34_free(m[i]);
	smdsp_v34_train_tx_free(fake);
	smdsp_v34_train_tx_free(afake);
	line_free(l);
}

/* the sample each end's S began, from its phase 2's end */
static long s_after(const struct result *r, int i)
{
	return (long)r->st[i].phase3_at - (long)r->p2_done[i];
}

static const struct line_cfg tel4 = {
	.loss_db = 10, .noise_dbm0 = -55, .echo_db = -999, .delay = 8 * 30, .ppm = 50, .seed = 5,
	.channel = CHAN_TELEPHONE
};

static struct line_cfg wire2(uint64_t seed)
{
	struct line_cfg l = {
		.loss_db = 10, .noise_dbm0 = -55, .echo_db = -999, .delay = 8 * 60, .ppm = -100,
		.seed = seed, .channel = CHAN_TELEPHONE, .hybrid = 3, .hybrid_erl_db = 10,
		.far_echo_db = 28, .far_hybrid = 4, .far_echo_hz = 3,
	};

	l.far_echo_delay = 2 * (l.delay + 16);
	return l;
}

static void test_md(bool two_wire)
{
	static const unsigned int mds[][2] = {
		{ 0, 0 }, { 1, 0 }, { 5, 0 }, { 127, 0 }, { 0, 1 }, { 0, 5 }, { 0, 127 },
		{ 1, 1 }, { 5, 5 }, { 127, 127 },
	};
	struct result base, r;
	struct call c = { .two_wire = two_wire };
	unsigned int n, nc = SMDSP_ARRAY_SIZE(mds);
	int i;

	c.line = two_wire ? wire2(31) : tel4;
	if (quick)
		nc = 4;
	for (n = 0; n < nc; n++) {
		c.md[0] = mds[n][0];
		c.md[1] = mds[n][1];
		/* the manufacturer's MD where our receiver ignores some (4-wire: 2-wire's near echo would be ours) */
		c.fake = !two_wire && c.md[1] * MD_UNIT > MD_EARLY + 1000;
		c.fake_ans = c.md[0] * MD_UNIT > MD_EARLY + 1000;
		run_call(&c, &r);
		if (!n)
			base = r;
		printf("%s, MD %3u / %3u (x 35 ms)%s: %s/%s, rates %u/%u, INFO1 md %u/%u, far %u/%u, S %ld/%ld samples after phase 2, bits %lu/%lu, errors %lu/%lu\n",
		       two_wire ? "2-wire" : "4-wire", c.md[0], c.md[1],
		       c.fake ? (c.fake_ans ? ", fake MDs" : ", a fake MD") : c.fake_ans ? ", a fake MD" : "",
		       r.data[0] ? "data" : "-", r.data[1] ? "data" : "-", r.st[0].rx.rate, r.st[1].rx.rate,
		       r.st[0].md_len, r.st[1].md_len, r.st[0].far_md_len, r.st[1].far_md_len, s_after(&r, 0),
		       s_after(&r, 1), r.rx[0].n, r.rx[1].n, r.rx[0].errors, r.rx[1].errors);
		for (i = 0; i < 2; i++) {
			/* data both ways, 2 s of it at 9600 bit/s and more, not a bit wrong */
			CHECK(r.data[i] && r.rx[i].n > 9600UL * DATA_S && r.rx[i].errors == 0,
			      "MD %u/%u: end %d %s, %lu bits, %lu wrong", c.md[0], c.md[1], i,
			      smdsp_v34_state_name(r.data[i] ? SMDSP_V34_DATA : SMDSP_V34_FAILED), r.rx[i].n,
			      r.rx[i].errors);
			/* our INFO1 as sent, the far one as decoded */
			CHECK(r.st[i].md_len == c.md[i] && r.st[i].far_md_len == c.md[1 - i],
			      "MD %u/%u: end %d INFO1 md %u, far %u", c.md[0], c.md[1], i, r.st[i].md_len,
			      r.st[i].far_md_len);
		}
		/*
		 * The answer modem's S: MD after where it starts without one (its
		 * INFO1a's end, the same line), within a symbol's rounding and the
		 * 1 ms grid v34.c notes its start on
		 */
		CHECK(labs(s_after(&r, 1) - s_after(&base, 1) - (long)c.md[1] * MD_UNIT) <= 12,
		      "MD %u/%u: the answer modem's S %ld samples after phase 2, %ld without MD", c.md[0], c.md[1],
		      s_after(&r, 1), s_after(&base, 1));
		/*
		 * A receiver that listened to the fake MD trains on it: the MD 5
		 * call then settles far under the same line's rate without MD
		 * (12,000 for 26,400), the MD 127 ones fail or carry errors
		 */
		CHECK(!c.fake || r.st[0].rx.rate + 2400 >= base.st[0].rx.rate,
		      "MD %u/%u: the call modem receives %u, %u without MD", c.md[0], c.md[1], r.st[0].rx.rate,
		      base.st[0].rx.rate);
		CHECK(!c.fake_ans || r.st[1].rx.rate + 2400 >= base.st[1].rx.rate,
		      "MD %u/%u: the answer modem receives %u, %u without MD", c.md[0], c.md[1], r.st[1].rx.rate,
		      base.st[1].rx.rate);
		/* the call modem's: at least its MD after where it starts without one (its receiver trained) */
		CHECK(s_after(&r, 0) >= s_after(&base, 0) + (long)(c.md[0] + c.md[1]) * MD_UNIT - 800,
		      "MD %u/%u: the call modem's S %ld samples after phase 2, %ld without MD", c.md[0], c.md[1],
		      s_after(&r, 0), s_after(&base, 0));
	}
}

/* the configuration's limit: 127 (INFO1's 7 bits) */
static void test_config(void)
{
	struct smdsp_v34_config cfg = { .calling = true, .level_dbm0_10 = LEVEL, .far_level_dbm0_10 = LEVEL };
	struct smdsp_v34 *s;

	v34_info0_upto(3429, &cfg.info0);
	cfg.md_len = 128;
	s = smdsp_v34_create(&cfg);
	CHECK(s == NULL, "MD 128 taken");
	smdsp_v34_free(s);
	cfg.md_len = 127;
	s = smdsp_v34_create(&cfg);
	CHECK(s != NULL, "MD 127 refused");
	smdsp_v34_free(s);
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose++;
		else if (!strcmp(argv[i], "--quick"))
			quick = true;
	}
	test_config();
	test_md(false);
	test_md(true);
	return t_report("test_v34_md");
}
