// SPDX-License-Identifier: GPL-2.0
/*
 * The modem engine's call-phase machine (<smdsp/modem.h>; the engine as an
 * object and its byte stream are modem.c's, V.8 modem_v8.c's).  Each chunk
 * of an audio period runs the handler of the phase the call is in: on hook
 * (ring detection), off hook (the dial tone), dialling (DTMF, pauses, waits
 * for a tone), waiting (call progress, the answer tone, then the far
 * modem), the answer tone (the answerer's billing delay, then ANS or V.8's
 * ANSam), V.8, training and connected; the transmitters' samples of a
 * phase without its receiver come from tx_more().  The pumps a phase starts
 * (V.21, V.22/V.22bis, V.32/V.32bis) report through their status callbacks
 * here; a hang-up, a lost carrier or a timer ends the call with its cause.
 * V.34 has no callbacks: its state is read after each chunk (phase 2 is
 * PROBING, phases 3-4 TRAINING, its data CONNECTED at the rate we receive;
 * a retrain's phases 2-4 are all RETRAIN, as other pumps' retrains; its decisions
 * as bad as noise's are CARRIER_LOST, and it gives up on its own a second
 * later, then the call ends as a lost carrier; any other failure is a
 * training failed).
 */
#include <smdsp/private/modem.h>

#define CHUNK		40	/* 5 ms: granularity of the call set-up timers */
/* a plain ANS (no AM) heard this long: the answerer does not do V.8 */
#define V8_ANS_MS	600

/* ---- the pumps ---- */

static void connected(struct smdsp_modem *m, unsigned int rate)
{
	m->rate = rate;
	m->rx_rate = rate;
	m->tx_rate = m->pump == PUMP_V34 ? m->v34->st.tx.rate : rate;
	smdsp_modem_set_phase(m, SMDSP_PHASE_CONNECTED, rate);
	if (!m->link_up)
		smdsp_modem_link_start(m);
}

static void carrier_lost(struct smdsp_modem *m)
{
	m->carrier_losses++;
	smdsp_modem_set_phase(m, SMDSP_PHASE_CARRIER_LOST, 0);
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
			smdsp_modem_set_phase(m, SMDSP_PHASE_RETRAIN, 0);
		break;
	case SMDSP_STATUS_CARRIER_DOWN:
		if (m->phase == SMDSP_PHASE_CONNECTED)
			carrier_lost(m);
		break;
	case SMDSP_STATUS_CARRIER_UP:
		if (m->phase == SMDSP_PHASE_CARRIER_LOST)
			smdsp_modem_set_phase(m, SMDSP_PHASE_CONNECTED, m->rate);
		break;
	default:
		break;
	}
}

void smdsp_modem_start_v22(struct smdsp_modem *m)
{
	struct smdsp_v22bis_config c;

	memset(&c, 0, sizeof(c));
	c.calling = m->calling;
	c.max_rate = (m->cfg.modulations & SMDSP_MODEM_V22BIS) ? 2400 : 1200;
	c.tx_level_dbm0_10 = (int16_t)m->cfg.tx_level_dbm0_10;
	c.guard = SMDSP_V22BIS_GUARD_NONE;
	c.hold_on_loss = true;
	c.get_bit = smdsp_modem_data_get_bit;
	c.put_bit = smdsp_modem_data_put_bit;
	c.status = v22_status;
	c.user = m;
	smdsp_v22bis_init(&m->v22, &c);
	m->pump = PUMP_V22;
}

void smdsp_modem_start_v21(struct smdsp_modem *m)
{
	smdsp_fsk_tx_init(&m->fsk_tx, m->calling ? SMDSP_V21_CH1 : SMDSP_V21_CH2,
			  m->cfg.tx_level_dbm0_10, smdsp_modem_data_get_bit, m);
	smdsp_fsk_rx_init(&m->fsk_rx, m->calling ? SMDSP_V21_CH2 : SMDSP_V21_CH1,
			  smdsp_modem_data_put_bit, NULL, m);
	m->fsk_carrier_t = 0;
	m->pump = PUMP_V21;
}

/* The V.32/V.32bis rates this end offers (SMDSP_V32BIS_*), 0: no V.32 at all. */
unsigned int smdsp_modem_v32_rates(const struct smdsp_modem *m)
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

bool smdsp_modem_has_v22(const struct smdsp_modem *m)
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
			smdsp_modem_set_phase(m, SMDSP_PHASE_RETRAIN, 0);
		break;
	default:
		break;
	}
}

/* V.32bis's start-up from its beginning: the answerer's AC at once, the caller listening. */
void smdsp_modem_init_v32(struct smdsp_modem *m)
{
	struct smdsp_v32bis_config c;
	unsigned int lat;

	memset(&c, 0, sizeof(c));
	c.caller = m->calling;
	c.rates = smdsp_modem_v32_rates(m);
	c.level_dbm0_10 = m->cfg.tx_level_dbm0_10;
	c.get_bit = smdsp_modem_data_get_bit;
	c.put_bit = smdsp_modem_data_put_bit;
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

void smdsp_modem_start_v32(struct smdsp_modem *m)
{
	smdsp_modem_init_v32(m);
	m->v32_listen = false;
	m->v32_auto = false;
	m->pump = PUMP_V32;
}

/*
 * The most V.34 may run at in this call (+MS's limits, and no more than our
 * receiver carries), bit/s; 0: not offered.
 */
unsigned int smdsp_modem_v34_max(const struct smdsp_modem *m)
{
	unsigned int r = V34_CEILING;

	if (!(m->cfg.modulations & SMDSP_MODEM_V34))
		return 0;
	if (m->cfg.max_rate && m->cfg.max_rate < r)
		r = m->cfg.max_rate / 2400 * 2400;
	return r >= 2400 && r >= m->cfg.min_rate ? r : 0;
}

/* What we receive at: the MPs' rate, or before it phase 2's projection. */
unsigned int smdsp_modem_v34_rx_rate(const struct smdsp_modem *m)
{
	const struct smdsp_v34_dir *d = &m->v34->st.rx;

	return d->rate ? d->rate : d->max_rate ? d->max_rate : 2400;
}

/*
 * V.34 from phase 2 on, right after V.8 (whose CJ and 75 ms of silence are
 * behind us). listen_v22: a caller's V.22bis receiver also runs until the
 * far INFO0 is heard, for an answerer whose JM named V.34 without running
 * it (one that echoes our CM), as V.32bis's caller does. False if V.34
 * cannot be configured.
 */
/*
 * V.34 configured for this call; false if it cannot be. Not inlined: its
 * configurations stay off the stack of what follows (V.22bis's start, whose
 * status may reach V.42's frames).
 */
static smdsp_noinline bool v34_configure(struct smdsp_modem *m)
{
	struct smdsp_v34_phase2_config p;
	struct smdsp_v34_config c;
	unsigned int lat;
	int lvl = m->cfg.tx_level_dbm0_10;

	smdsp_v34_phase2_default_config(&p);
	memset(&c, 0, sizeof(c));
	c.calling = m->calling;
	/* V.34's range of levels: -43 to -9 dBm0 */
	c.level_dbm0_10 = lvl < -430 ? -430 : lvl > -90 ? -90 : lvl;
	c.far_level_dbm0_10 = p.far_level_dbm0_10;
	c.info0 = p.info0;
	c.max_rate = smdsp_modem_v34_max(m);
	c.get_bit = smdsp_modem_data_get_bit;
	c.get_user = m;
	c.put_bit = smdsp_modem_data_put_bit;
	c.put_user = m;
	/* as V.32bis's: the user's loop or the period, never a CHUNK; beyond V.34's reach, no canceller */
	lat = m->cfg.echo_latency ? m->cfg.echo_latency : m->last_n;
	c.two_wire = !m->cfg.four_wire && lat <= SMDSP_V34_LATENCY_MAX;
	c.echo_latency = c.two_wire ? (int)lat : 0;
	return c.max_rate && !smdsp_v34_configure(m->v34, &c);
}

bool smdsp_modem_start_v34(struct smdsp_modem *m, bool listen_v22)
{
	if (!v34_configure(m))
		return false;
	m->v34_listen = false;
	if (listen_v22) {
		smdsp_modem_start_v22(m);
		m->v34_listen = true;
	}
	m->pump = PUMP_V34;
	m->v34_used = true;
	return true;
}

void smdsp_modem_end_call(struct smdsp_modem *m, enum smdsp_modem_cause cause)
{
	m->pump = PUMP_NONE;
	m->v34_listen = false;
	m->v32_listen = false;
	m->v32_auto = false;
	m->rate = 0;
	m->v8_run = V8_IDLE;
	/* the link stays as it was, for the statistics of this call */
	if (m->link == SMDSP_LINK_V42)
		m->v42_status = smdsp_v42_status(m->v42);
	smdsp_modem_set_phase(m, SMDSP_PHASE_HUNGUP, cause);
	/* what was queued for this call is gone with it */
	m->txq.tail = m->txq.head;
	smdsp_ring_init(&m->ring);
	smdsp_modem_set_phase(m, SMDSP_PHASE_ONHOOK, 0);
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
	m->v34_used = false;
	m->v34_listen = false;
	m->tx_rate = 0;
	m->rx_rate = 0;
	m->v8_lapm = false;
	m->v8_no_lapm = false;
	m->v8_sig = -1;
	smdsp_async_tx_reset(m->atx);
	smdsp_async_rx_reset(m->arx);
	smdsp_callprog_init(&m->cpt, m->cfg.tone_plan);
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
	n = HOOK_GUARD - m->onhook_t;
	go_offhook(m, true);
	m->hook_wait = n;
	smdsp_modem_set_phase(m, SMDSP_PHASE_OFFHOOK, 0);
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
	smdsp_modem_set_phase(m, SMDSP_PHASE_ANSWER_TONE, 0);
	return 0;
}

void smdsp_modem_hangup(struct smdsp_modem *m)
{
	if (m && m->phase != SMDSP_PHASE_ONHOOK)
		smdsp_modem_end_call(m, SMDSP_CAUSE_LOCAL);
}

/* ---- per-phase processing of one chunk ---- */

static void do_onhook(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	memset(tx, 0, n * sizeof(*tx));
	if (smdsp_ring_process(&m->ring, rx, n)) {
		uint32_t rings = smdsp_ring_count(&m->ring);

		smdsp_modem_put_event(m, SMDSP_EV_RING, rings);
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
		smdsp_modem_put_event(m, SMDSP_EV_CALL_PROGRESS, e);
	if (e == SMDSP_CALLPROG_DIALTONE || (blind && m->t >= MS(m->cfg.blind_wait_ms))) {
		m->dial_pos = 0;
		smdsp_modem_set_phase(m, SMDSP_PHASE_DIALING, 0);
		dial_advance(m);
	} else if (m->t >= MS(m->cfg.dialtone_wait_ms)) {
		smdsp_modem_end_call(m, SMDSP_CAUSE_NO_DIALTONE);
	}
}

/* The V.25 caller: V.22bis silent until it hears the answerer, V.21 listening. */
static void legacy_caller(struct smdsp_modem *m)
{
	m->pump = PUMP_NONE;
	if (m->cfg.modulations & (SMDSP_MODEM_V22 | SMDSP_MODEM_V22BIS))
		smdsp_modem_start_v22(m);
	if (smdsp_modem_v32_rates(m)) {
		smdsp_modem_init_v32(m);
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
	smdsp_modem_set_phase(m, SMDSP_PHASE_WAITING, 0);
	if (!(m->cfg.flags & SMDSP_MODEM_FLAG_V8) || !smdsp_modem_v8_start(m))
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
			smdsp_modem_put_event(m, SMDSP_EV_CALL_PROGRESS, e);
		m->dial_t += n;
		if (e == SMDSP_CALLPROG_BUSY || e == SMDSP_CALLPROG_CONGESTION)
			smdsp_modem_end_call(m, SMDSP_CAUSE_BUSY);
		else if (e == SMDSP_CALLPROG_DIALTONE)
			dial_advance(m);
		else if (m->dial_t >= MS(m->cfg.dialtone_wait_ms))
			smdsp_modem_end_call(m, SMDSP_CAUSE_NO_DIALTONE);
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
		smdsp_modem_put_event(m, SMDSP_EV_ANSWER_TONE, k);
		smdsp_modem_set_phase(m, SMDSP_PHASE_ANSWER_TONE, k);
	} else if (m->phase == SMDSP_PHASE_ANSWER_TONE) {
		/*
		 * The tone ends when it is no longer heard; heard again (a gap
		 * an echo or a burst of noise made), it had not ended.
		 */
		if (k != SMDSP_ANS_NONE || smdsp_anstone_rx_tone_ms(&m->ans_rx)) {
			m->tone_done = false;
		} else if (!m->tone_done) {
			m->tone_done = true;
			m->tone_end = m->t;
		}
	}
	if (e == SMDSP_CALLPROG_BUSY || e == SMDSP_CALLPROG_CONGESTION) {
		smdsp_modem_put_event(m, SMDSP_EV_CALL_PROGRESS, e);
		smdsp_modem_end_call(m, SMDSP_CAUSE_BUSY);
		return;
	}
	if (e != SMDSP_CALLPROG_NONE)
		smdsp_modem_put_event(m, SMDSP_EV_CALL_PROGRESS, e);
	if (m->v8_run == V8_RUNNING) {
		if (k == SMDSP_ANS_ANSAM || k == SMDSP_ANS_ANSAM_PR) {
			smdsp_v8_answer_tone(m->v8, SMDSP_V8_TONE_ANSAM);
		} else if (k != SMDSP_ANS_NONE &&
			   smdsp_anstone_rx_tone_ms(&m->ans_rx) >= V8_ANS_MS) {
			/* no AM after three of its periods: a V.25 answerer */
			smdsp_v8_answer_tone(m->v8, SMDSP_V8_TONE_ANS);
		} else {
			/* CI waits while a tone is told apart, and resumes if it goes */
			smdsp_v8_answer_tone(m->v8, k != SMDSP_ANS_NONE ?
					     SMDSP_V8_TONE_HEARD : SMDSP_V8_TONE_NONE);
		}
		smdsp_modem_v8_chunk(m, rx, tx, n);
		switch (smdsp_v8_status(m->v8)) {
		case SMDSP_V8_IN_PROGRESS:
			/* ANSam taken: CM/JM/CJ from here on */
			if (smdsp_v8_tx_signal(m->v8) == SMDSP_V8_TX_SILENCE &&
			    m->phase == SMDSP_PHASE_ANSWER_TONE &&
			    (k == SMDSP_ANS_ANSAM || k == SMDSP_ANS_ANSAM_PR))
				smdsp_modem_set_phase(m, SMDSP_PHASE_V8, 0);
			break;
		case SMDSP_V8_NON_V8:
			smdsp_modem_v8_end(m);
			legacy_caller(m);
			break;
		default:
			smdsp_modem_v8_end(m);
			break;
		}
		if (m->phase == SMDSP_PHASE_WAITING && m->t >= MS(m->cfg.wait_answer_ms))
			smdsp_modem_end_call(m, SMDSP_CAUSE_NO_ANSWER);
		return;
	}
	if (m->v32_listen) {
		/* silent until AC; then its AA goes out in this very chunk */
		smdsp_v32bis_process(&m->v32, rx, tx, n);
		if (m->v32_heard) {
			m->v32_listen = false;
			m->pump = PUMP_V32;
			smdsp_modem_set_phase(m, SMDSP_PHASE_TRAINING, 0);
			return;
		}
	}
	if (m->pump == PUMP_V22) {
		smdsp_v22bis_process(&m->v22, rx, tx, n);
		/* unscrambled ones heard: the V.22/V.22bis handshake is on */
		if (smdsp_v22bis_handshaking(&m->v22) && m->phase != SMDSP_PHASE_TRAINING) {
			m->v32_listen = false;
			smdsp_modem_set_phase(m, SMDSP_PHASE_TRAINING, 0);
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
		 * The answer tone itself passes V.21's high-channel filter: the
		 * carrier counts from the tone's end only (a gap in the tone
		 * that an echo made is no end, above).
		 */
		m->fsk_carrier_t = smdsp_fsk_rx_carrier(&m->fsk_rx) && m->tone_done ?
				   m->fsk_carrier_t + n : 0;
		if (m->fsk_carrier_t >= MS(450) && m->t - m->tone_end >= MS(450) &&
		    !(m->pump == PUMP_V22 && smdsp_v22bis_carrier(&m->v22))) {
			smdsp_modem_start_v21(m);
			connected(m, 300);
			return;
		}
	}
	if (m->t >= MS(m->cfg.wait_answer_ms))
		smdsp_modem_end_call(m, SMDSP_CAUSE_NO_ANSWER);
}

/* Answering modem after the answer tone (or a V.8 that found no V.8 caller). */
void smdsp_modem_legacy_answer(struct smdsp_modem *m)
{
	m->tone_done = true;
	if (smdsp_modem_v32_rates(m)) {
		smdsp_modem_start_v32(m);
		m->v32_auto = smdsp_modem_has_v22(m);
	} else if (smdsp_modem_has_v22(m)) {
		smdsp_modem_start_v22(m);
	} else {
		smdsp_modem_start_v21(m);
	}
	smdsp_modem_set_phase(m, SMDSP_PHASE_TRAINING, 0);
}

/* Answering modem: billing delay, answer tone (or V.8), then the modulation. */
static void do_answer_tone(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	if (m->calling) {
		do_waiting(m, rx, tx, n);
		return;
	}
	if (m->v8_run == V8_RUNNING) {
		smdsp_modem_v8_answerer(m, rx, tx, n);
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
			if ((m->cfg.flags & SMDSP_MODEM_FLAG_V8) && smdsp_modem_v8_start(m)) {
				smdsp_modem_v8_answerer(m, rx, tx, n);
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
		smdsp_modem_legacy_answer(m);
		return;
	}
	memset(tx, 0, n * sizeof(*tx));
}

/*
 * A caller's V.22bis beside V.34's phase 2 (smdsp_modem_start_v34()): its
 * receiver hears the answerer's unscrambled ones (its transmitter is silent
 * until then), or phase 2 the far INFO0. Meanwhile phase 2's tone B, after
 * INFO0c, is held back: a V.22bis answerer takes a steady 1200 Hz carrier
 * for a V.22 caller's and settles on 1200 bit/s before our S1 arrives (on
 * long lines); a V.34 answerer hears it once its INFO0a has reached us.
 * Not inlined: the receiver's samples stay off the stack under V.34's
 * processing.
 */
static smdsp_noinline void v34_listen(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	const struct smdsp_v34_phase2 *p2 = &m->v34->p2;
	int16_t t22[CHUNK];

	if (smdsp_v34_phase2_state(p2) == SMDSP_V34P2_INFO0 && !smdsp_v34_info_tx_busy(&p2->tx))
		memset(tx, 0, n * sizeof(*tx));
	smdsp_v22bis_process(&m->v22, rx, t22, n);
	if (smdsp_v22bis_handshaking(&m->v22)) {
		/* no V.34 in this call after all: its figures would mislead */
		m->v34_listen = false;
		m->v34_used = false;
		m->pump = PUMP_V22;
		memcpy(tx, t22, n * sizeof(*tx));
	} else if (smdsp_v34_phase2_state(&m->v34->p2) != SMDSP_V34P2_INFO0) {
		m->v34_listen = false;
	}
}

/* V.34 after a chunk: its data is CONNECTED at the rate we receive (+MS's min_rate both ways) */
static void v34_training(struct smdsp_modem *m)
{
	const struct smdsp_v34_stats *st = &m->v34->st;

	switch (smdsp_v34_state(m->v34)) {
	case SMDSP_V34_FAILED:
		smdsp_modem_end_call(m, SMDSP_CAUSE_TRAINING_FAILED);
		break;
	case SMDSP_V34_DATA:
		if (st->tx.rate < m->cfg.min_rate || st->rx.rate < m->cfg.min_rate)
			smdsp_modem_end_call(m, SMDSP_CAUSE_TRAINING_FAILED);
		else
			connected(m, smdsp_modem_v34_rx_rate(m));
		break;
	default:
		break;
	}
}

/*
 * V.34 in its data mode: decisions as bad as noise's are the carrier lost
 * (v34.c gives up after a second of them: the call ends as a lost
 * carrier), good ones again the carrier back.
 */
static void v34_connected(struct smdsp_modem *m)
{
	enum smdsp_v34_state vs = smdsp_v34_state(m->v34);
	bool lost = m->v34->bad_since != 0;

	/*
	 * A rate renegotiation or a retrain (either end's: its tones, then
	 * phases 2-4 again) is RETRAIN until the data comes back, CONNECTED then at the rate it settled (the
	 * user's +MRR, and V.42's frames lost meanwhile sent again); the
	 * far end's cleardown ends the call as its hang-up would.
	 */
	if (vs != SMDSP_V34_DATA && vs != SMDSP_V34_FAILED && vs != SMDSP_V34_CLEARED) {
		if (m->phase != SMDSP_PHASE_RETRAIN)
			smdsp_modem_set_phase(m, SMDSP_PHASE_RETRAIN, 0);
		return;
	}
	if (vs == SMDSP_V34_CLEARED) {
		smdsp_modem_end_call(m, SMDSP_CAUSE_CARRIER_LOST);
		return;
	}
	if (vs == SMDSP_V34_DATA && m->phase == SMDSP_PHASE_RETRAIN) {
		connected(m, smdsp_modem_v34_rx_rate(m));
		return;
	}
	if (vs == SMDSP_V34_FAILED) {
		if (smdsp_v34_fail(m->v34) != SMDSP_V34_FAIL_LOST) {
			smdsp_modem_end_call(m, SMDSP_CAUSE_TRAINING_FAILED);
			return;
		}
		if (m->phase == SMDSP_PHASE_CONNECTED)
			carrier_lost(m);
		smdsp_modem_end_call(m, SMDSP_CAUSE_CARRIER_LOST);
		return;
	}
	if (m->phase == SMDSP_PHASE_CONNECTED && lost)
		carrier_lost(m);
	else if (m->phase == SMDSP_PHASE_CARRIER_LOST && !lost)
		smdsp_modem_set_phase(m, SMDSP_PHASE_CONNECTED, m->rate);
}

/*
 * Phase 2 over (phase 3's S next), or V.22bis heard beside it: TRAINING from
 * here on. A failed phase 2 stays PROBING until v34_training() ends the call.
 * The answer modem's phase 3 may go back to phase 2 (the call modem missed
 * its INFO1a): PROBING again, so that the trace's phases say what runs.
 */
static void v34_probed(struct smdsp_modem *m)
{
	enum smdsp_v34_state vs;

	if (m->phase != SMDSP_PHASE_PROBING && m->phase != SMDSP_PHASE_TRAINING)
		return;
	if (m->pump != PUMP_V34) {
		if (m->phase == SMDSP_PHASE_PROBING)
			smdsp_modem_set_phase(m, SMDSP_PHASE_TRAINING, 0);
		return;
	}
	vs = smdsp_v34_state(m->v34);
	if (m->phase == SMDSP_PHASE_PROBING && vs != SMDSP_V34_PHASE2 && vs != SMDSP_V34_FAILED)
		smdsp_modem_set_phase(m, SMDSP_PHASE_TRAINING, 0);
	else if (m->phase == SMDSP_PHASE_TRAINING && vs == SMDSP_V34_PHASE2)
		smdsp_modem_set_phase(m, SMDSP_PHASE_PROBING, 0);
}

/* After V.34's chunk: the call's phase from its state, the byte stream (not inlined: see v34_chunk()) */
static smdsp_noinline void v34_after(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	if (m->phase == SMDSP_PHASE_PROBING || m->phase == SMDSP_PHASE_TRAINING) {
		if (m->v34_listen)
			v34_listen(m, rx, tx, n);
		v34_probed(m);
		if (m->pump == PUMP_V34)
			v34_training(m);
		return;
	}
	v34_connected(m);
	if (m->phase == SMDSP_PHASE_ONHOOK)
		return;
	/* v34.c gives up a second after its decisions went bad; a shorter hold is the user's */
	if (m->phase == SMDSP_PHASE_CARRIER_LOST && m->t >= MS(m->cfg.carrier_loss_ms)) {
		smdsp_modem_end_call(m, SMDSP_CAUSE_CARRIER_LOST);
		return;
	}
	smdsp_modem_link_service(m);
}

/*
 * A chunk of V.34, training or connected. V.34's receiver is the pump's
 * deepest stack (its data decoder under it), so its chunks go here from
 * smdsp_modem_process() past the phase machine's frame: nothing of step()'s
 * locals sits under it.
 */
static smdsp_noinline void v34_chunk(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	smdsp_v34_process(m->v34, rx, tx, n);
	v34_after(m, rx, tx, n);
	m->t += n;
	m->now += n;
}

static bool in_v34(const struct smdsp_modem *m)
{
	return m->pump == PUMP_V34 &&
	       (m->phase == SMDSP_PHASE_PROBING || m->phase == SMDSP_PHASE_TRAINING ||
		m->phase == SMDSP_PHASE_CONNECTED ||
		m->phase == SMDSP_PHASE_RETRAIN || m->phase == SMDSP_PHASE_CARRIER_LOST);
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
			smdsp_modem_end_call(m, SMDSP_CAUSE_NO_ANSWER);
		return;
	}
	if (m->pump == PUMP_V32) {
		if (smdsp_v32bis_phase(&m->v32) == SMDSP_V32BIS_PH_FAILED) {
			smdsp_modem_end_call(m, SMDSP_CAUSE_TRAINING_FAILED);
		} else if (m->v32_auto && !m->v32_heard && m->t >= MS(SMDSP_MODEM_AUTO_AC_MS)) {
			/* no AA: a caller without V.32, V.22bis's answer from here on */
			m->v32_auto = false;
			smdsp_modem_start_v22(m);
			m->t = 0;
		}
		return;
	}
	if (m->v22.state == SMDSP_V22BIS_FAILED)
		smdsp_modem_end_call(m, SMDSP_CAUSE_CARRIER_LOST);
	else if (m->phase == SMDSP_PHASE_TRAINING && m->t >= MS(m->calling ? 15000 : 30000))
		smdsp_modem_end_call(m, SMDSP_CAUSE_TRAINING_FAILED);
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
			smdsp_modem_set_phase(m, SMDSP_PHASE_CONNECTED, m->rate);
		}
	}
	if (m->pump == PUMP_V32) {
		bool carrier = m->v32.rx.q.det.carrier;

		if (smdsp_v32bis_phase(&m->v32) == SMDSP_V32BIS_PH_FAILED) {
			smdsp_modem_end_call(m, SMDSP_CAUSE_TRAINING_FAILED);
			return;
		}
		if (m->phase == SMDSP_PHASE_CONNECTED && !carrier)
			carrier_lost(m);
		else if (m->phase == SMDSP_PHASE_CARRIER_LOST && carrier &&
			 smdsp_v32bis_phase(&m->v32) == SMDSP_V32BIS_PH_DATA)
			smdsp_modem_set_phase(m, SMDSP_PHASE_CONNECTED, m->rate);
	}
	if (m->pump == PUMP_V22 && m->v22.state == SMDSP_V22BIS_FAILED) {
		if (m->phase != SMDSP_PHASE_CARRIER_LOST)
			carrier_lost(m);
		smdsp_modem_end_call(m, SMDSP_CAUSE_CARRIER_LOST);
		return;
	}
	if (m->phase == SMDSP_PHASE_CARRIER_LOST && m->t >= MS(m->cfg.carrier_loss_ms)) {
		smdsp_modem_end_call(m, SMDSP_CAUSE_CARRIER_LOST);
		return;
	}
	if (m->phase == SMDSP_PHASE_RETRAIN && m->t >= MS(10000)) {
		smdsp_modem_end_call(m, SMDSP_CAUSE_TRAINING_FAILED);
		return;
	}
	smdsp_modem_link_service(m);
}

/* not inlined: its handlers' locals stay out of smdsp_modem_process()'s frame, under V.34 */
static smdsp_noinline void step(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
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
		smdsp_modem_do_v8(m, rx, tx, n);
		break;
	case SMDSP_PHASE_PROBING:
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

		if (in_v34(m))
			v34_chunk(m, rx, tx, k);
		else
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
			/* what smdsp_modem_v8_chunk() sent last, it decides on the next change */
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
	case SMDSP_PHASE_PROBING:
	case SMDSP_PHASE_TRAINING:
	case SMDSP_PHASE_CONNECTED:
	case SMDSP_PHASE_RETRAIN:
	case SMDSP_PHASE_CARRIER_LOST:
		if (m->pump == PUMP_V22)
			smdsp_v22bis_tx(&m->v22, tx, n);
		else if (m->pump == PUMP_V32)
			smdsp_v32bis_fill(&m->v32, tx, n);
		else if (m->pump == PUMP_V34)
			smdsp_v34_fill(m->v34, tx, n);
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
