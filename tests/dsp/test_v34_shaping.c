// SPDX-License-Identifier: GPL-2.0
/*
 * V.34's nonlinear encoder (9.7) and expanded shaping on the line: each
 * receiver asks the far transmitter for them in its MP (Table 18's
 * "nonlinear encoder parameter select" and "constellation shaping select"
 * bits), by its configuration or by the rule in <smdsp/v34_train.h>, and
 * undoes them; the far transmitter uses what it was asked for.
 *
 * - Calls: two whole ends (dsp/v34.c) over the line model with a G.711
 *   codec in each direction (tests/dsp/common/line.c), 4-wire and 2-wire,
 *   each end's MP asking for neither, the nonlinear encoder, expanded
 *   shaping, both, and one each (asymmetric): data both ways for 2 s
 *   without a bit error, each end's asks as configured and the far end's
 *   transmitter doing what it decoded from them. Then the rule: on a
 *   mu-law line whose error is the codec's (about 37 dB) both ends ask for
 *   both; on a noisier line without a codec, for expanded shaping only;
 *   every end's asks are the rule applied to its own trained error (these
 *   lines' companding share, which the whole call's stats do not carry,
 *   is over the threshold where the error is).
 * - The benefit, at a fixed rate (3429 baud, 33,600 bit/s, the rate
 *   nearest the codec's limit): the decoder's error in the constellation's
 *   units (its spacing fixed), averaged over both directions and three
 *   lines, with and without each, on a mu-law line, an A-law line and a
 *   line of white noise of about the same SNR, beside theory:
 *   - expanded shaping: v34_data sends it at minimum shaping's power on
 *     the line, so the error in units falls by the two shapings' mean
 *     point power ratio (smdsp_v34_data_shaped_power(), the shell mapper's
 *     ring use counted), on any line;
 *   - the nonlinear encoder: with x' = x (1 + z/6 + z^2/120) sent and
 *     inverted after the noise, the error in units against none's, from
 *     the data's own points through smdsp_v34_nonlinear(): white noise,
 *     the inverse's mean squared gain E[J]; noise proportional to each
 *     symbol's own |x'|^2 (companding seen symbol by symbol, the most it
 *     could gain) E|x|^2 / E[|x'|^2 J]; noise proportional to the mean
 *     |x'|^2 (companding spread over the pulse's span, the least)
 *     E|x|^2 / (E|x'|^2 E[J]). The codec lines' measurement must fall
 *     between the last two, the white line's at the first. The encoder
 *     also sends more power for the same level setting (its stretched
 *     outer points): printed, measured on the line.
 * - The companding detector (trn_comp_pct): the rule over codec lines,
 *   white noise, a codec under more white noise and a clean 2-wire line,
 *   at three symbol rates and levels, on a flat, the telephone and the
 *   bass-cut channel (test_detect()).
 * Options: --quick (4-wire calls, the mu-law line's benefit), --detect (the
 * detector alone, each receiver printed), -v (each call's ends at the end).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <smdsp/v34.h>
#include <smdsp/v34_data.h>
#include <smdsp/v34_precode.h>
#include <smdsp/v34_train.h>
#include "line.h"
#include "chan.h"
#include "tutil.h"
#include "check.h"
#include "v34rule.h"
#include "v34link.h"

#define LEVEL (-120)
#define BLK 80
#define DATA_S 2		/* seconds of data judged each way */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int verbose;
static bool quick;

/* ---- one whole call ---- */

struct call {
	const char *name;
	struct line_cfg line;
	bool two_wire;
	unsigned int nl[2], ex[2];	/* each end's asks (enum smdsp_v34_ask), the call modem's first */
};

struct result {
	bool data[2];
	struct smdsp_v34_stats st[2];
	struct t_prbs rx[2];
};

static void run_call(const struct call *c, struct result *r)
{
	struct smdsp_v34_config cfg[2];
	struct smdsp_v34 *m[2];
	struct line *l = line_create(&c->line);
	struct t_prbs tx[2];
	int16_t out[2][BLK], in[2][BLK] = { { 0 } };
	long t, data_at = -1, stop = 8000L * 30;
	int i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < 2; i++) {
		memset(&cfg[i], 0, sizeof(cfg[i]));
		cfg[i].calling = i == 0;
		cfg[i].level_dbm0_10 = LEVEL;
		cfg[i].far_level_dbm0_10 = LEVEL;
		v34_info0_upto(c->two_wire ? 3000 : 3429, &cfg[i].info0);
		cfg[i].max_rate = c->two_wire ? 21600 : 0;
		cfg[i].two_wire = c->two_wire;
		cfg[i].echo_latency = c->two_wire ? BLK : 0;
		cfg[i].nonlinear = c->nl[i];
		cfg[i].shaping = c->ex[i];
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
		if (data_at < 0 && smdsp_v34_state(m[0]) == SMDSP_V34_DATA && smdsp_v34_state(m[1]) == SMDSP_V34_DATA) {
			data_at = t;
			stop = t + 8000L * DATA_S;
		}
		if (smdsp_v34_state(m[0]) == SMDSP_V34_FAILED || smdsp_v34_state(m[1]) == SMDSP_V34_FAILED)
			break;
		line_process(l, out[0], in[0], out[1], in[1], BLK);
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
	line_free(l);
}

/*
 * what the rule gives a receiver with this trained error, at this symbol rate and data rate (the
 * companding share taken as over its threshold: test_detect() checks that part)
 */
static void rule(int trn_db10, unsigned int symrate, unsigned int rate, bool *nl, bool *ex)
{
	struct smdsp_v34_frame_params p;

	*nl = trn_db10 >= SMDSP_V34_NL_SNR_DB10;
	*ex = !smdsp_v34_frame_params(symrate, rate, false, true, &p) && p.k;
}

static bool asked(unsigned int ask, bool by_rule)
{
	return ask == SMDSP_V34_ASK_AUTO ? by_rule : ask == SMDSP_V34_ASK_YES;
}

/* one call's checks; returns whether both ends asked for the nonlinear encoder / expanded shaping */
static void check_call(const struct call *c, const struct result *r, bool anl[2], bool aex[2])
{
	int i;

	printf("%-34s %s: %s/%s, rates %u/%u, TRN %.1f/%.1f dB, asked nl %d/%d ex %d/%d, sent nl %d/%d ex %d/%d, bits %lu/%lu, errors %lu/%lu\n",
	       c->name, c->two_wire ? "2-wire" : "4-wire", r->data[0] ? "data" : "-", r->data[1] ? "data" : "-",
	       r->st[0].rx.rate, r->st[1].rx.rate, r->st[0].rx.trn_mse_db10 / 10.0, r->st[1].rx.trn_mse_db10 / 10.0,
	       r->st[0].rx.nonlinear, r->st[1].rx.nonlinear, r->st[0].rx.expanded, r->st[1].rx.expanded,
	       r->st[0].tx.nonlinear, r->st[1].tx.nonlinear, r->st[0].tx.expanded, r->st[1].tx.expanded, r->rx[0].n,
	       r->rx[1].n, r->rx[0].errors, r->rx[1].errors);
	for (i = 0; i < 2; i++) {
		const struct smdsp_v34_dir *d = &r->st[i].rx;
		bool nl, ex;

		CHECK(r->data[i] && r->rx[i].n > 9600UL * DATA_S && r->rx[i].errors == 0,
		      "%s: end %d %s, %lu bits, %lu wrong", c->name, i, r->data[i] ? "data" : "not in data", r->rx[i].n,
		      r->rx[i].errors);
		rule(d->trn_mse_db10, d->symrate, d->mp_rate, &nl, &ex);
		/* our MP's asks: the configuration's, or the rule on our own error */
		CHECK(d->nonlinear == asked(c->nl[i], nl) && d->expanded == asked(c->ex[i], ex),
		      "%s: end %d asked nl %d ex %d (configured %u %u, the rule %d %d at %d dB/10)", c->name, i,
		      d->nonlinear, d->expanded, c->nl[i], c->ex[i], nl, ex, d->trn_mse_db10);
		/* the far transmitter did what it decoded from our MP */
		CHECK(r->st[1 - i].tx.nonlinear == d->nonlinear && r->st[1 - i].tx.expanded == d->expanded,
		      "%s: end %d asked nl %d ex %d, the far end sends nl %d ex %d", c->name, i, d->nonlinear,
		      d->expanded, r->st[1 - i].tx.nonlinear, r->st[1 - i].tx.expanded);
		anl[i] = d->nonlinear;
		aex[i] = d->expanded;
	}
}

static const struct line_cfg mulaw4 = {
	.loss_db = 6, .noise_dbm0 = -75, .echo_db = -999, .delay = 8 * 20, .ppm = 50, .seed = 5,
	.codec = LINE_MULAW
};

static struct line_cfg wire2(uint64_t seed)
{
	struct line_cfg l = {
		.loss_db = 10, .noise_dbm0 = -60, .echo_db = -999, .delay = 8 * 40, .ppm = -100,
		.seed = seed, .channel = CHAN_TELEPHONE, .hybrid = 3, .hybrid_erl_db = 10,
		.far_echo_db = 28, .far_hybrid = 4, .far_echo_hz = 3, .codec = LINE_ALAW,
	};

	l.far_echo_delay = 2 * (l.delay + 16);
	return l;
}

static void test_calls(void)
{
	static const struct {
		const char *name;
		unsigned int nl[2], ex[2];
	} asks[] = {
		{ "neither", { SMDSP_V34_ASK_NO, SMDSP_V34_ASK_NO }, { SMDSP_V34_ASK_NO, SMDSP_V34_ASK_NO } },
		{ "the nonlinear encoder", { SMDSP_V34_ASK_YES, SMDSP_V34_ASK_YES }, { SMDSP_V34_ASK_NO, SMDSP_V34_ASK_NO } },
		{ "expanded shaping", { SMDSP_V34_ASK_NO, SMDSP_V34_ASK_NO }, { SMDSP_V34_ASK_YES, SMDSP_V34_ASK_YES } },
		{ "both", { SMDSP_V34_ASK_YES, SMDSP_V34_ASK_YES }, { SMDSP_V34_ASK_YES, SMDSP_V34_ASK_YES } },
		{ "one each (nl at the call modem)", { SMDSP_V34_ASK_YES, SMDSP_V34_ASK_NO }, { SMDSP_V34_ASK_NO, SMDSP_V34_ASK_YES } },
	};
	struct call c;
	struct result r;
	bool nl[2], ex[2];
	unsigned int n, w;

	for (w = 0; w < (quick ? 1u : 2u); w++) {
		for (n = 0; n < ARRAY_SIZE(asks); n++) {
			memset(&c, 0, sizeof(c));
			c.name = asks[n].name;
			c.two_wire = w;
			c.line = w ? wire2(40 + n) : mulaw4;
			memcpy(c.nl, asks[n].nl, sizeof(c.nl));
			memcpy(c.ex, asks[n].ex, sizeof(c.ex));
			run_call(&c, &r);
			check_call(&c, &r, nl, ex);
		}
	}
	/* the rule: a line whose error is the codec's, then a noisier one without a codec */
	memset(&c, 0, sizeof(c));
	c.name = "the rule, mu-law";
	c.line = mulaw4;
	run_call(&c, &r);
	check_call(&c, &r, nl, ex);
	CHECK(nl[0] && nl[1] && ex[0] && ex[1], "the rule on a mu-law line: nl %d/%d ex %d/%d", nl[0], nl[1], ex[0],
	      ex[1]);
	c.name = "the rule, white noise";
	c.line.codec = 0;
	c.line.noise_dbm0 = -50;
	run_call(&c, &r);
	check_call(&c, &r, nl, ex);
	CHECK(!nl[0] && !nl[1] && ex[0] && ex[1], "the rule on a noisy line: nl %d/%d ex %d/%d", nl[0], nl[1], ex[0],
	      ex[1]);
	if (quick)
		return;
	c.name = "the rule, A-law 2-wire";
	c.two_wire = true;
	c.line = wire2(60);
	run_call(&c, &r);
	check_call(&c, &r, nl, ex);
}

/* ---- the benefit against theory ---- */

#define B_SYMRATE SMDSP_V34_S3429
#define B_RATE 33600

/*
 * The nonlinear encoder's theory on the data's points (minimum shaping, no
 * precoding): the inverse's squared gain J at each point (both directions,
 * by a small step), and the three models' gains (dB) in *white, *sym,
 * *spread (see the top)
 */
static void nl_theory(double *white, double *sym, double *spread)
{
	struct smdsp_v34_data_config c = { .symbol_rate = B_SYMRATE, .data_rate = B_RATE, .states = 16,
					   .caller = true };
	struct smdsp_v34_data_tx *tx = smdsp_v34_data_tx_create(&c);
	uint64_t seed = 0x5eedULL;
	double ex = 0, exn = 0, ej = 0, exnj = 0;
	unsigned long n = 0;
	uint32_t pw;
	unsigned int f, i, k;

	if (!tx) {
		CHECK(0, "v34_data refused 33,600 at 3429 baud");
		return;
	}
	pw = smdsp_v34_data_tx_power(tx);
	for (f = 0; f < 3000; f++) {
		uint8_t b[SMDSP_V34_MAX_B];
		int32_t x[16];
		unsigned int nb = smdsp_v34_data_tx_bits(tx);

		for (i = 0; i < nb; i++)
			b[i] = (uint8_t)(t_rand64(&seed) >> 63);
		smdsp_v34_data_tx_frame(tx, b, 0, x, NULL);
		for (i = 0; i < 8; i++) {
			int32_t v[2] = { x[2 * i], x[2 * i + 1] };
			double p = (double)v[0] * v[0] + (double)v[1] * v[1], pn, j = 0;

			smdsp_v34_nonlinear(v, SMDSP_V34_THETA, pw);
			pn = (double)v[0] * v[0] + (double)v[1] * v[1];
			/* a step of 32 (a quarter unit) each way, through the inverse */
			for (k = 0; k < 2; k++) {
				int32_t u[2] = { v[0] + (k ? 0 : 32), v[1] + (k ? 32 : 0) };
				int32_t o[2] = { v[0], v[1] };

				smdsp_v34_nonlinear_inverse(u, SMDSP_V34_THETA, pw);
				smdsp_v34_nonlinear_inverse(o, SMDSP_V34_THETA, pw);
				j += (pow(u[0] - o[0], 2) + pow(u[1] - o[1], 2)) / (32.0 * 32.0) / 2;
			}
			ex += p;
			exn += pn;
			ej += j;
			exnj += pn * j;
			n++;
		}
	}
	smdsp_v34_data_tx_free(tx);
	*white = -10 * log10(ej / n);
	*sym = 10 * log10(ex / exnj);
	*spread = 10 * log10(ex / n / (exn / n * ej / n));
}

/* the expanded shaping's theory: minimum over expanded shaping's actual point power (dB) */
static double ex_theory(void)
{
	struct smdsp_v34_data_config c = { .symbol_rate = B_SYMRATE, .data_rate = B_RATE, .states = 16 };
	struct smdsp_v34_data_tx *a, *b;
	double g = 0;

	a = smdsp_v34_data_tx_create(&c);
	c.expanded = true;
	b = smdsp_v34_data_tx_create(&c);
	CHECK(a && b);
	if (a && b)
		g = 10 * log10((double)smdsp_v34_data_shaped_power(a) / smdsp_v34_data_shaped_power(b));
	smdsp_v34_data_tx_free(a);
	smdsp_v34_data_tx_free(b);
	return g;
}

struct bench {
	double err;		/* the decoder's error, dB of units squared */
	double power;		/* the transmitters' mean square on the line, dB */
	unsigned long bits, errors;
};

static void measure(const struct line_cfg *line, unsigned int nl, unsigned int ex, struct bench *b)
{
	struct smdsp_v34_data_config c = { .symbol_rate = B_SYMRATE, .data_rate = B_RATE, .states = 16,
					   .expanded = ex == SMDSP_V34_ASK_YES };
	struct smdsp_v34_data_tx *t = smdsp_v34_data_tx_create(&c);
	double acc = 0, pw = 0, dp;
	unsigned int s, i, n = 0;

	memset(b, 0, sizeof(*b));
	if (!t)
		return;
	dp = 10 * log10(smdsp_v34_data_tx_power(t) / 16384.0);
	smdsp_v34_data_tx_free(t);
	for (s = 0; s < 3; s++) {
		struct link_cfg lc = { .symrate = B_SYMRATE, .rate_ca = B_RATE, .rate_ac = B_RATE, .seconds = 4,
				       .fixed_rate = true, .line = *line };
		struct link_res r;

		lc.line.seed += s;
		lc.nonlinear[0] = lc.nonlinear[1] = nl;
		lc.shaping[0] = lc.shaping[1] = ex;
		run_link(&lc, &r);
		for (i = 0; i < 2; i++) {
			CHECK(r.st[i] == SMDSP_V34_T_DATA && r.stats[i].nonlinear == (nl == SMDSP_V34_ASK_YES) &&
			      r.stats[i].expanded == (ex == SMDSP_V34_ASK_YES), "nl %u ex %u: end %d state %d", nl, ex,
			      i, r.st[i]);
			acc += pow(10, (dp - r.wmse_mean[i]) / 10);
			pw += r.tx_power[i];
			n++;
			b->bits += r.bits[i];
			b->errors += r.errors[i];
		}
	}
	b->err = 10 * log10(acc / n);
	b->power = 10 * log10(pw / n);
}

static void test_benefit(void)
{
	static const struct {
		const char *name;
		int codec;
		double noise;
	} lines[] = {
		{ "mu-law", LINE_MULAW, -80 },
		{ "A-law", LINE_ALAW, -80 },
		{ "white noise", 0, -56 },
	};
	double white = 0, sym = 0, spread = 0, gex = ex_theory();
	unsigned int k;

	nl_theory(&white, &sym, &spread);
	printf("3429 baud, 33,600 bit/s, flat, 3 dB loss; theory: expanded %.2f dB; nonlinear white %.2f, companding %.2f to %.2f dB\n",
	       gex, white, spread, sym);
	CHECK(gex > 0.1 && gex < 0.7, "expanded shaping's theory %.2f dB", gex);
	for (k = 0; k < (quick ? 1 : ARRAY_SIZE(lines)); k++) {
		struct line_cfg l = { .loss_db = 3, .noise_dbm0 = lines[k].noise, .echo_db = -200, .delay = 40,
				      .seed = 70 + 10 * k, .codec = lines[k].codec };
		struct bench b[4];
		unsigned int i;
		double g_ex, g_nl, g_both;

		for (i = 0; i < 4; i++)
			measure(&l, i & 1 ? SMDSP_V34_ASK_YES : SMDSP_V34_ASK_NO,
				i & 2 ? SMDSP_V34_ASK_YES : SMDSP_V34_ASK_NO, &b[i]);
		g_ex = b[0].err - b[2].err;
		g_nl = b[0].err - b[1].err;
		g_both = b[0].err - b[3].err;
		printf("  %-11s error in units %.2f / nl %.2f / ex %.2f / both %.2f dB: gains nl %.2f, ex %.2f, both %.2f dB; power on the line +%.2f dB with nl; bits %lu, errors %lu\n",
		       lines[k].name, b[0].err, b[1].err, b[2].err, b[3].err, g_nl, g_ex, g_both, b[1].power - b[0].power,
		       b[0].bits + b[1].bits + b[2].bits + b[3].bits,
		       b[0].errors + b[1].errors + b[2].errors + b[3].errors);
		for (i = 0; i < 4; i++)
			CHECK(b[i].bits > 500000 && b[i].errors == 0, "%s, case %u: %lu bits, %lu wrong", lines[k].name,
			      i, b[i].bits, b[i].errors);
		CHECK(fabs(g_ex - gex) <= 0.15, "%s: expanded shaping gains %.2f dB, theory %.2f", lines[k].name, g_ex,
		      gex);
		if (lines[k].codec)
			CHECK(g_nl >= spread - 0.15 && g_nl <= sym + 0.15,
			      "%s: the nonlinear encoder gains %.2f dB, theory %.2f to %.2f", lines[k].name, g_nl,
			      spread, sym);
		else
			CHECK(fabs(g_nl - white) <= 0.15, "%s: the nonlinear encoder gains %.2f dB, theory %.2f",
			      lines[k].name, g_nl, white);
		/* the two together: near the sum of their gains */
		CHECK(fabs(g_both - g_nl - g_ex) <= 0.2, "%s: both gain %.2f dB, apart %.2f + %.2f", lines[k].name,
		      g_both, g_nl, g_ex);
	}
}

/* ---- the receiver's companding detector ---- */

static bool detect_only;

struct dline {
	const char *name;
	int codec;
	double snr;		/* white noise this far under the level at the codec (0: none) */
	bool two_wire;
	bool dominant;		/* the codec's noise is most of the line's */
};

struct dclass {
	int n, asked, min, max;
	double sum, sum2;
};

static void dline_cfg(const struct dline *d, unsigned int i, unsigned int k, double loss, double lev,
		      struct link_cfg *lc)
{
	lc->line.loss_db = loss;
	lc->line.noise_dbm0 = d->snr ? lev - d->snr : -90;
	lc->line.echo_db = -300;
	lc->line.delay = 40;
	lc->line.codec = d->codec;
	if (d->two_wire) {
		lc->seconds = 7;
		lc->two_wire = true;
		lc->line.hybrid = 1 + (int)(i + k) % 8;
		lc->line.hybrid_erl_db = 8;
		lc->line.delay = 400;
		lc->line.far_echo_db = 27;
		lc->line.far_hybrid = 2 + (int)k;
		lc->line.far_echo_hz = 2;
		lc->line.far_echo_delay = 2 * (lc->line.delay + 16);
	}
}

/* one channel's ends judged: its name, whether every codec end must ask, the counts printed */
struct dchan {
	const char *name;
	bool flat, all_ask;
	int short_ends, ec_errors;
};

/* one receiver of the detector's links: checked, and counted in its line's class */
static void judge_end(const struct link_res *r, unsigned int e, struct dchan *ch, const struct dline *line,
		      unsigned int rate, double level, struct dclass *d)
{
	const struct smdsp_v34_train_stats *st = &r->stats[e];
	bool clean = st->trn_mse_db10 >= SMDSP_V34_NL_SNR_DB10;
	bool over = st->trn_comp_pct >= SMDSP_V34_NL_COMP_PCT;

	if (verbose || detect_only)
		printf("  %-9s %5u %-25s %5.1f dBm0 end %u: TRN %.1f dB, comp %4d%%, nl %d, bits %lu, errors %lu\n",
		       ch->name, rate, line->name, level, e, st->trn_mse_db10 / 10.0, st->trn_comp_pct, st->nonlinear,
		       r->bits[e], r->errors[e]);
	CHECK(r->st[e] == SMDSP_V34_T_DATA && r->bits[e] > 10000, "%s %u %s %.0f dBm0 end %u: state %d, %lu bits",
	      ch->name, rate, line->name, level, e, r->st[e], r->bits[e]);
	/* a band-limited 2-wire line's data is the cancellers' (counted, doc/v34.md) */
	if (line->two_wire && !ch->flat)
		ch->ec_errors += r->errors[e] != 0;
	else
		CHECK(!r->errors[e], "%s %u %s %.0f dBm0 end %u: %lu of %lu bits wrong", ch->name, rate, line->name,
		      level, e, r->errors[e], r->bits[e]);
	CHECK(st->nonlinear == (clean && over), "%s %u %s %.0f dBm0 end %u: nl %d, the rule %d", ch->name, rate,
	      line->name, level, e, st->nonlinear, clean && over);
	CHECK(over == line->dominant, "%s %u %s %.0f dBm0 end %u: comp %d%%, TRN %.1f dB", ch->name, rate,
	      line->name, level, e, st->trn_comp_pct, st->trn_mse_db10 / 10.0);
	if (line->dominant && !clean) {
		ch->short_ends++;
		CHECK(!ch->all_ask, "%s %u %s %.0f dBm0 end %u: TRN %.1f dB, under the rule's", ch->name, rate,
		      line->name, level, e, st->trn_mse_db10 / 10.0);
	}
	if (!d->n || st->trn_comp_pct < d->min)
		d->min = st->trn_comp_pct;
	if (!d->n || st->trn_comp_pct > d->max)
		d->max = st->trn_comp_pct;
	d->n++;
	d->sum += st->trn_comp_pct;
	d->sum2 += (double)st->trn_comp_pct * st->trn_comp_pct;
	d->asked += st->nonlinear;
}

/*
 * The companding share (trn_comp_pct) over lines whose error is a codec's
 * companding (mu-law, A-law), white noise of the codec's SNR, a codec
 * under white noise 10 dB above its floor, and a clean 2-wire line whose
 * error is the cancelled echoes', at three symbol rates and three levels
 * at the codec, on a flat line and on band-limited ones (the line's
 * response before the codec, as a subscriber loop ahead of the network's
 * coder): each receiver's share printed, its ask (AUTO) the rule on its
 * own figures, the share over the threshold on exactly the
 * codec-dominated lines, the encoder asked for on those whose TRN is
 * clean enough for the rule (on the flat and the telephone channel all of
 * them), data without a bit error; each class's range and the margin
 * either side of the threshold printed per channel.
 */
static void test_detect(void)
{
	static const struct {
		enum smdsp_v34_symrate r;
		unsigned int rate;
	} rates[] = { { SMDSP_V34_S2400, 21600 }, { SMDSP_V34_S3200, 31200 }, { SMDSP_V34_S3429, 33600 } };
	static const struct dline lines[] = {
		{ "mu-law", LINE_MULAW, 0, false, true },
		{ "A-law", LINE_ALAW, 0, false, true },
		{ "white, the codec's SNR", 0, 37, false, false },
		{ "mu-law + white 10 dB over", LINE_MULAW, 28, false, false },
		{ "2-wire, echoes, clean", 0, 0, true, false },
	};
	/* the channel, whether every codec end must ask (else only those whose TRN meets the rule's error) */
	static const struct {
		enum chan_kind ch;
		bool all_ask;
	} chans[] = { { CHAN_FLAT, true }, { CHAN_TELEPHONE, true }, { CHAN_BASS_CUT, false } };
	static const double levels[] = { -9, -15, -21 };
	struct dclass cl[ARRAY_SIZE(lines)];
	struct link_res r;
	double tx;
	unsigned int c, i, j, k, e;

	/* the transmitters' level on the line (data, full scale +3.14 dBm0), for the loss that sets the codec's */
	{
		struct link_cfg lc = { .symrate = SMDSP_V34_S3429, .rate_ca = 33600, .rate_ac = 33600, .seconds = 2 };

		dline_cfg(&lines[2], 0, 0, 0, -10, &lc);
		/* without the encoder's extra power */
		lc.nonlinear[0] = SMDSP_V34_ASK_NO;
		lc.nonlinear[1] = SMDSP_V34_ASK_NO;
		run_link(&lc, &r);
		tx = 10 * log10(r.tx_power[0] / (32768.0 * 32768.0 / 2)) + 3.14;
		printf("the companding detector: the transmitters at %.1f dBm0; the rule's TRN %.1f dB\n", tx,
		       SMDSP_V34_NL_SNR_DB10 / 10.0);
	}
	for (c = 0; c < ARRAY_SIZE(chans); c++) {
		struct dchan jc = { .name = chan_name(chans[c].ch), .flat = chans[c].ch == CHAN_FLAT,
				    .all_ask = chans[c].all_ask };
		int lo = 1000, hi = -1000;

		memset(cl, 0, sizeof(cl));
		for (i = 0; i < ARRAY_SIZE(rates); i++)
			for (j = 0; j < ARRAY_SIZE(lines); j++)
				for (k = 0; k < ARRAY_SIZE(levels); k++) {
					struct link_cfg lc = { .symrate = rates[i].r, .rate_ca = rates[i].rate,
							       .rate_ac = rates[i].rate, .seconds = 3 };

					lc.line.seed = 300 + 100 * c + 10 * i + 3 * j + k;
					dline_cfg(&lines[j], i, k, tx - levels[k], levels[k], &lc);
					lc.line.channel = chans[c].ch;
					run_link(&lc, &r);
					for (e = 0; e < 2; e++)
						judge_end(&r, e, &jc, &lines[j], rates[i].rate, levels[k], &cl[j]);
				}
		printf(" %s channel:\n", jc.name);
		for (j = 0; j < ARRAY_SIZE(lines); j++) {
			double mean = cl[j].sum / cl[j].n, sd = sqrt(cl[j].sum2 / cl[j].n - mean * mean);

			printf("  %-25s comp %4d .. %4d%%, mean %5.1f%%, sd %4.1f; the encoder asked by %d of %d\n",
			       lines[j].name, cl[j].min, cl[j].max, mean, sd, cl[j].asked, cl[j].n);
			if (lines[j].dominant)
				lo = cl[j].min < lo ? cl[j].min : lo;
			else
				hi = cl[j].max > hi ? cl[j].max : hi;
		}
		printf("  margin: the lowest codec-dominated share %d%%, the highest other %d%%, threshold %d%%; codec ends under the rule's TRN %d; 2-wire ends with bit errors %d\n",
		       lo, hi, SMDSP_V34_NL_COMP_PCT, jc.short_ends, jc.ec_errors);
	}
}

/* the configuration's range */
static void test_config(void)
{
	struct smdsp_v34_config cfg = { .calling = true, .level_dbm0_10 = LEVEL, .far_level_dbm0_10 = LEVEL };
	struct smdsp_v34 *s;

	v34_info0_upto(3429, &cfg.info0);
	cfg.nonlinear = SMDSP_V34_ASK_YES + 1;
	s = smdsp_v34_create(&cfg);
	CHECK(s == NULL, "nonlinear %u taken", cfg.nonlinear);
	smdsp_v34_free(s);
	cfg.nonlinear = SMDSP_V34_ASK_YES;
	cfg.shaping = SMDSP_V34_ASK_YES + 1;
	s = smdsp_v34_create(&cfg);
	CHECK(s == NULL, "shaping %u taken", cfg.shaping);
	smdsp_v34_free(s);
	cfg.shaping = SMDSP_V34_ASK_YES;
	s = smdsp_v34_create(&cfg);
	CHECK(s != NULL, "both asked for: refused");
	smdsp_v34_free(s);
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-v"))
			verbose++;
		else if (!strcmp(argv[i], "--quick"))
			quick = true;
		else if (!strcmp(argv[i], "--detect"))
			detect_only = true;
	if (detect_only) {
		test_detect();
		return t_report("test_v34_shaping");
	}
	test_config();
	test_calls();
	test_benefit();
	test_detect();
	return t_report("test_v34_shaping");
}
