# KTAP v1 for shell tests, on the host and in the guest: the one shell
# emitter (the C one is lib/ktap.h). The plan is counted, never written by
# hand: declare the tests, then run them.
#   ktap_plan NAME...   declare (repeatable; loops over a table welcome)
#   ktap_plan_checks FILE   declare FILE's top-level ktap_check lines
#   ktap_start          the version line and "1..N", N = the names declared
#   ktap_begin NAME     NAME starts (a guest that dies now is salvaged as
#                       NAME in flight: tests/salvage.awk)
#   ktap_pass NAME | ktap_fail NAME WHY | ktap_skip NAME WHY
#   ktap_xfail NAME WHY  failed as a known kernel bug says it must
#                       (validate/known-bugs.txt): "ok ... # XFAIL WHY"
#   ktap_xpass NAME WHY  a known kernel bug did not show: "ok ... # XPASS
#                       WHY" and a loud line (update the table)
#   known_bug TEST [FIELD]  the row of validate/known-bugs.txt for TEST
#                       (FIELD: id evidence rule seen xpass_after), exit 1
#                       when none
#   ktap_check NAME COMMAND...   pass when COMMAND succeeds, else its output
#   ktap_diag TEXT...   "# " lines
#   ktap_finish         every declared test not reported is 'not ok ... never
#                       reported'; a result not declared is 'not ok' too;
#                       the totals line; returns 0, or 1 when a test failed
_ktap_n=0 _ktap_pass=0 _ktap_fail=0 _ktap_skip=0 _ktap_xfail=0 _ktap_xpass=0
_ktap_planned=' ' _ktap_done=' '

ktap_plan() {
	for _t; do
		case $_ktap_planned in
		*" $_t "*) echo "# ktap_plan: $_t declared twice" ;;
		*) _ktap_planned="$_ktap_planned$_t " ;;
		esac
	done
}

# ktap_plan_checks FILE: declare every test FILE runs as a top-level
# "ktap_check NAME ..." line (a script that is a list of checks).
ktap_plan_checks() {
	ktap_plan $(sed -n 's/^ktap_check \([A-Za-z0-9_]*\) .*/\1/p' "$1")
}

ktap_start() {
	echo "KTAP version 1"
	echo "1..$(echo $_ktap_planned | wc -w)"
}

ktap_begin() {
	echo "# begin $1"
}

# _ktap_line STATUS NAME [DIRECTIVE]: one numbered result, and its tally.
_ktap_line() {
	_ktap_n=$((_ktap_n + 1))
	case $_ktap_planned in
	*" $2 "*) ;;
	*)
		_ktap_fail=$((_ktap_fail + 1))
		echo "not ok $_ktap_n $2 # not in the plan (ktap_plan)${3:+: $3}"
		return ;;
	esac
	_ktap_done="$_ktap_done$2 "
	case $1 in
	pass) _ktap_pass=$((_ktap_pass + 1)); echo "ok $_ktap_n $2${3:+ # $3}" ;;
	skip) _ktap_skip=$((_ktap_skip + 1)); echo "ok $_ktap_n $2 # SKIP $3" ;;
	xfail) _ktap_xfail=$((_ktap_xfail + 1)); echo "ok $_ktap_n $2 # XFAIL $3" ;;
	xpass) _ktap_xpass=$((_ktap_xpass + 1))
	       echo "# XPASS: $2 passed: a known kernel bug did not show (update validate/known-bugs.txt)"
	       echo "ok $_ktap_n $2 # XPASS $3" ;;
	*) _ktap_fail=$((_ktap_fail + 1)); echo "not ok $_ktap_n $2 # $3" ;;
	esac
}

ktap_pass() { _ktap_line pass "$1" "${2:-}"; }
ktap_fail() { _ktap_line fail "$1" "$(printf '%s' "$2" | tr '\n' ' ')"; }
ktap_skip() { _ktap_line skip "$1" "$2"; }
ktap_xfail() { _ktap_line xfail "$1" "$(printf '%s' "$2" | tr '\n' ' ')"; }
ktap_xpass() { _ktap_line xpass "$1" "$(printf '%s' "$2" | tr '\n' ' ')"; }

# The table next to this file in the guest (/suite/lib -> /suite/validate)
# and in the repository.
known_bugs_file=${suite_lib:-/suite/lib}/../validate/known-bugs.txt

known_bug() {
	awk -F' *[|] *' -v t="$1" -v f="${2:-id}" '
		BEGIN { split("id test evidence rule seen xpass_after", n, " "); for (i in n) col[n[i]] = i }
		!/^#/ && NF >= 5 && $2 == t { print $col[f]; found = 1; exit }
		END { exit !found }' "$known_bugs_file"
}

ktap_diag() {
	printf '%s\n' "$*" | sed 's/^/# /'
}

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
	for _t in $_ktap_planned; do
		case $_ktap_done in
		*" $_t "*) ;;
		*) _ktap_n=$((_ktap_n + 1)) _ktap_fail=$((_ktap_fail + 1))
		   echo "not ok $_ktap_n $_t # never reported (declared by ktap_plan)" ;;
		esac
	done
	echo "# Totals: pass:$_ktap_pass fail:$_ktap_fail xfail:$_ktap_xfail xpass:$_ktap_xpass skip:$_ktap_skip error:0"
	[ "$_ktap_fail" -eq 0 ]
}
