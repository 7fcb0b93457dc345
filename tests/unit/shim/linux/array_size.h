/* User-space stand-in for the kernel's <linux/array_size.h>. */
#ifndef SHIM_ARRAY_SIZE_H
#define SHIM_ARRAY_SIZE_H
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
