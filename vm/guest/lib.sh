# Guest-side helpers shared by every job (sourced by init and jobs, as
# /suite/vm/guest/lib.sh), and the exit code table (EXIT_* variables).
# Native mode (native/job.sh) runs the same jobs on a host: SUITE is then
# the repo, JOB_DIR the staged job folder, NATIVE_TARGET a folder of the
# host's DAX filesystem (type NATIVE_FS) where the job makes its files.
suite_dir=${SUITE:-/suite}
job_dir=${JOB_DIR:-/job}
# Last: where a job's own archive puts its commands (fio_unpack).
case :$PATH: in *:/usr/bin:*) ;; *) PATH=$PATH:/usr/bin ;; esac
suite_lib=$suite_dir/lib
. "$suite_lib/exitcodes.sh"
. "$suite_lib/scenarios.sh"
. "$suite_lib/filesystems.sh"

# Turn every NVDIMM namespace into fsdax mode unless it already is (a reboot
# on the same backing file keeps the info block, and with it the data).
pmem_setup() {
	modprobe nfit && modprobe nd_pmem || return 1
	for ns in $(ndctl list -N 2>/dev/null | sed -n 's/.*"dev":"\(namespace[0-9.]*\)".*/\1/p'); do
		if ! ndctl list -n "$ns" | grep -q '"mode":"fsdax"'; then
			ndctl create-namespace -f -e "$ns" -m fsdax >/dev/null || return 1
		fi
	done
	udev_wait /dev/pmem0
}

udev_wait() {
	i=0
	while [ ! -b "$1" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ -b "$1" ]
}

# fs_module TYPE: load its module, if it has one.
fs_module() {
	m=$(fs_field "$1" module) || { echo "fs: unknown fs $1" >&2; return 1; }
	[ "$m" = - ] || modprobe "$m"
}

# fs_mkfs TYPE DEV: the table's mkfs (2 MiB-aligned allocations).
fs_mkfs() {
	fs_module "$1" && $(fs_field "$1" mkfs) "$2"
}

# fs_mount TYPE DEV DIR: mount with -o dax (busybox mount needs -t).
fs_mount() {
	fs_module "$1" || return 1
	mkdir -p "$3"
	mount -t "$1" -o dax "$2" "$3" || return 1
	# XFS quietly mounts without DAX when the device cannot do it: refuse that.
	if ! fs_is_dax "$3"; then
		echo "fs_mount: $2 mounted without DAX on $3" >&2
		umount "$3"
		return 1
	fi
}

# fs_is_dax DIR: the mount carries the dax option.
fs_is_dax() {
	awk -v d="$1" '$2 == d && $4 ~ /(^|,)dax(=always)?(,|$)/ { found = 1 } END { exit !found }' /proc/mounts
}

# pmem_expect N: pmem_setup left N fsdax namespaces, /dev/pmem0../dev/pmem(N-1).
pmem_expect() {
	pmem_setup && udev_wait "/dev/pmem$(($1 - 1))" &&
		[ "$(ndctl list -N | grep -c '"mode":"fsdax"')" = "$1" ]
}

# fs_setup TYPE DEV: a fresh TYPE filesystem on DEV, mounted -o dax on /mnt/TYPE.
fs_setup() {
	fs_mkfs "$1" "$2" && fs_mount "$1" "$2" "/mnt/$1"
}

# fs_targets: the filesystems a job runs on: both of the table in the VM,
# the target's alone in native mode.
fs_targets() {
	if [ -n "${NATIVE_TARGET:-}" ]; then echo "$NATIVE_FS"; else fs_list; fi
}

# fs_dir TYPE: where a job makes its files on TYPE.
fs_dir() {
	echo "${NATIVE_TARGET:-/mnt/$1}"
}

# settle: the state every measured run starts from (issue 33; bench/README.md,
# "Drift"). 1. ext4's jbd2 takes each commit's descriptor and commit blocks
# through the block device's page cache (__getblk); a log position met for
# the first time costs a page and its buffer heads, and a 16 MiB journal is
# met position by position as the log wraps (every ~3 runs of 256
# synchronous faults), so the same run grew cheaper in steps as a boot went
# on (3-7 % on ext4 MAP_SYNC faults). Dropping the clean page cache before
# each run gives every run the same cold journal. 2. A synchronous fault
# waits for kjournald2's commit, and under TCG a wake-up that crosses vCPUs
# costs what the scheduler's choice of CPUs decides: two levels 4 % apart
# within a boot. kjournald2 goes to CPU 0, where on_cpu0 runs the measured
# task: the same run then measures within 0.1 %. In the VM only: natively
# the machine's caches and CPUs are its owner's.
settle() {
	[ -z "${NATIVE_TARGET:-}" ] || return 0
	sync
	echo 1 >/proc/sys/vm/drop_caches
	for _p in $(ps | awk '/\[jbd2\// { print $1 }'); do taskset -p 1 "$_p" >/dev/null || return 1; done
}

# after_attach: what every measured run of make overhead waits before its
# faults, traced or not. Attaching fentry/fexit replaces a BPF trampoline
# image, which the kernel frees after an RCU-tasks grace period that then
# runs beside the faults (grace-period wake-ups, timers, RCU softirqs on
# their CPU: +10 us a fault over the first 256 synchronous faults on 6.12).
# Idle under -icount the wait costs no host time. A command a tracer runs
# (-c) sleeps $ATTACH_WAIT_S itself.
ATTACH_WAIT_S=2
after_attach() { sleep "$ATTACH_WAIT_S"; }

# on_cpu0 CMD...: CMD (and what it starts) on CPU 0, next to the journal
# thread settle placed there; natively as it is.
on_cpu0() {
	if [ -n "${NATIVE_TARGET:-}" ]; then "$@"; else taskset 1 "$@"; fi
}

# bench_start TOOL FS...: how every bench/*-guest.sh starts: its tools on
# PATH, its variables (./job.env), fail() naming TOOL, and each FS made
# fresh and mounted -o dax (ext4 on /dev/pmem0, xfs on /dev/pmem1) in the
# order given: xfs first where daxlat will run (it looks for xfs.ko's
# functions when it starts). Native mode makes nothing: native/job.sh has
# checked its target.
bench_start() {
	bench_tool=$1
	shift
	PATH=$job_dir/bin:$PATH
	. ./job.env
	[ -z "${NATIVE_TARGET:-}" ] || return 0
	pmem_expect 2 || fail "no fsdax namespaces"
	for _fs; do
		case $_fs in ext4) _dev=/dev/pmem0 ;; xfs) _dev=/dev/pmem1 ;; *) fail "bench_start: no device for $_fs" ;; esac
		fs_setup "$_fs" "$_dev" || fail "$_fs -o dax"
	done
}

# fail WHY: a bench job's end, one line naming its tool (bench_start).
fail() {
	echo "${bench_tool:-guest}: $*" >&2
	exit 1
}

# guest_meta: how this guest measures, as key=value lines (results' meta.txt).
guest_meta() {
	echo "guest_kernel=$(uname -r)"
	echo "guest_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
	echo "guest_cpus=$(grep -c ^processor /proc/cpuinfo)"
	echo "clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	echo "cache_flush=$(grep -o -w -E 'clwb|clflushopt' /proc/cpuinfo | sort -u | tr '\n' ' ')"
}

# emit NAME FILE: send FILE back to the host as NAME (vm/results.awk unpacks it).
emit() {
	echo "@@file $1"
	cat "$2"
	echo "@@end"
}

# fio_unpack DIR: Debian's fio from the job's own archive (/job/fio.cpio.gz,
# vm/mkarchive.sh: fio links 62 libraries, so no other job carries them),
# unpacked over /; DIR for its scratch files. Natively fio is the host's.
# Prints one line: fio's version, the archive's size and unpacking time.
fio_unpack() {
	if [ -n "${NATIVE_TARGET:-}" ] || [ ! -f "$job_dir/fio.cpio.gz" ]; then
		command -v fio >/dev/null || { echo "no fio (and no $job_dir/fio.cpio.gz)"; return 1; }
		echo "$(fio --version): the host's"
		return 0
	fi
	_t0=$(cut -d' ' -f1 /proc/uptime)
	_kb=$(du -k "$job_dir/fio.cpio.gz" | cut -f1)
	(cd / && gzip -dc "$job_dir/fio.cpio.gz" | cpio -idm 2>"$1/cpio.err") ||
		{ echo "unpack: $(head -c 300 "$1/cpio.err")"; return 1; }
	rm -f "$job_dir/fio.cpio.gz"
	_t1=$(cut -d' ' -f1 /proc/uptime)
	fio --version >"$1/fio.version" 2>&1 || { echo "fio --version: $(head -c 300 "$1/fio.version")"; return 1; }
	echo "$(cat "$1/fio.version"): $_kb KiB archive unpacked in $(awk -v a="$_t0" -v b="$_t1" 'BEGIN { printf "%.1f", b - a }') s"
}

# tracer_attached PID FUNC: wait (30 s at most) until a tracer (libbpf-tools'
# funclatency) is on FUNC: a kretprobe on it registered, or, where the
# tool takes fentry/fexit instead (newer kernels), two BPF links held by
# PID. Prints how ("kprobe" or "fentry"); status 1 if neither came. The
# tool's own "Tracing" line cannot say: it stays in stdio's buffer when
# stdout is a file.
tracer_attached() {
	_i=0
	while [ $_i -lt 300 ]; do
		if grep -q " r  *$2+0x0" /sys/kernel/debug/kprobes/list 2>/dev/null; then echo kprobe; return 0; fi
		if [ "$(cat /proc/"$1"/fdinfo/* 2>/dev/null | grep -c '^link_type:')" -ge 2 ]; then echo fentry; return 0; fi
		sleep 0.1; _i=$((_i + 1))
	done
	return 1
}
