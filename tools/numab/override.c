// SPDX-License-Identifier: GPL-2.0
/*
 * Per-process filter overrides: /proc/<pid>/numa_filters holds one line,
 * "pid=V shared_ro=V scan_delay=V shared_folio=V cpuset=V promo_slowdown=V",
 * V "inherit" (the sysctl applies) or the override; a kernel of an older
 * numab series lists the filters it has (no promo_slowdown, say).  A
 * write of NAME=VALUE tokens changes the named filters only and is
 * validated as a whole (EINVAL: nothing changed); a value less restrictive
 * than the sysctl needs CAP_SYS_NICE (EPERM); opening another user's
 * process for writing needs ptrace-attach rights (EACCES); a kernel
 * thread reads as empty and refuses writes (ESRCH).  The override lives in the mm: fork() inherits
 * it and execve() keeps it, which is what 'numabctl run' relies on.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "override.h"

/* the kernel prints (and we write) the filters in this order */
static const int kernel_order[NX_NFILTERS] = {
	NX_F_PID, NX_F_SHARED_RO, NX_F_SCAN_DELAY, NX_F_SHARED_FOLIO, NX_F_CPUSET,
	NX_F_PROMO_SLOWDOWN,
};

int nx_pf_path(char *buf, size_t sz, pid_t pid)
{
	if (pid)
		return nx_path(buf, sz, "/proc/%d/numa_filters", (int)pid);
	return nx_path(buf, sz, "/proc/self/numa_filters");
}

bool nx_pf_supported(void)
{
	char path[4096];

	nx_pf_path(path, sizeof(path), 0);
	return nx_exists(path);
}

int nx_pf_read(pid_t pid, struct nx_proc_filters *pf)
{
	char path[4096], buf[512];
	int r;

	memset(pf, 0, sizeof(*pf));
	nx_pf_path(path, sizeof(path), pid);
	r = nx_read_str(path, buf, sizeof(buf));
	if (r)
		return r;
	if (!buf[0])
		return -ENODATA;
	buf[strcspn(buf, "\n")] = '\0';
	if (nx_parse_numa_filters_line(buf, strlen(buf), pf) || !pf->have)
		return -EBADMSG;
	return 0;
}

const char *nx_pf_value_name(int idx, int val)
{
	return val == NX_FILTER_INHERIT ? "inherit" : nx_filter_value_name(idx, val);
}

int nx_pf_format(const int *val, const bool *set, char *buf, size_t sz)
{
	size_t off = 0;

	if (!sz)
		return -1;
	buf[0] = '\0';
	for (int k = 0; k < NX_NFILTERS; k++) {
		int i = kernel_order[k], n;

		if (!set[i])
			continue;
		if (val[i] == NX_FILTER_INHERIT)
			n = snprintf(buf + off, sz - off, "%s%s=inherit", off ? " " : "",
				     nx_filters[i].name);
		else if (val[i] >= 0 && val[i] <= nx_filters[i].max)
			n = snprintf(buf + off, sz - off, "%s%s=%d", off ? " " : "",
				     nx_filters[i].name, val[i]);
		else
			return -1;
		if (n < 0 || (size_t)n >= sz - off)
			return -1;
		off += (size_t)n;
	}
	if (!off || off + 2 > sz)
		return -1;
	buf[off++] = '\n';
	buf[off] = '\0';
	return (int)off;
}

int nx_pf_parse_assign(const char *arg, int *idx, int *val)
{
	const char *eq = strchr(arg, '=');

	*idx = nx_filter_index(arg, eq ? (size_t)(eq - arg) : strlen(arg));
	if (*idx < 0 || !eq) {
		nx_warn("invalid filter '%s': expected NAME=VALUE, NAME one of %s", arg,
			nx_filter_names());
		return -1;
	}
	if (!strcmp(eq + 1, "inherit")) {
		*val = NX_FILTER_INHERIT;
		return 0;
	}
	*val = nx_filter_value(*idx, eq + 1, strlen(eq + 1));
	if (*val < 0) {
		nx_warn("invalid value '%s' for filter %s (%s, or inherit)", eq + 1,
			nx_filters[*idx].name, nx_filters[*idx].max == 2 ?
			"off|skip|tier or 0..2" : "off|on or 0..1");
		return -1;
	}
	return 0;
}

void nx_pf_preset(int *val, bool *set, int which)
{
	for (int i = 0; i < NX_NFILTERS; i++)
		val[i] = which == NX_PF_LEGACY ? nx_filters[i].legacy :
			 which == NX_PF_DEFAULT ? nx_filters[i].def : NX_FILTER_INHERIT;
	nx_filters_kernel(set, which == NX_PF_LEGACY ? "--legacy" : which == NX_PF_DEFAULT ?
			  "--default" : "--inherit");
}

int nx_filter_rank(int idx, int val)
{
	static const int tri[3] = { 0, 2, 1 };	/* off < tier < skip */

	if (val < 0 || val > nx_filters[idx].max)
		return -1;
	return nx_filters[idx].max == 2 ? tri[val] : val;
}

bool nx_filter_relaxes(int idx, int val, int sys)
{
	return val >= 0 && sys >= 0 && nx_filter_rank(idx, val) < nx_filter_rank(idx, sys);
}

int nx_pf_applied(const struct nx_proc_filters *pf, int idx, int sys)
{
	if (!(pf->have & (1u << idx)) || pf->val[idx] == NX_FILTER_INHERIT)
		return NX_FILTER_INHERIT;
	if (!(pf->priv & (1u << idx)) && nx_filter_relaxes(idx, pf->val[idx], sys))
		return NX_FILTER_INHERIT;
	return pf->val[idx];
}

/* "pid=off (system: skip), ..." for the values less restrictive than the sysctls */
static size_t less_restrictive(const int *val, const bool *set, char *buf, size_t sz)
{
	struct nx_filters_state sys;
	size_t off = 0, n = 0;

	buf[0] = '\0';
	nx_filters_read(&sys);
	for (int k = 0; k < NX_NFILTERS; k++) {
		int i = kernel_order[k];

		if (!set[i] || !nx_filter_relaxes(i, val[i], sys.val[i]))
			continue;
		if (off < sz)
			off += (size_t)snprintf(buf + off, sz - off,
						"%s%s=%s (kernel.numa_balancing_filter_%s = %d, %s)",
						n ? ", " : "", nx_filters[i].name,
						nx_filter_value_name(i, val[i]), nx_filters[i].name,
						sys.val[i], nx_filter_value_name(i, sys.val[i]));
		n++;
	}
	return n;
}

static void who(pid_t pid, char *buf, size_t sz)
{
	if (pid)
		snprintf(buf, sz, "process %d", (int)pid);
	else
		snprintf(buf, sz, "this process");
}

int nx_pf_read_error(pid_t pid, const char *path, int err)
{
	struct nx_filters_state sys;
	char dir[4096], w[32];

	if (err < 0)
		err = -err;
	who(pid, w, sizeof(w));
	nx_path(dir, sizeof(dir), "/proc/%d/status", (int)pid);
	if (pid && (err == ESRCH || (err == ENOENT && !nx_exists(dir))))
		return nx_pid_error(pid, path, err);
	switch (err) {
	case ENOENT:
		nx_filters_read(&sys);
		nx_warn("%s: not found: this kernel has no per-process filter overrides "
			"(numab series with /proc/PID/numa_filters); %s", path, sys.present ?
			"only the system-wide kernel.numa_balancing_filter_* sysctls exist" :
			"it lacks the numab filter sysctls too");
		return NX_ENOOVERRIDE;
	case ENODATA:
		nx_warn("%s: empty: %s has no address space (a kernel thread); NUMA "
			"balancing does not scan it", path, w);
		return NX_ENOPROC;
	case EBADMSG:
		nx_warn("%s: malformed (expected 'pid=V shared_ro=V ...')", path);
		return NX_ERUNTIME;
	case EACCES:
	case EPERM:
		nx_warn("%s: permission denied: reading the filters of %s needs ptrace "
			"rights on it: %s%s", path, w, geteuid() ? "run as its owner, or " : "",
			nx_root_hint("CAP_SYS_PTRACE"));
		return NX_EPERM;
	default:
		return nx_file_error(path, err);
	}
}

int nx_pf_write_error(pid_t pid, const char *path, int err, bool at_open,
		      const int *val, const bool *set)
{
	char what[512], lr[1024], w[32];

	if (err < 0)
		err = -err;
	who(pid, w, sizeof(w));
	if (nx_pf_format(val, set, what, sizeof(what)) > 0)
		what[strcspn(what, "\n")] = '\0';
	else
		snprintf(what, sizeof(what), "?");
	if (at_open && (err == ENOENT || err == ESRCH))
		return nx_pf_read_error(pid, path, err);
	switch (err) {
	case ESRCH:
		nx_warn("%s: %s has no address space (a kernel thread, or it is exiting): "
			"it has no filters to set", path, w);
		return NX_ENOPROC;
	case EACCES:
		nx_warn("%s: permission denied: %s is not yours; changing another user's "
			"process needs ptrace rights on it: %s", path, w,
			nx_root_hint("CAP_SYS_PTRACE"));
		return NX_EPERM;
	case EPERM:
		if (at_open) {
			nx_warn("%s: permission denied: changing the filters of %s needs "
				"ptrace rights on it: %s", path, w, nx_root_hint("CAP_SYS_PTRACE"));
			return NX_EPERM;
		}
		if (less_restrictive(val, set, lr, sizeof(lr)))
			nx_warn("%s: the kernel refused '%s' (EPERM): less restrictive than "
				"the system setting: %s; that needs CAP_SYS_NICE (%s); "
				"'inherit' and values at least as restrictive are always allowed",
				path, what, lr, nx_root_hint("CAP_SYS_NICE"));
		else
			nx_warn("%s: the kernel refused '%s' (EPERM): a value less restrictive "
				"than the system setting needs CAP_SYS_NICE (%s)", path, what,
				nx_root_hint("CAP_SYS_NICE"));
		return NX_EPERM;
	case EINVAL:
		nx_warn("%s: the kernel rejected '%s' (EINVAL): a value out of range or a "
			"filter this kernel does not know; nothing was changed", path, what);
		return NX_EUSAGE;
	default:
		return nx_file_error(path, err);
	}
}

int nx_pf_write(pid_t pid, const int *val, const bool *set)
{
	char path[4096], buf[512];
	int n = nx_pf_format(val, set, buf, sizeof(buf)), fd;
	struct nx_filters_state sys;
	ssize_t w;

	if (n < 0) {
		nx_warn("no valid filter to set");
		return NX_EUSAGE;
	}
	nx_pf_path(path, sizeof(path), pid);
	/*
	 * a filter a kernel of an older series lacks (no sysctl): its
	 * numa_filters would refuse the write as a whole
	 */
	nx_filters_read(&sys);
	for (int i = 0; sys.present && i < NX_NFILTERS; i++)
		if (set[i] && sys.err[i] == -ENOENT && nx_filters[i].newer) {
			nx_warn("%s: not set: this kernel lacks %s (no "
				"kernel.numa_balancing_filter_%s); nothing changed", path,
				nx_filters[i].newer, nx_filters[i].name);
			return NX_ENOTSUP;
		}
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return nx_pf_write_error(pid, path, errno, true, val, set);
	w = write(fd, buf, (size_t)n);
	if (w != n) {
		int e = w < 0 ? errno : EIO;

		close(fd);
		return nx_pf_write_error(pid, path, e, false, val, set);
	}
	if (close(fd))
		return nx_pf_write_error(pid, path, errno, false, val, set);
	return NX_OK;
}

/* --- filter --pid ---------------------------------------------------------- */

enum { PC_NAME, PC_OVERRIDE, PC_VALUE, PC_SETTING, PC_SOURCE, PC_SYSTEM, PC_SYSCTL };
const struct nx_colspec nx_pf_cols[] = {
	[PC_NAME] = { "NAME", 10, 0, SCOLS_JSON_STRING, "filter name" },
	[PC_OVERRIDE] = { "OVERRIDE", 7, 0, SCOLS_JSON_STRING,
			  "the process's override: inherit, off, skip, tier, on; "
			  ":priv after a privileged one (it holds whatever the sysctl)" },
	[PC_VALUE] = { "VALUE", 3, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		       "effective value: the override, else the sysctl" },
	[PC_SETTING] = { "SETTING", 4, 0, SCOLS_JSON_STRING, "effective value's name" },
	[PC_SOURCE] = { "SOURCE", 6, 0, SCOLS_JSON_STRING,
			"process (override) or system (sysctl)" },
	[PC_SYSTEM] = { "SYSTEM", 3, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "sysctl value" },
	[PC_SYSCTL] = { "SYSCTL", 30, 0, SCOLS_JSON_STRING, "sysctl name" },
};
const size_t nx_pf_ncols = sizeof(nx_pf_cols) / sizeof(nx_pf_cols[0]);

static const char *null_or_dash(void)
{
	return nx_opt.json ? "null" : "-";
}

int nx_pf_show(pid_t pid, const bool *only)
{
	struct nx_filters_state sys;
	struct nx_proc_filters pf;
	struct nx_table t;
	char path[4096];
	int r = nx_pf_read(pid, &pf);

	if (r) {
		nx_pf_path(path, sizeof(path), pid);
		return nx_pf_read_error(pid, path, r);
	}
	nx_filters_read(&sys);
	if (nx_table_init(&t, "process_filters", nx_pf_cols, nx_pf_ncols,
			  "NAME,OVERRIDE,VALUE,SETTING,SOURCE,SYSTEM", nx_opt.columns))
		return NX_EUSAGE;
	for (int k = 0; k < NX_NFILTERS; k++) {
		int i = kernel_order[k], ov = pf.val[i];
		bool have = pf.have & (1u << i), priv = pf.priv & (1u << i);
		int applied = nx_pf_applied(&pf, i, sys.val[i]);
		bool applies = applied != NX_FILTER_INHERIT;
		int eff = applies ? applied : sys.val[i];
		struct libscols_line *ln;

		if (only && !only[i])
			continue;
		ln = nx_table_line(&t);
		nx_table_set(&t, ln, PC_NAME, "%s", nx_filters[i].name);
		nx_table_set(&t, ln, PC_OVERRIDE, "%s%s", have ? nx_pf_value_name(i, ov) : "absent",
			     priv ? ":priv" : "");
		if (eff >= 0) {
			nx_table_set(&t, ln, PC_VALUE, "%d", eff);
			nx_table_set(&t, ln, PC_SETTING, "%s", nx_filter_value_name(i, eff));
		} else {
			nx_table_set(&t, ln, PC_VALUE, "%s", null_or_dash());
			nx_table_set(&t, ln, PC_SETTING, "unknown");
		}
		nx_table_set(&t, ln, PC_SOURCE, "%s", !have ? "unknown" :
			     applies ? "process" : "system");
		if (sys.val[i] >= 0)
			nx_table_set(&t, ln, PC_SYSTEM, "%d", sys.val[i]);
		else
			nx_table_set(&t, ln, PC_SYSTEM, "%s", null_or_dash());
		nx_table_set(&t, ln, PC_SYSCTL, "kernel.numa_balancing_filter_%s",
			     nx_filters[i].name);
	}
	nx_table_print(&t, stdout);
	nx_table_free(&t);
	return NX_OK;
}

/* --- status and report: the processes with an override --------------------- */

struct pf_proc {
	pid_t pid;
	char comm[32];
	char over[160];
};

struct pf_scan {
	bool done, supported;
	struct pf_proc *p;
	size_t n, cap;
	unsigned long unreadable;
};
static struct pf_scan scan;

static int cmp_proc(const void *a, const void *b)
{
	const struct pf_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* "pid=skip,cpuset=off": the filters @pf overrides; false if none */
static bool overrides_of(const struct nx_proc_filters *pf, char *buf, size_t sz)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int k = 0; k < NX_NFILTERS; k++) {
		int i = kernel_order[k];

		if (!(pf->have & (1u << i)) || pf->val[i] == NX_FILTER_INHERIT)
			continue;
		if (off < sz)
			off += (size_t)snprintf(buf + off, sz - off, "%s%s=%s%s", off ? "," : "",
						nx_filters[i].name,
						nx_filter_value_name(i, pf->val[i]),
						pf->priv & (1u << i) ? ":priv" : "");
	}
	return off > 0;
}

/*
 * One pass over <sysroot>/proc/[0-9]*: a small read per process.  Unreadable
 * files (another user's process) are counted, not reported one by one;
 * processes that exit meanwhile and kernel threads are left out.
 */
static void do_scan(void)
{
	char path[4096];
	struct dirent *de;
	DIR *dir;

	memset(&scan, 0, sizeof(scan));
	scan.done = true;
	scan.supported = nx_pf_supported();
	nx_path(path, sizeof(path), "/proc");
	if (!scan.supported || !(dir = opendir(path)))
		return;
	while ((de = readdir(dir))) {
		struct nx_proc_filters pf;
		struct pf_proc *p;
		pid_t pid;
		char over[160];
		int r;

		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    nx_parse_u64(de->d_name, strlen(de->d_name), 10, &(uint64_t){ 0 }))
			continue;
		pid = (pid_t)atoi(de->d_name);
		r = nx_pf_read(pid, &pf);
		if (r == -EACCES || r == -EPERM) {
			scan.unreadable++;
			continue;
		}
		if (r)
			continue;	/* gone, kernel thread, malformed */
		if (!overrides_of(&pf, over, sizeof(over)))
			continue;
		if (scan.n == scan.cap) {
			size_t nc = scan.cap ? scan.cap * 2 : 16;
			struct pf_proc *np = realloc(scan.p, nc * sizeof(*np));

			if (!np)
				break;
			scan.p = np;
			scan.cap = nc;
		}
		p = &scan.p[scan.n++];
		p->pid = pid;
		snprintf(p->over, sizeof(p->over), "%s", over);
		nx_path(path, sizeof(path), "/proc/%d/comm", (int)pid);
		if (nx_read_str(path, p->comm, sizeof(p->comm)))
			snprintf(p->comm, sizeof(p->comm), "?");
	}
	closedir(dir);
	if (scan.n)
		qsort(scan.p, scan.n, sizeof(*scan.p), cmp_proc);
}

static void scan_free(void)
{
	free(scan.p);
	memset(&scan, 0, sizeof(scan));
}

void nx_pf_status_row(struct nx_table *t)
{
	if (!scan.done)
		do_scan();
	nx_kv_add(t, "numa_filters", "%s", scan.supported ? "yes" : "no");
	if (!scan.supported)
		return;
	/* processes with an override; those not readable (another user's) */
	nx_kv_add(t, "process_overrides", "%zu", scan.n);
	if (scan.unreadable)
		nx_kv_add(t, "process_overrides_unreadable", "%lu", scan.unreadable);
}

enum { OC_PID, OC_COMM, OC_OVERRIDES };
static const struct nx_colspec over_cols[] = {
	[OC_PID] = { "PID", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "process id" },
	[OC_COMM] = { "COMM", 0.2, 0, SCOLS_JSON_STRING, "command name" },
	[OC_OVERRIDES] = { "OVERRIDES", 0.6, 0, SCOLS_JSON_STRING,
			   "the filters it overrides, e.g. pid=skip,cpuset=off" },
};

void nx_pf_status_doc(struct nx_doc *d)
{
	struct nx_table t;

	if (!scan.done)
		do_scan();
	if (scan.supported &&
	    !nx_table_init(&t, "overrides", over_cols, sizeof(over_cols) / sizeof(over_cols[0]),
			   "PID,COMM,OVERRIDES", NULL)) {
		for (size_t i = 0; i < scan.n; i++) {
			struct libscols_line *ln = nx_table_line(&t);

			nx_table_set(&t, ln, OC_PID, "%d", (int)scan.p[i].pid);
			nx_table_set(&t, ln, OC_COMM, "%s", scan.p[i].comm);
			nx_table_set(&t, ln, OC_OVERRIDES, "%s", scan.p[i].over);
		}
		nx_doc_table(d, &t, "Processes with filter overrides (numa_filters)");
		nx_table_free(&t);
	}
	scan_free();
}

static const char *src_name(unsigned char src)
{
	return src == NX_FSRC_SYSTEM ? "system" : src == NX_FSRC_PROCESS ? "process" : "unknown";
}

void nx_pf_mm_line(const struct nx_numab_mm *mm, char *buf, size_t sz)
{
	size_t off = 0;

	buf[0] = '\0';
	if (!mm->filt_have)
		return;
	for (int k = 0; k < NX_NFILTERS && off < sz; k++) {
		int i = kernel_order[k];

		if (mm->filt_have & (1u << i))
			off += (size_t)snprintf(buf + off, sz - off, "%s%s=%s(%s)",
						off ? " " : "", nx_filters[i].name,
						nx_filter_value_name(i, mm->filt_val[i]),
						src_name(mm->filt_src[i]));
		else
			off += (size_t)snprintf(buf + off, sz - off, "%s%s=unknown",
						off ? " " : "", nx_filters[i].name);
	}
}

enum { RC_NAME, RC_OVERRIDE, RC_EFFECTIVE, RC_SOURCE, RC_SYSTEM };
static const struct nx_colspec rep_cols[] = {
	[RC_NAME] = { "NAME", 10, 0, SCOLS_JSON_STRING, "filter name" },
	[RC_OVERRIDE] = { "OVERRIDE", 7, 0, SCOLS_JSON_STRING, "numa_filters of the process" },
	[RC_EFFECTIVE] = { "EFFECTIVE", 3, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
			   "effective value, from the numa_vmas mm line" },
	[RC_SOURCE] = { "SOURCE", 6, 0, SCOLS_JSON_STRING,
			"system, process, or unknown (not on the mm line)" },
	[RC_SYSTEM] = { "SYSTEM", 3, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "sysctl value" },
};

void nx_pf_report_doc(struct nx_doc *d, pid_t pid, const struct nx_vmlist *l)
{
	struct nx_filters_state sys;
	struct nx_proc_filters pf;
	const struct nx_numab_mm *mm = &l->mm;
	struct nx_table t;
	char title[160];
	int r = nx_pf_read(pid, &pf);
	const char *why = r == -ENOENT ? "absent" : r == -EACCES || r == -EPERM ?
		"unreadable" : r == -ENODATA ? "empty" : "malformed";

	/* a kernel without per-process filters: no table of "absent" (the
	 * support table says numa_filters no) */
	if (r == -ENOENT && !nx_pf_supported())
		return;
	nx_filters_read(&sys);
	if (nx_table_init(&t, "process_filters", rep_cols, sizeof(rep_cols) / sizeof(rep_cols[0]),
			  "NAME,OVERRIDE,EFFECTIVE,SOURCE,SYSTEM", NULL))
		return;
	for (int k = 0; k < NX_NFILTERS; k++) {
		int i = kernel_order[k];
		struct libscols_line *ln = nx_table_line(&t);
		bool eff = l->have_numab && (mm->filt_have & (1u << i));

		nx_table_set(&t, ln, RC_NAME, "%s", nx_filters[i].name);
		nx_table_set(&t, ln, RC_OVERRIDE, "%s", r ? why : !(pf.have & (1u << i)) ?
			     "absent" : nx_pf_value_name(i, pf.val[i]));
		if (eff)
			nx_table_set(&t, ln, RC_EFFECTIVE, "%d", mm->filt_val[i]);
		else
			nx_table_set(&t, ln, RC_EFFECTIVE, "%s", null_or_dash());
		nx_table_set(&t, ln, RC_SOURCE, "%s", eff ? src_name(mm->filt_src[i]) : "unknown");
		if (sys.val[i] >= 0)
			nx_table_set(&t, ln, RC_SYSTEM, "%d", sys.val[i]);
		else
			nx_table_set(&t, ln, RC_SYSTEM, "%s", null_or_dash());
	}
	snprintf(title, sizeof(title), "Filters of process %d (numa_filters; effective from "
		 "the numa_vmas mm line)", (int)pid);
	nx_doc_table(d, &t, title);
	nx_table_free(&t);
}

enum { MC_NAME, MC_VALUE, MC_SETTING, MC_SOURCE };
static const struct nx_colspec mm_cols[] = {
	[MC_NAME] = { "NAME", 10, 0, SCOLS_JSON_STRING, "filter name" },
	[MC_VALUE] = { "VALUE", 3, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "effective value" },
	[MC_SETTING] = { "SETTING", 4, 0, SCOLS_JSON_STRING, "its name" },
	[MC_SOURCE] = { "SOURCE", 6, 0, SCOLS_JSON_STRING, "system, process or unknown" },
};

/* '{ "filters": [...] }' of the mm line, printed into a string */
static char *mm_filters_doc(const struct nx_numab_mm *mm, size_t *len)
{
	const char *sort = nx_opt.sort;
	struct nx_table t;
	char *doc = NULL;
	FILE *mem;

	nx_opt.sort = NULL;	/* -x is for the vmas table */
	if (nx_table_init(&t, "filters", mm_cols, sizeof(mm_cols) / sizeof(mm_cols[0]),
			  "NAME,VALUE,SETTING,SOURCE", NULL)) {
		nx_opt.sort = sort;
		return NULL;
	}
	for (int k = 0; k < NX_NFILTERS; k++) {
		int i = kernel_order[k];
		bool have = mm->filt_have & (1u << i);
		struct libscols_line *ln = nx_table_line(&t);

		nx_table_set(&t, ln, MC_NAME, "%s", nx_filters[i].name);
		if (have) {
			nx_table_set(&t, ln, MC_VALUE, "%d", mm->filt_val[i]);
			nx_table_set(&t, ln, MC_SETTING, "%s",
				     nx_filter_value_name(i, mm->filt_val[i]));
		} else {
			nx_table_set(&t, ln, MC_VALUE, "%s", null_or_dash());
			nx_table_set(&t, ln, MC_SETTING, "unknown");
		}
		nx_table_set(&t, ln, MC_SOURCE, "%s", have ? src_name(mm->filt_src[i]) : "unknown");
	}
	mem = open_memstream(&doc, len);
	if (mem) {
		nx_table_print(&t, mem);
		if (fclose(mem)) {
			free(doc);
			doc = NULL;
		}
	}
	nx_table_free(&t);
	nx_opt.sort = sort;
	return doc;
}

/*
 * Both documents are '{ members }' in the same style (pretty or compact):
 * the members of @fdoc (freed here), a comma, then those of the vmas one.
 */
static int splice_json(char *fdoc, size_t flen, struct nx_table *t, size_t n,
		       nx_row_fn fn, void *priv, FILE *out)
{
	char *doc = NULL, *brace, *end;
	size_t len = 0;
	FILE *mem = open_memstream(&doc, &len);
	int r;

	if (!mem) {
		free(fdoc);
		return -1;
	}
	r = nx_table_emit(t, mem, n, fn, priv);
	if (fclose(mem))
		r = -1;
	brace = doc ? memchr(doc, '{', len) : NULL;
	end = !r && fdoc && flen ? fdoc + flen : NULL;
	while (end && end > fdoc && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	if (!brace || !end || end == fdoc || end[-1] != '}') {
		free(fdoc);
		free(doc);
		return -1;
	}
	end--;
	while (end > fdoc && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	if (fwrite(fdoc, 1, (size_t)(end - fdoc), out) != (size_t)(end - fdoc) ||
	    fputc(',', out) < 0 ||
	    fwrite(brace + 1, 1, len - (size_t)(brace + 1 - doc), out) != len - (size_t)(brace + 1 - doc))
		r = -1;
	free(fdoc);
	free(doc);
	return r;
}

int nx_pf_vmas_json(const struct nx_numab_mm *mm, struct nx_table *t, size_t n,
		    nx_row_fn fn, void *priv, FILE *out)
{
	size_t flen = 0;
	char *fdoc = mm_filters_doc(mm, &flen);

	return splice_json(fdoc, flen, t, n, fn, priv, out);
}

/* vmas with several PIDs: one "filters" table, a row per process and filter */
enum { XC_PID, XC_NAME, XC_VALUE, XC_SETTING, XC_SOURCE };
static const struct nx_colspec multi_cols[] = {
	[XC_PID] = { "PID", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "process id" },
	[XC_NAME] = { "NAME", 10, 0, SCOLS_JSON_STRING, "filter name" },
	[XC_VALUE] = { "VALUE", 3, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "effective value" },
	[XC_SETTING] = { "SETTING", 4, 0, SCOLS_JSON_STRING, "its name" },
	[XC_SOURCE] = { "SOURCE", 6, 0, SCOLS_JSON_STRING, "system, process or unknown" },
};

int nx_pf_multi_init(struct nx_table *t)
{
	return nx_table_init(t, "filters", multi_cols, sizeof(multi_cols) / sizeof(multi_cols[0]),
			     "PID,NAME,VALUE,SETTING,SOURCE", NULL);
}

bool nx_pf_multi_add(struct nx_table *t, pid_t pid, const struct nx_numab_mm *mm)
{
	if (!mm->filt_have)
		return false;
	for (int k = 0; k < NX_NFILTERS; k++) {
		int i = kernel_order[k];
		bool have = mm->filt_have & (1u << i);
		struct libscols_line *ln = nx_table_line(t);

		nx_table_set(t, ln, XC_PID, "%d", (int)pid);
		nx_table_set(t, ln, XC_NAME, "%s", nx_filters[i].name);
		if (have) {
			nx_table_set(t, ln, XC_VALUE, "%d", mm->filt_val[i]);
			nx_table_set(t, ln, XC_SETTING, "%s",
				     nx_filter_value_name(i, mm->filt_val[i]));
		} else {
			nx_table_set(t, ln, XC_VALUE, "%s", null_or_dash());
			nx_table_set(t, ln, XC_SETTING, "unknown");
		}
		nx_table_set(t, ln, XC_SOURCE, "%s", have ? src_name(mm->filt_src[i]) : "unknown");
	}
	return true;
}

int nx_pf_multi_vmas_json(struct nx_table *ft, struct nx_table *t, size_t n,
			  nx_row_fn fn, void *priv, FILE *out)
{
	char *fdoc = NULL;
	size_t flen = 0;
	FILE *mem = open_memstream(&fdoc, &flen);

	if (!mem)
		return -1;
	if (nx_table_print(ft, mem) | fclose(mem)) {
		free(fdoc);
		return -1;
	}
	return splice_json(fdoc, flen, t, n, fn, priv, out);
}
