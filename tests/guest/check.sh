#!/bin/sh
# Guest half of 'make check': runs inside the VM as /job/run and prints one
# KTAP document on stdout (the result channel). Needs two NVDIMMs.
. /suite/vm/guest/lib.sh
. /suite/lib/ktap.sh
PATH=/job/bin:$PATH
SMALL=64          # pages per short benchmark run

# bench_sums FILE: the letter-format table adds up to its own faults= figure
# and that figure is the expected one.
bench_sums() {
	awk -v want="$2" '
		/^[0-9]+ - [0-9]+ (us|ns): [0-9]+$/ { sum += $NF }
		/^median=/ { for (i = 1; i <= NF; i++) if ($i ~ /^faults=/) faults = substr($i, 8) }
		/^min=[0-9]+ avg=[0-9]+ max=[0-9]+$/ { head = 1 }
		END {
			if (!head) { print "no min/avg/max line"; exit 1 }
			if (faults != want) { print "faults=" faults ", want " want; exit 1 }
			if (sum != want) { print "buckets sum to " sum ", want " want; exit 1 }
		}' "$1"
}

json_sums() {
	jq -e --argjson n "$2" '.faults == $n and ([.hist[].count] | add) == $n and .min <= .median and .median <= .max' "$1" >/dev/null ||
		{ echo "JSON does not add up: $(head -c 300 "$1")"; return 1; }
}

# run_bench NAME EXPECTED_FAULTS ARGS...: text and JSON outputs both add up.
run_bench() {
	name=$1 want=$2; shift 2
	if ! faultlat "$@" >/tmp/b.txt 2>/tmp/b.err; then
		ktap_fail "$name" "faultlat $* exit $?: $(cat /tmp/b.err)"
	elif ! why=$(bench_sums /tmp/b.txt "$want"); then
		ktap_fail "$name" "$why"
	elif ! faultlat --json "$@" >/tmp/b.json 2>/tmp/b.err; then
		ktap_fail "$name" "faultlat --json $*: $(cat /tmp/b.err)"
	elif ! why=$(json_sums /tmp/b.json "$want"); then
		ktap_fail "$name" "$why"
	else
		ktap_pass "$name"
	fi
}

# expect_exit NAME CODE PATTERN ARGS...: faultlat fails with CODE and a single
# stderr line matching PATTERN.
expect_exit() {
	name=$1 code=$2 pattern=$3; shift 3
	faultlat "$@" >/dev/null 2>/tmp/e.err
	rc=$?
	if [ "$rc" != "$code" ]; then
		ktap_fail "$name" "exit $rc, want $code: $(cat /tmp/e.err)"
	elif [ "$(wc -l </tmp/e.err)" != 1 ] || ! grep -q -- "$pattern" /tmp/e.err; then
		ktap_fail "$name" "stderr is not one line matching '$pattern': $(cat /tmp/e.err)"
	else
		ktap_pass "$name"
	fi
}

# The short benchmark runs, the check set of bench/scenarios.txt on each fs:
# "fs name expected-faults faultlat-args". PMD: 4 MiB, two 2 MiB faults
# (written blocks too must come 2 MiB aligned, or PMD faults fall back).
for fs in $(fs_list); do
	for scen in $(scenarios check); do
		if [ "$(scenario_field "$scen" size)" = pmd ]; then n="2 -n 1024"; else n="$SMALL -n $SMALL"; fi
		[ "$(scenario_field "$scen" load)" = copy ] && n="$n --load-size 4M"
		echo "$fs bench_${fs}_$(echo "$scen" | tr - _) $n $(scenario_args "$scen")"
	done
done >/tmp/benches

ktap_plan pmem_namespaces_fsdax ext4_mount_dax xfs_mount_dax mapsync_accepted_ext4 \
	mapsync_accepted_xfs mapsync_refused_nondax_ext4 mapsync_refused_tmpfs \
	faultlat_rejects_nondax_path faultlat_rejects_bad_state faultlat_label_is_first_line \
	$(awk '{ print $2 }' /tmp/benches) faultlat_existing_file_untouched \
	faultlat_pmd_rounding_said faultlat_reflinked_xfs faultlat_reflinked_refused_ext4 \
	faultlat_pmd_fallback_detected faultlat_pte_on_misaligned_xfs
ktap_start

ktap_check pmem_namespaces_fsdax pmem_expect 2
ktap_check ext4_mount_dax fs_setup ext4 /dev/pmem0
ktap_check xfs_mount_dax fs_setup xfs /dev/pmem1

for fs in $(fs_list); do
	ktap_check "mapsync_accepted_$fs" faultlat --sync -n 8 -f "/mnt/$fs/accept"
done

# A non-DAX ext4 (loop device on tmpfs) must refuse MAP_SYNC in its mmap hook;
# tmpfs refuses it earlier, in do_mmap, because it never opted in.
modprobe loop
truncate -s 64M /tmp/nondax.img && mkfs.ext4 -F -q /tmp/nondax.img && mkdir -p /mnt/nondax &&
	mount -t ext4 -o loop /tmp/nondax.img /mnt/nondax
expect_exit mapsync_refused_nondax_ext4 5 EOPNOTSUPP --no-dax-check --sync -n 8 -f /mnt/nondax/f
expect_exit mapsync_refused_tmpfs 5 EOPNOTSUPP --no-dax-check --sync -n 8 -f /tmp/f
expect_exit faultlat_rejects_nondax_path 3 . --sync -n 8 -f /mnt/nondax/f
expect_exit faultlat_rejects_bad_state 2 . --state bogus -f /mnt/ext4/f
umount /mnt/nondax
label_is_first_line() {
	[ "$(faultlat --label 'My title:' -n 4 -f /mnt/ext4/l | head -n 1)" = 'My title:' ]
}
ktap_check faultlat_label_is_first_line label_is_first_line

while read -r fs name want args; do
	run_bench "$name" "$want" $args -f "/mnt/$fs/b"
done </tmp/benches

# An existing file is the user's: refused and left as it was, unless --replace.
existing_file() {
	echo precious >/mnt/ext4/mine
	faultlat -n 8 -f /mnt/ext4/mine >/dev/null 2>/tmp/x.err
	rc=$?
	[ $rc = 11 ] && [ "$(cat /mnt/ext4/mine)" = precious ] || { echo "exit $rc: $(cat /tmp/x.err)"; return 1; }
	faultlat -n 8 --replace -f /mnt/ext4/mine >/dev/null 2>/tmp/x.err || { echo "--replace: $(cat /tmp/x.err)"; return 1; }
	[ ! -e /mnt/ext4/mine ] || { echo "--replace left the file"; return 1; }
}
ktap_check faultlat_existing_file_untouched existing_file

# -n that is not whole 2 MiB units is rounded up, and said so.
pmd_rounding() {
	faultlat -n 1000 --fault-size pmd --json -f /mnt/ext4/r >/tmp/r.json 2>/tmp/r.err || { cat /tmp/r.err; return 1; }
	grep -q 'rounded up to 1024 pages: 2 PMD faults' /tmp/r.err || { echo "no note: $(cat /tmp/r.err)"; return 1; }
	jq -e '.pages == 1000 and .pages_mapped == 1024 and .faults == 2' /tmp/r.json >/dev/null ||
		{ echo "JSON: $(head -c 300 /tmp/r.json)"; return 1; }
}
ktap_check faultlat_pmd_rounding_said pmd_rounding

# --state reflinked: a clone of a written file (every first write a
# copy-on-write fault), its source unlinked at once: nothing is left but
# the file, which the run removes. ext4 has no FICLONE: one line, exit 1.
reflinked() {
	faultlat -n 64 -s reflinked --sync --json -f /mnt/xfs/rl >/tmp/rl.json 2>/tmp/rl.err || { cat /tmp/rl.err; return 1; }
	jq -e '.state == "reflinked" and .faults == 64' /tmp/rl.json >/dev/null || { echo "JSON: $(head -c 300 /tmp/rl.json)"; return 1; }
	left=$(ls /mnt/xfs | grep '^rl' | tr '\n' ' ')
	[ -z "$left" ] || { echo "left behind: $left"; return 1; }
}
ktap_check faultlat_reflinked_xfs reflinked
expect_exit faultlat_reflinked_refused_ext4 1 'state reflinked: FICLONE into /mnt/ext4/rl .*Operation not supported' \
	-n 8 -s reflinked --sync -f /mnt/ext4/rl

# PMD faults that fall back to PTE are an error (the pagemap check passed in
# every PMD bench_* above); PTE faults there are fine. The default mkfs.xfs
# puts the first extent 192 sectors off 2 MiB.
umount /mnt/xfs && mkfs.xfs -f -q /dev/pmem1 && mount -t xfs -o dax /dev/pmem1 /mnt/xfs
expect_exit faultlat_pmd_fallback_detected 12 'PMD faults on .* fell back to 4 KiB pages' \
	-n 2048 -s empty --fault-size pmd --sync -f /mnt/xfs/misaligned
pte_verified() { faultlat -n 64 -s empty -f /mnt/xfs/pte >/dev/null; }
ktap_check faultlat_pte_on_misaligned_xfs pte_verified

ktap_finish
