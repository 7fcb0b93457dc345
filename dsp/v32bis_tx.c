// SPDX-License-Identifier: GPL-2.0
/*
 * V.32bis (and V.32) modulator: one direction of the duplex modem.
 *
 * 2400 baud on an 1800 Hz carrier, 10/3 samples per symbol, the same
 * root-raised-cosine pulse and carrier tables as V.17 (qam.c, V.29's pulse).
 * The transmitter sends a queue of signals, each for a number of symbols or
 * until the next one is sent; the start-up's controller (or a test) decides
 * what comes when.
 *
 * The signals use the four points A, B, C, D of V.32 (the same as V.17's
 * training points, each a quarter turn after the one before):
 * AA repeats A (a tone at 1800 Hz), CC repeats C; AC alternates A and C and
 * CA C and A (600 and 3000 Hz; CA is AC reversed); S alternates A and B,
 * S-bar C and D. TRN sends scrambled ones, two bits a symbol, directly onto
 * the points (00 A, 01 B, 11 C, 10 D); its first 256 symbols only A and C
 * (the first bit of each pair picks). R1/R2/R3 repeat a 16-bit rate word,
 * E sends one, both at 4800 bit/s: pairs of scrambled bits turn the last
 * point by 90 degrees (00), 0 (01), 180 (10) or 270 (11), as V.32's 4800
 * bit/s data. B1 sends scrambled ones at the data rate, then the data: at
 * 4800 bit/s as R, at 7200 to 14400 bit/s V.17's trellis code and points
 * (trellis.c, the encoder started in state 0 with Y2 Y1 = 00 at B1), and
 * at 9600 bit/s without the code (V.32's alternative, B8 = 0) on V.32's 16
 * points: Q1 Q2 turn the quadrant as at 4800 bit/s (Table 1/V.32: the
 * quadrant is Y1 Y2, A's 00, B's 01, C's 11, D's 10), Q3 Q4 pick the point
 * within it, the same in every quadrant turned (Table 3/V.32's
 * non-redundant column: in A's quadrant 00 (-1, -1), 01 (-3, -1) = A,
 * 10 (-1, -3), 11 (-3, -3); here in V.17's units, twice those). The 16
 * points' mean square is A's.
 *
 * The scrambler's state runs on from TRN (which starts it at zero) through
 * the rate words, B1 and the data. The caller's transmitter scrambles with
 * GPC, 1 + x^-18 + x^-23 (V.17's), the answerer's with GPA, 1 + x^-5 +
 * x^-23: the two directions of a call differ.
 */
#include <smdsp/private/v32bis.h>
#include <smdsp/private/v17.h>	/* the points and the modulator */

#define TXU SMDSP_V17_TX_UNIT	/* V.17's modulator, A..D and every constellation */

/* The rate bits of a word, B5 4800, B9 7200, B6 9600, B10 12000, B12 14400. */
static const uint16_t rate_bits[5] = { 0x0020, 0x0200, 0x0040, 0x0400, 0x1000 };
static const unsigned int rate_bps[5] = { 4800, 7200, 9600, 12000, 14400 };
/* the rates without the trellis code */
#define PLAIN (SMDSP_V32BIS_4800 | SMDSP_V32BIS_9600)

uint16_t smdsp_v32bis_rword(unsigned int rates, bool e)
{
	uint16_t w = SMDSP_V32BIS_RW_SYNC | SMDSP_V32BIS_RW_B4;
	unsigned int k;

	if (rates & SMDSP_V32BIS_UNCODED)
		rates &= PLAIN;
	else if (rates & SMDSP_V32BIS_ALL & ~SMDSP_V32BIS_4800)
		w |= SMDSP_V32BIS_RW_TCM;
	for (k = 0; k < 5; k++)
		if (rates & (1u << k))
			w |= rate_bits[k];
	if (e)
		w |= SMDSP_V32BIS_RW_HEAD;
	return w;
}

int smdsp_v32bis_rword_rates(uint16_t w, bool *e)
{
	unsigned int head = w & SMDSP_V32BIS_RW_HEAD, k, rates = 0;

	if ((w & SMDSP_V32BIS_RW_SYNC) != SMDSP_V32BIS_RW_SYNC ||
	    (head != 0 && head != SMDSP_V32BIS_RW_HEAD))
		return -1;
	/* B4, B13 and B14 are not read (a V.32bis modem was heard sending B4 = 1) */
	*e = head != 0;
	for (k = 0; k < 5; k++)
		if (w & rate_bits[k])
			rates |= 1u << k;
	/* no trellis code: the coded rates' bits mean nothing, 9600 is uncoded */
	if (!(w & SMDSP_V32BIS_RW_TCM)) {
		rates &= PLAIN;
		if (rates & SMDSP_V32BIS_9600)
			rates |= SMDSP_V32BIS_UNCODED;
	}
	return (int)rates;
}

unsigned int smdsp_v32bis_common(unsigned int a, unsigned int b)
{
	unsigned int r = a & b & SMDSP_V32BIS_ALL;

	if ((a | b) & SMDSP_V32BIS_UNCODED) {
		r &= PLAIN;
		if (r & SMDSP_V32BIS_9600)
			r |= SMDSP_V32BIS_UNCODED;
	}
	return r;
}

unsigned int smdsp_v32bis_best(unsigned int rates)
{
	int k;

	for (k = 4; k >= 0; k--)
		if (rates & (1u << k))
			return rate_bps[k];
	return 0;
}

unsigned int smdsp_v32bis_rate_bit(unsigned int bps)
{
	unsigned int k;

	for (k = 0; k < 5; k++)
		if (rate_bps[k] == bps)
			return 1u << k;
	return 0;
}

int smdsp_v32bis_scramble(uint32_t *reg, int bit, bool gpc)
{
	int out = (bit ^ (int)(*reg >> (gpc ? 17 : 4)) ^ (int)(*reg >> 22)) & 1;

	*reg = (*reg << 1) | (uint32_t)out;
	return out;
}

int smdsp_v32bis_descramble(uint32_t *reg, int bit, bool gpc)
{
	int out = (bit ^ (int)(*reg >> (gpc ? 17 : 4)) ^ (int)(*reg >> 22)) & 1;

	*reg = (*reg << 1) | (uint32_t)(bit & 1);
	return out;
}

int smdsp_v32bis_tx_init(struct smdsp_v32bis_tx *s, bool caller, int level_dbm0_10,
			 smdsp_get_bit_fn get_bit, smdsp_status_fn status_fn, void *user)
{
	memset(s, 0, sizeof(*s));
	smdsp_v17_qam_tx_init(&s->qt, level_dbm0_10);
	smdsp_qam_tx_calls(&s->qt, get_bit, status_fn, user);
	s->caller = caller;
	s->level_dbm0_10 = level_dbm0_10;
	s->cur.sig = SMDSP_V32BIS_SILENCE;
	s->rate = 4800;
	s->bits = 2;
	return 0;
}

struct smdsp_v32bis_tx *smdsp_v32bis_tx_create(bool caller, int level_dbm0_10,
					       smdsp_get_bit_fn get_bit,
					       smdsp_status_fn status_fn, void *user)
{
	struct smdsp_v32bis_tx *s = smdsp_alloc(sizeof(*s));

	if (s)
		smdsp_v32bis_tx_init(s, caller, level_dbm0_10, get_bit, status_fn, user);
	return s;
}

void smdsp_v32bis_tx_free(struct smdsp_v32bis_tx *s)
{
	smdsp_free(s);
}

void smdsp_v32bis_tx_reset(struct smdsp_v32bis_tx *s)
{
	smdsp_v32bis_tx_init(s, s->caller, s->level_dbm0_10, s->qt.get_bit, s->qt.status_fn,
			     s->qt.user);
}

int smdsp_v32bis_tx_queue(struct smdsp_v32bis_tx *s, enum smdsp_v32bis_sig sig,
			  unsigned int syms, unsigned int arg)
{
	struct smdsp_v32bis_seg *g;

	if (s->qlen >= SMDSP_V32BIS_QUEUE || sig > SMDSP_V32BIS_DATA)
		return -EINVAL;
	if (sig == SMDSP_V32BIS_B1 && !smdsp_v32bis_rate_bit(arg & ~SMDSP_V32BIS_B1_UNCODED))
		return -EINVAL;
	g = &s->queue[(s->qhead + s->qlen) % SMDSP_V32BIS_QUEUE];
	g->sig = (uint8_t)sig;
	g->arg = (uint16_t)arg;
	/* E is one word */
	g->syms = sig == SMDSP_V32BIS_E ? 8 : syms;
	s->qlen++;
	return 0;
}

int smdsp_v32bis_tx_send(struct smdsp_v32bis_tx *s, enum smdsp_v32bis_sig sig,
			 unsigned int syms, unsigned int arg)
{
	s->qlen = 0;
	if (s->cur.sig == SMDSP_V32BIS_R) {
		/* a rate sequence ends with a whole word */
		s->cur.syms = (s->cur_sent + 7) & ~7U;
	} else if (s->cur.sig == SMDSP_V32BIS_S) {
		/* S ends with B: S-bar's C comes where A was due */
		s->cur.syms = (s->cur_sent + 1) & ~1U;
	} else {
		/* the rest at the next symbol */
		s->cur.syms = 1;
		s->cur_sent = 1;
	}
	return smdsp_v32bis_tx_queue(s, sig, syms, arg);
}

enum smdsp_v32bis_sig smdsp_v32bis_tx_signal(const struct smdsp_v32bis_tx *s, uint32_t *syms)
{
	if (syms)
		*syms = s->cur_sent;
	return (enum smdsp_v32bis_sig)s->cur.sig;
}

uint32_t smdsp_v32bis_tx_symbols(const struct smdsp_v32bis_tx *s)
{
	return s->symbols;
}

static void start(struct smdsp_v32bis_tx *s)
{
	unsigned int np;

	s->cur_sent = 0;
	switch (s->cur.sig) {
	case SMDSP_V32BIS_TRN:
		s->scr = 0;
		break;
	case SMDSP_V32BIS_B1:
		s->rate = s->cur.arg & ~SMDSP_V32BIS_B1_UNCODED;
		s->bits = s->rate / 2400;
		s->uncoded = s->rate == 9600 && (s->cur.arg & SMDSP_V32BIS_B1_UNCODED);
		s->points = smdsp_v17_points(s->rate, &np);
		smdsp_trellis_enc_init(&s->enc, 0);
		break;
	default:
		break;
	}
}

/*
 * The next segment when this one is over (or is open-ended and another is
 * queued): the queue's, else silence after E, else more of the same.
 */
static void advance(struct smdsp_v32bis_tx *s)
{
	if (s->cur.syms ? s->cur_sent < s->cur.syms : !s->qlen)
		return;
	/* an open-ended rate sequence ends with a whole word */
	if (!s->cur.syms && s->cur.sig == SMDSP_V32BIS_R && (s->cur_sent & 7))
		return;
	if (!s->cur.syms && s->cur.sig == SMDSP_V32BIS_S && (s->cur_sent & 1))
		return;
	if (s->qlen) {
		s->cur = s->queue[s->qhead];
		s->qhead = (s->qhead + 1) % SMDSP_V32BIS_QUEUE;
		s->qlen--;
		start(s);
	} else if (s->cur.sig == SMDSP_V32BIS_E) {
		s->cur.sig = SMDSP_V32BIS_SILENCE;
		s->cur.syms = 0;
		s->cur_sent = 0;
	} else {
		s->cur.syms = 0;
	}
}

static int scr(struct smdsp_v32bis_tx *s, int bit)
{
	return smdsp_v32bis_scramble(&s->scr, bit, s->caller);
}

/* Two bits (Q1 first) at 4800 bit/s: the quarter turns from the last point. */
static unsigned int diff_quad(struct smdsp_v32bis_tx *s, int q1, int q2)
{
	static const uint8_t turn[4] = { 1, 0, 2, 3 };	/* Q1 Q2 = 00, 01, 10, 11 */

	s->quad = (s->quad + turn[(scr(s, q1) << 1) | scr(s, q2)]) & 3;
	return s->quad;
}

/* V.32's uncoded 9600 bit/s in A's quadrant by Q3 Q4 (Q3 in bit 1), in V.17's units */
static const int8_t pts16[4][2] = { { -2, -2 }, { -6, -2 }, { -2, -6 }, { -6, -6 } };

void smdsp_v32bis_u16_point(unsigned int quad, unsigned int q34, int8_t p[2])
{
	int x = pts16[q34 & 3][0], y = pts16[q34 & 3][1], t;

	/* each quadrant a quarter turn on from the one before, as A, B, C, D */
	for (; quad & 3; quad--) {
		t = x;
		x = -y;
		y = t;
	}
	p[0] = (int8_t)x;
	p[1] = (int8_t)y;
}

static int data_bit(struct smdsp_v32bis_tx *s)
{
	if (s->cur.sig == SMDSP_V32BIS_DATA && s->qt.get_bit)
		return s->qt.get_bit(s->qt.user) & 1;
	return 1;
}

void smdsp_v32bis_tx_symbol(struct smdsp_v32bis_tx *s, int *re, int *im)
{
	static const uint8_t direct[4] = { 0, 1, 3, 2 };	/* 00 A, 01 B, 10 D, 11 C */
	const int8_t *p = NULL;
	int8_t u[2];
	unsigned int k, q = 0, n;
	int b1, b2;

	advance(s);
	n = s->cur_sent++;
	s->symbols++;
	switch (s->cur.sig) {
	case SMDSP_V32BIS_AA:
		p = smdsp_v17_abcd[0];
		break;
	case SMDSP_V32BIS_CC:
		p = smdsp_v17_abcd[2];
		break;
	case SMDSP_V32BIS_AC:
		p = smdsp_v17_abcd[(n & 1) * 2];
		break;
	case SMDSP_V32BIS_CA:
		p = smdsp_v17_abcd[(~n & 1) * 2];
		break;
	case SMDSP_V32BIS_S:
		p = smdsp_v17_abcd[n & 1];
		break;
	case SMDSP_V32BIS_SBAR:
		p = smdsp_v17_abcd[2 + (n & 1)];
		break;
	case SMDSP_V32BIS_TRN:
		b1 = scr(s, 1);
		b2 = scr(s, 1);
		s->quad = n < SMDSP_V32BIS_TRN_AC ? (unsigned int)b1 * 2 : direct[(b1 << 1) | b2];
		p = smdsp_v17_abcd[s->quad];
		break;
	case SMDSP_V32BIS_R:
	case SMDSP_V32BIS_E:
		k = (n * 2) & 15;
		p = smdsp_v17_abcd[diff_quad(s, (s->cur.arg >> k) & 1, (s->cur.arg >> (k + 1)) & 1)];
		break;
	case SMDSP_V32BIS_B1:
	case SMDSP_V32BIS_DATA:
		if (s->rate == 4800) {
			b1 = data_bit(s);
			b2 = data_bit(s);
			p = smdsp_v17_abcd[diff_quad(s, b1, b2)];
			break;
		}
		if (s->uncoded) {
			b1 = data_bit(s);
			b2 = data_bit(s);
			k = diff_quad(s, b1, b2);
			/* Q3, Q4 */
			q = (unsigned int)scr(s, data_bit(s)) << 1;
			q |= (unsigned int)scr(s, data_bit(s));
			smdsp_v32bis_u16_point(k, q, u);
			p = u;
			break;
		}
		for (k = 0; k < s->bits; k++)
			q |= (unsigned int)scr(s, data_bit(s)) << k;
		p = s->points[smdsp_trellis_encode(&s->enc, q)];
		break;
	default:
		break;
	}
	*re = p ? p[0] : 0;
	*im = p ? p[1] : 0;
}

static void tx_symbol(void *user, int *re, int *im)
{
	smdsp_v32bis_tx_symbol(user, re, im);
	*re *= TXU;
	*im *= TXU;
}

void smdsp_v32bis_tx_process(struct smdsp_v32bis_tx *s, int16_t *out, unsigned int n)
{
	smdsp_qam_tx_process(&s->qt, out, n, tx_symbol, s);
}

int smdsp_v32bis_tx_print(const struct smdsp_v32bis_tx *s, char *buf, size_t len)
{
	return snprintf(buf, len, "v32bis_tx %s sig=%u sent=%u queued=%u rate=%u%s symbols=%u",
			s->caller ? "caller" : "answerer", s->cur.sig, s->cur_sent, s->qlen,
			s->rate, s->uncoded ? " uncoded" : "", s->symbols);
}
