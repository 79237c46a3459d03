#!/bin/sh
# KTAP wrapper: the guest kernel's config carries every option the suite
# needs (kernel-config/mapsync.config). Usage: guest-kernel-config.sh CONFIG
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../lib/ktap.sh"
ktap_plan guest_kernel_config
ktap_start
if out=$(sh "$here/../../kernel-config/check-config.sh" "$1" 2>&1); then
	ktap_pass guest_kernel_config
else
	ktap_fail guest_kernel_config "$(echo "$out" | grep -E '^(MISSING|WRONG)' | head -n 5)"
fi
ktap_diag "$out"
ktap_finish
