/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to dsp/: the state behind <smdsp/echo.h> (echo.c). The delay lines
 * and coefficients follow the struct in the same allocation, sized by the
 * configuration: a block that embeds the canceller allocates
 * smdsp_echo_size() bytes in its own create and calls smdsp_echo_init() on them.
 */
#ifndef SMDSP_PRIVATE_ECHO_H
#define SMDSP_PRIVATE_ECHO_H

#include <smdsp/echo.h>
#include <smdsp/fixmath.h>

/* Hilbert filter: 2 L + 1 taps, Hamming window; odd taps only, so L / 2 coefficients */
#define SMDSP_ECHO_HIL_L	SMDSP_ECHO_FAR_MIN
#define SMDSP_ECHO_HIL_N	(SMDSP_ECHO_HIL_L / 2)

/* the prediction-error filter that whitens the adaptation's input: order, update period */
#define SMDSP_ECHO_WP		4
#define SMDSP_ECHO_WPERIOD	1024

struct smdsp_echo {
	struct smdsp_echo_config cfg;
	enum smdsp_echo_adapt mode;
	int32_t mu_q16;			/* NLMS step of the mode */
	int32_t kp_q16, ki_q32;		/* phase loop gains of the mode (rad/rad, Q16 and Q32) */

	/* whitening: A(z) = 1 + sum wa[j] z^-(j+1), from the autocorrelation of tx */
	int32_t wa[SMDSP_ECHO_WP];	/* Q14 */
	int64_t r[SMDSP_ECHO_WP + 1];	/* tx autocorrelation, about 1024 samples */
	int16_t txh[SMDSP_ECHO_WP], rxh[SMDSP_ECHO_WP], dh[SMDSP_ECHO_WP], qh[SMDSP_ECHO_WP];
	int wcount;
	int age;			/* samples adapted in TRAIN */
	bool fixed;			/* the step set by smdsp_echo_set_step() */
	bool far_raw;			/* smdsp_echo_set_far_raw() */

	/* near canceller: x(n - k) = xn[npos + k], the line stored twice; wn: A x */
	int32_t *hn;			/* near taps, Q30 */
	int16_t *xn, *wn;		/* 2 near_taps each */
	int npos;
	int64_t pn, pnx;		/* sums of (A x)^2 and x^2 over the near window */
	int near_quiet;			/* zeros pushed in a row into xn and wn, up to near_taps */

	/* far canceller */
	int16_t *bulk;			/* the bulk delay: far_delay_max + 1 samples of tx */
	int blen, bpos;
	int far_delay;			/* as set; the line read at far_delay - HIL_L */
	int16_t *hil;			/* Hilbert input line, 2 (2 L + 1) */
	int hpos;
	int16_t hcoef[SMDSP_ECHO_HIL_N];	/* tap 2 i + 1 of the Hilbert filter, Q15 */
	int32_t *hf;			/* far taps, Q30 */
	int16_t *xf, *xq;		/* 2 far_taps: the delayed tx and its Hilbert transform */
	int16_t *wf, *wq;		/* 2 far_taps: the same whitened */
	int fpos;
	int64_t pf, pfx;		/* sums of wf^2 and xf^2 over the far window */
	int far_quiet;			/* zeros pushed in a row into xf, xq, wf and wq, up to far_taps */
	uint32_t theta;			/* far echo phase, 2^32 a turn */
	int64_t omega;			/* its step per sample, 2^48 a turn */
	int64_t pq;			/* power of the quadrature estimate, Q16 */
	int fhold;			/* TRAIN's samples left with the loop's frequency held */

	/* statistics */
	int64_t prx, pout;		/* mean squares, Q8, about 64 ms */
	int32_t eabs;			/* mean |error|, Q8, for the TRACK clip */
	int64_t py, pyf, pe;		/* mean squares of the near and far estimates and the error (TRACK's steps) */
	uint64_t samples;
};

size_t smdsp_echo_size(const struct smdsp_echo_config *cfg);
/* mem: smdsp_echo_size(cfg) zeroed bytes; returns it set up, or NULL on a bad config */
struct smdsp_echo *smdsp_echo_init(void *mem, const struct smdsp_echo_config *cfg);

#endif /* SMDSP_PRIVATE_ECHO_H */
