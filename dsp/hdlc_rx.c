// SPDX-License-Identifier: GPL-2.0
/*
 * HDLC receiver for the fax modems and V.42, and the two FCS: flag synchronisation (a number of
 * back-to-back flags before the first frame), zero-bit deletion, the 16- or
 * 32-bit FCS checked as the octets arrive, every frame handed over with its
 * status, aborts, a length limit; counts of frames and octets. V.42 may take
 * either FCS (checked over the frame at its end) and counts flags in a row.
 *
 * The bits of a flag (0111111 before its last 0) and of an abort (six ones)
 * are taken in as data before they can be recognised, and are taken off
 * again when they are: a frame is the bits between two flags less seven.
 */
#include <smdsp/private/hdlc.h>

#define CRC16_GOOD	0xf0b8
#define CRC32_GOOD	0xdebb20e3

enum {
	FCS_16,
	FCS_32,
	FCS_EITHER,
};

/* reflected CRC tables, one nibble at a time (x^16+x^12+x^5+1, and the IEEE 802.3 CRC) */
static const uint32_t crc16_nib[16] = {
	0x0000, 0x1081, 0x2102, 0x3183, 0x4204, 0x5285, 0x6306, 0x7387,
	0x8408, 0x9489, 0xa50a, 0xb58b, 0xc60c, 0xd68d, 0xe70e, 0xf78f,
};

static const uint32_t crc32_nib[16] = {
	0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
	0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
	0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
	0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
};

/* either CRC (a 16-bit one stays within 16 bits) */
static inline uint32_t crc_byte(const uint32_t *nib, uint32_t crc, uint8_t b)
{
	crc = (crc >> 4) ^ nib[(crc ^ b) & 0xf];
	crc = (crc >> 4) ^ nib[(crc ^ (b >> 4)) & 0xf];
	return crc;
}

static uint32_t crc_buf(const uint32_t *nib, uint32_t crc, const uint8_t *buf,
			unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		crc = crc_byte(nib, crc, buf[i]);
	return crc;
}

uint16_t smdsp_crc16(uint16_t crc, const uint8_t *buf, unsigned int len)
{
	return (uint16_t)crc_buf(crc16_nib, crc, buf, len);
}

uint32_t smdsp_crc32(uint32_t crc, const uint8_t *buf, unsigned int len)
{
	return crc_buf(crc32_nib, crc, buf, len);
}

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
	r->mode = r->cfg.crc32 ? FCS_32 : FCS_16;
	if (!r->cfg.min_len)
		r->cfg.min_len = 1;
	if (!r->cfg.abort_bits)
		r->cfg.abort_bits = 1;
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

/* the running FCS of the octets so far (none with either FCS: checked at the end) */
static void crc_restart(struct smdsp_hdlc_rx *r)
{
	if (r->mode == FCS_32)
		r->crc = smdsp_crc32(0xffffffffu, r->buf, r->len);
	else
		r->crc = smdsp_crc16(0xffff, r->buf, r->len);
}

void smdsp_hdlc_rx_set_fcs(struct smdsp_hdlc_rx *r, bool crc16, bool crc32)
{
	int mode = crc32 ? (crc16 ? FCS_EITHER : FCS_32) : FCS_16;

	if (mode == r->mode)
		return;
	r->mode = mode;
	crc_restart(r);
}

unsigned int smdsp_hdlc_rx_fcs_len(const struct smdsp_hdlc_rx *r)
{
	return r->last_fcs;
}

unsigned int smdsp_hdlc_rx_flags_in_row(const struct smdsp_hdlc_rx *r)
{
	return r->in_row;
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
	r->crc = r->mode == FCS_32 ? 0xffffffffu : 0xffffu;
}

/* a frame cut short (abort, reset) that held data bits beyond the marker's */
static void lost_frame(struct smdsp_hdlc_rx *r, int bits)
{
	unsigned int n;

	if (!r->synced || !r->in_frame || bits < (int)r->cfg.abort_bits)
		return;
	r->st.aborts++;
	n = (unsigned int)bits / 8;
	deliver(r, n < r->cfg.max_len ? n : r->cfg.max_len, SMDSP_HDLC_RX_ABORT);
}

static void end_frame(struct smdsp_hdlc_rx *r, int bits)
{
	unsigned int n = (unsigned int)bits / 8, data, fcs = r->mode == FCS_32 ? 4 : 2;
	bool good;

	if (n < fcs + r->cfg.min_len) {
		r->st.runts++;
		return;
	}
	if (bits & 7) {
		r->st.misaligned++;
		good = false;
	} else if (r->mode == FCS_16) {
		good = r->crc == CRC16_GOOD;
	} else if (r->mode == FCS_32) {
		good = r->crc == CRC32_GOOD;
	} else if (n >= 4 + r->cfg.min_len &&
		   smdsp_crc32(0xffffffffu, r->buf, n) == CRC32_GOOD) {
		good = true;
		fcs = 4;
	} else {
		good = smdsp_crc16(0xffff, r->buf, n) == CRC16_GOOD;
	}
	data = n - fcs;
	if (good) {
		r->last_fcs = fcs;
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
	if (r->in_frame && r->len == 0 && r->nbits == 7)
		r->in_row++;
	else
		r->in_row = 1;
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
	if (r->mode == FCS_16)
		r->crc = smdsp_crc16((uint16_t)r->crc, r->buf + r->len - 1, 1);
	else if (r->mode == FCS_32)
		r->crc = smdsp_crc32(r->crc, r->buf + r->len - 1, 1);
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
				r->in_row = 0;
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
