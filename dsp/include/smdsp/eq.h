/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Complex adaptive (LMS) equalizer, fractionally spaced.
 */
#ifndef SMDSP_EQ_H
#define SMDSP_EQ_H

#include <smdsp/fixmath.h>

#define SMDSP_EQ_MAX 32
#define SMDSP_EQ_COEF_ONE (1 << 28)	/* coefficient 1.0 */

struct smdsp_eq;

struct smdsp_eq *smdsp_eq_create(unsigned int len, unsigned int center, int mu_shift);
void smdsp_eq_free(struct smdsp_eq *e);
void smdsp_eq_reset(struct smdsp_eq *e, unsigned int center);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_eq_print(const struct smdsp_eq *e, char *buf, size_t len);
/* Shift a new input sample in. */
void smdsp_eq_push(struct smdsp_eq *e, int16_t re, int16_t im);
/* Output for the current history. */
struct smdsp_cplx smdsp_eq_output(const struct smdsp_eq *e);
/* c += mu * err * conj(x), err in the same units as the output. */
void smdsp_eq_update(struct smdsp_eq *e, int32_t err_re, int32_t err_im);

#endif /* SMDSP_EQ_H */
