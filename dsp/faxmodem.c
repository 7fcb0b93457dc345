// SPDX-License-Identifier: GPL-2.0
/*
 * The fax side of the data pump (T.31 Class 1 operations, see faxmodem.h).
 *
 * One operation runs at a time. The V.21 channel 2 receiver and its HDLC
 * receiver run whenever the modem is off hook and not transmitting, so
 * that flags found during +FRM give +FCERROR, flags after ATD give CONNECT
 * and frames that come between two +FRH commands are kept (up to
 * SMDSP_FAX_RXFRAMES of them) for the next one.
 *
 * The receivers of all three high-speed modulations are embedded, V.17's
 * kept from one +FRM to the next so that a short training finds the
 * equalizer of the long one; the transmitters share their space (each is
 * set up afresh by +FTM).
 */
#include <smdsp/faxmodem.h>
/* the blocks embedded by value below */
#include <smdsp/private/tone.h>
#include <smdsp/private/dtmf.h>
#include <smdsp/private/fsk.h>
#include <smdsp/private/hdlc.h>
#include <smdsp/private/v27ter.h>
#include <smdsp/private/v29.h>
#include <smdsp/private/v17.h>

#define MS(x)		((uint32_t)(x) * (SMDSP_FAX_RATE / 1000))
#define BLIND_WAIT_MS	2000	/* ATD: off hook to the first digit */
#define CED_SILENCE_MS	200	/* ATA: before CED (T.30 4.3.2: at least 0.2 s) */
#define CED_MS		3000	/* T.30: 2.6 to 4 s */
#define CED_GAP_MS	75	/* between CED and the first V.21 flag */
#define FINAL_TAIL_MS	50	/* +FTH: the carrier stays after the final frame's closing flag */
#define SYNC_FLAGS	4	/* back-to-back flags before the V.21 receiver believes them */
/* +FRS: a 10 ms block under about -43 dBm0 is silent (the sum of 80 squares) */
#define SILENT_SUM	(80ULL * 13000)

struct fax_fifo {
	uint32_t in;
	uint32_t out;
	uint8_t b[SMDSP_FAX_FIFO];
};

struct fax_frame {
	uint16_t len;
	uint8_t status;
	uint8_t b[SMDSP_FAX_FRAME_MAX];
};

struct smdsp_faxmodem {
	struct smdsp_faxmodem_config cfg;
	enum smdsp_faxmodem_phase phase;
	bool offhook;
	unsigned int mod;	/* +FTM/+FRM's modulation */
	uint32_t count;		/* samples into the timed stage */
	uint32_t limit;		/* samples it lasts (0: no limit) */
	unsigned int stage;	/* ATA: 0 silence, 1 CED, 2 gap */
	uint32_t wait;		/* ATD: samples to wait for flags after dialling (0: no limit) */
	bool connected;		/* CONNECT reported for this +FRH */
	/* +FTH */
	uint32_t frames_ended;
	uint32_t frames_sent;
	uint32_t final_at;	/* frames_sent when the final frame is out (0: none yet) */
	/* +FTM */
	bool data_end;
	bool stop_req;
	unsigned int tx_sh;
	unsigned int tx_nbits;
	/* +FRM */
	unsigned int rx_sh;
	unsigned int rx_nbits;
	bool rx_restart;
	/* +FRS */
	uint64_t e_sum;
	unsigned int e_n;
	uint32_t quiet;
	/* the V.21 receiver */
	bool v21_carrier;
	bool v21_final;		/* this carrier brought a final frame: its tail follows */
	struct smdsp_tone tone;
	struct smdsp_dtmf_tx dtmf;
	struct smdsp_fsk_tx v21tx;
	struct smdsp_fsk_rx v21rx;
	struct smdsp_hdlc_tx hdlctx;
	struct smdsp_hdlc_rx hdlcrx;
	union {
		struct smdsp_v27ter_tx v27;
		struct smdsp_v29_tx v29;
		struct smdsp_v17_tx v17;
	} tx;
	struct smdsp_v27ter_rx v27rx;
	struct smdsp_v29_rx v29rx;
	struct smdsp_v17_rx v17rx;
	struct fax_fifo txq;
	struct fax_fifo rxq;
	struct fax_frame frames[SMDSP_FAX_RXFRAMES];
	uint32_t fr_in;
	uint32_t fr_out;
	struct smdsp_faxmodem_event ev[SMDSP_FAX_EVENTS];
	uint32_t ev_in;
	uint32_t ev_out;
	struct smdsp_faxmodem_stats st;
};

static unsigned int fifo_used(const struct fax_fifo *q)
{
	return q->in - q->out;
}

static void event(struct smdsp_faxmodem *f, enum smdsp_faxmodem_event_type type, uint32_t arg)
{
	struct smdsp_faxmodem_event *e;

	if (f->ev_in - f->ev_out >= SMDSP_FAX_EVENTS)
		return;
	e = &f->ev[f->ev_in++ % SMDSP_FAX_EVENTS];
	e->type = type;
	e->arg = arg;
}

bool smdsp_faxmodem_mod_valid(unsigned int mod)
{
	switch (mod) {
	case SMDSP_FAX_V21:
	case SMDSP_FAX_V27_2400:
	case SMDSP_FAX_V27_4800:
	case SMDSP_FAX_V29_7200:
	case SMDSP_FAX_V29_9600:
	case SMDSP_FAX_V17_7200:
	case SMDSP_FAX_V17_7200S:
	case SMDSP_FAX_V17_9600:
	case SMDSP_FAX_V17_9600S:
	case SMDSP_FAX_V17_12000:
	case SMDSP_FAX_V17_12000S:
	case SMDSP_FAX_V17_14400:
	case SMDSP_FAX_V17_14400S:
		return true;
	default:
		return false;
	}
}

/* 27, 29 or 17 for a high-speed code, 0 otherwise; its bit rate and training */
static unsigned int mod_family(unsigned int mod, unsigned int *rate, bool *short_train)
{
	*short_train = false;
	switch (mod) {
	case SMDSP_FAX_V27_2400:
	case SMDSP_FAX_V27_4800:
		*rate = mod * 100;
		return 27;
	case SMDSP_FAX_V29_7200:
	case SMDSP_FAX_V29_9600:
		*rate = mod * 100;
		return 29;
	case SMDSP_FAX_V17_7200:
	case SMDSP_FAX_V17_7200S:
		*rate = 7200;
		break;
	case SMDSP_FAX_V17_9600:
	case SMDSP_FAX_V17_9600S:
		*rate = 9600;
		break;
	case SMDSP_FAX_V17_12000:
	case SMDSP_FAX_V17_12000S:
		*rate = 12000;
		break;
	case SMDSP_FAX_V17_14400:
	case SMDSP_FAX_V17_14400S:
		*rate = 14400;
		break;
	default:
		return 0;
	}
	/* V.17: the short trainings' codes are the long ones' plus one */
	*short_train = mod == SMDSP_FAX_V17_7200S || mod == SMDSP_FAX_V17_9600S ||
		       mod == SMDSP_FAX_V17_12000S || mod == SMDSP_FAX_V17_14400S;
	return 17;
}

/* ---- the V.21 receiver: flags, frames, carrier ---- */

static void v21_frame(void *user, const uint8_t *buf, unsigned int len,
		      enum smdsp_hdlc_rx_status status)
{
	struct smdsp_faxmodem *f = user;
	struct fax_frame *fr;

	if (status == SMDSP_HDLC_RX_FRAMING_OK) {
		switch (f->phase) {
		case SMDSP_FAX_CNG:
		case SMDSP_FAX_RX_HDLC:
			f->phase = SMDSP_FAX_RX_HDLC;
			if (!f->connected) {
				f->connected = true;
				event(f, SMDSP_FAX_EV_CONNECT, 0);
			}
			break;
		case SMDSP_FAX_RX_TRAIN:
			/* T.31 8.3.4: the other modulation was found */
			f->phase = SMDSP_FAX_IDLE;
			f->mod = 0;
			event(f, SMDSP_FAX_EV_FCERROR, 0);
			break;
		default:
			break;
		}
		return;
	}
	if (status != SMDSP_HDLC_RX_OK && status != SMDSP_HDLC_RX_BAD_FCS)
		return;
	if (status == SMDSP_HDLC_RX_OK)
		f->st.frames_rx_good++;
	else
		f->st.frames_rx_bad++;
	/* the control field's P/F bit */
	if (status == SMDSP_HDLC_RX_OK && len >= 2 && (buf[1] & 0x10))
		f->v21_final = true;
	if (f->fr_in - f->fr_out >= SMDSP_FAX_RXFRAMES) {
		f->st.frames_dropped++;
		return;
	}
	fr = &f->frames[f->fr_in % SMDSP_FAX_RXFRAMES];
	len += 2;	/* the FCS octets follow */
	if (len > SMDSP_FAX_FRAME_MAX)
		len = SMDSP_FAX_FRAME_MAX;
	memcpy(fr->b, buf, len);
	fr->len = (uint16_t)len;
	fr->status = (uint8_t)status;
	f->fr_in++;
	if (f->phase == SMDSP_FAX_RX_HDLC) {
		if (!f->connected) {
			f->connected = true;
			event(f, SMDSP_FAX_EV_CONNECT, 0);
		}
		event(f, SMDSP_FAX_EV_FRAME, status);
		f->phase = SMDSP_FAX_IDLE;
	}
}

static void v21_bit(void *user, int bit)
{
	struct smdsp_faxmodem *f = user;

	smdsp_hdlc_rx_put_bit(&f->hdlcrx, bit);
}

static void v21_status(void *user, enum smdsp_status st)
{
	struct smdsp_faxmodem *f = user;

	if (st == SMDSP_STATUS_CARRIER_UP) {
		f->v21_carrier = true;
	} else if (st == SMDSP_STATUS_CARRIER_DOWN) {
		f->v21_carrier = false;
		f->v21_final = false;
		smdsp_hdlc_rx_reset(&f->hdlcrx);
		if (f->phase == SMDSP_FAX_RX_HDLC && f->connected) {
			f->phase = SMDSP_FAX_IDLE;
			f->st.carrier_losses++;
			event(f, SMDSP_FAX_EV_NO_CARRIER, 0);
		}
	}
}

/* ---- the high-speed receivers ---- */

static void hs_bit(void *user, int bit)
{
	struct smdsp_faxmodem *f = user;
	struct fax_fifo *q = &f->rxq;

	if (f->phase != SMDSP_FAX_RX_DATA)
		return;
	f->rx_sh |= (bit & 1) << f->rx_nbits;
	if (++f->rx_nbits < 8)
		return;
	if (fifo_used(q) < SMDSP_FAX_FIFO) {
		q->b[q->in++ % SMDSP_FAX_FIFO] = (uint8_t)f->rx_sh;
		f->st.octets_rx++;
	} else {
		f->st.rx_overruns++;
	}
	f->rx_sh = 0;
	f->rx_nbits = 0;
}

static void hs_rx_status(void *user, enum smdsp_status st)
{
	struct smdsp_faxmodem *f = user;

	switch (st) {
	case SMDSP_STATUS_TRAINED:
		if (f->phase != SMDSP_FAX_RX_TRAIN)
			break;
		f->phase = SMDSP_FAX_RX_DATA;
		f->rx_sh = 0;
		f->rx_nbits = 0;
		f->st.trainings++;
		event(f, SMDSP_FAX_EV_CONNECT, 0);
		break;
	case SMDSP_STATUS_TRAINING_FAILED:
		if (f->phase != SMDSP_FAX_RX_TRAIN)
			break;
		f->st.training_failures++;
		f->rx_restart = true;
		break;
	case SMDSP_STATUS_CARRIER_DOWN:
		if (f->phase != SMDSP_FAX_RX_DATA)
			break;
		f->phase = SMDSP_FAX_IDLE;
		f->mod = 0;
		f->st.carrier_losses++;
		event(f, SMDSP_FAX_EV_NO_CARRIER, 0);
		break;
	default:
		break;
	}
}

static void hs_rx_start(struct smdsp_faxmodem *f)
{
	unsigned int rate;
	bool shrt;

	switch (mod_family(f->mod, &rate, &shrt)) {
	case 27:
		smdsp_v27ter_rx_restart(&f->v27rx, rate);
		break;
	case 29:
		smdsp_v29_rx_restart(&f->v29rx, rate);
		break;
	case 17:
		/* a short training needs a long one before it: else expect a long one */
		if (smdsp_v17_rx_restart(&f->v17rx, rate, shrt))
			smdsp_v17_rx_restart(&f->v17rx, rate, false);
		break;
	}
	f->rx_restart = false;
}

static void hs_rx_process(struct smdsp_faxmodem *f, const int16_t *rx, unsigned int n)
{
	unsigned int rate;
	bool shrt;

	switch (mod_family(f->mod, &rate, &shrt)) {
	case 27:
		smdsp_v27ter_rx_process(&f->v27rx, rx, n);
		break;
	case 29:
		smdsp_v29_rx_process(&f->v29rx, rx, n);
		break;
	case 17:
		smdsp_v17_rx_process(&f->v17rx, rx, n);
		break;
	}
	if (f->rx_restart && f->phase == SMDSP_FAX_RX_TRAIN)
		hs_rx_start(f);
}

/* ---- the transmitters ---- */

static int hs_get_bit(void *user)
{
	struct smdsp_faxmodem *f = user;
	struct fax_fifo *q = &f->txq;
	int bit;

	if (!f->tx_nbits) {
		if (!fifo_used(q) && f->data_end) {
			/* all sent: ones until the transmitter stops */
			f->stop_req = true;
			return 1;
		}
		if (fifo_used(q)) {
			f->tx_sh = q->b[q->out++ % SMDSP_FAX_FIFO];
			f->st.octets_tx++;
		} else {
			/* underrun: a fill octet of zeros, the octets stay aligned */
			f->tx_sh = 0;
			f->st.tx_underruns++;
		}
		f->tx_nbits = 8;
	}
	bit = f->tx_sh & 1;
	f->tx_sh >>= 1;
	f->tx_nbits--;
	return bit;
}

static void hs_tx_status(void *user, enum smdsp_status st)
{
	struct smdsp_faxmodem *f = user;

	if (st == SMDSP_STATUS_TRAINED && f->phase == SMDSP_FAX_TX_TRAIN)
		f->phase = SMDSP_FAX_TX_DATA;
}

static bool hs_tx_process(struct smdsp_faxmodem *f, int16_t *tx, unsigned int n)
{
	unsigned int rate;
	bool shrt, more = false;

	switch (mod_family(f->mod, &rate, &shrt)) {
	case 27:
		if (f->stop_req)
			smdsp_v27ter_tx_stop(&f->tx.v27);
		more = smdsp_v27ter_tx_process(&f->tx.v27, tx, n);
		break;
	case 29:
		if (f->stop_req)
			smdsp_v29_tx_stop(&f->tx.v29);
		more = smdsp_v29_tx_process(&f->tx.v29, tx, n);
		break;
	case 17:
		if (f->stop_req)
			smdsp_v17_tx_stop(&f->tx.v17);
		more = smdsp_v17_tx_process(&f->tx.v17, tx, n);
		break;
	default:
		memset(tx, 0, n * sizeof(*tx));
	}
	return more;
}

static void hdlctx_event(void *user, enum smdsp_hdlc_tx_event ev)
{
	struct smdsp_faxmodem *f = user;

	if (ev == SMDSP_HDLC_TX_SENT) {
		f->frames_sent++;
		f->st.frames_tx++;
	}
}

/* ---- operations ---- */

static void to_idle(struct smdsp_faxmodem *f)
{
	f->phase = f->offhook ? SMDSP_FAX_IDLE : SMDSP_FAX_ON_HOOK;
	f->mod = 0;
	f->count = 0;
	f->limit = 0;
	f->connected = false;
	f->stop_req = false;
	f->data_end = false;
}

/*
 * The V.21 receiver starts afresh: off hook, and when we transmit (it does
 * not listen then, so the carrier it last heard would otherwise look as
 * if still on at the next +FRH or +FRM).
 */
static void v21_rx_reset(struct smdsp_faxmodem *f)
{
	f->v21_carrier = false;
	f->v21_final = false;
	smdsp_fsk_rx_init(&f->v21rx, SMDSP_V21_CH2, v21_bit, v21_status, f);
	smdsp_hdlc_rx_reset(&f->hdlcrx);
}

/* V.21 flags on the line now: not the few that end a final frame */
static bool v21_flags_now(const struct smdsp_faxmodem *f)
{
	return f->v21_carrier && smdsp_hdlc_rx_synced(&f->hdlcrx) && !f->v21_final;
}

static void go_offhook(struct smdsp_faxmodem *f)
{
	if (f->offhook)
		return;
	f->offhook = true;
	v21_rx_reset(f);
	f->fr_in = 0;
	f->fr_out = 0;
}

static void tone_init(struct smdsp_faxmodem *f, int32_t freq_mhz, unsigned int on_ms,
		      unsigned int off_ms, unsigned int cycles)
{
	struct smdsp_tone_desc d;

	memset(&d, 0, sizeof(d));
	d.freq_mhz[0] = freq_mhz;
	d.level_dbm0_10[0] = (int16_t)f->cfg.tx_level_dbm0_10;
	d.on_ms = (uint16_t)on_ms;
	d.off_ms = (uint16_t)off_ms;
	d.cycles = (uint16_t)cycles;
	smdsp_tone_init(&f->tone, &d);
}

int smdsp_faxmodem_call(struct smdsp_faxmodem *f, const char *digits, unsigned int wait_ms)
{
	char d[SMDSP_DTMF_QUEUE];
	unsigned int k = 0;

	if (!f || !digits)
		return -EINVAL;
	for (; *digits && k < sizeof(d) - 1; digits++) {
		char c = *digits;

		if ((c >= '0' && c <= '9') || c == '*' || c == '#' || c == ',' ||
		    (c >= 'A' && c <= 'D') || (c >= 'a' && c <= 'd'))
			d[k++] = c;
	}
	d[k] = 0;
	to_idle(f);
	go_offhook(f);
	smdsp_dtmf_tx_init(&f->dtmf);
	smdsp_dtmf_tx_put(&f->dtmf, d);
	/* CNG: 0.5 s of 1100 Hz every 3.5 s (T.30 4.3.1) */
	tone_init(f, 1100000, 500, 3000, 0);
	f->phase = k ? SMDSP_FAX_DIALING : SMDSP_FAX_CNG;
	f->count = 0;
	f->limit = k ? MS(BLIND_WAIT_MS) : 0;
	f->stage = 0;
	f->wait = MS(wait_ms);
	if (!k)
		f->limit = f->wait;
	return 0;
}

int smdsp_faxmodem_tx_hdlc(struct smdsp_faxmodem *f)
{
	if (!f)
		return -EINVAL;
	go_offhook(f);
	if (f->phase == SMDSP_FAX_TX_HDLC && !f->final_at) {
		/* the carrier is still on: the next frame */
		event(f, SMDSP_FAX_EV_CONNECT, 0);
		return 0;
	}
	to_idle(f);
	smdsp_fsk_tx_init(&f->v21tx, SMDSP_V21_CH2, f->cfg.tx_level_dbm0_10, smdsp_hdlc_tx_bit_cb,
			  &f->hdlctx);
	smdsp_hdlc_tx_reset(&f->hdlctx);
	smdsp_hdlc_tx_preamble(&f->hdlctx, f->cfg.preamble_flags);
	f->frames_ended = 0;
	f->frames_sent = 0;
	f->final_at = 0;
	f->phase = SMDSP_FAX_TX_HDLC;
	f->mod = SMDSP_FAX_V21;
	event(f, SMDSP_FAX_EV_CONNECT, 0);
	return 0;
}

int smdsp_faxmodem_answer(struct smdsp_faxmodem *f)
{
	if (!f)
		return -EINVAL;
	to_idle(f);
	go_offhook(f);
	f->phase = SMDSP_FAX_CED;
	f->stage = 0;
	f->count = 0;
	f->limit = MS(CED_SILENCE_MS);
	tone_init(f, 2100000, CED_MS, 0, 1);
	return 0;
}

int smdsp_faxmodem_rx_hdlc(struct smdsp_faxmodem *f)
{
	if (!f)
		return -EINVAL;
	to_idle(f);
	go_offhook(f);
	f->phase = SMDSP_FAX_RX_HDLC;
	f->mod = SMDSP_FAX_V21;
	if (f->fr_in != f->fr_out) {
		/* a frame came after the last +FRH */
		const struct fax_frame *fr = &f->frames[f->fr_out % SMDSP_FAX_RXFRAMES];

		event(f, SMDSP_FAX_EV_CONNECT, 0);
		event(f, SMDSP_FAX_EV_FRAME, fr->status);
		f->phase = SMDSP_FAX_IDLE;
	} else if (v21_flags_now(f)) {
		f->connected = true;
		event(f, SMDSP_FAX_EV_CONNECT, 0);
	}
	return 0;
}

int smdsp_faxmodem_tx_data(struct smdsp_faxmodem *f, unsigned int mod)
{
	unsigned int rate;
	bool shrt;
	int lv, r = -EINVAL;

	if (!f)
		return -EINVAL;
	if (mod == SMDSP_FAX_V21)
		return smdsp_faxmodem_tx_hdlc(f);
	lv = f->cfg.tx_level_dbm0_10;
	switch (mod_family(mod, &rate, &shrt)) {
	case 27:
		r = smdsp_v27ter_tx_init(&f->tx.v27, rate, lv, false, hs_get_bit, hs_tx_status, f);
		break;
	case 29:
		r = smdsp_v29_tx_init(&f->tx.v29, rate, lv, false, hs_get_bit, hs_tx_status, f);
		break;
	case 17:
		r = smdsp_v17_tx_init(&f->tx.v17, rate, lv, false, shrt, hs_get_bit, hs_tx_status, f);
		break;
	}
	if (r)
		return -EINVAL;
	to_idle(f);
	go_offhook(f);
	f->txq.in = 0;
	f->txq.out = 0;
	f->tx_nbits = 0;
	f->phase = SMDSP_FAX_TX_TRAIN;
	f->mod = mod;
	event(f, SMDSP_FAX_EV_CONNECT, 0);
	return 0;
}

int smdsp_faxmodem_rx_data(struct smdsp_faxmodem *f, unsigned int mod)
{
	unsigned int rate;
	bool shrt;

	if (!f)
		return -EINVAL;
	if (mod == SMDSP_FAX_V21)
		return smdsp_faxmodem_rx_hdlc(f);
	if (!mod_family(mod, &rate, &shrt))
		return -EINVAL;
	to_idle(f);
	go_offhook(f);
	f->rxq.in = 0;
	f->rxq.out = 0;
	f->mod = mod;
	/* (the DTE may send +FRM at once after a final frame) */
	if (v21_flags_now(f)) {
		f->mod = 0;
		event(f, SMDSP_FAX_EV_FCERROR, 0);
		return 0;
	}
	f->phase = SMDSP_FAX_RX_TRAIN;
	hs_rx_start(f);
	return 0;
}

int smdsp_faxmodem_tx_silence(struct smdsp_faxmodem *f, unsigned int units_10ms)
{
	if (!f)
		return -EINVAL;
	to_idle(f);
	go_offhook(f);
	f->phase = SMDSP_FAX_TX_SILENCE;
	f->limit = MS(units_10ms * 10);
	if (!f->limit) {
		f->phase = SMDSP_FAX_IDLE;
		event(f, SMDSP_FAX_EV_OK, 0);
	}
	return 0;
}

int smdsp_faxmodem_rx_silence(struct smdsp_faxmodem *f, unsigned int units_10ms)
{
	if (!f)
		return -EINVAL;
	to_idle(f);
	go_offhook(f);
	f->phase = SMDSP_FAX_RX_SILENCE;
	f->limit = MS(units_10ms * 10);
	f->quiet = 0;
	f->e_sum = 0;
	f->e_n = 0;
	if (!f->limit) {
		f->phase = SMDSP_FAX_IDLE;
		event(f, SMDSP_FAX_EV_OK, 0);
	}
	return 0;
}

void smdsp_faxmodem_stop(struct smdsp_faxmodem *f)
{
	if (f)
		to_idle(f);
}

void smdsp_faxmodem_hangup(struct smdsp_faxmodem *f)
{
	if (!f)
		return;
	f->offhook = false;
	to_idle(f);
	f->txq.in = f->txq.out = 0;
	f->rxq.in = f->rxq.out = 0;
	f->fr_in = f->fr_out = 0;
	f->ev_in = f->ev_out = 0;
	smdsp_hdlc_tx_reset(&f->hdlctx);
}

/* ---- data ---- */

unsigned int smdsp_faxmodem_write_space(const struct smdsp_faxmodem *f)
{
	if (!f)
		return 0;
	if (f->phase == SMDSP_FAX_TX_HDLC)
		return smdsp_hdlc_tx_space(&f->hdlctx);
	return SMDSP_FAX_FIFO - fifo_used(&f->txq);
}

unsigned int smdsp_faxmodem_write(struct smdsp_faxmodem *f, const uint8_t *buf, unsigned int len)
{
	struct fax_fifo *q;
	unsigned int i;

	if (!f || !buf)
		return 0;
	if (f->phase == SMDSP_FAX_TX_HDLC)
		return smdsp_hdlc_tx_put(&f->hdlctx, buf, len);
	if (f->phase != SMDSP_FAX_TX_TRAIN && f->phase != SMDSP_FAX_TX_DATA)
		return 0;
	if (f->data_end)
		return 0;
	q = &f->txq;
	for (i = 0; i < len && fifo_used(q) < SMDSP_FAX_FIFO; i++)
		q->b[q->in++ % SMDSP_FAX_FIFO] = buf[i];
	return i;
}

int smdsp_faxmodem_end_frame(struct smdsp_faxmodem *f, bool final)
{
	int r;

	if (!f || f->phase != SMDSP_FAX_TX_HDLC || f->final_at)
		return -EINVAL;
	r = smdsp_hdlc_tx_end_frame(&f->hdlctx);
	if (r)
		return r;
	f->frames_ended++;
	if (final)
		f->final_at = f->frames_ended;
	else
		event(f, SMDSP_FAX_EV_CONNECT, 0);
	return 0;
}

void smdsp_faxmodem_end_data(struct smdsp_faxmodem *f)
{
	if (f && (f->phase == SMDSP_FAX_TX_TRAIN || f->phase == SMDSP_FAX_TX_DATA))
		f->data_end = true;
}

unsigned int smdsp_faxmodem_read(struct smdsp_faxmodem *f, uint8_t *buf, unsigned int len)
{
	struct fax_fifo *q;
	unsigned int i;

	if (!f || !buf)
		return 0;
	q = &f->rxq;
	for (i = 0; i < len && fifo_used(q); i++)
		buf[i] = q->b[q->out++ % SMDSP_FAX_FIFO];
	return i;
}

unsigned int smdsp_faxmodem_read_frame(struct smdsp_faxmodem *f, uint8_t *buf, unsigned int len,
				       enum smdsp_hdlc_rx_status *status)
{
	const struct fax_frame *fr;
	unsigned int n;

	if (!f || f->fr_in == f->fr_out)
		return 0;
	fr = &f->frames[f->fr_out++ % SMDSP_FAX_RXFRAMES];
	n = fr->len < len ? fr->len : len;
	if (buf && n)
		memcpy(buf, fr->b, n);
	if (status)
		*status = fr->status;
	return fr->len;
}

bool smdsp_faxmodem_get_event(struct smdsp_faxmodem *f, struct smdsp_faxmodem_event *ev)
{
	if (!f || f->ev_in == f->ev_out)
		return false;
	*ev = f->ev[f->ev_out++ % SMDSP_FAX_EVENTS];
	return true;
}

enum smdsp_faxmodem_phase smdsp_faxmodem_phase(const struct smdsp_faxmodem *f)
{
	return f ? f->phase : SMDSP_FAX_ON_HOOK;
}

bool smdsp_faxmodem_offhook(const struct smdsp_faxmodem *f)
{
	return f && f->offhook;
}

unsigned int smdsp_faxmodem_mod(const struct smdsp_faxmodem *f)
{
	return f ? f->mod : 0;
}

void smdsp_faxmodem_get_stats(const struct smdsp_faxmodem *f, struct smdsp_faxmodem_stats *st)
{
	if (f && st)
		*st = f->st;
}

/* ---- per period ---- */

static bool transmitting(enum smdsp_faxmodem_phase p)
{
	return p == SMDSP_FAX_TX_HDLC || p == SMDSP_FAX_TX_TRAIN || p == SMDSP_FAX_TX_DATA ||
	       p == SMDSP_FAX_CED;
}

static void rx_silence(struct smdsp_faxmodem *f, const int16_t *rx, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n && f->phase == SMDSP_FAX_RX_SILENCE; i++) {
		f->e_sum += (uint64_t)((int32_t)rx[i] * rx[i]);
		if (++f->e_n < MS(10))
			continue;
		f->quiet = f->e_sum < SILENT_SUM ? f->quiet + MS(10) : 0;
		f->e_sum = 0;
		f->e_n = 0;
		if (f->quiet >= f->limit) {
			f->phase = SMDSP_FAX_IDLE;
			event(f, SMDSP_FAX_EV_OK, 0);
		}
	}
}

/* A timed stage: how many of n samples it still takes. */
static unsigned int timed(struct smdsp_faxmodem *f, unsigned int n)
{
	uint32_t left = f->limit > f->count ? f->limit - f->count : 0;

	return left < n ? left : n;
}

/* One piece of a period in one phase; returns the samples done (> 0 when n > 0). */
static unsigned int step(struct smdsp_faxmodem *f, const int16_t *rx, int16_t *tx, unsigned int n)
{
	unsigned int k = n;

	switch (f->phase) {
	case SMDSP_FAX_DIALING:
		if (f->count < f->limit) {
			k = timed(f, n);
			memset(tx, 0, k * sizeof(*tx));
			f->count += k;
		} else if (!smdsp_dtmf_tx_process(&f->dtmf, tx, n)) {
			f->phase = SMDSP_FAX_CNG;
			f->count = 0;
			f->limit = f->wait;
		}
		break;
	case SMDSP_FAX_CNG:
		smdsp_tone_process(&f->tone, tx, n);
		f->count += n;
		if (f->limit && f->count >= f->limit) {
			to_idle(f);
			event(f, SMDSP_FAX_EV_NO_CARRIER, 0);
		}
		break;
	case SMDSP_FAX_CED:
		if (f->stage == 1) {
			if (smdsp_tone_process(&f->tone, tx, n) < n) {
				f->stage = 2;
				f->count = 0;
				f->limit = MS(CED_GAP_MS);
			}
			break;
		}
		k = timed(f, n);
		memset(tx, 0, k * sizeof(*tx));
		f->count += k;
		if (f->count >= f->limit) {
			if (f->stage == 0)
				f->stage = 1;
			else
				smdsp_faxmodem_tx_hdlc(f);
		}
		break;
	case SMDSP_FAX_TX_HDLC:
		if (f->final_at && f->frames_sent >= f->final_at) {
			/* after the final frame, two more flags' time, then the carrier off */
			k = timed(f, n);
			smdsp_fsk_tx_process(&f->v21tx, tx, k);
			f->count += k;
			if (f->count >= f->limit) {
				to_idle(f);
				event(f, SMDSP_FAX_EV_OK, 0);
			}
			break;
		}
		smdsp_fsk_tx_process(&f->v21tx, tx, n);
		if (f->final_at && f->frames_sent >= f->final_at) {
			f->count = 0;
			f->limit = MS(FINAL_TAIL_MS);
		}
		break;
	case SMDSP_FAX_TX_TRAIN:
	case SMDSP_FAX_TX_DATA:
		if (!hs_tx_process(f, tx, n)) {
			to_idle(f);
			event(f, SMDSP_FAX_EV_OK, 0);
		}
		break;
	case SMDSP_FAX_TX_SILENCE:
		k = timed(f, n);
		memset(tx, 0, k * sizeof(*tx));
		f->count += k;
		if (f->count >= f->limit) {
			to_idle(f);
			event(f, SMDSP_FAX_EV_OK, 0);
		}
		break;
	case SMDSP_FAX_RX_TRAIN:
	case SMDSP_FAX_RX_DATA:
		hs_rx_process(f, rx, n);
		memset(tx, 0, n * sizeof(*tx));
		break;
	case SMDSP_FAX_RX_SILENCE:
		rx_silence(f, rx, n);
		memset(tx, 0, n * sizeof(*tx));
		break;
	default:
		memset(tx, 0, n * sizeof(*tx));
		break;
	}
	return k;
}

int smdsp_faxmodem_process(struct smdsp_faxmodem *f, const int16_t *rx, int16_t *tx,
			   unsigned int n)
{
	unsigned int done = 0, guard = 0;

	if (!f || (n && (!rx || !tx)))
		return -EINVAL;
	if (!f->offhook) {
		memset(tx, 0, n * sizeof(*tx));
		return 0;
	}
	/* the V.21 receiver hears what comes while we are not transmitting */
	if (!transmitting(f->phase))
		smdsp_fsk_rx_process(&f->v21rx, rx, n);
	else if (f->v21_carrier)
		v21_rx_reset(f);
	while (done < n) {
		unsigned int k = step(f, rx + done, tx + done, n - done);

		done += k;
		/* a stage change that took no samples: at most a few in a row */
		if (!k && ++guard > 4) {
			memset(tx + done, 0, (n - done) * sizeof(*tx));
			break;
		}
	}
	return 0;
}

/* ---- create/free ---- */

struct smdsp_faxmodem *smdsp_faxmodem_create(const struct smdsp_faxmodem_config *cfg)
{
	struct smdsp_hdlc_tx_config tc = { 0 };
	struct smdsp_hdlc_rx_config rc = { 0 };
	struct smdsp_faxmodem *f;

	f = smdsp_alloc(sizeof(*f));
	if (!f)
		return NULL;
	if (cfg)
		f->cfg = *cfg;
	if (!f->cfg.tx_level_dbm0_10)
		f->cfg.tx_level_dbm0_10 = -100;
	if (!f->cfg.preamble_flags)
		f->cfg.preamble_flags = 38;
	tc.event = hdlctx_event;
	tc.user = f;
	rc.report_bad = true;
	rc.sync_flags = SYNC_FLAGS;
	rc.frame = v21_frame;
	rc.user = f;
	if (smdsp_hdlc_tx_init(&f->hdlctx, &tc) || smdsp_hdlc_rx_init(&f->hdlcrx, &rc) ||
	    smdsp_v27ter_rx_init(&f->v27rx, 4800, hs_bit, hs_rx_status, f) ||
	    smdsp_v29_rx_init(&f->v29rx, 9600, hs_bit, hs_rx_status, f) ||
	    smdsp_v17_rx_init(&f->v17rx, 14400, hs_bit, hs_rx_status, f)) {
		smdsp_free(f);
		return NULL;
	}
	smdsp_fsk_rx_init(&f->v21rx, SMDSP_V21_CH2, v21_bit, v21_status, f);
	smdsp_fsk_tx_init(&f->v21tx, SMDSP_V21_CH2, f->cfg.tx_level_dbm0_10, smdsp_hdlc_tx_bit_cb,
			  &f->hdlctx);
	smdsp_dtmf_tx_init(&f->dtmf);
	to_idle(f);
	return f;
}

void smdsp_faxmodem_free(struct smdsp_faxmodem *f)
{
	smdsp_free(f);
}

int smdsp_faxmodem_print(const struct smdsp_faxmodem *f, char *buf, size_t len)
{
	return snprintf(buf, len, "faxmodem phase=%d offhook=%d mod=%u frames_sent=%u",
			f->phase, f->offhook, f->mod, f->frames_sent);
}
