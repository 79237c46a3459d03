# The guest kernels' table for shell scripts: kernel-config/kernels.txt, one
# row per kernel (its comment says what the columns mean). Set suite_lib
# (the repo's lib/) before sourcing; KERNELS_TABLE=FILE reads another table
# (the tests' gone pins).
#   kernel_row NAME   sets k_suites (space-separated), k_kver, k_debver,
#                     k_series; false (and one line on stderr) when NAME
#                     is not a row
kernels_table=${KERNELS_TABLE:-${suite_lib:?set suite_lib before sourcing kernels.sh}/../kernel-config/kernels.txt}

kernel_row() {
	_kr_name=$1
	set -- $(awk -v n="$1" '!/^#/ && $1 == n' "$kernels_table") ""
	[ -n "$1" ] || { echo "kernels: no kernel '$_kr_name' in kernel-config/kernels.txt" >&2; return 1; }
	k_suites=$(echo "$2" | tr , ' ') k_kver=$3 k_debver=$4 k_series=$5
}
