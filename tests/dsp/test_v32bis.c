/*
 * V.32bis: the transmitter against the recommendation's definitions and
 * against SpanDSP's V.17 transmitter where the two share the mapping, and
 * our receiver after our transmitter over the test line.
 *
 * - Rate words (V.32's rate signals as V.32bis gives their bits): B0-B3 0000 in R, 1111 in E;
 *   B4, B7, B11, B15 set; B8 for the trellis code; B5 4800, B6 9600, B9 7200,
 *   B10 12000, B12 14400; every set of rates back from its word; words
 *   turned by a whole number of symbols or with a sync bit wrong are not
 *   rate words.
 * - Scramblers: GPC 1 + x^-18 + x^-23 and GPA 1 + x^-5 + x^-23 against the
 *   recurrence out[n] = in[n] ^ out[n-18 or -5] ^ out[n-23] on random
 *   bits, and the descramblers back, synchronising from any state in 23
 *   bits.
 * - The start-up signals' symbols (AA, CC, AC, CA, S, S-bar: A, B, C, D of
 *   V.32 at (-6,-2), (2,-6), (6,2), (-2,6)), TRN (its first 256 symbols A
 *   and C, then all four), R and E decoded by the test's own differential
 *   decoder (V.32's table: 00 +90, 01 0, 10 +180, 11 +270 degrees) and
 *   descrambler; the tones of AA (1800 Hz) and AC (600 and 3000 Hz) in the
 *   passband signal.
 * - Data at 7200 to 14400 bit/s: the caller's transmitter (GPC, V.17's
 *   scrambler) makes SpanDSP 0.0.6's V.17 transmitter's symbols from the
 *   same bits and the same scrambler, differential and encoder state
 *   (SpanDSP's symbols tapped from its pulse shaper as in test_viterbi).
 * - Our receiver after our transmitter, both roles, each rate: S, S-bar,
 *   TRN, R, E and B1, then a 2^23-1 PRBS intact: on a clean line, with 10
 *   and 20 dB of loss, noise, +-100 ppm of clock and 40 ms of delay; the
 *   rate word it reports is the one sent.
 * - V.32's uncoded 9600 bit/s (B8 = 0): the words with and without B8, two
 *   ends' sets in common (uncoded if either is); the transmitter's points
 *   against Table 1/V.32 (the quadrant from the last one by Q1 Q2) and
 *   Table 3/V.32's 16 uncoded points (Y1 Y2 Q3 Q4), both written out here as
 *   printed, for every input after every quadrant; our receiver after it
 *   over the lines above, intact, and told uncoded by E.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "refs.h"
#include <spandsp/private/logging.h>
#include <spandsp/private/v17tx.h>
#include <smdsp/v32bis.h>
/* white box: the transmitter's symbols (smdsp_v32bis_tx_symbol()) and its state */
#include <smdsp/private/v32bis.h>
#include <smdsp/private/v17.h>
#include "check.h"
#include "tutil.h"
#include "v32ep.h"

static const int A[4][2] = { { -6, -2 }, { 2, -6 }, { 6, 2 }, { -2, 6 } };	/* V.32 A, B, C, D */
static int quick;

static void rate_words(void)
{
	/* the bit of each rate, from the table */
	static const struct { unsigned int set; int bit; } t[5] = {
		{ SMDSP_V32BIS_4800, 5 }, { SMDSP_V32BIS_9600, 6 }, { SMDSP_V32BIS_7200, 9 },
		{ SMDSP_V32BIS_12000, 10 }, { SMDSP_V32BIS_14400, 12 },
	};
	unsigned int set, k, bad = 0, turned = 0;
	uint16_t w;
	bool e;
	int r;

	for (set = 1; set < 32; set++) {
		for (int ee = 0; ee < 2; ee++) {
			uint16_t want = (1u << 4) | (1u << 7) | (1u << 11) | (1u << 15);

			for (k = 0; k < 5; k++)
				if (set & t[k].set)
					want |= (uint16_t)(1u << t[k].bit);
			if (set & ~SMDSP_V32BIS_4800)
				want |= 1u << 8;
			if (ee)
				want |= 0xf;
			w = smdsp_v32bis_rword(set, ee);
			r = smdsp_v32bis_rword_rates(w, &e);
			bad += w != want || r != (int)set || e != (bool)ee;
			/*
			 * an R word a whole number of symbols later (2, 4, ... 14
			 * bits) is never a word (E selecting 7200 and 12000 would
			 * be, 8 bits on: E selects one rate)
			 */
			for (k = 2; k < 16 && !ee; k += 2) {
				uint16_t rot = (uint16_t)((w >> k) | (w << (16 - k)));

				turned += smdsp_v32bis_rword_rates(rot, &e) >= 0;
			}
		}
	}
	CHECK(bad == 0, "%u rate words unlike the recommendation's bits", bad);
	CHECK(turned == 0, "%u turned words taken for rate words", turned);
	w = smdsp_v32bis_rword(SMDSP_V32BIS_ALL, false);
	printf("R offering every rate: 0x%04x (B0 first: ", w);
	for (k = 0; k < 16; k++)
		putchar('0' + ((w >> k) & 1));
	printf("), E at 14400: 0x%04x\n", smdsp_v32bis_rword(SMDSP_V32BIS_14400, true));
	CHECK(w == 0x9ff0, "R(all) 0x%04x", w);
	CHECK(smdsp_v32bis_rword_rates(w & ~0x80u, &e) < 0, "B7 clear taken");
	CHECK(smdsp_v32bis_rword_rates(w | 0x1, &e) < 0, "B0-B3 0001 taken");
	CHECK(smdsp_v32bis_rword_rates(w & ~0x8000u, &e) < 0, "B15 clear taken");
	CHECK(smdsp_v32bis_rword_rates(w | 0xf, &e) == SMDSP_V32BIS_ALL && e, "E");
	CHECK(smdsp_v32bis_best(SMDSP_V32BIS_4800 | SMDSP_V32BIS_12000) == 12000, "best");
	CHECK(smdsp_v32bis_best(0) == 0 && smdsp_v32bis_rate_bit(2400) == 0, "no rate");
}

/*
 * V.32's uncoded 9600 in the rate words: B6 without B8. A V.32 modem
 * without the code offers 4800 and 9600 with B8 = 0; V.32bis rates in a
 * word without B8 mean nothing (they are trellis-coded only).
 */
static void uncoded_words(void)
{
	const unsigned int u = SMDSP_V32BIS_UNCODED, r96 = SMDSP_V32BIS_9600, r48 = SMDSP_V32BIS_4800;
	uint16_t w = smdsp_v32bis_rword(r48 | r96 | u, false);
	bool e;

	printf("R of a V.32 modem without the code: 0x%04x, E at uncoded 9600 0x%04x (trellis 0x%04x)\n", w,
	       smdsp_v32bis_rword(r96 | u, true), smdsp_v32bis_rword(r96, true));
	/* B5, B6, B4, B7, B11, B15; no B8 */
	CHECK(w == 0x88f0, "R(4800, 9600 uncoded) 0x%04x", w);
	CHECK(smdsp_v32bis_rword_rates(w, &e) == (int)(r48 | r96 | u) && !e, "R uncoded read back");
	CHECK(smdsp_v32bis_rword(r96 | u, true) == 0x88df, "E uncoded 0x%04x", smdsp_v32bis_rword(r96 | u, true));
	CHECK(smdsp_v32bis_rword(r96, true) == 0x89df, "E trellis 9600 0x%04x", smdsp_v32bis_rword(r96, true));
	CHECK(smdsp_v32bis_rword_rates(0x88df, &e) == (int)(r96 | u) && e, "E uncoded read");
	/* every rate offered, B8 clear: 4800 and uncoded 9600 only */
	CHECK(smdsp_v32bis_rword_rates(0x9ff0 & ~0x100u, &e) == (int)(r48 | r96 | u), "V.32bis rates without B8");
	CHECK(smdsp_v32bis_rword(SMDSP_V32BIS_ALL | u, false) == 0x88f0, "all, uncoded");
	/* 4800 alone has no B8 either, and no coding to name */
	CHECK(smdsp_v32bis_rword_rates(smdsp_v32bis_rword(r48, false), &e) == (int)r48, "4800 alone");
	CHECK(smdsp_v32bis_common(SMDSP_V32BIS_ALL, SMDSP_V32BIS_ALL) == SMDSP_V32BIS_ALL, "both coded");
	CHECK(smdsp_v32bis_common(SMDSP_V32BIS_ALL, r48 | r96 | u) == (r48 | r96 | u), "a V.32 peer");
	CHECK(smdsp_v32bis_common(r48 | r96 | u, SMDSP_V32BIS_14400 | r96) == (r96 | u), "uncoded either way");
	CHECK(smdsp_v32bis_common(SMDSP_V32BIS_14400 | r48, r48 | r96 | u) == r48, "no 9600 in common");
}

/*
 * Table 1/V.32 (differential quadrant coding for 4800 bit/s and the uncoded
 * 9600 bit/s): Y1n Y2n by Q1n Q2n and Y1n-1 Y2n-1, each written as its two
 * bits (Y1 first).
 */
static const int t1[4][4] = {
	/* Q1Q2 00 (+90)  */ { 0x1, 0x3, 0x0, 0x2 },
	/* Q1Q2 01 (0)    */ { 0x0, 0x1, 0x2, 0x3 },
	/* Q1Q2 10 (+180) */ { 0x3, 0x2, 0x1, 0x0 },
	/* Q1Q2 11 (+270) */ { 0x2, 0x0, 0x3, 0x1 },
};

/* Table 3/V.32's non-redundant column: the uncoded 9600's points by Y1 Y2 Q3 Q4 (as printed, units of 1) */
static const int fig2[16][2] = {
	{ -1, -1 }, { -3, -1 }, { -1, -3 }, { -3, -3 },	/* 00xx */
	{ 1, -1 }, { 1, -3 }, { 3, -1 }, { 3, -3 },	/* 01xx */
	{ -1, 1 }, { -1, 3 }, { -3, 1 }, { -3, 3 },	/* 10xx */
	{ 1, 1 }, { 3, 1 }, { 1, 3 }, { 3, 3 },		/* 11xx */
};

/* the line bits the test wants sent (Q1 first), turned into inputs for the scrambler as it stands */
static struct {
	uint32_t reg;	/* the scrambler's line bits, as the transmitter's will be */
	int tap;
	unsigned int want[4];
	int k;
} um;

static int um_bit(void *u)
{
	unsigned int b = um.want[um.k++ & 3];
	int in = (int)(b ^ ((um.reg >> um.tap) & 1) ^ ((um.reg >> 22) & 1));

	(void)u;
	um.reg = (um.reg << 1) | b;
	return in;
}

static void uncoded_map(bool caller)
{
	struct smdsp_v32bis_tx *s = smdsp_v32bis_tx_create(caller, -100, um_bit, NULL, NULL);
	int re, im, n, bad = 0, bad_d = 0, seen[4][16] = { { 0 } }, all = 0, k;
	unsigned int prev, y;
	uint64_t seed = 5;

	smdsp_v32bis_tx_queue(s, SMDSP_V32BIS_E, 8, smdsp_v32bis_rword(SMDSP_V32BIS_9600 | SMDSP_V32BIS_UNCODED, true));
	smdsp_v32bis_tx_queue(s, SMDSP_V32BIS_B1, 128, 9600 | SMDSP_V32BIS_B1_UNCODED);
	smdsp_v32bis_tx_queue(s, SMDSP_V32BIS_DATA, 0, 0);
	for (n = 0; n < 8 + 128; n++)
		smdsp_v32bis_tx_symbol(s, &re, &im);
	/* the last point of B1: its quadrant, Y1 Y2 (A 00, B 01, C 11, D 10) */
	prev = (unsigned int)"\0\1\3\2"[s->quad];
	um.reg = s->scr;
	um.tap = caller ? 17 : 4;
	for (n = 0; n < 4000; n++) {
		unsigned int q = (unsigned int)(t_rand64(&seed) >> 20) & 15;

		for (k = 0; k < 4; k++)
			um.want[k] = (q >> (3 - k)) & 1;
		um.k = 0;
		smdsp_v32bis_tx_symbol(s, &re, &im);
		y = (unsigned int)t1[q >> 2][prev];
		/* in V.17's units the points are twice Table 3's */
		bad += re != 2 * fig2[(y << 2) | (q & 3)][0] || im != 2 * fig2[(y << 2) | (q & 3)][1];
		seen[prev][q]++;
		/* the next one's Y1n-1 Y2n-1: what this point's quadrant says */
		prev = (im > 0 ? 2u : 0u) | (re > 0 ? 1u : 0u);
		bad_d += prev != y;
	}
	for (k = 0; k < 64; k++)
		all += seen[k >> 4][k & 15] > 0;
	printf("%s: uncoded 9600, 4000 symbols against Tables 1 and 3/V.32: %d wrong, "
	       "%d of 64 (quadrant, Q1..Q4) cases\n", caller ? "caller" : "answerer", bad, all);
	CHECK(bad == 0 && bad_d == 0 && all == 64, "uncoded 9600: %d points wrong, %d quadrants, %d of 64 cases",
	      bad, bad_d, all);
	CHECK(s->uncoded && s->rate == 9600, "not uncoded");
	smdsp_v32bis_tx_free(s);
}

static void scramblers(void)
{
	static uint8_t in[20000], out[20000];
	uint64_t seed = 99;
	int g, n, bad, back;

	for (n = 0; n < 20000; n++)
		in[n] = (uint8_t)(t_rand64(&seed) & 1);
	for (g = 0; g < 2; g++) {
		int tap = g ? 18 : 5;
		uint32_t reg = 0, dreg = 0x7654321;

		bad = 0;
		back = 0;
		for (n = 0; n < 20000; n++) {
			int o = in[n] ^ (n >= tap ? out[n - tap] : 0) ^ (n >= 23 ? out[n - 23] : 0);

			out[n] = (uint8_t)o;
			bad += smdsp_v32bis_scramble(&reg, in[n], g) != o;
			/* the descrambler from an unrelated state: right after 23 bits */
			if (smdsp_v32bis_descramble(&dreg, o, g) != in[n] && n >= 23)
				back++;
		}
		printf("%s scrambler: %d of 20000 bits unlike the recurrence, %d descrambled wrong after 23\n",
		       g ? "GPC (1+x^-18+x^-23)" : "GPA (1+x^-5+x^-23)", bad, back);
		CHECK(bad == 0 && back == 0, "%s: %d, %d", g ? "GPC" : "GPA", bad, back);
	}
	/* an impulse: GPC's output has ones at 0, 18, 23, 36 and not at 41 (18 + 23: two paths) */
	{
		uint32_t reg = 0;
		int o[64];

		for (n = 0; n < 64; n++)
			o[n] = smdsp_v32bis_scramble(&reg, n == 0, true);
		CHECK(o[0] && o[18] && o[23] && o[36] && !o[41] && o[46] && !o[1], "GPC impulse");
		reg = 0;
		for (n = 0; n < 64; n++)
			o[n] = smdsp_v32bis_scramble(&reg, n == 0, false);
		CHECK(o[0] && o[5] && o[10] && o[23] && !o[28] && !o[1], "GPA impulse");
	}
}

static int pt_is(int re, int im, int k)
{
	return re == A[k][0] && im == A[k][1];
}

/* the test's own V.32 4800 bit/s decoder: quarter turns -> Q1 Q2 (V.32 Table 1), descrambled */
static void dec4800(int prev, int cur, uint32_t *reg, bool gpc, int *q1, int *q2)
{
	int turn = (cur - prev + 4) % 4;
	static const int t1[4] = { 0, 0, 1, 1 }, t2[4] = { 1, 0, 0, 1 };

	*q1 = smdsp_v32bis_descramble(reg, t1[turn], gpc);
	*q2 = smdsp_v32bis_descramble(reg, t2[turn], gpc);
}

static int which(int re, int im)
{
	for (int k = 0; k < 4; k++)
		if (pt_is(re, im, k))
			return k;
	return -1;
}

static void signals(bool caller)
{
	struct smdsp_v32bis_tx *s = smdsp_v32bis_tx_create(caller, -100, NULL, NULL, NULL);
	int re, im, n, bad = 0, seen[4] = { 0 }, prev = -1, q1, q2, words = 0, ewords = 0;
	uint16_t rw = smdsp_v32bis_rword(SMDSP_V32BIS_4800 | SMDSP_V32BIS_9600 | SMDSP_V32BIS_14400, false);
	uint16_t ew = smdsp_v32bis_rword(SMDSP_V32BIS_9600, true);
	uint32_t reg = 0;
	unsigned int w = 0;

	smdsp_v32bis_tx_queue(s, SMDSP_V32BIS_AA, 10, 0);
	smdsp_v32bis_tx_queue(s, SMDSP_V32BIS_CC, 10, 0);
	smdsp_v32bis_tx_queue(s, SMDSP_V32BIS_AC, 10, 0);
	smdsp_v32bis_tx_queue(s, SMDSP_V32BIS_CA, 10, 0);
	smdsp_v32bis_tx_queue(s, SMDSP_V32BIS_S, 256, 0);
	smdsp_v32bis_tx_queue(s, SMDSP_V32BIS_SBAR, 16, 0);
	smdsp_v32bis_tx_queue(s, SMDSP_V32BIS_TRN, 1280, 0);
	smdsp_v32bis_tx_queue(s, SMDSP_V32BIS_R, 64, rw);
	/* the first symbol: silence until something is queued, then the queue's first */
	for (n = 0; n < 10; n++) {
		smdsp_v32bis_tx_symbol(s, &re, &im);
		bad += !pt_is(re, im, 0);
	}
	for (n = 0; n < 10; n++) {
		smdsp_v32bis_tx_symbol(s, &re, &im);
		bad += !pt_is(re, im, 2);
	}
	for (n = 0; n < 20; n++) {
		smdsp_v32bis_tx_symbol(s, &re, &im);
		bad += !pt_is(re, im, n < 10 ? (n & 1) * 2 : (~n & 1) * 2);
	}
	CHECK(bad == 0, "%s AA, CC, AC, CA: %d symbols wrong", caller ? "caller" : "answerer", bad);
	for (n = 0, bad = 0; n < 272; n++) {
		smdsp_v32bis_tx_symbol(s, &re, &im);
		bad += !pt_is(re, im, n < 256 ? (n & 1) : 2 + (n & 1));
	}
	CHECK(bad == 0, "S, S-bar: %d symbols wrong", bad);
	prev = 3;
	for (n = 0, bad = 0; n < 1280; n++) {
		int k;

		smdsp_v32bis_tx_symbol(s, &re, &im);
		k = which(re, im);
		if (n < 256)
			bad += k != 0 && k != 2;
		else if (k >= 0)
			seen[k]++;
		bad += k < 0;
		/* TRN's line bits are its points' (A 00, B 01, C 11, D 10), for the descrambler */
		if (k >= 0) {
			smdsp_v32bis_descramble(&reg, k == 2 || k == 3, caller);
			smdsp_v32bis_descramble(&reg, k == 1 || k == 2, caller);
		}
		prev = k;
	}
	CHECK(bad == 0 && seen[0] > 150 && seen[1] > 150 && seen[2] > 150 && seen[3] > 150,
	      "TRN: %d wrong, A %d B %d C %d D %d", bad, seen[0], seen[1], seen[2], seen[3]);
	smdsp_v32bis_tx_queue(s, SMDSP_V32BIS_E, 8, ew);
	smdsp_v32bis_tx_queue(s, SMDSP_V32BIS_SILENCE, 8, 0);
	for (n = 0; n < 72 + 8; n++) {
		int k;

		smdsp_v32bis_tx_symbol(s, &re, &im);
		k = which(re, im);
		if (n >= 72) {
			CHECK(re == 0 && im == 0, "silence after E");
			continue;
		}
		dec4800(prev, k, &reg, caller, &q1, &q2);
		prev = k;
		w = (w >> 2) | ((unsigned int)q1 << 14) | ((unsigned int)q2 << 15);
		/* at each word's end the window holds the word, B0 in bit 0 */
		if ((n & 7) == 7 && n < 64)
			words += w == rw;
		if (n == 71)
			ewords += w == ew;
	}
	printf("%s: TRN A %d B %d C %d D %d; R 0x%04x decoded %d of 8 times, E 0x%04x %d\n",
	       caller ? "caller" : "answerer", seen[0], seen[1], seen[2], seen[3], rw, words, ew, ewords);
	CHECK(words == 8 && ewords == 1, "R %d of 8, E %d", words, ewords);
	smdsp_v32bis_tx_free(s);
}

static double goertzel(const int16_t *x, int n, double f)
{
	double w = 2 * M_PI * f / 8000, c = 2 * cos(w), s1 = 0, s2 = 0, s0;

	for (int i = 0; i < n; i++) {
		s0 = x[i] + c * s1 - s2;
		s2 = s1;
		s1 = s0;
	}
	return (s1 * s1 + s2 * s2 - c * s1 * s2) / n / n;
}

static void tones(void)
{
	struct smdsp_v32bis_tx *s = smdsp_v32bis_tx_create(false, -100, NULL, NULL, NULL);
	static int16_t x[8000];
	double p1800, p600, p3000, p1200, pw;

	smdsp_v32bis_tx_send(s, SMDSP_V32BIS_AA, 0, 0);
	smdsp_v32bis_tx_process(s, x, 8000);
	pw = t_power_dbm0(x + 800, 4000);
	p1800 = goertzel(x + 800, 4000, 1800);
	p600 = goertzel(x + 800, 4000, 600);
	printf("AA at %.1f dBm0: 1800 Hz %.1f dB over 600 Hz\n", pw, 10 * log10(p1800 / (p600 + 1e-9)));
	CHECK(fabs(pw + 10) < 0.5 && p1800 > 1e4 * p600, "AA: %.1f dBm0", pw);
	smdsp_v32bis_tx_send(s, SMDSP_V32BIS_AC, 0, 0);
	smdsp_v32bis_tx_process(s, x, 8000);
	p600 = goertzel(x + 800, 4000, 600);
	p3000 = goertzel(x + 800, 4000, 3000);
	p1800 = goertzel(x + 800, 4000, 1800);
	p1200 = goertzel(x + 800, 4000, 1200);
	printf("AC: 600 Hz %.1f dB, 3000 Hz %.1f dB over 1800 Hz\n", 10 * log10(p600 / (p1800 + 1e-9)),
	       10 * log10(p3000 / (p1800 + 1e-9)));
	CHECK(p600 > 1e4 * p1800 && p3000 > 1e4 * p1800 && p600 > 1e4 * p1200 &&
	      p3000 > 1e4 * p1200,
	      "AC: 600 and 3000 Hz");
	smdsp_v32bis_tx_free(s);
}

/* the bits both transmitters take, recorded as SpanDSP's took them */
static uint8_t sp_bits[200000];
static long sp_nbits, our_pos;
static uint32_t pn = 0x2b1;

static int sp_get(void *u)
{
	int b;

	(void)u;
	pn = (pn << 1) | (((pn >> 22) ^ (pn >> 17)) & 1);
	b = (int)(pn & 1);
	if (sp_nbits < (long)sizeof(sp_bits))
		sp_bits[sp_nbits++] = (uint8_t)b;
	return b;
}

static int our_get(void *u)
{
	(void)u;
	return our_pos < sp_nbits ? sp_bits[our_pos++] : 0;
}

static void against_spandsp(unsigned int rate)
{
	v17_tx_state_t *sp = v17_tx_init(NULL, (int)rate, 0, sp_get, NULL);
	struct smdsp_v32bis_tx *ours = smdsp_v32bis_tx_create(true, -100, our_get, NULL, NULL);
	static float sre[12000], sim[12000];
	static uint32_t sscr[12000];
	static int sdiff[12000], sconv[12000];
	static long sbits[12000];
	int16_t a;
	long k, nsym = 0, start = -1, diffs = 0, cmp = 0;
	unsigned int last = 0, np;

	sp_nbits = 0;
	pn = 0x2b1;
	for (k = 0; k < 38000 && nsym < 12000; k++) {
		v17_tx(sp, &a, 1);
		if ((unsigned int)sp->rrc_filter_step != last) {
			int i = (sp->rrc_filter_step + 2 * 9 - 1) % 9;

			last = (unsigned int)sp->rrc_filter_step;
			sre[nsym] = sp->rrc_filter[i].re;
			sim[nsym] = sp->rrc_filter[i].im;
			sscr[nsym] = sp->scramble_reg;
			sdiff[nsym] = sp->diff;
			sconv[nsym] = sp->convolution;
			sbits[nsym] = sp_nbits;
			/* 300 data symbols in: the state after this one starts ours */
			if (start < 0 && !sp->in_training && sp_nbits > 300 * (long)(rate / 2400))
				start = nsym;
			nsym++;
		}
	}
	CHECK(start > 0, "%u: SpanDSP sent no data", rate);
	if (start <= 0)
		goto out;
	/* ours in data mode from SpanDSP's state after symbol start */
	smdsp_v32bis_tx_send(ours, SMDSP_V32BIS_B1, 1, rate);
	smdsp_v32bis_tx_queue(ours, SMDSP_V32BIS_DATA, 0, 0);
	{
		int re, im;

		our_pos = 0;
		smdsp_v32bis_tx_symbol(ours, &re, &im);	/* B1's one symbol: the rate */
	}
	ours->scr = sscr[start];
	ours->enc.diff = (uint8_t)sdiff[start];
	ours->enc.conv = (uint8_t)sconv[start];
	our_pos = sbits[start];
	for (k = start + 1; k < nsym; k++) {
		int re, im;

		smdsp_v32bis_tx_symbol(ours, &re, &im);
		cmp++;
		if (lroundf(sre[k]) != re || lroundf(sim[k]) != im) {
			if (!diffs)
				printf("  first difference at data symbol %ld: SpanDSP (%g, %g), ours (%d, %d)\n",
				       k - start, sre[k], sim[k], re, im);
			diffs++;
		}
	}
	printf("%5u: %ld data symbols of our caller's transmitter against SpanDSP's V.17, %ld differ\n",
	       rate, cmp, diffs);
	CHECK(diffs == 0 && cmp > 5000, "%u: %ld of %ld differ", rate, diffs, cmp);
	CHECK(smdsp_v17_points(rate, &np) == ours->points, "%u: V.17's points", rate);
out:
	smdsp_v32bis_tx_free(ours);
	v17_tx_free(sp);
}

static void back_to_back(const char *what, struct v32run_cfg *c, long min_bits)
{
	struct v32run_res r;
	uint16_t want = smdsp_v32bis_rword(c->offer ? c->offer : SMDSP_V32BIS_ALL, false);

	v32_run(c, &r);
	printf("%5u %-8s %-34s %s at %.2f s, R 0x%04x, %6ld bits %ld errors, SNR est. %.1f dB\n", c->rate,
	       c->caller_tx ? "caller" : "answerer", what, r.trained ? "trained" : "NOT trained", r.trained_s,
	       r.rword, r.bits, r.errors, r.snr_10 / 10.0);
	CHECK(r.trained && r.rate == c->rate && r.rword == want && r.errors == 0 && r.bits >= min_bits,
	      "%u %s %s: trained %d rate %u R 0x%04x, %ld bits %ld errors", c->rate,
	      c->caller_tx ? "caller" : "answerer", what, r.trained, r.rate, r.rword, r.bits, r.errors);
}

static void lines(void)
{
	static const unsigned int rates[5] = { 4800, 7200, 9600, 12000, 14400 };
	int i, role;

	for (i = 0; i < 5; i++) {
		for (role = 0; role < 2; role++) {
			struct v32run_cfg c = { .rate = rates[i], .caller_tx = role, .noise_dbm0 = -300,
						.seconds = 2.0, .seed = 7 + i };
			long min = (long)(rates[i] * 0.9);

			back_to_back("clean", &c, min);
			if (quick && role)
				continue;
			c.loss_db = 10;
			c.noise_dbm0 = -50;
			c.ppm = role ? 100 : -100;
			c.delay = 320;
			back_to_back(role ? "10 dB, -50 dBm0, +100 ppm, 40 ms" : "10 dB, -50 dBm0, -100 ppm, 40 ms",
				     &c, min);
			c.loss_db = 20;
			c.noise_dbm0 = -70;
			c.ppm = 0;
			c.delay = 0;
			c.level_dbm0_10 = -100;
			back_to_back("-10 dBm0, 20 dB loss, -70 dBm0", &c, min);
		}
	}
	/* V.32's uncoded 9600: E without B8, the receiver told */
	for (role = 0; role < 2; role++) {
		struct v32run_cfg c = { .rate = 9600, .uncoded = 1, .caller_tx = role, .noise_dbm0 = -300,
					.seconds = 2.0, .seed = 3,
					.offer = SMDSP_V32BIS_4800 | SMDSP_V32BIS_9600 | SMDSP_V32BIS_UNCODED };
		struct v32run_res r;

		back_to_back("uncoded, clean", &c, 8600);
		v32_run(&c, &r);
		CHECK(!r.trellis, "uncoded 9600 taken for trellis-coded");
		c.loss_db = 10;
		c.noise_dbm0 = -50;
		c.ppm = role ? 100 : -100;
		c.delay = 320;
		back_to_back("uncoded, 10 dB, -50 dBm0, 100 ppm, 40 ms", &c, 8600);
		c.rate = 9600;
		c.uncoded = 0;
		c.offer = 0;
		v32_run(&c, &r);
		CHECK(r.trellis && r.errors == 0 && r.trained, "trellis 9600 after the uncoded one");
	}
	/* a subset offered: the word says so */
	{
		struct v32run_cfg c = { .rate = 9600, .offer = SMDSP_V32BIS_4800 | SMDSP_V32BIS_9600,
					.caller_tx = 1, .noise_dbm0 = -300, .seconds = 1.5 };

		back_to_back("R offers 4800, 9600", &c, 4800);
	}
}

int main(int argc, char **argv)
{
	quick = argc > 1 && !strcmp(argv[1], "--quick");
	rate_words();
	uncoded_words();
	uncoded_map(true);
	uncoded_map(false);
	scramblers();
	signals(true);
	signals(false);
	tones();
	against_spandsp(14400);
	against_spandsp(12000);
	against_spandsp(9600);
	against_spandsp(7200);
	lines();
	return t_report("test_v32bis");
}
