/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the per-VMA scan state comes from (backend.c): /proc/<pid>/numa_vmas
 * of the numab series, a BPF task_vma iterator (bpf/numab_vmas.bpf.c) on
 * kernels without it, or nowhere (degraded: residency only).  Also the
 * release prediction of the legacy PID filter's fallback.
 */
#ifndef NUMABCTL_BACKEND_H
#define NUMABCTL_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "parse.h"

enum {
	NX_BACKEND_AUTO,
	NX_BACKEND_NUMA_VMAS,
	NX_BACKEND_BPF,
	NX_BACKEND_NONE,
};
/* --backend (NX_BACKEND_AUTO unless given) */
extern int nx_backend_opt;
/* "auto", "numa_vmas", "bpf", "none"; -1 if @s is none of them */
int nx_backend_parse(const char *s);
const char *nx_backend_name(int backend);

/* vmas' options: --backend, --rate, --numa-vmas */
#define NX_BACKEND_LONGOPTS \
	{ "backend",	required_argument, NULL, 0x1B0 }, \
	{ "rate",	required_argument, NULL, 0x1B1 }, \
	{ "numa-vmas",	no_argument,	   NULL, 0x1B2 }
#define NX_BACKEND_OPTS 0x1B0: case 0x1B1: case 0x1B2
#define NX_BACKEND_HELP \
	"      --backend B     where the scan state comes from: auto (default:\n" \
	"                      numa_vmas if the kernel has it, else bpf, else none),\n" \
	"                      numa_vmas, bpf (a BPF task_vma iterator) or none\n" \
	"      --rate SEC      measure the scan rate for at most SEC seconds when a\n" \
	"                      VMA waits for the PID filter's fallback (default 10,\n" \
	"                      0: sequences only)\n" \
	"      --numa-vmas     print the scan state in the format of\n" \
	"                      /proc/PID/numa_vmas (from any backend), not the table\n"
/* one of those; 0, or 1 after a usage message */
int nx_backend_opt_set(int c, const char *arg);
/* was --numa-vmas given?  Then these VMA filters of vmas apply to its lines */
bool nx_backend_dump(void);
void nx_backend_dump_filter(bool stranded, uint64_t min_size, bool nonzero);
struct nx_vmlist;
struct nx_vma;
/*
 * After nx_vmlist_load() in vmas: say which backend, measure the scan rate
 * if a prediction needs it; true if --numa-vmas printed everything.
 */
bool nx_vmas_backend_done(struct nx_vmlist *l);
/*
 * The RELEASE, RELEASE_S and RELEASE_ERR cells of @v (bufs of at least 32
 * bytes): the error is +- one sequence and the spread of the measured
 * sequence lengths over the sequences to wait.
 */
void nx_release_cells(const struct nx_vma *v, const struct nx_vmlist *l, const char **cells,
		      int col_seqs, int col_sec, int col_err, char *buf_seqs, char *buf_sec,
		      char *buf_err);

struct nx_table;
/*
 * status: "scan_state" (the backend vmas picks: numa_vmas, bpf or none)
 * and "bpf_backend" (yes, or why not: not built, no BTF, privileges,
 * lockdown)
 */
void nx_backend_status(struct nx_table *t);

/* was numabctl built with the BPF backend (clang, libbpf, bpftool)? */
bool nx_bpf_built(void);
/*
 * Could the BPF backend run here (built, live system, BTF, privileges,
 * lockdown)?  0 if so, else the exit code, with the reason in @why.
 */
int nx_bpf_usable(char *why, size_t sz);

/*
 * The program, loaded (bpfprog.c): from the per-boot cache of its
 * relocated instructions when that fits, else through libbpf's skeleton
 */
struct numab_vmas;
struct nx_bpf_prog {
	int prog_fd, map_fd;
	struct numab_vmas *skel;	/* a libbpf load; NULL from the cache */
	bool cached;
};
/* 0 or -errno */
int nx_bpf_prog_load(struct nx_bpf_prog *p);
void nx_bpf_prog_close(struct nx_bpf_prog *p);

/* what a BPF read saw besides the lines */
struct nx_bpf_info {
	long hz;		/* CONFIG_HZ used for the ms values, 0 unknown */
	char hz_how[48];	/* "kernel config" or "jiffies since boot" */
	long nr_threads;	/* signal->nr_threads */
	unsigned int scan_period_ms;	/* the task's numa_scan_period, 0 absent */
	long tid;		/* that task: the thread whose mm record it was */
	uint32_t numab_filters;	/* mm->numab_filters */
	bool have_filters;
	unsigned long records;
	unsigned long dropped;	/* records before the last one's end: a resumed walk */
	double seconds;		/* the read, from attach to the last record */
	double load_seconds;	/* loading the program */
	bool cached;		/* ... from the per-boot cache */
};
/* one record: @mm for the mm line (then @v is NULL), else @v */
typedef int (*nx_bpf_fn)(void *priv, const struct nx_numab_mm *mm,
			 const struct nx_numab_vma *v);
/*
 * Run the iterator on @pid: the mm line, then every VMA in address order,
 * converted to what nx_parse_numa_vmas_line() gives for numa_vmas.  The
 * filter is computed here from the flags the program emits (see
 * nx_bpf_filter()).  Returns 0 or an exit code; the reason in @err.
 */
int nx_bpf_read(pid_t pid, nx_bpf_fn fn, void *priv, struct nx_bpf_info *info,
		char *err, size_t errsz);

/*
 * The legacy PID filter's fallback (vma_is_accessed() of stock 6.12): a
 * VMA the scanning thread has not faulted in is scanned anyway once
 * numa_scan_seq > prev_scan_seq + get_nr_threads().
 */
struct nx_threads {
	long nr;		/* Threads: of /proc/<pid>/status, -1 unknown */
	uint64_t hash_bits;	/* hash_32(tid, 6) bits of the threads listed */
	long listed;		/* threads listed in /proc/<pid>/task */
};
void nx_threads_load(pid_t pid, struct nx_threads *t);
/*
 * The CPU time of @pid's busiest thread in ms (utime + stime of
 * /proc/<pid>/task/<tid>/stat), -1 unknown: a task's first scan waits for
 * scan_delay_ms of its own CPU time. One file a thread: read only for a
 * process that has not begun a scan.
 */
long nx_threads_cpu_ms_max(pid_t pid);
/* the CPU time of each thread of a process at one moment (report's scan pace) */
struct nx_thread_cpu {
	long tid, ms;
};
struct nx_threads_cpu {
	struct nx_thread_cpu *t;	/* the threads whose stat could be read, by tid */
	size_t n;
};
/* 0, or -1 when /proc/<pid>/task cannot be listed */
int nx_threads_cpu_load(pid_t pid, struct nx_threads_cpu *c);
void nx_threads_cpu_free(struct nx_threads_cpu *c);
/* the largest CPU time in @c, -1 if none */
long nx_threads_cpu_max(const struct nx_threads_cpu *c);
/*
 * The most CPU time a thread ran from @a to @b (a thread not in @a: all of
 * its own), -1 if @b has none; that thread into *@tid
 */
long nx_threads_cpu_ran(const struct nx_threads_cpu *a, const struct nx_threads_cpu *b,
			long *tid);
/*
 * Is @v one the PID filter skips now (mm scan_seq @seq, scan_offset
 * @offset)?  Then the sequences until the fallback scans it go to
 * *@release_in (0: in this sequence) and true is returned.
 */
bool nx_pid_release(const struct nx_numab_vma *v, const struct nx_numab_mm *mm,
		    const struct nx_threads *t, int64_t *release_in);

/* the process's scan rate */
struct nx_scan_rate {
	double sec_per_seq;	/* 0: unknown */
	double err;		/* +- seconds per sequence */
	double window;		/* seconds observed */
	int changes;		/* scan_seq increments seen */
	char how[96];
};
/*
 * Poll mm->numa_scan_seq (/proc/<pid>/sched) for at most @max_sec, until
 * three increments are seen: seconds per sequence between the first and
 * the last one.
 */
void nx_scan_rate_measure(pid_t pid, double max_sec, struct nx_scan_rate *r);
/* set release_in of every VMA of @l (and l->nr_threads if unknown) */
void nx_release_predict(struct nx_vmlist *l);
/*
 * "released by the legacy fallback in about N sequences (about 9 min)"
 * for a VMA with release_in >= 0, at l->sec_per_seq when known.
 */
void nx_release_text(const struct nx_vma *v, const struct nx_vmlist *l, char *buf, size_t sz);
/* "9 min", "45 s", "2.1 h" */
void nx_fmt_duration(double sec, char *buf, size_t sz);

#endif
