#!/bin/sh
# Host tests of 'make kernel KSRC=' up to the config (the build itself is
# too long for make check: kernel-config/README.md has its measured run):
# Debian's linux-source of the 6.12 row (vm/fetch-source.sh, cached in
# O/src), x86_64_defconfig + kernel-config/mapsync.config merged by
# merge_config.sh, olddefconfig, and check-config.sh passes with BTF on;
# a fragment that takes away what the suite needs fails in one line; a
# folder that is no source tree is exit 2.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/lib/ktap.sh"
O=${O:-$root/.output}
src=$O/src/6.12
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-kbuild.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
build=$root/kernel-config/build-kernel.sh
ktap_plan_checks "$0"
ktap_start

fetched() {
	sh "$root/vm/fetch-source.sh" 6.12 "$src" >"$tmp/fetch.log" 2>&1 || { tail -n 3 "$tmp/fetch.log"; return 1; }
	ksrc=$(ls -d "$src"/linux-source-* | head -n 1)
	[ -f "$ksrc/scripts/kconfig/merge_config.sh" ]
}
ktap_check linux_source_fetched fetched
ksrc=$(ls -d "$src"/linux-source-* 2>/dev/null | head -n 1)

merged() {
	sh "$build" --config-only "$ksrc" "$tmp/ok" >"$tmp/ok.out" 2>&1 || { tail -n 5 "$tmp/ok.out"; return 1; }
	for o in CONFIG_FS_DAX=y CONFIG_DEBUG_INFO_BTF=y CONFIG_ACPI_NFIT=m CONFIG_EXT4_FS=y CONFIG_KPROBES=y; do
		grep -qx "$o" "$tmp/ok/.config" || { echo "no $o in the merged .config"; return 1; }
	done
	grep -q 'check-config: .*0 required missing, 0 recommended missing: OK' "$tmp/ok.out" ||
		{ grep check-config: "$tmp/ok.out"; return 1; }
}
ktap_check defconfig_plus_fragment_passes merged

# Without memory hotplug, olddefconfig quietly drops ZONE_DEVICE and with it
# FS_DAX: the merge "succeeds", the check must not.
dropped() {
	echo '# CONFIG_MEMORY_HOTPLUG is not set' >"$tmp/nohotplug.config"
	sh "$build" --config-only --extra "$tmp/nohotplug.config" "$ksrc" "$tmp/bad" >"$tmp/bad.out" 2>&1
	rc=$?
	[ "$rc" = 1 ] && grep -q '^MISSING CONFIG_FS_DAX ' "$tmp/bad.out" &&
		grep -qxF 'build-kernel: the merged config lacks what the suite needs' "$tmp/bad.out" ||
		{ echo "exit $rc: $(tail -n 3 "$tmp/bad.out")"; return 1; }
}
ktap_check dropped_option_fails dropped

not_source() {
	out=$(sh "$build" "$tmp" "$tmp/b" 2>&1)
	rc=$?
	[ "$rc" = 2 ] && echo "$out" | grep -q 'is not a kernel source tree' || { echo "exit $rc: $out"; return 1; }
}
ktap_check not_a_source_tree_exit_2 not_source
ktap_finish
