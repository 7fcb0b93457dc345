/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Echo paths of a telephone line (floating point, shared by smline's wire and
 * the pump tests' in-memory line, tests/dsp/common/line.c): the hybrid's
 * impulse response (the near echo) from ITU-T G.168 Annex D's eight echo-path
 * models, and a far echo: an FIR behind a bulk delay (the round trip),
 * shifted in frequency as FDM carrier systems shift it (a single-sideband
 * shift of the analytic signal, through a 255-tap Hilbert filter).
 */
#ifndef SML_ECHOPATH_H
#define SML_ECHOPATH_H

#include <stdint.h>

#define SML_HYBRID_MODELS 8		/* G.168 models m1 .. m8 */
#define SML_ECHO_HIL_DELAY 127		/* samples the frequency shift needs at least */

/* "m1".."m8" or "1".."8" -> 1..8; 0 for "none"/"off"; -1 when unknown */
int sml_hybrid_parse(const char *name);
/*
 * The taps of model m (1..8) scaled to an echo return loss of erl_db on white
 * noise (sum of squares 10^(-erl/10)); returns the number of taps (<= 128),
 * 0 for a bad model.
 */
int sml_hybrid_taps(int m, double erl_db, double *h, int max);

struct sml_echo_path {
	double h[128];
	int nh;
	double *line;		/* the source, delay + nh + Hilbert span */
	int len, pos;
	int delay;		/* samples before the FIR's first tap */
	double shift;		/* radians per sample, 0: no shift */
	double phase;
	double hil[2 * SML_ECHO_HIL_DELAY + 1];
	double *y;		/* the FIR's output, for the Hilbert filter */
	int ylen, ypos;
};

/*
 * An echo path: model m (1..8) at erl_db, behind delay samples, shifted by
 * shift_hz. With a shift the path is at least SML_ECHO_HIL_DELAY samples
 * long (the Hilbert filter's delay comes out of the bulk delay). -1 on a bad
 * model or no memory.
 */
int sml_echo_path_init(struct sml_echo_path *p, int m, double erl_db, int delay,
		       double shift_hz);
void sml_echo_path_free(struct sml_echo_path *p);
/* the next sample of the echo of x */
double sml_echo_path_step(struct sml_echo_path *p, double x);
/* the delay actually applied (delay, or the Hilbert filter's minimum) */
int sml_echo_path_delay(const struct sml_echo_path *p);

#endif /* SML_ECHOPATH_H */
