// SPDX-License-Identifier: GPL-2.0
/*
 * The modem engine's V.8 (<smdsp/modem.h>; the phases around it are
 * modem_phase.c's).  The V.8 block does the protocol; this file gives it
 * its signals: V.21 both ways, each burst from a clean bit clock, and the
 * answerer's ANSam.  The answerer sends ANSam until a CM stops it, then
 * JM until CJ, and takes a caller that never sends CM for a V.25 one; the
 * caller's V.8 runs from the end of dialling, told by modem_phase.c whether
 * the answer tone was ANSam or a plain ANS (a V.25 answerer).  At the end
 * the modulation V.8 chose starts (V.34, V.32bis, V.22bis or V.21, V.42 without
 * detection when both agreed on LAPM), or the call ends when nothing
 * common was found.
 */
#include <smdsp/private/modem.h>

#define ANSAM_MS	5200	/* longer than V.8's 5 s: the V.8 block ends it */

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

static unsigned int v8_modes(const struct smdsp_modem *m)
{
	unsigned int mods = 0;

	if (smdsp_modem_v34_max(m))
		mods |= SMDSP_V8_MOD_V34;
	if (smdsp_modem_v32_rates(m))
		mods |= SMDSP_V8_MOD_V32;
	if (m->cfg.modulations & (SMDSP_MODEM_V22 | SMDSP_MODEM_V22BIS))
		mods |= SMDSP_V8_MOD_V22;
	if (m->cfg.modulations & SMDSP_MODEM_V21)
		mods |= SMDSP_V8_MOD_V21;
	return mods;
}

bool smdsp_modem_v8_start(struct smdsp_modem *m)
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
void smdsp_modem_v8_chunk(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
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
void smdsp_modem_v8_end(struct smdsp_modem *m)
{
	struct smdsp_v8_result r;

	smdsp_v8_get_result(m->v8, &r);
	m->v8_run = V8_IDLE;
	smdsp_modem_put_event(m, SMDSP_EV_V8, (uint32_t)r.status);
	if (r.status == SMDSP_V8_FAILED) {
		smdsp_modem_end_call(m, SMDSP_CAUSE_TRAINING_FAILED);
		return;
	}
	if (r.status != SMDSP_V8_DONE)
		return;
	m->v8_lapm = r.lapm;
	m->v8_no_lapm = !r.lapm;
	m->tone_done = true;
	if (r.selected == SMDSP_V8_MOD_V34 && smdsp_modem_v34_max(m)) {
		/* phase 2 begins now: V.8's 75 ms of silence after CJ are behind us */
		if (!smdsp_modem_start_v34(m, m->calling && smdsp_modem_has_v22(m) &&
					   (r.common & SMDSP_V8_MOD_V22))) {
			smdsp_modem_end_call(m, SMDSP_CAUSE_TRAINING_FAILED);
			return;
		}
	} else if (r.selected == SMDSP_V8_MOD_V32 && smdsp_modem_v32_rates(m)) {
		/*
		 * A peer's JM may offer back what it cannot run (SpanDSP
		 * 0.0.6's echoes our CM): V.22bis stays possible, as in the
		 * automode, when both named it.
		 */
		if (m->calling && smdsp_modem_has_v22(m) && (r.common & SMDSP_V8_MOD_V22)) {
			smdsp_modem_start_v22(m);
			smdsp_modem_init_v32(m);
			m->v32_listen = true;
		} else {
			smdsp_modem_start_v32(m);
			m->v32_auto = smdsp_modem_has_v22(m) && (r.common & SMDSP_V8_MOD_V22);
		}
	} else if (r.selected == SMDSP_V8_MOD_V22 && (m->cfg.modulations &
					      (SMDSP_MODEM_V22 | SMDSP_MODEM_V22BIS))) {
		smdsp_modem_start_v22(m);
	} else if (r.selected == SMDSP_V8_MOD_V21 && (m->cfg.modulations & SMDSP_MODEM_V21)) {
		smdsp_modem_start_v21(m);
	} else {
		smdsp_modem_end_call(m, SMDSP_CAUSE_TRAINING_FAILED);
		return;
	}
	/* V.34's phase 2 is a phase of its own (its probing costs differ from training's) */
	smdsp_modem_set_phase(m, m->pump == PUMP_V34 ? SMDSP_PHASE_PROBING : SMDSP_PHASE_TRAINING, 0);
}

/* V.8 answerer: ANSam until CM, then JM until CJ. */
void smdsp_modem_v8_answerer(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	smdsp_modem_v8_chunk(m, rx, tx, n);
	switch (smdsp_v8_status(m->v8)) {
	case SMDSP_V8_IN_PROGRESS:
		/* ANSam stopped: a CM came */
		if (m->phase == SMDSP_PHASE_ANSWER_TONE &&
		    smdsp_v8_tx_signal(m->v8) != SMDSP_V8_TX_ANSAM)
			smdsp_modem_set_phase(m, SMDSP_PHASE_V8, 0);
		break;
	case SMDSP_V8_NON_V8:
		/* ANSam was the answer tone for a V.25 caller */
		smdsp_modem_v8_end(m);
		smdsp_modem_legacy_answer(m);
		break;
	default:
		smdsp_modem_v8_end(m);
		break;
	}
}

/* Either role, between ANSam and the modulation. */
void smdsp_modem_do_v8(struct smdsp_modem *m, const int16_t *rx, int16_t *tx, unsigned int n)
{
	if (m->v8_run != V8_RUNNING) {
		memset(tx, 0, n * sizeof(*tx));
		return;
	}
	if (!m->calling) {
		smdsp_modem_v8_answerer(m, rx, tx, n);
		return;
	}
	smdsp_modem_v8_chunk(m, rx, tx, n);
	if (smdsp_v8_status(m->v8) != SMDSP_V8_IN_PROGRESS)
		smdsp_modem_v8_end(m);
}
