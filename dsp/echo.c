// SPDX-License-Identifier: GPL-2.0
/*
 * Echo canceller for a full-duplex QAM modem (V.32bis, V.34).
 *
 * What comes back on the receive wire is the far modem's signal plus two
 * echoes of our own: the near echo (the local hybrid, a few ms) and the far
 * echo (the far hybrid, behind the round trip of the connection, up to
 * 600 ms, and shifted in frequency by up to 7 Hz by FDM carrier systems on
 * the way, so its phase rolls). Both are linear in what we sent, so:
 *
 *  - the near canceller is an FIR of near_taps taps on the transmitted
 *    samples x(n - k), k = 0 .. near_taps - 1;
 *  - the far canceller is an FIR of far_taps taps on x delayed by the bulk
 *    delay D (smdsp_echo_set_far_delay(), the round trip measured at the
 *    start-up). A real FIR cannot follow a frequency shift, so its output is
 *    made complex: the same taps h run over the delayed x and over its
 *    Hilbert transform x^ (a 65-tap Hamming-windowed Hilbert filter, within
 *    -51 dB of ideal over 300-3700 Hz), yI = sum h x, yQ = sum h x^, and the
 *    estimate is Re{(yI + j yQ) e^{j theta}} = yI cos theta - yQ sin theta:
 *    the analytic signal of the echo estimate, rotated. That is exactly a
 *    single-sideband frequency shift of the FIR's output, the impairment the
 *    line applies. theta comes from a second-order phase loop on the
 *    residual: with the quadrature estimate q = yI sin + yQ cos, a small
 *    phase error d leaves e = -d q in the residual, so -e q / E[q^2] is the
 *    phase error. The loop divides by E[q^2] + E[e^2] instead, which weighs
 *    its updates down while the far taps are still far from the echo (e
 *    large) or there is no far echo at all (q small).
 *  - Both FIRs adapt by normalized LMS on the one residual
 *    e = rx - near - far: h += mu e u / (sum u^2 + delta), u the FIR's own
 *    regressor (x for the near FIR, x cos - x^ sin for the far one) and the
 *    power of its own window, so each converges at the rate NLMS theory gives
 *    for its step.
 *  - TRAIN (the far end silent: e is the echo alone). A modem's signal is
 *    band-limited, and NLMS converges slowly on what little tx has at the
 *    band edges (the eigenvalue spread): the residual those modes leave
 *    shrinks only as 1/n. So TRAIN adapts on whitened data: the
 *    prediction-error filter A of tx (order 4, Levinson-Durbin on tx's
 *    autocorrelation over its first 1024 samples, with a white floor 27 dB
 *    down that bounds A's gain) is applied to tx and rx alike; the echo path
 *    h is the same between A x and A rx (A rx = h * A x + A noise), and NLMS
 *    on A x converges as on white input. The whitened lines are kept beside
 *    the raw ones (the output is always rx minus h on the raw lines) and
 *    recomputed from them whenever A changes or TRAIN starts again, so that
 *    both sides of the whitened residual come from the same A. The step
 *    shifts gear: 1 for the first 0.5 s of TRAIN, 1/2 for the next 0.5 s,
 *    then 1/4 and 1/8 (misadjustment mu / (2 - mu): -12 dB of the line noise
 *    at the end), and a fast phase loop (8 Hz natural frequency). A user
 *    whose far echo is weak (V.34's) has the far FIR adapt on the raw lines
 *    instead (smdsp_echo_set_far_raw()): whitened, its taps at the band's
 *    edges chase the echo's rotation against the phase loop.
 *    That user's loop also holds its frequency for TRAIN's first FREQ_HOLD
 *    samples with a far window to adapt (its phase still follows): the
 *    taps' start-up transient (the near echo not yet cancelled, the far
 *    taps overshooting to twice their final energy) biases the detector
 *    (-1.6 Hz found for an echo at 0 Hz 800 samples in), and integrated,
 *    that bias pulled V.34's far echoes at +5..+7 Hz behind far hybrids
 *    whose band edges lag (G.168's m2, m3) 2-4 Hz the other way, from
 *    where the loop locked on the image. Not again when the far window
 *    moves: the near echo is cancelled by then, and a move late in a long
 *    round trip's window left the loop too little of it (test_v34_path's
 *    call modem 2600 samples behind its lead: ERLE 17.5 dB). A loud
 *    far echo (V.32bis's, 6-15 dB down) outweighs the bias, and its loop
 *    must lead its taps from the start: held, 10 of test_v32bis_echo's
 *    and test_v32bis_path's checks failed.
 *  - TRACK (during data, where the far modem's signal dominates e and is
 *    noise to the canceller): plain NLMS (whitening would amplify that
 *    noise where tx is weak) with mu = 1/2048, so that the coefficient noise
 *    it leaves (mu / (2 - mu) of the far signal's power, -36 dB) stays below
 *    what the receiver needs (V.34 asks for 1/65536 with
 *    smdsp_echo_set_step(): its receiver needs 40 dB); where the far signal
 *    is louder than an FIR's echo, that FIR's step shrinks by their power
 *    ratio (its own estimate's over the residual's, in Q24), so that the
 *    coefficient noise stays mu / 2 of its echo's power however loud the far
 *    end talks, and a far FIR with no far echo to cancel stands still
 *    rather than random-walking on the far signal (its taps' energy grew
 *    fivefold in 100 s of V.34 data, the far signal's noise added to the
 *    receiver's error for as long as the call lasted); the error clipped to
 *    twice its mean magnitude, so that a burst (double talk) cannot throw
 *    the taps off; with a far FIR the two FIRs update on alternate samples (the same
 *    step per update: the same misadjustment, half the speed, half the
 *    cost); a slow phase loop (0.2 Hz) whose detector is normalised by the
 *    far echo alone (the far signal in e would otherwise scale its gain
 *    down). FREEZE adapts nothing; the phase keeps rolling at the frequency
 *    learnt.
 *  - The phase loop sleeps while the far estimate is 45 dB below rx (no far
 *    echo, or a far window that is empty), and its frequency leaks back to
 *    zero then. The far window never starts inside the near one: a far echo
 *    closer than near_taps is the near FIR's.
 *
 * Silence costs little: while a window's lines hold only zeros (nothing
 * sent within its span: a modem listening for the answer, or silent in its
 * start-up), its dot products are 0 and its update adds nothing, so neither
 * is computed; the output is the same to the bit.
 *
 * Fixed point. Samples are int16, taps int32 in Q30 within +-1.0, products
 * summed in int64 (taps x 2^15 x 2^30 < 2^56), the estimate and the residual
 * carried in Q8 (e clipped to +-2^16 samples). The NLMS gain mu e / P is one
 * int64 division per FIR and sample (the denominator brought below 2^31 first,
 * so that the kernel's div_s64() does it), in Q46, clipped to 2^31 (2^30 for
 * the far FIR) and split into a 15-bit (14-bit) mantissa and a shift, so
 * that the tap update is 32-bit arithmetic: mantissa x sample < 2^30, a step
 * under 1.0, a tap clipped back to +-1.0 after it. The phase is a uint32
 * (2^32 a turn), its step per sample 2^48 a turn. The Hilbert taps come from
 * smdsp_cos() at create time (no table).
 *
 * Cost per sample (smdsp_echo_macs_per_sample(), for the mode): FREEZE
 * near_taps + 2 far_taps multiply-adds and 16 for the Hilbert filter; TRACK
 * half the taps again for the update; TRAIN twice the filters (raw and
 * whitened) plus the full update and 20 for the whitening. Two int64
 * divisions. Memory: 4 bytes per tap, 8 per near tap and 16 per far tap of
 * delay lines, 2 per sample of bulk delay (14.3 KB for 128 + 128 taps and
 * 600 ms).
 */
#include <smdsp/private/echo.h>

#define HIL_M		(2 * SMDSP_ECHO_HIL_L + 1)
#define DELTA_POWER	1024		/* regularisation: per tap, an rms of 32 (-54 dBm0) */
#define G_MAX		0x7fffffffLL	/* the gain's clip: a tap moves less than 1.0 a sample */
#define H_LIM		(1 << 30)	/* the taps' range, +-1.0 */
#define E_MAX		(1 << 24)	/* the residual's clip, Q8: 2^16 samples */
#define Q_MAX		(1 << 24)
#define OMEGA_MAX	(20LL * (1LL << 48) / SMDSP_RATE)	/* 20 Hz */
#define TWO_PI_Q24	105414357LL	/* 2 pi 2^24 */
#define TURN_PER_RAD	683565276LL	/* 2^32 / (2 pi) */
#define GEAR_LEN	4096		/* samples per gear of TRAIN's step */
/*
 * The phase detector's clip, Q16 radians: pi/2 while e is the echo's own
 * residual (TRAIN). In TRACK e is mostly the far modem's signal, 20-30 dB
 * over V.34's far echo: the detector's noise alone is 10-30 radians a
 * sample, so a clip at pi/2 made it a limiter whose gain fell with the far
 * signal's level, and the loop's real bandwidth with it, unknown (the phase
 * wandered 10-15 degrees for seconds at a nominal 0.2 Hz, and narrower
 * nominal loops could not pull in TRAIN's last 0.01 Hz). There, for the
 * user whose far echo is weak (far_raw), it stays linear to about 100
 * radians: the loop is as wide as its gains say, and its averaging, not the
 * clip, takes the noise out. A loud far echo (V.32bis's) keeps pi/2: its
 * retrain over a 2-wire line and a far line of test_v32bis_path's failed
 * without it.
 */
#define PD_MAX		102943
#define PD_TRACK_MAX	(64LL * PD_MAX)
#define TRACK_CLIP_MIN	(64 << 8)	/* below this the clip would stop tracking a quiet line */
/* far_raw's TRAIN samples with the loop's frequency held (the whole loop held 1000, 1500: 3, 1 lost) */
#define FREQ_HOLD	2048

/* num / den for den > 0, den first brought below 2^31 (div_s64() in the kernel) */
static int64_t div_norm(int64_t num, int64_t den)
{
	int sh = 0;

	if (den <= 0)
		return 0;
	while ((den >> sh) > 0x7fffffffLL)
		sh++;
	return smdsp_div_s64(num >> sh, (int32_t)(den >> sh));
}

static int64_t clamp64(int64_t v, int64_t lim)
{
	if (v > lim)
		return lim;
	if (v < -lim)
		return -lim;
	return v;
}

static bool config_ok(const struct smdsp_echo_config *cfg)
{
	return cfg && cfg->near_taps >= 1 && cfg->near_taps <= SMDSP_ECHO_MAX_TAPS &&
	       cfg->far_taps >= 0 && cfg->far_taps <= SMDSP_ECHO_MAX_TAPS &&
	       cfg->far_delay_max >= 0 && cfg->far_delay_max <= SMDSP_ECHO_MAX_DELAY;
}

/* bytes of delay lines and taps after the struct */
static size_t arrays_size(const struct smdsp_echo_config *cfg)
{
	size_t n = cfg->near_taps, f = cfg->far_taps, s;

	s = n * sizeof(int32_t) + 4 * n * sizeof(int16_t);
	if (f)
		s += f * sizeof(int32_t) + 8 * f * sizeof(int16_t) +
		     (cfg->far_delay_max + 1 + 2 * HIL_M) * sizeof(int16_t);
	return s;
}

size_t smdsp_echo_size(const struct smdsp_echo_config *cfg)
{
	if (!config_ok(cfg))
		return 0;
	return sizeof(struct smdsp_echo) + arrays_size(cfg);
}

/* The loop gains for a natural frequency of fn_mhz, damping 0.7. */
static void set_loop(struct smdsp_echo *ec, int fn_mhz)
{
	int64_t wn_q24 = smdsp_div_s64((int64_t)fn_mhz * TWO_PI_Q24, 1000 * SMDSP_RATE);

	ec->kp_q16 = (int32_t)(smdsp_div_s64(wn_q24 * 14, 10) >> 8);
	ec->ki_q32 = (int32_t)((wn_q24 * wn_q24) >> 16);
}

static void rewhiten(struct smdsp_echo *ec);

void smdsp_echo_set_adapt(struct smdsp_echo *ec, enum smdsp_echo_adapt mode)
{
	bool rew = mode == SMDSP_ECHO_TRAIN && ec->mode != SMDSP_ECHO_TRAIN;

	if (rew) {
		ec->age = 0;
		ec->fhold = FREQ_HOLD;
	}
	ec->mode = mode;
	if (rew && ec->wcount >= SMDSP_ECHO_WPERIOD)
		rewhiten(ec);
	ec->fixed = false;
	if (mode == SMDSP_ECHO_TRACK) {
		ec->mu_q16 = SMDSP_ECHO_TRACK_MU_Q16;
		set_loop(ec, SMDSP_ECHO_TRACK_PLL_MHZ);
	} else {
		ec->mu_q16 = mode == SMDSP_ECHO_TRAIN ? SMDSP_ECHO_TRAIN_MU_Q16 : 0;
		set_loop(ec, SMDSP_ECHO_TRAIN_PLL_MHZ);
	}
}

void smdsp_echo_set_far_raw(struct smdsp_echo *ec, bool raw)
{
	ec->far_raw = raw;
}

void smdsp_echo_set_step(struct smdsp_echo *ec, int mu_q16)
{
	if (mu_q16 >= 1 && mu_q16 <= 65535 && ec->mode != SMDSP_ECHO_FREEZE) {
		ec->mu_q16 = mu_q16;
		ec->fixed = true;
	}
}

/*
 * The Hilbert filter's odd taps: 2 / (pi k) times a Hamming window
 * 0.54 + 0.46 cos(pi k / L), k = 1, 3, .. L - 1, in Q15.
 */
static void hilbert_init(struct smdsp_echo *ec)
{
	const int64_t two_over_pi_q30 = 683565276LL;
	int i;

	for (i = 0; i < SMDSP_ECHO_HIL_N; i++) {
		int k = 2 * i + 1;
		/* cos(pi k / L): a turn is 2 L steps of 2^32 / (2 L) */
		int32_t c = smdsp_cos((uint32_t)k * (uint32_t)(0x80000000u / SMDSP_ECHO_HIL_L));
		int64_t w_q15 = 17695 + ((int64_t)c * 15073 >> 15);	/* 0.54, 0.46 in Q15 */

		ec->hcoef[i] = (int16_t)smdsp_div_s64((two_over_pi_q30 * w_q15 >> 30) + k / 2, k);
	}
}

static void clear_far(struct smdsp_echo *ec)
{
	int f = ec->cfg.far_taps;

	if (!f)
		return;
	memset(ec->hf, 0, f * sizeof(int32_t));
	memset(ec->xf, 0, 2 * f * sizeof(int16_t));
	memset(ec->xq, 0, 2 * f * sizeof(int16_t));
	memset(ec->wf, 0, 2 * f * sizeof(int16_t));
	memset(ec->wq, 0, 2 * f * sizeof(int16_t));
	memset(ec->dh, 0, sizeof(ec->dh));
	memset(ec->qh, 0, sizeof(ec->qh));
	memset(ec->hil, 0, 2 * HIL_M * sizeof(int16_t));
	ec->fpos = 0;
	ec->hpos = 0;
	ec->pf = 0;
	ec->pfx = 0;
	ec->far_quiet = f;
	ec->theta = 0;
	ec->omega = 0;
	ec->pq = 0;
}

void smdsp_echo_reset(struct smdsp_echo *ec)
{
	int n = ec->cfg.near_taps;

	memset(ec->hn, 0, n * sizeof(int32_t));
	memset(ec->xn, 0, 2 * n * sizeof(int16_t));
	memset(ec->wn, 0, 2 * n * sizeof(int16_t));
	memset(ec->wa, 0, sizeof(ec->wa));
	memset(ec->r, 0, sizeof(ec->r));
	memset(ec->txh, 0, sizeof(ec->txh));
	memset(ec->rxh, 0, sizeof(ec->rxh));
	ec->wcount = 0;
	ec->npos = 0;
	ec->pn = 0;
	ec->pnx = 0;
	ec->near_quiet = n;
	if (ec->cfg.far_taps)
		memset(ec->bulk, 0, ec->blen * sizeof(int16_t));
	ec->bpos = 0;
	ec->far_delay = 0;
	clear_far(ec);
	ec->prx = 0;
	ec->pout = 0;
	ec->eabs = 0;
	ec->py = 0;
	ec->pyf = 0;
	ec->pe = 0;
	ec->samples = 0;
	ec->age = 0;
	ec->mode = SMDSP_ECHO_FREEZE;
	smdsp_echo_set_adapt(ec, SMDSP_ECHO_TRAIN);
}

struct smdsp_echo *smdsp_echo_init(void *mem, const struct smdsp_echo_config *cfg)
{
	struct smdsp_echo *ec = mem;
	char *p;
	int n, f;

	if (!mem || !config_ok(cfg))
		return NULL;
	n = cfg->near_taps;
	f = cfg->far_taps;
	ec->cfg = *cfg;
	p = (char *)(ec + 1);
	ec->hn = (int32_t *)p;
	p += n * sizeof(int32_t);
	if (f) {
		ec->hf = (int32_t *)p;
		p += f * sizeof(int32_t);
	}
	ec->xn = (int16_t *)p;
	p += 2 * n * sizeof(int16_t);
	ec->wn = (int16_t *)p;
	p += 2 * n * sizeof(int16_t);
	if (f) {
		ec->xf = (int16_t *)p;
		p += 2 * f * sizeof(int16_t);
		ec->xq = (int16_t *)p;
		p += 2 * f * sizeof(int16_t);
		ec->wf = (int16_t *)p;
		p += 2 * f * sizeof(int16_t);
		ec->wq = (int16_t *)p;
		p += 2 * f * sizeof(int16_t);
		ec->hil = (int16_t *)p;
		p += 2 * HIL_M * sizeof(int16_t);
		ec->bulk = (int16_t *)p;
		ec->blen = cfg->far_delay_max + 1;
	}
	hilbert_init(ec);
	smdsp_echo_reset(ec);
	return ec;
}

struct smdsp_echo *smdsp_echo_create(const struct smdsp_echo_config *cfg)
{
	size_t size = smdsp_echo_size(cfg);
	void *mem;

	if (!size)
		return NULL;
	mem = smdsp_alloc(size);
	if (!mem)
		return NULL;
	return smdsp_echo_init(mem, cfg);
}

void smdsp_echo_free(struct smdsp_echo *ec)
{
	smdsp_free(ec);
}

int smdsp_echo_set_far_delay(struct smdsp_echo *ec, int samples)
{
	if (samples < 0 || samples > ec->cfg.far_delay_max)
		return -EINVAL;
	ec->far_delay = samples;
	clear_far(ec);
	return 0;
}

/*
 * sum of h[k] x[k], Q30 x Q0; two taps a pass into two sums (exact: each
 * under 2^56), so that the products overlap rather than queue on one sum
 */
static int64_t dot(const int32_t *h, const int16_t *x, int n)
{
	int64_t a0 = 0, a1 = 0;
	int k;

	for (k = 0; k + 1 < n; k += 2) {
		a0 += (int64_t)h[k] * x[k];
		a1 += (int64_t)h[k + 1] * x[k + 1];
	}
	if (k < n)
		a0 += (int64_t)h[k] * x[k];
	return a0 + a1;
}

/* g as m 2^sh, |m| < 2^bits (sh <= 16 for |g| < 2^(bits + 16)) */
static int mant(int64_t g, int bits, int32_t *m)
{
	int64_t a = g < 0 ? -g : g;
	int sh = 0;

	while ((a >> sh) >= (1LL << bits))
		sh++;
	*m = (int32_t)(g >> sh);
	return sh;
}

/* a tap back within +-1.0: one test in the common case of a tap inside */
static inline int32_t h_clip(int32_t v)
{
	if ((uint32_t)v + H_LIM <= 2u * H_LIM)
		return v;
	return v > 0 ? H_LIM : -H_LIM;
}

/*
 * h[k] += (m x[k] - m2 y[k]) 2^(sh - 16), all in 32 bits: |m x| < 2^30 (or
 * each product < 2^29 for two), so the step is under 2^30 and a tap within
 * +-2^30 cannot overflow before it is clipped back.
 */
static void update(int32_t *h, const int16_t *x, const int16_t *y, int32_t m, int32_t m2, int sh, int n)
{
	int r = 16 - sh, k;
	int32_t rnd = r ? 1 << (r - 1) : 0;

	/* the near FIR's (no y) apart: no test of y per tap */
	if (!y) {
		for (k = 0; k < n; k++)
			h[k] = h_clip(h[k] + ((m * x[k] + rnd) >> r));
		return;
	}
	for (k = 0; k < n; k++)
		h[k] = h_clip(h[k] + ((m * x[k] - m2 * y[k] + rnd) >> r));
}

/* both sums over the same taps, in one pass, two taps at a time as dot() */
static void dot2(const int32_t *h, const int16_t *x, const int16_t *y, int n, int64_t *sx, int64_t *sy)
{
	int64_t ax0 = 0, ax1 = 0, ay0 = 0, ay1 = 0;
	int k;

	for (k = 0; k + 1 < n; k += 2) {
		int64_t h0 = h[k], h1 = h[k + 1];

		ax0 += h0 * x[k];
		ay0 += h0 * y[k];
		ax1 += h1 * x[k + 1];
		ay1 += h1 * y[k + 1];
	}
	if (k < n) {
		ax0 += (int64_t)h[k] * x[k];
		ay0 += (int64_t)h[k] * y[k];
	}
	*sx = ax0 + ax1;
	*sy = ay0 + ay1;
}

/*
 * A x for the newest x, h the last SMDSP_ECHO_WP inputs (shifted in); only
 * TRAIN uses it (0 otherwise: the lines are whitened again on the way back).
 */
static int16_t whiten(const struct smdsp_echo *ec, int16_t x, int16_t *h)
{
	int64_t acc = (int64_t)x * (1 << 14);
	int j;

	if (ec->mode != SMDSP_ECHO_TRAIN) {
		for (j = SMDSP_ECHO_WP - 1; j > 0; j--)
			h[j] = h[j - 1];
		h[0] = x;
		return 0;
	}
	for (j = 0; j < SMDSP_ECHO_WP; j++)
		acc += (int64_t)ec->wa[j] * h[j];
	for (j = SMDSP_ECHO_WP - 1; j > 0; j--)
		h[j] = h[j - 1];
	h[0] = x;
	return smdsp_sat16((int32_t)clamp64((acc + (1 << 13)) >> 14, 1 << 20));
}

/*
 * The prediction-error filter of tx from its autocorrelation (Levinson-Durbin
 * in Q30, the autocorrelation normalised to r0 = 1 plus 2^-9, a white floor
 * 27 dB down that bounds the filter's gain where tx has no energy).
 */
static void levinson(struct smdsp_echo *ec)
{
	int64_t r[SMDSP_ECHO_WP + 1], a[SMDSP_ECHO_WP + 1], t[SMDSP_ECHO_WP + 1], err, acc, k, r0 = ec->r[0];
	int i, j, sh = 0;

	if (r0 <= 0)
		return;
	while ((r0 >> sh) >= (1LL << 32))
		sh++;
	for (i = 0; i <= SMDSP_ECHO_WP; i++)
		r[i] = ec->r[i] >> sh;
	r0 = r[0];
	if (r0 <= 0)
		return;
	for (i = 1; i <= SMDSP_ECHO_WP; i++)
		r[i] = div_norm(clamp64(r[i], r0) * (1LL << 30), r0);
	r[0] = (1LL << 30) + (1LL << 21);
	a[0] = 1LL << 30;
	for (i = 1; i <= SMDSP_ECHO_WP; i++)
		a[i] = 0;
	err = r[0];
	for (i = 1; i <= SMDSP_ECHO_WP; i++) {
		acc = r[i];
		for (j = 1; j < i; j++)
			acc += (a[j] * r[i - j]) >> 30;
		k = clamp64(div_norm(-clamp64(acc, 1LL << 32) * (1LL << 30), err), (1LL << 30) - (1LL << 20));
		for (j = 1; j < i; j++)
			t[j] = a[j] + ((k * a[i - j]) >> 30);
		for (j = 1; j < i; j++)
			a[j] = clamp64(t[j], 1LL << 32);	/* +-4.0: a[j] r[] < 2^62 */
		a[i] = k;
		err -= (((k * k) >> 30) * err) >> 30;
		if (err <= 0)
			break;
	}
	for (j = 0; j < SMDSP_ECHO_WP; j++)
		ec->wa[j] = (int32_t)(a[j + 1] >> 16);
}

/*
 * A line of len samples stored twice, x(n - k) at base[pos + k]: its whitened
 * copy (at the same places in wbase) and power, from scratch.
 */
static int64_t rewhiten_line(const struct smdsp_echo *ec, const int16_t *base, int16_t *wbase, int pos,
			     int len)
{
	const int16_t *x = base + pos;
	int64_t p = 0;
	int k, j;

	for (k = 0; k < len; k++) {
		int64_t acc = (int64_t)x[k] * (1 << 14);
		int i = pos + k < len ? pos + k : pos + k - len;

		for (j = 0; j < SMDSP_ECHO_WP && k + j + 1 < len; j++)
			acc += (int64_t)ec->wa[j] * x[k + j + 1];
		wbase[i] = smdsp_sat16((int32_t)clamp64((acc + (1 << 13)) >> 14, 1 << 20));
		wbase[i + len] = wbase[i];
		p += (int32_t)wbase[i] * wbase[i];
	}
	return p;
}

/*
 * A new filter: the whitened lines again from the raw ones, so that they and
 * the whitened rx come from the same filter from the next sample on.
 */
static void rewhiten(struct smdsp_echo *ec)
{
	int f = ec->cfg.far_taps;

	ec->pn = rewhiten_line(ec, ec->xn, ec->wn, ec->npos, ec->cfg.near_taps);
	if (f) {
		ec->pf = rewhiten_line(ec, ec->xf, ec->wf, ec->fpos, f);
		rewhiten_line(ec, ec->xq, ec->wq, ec->fpos, f);
	}
}

/*
 * The autocorrelation of tx over its first SMDSP_ECHO_WPERIOD samples, and
 * the filter from it, once: the whitened lines and the whitened rx must
 * come from the same filter, or the difference is an error the taps chase.
 */
static void track_spectrum(struct smdsp_echo *ec, int16_t tx)
{
	int j;

	if (ec->wcount >= SMDSP_ECHO_WPERIOD || (!tx && !ec->wcount))
		return;
	ec->r[0] += (int64_t)tx * tx;
	for (j = 1; j <= SMDSP_ECHO_WP; j++)
		ec->r[j] += (int64_t)tx * ec->txh[j - 1];
	if (++ec->wcount == SMDSP_ECHO_WPERIOD) {
		levinson(ec);
		rewhiten(ec);
	}
}

void smdsp_echo_set_loop(struct smdsp_echo *ec, int fn_mhz)
{
	if (fn_mhz >= 1 && fn_mhz <= SMDSP_ECHO_TRAIN_PLL_MHZ)
		set_loop(ec, fn_mhz);
}

void smdsp_echo_learn_spectrum(struct smdsp_echo *ec)
{
	memset(ec->r, 0, sizeof(ec->r));
	memset(ec->wa, 0, sizeof(ec->wa));
	ec->wcount = 0;
	if (ec->mode == SMDSP_ECHO_TRAIN)
		rewhiten(ec);
}

/* The tx sample the far FIR's newest tap sees, through the bulk delay and the Hilbert filter. */
static void far_push(struct smdsp_echo *ec, int16_t tx)
{
	int f = ec->cfg.far_taps;
	int d = (ec->far_delay > ec->cfg.near_taps ? ec->far_delay : ec->cfg.near_taps) - SMDSP_ECHO_HIL_L;
	int idx, i;
	int64_t acc = 0;
	const int16_t *z;
	int16_t xd, xh, wd, wh, old;

	ec->bulk[ec->bpos] = tx;
	if (d < 0)
		d = 0;
	idx = ec->bpos - d;
	if (idx < 0)
		idx += ec->blen;
	ec->bpos = ec->bpos + 1 == ec->blen ? 0 : ec->bpos + 1;

	ec->hpos = ec->hpos ? ec->hpos - 1 : HIL_M - 1;
	ec->hil[ec->hpos] = ec->bulk[idx];
	ec->hil[ec->hpos + HIL_M] = ec->bulk[idx];
	/* z[j] = input j samples ago; the output is centred on j = L */
	z = ec->hil + ec->hpos + SMDSP_ECHO_HIL_L;
	for (i = 0; i < SMDSP_ECHO_HIL_N; i++)
		acc += (int64_t)ec->hcoef[i] * (z[2 * i + 1] - z[-(2 * i + 1)]);
	xd = z[0];

	xh = smdsp_sat16((int32_t)clamp64((acc + (1 << 14)) >> 15, 1 << 20));
	wd = whiten(ec, xd, ec->dh);
	wh = whiten(ec, xh, ec->qh);

	ec->fpos = ec->fpos ? ec->fpos - 1 : f - 1;
	old = ec->wf[ec->fpos];
	ec->pf += (int32_t)wd * wd - (int32_t)old * old;
	old = ec->xf[ec->fpos];
	ec->pfx += (int32_t)xd * xd - (int32_t)old * old;
	ec->xf[ec->fpos] = xd;
	ec->xf[ec->fpos + f] = xd;
	ec->xq[ec->fpos] = xh;
	ec->xq[ec->fpos + f] = xh;
	ec->wf[ec->fpos] = wd;
	ec->wf[ec->fpos + f] = wd;
	ec->wq[ec->fpos] = wh;
	ec->wq[ec->fpos + f] = wh;
	if (xd | xh | wd | wh)
		ec->far_quiet = 0;
	else if (ec->far_quiet < f)
		ec->far_quiet++;
}

/* one step of the far echo's phase loop; e and q in Q8 */
static void phase_loop(struct smdsp_echo *ec, int32_t e, int32_t q)
{
	int64_t pe = (int64_t)e * e;
	int64_t pd, dth;

	ec->pq += ((int64_t)q * q - ec->pq) >> 8;
	/*
	 * No far echo worth the name (45 dB below rx): nothing to lock to; what
	 * the loop integrated while the taps were still noise leaks away.
	 */
	if (ec->pq * 128 < ec->prx) {
		ec->omega -= ec->omega >> 12;
		return;
	}
	/*
	 * pd = -e q / (E[q^2] + e^2), Q16 radians, within +-pi/2. In TRACK e is
	 * mostly the far modem's signal, which would scale the detector's gain
	 * down by the far signal to far echo ratio: there, -e q / E[q^2] (the
	 * loop is narrow enough to average its noise).
	 */
	if (ec->mode == SMDSP_ECHO_TRACK)
		pe = 0;
	pd = div_norm(-(int64_t)e * q * (1LL << 14), (ec->pq + pe + 256) >> 2);
	pd = clamp64(pd, ec->mode == SMDSP_ECHO_TRACK && ec->far_raw ? PD_TRACK_MAX : PD_MAX);
	/*
	 * The phase step rounded once, in turns: truncated to Q16 radians
	 * first, every step lost half an LSB on average whatever the loop's
	 * gain, a pull of 0.0097 Hz at 8 kHz that the integrator had to carry
	 * (V.34's far echo at 5 Hz tracked at 5.01-5.03 Hz), the more of the
	 * phase it cost the narrower the loop
	 */
	dth = (int64_t)ec->kp_q16 * pd;
	ec->theta += (uint32_t)((dth * TURN_PER_RAD + (1LL << 31)) >> 32);
	if (ec->fhold && ec->far_raw && ec->mode == SMDSP_ECHO_TRAIN)
		return;
	ec->omega += (((int64_t)ec->ki_q32 * pd) >> 8) * TURN_PER_RAD >> 24;
	ec->omega = clamp64(ec->omega, OMEGA_MAX);
}

int16_t smdsp_echo_process(struct smdsp_echo *ec, int16_t tx, int16_t rx)
{
	int n = ec->cfg.near_taps, f = ec->cfg.far_taps;
	const int16_t *xn, *wn, *wf = NULL, *wq = NULL;
	int16_t old, wtx, wrx;
	int32_t yi = 0, yq = 0, c = 0, s = 0, e, ew;
	int64_t est, estw, estn, g, pn, mu, muf;
	int32_t m;
	bool track, near_live, far_live = false;
	int sh;
	int16_t out;
	bool white;

	track_spectrum(ec, tx);
	wtx = whiten(ec, tx, ec->txh);
	wrx = whiten(ec, rx, ec->rxh);
	ec->npos = ec->npos ? ec->npos - 1 : n - 1;
	old = ec->wn[ec->npos];
	ec->pn += (int32_t)wtx * wtx - (int32_t)old * old;
	old = ec->xn[ec->npos];
	ec->pnx += (int32_t)tx * tx - (int32_t)old * old;
	ec->xn[ec->npos] = tx;
	ec->xn[ec->npos + n] = tx;
	ec->wn[ec->npos] = wtx;
	ec->wn[ec->npos + n] = wtx;
	if (tx | wtx)
		ec->near_quiet = 0;
	else if (ec->near_quiet < n)
		ec->near_quiet++;
	near_live = ec->near_quiet < n;
	xn = ec->xn + ec->npos;
	wn = ec->wn + ec->npos;
	white = ec->mode == SMDSP_ECHO_TRAIN;
	est = 0;
	estw = 0;
	if (white && near_live) {
		int64_t a, aw;

		dot2(ec->hn, xn, wn, n, &a, &aw);
		est = smdsp_sat32(a >> 22);
		estw = smdsp_sat32(aw >> 22);
	} else if (near_live) {
		est = smdsp_sat32(dot(ec->hn, xn, n) >> 22);
	}

	estn = est;
	if (f) {
		const int16_t *xf, *xq;
		int64_t ai = 0, aq = 0;

		far_push(ec, tx);
		far_live = ec->far_quiet < f;
		xf = ec->xf + ec->fpos;
		xq = ec->xq + ec->fpos;
		if (far_live)
			dot2(ec->hf, xf, xq, f, &ai, &aq);
		yi = smdsp_sat32(ai >> 22);
		yq = smdsp_sat32(aq >> 22);
		c = smdsp_cos(ec->theta);
		s = smdsp_sin(ec->theta);
		est += ((int64_t)yi * c - (int64_t)yq * s) >> 15;
		wf = xf;
		wq = xq;
		if (white) {
			int64_t wi, wqq;

			wf = ec->wf + ec->fpos;
			wq = ec->wq + ec->fpos;
			if (far_live)
				dot2(ec->hf, wf, wq, f, &ai, &aq);
			wi = smdsp_sat32(ai >> 22);
			wqq = smdsp_sat32(aq >> 22);
			estw += (wi * c - wqq * s) >> 15;
		}
	}

	e = (int32_t)clamp64((int64_t)rx * 256 - est, E_MAX);
	out = smdsp_sat16((e + 128) >> 8);

	ec->prx += ((int64_t)rx * rx * 256 - ec->prx) >> 9;
	ec->pout += ((int64_t)out * out * 256 - ec->pout) >> 9;
	ec->samples++;

	if (ec->mode == SMDSP_ECHO_FREEZE) {
		ec->theta += (uint32_t)(ec->omega >> 16);
		return out;
	}
	/*
	 * TRAIN: the same residual through A, what the taps leave of A rx with
	 * the whitened lines as their input (as fast for a coloured tx as for
	 * white); TRACK: the plain residual and lines (the far signal in the
	 * error would come out of A amplified where tx is weak).
	 */
	if (white) {
		ew = (int32_t)clamp64((int64_t)wrx * 256 - estw, E_MAX);
		pn = ec->pn;
	} else {
		ew = e;
		wn = xn;
		pn = ec->pnx;
	}
	if (ec->mode == SMDSP_ECHO_TRACK) {
		int32_t lim = 2 * ec->eabs;

		if (lim < TRACK_CLIP_MIN)
			lim = TRACK_CLIP_MIN;
		ew = (int32_t)clamp64(ew, lim);
	}
	ec->eabs += (smdsp_abs32(ew) - ec->eabs) >> 8;

	mu = ec->mu_q16;
	if (!ec->fixed && ec->mode == SMDSP_ECHO_TRAIN && ec->age < 3 * GEAR_LEN) {
		ec->age++;
		mu = ec->age < GEAR_LEN ? 65535 : ec->age < 2 * GEAR_LEN ? mu : mu / 2;
	} else if (!ec->fixed && ec->mode == SMDSP_ECHO_TRAIN) {
		mu /= 4;
	}
	/* from here in Q24: TRACK's shrunk steps are fractions of a Q16 unit */
	mu <<= 8;
	muf = mu;
	if (ec->mode == SMDSP_ECHO_TRACK) {
		int32_t y = (int32_t)clamp64(estn >> 8, 1 << 20), r = (e + 128) >> 8;
		int32_t yf = (int32_t)clamp64((est - estn) >> 8, 1 << 20);

		/*
		 * Where the far signal is louder than an FIR's own echo, that
		 * FIR's step shrinks by their ratio: the coefficient noise it
		 * leaves stays mu / 2 of its own echo's power, and never more
		 * than mu / 2 of the far signal's. Each FIR by its own echo: a
		 * far window with no far echo in it (its estimate near zero)
		 * stands still instead of random-walking on the far signal,
		 * which would add its coefficient noise to the receiver's
		 * error for the whole call.
		 */
		ec->py += ((int64_t)y * y - ec->py) >> 8;
		ec->pyf += ((int64_t)yf * yf - ec->pyf) >> 8;
		ec->pe += ((int64_t)r * r - ec->pe) >> 8;
		if (ec->pe > ec->py)
			mu = div_norm(mu * ec->py, ec->pe);
		if (ec->pe > ec->pyf)
			muf = div_norm(muf * ec->pyf, ec->pe);
	}
	/* mu e / (P + delta) in Q46: mu Q24 x e Q8, shifted by 14 */
	/*
	 * TRACK's taps move so slowly that they take turns: the near FIR on odd
	 * samples, the far one on even ones (with a far FIR), the same step per
	 * update (the same misadjustment), half the convergence rate, half the cost.
	 */
	track = ec->mode == SMDSP_ECHO_TRACK && f;
	if (!track || (ec->samples & 1)) {
		g = clamp64(div_norm(mu * ew * (1LL << 14), pn + (int64_t)n * DELTA_POWER), G_MAX);
		sh = mant(g, 15, &m);
		if (near_live)
			update(ec->hn, wn, NULL, m, 0, sh, n);
	}
	if (f) {
		int32_t q, mc, ms;
		bool raw = ec->far_raw || !white;

		if (track && (ec->samples & 1))
			goto loop;
		/*
		 * far_raw (smdsp_echo_set_far_raw()): the far FIR adapts on the
		 * raw residual and lines, in TRAIN too. Whitened, its taps at the band's edges (tx 20-27 dB
		 * down there, A's gain as much) learn as fast as its middle and
		 * chase a far echo's rotation there themselves, against the phase
		 * loop, which hears the band's middle: with a far hybrid whose
		 * edges lag (G.168's m2, m3: 26-41 samples of group delay at 600
		 * and 3000 Hz) V.34's weak far echo (26-30 dB down) on short lines
		 * drove the loop to the image, -7 Hz found for +7
		 * (test_v34_image). V.32bis's far echoes, up to 6 dB down, need
		 * the whitening's speed at the edges (without it 3 of
		 * test_v32bis_echo's lines and 10 of test_echo's checks failed).
		 * TRACK's error is clipped (ew) either way.
		 */
		g = clamp64(div_norm(muf * (raw && white ? e : ew) * (1LL << 14),
				     (raw ? ec->pfx : ec->pf) + (int64_t)f * DELTA_POWER), G_MAX / 2);
		/* g cos, g sin with one shift, each under 2^14 */
		sh = mant(smdsp_abs32(c) > smdsp_abs32(s) ? (g * c) >> 15 : (g * s) >> 15, 14, &m);
		mc = (int32_t)(((g * c) >> 15) >> sh);
		ms = (int32_t)(((g * s) >> 15) >> sh);
		if (far_live && raw)
			update(ec->hf, ec->xf + ec->fpos, ec->xq + ec->fpos, mc, ms, sh, f);
		else if (far_live)
			update(ec->hf, wf, wq, mc, ms, sh, f);
loop:
		if (white && far_live && ec->fhold)
			ec->fhold--;
		q = (int32_t)clamp64(((int64_t)yi * s + (int64_t)yq * c) >> 15, Q_MAX);
		ec->theta += (uint32_t)(ec->omega >> 16);
		phase_loop(ec, e, q);
	}
	return out;
}

void smdsp_echo_process_block(struct smdsp_echo *ec, const int16_t *tx, const int16_t *rx, int16_t *out,
			      int n)
{
	int i;

	for (i = 0; i < n; i++)
		out[i] = smdsp_echo_process(ec, tx[i], rx[i]);
}

int smdsp_echo_erle_db_q8(const struct smdsp_echo *ec)
{
	int rx10, out10, d10;

	if (!ec->samples)
		return 0;
	rx10 = smdsp_power_to_dbm0((uint64_t)(ec->prx >> 8));
	out10 = smdsp_power_to_dbm0((uint64_t)(ec->pout >> 8));
	if (rx10 <= -999)
		return 0;
	if (out10 <= -999)
		out10 = -999;
	d10 = rx10 - out10;
	if (d10 > 1000)
		d10 = 1000;
	return d10 * 256 / 10;
}

unsigned int smdsp_echo_far_share_q12(const struct smdsp_echo *ec)
{
	/*
	 * pq is Q16 (q in Q8), pout Q8: pq / 256 over pout, in Q12. An empty
	 * window's taps random-walk on the residual to mu / (2 - mu) of its
	 * power (measured: 0.14 at TRAIN's 1/4, theory 0.143).
	 */
	int64_t share, noise = smdsp_div_s64((int64_t)ec->mu_q16 * 4096, 131072 - ec->mu_q16);

	if (ec->pout <= 0)
		return ec->pq > 0 ? 65535 : 0;
	share = div_norm(ec->pq * 16, ec->pout) - noise;
	return share > 0 ? (unsigned int)clamp64(share, 65535) : 0;
}

int smdsp_echo_far_freq_mhz(const struct smdsp_echo *ec)
{
	return (int)(((ec->omega >> 16) * (1000LL * SMDSP_RATE)) >> 32);
}

int smdsp_echo_macs_per_sample(const struct smdsp_echo *ec)
{
	int n = ec->cfg.near_taps, f = ec->cfg.far_taps;

	int filt = n + 2 * f + (f ? SMDSP_ECHO_HIL_N : 0);

	switch (ec->mode) {
	case SMDSP_ECHO_FREEZE:
		return filt;
	case SMDSP_ECHO_TRACK:
		return filt + (f ? (n + 2 * f) / 2 : n);
	default:
		return 2 * filt + n + 2 * f + (f ? 4 * SMDSP_ECHO_WP : 2 * SMDSP_ECHO_WP);
	}
}

int smdsp_echo_print(const struct smdsp_echo *ec, char *buf, size_t len)
{
	static const char *const names[] = { "freeze", "train", "track" };
	int erle = smdsp_echo_erle_db_q8(ec) * 10 / 256;
	const char *sign = erle < 0 ? "-" : "";
	int mode = ec->mode >= 0 && ec->mode <= SMDSP_ECHO_TRACK ? ec->mode : 0;

	return snprintf(buf, len, "echo near=%d far=%d delay=%d/%d mode=%s erle=%s%d.%d dB far_freq=%d mHz samples=%llu",
			ec->cfg.near_taps, ec->cfg.far_taps, ec->far_delay, ec->cfg.far_delay_max, names[mode],
			sign, (erle < 0 ? -erle : erle) / 10, (erle < 0 ? -erle : erle) % 10, smdsp_echo_far_freq_mhz(ec),
			(unsigned long long)ec->samples);
}
