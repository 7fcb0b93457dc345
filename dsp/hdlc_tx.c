// SPDX-License-Identifier: GPL-2.0
/*
 * HDLC transmitter for the fax modems and V.42: a queue of frames (whole or
 * growing) or frames pulled from the user at a flag boundary, the flag preamble, zero-bit insertion, the 16- or 32-bit FCS (low-order
 * octet first), flags between frames and while idle, an abort when a frame
 * runs dry on the line. One bit per smdsp_hdlc_tx_get_bit() call.
 */
#include <smdsp/private/hdlc.h>

#define HDLC_FLAG	0x7e
#define QMASK		(SMDSP_HDLC_TX_QLEN - 1)

enum {
	TX_FLAGS,	/* flags (or the abort octet) */
	TX_DATA,	/* the frame's octets */
	TX_FCS,		/* its FCS */
};

static void tx_clear(struct smdsp_hdlc_tx *t)
{
	t->q_in = 0;
	t->q_out = 0;
	t->e_in = 0;
	t->e_out = 0;
	t->open_start = 0;
	t->open_len = 0;
	t->discard = false;
	t->state = TX_FLAGS;
	t->preamble = 0;
	t->gap = 1;		/* the opening flag */
	t->abort_now = false;
	t->idle = false;
}

int smdsp_hdlc_tx_init(struct smdsp_hdlc_tx *t, const struct smdsp_hdlc_tx_config *cfg)
{
	memset(t, 0, sizeof(*t));
	t->cfg = *cfg;
	if (!t->cfg.max_len || t->cfg.max_len > SMDSP_HDLC_MAX_LEN)
		t->cfg.max_len = SMDSP_HDLC_MAX_LEN;
	if (!t->cfg.inter_flags)
		t->cfg.inter_flags = 1;
	tx_clear(t);
	return 0;
}

struct smdsp_hdlc_tx *smdsp_hdlc_tx_create(const struct smdsp_hdlc_tx_config *cfg)
{
	struct smdsp_hdlc_tx *t = smdsp_alloc(sizeof(*t));

	if (t)
		smdsp_hdlc_tx_init(t, cfg);
	return t;
}

void smdsp_hdlc_tx_free(struct smdsp_hdlc_tx *t)
{
	smdsp_free(t);
}

void smdsp_hdlc_tx_reset(struct smdsp_hdlc_tx *t)
{
	/*
	 * The octet on the line goes out whole (a flag or an abort cut short
	 * could close a frame); a frame cut off must not end in a flag: abort it.
	 */
	bool cut = t->state != TX_FLAGS;

	tx_clear(t);
	t->abort_now = cut;
}

void smdsp_hdlc_tx_preamble(struct smdsp_hdlc_tx *t, unsigned int n)
{
	t->preamble += n;
	t->idle = false;
}

void smdsp_hdlc_tx_set_crc32(struct smdsp_hdlc_tx *t, bool crc32)
{
	t->cfg.crc32 = crc32;
}

unsigned int smdsp_hdlc_tx_space(const struct smdsp_hdlc_tx *t)
{
	return SMDSP_HDLC_TX_QLEN - (t->q_in - t->q_out);
}

unsigned int smdsp_hdlc_tx_put(struct smdsp_hdlc_tx *t, const uint8_t *buf, unsigned int len)
{
	unsigned int n = len, i;

	if (t->discard)
		return len;	/* the rest of an aborted frame */
	if (t->open_len == 0) {
		if (t->e_in - t->e_out >= SMDSP_HDLC_TX_QFRAMES)
			return 0;
		t->open_start = t->q_in;
	}
	if (n > t->cfg.max_len - t->open_len)
		n = t->cfg.max_len - t->open_len;
	if (n > smdsp_hdlc_tx_space(t))
		n = smdsp_hdlc_tx_space(t);
	for (i = 0; i < n; i++)
		t->q[(t->q_in + i) & QMASK] = buf[i];
	t->q_in += n;
	t->open_len += n;
	if (n)
		t->idle = false;
	return n;
}

int smdsp_hdlc_tx_end_frame(struct smdsp_hdlc_tx *t)
{
	if (t->discard) {
		t->discard = false;
		return 0;
	}
	if (!t->open_len)
		return -EINVAL;
	t->ends[t->e_in % SMDSP_HDLC_TX_QFRAMES] = t->q_in;
	t->e_in++;
	t->open_len = 0;
	return 0;
}

int smdsp_hdlc_tx_frame(struct smdsp_hdlc_tx *t, const uint8_t *buf, unsigned int len)
{
	if (t->open_len || t->discard)
		return -EBUSY;
	if (!len || len > t->cfg.max_len)
		return -EMSGSIZE;
	if (len > smdsp_hdlc_tx_space(t) || t->e_in - t->e_out >= SMDSP_HDLC_TX_QFRAMES)
		return -ENOSPC;
	smdsp_hdlc_tx_put(t, buf, len);
	return smdsp_hdlc_tx_end_frame(t);
}

/* the frame on the line is the one still being queued */
static bool on_line_open(const struct smdsp_hdlc_tx *t)
{
	return t->state == TX_DATA && t->e_out == t->e_in;
}

void smdsp_hdlc_tx_abort(struct smdsp_hdlc_tx *t)
{
	if (!t->open_len)
		return;
	if (on_line_open(t)) {
		t->abort_now = true;
		t->q_in = t->q_out;
	} else {
		t->q_in = t->open_start;
	}
	t->open_len = 0;
	t->st.aborts++;
}

bool smdsp_hdlc_tx_idle(const struct smdsp_hdlc_tx *t)
{
	return t->state == TX_FLAGS && t->q_in == t->q_out && t->e_in == t->e_out &&
	       !t->abort_now && t->nbits == 0 && !t->preamble;
}

static void event(struct smdsp_hdlc_tx *t, enum smdsp_hdlc_tx_event ev)
{
	if (t->cfg.event)
		t->cfg.event(t->cfg.user, ev);
}

static void load(struct smdsp_hdlc_tx *t, unsigned int octet, bool stuff)
{
	t->sh = octet;
	t->nbits = 8;
	t->stuff = stuff;
	if (!stuff)
		t->ones = 0;
}

static void load_flag(struct smdsp_hdlc_tx *t)
{
	load(t, HDLC_FLAG, false);
	t->st.flags++;
}

/* a frame can start: one has been ended, or (progressive) one has octets */
static bool frame_ready(const struct smdsp_hdlc_tx *t)
{
	if (t->e_in != t->e_out)
		return true;
	return t->cfg.progressive && t->q_in != t->q_out && !t->discard;
}

/* pull mode: the user's next frame, straight into the (empty) queue */
static bool pull_frame(struct smdsp_hdlc_tx *t)
{
	unsigned int len;

	if (!t->cfg.pull || t->open_len || t->discard || t->q_in != t->q_out)
		return false;
	t->q_in = 0;
	t->q_out = 0;
	len = t->cfg.pull(t->cfg.user, t->q, t->cfg.max_len);
	if (!len || len > t->cfg.max_len)
		return false;
	t->q_in = len;
	t->ends[t->e_in % SMDSP_HDLC_TX_QFRAMES] = len;
	t->e_in++;
	return true;
}

static void start_fcs(struct smdsp_hdlc_tx *t)
{
	uint32_t c = ~t->crc;

	t->fcs[0] = (uint8_t)c;
	t->fcs[1] = (uint8_t)(c >> 8);
	t->fcs[2] = (uint8_t)(c >> 16);
	t->fcs[3] = (uint8_t)(c >> 24);
	t->fcs_len = t->cur32 ? 4 : 2;
	t->fcs_pos = 0;
	t->state = TX_FCS;
}

static void send_abort(struct smdsp_hdlc_tx *t)
{
	/* eight ones (with up to four before them), then flags */
	load(t, 0xff, false);
	t->state = TX_FLAGS;
	t->gap = t->cfg.inter_flags;
	t->abort_now = false;
}

static void next_octet(struct smdsp_hdlc_tx *t)
{
	if (t->abort_now) {
		send_abort(t);
		return;
	}
	if (t->state == TX_FLAGS) {
		if (t->preamble) {
			t->preamble--;
			load_flag(t);
			return;
		}
		if (t->gap) {
			t->gap--;
			load_flag(t);
			return;
		}
		if (!frame_ready(t) && !pull_frame(t)) {
			load_flag(t);
			if (!t->idle) {
				t->idle = true;
				event(t, SMDSP_HDLC_TX_IDLE);
			}
			return;
		}
		t->idle = false;
		t->state = TX_DATA;
		t->cur32 = t->cfg.crc32;
		t->crc = t->cur32 ? 0xffffffffu : 0xffffu;
		t->cur_len = 0;
	}
	if (t->state == TX_DATA) {
		bool ended = t->e_in != t->e_out;
		uint32_t end = ended ? t->ends[t->e_out % SMDSP_HDLC_TX_QFRAMES] : t->q_in;

		if (t->q_out != end) {
			uint8_t b = t->q[t->q_out++ & QMASK];

			t->crc = t->cur32 ? smdsp_crc32(t->crc, &b, 1) :
						smdsp_crc16((uint16_t)t->crc, &b, 1);
			t->cur_len++;
			load(t, b, true);
			return;
		}
		if (!ended) {
			/* ran dry: abort, drop the rest of this frame when it comes */
			t->discard = true;
			t->open_len = 0;
			t->st.underruns++;
			send_abort(t);
			event(t, SMDSP_HDLC_TX_UNDERRUN);
			return;
		}
		t->e_out++;
		start_fcs(t);
	}
	if (t->fcs_pos < t->fcs_len) {
		load(t, t->fcs[t->fcs_pos++], true);
		return;
	}
	/* the closing flag, which opens the next frame too */
	t->state = TX_FLAGS;
	t->gap = t->cfg.inter_flags - 1;
	t->st.frames++;
	t->st.octets += t->cur_len;
	load_flag(t);
	event(t, SMDSP_HDLC_TX_SENT);
}

int smdsp_hdlc_tx_get_bit(struct smdsp_hdlc_tx *t)
{
	int bit;

	if (t->stuff && t->ones == 5) {
		t->ones = 0;
		return 0;
	}
	if (t->nbits == 0)
		next_octet(t);
	bit = t->sh & 1;
	t->sh >>= 1;
	t->nbits--;
	if (t->stuff)
		t->ones = bit ? t->ones + 1 : 0;
	return bit;
}

int smdsp_hdlc_tx_bit_cb(void *user)
{
	return smdsp_hdlc_tx_get_bit(user);
}

void smdsp_hdlc_tx_get_stats(const struct smdsp_hdlc_tx *t, struct smdsp_hdlc_tx_stats *st)
{
	*st = t->st;
}

int smdsp_hdlc_tx_print(const struct smdsp_hdlc_tx *t, char *buf, size_t len)
{
	return snprintf(buf, len, "hdlc_tx queued=%u frames=%u underruns=%u aborts=%u idle=%d",
			t->q_in - t->q_out, t->st.frames, t->st.underruns, t->st.aborts,
			smdsp_hdlc_tx_idle(t));
}
