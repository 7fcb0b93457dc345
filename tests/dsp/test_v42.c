/*
 * V.42 LAPM: ours against SpanDSP 0.0.6 (both roles) and against ours, over
 * an in-memory bit pipe, clean and lossy (bit errors, bursts of marks or
 * noise that kill frames, bit slips), plus local busy, idle polling (T403),
 * N400 failure, DISC and garbage input; and V.42bis over it: negotiated in
 * XID (the lower offer, each direction), text and random data both ways,
 * against an end without V.42bis, and against SpanDSP's V.42 (whose XID
 * offers V.42bis but whose data path has none: the test puts SpanDSP's own
 * V.42bis between it and its user, as agreed).
 *
 * Every run prints one "RESULT" line (parsed by tests/dsp/test_v42_v8.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <inttypes.h>
#define SPANDSP_EXPOSE_INTERNAL_STRUCTURES
#include <spandsp.h>
#include <smdsp/v42.h>
#include "tutil.h"

#define DATA_LEN	4096
#define DATA_MAX	24576
#define MAX_BITS	20000000L

enum { EP_OURS, EP_SPAN };

struct ep {
	const char *name;
	int kind;
	struct smdsp_v42 *o;
	v42_state_t *sp;
	uint8_t src[DATA_MAX];
	size_t src_len;
	size_t src_pos;
	const uint8_t *exp;		/* what the peer sends */
	size_t exp_len;
	size_t rx_pos;
	int mismatch;
	int span_status;
	int span_connects;		/* SpanDSP LINK_CONNECTED reports (SABME received) */
	/* reader starvation: read at most read_chunk bytes every read_every bits */
	unsigned int read_every;
	unsigned int read_chunk;
	long disconnected_at;
	/* SpanDSP's V.42bis between its V.42 and the user (the test's glue) */
	v42bis_state_t *spbis;
	int spbis_tx;
	int spbis_rx;
	uint8_t cq[4096];		/* compressed, not yet taken by its V.42 */
	size_t cq_len;
	size_t cq_pos;
};

struct impair {
	uint64_t rng;
	uint32_t ber;			/* bit flip probability * 2^32 */
	uint32_t burst;			/* burst start probability * 2^32 */
	unsigned int burst_min;
	unsigned int burst_max;
	int burst_kinds;		/* bitmask: 1 marks, 2 noise, 4 delete, 8 insert */
	/* state */
	int kind;
	unsigned int left;
	/* counts */
	unsigned long flips;
	unsigned long bursts;
	unsigned long deleted;
	unsigned long inserted;
	int cut;			/* line dead: deliver marks only */
};

struct run {
	const char *name;
	long bits;
	int ok;
	struct smdsp_v42_stats a_st;
	struct smdsp_v42_stats b_st;
	int has_a;
	int has_b;
	unsigned long ab_rx;
	unsigned long ba_rx;
	struct impair ab;
	struct impair ba;
};

/* ---- SpanDSP endpoint callbacks ---- */

static void spbis_out(void *user, const uint8_t *buf, int len)
{
	struct ep *e = user;

	if (len > 0 && e->cq_len + (size_t)len <= sizeof(e->cq)) {
		memcpy(e->cq + e->cq_len, buf, (size_t)len);
		e->cq_len += (size_t)len;
	}
}

static void ep_check(struct ep *e, const uint8_t *buf, size_t len);

static void spbis_in(void *user, const uint8_t *buf, int len)
{
	if (len > 0)
		ep_check(user, buf, (size_t)len);
}

static int span_get(void *user, uint8_t *buf, int max)
{
	struct ep *e = user;
	size_t n = e->src_len - e->src_pos;

	if (e->spbis_tx) {
		/* a frame's worth compressed and flushed at a time, as a V.42bis DCE does */
		if (e->cq_pos == e->cq_len && n) {
			e->cq_pos = e->cq_len = 0;
			if (n > 100)
				n = 100;
			v42bis_compress(e->spbis, e->src + e->src_pos, (int)n);
			v42bis_compress_flush(e->spbis);
			e->src_pos += n;
		}
		n = e->cq_len - e->cq_pos;
		if (n > (size_t)max)
			n = (size_t)max;
		memcpy(buf, e->cq + e->cq_pos, n);
		e->cq_pos += n;
		return (int)n;
	}

	if (n > (size_t)max)
		n = (size_t)max;
	memcpy(buf, e->src + e->src_pos, n);
	e->src_pos += n;
	return (int)n;
}

static void ep_check(struct ep *e, const uint8_t *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (e->rx_pos >= e->exp_len || buf[i] != e->exp[e->rx_pos]) {
			if (!e->mismatch)
				printf("  %s: data mismatch at byte %zu\n",
				       e->name, e->rx_pos);
			e->mismatch = 1;
		}
		e->rx_pos++;
	}
}

static void span_put(void *user, const uint8_t *buf, int len)
{
	struct ep *e = user;

	if (!buf || len < 0) {
		e->span_status = len;
		return;
	}
	if (e->spbis_rx) {
		v42bis_decompress(e->spbis, buf, len);
		v42bis_decompress_flush(e->spbis);
		return;
	}
	ep_check(e, buf, (size_t)len);
}

static void span_status_cb(void *user, int status)
{
	struct ep *e = user;

	e->span_status = status;
	if (status == SIG_STATUS_LINK_CONNECTED)
		e->span_connects++;
}

/* ---- endpoints ---- */

static void ep_init_data(struct ep *e, uint64_t seed)
{
	size_t i;

	for (i = 0; i < DATA_LEN; i++)
		e->src[i] = (uint8_t)t_rand64(&seed);
	e->src_len = DATA_LEN;
	e->src_pos = 0;
	e->rx_pos = 0;
	e->mismatch = 0;
	e->disconnected_at = -1;
}

static void ep_ours(struct ep *e, const char *name,
		    const struct smdsp_v42_config *cfg, uint64_t seed)
{
	memset(e, 0, sizeof(*e));
	e->name = name;
	e->kind = EP_OURS;
	e->o = smdsp_v42_create(cfg);
	if (!e->o) {
		printf("FAIL: smdsp_v42_create\n");
		exit(1);
	}
	ep_init_data(e, seed);
}

static void ep_span(struct ep *e, const char *name, int calling, int detect,
		    uint64_t seed)
{
	memset(e, 0, sizeof(*e));
	e->name = name;
	e->kind = EP_SPAN;
	ep_init_data(e, seed);
	e->sp = v42_init(NULL, calling, detect, span_get, span_put, e);
	v42_set_status_callback(e->sp, span_status_cb, e);
	/* SpanDSP 0.0.6: nothing happens until v42_restart() */
	v42_restart(e->sp);
}

static void ep_free(struct ep *e)
{
	if (e->o)
		smdsp_v42_free(e->o);
	if (e->sp)
		v42_free(e->sp);
	if (e->spbis)
		v42bis_free(e->spbis);
}

static int ep_tx(struct ep *e)
{
	if (e->kind == EP_OURS)
		return smdsp_v42_get_bit(e->o);
	return v42_tx_bit(e->sp) & 1;
}

static void ep_rx(struct ep *e, int bit)
{
	if (e->kind == EP_OURS)
		smdsp_v42_put_bit(e->o, bit);
	else
		v42_rx_bit(e->sp, bit);
}

static void ep_service(struct ep *e, long t)
{
	uint8_t buf[512];
	unsigned int n, max;

	if (e->kind != EP_OURS)
		return;
	if (e->src_pos < e->src_len)
		e->src_pos += smdsp_v42_write(e->o, e->src + e->src_pos,
					      (unsigned int)(e->src_len - e->src_pos));
	if (e->read_every && (t % e->read_every) != 0)
		return;
	max = e->read_chunk ? e->read_chunk : sizeof(buf);
	do {
		n = smdsp_v42_read(e->o, buf, max);
		ep_check(e, buf, n);
	} while (n && !e->read_chunk);
}

static int ep_connected(const struct ep *e)
{
	if (e->kind == EP_OURS)
		return smdsp_v42_status(e->o) == SMDSP_V42_CONNECTED;
	return e->sp->lapm.state == 3;	/* LAPM_DATA */
}

/* ---- the line ---- */

static uint32_t prob(double p)
{
	return (uint32_t)(p * 4294967295.0);
}

static int impair_bit(struct impair *im, int bit, int *out, int *nout)
{
	uint32_t r;

	*nout = 0;
	if (im->cut) {
		out[(*nout)++] = 1;
		return 0;
	}
	if (!im->left && im->burst && (uint32_t)t_rand64(&im->rng) < im->burst) {
		int kinds[4], nk = 0, i;

		for (i = 0; i < 4; i++)
			if (im->burst_kinds & (1 << i))
				kinds[nk++] = 1 << i;
		im->kind = nk ? kinds[t_rand64(&im->rng) % nk] : 1;
		im->left = im->burst_min +
			   (unsigned int)(t_rand64(&im->rng) %
					  (im->burst_max - im->burst_min + 1));
		im->bursts++;
		if (im->kind == 8) {
			/* a late period: the receiver gets marks that were never sent */
			while (im->left) {
				out[(*nout)++] = 1;
				im->left--;
				im->inserted++;
				if (*nout >= 1000)
					break;
			}
			im->left = 0;
		}
	}
	if (im->left) {
		im->left--;
		switch (im->kind) {
		case 1:
			bit = 1;
			break;
		case 2:
			bit = (int)(t_rand64(&im->rng) & 1);
			break;
		case 4:
			im->deleted++;
			return 0;
		default:
			break;
		}
	}
	r = (uint32_t)t_rand64(&im->rng);
	if (im->ber && r < im->ber) {
		bit ^= 1;
		im->flips++;
	}
	out[(*nout)++] = bit;
	return 0;
}

static void pipe_bit(struct impair *im, struct ep *dst, int bit)
{
	static int out[1100];
	int n, i;

	impair_bit(im, bit, out, &n);
	for (i = 0; i < n; i++)
		ep_rx(dst, out[i]);
}

static int done(struct ep *a, struct ep *b)
{
	if (a->kind == EP_SPAN && a->cq_pos != a->cq_len)
		return 0;
	if (b->kind == EP_SPAN && b->cq_pos != b->cq_len)
		return 0;
	int a_ok = a->rx_pos >= a->exp_len;
	int b_ok = b->rx_pos >= b->exp_len;

	/* ours must also have every byte acknowledged */
	if (a->kind == EP_OURS && smdsp_v42_tx_pending(a->o))
		return 0;
	if (b->kind == EP_OURS && smdsp_v42_tx_pending(b->o))
		return 0;
	return a_ok && b_ok;
}

static long run_link(struct ep *a, struct ep *b, struct impair *ab,
		     struct impair *ba, long max_bits)
{
	long t;

	a->exp = b->src;
	a->exp_len = b->src_len;
	b->exp = a->src;
	b->exp_len = a->src_len;
	for (t = 0; t < max_bits; t++) {
		int x = ep_tx(a);
		int y = ep_tx(b);

		pipe_bit(ab, b, x);
		pipe_bit(ba, a, y);
		if ((t & 63) == 0) {
			ep_service(a, t);
			ep_service(b, t);
			if (done(a, b))
				break;
			if (a->mismatch || b->mismatch)
				break;
		}
	}
	return t;
}

static void print_stats(const char *who, const struct smdsp_v42_stats *st)
{
	printf("  %-4s frames tx/rx %" PRIu32 "/%" PRIu32 " I tx/rx %" PRIu32 "/%" PRIu32
	       " retx %" PRIu32 " rej tx/rx %" PRIu32 "/%" PRIu32 " srej tx/rx %" PRIu32 "/%" PRIu32
	       " rnr tx/rx %" PRIu32 "/%" PRIu32 " polls %" PRIu32 " t401 %" PRIu32 " t403 %" PRIu32
	       " crc %" PRIu32 " abort %" PRIu32 " bad %" PRIu32 " oos %" PRIu32 " dup %" PRIu32
	       " busy %" PRIu32 " n401 %u/%u k %u/%u srej %d fcs32 %d\n",
	       who, st->frames_tx, st->frames_rx, st->iframes_tx, st->iframes_rx,
	       st->retransmissions, st->rej_tx, st->rej_rx, st->srej_tx, st->srej_rx,
	       st->rnr_tx, st->rnr_rx, st->polls_tx, st->t401_expiries, st->t403_expiries,
	       st->crc_errors, st->aborts, st->bad_frames, st->out_of_sequence,
	       st->duplicates, st->busy_discards, st->n401_tx, st->n401_rx,
	       st->k_tx, st->k_rx, st->srej, st->fcs32);
}

static void report(struct run *r, struct ep *a, struct ep *b)
{
	uint32_t retx = 0, crc = 0, rej = 0, srej = 0, rnr = 0, polls = 0, lost = 0;

	r->ab_rx = b->rx_pos;
	r->ba_rx = a->rx_pos;
	if (a->kind == EP_OURS) {
		smdsp_v42_get_stats(a->o, &r->a_st);
		r->has_a = 1;
	}
	if (b->kind == EP_OURS) {
		smdsp_v42_get_stats(b->o, &r->b_st);
		r->has_b = 1;
	}
	printf("%s: %ld bits, %s->%s %lu bytes, %s->%s %lu bytes, line: flips %lu/%lu bursts %lu/%lu "
	       "deleted %lu/%lu inserted %lu/%lu\n",
	       r->name, r->bits, a->name, b->name, r->ab_rx, b->name, a->name, r->ba_rx,
	       r->ab.flips, r->ba.flips, r->ab.bursts, r->ba.bursts,
	       r->ab.deleted, r->ba.deleted, r->ab.inserted, r->ba.inserted);
	if (r->has_a)
		print_stats(a->name, &r->a_st);
	if (r->has_b)
		print_stats(b->name, &r->b_st);
	if (r->has_a) {
		retx += r->a_st.retransmissions;
		crc += r->a_st.crc_errors;
		rej += r->a_st.rej_tx + r->a_st.rej_rx;
		srej += r->a_st.srej_tx + r->a_st.srej_rx;
		rnr += r->a_st.rnr_tx + r->a_st.rnr_rx;
		polls += r->a_st.polls_tx;
		lost += r->a_st.lost_on_reset;
	}
	if (r->has_b) {
		retx += r->b_st.retransmissions;
		crc += r->b_st.crc_errors;
		rej += r->b_st.rej_tx + r->b_st.rej_rx;
		srej += r->b_st.srej_tx + r->b_st.srej_rx;
		rnr += r->b_st.rnr_tx + r->b_st.rnr_rx;
		polls += r->b_st.polls_tx;
		lost += r->b_st.lost_on_reset;
	}
	printf("RESULT name=%s ok=%d bits=%ld ab=%lu ba=%lu mismatch=%d retx=%" PRIu32
	       " crc=%" PRIu32 " rej=%" PRIu32 " srej=%" PRIu32 " rnr=%" PRIu32
	       " polls=%" PRIu32 " lost=%" PRIu32 "\n",
	       r->name, r->ok, r->bits, r->ab_rx, r->ba_rx, a->mismatch || b->mismatch,
	       retx, crc, rej, srej, rnr, polls, lost);
}

static struct smdsp_v42_config our_cfg(int calling, int detect)
{
	struct smdsp_v42_config c;

	memset(&c, 0, sizeof(c));
	c.calling = calling;
	c.detect = detect;
	c.bit_rate = 2400;
	return c;
}

static void lossy(struct impair *im, uint64_t seed, double ber, double burst,
		  int kinds)
{
	memset(im, 0, sizeof(*im));
	im->rng = seed;
	im->ber = prob(ber);
	im->burst = prob(burst);
	im->burst_min = 40;
	im->burst_max = 900;
	im->burst_kinds = kinds;
}

/* one complete transfer; returns 1 when both directions arrived intact */
static int transfer(const char *name, struct ep *a, struct ep *b,
		    struct impair *ab, struct impair *ba, struct run *r)
{
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->bits = run_link(a, b, ab, ba, MAX_BITS);
	r->ab = *ab;
	r->ba = *ba;
	r->ok = a->rx_pos == a->exp_len && b->rx_pos == b->exp_len &&
		!a->mismatch && !b->mismatch;
	report(r, a, b);
	CHECK(r->ok, "%s: transfer incomplete or corrupt", name);
	CHECK(ep_connected(a) && ep_connected(b), "%s: link not connected at the end", name);
	return r->ok;
}

/* ---- scenarios ---- */

static long clean_bits_ours;

static void t_ours_ours(int detect, int srej, int fcs32, int lossy_line,
			const char *name)
{
	struct smdsp_v42_config ca = our_cfg(1, detect), cb = our_cfg(0, detect);
	struct ep a, b;
	struct impair ab, ba;
	struct run r;

	ca.srej = cb.srej = srej;
	ca.fcs32 = cb.fcs32 = fcs32;
	ep_ours(&a, "ours1", &ca, 1);
	ep_ours(&b, "ours2", &cb, 2);
	if (lossy_line) {
		lossy(&ab, 11, 2e-4, 1.0 / 6000, 1 | 2 | 4 | 8);
		lossy(&ba, 12, 2e-4, 1.0 / 6000, 1 | 2 | 4 | 8);
	} else {
		lossy(&ab, 11, 0, 0, 0);
		lossy(&ba, 12, 0, 0, 0);
	}
	transfer(name, &a, &b, &ab, &ba, &r);
	CHECK(r.a_st.srej == srej && r.b_st.srej == srej, "%s: SREJ negotiation", name);
	CHECK(r.a_st.fcs32 == fcs32 && r.b_st.fcs32 == fcs32, "%s: FCS negotiation", name);
	if (!lossy_line) {
		CHECK(r.a_st.retransmissions == 0 && r.b_st.retransmissions == 0,
		      "%s: retransmissions on a clean line", name);
		CHECK(r.a_st.crc_errors == 0 && r.b_st.crc_errors == 0,
		      "%s: CRC errors on a clean line", name);
		if (!clean_bits_ours)
			clean_bits_ours = r.bits;
	} else {
		CHECK(r.a_st.retransmissions + r.b_st.retransmissions > 0,
		      "%s: a lossy line without retransmissions", name);
		CHECK(r.a_st.crc_errors + r.b_st.crc_errors + r.a_st.aborts + r.b_st.aborts > 0,
		      "%s: no damaged frames seen", name);
		if (srej)
			CHECK(r.a_st.srej_tx + r.b_st.srej_tx > 0, "%s: SREJ never used", name);
		else
			CHECK(r.a_st.rej_tx + r.b_st.rej_tx > 0, "%s: REJ never used", name);
		CHECK(r.bits > clean_bits_ours, "%s: lossy run not slower than clean", name);
		printf("  throughput: %.2f of the clean line\n",
		       (double)clean_bits_ours / (double)r.bits);
	}
	ep_free(&a);
	ep_free(&b);
}

static void t_span(int ours_calling, int detect, int lossy_line, const char *name)
{
	struct smdsp_v42_config c = our_cfg(ours_calling, detect);
	struct ep o, sp;
	struct impair i1, i2;
	struct run r;
	struct ep *a, *b;

	ep_ours(&o, "ours", &c, 3);
	ep_span(&sp, "span", !ours_calling, detect, 4);
	a = ours_calling ? &o : &sp;
	b = ours_calling ? &sp : &o;
	if (lossy_line) {
		lossy(&i1, 21, 1e-4, 1.0 / 12000, 1 | 2 | 4 | 8);
		lossy(&i2, 22, 1e-4, 1.0 / 12000, 1 | 2 | 4 | 8);
	} else {
		lossy(&i1, 21, 0, 0, 0);
		lossy(&i2, 22, 0, 0, 0);
	}
	transfer(name, a, b, &i1, &i2, &r);
	{
		const struct smdsp_v42_stats *st = ours_calling ? &r.a_st : &r.b_st;

		CHECK(st->srej == 0 && st->fcs32 == 0, "%s: SpanDSP offers neither SREJ nor FCS-32",
		      name);
		CHECK(st->n401_tx == 128 && st->k_tx == 15, "%s: negotiated N401/k", name);
		if (!lossy_line) {
			CHECK(st->retransmissions == 0 && st->crc_errors == 0,
			      "%s: errors on a clean line", name);
		} else {
			CHECK(st->crc_errors + st->aborts + st->bad_frames > 0,
			      "%s: the line did not damage any frame we received", name);
			CHECK(st->retransmissions > 0 || st->rej_tx > 0 || st->polls_tx > 0,
			      "%s: no recovery action by us", name);
		}
	}
	ep_free(&o);
	ep_free(&sp);
}

/* several seeds of the lossy line against SpanDSP: how often does recovery work? */
static void t_span_seeds(int ours_calling, int nseeds, double ber, double burst,
			 const char *name)
{
	int i, ok = 0, fallback = 0;
	int first = getenv("V42_SEED") ? atoi(getenv("V42_SEED")) : 0;
	uint32_t retx = 0, rej = 0, crc = 0;

	for (i = first; i < first + nseeds; i++) {
		struct smdsp_v42_config c = our_cfg(ours_calling, 1);
		struct ep o, sp;
		struct impair i1, i2;
		struct ep *a, *b;
		struct smdsp_v42_stats st;
		long bits;

		ep_ours(&o, "ours", &c, 100 + i);
		ep_span(&sp, "span", !ours_calling, 1, 200 + i);
		a = ours_calling ? &o : &sp;
		b = ours_calling ? &sp : &o;
		lossy(&i1, 300 + i, ber, burst, 1 | 2 | 4 | 8);
		lossy(&i2, 400 + i, ber, burst, 1 | 2 | 4 | 8);
		bits = run_link(a, b, &i1, &i2, MAX_BITS);
		smdsp_v42_get_stats(o.o, &st);
		retx += st.retransmissions;
		rej += st.rej_tx + st.rej_rx;
		crc += st.crc_errors;
		CHECK(!a->mismatch && !b->mismatch, "%s seed %d: corrupt data", name, i);
		if (a->rx_pos == a->exp_len && b->rx_pos == b->exp_len && !a->mismatch &&
		    !b->mismatch)
			ok++;
		else if ((smdsp_v42_status(o.o) == SMDSP_V42_NO_V42 || sp.sp->lapm.state == 8) &&
			 !a->rx_pos && !b->rx_pos)
			fallback++;	/* either end fell back after T400 */
		if (a->rx_pos != a->exp_len || b->rx_pos != b->exp_len)
			printf("  %s seed %d: incomplete after %ld bits (%zu/%zu, %zu/%zu), ours %s, span state %d, span connects %d\n",
			       name, i, bits, a->rx_pos, a->exp_len, b->rx_pos, b->exp_len,
			       smdsp_v42_status_name(smdsp_v42_status(o.o)), sp.sp->lapm.state,
			       sp.span_connects);
		ep_free(&o);
		ep_free(&sp);
	}
	printf("RESULT name=%s ok=%d seeds=%d complete=%d fallback=%d retx=%" PRIu32 " rej=%" PRIu32
	       " crc=%" PRIu32 "\n", name, ok + fallback == nseeds && fallback * 100 <= nseeds,
	       nseeds, ok, fallback, retx, rej, crc);
	CHECK(ok + fallback == nseeds, "%s: %d of %d seeds completed, %d fallbacks", name, ok,
	      nseeds, fallback);
	CHECK(fallback * 100 <= nseeds, "%s: %d detection fallbacks", name, fallback);
}

/* many seeds of ours against ours, optionally with a slow reader */
static void t_ours_seeds(int nseeds, int srej, double ber, double burst, int slow_reader,
			 const char *name)
{
	int i, ok = 0, fallback = 0;
	uint32_t retx = 0, rej = 0, srejn = 0, crc = 0, rnr = 0;
	long bits = 0;
	int first = getenv("V42_SEED") ? atoi(getenv("V42_SEED")) : 0;

	for (i = first; i < first + nseeds; i++) {
		struct smdsp_v42_config ca = our_cfg(1, i & 1), cb = our_cfg(0, i & 1);
		struct ep a, b;
		struct impair ab, ba;
		struct smdsp_v42_stats sa, sb;
		long n;

		ca.srej = cb.srej = srej;
		ca.fcs32 = cb.fcs32 = srej;
		if (slow_reader) {
			cb.rx_buf = 512;
			ca.rx_buf = 1024;
		}
		ep_ours(&a, "ours1", &ca, 500 + i);
		ep_ours(&b, "ours2", &cb, 600 + i);
		if (slow_reader) {
			b.read_every = 2048;
			b.read_chunk = 100;
			a.read_every = 1024;
			a.read_chunk = 150;
		}
		lossy(&ab, 700 + i, ber, burst, 1 | 2 | 4 | 8);
		lossy(&ba, 800 + i, ber, burst, 1 | 2 | 4 | 8);
		n = run_link(&a, &b, &ab, &ba, MAX_BITS);
		bits += n;
		smdsp_v42_get_stats(a.o, &sa);
		smdsp_v42_get_stats(b.o, &sb);
		retx += sa.retransmissions + sb.retransmissions;
		rej += sa.rej_tx + sb.rej_tx;
		srejn += sa.srej_tx + sb.srej_tx;
		crc += sa.crc_errors + sb.crc_errors;
		rnr += sa.rnr_tx + sb.rnr_tx;
		CHECK(!a.mismatch && !b.mismatch, "%s seed %d: corrupt data", name, i);
		if (a.rx_pos == a.exp_len && b.rx_pos == b.exp_len && !a.mismatch && !b.mismatch)
			ok++;
		else if (smdsp_v42_status(a.o) == SMDSP_V42_NO_V42 && !a.rx_pos && !b.rx_pos)
			fallback++;
		if (a.rx_pos != a.exp_len || b.rx_pos != b.exp_len)
			printf("  %s seed %d: incomplete after %ld bits (%zu, %zu) status %s/%s\n",
			       name, i, n, a.rx_pos, b.rx_pos,
			       smdsp_v42_status_name(smdsp_v42_status(a.o)),
			       smdsp_v42_status_name(smdsp_v42_status(b.o)));
		ep_free(&a);
		ep_free(&b);
	}
	/* a detection fallback (T400) on a line this bad is V.42's own rule, not data loss */
	printf("RESULT name=%s ok=%d seeds=%d complete=%d fallback=%d mean_bits=%ld retx=%" PRIu32
	       " rej=%" PRIu32 " srej=%" PRIu32 " crc=%" PRIu32 " rnr=%" PRIu32 "\n",
	       name, ok + fallback == nseeds && fallback * 100 <= nseeds, nseeds, ok, fallback,
	       bits / nseeds, retx, rej, srejn, crc, rnr);
	CHECK(ok + fallback == nseeds, "%s: %d of %d seeds completed, %d fallbacks", name, ok,
	      nseeds, fallback);
	CHECK(fallback * 100 <= nseeds, "%s: %d detection fallbacks", name, fallback);
}

/* receiver reads slowly: local busy (RNR), nothing lost */
static void t_local_busy(void)
{
	struct smdsp_v42_config ca = our_cfg(1, 0), cb = our_cfg(0, 0);
	struct ep a, b;
	struct impair ab, ba;
	struct run r;

	cb.rx_buf = 512;
	ep_ours(&a, "ours1", &ca, 5);
	ep_ours(&b, "ours2", &cb, 6);
	b.read_every = 4096;
	b.read_chunk = 64;
	lossy(&ab, 1, 0, 0, 0);
	lossy(&ba, 2, 0, 0, 0);
	transfer("busy_ours", &a, &b, &ab, &ba, &r);
	CHECK(r.b_st.rnr_tx > 0 && r.a_st.rnr_rx > 0, "busy: RNR not used");
	ep_free(&a);
	ep_free(&b);
}

static void t_local_busy_span(void)
{
	struct smdsp_v42_config c = our_cfg(0, 1);
	struct ep o, sp;
	struct impair i1, i2;
	struct run r;

	c.rx_buf = 512;
	ep_ours(&o, "ours", &c, 7);
	ep_span(&sp, "span", 1, 1, 8);
	o.read_every = 4096;
	o.read_chunk = 64;
	lossy(&i1, 1, 0, 0, 0);
	lossy(&i2, 2, 0, 0, 0);
	transfer("busy_span", &sp, &o, &i1, &i2, &r);
	CHECK(r.b_st.rnr_tx > 0, "busy_span: RNR not used");
	ep_free(&o);
	ep_free(&sp);
}

/* idle link: T403 polls keep it up; then DISC from the originator */
static void t_idle_and_disc(void)
{
	struct smdsp_v42_config ca = our_cfg(1, 1), cb = our_cfg(0, 1);
	struct smdsp_v42 *a, *b;
	struct smdsp_v42_stats sa, sb;
	long t;
	int ok;

	a = smdsp_v42_create(&ca);
	b = smdsp_v42_create(&cb);
	for (t = 0; t < 200000; t++) {
		int x = smdsp_v42_get_bit(a), y = smdsp_v42_get_bit(b);

		smdsp_v42_put_bit(b, x);
		smdsp_v42_put_bit(a, y);
	}
	smdsp_v42_get_stats(a, &sa);
	smdsp_v42_get_stats(b, &sb);
	ok = smdsp_v42_status(a) == SMDSP_V42_CONNECTED &&
	     smdsp_v42_status(b) == SMDSP_V42_CONNECTED;
	CHECK(ok, "idle: link dropped (%s/%s)", smdsp_v42_status_name(smdsp_v42_status(a)),
	      smdsp_v42_status_name(smdsp_v42_status(b)));
	CHECK(sa.t403_expiries > 0 && sb.t403_expiries > 0, "idle: T403 never expired");
	CHECK(sa.polls_tx > 0, "idle: no polls");
	smdsp_v42_disconnect(a);
	for (t = 0; t < 20000; t++) {
		int x = smdsp_v42_get_bit(a), y = smdsp_v42_get_bit(b);

		smdsp_v42_put_bit(b, x);
		smdsp_v42_put_bit(a, y);
	}
	CHECK(smdsp_v42_status(a) == SMDSP_V42_DISCONNECTED &&
	      smdsp_v42_status(b) == SMDSP_V42_DISCONNECTED, "disc: %s/%s",
	      smdsp_v42_status_name(smdsp_v42_status(a)),
	      smdsp_v42_status_name(smdsp_v42_status(b)));
	printf("RESULT name=idle_disc ok=%d t403=%" PRIu32 "/%" PRIu32 " polls=%" PRIu32 "/%" PRIu32
	       " status=%s/%s\n", ok && smdsp_v42_status(a) == SMDSP_V42_DISCONNECTED,
	       sa.t403_expiries, sb.t403_expiries, sa.polls_tx, sb.polls_tx,
	       smdsp_v42_status_name(smdsp_v42_status(a)),
	       smdsp_v42_status_name(smdsp_v42_status(b)));
	smdsp_v42_free(a);
	smdsp_v42_free(b);
}

/* the line dies mid-transfer: N400 polls, then FAILED; what arrived is intact */
static void t_line_cut(void)
{
	struct smdsp_v42_config ca = our_cfg(1, 0), cb = our_cfg(0, 0);
	struct ep a, b;
	struct impair ab, ba;
	struct smdsp_v42_stats st;
	long t;

	ca.n400 = 4;
	ep_ours(&a, "ours1", &ca, 9);
	ep_ours(&b, "ours2", &cb, 10);
	lossy(&ab, 1, 0, 0, 0);
	lossy(&ba, 2, 0, 0, 0);
	a.exp = b.src;
	a.exp_len = b.src_len;
	b.exp = a.src;
	b.exp_len = a.src_len;
	for (t = 0; t < 400000; t++) {
		int x = ep_tx(&a), y = ep_tx(&b);

		if (t == 6000)
			ab.cut = ba.cut = 1;
		pipe_bit(&ab, &b, x);
		pipe_bit(&ba, &a, y);
		if ((t & 63) == 0) {
			ep_service(&a, t);
			ep_service(&b, t);
		}
	}
	smdsp_v42_get_stats(a.o, &st);
	CHECK(smdsp_v42_status(a.o) == SMDSP_V42_FAILED, "cut: status %s",
	      smdsp_v42_status_name(smdsp_v42_status(a.o)));
	CHECK(st.polls_tx == 4, "cut: %" PRIu32 " polls, want N400 = 4", st.polls_tx);
	CHECK(!a.mismatch && !b.mismatch, "cut: corrupt data");
	CHECK(b.rx_pos > 0 && b.rx_pos < DATA_LEN, "cut: %zu bytes before the cut", b.rx_pos);
	printf("RESULT name=line_cut ok=%d polls=%" PRIu32 " t401=%" PRIu32 " delivered=%zu/%zu status=%s\n",
	       smdsp_v42_status(a.o) == SMDSP_V42_FAILED && !a.mismatch && !b.mismatch,
	       st.polls_tx, st.t401_expiries, b.rx_pos, a.rx_pos,
	       smdsp_v42_status_name(smdsp_v42_status(a.o)));
	ep_free(&a);
	ep_free(&b);
}

/* T400: nobody answers the ODP */
static void t_no_peer(void)
{
	struct smdsp_v42_config c = our_cfg(1, 1);
	struct smdsp_v42 *a = smdsp_v42_create(&c);
	long t;

	for (t = 0; t < 3000; t++) {
		smdsp_v42_get_bit(a);
		smdsp_v42_put_bit(a, 1);
	}
	CHECK(smdsp_v42_status(a) == SMDSP_V42_NO_V42, "T400: status %s",
	      smdsp_v42_status_name(smdsp_v42_status(a)));
	printf("RESULT name=t400 ok=%d status=%s\n", smdsp_v42_status(a) == SMDSP_V42_NO_V42,
	       smdsp_v42_status_name(smdsp_v42_status(a)));
	smdsp_v42_free(a);
}

/* random bits and random frames: no crash, and nothing reaches the user unasked */
static void t_garbage(void)
{
	uint64_t rng = 77;
	long i, f;
	int role;
	uint8_t buf[300];
	unsigned long delivered = 0;

	for (role = 0; role < 2; role++) {
		struct smdsp_v42_config c = our_cfg(role, role);
		struct smdsp_v42 *s = smdsp_v42_create(&c);

		for (i = 0; i < 2000000; i++) {
			smdsp_v42_put_bit(s, (int)(t_rand64(&rng) & 1));
			smdsp_v42_get_bit(s);
		}
		for (f = 0; f < 200000; f++) {
			unsigned int len = (unsigned int)(t_rand64(&rng) % 300), j;

			for (j = 0; j < len; j++)
				buf[j] = (uint8_t)t_rand64(&rng);
			if (len >= 2 && (t_rand64(&rng) & 1)) {
				buf[0] = (t_rand64(&rng) & 1) ? 0x01 : 0x03;
				if (t_rand64(&rng) & 1)
					buf[1] = (uint8_t)(0x6f | (t_rand64(&rng) & 0x10));
			}
			smdsp_v42_rx_frame(s, buf, len);
			for (j = 0; j < 40; j++)
				smdsp_v42_get_bit(s);
			delivered += smdsp_v42_read(s, buf, sizeof(buf));
		}
		smdsp_v42_free(s);
	}
	printf("RESULT name=garbage ok=1 delivered_from_random=%lu\n", delivered);
}

/* ---- V.42bis ---- */

static uint8_t text[DATA_MAX * 2];
static size_t text_len;

static void load_text(void)
{
	static const char *const files[] = {
		"README.md", "doc/testing.md", "doc/lab.md", "doc/studies.md", "dsp/README.md",
	};
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]) && text_len < sizeof(text); i++) {
		FILE *f = fopen(files[i], "rb");

		if (!f)
			continue;
		text_len += fread(text + text_len, 1, sizeof(text) - text_len, f);
		fclose(f);
	}
}

static void ep_data(struct ep *e, const uint8_t *d, size_t len)
{
	memcpy(e->src, d, len);
	e->src_len = len;
}

static struct smdsp_v42_config bis_cfg(int calling, unsigned int dirs, unsigned int p1,
				       unsigned int p2)
{
	struct smdsp_v42_config c = our_cfg(calling, 1);

	c.v42bis = 1;
	c.v42bis_dirs = dirs;
	c.v42bis_p1 = p1;
	c.v42bis_p2 = p2;
	return c;
}

/*
 * Two of ours: what XID agreed (directions, P1, P2) at each end, the data
 * both ways byte exact; returns the line bits it took (0 on failure).
 */
static long bis_pair(const char *name, struct smdsp_v42_config ca, struct smdsp_v42_config cb,
		     const uint8_t *da, const uint8_t *db, size_t len, int lossy_line,
		     unsigned int want_a, unsigned int want_b, unsigned int want_p1,
		     unsigned int want_p2, struct run *r)
{
	struct ep a, b;
	struct impair ab, ba;

	ep_ours(&a, "ours1", &ca, 31);
	ep_ours(&b, "ours2", &cb, 32);
	ep_data(&a, da, len);
	ep_data(&b, db, len);
	if (lossy_line) {
		lossy(&ab, 41, 2e-4, 1.0 / 6000, 1 | 2 | 4 | 8);
		lossy(&ba, 42, 2e-4, 1.0 / 6000, 1 | 2 | 4 | 8);
	} else {
		lossy(&ab, 41, 0, 0, 0);
		lossy(&ba, 42, 0, 0, 0);
	}
	transfer(name, &a, &b, &ab, &ba, r);
	CHECK(r->a_st.v42bis_dirs == want_a && r->b_st.v42bis_dirs == want_b,
	      "%s: V.42bis directions %u/%u, want %u/%u", name, r->a_st.v42bis_dirs,
	      r->b_st.v42bis_dirs, want_a, want_b);
	if (want_a)
		CHECK(r->a_st.v42bis_p1 == want_p1 && r->a_st.v42bis_p2 == want_p2 &&
		      r->b_st.v42bis_p1 == want_p1 && r->b_st.v42bis_p2 == want_p2,
		      "%s: P1/P2 %u/%u and %u/%u, want %u/%u", name, r->a_st.v42bis_p1,
		      r->a_st.v42bis_p2, r->b_st.v42bis_p1, r->b_st.v42bis_p2, want_p1, want_p2);
	printf("  %s: V.42bis %u/%u p1 %u p2 %u; ours1 %u -> %u bytes, ours2 %u -> %u bytes\n", name,
	       r->a_st.v42bis_dirs, r->b_st.v42bis_dirs, r->a_st.v42bis_p1, r->a_st.v42bis_p2,
	       r->a_st.v42bis_tx_in, r->a_st.v42bis_tx_out, r->b_st.v42bis_tx_in,
	       r->b_st.v42bis_tx_out);
	ep_free(&a);
	ep_free(&b);
	return r->ok ? r->bits : 0;
}

static void t_bis(void)
{
	static uint8_t rnd[DATA_MAX], rnd2[DATA_MAX];
	uint64_t seed = 5;
	struct run r;
	size_t len, i;
	long plain, bis;
	double ra, rb;

	load_text();
	CHECK(text_len >= 2 * DATA_MAX, "text corpus: %zu bytes", text_len);
	len = DATA_MAX;
	for (i = 0; i < len; i++) {
		rnd[i] = (uint8_t)t_rand64(&seed);
		rnd2[i] = (uint8_t)t_rand64(&seed);
	}
	/* text both ways: plain V.42, then with V.42bis both ways (the defaults) */
	plain = bis_pair("bis_text_plain", our_cfg(1, 1), our_cfg(0, 1), text, text + DATA_MAX,
			 len, 0, 0, 0, 0, 0, &r);
	bis = bis_pair("bis_text", bis_cfg(1, 0, 0, 0), bis_cfg(0, 0, 0, 0), text, text + DATA_MAX,
		       len, 0, 3, 3, 2048, 32, &r);
	ra = r.a_st.v42bis_tx_out ? (double)r.a_st.v42bis_tx_in / r.a_st.v42bis_tx_out : 0;
	rb = r.b_st.v42bis_tx_out ? (double)r.b_st.v42bis_tx_in / r.b_st.v42bis_tx_out : 0;
	CHECK(r.a_st.v42bis_tx_in == len && r.b_st.v42bis_rx_out == len, "bis_text: byte counts");
	CHECK(ra > 1.5 && rb > 1.5, "bis_text: ratios %.3f and %.3f", ra, rb);
	CHECK(bis && plain && (double)plain / bis > 1.4, "bis_text: %ld bits against %ld plain",
	      bis, plain);
	printf("RESULT name=bis_text_ratio ok=%d ratio=%.3f/%.3f bits=%ld plain_bits=%ld speedup=%.3f\n",
	       ra > 1.5 && rb > 1.5, ra, rb, bis, plain, bis ? (double)plain / bis : 0.0);

	/* random data: transparent mode, an escape per 256 bytes at most */
	plain = bis_pair("bis_random_plain", our_cfg(1, 1), our_cfg(0, 1), rnd, rnd2, len, 0, 0, 0,
			 0, 0, &r);
	bis = bis_pair("bis_random", bis_cfg(1, 0, 0, 0), bis_cfg(0, 0, 0, 0), rnd, rnd2, len, 0, 3,
		       3, 2048, 32, &r);
	ra = (double)r.a_st.v42bis_tx_out / r.a_st.v42bis_tx_in;
	rb = (double)r.b_st.v42bis_tx_out / r.b_st.v42bis_tx_in;
	CHECK(ra < 1.006 && rb < 1.006, "bis_random: expanded by %.4f and %.4f", ra, rb);
	CHECK(bis && (double)bis / plain < 1.01, "bis_random: %ld bits against %ld plain", bis,
	      plain);
	printf("RESULT name=bis_random_expansion ok=%d expansion=%.4f/%.4f bits=%ld plain_bits=%ld\n",
	       ra < 1.006 && rb < 1.006, ra, rb, bis, plain);

	/* one end without V.42bis: plain V.42, both roles */
	bis_pair("bis_caller_only", bis_cfg(1, 0, 0, 0), our_cfg(0, 1), text, rnd, 8192, 0, 0, 0, 0,
		 0, &r);
	bis_pair("bis_answerer_only", our_cfg(1, 1), bis_cfg(0, 0, 0, 0), rnd, text, 8192, 0, 0, 0,
		 0, 0, &r);
	/* directions and sizes: the lower of each offer */
	bis_pair("bis_dirs_tx_only", bis_cfg(1, SMDSP_V42BIS_DIR_TX, 4096, 250),
		 bis_cfg(0, 0, 1024, 16), text, text + 8192, 8192, 0, SMDSP_V42BIS_DIR_TX,
		 SMDSP_V42BIS_DIR_RX, 1024, 16, &r);
	bis_pair("bis_dirs_answerer_rx", bis_cfg(1, 0, 512, 6), bis_cfg(0, SMDSP_V42BIS_DIR_RX, 0, 0),
		 text, text + 8192, 8192, 0, SMDSP_V42BIS_DIR_TX, SMDSP_V42BIS_DIR_RX, 512, 6, &r);
	/* a lossy line: retransmitted compressed frames */
	bis_pair("bis_text_lossy", bis_cfg(1, 0, 0, 0), bis_cfg(0, 0, 0, 0), text, text + DATA_MAX,
		 len, 1, 3, 3, 2048, 32, &r);
	CHECK(r.a_st.retransmissions + r.b_st.retransmissions > 0, "bis lossy: no retransmission");
}

/* a frame the decoder cannot take: a protocol error, and the link is released */
static void t_bis_protocol_error(void)
{
	struct smdsp_v42_config ca = bis_cfg(1, 0, 0, 0), cb = bis_cfg(0, 0, 0, 0);
	struct smdsp_v42 *a = smdsp_v42_create(&ca), *b = smdsp_v42_create(&cb);
	/* command from the originator, N(S) 0, N(R) 0: ESC (0), then no command */
	static const uint8_t bad[] = { 0x03, 0x00, 0x00, 0x00, 0x07 };
	struct smdsp_v42_stats sa, sb;
	long t;

	for (t = 0; t < 40000; t++) {
		int x = smdsp_v42_get_bit(a), y = smdsp_v42_get_bit(b);

		smdsp_v42_put_bit(b, x);
		smdsp_v42_put_bit(a, y);
	}
	smdsp_v42_get_stats(b, &sb);
	CHECK(smdsp_v42_status(b) == SMDSP_V42_CONNECTED && sb.v42bis_dirs == 3,
	      "protocol error: set-up %s, V.42bis %u", smdsp_v42_status_name(smdsp_v42_status(b)),
	      sb.v42bis_dirs);
	smdsp_v42_rx_frame(b, bad, sizeof(bad));
	for (t = 0; t < 40000; t++) {
		int x = smdsp_v42_get_bit(a), y = smdsp_v42_get_bit(b);

		smdsp_v42_put_bit(b, x);
		smdsp_v42_put_bit(a, y);
	}
	smdsp_v42_get_stats(a, &sa);
	smdsp_v42_get_stats(b, &sb);
	CHECK(sb.v42bis_errors == 1 && sa.v42bis_errors == 0, "protocol error: counted %u/%u",
	      sa.v42bis_errors, sb.v42bis_errors);
	CHECK(smdsp_v42_status(a) == SMDSP_V42_DISCONNECTED &&
	      smdsp_v42_status(b) == SMDSP_V42_DISCONNECTED, "protocol error: link %s/%s",
	      smdsp_v42_status_name(smdsp_v42_status(a)), smdsp_v42_status_name(smdsp_v42_status(b)));
	printf("RESULT name=bis_protocol_error ok=%d errors=%u status=%s/%s\n",
	       sb.v42bis_errors == 1 && smdsp_v42_status(b) == SMDSP_V42_DISCONNECTED,
	       sb.v42bis_errors, smdsp_v42_status_name(smdsp_v42_status(a)),
	       smdsp_v42_status_name(smdsp_v42_status(b)));
	smdsp_v42_free(a);
	smdsp_v42_free(b);
}

/*
 * Against SpanDSP's V.42: its XID offers P0 1 (initiator to responder), P1
 * 512, P2 6 and answers with the same, so one direction is compressed: ours
 * into SpanDSP's V.42bis when we call, SpanDSP's into ours when it calls.
 */
static void t_bis_span(int ours_calling, const char *name)
{
	struct smdsp_v42_config c = bis_cfg(ours_calling, 0, 0, 0);
	struct ep o, sp;
	struct impair i1, i2;
	struct run r;
	const struct smdsp_v42_stats *st;

	ep_ours(&o, "ours", &c, 3);
	ep_span(&sp, "span", !ours_calling, 1, 4);
	ep_data(&o, text, 16384);
	ep_data(&sp, text + 20000, 16384);
	sp.spbis = v42bis_init(NULL, V42BIS_P0_BOTH_DIRECTIONS, 512, 6, spbis_out, &sp, 1024,
			       spbis_in, &sp, 1024);
	sp.spbis_rx = ours_calling;
	sp.spbis_tx = !ours_calling;
	lossy(&i1, 21, 0, 0, 0);
	lossy(&i2, 22, 0, 0, 0);
	transfer(name, ours_calling ? &o : &sp, ours_calling ? &sp : &o, &i1, &i2, &r);
	st = ours_calling ? &r.a_st : &r.b_st;
	CHECK(st->v42bis_dirs == (ours_calling ? SMDSP_V42BIS_DIR_TX : SMDSP_V42BIS_DIR_RX) &&
	      st->v42bis_p1 == 512 && st->v42bis_p2 == 6,
	      "%s: agreed %u, %u, %u", name, st->v42bis_dirs, st->v42bis_p1, st->v42bis_p2);
	printf("RESULT name=%s_agreed ok=%d dirs=%u p1=%u p2=%u tx=%u->%u rx=%u->%u\n", name, r.ok,
	       st->v42bis_dirs, st->v42bis_p1, st->v42bis_p2, st->v42bis_tx_in, st->v42bis_tx_out,
	       st->v42bis_rx_in, st->v42bis_rx_out);
	ep_free(&o);
	ep_free(&sp);
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "--stress")) {
		int n = atoi(argv[2]);

		t_ours_seeds(n, 0, 1e-3, 1.0 / 3000, 0, "stress_rej");
		t_ours_seeds(n, 1, 1e-3, 1.0 / 3000, 0, "stress_srej");
		t_ours_seeds(n, 0, 3e-4, 1.0 / 5000, 1, "stress_rej_slow");
		t_ours_seeds(n, 1, 3e-4, 1.0 / 5000, 1, "stress_srej_slow");
		t_span_seeds(1, n, 3e-4, 1.0 / 6000, "stress_ours_orig_span");
		t_span_seeds(0, n, 3e-4, 1.0 / 6000, "stress_span_orig_ours");
		return t_report("test_v42 stress");
	}
	t_ours_ours(1, 0, 0, 0, "ours_ours_clean");
	t_ours_ours(0, 1, 1, 0, "ours_ours_srej_fcs32_clean");
	t_ours_ours(1, 0, 0, 1, "ours_ours_rej_lossy");
	t_ours_ours(1, 1, 1, 1, "ours_ours_srej_fcs32_lossy");
	t_span(1, 1, 0, "ours_orig_span_ans_clean");
	t_span(0, 1, 0, "span_orig_ours_ans_clean");
	t_span(1, 0, 0, "ours_orig_span_ans_nodetect");
	t_span(0, 0, 0, "span_orig_ours_ans_nodetect");
	t_span(1, 1, 1, "ours_orig_span_ans_lossy");
	t_span(0, 1, 1, "span_orig_ours_ans_lossy");
	t_span_seeds(1, 10, 1e-4, 1.0 / 12000, "ours_orig_span_ans_lossy_seeds");
	t_span_seeds(0, 10, 1e-4, 1.0 / 12000, "span_orig_ours_ans_lossy_seeds");
	t_local_busy();
	t_local_busy_span();
	t_idle_and_disc();
	t_line_cut();
	t_no_peer();
	t_garbage();
	t_bis();
	t_bis_protocol_error();
	t_bis_span(1, "bis_ours_orig_span_ans");
	t_bis_span(0, "bis_span_orig_ours_ans");
	return t_report("test_v42");
}
