# Host side of a run in the guest, sourced by reproduce.sh, overhead.sh and
# crash-long (validate/crash/crash.mk).

# run_dir NAME: create and set $run = results/runs/NAME-DATE-REV (and $rev,
# "-dirty" when tracked files differ from HEAD).
run_dir() {
	rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
	[ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || rev="$rev-dirty"
	run=results/runs/$1-$(date -u +%Y%m%dT%H%M%SZ)-$rev
	mkdir -p "$run"
}

# bench_run NAME GUEST_SCRIPT VAR...: runs GUEST_SCRIPT in the VM with the
# named variables in ./job.env, copies the files it emitted to a new run_dir
# and labels them in meta.txt.
# Environment (from the Makefile): VMLINUZ INITRD BINDIR ACCEL GUEST_KVER, O
bench_run() {
	name=$1 script=$2; shift 2
	run_dir "$name"
	work=${O:-.output}/$name
	mkdir -p "$work"
	# Values may hold spaces (a scenario list): quote them for the guest's sh.
	for var in "$@"; do eval "printf \"%s='%s'\\n\" $var \"\$$var\""; done >"$work/job.env"
	JOB_FILES=$work/job.env sh vm/job.sh "$script" "$work/vm" --timeout "${VM_TIMEOUT:-1800}" || {
		echo "$name: the guest run failed (see $work/vm/console.log)" >&2
		return 1
	}
	cp -r "$work/vm/files/." "$run/"
	cp "$work/vm/console.log" "$run/"
	{
		echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "git_revision=$rev"
		echo "kernel=$GUEST_KVER"
		echo "accelerator=$ACCEL"
		echo "host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
		echo "qemu=$(qemu-system-x86_64 --version | head -n 1)"
		cat "$work/job.env"
		cat "$run/guest-meta.txt"
	} >"$run/meta.txt"
	rm -f "$run/guest-meta.txt"
}
