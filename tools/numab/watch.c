// SPDX-License-Identifier: GPL-2.0
/*
 * numabctl watch PID: every interval one row for the process (scan sequence
 * progress, pages promoted/demoted, residency per tier, stranded memory)
 * followed by rows for its top VMAs (stranded first, then most slow memory).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "numabctl.h"

enum {
	WC_SAMPLE, WC_TIME, WC_WHAT, WC_SEQ, WC_DSEQ, WC_PROMOTED, WC_DEMOTED,
	WC_MIGRATED, WC_HINTS, WC_FAST, WC_SLOW, WC_DSLOW, WC_SLOWPCT, WC_STRANDED,
	WC_VERDICT, WC_TYPE, WC_PID, WC_START, WC_NAME,
};
#define NUM(n, h) { n, 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, h }
static const struct nx_colspec watch_cols[] = {
	[WC_SAMPLE] = NUM("SAMPLE", "interval number"),
	[WC_TIME] = NUM("TIME", "seconds since the start"),
	[WC_WHAT] = { "WHAT", 0.3, 0, SCOLS_JSON_STRING, "'process', or a VMA (start and name)" },
	[WC_SEQ] = NUM("SEQ", "scan sequence (numa_scan_seq)"),
	[WC_DSEQ] = NUM("dSEQ", "scan sequences completed in the interval"),
	[WC_PROMOTED] = NUM("PROMOTED", "pages promoted in the interval (system-wide pgpromote_success)"),
	[WC_DEMOTED] = NUM("DEMOTED", "pages demoted in the interval (system-wide pgdemote_*)"),
	[WC_MIGRATED] = NUM("MIGRATED", "pages migrated by NUMA balancing (system-wide)"),
	[WC_HINTS] = NUM("HINTS", "NUMA hinting faults (system-wide)"),
	[WC_FAST] = NUM("FAST", "resident in the fast tier"),
	[WC_SLOW] = NUM("SLOW", "resident in slow tiers"),
	[WC_DSLOW] = { "dSLOW", 5, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "change of SLOW (bytes, negative: promoted)" },
	[WC_SLOWPCT] = NUM("SLOW%", "slow share of the resident memory"),
	[WC_STRANDED] = NUM("STRANDED", "slow memory in stranded VMAs"),
	[WC_VERDICT] = { "VERDICT", 8, 0, SCOLS_JSON_STRING, "verdict of the VMA (see vmas)" },
	[WC_TYPE] = { "TYPE", 4, 0, SCOLS_JSON_STRING, "process or vma" },
	[WC_PID] = NUM("PID", "the process"),
	[WC_START] = { "START", 12, 0, SCOLS_JSON_STRING, "first address of the VMA (hex)" },
	[WC_NAME] = { "NAME", 0.3, SCOLS_FL_TRUNC, SCOLS_JSON_STRING, "mapping of the VMA" },
};
#define WATCH_DEFAULT "TIME,WHAT,SEQ,dSEQ,PROMOTED,DEMOTED,FAST,SLOW,dSLOW,SLOW%,STRANDED,VERDICT"
/* JSON: a type and an id in members of their own, not WHAT's "process 4242" */
#define WATCH_JSON "TYPE,PID,START,NAME,SEQ,dSEQ,PROMOTED,DEMOTED,FAST,SLOW,dSLOW,SLOW%,STRANDED,VERDICT"

struct sample {
	struct nx_counters vm;
	struct nx_vmlist l;
	uint64_t fast, slow, stranded;
	double t;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t counter(const struct nx_counters *c, const char *name)
{
	uint64_t v = 0;

	nx_counters_get(c, name, &v);
	return v;
}

static uint64_t delta(uint64_t now, uint64_t then)
{
	return now >= then ? now - then : 0;
}

static int take(struct sample *s, pid_t pid, const struct nx_topo *topo, double t0)
{
	int r;

	memset(s, 0, sizeof(*s));
	s->t = nx_now() - t0;
	nx_counters_load(&s->vm);
	r = nx_vmlist_load(&s->l, pid, topo, 4);
	if (r)
		return r;
	nx_vmlist_totals(&s->l, &s->fast, &s->slow, &s->stranded);
	return NX_OK;
}

static void drop(struct sample *s)
{
	nx_counters_free(&s->vm);
	nx_vmlist_free(&s->l);
}

static void set_pct(struct nx_table *t, struct libscols_line *ln, uint64_t fast, uint64_t slow)
{
	nx_table_set(t, ln, WC_SLOWPCT, "%.1f",
		     fast + slow ? 100.0 * (double)slow / (double)(fast + slow) : 0.0);
}

static void set_dslow(struct nx_table *t, struct libscols_line *ln, uint64_t now, uint64_t then)
{
	char buf[32];

	if (nx_opt.json || nx_opt.bytes) {
		nx_table_set(t, ln, WC_DSLOW, "%lld", (long long)(now - then));
		return;
	}
	nx_human_size(now >= then ? now - then : then - now, buf, sizeof(buf));
	nx_table_set(t, ln, WC_DSLOW, "%s%s", now < then ? "-" : now > then ? "+" : "", buf);
}

static const struct nx_vma *find_vma(const struct nx_vmlist *l, uint64_t start)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->v[mid].start == start)
			return &l->v[mid];
		if (l->v[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* rank: stranded first, then by slow bytes; keeps the @top best indexes */
static size_t top_vmas(const struct nx_vmlist *l, size_t *idx, size_t top)
{
	size_t n = 0;

	for (size_t i = 0; i < l->n; i++) {
		const struct nx_vma *v = &l->v[i];
		size_t j;

		if (!v->slow_bytes && strcmp(v->verdict, "stranded"))
			continue;
		for (j = n; j > 0; j--) {
			const struct nx_vma *w = &l->v[idx[j - 1]];
			bool vs = !strcmp(v->verdict, "stranded"), ws = !strcmp(w->verdict, "stranded");

			if (ws > vs || (ws == vs && w->slow_bytes >= v->slow_bytes))
				break;
			if (j < top)
				idx[j] = idx[j - 1];
		}
		if (j < top) {
			idx[j] = i;
			if (n < top)
				n++;
		}
	}
	return n;
}

static void rows(struct nx_table *t, unsigned long no, const struct sample *a,
		 const struct sample *b, size_t top)
{
	struct libscols_line *ln = nx_table_line(t);
	size_t idx[64];
	size_t n;

	nx_table_set(t, ln, WC_SAMPLE, "%lu", no);
	nx_table_set(t, ln, WC_TIME, "%.1f", b->t);
	nx_table_set(t, ln, WC_WHAT, "process %d", (int)b->l.pid);
	nx_table_set(t, ln, WC_TYPE, "process");
	nx_table_set(t, ln, WC_PID, "%d", (int)b->l.pid);
	if (b->l.mm.have & MM_HAVE_SEQ) {
		nx_table_set(t, ln, WC_SEQ, "%llu", (unsigned long long)b->l.mm.scan_seq);
		nx_table_set(t, ln, WC_DSEQ, "%llu",
			     (unsigned long long)delta(b->l.mm.scan_seq, a->l.mm.scan_seq));
	}
	nx_table_set(t, ln, WC_PROMOTED, "%llu", (unsigned long long)
		     delta(counter(&b->vm, "pgpromote_success"), counter(&a->vm, "pgpromote_success")));
	nx_table_set(t, ln, WC_DEMOTED, "%llu", (unsigned long long)
		     delta(nx_counters_sum(&b->vm, "pgdemote_"), nx_counters_sum(&a->vm, "pgdemote_")));
	nx_table_set(t, ln, WC_MIGRATED, "%llu", (unsigned long long)
		     delta(counter(&b->vm, "numa_pages_migrated"), counter(&a->vm, "numa_pages_migrated")));
	nx_table_set(t, ln, WC_HINTS, "%llu", (unsigned long long)
		     delta(counter(&b->vm, "numa_hint_faults"), counter(&a->vm, "numa_hint_faults")));
	nx_table_size(t, ln, WC_FAST, b->fast);
	nx_table_size(t, ln, WC_SLOW, b->slow);
	set_dslow(t, ln, b->slow, a->slow);
	set_pct(t, ln, b->fast, b->slow);
	if (b->l.have_numab)
		nx_table_size(t, ln, WC_STRANDED, b->stranded);
	else	/* unknown without numa_vmas: '-', null in JSON */
		nx_table_set(t, ln, WC_STRANDED, "-");
	n = top_vmas(&b->l, idx, top < 64 ? top : 64);
	for (size_t i = 0; i < n; i++) {
		const struct nx_vma *v = &b->l.v[idx[i]], *old = find_vma(&a->l, v->start);

		ln = nx_table_line(t);
		nx_table_set(t, ln, WC_SAMPLE, "%lu", no);
		nx_table_set(t, ln, WC_TIME, "%.1f", b->t);
		nx_table_set(t, ln, WC_WHAT, "%s%llx %s", nx_opt.json || nx_opt.raw ? "" : "  ",
			     (unsigned long long)v->start,
			     v->name ? v->name : "");
		nx_table_set(t, ln, WC_TYPE, "vma");
		nx_table_set(t, ln, WC_PID, "%d", (int)b->l.pid);
		nx_table_set(t, ln, WC_START, "%llx", (unsigned long long)v->start);
		nx_table_set(t, ln, WC_NAME, "%s", v->name ? v->name : "");
		nx_table_size(t, ln, WC_FAST, v->fast_bytes);
		nx_table_size(t, ln, WC_SLOW, v->slow_bytes);
		set_dslow(t, ln, v->slow_bytes, old ? old->slow_bytes : v->slow_bytes);
		set_pct(t, ln, v->fast_bytes, v->slow_bytes);
		nx_table_set(t, ln, WC_VERDICT, "%s", v->verdict);
	}
}

static void watch_usage(FILE *out)
{
	fputs("Usage: numabctl watch [OPTIONS] PID\n\n"
	      "Every interval, one row for PID (scan sequence progress, pages promoted,\n"
	      "demoted and migrated system-wide, its residency per tier and its\n"
	      "stranded memory) and rows for its top VMAs: stranded ones first, then\n"
	      "those with most memory on a slow tier.\n\n"
	      "  -i, --interval SEC  seconds between samples (default 1)\n"
	      "  -n, --count N       stop after N intervals (default: until Ctrl-C)\n"
	      "  -t, --top N         VMA rows per interval (default 3, 0 for none)\n\n"
	      "The rows keep this order: watch takes no sort column.\n"
	      "Here -n is the count; use --noheadings for no headers.  With -J each\n"
	      "sample is one JSON object on a line of its own, printed when taken\n"
	      "({\"sample\": N, \"time\": SEC, \"rows\": [...]}), for jq and the like.\n", out);
	nx_print_columns_help(out, watch_cols, sizeof(watch_cols) / sizeof(watch_cols[0]));
}

/* stream the rows of the new sample; the header goes with the first */
static void print_new(struct nx_table *t, size_t first)
{
	struct libscols_line *from = scols_table_get_line(t->tb, first);

	if (nx_opt.json || !from)
		return;
	scols_table_print_range(t->tb, from, NULL);
	fputc('\n', stdout);
	fflush(stdout);
}

/* -J: the sample as one line of JSON, now (JSON Lines), and the rows dropped */
static void print_json(struct nx_table *t, unsigned long no, double time)
{
	struct json_object *o = json_object_new_object();
	char buf[32];

	snprintf(buf, sizeof(buf), "%.1f", time);
	json_object_object_add(o, "sample", json_object_new_int64((int64_t)no));
	json_object_object_add(o, "time", json_object_new_double_s(time, buf));
	json_object_object_add(o, "rows", nx_table_json(t));
	nx_opt.compact = true;	/* one object a line */
	nx_json_print(o, stdout);
	fflush(stdout);
	json_object_put(o);
	scols_table_remove_lines(t->tb);
}

static int watch_loop(pid_t pid, double interval, unsigned long count, size_t top)
{
	struct sample s[2];
	struct nx_topo topo;
	struct nx_table t;
	double t0 = nx_now();
	unsigned long no;
	int cur = 0, r;

	if (nx_topo_load(&topo))
		return NX_ERUNTIME;
	r = take(&s[0], pid, &topo, t0);
	if (r) {
		drop(&s[0]);
		nx_topo_free(&topo);
		return r;
	}
	nx_vmlist_warn(&s[0].l);
	if (nx_table_init(&t, "samples", watch_cols, sizeof(watch_cols) / sizeof(watch_cols[0]),
			  nx_opt.json ? WATCH_JSON : WATCH_DEFAULT, nx_opt.columns)) {
		drop(&s[0]);
		nx_topo_free(&topo);
		return NX_EUSAGE;
	}
	scols_table_set_stream(t.tb, stdout);
	for (no = 1; !stop && (!count || no <= count); no++) {
		size_t first = scols_table_get_nlines(t.tb);
		double until = t0 + interval * (double)no;

		while (!stop && nx_now() < until)
			nx_sleep(until - nx_now() > 0.1 ? 0.1 : until - nx_now());
		if (stop)
			break;
		r = take(&s[!cur], pid, &topo, t0);
		if (r) {
			drop(&s[!cur]);
			break;
		}
		rows(&t, no, &s[cur], &s[!cur], top);
		if (nx_opt.json)
			print_json(&t, no, s[!cur].t);
		else
			print_new(&t, first);
		drop(&s[cur]);
		cur = !cur;
	}
	nx_table_free(&t);
	drop(&s[cur]);
	nx_topo_free(&topo);
	return r;
}

int cmd_watch(int argc, char **argv)
{
	static const struct option lo[] = {
		NX_COMMON_LONGOPTS,
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "top", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct sigaction sa;
	double interval = 1;
	uint64_t count = 0, top = 3;
	pid_t pid;
	int c, r;

	/* "n:" first: -n COUNT; --noheadings still works */
	while ((c = getopt_long(argc, argv, ":i:n:t:" NX_COMMON_SHORTOPTS, lo, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (nx_parse_seconds(optarg, &interval))
				return NX_EUSAGE;
			if (interval < 0.01)
				return nx_usage_error("invalid --interval '%s': at least 0.01 s",
						      optarg);
			break;
		case 't':
			if (nx_parse_u64(optarg, strlen(optarg), 10, &top))
				return nx_usage_error("invalid --top '%s': a number of VMA rows",
						      optarg);
			break;
		case 'n':
			if (!optarg) {	/* --noheadings */
				nx_opt.noheadings = true;
				break;
			}
			if (nx_parse_u64(optarg, strlen(optarg), 10, &count))
				return nx_usage_error("invalid --count '%s': a number of intervals",
						      optarg);
			break;
		default:
			r = nx_opt_other(c, optarg, watch_usage);
			if (r >= 0)
				return r;
		}
	}
	if (nx_opt.sort)
		return nx_usage_error("watch orders its rows itself (the process, then its "
				      "stranded VMAs and those with the most slow-tier "
				      "memory): --sort is not accepted");
	r = nx_opts_done(watch_cols, sizeof(watch_cols) / sizeof(watch_cols[0]));
	if (r >= 0)
		return r;
	r = nx_pid_operand(argc, argv, watch_usage, &pid);
	if (r >= 0)
		return r;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return watch_loop(pid, interval, (unsigned long)count, (size_t)top);
}
