#!/bin/sh
# Guest half of the runner's own test (tests/host/test-runner.sh): report
# one result, then make the kernel splat with tests/guest/splat/splat.ko in
# the mode that ./splat.env names. The runner must stop the guest, keep the
# first result and name provoke_MODE as the test in flight.
. /suite/vm/guest/lib.sh
. /suite/lib/ktap.sh
. ./splat.env
ktap_plan result_before_the_splat "provoke_$MODE"
ktap_start
ktap_pass result_before_the_splat
# Thresholds low enough to fire within seconds, high enough for TCG.
case $MODE in
softlockup) echo 2 >/proc/sys/kernel/watchdog_thresh ;;
rcu_stall)
	echo 0 >/proc/sys/kernel/soft_watchdog
	echo 3 >/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout
	;;
hung_task) echo 2 >/proc/sys/kernel/hung_task_timeout_secs ;;
esac
ktap_begin "provoke_$MODE"
insmod ./splat.ko mode="$MODE" seconds=60
rc=$?
# A WARNING lets insmod return: the runner must stop us before this sleep ends.
sleep 30
ktap_fail "provoke_$MODE" "insmod returned $rc and the guest ran on for 30 s: nobody stopped it"
ktap_finish
