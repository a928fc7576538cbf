/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel types numab_vmas.bpf.c reads, declared with only the fields it
 * uses: CO-RE (preserve_access_index) relocates every access against the
 * running kernel's BTF, so the layout here does not matter, only the names.
 * No vmlinux.h: the program builds without a kernel's BTF at hand.
 * vma_numab_state lists the numab series' fields as well; a kernel without
 * one fails its bpf_core_field_exists() check and the field is reported
 * absent.
 */
#ifndef NUMAB_TYPES_H
#define NUMAB_TYPES_H

#include <linux/types.h>

#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)

struct seq_file;

struct bpf_iter_meta {
	struct seq_file *seq;
	__u64 session_id;
	__u64 seq_num;
};

struct mempolicy {
	unsigned short mode;
	unsigned short flags;
};

struct vma_numab_state {
	unsigned long next_scan;
	unsigned long pids_active_reset;
	unsigned long pids_active[2];
	int start_scan_seq;
	int prev_scan_seq;
	/* the numab series (kernel/LINE/patches) */
	int promo_scan_seq;	/* u16 with promo_scan_time */
	__u16 promo_scan_time;
	_Bool promo_only;
	__u8 promo_backoff;
	__u8 last_skip;
	__u32 nr_pte_updates;
	__u32 nr_skip_pid;
	__u16 nr_scans;
	__u16 nr_promo_scans;
	__u16 nr_skip_delay;
	__u16 nr_skip_seq;
};

struct address_space {
	unsigned int gfp_mask;
};

struct inode {
	unsigned int i_flags;
};

struct file {
	struct address_space *f_mapping;
	struct inode *f_inode;
};

struct vm_area_struct;
struct vm_operations_struct {
	struct mempolicy *(*get_policy)(struct vm_area_struct *, unsigned long, unsigned long *);
};

struct mm_struct {
	int numa_scan_seq;
	unsigned long numa_scan_offset;
	unsigned long numa_next_scan;
	unsigned long start_brk, brk, start_stack;
	__u32 numab_filters;	/* the numab series' per-process overrides */
};

struct vm_area_struct {
	unsigned long vm_start;
	unsigned long vm_end;
	struct mm_struct *vm_mm;
	unsigned long vm_flags;
	const struct vm_operations_struct *vm_ops;
	struct file *vm_file;
	struct mempolicy *vm_policy;
	struct vma_numab_state *numab_state;
};

struct signal_struct {
	int nr_threads;
};

struct task_struct {
	int pid;
	int tgid;
	struct mm_struct *mm;
	struct signal_struct *signal;
	struct mempolicy *mempolicy;
	unsigned int numa_scan_period;
};

struct bpf_iter__task_vma {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
	struct vm_area_struct *vma;
};

/* the names of the series' skip reasons (include/linux/sched/numa_balancing.h) */
enum numa_vmaskip_reason {
	NUMAB_SKIP_UNSUITABLE,
	NUMAB_SKIP_SHARED_RO,
	NUMAB_SKIP_INACCESSIBLE,
	NUMAB_SKIP_SCAN_DELAY,
	NUMAB_SKIP_PID_INACTIVE,
	NUMAB_SKIP_IGNORE_PID,
	NUMAB_SKIP_SEQ_COMPLETED,
	NUMAB_SKIP_PID_INACTIVE_PROMO,
	NUMAB_SKIP_PROMO_BACKOFF,
	NUMAB_SKIP_SHARED_RO_PROMO,
};

#pragma clang attribute pop

#endif
