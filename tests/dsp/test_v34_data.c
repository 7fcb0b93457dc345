// SPDX-License-Identifier: GPL-2.0
/*
 * V.34's data-mode bit-level blocks (dsp/v34_scramble.c, v34_frame.c,
 * v34_trellis.c, v34_precode.c, v34_mp.c, v34_data.c) against the
 * recommendation's definitions, written here independently of the library:
 * - the scrambler's output against GPC/GPA as polynomials over its own
 *   output, self-synchronisation, the error multiplication of 3;
 * - Table 7's rates and J, P per symbol rate; N, b, r, K, q, M, L, W for
 *   every allowed rate, aux on and off (M against libm's 2^(K/8)); the high
 *   and aux frames' counts; hand-computed rows; frame pack/unpack round
 *   trips and the bit order; the superframe sync pattern's places;
 * - Figures 10-12 as delay cells and gates, every transition; Table 13
 *   typed in; the 2D labels as cosets; the quarter-superconstellation;
 *   rotational invariance of the code; d2free of each code by search over
 *   pairs of paths; Viterbi round trips with errors injected;
 * - the precoder against its definition in floating point, its inverse,
 *   power and peak; the nonlinear encoder and its inverse;
 * - MP type 0 and 1 against Table 18's bit positions, the CRC by polynomial
 *   long division over the data bits (start bits left out), round trips, every single-bit error; E;
 * - the whole encoder/decoder at every allowed rate (noiseless, with a
 *   precoder and channel, with the nonlinear encoder), turned by 90, 180,
 *   270 degrees, and B1 (a data frame of ones).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <smdsp/v34_scramble.h>
#include <smdsp/v34_frame.h>
#include <smdsp/v34_shell.h>
#include <smdsp/v34_trellis.h>
#include <smdsp/v34_precode.h>
#include <smdsp/v34_mp.h>
#include <smdsp/v34_data.h>
#include "tutil.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t seed = 0x34d47a11ULL;

static unsigned int rbit(void)
{
	return (unsigned int)(t_rand64(&seed) >> 63);
}

static void print_check(const char *name, int len, const char *buf)
{
	CHECK(len > 0 && strncmp(buf, name, strlen(name)) == 0, "%s: %s", name, buf);
}

/* -- scrambler ------------------------------------------------------------------------------- */

static void test_scrambler(void)
{
	unsigned int caller;

	for (caller = 0; caller < 2; caller++) {
		struct smdsp_v34_scramble *tx = smdsp_v34_scramble_create(caller);
		struct smdsp_v34_scramble *rx = smdsp_v34_scramble_create(caller);
		struct smdsp_v34_scramble *late = smdsp_v34_scramble_create(caller);
		unsigned int tap = caller ? 18 : 5, n = 4000, i, bad = 0, bad_rel = 0, bad_late = 0, errs = 0;
		uint8_t in[4000], out[4000];
		char buf[128];

		CHECK(smdsp_v34_scramble_tap(tx) == tap);
		for (i = 0; i < n; i++) {
			in[i] = (uint8_t)rbit();
			out[i] = (uint8_t)smdsp_v34_scramble_bit(tx, in[i]);
			/* the output divided by 1 + x^-tap + x^-23: out = in + out(-tap) + out(-23) */
			if (out[i] != (in[i] ^ (i >= tap ? out[i - tap] : 0) ^ (i >= 23 ? out[i - 23] : 0)))
				bad++;
			if (smdsp_v34_descramble_bit(rx, out[i]) != in[i])
				bad_rel++;
			/* a descrambler that starts 100 bits in, with another register, is right after 23 */
			if (i >= 100 && smdsp_v34_descramble_bit(late, out[i] ^ (i < 105)) != in[i] && i >= 128)
				bad_late++;
		}
		CHECK(bad == 0, "caller %u: %u bits not GP%c", caller, bad, caller ? 'C' : 'A');
		CHECK(bad_rel == 0 && bad_late == 0, "%u %u", bad_rel, bad_late);
		/* one line error: three data errors, at 0, tap and 23 */
		smdsp_v34_scramble_reset(rx);
		for (i = 0; i < 200; i++)
			if (smdsp_v34_descramble_bit(rx, out[i] ^ (i == 60)) != in[i])
				errs += (i == 60 || i == 60 + tap || i == 83) ? 1 : 100;
		CHECK(errs == 3, "one line error gave %u", errs);
		print_check("v34_scramble", smdsp_v34_scramble_print(tx, buf, sizeof(buf)), buf);
		smdsp_v34_scramble_free(tx);
		smdsp_v34_scramble_free(rx);
		smdsp_v34_scramble_free(late);
	}
}

/* -- framing --------------------------------------------------------------------------------- */

/* Table 7 and the framing table, typed in: symbol rate, J, P, lowest and highest data rate */
static const struct {
	unsigned int sym, j, p, lo, hi;
} table7[6] = {
	{ 2400, 7, 12, 2400, 21600 }, { 2743, 8, 12, 4800, 26400 }, { 2800, 7, 14, 4800, 26400 },
	{ 3000, 7, 15, 4800, 28800 }, { 3200, 7, 16, 4800, 31200 }, { 3429, 8, 15, 4800, 33600 },
};

/* rows computed by hand from 9.2-9.3: S index, R, aux, N, b, r, K, q, M (minimum), M (expanded), L (min) */
static const struct {
	unsigned int s, rate, aux, n, b, r, k, q, m, mx, l;
} rows[] = {
	{ 0, 2400, 0, 96, 8, 12, 0, 0, 1, 1, 4 },
	{ 0, 2400, 1, 104, 9, 8, 0, 0, 1, 1, 4 },
	{ 5, 4800, 0, 168, 12, 3, 0, 0, 1, 1, 4 },
	{ 3, 4800, 0, 192, 13, 12, 1, 0, 2, 2, 8 },
	{ 4, 28800, 0, 1152, 72, 16, 28, 4, 12, 14, 768 },
	{ 5, 33600, 0, 1176, 79, 6, 27, 5, 11, 13, 1408 },
	{ 4, 31200, 1, 1256, 79, 8, 27, 5, 11, 13, 1408 },
	{ 0, 21600, 0, 864, 72, 12, 28, 4, 12, 14, 768 },
	{ 1, 19200, 0, 672, 56, 12, 28, 2, 12, 14, 192 },
};

static void test_frame_tables(void)
{
	unsigned int s, rate, aux, i, nrates = 0;
	char buf[200];

	for (s = 0; s < 6; s++) {
		CHECK(smdsp_v34_symbol_rate(s) == table7[s].sym);
		for (rate = 0; rate <= 36000; rate += 1200) {
			bool ok = rate % 2400 == 0 && rate >= table7[s].lo && rate <= table7[s].hi;
			struct smdsp_v34_frame_params p;

			CHECK(smdsp_v34_frame_rate_ok(s, rate) == ok, "S=%u R=%u", table7[s].sym, rate);
			if (!ok) {
				CHECK(smdsp_v34_frame_params(s, rate, false, false, &p) == -EINVAL);
				continue;
			}
			nrates++;
			for (aux = 0; aux < 4; aux++) {
				bool ax = aux & 1, ex = aux & 2;
				double m8 = pow(2.0, 0 / 8.0);
				unsigned int mmin, mexp, high = 0, naux = 0;

				CHECK(smdsp_v34_frame_params(s, rate, ax, ex, &p) == 0);
				CHECK(p.j == table7[s].j && p.p == table7[s].p);
				/* N = (R + aux) 0.28 / J, an integer */
				CHECK(p.n * p.j * 100 == (rate + (ax ? 200 : 0)) * 28, "S=%u R=%u N=%u", s, rate, p.n);
				CHECK(p.w == (ax ? 15 - p.j : 0));
				CHECK(p.b == (unsigned int)ceil((double)p.n / p.p));
				CHECK(p.r >= 1 && p.r <= p.p && p.r * p.b + (p.p - p.r) * (p.b - 1) == p.n);
				CHECK(p.b >= 8 && p.b <= SMDSP_V34_MAX_B, "S=%u R=%u b=%u", s, rate, p.b);
				if (p.b <= 12)
					CHECK(p.k == 0 && p.q == 0);
				else
					CHECK(p.b == p.k + 12 + 8 * p.q && p.k < 32 && (p.q == 0 || p.k >= 24));
				m8 = pow(2.0, p.k / 8.0);
				mmin = (unsigned int)ceil(m8 - 1e-9);
				mexp = (unsigned int)floor(1.25 * m8 + 0.5);
				if (mexp < mmin)
					mexp = mmin;
				CHECK(p.m == (ex ? mexp : mmin), "K=%u M=%u", p.k, p.m);
				CHECK(p.m <= 18 && p.l == 4 * p.m * (1u << p.q) && p.l <= 1664);
				CHECK(pow((double)p.m, 8) >= pow(2.0, p.k));
				CHECK(p.w2 == (p.b < 56 ? 1u : 2u));
				for (i = 0; i < p.p; i++) {
					high += smdsp_v34_frame_is_high(&p, i);
					naux += smdsp_v34_frame_has_aux(&p, i);
				}
				CHECK(high == p.r && naux == p.w, "high %u/%u aux %u/%u", high, p.r, naux, p.w);
			}
		}
	}
	/* Table 7 lists 2400-21600 at 2400, then 4800 up to 26400, 26400, 28800, 31200, 33600 */
	CHECK(nrates == 9 + 10 + 10 + 11 + 12 + 13, "%u rates", nrates);
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		struct smdsp_v34_frame_params p, px;

		CHECK(smdsp_v34_frame_params(rows[i].s, rows[i].rate, rows[i].aux, false, &p) == 0);
		CHECK(smdsp_v34_frame_params(rows[i].s, rows[i].rate, rows[i].aux, true, &px) == 0);
		CHECK(p.n == rows[i].n && p.b == rows[i].b && p.r == rows[i].r && p.k == rows[i].k &&
		      p.q == rows[i].q && p.m == rows[i].m && px.m == rows[i].mx && p.l == rows[i].l,
		      "row %u: N=%u b=%u r=%u K=%u q=%u M=%u/%u L=%u", i, p.n, p.b, p.r, p.k, p.q, p.m, px.m, p.l);
	}
	{
		struct smdsp_v34_frame_params p;
		struct smdsp_v34_frame *f;

		smdsp_v34_frame_params(4, 28800, false, false, &p);
		f = smdsp_v34_frame_create(&p);
		print_check("v34_frame", smdsp_v34_frame_print(f, buf, sizeof(buf)), buf);
		smdsp_v34_frame_free(f);
	}
}

/* the superframe sync pattern as Table 12 gives it, first in time first */
static const char sync_pattern[] = "0111011111111010";

/* the bit order of a packed frame: shell bits (LSB first), the aux bit or the first data bit as I1 */
static unsigned int check_layout(const struct smdsp_v34_frame_params *p, const struct smdsp_v34_mframe *mf,
				 const uint8_t *in, unsigned int a, unsigned int n)
{
	unsigned int bad = 0, want = mf->bits > 12 ? mf->bits - 12 - 8 * p->q : 0, t;

	if (mf->nshell != want || mf->bits != (mf->high ? p->b : p->b - 1) || n != mf->bits - mf->aux)
		bad++;
	for (t = 0; t < mf->nshell; t++)
		bad += ((mf->r0 >> t) & 1) != in[t];
	if (mf->aux)
		bad += (mf->i[0] & 1) != a;
	else
		bad += (mf->i[0] & 1) != in[mf->nshell];
	return bad;
}

/* the sync pattern's bits on the first 4D symbol of each half data frame, nowhere else */
static unsigned int check_sync(const struct smdsp_v34_frame_params *p, const struct smdsp_v34_mframe *mf,
			       unsigned int *nsync)
{
	unsigned int bad = 0, j;

	for (j = 0; j < 4; j++) {
		unsigned int g = 4 * mf->index + j, h = 2 * mf->data_frame + g / (2 * p->p);

		if (g % (2 * p->p)) {
			bad += mf->v0[j] != 0;
			continue;
		}
		(*nsync)++;
		bad += mf->v0[j] != (sync_pattern[h] == '1');
	}
	return bad;
}

static void test_frame_roundtrip(void)
{
	unsigned int s, rate, aux, bad = 0, badlay = 0, badsync = 0, configs = 0;

	for (s = 0; s < 6; s++) {
		for (rate = 2400; rate <= 33600; rate += 2400) {
			for (aux = 0; aux < 2; aux++) {
				struct smdsp_v34_frame_params p;
				struct smdsp_v34_frame *tx, *rx;
				unsigned int f, t, total = 0, nsync = 0;

				if (smdsp_v34_frame_params(s, rate, aux, false, &p))
					continue;
				configs++;
				tx = smdsp_v34_frame_create(&p);
				rx = smdsp_v34_frame_create(&p);
				/* two superframes */
				for (f = 0; f < 2 * p.j * p.p; f++) {
					uint8_t in[SMDSP_V34_MAX_B], out[SMDSP_V34_MAX_B], a = 0, ao;
					struct smdsp_v34_mframe mf;
					unsigned int n = smdsp_v34_frame_primary(tx), no;

					for (t = 0; t < n; t++)
						in[t] = (uint8_t)rbit();
					a = (uint8_t)rbit();
					smdsp_v34_frame_pack(tx, in, a, &mf);
					total += mf.bits;
					badlay += check_layout(&p, &mf, in, a, n);
					badsync += check_sync(&p, &mf, &nsync);
					no = smdsp_v34_frame_unpack(rx, &mf, out, &ao);
					if (no != n || memcmp(in, out, n) || (mf.aux && ao != a))
						bad++;
				}
				CHECK(total == 2 * p.j * p.n, "S=%u R=%u: %u bits in 2 superframes", s, rate, total);
				CHECK(nsync == 4 * p.j, "%u sync places", nsync);
				smdsp_v34_frame_free(tx);
				smdsp_v34_frame_free(rx);
			}
		}
	}
	CHECK(configs == 2 * 65);
	CHECK(bad == 0 && badlay == 0 && badsync == 0, "round trip %u, layout %u, sync %u", bad, badlay, badsync);
}

/* -- trellis ----------------------------------------------------------------------------------- */

/* Table 13 typed in: Y4 Y3 Y2 Y1 by the first (row) and second 2D label */
static const unsigned char t13[8][8] = {
	{ 0, 0, 1, 1, 8, 8, 9, 9 },       { 3, 2, 2, 3, 11, 10, 10, 11 }, { 5, 5, 4, 4, 13, 13, 12, 12 },
	{ 6, 7, 7, 6, 14, 15, 15, 14 },   { 8, 8, 9, 9, 0, 0, 1, 1 },     { 11, 10, 10, 11, 3, 2, 2, 3 },
	{ 13, 13, 12, 12, 5, 5, 4, 4 },   { 14, 15, 15, 14, 6, 7, 7, 6 },
};

/* Figures 10-12 as delay cells: cell k holds w(k); the new contents from the gates */
static unsigned int figure(unsigned int states, unsigned int st, unsigned int y)
{
	int w[7], nw[7], Y[5], i, nb = states == 16 ? 4 : states == 32 ? 5 : 6;
	unsigned int r = 0;

	for (i = 1; i <= nb; i++)
		w[i] = (st >> (i - 1)) & 1;
	for (i = 1; i <= 4; i++)
		Y[i] = (y >> (i - 1)) & 1;
	if (states == 16) {
		nw[1] = w[2] ^ Y[1];
		nw[2] = w[3] ^ Y[2];
		nw[3] = w[4] ^ w[1] ^ Y[2];
		nw[4] = w[1];
	} else if (states == 32) {
		nw[1] = w[2] ^ Y[2];
		nw[2] = w[3] ^ Y[4];
		nw[3] = w[4] ^ Y[1];
		nw[4] = w[5] ^ Y[2];
		nw[5] = w[1];
	} else {
		int a = w[5] ^ Y[1];

		nw[1] = w[2] ^ w[4] ^ Y[2];
		nw[2] = w[1];
		nw[3] = w[4];
		nw[4] = w[4] ^ a;
		nw[5] = w[6] ^ w[5] ^ w[3] ^ Y[3] ^ (Y[2] & w[4]);
		nw[6] = w[6] ^ w[5] ^ (a & w[4]) ^ Y[4];
	}
	for (i = 1; i <= nb; i++)
		r |= (unsigned int)nw[i] << (i - 1);
	return r;
}

static void test_trellis_tables(void)
{
	unsigned int n, st, y, l0, l1, bad = 0;
	int x, yy, i;
	struct smdsp_v34_trellis *t = smdsp_v34_trellis_create(16);
	char buf[128];

	for (n = 16; n <= 64; n *= 2) {
		unsigned int reach[64] = { 0 };

		for (st = 0; st < n; st++)
			for (y = 0; y < 16; y++) {
				unsigned int ns = smdsp_v34_trellis_next(n, st, y);

				if (ns != figure(n, st, y) || ns >= n)
					bad++;
				else
					reach[ns]++;
			}
		for (st = 0; st < n; st++)
			if (reach[st] != 16)
				bad++;
	}
	CHECK(bad == 0, "%u transitions differ from Figures 10-12", bad);
	CHECK(!smdsp_v34_trellis_create(8) && !smdsp_v34_viterbi_create(128));
	bad = 0;
	for (l0 = 0; l0 < 8; l0++)
		for (l1 = 0; l1 < 8; l1++)
			if (smdsp_v34_subset4(l0, l1) != t13[l0][l1])
				bad++;
	CHECK(bad == 0, "Table 13: %u", bad);
	/* each 4D subset (Y0..Y4) is two label pairs */
	{
		unsigned int cnt[2][16] = { { 0 } };

		for (l0 = 0; l0 < 8; l0++)
			for (l1 = 0; l1 < 8; l1++)
				cnt[smdsp_v34_y0(l0, l1)][t13[l0][l1]]++;
		bad = 0;
		for (y = 0; y < 32; y++)
			bad += cnt[y >> 4][y & 15] != 2;
		CHECK(bad == 0);
	}
	/* labels: cosets of the lattice (4,4),(4,-4); a clockwise quarter turn adds 1 to bits 0-1 */
	bad = 0;
	for (x = -41; x <= 41; x += 2)
		for (yy = -41; yy <= 41; yy += 2) {
			unsigned int l = smdsp_v34_label(x, yy);
			int rx = x, ry = yy;

			if (smdsp_v34_label(x + 4, yy + 4) != l || smdsp_v34_label(x + 4, yy - 4) != l)
				bad++;
			if (smdsp_v34_label(x + 2, yy + 2) == l || smdsp_v34_label(x + 4, yy) == l ||
			    smdsp_v34_label(x + 2, yy) == l)
				bad++;
			smdsp_v34_rotate(&rx, &ry, 1);
			if (smdsp_v34_label(rx, ry) != ((l & 4) | ((l + 1) & 3)))
				bad++;
			if (rx != yy || ry != -x)
				bad++;
		}
	CHECK(bad == 0, "labels: %u", bad);
	/* the quarter-superconstellation: 416 points = (1,1) mod 4, by energy; index() inverts point() */
	bad = 0;
	{
		int last = 0, px, py;

		for (i = 0; i < SMDSP_V34_QUARTER; i++) {
			int e;
			unsigned int r;

			smdsp_v34_trellis_point(t, (unsigned int)i, &px, &py);
			e = px * px + py * py;
			if (((px & 3) != 1) || ((py & 3) != 1) || e < last)
				bad++;
			last = e;
			if (smdsp_v34_trellis_index(t, px, py) != i)
				bad++;
			for (r = 0; r < 4; r++) {
				int qx = px, qy = py;

				smdsp_v34_rotate(&qx, &qy, r);
				if (smdsp_v34_rotation(qx, qy) != r)
					bad++;
			}
		}
		/* nothing left out inside the last energy */
		for (x = -63; x <= 65; x += 4)
			for (yy = -63; yy <= 65; yy += 4)
				if (x * x + yy * yy < last && smdsp_v34_trellis_index(t, x, yy) < 0)
					bad++;
		CHECK(bad == 0, "quarter superconstellation: %u", bad);
		printf("quarter superconstellation: 416 points, energy 2 to %d (peak/mean ", last);
		{
			double e = 0;

			for (i = 0; i < SMDSP_V34_QUARTER; i++) {
				smdsp_v34_trellis_point(t, (unsigned int)i, &px, &py);
				e += px * px + py * py;
			}
			printf("%.2f dB)\n", 10 * log10(last / (e / SMDSP_V34_QUARTER)));
		}
	}
	print_check("v34_trellis", smdsp_v34_trellis_print(t, buf, sizeof(buf)), buf);
	smdsp_v34_trellis_free(t);
}

/* squared distance between the nearest points of two labels, and inside one (odd lattice, units) */
static int dlab[8][8];

static void label_distances(void)
{
	int x, y, u, v;

	for (x = 0; x < 8; x++)
		for (y = 0; y < 8; y++)
			dlab[x][y] = 1 << 20;
	for (x = -9; x <= 9; x += 2)
		for (y = -9; y <= 9; y += 2)
			for (u = -9; u <= 9; u += 2)
				for (v = -9; v <= 9; v += 2) {
					int d = (x - u) * (x - u) + (y - v) * (y - v);
					unsigned int a = smdsp_v34_label(x, y), b = smdsp_v34_label(u, v);

					if (d && d < dlab[a][b])
						dlab[a][b] = d;
				}
}

/* distance between the branch (y0, ya) and (y0', yb): the closest pair of their label pairs */
static int bdist(unsigned int y0a, unsigned int ya, unsigned int y0b, unsigned int yb)
{
	int best = 1 << 20;
	unsigned int a0, a1, b0, b1;

	for (a0 = 0; a0 < 8; a0++)
		for (a1 = 0; a1 < 8; a1++) {
			if (smdsp_v34_y0(a0, a1) != y0a || t13[a0][a1] != ya)
				continue;
			for (b0 = 0; b0 < 8; b0++)
				for (b1 = 0; b1 < 8; b1++) {
					int d;

					if (smdsp_v34_y0(b0, b1) != y0b || t13[b0][b1] != yb)
						continue;
					d = (a0 == b0 ? 0 : dlab[a0][b0]) + (a1 == b1 ? 0 : dlab[a1][b1]);
					if (d < best)
						best = d;
				}
		}
	return best;
}

/* two points of one 4D subset: one label pair's points (32 apart), or its two pairs' */
static int parallel_distance(void)
{
	unsigned int a, b;
	int par = dlab[0][0];

	for (a = 0; a < 64; a++)
		for (b = 0; b < 64; b++) {
			unsigned int a0 = a >> 3, a1 = a & 7, b0 = b >> 3, b1 = b & 7;
			int d;

			if (a == b || smdsp_v34_y0(a0, a1) != smdsp_v34_y0(b0, b1) || t13[a0][a1] != t13[b0][b1])
				continue;
			d = (a0 == b0 ? 0 : dlab[a0][b0]) + (a1 == b1 ? 0 : dlab[a1][b1]);
			par = d < par ? d : par;
		}
	return par;
}

/* d2free: the least distance between two paths that part and meet again (Dijkstra over state pairs) */
static int dfree(unsigned int n, int *parallel)
{
	static int bd[2][16][2][16];
	static int dist[64][64];
	static unsigned char done[64][64];
	unsigned int a, b, ya, yb, y0a, y0b;
	int best = 1 << 20, par = 1 << 20;

	for (y0a = 0; y0a < 2; y0a++)
		for (ya = 0; ya < 16; ya++)
			for (y0b = 0; y0b < 2; y0b++)
				for (yb = 0; yb < 16; yb++)
					bd[y0a][ya][y0b][yb] = bdist(y0a, ya, y0b, yb);
	par = parallel_distance();
	for (a = 0; a < n; a++) {
		for (b = 0; b < 64; b++)
			for (ya = 0; ya < 64; ya++) {
				dist[b][ya] = 1 << 20;
				done[b][ya] = 0;
			}
		/* the first step: two different branches from state a */
		for (ya = 0; ya < 16; ya++)
			for (yb = 0; yb < 16; yb++) {
				unsigned int na = smdsp_v34_trellis_next(n, a, ya), nb = smdsp_v34_trellis_next(n, a, yb);
				int d = bd[a & 1][ya][a & 1][yb];

				if (ya == yb)
					continue;
				if (na == nb) {
					best = d < best ? d : best;
					continue;
				}
				if (d < dist[na][nb])
					dist[na][nb] = d;
			}
		for (;;) {
			unsigned int ba = 0, bb = 0;
			int bdv = 1 << 20;

			for (ya = 0; ya < n; ya++)
				for (yb = 0; yb < n; yb++)
					if (!done[ya][yb] && dist[ya][yb] < bdv) {
						bdv = dist[ya][yb];
						ba = ya;
						bb = yb;
					}
			if (bdv >= best)
				break;
			done[ba][bb] = 1;
			for (ya = 0; ya < 16; ya++)
				for (yb = 0; yb < 16; yb++) {
					unsigned int na = smdsp_v34_trellis_next(n, ba, ya);
					unsigned int nb = smdsp_v34_trellis_next(n, bb, yb);
					int d = bdv + bd[ba & 1][ya][bb & 1][yb];

					if (na == nb) {
						best = d < best ? d : best;
						continue;
					}
					if (d < dist[na][nb])
						dist[na][nb] = d;
				}
		}
	}
	*parallel = par;
	return best;
}

static void test_trellis_distance(void)
{
	unsigned int n;
	int par, d;

	label_distances();
	CHECK(dlab[0][0] == 32 && dlab[0][1] == 4 && dlab[0][2] == 8, "%d %d %d", dlab[0][0], dlab[0][1],
	      dlab[0][2]);
	for (n = 16; n <= 64; n *= 2) {
		d = dfree(n, &par);
		/*
		 * d0^2 = 4 between neighbours; Wei's 4D codes: d2free = 4 d0^2 for 16 and 32
		 * states, 5 d0^2 for 64; the parallel transitions 8 d0^2 apart (the 4D subsets)
		 */
		printf("%u states: d2free = %d (%.2f d0^2), parallel subsets %d apart: asymptotic gain %.2f dB (%.2f dB less the 1.51 dB of the redundant bit)\n",
		       n, d, d / 4.0, par,
		       10 * log10(d / 4.0), 10 * log10(d / 4.0) - 10 * log10(sqrt(2.0)));
		CHECK(d == (n == 64 ? 20 : 16), "%u states: d2free %d", n, d);
		CHECK(par == 32, "parallel %d", par);
	}
}

/* a random 4D code sequence through the encoder side of the block; the Viterbi decoder gets it back */
static void test_viterbi(void)
{
	unsigned int n;

	for (n = 16; n <= 64; n *= 2) {
		struct smdsp_v34_trellis *t = smdsp_v34_trellis_create(n);
		struct smdsp_v34_viterbi *v = smdsp_v34_viterbi_create(n);
		enum { SYMS = 3000 };
		static int sent[SYMS][4];
		unsigned int m, got = 0, bad = 0, badv0 = 0, inj = 0;
		char buf[128];

		for (m = 0; m < SYMS + SMDSP_V34_VITERBI_DEPTH; m++) {
			unsigned int v0 = m % 37 == 5, u0, z, k, idx0, idx1;
			int x0, y0, x1, y1, out[4];
			int32_t rx[4];

			idx0 = (unsigned int)(t_rand64(&seed) % SMDSP_V34_QUARTER);
			idx1 = (unsigned int)(t_rand64(&seed) % SMDSP_V34_QUARTER);
			z = smdsp_v34_trellis_diff(t, (unsigned int)(t_rand64(&seed) & 7));
			smdsp_v34_trellis_point(t, idx0, &x0, &y0);
			smdsp_v34_rotate(&x0, &y0, z);
			u0 = smdsp_v34_trellis_u0(t, 0, v0);
			smdsp_v34_trellis_point(t, idx1, &x1, &y1);
			smdsp_v34_rotate(&x1, &y1, z + 2 * rbit() + u0);
			/* the pair sent has the state's Y0, inverted where V0 says */
			if (smdsp_v34_y0(smdsp_v34_label(x0, y0), smdsp_v34_label(x1, y1)) !=
			    ((smdsp_v34_trellis_state(t) ^ v0) & 1))
				badv0++;
			smdsp_v34_trellis_advance(t, smdsp_v34_label(x0, y0), smdsp_v34_label(x1, y1));
			if (m < SYMS) {
				sent[m][0] = x0;
				sent[m][1] = y0;
				sent[m][2] = x1;
				sent[m][3] = y1;
			}
			rx[0] = x0 * 128;
			rx[1] = y0 * 128;
			rx[2] = x1 * 128;
			rx[3] = y1 * 128;
			/* errors: one 2D point in 40 moved 1.9 units (under half the free distance, 2) */
			if (m % 40 == 17) {
				double a = 2 * M_PI * (t_rand64(&seed) % 1000) / 1000.0;

				k = rbit() * 2;
				rx[k] += (int32_t)lrint(1.9 * 128 * cos(a));
				rx[k + 1] += (int32_t)lrint(1.9 * 128 * sin(a));
				inj++;
			}
			if (smdsp_v34_viterbi_step(v, rx, v0, out)) {
				if (got < SYMS && memcmp(out, sent[got], sizeof(out)))
					bad++;
				got++;
			}
		}
		CHECK(got == SYMS + 1, "%u decided", got);
		CHECK(badv0 == 0);
		CHECK(bad == 0, "%u states: %u of %u 4D symbols wrong with %u errors injected", n, bad, SYMS, inj);
		printf("viterbi %u states: %u 4D symbols, %u points moved by 1.9, %u decided wrong\n", n, SYMS,
		       inj, bad);
		print_check("v34_viterbi", smdsp_v34_viterbi_print(v, buf, sizeof(buf)), buf);
		smdsp_v34_trellis_free(t);
		smdsp_v34_viterbi_free(v);
	}
}

/* -- precoder ---------------------------------------------------------------------------------- */

static void test_precoder(void)
{
	static const int16_t hs[3][6] = {
		{ 4915, -1638, -2458, 819, 1229, -410 },	/* 0.3-0.1i, -0.15+0.05i, 0.075-0.025i */
		{ -8192, 3277, 4096, 0, -1638, 1638 },
		{ 0, 0, 0, 0, 0, 0 },
	};
	unsigned int k, w;
	char buf[160];

	for (k = 0; k < 3; k++) {
		for (w = 1; w <= 2; w++) {
			struct smdsp_v34_precode *tx = smdsp_v34_precode_create(hs[k], w);
			struct smdsp_v34_precode *rx = smdsp_v34_precode_create(hs[k], w);
			double hist[3][2] = { { 0 } }, pu = 0, px = 0, peak = 0;
			unsigned int n, bad = 0, badp = 0, badrx = 0;
			const unsigned int nsym = 20000;

			for (n = 0; n < nsym; n++) {
				int ux = 4 * (int)(t_rand64(&seed) % 16) - 29, uy = 4 * (int)(t_rand64(&seed) % 16) - 29;
				int cx, cy, rcx, rcy;
				int32_t px32, py32, xo[2], xr[2];
				double p[2], e;

				smdsp_v34_precode_p(tx, &px32, &py32);
				/* p(n) = sum h(i) x(n - i), in floating point from our own history */
				p[0] = p[1] = 0;
				for (e = 0; e < 3; e++) {
					int i = (int)e;
					double hr = hs[k][2 * i] / 16384.0, hi = hs[k][2 * i + 1] / 16384.0;

					p[0] += hr * hist[i][0] - hi * hist[i][1];
					p[1] += hr * hist[i][1] + hi * hist[i][0];
				}
				if (fabs(px32 / 128.0 - p[0]) > 0.6 / 128 || fabs(py32 / 128.0 - p[1]) > 0.6 / 128)
					badp++;
				smdsp_v34_precode_c(tx, &cx, &cy);
				/* c(n): the nearest point of 2^w Z^2 to p(n) */
				if (cx % (1 << w) || cy % (1 << w) || fabs(cx - px32 / 128.0) > (1 << (w - 1)) + 1e-9 ||
				    fabs(cy - py32 / 128.0) > (1 << (w - 1)) + 1e-9)
					bad++;
				smdsp_v34_precode_push(tx, ux + cx, uy + cy, xo);
				hist[2][0] = hist[1][0];
				hist[2][1] = hist[1][1];
				hist[1][0] = hist[0][0];
				hist[1][1] = hist[0][1];
				hist[0][0] = xo[0] / 128.0;
				hist[0][1] = xo[1] / 128.0;
				/* the receiver, from the decided y alone, gets u back */
				smdsp_v34_precode_c(rx, &rcx, &rcy);
				smdsp_v34_precode_push(rx, ux + cx, uy + cy, xr);
				if (ux + cx - rcx != ux || uy + cy - rcy != uy || xr[0] != xo[0] || xr[1] != xo[1])
					badrx++;
				pu += ux * ux + uy * uy;
				px += (xo[0] / 128.0) * (xo[0] / 128.0) + (xo[1] / 128.0) * (xo[1] / 128.0);
				e = fmax(fabs(xo[0] / 128.0 - ux), fabs(xo[1] / 128.0 - uy));
				peak = e > peak ? e : peak;
			}
			CHECK(bad == 0 && badp == 0 && badrx == 0, "h%u w%u: c %u p %u rx %u", k, w, bad, badp, badrx);
			/* x - u is p - c, within half a lattice step per axis: power + 2 (2^w)^2 / 12 */
			CHECK(peak <= (1 << (w - 1)) + 1.0 / 128, "peak %f", peak);
			if (k < 2) {
				double want = pu / nsym + 2.0 * (1 << (2 * w)) / 12.0;

				CHECK(fabs(px / nsym - want) < 0.05 * want, "power %f want %f", px / nsym, want);
				printf("precoder h%u w=%u: |u|^2 %.2f, |x|^2 %.2f (uniform dither: %.2f), largest |x - u| per axis %.3f\n",
				       k, w, pu / nsym, px / nsym, want, peak);
			} else {
				CHECK(px == pu && peak == 0, "no coefficients, no change");
			}
			print_check("v34_precode", smdsp_v34_precode_print(tx, buf, sizeof(buf)), buf);
			smdsp_v34_precode_free(tx);
			smdsp_v34_precode_free(rx);
		}
	}
}

static void test_nonlinear(void)
{
	const uint32_t theta = 20480, power = (uint32_t)(2.0 * 40 * 40 / 3 * 128 * 128);
	unsigned int i, bad = 0, badinv = 0;
	double worst = 0, peak_in = 0, peak_out = 0;

	for (i = 0; i < 20000; i++) {
		int32_t v[2], w[2];
		double z, g, r;

		v[0] = (int32_t)(t_rand64(&seed) % (2 * 40 * 128)) - 40 * 128;
		v[1] = (int32_t)(t_rand64(&seed) % (2 * 40 * 128)) - 40 * 128;
		w[0] = v[0];
		w[1] = v[1];
		smdsp_v34_nonlinear(w, theta, power);
		z = 0.3125 * ((double)v[0] * v[0] + (double)v[1] * v[1]) / power;
		g = 1 + z / 6 + z * z / 120;
		r = fmax(fabs(w[0] - v[0] * g), fabs(w[1] - v[1] * g));
		worst = r > worst ? r : worst;
		if (r > 2)
			bad++;
		peak_in = fmax(peak_in, hypot(v[0], v[1]));
		peak_out = fmax(peak_out, hypot(w[0], w[1]));
		smdsp_v34_nonlinear_inverse(w, theta, power);
		if (abs(w[0] - v[0]) > 1 || abs(w[1] - v[1]) > 1)
			badinv++;
	}
	CHECK(bad == 0 && badinv == 0, "nonlinear %u (worst %.2f), inverse %u", bad, worst, badinv);
	printf("nonlinear encoder theta 0.3125: peak %.1f -> %.1f (1/128 units, x%.3f), inverse within 1/128\n",
	       peak_in, peak_out, peak_out / peak_in);
	{
		int32_t v[2] = { 1000, -2000 };

		smdsp_v34_nonlinear(v, 0, power);
		CHECK(v[0] == 1000 && v[1] == -2000);
	}
}

/* -- MP ---------------------------------------------------------------------------------------- */

static unsigned int fbit(const uint8_t *f, unsigned int i)
{
	return (f[i >> 3] >> (i & 7)) & 1;
}

/* the remainder of the frame's bits first..last (inclusive) times x^16, preset ones, by long division */
/* the bits first to last, every skip-th from first left out (0: none) */
static unsigned int crc_division(const uint8_t *f, unsigned int first, unsigned int last, unsigned int skip)
{
	unsigned char poly[200 + 16];
	unsigned int n = 0, i, k, r = 0;

	for (i = first; i <= last; i++)
		if (!skip || (i - first) % skip)
			poly[n++] = fbit(f, i);
	for (i = 0; i < n && i < 16; i++)
		poly[i] ^= 1;	/* preset: the first 16 inverted */
	for (i = 0; i < 16; i++)
		poly[n + i] = 0;
	for (i = 0; i < n; i++)
		if (poly[i])
			for (k = 0; k <= 16; k++)	/* x^16 + x^12 + x^5 + 1 */
				poly[i + k] ^= (k == 0 || k == 4 || k == 11 || k == 16);
	for (i = 0; i < 16; i++)
		r = (r << 1) | poly[n + i];
	return r;
}

/* one field of an MP away from 0 (or 1 for the rates) */
static void set_field(struct smdsp_v34_mp *mp, unsigned int field)
{
	if (field == 0)
		mp->rate_c_to_a = 14;
	else if (field == 1)
		mp->rate_a_to_c = 14;
	else if (field == 2)
		mp->aux = true;
	else if (field == 3)
		mp->trellis = 2;
	else if (field == 4)
		mp->nonlinear = true;
	else if (field == 5)
		mp->expanded = true;
	else if (field == 6)
		mp->ack = true;
	else if (field == 7)
		mp->rates = 0x3fff;
	else
		mp->asymmetric = true;
}

static void test_mp(void)
{
	struct smdsp_v34_mp mp, back;
	uint8_t f[32], g[32];
	unsigned int type, i, bad = 0, caught = 0, flips = 0, len;
	char buf[200];

	for (type = 0; type < 2; type++) {
		unsigned int nb = type ? 188 : 88, crcpos = type ? 171 : 69;

		memset(&mp, 0, sizeof(mp));
		mp.type = type;
		mp.rate_c_to_a = 12;
		mp.rate_a_to_c = 14;
		mp.trellis = 1;
		mp.rates = 0x3fff;
		if (type) {
			mp.h[0] = 0x1234;
			mp.h[5] = -2;
		}
		memset(f, 0xaa, sizeof(f));
		CHECK(smdsp_v34_mp_pack(&mp, f) == (int)nb);
		CHECK(smdsp_v34_mp_bits(type) == nb);
		/* Table 18: 17 ones, start bits 0 every 17 bits up to the CRC, fill 0 */
		for (i = 0; i < 17; i++)
			bad += !fbit(f, i);
		for (i = 17; i < crcpos; i += 17)
			bad += fbit(f, i);
		for (i = crcpos + 16; i < nb; i++)
			bad += fbit(f, i);
		CHECK(bad == 0, "type %u: sync, start or fill bits wrong: %u", type, bad);
		CHECK(fbit(f, 18) == type && fbit(f, 19) == 0);
		/* rate c>a = 12 in bits 20-23, a>c = 14 in 24-27, trellis 1 in 29-30, mask in 35-48 */
		CHECK(fbit(f, 20) == 0 && fbit(f, 21) == 0 && fbit(f, 22) == 1 && fbit(f, 23) == 1);
		CHECK(fbit(f, 24) == 0 && fbit(f, 25) == 1 && fbit(f, 26) == 1 && fbit(f, 27) == 1);
		CHECK(fbit(f, 28) == 0 && fbit(f, 29) == 1 && fbit(f, 30) == 0 && fbit(f, 33) == 0);
		for (i = 35; i <= 48; i++)
			bad += !fbit(f, i);
		CHECK(bad == 0 && fbit(f, 49) == 0);
		if (type) {
			/* h(1) real 0x1234 in 52-67, h(3) imaginary -2 in 137-152 */
			unsigned int v = 0;

			for (i = 0; i < 16; i++)
				v |= fbit(f, 52 + i) << i;
			CHECK(v == 0x1234);
			v = 0;
			for (i = 0; i < 16; i++)
				v |= fbit(f, 137 + i) << i;
			CHECK(v == 0xfffe);
		}
		/*
		 * the CRC: the division's remainder over the data bits (the start
		 * bits 17, 34, ... left out, as real modems compute it), highest
		 * order bit first, at crcpos; not the remainder with them in
		 */
		{
			unsigned int want = crc_division(f, 17, crcpos - 1, 17), got = 0;
			unsigned int with_starts = crc_division(f, 17, crcpos - 1, 0);

			for (i = 0; i < 16; i++)
				got = (got << 1) | fbit(f, crcpos + i);
			CHECK(got == want, "type %u CRC %04x, division %04x", type, got, want);
			CHECK(with_starts != want, "type %u: the start bits change nothing here", type);
			CHECK(smdsp_v34_mp_crc(f, nb) == 0);
		}
		CHECK(smdsp_v34_mp_unpack(f, nb, &back) == SMDSP_V34_MP_OK && !memcmp(&back, &mp, sizeof(mp)));
		/* each field alone lands on its own bits */
		{
			struct smdsp_v34_mp one;
			static const struct {
				unsigned int first, width;
			} where[] = { { 20, 4 }, { 24, 4 }, { 28, 1 }, { 29, 2 }, { 31, 1 }, { 32, 1 }, { 33, 1 },
				      { 35, 14 }, { 50, 1 } };
			unsigned int fi;

			for (fi = 0; fi < 9; fi++) {
				uint8_t a[32] = { 0 }, b[32] = { 0 };

				memset(&one, 0, sizeof(one));
				one.type = type;
				one.rate_c_to_a = one.rate_a_to_c = 1;
				smdsp_v34_mp_pack(&one, a);
				set_field(&one, fi);
				smdsp_v34_mp_pack(&one, b);
				for (i = 0; i < crcpos; i++)
					if (fbit(a, i) != fbit(b, i) &&
					    (i < where[fi].first || i >= where[fi].first + where[fi].width))
						bad++;
			}
			CHECK(bad == 0, "a field outside its bits: %u", bad);
		}
		/* random round trips and every single-bit error among the frame's bits before the fill */
		for (i = 0; i < 300; i++) {
			unsigned int k;

			memset(&mp, 0, sizeof(mp));
			mp.type = type;
			mp.rate_c_to_a = 1 + (unsigned int)(t_rand64(&seed) % 14);
			mp.rate_a_to_c = 1 + (unsigned int)(t_rand64(&seed) % 14);
			mp.aux = rbit();
			mp.trellis = (unsigned int)(t_rand64(&seed) % 3);
			mp.nonlinear = rbit();
			mp.expanded = rbit();
			mp.ack = rbit();
			mp.rates = (uint16_t)(t_rand64(&seed) & 0x3fff);
			mp.asymmetric = rbit();
			mp.reserved = (uint16_t)t_rand64(&seed);
			for (k = 0; type && k < 6; k++)
				mp.h[k] = (int16_t)t_rand64(&seed);
			len = (unsigned int)smdsp_v34_mp_pack(&mp, f);
			if (smdsp_v34_mp_unpack(f, len, &back) || memcmp(&back, &mp, sizeof(mp)))
				bad++;
			if (i < 20) {
				for (k = 0; k < crcpos + 16; k++) {
					memcpy(g, f, sizeof(g));
					g[k >> 3] ^= (uint8_t)(1u << (k & 7));
					flips++;
					caught += smdsp_v34_mp_unpack(g, len, &back) != SMDSP_V34_MP_OK;
				}
			}
		}
		CHECK(bad == 0, "type %u: %u round trips failed", type, bad);
		mp.trellis = 3;
		CHECK(smdsp_v34_mp_pack(&mp, f) == -EINVAL);
		CHECK(smdsp_v34_mp_unpack(f, 60, &back) == SMDSP_V34_MP_SHORT);
	}
	CHECK(caught == flips, "%u of %u single-bit errors caught", caught, flips);
	printf("MP: %u single-bit errors, %u refused\n", flips, caught);
	/* MP' is MP with bit 33 set */
	memset(&mp, 0, sizeof(mp));
	mp.rate_c_to_a = mp.rate_a_to_c = 10;
	mp.ack = true;
	smdsp_v34_mp_pack(&mp, f);
	CHECK(fbit(f, 33) == 1);
	print_check("v34_mp'", smdsp_v34_mp_print(&mp, buf, sizeof(buf)), buf);
	/* E: 20 ones; an MP (start bit after 17 ones) is not one */
	CHECK(smdsp_v34_mp_e(g) == 20 && smdsp_v34_mp_is_e(g, 20) && !smdsp_v34_mp_is_e(f, 88) &&
	      !smdsp_v34_mp_is_e(g, 19));
}

/* -- the whole encoder and decoder --------------------------------------------------------------- */

/* the channel of the precoder's design: 1 + h(1) z^-1 + h(2) z^-2 + h(3) z^-3, after the nonlinear encoder's inverse */
struct channel {
	double h[6], hist[3][2];
	uint32_t theta, power;
	unsigned int rot;
};

static void channel(struct channel *c, const int32_t x[16], int32_t out[16])
{
	unsigned int n, i;

	for (n = 0; n < 8; n++) {
		int32_t v[2] = { x[2 * n], x[2 * n + 1] };
		double re, im;
		int ox, oy;

		if (c->theta)
			smdsp_v34_nonlinear_inverse(v, c->theta, c->power);
		re = v[0];
		im = v[1];
		for (i = 0; i < 3; i++) {
			re += c->h[2 * i] * c->hist[i][0] - c->h[2 * i + 1] * c->hist[i][1];
			im += c->h[2 * i] * c->hist[i][1] + c->h[2 * i + 1] * c->hist[i][0];
		}
		memmove(c->hist[1], c->hist[0], 2 * sizeof(c->hist[0]));
		c->hist[0][0] = v[0];
		c->hist[0][1] = v[1];
		ox = (int)lrint(re);
		oy = (int)lrint(im);
		smdsp_v34_rotate(&ox, &oy, c->rot);
		out[2 * n] = ox;
		out[2 * n + 1] = oy;
	}
}

/* frames of random data through tx, the channel, rx: the bit errors after the decoder's delay (the first skip bits not judged) */
static unsigned int run(const struct smdsp_v34_data_config *cfg, unsigned int frames, unsigned int rot,
			unsigned int skip, bool ones, unsigned int *nbits)
{
	struct smdsp_v34_data_tx *tx = smdsp_v34_data_tx_create(cfg);
	struct smdsp_v34_data_config rcfg = *cfg;
	struct smdsp_v34_data_rx *rx;
	static uint8_t sent[400][SMDSP_V34_MAX_B], sent_aux[400];
	static unsigned int sent_n[400];
	struct channel ch;
	unsigned int f, errs = 0, got = 0, i;
	char buf[200];

	rx = smdsp_v34_data_rx_create(&rcfg);
	if (!tx || !rx) {
		CHECK(0, "create");
		return 1;
	}
	memset(&ch, 0, sizeof(ch));
	for (i = 0; i < 6; i++)
		ch.h[i] = cfg->h[i] / 16384.0;
	ch.theta = cfg->theta;
	ch.power = smdsp_v34_data_tx_power(tx);
	ch.rot = rot;
	*nbits = 0;
	for (f = 0; f < frames + SMDSP_V34_DATA_DELAY_FRAMES; f++) {
		int32_t x[16], y[16];
		uint8_t out[SMDSP_V34_MAX_B], aux;
		unsigned int n = smdsp_v34_data_tx_bits(tx), no, k = f % 400;

		for (i = 0; i < n; i++)
			sent[k][i] = ones ? 1 : (uint8_t)rbit();
		sent_n[k] = n;
		sent_aux[k] = (uint8_t)rbit();
		smdsp_v34_data_tx_frame(tx, sent[k], sent_aux[k], x, NULL);
		channel(&ch, x, y);
		no = smdsp_v34_data_rx_frame(rx, y, out, &aux);
		if (f >= SMDSP_V34_DATA_DELAY_FRAMES) {
			unsigned int d = (f - SMDSP_V34_DATA_DELAY_FRAMES) % 400;

			if (no != sent_n[d]) {
				errs += 1000;
				continue;
			}
			for (i = 0; i < no; i++, got++)
				if (got >= skip) {
					errs += out[i] != sent[d][i];
					(*nbits)++;
				}
			if (cfg->aux && smdsp_v34_frame_has_aux(smdsp_v34_data_tx_params(tx), d % smdsp_v34_data_tx_params(tx)->p))
				errs += aux != sent_aux[d];
		} else if (no) {
			errs += 1000;
		}
	}
	print_check("v34_data_tx", smdsp_v34_data_tx_print(tx, buf, sizeof(buf)), buf);
	print_check("v34_data_rx", smdsp_v34_data_rx_print(rx, buf, sizeof(buf)), buf);
	smdsp_v34_data_tx_free(tx);
	smdsp_v34_data_rx_free(rx);
	return errs;
}

static void test_data(void)
{
	static const int16_t h[6] = { 4915, -1638, -2458, 819, 1229, -410 };
	unsigned int s, rate, aux, errs = 0, cases = 0, nbits, total = 0, rot;
	struct smdsp_v34_data_config cfg;

	/* every allowed rate, aux on and off, noiseless, 16 states; 32 and 64 states, expanded, a precoder */
	for (s = 0; s < 6; s++)
		for (rate = 2400; rate <= 33600; rate += 2400)
			for (aux = 0; aux < 2; aux++) {
				unsigned int e;

				memset(&cfg, 0, sizeof(cfg));
				cfg.symbol_rate = s;
				cfg.data_rate = rate;
				cfg.aux = aux;
				cfg.states = 16u << ((rate / 2400 + aux) % 3);
				cfg.expanded = (rate / 2400) & 1;
				cfg.caller = (rate / 2400 + s) & 1;
				if (!smdsp_v34_frame_rate_ok(s, rate))
					continue;
				if ((rate / 2400 + s) % 3 == 0)
					memcpy(cfg.h, h, sizeof(h));
				e = run(&cfg, 40, 0, 0, false, &nbits);
				CHECK(e == 0, "S=%u R=%u aux=%u states=%u: %u errors", s, rate, aux, cfg.states, e);
				errs += e;
				total += nbits;
				cases++;
			}
	printf("data mode round trips: %u configurations, %u bits, %u errors\n", cases, total, errs);
	CHECK(cases == 130);
	/* the nonlinear encoder with a precoder: the channel undoes it (as a compander would) */
	memset(&cfg, 0, sizeof(cfg));
	cfg.symbol_rate = 4;
	cfg.data_rate = 28800;
	cfg.states = 64;
	cfg.theta = 20480;
	memcpy(cfg.h, h, sizeof(h));
	errs = run(&cfg, 60, 0, 0, false, &nbits);
	CHECK(errs == 0 && nbits > 0, "nonlinear: %u errors", errs);
	/* a strong precoder (|h(1)| near 0.8): y = u + c far beyond the constellation, still exact */
	{
		static const int16_t big[6] = { 12000, 4000, -6000, 2000, 3000, -1000 };

		memset(&cfg, 0, sizeof(cfg));
		cfg.symbol_rate = 5;
		cfg.data_rate = 33600;
		cfg.states = 32;
		memcpy(cfg.h, big, sizeof(big));
		errs = run(&cfg, 60, 0, 0, false, &nbits);
		CHECK(errs == 0 && nbits > 0, "strong precoder at 33600: %u errors", errs);
		cfg.symbol_rate = 0;
		cfg.data_rate = 4800;
		errs = run(&cfg, 60, 0, 0, false, &nbits);
		CHECK(errs == 0 && nbits > 0, "strong precoder at 4800: %u errors", errs);
	}
	/* turned by 90, 180, 270 degrees: right again after the first frame (the differential code) */
	for (rot = 1; rot < 4; rot++) {
		memset(&cfg, 0, sizeof(cfg));
		cfg.symbol_rate = 5;
		cfg.data_rate = 33600;
		cfg.states = 16u << (rot - 1);
		/* the first 4D symbol's rotation is lost, and the descrambler spreads it 23 bits on */
		errs = run(&cfg, 40, rot, 79 + 23, false, &nbits);
		CHECK(errs == 0, "turned by %u x 90: %u errors", rot, errs);
		cfg.symbol_rate = 0;
		cfg.data_rate = 2400;
		errs = run(&cfg, 40, rot, 8 + 23, false, &nbits);
		CHECK(errs == 0, "2400 turned by %u x 90: %u errors", rot, errs);
	}
	/* B1: one data frame of scrambled ones at the data rate, ones out */
	memset(&cfg, 0, sizeof(cfg));
	cfg.symbol_rate = 3;
	cfg.data_rate = 24000;
	cfg.states = 16;
	cfg.caller = true;
	errs = run(&cfg, 15, 0, 0, true, &nbits);
	CHECK(errs == 0 && nbits == 24000 * 28 / 700, "B1: %u errors in %u bits", errs, nbits);
	/* refused: a rate the symbol rate does not allow, 8 states */
	cfg.data_rate = 33600;
	CHECK(!smdsp_v34_data_tx_create(&cfg) && !smdsp_v34_data_rx_create(&cfg));
	cfg.data_rate = 24000;
	cfg.states = 8;
	CHECK(!smdsp_v34_data_tx_create(&cfg));
}

int main(void)
{
	test_scrambler();
	test_frame_tables();
	test_frame_roundtrip();
	test_trellis_tables();
	test_trellis_distance();
	test_viterbi();
	test_precoder();
	test_nonlinear();
	test_mp();
	test_data();
	return t_report("test_v34_data");
}
