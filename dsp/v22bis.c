// SPDX-License-Identifier: GPL-2.0
/*
 * V.22bis handshake (V.22bis 6.3.1), rate negotiation and retrain.
 *
 * Calling modem: silent until 155 ms of unscrambled binary 1 (USB1) has been
 * received, silent for 456 ms more, then S1 (100 ms, only if 2400 bit/s is
 * allowed) and scrambled binary 1 (SB1). If the answerer replies with S1,
 * circuit 112 goes on at its end: 16-way decisions after 450 ms, SB1 at
 * 2400 bit/s after 600 ms for 200 ms, then data; data is received after 32
 * scrambled ones at 2400 bit/s. If it replies with 270 ms of SB1 instead, the
 * call runs V.22 at 1200 bit/s: receive at once, send 765 ms later.
 *
 * Answering modem: 75 ms of silence, then USB1 until the caller is heard.
 * S1 from the caller: S1 back for 100 ms, then the same 450/600/200 ms
 * timeline. 270 ms of SB1 instead: 765 ms of SB1, then V.22 at 1200 bit/s.
 *
 * Retrain (2400 bit/s): the requester sends S1 and SB1 and waits for S1; a
 * modem receiving S1 in data mode answers with S1 and both follow the
 * 450/600/200 ms timeline again from a reset equalizer.
 */
#include <smdsp/private/v22bis.h>

#define MS(t) ((uint32_t)(t) * 600 / 1000)	/* symbols */

enum {
	HS_IDLE = 0,
	HS_C_WAIT_USB1,		/* calling: waiting for 155 ms of USB1 */
	HS_C_SILENT,		/* calling: 456 ms of silence */
	HS_WAIT_S1_OR_SB1,	/* both: S1 -> 2400, 270 ms SB1 -> 1200 */
	HS_2400,		/* after 112 on: 16-way, waiting for 32 ones */
	HS_1200_WAIT,		/* 1200: waiting for the 765 ms timer */
	HS_DATA,
	HS_RETRAIN_WAIT_S1,	/* we asked for a retrain: waiting for S1 */
};

static void v22_status(struct smdsp_v22bis *m, enum smdsp_status st)
{
	if (m->cfg.status)
		m->cfg.status(m->cfg.user, st);
}

static void v22_schedule(struct smdsp_v22bis *m, uint32_t after, enum smdsp_v22bis_tx_mode mode)
{
	if (m->nsched < SMDSP_V22BIS_SCHED) {
		m->sched_at[m->nsched] = m->tx_syms + after;
		m->sched_mode[m->nsched] = (uint8_t)mode;
		m->nsched++;
	}
}

static void check_ready(struct smdsp_v22bis *m)
{
	if (m->tx_ready && m->rx_ready && m->state != SMDSP_V22BIS_DATA) {
		m->state = SMDSP_V22BIS_DATA;
		m->hs = HS_DATA;
		/* data mode: slower, steadier loops */
		m->rx.eq.mu_shift = 7;
		m->rx.car_p_shift = 3;
		m->rx.car_i_shift = 9;
		m->rx.ted_shift = 10;
		m->rx.ted_int_shift = 16;
		m->rx.level_locked = true;
		m->rx.hold = m->cfg.hold_on_loss;
		v22_status(m, SMDSP_STATUS_TRAINED);
	}
}

static void tx_sym_hook(void *user)
{
	struct smdsp_v22bis *m = user;
	unsigned int i;

	m->tx_syms++;
	m->train_syms++;
	while (m->nsched && (int32_t)(m->tx_syms - m->sched_at[0]) >= 0) {
		enum smdsp_v22bis_tx_mode mode = m->sched_mode[0];

		smdsp_v22bis_tx_set_mode(&m->tx, mode);
		if (mode == SMDSP_V22BIS_TX_DATA_1200 || mode == SMDSP_V22BIS_TX_DATA_2400) {
			m->tx_ready = true;
			check_ready(m);
		}
		for (i = 1; i < m->nsched; i++) {
			m->sched_at[i - 1] = m->sched_at[i];
			m->sched_mode[i - 1] = m->sched_mode[i];
		}
		m->nsched--;
	}
	/* the calling modem's timed silence, then its first signal */
	if (m->hs == HS_C_SILENT && m->rx_syms >= MS(456) && m->tx.mode == SMDSP_V22BIS_TX_SILENCE) {
		if (m->cfg.max_rate >= 2400) {
			smdsp_v22bis_tx_set_mode(&m->tx, SMDSP_V22BIS_TX_S1);
			m->s1_sent = true;
			v22_schedule(m, MS(100), SMDSP_V22BIS_TX_SB1);
		} else {
			smdsp_v22bis_tx_set_mode(&m->tx, SMDSP_V22BIS_TX_SB1);
		}
		m->hs = HS_WAIT_S1_OR_SB1;
		m->rx_syms = 0;
		m->s1_run = 0;
		m->sb1_run = 0;
	}
}

static int tx_get_bit(void *user)
{
	struct smdsp_v22bis *m = user;

	return m->cfg.get_bit ? m->cfg.get_bit(m->cfg.user) : 1;
}

/* Circuit 112 on: the 2400 bit/s timeline from now. */
static void start_2400(struct smdsp_v22bis *m, bool send_s1)
{
	m->nsched = 0;
	if (send_s1) {
		smdsp_v22bis_tx_set_mode(&m->tx, SMDSP_V22BIS_TX_S1);
		v22_schedule(m, MS(100), SMDSP_V22BIS_TX_SB1);
	} else if (m->tx.mode != SMDSP_V22BIS_TX_SB1) {
		smdsp_v22bis_tx_set_mode(&m->tx, SMDSP_V22BIS_TX_SB1);
	}
	v22_schedule(m, MS(600), SMDSP_V22BIS_TX_SB1_2400);
	v22_schedule(m, MS(800), SMDSP_V22BIS_TX_DATA_2400);
	m->rate = 2400;
	m->hs = HS_2400;
	m->rx_syms = 0;
	m->sb1_run = 0;
	m->tx_ready = false;
	m->rx_ready = false;
	m->rx.sixteen = false;
	m->rx.eq_adapt = true;
}

static void start_1200(struct smdsp_v22bis *m)
{
	m->nsched = 0;
	smdsp_v22bis_tx_set_mode(&m->tx, SMDSP_V22BIS_TX_SB1);
	v22_schedule(m, MS(765), SMDSP_V22BIS_TX_DATA_1200);
	m->rate = 1200;
	m->hs = HS_1200_WAIT;
	m->rx_syms = 0;
	/* the calling modem receives at once, the answering one after the timer */
	m->rx_ready = m->cfg.calling;
	m->rx.eq_adapt = true;
}

static void put_bits(struct smdsp_v22bis *m, const struct smdsp_v22bis_sym *sym)
{
	int i;

	if (!m->cfg.put_bit)
		return;
	for (i = sym->nbits - 1; i >= 0; i--)
		m->cfg.put_bit(m->cfg.user, (sym->bits >> i) & 1);
}

/* Counts S1 (alternating 00 and 11); returns true at the end of a long enough run. */
static bool s1_ended(struct smdsp_v22bis *m, const struct smdsp_v22bis_sym *sym, uint32_t need)
{
	bool end = false;

	if ((sym->dibit ^ m->last_dibit) == 3 && (sym->dibit == 0 || sym->dibit == 3)) {
		m->s1_run++;
	} else {
		end = m->s1_run >= need;
		m->s1_run = 0;
	}
	return end;
}

static void rx_sym(void *user, const struct smdsp_v22bis_sym *sym)
{
	struct smdsp_v22bis *m = user;
	bool all_same = sym->bits == 0 || sym->bits == (1 << sym->nbits) - 1;

	m->rx_syms++;
	/* the timing and carrier loops need ~40 symbols before decisions mean anything */
	if (m->rx.symbols == 40) {
		m->rx.ted_shift = 9;
		m->rx.ted_int_shift = 15;
	}
	switch (m->hs) {
	case HS_C_WAIT_USB1:
		if (m->rx.symbols > 40 && (sym->dibit == 3 || sym->dibit == 0) &&
		    sym->dibit == m->last_dibit)
			m->u_run++;
		else
			m->u_run = 0;
		if (m->u_run >= MS(155)) {
			m->hs = HS_C_SILENT;
			m->rx_syms = 0;
		}
		break;
	case HS_C_SILENT:
		break;
	case HS_WAIT_S1_OR_SB1:
		/*
		 * S1 lasts 60 symbols and the answerer needs some of them to find
		 * the carrier and the timing: start looking early, accept 10.
		 */
		if (m->rx.symbols <= 20)
			break;
		if (m->cfg.max_rate >= 2400 && s1_ended(m, sym, 10)) {
			/* the answerer replies with S1 only if we sent S1 */
			if (!m->cfg.calling || m->s1_sent) {
				m->s1_seen = true;
				start_2400(m, !m->cfg.calling);
				break;
			}
		}
		/* scrambled ones (or zeros) for 270 ms: a V.22 modem */
		m->sb1_run = all_same && sym->dibit != 3 ? m->sb1_run + 1 :
			     (all_same ? m->sb1_run + 1 : 0);
		if (m->sb1_run >= MS(270) && !m->s1_run)
			start_1200(m);
		break;
	case HS_2400:
		if (m->rx_syms == MS(450)) {
			m->rx.sixteen = true;
			m->sb1_run = 0;
		}
		if (m->rx.sixteen && !m->rx_ready) {
			/* 32 consecutive scrambled ones at 2400 bit/s */
			m->sb1_run = sym->nbits == 4 && sym->bits == 15 ? m->sb1_run + 1 : 0;
			if (m->sb1_run >= 8) {
				m->rx_ready = true;
				check_ready(m);
			}
		} else if (m->rx_ready) {
			put_bits(m, sym);
		}
		break;
	case HS_1200_WAIT:
		if (m->rx_ready)
			put_bits(m, sym);
		if (!m->cfg.calling && m->tx_ready) {
			m->rx_ready = true;
			check_ready(m);
		}
		break;
	case HS_DATA:
		put_bits(m, sym);
		/* S1 from the far end in data mode: a retrain request */
		if (m->rate == 2400 && s1_ended(m, sym, 40)) {
			m->retrains++;
			v22_status(m, SMDSP_STATUS_RETRAIN);
			m->state = SMDSP_V22BIS_TRAINING;
			m->rx.hold = false;
			smdsp_eq_reset(&m->rx.eq, SMDSP_V22BIS_EQ_LEN / 2);
			m->rx.car_p_shift = 2;
			m->rx.car_i_shift = 7;
			m->rx.eq.mu_shift = 5;
			start_2400(m, true);
		}
		break;
	case HS_RETRAIN_WAIT_S1:
		if (s1_ended(m, sym, 15))
			start_2400(m, false);
		break;
	default:
		break;
	}
	m->last_dibit = sym->dibit;
}

static void rx_status(void *user, enum smdsp_status st)
{
	struct smdsp_v22bis *m = user;

	if (m->state == SMDSP_V22BIS_DATA && m->rx.hold) {
		/* data mode with hold_on_loss: report, and keep everything */
		v22_status(m, st);
		return;
	}
	if (st == SMDSP_STATUS_CARRIER_UP) {
		m->rx.sixteen = false;
		m->rx.eq_adapt = false;
		v22_status(m, st);
	} else if (st == SMDSP_STATUS_CARRIER_DOWN) {
		v22_status(m, st);
		if (m->state == SMDSP_V22BIS_TRAINING &&
		    (m->hs == HS_C_WAIT_USB1 || m->hs == HS_C_SILENT ||
		     (m->hs == HS_WAIT_S1_OR_SB1 && !m->cfg.calling))) {
			/*
			 * A burst before the handshake proper (a far modem's
			 * click, the end of an answer tone): keep waiting.
			 */
			if (m->cfg.calling)
				smdsp_v22bis_reset(m);
			m->s1_run = 0;
			m->u_run = 0;
			m->sb1_run = 0;
			return;
		}
		if (m->state != SMDSP_V22BIS_IDLE) {
			/* the call is over: go quiet and wait for a restart */
			m->state = SMDSP_V22BIS_FAILED;
			m->hs = HS_IDLE;
			m->nsched = 0;
			m->tx_ready = false;
			m->rx_ready = false;
			smdsp_v22bis_tx_set_mode(&m->tx, SMDSP_V22BIS_TX_SILENCE);
		}
	}
}

void smdsp_v22bis_reset(struct smdsp_v22bis *m)
{
	int level = m->cfg.tx_level_dbm0_10 ? m->cfg.tx_level_dbm0_10 : -130;

	smdsp_v22bis_tx_init(&m->tx, m->cfg.calling, level, m->cfg.guard, tx_get_bit, m);
	m->tx.sym_hook = tx_sym_hook;
	smdsp_v22bis_rx_init(&m->rx, m->cfg.calling, rx_sym, rx_status, m);
	m->state = SMDSP_V22BIS_TRAINING;
	m->rate = 0;
	m->tx_syms = 0;
	m->rx_syms = 0;
	m->s1_run = 0;
	m->u_run = 0;
	m->sb1_run = 0;
	m->last_dibit = 0;
	m->s1_sent = false;
	m->s1_seen = false;
	m->tx_ready = false;
	m->rx_ready = false;
	m->nsched = 0;
	m->bad_run = 0;
	m->train_syms = 0;
	if (m->cfg.calling) {
		m->hs = HS_C_WAIT_USB1;
	} else {
		/* 75 ms of silence, then unscrambled ones */
		m->hs = HS_WAIT_S1_OR_SB1;
		v22_schedule(m, MS(75), SMDSP_V22BIS_TX_USB1);
	}
	v22_status(m, SMDSP_STATUS_TRAINING);
}

void smdsp_v22bis_init(struct smdsp_v22bis *m, const struct smdsp_v22bis_config *cfg)
{
	memset(m, 0, sizeof(*m));
	m->cfg = *cfg;
	if (m->cfg.max_rate != 1200)
		m->cfg.max_rate = 2400;
	smdsp_v22bis_reset(m);
}

struct smdsp_v22bis *smdsp_v22bis_create(const struct smdsp_v22bis_config *cfg)
{
	struct smdsp_v22bis *m = smdsp_alloc(sizeof(*m));

	if (m)
		smdsp_v22bis_init(m, cfg);
	return m;
}

void smdsp_v22bis_free(struct smdsp_v22bis *m)
{
	smdsp_free(m);
}

void smdsp_v22bis_rx(struct smdsp_v22bis *m, const int16_t *x, unsigned int n)
{
	smdsp_v22bis_rx_process(&m->rx, x, n);
}

void smdsp_v22bis_tx(struct smdsp_v22bis *m, int16_t *out, unsigned int n)
{
	smdsp_v22bis_tx_process(&m->tx, out, n);
}

void smdsp_v22bis_process(struct smdsp_v22bis *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	while (n) {
		unsigned int k = n < 8 ? n : 8;

		smdsp_v22bis_rx_process(&m->rx, rx, k);
		smdsp_v22bis_tx_process(&m->tx, tx, k);
		rx += k;
		tx += k;
		n -= k;
	}
}

int smdsp_v22bis_retrain(struct smdsp_v22bis *m)
{
	if (m->state != SMDSP_V22BIS_DATA || m->rate != 2400)
		return -EINVAL;
	m->retrains++;
	m->state = SMDSP_V22BIS_TRAINING;
	m->rx.hold = false;
	m->tx_ready = false;
	m->rx_ready = false;
	m->nsched = 0;
	smdsp_v22bis_tx_set_mode(&m->tx, SMDSP_V22BIS_TX_S1);
	v22_schedule(m, MS(100), SMDSP_V22BIS_TX_SB1);
	smdsp_eq_reset(&m->rx.eq, SMDSP_V22BIS_EQ_LEN / 2);
	m->rx.sixteen = false;
	m->rx.car_p_shift = 2;
	m->rx.car_i_shift = 7;
	m->rx.eq.mu_shift = 5;
	m->hs = HS_RETRAIN_WAIT_S1;
	m->s1_run = 0;
	v22_status(m, SMDSP_STATUS_RETRAIN);
	return 0;
}

unsigned int smdsp_v22bis_rate(const struct smdsp_v22bis *m)
{
	return m->state == SMDSP_V22BIS_DATA ? m->rate : 0;
}

bool smdsp_v22bis_handshaking(const struct smdsp_v22bis *m)
{
	return m->hs != HS_IDLE && m->hs != HS_C_WAIT_USB1;
}

bool smdsp_v22bis_carrier(const struct smdsp_v22bis *m)
{
	return m->rx.carrier;
}

int smdsp_v22bis_print(const struct smdsp_v22bis *m, char *buf, size_t len)
{
	return snprintf(buf, len, "v22bis state=%d rate=%u hs=%d carrier=%d retrains=%u",
			m->state, m->rate, m->hs, smdsp_v22bis_carrier(m), m->retrains);
}

enum smdsp_v22bis_state smdsp_v22bis_get_state(const struct smdsp_v22bis *m)
{
	return m->state;
}
