// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 data-mode framing (9.2, 9.3).
 *
 * Time is cut into superframes of J data frames (280 ms), each data frame
 * into P mapping frames, each mapping frame into four 4D symbols (eight
 * symbol intervals). J and P depend on the symbol rate only (J = 7 for 2400,
 * 2800, 3000, 3200; 8 for 2743 and 3429; P = 12, 12, 14, 15, 16, 15). A
 * data frame carries N = (R + 200 if the auxiliary channel runs) x 0.28 / J
 * bits, an integer for every rate; its P mapping frames carry b = ceil(N/P)
 * ("high") or b - 1 ("low") bits, r = N - (b - 1)P of them high. Which are
 * high is the switching pattern: frame i is high when the running count
 * (i + 1)r / P passes an integer. The W = 15 - J auxiliary bits of a data
 * frame are spread the same way ((i + 1)W / P).
 *
 * A frame's bits, first in time first: the shell bits (K in a high frame,
 * K - 1 in a low one), then for each 4D symbol its I1, I2, I3 and the q Q
 * bits of each of its two 2D symbols. K = b - 12 - 8q with q the smallest
 * that keeps K under 32; when b <= 12 there are no shell or Q bits, and the
 * first (bits - 8) 4D symbols have three I bits, the others two (I3 = 0).
 * M, the number of rings, is the least with M^8 >= 2^K (minimum shaping) or
 * the nearest integer to 1.25 x 2^(K/8) (expanded), computed here as
 * integer comparisons of eighth powers. The auxiliary bit, unscrambled,
 * takes the place of the first I bit (I1 of 4D symbol 0).
 *
 * The superframe sync: the first 4D symbol of each half data frame carries
 * one bit of the pattern 0111011111111010 (first in time first; the first
 * 14 when J = 7), sent by inverting that 4D symbol's Y0 (v0 here, used by
 * the trellis encoder). With P = 15 a half data frame is 7.5 mapping frames:
 * the second half starts at the third 4D symbol of mapping frame 7.
 */
#include <smdsp/private/v34_frame.h>

static const struct {
	uint16_t sym, a, c;		/* symbols/s (nominal) = 2400 a / c */
	uint8_t j, p;
	uint16_t min_rate, max_rate;	/* data rates allowed (Table 7) */
} rates[SMDSP_V34_SYMBOL_RATES] = {
	{ 2400, 1, 1, 7, 12, 2400, 21600 },
	{ 2743, 8, 7, 8, 12, 4800, 26400 },
	{ 2800, 7, 6, 7, 14, 4800, 26400 },
	{ 3000, 5, 4, 7, 15, 4800, 28800 },
	{ 3200, 4, 3, 7, 16, 4800, 31200 },
	{ 3429, 10, 7, 8, 15, 4800, 33600 },
};

/* 0111011111111010, the first in time in bit 15 */
#define SYNC_PATTERN 0x77fa

unsigned int smdsp_v34_symbol_rate(unsigned int index)
{
	return index < SMDSP_V34_SYMBOL_RATES ? rates[index].sym : 0;
}

bool smdsp_v34_frame_rate_ok(unsigned int symbol_rate, unsigned int data_rate)
{
	if (symbol_rate >= SMDSP_V34_SYMBOL_RATES || data_rate % 2400)
		return false;
	return data_rate >= rates[symbol_rate].min_rate && data_rate <= rates[symbol_rate].max_rate;
}

static uint64_t pow8(uint64_t x)
{
	x *= x;
	x *= x;
	return x * x;
}

int smdsp_v34_frame_params(unsigned int symbol_rate, unsigned int data_rate, bool aux, bool expanded,
			   struct smdsp_v34_frame_params *p)
{
	unsigned int m;

	memset(p, 0, sizeof(*p));
	if (!smdsp_v34_frame_rate_ok(symbol_rate, data_rate))
		return -EINVAL;
	p->symbol_rate = symbol_rate;
	p->data_rate = data_rate;
	p->aux = aux;
	p->expanded = expanded;
	p->j = rates[symbol_rate].j;
	p->p = rates[symbol_rate].p;
	p->w = aux ? 15 - p->j : 0;
	p->n = (data_rate + (aux ? 200 : 0)) * 28 / (100 * p->j);
	p->b = (p->n + p->p - 1) / p->p;
	p->r = p->n - (p->b - 1) * p->p;
	if (p->b > 12) {
		p->k = p->b - 12;
		while (p->k >= 32) {
			p->k -= 8;
			p->q++;
		}
	}
	/* minimum: the least M with M^8 >= 2^K */
	for (m = 1; pow8(m) < (1ULL << p->k); m++)
		;
	p->m = m;
	if (expanded) {
		/* round(1.25 x 2^(K/8)): the least M with (M + 1/2)^8 > 1.25^8 2^K */
		for (m = 1; pow8(4 * m + 2) <= pow8(5) << p->k; m++)
			;
		if (m > p->m)
			p->m = m;
	}
	p->l = 4 * p->m << p->q;
	p->w2 = p->b < 56 ? 1 : 2;
	return 0;
}

/* the pattern of x per data frame over P frames: frame i is marked when (i + 1)x / P passes an integer */
static bool spread(unsigned int x, unsigned int period, unsigned int i)
{
	return ((i + 1) * x) / period != (i * x) / period;
}

bool smdsp_v34_frame_is_high(const struct smdsp_v34_frame_params *p, unsigned int i)
{
	return spread(p->r, p->p, i % p->p);
}

bool smdsp_v34_frame_has_aux(const struct smdsp_v34_frame_params *p, unsigned int i)
{
	return spread(p->w, p->p, i % p->p);
}

unsigned int smdsp_v34_frame_sync_bit(unsigned int h)
{
	return (SYNC_PATTERN >> (15 - (h & 15))) & 1;
}

int smdsp_v34_frame_init(struct smdsp_v34_frame *s, const struct smdsp_v34_frame_params *p)
{
	struct smdsp_v34_frame_params chk;

	memset(s, 0, sizeof(*s));
	if (smdsp_v34_frame_params(p->symbol_rate, p->data_rate, p->aux, p->expanded, &chk))
		return -EINVAL;
	s->p = chk;
	return 0;
}

struct smdsp_v34_frame *smdsp_v34_frame_create(const struct smdsp_v34_frame_params *p)
{
	struct smdsp_v34_frame *s = smdsp_alloc(sizeof(*s));

	if (s && smdsp_v34_frame_init(s, p)) {
		smdsp_free(s);
		s = NULL;
	}
	return s;
}

void smdsp_v34_frame_free(struct smdsp_v34_frame *s)
{
	smdsp_free(s);
}

void smdsp_v34_frame_reset(struct smdsp_v34_frame *s)
{
	s->index = 0;
	s->data_frame = 0;
	s->frames = 0;
}

int smdsp_v34_frame_print(const struct smdsp_v34_frame *s, char *buf, size_t len)
{
	const struct smdsp_v34_frame_params *p = &s->p;

	return snprintf(buf, len, "v34_frame S=%u R=%u%s J=%u P=%u N=%u b=%u r=%u K=%u q=%u M=%u L=%u at %u.%u",
			rates[p->symbol_rate].sym, p->data_rate, p->aux ? "+aux" : "", p->j, p->p, p->n,
			p->b, p->r, p->k, p->q, p->m, p->l, s->data_frame, s->index);
}

const struct smdsp_v34_frame_params *smdsp_v34_frame_get_params(const struct smdsp_v34_frame *s)
{
	return &s->p;
}

void smdsp_v34_frame_peek(const struct smdsp_v34_frame *s, struct smdsp_v34_mframe *mf)
{
	const struct smdsp_v34_frame_params *p = &s->p;
	unsigned int j;

	memset(mf, 0, sizeof(*mf));
	mf->index = s->index;
	mf->data_frame = s->data_frame;
	mf->high = smdsp_v34_frame_is_high(p, s->index);
	mf->aux = smdsp_v34_frame_has_aux(p, s->index);
	mf->bits = mf->high ? p->b : p->b - 1;
	mf->nshell = mf->bits > 12 ? mf->bits - 12 - 8 * p->q : 0;
	for (j = 0; j < 4; j++) {
		unsigned int g = 4 * s->index + j;	/* 4D symbol in the data frame */

		if (g % (2 * p->p) == 0)
			mf->v0[j] = (uint8_t)smdsp_v34_frame_sync_bit(2 * s->data_frame + g / (2 * p->p));
	}
}

unsigned int smdsp_v34_frame_primary(const struct smdsp_v34_frame *s)
{
	const struct smdsp_v34_frame_params *p = &s->p;

	return (smdsp_v34_frame_is_high(p, s->index) ? p->b : p->b - 1) -
	       (smdsp_v34_frame_has_aux(p, s->index) ? 1 : 0);
}

static void advance(struct smdsp_v34_frame *s)
{
	s->frames++;
	if (++s->index == s->p.p) {
		s->index = 0;
		if (++s->data_frame == s->p.j)
			s->data_frame = 0;
	}
}

void smdsp_v34_frame_next(struct smdsp_v34_frame *s)
{
	advance(s);
}

/* I bits of 4D symbol j in a frame of n bits with no shell bits */
static unsigned int ibits_small(unsigned int n, unsigned int j)
{
	return j < n - 8 ? 3 : 2;
}

void smdsp_v34_frame_pack(struct smdsp_v34_frame *s, const uint8_t *bits, unsigned int aux,
			  struct smdsp_v34_mframe *mf)
{
	uint8_t all[SMDSP_V34_MAX_B];
	unsigned int j, t, pos = 0, src = 0, n;

	smdsp_v34_frame_peek(s, mf);
	/* the aux bit goes where the first I bit would be */
	for (t = 0; t < mf->bits; t++)
		all[t] = (mf->aux && t == mf->nshell) ? (uint8_t)(aux & 1) : (uint8_t)(bits[src++] & 1);
	for (t = 0; t < mf->nshell; t++)
		mf->r0 |= (uint32_t)all[pos++] << t;
	for (j = 0; j < 4; j++) {
		n = mf->nshell || mf->bits > 12 ? 3 : ibits_small(mf->bits, j);
		for (t = 0; t < n; t++)
			mf->i[j] |= (uint8_t)(all[pos++] << t);
		for (t = 0; t < 2 * s->p.q; t++)
			mf->q[2 * j + t / s->p.q] |= (uint16_t)(all[pos++] << (t % s->p.q));
	}
	advance(s);
}

/*
 * The frame's bit number idx in time to the user's bits, or to the aux
 * channel; straight from the fields, no frame-sized copy on the stack: this
 * is under the receiver's deepest chain.
 */
static inline void unpack_bit(const struct smdsp_v34_mframe *lay, unsigned int idx, uint8_t bit, uint8_t *bits,
			      unsigned int *out, uint8_t *aux)
{
	if (idx >= lay->bits)
		return;
	if (lay->aux && idx == lay->nshell)
		*aux = bit;
	else
		bits[(*out)++] = bit;
}

unsigned int smdsp_v34_frame_unpack(struct smdsp_v34_frame *s, const struct smdsp_v34_mframe *mf,
				    uint8_t *bits, uint8_t *aux)
{
	struct smdsp_v34_mframe lay;
	unsigned int j, t, pos = 0, n, out = 0;

	smdsp_v34_frame_peek(s, &lay);
	*aux = 0;
	for (t = 0; t < lay.nshell; t++)
		unpack_bit(&lay, pos++, (mf->r0 >> t) & 1, bits, &out, aux);
	for (j = 0; j < 4; j++) {
		n = lay.nshell || lay.bits > 12 ? 3 : ibits_small(lay.bits, j);
		for (t = 0; t < n; t++)
			unpack_bit(&lay, pos++, (mf->i[j] >> t) & 1, bits, &out, aux);
		for (t = 0; t < 2 * s->p.q; t++)
			unpack_bit(&lay, pos++, (mf->q[2 * j + t / s->p.q] >> (t % s->p.q)) & 1, bits, &out, aux);
	}
	advance(s);
	return out;
}
