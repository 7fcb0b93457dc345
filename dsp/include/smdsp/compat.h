/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Portability layer: the dsp/ sources build both into smodem.ko and into a
 * user-space library for tests, so they may use only what is mapped here.
 */
#ifndef SMDSP_COMPAT_H
#define SMDSP_COMPAT_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/kernel.h>	/* snprintf */
#include <linux/slab.h>
#include <linux/mm.h>	/* kvzalloc, kvfree */
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/math64.h>

/*
 * kvzalloc: V.42bis's dictionaries and V.42's queues are tens of KiB, which
 * need not be physically contiguous; blocks are created at open time only.
 */
static inline void *smdsp_alloc(size_t n)
{
	return kvzalloc(n, GFP_KERNEL);
}

static inline void smdsp_free(void *p)
{
	kvfree(p);
}

static inline uint64_t smdsp_div_u64(uint64_t a, uint32_t b)
{
	return div_u64(a, b);
}

static inline int64_t smdsp_div_s64(int64_t a, int32_t b)
{
	return div_s64(a, b);
}

#define smdsp_noinline noinline
#else
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>	/* snprintf */
#include <stdlib.h>
#include <string.h>
#include <errno.h>

static inline void *smdsp_alloc(size_t n)
{
	return calloc(1, n);
}

static inline void smdsp_free(void *p)
{
	free(p);
}

static inline uint64_t smdsp_div_u64(uint64_t a, uint32_t b)
{
	return a / b;
}

static inline int64_t smdsp_div_s64(int64_t a, int32_t b)
{
	return a / b;
}

/* the kernel's noinline, which user space has not got */
#define SMDSP_GCC_ATTR(a) __attribute__((a))
#define smdsp_noinline SMDSP_GCC_ATTR(__noinline__)
#endif

/*
 * The blocks' smdsp_*_print(): snprintf() (both sides have it), with its
 * return value, the length the whole line would have had.
 */
#define SMDSP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* SMDSP_COMPAT_H */
