// SPDX-License-Identifier: GPL-2.0
/* smline: loop-current (DC offset) hook detection, see hook.h. */
#include <math.h>
#include <string.h>

#include "hook.h"

void sml_hook_init(struct sml_hook *h, int threshold)
{
	memset(h, 0, sizeof(*h));
	h->threshold = threshold > 0 ? threshold : SML_HOOK_THRESHOLD;
}

bool sml_hook_process(struct sml_hook *h, const int16_t *in, int16_t *out, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		double y;
		int64_t avg;

		h->sum += in[i] - h->hist[h->pos];
		h->hist[h->pos] = in[i];
		h->pos = (h->pos + 1) % SML_HOOK_WINDOW;
		avg = h->sum / SML_HOOK_WINDOW;
		if (avg < 0)
			avg = -avg;
		if (!h->closed && avg > h->threshold)
			h->closed = true;
		else if (h->closed && avg < h->threshold / 2)
			h->closed = false;
		y = 0.996 * (h->hp_y1 + in[i] - h->hp_x1);
		h->hp_x1 = in[i];
		h->hp_y1 = y;
		out[i] = sml_clip16(y);
	}
	return h->closed;
}
