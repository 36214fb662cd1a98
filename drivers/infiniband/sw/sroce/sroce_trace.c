// SPDX-License-Identifier: GPL-2.0-only
/*
 * sroce tracepoints: their bodies, once (the events: sroce_trace.h).
 */
#define CREATE_TRACE_POINTS
#include "sroce_trace.h"
