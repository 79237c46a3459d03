// SPDX-License-Identifier: GPL-2.0
/*
 * fault_delay: a known slowdown of the DAX fault path, for measuring what
 * the regression gate can detect (make gate-power). TEST ONLY.
 *
 * A kprobe on dax_iomap_fault busy-waits delay_ns in its pre-handler, so
 * every DAX fault (PTE or PMD, sync or not) costs delay_ns more; func= puts
 * it on another function, in whichever thread calls it: a jbd2 commit's
 * (jbd2_journal_write_revoke_records, once per commit, in its logging
 * phase) slows a synchronous fault from another thread, vfs_fsync_range in
 * the faulting thread itself (make gate-explain). ndelay()
 * spins on the TSC: under QEMU -icount the guest's TSC follows the
 * instruction count, so the injected delay is delay_ns of guest time there
 * too. hits counts the faults delayed.
 *
 *	insmod fault_delay.ko delay_ns=5000 [func=jbd2_journal_write_revoke_records]
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/module.h>

static unsigned int delay_ns;
module_param(delay_ns, uint, 0444);
MODULE_PARM_DESC(delay_ns, "nanoseconds added to every call of func");

static char *func = "dax_iomap_fault";
module_param(func, charp, 0444);
MODULE_PARM_DESC(func, "the function whose calls are delayed (default dax_iomap_fault)");

static atomic_long_t hits_count = ATOMIC_LONG_INIT(0);

static int hits_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&hits_count));
}

static const struct kernel_param_ops hits_ops = { .get = hits_get };
module_param_cb(hits, &hits_ops, NULL, 0444);

static int delay_pre(struct kprobe *p, struct pt_regs *regs)
{
	/* ndelay() takes at most a few microseconds at a time. */
	unsigned int left = delay_ns;

	while (left > 1000) {
		ndelay(1000);
		left -= 1000;
	}
	ndelay(left);
	atomic_long_inc(&hits_count);
	return 0;
}

static struct kprobe delay_probe = {
	.pre_handler = delay_pre,
};

static int __init fault_delay_init(void)
{
	int err;

	delay_probe.symbol_name = func;
	err = register_kprobe(&delay_probe);
	if (err)
		pr_err("fault_delay: kprobe on %s: %d\n", func, err);
	else
		pr_info("fault_delay: %u ns added to every %s\n", delay_ns, func);
	return err;
}

static void __exit fault_delay_exit(void)
{
	unregister_kprobe(&delay_probe);
}

module_init(fault_delay_init);
module_exit(fault_delay_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Test only: a known delay on the DAX fault path");
