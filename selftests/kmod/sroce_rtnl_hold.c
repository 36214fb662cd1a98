// SPDX-License-Identifier: GPL-2.0-only
/*
 * Holds RTNL while a test runs, so that the test can see what sroce
 * does when the work that needs RTNL cannot run: the module's init
 * takes RTNL, reports it through the "held" parameter, and keeps it
 * until 1 is written to the "release" parameter (the parameters are in
 * sysfs while init runs), or at most "max_secs" seconds, a safety net
 * that stays below the hung task detector's two minutes. insmod returns
 * once RTNL is released; the module then does nothing until rmmod.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>

static int held;
module_param(held, int, 0444);
MODULE_PARM_DESC(held, "1 while RTNL is held");

static int release;
module_param(release, int, 0644);
MODULE_PARM_DESC(release, "write 1 to release RTNL");

static unsigned int max_secs = 90;
module_param(max_secs, uint, 0444);
MODULE_PARM_DESC(max_secs, "release RTNL after this long at the latest");

static int __init sroce_rtnl_hold_init(void)
{
	unsigned long end = jiffies + min(max_secs, 100U) * HZ;

	rtnl_lock();
	WRITE_ONCE(held, 1);
	pr_info("RTNL held\n");
	/* interruptible: a sleeping insmod is not a hung task */
	while (!READ_ONCE(release) && time_before(jiffies, end))
		msleep_interruptible(20);
	WRITE_ONCE(held, 0);
	rtnl_unlock();
	pr_info("RTNL released%s\n", READ_ONCE(release) ? "" : " (timeout)");
	return 0;
}

static void __exit sroce_rtnl_hold_exit(void)
{
}

module_init(sroce_rtnl_hold_init);
module_exit(sroce_rtnl_hold_exit);

MODULE_DESCRIPTION("sroce selftest: hold RTNL until told to release it");
MODULE_LICENSE("GPL");
