// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 phases 3 and 4 and the data mode, transmit side (10.1.3; 11.3, 11.4).
 *
 * One symbol at a time for v34_mod's timing unit (the symbol rate and
 * carrier phase 2 chose), in this order:
 *
 * - MD (md_symbols, our INFO1's MD length): V.34 leaves its content to the
 *   manufacturer and has the far receiver let it pass before S. Ours is
 *   silence: a receiver that honours the length ignores it whatever it is,
 *   and one that listens early hears nothing it could take for S, S-bar or
 *   PP (an S-like MD would be a longer S to it, but a receiver that times S
 *   out would lose it); our 2-wire canceller's window is timed from our S
 *   and PP, so it moves with them. 2-wire, the call modem's MD starts when
 *   its receiver has trained, where its S would have.
 * - S, 128 symbols alternating between point 0 of the 4-point constellation
 *   (45 degrees) and that point turned 90 degrees anticlockwise (point 3),
 *   then S-bar, 16 symbols of the same turned 180 degrees: a line spectrum
 *   (the carrier and the carrier plus and minus half the symbol rate) whose
 *   reversal marks the time PP starts.
 * - PP, six periods of a 48-symbol sequence of unit-modulus points: with
 *   k = 4i + I (I = 0-3, i = 0-11), p(k) = e^(j pi i (I + 2 i + 2) / 6); a
 *   period's periodic autocorrelation is 0 away from lag 0 (proven in
 *   test_v34_train), so one period correlated against what arrives gives
 *   the channel's response, and the rest train the equaliser. Our first
 *   reading of 10.1.3.6, i (I + 2 i), is as perfect a sequence but not the
 *   one real modems send (tests/dsp/v34_train_recordings.c's calls: their
 *   PP correlated against it left 40 % of the channel's response in
 *   echoes 12 symbols off, against this one 3 %; equalised on this one,
 *   their S, S-bar and TRN fall on the points said here).
 * - TRN, scrambled ones (this end's scrambler, GPC or GPA, from zero) two
 *   bits a symbol on the 4-point constellation, the first bit the dibit's
 *   low one: dibit d is point 0 turned d quarter turns clockwise (the real
 *   modems' TRN descrambles to ones so, and only so).
 * - J, its 16 bits scrambled as TRN but differentially encoded as MP,
 *   repeated until this end's receiver has trained; then J' once. (The real
 *   modems' J decodes so, not as TRN.) J asks the far end for the TRN it
 *   sends in phase 4 (4 or 16 points: the configuration's trn16), as real
 *   modems' J does: after the Agere caller's J for 4 points the answerer
 *   sent a 4-point TRN, after the answerer's for 16 every caller a
 *   16-point one, whatever its own J said.
 * - Phase 4's TRN, 512 symbols (the recommendation's least), on the points
 *   the far J asked for (the attached receiver's; without one, our own
 *   J's).
 * - MP (type 1: our receiver's precoding coefficients) repeated until the
 *   far end's MP arrives, then MP' until its MP' arrives and one whole MP'
 *   has gone; E (20 ones) after it. MP and E are scrambled and
 *   differentially encoded, two bits a symbol (a dibit adds to the
 *   quadrant, the first to TRN's last one, as J's to phase 3's TRN).
 * - B1: one data frame of ones through v34_data, then the user's bits. The
 *   data rate and precoder are settled from the two MPs (the lower rate of
 *   the two for each direction; the far end's coefficients), and so are the
 *   trellis code (the far receiver's MP asks for it) and the auxiliary
 *   channel (when both MPs offer it: its bits from smdsp_v34_train_tx_set_aux()'s
 *   callback where the framing puts them, B1's ones).
 *
 * The data mode's points (1/128 units) are scaled to the training's power.
 * The pre-emphasis filter of phase 2 (its gain from smdsp_v34_preemph_db10)
 * is a 25-tap complex filter at the symbol rate on the symbols, designed at
 * create by frequency sampling across the band and scaled to keep the
 * power; index 0 bypasses it. At the symbol rate its response repeats every
 * S, so a slope cannot hold up to the band's edges: 9 taps were 1.7 dB off
 * phase 2's shape at +-0.4 S, 25 taps are within 0.5 dB (test_v34_train).
 *
 * On a 2-wire line (two_wire) the order is the duplex one, so that each end
 * trains its echo canceller on its own PP and TRN while the far end is
 * silent (v34_train_rx.c schedules it from the times kept here):
 * - the answer modem sends S, S-bar, PP, TRN and J at once, J until its
 *   receiver has found the call modem's S; then nothing until its receiver
 *   has trained on the call modem's training; then S, S-bar, phase 4's TRN
 *   (no PP: the far receiver's equaliser is trained), MP...;
 * - the call modem sends nothing until its receiver has trained (the
 *   answer modem's J), then S, S-bar, PP, TRN and J, J until its receiver
 *   has found the answer modem's second S; then J', phase 4's TRN, MP...
 * TRN lasts 1.25 s there unless told (at least 2048 symbols): the
 * canceller's window is the training less the far end's reaction, and it
 * needs about a second for 40 dB (the V.32bis modem's 3072 symbols). The
 * samples sent are kept (SMDSP_V34_HIST) for the canceller's line.
 */
#include <smdsp/private/v34_train.h>
#include <smdsp/private/v34_mod.h>
#include <smdsp/v34_probe.h>

#define TRN_DEFAULT 2048
#define E_BITS 20

void smdsp_v34_train_pp(unsigned int k, int32_t amp, struct smdsp_cplx *p)
{
	unsigned int i, I;
	uint32_t ph;

	k %= SMDSP_V34_PP_PERIOD;
	i = k / 4;
	I = k % 4;
	/* pi i (I + 2 i + 2) / 6 = i (I + 2 i + 2) twelfths of a turn */
	ph = (uint32_t)smdsp_div_u64((uint64_t)((i * (I + 2 * i + 2)) % 12) << 32, 12);
	/* unit modulus at the 4-point constellation's power: |p| = amp sqrt 2 */
	p->re = (int32_t)(((int64_t)smdsp_cos(ph) * amp * 46341) >> 30);
	p->im = (int32_t)(((int64_t)smdsp_sin(ph) * amp * 46341) >> 30);
}

/* dibit 0-3 to the quadrants 45, 315, 225, 135 degrees: a dibit adds quarter turns clockwise */
void smdsp_v34_train_point4(unsigned int dibit, int32_t amp, struct smdsp_cplx *p)
{
	static const int8_t sx[4] = { 1, 1, -1, -1 }, sy[4] = { 1, -1, -1, 1 };

	p->re = sx[dibit & 3] * amp;
	p->im = sy[dibit & 3] * amp;
}

/* bits 0-1 the quadrant as the 4-point one, bits 2-3 the point in it (1 or 3 each axis) */
void smdsp_v34_train_point16(unsigned int quad, int32_t amp, struct smdsp_cplx *p)
{
	/* (1, 3) at the 4-point power: amp / sqrt 5 per unit, 29309 = 2^16 / sqrt 5 */
	int32_t u = (int32_t)(((int64_t)amp * 29309) >> 16);
	int32_t a = (quad & 4) ? 3 : 1, b = (quad & 8) ? 3 : 1;
	struct smdsp_cplx q;

	smdsp_v34_train_point4(quad & 3, 1, &q);
	p->re = q.re * a * u;
	p->im = q.im * b * u;
}

/* called while symbol s->symbols is made: the new state starts with the next one */
static void set_state(struct smdsp_v34_train_tx *s, enum smdsp_v34_train_state st)
{
	s->state = st;
	s->began[st] = s->symbols + 1;
	s->count = 0;
	/* the block it goes out in: the canceller's schedule has margins wider than a block */
	if (st == SMDSP_V34_T_S && !s->phase4 && !s->has_s) {
		s->t_s = s->blk;
		s->has_s = true;
	} else if (st == SMDSP_V34_T_PP && !s->has_pp) {
		s->t_pp = s->blk;
		s->has_pp = true;
	} else if (st == SMDSP_V34_T_J && !s->has_j) {
		s->t_j = s->blk;
		s->has_j = true;
	}
}

/* the pre-emphasis filter by frequency sampling: S/9 apart across the band */
static void pe_design(struct smdsp_v34_train_tx *s)
{
	const int sr = (int)((smdsp_v34_symrate_mbaud(s->cfg.symrate) + 500) / 1000);
	const int fc = (int)((smdsp_v34_carrier_mhz(s->cfg.symrate, s->cfg.high) + 500) / 1000);
	int64_t g[SMDSP_V34_PE_TAPS], e = 0;
	uint32_t norm;
	int m, k;

	s->pe_on = s->cfg.preemph > 0 && s->cfg.preemph <= 10;
	if (!s->pe_on)
		return;
	for (m = 0; m < SMDSP_V34_PE_TAPS; m++) {
		int f = fc + (m - SMDSP_V34_PE_TAPS / 2) * sr / SMDSP_V34_PE_TAPS;
		int db = smdsp_v34_preemph_db10(s->cfg.preemph, s->cfg.symrate, s->cfg.high, f);

		/* amplitude, Q14 */
		g[m] = (int64_t)(smdsp_db_to_amp_q32(db) >> 18);
		e += g[m] * g[m];
	}
	/* the mean power gain back to 1 */
	norm = smdsp_isqrt64((uint64_t)smdsp_div_u64((uint64_t)e, SMDSP_V34_PE_TAPS));
	for (k = 0; k < SMDSP_V34_PE_TAPS; k++) {
		int64_t re = 0, im = 0;

		for (m = 0; m < SMDSP_V34_PE_TAPS; m++) {
			int t = ((m - SMDSP_V34_PE_TAPS / 2) * (k - SMDSP_V34_PE_TAPS / 2)) %
				SMDSP_V34_PE_TAPS;
			uint32_t ph;

			if (t < 0)
				t += SMDSP_V34_PE_TAPS;
			ph = (uint32_t)smdsp_div_u64((uint64_t)t << 32, SMDSP_V34_PE_TAPS);
			re += g[m] * smdsp_cos(ph);
			im += g[m] * smdsp_sin(ph);
		}
		/* / 9, / norm (Q14), Q15 trig: Q14 taps */
		s->pe[k][0] = (int32_t)smdsp_div_s64(smdsp_div_s64(re, SMDSP_V34_PE_TAPS) * (1 << 14),
						     (int32_t)norm) >> 15;
		s->pe[k][1] = (int32_t)smdsp_div_s64(smdsp_div_s64(im, SMDSP_V34_PE_TAPS) * (1 << 14),
						     (int32_t)norm) >> 15;
	}
}

static void pe_filter(struct smdsp_v34_train_tx *s, struct smdsp_cplx *c)
{
	int64_t re = 0, im = 0;
	unsigned int k;

	if (!s->pe_on)
		return;
	s->pe_pos = (s->pe_pos + 1) % SMDSP_V34_PE_TAPS;
	s->pe_hist[s->pe_pos] = *c;
	for (k = 0; k < SMDSP_V34_PE_TAPS; k++) {
		const struct smdsp_cplx *h = &s->pe_hist[(s->pe_pos + SMDSP_V34_PE_TAPS - k) %
							  SMDSP_V34_PE_TAPS];

		re += (int64_t)h->re * s->pe[k][0] - (int64_t)h->im * s->pe[k][1];
		im += (int64_t)h->re * s->pe[k][1] + (int64_t)h->im * s->pe[k][0];
	}
	c->re = smdsp_sat16((int32_t)(re >> 14));
	c->im = smdsp_sat16((int32_t)(im >> 14));
}

static unsigned int scr2(struct smdsp_v34_train_tx *s, unsigned int b0, unsigned int b1)
{
	unsigned int d = smdsp_v34_scramble_bit(&s->scr, b0);

	return d | (smdsp_v34_scramble_bit(&s->scr, b1) << 1);
}

/*
 * Our transmitter's limit for the far end's direction, as our MP offers it
 * and settle() takes it: cfg.data_rate, or up to lift what the far MP of
 * this exchange asks for above it (a climb of the far receiver's past the
 * rate its training found, on a line better since: v34.c's data_watch())
 */
static unsigned int offer(const struct smdsp_v34_train_tx *s)
{
	unsigned int r = s->cfg.data_rate, ask;
	struct smdsp_v34_mp far;
	bool ack;

	if (!r || s->lift <= r || s->rn_wait || !s->rx || !smdsp_v34_train_rx_far_mp(s->rx, &far, &ack))
		return r;
	ask = 2400 * (s->cfg.caller ? far.rate_c_to_a : far.rate_a_to_c);
	if (ask > r)
		r = ask < s->lift ? ask : s->lift;
	return r;
}

static void build_mp(struct smdsp_v34_train_tx *s, bool ack)
{
	struct smdsp_v34_mp mp;

	if (!s->rx || !smdsp_v34_train_rx_our_mp(s->rx, &mp))
		memset(&mp, 0, sizeof(mp));
	mp.type = 1;
	if (s->cfg.caller)
		mp.rate_c_to_a = offer(s) / 2400;
	else
		mp.rate_a_to_c = offer(s) / 2400;
	if (!mp.rate_c_to_a)
		mp.rate_c_to_a = 1;
	if (!mp.rate_a_to_c)
		mp.rate_a_to_c = 1;
	/* the cleardown: no rate either way */
	if (!s->cfg.data_rate) {
		mp.rate_c_to_a = 0;
		mp.rate_a_to_c = 0;
	}
	mp.rates = 0x3fff;
	mp.asymmetric = true;
	mp.aux = s->cfg.aux;
	mp.ack = ack;
	memset(s->mp, 0, sizeof(s->mp));
	s->mp_bits = (unsigned int)smdsp_v34_mp_pack(&mp, s->mp);
	s->mp_pos = 0;
	s->mp_ack = ack;
}

/*
 * The rate and coefficients from the far end's MP: B1 next, CLEARED for no
 * rate (the cleardown), FAILED if v34_data refuses them
 */
static enum smdsp_v34_train_state settle(struct smdsp_v34_train_tx *s)
{
	struct smdsp_v34_data_config dc;
	struct smdsp_v34_mp far;
	unsigned int far_rate, lim = offer(s);
	bool ack;

	if (!s->rx || !smdsp_v34_train_rx_far_mp(s->rx, &far, &ack))
		return SMDSP_V34_T_FAILED;
	far_rate = 2400 * (s->cfg.caller ? far.rate_c_to_a : far.rate_a_to_c);
	smdsp_v34_train_data_config(&s->cfg, true, far_rate, &dc);
	/* the rate our last MPs offered, if more than the configuration's: what the far receiver settles */
	if (dc.data_rate && lim > s->cfg.data_rate)
		dc.data_rate = far_rate < lim ? far_rate : lim;
	/* the code the far receiver asked for (v34_mp refuses a field above 2) */
	dc.states = 16u << far.trellis;
	/* the auxiliary channel when both MPs offer it, as the far receiver decides too */
	dc.aux = s->cfg.aux && far.aux;
	/* the nonlinear encoder and the shaping the far receiver asked for (it undoes them) */
	dc.theta = far.nonlinear ? SMDSP_V34_THETA : 0;
	dc.expanded = far.expanded;
	if (!dc.data_rate)
		return SMDSP_V34_T_CLEARED;
	if (far.type == 1)
		memcpy(dc.h, far.h, sizeof(dc.h));
	if (smdsp_v34_data_tx_configure(s->data, &dc))
		return SMDSP_V34_T_FAILED;
	s->rate = dc.data_rate;
	s->states = dc.states;
	s->aux = dc.aux;
	s->gain = smdsp_isqrt64(smdsp_div_u64((2ULL * SMDSP_V34_TRAIN_AMP * SMDSP_V34_TRAIN_AMP) << 32,
					      smdsp_v34_data_tx_power(s->data)));
	s->frames = 0;
	s->pt = 16;
	return SMDSP_V34_T_B1;
}

static void data_symbol(struct smdsp_v34_train_tx *s, struct smdsp_cplx *c)
{
	if (s->pt >= 16) {
		const struct smdsp_v34_frame_params *p = smdsp_v34_data_tx_params(s->data);
		uint8_t bits[SMDSP_V34_MAX_B];
		unsigned int n = smdsp_v34_data_tx_bits(s->data), t;
		bool b1 = s->frames < p->p;
		unsigned int aux = 0;

		for (t = 0; t < n; t++)
			bits[t] = b1 ? 1 : (s->get_bit ? (uint8_t)(s->get_bit(s->user) & 1) : 1);
		/* the aux bit where the switching pattern of W puts one (9.2), B1's a one */
		if (smdsp_v34_frame_has_aux(p, s->frames % p->p))
			aux = b1 ? 1 : s->aux_get_bit ? (unsigned int)s->aux_get_bit(s->aux_user) & 1 : 0;
		smdsp_v34_data_tx_frame(s->data, bits, aux, s->pts, NULL);
		s->frames++;
		s->pt = 0;
		if (!b1 && s->state == SMDSP_V34_T_B1) {
			/* this symbol is already data */
			set_state(s, SMDSP_V34_T_DATA);
			s->began[SMDSP_V34_T_DATA] = s->symbols;
		}
	}
	c->re = (int32_t)(((int64_t)s->pts[s->pt] * s->gain) >> 16);
	c->im = (int32_t)(((int64_t)s->pts[s->pt + 1] * s->gain) >> 16);
	s->pt += 2;
}

static unsigned int mp_dibit(struct smdsp_v34_train_tx *s)
{
	unsigned int b0 = smdsp_v34_info_bit(s->mp, s->mp_pos);
	unsigned int b1 = smdsp_v34_info_bit(s->mp, s->mp_pos + 1);

	s->mp_pos += 2;
	return scr2(s, b0, b1);
}

/*
 * Rate renegotiation: ours asked for, or the far end's S heard by our
 * receiver (its count moved) and not answered yet
 */
static bool rn_due(const struct smdsp_v34_train_tx *s)
{
	return s->rn_ask || (s->rx && s->rx->rn_count != s->rn_seen);
}

/*
 * From the data mode, on a mapping frame's boundary: S, S-bar and phase 4's
 * TRN (the far receiver's equaliser is trained: no PP), then MP... as in
 * phase 4. Ours begun first waits for the far end's S before its MPs count:
 * what our receiver holds until then is the last exchange's.
 */
static void rn_start(struct smdsp_v34_train_tx *s)
{
	s->rn_wait = !s->rx || s->rx->rn_count == s->rn_seen;
	if (s->rx)
		s->rn_seen = s->rx->rn_count;
	s->rn_ask = false;
	s->phase4 = true;
	set_state(s, SMDSP_V34_T_S);
}

static bool rn_waiting(struct smdsp_v34_train_tx *s)
{
	if (s->rn_wait && s->rx && s->rx->rn_count != s->rn_seen) {
		s->rn_wait = false;
		s->rn_seen = s->rx->rn_count;
	}
	return s->rn_wait;
}

void smdsp_v34_train_tx_set_lift(struct smdsp_v34_train_tx *s, unsigned int data_rate)
{
	s->lift = data_rate;
}

int smdsp_v34_train_tx_renegotiate(struct smdsp_v34_train_tx *s, unsigned int data_rate)
{
	if (s->state != SMDSP_V34_T_DATA && s->state != SMDSP_V34_T_B1)
		return -EBUSY;
	s->cfg.data_rate = data_rate;
	s->rn_ask = true;
	return 0;
}

static void get_symbol(void *user, struct smdsp_cplx *c)
{
	struct smdsp_v34_train_tx *s = user;
	const int32_t a = SMDSP_V34_TRAIN_AMP;
	unsigned int d;
	bool ack;
	struct smdsp_v34_mp far;

	if (s->state == SMDSP_V34_T_DATA && s->pt >= 16 && rn_due(s))
		rn_start(s);
	switch (s->state) {
	case SMDSP_V34_T_S:
		/* point 0, then turned 90 degrees anticlockwise: point 3 */
		smdsp_v34_train_point4(s->count & 1 ? 3 : 0, a, c);
		if (++s->count == SMDSP_V34_S_SYMS)
			set_state(s, SMDSP_V34_T_SBAR);
		break;
	case SMDSP_V34_T_SBAR:
		smdsp_v34_train_point4(s->count & 1 ? 1 : 2, a, c);
		if (++s->count == SMDSP_V34_SBAR_SYMS)
			set_state(s, s->phase4 ? SMDSP_V34_T_TRN4 : SMDSP_V34_T_PP);
		break;
	case SMDSP_V34_T_PP:
		smdsp_v34_train_pp(s->count, a, c);
		if (++s->count == SMDSP_V34_PP_SYMS)
			set_state(s, SMDSP_V34_T_TRN);
		break;
	case SMDSP_V34_T_TRN:
		/* J's differential encoding starts from TRN's last point */
		s->diff = scr2(s, 1, 1);
		smdsp_v34_train_point4(s->diff, a, c);
		if (++s->count == s->trn_len) {
			set_state(s, SMDSP_V34_T_J);
			s->jword = s->cfg.trn16 ? SMDSP_V34_J16 : SMDSP_V34_J4;
		}
		break;
	case SMDSP_V34_T_J:
	case SMDSP_V34_T_JP:
		d = (s->count % 8) * 2;
		s->diff = (s->diff + scr2(s, (s->jword >> d) & 1, (s->jword >> (d + 1)) & 1)) & 3;
		smdsp_v34_train_point4(s->diff, a, c);
		if (++s->count % 8)
			break;
		if (s->state == SMDSP_V34_T_JP) {
			set_state(s, SMDSP_V34_T_TRN4);
		} else if (s->cfg.two_wire) {
			if (!s->rx)
				break;
			if (!s->cfg.caller && s->rx->state != SMDSP_V34_T_IDLE) {
				/* the call modem's S: silent while it trains its canceller and our receiver */
				s->phase4 = true;
				set_state(s, SMDSP_V34_T_IDLE);
			} else if (s->cfg.caller && s->rx->p4) {
				set_state(s, SMDSP_V34_T_JP);
				s->jword = SMDSP_V34_JP;
			}
		} else if (s->rx && smdsp_v34_train_rx_trained(s->rx)) {
			set_state(s, SMDSP_V34_T_JP);
			s->jword = SMDSP_V34_JP;
		}
		break;
	case SMDSP_V34_T_TRN4:
		/* MP's differential encoding starts from TRN's last quadrant (a 16-point index's low bits) */
		if (s->rx ? smdsp_v34_train_rx_far_trn16(s->rx) : s->cfg.trn16) {
			d = scr2(s, 1, 1) | (scr2(s, 1, 1) << 2);
			smdsp_v34_train_point16(d, a, c);
		} else {
			d = scr2(s, 1, 1);
			smdsp_v34_train_point4(d, a, c);
		}
		s->diff = d & 3;
		if (++s->count == (s->cfg.trn4_symbols ? s->cfg.trn4_symbols : SMDSP_V34_TRN4_SYMS)) {
			set_state(s, SMDSP_V34_T_MP);
			build_mp(s, false);
		}
		break;
	case SMDSP_V34_T_MP:
	case SMDSP_V34_T_MPP:
		s->diff = (s->diff + mp_dibit(s)) & 3;
		smdsp_v34_train_point4(s->diff, a, c);
		s->count++;
		if (s->mp_pos < s->mp_bits)
			break;
		/* a frame has gone: what next depends on what the far end sent */
		if (s->rx && !rn_waiting(s) && smdsp_v34_train_rx_far_mp(s->rx, &far, &ack)) {
			if (s->state == SMDSP_V34_T_MPP && ack) {
				set_state(s, SMDSP_V34_T_E);
				break;
			}
			if (s->state == SMDSP_V34_T_MP)
				set_state(s, SMDSP_V34_T_MPP);
		}
		build_mp(s, s->state == SMDSP_V34_T_MPP);
		break;
	case SMDSP_V34_T_E:
		s->diff = (s->diff + scr2(s, 1, 1)) & 3;
		smdsp_v34_train_point4(s->diff, a, c);
		if (++s->count == E_BITS / 2)
			set_state(s, settle(s));
		break;
	case SMDSP_V34_T_B1:
	case SMDSP_V34_T_DATA:
		data_symbol(s, c);
		break;
	case SMDSP_V34_T_CLEARED:
		/* silent, the pre-emphasis filter's delay flushed: E's and MP's last symbols leave whole */
		c->re = 0;
		c->im = 0;
		pe_filter(s, c);
		return;
	case SMDSP_V34_T_IDLE:
		/* 2-wire: silent until our receiver has trained on the far end's training */
		if (s->md_left && !s->phase4) {
			/* MD before phase 3's S, from the start (2-wire, the call modem's from its receiver trained) */
			if (!(s->cfg.two_wire && s->cfg.caller) || (s->rx && smdsp_v34_train_rx_trained(s->rx)))
				if (!--s->md_left)
					set_state(s, SMDSP_V34_T_S);
		} else if (s->rx && smdsp_v34_train_rx_trained(s->rx) && (s->cfg.caller || s->phase4)) {
			set_state(s, SMDSP_V34_T_S);
		}
		c->re = 0;
		c->im = 0;
		return;
	default:
		c->re = 0;
		c->im = 0;
		return;
	}
	pe_filter(s, c);
	s->symbols++;
}

struct smdsp_v34_train_tx *smdsp_v34_train_tx_create(const struct smdsp_v34_train_config *cfg,
						     smdsp_get_bit_fn get_bit, void *user)
{
	struct smdsp_v34_data_config dc;
	struct smdsp_v34_train_tx *s;

	if (smdsp_v34_train_data_config(cfg, true, cfg->data_rate, &dc))
		return NULL;
	s = smdsp_alloc(sizeof(*s));
	if (!s)
		return NULL;
	s->cfg = *cfg;
	s->get_bit = get_bit;
	s->user = user;
	s->mod = smdsp_v34_mod_create(cfg->symrate, cfg->high, get_symbol, s);
	s->data = smdsp_v34_data_tx_create(&dc);
	if (cfg->two_wire)
		s->hist = smdsp_alloc(SMDSP_V34_HIST * sizeof(*s->hist));
	if (!s->mod || !s->data || (cfg->two_wire && !s->hist)) {
		smdsp_v34_train_tx_free(s);
		return NULL;
	}
	pe_design(s);
	smdsp_v34_train_tx_reset(s);
	return s;
}

int smdsp_v34_train_tx_configure(struct smdsp_v34_train_tx *s, const struct smdsp_v34_train_config *cfg)
{
	struct smdsp_v34_data_config dc;

	if ((cfg->two_wire && !s->hist) || smdsp_v34_train_data_config(cfg, true, cfg->data_rate, &dc) ||
	    smdsp_v34_data_tx_configure(s->data, &dc))
		return -EINVAL;
	smdsp_v34_mod_set_rate(s->mod, cfg->symrate, cfg->high);
	s->cfg = *cfg;
	pe_design(s);
	smdsp_v34_train_tx_reset(s);
	return 0;
}

void smdsp_v34_train_tx_free(struct smdsp_v34_train_tx *s)
{
	if (!s)
		return;
	smdsp_v34_mod_free(s->mod);
	smdsp_v34_data_tx_free(s->data);
	smdsp_free(s->hist);
	smdsp_free(s);
}

void smdsp_v34_train_tx_reset(struct smdsp_v34_train_tx *s)
{
	smdsp_v34_mod_reset(s->mod);
	smdsp_v34_scramble_init(&s->scr, s->cfg.caller);
	memset(s->began, 0, sizeof(s->began));
	memset(s->pe_hist, 0, sizeof(s->pe_hist));
	s->symbols = 0;
	s->rate = 0;
	s->states = 0;
	s->aux = false;
	s->pt = 16;
	s->trn_len = s->cfg.trn_symbols ? s->cfg.trn_symbols : TRN_DEFAULT;
	if (s->cfg.two_wire && !s->cfg.trn_symbols) {
		unsigned int n = (unsigned int)(smdsp_v34_symrate_mbaud(s->cfg.symrate) * 5 / 4000);

		if (n > s->trn_len)
			s->trn_len = n;
	}
	s->phase4 = false;
	s->rn_ask = false;
	s->lift = 0;
	s->rn_wait = false;
	s->rn_seen = 0;
	s->has_s = false;
	s->has_pp = false;
	s->has_j = false;
	s->sent = 0;
	s->blk = 0;
	if (s->hist)
		memset(s->hist, 0, SMDSP_V34_HIST * sizeof(*s->hist));
	s->md_left = s->cfg.md_symbols;
	if ((s->cfg.two_wire && s->cfg.caller) || s->md_left) {
		s->state = SMDSP_V34_T_IDLE;
		s->count = 0;
		return;
	}
	set_state(s, SMDSP_V34_T_S);
	s->began[SMDSP_V34_T_S] = 0;
}

void smdsp_v34_train_tx_attach(struct smdsp_v34_train_tx *s, const struct smdsp_v34_train_rx *rx)
{
	s->rx = rx;
}

static const char *const state_names[] = {
	"idle", "S", "S-bar", "PP", "TRN", "J", "J'", "TRN4", "MP", "MP'", "E", "B1", "data", "cleared", "failed"
};

int smdsp_v34_train_tx_print(const struct smdsp_v34_train_tx *s, char *buf, size_t len)
{
	return snprintf(buf, len, "v34_train_tx %s symbols=%u rate=%u preemph=%u%s",
			state_names[s->state], s->symbols, s->rate, s->cfg.preemph, s->cfg.caller ? " caller" : "");
}

void smdsp_v34_train_tx_process(struct smdsp_v34_train_tx *s, int16_t *out, unsigned int n)
{
	unsigned int i;

	s->blk = s->sent;
	smdsp_v34_mod_process(s->mod, out, n);
	if (s->hist)
		for (i = 0; i < n; i++)
			s->hist[(s->sent + i) & (SMDSP_V34_HIST - 1)] = out[i];
	s->sent += n;
}

enum smdsp_v34_train_state smdsp_v34_train_tx_state(const struct smdsp_v34_train_tx *s)
{
	return s->state;
}

uint32_t smdsp_v34_train_tx_symbols(const struct smdsp_v34_train_tx *s)
{
	return s->symbols;
}

uint32_t smdsp_v34_train_tx_began(const struct smdsp_v34_train_tx *s, enum smdsp_v34_train_state st)
{
	return (unsigned int)st <= SMDSP_V34_T_FAILED ? s->began[st] : 0;
}

unsigned int smdsp_v34_train_tx_rate(const struct smdsp_v34_train_tx *s)
{
	return s->rate;
}

unsigned int smdsp_v34_train_tx_states(const struct smdsp_v34_train_tx *s)
{
	return s->states;
}

void smdsp_v34_train_tx_set_aux(struct smdsp_v34_train_tx *s, smdsp_get_bit_fn get_bit, void *user)
{
	s->aux_get_bit = get_bit;
	s->aux_user = user;
}

bool smdsp_v34_train_tx_aux(const struct smdsp_v34_train_tx *s)
{
	return s->aux;
}
