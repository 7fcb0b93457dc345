/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.34's data-mode framing (9.2-9.3): the parameters of each symbol rate and
 * data rate (J, P, N, b, r, K, q, M, L, W), and the framer that cuts the
 * bit stream into mapping frames (high frames of b bits, low frames of b - 1
 * by the switching pattern; an auxiliary channel bit where the pattern of W
 * puts one) and parses each into its shell bits, I bits and Q bits.
 */
#ifndef SMDSP_V34_FRAME_H
#define SMDSP_V34_FRAME_H

#include <smdsp/compat.h>

#define SMDSP_V34_SYMBOL_RATES 6	/* 2400, 2743, 2800, 3000, 3200, 3429 */
#define SMDSP_V34_MAX_B 79		/* bits in the largest mapping frame */

struct smdsp_v34_frame_params {
	unsigned int symbol_rate;	/* index: 0 = 2400 ... 5 = 3429 */
	unsigned int data_rate;		/* primary channel, bit/s */
	bool aux;			/* the 200 bit/s auxiliary channel */
	bool expanded;			/* expanded shaping (more rings, Table 10) */
	unsigned int j;			/* data frames per superframe (7 or 8) */
	unsigned int p;			/* mapping frames per data frame */
	unsigned int n;			/* bits per data frame, auxiliary bits included */
	unsigned int w;			/* auxiliary bits per data frame (0 without) */
	unsigned int b;			/* bits per high mapping frame (a low one: b - 1) */
	unsigned int r;			/* high mapping frames per data frame */
	unsigned int k;			/* shell bits per high mapping frame */
	unsigned int q;			/* Q bits per 2D symbol */
	unsigned int m;			/* rings */
	unsigned int l;			/* points used: 4 M 2^q */
	unsigned int w2;		/* precoder: c(n) on 2^w2 Z^2 (1 for b < 56, else 2) */
};

/* One mapping frame: eight 2D symbols, four 4D symbols. */
struct smdsp_v34_mframe {
	uint32_t r0;			/* shell bits, the first in time in bit 0 */
	unsigned int nshell;		/* how many: K, K - 1 in a low frame, 0 when b <= 12 */
	uint8_t i[4];			/* per 4D symbol: I1 in bit 0, I2, I3 */
	uint16_t q[8];			/* per 2D symbol: its q Q bits, the first in bit 0 */
	uint8_t v0[4];			/* per 4D symbol: the superframe sync inversion */
	bool high;			/* b bits (else b - 1) */
	bool aux;			/* one of them the auxiliary channel's (I1 of 4D symbol 0) */
	unsigned int bits;		/* b or b - 1 */
	unsigned int index;		/* in its data frame, 0 to P - 1 */
	unsigned int data_frame;	/* in its superframe, 0 to J - 1 */
};

struct smdsp_v34_frame;

/* Symbols per second of a symbol rate index (2743 for 2400 x 8/7 ...), 0 if none. */
unsigned int smdsp_v34_symbol_rate(unsigned int index);
/* Whether the recommendation allows data_rate at symbol rate index (Table 7). */
bool smdsp_v34_frame_rate_ok(unsigned int symbol_rate, unsigned int data_rate);
/* All of *p from the four choices; -EINVAL for a combination not allowed. */
int smdsp_v34_frame_params(unsigned int symbol_rate, unsigned int data_rate, bool aux, bool expanded,
			   struct smdsp_v34_frame_params *p);
/* Mapping frame i (0 to P - 1) of every data frame: a high frame? does it carry an aux bit? */
bool smdsp_v34_frame_is_high(const struct smdsp_v34_frame_params *p, unsigned int i);
bool smdsp_v34_frame_has_aux(const struct smdsp_v34_frame_params *p, unsigned int i);
/* The superframe sync pattern's bit for half data frame h (0 to 2J - 1). */
unsigned int smdsp_v34_frame_sync_bit(unsigned int h);

/* A framer at the first mapping frame of a superframe; NULL for bad params. */
struct smdsp_v34_frame *smdsp_v34_frame_create(const struct smdsp_v34_frame_params *p);
void smdsp_v34_frame_free(struct smdsp_v34_frame *s);
void smdsp_v34_frame_reset(struct smdsp_v34_frame *s);
int smdsp_v34_frame_print(const struct smdsp_v34_frame *s, char *buf, size_t len);
const struct smdsp_v34_frame_params *smdsp_v34_frame_get_params(const struct smdsp_v34_frame *s);
/* The layout of the next mapping frame (high, aux, bits, index, v0; no data), not moving on. */
void smdsp_v34_frame_peek(const struct smdsp_v34_frame *s, struct smdsp_v34_mframe *mf);
/* On to the next mapping frame without its bits: a framer that only keeps time. */
void smdsp_v34_frame_next(struct smdsp_v34_frame *s);
/* Primary (scrambled) bits the next mapping frame takes: its bits less its aux bit. */
unsigned int smdsp_v34_frame_primary(const struct smdsp_v34_frame *s);
/*
 * Transmit: the next mapping frame from smdsp_v34_frame_primary() bits (one
 * per byte, first in time first) and, if it has one, the aux bit; moves on.
 */
void smdsp_v34_frame_pack(struct smdsp_v34_frame *s, const uint8_t *bits, unsigned int aux,
			  struct smdsp_v34_mframe *mf);
/*
 * Receive: the bits back from a parsed frame (its layout from this framer,
 * which moves on): the primary bits into bits, the aux bit into *aux (0 if
 * none); returns the primary bits written.
 */
unsigned int smdsp_v34_frame_unpack(struct smdsp_v34_frame *s, const struct smdsp_v34_mframe *mf,
				    uint8_t *bits, uint8_t *aux);

#endif /* SMDSP_V34_FRAME_H */
