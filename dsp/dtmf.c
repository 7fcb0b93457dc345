// SPDX-License-Identifier: GPL-2.0
/*
 * DTMF generator and detector. The detector runs eight Goertzel filters over
 * 102-sample blocks and accepts a digit after two consecutive agreeing blocks
 * (so tones shorter than ~25 ms are rejected and 40 ms ones are accepted).
 */
#include <smdsp/private/dtmf.h>

static const int32_t row_mhz[4] = { 697000, 770000, 852000, 941000 };
static const int32_t col_mhz[4] = { 1209000, 1336000, 1477000, 1633000 };
static const char keypad[4][4] = {
	{ '1', '2', '3', 'A' },
	{ '4', '5', '6', 'B' },
	{ '7', '8', '9', 'C' },
	{ '*', '0', '#', 'D' },
};

void smdsp_dtmf_tx_init(struct smdsp_dtmf_tx *s)
{
	memset(s, 0, sizeof(*s));
	s->level_dbm0_10 = -100;
	s->on_ms = 70;
	s->off_ms = 70;
}

struct smdsp_dtmf_tx *smdsp_dtmf_tx_create(void)
{
	struct smdsp_dtmf_tx *s = smdsp_alloc(sizeof(*s));

	if (s)
		smdsp_dtmf_tx_init(s);
	return s;
}

void smdsp_dtmf_tx_free(struct smdsp_dtmf_tx *s)
{
	smdsp_free(s);
}

void smdsp_dtmf_tx_set_timing(struct smdsp_dtmf_tx *s, unsigned int on_ms, unsigned int off_ms)
{
	s->on_ms = (uint16_t)on_ms;
	s->off_ms = (uint16_t)off_ms;
}

int smdsp_dtmf_tx_put(struct smdsp_dtmf_tx *s, const char *digits)
{
	int n = 0;

	for (; *digits; digits++) {
		unsigned int next = (s->head + 1) % SMDSP_DTMF_QUEUE;

		if (next == s->tail)
			break;
		s->queue[s->head] = *digits;
		s->head = next;
		n++;
	}
	return n;
}

static bool start_digit(struct smdsp_dtmf_tx *s, char c)
{
	struct smdsp_tone_desc d;
	int r, k;

	memset(&d, 0, sizeof(d));
	if (c == ',') {
		d.on_ms = 2000;
		d.cycles = 1;
		smdsp_tone_init(&s->gen, &d);
		return true;
	}
	if (c >= 'a' && c <= 'd')
		c -= 'a' - 'A';
	for (r = 0; r < 4; r++) {
		for (k = 0; k < 4; k++) {
			if (keypad[r][k] != c)
				continue;
			d.freq_mhz[0] = row_mhz[r];
			d.freq_mhz[1] = col_mhz[k];
			d.level_dbm0_10[0] = s->level_dbm0_10;
			d.level_dbm0_10[1] = s->level_dbm0_10 + 20;
			d.on_ms = s->on_ms;
			d.off_ms = s->off_ms;
			d.cycles = 1;
			smdsp_tone_init(&s->gen, &d);
			return true;
		}
	}
	return false;
}

int smdsp_dtmf_tx_process(struct smdsp_dtmf_tx *s, int16_t *out, unsigned int n)
{
	unsigned int done = 0;

	while (done < n) {
		if (!s->active) {
			if (s->head == s->tail)
				break;
			s->active = start_digit(s, s->queue[s->tail]);
			s->tail = (s->tail + 1) % SMDSP_DTMF_QUEUE;
			continue;
		}
		done += smdsp_tone_process(&s->gen, out + done, n - done);
		if (smdsp_tone_done(&s->gen))
			s->active = false;
	}
	memset(out + done, 0, (n - done) * sizeof(*out));
	return (int)((s->head - s->tail + SMDSP_DTMF_QUEUE) % SMDSP_DTMF_QUEUE) + s->active;
}

void smdsp_dtmf_rx_init(struct smdsp_dtmf_rx *s)
{
	int i;
	uint64_t a;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < 4; i++) {
		smdsp_goertzel_init(&s->row[i], row_mhz[i]);
		smdsp_goertzel_init(&s->col[i], col_mhz[i]);
	}
	/* (A N / 2)^2 for a tone at -33 dBm0 */
	a = (uint64_t)smdsp_dbm0_to_amp(-330) * SMDSP_DTMF_BLOCK / 2;
	s->min_energy = a * a;
}

struct smdsp_dtmf_rx *smdsp_dtmf_rx_create(void)
{
	struct smdsp_dtmf_rx *s = smdsp_alloc(sizeof(*s));

	if (s)
		smdsp_dtmf_rx_init(s);
	return s;
}

void smdsp_dtmf_rx_free(struct smdsp_dtmf_rx *s)
{
	smdsp_free(s);
}

static int best_of(const uint64_t *e, uint64_t *best)
{
	int i, b = 0;

	for (i = 1; i < 4; i++)
		if (e[i] > e[b])
			b = i;
	*best = e[b];
	/* the others must be at least 6 dB down */
	for (i = 0; i < 4; i++)
		if (i != b && e[i] * 4 > e[b])
			return -1;
	return b;
}

static char classify(struct smdsp_dtmf_rx *s)
{
	uint64_t re[4], ce[4];
	uint64_t rbest, cbest;
	int i, r, c;

	for (i = 0; i < 4; i++) {
		re[i] = smdsp_goertzel_result(&s->row[i]);
		ce[i] = smdsp_goertzel_result(&s->col[i]);
	}
	r = best_of(re, &rbest);
	c = best_of(ce, &cbest);
	if (r < 0 || c < 0)
		return 0;
	if (rbest < s->min_energy || cbest < s->min_energy)
		return 0;
	/* twist: high group at most 8 dB above, or 4 dB below, the low group */
	if (cbest > rbest * 6 + rbest / 3 || cbest * 5 / 2 < rbest)
		return 0;
	/* the two tones must carry most of the block's energy: N/2 sum x^2 */
	if ((rbest + cbest) * 10 < s->energy * (SMDSP_DTMF_BLOCK / 2) * 6)
		return 0;
	return keypad[r][c];
}

static void push_digit(struct smdsp_dtmf_rx *s, char d)
{
	unsigned int next = (s->head + 1) % SMDSP_DTMF_QUEUE;

	if (next == s->tail)
		return;
	s->digits[s->head] = d;
	s->head = next;
}

void smdsp_dtmf_rx_process(struct smdsp_dtmf_rx *s, const int16_t *x, unsigned int n)
{
	unsigned int i;
	int k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < 4; k++) {
			smdsp_goertzel_sample(&s->row[k], x[i]);
			smdsp_goertzel_sample(&s->col[k], x[i]);
		}
		s->energy += (int32_t)x[i] * x[i];
		if (++s->count < SMDSP_DTMF_BLOCK)
			continue;
		{
			char hit = classify(s);

			if (hit && hit == s->last_hit && hit != s->now) {
				s->now = hit;
				push_digit(s, hit);
				s->misses = 0;
			} else if (hit && hit == s->now) {
				s->misses = 0;
			} else if (s->now && ++s->misses >= 2) {
				s->now = 0;
			}
			s->last_hit = hit;
		}
		s->count = 0;
		s->energy = 0;
	}
}

int smdsp_dtmf_rx_get(struct smdsp_dtmf_rx *s, char *buf, int max)
{
	int n = 0;

	while (n < max - 1 && s->tail != s->head) {
		buf[n++] = s->digits[s->tail];
		s->tail = (s->tail + 1) % SMDSP_DTMF_QUEUE;
	}
	if (max > 0)
		buf[n] = 0;
	return n;
}

char smdsp_dtmf_rx_current(const struct smdsp_dtmf_rx *s)
{
	return s->now;
}

void smdsp_dtmf_tx_reset(struct smdsp_dtmf_tx *s)
{
	int16_t level = s->level_dbm0_10;
	uint16_t on = s->on_ms, off = s->off_ms;

	smdsp_dtmf_tx_init(s);
	s->level_dbm0_10 = level;
	s->on_ms = on;
	s->off_ms = off;
}

int smdsp_dtmf_tx_print(const struct smdsp_dtmf_tx *s, char *buf, size_t len)
{
	return snprintf(buf, len, "dtmf_tx queued=%u active=%d level=%d on=%u off=%u ms",
			(s->tail - s->head) % SMDSP_DTMF_QUEUE, s->active, s->level_dbm0_10,
			s->on_ms, s->off_ms);
}

void smdsp_dtmf_rx_reset(struct smdsp_dtmf_rx *s)
{
	smdsp_dtmf_rx_init(s);
}

int smdsp_dtmf_rx_print(const struct smdsp_dtmf_rx *s, char *buf, size_t len)
{
	return snprintf(buf, len, "dtmf_rx now=%c queued=%u count=%u",
			s->now ? s->now : '-', (s->tail - s->head) % SMDSP_DTMF_QUEUE, s->count);
}
