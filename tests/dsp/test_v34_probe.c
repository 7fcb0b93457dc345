// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 line probing (dsp/v34_probe_tx.c, v34_probe_rx.c, v34_probe.c):
 * - L1/L2 against their definition: 21 tones 150 Hz apart from 150 to 3750
 *   Hz without 900, 1200, 1800, 2400, the eight at 180 degrees, L2's power
 *   the nominal level and L1's 6 dB more, L1 160 ms then L2 as long as asked,
 *   the table's phase carried across;
 * - the analysis over the line model with known channels (flat and four
 *   telephone-band responses from tests/dsp/common/chan.c, the line's
 *   cfg.channel) and white noise
 *   at several levels: each tone's gain and SNR, the noise, the group delay
 *   and the frequency offset (the line's clock offset) against the channel's
 *   exact response, within the tolerances stated below;
 * - the choices against the same rule computed here in floating point from
 *   the true channel and noise (not from the analysis): pre-emphasis, the
 *   data rate at every symbol rate, the symbol rate;
 * - INFO1c and INFO1a filled from it and packed;
 * - what is not probing (tones A and B, DPSK, noise, silence) is not taken.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <smdsp/v34_probe.h>
#include <smdsp/v34_mod.h>
#include <smdsp/v34_info.h>
#include "v34rule.h"
#include "chan.h"
#include "line.h"
#include "tutil.h"

#define LEVEL (-120)		/* L2's nominal level, tenths of dBm0 */
#define LOSS 6.0

static const int sym_rate[6] = { 2400, 2743, 2800, 3000, 3200, 3429 };

static double ms_of(const int16_t *x, int n)
{
	double s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += (double)x[i] * x[i];
	return s / n;
}

static void test_signal(void)
{
	struct smdsp_v34_probe_tx *tx = smdsp_v34_probe_tx_create(LEVEL);
	static int16_t x[8000];
	double want_ms = pow(32767.0 * pow(10, -3.14 / 20), 2) / 2 * pow(10, LEVEL / 100.0);
	double a = sqrt(2 * want_ms / 21), err = 0, peak = 0;
	int n, m, sent = 0;
	char buf[100];

	for (m = 1; m <= 25; m++) {
		int f = 150 * m;
		bool off = f == 900 || f == 1200 || f == 1800 || f == 2400;
		bool inv = f == 300 || f == 1650 || f == 2250 || f == 2700 || f == 3000 || f == 3150 ||
			   f == 3300 || f == 3450;

		CHECK(smdsp_v34_probe_sent(m) == !off, "slot %d", m);
		CHECK(smdsp_v34_probe_phase(m) == (inv && !off ? 180u : 0u), "slot %d", m);
		sent += !off;
	}
	CHECK(sent == SMDSP_V34_PROBE_SENT && !smdsp_v34_probe_sent(0) && !smdsp_v34_probe_sent(26));
	CHECK(!smdsp_v34_probe_tx_busy(tx));
	smdsp_v34_probe_tx_start(tx, 300);
	CHECK(smdsp_v34_probe_tx_busy(tx));
	smdsp_v34_probe_tx_process(tx, x, 8000);
	/*
	 * L2 against the definition, from where L1 left the table: the shape to
	 * 2 LSB once scaled by the least-squares gain (the level is checked
	 * below, against the power)
	 */
	{
		static double v[2400];
		double xv = 0, vv = 0, g;

		for (n = 1280; n < 1280 + 2400; n++) {
			v[n - 1280] = 0;
			for (m = 1; m <= 25; m++)
				if (smdsp_v34_probe_sent(m))
					v[n - 1280] += (smdsp_v34_probe_phase(m) ? -a : a) *
						       cos(2 * M_PI * 150 * m * n / 8000.0);
			xv += x[n] * v[n - 1280];
			vv += v[n - 1280] * v[n - 1280];
			peak = fmax(peak, fabs(v[n - 1280]));
		}
		g = xv / vv;
		for (n = 1280; n < 1280 + 2400; n++)
			err = fmax(err, fabs(x[n] - g * v[n - 1280]));
	}
	CHECK(err < 2.0, "L2 off its definition by %.2f", err);
	CHECK(fabs(10 * log10(ms_of(x + 1280, 2400) / want_ms)) < 0.05, "L2 power");
	CHECK(fabs(10 * log10(ms_of(x, 1280) / ms_of(x + 1280, 2400)) - 6.0) < 0.05, "L1 6 dB up: %.3f",
	      10 * log10(ms_of(x, 1280) / ms_of(x + 1280, 2400)));
	/* L1 exactly 160 ms, the same waveform scaled */
	CHECK(fabs(x[1279] - 1.9953 * x[1279 + 160]) <= 3 + abs(x[1279]) * 0.002);
	/* 300 ms of L2, then silence */
	CHECK(x[1280 + 2399] != 0 && x[1280 + 2400] == 0 && x[7999] == 0);
	CHECK(!smdsp_v34_probe_tx_busy(tx));
	printf("L2: %.2f LSB from its definition, crest factor %.2f (%.1f dB); L1 %.2f dB above\n", err,
	       peak / sqrt(want_ms), 20 * log10(peak / sqrt(want_ms)),
	       10 * log10(ms_of(x, 1280) / ms_of(x + 1280, 2400)));
	/* L1 at +6 dB on a 0 dBm0 nominal level must not clip */
	smdsp_v34_probe_tx_free(tx);
	tx = smdsp_v34_probe_tx_create(-60);
	smdsp_v34_probe_tx_start(tx, 0);
	smdsp_v34_probe_tx_process(tx, x, 1280);
	for (n = 0, peak = 0; n < 1280; n++)
		peak = fmax(peak, abs(x[n]));
	CHECK(peak < 32000, "L1 at 0 dBm0 peaks at %.0f", peak);
	smdsp_v34_probe_tx_process(tx, x, 8000);
	CHECK(smdsp_v34_probe_tx_busy(tx) && x[7999] != 0);
	smdsp_v34_probe_tx_stop(tx);
	smdsp_v34_probe_tx_process(tx, x, 10);
	CHECK(!x[0] && !smdsp_v34_probe_tx_busy(tx));
	CHECK(smdsp_v34_probe_tx_print(tx, buf, sizeof(buf)) > 0 && !strncmp(buf, "v34_probe_tx", 12));
	smdsp_v34_probe_tx_free(tx);
}

/* ---- one probing over the line (the rule on the true channel: common/v34rule.c) ---- */

struct run {
	enum chan_kind kind;
	double noise_dbm0, ppm;
	int delay;
};

static void probe_over_line(const struct run *run, struct smdsp_v34_probe_result *res, struct v34_truth *t,
			    uint32_t *l2_start)
{
	struct line_cfg cfg = { .loss_db = LOSS, .noise_dbm0 = run->noise_dbm0, .echo_db = -999,
				.delay = run->delay, .ppm = run->ppm, .seed = 99, .channel = run->kind };
	struct line *l = line_create(&cfg);
	struct smdsp_v34_probe_tx *tx = smdsp_v34_probe_tx_create(LEVEL);
	struct smdsp_v34_probe_rx *rx = smdsp_v34_probe_rx_create(LEVEL);
	int16_t a_tx[160], a_rx[160], b_tx[160] = { 0 }, b_rx[160];
	int blk;

	v34_rule_truth(&cfg, LEVEL, t);
	smdsp_v34_probe_tx_start(tx, 600);
	/* 100 ms of silence, L1 160 ms, L2 600 ms, silence */
	for (blk = 0; blk < 80; blk++) {
		if (blk < 5)
			memset(a_tx, 0, sizeof(a_tx));
		else
			smdsp_v34_probe_tx_process(tx, a_tx, 160);
		line_process(l, a_tx, a_rx, b_tx, b_rx, 160);
		smdsp_v34_probe_rx_process(rx, b_rx, 160);
	}
	CHECK(smdsp_v34_probe_rx_done(rx), "%s at %.0f dBm0: analysis not done", chan_name(run->kind),
	      run->noise_dbm0);
	smdsp_v34_probe_rx_result(rx, res);
	*l2_start = smdsp_v34_probe_rx_l2_start(rx);
	smdsp_v34_probe_tx_free(tx);
	smdsp_v34_probe_rx_free(rx);
	line_free(l);
}

static void test_analysis(void)
{
	static const double noises[] = { -75, -55, -45, -35 };
	int kind, ni;

	for (kind = 0; kind < CHAN_KINDS; kind++)
		for (ni = 0; ni < 4; ni++) {
			struct run run = { .kind = kind, .noise_dbm0 = noises[ni], .delay = 37 * kind + 11 * ni };
			struct smdsp_v34_probe_result res;
			struct smdsp_v34_probe_choice ch[6];
			uint8_t allowed[6] = { 3, 3, 3, 3, 3, 1 };
			struct v34_truth t;
			double gerr = 0, serr = 0, nerr = 0, gd_lo = 1e9, gd_hi = -1e9, want_fo, sbias = 0;
			int nbias = 0;
			int m, i, r, best, tbest = -1, trate = 0, bad_rates = 0, bad_pe = 0;
			uint32_t l2_start;
			char line[400];
			int len = 0;

			probe_over_line(&run, &res, &t, &l2_start);
			CHECK(res.valid && res.l2_periods >= 22, "%u periods", res.l2_periods);
			/* L1: 8 periods, less the edges and the settling; 6 dB above L2 */
			CHECK(res.l1_periods >= 3 && fabs((res.l1_dbm0_10 - res.l2_dbm0_10) / 10.0 - 6) < 0.5,
			      "L1 %d periods %d vs L2 %d", res.l1_periods, res.l1_dbm0_10, res.l2_dbm0_10);
			/*
			 * L2 starts 100 + 160 ms in, plus the line's delay; averaged from the
			 * period boundary after it, less the one that straddles, and three more
			 */
			CHECK(l2_start >= 2080u + 16 + run.delay && l2_start <= 2080u + 16 + run.delay + 5 * 160,
			      "L2 from sample %u", l2_start);
			for (m = 1; m <= 25; m++) {
				double snr_db = 10 * log10(t.snr[m]);

				if (!smdsp_v34_probe_sent(m))
					continue;
				/* gains within 0.5 dB where the tone is 20 dB above the noise */
				if (snr_db >= 20)
					gerr = fmax(gerr, fabs(res.gain_db10[m] / 10.0 - t.gain_db[m]));
				/*
				 * SNRs within 2 dB from 10 to 45 dB, and within 0.5 dB on average: the
				 * noise is the mean of 4 bins over ~24 periods, each |Y|^2 exponential,
				 * so a tone's noise has a spread of 0.45 dB
				 */
				if (snr_db >= 10 && snr_db <= 45) {
					serr = fmax(serr, fabs(res.snr_db10[m] / 10.0 - snr_db));
					sbias += res.snr_db10[m] / 10.0 - snr_db;
					nbias++;
				}
				/* above 45 dB the measurement may only say it is high */
				if (snr_db > 45)
					CHECK(res.snr_db10[m] >= 400, "slot %d: %d", m, res.snr_db10[m]);
				if (run.noise_dbm0 > -60)
					nerr = fmax(nerr, fabs(res.noise_dbm0_10[m] / 10.0 -
							       (run.noise_dbm0 + 10 * log10(150.0 / 4000))));
			}
			CHECK(gerr <= 0.5, "%s, noise %.0f: gain error %.2f dB", chan_name(kind), run.noise_dbm0, gerr);
			CHECK(serr <= 2.0, "%s, noise %.0f: SNR error %.2f dB", chan_name(kind), run.noise_dbm0, serr);
			CHECK(!nbias || fabs(sbias / nbias) <= 0.5, "%s, noise %.0f: SNR bias %.2f dB", chan_name(kind),
			      run.noise_dbm0, sbias / nbias);
			CHECK(nerr <= 2.0, "%s, noise %.0f: noise error %.2f dB", chan_name(kind), run.noise_dbm0, nerr);
			/* group delay: the measured less the exact phase slope, over pairs 30 dB up */
			for (i = 0; i < (int)res.gd_pairs; i++) {
				int m1 = 0, m2 = 0, k;
				double want, d;

				for (k = 1; k <= 25; k++)
					if (smdsp_v34_probe_sent(k) && 150 * k < res.gd_mid_hz[i])
						m1 = k;
				for (k = 25; k >= 1; k--)
					if (smdsp_v34_probe_sent(k) && 150 * k > res.gd_mid_hz[i])
						m2 = k;
				if (10 * log10(fmin(t.snr[m1], t.snr[m2])) < 30)
					continue;
				want = -remainder(t.phase[m2] - t.phase[m1], 2 * M_PI) / (2 * M_PI * 150 * (m2 - m1)) * 1e6;
				d = res.gd_us[i] - want;
				gd_lo = fmin(gd_lo, d);
				gd_hi = fmax(gd_hi, d);
			}
			if (gd_lo < 1e9)
				CHECK(gd_hi - gd_lo <= 60, "%s noise %.0f: group delay spread %.0f us", chan_name(kind),
				      run.noise_dbm0, gd_hi - gd_lo);
			/* the 1050 Hz tone through B's fast clock: -1050 ppm / (1 + ppm) Hz, 0.02 Hz units */
			want_fo = -1050 * run.ppm * 1e-6 / (1 + run.ppm * 1e-6) / 0.02;
			if (10 * log10(t.snr[7]) >= 25)
				CHECK(res.freq_offset != -512 && fabs(res.freq_offset - want_fo) <= 12.5,
				      "offset %d, want %.1f", res.freq_offset, want_fo);
			/* the choices against the rule on the true channel */
			smdsp_v34_probe_choose(&res, allowed, ch);
			for (r = 0; r < 6; r++) {
				double sdb, best_sdb = -99;
				int hi2, want = 0, wpe = 0, whigh = 0;

				for (hi2 = 0; hi2 < (r == 5 ? 1 : 2); hi2++) {
					int pe = v34_rule_preemph(&t, r, hi2);
					int rate = v34_rule_rate(&t, r, hi2, pe, &sdb);

					if (rate > want || (rate == want && sdb > best_sdb)) {
						want = rate;
						wpe = pe;
						whigh = hi2;
						best_sdb = sdb;
					}
				}
				if (abs(ch[r].max_rate - want) > 1)
					bad_rates++;
				/* the carrier and filter the rule picks (either when the rates tie within one step) */
				if (ch[r].max_rate == want && ch[r].high == whigh && ch[r].preemph != wpe &&
				    10 * log10(t.snr[12]) > 20)
					bad_pe++;
				if (want > trate) {
					trate = want;
					tbest = r;
				}
				len += snprintf(line + len, sizeof(line) - len, " %d:%d/%d(%s,pe%d)", sym_rate[r],
						ch[r].max_rate, want, ch[r].high ? "hi" : "lo", ch[r].preemph);
			}
			best = smdsp_v34_probe_best(ch);
			CHECK(!bad_rates, "%s noise %.0f: rates %s", chan_name(kind), run.noise_dbm0, line);
			CHECK(!bad_pe, "%s noise %.0f: pre-emphasis %s", chan_name(kind), run.noise_dbm0, line);
			CHECK(best >= 0 && abs(ch[best].max_rate - trate) <= 1, "best %d", best);
			printf("%-9s noise %3.0f dBm0: gain err %.2f dB, SNR err %.2f dB (mean %+.2f), gd spread %.0f us, fo %d (%.1f);"
			       " best %d baud %d bit/s (theory %d baud %d)\n", chan_name(kind), run.noise_dbm0,
			       gerr, serr, nbias ? sbias / nbias : 0, gd_lo < 1e9 ? gd_hi - gd_lo : 0, res.freq_offset, want_fo,
			       best >= 0 ? sym_rate[best] : 0, best >= 0 ? 2400 * ch[best].max_rate : 0,
			       tbest >= 0 ? sym_rate[tbest] : 0, 2400 * trate);
			printf("   per rate (ours/theory):%s\n", line);
		}
}

/*
 * The frequency offset (B's clock fast or slow: every tone moves by f ppm),
 * and the gains below 2.5 kHz (the line's clock converter rolls off above).
 * A tone off its bin leaks into the noise bins beside it (200 ppm at 3 kHz:
 * -38 dB), so the SNRs are not judged here.
 */
static void test_offset(void)
{
	static const double ppms[] = { 100, -100, 200, -300, 400 };
	int i, m;

	for (i = 0; i < 5; i++) {
		struct run run = { .kind = CHAN_TELEPHONE, .noise_dbm0 = -60, .ppm = ppms[i], .delay = 5 };
		struct smdsp_v34_probe_result res;
		struct v34_truth t;
		double want = -1050 * run.ppm * 1e-6 / (1 + run.ppm * 1e-6) / 0.02, gerr = 0;
		uint32_t l2;

		probe_over_line(&run, &res, &t, &l2);
		for (m = 1; m <= 16; m++)
			if (smdsp_v34_probe_sent(m))
				gerr = fmax(gerr, fabs(res.gain_db10[m] / 10.0 - t.gain_db[m]));
		CHECK(res.freq_offset != -512 && fabs(res.freq_offset - want) <= 12.5, "%+.0f ppm: offset %d, want %.1f",
		      run.ppm, res.freq_offset, want);
		CHECK(gerr <= 0.5, "%+.0f ppm: gain error %.2f dB", run.ppm, gerr);
		printf("clock %+4.0f ppm: offset %d x 0.02 Hz (%.1f expected), gain error below 2.5 kHz %.2f dB\n",
		       run.ppm, res.freq_offset, want, gerr);
	}
}

/* sanity of the rule itself: what a flat quiet line, a narrow one and a noisy one get */
static void test_rule_extremes(void)
{
	struct run quiet = { .kind = CHAN_FLAT, .noise_dbm0 = -75 };
	struct run narrow = { .kind = CHAN_NARROW, .noise_dbm0 = -45 };
	struct run flat = { .kind = CHAN_FLAT, .noise_dbm0 = -45 };
	struct run noisy = { .kind = CHAN_TELEPHONE, .noise_dbm0 = -35 };
	struct smdsp_v34_probe_result res;
	struct smdsp_v34_probe_choice ch[6];
	uint8_t allowed[6] = { 3, 3, 3, 3, 3, 1 };
	struct v34_truth t;
	uint32_t l2;
	int best, flat_rate;

	probe_over_line(&quiet, &res, &t, &l2);
	smdsp_v34_probe_choose(&res, allowed, ch);
	best = smdsp_v34_probe_best(ch);
	CHECK(best == SMDSP_V34_S3429 && ch[best].max_rate == 14 && ch[best].preemph == 0,
	      "flat quiet line: %d %d", best, best >= 0 ? ch[best].max_rate : -1);
	/* 3429 not allowed: 3200 at 31200 */
	allowed[5] = 0;
	smdsp_v34_probe_choose(&res, allowed, ch);
	best = smdsp_v34_probe_best(ch);
	CHECK(best == SMDSP_V34_S3200 && ch[best].max_rate == 13 && !ch[5].max_rate, "%d", best);
	allowed[5] = 1;
	probe_over_line(&flat, &res, &t, &l2);
	smdsp_v34_probe_choose(&res, allowed, ch);
	best = smdsp_v34_probe_best(ch);
	flat_rate = best >= 0 ? ch[best].max_rate : 0;
	/* 400-2900 Hz: a lower symbol rate and data rate than the flat line with the same noise */
	probe_over_line(&narrow, &res, &t, &l2);
	smdsp_v34_probe_choose(&res, allowed, ch);
	best = smdsp_v34_probe_best(ch);
	CHECK(best >= 0 && best < SMDSP_V34_S3429 && ch[best].max_rate < flat_rate, "narrow line: symbol rate %d",
	      best);
	probe_over_line(&noisy, &res, &t, &l2);
	smdsp_v34_probe_choose(&res, allowed, ch);
	best = smdsp_v34_probe_best(ch);
	CHECK(best >= 0 && ch[best].max_rate < 10, "noisy line: %d", best >= 0 ? ch[best].max_rate : -1);
}

static void test_info1(void)
{
	struct run run = { .kind = CHAN_LONG_LOOP, .noise_dbm0 = -55, .delay = 100 };
	struct smdsp_v34_probe_result res;
	struct v34_truth t;
	struct smdsp_v34_info0 i0a = { .rate_2743 = 1, .rate_2800 = 1, .rate_3429 = 1, .low_3000 = 1,
				       .high_3000 = 1, .low_3200 = 1, .high_3200 = 1, .allow_3429 = 1,
				       .power_reduction = 1, .max_rate_diff = 1 };
	struct smdsp_v34_info0 i0c = i0a;
	struct smdsp_v34_info info = { .kind = SMDSP_V34_INFO1C }, back;
	uint8_t frame[SMDSP_V34_INFO_BYTES];
	uint32_t l2;
	int r, nb;

	probe_over_line(&run, &res, &t, &l2);
	/* the answer modem without 3429 and without the high carrier at 3200 */
	i0a.rate_3429 = 0;
	i0a.high_3200 = 0;
	smdsp_v34_probe_info1c(&res, &i0a, &i0c, &info.i1c);
	CHECK(info.i1c.rate[5].max_rate == 0, "3429 refused by INFO0a");
	CHECK(!info.i1c.rate[4].high_carrier);
	for (r = 0; r < 5; r++)
		CHECK(info.i1c.rate[r].max_rate > 0 && info.i1c.rate[r].preemph <= 10);
	CHECK(info.i1c.min_power_red <= 7 && info.i1c.add_power_red <= 7);
	CHECK(info.i1c.freq_offset == res.freq_offset);
	nb = smdsp_v34_info_pack(&info, frame);
	CHECK(nb == SMDSP_V34_INFO1C_BITS && !smdsp_v34_info_unpack(SMDSP_V34_INFO1C, frame, nb, &back) &&
	      !memcmp(&back.i1c, &info.i1c, sizeof(info.i1c)));
	/* INFO1a: the answer modem's own probing of the other direction, the rates within one step */
	info.kind = SMDSP_V34_INFO1A;
	{
		struct smdsp_v34_info1c i1c = info.i1c;

		smdsp_v34_probe_info1a(&res, &i1c, &i0a, &i0c, &info.i1a);
		CHECK(abs(info.i1a.rate_a_to_c - info.i1a.rate_c_to_a) <= 1);
		CHECK(i1c.rate[info.i1a.rate_a_to_c].max_rate > 0 && info.i1a.max_rate > 0);
		/* the call modem transmits 3429 if both allow it: INFO0a said no */
		CHECK(info.i1a.rate_c_to_a != 5);
		nb = smdsp_v34_info_pack(&info, frame);
		CHECK(nb == SMDSP_V34_INFO1A_BITS && !smdsp_v34_info_unpack(SMDSP_V34_INFO1A, frame, nb, &back) &&
		      !memcmp(&back.i1a, &info.i1a, sizeof(info.i1a)));
		printf("INFO1a on the long loop: %d baud each way (a->c %d, c->a %d), c->a %d bit/s, pre-emphasis %d,"
		       " power reduction %d+%d dB, offset %d\n", sym_rate[info.i1a.rate_c_to_a], info.i1a.rate_a_to_c,
		       info.i1a.rate_c_to_a, 2400 * info.i1a.max_rate, info.i1a.preemph, info.i1a.min_power_red,
		       info.i1a.add_power_red, info.i1a.freq_offset);
	}
	/* no power reduction asked of a transmitter that cannot */
	i0a.power_reduction = 0;
	smdsp_v34_probe_info1c(&res, &i0a, &i0c, &info.i1c);
	CHECK(!info.i1c.min_power_red && !info.i1c.add_power_red);
}

/* tones A and B, DPSK, noise and silence: never probing */
static void test_not_probing(void)
{
	struct smdsp_v34_probe_rx *rx = smdsp_v34_probe_rx_create(LEVEL);
	struct smdsp_v34_info_tx *a = smdsp_v34_info_tx_create(false, -100);
	struct smdsp_v34_info_tx *b = smdsp_v34_info_tx_create(true, -100);
	struct smdsp_v34_info info = { .kind = SMDSP_V34_INFO0 };
	struct smdsp_v34_probe_result res;
	static int16_t x[16000], y[16000];
	uint8_t frame[SMDSP_V34_INFO_BYTES];
	uint64_t seed = 4;
	int i, nb;
	char buf[100];

	nb = smdsp_v34_info_pack(&info, frame);
	smdsp_v34_info_tx_send(a, frame, nb);
	smdsp_v34_info_tx_tone(a, true);
	smdsp_v34_info_tx_tone(b, true);
	smdsp_v34_info_tx_process(a, x, 16000);
	smdsp_v34_info_tx_process(b, y, 16000);
	for (i = 0; i < 16000; i++)
		x[i] = (int16_t)(x[i] / 2 + y[i] / 2);
	smdsp_v34_probe_rx_process(rx, x, 16000);
	for (i = 0; i < 16000; i++)
		x[i] = t_sat16(3000 * t_gauss(&seed));
	smdsp_v34_probe_rx_process(rx, x, 16000);
	memset(x, 0, sizeof(x));
	smdsp_v34_probe_rx_process(rx, x, 16000);
	smdsp_v34_probe_rx_result(rx, &res);
	CHECK(!smdsp_v34_probe_rx_done(rx) && !smdsp_v34_probe_rx_active(rx) && !res.valid && !res.l2_periods);
	CHECK(smdsp_v34_probe_rx_print(rx, buf, sizeof(buf)) > 0 && !strncmp(buf, "v34_probe_rx idle", 17),
	      "%s", buf);
	/* a probing signal too short to measure (60 ms) is dropped, and the next one taken */
	{
		struct smdsp_v34_probe_tx *tx = smdsp_v34_probe_tx_create(LEVEL);

		smdsp_v34_probe_tx_start(tx, 0);
		smdsp_v34_probe_tx_process(tx, x, 480);
		memset(x + 480, 0, 800 * sizeof(x[0]));
		smdsp_v34_probe_rx_process(rx, x, 1280);
		CHECK(!smdsp_v34_probe_rx_done(rx));
		smdsp_v34_probe_tx_start(tx, 400);
		smdsp_v34_probe_tx_process(tx, x, 8000);
		smdsp_v34_probe_rx_process(rx, x, 8000);
		smdsp_v34_probe_rx_result(rx, &res);
		CHECK(smdsp_v34_probe_rx_done(rx) && res.valid && res.l1_periods >= 3, "%u", res.l1_periods);
		smdsp_v34_probe_rx_reset(rx);
		CHECK(!smdsp_v34_probe_rx_done(rx));
		smdsp_v34_probe_tx_free(tx);
	}
	smdsp_v34_probe_rx_free(rx);
	smdsp_v34_info_tx_free(a);
	smdsp_v34_info_tx_free(b);
}

/* hostile input: full-scale noise, DC, the extremes alternating, L1/L2 clipped hard */
static void test_hostile(void)
{
	struct smdsp_v34_probe_rx *rx = smdsp_v34_probe_rx_create(LEVEL);
	struct smdsp_v34_probe_tx *tx = smdsp_v34_probe_tx_create(60);
	struct smdsp_v34_probe_result res;
	struct smdsp_v34_probe_choice ch[6];
	uint8_t allowed[6] = { 3, 3, 3, 3, 3, 1 };
	static int16_t x[16000];
	uint64_t seed = 9;
	int i, kind, r;

	for (kind = 0; kind < 4; kind++) {
		smdsp_v34_probe_rx_reset(rx);
		if (kind == 3) {
			/* L1/L2 at +6 dBm0 nominal: L1 clips */
			smdsp_v34_probe_tx_start(tx, 0);
			smdsp_v34_probe_tx_process(tx, x, 16000);
			for (i = 0; i < 16000; i++)
				x[i] = (int16_t)(x[i] > 20000 ? 32767 : x[i] < -20000 ? -32768 : x[i] * 2);
		}
		for (i = 0; kind < 3 && i < 16000; i++)
			x[i] = kind == 0 ? (int16_t)t_rand64(&seed) : kind == 1 ? 32767 : (i & 1 ? -32768 : 32767);
		smdsp_v34_probe_rx_process(rx, x, 16000);
		smdsp_v34_probe_rx_result(rx, &res);
		smdsp_v34_probe_choose(&res, allowed, ch);
		for (r = 0; r < 6; r++)
			CHECK(ch[r].max_rate <= 14 && ch[r].preemph <= 10);
		CHECK(kind == 3 || !smdsp_v34_probe_rx_done(rx), "kind %d taken for probing", kind);
		CHECK(res.freq_offset >= -512 && res.freq_offset <= 511);
	}
	smdsp_v34_probe_rx_free(rx);
	smdsp_v34_probe_tx_free(tx);
}

int main(void)
{
	test_signal();
	test_analysis();
	test_offset();
	test_rule_extremes();
	test_info1();
	test_not_probing();
	test_hostile();
	return t_report("test_v34_probe");
}
