// SPDX-License-Identifier: GPL-2.0
/*
 * V.32bis (and V.32) demodulator: one direction of the duplex modem, from S
 * to the data.
 *
 * The front end, the Gardner loop, the carrier detector and AGC, the
 * equalizer and the carrier loop are V.17's (qam.c, eq.c: the same carrier,
 * baud and pulse), and so are the acquisition on an A/B alternation and its
 * end: S alternates A and B as V.17's first training segment does, and
 * S-bar's first point, C, comes where A was due, as V.17's segment 2 does.
 * The 16 symbols of S-bar (C, D) go on tracking. TRN follows and trains
 * the equalizer on decisions: its first 256 symbols are A or C, the rest
 * any of the four points, and there the decisions unlike what TRN's
 * recurrence predicts are left out (TRN is scrambled ones: trn_ref()). S
 * gives the clock loop nothing (its T/2 samples are alike at any phase):
 * TRN's first symbols find it.
 *
 * From TRN on, every symbol's point also gives two bits at 4800 bit/s (the
 * quarter turns from the last point, V.32's 00 +90, 01 0, 10 +180, 11 +270
 * degrees, descrambled by the far end's polynomial: GPA for the caller's
 * receiver, GPC for the answerer's), and a window of the last 16 looks for
 * a rate word (B0-B3 0000, B7, B11, B15 1: smdsp_v32bis_rword_rates()).
 * TRN's points are not differentially coded: what it gives is noise to the
 * window, which a rate word must match twice, 16 bits apart, to count. E
 * (B0-B3 1111) after that, on a boundary of the words, names the rate; B1
 * follows at once: at 4800 bit/s on the four points, at 7200 to 14400
 * through the Viterbi decoder (viterbi.c, started in any state) and the
 * differential decoder, at 9600 without the code (E's B8 = 0) on V.32's 16
 * points: the nearest point's quadrant gives Q1 Q2 as at 4800 bit/s, its
 * place in the quadrant Q3 Q4 (v32bis_tx.c). The first 64 of B1's 128
 * symbols of scrambled ones must come out as ones (under 10 % wrong) for
 * the receiver to be trained; the data follows, the equalizer moving every
 * fourth symbol as in V.17.
 *
 * In the data it also watches for the far end's S (a rate renegotiation):
 * twelve symbols running as S does (the point two back again, a quarter
 * turn from the one before: rotation-free, as the carrier may sit a quarter
 * turn off after the data). The data's decisions are held HOLD symbols, so
 * that the symbols of S are dropped, not delivered, and the data's last
 * ones are re-decided on the best survivor as it stood just before S. Then
 * S-bar, the rate words at once (no TRN), E and B1 on the loops the data
 * left, the equalizer still; B1's ones after the check are not data.
 *
 * The receiver follows one training: its user (the start-up's controller)
 * resets it before each S it expects, so that neither the carrier
 * detector's memory of the tones before nor an earlier training's loops
 * get in the way.
 */
#include <smdsp/private/v32bis.h>
#include <smdsp/private/v17.h>	/* the points */
#include <smdsp/private/v29.h>	/* the matched filter */

#define U SMDSP_V32BIS_UNIT
#define PNORM (40 * U * U)	/* every constellation's mean square */
/* S is followed by V.17's receiver (smdsp_v17_rx_seg1()), at its unit */
_Static_assert(SMDSP_V32BIS_UNIT == SMDSP_V17_UNIT, "V.32bis's unit is V.17's");
#define EQ_LEN 24
#define EQ_CENTRE 8
#define DATA_EQ_EVERY 4
#define DATA_EQ_MU 5
/*
 * The clock loop's integrator through the training: slow (V.17's 17 let it
 * wander on a real modem's recording, doc/v32bis.md: its TRN then left the
 * equalizer unconverged at five of eight input levels; 22 to 26 trained at
 * all eight). The data's loop learns the clock offset.
 */
#define TRAIN_TED_INT 24
/*
 * The carrier loop's integrator on TRN: V.17's for its first 512 symbols,
 * then 16 times slower: the frequency it leaves to the data was off by up
 * to 0.8 Hz on a line without offset at 18-21 dB of SNR, and B1 came out as
 * noise (4 of 16 trainings at 14400/21 dB and 12000/18 dB; now 1 of 48)
 */
#define TRN_FAST 512
#define TRN_ISHIFT 11
#define DATA_TED_SHIFT 12
#define DATA_TED_INT 20
#define DATA_TED_FRAC 6
#define TRN_MAX 8192		/* V.32: TRN lasts 1280 to 8192 symbols */
#define R_MAX 4800		/* a rate word's repetitions and the wait for E */
/*
 * B1's symbols checked: 64 of its 128 (a real modem's answerer was heard
 * to change from ones to its data about 110 symbols after E);
 * the rest go to the user as data (ones, an idle line).
 */
#define B1_CHECK 64
/*
 * A renegotiation's S in the data: symbols running as S does (the same
 * point two symbols back, a quarter turn from the one before, at the
 * constellation's power) before it counts; at 4800 bit/s, where S is data
 * too, a run of 12 is one chance in 8^12 a symbol
 */
#define S_RUN 12
#define S_TOL (PNORM / 6)
#define RS_MAX 1024	/* |z - z two back|^2: 2.6 units */
/*
 * A decision is delivered HOLD symbols after its symbol came (the Viterbi
 * decoder's delay within it): long enough for S to be found first, so
 * that no symbol of S is delivered as data and the data's last symbols
 * are those the best survivor held just before S (SMDSP_V32BIS_RX_HIST)
 */
#define HOLD 28

enum {
	ST_ACQ = SMDSP_V17_ST_ACQ, ST_ABAB = SMDSP_V17_ST_ABAB,
	ST_SBAR, ST_TRN, ST_R, ST_B1, ST_DATA, ST_RS
};

static void acquire(void *modem)
{
	struct smdsp_v32bis_rx *s = modem;

	smdsp_qam_rx_acquire(&s->q, 10, TRAIN_TED_INT);
	smdsp_eq_init(&s->q.eq, EQ_LEN, EQ_CENTRE, 5);
	s->q.car_freq = 0;
	s->stage = ST_ACQ;
	s->rate = 0;
	s->rword = 0;
	s->cand = 0;
	s->reneg = false;
	s->hold_ones = 0;
}

int smdsp_v32bis_rx_init(struct smdsp_v32bis_rx *s, bool caller, smdsp_put_bit_fn put_bit,
			 smdsp_status_fn status_fn, void *user)
{
	memset(s, 0, sizeof(*s));
	s->caller = caller;
	/* as V.17's: S is its segment 1, at its unit */
	smdsp_v17_qam_rx_init(&s->q, put_bit, status_fn, user);
	s->q.fe.mf = smdsp_v29_rx_rrc;
	s->q.fe.half_t = SMDSP_QAM_TUNIT * 5 / 3;
	acquire(s);
	return 0;
}

struct smdsp_v32bis_rx *smdsp_v32bis_rx_create(bool caller, smdsp_put_bit_fn put_bit,
					       smdsp_status_fn status_fn, void *user)
{
	struct smdsp_v32bis_rx *s = smdsp_alloc(sizeof(*s));

	if (s)
		smdsp_v32bis_rx_init(s, caller, put_bit, status_fn, user);
	return s;
}

void smdsp_v32bis_rx_free(struct smdsp_v32bis_rx *s)
{
	smdsp_free(s);
}

void smdsp_v32bis_rx_reset(struct smdsp_v32bis_rx *s)
{
	smdsp_v32bis_rx_init(s, s->caller, s->q.put_bit, s->q.status_fn, s->q.user);
}

enum smdsp_v32bis_rx_state smdsp_v32bis_rx_state(const struct smdsp_v32bis_rx *s)
{
	static const uint8_t map[] = {
		[ST_ACQ] = SMDSP_V32BIS_RX_IDLE, [ST_ABAB] = SMDSP_V32BIS_RX_S,
		[ST_SBAR] = SMDSP_V32BIS_RX_SBAR, [ST_TRN] = SMDSP_V32BIS_RX_TRN,
		[ST_R] = SMDSP_V32BIS_RX_R, [ST_B1] = SMDSP_V32BIS_RX_B1,
		[ST_DATA] = SMDSP_V32BIS_RX_DATA, [ST_RS] = SMDSP_V32BIS_RX_S,
	};

	return (enum smdsp_v32bis_rx_state)map[s->stage];
}

uint16_t smdsp_v32bis_rx_rword(const struct smdsp_v32bis_rx *s)
{
	return s->rword;
}

unsigned int smdsp_v32bis_rx_rate(const struct smdsp_v32bis_rx *s)
{
	return s->rate;
}

bool smdsp_v32bis_rx_trellis(const struct smdsp_v32bis_rx *s)
{
	return s->coded;
}

bool smdsp_v32bis_rx_trained(const struct smdsp_v32bis_rx *s)
{
	return s->q.trained;
}

int smdsp_v32bis_rx_snr_10(const struct smdsp_v32bis_rx *s)
{
	/* 10 log10(mean square / mse), log2 by the top bit and a linear fraction */
	uint64_t r = smdsp_div_u64((uint64_t)(PNORM >> 10) << 16, s->q.mse > 0 ? (uint32_t)s->q.mse : 1);
	int top = 63, l2;

	if (!r)
		return -160;
	while (!(r >> top))
		top--;
	l2 = top * 256 + (int)(top >= 8 ? (r >> (top - 8)) & 255 : (r << (8 - top)) & 255) - 16 * 256;
	return l2 * 30103 / 256000;
}

static void track(struct smdsp_v32bis_rx *s, struct smdsp_cplx z, const int8_t *d, bool eq,
		  int pshift, int ishift)
{
	smdsp_qam_rx_track(&s->q, z, d[0] * U, d[1] * U, eq, pshift, ishift);
}

/*
 * The nearest of V.32's 16 points: its quadrant (0 A's ... 3 D's) and Q3
 * Q4 (Q3 in bit 1); p its coordinates.
 */
static unsigned int decide16(struct smdsp_cplx z, unsigned int *q34, int8_t p[2])
{
	/* each axis to -6, -2, 2 or 6 units */
	int x = z.re < -4 * U ? -6 : z.re < 0 ? -2 : z.re < 4 * U ? 2 : 6;
	int y = z.im < -4 * U ? -6 : z.im < 0 ? -2 : z.im < 4 * U ? 2 : 6;
	unsigned int quad = x < 0 ? (y < 0 ? 0 : 3) : (y < 0 ? 1 : 2), k;
	int t;

	p[0] = (int8_t)x;
	p[1] = (int8_t)y;
	/* back to A's quadrant: a quarter turn clockwise per quadrant */
	for (k = quad; k; k--) {
		t = x;
		x = y;
		y = -t;
	}
	*q34 = (x == -6 ? 1u : 0u) | (y == -6 ? 2u : 0u);
	return quad;
}

/* The nearest of A, B, C, D (0..3); only A or C if ac. */
static unsigned int decide4(struct smdsp_cplx z, bool ac)
{
	unsigned int k, best = 0;
	int64_t bv = 0, v;

	for (k = 0; k < 4; k += ac ? 2 : 1) {
		v = (int64_t)z.re * smdsp_v17_abcd[k][0] + (int64_t)z.im * smdsp_v17_abcd[k][1];
		if (!k || v > bv) {
			bv = v;
			best = k;
		}
	}
	return best;
}

static int descr(struct smdsp_v32bis_rx *s, int bit)
{
	/* the far end's scrambler: the answerer hears the caller's GPC */
	return smdsp_v32bis_descramble(&s->scr, bit, !s->caller);
}

/* A point at 4800 bit/s: the two line bits its quarter turns give, Q1 in bit 0. */
static unsigned int quad_turn(struct smdsp_v32bis_rx *s, unsigned int k)
{
	/* turn 0: Q1 Q2 = 01, 1: 00, 2: 10, 3: 11 */
	static const uint8_t q[4] = { 2, 0, 1, 3 };
	unsigned int t = q[(k - s->quad) & 3];

	s->quad = k;
	return t;
}

/* The same, descrambled. */
static unsigned int quad_bits(struct smdsp_v32bis_rx *s, unsigned int k)
{
	unsigned int t = quad_turn(s, k), b1 = (unsigned int)descr(s, (int)(t & 1));

	return b1 | ((unsigned int)descr(s, (int)(t >> 1)) << 1);
}

/*
 * TRN's point after its first 256 symbols, as predicted. TRN is scrambled
 * ones: each line bit is 1 ^ the far scrambler's taps on the line bits
 * before it. Once 24 symbols running were decided as that recurrence
 * predicts, a decision unlike the prediction (the untrained equalizer's
 * error, or R begun) does not move the equalizer; 8 more misses than hits
 * (R, or a false lock) and the decisions alone rule again.
 */
static unsigned int trn_ref(struct smdsp_v32bis_rx *s, unsigned int k)
{
	static const uint8_t pt[4] = { 0, 1, 3, 2 };	/* line bits 00 A, 01 B, 10 D, 11 C */
	int tap = s->caller ? 4 : 17;	/* the far end's: GPA x^-5, GPC x^-18 */
	unsigned int i, p = 0, dec = (k == 2 || k == 3) << 1 | (k == 1 || k == 2), use;

	for (i = 0; i < 2; i++) {
		unsigned int b = 1 ^ ((s->trn_hist >> tap) & 1) ^ ((s->trn_hist >> 22) & 1);

		p = (p << 1) | b;
		s->trn_hist = (s->trn_hist << 1) | ((s->trn_lock ? p : dec >> (1 - i)) & 1);
	}
	if (p == dec) {
		if (s->trn_lock) {
			if (s->trn_miss)
				s->trn_miss--;
		} else if (++s->trn_run >= 24) {
			s->trn_lock = true;
			s->trn_miss = 0;
		}
	} else {
		s->trn_run = 0;
		if (s->trn_lock && ++s->trn_miss > 8)
			s->trn_lock = false;
	}
	use = s->trn_lock ? p : dec;
	return pt[use];
}

static void start_b1(struct smdsp_v32bis_rx *s, unsigned int rate, bool uncoded)
{
	struct smdsp_qam_rx *q = &s->q;

	s->rate = rate;
	s->bits = rate / 2400;
	s->coded = rate != 4800 && !(uncoded && rate == 9600);
	s->stage = ST_B1;
	q->symbols = 0;
	s->ones_errs = 0;
	s->ones_bits = 0;
	s->diff = 0;
	if (s->coded) {
		s->points = smdsp_v17_points(rate, &s->npoints);
		smdsp_viterbi_init(&s->vit, s->points[0], s->npoints, U, SMDSP_VITERBI_DEPTH, -1);
	}
	q->eq.mu_shift = DATA_EQ_MU;
	s->eq_skip = 0;
	q->ted.shift = DATA_TED_SHIFT;
	q->ted.int_shift = DATA_TED_INT;
	q->ted.frac = DATA_TED_FRAC;
	s->nsym = 0;
	s->dq_lo = 0;
	s->dq_hi = 0;
	s->s_run = 0;
	/* after a renegotiation B1's ones are not data: the user's stream goes on */
	s->hold_ones = s->reneg;
	s->reneg = false;
}

/* The rate words in the 4800 bit/s stream of TRN, R and E. */
static void word_bits(struct smdsp_v32bis_rx *s, unsigned int b)
{
	int rates;
	bool e;

	s->win = (uint16_t)((s->win >> 2) | (b << 14));
	s->wbits += 2;
	rates = smdsp_v32bis_rword_rates(s->win, &e);
	if (rates < 0)
		return;
	if (e) {
		/*
		 * on the rate words' boundaries only: the end of R and the
		 * start of E can look like an E word
		 */
		if (s->stage == ST_R && !(s->wbits & 15) && smdsp_v32bis_best((unsigned int)rates))
			start_b1(s, smdsp_v32bis_best((unsigned int)rates),
				 rates & SMDSP_V32BIS_UNCODED);
		return;
	}
	/* in a renegotiation a word with no rate is the cleardown */
	if ((rates || s->reneg) && s->win == s->cand && s->wbits == 16) {
		s->rword = s->win;
		if (s->stage == ST_TRN) {
			s->stage = ST_R;
			s->q.symbols = 0;
		}
	}
	s->cand = s->win;
	s->wbits = 0;
}

/* B1 and the data: bits descrambled, B1's compared with ones, the data's to the user. */
static void deliver(struct smdsp_v32bis_rx *s, unsigned int q)
{
	struct smdsp_qam_rx *qr = &s->q;
	unsigned int i;
	int b;

	if (s->hold_ones && s->stage == ST_DATA && ++qr->symbols > SMDSP_V32BIS_B1_LEN)
		s->hold_ones = 0;
	for (i = 0; i < s->bits; i++) {
		b = descr(s, (int)(q >> i) & 1);
		if (s->hold_ones && s->stage == ST_DATA) {
			if (b)
				continue;
			s->hold_ones = 0;
		}
		if (s->stage == ST_B1) {
			s->ones_bits++;
			s->ones_errs += !b;
		} else if (qr->put_bit) {
			qr->put_bit(qr->user, b);
		}
	}
	if (s->stage == ST_B1 && ++qr->symbols == B1_CHECK) {
		if (!smdsp_qam_rx_verdict(qr, s->ones_errs * 10 <= s->ones_bits)) {
			acquire(s);
			return;
		}
		s->stage = ST_DATA;
		smdsp_qam_rx_status(qr, SMDSP_STATUS_TRAINED);
	}
}

/* A decision: B1's at once, the data's held (HOLD) */
static void decided(struct smdsp_v32bis_rx *s, uint32_t n, unsigned int code)
{
	if (s->stage != ST_DATA) {
		deliver(s, s->coded ? smdsp_trellis_diff_decode(&s->diff, code) : code);
		return;
	}
	if (s->dq_lo == s->dq_hi)
		s->dq_lo = n;
	s->dq[n & (SMDSP_V32BIS_RX_HIST - 1)] = (uint8_t)code;
	s->dq_hi = n + 1;
}

static void release(struct smdsp_v32bis_rx *s, uint32_t upto)
{
	while (s->dq_lo != s->dq_hi && (int32_t)(upto - s->dq_lo) > 0 && s->stage == ST_DATA) {
		unsigned int c = s->dq[s->dq_lo++ & (SMDSP_V32BIS_RX_HIST - 1)];

		deliver(s, s->coded ? smdsp_trellis_diff_decode(&s->diff, c) : c);
	}
}

static int64_t dot(struct smdsp_cplx a, struct smdsp_cplx b)
{
	return ((int64_t)a.re * b.re + (int64_t)a.im * b.im) >> 10;
}

static int64_t dist2(struct smdsp_cplx a, struct smdsp_cplx b)
{
	int64_t r = (int64_t)a.re - b.re, i = (int64_t)a.im - b.im;

	return (r * r + i * i) >> 10;
}

static struct smdsp_cplx zh(const struct smdsp_v32bis_rx *s, uint32_t n)
{
	return s->zh[n & (SMDSP_V32BIS_RX_HIST - 1)];
}

/* symbol n runs as S does: n - 2 the same point, n - 1 a quarter turn away, all at S's power */
static bool s_like(const struct smdsp_v32bis_rx *s, uint32_t n)
{
	struct smdsp_cplx z = zh(s, n), z1 = zh(s, n - 1), z2 = zh(s, n - 2);
	int64_t p = dot(z, z), c = dot(z, z1);

	return p > (PNORM >> 10) / 2 && p < 2 * (PNORM >> 10) && dist2(z, z2) < (S_TOL >> 10) &&
	       c < (PNORM >> 10) / 3 && -c < (PNORM >> 10) / 3;
}

/*
 * S found at symbol t: it began where the symbols before stop matching its
 * two points. What came before is the data: the decisions held up to
 * there are delivered, at the trellis rates those of the best survivor
 * just before S (the later ones were chosen with S's symbols taken for
 * data); the rest is dropped. Then S, S-bar and the rate words.
 */
static void s_found(struct smdsp_v32bis_rx *s, uint32_t t)
{
	uint32_t n0 = t - 1, n;

	while (t - n0 < SMDSP_V32BIS_RX_HIST - 2 && (int32_t)(n0 - 1 - s->dq_lo) >= 0 &&
	       dist2(zh(s, n0 - 1), zh(s, n0 + 1)) < (S_TOL >> 10))
		n0--;
	if (s->coded) {
		const uint8_t *snap = s->snap[(n0 - 1) & (SMDSP_V32BIS_RX_HIST - 1)];

		for (n = s->dq_lo; (int32_t)(n - n0) < 0; n++) {
			unsigned int c = (int32_t)(n0 - n) <= SMDSP_VITERBI_DEPTH ?
					 snap[SMDSP_VITERBI_DEPTH - (n0 - n)] :
					 s->dq[n & (SMDSP_V32BIS_RX_HIST - 1)];

			deliver(s, smdsp_trellis_diff_decode(&s->diff, c));
		}
	} else {
		release(s, n0);
	}
	s->dq_lo = 0;
	s->dq_hi = 0;
	s->stage = ST_RS;
	s->reneg = true;
	s->q.trained = false;
	s->q.symbols = t - n0 + 1;
	s->rword = 0;
	s->cand = 0;
}

/* the best survivor's decisions now, oldest first */
static void snapshot(struct smdsp_v32bis_rx *s, uint32_t n)
{
	const struct smdsp_viterbi *v = &s->vit;
	uint8_t *d = s->snap[n & (SMDSP_V32BIS_RX_HIST - 1)];
	unsigned int b = 0, k, col;

	while (b < SMDSP_TRELLIS_STATES - 1 && v->metric[b])
		b++;
	col = v->pos;
	for (k = SMDSP_VITERBI_DEPTH; k > 0; k--) {
		d[k - 1] = v->path[v->cur][b].c[col];
		col = col ? col - 1 : v->depth - 1;
	}
}

static void data_symbol(struct smdsp_v32bis_rx *s, struct smdsp_cplx z)
{
	uint32_t n = s->nsym++;
	unsigned int k;
	int code;

	s->zh[n & (SMDSP_V32BIS_RX_HIST - 1)] = z;
	s->eq_skip = s->eq_skip ? s->eq_skip - 1 : DATA_EQ_EVERY - 1;
	if (s->rate == 4800) {
		k = decide4(z, false);
		track(s, z, smdsp_v17_abcd[k], !s->eq_skip, 4, 11);
		decided(s, n, quad_turn(s, k));
	} else if (!s->coded) {
		int8_t p[2];
		unsigned int q34;

		k = decide16(z, &q34, p);
		track(s, z, p, !s->eq_skip, 4, 11);
		decided(s, n, quad_turn(s, k) | ((q34 >> 1) << 2) | ((q34 & 1) << 3));
	} else {
		code = smdsp_viterbi_step(&s->vit, z.re, z.im);
		s->hard[n & (SMDSP_V32BIS_RX_HIST - 1)] = s->vit.hard;
		snapshot(s, n);
		track(s, z, s->points[s->vit.hard], !s->eq_skip, 4, 11);
		if (code >= 0) {
			uint32_t m = n - (SMDSP_VITERBI_DEPTH - 1);

			if (s->stage == ST_DATA) {
				s->raw_syms++;
				s->raw_errs += s->hard[m & (SMDSP_V32BIS_RX_HIST - 1)] != code;
			}
			decided(s, m, (unsigned int)code);
		}
	}
	if (s->stage != ST_DATA)
		return;
	s->s_run = n >= 2 && s_like(s, n) ? s->s_run + 1 : 0;
	if (s->s_run >= S_RUN) {
		s_found(s, n);
		return;
	}
	release(s, n + 1 - HOLD);
}

/* A renegotiation's S: the carrier followed on the nearest of the four points, S-bar found */
static void rs_symbol(struct smdsp_v32bis_rx *s, struct smdsp_cplx z)
{
	struct smdsp_qam_rx *q = &s->q;
	uint32_t n = s->nsym++;

	s->zh[n & (SMDSP_V32BIS_RX_HIST - 1)] = z;
	track(s, z, smdsp_v17_abcd[decide4(z, false)], false, 4, 11);
	/* the answering end's S lasts until it has read the rate words */
	if (++q->symbols > RS_MAX) {
		smdsp_qam_rx_status(q, SMDSP_STATUS_TRAINING_FAILED);
		acquire(s);
		return;
	}
	/* S-bar: the point opposite the one due */
	if (q->symbols > S_RUN && dot(z, zh(s, n - 2)) < -(PNORM >> 10) / 2) {
		s->stage = ST_SBAR;
		q->symbols = 1;
	}
}

static void symbol(struct smdsp_v32bis_rx *s)
{
	struct smdsp_qam_rx *q = &s->q;
	struct smdsp_cplx z = smdsp_qam_rx_symbol(q);
	unsigned int k;
	enum smdsp_v17_abab ab;
	bool ac, upd;

	switch (s->stage) {
	case ST_ACQ:
	case ST_ABAB:
		/* S is V.17's segment 1; S-bar's C stands where A was due */
		ab = smdsp_v17_rx_seg1(q, z, &s->stage, ST_SBAR, &s->abab_err);
		if (ab == SMDSP_V17_ABAB_LOST)
			acquire(s);
		else if (ab == SMDSP_V17_ABAB_END)
			track(s, z, smdsp_v17_abcd[2], true, 2, 7);
		break;
	case ST_SBAR:
		/* after the data the carrier may sit a quarter turn off: the nearest point */
		k = s->reneg ? decide4(z, false) : 2 + (q->symbols & 1);
		track(s, z, smdsp_v17_abcd[k], !s->reneg, s->reneg ? 4 : 2, s->reneg ? 11 : 7);
		if (++q->symbols == SMDSP_V32BIS_SBAR_LEN) {
			s->stage = ST_TRN;
			q->symbols = 0;
			s->quad = k;	/* S-bar's last point, D */
			s->win = 0;
			s->wbits = 0;
			s->cand = 0;
			s->trn_hist = 0;
			s->trn_run = 0;
			s->trn_miss = 0;
			s->trn_lock = false;
		}
		break;
	case ST_TRN:
	case ST_R:
		/* a renegotiation's rate words follow S-bar at once, the loops as in the data */
		ac = s->stage == ST_TRN && q->symbols < SMDSP_V32BIS_TRN_AC && !s->reneg;
		k = decide4(z, ac);
		upd = true;
		if (s->stage == ST_TRN && !ac && !s->reneg && trn_ref(s, k) != k)
			upd = false;
		/* the carrier's frequency: fast at first, then quieter for the data */
		if (s->reneg)
			track(s, z, smdsp_v17_abcd[k], false, 4, 11);
		else
			track(s, z, smdsp_v17_abcd[k], upd, 2,
			      s->stage == ST_TRN && q->symbols < TRN_FAST ? 7 : TRN_ISHIFT);
		word_bits(s, quad_bits(s, k));
		if (s->stage <= ST_R &&
		    ++q->symbols > (s->stage == ST_TRN && !s->reneg ? TRN_MAX : R_MAX)) {
			smdsp_qam_rx_status(q, SMDSP_STATUS_TRAINING_FAILED);
			acquire(s);
		}
		break;
	case ST_B1:
	case ST_DATA:
		data_symbol(s, z);
		break;
	case ST_RS:
		rs_symbol(s, z);
		break;
	}
}

static void half_baud(void *user, int32_t zr, int32_t zi)
{
	struct smdsp_v32bis_rx *s = user;

	if (smdsp_qam_rx_half(&s->q, zr, zi, s->stage >= ST_B1 || s->reneg, acquire, s))
		symbol(s);
}

void smdsp_v32bis_rx_process(struct smdsp_v32bis_rx *s, const int16_t *x, unsigned int n)
{
	smdsp_qam_rx_front_process(&s->q.fe, x, n, half_baud, s);
}

int smdsp_v32bis_rx_print(const struct smdsp_v32bis_rx *s, char *buf, size_t len)
{
	return snprintf(buf, len,
			"v32bis_rx %s stage=%u rate=%u%s rword=0x%04x carrier=%d trained=%d symbols=%u mse=%d",
			s->caller ? "caller" : "answerer", s->stage, s->rate,
			s->rate == 9600 && !s->coded ? " uncoded" : "", s->rword,
			s->q.det.carrier, s->q.trained, s->q.symbols, s->q.mse);
}
