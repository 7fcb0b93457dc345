/* T.30-style HDLC over V.21 channel 2 for the tests (see hdlcep.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "hdlcep.h"
#include "tutil.h"
#include <smdsp/fsk.h>

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void hdlc_log_free(struct hdlc_log *log)
{
	int i;

	for (i = 0; i < log->n; i++)
		free(log->data[i]);
	log->n = 0;
}

static int new_frame(const struct hdlc_sig_cfg *c, struct hdlc_log *log, uint64_t *seed, int last)
{
	int len = c->frame_len ? c->frame_len : 5 + (int)(t_rand64(seed) % 60);
	uint8_t *f = malloc(len);
	int i, k = log->n;

	if (k >= HDLCEP_MAX_FRAMES)
		abort();
	f[0] = 0xff;
	f[1] = last ? 0x13 : 0x03;
	f[2] = (uint8_t)t_rand64(seed);
	f[3] = (uint8_t)k;
	f[4] = (uint8_t)(k >> 8);
	for (i = 5; i < len; i++)
		f[i] = (uint8_t)t_rand64(seed);
	log->data[k] = f;
	log->len[k] = (uint16_t)len;
	log->n++;
	return k;
}

/* SpanDSP's transmitter: the next frame of the burst from its underflow handler */
struct sp_src {
	hdlc_tx_state_t *h;
	struct smdsp_hdlc_tx *ot;	/* or ours */
	const struct hdlc_log *log;
	int next, end;		/* frames of this burst still to queue: [next, end) */
	int done;		/* all queued and the last one finished */
	long after;		/* bits sent since done */
};

static void sp_underflow(void *user)
{
	struct sp_src *s = user;

	if (s->next < s->end) {
		hdlc_tx_frame(s->h, s->log->data[s->next], s->log->len[s->next]);
		s->next++;
	} else {
		s->done = 1;
	}
}

static int sp_get_bit(void *user)
{
	struct sp_src *s = user;

	if (s->done)
		s->after++;
	return hdlc_tx_get_bit(s->h);
}

static int our_get_bit(void *user)
{
	struct sp_src *s = user;

	return smdsp_hdlc_tx_get_bit(s->ot);
}

int16_t *hdlc_make_signal(const struct hdlc_sig_cfg *c, long *n, struct hdlc_log *log)
{
	double level = c->level_dbm0 ? c->level_dbm0 : -12;
	int preamble = c->preamble ? c->preamble : 38;
	long gap = (c->gap_ms ? c->gap_ms : 200) * 8L;
	long fbits = ((c->frame_len ? c->frame_len : 64) + 6) * 10L;	/* stuffing, flags */
	long cap = 8000L * 4 + (long)c->bursts * (gap + (preamble + 4) * 8 * 8000L / 300 +
		   (long)c->frames * fbits * 8000 / 300);
	int16_t *x = calloc(cap, sizeof(int16_t));
	uint64_t seed = c->seed ? c->seed : 1;
	long pos = gap;
	int b, i;

	memset(log, 0, sizeof(*log));
	for (b = 0; b < c->bursts; b++) {
		int first = log->n;
		struct sp_src s = { 0 };

		for (i = 0; i < c->frames; i++)
			new_frame(c, log, &seed, i == c->frames - 1);
		s.log = log;
		s.next = first;
		s.end = log->n;
		if (c->ours_tx) {
			struct smdsp_hdlc_tx_config hc = { .crc32 = c->crc32 };
			struct smdsp_hdlc_tx *t = smdsp_hdlc_tx_create(&hc);
			struct smdsp_fsk_tx *f = smdsp_fsk_tx_create(SMDSP_V21_CH2, (int)(level * 10),
								     our_get_bit, &s);

			s.ot = t;
			smdsp_hdlc_tx_preamble(t, preamble);
			for (i = first; i < log->n; i++)
				if (smdsp_hdlc_tx_frame(t, log->data[i], log->len[i]))
					abort();
			/* until the closing flag is out, then one more flag */
			while (!smdsp_hdlc_tx_idle(t) && pos + 8 < cap) {
				smdsp_fsk_tx_process(f, x + pos, 8);
				pos += 8;
			}
			if (pos + 240 < cap) {
				smdsp_fsk_tx_process(f, x + pos, 240);
				pos += 240;
			}
			smdsp_fsk_tx_free(f);
			smdsp_hdlc_tx_free(t);
		} else {
			fsk_tx_state_t *f;

			s.h = hdlc_tx_init(NULL, c->crc32, 1, 0, sp_underflow, &s);
			hdlc_tx_flags(s.h, preamble);
			sp_underflow(&s);
			f = fsk_tx_init(NULL, &preset_fsk_specs[FSK_V21CH2], sp_get_bit, &s);
			fsk_tx_power(f, (float)level);
			/* the underflow comes as the FCS goes: the closing flag and one more */
			while (s.after < 24 && pos + 8 < cap) {
				fsk_tx(f, x + pos, 8);
				pos += 8;
			}
			fsk_tx_free(f);
			hdlc_tx_free(s.h);
		}
		pos += gap;
	}
	*n = pos < cap ? pos : cap;
	return x;
}

struct rx_ctx {
	const struct hdlc_log *log;
	struct hdlc_rx_res *r;
	uint8_t *seen;
	struct smdsp_hdlc_rx *ours;
};

static void got_frame(struct rx_ctx *c, const uint8_t *buf, int len)
{
	int k;

	c->r->good++;
	if (len < 5) {
		c->r->false_good++;
		return;
	}
	k = buf[3] | buf[4] << 8;
	if (k >= c->log->n || len != c->log->len[k] || memcmp(buf, c->log->data[k], len)) {
		c->r->false_good++;
		return;
	}
	if (!c->seen[k]) {
		c->seen[k] = 1;
		c->r->matched++;
	}
}

static void our_frame(void *user, const uint8_t *buf, unsigned int len, enum smdsp_hdlc_rx_status st)
{
	struct rx_ctx *c = user;

	if (st == SMDSP_HDLC_RX_OK)
		got_frame(c, buf, (int)len);
	else if (st == SMDSP_HDLC_RX_BAD_FCS)
		c->r->bad++;
}

static void our_status(void *user, enum smdsp_status st)
{
	struct rx_ctx *c = user;

	if (st == SMDSP_STATUS_CARRIER_DOWN)
		smdsp_hdlc_rx_reset(c->ours);
}

static void our_bit(void *user, int bit)
{
	struct rx_ctx *c = user;

	smdsp_hdlc_rx_put_bit(c->ours, bit);
}

static void sp_frame(void *user, const uint8_t *buf, int len, int ok)
{
	struct rx_ctx *c = user;

	if (len < 0)
		return;		/* a status: carrier, framing OK, abort */
	if (ok)
		got_frame(c, buf, len);
	else
		c->r->bad++;
}

static void sp_put_bit(void *user, int bit)
{
	hdlc_rx_put_bit(user, bit);
}

void hdlc_receive(const int16_t *x, long n, int ours, int crc32, int sync_flags,
		  const struct hdlc_log *log, struct hdlc_rx_res *r)
{
	struct rx_ctx c = { .log = log, .r = r };
	double t0;
	long i;

	memset(r, 0, sizeof(*r));
	c.seen = calloc(log->n + 1, 1);
	if (ours) {
		struct smdsp_hdlc_rx_config hc = { .crc32 = crc32, .report_bad = true,
						   .sync_flags = (unsigned int)sync_flags,
						   .frame = our_frame, .user = &c };
		struct smdsp_fsk_rx *f;
		struct smdsp_hdlc_rx_stats st;

		c.ours = smdsp_hdlc_rx_create(&hc);
		f = smdsp_fsk_rx_create(SMDSP_V21_CH2, our_bit, our_status, &c);
		t0 = cpu_now();
		for (i = 0; i + 160 <= n; i += 160)
			smdsp_fsk_rx_process(f, x + i, 160);
		r->cpu = cpu_now() - t0;
		smdsp_hdlc_rx_get_stats(c.ours, &st);
		r->aborts = st.aborts;
		r->too_long = st.too_long;
		smdsp_fsk_rx_free(f);
		smdsp_hdlc_rx_free(c.ours);
	} else {
		hdlc_rx_state_t *h = hdlc_rx_init(NULL, crc32, 1, sync_flags, sp_frame, &c);
		fsk_rx_state_t *f = fsk_rx_init(NULL, &preset_fsk_specs[FSK_V21CH2], FSK_FRAME_MODE_SYNC,
						sp_put_bit, h);
		hdlc_rx_stats_t st;

		fsk_rx_signal_cutoff(f, -43.5f);
		t0 = cpu_now();
		for (i = 0; i + 160 <= n; i += 160)
			fsk_rx(f, x + i, 160);
		r->cpu = cpu_now() - t0;
		hdlc_rx_get_stats(h, &st);
		r->aborts = (int)st.aborts;
		r->too_long = (int)st.length_errors;
		fsk_rx_free(f);
		hdlc_rx_free(h);
	}
	free(c.seen);
}
