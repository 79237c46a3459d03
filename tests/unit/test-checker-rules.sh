#!/bin/sh
# A mutation check of syncorder's checker itself: for each rule of
# tests/unit/data/checker-rules.txt, the unit test built with that rule
# switched off (.output/tests/checker-rules/test_syncorder-RULE, make builds
# them) must fail every case the row names. A rule whose absence no case
# notices is untested, whatever the unit tests' pass count says. Also: the
# table lists exactly the rules of validate/syncorder_check.c's enum
# sc_rule, and the checker with every rule on passes every case. KTAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
O=${O:-$root/.output}
table=$here/data/checker-rules.txt
. "$root/lib/ktap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-checker-rules.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

rules() { awk '!/^#/ && NF { print $1 }' "$table"; }
cases_of() { awk -v r="$1" '!/^#/ && $1 == r { for (i = 2; i <= NF; i++) print $i }' "$table"; }
# The names of the failed cases of a unit test run's KTAP.
failed() { sed -n 's/^not ok [0-9]* \([A-Za-z0-9_]*\).*/\1/p' "$1"; }

t_table_matches_enum() {
	sed -n '/^enum sc_rule {/,/^};/s/^[[:space:]]*SC_R_\([A-Z0-9_]*\),.*/\1/p' \
		"$root/validate/syncorder_check.c" | grep -vx NONE | sort >"$tmp/enum"
	rules | sort >"$tmp/table"
	[ -s "$tmp/enum" ] && cmp -s "$tmp/enum" "$tmp/table" ||
		{ echo "enum and table differ: $(diff "$tmp/enum" "$tmp/table" | grep '^[<>]' | tr '\n' ' ')"; return 1; }
}
t_all_rules_on_pass() {
	"$O/tests/test_syncorder" >"$tmp/all.tap" 2>&1 ||
		{ echo "the checker as built fails: $(failed "$tmp/all.tap" | tr '\n' ' ')"; return 1; }
	for r in $(rules); do
		for c in $(cases_of "$r"); do
			grep -q "^ok [0-9]* $c\$" "$tmp/all.tap" || { echo "$r: no case $c"; return 1; }
		done
	done
}
# t_rule RULE: its variant fails, and fails every case the row names.
t_rule() {
	bin=$O/tests/checker-rules/test_syncorder-$1
	[ -x "$bin" ] || { echo "$bin not built (make)"; return 1; }
	"$bin" >"$tmp/$1.tap" 2>&1 && { echo "rule $1 off: every case passes"; return 1; }
	missed=
	for c in $(cases_of "$1"); do
		failed "$tmp/$1.tap" | grep -qx "$c" || missed="$missed $c"
	done
	[ -z "$missed" ] || { echo "rule $1 off: still pass:$missed (failed: $(failed "$tmp/$1.tap" | tr '\n' ' '))"; return 1; }
	echo "rule $1 off: fails $(failed "$tmp/$1.tap" | tr '\n' ' ')"
}

ktap_plan table_matches_enum all_rules_on_pass $(rules | sed 's/^/rule_/')
ktap_start
ktap_check table_matches_enum t_table_matches_enum
ktap_check all_rules_on_pass t_all_rules_on_pass
for r in $(rules); do
	ktap_begin "rule_$r"
	if out=$(t_rule "$r"); then ktap_pass "rule_$r" "$out"; else ktap_fail "rule_$r" "$out"; fi
done
ktap_finish
