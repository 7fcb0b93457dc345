// SPDX-License-Identifier: GPL-2.0
/*
 * V.27ter demodulator.
 *
 * Each input sample is brought to baseband by the 1800 Hz carrier (a
 * tabulated period of 40 samples) and enters a history buffer. At every T/2
 * instant, placed by the timing loop with 1/3072-sample resolution, a root-
 * raised-cosine matched filter chosen among 12 fractional delays gives the
 * complex baseband sample. The samples are scaled by an AGC set on the first
 * symbols of carrier, feed a Gardner timing detector and a fractionally
 * spaced LMS equalizer (eq.c), whose symbol-rate output is rotated by a
 * second-order decision-directed carrier loop and sliced.
 *
 * Training: the far end sends 180 degree reversals and then 1074 symbols
 * that change by 0 or 180 degrees only, so the first TRAIN_SYMS symbols
 * are sliced as two points on the real axis, which lets the loops and the
 * equalizer converge without the 45 degree ambiguity of 8-PSK. Then the
 * slicer takes all 8 (4800) or 4 (2400) points; the first change that is
 * neither 0 nor 180 degrees marks the end of the training, and from there
 * the phase changes are decoded, descrambled and delivered. Unless the
 * last TRAIN_CHECK of the two-point symbols lay close to the constellation
 * (noise before the far modem does not), the acquisition starts again.
 */
#include <smdsp/private/v27ter.h>

#define U SMDSP_V27TER_UNIT
#define U45 1448		/* U / sqrt(2) */
#define TRAIN_SYMS 500		/* two-point slicing after the carrier came up */
#define TRAIN_CHECK 256		/* its last symbols, whose mean squared error is checked */
/*
 * That error's limit (units^2 >> 10, from the constellation's nearest
 * point): noise heard before the far modem gives 0.25-0.4 U^2, the
 * training at 2400 with 3 dB of SNR 0.13-0.16 U^2, at 4800 with 8 dB 0.06-0.08.
 */
#define TRAIN_ERR_MAX (((U * U) >> 10) / 5)
#define AGC_SYMS 16		/* symbols of AGC acquisition */

static const int16_t pts[8][2] = {
	{ U, 0 }, { U45, U45 }, { 0, U }, { -U45, U45 },
	{ -U, 0 }, { -U45, -U45 }, { 0, -U }, { U45, -U45 },
};

/* phase change in 45 degree steps -> tribit (4800) */
static const uint8_t tribit_of[8] = { 1, 0, 2, 3, 7, 6, 4, 5 };
/* phase change in 90 degree steps -> dibit (2400) */
static const uint8_t dibit_of[4] = { 0, 1, 3, 2 };

static bool rate_ok(unsigned int rate)
{
	return rate == 2400 || rate == 4800;
}

static void acquire(void *modem)
{
	struct smdsp_v27ter_rx *s = modem;

	smdsp_qam_rx_acquire(&s->q, 9, 16);
	smdsp_eq_init(&s->q.eq, SMDSP_V27TER_EQ_LEN, SMDSP_V27TER_EQ_LEN / 2, 4);
	s->q.car_freq = 0;
	s->state = 0;
	s->scr.reg = 0;
	s->scr.count = 0;
	s->ones = 0;
	s->train_err = 0;
}

int smdsp_v27ter_rx_restart(struct smdsp_v27ter_rx *s, unsigned int rate)
{
	if (!rate_ok(rate))
		return -EINVAL;
	s->rate = rate;
	s->q.fe.mf = rate == 4800 ? smdsp_v27ter_rx_rrc_4800 : smdsp_v27ter_rx_rrc_2400;
	/* T/2: 2.5 samples at 1600 baud, 10/3 at 1200 baud */
	s->q.fe.half_t = rate == 4800 ? 7680 : 10240;
	smdsp_qam_det_reset(&s->q.det);
	acquire(s);
	return 0;
}

int smdsp_v27ter_rx_init(struct smdsp_v27ter_rx *s, unsigned int rate, smdsp_put_bit_fn put_bit,
		      smdsp_status_fn status_fn, void *user)
{
	if (!rate_ok(rate))
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	smdsp_qam_rx_init(&s->q, 1800000, SMDSP_V27TER_CAR_PERIOD, put_bit, status_fn, user);
	s->q.pnorm = U * U;
	/*
	 * |y|^2 is twice the passband mean square, about 7/8 of that for
	 * shaped data: carrier on at -43 dBm0, off at -48 dBm0. The AGC is
	 * set on the first AGC_SYMS symbols: the shaped signal averages about
	 * 7/8 of the symbols' power.
	 */
	smdsp_qam_det_init(&s->q.det, smdsp_dbm0_to_power(-430) * 7 / 4,
			   smdsp_dbm0_to_power(-480) * 7 / 4, 2 * AGC_SYMS, 8, 7, U);
	s->q.det.slow = true;
	return smdsp_v27ter_rx_restart(s, rate);
}

struct smdsp_v27ter_rx *smdsp_v27ter_rx_create(unsigned int rate, smdsp_put_bit_fn put_bit,
					 smdsp_status_fn status_fn, void *user)
{
	struct smdsp_v27ter_rx *s;

	if (!rate_ok(rate))
		return NULL;
	s = smdsp_alloc(sizeof(*s));
	if (s)
		smdsp_v27ter_rx_init(s, rate, put_bit, status_fn, user);
	return s;
}

void smdsp_v27ter_rx_free(struct smdsp_v27ter_rx *s)
{
	smdsp_free(s);
}

bool smdsp_v27ter_rx_trained(const struct smdsp_v27ter_rx *s)
{
	return s->q.trained;
}

/* Nearest point of the rate's constellation, 45 degree steps (comparisons, no arctangent). */
static unsigned int nearest(const struct smdsp_v27ter_rx *s, int32_t zr, int32_t zi)
{
	int32_t a, b;

	if (s->rate == 2400) {
		if (smdsp_abs32(zr) >= smdsp_abs32(zi))
			return zr >= 0 ? 0 : 4;
		return zi >= 0 ? 2 : 6;
	}
	/* turned by +22.5 degrees, the decision regions are the octants */
	a = (int32_t)(((int64_t)zr * 30274 - (int64_t)zi * 12540) >> 15);
	b = (int32_t)(((int64_t)zi * 30274 + (int64_t)zr * 12540) >> 15);
	if (b >= 0) {
		if (a > 0)
			return b < a ? 0 : 1;
		return b > -a ? 2 : 3;
	}
	if (a < 0)
		return -b < -a ? 4 : 5;
	return -b > a ? 6 : 7;
}

/* The decision: on the real axis during the first TRAIN_SYMS symbols. */
static unsigned int decide(const struct smdsp_v27ter_rx *s, int32_t zr, int32_t zi)
{
	if (s->q.symbols < TRAIN_SYMS)
		return zr >= 0 ? 0 : 4;
	return nearest(s, zr, zi);
}

static void deliver(struct smdsp_v27ter_rx *s, unsigned int step)
{
	unsigned int bits, n, i;

	if (s->rate == 4800) {
		bits = tribit_of[step];
		n = 3;
	} else {
		bits = dibit_of[(step >> 1) & 3];
		n = 2;
	}
	for (i = n; i-- > 0;) {
		int b = smdsp_v27ter_descramble(&s->scr, (int)(bits >> i) & 1);

		if (s->q.trained && !s->ones)
			smdsp_qam_rx_bit(&s->q, b, false);
	}
	if (s->ones)
		s->ones--;
}

static void symbol(struct smdsp_v27ter_rx *s)
{
	struct smdsp_qam_rx *q = &s->q;
	struct smdsp_cplx z = smdsp_qam_rx_symbol(q);
	unsigned int k, step;
	bool two = q->symbols < TRAIN_SYMS;

	k = decide(s, z.re, z.im);
	/*
	 * The equalizer, the carrier loop (|d|^2 = U^2 for every point: pnorm)
	 * and the squared error, in qam.c's arithmetic: z may lie anywhere in
	 * the 32-bit plane (an equalizer run away on noise), nothing overflows.
	 */
	smdsp_qam_rx_track(q, z, pts[k][0], pts[k][1], true, two ? 2 : 3, two ? 7 : 9);

	step = (k - s->state) & 7;
	s->state = k;
	if (q->symbols >= TRAIN_SYMS - TRAIN_CHECK && q->symbols < TRAIN_SYMS) {
		/*
		 * the error from the nearest point of the constellation: small
		 * for the training and for the data (where a false rise in
		 * level may have sent the acquisition), large for noise
		 */
		const int16_t *p = pts[nearest(s, z.re, z.im)];
		int64_t nr = (int64_t)p[0] - z.re, ni = (int64_t)p[1] - z.im;
		uint64_t e = ((uint64_t)(nr * nr) + (uint64_t)(ni * ni)) >> 10;

		s->train_err += e < (1U << 22) ? (uint32_t)e : 1U << 22;
	}
	if (q->symbols == TRAIN_SYMS) {
		if (s->train_err > TRAIN_ERR_MAX * TRAIN_CHECK) {
			/*
			 * Not a constellation: the carrier detector came up
			 * on noise heard before the far modem started (the
			 * noise's first symbol off the axis would end the
			 * training, and the rise of the signal would go
			 * unheeded). Again; the AGC stays, to see that rise.
			 */
			acquire(s);
			return;
		}
		/* the two-point part of the training is over: slower adaptation */
		q->eq.mu_shift = 6;
	} else if (q->symbols > TRAIN_SYMS && !q->trained && (step & 3)) {
		/* a change other than 0 or 180 degrees: the end of the training */
		q->trained = true;
		/*
		 * this is the first of the training's 8 symbols of scrambled
		 * ones: they set the descrambler, the data follows them
		 */
		s->ones = 8;
		smdsp_qam_rx_status(q, SMDSP_STATUS_TRAINED);
	}
	if (q->symbols > TRAIN_SYMS)
		deliver(s, step);
	q->symbols++;
}

static void half_baud(void *user, int32_t zr, int32_t zi)
{
	struct smdsp_v27ter_rx *s = user;

	/*
	 * A rise in level restarts the acquisition until the training has
	 * shown itself to be one (TRAIN_SYMS): before, it is the far modem
	 * starting after noise; after, a swing of the noise (at low SNR) that
	 * would send the acquisition into the data.
	 */
	if (smdsp_qam_rx_half(&s->q, zr, zi, s->q.trained || s->q.symbols > TRAIN_SYMS, acquire, s))
		symbol(s);
}

void smdsp_v27ter_rx_process(struct smdsp_v27ter_rx *s, const int16_t *x, unsigned int n)
{
	smdsp_qam_rx_front_process(&s->q.fe, x, n, half_baud, s);
}

void smdsp_v27ter_rx_reset(struct smdsp_v27ter_rx *s)
{
	smdsp_v27ter_rx_restart(s, s->rate);
}

int smdsp_v27ter_rx_print(const struct smdsp_v27ter_rx *s, char *buf, size_t len)
{
	return smdsp_qam_rx_print_as(&s->q, "v27ter_rx", s->rate, buf, len);
}
