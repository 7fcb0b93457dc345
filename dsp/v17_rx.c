// SPDX-License-Identifier: GPL-2.0
/*
 * V.17 demodulator.
 *
 * The front end (qam.c) brings each sample to baseband with the 1800 Hz
 * carrier and gives, at every T/2 instant placed by the Gardner loop, the
 * output of the root-raised-cosine matched filter of V.29 (beta 0.25,
 * 2400 baud as well). The T/2 samples are scaled by an AGC set on the first
 * symbols of carrier and feed a fractionally spaced LMS equalizer (eq.c)
 * whose symbol-rate output is turned by the carrier phase of a second-order
 * loop.
 *
 * Training, after the carrier came up during segment 1 (A and B
 * alternating, B being A turned by +90 degrees): ACQ_SKIP symbols for the
 * AGC and the timing loop, then ACQ_LEN symbols that tell which ones are A
 * and give the absolute carrier phase. The loops then follow the
 * alternation until a symbol turns away from the A that was due: segment
 * 2 has begun (its first point is always C, from the scrambler's start
 * 0x2ecdd5). Its 2976 points (38 in the short training), known from the
 * scrambler fed with ones, train the equalizer (the short training keeps
 * the equalizer and the carrier frequency of the last long one and only
 * tracks); the long training's segment 3, 64 points of the bridge pattern,
 * goes on training. Segment 4 (48 symbols of scrambled ones at the data
 * rate, trellis-coded) and the data go through the Viterbi decoder
 * (viterbi.c, started in the encoder's zero state), the differential
 * decoder and the descrambler; the loops follow the nearest point of each
 * symbol (the equalizer every fourth symbol, at four times the step: the
 * same BER as every symbol at 7/8 of the cost). If segment 4's decoded bits are mostly the scrambled
 * ones that were sent, the receiver is trained, and the data that follows is delivered (the decoder's
 * delay is 15 symbols).
 *
 * On a real line noise comes before the far modem: the carrier detector
 * may come up on it, the AGC is set on it and the acquisition may find an
 * alternation in it by chance. Nothing is committed to on noise: segment
 * 2 is only taken for one if segment 1 was followed closely, a rise of 6
 * dB during segments 1 to 3 (the signal arriving) starts the acquisition
 * again, and so does a training that failed (with the AGC). The carrier
 * detector (smdsp_qam_det_step() with det.slow) decides on slower
 * averages than the AGC's (8 samples for the signal's end, 32 for the
 * off threshold), with
 * a floor after a loss, so that neither the data's low points at -42
 * dBm0 nor noise around -43 dBm0 turn it on and off.
 */
#include <smdsp/private/v17.h>
#include <smdsp/private/v29.h>	/* V.29's pulse tables */

#define U SMDSP_V17_UNIT
#define PNORM (40 * U * U)	/* every constellation's mean square */
#define AGC_SYMS 16		/* symbols of AGC acquisition */
#define ACQ_END (SMDSP_QAM_ACQ_SKIP + SMDSP_QAM_ACQ_LEN)
#define ABAB_MIN 8		/* symbols following segment 1 before looking for its end */
#define ABAB_MAX 288		/* segment 1 is 256 long */
#define SEG2_LEN 2976
#define SHORT_SEG2_LEN 38
#define SEG3_LEN 64
#define SEG4_LEN 48
#ifndef DATA_EQ_EVERY
#define DATA_EQ_EVERY 4		/* the data moves the equalizer every 4th symbol */
#define DATA_EQ_MU 5
#endif
#define DATA_TED_SHIFT 12
#define DATA_TED_INT 20
#define DATA_TED_FRAC 6

/* the mean squared error (units^2 >> 10) that following segment 1 must stay under: 3 dB of SNR */
#define ABAB_ERR_MAX ((PNORM >> 10) / 2)

enum { ST_ACQ = SMDSP_V17_ST_ACQ, ST_ABAB = SMDSP_V17_ST_ABAB, ST_CDBA, ST_BRIDGE, ST_ONES, ST_DATA };

static bool rate_ok(unsigned int rate)
{
	return rate == 7200 || rate == 9600 || rate == 12000 || rate == 14400;
}

static void acquire(void *modem)
{
	struct smdsp_v17_rx *s = modem;

	smdsp_qam_rx_acquire(&s->q, 10, 17);
	if (s->short_train && s->have_long) {
		s->q.eq = s->eq_save;
		s->q.car_freq = s->car_freq_save;
		/*
		 * The clock offset learnt in the long training, and an
		 * integrator 8 times slower than its: 300 symbols are too few
		 * for the pull-in's swing of the integrator to die out.
		 */
		s->q.ted.frac = DATA_TED_FRAC;
		s->q.ted.int_shift = 20 - DATA_TED_FRAC;
		s->q.ted.t_int = s->t_int_save;
	} else {
		smdsp_eq_init(&s->q.eq, SMDSP_V17_EQ_LEN, SMDSP_V17_EQ_CENTRE, 5);
		s->q.car_freq = 0;
	}
	s->stage = ST_ACQ;
	s->scr = SMDSP_V17_SCR_INIT;
}

int smdsp_v17_rx_restart(struct smdsp_v17_rx *s, unsigned int rate, bool short_train)
{
	const int8_t (*p)[2];

	if (!rate_ok(rate))
		return -EINVAL;
	p = smdsp_v17_points(rate, &s->npoints);
	s->rate = rate;
	s->bits = rate / 2400;
	s->points = p;
	s->short_train = short_train;
	smdsp_viterbi_init(&s->vit, p[0], s->npoints, U, SMDSP_VITERBI_DEPTH, 0);
	s->q.fe.mf = smdsp_v29_rx_rrc;
	s->q.fe.half_t = SMDSP_QAM_TUNIT * 5 / 3;	/* 5/3 samples */
	smdsp_qam_det_reset(&s->q.det);
	acquire(s);
	return 0;
}

void smdsp_v17_qam_rx_init(struct smdsp_qam_rx *q, smdsp_put_bit_fn put_bit, smdsp_status_fn status_fn,
			   void *user)
{
	smdsp_qam_rx_init(q, 1800000, SMDSP_V17_CAR_PERIOD, put_bit, status_fn, user);
	q->pnorm = PNORM;
	/*
	 * Segment 1's T/2 samples have 3/4 of the symbols' mean square (the
	 * instants between A and B carry (A + B) / 2): the AGC scales by
	 * 4/3 so that the points come out in units of U. |y|^2 is about 1.2
	 * times the passband mean square: carrier on at -43 dBm0, off at -48.
	 */
	smdsp_qam_det_init(&q->det, smdsp_dbm0_to_power(-430) * 5 / 4,
			   smdsp_dbm0_to_power(-480) * 5 / 4, 2 * AGC_SYMS, 4, 3,
			   smdsp_isqrt64(PNORM));
	q->det.slow = true;
}

int smdsp_v17_rx_init(struct smdsp_v17_rx *s, unsigned int rate, smdsp_put_bit_fn put_bit,
		      smdsp_status_fn status_fn, void *user)
{
	if (!rate_ok(rate))
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	smdsp_v17_qam_rx_init(&s->q, put_bit, status_fn, user);
	return smdsp_v17_rx_restart(s, rate, false);
}

struct smdsp_v17_rx *smdsp_v17_rx_create(unsigned int rate, smdsp_put_bit_fn put_bit,
					 smdsp_status_fn status_fn, void *user)
{
	struct smdsp_v17_rx *s;

	if (!rate_ok(rate))
		return NULL;
	s = smdsp_alloc(sizeof(*s));
	if (s)
		smdsp_v17_rx_init(s, rate, put_bit, status_fn, user);
	return s;
}

void smdsp_v17_rx_free(struct smdsp_v17_rx *s)
{
	smdsp_free(s);
}

bool smdsp_v17_rx_trained(const struct smdsp_v17_rx *s)
{
	return s->q.trained;
}

/* |z - d|^2, units^2 >> 10, at most 2^22 (ABAB_MAX of them fit in 32 bits) */
static uint32_t sq_err(struct smdsp_cplx z, const int8_t *d)
{
	int64_t er = (int64_t)d[0] * U - z.re, ei = (int64_t)d[1] * U - z.im;
	uint64_t e = ((uint64_t)(er * er) + (uint64_t)(ei * ei)) >> 10;

	return e < (1U << 22) ? (uint32_t)e : 1U << 22;
}

static void track_point(struct smdsp_v17_rx *s, struct smdsp_cplx z, const int8_t *d, bool eq,
			int pshift, int ishift)
{
	smdsp_qam_rx_track(&s->q, z, d[0] * U, d[1] * U, eq, pshift, ishift);
}

enum smdsp_v17_abab smdsp_v17_rx_seg1(struct smdsp_qam_rx *q, struct smdsp_cplx z, unsigned int *stage,
				      unsigned int next, uint32_t *err)
{
	unsigned int k;
	const int8_t *d;

	if (*stage == SMDSP_V17_ST_ACQ) {
		/* B is A turned by +90 degrees */
		if (smdsp_qam_rx_acq_symbol(q, z, smdsp_v17_abcd[0], true)) {
			*stage = SMDSP_V17_ST_ABAB;
			*err = 0;
		}
		return SMDSP_V17_ABAB_ON;
	}
	k = smdsp_qam_rx_b_due(q);
	d = smdsp_v17_abcd[k];
	if (!k && q->symbols >= ACQ_END + ABAB_MIN &&
	    (int64_t)z.re * d[0] + (int64_t)z.im * d[1] < 0) {
		if (*err > ABAB_ERR_MAX * (q->symbols - ACQ_END))
			return SMDSP_V17_ABAB_LOST;
		*stage = next;
		q->symbols = 1;
		return SMDSP_V17_ABAB_END;
	}
	if (++q->symbols > ABAB_MAX)
		return SMDSP_V17_ABAB_LOST;
	*err += sq_err(z, d);
	smdsp_qam_rx_track(q, z, d[0] * U, d[1] * U, false, 2, 7);
	return SMDSP_V17_ABAB_ON;
}

/* Two bits of the training's scrambler: the first in bit 1. */
static unsigned int train_dibit(struct smdsp_v17_rx *s, unsigned int pattern)
{
	unsigned int b = (unsigned int)smdsp_qam_scramble(&s->scr, (int)pattern) << 1;

	return b | (unsigned int)smdsp_qam_scramble(&s->scr, (int)(pattern >> 1));
}

static void stage_ones(struct smdsp_v17_rx *s)
{
	struct smdsp_qam_rx *q = &s->q;

	s->stage = ST_ONES;
	q->symbols = 0;
	s->diff = s->short_train ? 0 : 1;
	q->ones_bits = 0;
	q->ones_zeros = 0;
	s->ones_ref = s->scr;
	s->ones_errs = 0;
	smdsp_viterbi_reset(&s->vit, 0);
	q->eq.mu_shift = DATA_EQ_MU;
	s->eq_skip = 0;
	q->ted.shift = DATA_TED_SHIFT;
	q->ted.int_shift = DATA_TED_INT;
	/*
	 * The integrator is read at the data loop's finer scale from here
	 * on, its value kept as it is: scaled up to carry the training's
	 * clock estimate over, it carried the pull-in's swing too (errors at
	 * 12000 with an echo, and after short trainings).
	 */
	q->ted.frac = DATA_TED_FRAC;
}

/*
 * A decoded point: its data bits, descrambled, to the user; in segment 4
 * compared before descrambling with the scrambled ones that the training's
 * scrambler goes on to send.
 */
static void deliver(struct smdsp_v17_rx *s, unsigned int code)
{
	unsigned int q = smdsp_trellis_diff_decode(&s->diff, code), i;

	if (s->stage == ST_ONES)
		for (i = 0; i < s->bits; i++)
			s->ones_errs += ((q >> i) & 1) != (unsigned int)smdsp_qam_scramble(&s->ones_ref, 1);
	for (i = 0; i < s->bits; i++)
		smdsp_qam_rx_bit(&s->q, smdsp_qam_descramble(&s->scr, (int)(q >> i) & 1),
				 s->stage == ST_ONES);
}

static void data_symbol(struct smdsp_v17_rx *s, struct smdsp_cplx z)
{
	struct smdsp_qam_rx *q = &s->q;
	int code = smdsp_viterbi_step(&s->vit, z.re, z.im);

	/* the equalizer follows every DATA_EQ_EVERY-th symbol in the data */
	s->eq_skip = s->eq_skip ? s->eq_skip - 1 : DATA_EQ_EVERY - 1;
	track_point(s, z, s->points[s->vit.hard], !s->eq_skip, 4, 11);
	if (code < 0)
		return;
	deliver(s, (unsigned int)code);
	/* the decoder's output reaches segment 4's end depth - 1 symbols late */
	if (s->stage == ST_ONES && ++q->symbols == SEG4_LEN) {
		/*
		 * Segment 4's bits against what was sent: under 30 % wrong
		 * (noise or a wrong alignment: half). The count of ones after
		 * the descrambler (smdsp_qam_rx_ones_ok(), a third) triples
		 * every error: at 12000 and 17 dB SNR, where the data that
		 * follows has a BER of 5e-4, 1 % of segment 4's failed it.
		 */
		if (!smdsp_qam_rx_verdict(q, s->ones_errs * 10 <= SEG4_LEN * s->bits * 3)) {
			acquire(s);
			return;
		}
		s->stage = ST_DATA;
		if (!s->short_train) {
			s->eq_save = q->eq;
			s->car_freq_save = q->car_freq;
			s->t_int_save = q->ted.t_int;
			s->have_long = true;
		}
		smdsp_qam_rx_status(q, SMDSP_STATUS_TRAINED);
	}
}

static void symbol(struct smdsp_v17_rx *s)
{
	static const uint8_t cdba[4] = { 2, 3, 1, 0 };
	static const uint8_t turn[4] = { 1, 0, 2, 3 };
	struct smdsp_qam_rx *q = &s->q;
	struct smdsp_cplx z = smdsp_qam_rx_symbol(q);
	enum smdsp_v17_abab ab;
	unsigned int k;
	const int8_t *d;

	switch (s->stage) {
	case ST_ACQ:
	case ST_ABAB:
		/* at the opposite of the A that was due: segment 2's first point, C */
		ab = smdsp_v17_rx_seg1(q, z, &s->stage, ST_CDBA, &s->abab_err);
		if (ab == SMDSP_V17_ABAB_LOST) {
			/* in noise, or no segment 2: start again on what comes */
			acquire(s);
		} else if (ab == SMDSP_V17_ABAB_END) {
			s->scr = SMDSP_V17_SCR_INIT;
			d = smdsp_v17_abcd[cdba[train_dibit(s, 3)]];
			track_point(s, z, d, !s->short_train, 2, 7);
		}
		break;
	case ST_CDBA:
		s->abcd = cdba[train_dibit(s, 3)];
		/* the short training keeps the equalizer of the long one */
		track_point(s, z, smdsp_v17_abcd[s->abcd], !s->short_train, 2,
			    s->short_train ? 9 : 7);
		if (++q->symbols == (s->short_train ? SHORT_SEG2_LEN : SEG2_LEN)) {
			if (s->short_train) {
				stage_ones(s);
			} else {
				s->stage = ST_BRIDGE;
				q->symbols = 0;
			}
		}
		break;
	case ST_BRIDGE:
		k = (q->symbols & 7) << 1;
		s->abcd = (s->abcd + turn[train_dibit(s, SMDSP_V17_BRIDGE >> k)]) & 3;
		track_point(s, z, smdsp_v17_abcd[s->abcd], true, 2, 7);
		if (++q->symbols == SEG3_LEN)
			stage_ones(s);
		break;
	case ST_ONES:
	case ST_DATA:
		data_symbol(s, z);
		break;
	}
}

static void half_baud(void *user, int32_t zr, int32_t zi)
{
	struct smdsp_v17_rx *s = user;

	/*
	 * Until segment 4, a rise in level is the far modem starting after
	 * noise that the receiver took for its training (segments 1 to 3 keep
	 * their level, echo included); the data's points swing too much for it.
	 */
	if (smdsp_qam_rx_half(&s->q, zr, zi, s->stage >= ST_ONES, acquire, s))
		symbol(s);
}

void smdsp_v17_rx_process(struct smdsp_v17_rx *s, const int16_t *x, unsigned int n)
{
	smdsp_qam_rx_front_process(&s->q.fe, x, n, half_baud, s);
}

void smdsp_v17_rx_reset(struct smdsp_v17_rx *s)
{
	smdsp_v17_rx_restart(s, s->rate, s->short_train);
}

int smdsp_v17_rx_print(const struct smdsp_v17_rx *s, char *buf, size_t len)
{
	return smdsp_qam_rx_print_as(&s->q, "v17_rx", s->rate, buf, len);
}
