#!/bin/sh
# Guest job: the MAP_SYNC interface conformance matrix of
# validate/conformance.txt (validate/conformance.sh runs it), one KTAP test
# per case and setup, on whichever guest kernel boots; make check runs it on
# every kernel of kernel-config/kernels.txt. Each failure names the facts
# that differ and the source of the expected answer; cells where the kernel
# differs from mmap(2) are listed, not failed.
. /suite/vm/guest/lib.sh
. /suite/lib/ktap.sh
. /suite/validate/conformance.sh
PATH=/job/bin:$PATH

ktap_plan pmem_namespaces_fsdax $(conformance_names) conformance_syncorder_clean
ktap_start
ktap_diag "kernel $(uname -r)"
ktap_check pmem_namespaces_fsdax pmem_expect 2
modprobe xfs && modprobe loop

conformance_run /tmp/cells.txt
while read -r case setup class verdict man rest; do
	name=$(echo "${case}_$setup" | tr - _)
	if [ "$verdict" = pass ]; then
		ktap_pass "$name"
	else
		ktap_fail "$name" "$class: $rest; source: $(conformance_rows case | awk -F'|' -v c="$case" '$1 == c { print $6 }')"
	fi
	[ "$man" = agrees ] || ktap_diag "man page differs: $case on $setup: $rest"
done </tmp/cells.txt

# The probes' faults under syncorder: every ordering rule held for them too.
syncorder_clean() {
	[ "$(cat /tmp/conformance.rc)" = 0 ] ||
		{ echo "syncorder exit $(cat /tmp/conformance.rc): $(grep '^not ok' /tmp/conformance.tap | head -n 3) $(head -c 300 /tmp/conformance.err)"; return 1; }
}
ktap_check conformance_syncorder_clean syncorder_clean
ktap_diag "syncorder: $(jq -c '.counts | {sync_write_faults_entered, checked, violations}' /tmp/conformance.json 2>&1)"
ktap_finish
