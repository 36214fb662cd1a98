// SPDX-License-Identifier: GPL-2.0-only
/* PSN arithmetic tests: 24-bit masking, wraparound, signed distance, windows */
#include "sroce/psn.h"
#include "tap.h"
#include "tests.h"

void test_psn(void)
{
	u32 i;

	tap_begin("psn: mask keeps 24 bits");
	CHECK_EQ(sroce_psn_mask(0xff123456), 0x123456);
	CHECK_EQ(sroce_psn_mask(0x00ffffff), 0xffffff);
	CHECK_EQ(sroce_psn_mask(0x01000000), 0);
	tap_end();

	tap_begin("psn: add and prev wrap modulo 2^24");
	CHECK_EQ(sroce_psn_add(0xffffff, 1), 0);
	CHECK_EQ(sroce_psn_add(0xfffffe, 5), 3);
	CHECK_EQ(sroce_psn_add(0, (u32)-1), 0xffffff);
	CHECK_EQ(sroce_psn_add(10, 0x01000000), 10);
	CHECK_EQ(sroce_psn_add(0xabcdef, 0), 0xabcdef);
	CHECK_EQ(sroce_psn_prev(0), 0xffffff);
	CHECK_EQ(sroce_psn_prev(1), 0);
	tap_end();

	tap_begin("psn: diff is the signed 24-bit distance");
	CHECK_EQ(sroce_psn_diff(5, 3), 2);
	CHECK_EQ(sroce_psn_diff(3, 5), (u64)(s64)-2);
	CHECK_EQ(sroce_psn_diff(0, 0xffffff), 1);
	CHECK_EQ(sroce_psn_diff(0xffffff, 0), (u64)(s64)-1);
	CHECK_EQ(sroce_psn_diff(2, 0xfffffe), 4);
	CHECK_EQ(sroce_psn_diff(0x7fffff, 0), 0x7fffff);
	CHECK_EQ(sroce_psn_diff(0x800000, 0), (u64)(s64)-0x800000);
	CHECK_EQ(sroce_psn_diff(0, 0x800001), 0x7fffff);
	CHECK_EQ(sroce_psn_diff(0x12345678, 0x345678), 0);
	CHECK_EQ(sroce_psn_diff(0xff000001, 0x00ffffff), 2);
	tap_end();

	tap_begin("psn: diff is antisymmetric and consistent with add");
	for (i = 0; i < 0x1000000; i += 0x1357) {
		u32 d = (i * 7919u) & 0x7fffff;

		CHECK_EQ(sroce_psn_diff(sroce_psn_add(i, d), i), d);
		CHECK_EQ(sroce_psn_diff(i, sroce_psn_add(i, d)), (u64)-(s64)d);
		if (tap.cur_failed)
			break;
	}
	tap_end();

	tap_begin("psn: compare/after/before across the wrap");
	CHECK(sroce_psn_compare(0, 0xffffff) > 0);
	CHECK(sroce_psn_compare(0xffffff, 0) < 0);
	CHECK(sroce_psn_compare(0x123, 0x123) == 0);
	CHECK(sroce_psn_after(0x000002, 0xfffff0));
	CHECK(!sroce_psn_after(0xfffff0, 0x000002));
	CHECK(sroce_psn_before(0xfffff0, 0x000002));
	CHECK(!sroce_psn_before(7, 7));
	CHECK(!sroce_psn_after(7, 7));
	tap_end();

	tap_begin("psn: in_window [start, start+count) across the wrap");
	CHECK(sroce_psn_in_window(0xfffffe, 0xfffffe, 4));
	CHECK(sroce_psn_in_window(0xffffff, 0xfffffe, 4));
	CHECK(sroce_psn_in_window(0, 0xfffffe, 4));
	CHECK(sroce_psn_in_window(1, 0xfffffe, 4));
	CHECK(!sroce_psn_in_window(2, 0xfffffe, 4));
	CHECK(!sroce_psn_in_window(0xfffffd, 0xfffffe, 4));
	CHECK(!sroce_psn_in_window(5, 5, 0));
	CHECK(sroce_psn_in_window(5, 5, 1));
	CHECK(sroce_psn_in_window(4, 5, 0x1000000));
	CHECK(sroce_psn_in_window(0x01000005, 5, 1));
	tap_end();

	tap_begin("psn: in_range [first, last] inclusive across the wrap");
	CHECK(sroce_psn_in_range(0xffffff, 0xfffff0, 3));
	CHECK(sroce_psn_in_range(3, 0xfffff0, 3));
	CHECK(sroce_psn_in_range(0xfffff0, 0xfffff0, 3));
	CHECK(!sroce_psn_in_range(4, 0xfffff0, 3));
	CHECK(!sroce_psn_in_range(0xffffef, 0xfffff0, 3));
	CHECK(sroce_psn_in_range(9, 9, 9));
	CHECK(!sroce_psn_in_range(10, 9, 9));
	tap_end();
}
