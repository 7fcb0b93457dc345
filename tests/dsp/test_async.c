/*
 * Async character framing: 8N1 and other formats, V.14 stop bit deletion
 * and re-insertion, break; ours against ours and against SpanDSP's async
 * transmitter and receiver (SpanDSP 0.0.6 has V.14 only in its receiver).
 *
 * Every run prints one "RESULT" line (parsed by tests/dsp/test_v42_v8.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <inttypes.h>
#include <spandsp.h>
#include <smdsp/async.h>
#include "tutil.h"

#define NCHARS	20000

struct src {
	uint8_t data[NCHARS];
	size_t len;
	size_t pos;
	uint64_t rng;
	uint32_t gap_prob;		/* probability * 2^32 that no byte is ready */
};

struct sink {
	const uint8_t *exp;
	size_t exp_len;
	size_t pos;
	size_t mismatches;
	unsigned int breaks;
	size_t break_at;
	unsigned int mask;
};

static int src_get(void *user)
{
	struct src *s = user;

	if (s->pos >= s->len)
		return -1;
	if (s->gap_prob && (uint32_t)t_rand64(&s->rng) < s->gap_prob)
		return -1;
	return s->data[s->pos++];
}

static void sink_put(void *user, int byte)
{
	struct sink *k = user;

	if (byte == SMDSP_ASYNC_BREAK) {
		k->breaks++;
		k->break_at = k->pos;
		return;
	}
	if (byte < 0)
		return;		/* SpanDSP status codes */
	if (k->pos >= k->exp_len || (uint8_t)byte != (k->exp[k->pos] & k->mask)) {
		if (!k->mismatches)
			printf("  first mismatch at %zu: got %02x want %02x\n", k->pos, byte,
			       k->pos < k->exp_len ? k->exp[k->pos] & k->mask : 0);
		k->mismatches++;
	}
	k->pos++;
}

static int span_src_get(void *user)
{
	return src_get(user);
}

static void span_sink_put(void *user, int byte)
{
	sink_put(user, byte);
}

static void src_init(struct src *s, uint64_t seed, size_t len, double gap)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->rng = seed;
	for (i = 0; i < len; i++)
		s->data[i] = (uint8_t)t_rand64(&s->rng);
	s->len = len;
	s->gap_prob = (uint32_t)(gap * 4294967295.0);
}

static void sink_init(struct sink *k, const struct src *s, int data_bits)
{
	memset(k, 0, sizeof(*k));
	k->exp = s->data;
	k->exp_len = s->len;
	k->mask = (1u << data_bits) - 1;
}

static struct smdsp_async_config acfg(int data_bits, int parity, int stop_bits, int v14,
				      int interval)
{
	struct smdsp_async_config c;

	memset(&c, 0, sizeof(c));
	c.data_bits = data_bits;
	c.parity = parity;
	c.stop_bits = stop_bits;
	c.v14 = v14;
	c.v14_interval = interval;
	return c;
}

static int span_parity(int p)
{
	return p == SMDSP_ASYNC_PARITY_EVEN ? ASYNC_PARITY_EVEN :
	       p == SMDSP_ASYNC_PARITY_ODD ? ASYNC_PARITY_ODD : ASYNC_PARITY_NONE;
}

/*
 * One round trip. tx_kind/rx_kind: 0 ours, 1 SpanDSP. Returns the number of
 * line bits used.
 */
static long round_trip(const char *name, int tx_kind, int rx_kind, int data_bits, int parity,
		       int stop_bits, int tx_v14, int interval, int rx_v14, double gap,
		       struct smdsp_async_tx_stats *ts, struct smdsp_async_rx_stats *rs,
		       struct sink *k_out)
{
	struct smdsp_async_config tc = acfg(data_bits, parity, stop_bits, tx_v14, interval);
	struct smdsp_async_config rc = acfg(data_bits, parity, stop_bits, rx_v14, 0);
	struct smdsp_async_tx *otx = NULL;
	struct smdsp_async_rx *orx = NULL;
	async_tx_state_t *stx = NULL;
	async_rx_state_t *srx = NULL;
	static struct src s;
	struct sink k;
	long bits = 0, idle = 0;
	int ok;

	/*
	 * SpanDSP 0.0.6's async transmitter has no idle state: a negative
	 * get_byte() goes out as a character (0xff for -1). Feed it without
	 * gaps and stop as soon as everything has arrived.
	 */
	if (tx_kind == 1)
		gap = 0;
	src_init(&s, 1234 + (uint64_t)data_bits * 7 + (uint64_t)parity, NCHARS, gap);
	sink_init(&k, &s, data_bits);
	if (tx_kind == 0)
		otx = smdsp_async_tx_create(&tc, src_get, &s);
	else
		stx = async_tx_init(NULL, data_bits, span_parity(parity), stop_bits, 0,
				    span_src_get, &s);
	if (rx_kind == 0)
		orx = smdsp_async_rx_create(&rc, sink_put, &k);
	else
		srx = async_rx_init(NULL, data_bits, span_parity(parity), stop_bits, rx_v14,
				    span_sink_put, &k);
	/* run until the source is empty and 40 idle bits have followed */
	while (idle < 40 && bits < 100L * NCHARS && !(stx && k.pos >= s.len)) {
		int bit;

		bit = otx ? smdsp_async_tx_get_bit(otx) : async_tx_get_bit(stx);
		if (bit < 0)
			bit = 1;
		if (orx)
			smdsp_async_rx_put_bit(orx, bit);
		else
			async_rx_put_bit(srx, bit);
		bits++;
		if (s.pos >= s.len)
			idle++;
	}
	if (otx && ts)
		smdsp_async_tx_get_stats(otx, ts);
	if (orx && rs)
		smdsp_async_rx_get_stats(orx, rs);
	ok = k.pos == s.len && k.mismatches == 0;
	printf("%s name=%s ok=%d chars=%zu received=%zu mismatches=%zu bits=%ld bits_per_char=%.3f",
	       strstr(name, "expect") ? "NEGATIVE" : "RESULT", name, ok, s.len, k.pos,
	       k.mismatches, bits, (double)bits / (double)s.len);
	if (otx && ts)
		printf(" stops_deleted=%" PRIu32, ts->stops_deleted);
	if (orx && rs)
		printf(" stops_inserted=%" PRIu32 " framing_errors=%" PRIu32 " parity_errors=%" PRIu32,
		       rs->stops_inserted, rs->framing_errors, rs->parity_errors);
	printf("\n");
	if (k_out)
		*k_out = k;
	smdsp_async_tx_free(otx);
	smdsp_async_rx_free(orx);
	if (stx)
		async_tx_free(stx);
	if (srx)
		async_rx_free(srx);
	return bits;
}

static void t_formats(void)
{
	static const struct {
		int db, par, sb;
		const char *name;
	} f[] = {
		{ 8, SMDSP_ASYNC_PARITY_NONE, 1, "8N1" },
		{ 7, SMDSP_ASYNC_PARITY_EVEN, 1, "7E1" },
		{ 7, SMDSP_ASYNC_PARITY_ODD, 2, "7O2" },
		{ 8, SMDSP_ASYNC_PARITY_EVEN, 1, "8E1" },
		{ 6, SMDSP_ASYNC_PARITY_NONE, 2, "6N2" },
		{ 5, SMDSP_ASYNC_PARITY_ODD, 1, "5O1" },
	};
	unsigned int i;
	char name[64];
	struct smdsp_async_rx_stats rs;
	struct smdsp_async_tx_stats ts;
	struct sink k;

	for (i = 0; i < SMDSP_ARRAY_SIZE(f); i++) {
		snprintf(name, sizeof(name), "ours_ours_%s", f[i].name);
		round_trip(name, 0, 0, f[i].db, f[i].par, f[i].sb, 0, 0, 0, 0.2, &ts, &rs, &k);
		CHECK(k.pos == NCHARS && !k.mismatches, "%s", name);
		CHECK(rs.framing_errors == 0 && rs.parity_errors == 0, "%s: errors", name);
		snprintf(name, sizeof(name), "ours_span_%s", f[i].name);
		round_trip(name, 0, 1, f[i].db, f[i].par, f[i].sb, 0, 0, 0, 0.2, &ts, NULL, &k);
		CHECK(k.pos == NCHARS && !k.mismatches, "%s", name);
		snprintf(name, sizeof(name), "span_ours_%s", f[i].name);
		round_trip(name, 1, 0, f[i].db, f[i].par, f[i].sb, 0, 0, 0, 0.2, NULL, &rs, &k);
		CHECK(k.pos == NCHARS && !k.mismatches, "%s", name);
		CHECK(rs.framing_errors == 0 && rs.parity_errors == 0, "%s: errors", name);
	}
}

static void t_v14(void)
{
	struct smdsp_async_rx_stats rs;
	struct smdsp_async_tx_stats ts;
	struct sink k;
	long bits;
	int interval;

	for (interval = 8; interval >= 4; interval -= 4) {
		char name[64];

		/* back-to-back characters: the transmitter deletes stop bits */
		snprintf(name, sizeof(name), "v14_%d_ours_ours", interval);
		bits = round_trip(name, 0, 0, 8, SMDSP_ASYNC_PARITY_NONE, 1, 1, interval, 1, 0,
				  &ts, &rs, &k);
		CHECK(k.pos == NCHARS && !k.mismatches, "%s", name);
		/* every interval-th character, except the last one (nothing follows it) */
		CHECK(ts.stops_deleted == (uint32_t)((NCHARS - 1) / interval),
		      "%s: %" PRIu32 " deleted, want %d", name, ts.stops_deleted,
		      (NCHARS - 1) / interval);
		CHECK(rs.stops_inserted == ts.stops_deleted, "%s: inserted %" PRIu32, name,
		      rs.stops_inserted);
		CHECK(rs.framing_errors == 0, "%s: framing errors", name);
		CHECK(bits < 10L * NCHARS, "%s: no rate gain (%ld bits)", name, bits);

		snprintf(name, sizeof(name), "v14_%d_ours_span", interval);
		round_trip(name, 0, 1, 8, SMDSP_ASYNC_PARITY_NONE, 1, 1, interval, 1, 0, &ts, NULL,
			   &k);
		CHECK(k.pos == NCHARS && !k.mismatches, "%s", name);
		CHECK(ts.stops_deleted == (uint32_t)((NCHARS - 1) / interval), "%s: deletions",
		      name);

		/* with gaps in the source, deletions happen only inside bursts */
		snprintf(name, sizeof(name), "v14_%d_gaps_ours_ours", interval);
		round_trip(name, 0, 0, 8, SMDSP_ASYNC_PARITY_NONE, 1, 1, interval, 1, 0.1, &ts,
			   &rs, &k);
		CHECK(k.pos == NCHARS && !k.mismatches, "%s", name);
		CHECK(rs.stops_inserted == ts.stops_deleted && ts.stops_deleted > 0,
		      "%s: deleted %" PRIu32 " inserted %" PRIu32, name, ts.stops_deleted,
		      rs.stops_inserted);

		/* 7E1 with V.14 */
		snprintf(name, sizeof(name), "v14_%d_7E1_ours_span", interval);
		round_trip(name, 0, 1, 7, SMDSP_ASYNC_PARITY_EVEN, 1, 1, interval, 1, 0, &ts, NULL,
			   &k);
		CHECK(k.pos == NCHARS && !k.mismatches, "%s", name);
	}
	/* a receiver without V.14 sees the deletions as framing errors (expected to garble) */
	round_trip("v14_into_plain_rx_expect_garbled", 0, 0, 8, SMDSP_ASYNC_PARITY_NONE, 1, 1, 8,
		   0, 0, &ts, &rs, &k);
	CHECK(rs.framing_errors > 0 && k.mismatches > 0,
	      "deleted stop bits went unnoticed by a plain receiver");
	printf("RESULT name=v14_needed ok=%d framing_errors=%" PRIu32 "\n",
	       rs.framing_errors > 0 && k.mismatches > 0, rs.framing_errors);
	/* V.14 receiver fed plain 8N1 from SpanDSP: nothing inserted */
	round_trip("plain_span_into_v14_rx", 1, 0, 8, SMDSP_ASYNC_PARITY_NONE, 1, 0, 0, 1, 0,
		   NULL, &rs, &k);
	CHECK(k.pos == NCHARS && !k.mismatches && rs.stops_inserted == 0, "plain into v14 rx");
}

static struct src brk_src;
static int brk_count;

static int brk_get(void *user)
{
	(void)user;
	return src_get(&brk_src);
}

static void t_break(void)
{
	int v14;

	for (v14 = 0; v14 < 2; v14++) {
		struct smdsp_async_config c = acfg(8, SMDSP_ASYNC_PARITY_NONE, 1, v14, v14 ? 8 : 0);
		struct smdsp_async_tx *tx;
		struct smdsp_async_rx *rx;
		struct smdsp_async_rx_stats rs;
		struct smdsp_async_tx_stats ts;
		struct sink k;
		long i;

		/* includes NUL characters, which must not be mistaken for a break */
		src_init(&brk_src, 99, 2000, 0);
		for (i = 0; i < 2000; i += 7)
			brk_src.data[i] = 0;
		sink_init(&k, &brk_src, 8);
		tx = smdsp_async_tx_create(&c, brk_get, NULL);
		rx = smdsp_async_rx_create(&c, sink_put, &k);
		for (i = 0; i < 40000; i++) {
			if (brk_src.pos == 1000 && !brk_count) {
				smdsp_async_tx_break(tx);
				brk_count = 1;
			}
			smdsp_async_rx_put_bit(rx, smdsp_async_tx_get_bit(tx));
		}
		smdsp_async_rx_get_stats(rx, &rs);
		smdsp_async_tx_get_stats(tx, &ts);
		printf("RESULT name=break_v14_%d ok=%d chars=%zu breaks=%u break_at=%zu framing_errors=%" PRIu32 "\n",
		       v14, k.pos == 2000 && !k.mismatches && k.breaks == 1, k.pos, k.breaks,
		       k.break_at, rs.framing_errors);
		CHECK(k.pos == 2000 && !k.mismatches, "break v14=%d: data", v14);
		CHECK(k.breaks == 1 && ts.breaks == 1, "break v14=%d: %u breaks", v14, k.breaks);
		CHECK(k.break_at >= 999 && k.break_at <= 1001, "break v14=%d: at %zu", v14,
		      k.break_at);
		smdsp_async_tx_free(tx);
		smdsp_async_rx_free(rx);
		brk_count = 0;
	}
}

static void count_put(void *user, int byte)
{
	(void)user;
	(void)byte;
}

/* line errors: counted, no crash; random bits into every format */
static void t_errors(void)
{
	struct smdsp_async_config c = acfg(7, SMDSP_ASYNC_PARITY_EVEN, 1, 0, 0);
	struct smdsp_async_rx *rx;
	struct smdsp_async_rx_stats rs;
	struct sink k;
	uint64_t rng = 5;
	long i;
	int f;

	memset(&k, 0, sizeof(k));
	k.exp_len = 0;
	k.mask = 0x7f;
	for (f = 0; f < 16; f++) {
		c = acfg(5 + (f & 3), (f >> 2) % 3, 1 + ((f >> 3) & 1), f & 1, 0);
		rx = smdsp_async_rx_create(&c, count_put, NULL);
		for (i = 0; i < 200000; i++)
			smdsp_async_rx_put_bit(rx, (int)(t_rand64(&rng) & 1));
		smdsp_async_rx_get_stats(rx, &rs);
		CHECK(rs.chars > 0 && rs.framing_errors + rs.stops_inserted > 0,
		      "random bits: format %d", f);
		smdsp_async_rx_free(rx);
	}
	/* bad configurations are refused */
	c = acfg(9, 0, 1, 0, 0);
	CHECK(!smdsp_async_rx_create(&c, sink_put, &k), "9 data bits accepted");
	c = acfg(8, 0, 3, 0, 0);
	CHECK(!smdsp_async_tx_create(&c, src_get, NULL), "3 stop bits accepted");
	printf("RESULT name=async_errors ok=1\n");
}

int main(void)
{
	t_formats();
	t_v14();
	t_break();
	t_errors();
	return t_report("test_async");
}
