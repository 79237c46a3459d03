/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every BPF tool classifies a DAX fault by: its filesystem, its size,
 * what dax_iomap_fault returned. One numbering for the BPF side
 * (vmlinux.h types) and user space, so only plain enums here.
 * FS_OTHER is 0: a record nobody classified reads as "other".
 */
#ifndef PROBE_KINDS_H
#define PROBE_KINDS_H

enum fault_fs { FS_OTHER, FS_EXT4, FS_XFS, FS_NR };

/* From dax_iomap_fault's 2nd argument (size_class() in common.bpf.h). */
enum fault_size { FAULT_SZ_PTE, FAULT_SZ_PMD, FAULT_SZ_OTHER, FAULT_SZ_NR };

/* What dax_iomap_fault returned, most telling bit first. */
enum fault_outcome { OC_NOPAGE, OC_NEEDDSYNC, OC_FALLBACK, OC_SIGBUS, OC_OTHER, OC_NR };

/* "ext4", "pte", "needdsync", ...; "other" for a value out of range. */
const char *fault_fs_name(unsigned int fs);
const char *fault_size_name(unsigned int size);
const char *fault_outcome_name(unsigned int outcome);

#endif /* PROBE_KINDS_H */
