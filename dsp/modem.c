// SPDX-License-Identifier: GPL-2.0
/*
 * Modem engine: call set-up (ring detection, dial tone, DTMF dialling,
 * call progress, answer tone, V.8), the data pump (V.21, V.22, V.22bis,
 * V.32 and V.32bis) and the byte stream (V.42 LAPM, or start-stop framing
 * with V.14 rate adaption), driven by one call per audio period.
 *
 * Everything is allocated by smdsp_modem_create(); processing and commands
 * never allocate (the V.8 and V.42 blocks are reset in place for each
 * call), so the engine can run in any kernel context.
 *
 * V.32bis comes after V.8 when both ends offer it (V.8's V.32 mode), or
 * without V.8 by its automode: the answerer sends AC after the answer
 * tone and, hearing no AA within SMDSP_MODEM_AUTO_AC_MS, V.22bis; the
 * caller listens for both, AC with V.32bis's start-up and V.22bis's
 * unscrambled ones with its receiver, and goes with the first it hears.
 * V.32bis chooses its rate itself (the best both ends offer that the line
 * allows) and retrains by itself on a worsening line; the engine follows
 * its status (RETRAIN, then CONNECTED at the new rate).
 */
#include <smdsp/modem.h>
#include <smdsp/private/tone.h>
#include <smdsp/private/dtmf.h>
#include <smdsp/private/anstone.h>
#include <smdsp/private/ring.h>
#include <smdsp/private/callprog.h>
#include <smdsp/private/fsk.h>
#include <smdsp/private/v22bis.h>
#include <smdsp/private/v32bis.h>
#include <smdsp/async.h>
#include <smdsp/v42.h>
#include <smdsp/v8.h>

#define FIFO_SIZE	4096	/* power of two */
#define EVQ_SIZE	32
#define CHUNK		40	/* 5 ms: granularity of the call set-up timers */
#define MS(ms)		((uint32_t)(ms) * (SMDSP_RATE / 1000))
/*
 * A break in the loop shorter than this is a hook flash to the exchange, not
 * a clear-down: a dial right after a hang-up stays on hook until the line
 * has seen this much of it (smline clears after 300 ms of open loop).
 */
#define HOOK_GUARD	MS(1000)
/*
 * V.42 queues: the engine's FIFOs do the buffering, so these only need to
 * keep the window moving between two chunks (the receive side must hold
 * two maximum information fields).
 */
#define V42_TXQ		512
#define V42_RXQ		1024
/*
 * V.42 detection (T400). The originator waits for ADP for its ODP, the
 * characters and a round trip at the line rate; the answerer waits for an
 * ODP from an originator that may enter data mode later (V.22: 765 ms).
 */
#define T400_CALLER_MS	1500
#define T400_V21_MS	2000
#define T400_ANSWER_MS	2000	/* on top of the originator's */
/* async characters that arrive while V.42 detection runs: 3.5 s at 2400 bit/s */
#define DET_BUF		1024
/* a plain ANS (no AM) heard this long: the answerer does not do V.8 */
#define V8_ANS_MS	600
#define ANSAM_MS	5200	/* longer than V.8's 5 s: the V.8 block ends it */
#define SHUTTLE		32	/* bytes moved per copy between the FIFOs and V.42 */
/*
 * The originator's detection pattern (ODP) is DC1 with even and with odd
 * parity, which 8N1 framing reads as these two bytes.  A peer without V.42
 * that echoes (a host's login line, an echo service) sends it back, and
 * what is still on its way back when T400 expires arrives within a round
 * trip: an echo runs at least ODP_ECHO_MIN bytes, and is waited for at
 * most ODP_ECHO_MS.
 */
#define ODP_1		0x11
#define ODP_2		0x91
#define ODP_ECHO_MIN	2
#define ODP_ECHO_MS	1000

enum data_pump {
	PUMP_NONE = 0,
	PUMP_V21,
	PUMP_V22,
	PUMP_V32,	/* V.32 or V.32bis, start-up included */
};

enum v8_run {
	V8_IDLE = 0,		/* not used in this call, or over */
	V8_RUNNING,
};

/* Where the dial string is, in the dialling phase. */
enum dial_step {
	DIAL_TONES = 0,		/* DTMF up to the next ',' or 'W' */
	DIAL_PAUSE,		/* ',' */
	DIAL_WAIT_TONE,		/* 'W': listening for a dial tone */
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
	uint32_t onhook_t;	/* samples on hook, up to HOOK_GUARD */
	uint32_t hook_wait;	/* a dial's remaining wait on hook */
	uint32_t async_idle;	/* mark bits still to send before async data */
	bool calling;
	bool tone_done;		/* answerer: ANS sent / caller: ANS heard and gone */
	bool tone_started;	/* answerer: the billing delay is over */
	uint32_t tone_end;	/* caller: phase time when the answer tone stopped */
	enum data_pump pump;
	unsigned int rate;
	char digits[64];
	unsigned int dial_pos;	/* next character of digits[] */
	enum dial_step dial_step;
	uint32_t dial_t;	/* samples into the pause or the wait */

	struct smdsp_ring ring;
	struct smdsp_callprog cpt;
	struct smdsp_dtmf_tx dtmf;
	struct smdsp_anstone_rx ans_rx;
	struct smdsp_tone ans_tx;
	struct smdsp_fsk_tx fsk_tx;
	struct smdsp_fsk_rx fsk_rx;
	uint32_t fsk_carrier_t;
	struct smdsp_v22bis v22;
	struct smdsp_v32bis v32;
	/* caller without V.8: V.32bis's start-up listens for AC beside V.22bis */
	bool v32_listen;
	bool v32_heard;		/* its start-up began: AC heard (caller), AA heard (answerer) */
	/* answerer without V.8: AC, then V.22bis if no AA came */
	bool v32_auto;
	bool v32_used;		/* this call: V.32bis's start-up ran (its canceller's figures) */
	unsigned int last_n;	/* the last smdsp_modem_process() call's length */
	struct smdsp_async_tx *atx;
	struct smdsp_async_rx *arx;

	/* V.8 */
	struct smdsp_v8 *v8;
	enum v8_run v8_run;
	bool v8_used;
	bool v8_lapm;		/* V.8 agreed on LAPM: V.42 without detection */
	bool v8_no_lapm;	/* V.8 ran and LAPM is not on */
	int v8_sig;		/* what was sent in the previous chunk */

	/* the byte stream over the modulation */
	enum smdsp_modem_link link;
	bool link_up;		/* started in this call (kept through retrains) */
	struct smdsp_v42 *v42;
	int v42_status;		/* last seen; -1: no V.42 in this call */
	uint8_t det_buf[DET_BUF];
	unsigned int det_len;
	uint32_t det_dropped;
	uint32_t odp_echoed;
	bool odp_echo;		/* our ODP may still come back, until odp_echo_end */
	uint32_t odp_echo_end;
	uint32_t carrier_losses;
	uint32_t rx_overruns;

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

static bool is_odp(int byte)
{
	return byte == ODP_1 || byte == ODP_2;
}

static void arx_put_byte(void *user, int byte)
{
	struct smdsp_modem *m = user;

	if (byte < 0)
		return;
	if (m->odp_echo) {
		/* the echo ends with the first other byte, or in time */
		if (is_odp(byte) && (int32_t)(m->now - m->odp_echo_end) < 0) {
			m->odp_echoed++;
			return;
		}
		m->odp_echo = false;
	}
	if (m->link == SMDSP_LINK_V42) {
		/* V.42 detection: user data if the peer turns out to have no V.42 */
		if (m->det_len < DET_BUF)
			m->det_buf[m->det_len++] = (uint8_t)byte;
		else
			m->det_dropped++;
		return;
	}
	if (!fifo_put(&m->rxq, (uint8_t)byte))
		m->rx_overruns++;
}

static int data_get_bit(void *user)
{
	struct smdsp_modem *m = user;

	switch (m->link) {
	case SMDSP_LINK_V42:
		return smdsp_v42_get_bit(m->v42);
	case SMDSP_LINK_ASYNC:
		if (m->async_idle) {
			m->async_idle--;
			return 1;
		}
		return smdsp_async_tx_get_bit(m->atx);
	default:
		return 1;
	}
}

static void link_start(struct smdsp_modem *m);

static void data_put_bit(void *user, int bit)
{
	struct smdsp_modem *m = user;

	/*
	 * The far end may be in data mode before we are (its training ended
	 * first): its first characters or frames arrive now.
	 */
	if (m->link == SMDSP_LINK_NONE && !m->link_up)
		link_start(m);
	switch (m->link) {
	case SMDSP_LINK_V42:
		smdsp_v42_put_bit(m->v42, bit);
		if (m->v42_status == SMDSP_V42_DETECTING)
			smdsp_async_rx_put_bit(m->arx, bit);
		break;
	case SMDSP_LINK_ASYNC:
		smdsp_async_rx_put_bit(m->arx, bit);
		break;
	default:
		break;
	}
}

static int v8_get_bit(void *user)
{
	struct smdsp_modem *m = user;

	return smdsp_v8_get_bit(m->v8);
}

static void v8_put_bit(void *user, int bit)
{
	struct smdsp_modem *m = user;

	smdsp_v8_put_bit(m->v8, bit);
}

/*
 * Marks before the first start bit of an async link: the far receiver
 * frames on a start bit after idle line, and a V.21 caller's data would
 * otherwise follow its carrier's first bit (150 ms, at least 40 bits).
 */
static void async_idle_start(struct smdsp_modem *m)
{
	m->async_idle = m->rate * 15 / 100;
	if (m->async_idle < 40)
		m->async_idle = 40;
}

static void link_async(struct smdsp_modem *m)
{
	async_idle_start(m);
	smdsp_async_tx_reset(m->atx);
	smdsp_async_rx_reset(m->arx);
	m->link = SMDSP_LINK_ASYNC;
}

/* Connected for the first time in this call: V.42 or plain async. */
static void link_start(struct smdsp_modem *m)
{
	struct smdsp_v42_config c;

	m->link_up = true;
	m->det_len = 0;
	smdsp_async_rx_reset(m->arx);
	if (!m->rate)
		m->rate = m->pump == PUMP_V22 ? m->v22.rate :
			  m->pump == PUMP_V32 ? smdsp_v32bis_rate(&m->v32) : 300;
	if (!(m->cfg.flags & SMDSP_MODEM_FLAG_V42) || m->v8_no_lapm) {
		link_async(m);
		return;
	}
	memset(&c, 0, sizeof(c));
	c.calling = m->calling;
	c.detect = !m->v8_lapm;
	c.bit_rate = m->rate;
	c.srej = 1;
	c.v42bis = m->cfg.v42bis_dirs != 0;
	c.v42bis_dirs = m->cfg.v42bis_dirs;
	c.v42bis_p1 = m->cfg.v42bis_p1;
	c.v42bis_p2 = m->cfg.v42bis_p2;
	c.t400_ms = m->rate <= 300 ? T400_V21_MS : T400_CALLER_MS;
	if (!m->calling)
		c.t400_ms += T400_ANSWER_MS;
	if (smdsp_v42_reset(m->v42, &c)) {
		link_async(m);
		return;
	}
	m->v42_status = smdsp_v42_status(m->v42);
	m->link = SMDSP_LINK_V42;
}

static void hangup(struct smdsp_modem *m, enum smdsp_modem_cause cause);

/* Moves bytes between the user's FIFOs and V.42, and follows its state. */
static void link_service(struct smdsp_modem *m)
{
	uint8_t buf[SHUTTLE];
	unsigned int n, i, space;
	int st;
	int b;

	if (m->link != SMDSP_LINK_V42)
		return;
	st = smdsp_v42_status(m->v42);
	if (st != m->v42_status) {
		m->v42_status = st;
		if (st == SMDSP_V42_CONNECTED) {
			/* what the async receiver made of ODP/ADP is no data */
			m->det_len = 0;
			event(m, SMDSP_EV_V42, 1);
		} else if (st == SMDSP_V42_NO_V42) {
			event(m, SMDSP_EV_V42, 0);
			m->link = SMDSP_LINK_ASYNC;
			async_idle_start(m);
			smdsp_async_tx_reset(m->atx);
			i = 0;
			if (m->calling) {
				while (i < m->det_len && is_odp(m->det_buf[i]))
					i++;
				if (i < ODP_ECHO_MIN) {
					i = 0;
				} else {
					m->odp_echoed += i;
					m->odp_echo = true;
					m->odp_echo_end = m->now + MS(ODP_ECHO_MS);
				}
			}
			for (; i < m->det_len; i++)
				if (!fifo_put(&m->rxq, m->det_buf[i]))
					m->rx_overruns++;
			m->det_len = 0;
			return;
		} else if (st == SMDSP_V42_ESTABLISHING) {
			m->det_len = 0;
		}
	}
	if (st == SMDSP_V42_CONNECTED) {
		for (;;) {
			n = smdsp_v42_tx_space(m->v42);
			if (n > SHUTTLE)
				n = SHUTTLE;
			for (i = 0; i < n; i++) {
				b = fifo_get(&m->txq);
				if (b < 0)
					break;
				buf[i] = (uint8_t)b;
			}
			if (!i)
				break;
			smdsp_v42_write(m->v42, buf, i);
		}
	}
	for (;;) {
		space = fifo_space(&m->rxq);
		if (space > SHUTTLE)
			space = SHUTTLE;
		n = space ? smdsp_v42_read(m->v42, buf, space) : 0;
		if (!n)
			break;
		for (i = 0; i < n; i++)
			fifo_put(&m->rxq, buf[i]);
	}
	if (st == SMDSP_V42_DISCONNECTED || st == SMDSP_V42_FAILED)
		hangup(m, SMDSP_CAUSE_V42_RELEASED);
}

/* ---- the pumps ---- */

static void connected(struct smdsp_modem *m, unsigned int rate)
{
	m->rate = rate;
	set_phase(m, SMDSP_PHASE_CONNECTED, rate);
	if (!m->link_up)
		link_start(m);
}

static void carrier_lost(struct smdsp_modem *m)
{
	m->carrier_losses++;
	set_phase(m, SMDSP_PHASE_CARRIER_LOST, 0);
}

static void v22_status(void *user, enum smdsp_status st)
{
	struct smdsp_modem *m = user;

	switch (st) {
	case SMDSP_STATUS_TRAINED:
		connected(m, smdsp_v22bis_rate(&m->v22));
		break;
	case SMDSP_STATUS_RETRAIN:
		if (m->phase == SMDSP_PHASE_CONNECTED)
			set_phase(m, SMDSP_PHASE_RETRAIN, 0);
		break;
	case SMDSP_STATUS_CARRIER_DOWN:
		if (m->phase == SMDSP_PHASE_CONNECTED)
			carrier_lost(m);
		break;
	case SMDSP_STATUS_CARRIER_UP:
		if (m->phase == SMDSP_PHASE_CARRIER_LOST)
			set_phase(m, SMDSP_PHASE_CONNECTED, m->rate);
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
	c.guard = SMDSP_V22BIS_GUARD_NONE;
	c.hold_on_loss = true;
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

/* The V.32/V.32bis rates this end offers (SMDSP_V32BIS_*), 0: no V.32 at all. */
static unsigned int v32_rates(const struct smdsp_modem *m)
{
	static const unsigned int bps[5] = { 4800, 7200, 9600, 12000, 14400 };
	unsigned int r = 0, k;

	if (m->cfg.modulations & SMDSP_MODEM_V32BIS)
		r = SMDSP_V32BIS_ALL;
	if (m->cfg.modulations & SMDSP_MODEM_V32)
		r |= SMDSP_V32BIS_4800 | SMDSP_V32BIS_9600;
	for (k = 0; k < 5; k++)
		if (bps[k] < m->cfg.min_rate || (m->cfg.max_rate && bps[k] > m->cfg.max_rate))
			r &= ~(1u << k);
	return r;
}

static bool has_v22(const struct smdsp_modem *m)
{
	return m->cfg.modulations & (SMDSP_MODEM_V22 | SMDSP_MODEM_V22BIS);
}

static void v32_status(void *user, enum smdsp_status st)
{
	struct smdsp_modem *m = user;

	switch (st) {
	case SMDSP_STATUS_TRAINING:
		m->v32_heard = true;
		break;
	case SMDSP_STATUS_TRAINED:
		connected(m, smdsp_v32bis_rate(&m->v32));
		break;
	case SMDSP_STATUS_RETRAIN:
		/* a carrier already lost stays lost: its time runs on */
		if (m->phase == SMDSP_PHASE_CONNECTED)
			set_phase(m, SMDSP_PHASE_RETRAIN, 0);
		break;
	default:
		break;
	}
}

/* V.32bis's start-up from its beginning: the answerer's AC at once, the caller listening. */
static void init_v32(struct smdsp_modem *m)
{
	struct smdsp_v32bis_config c;
	unsigned int lat;

	memset(&c, 0, sizeof(c));
	c.caller = m->calling;
	c.rates = v32_rates(m);
	c.level_dbm0_10 = m->cfg.tx_level_dbm0_10;
	c.get_bit = data_get_bit;
	c.put_bit = data_put_bit;
	c.status_fn = v32_status;
	c.user = m;
	/*
	 * The canceller's near window sits the I/O loop's latency behind what
	 * was sent: the user's, or the period's, never the CHUNK this engine
	 * hands V.32bis its samples in.
	 */
	lat = m->cfg.echo_latency ? m->cfg.echo_latency : m->last_n;
	c.four_wire = m->cfg.four_wire;
	c.echo_latency = lat > SMDSP_V32BIS_MAX_LATENCY ? SMDSP_V32BIS_MAX_LATENCY + 1 : (int)lat;
	smdsp_v32bis_init(&m->v32, &c);
	m->v32_heard = false;
	m->v32_used = true;
}

static void start_v32(struct smdsp_modem *m)
{
	init_v32(m);
	m->v32_listen = false;
	m->v32_auto = false;
	m->pump = PUMP_V32;
}

static void hangup(struct smdsp_modem *m, enum smdsp_modem_cause cause)
{
	m->pump = PUMP_NONE;
	m->v32_listen = false;
	m->v32_auto = false;
	m->rate = 0;
	m->v8_run = V8_IDLE;
	/* the link stays as it was, for the statistics of this call */
	if (m->link == SMDSP_LINK_V42)
		m->v42_status = smdsp_v42_status(m->v42);
	set_phase(m, SMDSP_PHASE_HUNGUP, cause);
	/* what was queued for this call is gone with it */
	m->txq.tail = m->txq.head;
	smdsp_ring_init(&m->ring);
	set_phase(m, SMDSP_PHASE_ONHOOK, 0);
}

static void go_offhook(struct smdsp_modem *m, bool calling)
{
	m->onhook_t = 0;
	m->hook_wait = 0;
	m->calling = calling;
	m->rate = 0;
	m->tone_done = false;
	m->tone_started = false;
	m->pump = PUMP_NONE;
	m->v32_listen = false;
	m->v32_auto = false;
	m->rxq.tail = m->rxq.head;
	m->link = SMDSP_LINK_NONE;
	m->link_up = false;
	m->v42_status = -1;
	m->det_len = 0;
	m->det_dropped = 0;
	m->odp_echoed = 0;
	m->odp_echo = false;
	m->carrier_losses = 0;
	m->rx_overruns = 0;
	m->v8_run = V8_IDLE;
	m->v8_used = false;
	m->v32_used = false;
	m->v8_lapm = false;
	m->v8_no_lapm = false;
	m->v8_sig = -1;
	smdsp_async_tx_reset(m->atx);
	smdsp_async_rx_reset(m->arx);
	smdsp_callprog_init(&m->cpt, m->cfg.tone_plan);
	smdsp_anstone_rx_init(&m->ans_rx, 2100000);
}

/* ---- V.8 ---- */

static unsigned int v8_modes(const struct smdsp_modem *m)
{
	unsigned int mods = 0;

	if (v32_rates(m))
		mods |= SMDSP_V8_MOD_V32;
	if (m->cfg.modulations & (SMDSP_MODEM_V22 | SMDSP_MODEM_V22BIS))
		mods |= SMDSP_V8_MOD_V22;
	if (m->cfg.modulations & SMDSP_MODEM_V21)
		mods |= SMDSP_V8_MOD_V21;
	return mods;
}

static bool v8_start(struct smdsp_modem *m)
{
	struct smdsp_v8_config c;

	memset(&c, 0, sizeof(c));
	c.calling = m->calling;
	c.modulations = v8_modes(m);
	c.lapm = !!(m->cfg.flags & SMDSP_MODEM_FLAG_V42);
	c.send_ci = m->calling;
	c.sample_rate = SMDSP_RATE;
	if (smdsp_v8_reset(m->v8, &c))
		return false;
	m->v8_run = V8_RUNNING;
	m->v8_used = true;
	m->v8_sig = -1;
	smdsp_fsk_rx_init(&m->fsk_rx, m->calling ? SMDSP_V21_CH2 : SMDSP_V21_CH1,
			  v8_put_bit, NULL, m);
	return true;
}

/* One chunk of V.8 signals: V.21 both ways, ANSam from the answerer. */
static void v8_chunk(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	int sig = smdsp_v8_tx_signal(m->v8);

	if (sig == SMDSP_V8_TX_V21) {
		/* each burst starts from a clean bit clock */
		if (m->v8_sig != SMDSP_V8_TX_V21)
			smdsp_fsk_tx_init(&m->fsk_tx, smdsp_v8_tx_channel(m->v8) == 1 ?
					  SMDSP_V21_CH1 : SMDSP_V21_CH2,
					  m->cfg.tx_level_dbm0_10, v8_get_bit, m);
		smdsp_fsk_tx_process(&m->fsk_tx, tx, n);
	} else if (sig == SMDSP_V8_TX_ANSAM) {
		if (m->v8_sig != SMDSP_V8_TX_ANSAM) {
			struct smdsp_tone_desc d;

			smdsp_anstone_desc(&d, SMDSP_ANS_ANSAM_PR, -120, ANSAM_MS);
			smdsp_tone_init(&m->ans_tx, &d);
		}
		smdsp_tone_process(&m->ans_tx, tx, n);
	} else {
		memset(tx, 0, n * sizeof(*tx));
	}
	m->v8_sig = sig;
	smdsp_fsk_rx_process(&m->fsk_rx, rx, n);
	smdsp_v8_advance(m->v8, n);
}

/* V.8 is over: start what it chose, or the V.25 start-up without it. */
static void v8_end(struct smdsp_modem *m)
{
	struct smdsp_v8_result r;

	smdsp_v8_get_result(m->v8, &r);
	m->v8_run = V8_IDLE;
	event(m, SMDSP_EV_V8, (uint32_t)r.status);
	if (r.status == SMDSP_V8_FAILED) {
		hangup(m, SMDSP_CAUSE_TRAINING_FAILED);
		return;
	}
	if (r.status != SMDSP_V8_DONE)
		return;
	m->v8_lapm = r.lapm;
	m->v8_no_lapm = !r.lapm;
	m->tone_done = true;
	if (r.selected == SMDSP_V8_MOD_V32 && v32_rates(m)) {
		/*
		 * A peer's JM may offer back what it cannot run (SpanDSP
		 * 0.0.6's echoes our CM): V.22bis stays possible, as in the
		 * automode, when both named it.
		 */
		if (m->calling && has_v22(m) && (r.common & SMDSP_V8_MOD_V22)) {
			start_v22(m);
			init_v32(m);
			m->v32_listen = true;
		} else {
			start_v32(m);
			m->v32_auto = has_v22(m) && (r.common & SMDSP_V8_MOD_V22);
		}
	} else if (r.selected == SMDSP_V8_MOD_V22 && (m->cfg.modulations &
					      (SMDSP_MODEM_V22 | SMDSP_MODEM_V22BIS))) {
		start_v22(m);
	} else if (r.selected == SMDSP_V8_MOD_V21 && (m->cfg.modulations & SMDSP_MODEM_V21)) {
		start_v21(m);
	} else {
		hangup(m, SMDSP_CAUSE_TRAINING_FAILED);
		return;
	}
	set_phase(m, SMDSP_PHASE_TRAINING, 0);
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
	n = HOOK_GUARD - m->onhook_t;
	go_offhook(m, true);
	m->hook_wait = n;
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

static bool dial_digit(char c)
{
	return (c >= '0' && c <= '9') || c == '*' || c == '#' || (c >= 'A' && c <= 'D') ||
	       (c >= 'a' && c <= 'd');
}

static bool dial_stop(char c)
{
	return c == ',' || c == 'W' || c == 'w';
}

/*
 * The DTMF digits up to the next ',' or 'W' (or as many as the generator
 * queues: the rest is the next segment); returns how many.  The generator
 * would take a ',' for a fixed 2 s pause of its own, so it only ever gets
 * digits.
 */
static unsigned int dial_segment(struct smdsp_modem *m)
{
	char seg[SMDSP_DTMF_QUEUE];
	unsigned int n = 0;
	char c;

	while ((c = m->digits[m->dial_pos]) != '\0' && !dial_stop(c) &&
	       n + 1 < SMDSP_DTMF_QUEUE) {
		if (dial_digit(c))
			seg[n++] = c;
		m->dial_pos++;
	}
	seg[n] = '\0';
	smdsp_dtmf_tx_init(&m->dtmf);
	smdsp_dtmf_tx_put(&m->dtmf, seg);
	return n;
}

static void dial_done(struct smdsp_modem *m);

/*
 * What the dial string asks for next: digits, a pause, a wait for a dial
 * tone, or nothing more (then the answer is awaited).  Each step starts at
 * once, so a pause lasts what S8 says and no chunk is lost in between.
 */
static void dial_advance(struct smdsp_modem *m)
{
	char c;

	for (;;) {
		c = m->digits[m->dial_pos];
		if (c == '\0') {
			dial_done(m);
			return;
		}
		if (dial_stop(c)) {
			m->dial_pos++;
			m->dial_t = 0;
			if (c == ',') {
				m->dial_step = DIAL_PAUSE;
			} else {
				/* the dial tone went with the first digit: a new one */
				smdsp_callprog_init(&m->cpt, m->cfg.tone_plan);
				m->dial_step = DIAL_WAIT_TONE;
			}
			return;
		}
		if (dial_segment(m)) {
			m->dial_step = DIAL_TONES;
			return;
		}
	}
}

static void do_offhook(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	enum smdsp_callprog_event e;
	bool blind = m->cfg.flags & SMDSP_MODEM_FLAG_BLIND;

	memset(tx, 0, n * sizeof(*tx));
	if (m->hook_wait) {
		/* still on hook; the waits below count from going off hook */
		m->hook_wait -= n < m->hook_wait ? n : m->hook_wait;
		m->t = 0;
		return;
	}
	e = smdsp_callprog_process(&m->cpt, rx, n);
	if (e != SMDSP_CALLPROG_NONE)
		event(m, SMDSP_EV_CALL_PROGRESS, e);
	if (e == SMDSP_CALLPROG_DIALTONE || (blind && m->t >= MS(m->cfg.blind_wait_ms))) {
		m->dial_pos = 0;
		set_phase(m, SMDSP_PHASE_DIALING, 0);
		dial_advance(m);
	} else if (m->t >= MS(m->cfg.dialtone_wait_ms)) {
		hangup(m, SMDSP_CAUSE_NO_DIALTONE);
	}
}

/* The V.25 caller: V.22bis silent until it hears the answerer, V.21 listening. */
static void legacy_caller(struct smdsp_modem *m)
{
	m->pump = PUMP_NONE;
	if (m->cfg.modulations & (SMDSP_MODEM_V22 | SMDSP_MODEM_V22BIS))
		start_v22(m);
	if (v32_rates(m)) {
		init_v32(m);
		m->v32_listen = true;
	}
	if (m->cfg.modulations & SMDSP_MODEM_V21) {
		smdsp_fsk_rx_init(&m->fsk_rx, SMDSP_V21_CH2, NULL, NULL, m);
		m->fsk_carrier_t = 0;
	}
}

/* Dialled: call progress, and V.8 or the V.25 start-up. */
static void dial_done(struct smdsp_modem *m)
{
	smdsp_callprog_init(&m->cpt, m->cfg.tone_plan);
	set_phase(m, SMDSP_PHASE_WAITING, 0);
	if (!(m->cfg.flags & SMDSP_MODEM_FLAG_V8) || !v8_start(m))
		legacy_caller(m);
}

static void do_dialing(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	enum smdsp_callprog_event e;

	switch (m->dial_step) {
	case DIAL_TONES:
		if (smdsp_dtmf_tx_process(&m->dtmf, tx, n) == 0)
			dial_advance(m);
		return;
	case DIAL_PAUSE:
		memset(tx, 0, n * sizeof(*tx));
		m->dial_t += n;
		if (m->dial_t >= MS(m->cfg.comma_ms))
			dial_advance(m);
		return;
	case DIAL_WAIT_TONE:
		memset(tx, 0, n * sizeof(*tx));
		e = smdsp_callprog_process(&m->cpt, rx, n);
		if (e != SMDSP_CALLPROG_NONE)
			event(m, SMDSP_EV_CALL_PROGRESS, e);
		m->dial_t += n;
		if (e == SMDSP_CALLPROG_BUSY || e == SMDSP_CALLPROG_CONGESTION)
			hangup(m, SMDSP_CAUSE_BUSY);
		else if (e == SMDSP_CALLPROG_DIALTONE)
			dial_advance(m);
		else if (m->dial_t >= MS(m->cfg.dialtone_wait_ms))
			hangup(m, SMDSP_CAUSE_NO_DIALTONE);
		return;
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
	case PUMP_V32:
		smdsp_v32bis_process(&m->v32, rx, tx, n);
		break;
	default:
		memset(tx, 0, n * sizeof(*tx));
		break;
	}
}

/* Calling modem, dialled: call progress, answer tone, then the far modem. */
static void do_waiting(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	enum smdsp_callprog_event e = smdsp_callprog_process(&m->cpt, rx, n);
	enum smdsp_anstone_kind k;

	smdsp_anstone_rx_process(&m->ans_rx, rx, n);
	k = smdsp_anstone_rx_kind(&m->ans_rx);
	if (m->phase == SMDSP_PHASE_WAITING && k != SMDSP_ANS_NONE) {
		event(m, SMDSP_EV_ANSWER_TONE, k);
		set_phase(m, SMDSP_PHASE_ANSWER_TONE, k);
	} else if (m->phase == SMDSP_PHASE_ANSWER_TONE && k == SMDSP_ANS_NONE && !m->tone_done) {
		m->tone_done = true;
		m->tone_end = m->t;
	}
	if (e == SMDSP_CALLPROG_BUSY || e == SMDSP_CALLPROG_CONGESTION) {
		event(m, SMDSP_EV_CALL_PROGRESS, e);
		hangup(m, SMDSP_CAUSE_BUSY);
		return;
	}
	if (e != SMDSP_CALLPROG_NONE)
		event(m, SMDSP_EV_CALL_PROGRESS, e);
	if (m->v8_run == V8_RUNNING) {
		if (k == SMDSP_ANS_ANSAM || k == SMDSP_ANS_ANSAM_PR) {
			smdsp_v8_answer_tone(m->v8, SMDSP_V8_TONE_ANSAM);
		} else if (k != SMDSP_ANS_NONE &&
			   smdsp_anstone_rx_tone_ms(&m->ans_rx) >= V8_ANS_MS) {
			/* no AM after three of its periods: a V.25 answerer */
			smdsp_v8_answer_tone(m->v8, SMDSP_V8_TONE_ANS);
		}
		v8_chunk(m, rx, tx, n);
		switch (smdsp_v8_status(m->v8)) {
		case SMDSP_V8_IN_PROGRESS:
			/* ANSam taken: CM/JM/CJ from here on */
			if (smdsp_v8_tx_signal(m->v8) == SMDSP_V8_TX_SILENCE &&
			    m->phase == SMDSP_PHASE_ANSWER_TONE &&
			    (k == SMDSP_ANS_ANSAM || k == SMDSP_ANS_ANSAM_PR))
				set_phase(m, SMDSP_PHASE_V8, 0);
			break;
		case SMDSP_V8_NON_V8:
			v8_end(m);
			legacy_caller(m);
			break;
		default:
			v8_end(m);
			break;
		}
		if (m->phase == SMDSP_PHASE_WAITING && m->t >= MS(m->cfg.wait_answer_ms))
			hangup(m, SMDSP_CAUSE_NO_ANSWER);
		return;
	}
	if (m->v32_listen) {
		/* silent until AC; then its AA goes out in this very chunk */
		smdsp_v32bis_process(&m->v32, rx, tx, n);
		if (m->v32_heard) {
			m->v32_listen = false;
			m->pump = PUMP_V32;
			set_phase(m, SMDSP_PHASE_TRAINING, 0);
			return;
		}
	}
	if (m->pump == PUMP_V22) {
		smdsp_v22bis_process(&m->v22, rx, tx, n);
		/* unscrambled ones heard: the V.22/V.22bis handshake is on */
		if (smdsp_v22bis_handshaking(&m->v22) && m->phase != SMDSP_PHASE_TRAINING) {
			m->v32_listen = false;
			set_phase(m, SMDSP_PHASE_TRAINING, 0);
		}
	} else if (!m->v32_listen) {
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
			connected(m, 300);
			return;
		}
	}
	if (m->t >= MS(m->cfg.wait_answer_ms))
		hangup(m, SMDSP_CAUSE_NO_ANSWER);
}

/* Answering modem after the answer tone (or a V.8 that found no V.8 caller). */
static void legacy_answer(struct smdsp_modem *m)
{
	m->tone_done = true;
	if (v32_rates(m)) {
		start_v32(m);
		m->v32_auto = has_v22(m);
	} else if (has_v22(m)) {
		start_v22(m);
	} else {
		start_v21(m);
	}
	set_phase(m, SMDSP_PHASE_TRAINING, 0);
}

/* V.8 answerer: ANSam until CM, then JM until CJ. */
static void v8_answerer(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	v8_chunk(m, rx, tx, n);
	switch (smdsp_v8_status(m->v8)) {
	case SMDSP_V8_IN_PROGRESS:
		/* ANSam stopped: a CM came */
		if (m->phase == SMDSP_PHASE_ANSWER_TONE &&
		    smdsp_v8_tx_signal(m->v8) != SMDSP_V8_TX_ANSAM)
			set_phase(m, SMDSP_PHASE_V8, 0);
		break;
	case SMDSP_V8_NON_V8:
		/* ANSam was the answer tone for a V.25 caller */
		v8_end(m);
		legacy_answer(m);
		break;
	default:
		v8_end(m);
		break;
	}
}

/* Answering modem: billing delay, answer tone (or V.8), then the modulation. */
static void do_answer_tone(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	if (m->calling) {
		do_waiting(m, rx, tx, n);
		return;
	}
	if (m->v8_run == V8_RUNNING) {
		v8_answerer(m, rx, tx, n);
		return;
	}
	if (!m->tone_done) {
		if (m->cfg.flags & SMDSP_MODEM_FLAG_NO_ANS) {
			m->tone_done = true;
		} else if (m->t < MS(2000)) {
			memset(tx, 0, n * sizeof(*tx));
			return;
		} else if (!m->tone_started) {
			struct smdsp_tone_desc d;

			m->tone_started = true;
			if ((m->cfg.flags & SMDSP_MODEM_FLAG_V8) && v8_start(m)) {
				v8_answerer(m, rx, tx, n);
				return;
			}
			smdsp_anstone_desc(&d, SMDSP_ANS_ANS, -120, 3300);
			smdsp_tone_init(&m->ans_tx, &d);
		}
		if (!m->tone_done) {
			smdsp_tone_process(&m->ans_tx, tx, n);
			if (!smdsp_tone_done(&m->ans_tx))
				return;
		}
		legacy_answer(m);
		return;
	}
	memset(tx, 0, n * sizeof(*tx));
}

/* Either role, between ANSam and the modulation. */
static void do_v8(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	if (m->v8_run != V8_RUNNING) {
		memset(tx, 0, n * sizeof(*tx));
		return;
	}
	if (!m->calling) {
		v8_answerer(m, rx, tx, n);
		return;
	}
	v8_chunk(m, rx, tx, n);
	if (smdsp_v8_status(m->v8) != SMDSP_V8_IN_PROGRESS)
		v8_end(m);
}

static void do_training(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	if (m->v32_listen) {
		/* after V.8: V.32bis's AC or V.22bis's unscrambled ones, whichever comes */
		smdsp_v32bis_process(&m->v32, rx, tx, n);
		if (m->v32_heard) {
			m->v32_listen = false;
			m->pump = PUMP_V32;
			return;
		}
	}
	run_pump(m, rx, tx, n);
	if (m->v32_listen && m->pump == PUMP_V22 && smdsp_v22bis_handshaking(&m->v22))
		m->v32_listen = false;
	if (m->pump == PUMP_V21) {
		/* V.21 after the answer tone or V.8: connected once the far carrier lasted 300 ms */
		m->fsk_carrier_t = smdsp_fsk_rx_carrier(&m->fsk_rx) ? m->fsk_carrier_t + n : 0;
		if (m->fsk_carrier_t >= MS(300))
			connected(m, 300);
		else if (m->t >= MS(m->cfg.wait_answer_ms))
			hangup(m, SMDSP_CAUSE_NO_ANSWER);
		return;
	}
	if (m->pump == PUMP_V32) {
		if (smdsp_v32bis_phase(&m->v32) == SMDSP_V32BIS_PH_FAILED) {
			hangup(m, SMDSP_CAUSE_TRAINING_FAILED);
		} else if (m->v32_auto && !m->v32_heard && m->t >= MS(SMDSP_MODEM_AUTO_AC_MS)) {
			/* no AA: a caller without V.32, V.22bis's answer from here on */
			m->v32_auto = false;
			start_v22(m);
			m->t = 0;
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
	if (m->pump == PUMP_V21) {
		/* the V.21 demodulator has no loops to lose: just watch the carrier */
		if (!smdsp_fsk_rx_carrier(&m->fsk_rx)) {
			if (m->phase == SMDSP_PHASE_CONNECTED)
				carrier_lost(m);
		} else if (m->phase == SMDSP_PHASE_CARRIER_LOST) {
			set_phase(m, SMDSP_PHASE_CONNECTED, m->rate);
		}
	}
	if (m->pump == PUMP_V32) {
		bool carrier = m->v32.rx.q.det.carrier;

		if (smdsp_v32bis_phase(&m->v32) == SMDSP_V32BIS_PH_FAILED) {
			hangup(m, SMDSP_CAUSE_TRAINING_FAILED);
			return;
		}
		if (m->phase == SMDSP_PHASE_CONNECTED && !carrier)
			carrier_lost(m);
		else if (m->phase == SMDSP_PHASE_CARRIER_LOST && carrier &&
			 smdsp_v32bis_phase(&m->v32) == SMDSP_V32BIS_PH_DATA)
			set_phase(m, SMDSP_PHASE_CONNECTED, m->rate);
	}
	if (m->pump == PUMP_V22 && m->v22.state == SMDSP_V22BIS_FAILED) {
		if (m->phase != SMDSP_PHASE_CARRIER_LOST)
			carrier_lost(m);
		hangup(m, SMDSP_CAUSE_CARRIER_LOST);
		return;
	}
	if (m->phase == SMDSP_PHASE_CARRIER_LOST && m->t >= MS(m->cfg.carrier_loss_ms)) {
		hangup(m, SMDSP_CAUSE_CARRIER_LOST);
		return;
	}
	if (m->phase == SMDSP_PHASE_RETRAIN && m->t >= MS(10000)) {
		hangup(m, SMDSP_CAUSE_TRAINING_FAILED);
		return;
	}
	link_service(m);
}

static void step(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	switch (m->phase) {
	case SMDSP_PHASE_ONHOOK:
	case SMDSP_PHASE_HUNGUP:
		m->onhook_t += HOOK_GUARD - m->onhook_t < n ? HOOK_GUARD - m->onhook_t : n;
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
		do_v8(m, rx, tx, n);
		break;
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
	if (n)
		m->last_n = n;
	while (n) {
		unsigned int k = n < CHUNK ? n : CHUNK;

		step(m, rx, tx, k);
		rx += k;
		tx += k;
		n -= k;
	}
	return 0;
}

/* What the transmitter of each phase sends, without its receiver. */
static bool tx_more(struct smdsp_modem *m, int16_t *tx, unsigned int n)
{
	switch (m->phase) {
	case SMDSP_PHASE_DIALING:
		if (m->dial_step != DIAL_TONES)
			return false;
		smdsp_dtmf_tx_process(&m->dtmf, tx, n);
		return true;
	case SMDSP_PHASE_WAITING:
	case SMDSP_PHASE_ANSWER_TONE:
	case SMDSP_PHASE_V8:
		if (m->v8_run == V8_RUNNING) {
			/* what v8_chunk() sent last, it decides on the next change */
			if (m->v8_sig == SMDSP_V8_TX_V21)
				smdsp_fsk_tx_process(&m->fsk_tx, tx, n);
			else if (m->v8_sig == SMDSP_V8_TX_ANSAM)
				smdsp_tone_process(&m->ans_tx, tx, n);
			else
				return false;
			return true;
		}
		if (!m->calling && m->phase == SMDSP_PHASE_ANSWER_TONE) {
			if (!m->tone_started || m->tone_done)
				return false;
			smdsp_tone_process(&m->ans_tx, tx, n);
			return true;
		}
		if (m->pump != PUMP_V22)
			return false;
		smdsp_v22bis_tx(&m->v22, tx, n);
		return true;
	case SMDSP_PHASE_TRAINING:
	case SMDSP_PHASE_CONNECTED:
	case SMDSP_PHASE_RETRAIN:
	case SMDSP_PHASE_CARRIER_LOST:
		if (m->pump == PUMP_V22)
			smdsp_v22bis_tx(&m->v22, tx, n);
		else if (m->pump == PUMP_V32)
			smdsp_v32bis_fill(&m->v32, tx, n);
		else if (m->pump == PUMP_V21)
			smdsp_fsk_tx_process(&m->fsk_tx, tx, n);
		else
			return false;
		return true;
	default:
		return false;
	}
}

void smdsp_modem_tx_fill(struct smdsp_modem *m, int16_t *tx, unsigned int n)
{
	if (!m || !tx || !n)
		return;
	if (!tx_more(m, tx, n))
		memset(tx, 0, n * sizeof(*tx));
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
	return m->phase != SMDSP_PHASE_ONHOOK && m->phase != SMDSP_PHASE_HUNGUP &&
	       !m->hook_wait;
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

void smdsp_modem_get_stats(const struct smdsp_modem *m, struct smdsp_modem_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->link = m->link;
	st->v42_status = m->v42_status;
	st->v8_used = m->v8_used;
	st->carrier_losses = m->carrier_losses;
	st->rx_overruns = m->rx_overruns;
	st->det_dropped = m->det_dropped;
	st->odp_echoed = m->odp_echoed;
	if (m->v8_used)
		smdsp_v8_get_result(m->v8, &st->v8);
	smdsp_async_tx_get_stats(m->atx, &st->async_tx);
	smdsp_async_rx_get_stats(m->arx, &st->async_rx);
	if (m->v42_status >= 0)
		smdsp_v42_get_stats(m->v42, &st->v42);
	st->v32_rtd = -1;
	if (m->v32_used) {
		st->echo_latency = smdsp_v32bis_echo_latency(&m->v32);
		st->echo_erle_db_q8 = smdsp_v32bis_echo_erle_db_q8(&m->v32);
		st->v32_rtd = smdsp_v32bis_rtd(&m->v32);
	}
}

static int check_config(struct smdsp_modem_config *c)
{
	if (c->sample_rate && c->sample_rate != SMDSP_RATE)
		return -EINVAL;
	c->sample_rate = SMDSP_RATE;
	c->modulations &= SMDSP_MODEM_DEFAULT | SMDSP_MODEM_V32 | SMDSP_MODEM_V32BIS;
	if (!c->modulations)
		c->modulations = SMDSP_MODEM_DEFAULT;
	if (c->min_rate > 14400 || c->max_rate > 14400 ||
	    (c->max_rate && c->min_rate > c->max_rate))
		return -EINVAL;
	if (!c->tx_level_dbm0_10)
		c->tx_level_dbm0_10 = -130;
	if (!c->wait_answer_ms)
		c->wait_answer_ms = 45000;
	if (!c->carrier_loss_ms)
		c->carrier_loss_ms = 1400;
	if (!c->blind_wait_ms)
		c->blind_wait_ms = 2000;
	if (!c->dialtone_wait_ms)
		c->dialtone_wait_ms = 5000;
	if (!c->comma_ms)
		c->comma_ms = 2000;
	if (c->v42bis_dirs > SMDSP_V42BIS_DIR_BOTH ||
	    (c->v42bis_p1 && (c->v42bis_p1 < SMDSP_V42BIS_MIN_P1 ||
			      c->v42bis_p1 > SMDSP_MODEM_V42BIS_MAX_P1)) ||
	    (c->v42bis_p2 && (c->v42bis_p2 < SMDSP_V42BIS_MIN_P2 ||
			      c->v42bis_p2 > SMDSP_V42BIS_MAX_P2)))
		return -EINVAL;
	/* keeps MS() within 32 bits */
	if (c->wait_answer_ms > 255000 || c->carrier_loss_ms > 255000 ||
	    c->blind_wait_ms > 255000 || c->dialtone_wait_ms > 255000 || c->comma_ms > 255000)
		return -EINVAL;
	return 0;
}

int smdsp_modem_configure(struct smdsp_modem *m, const struct smdsp_modem_config *cfg)
{
	struct smdsp_modem_config c;

	if (!m || !cfg)
		return -EINVAL;
	if (m->phase != SMDSP_PHASE_ONHOOK)
		return -EBUSY;
	c = *cfg;
	if (check_config(&c))
		return -EINVAL;
	m->cfg = c;
	return 0;
}

struct smdsp_modem *smdsp_modem_create(const struct smdsp_modem_config *cfg)
{
	struct smdsp_async_config ac = {
		.data_bits = 8, .parity = SMDSP_ASYNC_PARITY_NONE, .stop_bits = 1,
		.v14 = 1, .v14_interval = 0,
	};
	struct smdsp_v8_config v8c = { .modulations = SMDSP_V8_MOD_V22 };
	struct smdsp_v42_config v42c = {
		.bit_rate = 2400, .tx_buf = V42_TXQ, .rx_buf = V42_RXQ,
		/* V.42bis's dictionaries, whether a call will offer it or not */
		.v42bis = 1, .v42bis_p1 = SMDSP_MODEM_V42BIS_MAX_P1,
	};
	struct smdsp_modem *m;

	if (!cfg)
		return NULL;
	m = smdsp_alloc(sizeof(*m));
	if (!m)
		return NULL;
	m->cfg = *cfg;
	if (check_config(&m->cfg)) {
		smdsp_free(m);
		return NULL;
	}
	/* every call reuses these: nothing is allocated after this */
	m->atx = smdsp_async_tx_create(&ac, atx_get_byte, m);
	m->arx = smdsp_async_rx_create(&ac, arx_put_byte, m);
	m->v8 = smdsp_v8_create(&v8c);
	m->v42 = smdsp_v42_create(&v42c);
	if (!m->atx || !m->arx || !m->v8 || !m->v42) {
		smdsp_modem_free(m);
		return NULL;
	}
	m->v42_status = -1;
	smdsp_ring_init(&m->ring);
	m->phase = SMDSP_PHASE_ONHOOK;
	m->onhook_t = HOOK_GUARD;
	return m;
}

void smdsp_modem_free(struct smdsp_modem *m)
{
	if (!m)
		return;
	smdsp_async_tx_free(m->atx);
	smdsp_async_rx_free(m->arx);
	smdsp_v8_free(m->v8);
	smdsp_v42_free(m->v42);
	smdsp_free(m);
}

int smdsp_modem_print(const struct smdsp_modem *m, char *buf, size_t len)
{
	return snprintf(buf, len, "modem phase=%d rate=%u calling=%d t=%u",
			m->phase, m->rate, m->calling, m->t);
}
