/* SPDX-License-Identifier: GPL-2.0 */
#ifndef NUMABCTL_H
#define NUMABCTL_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <json-c/json.h>
#include <libsmartcols.h>

#include "parse.h"

#define NUMABCTL_VERSION "0.1"

/* Exit codes (documented in numabctl(8)) */
enum {
	NX_OK = 0,
	NX_EUSAGE = 1,		/* bad command line */
	NX_ERUNTIME = 2,	/* I/O error, malformed input, other failure */
	NX_EPERM = 3,		/* permission denied: run as root / CAP_SYS_PTRACE */
	NX_ENOTSUP = 4,		/* kernel lacks the feature (numab ABI, tracefs, ...) */
	NX_ENOPROC = 5,		/* the process does not exist or exited mid-read */
	NX_EBUSY = 6,		/* another numabctl run holds the filters */
};

/* Options shared by all commands */
struct nx_opts {
	const char *sysroot;	/* "" or a directory prefix */
	const char *columns;	/* -o */
	const char *sort;	/* -x COL */
	bool json, compact, raw, pairs, noheadings, bytes, all_columns, list_columns;
	bool sysroot_given;	/* --sysroot, even an empty one (an error) */
	bool shell;		/* -y: shell-compatible column names with -P */
	/*
	 * The order of --output-all and --list-columns (comma-separated), if
	 * not the spec's; set by a command before nx_opts_done()
	 */
	const char *all_order;
};
extern struct nx_opts nx_opt;
extern const char *nx_cmd;
extern char **nx_argv;		/* the argv getopt works on, for error messages */	/* the command running, for "Try 'numabctl CMD --help'" */

/* Long options every command accepts; handled by nx_common_opt(). */
#define NX_COMMON_LONGOPTS \
	{ "sysroot",	required_argument, NULL, 'S' }, \
	{ "json",	optional_argument, NULL, 'J' }, \
	{ "raw",	no_argument,	   NULL, 'r' }, \
	{ "pairs",	no_argument,	   NULL, 'P' }, \
	{ "noheadings",	no_argument,	   NULL, 'n' }, \
	{ "output",	required_argument, NULL, 'o' }, \
	{ "output-all",	no_argument,	   NULL, 'A' }, \
	{ "list-columns", no_argument,	   NULL, 'H' }, \
	{ "sort",	required_argument, NULL, 'x' }, \
	{ "bytes",	no_argument,	   NULL, 'b' }, \
	{ "shell",	no_argument,	   NULL, 'y' }, \
	{ "help",	no_argument,	   NULL, 'h' }, \
	{ "version",	no_argument,	   NULL, 'V' }
/* J:: so that -Jcompact works; -J=compact is taken too */
#define NX_COMMON_SHORTOPTS "J::rPno:Hx:byhV"
/*
 * returns 0 handled, 1 if help was asked, -1 unknown option, 2 bad
 * argument, 3 if the version was asked
 */
int nx_common_opt(int c, const char *arg);
/*
 * For the default: branch of a command's getopt loop.  Returns -1 when the
 * option was a common one (go on), else the exit code to return (help
 * printed: 0, unknown option: 1).
 */
int nx_opt_other(int c, const char *arg, void (*usage)(FILE *));
/*
 * After a command's getopt loop: options that conflict (-J with -r or -P,
 * an empty -o, a --sysroot that is not a directory) are an error.
 * @spec/@nspec: the command's columns (NULL: it has none, so -o, -x,
 * --output-all and --list-columns are errors); --list-columns lists them.
 * Returns -1 to go on, else the exit code (0 after --list-columns).
 */
struct nx_colspec;
int nx_opts_done(const struct nx_colspec *spec, size_t nspec);
/* "numabctl: MSG" and "Try 'numabctl CMD --help'"; returns NX_EUSAGE */
int nx_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* the Try line was printed (main adds it to an exit 1 without one) */
extern bool nx_usage_hinted;
/* the output is '-' (stdout) or a file: write @data there */
int nx_write_output(const char *file, const char *data, size_t len);
/* close_stdout() of util-linux: a write error on stdout is an error */
void nx_close_stdout(void);

/* util.c */
void nx_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* while set, nx_warn() prints nothing (export reading every process) */
extern bool nx_warn_quiet;
int nx_path(char *buf, size_t sz, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int nx_read_str(const char *path, char *buf, size_t sz);	/* 0 or -errno */
int nx_read_long(const char *path, long *v);		/* 0 or -errno */
int nx_write_long(const char *path, long v);		/* 0 or -errno */
bool nx_exists(const char *path);
/*
 * What to do about a permission error: "run as root (or with @caps)", or,
 * when numabctl is root already, what else can deny it (a static buffer)
 */
const char *nx_root_hint(const char *caps);
/* Print why @path could not be read and return the exit code for it. */
int nx_file_error(const char *path, int err);
/* Same for a file the user named (--restore, --input, --file): not the kernel's */
int nx_user_file_error(const char *path, int err);
/* Same for /proc/<pid>/...: tells a vanished process apart. */
int nx_pid_error(pid_t pid, const char *path, int err);
/*
 * a PID operand (or "self"); a thread ID is taken as its process (the Tgid
 * of /proc/TID/status), as /proc/TID itself does
 */
int nx_parse_pid(const char *s, pid_t *pid);
/* the single PID operand after the options: -1 if fine, else the exit code */
int nx_pid_operand(int argc, char **argv, void (*usage)(FILE *), pid_t *pid);
int nx_parse_seconds(const char *s, double *sec);
void nx_human_size(uint64_t bytes, char *buf, size_t sz);
/*
 * write @data of @len to @path: a regular file atomically (temp file and
 * rename, its mode kept), anything else (device, FIFO, symlink) through,
 * like the shell's '>'; 0 or -errno
 */
int nx_write_file(const char *path, const char *data, size_t len);
int nx_write_atomic(const char *path, const char *data, size_t len);
/*
 * An output file (report -w, export -w), opened or checked before any work,
 * as the shell's '>' is before the command runs: a write-through target (a
 * device, a FIFO, a symbolic link, a file in a directory numabctl may not
 * write) is opened now and written at the end; for a regular file that is
 * replaced atomically, a temporary file beside it is made and removed now.
 * @atomic_only (export): a regular file is only ever replaced, a symbolic
 * link to one has its target replaced.  "-" is standard output.
 */
struct nx_out {
	const char *path;
	char real[4096];	/* the file replaced (a symbolic link's target) */
	int fd;			/* opened now, written through at the end; or -1 */
	bool atomic_only;
};
int nx_out_open(struct nx_out *o, const char *path, bool atomic_only);	/* 0 or -errno */
int nx_out_write(struct nx_out *o, const char *data, size_t len);	/* 0 or -errno; closes */
void nx_out_close(struct nx_out *o);	/* without writing: the file as it was */
/*
 * why the last nx_write_atomic() failed when errno alone misleads (the old
 * file's owner cannot be kept without CAP_CHOWN, a sticky directory), or ""
 */
const char *nx_write_cause(void);
typedef int (*nx_line_fn)(void *priv, const char *line, size_t len, unsigned long lineno);
/* stream @path line by line through @fn; returns 0 or -errno */
int nx_for_each_line(const char *path, nx_line_fn fn, void *priv);
/* util.c: fast formatting into @buf (at least 24 bytes); returns @buf */
char *nx_fmt_u64(char *buf, uint64_t v);
char *nx_fmt_s64(char *buf, int64_t v);
char *nx_fmt_hex(char *buf, uint64_t v);
/* the length of the valid UTF-8 sequence at @p (of @n bytes), 0 if none */
size_t nx_utf8_len(const unsigned char *p, size_t n);
double nx_now(void);
/* the wall clock, Unix time in seconds (CLOCK_REALTIME) */
double nx_now_real(void);
void nx_sleep(double sec);

/* output.c: libsmartcols glue */
struct nx_colspec {
	const char *name;
	double whint;
	int flags;
	int jtype;		/* SCOLS_JSON_* */
	const char *help;
};

#define NX_MAX_COLS 48
#define NX_MAX_SPEC 64		/* columns a command can offer */
struct nx_table {
	struct libscols_table *tb;
	const struct nx_colspec *spec;
	size_t nspec;		/* entries of spec */
	int ncols;
	int ids[NX_MAX_COLS];	/* output column -> spec index */
	signed char out[NX_MAX_SPEC];	/* spec index -> first output column or -1 */
	size_t width[NX_MAX_COLS];	/* widest cell, for nx_table_emit */
	bool unsafe;		/* a cell libsmartcols would escape: no streaming */
	size_t fast_rows;	/* rows nx_table_emit laid out without libsmartcols */
	char keys[NX_MAX_COLS][24];	/* JSON member names: column names in lower case */
	bool sort_hidden;	/* the last column is -x COL, not asked for: hidden */
};
/* @cols: the user's -o list ("+COL" adds to @defaults), NULL for defaults */
int nx_table_init(struct nx_table *t, const char *name,
		  const struct nx_colspec *spec, size_t nspec,
		  const char *defaults, const char *cols);
struct libscols_line *nx_table_line(struct nx_table *t);
void nx_table_set(struct nx_table *t, struct libscols_line *ln, int spec_id,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void nx_table_size(struct nx_table *t, struct libscols_line *ln, int spec_id,
		   uint64_t bytes);
int nx_table_print(struct nx_table *t, FILE *out);
/* the first output column of spec column @spec_id, or -1 */
static inline int nx_table_out(const struct nx_table *t, int spec_id)
{
	return spec_id >= 0 && spec_id < NX_MAX_SPEC ? t->out[spec_id] : -1;
}

/* is spec column @spec_id printed? */
static inline bool nx_table_wants(const struct nx_table *t, int spec_id)
{
	return nx_table_out(t, spec_id) >= 0;
}
/* one line from @cells, indexed by spec column (NULL: no data) */
void nx_table_row(struct nx_table *t, const char *const *cells);
/*
 * Row @i of a table built by nx_table_emit: fill @cells (indexed by spec
 * column, all NULL on entry) and return true, or false to leave it out.
 */
typedef bool (*nx_row_fn)(void *priv, size_t i, const char **cells);
/*
 * Build and print the @n candidate rows of @fn.  Big tables go out in
 * chunks of one libsmartcols table each, with the column widths of the
 * whole table (same bytes, bounded memory); terminals and cells
 * libsmartcols would escape use one table.  JSON goes out in chunks whose
 * rows are spliced out of libsmartcols' documents.  libsmartcols lays out the
 * first chunk; if fast_row() gives the same bytes for it, the rows after
 * it are laid out the same way without libsmartcols (its width and
 * encoding pass costs about 3 us per row).
 */
int nx_table_emit(struct nx_table *t, FILE *out, size_t n, nx_row_fn fn, void *priv);
/* "%.1f" of @pct; @buf at least 32 bytes */
char *nx_fmt_pct(char *buf, double pct);
/* a size cell: bytes with -b or -J, else K, M, G; @buf at least 32 bytes */
char *nx_fmt_size(char *buf, uint64_t bytes);
void nx_table_free(struct nx_table *t);
void nx_print_columns_help(FILE *out, const struct nx_colspec *spec, size_t nspec);
/* simple two-column KEY/VALUE tables for status/report */
int nx_kv_table_init(struct nx_table *t, const char *name);
void nx_kv_add(struct nx_table *t, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* a numeric value (a number in JSON); @val NULL: unknown ("-", null) */
void nx_kv_num(struct nx_table *t, const char *key, const char *val);
/* @val of @n bytes: a JSON number when it is a decimal number, else a string */
void nx_kv_value(struct nx_table *t, const char *key, const char *val, size_t n);
/* a yes/no value (a boolean in JSON); @val < 0: unknown ("-", null) */
void nx_kv_bool(struct nx_table *t, const char *key, int val);
/* a table as one JSON array of objects, typed by column (json-c) */
struct json_object *nx_table_json(struct nx_table *t);
/* a JSON string of @s, valid UTF-8: a byte that is not is the text \\xNN */
struct json_object *nx_json_string(const char *s);
/* print a JSON value, pretty or compact (-J / --json=compact), and a newline */
int nx_json_print(struct json_object *o, FILE *out);

/* topo.c: nodes and memory tiers */
struct nx_node {
	int id;
	bool has_cpu, has_memory, fast;
	int tier;		/* memory_tierN, -1 unknown */
	uint64_t total_kb, free_kb;
};
struct nx_topo {
	struct nx_node *nodes;
	size_t nnodes;
	struct nx_nodemask online, slow;
	bool have_nodes, have_tiers;
	bool tiers_bad;		/* a tier's nodelist is malformed: nodes outside known tiers unknown */
	int ntiers;
};
int nx_topo_load(struct nx_topo *t);
void nx_topo_free(struct nx_topo *t);

/* sysctl.c: NUMA balancing mode and filter sysctls */
struct nx_filters_state {
	int val[NX_NFILTERS];	/* -1: absent, unreadable or malformed (err says which) */
	int err[NX_NFILTERS];	/* 0, -ENOENT absent, -EINVAL malformed, else unreadable */
	int present;		/* number of filter sysctls found (readable or not) */
};
void nx_filters_preset(int *val, bool *set, bool legacy);
/* the filters this kernel has (@opt: the preset, for the warning on those it lacks) */
void nx_filters_kernel(bool *have, const char *opt);
/* "pid, shared_ro, ...": every filter's name, for messages */
const char *nx_filter_names(void);
int nx_filter_path(char *buf, size_t sz, int idx);
void nx_filters_read(struct nx_filters_state *st);
/* "ok", "absent", "malformed" or "unreadable" for an err of nx_filters_state */
const char *nx_filter_err_name(int err);
/* the usage error for a bad NAME=VALUE: unknown name or bad value */
int nx_filter_assign_error(const char *arg);
/* could the @set filters be written (they exist, their old values readable)? exit code */
int nx_filters_writable(const bool *set);
/* write values where set[i]; on failure roll back and return exit code */
int nx_filters_write(const int *val, const bool *set);
/* the debugfs directory of the NUMA balancing tunables (scan_*_ms, ...) */
#define NX_NB_DEBUGFS "/sys/kernel/debug/sched/numa_balancing"
long nx_numa_balancing_mode(void);	/* -1 when absent */
const char *nx_mode_name(long mode);

/* vmlist.c: the per-process join of maps, numa_maps and numa_vmas */
struct nx_vma {
	uint64_t start, end;
	char *name;
	char perms[5];
	bool in_maps, in_numa_maps, in_numab;
	uint64_t fast_bytes, slow_bytes;
	struct nx_numab_vma nv;	/* nv.name not valid */
	const char *verdict;	/* the reason: nx_vma_why() */
	int64_t release_in;	/* sequences until the PID filter's fallback scans it, -1 none */
	uint64_t *node_bytes;	/* per node of the topology (nx_vmlist_nodes), or NULL */
	/* pages.c: of a sample of its pages, those on the slow tier, and of
	 * them those mapped by more than one process (0, 0: not sampled) */
	uint32_t pg_slow, pg_slow_shared;
	bool pg_held;	/* judged stranded by that page check (nx_vma_judge()) */
	bool backoff;	/* ok, its slow-tier memory waits out a promotion-only backoff */
	bool pid_held;	/* ok, but its last skip was the PID filter's, after its last full scan */
};
/* nx_vmlist_load() also counts the bytes of each VMA per node (vmas -N) */
extern bool nx_vmlist_nodes;
struct nx_vmlist {
	pid_t pid;
	struct nx_vma *v;
	size_t n;
	struct nx_numab_mm mm;
	bool have_maps, have_numa_maps, have_numab;
	bool tiers_unknown;	/* a malformed tier nodelist: FAST and SLOW unknown */
	unsigned long bad_lines;
	unsigned int stale;	/* sequences without a scan that strand a VMA */
	char missing[448];	/* one-line degraded-mode explanation */
	/* backend.c: where the scan state came from, the fallback's prediction */
	int backend;		/* NX_BACKEND_*: numa_vmas, bpf or none */
	char backend_note[256];	/* BPF used, or why not */
	double state_seconds;	/* reading the scan state */
	long nr_threads;	/* get_nr_threads(), -1 unknown */
	/* BPF backend: numa_scan_period (ms, 0 unknown) of thread scan_period_tid */
	long scan_period_ms, scan_period_tid;
	bool next_hz_unknown;	/* BPF backend: the mm's next scan in jiffies, HZ unknown */
	/* a process that has not begun a scan: its busiest thread's CPU time (ms, -1 unknown) */
	long cpu_ms_max;
	bool balancing_off;	/* ... and NUMA balancing is off (kernel.numa_balancing=0) */
	double sec_per_seq, rate_err;	/* scan rate, 0 unknown */
	char rate_how[96];
	char shmem_note[640];	/* filters left uncertain, and why (shmem.c) */
	char bpf_timing[96];	/* NUMABCTL_TIMING: the BPF load and walk */
	char pg_how[96];	/* pages.c: what skips shared folios here ("": nothing) */
};
/* returns an exit code; prints the error */
int nx_vmlist_load(struct nx_vmlist *l, pid_t pid, const struct nx_topo *topo,
		   unsigned int stale_seqs);
void nx_vmlist_free(struct nx_vmlist *l);
/* @l's memory on the fast and slow tiers, and the slow memory of its stranded VMAs */
void nx_vmlist_totals(const struct nx_vmlist *l, uint64_t *fast, uint64_t *slow,
		      uint64_t *stranded);
/*
 * What keeps @v's memory where it is, for a label: its static filter
 * (FILTER, when not none), "pid" when the PID filter skips it (last_skip
 * pid_inactive, or the legacy fallback's prediction), "scan_delay", else
 * "none"; "unknown" without scan state.  A VMA judged ok: its FILTER
 * (none, or a promotion-only one).
 */
const char *nx_vma_holder(const struct nx_vma *v);
/*
 * @l's slow-tier memory grouped by the verdict on its VMAs and what holds
 * them (nx_vma_holder()), as report's "Slow-tier memory by cause" and
 * export's numab_process_slow_memory_bytes{verdict,filter} count it
 */
#define NX_CAUSE_TOP 3
struct nx_cause {
	const char *verdict;	/* judge()'s static strings */
	const char *holder;	/* nx_vma_holder(): static, or a filter name inside @l */
	uint64_t slow;		/* slow-tier bytes of its VMAs */
	size_t nvmas;		/* its VMAs with slow-tier memory */
	size_t top[NX_CAUSE_TOP];	/* indices into l->v, most slow memory first */
	size_t ntop;
};
/*
 * The groups of @l with slow-tier memory into *@causes (free() it), the
 * stranded ones first, then by slow bytes; *@n is 0 when nothing is on
 * the slow tier.  0 or -ENOMEM.
 */
int nx_slow_causes(const struct nx_vmlist *l, struct nx_cause **causes, size_t *n);
/*
 * What a group of nx_slow_causes() means and what to do about it, in one
 * line: the one place of this text
 */
const char *nx_cause_text(const char *verdict, const char *holder);
/*
 * report.c: why the scan state of @l does not tell thread @tid's scan
 * period, in words for report's scan pace (into @buf)
 */
void nx_pace_period_unknown(const struct nx_vmlist *l, long tid, char *buf, size_t sz);
/*
 * pages.c: when @l's process has shared copy-on-write folios skipped
 * (stock 6.12, shared_folio=skip), sample the private VMAs with slow-tier
 * memory (NX_PAGE_SAMPLE pages each, of the NX_PAGE_VMAS with the most
 * slow-tier memory: at most 2048 pagemap reads, which took 3.4 us each on
 * a 2-vCPU host, and 32 move_pages(2) calls): pg_slow and pg_slow_shared
 * of each, pg_how of @l.  Nothing under --sysroot or without permission.
 */
#define NX_PAGE_SAMPLE	64
#define NX_PAGE_VMAS	32
void nx_pages_sample(struct nx_vmlist *l, const struct nx_topo *topo);
/* most of @v's sampled slow-tier pages are shared: the page check holds them */
bool nx_pages_held(const struct nx_vma *v);
/* one line for all that is missing from @l, and NUMA balancing off */
void nx_vmlist_warn(const struct nx_vmlist *l);
/* why @v got its verdict, into @buf */
void nx_vma_why(const struct nx_vma *v, const struct nx_vmlist *l, char *buf, size_t sz);
/* its verdict (stranded, skipped, unscanned, ok, unknown) */
const char *nx_vma_verdict(const struct nx_vma *v, const struct nx_vmlist *l);
/* @v->verdict, @v->pg_held, @v->backoff and @v->pid_held, as nx_vmlist_load() sets them */
void nx_vma_judge(struct nx_vma *v, const struct nx_vmlist *l);

/* the processes to read (vmas -p, export) */
struct nx_pidlist {
	pid_t *p;
	size_t n, cap;
};
int nx_pidlist_add(struct nx_pidlist *pl, pid_t pid);	/* 0 or -ENOMEM; no duplicates */
void nx_pidlist_sort(struct nx_pidlist *pl);
void nx_pidlist_free(struct nx_pidlist *pl);
/*
 * -p PATTERN: the processes whose comm matches (extended regex), or a PID
 * (a number), as numastat -p takes them; @pat NULL: every process with an
 * address space.  Kernel threads (an empty maps) and numabctl itself are
 * left out.  A match whose maps cannot be read is said (exit code
 * NX_EPERM), not left out silently, and the readable matches are added all
 * the same; with @ndenied, such matches are only counted there and the
 * result is NX_OK.  A pattern without a match: NX_ENOPROC.
 */
int nx_match_processes(const char *pat, struct nx_pidlist *pl, unsigned long *ndenied);
/* vmas and export: -p PATTERN and --stale N */
#define NX_PROCESS_LONGOPTS \
	{ "process",	required_argument, NULL, 'p' }, \
	{ "stale",	required_argument, NULL, 'T' }
/* one more -p PATTERN into @pats (room for @max): 0, or the usage error's exit code */
int nx_add_pattern(const char **pats, size_t *n, size_t max, const char *pat);
/* --stale N into @stale: 0, or the exit code of the usage error */
int nx_parse_stale(const char *arg, uint64_t *stale);

/* shmem.c: vma_policy_mof() of this kernel for shmem without a policy */
enum {
	NX_SHMEM_UNKNOWN,
	NX_SHMEM_NOPOL,		/* no fallback: such a VMA is unsuitable */
	NX_SHMEM_TASKPOL,	/* falls back to the task policy */
};
/* by the kernel release alone; why into @how */
int nx_shmem_rule_release(const char *release, char *how, size_t sz);
/* the running kernel's: learned in this boot, else by release */
int nx_shmem_rule(char *how, size_t sz);
/* the filters "uncertain" of @l decided where the kernel's rule is known */
void nx_shmem_resolve(struct nx_vmlist *l);
struct nx_trace_result;
/* learn the rule from the reasons traced for @l's uncertain VMAs; keeps it for the boot */
int nx_shmem_learn(const struct nx_vmlist *l, const struct nx_trace_result *r, pid_t pid);

/* vmas.c */
extern const struct nx_colspec nx_vma_cols[];
extern const size_t nx_vma_ncols;
#define NX_VMA_DEFAULT_COLS "START,SIZE,NAME,FAST,SLOW,SLOW%,FILTER,STATE,SEQS,VERDICT"
int nx_vmas_table(struct nx_table *t, const struct nx_vmlist *l,
		  const char *cols, const char *name, bool stranded_only,
		  uint64_t min_size);
/*
 * report: nx_vmas_table() with the column per node of @topo too; returns
 * every column but PID, in the order of vmas --output-all
 */
const char *nx_vmas_report_cols(const struct nx_topo *topo);

/* trace.c, shared with report */
struct nx_trace_agg {
	uint64_t start, end;
	char reason[24];
	uint64_t count;
};
struct nx_trace_result {
	struct nx_trace_agg *a;
	size_t n, cap;
	unsigned long events, other_tasks, bad_lines;
	unsigned long lines;	/* --input: lines that look like trace output */
	char why[8192];		/* why tracing failed */
};
/* tracefs: where it is, or why not */
enum { NX_TFS_OK, NX_TFS_DENIED, NX_TFS_UNMOUNTED, NX_TFS_NOEVENT };
/* NX_TFS_*; @buf: the tracefs root (or where it is expected) */
int nx_tracefs_find(char *buf, size_t sz);
/* one sentence for a nx_tracefs_find() result (a static buffer) */
const char *nx_tracefs_why(int r, const char *root);
/* record for @sec seconds from tracefs (or parse @input if not NULL) */
int nx_trace_collect(pid_t pid, double sec, const char *input,
		     struct nx_trace_result *r, bool quiet);
void nx_trace_free(struct nx_trace_result *r);
int nx_trace_table(struct nx_table *t, const struct nx_trace_result *r,
		   const struct nx_vmlist *l, const char *cols);

/* multi-table documents: titled tables in text, one JSON object with -J */
struct nx_doc {
	FILE *out;
	int n;
	struct json_object *root;	/* -J: the document, printed by nx_doc_end */
};
void nx_doc_begin(struct nx_doc *d, FILE *out);
void nx_doc_table(struct nx_doc *d, struct nx_table *t, const char *title);
/*
 * a section that is not one table: its title in text (nothing in JSON),
 * then what it prints to d->out; its JSON member @o (owned by the document)
 */
void nx_doc_title(struct nx_doc *d, const char *title);
void nx_doc_json(struct nx_doc *d, const char *name, struct json_object *o);
void nx_doc_end(struct nx_doc *d);

/* vmstat counters relevant to NUMA balancing */
struct nx_counters {
	char **name;
	uint64_t *val;
	size_t n, cap;
};
int nx_counters_load(struct nx_counters *c);	/* 0 or -errno */
void nx_counters_free(struct nx_counters *c);
bool nx_counters_get(const struct nx_counters *c, const char *name, uint64_t *v);
/* sum of all counters starting with @prefix */
uint64_t nx_counters_sum(const struct nx_counters *c, const char *prefix);

/* filter.c */
/* @only: NULL for all filters, else the ones to list */
int nx_filter_table(struct nx_table *t, const struct nx_filters_state *st,
		    const char *name, const bool *only, const char *cols);

/* status.c, shared with report */
void nx_status_doc(struct nx_doc *d, const struct nx_topo *topo, bool with_vmstat);
int nx_nodes_table(struct nx_table *t, const struct nx_topo *topo);

/*
 * sysctl.c, for filter and run: a file of filter settings (filter --save's,
 * sysctl.conf syntax; "-" standard input) read into @val where @set.
 */
int nx_filters_load_file(const char *file, int *val, bool *set);
/*
 * sysctl.c, for filter and run: <sysroot>/run/numabctl.lock serialises
 * filter changes.  While a 'run' holds it, the file holds the values to
 * restore, so a run that was killed with SIGKILL is repaired by the next
 * one.
 */
int nx_lock_filters(int *fd, bool wait);
void nx_unlock_filters(int fd);
/* the lock file's path, once nx_lock_filters() has opened it */
const char *nx_lock_path(void);

/* commands */
int cmd_status(int argc, char **argv);
int cmd_vmas(int argc, char **argv);
int cmd_filter(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_watch(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);

/* export.c: a label value of the Prometheus text format, escaped */
void nx_prom_label_value(FILE *out, const char *s, size_t n);

#endif
