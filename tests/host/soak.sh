#!/bin/sh
# Boot each guest job N times and tabulate how it went: a job that passed
# once can hang the next time, and only many boots show a rate.
# Usage: soak.sh N JOB... (names from tests/guest/jobs.txt, or 'crash' for
# the crash test of make check). Environment: O, and vm/job.sh's.
# Prints one line per boot as it ends, then the table:
#   job  boots  passed  failed  hung  median_s  max_s
# 'hung' counts boots the runner stopped: a splat (vm exit 117-123) or the
# watchdog (124). Exit status 0 when every boot of every job passed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${here%/tests/host}
O=${O:-.output}
suite_lib=$top/lib
. "$suite_lib/exitcodes.sh"
# stopped CODE: the runner stopped the guest (a splat, or the watchdog).
stopped() { [ "$1" -ge $EXIT_VM_WARNING ] && [ "$1" -le $EXIT_VM_WATCHDOG ]; }
n=$1; shift
case $n in ''|*[!0-9]*|0) echo "soak: N must be a positive number, not '$n'" >&2; exit 2 ;; esac
[ $# -gt 0 ] || { echo "soak: no job named" >&2; exit 2; }
soak=$O/soak
rm -rf "$soak" && mkdir -p "$soak" || exit 2
: >"$soak/boots.txt"
for job; do
	[ "$job" = crash ] || awk -v j="$job" '$1 == j { f = 1 } END { exit !f }' "$top/tests/guest/jobs.txt" ||
		{ echo "soak: no job '$job' in tests/guest/jobs.txt" >&2; exit 2; }
done
for job; do
	i=1
	while [ $i -le "$n" ]; do
		dir=$soak/$job-$i
		t0=$(date +%s)
		if [ "$job" = crash ]; then
			sh "$top/validate/crash/crash.sh" -q -c 4 -o "$dir" -t "$dir.tap" >"$dir.log" 2>&1
			hung=0
			for c in $(sed -n 's/.*vm exit \([0-9]*\).*/\1/p' "$dir/log.txt" 2>/dev/null); do
				stopped "$c" && hung=1
			done
		else
			sh "$here/guest.sh" "$job" "$dir" "$dir.tap" >"$dir.log" 2>&1
			rc=$(cat "$dir/vm.rc" 2>/dev/null)
			hung=0
			stopped "${rc:-0}" && hung=1
		fi
		secs=$(($(date +%s) - t0))
		if [ "$hung" = 1 ]; then
			verdict=hung
		elif sh "$top/tests/summary.sh" "$dir.tap" >/dev/null 2>&1; then
			verdict=passed
		else
			verdict=failed
		fi
		why=$(grep -m 1 '^not ok' "$dir.tap" 2>/dev/null)
		echo "$job $i $verdict $secs $why" | tee -a "$soak/boots.txt"
		i=$((i + 1))
	done
done
awk '
	{ j = $1; if (!(j in boots)) order[++nj] = j; boots[j]++; v[j, $3]++; t[j, boots[j]] = $4 }
	END {
		printf "%-12s %6s %7s %7s %5s %9s %6s\n", "job", "boots", "passed", "failed", "hung", "median_s", "max_s"
		for (k = 1; k <= nj; k++) {
			j = order[k]; m = boots[j]
			for (a = 1; a <= m; a++) s[a] = t[j, a]
			for (a = 2; a <= m; a++) for (b = a; b > 1 && s[b - 1] > s[b]; b--) { x = s[b]; s[b] = s[b - 1]; s[b - 1] = x }
			med = m % 2 ? s[(m + 1) / 2] : (s[m / 2] + s[m / 2 + 1]) / 2
			printf "%-12s %6d %7d %7d %5d %9s %6d\n", j, m, v[j, "passed"], v[j, "failed"], v[j, "hung"], med, s[m]
			bad += m - v[j, "passed"]
		}
		exit bad > 0
	}' "$soak/boots.txt" >"$soak/table.txt"
rc=$?
cat "$soak/table.txt"
exit $rc
