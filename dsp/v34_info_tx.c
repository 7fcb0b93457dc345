// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 phase 2 transmitter: the INFO sequences at 600 bit/s DPSK and tones
 * A and B with their phase reversals (10.1.2).
 *
 * One symbol per bit at 600 baud on the carrier (1200 Hz for the call modem,
 * 2400 Hz for the answer modem): each symbol is the carrier's sign, +1 or -1,
 * and a 1 bit flips it (a 180 degree phase change) while a 0 keeps it. So the
 * tone is the same modulator with no bits to send, and a reversal (A-bar,
 * B-bar) is one flip. The symbols are shaped at baseband by the V.22 root
 * raised cosine (beta 0.75, the 40-phase table of V.22bis, since 8000/600 =
 * 40/3 samples a symbol) and multiplied by the carrier; symbols are real, so
 * only the cosine is needed. From silence a frame starts with one reference
 * symbol, against which its first bit is sent.
 *
 * The pulse has unit energy and a flat sum over symbol shifts, so a steady
 * tone and random DPSK have the same power: one gain sets both levels.
 */
#include <smdsp/private/v34_info.h>

void smdsp_v34_info_tx_init(struct smdsp_v34_info_tx *s, bool calling, int level_dbm0_10)
{
	uint32_t rate, phase = 0;
	int32_t sum = 0;
	unsigned int i, k;

	memset(s, 0, sizeof(*s));
	rate = smdsp_phase_rate(calling ? 1200000 : 2400000, SMDSP_RATE);
	for (i = 0; i < SMDSP_V34I_CAR_PERIOD; i++, phase += rate)
		s->car_cos[i] = smdsp_cos(phase);
	/* a steady symbol's baseband value: the pulse summed over symbol shifts (Q14) */
	for (i = 0; i < SMDSP_V22BIS_TX_PHASES; i++)
		for (k = 0; k < SMDSP_V34I_SYMS; k++)
			sum += smdsp_v22bis_tx_rrc[i][k];
	sum /= SMDSP_V22BIS_TX_PHASES;
	/* out = (baseband * cos >> 15) * gain >> 16: a tone's peak is the level's amplitude */
	s->gain = (int32_t)smdsp_div_s64((int64_t)smdsp_dbm0_to_amp(level_dbm0_10) << 16, sum);
	s->phase = 1;
	s->calling = calling;
	s->level_dbm0_10 = level_dbm0_10;
}

struct smdsp_v34_info_tx *smdsp_v34_info_tx_create(bool calling, int level_dbm0_10)
{
	struct smdsp_v34_info_tx *s = smdsp_alloc(sizeof(*s));

	if (s)
		smdsp_v34_info_tx_init(s, calling, level_dbm0_10);
	return s;
}

void smdsp_v34_info_tx_free(struct smdsp_v34_info_tx *s)
{
	smdsp_free(s);
}

void smdsp_v34_info_tx_reset(struct smdsp_v34_info_tx *s)
{
	smdsp_v34_info_tx_init(s, s->calling, s->level_dbm0_10);
}

int smdsp_v34_info_tx_print(const struct smdsp_v34_info_tx *s, char *buf, size_t len)
{
	return snprintf(buf, len, "v34_info_tx %s tone=%d frame=%u/%u queued=%u symbols=%u",
			s->calling ? "1200Hz" : "2400Hz", s->tone, s->cur_pos, s->cur_bits,
			s->next_bits, s->symbols);
}

int smdsp_v34_info_tx_send(struct smdsp_v34_info_tx *s, const uint8_t *frame, unsigned int nbits)
{
	if (!nbits || nbits > SMDSP_V34_INFO_MAX_BITS)
		return -EINVAL;
	if (s->cur_pos < s->cur_bits) {
		if (s->next_bits)
			return -EBUSY;
		memcpy(s->next, frame, (nbits + 7) / 8);
		s->next_bits = nbits;
		return 0;
	}
	memcpy(s->cur, frame, (nbits + 7) / 8);
	s->cur_bits = nbits;
	s->cur_pos = 0;
	return 0;
}

void smdsp_v34_info_tx_tone(struct smdsp_v34_info_tx *s, bool on)
{
	s->tone = on;
	if (!on)
		s->reverse = false;
}

int smdsp_v34_info_tx_reverse(struct smdsp_v34_info_tx *s)
{
	if (!s->tone)
		return -EINVAL;
	s->reverse = true;
	return 0;
}

bool smdsp_v34_info_tx_busy(const struct smdsp_v34_info_tx *s)
{
	return s->cur_pos < s->cur_bits || s->next_bits || s->reverse;
}

uint32_t smdsp_v34_info_tx_symbols(const struct smdsp_v34_info_tx *s)
{
	return s->symbols;
}

static int next_symbol(struct smdsp_v34_info_tx *s)
{
	bool frame = s->cur_pos < s->cur_bits;

	if (!s->sounding) {
		if (!frame && !s->tone)
			return 0;
		/* the reference symbol, or the tone's first */
		s->sounding = true;
		s->phase = 1;
		return s->phase;
	}
	if (frame) {
		if ((s->cur[s->cur_pos >> 3] >> (s->cur_pos & 7)) & 1)
			s->phase = (int8_t)-s->phase;
		if (++s->cur_pos == s->cur_bits && s->next_bits) {
			memcpy(s->cur, s->next, sizeof(s->cur));
			s->cur_bits = s->next_bits;
			s->cur_pos = 0;
			s->next_bits = 0;
		}
		return s->phase;
	}
	if (s->tone) {
		if (s->reverse) {
			s->phase = (int8_t)-s->phase;
			s->reverse = false;
		}
		return s->phase;
	}
	s->sounding = false;
	return 0;
}

void smdsp_v34_info_tx_process(struct smdsp_v34_info_tx *s, int16_t *out, unsigned int n)
{
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		const int16_t *h;
		const int8_t *sp;
		int32_t x = 0;
		int64_t v;

		s->baud_phase += 3;
		if (s->baud_phase >= SMDSP_V22BIS_TX_PHASES) {
			int sym;

			s->baud_phase -= SMDSP_V22BIS_TX_PHASES;
			if (++s->sym_pos >= SMDSP_V34I_SYMS)
				s->sym_pos = 0;
			sym = next_symbol(s);
			s->symbols++;
			/* twice, so that the newest SYMS symbols are always contiguous */
			s->sym[s->sym_pos] = (int8_t)sym;
			s->sym[s->sym_pos + SMDSP_V34I_SYMS] = (int8_t)sym;
			if (sym)
				s->idle_syms = SMDSP_V34I_SYMS;
			else if (s->idle_syms)
				s->idle_syms--;
		}
		if (++s->car_idx >= SMDSP_V34I_CAR_PERIOD)
			s->car_idx = 0;
		if (!s->idle_syms) {
			out[i] = 0;
			continue;
		}
		h = smdsp_v22bis_tx_rrc[s->baud_phase];
		/* tap k weighs the symbol k steps older than the newest */
		sp = s->sym + s->sym_pos + SMDSP_V34I_SYMS;
		for (k = 0; k < SMDSP_V34I_SYMS; k++)
			x += sp[-(int)k] * h[k];
		v = ((int64_t)x * s->car_cos[s->car_idx]) >> 15;
		v = (v * s->gain) >> 16;
		out[i] = smdsp_sat16((int32_t)v);
	}
}
