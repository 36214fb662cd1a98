/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * KTAP output for the selftest programs (mw_verify, srq_verify,
 * harden_verify): ok() prints one test point, die() bails out on a
 * set-up step that failed. Each program includes it once.
 */
#ifndef SROCE_SELFTEST_KTAP_H
#define SROCE_SELFTEST_KTAP_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n_ok, n_fail;

static __attribute__((format(printf, 2, 3)))
void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d ", cond ? "" : "not ", ++n_ok + n_fail);
	if (!cond)
		n_fail++, n_ok--;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void die(const char *what)
{
	printf("not ok %d %s: %s\nBail out!\n", n_ok + n_fail + 1, what,
	       strerror(errno));
	exit(1);
}

#endif /* SROCE_SELFTEST_KTAP_H */
