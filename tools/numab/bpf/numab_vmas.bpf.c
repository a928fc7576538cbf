// SPDX-License-Identifier: GPL-2.0
/*
 * numabctl's BPF backend: a task_vma iterator that writes, for one
 * process, what task_numa_work() knows about it, in the records of
 * numab_rec.h: the mm's scan position first, then per VMA its range, the
 * flags that decide which static filter applies, and its vma->numab_state.
 * The same state /proc/<pid>/numa_vmas of the numab series prints, read
 * on kernels without the series (any kernel with BTF and
 * CONFIG_NUMA_BALANCING).  Fields a kernel lacks are detected with CO-RE
 * field-existence checks and reported absent (NB_H_* bit clear).
 *
 * Reads are unlocked, like numa_vmas': the iterator holds mmap_lock for
 * reading, the scanner updates numab_state under it for reading too.
 */
#include "numab_types.h"
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "numab_rec.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * The process (set by numabctl after loading) and the iteration's state
 * (cleared by numabctl before each read).  An array map, not global data:
 * libbpf probes for global data with a socket filter program, which a
 * kernel without CONFIG_NET (the testbed's) cannot load.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct nb_state);
} state SEC(".maps");

#define VM_READ		0x00000001UL
#define VM_WRITE	0x00000002UL
#define VM_EXEC		0x00000004UL
#define MPOL_F_MOF	(1 << 3)
#define S_DAX		(1 << 13)
#define GFP_DMA_ZONES	(0x01u | 0x04u)	/* __GFP_DMA | __GFP_DMA32 */

static __always_inline int skip_index(int raw)
{
	int r = raw - 1;

	if (raw == 0)
		return NB_SKIP_NONE;
#define SKIP(E, I)							\
	if (bpf_core_enum_value_exists(enum numa_vmaskip_reason, E) &&	\
	    r == bpf_core_enum_value(enum numa_vmaskip_reason, E))	\
		return I;
	SKIP(NUMAB_SKIP_UNSUITABLE, NB_SKIP_UNSUITABLE)
	SKIP(NUMAB_SKIP_SHARED_RO, NB_SKIP_SHARED_RO)
	SKIP(NUMAB_SKIP_INACCESSIBLE, NB_SKIP_INACCESSIBLE)
	SKIP(NUMAB_SKIP_SCAN_DELAY, NB_SKIP_SCAN_DELAY)
	SKIP(NUMAB_SKIP_PID_INACTIVE, NB_SKIP_PID_INACTIVE)
	SKIP(NUMAB_SKIP_IGNORE_PID, NB_SKIP_IGNORE_PID)
	SKIP(NUMAB_SKIP_SEQ_COMPLETED, NB_SKIP_SEQ_COMPLETED)
	SKIP(NUMAB_SKIP_PID_INACTIVE_PROMO, NB_SKIP_PID_INACTIVE_PROMO)
	SKIP(NUMAB_SKIP_PROMO_BACKOFF, NB_SKIP_PROMO_BACKOFF)
	SKIP(NUMAB_SKIP_SHARED_RO_PROMO, NB_SKIP_SHARED_RO_PROMO)
#undef SKIP
	return NB_SKIP_UNKNOWN;
}

static __always_inline void emit_mm(struct seq_file *seq, struct task_struct *task,
				    struct mm_struct *mm)
{
	struct nb_rec r = {};
	struct mempolicy *pol;
	unsigned long next;

	r.kind = NB_REC_MM;
	r.version = NB_REC_VERSION;
	r.jiffies = bpf_jiffies64();
	r.ktime_ns = bpf_ktime_get_ns();
	r.tgid = BPF_CORE_READ(task, tgid);
	r.tid = BPF_CORE_READ(task, pid);
	r.nr_threads = BPF_CORE_READ(task, signal, nr_threads);
	if (bpf_core_field_exists(mm->numa_scan_seq)) {
		r.start_seq = BPF_CORE_READ(mm, numa_scan_seq);
		r.have |= NB_H_MM_SEQ;
	}
	if (bpf_core_field_exists(mm->numa_scan_offset)) {
		r.start = BPF_CORE_READ(mm, numa_scan_offset);
		r.have |= NB_H_MM_OFFSET;
	}
	/* 0: never set (no scan yet, e.g. balancing off since exec): absent, not "due now" */
	if (bpf_core_field_exists(mm->numa_next_scan)) {
		next = BPF_CORE_READ(mm, numa_next_scan);
		if (next) {
			r.next_scan = (long)(next - r.jiffies);
			r.have |= NB_H_MM_NEXT;
		}
	}
	if (bpf_core_field_exists(mm->numab_filters)) {
		r.vm_flags = BPF_CORE_READ(mm, numab_filters);
		r.have |= NB_H_MM_FILTERS;
	}
	if (bpf_core_field_exists(task->numa_scan_period)) {
		r.scan_period = BPF_CORE_READ(task, numa_scan_period);
		r.have |= NB_H_MM_PERIOD;
	}
	if (bpf_core_field_exists(task->mempolicy)) {
		pol = BPF_CORE_READ(task, mempolicy);
		/* none: the preferred-node or default policy, both MPOL_F_MOF */
		if (!pol || (BPF_CORE_READ(pol, flags) & MPOL_F_MOF))
			r.flags |= NB_F_TASKPOL_MOF;
		r.have |= NB_H_MM_TASKPOL;
	}
	bpf_seq_write(seq, &r, sizeof(r));
}

static __always_inline void read_state(struct nb_rec *r, struct vma_numab_state *ns,
				       __u64 now, struct mm_struct *mm)
{
	r->flags |= NB_F_STATE;
	if (bpf_core_field_exists(ns->start_scan_seq)) {
		r->start_seq = ns->start_scan_seq;
		r->have |= NB_H_START_SEQ;
	}
	if (bpf_core_field_exists(ns->prev_scan_seq)) {
		r->prev_seq = ns->prev_scan_seq;
		r->have |= NB_H_PREV_SEQ;
	}
	if (bpf_core_field_exists(ns->promo_scan_seq)) {
		/* an int, or its low 16 bits where promo_scan_time is */
		r->promo_seq = BPF_CORE_READ_BITFIELD(ns, promo_scan_seq);
		if (bpf_core_field_size(ns->promo_scan_seq) == 2) {
			int seq = mm->numa_scan_seq;

			r->promo_seq = seq - (__u16)(seq - r->promo_seq);
		}
		r->have |= NB_H_PROMO_SEQ;
	}
	if (bpf_core_field_exists(ns->promo_scan_time) &&
	    bpf_core_field_exists(ns->promo_backoff)) {
		r->promo_backoff = BPF_CORE_READ_BITFIELD(ns, promo_backoff);
		r->have |= NB_H_PROMO_BACKOFF;
	}
	if (bpf_core_field_exists(ns->pids_active)) {
		r->pids[0] = ns->pids_active[0];
		r->pids[1] = ns->pids_active[1];
		r->have |= NB_H_PIDS;
	}
	if (bpf_core_field_exists(ns->pids_active_reset)) {
		r->pid_reset = (long)(ns->pids_active_reset - now);
		r->have |= NB_H_PID_RESET;
	}
	if (bpf_core_field_exists(ns->next_scan)) {
		r->next_scan = (long)(ns->next_scan - now);
		r->have |= NB_H_NEXT_SCAN;
	}
	if (bpf_core_field_exists(ns->promo_only)) {
		r->promo_only = BPF_CORE_READ_BITFIELD(ns, promo_only);
		r->have |= NB_H_PROMO_ONLY;
	}
	if (bpf_core_field_exists(ns->nr_scans)) {
		r->scans = BPF_CORE_READ_BITFIELD(ns, nr_scans);
		r->have |= NB_H_SCANS;
	}
	if (bpf_core_field_exists(ns->nr_promo_scans)) {
		r->promo_scans = BPF_CORE_READ_BITFIELD(ns, nr_promo_scans);
		r->have |= NB_H_PROMO_SCANS;
	}
	if (bpf_core_field_exists(ns->nr_pte_updates)) {
		r->pte_updates = BPF_CORE_READ_BITFIELD(ns, nr_pte_updates);
		r->have |= NB_H_PTE_UPDATES;
	}
	if (bpf_core_field_exists(ns->nr_skip_delay)) {
		r->skip_delay = BPF_CORE_READ_BITFIELD(ns, nr_skip_delay);
		r->have |= NB_H_SKIP_DELAY;
	}
	if (bpf_core_field_exists(ns->nr_skip_seq)) {
		r->skip_seq = BPF_CORE_READ_BITFIELD(ns, nr_skip_seq);
		r->have |= NB_H_SKIP_SEQ;
	}
	if (bpf_core_field_exists(ns->nr_skip_pid)) {
		r->skip_pid = BPF_CORE_READ_BITFIELD(ns, nr_skip_pid);
		r->have |= NB_H_SKIP_PID;
	}
	if (bpf_core_field_exists(ns->last_skip)) {
		r->last_skip = skip_index(BPF_CORE_READ_BITFIELD(ns, last_skip));
		r->have |= NB_H_LAST_SKIP;
	}
}

/*
 * Per VMA, fields are read with direct loads (the iterator's task and vma
 * are BTF pointers: the verifier turns the loads into exception-handled
 * ones), cheaper than a bpf_probe_read_kernel() call each; a 20k-VMA walk
 * spends most of its time in these.  The fields of numab_state that only
 * the series has go through BPF_CORE_READ_BITFIELD(), a direct load whose
 * size, sign and bit position libbpf relocates: a kernel that declares one
 * of them otherwise reads it right, where a plain direct load of a field
 * of another size or sign would make libbpf poison it and the verifier
 * refuse the whole program.  Existence checks guard every optional field.
 */
SEC("iter/task_vma")
int numab_vmas(struct bpf_iter__task_vma *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;
	struct vm_area_struct *vma = ctx->vma;
	const struct vm_operations_struct *ops;
	struct vma_numab_state *ns;
	struct mm_struct *mm;
	struct mempolicy *pol;
	struct file *file;
	struct nb_rec r = {};
	struct nb_state *st;
	__u32 zero = 0;
	__u64 now;

	st = bpf_map_lookup_elem(&state, &zero);
	if (!st || !task || task->tgid != st->target_tgid)
		return 0;
	mm = task->mm;
	if (!mm)
		return 0;
	/* one thread's walk: kernels without the iterator's tid filter visit all */
	if (!st->mm_seen)
		st->mm_seen = (__u64)mm;
	if (st->mm_seen != (__u64)mm || task->pid != st->target_tgid)
		return 0;
	if (!st->mm_done) {
		emit_mm(seq, task, mm);
		/* the heap and stack bounds, read once for the walk */
		st->start_brk = mm->start_brk;
		st->brk = mm->brk;
		st->start_stack = mm->start_stack;
		st->mm_done = 1;
	}
	if (!vma)
		return 0;

	now = bpf_jiffies64();
	r.kind = NB_REC_VMA;
	r.version = NB_REC_VERSION;
	r.start = vma->vm_start;
	r.end = vma->vm_end;
	r.vm_flags = vma->vm_flags;
	file = vma->vm_file;
	ops = vma->vm_ops;
	if (file) {
		r.flags |= NB_F_FILE;
		if (file->f_inode->i_flags & S_DAX)
			r.flags |= NB_F_DAX;
		if (file->f_mapping->gfp_mask & GFP_DMA_ZONES)
			r.flags |= NB_F_GFP_LOW;
	} else if (r.start <= st->brk && r.end >= st->start_brk) {
		r.flags |= NB_F_HEAP;
	} else if (r.start <= st->start_stack && r.end >= st->start_stack) {
		r.flags |= NB_F_STACK;
	}
	if (!ops)
		r.flags |= NB_F_ANON;
	if (bpf_core_field_exists(vma->vm_policy)) {
		r.have |= NB_H_POLICY;
		pol = vma->vm_policy;
		if (pol) {
			r.flags |= NB_F_VMPOL;
			if (pol->flags & MPOL_F_MOF)
				r.flags |= NB_F_VMPOL_MOF;
		}
		if (ops && ops->get_policy)
			r.flags |= NB_F_GETPOL;
	}
	if (bpf_core_field_exists(vma->numab_state)) {
		ns = vma->numab_state;
		if (ns)
			read_state(&r, ns, now, mm);
	}
	bpf_seq_write(seq, &r, sizeof(r));
	return 0;
}
