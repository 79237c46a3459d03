#!/bin/sh
# Host tests of results/plot.sh on synthetic gate runs: a sound run plots
# one PNG per filesystem after the gate's --check passed it; the gate's
# refusal of a run (BASE or NEW) stops the plots with its line and code; a
# sample that is not a positive whole number of ns (nan and inf hung the
# histogram loop), an empty or cut samples.txt are refused through the
# gate's check and a cut phases JSON by plot.sh (exit 19, the file and line
# named), under a timeout; a missing gate binary is one line; nothing half-written is left
# behind (a gnuplot that fails midway leaves no PNG); a scenario one
# filesystem cannot give is plotted on the other only. KTAP output.
# PLOT=: another plot.sh. The call contract is tested with fake gates; the
# bad runs go through the real one (GATE, default .output/bin/gate): the
# gate's --check is the one reader of a run, plot.sh adds only the names
# gnuplot must quote (tests/unit/test-gate*.sh test the check itself).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PLOT=${PLOT:-$root/results/plot.sh}
gate=${GATE:-$root/.output/bin/gate}
. "$root/lib/ktap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-plot.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# mkrun DIR: 3 boots, 2 rounds, ext4 and xfs, two scenarios and a phase row,
# 50 faults each spread over five log2 buckets.
mkrun() {
	mkdir -p "$1"
	awk 'BEGIN { for (b = 1; b <= 3; b++) for (r = 1; r <= 2; r++)
		for (f = 1; f <= 2; f++) for (s = 1; s <= 3; s++) {
			line = b " " (f == 1 ? "ext4" : "xfs") " " (s == 1 ? "empty-none-sync" : s == 2 ? "empty-none-nosync" : "empty-none-sync:fsync") " " r
			for (i = 0; i < 50; i++) line = line " " int((700 + (i * 37) % 500 + b) * s * 2 ^ (i % 5))
			print line } }' >"$1/samples.txt"
	printf 'measure=icount\nPAGES=50\n' >"$1/meta.txt"
}
# Fake gates: one that passes every run and logs its arguments, one that
# refuses RUNs whose path holds "bad" as the real one would (a line, 19).
cat >"$tmp/gate-ok" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/gate.log"
EOF
cat >"$tmp/gate-refuses" <<'EOF'
#!/bin/sh
case $2 in *bad*) echo "gate: $2/samples.txt:2: 'x' is not a sample" >&2; exit 19 ;; esac
EOF
# A gnuplot that writes half its PNG and fails (a full disk, a kill).
mkdir "$tmp/bin"
cat >"$tmp/bin/gnuplot" <<'EOF'
#!/bin/sh
o=$(sed -n "s/^set output '\(.*\)'$/\1/p" | head -n 1)
printf '\211PNG half' >"$o"
exit 1
EOF
chmod +x "$tmp/gate-ok" "$tmp/gate-refuses" "$tmp/bin/gnuplot"
mkrun "$tmp/run"
mkrun "$tmp/new"
mkrun "$tmp/badnew"

# plot GATE ARGS...: plot.sh under a timeout; exit into rc, stdout and
# stderr into $tmp/out and $tmp/err.
plot() {
	g=$1; shift
	GATE=$g timeout 30 sh "$PLOT" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
}
need_gnuplot() { command -v gnuplot >/dev/null || { echo "no gnuplot (make deps)"; return 1; }; }
# refused RC PATTERN: exit RC, one stderr line matching PATTERN, no stdout.
refused() {
	[ "$rc" = "$1" ] && [ "$(wc -l <"$tmp/err")" = 1 ] && grep -q -- "$2" "$tmp/err" && [ ! -s "$tmp/out" ] ||
		{ echo "exit $rc (want $1; 124: timed out), stderr: $(head -c 300 "$tmp/err") stdout: $(head -c 100 "$tmp/out")"; return 1; }
}
# nothing_in DIR: no PNG and no scratch file of plot.sh in DIR.
nothing_in() {
	[ -z "$(ls -A "$1" 2>/dev/null | grep -v -x -e samples.txt -e meta.txt)" ] ||
		{ echo "left in ${1##*/}: $(ls -A "$1" | tr '\n' ' ')"; return 1; }
}

sound_run() {
	need_gnuplot || return 1
	: >"$tmp/gate.log"
	plot "$tmp/gate-ok" run "$tmp/run" "$tmp/out1"
	[ "$rc" = 0 ] && [ ! -s "$tmp/err" ] || { echo "exit $rc: $(head -c 300 "$tmp/err")"; return 1; }
	[ "$(cat "$tmp/out")" = "$tmp/out1/latency-ext4.png
$tmp/out1/latency-xfs.png" ] || { echo "printed: $(cat "$tmp/out")"; return 1; }
	[ "$(ls -A "$tmp/out1" | tr '\n' ' ')" = "latency-ext4.png latency-xfs.png " ] || { echo "out: $(ls -A "$tmp/out1")"; return 1; }
	[ "$(cat "$tmp/gate.log")" = "--check $tmp/run" ] || { echo "gate called: $(cat "$tmp/gate.log")"; return 1; }
}
# A scenario on one filesystem only (reflinked-none-sync: xfs can reflink,
# ext4 cannot; meta.txt's SCENARIOS_ABSENT): plotted where it ran.
one_fs_scenario() {
	need_gnuplot || return 1
	for r in cow cownew; do
		rm -rf "$tmp/$r" && mkrun "$tmp/$r" &&
			awk '$2 == "xfs" && $3 == "empty-none-sync" { $3 = "reflinked-none-sync"; print }' "$tmp/$r/samples.txt" >>"$tmp/$r/samples.txt"
	done
	plot "$tmp/gate-ok" run "$tmp/cow" "$tmp/out-cow"
	[ "$rc" = 0 ] && [ "$(ls -A "$tmp/out-cow" | tr "\n" " ")" = "latency-ext4.png latency-xfs.png " ] ||
		{ echo "run: exit $rc: $(head -c 300 "$tmp/err")"; return 1; }
	plot "$tmp/gate-ok" gate "$tmp/cow" "$tmp/cownew" "$tmp/out-cowgate"
	[ "$rc" = 0 ] && [ "$(ls -A "$tmp/out-cowgate" | tr "\n" " ")" = "gate-ext4.png gate-xfs.png " ] ||
		{ echo "gate: exit $rc: $(head -c 300 "$tmp/err")"; return 1; }
}
gate_refusal() {
	plot "$tmp/gate-refuses" run "$tmp/badnew" "$tmp/out2" && refused 19 "^gate: $tmp/badnew/samples.txt:2: " &&
		[ ! -e "$tmp/out2" ] || return 1
	plot "$tmp/gate-refuses" gate "$tmp/run" "$tmp/badnew" "$tmp/out3" && refused 19 "^gate: $tmp/badnew/samples.txt:2: " &&
		[ ! -e "$tmp/out3" ]
}
no_gate() {
	plot "$tmp/none/gate" run "$tmp/run" "$tmp/out4" && refused 1 "$tmp/none/gate" && [ ! -e "$tmp/out4" ]
}
# bad_sample NAME LINE: LINE replaces samples.txt's 2nd line; refused (19)
# naming the file and line 2, well within the timeout.
bad_sample() {
	rm -rf "$tmp/$1" && mkrun "$tmp/$1" && { sed -n 1p "$tmp/$1/samples.txt"; printf '%s\n' "$2"
		sed -n '3,$p' "$tmp/$1/samples.txt"; } >"$tmp/s" && mv "$tmp/s" "$tmp/$1/samples.txt" || return 1
	plot "$gate" run "$tmp/$1" "$tmp/$1" && refused 19 "^\(gate\|plot\): $tmp/$1/samples.txt:2: " && nothing_in "$tmp/$1" ||
		{ echo "(line '$2')"; return 1; }
}
bad_samples() {
	need_gnuplot || return 1
	bad_sample nan '1 ext4 empty-none-sync 1 1200 nan 1300' &&
	bad_sample inf '1 ext4 empty-none-sync 1 1200 inf 1300' &&
	bad_sample neg '1 ext4 empty-none-sync 1 1200 -5 1300' &&
	bad_sample zero '1 ext4 empty-none-sync 1 1200 0 1300' &&
	bad_sample hex '1 ext4 empty-none-sync 1 1200 0x10 1300' &&
	bad_sample big '1 ext4 empty-none-sync 1 1200 1e308 1300' &&
	bad_sample word '1 ext4 empty-none-sync 1 1200 abc 1300' &&
	bad_sample short '1 ext4 empty-none-sync' &&
	bad_sample quote "1 ext4 it's 1 1200" &&
	bad_sample crlf "$(printf '1 ext4 empty-none-sync 1 1200\r')" && grep -q 'carriage return' "$tmp/err"
}
empty_samples() {
	need_gnuplot || return 1
	mkdir -p "$tmp/empty" && : >"$tmp/empty/samples.txt" && cp "$tmp/run/meta.txt" "$tmp/empty/" &&
		plot "$gate" run "$tmp/empty" "$tmp/empty" && refused 19 "^gate: $tmp/empty/samples.txt" &&
		nothing_in "$tmp/empty" || return 1
	mkdir -p "$tmp/blank" && printf '\n\n' >"$tmp/blank/samples.txt" && cp "$tmp/run/meta.txt" "$tmp/blank/" &&
		plot "$gate" run "$tmp/blank" "$tmp/blank" && refused 19 "^gate: $tmp/blank/samples.txt:1: " &&
		nothing_in "$tmp/blank" || return 1
	mkdir -p "$tmp/nothing" && cp "$tmp/run/meta.txt" "$tmp/nothing/" && plot "$gate" run "$tmp/nothing" "$tmp/nothing" &&
		refused 1 "^gate: .*$tmp/nothing/samples.txt" && nothing_in "$tmp/nothing"
}
# A samples.txt cut mid-line (a run killed while writing): the last line
# has no newline.
cut_samples() {
	need_gnuplot || return 1
	rm -rf "$tmp/cut" && mkrun "$tmp/cut" && n=$(wc -l <"$tmp/cut/samples.txt") &&
		head -c -3 "$tmp/cut/samples.txt" >"$tmp/s" && mv "$tmp/s" "$tmp/cut/samples.txt" &&
		plot "$gate" run "$tmp/cut" "$tmp/cut" && refused 19 "^gate: $tmp/cut/samples.txt:$n: .*newline" &&
		nothing_in "$tmp/cut"
}
cut_phases() {
	need_gnuplot || return 1
	mkdir -p "$tmp/ph" && f=$root/tests/unit/data/native-reproduce/xfs/traced/empty-none-sync.kernel.json &&
		head -c 300 "$f" >"$tmp/ph/a.kernel.json" &&
		plot "$tmp/gate-ok" phases "$tmp/ph/a.kernel.json" "$tmp/ph" && refused 19 "^plot: $tmp/ph/a.kernel.json: not valid JSON" &&
		[ "$(ls -A "$tmp/ph")" = a.kernel.json ]
}
half_png() {
	PATH=$tmp/bin:$PATH GATE=$tmp/gate-ok timeout 30 sh "$PLOT" run "$tmp/run" "$tmp/out5" >"$tmp/out" 2>"$tmp/err"; rc=$?
	[ "$rc" != 0 ] && [ -z "$(ls -A "$tmp/out5" 2>/dev/null)" ] ||
		{ echo "exit $rc, left: $(ls -A "$tmp/out5" 2>/dev/null | tr '\n' ' ')"; return 1; }
}

# A heatmap per filesystem of a recorded daxlat --breakdown-out file; a line
# with a field missing (an older daxlat, a cut file) is refused, nothing left.
heatmap_drawn() {
	need_gnuplot || return 1
	f=$root/tests/unit/data/breakdown/bd.txt
	plot "$tmp/gate-ok" heatmap "$f" "$tmp/hm"
	[ "$rc" = 0 ] && [ "$(cat "$tmp/out")" = "$tmp/hm/heatmap-bd-ext4.png
$tmp/hm/heatmap-bd-xfs.png" ] && [ -s "$tmp/hm/heatmap-bd-ext4.png" ] ||
		{ echo "exit $rc: $(head -c 300 "$tmp/err") printed: $(cat "$tmp/out")"; return 1; }
}
heatmap_cut_line_refused() {
	need_gnuplot || return 1
	mkdir -p "$tmp/hmcut" && sed '3s/ [^ ]*$//' "$root/tests/unit/data/breakdown/bd.txt" >"$tmp/hmcut/bd.txt" &&
		plot "$tmp/gate-ok" heatmap "$tmp/hmcut/bd.txt" "$tmp/hmcut" &&
		refused 19 "^plot: $tmp/hmcut/bd.txt: 3: 41 fields, want 42" && [ "$(ls -A "$tmp/hmcut")" = bd.txt ]
}

ktap_plan_checks "$0"
ktap_start
ktap_check sound_run_plotted_after_gate_check sound_run
ktap_check scenario_on_one_filesystem_plotted one_fs_scenario
ktap_check gate_check_refusal_stops_plots gate_refusal
ktap_check missing_gate_binary_one_line no_gate
ktap_check bad_samples_refused_not_hung bad_samples
ktap_check empty_or_missing_samples_refused empty_samples
ktap_check cut_samples_refused cut_samples
ktap_check cut_phases_json_refused cut_phases
ktap_check failed_gnuplot_leaves_no_png half_png
ktap_check heatmap_per_filesystem heatmap_drawn
ktap_check heatmap_cut_line_refused heatmap_cut_line_refused
ktap_finish
