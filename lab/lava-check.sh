#!/bin/sh
# make lava-check: run the LAVA job of lab/lava/ with LAVA's own dispatcher
# (lava-run, no server), on this machine, and show what LAVA recorded.
#  1. lava-dispatcher installed if missing (mk/deps.sh), and /usr/bin/awk put
#     back to mawk if the install switched it to gawk (the suite keeps
#     working with mawk, and is tested with it).
#  2. The job's inputs into OUTDIR: the initramfs with the suite under
#     /suite (binaries in /suite/bin, tests/guest/), one gzip'd cpio as
#     LAVA's overlay step needs it; the same suite as suite.tar.gz (the test
#     definition's SUITE_URL, for other devices); 512 MiB of zeros gzip'd
#     (the NVDIMM images); lab/test-definitions as a .tar.gz; the device
#     dictionary and the job with their @...@ filled in.
#  3. Both checked with lava-common's schemas (lava-schema.py job --strict,
#     lava-schema.py device) and lava-run --validate (the pipeline built).
#  4. lava-run, under /tmp/guest-boot.lock (one guest boot at a time on the
#     machine) and a watchdog, its log in OUTDIR/lava.log; then LAVA's
#     results from that log: OUTDIR/results.txt (a table) and
#     OUTDIR/lava.tap (KTAP: one test per LAVA test case, and the job).
# Usage: lava-check.sh [--validate-only] OUTDIR
# Environment (lab/lab.mk passes make's): VMLINUZ, INITRD, BINDIR, QEMU,
# TCG_THREAD (multi), LAVA_JOBS (the test definition's JOBS), LAVA_TIMEOUT
# (lava-run's watchdog, s). Needs root (apt, lava-run).
# Exit: 0 when the job passed and no test case failed; 1 otherwise; 2 on
# bad usage or missing inputs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${here%/lab}
validate_only=
[ "${1:-}" = --validate-only ] && { validate_only=1; shift; }
[ $# -eq 1 ] || { echo "usage: lava-check.sh [--validate-only] OUTDIR" >&2; exit 2; }
out=$1
VMLINUZ=${VMLINUZ:-} INITRD=${INITRD:-} BINDIR=${BINDIR:-} QEMU=${QEMU:-qemu-system-x86_64}
TCG_THREAD=${TCG_THREAD:-multi}
LAVA_JOBS=${LAVA_JOBS:-check smoke bpf conformance persist}
LAVA_TIMEOUT=${LAVA_TIMEOUT:-1800}
die() { echo "lava-check: $*" >&2; exit 2; }
for f in "$VMLINUZ" "$INITRD" "$BINDIR/faultlat"; do
	[ -f "$f" ] || die "no '$f' (make initramfs all, or give VMLINUZ, INITRD, BINDIR)"
done
case $TCG_THREAD in single|multi) ;; *) die "TCG_THREAD must be single or multi, not '$TCG_THREAD'" ;; esac
case $LAVA_TIMEOUT in ''|*[!0-9]*) die "LAVA_TIMEOUT must be seconds, not '$LAVA_TIMEOUT'" ;; esac
qemu=$(command -v "$QEMU") || die "no QEMU '$QEMU' (make, or QEMU_SUITE=bookworm)"
# Absolute: the staging below works from other folders (make passes
# .output/... relative paths).
VMLINUZ=$(readlink -f "$VMLINUZ") INITRD=$(readlink -f "$INITRD") BINDIR=$(readlink -f "$BINDIR")

# 1. lava-dispatcher. Its Debian packages pull gawk, whose awk alternative
# outranks mawk's: in auto mode /usr/bin/awk becomes gawk. Put mawk back
# (update-alternatives --set: manual mode from then on), unless an awk was
# chosen by hand (manual mode already).
sh "$top/mk/deps.sh" lava-dispatcher lava-common || exit 2
if [ -x /usr/bin/mawk ] && [ "$(readlink -f /usr/bin/awk)" != /usr/bin/mawk ] &&
	update-alternatives --query awk 2>/dev/null | grep -qx 'Status: auto'; then
	update-alternatives --set awk /usr/bin/mawk >/dev/null &&
		echo "  DEPS     /usr/bin/awk back to mawk (lava-dispatcher's gawk took it)"
fi
schema=/usr/share/lava-common/lava-schema.py
[ -x /usr/bin/lava-run ] && [ -f "$schema" ] || die "lava-dispatcher installed, but no /usr/bin/lava-run or $schema"

# 2. Inputs.
mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d "$out/stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
echo "  LAVA     inputs into $out"
# One archive: LAVA's overlay step unpacks the initrd with cpio, which reads
# the first of concatenated archives only (vm/run.sh appends the job's).
(cd "$stage" && gzip -dc "$INITRD" | cpio -idm --quiet --no-absolute-filenames) ||
	die "cannot unpack $INITRD"
mkdir -p "$stage/suite/bin" "$stage/suite/tests/guest"
cp "$BINDIR"/* "$stage/suite/bin/" &&
	cp "$top/tests/guest/jobs.txt" "$top"/tests/guest/*.sh "$stage/suite/tests/guest/" || die "cannot stage the suite"
(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/mapsync-initrd.cpio.gz.tmp" &&
	mv "$out/mapsync-initrd.cpio.gz.tmp" "$out/mapsync-initrd.cpio.gz" || die "cannot pack the initrd"
tar -czf "$out/suite.tar.gz" -C "$stage/suite" . || die "cannot pack suite.tar.gz"
if [ ! -s "$out/pmem-512M.img.gz" ]; then
	head -c 536870912 /dev/zero | gzip -9 >"$out/pmem.tmp" && mv "$out/pmem.tmp" "$out/pmem-512M.img.gz" ||
		die "cannot write the NVDIMM image"
fi
tar -czf "$out/test-definitions.tar.gz" -C "$here/test-definitions" . || die "cannot pack the test definitions"
# The QEMU's own firmware when it is an unpacked .deb (vm/fetch-qemu.sh),
# as vm/run.sh gives it.
firmware=
qroot=${qemu%/usr/bin/*}
if [ "$qroot" != "$qemu" ] && [ -d "$qroot/usr/share/qemu" ]; then
	firmware="-L $qroot/usr/share/qemu -L $qroot/usr/share/seabios"
	export QEMU_MODULE_DIR="$qroot/usr/lib/x86_64-linux-gnu/qemu"
fi
# The @...@ of the templates, in their YAML only (the comments that explain
# them stay as they are).
fill() { sed -e '/^[[:space:]]*#/!{' "$@" -e '}'; }
fill -e "s|@QEMU@|$qemu|; s|@QEMU_FIRMWARE@|$firmware|; s|@TCG_THREAD@|$TCG_THREAD|" \
	"$here/lava/qemu-nvdimm.device.yaml" >"$out/device.yaml"
fill -e "s|@KERNEL_URL@|file://$(readlink -f "$VMLINUZ")|; s|@INITRD_URL@|file://$out/mapsync-initrd.cpio.gz|" \
	-e "s|@PMEM_URL@|file://$out/pmem-512M.img.gz|; s|@TESTDEF_URL@|file://$out/test-definitions.tar.gz|" \
	-e "s|@JOBS@|$LAVA_JOBS|; s|@TCG_THREAD@|$TCG_THREAD|" \
	"$here/lava/mapsync-qemu.job.yaml" >"$out/job.yaml"
if grep -v '^[[:space:]]*#' "$out/device.yaml" "$out/job.yaml" | grep '@[A-Z_]*@'; then
	die "a placeholder left unfilled"
fi

# 3. LAVA's schemas, then the pipeline lava-run would build.
echo "  LAVA     schema: job (strict) and device"
/usr/bin/python3 "$schema" job --strict "$out/job.yaml" || { echo "lava-check: the job fails lava-common's schema" >&2; exit 1; }
/usr/bin/python3 "$schema" device "$out/device.yaml" || { echo "lava-check: the device fails lava-common's schema" >&2; exit 1; }
id=$(date +%s)
rm -rf "$out/validate"
lava-run --validate --job-id "$id" --output-dir "$out/validate" --dispatcher "$here/lava/dispatcher.yaml" \
	--device "$out/device.yaml" "$out/job.yaml" >"$out/validate.log" 2>&1
rc=$?
# --validate leaves the job's (empty) folders behind; a run removes its own.
rm -rf "/var/lib/lava/dispatcher/tmp/$id"
if [ "$rc" != 0 ]; then
	echo "lava-check: lava-run --validate failed:" >&2
	grep -E '"lvl": "(error|exception)"' "$out/validate.log" | tail -n 5 >&2
	exit 1
fi
echo "  LAVA     lava-run --validate: pipeline of $(grep -c 'name:' "$out/validate/description.yaml") actions"
[ -n "$validate_only" ] && exit 0

# 4. The run. One guest boot at a time on this machine (the same lock as
# every QEMU boot of the suite's users); the watchdog above LAVA's own
# job timeout (lava/mapsync-qemu.job.yaml: 25 min) in case lava-run hangs.
rm -rf "$out/run"
echo "  LAVA     lava-run --job-id $id (jobs: $LAVA_JOBS; waits for /tmp/guest-boot.lock)"
t0=$(date +%s)
flock /tmp/guest-boot.lock timeout -k 10 "$LAVA_TIMEOUT" lava-run --job-id "$id" --output-dir "$out/run" \
	--dispatcher "$here/lava/dispatcher.yaml" --device "$out/device.yaml" "$out/job.yaml" >"$out/lava.log" 2>&1
rc=$?
secs=$(($(date +%s) - t0))
# Each log line is one YAML flow mapping with every scalar double-quoted
# (lava_common.log): JSON but for the "! " tag YAML puts before a quoted
# number (a test case's line numbers, its measurement). A line jq still
# cannot read is skipped, not fatal.
sed 's/\([:,[] \)! "/\1"/g' "$out/lava.log" >"$out/lava.json"
jq -R -r 'fromjson? | select(.lvl == "target") | .msg' "$out/lava.json" >"$out/console.log" 2>/dev/null
jq -R -r 'fromjson? | select(.lvl == "results") | .msg |
	[.definition, .case, .result, (.measurement // "" | tostring), (.units // ""), (.error_msg // "")] | @tsv' \
	"$out/lava.json" >"$out/results.tsv" 2>/dev/null
awk -F'\t' '{ printf "%-10s %-52s %-5s %s %s%s\n", $1, $2, $3, $4, $5, ($6 == "" ? "" : "  " $6) }' \
	"$out/results.tsv" >"$out/results.txt"
# KTAP: a LAVA skip is a SKIP; the lava/job case is LAVA's verdict on the job.
awk -F'\t' '
	{ n++; name = $1 "." $2
	  if ($3 == "pass") line[n] = "ok " n " " name ($4 == "" ? "" : " # " $4 " " $5)
	  else if ($3 == "skip") line[n] = "ok " n " " name " # SKIP"
	  else line[n] = "not ok " n " " name ($6 == "" ? "" : " # " $6) }
	END { print "KTAP version 1"; print "1.." n; for (i = 1; i <= n; i++) print line[i] }' \
	"$out/results.tsv" >"$out/lava.tap"
cat "$out/results.txt"
job=$(awk -F'\t' '$1 == "lava" && $2 == "job" { print $3 }' "$out/results.tsv")
cases=$(awk -F'\t' '$1 != "lava"' "$out/results.tsv" | wc -l)
failed=$(awk -F'\t' '$1 != "lava" && $3 == "fail"' "$out/results.tsv" | wc -l)
echo "  LAVA     lava-run exit $rc after ${secs}s: job ${job:-unknown}, $cases test cases, $failed failed; log $out/lava.log, console $out/console.log"
[ "$rc" = 0 ] && [ "$job" = pass ] && [ "$cases" -gt 0 ] && [ "$failed" = 0 ]
