// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 phase 2 receiver: the INFO sequences at 600 bit/s DPSK, tone A or B
 * and its phase reversals (10.1.2).
 *
 * The line is mixed down from the far end's carrier (2400 Hz heard by the call
 * modem, 1200 Hz by the answer modem) and low-pass filtered by the matched
 * filter, the transmitter's root raised cosine over its whole 6 symbols (a
 * shorter one lets too much of our own signal on the other carrier, 1200 Hz
 * away, through its sidelobes).
 *
 * DPSK needs no carrier recovery: a bit is the sign of the product of one
 * symbol with the previous one's conjugate (a 1 turns the phase by 180
 * degrees), which a frequency offset of tens of Hz only tilts. Nor does it
 * need a timing loop here: a frame lasts at most 109 symbols, over which even
 * a 0.1 % clock offset moves the sampling instant by a tenth of a symbol. So
 * the receiver samples at eight timing phases at once (every 5/3 samples,
 * linearly interpolated between samples of the 8 kHz filter output, which is
 * oversampled 13 times), each with its own bit history, and takes a frame from
 * whichever phase first shows one: the last fill bit and the frame sync, a
 * CRC that checks over the frame's length for each kind looked for, and
 * three in four of the frame's decisions firm (within 45 degrees of 0 or
 * 180), which noise, with half of them firm, does not pass. The trailing
 * fill bits are not required (the Agere modem does not send them), and the
 * other phases' copies of a frame just taken are ignored.
 *
 * A frame sync that leads to no good frame is counted: as a CRC error if the
 * bits after it were firm DPSK, as a truncated frame if the signal ended
 * first; a good CRC over a field out of range is refused and counted.
 *
 * The tone (A at 2400 Hz, B at 1200 Hz) is a run of zero bits: 32 steady
 * symbols (53 ms) turn it on. While on, a short excursion of phase-change
 * decisions (at most three symbols, then steady again for three) is a
 * reversal, reported at its strongest decision; a longer one (DPSK data) or
 * the loss of energy turns the tone off.
 */
#include <smdsp/private/v34_info.h>

#define ON_DBM0_10 (-430)
#define OFF_DBM0_10 (-480)
#define FIELDS_AT 12

static unsigned int frame_len(enum smdsp_v34_info_kind k)
{
	/* up to the end of the CRC: the trailing fill bits are not waited for */
	return smdsp_v34_info_bits(k) - 4;
}

/* the expected signal's |y|^2 for a tone at that level, y as computed below */
static uint64_t tone_pwr(int dbm0_10, int32_t gain_dc, unsigned int yshift)
{
	int64_t y = ((int64_t)(smdsp_dbm0_to_amp(dbm0_10) / 2) * gain_dc) >> yshift;

	return (uint64_t)(y * y);
}

/* the transmit pulse t/3 samples from its start (t < 240) */
static int32_t pulse(unsigned int t)
{
	return smdsp_v22bis_tx_rrc[t % SMDSP_V22BIS_TX_PHASES][t / SMDSP_V22BIS_TX_PHASES];
}

void smdsp_v34_info_rx_init(struct smdsp_v34_info_rx *s, bool calling, unsigned int kinds)
{
	uint32_t rate, phase = 0;
	int32_t abs_sum = 0, dc = 0;
	unsigned int i, shift = 0, yshift = 0;

	memset(s, 0, sizeof(*s));
	rate = smdsp_phase_rate(calling ? 2400000 : 1200000, SMDSP_RATE);
	for (i = 0; i < SMDSP_V34I_CAR_PERIOD; i++, phase += rate) {
		s->car_cos[i] = smdsp_cos(phase);
		s->car_sin[i] = smdsp_sin(phase);
	}
	/*
	 * Tap m is the transmit pulse at (m + 1) * 3/40 symbols from its start,
	 * centred on tap 39 (3 symbols); scaled so that the sum of the taps'
	 * magnitudes (with their rounding) times a full-scale sample fits 32 bits.
	 */
	for (i = 0; i < SMDSP_V34I_TAPS; i++)
		abs_sum += smdsp_abs32(pulse(3 * (i + 1)));
	while ((abs_sum >> shift) > 65000)
		shift++;
	for (i = 0; i < SMDSP_V34I_TAPS; i++) {
		int32_t h = pulse(3 * (i + 1));

		s->taps[i] = (int16_t)((h + (shift ? 1 << (shift - 1) : 0)) >> shift);
		dc += s->taps[i];
	}
	/* a full-scale tone comes out below 2^14, so that 3 |d|^2 of d = y y* fits 63 bits */
	while ((dc >> yshift) > 1)
		yshift++;
	yshift++;
	s->yshift = yshift;
	s->on_pwr = tone_pwr(ON_DBM0_10, dc, yshift);
	s->off_pwr = tone_pwr(OFF_DBM0_10, dc, yshift);
	s->slot_at = SMDSP_V34I_SLOT;
	s->calling = calling;
	s->kinds_cfg = kinds;
	s->kinds = kinds ? kinds : SMDSP_V34_INFO_MASK(SMDSP_V34_INFO0) |
		   SMDSP_V34_INFO_MASK(calling ? SMDSP_V34_INFO1A : SMDSP_V34_INFO1C);
}

struct smdsp_v34_info_rx *smdsp_v34_info_rx_create(bool calling, unsigned int kinds)
{
	struct smdsp_v34_info_rx *s = smdsp_alloc(sizeof(*s));

	if (s)
		smdsp_v34_info_rx_init(s, calling, kinds);
	return s;
}

void smdsp_v34_info_rx_free(struct smdsp_v34_info_rx *s)
{
	smdsp_free(s);
}

void smdsp_v34_info_rx_reset(struct smdsp_v34_info_rx *s)
{
	smdsp_v34_info_rx_init(s, s->calling, s->kinds_cfg);
}

int smdsp_v34_info_rx_print(const struct smdsp_v34_info_rx *s, char *buf, size_t len)
{
	return snprintf(buf, len,
			"v34_info_rx %s carrier=%d tone=%d frames=%u/%u/%u bad_crc=%u truncated=%u bad_range=%u reversals=%u",
			s->calling ? "2400Hz" : "1200Hz", s->carrier, s->tone, s->st.frames[0],
			s->st.frames[1], s->st.frames[2], s->st.bad_crc, s->st.truncated,
			s->st.bad_range, s->st.reversals);
}

bool smdsp_v34_info_rx_carrier(const struct smdsp_v34_info_rx *s)
{
	return s->carrier;
}

bool smdsp_v34_info_rx_tone(const struct smdsp_v34_info_rx *s)
{
	return s->tone;
}

void smdsp_v34_info_rx_get_stats(const struct smdsp_v34_info_rx *s,
				 struct smdsp_v34_info_rx_stats *st)
{
	*st = s->st;
}

bool smdsp_v34_info_rx_get(struct smdsp_v34_info_rx *s, struct smdsp_v34_info_event *ev)
{
	if (!s->ev_count)
		return false;
	*ev = s->ev[s->ev_head];
	s->ev_head = (s->ev_head + 1) % SMDSP_V34_INFO_RX_EVENTS;
	s->ev_count--;
	return true;
}

static struct smdsp_v34_info_event *push(struct smdsp_v34_info_rx *s, enum smdsp_v34_info_ev_type t)
{
	struct smdsp_v34_info_event *e;

	if (s->ev_count == SMDSP_V34_INFO_RX_EVENTS) {
		s->st.lost_events++;
		return NULL;
	}
	e = &s->ev[(s->ev_head + s->ev_count) % SMDSP_V34_INFO_RX_EVENTS];
	s->ev_count++;
	memset(e, 0, sizeof(*e));
	e->type = t;
	e->sample = s->sample;
	return e;
}

/* width (<= 64) bits of a 128-bit history from age a on (age 0: the newest) */
static uint64_t window(const uint64_t *h, unsigned int a)
{
	if (!a)
		return h[0];
	if (a < 64)
		return (h[0] >> a) | (h[1] << (64 - a));
	return h[1] >> (a - 64);
}

static unsigned int popcount64(uint64_t v)
{
	unsigned int n = 0;

	while (v) {
		v &= v - 1;
		n++;
	}
	return n;
}

/* firm decisions among phase p's newest n (<= 128) */
static unsigned int firm_newest(const struct smdsp_v34i_phase *p, unsigned int n)
{
	if (n <= 64)
		return popcount64(p->strong[0] & (n == 64 ? ~0ULL : (1ULL << n) - 1));
	return popcount64(p->strong[0]) +
	       popcount64(p->strong[1] & (n == 128 ? ~0ULL : (1ULL << (n - 64)) - 1));
}

/* a frame of that kind ends in phase p's newest bit? */
static void try_frame(struct smdsp_v34_info_rx *s, struct smdsp_v34i_phase *p,
		      enum smdsp_v34_info_kind kind)
{
	struct smdsp_v34_info_event *e;
	struct smdsp_v34_info info;
	uint8_t f[SMDSP_V34_INFO_BYTES];
	unsigned int len = frame_len(kind), i;
	int r;

	if (p->count < len - 3)
		return;
	/* bit 3 (the last leading fill bit) and the sync: 9 bits from age len - 12 */
	if ((window(p->bits, len - 12) & 0x1ff) != (0x100 | SMDSP_V34_INFO_SYNC))
		return;
	/* three in four of its decisions firm: noise has half, a usable signal nearly all */
	if (4 * firm_newest(p, len - 3) < 3 * (len - 3))
		return;
	memset(f, 0, sizeof(f));
	for (i = 0; i < len; i++) {
		unsigned int a = len - 1 - i;

		if ((p->bits[a >> 6] >> (a & 63)) & 1)
			f[i >> 3] |= (uint8_t)(1u << (i & 7));
	}
	r = smdsp_v34_info_unpack(kind, f, len, &info);
	if (r == -SMDSP_V34_INFO_ERR_RANGE) {
		s->st.bad_range++;
		s->cand = false;
		s->quiet_until = s->slots + 2 * SMDSP_V34I_K;
		return;
	}
	if (r)
		return;
	s->st.frames[kind]++;
	s->cand = false;
	/* the other phases see the same frame within a symbol */
	s->quiet_until = s->slots + 2 * SMDSP_V34I_K;
	e = push(s, SMDSP_V34_EV_FRAME);
	if (e) {
		e->info = info;
		memcpy(e->frame, f, sizeof(f));
		e->nbits = (uint8_t)len;
	}
}

static void tone_off(struct smdsp_v34_info_rx *s)
{
	if (s->tone)
		push(s, SMDSP_V34_EV_TONE_OFF);
	s->tone = false;
	s->zrun = 0;
	s->dsum_re = 0;
	s->dsum_im = 0;
	s->exc = false;
}

/* the tone's bookkeeping: one decision d of any timing phase, pw its |y|^2 */
static void tone_slot(struct smdsp_v34_info_rx *s, int64_t d_re, int64_t d_im, uint64_t pw)
{
	bool change, faint;

	s->recent = (uint8_t)((s->recent << 1) | (d_re < 0));
	/* a tone fading away is no tone: it cannot be steady, nor its end a reversal */
	faint = pw < (s->tpwr >> 3);
	/* a phase change shows at several timing phases at once; a lone one is noise */
	change = popcount64(s->recent) >= 3 || faint;
	if (!s->tone) {
		s->tpwr = s->tpwr - (s->tpwr >> 5) + (pw >> 5);
		if (change) {
			s->zrun = 0;
			s->dsum_re = 0;
			s->dsum_im = 0;
			return;
		}
		s->dsum_re += d_re >> 8;
		s->dsum_im += d_im >> 8;
		if (++s->zrun < SMDSP_V34I_TONE_SYMS * SMDSP_V34I_K)
			return;
		/* steady and on frequency: 7 degrees a symbol, 12 Hz (V.21's 1180 Hz is not B) */
		if (8 * (s->dsum_im < 0 ? -s->dsum_im : s->dsum_im) < s->dsum_re) {
			s->tone = true;
			s->exc = false;
			s->st.tones++;
			push(s, SMDSP_V34_EV_TONE_ON);
		} else {
			s->zrun = 0;
			s->dsum_re = 0;
			s->dsum_im = 0;
		}
		return;
	}
	if (!change && !s->exc)
		s->tpwr = s->tpwr - (s->tpwr >> 6) + (pw >> 6);
	if (!s->exc) {
		if (!change)
			return;
		s->exc = true;
		s->exc_len = 0;
		s->changed = 0;
		s->zeros_after = 0;
		s->peak = 0;
	}
	s->exc_len++;
	if (change) {
		s->changed = s->exc_len;
		s->zeros_after = 0;
		if (d_re < 0 && !faint && -d_re > s->peak) {
			s->peak = -d_re;
			s->peak_sample = s->sample;
		}
	} else if (++s->zeros_after >= 3 * SMDSP_V34I_K) {
		s->exc = false;
		if (s->changed <= 3 * SMDSP_V34I_K && s->peak) {
			struct smdsp_v34_info_event *e = push(s, SMDSP_V34_EV_REVERSAL);

			s->st.reversals++;
			if (e)
				e->sample = s->peak_sample;
		}
		return;
	}
	if (s->exc_len > 7 * SMDSP_V34I_K)
		tone_off(s);
}

/* the bits after a candidate's frame sync, as long as the shortest frame: firm DPSK? */
static void judge(struct smdsp_v34_info_rx *s, unsigned int age, unsigned int n)
{
	const struct smdsp_v34i_phase *p = &s->ph[s->cand_phase];
	unsigned int firm = popcount64(window(p->strong, age - n) & ((1ULL << n) - 1));

	if (p->count > age && 8 * firm >= 7 * n)
		s->st.bad_crc++;
}

/* the candidate frame sync, resolved: by a good frame, by its end, or by silence */
static void cand_slot(struct smdsp_v34_info_rx *s)
{
	unsigned int k, lmin = 255, lmax = 0, age, n;

	if (!s->cand)
		return;
	for (k = 0; k < SMDSP_V34_INFO_KINDS; k++) {
		if (!(s->kinds & SMDSP_V34_INFO_MASK(k)))
			continue;
		if (frame_len(k) < lmin)
			lmin = frame_len(k);
		if (frame_len(k) > lmax)
			lmax = frame_len(k);
	}
	age = (s->slots - s->cand_slot) / SMDSP_V34I_K;
	n = lmin - FIELDS_AT;
	if (n > 60)
		n = 60;
	if (!s->carrier) {
		/* the signal ended: after a whole (bad) frame, or in the middle of one */
		if (age > n)
			judge(s, age, n);
		else
			s->st.truncated++;
		s->cand = false;
		return;
	}
	if (age <= lmax - FIELDS_AT + 2)
		return;
	s->cand = false;
	judge(s, age, n);
}

static void slot(struct smdsp_v34_info_rx *s, int32_t y_re, int32_t y_im)
{
	struct smdsp_v34i_phase *p = &s->ph[s->slot_phase];
	int64_t d_re = (int64_t)y_re * p->prev_re + (int64_t)y_im * p->prev_im;
	int64_t d_im = (int64_t)y_im * p->prev_re - (int64_t)y_re * p->prev_im;
	uint64_t pw = (uint64_t)((int64_t)y_re * y_re + (int64_t)y_im * y_im);
	unsigned int bit, strong, k;

	p->prev_re = y_re;
	p->prev_im = y_im;
	s->slots++;
	s->pwr = s->pwr - (s->pwr >> 5) + (pw >> 5);
	s->pwr_fast = s->pwr_fast - (s->pwr_fast >> 3) + (pw >> 3);
	if (!s->carrier && s->pwr > s->on_pwr) {
		s->carrier = true;
	} else if (s->carrier && s->pwr_fast < s->off_pwr) {
		s->carrier = false;
		tone_off(s);
	}
	/*
	 * Decisions are kept also before the energy shows (a frame from silence
	 * starts before the carrier detector has seen it); the carrier is needed
	 * to take a frame.
	 */
	bit = d_re < 0;
	/* within 45 degrees of 0 or 180 */
	strong = d_re * d_re > d_im * d_im;
	p->bits[1] = (p->bits[1] << 1) | (p->bits[0] >> 63);
	p->bits[0] = (p->bits[0] << 1) | bit;
	p->strong[1] = (p->strong[1] << 1) | (p->strong[0] >> 63);
	p->strong[0] = (p->strong[0] << 1) | strong;
	if (p->count < 0xffffffffu)
		p->count++;
	cand_slot(s);
	if (!s->carrier)
		return;
	tone_slot(s, d_re, d_im, pw);
	if ((int32_t)(s->slots - s->quiet_until) < 0)
		return;
	/* a frame sync just completed: remember it, to count it if no frame follows */
	if (!s->cand && (p->bits[0] & 0x1ff) == (0x100 | SMDSP_V34_INFO_SYNC) &&
	    popcount64(p->strong[0] & 0x1ff) >= 8) {
		s->cand = true;
		s->cand_slot = s->slots;
		s->cand_phase = s->slot_phase;
	}
	for (k = 0; k < SMDSP_V34_INFO_KINDS; k++)
		if (s->kinds & SMDSP_V34_INFO_MASK(k))
			try_frame(s, p, k);
}

void smdsp_v34_info_rx_process(struct smdsp_v34_info_rx *s, const int16_t *x, unsigned int n)
{
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		int32_t acc_i = 0, acc_q = 0, zr, zi;
		const int16_t *hi, *hq;

		s->sample++;
		if (++s->car_idx >= SMDSP_V34I_CAR_PERIOD)
			s->car_idx = 0;
		/* x e^{-jwt}, each product back to 16 bits */
		if (++s->hpos >= SMDSP_V34I_TAPS)
			s->hpos = 0;
		s->hist_i[s->hpos] = (int16_t)(((int32_t)x[i] * s->car_cos[s->car_idx]) >> 15);
		s->hist_q[s->hpos] = (int16_t)(-(((int32_t)x[i] * s->car_sin[s->car_idx]) >> 15));
		s->hist_i[s->hpos + SMDSP_V34I_TAPS] = s->hist_i[s->hpos];
		s->hist_q[s->hpos + SMDSP_V34I_TAPS] = s->hist_q[s->hpos];
		/* the oldest of the newest TAPS samples first; the pulse is symmetric */
		hi = s->hist_i + s->hpos + 1;
		hq = s->hist_q + s->hpos + 1;
		for (k = 0; k < SMDSP_V34I_TAPS; k++) {
			acc_i += hi[k] * s->taps[k];
			acc_q += hq[k] * s->taps[k];
		}
		zr = acc_i >> s->yshift;
		zi = acc_q >> s->yshift;
		/* the slots in (previous sample, this sample], interpolated */
		while (s->slot_at <= 3) {
			int32_t f = (int32_t)s->slot_at;

			slot(s, s->z_re + (zr - s->z_re) * f / 3, s->z_im + (zi - s->z_im) * f / 3);
			if (++s->slot_phase >= SMDSP_V34I_K)
				s->slot_phase = 0;
			s->slot_at += SMDSP_V34I_SLOT;
		}
		s->slot_at -= 3;
		s->z_re = zr;
		s->z_im = zi;
	}
}
