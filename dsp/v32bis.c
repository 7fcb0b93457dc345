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
 * the data; the answerer, hearing E, the same. A word with B8 = 0 (a V.32
 * modem without the trellis code, or this end configured so:
 * SMDSP_V32BIS_UNCODED) leaves 4800 and 9600 for the call, 9600 on V.32's
 * 16 points uncoded (smdsp_v32bis_common()), which needs a better SNR than
 * its coded form; a renegotiation keeps to them. Each receiver is reset
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
 * Rate renegotiation (V.32bis's, in the data, without a training): the end
 * that asks sends S, S-bar and R4 (the rates it asks for); the other, having
 * found S in its data, S until it has R4, S-bar and R5 (R4 and what it
 * allows); the first, with R5, E at the fastest rate of both, B1 and the
 * data; the other, hearing E, the same. No rate in common: the cleardown
 * (a rate sequence naming none) and FAILED; no answer within
 * SMDSP_V32BIS_RENEG_MS: a retrain. An end asks by itself for less when
 * its data's SNR stays under the rate's need for a second or its
 * receiver's raw errors come in bursts (the canceller's residual of a loud
 * shifted far echo, which TRN's SNR, measured with this end silent, never
 * saw), and for more when the SNR allows it for a few seconds. The
 * receiver ends the data where S began, nothing of S delivered
 * (v32bis_rx.c); the canceller is frozen through this end's S and S-bar.
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
#define DATA_MARGIN_10 0		/* the SNR (tenths of dB) the data may lose before a retrain */
/*
 * uncoded 9600's need on the same scale: 16 points without the code's
 * gain (test_v32bis_ber: BER 1e-4 at 3 dB more SNR than the coded 9600)
 */
#define NEED_9600U 230

enum {
	ANS_AC, ANS_CA, ANS_AC2, ANS_R1, ANS_R2, ANS_R3, ANS_E,
	CAL_WAIT_AC, CAL_AA, CAL_CC, CAL_TRAIN1, CAL_R2, CAL_E,
	ST_DATA, ST_FAILED,
	RN_R4, RN_S, RN_R5, RN_E, RN_CLEAR,
};

/*
 * Renegotiation: a second of data too poor for the rate goes down, and so
 * do two bursts of raw errors (raw_watch()); UP_S seconds with the SNR a
 * higher rate needs and UP_MARGIN_10 more go up, not within UP_HOLD_S of
 * going down for the bursts (the line that caused them may come back).
 */
#define UP_S 3
#define UP_MARGIN_10 20
#define UP_HOLD_S 20
#define RAW_BURST 8
#define BURST_S 5

unsigned int smdsp_v32bis_snr_rates(int snr_10, bool uncoded)
{
	/* the receiver's estimate on TRN where each rate's BER is about 1e-6 (doc/v32bis.md) */
	static const int need[5] = { 140, 170, 200, 235, 265 };
	unsigned int k, r = 0;

	for (k = 0; k < 5; k++)
		if (snr_10 >= need[k])
			r |= 1u << k;
	if (uncoded && snr_10 < NEED_9600U)
		r &= ~SMDSP_V32BIS_9600;
	return r | SMDSP_V32BIS_4800;
}

/* the UNCODED flag of a call without the trellis code */
static unsigned int coding(const struct smdsp_v32bis *s)
{
	return s->notcm ? SMDSP_V32BIS_UNCODED : 0;
}

/* this end's rates in this call: without the code only 4800 and 9600 */
static unsigned int own_rates(const struct smdsp_v32bis *s)
{
	return s->cfg.rates & (s->notcm ? SMDSP_V32BIS_4800 | SMDSP_V32BIS_9600 : SMDSP_V32BIS_ALL);
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
 * The block a turn of tone t is measured against: two blocks back, the one
 * between possibly holding the turn, if it held the tone (or the block
 * between holds it and that one still did, within 9 dB); else the last
 * block that held it up to SMDSP_V32BIS_TD_HIST - 1 back, none since. The
 * far end's answer to our CC reaches the caller a few blocks after our own
 * echo's turn, and over a loud echo (the far end's AC 10 dB down, the echo
 * 12) the far end's tone dominates with 2 dB to spare: the two blocks its
 * turn straddles (the pulse's tail) both fell under it, the turn was never
 * counted, and the start-up waited for ever. 0: no block to measure against.
 */
static unsigned int td_ref(const struct smdsp_v32bis_tonedet *d, unsigned int t)
{
	unsigned int k;

	if (d->on[t][2] || (d->on[t][1] && held(d->z[t][2], d->lvl[t])))
		return 2;
	if (d->on[t][1])
		return 0;
	for (k = 3; k < SMDSP_V32BIS_TD_HIST; k++)
		if (d->on[t][k])
			return k;
	return 0;
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
	unsigned int t, k, ref, far = d->caller ? 1 : 0;

	for (t = 0; t < 2; t++) {
		uint64_t m = (uint64_t)((int64_t)z[t][0] * z[t][0]) + (uint64_t)((int64_t)z[t][1] * z[t][1]);
		bool on = t == far && floor_ok && m > ratio[t] * pow;
		int64_t dot;

		for (k = SMDSP_V32BIS_TD_HIST - 1; k > 0; k--) {
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
		ref = td_ref(d, t);
		dot = (int64_t)z[t][0] * d->z[t][ref][0] + (int64_t)z[t][1] * d->z[t][ref][1];
		/*
		 * against the block td_ref() gives; then not again. A block need
		 * not hold the tone alone if it holds it as strongly as before
		 * (within 9 dB): our own echo's reversal, a few blocks from the
		 * far end's answer to it, spreads over every bin for a block or
		 * two and would hide that answer.
		 */
		if (d->hold[t])
			d->hold[t]--;
		else if ((on || (d->on[t][1] && m > d->lvl[t] / 8)) && ref && dot < 0) {
			d->rev[t]++;
			d->hold[t] = 2;
		}
	}
	d->off = d->on[far][0] ? 0 : d->off + 1;
	d->own = own;
	d->end = d->n;
	d->blocks++;
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
		d->n++;
		if (++d->i == SMDSP_V32BIS_BLK) {
			d->i = 0;
			td_block(d);
		}
	}
}

/*
 * The near echo where the loop's latency misses it. echo_latency is the
 * soonest this end's echo can be back; an audio path beyond the driver's
 * ring (a sound server's buffers, a virtual machine's) delays it further,
 * by an amount nobody on this side knows, and a near window that sits at
 * the latency given cancels nothing. So the start-up times it on this
 * end's first tone, which V.32 sends alone in its own bins: the caller's
 * AA (1800 Hz) while the far end's AC or CA is at 600 and 3000 Hz, the
 * answerer's AC while the caller is silent. The bins' power before the
 * echo could be back (the latency given) is the floor; the first of
 * NEAR_BLOCKS blocks in a row NEAR_RISE times above it (so that a far
 * end's reversal, spread over every bin for a block or two, is not taken
 * for it) is the echo.
 *
 * That block is where the tone's envelope rose, not where the echo's
 * response begins. On a quiet line it is the block in which the echo's
 * first taps arrive (up to a block, 40 samples, before its front); where
 * something else is in the bins before the echo (the echo of V.25's
 * answer tone, still coming back over the same path when the answerer's
 * AC goes out), the tone's envelope has to rise further: it comes back
 * the hybrid's group delay at its frequency after the response's front,
 * and the block is up to a block later again. G.168's hybrids (Annex D's
 * m1-m8) delay 1800 Hz by 6-34 samples, 600 and 3000 Hz by 5-74 (m4: 74 at
 * 600 Hz, 46 at 3000; its energy lies 11 to 94 samples into it). So the
 * near window (SMDSP_V32BIS_EC_NEAR, 256 taps) starts NEAR_BACK ahead of
 * the block and ends 135 after it: the front within it however late the
 * envelope, the tail however early the block. With 128 taps starting 64
 * ahead, m4 behind such a path lost its tail or its front (1-29 dB of
 * ERLE where the others had 35-46), and an echo found less than a window
 * past the latency given stayed half outside it. Found past where the
 * window is, the latency moves there.
 */
#define NEAR_BLOCKS 4
#define NEAR_RISE 16
#define NEAR_BACK 120

static void near_start(struct smdsp_v32bis *s)
{
	if (!s->ec || s->near_lat >= 0 || s->retrains)
		return;
	s->near_on = true;
	s->near_t0 = s->sent;
	s->near_floor = 0;
	s->near_run = 0;
	s->near_blocks = s->td.blocks;
}

static void near_watch(struct smdsp_v32bis *s)
{
	const struct smdsp_v32bis_tonedet *d = &s->td;
	/* the block's first sample, after the tone's first went out */
	uint32_t from = d->end - SMDSP_V32BIS_BLK - s->near_t0;
	/* a tone at -60 dBm0 in the bins: |z|^2 = (20 A)^2 */
	uint64_t a = (uint64_t)smdsp_dbm0_to_amp(-600);
	uint64_t least = 400 * a * a;

	s->near_blocks = d->blocks;
	/* after the tones the far end's training has 1800 Hz in it too */
	if (smdsp_v32bis_phase(s) != SMDSP_V32BIS_PH_TONES) {
		s->near_on = false;
		return;
	}
	if ((int32_t)from < 0)
		return;
	if (from + SMDSP_V32BIS_BLK <= (uint32_t)s->lat) {
		if (d->own > s->near_floor)
			s->near_floor = d->own;
		return;
	}
	if (d->own > NEAR_RISE * s->near_floor && d->own > least) {
		if (!s->near_run++)
			s->near_at = from;
		if (s->near_run < NEAR_BLOCKS)
			return;
		s->near_on = false;
		s->near_lat = (int)s->near_at;
		if (s->near_at > (uint32_t)s->lat + NEAR_BACK &&
		    s->near_at - NEAR_BACK <= SMDSP_V32BIS_MAX_LATENCY)
			s->lat = (int)(s->near_at - NEAR_BACK);
		return;
	}
	s->near_run = 0;
	if (from > SMDSP_V32BIS_MAX_LATENCY + SMDSP_V32BIS_EC_NEAR)
		s->near_on = false;
}

int smdsp_v32bis_init(struct smdsp_v32bis *s, const struct smdsp_v32bis_config *c)
{
	memset(s, 0, sizeof(*s));
	s->cfg = *c;
	if (!(s->cfg.rates & SMDSP_V32BIS_ALL))
		s->cfg.rates |= SMDSP_V32BIS_ALL;
	/* without the code: 4800 and 9600 (the flag only with 9600) */
	s->cfg.rates = smdsp_v32bis_common(s->cfg.rates, s->cfg.rates);
	smdsp_v32bis_tx_init(&s->tx, c->caller, c->level_dbm0_10 ? c->level_dbm0_10 : -130, get_bit,
			     NULL, s);
	smdsp_v32bis_rx_init(&s->rx, c->caller, put_bit, rx_status, s);
	td_init(&s->td, c->caller);
	s->rtd = -1;
	s->cap = SMDSP_V32BIS_ALL;
	s->lat = c->echo_latency > 0 ? c->echo_latency : 0;
	s->near_lat = -1;
	if (!c->four_wire && s->lat <= SMDSP_V32BIS_MAX_LATENCY) {
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
		near_start(s);
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
 * the loop less this end's latency and the far end's, the line's round
 * trip to the far hybrid, which sits at the far modem's end of the line at
 * the latest. The far end's is taken to be this end's own loop: where the
 * near echo was found (the latency moved NEAR_BACK ahead of it, a margin
 * for the near window that is not the far end's), else the latency. A
 * first guess: the training's search (far_seek_start()) finds the far
 * echo where the two ends' loops differ.
 */
static uint32_t far_lag(const struct smdsp_v32bis *s)
{
	uint32_t own = s->near_lat > s->lat ? (uint32_t)s->near_lat : (uint32_t)s->lat;
	uint32_t l = loop_u(s), two = (uint32_t)s->lat + own;

	return l > two ? l - two : 0;
}

/*
 * The echo canceller's training window, in this end's receive time: from
 * when the echo of TRN starts coming back (learn: the whitening from TRN's
 * spectrum, not the tones') or from when the far end has fallen silent,
 * whichever is later (on), until the far end may talk again (off). The
 * step steps down within it (<smdsp/echo.h>'s SMDSP_ECHO_MODEM_MU1 for the
 * first 60 %, MU2 to 5/6 of it, then MU3), so that what the training leaves
 * of the line noise in the taps is small by the data.
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
	s->far_sought = false;
	s->far_seek.on = false;
	smdsp_echo_set_adapt(s->ec, SMDSP_ECHO_FREEZE);
}

static void ec_track(struct smdsp_v32bis *s)
{
	smdsp_echo_set_adapt(s->ec, SMDSP_ECHO_TRACK);
	smdsp_echo_set_loop(s->ec, SMDSP_ECHO_TRACK_PLL_MHZ);
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
	s->far_seek.on = false;
	if (mode == SMDSP_ECHO_TRACK)
		ec_track(s);
	else
		smdsp_echo_set_adapt(s->ec, mode);
}

/* where the far window starts on the canceller's line (never inside the near one) */
static uint32_t far_window(const struct smdsp_v32bis *s)
{
	return s->far_delay > SMDSP_V32BIS_EC_NEAR ? (uint32_t)s->far_delay : SMDSP_V32BIS_EC_NEAR;
}

/*
 * The far echo where the round trip does not say. far_lag() takes the far
 * end's latency to be this end's: right between two ends behind the same
 * kind of loop, but an audio path at either end breaks it. One here (found
 * by near_watch(), the latency moved past it) delays both echoes and the
 * loop, and far_lag() takes it off twice; one at the far end lengthens the
 * loop and not the far echo, which comes back from the far hybrid on the
 * line's side of it; a far modem with a short loop (smline's, a block)
 * against ours behind a 2048-sample lead the same. So, as V.34's training
 * does (v34_train_rx.c), once the near taps have had FAR_SETTLE samples of
 * the window, what goes into the canceller (TRN, scrambled: no sidelobes)
 * is the template of an onset search (private/v34_onset.h) in its
 * residual, the far end silent, at every lag from the near window's end to
 * the loop less this end's latency (the far end's is not negative): the
 * near echo is gone from the residual, and a far echo the far window
 * already cancels mostly gone too. An echo found outside that window moves
 * it there (SMDSP_V34_ONSET_FAR_BACK ahead of the onset, its taps
 * cleared), and the step's gears start over in what is left of the window.
 */
#define FAR_SETTLE 256
#define FAR_TPL 512
#define FAR_PEAK 64
#define FAR_KEEP_DB 20
#define FAR_MOVE_RHO 614	/* 0.15 in Q12 */

static void far_seek_start(struct smdsp_v32bis *s)
{
	uint32_t to = loop_u(s) > (uint32_t)s->lat ? loop_u(s) - (uint32_t)s->lat + SMDSP_V32BIS_EC_FAR / 2 : 0;

	s->far_sought = true;
	if (to > SMDSP_V32BIS_EC_DELAY)
		to = SMDSP_V32BIS_EC_DELAY;
	if (to <= SMDSP_V32BIS_EC_NEAR)
		return;
	smdsp_v34_onset_far_start(&s->far_seek, FAR_TPL, SMDSP_V32BIS_EC_NEAR, to);
}

static void far_seek_end(struct smdsp_v32bis *s)
{
	int32_t at = s->far_seek.found;
	int32_t from = (int32_t)far_window(s);

	/*
	 * the onset walks back from the peak while the lags stay within 1/8 of
	 * it: over a residual still loud with what the near taps have not yet
	 * learnt, for hundreds of lags. A far hybrid's response peaks within
	 * FAR_PEAK of its front (G.168's: 6-35 samples).
	 */
	if (at >= 0 && (int32_t)s->far_seek.peak_at - at > FAR_PEAK)
		at = (int32_t)s->far_seek.peak_at - FAR_PEAK;

	if (at < SMDSP_V32BIS_EC_NEAR || !s->ec_on || s->ec_gear > 3)
		return;
	/* already there, its front inside: the far window's own taps are cancelling it */
	if (at >= from && at < from + SMDSP_V32BIS_EC_FAR / 2)
		return;
	/*
	 * Moved only for an echo the windows miss: one 10-15 dB down outside
	 * them leaves the canceller 2-9 dB and peaked at 0.18-0.69 (rho) at
	 * its lag on test_v32bis_path's lines. Where the canceller already
	 * takes FAR_KEEP_DB off, or the peak is under FAR_MOVE_RHO, it is more
	 * likely the search's false alarm (a loud far echo, 6 dB down at
	 * +7 Hz, gave one at 0.12, 700 samples ahead of it, the window already
	 * on it: test_v32bis_echo's control line).
	 */
	if (smdsp_echo_erle_db_q8(s->ec) >= FAR_KEEP_DB * 256 || s->far_seek.peak < FAR_MOVE_RHO)
		return;
	at -= SMDSP_V34_ONSET_FAR_BACK;
	s->far_delay = at > SMDSP_V32BIS_EC_DELAY ? SMDSP_V32BIS_EC_DELAY : at;
	smdsp_echo_set_far_delay(s->ec, s->far_delay);
	/* its taps start from nothing: the gears over again, in what is left of the window */
	if ((int32_t)(s->ec_off - s->now) > 0) {
		s->ec_on = s->now;
		s->ec_gear = 0;
	}
}

/* the search's samples: the canceller's line and its residual */
static smdsp_noinline void far_seek_push(struct smdsp_v32bis *s, int16_t x, int16_t out)
{
	smdsp_v34_onset_tpl(&s->far_seek, x);
	if (!smdsp_v34_onset_push(&s->far_seek, out))
		far_seek_end(s);
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
		smdsp_echo_set_step(s->ec, SMDSP_ECHO_MODEM_MU1);
		s->ec_gear = 1;
	}
	if (!s->far_sought && s->now - s->ec_on >= FAR_SETTLE)
		far_seek_start(s);
	if (s->ec_gear == 1 && s->now - s->ec_on >= w - w * 2 / 5) {
		smdsp_echo_set_step(s->ec, SMDSP_ECHO_MODEM_MU2);
		smdsp_echo_set_loop(s->ec, SMDSP_ECHO_MODEM_PLL2);
		s->ec_gear = 2;
	}
	if (s->ec_gear == 2 && s->now - s->ec_on >= w - w / 6) {
		smdsp_echo_set_step(s->ec, SMDSP_ECHO_MODEM_MU3);
		smdsp_echo_set_loop(s->ec, SMDSP_ECHO_MODEM_PLL3);
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
	s->far_delay = d;
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
 * The far end's next signal, for a fresh receiver: its carrier detector,
 * made for fax, misses the few symbols of silence between two of them.
 */
static void hear_next(struct smdsp_v32bis *s, unsigned int state)
{
	smdsp_v32bis_rx_reset(&s->rx);
	s->state = state;
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

	smdsp_v32bis_tx_send(&s->tx, SMDSP_V32BIS_E, 8, smdsp_v32bis_rword(bit | coding(s), true));
	smdsp_v32bis_tx_queue(&s->tx, SMDSP_V32BIS_B1, SMDSP_V32BIS_B1_LEN,
			      s->rate | (s->notcm ? SMDSP_V32BIS_B1_UNCODED : 0));
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

/* the raw error watch from now on (raw_watch()) */
static void rn_raw_reset(struct smdsp_v32bis *s)
{
	s->q_errs = s->rx.raw_errs;
	memset(s->q_w, 0, sizeof(s->q_w));
	s->q_last = 0;
	s->q_bad = 0;
}

static void fail(struct smdsp_v32bis *s)
{
	ec_stop(s, SMDSP_ECHO_FREEZE);
	s->state = ST_FAILED;
	smdsp_v32bis_tx_send(&s->tx, SMDSP_V32BIS_SILENCE, 0, 0);
	status(s, SMDSP_STATUS_TRAINING_FAILED);
}

/*
 * What this end's SNR allows of the rates both offer; the call is without
 * the trellis code if either end's word said so.
 */
static unsigned int allowed(struct smdsp_v32bis *s, unsigned int far)
{
	unsigned int r = smdsp_v32bis_common(far, s->cfg.rates);

	s->far = far;
	s->notcm = (far | s->cfg.rates) & SMDSP_V32BIS_UNCODED;
	s->snr_10 = smdsp_v32bis_rx_snr_10(&s->rx);
	r &= s->cap & smdsp_v32bis_snr_rates(s->snr_10, s->notcm);
	/* the flag stays only with 9600 */
	return smdsp_v32bis_common(r | coding(s), r);
}

/*
 * The far end's rate word limited to what this end allows: 0 until one is
 * heard; with no rate in common the start-up fails (0 too).
 */
static unsigned int far_allowed(struct smdsp_v32bis *s)
{
	unsigned int r = far_rates(s);

	if (!r)
		return 0;
	r = allowed(s, r);
	if (!r)
		fail(s);
	return r;
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
	s->good = 0;
	s->q_bad = 0;
	s->rn_frozen = false;
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

/* The rates a renegotiation may take from what this end receives now (a set). */
static unsigned int rn_allowed(struct smdsp_v32bis *s, bool asking)
{
	unsigned int cur = smdsp_v32bis_rate_bit(s->rate), r = (cur - 1) | SMDSP_V32BIS_4800;

	if (!s->low && !s->q_bad)
		r |= cur;
	/* the hold after going down is on asking for more, not on granting it */
	if (!s->q_bad && (!asking || !s->rn_up_after || (int32_t)(s->now - s->rn_up_after) >= 0))
		r |= smdsp_v32bis_snr_rates(smdsp_v32bis_rx_snr_10(&s->rx) - UP_MARGIN_10, s->notcm);
	return r & own_rates(s);
}

/* S, S-bar, then R (R4 or R5) until the answer: the loops and the canceller as in the data */
static void rn_send(struct smdsp_v32bis *s, unsigned int rates)
{
	s->rn_offer = rates;
	smdsp_v32bis_tx_queue(&s->tx, SMDSP_V32BIS_SBAR, SMDSP_V32BIS_SBAR_LEN, 0);
	smdsp_v32bis_tx_queue(&s->tx, SMDSP_V32BIS_R, 0, smdsp_v32bis_rword(rates | coding(s), false));
}

/*
 * The canceller through this end's S and S-bar: frozen. Three lines (600,
 * 1800, 3000 Hz) steer the taps nowhere else, and the far end's signal
 * meanwhile walks them off everywhere else: after one S tracking through
 * double talk the residual came back at 22 dB under the signal. It tracks
 * again from the rate words on.
 */
static void rn_echo(struct smdsp_v32bis *s)
{
	enum smdsp_v32bis_sig sig = smdsp_v32bis_tx_signal(&s->tx, NULL);
	bool narrow = sig == SMDSP_V32BIS_S || sig == SMDSP_V32BIS_SBAR;

	if (!s->ec || narrow == s->rn_frozen)
		return;
	s->rn_frozen = narrow;
	if (narrow)
		smdsp_echo_set_adapt(s->ec, SMDSP_ECHO_FREEZE);
	else
		ec_track(s);
}

static void rn_begin(struct smdsp_v32bis *s, unsigned int state)
{
	if (s->ec) {
		smdsp_echo_set_adapt(s->ec, SMDSP_ECHO_FREEZE);
		s->rn_frozen = true;
	}
	s->rn_from_far = state == RN_S;
	s->rn_was = s->rate;
	s->state = state;
	s->rn_start = s->now;
	s->rx_trained = false;
	s->low = 0;
	s->good = 0;
	s->q_bad = 0;
}

/* This end starts a renegotiation: S (256 symbols), S-bar, R4. */
static void rn_start(struct smdsp_v32bis *s, unsigned int rates)
{
	s->rn_asked++;
	smdsp_v32bis_tx_send(&s->tx, SMDSP_V32BIS_S, 256, 0);
	rn_send(s, rates);
	rn_begin(s, RN_R4);
}

/* No rate in common: the cleardown, a rate sequence naming none, then silence. */
static void rn_clear(struct smdsp_v32bis *s)
{
	s->cleared = true;
	smdsp_v32bis_tx_send(&s->tx, SMDSP_V32BIS_R, 64, smdsp_v32bis_rword(0, false));
	smdsp_v32bis_tx_queue(&s->tx, SMDSP_V32BIS_SILENCE, 0, 0);
	s->state = RN_CLEAR;
}

/* The rate word the far end's renegotiation sent (twice); false before it. */
static bool rn_word(struct smdsp_v32bis *s, unsigned int *rates)
{
	bool e;
	int r;

	if (smdsp_v32bis_rx_state(&s->rx) != SMDSP_V32BIS_RX_R || !smdsp_v32bis_rx_rword(&s->rx))
		return false;
	r = smdsp_v32bis_rword_rates(smdsp_v32bis_rx_rword(&s->rx), &e);
	*rates = r > 0 ? (unsigned int)r : 0;
	return true;
}

/* the data, after a training or a renegotiation: its watches start afresh */
static void enter_data(struct smdsp_v32bis *s)
{
	s->state = ST_DATA;
	s->low = 0;
	s->good = 0;
	s->q_bad = 0;
	rn_raw_reset(s);
	status(s, SMDSP_STATUS_TRAINED);
}

/* the renegotiated rate agreed: E, B1 and the data at it */
static void rn_to_data(struct smdsp_v32bis *s, unsigned int rate)
{
	s->rate = rate;
	to_data(s);
	s->state = RN_E;
}

/* The renegotiation's states, each block. */
static void rn_step(struct smdsp_v32bis *s)
{
	enum smdsp_v32bis_rx_state rs = smdsp_v32bis_rx_state(&s->rx);
	unsigned int r, rate;
	uint32_t sent;

	/*
	 * the far end's retrain tone, not its S and S-bar, whose 1800 Hz the
	 * answerer's detector hears too: only while the receiver follows
	 * nothing of a renegotiation (a retrain's tones end it there at its
	 * time limit)
	 */
	if (s->state != RN_CLEAR && s->td.run[s->cfg.caller ? 1 : 0] >= TONE_BLOCKS &&
	    (rs == SMDSP_V32BIS_RX_IDLE || rs == SMDSP_V32BIS_RX_DATA)) {
		retrain(s);
		return;
	}
	if (s->state != RN_CLEAR && s->now - s->rn_start > (uint32_t)SMDSP_V32BIS_RENEG_MS * 8 + loop_u(s)) {
		s->rn_fails++;
		retrain(s);
		return;
	}
	rn_echo(s);
	switch (s->state) {
	case RN_R4:
		/*
		 * the far end's R5, our R4 sent twice (when both asked at once,
		 * the far end's R4 may come before ours is out)
		 */
		if (smdsp_v32bis_tx_signal(&s->tx, &sent) != SMDSP_V32BIS_R || sent < 16 || !rn_word(s, &r))
			break;
		rate = smdsp_v32bis_best(r & s->rn_offer);
		if (!rate) {
			if (!r)
				s->cleared = true;
			if (r)
				rn_clear(s);
			else
				fail(s);
			break;
		}
		rn_to_data(s, rate);
		break;
	case RN_S:
		/* the far end's R4, our S long enough (256 symbols) */
		if (smdsp_v32bis_tx_signal(&s->tx, &sent) == SMDSP_V32BIS_S && sent < 256)
			break;
		if (!rn_word(s, &r))
			break;
		if (!r) {
			/* its cleardown: ours back */
			rn_clear(s);
			break;
		}
		r &= rn_allowed(s, false);
		if (!r) {
			rn_clear(s);
			break;
		}
		rn_send(s, r);
		s->state = RN_R5;
		break;
	case RN_R5:
		/* the far end's E: the rate it chose of our R5 */
		if (rs < SMDSP_V32BIS_RX_B1)
			break;
		rate = smdsp_v32bis_rx_rate(&s->rx);
		if (!(smdsp_v32bis_rate_bit(rate) & s->rn_offer)) {
			s->rn_fails++;
			retrain(s);
			break;
		}
		rn_to_data(s, rate);
		break;
	case RN_E:
		if (s->rx_trained && smdsp_v32bis_rx_trained(&s->rx)) {
			/*
			 * the far end asked for less: its line limits the rate, and
			 * it asks again when it improves
			 */
			if (s->rn_from_far && s->rate < s->rn_was)
				s->rn_up_after = s->now + UP_HOLD_S * 8000;
			s->renegs++;
			enter_data(s);
		}
		break;
	case RN_CLEAR:
		if (smdsp_v32bis_tx_signal(&s->tx, NULL) == SMDSP_V32BIS_SILENCE)
			fail(s);
		break;
	default:
		break;
	}
}

int smdsp_v32bis_renegotiate(struct smdsp_v32bis *s, unsigned int rates)
{
	if (s->state != ST_DATA)
		return -EBUSY;
	rates = (rates ? rates : rn_allowed(s, true)) & own_rates(s);
	if (!rates) {
		rn_clear(s);
		return 0;
	}
	rn_start(s, rates);
	/* what was asked for stands a while: not straight back up by itself */
	s->rn_up_after = s->now + UP_HOLD_S * 8000;
	return 0;
}

/*
 * The receiver's raw errors (its slicer against the code's decision): the
 * residual echo of a loud, shifted far echo comes and goes (its phase
 * against the canceller's loop), and an SNR averaged over the data reads
 * well above what those moments cost. RAW_BURST of them within 48 symbols
 * (the decoder's span, four blocks) is a burst the code barely survives
 * (measured: never on the suite's lines, 4 to 20 a call on the lines whose
 * data had errors); two within BURST_S seconds and the rate is too fast.
 */
static void raw_watch(struct smdsp_v32bis *s)
{
	uint32_t d = s->rx.raw_errs - s->q_errs, sum;
	unsigned int k;

	s->q_errs = s->rx.raw_errs;
	s->q_w[s->q_i++ & 3] = d < 0xffff ? (uint16_t)d : 0xffff;
	sum = (uint32_t)s->q_w[0] + s->q_w[1] + s->q_w[2] + s->q_w[3];
	if (s->rate == 4800 || sum < RAW_BURST)
		return;
	for (k = 0; k < 4; k++)
		s->q_w[k] = 0;
	if (s->q_last && s->now - s->q_last < BURST_S * 8000)
		s->q_bad = 1;
	s->q_last = s->now;
}

/* In the data: the far end's retrain tone or renegotiation, or an SNR too low (or high) for the rate. */
static void data_watch(struct smdsp_v32bis *s)
{
	struct smdsp_v32bis_tonedet *d = &s->td;
	unsigned int allowed_now, cur = smdsp_v32bis_rate_bit(s->rate), up;

	/* the far end's S, found in the data before its 1800 Hz could pass for AA */
	if (smdsp_v32bis_rx_state(&s->rx) == SMDSP_V32BIS_RX_S) {
		smdsp_v32bis_tx_send(&s->tx, SMDSP_V32BIS_S, 0, 0);
		rn_begin(s, RN_S);
		return;
	}
	if (d->run[s->cfg.caller ? 1 : 0] >= TONE_BLOCKS) {
		retrain(s);
		return;
	}
	raw_watch(s);
	/*
	 * the receiver's SNR, over the last 32 symbols, under what the rate
	 * needs for 1 s: no margin, as the nearest point's error reads the
	 * noise low when the points are dense (at 14400 and an SNR of 21 dB,
	 * 24.4 and 25.8 dB where TRN reads 23)
	 */
	allowed_now = smdsp_v32bis_snr_rates(smdsp_v32bis_rx_snr_10(&s->rx) + DATA_MARGIN_10, s->notcm);
	if (s->no_auto || (allowed_now & cur)) {
		s->low = 0;
	} else if (++s->low * SMDSP_V32BIS_BLK >= 8000) {
		if (!s->no_reneg && cur > SMDSP_V32BIS_4800 && ((cur - 1) & own_rates(s))) {
			rn_start(s, (cur - 1) & own_rates(s));
			return;
		}
		/*
		 * TRN's SNR was measured with this end silent: on a 2-wire line
		 * the data add the canceller's residual, and the same TRN would
		 * choose the same rate again. Not above this one for the call.
		 */
		s->cap = (cur - 1) | SMDSP_V32BIS_4800;
		s->low = 0;
		retrain(s);
		return;
	}
	if (s->no_reneg)
		return;
	if (s->q_bad && cur > SMDSP_V32BIS_4800 && ((cur - 1) & own_rates(s))) {
		s->rn_up_after = s->now + UP_HOLD_S * 8000;
		rn_start(s, (cur - 1) & own_rates(s));
		return;
	}
	/* the caller knows what the answerer offers (R1); the answerer only what R2 chose */
	up = rn_allowed(s, true) & ~((cur << 1) - 1) & (s->cfg.caller ? s->far : SMDSP_V32BIS_ALL);
	s->good = up ? s->good + 1 : 0;
	/*
	 * the answerer waits longer: two ends asking at once (their S crossing)
	 * is not handled well (doc/v32bis.md), and a line that improves for
	 * both would start both clocks together
	 */
	if (s->good * SMDSP_V32BIS_BLK >= (s->cfg.caller ? UP_S * 8000 : UP_S * 12000)) {
		rn_start(s, rn_allowed(s, true));
		/* tried once: not again for a while, whatever the far end answers */
		s->rn_up_after = s->now + UP_HOLD_S * 8000;
	}
}

/* The far tone heard long enough: the training begins with its next reversal. */
static void await_reversal(struct smdsp_v32bis *s, unsigned int tone, unsigned int next)
{
	s->td.rev[tone] = 0;
	s->state = next;
	status(s, SMDSP_STATUS_TRAINING);
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
			await_reversal(s, 0, ANS_CA);
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
			hear_next(s, ANS_R1);
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
		r = far_allowed(s);
		if (r) {
			s->rate = smdsp_v32bis_best(r);
			training(s, smdsp_v32bis_rword(smdsp_v32bis_rate_bit(s->rate) | coding(s), false),
				 TRN_LEN);
			/*
			 * tracking once the far echo of this training is back: before
			 * that the far canceller has nothing to follow and its phase
			 * loop would let the frequency it learnt leak away
			 */
			if (s->ec)
				s->ec_track_at = s->now + far_window(s) + s->lat + SMDSP_V32BIS_EC_FAR;
			s->state = ANS_R3;
		}
		break;
	case ANS_R3:
		if (smdsp_v32bis_rx_state(&s->rx) >= SMDSP_V32BIS_RX_B1) {
			if (smdsp_v32bis_rx_rate(&s->rx) != s->rate ||
			    smdsp_v32bis_rx_trellis(&s->rx) != smdsp_v32bis_trellis(s)) {
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
			near_start(s);
			await_reversal(s, 1, CAL_AA);
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
				s->deaf_until = s->now + loop_u(s) + 64;
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
		r = far_allowed(s);
		if (r) {
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
			hear_next(s, CAL_R2);
		}
		break;
	case CAL_R2:
		/* as the answerer in ANS_R1: our own training's echo is not the answerer's */
		if (deaf(s))
			break;
		r = far_rates(s);
		if (r) {
			s->rate = smdsp_v32bis_best(r);
			/* R3 at 9600 names the coding too */
			if (r & SMDSP_V32BIS_UNCODED)
				s->notcm = true;
			to_data(s);
			s->state = CAL_E;
		}
		break;
	case ANS_E:
	case CAL_E:
		if (s->rx_trained && smdsp_v32bis_rx_trained(&s->rx)) {
			ec_stop(s, SMDSP_ECHO_TRACK);
			enter_data(s);
		}
		break;
	case ST_DATA:
		data_watch(s);
		break;
	case RN_R4:
	case RN_S:
	case RN_R5:
	case RN_E:
	case RN_CLEAR:
		rn_step(s);
		return;
	default:
		break;
	}
	/* the start-up's (or a retrain's) limit; a renegotiation has its own */
	if (s->state < ST_DATA && s->now - s->start > (uint32_t)SMDSP_V32BIS_STARTUP_MS * 8)
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
		if (s->far_seek.on)
			far_seek_push(s, x, out[i]);
	}
	return out;
}

void smdsp_v32bis_process(struct smdsp_v32bis *s, const int16_t *rx, int16_t *tx, unsigned int n)
{
	int16_t clean[SMDSP_V32BIS_BLK];
	unsigned int k, m, i;

	if (!s->lat && n)
		s->lat = n < SMDSP_V32BIS_MAX_LATENCY ? (int)n : SMDSP_V32BIS_MAX_LATENCY;
	/* in pieces of at most a block, so that the start-up reacts within 5 ms */
	for (k = 0; k < n; k += m) {
		const int16_t *in;

		m = n - k < SMDSP_V32BIS_BLK ? n - k : SMDSP_V32BIS_BLK;
		in = cancel(s, rx + k, clean, m);
		/* in the data too: the far end's retrain */
		if (s->state != ST_FAILED)
			td_process(&s->td, in, m);
		if (s->near_on && s->td.blocks != s->near_blocks)
			near_watch(s);
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

void smdsp_v32bis_fill(struct smdsp_v32bis *s, int16_t *tx, unsigned int n)
{
	unsigned int i;

	smdsp_v32bis_tx_process(&s->tx, tx, n);
	/*
	 * Their echo comes back after those already sent and before those
	 * still to come, as the loop's latency has them: sent runs on ahead
	 * of now, and cancel() reads the line at the same lag behind rx.
	 */
	for (i = 0; i < n; i++)
		s->hist[(s->sent + i) & (SMDSP_V32BIS_HIST - 1)] = tx[i];
	s->sent += n;
}

int smdsp_v32bis_echo_latency(const struct smdsp_v32bis *s)
{
	return s->ec ? s->lat : -1;
}

int smdsp_v32bis_near_delay(const struct smdsp_v32bis *s)
{
	return s->near_lat;
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

bool smdsp_v32bis_trellis(const struct smdsp_v32bis *s)
{
	return s->rate > 4800 && !s->notcm;
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

void smdsp_v32bis_set_auto_reneg(struct smdsp_v32bis *s, bool on)
{
	s->no_reneg = !on;
}

unsigned int smdsp_v32bis_renegs(const struct smdsp_v32bis *s)
{
	return s->renegs;
}

unsigned int smdsp_v32bis_reneg_asked(const struct smdsp_v32bis *s)
{
	return s->rn_asked;
}

unsigned int smdsp_v32bis_reneg_fails(const struct smdsp_v32bis *s)
{
	return s->rn_fails;
}

bool smdsp_v32bis_cleared(const struct smdsp_v32bis *s)
{
	return s->cleared;
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
	return snprintf(buf, len, "v32bis %s state=%u rate=%u%s rtd=%d far=0x%x snr=%d rx_snr=%d retrains=%u renegs=%u/%u/%u offer=0x%x raw=%u/%u now=%u lat=%d erle=%d",
			s->cfg.caller ? "caller" : "answerer", s->state, s->rate,
			s->rate == 9600 && s->notcm ? " uncoded" : "", s->rtd, s->far,
			s->snr_10, smdsp_v32bis_rx_snr_10(&s->rx), s->retrains, s->renegs, s->rn_asked, s->rn_fails, s->rn_offer,
			s->rx.raw_errs, s->rx.raw_syms, s->now, s->lat, s->erle_q8 / 256);
}
