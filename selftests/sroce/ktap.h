/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * KTAP output for the selftest programs: ok() prints one test point,
 * die() bails out on a set-up step that failed, ktap_done() prints the
 * plan and gives the exit status. Each program includes it once
 * (verbs_util.h includes it).
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

/* The plan and the totals; the program's exit status */
static int ktap_done(void)
{
	printf("1..%d\n", n_ok + n_fail);
	printf("# totals: pass:%d fail:%d\n", n_ok, n_fail);
	return n_fail ? 1 : 0;
}

#endif /* SROCE_SELFTEST_KTAP_H */
