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
#include <smdsp/v29.h>

#define U SMDSP_V29_UNIT
#define AGC_SYMS 16		/* symbols of AGC acquisition */
#define ACQ_SKIP 16		/* symbols before the phase estimate */
#define ACQ_LEN 32		/* symbols of phase estimate */
#define ABAB_MIN 8		/* symbols following segment 2 before looking for its end */
#define ABAB_MAX 160		/* segment 2 is 128 long */
#define CDCD_LEN 384
#define ONES_LEN 48
#define ONES_SYNC 24		/* descrambled bits not checked (23 to synchronise) */
#ifndef DATA_TED_SHIFT
#define DATA_TED_SHIFT 12
#define DATA_TED_INT 20
#define DATA_TED_FRAC 6
#endif
#define TURN_OVER_2PI 683565276LL	/* 2^32 / (2 pi) */

enum { ST_ACQ, ST_ABAB, ST_CDCD, ST_ONES, ST_DATA, ST_FAILED };

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

static void acquire(struct smdsp_v29_rx *s)
{
	s->fe.tpos = s->fe.half_t;
	smdsp_gardner_reset(&s->ted, 10, 17);
	s->half = false;
	smdsp_eq_init(&s->eq, SMDSP_V29_EQ_LEN, SMDSP_V29_EQ_CENTRE, 5);
	s->car_phase = 0;
	s->car_freq = 0;
	s->stage = ST_ACQ;
	s->symbols = 0;
	s->par = 0;
	memset(s->s_re, 0, sizeof(s->s_re));
	memset(s->s_im, 0, sizeof(s->s_im));
	s->prev_re = 0;
	s->prev_im = 0;
	s->state = 0;
	s->scr = 0;
	s->trained = false;
	s->mse = 0;
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

	if (rate != 4800 && rate != 7200 && rate != 9600)
		return -EINVAL;
	r = rate_idx(rate);
	s->rate = rate;
	s->fe.mf = smdsp_v29_rx_rrc;
	s->fe.half_t = SMDSP_QAM_TUNIT * 5 / 3;	/* 5/3 samples */
	s->pnorm = pnorm_x2[r] * U * U / 2;
	s->det.agc_num = agc_num[r];
	s->det.agc_den = agc_den[r];
	s->det.target = target[r];
	smdsp_qam_det_reset(&s->det);
	acquire(s);
	return 0;
}

int smdsp_v29_rx_init(struct smdsp_v29_rx *s, unsigned int rate, smdsp_put_bit_fn put_bit,
		      smdsp_status_fn status_fn, void *user)
{
	if (rate != 4800 && rate != 7200 && rate != 9600)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	smdsp_qam_rx_front_init(&s->fe, 1700000, SMDSP_V29_CAR_PERIOD);
	/*
	 * |y|^2 is about 1.2 times the passband mean square during segment 2:
	 * carrier on at -43 dBm0, off at -48 dBm0.
	 */
	smdsp_qam_det_init(&s->det, smdsp_dbm0_to_power(-430) * 5 / 4,
			   smdsp_dbm0_to_power(-480) * 5 / 4, 2 * AGC_SYMS, 1, 1, U);
	s->put_bit = put_bit;
	s->status_fn = status_fn;
	s->user = user;
	return smdsp_v29_rx_restart(s, rate);
}

struct smdsp_v29_rx *smdsp_v29_rx_create(unsigned int rate, smdsp_put_bit_fn put_bit,
					 smdsp_status_fn status_fn, void *user)
{
	struct smdsp_v29_rx *s;

	if (rate != 4800 && rate != 7200 && rate != 9600)
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
	return s->trained;
}

/* Nearest point of the rate's set, an index of smdsp_v29_points. */
static unsigned int slice(const struct smdsp_v29_rx *s, int32_t zr, int32_t zi)
{
	unsigned int k, best = 0, n = s->rate == 9600 ? 16 : 8, inc = s->rate == 4800 ? 2 : 1;
	int64_t bd = -1;

	for (k = 0; k < n; k += inc) {
		int64_t dx = zr - smdsp_v29_points[k][0] * U, dy = zi - smdsp_v29_points[k][1] * U;
		int64_t d = dx * dx + dy * dy;

		if (bd < 0 || d < bd) {
			bd = d;
			best = k;
		}
	}
	return best;
}

/*
 * The loops on one symbol z (turned by c, sn) against the point (dr, di):
 * the equalizer (unless eq is false) and the carrier phase.
 */
static void track(struct smdsp_v29_rx *s, struct smdsp_cplx z, int32_t dr, int32_t di, int32_t c,
		  int32_t sn, bool eq, int pshift, int ishift)
{
	int32_t er = dr - z.re, ei = di - z.im;
	int64_t pe;

	if (eq) {
		/* back into the equalizer's frame: err e^{+j phase} */
		struct smdsp_cplx e = smdsp_cturn(er, ei, c, sn);

		smdsp_eq_update(&s->eq, e.re, e.im);
	}
	/* phase error: Im(z conj(d)) over the mean square, radians */
	pe = (int64_t)z.im * dr - (int64_t)z.re * di;
	pe = smdsp_div_s64(pe * TURN_OVER_2PI, s->pnorm);
	s->car_freq += smdsp_rsh(pe, ishift);
	s->car_phase += (uint32_t)(s->car_freq + smdsp_rsh(pe, pshift));
	s->mse += ((int32_t)(((int64_t)er * er + (int64_t)ei * ei) >> 10) - s->mse) >> 5;
}

/* End of the phase estimate: the parity of A and the carrier phase. */
static void acq_done(struct smdsp_v29_rx *s)
{
	const int8_t (*ab)[2] = abab[rate_idx(s->rate)];
	int64_t p = s->par < 0 ? -s->par : s->par, sr = 0, si = 0;
	unsigned int k;

	/* |Im(B conj(A))| is at least half the mean square at every rate */
	if (p < (int64_t)ACQ_LEN * s->pnorm * 3 / 10) {
		/* no alternation (the echo protection tone): again */
		s->symbols = ACQ_SKIP;
		s->par = 0;
		memset(s->s_re, 0, sizeof(s->s_re));
		memset(s->s_im, 0, sizeof(s->s_im));
		return;
	}
	/* Im(z_k conj(z_k-1)) < 0 where z_k is B: par sums it with odd k positive */
	s->odd_b = s->par < 0;
	for (k = 0; k < 2; k++) {
		/* k = 1: the odd symbols */
		const int8_t *d = ab[(k == 1) == s->odd_b ? 1 : 0];

		/* sum z conj(d) */
		sr += s->s_re[k] * d[0] + s->s_im[k] * d[1];
		si += s->s_im[k] * d[0] - s->s_re[k] * d[1];
	}
	while (sr > 0x3fffffff || sr < -0x3fffffff || si > 0x3fffffff || si < -0x3fffffff) {
		sr >>= 1;
		si >>= 1;
	}
	s->car_phase = smdsp_atan2((int32_t)si, (int32_t)sr);
	s->stage = ST_ABAB;
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
	for (i = n; i-- > 0;) {
		int b = smdsp_v29_descramble(&s->scr, (int)(bits >> i) & 1);

		if (s->stage == ST_ONES) {
			if (++s->ones_bits > ONES_SYNC && !b)
				s->ones_zeros++;
		} else if (s->put_bit) {
			s->put_bit(s->user, b);
		}
	}
}

static void symbol(struct smdsp_v29_rx *s)
{
	const unsigned int r = rate_idx(s->rate);
	struct smdsp_cplx z;
	int32_t c, sn;
	unsigned int k;
	const int8_t *d;

	s->fe.tpos -= smdsp_gardner_step(&s->ted);
	z = smdsp_eq_output(&s->eq);
	/* undo the carrier phase: z = y e^{-j phase} */
	c = smdsp_cos(s->car_phase);
	sn = smdsp_sin(s->car_phase);
	z = smdsp_cturn(z.re, z.im, c, -sn);
	switch (s->stage) {
	case ST_ACQ:
		if (s->symbols >= ACQ_SKIP) {
			int64_t w = (int64_t)z.im * s->prev_re - (int64_t)z.re * s->prev_im;

			s->par += (s->symbols & 1) ? w : -w;
			s->s_re[s->symbols & 1] += z.re;
			s->s_im[s->symbols & 1] += z.im;
		}
		s->prev_re = z.re;
		s->prev_im = z.im;
		if (++s->symbols == ACQ_SKIP + ACQ_LEN)
			acq_done(s);
		return;
	case ST_ABAB:
		k = ((s->symbols & 1) != 0) == s->odd_b;	/* 1: B is due */
		if (k && s->symbols >= ACQ_SKIP + ACQ_LEN + ABAB_MIN && z.re > 0) {
			/* C where B was due: segment 3 */
			s->stage = ST_CDCD;
			s->symbols = 0;
			s->train = 0x2a;
			break;
		}
		if (++s->symbols > ABAB_MAX) {
			/* no segment 3: start again on what comes */
			acquire(s);
			return;
		}
		track(s, z, abab[r][k][0] * U, abab[r][k][1] * U, c, sn, false, 2, 7);
		return;
	default:
		break;
	}
	switch (s->stage) {
	case ST_CDCD:
		d = cdcd[r][smdsp_v29_train_bit(&s->train)];
		track(s, z, d[0] * U, d[1] * U, c, sn, true, 2, 7);
		if (++s->symbols == CDCD_LEN) {
			s->stage = ST_ONES;
			s->symbols = 0;
			s->state = 0;
			s->ones_bits = 0;
			s->ones_zeros = 0;
			s->eq.mu_shift = 7;
			s->ted.shift = DATA_TED_SHIFT;
			s->ted.int_shift = DATA_TED_INT;
			s->ted.frac = DATA_TED_FRAC;
			s->ted.t_int <<= DATA_TED_FRAC;
		}
		break;
	case ST_ONES:
	case ST_DATA:
	case ST_FAILED:
		k = slice(s, z.re, z.im);
		track(s, z, smdsp_v29_points[k][0] * U, smdsp_v29_points[k][1] * U, c, sn, true, 4,
		      11);
		if (s->stage == ST_FAILED)
			break;
		deliver(s, k);
		if (s->stage == ST_ONES && ++s->symbols == ONES_LEN) {
			if (s->ones_zeros * 3 > s->ones_bits - ONES_SYNC) {
				s->stage = ST_FAILED;
				if (s->status_fn)
					s->status_fn(s->user, SMDSP_STATUS_TRAINING_FAILED);
			} else {
				s->stage = ST_DATA;
				s->trained = true;
				if (s->status_fn)
					s->status_fn(s->user, SMDSP_STATUS_TRAINED);
			}
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
	switch (smdsp_qam_det_step(&s->det, &zr, &zi, s->stage != ST_ACQ)) {
	case SMDSP_QAM_IDLE:
		return;
	case SMDSP_QAM_UP:
		acquire(s);
		if (s->status_fn)
			s->status_fn(s->user, SMDSP_STATUS_CARRIER_UP);
		break;
	case SMDSP_QAM_DOWN:
		s->trained = false;
		if (s->status_fn)
			s->status_fn(s->user, SMDSP_STATUS_CARRIER_DOWN);
		return;
	case SMDSP_QAM_AGAIN:
		acquire(s);
		break;
	case SMDSP_QAM_SIGNAL:
		break;
	}
	smdsp_gardner_push(&s->ted, zr, zi);
	smdsp_eq_push(&s->eq, (int16_t)zr, (int16_t)zi);
	s->half = !s->half;
	if (!s->half)
		symbol(s);
}

void smdsp_v29_rx_process(struct smdsp_v29_rx *s, const int16_t *x, unsigned int n)
{
	smdsp_qam_rx_front_process(&s->fe, x, n, half_baud, s);
}
