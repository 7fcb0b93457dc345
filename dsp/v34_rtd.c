// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 round-trip delay from the reversals of tones A and B (see
 * <smdsp/v34_rtd.h> for the exchange).
 *
 * The block embeds the INFO transmitter and receiver (v34_info_tx.c,
 * v34_info_rx.c) and runs them a sample at a time, so that it knows the
 * sample at which a reversal's symbol begins (the transmitter's reversal
 * flag is taken at a symbol boundary) and the one at which the receiver
 * reports the far end's. Times are kept on the line: a reversal leaves 40
 * samples after its symbol begins (the centre of the 6-symbol pulse) and
 * one that arrived was on the line 39 samples before the receiver's event
 * (its matched filter's centre; the event's sample counts from 1). The round trip is then the time between
 * our reversal leaving and the far end's arriving, less the 40 ms the far
 * end waits. An answer is asked of the transmitter 6 samples before the
 * symbol that should carry it could start, so that the symbol nearest the
 * instant carries it (600 baud: 13 1/3 samples a symbol).
 */
#include <smdsp/private/v34_rtd.h>

#define EARLY 6			/* about half a 600 baud symbol */

void smdsp_v34_rtd_init(struct smdsp_v34_rtd *s, bool calling, int level_dbm0_10)
{
	memset(s, 0, sizeof(*s));
	smdsp_v34_info_tx_init(&s->tx, calling, level_dbm0_10);
	/* hears the other end's tone; frames are not this block's business */
	smdsp_v34_info_rx_init(&s->rx, calling, 0);
	smdsp_v34_info_tx_tone(&s->tx, true);
	s->state = SMDSP_V34_RTD_TONE;
	s->rtd = -1;
	s->calling = calling;
	s->level_dbm0_10 = level_dbm0_10;
}

struct smdsp_v34_rtd *smdsp_v34_rtd_create(bool calling, int level_dbm0_10)
{
	struct smdsp_v34_rtd *s = smdsp_alloc(sizeof(*s));

	if (s)
		smdsp_v34_rtd_init(s, calling, level_dbm0_10);
	return s;
}

void smdsp_v34_rtd_free(struct smdsp_v34_rtd *s)
{
	smdsp_free(s);
}

void smdsp_v34_rtd_reset(struct smdsp_v34_rtd *s)
{
	smdsp_v34_rtd_init(s, s->calling, s->level_dbm0_10);
}

int smdsp_v34_rtd_print(const struct smdsp_v34_rtd *s, char *buf, size_t len)
{
	static const char *const names[] = { "tone", "wait", "done", "failed" };

	return snprintf(buf, len, "v34_rtd %s %s sent=%u rtd=%d", s->calling ? "call" : "answer",
			names[s->state], s->reversals_sent, s->rtd);
}

int smdsp_v34_rtd_start(struct smdsp_v34_rtd *s)
{
	if (s->calling || s->state != SMDSP_V34_RTD_TONE || s->pending || s->reversals_sent)
		return -EINVAL;
	smdsp_v34_info_tx_reverse(&s->tx);
	s->pending = true;
	return 0;
}

enum smdsp_v34_rtd_state smdsp_v34_rtd_state(const struct smdsp_v34_rtd *s)
{
	return s->state;
}

int32_t smdsp_v34_rtd_samples(const struct smdsp_v34_rtd *s)
{
	return s->rtd;
}

bool smdsp_v34_rtd_far_tone(const struct smdsp_v34_rtd *s)
{
	return smdsp_v34_info_rx_tone(&s->rx);
}

/* our reversal's symbol began at this sample */
static void sent(struct smdsp_v34_rtd *s)
{
	s->sent = s->now + SMDSP_V34R_TX_LAT;
	s->reversals_sent++;
	if (s->calling || s->reversals_sent == 1) {
		s->state = SMDSP_V34_RTD_WAIT;
		s->wait_from = s->now;
	}
	if (s->calling || s->reversals_sent == 2) {
		s->silence_at = s->now + SMDSP_V34R_HOLD;
		if (!s->calling)
			s->state = SMDSP_V34_RTD_DONE;
	}
}

/* answer a reversal that was on the line at 'at' with ours 40 ms later */
static void answer(struct smdsp_v34_rtd *s, uint32_t at)
{
	s->due = at + SMDSP_V34_RTD_TURN - SMDSP_V34R_TX_LAT - EARLY;
	s->scheduled = true;
}

/* the far end's reversal was on the line at 'at' */
static void heard(struct smdsp_v34_rtd *s, uint32_t at)
{
	if (s->state == SMDSP_V34_RTD_WAIT) {
		s->rtd = (int32_t)(at - s->sent) - SMDSP_V34_RTD_TURN;
		if (s->calling)
			s->state = SMDSP_V34_RTD_DONE;
		else
			answer(s, at);
	} else if (s->calling && s->state == SMDSP_V34_RTD_TONE && !s->scheduled && !s->pending) {
		answer(s, at);
	}
}

void smdsp_v34_rtd_process(struct smdsp_v34_rtd *s, const int16_t *rx, int16_t *tx, unsigned int n)
{
	struct smdsp_v34_info_event ev;
	unsigned int i;

	for (i = 0; i < n; i++, s->now++) {
		if (s->scheduled && (int32_t)(s->now - s->due) >= 0) {
			s->scheduled = false;
			if (!smdsp_v34_info_tx_reverse(&s->tx))
				s->pending = true;
		}
		smdsp_v34_info_tx_process(&s->tx, &tx[i], 1);
		if (s->pending && !smdsp_v34_info_tx_busy(&s->tx)) {
			s->pending = false;
			sent(s);
		}
		if (s->silence_at && s->now == s->silence_at) {
			smdsp_v34_info_tx_tone(&s->tx, false);
			s->silence_at = 0;
		}
		smdsp_v34_info_rx_process(&s->rx, &rx[i], 1);
		while (smdsp_v34_info_rx_get(&s->rx, &ev))
			if (ev.type == SMDSP_V34_EV_REVERSAL)
				heard(s, ev.sample - SMDSP_V34R_RX_LAT);
		if (s->state == SMDSP_V34_RTD_WAIT && s->now - s->wait_from > SMDSP_V34_RTD_TIMEOUT) {
			s->state = SMDSP_V34_RTD_FAILED;
			s->scheduled = false;
			smdsp_v34_info_tx_tone(&s->tx, false);
		}
	}
}
