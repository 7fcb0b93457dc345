// SPDX-License-Identifier: GPL-2.0
/*
 * smline: V.42bis on the far modem's V.42 (SpanDSP 0.0.6 both).
 *
 * How it works. SpanDSP 0.0.6's v42.c puts a V.42bis group in every XID
 * it sends (from its config: P0 1, P1 512, P2 6 unless told otherwise),
 * never acts on the one it receives, and passes I frames to and from the
 * user untouched. So this file:
 * - sets what its XID offers (v42_state_t's config, visible with
 *   SPANDSP_EXPOSE_INTERNAL_STRUCTURES) to what SpanDSP's own V.42bis can
 *   do: both directions, P1 up to 4096 (its dictionary is a fixed array of
 *   4096 entries), P2 up to 250; or no group at all when it is off;
 * - reads the XID exchange from the HDLC monitors modem.c already runs on
 *   both directions. As the responder it must answer with what both ends
 *   can do (V.42bis 7.1), but SpanDSP answers with its config: a command
 *   reaches the monitor on the bit that ends it, before SpanDSP's own
 *   receiver has it, so the config is lowered to the agreement there and
 *   SpanDSP's answer carries it. Whatever the roles, what is in force is
 *   the command's offer cut down by the response (and by what we can do);
 *   P0 is the initiator's view: bit 0 from the XID command's sender;
 * - at each link set-up (SABME/UA: C-INIT) starts SpanDSP's v42bis afresh
 *   with the agreed P1 and P2, compresses the service's bytes into the I
 *   frames V.42 asks for and decompresses the I frames it delivers, in
 *   the directions agreed (the other passes through untouched);
 * - flushes the encoder (V.42bis C-FLUSH) when an I frame takes the last
 *   bytes the service has, so that the far decoder can decode everything
 *   sent; a frame filled from a longer backlog is not flushed.
 */
#include <stdlib.h>
#include <string.h>

#define SPANDSP_EXPOSE_INTERNAL_STRUCTURES
#include <spandsp.h>

#include "v42bis_far.h"

#define U_XID 0xAF		/* the XID control octet, P/F bit aside (0x10) */
#define XID_FI 0x82
#define XID_GI_PRIVATE 0xF0
#define XID_PI_SET 0x00
#define XID_PI_P0 0x01
#define XID_PI_P1 0x02
#define XID_PI_P2 0x03

#define TXQ_SIZE 4096		/* compressed bytes waiting for I frames */
#define ENC_CHUNK 32		/* the encoder's output reaches us this often */
#define DEC_CHUNK 1024		/* SpanDSP's largest (V42BIS_MAX_OUTPUT_LENGTH) */

struct bis_par {
	bool group;		/* the XID carried V.42bis's group */
	int p0, p1, p2;
};

struct sml_v42bis {
	struct sml_v42bis_cfg cfg;
	v42_state_t *v42;
	bool calling;
	struct sml_fifo *txf, *rxf;
	const char *who;
	int64_t now;		/* the line time of the last frame or set-up, for the log */

	struct bis_par cmd;	/* the last XID command, either way */
	struct bis_par agreed;	/* P0 from the initiator's (the command sender's) side */
	bool initiator;		/* we sent that command */

	v42bis_state_t *bis;
	bool dirty;		/* bytes in the encoder since its last flush */
	uint8_t txq[TXQ_SIZE];
	size_t txq_head, txq_len;
	struct sml_v42bis_stats st;
};

void sml_v42bis_cfg_default(struct sml_v42bis_cfg *c)
{
	c->off = false;
	c->p1 = SML_V42BIS_MAX_P1;
	c->p2 = SML_V42BIS_MAX_P2;
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int sml_v42bis_cfg_parse_word(struct sml_v42bis_cfg *c, const char *w)
{
	if (!strcmp(w, "v42bis"))
		c->off = false;
	else if (!strcmp(w, "nov42bis"))
		c->off = true;
	else if (!strncmp(w, "v42bis_p1=", 10))
		c->p1 = clampi(atoi(w + 10), SML_V42BIS_MIN_P1, SML_V42BIS_MAX_P1);
	else if (!strncmp(w, "v42bis_p2=", 10))
		c->p2 = clampi(atoi(w + 10), SML_V42BIS_MIN_P2, SML_V42BIS_MAX_P2);
	else
		return -1;
	return 0;
}

/* ---- SpanDSP's V.42bis outputs ---- */

static void enc_out(void *user, const uint8_t *p, int len)
{
	struct sml_v42bis *b = user;
	size_t i;

	for (i = 0; i < (size_t)len; i++) {
		if (b->txq_len == TXQ_SIZE) {
			sml_log(SML_LOG_ERR, b->now, b->who, "V.42bis transmit queue overflow");
			return;
		}
		b->txq[(b->txq_head + b->txq_len++) % TXQ_SIZE] = p[i];
	}
	b->st.tx_out += (uint64_t)len;
}

static void dec_out(void *user, const uint8_t *p, int len)
{
	struct sml_v42bis *b = user;

	if (len <= 0)
		return;
	if (sml_fifo_put(b->rxf, p, (size_t)len) < (size_t)len)
		sml_log(SML_LOG_ERR, b->now, b->who, "receive fifo overflow");
	b->st.rx_out += (uint64_t)len;
}

/* ---- XID ---- */

static void set_offer(struct sml_v42bis *b, const struct bis_par *p)
{
	/* SpanDSP's XID leaves the group out when comp is 0 */
	b->v42->config.comp = (uint8_t)(p->group ? p->p0 : 0);
	b->v42->config.comp_dict_size = p->p1;
	b->v42->config.comp_max_string = p->p2;
}

static void own_offer(const struct sml_v42bis *b, struct bis_par *p)
{
	memset(p, 0, sizeof(*p));
	if (b->cfg.off)
		return;
	p->group = true;
	p->p0 = 3;
	p->p1 = b->cfg.p1;
	p->p2 = b->cfg.p2;
}

static uint32_t value(const uint8_t *v, int len)
{
	uint32_t x = 0;
	int i;

	for (i = 0; i < len && i < 4; i++)
		x = x << 8 | v[i];
	return x;
}

/* the V.42bis group of an XID frame (ISO/IEC 8885 encoding, V.42 table 11b) */
static void parse_xid(const uint8_t *f, int len, struct bis_par *p)
{
	int q = 3;

	memset(p, 0, sizeof(*p));
	if (len < 3 || f[2] != XID_FI)
		return;
	while (q + 3 <= len) {
		int gi = f[q], gl = f[q + 1] << 8 | f[q + 2];
		int end, r;
		bool set_ok = true, have_p0 = false;

		q += 3;
		end = q + gl;
		if (end > len)
			return;
		if (gi != XID_GI_PRIVATE) {
			q = end;
			continue;
		}
		for (r = q; r + 2 <= end;) {
			int pi = f[r], pl = f[r + 1];
			const uint8_t *v = &f[r + 2];

			r += 2 + pl;
			if (r > end)
				break;
			switch (pi) {
			case XID_PI_SET:
				set_ok = pl == 3 && !memcmp(v, "V42", 3);
				break;
			case XID_PI_P0:
				p->p0 = (int)(value(v, pl) & 3);
				have_p0 = pl > 0;
				break;
			case XID_PI_P1:
				p->p1 = (int)value(v, pl);
				break;
			case XID_PI_P2:
				p->p2 = (int)value(v, pl);
				break;
			default:
				break;
			}
		}
		p->group = set_ok && have_p0;
		q = end;
	}
}

/* a cut down to b, to what we can do, and to the recommendation's minima */
static void agree(const struct sml_v42bis *b, const struct bis_par *a,
		  const struct bis_par *c, struct bis_par *out)
{
	struct bis_par own;

	own_offer(b, &own);
	memset(out, 0, sizeof(*out));
	if (!a->group || !c->group || !own.group)
		return;
	out->group = true;
	out->p0 = a->p0 & c->p0 & own.p0;
	out->p1 = a->p1 < c->p1 ? a->p1 : c->p1;
	out->p1 = out->p1 < own.p1 ? out->p1 : own.p1;
	out->p2 = a->p2 < c->p2 ? a->p2 : c->p2;
	out->p2 = out->p2 < own.p2 ? out->p2 : own.p2;
	if (out->p1 < SML_V42BIS_MIN_P1 || out->p2 < SML_V42BIS_MIN_P2)
		out->p0 = 0;
	if (!out->p0)
		out->p1 = out->p2 = 0;
}

void sml_v42bis_frame(struct sml_v42bis *b, bool sent, const uint8_t *f, int len,
		      int64_t now)
{
	bool from_originator, cmd;
	struct bis_par p;

	if (len < 3 || (f[1] & 0xEF) != U_XID)
		return;
	b->now = now;
	/* C/R: 1 in the originator's commands, 0 in the answerer's */
	from_originator = sent ? b->calling : !b->calling;
	cmd = from_originator == ((f[0] & 0x02) != 0);
	parse_xid(f, len, &p);
	if (sent) {
		b->st.xid_p0 = p.group ? p.p0 : -1;
		b->st.xid_p1 = p.p1;
		b->st.xid_p2 = p.p2;
	}
	sml_log(SML_LOG_DEBUG, now, b->who, "XID %s %s: V.42bis %s P0 %d P1 %d P2 %d",
		cmd ? "command" : "response", sent ? "sent" : "got",
		p.group ? "offered" : "not offered", p.p0, p.p1, p.p2);
	if (cmd) {
		b->cmd = p;
		b->initiator = sent;
		if (!sent) {
			struct bis_par own, ans;

			/* our answer is the agreement, which SpanDSP sends from its config */
			own_offer(b, &own);
			agree(b, &p, &own, &ans);
			set_offer(b, &ans);
		}
		return;
	}
	agree(b, &b->cmd, &p, &b->agreed);
	if (!sent) {
		struct bis_par own;

		/* a later command of ours offers all we can do again */
		own_offer(b, &own);
		set_offer(b, &own);
	}
}

/* ---- data ---- */

void sml_v42bis_link_up(struct sml_v42bis *b, int64_t now)
{
	const struct bis_par *a = &b->agreed;
	int mine = b->initiator ? 1 : 2;

	b->now = now;
	if (b->bis) {
		v42bis_free(b->bis);
		b->bis = NULL;
	}
	b->txq_head = b->txq_len = 0;
	b->dirty = false;
	b->st.tx = a->group && (a->p0 & mine);
	b->st.rx = a->group && (a->p0 & (3 ^ mine));
	b->st.p1 = b->st.tx || b->st.rx ? a->p1 : 0;
	b->st.p2 = b->st.tx || b->st.rx ? a->p2 : 0;
	if (!b->st.tx && !b->st.rx)
		return;
	/* both halves exist; only the agreed directions are ever used */
	b->bis = v42bis_init(NULL, V42BIS_P0_BOTH_DIRECTIONS, a->p1, a->p2, enc_out, b,
			     ENC_CHUNK, dec_out, b, DEC_CHUNK);
	if (!b->bis) {
		sml_log(SML_LOG_ERR, now, b->who, "v42bis_init failed");
		b->st.tx = b->st.rx = false;
		return;
	}
	b->st.resets++;
	sml_log(SML_LOG_DEBUG, now, b->who, "V.42bis%s%s P1 %d P2 %d",
		b->st.tx ? " tx" : "", b->st.rx ? " rx" : "", a->p1, a->p2);
}

int sml_v42bis_get(struct sml_v42bis *b, uint8_t *msg, int max, size_t *user)
{
	uint8_t in[ENC_CHUNK];
	size_t n, i;

	*user = 0;
	if (!b->st.tx) {
		n = sml_fifo_get(b->txf, msg, (size_t)max);
		*user = n;
		return (int)n;
	}
	while (b->txq_len < (size_t)max && (n = sml_fifo_get(b->txf, in, sizeof(in))) > 0) {
		v42bis_compress(b->bis, in, (int)n);
		b->dirty = true;
		*user += n;
		b->st.tx_in += n;
	}
	if (b->dirty && b->txq_len < (size_t)max && !b->txf->len) {
		v42bis_compress_flush(b->bis);
		b->dirty = false;
	}
	n = b->txq_len < (size_t)max ? b->txq_len : (size_t)max;
	for (i = 0; i < n; i++)
		msg[i] = b->txq[(b->txq_head + i) % TXQ_SIZE];
	b->txq_head = (b->txq_head + n) % TXQ_SIZE;
	b->txq_len -= n;
	return (int)n;
}

size_t sml_v42bis_put(struct sml_v42bis *b, const uint8_t *msg, int len)
{
	uint64_t before = b->st.rx_out;

	if (!b->st.rx) {
		if (sml_fifo_put(b->rxf, msg, (size_t)len) < (size_t)len)
			sml_log(SML_LOG_ERR, b->now, b->who, "receive fifo overflow");
		return (size_t)len;
	}
	b->st.rx_in += (uint64_t)len;
	v42bis_decompress(b->bis, msg, len);
	/* hands on what the decoder holds; its state is untouched */
	v42bis_decompress_flush(b->bis);
	return (size_t)(b->st.rx_out - before);
}

bool sml_v42bis_tx_pending(const struct sml_v42bis *b)
{
	return b->txq_len > 0 || b->dirty;
}

const struct sml_v42bis_stats *sml_v42bis_stats(const struct sml_v42bis *b)
{
	return &b->st;
}

struct sml_v42bis *sml_v42bis_new(const struct sml_v42bis_cfg *cfg,
				  struct v42_state_s *v42, bool calling,
				  struct sml_fifo *txf, struct sml_fifo *rxf,
				  const char *who)
{
	struct sml_v42bis *b = calloc(1, sizeof(*b));
	struct bis_par own;

	if (!b)
		return NULL;
	b->cfg = *cfg;
	b->v42 = v42;
	b->calling = calling;
	b->txf = txf;
	b->rxf = rxf;
	b->who = who;
	b->st.xid_p0 = -1;
	own_offer(b, &own);
	set_offer(b, &own);
	return b;
}

void sml_v42bis_free(struct sml_v42bis *b)
{
	if (!b)
		return;
	if (b->bis)
		v42bis_free(b->bis);
	free(b);
}
