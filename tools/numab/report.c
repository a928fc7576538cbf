// SPDX-License-Identifier: GPL-2.0
/*
 * numabctl report PID: one file a kernel developer can act on.  Kernel and
 * command line, topology and tiers, every tunable and filter, vmstat deltas
 * over the interval, the VMAs at start and end, the skip reasons traced
 * during the interval (when permitted), the NUMA block of /proc/PID/sched,
 * the cgroup and its cpuset.mems.  Text or JSON, to standard output or a
 * file (nx_write_output(): a regular file atomically, else written through).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "override.h"

#define REPORT_VMA_COLS "START,SIZE,NAME,FAST,SLOW,SLOW%,FILTER,STATE,SEQS,SCANS,PSCANS,VERDICT,WHY"

struct report {
	pid_t pid;
	double sec;
	const char *trace_input;
	bool no_trace;
	struct nx_topo topo;
	struct nx_counters vm0, vm1;
	struct nx_vmlist l0, l1;
	bool have_l1;
	struct nx_trace_result tr;
	int trace_rc;
};

static void header_table(struct nx_doc *d, const struct report *rp)
{
	char path[4096], buf[4096];
	struct nx_table t;
	time_t now = time(NULL);
	struct tm tm;

	if (nx_kv_table_init(&t, "report"))
		return;
	nx_kv_add(&t, "numabctl", "%s", NUMABCTL_VERSION);
	gmtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	nx_kv_add(&t, "date", "%s", buf);
	snprintf(buf, sizeof(buf), "%d", (int)rp->pid);
	nx_kv_num(&t, "pid", buf);
	nx_path(path, sizeof(path), "/proc/%d/comm", (int)rp->pid);
	if (!nx_read_str(path, buf, sizeof(buf)))
		nx_kv_add(&t, "comm", "%s", buf);
	snprintf(buf, sizeof(buf), "%.1f", rp->sec);
	nx_kv_num(&t, "interval_s", buf);
	nx_path(path, sizeof(path), "/proc/sys/kernel/osrelease");
	nx_kv_add(&t, "kernel", "%s", nx_read_str(path, buf, sizeof(buf)) ? "unknown" : buf);
	nx_path(path, sizeof(path), "/proc/cmdline");
	nx_kv_add(&t, "cmdline", "%s", nx_read_str(path, buf, sizeof(buf)) ? "unknown" : buf);
	nx_kv_add(&t, "numa_balancing", "%s", nx_mode_name(nx_numa_balancing_mode()));
	if (rp->l0.missing[0])
		nx_kv_add(&t, "missing", "%s", rp->l0.missing);
	if (!rp->have_l1)
		nx_kv_add(&t, "note", "process exited during the interval: no end snapshot");
	nx_doc_table(d, &t, "Report");
	nx_table_free(&t);
}

enum { VC_COUNTER, VC_START, VC_END, VC_DELTA };
static const struct nx_colspec vmstat_cols[] = {
	[VC_COUNTER] = { "COUNTER", 0.3, 0, SCOLS_JSON_STRING, "vmstat counter" },
	[VC_START] = { "START", 8, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "value at start" },
	[VC_END] = { "END", 8, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "value at end" },
	[VC_DELTA] = { "DELTA", 8, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "change in the interval" },
};

static void vmstat_table(struct nx_doc *d, const struct report *rp)
{
	struct nx_table t;

	if (nx_table_init(&t, "counters", vmstat_cols, 4, "COUNTER,START,END,DELTA", NULL))
		return;
	for (size_t i = 0; i < rp->vm1.n; i++) {	/* both sorted as in the file */
		struct libscols_line *ln = nx_table_line(&t);
		uint64_t a = 0, b = rp->vm1.val[i];

		nx_counters_get(&rp->vm0, rp->vm1.name[i], &a);
		nx_table_set(&t, ln, VC_COUNTER, "%s", rp->vm1.name[i]);
		nx_table_set(&t, ln, VC_START, "%llu", (unsigned long long)a);
		nx_table_set(&t, ln, VC_END, "%llu", (unsigned long long)b);
		nx_table_set(&t, ln, VC_DELTA, "%lld", (long long)(b - a));
	}
	nx_doc_table(d, &t, "Counters over the interval (/proc/vmstat)");
	nx_table_free(&t);
}

static void vmas_tables(struct nx_doc *d, const struct report *rp)
{
	const char *cols = nx_opt.json ? "START,END,SIZE,PERMS,NAME,FAST,SLOW,SLOW%,FILTER,"
		"STATE,SEQS,START_SEQ,PREV_SEQ,PIDBITS,PONLY,SCANS,PSCANS,PTES,SKIP_DELAY,"
		"SKIP_SEQ,SKIP_PID,LAST_SKIP,NEXT_MS,VERDICT,WHY" : REPORT_VMA_COLS;
	struct nx_table t;
	char title[128];

	snprintf(title, sizeof(title), "VMAs at start (scan_seq %llu)",
		 (unsigned long long)rp->l0.mm.scan_seq);
	if (!nx_vmas_table(&t, &rp->l0, cols, "vmas_start", false, 0)) {
		nx_doc_table(d, &t, title);
		nx_table_free(&t);
	}
	if (!rp->have_l1)
		return;
	snprintf(title, sizeof(title), "VMAs at end (scan_seq %llu)",
		 (unsigned long long)rp->l1.mm.scan_seq);
	if (!nx_vmas_table(&t, &rp->l1, cols, "vmas_end", false, 0)) {
		nx_doc_table(d, &t, title);
		nx_table_free(&t);
	}
}

static void skips_table(struct nx_doc *d, const struct report *rp)
{
	struct nx_table t;

	if (rp->trace_rc == NX_OK && rp->tr.n) {
		if (!nx_trace_table(&t, &rp->tr, rp->have_l1 ? &rp->l1 : &rp->l0, NULL)) {
			nx_doc_table(d, &t, "VMA skips traced during the interval");
			nx_table_free(&t);
		}
		return;
	}
	if (nx_kv_table_init(&t, "skips"))
		return;
	if (rp->trace_rc == NX_OK)	/* traced, and nothing of the process skipped */
		nx_kv_add(&t, "trace", "no VMA of %d was skipped while tracing (%lu events of "
			  "other tasks)", (int)rp->pid, rp->tr.other_tasks);
	else if (rp->trace_rc == -1)
		nx_kv_add(&t, "trace", "not traced (--no-trace)");
	else
		nx_kv_add(&t, "trace", "not traced: %s", rp->tr.why[0] ? rp->tr.why :
			  "tracing failed");
	nx_doc_table(d, &t, "VMA skips");
	nx_table_free(&t);
}

static int sched_line(void *priv, const char *line, size_t len, unsigned long no)
{
	struct nx_table *t = priv;
	struct nx_span k, v;
	char key[128];

	(void)no;
	if (nx_parse_sched_line(line, len, &k, &v) || !memmem(k.p, k.n, "numa", 4))
		return 0;
	if (!v.p) {	/* "numa_faults node=0 ..." and "current_node=0, ..." */
		size_t kl = 0;

		while (kl < k.n && k.p[kl] != ' ' && k.p[kl] != '=')
			kl++;
		if (kl < k.n && k.p[kl] == '=' && memmem(k.p, k.n, ", ", 2)) {
			/* "a=1, b=2": a row for each, not one row "a" = "1, b=2" */
			const char *p = k.p, *end = k.p + k.n;

			while (p < end) {
				const char *c = memmem(p, (size_t)(end - p), ", ", 2);
				const char *e = c ? c : end, *eq = memchr(p, '=', (size_t)(e - p));

				if (eq) {
					snprintf(key, sizeof(key), "%.*s", (int)(eq - p), p);
					nx_kv_add(t, key, "%.*s", (int)(e - eq - 1), eq + 1);
				}
				p = c ? c + 2 : end;
			}
			return 0;
		}
		v.p = k.p + kl + (kl < k.n);
		v.n = k.n - kl - (kl < k.n);
		k.n = kl;
	}
	snprintf(key, sizeof(key), "%.*s", (int)k.n, k.p);
	nx_kv_add(t, key, "%.*s", (int)v.n, v.p);
	return 0;
}

static void sched_table(struct nx_doc *d, pid_t pid)
{
	struct nx_table t;
	char path[4096];
	int r;

	if (nx_kv_table_init(&t, "sched"))
		return;
	nx_path(path, sizeof(path), "/proc/%d/sched", (int)pid);
	r = nx_for_each_line(path, sched_line, &t);
	if (r)
		nx_kv_add(&t, "error", "%s: %s", path, strerror(-r));
	nx_doc_table(d, &t, "NUMA block of /proc/PID/sched");
	nx_table_free(&t);
}

static int cgroup_line(void *priv, const char *line, size_t len, unsigned long no)
{
	struct nx_table *t = priv;
	const char *c1 = memchr(line, ':', len), *c2;
	char path[4096], buf[1024];

	(void)no;
	if (!c1 || !(c2 = memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line))))
		return 0;
	nx_kv_add(t, "cgroup", "%.*s", (int)len, line);
	if (c2 != c1 + 1 || len - (size_t)(c2 + 1 - line) > 2048)
		return 0;	/* cgroup v1 controller line */
	nx_path(path, sizeof(path), "/sys/fs/cgroup%.*s/cpuset.mems", (int)(len - (size_t)(c2 + 1 - line)), c2 + 1);
	if (!nx_read_str(path, buf, sizeof(buf)))
		nx_kv_add(t, "cpuset.mems", "%s", buf[0] ? buf : "(empty: inherited)");
	strncat(path, ".effective", sizeof(path) - strlen(path) - 1);
	if (!nx_read_str(path, buf, sizeof(buf)))
		nx_kv_add(t, "cpuset.mems.effective", "%s", buf);
	return 0;
}

static int status_line(void *priv, const char *line, size_t len, unsigned long no)
{
	struct nx_table *t = priv;

	(void)no;
	if (len > 18 && !memcmp(line, "Mems_allowed_list:", 18))
		nx_kv_add(t, "Mems_allowed_list", "%.*s", (int)(len - 19), line + 19);
	else if (len > 18 && !memcmp(line, "Cpus_allowed_list:", 18))
		nx_kv_add(t, "Cpus_allowed_list", "%.*s", (int)(len - 19), line + 19);
	return 0;
}

static void cgroup_table(struct nx_doc *d, pid_t pid)
{
	struct nx_table t;
	char path[4096];

	if (nx_kv_table_init(&t, "cgroup"))
		return;
	nx_path(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if (nx_for_each_line(path, cgroup_line, &t))
		nx_kv_add(&t, "cgroup", "unreadable: %s", path);
	nx_path(path, sizeof(path), "/proc/%d/status", (int)pid);
	nx_for_each_line(path, status_line, &t);
	nx_doc_table(d, &t, "Cgroup and memory policy");
	nx_table_free(&t);
}

static void compose(FILE *out, struct report *rp)
{
	struct nx_doc d;

	nx_doc_begin(&d, out);
	header_table(&d, rp);
	nx_status_doc(&d, &rp->topo, false);
	nx_pf_report_doc(&d, rp->pid, &rp->l0);	/* per-process filters */
	vmstat_table(&d, rp);
	vmas_tables(&d, rp);
	skips_table(&d, rp);
	sched_table(&d, rp->pid);
	cgroup_table(&d, rp->pid);
	nx_doc_end(&d);
}

static int collect(struct report *rp)
{
	double t0;
	int r;

	if (nx_topo_load(&rp->topo))
		return NX_ERUNTIME;
	r = nx_vmlist_load(&rp->l0, rp->pid, &rp->topo, 4);
	if (r)
		return r;
	nx_counters_load(&rp->vm0);
	t0 = nx_now();
	if (rp->no_trace)
		rp->trace_rc = -1;
	else
		rp->trace_rc = nx_trace_collect(rp->pid, rp->sec, rp->trace_input, &rp->tr, true);
	if (rp->trace_rc == NX_OK && !rp->trace_input)
		nx_shmem_learn(&rp->l0, &rp->tr, rp->pid);
	nx_sleep(rp->sec - (nx_now() - t0));	/* when tracing could not run */
	nx_counters_load(&rp->vm1);
	rp->have_l1 = nx_vmlist_load(&rp->l1, rp->pid, &rp->topo, 4) == NX_OK;
	return NX_OK;
}

static void release(struct report *rp)
{
	nx_topo_free(&rp->topo);
	nx_counters_free(&rp->vm0);
	nx_counters_free(&rp->vm1);
	nx_vmlist_free(&rp->l0);
	nx_vmlist_free(&rp->l1);
	nx_trace_free(&rp->tr);
}

static void report_usage(FILE *out)
{
	fputs("Usage: numabctl report [OPTIONS] PID\n\n"
	      "Write one report a kernel developer can act on: kernel and command line,\n"
	      "topology and tiers, tunables and filters, vmstat deltas over the\n"
	      "interval, the VMAs of PID at start and end, the skip reasons traced\n"
	      "during the interval (as root), the NUMA block of /proc/PID/sched, the\n"
	      "cgroup and cpuset.mems.  Plain text, or JSON with -J.\n\n"
	      "  -d, --duration SEC   interval (default 5)\n"
	      "  -w, --write FILE     write to FILE (- for stdout, the default): a\n"
	      "                       regular file is replaced atomically, a device,\n"
	      "                       FIFO or symlink written through, as by '>'\n"
	      "      --no-trace       do not trace even when permitted\n"
	      "      --trace-input F  take skip reasons from a saved trace file\n\n"
	      "The columns of the report are fixed: -o, -x and the like are errors.\n", out);
}

int cmd_report(int argc, char **argv)
{
	static const struct option lo[] = {
		NX_COMMON_LONGOPTS,
		{ "duration", required_argument, NULL, 'd' },
		{ "no-trace", no_argument, NULL, 'N' },
		{ "trace-input", required_argument, NULL, 'I' },
		{ "write", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	struct report rp = { .sec = 5 };
	const char *file = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	int c, r;

	while ((c = getopt_long(argc, argv, ":d:w:" NX_COMMON_SHORTOPTS, lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (nx_parse_seconds(optarg, &rp.sec))
				return NX_EUSAGE;
			break;
		case 'w': file = optarg; break;
		case 'N': rp.no_trace = true; break;
		case 'I': rp.trace_input = optarg; break;
		default:
			r = nx_opt_other(c, optarg, report_usage);
			if (r >= 0)
				return r;
		}
	}
	r = nx_opts_done(NULL, 0);
	if (r >= 0)
		return r;
	r = nx_pid_operand(argc, argv, report_usage, &rp.pid);
	if (r >= 0)
		return r;
	r = collect(&rp);
	if (r) {
		release(&rp);
		return r;
	}
	nx_vmlist_warn(&rp.l0);
	mem = open_memstream(&buf, &len);
	if (!mem) {
		release(&rp);
		return NX_ERUNTIME;
	}
	compose(mem, &rp);
	fclose(mem);
	release(&rp);
	r = nx_write_output(file ? file : "-", buf, len);
	free(buf);
	return r;
}
