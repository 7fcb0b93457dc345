/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The line's resamplers, liquid-dsp's filters behind two small wrappers:
 *  - sml_poly: integer factor L between the 8 kHz line and a JACK server
 *    at L * 8 kHz (48 kHz: L = 6), firinterp and a firfilt computed on
 *    every L-th input, one Kaiser prototype, fed and drained one sample
 *    at a time so that any period size works;
 *  - sml_drift: a fractional-rate converter for a sample-clock offset
 *    (ppm), resamp_rrrf;
 *  - sml_link: one direction between two sample clocks, the sender
 *    pushing any count and the receiver pulling exactly what it needs
 *    (sml_drift and a queue): the wire's way back to the modem and the
 *    dsp tests' in-memory line.
 * All of it is a pure function of the samples pushed: no clock, no state
 * shared between instances, the same output bit for bit on every run.
 */
#ifndef SML_RESAMPLE_H
#define SML_RESAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#define SML_POLY_TAPS 24	/* taps per phase: 144 at 48 kHz */
#define SML_POLY_MAX_L 16

struct firinterp_rrrf_s;
struct firfilt_rrrf_s;
struct resamp_rrrf_s;

struct sml_poly {
	int L;
	struct firfilt_rrrf_s *dec;	/* NULL when L == 1 */
	struct firinterp_rrrf_s *itp;
	int dphase;			/* high-rate inputs since the last output */
	float iout[SML_POLY_MAX_L];	/* high-rate outputs of the last line sample */
	int iphase;			/* next of them, L means "need input" */
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
/* delay of a round trip (interpolate, then decimate), in line samples */
double sml_poly_delay(const struct sml_poly *p);

#define SML_DRIFT_DELAY 16	/* the signal's delay through sml_drift, input samples */

struct sml_drift {
	struct resamp_rrrf_s *q;
	uint64_t dropped;	/* outputs that did not fit (never, with room enough) */
};

/* ratio = input rate / output rate, 0.5 to 2 */
int sml_drift_init(struct sml_drift *d, double ratio);
void sml_drift_free(struct sml_drift *d);
/*
 * Push n inputs, write up to max outputs, return the number written;
 * max = n / ratio + 2 is always enough.
 */
int sml_drift_process(struct sml_drift *d, const double *in, int n,
		      double *out, int max);

struct sml_link {
	bool drift;		/* false: the clocks agree, samples pass as they are */
	struct sml_drift d;
	double *q;
	int cap, head, len;
	uint64_t underruns;	/* samples pulled from an empty queue (silence) */
};

/*
 * ratio as for sml_drift; prefill: samples of silence queued at the start
 * (the receiver's margin against the count rounding of the conversion).
 * The signal's delay is prefill receiver samples, plus SML_DRIFT_DELAY
 * when ratio != 1.
 */
int sml_link_init(struct sml_link *l, double ratio, int prefill);
void sml_link_free(struct sml_link *l);
int sml_link_push(struct sml_link *l, const double *in, int n);
/* exactly n samples; silence (and an underrun each) when the queue is empty */
void sml_link_pull(struct sml_link *l, double *out, int n);

#endif /* SML_RESAMPLE_H */
