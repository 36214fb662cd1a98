// SPDX-License-Identifier: GPL-2.0-only
/*
 * The device budget (core/sroce_budget.c): grants within the limit and
 * the share, the one packet a QP with nothing in flight always has, and
 * the charges that settle back.
 */
#include "sroce/budget.h"
#include "tap.h"
#include "tests.h"

static void test_share(void)
{
	struct sroce_budget b = { .limit = 8 };
	struct sroce_budget_qp q[3] = { { 0 } };

	tap_begin("budget: a lone QP may take all of it; newcomers win their share back");
	CHECK_EQ(sroce_budget_grant(&b, &q[0]), 8);
	CHECK_EQ(sroce_budget_settle(&b, &q[0], 8), 0);
	CHECK_EQ(b.used, 8);
	CHECK_EQ(b.qps, 1);
	/* full: q1 has nothing in flight, it may send one */
	CHECK_EQ(sroce_budget_grant(&b, &q[1]), 1);
	sroce_budget_settle(&b, &q[1], 1);
	CHECK_EQ(b.used, 9);			/* the limit plus one per QP */
	/* q0 holds more than its share (4): nothing more, even once freed */
	CHECK_EQ(sroce_budget_grant(&b, &q[0]), 0);
	CHECK_EQ(sroce_budget_settle(&b, &q[0], 5), 3);	/* 3 acknowledged */
	CHECK_EQ(sroce_budget_grant(&b, &q[0]), 0);	/* 5 > share 4 */
	CHECK_EQ(sroce_budget_grant(&b, &q[1]), 2);	/* free 2, room 3 */
	sroce_budget_settle(&b, &q[1], 3);
	CHECK_EQ(b.used, 8);
	CHECK_EQ(sroce_budget_share(&b, &q[2]), 2);	/* a third: 8 / 3 */
	CHECK_EQ(sroce_budget_grant(&b, &q[2]), 1);	/* the floor */
	CHECK(sroce_budget_check(&b));
	tap_end();
}

static void test_settle(void)
{
	struct sroce_budget b = { .limit = 4 }, off = { 0 };
	struct sroce_budget_qp q = { 0 }, r = { 0 };

	tap_begin("budget: charges settle to what is in flight; none without a limit");
	CHECK_EQ(sroce_budget_grant(&off, &q), ~0U);
	sroce_budget_settle(&b, &q, 3);
	sroce_budget_settle(&b, &r, 1);
	CHECK_EQ(b.qps, 2);
	CHECK_EQ(sroce_budget_settle(&b, &q, 0), 3);	/* all answered */
	CHECK_EQ(b.qps, 1);
	CHECK_EQ(b.used, 1);
	CHECK_EQ(sroce_budget_settle(&b, &r, 0), 1);	/* an error: all back */
	CHECK_EQ(b.used, 0);
	CHECK_EQ(b.qps, 0);
	CHECK(sroce_budget_check(&b));
	/* 6 QPs over a limit of 4: each still has its one packet */
	CHECK_EQ(sroce_budget_share(&b, &q), 4);
	b.qps = 5;
	b.used = 5;
	CHECK_EQ(sroce_budget_share(&b, &q), 1);
	CHECK_EQ(sroce_budget_grant(&b, &q), 1);
	tap_end();
}

void test_budget(void)
{
	test_share();
	test_settle();
}
