// SPDX-License-Identifier: GPL-2.0
/*
 * numabctl report PID: one file a kernel developer can act on.  Kernel and
 * command line, the process's slow-tier memory by cause (which VMAs are
 * stranded, what holds them, what to do), the scan pace (what slows its
 * promotion: the scan period, CPU-time pacing, the hot threshold or the
 * rate limit), topology and tiers, every tunable and filter, vmstat
 * deltas over the interval, the VMAs at start and end, the skip reasons
 * traced during the interval (when permitted), the NUMA block of
 * /proc/PID/sched, the cgroup and its cpuset.mems.  Text or JSON, to
 * standard output or a file (nx_out_open() before sampling, as the shell
 * opens it, and nx_out_write() after: a regular file
 * atomically, else written through).
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
	struct nx_topo topo, topo1;	/* at the start; free memory again at the end */
	bool have_topo1;
	struct nx_counters vm0, vm1;
	struct nx_vmlist l0, l1;
	bool have_l1;
	struct nx_trace_result tr;
	int trace_rc;
	/* the threads' CPU times at the start and end (scan state only), when read */
	struct nx_threads_cpu cpu0, cpu1;
	bool have_cpu0, have_cpu1;
	double t_cpu0, t_cpu1;
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
		json_object_object_add(o, "name", nx_json_string(v->name));
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

/* what the scan pace section finds, and why */
struct pace {
	long mode;
	bool tiering;
	bool have_next0, have_next1;
	long long next0, next1;	/* the mm's next scan window, ms (negative: due) */
	long long task_ms;	/* BPF: numa_scan_period of thread task_tid, 0 unknown */
	long task_tid;
	uint64_t windows;
	long long smin, start, ceiling;	/* -1: the debugfs tunables are unreadable */
	long long at_least;	/* the period is at least this (ms), 0 unknown */
	long long interval;	/* ms between the two snapshots, -1 unknown */
	long cpu0, cpu1, ran, ran_tid;	/* busiest thread: CPU ms; -1 unknown */
	bool due_all;		/* the window was due the whole interval */
	int ps;			/* promo_slowdown in effect, -1 absent or unknown */
	const char *ps_src, *fix;
	bool have_ctr;		/* the vmstat deltas below */
	uint64_t hint, cand, prom, mfail;
	const char *held_by;	/* hot_threshold, rate_limit, both; NULL */
	int c_period, c_pacing, c_hot;	/* 1 yes, 0 no, -1 unknown */
	char why_period[1600], why_pacing[768], why_hot[1024];
};

/* the scan periods task_scan_min(), the first and task_scan_max() of a task of @bytes */
static void pace_periods(struct pace *p, uint64_t bytes)
{
	long pmin = nb_tunable("scan_period_min_ms"), pmax = nb_tunable("scan_period_max_ms");
	long size = nb_tunable("scan_size_mb"), delay = nb_tunable("scan_delay_ms");
	uint64_t win;
	long long floor_ms;

	p->smin = p->start = p->ceiling = -1;
	if (size <= 0 || pmin < 0 || pmax < 0 || delay < 0)
		return;
	win = (uint64_t)size << 20;
	floor_ms = 1000LL * size / 2560;	/* MAX_SCAN_WINDOW */
	p->windows = (bytes + win - 1) / win;
	if (!p->windows)
		p->windows = 1;
	p->smin = pmin / (long long)p->windows;
	if (p->smin < floor_ms)
		p->smin = floor_ms;
	p->ceiling = pmax / (long long)p->windows;
	if (p->ceiling < p->smin)
		p->ceiling = p->smin;
	/* a task's first period is the scan delay (init_numa_balancing()) */
	p->start = delay > p->smin ? delay : p->smin;
}

/*
 * The scan-period rule for promotions in effect for the process: the
 * mm line's filter_promo_slowdown, else its numa_filters override, else
 * the sysctl; a kernel without the sysctl lacks the rule ("absent")
 */
static void pace_rule(const struct report *rp, const struct nx_vmlist *l, struct pace *p)
{
	const int i = NX_F_PROMO_SLOWDOWN;
	struct nx_filters_state st;
	struct nx_proc_filters pf;

	nx_filters_read(&st);
	p->ps = -1;
	p->ps_src = p->fix = "unknown";
	if (st.err[i] == -ENOENT) {
		p->ps_src = p->fix = "absent";
		return;
	}
	if (l->have_numab && (l->mm.filt_have & (1u << i))) {
		p->ps = l->mm.filt_val[i];
		p->ps_src = l->mm.filt_src[i] == NX_FSRC_PROCESS ? "process" :
			    l->mm.filt_src[i] == NX_FSRC_SYSTEM ? "system" : "unknown";
	} else if (!nx_pf_read(rp->pid, &pf) &&
		   nx_pf_applied(&pf, i, st.val[i]) != NX_FILTER_INHERIT) {
		p->ps = pf.val[i];
		p->ps_src = "process";
	} else if (st.val[i] >= 0) {
		p->ps = st.val[i];
		p->ps_src = "system";
	}
	if (p->ps >= 0)
		p->fix = p->ps ? "off" : "on";
}

/* whether this kernel's rule lets promotions lengthen the period, in words */
static void fix_text(const struct report *rp, const struct pace *p, char *buf, size_t sz)
{
	if (!strcmp(p->fix, "absent"))
		snprintf(buf, sz, "this kernel lacks the fix (no kernel.numa_balancing_filter_"
			 "promo_slowdown): each promotion-only scan sequence doubles the period, "
			 "up to the ceiling, and nothing shortens it while promotions are the "
			 "only faults");
	else if (!strcmp(p->fix, "on"))
		snprintf(buf, sz, "this kernel's scan-period rule for promotions is on "
			 "(promotions shorten the period)");
	else if (!strcmp(p->fix, "off"))
		snprintf(buf, sz, "promo_slowdown=1 (%s): promotions lengthen the period as on "
			 "stock; 'numabctl filter promo_slowdown=off' (every process) or "
			 "'numabctl filter --pid %d promo_slowdown=%s' (this one) lets a scan "
			 "sequence that mostly promotes shorten it", p->ps_src, (int)rp->pid,
			 !strcmp(p->ps_src, "process") ? "inherit" : "off");
	else
		snprintf(buf, sz, "whether this kernel's scan-period rule for promotions is on "
			 "is unknown (kernel.numa_balancing_filter_promo_slowdown unreadable)");
}

/* why the mm's next scan window is not known */
static void no_next_text(const struct nx_vmlist *l, char *buf, size_t sz)
{
	if (!l->have_numab)
		snprintf(buf, sz, "no scan state (no /proc/%d/numa_vmas, no BPF backend%s%s)",
			 (int)l->pid, l->backend_note[0] ? ": " : "", l->backend_note);
	else if (l->backend == NX_BACKEND_BPF && l->next_hz_unknown)
		snprintf(buf, sz, "the BPF backend reads the mm's next scan time in jiffies, "
			 "and this kernel's HZ is unknown");
	else
		snprintf(buf, sz, "the mm has no next scan window yet (none scheduled since it "
			 "began)");
}

/*
 * numa_vmas has no thread's period; the BPF backend reads one thread's
 * (the one its iterator walks), which may not be the one in question
 */
void nx_pace_period_unknown(const struct nx_vmlist *l, long tid, char *buf, size_t sz)
{
	if (!l->have_numab)
		snprintf(buf, sz, "no scan state");
	else if (l->backend != NX_BACKEND_BPF)
		snprintf(buf, sz, "%s does not give a thread's scan period",
			 nx_backend_name(l->backend));
	else if (l->scan_period_ms && l->scan_period_tid != tid)
		snprintf(buf, sz, "the BPF backend reads the scan period of thread %ld (%ld ms), "
			 "not of thread %ld", l->scan_period_tid, l->scan_period_ms, tid);
	else
		snprintf(buf, sz, "the BPF backend did not read thread %ld's scan period", tid);
}

/* a. a long scan period, and whether promotions may have lengthened it */
static void cause_period(const struct report *rp, const struct nx_vmlist *l, struct pace *p)
{
	char fix[512], ev[320] = "", ref[96];
	long long big = 4 * p->start, next = LLONG_MIN, per = 0;
	char *w = p->why_period;
	size_t sz = sizeof(p->why_period);

	fix_text(rp, p, fix, sizeof(fix));
	p->c_period = -1;
	if (p->have_next0)
		next = p->next0;
	if (p->have_next1 && p->next1 > next)
		next = p->next1;
	if (!p->have_next0 && !p->have_next1 && !p->task_ms) {
		no_next_text(l, ev, sizeof(ev));
		snprintf(w, sz, "unknown: %s; %s", ev, fix);
		return;
	}
	if (p->ceiling < 0) {
		snprintf(w, sz, "unknown: the debugfs tunables are unreadable (root can read "
			 "them), so how long a period is here is unknown; %s", fix);
		return;
	}
	snprintf(ref, sizeof(ref), "the period a task starts with (%lld ms; ceiling %lld ms)",
		 p->start, p->ceiling);
	/* what shows the period: the task's, a window ahead, or one due all along */
	if (p->task_ms) {
		per = p->task_ms;
		snprintf(ev, sizeof(ev), "thread %ld's scan period is %lld ms", p->task_tid, per);
	} else if (next > 0) {
		per = next;
		snprintf(ev, sizeof(ev), "the next scan window is %lld ms away", next);
	} else if (p->due_all && p->ran >= 0) {
		per = p->ran;
		snprintf(ev, sizeof(ev), "the next scan window was due the whole interval (%lld ms "
			 "overdue at its end) and no thread started one although the busiest ran "
			 "%ld ms of CPU: the period is longer than that", -p->next1, p->ran);
	} else {
		nx_pace_period_unknown(l, p->task_tid, ev, sizeof(ev));
		snprintf(w, sz, "unknown: the next scan window is due (%lld ms overdue), which does "
			 "not show how long the period is (%s; a report while a window is ahead "
			 "does); %s", -next, ev, fix);
		return;
	}
	if (per < big && !p->task_ms && next <= 0) {
		snprintf(w, sz, "unknown: %s, which does not show whether it is long (4 times %s); "
			 "%s", ev, ref, fix);
		return;
	}
	if (per < big) {
		p->c_period = 0;
		snprintf(w, sz, "the period is not long: %s, %.1f times %s; %s", ev,
			 (double)per / (double)p->start, ref, fix);
		return;
	}
	p->c_period = 1;
	snprintf(w, sz, "%s, %.1f times %s: %s, so %s; slow-tier pages no scan has marked wait "
		 "for the next window (scan_period_max_ms bounds it)", ev,
		 (double)per / (double)p->start, ref, fix,
		 !strcmp(p->fix, "absent") || !strcmp(p->fix, "off") ?
		 "promotions are the likely cause" : !strcmp(p->fix, "on") ?
		 "promotions did not lengthen it: faults that mostly did not promote (cold "
		 "memory, the rate limit, failed migrations) or a period set before did" :
		 "what lengthened it is unknown");
}

/*
 * b. CPU-time pacing: task_tick_numa() starts a window only for a thread
 * that has run its own scan period of CPU time since its last one
 */
static void cause_pacing(const struct nx_vmlist *l, struct pace *p)
{
	bool exact = p->task_ms && p->ran_tid == p->task_tid;
	long long per = exact ? p->task_ms : p->at_least;
	char *w = p->why_pacing, gap[160], ceil[96];
	size_t sz = sizeof(p->why_pacing);

	p->c_pacing = -1;
	if (!p->have_next1) {
		char why[320];

		no_next_text(l, why, sizeof(why));
		snprintf(w, sz, "unknown: when the next window is due at the end is unknown: %s",
			 why);
		return;
	}
	if (p->next1 > 0) {
		p->c_pacing = 0;
		snprintf(w, sz, "the next window was not due at the end (%lld ms away): the scan "
			 "waits for the mm's window, not for CPU time", p->next1);
		return;
	}
	if (p->ran < 0 || p->interval < 0) {
		snprintf(w, sz, "unknown: the window is due (%lld ms overdue), and the threads' "
			 "CPU times (/proc/PID/task/TID/stat) are not known at both ends",
			 -p->next1);
		return;
	}
	if (p->due_all) {
		p->c_pacing = 1;
		snprintf(w, sz, "the next window was due the whole interval (%lld ms overdue at "
			 "its end) and no thread started it: the busiest (thread %ld) ran %ld ms of "
			 "CPU in %lld ms, less than its scan period, which a thread must run since "
			 "its last window before it starts one (task_tick_numa()); a mostly idle "
			 "process scans rarely", -p->next1, p->ran_tid, p->ran, p->interval);
		return;
	}
	if (per <= 0 || p->interval < per) {
		snprintf(w, sz, "unknown: the window is due (%lld ms overdue); the interval (%lld ms) "
			 "is shorter than the period (%s%lld ms): a report over a longer -d tells",
			 -p->next1, p->interval, exact ? "" : "at least ", per > 0 ? per : 0);
		return;
	}
	if (p->ran < per) {
		p->c_pacing = 1;
		snprintf(w, sz, "the window is due (%lld ms overdue) and the busiest thread (%ld) "
			 "ran %ld ms of CPU in the interval (%lld ms), less than the scan period "
			 "(%s%lld ms): a thread starts a window only after running its scan period "
			 "of CPU time since its last (task_tick_numa()), so a mostly idle process "
			 "scans rarely", -p->next1, p->ran_tid, p->ran, p->interval,
			 exact ? "" : "at least ", per);
		return;
	}
	if (exact || (p->ceiling > 0 && p->ran >= p->ceiling)) {
		p->c_pacing = 0;
		snprintf(w, sz, "the busiest thread (%ld) ran %ld ms of CPU in the interval, more "
			 "than its scan period (%s%lld ms)", p->ran_tid, p->ran, exact ? "" :
			 "at most the ceiling, ", exact ? per : p->ceiling);
		return;
	}
	nx_pace_period_unknown(l, p->ran_tid, gap, sizeof(gap));
	if (p->ceiling > 0)
		snprintf(ceil, sizeof(ceil), " but less than its ceiling (%lld ms)", p->ceiling);
	else
		snprintf(ceil, sizeof(ceil), ", and its ceiling is unknown (the debugfs "
			 "tunables are unreadable)");
	snprintf(w, sz, "unknown: the window is due (%lld ms overdue) and the busiest thread "
		 "(%ld) ran %ld ms of CPU in the interval, more than the period's lower bound "
		 "(%lld ms)%s: whether that is a whole period is unknown (%s)", -p->next1,
		 p->ran_tid, p->ran, per, ceil, gap);
}

/*
 * Does the top tier have room, so that the kernel promotes whatever the
 * hot threshold and the rate limit (pgdat_free_space_enough(): free
 * memory above max(1 GiB, 1/16 of the node) plus the promotion
 * watermark, taken here as 1/64 of the node)?  1 every fast node has
 * room, 0 none has, -1 in between or unknown; the nodes into @buf
 */
static int top_room(const struct nx_topo *topo, char *buf, size_t sz)
{
	int room = 0, nfast = 0, nshort = 0;
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < topo->nnodes; i++) {
		const struct nx_node *n = &topo->nodes[i];
		uint64_t enough = n->total_kb / 16 > (1u << 20) ? n->total_kb / 16 : (1u << 20);
		char a[32], b[32];

		if (!n->fast || !n->total_kb)
			continue;
		nfast++;
		room += n->free_kb >= enough + n->total_kb / 64;
		nshort += n->free_kb < enough;
		nx_human_size(n->free_kb * 1024, a, sizeof(a));
		nx_human_size(n->total_kb * 1024, b, sizeof(b));
		if (off < sz)
			off += (size_t)snprintf(buf + off, sz - off, "%snode %d: %s free of %s",
						off ? ", " : "", n->id, a, b);
	}
	return !nfast ? -1 : room == nfast ? 1 : nshort == nfast ? 0 : -1;
}

/* c. the hot threshold or the promotion rate limit, from system-wide counters */
static void cause_hot(const struct report *rp, struct pace *p)
{
	const struct nx_topo *topo = rp->have_topo1 ? &rp->topo1 : &rp->topo;
	char nodes[256], head[256], thv[24] = "unknown", rlv[24] = "unknown";
	char *w = p->why_hot;
	size_t sz = sizeof(p->why_hot);
	long th = nb_tunable("hot_threshold_ms"), rl = -1;
	int room = top_room(topo, nodes, sizeof(nodes));
	char path[4096];
	bool hot, rate;
	size_t off;

	p->c_hot = -1;
	if (!p->have_ctr) {
		snprintf(w, sz, "unknown: /proc/vmstat lacks numa_hint_faults, pgpromote_candidate "
			 "or pgpromote_success at one end of the interval");
		return;
	}
	snprintf(head, sizeof(head), "%llu hinting faults, %llu promotion candidates, %llu pages "
		 "promoted in the interval (system-wide counters; the promotion ones count "
		 "pages, a huge page as many)", (unsigned long long)p->hint,
		 (unsigned long long)p->cand, (unsigned long long)p->prom);
	if (!p->hint) {
		p->c_hot = 0;
		snprintf(w, sz, "%s: no hinting fault reached the hot threshold or the rate limit; "
			 "pages wait to be marked", head);
		return;
	}
	if (2 * p->prom >= p->hint) {
		p->c_hot = 0;
		snprintf(w, sz, "%s: most faults promoted", head);
		return;
	}
	if (p->mode & 1) {
		snprintf(w, sz, "unknown: %s; in mode %ld numa_hint_faults counts faults on "
			 "top-tier pages too, which never promote, so the faults that did not "
			 "promote say nothing of the threshold", head, p->mode);
		return;
	}
	if (room == 1) {
		p->c_hot = 0;
		snprintf(w, sz, "%s; the top tier had room at the end (%s): the kernel promotes "
			 "regardless of the hot threshold and the rate limit then, so neither held "
			 "these faults back (their migrations failed: pgmigrate_fail +%llu, or the "
			 "pages could not move)", head, nodes, (unsigned long long)p->mfail);
		return;
	}
	nx_path(path, sizeof(path), "/proc/sys/kernel/numa_balancing_promote_rate_limit_MBps");
	nx_read_long(path, &rl);
	p->c_hot = 1;
	hot = 2 * p->cand < p->hint;
	rate = !hot || 2 * p->prom < p->cand;
	p->held_by = hot && rate ? "hot_threshold,rate_limit" : hot ? "hot_threshold" : "rate_limit";
	off = (size_t)snprintf(w, sz, "%s: ", head);
	if (th >= 0)
		snprintf(thv, sizeof(thv), "%ld", th);
	if (rl >= 0)
		snprintf(rlv, sizeof(rlv), "%ld", rl);
	if (hot && off < sz)
		off += (size_t)snprintf(w + off, sz - off, "most faults did not become "
					"candidates: their pages were not touched again within "
					"the hot threshold (hot_threshold_ms %s, which the kernel "
					"adjusts to the rate limit)%s", thv, rate ? "; and " : "");
	if (rate && off < sz)
		off += (size_t)snprintf(w + off, sz - off, "most candidates were not promoted: "
					"the promotion rate limit (kernel.numa_balancing_promote_"
					"rate_limit_MBps %s) held them back, or their migrations "
					"failed (pgmigrate_fail +%llu)", rlv,
					(unsigned long long)p->mfail);
	if (off < sz)
		snprintf(w + off, sz - off, "; the kernel applies %s only while the top tier is "
			 "short of free memory (%s: %s)", hot && rate ? "both" : "it",
			 nodes[0] ? nodes : "no fast node known", room == 0 ? "short of it" :
			 "near the bar, max(1 GiB, 1/16 of a node) above its promotion watermark");
}

/* a counter's change over the interval; false if either end lacks it */
static bool counter_delta(const struct report *rp, const char *name, uint64_t *d)
{
	uint64_t a, b;

	if (!nx_counters_get(&rp->vm0, name, &a) || !nx_counters_get(&rp->vm1, name, &b))
		return false;
	*d = b >= a ? b - a : 0;
	return true;
}

static void pace_compute(const struct report *rp, struct pace *p)
{
	const struct nx_vmlist *l0 = &rp->l0, *l1 = rp->have_l1 ? &rp->l1 : &rp->l0;
	uint64_t fast, slow, stranded;

	memset(p, 0, sizeof(*p));
	p->mode = nx_numa_balancing_mode();
	p->tiering = p->mode > 0 && (p->mode & 2);
	nx_vmlist_totals(l1, &fast, &slow, &stranded);
	pace_periods(p, fast + slow);
	/* next_scan_ms 0: no window scheduled yet (numa_next_scan unset) */
	p->have_next0 = l0->have_numab && (l0->mm.have & MM_HAVE_NEXT) && l0->mm.next_scan_ms;
	p->have_next1 = rp->have_l1 && l1->have_numab && (l1->mm.have & MM_HAVE_NEXT) &&
			l1->mm.next_scan_ms;
	p->next0 = l0->mm.next_scan_ms;
	p->next1 = l1->mm.next_scan_ms;
	p->task_ms = l1->scan_period_ms ? l1->scan_period_ms : l0->scan_period_ms;
	p->task_tid = l1->scan_period_ms ? l1->scan_period_tid : l0->scan_period_tid;
	p->cpu0 = rp->have_cpu0 ? nx_threads_cpu_max(&rp->cpu0) : -1;
	p->cpu1 = rp->have_cpu1 ? nx_threads_cpu_max(&rp->cpu1) : -1;
	p->ran = p->ran_tid = -1;
	p->interval = rp->have_l1 ? (long long)((rp->t_cpu1 - rp->t_cpu0) * 1000.0 + 0.5) : -1;
	if (rp->have_cpu0 && rp->have_cpu1)
		p->ran = nx_threads_cpu_ran(&rp->cpu0, &rp->cpu1, &p->ran_tid);
	/* a window due since before the interval began: none started in it */
	p->due_all = p->have_next1 && p->interval > 0 && -p->next1 >= p->interval;
	/*
	 * the period is at least the minimum, at least the time to a window
	 * its last scan set, and exactly the task's where the BPF backend
	 * read it
	 */
	p->at_least = p->smin > 0 ? p->smin : 0;
	if (p->have_next0 && p->next0 > p->at_least)
		p->at_least = p->next0;
	if (p->have_next1 && p->next1 > p->at_least)
		p->at_least = p->next1;
	if (p->task_ms > p->at_least)
		p->at_least = p->task_ms;
	pace_rule(rp, l1, p);
	p->have_ctr = counter_delta(rp, "numa_hint_faults", &p->hint) &&
		      counter_delta(rp, "pgpromote_candidate", &p->cand) &&
		      counter_delta(rp, "pgpromote_success", &p->prom);
	counter_delta(rp, "pgmigrate_fail", &p->mfail);
	if (!p->tiering) {
		static const char fmt[] = "not in memory-tiering mode (numa_balancing=%s): "
			"nothing is promoted";

		p->c_period = p->c_pacing = p->c_hot = 0;
		snprintf(p->why_period, sizeof(p->why_period), fmt, nx_mode_name(p->mode));
		snprintf(p->why_pacing, sizeof(p->why_pacing), fmt, nx_mode_name(p->mode));
		snprintf(p->why_hot, sizeof(p->why_hot), fmt, nx_mode_name(p->mode));
		return;
	}
	cause_period(rp, l1, p);
	cause_pacing(rp->have_l1 ? &rp->l1 : &rp->l0, p);
	cause_hot(rp, p);
}

/* a number row, null when @known is false */
static void kv_ll(struct nx_table *t, const char *key, bool known, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	nx_kv_num(t, key, known ? buf : NULL);
}

/*
 * "Scan pace": why the process's slow-tier memory may wait long for its
 * promotion, with the evidence, as three causes, each yes, no or unknown
 * (-J: booleans and null):
 *  a. cause_period: the scan period is long.  The mm's next scan window
 *     (numa_vmas mm line, or the BPF backend) at the start and end of the
 *     interval, and the task's numa_scan_period where the BPF backend read
 *     it, against the period a task starts with (the scan delay, or the
 *     minimum when longer) and task_scan_max() (scan_period_max_ms over
 *     the process's scan_size_mb windows, no NUMA group): at least four
 *     starting periods is long.  Whether promotions may be blamed depends
 *     on the rule in effect, which the row says: without
 *     kernel.numa_balancing_filter_promo_slowdown (stock, older series)
 *     or with it 1 (for the system or the process, mm line), a sequence
 *     whose only faults were promotions doubles the period up to the
 *     ceiling and in mode 2 nothing shortens it; with it 0 a sequence that
 *     mostly promotes shortens it, so a long period has another cause.
 *  b. cause_cpu_pacing: task_tick_numa() starts a window only for a thread
 *     that has run its own scan period of CPU time since its last, so a
 *     window due at the end while the busiest thread (the most CPU time
 *     between the two samples of /proc/PID/task/TID/stat) ran less than a
 *     period, or due the whole interval, waits for CPU time: a mostly
 *     idle process scans rarely.  The period is the task's (BPF), else at
 *     least the minimum and the time to the window its last scan set.
 *  c. cause_hot_threshold: system-wide /proc/vmstat deltas, numa_hint_faults
 *     (in mode 2 faults on lower-tier pages), pgpromote_candidate (past the
 *     hot threshold) and pgpromote_success: most faults not candidates is
 *     the threshold, most candidates not promoted the rate limit (or failed
 *     migrations).  The kernel promotes regardless of both while the top
 *     tier has room (pgdat_free_space_enough()), so they are named only
 *     when it is short of free memory, or near that.
 * Outside tiering mode nothing is promoted: all three are no.  The title
 * names where the scan state came from.
 */
static void pace_section(struct nx_doc *d, const struct report *rp)
{
	const struct nx_vmlist *l0 = &rp->l0, *l1 = rp->have_l1 ? &rp->l1 : &rp->l0;
	struct pace p;
	struct nx_table t;
	char buf[32], note[160] = "";
	size_t off = 0;

	pace_compute(rp, &p);
	if (p.mode < 0 || nx_kv_table_init(&t, "scan_pace"))
		return;	/* no NUMA balancing in this kernel: nothing to pace */
	nx_kv_add(&t, "source", "%s", nx_backend_name(l0->have_numab ? l0->backend :
						       NX_BACKEND_NONE));
	nx_kv_num(&t, "scan_seq_start", l0->have_numab && (l0->mm.have & MM_HAVE_SEQ) ?
		  nx_fmt_u64(buf, l0->mm.scan_seq) : NULL);
	nx_kv_num(&t, "scan_seq_end", rp->have_l1 && l1->have_numab &&
		  (l1->mm.have & MM_HAVE_SEQ) ? nx_fmt_u64(buf, l1->mm.scan_seq) : NULL);
	kv_ll(&t, "next_scan_ms_start", p.have_next0, p.next0);
	kv_ll(&t, "next_scan_ms_end", p.have_next1, p.next1);
	kv_ll(&t, "scan_period_ms", p.task_ms > 0, p.task_ms);
	kv_ll(&t, "scan_period_thread", p.task_ms > 0, p.task_tid);
	if (p.ceiling > 0) {
		nx_kv_num(&t, "scan_windows", nx_fmt_u64(buf, p.windows));
		kv_ll(&t, "period_min_ms", true, p.smin);
		kv_ll(&t, "period_start_ms", true, p.start);
		kv_ll(&t, "period_ceiling_ms", true, p.ceiling);
	} else {
		nx_kv_add(&t, "period_ceiling_ms", "unknown: %s",
			  "the debugfs tunables are unreadable (root can read them)");
	}
	kv_ll(&t, "period_at_least_ms", p.at_least > 0, p.at_least);
	kv_ll(&t, "interval_ms", p.interval >= 0, p.interval);
	kv_ll(&t, "busiest_thread_cpu_ms_start", p.cpu0 >= 0, p.cpu0);
	kv_ll(&t, "busiest_thread_cpu_ms_end", p.cpu1 >= 0, p.cpu1);
	kv_ll(&t, "busiest_thread_ran_ms", p.ran >= 0, p.ran);
	kv_ll(&t, "busiest_thread", p.ran >= 0, p.ran_tid);
	kv_ll(&t, "promo_slowdown", p.ps >= 0, p.ps);
	nx_kv_add(&t, "promo_slowdown_source", "%s", p.ps_src);
	nx_kv_add(&t, "fix", "%s", p.fix);
	kv_ll(&t, "numa_hint_faults_delta", p.have_ctr, (long long)p.hint);
	kv_ll(&t, "pgpromote_candidate_delta", p.have_ctr, (long long)p.cand);
	kv_ll(&t, "pgpromote_success_delta", p.have_ctr, (long long)p.prom);
	nx_kv_bool(&t, "cause_period", p.c_period);
	nx_kv_add(&t, "cause_period_why", "%s", p.why_period);
	nx_kv_bool(&t, "cause_cpu_pacing", p.c_pacing);
	nx_kv_add(&t, "cause_cpu_pacing_why", "%s", p.why_pacing);
	nx_kv_bool(&t, "cause_hot_threshold", p.c_hot);
	nx_kv_add(&t, "cause_hot_threshold_why", "%s", p.why_hot);
	if (p.held_by)
		nx_kv_add(&t, "promotion_held_by", "%s", p.held_by);
	else
		nx_kv_num(&t, "promotion_held_by", NULL);
	if (p.c_period == 1)
		off += (size_t)snprintf(note + off, sizeof(note) - off, "a long scan period");
	if (p.c_pacing == 1)
		off += (size_t)snprintf(note + off, sizeof(note) - off, "%sCPU-time pacing",
					off ? ", " : "");
	if (p.c_hot == 1)
		snprintf(note + off, sizeof(note) - off, "%s%s", off ? ", " : "",
			 !strcmp(p.held_by, "rate_limit") ? "the promotion rate limit" :
			 !strcmp(p.held_by, "hot_threshold") ? "the hot threshold" :
			 "the hot threshold and the promotion rate limit");
	if (note[0])
		nx_kv_add(&t, "note", "promotion waits here for %s (the cause rows say why)", note);
	else
		nx_kv_add(&t, "note", "-");
	nx_doc_table(d, &t, l0->have_numab && l0->backend == NX_BACKEND_BPF ?
		     "Scan pace (BPF task_vma iterator)" : l0->have_numab ?
		     "Scan pace (numa_vmas mm line)" : "Scan pace (no scan state)");
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
	/* JSON: every column vmas has (the node ones too), so none falls out */
	const char *all = nx_vmas_report_cols(&rp->topo);
	const char *cols = nx_opt.json ? all : REPORT_VMA_COLS;
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
					nx_kv_value(t, key, eq + 1, (size_t)(e - eq - 1));
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
	nx_kv_value(t, key, v.p, v.n);
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
	if (c2 != c1 + 1) {
		/* a cgroup v1 hierarchy ("4:cpuset:/path"; "cpu,cpuset" too) */
		const char *p = c1 + 1;

		while (p < c2) {
			size_t n = strcspn(p, ",:");

			if (n == 6 && !memcmp(p, "cpuset", 6)) {
				nx_kv_add(t, "cpuset.mems", "not read: cgroup v1 (numabctl reads "
					  "cgroup v2's); Mems_allowed_list below is in effect");
				break;
			}
			p += n + 1;
		}
		return 0;
	}
	if (len - (size_t)(c2 + 1 - line) > 2048)
		return 0;
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
	nx_vmlist_nodes = nx_opt.json;	/* the N<id> columns of the JSON VMA tables */
	r = nx_vmlist_load(&rp->l0, rp->pid, &rp->topo, 4);
	if (r)
		return r;
	/* for the scan pace: CPU pacing needs the scan state's next window */
	rp->t_cpu0 = nx_now();
	rp->have_cpu0 = rp->l0.have_numab && !nx_threads_cpu_load(rp->pid, &rp->cpu0);
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
	rp->t_cpu1 = nx_now();
	rp->have_cpu1 = rp->have_l1 && rp->have_cpu0 &&
			!nx_threads_cpu_load(rp->pid, &rp->cpu1);
	rp->have_topo1 = !nx_topo_load(&rp->topo1);
	return NX_OK;
}

static void release(struct report *rp)
{
	nx_topo_free(&rp->topo);
	if (rp->have_topo1)
		nx_topo_free(&rp->topo1);
	nx_threads_cpu_free(&rp->cpu0);
	nx_threads_cpu_free(&rp->cpu1);
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
	      "what to do), the scan pace (whether a long scan period, CPU-time pacing\n"
	      "or the hot threshold and rate limit slow its promotion, with the\n"
	      "evidence), topology and tiers, tunables and filters, vmstat deltas\n"
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
	struct nx_out out;
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
	/* the output first, as the shell's '>': a bad path fails before sampling */
	r = nx_out_open(&out, file ? file : "-", false);
	if (r)
		return nx_user_file_error(file, r);
	r = collect(&rp);
	if (r) {
		release(&rp);
		nx_out_close(&out);
		return r;
	}
	nx_vmlist_warn(&rp.l0);
	mem = open_memstream(&buf, &len);
	if (!mem) {
		release(&rp);
		nx_out_close(&out);
		return NX_ERUNTIME;
	}
	compose(mem, &rp);
	fclose(mem);
	release(&rp);
	r = nx_out_write(&out, buf, len);
	free(buf);
	if (r && !strcmp(out.path, "-"))
		return NX_ERUNTIME;	/* said when standard output is closed */
	return r ? nx_user_file_error(out.path, r) : NX_OK;
}
