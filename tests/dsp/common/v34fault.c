// SPDX-License-Identifier: GPL-2.0
/* Faults in V.34's phase 2 past its INFO0 exchange (test code): see v34fault.h */
#include <math.h>
#include "v34fault.h"

#define FOREVER (8000L * 3600)	/* an hour of samples: longer than any call */

void v34_faults_init(struct v34_faults *f, unsigned int on)
{
	unsigned int i;

	f->on = on;
	for (i = 0; i < V34F_KINDS; i++) {
		f->at[i] = -1;
		f->over[i] = false;
	}
}

static unsigned int fault_index(enum v34_fault k)
{
	unsigned int i = 0;

	while (!((unsigned int)k & (1u << i)))
		i++;
	return i;
}

/* the fault k begins at t if cond holds and it has not begun yet; true while n is in [from, to) after it */
static bool fault_window(struct v34_faults *f, enum v34_fault k, bool cond, long t, long n, long from, long to)
{
	unsigned int i = fault_index(k);

	if (!(f->on & k))
		return false;
	if (f->at[i] < 0 && cond)
		f->at[i] = t;
	return f->at[i] >= 0 && n >= f->at[i] + from && n < f->at[i] + to;
}

/* k applies while cond holds, the first time only */
static bool fault_while(struct v34_faults *f, enum v34_fault k, bool cond)
{
	unsigned int i = fault_index(k);

	if (!(f->on & k) || f->over[i])
		return false;
	if (cond)
		f->at[i] = 1;
	else if (f->at[i] >= 0)
		f->over[i] = true;
	return cond && !f->over[i];
}

/* the bursts go on from one fault to the next, whichever test and call */
static uint32_t burst_state = 99;

static int16_t burst(void)
{
	/* uniform noise of +-20000, far above the signals */
	burst_state = burst_state * 1103515245u + 12345u;
	return (int16_t)((int32_t)(burst_state >> 16) % 40000 - 20000);
}

void v34_faults_apply(struct v34_faults *f, long t, int16_t *c_tx, int16_t *a_tx, const struct smdsp_v34_phase2 *c,
		      const struct smdsp_v34_phase2 *a, int blk)
{
	enum smdsp_v34_phase2_state cs = smdsp_v34_phase2_state(c), as = smdsp_v34_phase2_state(a);
	bool tone_b = fault_while(f, V34F_TONE_B, cs == SMDSP_V34P2_PROBE_END);
	bool tone_a = fault_while(f, V34F_TONE_A, as == SMDSP_V34P2_INFO1 && cs == SMDSP_V34P2_PROBE_TX);
	int i;

	for (i = 0; i < blk; i++) {
		long n = t + i;

		if (fault_window(f, V34F_L2_AT_C, as == SMDSP_V34P2_PROBE_TX, t, n, 4000, 5600) ||
		    fault_window(f, V34F_INFO1A_LOST, a->info1_sent, t, n, 0, 1600) ||
		    fault_window(f, V34F_GONE, as == SMDSP_V34P2_PROBE_TX, t, n, 0, FOREVER) || tone_a)
			a_tx[i] = 0;
		if (fault_window(f, V34F_INFO1A_BAD, a->info1_sent, t, n, 300, 320))
			a_tx[i] = (int16_t)-a_tx[i];
		if (tone_b)
			c_tx[i] = 0;
		if (fault_window(f, V34F_L2_AT_A, cs == SMDSP_V34P2_PROBE_TX, t, n, 4000, 5600) ||
		    fault_window(f, V34F_INFO1C_BURST, cs == SMDSP_V34P2_INFO1, t, n, 0, 2400))
			c_tx[i] = (int16_t)fmax(-32768, fmin(32767, c_tx[i] + burst()));
		if (fault_window(f, V34F_INFO1C_BAD, cs == SMDSP_V34P2_INFO1, t, n, 300, 320))
			c_tx[i] = (int16_t)-c_tx[i];
	}
}
