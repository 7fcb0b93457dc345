/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Viterbi decoder for the 8-state trellis code of trellis.h (V.32, V.17,
 * V.32bis), over any constellation whose point codes carry the subset in
 * their low three bits.
 *
 * Each received point gives eight branch metrics: the squared distance to
 * the nearest point of each subset (that point is also the decision for a
 * branch of that subset, the uncoded bits being decided per symbol). The
 * add-compare-select keeps one survivor per state; its decisions for the
 * last depth symbols live in this struct (no stack), copied along with the
 * survivor (register exchange: no traceback).
 * The output is the code of the point depth - 1 symbols back on the best
 * path: the decoding delay is depth - 1 symbols.
 */
#ifndef SMDSP_VITERBI_H
#define SMDSP_VITERBI_H

#include <smdsp/trellis.h>

#define SMDSP_VITERBI_MAX_DEPTH 32
#define SMDSP_VITERBI_DEPTH 16	/* the default traceback depth (see viterbi.c) */

struct smdsp_viterbi;

/*
 * points: npoints pairs re, im (npoints a multiple of 8, at most 256), unit: the received
 * value of one constellation unit; depth 2..SMDSP_VITERBI_MAX_DEPTH;
 * start_state: the encoder's state at the first symbol (0..7), or -1 if
 * unknown. NULL if a parameter is wrong or without memory.
 */
struct smdsp_viterbi *smdsp_viterbi_create(const int8_t *points, unsigned int npoints,
				     int32_t unit, unsigned int depth, int start_state);
void smdsp_viterbi_free(struct smdsp_viterbi *v);
/* A one-line summary of the state (snprintf: the length the whole line needs). */
int smdsp_viterbi_print(const struct smdsp_viterbi *v, char *buf, size_t len);
/* Back to the start, same constellation and depth. */
void smdsp_viterbi_reset(struct smdsp_viterbi *v, int start_state);
/*
 * One received point (re, im in received units): returns the decided code
 * of the symbol depth - 1 symbols before it, or -1 while the first depth - 1
 * symbols fill the path memory.
 */
int smdsp_viterbi_step(struct smdsp_viterbi *v, int32_t re, int32_t im);

#endif /* SMDSP_VITERBI_H */
