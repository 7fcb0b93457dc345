// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 MP and MP' sequences (10.1.3.8, Table 18) and E (10.1.3.9).
 *
 * An MP is 17 ones of frame sync, then 16-bit words each behind a start bit
 * 0 (bits 17, 34, 51, ...): type, the maximum rates each way, auxiliary
 * channel, trellis code, nonlinear encoder and shaping asked of the far
 * transmitter, the acknowledge bit (set, the sequence is MP'), the rate
 * mask, asymmetric rates; in type 1 six more words, the precoding
 * coefficients h(1)-h(3), real then imaginary, 14 fractional bits; then 16
 * reserved bits and a last start bit, the CRC (V.34's x^16 + x^12 + x^5 + 1
 * preset to ones, as in the INFO frames) over the data bits from bit 18 on
 * with the start bits left out, sent highest-order bit first (what real
 * modems send: over every bit from 17 their CRCs fail; doc/v34.md, "What
 * the recordings show"), and fill bits 0 to a
 * multiple of the 4-point symbol's two bits and the 16-point's four (88 or
 * 188 bits). Since no run of 17 ones can occur inside a frame behind its
 * sync (a start bit every 17), the sync marks the frame; E, 20 ones, marks
 * the end of the MP sequences. Fields go least significant bit first.
 */
#include <smdsp/v34_mp.h>
#include <smdsp/v34_info.h>

#define SYNC_BITS 17

unsigned int smdsp_v34_mp_bits(unsigned int type)
{
	return type == 0 ? SMDSP_V34_MP0_BITS : type == 1 ? SMDSP_V34_MP1_BITS : 0;
}

/* where the CRC starts: after the last start bit */
static unsigned int crc_at(unsigned int type)
{
	return type ? 171 : 69;
}

/* the CRC register over bits 17 to end, less the start bits (17, 34, ...) */
static uint16_t crc_over(const uint8_t *frame, unsigned int end)
{
	uint16_t crc = 0xffff;
	unsigned int i;

	for (i = SYNC_BITS; i < end; i++)
		if ((i - SYNC_BITS) % 17)
			crc = smdsp_v34_info_crc_bit(crc, smdsp_v34_info_bit(frame, i));
	return crc;
}

uint16_t smdsp_v34_mp_crc(const uint8_t *frame, unsigned int nbits)
{
	unsigned int type = smdsp_v34_info_bit(frame, 18);

	if (nbits < smdsp_v34_mp_bits(type))
		return 0xffff;
	return crc_over(frame, crc_at(type) + 16);
}

/* both rates 0 is the cleardown's MP (a rate renegotiation to no rate), one alone is not a rate */
static bool range_ok(const struct smdsp_v34_mp *mp)
{
	bool clear = !mp->rate_c_to_a && !mp->rate_a_to_c;

	return mp->type <= 1 && (clear || (mp->rate_c_to_a >= 1 && mp->rate_a_to_c >= 1)) &&
	       mp->rate_c_to_a <= 14 && mp->rate_a_to_c <= 14 && mp->trellis <= 2 && !(mp->rates & ~0x3fff);
}

int smdsp_v34_mp_pack(const struct smdsp_v34_mp *mp, uint8_t *frame)
{
	unsigned int pos = 0, i, crc_pos;
	uint16_t crc;

	if (!range_ok(mp))
		return -EINVAL;
	smdsp_v34_info_put(frame, &pos, 0x1ffff, SYNC_BITS);
	smdsp_v34_info_put(frame, &pos, 0, 1);
	smdsp_v34_info_put(frame, &pos, mp->type, 1);
	smdsp_v34_info_put(frame, &pos, 0, 1);
	smdsp_v34_info_put(frame, &pos, mp->rate_c_to_a, 4);
	smdsp_v34_info_put(frame, &pos, mp->rate_a_to_c, 4);
	smdsp_v34_info_put(frame, &pos, mp->aux, 1);
	smdsp_v34_info_put(frame, &pos, mp->trellis, 2);
	smdsp_v34_info_put(frame, &pos, mp->nonlinear, 1);
	smdsp_v34_info_put(frame, &pos, mp->expanded, 1);
	smdsp_v34_info_put(frame, &pos, mp->ack, 1);
	smdsp_v34_info_put(frame, &pos, 0, 1);
	smdsp_v34_info_put(frame, &pos, mp->rates, 15);
	smdsp_v34_info_put(frame, &pos, mp->asymmetric, 1);
	if (mp->type == 1) {
		for (i = 0; i < 6; i++) {
			smdsp_v34_info_put(frame, &pos, 0, 1);
			smdsp_v34_info_put(frame, &pos, (uint16_t)mp->h[i], 16);
		}
	}
	smdsp_v34_info_put(frame, &pos, 0, 1);
	smdsp_v34_info_put(frame, &pos, mp->reserved, 16);
	smdsp_v34_info_put(frame, &pos, 0, 1);
	crc_pos = pos;
	crc = crc_over(frame, crc_pos);
	for (i = 0; i < 16; i++)
		smdsp_v34_info_put(frame, &pos, (crc >> (15 - i)) & 1, 1);
	while (pos < smdsp_v34_mp_bits(mp->type))
		smdsp_v34_info_put(frame, &pos, 0, 1);
	return (int)pos;
}

int smdsp_v34_mp_unpack(const uint8_t *frame, unsigned int nbits, struct smdsp_v34_mp *mp)
{
	unsigned int pos = 0, i, type;

	memset(mp, 0, sizeof(*mp));
	if (nbits < SMDSP_V34_MP0_BITS)
		return SMDSP_V34_MP_SHORT;
	if (smdsp_v34_info_get(frame, &pos, SYNC_BITS) != 0x1ffff)
		return SMDSP_V34_MP_SYNC;
	type = smdsp_v34_info_bit(frame, 18);
	if (nbits < smdsp_v34_mp_bits(type))
		return SMDSP_V34_MP_SHORT;
	for (i = SYNC_BITS; i <= crc_at(type) - 1; i += 17)
		if (smdsp_v34_info_bit(frame, i))
			return SMDSP_V34_MP_START;
	if (smdsp_v34_mp_crc(frame, nbits))
		return SMDSP_V34_MP_CRC;
	pos = 18;
	mp->type = smdsp_v34_info_get(frame, &pos, 1);
	pos++;
	mp->rate_c_to_a = smdsp_v34_info_get(frame, &pos, 4);
	mp->rate_a_to_c = smdsp_v34_info_get(frame, &pos, 4);
	mp->aux = smdsp_v34_info_get(frame, &pos, 1);
	mp->trellis = smdsp_v34_info_get(frame, &pos, 2);
	mp->nonlinear = smdsp_v34_info_get(frame, &pos, 1);
	mp->expanded = smdsp_v34_info_get(frame, &pos, 1);
	mp->ack = smdsp_v34_info_get(frame, &pos, 1);
	pos++;
	/* bit 49 is reserved: not interpreted */
	mp->rates = (uint16_t)(smdsp_v34_info_get(frame, &pos, 15) & 0x3fff);
	mp->asymmetric = smdsp_v34_info_get(frame, &pos, 1);
	if (type == 1) {
		for (i = 0; i < 6; i++) {
			pos++;
			mp->h[i] = (int16_t)(uint16_t)smdsp_v34_info_get(frame, &pos, 16);
		}
	}
	pos++;
	mp->reserved = (uint16_t)smdsp_v34_info_get(frame, &pos, 16);
	if (!range_ok(mp))
		return SMDSP_V34_MP_RANGE;
	return SMDSP_V34_MP_OK;
}

int smdsp_v34_mp_print(const struct smdsp_v34_mp *mp, char *buf, size_t len)
{
	return snprintf(buf, len,
			"v34_mp%s type=%u c>a=%u a>c=%u aux=%d trellis=%u nl=%d exp=%d rates=%04x asym=%d h=%d,%d %d,%d %d,%d",
			mp->ack ? "'" : "", mp->type, mp->rate_c_to_a * 2400, mp->rate_a_to_c * 2400, mp->aux,
			16u << mp->trellis, mp->nonlinear, mp->expanded, mp->rates, mp->asymmetric, mp->h[0],
			mp->h[1], mp->h[2], mp->h[3], mp->h[4], mp->h[5]);
}

unsigned int smdsp_v34_mp_e(uint8_t *frame)
{
	unsigned int pos = 0;

	smdsp_v34_info_put(frame, &pos, 0xfffff, SMDSP_V34_E_BITS);
	return pos;
}

bool smdsp_v34_mp_is_e(const uint8_t *frame, unsigned int n)
{
	unsigned int i;

	if (n < SMDSP_V34_E_BITS)
		return false;
	for (i = 0; i < SMDSP_V34_E_BITS; i++)
		if (!smdsp_v34_info_bit(frame, i))
			return false;
	return true;
}
