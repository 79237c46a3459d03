#!/bin/sh
# The exit code table is one table: lib/exitcodes.h, read by shell scripts
# through lib/exitcodes.sh and listed in lib/README.md (rendered by make figures). Each must say the same.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/lib/ktap.sh"
suite_lib=$root/lib
. "$suite_lib/exitcodes.sh"
h=$root/lib/exitcodes.h

# "CODE NAME" of every code the header defines.
header_codes() { awk '$1 == "#define" && $2 ~ /^EXIT_/ { print $3, $2 }' "$h"; }

unique_numbers() {
	dup=$(header_codes | awk '{ print $1 }' | sort | uniq -d)
	[ -z "$dup" ] || { echo "codes defined twice: $dup"; return 1; }
}
shell_matches() {
	header_codes | while read -r code name; do
		eval "v=\${$name:-unset}"
		[ "$v" = "$code" ] || { echo "$name: shell $v, header $code"; return 1; }
	done
}
readme_matches() {
	got=$(sed -n 's/^| \([0-9]*\) | `\(EXIT_[A-Z0-9_]*\)` | .*/\1 \2/p' "$root/lib/README.md")
	want=$(header_codes)
	[ "$got" = "$want" ] || { echo "lib/README.md's table differs from lib/exitcodes.h (make figures): it has $(echo "$got" | wc -l) rows, the header $(echo "$want" | wc -l)"; return 1; }
}
splat_codes_named() {
	awk '!/^#/ && NF >= 3 { print $2 }' "$root/vm/splats.txt" | while read -r name; do
		eval "v=\${$name:-}"
		[ -n "$v" ] || { echo "vm/splats.txt: $name is not in lib/exitcodes.h"; return 1; }
	done
}
name_of_code() { [ "$(exit_name 119)" = EXIT_VM_SOFT_LOCKUP ] && [ "$(exit_name 99)" = 99 ]; }

ktap_plan_checks "$0"
ktap_start
ktap_check codes_unique unique_numbers
ktap_check shell_variables_match_header shell_matches
ktap_check doc_table_matches_header readme_matches
ktap_check splat_classes_have_codes splat_codes_named
ktap_check exit_name_lookup name_of_code
ktap_finish
