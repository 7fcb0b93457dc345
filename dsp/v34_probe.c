// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 line probing: the tones of L1/L2 and what the receiver decides from
 * their analysis (no state: v34_probe_tx.c and v34_probe_rx.c hold that).
 *
 * The rule for each symbol rate S and carrier fc the two modems allow:
 * - the band is fc +- S/2; each 150 Hz tone slot counts for the part of its
 *   150 Hz inside the band;
 * - the pre-emphasis filter is the one that makes the received spectrum
 *   (the channel's gain plus the filter's, in dB) flattest over the band:
 *   least variance (that is what the filter is for: a receiver's equaliser
 *   and precoder cope best with a flat spectrum);
 * - the SNR at each slot of a data signal of L2's power spread flat over S
 *   Hz is the tone's SNR in its 150 Hz times 21 x 150 / S, shaped by the
 *   filter (the transmitter keeps its power: the filter's mean gain over the
 *   band is taken out);
 * - an ideal decision-feedback receiver (V.34's precoding is one at the
 *   transmitter) has the SNR 2^mean(log2(1 + SNR(f))) - 1 over the band, and
 *   carries log2(1 + SNR / gap) bits a symbol; the gap is 7 dB: uncoded QAM's
 *   9.8 dB at a symbol error rate of 1e-7, less the 16-state 4D trellis
 *   code's 3.6 dB and shell mapping's 0.8 dB, plus 1.6 dB for the receiver's
 *   own losses;
 * - the data rate is that times S, down to a multiple of 2400, and 0 below
 *   the symbol rate's lowest rate; at most its highest.
 * The symbol rate chosen is the one with the highest data rate, then with
 * the widest margin (the SNR above what that data rate needs).
 *
 * Arithmetic: SNRs go linear in Q24 (from tenths of dB through the shared
 * dB table), logarithms by the square-and-compare method (16 fractional
 * bits), powers of two back through the dB table (0.6 % steps, 0.03 dB).
 */
#include <smdsp/private/v34_probe.h>
#include <smdsp/v34_mod.h>

const uint8_t smdsp_v34p_sent_m[SMDSP_V34_PROBE_SENT] = {
	1, 2, 3, 4, 5, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19, 20, 21, 22, 23, 24, 25
};

/* slots at 180 degrees: 300, 1650, 2250, 2700, 3000, 3150, 3300, 3450 Hz */
static const uint32_t inverted = (1u << 2) | (1u << 11) | (1u << 15) | (1u << 18) | (1u << 20) |
				 (1u << 21) | (1u << 22) | (1u << 23);
/* slots not sent: 900, 1200, 1800, 2400 Hz */
static const uint32_t omitted = (1u << 6) | (1u << 8) | (1u << 12) | (1u << 16);

bool smdsp_v34_probe_sent(unsigned int m)
{
	return m >= 1 && m <= SMDSP_V34_PROBE_TONES && !(omitted & (1u << m));
}

unsigned int smdsp_v34_probe_phase(unsigned int m)
{
	return smdsp_v34_probe_sent(m) && (inverted & (1u << m)) ? 180 : 0;
}

int smdsp_v34p_sign(unsigned int m)
{
	return smdsp_v34_probe_phase(m) ? -1 : 1;
}

/* data rates / 2400 at each symbol rate */
static const uint8_t rate_min[SMDSP_V34_SYMRATES] = { 1, 2, 2, 2, 2, 2 };
static const uint8_t rate_max[SMDSP_V34_SYMRATES] = { 9, 11, 11, 12, 13, 14 };

void smdsp_v34_probe_allowed(const struct smdsp_v34_info0 *tx, const struct smdsp_v34_info0 *rx,
			     uint8_t allowed[SMDSP_V34_SYMRATES])
{
	/* both modems must support the optional rates; the transmitter states its carriers at 3000, 3200 */
	allowed[SMDSP_V34_S2400] = 3;
	allowed[SMDSP_V34_S2743] = tx->rate_2743 && rx->rate_2743 ? 3 : 0;
	allowed[SMDSP_V34_S2800] = tx->rate_2800 && rx->rate_2800 ? 3 : 0;
	allowed[SMDSP_V34_S3000] = (tx->low_3000 ? 1 : 0) | (tx->high_3000 ? 2 : 0);
	allowed[SMDSP_V34_S3200] = (tx->low_3200 ? 1 : 0) | (tx->high_3200 ? 2 : 0);
	allowed[SMDSP_V34_S3429] = tx->rate_3429 && rx->rate_3429 && tx->allow_3429 && rx->allow_3429 ?
				   1 : 0;
}

int smdsp_v34_preemph_db10(unsigned int index, enum smdsp_v34_symrate r, bool high, int f_hz)
{
	int s = (int)((smdsp_v34_symrate_mbaud(r) + 500) / 1000);
	int fc = (int)((smdsp_v34_carrier_mhz(r, high) + 500) / 1000);
	int j;

	if (!index || index > 10 || !s)
		return 0;
	if (index <= 5)
		/* a slope of 2 index dB over the symbol rate, 0 at the carrier */
		return 20 * (int)index * (f_hz - fc) / s;
	/* flat to 0.4 S, j/2 dB at 0.8 S, then j dB more each 0.4 S */
	j = (int)index - 5;
	if (5 * f_hz <= 2 * s)
		return 0;
	if (5 * f_hz <= 4 * s)
		return 5 * j * (5 * f_hz - 2 * s) / (2 * s);
	return 5 * j + 10 * j * (5 * f_hz - 4 * s) / (2 * s);
}

/* log2(v), Q16, for v > 0 */
static int32_t ilog2_q16(uint64_t v)
{
	int32_t r = 30 << 16;
	int i;

	while (v >= (1ULL << 31)) {
		v >>= 1;
		r += 1 << 16;
	}
	while (v < (1ULL << 30)) {
		v <<= 1;
		r -= 1 << 16;
	}
	/* v / 2^30 in [1, 2): its logarithm's bits one by one, squaring */
	for (i = 15; i >= 0; i--) {
		v = (v * v) >> 30;
		if (v >= (1ULL << 31)) {
			v >>= 1;
			r += 1 << i;
		}
	}
	return r;
}

/* 10^(db10 / 100), Q24; db10 within -600..700 */
static uint64_t lin_q24(int db10)
{
	int a, b;
	uint64_t v;

	if (db10 < -600)
		db10 = -600;
	if (db10 > 700)
		db10 = 700;
	/* db10 = 100 a + b, 0 <= b < 100: 10^a 10^(b / 100), the latter an amplitude of 2b */
	a = db10 >= 0 ? db10 / 100 : -((-db10 + 99) / 100);
	b = db10 - 100 * a;
	v = smdsp_db_to_amp_q32(2 * b) >> 8;
	for (; a > 0; a--)
		v *= 10;
	for (; a < 0; a++)
		v = smdsp_div_u64(v, 10);
	return v;
}

/* 10 log10(v / 2^24) in tenths of dB (v > 0) */
static int db10_q24(uint64_t v)
{
	int64_t l = (int64_t)ilog2_q16(v) - (24 << 16);

	return (int)((smdsp_div_s64(l * 30103, 1000) + 32768) >> 16);
}

/* 2^x, x in Q16 (x < 39), Q24 */
static uint64_t pow2_q24(int32_t x)
{
	int32_t k = x >> 16;
	uint32_t f = (uint32_t)x & 0xffff;
	/* 2^f as an amplitude ratio of 20 log10(2) f dB: 60.206 f tenths */
	int db = (int)smdsp_div_u64((uint64_t)f * 60206 + 500 * 65536, 1000 * 65536);
	uint64_t v = smdsp_db_to_amp_q32(db) >> 8;

	if (k >= 0)
		return v << k;
	return k > -56 ? v >> -k : 0;
}

/* the band's part of slot m's 150 Hz, Hz */
static int overlap(unsigned int m, int lo, int hi)
{
	int a = 150 * (int)m - 75, b = 150 * (int)m + 75;

	if (a < lo)
		a = lo;
	if (b > hi)
		b = hi;
	return b > a ? b - a : 0;
}

static unsigned int flattest(const struct smdsp_v34_probe_result *res, enum smdsp_v34_symrate r,
			     bool high, int lo, int hi)
{
	int64_t best = 0;
	unsigned int i, m, pick = 0;

	for (i = 0; i <= 10; i++) {
		int64_t sw = 0, sx = 0, sxx = 0, var;

		for (m = 1; m <= SMDSP_V34_PROBE_TONES; m++) {
			int w = overlap(m, lo, hi);
			int64_t x;

			if (!w)
				continue;
			x = res->gain_db10[m] + smdsp_v34_preemph_db10(i, r, high, 150 * (int)m);
			sw += w;
			sx += w * x;
			sxx += w * x * x;
		}
		if (!sw)
			return 0;
		/* sw^2 times the variance */
		var = sw * sxx - sx * sx;
		if (!i || var < best) {
			best = var;
			pick = i;
		}
	}
	return pick;
}

static void choose_one(const struct smdsp_v34_probe_result *res, enum smdsp_v34_symrate r, bool high,
		       struct smdsp_v34_probe_choice *c)
{
	int s = (int)((smdsp_v34_symrate_mbaud(r) + 500) / 1000);
	int fc = (int)((smdsp_v34_carrier_mhz(r, high) + 500) / 1000);
	int lo = fc - s / 2, hi = fc + s / 2, norm, flat, snr_dfe_db10;
	uint64_t sum_lin = 0, snr, y;
	int64_t sw = 0, bits = 0;
	int32_t mean, b;
	unsigned int m, pe;
	uint32_t req;

	memset(c, 0, sizeof(*c));
	c->high = high;
	pe = flattest(res, r, high, lo, hi);
	c->preemph = (uint8_t)pe;
	/* the filter's mean power gain over the band, taken out */
	for (m = 1; m <= SMDSP_V34_PROBE_TONES; m++) {
		int w = overlap(m, lo, hi);

		sw += w;
		sum_lin += w * lin_q24(smdsp_v34_preemph_db10(pe, r, high, 150 * (int)m));
	}
	if (!sw)
		return;
	norm = db10_q24(smdsp_div_u64(sum_lin, (uint32_t)sw));
	/* 21 tones of 150 Hz against a flat signal over S */
	flat = db10_q24(smdsp_div_u64(3150ULL << 24, (uint32_t)s));
	for (m = 1; m <= SMDSP_V34_PROBE_TONES; m++) {
		int w = overlap(m, lo, hi);
		int db;

		if (!w)
			continue;
		db = res->snr_db10[m] + smdsp_v34_preemph_db10(pe, r, high, 150 * (int)m) - norm + flat;
		bits += (int64_t)w * (ilog2_q16(lin_q24(db) + (1 << 24)) - (24 << 16));
	}
	/* slots beyond 75-3825 Hz were not measured: they carry nothing */
	mean = (int32_t)smdsp_div_s64(bits, (int32_t)(hi - lo));
	snr = pow2_q24(mean);
	snr = snr > (1 << 24) ? snr - (1 << 24) : 1;
	snr_dfe_db10 = db10_q24(snr);
	c->snr_db10 = (int16_t)snr_dfe_db10;
	/* bits a symbol: log2(1 + SNR / gap) */
	y = (snr * (lin_q24(-SMDSP_V34_PROBE_GAP_DB10) >> 8)) >> 16;
	b = ilog2_q16(y + (1 << 24)) - (24 << 16);
	/* b S / 2400 */
	c->max_rate = (uint8_t)smdsp_div_u64(((uint64_t)(b > 0 ? b : 0) * smdsp_v34_symrate_mbaud(r)) >> 16,
					     2400000);
	if (c->max_rate > rate_max[r])
		c->max_rate = rate_max[r];
	if (c->max_rate < rate_min[r])
		c->max_rate = 0;
	/* the SNR max_rate needs: gap (2^(rate 2400 / S) - 1) */
	req = c->max_rate ? c->max_rate : rate_min[r];
	y = pow2_q24((int32_t)smdsp_div_u64((uint64_t)req * 2400000u << 16, smdsp_v34_symrate_mbaud(r)));
	y = y > (1 << 24) ? y - (1 << 24) : 1;
	c->margin_db10 = (int16_t)(snr_dfe_db10 - db10_q24(y) - SMDSP_V34_PROBE_GAP_DB10);
}

void smdsp_v34_probe_choose(const struct smdsp_v34_probe_result *res,
			    const uint8_t allowed[SMDSP_V34_SYMRATES],
			    struct smdsp_v34_probe_choice ch[SMDSP_V34_SYMRATES])
{
	unsigned int r;

	for (r = 0; r < SMDSP_V34_SYMRATES; r++) {
		struct smdsp_v34_probe_choice lo, hi;

		memset(&ch[r], 0, sizeof(ch[r]));
		if (!res->valid || !allowed[r])
			continue;
		memset(&lo, 0, sizeof(lo));
		memset(&hi, 0, sizeof(hi));
		if (allowed[r] & 1)
			choose_one(res, r, false, &lo);
		if ((allowed[r] & 2) && r != SMDSP_V34_S3429)
			choose_one(res, r, true, &hi);
		if ((allowed[r] & 2) && r != SMDSP_V34_S3429 &&
		    (!(allowed[r] & 1) || hi.max_rate > lo.max_rate ||
		     (hi.max_rate == lo.max_rate && hi.margin_db10 > lo.margin_db10)))
			ch[r] = hi;
		else
			ch[r] = lo;
	}
}

int smdsp_v34_probe_best(const struct smdsp_v34_probe_choice ch[SMDSP_V34_SYMRATES])
{
	int r, best = -1;

	for (r = 0; r < SMDSP_V34_SYMRATES; r++) {
		if (!ch[r].max_rate)
			continue;
		if (best < 0 || ch[r].max_rate > ch[best].max_rate ||
		    (ch[r].max_rate == ch[best].max_rate && ch[r].margin_db10 > ch[best].margin_db10))
			best = r;
	}
	return best;
}

void smdsp_v34_probe_power(const struct smdsp_v34_probe_result *res,
			   const struct smdsp_v34_probe_choice ch[SMDSP_V34_SYMRATES], bool far_can_reduce,
			   uint8_t *min_red, uint8_t *add_red)
{
	int best = smdsp_v34_probe_best(ch), over;

	*min_red = 0;
	*add_red = 0;
	if (!far_can_reduce || !res->valid)
		return;
	over = (res->l2_dbm0_10 + 120 + 9) / 10;
	*min_red = (uint8_t)(over < 0 ? 0 : over > 7 ? 7 : over);
	if (best >= 0) {
		/* the margin left after the minimum reduction, whole dB */
		int left = (ch[best].margin_db10 - 10 * *min_red) / 10;

		*add_red = (uint8_t)(left < 0 ? 0 : left > 7 ? 7 : left);
	}
}

void smdsp_v34_probe_info1c(const struct smdsp_v34_probe_result *res,
			    const struct smdsp_v34_info0 *info0a, const struct smdsp_v34_info0 *info0c,
			    struct smdsp_v34_info1c *out)
{
	struct smdsp_v34_probe_choice ch[SMDSP_V34_SYMRATES];
	uint8_t allowed[SMDSP_V34_SYMRATES];
	unsigned int r;

	memset(out, 0, sizeof(*out));
	/* the answer modem transmits what the call modem measured */
	smdsp_v34_probe_allowed(info0a, info0c, allowed);
	smdsp_v34_probe_choose(res, allowed, ch);
	for (r = 0; r < SMDSP_V34_SYMRATES; r++) {
		out->rate[r].high_carrier = ch[r].max_rate && ch[r].high;
		out->rate[r].preemph = ch[r].preemph;
		out->rate[r].max_rate = ch[r].max_rate;
	}
	smdsp_v34_probe_power(res, ch, info0a->power_reduction, &out->min_power_red, &out->add_power_red);
	out->freq_offset = res->freq_offset;
}

void smdsp_v34_probe_info1a(const struct smdsp_v34_probe_result *res,
			    const struct smdsp_v34_info1c *info1c,
			    const struct smdsp_v34_info0 *info0a, const struct smdsp_v34_info0 *info0c,
			    struct smdsp_v34_info1a *out)
{
	struct smdsp_v34_probe_choice ch[SMDSP_V34_SYMRATES];
	uint8_t allowed[SMDSP_V34_SYMRATES];
	unsigned int diff = info0a->max_rate_diff < info0c->max_rate_diff ? info0a->max_rate_diff :
						  info0c->max_rate_diff;
	int ac, ca, best_ac = -1, best_ca = -1, best_sum = -1, best_min = -1;

	memset(out, 0, sizeof(*out));
	smdsp_v34_probe_allowed(info0c, info0a, allowed);
	smdsp_v34_probe_choose(res, allowed, ch);
	for (ac = 0; ac < SMDSP_V34_SYMRATES; ac++)
		for (ca = 0; ca < SMDSP_V34_SYMRATES; ca++) {
			int a = info1c->rate[ac].max_rate, c = ch[ca].max_rate;
			int sum = a + c, mn = a < c ? a : c;

			if (!a || !c || (unsigned int)(ac > ca ? ac - ca : ca - ac) > diff)
				continue;
			if (sum > best_sum || (sum == best_sum && mn > best_min)) {
				best_sum = sum;
				best_min = mn;
				best_ac = ac;
				best_ca = ca;
			}
		}
	if (best_ca >= 0) {
		out->rate_a_to_c = (uint8_t)best_ac;
		out->rate_c_to_a = (uint8_t)best_ca;
		out->high_carrier = ch[best_ca].high;
		out->preemph = ch[best_ca].preemph;
		out->max_rate = ch[best_ca].max_rate;
	}
	smdsp_v34_probe_power(res, ch, info0c->power_reduction, &out->min_power_red, &out->add_power_red);
	out->freq_offset = res->freq_offset;
}
