#!/bin/sh
# Property test of the regression gate (.output/bin/gate, issue 30): a small
# real gate run (results/baselines/gate-6.1-..., boots 1-3, rounds 1-2, the
# first 48 faults of each row, its meta.txt saying so) is sound against a
# copy of itself (exit 0, every metric the same); then CASES (1200) copies,
# each spoiled by one corruption operator drawn at random (fixed SEED, awk's
# srand) on the base side, the new side or both. Every operator makes an invalid run or pair by
# construction. The gate, under timeout 10, must neither hang (124) nor
# crash (128 and up), and must refuse each: exit 19 (malformed) or 18 (not
# comparable), one line on stderr naming a file of a spoiled side, nothing
# on stdout. One KTAP result per operator; the counts as diagnostics.
# Usage: test-gate-fuzz.sh (GATE=binary, SEED=, CASES=)
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
gate=${GATE:-$root/.output/bin/gate}
SEED=${SEED:-30}
CASES=${CASES:-1200}
. "$root/lib/ktap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-gate-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

src=$root/results/baselines/gate-6.1-20261205T102904Z-eb12a9f
pages=48	# of 512: the cases stay fast; with 32, two phase p90s were unknown
mkdir "$tmp/clean" && awk -v p=$pages '$1 <= 3 && $4 <= 2 { s = $1 " " $2 " " $3 " " $4
	for (i = 5; i < 5 + p; i++) s = s " " $i; print s }' "$src/samples.txt" >"$tmp/clean/samples.txt" &&
	sed -e "s/^PAGES=.*/PAGES='$pages'/" -e "s/^ROUNDS=.*/ROUNDS='2'/" -e 's/^boots=.*/boots=3/' \
		"$src/meta.txt" >"$tmp/clean/meta.txt" && cp -R "$tmp/clean" "$tmp/clean2" || exit 1
S=$tmp/clean/samples.txt M=$tmp/clean/meta.txt
s_lines=$(wc -l <"$S") s_bytes=$(wc -c <"$S") m_lines=$(wc -l <"$M") m_bytes=$(wc -c <"$M")
plain=$(awk '$3 !~ /:/' "$S" | wc -l)
same_keys="accelerator host_cpu qemu measure PAGES ROUNDS SCENARIOS guest_cpus"

# ---- the operators: op_NAME writes a spoiled copy of the clean run into $d,
# from the random numbers $r1 and $r2 ($side: base, new or both) ----------
# sample_op AWK: one sample (random line and field) becomes AWK's value of x.
sample_op() {
	awk -v n=$((1 + r1 % s_lines)) -v f=$((5 + r2 % pages)) -v r="$r2" \
		'NR == n { x = $f; '"$1"'; $f = x } { print }' "$S" >"$d/samples.txt"
}
op_nan() { sample_op 'x = "nan"'; }
op_inf() { sample_op 'x = (r % 2 ? "inf" : "-inf")'; }
op_negative() { sample_op 'x = "-" x'; }
op_zero() { sample_op 'x = 0'; }
op_hex() { sample_op 'x = sprintf("0x%x", x)'; }
op_exponent() { sample_op 'x = x "e0"'; }
op_fraction() { sample_op 'x = x ".0"'; }
op_plus() { sample_op 'x = "+" x'; }
op_huge() { sample_op 'x = "1" x "0000000000"'; }
op_letter() { sample_op 'x = substr(x, 1, 2) "o" substr(x, 3)'; }
# line_op AWK: AWK on one random line ($0 may change; n: its number).
line_op() { awk -v n=$((1 + r1 % s_lines)) 'NR == n { '"$1"' } { print }' "$S" >"$d/samples.txt"; }
op_fields_missing() { line_op '$0 = $1 " " $2'; }
op_no_samples() { line_op '$0 = $1 " " $2 " " $3 " " $4'; }
op_long_row() { line_op '$0 = $0 " " $5'; }
op_round_beyond() { line_op '$4 = 3'; }
op_round_zero() { line_op '$4 = 0'; }
op_boot_beyond() { line_op '$1 = 4'; }
op_boot_word() { line_op '$1 = "one"'; }
op_long_scenario() { line_op '$3 = $3 sprintf("-%060d", 0)'; }
op_long_fs() { line_op '$2 = $2 "-0123456789abcdef"'; }
op_bad_phase_name() { line_op '$3 = $3 ":"'; }
op_crlf_line() { line_op '$0 = $0 "\r"'; }
op_blank_line() { line_op 'print ""'; }
op_dup_line() { line_op 'print'; }
op_drop_line() { awk -v n=$((1 + r1 % s_lines)) 'NR != n' "$S" >"$d/samples.txt"; }
# A user-space row one sample short (a phase row may hold fewer).
op_short_row() {
	awk -v n=$((1 + r1 % plain)) '$3 !~ /:/ && ++k == n { NF = NF - 1 } { print }' "$S" >"$d/samples.txt"
}
op_cut_at_line_end() { head -n $((r1 % s_lines)) "$S" >"$d/samples.txt"; }
op_cut_mid_number() { head -c $((s_bytes - 1 - r2 % 3)) "$S" >"$d/samples.txt"; }
op_crlf_all() { awk '{ printf "%s\r\n", $0 }' "$S" >"$d/samples.txt"; }
op_empty() { : >"$d/samples.txt"; }
op_blank_file() { printf '\n\n\n' >"$d/samples.txt"; }
# put_byte FILE SIZE OCTAL...: one of the bytes inserted at a random offset.
put_byte() {
	f=$1 size=$2; shift 2
	eval "b=\${$((1 + r2 % $#))}"
	o=$((r1 % size))
	{ head -c $o "$f"; printf "\\$b"; tail -c +$((o + 1)) "$f"; } >"$d/${f##*/}"
}
op_binary_byte() { put_byte "$S" "$s_bytes" 000 001 011 033 177 200 377; }
op_samples_dir() { rm "$d/samples.txt" && mkdir "$d/samples.txt"; }
# meta.txt
meta_line_op() { awk -v n=$((1 + r1 % m_lines)) 'NR == n { '"$1"' } { print }' "$M" >"$d/meta.txt"; }
op_meta_key_twice() { meta_line_op 'print'; }
op_meta_blank_line() { meta_line_op 'print ""'; }
op_meta_not_key_value() { meta_line_op 'print "what is this"'; }
op_meta_crlf() { awk '{ printf "%s\r\n", $0 }' "$M" >"$d/meta.txt"; }
op_meta_empty() { : >"$d/meta.txt"; }
op_meta_cut() { head -c $((m_bytes - 1)) "$M" >"$d/meta.txt"; }
op_meta_byte() { put_byte "$M" "$m_bytes" 000 001 011 033 177; }
op_meta_dir() { rm "$d/meta.txt" && mkdir "$d/meta.txt"; }
# A number the rows are checked by, malformed or out of range.
op_meta_number() {
	set -- "PAGES='x'" "PAGES=''" "ROUNDS='0'" "boots=-1" "PHASES='2'" "PAGES='1e3'" "boots=99999999999"
	eval "kv=\${$((1 + r1 % $#))}"
	awk -v kv="$kv" 'index($0, substr(kv, 1, index(kv, "="))) == 1 { $0 = kv } { print }' "$M" >"$d/meta.txt"
}
# Valid numbers the rows do not match.
op_meta_other_shape() {
	set -- "PAGES='64'" "ROUNDS='3'" "boots=4" "PHASES='0'" "PAGES='16'" "ROUNDS='1'" "PAGES='$((pages + 1))'"
	eval "kv=\${$((1 + r1 % $#))}"
	awk -v kv="$kv" 'index($0, substr(kv, 1, index(kv, "="))) == 1 { $0 = kv } { print }' "$M" >"$d/meta.txt"
}
# A scenario of meta.txt's SCENARIOS renamed in every row of one filesystem.
op_scenario_renamed() {
	set -- prealloc-none-sync empty-none-nosync empty-none-sync fallocated-none-sync
	eval "s=\${$((1 + r1 % 4))}"
	fs=ext4 && [ $((r2 % 2)) = 1 ] && fs=xfs
	awk -v s="$s" -v fs=$fs '$2 == fs && $3 == s { $3 = s "-renamed" } { print }' "$S" >"$d/samples.txt"
}
# Not comparable (18): a key that must match dropped, or changed, on one
# side (both: a different key on each); one filesystem left out (both: ext4
# from one, xfs from the other).
nth_key() { n=$1 && set -- $same_keys && eval "echo \${$((1 + n % $#))}"; }
op_key_dropped() {
	off=0 && [ "$side" = new ] && off=1
	k=$(nth_key $((r1 + off)))
	awk -v k="$k" 'index($0, k "=") != 1' "$M" >"$d/meta.txt"
}
op_key_changed() {
	set -- accelerator host_cpu qemu measure guest_cpus
	eval "k=\${$((1 + r1 % $#))}"
	awk -v k="$k" -v v="other-$side" 'index($0, k "=") == 1 { $0 = k "=" v } { print }' "$M" >"$d/meta.txt"
}
op_one_fs_only() {
	fs=xfs
	[ "$both" = 1 ] && [ "$side" = new ] && fs=ext4
	awk -v fs=$fs '$2 != fs' "$S" >"$d/samples.txt"
}

ops="nan inf negative zero hex exponent fraction plus huge letter fields_missing no_samples long_row
	round_beyond round_zero boot_beyond boot_word long_scenario long_fs bad_phase_name crlf_line blank_line
	dup_line drop_line short_row cut_at_line_end cut_mid_number crlf_all empty blank_file binary_byte
	samples_dir meta_key_twice meta_blank_line meta_not_key_value meta_crlf meta_empty meta_cut meta_byte
	meta_dir meta_number meta_other_shape scenario_renamed key_dropped key_changed one_fs_only"
# The exit code each operator must get: 19, 18 for these.
not_comparable=" key_dropped key_changed one_fs_only "

# ---- one case -----------------------------------------------------------------
# spoil SIDE: a fresh copy of the clean run at $c/SIDE, spoiled by $op.
spoil() {
	side=$1 d=$c/$1
	cp -R "$tmp/clean" "$d" && "op_$op"
}
# run_case LANE: the gate on case $i ($op on $where), in LANE's files; its
# exit code into LANE's tally, what was wrong (if anything) into its fails.
run_case() {
	c=$tmp/case$1 out=$tmp/out$1 err=$tmp/err$1
	rm -rf "$c" && mkdir "$c"
	base=$tmp/clean new=$tmp/clean2 both=0
	case $where in
	base) spoil base && base=$c/base ;;
	new) spoil new && new=$c/new ;;
	both) both=1 && spoil base && spoil new && base=$c/base new=$c/new ;;
	esac || { echo "$op case $i: could not make it" >>"$tmp/fails$1"; return; }
	timeout 10 "$gate" --base "$base" --new "$new" >"$out" 2>"$err"
	rc=$?
	echo "$op $rc" >>"$tmp/tally$1"
	want=19 why=
	case $not_comparable in *" $op "*) want=18 ;; esac
	if [ $rc = 124 ]; then why="hung (timeout)"
	elif [ $rc -ge 128 ]; then why="crashed (exit $rc)"
	else
		[ $rc = $want ] || why="exit $rc, want $want"
		l1= l2= && { read -r l1 && read -r l2; } <"$err"
		[ -z "$why" ] && [ -s "$out" ] && why="wrote output"
		[ -z "$why" ] && [ -n "$l2" ] && why="more than one line on stderr"
		case $where:$l1 in
		base:*"$c/base/"*|new:*"$c/new/"*|both:*"$c/"*) ;;
		*) [ -z "$why" ] && why="names no file of the spoiled side" ;;
		esac
	fi
	[ -z "$why" ] || echo "$op case $i ($where, r1 $r1, r2 $r2): $why: $(head -c 200 "$err")" >>"$tmp/fails$1"
}
# lane N: the cases whose number is N modulo 2 (two cores, two lanes).
lane() {
	: >"$tmp/tally$1" && : >"$tmp/fails$1"
	while read -r i op where r1 r2; do
		[ $((i % 2)) = "$1" ] && run_case "$1"
	done <"$tmp/plan"
}

t_control() {
	timeout 10 "$gate" --base "$tmp/clean" --new "$tmp/clean2" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 0 ] && [ ! -s "$tmp/err" ] &&
		[ "$(tail -n 1 "$tmp/out")" = "72 metrics: 0 worse, 0 better, 72 same, 0 unknown" ] ||
		{ echo "clean against its copy: exit $rc: $(head -c 300 "$tmp/err") $(tail -n 1 "$tmp/out")"; return 1; }
}
# The cases' plan: "CASE OPERATOR SIDE R1 R2", from SEED.
plan() {
	echo $ops | awk -v seed="$SEED" -v n="$CASES" '{ k = split($0, op, " ") } END {
		srand(seed); split("base new both", w, " ")
		for (i = 1; i <= n; i++) print i, op[1 + int(rand() * k)], w[1 + int(rand() * 3)],
			int(rand() * 1000000), int(rand() * 1000000) }'
}
# check_op OP: every case of OP refused as it must be, and at least one ran.
check_op() {
	n=$(grep -c "^$1 " "$tmp/tally")
	[ "$n" -gt 0 ] || { echo "no case drew $1 (raise CASES)"; return 1; }
	! grep "^$1 " "$tmp/fails" | head -n 3 | grep . || return 1
}

for op in $ops; do ktap_plan "corrupt_$op"; done
ktap_plan clean_copy_same none_hung none_crashed
ktap_start
ktap_check clean_copy_same t_control
plan >"$tmp/plan"
lane 0 & lane 1 & wait
cat "$tmp/tally0" "$tmp/tally1" >"$tmp/tally" && cat "$tmp/fails0" "$tmp/fails1" >"$tmp/fails"
ktap_diag "seed $SEED, $(wc -l <"$tmp/tally") cases; per operator, exit codes:"
awk '{ n[$1]++; c[$1 " " $2]++ } END { for (o in n) { s = o ": " n[o]; for (k in c) if (index(k, o " ") == 1)
	s = s ", " substr(k, length(o) + 2) " x" c[k]; print s } }' "$tmp/tally" | sort | while read -r line; do
	ktap_diag "$line"; done
for op in $ops; do ktap_check "corrupt_$op" check_op "$op"; done
ktap_check none_hung eval '! grep " 124$" "$tmp/tally"'
ktap_check none_crashed eval '! awk "\$2 >= 128" "$tmp/tally" | grep .'
ktap_finish
