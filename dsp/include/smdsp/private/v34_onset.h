/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: where an echo of ours begins, for V.34's cancellers
 * (v34.c's near echo in phase 2, v34_train_rx.c's far echo in the
 * training) and V.32bis's (v32bis.c's far echo in its training). Inline:
 * each user embeds one in its state.
 *
 * A piece of what we sent (the template, up to SMDSP_V34_ONSET_K samples) is
 * matched against what we hear at every lag from 'from' on: the
 * correlation's square, normalised by both windows' energy (rho, Q12: 4096
 * for an echo alone and undistorted). With segs segments the squares of the
 * segments' correlations are summed (and so their energies): an echo
 * shifted in frequency (a far echo through FDM carriers, up to 7 Hz) turns
 * by a quarter turn over 512 samples, and its correlations over the whole
 * template would partly cancel. Nothing but our echo correlates with
 * the template (the far end's signal is other data, in V.34's phase 2 in
 * another band too; the noise is noise), so rho stays near 2 segs / len
 * until the echo comes. Its envelope is the square plus that of q samples before
 * (a quarter of the carrier's period: the correlation turns at the
 * carrier). The first lag at RHO_ON or more (and at 'rise' times the
 * floor: the lags below floor_to, before the echo can be back; or, with
 * cfar set, at cfar times the mean of the lags before it) starts the
 * peak's search; the peak is the most within span lags after it (a
 * template with a structure, as V.34's INFO0 with its runs of reversals,
 * has sidelobes up to its length before the echo's peak), and ONSET_AFTER
 * lags after the peak; the onset is the earliest lag from which the lags
 * to the peak stay above 1/ONSET_FRAC of it, but for nulls of ONSET_GAP
 * lags at most (the correlation's envelope beats where the template's
 * spectrum has two lines): a symbol or so before the echo's first tap, as
 * the pulse spreads the rise. Nothing found by lag 'to': not found.
 *
 * On a line without noise the windows before the echo hold nothing, or
 * the first few samples of its rise after a silence: normalised by an
 * energy that small (and truncated to a few units), rho jumps at random
 * (a lag at 0.25 in silence, then the onset 590 samples early: the search's
 * peak taken among those, the real one past its span). With ex_shift set,
 * a window's energy counts as at least its template segment's >> ex_shift:
 * an echo that far below what we sent is none for this search.
 */
#ifndef SMDSP_PRIVATE_V34_ONSET_H
#define SMDSP_PRIVATE_V34_ONSET_H

#include <smdsp/compat.h>

#define SMDSP_V34_ONSET_K 1024		/* the longest template, samples */
#define SMDSP_V34_ONSET_HIST 1024	/* rho of the last lags kept (a power of 2) */
#define SMDSP_V34_ONSET_RHO_ON 614	/* 0.15 in Q12: 20 times the noise's mean */
/* lags searched after the peak for a higher one */
#define SMDSP_V34_ONSET_AFTER 64
#define SMDSP_V34_ONSET_FRAC 8
#define SMDSP_V34_ONSET_GAP 8		/* lags under 1/ONSET_FRAC of the peak bridged */
#define SMDSP_V34_ONSET_CFAR_N 64	/* lags averaged at least before the mean counts */

#define SMDSP_V34_ONSET_SEGS 4		/* at most */

struct smdsp_v34_onset {
	int16_t tpl[SMDSP_V34_ONSET_K];		/* what we sent */
	int16_t x[2 * SMDSP_V34_ONSET_K];	/* the last heard, stored twice */
	uint16_t rho[SMDSP_V34_ONSET_HIST];
	int64_t c[SMDSP_V34_ONSET_SEGS][4];	/* each segment's correlation at the last lags */
	uint64_t etpl[SMDSP_V34_ONSET_SEGS];	/* each segment's energy in the template */
	unsigned int len, segs, span, ntpl, pos, q, rise;
	uint32_t n;				/* samples heard */
	uint32_t from, to, floor_to;
	uint32_t first, peak_at;
	unsigned int peak, floor;
	unsigned int rho_on;			/* the least rho that starts the search (RHO_ON) */
	unsigned int cfar;			/* and times the mean of the lags before (0: not) */
	unsigned int ex_shift;			/* a window's energy at least its template's >> this (0: none) */
	uint64_t sum;				/* rho summed over the lags before, and counted */
	uint32_t nsum;
	bool on;
	int32_t found;				/* the onset's lag, -1: not (yet) found */
};

/*
 * len: the template's samples (a multiple of 4, at most ONSET_K); segs: 1,
 * 2 or 4; span: the lags searched for the peak after the first (at most
 * ONSET_HIST / 2)
 */
static inline void smdsp_v34_onset_start(struct smdsp_v34_onset *o, unsigned int len, unsigned int segs,
					 unsigned int span, unsigned int q, uint32_t from, uint32_t to,
					 uint32_t floor_to, unsigned int rise)
{
	memset(o, 0, sizeof(*o));
	o->len = len > SMDSP_V34_ONSET_K ? SMDSP_V34_ONSET_K : len & ~3u;
	o->segs = segs == 1 || segs == 2 ? segs : SMDSP_V34_ONSET_SEGS;
	o->span = span > SMDSP_V34_ONSET_HIST / 2 ? SMDSP_V34_ONSET_HIST / 2 : span;
	o->q = q < SMDSP_ARRAY_SIZE(o->c[0]) ? q : SMDSP_ARRAY_SIZE(o->c[0]) - 1;
	o->from = from;
	o->to = to;
	o->floor_to = floor_to;
	o->rise = rise;
	o->rho_on = SMDSP_V34_ONSET_RHO_ON;
	o->found = -1;
	o->on = true;
}

/* the template's next sample */
static inline void smdsp_v34_onset_tpl(struct smdsp_v34_onset *o, int16_t v)
{
	if (o->ntpl >= o->len)
		return;
	o->etpl[o->ntpl * o->segs / o->len] += (uint64_t)((int32_t)v * v);
	o->tpl[o->ntpl++] = v;
}

/* e / den in Q12, at most 65535 */
static inline unsigned int smdsp_v34_onset_ratio(uint64_t e, uint64_t den)
{
	uint64_t r;

	while (den >= 1ULL << 31) {
		den >>= 1;
		e >>= 1;
	}
	if (!den)
		return 0;
	if (e >= (uint64_t)den << 4)
		return 65535;
	r = smdsp_div_u64(e << 12, (uint32_t)den);
	return r > 65535 ? 65535 : (unsigned int)r;
}

/* the lag whose window is the last len samples heard */
static inline void smdsp_v34_onset_lag(struct smdsp_v34_onset *o, uint32_t lag)
{
	const int16_t *w = &o->x[o->pos];
	unsigned int k, j, rho, len = o->len / o->segs;
	uint64_t e = 0, den = 0;
	uint32_t on, kept, l;

	for (j = 0; j < o->segs; j++, w += len) {
		int64_t c = 0, a, b;
		uint64_t ex = 0;

		for (k = 0; k < len; k++) {
			c += (int32_t)o->tpl[j * len + k] * w[k];
			ex += (uint64_t)((int32_t)w[k] * w[k]);
		}
		if (o->ex_shift && ex < o->etpl[j] >> o->ex_shift)
			ex = o->etpl[j] >> o->ex_shift;
		for (k = SMDSP_ARRAY_SIZE(o->c[j]) - 1; k; k--)
			o->c[j][k] = o->c[j][k - 1];
		o->c[j][0] = c;
		/* a segment of 512 at most: |c| and the energies under 2^39, each term under 2^60 */
		a = c / 512;
		b = o->c[j][o->q] / 512;
		e += (uint64_t)(a * a) + (uint64_t)(b * b);
		den += (o->etpl[j] >> 9) * (ex >> 9);
	}
	rho = smdsp_v34_onset_ratio(e, den);
	o->rho[lag & (SMDSP_V34_ONSET_HIST - 1)] = (uint16_t)rho;
	if (lag < o->floor_to) {
		if (rho > o->floor)
			o->floor = rho;
		return;
	}
	if (!o->peak) {
		bool above = !o->cfar || (o->nsum >= SMDSP_V34_ONSET_CFAR_N &&
					   (uint64_t)rho * o->nsum >= o->cfar * o->sum);

		o->sum += rho;
		o->nsum++;
		if (rho >= o->rho_on && rho >= o->rise * o->floor && above) {
			o->peak = rho;
			o->peak_at = lag;
			o->first = lag;
		} else if (lag >= o->to) {
			o->on = false;
		}
		return;
	}
	if (rho > o->peak) {
		o->peak = rho;
		o->peak_at = lag;
	}
	if (lag - o->first < o->span || lag - o->peak_at < SMDSP_V34_ONSET_AFTER)
		return;
	/* back from the peak while rho stays up, across the envelope's nulls, within what is kept */
	on = o->peak_at;
	kept = SMDSP_V34_ONSET_HIST - 1 - (lag - o->peak_at);
	for (l = o->peak_at, k = 0; l > o->from && o->peak_at - l < kept && k <= SMDSP_V34_ONSET_GAP; l--) {
		if (SMDSP_V34_ONSET_FRAC * o->rho[(l - 1) & (SMDSP_V34_ONSET_HIST - 1)] >= o->peak) {
			on = l - 1;
			k = 0;
		} else {
			k++;
		}
	}
	o->found = (int32_t)on;
	o->on = false;
}

/* a sample heard (the first is lag 0's first); false once decided */
static inline bool smdsp_v34_onset_push(struct smdsp_v34_onset *o, int16_t v)
{
	if (!o->on)
		return false;
	o->x[o->pos] = v;
	o->x[o->pos + o->len] = v;
	o->pos = (o->pos + 1) % o->len;
	if (++o->n >= o->len && o->n - o->len >= o->from && o->ntpl == o->len)
		smdsp_v34_onset_lag(o, o->n - o->len);
	return o->on;
}

/*
 * The far echo's search in a canceller's training window (V.34's and
 * V.32bis's): the template is what goes into the canceller (TRN, scrambled:
 * no sidelobes, the peak within the far hybrid's response, FAR_SPAN), the
 * residual heard at every lag from FAR_BACK ahead of the near window's end
 * (near_taps) to 'to'; q a sample (a quarter of the carrier's period at
 * 1600-2000 Hz: 1.0-1.25 samples). A far echo dispersed over the far
 * hybrid and the line both ways peaks low: its search starts at FAR_RHO_ON
 * and FAR_CFAR times the mean of the lags before. The caller moves its far
 * window FAR_BACK ahead of an onset found.
 */
#define SMDSP_V34_ONSET_FAR_BACK 32
#define SMDSP_V34_ONSET_FAR_SPAN 128
#define SMDSP_V34_ONSET_FAR_RHO_ON 205	/* 0.05 in Q12, 5 times the noise's mean */
#define SMDSP_V34_ONSET_FAR_CFAR 8

static inline void smdsp_v34_onset_far_start(struct smdsp_v34_onset *o, unsigned int len, unsigned int near_taps,
					     uint32_t to)
{
	smdsp_v34_onset_start(o, len, SMDSP_V34_ONSET_SEGS, SMDSP_V34_ONSET_FAR_SPAN, 1,
			      near_taps - SMDSP_V34_ONSET_FAR_BACK, to, 0, 1);
	o->rho_on = SMDSP_V34_ONSET_FAR_RHO_ON;
	o->cfar = SMDSP_V34_ONSET_FAR_CFAR;
}

#endif /* SMDSP_PRIVATE_V34_ONSET_H */
