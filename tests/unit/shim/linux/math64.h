/* User-space stand-in for the kernel's <linux/math64.h> (what we use of it). */
#ifndef SHIM_LINUX_MATH64_H
#define SHIM_LINUX_MATH64_H

#include <linux/types.h>

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = (u32)(dividend % divisor);
	return dividend / divisor;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

#endif
