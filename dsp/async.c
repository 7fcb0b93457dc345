// SPDX-License-Identifier: GPL-2.0
/*
 * Asynchronous character framing (start/stop) over a synchronous bit stream,
 * with V.14 rate adaption.
 *
 * V.14 lets an over-speed character source be carried by a synchronous
 * modem: the transmitter may drop the stop bit of at most one character in
 * every 8 (basic range) or 4 (extended range); the receiver notices the
 * start polarity where a stop bit belongs, puts the stop bit back and takes
 * that bit as the next start bit. A break is 2M+3 bits of start polarity
 * (M = bits per character).
 */
#include <smdsp/async.h>

enum {
	RX_HUNT,	/* waiting for a start bit */
	RX_DATA,	/* collecting data and parity bits */
	RX_STOP,	/* expecting the first stop bit */
	RX_WAIT_MARK,	/* after a framing error or break: wait for a mark */
};

/* an all-space character is held until we know it is not part of a break */
#define RX_MAX_PENDING	4

/* what both directions keep: the first member of each */
struct async_base {
	struct smdsp_async_config cfg;
	void *user;			/* for the byte callback */
	unsigned int char_bits;		/* M: start + data + parity + stop */
};

struct smdsp_async_tx {
	struct async_base base;
	smdsp_async_get_byte_fn get_byte;
	uint64_t sr;			/* bits still to send, LSB first */
	unsigned int nbits;
	unsigned int run;		/* back-to-back characters since a deletion */
	int del_candidate;		/* the stop bit now in sr may be deleted */
	int break_pending;
	struct smdsp_async_tx_stats st;
};

struct smdsp_async_rx {
	struct async_base base;
	smdsp_async_put_byte_fn put_byte;
	unsigned int frame_bits;	/* data + parity */
	unsigned int break_bits;	/* 2M + 3 */
	int state;
	uint32_t acc;
	unsigned int n;
	unsigned int zero_run;
	unsigned int pending_zeros;
	struct smdsp_async_rx_stats st;
};

static int async_cfg_ok(const struct smdsp_async_config *cfg)
{
	if (!cfg)
		return 0;
	if (cfg->data_bits < 5 || cfg->data_bits > 8)
		return 0;
	if (cfg->parity < SMDSP_ASYNC_PARITY_NONE ||
	    cfg->parity > SMDSP_ASYNC_PARITY_ODD)
		return 0;
	if (cfg->stop_bits < 1 || cfg->stop_bits > 2)
		return 0;
	if (cfg->v14_interval < 0 || cfg->v14_interval > 255)
		return 0;
	return 1;
}

/* the data bits of v, and the parity bit that goes with them (if any) */
static uint32_t data_of(const struct smdsp_async_config *cfg, uint32_t v)
{
	return v & ((1u << cfg->data_bits) - 1);
}

static unsigned int parity_bit(const struct smdsp_async_config *cfg,
			       uint32_t data)
{
	data ^= data >> 4;
	data ^= data >> 2;
	data ^= data >> 1;
	return (data & 1) ^ (cfg->parity == SMDSP_ASYNC_PARITY_ODD);
}

/*
 * The part of both directions' create(): a zeroed instance of size bytes,
 * its struct async_base (the first member) filled in; NULL on a bad
 * configuration, a missing callback or no memory.
 */
static void *smdsp_async_base_create(const struct smdsp_async_config *cfg,
				     bool have_fn, void *user, size_t size)
{
	struct async_base *b;

	if (!async_cfg_ok(cfg) || !have_fn)
		return NULL;
	b = smdsp_alloc(size);
	if (!b)
		return NULL;
	b->cfg = *cfg;
	b->user = user;
	b->char_bits = 1 + cfg->data_bits + (cfg->parity ? 1 : 0) +
		       cfg->stop_bits;
	return b;
}

struct smdsp_async_tx *smdsp_async_tx_create(const struct smdsp_async_config *cfg,
					     smdsp_async_get_byte_fn get_byte,
					     void *user)
{
	struct smdsp_async_tx *s;

	s = smdsp_async_base_create(cfg, get_byte, user, sizeof(*s));

	if (s)
		s->get_byte = get_byte;
	return s;
}

void smdsp_async_tx_free(struct smdsp_async_tx *s)
{
	smdsp_free(s);
}

void smdsp_async_tx_reset(struct smdsp_async_tx *s)
{
	s->sr = 0;
	s->nbits = 0;
	s->run = 0;
	s->del_candidate = 0;
	s->break_pending = 0;
	memset(&s->st, 0, sizeof(s->st));
}

static void tx_load_char(struct smdsp_async_tx *s, int c)
{
	const struct smdsp_async_config *cfg = &s->base.cfg;
	uint32_t data = data_of(cfg, (uint32_t)c);
	uint64_t v;
	unsigned int pos;

	/* start bit (0) in bit 0, then data, parity, stop bits */
	v = (uint64_t)data << 1;
	pos = 1 + cfg->data_bits;
	if (cfg->parity)
		v |= (uint64_t)parity_bit(cfg, data) << pos++;
	v |= ((1ull << cfg->stop_bits) - 1) << pos;
	s->sr = v;
	s->nbits = s->base.char_bits;
	s->st.chars++;
	s->run++;
	s->del_candidate = cfg->v14 && cfg->v14_interval > 0 &&
			   s->run >= (unsigned int)cfg->v14_interval;
}

static void tx_load(struct smdsp_async_tx *s)
{
	int c;

	if (s->break_pending) {
		unsigned int m = s->base.char_bits;
		unsigned int zeros = 2 * m + 3;

		/* space for the break, then a character time of marks */
		s->break_pending = 0;
		s->sr = ((1ull << m) - 1) << zeros;
		s->nbits = zeros + m;
		s->run = 0;
		s->del_candidate = 0;
		s->st.breaks++;
		return;
	}
	c = s->get_byte(s->base.user);
	if (c < 0) {
		s->sr = 1;
		s->nbits = 1;
		s->run = 0;
		s->del_candidate = 0;
		s->st.idle_bits++;
		return;
	}
	tx_load_char(s, c);
}

int smdsp_async_tx_get_bit(struct smdsp_async_tx *s)
{
	int bit;

	if (s->nbits == 1 && s->del_candidate && !s->break_pending) {
		int c;

		/* only the last stop bit is left: drop it if data is waiting */
		s->del_candidate = 0;
		c = s->get_byte(s->base.user);
		if (c >= 0) {
			s->st.stops_deleted++;
			s->run = 0;
			tx_load_char(s, c);
		}
	}
	if (s->nbits == 0)
		tx_load(s);
	bit = (int)(s->sr & 1);
	s->sr >>= 1;
	s->nbits--;
	return bit;
}

void smdsp_async_tx_get_bits(struct smdsp_async_tx *s, uint8_t *bits,
			     unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		bits[i] = (uint8_t)smdsp_async_tx_get_bit(s);
}

void smdsp_async_tx_break(struct smdsp_async_tx *s)
{
	s->break_pending = 1;
}

void smdsp_async_tx_get_stats(const struct smdsp_async_tx *s,
			      struct smdsp_async_tx_stats *st)
{
	*st = s->st;
}

struct smdsp_async_rx *smdsp_async_rx_create(const struct smdsp_async_config *cfg,
					     smdsp_async_put_byte_fn put_byte,
					     void *user)
{
	struct smdsp_async_rx *s;

	s = smdsp_async_base_create(cfg, put_byte, user, sizeof(*s));

	if (s) {
		s->put_byte = put_byte;
		s->frame_bits = cfg->data_bits + (cfg->parity ? 1 : 0);
		s->break_bits = 2 * s->base.char_bits + 3;
		s->state = RX_HUNT;
	}
	return s;
}

void smdsp_async_rx_free(struct smdsp_async_rx *s)
{
	smdsp_free(s);
}

void smdsp_async_rx_reset(struct smdsp_async_rx *s)
{
	s->state = RX_HUNT;
	s->acc = 0;
	s->n = 0;
	s->zero_run = 0;
	s->pending_zeros = 0;
	memset(&s->st, 0, sizeof(s->st));
}

static void rx_deliver(struct smdsp_async_rx *s, uint32_t acc)
{
	const struct smdsp_async_config *cfg = &s->base.cfg;
	uint32_t data = data_of(cfg, acc);

	/* the character is still passed on, as a UART would */
	if (cfg->parity &&
	    parity_bit(cfg, data) != ((acc >> cfg->data_bits) & 1))
		s->st.parity_errors++;
	s->st.chars++;
	s->put_byte(s->base.user, (int)data);
}

static void rx_flush_pending(struct smdsp_async_rx *s)
{
	while (s->pending_zeros) {
		s->pending_zeros--;
		if (s->base.cfg.v14) {
			s->st.stops_inserted++;
			rx_deliver(s, 0);
		} else {
			s->st.framing_errors++;
		}
	}
}

void smdsp_async_rx_put_bit(struct smdsp_async_rx *s, int bit)
{
	bit = bit ? 1 : 0;
	if (bit) {
		if (s->pending_zeros)
			rx_flush_pending(s);
		s->zero_run = 0;
	} else if (s->zero_run <= s->break_bits) {
		if (++s->zero_run == s->break_bits) {
			/* the held all-space characters were the break itself */
			s->pending_zeros = 0;
			s->st.breaks++;
			s->state = RX_WAIT_MARK;
			s->put_byte(s->base.user, SMDSP_ASYNC_BREAK);
			return;
		}
	}

	switch (s->state) {
	case RX_HUNT:
		if (!bit) {
			s->state = RX_DATA;
			s->acc = 0;
			s->n = 0;
		}
		break;
	case RX_DATA:
		s->acc |= (uint32_t)bit << s->n;
		if (++s->n == s->frame_bits)
			s->state = RX_STOP;
		break;
	case RX_STOP:
		if (bit) {
			rx_deliver(s, s->acc);
			s->state = RX_HUNT;
			break;
		}
		/* start polarity where the stop bit belongs */
		if (s->acc == 0) {
			if (s->pending_zeros < RX_MAX_PENDING)
				s->pending_zeros++;
			s->state = s->base.cfg.v14 ? RX_DATA : RX_WAIT_MARK;
		} else if (s->base.cfg.v14) {
			s->st.stops_inserted++;
			rx_deliver(s, s->acc);
			s->state = RX_DATA;
		} else {
			s->st.framing_errors++;
			s->state = RX_WAIT_MARK;
		}
		s->acc = 0;
		s->n = 0;
		break;
	default:
		if (bit)
			s->state = RX_HUNT;
		break;
	}
}

void smdsp_async_rx_put_bits(struct smdsp_async_rx *s, const uint8_t *bits,
			     unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		smdsp_async_rx_put_bit(s, bits[i]);
}

void smdsp_async_rx_get_stats(const struct smdsp_async_rx *s,
			      struct smdsp_async_rx_stats *st)
{
	*st = s->st;
}

int smdsp_async_tx_print(const struct smdsp_async_tx *s, char *buf, size_t len)
{
	return snprintf(buf, len, "async_tx chars=%u stops_deleted=%u idle_bits=%u breaks=%u",
			s->st.chars, s->st.stops_deleted, s->st.idle_bits, s->st.breaks);
}

int smdsp_async_rx_print(const struct smdsp_async_rx *s, char *buf, size_t len)
{
	return snprintf(buf, len, "async_rx chars=%u framing=%u parity=%u breaks=%u",
			s->st.chars, s->st.framing_errors, s->st.parity_errors, s->st.breaks);
}
