// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 data-mode scrambler (clause 7).
 *
 * Self-synchronising: each line bit is the data bit plus the line bits sent
 * 18 (or 5) and 23 bit times before, so the descrambler, adding the same
 * received line bits back, needs no alignment and turns one line error into
 * three data errors. The register holds the last 23 line bits whichever way
 * the block is used; the call modem transmits with GPC (taps 18, 23), the
 * answer modem with GPA (taps 5, 23), as in V.32bis.
 */
#include <smdsp/private/v34_scramble.h>

#define REG_MASK ((1u << 23) - 1)

void smdsp_v34_scramble_init(struct smdsp_v34_scramble *s, bool caller)
{
	memset(s, 0, sizeof(*s));
	s->tap = caller ? 18 : 5;
}

struct smdsp_v34_scramble *smdsp_v34_scramble_create(bool caller)
{
	struct smdsp_v34_scramble *s = smdsp_alloc(sizeof(*s));

	if (s)
		smdsp_v34_scramble_init(s, caller);
	return s;
}

void smdsp_v34_scramble_free(struct smdsp_v34_scramble *s)
{
	smdsp_free(s);
}

void smdsp_v34_scramble_reset(struct smdsp_v34_scramble *s)
{
	smdsp_v34_scramble_init(s, s->tap == 18);
}

int smdsp_v34_scramble_print(const struct smdsp_v34_scramble *s, char *buf, size_t len)
{
	return snprintf(buf, len, "v34_scramble %s reg=%06x bits=%u", s->tap == 18 ? "GPC" : "GPA",
			(unsigned int)s->reg, (unsigned int)s->bits);
}

static unsigned int taps(const struct smdsp_v34_scramble *s)
{
	return ((s->reg >> (s->tap - 1)) ^ (s->reg >> 22)) & 1;
}

unsigned int smdsp_v34_scramble_bit(struct smdsp_v34_scramble *s, unsigned int bit)
{
	unsigned int out = (bit & 1) ^ taps(s);

	s->reg = ((s->reg << 1) | out) & REG_MASK;
	s->bits++;
	return out;
}

unsigned int smdsp_v34_descramble_bit(struct smdsp_v34_scramble *s, unsigned int bit)
{
	unsigned int out = (bit & 1) ^ taps(s);

	s->reg = ((s->reg << 1) | (bit & 1)) & REG_MASK;
	s->bits++;
	return out;
}

unsigned int smdsp_v34_scramble_tap(const struct smdsp_v34_scramble *s)
{
	return s->tap;
}
