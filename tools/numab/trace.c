// SPDX-License-Identifier: GPL-2.0
/*
 * numabctl trace PID: why the scanner skips the VMAs of PID, aggregated per
 * VMA and reason, from sched:sched_skip_vma_numa.  It records in a private
 * tracefs instance, so the global trace buffer and other users of the
 * event are left alone.  libtracefs manages the instance and reads the
 * binary ring buffer; libtraceevent decodes the records with the event's
 * format (vm_start and vm_end as numbers, the reason as the print format
 * names it).  Saved traces (--input) are trace_pipe text, parsed by parse.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "numabctl.h"

#define EVENT "events/sched/sched_skip_vma_numa"

/* --- aggregation: open-addressing hash on (start, end, reason) ---------- */

struct agg {
	struct nx_trace_result *r;
	uint32_t *slot;		/* index + 1 into r->a, 0 = empty */
	size_t nslots;
	pid_t pid;
	int *tids;		/* threads of pid seen so far */
	size_t ntids, cap_tids;
	unsigned long nlines;	/* --input: lines read */
};

static uint64_t hash_key(const struct nx_trace_ev *ev)
{
	uint64_t h = ev->vm_start * 0x9e3779b97f4a7c15ull ^ ev->vm_end;

	for (const char *p = ev->reason; *p; p++)
		h = (h ^ (uint64_t)(unsigned char)*p) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

static int rehash(struct agg *g, size_t nslots)
{
	uint32_t *s = calloc(nslots, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < g->r->n; i++) {
		struct nx_trace_ev ev = { .vm_start = g->r->a[i].start, .vm_end = g->r->a[i].end };
		size_t h;

		memcpy(ev.reason, g->r->a[i].reason, sizeof(ev.reason));
		for (h = hash_key(&ev) & (nslots - 1); s[h]; h = (h + 1) & (nslots - 1))
			;
		s[h] = (uint32_t)i + 1;
	}
	free(g->slot);
	g->slot = s;
	g->nslots = nslots;
	return 0;
}

static int agg_add(struct agg *g, const struct nx_trace_ev *ev)
{
	struct nx_trace_result *r = g->r;
	struct nx_trace_agg *a;
	size_t h;

	if ((r->n + 1) * 2 > g->nslots && rehash(g, g->nslots ? g->nslots * 2 : 256))
		return -ENOMEM;
	for (h = hash_key(ev) & (g->nslots - 1); g->slot[h]; h = (h + 1) & (g->nslots - 1)) {
		a = &r->a[g->slot[h] - 1];
		if (a->start == ev->vm_start && a->end == ev->vm_end &&
		    !strcmp(a->reason, ev->reason)) {
			a->count++;
			return 0;
		}
	}
	if (r->n == r->cap) {
		size_t nc = r->cap ? r->cap * 2 : 64;
		void *p = realloc(r->a, nc * sizeof(*r->a));

		if (!p)
			return -ENOMEM;
		r->a = p;
		r->cap = nc;
	}
	a = &r->a[r->n];
	a->start = ev->vm_start;
	a->end = ev->vm_end;
	memcpy(a->reason, ev->reason, sizeof(a->reason));
	a->count = 1;
	g->slot[h] = (uint32_t)++r->n;
	return 0;
}

/*
 * Is @tid a thread of the traced process?  Asked once per new tid; the
 * answers are kept sorted by tid (negative entry: not ours).
 */
static bool our_task(struct agg *g, int tid)
{
	char path[4096];
	size_t lo = 0, hi = g->ntids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int t = abs(g->tids[mid]);

		if (t == tid)
			return g->tids[mid] > 0;
		if (t < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (g->ntids == g->cap_tids) {
		size_t nc = g->cap_tids ? g->cap_tids * 2 : 16;
		int *p = realloc(g->tids, nc * sizeof(*p));

		if (!p)
			return false;
		g->tids = p;
		g->cap_tids = nc;
	}
	nx_path(path, sizeof(path), "/proc/%d/task/%d", (int)g->pid, tid);
	memmove(&g->tids[lo + 1], &g->tids[lo], (g->ntids - lo) * sizeof(*g->tids));
	g->ntids++;
	g->tids[lo] = nx_exists(path) ? tid : -tid;
	return g->tids[lo] > 0;
}

/* one event: counted if a thread of the process caused it */
static int agg_event(struct agg *g, const struct nx_trace_ev *ev)
{
	if (ev->tid <= 0 || !our_task(g, ev->tid)) {
		g->r->other_tasks++;
		return 0;
	}
	g->r->events++;
	return agg_add(g, ev);
}

/*
 * A line of tracefs's trace or trace_pipe text: the header ("# tracer:
 * nop", "# entries-in-buffer/entries-written: ...") or a record,
 * "TASK-PID [CPU] ...", with or without the TGID and flag columns.
 */
static bool trace_text(const char *line, size_t len)
{
	static regex_t re;
	static int ready;
	char buf[256];

	if (len >= 9 && (!memcmp(line, "# tracer:", 9) || (len >= 19 &&
	    !memcmp(line, "# entries-in-buffer", 19))))
		return true;
	if (!ready)
		ready = regcomp(&re, "^ *[^ ].*-[0-9]+ +(\\([ 0-9-]+\\) +)?\\[[0-9]+\\] ",
				REG_EXTENDED | REG_NOSUB) ? -1 : 1;
	snprintf(buf, sizeof(buf), "%.*s", (int)(len < 255 ? len : 255), line);
	return ready > 0 && !regexec(&re, buf, 0, NULL, 0);
}

static int trace_line(void *priv, const char *line, size_t len, unsigned long no)
{
	struct agg *g = priv;
	struct nx_trace_ev ev;

	g->nlines = no;
	if (trace_text(line, len))
		g->r->lines++;
	if (!memmem(line, len, "sched_skip_vma_numa:", 20))
		return 0;	/* header comments, other events */
	if (nx_parse_trace_line(line, len, &ev)) {
		g->r->bad_lines++;
		return 0;
	}
	return agg_event(g, &ev);
}

/* --- tracefs -------------------------------------------------------------- */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int nx_tracefs_find(char *buf, size_t sz)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	bool mounted = false, denied = false;
	char p[4096];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		nx_path(buf, sz, "%s", dirs[i]);
		snprintf(p, sizeof(p), "%s/" EVENT, buf);
		if (nx_exists(p))
			return NX_TFS_OK;
		/* a mounted tracefs always has events/; a bare mount point has not */
		snprintf(p, sizeof(p), "%s/events", buf);
		if (!access(p, F_OK))
			mounted = true;
		else if (errno == EACCES || errno == EPERM)
			denied = true;
	}
	nx_path(buf, sz, "%s", dirs[0]);
	return denied ? NX_TFS_DENIED : mounted ? NX_TFS_NOEVENT : NX_TFS_UNMOUNTED;
}

const char *nx_tracefs_why(int r, const char *root)
{
	static char buf[512];

	switch (r) {
	case NX_TFS_DENIED:
		snprintf(buf, sizeof(buf), "%s: permission denied: tracing needs root: %s", root,
			 nx_root_hint("CAP_SYS_ADMIN"));
		break;
	case NX_TFS_UNMOUNTED:
		snprintf(buf, sizeof(buf), "%s: tracefs is not mounted: mount it "
			 "('mount -t tracefs nodev /sys/kernel/tracing', as root) and run again",
			 root);
		break;
	case NX_TFS_NOEVENT:
		snprintf(buf, sizeof(buf), "%s/" EVENT ": not found: the kernel lacks the "
			 "sched_skip_vma_numa tracepoint (or CONFIG_NUMA_BALANCING)", root);
		break;
	default:
		buf[0] = '\0';
	}
	return buf;
}

/* libtracefs/libtraceevent: one record of the ring buffer */
struct live {
	struct agg *g;
	struct tep_event *ev;
	struct tep_format_field *start, *end;
	struct trace_seq seq;
};

static int on_record(struct tep_event *event, struct tep_record *rec, int cpu, void *ctx)
{
	struct live *lv = ctx;
	struct nx_trace_ev ev;
	unsigned long long v;
	const char *p;
	size_t n;

	(void)cpu;
	if (event->id != lv->ev->id)
		return 0;
	memset(&ev, 0, sizeof(ev));
	ev.tid = tep_data_pid(event->tep, rec);
	if (tep_read_number_field(lv->start, rec->data, &v))
		goto bad;
	ev.vm_start = v;
	if (tep_read_number_field(lv->end, rec->data, &v))
		goto bad;
	ev.vm_end = v;
	/* the reason's name is the print format's (__print_symbolic) */
	trace_seq_reset(&lv->seq);
	tep_print_event(event->tep, &lv->seq, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&lv->seq);
	p = lv->seq.buffer ? strstr(lv->seq.buffer, "reason=") : NULL;
	if (!p)
		goto bad;
	p += strlen("reason=");
	n = strcspn(p, " \n");
	if (!n || n >= sizeof(ev.reason))
		goto bad;
	memcpy(ev.reason, p, n);
	return agg_event(lv->g, &ev) ? -1 : 0;
bad:
	lv->g->r->bad_lines++;
	return 0;
}

/* record until @sec have passed or a signal came, draining the buffer */
static void record(struct live *lv, struct tep_handle *tep, struct tracefs_instance *inst,
		   double sec)
{
	double end = nx_now() + sec;

	while (!stop) {
		double left = end - nx_now();

		if (left <= 0)
			break;
		nx_sleep(left > 0.2 ? 0.2 : left);
		tracefs_iterate_raw_events(tep, inst, NULL, 0, on_record, lv);
	}
}

/* is @pid a running numabctl? */
static bool numabctl_alive(long pid)
{
	char path[64], comm[32];

	if (pid <= 0 || pid > 0x3fffffff || (kill((pid_t)pid, 0) && errno == ESRCH))
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	return nx_read_str(path, comm, sizeof(comm)) || !strcmp(comm, "numabctl");
}

/*
 * The instances of numabctl runs that died without removing theirs
 * (killed with SIGKILL): "numabctl-PID-NXPID" (NXPID numabctl's own PID;
 * an older numabctl named it "numabctl-NXPID") whose NXPID is no running
 * numabctl.  Their event is disabled and the instance removed, so that a
 * killed trace does not keep an event enabled for good.
 */
static bool digits(const char *p, const char *end)
{
	if (p == end)
		return false;
	for (; p < end; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/* "numabctl-NXPID" or "numabctl-PID-NXPID": NXPID, else 0 */
static long stale_owner(const char *name)
{
	const char *p = name + strlen("numabctl-"), *dash, *end = name + strlen(name);

	if (strncmp(name, "numabctl-", strlen("numabctl-")))
		return 0;
	dash = strchr(p, '-');
	if (dash ? !digits(p, dash) || !digits(dash + 1, end) : !digits(p, end))
		return 0;
	return strtol(dash ? dash + 1 : p, NULL, 10);
}

/* (tracefs_instances() of libtracefs 1.6 leaks its regex: a readdir here) */
static void remove_stale(const char *root)
{
	char path[4096];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/instances", root);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		long owner = stale_owner(de->d_name);
		struct tracefs_instance *old;

		if (!owner || numabctl_alive(owner))
			continue;
		old = tracefs_instance_alloc(root, de->d_name);
		if (!old)
			continue;
		tracefs_event_disable(old, NULL, NULL);
		if (tracefs_instance_destroy(old))
			nx_warn("%s/instances/%s: a trace instance left by a numabctl that was "
				"killed; cannot remove it: %s", root, de->d_name, strerror(errno));
		else
			nx_warn("%s/instances/%s: removed, a trace instance left by a numabctl "
				"that was killed", root, de->d_name);
		tracefs_instance_free(old);
	}
	if (d)
		closedir(d);
}

/*
 * A tep that knows the ring buffer's page header and the one event read,
 * as tracefs_local_events_system() makes it, without the kallsyms,
 * saved_cmdlines and printk_formats that it parses too and this event
 * does not print: a one-second trace of the sanitizer build took 27.7 s
 * with them on a 2-vCPU host and 1.3 s without (1.5 s and 1.1 s for the
 * build without sanitizers).
 */
static struct tep_handle *local_tep(const char *root)
{
	static char buf[32768];	/* header_page and a format: a few KiB each */
	struct tep_handle *tep = tep_alloc();
	char path[4096];

	if (!tep)
		return NULL;
	snprintf(path, sizeof(path), "%s/events/header_page", root);
	if (nx_read_str(path, buf, sizeof(buf)) ||
	    tep_parse_header_page(tep, buf, strlen(buf), sizeof(long)))
		goto fail;
	snprintf(path, sizeof(path), "%s/" EVENT "/format", root);
	if (nx_read_str(path, buf, sizeof(buf)) || tep_parse_event(tep, buf, strlen(buf), "sched"))
		goto fail;
	return tep;
fail:
	tep_free(tep);
	return NULL;
}

static int trace_live(struct agg *g, double sec, bool quiet)
{
	char root[2048], name[64];
	struct sigaction sa, old_int, old_term, old_hup, old_quit;
	struct live lv = { .g = g };
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	int r;

	r = nx_tracefs_find(root, sizeof(root));
	if (r) {
		snprintf(g->r->why, sizeof(g->r->why), "%s", nx_tracefs_why(r, root));
		if (!quiet)
			nx_warn("%s", g->r->why);
		return r == NX_TFS_DENIED ? NX_EPERM : NX_ENOTSUP;
	}
	tracefs_set_tracing_dir(root);	/* below --sysroot too */
	tep = local_tep(root);
	lv.ev = tep ? tep_find_event_by_name(tep, "sched", "sched_skip_vma_numa") : NULL;
	lv.start = lv.ev ? tep_find_field(lv.ev, "vm_start") : NULL;
	lv.end = lv.ev ? tep_find_field(lv.ev, "vm_end") : NULL;
	if (!lv.start || !lv.end) {
		snprintf(g->r->why, sizeof(g->r->why), "%s/" EVENT "/format: no vm_start and "
			 "vm_end fields that libtraceevent can read", root);
		if (!quiet)
			nx_warn("%s", g->r->why);
		tep_free(tep);
		return NX_ENOTSUP;
	}
	remove_stale(root);
	snprintf(name, sizeof(name), "numabctl-%d-%d", (int)g->pid, (int)getpid());
	inst = tracefs_instance_create(name);
	if (!inst) {
		r = errno;
		snprintf(g->r->why, sizeof(g->r->why), "%s/instances/%s: cannot create a trace "
			 "instance: %s%s%s", root, name, strerror(r),
			 r == EACCES || r == EPERM ? ": " : "",
			 r == EACCES || r == EPERM ? nx_root_hint("CAP_SYS_ADMIN") : "");
		if (!quiet)
			nx_warn("%s", g->r->why);
		tep_free(tep);
		return r == EACCES || r == EPERM ? NX_EPERM : r == ENOENT ? NX_ENOTSUP : NX_ERUNTIME;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	sigaction(SIGQUIT, &sa, &old_quit);
	stop = 0;
	trace_seq_init(&lv.seq);
	if (tracefs_event_enable(inst, "sched", "sched_skip_vma_numa")) {
		r = errno;
		snprintf(g->r->why, sizeof(g->r->why), "%s/instances/%s/" EVENT "/enable: %s",
			 root, name, strerror(r));
		if (!quiet)
			nx_warn("%s", g->r->why);
		r = r == EACCES || r == EPERM ? NX_EPERM : NX_ERUNTIME;
	} else {
		record(&lv, tep, inst, sec);
		tracefs_event_disable(inst, "sched", "sched_skip_vma_numa");
		tracefs_iterate_raw_events(tep, inst, NULL, 0, on_record, &lv);	/* the rest */
		r = NX_OK;
	}
	trace_seq_destroy(&lv.seq);
	if (tracefs_instance_destroy(inst) && !quiet)
		nx_warn("%s/instances/%s: cannot remove the trace instance: %s", root, name,
			strerror(errno));
	tracefs_instance_free(inst);
	tep_free(tep);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	return r;
}

static int cmp_agg(const void *a, const void *b)
{
	const struct nx_trace_agg *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->reason, y->reason);
}

int nx_trace_collect(pid_t pid, double sec, const char *input,
		     struct nx_trace_result *r, bool quiet)
{
	struct agg g = { .r = r, .pid = pid };
	int ret;

	memset(r, 0, sizeof(*r));
	if (input) {
		ret = nx_for_each_line(strcmp(input, "-") ? input : "/dev/stdin", trace_line, &g);
		if (ret) {
			ret = ret == -ENOMEM ? NX_ERUNTIME : nx_user_file_error(input, ret);
		} else if (g.nlines && !r->lines) {
			/* an empty file is an empty trace; a file of other text is none */
			snprintf(r->why, sizeof(r->why), "%s: not a trace: none of its %lu lines "
				 "is tracefs trace or trace_pipe text", input, g.nlines);
			nx_warn("%s", r->why);
			ret = NX_ERUNTIME;
		}
	} else {
		ret = trace_live(&g, sec, quiet);
	}
	free(g.slot);
	free(g.tids);
	if (r->n)
		qsort(r->a, r->n, sizeof(*r->a), cmp_agg);
	if (r->bad_lines && !quiet)
		nx_warn("%lu malformed sched_skip_vma_numa line(s) ignored", r->bad_lines);
	return ret;
}

void nx_trace_free(struct nx_trace_result *r)
{
	free(r->a);
	memset(r, 0, sizeof(*r));
}

/* --- output ----------------------------------------------------------------- */

enum { TC_START, TC_END, TC_SIZE, TC_NAME, TC_REASON, TC_COUNT };
static const struct nx_colspec trace_cols[] = {
	[TC_START] = { "START", 12, 0, SCOLS_JSON_STRING, "first address of the VMA" },
	[TC_END] = { "END", 12, 0, SCOLS_JSON_STRING, "end address of the VMA" },
	[TC_SIZE] = { "SIZE", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "size of the VMA" },
	[TC_NAME] = { "NAME", 0.3, SCOLS_FL_TRUNC, SCOLS_JSON_STRING, "mapping, from maps" },
	[TC_REASON] = { "REASON", 12, 0, SCOLS_JSON_STRING,
			"unsuitable, shared_ro, pid_inactive, seq_completed, promo_backoff, ..." },
	[TC_COUNT] = { "COUNT", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "times skipped" },
};

static const char *name_of(const struct nx_vmlist *l, uint64_t start)
{
	size_t lo = 0, hi = l ? l->n : 0;

	while (lo < hi) {	/* l->v is sorted by start */
		size_t mid = lo + (hi - lo) / 2;

		if (l->v[mid].start == start)
			return l->v[mid].name ? l->v[mid].name : "";
		if (l->v[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return "";
}

int nx_trace_table(struct nx_table *t, const struct nx_trace_result *r,
		   const struct nx_vmlist *l, const char *cols)
{
	int ret = nx_table_init(t, "skips", trace_cols, sizeof(trace_cols) / sizeof(trace_cols[0]),
				"START,SIZE,NAME,REASON,COUNT", cols);

	if (ret)
		return ret;
	for (size_t i = 0; i < r->n; i++) {
		const struct nx_trace_agg *a = &r->a[i];
		struct libscols_line *ln = nx_table_line(t);

		nx_table_set(t, ln, TC_START, "%llx", (unsigned long long)a->start);
		nx_table_set(t, ln, TC_END, "%llx", (unsigned long long)a->end);
		nx_table_size(t, ln, TC_SIZE, a->end - a->start);
		nx_table_set(t, ln, TC_NAME, "%s", name_of(l, a->start));
		nx_table_set(t, ln, TC_REASON, "%s", a->reason);
		nx_table_set(t, ln, TC_COUNT, "%llu", (unsigned long long)a->count);
	}
	return 0;
}

static void trace_usage(FILE *out)
{
	fputs("Usage: numabctl trace [OPTIONS] PID\n\n"
	      "Record sched:sched_skip_vma_numa for SEC seconds (needs root: tracefs)\n"
	      "and count, per VMA of PID and reason, how often the scanner skipped it.\n"
	      "Reasons: unsuitable, shared_ro, inaccessible, scan_delay, pid_inactive,\n"
	      "ignore_pid_inactive, seq_completed (already scanned, fully or\n"
	      "promotion-only, in this scan sequence), pid_inactive_promo_only,\n"
	      "shared_ro_promo_only (scanned for promotion only), promo_backoff (a\n"
	      "promotion-only scan that found nothing waits 2 or 4 sequences), and\n"
	      "any the kernel adds.\n\n"
	      "  -d, --duration SEC  how long to record (default 10; Ctrl-C stops early)\n"
	      "  -i, --input FILE    parse a saved trace (trace_pipe text, - for stdin)\n"
	      "                      instead of recording\n", out);
	nx_print_columns_help(out, trace_cols, sizeof(trace_cols) / sizeof(trace_cols[0]));
}

int cmd_trace(int argc, char **argv)
{
	static const struct option lo[] = {
		NX_COMMON_LONGOPTS,
		{ "duration", required_argument, NULL, 'd' },
		{ "input", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = NULL;
	struct nx_trace_result res;
	struct nx_vmlist l;
	struct nx_topo topo;
	struct nx_table t;
	double sec = 10;
	pid_t pid;
	int c, r;

	while ((c = getopt_long(argc, argv, ":d:i:" NX_COMMON_SHORTOPTS, lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (nx_parse_seconds(optarg, &sec))
				return NX_EUSAGE;
			break;
		case 'i': input = optarg; break;
		default:
			r = nx_opt_other(c, optarg, trace_usage);
			if (r >= 0)
				return r;
		}
	}
	r = nx_opts_done(trace_cols, sizeof(trace_cols) / sizeof(trace_cols[0]));
	if (r >= 0)
		return r;
	r = nx_pid_operand(argc, argv, trace_usage, &pid);
	if (r >= 0)
		return r;
	if (nx_topo_load(&topo))
		return NX_ERUNTIME;
	r = nx_vmlist_load(&l, pid, &topo, 4);	/* names, and is the process there? */
	nx_topo_free(&topo);
	if (r)
		return r;
	if (!input)	/* a live trace: nothing to see with balancing off */
		nx_vmlist_warn(&l);
	r = nx_trace_collect(pid, sec, input, &res, false);
	if (!r && !input)	/* what the kernel did with shmem without a policy */
		nx_shmem_learn(&l, &res, pid);
	if (!r) {
		if (!res.events)
			nx_warn("no VMA of %d was skipped while tracing (%lu events of other tasks)",
				(int)pid, res.other_tasks);
		r = nx_trace_table(&t, &res, &l, nx_opt.columns) ? NX_EUSAGE : NX_OK;
		if (!r) {
			nx_table_print(&t, stdout);
			nx_table_free(&t);
		}
	}
	nx_trace_free(&res);
	nx_vmlist_free(&l);
	return r;
}
