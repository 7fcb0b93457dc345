// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 INFO frames (10.1.2.3, Tables 12-14): pack, unpack, CRC.
 *
 * Every INFO sequence starts with four fill bits (1111) and the frame sync
 * 01110010, carries its fields from bit 12 on, then a 16-bit CRC and four
 * more fill bits. The CRC is the ITU one, x^16 + x^12 + x^5 + 1 with the
 * register preset to ones, over the fields (bit 12 up to the CRC); its
 * highest-order bit goes first, so that running the same register over the
 * fields and the CRC leaves 0, which is how the receiver checks it. Fields
 * go least significant bit first.
 *
 * The layouts are tables of (width) in bit order, so that packing and
 * unpacking walk the same description and cannot disagree.
 */
#include <smdsp/v34_info.h>

#define FIELDS_AT 12

static const uint8_t len_of[SMDSP_V34_INFO_KINDS] = {
	SMDSP_V34_INFO0_BITS, SMDSP_V34_INFO1C_BITS, SMDSP_V34_INFO1A_BITS
};

unsigned int smdsp_v34_info_bits(enum smdsp_v34_info_kind kind)
{
	return (unsigned int)kind < SMDSP_V34_INFO_KINDS ? len_of[kind] : 0;
}

unsigned int smdsp_v34_info_bit(const uint8_t *f, unsigned int i)
{
	return (f[i >> 3] >> (i & 7)) & 1;
}

void smdsp_v34_info_put(uint8_t *f, unsigned int *pos, uint32_t v, unsigned int width)
{
	unsigned int k;

	for (k = 0; k < width; k++, (*pos)++) {
		if ((v >> k) & 1)
			f[*pos >> 3] |= (uint8_t)(1u << (*pos & 7));
		else
			f[*pos >> 3] &= (uint8_t)~(1u << (*pos & 7));
	}
}

uint32_t smdsp_v34_info_get(const uint8_t *f, unsigned int *pos, unsigned int width)
{
	uint32_t v = 0;
	unsigned int k;

	for (k = 0; k < width; k++, (*pos)++)
		v |= (uint32_t)smdsp_v34_info_bit(f, *pos) << k;
	return v;
}

uint16_t smdsp_v34_info_crc_bit(uint16_t crc, unsigned int bit)
{
	unsigned int fb = ((crc >> 15) & 1) ^ (bit & 1);

	crc = (uint16_t)(crc << 1);
	return fb ? crc ^ 0x1021 : crc;
}

uint16_t smdsp_v34_info_crc(const uint8_t *frame, unsigned int first, unsigned int n)
{
	uint16_t crc = 0xffff;
	unsigned int i;

	for (i = first; i < first + n; i++)
		crc = smdsp_v34_info_crc_bit(crc, smdsp_v34_info_bit(frame, i));
	return crc;
}

/* the values of a frame's fields in bit order, and each one's width */
#define MAXF 24

static unsigned int fields_of(const struct smdsp_v34_info *in, uint32_t *v, uint8_t *w)
{
	unsigned int n = 0, r;

#define F(val, width) do { v[n] = (uint32_t)(val); w[n] = (width); n++; } while (0)
	switch (in->kind) {
	case SMDSP_V34_INFO0:
		F(in->i0.rate_2743, 1);
		F(in->i0.rate_2800, 1);
		F(in->i0.rate_3429, 1);
		F(in->i0.low_3000, 1);
		F(in->i0.high_3000, 1);
		F(in->i0.low_3200, 1);
		F(in->i0.high_3200, 1);
		F(in->i0.allow_3429, 1);
		F(in->i0.power_reduction, 1);
		F(in->i0.max_rate_diff, 3);
		F(in->i0.cme, 1);
		F(in->i0.c1664, 1);
		F(in->i0.tx_clock, 2);
		F(in->i0.ack, 1);
		break;
	case SMDSP_V34_INFO1C:
		F(in->i1c.min_power_red, 3);
		F(in->i1c.add_power_red, 3);
		F(in->i1c.md_len, 7);
		for (r = 0; r < SMDSP_V34_SYMRATES; r++) {
			F(in->i1c.rate[r].high_carrier, 1);
			F(in->i1c.rate[r].preemph, 4);
			F(in->i1c.rate[r].max_rate, 4);
		}
		F((uint16_t)in->i1c.freq_offset & 0x3ff, 10);
		break;
	case SMDSP_V34_INFO1A:
		F(in->i1a.min_power_red, 3);
		F(in->i1a.add_power_red, 3);
		F(in->i1a.md_len, 7);
		F(in->i1a.high_carrier, 1);
		F(in->i1a.preemph, 4);
		F(in->i1a.max_rate, 4);
		F(in->i1a.rate_a_to_c, 3);
		F(in->i1a.rate_c_to_a, 3);
		F((uint16_t)in->i1a.freq_offset & 0x3ff, 10);
		break;
	default:
		break;
	}
#undef F
	return n;
}

static int32_t sext10(uint32_t v)
{
	return (int32_t)(v & 0x3ff) - (int32_t)((v & 0x200) << 1);
}

static void set_fields(struct smdsp_v34_info *out, const uint32_t *v)
{
	unsigned int r, k = 0;

	switch (out->kind) {
	case SMDSP_V34_INFO0:
		out->i0.rate_2743 = v[k++];
		out->i0.rate_2800 = v[k++];
		out->i0.rate_3429 = v[k++];
		out->i0.low_3000 = v[k++];
		out->i0.high_3000 = v[k++];
		out->i0.low_3200 = v[k++];
		out->i0.high_3200 = v[k++];
		out->i0.allow_3429 = v[k++];
		out->i0.power_reduction = v[k++];
		out->i0.max_rate_diff = (uint8_t)v[k++];
		out->i0.cme = v[k++];
		out->i0.c1664 = v[k++];
		out->i0.tx_clock = (uint8_t)v[k++];
		out->i0.ack = v[k++];
		break;
	case SMDSP_V34_INFO1C:
		out->i1c.min_power_red = (uint8_t)v[k++];
		out->i1c.add_power_red = (uint8_t)v[k++];
		out->i1c.md_len = (uint8_t)v[k++];
		for (r = 0; r < SMDSP_V34_SYMRATES; r++) {
			out->i1c.rate[r].high_carrier = v[k++];
			out->i1c.rate[r].preemph = (uint8_t)v[k++];
			out->i1c.rate[r].max_rate = (uint8_t)v[k++];
		}
		out->i1c.freq_offset = (int16_t)sext10(v[k++]);
		break;
	case SMDSP_V34_INFO1A:
		out->i1a.min_power_red = (uint8_t)v[k++];
		out->i1a.add_power_red = (uint8_t)v[k++];
		out->i1a.md_len = (uint8_t)v[k++];
		out->i1a.high_carrier = v[k++];
		out->i1a.preemph = (uint8_t)v[k++];
		out->i1a.max_rate = (uint8_t)v[k++];
		out->i1a.rate_a_to_c = (uint8_t)v[k++];
		out->i1a.rate_c_to_a = (uint8_t)v[k++];
		out->i1a.freq_offset = (int16_t)sext10(v[k++]);
		break;
	default:
		break;
	}
}

/* the limits the tables put on values that fit their bits */
static bool fields_ok(const struct smdsp_v34_info *in)
{
	unsigned int r;

	switch (in->kind) {
	case SMDSP_V34_INFO0:
		return in->i0.max_rate_diff <= 5;
	case SMDSP_V34_INFO1C:
		for (r = 0; r < SMDSP_V34_SYMRATES; r++)
			if (in->i1c.rate[r].preemph > 10 || in->i1c.rate[r].max_rate > 14)
				return false;
		return true;
	case SMDSP_V34_INFO1A:
		return in->i1a.preemph <= 10 && in->i1a.max_rate <= 14 &&
		       in->i1a.rate_a_to_c < SMDSP_V34_SYMRATES &&
		       in->i1a.rate_c_to_a < SMDSP_V34_SYMRATES;
	default:
		return false;
	}
}

int smdsp_v34_info_pack(const struct smdsp_v34_info *info, uint8_t frame[SMDSP_V34_INFO_BYTES])
{
	uint32_t v[MAXF];
	uint8_t w[MAXF];
	unsigned int n, i, pos = 0, len = smdsp_v34_info_bits(info->kind);
	uint16_t crc;
	int fo;

	if (!len || !fields_ok(info))
		return -EINVAL;
	fo = info->kind == SMDSP_V34_INFO1C ? info->i1c.freq_offset :
	     info->kind == SMDSP_V34_INFO1A ? info->i1a.freq_offset : 0;
	if (fo < -512 || fo > 511)
		return -EINVAL;
	n = fields_of(info, v, w);
	for (i = 0; i < n; i++)
		if (v[i] >> w[i])
			return -EINVAL;	/* does not fit its bits */
	memset(frame, 0, SMDSP_V34_INFO_BYTES);
	smdsp_v34_info_put(frame, &pos, 0xf, 4);
	/* the sync's left-most bit is first in time: reverse it into LSB-first order */
	for (i = 0; i < 8; i++)
		smdsp_v34_info_put(frame, &pos, (SMDSP_V34_INFO_SYNC >> (7 - i)) & 1, 1);
	for (i = 0; i < n; i++)
		smdsp_v34_info_put(frame, &pos, v[i], w[i]);
	crc = smdsp_v34_info_crc(frame, FIELDS_AT, pos - FIELDS_AT);
	for (i = 0; i < 16; i++)
		smdsp_v34_info_put(frame, &pos, (crc >> (15 - i)) & 1, 1);
	smdsp_v34_info_put(frame, &pos, 0xf, 4);
	return (int)pos;
}

int smdsp_v34_info_unpack(enum smdsp_v34_info_kind kind, const uint8_t *frame, unsigned int nbits,
			  struct smdsp_v34_info *info)
{
	uint32_t v[MAXF];
	uint8_t w[MAXF];
	unsigned int n, i, pos = 4, len = smdsp_v34_info_bits(kind);
	unsigned int sync = 0;

	if (!len)
		return -SMDSP_V34_INFO_ERR_KIND;
	if (nbits < len - 4)
		return -SMDSP_V34_INFO_ERR_SHORT;
	for (i = 0; i < 8; i++)
		sync = (sync << 1) | smdsp_v34_info_bit(frame, 4 + i);
	if (sync != SMDSP_V34_INFO_SYNC)
		return -SMDSP_V34_INFO_ERR_SYNC;
	if (smdsp_v34_info_crc(frame, FIELDS_AT, len - 4 - FIELDS_AT))
		return -SMDSP_V34_INFO_ERR_CRC;
	memset(info, 0, sizeof(*info));
	info->kind = kind;
	n = fields_of(info, v, w);	/* only the widths matter here */
	pos = FIELDS_AT;
	for (i = 0; i < n; i++)
		v[i] = smdsp_v34_info_get(frame, &pos, w[i]);
	set_fields(info, v);
	return fields_ok(info) ? 0 : -SMDSP_V34_INFO_ERR_RANGE;
}

static const char *rate_str(unsigned int r)
{
	static const char *const name[SMDSP_V34_SYMRATES] = {
		"2400", "2743", "2800", "3000", "3200", "3429"
	};

	return r < SMDSP_V34_SYMRATES ? name[r] : "?";
}

int smdsp_v34_info_print(const struct smdsp_v34_info *in, char *buf, size_t len)
{
	const struct smdsp_v34_info0 *a = &in->i0;
	const struct smdsp_v34_info1c *c = &in->i1c;
	const struct smdsp_v34_info1a *p = &in->i1a;

	switch (in->kind) {
	case SMDSP_V34_INFO0:
		return snprintf(buf, len,
				"INFO0 2743=%d 2800=%d 3429=%d 3000low=%d 3000high=%d 3200low=%d 3200high=%d allow3429=%d power_red=%d max_rate_diff=%u cme=%d 1664=%d tx_clock=%u ack=%d",
				a->rate_2743, a->rate_2800, a->rate_3429, a->low_3000, a->high_3000,
				a->low_3200, a->high_3200, a->allow_3429, a->power_reduction,
				a->max_rate_diff, a->cme, a->c1664, a->tx_clock, a->ack);
	case SMDSP_V34_INFO1C:
		return snprintf(buf, len,
				"INFO1c min_power_red=%u add_power_red=%u md=%u 2400=%d/%u/%u 2743=%d/%u/%u 2800=%d/%u/%u 3000=%d/%u/%u 3200=%d/%u/%u 3429=%d/%u/%u (high/preemph/rate) freq_offset=%d",
				c->min_power_red, c->add_power_red, c->md_len,
				c->rate[0].high_carrier, c->rate[0].preemph, c->rate[0].max_rate,
				c->rate[1].high_carrier, c->rate[1].preemph, c->rate[1].max_rate,
				c->rate[2].high_carrier, c->rate[2].preemph, c->rate[2].max_rate,
				c->rate[3].high_carrier, c->rate[3].preemph, c->rate[3].max_rate,
				c->rate[4].high_carrier, c->rate[4].preemph, c->rate[4].max_rate,
				c->rate[5].high_carrier, c->rate[5].preemph, c->rate[5].max_rate,
				c->freq_offset);
	case SMDSP_V34_INFO1A:
		return snprintf(buf, len,
				"INFO1a min_power_red=%u add_power_red=%u md=%u high=%d preemph=%u max_rate=%u a_to_c=%s c_to_a=%s freq_offset=%d",
				p->min_power_red, p->add_power_red, p->md_len, p->high_carrier,
				p->preemph, p->max_rate, rate_str(p->rate_a_to_c),
				rate_str(p->rate_c_to_a), p->freq_offset);
	default:
		return snprintf(buf, len, "INFO? kind=%d", in->kind);
	}
}
