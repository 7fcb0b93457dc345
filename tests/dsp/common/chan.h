/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Telephone-band channel responses for the line model (test code, floating
 * point): cascades of Butterworth biquads (bilinear transform, pre-warped)
 * and a first-order roll-off, with their exact response for the tests to
 * compare against. The line (tests/dsp/common/line.c) puts one on both
 * directions with its cfg.channel, before the receiver's noise; or filter
 * what a modem sends with chan_process().
 */
#ifndef CHAN_H
#define CHAN_H
#include <stdint.h>
#include <complex.h>

enum chan_kind {
	CHAN_FLAT,		/* gain 1 */
	CHAN_TELEPHONE,		/* 200 Hz high-pass (2nd order), 3600 Hz low-pass (4th) */
	CHAN_LONG_LOOP,		/* 300 Hz HP (2nd), 3400 Hz LP (4th), a 1000 Hz pole: -9 dB at 3 kHz */
	CHAN_NARROW,		/* 400 Hz HP (4th), 2900 Hz LP (6th) */
	CHAN_BASS_CUT,		/* 600 Hz HP (2nd), 3700 Hz LP (4th) */
	CHAN_KINDS
};

#define CHAN_MAX_SECTIONS 8

struct chan {
	int n;
	double b[CHAN_MAX_SECTIONS][3], a[CHAN_MAX_SECTIONS][3];
	double z[CHAN_MAX_SECTIONS][2];
};

void chan_init(struct chan *c, enum chan_kind kind);
const char *chan_name(enum chan_kind kind);
/* in place, saturating to 16 bits */
void chan_process(struct chan *c, int16_t *x, int n);
/* one sample through */
double chan_filter(struct chan *c, double v);
/* H(e^(j 2 pi f / 8000)) */
double complex chan_response(const struct chan *c, double f);

#endif
