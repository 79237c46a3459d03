#!/bin/sh
# Reproducer of the soft lockup at the fentry site of dax_iomap_fault (issue
# 8): BPF tools attach and detach, many times, while two faultlat loops fault
# with MAP_SYNC on xfs and ext4 on both vCPUs. Every attach patches the call
# sites (text_poke) of functions the other vCPU is executing.
# Environment: ATTACH_ROUNDS (default 20).
. /suite/vm/guest/lib.sh
. /suite/lib/ktap.sh
PATH=/job/bin:$PATH
ROUNDS=${ATTACH_ROUNDS:-12}

ktap_plan pmem_namespaces_fsdax mounts_dax "attach_detach_${ROUNDS}x_while_faulting"
ktap_start
ktap_check pmem_namespaces_fsdax pmem_expect 2
mounts() { fs_setup xfs /dev/pmem1 && fs_setup ext4 /dev/pmem0; }
ktap_check mounts_dax mounts

rm -f /tmp/stop
# Long runs: most of the loops' time is spent faulting, not starting up.
(while [ ! -e /tmp/stop ]; do
	faultlat -f /mnt/xfs/loop -n 2048 -s empty >/dev/null 2>&1
done) &
(while [ ! -e /tmp/stop ]; do
	faultlat -f /mnt/ext4/loop -n 256 -s empty --sync >/dev/null 2>&1
done) &
sleep 1
i=0 bad=0
while [ $i -lt "$ROUNDS" ]; do
	i=$((i + 1))
	ktap_diag "round $i of $ROUNDS: attach"
	if [ $((i % 2)) = 1 ]; then
		daxlat -c true >/dev/null 2>/tmp/err || bad=$((bad + 1))
	else
		syncorder -c true >/dev/null 2>/tmp/err; [ $? = $EXIT_NOTHING_CHECKED ] || bad=$((bad + 1))
	fi
done
touch /tmp/stop
wait
if [ $bad = 0 ]; then
	ktap_pass "attach_detach_${ROUNDS}x_while_faulting"
else
	ktap_fail "attach_detach_${ROUNDS}x_while_faulting" "$bad of $ROUNDS daxlat runs failed: $(head -c 200 /tmp/err)"
fi
ktap_finish
