// SPDX-License-Identifier: GPL-2.0
/* v34_probe.c's rate rule in floating point, on the true channel (test code): see v34rule.h */
#include <complex.h>
#include <math.h>
#include <string.h>
#include <smdsp/v34_probe.h>
#include <smdsp/v34_mod.h>
#include "chan.h"
#include "line.h"
#include "v34rule.h"
#include <smdsp/v34_info.h>

#define GAP_DB 7.0

const int v34_rule_rmin[6] = { 1, 2, 2, 2, 2, 2 }, v34_rule_rmax[6] = { 9, 11, 11, 12, 13, 14 };

static double preemph_db(int idx, int r, int high, double f)
{
	return smdsp_v34_preemph_db10(idx, r, high, (int)lround(f)) / 10.0;
}

static double overlap(int m, double lo, double hi)
{
	double a = fmax(150.0 * m - 75, lo), b = fmin(150.0 * m + 75, hi);

	return b > a ? b - a : 0;
}

int v34_rule_rate(const struct v34_truth *t, int r, int high, int pe, double *snr_db)
{
	double s = smdsp_v34_symrate_mbaud(r) / 1000.0, fc = smdsp_v34_carrier_mhz(r, high) / 1000.0;
	double lo = round(fc) - floor(round(s) / 2), hi = round(fc) + floor(round(s) / 2);
	double norm = 0, sw = 0, bits = 0, snr, b;
	int m, rate;

	for (m = 1; m <= 25; m++) {
		double w = overlap(m, lo, hi);

		sw += w;
		norm += w * pow(10, preemph_db(pe, r, high, 150 * m) / 10);
	}
	norm /= sw;
	for (m = 1; m <= 25; m++) {
		double w = overlap(m, lo, hi);

		if (w)
			bits += w * log2(1 + t->snr[m] * pow(10, preemph_db(pe, r, high, 150 * m) / 10) /
					     norm * 3150 / round(s));
	}
	snr = pow(2, bits / (hi - lo)) - 1;
	if (snr_db)
		*snr_db = 10 * log10(snr);
	b = log2(1 + snr / pow(10, GAP_DB / 10));
	rate = (int)floor(b * s / 2400 + 1e-9);
	if (rate > v34_rule_rmax[r])
		rate = v34_rule_rmax[r];
	if (rate < v34_rule_rmin[r])
		rate = 0;
	return rate;
}

int v34_rule_preemph(const struct v34_truth *t, int r, int high)
{
	double s = round(smdsp_v34_symrate_mbaud(r) / 1000.0), fc = round(smdsp_v34_carrier_mhz(r, high) / 1000.0);
	double lo = fc - floor(s / 2), hi = fc + floor(s / 2), best = 0;
	int i, m, pick = 0;

	for (i = 0; i <= 10; i++) {
		double sw = 0, sx = 0, sxx = 0, var;

		for (m = 1; m <= 25; m++) {
			double w = overlap(m, lo, hi), x;

			if (!w)
				continue;
			/* the channel's gain in tenths of a dB, as the receiver rounds it */
			x = round(t->gain_db[m] * 10) + preemph_db(i, r, high, 150 * m) * 10;
			sw += w;
			sx += w * x;
			sxx += w * x * x;
		}
		var = sxx / sw - (sx / sw) * (sx / sw);
		if (!i || var < best - 1e-9) {
			best = var;
			pick = i;
		}
	}
	return pick;
}

void v34_rule_truth(const struct line_cfg *cfg, int level_dbm0_10, struct v34_truth *t)
{
	double tone_ms = pow(32767.0 * pow(10, -3.14 / 20), 2) / 2 * pow(10, level_dbm0_10 / 100.0) / 21;
	double noise150 = cfg->noise_dbm0 > -200 ?
			  pow(32767.0 * pow(10, -3.14 / 20), 2) / 2 * pow(10, cfg->noise_dbm0 / 10) * 150 / 4000 :
			  1e-9;
	struct chan ch;
	int m;

	chan_init(&ch, cfg->channel);
	for (m = 1; m <= 25; m++) {
		double complex h = chan_response(&ch, 150.0 * m);

		t->gain_db[m] = 20 * log10(cabs(h)) - cfg->loss_db;
		/* the line's noise plus the 16-bit rounding of the received samples (1/12 LSB^2 over 4 kHz) */
		t->snr[m] = tone_ms * pow(10, t->gain_db[m] / 10) / (noise150 + 150.0 / 4000 / 12);
		t->phase[m] = carg(h);
	}
}

void v34_rule_line_rates(const struct line_cfg *cfg, int level_dbm0_10, int rates[6])
{
	struct v34_truth t;
	int r, hi;

	v34_rule_truth(cfg, level_dbm0_10, &t);
	for (r = 0; r < 6; r++) {
		rates[r] = 0;
		for (hi = 0; hi < (r == 5 ? 1 : 2); hi++) {
			int rate = v34_rule_rate(&t, r, hi, v34_rule_preemph(&t, r, hi), NULL);

			if (rate > rates[r])
				rates[r] = rate;
		}
	}
}

void v34_info0_upto(int max_baud, struct smdsp_v34_info0 *i)
{
	memset(i, 0, sizeof(*i));
	i->power_reduction = 1;
	i->c1664 = 1;
	i->rate_2743 = max_baud >= 2743;
	i->rate_2800 = max_baud >= 2800;
	i->low_3000 = max_baud >= 3000;
	i->high_3000 = max_baud >= 3000;
	i->low_3200 = max_baud >= 3200;
	i->high_3200 = max_baud >= 3200;
	i->rate_3429 = max_baud >= 3429;
	i->allow_3429 = max_baud >= 3429;
}
