# The exit code table for shell scripts: EXIT_* variables read from
# lib/exitcodes.h (the one table; C tools include it). Set suite_lib to the
# folder holding exitcodes.h before sourcing (the repo's lib/ on the host,
# /suite/lib in the guest).
#   exit_name CODE    the EXIT_ name of CODE ("EXIT_VM_SOFT_LOCKUP"), or CODE
eval "$(awk '$1 == "#define" && $2 ~ /^EXIT_[A-Z0-9_]+$/ && $3 ~ /^[0-9]+$/ { print $2 "=" $3 }' \
	"${suite_lib:?set suite_lib before sourcing exitcodes.sh}/exitcodes.h")"

exit_name() {
	awk -v c="$1" '$1 == "#define" && $2 ~ /^EXIT_/ && $3 == c { print $2; f = 1; exit }
		END { if (!f) print c }' "$suite_lib/exitcodes.h"
}
