#!/bin/sh
# Guest job of validate/ (issue 4): syncorder, the MAP_SYNC ordering checker.
# Runs inside the VM as /job/run with two NVDIMMs and prints one KTAP
# document. Both directions:
#   - the clean kernel: every scenario (ext4 and xfs; empty, prealloc,
#     fallocated; PTE and PMD faults; without and with a copying background
#     load), 3 faultlat runs each on fresh files, plus 3 runs of each
#     syncstress workload of validate/workloads.txt (threads faulting one
#     file while another allocates in it; blocks allocated by write() then
#     faulted; read fault then store; fdatasync between stores), no violation;
#   - the mutants (validate/mutants/mapsync_mutant.ko): each injected bug is
#     reported, with its own diagnosis, in every scenario it can break, as
#     many times as the module injected it.
# One syncorder run covers a whole batch of workloads (loading and detaching
# ~30 probes costs seconds under TCG); its per-process JSON figures are
# mapped back to the scenarios by pid.
# Needs /job/mapsync_mutant.ko (JOB_FILES) and syncorder, syncstress, faultlat
# in /job/bin. Takes about 45 s of guest time under TCG.
. /suite/vm/guest/lib.sh
. /suite/lib/ktap.sh
PATH=/job/bin:$PATH
MUTANT=/job/mapsync_mutant.ko
HITS=/sys/module/mapsync_mutant/parameters/hits
REPS=3
PTE_PAGES=64
PMD_PAGES=1024		# 4 MiB: two PMD faults per run
FSS=$(fs_list)
WORKLOADS=/suite/validate/workloads.txt

# The mutants, one row each: "mode|kind|text|scenarios" (the table's own
# comment says what they mean).
grep -v '^#' /suite/validate/mutants/mutants.txt | sed 's/ *| */|/g' >/tmp/mutants
# test_name PREFIX FS:SCENARIO[:harmless]: PREFIX_fs_scenario[_harmless], in _.
test_name() { echo "$1_$2" | tr :- __; }

# workloads FS: the syncstress workloads that run on FS, their names.
workloads() { awk -v fs="$1" '!/^#/ && NF >= 4 && ($2 == "all" || $2 == fs) { print $1 }' "$WORKLOADS"; }
workload_field() {	# NAME entries|args
	awk -v n="$1" -v f="$2" '!/^#/ && $1 == n {
		if (f == "entries") print $3
		else { for (i = 4; i <= NF; i++) printf "%s%s", $i, i < NF ? " " : "\n" }
	}' "$WORKLOADS"
}
# workload_cmd FS NAME: a faultlat scenario or a syncstress workload, on FS.
workload_cmd() {
	if scenario_known "$2"; then
		echo "faultlat -f /mnt/$1/b $(faultlat_args "$2")"
	else
		echo "syncstress -f /mnt/$1/s $(workload_field "$2" args)"
	fi
}
# entries_per_run NAME: the writable entries one run installs.
entries_per_run() {
	if ! scenario_known "$1"; then workload_field "$1" entries
	elif [ "$(scenario_field "$1" size)" = pmd ]; then echo 2
	else echo $PTE_PAGES; fi
}

ktap_plan setup_ext4_xfs_dax checker_attaches clean_matrix_checked
for fs in $FSS; do
	for scen in $(scenarios syncorder) $(workloads "$fs"); do ktap_plan "$(test_name clean "$fs:$scen")"; done
done
while IFS='|' read -r mode kind text list; do
	ktap_plan "mutant_${mode}_batch"
	for s in $list; do ktap_plan "$(test_name "mutant_$mode" "$s")"; done
done </tmp/mutants
ktap_plan clean_after_rmmod syncorder_pid_attach_mid_fault syncorder_sigterm_stops_command \
	ext4_fast_commit_refused syncorder_prog_stats ext4_without_xfs_module
ktap_start

# jqv FILE EXPR: one number from a JSON file, 0 when missing.
jqv() { jq -r "$2 // 0" "$1" 2>/dev/null || echo 0; }

# The failing lines and the first report of syncorder's KTAP, as diagnostics.
so_diag() {
	grep -E '^(not ok|# (violation|error) 1:|#   [^ ])' /tmp/so.tap | head -n 6 | sed 's/^# *//'
	[ -s /tmp/so.err ] && head -n 3 /tmp/so.err
}

faultlat_args() {	# SCENARIO (bench/scenarios.txt)
	if [ "$(scenario_field "$1" size)" = pmd ]; then a="-n $PMD_PAGES"; else a="-n $PTE_PAGES"; fi
	[ "$(scenario_field "$1" load)" = copy ] && a="$a --load-size 4M"
	echo "$a $(scenario_args "$1")"
}

# batch_add NAME COMMAND...: one workload run in the batch script. The run
# logs "pid NAME hits-before" then "end NAME hits-after exit-status".
batch_add() {
	name=$1; shift
	cat >>/tmp/batch.sh <<EOF
sh -c 'echo "\$\$ $name \$(cat $HITS 2>/dev/null || echo 0)" >>/tmp/map; exec $*' >>/tmp/fl.out 2>&1
st=\$?
echo "end $name \$(cat $HITS 2>/dev/null || echo 0) \$st" >>/tmp/map
EOF
}

# batch_run JSON: syncorder over the batch script; $rc, /tmp/so.tap, and
# /tmp/procs ("pid checked violations errors needdsync direct kind-count naive pfn-checked").
batch_run() {
	json=$1 kind=${2:-none}
	rm -f "$json" /tmp/map /tmp/fl.out
	syncorder --details 2 --json-out "$json" -c 'sh /tmp/batch.sh' </dev/null >/tmp/so.tap 2>/tmp/so.err
	rc=$?
	jq -r --arg k "$kind" '.processes[] | "\(.pid) \(.checked) \(.violations) \(.checker_errors) \(.needdsync) \(.direct_inserts) \(.by_kind[$k] // 0) \(.per_inode_check_would_flag) \(.pfn_checked)"' \
		"$json" >/tmp/procs 2>/dev/null
	: >/tmp/batch.sh
}

# first_violation NAME JSON: the diagnosis of the first violation in the
# scenario's first run (batch_run's JSON), or nothing.
first_violation() {
	_pid=$(awk -v n="$1" '$2 == n { print $1; exit }' /tmp/map)
	jq -r --argjson p "${_pid:-0}" '.processes[] | select(.pid == $p) | .first_violation // ""' "$2"
}

# scenario NAME: sums over the scenario's runs, as shell assignments:
# runs checked violations errors needdsync direct caught injected failed naive pfns
scenario() {
	awk -v n="$1" '
		FNR == NR { c[$1] = $2; v[$1] = $3; e[$1] = $4; nd[$1] = $5; d[$1] = $6; k[$1] = $7; nv[$1] = $8; pf[$1] = $9; next }
		$1 == "end" && $2 == n { inj += $3 - h; if ($4 != 0) failed++; next }
		$2 == n { runs++; p = $1; h = $3; ch += c[p]; vi += v[p]; er += e[p]; nds += nd[p]; di += d[p]; ca += k[p]; na += nv[p]; pfs += pf[p] }
		END { printf "runs=%d checked=%d violations=%d errors=%d needdsync=%d direct=%d caught=%d injected=%d failed=%d naive=%d pfns=%d\n",
			runs, ch, vi, er, nds, di, ca, inj, failed, na, pfs }' /tmp/procs /tmp/map
}

if pmem_expect 2 && fs_setup ext4 /dev/pmem0 && fs_setup xfs /dev/pmem1; then
	ktap_pass setup_ext4_xfs_dax
else
	ktap_fail setup_ext4_xfs_dax "pmem or dax mount failed"
fi

# The checker loads, attaches everything it needs, and checks nothing when
# nothing faults (nothing checked, and no other failure).
syncorder -c true >/tmp/so.tap 2>/tmp/so.err
rc=$?
if [ $rc = $EXIT_NOTHING_CHECKED ] && grep -q '^ok 1 probes_attached # ext4 and xfs' /tmp/so.tap; then
	ktap_diag "$(grep '^# probes:' /tmp/so.tap)"
	ktap_pass checker_attaches
else
	ktap_fail checker_attaches "exit $rc (want $EXIT_NOTHING_CHECKED): $(so_diag)"
fi

# ---- clean kernel --------------------------------------------------------------
# clean_verdict NAME WANT: the scenario's REPS runs all succeeded, WANT or
# more writable entries were checked, each one's pfn against the iomap's
# block too, none violated, no checker error.
clean_verdict() {
	name=$1 want=$2
	eval "$(scenario "$name")"
	if [ "$runs" != $REPS ] || [ "$failed" != 0 ]; then
		ktap_fail "$name" "$runs runs, $failed failed: $(tail -n 2 /tmp/fl.out)"
	elif [ "$violations" != 0 ] || [ "$errors" != 0 ]; then
		ktap_fail "$name" "$violations violations, $errors checker errors: $(so_diag)"
	elif [ "$checked" -lt "$want" ]; then
		ktap_fail "$name" "only $checked writable entries checked in $runs runs, want >= $want"
	elif [ "$pfns" != "$checked" ]; then
		ktap_fail "$name" "$pfns of $checked entries had their pfn checked against the iomap"
	else
		ktap_diag "$name: $runs runs, $checked entries checked ($needdsync NEEDDSYNC, $direct direct, $pfns pfns), 0 violations; a per-inode check would have flagged $naive"
		ktap_pass "$name"
	fi
}

: >/tmp/batch.sh
for fs in $FSS; do
	for scen in $(scenarios syncorder) $(workloads "$fs"); do
		# Known kernel bugs run on their own, last (see the end).
		known_bug "$(test_name clean "$fs:$scen")" >/dev/null && continue
		for r in $(seq $REPS); do
			batch_add "$(test_name clean "$fs:$scen")" "$(workload_cmd "$fs" "$scen")"
		done
	done
done
batch_run /tmp/clean.json
if [ $rc = 0 ] && ! grep -q '^end .* [1-9][0-9]*$' /tmp/map; then
	ktap_diag "$(grep -E '^ok 3 ' /tmp/so.tap | sed 's/^ok 3 //')"
	ktap_pass clean_matrix_checked
else
	ktap_fail clean_matrix_checked "syncorder exit $rc: $(so_diag) $(grep '^end .* [1-9][0-9]*$' /tmp/map | head -n 2)"
fi
for fs in $FSS; do
	for scen in $(scenarios syncorder) $(workloads "$fs"); do
		known_bug "$(test_name clean "$fs:$scen")" >/dev/null && continue
		clean_verdict "$(test_name clean "$fs:$scen")" $(( $(entries_per_run "$scen") * REPS ))
	done
done

# ---- mutants ----------------------------------------------------------------------
# mutant_batch MODE KIND TEXT SCENARIOS...: with the bug loaded, each
# scenario "fs:state:size" has a violation of KIND only, whose diagnosis
# contains TEXT; "fs:state:size:harmless" must have none.
mutant_batch() {
	mode=$1 kind=$2 text=$3; shift 3
	: >/tmp/batch.sh
	for s in "$@"; do
		fs=${s%%:*} scen=${s#*:}
		batch_add "$(test_name "mutant_$mode" "$s")" "$(workload_cmd "$fs" "${scen%:harmless}")"
	done
	if ! insmod "$MUTANT" mode="$mode" 2>/tmp/ins.err; then
		ktap_fail "mutant_${mode}_batch" "insmod mode=$mode: $(cat /tmp/ins.err) $(dmesg | grep mapsync_mutant | tail -n 2)"
		for s in "$@"; do ktap_fail "$(test_name "mutant_$mode" "$s")" "module not loaded"; done
		return
	fi
	armed=$(cat /sys/module/mapsync_mutant/parameters/armed)
	batch_run "/tmp/$mode.json" "$kind"
	rmmod mapsync_mutant
	errors=$(jqv "/tmp/$mode.json" .counts.checker_errors)
	lost=$(jqv "/tmp/$mode.json" .counts.events_lost)
	if [ $rc = $EXIT_CHECK_FAILED ] && [ "$errors" = 0 ] && [ "$lost" = 0 ]; then
		ktap_diag "mutant $mode armed on: $armed"
		ktap_pass "mutant_${mode}_batch"
	else
		ktap_fail "mutant_${mode}_batch" "syncorder exit $rc (want $EXIT_CHECK_FAILED), $errors checker errors, $lost events lost: $(so_diag)"
	fi
	for s in "$@"; do
		name=$(test_name "mutant_$mode" "$s")
		eval "$(scenario "$name")"
		diag=$(first_violation "$name" "/tmp/$mode.json")
		case $s in
		*:harmless)
			if [ "$runs" = 1 ] && [ "$violations" = 0 ] && [ "$errors" = 0 ] && [ "$checked" -gt 0 ]; then
				ktap_diag "$name: bug injected $injected times, $checked entries checked, 0 violations"
				ktap_pass "$name"
			else
				ktap_fail "$name" "$runs runs, $violations violations, $errors errors, $checked checked: $diag"
			fi
			;;
		*)
			# Every injection is a fault the bug breaks: each must be
			# reported, once (caught 1 of 64 would hide a blind spot).
			if [ "$runs" != 1 ] || [ "$injected" -lt 1 ] || [ "$caught" != "$injected" ]; then
				ktap_fail "$name" "bug injected $injected times, $caught $kind reported ($runs runs, $violations violations)"
			elif [ "$violations" != "$caught" ]; then
				ktap_fail "$name" "$violations violations but $caught of kind $kind: $diag"
			elif ! printf '%s' "$diag" | grep -q -- "$text"; then
				ktap_fail "$name" "diagnosis '$diag' lacks '$text'"
			else
				ktap_diag "$name: bug injected $injected times, caught $caught times ($checked entries checked)"
				ktap_diag "  first: $diag"
				ktap_pass "$name"
			fi
			;;
		esac
	done
}

while IFS='|' read -r mode kind text scenarios; do
	mutant_batch "$mode" "$kind" "$text" $scenarios
done </tmp/mutants

# The module is gone: clean again.
: >/tmp/batch.sh
batch_add clean_after_rmmod "faultlat -f /mnt/ext4/b $(faultlat_args empty-none-sync)"
batch_add clean_after_rmmod "faultlat -f /mnt/xfs/b $(faultlat_args empty-none-sync)"
batch_run /tmp/after.json
if [ $rc = 0 ]; then
	ktap_pass clean_after_rmmod
else
	ktap_fail clean_after_rmmod "syncorder exit $rc: $(so_diag)"
fi

# -p on a process that is already faulting: the faults in flight when the
# probes go in are skipped and counted, never judged (no false alarm).
# syncorder's load takes seconds under TCG: a run whose faultlat ended
# before the probes went in (exit 15, nothing checked) tested nothing and
# is run again, 6 tries for 3 runs that did.
pid_attach() {
	i=1 tries=0 late=0 skipped=0
	while [ $i -le 3 ]; do
		[ $tries -lt 6 ] || { echo "only $((i - 1)) of 3 runs attached before faultlat ended, in $tries tries"; return 1; }
		tries=$((tries + 1))
		faultlat -f /mnt/xfs/pid -n 1024 -r 30 -s empty --sync >/dev/null 2>&1 &
		fl=$!
		sleep 1
		syncorder -p $fl --json >/tmp/pid.json 2>/tmp/pid.err
		src=$?
		wait $fl
		frc=$?
		v=$(jqv /tmp/pid.json .counts.violations) e=$(jqv /tmp/pid.json .counts.checker_errors)
		c=$(jqv /tmp/pid.json .counts.checked)
		if [ $src = 15 ] && [ "$c" = 0 ] && [ $frc = 0 ]; then
			late=$((late + 1))
			continue
		fi
		skipped=$((skipped + $(jqv /tmp/pid.json .counts.skipped_in_flight_at_attach)))
		[ $src = 0 ] && [ $frc = 0 ] && [ "$v" = 0 ] && [ "$e" = 0 ] && [ "$c" -gt 0 ] ||
			{ echo "run $i: syncorder exit $src, faultlat $frc, $v violations, $e errors, $c checked: $(head -c 300 /tmp/pid.err)"; return 1; }
		i=$((i + 1))
	done
	echo "3 runs clean; $skipped faults in flight at attach skipped; $late runs attached after faultlat ended"
}
ktap_begin syncorder_pid_attach_mid_fault
if out=$(pid_attach); then
	ktap_diag "$out"
	ktap_pass syncorder_pid_attach_mid_fault
else
	ktap_fail syncorder_pid_attach_mid_fault "$out"
fi

# Stopped by SIGTERM while its command runs: the command's process group is
# stopped and reaped, and the exit status is 128 + 15.
ktap_begin syncorder_sigterm_stops_command
rm -f /tmp/cmd.pid
syncorder -c "echo \$\$ >/tmp/cmd.pid; while :; do faultlat -f /mnt/xfs/term -n 16 -s empty --sync >/dev/null 2>&1; done" \
	>/tmp/term.tap 2>/tmp/term.err &
so=$!
i=0; while [ ! -s /tmp/cmd.pid ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
sleep 1
kill -TERM $so; wait $so
rc=$?
sleep 0.5
left=$(cat /proc/[0-9]*/stat 2>/dev/null | awk -v g="$(cat /tmp/cmd.pid 2>/dev/null)" '$5 == g' | wc -l)
if [ $rc = 143 ] && [ -s /tmp/cmd.pid ] && [ "$left" = 0 ]; then
	ktap_pass syncorder_sigterm_stops_command
else
	ktap_fail syncorder_sigterm_stops_command "exit $rc (want 143), $left processes of the command left: $(head -c 200 /tmp/term.err)"
fi
rm -f /mnt/xfs/term

# ext4 with fast_commit: durability comes from fast commits, which the check
# does not model; it must say so and fail, not pass silently.
umount /mnt/ext4
if mkfs.ext4 -F -q -b 4096 -O fast_commit /dev/pmem0 && fs_mount ext4 /dev/pmem0 /mnt/ext4; then
	: >/tmp/batch.sh
	batch_add fast_commit "faultlat -f /mnt/ext4/b -s empty --sync -n 8"
	batch_run /tmp/fc.json
	unsup=$(jqv /tmp/fc.json .by_kind.error_unsupported)
	if [ $rc = $EXIT_CHECK_FAILED ] && [ "$unsup" -ge 1 ] && grep -q fast_commit /tmp/so.tap; then
		ktap_diag "$(grep -A1 '^# error 1:' /tmp/so.tap | tail -n 1 | sed 's/^# *//')"
		ktap_pass ext4_fast_commit_refused
	else
		ktap_fail ext4_fast_commit_refused "exit $rc, error_unsupported $unsup: $(so_diag)"
	fi
else
	ktap_fail ext4_fast_commit_refused "mkfs.ext4 -O fast_commit / mount failed"
fi

# --prog-stats (issue 33), on xfs (ext4 has fast_commit now): what each of
# the checker's programs costs, as the kernel counts it; the fault hook's
# entry and exit ran once per fault.
syncorder --prog-stats --json-out /tmp/ps.json -c "faultlat -f /mnt/xfs/ps -n 64 -s empty --sync >/dev/null" >/tmp/ps.tap 2>/tmp/ps.err
rc=$?
if [ $rc = 0 ] && jq -e 'def runs(p): [.prog_stats[] | select(.prog | test(p)) | .runs] | add // 0;
	runs("^(fentry|kprobe)_fault$") == 64 and runs("^(fexit|kretprobe)_fault$") == 64 and .counts.checked == 64 and
	all(.prog_stats[] | select(.runs > 0); .run_time_ns > 0)' /tmp/ps.json >/dev/null &&
	grep -q '^# program .*: 64 runs, [0-9]* ns per run' /tmp/ps.tap; then
	ktap_diag "$(jq -r '"\([.prog_stats[] | select(.runs > 0)] | length) programs ran for 64 synchronous xfs faults: \([.prog_stats[].runs] | add) runs"' /tmp/ps.json)"
	ktap_pass syncorder_prog_stats
else
	ktap_fail syncorder_prog_stats "exit $rc: $(head -c 200 /tmp/ps.err) $(jq -c '[.prog_stats[]? | select(.runs > 0) | [.prog, .runs]]' /tmp/ps.json 2>&1 | head -c 300)"
fi

# ---- known kernel bugs (validate/known-bugs.txt) ---------------------------------
# known_verdict NAME WANT: the scenario's runs fail exactly as its known bug
# says (XFAIL, naming the kernel, the evidence and the rule), or pass
# (XPASS: the bug did not show), or fail some other way (not ok).
known_verdict() {
	name=$1 want=$2 id=$(known_bug "$1" id) kind=$(known_bug "$1" evidence) rule=$(known_bug "$1" rule)
	eval "$(scenario "$name")"
	diag=$(first_violation "$name" /tmp/known.json)
	if [ "$runs" != $REPS ] || [ "$failed" != 0 ]; then
		ktap_fail "$name" "$runs runs, $failed failed: $(tail -n 2 /tmp/fl.out)"
	elif [ "$errors" != 0 ] || [ "$checked" -lt "$want" ]; then
		ktap_fail "$name" "$errors checker errors, $checked entries checked (want >= $want): $(so_diag)"
	elif [ "$violations" = 0 ]; then
		ktap_xpass "$name" "known kernel bug $id did not show on $(uname -r): $checked entries checked, 0 violations"
	elif [ "$caught" = "$violations" ]; then
		ktap_diag "$name: $runs runs, $checked entries checked ($needdsync NEEDDSYNC, $direct direct), $caught $kind; first: $diag"
		ktap_xfail "$name" "known kernel bug $id on $(uname -r): $caught of $checked entries $kind (rule $rule)"
	else
		ktap_fail "$name" "$violations violations, only $caught of them $kind (known bug $id): $diag"
	fi
}

# Last, each in a batch of its own: on 6.1 a copy-on-write fault leaves its
# new block marked shared (validate/README.md, "Findings"), and a later
# ordinary fault on that block WARNs in dax_associate_entry.
for fs in $FSS; do
	for scen in $(scenarios syncorder) $(workloads "$fs"); do
		name=$(test_name clean "$fs:$scen")
		known_bug "$name" >/dev/null || continue
		: >/tmp/batch.sh
		for r in $(seq $REPS); do batch_add "$name" "$(workload_cmd "$fs" "$scen")"; done
		batch_run /tmp/known.json "$(known_bug "$name" evidence)"
		known_verdict "$name" $(( $(entries_per_run "$scen") * REPS ))
	done
done

# Last: without xfs.ko loaded (no xfs BTF) syncorder still loads and checks
# ext4: its xfs code is dropped by the verifier, not relocated (it failed to
# load, EINVAL on an xfs_inode relocation, until the guard in
# xfs_log_state).
no_xfs_check() {
	umount /mnt/xfs 2>/dev/null
	rmmod xfs 2>/dev/null
	! grep -q '^xfs ' /proc/modules || { echo "xfs.ko still loaded"; return 1; }
	umount /mnt/ext4 && fs_setup ext4 /dev/pmem0 || { echo "fresh ext4 failed"; return 1; }
	syncorder --json-out /tmp/nx.json -c "faultlat -f /mnt/ext4/nx -n 16 -s empty --sync >/dev/null" \
		>/tmp/nx.tap 2>/tmp/nx.err
	_rc=$?
	[ $_rc = 0 ] && [ "$(jqv /tmp/nx.json .counts.checked)" = 16 ] ||
		{ echo "exit $_rc, checked $(jqv /tmp/nx.json .counts.checked): $(grep -v '^libbpf' /tmp/nx.err | head -c 300)"; return 1; }
}
if out=$(no_xfs_check); then ktap_pass ext4_without_xfs_module; else ktap_fail ext4_without_xfs_module "$out"; fi

ktap_finish
