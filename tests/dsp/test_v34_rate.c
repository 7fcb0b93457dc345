// SPDX-License-Identifier: GPL-2.0
/*
 * V.34's data rate choice, whole calls between two of our ends
 * (dsp/v34.c) over the line model (tests/dsp/common/line.c), and the theory
 * it is held to.
 *
 * - The theory: for each of Table 7's rates at 3429 baud, the decoder's
 *   error the 16-state code needs for a bit error rate of 1e-5 with the
 *   recommendation's constellation at that rate
 *   (smdsp_v34_rate_need_db10() less its margin: the points' mean power
 *   P over 8/30 of a unit squared, the odd-integer grid's d_free^2 = 16 at
 *   2 / sigma = 5.5, N Q(2 / sigma) = 1e-5). v34_data alone with Gaussian
 *   noise at that error (no line, no equaliser) makes at most two bursts
 *   of errors in 300,000-630,000 bits, and 2 dB under it over 1e-4: the
 *   need is neither slack nor short by more than that.
 * - Calls on a flat line, 6 dB of loss, the noise swept from 22 to 46 dB
 *   of SNR, two on the telephone channel and one on the narrow one at 2743
 *   baud (13 dB of loss; precoding, whose whitening once lost bits in the
 *   data's first frame there): both ends reach the data mode; each
 *   direction's rate is the least of phase 2's
 *   projection and the rate the receiving end put in its MP from the
 *   error it measured at the end of TRN; the rates rise with the SNR and
 *   reach 33,600 at 3429 baud both ways on the flat line at 42 and 46 dB;
 *   every call carries its data without a bit error (4 s each way); no
 *   rate is above what the theory allows at the error the decoder then
 *   measured, nor on the flat line more than one step under it unless
 *   phase 2 projected less (on the telephone channel, precoded, the data
 *   mode's receiver ends 2-5 dB better than TRN measured: the choice is
 *   conservative there).
 * - Calls on 2-wire lines (G.168 hybrids at ERL 6-12 dB, far echoes 26-30
 *   dB down, 12-250 ms, flat and telephone channels, -50 to -66 dBm0 of
 *   noise, 3000 and 3429 baud), no max_rate: phase 3's TRN error is
 *   measured with this end silent, phase 4's with its own echo and the
 *   canceller as in the data; each receiver's MP asks for what the worse of
 *   the two carries (checked against the rule on the stats). The data mode
 *   may still find it a step too high and renegotiate down once: at most
 *   two of the 16 directions (phase 3's error alone: four). The bits after
 *   the last renegotiation (4 s each way) arrive without an error, and the
 *   rate is never above what the theory allows at the decoder's error nor
 *   more than one step under it (two after a renegotiation down; the
 *   telephone channel at 3429 baud excepted, as on 4-wire lines). Printed
 *   beside it, the rate phase 3's error alone would have asked for.
 * Printed: the theory's table, and per line the rate chosen beside the
 * rate the theory gives at the line's SNR and at the decoder's error.
 * Options: --quick (1.5 s of data a call).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <smdsp/v34.h>
#include <smdsp/v34_train.h>
#include <smdsp/v34_data.h>
#include <smdsp/v34_mod.h>
#include "line.h"
#include "chan.h"
#include "v34rule.h"
#include "tutil.h"
#include "check.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define LEVEL (-120)
#define BLK 80

static double data_seconds = 4.0;

/* ---- the theory ---- */

static struct smdsp_v34_train_rx *theory_rx;

/* the error (dB) the code needs for 1e-5 at this rate, 3429 baud: the receiver's rule less its margin */
static double need_db(enum smdsp_v34_symrate sr, unsigned int rate)
{
	return (smdsp_v34_rate_need_db10(theory_rx, sr, rate) - SMDSP_V34_RATE_MARGIN_DB10) / 10.0;
}

/* the highest rate at sr whose need the error mse_db meets (0: none) */
static unsigned int theory_rate(enum smdsp_v34_symrate sr, double mse_db)
{
	unsigned int r, best = 0;

	for (r = 2400; r <= 33600; r += 2400)
		if (need_db(sr, r) <= mse_db)
			best = r;
	return best;
}

static double qfunc(double x)
{
	return 0.5 * erfc(x / sqrt(2.0));
}

/* v34_data alone: its points plus Gaussian noise at mse_db below their power; bits and errors */
static void data_alone(enum smdsp_v34_symrate sr, unsigned int rate, double mse_db, unsigned int frames,
		       unsigned long *bits, unsigned long *errors, unsigned long *bursts)
{
	struct smdsp_v34_data_config c = { .symbol_rate = sr, .data_rate = rate, .states = 16, .caller = true };
	struct smdsp_v34_data_tx *tx = smdsp_v34_data_tx_create(&c);
	struct smdsp_v34_data_rx *rx = smdsp_v34_data_rx_create(&c);
	static uint8_t sent[64][SMDSP_V34_MAX_B];
	static unsigned int nsent[64];
	uint64_t seed = 0x5eed0000ULL + rate;
	double sigma;
	unsigned int f, i, last = 0;

	*bits = 0;
	*errors = 0;
	*bursts = 0;
	CHECK(tx && rx, "v34_data at %u", rate);
	if (!tx || !rx)
		goto out;
	/* per dimension, in the points' units (v34_data's 1/128) */
	sigma = sqrt(smdsp_v34_data_tx_power(tx) / 16384.0 / 2 * pow(10, -mse_db / 10));
	for (f = 0; f < frames + SMDSP_V34_DATA_DELAY_FRAMES; f++) {
		uint8_t b[SMDSP_V34_MAX_B], out[SMDSP_V34_MAX_B], aux;
		int32_t x[16], in[16];
		int y[16];
		unsigned int n = smdsp_v34_data_tx_bits(tx), got;

		for (i = 0; i < n; i++)
			b[i] = (uint8_t)(t_rand64(&seed) >> 63);
		memcpy(sent[f % 64], b, n);
		nsent[f % 64] = n;
		smdsp_v34_data_tx_frame(tx, b, 0, x, y);
		for (i = 0; i < 16; i++)
			in[i] = (int32_t)lround(128.0 * (y[i] + sigma * t_gauss(&seed)));
		got = smdsp_v34_data_rx_frame(rx, in, out, &aux);
		if (got && f >= SMDSP_V34_DATA_DELAY_FRAMES + 2) {
			unsigned int g = (f - SMDSP_V34_DATA_DELAY_FRAMES) % 64;

			unsigned long e0 = *errors;

			for (i = 0; i < got && i < nsent[g]; i++)
				*errors += out[i] != sent[g][i];
			*bits += got;
			/* a burst: errors in a frame after two clean ones */
			if (*errors != e0) {
				*bursts += !last || f > last + 2;
				last = f;
			}
		}
	}
out:
	smdsp_v34_data_tx_free(tx);
	smdsp_v34_data_rx_free(rx);
}

static void test_theory(bool quick)
{
	unsigned int r;

	printf("3429 baud: the decoder's error for 1e-5 (16-state code, Table 7's constellations), and v34_data alone there\n");
	printf("  rate   | points' power | needs    | + margin | Q(2/sigma) | BER at need (bits)    | 2 dB under\n");
	for (r = 21600; r <= 33600; r += 2400) {
		double need = need_db(SMDSP_V34_S3429, r), sigma;
		unsigned long b0, e0, b1, e1, ev0, ev1;

		data_alone(SMDSP_V34_S3429, r, need, quick ? 3000 : 8000, &b0, &e0, &ev0);
		data_alone(SMDSP_V34_S3429, r, need - 2, 3000, &b1, &e1, &ev1);
		sigma = sqrt(8.0 / 30.0 / 2.0);
		printf("  %6u | %13.1f | %5.1f dB | %5.1f dB | %.1e    | %.1e (%7lu) | %.1e\n", r,
		       pow(10, (need - 10 * log10(30.0 / 8.0)) / 10), need,
		       smdsp_v34_rate_need_db10(theory_rx, SMDSP_V34_S3429, r) / 10.0, qfunc(2 / sigma),
		       b0 ? (double)e0 / b0 : 1.0, b0, b1 ? (double)e1 / b1 : 1.0);
		/*
		 * at the need, about 1e-5: errors come in bursts of 10-40 bits (the
		 * Viterbi decoder's, the descrambler's threefold), so at most two
		 * bursts in these bits (1e-5 is one in a few million)
		 */
		CHECK(b0 > (quick ? 100000u : 300000u) && ev0 <= 2, "%u: %lu errors (%lu bursts) in %lu bits at %.1f dB",
		      r, e0, ev0, b0, need);
		/* 2 dB less: clearly worse than 1e-5, so the need is not slack */
		CHECK(b1 > 100000 && (double)e1 / b1 > 1e-4, "%u: %lu errors in %lu bits at %.1f dB", r, e1, b1,
		      need - 2);
		/* each step needs more */
		if (r > 21600)
			CHECK(need > need_db(SMDSP_V34_S3429, r - 2400) + 1.0, "%u: %.1f dB", r, need);
	}
	/* rates V.34 does not have at a symbol rate need the impossible */
	CHECK(smdsp_v34_rate_need_db10(theory_rx, SMDSP_V34_S2400, 28800) >= 1000);
	CHECK(smdsp_v34_rate_need_db10(theory_rx, SMDSP_V34_S3429, 2400) >= 1000);
}

/* ---- whole calls ---- */

/*
 * The source is tutil's PRBS; the sink checks each bit against the one the
 * last 23 received bits predict (self-synchronising: a line error counts
 * three times, and a renegotiation's gap costs at most 23 bits before it
 * is in step again). Only bits from `from` on are judged: run_call() moves
 * it past every gap, so a call is judged on the data after its last one.
 */
struct sink {
	uint32_t r;
	unsigned long n, from, checked, errors;
};

static void sink_bit(void *user, int bit)
{
	struct sink *k = user;
	int want = (int)(((k->r >> 22) ^ (k->r >> 17)) & 1);

	k->r = (k->r << 1) | (uint32_t)(bit & 1);
	if (++k->n <= k->from)
		return;
	k->checked++;
	k->errors += (unsigned long)(want != bit);
}

/* bits lost or out of step from here: judge again 23 bits after the next one */
static void sink_gap(struct sink *k)
{
	k->from = k->n + 23;
	k->checked = 0;
	k->errors = 0;
}

struct rate_line {
	int channel;
	double noise_dbm0;
	double ppm;
	int delay_ms;
	double loss_db;
	unsigned int seed;	/* the line's noise and the data's */
};

/* a 2-wire line's echoes: the G.168 model (1-8) at erl, the far echo far_db down, shifted hz */
struct echo_line {
	int hybrid;
	double erl, far_db, hz;
	int max_baud;		/* the highest symbol rate offered */
};

struct call_res {
	bool data;
	struct smdsp_v34_stats st[2];		/* call, answer */
	struct smdsp_v34_phase2_result p2;
	struct sink sink[2];
	int wmse_db10[2];			/* the decoder's error at the end, each end's receiver */
	enum smdsp_v34_fail fail[2];
	enum smdsp_v34_state state[2];
	unsigned int first_rate[2];		/* each receiver's as the data began */
	bool reached;				/* both ends in the data at once */
	unsigned int gaps;			/* renegotiations in the data */
};

/* el: 2-wire (both ends two_wire, no max_rate), NULL: 4-wire */
static void run_call(const struct rate_line *rl, const struct echo_line *el, struct call_res *res)
{
	static const struct smdsp_v34_info0 all = {
		.rate_2743 = 1, .rate_2800 = 1, .rate_3429 = 1, .low_3000 = 1, .high_3000 = 1, .low_3200 = 1,
		.high_3200 = 1, .allow_3429 = 1, .power_reduction = 1, .c1664 = 1
	};
	struct line_cfg lc = { .loss_db = rl->loss_db, .noise_dbm0 = rl->noise_dbm0, .echo_db = -999, .ppm = rl->ppm,
			       .delay = rl->delay_ms * 8, .channel = rl->channel, .seed = rl->seed };
	struct t_prbs src[2] = { { .s = 0x1abcdeu + rl->seed }, { .s = 0x2fedcbu + rl->seed } };
	struct smdsp_v34_config cfg[2];
	struct smdsp_v34 *m[2];
	struct line *l;
	int16_t tx[2][BLK], rx[2][BLK] = { { 0 } };
	long t, stop = -1;
	bool gap = false;
	int i;

	memset(res, 0, sizeof(*res));
	if (el) {
		/* the far hybrid at the far modem: the line's round trip */
		lc.hybrid = el->hybrid;
		lc.hybrid_erl_db = el->erl;
		lc.far_echo_db = el->far_db;
		lc.far_hybrid = 1 + el->hybrid % 8;
		lc.far_echo_hz = el->hz;
		lc.far_echo_delay = 2 * (lc.delay + 16);
	}
	l = line_create(&lc);
	for (i = 0; i < 2; i++) {
		memset(&cfg[i], 0, sizeof(cfg[i]));
		cfg[i].calling = i == 0;
		cfg[i].level_dbm0_10 = LEVEL;
		cfg[i].far_level_dbm0_10 = LEVEL;
		cfg[i].info0 = all;
		if (el) {
			/* a block's echo heard in the next block */
			cfg[i].two_wire = true;
			cfg[i].echo_latency = BLK;
			v34_info0_upto(el->max_baud, &cfg[i].info0);
		}
		cfg[i].get_bit = t_prbs_src_bit;
		cfg[i].get_user = &src[i];
		cfg[i].put_bit = sink_bit;
		cfg[i].put_user = &res->sink[i];
		res->sink[i].from = 23;
		m[i] = smdsp_v34_create(&cfg[i]);
	}
	CHECK(m[0] && m[1] && l);
	if (!m[0] || !m[1] || !l)
		goto out;
	for (t = 0; t < 40 * 8000 && (stop < 0 || t < stop); t += BLK) {
		smdsp_v34_process(m[0], rx[0], tx[0], BLK);
		smdsp_v34_process(m[1], rx[1], tx[1], BLK);
		line_process(l, tx[0], rx[0], tx[1], rx[1], BLK);
		if (stop < 0 && smdsp_v34_state(m[0]) == SMDSP_V34_DATA && smdsp_v34_state(m[1]) == SMDSP_V34_DATA) {
			stop = t + (long)(data_seconds * 8000);
			/* the rates the MPs settled */
			for (i = 0; i < 2; i++) {
				smdsp_v34_get_stats(m[i], &res->st[i]);
				res->first_rate[i] = res->st[i].rx.rate;
			}
		}
		if (smdsp_v34_state(m[0]) == SMDSP_V34_FAILED || smdsp_v34_state(m[1]) == SMDSP_V34_FAILED)
			break;
		/* a renegotiation: both directions stop; the bits judged are those after it */
		if (stop >= 0 && (smdsp_v34_state(m[0]) != SMDSP_V34_DATA || smdsp_v34_state(m[1]) != SMDSP_V34_DATA)) {
			res->gaps += !gap;
			gap = true;
			/* as much data after it as a call without one has */
			stop = t + (long)(data_seconds * 8000);
			sink_gap(&res->sink[0]);
			sink_gap(&res->sink[1]);
		} else {
			gap = false;
		}
	}
	res->reached = stop >= 0;
	res->data = stop >= 0 && smdsp_v34_state(m[0]) == SMDSP_V34_DATA && smdsp_v34_state(m[1]) == SMDSP_V34_DATA;
	for (i = 0; i < 2; i++) {
		smdsp_v34_get_stats(m[i], &res->st[i]);
		res->wmse_db10[i] = res->st[i].wmse_db10;
		res->fail[i] = smdsp_v34_fail(m[i]);
		res->state[i] = smdsp_v34_state(m[i]);
	}
	smdsp_v34_get_phase2(m[0], &res->p2);
out:
	smdsp_v34_free(m[0]);
	smdsp_v34_free(m[1]);
	line_free(l);
}

static const int sym_rate[6] = { 2400, 2743, 2800, 3000, 3200, 3429 };

static void test_calls(void)
{
	static const struct rate_line lines[] = {
		{ CHAN_FLAT, -40, 0, 20, 6, 11 },
		{ CHAN_FLAT, -44, 50, 20, 6, 11 },
		{ CHAN_FLAT, -48, -50, 40, 6, 11 },
		{ CHAN_FLAT, -52, 100, 20, 6, 11 },
		{ CHAN_FLAT, -56, -100, 60, 6, 11 },
		{ CHAN_FLAT, -60, 0, 20, 6, 11 },
		{ CHAN_FLAT, -64, 50, 30, 6, 11 },
		{ CHAN_TELEPHONE, -56, -50, 30, 6, 11 },
		{ CHAN_TELEPHONE, -64, 100, 20, 6, 11 },
		/* 2743 baud, precoded (the predictor gains 6 dB): the data's first frame after B1 */
		{ CHAN_NARROW, -62, 100, 79, 13, 5 },
	};
	unsigned int prev[2] = { 0, 0 }, i, k;

	printf("whole calls, 6 dB of loss (the narrow line 13), -12 dBm0 sent; SNR over 4 kHz at the receiver; %.1f s of data each way\n",
	       data_seconds);
	printf("  channel   |  SNR  | dir | baud | phase 2 | TRN error | MP     | settled | decoder | theory: line, decoder | bits    | errors\n");
	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		const struct rate_line *rl = &lines[i];
		struct call_res r;
		double snr = LEVEL / 10.0 - rl->loss_db - rl->noise_dbm0;

		run_call(rl, NULL, &r);
		CHECK(r.data, "%s %.0f dBm0: no data (%s)", chan_name(rl->channel), rl->noise_dbm0,
		      r.st[0].failed_at ? "failed" : "late");
		CHECK(!r.gaps, "%s %.0f dBm0: %u renegotiations", chan_name(rl->channel), rl->noise_dbm0, r.gaps);
		if (!r.data)
			continue;
		/* k: the receiving end (0 call: a->c, 1 answer: c->a) */
		for (k = 0; k < 2; k++) {
			const struct smdsp_v34_dir *rx = &r.st[k].rx, *tx = &r.st[1 - k].tx;
			const struct smdsp_v34_phase2_dir *p2 = k ? &r.p2.c_to_a : &r.p2.a_to_c;
			double dec = r.wmse_db10[k] / 10.0;
			/* a flat line's in-band SNR: the noise in the symbol rate's band */
			double band = snr + 10 * log10(4000.0 / sym_rate[rx->symrate % 6]);
			unsigned int t_line = theory_rate(rx->symrate, band), t_dec = theory_rate(rx->symrate, dec);
			unsigned int want = rx->mp_rate < p2->max_rate ? rx->mp_rate : p2->max_rate;

			printf("  %-9s | %5.1f | %s | %4d | %7u | %6.1f dB | %6u | %7u | %5.1f dB | %6u, %6u | %7lu | %lu\n",
			       chan_name(rl->channel), snr, k ? "c>a" : "a>c", sym_rate[rx->symrate % 6], p2->max_rate,
			       rx->trn_mse_db10 / 10.0, rx->mp_rate, rx->rate, dec,
			       rl->channel == CHAN_FLAT ? t_line : 0, t_dec, r.sink[k].checked, r.sink[k].errors);
			CHECK(rx->rate == tx->rate && rx->rate == want, "%.0f dB %u: settled %u/%u, MP %u, phase 2 %u",
			      snr, k, rx->rate, tx->rate, rx->mp_rate, p2->max_rate);
			CHECK(r.sink[k].checked > (unsigned long)(0.8 * data_seconds * rx->rate) && !r.sink[k].errors,
			      "%.0f dB %u: %lu errors in %lu bits", snr, k, r.sink[k].errors, r.sink[k].checked);
			/* never above what the decoder's error allows */
			CHECK(rx->rate <= t_dec, "%.0f dB %u: %u bit/s, the theory at %.1f dB %u", snr, k, rx->rate,
			      dec, t_dec);
			/*
			 * The telephone channel cuts 3429 baud's top edge: precoding, and
			 * the data mode's equaliser, adapting on the whitened error for
			 * seconds, gains 2-5 dB over what TRN measured (not judged there)
			 */
			if (rl->channel != CHAN_FLAT)
				continue;
			/* the flat line: TRN's error is the data's, so the rate is not wastefully low */
			CHECK(rx->rate + 2400 >= t_dec || rx->rate == p2->max_rate,
			      "%.0f dB %u: %u bit/s, the theory at %.1f dB %u", snr, k, rx->rate, dec, t_dec);
			/* the flat line: up with the SNR, never above what a perfect receiver could take */
			CHECK(rx->rate <= t_line, "%.0f dB %u: %u bit/s above the line's %u", snr, k, rx->rate, t_line);
			CHECK(rx->rate >= prev[k], "%.0f dB %u: %u bit/s after %u", snr, k, rx->rate, prev[k]);
			prev[k] = rx->rate;
			if (i == 0)
				CHECK(rx->rate <= 19200, "%.0f dB: %u bit/s, the sweep starts too high", snr, rx->rate);
		}
		if (rl->channel == CHAN_FLAT && rl->noise_dbm0 <= -60)
			CHECK(r.st[0].rx.symrate == SMDSP_V34_S3429 && r.st[1].rx.symrate == SMDSP_V34_S3429 &&
			      r.st[0].rx.rate == 33600 && r.st[1].rx.rate == 33600,
			      "%.0f dB: %u/%u bit/s, not 33,600 at 3429 baud", snr, r.st[0].rx.rate, r.st[1].rx.rate);
	}
}

/* the rate an error (tenths of dB) carries by the receiver's rule, within lim (2400: none higher) */
static unsigned int rule_rate(enum smdsp_v34_symrate sr, int db10, unsigned int lim)
{
	unsigned int r;

	for (r = lim; r > 2400; r -= 2400)
		if (db10 >= smdsp_v34_rate_need_db10(theory_rx, sr, r))
			break;
	return r;
}

/*
 * 2-wire lines, no max_rate: each receiver's MP asks for the rate the worse
 * of phase 3's TRN error (this end silent) and phase 4's (duplex: its own
 * echo on the line, the canceller tracking) carries; judged as the file's
 * header says.
 */
static void test_two_wire(void)
{
	static const struct {
		struct rate_line l;
		struct echo_line e;
	} lines[] = {
		{ { CHAN_TELEPHONE, -55, 100, 12, 10, 41 }, { 1, 6, 26, 0.0, 3000 } },
		{ { CHAN_FLAT, -58, -100, 100, 10, 42 }, { 4, 8, 28, 0.0, 3200 } },
		{ { CHAN_FLAT, -55, 50, 250, 8, 43 }, { 5, 12, 30, 7.0, 3200 } },
		{ { CHAN_TELEPHONE, -55, 100, 40, 10, 44 }, { 6, 10, 27, 3.0, 3429 } },
		{ { CHAN_FLAT, -50, -50, 30, 6, 45 }, { 2, 6, 28, 1.5, 3429 } },
		{ { CHAN_FLAT, -62, 0, 60, 6, 46 }, { 3, 12, 30, -3.0, 3429 } },
		{ { CHAN_FLAT, -66, 50, 20, 6, 47 }, { 7, 6, 28, 5.0, 3429 } },
		{ { CHAN_TELEPHONE, -65, -50, 150, 6, 48 }, { 8, 12, 26, 0.0, 3429 } },
	};
	unsigned int i, k, optimistic = 0;

	printf("2-wire calls, no max_rate: the MP's rate from phase 3's and phase 4's TRN errors; %.1f s of data each way\n",
	       data_seconds);
	printf("  channel   | ERL | noise | dir | baud | phase 2 | TRN 3  | TRN 4  | phase 3 alone | MP     | settled | end   | decoder | theory | down/up | bits    | errors\n");
	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		const struct rate_line *rl = &lines[i].l;
		struct call_res r;

		run_call(rl, &lines[i].e, &r);
		CHECK(r.reached, "2-wire %s %.0f dBm0: no data (%s/%s, %s/%s)", chan_name(rl->channel),
		      rl->noise_dbm0, smdsp_v34_state_name(r.state[0]), smdsp_v34_state_name(r.state[1]),
		      smdsp_v34_fail_name(r.fail[0]), smdsp_v34_fail_name(r.fail[1]));
		if (!r.reached)
			continue;
		for (k = 0; k < 2; k++) {
			const struct smdsp_v34_dir *rx = &r.st[k].rx;
			const struct smdsp_v34_phase2_dir *p2 = k ? &r.p2.c_to_a : &r.p2.a_to_c;
			double dec = r.wmse_db10[k] / 10.0;
			unsigned int t_dec = theory_rate(rx->symrate, dec), rate = r.first_rate[k];
			unsigned int alone = rule_rate(rx->symrate, rx->trn_mse_db10, p2->max_rate);
			int worse = rx->trn4_mse_db10 < rx->trn_mse_db10 ? rx->trn4_mse_db10 : rx->trn_mse_db10;
			/* the receiving end's own automatic renegotiations down: the rate did not hold */
			unsigned int down = r.st[k].reneg_auto - r.st[k].reneg_up;

			printf("  %-9s | %3.0f | %5.0f | %s | %4d | %7u | %4.1f dB | %4.1f dB | %13u | %6u | %7u | %5u | %5.1f dB | %6u | %u/%u | %7lu | %lu\n",
			       chan_name(rl->channel), lines[i].e.erl, rl->noise_dbm0, k ? "c>a" : "a>c",
			       sym_rate[rx->symrate % 6], p2->max_rate, rx->trn_mse_db10 / 10.0,
			       rx->trn4_mse_db10 / 10.0, alone, rx->mp_rate, rate, rx->rate, dec, t_dec, down,
			       r.st[k].reneg_up,
			       r.sink[k].checked, r.sink[k].errors);
			CHECK(rx->trn4_mse_db10 > 0, "2-wire %u %u: phase 4's TRN error not measured", i, k);
			CHECK(rx->mp_rate == rule_rate(rx->symrate, worse, p2->max_rate),
			      "2-wire %u %u: MP %u, the rule at %d (TRN %d, TRN4 %d) %u", i, k, rx->mp_rate, worse,
			      rx->trn_mse_db10, rx->trn4_mse_db10, rule_rate(rx->symrate, worse, p2->max_rate));
			CHECK(rate == rx->mp_rate, "2-wire %u %u: settled %u, MP %u", i, k, rate, rx->mp_rate);
			/*
			 * Phase 4's TRN is a few hundred symbols of a duplex line; the
			 * data may run a dB or so worse (its canceller's residue over
			 * seconds). Then the data mode's own renegotiation steps down
			 * (to the rate whose need is a dB under its error: v34.c), on
			 * a few directions only, once; the bits after it are judged,
			 * and the rate it ends at by that rule's own margin.
			 */
			CHECK(down <= 1, "2-wire %u %u: %u renegotiations down", i, k, down);
			optimistic += down > 0;
			CHECK(r.gaps <= 1, "2-wire %u: %u renegotiations", i, r.gaps);
			CHECK(r.sink[k].checked > (unsigned long)(0.8 * data_seconds * rx->rate) && !r.sink[k].errors,
			      "2-wire %u %u: %lu errors in %lu bits", i, k, r.sink[k].errors, r.sink[k].checked);
			CHECK(rx->rate <= t_dec, "2-wire %u %u: %u bit/s, the theory at %.1f dB %u", i, k, rx->rate, dec,
			      t_dec);
			/* as on 4-wire lines: the telephone channel at 3429 baud, precoded, ends better than TRN */
			if (rl->channel == CHAN_TELEPHONE && rx->symrate == SMDSP_V34_S3429)
				continue;
			CHECK(rx->rate + (down ? 4800 : 2400) >= t_dec || rx->rate == p2->max_rate,
			      "2-wire %u %u: %u bit/s, the theory at %.1f dB %u", i, k, rx->rate, dec, t_dec);
		}
	}
	printf("  %u of %u directions one step down in the data\n", optimistic, 2 * (unsigned int)ARRAY_SIZE(lines));
	CHECK(optimistic <= 2, "%u directions renegotiated down", optimistic);
}

int main(int argc, char **argv)
{
	struct smdsp_v34_train_config tc = { .symrate = SMDSP_V34_S3429, .data_rate = 33600 };
	bool quick = argc > 1 && !strcmp(argv[1], "--quick");

	if (quick)
		data_seconds = 1.5;
	theory_rx = smdsp_v34_train_rx_create(&tc, NULL, NULL);
	CHECK(theory_rx != NULL);
	if (!theory_rx)
		return t_report("test_v34_rate");
	test_theory(quick);
	test_calls();
	test_two_wire();
	smdsp_v34_train_rx_free(theory_rx);
	return t_report("test_v34_rate");
}
