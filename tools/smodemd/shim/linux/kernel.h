/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smodemd's stand-in for the kernel's <linux/kernel.h>: what
 * driver/smodem_modem.c uses of it, for the same source in user space.
 * The other stand-ins (types, spinlock, string) are tests/unit/shim's.
 */
#ifndef SMODEMD_SHIM_KERNEL_H
#define SMODEMD_SHIM_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define min_t(t, a, b)		((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)		((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define clamp_t(t, v, lo, hi)	min_t(t, max_t(t, v, lo), hi)
#define S16_MIN			INT16_MIN
#define S16_MAX			INT16_MAX
#ifndef BIT
#define BIT(n)			(1UL << (n))
#endif
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

static inline void *ERR_PTR(long err)
{
	return (void *)err;
}

static inline long PTR_ERR(const void *p)
{
	return (long)p;
}

static inline int IS_ERR(const void *p)
{
	return (unsigned long)p >= (unsigned long)-4095;
}

#endif
