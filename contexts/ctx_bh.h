/* SPDX-License-Identifier: GPL-2.0 */
/* The bottom half shared by context=dpc (a tasklet) and bhw (BH work). */
#ifndef SMODEM_CTX_BH_H
#define SMODEM_CTX_BH_H

#include <linux/atomic.h>
#include "smodem.h"

struct smodem_bh {
	struct smodem_dev *sd;
	atomic_t queued;	/* periods announced since the last run (0: kzalloc) */
};

/* One bottom-half run, in softirq context: catch up on every period. */
void smodem_bh_run(struct smodem_bh *b);

#endif
