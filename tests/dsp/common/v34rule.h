/* SPDX-License-Identifier: GPL-2.0 */
/*
 * v34_probe.c's rate rule in floating point, on a channel known exactly
 * (test code): what the probing analysis must choose.
 */
#ifndef V34RULE_H
#define V34RULE_H

/* the lowest and highest data rate / 2400 at each symbol rate */
extern const int v34_rule_rmin[6], v34_rule_rmax[6];

struct v34_truth {
	double gain_db[26];		/* 20 log10 |H| less the line's loss, per 150 Hz tone */
	double snr[26];			/* tone power over the noise in 150 Hz, linear */
	double phase[26];		/* arg H */
};

/*
 * The data rate / 2400 the rule gives symbol rate r on a carrier with
 * pre-emphasis pe; its SNR in dB in *snr_db unless NULL.
 */
int v34_rule_rate(const struct v34_truth *t, int r, int high, int pe, double *snr_db);
/* the pre-emphasis index that flattens the channel's gain best */
int v34_rule_preemph(const struct v34_truth *t, int r, int high);

struct line_cfg;
/* the truth of the line model's channel, loss and noise for tones sent at level_dbm0_10 (tenths of dBm0) */
void v34_rule_truth(const struct line_cfg *cfg, int level_dbm0_10, struct v34_truth *t);
/*
 * The data rate / 2400 the rule gives each symbol rate on its better
 * carrier, for the line model's channel, loss and noise and tones sent at
 * level_dbm0_10 (tenths of dBm0): what phase 2 over that line must choose.
 */
void v34_rule_line_rates(const struct line_cfg *cfg, int level_dbm0_10, int rates[6]);

struct smdsp_v34_info0;
/* INFO0 offering every symbol rate up to max_baud on both carriers, 1664 points, power reduction */
void v34_info0_upto(int max_baud, struct smdsp_v34_info0 *i);

#endif
