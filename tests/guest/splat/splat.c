// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: makes the guest kernel splat on purpose, so that the
 * VM runner's console watch (vm/splat.awk, vm/splats.txt) is seen to
 * catch each class (tests/host/test-runner.sh). Never load it elsewhere.
 *
 *   insmod splat.ko mode=softlockup|rcu_stall|hung_task|bug|oops|warning|panic
 *
 * softlockup and rcu_stall spin with preemption disabled for @seconds (the
 * job lowers the detectors' thresholds first); hung_task sleeps
 * uninterruptibly; the others call BUG(), dereference NULL, WARN() or
 * panic() at once. The module never stays loaded (init returns -EAGAIN).
 */
#include <linux/bug.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/panic.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/string.h>

static char *mode = "";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "softlockup, rcu_stall, hung_task, bug, oops, warning or panic");
static int seconds = 60;
module_param(seconds, int, 0444);
MODULE_PARM_DESC(seconds, "how long softlockup/rcu_stall/hung_task last");

/*
 * Spin on jiffies, not mdelay(): a guest booted on a starved host can
 * calibrate its delay loop short (a 60 s mdelay spin once ended within a
 * second, and nothing stalled).
 */
static noinline void splat_spin(void)
{
	unsigned long end = jiffies + (unsigned long)seconds * HZ;

	preempt_disable();
	rcu_read_lock();
	while (time_before(jiffies, end))
		cpu_relax();
	rcu_read_unlock();
	preempt_enable();
}

static noinline void splat_null(void)
{
	*(volatile int *)NULL = 1;
}

static int __init splat_init(void)
{
	pr_info("splat: provoking '%s'\n", mode);
	if (!strcmp(mode, "softlockup") || !strcmp(mode, "rcu_stall"))
		splat_spin();
	else if (!strcmp(mode, "hung_task"))
		msleep(seconds * 1000);
	else if (!strcmp(mode, "bug"))
		BUG();
	else if (!strcmp(mode, "oops"))
		splat_null();
	else if (!strcmp(mode, "warning"))
		WARN(1, "splat: provoked warning\n");
	else if (!strcmp(mode, "panic"))
		panic("splat: provoked panic");
	else
		return -EINVAL;
	return -EAGAIN;
}

module_init(splat_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Provoke kernel splats to test the VM runner's console watch");
