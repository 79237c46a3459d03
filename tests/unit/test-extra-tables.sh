#!/bin/sh
# Host tests of make reproduce's extra tables (results/extra-tables.sh) on a
# synthetic run: the persist ratios, the tail's metadata share and commits
# per synchronous fault, the real clients' decisions and shares (issue 32),
# the conformance cells' marks, and the JSON.
# A run cut short or written wrong is refused with the file named.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/lib/ktap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-extra.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
run=$tmp/run
mkdir -p "$run/ext4/persist" "$run/ext4/tail"
cat >"$run/ext4/persist/written-seq.json" <<'J'
{"state":"written","pattern":"seq","flush":"clwb","rows":[{"method":"mapsync","size":64,"median":100,"p999":2000,"ratio_vs_mapsync":1},{"method":"pwrite","size":64,"median":5800,"p999":90000,"ratio_vs_mapsync":58}]}
J
echo '{"writers":4,"same_file":false,"map_sync":true,"faults":2048,"median":1300000,"p99":4500000,"p999":8700000,"max":10500000}' >"$run/ext4/tail/tail-sync-w4-files.json"
echo '{"counters":{"jbd2_commits":1024,"needdsync":2048},"phases":[{"name":"metadata_sync","sum":300},{"name":"fs_handler","sum":400}]}' >"$run/ext4/tail/tail-sync-w4-files.kernel.json"
{ printf 'ext4 fsync'; seq 1 100 | sed 's/$/000/' | tr '\n' ' ' | sed 's/^/ /'; echo
  printf 'ext4 handler'; seq 1 100 | sed 's/$/0000/' | tr '\n' ' ' | sed 's/^/ /'; echo; } >"$run/ext4/tail/tail-sync-w4-files.phases.txt"
cat >"$run/conformance.txt" <<'C'
shared ext4-dax dax pass differs seen="mmap=ok sf=1 statx=1 stores=8 sync=all" want="x" man="y"
shared ext4-nodax nondax pass differs seen="mmap=EOPNOTSUPP sf=- statx=0 sync=-" want="x" man="y"
validate xfs-dax dax fail agrees seen="error=mkfs_failed sync=-" want="x" man="-"
C

# Real clients (issue 32): a PMDK run with MAP_SYNC and one without, fio's
# libpmem and mmap fdatasync runs, each with daxlat's JSON and its seconds.
c=$run/ext4/clients
mkdir -p "$c"
printf 'pmdk: map_sync=1 vm_sync=1 msync=10 tx_msync=0\ntx: count=1000 threads=4 median_ns=14200 p99_ns=81300\n' >"$c/pmdk-sync.out"
echo '{"counters":{"needdsync":514},"faults":[{"sync":true,"write":true,"count":528}],"phases":[{"name":"metadata_sync","sum":200000},{"name":"fs_handler","sum":360000}]}' >"$c/pmdk-sync.kernel.json"
echo 4.00 >"$c/pmdk-sync.wall"
printf 'pmdk: map_sync=0 vm_sync=0 msync=7010 tx_msync=7000\ntx: count=1000 threads=4 median_ns=1293800 p99_ns=14146300\n' >"$c/pmdk-nosync.out"
echo '{"counters":{"needdsync":0},"faults":[{"sync":false,"write":true,"count":600}],"phases":[]}' >"$c/pmdk-nosync.kernel.json"
echo 4.79 >"$c/pmdk-nosync.wall"
echo '{"jobs":[{"error":0,"write":{"total_ios":511,"clat_ns":{"percentile":{"50.000000":42800,"99.000000":284700}}}}]}' >"$c/fio-libpmem.out"
echo '{"counters":{"needdsync":1},"faults":[{"sync":true,"write":true,"count":512}],"phases":[{"name":"fs_handler","sum":7300}]}' >"$c/fio-libpmem.kernel.json"
echo 3.96 >"$c/fio-libpmem.wall"
echo '{"jobs":[{"error":0,"write":{"total_ios":511,"clat_ns":{"percentile":{"50.000000":102900,"99.000000":602100}}},"sync":{"lat_ns":{"N":510}}}]}' >"$c/fio-mmap-fdatasync.out"
echo '{"counters":{"needdsync":0},"faults":[{"sync":false,"write":true,"count":511}],"phases":[]}' >"$c/fio-mmap-fdatasync.kernel.json"
echo 4.03 >"$c/fio-mmap-fdatasync.wall"
text() { sh "$root/results/extra-tables.sh" "$run" >"$tmp/out" 2>"$tmp/err" || { echo "exit $?: $(cat "$tmp/err")"; return 1; }; }
persist_ratio() {
	text && grep -Eq '^written +seq +64 +0\.1 / 2\.0 +5\.8 / 90\.0 \(x58\.0\)' "$tmp/out" ||
		{ echo "no persist row: $(grep written "$tmp/out")"; return 1; }
}
tail_commits() {
	text && grep -Eq '^4 +own-files +MAP_SYNC +2048 +1300\.0 +4500\.0 +8700\.0 +10500\.0 +75\.0 +10% +0\.50$' "$tmp/out" ||
		{ echo "no tail row: $(grep own-files "$tmp/out")"; return 1; }
}
conformance_marks() {
	text && grep -Eq '^shared +ok,sf,sync\* +EOPNOTSUPP\* ' "$tmp/out" && grep -Eq '^validate +error! *$' "$tmp/out" &&
		grep -q '^2 of 3 cells as the kernel source says; 2 differ from mmap(2)$' "$tmp/out" ||
		{ echo "conformance: $(sed -n '/^case/,$p' "$tmp/out")"; return 1; }
}
json_figures() {
	sh "$root/results/extra-tables.sh" --json "$run" >"$tmp/j" || return 1
	jq -e '(.persist | length) == 2 and .persist[1].ratio_vs_mapsync == 58 and .tail[0].commits == 1024 and
		.tail[0].needdsync == 2048 and .tail[0].metadata_sync_pct == 75 and .tail[0].metadata_sync_p99_ns == 99000 and
		.tail[0].handler_p99_ns == 990000 and (.conformance | length) == 3 and
		.conformance[2].verdict == "fail"' "$tmp/j" >/dev/null || { echo "JSON: $(head -c 400 "$tmp/j")"; return 1; }
}
no_run_refused() {
	sh "$root/results/extra-tables.sh" "$tmp/none" >/dev/null 2>"$tmp/e"
	[ $? = 2 ] && [ "$(wc -l <"$tmp/e")" = 1 ]
}


# A run cut short or written wrong (issue 30): refused before a line is
# printed, one line naming the file, exit 2 for a missing file, 19 for a
# malformed one (lib/exitcodes.h), text and --json alike.
# broken NAME CHANGE...: a copy of the run as $tmp/NAME, CHANGE run in it.
broken() {
	b=$tmp/$1; shift
	rm -rf "$b" && cp -R "$run" "$b" && (cd "$b" && eval "$*")
}
# refused RC PATTERN RUN: both modes exit RC, one stderr line matching
# PATTERN, nothing on stdout.
refused() {
	for m in "" --json; do
		sh "$root/results/extra-tables.sh" $m "$3" >"$tmp/r.out" 2>"$tmp/r.err"; rc=$?
		[ "$rc" = "$1" ] && [ "$(wc -l <"$tmp/r.err")" = 1 ] && grep -q -- "$2" "$tmp/r.err" && [ ! -s "$tmp/r.out" ] ||
			{ echo "${m:-text}: exit $rc (want $1), stderr: $(head -c 300 "$tmp/r.err") stdout: $(wc -c <"$tmp/r.out") bytes"; return 1; }
	done
}
empty_run() {
	mkdir -p "$tmp/empty" && refused 2 "^extra-tables: $tmp/empty: no ext4/ or xfs/ folder" "$tmp/empty"
}
cut_persist_json() {
	f=ext4/persist/written-seq.json
	broken cutp "head -c 60 $f >x && mv x $f" && refused 19 "^extra-tables: $tmp/cutp/$f: not valid JSON" "$tmp/cutp" &&
	broken emptyp ": >$f" && refused 19 "^extra-tables: $tmp/emptyp/$f: empty" "$tmp/emptyp" &&
	broken shapep "echo '{}' >$f" && refused 19 "^extra-tables: $tmp/shapep/$f: not persistlat" "$tmp/shapep" &&
	broken nopersist "rm -r ext4/persist" && refused 2 "^extra-tables: $tmp/nopersist/ext4/persist/: no persistlat JSON" "$tmp/nopersist"
}
half_written_tail() {
	t=ext4/tail/tail-sync-w4-files
	broken nokj "rm $t.kernel.json" && refused 2 "^extra-tables: $tmp/nokj/$t.kernel.json: missing" "$tmp/nokj" &&
	broken nouj "rm $t.json" && refused 2 "^extra-tables: $tmp/nouj/$t.json: missing" "$tmp/nouj" &&
	broken cutkj "head -c 50 $t.kernel.json >x && mv x $t.kernel.json" &&
		refused 19 "^extra-tables: $tmp/cutkj/$t.kernel.json: not valid JSON" "$tmp/cutkj" &&
	broken nocounter "echo '{\"counters\":{\"needdsync\":2},\"phases\":[]}' >$t.kernel.json" &&
		refused 19 "^extra-tables: $tmp/nocounter/$t.kernel.json: not daxlat" "$tmp/nocounter" &&
	broken nanph "sed -i '2s/ 70000 / nan /' $t.phases.txt" &&
		refused 19 "^extra-tables: $tmp/nanph/$t.phases.txt:2: 'nan' is not" "$tmp/nanph"
}
bad_conformance() {
	broken badc "echo 'half a row' >>conformance.txt" && refused 19 "^extra-tables: $tmp/badc/conformance.txt:4: not a conformance row" "$tmp/badc" &&
	broken noc "rm conformance.txt" && refused 2 "^extra-tables: $tmp/noc/conformance.txt: missing" "$tmp/noc"
}

# What each client decided comes from its own output (PMDK) or the kernel's
# counts (fio); the share is the synchronous faults' handler time over wall.
clients_rows() {
	text || return 1
	for re in '^pmdk-sync +MAP_SYNC,flush +1000 +14\.2 +81\.3 +528 +514 +360\.0 +4\.00 +9%$' \
		'^pmdk-nosync +msync\(7/tx\) +1000 +1293\.8 +14146\.3 +0 +0 +0\.0 +4\.79 +0%$' \
		'^fio-libpmem +MAP_SYNC\(VM_SYNC\) +511 +42\.8 +284\.7 +512 +1 +7\.3 +3\.96 +0%$' \
		'^fio-mmap-fdatasync +MAP_SHARED,fdatasync +511 +102\.9 +602\.1 +0 +0 +0\.0 +4\.03 +0%$'; do
		grep -Eq "$re" "$tmp/out" || { echo "no row /$re/: $(sed -n '/^Real clients/,/^$/p' "$tmp/out")"; return 1; }
	done
	sh "$root/results/extra-tables.sh" --json "$run" | jq -e '(.clients | length) == 4 and
		(.clients[] | select(.client == "pmdk-sync") | .decided == "MAP_SYNC,flush" and .sync_fault_us == 360000 and .wall_s == 4)' >/dev/null ||
		{ echo "JSON clients: $(sh "$root/results/extra-tables.sh" --json "$run" | jq -c .clients | head -c 300)"; return 1; }
}
# A run from before the clients has no table, and is not refused.
no_clients_no_table() {
	broken nocl "rm -r ext4/clients" && sh "$root/results/extra-tables.sh" "$tmp/nocl" >"$tmp/o" 2>"$tmp/e" &&
		! grep -q '^Real clients' "$tmp/o" || { echo "$(cat "$tmp/e") $(grep -c 'Real clients' "$tmp/o")"; return 1; }
}
half_written_clients() {
	c=ext4/clients
	broken nowall "rm $c/pmdk-sync.wall" && refused 2 "^extra-tables: $tmp/nowall/$c/pmdk-sync.out or .wall: missing" "$tmp/nowall" &&
	broken badwall "echo soon >$c/fio-libpmem.wall" && refused 19 "^extra-tables: $tmp/badwall/$c/fio-libpmem.wall:1: not a number" "$tmp/badwall" &&
	broken notx "sed -i '/^tx:/d' $c/pmdk-sync.out" && refused 19 "^extra-tables: $tmp/notx/$c/pmdk-sync.out:.*no pmdk: and tx: lines" "$tmp/notx" &&
	broken cutfio "head -c 40 $c/fio-libpmem.out >x && mv x $c/fio-libpmem.out" &&
		refused 19 "^extra-tables: $tmp/cutfio/$c/fio-libpmem.out: not valid JSON" "$tmp/cutfio"
}
ktap_plan_checks "$0"
ktap_start
ktap_check persist_ratio persist_ratio
ktap_check tail_commits tail_commits
ktap_check conformance_marks conformance_marks
ktap_check json_figures json_figures
ktap_check no_run_refused no_run_refused
ktap_check empty_run_refused empty_run
ktap_check cut_or_malformed_persist_refused cut_persist_json
ktap_check half_written_tail_refused half_written_tail
ktap_check bad_or_missing_conformance_refused bad_conformance
ktap_check clients_rows clients_rows
ktap_check no_clients_no_table no_clients_no_table
ktap_check half_written_clients_refused half_written_clients
ktap_finish
