/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure line parsers for the files numabctl reads.  Every parser takes one
 * line (pointer + length, no NUL needed), never allocates and never reads
 * past the given length, so each can be fuzzed on its own (fuzz/).
 * They return 0 on success and -1 on a malformed line.
 */
#ifndef NUMAB_PARSE_H
#define NUMAB_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NX_MAX_NODES 1024
/*
 * The kernel.numa_balancing_filter_* settings: the VMA scan filters pid,
 * shared_ro, scan_delay, cpuset and shared_folio, and promo_slowdown,
 * which is no VMA filter but the scan-period rule for promotions
 */
#define NX_NFILTERS 6
enum {
	NX_F_PID, NX_F_SHARED_RO, NX_F_SCAN_DELAY, NX_F_CPUSET, NX_F_SHARED_FOLIO,
	NX_F_PROMO_SLOWDOWN,
};

struct nx_span {
	const char *p;
	size_t n;
};

/* A "key=value" token, or a bare word (val.p == NULL). */
struct nx_kv {
	struct nx_span key;
	struct nx_span val;
};

/* Next blank-separated token of [*pos, end); returns false at the end. */
bool nx_kv_next(const char **pos, const char *end, struct nx_kv *kv);
bool nx_span_eq(struct nx_span s, const char *lit);

int nx_parse_u64(const char *s, size_t n, int base, uint64_t *out);
int nx_parse_s64(const char *s, size_t n, int64_t *out);
/* "1.5M", "64KiB", "1GB" (10^9): util-linux's sizes; 0 or -1 */
int nx_parse_size(const char *s, size_t n, uint64_t *out);
/* "7f00-7f10" (hex, no 0x) */
int nx_parse_range(const char *s, size_t n, uint64_t *start, uint64_t *end);

struct nx_nodemask {
	uint64_t bits[NX_MAX_NODES / 64];
};
void nx_mask_set(struct nx_nodemask *m, unsigned int node);
bool nx_mask_test(const struct nx_nodemask *m, unsigned int node);
unsigned int nx_mask_weight(const struct nx_nodemask *m);
bool nx_mask_empty(const struct nx_nodemask *m);
/* "0-1,3" as in /sys/devices/system/node/online; empty list is valid */
int nx_parse_nodelist(const char *s, size_t n, struct nx_nodemask *m);
/* back to "0-1,3" */
void nx_format_nodelist(const struct nx_nodemask *m, char *buf, size_t sz);

/* /proc/<pid>/maps */
struct nx_maps_entry {
	uint64_t start, end;
	char perms[5];
	struct nx_span path;	/* may be empty */
};
int nx_parse_maps_line(const char *line, size_t len, struct nx_maps_entry *e);
/* its two halves, as nx_parse_numa_vmas_fast() and _general() (fuzz/ checks) */
int nx_parse_maps_fast(const char *line, size_t len, struct nx_maps_entry *e);
int nx_parse_maps_general(const char *line, size_t len, struct nx_maps_entry *e);
/* the same entry, field by field (padding is no part of it) */
bool nx_maps_entry_eq(const struct nx_maps_entry *a, const struct nx_maps_entry *b);

/* /proc/<pid>/numa_maps; pages are split with @slow (nodes not in top tier) */
struct nx_numa_maps_entry {
	uint64_t start;
	struct nx_span policy;
	struct nx_span name;	/* file path, "heap", "stack" or empty */
	uint64_t pagesize_kb;
	uint64_t pages_fast, pages_slow;
	uint64_t anon, dirty;
	bool huge;
};
int nx_parse_numa_maps_line(const char *line, size_t len,
			    const struct nx_nodemask *slow,
			    struct nx_numa_maps_entry *e);

/* /proc/<pid>/numa_vmas (numab ABI) */
struct nx_numab_mm {
	uint64_t scan_seq, scan_offset;
	int64_t next_scan_ms;
	unsigned int have;
	/*
	 * Effective filters, "filter_<name>=V:SRC" (per-process overrides); indexed like nx_filters[].  Bit i of filt_have: filter i
	 * was on the line; without it the source is NX_FSRC_UNKNOWN.
	 */
	unsigned int filt_have;
	unsigned char filt_val[NX_NFILTERS];
	unsigned char filt_src[NX_NFILTERS];
};
enum { NX_FSRC_UNKNOWN, NX_FSRC_SYSTEM, NX_FSRC_PROCESS };
enum {
	NV_HAVE_START_SEQ = 1u << 0,
	NV_HAVE_PREV_SEQ = 1u << 1,
	NV_HAVE_PIDS = 1u << 2,
	NV_HAVE_PID_RESET = 1u << 3,
	NV_HAVE_NEXT_SCAN = 1u << 4,
	NV_HAVE_PROMO_ONLY = 1u << 5,
	NV_HAVE_SCANS = 1u << 6,
	NV_HAVE_PROMO_SCANS = 1u << 7,
	NV_HAVE_PTE_UPDATES = 1u << 8,
	NV_HAVE_SKIP_DELAY = 1u << 9,
	NV_HAVE_SKIP_SEQ = 1u << 10,
	NV_HAVE_SKIP_PID = 1u << 11,
	NV_HAVE_LAST_SKIP = 1u << 12,
	NV_HAVE_FILTER = 1u << 13,
	NV_HAVE_STATE = 1u << 14,
	NV_HAVE_PROMO_SEQ = 1u << 15,
	NV_HAVE_PROMO_BACKOFF = 1u << 16,
	MM_HAVE_SEQ = 1u << 0,
	MM_HAVE_OFFSET = 1u << 1,
	MM_HAVE_NEXT = 1u << 2,
};
/*
 * A word of a VMA's scan state (a filter, state or skip reason name), in
 * one byte: an index into a table of the words seen, which starts with the
 * ones the kernel prints.  As the fixed buffers they replace, a word keeps
 * its first NX_SYM_LEN - 1 bytes; past 255 distinct words the rest read
 * "unknown".  20,000 VMAs hold 100 KB less per word than in 32-byte buffers.
 */
typedef uint8_t nx_sym_t;
#define NX_SYM_LEN 32
enum {
	NX_SYM_EMPTY,		/* "" */
	NX_SYM_NONE,
	NX_SYM_OK,
	NX_SYM_UNCERTAIN,
	NX_SYM_UNKNOWN,
	NX_SYM_PROMO_BACKOFF,
	NX_SYM_PID_INACTIVE,
	NX_SYM_PID_INACTIVE_PROMO,	/* pid_inactive_promo_only */
	NX_SYM_SCAN_DELAY,
	NX_SYM_NKNOWN,
};
nx_sym_t nx_sym(const char *s, size_t n);
nx_sym_t nx_sym_cstr(const char *s);
const char *nx_sym_str(nx_sym_t id);
/* empties the table (the known words come back): fuzz targets, one input each */
void nx_sym_reset(void);
/*
 * the word ends in "_promo_only": a filter or skip reason
 * (shared_ro_promo_only, pid_inactive_promo_only) that means the VMA is
 * scanned, for promotion only
 */
bool nx_sym_promo_only(nx_sym_t id);

/*
 * One VMA of numa_vmas (or the BPF backend's record), as small as the
 * kernel's values allow: a sequence is an int there (a wider one is a
 * malformed line), the counters at most u32 (a wider one saturates).
 * numabctl keeps one per VMA.
 */
struct nx_numab_vma {
	uint64_t start, end;
	struct nx_span name;
	uint64_t pids[2];
	int64_t pid_reset_ms, next_scan_ms;
	int32_t start_seq, prev_seq;	/* int in the kernel: -1 happens */
	int32_t promo_seq;	/* last promotion-only scan; newer kernels only */
	/*
	 * the next promotion-only scan waits 1 << promo_backoff sequences
	 * or as many minimum scan periods; kernels that bound it in time only
	 */
	uint32_t promo_backoff;
	uint32_t promo_only, scans, promo_scans, pte_updates;
	uint32_t skip_delay, skip_seq, skip_pid;
	unsigned int have;
	nx_sym_t filter;	/* as printed: none, shared_ro, shared_ro_promo_only, ... */
	/*
	 * filter "uncertain" (BPF backend, shmem without a memory policy):
	 * [0] on a kernel whose vma_policy_mof() does not fall back to the
	 * task policy for it, [1] on one that does (shmem.c)
	 */
	nx_sym_t maybe[2];
	nx_sym_t state;		/* ok / none */
	nx_sym_t last_skip;	/* e.g. pid_inactive_promo_only */
};
/* returns 1 for the "mm ..." header line, 0 for a VMA line, -1 malformed */
int nx_parse_numa_vmas_line(const char *line, size_t len,
			    struct nx_numab_mm *mm, struct nx_numab_vma *v);
/*
 * Its two halves: a fast path for a VMA line in the kernel's exact layout
 * (0, or -1 for any other line) and the general parser; where the fast
 * path succeeds both give the same result (fuzz/ checks).
 */
int nx_parse_numa_vmas_fast(const char *line, size_t len, struct nx_numab_vma *v);
int nx_parse_numa_vmas_general(const char *line, size_t len,
			       struct nx_numab_mm *mm, struct nx_numab_vma *v);

/* "key value" (vmstat) and "Node 0 Key:   123 kB" (node meminfo) */
int nx_parse_vmstat_line(const char *line, size_t len,
			 struct nx_span *key, uint64_t *val);
int nx_parse_meminfo_line(const char *line, size_t len,
			  struct nx_span *key, uint64_t *kb);

/* /proc/<pid>/sched: "key   :   value", or a raw line (key = whole line) */
int nx_parse_sched_line(const char *line, size_t len,
			struct nx_span *key, struct nx_span *val);

/* tracefs line of sched:sched_skip_vma_numa */
struct nx_trace_ev {
	int tid;
	uint64_t scan_offset, vm_start, vm_end;
	char reason[24];
};
int nx_parse_trace_line(const char *line, size_t len, struct nx_trace_ev *ev);

/* "kernel.numa_balancing_filter_pid = 2" or "pid=2" or "pid=tier" */
int nx_parse_filter_assign(const char *line, size_t len, int *idx, int *val);

/* filters */
struct nx_filter_desc {
	const char *name;	/* short name: pid, shared_ro, ... */
	int max;		/* highest valid value */
	int def;		/* kernel default */
	int legacy;		/* stock 6.12 behaviour */
	/* a setting some numab series lack: what a kernel without it lacks */
	const char *newer;
};
extern const struct nx_filter_desc nx_filters[NX_NFILTERS];
int nx_filter_index(const char *s, size_t n);
/* "off", "skip", "tier", "on" or a number; -1 if invalid for filter idx */
int nx_filter_value(int idx, const char *s, size_t n);
const char *nx_filter_value_name(int idx, int val);

/*
 * /proc/<pid>/numa_filters: "pid=V shared_ro=V ..." with V
 * "inherit" (NX_FILTER_INHERIT), a decimal, or a decimal and ":priv" (a
 * privileged override, set with CAP_SYS_NICE: it holds whatever the
 * sysctl); unknown names are ignored, an empty line (a kernel thread)
 * gives have == 0.
 */
#define NX_FILTER_INHERIT (-1)
struct nx_proc_filters {
	int val[NX_NFILTERS];	/* NX_FILTER_INHERIT or the override */
	unsigned int have;	/* bit i: filter i was on the line */
	unsigned int priv;	/* bit i: filter i's override is privileged */
};
int nx_parse_numa_filters_line(const char *line, size_t len, struct nx_proc_filters *pf);

/* octal escapes of seq_file paths (\040) decoded into buf */
void nx_unescape(struct nx_span s, char *buf, size_t sz);

/* Scan sequences from PREV (an int in the kernel, may be -1) to SEQ; 0 if ahead. */
static inline uint64_t nx_seqs_since(uint64_t seq, int64_t prev)
{
	return (int64_t)seq >= prev ? (uint64_t)((int64_t)seq - prev) : 0;
}

#endif
