/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.34's precoder (9.6.2) and nonlinear encoder (9.7).
 *
 * The precoder takes the receiver's three complex coefficients h(1..3)
 * (sent in MP type 1, 14 fractional bits) and turns the mapped points u(n)
 * into y(n) = u(n) + c(n), c(n) the nearest point of 2^w Z^2 to
 * p(n) = sum h(i) x(n - i), and sends x(n) = y(n) - p(n): after a channel
 * 1 + sum h(i) z^-i the receiver sees y(n), whose trellis code survives,
 * and recovers u(n) = y(n) - c(n) by running the same recursion on its
 * decisions. Values: y and c in the recommendation's units (integers), x
 * and p in 1/128 of them.
 */
#ifndef SMDSP_V34_PRECODE_H
#define SMDSP_V34_PRECODE_H

#include <smdsp/compat.h>

struct smdsp_v34_precode;

/* h: h(1) re, im, h(2) re, im, h(3) re, im (Q2.14; NULL: all 0); w: 1 (b < 56) or 2 */
struct smdsp_v34_precode *smdsp_v34_precode_create(const int16_t h[6], unsigned int w);
void smdsp_v34_precode_free(struct smdsp_v34_precode *s);
/* the past x(n) to 0, same coefficients */
void smdsp_v34_precode_reset(struct smdsp_v34_precode *s);
int smdsp_v34_precode_print(const struct smdsp_v34_precode *s, char *buf, size_t len);
/* c(n) for the next symbol (multiples of 2^w), and p(n) in 1/128 units */
void smdsp_v34_precode_c(const struct smdsp_v34_precode *s, int *cx, int *cy);
void smdsp_v34_precode_p(const struct smdsp_v34_precode *s, int32_t *px, int32_t *py);
/* C(n) = (c.x + c.y) / 2 modulo 2: the parity a c(n) adds to a point's label bit 0 */
static inline unsigned int smdsp_v34_precode_cbit(int cx, int cy)
{
	return (unsigned int)((cx + cy) / 2) & 1;
}
/* y(n) sent (or decided): returns x(n) = 128 y(n) - p(n) in xo[2] and moves on to n + 1. */
void smdsp_v34_precode_push(struct smdsp_v34_precode *s, int yx, int yy, int32_t xo[2]);

/*
 * The nonlinear encoder: x' = x (1 + z/6 + z^2/120), z = theta |x|^2 / power
 * (theta in 1/65536: 0 or 0.3125 = 20480; power: the mean |x|^2 in the same
 * units as x^2). And its inverse (a fixed point iteration).
 */
void smdsp_v34_nonlinear(int32_t v[2], uint32_t theta, uint32_t power);
void smdsp_v34_nonlinear_inverse(int32_t v[2], uint32_t theta, uint32_t power);

#endif /* SMDSP_V34_PRECODE_H */
