#!/bin/sh
# The mapsync test definition's runner (mapsync.yaml), on the device under
# test: runs the suite's guest jobs (tests/guest/jobs.txt) one after the
# other in this boot and writes every KTAP result, and MAP_SYNC fault
# latencies as measurements, to output/result.txt ("NAME RESULT
# [MEASUREMENT UNITS]", Linaro test-definitions' format), which
# ../../utils/send-to-lava.sh reports with lava-test-case.
#   JOB-TEST                     pass|fail|skip per KTAP result (ktap-results.awk)
#   JOB-ktap-complete            fail when a job hung, was stopped or crashed
#   faultlat-FS-SCENARIO-p50     pass + median ns per fault, or fail
#   mapsync-suite, mapsync-pmem  fail / skip, alone, when the suite or two
#                                pmem namespaces are missing (the reason on
#                                the console): never a hang
# The suite lives at /suite (the guest scripts source /suite/... by that
# path; MAPSYNC_SUITE moves the rest, for tests/unit/test-lava.sh): the
# initramfs of lab/lava-check.sh has it, binaries in /suite/bin; elsewhere
# -u URL unpacks a tarball of it there. Needs root. DESTRUCTIVE on
# a real machine: every pmem namespace becomes fsdax with a new filesystem.
# Usage: mapsync.sh [-j "JOB..."] [-t SECONDS] [-n PAGES] [-u SUITE_URL] [-o DIR]
set -u
SUITE=${MAPSYNC_SUITE:-/suite}
JOBS="check smoke bpf conformance persist"
TIMEOUT=
PAGES=512
SUITE_URL=
here=$(cd "$(dirname "$0")" && pwd)
OUTPUT=$(pwd)/output

usage() {
	sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}
while getopts j:t:n:u:o:h opt; do
	case $opt in
	j) JOBS=$OPTARG ;;
	t) TIMEOUT=$OPTARG ;;
	n) PAGES=$OPTARG ;;
	u) SUITE_URL=$OPTARG ;;
	o) OUTPUT=$OPTARG ;;
	*) usage ;;
	esac
done
case $TIMEOUT in *[!0-9]*) echo "mapsync: -t takes seconds, not '$TIMEOUT'" >&2; exit 2 ;; esac
case $PAGES in ''|*[!0-9]*) echo "mapsync: -n takes a number of pages, not '$PAGES'" >&2; exit 2 ;; esac

RESULT_FILE=$OUTPUT/result.txt
mkdir -p "$OUTPUT" || exit 1
: >"$RESULT_FILE"
result() { echo "$*" >>"$RESULT_FILE"; }
say() { echo "mapsync: $*"; }
# alone NAME RESULT WHY: the one result of a run that cannot start.
alone() {
	say "$3"
	result "$1 $2"
	exit 0
}

# The suite: here already (our initramfs), or unpacked from SUITE_URL.
if [ ! -f "$SUITE/vm/guest/lib.sh" ] && [ -n "$SUITE_URL" ]; then
	say "fetching the suite from $SUITE_URL into $SUITE"
	mkdir -p "$SUITE" && { wget -q -O - "$SUITE_URL" 2>/dev/null || curl -fsSL "$SUITE_URL"; } |
		tar -xzf - -C "$SUITE" || alone mapsync-suite fail "cannot unpack $SUITE_URL into $SUITE"
fi
for f in vm/guest/lib.sh lib/ktap.sh tests/guest/jobs.txt; do
	[ -f "$SUITE/$f" ] || alone mapsync-suite fail "no $SUITE/$f: the suite is not on this device (its initramfs from lab/lava-check.sh, or -u SUITE_URL)"
done
PATH=$SUITE/bin:/job/bin:$PATH
export PATH
for t in faultlat daxlat syncorder jq ndctl timeout; do
	command -v $t >/dev/null 2>&1 || alone mapsync-suite fail "no '$t' on PATH ($PATH)"
done
. "$SUITE/vm/guest/lib.sh"
say "kernel $(uname -r), suite $SUITE, jobs: $JOBS"

# Persistent memory: every namespace fsdax, two of them (pmem_expect, as
# each job starts). No NVDIMM, no nfit/nd_pmem, or one namespace: one skip
# with the reason, not a hang (the device wait of pmem_setup is 5 s).
if ! pmem_expect 2 >"$OUTPUT/pmem.log" 2>&1; then
	alone mapsync-pmem skip "no two fsdax namespaces here: $(ndctl list -N 2>/dev/null | grep -c '"mode":"fsdax"') fsdax, $(ls /dev/pmem* 2>/dev/null | wc -l) /dev/pmem* (the jobs need /dev/pmem0 and /dev/pmem1: two NVDIMMs, emulated or real, and a kernel with LIBNVDIMM, ND_PMEM, FS_DAX)$(tail -n 3 "$OUTPUT/pmem.log" | tr '\n' ' ' | sed 's/^./: &/')"
fi

# reset: the pmem filesystems a previous job left mounted (each job makes
# them anew on the devices, as on a fresh boot; mkfs refuses a mounted one).
reset() {
	for m in $(awk '$1 ~ /^\/dev\/pmem/ { print $2 }' /proc/mounts | sort -r); do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
	done
}

work=$(mktemp -d /tmp/mapsync.XXXXXX)
for job in $JOBS; do
	row=$(awk -v n="$job" '!/^#/ && $1 == n' "$SUITE/tests/guest/jobs.txt")
	if [ -z "$row" ]; then
		say "no job '$job' in $SUITE/tests/guest/jobs.txt"
		result "$job-ktap-complete fail"
		continue
	fi
	# shellcheck disable=SC2086
	set -- $row
	script=$SUITE/$2 watchdog=${TIMEOUT:-$3} files=$5
	if [ "$files" != - ]; then
		# A module built against this very kernel (make builds it per kernel).
		say "job $job needs $files, built for the kernel by make: not in this run"
		result "$job skip"
		continue
	fi
	if [ ! -f "$script" ]; then
		say "job $job: no $script"
		result "$job-ktap-complete fail"
		continue
	fi
	reset
	say "job $job: $script, watchdog ${watchdog}s"
	t0=$(date +%s)
	# The KTAP on the console as it comes (LAVA's log), and into a file.
	{ (cd "$work" && timeout "$watchdog" sh "$script" 2>"$OUTPUT/$job.err"); echo $? >"$OUTPUT/$job.rc"; } |
		tee "$OUTPUT/$job.tap"
	rc=$(cat "$OUTPUT/$job.rc")
	sed -n '1,20{s/^/mapsync: '"$job"' stderr: /;p}' "$OUTPUT/$job.err"
	case $rc in
	124|143) say "job $job: stopped by the watchdog after ${watchdog}s" ;;
	*) say "job $job: exit $rc after $(($(date +%s) - t0))s" ;;
	esac
	awk -v prefix="$job" -f "$here/ktap-results.awk" "$OUTPUT/$job.tap" >>"$RESULT_FILE"
done

# Measurements: the median per-fault latency of an empty file's first
# writes, MAP_SYNC and plain MAP_SHARED, on each filesystem (the cover
# letter's first table row). xfs first, in the jobs' order.
measure() {
	fs=$1 dev=$2
	if ! fs_setup "$fs" "$dev" >"$OUTPUT/measure-$fs.err" 2>&1; then
		say "measure: $fs -o dax on $dev: $(tail -n 2 "$OUTPUT/measure-$fs.err" | tr '\n' ' ')"
		for scen in empty-none-sync empty-none-nosync; do result "faultlat-$fs-$scen-p50 fail"; done
		return
	fi
	for scen in empty-none-sync empty-none-nosync; do
		json=$OUTPUT/faultlat-$fs-$scen.json
		# shellcheck disable=SC2046
		if faultlat --json -n "$PAGES" $(scenario_args "$scen") -f "/mnt/$fs/m-$scen" >"$json" 2>"$json.err" &&
			p50=$(jq -e -r '.median' "$json" 2>/dev/null) && [ -n "$p50" ]; then
			say "faultlat $fs $scen: median $p50 ns over $(jq -r .faults "$json") faults"
			result "faultlat-$fs-$scen-p50 pass $p50 ns"
		else
			say "faultlat $fs $scen: $(head -c 300 "$json.err")"
			result "faultlat-$fs-$scen-p50 fail"
		fi
	done
}
if [ "$PAGES" -gt 0 ]; then
	reset
	measure xfs /dev/pmem1
	measure ext4 /dev/pmem0
fi
reset
rm -rf "$work"
say "$(grep -c ' pass' "$RESULT_FILE") pass, $(grep -c ' fail' "$RESULT_FILE") fail, $(grep -c ' skip' "$RESULT_FILE") skip: $RESULT_FILE"
exit 0
