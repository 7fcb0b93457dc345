/* SPDX-License-Identifier: GPL-2.0 */
/* smodemd's stand-in for <linux/slab.h>: set-up time only, never per period. */
#ifndef SMODEMD_SHIM_SLAB_H
#define SMODEMD_SHIM_SLAB_H

#include <stdlib.h>

#define GFP_KERNEL	0
#define kzalloc(n, gfp)	calloc(1, (n))
#define kfree(p)	free(p)

#endif
