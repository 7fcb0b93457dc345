/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V.34's data-mode encoder and decoder in the signal-point domain (clause 9):
 * bits -> scrambler -> mapping frames -> shell mapper -> superconstellation
 * points, rotations, differential encoding -> precoder and 4D trellis code
 * -> nonlinear encoder; and back (Viterbi decoder, inverse precoder,
 * demapping, shell unmapping, deframing, descrambler). No modulation.
 */
#ifndef SMDSP_V34_DATA_H
#define SMDSP_V34_DATA_H

#include <smdsp/compat.h>
#include <smdsp/v34_frame.h>

struct smdsp_v34_data_config {
	unsigned int symbol_rate;	/* index 0 (2400) - 5 (3429) */
	unsigned int data_rate;		/* bit/s */
	bool aux;			/* the auxiliary channel */
	bool expanded;			/* expanded shaping */
	unsigned int states;		/* 16, 32, 64 */
	bool caller;			/* the call modem's transmitter (GPC); a receiver: the far end's */
	int16_t h[6];			/* precoding coefficients (Q2.14), 0 for none */
	uint32_t theta;			/* nonlinear encoder, 1/65536: 0 or SMDSP_V34_THETA */
};

/* 9.7's theta, 0.3125 (1/65536): the nonlinear encoder MP asks for */
#define SMDSP_V34_THETA 20480

struct smdsp_v34_data_stats {
	uint32_t frames;		/* mapping frames */
	uint32_t bad_points;		/* decided points off the constellation (bad index or ring) */
	uint32_t bad_shell;		/* ring combinations the shell mapper never sends */
	/*
	 * The superframe sync check (9.6.3's V0: the first 4D symbol of each
	 * half data frame carries a bit of the sync pattern by inverting Y0):
	 * the positions checked and those whose inverse V0 fitted the Viterbi
	 * decoder's paths better by SMDSP_V34_SYNC_MARGIN
	 * (smdsp_v34_viterbi_margin()); the superframes judged (half their
	 * positions checked at least), those bad: their margins' mean under
	 * SMDSP_V34_SYNC_MEAN or SMDSP_V34_SYNC_BAD such misses; such
	 * superframes in a row now, and whether SMDSP_V34_SYNC_LOST came
	 * in a row: the decoder out of step with the transmitter's frames, its
	 * bits garbage.
	 */
	uint32_t sync_checks, sync_misses;
	uint32_t superframes, bad_superframes, bad_run;
	bool sync_lost;
};

/*
 * A miss: the inverse V0 fitting better by a quarter of the squared distance
 * between neighbours (1/128 units squared). In step, at the 16-state code's
 * need (a decoder error of 2 sigma^2 = 0.26 units), a position's margin
 * averages about 1.8 units squared with 0.9 of spread and fewer than 1
 * position in 200 misses; out of step by any 2D symbol the margins average
 * about 0 and a quarter of them miss, a position whose V0 is the other's
 * about -2.5, a miss. A superframe is bad for a mean under an eighth of that
 * distance (1.5 dB under the need, 1 superframe in 300 is) or 3 misses
 * (half a data frame out, J = 7, the pattern differs from itself at only 4
 * of its 14 positions: the misses, not the mean, see it).
 */
#define SMDSP_V34_SYNC_MARGIN 16384
#define SMDSP_V34_SYNC_MEAN 8192
#define SMDSP_V34_SYNC_BAD 3
#define SMDSP_V34_SYNC_LOST 2

struct smdsp_v34_data_tx;
struct smdsp_v34_data_rx;

/* NULL for a configuration V.34 does not allow (rate, states) or without memory. */
struct smdsp_v34_data_tx *smdsp_v34_data_tx_create(const struct smdsp_v34_data_config *cfg);
/*
 * Another configuration in place (no allocation: the rate and precoder
 * coefficients phase 4's MP exchange settles); also a reset. -EINVAL, and
 * the old configuration kept, for one V.34 does not allow.
 */
int smdsp_v34_data_tx_configure(struct smdsp_v34_data_tx *s, const struct smdsp_v34_data_config *cfg);
void smdsp_v34_data_tx_free(struct smdsp_v34_data_tx *s);
void smdsp_v34_data_tx_reset(struct smdsp_v34_data_tx *s);
int smdsp_v34_data_tx_print(const struct smdsp_v34_data_tx *s, char *buf, size_t len);
const struct smdsp_v34_frame_params *smdsp_v34_data_tx_params(const struct smdsp_v34_data_tx *s);
/* Data bits the next mapping frame takes (its bits less an aux bit). */
unsigned int smdsp_v34_data_tx_bits(const struct smdsp_v34_data_tx *s);
/*
 * One mapping frame: smdsp_v34_data_tx_bits() data bits (one per byte) and
 * the aux bit to eight points x(n) (out[2n], out[2n + 1], 1/128 units, after
 * the nonlinear encoder); y, if not NULL, gets the eight y(n) (integers).
 */
void smdsp_v34_data_tx_frame(struct smdsp_v34_data_tx *s, const uint8_t *bits, unsigned int aux,
			     int32_t out[16], int y[16]);
/*
 * The power the points are scaled by (1/128 units squared): the level on
 * the line (the training's power), the nonlinear encoder's normaliser.
 * Minimum shaping: the mean |u|^2 of the points in use as if equally
 * likely; expanded shaping: that of minimum shaping at the same rate times
 * the two shapings' actual means' ratio (the same power on the line, the
 * points further apart by the shaping gain).
 */
uint32_t smdsp_v34_data_tx_power(const struct smdsp_v34_data_tx *s);
/* The actual mean |u|^2 of a high mapping frame's points, the shell mapper's use of its rings weighed in. */
uint32_t smdsp_v34_data_shaped_power(const struct smdsp_v34_data_tx *s);

struct smdsp_v34_data_rx *smdsp_v34_data_rx_create(const struct smdsp_v34_data_config *cfg);
/* as smdsp_v34_data_tx_configure() */
int smdsp_v34_data_rx_configure(struct smdsp_v34_data_rx *s, const struct smdsp_v34_data_config *cfg);
void smdsp_v34_data_rx_free(struct smdsp_v34_data_rx *s);
void smdsp_v34_data_rx_reset(struct smdsp_v34_data_rx *s);
int smdsp_v34_data_rx_print(const struct smdsp_v34_data_rx *s, char *buf, size_t len);
/*
 * Eight received points (the y(n) plus noise, 1/128 units) in; returns the
 * data bits decided (into bits, room for SMDSP_V34_MAX_B; *aux the aux bit),
 * 0 while the decoder fills, for one mapping frame: the output runs
 * SMDSP_V34_DATA_DELAY_FRAMES mapping frames behind the input.
 */
unsigned int smdsp_v34_data_rx_frame(struct smdsp_v34_data_rx *s, const int32_t in[16], uint8_t *bits,
				     uint8_t *aux);
const struct smdsp_v34_frame_params *smdsp_v34_data_rx_params(const struct smdsp_v34_data_rx *s);
/* the transmitter's smdsp_v34_data_tx_power() for the same configuration */
uint32_t smdsp_v34_data_rx_power(const struct smdsp_v34_data_rx *s);
/* the transmitter's smdsp_v34_data_shaped_power(): the mean the points arrive with, against that */
uint32_t smdsp_v34_data_rx_shaped_power(const struct smdsp_v34_data_rx *s);
/*
 * The same for another symbol rate and data rate (no aux channel, minimum
 * shaping), without configuring: what a receiver weighs its rate choice
 * with. 0 for a rate V.34 does not allow at that symbol rate.
 */
uint32_t smdsp_v34_data_rate_power(const struct smdsp_v34_data_rx *s, unsigned int symbol_rate,
				   unsigned int data_rate);
void smdsp_v34_data_rx_get_stats(const struct smdsp_v34_data_rx *s, struct smdsp_v34_data_stats *st);

/* the Viterbi decoder's 31 4D symbols, rounded up to mapping frames */
#define SMDSP_V34_DATA_DELAY_FRAMES 8

#endif /* SMDSP_V34_DATA_H */
