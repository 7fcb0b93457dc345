/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.34's data-mode scrambler (clause 7): self-synchronising, the call
 * modem's transmitter dividing by GPC = 1 + x^-18 + x^-23, the answer
 * modem's by GPA = 1 + x^-5 + x^-23. A receiver descrambles with the far
 * end's polynomial.
 */
#ifndef SMDSP_V34_SCRAMBLE_H
#define SMDSP_V34_SCRAMBLE_H

#include <smdsp/compat.h>

struct smdsp_v34_scramble;

/* caller: GPC (the call modem's transmitter, or a receiver of it); else GPA */
struct smdsp_v34_scramble *smdsp_v34_scramble_create(bool caller);
void smdsp_v34_scramble_free(struct smdsp_v34_scramble *s);
/* the register back to zeros, same polynomial */
void smdsp_v34_scramble_reset(struct smdsp_v34_scramble *s);
int smdsp_v34_scramble_print(const struct smdsp_v34_scramble *s, char *buf, size_t len);
/* one bit through the scrambler (transmit) or the descrambler (receive) */
unsigned int smdsp_v34_scramble_bit(struct smdsp_v34_scramble *s, unsigned int bit);
unsigned int smdsp_v34_descramble_bit(struct smdsp_v34_scramble *s, unsigned int bit);
/* the polynomial's middle tap: 18 (GPC) or 5 (GPA) */
unsigned int smdsp_v34_scramble_tap(const struct smdsp_v34_scramble *s);

#endif /* SMDSP_V34_SCRAMBLE_H */
