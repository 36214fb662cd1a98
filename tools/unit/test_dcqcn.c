// SPDX-License-Identifier: GPL-2.0-only
/*
 * DCQCN reaction point (core/sroce_dcqcn.c): cuts, alpha, the increase
 * stages, the way back to line rate, and pacing to the rate.
 */
#include "sroce/dcqcn.h"
#include "tap.h"
#include "tests.h"

#define US	1000ULL
#define MS	1000000ULL
#define SEC	1000000000ULL

static const struct sroce_dcqcn_params defaults = SROCE_DCQCN_DEFAULTS;

static void test_first_cnp(void)
{
	struct sroce_dcqcn d;
	u64 t = 5 * SEC;

	tap_begin("dcqcn: the first CNP halves the rate; another within the monitor period does not cut");
	sroce_dcqcn_init(&d, 10000);
	CHECK(!d.limited);
	CHECK(sroce_dcqcn_ready(&d, 0));
	sroce_dcqcn_sent(&d, &defaults, t, 4096);
	CHECK(sroce_dcqcn_ready(&d, t));	/* unlimited: never held */
	CHECK(sroce_dcqcn_cnp(&d, &defaults, t));
	CHECK(d.limited);
	CHECK_EQ(d.alpha, 1023);
	CHECK_EQ(d.rt_kbps, 10000000);
	/* 1 - 1023/2048 of 10 Gbit/s, but at least 50 % */
	CHECK_EQ(d.rc_kbps, 5004883);
	CHECK(!sroce_dcqcn_cnp(&d, &defaults, t + 2 * US));
	CHECK_EQ(d.cuts, 1);
	CHECK_EQ(d.cnps, 2);
	/* past the monitor period: cut again, alpha still about 1 */
	CHECK(sroce_dcqcn_cnp(&d, &defaults, t + 5 * US));
	CHECK(d.alpha > 990);
	CHECK(d.rc_kbps < 2600000 && d.rc_kbps >= 5004883 / 2);
	CHECK_EQ(d.rt_kbps, 5004883);
	CHECK(sroce_dcqcn_check(&d, &defaults));
	tap_end();
}

static void test_floor(void)
{
	struct sroce_dcqcn d;
	u64 t = SEC;
	int i;

	tap_begin("dcqcn: CNP after CNP never takes the rate below the minimum");
	sroce_dcqcn_init(&d, 100);
	for (i = 0; i < 100; i++) {
		sroce_dcqcn_cnp(&d, &defaults, t);
		t += 5 * US;
		CHECK(sroce_dcqcn_check(&d, &defaults));
	}
	CHECK_EQ(d.rc_kbps, 1000);
	CHECK(d.limited);
	tap_end();
}

static void test_alpha_decay(void)
{
	struct sroce_dcqcn d;
	u32 before;

	tap_begin("dcqcn: without CNPs alpha decays, and a late CNP cuts little");
	sroce_dcqcn_init(&d, 1000);
	sroce_dcqcn_cnp(&d, &defaults, SEC);
	/* 2 ms without CNPs: 2000 periods of g = 1019/1024 */
	sroce_dcqcn_update(&d, &defaults, SEC + 2 * MS);
	CHECK(d.alpha < 5);
	before = d.rc_kbps;
	CHECK(sroce_dcqcn_cnp(&d, &defaults, SEC + 2 * MS));
	CHECK(d.rc_kbps >= before - before / 256);
	CHECK(sroce_dcqcn_check(&d, &defaults));
	tap_end();
}

static void test_stages(void)
{
	struct sroce_dcqcn_params p = defaults;
	struct sroce_dcqcn d;
	u64 t = SEC;
	u32 rt;

	tap_begin("dcqcn: fast recovery, then additive, then hyper increase");
	p.byte_reset = 1 << 30;	/* the timer alone */
	sroce_dcqcn_init(&d, 1000);
	sroce_dcqcn_cnp(&d, &p, t);
	CHECK_EQ(d.rc_kbps, 500489);
	rt = d.rt_kbps;
	/* first expiry: fast recovery, halfway back, target kept */
	sroce_dcqcn_update(&d, &p, t + 300 * US);
	CHECK_EQ(d.rt_kbps, rt);
	CHECK_EQ(d.rc_kbps, (500489 + 1000000 + 1) / 2);
	/* cut again to get a target below line, then count the stages */
	sroce_dcqcn_cnp(&d, &p, t + 310 * US);
	rt = d.rt_kbps;
	sroce_dcqcn_update(&d, &p, t + 610 * US);	/* fast recovery */
	CHECK_EQ(d.rt_kbps, rt);
	sroce_dcqcn_update(&d, &p, t + 910 * US);	/* additive */
	CHECK_EQ(d.rt_kbps, rt + 5000);
	/* the byte counter too: once both pass the threshold, hyper */
	p.byte_reset = 1000;
	sroce_dcqcn_sent(&d, &p, t + 911 * US, 1000);	/* b 0 -> additive */
	CHECK_EQ(d.rt_kbps, rt + 10000);
	sroce_dcqcn_sent(&d, &p, t + 912 * US, 1000);	/* b 1: additive */
	CHECK_EQ(d.rt_kbps, rt + 15000);
	sroce_dcqcn_sent(&d, &p, t + 913 * US, 1000);	/* t 2, b 2: hyper */
	CHECK_EQ(d.rt_kbps, rt + 65000);
	CHECK(sroce_dcqcn_check(&d, &p));
	tap_end();
}

static void test_recovers(void)
{
	struct sroce_dcqcn d;

	tap_begin("dcqcn: with no more CNPs the rate returns to line and pacing stops");
	sroce_dcqcn_init(&d, 10000);
	sroce_dcqcn_cnp(&d, &defaults, SEC);
	sroce_dcqcn_update(&d, &defaults, SEC + 500 * MS);
	CHECK(!d.limited);
	CHECK_EQ(d.rc_kbps, 10000000);
	CHECK(sroce_dcqcn_check(&d, &defaults));
	/* and by the byte counter */
	sroce_dcqcn_cnp(&d, &defaults, 2 * SEC);
	while (d.limited)
		sroce_dcqcn_sent(&d, &defaults, 2 * SEC, 32767);
	CHECK(sroce_dcqcn_check(&d, &defaults));
	CHECK(sroce_dcqcn_ready(&d, SEC + 500 * MS));
	/* idle for long: not walked step by step */
	sroce_dcqcn_cnp(&d, &defaults, 3 * SEC);
	sroce_dcqcn_update(&d, &defaults, 3600 * SEC);
	CHECK(!d.limited);
	CHECK(sroce_dcqcn_check(&d, &defaults));
	/* and the next CNP is a first one: alpha starts over */
	sroce_dcqcn_cnp(&d, &defaults, 3600 * SEC);
	CHECK_EQ(d.alpha, 1023);
	tap_end();
}

/* Send 1088-byte packets as fast as the pacing lets, for @span ns */
static u64 paced_bytes(struct sroce_dcqcn *d,
		       const struct sroce_dcqcn_params *p, u64 t0, u64 span)
{
	u64 t = t0, bytes = 0;

	while (t < t0 + span) {
		if (!sroce_dcqcn_ready(d, t)) {
			t = d->next_tx;
			continue;
		}
		sroce_dcqcn_sent(d, p, t, 1088);
		bytes += 1088;
	}
	return bytes;
}

static void test_pacing(void)
{
	struct sroce_dcqcn_params p = defaults;
	struct sroce_dcqcn d;
	u64 bytes;

	tap_begin("dcqcn: a limited QP sends at its rate, a burst at most ahead");
	p.ai_mbps = 0;
	p.hai_mbps = 0;
	p.time_reset_us = 1000000000;	/* the rate held still */
	p.byte_reset = 1 << 30;
	sroce_dcqcn_init(&d, 100);
	sroce_dcqcn_cnp(&d, &p, SEC);
	CHECK_EQ(d.rc_kbps, 50049);
	/* one second at 50.049 Mbit/s is 6256125 bytes */
	bytes = paced_bytes(&d, &p, SEC, SEC);
	CHECK(bytes >= 6256125 - 1088);
	CHECK(bytes <= 6256125 + SROCE_DCQCN_BURST + 1088);
	/* after a pause, a burst goes at once, then the rate again */
	bytes = paced_bytes(&d, &p, 10 * SEC, 1);
	CHECK(bytes >= SROCE_DCQCN_BURST && bytes <= SROCE_DCQCN_BURST + 1088);
	CHECK(sroce_dcqcn_check(&d, &p));
	tap_end();
}

static void test_first_cnp_rate(void)
{
	struct sroce_dcqcn_params p = defaults;
	struct sroce_dcqcn d;

	tap_begin("dcqcn: rate_to_set_on_first_cnp sets both rates; zero knobs are taken as the least");
	p.first_cnp_mbps = 40;
	sroce_dcqcn_init(&d, 1000);
	sroce_dcqcn_cnp(&d, &p, SEC);
	CHECK_EQ(d.rc_kbps, 40000);
	CHECK_EQ(d.rt_kbps, 40000);
	memset(&p, 0, sizeof(p));
	sroce_dcqcn_cnp(&d, &p, SEC + 1);
	sroce_dcqcn_sent(&d, &p, SEC + 2, 1000);
	sroce_dcqcn_update(&d, &p, 2 * SEC);
	CHECK(sroce_dcqcn_check(&d, &p));
	tap_end();
}

void test_dcqcn(void)
{
	test_first_cnp();
	test_floor();
	test_alpha_decay();
	test_stages();
	test_recovers();
	test_pacing();
	test_first_cnp_rate();
}
