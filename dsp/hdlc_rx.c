// SPDX-License-Identifier: GPL-2.0
/*
 * HDLC receiver for the fax modems: flag synchronisation (a number of
 * back-to-back flags before the first frame), zero-bit deletion, the 16- or
 * 32-bit FCS checked as the octets arrive, every frame handed over with its
 * status, aborts, a length limit; counts of frames and octets.
 *
 * The bits of a flag (0111111 before its last 0) and of an abort (six ones)
 * are taken in as data before they can be recognised, and are taken off
 * again when they are: a frame is the bits between two flags less seven.
 */
#include <smdsp/private/hdlc.h>
#include <smdsp/v42.h>

#define CRC16_GOOD	0xf0b8
#define CRC32_GOOD	0xdebb20e3

static void rx_clear(struct smdsp_hdlc_rx *r)
{
	r->flags_seen = 0;
	r->synced = false;
	r->in_frame = false;
	r->ones = 0;
	r->octet = 0;
	r->nbits = 0;
	r->len = 0;
}

int smdsp_hdlc_rx_init(struct smdsp_hdlc_rx *r, const struct smdsp_hdlc_rx_config *cfg)
{
	memset(r, 0, sizeof(*r));
	r->cfg = *cfg;
	if (!r->cfg.max_len || r->cfg.max_len > SMDSP_HDLC_MAX_LEN)
		r->cfg.max_len = SMDSP_HDLC_MAX_LEN;
	if (!r->cfg.sync_flags)
		r->cfg.sync_flags = 1;
	r->fcs_len = r->cfg.crc32 ? 4 : 2;
	r->cap = r->cfg.max_len + r->fcs_len;
	rx_clear(r);
	return 0;
}

struct smdsp_hdlc_rx *smdsp_hdlc_rx_create(const struct smdsp_hdlc_rx_config *cfg)
{
	struct smdsp_hdlc_rx *r = smdsp_alloc(sizeof(*r));

	if (r)
		smdsp_hdlc_rx_init(r, cfg);
	return r;
}

void smdsp_hdlc_rx_free(struct smdsp_hdlc_rx *r)
{
	smdsp_free(r);
}

bool smdsp_hdlc_rx_synced(const struct smdsp_hdlc_rx *r)
{
	return r->synced;
}

void smdsp_hdlc_rx_get_stats(const struct smdsp_hdlc_rx *r, struct smdsp_hdlc_rx_stats *st)
{
	*st = r->st;
}

static void deliver(struct smdsp_hdlc_rx *r, unsigned int len, enum smdsp_hdlc_rx_status status)
{
	if (r->cfg.frame && (status == SMDSP_HDLC_RX_OK || r->cfg.report_bad))
		r->cfg.frame(r->cfg.user, r->buf, len, status);
}

static void start_frame(struct smdsp_hdlc_rx *r)
{
	r->in_frame = true;
	r->len = 0;
	r->nbits = 0;
	r->octet = 0;
	r->crc = r->cfg.crc32 ? 0xffffffffu : 0xffffu;
}

/* a frame cut short (abort, reset) that held data bits beyond the marker's */
static void lost_frame(struct smdsp_hdlc_rx *r, int bits)
{
	unsigned int n;

	if (!r->synced || !r->in_frame || bits <= 0)
		return;
	r->st.aborts++;
	n = (unsigned int)bits / 8;
	deliver(r, n < r->cfg.max_len ? n : r->cfg.max_len, SMDSP_HDLC_RX_ABORT);
}

static void end_frame(struct smdsp_hdlc_rx *r, int bits)
{
	unsigned int n = (unsigned int)bits / 8, data;
	bool good;

	if (n < r->fcs_len + 1) {
		r->st.runts++;
		return;
	}
	data = n - r->fcs_len;
	if (bits & 7) {
		r->st.misaligned++;
		good = false;
	} else if (r->cfg.crc32) {
		good = r->crc == CRC32_GOOD;
	} else {
		good = r->crc == CRC16_GOOD;
	}
	if (good) {
		r->st.good_frames++;
		r->st.good_octets += data;
		deliver(r, data, SMDSP_HDLC_RX_OK);
	} else {
		r->st.bad_frames++;
		r->st.bad_octets += data;
		deliver(r, data, SMDSP_HDLC_RX_BAD_FCS);
	}
}

static void rx_flag(struct smdsp_hdlc_rx *r)
{
	/* frame bits before this flag's 0111111 (-1: flags sharing a zero) */
	int bits = (int)(r->len * 8 + r->nbits) - 7;

	r->st.flags++;
	if (r->synced) {
		if (r->in_frame && bits > 0)
			end_frame(r, bits);
	} else {
		if (r->in_frame && bits <= 0)
			r->flags_seen++;
		else
			r->flags_seen = 1;
		if (r->flags_seen >= r->cfg.sync_flags) {
			r->synced = true;
			if (r->cfg.frame && r->cfg.report_bad)
				r->cfg.frame(r->cfg.user, NULL, 0, SMDSP_HDLC_RX_FRAMING_OK);
		}
	}
	start_frame(r);
}

static void add_bit(struct smdsp_hdlc_rx *r, unsigned int bit)
{
	r->octet |= bit << r->nbits;
	if (++r->nbits < 8)
		return;
	r->nbits = 0;
	if (r->len >= r->cap) {
		/* one octet too many: give up on it until the next flag */
		if (r->synced) {
			r->st.too_long++;
			deliver(r, r->cfg.max_len, SMDSP_HDLC_RX_TOO_LONG);
		}
		r->in_frame = false;
		return;
	}
	r->buf[r->len++] = (uint8_t)r->octet;
	if (r->cfg.crc32)
		r->crc = smdsp_crc32(r->crc, r->buf + r->len - 1, 1);
	else
		r->crc = smdsp_crc16((uint16_t)r->crc, r->buf + r->len - 1, 1);
	r->octet = 0;
}

void smdsp_hdlc_rx_put_bit(struct smdsp_hdlc_rx *r, int bit)
{
	if (bit) {
		if (r->ones >= 6) {
			if (r->ones == 6) {
				/* seven ones: an abort (or the line idling on marks) */
				lost_frame(r, (int)(r->len * 8 + r->nbits) - 6);
				r->in_frame = false;
				if (!r->synced)
					r->flags_seen = 0;
				r->ones = 7;
			}
			return;
		}
		r->ones++;
		if (r->in_frame)
			add_bit(r, 1);
		return;
	}
	if (r->ones == 6) {
		r->ones = 0;
		rx_flag(r);
		return;
	}
	if (r->ones == 5) {
		r->ones = 0;	/* an inserted zero */
		return;
	}
	r->ones = 0;
	if (r->in_frame)
		add_bit(r, 0);
}

void smdsp_hdlc_rx_bit_cb(void *user, int bit)
{
	smdsp_hdlc_rx_put_bit(user, bit);
}

void smdsp_hdlc_rx_reset(struct smdsp_hdlc_rx *r)
{
	lost_frame(r, (int)(r->len * 8 + r->nbits) - 7);
	rx_clear(r);
}

int smdsp_hdlc_rx_print(const struct smdsp_hdlc_rx *r, char *buf, size_t len)
{
	return snprintf(buf, len, "hdlc_rx synced=%d in_frame=%d good=%u bad=%u aborts=%u",
			r->synced, r->in_frame, r->st.good_frames, r->st.bad_frames, r->st.aborts);
}
