// SPDX-License-Identifier: GPL-2.0
/*
 * V.32bis (and V.32): the duplex modem's start-up and data, around one
 * transmitter (v32bis_tx.c) and one receiver (v32bis_rx.c).
 *
 * The start-up follows V.32's sequence (V.32bis's state diagram); the
 * answer tone before it is its user's (the engine's). The answerer sends AC; the caller,
 * hearing AC for 30 ms, sends AA; the answerer, hearing AA for 30 ms,
 * reverses to CA and starts a count; the caller, hearing that reversal,
 * reverses to CC 64 symbols later and starts its own; the answerer, hearing
 * CC's reversal, reverses to AC: its count less the caller's 64 symbols
 * is the round trip; the caller, hearing that last reversal, falls silent:
 * its count is the round trip too. Both round trips are what the echo
 * canceller's far echo needs. Tones and reversals are found on 5 ms blocks
 * (40 samples: whole periods of 600 and 1800 Hz, so that each tone's sum
 * leaves the other out): a tone holds most of a block's power, a reversal
 * turns a tone's phase by more than 90 degrees between a block and the one
 * two before it; the detector's delay (TD_LAT, 22 ms) comes off
 * each count.
 *
 * The answerer, once the caller is silent, sends its first training: S,
 * S-bar, TRN and R1 (the rates it offers) until it hears the caller's S.
 * The caller, trained on it and with R1 heard, sends its training and R2:
 * the rates of R1 it offers too that the SNR it measured on TRN allows
 * (smdsp_v32bis_snr_rates()). The answerer, silent meanwhile, hearing R2
 * sends its second training and R3: the one rate of R2 it offers and its own SNR allows,
 * the fastest. The caller, hearing R3, sends E and B1 at that rate, then
 * the data; the answerer, hearing E, the same. Each receiver is reset
 * before the training it is to follow. Data both ways: status TRAINED.
 * No data within SMDSP_V32BIS_STARTUP_MS: TRAINING_FAILED, silence.
 *
 * Retrain (smdsp_v32bis_retrain(), or by itself when the receiver's SNR
 * stays under what the rate needs for a second): the start-up again
 * from the initiator's tone (the caller's AA, the answerer's AC), which
 * the other end, hearing it for 30 ms in the data, answers; the rates are
 * chosen again, so a worse line gets a lower one (status RETRAIN, then
 * TRAINED).
 *
 * The echo canceller (dsp/echo.c, near 128 + far 256 taps, unless the
 * configuration says four_wire): over a 2-wire line each receiver hears its
 * own signal back, through the local hybrid (the near echo) and from the
 * far hybrid a round trip later, shifted in frequency (the far echo). The
 * canceller's line is what this end sent, delayed by the I/O loop's
 * latency (echo_latency, or the first call's length: what was sent in one
 * call comes back in the next at the earliest). It trains (TRAIN) only in
 * the windows V.32's start-up leaves each end with the far end silent:
 * - the answerer's: its first training. The caller is silent from the end
 *   of the tones until it has heard R1 and its S has come back, so the
 *   window runs from TRN (its echo coming back) to R1's start plus the
 *   loop;
 * - the caller's: its training. The answerer sends R1 until it has seen
 *   the caller's S through to S-bar, then is silent until it has R2 twice;
 *   the window runs from then, as it comes back, to R2's start plus the
 *   loop.
 * Those trainings send TRN for 3072 symbols (V.32 allows up to 8192) to
 * give it the time. The far window sits at the round trip the tones
 * measured (less 96 samples, 256 taps); the whitening is learnt on TRN,
 * not the tones; the step and the far phase loop narrow as the window
 * goes. Outside its windows the canceller follows slowly (TRACK) while
 * this end sends, and is frozen while it is silent (the far echo's phase
 * rolls on at the frequency learnt). While it trains the receiver, which
 * would take this end's own S for the far end's, starts afresh at the
 * window's end; after the tones it starts after CC's far echo. Before any
 * training the tones are told apart by frequency: each end's tone
 * detector leaves its own tones' bins out of the power the far end's tone
 * must dominate (the caller sends 1800 Hz, the answerer 600 and 3000 Hz).
 * A retrain keeps the taps (frozen through the tones) and trains again in
 * the new windows; one for a low SNR also takes the rate that failed off
 * for the rest of the call, since TRN's SNR, measured with this end
 * silent, would choose it again.
 */
#include <smdsp/private/v32bis.h>

#define T_SAMPLES(n) ((n) * 10 / 3)	/* symbols to samples */
/*
 * A reversal's delay from the symbol that turns to its detection: the
 * transmit pulse and the detector's blocks; measured on our pair over the
 * test line with no delay (test_v32bis_call), so that the round trip counts
 * the line's only.
 */
#define TD_LAT 177
#define TD_BLOCK 160	/* that line's blocks: its loop latency, one each way, is in TD_LAT */
#define TONE_BLOCKS 6			/* 30 ms of a tone before it counts */
#define TRN_LEN 1280
#define TRN_LEN_EC 3072		/* the trainings in which this end's canceller trains */
/*
 * The canceller's steps in its window (Q16): its near and far FIRs each take
 * the step on the one residual, so 1 each (the canceller's own first gear)
 * is twice the stable step in total: measured, no convergence at all on
 * TRN. 1/2 each converges, but where the caller's window opens on a far
 * echo as loud as the near one (6 dB down, 300 ms, 7 Hz) the far taps
 * chase the echo's rotation faster than the phase loop can learn it, and
 * the loop runs off to 19 Hz; 1/4 lets the loop lead. Then smaller, so
 * that the line noise the taps caught fades before the data.
 */
#define EC_MU1 16384
#define EC_MU2 8192
#define EC_MU3 2048
/*
 * and the far echo's phase loop narrows (natural frequency, mHz): the
 * frequency it ends with turns the far echo's phase for seconds before the
 * data's slow loop takes over (0.03 Hz wrong: 20 degrees in 2 s)
 */
#define EC_PLL2 2000
#define EC_PLL3 500
/*
 * In the data: the far modem's signal is noise to the far echo's phase
 * detector, most where the far echo is weak (a far window holding only the
 * tail of a near echo let the frequency wander 1 Hz in 10 s at TRACK's
 * 0.2 Hz): a loop that keeps what TRAIN found, as FDM offsets are steady.
 */
#define EC_PLL_TRACK SMDSP_ECHO_TRACK_PLL_MHZ
#define DATA_MARGIN_10 0		/* the SNR (tenths of dB) the data may lose before a retrain */

enum {
	ANS_AC, ANS_CA, ANS_AC2, ANS_R1, ANS_R2, ANS_R3, ANS_E,
	CAL_WAIT_AC, CAL_AA, CAL_CC, CAL_TRAIN1, CAL_R2, CAL_E,
	ST_DATA, ST_FAILED,
};

unsigned int smdsp_v32bis_snr_rates(int snr_10)
{
	/* the receiver's estimate on TRN where each rate's BER is about 1e-6 (doc/v32bis.md) */
	static const int need[5] = { 140, 170, 200, 235, 265 };
	unsigned int k, r = 0;

	for (k = 0; k < 5; k++)
		if (snr_10 >= need[k])
			r |= 1u << k;
	return r | SMDSP_V32BIS_4800;
}

static int get_bit(void *user)
{
	struct smdsp_v32bis *s = user;

	return s->cfg.get_bit ? s->cfg.get_bit(s->cfg.user) : 1;
}

static void put_bit(void *user, int bit)
{
	struct smdsp_v32bis *s = user;

	if (s->cfg.put_bit)
		s->cfg.put_bit(s->cfg.user, bit);
}

static void status(struct smdsp_v32bis *s, enum smdsp_status st)
{
	if (s->cfg.status_fn)
		s->cfg.status_fn(s->cfg.user, st);
}

static void rx_status(void *user, enum smdsp_status st)
{
	struct smdsp_v32bis *s = user;

	if (st == SMDSP_STATUS_TRAINED)
		s->rx_trained = true;
	else if (st == SMDSP_STATUS_TRAINING_FAILED || st == SMDSP_STATUS_CARRIER_DOWN)
		s->rx_trained = false;
}

static void td_init(struct smdsp_v32bis_tonedet *d, bool caller)
{
	unsigned int i;

	memset(d, 0, sizeof(*d));
	d->caller = caller;
	for (i = 0; i < SMDSP_V32BIS_BLK; i++) {
		/* 1800 Hz: 9 periods in 40 samples, 600 Hz: 3 */
		uint32_t p9 = (uint32_t)smdsp_div_u64((uint64_t)i * 9 << 32, SMDSP_V32BIS_BLK);
		uint32_t p3 = (uint32_t)smdsp_div_u64((uint64_t)i * 3 << 32, SMDSP_V32BIS_BLK);
		uint32_t p15 = (uint32_t)smdsp_div_u64((uint64_t)i * 15 << 32, SMDSP_V32BIS_BLK);

		d->c1800[i] = smdsp_cos(p9);
		d->s1800[i] = smdsp_sin(p9);
		d->c600[i] = smdsp_cos(p3);
		d->s600[i] = smdsp_sin(p3);
		d->c3000[i] = smdsp_cos(p15);
		d->s3000[i] = smdsp_sin(p15);
	}
}

/* |z|^2 of a block's sum: a tone of amplitude A gives (20 A)^2, its energy in the block 2 |z|^2 / 40 */
static uint64_t mag2(int64_t re, int64_t im)
{
	int32_t r = (int32_t)(re >> 15), i = (int32_t)(im >> 15);

	return (uint64_t)((int64_t)r * r) + (uint64_t)((int64_t)i * i);
}

/* a block's sum z holds the tone at |z|^2 within 9 dB of lvl */
static bool held(const int32_t z[2], uint64_t lvl)
{
	return (uint64_t)((int64_t)z[0] * z[0]) + (uint64_t)((int64_t)z[1] * z[1]) > lvl / 8;
}

/*
 * A block's end: which tones it holds, and their reversals. Over a 2-wire
 * line each end hears its own tones back, before any echo canceller has
 * trained, often louder than the far end's: the power a tone must dominate
 * leaves out this end's own (1800 Hz for the caller; 600 and 3000 Hz, AC's
 * two, for the answerer: the bins are orthogonal over the block), and only
 * the far end's tone counts.
 */
static void td_block(struct smdsp_v32bis_tonedet *d)
{
	int32_t z[2][2] = {
		{ (int32_t)(d->a_re >> 15), (int32_t)(d->a_im >> 15) },
		{ (int32_t)(d->b_re >> 15), (int32_t)(d->b_im >> 15) },
	};
	/* a tone whose sum is |z|^2 = 400 A^2 has 20 A^2 of power: 1800 Hz alone, or 600 as in AC */
	static const unsigned int ratio[2] = { 12, 6 };
	uint64_t own = d->caller ? mag2(d->a_re, d->a_im) :
		       mag2(d->b_re, d->b_im) + mag2(d->c_re, d->c_im);
	uint64_t pow = d->pow > own / 20 ? d->pow - own / 20 : 0;
	bool floor_ok = pow > (uint64_t)SMDSP_V32BIS_BLK * smdsp_dbm0_to_power(-480);
	unsigned int t, k, far = d->caller ? 1 : 0;

	for (t = 0; t < 2; t++) {
		uint64_t m = (uint64_t)((int64_t)z[t][0] * z[t][0]) + (uint64_t)((int64_t)z[t][1] * z[t][1]);
		bool on = t == far && floor_ok && m > ratio[t] * pow;
		int64_t dot;

		for (k = 2; k > 0; k--) {
			d->z[t][k][0] = d->z[t][k - 1][0];
			d->z[t][k][1] = d->z[t][k - 1][1];
			d->on[t][k] = d->on[t][k - 1];
		}
		d->z[t][0][0] = z[t][0];
		d->z[t][0][1] = z[t][1];
		d->on[t][0] = on;
		d->run[t] = on ? d->run[t] + 1 : 0;
		if (on)
			d->lvl[t] = m;
		dot = (int64_t)z[t][0] * d->z[t][2][0] + (int64_t)z[t][1] * d->z[t][2][1];
		/*
		 * against two blocks before: the one between may hold the turn;
		 * then not again. A block need not hold the tone alone if it
		 * holds it as strongly as before (within 9 dB): our own echo's
		 * reversal, a few blocks from the far end's answer to it, spreads
		 * over every bin for a block or two and would hide that answer.
		 */
		if (d->hold[t])
			d->hold[t]--;
		else if ((on || (d->on[t][1] && m > d->lvl[t] / 8)) &&
			 (d->on[t][2] || (d->on[t][1] && held(d->z[t][2], d->lvl[t]))) && dot < 0) {
			d->rev[t]++;
			d->hold[t] = 2;
		}
	}
	d->off = d->on[far][0] ? 0 : d->off + 1;
	d->a_re = 0;
	d->a_im = 0;
	d->b_re = 0;
	d->b_im = 0;
	d->c_re = 0;
	d->c_im = 0;
	d->pow = 0;
}

static void td_process(struct smdsp_v32bis_tonedet *d, const int16_t *x, unsigned int n)
{
	unsigned int k;

	for (k = 0; k < n; k++) {
		int32_t v = x[k];

		d->a_re += v * d->c1800[d->i];
		d->a_im -= v * d->s1800[d->i];
		d->b_re += v * d->c600[d->i];
		d->b_im -= v * d->s600[d->i];
		d->c_re += v * d->c3000[d->i];
		d->c_im -= v * d->s3000[d->i];
		d->pow += (uint64_t)((int64_t)v * v);
		if (++d->i == SMDSP_V32BIS_BLK) {
			d->i = 0;
			td_block(d);
		}
	}
}

int smdsp_v32bis_init(struct smdsp_v32bis *s, const struct smdsp_v32bis_config *c)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *c;
	if (!(s->cfg.rates & SMDSP_V32BIS_ALL))
		s->cfg.rates = SMDSP_V32BIS_ALL;
	s->cfg.rates &= SMDSP_V32BIS_ALL;
	smdsp_v32bis_tx_init(&s->tx, c->caller, c->level_dbm0_10 ? c->level_dbm0_10 : -130, get_bit,
			     NULL, s);
	smdsp_v32bis_rx_init(&s->rx, c->caller, put_bit, rx_status, s);
	td_init(&s->td, c->caller);
	s->rtd = -1;
	s->cap = SMDSP_V32BIS_ALL;
	s->lat = c->echo_latency > 0 && c->echo_latency <= SMDSP_V32BIS_HIST - SMDSP_V32BIS_BLK ?
		 c->echo_latency : 0;
	if (!c->four_wire) {
		struct smdsp_echo_config ecc = { .near_taps = SMDSP_V32BIS_EC_NEAR,
						 .far_taps = SMDSP_V32BIS_EC_FAR,
						 .far_delay_max = SMDSP_V32BIS_EC_DELAY };

		if (smdsp_echo_size(&ecc) <= sizeof(s->ecmem)) {
			s->ec = smdsp_echo_init(s->ecmem, &ecc);
			if (s->ec)
				smdsp_echo_set_adapt(s->ec, SMDSP_ECHO_FREEZE);
		}
	}
	if (c->caller) {
		s->state = CAL_WAIT_AC;
	} else {
		s->state = ANS_AC;
		smdsp_v32bis_tx_send(&s->tx, SMDSP_V32BIS_AC, 0, 0);
	}
	return 0;
}

struct smdsp_v32bis *smdsp_v32bis_create(const struct smdsp_v32bis_config *c)
{
	struct smdsp_v32bis *s = smdsp_alloc(sizeof(*s));

	if (s)
		smdsp_v32bis_init(s, c);
	return s;
}

void smdsp_v32bis_free(struct smdsp_v32bis *s)
{
	smdsp_free(s);
}

void smdsp_v32bis_reset(struct smdsp_v32bis *s)
{
	struct smdsp_v32bis_config c = s->cfg;

	/* init clears the canceller's memory too: it sets it up again */
	smdsp_v32bis_init(s, &c);
}

/*
 * The whole loop, from a change in what this end sends to the far end's
 * answer to it arriving: the round trip measured (the line's, TD_LAT
 * having taken off the calibration line's loop latency, TD_BLOCK each
 * way) and that loop latency back.
 */
static uint32_t loop_u(const struct smdsp_v32bis *s)
{
	int l = s->rtd + 2 * TD_BLOCK;

	return l > 0 ? (uint32_t)l : 0;
}

/*
 * The far echo's delay on the canceller's line (tx already lat behind):
 * the loop less this end's latency and the far end's (taken to be the
 * same), the line's round trip to the far hybrid, which sits at the far
 * modem's end of the line at the latest.
 */
static uint32_t far_lag(const struct smdsp_v32bis *s)
{
	uint32_t l = loop_u(s), two = 2 * (uint32_t)s->lat;

	return l > two ? l - two : 0;
}

/*
 * The echo canceller's training window, in this end's receive time: from
 * when the echo of TRN starts coming back (learn: the whitening from TRN's
 * spectrum, not the tones') or from when the far end has fallen silent,
 * whichever is later (on), until the far end may talk again (off). The
 * step steps down within it (EC_MU1 for the first 60 %, EC_MU2 to 5/6 of it,
 * then EC_MU3), so that what the training leaves of the line noise in
 * the taps is small by the data.
 */
static void ec_window(struct smdsp_v32bis *s, uint32_t learn, uint32_t on, uint32_t off)
{
	if (!s->ec)
		return;
	s->ec_learn = learn ? learn : 1;
	s->ec_on = on ? on : 1;
	s->ec_off = off > on ? off : on + 1;
	s->deaf_until = s->ec_off;
	s->ec_gear = 0;
	smdsp_echo_set_adapt(s->ec, SMDSP_ECHO_FREEZE);
}

static void ec_track(struct smdsp_v32bis *s)
{
	smdsp_echo_set_adapt(s->ec, SMDSP_ECHO_TRACK);
	smdsp_echo_set_loop(s->ec, EC_PLL_TRACK);
}

static void ec_stop(struct smdsp_v32bis *s, enum smdsp_echo_adapt mode)
{
	if (!s->ec)
		return;
	if (s->ec_gear && s->ec_gear < 4)
		s->erle_q8 = smdsp_echo_erle_db_q8(s->ec);
	s->ec_learn = 0;
	s->ec_on = 0;
	s->ec_off = 0;
	s->deaf_until = 0;
	s->ec_track_at = 0;
	s->ec_gear = 0;
	if (mode == SMDSP_ECHO_TRACK)
		ec_track(s);
	else
		smdsp_echo_set_adapt(s->ec, mode);
}

/* the window's milestones as they pass (called per block) */
static void ec_schedule(struct smdsp_v32bis *s)
{
	uint32_t w;

	if (!s->ec)
		return;
	if (s->ec_track_at && (int32_t)(s->now - s->ec_track_at) >= 0) {
		s->ec_track_at = 0;
		ec_track(s);
	}
	if (s->ec_learn && (int32_t)(s->now - s->ec_learn) >= 0) {
		s->ec_learn = 0;
		smdsp_echo_learn_spectrum(s->ec);
	}
	if (!s->ec_on || (int32_t)(s->now - s->ec_on) < 0)
		return;
	w = s->ec_off - s->ec_on;
	if (s->ec_gear == 0) {
		smdsp_echo_set_adapt(s->ec, SMDSP_ECHO_TRAIN);
		smdsp_echo_set_step(s->ec, EC_MU1);
		s->ec_gear = 1;
	}
	if (s->ec_gear == 1 && s->now - s->ec_on >= w - w * 2 / 5) {
		smdsp_echo_set_step(s->ec, EC_MU2);
		smdsp_echo_set_loop(s->ec, EC_PLL2);
		s->ec_gear = 2;
	}
	if (s->ec_gear == 2 && s->now - s->ec_on >= w - w / 6) {
		smdsp_echo_set_step(s->ec, EC_MU3);
		smdsp_echo_set_loop(s->ec, EC_PLL3);
		s->ec_gear = 3;
	}
	/*
	 * then the slow step and phase loop of the data: frozen, a far echo
	 * rolling at a frequency learnt 0.05 Hz wrong is 10 dB back within
	 * the seconds of the far end's training and the rate words
	 */
	if (s->now - s->ec_on >= w)
		ec_stop(s, SMDSP_ECHO_TRACK);
}

/* the far canceller's window from the round trip just measured */
static void ec_far(struct smdsp_v32bis *s)
{
	int d = (int)far_lag(s) - 96;

	if (!s->ec)
		return;
	if (d < 0)
		d = 0;
	if (d > SMDSP_V32BIS_EC_DELAY)
		d = SMDSP_V32BIS_EC_DELAY;
	smdsp_echo_set_far_delay(s->ec, d);
}

static unsigned int trn_len(const struct smdsp_v32bis *s)
{
	return s->ec ? TRN_LEN_EC : TRN_LEN;
}


/*
 * While the canceller trains, the receiver hears this end's own training
 * signals come back: it starts afresh at the window's end.
 */
static bool deaf(struct smdsp_v32bis *s)
{
	if (!s->ec || !s->deaf_until)
		return false;
	if ((int32_t)(s->now - s->deaf_until) < 0) {
		smdsp_v32bis_rx_reset(&s->rx);
		return true;
	}
	s->deaf_until = 0;
	return false;
}

/*
 * A training and a rate word after silence; TRN of trn symbols (V.32
 * allows 1280 to 8192: the longer one gives the echo canceller its time).
 */
static void training(struct smdsp_v32bis *s, uint16_t word, unsigned int trn)
{
	smdsp_v32bis_tx_send(&s->tx, SMDSP_V32BIS_SILENCE, 16, 0);
	smdsp_v32bis_tx_queue(&s->tx, SMDSP_V32BIS_S, 256, 0);
	smdsp_v32bis_tx_queue(&s->tx, SMDSP_V32BIS_SBAR, SMDSP_V32BIS_SBAR_LEN, 0);
	smdsp_v32bis_tx_queue(&s->tx, SMDSP_V32BIS_TRN, trn, 0);
	smdsp_v32bis_tx_queue(&s->tx, SMDSP_V32BIS_R, 0, word);
}

/* E, B1 and the data at the rate agreed. */
static void to_data(struct smdsp_v32bis *s)
{
	unsigned int bit = smdsp_v32bis_rate_bit(s->rate);

	smdsp_v32bis_tx_send(&s->tx, SMDSP_V32BIS_E, 8, smdsp_v32bis_rword(bit, true));
	smdsp_v32bis_tx_queue(&s->tx, SMDSP_V32BIS_B1, SMDSP_V32BIS_B1_LEN, s->rate);
	smdsp_v32bis_tx_queue(&s->tx, SMDSP_V32BIS_DATA, 0, 0);
}

/* The far end's rate word, once the receiver has it twice; 0 before. */
static unsigned int far_rates(struct smdsp_v32bis *s)
{
	bool e;
	int r;

	if (smdsp_v32bis_rx_state(&s->rx) < SMDSP_V32BIS_RX_R)
		return 0;
	r = smdsp_v32bis_rword_rates(smdsp_v32bis_rx_rword(&s->rx), &e);
	return r > 0 ? (unsigned int)r : 0;
}

static void fail(struct smdsp_v32bis *s)
{
	ec_stop(s, SMDSP_ECHO_FREEZE);
	s->state = ST_FAILED;
	smdsp_v32bis_tx_send(&s->tx, SMDSP_V32BIS_SILENCE, 0, 0);
	status(s, SMDSP_STATUS_TRAINING_FAILED);
}

/* What this end's SNR allows of the rates both offer. */
static unsigned int allowed(struct smdsp_v32bis *s, unsigned int far)
{
	s->far = far;
	s->snr_10 = smdsp_v32bis_rx_snr_10(&s->rx);
	return far & s->cfg.rates & s->cap & smdsp_v32bis_snr_rates(s->snr_10);
}

/*
 * A retrain, V.32's: the start-up again from its tones, the round trip
 * included; the rates are chosen again from the SNR each end measures.
 * The caller starts with AA, the answerer with AC; the far end, hearing
 * that tone for 30 ms in the data, joins in.
 */
static void retrain(struct smdsp_v32bis *s)
{
	struct smdsp_v32bis_tonedet *d = &s->td;

	smdsp_v32bis_rx_reset(&s->rx);
	/* the taps the data left cancel the tones too: they wait, frozen, for the next window */
	ec_stop(s, SMDSP_ECHO_FREEZE);
	s->rx_trained = false;
	s->rate = 0;
	s->start = s->now;
	s->retrains++;
	d->run[0] = 0;
	d->run[1] = 0;
	d->rev[0] = 0;
	d->rev[1] = 0;
	if (s->cfg.caller) {
		/* AA at once; its first reversal then comes from the answerer */
		smdsp_v32bis_tx_send(&s->tx, SMDSP_V32BIS_AA, 0, 0);
		s->state = CAL_AA;
	} else {
		smdsp_v32bis_tx_send(&s->tx, SMDSP_V32BIS_AC, 0, 0);
		s->state = ANS_AC;
	}
	status(s, SMDSP_STATUS_RETRAIN);
}

void smdsp_v32bis_retrain(struct smdsp_v32bis *s)
{
	if (s->state == ST_DATA)
		retrain(s);
}

/* In the data: the far end's retrain tone, or an SNR too low for the rate. */
static void data_watch(struct smdsp_v32bis *s)
{
	struct smdsp_v32bis_tonedet *d = &s->td;
	unsigned int allowed_now;

	if (d->run[s->cfg.caller ? 1 : 0] >= TONE_BLOCKS) {
		retrain(s);
		return;
	}
	/*
	 * the receiver's SNR, over the last 32 symbols, under what the rate
	 * needs for 1 s: no margin, as the nearest point's error reads the
	 * noise low when the points are dense (at 14400 and an SNR of 21 dB,
	 * 24.4 and 25.8 dB where TRN reads 23)
	 */
	allowed_now = smdsp_v32bis_snr_rates(smdsp_v32bis_rx_snr_10(&s->rx) + DATA_MARGIN_10);
	if (s->no_auto || (allowed_now & smdsp_v32bis_rate_bit(s->rate))) {
		s->low = 0;
	} else if (++s->low * SMDSP_V32BIS_BLK >= 8000) {
		/*
		 * TRN's SNR was measured with this end silent: on a 2-wire line
		 * the data add the canceller's residual, and the same TRN would
		 * choose the same rate again. Not above this one for the call.
		 */
		s->cap = (smdsp_v32bis_rate_bit(s->rate) - 1) | SMDSP_V32BIS_4800;
		s->low = 0;
		retrain(s);
	}
}

static void step(struct smdsp_v32bis *s)
{
	struct smdsp_v32bis_tonedet *d = &s->td;
	unsigned int r;

	switch (s->state) {
	case ANS_AC:
		if (d->run[0] >= TONE_BLOCKS) {
			smdsp_v32bis_tx_send(&s->tx, SMDSP_V32BIS_CA, 0, 0);
			s->t0 = s->now;
			d->rev[0] = 0;
			s->state = ANS_CA;
			status(s, SMDSP_STATUS_TRAINING);
		}
		break;
	case ANS_CA:
		if (d->rev[0]) {
			s->rtd = (int)(s->now - s->t0) - T_SAMPLES(64) - 2 * TD_LAT;
			ec_far(s);
			smdsp_v32bis_tx_send(&s->tx, SMDSP_V32BIS_AC, 0, 0);
			s->state = ANS_AC2;
		}
		break;
	case ANS_AC2:
		/* the caller silent: the first training */
		if (d->off >= 2) {
			uint32_t trn = s->now + s->lat + T_SAMPLES(288);

			training(s, smdsp_v32bis_rword(s->cfg.rates, false), trn_len(s));
			/*
			 * the caller is silent until it has R1 twice and its S has
			 * come back: its echo's window from TRN on
			 */
			ec_window(s, trn, trn, trn + T_SAMPLES(trn_len(s)) + loop_u(s) - s->lat);
			smdsp_v32bis_rx_reset(&s->rx);
			s->state = ANS_R1;
		}
		break;
	case ANS_R1:
		/*
		 * the caller's S: silence until its R2; on a 2-wire line the
		 * receiver would take our own S's echo for it, so it listens from
		 * the end of the canceller's window (the caller has R1 by then)
		 */
		if (deaf(s))
			break;
		if (smdsp_v32bis_rx_state(&s->rx) >= SMDSP_V32BIS_RX_SBAR) {
			/*
			 * frozen while silent: the far echo's phase loop, given no
			 * echo to follow, would let its frequency leak away
			 */
			ec_stop(s, SMDSP_ECHO_FREEZE);
			smdsp_v32bis_tx_send(&s->tx, SMDSP_V32BIS_SILENCE, 0, 0);
			s->state = ANS_R2;
		}
		break;
	case ANS_R2:
		r = far_rates(s);
		if (r) {
			r = allowed(s, r);
			if (!r) {
				fail(s);
				break;
			}
			s->rate = smdsp_v32bis_best(r);
			training(s, smdsp_v32bis_rword(smdsp_v32bis_rate_bit(s->rate), false), TRN_LEN);
			/*
			 * tracking once the far echo of this training is back: before
			 * that the far canceller has nothing to follow and its phase
			 * loop would let the frequency it learnt leak away
			 */
			if (s->ec)
				s->ec_track_at = s->now + far_lag(s) + s->lat + SMDSP_V32BIS_EC_FAR;
			s->state = ANS_R3;
		}
		break;
	case ANS_R3:
		if (smdsp_v32bis_rx_state(&s->rx) >= SMDSP_V32BIS_RX_B1) {
			if (smdsp_v32bis_rx_rate(&s->rx) != s->rate) {
				fail(s);
				break;
			}
			to_data(s);
			s->state = ANS_E;
		}
		break;
	case CAL_WAIT_AC:
		if (d->run[1] >= TONE_BLOCKS) {
			smdsp_v32bis_tx_send(&s->tx, SMDSP_V32BIS_AA, 0, 0);
			d->rev[1] = 0;
			s->state = CAL_AA;
			status(s, SMDSP_STATUS_TRAINING);
		}
		break;
	case CAL_AA:
		if (d->rev[1]) {
			/* CC 64 symbols after the reversal heard */
			smdsp_v32bis_tx_send(&s->tx, SMDSP_V32BIS_AA, 64, 0);
			smdsp_v32bis_tx_queue(&s->tx, SMDSP_V32BIS_CC, 0, 0);
			s->t0 = s->now + T_SAMPLES(64);
			d->rev[1] = 0;
			s->state = CAL_CC;
		}
		break;
	case CAL_CC:
		if (d->rev[1]) {
			s->rtd = (int)(s->now - s->t0) - 2 * TD_LAT;
			ec_far(s);
			smdsp_v32bis_tx_send(&s->tx, SMDSP_V32BIS_SILENCE, 0, 0);
			smdsp_v32bis_rx_reset(&s->rx);
			/*
			 * CC's far echo comes back for a round trip yet, a tone the
			 * untrained canceller leaves: the receiver starts after it
			 * (the answerer's S comes a round trip and 17 ms after our
			 * silence)
			 */
			if (s->ec)
				s->deaf_until = s->now + far_lag(s) + s->lat + 64;
			s->state = CAL_TRAIN1;
		}
		break;
	case CAL_TRAIN1:
		/*
		 * the answerer's AC ends a few symbols before its S: a
		 * receiver fresh at its end (the carrier detector would not
		 * see the gap)
		 */
		if (deaf(s))
			break;
		if (smdsp_v32bis_rx_state(&s->rx) == SMDSP_V32BIS_RX_IDLE && d->on[1][1] && !d->on[1][0])
			smdsp_v32bis_rx_reset(&s->rx);
		r = far_rates(s);
		if (r) {
			r = allowed(s, r);
			if (!r) {
				fail(s);
				break;
			}
			training(s, smdsp_v32bis_rword(r, false), trn_len(s));
			/*
			 * the answerer sends R1 until it has seen our S through to
			 * S-bar, and its second training once it has R2 twice: the
			 * window between, as they come back (its S-bar detection
			 * and reaction: up to 160 symbols after S-bar began, measured
			 * up to 100 or so)
			 */
			ec_window(s, s->now + s->lat + T_SAMPLES(288),
				  s->now + T_SAMPLES(288 + 160) + loop_u(s),
				  s->now + T_SAMPLES(288 + trn_len(s)) + loop_u(s));
			/* the answerer's second training next */
			smdsp_v32bis_rx_reset(&s->rx);
			s->state = CAL_R2;
		}
		break;
	case CAL_R2:
		/* as the answerer in ANS_R1: our own training's echo is not the answerer's */
		if (deaf(s))
			break;
		r = far_rates(s);
		if (r) {
			s->rate = smdsp_v32bis_best(r);
			to_data(s);
			s->state = CAL_E;
		}
		break;
	case ANS_E:
	case CAL_E:
		if (s->rx_trained && smdsp_v32bis_rx_trained(&s->rx)) {
			ec_stop(s, SMDSP_ECHO_TRACK);
			s->state = ST_DATA;
			s->low = 0;
			status(s, SMDSP_STATUS_TRAINED);
		}
		break;
	case ST_DATA:
		data_watch(s);
		break;
	default:
		break;
	}
	if (s->state != ST_DATA && s->state != ST_FAILED &&
	    s->now - s->start > (uint32_t)SMDSP_V32BIS_STARTUP_MS * 8)
		fail(s);
}

/* rx less the echo of what went out lat samples and more before */
static const int16_t *cancel(struct smdsp_v32bis *s, const int16_t *rx, int16_t *out, unsigned int m)
{
	unsigned int i;

	if (!s->ec)
		return rx;
	for (i = 0; i < m; i++) {
		uint32_t j = s->now + i - (uint32_t)s->lat;
		/* a call longer than the latency: what is not sent yet is not echoed yet */
		int16_t x = (int32_t)(j - s->sent) < 0 ? s->hist[j & (SMDSP_V32BIS_HIST - 1)] : 0;

		out[i] = smdsp_echo_process(s->ec, x, rx[i]);
	}
	return out;
}

void smdsp_v32bis_process(struct smdsp_v32bis *s, const int16_t *rx, int16_t *tx, unsigned int n)
{
	int16_t clean[SMDSP_V32BIS_BLK];
	unsigned int k, m, i;

	if (!s->lat && n)
		s->lat = n < SMDSP_V32BIS_HIST - SMDSP_V32BIS_BLK ? (int)n : SMDSP_V32BIS_HIST - SMDSP_V32BIS_BLK;
	/* in pieces of at most a block, so that the start-up reacts within 5 ms */
	for (k = 0; k < n; k += m) {
		const int16_t *in;

		m = n - k < SMDSP_V32BIS_BLK ? n - k : SMDSP_V32BIS_BLK;
		in = cancel(s, rx + k, clean, m);
		/* in the data too: the far end's retrain */
		if (s->state != ST_FAILED)
			td_process(&s->td, in, m);
		smdsp_v32bis_rx_process(&s->rx, in, m);
		s->now += m;
		ec_schedule(s);
		step(s);
		smdsp_v32bis_tx_process(&s->tx, tx + k, m);
		for (i = 0; i < m; i++)
			s->hist[(s->sent + i) & (SMDSP_V32BIS_HIST - 1)] = tx[k + i];
		s->sent += m;
	}
}

enum smdsp_v32bis_phase smdsp_v32bis_phase(const struct smdsp_v32bis *s)
{
	switch (s->state) {
	case ANS_AC:
	case ANS_CA:
	case ANS_AC2:
	case CAL_WAIT_AC:
	case CAL_AA:
	case CAL_CC:
		return SMDSP_V32BIS_PH_TONES;
	case ST_DATA:
		return SMDSP_V32BIS_PH_DATA;
	case ST_FAILED:
		return SMDSP_V32BIS_PH_FAILED;
	default:
		return SMDSP_V32BIS_PH_TRAIN;
	}
}

unsigned int smdsp_v32bis_rate(const struct smdsp_v32bis *s)
{
	return s->rate;
}

int smdsp_v32bis_rtd(const struct smdsp_v32bis *s)
{
	return s->rtd;
}

unsigned int smdsp_v32bis_far_rates(const struct smdsp_v32bis *s)
{
	return s->far;
}

int smdsp_v32bis_trn_snr_10(const struct smdsp_v32bis *s)
{
	return s->snr_10;
}

void smdsp_v32bis_set_auto_retrain(struct smdsp_v32bis *s, bool on)
{
	s->no_auto = !on;
}

unsigned int smdsp_v32bis_retrains(const struct smdsp_v32bis *s)
{
	return s->retrains;
}

int smdsp_v32bis_echo_erle_db_q8(const struct smdsp_v32bis *s)
{
	return s->erle_q8;
}

int smdsp_v32bis_echo_print(const struct smdsp_v32bis *s, char *buf, size_t len)
{
	if (!s->ec)
		return snprintf(buf, len, "v32bis echo: none (4-wire)");
	return smdsp_echo_print(s->ec, buf, len);
}

int smdsp_v32bis_print(const struct smdsp_v32bis *s, char *buf, size_t len)
{
	return snprintf(buf, len, "v32bis %s state=%u rate=%u rtd=%d far=0x%x snr=%d rx_snr=%d retrains=%u now=%u lat=%d erle=%d",
			s->cfg.caller ? "caller" : "answerer", s->state, s->rate, s->rtd, s->far,
			s->snr_10, smdsp_v32bis_rx_snr_10(&s->rx), s->retrains, s->now, s->lat,
			s->erle_q8 / 256);
}
