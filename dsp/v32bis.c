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
 * No echo canceller here: over a 2-wire line each receiver hears its own
 * transmitter's echo (that block comes with dsp/echo.c).
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
#define TONE_BLOCKS 6			/* 30 ms of a tone before it counts */
#define TRN_LEN 1280
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

static void td_init(struct smdsp_v32bis_tonedet *d)
{
	unsigned int i;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < SMDSP_V32BIS_BLK; i++) {
		/* 1800 Hz: 9 periods in 40 samples, 600 Hz: 3 */
		uint32_t p9 = (uint32_t)smdsp_div_u64((uint64_t)i * 9 << 32, SMDSP_V32BIS_BLK);
		uint32_t p3 = (uint32_t)smdsp_div_u64((uint64_t)i * 3 << 32, SMDSP_V32BIS_BLK);

		d->c1800[i] = smdsp_cos(p9);
		d->s1800[i] = smdsp_sin(p9);
		d->c600[i] = smdsp_cos(p3);
		d->s600[i] = smdsp_sin(p3);
	}
}

/* A block's end: which tones it holds, and their reversals. */
static void td_block(struct smdsp_v32bis_tonedet *d)
{
	int32_t z[2][2] = {
		{ (int32_t)(d->a_re >> 15), (int32_t)(d->a_im >> 15) },
		{ (int32_t)(d->b_re >> 15), (int32_t)(d->b_im >> 15) },
	};
	/* a tone whose sum is |z|^2 = 400 A^2 has 20 A^2 of power: 1800 Hz alone, or 600 as in AC */
	static const unsigned int ratio[2] = { 12, 6 };
	bool floor_ok = d->pow > (uint64_t)SMDSP_V32BIS_BLK * smdsp_dbm0_to_power(-480);
	unsigned int t, k;

	for (t = 0; t < 2; t++) {
		uint64_t m = (uint64_t)((int64_t)z[t][0] * z[t][0]) + (uint64_t)((int64_t)z[t][1] * z[t][1]);
		bool on = floor_ok && m > ratio[t] * d->pow;
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
		dot = (int64_t)z[t][0] * d->z[t][2][0] + (int64_t)z[t][1] * d->z[t][2][1];
		/* against two blocks before: the one between may hold the turn; then not again */
		if (d->hold[t])
			d->hold[t]--;
		else if (on && d->on[t][2] && dot < 0) {
			d->rev[t]++;
			d->hold[t] = 2;
		}
	}
	d->off = d->on[0][0] || d->on[1][0] ? 0 : d->off + 1;
	d->a_re = 0;
	d->a_im = 0;
	d->b_re = 0;
	d->b_im = 0;
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
	td_init(&s->td);
	s->rtd = -1;
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

	smdsp_v32bis_init(s, &c);
}

/* A training and a rate word after silence. */
static void training(struct smdsp_v32bis *s, uint16_t word)
{
	smdsp_v32bis_tx_send(&s->tx, SMDSP_V32BIS_SILENCE, 16, 0);
	smdsp_v32bis_tx_queue(&s->tx, SMDSP_V32BIS_S, 256, 0);
	smdsp_v32bis_tx_queue(&s->tx, SMDSP_V32BIS_SBAR, SMDSP_V32BIS_SBAR_LEN, 0);
	smdsp_v32bis_tx_queue(&s->tx, SMDSP_V32BIS_TRN, TRN_LEN, 0);
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
	s->state = ST_FAILED;
	smdsp_v32bis_tx_send(&s->tx, SMDSP_V32BIS_SILENCE, 0, 0);
	status(s, SMDSP_STATUS_TRAINING_FAILED);
}

/* What this end's SNR allows of the rates both offer. */
static unsigned int allowed(struct smdsp_v32bis *s, unsigned int far)
{
	s->far = far;
	s->snr_10 = smdsp_v32bis_rx_snr_10(&s->rx);
	return far & s->cfg.rates & smdsp_v32bis_snr_rates(s->snr_10);
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
	if (allowed_now & smdsp_v32bis_rate_bit(s->rate)) {
		s->low = 0;
	} else if (++s->low * SMDSP_V32BIS_BLK >= 8000) {
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
			smdsp_v32bis_tx_send(&s->tx, SMDSP_V32BIS_AC, 0, 0);
			s->state = ANS_AC2;
		}
		break;
	case ANS_AC2:
		/* the caller silent: the first training */
		if (d->off >= 2) {
			training(s, smdsp_v32bis_rword(s->cfg.rates, false));
			smdsp_v32bis_rx_reset(&s->rx);
			s->state = ANS_R1;
		}
		break;
	case ANS_R1:
		/* the caller's S: silence until its R2 */
		if (smdsp_v32bis_rx_state(&s->rx) >= SMDSP_V32BIS_RX_SBAR) {
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
			training(s, smdsp_v32bis_rword(smdsp_v32bis_rate_bit(s->rate), false));
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
			smdsp_v32bis_tx_send(&s->tx, SMDSP_V32BIS_SILENCE, 0, 0);
			smdsp_v32bis_rx_reset(&s->rx);
			s->state = CAL_TRAIN1;
		}
		break;
	case CAL_TRAIN1:
		/*
		 * the answerer's AC ends a few symbols before its S: a
		 * receiver fresh at its end (the carrier detector would not
		 * see the gap)
		 */
		if (smdsp_v32bis_rx_state(&s->rx) == SMDSP_V32BIS_RX_IDLE && d->on[1][1] && !d->on[1][0])
			smdsp_v32bis_rx_reset(&s->rx);
		r = far_rates(s);
		if (r) {
			r = allowed(s, r);
			if (!r) {
				fail(s);
				break;
			}
			training(s, smdsp_v32bis_rword(r, false));
			/* the answerer's second training next */
			smdsp_v32bis_rx_reset(&s->rx);
			s->state = CAL_R2;
		}
		break;
	case CAL_R2:
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

void smdsp_v32bis_process(struct smdsp_v32bis *s, const int16_t *rx, int16_t *tx, unsigned int n)
{
	unsigned int k, m;

	/* in pieces of at most a block, so that the start-up reacts within 5 ms */
	for (k = 0; k < n; k += m) {
		m = n - k < SMDSP_V32BIS_BLK ? n - k : SMDSP_V32BIS_BLK;
		/* in the data too: the far end's retrain */
		if (s->state != ST_FAILED)
			td_process(&s->td, rx + k, m);
		smdsp_v32bis_rx_process(&s->rx, rx + k, m);
		s->now += m;
		step(s);
		smdsp_v32bis_tx_process(&s->tx, tx + k, m);
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

unsigned int smdsp_v32bis_retrains(const struct smdsp_v32bis *s)
{
	return s->retrains;
}

int smdsp_v32bis_print(const struct smdsp_v32bis *s, char *buf, size_t len)
{
	return snprintf(buf, len, "v32bis %s state=%u rate=%u rtd=%d far=0x%x snr=%d rx_snr=%d retrains=%u now=%u",
			s->cfg.caller ? "caller" : "answerer", s->state, s->rate, s->rtd, s->far,
			s->snr_10, smdsp_v32bis_rx_snr_10(&s->rx), s->retrains, s->now);
}
