#!/bin/sh
# Check a kernel config against the suite's fragment (mapsync.config).
# POSIX sh + awk; see usage() or kernel-config/README.md.
set -u

here=$(cd "$(dirname "$0")" && pwd)
prog=check-config

usage() {
	cat <<EOF
usage: check-config.sh [--json] [--fragment F] [CONFIG]

Check that the kernel config CONFIG has every option the MAP_SYNC suite
needs, as listed in the fragment F (default: $here/mapsync.config).
CONFIG is a .config or config-VERSION file, a gzipped config (config.gz), or
'-' for standard input (plain or gzipped). Without CONFIG: /proc/config.gz,
else /boot/config-\$(uname -r).

For each option missing or with a value the fragment does not accept, one line:
  MISSING CONFIG_X (required|recommended): why
  WRONG CONFIG_X=m, want y (required|recommended): why
then one summary line. --json prints one JSON object instead:
  {"config": PATH, "ok": BOOL, "missing": [{"option", "severity", "have",
   "want", "why"}], "checked": N, "required_missing": N,
   "recommended_missing": N}
("have" is "n" for an option that is absent or not set).

Exit status: 0 every required option is there (missing recommended options
only warn: part of the suite will be skipped), 1 a required option is missing
or wrong, 2 usage error, unreadable config or malformed fragment.

Examples:
  check-config.sh                                  # the running kernel
  check-config.sh /boot/config-6.1.0-57-cloud-amd64
  check-config.sh .output/kernels/6.1/config        # a guest kernel
  zcat /proc/config.gz | check-config.sh -
  check-config.sh --json linux/.config | jq '.missing[].option'
EOF
}

die() { echo "$prog: $*" >&2; exit 2; }

json=0 fragment=$here/mapsync.config cfg=
while [ $# -gt 0 ]; do
	case $1 in
	-h|--help) usage; exit 0 ;;
	--json) json=1 ;;
	--fragment) [ $# -ge 2 ] || die "--fragment needs a file (try -h)"; fragment=$2; shift ;;
	--fragment=*) fragment=${1#--fragment=} ;;
	--) shift; break ;;
	-) break ;;
	-*) die "unknown option '$1' (try -h)" ;;
	*) break ;;
	esac
	shift
done
case $# in
0) ;;
1) cfg=$1 ;;
*) die "one CONFIG at most, got $# (try -h)" ;;
esac

if [ -z "$cfg" ]; then
	if [ -r /proc/config.gz ]; then
		cfg=/proc/config.gz
	elif [ -r "/boot/config-$(uname -r)" ]; then
		cfg=/boot/config-$(uname -r)
	else
		die "no CONFIG given and neither /proc/config.gz nor /boot/config-$(uname -r) is readable"
	fi
fi

[ -f "$fragment" ] && [ -r "$fragment" ] || die "cannot read fragment '$fragment'"
# esc() for --json comes from lib/json.awk, shared with results/report.sh.
json_awk_file=$here/../lib/json.awk
[ -f "$json_awk_file" ] && [ -r "$json_awk_file" ] || die "cannot read '$json_awk_file'"
json_awk=$(cat "$json_awk_file")
# awk takes an operand like "a=b.config" for an assignment: keep a leading "./".
case $fragment in /*|./*) ;; *) fragment=./$fragment ;; esac

tmp=$(mktemp "${TMPDIR:-/tmp}/check-config.XXXXXX") || die "cannot create a temporary file"
trap 'rm -f "$tmp" "$tmp.gz"' EXIT
trap 'exit 130' INT TERM

# Everything goes through a plain temporary copy, so gzip is detected by its
# magic number whatever the name, stdin included.
if [ "$cfg" = - ]; then
	cat >"$tmp.gz" || die "cannot read standard input"
else
	[ -e "$cfg" ] || die "cannot read config '$cfg': no such file"
	[ -d "$cfg" ] && die "cannot read config '$cfg': is a directory"
	cat <"$cfg" >"$tmp.gz" 2>/dev/null || die "cannot read config '$cfg': permission denied or I/O error"
fi
if [ "$(od -An -tx1 -N2 "$tmp.gz" | tr -d ' \n')" = 1f8b ]; then
	gzip -dc <"$tmp.gz" >"$tmp" 2>/dev/null || die "cannot read config '$cfg': corrupt gzip data"
else
	mv "$tmp.gz" "$tmp"
fi

awk -v frag="$fragment" -v cfgname="$cfg" -v json="$json" "$json_awk"'
function ferr(msg) {
	printf "%s: %s:%d: %s\n", "check-config", frag, FNR, msg > "/dev/stderr"
	bad = 2; exit 2
}
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
# Fragment: "# why: TEXT", "# need: SEVERITY; accept: V...", then the
# CONFIG_X=V (or "# CONFIG_X is not set") line that both describe.
FILENAME == frag {
	if ($0 ~ /^# why:/) {
		if (why != "") ferr("two why lines in a row")
		why = trim(substr($0, 7))
		if (why == "") ferr("empty why line")
		next
	}
	if ($0 ~ /^# need:/) {
		if (why == "") ferr("need line without a why line before it")
		line = substr($0, 8)
		if (line !~ /;[ \t]*accept:/) ferr("need line without \"; accept: VALUES\"")
		need = trim(substr(line, 1, index(line, ";") - 1))
		acc = trim(substr(line, index(line, "accept:") + 7))
		if (need != "required" && need != "recommended" && need != "build")
			ferr("need must be required, recommended or build, not \"" need "\"")
		if (acc == "") ferr("empty accept list")
		next
	}
	if ($0 ~ /^CONFIG_[A-Za-z0-9_]+=/ || $0 ~ /^# CONFIG_[A-Za-z0-9_]+ is not set$/) {
		if (why == "" || need == "") ferr("option without \"# why:\" and \"# need:\" lines before it")
		if ($0 ~ /^#/) { opt = $2; val = "n" }
		else { opt = substr($0, 1, index($0, "=") - 1); val = substr($0, index($0, "=") + 1) }
		if (opt in seen) ferr(opt " listed twice")
		seen[opt] = 1
		n = split(acc, a, /[ \t]+/)
		ok = 0; want = ""
		for (i = 1; i <= n; i++) {
			if (a[i] == val) ok = 1
			want = want (i > 1 ? " or " : "") a[i]
		}
		if (!ok) ferr(opt "=" val " is not in its own accept list (" acc ")")
		nopt++
		O[nopt] = opt; SEV[nopt] = need; ACC[nopt] = " " acc " "; WANT[nopt] = want; WHY[nopt] = why
		why = need = acc = ""
		next
	}
	if (why != "" && $0 !~ /^#/) ferr("a why line must be followed by its need line and option")
	next
}
/^CONFIG_[A-Za-z0-9_]+=/ {
	have[substr($0, 1, index($0, "=") - 1)] = substr($0, index($0, "=") + 1)
	nconf++; next
}
/^# CONFIG_[A-Za-z0-9_]+ is not set$/ { have[$2] = "n"; nconf++; next }
END {
	if (bad) exit bad
	if (why != "") { FNR = "end"; ferr("why line at the end without an option") }
	if (nopt == 0) { printf "check-config: %s: no options in the fragment\n", frag > "/dev/stderr"; exit 2 }
	if (nconf == 0) {
		printf "check-config: %s: no CONFIG_ lines: not a kernel config\n", cfgname > "/dev/stderr"
		exit 2
	}
	for (i = 1; i <= nopt; i++) {
		if (SEV[i] == "build") continue
		checked++
		h = (O[i] in have) ? have[O[i]] : "n"
		if (index(ACC[i], " " h " ")) continue
		nm++
		MO[nm] = O[i]; MS[nm] = SEV[i]; MH[nm] = h; MW[nm] = WANT[i]; MY[nm] = WHY[i]
		if (SEV[i] == "required") req++; else rec++
	}
	if (json) {
		printf "{\"config\": \"%s\", \"ok\": %s, \"checked\": %d, \"required_missing\": %d, \"recommended_missing\": %d, \"missing\": [", esc(cfgname), req ? "false" : "true", checked, req, rec
		for (i = 1; i <= nm; i++)
			printf "%s\n  {\"option\": \"%s\", \"severity\": \"%s\", \"have\": \"%s\", \"want\": \"%s\", \"why\": \"%s\"}", (i > 1 ? "," : ""), MO[i], MS[i], esc(MH[i]), esc(MW[i]), esc(MY[i])
		printf "%s]}\n", nm ? "\n" : ""
	} else {
		for (i = 1; i <= nm; i++) {
			if (MH[i] == "n") printf "MISSING %s (%s): %s\n", MO[i], MS[i], MY[i]
			else printf "WRONG %s=%s, want %s (%s): %s\n", MO[i], MH[i], MW[i], MS[i], MY[i]
		}
		printf "check-config: %s: %d options checked, %d required missing, %d recommended missing: %s\n", cfgname, checked, req, rec, req ? "FAIL" : (rec ? "OK (parts of the suite will be skipped)" : "OK")
	}
	exit req ? 1 : 0
}
' "$fragment" "$tmp"
