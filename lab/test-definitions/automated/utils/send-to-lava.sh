#!/bin/sh
# send-to-lava.sh RESULT_FILE: report a result file to LAVA, one
# lava-test-case call per line. The interface of Linaro test-definitions'
# automated/utils/send-to-lava.sh (this is the suite's own), so that
# linux/mapsync can move into that tree as it is:
#   NAME RESULT                       lava-test-case NAME --result RESULT
#   NAME RESULT MEASUREMENT [UNITS]   ... --measurement MEASUREMENT [--units UNITS]
#   lava-test-set start|stop [NAME]   lava-test-set start NAME / stop
# RESULT is pass, fail or skip; other lines are ignored. A measurement that
# is not a number is left out (LAVA fails the whole run on one) and said.
# Outside LAVA (no lava-test-case on PATH) the lines are printed in the
# signal format LAVA would have read.
set -u
file=${1:?usage: send-to-lava.sh RESULT_FILE}
if [ ! -f "$file" ]; then
	echo "send-to-lava: no result file $file" >&2
	exit 1
fi
# is_number S: a decimal number, as LAVA reads a measurement.
is_number() {
	case ${1#-} in
	''|*[!0-9.]*|.*|*.|*.*.*) return 1 ;;
	esac
}
if command -v lava-test-case >/dev/null 2>&1; then lava=1; else lava=; fi

while read -r name result measurement units rest; do
	case $name in
	lava-test-set)
		if [ -n "$lava" ]; then
			lava-test-set "$result" ${measurement:+"$measurement"}
		elif [ "$result" = start ]; then
			echo "<LAVA_SIGNAL_TESTSET START $measurement>"
		else
			echo "<LAVA_SIGNAL_TESTSET STOP>"
		fi
		continue ;;
	''|'#'*) continue ;;
	esac
	case $result in pass|fail|skip) ;; *) continue ;; esac
	if [ -n "$measurement" ] && ! is_number "$measurement"; then
		echo "send-to-lava: $name: measurement '$measurement' is not a number: left out" >&2
		measurement= units=
	fi
	if [ -n "$lava" ]; then
		if [ -z "$measurement" ]; then
			lava-test-case "$name" --result "$result"
		elif [ -z "$units" ]; then
			lava-test-case "$name" --result "$result" --measurement "$measurement"
		else
			lava-test-case "$name" --result "$result" --measurement "$measurement" --units "$units"
		fi
	else
		echo "<TEST_CASE_ID=$name RESULT=$result${measurement:+ MEASUREMENT=$measurement}${units:+ UNITS=$units}>"
	fi
done <"$file"
