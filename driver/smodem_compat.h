/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The modem's (smodem_modem.c) environment, the one place where the kernel
 * and smodemd (context=usr) differ, as dsp/include/smdsp/compat.h is for
 * dsp/.  The modem is written against the kernel's names (kzalloc, raw
 * spinlocks, seq_file, min_t, clamp_t, struct smodem_dev, the smodem_phase
 * tracepoint); smodemd builds it with user-space stand-ins for them
 * (tools/smodemd/shim, tests/unit/shim: tools/smodemd/smodemd.mk) and its
 * own device, which carries the phase to the kernel as a report.
 */
#ifndef SMODEM_COMPAT_H
#define SMODEM_COMPAT_H

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/seq_file.h>
#ifdef __KERNEL__
#include "smodem.h"
#include "smodem_trace.h"
#else
#include "smodemd_dev.h"
#endif

#endif
