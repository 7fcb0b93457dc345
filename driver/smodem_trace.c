// SPDX-License-Identifier: GPL-2.0
/* The one place the smodem tracepoints are instantiated. */
#define CREATE_TRACE_POINTS
#include "smodem_trace.h"
