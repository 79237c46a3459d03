#!/bin/sh
# Boot the guest kernel in QEMU with emulated NVDIMMs, run one job, bring back
# its stdout over a virtio serial port, and never hang: a watchdog kills QEMU.
#
# Usage: run.sh [options] JOBDIR
#   JOBDIR holds an executable 'run' (becomes /job/run in the guest) and any
#   files it needs (bin/, tests/, ...).
# Options:
#   --kernel F      guest kernel image (required)
#   --initrd F      base initramfs from mkinitramfs.sh (required)
#   --out DIR       where results.txt and console.log go (required)
#   --pmem F        NVDIMM backing file; repeatable; created sparse if absent
#   --pmem-size S   size of a new backing file (default 512M)
#   --timeout S     watchdog in seconds (default 600)
#   --accel A       tcg (default) or kvm (only after a smoke boot proved it)
#   --mem M         guest RAM (default 1G)
#   --append STR    extra kernel command line
#   --quiet         do not echo result lines while the guest runs
# Exit status: the job's own, or 124 watchdog fired, 125 the guest ended
# without reporting (panic, crash), 126 bad usage or host setup failure.
set -u
kernel= initrd= out= pmems= pmem_size=512M timeout=600 accel=${ACCEL:-tcg}
mem=1G append= quiet=
die() { echo "vm: $*" >&2; exit 126; }
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--initrd) initrd=$2; shift ;;
	--out) out=$2; shift ;;
	--pmem) pmems="$pmems $2"; shift ;;
	--pmem-size) pmem_size=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--accel) accel=$2; shift ;;
	--mem) mem=$2; shift ;;
	--append) append=$2; shift ;;
	--quiet) quiet=1 ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
	shift
done
[ $# -eq 1 ] || die "usage: run.sh --kernel F --initrd F --out DIR [options] JOBDIR"
job=$1
[ -f "$kernel" ] || die "no kernel image '$kernel'"
[ -f "$initrd" ] || die "no initramfs '$initrd'"
[ -x "$job/run" ] || die "no executable $job/run"
[ -n "$out" ] || die "--out is required"
case $accel in tcg|kvm) ;; *) die "--accel must be tcg or kvm" ;; esac

# KVM is used only once a smoke boot under a short watchdog proved it: on some
# hosts /dev/kvm exists but a stock guest aborts or spins forever.
if [ "$accel" = kvm ] && [ -z "${VM_KVM_PROVEN:-}" ]; then
	smoke=$(mktemp -d)
	mkdir "$smoke/job" && printf '#!/bin/sh\necho kvm-ok\n' >"$smoke/job/run" && chmod +x "$smoke/job/run"
	if VM_KVM_PROVEN=1 sh "$0" --kernel "$kernel" --initrd "$initrd" --out "$smoke/out" \
		--accel kvm --timeout 60 --quiet "$smoke/job" >/dev/null 2>&1 &&
		grep -q kvm-ok "$smoke/out/results.txt"; then
		echo "vm: KVM smoke boot passed"
	else
		echo "vm: KVM smoke boot failed or hung (60 s watchdog): using TCG" >&2
		accel=tcg
	fi
	rm -rf "$smoke"
fi
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing (make deps)"

mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
rm -f "$out/results.raw" "$out/results.txt" "$out/console.log"

# The job rides in a second cpio archive appended to the base one: the
# kernel unpacks both, so the base image is built once per kernel.
jobstage=$(mktemp -d)
trap 'rm -rf "$jobstage"' EXIT
mkdir "$jobstage/job" && cp -a "$job/." "$jobstage/job/" || die "cannot stage $job"
(cd "$jobstage" && find job | cpio -o -H newc --quiet | gzip -1) >"$jobstage/job.cpio.gz"
cat "$initrd" "$jobstage/job.cpio.gz" >"$out/initrd.img"

# tsc=reliable: TCG vCPUs look unsynchronised to the kernel, which then picks
# HPET and every clock_gettime() of the benchmark becomes a ~1 us syscall.
set -- -nodefaults -display none -no-reboot \
	-machine pc,nvdimm=on -smp 2 -m "$mem,slots=4,maxmem=8G" \
	-kernel "$kernel" -initrd "$out/initrd.img" \
	-append "console=ttyS0 panic=-1 oops=panic loglevel=6 rdinit=/init tsc=reliable $append" \
	-serial "file:$out/console.log" \
	-device virtio-serial-pci -chardev "file,id=results,path=$out/results.raw" \
	-device virtserialport,chardev=results,name=results
if [ "$accel" = kvm ]; then
	set -- "$@" -accel kvm -cpu host
else
	set -- "$@" -accel tcg,thread=multi -cpu max
fi
n=0
for f in $pmems; do
	if [ ! -f "$f" ]; then
		truncate -s "$pmem_size" "$f" || die "cannot create $f"
	fi
	size=$(stat -c %s "$f")
	set -- "$@" -object "memory-backend-file,id=pmem$n,share=on,mem-path=$f,size=$size" \
		-device "nvdimm,id=nvdimm$n,memdev=pmem$n"
	n=$((n + 1))
done

start=$(date +%s)
echo "vm: booting $(basename "$kernel") ($accel, 2 cpus, $mem, $n nvdimm, watchdog ${timeout}s)"
timeout -k 5 "$timeout" qemu-system-x86_64 "$@" 2>"$out/qemu.err" &
qpid=$!
trap 'kill $qpid 2>/dev/null; rm -rf "$jobstage"; exit 130' INT TERM
if [ -z "$quiet" ]; then
	# Show results as they arrive so a long run shows progress.
	touch "$out/results.raw"
	# File payloads (between @@file and @@end) are not progress: skip them.
	tail -n +1 -f --pid=$qpid "$out/results.raw" |
		awk '/^@@file / { skip = 1 } !skip && !/^@@vm-exit/ { print "  | " $0; fflush() } /^@@end$/ { skip = 0 }' &
fi
wait $qpid
qrc=$?
wait
elapsed=$(($(date +%s) - start))
grep -v '^@@vm-exit' "$out/results.raw" >"$out/results.txt" 2>/dev/null
rc=$(sed -n 's/^@@vm-exit \([0-9]*\)$/\1/p' "$out/results.raw" 2>/dev/null | tail -n 1)
# 137 before the deadline is a SIGKILL from outside (a crash test), not us.
if [ "$qrc" = 124 ] || { [ "$qrc" = 137 ] && [ "$elapsed" -ge "$timeout" ]; }; then
	echo "vm: watchdog fired after ${timeout}s; console log: $out/console.log" >&2
	tail -n 15 "$out/console.log" | sed 's/^/vm: console: /' >&2
	exit 124
fi
if [ -z "$rc" ]; then
	echo "vm: guest ended without a result after ${elapsed}s (qemu exit $qrc); console log: $out/console.log" >&2
	tail -n 15 "$out/console.log" | sed 's/^/vm: console: /' >&2
	[ -s "$out/qemu.err" ] && sed 's/^/vm: qemu: /' "$out/qemu.err" >&2
	exit 125
fi
echo "vm: guest finished in ${elapsed}s, job exit $rc"
exit "$rc"
