// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 phase 2 for the call modem or the answer modem: who sends what when.
 *
 * The block embeds one DPSK transmitter and receiver (v34_info_tx.c,
 * v34_info_rx.c: INFO frames, tone A or B and their reversals) and the
 * probing transmitter and receiver (v34_probe_tx.c, v34_probe_rx.c), and
 * runs them a sample at a time: a reversal's time is known to the sample,
 * as in v34_rtd.c, whose conventions (the transmitter's and receiver's
 * delays, the 40 ms turn) it shares. One transmitter carries INFO0, the
 * tone and INFO1, so the tone follows INFO0 with no phase step a far
 * receiver could take for a reversal.
 *
 * The answer modem (A) and the call modem (C), error free:
 * 1. Each sends INFO0 (ack bit 0), then its tone, and listens for the far
 *    INFO0.
 * 2. A, with INFO0c taken, tone B heard and tone A sent for 80 ms (the
 *    recommendation's 50 ms is less than the 53 ms our tone detector needs
 *    before it can see a reversal), reverses A. C, with INFO0a taken,
 *    answers A's reversal with one of B 40 ms after it arrived, sends B-bar
 *    for 10 ms, then is silent. A measures its round trip from its reversal
 *    to B's, less 40 ms, reverses A again 40 ms after B's arrived, sends 20
 *    ms of it (with 10 ms, L1's onset reached the three steady symbols our
 *    receiver needs after a reversal) and then L1 (160 ms) and L2. C
 *    measures its round trip from its reversal to A's second, less 40 ms.
 * 3. C analyses A's L1/L2; with 24 periods of L2 averaged (480 ms) it sends
 *    tone B. A stops L2 when B comes on. C reverses B once A has had time to
 *    hear it and stop (the round trip, the 53 ms B takes to be heard, and 50
 *    ms), sends 20 ms of B-bar, then L1 and L2. A starts its analysis at that
 *    reversal; with 24 periods of L2 it sends tone A. C stops L2 when A comes
 *    on and sends INFO1c (its analysis: per symbol rate the carrier,
 *    pre-emphasis and data rate of A's transmitter, the power reduction).
 * 4. A sends INFO1a (the symbol rates of both directions, C's carrier,
 *    pre-emphasis and data rate) from its analysis and INFO1c. Both now hold
 *    the same parameters for both directions: done.
 *
 * Recovery (the INFO0 exchange, as the recommendation gives it): with no far
 * INFO0 within 2 s of sending ours, ours goes again (ack 0); a far INFO0
 * heard again means the far end did not take ours: ours goes again with the
 * ack bit set, unless the far one had its ack bit set (it took ours). A far
 * INFO0 after the first, in any step up to the round trip, starts the
 * reversals over. A reversal not heard within 3 s sends INFO0 again (the far
 * end may have missed it).
 *
 * Recovery past the round trip (ours: the recommendation's rules for these
 * steps were not at hand). A later step fails when the far L1/L2 is not
 * heard in time, ends before 24 periods of L2 or breaks into a third
 * segment (a burst or a gap: what we would measure is not the line), when
 * B-bar is not heard within 3 s, the tone that ends our L2 not within 2.5 s
 * plus the round trip, the far INFO1 not within 2 s plus the round trip (the
 * call modem 1 s more, so that when both wait in vain A's INFO0 comes
 * first) or with a bad CRC. That end sends its tone, waits as before B-bar
 * (the round trip, 53 ms and 50 ms: the far end has heard it and stopped its
 * L2), then sends INFO0 with the ack bit set and goes back to the reversals.
 * The tone comes first so that the INFO0 does not depend on the far DPSK
 * receiver hearing it under the echo of its own L1/L2 on a 2-wire line (the
 * wideband L2 fills its band; it did hear it at ERL 6 dB in the line
 * model, but L2 lies up to ERL above the far signal): the far tone is found
 * there on its own DFT bin (as when it ends L2), the far end stops and
 * listens, and our tone's echo lies on the other carrier. The far end, in
 * any later step, on an INFO0 with the ack bit set
 * (a late copy of the exchange's has it clear), drops its probing and INFO1
 * and goes back to its tone and the reversals, as does the answer modem done
 * after its INFO1a for 4.5 s plus two round trips while it is still fed (the
 * call modem lost INFO1a; v34.c, in its phase 3 by then, feeds it until it
 * hears the call modem's S, and may have heard the call modem's tone first:
 * smdsp_v34_phase2_reopen_tone()). After three retransmissions in all, or
 * 25 s, the next step's timeout fails phase 2 with its reason.
 *
 * Listen only (a recording of one direction): nothing is sent; the steps of
 * the far end's phase 2 are followed as they are heard (INFO0, tone, two
 * reversals, L1/L2 analysed, the tone again, INFO1), and an answer modem's
 * round trip is read from its reversals' spacing (its round trip and the two
 * 40 ms turns).
 */
#include <smdsp/private/v34_phase2.h>

#define EARLY 6			/* about half a 600 baud symbol: see v34_rtd.c */
#define TONE_DETECT 427		/* 32 DPSK symbols: the far receiver's tone detector */
#define BIN_HITS 3		/* periods of the far tone under our L2 (60 ms) */
#define BIN_FLOOR_DBM0_10 (-430)
#define INFO0_SAMPLES SMDSP_V34P2_MS(82)	/* INFO0's 49 bits at 600 bit/s */

static const struct smdsp_v34_phase2_config defaults = {
	.calling = false,
	.level_dbm0_10 = -120,
	.far_level_dbm0_10 = -120,
	.info0 = { .rate_2743 = true, .rate_2800 = true, .rate_3429 = true, .low_3000 = true,
		   .high_3000 = true, .low_3200 = true, .high_3200 = true, .allow_3429 = true,
		   .power_reduction = true, .c1664 = true },
};

void smdsp_v34_phase2_init(struct smdsp_v34_phase2 *s, const struct smdsp_v34_phase2_config *cfg)
{
	unsigned int k;

	memset(s, 0, sizeof(*s));
	s->cfg = cfg ? *cfg : defaults;
	s->cfg.info0.ack = false;
	smdsp_v34_info_tx_init(&s->tx, s->cfg.calling, s->cfg.level_dbm0_10);
	smdsp_v34_info_rx_init(&s->rx, s->cfg.calling, 0);
	smdsp_v34_probe_tx_init(&s->ptx, s->cfg.level_dbm0_10);
	smdsp_v34_probe_rx_init(&s->prx, s->cfg.far_level_dbm0_10);
	s->state = SMDSP_V34P2_INFO0;
	s->res.rtd = -1;
	/* the far tone's bin: 2400 Hz (48) for the call modem, 1200 Hz (24) for the answer modem */
	for (k = 0; k < 3; k++)
		s->bin_step[k] = (uint32_t)smdsp_div_u64((uint64_t)((s->cfg.calling ? 48 : 24) + k - 1) << 32,
							 SMDSP_V34_PROBE_PERIOD);
}

void smdsp_v34_phase2_default_config(struct smdsp_v34_phase2_config *cfg)
{
	*cfg = defaults;
}

struct smdsp_v34_phase2 *smdsp_v34_phase2_create(const struct smdsp_v34_phase2_config *cfg)
{
	struct smdsp_v34_info info = { .kind = SMDSP_V34_INFO0 };
	uint8_t frame[SMDSP_V34_INFO_BYTES];
	struct smdsp_v34_phase2 *s;

	/* our INFO0 must pack: a field out of Table 12's range is refused here, not on the line */
	info.i0 = cfg ? cfg->info0 : defaults.info0;
	if (smdsp_v34_info_pack(&info, frame) < 0)
		return NULL;
	s = smdsp_alloc(sizeof(*s));

	if (s)
		smdsp_v34_phase2_init(s, cfg);
	return s;
}

void smdsp_v34_phase2_free(struct smdsp_v34_phase2 *s)
{
	smdsp_free(s);
}

void smdsp_v34_phase2_reset(struct smdsp_v34_phase2 *s)
{
	struct smdsp_v34_phase2_config cfg = s->cfg;

	smdsp_v34_phase2_init(s, &cfg);
}

const char *smdsp_v34_phase2_state_name(enum smdsp_v34_phase2_state st)
{
	static const char *const names[SMDSP_V34P2_STATES] = {
		"info0", "tone", "rtd", "probe_rx", "probe_end", "probe_tx", "info1", "done", "failed"
	};

	return (unsigned int)st < SMDSP_V34P2_STATES ? names[st] : "?";
}

const char *smdsp_v34_phase2_fail_name(enum smdsp_v34_phase2_fail f)
{
	static const char *const names[SMDSP_V34P2_FAILS] = {
		"ok", "no_info0", "no_reversal", "no_probe", "no_tone", "no_info1", "no_rate"
	};

	return (unsigned int)f < SMDSP_V34P2_FAILS ? names[f] : "?";
}

int smdsp_v34_phase2_print(const struct smdsp_v34_phase2 *s, char *buf, size_t len)
{
	return snprintf(buf, len, "v34_phase2 %s%s %s info0=%u/%u retx=%u+%u rtd=%d steps=%#x fail=%s",
			s->cfg.calling ? "call" : "answer", s->cfg.listen_only ? " listen" : "",
			smdsp_v34_phase2_state_name(s->state), s->st.info0_sent, s->st.info0_heard,
			s->st.info0_retx_timeout, s->st.info0_retx_repeat, s->res.rtd, s->steps,
			smdsp_v34_phase2_fail_name(s->res.fail));
}

enum smdsp_v34_phase2_state smdsp_v34_phase2_state(const struct smdsp_v34_phase2 *s)
{
	return s->state;
}

unsigned int smdsp_v34_phase2_steps(const struct smdsp_v34_phase2 *s)
{
	return s->steps;
}

int32_t smdsp_v34_phase2_far_rtd(const struct smdsp_v34_phase2 *s)
{
	if (!s->cfg.listen_only || !s->cfg.calling || !(s->steps & SMDSP_V34P2_HEARD_REV2))
		return -1;
	return (int32_t)(s->last_rev_at - s->first_rev_at) - 2 * SMDSP_V34_RTD_TURN;
}

void smdsp_v34_phase2_get_stats(const struct smdsp_v34_phase2 *s, struct smdsp_v34_phase2_stats *st)
{
	struct smdsp_v34_info_rx_stats rs;

	*st = s->st;
	smdsp_v34_info_rx_get_stats(&s->rx, &rs);
	st->frames_refused = rs.bad_crc + rs.truncated + rs.bad_range;
}

bool smdsp_v34_phase2_result(const struct smdsp_v34_phase2 *s, struct smdsp_v34_phase2_result *r)
{
	*r = s->res;
	return s->state == SMDSP_V34P2_DONE || s->state == SMDSP_V34P2_FAILED;
}

static void wait_from_now(struct smdsp_v34_phase2 *s, enum smdsp_v34_phase2_state st)
{
	s->state = st;
	s->since = s->now;
}

static void fail(struct smdsp_v34_phase2 *s, enum smdsp_v34_phase2_fail why)
{
	s->res.fail = why;
	s->res.done_at = s->now;
	s->st.fails[why]++;
	s->state = SMDSP_V34P2_FAILED;
	s->scheduled = false;
	s->pending = false;
	s->hold_until = 0;
	s->prx_on = false;
	smdsp_v34_info_tx_tone(&s->tx, false);
	smdsp_v34_probe_tx_stop(&s->ptx);
}

/* the reversals start over (after INFO0 again) */
static void forget_reversals(struct smdsp_v34_phase2 *s)
{
	s->scheduled = false;
	s->pending = false;
	s->reversals_sent = 0;
	s->hold_until = 0;
	s->l1_after_hold = false;
	s->info0_due = false;
}

/* the round trip measured, in samples (0 before it is) */
static uint32_t rtd_or_0(const struct smdsp_v34_phase2 *s)
{
	return s->res.rtd > 0 ? (uint32_t)s->res.rtd : 0;
}

static void send_info0(struct smdsp_v34_phase2 *s, bool ack)
{
	struct smdsp_v34_info info = { .kind = SMDSP_V34_INFO0 };
	uint8_t frame[SMDSP_V34_INFO_BYTES];
	int nb;

	info.i0 = s->cfg.info0;
	info.i0.ack = ack;
	nb = smdsp_v34_info_pack(&info, frame);
	/* create refused an INFO0 that does not pack */
	if (nb > 0 && !smdsp_v34_info_tx_send(&s->tx, frame, (unsigned int)nb)) {
		s->info0_going = true;
		s->info0_at = s->now;
		s->st.info0_sent++;
	}
	/* the tone follows it */
	smdsp_v34_info_tx_tone(&s->tx, true);
	forget_reversals(s);
	wait_from_now(s, s->have_far_info0 ? SMDSP_V34P2_TONE : SMDSP_V34P2_INFO0);
}

/* the retransmissions or phase 2's time spent: failed (why), true */
static bool out_of_tries(struct smdsp_v34_phase2 *s, enum smdsp_v34_phase2_fail why)
{
	if (s->retries < SMDSP_V34P2_RETRIES && s->now < SMDSP_V34P2_T_TOTAL)
		return false;
	fail(s, why);
	return true;
}

/* INFO0 again, if retries are left; else fail with why */
static void retransmit(struct smdsp_v34_phase2 *s, enum smdsp_v34_phase2_fail why)
{
	if (out_of_tries(s, why))
		return;
	s->retries++;
	if (why == SMDSP_V34P2_NO_INFO0)
		s->st.info0_retx_timeout++;
	else
		s->st.restarts++;
	send_info0(s, s->have_far_info0);
}

/* what a later step began is dropped: back to the reversals */
static void forget_later_steps(struct smdsp_v34_phase2 *s)
{
	smdsp_v34_probe_tx_stop(&s->ptx);
	s->prx_on = false;
	s->l1_reversal_asked = false;
	s->have_probe = false;
	s->info1_sent = false;
	s->have_far_info1 = false;
	s->restart_pending = false;
	forget_reversals(s);
}

/*
 * A later step failed (why): our tone, which ends the far end's L2 as after
 * our analysis, and INFO0 once the far end has had time to hear it and stop
 * (as before B-bar), so that it is not sent under the far end's own L2
 */
static void restart(struct smdsp_v34_phase2 *s, enum smdsp_v34_phase2_fail why)
{
	if (out_of_tries(s, why))
		return;
	forget_later_steps(s);
	smdsp_v34_info_tx_tone(&s->tx, true);
	s->restart_pending = true;
	s->restart_why = why;
	wait_from_now(s, SMDSP_V34P2_PROBE_END);
}

/* the far end went back from a later step (its INFO0 again, ours taken): we do too, with our tone */
static void far_restart(struct smdsp_v34_phase2 *s)
{
	s->st.far_restarts++;
	forget_later_steps(s);
	smdsp_v34_info_tx_tone(&s->tx, true);
	s->tone_from = s->now;
	wait_from_now(s, SMDSP_V34P2_TONE);
}

static void schedule_reversal(struct smdsp_v34_phase2 *s, uint32_t at)
{
	s->due = at + SMDSP_V34_RTD_TURN - SMDSP_V34R_TX_LAT - EARLY;
	s->scheduled = true;
}

static void dir_from_info1(struct smdsp_v34_phase2 *s)
{
	const struct smdsp_v34_info1c *c = &s->res.info1c;
	const struct smdsp_v34_info1a *a = &s->res.info1a;
	const struct smdsp_v34_info1c_rate *ac = &c->rate[a->rate_a_to_c < SMDSP_V34_SYMRATES ?
							   a->rate_a_to_c : 0];

	s->res.a_to_c.symrate = a->rate_a_to_c;
	s->res.a_to_c.high_carrier = ac->high_carrier;
	s->res.a_to_c.preemph = ac->preemph;
	s->res.a_to_c.max_rate = (uint16_t)(ac->max_rate * 2400u);
	s->res.a_to_c.power_red = c->min_power_red;
	s->res.a_to_c.add_power_red = c->add_power_red;
	s->res.c_to_a.symrate = a->rate_c_to_a;
	s->res.c_to_a.high_carrier = a->high_carrier;
	s->res.c_to_a.preemph = a->preemph;
	s->res.c_to_a.max_rate = (uint16_t)(a->max_rate * 2400u);
	s->res.c_to_a.power_red = a->min_power_red;
	s->res.c_to_a.add_power_red = a->add_power_red;
}

static void finish(struct smdsp_v34_phase2 *s)
{
	dir_from_info1(s);
	if (!s->res.a_to_c.max_rate || !s->res.c_to_a.max_rate) {
		fail(s, SMDSP_V34P2_NO_RATE);
		return;
	}
	s->res.fail = SMDSP_V34P2_OK;
	s->res.done_at = s->now;
	s->state = SMDSP_V34P2_DONE;
}

/* the far INFO0 */
static void far_info0(struct smdsp_v34_phase2 *s, const struct smdsp_v34_info0 *i0)
{
	bool again = s->have_far_info0;

	s->st.info0_heard++;
	s->steps |= SMDSP_V34P2_HEARD_INFO0;
	if (s->cfg.listen_only) {
		s->res.far_info0 = *i0;
		s->have_far_info0 = true;
		/* reversals count after an INFO0; another INFO0 (a restart) starts them over */
		if (!(s->steps & SMDSP_V34P2_HEARD_PROBE)) {
			s->steps &= ~(unsigned int)(SMDSP_V34P2_HEARD_REV1 | SMDSP_V34P2_HEARD_REV2);
			s->prx_on = false;
			wait_from_now(s, SMDSP_V34P2_TONE);
		}
		return;
	}
	if (s->state > SMDSP_V34P2_RTD) {
		/* a restart from a later step has the ack bit set; one without it is a late copy */
		if (i0->ack) {
			s->res.far_info0 = *i0;
			far_restart(s);
		}
		return;
	}
	s->res.far_info0 = *i0;
	s->have_far_info0 = true;
	if (!again) {
		if (s->state == SMDSP_V34P2_INFO0)
			wait_from_now(s, SMDSP_V34P2_TONE);
		return;
	}
	/* the far end sent its INFO0 again: it restarted, so do we */
	if (!i0->ack) {
		s->st.info0_retx_repeat++;
		send_info0(s, true);
	} else {
		forget_reversals(s);
		smdsp_v34_info_tx_tone(&s->tx, true);
		wait_from_now(s, SMDSP_V34P2_TONE);
	}
}

static void far_info1(struct smdsp_v34_phase2 *s, const struct smdsp_v34_info *info)
{
	s->steps |= SMDSP_V34P2_HEARD_INFO1;
	if (s->cfg.listen_only) {
		/* the far end's last step of phase 2 */
		if (info->kind == SMDSP_V34_INFO1C)
			s->res.info1c = info->i1c;
		else
			s->res.info1a = info->i1a;
		s->res.done_at = s->now;
		s->state = SMDSP_V34P2_DONE;
		return;
	}
	if (s->state != SMDSP_V34P2_INFO1 || s->have_far_info1)
		return;
	s->have_far_info1 = true;
	if (s->cfg.calling) {
		s->res.info1a = info->i1a;
		if (s->info1_sent && !smdsp_v34_info_tx_busy(&s->tx))
			finish(s);
	} else {
		struct smdsp_v34_info out = { .kind = SMDSP_V34_INFO1A };
		uint8_t frame[SMDSP_V34_INFO_BYTES];
		int nb;

		s->res.info1c = info->i1c;
		smdsp_v34_probe_info1a(&s->probe, &s->res.info1c, &s->cfg.info0, &s->res.far_info0,
				       &out.i1a);
		out.i1a.md_len = s->cfg.md_len;
		s->res.info1a = out.i1a;
		nb = smdsp_v34_info_pack(&out, frame);
		if (nb > 0)
			smdsp_v34_info_tx_send(&s->tx, frame, (unsigned int)nb);
		/* silence after it */
		smdsp_v34_info_tx_tone(&s->tx, false);
		s->info1_sent = true;
	}
}

static void start_probe_rx(struct smdsp_v34_phase2 *s)
{
	smdsp_v34_probe_rx_init(&s->prx, s->cfg.far_level_dbm0_10);
	s->prx_on = true;
	s->segs = 0;
}

/* the far end's reversal was on the line at 'at' */
static void far_reversal(struct smdsp_v34_phase2 *s, uint32_t at)
{
	if (s->cfg.listen_only) {
		if ((s->steps & SMDSP_V34P2_HEARD_PROBE) || !s->have_far_info0)
			return;
		if (!(s->steps & SMDSP_V34P2_HEARD_REV1)) {
			s->steps |= SMDSP_V34P2_HEARD_REV1;
			s->first_rev_at = at;
			wait_from_now(s, SMDSP_V34P2_RTD);
		} else {
			/* the last of them before L1 counts: its spacing from the first */
			s->steps |= SMDSP_V34P2_HEARD_REV2;
			s->last_rev_at = at;
			start_probe_rx(s);
			wait_from_now(s, SMDSP_V34P2_PROBE_RX);
		}
		return;
	}
	if (!s->have_far_info0)
		return;
	if (s->cfg.calling) {
		if (s->state == SMDSP_V34P2_TONE && !s->scheduled && !s->pending && !s->reversals_sent) {
			s->steps |= SMDSP_V34P2_HEARD_REV1;
			schedule_reversal(s, at);
			wait_from_now(s, SMDSP_V34P2_RTD);
		} else if (s->state == SMDSP_V34P2_RTD && s->reversals_sent && !s->pending && !s->scheduled) {
			s->steps |= SMDSP_V34P2_HEARD_REV2;
			s->res.rtd = (int32_t)(at - s->sent) - SMDSP_V34_RTD_TURN;
			/* A's L1 follows the reversed tone: listen for it */
			start_probe_rx(s);
			wait_from_now(s, SMDSP_V34P2_PROBE_RX);
		}
		return;
	}
	if (s->state == SMDSP_V34P2_RTD && s->reversals_sent == 1 && !s->pending && !s->scheduled) {
		s->steps |= SMDSP_V34P2_HEARD_REV1;
		s->res.rtd = (int32_t)(at - s->sent) - SMDSP_V34_RTD_TURN;
		schedule_reversal(s, at);
	} else if (s->state == SMDSP_V34P2_PROBE_RX && !s->prx_on && !s->restart_pending) {
		/* B-bar: C's L1 follows it */
		s->steps |= SMDSP_V34P2_HEARD_REV2;
		start_probe_rx(s);
		s->since = s->now;
	}
}

static void far_tone_on(struct smdsp_v34_phase2 *s)
{
	s->steps |= (s->steps & SMDSP_V34P2_HEARD_PROBE) ? SMDSP_V34P2_HEARD_TONE2 : SMDSP_V34P2_HEARD_TONE;
	if (s->cfg.listen_only || s->state != SMDSP_V34P2_PROBE_TX)
		return;
	/* the far end has measured our L2: stop it */
	smdsp_v34_probe_tx_stop(&s->ptx);
	if (s->cfg.calling) {
		struct smdsp_v34_info info = { .kind = SMDSP_V34_INFO1C };
		uint8_t frame[SMDSP_V34_INFO_BYTES];
		int nb;

		smdsp_v34_probe_info1c(&s->probe, &s->res.far_info0, &s->cfg.info0, &info.i1c);
		info.i1c.md_len = s->cfg.md_len;
		s->res.info1c = info.i1c;
		nb = smdsp_v34_info_pack(&info, frame);
		if (nb > 0)
			smdsp_v34_info_tx_send(&s->tx, frame, (unsigned int)nb);
		smdsp_v34_info_tx_tone(&s->tx, false);
		s->info1_sent = true;
		s->bad_crc = s->rx.st.bad_crc;
		wait_from_now(s, SMDSP_V34P2_INFO1);
	} else {
		/* B-bar and C's L1 come next */
		s->prx_on = false;
		wait_from_now(s, SMDSP_V34P2_PROBE_RX);
	}
}

/*
 * The far tone while we send L2. Our L2's echo repeats every 160 samples,
 * so over any 160 of them it has energy only on every third bin of a
 * 160-point DFT; tone A (bin 48) and B (bin 24) are slots L2 leaves out,
 * and the bins beside them hold only the line's noise. The DPSK receiver
 * needs 32 steady symbols within its 1 kHz band, where L2's neighbouring
 * tones may be as strong as the far tone (a long loop's echo): this needs
 * the tone 9 dB above its neighbour bins for three periods.
 */
static bool bin_tone(struct smdsp_v34_phase2 *s, int16_t x)
{
	uint64_t p[3];
	unsigned int k;

	for (k = 0; k < 3; k++) {
		s->bin_re[k] += (int32_t)x * smdsp_cos(s->bin_ph[k]);
		s->bin_im[k] -= (int32_t)x * smdsp_sin(s->bin_ph[k]);
		s->bin_ph[k] += s->bin_step[k];
	}
	if (++s->bin_n < SMDSP_V34_PROBE_PERIOD)
		return false;
	for (k = 0; k < 3; k++) {
		int64_t re = (s->bin_re[k] + (1 << 14)) >> 15, im = (s->bin_im[k] + (1 << 14)) >> 15;

		p[k] = (uint64_t)(re * re) + (uint64_t)(im * im);
		s->bin_re[k] = 0;
		s->bin_im[k] = 0;
		s->bin_ph[k] = 0;
	}
	s->bin_n = 0;
	/* a tone's energy over the period is 2 |Y|^2 / N */
	if (2 * p[1] >= smdsp_dbm0_to_power(BIN_FLOOR_DBM0_10) * SMDSP_V34_PROBE_PERIOD * SMDSP_V34_PROBE_PERIOD &&
	    p[1] >= 4 * (p[0] + p[2]))
		s->bin_hits++;
	else
		s->bin_hits = 0;
	return s->bin_hits >= BIN_HITS;
}

static void event(struct smdsp_v34_phase2 *s, const struct smdsp_v34_info_event *ev)
{
	switch (ev->type) {
	case SMDSP_V34_EV_FRAME:
		if (ev->info.kind == SMDSP_V34_INFO0)
			far_info0(s, &ev->info.i0);
		else
			far_info1(s, &ev->info);
		break;
	case SMDSP_V34_EV_TONE_ON:
		far_tone_on(s);
		break;
	case SMDSP_V34_EV_REVERSAL:
		far_reversal(s, ev->sample - SMDSP_V34R_RX_LAT);
		break;
	default:
		break;
	}
}

/* our reversal's symbol began now */
static void reversal_sent(struct smdsp_v34_phase2 *s)
{
	s->sent = s->now + SMDSP_V34R_TX_LAT;
	s->reversals_sent++;
	if (s->cfg.calling) {
		/* the first: B-bar then silence; the second: B-bar then L1 */
		s->l1_after_hold = s->state == SMDSP_V34P2_PROBE_END;
	} else {
		/* the first: A-bar, waiting for B's; the second: A then L1 */
		s->l1_after_hold = s->reversals_sent == 2;
		wait_from_now(s, SMDSP_V34P2_RTD);
	}
	if (s->l1_after_hold)
		s->hold_until = s->now + SMDSP_V34P2_HOLD_L1;
	else if (s->cfg.calling)
		s->hold_until = s->now + SMDSP_V34R_HOLD;
}

/* the probing receiver has enough of the far L2 (or the far end stopped it) */
static void probe_taken(struct smdsp_v34_phase2 *s)
{
	smdsp_v34_probe_rx_result(&s->prx, &s->probe);
	s->prx_on = false;
	/* the far L2 ended before we asked (a burst or a gap in it): lost, and the measurement not the full one */
	if (!s->cfg.listen_only && s->prx.seg.periods < SMDSP_V34P2_L2_PERIODS) {
		restart(s, SMDSP_V34P2_NO_PROBE);
		return;
	}
	if (!s->probe.valid) {
		if (!s->cfg.listen_only) {
			restart(s, SMDSP_V34P2_NO_PROBE);
			return;
		}
		/* a listener waits for another */
		smdsp_v34_probe_rx_init(&s->prx, s->cfg.far_level_dbm0_10);
		s->prx_on = true;
		return;
	}
	s->have_probe = true;
	s->steps |= SMDSP_V34P2_HEARD_PROBE;
	if (s->cfg.listen_only) {
		wait_from_now(s, SMDSP_V34P2_INFO1);
		return;
	}
	/* our tone tells the far end to stop L2 */
	smdsp_v34_info_tx_tone(&s->tx, true);
	s->bad_crc = s->rx.st.bad_crc;
	wait_from_now(s, s->cfg.calling ? SMDSP_V34P2_PROBE_END : SMDSP_V34P2_INFO1);
}

static void poll_probe(struct smdsp_v34_phase2 *s)
{
	const struct smdsp_v34_probe_rx *p = &s->prx;

	if (smdsp_v34_probe_rx_done(p) || p->seg.periods >= SMDSP_V34P2_L2_PERIODS) {
		probe_taken(s);
		return;
	}
	if (s->cfg.listen_only)
		return;
	/*
	 * L1 and L2 are two segments of one level each: a third (L2 broken by
	 * a burst or a gap, or started over after one) is not the far L2 we
	 * would have measured
	 */
	if (p->seg.periods && p->seg.start != s->seg_start) {
		s->seg_start = p->seg.start;
		if (++s->segs > 2) {
			restart(s, SMDSP_V34P2_NO_PROBE);
			return;
		}
	}
	/* nothing heard yet after the far reversal, or far too long */
	if ((!smdsp_v34_probe_rx_active(p) && !p->seg.periods && s->now - s->since > SMDSP_V34P2_T_PROBE) ||
	    s->now - s->since > SMDSP_V34P2_T_PROBE + SMDSP_V34P2_MS(1500))
		restart(s, SMDSP_V34P2_NO_PROBE);
}

/* the steps that wait on time rather than on the far end */
static void poll(struct smdsp_v34_phase2 *s)
{
	uint32_t waited = s->now - s->since;
	uint32_t rtd = rtd_or_0(s);

	if (s->info0_going && !smdsp_v34_info_tx_busy(&s->tx)) {
		s->info0_going = false;
		s->tone_from = s->now;
	}
	switch (s->state) {
	case SMDSP_V34P2_INFO0:
		if (s->now - s->info0_at > SMDSP_V34P2_T_INFO0)
			retransmit(s, SMDSP_V34P2_NO_INFO0);
		break;
	case SMDSP_V34P2_TONE:
		if (!s->cfg.calling && !s->info0_going && smdsp_v34_info_rx_tone(&s->rx) &&
		    s->now - s->tone_from >= SMDSP_V34P2_T_A_MIN && !s->pending &&
		    (!s->info0_due || (int32_t)(s->now - s->info0_by) >= 0)) {
			/* A-bar: the round trip starts */
			if (!smdsp_v34_info_tx_reverse(&s->tx))
				s->pending = true;
		} else if (waited > SMDSP_V34P2_T_REV) {
			retransmit(s, SMDSP_V34P2_NO_REVERSAL);
		}
		break;
	case SMDSP_V34P2_RTD:
		if (waited > SMDSP_V34P2_T_REV && !s->l1_after_hold)
			retransmit(s, SMDSP_V34P2_NO_REVERSAL);
		break;
	case SMDSP_V34P2_PROBE_RX:
		if (s->prx_on)
			poll_probe(s);
		else if (waited > SMDSP_V34P2_T_REV)
			restart(s, SMDSP_V34P2_NO_REVERSAL);
		break;
	case SMDSP_V34P2_PROBE_END:
		if (s->restart_pending) {
			if (waited >= rtd + TONE_DETECT + SMDSP_V34P2_B_AFTER) {
				s->restart_pending = false;
				retransmit(s, s->restart_why);
			}
			break;
		}
		/* the call modem: A has heard B and stopped L2; B-bar then our L1 */
		if (waited >= rtd + TONE_DETECT + SMDSP_V34P2_B_AFTER && !s->pending && !s->l1_reversal_asked) {
			if (!smdsp_v34_info_tx_reverse(&s->tx))
				s->pending = true;
			s->l1_reversal_asked = true;
		}
		break;
	case SMDSP_V34P2_PROBE_TX:
		if (waited > SMDSP_V34P2_T_L2 + rtd)
			restart(s, SMDSP_V34P2_NO_TONE);
		break;
	case SMDSP_V34P2_INFO1:
		if (s->cfg.listen_only)
			break;
		if (s->info1_sent && !smdsp_v34_info_tx_busy(&s->tx) &&
		    (s->cfg.calling ? s->have_far_info1 : true)) {
			finish(s);
		} else if (!s->have_far_info1 &&
			   (s->rx.st.bad_crc != s->bad_crc ||
			    waited > SMDSP_V34P2_T_INFO1 + rtd + (s->cfg.calling ? SMDSP_V34P2_T_INFO1_C : 0))) {
			/* a corrupted INFO1 goes back at once; the call modem waits longer, so that A's INFO0 leads */
			restart(s, SMDSP_V34P2_NO_INFO1);
		}
		break;
	default:
		break;
	}
}

static void listen(struct smdsp_v34_phase2 *s, const int16_t *rx, unsigned int n)
{
	struct smdsp_v34_info_event ev;
	unsigned int i;

	for (i = 0; i < n && s->state != SMDSP_V34P2_DONE; i++, s->now++) {
		smdsp_v34_info_rx_process(&s->rx, &rx[i], 1);
		while (smdsp_v34_info_rx_get(&s->rx, &ev))
			event(s, &ev);
		if (s->prx_on) {
			smdsp_v34_probe_rx_process(&s->prx, &rx[i], 1);
			poll_probe(s);
		}
		if (s->state == SMDSP_V34P2_INFO0 && s->have_far_info0)
			s->state = SMDSP_V34P2_TONE;
	}
}

bool smdsp_v34_phase2_reopenable(const struct smdsp_v34_phase2 *s)
{
	uint32_t rtd = rtd_or_0(s);

	return !s->cfg.calling && !s->cfg.listen_only && s->state == SMDSP_V34P2_DONE &&
	       s->now - s->res.done_at <= SMDSP_V34P2_T_REOPEN + 2 * rtd;
}

static bool reopen_now(struct smdsp_v34_phase2 *s)
{
	if (!smdsp_v34_phase2_reopenable(s))
		return false;
	s->res.fail = SMDSP_V34P2_OK;
	far_restart(s);
	return true;
}

/*
 * The call modem's INFO0c comes a round trip, TONE_DETECT and B_AFTER after
 * its tone began, which was heard 40 ms in at least: our reversal waits for
 * it (one before it finds the call modem still sending its tone, and is
 * lost), or for as long as it takes when it came unheard
 */
bool smdsp_v34_phase2_reopen_tone(struct smdsp_v34_phase2 *s)
{
	uint32_t rtd = rtd_or_0(s);

	if (!reopen_now(s))
		return false;
	s->info0_due = true;
	s->info0_by = s->now + rtd + TONE_DETECT + SMDSP_V34P2_B_AFTER + INFO0_SAMPLES;
	return true;
}

/*
 * The answer modem done, still fed: INFO0c again (ack set) means the call
 * modem lost our INFO1a; we go back with it
 */
static bool reopen(struct smdsp_v34_phase2 *s, const struct smdsp_v34_info_event *ev)
{
	if (!smdsp_v34_phase2_reopenable(s) || ev->type != SMDSP_V34_EV_FRAME ||
	    ev->info.kind != SMDSP_V34_INFO0 || !ev->info.i0.ack)
		return false;
	s->st.info0_heard++;
	s->res.far_info0 = ev->info.i0;
	return reopen_now(s);
}

void smdsp_v34_phase2_process(struct smdsp_v34_phase2 *s, const int16_t *rx, int16_t *tx, unsigned int n)
{
	struct smdsp_v34_info_event ev;
	unsigned int i;

	if (s->cfg.listen_only) {
		memset(tx, 0, n * sizeof(*tx));
		listen(s, rx, n);
		return;
	}
	for (i = 0; i < n; i++, s->now++) {
		int16_t a, b;

		if (s->state >= SMDSP_V34P2_DONE) {
			/* the tail of INFO1a or INFO1c still leaves the filter */
			smdsp_v34_info_tx_process(&s->tx, &tx[i], 1);
			smdsp_v34_info_rx_process(&s->rx, &rx[i], 1);
			while (smdsp_v34_info_rx_get(&s->rx, &ev))
				if (reopen(s, &ev))
					break;
			continue;
		}
		if (s->now == 0 && !s->st.info0_sent)
			send_info0(s, false);
		if (s->scheduled && (int32_t)(s->now - s->due) >= 0) {
			s->scheduled = false;
			if (!smdsp_v34_info_tx_reverse(&s->tx))
				s->pending = true;
		}
		smdsp_v34_info_tx_process(&s->tx, &a, 1);
		smdsp_v34_probe_tx_process(&s->ptx, &b, 1);
		tx[i] = smdsp_sat16((int32_t)a + b);
		if (s->pending && !smdsp_v34_info_tx_busy(&s->tx)) {
			s->pending = false;
			reversal_sent(s);
		}
		if (s->hold_until && s->now == s->hold_until) {
			s->hold_until = 0;
			smdsp_v34_info_tx_tone(&s->tx, false);
			if (s->l1_after_hold) {
				s->l1_after_hold = false;
				smdsp_v34_probe_tx_start(&s->ptx, 0);
				s->bin_n = 0;
				s->bin_hits = 0;
				memset(s->bin_re, 0, sizeof(s->bin_re));
				memset(s->bin_im, 0, sizeof(s->bin_im));
				memset(s->bin_ph, 0, sizeof(s->bin_ph));
				wait_from_now(s, SMDSP_V34P2_PROBE_TX);
			}
		}
		smdsp_v34_info_rx_process(&s->rx, &rx[i], 1);
		while (smdsp_v34_info_rx_get(&s->rx, &ev))
			event(s, &ev);
		if (s->prx_on)
			smdsp_v34_probe_rx_process(&s->prx, &rx[i], 1);
		if (s->state == SMDSP_V34P2_PROBE_TX && bin_tone(s, rx[i]))
			far_tone_on(s);
		if (s->state < SMDSP_V34P2_DONE)
			poll(s);
	}
}
