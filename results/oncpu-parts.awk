# The faulting thread's on-CPU samples in its metadata sync (daxlat
# --folded --oncpu: lines ending ";--;[on CPU] NS"), by what it was doing:
# the first rule of the table below that a frame of the stack matches
# (leaf first; the last rule matches every stack that reached the fsync:
# a sample at its edges, where a trampoline may stop the unwinder).
# One markdown row: | K | FS | ON-CPU MS | SAMPLES | part share, ... |
# (-v k= fs= samples=).
# Exit 1 without on-CPU samples.
BEGIN {
	# frame (a regular expression) -> part, tried in this order
	n = split("xlog_state_release_iclog|xlog_sync=iclog write (checksum, bio to pmem)\n" \
		"xlog_cil_push_now=CIL push queued and flushed\n" \
		"xlog_wait_on_iclog|xlog_wait=waiting for the iclog\n" \
		"jbd2_complete_transaction|jbd2_log_start_commit|__jbd2_log_start_commit=commit started\n" \
		"jbd2_log_wait_commit=waiting for the commit\n" \
		"file_write_and_wait_range|file_check_and_advance_wb_err=data writeback\n" \
		"xfs_file_fsync|ext4_sync_file=the fsync itself\n" \
		"bpf_.*|htab_.*|__bpf_tramp.*|cleanup_module|ftrace_trampoline|aggr_pre_handler|pre_handler_kretprobe|.*rethook.*|kretprobe_.*|kprobe_.*=the tracer's own hooks\n" \
		"vfs_fsync_range|dax_finish_sync_fault=the call into or out of the fsync", rule, "\n")
	for (i = 1; i <= n; i++) {
		split(rule[i], kv, "=")
		re[i] = "^(" kv[1] ")([.][a-z0-9.]+)?$"; name[i] = kv[2]
	}
}
/;--;\[on CPU\] [0-9]+$/ {
	ns = $NF; line = $0; sub(/;--;\[on CPU\] [0-9]+$/, "", line)
	m = split(line, fr, ";")
	part = "other"
	for (i = 1; i <= n && part == "other"; i++)
		for (j = m; j >= 2; j--)
			if (fr[j] ~ re[i]) { part = name[i]; break }
	by[part] += ns; total += ns
}
END {
	if (!total) exit 1
	out = ""
	for (p in by) order[p] = by[p]
	while (1) {
		best = ""
		for (p in order) if (best == "" || order[p] > order[best]) best = p
		if (best == "") break
		out = out (out == "" ? "" : ", ") sprintf("%s %.0f %%", best, 100 * order[best] / total)
		delete order[best]
	}
	printf "| %s | %s | %.1f | %s | %s |\n", k, fs, total / 1e6, samples, out
}
