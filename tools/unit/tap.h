/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tiny TAP runner for the sroce host unit tests.
 *
 *	tap_begin("name %d", i);
 *	CHECK(x == 1);
 *	CHECK_EQ(a, b);
 *	tap_end();		prints "ok N - name" or "not ok N - name"
 *
 * tap_done() prints the plan and the closing "N passed, N failed" line and
 * returns the process exit status.  Failed checks print "# file:line ..."
 * diagnostics.  The state lives in tools/unit/main.c.
 */
#ifndef _SROCE_TAP_H
#define _SROCE_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct tap_state {
	unsigned int n;
	unsigned int passed;
	unsigned int failed;
	bool cur_failed;
	bool in_test;
	char name[160];
};

extern struct tap_state tap;

static inline __attribute__((format(printf, 1, 2)))
void tap_begin(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tap.name, sizeof(tap.name), fmt, ap);
	va_end(ap);
	tap.cur_failed = false;
	tap.in_test = true;
}

static inline void tap_end(void)
{
	tap.n++;
	if (tap.cur_failed) {
		tap.failed++;
		printf("not ok %u - %s\n", tap.n, tap.name);
	} else {
		tap.passed++;
		printf("ok %u - %s\n", tap.n, tap.name);
	}
	fflush(stdout);
	tap.in_test = false;
}

static inline bool tap_check(bool cond, const char *expr, const char *file,
			     int line)
{
	if (!cond) {
		tap.cur_failed = true;
		printf("# %s:%d: check failed: %s\n", file, line, expr);
	}
	return cond;
}

static inline bool tap_check_eq(uint64_t a, uint64_t b, const char *ea,
				const char *eb, const char *file, int line)
{
	if (a != b) {
		tap.cur_failed = true;
		printf("# %s:%d: %s == %s failed: 0x%llx != 0x%llx\n", file,
		       line, ea, eb, (unsigned long long)a,
		       (unsigned long long)b);
	}
	return a == b;
}

static inline int tap_done(void)
{
	printf("1..%u\n", tap.n);
	printf("%u passed, %u failed\n", tap.passed, tap.failed);
	return tap.failed ? 1 : 0;
}

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define CHECK(cond)	tap_check(!!(cond), #cond, __FILE__, __LINE__)
#define CHECK_EQ(a, b)	tap_check_eq((uint64_t)(a), (uint64_t)(b), #a, #b, \
				     __FILE__, __LINE__)

/* One-check test */
#define TAP_TEST(cond, ...) do {		\
		tap_begin(__VA_ARGS__);		\
		CHECK(cond);			\
		tap_end();			\
	} while (0)

#endif /* _SROCE_TAP_H */
