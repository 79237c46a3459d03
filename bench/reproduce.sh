#!/bin/sh
# Host half of 'make reproduce': run the scenarios in the guest, keep the
# tables, JSON and a label of how they were obtained in results/runs/ID/,
# then print them next to the seed's tables.
# Environment (from the Makefile): VMLINUZ INITRD BINDIR ACCEL PAGES REPS GUEST_KVER
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=${here%/bench}
cd "$top"
rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || rev="$rev-dirty"
id=$(date -u +%Y%m%dT%H%M%SZ)-$rev
run=results/runs/$id
work=${O:-.output}/reproduce
mkdir -p "$run" "$work"
printf 'PAGES=%s\nREPS=%s\n' "$PAGES" "$REPS" >"$work/job.env"

echo "reproduce: $PAGES pages per scenario, $REPS rep(s), ext4 and xfs, into $run"
JOB_FILES=$work/job.env sh vm/job.sh bench/reproduce-guest.sh "$work/vm" --timeout "${VM_TIMEOUT:-1800}" || { echo "reproduce: the guest run failed (see $work/vm/console.log)" >&2; exit 1; }
cp -r "$work/vm/files/." "$run/"
cp "$work/vm/console.log" "$run/"

{
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "git_revision=$rev"
	echo "kernel=$GUEST_KVER"
	echo "accelerator=$ACCEL"
	echo "host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	echo "qemu=$(qemu-system-x86_64 --version | head -n 1)"
	echo "pages=$PAGES"
	echo "reps=$REPS"
	cat "$run/guest-meta.txt"
} >"$run/meta.txt"
rm -f "$run/guest-meta.txt"

for fs in ext4 xfs; do
	echo
	echo "=== $fs -o dax, $(sed -n 's/^kernel=//p' "$run/meta.txt"), $ACCEL, rev $rev ==="
	sh results/report.sh results/reference/cover-v2.txt "$run/$fs" | tee "$run/report-$fs.txt"
	sh results/report.sh --json results/reference/cover-v2.txt "$run/$fs" >"$run/report-$fs.json"
done
echo
echo "reproduce: results in $run (meta.txt says how they were obtained)"
