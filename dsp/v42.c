// SPDX-License-Identifier: GPL-2.0
/*
 * V.42 LAPM error correction.
 *
 * Data integrity rests on two rules: a user byte enters the receive queue
 * only from the I frame whose N(S) equals V(R), and a transmitted I frame
 * keeps its slot until an N(R) covers it. Everything else (lost, corrupt,
 * late frames, a starved caller) only costs retransmissions.
 *
 * Variables: V(A) oldest unacknowledged, V(S) next to send, V(N) next new
 * sequence number (V(S) < V(N) after a go-back), V(R) next expected.
 * One timer slot holds T400 (detection), T401 (acknowledgment) or T403
 * (idle), counted down in bit times.
 *
 * V.42bis sits between the user's queues and the I frames: a new I frame is
 * filled from the encoder (which takes the user's bytes) and ends with a
 * flush when the user has no more, so the peer can decode all it holds; an
 * I frame taken in sequence goes to the decoder, which fills the receive
 * queue as room allows (one frame waits at most: the next is refused as
 * busy meanwhile). A decoder protocol error releases the link (DISC), as
 * V.42bis asks. The dictionaries start afresh whenever the link is set up.
 */
#include <smdsp/v42.h>
#include <smdsp/v42bis.h>
#include <smdsp/private/hdlc.h>	/* the framer, embedded by value */

#define SEQ_MOD		128
#define SEQ(x)		((uint8_t)((x) & (SEQ_MOD - 1)))
#define NSLOTS		16		/* > the largest window (15), divides 128 */
#define MAX_K		15
#define DEF_N401	128
#define DEF_K		15
#define SREJ_QLEN	16

/* address octets: DLCI 0, EA 1; C/R is 1 in the originator's commands */
#define ADDR_A		0x01
#define ADDR_B		0x03

/* control field */
#define S_RR		0x01
#define S_RNR		0x05
#define S_REJ		0x09
#define S_SREJ		0x0d
#define U_SABME		0x6f
#define U_UA		0x63
#define U_DISC		0x43
#define U_DM		0x0f
#define U_FRMR		0x87
#define U_XID		0xaf
#define U_PF		0x10

/* XID (ISO/IEC 8885 encoding, V.42 table 11) */
#define XID_FI		0x82
#define XID_GI_PARAM	0x80
#define XID_PI_OPT	0x03
#define XID_PI_N401_TX	0x05
#define XID_PI_N401_RX	0x06
#define XID_PI_K_TX	0x07
#define XID_PI_K_RX	0x08
/* V.42bis's parameters: the private group, set "V42" (V.42 table 11b) */
#define XID_GI_PRIVATE	0xf0
#define XID_PI_SET	0x00
#define XID_PI_P0	0x01
#define XID_PI_P1	0x02
#define XID_PI_P2	0x03
/* optional functions: bits 2, 4, 8, 9, 12, 16 always set by the sender */
#define OPT_SREJ_BIT	3
#define OPT_FCS32_BIT	17

/* detection phase characters (8 bits after the start bit) */
#define ODP_1		0x11		/* DC1, even parity */
#define ODP_2		0x91		/* DC1, odd parity */
#define ADP_1		0x45		/* 'E' */
#define ADP_2		0x43		/* 'C' */
#define ADP_2_NO	0x00		/* NUL: V.42 refused */
#define DET_MARKS	8		/* ones after each detection character */
#define DET_HITS	2
#define ADP_CHARS	20		/* ten E/C pairs */
#define ADP_MAX_CHARS	128		/* while the ODP keeps coming */
#define ADP_MORE_PAIRS	3		/* after the last ODP character seen */
/*
 * Idle flags from the answerer: it has gone to LAPM, even if we missed
 * (some of) its ADPs. Steady flags are no async data pattern.
 */
#define DET_FLAGS	8
#define DET_FLAGS_NO_ADP	32
/*
 * Flags the originator sends after it saw the ADP and before its first frame:
 * the answerer keeps sending ADP (ten pairs) and may not listen for frames
 * until it is done.
 */
#define ORIG_LEAD_FLAGS	48

#define XID_MAX_RETRIES	3
#define NR_HOLD_BITS	3000
/* lower bound for T401: one maximum frame each way plus stuffing */
#define T401_MIN_BITS	6000

enum {
	TMR_NONE,
	TMR_T400,
	TMR_T401,
	TMR_T403,
};

enum {
	AW_NONE,
	AW_XID,
	AW_SABME,
	AW_DISC,
};

/* pending unnumbered frames */
#define P_XID_CMD	0x01
#define P_XID_RSP	0x02
#define P_SABME		0x04
#define P_UA		0x08
#define P_DISC		0x10
#define P_DM		0x20
#define P_POLL		0x40
#define P_EPOLL		0x80		/* RR poll while waiting for UA */

enum {
	DRX_HUNT,
	DRX_CHAR,
	DRX_ONES,
	DRX_WAIT_MARK,
};

struct v42_slot {
	uint16_t len;
	uint8_t data[SMDSP_V42_MAX_N401];
};

/* XID parameters per direction, as one end sees it: it sends, it receives */
enum {
	DIR_TX,
	DIR_RX,
};

struct v42_xid {
	unsigned int n401[2];		/* information field, octets */
	unsigned int k[2];		/* window */
	int srej;
	int fcs32;
	/* V.42bis group present; P0 bit 0: initiator to responder, bit 1 back */
	int bis;
	unsigned int p0;
	unsigned int p1;
	unsigned int p2;
};

struct smdsp_v42 {
	struct smdsp_v42_config cfg;
	int status;
	uint8_t cmd_addr;
	uint8_t rsp_addr;

	/* detection phase */
	uint32_t det_sr;
	unsigned int det_nbits;
	unsigned int det_count;		/* characters sent */
	unsigned int adp_left;		/* answerer: ADP characters still to send */
	unsigned int adp_sent;
	int odp_seen;
	unsigned int odp_recent;	/* ADP pairs to add: the ODP is still coming */
	int drx_state;
	unsigned int drx_n;
	unsigned int drx_acc;
	unsigned int drx_ones;
	unsigned int drx_char;
	int drx_prev;			/* previous detection character, -1 none */
	unsigned int drx_hits;
	unsigned int drx_no_hits;

	/* timers, in bit times */
	uint32_t t400_bits;
	uint32_t t401_bits;
	uint32_t t403_bits;
	int timer_id;
	uint32_t timer;
	unsigned int retry;		/* T401 periods without a word from the peer */
	unsigned int polls;		/* polls in this recovery, heard or not */
	int heard;			/* a good frame arrived in this T401 period */
	int recovery;			/* T401 timer recovery: poll outstanding */
	int awaiting;
	int est_poll;			/* the last set-up frame was a poll, not SABME */

	/* negotiated */
	struct v42_xid neg;
	int fcs32_tx;

	/* sequence state */
	uint8_t va;
	uint8_t vs;
	uint8_t vn;
	uint8_t vr;
	int far_busy;
	int local_busy;
	int busy_change;	/* RNR or RR owed before any I-frame */
	int busy_discarded;
	int rej_exception;
	int peer_spoke;			/* an I or S frame came since the link was set up */

	/* pending control frames */
	unsigned int pend;
	int ua_f;
	int dm_f;
	int xid_f;
	int rsp_f;			/* an RR/RNR response with F=1 is owed */
	/*
	 * After answering a poll with N(R)=X the peer goes back to X. Some
	 * peers (SpanDSP) keep sending new I frames while polling, rewind V(S)
	 * when our answer comes and then take a higher N(R) as an error: so
	 * advertise X until the peer visibly went back, or for a while.
	 */
	uint8_t nr_hold;
	uint32_t nr_hold_bits;
	int ack_needed;			/* an RR/RNR response with F=0 is owed */
	int rej_needed;
	int rej_f;
	/*
	 * A REJ is sent once per gap; if it is lost, the peer's T401 is meant
	 * to recover. Some peers (SpanDSP) run no T401 for I frames sent while
	 * idle, so ask again when the gap is still open after T401.
	 */
	uint32_t rej_bits;
	uint8_t srej_q[SREJ_QLEN];
	unsigned int srej_qh;
	unsigned int srej_qt;
	uint32_t srej_asked[SEQ_MOD / 32];	/* rx: sequence numbers we asked for */
	uint32_t resend[SEQ_MOD / 32];		/* tx: sequence numbers the peer asked for */

	/* transmit window and receive reorder buffer (SREJ) */
	struct v42_slot *slots;
	struct v42_slot *reord;
	uint8_t reord_seq[NSLOTS];
	uint32_t reord_valid;

	/* user byte queues */
	uint8_t *txq;
	uint8_t *rxq;
	unsigned int txq_mask;
	unsigned int rxq_mask;
	unsigned int txq_head;
	unsigned int txq_tail;
	unsigned int rxq_head;
	unsigned int rxq_tail;

	/* V.42bis (NULL unless offered at create) and the frame it decodes */
	struct smdsp_v42bis *bis;
	unsigned int bis_tx;		/* compressing our I frames */
	unsigned int bis_rx;		/* decompressing the peer's */
	uint32_t bis_errors;
	uint8_t dec_in[SMDSP_V42_MAX_N401];
	unsigned int dec_pos;
	unsigned int dec_len;
	uint8_t dec_out[SMDSP_V42BIS_DEC_MAX_OUT];

	struct smdsp_hdlc_tx htx;
	struct smdsp_hdlc_rx hrx;
	struct smdsp_v42_stats st;
};

static const char * const status_names[] = {
	"detecting", "establishing", "connected", "disconnecting",
	"disconnected", "failed", "no-v42",
};

const char *smdsp_v42_status_name(int status)
{
	if (status < 0 || status >= (int)SMDSP_ARRAY_SIZE(status_names))
		return "?";
	return status_names[status];
}

static void set_status(struct smdsp_v42 *s, int status)
{
	if (s->status == status)
		return;
	s->status = status;
	if (s->cfg.status_cb)
		s->cfg.status_cb(s->cfg.user, status);
}

/* ---- small helpers ---- */

static inline unsigned int seq_diff(uint8_t a, uint8_t b)
{
	return SEQ(a - b);
}

static inline void bit_set(uint32_t *m, uint8_t n)
{
	m[n >> 5] |= 1u << (n & 31);
}

static inline void bit_clr(uint32_t *m, uint8_t n)
{
	m[n >> 5] &= ~(1u << (n & 31));
}

static inline int bit_tst(const uint32_t *m, uint8_t n)
{
	return (m[n >> 5] >> (n & 31)) & 1;
}

static unsigned int txq_used(const struct smdsp_v42 *s)
{
	return s->txq_head - s->txq_tail;
}

static unsigned int rxq_free(const struct smdsp_v42 *s)
{
	return s->rxq_mask + 1 - (s->rxq_head - s->rxq_tail);
}

static void rxq_put(struct smdsp_v42 *s, const uint8_t *buf, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		s->rxq[(s->rxq_head + i) & s->rxq_mask] = buf[i];
	s->rxq_head += len;
}

static uint32_t ms_to_bits(const struct smdsp_v42 *s, uint32_t ms)
{
	uint32_t rate = s->cfg.bit_rate;

	/* both capped so that the product fits in 32 bits */
	if (rate > 64000)
		rate = 64000;
	if (ms > 60000)
		ms = 60000;
	return ms * rate / 1000 + 1;
}

static void timer_start(struct smdsp_v42 *s, int id)
{
	s->timer_id = id;
	switch (id) {
	case TMR_T400:
		s->timer = s->t400_bits;
		break;
	case TMR_T401:
		s->timer = s->t401_bits;
		break;
	case TMR_T403:
		s->timer = s->t403_bits;
		break;
	default:
		s->timer_id = TMR_NONE;
		s->timer = 0;
		break;
	}
}

/* T401 no longer needed: T403 watches an idle connected link */
static void t401_stop(struct smdsp_v42 *s)
{
	timer_start(s, s->status == SMDSP_V42_CONNECTED ? TMR_T403 : TMR_NONE);
}

/* ---- link set-up and reset ---- */

static void reset_sequence(struct smdsp_v42 *s)
{
	if (s->status == SMDSP_V42_CONNECTED) {
		uint8_t n;

		for (n = s->va; n != s->vn; n = SEQ(n + 1))
			s->st.lost_on_reset += s->slots[n % NSLOTS].len;
	}
	s->va = 0;
	s->vs = 0;
	s->vn = 0;
	s->vr = 0;
	s->far_busy = 0;
	s->local_busy = 0;
	s->busy_change = 0;
	s->busy_discarded = 0;
	s->rej_exception = 0;
	s->recovery = 0;
	s->retry = 0;
	s->rsp_f = 0;
	s->nr_hold_bits = 0;
	s->rej_bits = 0;
	s->ack_needed = 0;
	s->rej_needed = 0;
	s->pend &= ~P_POLL;
	s->srej_qh = 0;
	s->srej_qt = 0;
	s->reord_valid = 0;
	s->peer_spoke = 0;
	memset(s->srej_asked, 0, sizeof(s->srej_asked));
	memset(s->resend, 0, sizeof(s->resend));
}

/* C-INIT: V.42bis starts afresh with what XID agreed, on every link set-up */
static void bis_start(struct smdsp_v42 *s)
{
	struct smdsp_v42bis_config c = { 0 };
	unsigned int p0 = s->neg.bis ? s->neg.p0 : 0;

	s->bis_tx = 0;
	s->bis_rx = 0;
	s->dec_pos = 0;
	s->dec_len = 0;
	if (!s->bis || !p0)
		return;
	/* the originator initiated XID: bit 0 is its direction */
	s->bis_tx = p0 & (s->cfg.calling ? 1 : 2);
	s->bis_rx = p0 & (s->cfg.calling ? 2 : 1);
	c.dirs = (s->bis_tx ? SMDSP_V42BIS_DIR_TX : 0) | (s->bis_rx ? SMDSP_V42BIS_DIR_RX : 0);
	c.p1 = s->neg.p1;
	c.p2 = s->neg.p2;
	if (smdsp_v42bis_reset(s->bis, &c)) {
		s->bis_tx = 0;
		s->bis_rx = 0;
	}
}

static void enter_connected(struct smdsp_v42 *s)
{
	bis_start(s);
	s->awaiting = AW_NONE;
	s->retry = 0;
	set_status(s, SMDSP_V42_CONNECTED);
	timer_start(s, TMR_T403);
}

/* leave the detection phase and start (or wait for) link establishment */
static void start_lapm(struct smdsp_v42 *s, unsigned int lead_flags)
{
	timer_start(s, TMR_NONE);
	s->adp_left = 0;
	/* the framer has sent nothing yet: its opening flag is still owed */
	smdsp_hdlc_tx_preamble(&s->htx, lead_flags ? lead_flags - 1 : 0);
	set_status(s, SMDSP_V42_ESTABLISHING);
	if (s->cfg.calling) {
		s->awaiting = AW_XID;
		s->retry = 0;
		s->pend |= P_XID_CMD;
	}
}

/* ---- detection phase ---- */

static void det_load(struct smdsp_v42 *s, unsigned int ch)
{
	/* start bit, 8 bits, stop bit, then marks */
	s->det_sr = (ch << 1) | (((1u << (DET_MARKS + 1)) - 1) << 9);
	s->det_nbits = 10 + DET_MARKS;
	s->det_count++;
}

static int det_get_bit(struct smdsp_v42 *s)
{
	int bit;

	if (s->det_nbits == 0) {
		if (s->cfg.calling) {
			det_load(s, (s->det_count & 1) ? ODP_2 : ODP_1);
		} else if (s->adp_left) {
			s->adp_left--;
			s->adp_sent++;
			det_load(s, (s->adp_left & 1) ? ADP_1 : ADP_2);
		} else if (s->odp_seen && s->odp_recent &&
			   s->adp_sent < ADP_MAX_CHARS) {
			/* the originator has not seen our ADP yet: one more pair */
			s->odp_recent--;
			s->adp_left = 1;
			s->adp_sent++;
			det_load(s, ADP_1);
		} else if (s->odp_seen) {
			/* all ADPs sent: LAPM, the originator speaks first */
			start_lapm(s, 1);
			return smdsp_hdlc_tx_get_bit(&s->htx);
		} else {
			return 1;
		}
	}
	bit = s->det_sr & 1;
	s->det_sr >>= 1;
	s->det_nbits--;
	return bit;
}

/*
 * A pattern element counts only when framed like the real thing (start bit,
 * eight bits, stop bit, 7 to 16 marks), so pairs need not be consecutive:
 * a noise burst between two good ones does not restart the count.
 */
static void det_char(struct smdsp_v42 *s, unsigned int ch)
{
	int prev = s->drx_prev;

	s->drx_prev = (int)ch;
	if (s->cfg.calling) {
		if (prev == ADP_1 && ch == ADP_2) {
			if (++s->drx_hits >= DET_HITS)
				start_lapm(s, ORIG_LEAD_FLAGS);
		} else if (prev == ADP_1 && ch == ADP_2_NO) {
			if (++s->drx_no_hits >= DET_HITS) {
				timer_start(s, TMR_NONE);
				set_status(s, SMDSP_V42_NO_V42);
			}
		}
		return;
	}
	if (ch == ODP_1 || ch == ODP_2)
		s->odp_recent = ADP_MORE_PAIRS;
	if (prev == ODP_1 && ch == ODP_2) {
		if (++s->drx_hits >= DET_HITS && !s->odp_seen) {
			s->odp_seen = 1;
			s->odp_recent = 0;
			s->adp_left = ADP_CHARS;
			timer_start(s, TMR_NONE);
		}
	}
}

static void det_put_bit(struct smdsp_v42 *s, int bit)
{
	switch (s->drx_state) {
	case DRX_HUNT:
		if (!bit) {
			s->drx_state = DRX_CHAR;
			s->drx_n = 0;
			s->drx_acc = 0;
		}
		break;
	case DRX_CHAR:
		s->drx_acc |= (unsigned int)bit << s->drx_n;
		if (++s->drx_n < 9)
			break;
		if (s->drx_acc & 0x100) {
			s->drx_char = s->drx_acc & 0xff;
			s->drx_ones = 0;
			s->drx_state = DRX_ONES;
		} else {
			s->drx_prev = -1;
			s->drx_state = DRX_WAIT_MARK;
		}
		break;
	case DRX_ONES:
		if (bit) {
			if (s->drx_ones < 255)
				s->drx_ones++;
			break;
		}
		/* the run of marks ends with the next start bit */
		if (s->drx_ones + 1 >= DET_MARKS && s->drx_ones <= 16)
			det_char(s, s->drx_char);
		else
			s->drx_prev = -1;
		s->drx_state = DRX_CHAR;
		s->drx_n = 0;
		s->drx_acc = 0;
		break;
	default:
		if (bit)
			s->drx_state = DRX_HUNT;
		break;
	}
}

/* ---- XID ---- */

/* the same size and window both ways */
static void xid_set(struct v42_xid *x, unsigned int n401, unsigned int k,
		    int srej, int fcs32)
{
	x->n401[DIR_TX] = n401;
	x->n401[DIR_RX] = n401;
	x->k[DIR_TX] = k;
	x->k[DIR_RX] = k;
	x->srej = srej;
	x->fcs32 = fcs32;
	x->bis = 0;
	x->p0 = 0;
	x->p1 = 0;
	x->p2 = 0;
}

/* what we offer, with P0 from the initiator's side (the originator's) */
static void xid_set_bis(const struct smdsp_v42 *s, struct v42_xid *x)
{
	unsigned int d = s->cfg.v42bis_dirs, tx = d & SMDSP_V42BIS_DIR_TX ? 1 : 0;
	unsigned int rx = d & SMDSP_V42BIS_DIR_RX ? 1 : 0;

	if (!s->bis || !s->cfg.v42bis)
		return;
	x->bis = 1;
	x->p0 = s->cfg.calling ? tx | rx << 1 : rx | tx << 1;
	x->p1 = s->cfg.v42bis_p1;
	x->p2 = s->cfg.v42bis_p2;
}

static unsigned int xid_build(const struct smdsp_v42 *s, uint8_t *f,
			      uint8_t addr, uint8_t ctrl,
			      const struct v42_xid *x)
{
	uint8_t opt[3] = { 0x8a, 0x89, 0x00 };	/* bits 2, 4, 8, 9, 12, 16 */
	unsigned int n = 0;
	unsigned int gl, d;

	if (x->srej)
		opt[(OPT_SREJ_BIT - 1) / 8] |= 1u << ((OPT_SREJ_BIT - 1) % 8);
	if (x->fcs32)
		opt[(OPT_FCS32_BIT - 1) / 8] |= 1u << ((OPT_FCS32_BIT - 1) % 8);
	f[n++] = addr;
	f[n++] = ctrl;
	f[n++] = XID_FI;
	f[n++] = XID_GI_PARAM;
	gl = (2 + 3) + 2 * (2 + 2) + 2 * (2 + 1);
	f[n++] = (uint8_t)(gl >> 8);
	f[n++] = (uint8_t)gl;
	f[n++] = XID_PI_OPT;
	f[n++] = 3;
	f[n++] = opt[0];
	f[n++] = opt[1];
	f[n++] = opt[2];
	/* N401 in bits, transmit then receive; then k the same way */
	for (d = DIR_TX; d <= DIR_RX; d++) {
		f[n++] = XID_PI_N401_TX + d;
		f[n++] = 2;
		f[n++] = (uint8_t)((x->n401[d] * 8) >> 8);
		f[n++] = (uint8_t)(x->n401[d] * 8);
	}
	for (d = DIR_TX; d <= DIR_RX; d++) {
		f[n++] = XID_PI_K_TX + d;
		f[n++] = 1;
		f[n++] = (uint8_t)x->k[d];
	}
	if (x->bis) {
		gl = (2 + 3) + (2 + 1) + (2 + 2) + (2 + 1);
		f[n++] = XID_GI_PRIVATE;
		f[n++] = (uint8_t)(gl >> 8);
		f[n++] = (uint8_t)gl;
		f[n++] = XID_PI_SET;
		f[n++] = 3;
		f[n++] = 'V';
		f[n++] = '4';
		f[n++] = '2';
		f[n++] = XID_PI_P0;
		f[n++] = 1;
		f[n++] = (uint8_t)x->p0;
		f[n++] = XID_PI_P1;
		f[n++] = 2;
		f[n++] = (uint8_t)(x->p1 >> 8);
		f[n++] = (uint8_t)x->p1;
		f[n++] = XID_PI_P2;
		f[n++] = 1;
		f[n++] = (uint8_t)x->p2;
	}
	(void)s;
	return n;
}

static uint32_t xid_value(const uint8_t *p, unsigned int len)
{
	uint32_t v = 0;
	unsigned int i;

	if (len > 4)
		len = 4;
	for (i = 0; i < len; i++)
		v = (v << 8) | p[i];
	return v;
}

static int opt_bit(const uint8_t *p, unsigned int len, unsigned int bit)
{
	unsigned int i = (bit - 1) / 8;

	if (i >= len)
		return 0;
	return (p[i] >> ((bit - 1) % 8)) & 1;
}

/* V.42bis's group: P0, P1 and P2 (the set identifier, when there, says "V42") */
static void xid_parse_bis(const uint8_t *f, unsigned int q, unsigned int end,
			  struct v42_xid *x)
{
	int ok = 1, p0 = 0;

	while (q + 2 <= end) {
		unsigned int pi = f[q], pl = f[q + 1];
		const uint8_t *v = &f[q + 2];
		uint32_t val;

		q += 2;
		if (pl > end - q)
			return;
		q += pl;
		val = xid_value(v, pl);
		switch (pi) {
		case XID_PI_SET:
			ok = pl == 3 && v[0] == 'V' && v[1] == '4' && v[2] == '2';
			break;
		case XID_PI_P0:
			x->p0 = val & 3;
			p0 = pl > 0;
			break;
		case XID_PI_P1:
			x->p1 = val;
			break;
		case XID_PI_P2:
			x->p2 = val;
			break;
		default:
			break;
		}
	}
	x->bis = ok && p0;
}

/* Parameters as the initiator of the exchange states them (its own view). */
static void xid_parse(const uint8_t *f, unsigned int len, struct v42_xid *x)
{
	unsigned int p = 3;

	xid_set(x, DEF_N401, DEF_K, 0, 0);
	if (len < 3 || f[2] != XID_FI)
		return;
	while (p + 3 <= len) {
		unsigned int gi = f[p];
		unsigned int gl = ((unsigned int)f[p + 1] << 8) | f[p + 2];
		unsigned int q, end;

		p += 3;
		if (gl > len - p)
			break;
		end = p + gl;
		q = p;
		p = end;
		if (gi == XID_GI_PRIVATE) {
			xid_parse_bis(f, q, end, x);
			continue;
		}
		if (gi != XID_GI_PARAM)
			continue;
		while (q + 2 <= end) {
			unsigned int pi = f[q];
			unsigned int pl = f[q + 1];
			const uint8_t *v = &f[q + 2];
			uint32_t val;

			q += 2;
			if (pl > end - q)
				break;
			q += pl;
			val = xid_value(v, pl);
			switch (pi) {
			case XID_PI_OPT:
				/* trust the optional bits only from a well-formed field */
				if (opt_bit(v, pl, 2) && opt_bit(v, pl, 4) &&
				    opt_bit(v, pl, 8) && opt_bit(v, pl, 9)) {
					x->srej = opt_bit(v, pl, OPT_SREJ_BIT);
					x->fcs32 = opt_bit(v, pl, OPT_FCS32_BIT);
				}
				break;
			case XID_PI_N401_TX:
			case XID_PI_N401_RX:
				if (pl)
					x->n401[pi - XID_PI_N401_TX] = val / 8;
				break;
			case XID_PI_K_TX:
			case XID_PI_K_RX:
				if (pl)
					x->k[pi - XID_PI_K_TX] = val;
				break;
			default:
				break;
			}
		}
	}
}

static unsigned int clampu(unsigned int v, unsigned int lo, unsigned int hi)
{
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return v;
}

/* x, the originator's view, cut down to what both ends can do */
static void xid_agree(const struct smdsp_v42 *s, struct v42_xid *x)
{
	unsigned int d;

	for (d = DIR_TX; d <= DIR_RX; d++) {
		x->n401[d] = clampu(x->n401[d], 1, s->cfg.n401);
		x->k[d] = clampu(x->k[d], 1, s->cfg.k);
	}
	x->srej = x->srej && s->cfg.srej;
	x->fcs32 = x->fcs32 && s->cfg.fcs32;
	if (x->bis) {
		struct v42_xid ours;

		xid_set(&ours, 0, 0, 0, 0);
		xid_set_bis(s, &ours);
		/* without an offer of ours the group is not answered at all */
		x->bis = ours.bis;
		x->p0 &= ours.p0;
		if (x->p1 > ours.p1)
			x->p1 = ours.p1;
		if (x->p2 > ours.p2)
			x->p2 = ours.p2;
		if (x->p1 < SMDSP_V42BIS_MIN_P1 || x->p2 < SMDSP_V42BIS_MIN_P2)
			x->p0 = 0;
	}
}

/*
 * From the originator's view of an exchange to ours, or back: the same
 * swap, as the originator's transmit direction is the answerer's receive
 * direction. in and out must differ.
 */
static void xid_mirror(const struct smdsp_v42 *s, const struct v42_xid *in,
		       struct v42_xid *out)
{
	unsigned int flip = s->cfg.calling ? 0 : 1;
	unsigned int d;

	for (d = DIR_TX; d <= DIR_RX; d++) {
		out->n401[d] = in->n401[d ^ flip];
		out->k[d] = in->k[d ^ flip];
	}
	out->srej = in->srej;
	out->fcs32 = in->fcs32;
	/* P0 is the initiator's view either way */
	out->bis = in->bis;
	out->p0 = in->p0;
	out->p1 = in->p1;
	out->p2 = in->p2;
}

/* an XID command or response: what both ends can do is in force from now */
static void xid_take(struct smdsp_v42 *s, const uint8_t *f, unsigned int len)
{
	struct v42_xid x;

	xid_parse(f, len, &x);
	xid_agree(s, &x);
	xid_mirror(s, &x, &s->neg);
	if (s->neg.fcs32)
		smdsp_hdlc_rx_set_fcs(&s->hrx, true, true);
}

/* ---- acknowledgment processing ---- */

static void update_t401(struct smdsp_v42 *s)
{
	if (s->recovery || s->awaiting != AW_NONE)
		return;
	if (s->va != s->vn || s->far_busy)
		timer_start(s, TMR_T401);
	else
		t401_stop(s);
}

/* returns -1 if N(R) acknowledges something never sent */
static int process_nr(struct smdsp_v42 *s, uint8_t nr)
{
	unsigned int n;

	if (seq_diff(nr, s->va) > seq_diff(s->vn, s->va)) {
		s->st.nr_errors++;
		return -1;
	}
	n = 0;
	while (s->va != nr) {
		s->st.bytes_tx += s->slots[s->va % NSLOTS].len;
		s->slots[s->va % NSLOTS].len = 0;
		bit_clr(s->resend, s->va);
		s->va = SEQ(s->va + 1);
		n++;
	}
	/* after a go-back V(S) may trail an N(R) for frames sent before */
	if (seq_diff(s->vs, s->va) > seq_diff(s->vn, s->va))
		s->vs = s->va;
	if (n)
		update_t401(s);
	return 0;
}

static void go_back(struct smdsp_v42 *s, uint8_t nr)
{
	s->vs = nr;
	memset(s->resend, 0, sizeof(s->resend));
}

static void end_recovery(struct smdsp_v42 *s, uint8_t nr)
{
	s->recovery = 0;
	s->retry = 0;
	s->polls = 0;
	s->pend &= ~P_POLL;
	go_back(s, nr);
	if (s->va != s->vn || s->far_busy)
		timer_start(s, TMR_T401);
	else
		t401_stop(s);
}

/* ---- receive queue, local busy ---- */

/* the received frame into the receive queue, as far as room allows */
static void bis_drain(struct smdsp_v42 *s)
{
	while (s->dec_pos < s->dec_len && !smdsp_v42bis_failed(s->bis)) {
		unsigned int used, room = rxq_free(s);
		int n;

		if (room > sizeof(s->dec_out))
			room = sizeof(s->dec_out);
		n = smdsp_v42bis_decode(s->bis, s->dec_in + s->dec_pos, s->dec_len - s->dec_pos,
					s->dec_out, room, &used);
		if (n > 0)
			rxq_put(s, s->dec_out, (unsigned int)n);
		s->dec_pos += used;
		if (!used)
			break;
	}
	if (smdsp_v42bis_failed(s->bis) && s->status == SMDSP_V42_CONNECTED) {
		/* V.42bis: a protocol error releases the error-corrected link */
		s->bis_errors++;
		s->dec_pos = s->dec_len;
		smdsp_v42_disconnect(s);
	}
}

/* an in-sequence information field fits (without V.42bis: as it is) */
static int rx_room(const struct smdsp_v42 *s, unsigned int len)
{
	if (s->bis_rx)
		return s->dec_pos == s->dec_len;
	return rxq_free(s) >= len;
}

static void deliver(struct smdsp_v42 *s, const uint8_t *info, unsigned int len)
{
	if (!s->bis_rx) {
		rxq_put(s, info, len);
		return;
	}
	memcpy(s->dec_in, info, len);
	s->dec_pos = 0;
	s->dec_len = len;
	bis_drain(s);
}

static void drain_reorder(struct smdsp_v42 *s)
{
	while (s->reord_valid & (1u << (s->vr % NSLOTS))) {
		unsigned int i = s->vr % NSLOTS;
		struct v42_slot *r = &s->reord[i];

		if (s->reord_seq[i] != s->vr)
			break;
		if (!rx_room(s, r->len))
			break;
		deliver(s, r->data, r->len);
		s->st.bytes_rx += r->len;
		s->st.iframes_rx++;
		s->reord_valid &= ~(1u << i);
		bit_clr(s->srej_asked, s->vr);
		s->vr = SEQ(s->vr + 1);
		s->ack_needed = 1;
	}
}

static void check_local_busy(struct smdsp_v42 *s)
{
	if (s->status != SMDSP_V42_CONNECTED)
		return;
	if (s->bis_rx)
		bis_drain(s);
	drain_reorder(s);
	if (!s->local_busy || !rx_room(s, s->neg.n401[DIR_RX]))
		return;
	s->local_busy = 0;
	if (s->busy_discarded) {
		/* frames were dropped while busy: ask for them again */
		s->busy_discarded = 0;
		s->rej_needed = 1;
		s->rej_f = 0;
		s->rej_exception = 1;
	} else {
		s->busy_change = 1;
	}
}

static void srej_request(struct smdsp_v42 *s, uint8_t n)
{
	if (bit_tst(s->srej_asked, n))
		return;
	if (s->srej_qh - s->srej_qt >= SREJ_QLEN)
		return;
	bit_set(s->srej_asked, n);
	s->srej_q[s->srej_qh++ % SREJ_QLEN] = n;
}

/* ---- frame reception ---- */

static int implicit_connect(struct smdsp_v42 *s)
{
	/* our SABME was answered, but the UA got lost: the peer is already sending */
	if (s->status == SMDSP_V42_ESTABLISHING && s->awaiting == AW_SABME) {
		reset_sequence(s);
		enter_connected(s);
		return 1;
	}
	return s->status == SMDSP_V42_CONNECTED;
}

static void rx_iframe(struct smdsp_v42 *s, const uint8_t *f, unsigned int len,
		      int cmd)
{
	uint8_t ns = f[1] >> 1;
	uint8_t nr = f[2] >> 1;
	int p = f[2] & 1;
	const uint8_t *info = f + 3;
	unsigned int ilen = len - 3;
	unsigned int ahead;

	if (!cmd || ilen > SMDSP_V42_MAX_N401) {
		s->st.bad_frames++;
		return;
	}
	if (!implicit_connect(s))
		return;
	if (process_nr(s, nr) < 0)
		return;
	s->peer_spoke = 1;
	if (ns == s->vr) {
		if (s->local_busy || !rx_room(s, ilen)) {
			s->st.busy_discards++;
			if (!s->local_busy)
				s->busy_change = 1;
			s->local_busy = 1;
			s->busy_discarded = 1;
			if (p)
				s->rsp_f = 1;
			else
				s->ack_needed = 1;
			return;
		}
		s->st.bytes_rx += ilen;
		s->st.iframes_rx++;
		bit_clr(s->srej_asked, s->vr);
		s->vr = SEQ(s->vr + 1);
		s->rej_exception = 0;
		deliver(s, info, ilen);
		drain_reorder(s);
		if (p)
			s->rsp_f = 1;
		else
			s->ack_needed = 1;
		return;
	}
	ahead = seq_diff(ns, s->vr);
	if (ahead < s->neg.k[DIR_RX] || (s->neg.srej && ahead < NSLOTS)) {
		s->st.out_of_sequence++;
		if (s->neg.srej && ahead < NSLOTS) {
			unsigned int i = ns % NSLOTS;
			uint8_t m;

			if (!(s->reord_valid & (1u << i))) {
				memcpy(s->reord[i].data, info, ilen);
				s->reord[i].len = (uint16_t)ilen;
				s->reord_seq[i] = ns;
				s->reord_valid |= 1u << i;
			}
			for (m = s->vr; m != ns; m = SEQ(m + 1))
				if (!(s->reord_valid & (1u << (m % NSLOTS))))
					srej_request(s, m);
			if (p)
				s->rsp_f = 1;
			return;
		}
		if (!s->rej_exception) {
			s->rej_exception = 1;
			s->rej_needed = 1;
			s->rej_f = p;
		} else if (p) {
			s->rsp_f = 1;
		}
		return;
	}
	/* an old frame again: our acknowledgment was probably lost, or the peer went back */
	s->st.duplicates++;
	if (seq_diff(ns, s->nr_hold) < seq_diff(s->vr, s->nr_hold))
		s->nr_hold_bits = 0;
	if (p)
		s->rsp_f = 1;
	else
		s->ack_needed = 1;
}

static void rx_sframe(struct smdsp_v42 *s, const uint8_t *f, unsigned int len,
		      int cmd)
{
	uint8_t type = f[1];
	uint8_t nr;
	int pf;

	if (len != 3 || (f[1] & 0xf0)) {
		s->st.bad_frames++;
		return;
	}
	if (!implicit_connect(s))
		return;
	nr = f[2] >> 1;
	pf = f[2] & 1;
	/*
	 * A poll (possibly the originator's set-up poll, see P_EPOLL) says
	 * nothing about our I frames having been taken; anything else does.
	 */
	if (!(cmd && pf))
		s->peer_spoke = 1;
	if (type == S_SREJ) {
		s->st.srej_rx++;
		if (s->neg.srej && seq_diff(nr, s->va) < seq_diff(s->vs, s->va))
			bit_set(s->resend, nr);
		if (cmd && pf)
			s->rsp_f = 1;
		return;
	}
	if (process_nr(s, nr) < 0)
		return;
	switch (type) {
	case S_RR:
		s->far_busy = 0;
		break;
	case S_RNR:
		s->st.rnr_rx++;
		if (!s->far_busy) {
			s->far_busy = 1;
			update_t401(s);
		}
		break;
	case S_REJ:
		s->st.rej_rx++;
		s->far_busy = 0;
		if (!s->recovery)
			go_back(s, nr);
		break;
	default:
		s->st.bad_frames++;
		return;
	}
	if (cmd && pf)
		s->rsp_f = 1;
	if (!cmd && pf && s->recovery)
		end_recovery(s, nr);
}

static void send_sabme(struct smdsp_v42 *s)
{
	s->awaiting = AW_SABME;
	s->retry = 0;
	s->pend |= P_SABME;
	s->pend &= ~P_XID_CMD;
}

static void rx_uframe(struct smdsp_v42 *s, const uint8_t *f, unsigned int len,
		      int cmd)
{
	int pf = (f[1] & U_PF) ? 1 : 0;

	switch (f[1] & ~U_PF) {
	case U_SABME:
		if (!cmd || s->status == SMDSP_V42_NO_V42)
			break;
		s->ua_f = pf;
		s->pend |= P_UA;
		if (s->status == SMDSP_V42_CONNECTED && !s->peer_spoke &&
		    s->va == 0 && s->vr == 0) {
			/*
			 * A repeated SABME: our UA was lost and the peer, still
			 * waiting for it, has taken none of our I frames. Send
			 * them all again under the same numbers; if they crossed
			 * the SABME, the peer drops the copies as duplicates.
			 */
			go_back(s, 0);
			break;
		}
		if (s->status == SMDSP_V42_CONNECTED)
			s->st.resets++;
		if (s->status == SMDSP_V42_DETECTING)
			start_lapm(s, 1);
		reset_sequence(s);
		s->pend &= ~(P_SABME | P_XID_CMD | P_DISC | P_EPOLL);
		enter_connected(s);
		break;
	case U_UA:
		if (cmd)
			break;
		if (s->awaiting == AW_SABME) {
			reset_sequence(s);
			enter_connected(s);
		} else if (s->awaiting == AW_DISC) {
			s->awaiting = AW_NONE;
			timer_start(s, TMR_NONE);
			set_status(s, SMDSP_V42_DISCONNECTED);
		}
		break;
	case U_DISC:
		if (!cmd)
			break;
		if (s->status == SMDSP_V42_CONNECTED ||
		    s->status == SMDSP_V42_DISCONNECTING ||
		    s->status == SMDSP_V42_ESTABLISHING) {
			s->ua_f = pf;
			s->pend |= P_UA;
			s->awaiting = AW_NONE;
			timer_start(s, TMR_NONE);
			set_status(s, SMDSP_V42_DISCONNECTED);
		} else {
			s->dm_f = pf;
			s->pend |= P_DM;
		}
		break;
	case U_DM:
		if (cmd)
			break;
		if (s->awaiting == AW_SABME && s->est_poll) {
			/* answer to our poll: not connected yet, so a SABME is safe */
			s->est_poll = 0;
			s->pend |= P_SABME;
			break;
		}
		if (s->awaiting == AW_SABME || s->awaiting == AW_DISC ||
		    (s->status == SMDSP_V42_CONNECTED && !pf)) {
			s->awaiting = AW_NONE;
			timer_start(s, TMR_NONE);
			set_status(s, SMDSP_V42_DISCONNECTED);
		}
		break;
	case U_XID:
		if (cmd) {
			if (s->status == SMDSP_V42_DETECTING)
				start_lapm(s, 1);
			/* when connected, keep what is in force: the response reports it */
			if (s->status != SMDSP_V42_CONNECTED)
				xid_take(s, f, len);
			s->xid_f = pf;
			s->pend |= P_XID_RSP;
		} else if (s->awaiting == AW_XID) {
			xid_take(s, f, len);
			if (s->neg.fcs32)
				s->fcs32_tx = 1;
			send_sabme(s);
			timer_start(s, TMR_NONE);
		}
		break;
	default:
		/* FRMR, UI, TEST and unknown: nothing to do */
		break;
	}
}

static void lapm_rx(struct smdsp_v42 *s, const uint8_t *f, unsigned int len,
		    int fcs32)
{
	int cmd;

	if (len < 2)
		return;
	if (f[0] != ADDR_A && f[0] != ADDR_B) {
		s->st.bad_frames++;
		return;
	}
	if (s->status == SMDSP_V42_NO_V42)
		return;
	s->st.frames_rx++;
	s->heard = 1;
	if (fcs32 && s->neg.fcs32) {
		/* the peer has switched: so do we, and stop accepting the old FCS */
		s->fcs32_tx = 1;
		smdsp_hdlc_rx_set_fcs(&s->hrx, false, true);
	}
	/* the peer's commands carry our response address */
	cmd = f[0] == s->rsp_addr;
	if ((f[1] & 1) == 0) {
		if (len < 3) {
			s->st.bad_frames++;
			return;
		}
		rx_iframe(s, f, len, cmd);
	} else if ((f[1] & 3) == 1) {
		rx_sframe(s, f, len, cmd);
	} else {
		rx_uframe(s, f, len, cmd);
	}
}

static void hdlc_frame(void *user, const uint8_t *buf, unsigned int len,
		       enum smdsp_hdlc_rx_status status)
{
	struct smdsp_v42 *s = user;

	if (status == SMDSP_HDLC_RX_OK)
		lapm_rx(s, buf, len, smdsp_hdlc_rx_fcs_len(&s->hrx) == 4);
}

void smdsp_v42_rx_frame(struct smdsp_v42 *s, const uint8_t *buf,
			unsigned int len)
{
	lapm_rx(s, buf, len, 0);
}

/* ---- frame transmission ---- */

static unsigned int build_s(struct smdsp_v42 *s, uint8_t *f, uint8_t addr,
			    uint8_t type, uint8_t nr, int pf)
{
	f[0] = addr;
	f[1] = type;
	f[2] = (uint8_t)((nr << 1) | (pf ? 1 : 0));
	if (type == S_RNR)
		s->st.rnr_tx++;
	return 3;
}

static unsigned int build_u(uint8_t *f, uint8_t addr, uint8_t ctrl, int pf)
{
	f[0] = addr;
	f[1] = ctrl | (pf ? U_PF : 0);
	return 2;
}

/* the N(R) we advertise: V(R), or less for a while after a poll answer */
static uint8_t adv_nr(const struct smdsp_v42 *s)
{
	return s->nr_hold_bits ? s->nr_hold : s->vr;
}

static unsigned int build_i(struct smdsp_v42 *s, uint8_t *f, uint8_t ns)
{
	const struct v42_slot *sl = &s->slots[ns % NSLOTS];

	f[0] = s->cmd_addr;
	f[1] = (uint8_t)(ns << 1);
	f[2] = (uint8_t)(adv_nr(s) << 1);
	memcpy(f + 3, sl->data, sl->len);
	s->ack_needed = 0;
	s->st.iframes_tx++;
	if (s->timer_id != TMR_T401)
		timer_start(s, TMR_T401);
	return 3 + sl->len;
}

static int find_resend(const struct smdsp_v42 *s, uint8_t *ns)
{
	uint8_t n;

	for (n = s->va; n != s->vs; n = SEQ(n + 1)) {
		if (bit_tst(s->resend, n)) {
			*ns = n;
			return 1;
		}
	}
	return 0;
}

/*
 * A new I frame from the encoder: as much as fits, and when the user's
 * bytes run out, a flush, so that the peer can decode everything it got.
 * Returns the information field's length (0: nothing to send).
 */
static unsigned int bis_fill(struct smdsp_v42 *s, struct v42_slot *sl)
{
	unsigned int cap = s->neg.n401[DIR_TX], len = 0;
	int flushed = 0;

	if (!txq_used(s) && smdsp_v42bis_idle(s->bis))
		return 0;
	for (;;) {
		unsigned int used = txq_used(s), off, run, took;

		len += smdsp_v42bis_read(s->bis, sl->data + len, cap - len);
		if (len == cap)
			break;
		if (!used) {
			if (flushed)
				break;
			smdsp_v42bis_flush(s->bis);
			flushed = 1;
			continue;
		}
		/* the queue's bytes up to its end, then from its start */
		off = s->txq_tail & s->txq_mask;
		run = s->txq_mask + 1 - off;
		if (run > used)
			run = used;
		took = smdsp_v42bis_encode(s->bis, s->txq + off, run);
		s->txq_tail += took;
	}
	sl->len = (uint16_t)len;
	return len;
}

static unsigned int next_iframe(struct smdsp_v42 *s, uint8_t *f)
{
	struct v42_slot *sl;
	unsigned int n, i;
	uint8_t ns;

	if (s->recovery || s->far_busy)
		return 0;
	if (find_resend(s, &ns)) {
		bit_clr(s->resend, ns);
		s->st.retransmissions++;
		return build_i(s, f, ns);
	}
	if (s->vs != s->vn) {
		ns = s->vs;
		s->vs = SEQ(s->vs + 1);
		s->st.retransmissions++;
		return build_i(s, f, ns);
	}
	if (seq_diff(s->vn, s->va) >= s->neg.k[DIR_TX])
		return 0;
	sl = &s->slots[s->vn % NSLOTS];
	if (s->bis_tx) {
		if (!bis_fill(s, sl))
			return 0;
	} else {
		if (txq_used(s) == 0)
			return 0;
		n = txq_used(s);
		if (n > s->neg.n401[DIR_TX])
			n = s->neg.n401[DIR_TX];
		for (i = 0; i < n; i++)
			sl->data[i] = s->txq[(s->txq_tail + i) & s->txq_mask];
		s->txq_tail += n;
		sl->len = (uint16_t)n;
	}
	ns = s->vn;
	s->vn = SEQ(s->vn + 1);
	s->vs = s->vn;
	return build_i(s, f, ns);
}

static unsigned int next_frame(struct smdsp_v42 *s, uint8_t *f)
{
	struct v42_xid x;
	unsigned int len;

	if (s->pend & P_UA) {
		s->pend &= ~P_UA;
		return build_u(f, s->rsp_addr, U_UA, s->ua_f);
	}
	if (s->pend & P_DM) {
		s->pend &= ~P_DM;
		return build_u(f, s->rsp_addr, U_DM, s->dm_f);
	}
	if (s->pend & P_XID_RSP) {
		s->pend &= ~P_XID_RSP;
		xid_mirror(s, &s->neg, &x);
		return xid_build(s, f, s->rsp_addr,
				 U_XID | (s->xid_f ? U_PF : 0), &x);
	}
	if (s->pend & P_XID_CMD) {
		s->pend &= ~P_XID_CMD;
		xid_set(&x, s->cfg.n401, s->cfg.k, s->cfg.srej, s->cfg.fcs32);
		xid_set_bis(s, &x);
		timer_start(s, TMR_T401);
		return xid_build(s, f, s->cmd_addr, U_XID | U_PF, &x);
	}
	if (s->pend & P_SABME) {
		s->pend &= ~P_SABME;
		s->est_poll = 0;
		timer_start(s, TMR_T401);
		return build_u(f, s->cmd_addr, U_SABME, 1);
	}
	if (s->pend & P_EPOLL) {
		s->pend &= ~P_EPOLL;
		s->est_poll = 1;
		timer_start(s, TMR_T401);
		return build_s(s, f, s->cmd_addr, S_RR, 0, 1);
	}
	if (s->pend & P_DISC) {
		s->pend &= ~P_DISC;
		timer_start(s, TMR_T401);
		return build_u(f, s->cmd_addr, U_DISC, 1);
	}
	if (s->status != SMDSP_V42_CONNECTED)
		return 0;
	if (s->rej_needed) {
		s->rej_needed = 0;
		s->ack_needed = 0;
		s->rej_bits = s->t401_bits;
		s->st.rej_tx++;
		return build_s(s, f, s->rsp_addr, S_REJ, adv_nr(s), s->rej_f);
	}
	if (s->srej_qh != s->srej_qt) {
		uint8_t n = s->srej_q[s->srej_qt++ % SREJ_QLEN];

		s->st.srej_tx++;
		return build_s(s, f, s->rsp_addr, S_SREJ, n, 0);
	}
	if (s->rsp_f) {
		s->rsp_f = 0;
		s->ack_needed = 0;
		/* after a poll the peer goes back to V(R): ask again if needed */
		memset(s->srej_asked, 0, sizeof(s->srej_asked));
		s->nr_hold = adv_nr(s);
		s->nr_hold_bits = NR_HOLD_BITS;
		return build_s(s, f, s->rsp_addr,
			       s->local_busy ? S_RNR : S_RR, s->nr_hold, 1);
	}
	if (s->pend & P_POLL) {
		s->pend &= ~P_POLL;
		s->st.polls_tx++;
		timer_start(s, TMR_T401);
		return build_s(s, f, s->cmd_addr,
			       s->local_busy ? S_RNR : S_RR, adv_nr(s), 1);
	}
	/*
	 * An I-frame carries N(R) but not our busy state: the peer must hear
	 * RNR "at the earliest opportunity" (and RR once we take frames again)
	 * even while we have data of our own to send.
	 */
	if (s->busy_change) {
		s->busy_change = 0;
		s->ack_needed = 0;
		return build_s(s, f, s->rsp_addr,
			       s->local_busy ? S_RNR : S_RR, adv_nr(s), 0);
	}
	len = next_iframe(s, f);
	if (len)
		return len;
	if (s->ack_needed) {
		s->ack_needed = 0;
		return build_s(s, f, s->rsp_addr,
			       s->local_busy ? S_RNR : S_RR, adv_nr(s), 0);
	}
	return 0;
}

static unsigned int hdlc_next(void *user, uint8_t *buf, unsigned int max)
{
	struct smdsp_v42 *s = user;
	unsigned int len;

	if (max < SMDSP_HDLC_MAX_FRAME - 4)
		return 0;
	smdsp_hdlc_tx_set_crc32(&s->htx, s->fcs32_tx);
	len = next_frame(s, buf);
	if (len)
		s->st.frames_tx++;
	return len;
}

/* ---- timers ---- */

static void t401_expired(struct smdsp_v42 *s)
{
	s->st.t401_expiries++;
	switch (s->awaiting) {
	case AW_XID:
		if (++s->retry > XID_MAX_RETRIES) {
			/* no XID answer: establish with the default parameters */
			send_sabme(s);
		} else {
			s->pend |= P_XID_CMD;
		}
		return;
	case AW_SABME:
		if (++s->retry > s->cfg.n400) {
			s->awaiting = AW_NONE;
			set_status(s, SMDSP_V42_FAILED);
		} else if (s->retry & 1) {
			/*
			 * Maybe only our UA was lost. A second SABME would reset
			 * a connected peer, which may throw away I frames it has
			 * queued; a poll lets it answer instead, and its answer
			 * completes the set-up (implicit_connect()).
			 */
			s->pend |= P_EPOLL;
		} else {
			s->pend |= P_SABME;
		}
		return;
	case AW_DISC:
		if (++s->retry > s->cfg.n400) {
			s->awaiting = AW_NONE;
			set_status(s, SMDSP_V42_DISCONNECTED);
		} else {
			s->pend |= P_DISC;
		}
		return;
	default:
		break;
	}
	if (s->status != SMDSP_V42_CONNECTED)
		return;
	/*
	 * N400 counts T401 periods in which nothing at all came from the
	 * peer: a line that still carries some frames is slow, not dead.
	 * A peer that talks but never answers a poll fails after 4 * N400.
	 */
	if (!s->recovery) {
		s->retry = 0;
		s->polls = 0;
	}
	if (s->heard)
		s->retry = 0;
	s->heard = 0;
	if (s->recovery && (s->retry >= s->cfg.n400 ||
			    s->polls >= 4 * s->cfg.n400)) {
		/* the peer is gone: tell it and the user */
		s->recovery = 0;
		s->pend |= P_DISC;
		set_status(s, SMDSP_V42_FAILED);
		return;
	}
	s->recovery = 1;
	s->retry++;
	s->polls++;
	s->pend |= P_POLL;
	/* restarted when the poll actually leaves; guard meanwhile */
	timer_start(s, TMR_T401);
}

static void t403_expired(struct smdsp_v42 *s)
{
	s->st.t403_expiries++;
	if (s->status != SMDSP_V42_CONNECTED)
		return;
	s->recovery = 1;
	s->retry = 1;
	s->polls = 1;
	s->heard = 0;
	s->pend |= P_POLL;
	timer_start(s, TMR_T401);
}

static void timer_expired(struct smdsp_v42 *s)
{
	int id = s->timer_id;

	s->timer_id = TMR_NONE;
	switch (id) {
	case TMR_T400:
		if (s->status != SMDSP_V42_DETECTING || s->odp_seen)
			break;
		if (s->cfg.calling && s->drx_hits)
			start_lapm(s, DET_FLAGS);	/* one good ADP is enough */
		else
			set_status(s, SMDSP_V42_NO_V42);
		break;
	case TMR_T401:
		t401_expired(s);
		break;
	case TMR_T403:
		t403_expired(s);
		break;
	default:
		break;
	}
}

void smdsp_v42_tick(struct smdsp_v42 *s, unsigned int bits)
{
	while (bits && s->timer_id != TMR_NONE) {
		if (s->timer > bits) {
			s->timer -= bits;
			return;
		}
		bits -= s->timer;
		s->timer = 0;
		timer_expired(s);
	}
}

/* ---- bit interface ---- */

int smdsp_v42_get_bit(struct smdsp_v42 *s)
{
	if (s->timer_id != TMR_NONE && --s->timer == 0)
		timer_expired(s);
	if (s->nr_hold_bits)
		s->nr_hold_bits--;
	if (s->rej_bits && --s->rej_bits == 0 && s->rej_exception &&
	    s->status == SMDSP_V42_CONNECTED) {
		s->rej_needed = 1;
		s->rej_f = 0;
	}
	switch (s->status) {
	case SMDSP_V42_DETECTING:
		return det_get_bit(s);
	case SMDSP_V42_NO_V42:
		return 1;
	default:
		return smdsp_hdlc_tx_get_bit(&s->htx);
	}
}

void smdsp_v42_put_bit(struct smdsp_v42 *s, int bit)
{
	bit = bit ? 1 : 0;
	if (s->status == SMDSP_V42_DETECTING)
		det_put_bit(s, bit);
	smdsp_hdlc_rx_put_bit(&s->hrx, bit);
	/* missed ADPs, but the answerer already sends flags */
	if (s->status == SMDSP_V42_DETECTING && s->cfg.calling &&
	    smdsp_hdlc_rx_flags_in_row(&s->hrx) >= (s->drx_hits ? DET_FLAGS : DET_FLAGS_NO_ADP))
		start_lapm(s, DET_FLAGS);
}

void smdsp_v42_get_bits(struct smdsp_v42 *s, uint8_t *bits, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		bits[i] = (uint8_t)smdsp_v42_get_bit(s);
}

void smdsp_v42_put_bits(struct smdsp_v42 *s, const uint8_t *bits,
			unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		smdsp_v42_put_bit(s, bits[i]);
}

/* ---- user interface ---- */

unsigned int smdsp_v42_write(struct smdsp_v42 *s, const uint8_t *buf,
			     unsigned int len)
{
	unsigned int space = smdsp_v42_tx_space(s);
	unsigned int i;

	if (len > space)
		len = space;
	for (i = 0; i < len; i++)
		s->txq[(s->txq_head + i) & s->txq_mask] = buf[i];
	s->txq_head += len;
	return len;
}

unsigned int smdsp_v42_read(struct smdsp_v42 *s, uint8_t *buf,
			    unsigned int len)
{
	unsigned int avail = s->rxq_head - s->rxq_tail;
	unsigned int i;

	if (len > avail)
		len = avail;
	for (i = 0; i < len; i++)
		buf[i] = s->rxq[(s->rxq_tail + i) & s->rxq_mask];
	s->rxq_tail += len;
	check_local_busy(s);
	return len;
}

unsigned int smdsp_v42_tx_space(const struct smdsp_v42 *s)
{
	return s->txq_mask + 1 - txq_used(s);
}

unsigned int smdsp_v42_tx_pending(const struct smdsp_v42 *s)
{
	unsigned int n = txq_used(s);
	uint8_t i;

	for (i = s->va; i != s->vn; i = SEQ(i + 1))
		n += s->slots[i % NSLOTS].len;
	if (s->bis_tx && !smdsp_v42bis_idle(s->bis))
		n += smdsp_v42bis_pending(s->bis) + 1;
	return n;
}

unsigned int smdsp_v42_rx_available(const struct smdsp_v42 *s)
{
	return s->rxq_head - s->rxq_tail;
}

void smdsp_v42_disconnect(struct smdsp_v42 *s)
{
	switch (s->status) {
	case SMDSP_V42_CONNECTED:
		s->recovery = 0;
		s->awaiting = AW_DISC;
		s->retry = 0;
		s->pend |= P_DISC;
		set_status(s, SMDSP_V42_DISCONNECTING);
		break;
	case SMDSP_V42_DETECTING:
	case SMDSP_V42_ESTABLISHING:
		s->awaiting = AW_NONE;
		s->pend = 0;
		timer_start(s, TMR_NONE);
		set_status(s, SMDSP_V42_DISCONNECTED);
		break;
	default:
		break;
	}
}

int smdsp_v42_status(const struct smdsp_v42 *s)
{
	return s->status;
}

void smdsp_v42_get_stats(const struct smdsp_v42 *s,
			 struct smdsp_v42_stats *st)
{
	*st = s->st;
	st->crc_errors = s->hrx.st.bad_frames - s->hrx.st.misaligned;
	st->aborts = s->hrx.st.aborts;
	st->bad_frames += s->hrx.st.misaligned + s->hrx.st.too_long +
			  s->hrx.st.runts;
	st->n401_tx = s->neg.n401[DIR_TX];
	st->n401_rx = s->neg.n401[DIR_RX];
	st->k_tx = s->neg.k[DIR_TX];
	st->k_rx = s->neg.k[DIR_RX];
	st->srej = s->neg.srej;
	st->fcs32 = s->neg.fcs32;
	st->v42bis_errors = s->bis_errors;
	if (s->bis && (s->bis_tx || s->bis_rx)) {
		struct smdsp_v42bis_stats b;

		smdsp_v42bis_get_stats(s->bis, &b);
		st->v42bis_dirs = (s->bis_tx ? SMDSP_V42BIS_DIR_TX : 0) |
				  (s->bis_rx ? SMDSP_V42BIS_DIR_RX : 0);
		st->v42bis_p1 = s->neg.p1;
		st->v42bis_p2 = s->neg.p2;
		st->v42bis_tx_in = b.enc_in;
		st->v42bis_tx_out = b.enc_out;
		st->v42bis_rx_in = b.dec_in;
		st->v42bis_rx_out = b.dec_out;
	}
}

static unsigned int roundup_pow2(unsigned int v)
{
	unsigned int r = 256;

	while (r < v && r < (1u << 24))
		r <<= 1;
	return r;
}

/* the HDLC framer (its configs on this frame only, off the deeper paths of v42_setup) */
static smdsp_noinline void framer_setup(struct smdsp_v42 *s)
{
	const struct smdsp_hdlc_tx_config tc = {
		/* frames are pulled: the FCS is set per frame */
		.max_len = SMDSP_HDLC_MAX_FRAME - 4,
		.pull = hdlc_next,
		.user = s,
	};
	const struct smdsp_hdlc_rx_config rc = {
		/* room for the longest frame with either FCS; the FCS per frame */
		.max_len = SMDSP_HDLC_MAX_FRAME - 2,
		.min_len = 2,
		/* a flag's last zero turned into a one on an idle line is no frame */
		.abort_bits = 2,
		.frame = hdlc_frame,
		.user = s,
	};

	smdsp_hdlc_tx_init(&s->htx, &tc);
	smdsp_hdlc_rx_init(&s->hrx, &rc);
}

static void v42bis_defaults(struct smdsp_v42_config *c)
{
	if (!c->v42bis_dirs || c->v42bis_dirs > SMDSP_V42BIS_DIR_BOTH)
		c->v42bis_dirs = SMDSP_V42BIS_DIR_BOTH;
	if (!c->v42bis_p1)
		c->v42bis_p1 = SMDSP_V42BIS_DEF_P1;
	if (!c->v42bis_p2)
		c->v42bis_p2 = SMDSP_V42BIS_DEF_P2;
	c->v42bis_p1 = clampu(c->v42bis_p1, SMDSP_V42BIS_MIN_P1, SMDSP_V42BIS_MAX_P1);
	c->v42bis_p2 = clampu(c->v42bis_p2, SMDSP_V42BIS_MIN_P2, SMDSP_V42BIS_MAX_P2);
}

/* everything but the buffers, which smdsp_v42_create() allocated */
static void v42_setup(struct smdsp_v42 *s, const struct smdsp_v42_config *cfg)
{
	struct v42_slot *slots = s->slots, *reord = s->reord;
	struct smdsp_v42bis *bis = s->bis;
	uint8_t *txq = s->txq, *rxq = s->rxq;
	unsigned int txq_mask = s->txq_mask, rxq_mask = s->rxq_mask;

	memset(s, 0, sizeof(*s));
	s->slots = slots;
	s->reord = reord;
	s->bis = bis;
	s->txq = txq;
	s->rxq = rxq;
	s->txq_mask = txq_mask;
	s->rxq_mask = rxq_mask;
	memset(s->slots, 0, NSLOTS * sizeof(*s->slots));
	memset(s->reord, 0, NSLOTS * sizeof(*s->reord));

	s->cfg = *cfg;
	if (!s->cfg.t400_ms)
		s->cfg.t400_ms = 750;
	if (!s->cfg.t401_ms)
		s->cfg.t401_ms = 1000;
	if (!s->cfg.t403_ms)
		s->cfg.t403_ms = 10000;
	if (!s->cfg.n400)
		s->cfg.n400 = 10;
	s->cfg.n401 = clampu(s->cfg.n401 ? s->cfg.n401 : DEF_N401, 1,
			     SMDSP_V42_MAX_N401);
	s->cfg.k = clampu(s->cfg.k ? s->cfg.k : DEF_K, 1, MAX_K);
	s->cfg.tx_buf = txq_mask + 1;
	s->cfg.rx_buf = rxq_mask + 1;
	v42bis_defaults(&s->cfg);
	if (s->bis) {
		/* no more codewords than create allocated */
		if (s->cfg.v42bis_p1 > smdsp_v42bis_max_p1(s->bis))
			s->cfg.v42bis_p1 = smdsp_v42bis_max_p1(s->bis);
	}

	s->t400_bits = ms_to_bits(s, s->cfg.t400_ms);
	s->t401_bits = ms_to_bits(s, s->cfg.t401_ms);
	if (s->t401_bits < T401_MIN_BITS)
		s->t401_bits = T401_MIN_BITS;
	s->t403_bits = ms_to_bits(s, s->cfg.t403_ms);
	if (s->t403_bits < 2 * s->t401_bits)
		s->t403_bits = 2 * s->t401_bits;

	s->cmd_addr = s->cfg.calling ? ADDR_B : ADDR_A;
	s->rsp_addr = s->cfg.calling ? ADDR_A : ADDR_B;
	xid_set(&s->neg, DEF_N401, DEF_K, 0, 0);
	framer_setup(s);
	s->drx_prev = -1;
	s->drx_state = DRX_WAIT_MARK;

	if (s->cfg.detect) {
		s->status = SMDSP_V42_DETECTING;
		timer_start(s, TMR_T400);
	} else {
		start_lapm(s, s->cfg.calling ? 8 : 1);
	}
}

int smdsp_v42_reset(struct smdsp_v42 *s, const struct smdsp_v42_config *cfg)
{
	if (!s || !cfg || cfg->bit_rate == 0)
		return -EINVAL;
	v42_setup(s, cfg);
	return 0;
}

struct smdsp_v42 *smdsp_v42_create(const struct smdsp_v42_config *cfg)
{
	struct smdsp_v42 *s;
	unsigned int txn, rxn;

	if (!cfg || cfg->bit_rate == 0)
		return NULL;
	s = smdsp_alloc(sizeof(*s));
	if (!s)
		return NULL;
	memset(s, 0, sizeof(*s));
	txn = roundup_pow2(cfg->tx_buf ? cfg->tx_buf : 4096);
	rxn = roundup_pow2(cfg->rx_buf ? cfg->rx_buf : 4096);
	/* a whole information field must fit, or local busy never clears */
	if (rxn < 2 * SMDSP_V42_MAX_N401)
		rxn = 2 * SMDSP_V42_MAX_N401;

	s->slots = smdsp_alloc(NSLOTS * sizeof(*s->slots));
	s->reord = smdsp_alloc(NSLOTS * sizeof(*s->reord));
	s->txq = smdsp_alloc(txn);
	s->rxq = smdsp_alloc(rxn);
	if (cfg->v42bis) {
		struct smdsp_v42_config c = *cfg;
		struct smdsp_v42bis_config bc = { 0 };

		v42bis_defaults(&c);
		bc.p1 = c.v42bis_p1;
		bc.p2 = c.v42bis_p2;
		s->bis = smdsp_v42bis_create(&bc);
		if (!s->bis) {
			smdsp_v42_free(s);
			return NULL;
		}
	}
	if (!s->slots || !s->reord || !s->txq || !s->rxq) {
		smdsp_v42_free(s);
		return NULL;
	}
	s->txq_mask = txn - 1;
	s->rxq_mask = rxn - 1;
	v42_setup(s, cfg);
	return s;
}

void smdsp_v42_free(struct smdsp_v42 *s)
{
	if (!s)
		return;
	smdsp_free(s->slots);
	smdsp_free(s->reord);
	smdsp_free(s->txq);
	smdsp_free(s->rxq);
	smdsp_v42bis_free(s->bis);
	smdsp_free(s);
}

int smdsp_v42_print(const struct smdsp_v42 *s, char *buf, size_t len)
{
	return snprintf(buf, len,
			"v42 status=%s frames_tx=%u frames_rx=%u retransmissions=%u v42bis=%s%s p1=%u p2=%u errors=%u",
			smdsp_v42_status_name(s->status), s->st.frames_tx, s->st.frames_rx,
			s->st.retransmissions, s->bis_tx ? "tx" : "", s->bis_rx ? "rx" : "",
			s->neg.bis ? s->neg.p1 : 0, s->neg.bis ? s->neg.p2 : 0, s->bis_errors);
}
