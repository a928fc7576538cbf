/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records numab_vmas.bpf.c writes to its iterator's seq_file: one
 * NB_REC_MM record first, then one NB_REC_VMA record per VMA in address
 * order.  Shared by the BPF program and numabctl (backend.c).  A field the
 * kernel lacks (CO-RE field-existence check) has its NB_H_* bit clear in
 * @have and reads 0: absent, not zero.
 */
#ifndef NUMAB_REC_H
#define NUMAB_REC_H

#define NB_REC_MM	1
#define NB_REC_VMA	2
#define NB_REC_VERSION	1

/* @have of a VMA record: the vma_numab_state fields the kernel has */
#define NB_H_START_SEQ		(1u << 0)
#define NB_H_PREV_SEQ		(1u << 1)
#define NB_H_PROMO_SEQ		(1u << 2)
#define NB_H_PIDS		(1u << 3)
#define NB_H_PID_RESET		(1u << 4)
#define NB_H_NEXT_SCAN		(1u << 5)
#define NB_H_PROMO_ONLY		(1u << 6)
#define NB_H_SCANS		(1u << 7)
#define NB_H_PROMO_SCANS	(1u << 8)
#define NB_H_PTE_UPDATES	(1u << 9)
#define NB_H_SKIP_DELAY		(1u << 10)
#define NB_H_SKIP_SEQ		(1u << 11)
#define NB_H_SKIP_PID		(1u << 12)
#define NB_H_LAST_SKIP		(1u << 13)
#define NB_H_POLICY		(1u << 14)	/* vm_policy, vm_ops->get_policy (CONFIG_NUMA) */
#define NB_H_PROMO_BACKOFF	(1u << 15)	/* kernels that bound it in time */
/* @have of the MM record */
#define NB_H_MM_SEQ		(1u << 0)
#define NB_H_MM_OFFSET		(1u << 1)
#define NB_H_MM_NEXT		(1u << 2)
#define NB_H_MM_FILTERS		(1u << 3)	/* mm->numab_filters (numab series) */
#define NB_H_MM_PERIOD		(1u << 4)	/* task->numa_scan_period */
#define NB_H_MM_TASKPOL		(1u << 5)	/* task->mempolicy (CONFIG_NUMA) */

/* @flags of a VMA record */
#define NB_F_STATE		(1u << 0)	/* vma->numab_state != NULL */
#define NB_F_FILE		(1u << 1)
#define NB_F_HEAP		(1u << 2)	/* vma_is_initial_heap() */
#define NB_F_STACK		(1u << 3)	/* vma_is_initial_stack() */
#define NB_F_ANON		(1u << 4)	/* vma_is_anonymous(): no vm_ops */
#define NB_F_VMPOL		(1u << 5)	/* has its own vm_policy */
#define NB_F_VMPOL_MOF		(1u << 6)	/* ... with MPOL_F_MOF */
#define NB_F_GETPOL		(1u << 7)	/* vm_ops->get_policy (shmem) */
#define NB_F_DAX		(1u << 8)	/* file inode has S_DAX */
#define NB_F_GFP_LOW		(1u << 9)	/* file mapping allocates from DMA/DMA32 */
/* @flags of the MM record */
#define NB_F_TASKPOL_MOF	(1u << 0)	/* task policy (or default) has MPOL_F_MOF */

/* last_skip: numabctl's index of the reason (0 none, 255 unknown) */
enum {
	NB_SKIP_NONE, NB_SKIP_UNSUITABLE, NB_SKIP_SHARED_RO, NB_SKIP_INACCESSIBLE,
	NB_SKIP_SCAN_DELAY, NB_SKIP_PID_INACTIVE, NB_SKIP_IGNORE_PID,
	NB_SKIP_SEQ_COMPLETED, NB_SKIP_PID_INACTIVE_PROMO, NB_SKIP_PROMO_BACKOFF,
	NB_SKIP_SHARED_RO_PROMO, NB_SKIP_NR,
	NB_SKIP_UNKNOWN = 255,
};

/* the program's one-entry state map */
struct nb_state {
	__s32 target_tgid;	/* the process */
	__u32 mm_done;		/* the MM record is out */
	__u64 mm_seen;		/* the mm of the walk */
	__u64 start_brk, brk, start_stack;	/* the mm's, for heap and stack */
};

struct nb_rec {
	__u32 kind;		/* NB_REC_* */
	__u32 have;		/* NB_H_* */
	__u32 flags;		/* NB_F_* */
	__u32 nr_threads;	/* MM: task->signal->nr_threads */
	__u64 start, end;	/* VMA: the range; MM: start = numa_scan_offset */
	__u64 vm_flags;		/* VMA: vm_flags; MM: numab_filters */
	__u64 pids[2];		/* pids_active[] */
	__s64 next_scan;	/* jiffies from now to next_scan (MM: numa_next_scan) */
	__s64 pid_reset;	/* jiffies from now to pids_active_reset */
	__u64 jiffies;		/* MM: jiffies_64 at the read (0: numa_next_scan unset) */
	__u64 ktime_ns;		/* MM: CLOCK_MONOTONIC at the read */
	__s32 start_seq;	/* VMA: start_scan_seq; MM: numa_scan_seq */
	__s32 prev_seq, promo_seq;
	__u32 pte_updates, skip_pid;
	__u32 scan_period;	/* MM: task->numa_scan_period, ms */
	__u32 tgid, tid;	/* MM: the task whose mm was read */
	__u16 scans, promo_scans, skip_delay, skip_seq;
	__u8 promo_only, last_skip, version, promo_backoff, pad[4];
};

#endif
