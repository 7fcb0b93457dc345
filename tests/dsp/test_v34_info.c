// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 phase 2's INFO sequences and tones (dsp/v34_info*.c), against the
 * recommendation's definitions and over the line model.
 *
 * Frames: three frames written out by hand from Tables 12-14 (fill bits,
 * the sync 01110010, each field least significant bit first, the CRC
 * computed here as the polynomial division the recommendation defines, not
 * as the library's register); every field's bit position and width from
 * the tables; pack/unpack round trips of random fields; every single-bit
 * error, a wrong sync, a short frame, values out of range.
 *
 * Signals: a DPSK modulator written here from the definition (another pulse,
 * carrier offsets to 10 Hz, a guard tone) to our receiver; our transmitter to
 * our receiver over tests/dsp/common/line.c in
 * both directions (1200 Hz caller, 2400 Hz answerer), with loss, noise,
 * echo of the receiving modem's own signal, delay and clock offset: INFO0,
 * the tone, a reversal (its time against the transmitter's), INFO1; frame
 * success against noise; levels. Hostile input: noise, a wrong CRC, a frame
 * cut short, a good CRC over a bad field, a kind not looked for, a tone off
 * frequency, garbage samples; each refused and counted where it should be.
 */
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <smdsp/v34_info.h>
#include "tutil.h"
#include "line.h"

#define BLK 160

/* ---------- frames ---------- */

static void bits_from_str(uint8_t *f, const char *s)
{
	unsigned int i;

	memset(f, 0, SMDSP_V34_INFO_BYTES);
	for (i = 0; s[i]; i++)
		if (s[i] == '1')
			f[i / 8] |= (uint8_t)(1u << (i % 8));
}

static int bit(const uint8_t *f, unsigned int i)
{
	return (f[i / 8] >> (i % 8)) & 1;
}

/*
 * The CRC as V.34 defines it: the remainder of the division by x^16 + x^12 +
 * x^5 + 1 of the bits (first in time highest order) times x^16, with the
 * register preset to ones, i.e. the first 16 bits complemented.
 */
static void crc_by_division(const int *bits, int n, int *out)
{
	static const int g[17] = { 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 };
	int m[160];
	int i, j;

	for (i = 0; i < n; i++)
		m[i] = bits[i] ^ (i < 16);
	for (i = n; i < n + 16; i++)
		m[i] = 0;
	for (i = 0; i < n; i++)
		if (m[i])
			for (j = 0; j < 17; j++)
				m[i + j] ^= g[j];
	for (i = 0; i < 16; i++)
		out[i] = m[n + i];
}

static void build_by_hand(const unsigned int (*fields)[2], int nf, char *out)
{
	int bits[160], n = 0, i, k, crc[16];
	const char *head = "111101110010";

	for (i = 0; head[i]; i++)
		bits[n++] = head[i] - '0';
	for (i = 0; i < nf; i++)
		for (k = 0; k < (int)fields[i][1]; k++)
			bits[n++] = (fields[i][0] >> k) & 1;
	crc_by_division(bits + 12, n - 12, crc);
	for (i = 0; i < 16; i++)
		bits[n++] = crc[i];
	for (i = 0; i < 4; i++)
		bits[n++] = 1;
	for (i = 0; i < n; i++)
		out[i] = (char)('0' + bits[i]);
	out[n] = 0;
}

static void check_frame_eq(const uint8_t *f, int n, const char *want, const char *what)
{
	int i, bad = -1;

	for (i = 0; i < n; i++)
		if (bit(f, (unsigned int)i) != want[i] - '0') {
			bad = i;
			break;
		}
	CHECK(n == (int)strlen(want) && bad < 0, "%s: %d bits, first difference at bit %d", what, n, bad);
}

static void example_info(struct smdsp_v34_info *i0, struct smdsp_v34_info *c, struct smdsp_v34_info *a)
{
	static const uint8_t hi[6] = { 0, 1, 0, 1, 0, 1 }, pe[6] = { 0, 2, 5, 7, 10, 9 };
	unsigned int r;

	memset(i0, 0, sizeof(*i0));
	i0->kind = SMDSP_V34_INFO0;
	i0->i0.rate_2743 = 1;
	i0->i0.rate_3429 = 1;
	i0->i0.low_3000 = 1;
	i0->i0.high_3200 = 1;
	i0->i0.allow_3429 = 1;
	i0->i0.max_rate_diff = 5;
	i0->i0.c1664 = 1;
	i0->i0.tx_clock = 2;
	i0->i0.ack = 1;
	memset(c, 0, sizeof(*c));
	c->kind = SMDSP_V34_INFO1C;
	c->i1c.min_power_red = 3;
	c->i1c.add_power_red = 5;
	c->i1c.md_len = 100;
	for (r = 0; r < 6; r++) {
		c->i1c.rate[r].high_carrier = hi[r];
		c->i1c.rate[r].preemph = pe[r];
		c->i1c.rate[r].max_rate = (uint8_t)(9 + r);
	}
	c->i1c.freq_offset = -137;
	memset(a, 0, sizeof(*a));
	a->kind = SMDSP_V34_INFO1A;
	a->i1a.min_power_red = 2;
	a->i1a.add_power_red = 1;
	a->i1a.md_len = 3;
	a->i1a.high_carrier = 1;
	a->i1a.preemph = 6;
	a->i1a.max_rate = 12;
	a->i1a.rate_a_to_c = 4;
	a->i1a.rate_c_to_a = 5;
	a->i1a.freq_offset = 200;
}

static void test_hand_frames(void)
{
	/* Table 12, bits 12-28, in order: value, width */
	static const unsigned int f0[][2] = {
		{ 1, 1 }, { 0, 1 }, { 1, 1 }, { 1, 1 }, { 0, 1 }, { 0, 1 }, { 1, 1 }, { 1, 1 }, { 0, 1 },
		{ 5, 3 }, { 0, 1 }, { 1, 1 }, { 2, 2 }, { 1, 1 },
	};
	/* Table 13, bits 12-88 */
	static const unsigned int f1c[][2] = {
		{ 3, 3 }, { 5, 3 }, { 100, 7 },
		{ 0, 1 }, { 0, 4 }, { 9, 4 }, { 1, 1 }, { 2, 4 }, { 10, 4 }, { 0, 1 }, { 5, 4 }, { 11, 4 },
		{ 1, 1 }, { 7, 4 }, { 12, 4 }, { 0, 1 }, { 10, 4 }, { 13, 4 }, { 1, 1 }, { 9, 4 }, { 14, 4 },
		{ (unsigned int)(-137) & 0x3ff, 10 },
	};
	/* Table 14, bits 12-49 */
	static const unsigned int f1a[][2] = {
		{ 2, 3 }, { 1, 3 }, { 3, 7 }, { 1, 1 }, { 6, 4 }, { 12, 4 }, { 4, 3 }, { 5, 3 }, { 200, 10 },
	};
	/* the same three frames, worked out on paper (CRC by long division) */
	static const char *const paper[3] = {
		"1111011100101011001101010101110101000001000111111",
		"1111011100101101010010011000001001101000101010101101111100011001011011110010111111011101101101100001110001111",
		"1111011100100101001100000101100011001101000100110011001110001011011111",
	};
	struct smdsp_v34_info in[3], out;
	uint8_t f[SMDSP_V34_INFO_BYTES];
	char want[200];
	int k, n;

	example_info(&in[0], &in[1], &in[2]);
	build_by_hand(f0, (int)SMDSP_ARRAY_SIZE(f0), want);
	CHECK(!strcmp(want, paper[0]), "INFO0 by hand: %s", want);
	build_by_hand(f1c, (int)SMDSP_ARRAY_SIZE(f1c), want);
	CHECK(!strcmp(want, paper[1]), "INFO1c by hand: %s", want);
	build_by_hand(f1a, (int)SMDSP_ARRAY_SIZE(f1a), want);
	CHECK(!strcmp(want, paper[2]), "INFO1a by hand: %s", want);
	for (k = 0; k < 3; k++) {
		n = smdsp_v34_info_pack(&in[k], f);
		CHECK(n == (int)smdsp_v34_info_bits(in[k].kind), "kind %d: %d bits", k, n);
		check_frame_eq(f, n, paper[k], "packed");
		/* the register over the fields and the CRC leaves 0 */
		CHECK(smdsp_v34_info_crc(f, 12, (unsigned int)n - 16) == 0);
		bits_from_str(f, paper[k]);
		CHECK(smdsp_v34_info_unpack(in[k].kind, f, (unsigned int)strlen(paper[k]), &out) == 0);
		CHECK(!memcmp(&out, &in[k], sizeof(out)), "kind %d unpacked differs", k);
		/* without the trailing fill bits too (the Agere modem sends none) */
		CHECK(smdsp_v34_info_unpack(in[k].kind, f, (unsigned int)strlen(paper[k]) - 4, &out) == 0);
		CHECK(smdsp_v34_info_unpack(in[k].kind, f, (unsigned int)strlen(paper[k]) - 5, &out) ==
		      -SMDSP_V34_INFO_ERR_SHORT);
	}
	CHECK(smdsp_v34_info_bits(SMDSP_V34_INFO0) == 49 && smdsp_v34_info_bits(SMDSP_V34_INFO1C) == 109 &&
	      smdsp_v34_info_bits(SMDSP_V34_INFO1A) == 70 && smdsp_v34_info_bits(SMDSP_V34_INFO_KINDS) == 0);
}

/* each field alone: the bits it sets are exactly the table's */
struct layout {
	int kind;
	int first, width;
	void (*set)(struct smdsp_v34_info *in, unsigned int v);
};

#define SETTER(name, expr) \
	static void name(struct smdsp_v34_info *in, unsigned int v) { expr = v; }
SETTER(s_2743, in->i0.rate_2743)
SETTER(s_2800, in->i0.rate_2800)
SETTER(s_3429, in->i0.rate_3429)
SETTER(s_l3000, in->i0.low_3000)
SETTER(s_h3000, in->i0.high_3000)
SETTER(s_l3200, in->i0.low_3200)
SETTER(s_h3200, in->i0.high_3200)
SETTER(s_a3429, in->i0.allow_3429)
SETTER(s_pr, in->i0.power_reduction)
SETTER(s_diff, in->i0.max_rate_diff)
SETTER(s_cme, in->i0.cme)
SETTER(s_1664, in->i0.c1664)
SETTER(s_clk, in->i0.tx_clock)
SETTER(s_ack, in->i0.ack)
SETTER(c_min, in->i1c.min_power_red)
SETTER(c_add, in->i1c.add_power_red)
SETTER(c_md, in->i1c.md_len)
SETTER(c_h0, in->i1c.rate[0].high_carrier)
SETTER(c_p0, in->i1c.rate[0].preemph)
SETTER(c_r0, in->i1c.rate[0].max_rate)
SETTER(c_h1, in->i1c.rate[1].high_carrier)
SETTER(c_p2, in->i1c.rate[2].preemph)
SETTER(c_r3, in->i1c.rate[3].max_rate)
SETTER(c_h4, in->i1c.rate[4].high_carrier)
SETTER(c_r5, in->i1c.rate[5].max_rate)
SETTER(c_fo, in->i1c.freq_offset)
SETTER(a_min, in->i1a.min_power_red)
SETTER(a_add, in->i1a.add_power_red)
SETTER(a_md, in->i1a.md_len)
SETTER(a_h, in->i1a.high_carrier)
SETTER(a_p, in->i1a.preemph)
SETTER(a_r, in->i1a.max_rate)
SETTER(a_ac, in->i1a.rate_a_to_c)
SETTER(a_ca, in->i1a.rate_c_to_a)
SETTER(a_fo, in->i1a.freq_offset)

static const struct layout layouts[] = {
	{ 0, 12, 1, s_2743 }, { 0, 13, 1, s_2800 }, { 0, 14, 1, s_3429 }, { 0, 15, 1, s_l3000 },
	{ 0, 16, 1, s_h3000 }, { 0, 17, 1, s_l3200 }, { 0, 18, 1, s_h3200 }, { 0, 19, 1, s_a3429 },
	{ 0, 20, 1, s_pr }, { 0, 21, 3, s_diff }, { 0, 24, 1, s_cme }, { 0, 25, 1, s_1664 },
	{ 0, 26, 2, s_clk }, { 0, 28, 1, s_ack },
	{ 1, 12, 3, c_min }, { 1, 15, 3, c_add }, { 1, 18, 7, c_md }, { 1, 25, 1, c_h0 }, { 1, 26, 4, c_p0 },
	{ 1, 30, 4, c_r0 }, { 1, 34, 1, c_h1 }, { 1, 44, 4, c_p2 }, { 1, 57, 4, c_r3 }, { 1, 61, 1, c_h4 },
	{ 1, 75, 4, c_r5 }, { 1, 79, 10, c_fo },
	{ 2, 12, 3, a_min }, { 2, 15, 3, a_add }, { 2, 18, 7, a_md }, { 2, 25, 1, a_h }, { 2, 26, 4, a_p },
	{ 2, 30, 4, a_r }, { 2, 34, 3, a_ac }, { 2, 37, 3, a_ca }, { 2, 40, 10, a_fo },
};

static void test_layout(void)
{
	uint8_t zero[SMDSP_V34_INFO_BYTES], f[SMDSP_V34_INFO_BYTES];
	struct smdsp_v34_info in, out;
	unsigned int li, b;

	for (li = 0; li < SMDSP_ARRAY_SIZE(layouts); li++) {
		const struct layout *l = &layouts[li];
		int crc_end = (int)smdsp_v34_info_bits((enum smdsp_v34_info_kind)l->kind) - 4;
		/* 1 in the field's lowest bit, then in its highest (values the tables allow) */
		unsigned int vals[2] = { 1, l->width > 1 ? 1u << (l->width - 1) : 1 };
		int v;

		if (l->set == s_diff)
			vals[1] = 4;
		if (l->set == c_p0 || l->set == c_p2 || l->set == a_p || l->set == c_r0 || l->set == c_r3 ||
		    l->set == c_r5 || l->set == a_r)
			vals[1] = 8;
		if (l->set == a_ac || l->set == a_ca)
			vals[1] = 4;
		if (l->set == c_fo || l->set == a_fo)
			vals[1] = (unsigned int)-512;
		for (v = 0; v < 2; v++) {
			int bad = -1;

			memset(&in, 0, sizeof(in));
			in.kind = (enum smdsp_v34_info_kind)l->kind;
			CHECK(smdsp_v34_info_pack(&in, zero) > 0);
			l->set(&in, vals[v]);
			CHECK(smdsp_v34_info_pack(&in, f) > 0, "layout %u", li);
			for (b = 12; b < (unsigned int)crc_end - 16; b++) {
				int in_field = (int)b >= l->first && (int)b < l->first + l->width;
				int want = in_field ? (int)(((vals[v] & ((1u << l->width) - 1)) >> (b - l->first)) & 1) : 0;

				if (bit(f, b) != want && bad < 0)
					bad = (int)b;
			}
			CHECK(bad < 0, "kind %d field at %d/%d value %u: bit %d wrong", l->kind, l->first, l->width,
			      vals[v], bad);
			CHECK(smdsp_v34_info_unpack(in.kind, f, (unsigned int)crc_end, &out) == 0 &&
			      !memcmp(&in, &out, sizeof(in)), "layout %u round trip", li);
		}
	}
}

static void random_info(struct smdsp_v34_info *in, enum smdsp_v34_info_kind k, uint64_t *rs)
{
	uint64_t r = t_rand64(rs);
	unsigned int i;

	memset(in, 0, sizeof(*in));
	in->kind = k;
	switch (k) {
	case SMDSP_V34_INFO0:
		in->i0.rate_2743 = r & 1;
		in->i0.rate_2800 = (r >> 1) & 1;
		in->i0.rate_3429 = (r >> 2) & 1;
		in->i0.low_3000 = (r >> 3) & 1;
		in->i0.high_3000 = (r >> 4) & 1;
		in->i0.low_3200 = (r >> 5) & 1;
		in->i0.high_3200 = (r >> 6) & 1;
		in->i0.allow_3429 = (r >> 7) & 1;
		in->i0.power_reduction = (r >> 8) & 1;
		in->i0.max_rate_diff = (uint8_t)((r >> 9) % 6);
		in->i0.cme = (r >> 13) & 1;
		in->i0.c1664 = (r >> 14) & 1;
		in->i0.tx_clock = (uint8_t)((r >> 15) & 3);
		in->i0.ack = (r >> 17) & 1;
		break;
	case SMDSP_V34_INFO1C:
		in->i1c.min_power_red = r & 7;
		in->i1c.add_power_red = (r >> 3) & 7;
		in->i1c.md_len = (r >> 6) & 127;
		for (i = 0; i < 6; i++) {
			uint64_t q = t_rand64(rs);

			in->i1c.rate[i].high_carrier = q & 1;
			in->i1c.rate[i].preemph = (uint8_t)((q >> 1) % 11);
			in->i1c.rate[i].max_rate = (uint8_t)((q >> 8) % 15);
		}
		in->i1c.freq_offset = (int16_t)((int)((r >> 20) & 1023) - 512);
		break;
	default:
		in->i1a.min_power_red = r & 7;
		in->i1a.add_power_red = (r >> 3) & 7;
		in->i1a.md_len = (r >> 6) & 127;
		in->i1a.high_carrier = (r >> 13) & 1;
		in->i1a.preemph = (uint8_t)((r >> 14) % 11);
		in->i1a.max_rate = (uint8_t)((r >> 20) % 15);
		in->i1a.rate_a_to_c = (uint8_t)((r >> 25) % 6);
		in->i1a.rate_c_to_a = (uint8_t)((r >> 30) % 6);
		in->i1a.freq_offset = (int16_t)((int)((r >> 40) & 1023) - 512);
		break;
	}
}

static void test_round_trips_and_errors(void)
{
	uint64_t rs = 12345;
	unsigned int k, t, b, ok = 0, crc_caught = 0, singles = 0;
	struct smdsp_v34_info in, out;
	uint8_t f[SMDSP_V34_INFO_BYTES], g[SMDSP_V34_INFO_BYTES];

	for (k = 0; k < SMDSP_V34_INFO_KINDS; k++) {
		for (t = 0; t < 300; t++) {
			int n;

			random_info(&in, (enum smdsp_v34_info_kind)k, &rs);
			n = smdsp_v34_info_pack(&in, f);
			if (n == (int)smdsp_v34_info_bits(in.kind) && !smdsp_v34_info_unpack(in.kind, f, (unsigned int)n, &out) &&
			    !memcmp(&in, &out, sizeof(in)))
				ok++;
			if (t % 10)
				continue;
			/* every single-bit error in the fields or the CRC is caught */
			for (b = 12; b < (unsigned int)n - 4; b++) {
				memcpy(g, f, sizeof(g));
				g[b / 8] ^= (uint8_t)(1u << (b % 8));
				singles++;
				if (smdsp_v34_info_unpack(in.kind, g, (unsigned int)n, &out) == -SMDSP_V34_INFO_ERR_CRC)
					crc_caught++;
			}
			/* and in the sync */
			for (b = 4; b < 12; b++) {
				memcpy(g, f, sizeof(g));
				g[b / 8] ^= (uint8_t)(1u << (b % 8));
				CHECK(smdsp_v34_info_unpack(in.kind, g, (unsigned int)n, &out) == -SMDSP_V34_INFO_ERR_SYNC);
			}
			/* fill bits are not judged */
			memcpy(g, f, sizeof(g));
			g[0] &= 0xf0;
			CHECK(smdsp_v34_info_unpack(in.kind, g, (unsigned int)n, &out) == 0);
		}
	}
	CHECK(ok == 3 * 300, "%u of 900 random frames round-tripped", ok);
	CHECK(crc_caught == singles && singles > 1000, "%u of %u single-bit errors caught", crc_caught, singles);

	/* values the tables do not allow: pack refuses them; with a good CRC unpack flags them */
	example_info(&in, &out, &out);
	in.i0.max_rate_diff = 6;
	CHECK(smdsp_v34_info_pack(&in, f) == -EINVAL);
	in.i0.max_rate_diff = 0;
	in.i0.tx_clock = 4;
	CHECK(smdsp_v34_info_pack(&in, f) == -EINVAL);
	example_info(&out, &in, &out);
	in.i1c.rate[3].preemph = 11;
	CHECK(smdsp_v34_info_pack(&in, f) == -EINVAL);
	in.i1c.rate[3].preemph = 0;
	in.i1c.rate[5].max_rate = 15;
	CHECK(smdsp_v34_info_pack(&in, f) == -EINVAL);
	in.i1c.rate[5].max_rate = 0;
	in.i1c.freq_offset = 512;
	CHECK(smdsp_v34_info_pack(&in, f) == -EINVAL);
	example_info(&out, &out, &in);
	in.i1a.rate_c_to_a = 6;
	CHECK(smdsp_v34_info_pack(&in, f) == -EINVAL);
	in.kind = SMDSP_V34_INFO_KINDS;
	CHECK(smdsp_v34_info_pack(&in, f) == -EINVAL);
	CHECK(smdsp_v34_info_unpack(SMDSP_V34_INFO_KINDS, f, 109, &out) == -SMDSP_V34_INFO_ERR_KIND);
	/* INFO1a with symbol rate 7 (bits 34:36 = 111) and a CRC recomputed over it */
	example_info(&out, &out, &in);
	smdsp_v34_info_pack(&in, f);
	f[34 / 8] |= 1u << (34 % 8);
	f[35 / 8] |= 1u << (35 % 8);
	f[36 / 8] |= 1u << (36 % 8);
	{
		uint16_t crc = smdsp_v34_info_crc(f, 12, 50 - 12);

		for (b = 0; b < 16; b++) {
			f[(50 + b) / 8] &= (uint8_t)~(1u << ((50 + b) % 8));
			f[(50 + b) / 8] |= (uint8_t)(((crc >> (15 - b)) & 1) << ((50 + b) % 8));
		}
	}
	CHECK(smdsp_v34_info_unpack(SMDSP_V34_INFO1A, f, 70, &out) == -SMDSP_V34_INFO_ERR_RANGE &&
	      out.i1a.rate_a_to_c == 7);
}

/* ---------- signals ---------- */

struct sink {
	struct smdsp_v34_info_event ev[64];
	int n;
};

static void drain(struct smdsp_v34_info_rx *rx, struct sink *k)
{
	struct smdsp_v34_info_event e;

	while (smdsp_v34_info_rx_get(rx, &e))
		if (k->n < 64)
			k->ev[k->n++] = e;
}

static int count(const struct sink *k, enum smdsp_v34_info_ev_type t)
{
	int i, n = 0;

	for (i = 0; i < k->n; i++)
		n += k->ev[i].type == t;
	return n;
}

struct script {
	/* what the transmitter under test does, in 160-sample blocks */
	struct smdsp_v34_info info0, info1;
	uint32_t rev_sample;	/* the sample at which the reversed symbol began */
	int step;
	uint32_t wait;
};

/*
 * INFO0 then the tone; after 60 symbols one reversal; 60 symbols later
 * silence; 50 symbols later INFO1 from silence, then silence.
 */
static void run_script(struct smdsp_v34_info_tx *tx, struct script *sc, int16_t *out, uint32_t t0)
{
	uint8_t f[SMDSP_V34_INFO_BYTES];
	int i;

	for (i = 0; i < BLK; i++) {
		uint32_t syms = smdsp_v34_info_tx_symbols(tx);

		switch (sc->step) {
		case 0:
			smdsp_v34_info_tx_send(tx, f, (unsigned int)smdsp_v34_info_pack(&sc->info0, f));
			smdsp_v34_info_tx_tone(tx, true);
			sc->step++;
			break;
		case 1:
			if (!smdsp_v34_info_tx_busy(tx)) {
				sc->wait = syms + 60;
				sc->step++;
			}
			break;
		case 2:
			if (syms >= sc->wait) {
				smdsp_v34_info_tx_reverse(tx);
				sc->step++;
			}
			break;
		case 3:
			if (!smdsp_v34_info_tx_busy(tx)) {
				/* the reversed symbol began at this sample (process below runs after) */
				sc->rev_sample = t0 + (uint32_t)i;
				sc->wait = syms + 60;
				sc->step++;
			}
			break;
		case 4:
			if (syms >= sc->wait) {
				smdsp_v34_info_tx_tone(tx, false);
				sc->wait = syms + 50;
				sc->step++;
			}
			break;
		case 5:
			if (syms >= sc->wait) {
				smdsp_v34_info_tx_send(tx, f, (unsigned int)smdsp_v34_info_pack(&sc->info1, f));
				sc->step++;
			}
			break;
		default:
			break;
		}
		smdsp_v34_info_tx_process(tx, out + i, 1);
	}
}

struct link_result {
	int frames_ok, frames_wrong, tone_on, tone_off, reversals;
	long rev_delay;
	struct smdsp_v34_info_rx_stats st;
};

/*
 * Our transmitter (role calling) through the line to a receiver at the far
 * end, which sends its own INFO0 and tone meanwhile (its echo comes back
 * into it at cfg->echo_db).
 */
static void link(bool calling, const struct line_cfg *cfg, uint64_t seed, struct link_result *res)
{
	struct smdsp_v34_info_tx *tx = smdsp_v34_info_tx_create(calling, -100);
	struct smdsp_v34_info_tx *far_tx = smdsp_v34_info_tx_create(!calling, -100);
	struct smdsp_v34_info_rx *rx = smdsp_v34_info_rx_create(!calling, 0);
	struct line *l = line_create(cfg);
	struct script sc, far;
	struct sink k;
	uint64_t rs = seed;
	int16_t a_tx[BLK], a_rx[BLK], b_tx[BLK], b_rx[BLK];
	uint32_t t;
	int i;

	memset(&sc, 0, sizeof(sc));
	memset(&far, 0, sizeof(far));
	memset(&k, 0, sizeof(k));
	memset(res, 0, sizeof(*res));
	random_info(&sc.info0, SMDSP_V34_INFO0, &rs);
	random_info(&sc.info1, calling ? SMDSP_V34_INFO1C : SMDSP_V34_INFO1A, &rs);
	random_info(&far.info0, SMDSP_V34_INFO0, &rs);
	random_info(&far.info1, calling ? SMDSP_V34_INFO1A : SMDSP_V34_INFO1C, &rs);
	far.step = 0;
	for (t = 0; t < 8000 * 13 / 10; t += BLK) {
		run_script(tx, &sc, a_tx, t);
		run_script(far_tx, &far, b_tx, t);
		line_process(l, a_tx, a_rx, b_tx, b_rx, BLK);
		smdsp_v34_info_rx_process(rx, b_rx, BLK);
		drain(rx, &k);
	}
	for (i = 0; i < k.n; i++) {
		const struct smdsp_v34_info_event *e = &k.ev[i];

		if (e->type == SMDSP_V34_EV_FRAME) {
			const struct smdsp_v34_info *want = e->info.kind == SMDSP_V34_INFO0 ? &sc.info0 : &sc.info1;

			if (!memcmp(&e->info, want, sizeof(*want)))
				res->frames_ok++;
			else
				res->frames_wrong++;
		} else if (e->type == SMDSP_V34_EV_REVERSAL) {
			res->reversals++;
			res->rev_delay = (long)e->sample - (long)sc.rev_sample;
		}
	}
	res->tone_on = count(&k, SMDSP_V34_EV_TONE_ON);
	res->tone_off = count(&k, SMDSP_V34_EV_TONE_OFF);
	smdsp_v34_info_rx_get_stats(rx, &res->st);
	line_free(l);
	smdsp_v34_info_rx_free(rx);
	smdsp_v34_info_tx_free(tx);
	smdsp_v34_info_tx_free(far_tx);
}

static void test_links(void)
{
	static const struct {
		double loss, noise, echo, ppm;
		int delay;
	} cases[] = {
		{ 0, -200, -200, 0, 0 },
		{ 20, -55, -200, 0, 40 },
		{ 10, -50, -6, 100, 200 },	/* own signal 4 dB above the far one */
		{ 30, -60, -10, -100, 1000 },	/* -40 dBm0 received: near the threshold */
		{ 15, -45, -3, 300, 17 },
		{ 6, -35, -200, -250, 333 },
	};
	unsigned int c;
	int role;

	for (role = 0; role < 2; role++) {
		for (c = 0; c < SMDSP_ARRAY_SIZE(cases); c++) {
			struct line_cfg cfg = { .loss_db = cases[c].loss, .noise_dbm0 = cases[c].noise,
						.echo_db = cases[c].echo, .echo_delay = 24, .delay = cases[c].delay,
						.ppm = cases[c].ppm, .seed = 77 + c };
			struct link_result r;
			/*
			 * the reversal's delay: the transmit pulse's centre (3 symbols, 40
			 * samples), the matched filter's (tap 39), the line's 16 and its delay
			 */
			long want = 40 + 39 + 16 + cases[c].delay;

			link(role, &cfg, 1000 + c, &r);
			printf("link %s loss %.0f noise %.0f echo %.0f ppm %.0f delay %d: frames %d ok %d wrong, "
			       "tone on %d off %d, reversals %d at +%ld samples (%ld expected); bad crc %u trunc %u\n",
			       role ? "caller->answerer" : "answerer->caller", cases[c].loss, cases[c].noise,
			       cases[c].echo, cases[c].ppm, cases[c].delay, r.frames_ok, r.frames_wrong, r.tone_on,
			       r.tone_off, r.reversals, r.rev_delay, want, r.st.bad_crc, r.st.truncated);
			CHECK(r.frames_ok == 2 && r.frames_wrong == 0, "case %u role %d", c, role);
			CHECK(r.tone_on == 1 && r.tone_off == 1 && r.reversals == 1, "case %u role %d", c, role);
			CHECK(labs(r.rev_delay - want) <= 3, "case %u role %d: reversal %ld samples late", c, role,
			      r.rev_delay);
			CHECK(r.st.bad_crc == 0 && r.st.truncated == 0 && r.st.bad_range == 0 && r.st.lost_events == 0);
		}
	}
}

/* frames against noise: every frame through above an SNR, never a wrong one */
static void test_noise_sweep(void)
{
	static const double noise[] = { -40, -30, -25, -20, -15, -10 };
	unsigned int c;
	int role;

	for (role = 0; role < 2; role++) {
		for (c = 0; c < SMDSP_ARRAY_SIZE(noise); c++) {
			struct smdsp_v34_info_tx *tx = smdsp_v34_info_tx_create(role, -200);
			struct smdsp_v34_info_rx *rx = smdsp_v34_info_rx_create(!role, SMDSP_V34_INFO_MASK(SMDSP_V34_INFO0));
			struct line_cfg cfg = { .noise_dbm0 = noise[c], .echo_db = -200, .ppm = 50, .seed = 5 + c };
			struct line *l = line_create(&cfg);
			struct smdsp_v34_info sent[40], dummy;
			struct smdsp_v34_info_rx_stats st;
			struct smdsp_v34_info_event e;
			int16_t a[BLK], b[BLK], zero[BLK], junk[BLK];
			uint64_t rs = 99 + c;
			int nsent = 0, got = 0, wrong = 0, gap = 0, i;
			uint8_t f[SMDSP_V34_INFO_BYTES];
			double snr, esn0, theory;

			memset(zero, 0, sizeof(zero));
			smdsp_v34_info_tx_tone(tx, true);
			while (nsent < 40 || smdsp_v34_info_tx_busy(tx) || gap < 30) {
				if (!smdsp_v34_info_tx_busy(tx) && nsent < 40 && ++gap > 2) {
					random_info(&sent[nsent], SMDSP_V34_INFO0, &rs);
					smdsp_v34_info_tx_send(tx, f, (unsigned int)smdsp_v34_info_pack(&sent[nsent], f));
					nsent++;
					gap = 0;
				} else if (!smdsp_v34_info_tx_busy(tx) && nsent == 40) {
					gap++;
				}
				smdsp_v34_info_tx_process(tx, a, BLK);
				line_process(l, a, junk, zero, b, BLK);
				smdsp_v34_info_rx_process(rx, b, BLK);
				while (smdsp_v34_info_rx_get(rx, &e)) {
					if (e.type != SMDSP_V34_EV_FRAME)
						continue;
					for (i = 0; i < nsent; i++)
						if (!memcmp(&e.info, &sent[i], sizeof(dummy)))
							break;
					if (i < nsent)
						got++;
					else
						wrong++;
				}
			}
			smdsp_v34_info_rx_get_stats(rx, &st);
			/*
			 * The signal is -20 dBm0, the noise spread over 0-4 kHz: the matched
			 * filter sees Es/N0 = SNR * 4000/600; DPSK's bit error rate is
			 * exp(-Es/N0)/2 and a frame needs its 45 bits up to the CRC right.
			 */
			snr = -20 - noise[c];
			esn0 = pow(10.0, snr / 10.0) * 4000.0 / 600.0;
			theory = 40.0 * pow(1.0 - 0.5 * exp(-esn0), 45);
			printf("noise %s SNR %.0f dB (Es/N0 %.1f dB): %d of 40 INFO0 frames (theory %.1f), %d wrong, "
			       "bad crc %u, truncated %u\n", role ? "1200 Hz" : "2400 Hz", snr, 10 * log10(esn0), got,
			       theory, wrong, st.bad_crc, st.truncated);
			CHECK(wrong == 0);
			if (snr >= 0)
				CHECK(got == 40, "SNR %.0f dB: %d of 40", snr, got);
			/* what is counted lost was lost: no phantom errors */
			CHECK(got + (int)st.bad_crc + (int)st.truncated <= 40);
			line_free(l);
			smdsp_v34_info_rx_free(rx);
			smdsp_v34_info_tx_free(tx);
		}
	}
}

static void test_levels(void)
{
	static int16_t buf[16000];
	uint8_t f[SMDSP_V34_INFO_BYTES];
	struct smdsp_v34_info in;
	uint64_t rs = 3;
	int role, i;

	for (role = 0; role < 2; role++) {
		struct smdsp_v34_info_tx *tx = smdsp_v34_info_tx_create(role, -120);
		double tone, data;

		smdsp_v34_info_tx_tone(tx, true);
		smdsp_v34_info_tx_process(tx, buf, 16000);
		tone = t_power_dbm0(buf + 8000, 8000);
		smdsp_v34_info_tx_reset(tx);
		for (i = 0; i < 16000; i += 160) {
			if (!smdsp_v34_info_tx_busy(tx)) {
				random_info(&in, SMDSP_V34_INFO1C, &rs);
				smdsp_v34_info_tx_send(tx, f, (unsigned int)smdsp_v34_info_pack(&in, f));
				smdsp_v34_info_tx_tone(tx, true);
			}
			smdsp_v34_info_tx_process(tx, buf + i, 160);
		}
		data = t_power_dbm0(buf + 2000, 14000);
		printf("level %s: tone %.2f dBm0, DPSK %.2f dBm0 (set -12.0)\n", role ? "1200 Hz" : "2400 Hz", tone,
		       data);
		CHECK(fabs(tone + 12.0) < 0.2 && fabs(data + 12.0) < 0.5);
		smdsp_v34_info_tx_free(tx);
	}
}

static struct smdsp_v34_info_rx_stats feed(struct smdsp_v34_info_rx *rx, const int16_t *x, int n, struct sink *k)
{
	struct smdsp_v34_info_rx_stats st;
	int i;

	for (i = 0; i < n; i += BLK) {
		smdsp_v34_info_rx_process(rx, x + i, (unsigned int)(n - i < BLK ? n - i : BLK));
		drain(rx, k);
	}
	smdsp_v34_info_rx_get_stats(rx, &st);
	return st;
}

/* ---------- an independent modulator ---------- */

static double rrc(double t, double b)
{
	if (fabs(t) < 1e-9)
		return 1.0 - b + 4.0 * b / M_PI;
	if (fabs(fabs(t) - 1.0 / (4.0 * b)) < 1e-9)
		return b / sqrt(2.0) * ((1 + 2 / M_PI) * sin(M_PI / (4 * b)) + (1 - 2 / M_PI) * cos(M_PI / (4 * b)));
	return (sin(M_PI * t * (1 - b)) + 4 * b * t * cos(M_PI * t * (1 + b))) / (M_PI * t * (1 - (4 * b * t) * (4 * b * t)));
}

/*
 * DPSK written here from the definition, in floating point, with another
 * pulse (beta 0.5, +-4 symbols), a carrier off by df Hz and a random phase,
 * a symbol clock starting at a fraction of a sample: frames from silence,
 * each a reference symbol and its bits, 40 ms apart.
 */
static int ref_signal(double fc, double df, uint64_t *rs, const struct smdsp_v34_info *in, int nframes,
		      double guard_db, int16_t *x, int len)
{
	static double sym[4000];
	double t0 = (double)(t_rand64(rs) % 1000) / 1000.0, ph = (double)(t_rand64(rs) % 6283) / 1000.0;
	double amp = 32767.0 * pow(10.0, (-15.0 - 3.14) / 20.0), tsym = 8000.0 / 600.0;
	int nsym = 0, k, i, n;
	uint8_t f[SMDSP_V34_INFO_BYTES];

	for (k = 0; k < nframes; k++) {
		int nb = smdsp_v34_info_pack(&in[k], f), b;
		double cur = 1.0;

		for (i = 0; i < 24; i++)
			sym[nsym++] = 0;
		sym[nsym++] = cur;
		for (b = 0; b < nb; b++) {
			if (bit(f, (unsigned int)b))
				cur = -cur;
			sym[nsym++] = cur;
		}
	}
	for (i = 0; i < 24; i++)
		sym[nsym++] = 0;
	n = (int)(nsym * tsym);
	if (n > len)
		n = len;
	for (i = 0; i < n; i++) {
		double t = i / tsym - t0, v = 0;
		int c = (int)floor(t);

		for (k = c - 4; k <= c + 4; k++)
			if (k >= 0 && k < nsym && sym[k] != 0)
				v += sym[k] * rrc(t - k, 0.5);
		v = amp * v * cos(2 * M_PI * (fc + df) * i / 8000.0 + ph);
		if (guard_db > -100 && v != 0)
			v += amp * pow(10.0, guard_db / 20.0) * sin(2 * M_PI * 1800.0 * i / 8000.0);
		x[i] = t_sat16(v);
	}
	return n;
}

static void test_reference_modulator(void)
{
	static const double offsets[] = { -10, -5, 0, 5, 10 };
	static int16_t x[8000 * 6];
	struct smdsp_v34_info in[8];
	unsigned int o;
	uint64_t rs = 2024;
	int role, k;

	for (role = 0; role < 2; role++) {
		for (o = 0; o <= SMDSP_ARRAY_SIZE(offsets); o++) {
			/* the last run: the answer modem's signal with a guard tone at 1800 Hz, 5 dB down */
			bool guard = o == SMDSP_ARRAY_SIZE(offsets);
			double df = guard ? 0 : offsets[o];
			struct smdsp_v34_info_rx *rx;
			struct smdsp_v34_info_rx_stats st;
			struct sink sk;
			int n, ok = 0;

			if (guard && role)
				continue;
			rx = smdsp_v34_info_rx_create(!role, 0);
			for (k = 0; k < 8; k++)
				random_info(&in[k], k % 2 ? (role ? SMDSP_V34_INFO1C : SMDSP_V34_INFO1A) : SMDSP_V34_INFO0,
					    &rs);
			n = ref_signal(role ? 1200.0 : 2400.0, df, &rs, in, 8, guard ? -5.0 : -200.0, x,
				       (int)SMDSP_ARRAY_SIZE(x));
			memset(&sk, 0, sizeof(sk));
			st = feed(rx, x, n, &sk);
			for (k = 0; k < sk.n; k++)
				if (sk.ev[k].type == SMDSP_V34_EV_FRAME && ok < 8 &&
				    !memcmp(&sk.ev[k].info, &in[ok], sizeof(in[0])))
					ok++;
			printf("reference DPSK %s%+.0f Hz%s: %d of 8 frames, bad crc %u\n", role ? "1200" : "2400", df,
			       guard ? " with an 1800 Hz guard tone" : "", ok, st.bad_crc);
			CHECK(ok == 8 && count(&sk, SMDSP_V34_EV_FRAME) == 8 && st.bad_crc == 0,
			      "offset %.0f Hz role %d", df, role);
			smdsp_v34_info_rx_free(rx);
		}
	}
}

/* ---------- hostile input ---------- */

/* a frame (nbits of f) from silence, then silence; cut: silence after that many samples */
static int make_signal(bool calling, const uint8_t *f, unsigned int nbits, int16_t *x, int len, int cut)
{
	struct smdsp_v34_info_tx *tx = smdsp_v34_info_tx_create(calling, -150);

	memset(x, 0, (size_t)len * sizeof(*x));
	smdsp_v34_info_tx_process(tx, x, 800);
	smdsp_v34_info_tx_send(tx, f, nbits);
	smdsp_v34_info_tx_process(tx, x + 800, (unsigned int)(len - 800));
	if (cut > 0)
		memset(x + cut, 0, (size_t)(len - cut) * sizeof(*x));
	smdsp_v34_info_tx_free(tx);
	return len;
}

static void test_hostile(void)
{
	static int16_t x[8000 * 20];
	struct smdsp_v34_info in, c, a;
	struct smdsp_v34_info_rx_stats st;
	uint8_t f[SMDSP_V34_INFO_BYTES];
	struct sink k;
	uint64_t rs = 42;
	int i, n, role;

	example_info(&in, &c, &a);
	for (role = 0; role < 2; role++) {
		struct smdsp_v34_info_rx *rx = smdsp_v34_info_rx_create(!role, 0);
		double lv;

		/* white noise, loud and quiet, 20 s each: nothing comes out of it */
		for (lv = -15; lv >= -45; lv -= 30) {
			double sd = 32767.0 * pow(10.0, (lv - 3.14) / 20.0) / sqrt(2.0) * sqrt(2.0);

			for (i = 0; i < (int)SMDSP_ARRAY_SIZE(x); i++)
				x[i] = t_sat16(sd * t_gauss(&rs));
			smdsp_v34_info_rx_reset(rx);
			memset(&k, 0, sizeof(k));
			st = feed(rx, x, (int)SMDSP_ARRAY_SIZE(x), &k);
			printf("noise %.0f dBm0, 20 s: %d events, bad crc %u, truncated %u\n", lv, k.n, st.bad_crc,
			       st.truncated);
			CHECK(st.frames[0] + st.frames[1] + st.frames[2] == 0 && st.tones == 0 && st.bad_crc == 0);
		}
		/* a good frame first, to show the receiver hears this signal */
		n = make_signal(role, f, (unsigned int)smdsp_v34_info_pack(&in, f), x, 4000, 0);
		smdsp_v34_info_rx_reset(rx);
		memset(&k, 0, sizeof(k));
		st = feed(rx, x, n, &k);
		CHECK(st.frames[0] == 1 && k.n == 1 && !memcmp(&k.ev[0].info, &in, sizeof(in)));
		/* a CRC bit wrong: refused, counted as a CRC error */
		smdsp_v34_info_pack(&in, f);
		f[35 / 8] ^= 1u << (35 % 8);
		make_signal(role, f, 49, x, 4000, 0);
		smdsp_v34_info_rx_reset(rx);
		memset(&k, 0, sizeof(k));
		st = feed(rx, x, 4000, &k);
		CHECK(st.frames[0] == 0 && st.bad_crc == 1 && k.n == 0, "wrong CRC: bad_crc %u", st.bad_crc);
		/* a field bit wrong (the CRC no longer checks) */
		smdsp_v34_info_pack(&in, f);
		f[20 / 8] ^= 1u << (20 % 8);
		make_signal(role, f, 49, x, 4000, 0);
		smdsp_v34_info_rx_reset(rx);
		st = feed(rx, x, 4000, &k);
		CHECK(st.frames[0] == 0 && st.bad_crc == 1);
		/* cut after 30 of 49 bits: truncated */
		smdsp_v34_info_pack(&in, f);
		make_signal(role, f, 49, x, 4000, 800 + 30 * 40 / 3 + 40);
		smdsp_v34_info_rx_reset(rx);
		memset(&k, 0, sizeof(k));
		st = feed(rx, x, 4000, &k);
		CHECK(st.frames[0] == 0 && st.truncated == 1 && st.bad_crc == 0 && k.n == 0,
		      "cut: truncated %u bad_crc %u", st.truncated, st.bad_crc);
		/* INFO1a whose symbol rate field is 7, with a good CRC: refused, counted */
		{
			struct smdsp_v34_info_rx *rx1 = smdsp_v34_info_rx_create(!role,
									       SMDSP_V34_INFO_MASK(SMDSP_V34_INFO1A));
			uint16_t crc;
			unsigned int b;

			smdsp_v34_info_pack(&a, f);
			f[37 / 8] |= 1u << (37 % 8);
			f[38 / 8] |= 1u << (38 % 8);
			f[39 / 8] |= 1u << (39 % 8);
			crc = smdsp_v34_info_crc(f, 12, 38);
			for (b = 0; b < 16; b++) {
				f[(50 + b) / 8] &= (uint8_t)~(1u << ((50 + b) % 8));
				f[(50 + b) / 8] |= (uint8_t)(((crc >> (15 - b)) & 1) << ((50 + b) % 8));
			}
			make_signal(role, f, 70, x, 4000, 0);
			memset(&k, 0, sizeof(k));
			st = feed(rx1, x, 4000, &k);
			CHECK(st.frames[2] == 0 && st.bad_range == 1 && k.n == 0, "range: %u", st.bad_range);
			/* a kind not looked for (INFO1c to a receiver of INFO1a only) is not delivered */
			make_signal(role, f, (unsigned int)smdsp_v34_info_pack(&c, f), x, 4000, 0);
			smdsp_v34_info_rx_reset(rx1);
			memset(&k, 0, sizeof(k));
			st = feed(rx1, x, 4000, &k);
			CHECK(count(&k, SMDSP_V34_EV_FRAME) == 0);
			smdsp_v34_info_rx_free(rx1);
		}
		/* garbage: full-scale random samples, a square wave, DC, odd block sizes */
		for (i = 0; i < 80000; i++)
			x[i] = (int16_t)t_rand64(&rs);
		for (i = 80000; i < 120000; i++)
			x[i] = (i / 7) & 1 ? 32767 : -32768;
		for (i = 120000; i < 160000; i++)
			x[i] = -32768;
		smdsp_v34_info_rx_reset(rx);
		memset(&k, 0, sizeof(k));
		smdsp_v34_info_rx_process(rx, x, 0);
		smdsp_v34_info_rx_process(rx, x, 1);
		for (i = 1; i < 160000 - 1023; i += 1023)
			smdsp_v34_info_rx_process(rx, x + i, 1023);
		drain(rx, &k);
		smdsp_v34_info_rx_get_stats(rx, &st);
		CHECK(count(&k, SMDSP_V34_EV_FRAME) == 0 && st.frames[0] + st.frames[1] + st.frames[2] == 0);
		smdsp_v34_info_rx_free(rx);
	}
}

/* tones: on, reversals, off; a tone off frequency; levels around the threshold */
static void test_tones(void)
{
	static int16_t x[8000 * 3];
	struct smdsp_v34_info_rx_stats st;
	struct sink k;
	int role, i, r;

	for (role = 0; role < 2; role++) {
		struct smdsp_v34_info_tx *tx = smdsp_v34_info_tx_create(role, -100);
		struct smdsp_v34_info_rx *rx = smdsp_v34_info_rx_create(!role, 0);
		double fc = role ? 1200.0 : 2400.0, df;
		uint32_t rev_at[5];

		CHECK(smdsp_v34_info_tx_reverse(tx) == -EINVAL);
		smdsp_v34_info_tx_tone(tx, true);
		/* five reversals 100 ms apart, in one-sample steps to know when each began */
		for (i = 0, r = 0; i < 16000; i++) {
			if (r < 5 && i == 4000 + 800 * r) {
				smdsp_v34_info_tx_reverse(tx);
			} else if (r < 5 && i > 4000 + 800 * r && !smdsp_v34_info_tx_busy(tx)) {
				/* the last sample processed began the reversed symbol */
				rev_at[r++] = (uint32_t)i - 1;
			}
			smdsp_v34_info_tx_process(tx, x + i, 1);
		}
		smdsp_v34_info_tx_tone(tx, false);
		smdsp_v34_info_tx_process(tx, x + 16000, 8000);
		memset(&k, 0, sizeof(k));
		st = feed(rx, x, 24000, &k);
		CHECK(r == 5 && st.tones == 1 && st.reversals == 5 && count(&k, SMDSP_V34_EV_TONE_OFF) == 1,
		      "tone %s: %u tones %u reversals", role ? "B" : "A", st.tones, st.reversals);
		for (i = 0, r = 0; i < k.n; i++)
			if (k.ev[i].type == SMDSP_V34_EV_REVERSAL && r < 5) {
				/* event samples count from 1 */
				long d = (long)k.ev[i].sample - 1 - (long)rev_at[r];

				CHECK(labs(d - (40 + 39)) <= 3, "reversal %d at +%ld samples", r, d);
				r++;
			}
		CHECK(!smdsp_v34_info_rx_tone(rx) && !smdsp_v34_info_rx_carrier(rx));
		/* pure sines: on frequency and 5 Hz off they are the tone; 20 Hz off (V.21's 1180 Hz) not */
		for (df = -20; df <= 20; df += 5) {
			int want = fabs(df) <= 5;

			for (i = 0; i < 16000; i++)
				x[i] = (int16_t)(3000 * sin(2 * M_PI * (fc + df) * i / 8000.0));
			smdsp_v34_info_rx_reset(rx);
			memset(&k, 0, sizeof(k));
			st = feed(rx, x, 16000, &k);
			if (fabs(df) == 10 || fabs(df) == 15)
				continue;	/* between the two: either */
			CHECK((st.tones == 1) == want && st.reversals == 0, "%.0f Hz: tones %u", fc + df, st.tones);
		}
		/* the threshold: -40 dBm0 heard, -50 dBm0 not */
		for (i = -1; i <= 1; i += 2) {
			int lvl = i < 0 ? -400 : -500;
			struct smdsp_v34_info_tx *t2 = smdsp_v34_info_tx_create(role, lvl);

			smdsp_v34_info_tx_tone(t2, true);
			smdsp_v34_info_tx_process(t2, x, 8000);
			smdsp_v34_info_rx_reset(rx);
			memset(&k, 0, sizeof(k));
			st = feed(rx, x, 8000, &k);
			CHECK((st.tones == 1) == (lvl == -400) && smdsp_v34_info_rx_carrier(rx) == (lvl == -400),
			      "tone at %d: %u", lvl, st.tones);
			smdsp_v34_info_tx_free(t2);
		}
		smdsp_v34_info_rx_free(rx);
		smdsp_v34_info_tx_free(tx);
	}
}

/* the transmitter's queue: two frames back to back, a third refused; a bad length refused */
static void test_tx_queue(void)
{
	struct smdsp_v34_info_tx *tx = smdsp_v34_info_tx_create(true, -100);
	struct smdsp_v34_info_rx *rx = smdsp_v34_info_rx_create(false, 0);
	static int16_t x[8000];
	struct smdsp_v34_info in[2], c;
	uint8_t f[SMDSP_V34_INFO_BYTES];
	struct sink k;

	example_info(&in[0], &c, &c);
	in[1] = in[0];
	in[1].i0.ack = 0;
	CHECK(smdsp_v34_info_tx_send(tx, f, 0) == -EINVAL && smdsp_v34_info_tx_send(tx, f, 110) == -EINVAL);
	CHECK(smdsp_v34_info_tx_send(tx, f, (unsigned int)smdsp_v34_info_pack(&in[0], f)) == 0);
	CHECK(smdsp_v34_info_tx_send(tx, f, (unsigned int)smdsp_v34_info_pack(&in[1], f)) == 0);
	CHECK(smdsp_v34_info_tx_send(tx, f, 49) == -EBUSY);
	smdsp_v34_info_tx_process(tx, x, 8000);
	CHECK(!smdsp_v34_info_tx_busy(tx));
	memset(&k, 0, sizeof(k));
	feed(rx, x, 8000, &k);
	CHECK(k.n == 2 && !memcmp(&k.ev[0].info, &in[0], sizeof(in[0])) &&
	      !memcmp(&k.ev[1].info, &in[1], sizeof(in[1])), "%d events", k.n);
	/* 98 bits + the reference symbol: the second frame ends 49 symbols after the first */
	CHECK(k.n == 2 && labs((long)(k.ev[1].sample - k.ev[0].sample) - 49 * 40 / 3) <= 2);
	smdsp_v34_info_tx_free(tx);
	smdsp_v34_info_rx_free(rx);
}

int main(void)
{
	test_hand_frames();
	test_layout();
	test_round_trips_and_errors();
	test_levels();
	test_tx_queue();
	test_tones();
	test_links();
	test_reference_modulator();
	test_noise_sweep();
	test_hostile();
	return t_report("test_v34_info");
}
