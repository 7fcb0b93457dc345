/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Echo canceller for a full-duplex modem (V.32bis, V.34): a near-echo FIR on
 * the transmitted samples and a far-echo FIR behind a bulk delay whose output
 * follows the far echo's frequency offset (phase roll). How it works: the top
 * of dsp/echo.c; measurements: doc/echo.md.
 */
#ifndef SMDSP_ECHO_H
#define SMDSP_ECHO_H

#include <smdsp/compat.h>

struct smdsp_echo_config {
	int near_taps;		/* near-echo FIR, samples at 8 kHz (e.g. 128 = 16 ms) */
	int far_taps;		/* far-echo FIR behind the bulk delay (0: no far canceller) */
	int far_delay_max;	/* largest bulk delay accepted, samples (600 ms round trip = 4800) */
};

/* limits of the configuration (create returns NULL beyond them) */
#define SMDSP_ECHO_MAX_TAPS	1024
#define SMDSP_ECHO_MAX_DELAY	16000	/* 2 s */

enum smdsp_echo_adapt { SMDSP_ECHO_FREEZE, SMDSP_ECHO_TRAIN, SMDSP_ECHO_TRACK };

/*
 * The NLMS steps, Q16 (each FIR normalised by its own input power): TRAIN
 * while the far end is silent (its step shifts gear: 1 for 0.5 s, this for
 * 0.5 s, then a half and a quarter of it), TRACK during data. The far
 * canceller's phase loop: natural frequency in mHz, damping 0.7, per mode.
 */
#define SMDSP_ECHO_TRAIN_MU_Q16	32768	/* 1/2 */
#define SMDSP_ECHO_TRACK_MU_Q16	32	/* 1/2048 */
#define SMDSP_ECHO_TRAIN_PLL_MHZ	8000
#define SMDSP_ECHO_TRACK_PLL_MHZ	200

/*
 * A full-duplex modem's schedule for the canceller in its training window
 * (V.32bis, V.34): the steps (Q16): its near and far FIRs each take
 * the step on the one residual, so 1 each (the canceller's own first gear)
 * is twice the stable step in total: measured, no convergence at all on
 * TRN. 1/2 each converges, but where the caller's window opens on a far
 * echo as loud as the near one (6 dB down, 300 ms, 7 Hz) the far taps
 * chase the echo's rotation faster than the phase loop can learn it, and
 * the loop runs off to 19 Hz; 1/4 lets the loop lead. Then smaller, so
 * that the line noise the taps caught fades before the data.
 */
#define SMDSP_ECHO_MODEM_MU1	16384
#define SMDSP_ECHO_MODEM_MU2	8192
#define SMDSP_ECHO_MODEM_MU3	2048
/*
 * and the far echo's phase loop narrows (natural frequency, mHz): the
 * frequency it ends with turns the far echo's phase for seconds before the
 * data's slow loop takes over (0.03 Hz wrong: 20 degrees in 2 s)
 */
#define SMDSP_ECHO_MODEM_PLL2	2000
#define SMDSP_ECHO_MODEM_PLL3	500
/*
 * In the data, SMDSP_ECHO_TRACK_PLL_MHZ: the far modem's signal is noise to
 * the far echo's phase detector, most where the far echo is weak (a far
 * window holding only the tail of a near echo let the frequency wander 1 Hz
 * in 10 s at TRACK's 0.2 Hz): a loop that keeps what TRAIN found, as FDM
 * offsets are steady.
 */

struct smdsp_echo;

/* NULL on a bad config (taps < 1 or > MAX, far_taps < 0, delay out of range) */
struct smdsp_echo *smdsp_echo_create(const struct smdsp_echo_config *cfg);
void smdsp_echo_free(struct smdsp_echo *ec);
/* coefficients, delay lines, phase loop and statistics cleared; mode TRAIN, far delay 0 */
void smdsp_echo_reset(struct smdsp_echo *ec);
/* one sample: tx is what we sent (the echo's source), rx what we received; returns rx minus the echo estimate */
int16_t smdsp_echo_process(struct smdsp_echo *ec, int16_t tx, int16_t rx);
void smdsp_echo_process_block(struct smdsp_echo *ec, const int16_t *tx, const int16_t *rx, int16_t *out,
			      int n);
/*
 * The bulk delay of the far canceller (the round trip measured at start-up):
 * its FIR covers tx delayed by samples .. samples + far_taps - 1 (at least by
 * SMDSP_ECHO_FAR_MIN, the Hilbert filter's delay). Clears the far canceller.
 * -EINVAL beyond far_delay_max or below 0.
 */
#define SMDSP_ECHO_FAR_MIN	32
int smdsp_echo_set_far_delay(struct smdsp_echo *ec, int samples);
/*
 * TRAIN: fast step while the far end is silent (on whitened data; entering
 * TRAIN restarts its gears); TRACK: slow step during data, with double-talk
 * robustness (the step scaled down where the far signal is louder than the
 * echo, the error clipped to twice its mean magnitude); FREEZE: no
 * adaptation (the far echo's phase keeps rolling at the frequency learnt).
 */
void smdsp_echo_set_adapt(struct smdsp_echo *ec, enum smdsp_echo_adapt mode);
/*
 * Whiten TRAIN's data by the spectrum of the next 1024 non-zero tx samples
 * (until then not at all), as at create: for a user whose tx was something
 * else before (a modem's tones ahead of its training signal).
 */
void smdsp_echo_learn_spectrum(struct smdsp_echo *ec);
/* another natural frequency (mHz, 1 .. SMDSP_ECHO_TRAIN_PLL_MHZ) for the phase loop, until the next set_adapt */
void smdsp_echo_set_loop(struct smdsp_echo *ec, int fn_mhz);
/*
 * The far FIR adapts on the raw residual and lines in TRAIN too, not the
 * whitened ones (kept through a reset): for a far echo that is weak (V.34's, 26-30 dB
 * down), whose band edges whitened taps would learn fast enough to chase its
 * rotation against the phase loop (dsp/echo.c); a loud one (V.32bis's, up
 * to 6 dB down) needs the whitening's speed there.
 */
void smdsp_echo_set_far_raw(struct smdsp_echo *ec, bool raw);
/* another NLMS step (Q16, 1..65535) for the current mode, until the next set_adapt (tests, tuning) */
void smdsp_echo_set_step(struct smdsp_echo *ec, int mu_q16);
/*
 * Measured ERLE so far, dB in Q8: rx power over output power, both averaged
 * over about 64 ms. It is the echo return loss enhancement while the far end
 * is silent; during data the far signal bounds it.
 */
int smdsp_echo_erle_db_q8(const struct smdsp_echo *ec);
/*
 * The far echo the far window holds, as a share of the output's power, Q12
 * (at most 65535; 32 and 64 ms averages of the far estimate's quadrature
 * part and the output, not updated while frozen), less the share its taps'
 * own gradient noise would give a window with no echo (mu / (2 - mu) at
 * the current step). In TRAIN (the far end silent) what the window takes
 * off the residual; in TRACK, the far echo over the far modem's signal.
 */
unsigned int smdsp_echo_far_share_q12(const struct smdsp_echo *ec);
/* the far echo's frequency offset the phase loop follows, mHz */
int smdsp_echo_far_freq_mhz(const struct smdsp_echo *ec);
/* multiply-accumulates per sample in the current mode (filters, update, Hilbert, whitening), for the cost figures */
int smdsp_echo_macs_per_sample(const struct smdsp_echo *ec);
int smdsp_echo_print(const struct smdsp_echo *ec, char *buf, size_t len);

#endif /* SMDSP_ECHO_H */
