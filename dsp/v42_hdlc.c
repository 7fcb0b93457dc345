// SPDX-License-Identifier: GPL-2.0
/*
 * HDLC framing for V.42 LAPM: flags, zero-bit insertion, the 16-bit
 * (X.25/V.42) and 32-bit FCS, aborts.
 *
 * The transmitter asks its owner for the next frame only at a flag
 * boundary, so that the N(R) in a frame is as fresh as possible and no
 * frame queue is needed here.
 */
#include <smdsp/private/v42_hdlc.h>

#define HDLC_FLAG	0x7e
#define CRC16_GOOD	0xf0b8
#define CRC32_GOOD	0xdebb20e3

enum {
	TX_FLAGS,
	TX_DATA,
	TX_FCS,
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

void smdsp_v42_hdlc_tx_init(struct smdsp_v42_hdlc_tx *t, smdsp_v42_hdlc_next_frame_fn next,
			void *user)
{
	memset(t, 0, sizeof(*t));
	t->next_frame = next;
	t->user = user;
	t->state = TX_FLAGS;
	/* the first frame needs an opening flag; later ones share the closing flag */
	t->min_flags = 1;
}

static void tx_load_flag(struct smdsp_v42_hdlc_tx *t)
{
	t->state = TX_FLAGS;
	t->stuffing = 0;
	t->ones = 0;
	t->octet = HDLC_FLAG;
	t->nbits = 8;
}

static void tx_next_octet(struct smdsp_v42_hdlc_tx *t)
{
	unsigned int len;

	if (t->state == TX_FLAGS) {
		if (t->min_flags) {
			t->min_flags--;
			tx_load_flag(t);
			return;
		}
		len = 0;
		if (t->next_frame)
			len = t->next_frame(t->user, t->buf,
					    SMDSP_HDLC_MAX_FRAME - 4);
		if (len == 0 || len > SMDSP_HDLC_MAX_FRAME - 4) {
			tx_load_flag(t);
			return;
		}
		t->len = len;
		t->pos = 0;
		t->cur32 = t->fcs32;
		t->crc = t->cur32 ? 0xffffffffu : 0xffffu;
		t->state = TX_DATA;
		t->stuffing = 1;
		t->ones = 0;
	}
	if (t->state == TX_DATA) {
		if (t->pos < t->len) {
			uint8_t b = t->buf[t->pos++];

			t->crc = crc_byte(t->cur32 ? crc32_nib : crc16_nib,
					  t->crc, b);
			t->octet = b;
			t->nbits = 8;
			return;
		}
		/* append the FCS, low-order octet first */
		t->crc = ~t->crc;
		t->buf[t->len++] = (uint8_t)t->crc;
		t->buf[t->len++] = (uint8_t)(t->crc >> 8);
		if (t->cur32) {
			t->buf[t->len++] = (uint8_t)(t->crc >> 16);
			t->buf[t->len++] = (uint8_t)(t->crc >> 24);
		}
		t->state = TX_FCS;
	}
	if (t->pos < t->len) {
		t->octet = t->buf[t->pos++];
		t->nbits = 8;
		return;
	}
	/* closing flag */
	t->frames++;
	tx_load_flag(t);
}

int smdsp_v42_hdlc_tx_get_bit(struct smdsp_v42_hdlc_tx *t)
{
	int bit;

	if (t->stuffing && t->ones == 5) {
		t->ones = 0;
		return 0;
	}
	if (t->nbits == 0)
		tx_next_octet(t);
	bit = t->octet & 1;
	t->octet >>= 1;
	t->nbits--;
	if (t->stuffing) {
		if (bit)
			t->ones++;
		else
			t->ones = 0;
	}
	return bit;
}

void smdsp_v42_hdlc_rx_init(struct smdsp_v42_hdlc_rx *r, smdsp_v42_hdlc_frame_fn frame,
			void *user)
{
	memset(r, 0, sizeof(*r));
	r->frame = frame;
	r->user = user;
	r->accept16 = 1;
}

static void rx_check_frame(struct smdsp_v42_hdlc_rx *r, unsigned int len)
{
	if (r->accept32 && len >= 6 &&
	    smdsp_crc32(0xffffffffu, r->buf, len) == CRC32_GOOD) {
		r->st.frames++;
		if (r->frame)
			r->frame(r->user, r->buf, len - 4, 1);
		return;
	}
	if (r->accept16 && len >= 4 &&
	    smdsp_crc16(0xffff, r->buf, len) == CRC16_GOOD) {
		r->st.frames++;
		if (r->frame)
			r->frame(r->user, r->buf, len - 2, 0);
		return;
	}
	if (len < 4)
		r->st.too_short++;
	else
		r->st.crc_errors++;
}

static void rx_flag(struct smdsp_v42_hdlc_rx *r)
{
	r->st.flags++;
	if (r->in_frame && r->len == 0 && r->nbits == 7)
		r->consec_flags++;
	else
		r->consec_flags = 1;
	if (r->in_frame) {
		/* the flag's leading 0 and six 1s went in as data bits */
		unsigned int bits = r->len * 8 + r->nbits;

		if (bits > 7) {
			bits -= 7;
			if (r->overflow)
				r->st.too_long++;
			else if (bits & 7)
				r->st.misaligned++;
			else
				rx_check_frame(r, bits / 8);
		}
	}
	r->in_frame = 1;
	r->overflow = 0;
	r->len = 0;
	r->nbits = 0;
	r->octet = 0;
}

static void rx_add_bit(struct smdsp_v42_hdlc_rx *r, unsigned int bit)
{
	r->octet |= bit << r->nbits;
	if (++r->nbits < 8)
		return;
	if (r->len < SMDSP_HDLC_MAX_FRAME)
		r->buf[r->len++] = (uint8_t)r->octet;
	else
		r->overflow = 1;
	r->octet = 0;
	r->nbits = 0;
}

void smdsp_v42_hdlc_rx_put_bit(struct smdsp_v42_hdlc_rx *r, int bit)
{
	if (bit) {
		if (r->ones >= 6) {
			/* seven ones: abort, wait for the next flag */
			if (r->ones == 6 && r->in_frame &&
			    (r->len || r->nbits > 7))
				r->st.aborts++;
			r->ones = 7;
			r->in_frame = 0;
			r->consec_flags = 0;
			return;
		}
		r->ones++;
		if (r->in_frame)
			rx_add_bit(r, 1);
		return;
	}
	if (r->ones == 6) {
		r->ones = 0;
		rx_flag(r);
		return;
	}
	if (r->ones == 5) {
		/* inserted zero */
		r->ones = 0;
		return;
	}
	r->ones = 0;
	if (r->in_frame)
		rx_add_bit(r, 0);
}

int smdsp_v42_hdlc_tx_print(const struct smdsp_v42_hdlc_tx *t, char *buf, size_t len)
{
	return snprintf(buf, len, "v42_hdlc_tx state=%d len=%u pos=%u frames=%u",
			t->state, t->len, t->pos, t->frames);
}

int smdsp_v42_hdlc_rx_print(const struct smdsp_v42_hdlc_rx *r, char *buf, size_t len)
{
	return snprintf(buf, len, "v42_hdlc_rx in_frame=%d frames=%u crc_errors=%u aborts=%u",
			r->in_frame, r->st.frames, r->st.crc_errors, r->st.aborts);
}
