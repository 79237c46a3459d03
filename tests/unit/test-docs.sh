#!/bin/sh
# The docs (issue 31): a front page a newcomer reads in minutes, a page per
# part next to its code, and no command in them that does not exist: every
# `make TARGET` of a fenced block (and of the front page's tables) must be a
# target make knows, checked with a dry run (make -n, its outputs in a
# scratch O=). KTAP output.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/lib/ktap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-docs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$root" || exit 1

PARTS="bench bpf kernel-config lab lib mk native results tests validate vm"
pages() { echo README.md; for p in $PARTS; do echo "$p/README.md"; done; echo validate/crash/README.md; }

front_page_short() {
	n=$(wc -l <README.md)
	[ "$n" -le 250 ] || { echo "README.md has $n lines (at most 250: detail goes to the parts' pages)"; return 1; }
}
every_part_has_a_page() {
	for p in $PARTS; do
		[ -s "$p/README.md" ] || { echo "$p/ has no README.md"; return 1; }
		head -n 1 "$p/README.md" | grep -q "^# $p/" || { echo "$p/README.md does not start with '# $p/: ...'"; return 1; }
	done
}
# The front page names every part's page.
front_page_maps_pages() {
	for p in $PARTS; do
		[ "$p" = tests ] || [ "$p" = mk ] || grep -q "\`$p/README.md\`" README.md ||
			{ echo "README.md does not point to $p/README.md"; return 1; }
	done
}

# make_words FILE...: the targets of every make command in a fenced block
# (and, in README.md, of every `make ...` in its text), one per line.
make_targets() {
	for f in "$@"; do
		awk '/^ *```/ { fence = !fence; next } fence && $1 == "make" { print }' "$f"
		[ "$f" = README.md ] && grep -o '`make [^`]*`' "$f" | tr -d '`'
	done | sed "s/#.*//; s/'[^']*'//g" | awk '{ for (i = 2; i <= NF; i++) if ($i !~ /[=\\]/ && $i !~ /^-/ && $i ~ /^[a-z][a-z0-9-]*$/) print $i }' |
		sort -u
}
doc_targets_exist() {
	targets=$(make_targets $(pages))
	[ "$(echo "$targets" | wc -w)" -ge 15 ] || { echo "only $(echo "$targets" | wc -w) targets found in the docs: $targets"; return 1; }
	for t in $targets; do
		timeout 120 make -n --no-print-directory O="$tmp/o" CHECK="$tmp/check" "$t" >"$tmp/out" 2>"$tmp/err"
		# A recipe that runs $(MAKE) runs even under -n (check: the summary of
		# no results fails): only make's own word on the target counts.
		if grep -q "No rule to make target" "$tmp/err"; then
			echo "make -n $t: $(grep "No rule" "$tmp/err" | head -n 1)"
			return 1
		fi
	done
	ktap_diag "$(echo "$targets" | wc -w) targets named in the docs, each known to make: $(echo $targets)"
}
# The checker of the checker: a target that does not exist is caught.
missing_target_caught() {
	printf '```\nmake no-such-target-here\n```\n' >"$tmp/page.md"
	t=$(make_targets "$tmp/page.md")
	[ "$t" = no-such-target-here ] || { echo "extracted '$t'"; return 1; }
	! make -n O="$tmp/o" "$t" >/dev/null 2>&1 || { echo "make -n $t succeeded"; return 1; }
}
# Pages link each other by path: every `DIR/README.md` they name exists.
page_links_resolve() {
	for f in $(pages); do
		for l in $(grep -o '`[a-z/-]*README\.md`' "$f" | tr -d '`' | sort -u); do
			[ -f "$l" ] || { echo "$f names $l, which does not exist"; return 1; }
		done
	done
}

# No paragraph of prose stands in two pages (the detail lives in one place).
no_shared_paragraphs() {
	dup=$(for f in $(pages); do
		awk -v f="$f" '
			function flush() { if (length(p) >= 120) print p "\t" f; p = "" }
			/^ *```/ { fence = !fence; flush(); next }
			fence || /^\|/ || /^<!--/ { flush(); next }
			/^$/ { flush(); next }
			{ gsub(/[ \t]+/, " "); p = p " " $0 }
			END { flush() }' "$f"
	done | sort | awk -F '\t' '$1 == last && $2 != lastf { print $2 " and " lastf ": " substr($1, 1, 100) } { last = $1; lastf = $2 }')
	[ -z "$dup" ] || { echo "$dup" | head -n 3; return 1; }
}

# Dates and revisions belong to a run's label, not to prose: outside the
# figure blocks no page names a date or a bare git revision (run folders,
# whose names carry both, are paths and stay).
no_dates_in_prose() {
	bad=$(for f in $(pages); do
		# A revision: a word of 7 to 12 hex digits with a digit and a letter
		# (mawk has no {n} intervals: the word is tested whole).
		awk -v f="$f" 'function rev(w) { sub(/^[(`]+/, "", w); sub(/[,.:;)`]+$/, "", w)
				return w ~ /^[0-9a-f]+$/ && length(w) >= 7 && length(w) <= 12 && w ~ /[0-9]/ && w ~ /[a-f]/ }
			/^<!-- figure /{ on = 1 } /^<!-- end figure /{ on = 0; next }
			!on { hit = /20[0-9][0-9]-[01][0-9]-[0-3][0-9]/; for (i = 1; i <= NF; i++) hit = hit || rev($i)
				if (hit) print f ":" FNR ": " $0 }' "$f"
	done)
	[ -z "$bad" ] || { echo "$bad" | head -n 3; return 1; }
}

ktap_plan_checks "$0"
ktap_start
ktap_check front_page_at_most_250_lines front_page_short
ktap_check every_part_folder_has_a_page every_part_has_a_page
ktap_check front_page_points_to_each_page front_page_maps_pages
ktap_check page_links_resolve page_links_resolve
ktap_check make_commands_in_docs_exist doc_targets_exist
ktap_check missing_make_target_caught missing_target_caught
ktap_check no_paragraph_in_two_pages no_shared_paragraphs
ktap_check no_dates_or_revisions_in_prose no_dates_in_prose
ktap_finish
