#!/bin/sh
# Host half of the MAP_SYNC crash test (validate/crash/README.md): crash the
# guest at random moments while pmwrite writes through MAP_SYNC and plain
# MAP_SHARED mappings on ext4 and xfs, boot again on the same NVDIMM files,
# fsck, and let pmverify check that every page reported before the crash is
# there. Boot k checks round k-1 and writes round k, so C crashes take C+1
# boots. Prints KTAP (also into -t FILE) and writes a JSON summary.
#
# Usage: crash.sh [options]
#   -s SEED     random seed, 1..2147483646 (default: from /dev/urandom;
#               always printed; the same seed replays the same crash plan)
#   -c N        crashes (default 4); every crash hits all 18 writers:
#               {ext4,xfs} x {MAP_SYNC,MAP_SHARED} x {sparse,fallocated,grow,pmdk},
#               and xfs x {MAP_SYNC,MAP_SHARED} x reflink
#   -n PAGES    pages per writer (default 256), transactions per PMDK writer
#   -d MS       longest crash delay for the *-delay methods (default 2000)
#   -M LIST     crash methods, used in turn (default
#               "sysrq-delay sysrq-page kill-delay kill-progress")
#   -o DIR      work directory: NVDIMM files, one folder per boot (required)
#   -t FILE     KTAP copy (default DIR/crash.tap)
#   -j FILE     JSON summary (default DIR/summary.json)
#   -T S        watchdog per boot in seconds (default 90: a boot takes 8-15 s)
#   -k          keep the NVDIMM backing files (4 x 512 MiB, sparse)
#   -q          do not print the KTAP at the end (progress lines only)
#   -X          self-test: after crash 1, flip one byte of a recorded page of an
#               ext4 MAP_SYNC file in the NVDIMM backing file; the run must fail
# Environment: VMLINUZ, INITRD, BINDIR (holding pmwrite and pmverify), ACCEL.
# Exit status: 0 all tests passed, 1 a test failed, 2 usage or setup error.
#
# Crash methods (the moment is drawn from the seed for every crash):
#   sysrq-delay    in the guest, a shell sleeps D ms after the writers start,
#                  then echo c > /proc/sysrq-trigger
#   sysrq-page     writer W does that itself after its K-th page
#   kill-delay     the host sends SIGKILL to QEMU D ms after it saw the start
#   kill-progress  the host sends SIGKILL to QEMU once it saw writer W
#                  report K pages (polling every 20 ms, so a little later)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${here%/validate/crash}
seed= crashes=4 pages=256 max_delay=2000 out= tap= json= boot_timeout=90 keep= quiet= inject=
methods="sysrq-delay sysrq-page kill-delay kill-progress"
. "$top/lib/ktap.sh"
known_bugs_file=$top/validate/known-bugs.txt
suite_lib=$top/lib
. "$suite_lib/exitcodes.sh"
. "$suite_lib/filesystems.sh"
# harness_failure FILE WHY: a KTAP whose one result is the harness failing.
harness_failure() {
	(ktap_plan crash_harness; ktap_start; ktap_fail crash_harness "$2"; ktap_finish) >"$1"
}
# A failure before the end still leaves a failing KTAP (when -t or -o is
# known): make check must count a harness that could not even start.
die() {
	echo "crash: $*" >&2
	t=${tap:-${out:+$out/crash.tap}}
	[ -n "$t" ] && [ -d "$(dirname "$t")" ] && harness_failure "$t" "$*"
	exit 2
}
while getopts s:c:n:d:M:o:t:j:T:kqXh opt; do
	case $opt in
	s) seed=$OPTARG ;;
	c) crashes=$OPTARG ;;
	n) pages=$OPTARG ;;
	d) max_delay=$OPTARG ;;
	M) methods=$OPTARG ;;
	o) out=$OPTARG ;;
	t) tap=$OPTARG ;;
	j) json=$OPTARG ;;
	T) boot_timeout=$OPTARG ;;
	k) keep=1 ;;
	q) quiet=1 ;;
	X) inject=1 ;;
	h) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "usage: crash.sh [-s SEED] [-c N] [-n PAGES] [-d MS] [-M LIST] -o DIR [-t TAP] [-j JSON] [-T S] [-k] [-q] [-X]" ;;
	esac
done
isnum() { case $1 in '' | *[!0-9]*) return 1 ;; esac; }
[ -n "$out" ] || die "-o DIR is required"
isnum "$crashes" && [ "$crashes" -ge 1 ] || die "-c must be a number >= 1"
isnum "$pages" && [ "$pages" -ge 1 ] && [ "$pages" -le 65536 ] || die "-n must be 1..65536"
isnum "$max_delay" || die "-d must be a number of milliseconds"
isnum "$boot_timeout" || die "-T must be a number of seconds"
for m in $methods; do
	case $m in sysrq-delay | sysrq-page | kill-delay | kill-progress) ;; *) die "unknown method '$m'" ;; esac
done
set -- $methods
nmethods=$#
[ "$nmethods" -gt 0 ] || die "-M: no method"
[ -f "${VMLINUZ:-}" ] || die "VMLINUZ='${VMLINUZ:-}' is not a file (make kernel)"
[ -f "${INITRD:-}" ] || die "INITRD='${INITRD:-}' is not a file (make initramfs)"
[ -x "${BINDIR:-}/pmwrite" ] && [ -x "$BINDIR/pmverify" ] && [ -x "$BINDIR/pmobjtx" ] ||
	die "no pmwrite/pmverify/pmobjtx in BINDIR='${BINDIR:-}'"
command -v jq >/dev/null || die "jq missing (make deps)"
if [ -z "$seed" ]; then
	seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
	seed=$((seed % 2147483646 + 1))
fi
isnum "$seed" && [ "$seed" -ge 1 ] && [ "$seed" -le 2147483646 ] || die "-s must be 1..2147483646"

mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
tap=${tap:-$out/crash.tap}
json=${json:-$out/summary.json}
rm -rf "$out"/boot-[0-9]* "$out"/crashes.jsonl "$out"/verify.jsonl "$out"/fsck.jsonl "$out"/pmdk-choices.jsonl "$out"/pmem[0-3].img \
	"$out"/log.txt "$out"/errors.txt "$out"/fsck-problems.txt "$out"/kernel-problems.txt
# Until the end replaces it, the KTAP says the harness did not finish: a run
# that dies half-way must not look like a run with nothing to report.
harness_failure "$tap" "did not finish; see $out"
# Interrupted: no QEMU left behind, and (unless -k) no 2 GiB of backing files.
on_signal() {
	[ -n "${runpid:-}" ] && kill "$runpid" 2>/dev/null && wait "$runpid" 2>/dev/null
	[ -n "$keep" ] || rm -f "$out"/pmem*.img
	rm -f "$out"/boot-*/initrd.img
	exit 130
}
trap on_signal INT TERM

# The writers, in -w order (guest.sh numbers them the same way): pmwrite's
# file modes, xfs's reflinked file (copy-on-write faults), and pmobjtx's
# pool of PMDK transactions (whose "pages" are transactions).
WRITERS="ext4-sync-sparse ext4-sync-fallocated ext4-sync-grow ext4-sync-pmdk
ext4-shared-sparse ext4-shared-fallocated ext4-shared-grow ext4-shared-pmdk
xfs-sync-sparse xfs-sync-fallocated xfs-sync-grow xfs-sync-reflink xfs-sync-pmdk
xfs-shared-sparse xfs-shared-fallocated xfs-shared-grow xfs-shared-reflink xfs-shared-pmdk"
NWRITERS=$(echo $WRITERS | wc -w)
writer_tag() { _i=$1; set -- $WRITERS; shift "$_i"; echo "$1"; }

# Park-Miller "minimal standard" generator (48271 variant) in shell
# arithmetic: the same numbers from any POSIX shell, so a seed replays.
rng=$seed
rand() { rng=$((rng * 48271 % 2147483647)); }


log() { echo "crash: $*"; echo "$*" >>"$out/log.txt"; }

# Find QEMU below the job (pid $1: job.sh -> run.sh -> timeout -> QEMU),
# by descent, never by name alone: other QEMUs on this machine are not ours.
qemu_pid() {
	for c in $(pgrep -P "$1"); do
		case $(cat /proc/"$c"/comm 2>/dev/null) in qemu-system-*) echo "$c"; return 0 ;; esac
		qemu_pid "$c" && return 0
	done
	return 1
}

# wait_line RUNPID FILE AWKCOND: poll until a line of FILE meets AWKCOND
# (exit 0) or run.sh ended (exit 1).
wait_line() {
	while kill -0 "$1" 2>/dev/null; do
		[ -f "$2" ] && awk "$3 { found = 1; exit } END { exit !found }" "$2" && return 0
		sleep 0.02
	done
	return 1
}

# Complete lines only: a last line without its newline was cut by the crash.
complete_lines() {
	if [ -s "$1" ] && [ "$(tail -c 1 "$1" | wc -l)" = 0 ]; then
		sed '$d' "$1"
	else
		cat "$1" 2>/dev/null
	fi
}

# inject_corruption RECS (-X): flip one payload byte of a page that all three
# ext4 MAP_SYNC writers had recorded in crash 1, straight in the backing file
# of pmem0 (their filesystem), found by its header. Sets inject_msg.
inject_corruption() {
	set -- $1
	min=$1
	[ "$2" -lt "$min" ] && min=$2
	[ "$3" -lt "$min" ] && min=$3
	[ "$min" -gt 0 ] || { inject_msg="no page recorded by every ext4 MAP_SYNC writer"; return 1; }
	img=$out/pmem0.img
	for off in $(grep -obUaF MSYNCPG1 "$img" | cut -d: -f1); do
		# pmwrite's pages are page-aligned, PMDK's objects are not.
		[ $((off % 4096)) = 0 ] || continue
		set -- $(od -An -tu8 -j $((off + 16)) -N 16 "$img")
		[ "$1" = 1 ] && [ "$2" -lt "$min" ] || continue
		pos=$((off + 2048))
		byte=$(od -An -tu1 -j "$pos" -N 1 "$img" | tr -d " ")
		printf "\\$(printf %03o $((byte ^ 255)))" |
			dd of="$img" bs=1 seek="$pos" conv=notrunc status=none || break
		inject_msg="flipped the byte at offset $pos of pmem0.img: page $2 of a crash-1 ext4 MAP_SYNC file"
		return 0
	done
	inject_msg="no recorded crash-1 pattern page found in pmem0.img"
	return 1
}

log "seed $seed, $crashes crashes x $NWRITERS writers x $pages pages, methods: $methods, delays 0..${max_delay} ms"
log "replay: sh validate/crash/crash.sh -s $seed -c $crashes -n $pages -d $max_delay -M '$methods' -o DIR"
start_all=$(date +%s)
: >"$out/crashes.jsonl"
: >"$out/verify.jsonl"
: >"$out/fsck.jsonl"
: >"$out/pmdk-choices.jsonl"
: >"$out/errors.txt"
: >"$out/fsck-problems.txt"
rec_env=
crashes_done=0 port_retries=0
b=0
while [ "$b" -le "$crashes" ]; do
	bootdir=$out/boot-$(printf %02d "$b")
	mkdir -p "$bootdir" || die "cannot create $bootdir"
	gen=0 method=none delay=0 cwriter=0 cpage=0
	if [ "$b" -lt "$crashes" ]; then
		gen=$((b + 1))
		# Every draw is made whatever the method: the sequence stays the same.
		rand; delay=$((rng % (max_delay + 1)))
		rand; cwriter=$((rng % NWRITERS))
		rand; cpage=$((rng % (pages + 1)))
		set -- $methods
		shift $((b % nmethods))
		method=$1
	fi
	{
		echo "BOOT=$b"
		echo "SEED=$seed"
		echo "PAGES=$pages"
		echo "VERIFY_GEN=$b"
		echo "WRITE_GEN=$gen"
		echo "CRASH_METHOD=$method"
		echo "CRASH_DELAY_MS=$delay"
		echo "CRASH_WRITER=$cwriter"
		echo "CRASH_PAGE=$cpage"
		echo "HOLD_MAX_S=$((max_delay / 1000 + 60))"
		printf '%s' "$rec_env"
	} >"$bootdir/crash.env"
	case $method in
	none) what="final check of crash $b" ;;
	*-delay) what="crash $gen: $method after $delay ms" ;;
	*) what="crash $gen: $method when $(writer_tag "$cwriter") reports $cpage pages" ;;
	esac
	[ "$b" -gt 0 ] && [ "$method" != none ] && what="check crash $b, $what"
	log "boot $b: $what"

	attempt=1
	while :; do
		t0=$(date +%s)
		# The NVDIMMs are kept across boots: the next one checks this one.
		sh "$top/vm/job.sh" --pmem 4 --pmem-dir "$out" --keep-pmem --file "$bootdir/crash.env" \
			"$here/guest.sh" "$bootdir" --quiet --expect-panic "sysrq triggered crash" \
			--accel "${ACCEL:-tcg}" --timeout "$boot_timeout" >"$bootdir/run.log" 2>&1 &
		runpid=$!
		killed=0
		cond=
		case $method in
		kill-delay) cond='/^G /' ;;
		kill-progress)
			tag=$(writer_tag "$cwriter")
			if [ "$cpage" = 0 ]; then
				cond="\$1 == \"S\" && \$2 == \"$tag\""
			else
				cond="\$1 == \"P\" && \$2 == \"$tag\" && \$3 + 0 >= $cpage"
			fi
			;;
		esac
		if [ -n "$cond" ] && wait_line "$runpid" "$bootdir/results.raw" "$cond"; then
			if [ "$method" = kill-delay ]; then
				sleep "$((delay / 1000)).$(printf %03d $((delay % 1000)))"
			fi
			q=$(qemu_pid "$runpid") && kill -KILL "$q" && killed=1
		fi
		wait "$runpid"
		rc=$?
		runpid=
		secs=$(($(date +%s) - t0))
		complete_lines "$bootdir/results.raw" >"$bootdir/lines.txt"
		# vm/guest/init looks for the virtio port right after modprobe and
		# sometimes misses it: then nothing ran and the NVDIMMs are untouched.
		if [ ! -s "$bootdir/lines.txt" ] && [ "$attempt" -lt 3 ] &&
			grep -q "no virtio port named .results." "$bootdir/console.log" 2>/dev/null; then
			log "  the guest found no result port (vm/guest/init race), nothing ran: boot again"
			mv "$bootdir/console.log" "$bootdir/console-noport-$attempt.log"
			attempt=$((attempt + 1)) port_retries=$((port_retries + 1))
			continue
		fi
		break
	done

	# What this boot says about the previous crash.
	sed -n 's/^J //p' "$bootdir/lines.txt" >>"$out/verify.jsonl"
	awk -v boot="$b" '$1 == "F" && NF == 4 {
		printf "{\"crash\":%d,\"role\":\"%s\",\"tool\":\"%s\",\"status\":\"%s\"}\n", boot, $2, $3, $4 }' \
		"$bootdir/lines.txt" >>"$out/fsck.jsonl"
	sed -n 's/^f \([^ ]*\) /\1: /p' "$bootdir/lines.txt" | sed "s/^/crash $b fsck: /" >>"$out/fsck-problems.txt"
	# What PMDK decided in each PMDK writer, as its process saw it (S lines).
	awk -v crash="$gen" '$1 == "S" && $3 == "mode=pmdk" && NF >= 8 {
		for (i = 4; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "{\"crash\":%d,\"writer\":\"%s\",\"map\":\"%s\",\"map_sync\":%d,\"vm_sync\":%d,\"msync\":%d}\n",
			crash, $2, v["map"], v["map_sync"], v["vm_sync"], v["msync"] }' "$bootdir/lines.txt" >>"$out/pmdk-choices.jsonl"

	# What went wrong with this boot, if anything.
	errs=$(sed -n 's/^E //p' "$bootdir/lines.txt")
	werrs=$(grep -a '^pmwrite: \|^pmverify: ' "$bootdir/console.log" 2>/dev/null | head -n 3)
	if [ "$method" = none ]; then
		grep -q '^@@done$' "$bootdir/lines.txt" && [ "$rc" = 0 ] ||
			errs="$errs${errs:+; }final boot: vm exit $rc, no @@done"
	else
		case $method in
		sysrq-*)
			[ "$rc" = $EXIT_VM_NO_RESULT ] ||
				errs="$errs${errs:+; }vm exit $rc, expected $EXIT_VM_NO_RESULT (guest died from the sysrq crash)"
			# That only says the guest died: it must have been our crash.
			grep -q "sysrq triggered crash" "$bootdir/console.log" 2>/dev/null ||
				errs="$errs${errs:+; }no 'sysrq triggered crash' panic in the console log"
			;;
		kill-*) [ "$killed" = 1 ] && [ "$rc" = $EXIT_VM_NO_RESULT ] ||
			errs="$errs${errs:+; }vm exit $rc, killed=$killed: expected our SIGKILL (run.sh reports $EXIT_VM_NO_RESULT: QEMU died before the watchdog)" ;;
		esac
	fi
	[ -n "$werrs" ] && errs="$errs${errs:+; }$(echo "$werrs" | tr '\n' ' ')"

	# The record of this crash: how far each writer got, as the host saw it.
	rec_env=
	recs=
	if [ "$method" != none ]; then
		recs=$(awk -v list="$WRITERS" '
			BEGIN { n = split(list, w, /[ \n]+/); for (i = 1; i <= n; i++) r[w[i]] = 0 }
			$1 == "P" && NF == 3 && ($2 in r) && $3 ~ /^[0-9]+$/ && $3 + 0 > r[$2] { r[$2] = $3 + 0 }
			END { for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? " " : ""), r[w[i]] }' "$bootdir/lines.txt")
		i=0
		for r in $recs; do
			rec_env="${rec_env}REC_$i=$r
"
			i=$((i + 1))
		done
		rec_json=$(echo "$recs" | awk -v list="$WRITERS" '{
			n = split(list, w, /[ \n]+/); s = ""
			for (i = 1; i <= n; i++) s = s (i > 1 ? "," : "") "\"" w[i] "\":" $i
			print "{" s "}" }')
		printf '{"crash":%d,"method":"%s","delay_ms":%d,"writer":"%s","page":%d,"vm_exit":%d,"host_kill":%s,"boot_seconds":%d,"recorded":%s,"ok":%s}\n' \
			"$gen" "$method" "$delay" "$(writer_tag "$cwriter")" "$cpage" "$rc" \
			"$([ "$killed" = 1 ] && echo true || echo false)" "$secs" "$rec_json" \
			"$([ -z "$errs" ] && echo true || echo false)" >>"$out/crashes.jsonl"
		log "  vm exit $rc after ${secs}s; recorded: $recs"
	else
		log "  vm exit $rc after ${secs}s"
	fi
	if [ -n "$errs" ]; then
		log "  ERROR: $errs (see $bootdir/console.log)"
		echo "boot $b: $errs" >>"$out/errors.txt"
		# The next boot could not check a crash that did not happen as planned.
		break
	fi
	[ "$method" != none ] && crashes_done=$((crashes_done + 1))
	if [ -n "$inject" ] && [ "$b" = 0 ]; then
		inject_corruption "$recs" || { echo "boot 0: -X: $inject_msg" >>"$out/errors.txt"; break; }
		log "  -X: $inject_msg"
	fi
	b=$((b + 1))
done
wall=$(($(date +%s) - start_all))

# Kernel messages that mean trouble, in any boot (the crash itself excepted).
grep -a -H -E 'EXT4-fs error|EXT4-fs warning|XFS \(.*\): (Corruption|Internal error|Metadata|.*I/O error)|WARNING:|BUG:|Oops' \
	"$out"/boot-*/console.log 2>/dev/null | sed "s|^$out/||" >"$out/kernel-problems.txt"

# ---- summary: JSON, then KTAP from it ----
label=$(sh "$top/vm/label.sh")
lv() { echo "$label" | sed -n "s/^$1=//p"; }
jq -n \
	--argjson seed "$seed" --argjson planned "$crashes" --argjson done "$crashes_done" \
	--argjson pages "$pages" --argjson max_delay "$max_delay" --arg methods "$methods" --argjson nwriters "$NWRITERS" \
	--argjson wall "$wall" --argjson port_retries "$port_retries" --arg rev "$(lv git_revision)" --arg accel "$(lv accelerator)" \
	--arg kernel "$(lv kernel)" --arg date "$(lv date)" --arg qemu "$(lv qemu)" --arg host_cpu "$(lv host_cpu)" \
	--rawfile errors "$out/errors.txt" --rawfile kprob "$out/kernel-problems.txt" \
	--slurpfile crashes "$out/crashes.jsonl" --slurpfile verify "$out/verify.jsonl" \
	--slurpfile fsck "$out/fsck.jsonl" --slurpfile choices "$out/pmdk-choices.jsonl" '
	def fsck_of($fs): [$fsck[] | select(.role | startswith($fs + "-"))];
	def group_of($fs; $map; $modes):
		[$verify[] | select(.labels.fs == $fs and .labels.map == $map and
				    (.labels.mode as $m | $modes | index($m)))] as $v
		| {fs: $fs, map: $map,
		   crashes: ($v | map(.labels.crash) | unique | length),
		   files: ($v | length),
		   pages_recorded: ($v | map(.recorded) | add // 0),
		   pages_verified: ($v | map(.verified) | add // 0),
		   pages_lost: ($v | map(.lost) | add // 0),
		   files_with_loss: ($v | map(select(.lost > 0)) | length),
		   crashes_with_loss: ($v | map(select(.lost > 0) | .labels.crash) | unique | length),
		   crashes_mid_write: ($v | map(select(.recorded > 0 and .recorded < .pages) | .labels.crash) | unique | length),
		   pages_ok_after_record: ($v | map(.ok_after) | add // 0),
		   lost_by_class: (reduce $v[] as $x ({}; . as $acc | $x.before | to_entries
			| map(select(.key != "ok")) | reduce .[] as $e ($acc; .[$e.key] += $e.value))),
		   by_mode: [$modes[] as $m
			| [$v[] | select(.labels.mode == $m)]
			| {mode: $m, files: length, pages_recorded: (map(.recorded) | add // 0),
			   pages_verified: (map(.verified) | add // 0), pages_lost: (map(.lost) | add // 0)}]};
	def group($fs; $map): group_of($fs; $map; ["sparse", "fallocated", "grow"]);
	# PMDK pools: the file groups, and what a page count cannot say.
	def pmdk($fs; $map):
		[$verify[] | select(.labels.fs == $fs and .labels.map == $map and .labels.mode == "pmdk")] as $v
		| group_of($fs; $map; ["pmdk"]) + {
		   half_applied: ($v | map(.half_applied) | add // 0),
		   pmemobj_check: ($v | group_by(.pool_check) | map({key: .[0].pool_check, value: length}) | from_entries),
		   pmempool_check: ($v | group_by(.labels.pmempool) | map({key: .[0].labels.pmempool, value: length}) | from_entries),
		   chose: [$choices[] | select(.writer == "\($fs)-\($map)-pmdk") | {map_sync, vm_sync}] | unique};
	{tool: "crash", version: 1, date: $date, git_revision: $rev, kernel: $kernel,
	 accelerator: $accel, qemu: $qemu, host_cpu: $host_cpu, seed: $seed, crashes_planned: $planned,
	 crashes_done: $done, pages: $pages, writers_per_crash: $nwriters, max_delay_ms: $max_delay,
	 methods: ($methods | split(" ") | map(select(. != ""))), wall_seconds: $wall,
	 boots_repeated_no_result_port: $port_retries,
	 errors: ($errors | split("\n") | map(select(. != ""))),
	 kernel_problems: ($kprob | split("\n") | map(select(. != ""))),
	 results: [group("ext4"; "sync"), group("ext4"; "shared"), group("xfs"; "sync"), group("xfs"; "shared")],
	 reflink: [group_of("xfs"; "sync"; ["reflink"]), group_of("xfs"; "shared"; ["reflink"])],
	 pmdk: [pmdk("ext4"; "sync"), pmdk("xfs"; "sync"), pmdk("ext4"; "shared"), pmdk("xfs"; "shared")],
	 pmdk_choices: $choices,
	 fsck: {ext4: (fsck_of("ext4") | group_by(.status) | map({key: .[0].status, value: length}) | from_entries),
	        xfs: (fsck_of("xfs") | group_by(.status) | map({key: .[0].status, value: length}) | from_entries)},
	 crash_log: $crashes, verifications: $verify}' >"$json.tmp" && mv "$json.tmp" "$json" ||
	{ echo "crash: could not build $json" >&2; exit 2; }

# KTAP: one result per claim; details as '#' lines before each result.
result() { # result OK NAME DIAG
	if [ "$1" = 1 ]; then ktap_pass "$2"; else ktap_fail "$2" "$3"; fi
}
q() { jq -r "$1" "$json"; }
# known_result NAME CRASHES LOST TEXT: a test with a known kernel bug row
# (validate/known-bugs.txt, evidence pages_lost): XFAIL when pages were
# lost; when none were, XPASS only after the row's xpass_after crashes (a
# crash meets the bug's window by chance), else an inconclusive XFAIL; not
# ok without crashes.
known_result() {
	_id=$(known_bug "$1" id) || { result 0 "$1" "no row in validate/known-bugs.txt"; return; }
	_kernel=$(lv kernel) _need=$(known_bug "$1" xpass_after)
	if [ "$2" = 0 ]; then
		ktap_fail "$1" "no crash checked it"
	elif [ "$3" -gt 0 ]; then
		ktap_xfail "$1" "known kernel bug $_id on $_kernel: $4 ($(known_bug "$1" rule))"
	elif [ "$2" -ge "${_need:-1}" ]; then
		ktap_xpass "$1" "known kernel bug $_id did not show on $_kernel: $4"
	else
		ktap_xfail "$1" "known kernel bug $_id on $_kernel: not met in $2 crashes, fewer than the $_need it takes to say it is gone (make crash-long): $4"
	fi
}
ktap_plan crash_rounds_as_planned
for fs in ext4 xfs; do ktap_plan ${fs}_map_sync_no_page_lost ${fs}_control_loses_data ${fs}_fsck_after_crash; done
ktap_plan xfs_reflink_map_sync_no_page_lost ext4_pmdk_no_tx_lost xfs_pmdk_no_tx_lost pmdk_control_loses_tx \
	pmdk_chose_map_sync kernel_log_clean
{
	ktap_start
	echo "# seed $seed: $crashes_done of $crashes crashes, $NWRITERS writers x $pages pages each, ${wall}s wall (replay: crash.sh -s $seed -c $crashes -n $pages -d $max_delay)"
	[ "$port_retries" = 0 ] || echo "# $port_retries boot(s) repeated: the guest found no result port (vm/guest/init race)"
	echo "# writers (order of the recorded lists): $(echo $WRITERS | tr " " ",")"
	jq -r '.crash_log[] | "# crash \(.crash): \(.method) " +
		(if (.method | endswith("delay")) then "\(.delay_ms) ms" else "\(.writer) page \(.page)" end) +
		", vm exit \(.vm_exit), recorded " + ([.recorded | to_entries[] | .value | tostring] | join(","))' "$json"
	ok=0
	[ "$crashes_done" = "$crashes" ] && [ ! -s "$out/errors.txt" ] && ok=1
	sed 's/^/# /' "$out/errors.txt"
	result $ok crash_rounds_as_planned "$crashes_done of $crashes crashes done and checked; $(head -n 1 "$out/errors.txt")"
	for fs in ext4 xfs; do
		g=".results[] | select(.fs == \"$fs\" and .map == \"sync\")"
		c=".results[] | select(.fs == \"$fs\" and .map == \"shared\")"
		q "$g | \"# \(.fs) MAP_SYNC: \(.crashes) crashes, \(.files) files, \(.pages_recorded) pages recorded, \(.pages_verified) verified, \(.pages_lost) lost, \(.crashes_mid_write) crashes mid-write, \(.pages_ok_after_record) pages intact after the record\""
		q "$g | .by_mode[] | \"#   \(.mode): \(.files) files, \(.pages_recorded) recorded, \(.pages_lost) lost\""
		ok=0
		[ "$(q "$g | .crashes > 0 and .pages_lost == 0")" = true ] && ok=1
		result $ok "${fs}_map_sync_no_page_lost" "$(q "$g | \"\(.pages_lost) of \(.pages_recorded) recorded pages lost in \(.crashes_with_loss) of \(.crashes) crashes: \(.lost_by_class)\"")"

		q "$c | \"# \(.fs) control (MAP_SHARED): \(.crashes) crashes, \(.pages_recorded) pages recorded, \(.pages_lost) lost, loss in \(.crashes_with_loss) of \(.crashes) crashes\""
		q "$c | .by_mode[] | \"#   \(.mode): \(.files) files, \(.pages_recorded) recorded, \(.pages_lost) lost\""
		ok=0
		[ "$(q "$c | .pages_lost > 0")" = true ] && ok=1
		result $ok "${fs}_control_loses_data" "the control never lost a page in $(q "$c | .crashes") crashes: the test is not sensitive"

		q "\"# \" + \"$fs fsck statuses: \" + (.fsck.$fs | tostring)"
		grep "fsck: $fs-" "$out/fsck-problems.txt" 2>/dev/null | sed "s/^crash [0-9]* fsck: //; s/[0-9][0-9][0-9]*/N/g" | sort | uniq -c | sort -rn | head -n 5 | sed "s/^ */# fsck found (times): /"
		# The statuses that mean clean (vm/guest/filesystems.txt's fsck_ok).
		clean=$(fs_field "$fs" fsck_ok | tr ' ' '\n' | jq -R . | jq -s -c .)
		bad=$(jq -r --argjson clean "$clean" "[.fsck.$fs | keys[] | select(. as \$k | \$clean | index(\$k) | not)] | length" "$json")
		ok=0
		[ "$bad" = 0 ] && [ "$(q ".fsck.$fs | length")" -gt 0 ] && ok=1
		result $ok "${fs}_fsck_after_crash" "fsck statuses $(q ".fsck.$fs | tostring")"
	done
	# Reflinked files (known-bugs.txt: XFAIL when the known bug shows).
	g='.reflink[] | select(.map == "sync")'
	c='.reflink[] | select(.map == "shared")'
	q "$g | \"# xfs MAP_SYNC reflinked: \(.crashes) crashes, \(.pages_recorded) pages recorded, \(.pages_verified) verified, \(.pages_lost) lost in \(.crashes_with_loss) crashes: \(.lost_by_class)\""
	q "$c | \"# xfs control reflinked (MAP_SHARED): \(.pages_recorded) pages recorded, \(.pages_lost) lost in \(.crashes_with_loss) of \(.crashes) crashes\""
	known_result xfs_reflink_map_sync_no_page_lost "$(q "$g | .crashes")" "$(q "$g | .pages_lost")" \
		"$(q "$g | \"\(.pages_lost) of \(.pages_recorded) recorded pages lost in \(.crashes_with_loss) of \(.crashes) crashes\"")"

	# PMDK (pmobjtx): every transaction reported after pmemobj_tx_commit is
	# there, none half-applied, both checkers say consistent; the control
	# (MAP_SYNC refused, PMEM_IS_PMEM_FORCE=1: no msync) loses some.
	for fs in ext4 xfs; do
		g=".pmdk[] | select(.fs == \"$fs\" and .map == \"sync\")"
		q "$g | \"# \(.fs) PMDK MAP_SYNC: \(.crashes) crashes, \(.files) pools, \(.pages_recorded) transactions recorded, \(.pages_verified) verified, \(.pages_lost) lost, \(.half_applied) half-applied, pmemobj_check \(.pmemobj_check), pmempool check \(.pmempool_check)\""
		ok=0
		[ "$(q "$g | .crashes > 0 and .pages_lost == 0 and .half_applied == 0 and (.pmemobj_check | keys) == [\"consistent\"] and (.pmempool_check | keys) == [\"consistent\"]")" = true ] && ok=1
		result $ok "${fs}_pmdk_no_tx_lost" "$(q "$g | \"\(.pages_lost) of \(.pages_recorded) recorded transactions lost in \(.crashes_with_loss) of \(.crashes) crashes (\(.lost_by_class)), \(.half_applied) half-applied, pmemobj_check \(.pmemobj_check), pmempool \(.pmempool_check)\"")"
	done
	q '.pmdk[] | select(.map == "shared") | "# \(.fs) PMDK control (no MAP_SYNC, FORCE=1): \(.pages_recorded) transactions recorded, \(.pages_lost) lost in \(.crashes_with_loss) of \(.crashes) crashes (\(.lost_by_class)), \(.half_applied) half-applied, pmemobj_check \(.pmemobj_check)"'
	ok=0
	[ "$(q '[.pmdk[] | select(.map == "shared") | .pages_lost] | add > 0')" = true ] && ok=1
	result $ok pmdk_control_loses_tx "the PMDK control never lost a transaction in $(q '[.pmdk[] | select(.map == "shared") | .crashes] | max') crashes: the test is not sensitive"
	# What PMDK chose, from its own process (pmobjtx's S lines).
	q '.pmdk[] | "# \(.fs) \(.map) PMDK writer chose: \(.chose | map("map_sync=\(.map_sync) vm_sync=\(.vm_sync)") | join(", "))"'
	ok=0
	[ "$(q '[.pmdk[] | (.chose | length) == 1 and .chose[0] == (if .map == "sync" then {map_sync: 1, vm_sync: 1} else {map_sync: 0, vm_sync: 0} end)] | all')" = true ] && ok=1
	result $ok pmdk_chose_map_sync "PMDK's writers did not all choose MAP_SYNC (VM_SYNC) under MAP_SYNC and plain MAP_SHARED in the control"

	# Filesystem errors, warnings or oopses in any boot's kernel log
	# (xfstests checks dmesg after each test for the same reason).
	head -n 10 "$out/kernel-problems.txt" | sed "s/^/# kernel: /"
	ok=0
	[ -s "$out/kernel-problems.txt" ] || ok=1
	result $ok kernel_log_clean "$(wc -l <"$out/kernel-problems.txt") kernel messages of filesystem errors, warnings or oopses (listed above)"
	ktap_finish
} >"$tap.tmp"
verdict=$?
mv "$tap.tmp" "$tap"
[ -n "$quiet" ] || cat "$tap"
log "results: $json, KTAP $tap, boots under $out"
if [ -z "$keep" ]; then
	rm -f "$out"/pmem*.img
fi
rm -f "$out"/boot-*/initrd.img
rm -rf "$out"/boot-*/job/bin
exit $verdict
