#!/bin/sh
# make check-kernels' table: per kernel, what each part of the guest half
# counted, then the line CI reads over all of them.
# Usage: kernels-summary.sh DIR 'TAP...' NAME...: DIR/NAME/TAP from
# check-kernel (a TAP that is missing counts as a failure).
set -u
dir=$1 taps=$2; shift 2
here=$(cd "$(dirname "$0")" && pwd)
printf '%-6s %-34s %7s %7s %7s\n' kernel version passed failed skipped
tp=0 tf=0 ts=0
for k; do
	line=$(sh "$here/../summary.sh" $(for t in $taps; do echo "$dir/$k/$t"; done) | tail -n 1)
	set -- $(echo "$line" | tr -dc '0-9 ')
	ver=$(cat "$dir/../kernels/$k/kver" 2>/dev/null || echo '?')
	printf '%-6s %-34s %7s %7s %7s\n' "$k" "$ver" "$1" "$2" "$3"
	tp=$((tp + $1)) tf=$((tf + $2)) ts=$((ts + $3))
done
echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" = 0 ] && [ "$ts" = 0 ] && [ "$tp" -gt 0 ]
