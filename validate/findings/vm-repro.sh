#!/bin/sh
# A finding's standalone reproducer (validate/findings/ID/repro.sh), run in
# the suite's VM the way a user would run it on a machine: boot, repro.sh
# crash (mkfs, mount, write, sysrq crash), boot again on the same NVDIMM,
# repro.sh verify; N times. Proves the reproducer reproduces, and a fix
# fixes, without any of the suite's tools in the guest.
# Usage: vm-repro.sh ID N OUT
# Environment: VMLINUZ, INITRD, ACCEL, QEMU... (as vm/job.sh), REPRO_BIN
# (repro.c built static for the guest).
# Prints (and keeps in OUT/summary.txt) a line per crash ("crash K: L of
# 64 stored pages lost") and last
# "ID: N crashes, C with stored pages lost, P pages lost in all". Exit 0
# when every crash and verify boot went as planned (losses are the
# result, not an error), 1 otherwise.
set -u
[ $# = 3 ] || { sed -n '7,9s/^# \{0,1\}//p' "$0" >&2; exit 2; }
id=$1 n=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
suite_lib=$top/lib
. "$suite_lib/exitcodes.sh"
dir=$here/$id
[ -f "$dir/repro.sh" ] || { echo "vm-repro: no validate/findings/$id/repro.sh" >&2; exit 2; }
case $n in '' | *[!0-9]* | 0) echo "vm-repro: N=$n: a whole number from 1" >&2; exit 2 ;; esac
[ -x "${REPRO_BIN:-}" ] || { echo "vm-repro: REPRO_BIN='${REPRO_BIN:-}': no static repro binary" >&2; exit 2; }
rm -rf "$out" && mkdir -p "$out" || exit 1
# note LINE: on stdout and into OUT/summary.txt, the run's record.
note() { echo "$*" | tee -a "$out/summary.txt"; }
cp "$REPRO_BIN" "$out/repro"

# boot K STAGE: repro.sh STAGE in a guest on the kept NVDIMM; its rc.
boot() {
	cat >"$out/job-$2.sh" <<EOF
. /suite/vm/guest/lib.sh
# The NVDIMM in fsdax mode, as a user's machine would have it (ndctl)
pmem_setup || { echo "pmem_setup failed"; exit 1; }
modprobe xfs
REPRO=/job/repro sh /job/repro.sh $2 /dev/pmem0 /mnt/repro
echo "repro.sh $2: exit \$?"
EOF
	sh "$top/vm/job.sh" --pmem 1 --pmem-dir "$out/pmem" --keep-pmem --file "$dir/repro.sh" --file "$out/repro" \
		"$out/job-$2.sh" "$out/boot-$1-$2" --quiet --expect-panic "sysrq triggered crash" \
		--accel "${ACCEL:-tcg}" --timeout 240 >"$out/boot-$1-$2.log" 2>&1
}

crashes=0 with_loss=0 lost_total=0 bad=0
k=1
while [ "$k" -le "$n" ]; do
	rm -rf "$out/pmem"
	boot "$k" crash
	rc=$?
	if [ "$rc" != "$EXIT_VM_NO_RESULT" ] || ! grep -q "sysrq triggered crash" "$out/boot-$k-crash/console.log" 2>/dev/null; then
		note "crash $k: the crash boot ended with exit $rc, not the sysrq crash (log: $out/boot-$k-crash.log)"
		bad=$((bad + 1)) k=$((k + 1))
		continue
	fi
	boot "$k" verify
	line=$(grep -a -o '[0-9]* of 64 stored pages lost' "$out/boot-$k-verify/results.txt" "$out/boot-$k-verify/console.log" 2>/dev/null | head -n 1)
	lost=${line%% of*}
	lost=${lost##*:}
	case $lost in
	'' | *[!0-9]*) note "crash $k: the verify boot gave no count (log: $out/boot-$k-verify.log)"; bad=$((bad + 1)) ;;
	*)	note "crash $k: $lost of 64 stored pages lost$(grep -a -o 'page [0-9]*: lost' "$out/boot-$k-verify/results.txt" 2>/dev/null | tr '\n' ' ' | sed 's/^/ (/; s/ $/)/')"
		crashes=$((crashes + 1)) lost_total=$((lost_total + lost))
		[ "$lost" -gt 0 ] && with_loss=$((with_loss + 1)) ;;
	esac
	k=$((k + 1))
done
rm -rf "$out/pmem"
note "$id: $crashes crashes, $with_loss with stored pages lost, $lost_total pages lost in all$([ "$bad" -gt 0 ] && echo "; $bad boots did not go as planned")"
[ "$bad" = 0 ]
