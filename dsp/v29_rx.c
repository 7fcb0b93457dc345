// SPDX-License-Identifier: GPL-2.0
/*
 * V.29 demodulator.
 *
 * The front end (qam.c) brings each sample to baseband with the 1700 Hz
 * carrier and gives, at every T/2 instant placed by the timing loop, the
 * output of a root-raised-cosine matched filter (beta 0.25). The T/2
 * samples are scaled by an AGC set on the first symbols of carrier, feed a
 * Gardner timing detector and a fractionally spaced LMS equalizer (eq.c),
 * whose symbol-rate output is turned by the carrier phase of a second-order
 * loop.
 *
 * Training, after the carrier came up during segment 2 (B and A
 * alternating): ACQ_SKIP symbols for the AGC and the timing loop, then
 * ACQ_LEN symbols that tell which ones are A (the turn from A to B is
 * negative at every rate) and give the absolute carrier phase as the angle
 * of the symbols' sum against the points they stand for. From there the
 * loops follow the known alternation until a symbol lands on C's side
 * where B was due: segment 3 has begun, and its 384 symbols, known from the
 * generator 1 + x^-6 + x^-7, train the equalizer. Segment 4 (48 symbols of
 * scrambled ones at the data rate) is sliced, decoded from phase 0 and
 * descrambled: enough ones and the receiver is trained, and the data that
 * follows is delivered.
 */
#include <smdsp/private/v29.h>

#define U SMDSP_V29_UNIT
#define AGC_SYMS 16		/* symbols of AGC acquisition */
#define ACQ_END (SMDSP_QAM_ACQ_SKIP + SMDSP_QAM_ACQ_LEN)
#define ABAB_MIN 8		/* symbols following segment 2 before looking for its end */
#define ABAB_MAX 160		/* segment 2 is 128 long */
#define CDCD_LEN 384
#define ONES_LEN 48
#ifndef DATA_TED_SHIFT
#define DATA_TED_SHIFT 12
#define DATA_TED_INT 20
#define DATA_TED_FRAC 6
#endif

enum { ST_ACQ, ST_ABAB, ST_CDCD, ST_ONES, ST_DATA };

/* segment 2: A, B; segment 3: C, D (by rate: 9600, 7200, 4800), units */
static const int8_t abab[3][2][2] = {
	{ { 3, -3 }, { -3, 0 } }, { { 1, -1 }, { -3, 0 } }, { { 0, -3 }, { -3, 0 } },
};

static const int8_t cdcd[3][2][2] = {
	{ { 3, 0 }, { -3, 3 } }, { { 3, 0 }, { -1, 1 } }, { { 3, 0 }, { 0, 3 } },
};

/* phase change in 45 degree steps -> tribit */
static const uint8_t tribit_of[8] = { 1, 0, 2, 3, 7, 6, 4, 5 };
/* phase change in 90 degree steps -> dibit (4800) */
static const uint8_t dibit_of[4] = { 0, 1, 3, 2 };

static unsigned int rate_idx(unsigned int rate)
{
	return rate == 9600 ? 0 : rate == 7200 ? 1 : 2;
}

static bool rate_ok(unsigned int rate)
{
	return rate == 4800 || rate == 7200 || rate == 9600;
}

static void acquire(void *modem)
{
	struct smdsp_v29_rx *s = modem;

	smdsp_qam_rx_acquire(&s->q, 10, 17);
	smdsp_eq_init(&s->q.eq, SMDSP_V29_EQ_LEN, SMDSP_V29_EQ_CENTRE, 5);
	s->q.car_freq = 0;
	s->stage = ST_ACQ;
	s->state = 0;
	s->scr = 0;
}

int smdsp_v29_rx_restart(struct smdsp_v29_rx *s, unsigned int rate)
{
	/*
	 * The symbols' mean square (units^2), and the T/2 samples' mean square
	 * during segment 2 against it: the symbol instants carry A and B, the
	 * instants between them (A + B) / 2 only.
	 */
	static const uint16_t pnorm_x2[3] = { 27, 11, 18 };
	static const uint8_t agc_num[3] = { 12, 13, 4 };
	static const uint8_t agc_den[3] = { 7, 8, 3 };
	/* U sqrt(mean square) */
	static const uint16_t target[3] = { 3762, 2402, 3072 };
	unsigned int r;

	if (!rate_ok(rate))
		return -EINVAL;
	r = rate_idx(rate);
	s->rate = rate;
	s->q.fe.mf = smdsp_v29_rx_rrc;
	s->q.fe.half_t = SMDSP_QAM_TUNIT * 5 / 3;	/* 5/3 samples */
	s->q.pnorm = pnorm_x2[r] * U * U / 2;
	s->q.det.agc_num = agc_num[r];
	s->q.det.agc_den = agc_den[r];
	s->q.det.target = target[r];
	smdsp_qam_det_reset(&s->q.det);
	acquire(s);
	return 0;
}

int smdsp_v29_rx_init(struct smdsp_v29_rx *s, unsigned int rate, smdsp_put_bit_fn put_bit,
		      smdsp_status_fn status_fn, void *user)
{
	if (!rate_ok(rate))
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	smdsp_qam_rx_init(&s->q, 1700000, SMDSP_V29_CAR_PERIOD, put_bit, status_fn, user);
	/*
	 * |y|^2 is about 1.2 times the passband mean square during segment 2:
	 * carrier on at -43 dBm0, off at -48 dBm0.
	 */
	smdsp_qam_det_init(&s->q.det, smdsp_dbm0_to_power(-430) * 5 / 4,
			   smdsp_dbm0_to_power(-480) * 5 / 4, 2 * AGC_SYMS, 1, 1, U);
	s->q.det.slow = true;
	return smdsp_v29_rx_restart(s, rate);
}

struct smdsp_v29_rx *smdsp_v29_rx_create(unsigned int rate, smdsp_put_bit_fn put_bit,
					 smdsp_status_fn status_fn, void *user)
{
	struct smdsp_v29_rx *s;

	if (!rate_ok(rate))
		return NULL;
	s = smdsp_alloc(sizeof(*s));
	if (s)
		smdsp_v29_rx_init(s, rate, put_bit, status_fn, user);
	return s;
}

void smdsp_v29_rx_free(struct smdsp_v29_rx *s)
{
	smdsp_free(s);
}

bool smdsp_v29_rx_trained(const struct smdsp_v29_rx *s)
{
	return s->q.trained;
}

/*
 * Nearest point of the rate's set, an index of smdsp_v29_points: the one
 * (a U, b U) that maximises zr a + zi b - (a^2 + b^2) U / 2, its squared
 * distance less |z|^2 over -2U (the same order and ties, no squares). As
 * a key, 16 times that plus 15 - k: the largest is the first nearest. The
 * points are spelt out (those of smdsp_v29_points) so that the products
 * become shifts and adds.
 */
#define SLICE_KEY(k, a, b) \
	(((int64_t)zr * (a) + (int64_t)zi * (b) - ((a) * (a) + (b) * (b)) * (U / 2)) * 16 + \
	 (15 - (k)))

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static unsigned int slice(const struct smdsp_v29_rx *s, int32_t zr, int32_t zi)
{
	int64_t best = max64(max64(SLICE_KEY(0, 3, 0), SLICE_KEY(2, 0, 3)),
			     max64(SLICE_KEY(4, -3, 0), SLICE_KEY(6, 0, -3)));

	if (s->rate != 4800) {
		int64_t odd = max64(max64(SLICE_KEY(1, 1, 1), SLICE_KEY(3, -1, 1)),
				    max64(SLICE_KEY(5, -1, -1), SLICE_KEY(7, 1, -1)));

		best = max64(best, odd);
	}
	if (s->rate == 9600) {
		int64_t a = max64(max64(SLICE_KEY(8, 5, 0), SLICE_KEY(10, 0, 5)),
				  max64(SLICE_KEY(12, -5, 0), SLICE_KEY(14, 0, -5)));
		int64_t b = max64(max64(SLICE_KEY(9, 3, 3), SLICE_KEY(11, -3, 3)),
				  max64(SLICE_KEY(13, -3, -3), SLICE_KEY(15, 3, -3)));

		best = max64(best, max64(a, b));
	}
	return 15 - (unsigned int)(best & 15);
}

/* |z - d U|^2, units^2 >> 10, at most 2^22 (ABAB_MAX of them fit in 32 bits) */
static uint32_t sq_err(struct smdsp_cplx z, const int8_t *d)
{
	int64_t er = (int64_t)d[0] * U - z.re, ei = (int64_t)d[1] * U - z.im;
	uint64_t e = ((uint64_t)(er * er) + (uint64_t)(ei * ei)) >> 10;

	return e < (1U << 22) ? (uint32_t)e : 1U << 22;
}

static void deliver(struct smdsp_v29_rx *s, unsigned int k)
{
	unsigned int step = ((k & 7) - s->state) & 7, bits, n, i;

	s->state = k & 7;
	if (s->rate == 4800) {
		bits = dibit_of[(step >> 1) & 3];
		n = 2;
	} else {
		bits = tribit_of[step];
		n = 3;
		if (s->rate == 9600) {
			bits |= (k >> 3) << 3;
			n = 4;
		}
	}
	for (i = n; i-- > 0;)
		smdsp_qam_rx_bit(&s->q, smdsp_qam_descramble(&s->scr, (int)(bits >> i) & 1),
				 s->stage == ST_ONES);
}

static void symbol(struct smdsp_v29_rx *s)
{
	const unsigned int r = rate_idx(s->rate);
	struct smdsp_qam_rx *q = &s->q;
	struct smdsp_cplx z = smdsp_qam_rx_symbol(q);
	unsigned int k;
	const int8_t *d;

	switch (s->stage) {
	case ST_ACQ:
		/* the turn from A to B is negative at every rate */
		if (smdsp_qam_rx_acq_symbol(q, z, abab[r][0], false)) {
			s->stage = ST_ABAB;
			s->abab_err = 0;
		}
		return;
	case ST_ABAB:
		k = smdsp_qam_rx_b_due(q);
		if (k && q->symbols >= ACQ_END + ABAB_MIN && z.re > 0) {
			/*
			 * C where B was due: segment 3; unless the alternation
			 * was not followed closely (a mean squared error over
			 * half the mean square): the acquisition found it in
			 * noise heard before the far modem started.
			 */
			if ((uint64_t)s->abab_err * 2048 > (uint64_t)(q->symbols - ACQ_END) * q->pnorm) {
				acquire(s);
				return;
			}
			s->stage = ST_CDCD;
			q->symbols = 0;
			s->train = 0x2a;
			break;
		}
		if (++q->symbols > ABAB_MAX) {
			/* no segment 3: start again on what comes */
			acquire(s);
			return;
		}
		s->abab_err += sq_err(z, abab[r][k]);
		smdsp_qam_rx_track(q, z, abab[r][k][0] * U, abab[r][k][1] * U, false, 2, 7);
		return;
	default:
		break;
	}
	switch (s->stage) {
	case ST_CDCD:
		d = cdcd[r][smdsp_v29_train_bit(&s->train)];
		smdsp_qam_rx_track(q, z, d[0] * U, d[1] * U, true, 2, 7);
		if (++q->symbols == CDCD_LEN) {
			s->stage = ST_ONES;
			q->symbols = 0;
			s->state = 0;
			q->ones_bits = 0;
			q->ones_zeros = 0;
			q->eq.mu_shift = 7;
			q->ted.shift = DATA_TED_SHIFT;
			q->ted.int_shift = DATA_TED_INT;
			q->ted.frac = DATA_TED_FRAC;
			/*
			 * The integrator is read at the data loop's finer scale
			 * from here on, its value kept as it is (as V.17's):
			 * scaled up to carry the training's clock estimate
			 * over, it carried the pull-in's swing too, several
			 * units a symbol where 100 ppm is one, and set the
			 * timing off for a thousand symbols after a training
			 * (line errors in the third of three transmissions).
			 */
		}
		break;
	case ST_ONES:
	case ST_DATA:
		k = slice(s, z.re, z.im);
		smdsp_qam_rx_track(q, z, smdsp_v29_points[k][0] * U, smdsp_v29_points[k][1] * U,
				   true, 4, 11);
		deliver(s, k);
		if (s->stage == ST_ONES && ++q->symbols == ONES_LEN) {
			if (!smdsp_qam_rx_verdict(q, smdsp_qam_rx_ones_ok(q))) {
				acquire(s);
				return;
			}
			s->stage = ST_DATA;
			smdsp_qam_rx_status(q, SMDSP_STATUS_TRAINED);
		}
		break;
	}
}

static void half_baud(void *user, int32_t zr, int32_t zi)
{
	struct smdsp_v29_rx *s = user;

	/*
	 * Once segment 2's alternation was found, a rise in level is the data
	 * (an echo can take more from segment 2's lines than from the data),
	 * not a far modem starting after noise.
	 */
	if (smdsp_qam_rx_half(&s->q, zr, zi, s->stage != ST_ACQ, acquire, s))
		symbol(s);
}

void smdsp_v29_rx_process(struct smdsp_v29_rx *s, const int16_t *x, unsigned int n)
{
	smdsp_qam_rx_front_process(&s->q.fe, x, n, half_baud, s);
}

void smdsp_v29_rx_reset(struct smdsp_v29_rx *s)
{
	smdsp_v29_rx_restart(s, s->rate);
}

int smdsp_v29_rx_print(const struct smdsp_v29_rx *s, char *buf, size_t len)
{
	return smdsp_qam_rx_print_as(&s->q, "v29_rx", s->rate, buf, len);
}
