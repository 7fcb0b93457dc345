// SPDX-License-Identifier: GPL-2.0
/*
 * Modem engine: call set-up (ring detection, dial tone, DTMF dialling,
 * call progress, answer tone, V.8), the data pump (V.21, V.22, V.22bis,
 * V.32, V.32bis and V.34) and the byte stream (V.42 LAPM, or start-stop framing
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
 *
 * V.34 comes after V.8 only (V.8's V.34 mode, both ends offering it): its
 * phase 2 starts where V.8 ends, CJ's 75 ms of silence behind it, and
 * dsp/v34.c runs phases 2, 3 and 4 and the data mode; CONNECTED at the
 * rate we receive at once both directions carry data. Its object is made
 * here at create (70-odd KB, 2-wire so that either line can be configured)
 * and configured in place for each call.
 *
 * This file is the engine as an object (create, configure, the FIFOs and
 * events its user reads and writes) and the byte stream over the
 * modulation: the pumps' bits to and from async framing or V.42 (with its
 * detection, ODP and ADP).  The call-phase machine and the pumps it starts
 * are modem_phase.c's, V.8 modem_v8.c's; the state they share is
 * <smdsp/private/modem.h>.
 */
#include <smdsp/private/modem.h>

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

void smdsp_modem_put_event(struct smdsp_modem *m, enum smdsp_modem_event_type type, uint32_t arg)
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

void smdsp_modem_set_phase(struct smdsp_modem *m, enum smdsp_modem_phase p, uint32_t arg)
{
	m->phase = p;
	m->t = 0;
	smdsp_modem_put_event(m, SMDSP_EV_PHASE, arg);
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

int smdsp_modem_data_get_bit(void *user)
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

void smdsp_modem_data_put_bit(void *user, int bit)
{
	struct smdsp_modem *m = user;

	/*
	 * The far end may be in data mode before we are (its training ended
	 * first): its first characters or frames arrive now.
	 */
	if (m->link == SMDSP_LINK_NONE && !m->link_up)
		smdsp_modem_link_start(m);
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
void smdsp_modem_link_start(struct smdsp_modem *m)
{
	struct smdsp_v42_config c;

	m->link_up = true;
	m->det_len = 0;
	smdsp_async_rx_reset(m->arx);
	if (!m->rate)
		m->rate = m->pump == PUMP_V22 ? m->v22.rate :
			  m->pump == PUMP_V32 ? smdsp_v32bis_rate(&m->v32) :
			  m->pump == PUMP_V34 ? smdsp_modem_v34_rx_rate(m) : 300;
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

/* Moves bytes between the user's FIFOs and V.42, and follows its state. */
void smdsp_modem_link_service(struct smdsp_modem *m)
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
			smdsp_modem_put_event(m, SMDSP_EV_V42, 1);
		} else if (st == SMDSP_V42_NO_V42) {
			smdsp_modem_put_event(m, SMDSP_EV_V42, 0);
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
		smdsp_modem_end_call(m, SMDSP_CAUSE_V42_RELEASED);
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

static void v34_stats(const struct smdsp_modem *m, struct smdsp_modem_stats *st)
{
	const struct smdsp_v34 *v = m->v34;

	smdsp_v34_get_stats(v, &st->v34);
	st->v34_used = 1;
	st->v34_state = smdsp_v34_state(v);
	st->v34_fail = smdsp_v34_fail(v);
	st->v34_rtd = st->v34.rtd;
	st->v34_mse_db10 = st->v34.mse_db10;
	if (st->v34.rtd >= 0) {
		/* the symbol rates are phase 2's: set when it ended */
		st->tx_baud = (smdsp_v34_symrate_mbaud(st->v34.tx.symrate) + 500) / 1000;
		st->rx_baud = (smdsp_v34_symrate_mbaud(st->v34.rx.symrate) + 500) / 1000;
	}
	st->echo_latency = v->cfg.two_wire ? v->cfg.echo_latency : -1;
	st->echo_erle_db_q8 = st->v34.erle_db10 * 256 / 10;
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
	st->v34_rtd = -1;
	st->tx_rate = m->tx_rate;
	st->rx_rate = m->rx_rate;
	if (m->v32_used) {
		st->echo_latency = smdsp_v32bis_echo_latency(&m->v32);
		st->echo_erle_db_q8 = smdsp_v32bis_echo_erle_db_q8(&m->v32);
		st->v32_rtd = smdsp_v32bis_rtd(&m->v32);
	}
	if (m->v34_used)
		v34_stats(m, st);
}

static int check_config(struct smdsp_modem_config *c)
{
	if (c->sample_rate && c->sample_rate != SMDSP_RATE)
		return -EINVAL;
	c->sample_rate = SMDSP_RATE;
	c->modulations &= SMDSP_MODEM_DEFAULT | SMDSP_MODEM_V32 | SMDSP_MODEM_V32BIS | SMDSP_MODEM_V34;
	if (!c->modulations)
		c->modulations = SMDSP_MODEM_DEFAULT;
	if (c->min_rate > 33600 || c->max_rate > 33600 ||
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
	struct smdsp_v34_config v34c;
	struct smdsp_v34_phase2_config p2c;
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
	/* V.34's, 2-wire: its canceller and history too, for either line */
	smdsp_v34_phase2_default_config(&p2c);
	memset(&v34c, 0, sizeof(v34c));
	v34c.level_dbm0_10 = p2c.level_dbm0_10;
	v34c.far_level_dbm0_10 = p2c.far_level_dbm0_10;
	v34c.info0 = p2c.info0;
	v34c.two_wire = true;
	m->v34 = smdsp_v34_create(&v34c);
	if (!m->atx || !m->arx || !m->v8 || !m->v42 || !m->v34) {
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
	smdsp_v34_free(m->v34);
	smdsp_free(m);
}

int smdsp_modem_print(const struct smdsp_modem *m, char *buf, size_t len)
{
	return snprintf(buf, len, "modem phase=%d rate=%u calling=%d t=%u",
			m->phase, m->rate, m->calling, m->t);
}
