/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Our own resamplers, both linear-phase windowed-sinc (Kaiser) FIRs whose
 * coefficients are computed once at start-up:
 *  - sml_poly: integer factor L between the 8 kHz line and a JACK server
 *    at L * 8 kHz (48 kHz: L = 6), polyphase in both directions, with the
 *    phase carried across calls so any period size works;
 *  - sml_drift: a fractional-rate converter for the wire's sample-clock
 *    offset (ppm), positions kept in 32.32 fixed point so the output is a
 *    pure function of the input.
 */
#ifndef SML_RESAMPLE_H
#define SML_RESAMPLE_H

#include <stdint.h>

#define SML_POLY_TAPS 24	/* taps per phase: 144 at 48 kHz */

struct sml_poly {
	int L;
	int ntaps;		/* L * SML_POLY_TAPS */
	double *h;		/* prototype low-pass at L * 8 kHz, DC gain 1 */
	/* decimator (L*8k -> 8k) */
	double *dhist;		/* last ntaps inputs, circular */
	int dpos;
	int dphase;		/* inputs since the last output */
	/* interpolator (8k -> L*8k) */
	double ihist[SML_POLY_TAPS];
	int iphase;		/* next output phase, L means "need input" */
};

int sml_poly_init(struct sml_poly *p, int L);
void sml_poly_free(struct sml_poly *p);
/* push one high-rate sample; returns 1 and sets *out when a line sample is due */
int sml_poly_decim(struct sml_poly *p, float in, double *out);
/* true when the interpolator needs the next line sample before sml_poly_interp */
int sml_poly_interp_need(const struct sml_poly *p);
void sml_poly_interp_push(struct sml_poly *p, double line_sample);
/* one high-rate output sample (call sml_poly_interp_need first) */
float sml_poly_interp(struct sml_poly *p);
/* group delay of one pass, in line samples */
double sml_poly_delay(const struct sml_poly *p);

#define SML_DRIFT_TAPS 16
#define SML_DRIFT_PHASES 256
#define SML_DRIFT_HIST 64

struct sml_drift {
	uint64_t step;		/* input samples per output, 32.32 */
	uint64_t pos;		/* position of the next output, 32.32 */
	int64_t nin;		/* inputs received */
	double hist[SML_DRIFT_HIST];
	double (*tab)[SML_DRIFT_TAPS];	/* [PHASES + 1][TAPS] */
};

/* ratio = input rate / output rate */
int sml_drift_init(struct sml_drift *d, double ratio);
void sml_drift_free(struct sml_drift *d);
/* push n inputs, write up to max outputs, return the number written */
int sml_drift_process(struct sml_drift *d, const double *in, int n,
		      double *out, int max);

#endif /* SML_RESAMPLE_H */
