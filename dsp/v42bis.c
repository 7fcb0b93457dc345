// SPDX-License-Identifier: GPL-2.0
/*
 * V.42bis data compression (ITU-T V.42bis, 1990).
 *
 * How it works. Each direction has a dictionary of N2 (P1) entries: 0-2
 * are the control codewords, 3-258 the 256 characters (the roots of a
 * forest), 259 onwards strings, each an entry whose parent is the string
 * one character shorter. The encoder matches the longest string it can
 * (never the entry the previous string created, never more than N7 (P2)
 * characters), sends its codeword, then adds that string plus the next
 * character as a new entry at C1; C1 then moves on to the next entry that
 * is a leaf (or empty), wrapping to 259, and that leaf is detached from its
 * parent, so the dictionary recycles its least recently created leaves.
 * The decoder sees the same strings (the codewords) and the same next
 * characters (the first of the following string), so it builds the same
 * dictionary; the rule against the newest entry is what guarantees that
 * every codeword it gets is already defined.
 *
 * Codewords are C2 bits long, least significant bit first, packed into
 * octets; C2 starts at 9 and grows only by the STEPUP control codeword,
 * which the encoder sends before a codeword that needs one more bit.
 *
 * Transparent mode sends the characters themselves. The escape character
 * (ESC, 0 at first) introduces a command: ECM (enter compressed mode), EID
 * (ESC itself was the data) or RESET; ESC moves on by 51 after every data
 * character equal to it, in either mode, so that a long run of one value
 * costs no more than one escape. In transparent mode both ends still run
 * the string matcher over the characters, so the dictionary keeps learning
 * and compressed mode can start with it. In compressed mode ETM goes back
 * to transparent mode and FLUSH pads to an octet boundary (C-FLUSH: all
 * that was sent can be decoded now, used at the end of every V.42 frame).
 *
 * The compressibility test (the recommendation leaves its form open)
 * counts, over windows of 256 characters, the bits each mode spends or
 * would have spent on the same strings: transparent mode goes compressed
 * when that saves an eighth, compressed goes transparent when it costs
 * more than the characters themselves.
 *
 * The decoder trusts nothing: a codeword of an empty entry, at or above
 * N2, a STEPUP beyond N1 bits or an unknown command is a protocol error
 * (counted; the decoder then takes no more input until a reset). Every loop
 * is bounded by the dictionary's size or the longest string; no recursion.
 */
#include <smdsp/private/v42bis.h>

/* control codewords (compressed mode) */
#define CW_ETM		0
#define CW_FLUSH	1
#define CW_STEPUP	2
/* commands after ESC (transparent mode) */
#define CMD_ECM		0
#define CMD_EID		1
#define CMD_RESET	2

/*
 * Encoder output for one character at most: 7 STEPUPs and a codeword of
 * 16 bits each, ETM and its padding, then ESC EID; then a flush: a codeword
 * and 7 STEPUPs again, FLUSH and padding.
 */
#define ENC_CHAR_MAX	22
#define ENC_FLUSH_MAX	20

#define WINDOW_CHARS	256

static unsigned int bits_for(unsigned int n)
{
	unsigned int b = 0;

	while ((1u << b) < n)
		b++;
	return b;
}

/* ---- the dictionary, the same at both ends ---- */

static void dict_init(struct v42bis_dict *d, unsigned int n2, unsigned int n7)
{
	unsigned int i;

	memset(d->node, 0, n2 * sizeof(*d->node));
	for (i = 0; i < V42BIS_N4; i++) {
		d->node[V42BIS_N6 + i].octet = (uint8_t)i;
		d->node[V42BIS_N6 + i].depth = 1;
	}
	d->n2 = n2;
	d->n7 = n7;
	d->n1 = bits_for(n2);
	d->c1 = V42BIS_N5;
	d->c2 = V42BIS_N3 + 1;
	d->c3 = 2 * V42BIS_N4;
	d->cur = 0;
	d->update_at = 0;
	d->last_added = 0;
	d->esc = 0;
	d->transparent = 1;
	d->bits = 0;
	d->nbits = 0;
}

/* the child of p for character c, 0 if none (siblings have distinct characters) */
static uint16_t find_child(const struct v42bis_dict *d, uint16_t p, uint8_t c)
{
	uint16_t e = d->node[p].child;
	unsigned int guard = V42BIS_N4;

	while (e && guard--) {
		if (d->node[e].octet == c)
			return e;
		e = d->node[e].next;
	}
	return 0;
}

static void detach(struct v42bis_dict *d, uint16_t e)
{
	struct v42bis_node *n = d->node;
	uint16_t p = n[e].parent;
	unsigned int guard = V42BIS_N4;

	if (n[p].child == e) {
		n[p].child = n[e].next;
	} else {
		uint16_t x = n[p].child;

		while (x && n[x].next != e && guard--)
			x = n[x].next;
		if (x && n[x].next == e)
			n[x].next = n[e].next;
	}
	memset(&n[e], 0, sizeof(n[e]));
}

/* 6.4/6.5: string p + c becomes entry C1; C1 moves on to a leaf, freed */
static uint16_t add_entry(struct v42bis_dict *d, uint16_t p, uint8_t c)
{
	struct v42bis_node *n = d->node;
	uint16_t e = (uint16_t)d->c1;
	unsigned int next = d->c1, guard = d->n2;

	n[e].parent = p;
	n[e].child = 0;
	n[e].next = n[p].child;
	n[e].octet = c;
	n[e].depth = (uint8_t)(n[p].depth + 1);
	n[p].child = e;
	do {
		if (++next >= d->n2)
			next = V42BIS_N5;
	} while (n[next].child && --guard);
	if (n[next].depth)
		detach(d, (uint16_t)next);
	d->c1 = next;
	return e;
}

/* the update at the start of a string: the previous string plus c */
static void update(struct v42bis_dict *d, uint8_t c)
{
	uint16_t p = d->update_at;

	d->update_at = 0;
	if (p && !find_child(d, p, c) && d->node[p].depth < d->n7)
		d->last_added = add_entry(d, p, c);
	else
		d->last_added = 0;	/* this string created nothing */
}

/*
 * The string matcher: c extends the current string (returns 1; *done is
 * the string's code when that made it N7 long), or ends it (returns 0;
 * *done is its code, the caller starts the next string with c).
 */
static int match(struct v42bis_dict *d, uint8_t c, uint16_t *done)
{
	uint16_t e;

	*done = 0;
	if (!d->cur)
		return 0;
	e = find_child(d, d->cur, c);
	if (e && e != d->last_added) {
		d->cur = e;
		if (d->node[e].depth >= d->n7) {
			*done = e;
			d->cur = 0;
		}
		return 1;
	}
	*done = d->cur;
	d->update_at = d->cur;
	d->cur = 0;
	return 0;
}

static void start_string(struct v42bis_dict *d, uint8_t c)
{
	update(d, c);
	d->cur = (uint16_t)(V42BIS_N6 + c);
}

/* ---- encoder ---- */

static unsigned int outq_used(const struct smdsp_v42bis *s)
{
	return s->outq_head - s->outq_tail;
}

static void out_byte(struct smdsp_v42bis *s, uint8_t b)
{
	s->outq[s->outq_head++ % V42BIS_OUTQ] = b;
	s->st.enc_out++;
}

static void put_code(struct smdsp_v42bis *s, unsigned int code)
{
	struct v42bis_dict *d = &s->enc;

	d->bits |= (uint32_t)code << d->nbits;
	d->nbits += d->c2;
	while (d->nbits >= 8) {
		out_byte(s, (uint8_t)d->bits);
		d->bits >>= 8;
		d->nbits -= 8;
	}
}

static void pad_octet(struct smdsp_v42bis *s)
{
	struct v42bis_dict *d = &s->enc;

	if (d->nbits)
		out_byte(s, (uint8_t)d->bits);
	d->bits = 0;
	d->nbits = 0;
}

/* 7.4: a codeword, after as many STEPUPs as it needs */
static void send_code(struct smdsp_v42bis *s, uint16_t code)
{
	struct v42bis_dict *d = &s->enc;

	while (code >= d->c3 && d->c2 < d->n1) {
		put_code(s, CW_STEPUP);
		d->c2++;
		d->c3 <<= 1;
	}
	put_code(s, code);
}

/* a string has ended: send it (compressed mode) and count it for the test */
static void string_done(struct smdsp_v42bis *s, uint16_t code)
{
	struct v42bis_dict *d = &s->enc;
	unsigned int len = d->node[code].depth;

	if (!d->transparent)
		send_code(s, code);
	s->win_chars += len;
	s->win_raw += 8 * len;
	s->win_comp += code >= d->c3 ? d->c2 + 1 : d->c2;
}

/*
 * Either side's dictionary into compressed mode (ECM): no code bits
 * pending, and the string in progress ends here: its successor
 * extends it.
 */
static void dict_compressed(struct v42bis_dict *d)
{
	d->transparent = 0;
	d->bits = 0;
	d->nbits = 0;
	if (d->cur) {
		d->update_at = d->cur;
		d->cur = 0;
	}
}

static void go_compressed(struct smdsp_v42bis *s)
{
	struct v42bis_dict *d = &s->enc;

	out_byte(s, d->esc);
	out_byte(s, CMD_ECM);
	dict_compressed(d);
	s->st.to_compressed++;
}

static void go_transparent(struct smdsp_v42bis *s)
{
	struct v42bis_dict *d = &s->enc;

	if (d->cur) {
		string_done(s, d->cur);
		d->update_at = d->cur;
		d->cur = 0;
	}
	put_code(s, CW_ETM);
	pad_octet(s);
	d->transparent = 1;
	s->st.to_transparent++;
}

/* between two strings: the compressibility test, or the forced mode */
static void test_mode(struct smdsp_v42bis *s)
{
	struct v42bis_dict *d = &s->enc;

	switch (s->cfg.mode) {
	case SMDSP_V42BIS_ALWAYS:
		if (d->transparent)
			go_compressed(s);
		return;
	case SMDSP_V42BIS_NEVER:
		if (!d->transparent)
			go_transparent(s);
		return;
	default:
		break;
	}
	if (s->win_chars < WINDOW_CHARS)
		return;
	if (d->transparent && 8 * s->win_comp < 7 * s->win_raw)
		go_compressed(s);
	else if (!d->transparent && s->win_comp > s->win_raw)
		go_transparent(s);
	s->win_chars = 0;
	s->win_raw = 0;
	s->win_comp = 0;
}

/* a character taken: ESC moves on, and transparent mode sends it */
static void enc_char_out(struct smdsp_v42bis *s, uint8_t c)
{
	struct v42bis_dict *d = &s->enc;

	if (c == d->esc) {
		if (d->transparent) {
			out_byte(s, c);
			out_byte(s, CMD_EID);
		}
		d->esc += V42BIS_ESC_STEP;
	} else if (d->transparent) {
		out_byte(s, c);
	}
}

static void enc_char(struct smdsp_v42bis *s, uint8_t c)
{
	struct v42bis_dict *d = &s->enc;
	uint16_t done;

	s->st.enc_in++;
	if (s->cfg.mode != SMDSP_V42BIS_AUTO && !d->cur)
		test_mode(s);
	if (match(d, c, &done)) {
		enc_char_out(s, c);
		if (done) {
			string_done(s, done);
			test_mode(s);
		}
		return;
	}
	if (done) {
		string_done(s, done);
		test_mode(s);
	}
	start_string(d, c);
	enc_char_out(s, c);
}

unsigned int smdsp_v42bis_encode(struct smdsp_v42bis *s, const uint8_t *buf,
				 unsigned int len)
{
	unsigned int i;

	if (!(s->cfg.dirs & SMDSP_V42BIS_DIR_TX)) {
		for (i = 0; i < len && outq_used(s) < V42BIS_OUTQ; i++) {
			out_byte(s, buf[i]);
			s->st.enc_in++;
		}
		return i;
	}
	for (i = 0; i < len; i++) {
		if (outq_used(s) + ENC_CHAR_MAX + ENC_FLUSH_MAX > V42BIS_OUTQ)
			break;
		enc_char(s, buf[i]);
	}
	return i;
}

/* 7.9: the partial string's codeword, then FLUSH and padding if needed */
void smdsp_v42bis_flush(struct smdsp_v42bis *s)
{
	struct v42bis_dict *d = &s->enc;

	if (!(s->cfg.dirs & SMDSP_V42BIS_DIR_TX) || d->transparent)
		return;	/* transparent mode sent every character already */
	if (d->cur) {
		string_done(s, d->cur);
		d->update_at = d->cur;
		d->cur = 0;
	}
	if (d->nbits) {
		put_code(s, CW_FLUSH);
		pad_octet(s);
		s->st.flushes++;
	}
}

unsigned int smdsp_v42bis_pending(const struct smdsp_v42bis *s)
{
	return outq_used(s);
}

int smdsp_v42bis_idle(const struct smdsp_v42bis *s)
{
	const struct v42bis_dict *d = &s->enc;

	if (outq_used(s))
		return 0;
	if (!(s->cfg.dirs & SMDSP_V42BIS_DIR_TX) || d->transparent)
		return 1;
	return !d->cur && !d->nbits;
}

unsigned int smdsp_v42bis_read(struct smdsp_v42bis *s, uint8_t *buf,
			       unsigned int max)
{
	unsigned int n = 0;

	while (n < max && s->outq_tail != s->outq_head)
		buf[n++] = s->outq[s->outq_tail++ % V42BIS_OUTQ];
	return n;
}

/* ---- decoder ---- */

static int dec_fail(struct smdsp_v42bis *s)
{
	if (!s->dec_failed)
		s->st.errors++;
	s->dec_failed = 1;
	return -EPROTO;
}

/* one data character in transparent mode: the matcher follows the encoder's */
static void dec_char(struct smdsp_v42bis *s, uint8_t c, uint8_t *out)
{
	struct v42bis_dict *d = &s->dec;
	uint16_t done;

	if (!match(d, c, &done))
		start_string(d, c);
	if (c == d->esc)
		d->esc += V42BIS_ESC_STEP;
	*out = c;
}

/* one octet in transparent mode: returns the characters written, or -EPROTO */
static int dec_transparent(struct smdsp_v42bis *s, uint8_t b, uint8_t *out)
{
	struct v42bis_dict *d = &s->dec;

	if (!s->dec_escaped) {
		if (b == d->esc) {
			s->dec_escaped = 1;
			return 0;
		}
		dec_char(s, b, out);
		return 1;
	}
	s->dec_escaped = 0;
	switch (b) {
	case CMD_ECM:
		dict_compressed(d);
		return 0;
	case CMD_EID:
		dec_char(s, d->esc, out);
		return 1;
	case CMD_RESET:
		dict_init(d, d->n2, d->n7);
		s->st.dec_resets++;
		return 0;
	default:
		return dec_fail(s);
	}
}

/* one codeword in compressed mode: returns the characters written, or -EPROTO */
static int dec_code(struct smdsp_v42bis *s, unsigned int code, uint8_t *out)
{
	struct v42bis_dict *d = &s->dec;
	const struct v42bis_node *n = d->node;
	unsigned int len, k, i;
	uint16_t p;

	switch (code) {
	case CW_ETM:
		d->transparent = 1;
		d->bits = 0;
		d->nbits = 0;
		return 0;
	case CW_FLUSH:
		d->bits = 0;
		d->nbits = 0;
		return 0;
	case CW_STEPUP:
		if (d->c2 + 1 > d->n1)
			return dec_fail(s);
		d->c2++;
		d->c3 <<= 1;
		return 0;
	default:
		break;
	}
	if (code >= d->n2 || !n[code].depth)
		return dec_fail(s);	/* an empty entry: the encoder never sends one */
	len = n[code].depth;
	k = len;
	p = (uint16_t)code;
	while (p && k) {
		out[--k] = n[p].octet;
		p = n[p].parent;
	}
	if (p || k)
		return dec_fail(s);
	update(d, out[0]);
	/* the recovery after that update may not take the entry just received */
	if (!n[code].depth)
		return dec_fail(s);
	d->update_at = len < d->n7 ? (uint16_t)code : 0;
	for (i = 0; i < len; i++)
		if (out[i] == d->esc)
			d->esc += V42BIS_ESC_STEP;
	return (int)len;
}

int smdsp_v42bis_decode(struct smdsp_v42bis *s, const uint8_t *in,
			unsigned int len, uint8_t *out, unsigned int max,
			unsigned int *used)
{
	struct v42bis_dict *d = &s->dec;
	unsigned int i = 0, n = 0;
	int r;

	if (!(s->cfg.dirs & SMDSP_V42BIS_DIR_RX)) {
		for (i = 0; i < len && n < max; i++)
			out[n++] = in[i];
		*used = i;
		s->st.dec_in += i;
		s->st.dec_out += n;
		return (int)n;
	}
	*used = 0;
	if (s->dec_failed)
		return -EPROTO;
	while (i < len && max - n >= d->n7) {
		uint8_t b = in[i++];

		s->st.dec_in++;
		if (d->transparent) {
			r = dec_transparent(s, b, out + n);
		} else {
			d->bits |= (uint32_t)b << d->nbits;
			d->nbits += 8;
			r = 0;
			/* c2 > 8: an octet completes one codeword at most */
			if (d->nbits >= d->c2) {
				unsigned int code = d->bits & (d->c3 - 1);

				d->bits >>= d->c2;
				d->nbits -= d->c2;
				r = dec_code(s, code, out + n);
			}
		}
		if (r < 0)
			break;	/* what came before the error is still data */
		n += (unsigned int)r;
	}
	*used = i;
	s->st.dec_out += n;
	return (int)n;
}

/* ---- set-up ---- */

static int check_cfg(const struct smdsp_v42bis_config *c, unsigned int *p1,
		     unsigned int *p2)
{
	*p1 = c->p1 ? c->p1 : SMDSP_V42BIS_DEF_P1;
	*p2 = c->p2 ? c->p2 : SMDSP_V42BIS_DEF_P2;
	if (*p1 < SMDSP_V42BIS_MIN_P1 || *p1 > SMDSP_V42BIS_MAX_P1 ||
	    *p2 < SMDSP_V42BIS_MIN_P2 || *p2 > SMDSP_V42BIS_MAX_P2 ||
	    c->dirs > SMDSP_V42BIS_DIR_BOTH)
		return -EINVAL;
	return 0;
}

static void setup(struct smdsp_v42bis *s, const struct smdsp_v42bis_config *cfg,
		  unsigned int p1, unsigned int p2)
{
	if (p1 > s->alloc_p1)
		p1 = s->alloc_p1;
	s->cfg = *cfg;
	s->cfg.p1 = p1;
	s->cfg.p2 = p2;
	s->cfg.max_p1 = s->alloc_p1;
	dict_init(&s->enc, p1, p2);
	dict_init(&s->dec, p1, p2);
	s->outq_head = 0;
	s->outq_tail = 0;
	s->win_chars = 0;
	s->win_raw = 0;
	s->win_comp = 0;
	s->dec_escaped = 0;
	s->dec_failed = 0;
	memset(&s->st, 0, sizeof(s->st));
}

int smdsp_v42bis_reset(struct smdsp_v42bis *s, const struct smdsp_v42bis_config *cfg)
{
	unsigned int p1, p2;

	if (!s || !cfg || check_cfg(cfg, &p1, &p2))
		return -EINVAL;
	setup(s, cfg, p1, p2);
	return 0;
}

void smdsp_v42bis_set_mode(struct smdsp_v42bis *s, enum smdsp_v42bis_mode mode)
{
	s->cfg.mode = mode;
}

struct smdsp_v42bis *smdsp_v42bis_create(const struct smdsp_v42bis_config *cfg)
{
	struct smdsp_v42bis *s;
	unsigned int p1, p2, max;

	if (!cfg || check_cfg(cfg, &p1, &p2))
		return NULL;
	max = cfg->max_p1 > p1 ? cfg->max_p1 : p1;
	if (max > SMDSP_V42BIS_MAX_P1)
		return NULL;
	s = smdsp_alloc(sizeof(*s));
	if (!s)
		return NULL;
	memset(s, 0, sizeof(*s));
	s->enc.node = smdsp_alloc(max * sizeof(*s->enc.node));
	s->dec.node = smdsp_alloc(max * sizeof(*s->dec.node));
	if (!s->enc.node || !s->dec.node) {
		smdsp_v42bis_free(s);
		return NULL;
	}
	s->alloc_p1 = max;
	setup(s, cfg, p1, p2);
	return s;
}

void smdsp_v42bis_free(struct smdsp_v42bis *s)
{
	if (!s)
		return;
	smdsp_free(s->enc.node);
	smdsp_free(s->dec.node);
	smdsp_free(s);
}

unsigned int smdsp_v42bis_max_p1(const struct smdsp_v42bis *s)
{
	return s->alloc_p1;
}

int smdsp_v42bis_failed(const struct smdsp_v42bis *s)
{
	return s->dec_failed;
}

void smdsp_v42bis_get_stats(const struct smdsp_v42bis *s,
			    struct smdsp_v42bis_stats *st)
{
	*st = s->st;
	st->enc_transparent = s->enc.transparent;
	st->dec_transparent = s->dec.transparent;
	st->enc_c2 = (uint8_t)s->enc.c2;
	st->dec_c2 = (uint8_t)s->dec.c2;
}

int smdsp_v42bis_print(const struct smdsp_v42bis *s, char *buf, size_t len)
{
	return snprintf(buf, len,
			"v42bis dirs=%u p1=%u p2=%u enc=%s/c2=%u in=%u out=%u dec=%s/c2=%u in=%u out=%u errors=%u",
			s->cfg.dirs, s->cfg.p1, s->cfg.p2,
			s->enc.transparent ? "transparent" : "compressed", s->enc.c2,
			s->st.enc_in, s->st.enc_out,
			s->dec.transparent ? "transparent" : "compressed", s->dec.c2,
			s->st.dec_in, s->st.dec_out, s->st.errors);
}
