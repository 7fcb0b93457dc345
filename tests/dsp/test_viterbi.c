/*
 * The trellis encoder (dsp/trellis.c) and the Viterbi decoder (dsp/viterbi.c)
 * on their own, at the symbol level:
 *  - the encoder's points equal SpanDSP's V.17 transmitter's for the same
 *    bits (its symbols tapped from its pulse shaper, training and data);
 *  - encode then decode without noise is the identity at every V.17 rate,
 *    with the decoding delay of depth - 1 symbols, from a known or an
 *    unknown start state, and after a 90 degree turn of the received points
 *    (the differential code's transparency) but for the first symbol;
 *  - the nearest point of each subset by lattice rounding equals the full
 *    search's, over and beyond the constellation;
 *  - in white noise the decoder makes fewer errors than the per-symbol
 *    slicer on the same points, and the error rate against the traceback
 *    depth (the choice of 16).
 */
#define SPANDSP_EXPOSE_INTERNAL_STRUCTURES
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "refs.h"
#include <spandsp/private/logging.h>
#include <spandsp/private/v17tx.h>
#include <smdsp/v17.h>
/* white-box: the transmitter's pulse-shaper entries and the decoder's search tables */
#include <smdsp/private/v17.h>
#include "tutil.h"

#define U 512

static const unsigned int rates[4] = { 14400, 12000, 9600, 7200 };

/* nearest point of the whole constellation: the per-symbol slicer */
static unsigned int slice(const int8_t (*p)[2], unsigned int n, double re, double im)
{
	unsigned int k, best = 0;
	double bd = 1e300;

	for (k = 0; k < n; k++) {
		double dx = re - p[k][0] * U, dy = im - p[k][1] * U, d = dx * dx + dy * dy;

		if (d < bd) {
			bd = d;
			best = k;
		}
	}
	return best;
}

/*
 * n symbols of random data at rate through the encoder, optionally noisy
 * (sigma per dimension, units), into the decoder and into the slicer;
 * returns the symbols whose data bits differ (decoder, slicer).
 */
static void run(unsigned int rate, unsigned int depth, int start, double sigma, int turn, long n,
		uint64_t seed, long *err_vit, long *err_slice, long *bit_vit, long *bit_slice)
{
	static unsigned int sent[400000];
	unsigned int np, bits = rate / 2400, dv = 1, ds = 1;
	const int8_t (*p)[2] = smdsp_v17_points(rate, &np);
	struct smdsp_trellis_enc *e = smdsp_trellis_enc_create(1);
	struct smdsp_viterbi *v = smdsp_viterbi_create(p[0], np, U, depth, start);
	long i, out = 0;

	CHECK(e && v, "viterbi_create");
	*err_vit = *err_slice = *bit_vit = *bit_slice = 0;
	for (i = 0; i < n; i++) {
		unsigned int q = (unsigned int)t_rand64(&seed) & ((1U << bits) - 1);
		unsigned int c = smdsp_trellis_encode(e, q);
		double re = p[c][0] * U, im = p[c][1] * U, t;
		int d;

		sent[i] = q;
		if (sigma > 0) {
			re += sigma * U * t_gauss(&seed);
			im += sigma * U * t_gauss(&seed);
		}
		if (turn) {
			t = re;
			re = -im;
			im = t;
		}
		{
			unsigned int h = slice(p, np, re, im), qs = smdsp_trellis_diff_decode(&ds, h);

			if (i > 0 && qs != q) {
				(*err_slice)++;
				*bit_slice += __builtin_popcount(qs ^ q);
			}
		}
		d = smdsp_viterbi_step(v, (int32_t)lround(re), (int32_t)lround(im));
		if (d >= 0) {
			unsigned int qd = smdsp_trellis_diff_decode(&dv, (unsigned int)d);

			/* the first decoded symbol's differential reference is the start's */
			if (out > 0 && qd != sent[out]) {
				(*err_vit)++;
				*bit_vit += __builtin_popcount(qd ^ sent[out]);
			}
			out++;
		}
	}
	smdsp_viterbi_free(v);
	smdsp_trellis_enc_free(e);
	CHECK(out == n - (long)depth + 1, "%u: %ld decoded of %ld (delay %u)", rate, out, n, depth - 1);
}

/* SpanDSP's transmitter's symbols, tapped: each new entry of its pulse shaper */
static unsigned int pn_reg = 0x1234;
static int sp_get(void *u)
{
	(void)u;
	pn_reg = (pn_reg << 1) | (((pn_reg >> 22) ^ (pn_reg >> 17)) & 1);
	return (int)(pn_reg & 1);
}

static uint32_t our_pn = 0x1234;
static int our_get(void *u)
{
	(void)u;
	our_pn = (our_pn << 1) | (((our_pn >> 22) ^ (our_pn >> 17)) & 1);
	return our_pn & 1;
}

static void against_spandsp(unsigned int rate, int short_train, int tep)
{
	v17_tx_state_t *sp = v17_tx_init(NULL, (int)rate, tep, sp_get, NULL);
	struct smdsp_v17_tx *ours;
	long k, nsym = 0, diffs = 0, first = -1, zeros_sp = 0;
	int16_t a, b;
	unsigned int last_sp = 0, last_ours = 0;

	pn_reg = 0x1234;
	our_pn = 0x1234;
	if (short_train)
		v17_tx_restart(sp, (int)rate, tep, 1);
	ours = smdsp_v17_tx_create(rate, -140, tep, short_train, our_get, NULL, NULL);
	/* 1.7 s with the long training, more than the training and 1000 data symbols */
	for (k = 0; k < (short_train ? 5000 : 15000); k++) {
		v17_tx(sp, &a, 1);
		smdsp_v17_tx_process(ours, &b, 1);
		if ((unsigned int)sp->rrc_filter_step != last_sp) {
			int i = (sp->rrc_filter_step + 2 * 9 - 1) % 9;
			double sr = sp->rrc_filter[i].re, si = sp->rrc_filter[i].im;
			int pos = (int)ours->qt.sym_pos;
			int or = ours->qt.sym_re[pos] / 1024, oi = ours->qt.sym_im[pos] / 1024;

			if ((unsigned int)ours->qt.sym_pos == last_ours)
				diffs++;	/* the symbol clocks differ */
			last_sp = (unsigned int)sp->rrc_filter_step;
			last_ours = ours->qt.sym_pos;
			if (sr == 0 && si == 0)
				zeros_sp++;
			if (lround(sr) != or || lround(si) != oi) {
				if (first < 0) {
					first = nsym;
					printf("  first difference at symbol %ld: SpanDSP (%g, %g), ours (%d, %d)\n",
					       nsym, sr, si, or, oi);
				}
				diffs++;
			}
			nsym++;
		}
	}
	printf("%5u %s%s: %ld symbols compared with SpanDSP's transmitter, %ld differ\n", rate,
	       short_train ? "short" : "long", tep ? " +TEP" : "", nsym, diffs);
	CHECK(diffs == 0 && nsym > 1000, "%u %s: %ld of %ld symbols differ from SpanDSP's (first %ld)", rate,
	      short_train ? "short" : "long", diffs, nsym, first);
	smdsp_v17_tx_free(ours);
	v17_tx_free(sp);
}

/*
 * The nearest point of each subset found by rounding to the subsets'
 * lattice is as near as the one found by trying every point (where two are
 * equally near either may be taken): two decoders, one forced to search in
 * full, on the same points scattered over and beyond the constellation,
 * must have the same path metrics (so the same eight branch metrics) and
 * the same nearest distance symbol by symbol.
 */
static void lattice_vs_full(unsigned int rate)
{
	unsigned int np;
	const int8_t (*p)[2] = smdsp_v17_points(rate, &np);
	static struct smdsp_viterbi a, b;
	uint64_t seed = 4711;
	long i, diff = 0, hard = 0;

	smdsp_viterbi_init(&a, p[0], np, U, SMDSP_VITERBI_DEPTH, -1);
	smdsp_viterbi_init(&b, p[0], np, U, SMDSP_VITERBI_DEPTH, -1);
	CHECK(a.lat_shift > 0, "%u: no lattice found", rate);
	b.lat_shift = 0;
	for (i = 0; i < 300000; i++) {
		/* uniform over +-14 units, a tenth of them out to +-40 */
		double w = (i % 10 ? 14.0 : 40.0) * U;
		int32_t re = (int32_t)(((int)(t_rand64(&seed) % 2001) - 1000) / 1000.0 * w);
		int32_t im = (int32_t)(((int)(t_rand64(&seed) % 2001) - 1000) / 1000.0 * w);

		smdsp_viterbi_step(&a, re, im);
		smdsp_viterbi_step(&b, re, im);
		/* equal path metrics: all eight branch metrics were equal */
		diff += memcmp(a.metric, b.metric, sizeof(a.metric)) != 0;
		hard += a.hard_dist != b.hard_dist;
	}
	printf("%5u: lattice search against full search, 300000 points: %ld path metrics, %ld nearest distances differ\n",
	       rate, diff, hard);
	CHECK(diff == 0 && hard == 0, "%u: %ld path metrics, %ld nearest distances differ", rate, diff, hard);
}

int main(void)
{
	static const unsigned int depths[] = { 4, 8, 12, 16, 24, 32 };
	long ev, es, bv, bs;
	int r, i;

	for (r = 0; r < 4; r++) {
		against_spandsp(rates[r], 0, 0);
		against_spandsp(rates[r], 1, 0);
	}
	against_spandsp(14400, 0, 1);
	for (r = 0; r < 4; r++)
		lattice_vs_full(rates[r]);

	for (r = 0; r < 4; r++) {
		run(rates[r], SMDSP_VITERBI_DEPTH, 0, 0, 0, 20000, 7 + r, &ev, &es, &bv, &bs);
		printf("%5u clean, known start: %ld symbol errors (slicer %ld)\n", rates[r], ev, es);
		CHECK(ev == 0 && es == 0, "%u clean: %ld / %ld errors", rates[r], ev, es);
		run(rates[r], SMDSP_VITERBI_DEPTH, -1, 0, 0, 20000, 17 + r, &ev, &es, &bv, &bs);
		CHECK(ev == 0, "%u clean, unknown start: %ld errors", rates[r], ev);
		run(rates[r], SMDSP_VITERBI_DEPTH, -1, 0, 1, 20000, 27 + r, &ev, &es, &bv, &bs);
		printf("%5u clean, turned 90 degrees, unknown start: %ld symbol errors\n", rates[r], ev);
		CHECK(ev == 0, "%u turned: %ld errors", rates[r], ev);
	}
	/*
	 * Noise: sigma per dimension in units (the nearest neighbours are
	 * sqrt(2), 2, sqrt(8), 4 units apart at 14400 ... 7200). Es/N0 in 1 dB
	 * steps; the Es/N0 each needs for a BER of 1e-3 (log BER interpolated).
	 */
	printf("rate  Es/N0   symbol errors Viterbi / slicer of 100000, BER Viterbi / slicer\n");
	for (r = 0; r < 4; r++) {
		double need[2] = { 99, 99 }, last[2] = { 0.5, 0.5 }, lsnr = 0;

		for (i = 0; i < 14; i++) {
			double esn0 = 27 - 1.5 * r - i, s = sqrt(40.0 / 2 / pow(10, esn0 / 10)), ber[2];
			int k;

			run(rates[r], SMDSP_VITERBI_DEPTH, 0, s, 0, 100000, 100 + i, &ev, &es, &bv, &bs);
			ber[0] = bv / (100000.0 * rates[r] / 2400);
			ber[1] = bs / (100000.0 * rates[r] / 2400);
			printf("%5u %5.1f dB  %6ld / %6ld   %.2e / %.2e\n", rates[r], esn0, ev, es, ber[0], ber[1]);
			if (es > 50)
				CHECK(ev * 3 < es, "%u Es/N0 %.1f: Viterbi %ld symbol errors, slicer %ld", rates[r], esn0,
				      ev, es);
			for (k = 0; k < 2; k++) {
				if (need[k] > 98 && ber[k] >= 1e-3 && i > 0) {
					double a = log10(last[k] > 1e-7 ? last[k] : 1e-7), b = log10(ber[k]);

					need[k] = lsnr + (esn0 - lsnr) * (-3 - a) / (b - a);
				}
				last[k] = ber[k];
			}
			lsnr = esn0;
			if (need[0] < 98 && need[1] < 98)
				break;
		}
		printf("%5u: Es/N0 for BER 1e-3: Viterbi %.1f dB, slicer %.1f dB: gain %.1f dB\n", rates[r], need[0],
		       need[1], need[1] - need[0]);
		CHECK(need[0] < 98 && need[1] < 98 && need[1] - need[0] > 2.0, "%u: gain %.1f dB", rates[r],
		      need[1] - need[0]);
	}
	printf("14400 at Es/N0 %.1f dB, traceback depth against symbol errors of 200000:\n",
	       10 * log10(40.0 / (2 * 0.42 * 0.42)));
	{
		long e[6];

		for (i = 0; i < 6; i++) {
			run(14400, depths[i], 0, 0.42, 0, 200000, 555, &e[i], &es, &bv, &bs);
			printf("  depth %2u (delay %2u): %ld (slicer %ld)\n", depths[i], depths[i] - 1, e[i], es);
		}
		/* 16 within 10 % of 32, 8 worse than 16 */
		CHECK(e[3] <= e[5] * 1.1 + 5, "depth 16 %ld, 32 %ld", e[3], e[5]);
		CHECK(e[1] > e[3], "depth 8 %ld not worse than 16 %ld", e[1], e[3]);
	}
	return t_report("test_viterbi");
}
