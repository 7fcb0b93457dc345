/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hook detection on the modem's transmit signal. A real line sees the loop
 * current of an off-hook modem, which an audio path cannot carry; smodem's
 * convention (README.md) is that the modem adds a DC offset to its transmit
 * samples while off-hook. A 20 ms moving average above the threshold closes
 * the loop, below half of it opens it again; the polarity does not matter.
 * A 5 Hz high-pass takes the DC out before the signal goes on the wire.
 */
#ifndef SML_HOOK_H
#define SML_HOOK_H

#include "sml.h"

#define SML_HOOK_WINDOW 160
#define SML_HOOK_THRESHOLD 1024	/* the modem should use about 4096 */

struct sml_hook {
	int32_t hist[SML_HOOK_WINDOW];
	int pos;
	int64_t sum;
	int threshold;
	bool closed;
	double hp_x1, hp_y1;
};

void sml_hook_init(struct sml_hook *h, int threshold);
/* out: the DC-free signal; returns the loop state at the end of the block */
bool sml_hook_process(struct sml_hook *h, const int16_t *in, int16_t *out, int n);

#endif /* SML_HOOK_H */
