// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 modulator for the six symbol rates at 8000 samples/s (see
 * <smdsp/v34_mod.h> for the timing unit both directions share).
 *
 * The symbol clock is an accumulator of ticks: each sample adds the rate's
 * ticks a sample, and when a symbol's worth (17920) has gone by the next
 * symbol is pulled. The sample then lies acc ticks after the newest symbol's
 * start, and k symbols more after the k-th older one's, so its weight from
 * each of the 20 symbols in the pulse's span is the pulse at
 * acc + k * 17920 - (the pulse's half span): an exact table entry, since
 * every rate's ticks a sample are a multiple of the table's 64-tick step.
 * No interpolation, no drift: the transmit timing is exact at every rate.
 * The complex baseband sum is put on the carrier, Re{y e^(jwt)}.
 *
 * The pulse is a root raised cosine with a roll-off of 1/8: at 3429 baud on
 * 1959 Hz its spectrum reaches from 31 Hz to 3888 Hz, inside the 4 kHz of
 * the sampling rate (a roll-off much above 1/7 would fold over at 3429 and at
 * 3200 on the low carrier). It is truncated to 20 symbols, the outer two
 * each side under a raised-cosine taper, which leaves intersymbol
 * interference of the transmit and receive pulses together near -50 dB
 * (a round trip's modulation error ratio is 45.7-50.4 dB, test_v34_mod). It
 * is computed at create in integer arithmetic: the sines and cosines from
 * the shared sine table, pi as 355/113, the two removable singularities
 * (t = 0 and 4 beta t = 1) by their limits.
 */
#include <smdsp/private/v34_mod.h>

/* Table 1: symbol rate 2400 a/c; carriers S d/e, low then high */
static const struct {
	uint8_t a, c, d[2], e[2];
} v34_rates[SMDSP_V34_SYMRATES] = {
	{ 1, 1, { 2, 3 }, { 3, 4 } },	/* 2400: 1600, 1800 Hz */
	{ 8, 7, { 3, 2 }, { 5, 3 } },	/* 2743: 1646, 1829 */
	{ 7, 6, { 3, 2 }, { 5, 3 } },	/* 2800: 1680, 1867 */
	{ 5, 4, { 3, 2 }, { 5, 3 } },	/* 3000: 1800, 2000 */
	{ 4, 3, { 4, 3 }, { 7, 5 } },	/* 3200: 1829, 1920 */
	{ 10, 7, { 4, 4 }, { 7, 7 } },	/* 3429: 1959 (one carrier) */
};

uint32_t smdsp_v34_symrate_mbaud(enum smdsp_v34_symrate r)
{
	if ((unsigned int)r >= SMDSP_V34_SYMRATES)
		return 0;
	return (uint32_t)smdsp_div_u64(2400000ULL * v34_rates[r].a + v34_rates[r].c / 2,
				       v34_rates[r].c);
}

uint32_t smdsp_v34_carrier_mhz(enum smdsp_v34_symrate r, bool high)
{
	uint32_t den;

	if ((unsigned int)r >= SMDSP_V34_SYMRATES)
		return 0;
	den = (uint32_t)v34_rates[r].c * v34_rates[r].e[high];
	return (uint32_t)smdsp_div_u64(2400000ULL * v34_rates[r].a * v34_rates[r].d[high] + den / 2,
				       den);
}

unsigned int smdsp_v34_ticks_per_sample(enum smdsp_v34_symrate r)
{
	if ((unsigned int)r >= SMDSP_V34_SYMRATES)
		return 0;
	/* 17920 ticks a symbol, S / 8000 symbols a sample: 5376 a / c, always whole */
	return 5376u * v34_rates[r].a / v34_rates[r].c;
}

uint32_t smdsp_v34_carrier_step(enum smdsp_v34_symrate r, bool high)
{
	uint32_t den;

	if ((unsigned int)r >= SMDSP_V34_SYMRATES)
		return 0;
	/* 2^32 fc / 8000 with fc = 2400 a d / (c e) */
	den = 10u * v34_rates[r].c * v34_rates[r].e[high];
	return (uint32_t)smdsp_div_u64(((3ULL * v34_rates[r].a * v34_rates[r].d[high]) << 32) + den / 2,
				       den);
}

/*
 * Root raised cosine, beta = 1/8, at t = i / 280 symbols:
 * (sin(pi t 7/8) + (t / 2) cos(pi t 9/8)) / (pi t (1 - t^2 / 4)).
 */
#define PULSE_T1 560		/* i where 4 beta t = 1 */
#define PULSE_TAPER (SMDSP_V34_PULSE_SYMS / 2 - 2)	/* the taper starts this many symbols out */

void smdsp_v34_pulse_init(int16_t *tab)
{
	const int32_t n = SMDSP_V34_PULSE_PER_SYM;
	int32_t i;

	for (i = 0; i < SMDSP_V34_PULSE_LEN - 1; i++) {
		int64_t v;

		if (i == 0) {
			/* 1 - beta + 4 beta / pi */
			v = 2 * (14336 + smdsp_div_s64(8192LL * 113 + 177, 355));
		} else if (i == PULSE_T1) {
			/* beta / sqrt(2) ((1 + 2/pi) sin(pi / (4 beta)) + (1 - 2/pi) cos(...)), Q15 */
			v = 1052;
		} else {
			/* phases in turns: t 7/16 = 7 i / 4480 and t 9/16 = 9 i / 4480 */
			int32_t sa = smdsp_sin((uint32_t)smdsp_div_u64((uint64_t)(7 * i) << 32, 4480));
			int32_t cb = smdsp_cos((uint32_t)smdsp_div_u64((uint64_t)(9 * i) << 32, 4480));

			/* (sa + cb i / 560) / (pi i / 280 (1 - i^2 / 560^2)), Q15 */
			v = ((int64_t)sa * PULSE_T1 + (int64_t)i * cb) * (280LL * PULSE_T1 * 113);
			v = smdsp_div_s64(v, 355 * i);
			v = smdsp_div_s64(v, PULSE_T1 * PULSE_T1 - i * i);
		}
		if (i > PULSE_TAPER * n) {
			/* raised-cosine taper over the last two symbols */
			int32_t w = smdsp_cos((uint32_t)smdsp_div_u64((uint64_t)(i - PULSE_TAPER * n) << 32,
								      4 * n));

			v = (v * (32768 + w)) >> 16;
		}
		tab[i] = (int16_t)((v + 1) >> 1);
	}
	tab[SMDSP_V34_PULSE_LEN - 1] = 0;
}

void smdsp_v34_mod_init(struct smdsp_v34_mod *s, enum smdsp_v34_symrate rate, bool high,
			smdsp_v34_get_sym_t get, void *user)
{
	memset(s, 0, sizeof(*s));
	smdsp_v34_pulse_init(s->pulse);
	s->get = get;
	s->user = user;
	s->rate = rate;
	s->high = high;
	s->step = smdsp_v34_ticks_per_sample(rate);
	s->phase_step = smdsp_v34_carrier_step(rate, high);
	/* the first sample starts the first symbol */
	s->acc = SMDSP_V34_TICKS - s->step;
}

struct smdsp_v34_mod *smdsp_v34_mod_create(enum smdsp_v34_symrate rate, bool high,
					   smdsp_v34_get_sym_t get, void *user)
{
	struct smdsp_v34_mod *s;

	if ((unsigned int)rate >= SMDSP_V34_SYMRATES)
		return NULL;
	s = smdsp_alloc(sizeof(*s));
	if (s)
		smdsp_v34_mod_init(s, rate, high, get, user);
	return s;
}

void smdsp_v34_mod_free(struct smdsp_v34_mod *s)
{
	smdsp_free(s);
}

void smdsp_v34_mod_reset(struct smdsp_v34_mod *s)
{
	smdsp_v34_mod_set_rate(s, s->rate, s->high);
}

int smdsp_v34_mod_set_rate(struct smdsp_v34_mod *s, enum smdsp_v34_symrate rate, bool high)
{
	if ((unsigned int)rate >= SMDSP_V34_SYMRATES)
		return -EINVAL;
	memset(s->sym, 0, sizeof(s->sym));
	s->sym_pos = 0;
	s->symbols = 0;
	s->phase = 0;
	s->rate = rate;
	s->high = high;
	s->step = smdsp_v34_ticks_per_sample(rate);
	s->phase_step = smdsp_v34_carrier_step(rate, high);
	s->acc = SMDSP_V34_TICKS - s->step;
	return 0;
}

int smdsp_v34_mod_print(const struct smdsp_v34_mod *s, char *buf, size_t len)
{
	return snprintf(buf, len, "v34_mod %u baud carrier %u mHz symbols=%u",
			(smdsp_v34_symrate_mbaud(s->rate) + 500) / 1000, smdsp_v34_carrier_mhz(s->rate, s->high),
			s->symbols);
}

uint32_t smdsp_v34_mod_symbols(const struct smdsp_v34_mod *s)
{
	return s->symbols;
}

void smdsp_v34_mod_process(struct smdsp_v34_mod *s, int16_t *out, unsigned int n)
{
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		const struct smdsp_cplx *sp;
		int64_t re = 0, im = 0, v;
		int32_t t;

		s->acc += s->step;
		if (s->acc >= SMDSP_V34_TICKS) {
			struct smdsp_cplx c = { 0, 0 };

			s->acc -= SMDSP_V34_TICKS;
			if (s->get)
				s->get(s->user, &c);
			if (++s->sym_pos >= SMDSP_V34_PULSE_SYMS)
				s->sym_pos = 0;
			s->sym[s->sym_pos] = c;
			s->sym[s->sym_pos + SMDSP_V34_PULSE_SYMS] = c;
			s->symbols++;
		}
		/* k symbols older than the newest: acc + k symbols after its start */
		sp = s->sym + s->sym_pos + SMDSP_V34_PULSE_SYMS;
		t = (int32_t)s->acc - SMDSP_V34_HALF;
		for (k = 0; k < SMDSP_V34_PULSE_SYMS; k++, t += SMDSP_V34_TICKS) {
			int32_t h = s->pulse[(t < 0 ? -t : t) / SMDSP_V34_PULSE_STEP];

			re += (int64_t)sp[-(int)k].re * h;
			im += (int64_t)sp[-(int)k].im * h;
		}
		/* Re{(re + j im) e^(j phase)}, Q14 pulse, Q15 carrier */
		v = re * smdsp_cos(s->phase) - im * smdsp_sin(s->phase);
		out[i] = smdsp_sat16((int32_t)smdsp_sat32((v + (1LL << 28)) >> 29));
		s->phase += s->phase_step;
	}
}
