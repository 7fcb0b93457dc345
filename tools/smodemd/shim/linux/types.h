/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smodemd's stand-in for <linux/types.h>: the kernel's own widths (u64 is
 * unsigned long long, as the module's printf formats assume).
 */
#ifndef SMODEMD_SHIM_TYPES_H
#define SMODEMD_SHIM_TYPES_H
#include <stdbool.h>
#include <stdint.h>
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef short s16;
typedef int s32;
typedef long long s64;
#endif
