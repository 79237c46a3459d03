#!/bin/sh
# Boot the guest kernel in QEMU with emulated NVDIMMs, run one job, bring back
# its stdout over a virtio serial port, and never hang: a watchdog kills QEMU.
# The suite runs guests through vm/job.sh (the job contract), which calls this.
#
# Usage: run.sh [options] JOBDIR
#   JOBDIR holds an executable 'run' (becomes /job/run in the guest) and any
#   files it needs (bin/, tests/, ...).
# Options:
#   --kernel F      guest kernel image (required)
#   --initrd F      base initramfs from mkinitramfs.sh (required)
#   --out DIR       where results.txt, files/ (vm/results.awk) and
#                   console.log go (required)
#   --pmem F        NVDIMM backing file; repeatable; created sparse if absent
#   --pmem-size S   size of a new backing file (default 512M)
#   --timeout S     watchdog in seconds (default 600)
#   --accel A       tcg (default) or kvm (only after a smoke boot proved it)
#   --mem M         guest RAM (default 1G)
#   --append STR    extra kernel command line
#   --expect-panic ERE  a panic whose message matches ERE is the job's own
#                   doing (the crash test), not a splat
#   --quiet         do not echo result lines while the guest runs
# Environment: QEMU (default qemu-system-x86_64), TCG_THREAD (single|multi),
# ICOUNT (QEMU -icount suboptions, e.g. shift=3,sleep=off: guest time from
# instructions executed, single-threaded TCG; empty: wall time).
# The console is watched while the guest runs: at the first kernel splat of
# vm/splats.txt (soft/hard lockup, RCU stall, hung task, BUG/Oops, WARNING,
# panic) QEMU is stopped within seconds and OUT/splat.txt says what and where.
# Exit status: the job's own; else one of lib/exitcodes.h's EXIT_VM_*: a
# splat (117-123, the class's code in vm/splats.txt), the watchdog fired
# (124), the guest ended without reporting (125: a crash, an outside
# SIGKILL), bad usage or host setup failure (126).
set -u
kernel= initrd= out= pmems= pmem_size=512M timeout=600 accel=${ACCEL:-tcg}
mem=1G append= quiet= expect_panic=
tcg_thread=${TCG_THREAD:-multi} qemu=${QEMU:-qemu-system-x86_64} icount=${ICOUNT:-}
here=$(cd "$(dirname "$0")" && pwd)
suite_lib=${here%/vm}/lib
. "$suite_lib/exitcodes.sh"
die() { echo "vm: $*" >&2; exit $EXIT_VM_SETUP; }
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
	--expect-panic) expect_panic=$2; shift ;;
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
# Whatever happens next, nothing of an earlier run may pass for this one's.
rm -rf "$out/results.raw" "$out/results.txt" "$out/console.log" "$out/splat.txt" "$out/files" 2>/dev/null
case $accel in tcg|kvm) ;; *) die "--accel must be tcg or kvm, not '$accel'" ;; esac
case $tcg_thread in single|multi) ;; *) die "TCG_THREAD must be single or multi, not '$tcg_thread'" ;; esac
case $timeout in ''|*[!0-9]*) die "--timeout must be a number of seconds, not '$timeout'" ;; esac

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
command -v "$qemu" >/dev/null || die "$qemu missing (make deps)"

mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)

# The job rides in a second cpio archive appended to the base one: the
# kernel unpacks both, so the base image is built once per kernel.
jobstage=$(mktemp -d)
qpid=
# stop_qemu: TERM, then KILL, to the watchdog (timeout passes it on to QEMU).
stop_qemu() {
	[ -n "$qpid" ] || return 0
	kill -TERM "$qpid" 2>/dev/null
	i=0
	while kill -0 "$qpid" 2>/dev/null && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
	kill -KILL "$qpid" 2>/dev/null
	pkill -KILL -P "$qpid" 2>/dev/null
	qpid=
}
# On any exit, and on Ctrl-C: no QEMU left running, no staging left behind.
trap 'stop_qemu; rm -rf "$jobstage" "$out/initrd.img"' EXIT
trap 'exit 130' INT TERM
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
# A QEMU unpacked from its .deb (vm/fetch-qemu.sh) takes its firmware and
# modules from its own tree, not from the system's older packages.
qroot=${qemu%/usr/bin/*}
if [ "$qroot" != "$qemu" ] && [ -d "$qroot/usr/share/qemu" ]; then
	set -- "$@" -L "$qroot/usr/share/qemu" -L "$qroot/usr/share/seabios"
	export QEMU_MODULE_DIR="$qroot/usr/lib/x86_64-linux-gnu/qemu"
fi
if [ "$accel" = kvm ]; then
	set -- "$@" -accel kvm -cpu host
else
	[ -n "$icount" ] && tcg_thread=single && set -- "$@" -icount "$icount"
	set -- "$@" -accel "tcg,thread=$tcg_thread" -cpu max
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

splats=$here/splats.txt
# splat_scan: the first splat in the console so far, into OUT/splat.txt.
splat_scan() {
	awk -v table="$splats" -v exitcodes="$suite_lib/exitcodes.h" -v expect="$expect_panic" \
		-f "$here/splat.awk" \
		"$out/console.log" >"$out/splat.tmp" 2>/dev/null && mv "$out/splat.tmp" "$out/splat.txt"
}
splat_field() { sed -n "s/^$1 //p" "$out/splat.txt"; }

start=$(date +%s)
how=$accel
[ "$accel" = tcg ] && how="tcg $tcg_thread-threaded"
[ -n "$icount" ] && how="$how, icount $icount"
echo "vm: booting $(basename "$kernel") ($how, 2 cpus, $mem, $n nvdimm, watchdog ${timeout}s)"
: >"$out/console.log"
: >"$out/results.raw"
timeout -k 5 "$timeout" "$qemu" "$@" 2>"$out/qemu.err" &
qpid=$!
if [ -z "$quiet" ]; then
	# Result lines as they arrive, with the time since boot; file payloads
	# (between @@file and @@end) and diagnostics are not progress.
	# (A shell loop, not awk: mawk reads its input in blocks.)
	tail -n +1 -f --pid=$qpid "$out/results.raw" 2>/dev/null | {
		skip=
		while IFS= read -r line; do
			case $line in
			"@@file "*) skip=1 ;;
			@@end) skip= ;;
			"ok "[0-9]*|"not ok "[0-9]*)
				[ -n "$skip" ] || printf '  [%4ds] %s\n' $(($(date +%s) - start)) "$line" ;;
			esac
		done
	} &
fi
# Watch the console: a guest that splats is stopped within seconds, after
# the report is complete (or 3 s at most), never left to the watchdog.
seen=
while kill -0 "$qpid" 2>/dev/null; do
	sleep 1
	splat_scan || continue
	now=$(date +%s)
	if [ -z "$seen" ]; then
		seen=$now
		echo "vm: $(splat_field class | tr _ ' ') in the guest console after $((now - start))s: stopping it" >&2
	fi
	if [ "$(splat_field complete)" = 1 ] || [ $((now - seen)) -ge 3 ]; then
		stop_qemu
		break
	fi
done
[ -n "$qpid" ] && wait "$qpid"
qrc=$?
qpid=
wait
end=$(date +%s)
elapsed=$((end - start))
mkdir -p "$out/files"
rc=$(awk -v dir="$out/files" -v txt="$out/results.txt" -f "$here/results.awk" "$out/results.raw" 2>/dev/null)
# The console is final now: scan it again, so a report seen while it was
# still being printed is read whole (a panic ends QEMU at once, -no-reboot,
# before the loop above looks again), and a splat it never saw is classified.
if splat_scan && [ -z "$seen" ]; then seen=$end; fi
if [ -n "$seen" ]; then
	{ echo "seen_s $((seen - start))"; echo "stopped_s $elapsed"; } >>"$out/splat.txt"
	echo "vm: guest $(splat_field class | tr _ ' ') at $(splat_field at), stopped ${elapsed}s after boot ($((end - seen))s after it was seen)" >&2
	echo "vm: console: $(splat_field line)" >&2
	[ -n "$(splat_field frames)" ] && echo "vm: frames: $(splat_field frames)" >&2
	echo "vm: console log: $out/console.log" >&2
	exit "$(splat_field code)"
fi
# 137 before the deadline is a SIGKILL from outside (a crash test), not us.
if [ "$qrc" = 124 ] || { [ "$qrc" = 137 ] && [ "$elapsed" -ge "$timeout" ]; }; then
	echo "vm: watchdog fired after ${timeout}s; console log: $out/console.log" >&2
	tail -n 15 "$out/console.log" | sed 's/^/vm: console: /' >&2
	exit $EXIT_VM_WATCHDOG
fi
if [ -z "$rc" ]; then
	echo "vm: guest ended without a result after ${elapsed}s (qemu exit $qrc); console log: $out/console.log" >&2
	tail -n 15 "$out/console.log" | sed 's/^/vm: console: /' >&2
	[ -s "$out/qemu.err" ] && sed 's/^/vm: qemu: /' "$out/qemu.err" >&2
	exit $EXIT_VM_NO_RESULT
fi
echo "vm: guest finished in ${elapsed}s, job exit $rc"
exit "$rc"
