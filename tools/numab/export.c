// SPDX-License-Identifier: GPL-2.0
/*
 * numabctl export: the host's NUMA-balancing state and the processes with
 * the most memory on the slow tier, in the Prometheus text exposition
 * format (version 0.0.4), one-shot, for node_exporter's textfile
 * collector.  The whole text is made in memory first, then written to a
 * temporary file in the target directory and renamed over
 * DIR/numabctl.prom: a scrape sees the old file or the new one, never a
 * part.  Nothing is written when the export fails.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "override.h"
#include "backend.h"

#define EXPORT_FILE "numabctl.prom"
#define EXPORT_TOP 10

/* slow-tier bytes of the VMAs of one verdict held by one filter */
struct slow_part {
	const char *verdict;	/* judge()'s static strings */
	char holder[32];
	uint64_t bytes;
};

/* what is kept of a process once its VMAs are freed */
struct proc {
	pid_t pid;
	char comm[64];
	size_t comm_len;
	int backend;
	uint64_t fast, slow, stranded;
	bool have_state;	/* scan state: verdicts (else residency only) */
	bool have_seq;
	uint64_t scan_seq;
	bool have_pf;		/* its numa_filters was read */
	struct nx_proc_filters pf;
	struct slow_part *parts;
	size_t nparts;
};

struct export {
	struct proc *p;
	size_t n, cap;
	unsigned long read, gone, denied, failed;
	uint64_t stranded;	/* of every process read */
	double t0;
};

/*
 * A label value as the text format wants it: backslash, double quote and
 * line feed escaped (\\, \", \n).  The format is UTF-8: a byte that is
 * not part of valid UTF-8, and a control character, is written as the
 * four characters \xNN (its backslash escaped), as libsmartcols shows it.
 */
void nx_prom_label_value(FILE *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		unsigned char c = p[i];
		size_t len;

		if (c == '\\' || c == '"') {
			fputc('\\', out);
			fputc(c, out);
			i++;
			continue;
		}
		if (c == '\n') {
			fputs("\\n", out);
			i++;
			continue;
		}
		if (c >= 0x20 && c < 0x7f) {
			fputc(c, out);
			i++;
			continue;
		}
		/* a control character is escaped, a valid UTF-8 sequence kept */
		len = c >= 0x80 ? nx_utf8_len(p + i, n - i) : 0;
		if (len) {
			fwrite(p + i, 1, len, out);
			i += len;
			continue;
		}
		fprintf(out, "\\\\x%02x", c);
		i++;
	}
}

/* a metric name from a vmstat key: [a-zA-Z0-9_:], anything else '_' */
static void metric_part(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == ':' ? *s : '_', out);
}

static void family(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* family() before the first sample only: a family without one is left out */
static void family_once(FILE *out, bool *said, const char *name, const char *type,
			const char *help)
{
	if (!*said)
		family(out, name, type, help);
	*said = true;
}

/* NAME{pid="..",comm="..",backend=".." (the caller ends the label set) */
static void proc_labels(FILE *out, const char *name, const struct proc *p)
{
	fprintf(out, "%s{pid=\"%d\",comm=\"", name, (int)p->pid);
	nx_prom_label_value(out, p->comm, p->comm_len);
	fprintf(out, "\",backend=\"%s\"", nx_backend_name(p->backend));
}

/* comm as the kernel has it: any byte but NUL, the final line feed dropped */
static void read_comm(pid_t pid, struct proc *p)
{
	char path[4096];
	FILE *f;

	p->comm_len = 0;
	nx_path(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (f) {
		p->comm_len = fread(p->comm, 1, sizeof(p->comm) - 1, f);
		fclose(f);
	}
	if (p->comm_len && p->comm[p->comm_len - 1] == '\n')
		p->comm_len--;
	p->comm[p->comm_len] = '\0';
}

/*
 * The slow-tier memory of @l by verdict and holding filter (the grouping
 * of numabctl report's "Slow-tier memory by cause"), copied into @p: the
 * holders point into @l, which is freed before the export is written.
 */
static int keep_parts(struct proc *p, const struct nx_vmlist *l)
{
	struct nx_cause *c;
	size_t nc;

	if (nx_slow_causes(l, &c, &nc))
		return -ENOMEM;
	p->parts = nc ? calloc(nc, sizeof(*p->parts)) : NULL;
	if (nc && !p->parts) {
		free(c);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nc; i++) {
		p->parts[i].verdict = c[i].verdict;
		snprintf(p->parts[i].holder, sizeof(p->parts[i].holder), "%s", c[i].holder);
		p->parts[i].bytes = c[i].slow;
	}
	p->nparts = nc;
	free(c);
	return 0;
}

/* did @pid exit (gone, or a zombie without an address space)? */
static bool exited(pid_t pid)
{
	char path[4096], state[64];
	int r;

	nx_path(path, sizeof(path), "/proc/%d/stat", (int)pid);
	r = nx_read_str(path, state, sizeof(state));
	if (r == -ENOENT || r == -ESRCH)
		return true;
	nx_path(path, sizeof(path), "/proc/%d/status", (int)pid);
	return !nx_exists(path);
}

/*
 * Read one process into @e.  @named: the user asked for it, so that it is
 * gone or unreadable is the export's error; else it is counted and left
 * out (processes come and go while a host is read).
 */
static int read_proc(struct export *e, pid_t pid, const struct nx_topo *topo,
		     unsigned int stale, bool named)
{
	struct nx_vmlist l;
	struct proc *p;
	int r;

	if (e->n == e->cap) {
		size_t nc = e->cap ? e->cap * 2 : 64;
		struct proc *np = realloc(e->p, nc * sizeof(*np));

		if (!np)
			return NX_ERUNTIME;
		e->p = np;
		e->cap = nc;
	}
	/* an unnamed process that exits meanwhile is counted, not said */
	nx_warn_quiet = !named;
	r = nx_vmlist_load(&l, pid, topo, stale);
	nx_warn_quiet = false;
	if (r) {
		if (named)
			return r;
		if (r == NX_ENOPROC || exited(pid))
			e->gone++;
		else if (r == NX_EPERM)
			e->denied++;
		else
			e->failed++;
		return NX_OK;
	}
	p = &e->p[e->n];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	read_comm(pid, p);
	p->backend = l.backend;
	nx_vmlist_totals(&l, &p->fast, &p->slow, &p->stranded);
	p->have_state = l.have_numab;
	p->have_seq = l.have_numab && (l.mm.have & MM_HAVE_SEQ);
	p->scan_seq = l.mm.scan_seq;
	r = keep_parts(p, &l);
	nx_vmlist_free(&l);
	if (r)
		return NX_ERUNTIME;
	p->have_pf = nx_pf_supported() && !nx_pf_read(pid, &p->pf);
	e->n++;
	e->read++;
	e->stranded += p->stranded;
	return NX_OK;
}

/* most slow memory first, then most stranded, most fast memory, lowest PID */
static int cmp_proc(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	if (x->slow != y->slow)
		return x->slow < y->slow ? 1 : -1;
	if (x->stranded != y->stranded)
		return x->stranded < y->stranded ? 1 : -1;
	if (x->fast != y->fast)
		return x->fast < y->fast ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void host_metrics(FILE *out, const struct nx_topo *topo, long mode)
{
	struct nx_filters_state fs;
	struct nx_counters vm;
	char path[4096], rel[256] = "unknown";
	bool any = false;

	nx_path(path, sizeof(path), "/proc/sys/kernel/osrelease");
	nx_read_str(path, rel, sizeof(rel));
	family(out, "numab_exporter_info", "gauge",
	       "numabctl export: its version and the kernel release, always 1.");
	fprintf(out, "numab_exporter_info{version=\"%s\",kernel=\"", NUMABCTL_VERSION);
	nx_prom_label_value(out, rel, strlen(rel));
	fputs("\"} 1\n", out);

	family(out, "numab_balancing_mode", "gauge",
	       "kernel.numa_balancing: 0 off, 1 NUMA placement, 2 memory tiering, 3 both.");
	fprintf(out, "numab_balancing_mode %ld\n", mode);

	nx_filters_read(&fs);
	for (int i = 0; i < NX_NFILTERS; i++) {
		if (fs.val[i] < 0)
			continue;	/* absent (a kernel without the series) or unreadable */
		family_once(out, &any, "numab_filter_setting", "gauge",
			    "kernel.numa_balancing_filter_<filter> (numab series): "
			    "0 off, 1 skip or on, 2 tier.");
		fprintf(out, "numab_filter_setting{filter=\"%s\"} %d\n", nx_filters[i].name,
			fs.val[i]);
	}

	if (!nx_counters_load(&vm)) {
		for (size_t i = 0; i < vm.n; i++) {
			fputs("# HELP numab_vmstat_", out);
			metric_part(out, vm.name[i]);
			fputs("_total Counter ", out);
			metric_part(out, vm.name[i]);
			fputs(" of /proc/vmstat.\n# TYPE numab_vmstat_", out);
			metric_part(out, vm.name[i]);
			fputs("_total counter\nnumab_vmstat_", out);
			metric_part(out, vm.name[i]);
			fprintf(out, "_total %llu\n", (unsigned long long)vm.val[i]);
		}
	}
	nx_counters_free(&vm);

	for (int k = 0; k < 2 && topo->nnodes; k++) {
		family(out, k ? "numab_node_memory_free_bytes" : "numab_node_memory_bytes", "gauge",
		       k ? "Free memory of the node; tier is its memory_tierN, class fast "
			   "(top tier) or slow." :
			   "Memory of the node; tier is its memory_tierN, class fast "
			   "(top tier) or slow.");
		for (size_t i = 0; i < topo->nnodes; i++) {
			const struct nx_node *n = &topo->nodes[i];
			char tier[16] = "";

			if (n->tier >= 0)
				snprintf(tier, sizeof(tier), "%d", n->tier);
			fprintf(out, "%s{node=\"%d\",tier=\"%s\",class=\"%s\"} %llu\n",
				k ? "numab_node_memory_free_bytes" : "numab_node_memory_bytes",
				n->id, tier, topo->tiers_bad && n->tier < 0 ? "unknown" :
				n->fast ? "fast" : "slow",
				(unsigned long long)(k ? n->free_kb : n->total_kb) * 1024);
		}
	}
}

static void proc_metrics(FILE *out, const struct export *e, size_t top)
{
	size_t n = e->n < top ? e->n : top;
	bool any;

	if (!n)
		return;
	family(out, "numab_process_memory_bytes", "gauge",
	       "Resident memory of the process on the fast (top) and the slow tiers "
	       "(numa_maps); the processes with the most on the slow tier.");
	for (size_t i = 0; i < n; i++) {
		proc_labels(out, "numab_process_memory_bytes", &e->p[i]);
		fprintf(out, ",tier=\"fast\"} %llu\n", (unsigned long long)e->p[i].fast);
		proc_labels(out, "numab_process_memory_bytes", &e->p[i]);
		fprintf(out, ",tier=\"slow\"} %llu\n", (unsigned long long)e->p[i].slow);
	}
	any = false;
	for (size_t i = 0; i < n; i++) {
		if (!e->p[i].have_state)
			continue;	/* residency only: no verdict, not 0 */
		family_once(out, &any, "numab_process_stranded_memory_bytes", "gauge",
			    "Slow-tier memory of the process in VMAs numabctl judges "
			    "stranded: the scanner does not promote it (numabctl vmas "
			    "--stranded).");
		proc_labels(out, "numab_process_stranded_memory_bytes", &e->p[i]);
		fprintf(out, "} %llu\n", (unsigned long long)e->p[i].stranded);
	}
	any = false;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < e->p[i].nparts; k++) {
			const struct slow_part *sp = &e->p[i].parts[k];

			family_once(out, &any, "numab_process_slow_memory_bytes", "gauge",
				    "Slow-tier memory of the process by the verdict on its "
				    "VMAs (ok, stranded, skipped, unscanned, unknown) and the "
				    "filter that holds them (pid, shared_ro, ..., none).");
			proc_labels(out, "numab_process_slow_memory_bytes", &e->p[i]);
			fprintf(out, ",verdict=\"%s\",filter=\"", sp->verdict);
			nx_prom_label_value(out, sp->holder, strlen(sp->holder));
			fprintf(out, "\"} %llu\n", (unsigned long long)sp->bytes);
		}
	any = false;
	for (size_t i = 0; i < n; i++) {
		if (!e->p[i].have_seq)
			continue;
		family_once(out, &any, "numab_process_scan_sequences_total", "counter",
			    "Scan sequences of the process's address space "
			    "(mm->numa_scan_seq).");
		proc_labels(out, "numab_process_scan_sequences_total", &e->p[i]);
		fprintf(out, "} %llu\n", (unsigned long long)e->p[i].scan_seq);
	}
	any = false;
	for (size_t i = 0; i < n; i++) {
		const struct proc *p = &e->p[i];
		int count = 0;

		if (!p->have_pf)
			continue;
		for (int k = 0; k < NX_NFILTERS; k++)
			count += (p->pf.have >> k & 1) && p->pf.val[k] != NX_FILTER_INHERIT;
		family_once(out, &any, "numab_process_filter_overrides", "gauge",
			    "Filters the process overrides (/proc/PID/numa_filters), "
			    "0 when it follows the system's.");
		proc_labels(out, "numab_process_filter_overrides", p);
		fprintf(out, "} %d\n", count);
	}
	any = false;
	for (size_t i = 0; i < n; i++) {
		const struct proc *p = &e->p[i];

		for (int k = 0; p->have_pf && k < NX_NFILTERS; k++) {
			if (!(p->pf.have >> k & 1) || p->pf.val[k] == NX_FILTER_INHERIT)
				continue;
			family_once(out, &any, "numab_process_filter_override", "gauge",
				    "A filter the process overrides, and its value "
				    "(as numab_filter_setting).");
			proc_labels(out, "numab_process_filter_override", p);
			fprintf(out, ",filter=\"%s\"} %d\n", nx_filters[k].name, p->pf.val[k]);
		}
	}
}

static void export_metrics(FILE *out, const struct export *e)
{
	static const char *const results[] = { "read", "gone", "denied", "failed" };
	const unsigned long counts[] = { e->read, e->gone, e->denied, e->failed };

	family(out, "numab_stranded_memory_bytes", "gauge",
	       "Slow-tier memory in stranded VMAs, summed over every process read.");
	fprintf(out, "numab_stranded_memory_bytes %llu\n", (unsigned long long)e->stranded);
	family(out, "numab_export_processes", "gauge",
	       "Processes numabctl export looked at: read, gone (exited meanwhile), "
	       "denied (not root), failed.");
	for (size_t i = 0; i < 4; i++)
		fprintf(out, "numab_export_processes{result=\"%s\"} %lu\n", results[i], counts[i]);
	family(out, "numab_export_last_success_timestamp_seconds", "gauge",
	       "Unix time of the export that wrote this file: an old value means "
	       "the exports fail, the collector serving the last file written.");
	fprintf(out, "numab_export_last_success_timestamp_seconds %.3f\n", nx_now_real());
	family(out, "numab_export_duration_seconds", "gauge",
	       "How long reading the host took.");
	fprintf(out, "numab_export_duration_seconds %.6f\n", nx_now() - e->t0);
}

static void export_free(struct export *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->p[i].parts);
	free(e->p);
}

/* why @file cannot be written (@r: -errno), and that @existed stays */
static int prom_error(const char *file, int r, bool existed)
{
	if (*nx_write_cause())
		nx_warn("%s: cannot write: %s: %s", file, strerror(-r), nx_write_cause());
	else
		nx_warn("%s: cannot write: %s%s%s", file, strerror(-r),
			r == -EACCES || r == -EPERM ? ": " : "",
			r == -EACCES || r == -EPERM ? nx_root_hint("CAP_DAC_OVERRIDE") : "");
	if (existed)
		nx_warn("%s: left as it was", file);
	return r == -EACCES || r == -EPERM ? NX_EPERM : NX_ERUNTIME;
}

/* the directory of --textfile-directory: there and writable, checked first */
static int check_dir(const char *dir)
{
	struct stat st;

	if (stat(dir, &st)) {
		int e = errno;

		nx_warn("--textfile-directory %s: %s%s", dir, strerror(e), e == ENOENT ?
			": create it, or give the directory of node_exporter's textfile "
			"collector (its --collector.textfile.directory)" : "");
		return e == EACCES ? NX_EPERM : NX_ERUNTIME;
	}
	if (!S_ISDIR(st.st_mode)) {
		nx_warn("--textfile-directory %s: not a directory", dir);
		return NX_ERUNTIME;
	}
	if (access(dir, W_OK | X_OK)) {
		int e = errno;

		nx_warn("--textfile-directory %s: cannot write into it: %s%s%s", dir,
			strerror(e), e == EACCES ? ": " : "",
			e == EACCES ? nx_root_hint("CAP_DAC_OVERRIDE") : "");
		return e == EACCES ? NX_EPERM : NX_ERUNTIME;
	}
	return -1;
}

static void export_usage(FILE *out)
{
	fputs("Usage: numabctl export [OPTIONS] [-p PATTERN] [PID...]\n\n"
	      "Write the host's NUMA-balancing state and the processes with the most\n"
	      "memory on the slow tier as Prometheus metrics (text format 0.0.4),\n"
	      "once, for node_exporter's textfile collector: run it from a timer.\n"
	      "Without PID or -p, every process is read; those that exit meanwhile\n"
	      "are counted, not an error.\n\n"
	      "      --textfile-directory DIR  write DIR/" EXPORT_FILE " atomically (DIR:\n"
	      "                      node_exporter's collector.textfile.directory)\n"
	      "  -w, --write FILE    write FILE atomically ('-': standard output, the\n"
	      "                      default)\n"
	      "  -t, --top N         the N processes with the most slow-tier memory get\n"
	      "                      per-process metrics (default 10, 0 for none)\n"
	      "  -p, --process PAT   only the processes whose name matches PAT (an\n"
	      "                      extended regex), or PID if PAT is a number\n"
	      "      --stale N       sequences without a scan that make a VMA stranded\n"
	      "                      (default 4)\n"
	      "      --backend B     where the scan state comes from: auto (default),\n"
	      "                      numa_vmas, bpf or none (residency only)\n"
	      "\nA named process (PID, -p) that cannot be read fails the export; a\n"
	      "failed export writes nothing, the old file stays.\n", out);
}

int cmd_export(int argc, char **argv)
{
	static const struct option lo[] = {
		NX_COMMON_LONGOPTS,
		{ "textfile-directory", required_argument, NULL, 'D' },
		{ "write", required_argument, NULL, 'w' },
		{ "top", required_argument, NULL, 't' },
		NX_PROCESS_LONGOPTS,
		{ "backend", required_argument, NULL, 0x1B0 },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *file = "-", *pats[16];
	char target[4096];
	uint64_t top = EXPORT_TOP, stale = 4;
	struct nx_pidlist pl = { NULL, 0, 0 };
	struct export e = { .t0 = nx_now() };
	struct nx_topo topo;
	bool named, wrote_w = false;
	size_t npats = 0, len = 0;
	char *text = NULL;
	struct nx_out out;
	struct stat st;
	bool existed;
	FILE *mem;
	long mode;
	int c, r;

	while ((c = getopt_long(argc, argv, ":w:t:p:" NX_COMMON_SHORTOPTS, lo, NULL)) != -1) {
		switch (c) {
		case 'D': dir = optarg; break;
		case 'w': file = optarg; wrote_w = true; break;
		case 't':
			if (nx_parse_u64(optarg, strlen(optarg), 10, &top) || top > 1000000)
				return nx_usage_error("invalid --top '%s': a number of processes "
						      "up to 1000000", optarg);
			break;
		case 'p':
			if (nx_add_pattern(pats, &npats, sizeof(pats) / sizeof(pats[0]), optarg))
				return NX_EUSAGE;
			break;
		case 'T':
			if (nx_parse_stale(optarg, &stale))
				return NX_EUSAGE;
			break;
		case 0x1B0:
			if (nx_backend_opt_set(c, optarg))
				return NX_EUSAGE;
			break;
		default:
			r = nx_opt_other(c, optarg, export_usage);
			if (r >= 0)
				return r;
		}
	}
	r = nx_opts_done(NULL, 0);
	if (r >= 0)
		return r;
	if (nx_opt.json || nx_opt.raw || nx_opt.pairs || nx_opt.noheadings || nx_opt.bytes)
		return nx_usage_error("export writes the Prometheus text format: %s cannot be "
				      "used with it", nx_opt.json ? "--json" : nx_opt.raw ? "--raw" :
				      nx_opt.pairs ? "--pairs" : nx_opt.noheadings ?
				      "--noheadings" : "--bytes");
	if (dir && wrote_w)
		return nx_usage_error("--textfile-directory and --write cannot be used together");
	if (dir && !*dir)
		return nx_usage_error("--textfile-directory needs a directory");
	if (!*file)
		return nx_usage_error("--write needs a file name ('-' for standard output)");
	if (dir) {
		r = check_dir(dir);
		if (r >= 0)
			return r;
		snprintf(target, sizeof(target), "%s/%s", dir, EXPORT_FILE);
		file = target;
	}
	/*
	 * The file, whole or not at all, checked before any process is read: a
	 * temporary file beside it renamed over it (a symbolic link: over its
	 * target); a FIFO, a device or a dangling symbolic link (its target is
	 * created) is opened now and written through, as the shell's '>' does.
	 */
	existed = strcmp(file, "-") && !stat(file, &st);
	r = nx_out_open(&out, file, true);
	if (r)
		return prom_error(file, r, existed);

	/* a kernel without NUMA balancing has nothing to export */
	mode = nx_numa_balancing_mode();
	if (mode < 0) {
		char path[4096];

		nx_path(path, sizeof(path), "/proc/sys/kernel/numa_balancing");
		if (!nx_exists(path))
			nx_warn("%s not found: the kernel has no NUMA balancing "
				"(CONFIG_NUMA_BALANCING off): nothing to export", path);
		else
			nx_warn("%s: not readable, or not a number: cannot export", path);
		if (strcmp(file, "-"))
			nx_warn("%s: not written", file);
		nx_out_close(&out);
		return nx_exists(path) ? NX_ERUNTIME : NX_ENOTSUP;
	}

	named = optind < argc || npats;
	r = -1;
	for (int i = optind; r < 0 && i < argc; i++) {
		pid_t pid;

		if (nx_parse_pid(argv[i], &pid))
			r = NX_EUSAGE;
		else if (nx_pidlist_add(&pl, pid))
			r = NX_ERUNTIME;
	}
	for (size_t i = 0; r < 0 && i < npats; i++) {
		int m = nx_match_processes(pats[i], &pl, NULL);

		if (m)
			r = m;
	}
	if (r < 0 && !named && nx_match_processes(NULL, &pl, &e.denied))
		r = NX_ERUNTIME;
	if (r >= 0) {
		nx_pidlist_free(&pl);
		nx_out_close(&out);
		return r;
	}
	if (nx_topo_load(&topo)) {
		nx_pidlist_free(&pl);
		nx_out_close(&out);
		return NX_ERUNTIME;
	}
	nx_vmlist_nodes = false;
	for (size_t i = 0; i < pl.n && r < 0; i++) {
		int x = read_proc(&e, pl.p[i], &topo, (unsigned int)stale, named);

		if (x)
			r = x;
	}
	nx_pidlist_free(&pl);
	if (r >= 0) {
		if (strcmp(file, "-"))
			nx_warn("%s: not written", file);
		nx_topo_free(&topo);
		export_free(&e);
		nx_out_close(&out);
		return r;
	}
	if (e.denied && !named)
		nx_warn("%lu process(es) could not be read (permission denied), counted in "
			"numab_export_processes{result=\"denied\"}: %s", e.denied,
			nx_root_hint("CAP_SYS_PTRACE"));
	if (e.failed)
		nx_warn("%lu process(es) could not be read, counted in "
			"numab_export_processes{result=\"failed\"}", e.failed);
	qsort(e.p, e.n, sizeof(*e.p), cmp_proc);

	mem = open_memstream(&text, &len);
	if (!mem) {
		nx_warn("out of memory");
		nx_topo_free(&topo);
		export_free(&e);
		nx_out_close(&out);
		return NX_ERUNTIME;
	}
	host_metrics(mem, &topo, mode);
	proc_metrics(mem, &e, (size_t)top);
	export_metrics(mem, &e);
	nx_topo_free(&topo);
	export_free(&e);
	if (fclose(mem) || !text) {
		free(text);
		nx_warn("out of memory");
		nx_out_close(&out);
		return NX_ERUNTIME;
	}
	r = nx_out_write(&out, text, len);
	free(text);
	if (r && !strcmp(file, "-"))
		return NX_ERUNTIME;
	return r ? prom_error(file, r, existed) : NX_OK;
}
