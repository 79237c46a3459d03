# Host side of a run in the guest, sourced by reproduce.sh, overhead.sh and
# crash-long (validate/crash/crash.mk).

# run_dir NAME: create and set $run = results/runs/NAME-DATE-REV (RUN_DIR
# when set: make reproduce-kernels names each of its runs), and $label
# (vm/label.sh: how the run is obtained; $rev its git revision).
run_dir() {
	label=$(sh vm/label.sh)
	rev=$(echo "$label" | sed -n 's/^git_revision=//p')
	run=${RUN_DIR:-results/runs/$1-$(date -u +%Y%m%dT%H%M%SZ)-$rev}
	mkdir -p "$run"
}

# need_count NAME VALUE: VALUE is a whole number >= 1, or one line saying
# which variable is wrong, before anything boots.
need_count() {
	case $2 in
	''|*[!0-9]*|0) echo "$1=$2: must be a whole number of at least 1" >&2; return 1 ;;
	esac
	[ ${#2} -le 6 ] || { echo "$1=$2: too large" >&2; return 1; }
}

# need_host: what every bench run needs from the host, checked up front
# (natively, TARGET=DIR: native/job.sh checks its target itself).
need_host() {
	[ -z "${TARGET:-}" ] || return 0
	case ${ACCEL:-tcg} in tcg|kvm) ;; *) echo "ACCEL=$ACCEL: must be tcg or kvm" >&2; return 1 ;; esac
	[ -f "${VMLINUZ:-}" ] || { echo "no guest kernel image '${VMLINUZ:-}' (KERNEL=?)" >&2; return 1; }
}

# bench_run NAME GUEST_SCRIPT RUNS VAR...: runs GUEST_SCRIPT in the VM with
# the named variables in ./job.env, copies the files it emitted to a new
# run_dir and labels them in meta.txt. RUNS: how many benchmark runs of
# PAGES faults the job makes; the watchdog is sized from it (about 4x the
# 2.5 s a 512-page run takes under TCG, plus two minutes for boot and
# setup), unless VM_TIMEOUT is set. A failed or interrupted run leaves no
# run folder behind.
# BENCH_FILES: more files for the job folder. TARGET=DIR: the same job
# runs natively on DIR's DAX filesystem (native/job.sh), no VM.
# Environment (from the Makefile): VMLINUZ INITRD BINDIR ACCEL GUEST_KVER, O
bench_run() {
	name=$1 script=$2 runs=$3; shift 3
	watchdog=${VM_TIMEOUT:-$((120 + runs * 10 * ((PAGES + 511) / 512)))}
	run_dir "$name"
	trap 'rm -rf "$run"; exit 130' INT TERM
	# One folder per run: two runs at once (make check's gate next to a long
	# study) must not share their job files.
	work=${O:-.output}/work/$(echo "$run" | tr / _)
	mkdir -p "$work"
	# Values may hold spaces (a scenario list): quote them for the guest's sh.
	for var in "$@"; do eval "printf \"%s='%s'\\n\" $var \"\$$var\""; done >"$work/job.env"
	files=
	for f in ${BENCH_FILES:-}; do files="$files --file $f"; done
	runner=vm/job.sh
	[ -z "${TARGET:-}" ] || runner="native/job.sh --target $TARGET"
	# shellcheck disable=SC2086
	sh $runner --file "$work/job.env" $files "$script" "$work/vm" --timeout "$watchdog" || {
		echo "$name: the $([ -n "${TARGET:-}" ] && echo native || echo guest) run failed (see $work/vm/console.log)" >&2
		rm -rf "$run"
		trap - INT TERM
		return 1
	}
	trap - INT TERM
	cp -r "$work/vm/files/." "$run/"
	cp "$work/vm/console.log" "$run/"
	{
		echo "$label"
		cat "$work/job.env"
		cat "$run/guest-meta.txt"
	} >"$run/meta.txt"
	rm -f "$run/guest-meta.txt"
}
