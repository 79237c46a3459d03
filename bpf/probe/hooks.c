// SPDX-License-Identifier: GPL-2.0
/*
 * Where the kernel has what the tools trace: one row per logical hook, its
 * candidates in preference order. A kernel that renames a function gets a
 * candidate here (with a variant only if its signature differs), and every
 * tool follows. See probe.h for the fields and the program names.
 */
#include "probe.h"

const struct probe_hook probe_hooks[HOOK_NR] = {
	[HOOK_FAULT] = { "fault", 0, { { "dax_iomap_fault" } } },
	[HOOK_FAULT_ITER] = { "fault_iter", 0, { { "dax_fault_iter" } } },
	[HOOK_SYNC] = { "sync", 0, { { "dax_finish_sync_fault" } } },
	[HOOK_FSYNC] = { "fsync", 0, { { "vfs_fsync_range" } } },
	[HOOK_EXT4_IOMAP] = { "ext4_iomap", 0, { { "ext4_iomap_begin" } } },
	/* xfs_file_iomap_begin up to 5.4 took (inode, offset, length, flags,
	 * iomap): the first five arguments the tools read, no srcmap. */
	[HOOK_XFS_IOMAP] = { "xfs_iomap", 0, {
		{ "xfs_direct_write_iomap_begin" },
		{ "xfs_file_iomap_begin" },
	} },
	/* PTE: vmf_insert_mixed_mkwrite (5.10 to 6.12), vmf_insert_page_mkwrite
	 * (6.18); vmf_insert_mixed (read faults) is writable only through a
	 * writable vm_page_prot. PMD: vmf_insert_pfn_pmd_prot (5.10 to 6.12),
	 * vmf_insert_folio_pmd (6.18); vmf_insert_pfn_pmd is a function again
	 * in 6.18. */
	[HOOK_INSERT_PTE] = { "insert_pte", PROBE_EVERY, {
		{ "vmf_insert_mixed_mkwrite", "mixed" },
		{ "vmf_insert_page_mkwrite", "page" },
		{ "vmf_insert_mixed", "mixed_ro" },
	} },
	[HOOK_INSERT_PMD] = { "insert_pmd", PROBE_EVERY, {
		{ "vmf_insert_pfn_pmd_prot", "prot" },
		{ "vmf_insert_folio_pmd", "folio" },
		{ "vmf_insert_pfn_pmd", "pfn" },
	} },
	[HOOK_XFS_CKPT] = { "xfs_ckpt", 0, { { "xlog_cil_committed" } } },
	[HOOK_XFS_LOG_FORCE] = { "xfs_log_force", 0, { { "xfs_log_force_seq" } } },
	[HOOK_XFS_COMMITTING] = { "xfs_committing", 0, { { "xfs_inode_item_committing" } } },
	[HOOK_JBD2_DIRTY] = { "jbd2_dirty", 0, { { "jbd2_journal_dirty_metadata" } } },
	/* do_wp_page -> wp_pfn_shared -> finish_mkwrite_fault -> wp_page_reuse
	 * when ->pfn_mkwrite returned 0 (the last is inlined) */
	[HOOK_WP_REUSE] = { "wp_reuse", 0, { { "finish_mkwrite_fault" } } },
	[HOOK_DAX_ACCESS] = { "dax_access", 0, { { "dax_direct_access" } } },
	/* ext4 funnels every DAX fault through ext4_dax_huge_fault; xfs
	 * through __xfs_filemap_fault up to 6.12, later through its outer
	 * entry points. */
	[HOOK_FS_HANDLER] = { "fs_handler", PROBE_EVERY, {
		{ "ext4_dax_huge_fault" },
		{ "__xfs_filemap_fault" },
		{ "xfs_filemap_fault", .unless = "__xfs_filemap_fault" },
		{ "xfs_filemap_huge_fault", .unless = "__xfs_filemap_fault" },
		{ "xfs_filemap_page_mkwrite", .unless = "__xfs_filemap_fault" },
		{ "xfs_filemap_pfn_mkwrite", .unless = "__xfs_filemap_fault" },
	} },
	[HOOK_PTE_START] = { "pte_start", PROBE_TP, { { "dax_pte_fault" } }, "fs_dax" },
	[HOOK_PMD_START] = { "pmd_start", PROBE_TP, { { "dax_pmd_fault" } }, "fs_dax" },
	[HOOK_PTE_DONE] = { "pte_done", PROBE_TP, { { "dax_pte_fault_done" } }, "fs_dax" },
	[HOOK_PMD_DONE] = { "pmd_done", PROBE_TP, { { "dax_pmd_fault_done" } }, "fs_dax" },
	[HOOK_MKWRITE] = { "mkwrite", PROBE_TP, { { "dax_insert_pfn_mkwrite" } }, "fs_dax" },
	[HOOK_MKWRITE_NO_ENTRY] = { "mkwrite_no_entry", PROBE_TP,
				    { { "dax_insert_pfn_mkwrite_no_entry" } }, "fs_dax" },
	[HOOK_JBD2_START] = { "jbd2_start", PROBE_TP, { { "jbd2_start_commit" } }, "jbd2" },
	[HOOK_JBD2_END] = { "jbd2_end", PROBE_TP, { { "jbd2_end_commit" } }, "jbd2" },
	[HOOK_JBD2_LOCKING] = { "jbd2_locking", PROBE_TP, { { "jbd2_commit_locking" } }, "jbd2" },
	[HOOK_JBD2_FLUSHING] = { "jbd2_flushing", PROBE_TP, { { "jbd2_commit_flushing" } }, "jbd2" },
	[HOOK_JBD2_LOGGING] = { "jbd2_logging", PROBE_TP, { { "jbd2_commit_logging" } }, "jbd2" },
	[HOOK_SCHED_SWITCH] = { "sched_switch", PROBE_TP | PROBE_NOPREEMPT, { { "sched_switch" } }, "sched" },
	[HOOK_SCHED_WAKING] = { "sched_waking", PROBE_TP | PROBE_NOPREEMPT, { { "sched_waking" } }, "sched" },
	[HOOK_SCHED_WAKEUP] = { "sched_wakeup", PROBE_TP | PROBE_NOPREEMPT, { { "sched_wakeup" } }, "sched" },
	[HOOK_WQ_START] = { "wq_start", PROBE_TP, { { "workqueue_execute_start" } }, "workqueue" },
	/* submit_bio_noacct_nocheck and bio_endio: every bio, pmem's (a
	 * bio-based driver, no request) included */
	[HOOK_BIO_QUEUE] = { "bio_queue", PROBE_TP, { { "block_bio_queue" } }, "block" },
	[HOOK_BIO_COMPLETE] = { "bio_complete", PROBE_TP, { { "block_bio_complete" } }, "block" },
};
