/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The modem's (smodem_modem.c) environment: the kernel's, or smodemd's
 * (context=usr), as dsp/include/smdsp/compat.h is for dsp/.  The modem is
 * written against the kernel's names (kzalloc, raw spinlocks, seq_file,
 * min_t, clamp_t); in user space they are defined here, and nothing else
 * of the kernel is used.  Its device it never sees: what it asks of the
 * world goes through its link (smodem_link.h), which each side provides.
 *
 * In user space this header comes first: the driver's headers name the
 * kernel's types (u8 .. s64) and include <linux/types.h>, which there is
 * the UAPI one that defines only __u8 .. __s64.
 */
#ifndef SMODEM_COMPAT_H
#define SMODEM_COMPAT_H

#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/seq_file.h>
#else
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

/* The kernel's own widths: u64 is unsigned long long, as %llu assumes. */
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef short s16;
typedef int s32;
typedef long long s64;

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

/* Set-up time only, never per period. */
#define GFP_KERNEL		0
#define kzalloc(n, gfp)		calloc(1, (n))
#define kfree(p)		free(p)

/*
 * The kernel renders the modem's stats lines beside its periods; smodemd
 * renders them on the thread that runs them, where the lock is never
 * contended, but the modem need not know that.
 */
#define raw_spinlock_t		pthread_mutex_t
#define raw_spin_lock_init(l)	pthread_mutex_init((l), NULL)
#define raw_spin_lock_irqsave(l, flags) \
	do { (flags) = 0; pthread_mutex_lock(l); } while (0)
#define raw_spin_unlock_irqrestore(l, flags) \
	do { (void)(flags); pthread_mutex_unlock(l); } while (0)

/* The modem's stats lines into a fixed buffer: truncated, never allocated. */
struct seq_file {
	char *buf;
	size_t size;
	size_t len;
};

/* the module's build checks the formats (the kernel's __printf) */
#define __printf(a, b)

static inline __printf(2, 3)
void seq_printf(struct seq_file *m, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (m->len >= m->size)
		return;
	va_start(ap, fmt);
	k = vsnprintf(m->buf + m->len, m->size - m->len, fmt, ap);
	va_end(ap);
	if (k > 0)
		m->len = min(m->size, m->len + (size_t)k);
}

static inline void seq_puts(struct seq_file *m, const char *s)
{
	seq_printf(m, "%s", s);
}
#endif

#endif
