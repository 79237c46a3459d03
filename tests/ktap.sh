# KTAP output for shell tests (kselftest conventions), sourced by host and
# guest test scripts. Usage:
#   ktap_header 5; ktap_begin name; ktap_pass name; ktap_fail name "why"; ktap_skip name "why"
#   ktap_finish      # prints the totals line, returns 0 / 1 (fail) / 4 (only skips)
_ktap_n=0 _ktap_pass=0 _ktap_fail=0 _ktap_skip=0

ktap_header() {
	echo "KTAP version 1"
	echo "1..$1"
}

# ktap_begin NAME: the test NAME starts. If the guest dies before its result,
# the host names it as the test in flight (tests/salvage.awk).
ktap_begin() {
	echo "# begin $1"
}

ktap_pass() {
	_ktap_n=$((_ktap_n + 1)) _ktap_pass=$((_ktap_pass + 1))
	echo "ok $_ktap_n $1"
}

ktap_fail() {
	_ktap_n=$((_ktap_n + 1)) _ktap_fail=$((_ktap_fail + 1))
	echo "not ok $_ktap_n $1 # $(echo "$2" | tr '\n' ' ')"
}

ktap_skip() {
	_ktap_n=$((_ktap_n + 1)) _ktap_skip=$((_ktap_skip + 1))
	echo "ok $_ktap_n $1 # SKIP $2"
}

# ktap_diag TEXT...: diagnostic lines, each prefixed '# '.
ktap_diag() {
	printf '%s\n' "$*" | sed 's/^/# /'
}

# ktap_check NAME COMMAND...: pass when COMMAND succeeds; on failure its
# output becomes the diagnostic.
ktap_check() {
	_name=$1; shift
	ktap_begin "$_name"
	if _out=$("$@" 2>&1); then
		ktap_pass "$_name"
	else
		ktap_fail "$_name" "$(printf '%s' "$_out" | tail -n 3)"
	fi
}

ktap_finish() {
	echo "# Totals: pass:$_ktap_pass fail:$_ktap_fail xfail:0 xpass:0 skip:$_ktap_skip error:0"
	[ "$_ktap_fail" -eq 0 ] || return 1
	[ "$_ktap_pass" -gt 0 ] || [ "$_ktap_skip" -eq 0 ] || return 4
	return 0
}
