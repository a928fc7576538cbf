// SPDX-License-Identifier: GPL-2.0
/*
 * numabctl report PID: one file a kernel developer can act on.  Kernel and
 * command line, the process's slow-tier memory by cause (which VMAs are
 * stranded, what holds them, what to do), topology and tiers, every
 * tunable and filter, vmstat deltas over the interval, the VMAs at start
 * and end, the skip reasons traced during the interval (when permitted),
 * the NUMA block of /proc/PID/sched, the cgroup and its cpuset.mems.  Text or JSON, to standard output or a
 * file (nx_write_output(): a regular file atomically, else written through).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
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
	long cpu0, cpu1;	/* busiest thread's CPU ms at start and end, or -1 */
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

enum { CC_VERDICT, CC_CAUSE, CC_SLOW, CC_SHARE, CC_VMAS, CC_LARGEST, CC_MEANING };
static const struct nx_colspec cause_cols[] = {
	[CC_VERDICT] = { "VERDICT", 8, 0, SCOLS_JSON_STRING, "verdict on the VMAs (stranded, ok, ...)" },
	[CC_CAUSE] = { "CAUSE", 10, 0, SCOLS_JSON_STRING, "the filter or check that holds them" },
	[CC_SLOW] = { "SLOW", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "their slow-tier memory" },
	[CC_SHARE] = { "SHARE%", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		       "share of the process's slow-tier memory" },
	[CC_VMAS] = { "VMAS", 4, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "VMAs with slow-tier memory" },
	[CC_LARGEST] = { "LARGEST", 0.5, 0, SCOLS_JSON_STRING,
			 "the largest VMAs by slow-tier memory, named as in the VMA table" },
	[CC_MEANING] = { "MEANING", 0.5, 0, SCOLS_JSON_STRING, "what it means and what to do" },
};

/* a size for a sentence: as the tables show it, but never bytes for -J */
static const char *sentence_size(char *buf, uint64_t bytes)
{
	if (nx_opt.bytes)
		return nx_fmt_u64(buf, bytes);
	nx_human_size(bytes, buf, 32);
	return buf;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/*
 * One sentence on @l's slow-tier memory: how much, how much of it
 * stranded, or why there is nothing to show
 */
static void causes_summary(char *buf, size_t sz, const struct report *rp,
			   const struct nx_vmlist *l, uint64_t fast, uint64_t slow,
			   uint64_t stranded, size_t nstranded)
{
	char a[32], b[32];
	int pid = (int)rp->pid;
	size_t off;

	if (!l->have_numa_maps) {
		snprintf(buf, sz, "No /proc/%d/numa_maps: which memory of process %d is on "
			 "the slow tier is unknown", pid, pid);
		return;
	}
	if (l->tiers_unknown) {
		snprintf(buf, sz, "A memory tier's nodelist is malformed: which memory of "
			 "process %d is on the slow tier is unknown", pid);
		return;
	}
	if (nx_mask_empty(&rp->topo.slow)) {
		snprintf(buf, sz, "Nothing of process %d is on the slow tier: this host has none "
			 "(every node is in the top tier)", pid);
		return;
	}
	if (!slow) {
		snprintf(buf, sz, "Nothing of process %d is on the slow tier (%s resident, all on the "
			 "fast tier): nothing to promote", pid, sentence_size(a, fast));
		return;
	}
	off = (size_t)snprintf(buf, sz, "%s of the memory of process %d is on the slow tier (%.1f%% of %s "
			       "resident); ", sentence_size(a, slow), pid, pct(slow, fast + slow),
			       sentence_size(b, fast + slow));
	if (off >= sz)
		return;
	if (stranded)
		snprintf(buf + off, sz - off, "%s of it (%.1f%%) is stranded, in %zu VMA%s: the "
			 "stranded rows say what holds it", sentence_size(a, stranded),
			 pct(stranded, slow), nstranded, nstranded == 1 ? "" : "s");
	else if (!l->have_numab)
		snprintf(buf + off, sz - off, "whether any of it is stranded is unknown: no "
			 "scan state");
	else
		snprintf(buf + off, sz - off, "nothing of it is stranded");
}

/* "anon 128M, /usr/lib/x86_64-linux-gnu/libc.so.6 80K": the largest of @c */
static void largest_text(char *buf, size_t sz, const struct nx_vmlist *l,
			 const struct nx_cause *c)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < c->ntop && off < sz; k++) {
		const struct nx_vma *v = &l->v[c->top[k]];
		char s[32];

		off += (size_t)snprintf(buf + off, sz - off, "%s%s %s", k ? ", " : "",
					v->name, nx_fmt_size(s, v->slow_bytes));
	}
	if (c->nvmas > c->ntop && off < sz)
		snprintf(buf + off, sz - off, ", ... (%zu more)", c->nvmas - c->ntop);
}

/* the "largest" member of a cause's JSON object: [{start, name, slow}, ...] */
static struct json_object *largest_json(const struct nx_vmlist *l, const struct nx_cause *c)
{
	struct json_object *arr = json_object_new_array();

	for (size_t k = 0; arr && k < c->ntop; k++) {
		const struct nx_vma *v = &l->v[c->top[k]];
		struct json_object *o = json_object_new_object();
		char hex[24];

		if (!o)
			break;
		json_object_object_add(o, "start", json_object_new_string(nx_fmt_hex(hex, v->start)));
		json_object_object_add(o, "name", json_object_new_string(v->name));
		json_object_object_add(o, "slow", v->slow_bytes > INT64_MAX ?
				       json_object_new_uint64(v->slow_bytes) :
				       json_object_new_int64((int64_t)v->slow_bytes));
		json_object_array_add(arr, o);
	}
	return arr;
}

/*
 * "Slow-tier memory by cause": the process's slow-tier memory at the end
 * of the interval by verdict and what holds it, the largest VMAs of each
 * group, and a line each on what the cause means and what to do.  One
 * sentence says how much is slow and stranded, or why nothing is shown.
 * JSON: slow_summary (key/value, numbers as numbers) and slow_causes (an
 * object per group, bytes as numbers, "largest" an array of VMAs).
 */
static void causes_section(struct nx_doc *d, const struct report *rp)
{
	const struct nx_vmlist *l = rp->have_l1 ? &rp->l1 : &rp->l0;
	bool known = l->have_numa_maps && !l->tiers_unknown;
	uint64_t fast, slow, stranded;
	struct nx_cause *c = NULL;
	size_t nc = 0, nstranded = 0;
	struct nx_table t, kv;
	char title[160], seq[32] = "", sentence[512], buf[32];
	int width = 0;

	nx_vmlist_totals(l, &fast, &slow, &stranded);
	if (known && nx_slow_causes(l, &c, &nc)) {
		nx_warn("out of memory grouping the slow-tier memory");
		c = NULL;
		nc = 0;
	}
	for (size_t i = 0; i < nc; i++)
		if (!strcmp(c[i].verdict, "stranded"))
			nstranded += c[i].nvmas;
	causes_summary(sentence, sizeof(sentence), rp, l, fast, slow, stranded, nstranded);
	if (l->have_numab && (l->mm.have & MM_HAVE_SEQ))
		snprintf(seq, sizeof(seq), ", scan_seq %llu", (unsigned long long)l->mm.scan_seq);
	snprintf(title, sizeof(title), "Slow-tier memory by cause (%s%s)",
		 rp->have_l1 ? "end of the interval" : "start: the process exited", seq);
	nx_doc_title(d, title);
	if (!nx_opt.json)
		fprintf(d->out, "%s.\n", sentence);
	if (!nx_kv_table_init(&kv, "slow_summary")) {
		nx_kv_add(&kv, "summary", "%s", sentence);
		nx_kv_add(&kv, "snapshot", "%s", rp->have_l1 ? "end" : "start");
		nx_kv_num(&kv, "scan_seq", seq[0] ? nx_fmt_u64(buf, l->mm.scan_seq) : NULL);
		nx_kv_num(&kv, "fast", known ? nx_fmt_u64(buf, fast) : NULL);
		nx_kv_num(&kv, "slow", known ? nx_fmt_u64(buf, slow) : NULL);
		nx_kv_num(&kv, "stranded", known && l->have_numab ? nx_fmt_u64(buf, stranded) : NULL);
		nx_doc_json(d, "slow_summary", nx_table_json(&kv));
		nx_table_free(&kv);
	}
	if (nx_table_init(&t, "slow_causes", cause_cols, sizeof(cause_cols) / sizeof(cause_cols[0]),
			  nx_opt.json ? "VERDICT,CAUSE,SLOW,SHARE%,VMAS,MEANING" :
			  "VERDICT,CAUSE,SLOW,SHARE%,VMAS,LARGEST", NULL)) {
		free(c);
		return;
	}
	for (size_t i = 0; i < nc; i++) {
		struct libscols_line *ln = nx_table_line(&t);
		char largest[1024];

		nx_table_set(&t, ln, CC_VERDICT, "%s", c[i].verdict);
		nx_table_set(&t, ln, CC_CAUSE, "%s", c[i].holder);
		nx_table_size(&t, ln, CC_SLOW, c[i].slow);
		nx_table_set(&t, ln, CC_SHARE, "%s", nx_fmt_pct(buf, pct(c[i].slow, slow)));
		nx_table_set(&t, ln, CC_VMAS, "%zu", c[i].nvmas);
		largest_text(largest, sizeof(largest), l, &c[i]);
		nx_table_set(&t, ln, CC_LARGEST, "%s", largest);
		nx_table_set(&t, ln, CC_MEANING, "%s", nx_cause_text(c[i].verdict, c[i].holder));
		if ((int)(strlen(c[i].verdict) + 1 + strlen(c[i].holder)) > width)
			width = (int)(strlen(c[i].verdict) + 1 + strlen(c[i].holder));
	}
	if (nx_opt.json) {
		struct json_object *arr = nx_table_json(&t);

		for (size_t i = 0; arr && i < nc; i++)
			json_object_object_add(json_object_array_get_idx(arr, i), "largest",
					       largest_json(l, &c[i]));
		nx_doc_json(d, "slow_causes", arr);
	} else if (nc) {
		nx_table_print(&t, d->out);
		for (size_t i = 0; i < nc; i++) {
			char key[64];

			snprintf(key, sizeof(key), "%s:%s", c[i].verdict, c[i].holder);
			fprintf(d->out, "%-*s  %s\n", width, key,
				nx_cause_text(c[i].verdict, c[i].holder));
		}
	}
	nx_table_free(&t);
	free(c);
}

/* a debugfs NUMA balancing tunable, or -1 when unreadable (not root) */
static long nb_tunable(const char *name)
{
	char path[4096];
	long v;

	if (nx_path(path, sizeof(path), NX_NB_DEBUGFS "/%s", name) ||
	    nx_read_long(path, &v) || v < 0)
		return -1;
	return v;
}

/*
 * "Scan pace": how far the mm's next scan window is, from the numa_vmas
 * mm line at the start and end of the interval, against the longest
 * scan period task_scan_max() allows the process (scan_period_max_ms
 * over its scan windows of scan_size_mb, not scaled by a NUMA group).
 * In memory-tiering mode each promotion counts as a fault that is
 * neither local nor shared, and update_task_scan_period() doubles the
 * period of the task that took it up to that ceiling; it does not come
 * down while promotions are the only faults (tests/vm/tiering_scan_period
 * in the numab tree measures the doubling). A next window at least four
 * times the period a task starts with (the scan delay, or the minimum
 * period when longer) away in tiering mode gets a sentence saying so:
 * the process's slow-tier pages that no scan has marked wait for it.
 * So does a window overdue by as much at the end while the process ran
 * (its busiest thread's CPU time grew): a thread starts a window only
 * after its own period of CPU time (task_tick_numa()), so a window that
 * is due and not started is a long period too.
 */
static void pace_section(struct nx_doc *d, const struct report *rp)
{
	const struct nx_vmlist *l0 = &rp->l0, *l1 = rp->have_l1 ? &rp->l1 : &rp->l0;
	long pmin = nb_tunable("scan_period_min_ms"), pmax = nb_tunable("scan_period_max_ms");
	long size = nb_tunable("scan_size_mb"), delay = nb_tunable("scan_delay_ms");
	long mode = nx_numa_balancing_mode();
	uint64_t fast, slow, stranded, windows = 0;
	long long next, smin = -1, start = -1, ceiling = -1, overdue = LLONG_MIN;
	bool tiering;
	long ran;
	char buf[32], head[320] = "", note[768] = "-";
	struct nx_table t;

	if (!l0->have_numab || !(l0->mm.have & MM_HAVE_NEXT))
		return;
	if (nx_kv_table_init(&t, "scan_pace"))
		return;
	nx_vmlist_totals(l1, &fast, &slow, &stranded);
	if (size > 0 && pmin >= 0 && pmax >= 0 && delay >= 0) {
		uint64_t win = (uint64_t)size << 20;
		long long floor_ms = 1000LL * size / 2560;	/* MAX_SCAN_WINDOW */

		windows = (fast + slow + win - 1) / win;
		if (!windows)
			windows = 1;
		smin = pmin / (long long)windows;
		if (smin < floor_ms)
			smin = floor_ms;
		ceiling = pmax / (long long)windows;
		if (ceiling < smin)
			ceiling = smin;
		/* a task's first period is the scan delay (init_numa_balancing()) */
		start = delay > smin ? delay : smin;
	}
	next = l0->mm.next_scan_ms;
	if ((l1->mm.have & MM_HAVE_NEXT) && l1->mm.next_scan_ms > next)
		next = l1->mm.next_scan_ms;
	if (rp->have_l1 && (l1->mm.have & MM_HAVE_NEXT))
		overdue = -(long long)l1->mm.next_scan_ms;
	ran = rp->cpu0 >= 0 && rp->cpu1 >= 0 ? rp->cpu1 - rp->cpu0 : -1;
	tiering = ceiling > 0 && mode >= 0 && (mode & 2);
	if (tiering && overdue >= 4 * start && ran > 0)
		snprintf(head, sizeof(head),
			 "the next scan window is %lld ms overdue although the process ran (its "
			 "busiest thread %ld ms of CPU in the interval): a thread starts a window "
			 "only once it has run its own scan period of CPU time since its last, so "
			 "the period is long (ceiling %lld ms)", overdue, ran, ceiling);
	else if (tiering && next >= 4 * start)
		snprintf(head, sizeof(head),
			 "the next scan window is %lld ms away, %.1f times the period a task starts "
			 "with (%lld ms; ceiling %lld ms)",
			 next, (double)next / (double)start, start, ceiling);
	if (head[0])
		snprintf(note, sizeof(note), "%s: in memory-tiering mode each promotion doubles "
			 "the scan period of the task that faulted, up to the ceiling, and it does "
			 "not come down while promotions are its only faults; slow-tier pages no "
			 "scan has marked wait for the next window (scan_period_max_ms bounds it)",
			 head);
	nx_kv_num(&t, "scan_seq_start", nx_fmt_u64(buf, l0->mm.scan_seq));
	nx_kv_num(&t, "scan_seq_end", rp->have_l1 ? nx_fmt_u64(buf, l1->mm.scan_seq) : NULL);
	snprintf(buf, sizeof(buf), "%lld", (long long)l0->mm.next_scan_ms);
	nx_kv_num(&t, "next_scan_ms_start", buf);
	snprintf(buf, sizeof(buf), "%lld", (long long)l1->mm.next_scan_ms);
	nx_kv_num(&t, "next_scan_ms_end",
		  rp->have_l1 && (l1->mm.have & MM_HAVE_NEXT) ? buf : NULL);
	if (ceiling > 0) {
		nx_kv_num(&t, "scan_windows", nx_fmt_u64(buf, windows));
		snprintf(buf, sizeof(buf), "%lld", smin);
		nx_kv_num(&t, "period_min_ms", buf);
		snprintf(buf, sizeof(buf), "%lld", start);
		nx_kv_num(&t, "period_start_ms", buf);
		snprintf(buf, sizeof(buf), "%lld", ceiling);
		nx_kv_num(&t, "period_ceiling_ms", buf);
	} else {
		nx_kv_add(&t, "period_ceiling_ms", "unknown: %s",
			  "the debugfs tunables are unreadable (root can read them)");
	}
	snprintf(buf, sizeof(buf), "%ld", rp->cpu0);
	nx_kv_num(&t, "busiest_thread_cpu_ms_start", rp->cpu0 >= 0 ? buf : NULL);
	snprintf(buf, sizeof(buf), "%ld", rp->cpu1);
	nx_kv_num(&t, "busiest_thread_cpu_ms_end", rp->cpu1 >= 0 ? buf : NULL);
	nx_kv_add(&t, "note", "%s", note);
	nx_doc_table(d, &t, "Scan pace (numa_vmas mm line)");
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
	causes_section(&d, rp);	/* near the top: what is stranded and why */
	pace_section(&d, rp);
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
	/* for the scan pace, shown only with scan state */
	rp->cpu0 = rp->l0.have_numab ? nx_threads_cpu_ms_max(rp->pid) : -1;
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
	rp->cpu1 = rp->have_l1 && rp->l0.have_numab ? nx_threads_cpu_ms_max(rp->pid) : -1;
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
	      "the slow-tier memory of PID by cause (what is stranded, what holds it,\n"
	      "what to do), topology and tiers, tunables and filters, vmstat deltas\n"
	      "over the interval, the VMAs of PID at start and end, the skip reasons\n"
	      "traced during the interval (as root), the NUMA block of /proc/PID/sched,\n"
	      "the cgroup and cpuset.mems.  Plain text, or JSON with -J.\n\n"
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
