/* User-space stand-in for the kernel's <linux/build_bug.h>: nothing needed. */
#ifndef SHIM_BUILD_BUG_H
#define SHIM_BUILD_BUG_H
#endif
