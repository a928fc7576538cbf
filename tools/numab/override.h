/* SPDX-License-Identifier: GPL-2.0 */
/*
 * override.c: per-process filter overrides, /proc/<pid>/numa_filters
 *.  @pid 0 is /proc/self.  Values are NX_FILTER_INHERIT or the
 * override; arrays are indexed like nx_filters[].
 */
#ifndef NUMABCTL_OVERRIDE_H
#define NUMABCTL_OVERRIDE_H

#include "numabctl.h"

/* exit code: the kernel lacks per-process filters (no numa_filters) */
#define NX_ENOOVERRIDE 7

bool nx_pf_supported(void);	/* <sysroot>/proc/self/numa_filters exists */
int nx_pf_path(char *buf, size_t sz, pid_t pid);
/* 0, -ENODATA for an empty file (kernel thread), -EBADMSG if malformed, -errno */
int nx_pf_read(pid_t pid, struct nx_proc_filters *pf);
/* the write for the @set filters in the kernel's order, newline-terminated: length or -1 */
int nx_pf_format(const int *val, const bool *set, char *buf, size_t sz);
/* "NAME=VALUE", VALUE a setting name, a number or "inherit": 0, or -1 with a message */
int nx_pf_parse_assign(const char *arg, int *idx, int *val);
enum { NX_PF_LEGACY, NX_PF_DEFAULT, NX_PF_INHERIT };
/* --legacy, --default or --inherit: the filters this kernel has (nx_filters_kernel()) */
void nx_pf_preset(int *val, bool *set, int which);
/* skip (1) > tier (2) > off (0); on > off: higher is more restrictive */
int nx_filter_rank(int idx, int val);
/* whether setting @val of filter @idx skips less than the sysctl's @sys */
bool nx_filter_relaxes(int idx, int val, int sys);
/*
 * The override of filter @idx in @pf that applies with the sysctl at @sys:
 * a plain one gives way to a stricter sysctl, a privileged (:priv) one
 * holds; NX_FILTER_INHERIT when none applies.
 */
int nx_pf_applied(const struct nx_proc_filters *pf, int idx, int sys);
/* "inherit" or the setting name */
const char *nx_pf_value_name(int idx, int val);
/* write the @set filters of @pid; prints why it failed; returns an exit code */
int nx_pf_write(pid_t pid, const int *val, const bool *set);
/* the message and exit code for errno @err writing @path (@at_open: open() failed) */
int nx_pf_write_error(pid_t pid, const char *path, int err, bool at_open,
		      const int *val, const bool *set);
/* the message and exit code for errno @err reading @pid's numa_filters */
int nx_pf_read_error(pid_t pid, const char *path, int err);
/* filter --pid: its columns, and @pid's overrides and effective values (@only: NULL or the filters to list) */
extern const struct nx_colspec nx_pf_cols[];
extern const size_t nx_pf_ncols;
int nx_pf_show(pid_t pid, const bool *only);
/* status (and report): a support row, then the processes that have an override */
void nx_pf_status_row(struct nx_table *support);
void nx_pf_status_doc(struct nx_doc *d);
/* report: @pid's numa_filters and the effective filters of its mm line */
void nx_pf_report_doc(struct nx_doc *d, pid_t pid, const struct nx_vmlist *l);
/* vmas: the effective filters of the mm line, one text line ("" if none) */
void nx_pf_mm_line(const struct nx_numab_mm *mm, char *buf, size_t sz);
/* vmas -J: { "filters": [...], then the members of nx_table_emit()'s document } */
int nx_pf_vmas_json(const struct nx_numab_mm *mm, struct nx_table *t, size_t n,
		    nx_row_fn fn, void *priv, FILE *out);
/* vmas with several PIDs, -J: a "filters" table, rows of @pid if its mm line has them */
int nx_pf_multi_init(struct nx_table *t);
bool nx_pf_multi_add(struct nx_table *t, pid_t pid, const struct nx_numab_mm *mm);
/* ... then { "filters": [@ft's rows], the members of nx_table_emit()'s document } */
int nx_pf_multi_vmas_json(struct nx_table *ft, struct nx_table *t, size_t n,
			  nx_row_fn fn, void *priv, FILE *out);

#endif
