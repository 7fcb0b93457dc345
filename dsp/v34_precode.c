// SPDX-License-Identifier: GPL-2.0
/*
 * V.34 precoder (9.6.2) and nonlinear encoder (9.7).
 *
 * The receiver's equaliser leaves a short tail of intersymbol interference
 * (it is a noise-whitening predictor): 1 + h(1) z^-1 + h(2) z^-2 + h(3)
 * z^-3. Feeding that back in the receiver would spread its wrong decisions;
 * instead the transmitter subtracts the tail in advance, p(n) = sum h(i)
 * x(n - i) from its own past output x, rounded to 1/128. Subtracting p(n)
 * alone would let x grow without bound; so the transmitter first moves its
 * point by c(n), p(n) rounded to the lattice 2^w Z^2 (2Z^2, or 4Z^2 for
 * b >= 56): y(n) = u(n) + c(n) is still on the code's lattice with the same
 * 4D subset up to the parity C0 that U0 makes up for, and x(n) = y(n) - p(n)
 * stays within half a lattice step of u(n) on each axis. The receiver sees
 * y(n), decides it with the trellis decoder, and computes the same p(n) and
 * c(n) from its decided past, so u(n) = y(n) - c(n) exactly.
 *
 * The nonlinear encoder stretches points by their energy, x (1 + z/6 +
 * z^2/120) with z = theta |x|^2 / power, so that a companding channel
 * (PCM) compresses them back; theta is 0 or 0.3125 (MP bit 31). Its inverse
 * finds the scale s with s g(s^2 |x'|^2) = 1 by bisection (s g grows with s).
 */
#include <smdsp/private/v34_precode.h>

/* v / 2^sh rounded to the nearest, halves toward zero */
static int64_t shr_round(int64_t v, unsigned int sh)
{
	int64_t half = ((int64_t)1 << (sh - 1)) - 1;

	return v >= 0 ? (v + half) >> sh : -((-v + half) >> sh);
}

static void compute(struct smdsp_v34_precode *s)
{
	int64_t re = 0, im = 0;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		int64_t hr = s->h[2 * i], hi = s->h[2 * i + 1];

		re += hr * s->x[i][0] - hi * s->x[i][1];
		im += hr * s->x[i][1] + hi * s->x[i][0];
	}
	s->p[0] = (int32_t)shr_round(re, 14);
	s->p[1] = (int32_t)shr_round(im, 14);
	/* the nearest point of 2^w Z^2: p / 2^(7 + w) rounded, times 2^w */
	s->c[0] = (int)(shr_round(s->p[0], 7 + s->w) * (1 << s->w));
	s->c[1] = (int)(shr_round(s->p[1], 7 + s->w) * (1 << s->w));
}

void smdsp_v34_precode_init(struct smdsp_v34_precode *s, const int16_t h[6], unsigned int w)
{
	memset(s, 0, sizeof(*s));
	if (h)
		memcpy(s->h, h, sizeof(s->h));
	s->w = w == 2 ? 2 : 1;
}

struct smdsp_v34_precode *smdsp_v34_precode_create(const int16_t h[6], unsigned int w)
{
	struct smdsp_v34_precode *s = smdsp_alloc(sizeof(*s));

	if (s)
		smdsp_v34_precode_init(s, h, w);
	return s;
}

void smdsp_v34_precode_free(struct smdsp_v34_precode *s)
{
	smdsp_free(s);
}

void smdsp_v34_precode_reset(struct smdsp_v34_precode *s)
{
	memset(s->x, 0, sizeof(s->x));
	memset(s->p, 0, sizeof(s->p));
	memset(s->c, 0, sizeof(s->c));
	s->n = 0;
}

int smdsp_v34_precode_print(const struct smdsp_v34_precode *s, char *buf, size_t len)
{
	return snprintf(buf, len, "v34_precode w=%u h=%d,%d %d,%d %d,%d n=%u c=%d,%d", s->w, s->h[0], s->h[1],
			s->h[2], s->h[3], s->h[4], s->h[5], (unsigned int)s->n, s->c[0], s->c[1]);
}

void smdsp_v34_precode_c(const struct smdsp_v34_precode *s, int *cx, int *cy)
{
	*cx = s->c[0];
	*cy = s->c[1];
}

void smdsp_v34_precode_p(const struct smdsp_v34_precode *s, int32_t *px, int32_t *py)
{
	*px = s->p[0];
	*py = s->p[1];
}

void smdsp_v34_precode_push(struct smdsp_v34_precode *s, int yx, int yy, int32_t xo[2])
{
	xo[0] = yx * 128 - s->p[0];
	xo[1] = yy * 128 - s->p[1];
	s->x[2][0] = s->x[1][0];
	s->x[2][1] = s->x[1][1];
	s->x[1][0] = s->x[0][0];
	s->x[1][1] = s->x[0][1];
	s->x[0][0] = xo[0];
	s->x[0][1] = xo[1];
	s->n++;
	compute(s);
}

/* g(|v|^2) in 1/65536 */
static uint64_t gain(const int32_t v[2], uint32_t theta, uint32_t power)
{
	uint64_t e = (uint64_t)((int64_t)v[0] * v[0] + (int64_t)v[1] * v[1]), z;

	if (!power)
		return 65536;
	/* z in 1/65536; |v|^2 < 2^40 here, theta < 2^17 */
	z = smdsp_div_u64(e * theta, power);
	return 65536 + smdsp_div_u64(z, 6) + smdsp_div_u64(z * z, 120 * 65536);
}

void smdsp_v34_nonlinear(int32_t v[2], uint32_t theta, uint32_t power)
{
	int64_t g = (int64_t)gain(v, theta, power);

	v[0] = (int32_t)smdsp_div_s64((int64_t)v[0] * g, 65536);
	v[1] = (int32_t)smdsp_div_s64((int64_t)v[1] * g, 65536);
}

/* m g(|v m|^2) > 1 in 1/65536 (s g grows with s); *g the gain there */
static bool inverse_over(const int32_t v[2], uint32_t m, uint32_t theta, uint32_t power, uint64_t *g)
{
	int32_t t[2];

	t[0] = (int32_t)smdsp_div_s64((int64_t)v[0] * m, 65536);
	t[1] = (int32_t)smdsp_div_s64((int64_t)v[1] * m, 65536);
	*g = gain(t, theta, power);
	return (uint64_t)m * *g > (1ULL << 32);
}

void smdsp_v34_nonlinear_inverse(int32_t v[2], uint32_t theta, uint32_t power)
{
	uint64_t e = (uint64_t)((int64_t)v[0] * v[0] + (int64_t)v[1] * v[1]), g;
	uint32_t lo = 0, hi = 65536, m;

	if (!theta || !power || !e)
		return;
	/*
	 * The scale s (1/65536) with s g(s^2 |v|^2) = 1: the least m with m
	 * g(|v m|^2) > 2^32 (65536 if none below it), by bisection, the test
	 * false at lo and true at hi (or hi 65536). The bracket is narrowed
	 * first from both sides, the test's own values: with g at a false lo,
	 * 2^32 / g + 1 (floored) is a true point, as m g(m) >= m g(lo) > 2^32
	 * there; with g at a true hi (or at 65536), 2^32 / g - 1 (ceiled) a
	 * false one. That holds while g grows with m, which the test's
	 * truncations keep as long as nothing overflows: z (gain()) at m =
	 * 65536, its largest, under 2^26. Four or five tests in a call's
	 * data where the bisection alone takes sixteen, and the same m.
	 */
	if (e < (1ULL << 40) && theta < (1u << 17) && smdsp_div_u64(e * theta, power) < (1ULL << 26)) {
		g = gain(v, theta, power);
		lo = (uint32_t)smdsp_div_u64((1ULL << 32) + g - 1, (uint32_t)g) - 1;
		while (hi - lo > 1) {
			inverse_over(v, lo, theta, power, &g);
			m = (uint32_t)smdsp_div_u64(1ULL << 32, (uint32_t)g) + 1;
			if (m >= hi)
				break;
			hi = m;
			inverse_over(v, hi, theta, power, &g);
			m = (uint32_t)smdsp_div_u64((1ULL << 32) + g - 1, (uint32_t)g) - 1;
			if (m <= lo)
				break;
			lo = m;
		}
	}
	while (hi - lo > 1) {
		uint32_t mid = (lo + hi) / 2;

		if (inverse_over(v, mid, theta, power, &g))
			hi = mid;
		else
			lo = mid;
	}
	v[0] = (int32_t)smdsp_div_s64((int64_t)v[0] * hi + (v[0] >= 0 ? 32768 : -32768), 65536);
	v[1] = (int32_t)smdsp_div_s64((int64_t)v[1] * hi + (v[1] >= 0 ? 32768 : -32768), 65536);
}
