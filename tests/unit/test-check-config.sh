#!/bin/sh
# Host unit tests of kernel-config/check-config.sh and its fragment, KTAP
# output. Inputs: tests/unit/data (see its README). The checker runs under
# dash (SH=... to try another shell). Usage: sh tests/unit/test-check-config.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
data=$here/data
cc=$root/kernel-config/check-config.sh
frag=$root/kernel-config/mapsync.config
SH=${SH:-dash}
. "$root/lib/ktap.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-check-config.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# run ARGS...: run the checker; leaves rc, $tmp/out and $tmp/err.
run() { "$SH" "$cc" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
# The why text of CONFIG_$1 in the fragment, and the number of options checked.
why_of() { awk -v o="CONFIG_$1=" '/^# why: /{ w = substr($0, 8) } index($0, o) == 1 { print w; exit }' "$frag"; }
nchecked=$(grep -cE '^# need: (required|recommended);' "$frag")

# want_rc N: the last run exited N. want_out FILE TEXT: FILE holds exactly TEXT.
want_rc() { [ "$rc" = "$1" ] || { echo "exit $rc, want $1; stdout: $(head -c 300 "$tmp/out"); stderr: $(head -c 300 "$tmp/err")"; return 1; }; }
want_out() {
	printf '%s\n' "$2" >"$tmp/want"
	cmp -s "$1" "$tmp/want" || { echo "got: $(cat "$1") | want: $2"; return 1; }
}
want_empty() { [ ! -s "$1" ] || { echo "${1##*/} not empty: $(head -c 300 "$1")"; return 1; }; }

# --- the fragment itself
t_fragment_lint() {
	awk '
		/^# why: ./ { why = NR; next }
		/^# need: (required|recommended|build); accept: [ymn]( [ymn])*$/ {
			if (why != NR - 1) { print "line " NR ": need line without a why line before it"; bad = 1 }
			need = NR; next }
		/^CONFIG_[A-Z0-9_]+=/ {
			if (need != NR - 1) { print "line " NR ": " $0 " without why/need lines"; bad = 1 }
			next }
		/^# (why|need):/ { print "line " NR ": malformed: " $0; bad = 1 }
		END { exit bad }' "$frag" || return 1
	# A recommended option says what is skipped without it.
	awk '/^# why: /{ w = $0 } /^# need: recommended;/ && w !~ /without it/ { print "no \"without it\": " w; bad = 1 } END { exit bad }' "$frag"
}
t_fragment_has_suite_options() {
	for o in FS_DAX FS_DAX_PMD ZONE_DEVICE MEMORY_HOTPLUG MEMORY_HOTREMOVE SPARSEMEM_VMEMMAP \
		TRANSPARENT_HUGEPAGE LIBNVDIMM BLK_DEV_PMEM ACPI_NFIT NVDIMM_PFN X86_PMEM_LEGACY DAX \
		ARCH_HAS_PMEM_API EXT4_FS JBD2 XFS_FS BPF_SYSCALL BPF_JIT BPF_EVENTS DEBUG_INFO_BTF \
		DEBUG_INFO_BTF_MODULES KPROBES KPROBE_EVENTS FTRACE FUNCTION_TRACER DYNAMIC_FTRACE \
		DYNAMIC_FTRACE_WITH_DIRECT_CALLS MAGIC_SYSRQ DM_LOG_WRITES DM_FLAKEY VIRTIO_PCI \
		VIRTIO_CONSOLE BLK_DEV_INITRD RD_GZIP DEVTMPFS SERIAL_8250_CONSOLE MODULES; do
		grep -qE "^CONFIG_$o=[ym]$" "$frag" || { echo "CONFIG_$o=y/m not in the fragment"; return 1; }
	done
	# The suite cannot run without these: they must be required.
	for o in FS_DAX NVDIMM_PFN BLK_DEV_PMEM EXT4_FS VIRTIO_CONSOLE; do
		grep -B1 "^CONFIG_$o=" "$frag" | grep -q '^# need: required;' || { echo "CONFIG_$o is not required"; return 1; }
	done
}

# --- good configs
t_complete() {
	run "$data/complete.config"
	want_rc 0 && want_empty "$tmp/err" &&
		want_out "$tmp/out" "check-config: $data/complete.config: $nchecked options checked, 0 required missing, 0 recommended missing: OK"
}
t_gz_data() { gzip -dc "$data/complete.config.gz" | cmp -s - "$data/complete.config" || { echo "complete.config.gz is not complete.config gzipped"; return 1; }; }
t_gzip() {
	run "$data/complete.config.gz"
	want_rc 0 && want_out "$tmp/out" "check-config: $data/complete.config.gz: $nchecked options checked, 0 required missing, 0 recommended missing: OK"
}
t_stdin_gzip() {
	run - <"$data/complete.config.gz"
	want_rc 0 && want_out "$tmp/out" "check-config: -: $nchecked options checked, 0 required missing, 0 recommended missing: OK"
}
t_build_not_checked() {
	sed 's/^CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT=y$/CONFIG_DEBUG_INFO_DWARF5=y/' "$data/complete.config" >"$tmp/dwarf5.config"
	grep -q '^CONFIG_DEBUG_INFO_DWARF5=y' "$tmp/dwarf5.config" || { echo "test setup: no DWARF line to change"; return 1; }
	run "$tmp/dwarf5.config"
	want_rc 0
}

# --- bad configs
t_missing_required() {
	run "$data/missing-required.config"
	want_rc 1 && want_empty "$tmp/err" && want_out "$tmp/out" "MISSING CONFIG_FS_DAX (required): $(why_of FS_DAX)
check-config: $data/missing-required.config: $nchecked options checked, 1 required missing, 0 recommended missing: FAIL"
}
t_stdin_plain() {
	run - <"$data/missing-required.config"
	want_rc 1 && grep -qx "MISSING CONFIG_FS_DAX (required): .*" "$tmp/out" ||
		{ echo "no MISSING CONFIG_FS_DAX line: $(cat "$tmp/out")"; return 1; }
}
t_wrong_module() {
	run "$data/wrong-module.config"
	want_rc 1 && want_out "$tmp/out" "WRONG CONFIG_EXT4_FS=m, want y (required): $(why_of EXT4_FS)
check-config: $data/wrong-module.config: $nchecked options checked, 1 required missing, 0 recommended missing: FAIL"
}
t_module_accepted() {
	grep -q '^CONFIG_XFS_FS=m$' "$data/complete.config" || { echo "test data: complete.config has no XFS_FS=m"; return 1; }
	run "$data/complete.config"
	want_rc 0 && ! grep -q XFS_FS "$tmp/out" || { echo "XFS_FS=m reported: $(cat "$tmp/out")"; return 1; }
}
t_missing_recommended() {
	run "$data/missing-recommended.config"
	want_rc 0 && want_out "$tmp/out" "MISSING CONFIG_XFS_FS (recommended): $(why_of XFS_FS)
check-config: $data/missing-recommended.config: $nchecked options checked, 0 required missing, 1 recommended missing: OK (parts of the suite will be skipped)"
}

# --- unreadable input and usage
t_garbage() {
	run "$data/garbage.txt"
	want_rc 2 && want_empty "$tmp/out" && want_out "$tmp/err" "check-config: $data/garbage.txt: no CONFIG_ lines: not a kernel config"
}
t_truncated_gzip() {
	run "$data/truncated.config.gz"
	want_rc 2 && want_out "$tmp/err" "check-config: cannot read config '$data/truncated.config.gz': corrupt gzip data"
}
t_no_such_file() {
	run "$data/no-such.config"
	want_rc 2 && want_out "$tmp/err" "check-config: cannot read config '$data/no-such.config': no such file"
}
t_directory() {
	run "$data"
	want_rc 2 && want_out "$tmp/err" "check-config: cannot read config '$data': is a directory"
}
t_usage_errors() {
	run --bogus "$data/complete.config"
	want_rc 2 && want_out "$tmp/err" "check-config: unknown option '--bogus' (try -h)" || return 1
	run "$data/complete.config" "$data/complete.config"
	want_rc 2 && want_out "$tmp/err" "check-config: one CONFIG at most, got 2 (try -h)" || return 1
	run --fragment
	want_rc 2 && want_out "$tmp/err" "check-config: --fragment needs a file (try -h)"
}
t_help() {
	run -h
	want_rc 0 && grep -q '^usage: check-config.sh \[--json\] \[--fragment F\] \[CONFIG\]$' "$tmp/out" &&
		grep -q '^Examples:$' "$tmp/out" || { echo "no usage/Examples: $(head -n 3 "$tmp/out")"; return 1; }
}
t_bad_fragment() {
	run --fragment "$data/bad-fragment.config" "$data/complete.config"
	want_rc 2 && want_out "$tmp/err" "check-config: $data/bad-fragment.config:4: option without \"# why:\" and \"# need:\" lines before it"
}

# --- JSON
t_json_missing() {
	run --json "$data/wrong-module.config"
	want_rc 1 || return 1
	jq -e --arg why "$(why_of EXT4_FS)" --arg cfg "$data/wrong-module.config" --argjson n "$nchecked" '
		.config == $cfg and .ok == false and .checked == $n and .required_missing == 1 and
		.recommended_missing == 0 and (.missing | length) == 1 and
		.missing[0] == {option: "CONFIG_EXT4_FS", severity: "required", have: "m", want: "y", why: $why}' \
		"$tmp/out" >/dev/null || { echo "JSON: $(head -c 400 "$tmp/out")"; return 1; }
}
t_json_complete() {
	run --json "$data/complete.config"
	want_rc 0 && jq -e --argjson n "$nchecked" '.ok == true and .missing == [] and .checked == $n' "$tmp/out" >/dev/null ||
		{ echo "JSON: $(head -c 400 "$tmp/out")"; return 1; }
}
t_json_escaping() {
	printf '%s\n' '# why: say "hi" \ and	tab; without it nothing' '# need: recommended; accept: y m' 'CONFIG_QUOTED=y' >"$tmp/q.config"
	run --json --fragment "$tmp/q.config" "$data/complete.config"
	want_rc 0 && jq -e '.missing[0].why == "say \"hi\" \\ and\ttab; without it nothing" and .missing[0].want == "y or m" and .missing[0].have == "n"' \
		"$tmp/out" >/dev/null || { echo "JSON: $(head -c 400 "$tmp/out")"; return 1; }
}

ktap_plan_checks "$0"
ktap_start
ktap_check fragment_blocks_are_why_need_option t_fragment_lint
ktap_check fragment_has_the_suite_options t_fragment_has_suite_options
ktap_check complete_config_passes t_complete
ktap_check gz_test_data_matches_plain t_gz_data
ktap_check gzipped_config_passes t_gzip
ktap_check gzipped_stdin_passes t_stdin_gzip
ktap_check build_only_options_not_checked t_build_not_checked
ktap_check missing_required_fails t_missing_required
ktap_check plain_stdin_missing_required_fails t_stdin_plain
ktap_check module_where_only_y_accepted_fails t_wrong_module
ktap_check module_accepted_where_y_m t_module_accepted
ktap_check missing_recommended_warns_exit_0 t_missing_recommended
ktap_check garbage_exit_2 t_garbage
ktap_check truncated_gzip_exit_2 t_truncated_gzip
ktap_check no_such_file_exit_2 t_no_such_file
ktap_check directory_exit_2 t_directory
ktap_check usage_errors_exit_2 t_usage_errors
ktap_check help_prints_usage_and_examples t_help
ktap_check malformed_fragment_exit_2 t_bad_fragment
ktap_check json_wrong_module t_json_missing
ktap_check json_complete t_json_complete
ktap_check json_escapes_why t_json_escaping
ktap_finish
