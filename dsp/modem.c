// SPDX-License-Identifier: GPL-2.0
/*
 * Modem engine: call set-up (ring detection, dial tone, DTMF dialling,
 * call progress, answer tone), the data pump (V.21, V.22, V.22bis) and the
 * byte stream (start-stop framing with V.14 rate adaption), driven by one
 * call per audio period.
 *
 * Everything is allocated by smdsp_modem_create(); processing and commands
 * never allocate, so the engine can run in any kernel context.
 */
#include <smdsp/modem.h>
#include <smdsp/tone.h>
#include <smdsp/dtmf.h>
#include <smdsp/anstone.h>
#include <smdsp/ring.h>
#include <smdsp/fsk.h>
#include <smdsp/v22bis.h>
#include <smdsp/async.h>

#define FIFO_SIZE	4096	/* power of two */
#define EVQ_SIZE	32
#define CHUNK		40	/* 5 ms: granularity of the call set-up timers */
#define MS(ms)		((uint32_t)(ms) * (SMDSP_RATE / 1000))

enum data_pump {
	PUMP_NONE = 0,
	PUMP_V21,
	PUMP_V22,
};

struct fifo {
	uint8_t buf[FIFO_SIZE];
	unsigned int head;	/* written by the producer */
	unsigned int tail;
};

struct smdsp_modem {
	struct smdsp_modem_config cfg;
	enum smdsp_modem_phase phase;
	uint32_t now;		/* samples since create (wraps after 6 days) */
	uint32_t t;		/* samples in this phase */
	bool calling;
	bool tone_done;		/* answerer: ANS sent / caller: ANS heard and gone */
	uint32_t tone_end;	/* caller: phase time when the answer tone stopped */
	enum data_pump pump;
	unsigned int rate;
	char digits[64];

	struct smdsp_ring ring;
	struct smdsp_cpt cpt;
	struct smdsp_dtmf_tx dtmf;
	struct smdsp_anstone_rx ans_rx;
	struct smdsp_tonegen ans_tx;
	struct smdsp_fsk_tx fsk_tx;
	struct smdsp_fsk_rx fsk_rx;
	uint32_t fsk_carrier_t;
	struct smdsp_v22bis v22;
	struct smdsp_async_tx *atx;
	struct smdsp_async_rx *arx;
	bool draining;		/* discard what the framer gives while it is resynchronised */

	struct fifo txq;
	struct fifo rxq;
	struct smdsp_modem_event evq[EVQ_SIZE];
	unsigned int ev_head;
	unsigned int ev_tail;
};

static unsigned int fifo_used(const struct fifo *f)
{
	return (f->head - f->tail) & (FIFO_SIZE - 1);
}

static unsigned int fifo_space(const struct fifo *f)
{
	return FIFO_SIZE - 1 - fifo_used(f);
}

static bool fifo_put(struct fifo *f, uint8_t b)
{
	if (!fifo_space(f))
		return false;
	f->buf[f->head] = b;
	f->head = (f->head + 1) & (FIFO_SIZE - 1);
	return true;
}

static int fifo_get(struct fifo *f)
{
	int b;

	if (!fifo_used(f))
		return -1;
	b = f->buf[f->tail];
	f->tail = (f->tail + 1) & (FIFO_SIZE - 1);
	return b;
}

static void event(struct smdsp_modem *m, enum smdsp_modem_event_type type, uint32_t arg)
{
	struct smdsp_modem_event *e;
	unsigned int next = (m->ev_head + 1) % EVQ_SIZE;

	if (next == m->ev_tail)
		m->ev_tail = (m->ev_tail + 1) % EVQ_SIZE;	/* drop the oldest */
	e = &m->evq[m->ev_head];
	e->type = (uint16_t)type;
	e->phase = (uint16_t)m->phase;
	e->arg = arg;
	e->time_ms = m->now / (SMDSP_RATE / 1000);
	m->ev_head = next;
}

static void set_phase(struct smdsp_modem *m, enum smdsp_modem_phase p, uint32_t arg)
{
	m->phase = p;
	m->t = 0;
	event(m, SMDSP_EV_PHASE, arg);
}

/* ---- byte stream glue ---- */

static int atx_get_byte(void *user)
{
	struct smdsp_modem *m = user;

	return fifo_get(&m->txq);
}

static void arx_put_byte(void *user, int byte)
{
	struct smdsp_modem *m = user;

	if (byte >= 0 && !m->draining)
		fifo_put(&m->rxq, (uint8_t)byte);
}

static int data_get_bit(void *user)
{
	struct smdsp_modem *m = user;

	return smdsp_async_tx_get_bit(m->atx);
}

static void data_put_bit(void *user, int bit)
{
	struct smdsp_modem *m = user;

	smdsp_async_rx_put_bit(m->arx, bit);
}

/* Brings both framers back to idle without passing anything on. */
static void framers_idle(struct smdsp_modem *m)
{
	int i;

	m->draining = true;
	for (i = 0; i < 24; i++) {
		smdsp_async_rx_put_bit(m->arx, 1);
		smdsp_async_tx_get_bit(m->atx);
	}
	m->draining = false;
}

/* ---- the pumps ---- */

static void v22_status(void *user, enum smdsp_status st)
{
	struct smdsp_modem *m = user;

	switch (st) {
	case SMDSP_STATUS_TRAINED:
		m->rate = smdsp_v22bis_rate(&m->v22);
		set_phase(m, SMDSP_PHASE_CONNECTED, m->rate);
		break;
	case SMDSP_STATUS_RETRAIN:
		if (m->phase == SMDSP_PHASE_CONNECTED)
			set_phase(m, SMDSP_PHASE_RETRAIN, 0);
		break;
	default:
		break;
	}
}

static void start_v22(struct smdsp_modem *m)
{
	struct smdsp_v22bis_config c;

	memset(&c, 0, sizeof(c));
	c.calling = m->calling;
	c.max_rate = (m->cfg.modulations & SMDSP_MODEM_V22BIS) ? 2400 : 1200;
	c.tx_level_dbm0_10 = (int16_t)m->cfg.tx_level_dbm0_10;
	c.guard = SMDSP_V22_GUARD_NONE;
	c.get_bit = data_get_bit;
	c.put_bit = data_put_bit;
	c.status = v22_status;
	c.user = m;
	smdsp_v22bis_init(&m->v22, &c);
	m->pump = PUMP_V22;
}

static void start_v21(struct smdsp_modem *m)
{
	smdsp_fsk_tx_init(&m->fsk_tx, m->calling ? SMDSP_V21_CH1 : SMDSP_V21_CH2,
			  m->cfg.tx_level_dbm0_10, data_get_bit, m);
	smdsp_fsk_rx_init(&m->fsk_rx, m->calling ? SMDSP_V21_CH2 : SMDSP_V21_CH1,
			  data_put_bit, NULL, m);
	m->fsk_carrier_t = 0;
	m->pump = PUMP_V21;
}

static void hangup(struct smdsp_modem *m, enum smdsp_modem_cause cause)
{
	m->pump = PUMP_NONE;
	m->rate = 0;
	set_phase(m, SMDSP_PHASE_HUNGUP, cause);
	/* what was queued for this call is gone with it */
	m->txq.tail = m->txq.head;
	smdsp_ring_init(&m->ring);
	set_phase(m, SMDSP_PHASE_ONHOOK, 0);
}

static void go_offhook(struct smdsp_modem *m, bool calling)
{
	m->calling = calling;
	m->rate = 0;
	m->tone_done = false;
	m->pump = PUMP_NONE;
	m->rxq.tail = m->rxq.head;
	framers_idle(m);
	smdsp_cpt_init(&m->cpt, m->cfg.tone_plan);
	smdsp_anstone_rx_init(&m->ans_rx, 2100000);
}

/* ---- commands ---- */

int smdsp_modem_dial(struct smdsp_modem *m, const char *digits)
{
	size_t n;

	if (!m || !digits)
		return -EINVAL;
	if (m->phase != SMDSP_PHASE_ONHOOK)
		return -EBUSY;
	n = strlen(digits);
	if (n >= sizeof(m->digits))
		return -EINVAL;
	memcpy(m->digits, digits, n + 1);
	go_offhook(m, true);
	set_phase(m, SMDSP_PHASE_OFFHOOK, 0);
	return 0;
}

int smdsp_modem_answer(struct smdsp_modem *m)
{
	if (!m)
		return -EINVAL;
	if (m->phase != SMDSP_PHASE_ONHOOK)
		return -EBUSY;
	go_offhook(m, false);
	/* V.25: about 2 s of silence (billing delay) before the answer tone */
	set_phase(m, SMDSP_PHASE_ANSWER_TONE, 0);
	return 0;
}

void smdsp_modem_hangup(struct smdsp_modem *m)
{
	if (m && m->phase != SMDSP_PHASE_ONHOOK)
		hangup(m, SMDSP_CAUSE_LOCAL);
}

/* ---- per-phase processing of one chunk ---- */

static void do_onhook(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	memset(tx, 0, n * sizeof(*tx));
	if (smdsp_ring_process(&m->ring, rx, n)) {
		uint32_t rings = smdsp_ring_count(&m->ring);

		event(m, SMDSP_EV_RING, rings);
		if (m->cfg.auto_answer_rings && rings >= m->cfg.auto_answer_rings)
			smdsp_modem_answer(m);
	}
	/* a caller who gave up: start counting again */
	if (smdsp_ring_count(&m->ring) && smdsp_ring_quiet_ms(&m->ring) > 8000)
		smdsp_ring_init(&m->ring);
}

static void do_offhook(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	enum smdsp_cpt_event e = smdsp_cpt_process(&m->cpt, rx, n);
	bool blind = m->cfg.flags & SMDSP_MODEM_FLAG_BLIND;

	memset(tx, 0, n * sizeof(*tx));
	if (e != SMDSP_CPT_NONE)
		event(m, SMDSP_EV_CALL_PROGRESS, e);
	if (e == SMDSP_CPT_DIALTONE || (blind && m->t >= MS(2000))) {
		smdsp_dtmf_tx_init(&m->dtmf);
		smdsp_dtmf_tx_put(&m->dtmf, m->digits);
		set_phase(m, SMDSP_PHASE_DIALING, 0);
	} else if (m->t >= MS(5000)) {
		hangup(m, SMDSP_CAUSE_NO_DIALTONE);
	}
}

static void do_dialing(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	(void)rx;
	if (smdsp_dtmf_tx_process(&m->dtmf, tx, n) == 0) {
		smdsp_cpt_init(&m->cpt, m->cfg.tone_plan);
		set_phase(m, SMDSP_PHASE_WAITING, 0);
		/* the V.22bis caller is silent until it hears the answerer */
		if (m->cfg.modulations & (SMDSP_MODEM_V22 | SMDSP_MODEM_V22BIS))
			start_v22(m);
		if (m->cfg.modulations & SMDSP_MODEM_V21) {
			smdsp_fsk_rx_init(&m->fsk_rx, SMDSP_V21_CH2, NULL, NULL, m);
			m->fsk_carrier_t = 0;
		}
	}
}

static void run_pump(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	switch (m->pump) {
	case PUMP_V22:
		smdsp_v22bis_process(&m->v22, rx, tx, n);
		break;
	case PUMP_V21:
		smdsp_fsk_rx_process(&m->fsk_rx, rx, n);
		smdsp_fsk_tx_process(&m->fsk_tx, tx, n);
		break;
	default:
		memset(tx, 0, n * sizeof(*tx));
		break;
	}
}

/* Calling modem, dialled: call progress, answer tone, then the far modem. */
static void do_waiting(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	enum smdsp_cpt_event e = smdsp_cpt_process(&m->cpt, rx, n);
	enum smdsp_ans_kind k;

	smdsp_anstone_rx_process(&m->ans_rx, rx, n);
	k = smdsp_anstone_rx_kind(&m->ans_rx);
	if (m->phase == SMDSP_PHASE_WAITING && k != SMDSP_ANS_NONE) {
		event(m, SMDSP_EV_ANSWER_TONE, k);
		set_phase(m, SMDSP_PHASE_ANSWER_TONE, k);
	} else if (m->phase == SMDSP_PHASE_ANSWER_TONE && k == SMDSP_ANS_NONE && !m->tone_done) {
		m->tone_done = true;
		m->tone_end = m->t;
	}
	if (e == SMDSP_CPT_BUSY || e == SMDSP_CPT_CONGESTION) {
		event(m, SMDSP_EV_CALL_PROGRESS, e);
		hangup(m, SMDSP_CAUSE_BUSY);
		return;
	}
	if (e != SMDSP_CPT_NONE)
		event(m, SMDSP_EV_CALL_PROGRESS, e);
	if (m->pump == PUMP_V22) {
		smdsp_v22bis_process(&m->v22, rx, tx, n);
		/* unscrambled ones heard: the V.22/V.22bis handshake is on */
		if (smdsp_v22bis_handshaking(&m->v22) && m->phase != SMDSP_PHASE_TRAINING)
			set_phase(m, SMDSP_PHASE_TRAINING, 0);
	} else {
		memset(tx, 0, n * sizeof(*tx));
	}
	if ((m->cfg.modulations & SMDSP_MODEM_V21) && m->phase != SMDSP_PHASE_TRAINING) {
		/* a V.21 answerer sends its mark (1650 Hz) after the answer tone */
		smdsp_fsk_rx_process(&m->fsk_rx, rx, n);
		/*
		 * V.22bis, which also starts 75 ms after the answer tone, wins
		 * if it is there: its unscrambled ones are recognised within
		 * 300 ms, and V.21 is taken only after 450 ms of its carrier.
		 */
		m->fsk_carrier_t = smdsp_fsk_rx_carrier(&m->fsk_rx) ? m->fsk_carrier_t + n : 0;
		if (m->fsk_carrier_t >= MS(450) && m->tone_done && m->t - m->tone_end >= MS(450) &&
		    !smdsp_anstone_rx_tone_ms(&m->ans_rx) &&
		    !(m->pump == PUMP_V22 && smdsp_v22bis_carrier(&m->v22))) {
			start_v21(m);
			m->rate = 300;
			set_phase(m, SMDSP_PHASE_CONNECTED, 300);
			return;
		}
	}
	if (m->t >= MS(m->cfg.wait_answer_ms))
		hangup(m, SMDSP_CAUSE_NO_ANSWER);
}

/* Answering modem: billing delay, answer tone, then the modulation. */
static void do_answer_tone(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	if (m->calling) {
		do_waiting(m, rx, tx, n);
		return;
	}
	if (!m->tone_done) {
		if (m->cfg.flags & SMDSP_MODEM_FLAG_NO_ANS) {
			m->tone_done = true;
		} else if (m->t < MS(2000)) {
			memset(tx, 0, n * sizeof(*tx));
			return;
		} else if (m->t < MS(2000) + n) {
			struct smdsp_tone_desc d;

			smdsp_anstone_desc(&d, SMDSP_ANS_ANS, -120, 3300);
			smdsp_tonegen_init(&m->ans_tx, &d);
		}
		if (!m->tone_done) {
			smdsp_tonegen_process(&m->ans_tx, tx, n);
			if (!smdsp_tonegen_done(&m->ans_tx))
				return;
			m->tone_done = true;
		}
		if (m->cfg.modulations & (SMDSP_MODEM_V22 | SMDSP_MODEM_V22BIS))
			start_v22(m);
		else
			start_v21(m);
		set_phase(m, SMDSP_PHASE_TRAINING, 0);
		return;
	}
	memset(tx, 0, n * sizeof(*tx));
}

static void do_training(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	run_pump(m, rx, tx, n);
	if (m->pump == PUMP_V21) {
		/* V.21 answerer: connected once the caller's carrier has lasted 300 ms */
		m->fsk_carrier_t = smdsp_fsk_rx_carrier(&m->fsk_rx) ? m->fsk_carrier_t + n : 0;
		if (m->fsk_carrier_t >= MS(300)) {
			m->rate = 300;
			set_phase(m, SMDSP_PHASE_CONNECTED, 300);
		} else if (m->t >= MS(m->cfg.wait_answer_ms)) {
			hangup(m, SMDSP_CAUSE_NO_ANSWER);
		}
		return;
	}
	if (m->v22.state == SMDSP_V22BIS_FAILED)
		hangup(m, SMDSP_CAUSE_CARRIER_LOST);
	else if (m->phase == SMDSP_PHASE_TRAINING && m->t >= MS(m->calling ? 15000 : 30000))
		hangup(m, SMDSP_CAUSE_TRAINING_FAILED);
}

static void do_connected(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	run_pump(m, rx, tx, n);
	if (m->pump == PUMP_V22) {
		if (m->v22.state == SMDSP_V22BIS_FAILED) {
			set_phase(m, SMDSP_PHASE_CARRIER_LOST, 0);
			hangup(m, SMDSP_CAUSE_CARRIER_LOST);
		} else if (m->phase == SMDSP_PHASE_RETRAIN && m->t >= MS(10000)) {
			hangup(m, SMDSP_CAUSE_TRAINING_FAILED);
		}
	} else if (m->pump == PUMP_V21) {
		m->fsk_carrier_t = smdsp_fsk_rx_carrier(&m->fsk_rx) ? 0 : m->fsk_carrier_t + n;
		if (m->fsk_carrier_t >= MS(200)) {
			set_phase(m, SMDSP_PHASE_CARRIER_LOST, 0);
			hangup(m, SMDSP_CAUSE_CARRIER_LOST);
		}
	}
}

static void step(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	switch (m->phase) {
	case SMDSP_PHASE_ONHOOK:
	case SMDSP_PHASE_HUNGUP:
		do_onhook(m, rx, tx, n);
		break;
	case SMDSP_PHASE_OFFHOOK:
		do_offhook(m, rx, tx, n);
		break;
	case SMDSP_PHASE_DIALING:
		do_dialing(m, rx, tx, n);
		break;
	case SMDSP_PHASE_WAITING:
		do_waiting(m, rx, tx, n);
		break;
	case SMDSP_PHASE_ANSWER_TONE:
		do_answer_tone(m, rx, tx, n);
		break;
	case SMDSP_PHASE_V8:
	case SMDSP_PHASE_TRAINING:
		do_training(m, rx, tx, n);
		break;
	case SMDSP_PHASE_CONNECTED:
	case SMDSP_PHASE_RETRAIN:
	case SMDSP_PHASE_CARRIER_LOST:
		do_connected(m, rx, tx, n);
		break;
	}
	m->t += n;
	m->now += n;
}

int smdsp_modem_process(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	if (!m || (n && (!rx || !tx)))
		return -EINVAL;
	while (n) {
		unsigned int k = n < CHUNK ? n : CHUNK;

		step(m, rx, tx, k);
		rx += k;
		tx += k;
		n -= k;
	}
	return 0;
}

unsigned int smdsp_modem_period(const struct smdsp_modem *m)
{
	/* ring detection wants short periods; everything else 12.5 ms */
	return m->phase == SMDSP_PHASE_ONHOOK ? SMDSP_RATE / 400 : SMDSP_RATE / 80;
}

enum smdsp_modem_phase smdsp_modem_phase(const struct smdsp_modem *m)
{
	return m->phase;
}

bool smdsp_modem_offhook(const struct smdsp_modem *m)
{
	return m->phase != SMDSP_PHASE_ONHOOK && m->phase != SMDSP_PHASE_HUNGUP;
}

unsigned int smdsp_modem_rate(const struct smdsp_modem *m)
{
	return m->phase == SMDSP_PHASE_CONNECTED ? m->rate : 0;
}

unsigned int smdsp_modem_write(struct smdsp_modem *m, const uint8_t *buf, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		if (!fifo_put(&m->txq, buf[i]))
			break;
	return i;
}

unsigned int smdsp_modem_read(struct smdsp_modem *m, uint8_t *buf, unsigned int len)
{
	unsigned int i;
	int b;

	for (i = 0; i < len; i++) {
		b = fifo_get(&m->rxq);
		if (b < 0)
			break;
		buf[i] = (uint8_t)b;
	}
	return i;
}

unsigned int smdsp_modem_write_space(const struct smdsp_modem *m)
{
	return fifo_space(&m->txq);
}

unsigned int smdsp_modem_read_avail(const struct smdsp_modem *m)
{
	return fifo_used(&m->rxq);
}

bool smdsp_modem_get_event(struct smdsp_modem *m, struct smdsp_modem_event *ev)
{
	if (m->ev_tail == m->ev_head)
		return false;
	*ev = m->evq[m->ev_tail];
	m->ev_tail = (m->ev_tail + 1) % EVQ_SIZE;
	return true;
}

struct smdsp_modem *smdsp_modem_create(const struct smdsp_modem_config *cfg)
{
	struct smdsp_async_config ac = {
		.data_bits = 8, .parity = SMDSP_ASYNC_PARITY_NONE, .stop_bits = 1,
		.v14 = 1, .v14_interval = 0,
	};
	struct smdsp_modem *m;

	if (!cfg || (cfg->sample_rate && cfg->sample_rate != SMDSP_RATE))
		return NULL;
	m = smdsp_alloc(sizeof(*m));
	if (!m)
		return NULL;
	m->cfg = *cfg;
	m->cfg.sample_rate = SMDSP_RATE;
	if (!m->cfg.modulations)
		m->cfg.modulations = SMDSP_MODEM_V21 | SMDSP_MODEM_V22 | SMDSP_MODEM_V22BIS;
	if (!m->cfg.tx_level_dbm0_10)
		m->cfg.tx_level_dbm0_10 = -130;
	if (!m->cfg.wait_answer_ms)
		m->cfg.wait_answer_ms = 45000;
	m->atx = smdsp_async_tx_create(&ac, atx_get_byte, m);
	m->arx = smdsp_async_rx_create(&ac, arx_put_byte, m);
	if (!m->atx || !m->arx) {
		smdsp_modem_free(m);
		return NULL;
	}
	smdsp_ring_init(&m->ring);
	m->phase = SMDSP_PHASE_ONHOOK;
	return m;
}

void smdsp_modem_free(struct smdsp_modem *m)
{
	if (!m)
		return;
	smdsp_async_tx_free(m->atx);
	smdsp_async_rx_free(m->arx);
	smdsp_free(m);
}
