// SPDX-License-Identifier: GPL-2.0
/*
 * The scan-state backends besides /proc/<pid>/numa_vmas: the BPF task_vma
 * iterator of bpf/numab_vmas.bpf.c (built when clang, libbpf and bpftool
 * are there: NX_HAVE_BPF), and the release prediction of the legacy PID
 * filter, which both backends use.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "numabctl.h"
#include "backend.h"

int nx_backend_opt = NX_BACKEND_AUTO;

static const char *const backend_names[] = {
	[NX_BACKEND_AUTO] = "auto",
	[NX_BACKEND_NUMA_VMAS] = "numa_vmas",
	[NX_BACKEND_BPF] = "bpf",
	[NX_BACKEND_NONE] = "none",
};

int nx_backend_parse(const char *s)
{
	for (size_t i = 0; i < sizeof(backend_names) / sizeof(backend_names[0]); i++)
		if (!strcmp(s, backend_names[i]))
			return (int)i;
	return -1;
}

const char *nx_backend_name(int b)
{
	return b >= 0 && b <= NX_BACKEND_NONE ? backend_names[b] : "?";
}

/* ---- the legacy PID filter's fallback ------------------------------------ */

/* hash_32(val, 6) of include/linux/hash.h: the bit of a PID in pids_active */
static unsigned int pid_bit(uint32_t pid)
{
	return (uint32_t)(pid * 0x61C88647u) >> (32 - 6);
}

/* utime + stime of /proc/@pid/task/@tid/stat in ms, -1 unreadable */
static long task_cpu_ms(pid_t pid, unsigned long tid)
{
	char path[4096], buf[1024], *p;
	unsigned long long ut, st;
	long hz = sysconf(_SC_CLK_TCK);

	nx_path(path, sizeof(path), "/proc/%d/task/%lu/stat", (int)pid, tid);
	if (hz <= 0 || nx_read_str(path, buf, sizeof(buf)))
		return -1;
	/*
	 * past the comm, which may hold spaces and parentheses, to the space
	 * before field 14 (utime); field 15 is stime
	 */
	p = strrchr(buf, ')');
	for (int f = 3; p && f <= 14; f++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu %llu", &ut, &st) != 2)
		return -1;
	return (long)((ut + st) * 1000 / (unsigned long long)hz);
}

static int cmp_tid(const void *x, const void *y)
{
	const struct nx_thread_cpu *a = x, *b = y;

	return (a->tid > b->tid) - (a->tid < b->tid);
}

int nx_threads_cpu_load(pid_t pid, struct nx_threads_cpu *c)
{
	char path[4096];
	struct dirent *d;
	size_t cap = 0;
	DIR *dir;

	memset(c, 0, sizeof(*c));
	nx_path(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		char *end;
		unsigned long tid = strtoul(d->d_name, &end, 10);
		long ms;

		if (!isdigit((unsigned char)d->d_name[0]) || *end)
			continue;
		ms = task_cpu_ms(pid, tid);
		if (ms < 0)
			continue;
		if (c->n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			struct nx_thread_cpu *nt = realloc(c->t, nc * sizeof(*nt));

			if (!nt)
				break;
			c->t = nt;
			cap = nc;
		}
		c->t[c->n].tid = (long)tid;
		c->t[c->n++].ms = ms;
	}
	closedir(dir);
	if (c->n)
		qsort(c->t, c->n, sizeof(*c->t), cmp_tid);
	return 0;
}

void nx_threads_cpu_free(struct nx_threads_cpu *c)
{
	free(c->t);
	memset(c, 0, sizeof(*c));
}

long nx_threads_cpu_max(const struct nx_threads_cpu *c)
{
	long max = -1;

	for (size_t i = 0; i < c->n; i++)
		if (c->t[i].ms > max)
			max = c->t[i].ms;
	return max;
}

long nx_threads_cpu_ran(const struct nx_threads_cpu *a, const struct nx_threads_cpu *b,
			long *tid)
{
	long best = -1;
	size_t k = 0;

	*tid = -1;
	for (size_t i = 0; i < b->n; i++) {	/* both in tid order */
		long before = 0, d;

		while (k < a->n && a->t[k].tid < b->t[i].tid)
			k++;
		if (k < a->n && a->t[k].tid == b->t[i].tid)
			before = a->t[k].ms;	/* else it began meanwhile */
		d = b->t[i].ms >= before ? b->t[i].ms - before : 0;
		if (d > best) {
			best = d;
			*tid = b->t[i].tid;
		}
	}
	return best;
}

long nx_threads_cpu_ms_max(pid_t pid)
{
	struct nx_threads_cpu c;
	long max;

	if (nx_threads_cpu_load(pid, &c))
		return -1;
	max = nx_threads_cpu_max(&c);
	nx_threads_cpu_free(&c);
	return max;
}

void nx_threads_load(pid_t pid, struct nx_threads *t)
{
	char path[4096], buf[8192], *p;
	struct dirent *d;
	DIR *dir;

	memset(t, 0, sizeof(*t));
	t->nr = -1;
	nx_path(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!nx_read_str(path, buf, sizeof(buf)) && (p = strstr(buf, "\nThreads:")))
		t->nr = strtol(p + 9, NULL, 10);
	nx_path(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		char *end;
		unsigned long tid = strtoul(d->d_name, &end, 10);

		if (!isdigit((unsigned char)d->d_name[0]) || *end)
			continue;
		t->hash_bits |= 1ull << pid_bit((uint32_t)tid);
		t->listed++;
	}
	closedir(dir);
}

bool nx_pid_release(const struct nx_numab_vma *v, const struct nx_numab_mm *mm,
		    const struct nx_threads *t, int64_t *release_in)
{
	const unsigned int need = NV_HAVE_START_SEQ | NV_HAVE_PREV_SEQ | NV_HAVE_PIDS;
	int64_t seq = (int64_t)mm->scan_seq, horizon;
	uint64_t pids = v->pids[0] | v->pids[1];

	if (v->state != NX_SYM_OK || (v->have & need) != need || t->nr < 1 ||
	    !(mm->have & MM_HAVE_SEQ) || v->filter != NX_SYM_NONE)
		return false;
	/* vma_is_accessed(): the first two sequences are unconditional */
	if (seq - v->start_seq < 2)
		return false;
	/* scanned in this sequence, or waiting out its scan delay */
	if (v->prev_seq == seq || ((v->have & NV_HAVE_NEXT_SCAN) && v->next_scan_ms > 0))
		return false;
	/* a thread of the process faulted in it: that thread scans it */
	if (pids & (t->listed ? t->hash_bits : ~0ull))
		return false;
	/* a scan that began inside it is completed (ignore_pid_inactive) */
	if ((mm->have & MM_HAVE_OFFSET) && mm->scan_offset > v->start &&
	    mm->scan_offset < v->end)
		return false;
	/* the fallback: scanned once numa_scan_seq > prev_scan_seq + nr_threads */
	horizon = (int64_t)v->prev_seq + t->nr;
	/*
	 * Overdue by more than the sequence in progress: something else
	 * keeps it unscanned (a pass that never gets there, another
	 * kernel's rules); no prediction.
	 */
	if (seq > horizon + 1)
		return false;
	*release_in = horizon + 1 - seq;
	return true;
}

static long sched_scan_seq(pid_t pid)
{
	char path[4096], buf[16384], *p;

	nx_path(path, sizeof(path), "/proc/%d/sched", (int)pid);
	if (nx_read_str(path, buf, sizeof(buf)) || !(p = strstr(buf, "mm->numa_scan_seq")))
		return -1;
	p = strchr(p, ':');
	return p ? strtol(p + 1, NULL, 10) : -1;
}

void nx_scan_rate_measure(pid_t pid, double max_sec, struct nx_scan_rate *r)
{
	const double poll = 0.05;
	double t0 = nx_now(), at[5], now, mean, dev = 0;
	long seq = sched_scan_seq(pid), s;
	int k = 0;

	memset(r, 0, sizeof(*r));
	if (seq < 0) {
		snprintf(r->how, sizeof(r->how), "no mm->numa_scan_seq in /proc/%d/sched", (int)pid);
		return;
	}
	/* the times of up to 5 increments: 4 whole sequences between them */
	do {
		nx_sleep(poll);
		now = nx_now();
		s = sched_scan_seq(pid);
		if (s < 0)
			break;
		if (s != seq) {
			at[k++] = now;
			r->changes += (int)(s > seq ? s - seq : 1);
			seq = s;
		}
	} while (k < 5 && now - t0 < max_sec);
	r->window = nx_now() - t0;
	if (k < 3 || r->changes != k) {
		snprintf(r->how, sizeof(r->how), "%d sequence(s) in %.0f s: rate unknown",
			 r->changes, r->window);
		return;
	}
	/* the mean of the whole sequences seen, +- their spread and the polling */
	mean = (at[k - 1] - at[0]) / (k - 1);
	for (int i = 1; i < k; i++) {
		double d = at[i] - at[i - 1] - mean;

		dev = d < 0 ? (-d > dev ? -d : dev) : (d > dev ? d : dev);
	}
	r->sec_per_seq = mean;
	r->err = dev + 2 * poll;
	snprintf(r->how, sizeof(r->how), "%.2f s per sequence (+-%.2f), measured over %d sequences",
		 r->sec_per_seq, r->err, k - 1);
}

void nx_release_predict(struct nx_vmlist *l)
{
	struct nx_threads t;

	nx_threads_load(l->pid, &t);
	/* the thread count of the BPF read, taken with the state, comes first */
	if (l->nr_threads > 0)
		t.nr = l->nr_threads;
	l->nr_threads = t.nr;
	for (size_t i = 0; i < l->n; i++) {
		struct nx_vma *v = &l->v[i];

		v->release_in = -1;
		if (v->in_numab && !nx_pid_release(&v->nv, &l->mm, &t, &v->release_in))
			v->release_in = -1;
	}
}

void nx_release_text(const struct nx_vma *v, const struct nx_vmlist *l, char *buf, size_t sz)
{
	char d[32];

	if (v->release_in < 0) {
		buf[0] = '\0';
		return;
	}
	if (v->release_in == 0) {
		snprintf(buf, sz, "due for the legacy fallback in this sequence");
		return;
	}
	if (l->sec_per_seq > 0) {
		char e[32];

		/* +- one sequence (where in it the scan reaches the VMA) and the spread */
		nx_fmt_duration((double)v->release_in * l->sec_per_seq, d, sizeof(d));
		nx_fmt_duration((double)v->release_in * l->rate_err + l->sec_per_seq, e, sizeof(e));
		snprintf(buf, sz, "released by the legacy fallback in about %lld sequences "
			 "(about %s, +-%s)", (long long)v->release_in, d, e);
	} else {
		snprintf(buf, sz, "released by the legacy fallback in about %lld sequences",
			 (long long)v->release_in);
	}
}

void nx_backend_status(struct nx_table *t)
{
	char path[4096], why[200];
	bool nv;

	nx_path(path, sizeof(path), "/proc/self/numa_vmas");
	nv = nx_exists(path);
	if (nx_opt.sysroot[0]) {
		nx_kv_add(t, "scan_state", "%s", nv ? "numa_vmas" : "none");
		nx_kv_add(t, "bpf_backend", "- (--sysroot)");
		return;
	}
	if (nx_bpf_usable(why, sizeof(why))) {
		nx_kv_add(t, "scan_state", "%s", nv ? "numa_vmas" : "none (residency only)");
		nx_kv_add(t, "bpf_backend", "no: %s", why);
	} else {
		nx_kv_add(t, "scan_state", "%s", nv ? "numa_vmas" : "bpf");
		nx_kv_add(t, "bpf_backend", "yes");
	}
}

static double rate_max_sec = 10;
static bool dump_numa_vmas;
/* --numa-vmas: the VMA filters of vmas (--stranded, --min-size, -z) */
static bool dump_stranded, dump_nonzero;
static uint64_t dump_min_size;

bool nx_backend_dump(void)
{
	return dump_numa_vmas;
}

void nx_backend_dump_filter(bool stranded, uint64_t min_size, bool nonzero)
{
	dump_stranded = stranded;
	dump_min_size = min_size;
	dump_nonzero = nonzero;
}

static bool dump_keeps(const struct nx_vma *v)
{
	if (dump_stranded && (!v->verdict || strcmp(v->verdict, "stranded")))
		return false;
	if (v->end - v->start < dump_min_size)
		return false;
	return !dump_nonzero || (v->in_numa_maps && v->fast_bytes + v->slow_bytes);
}

int nx_backend_opt_set(int c, const char *arg)
{
	char *end;
	double d;

	switch (c) {
	case 0x1B0:
		nx_backend_opt = nx_backend_parse(arg);
		if (nx_backend_opt < 0) {
			nx_warn("invalid --backend '%s': auto, numa_vmas, bpf or none", arg);
			return 1;
		}
		return 0;
	case 0x1B1:
		d = strtod(arg, &end);
		if (end == arg || *end || !(d >= 0 && d <= 3600)) {
			nx_warn("invalid --rate '%s': seconds from 0 to 3600", arg);
			return 1;
		}
		rate_max_sec = d;
		return 0;
	default:
		dump_numa_vmas = true;
		return 0;
	}
}

static void dump_name(const char *name, FILE *out)
{
	/* maps' names, or the BPF backend's anon/heap/stack where maps has none */
	if (!name || !name[0] || !strcmp(name, "anon"))
		fputs(" anon", out);
	else if (name[0] == '/') {
		/* seq_path()'s escapes of numa_vmas: "\n\t= " as \ooo */
		fputs(" file=", out);
		for (const char *c = name; *c; c++)
			if (strchr("\n\t= ", *c))
				fprintf(out, "\\%03o", (unsigned char)*c);
			else
				fputc(*c, out);
	}
	else if (!strcmp(name, "[heap]") || !strcmp(name, "heap"))
		fputs(" heap", out);
	else if (!strcmp(name, "[stack]") || !strcmp(name, "stack"))
		fputs(" stack", out);
}

/* the scan state in numa_vmas' format: only the keys the backend had */
static void dump(const struct nx_vmlist *l, FILE *out)
{
	const struct nx_numab_mm *mm = &l->mm;

	fputs("mm", out);
	if (mm->have & MM_HAVE_SEQ)
		fprintf(out, " scan_seq=%lld", (long long)(int64_t)mm->scan_seq);
	if (mm->have & MM_HAVE_OFFSET)
		fprintf(out, " scan_offset=0x%llx", (unsigned long long)mm->scan_offset);
	if (mm->have & MM_HAVE_NEXT)
		fprintf(out, " next_scan_ms=%lld", (long long)mm->next_scan_ms);
	fputc('\n', out);
	for (size_t i = 0; i < l->n; i++) {
		const struct nx_vma *v = &l->v[i];
		const struct nx_numab_vma *n = &v->nv;

		if (!v->in_numab || !dump_keeps(v))
			continue;
		fprintf(out, "%08llx-%08llx filter=%s state=%s", (unsigned long long)v->start,
			(unsigned long long)v->end, nx_sym_str(n->filter), nx_sym_str(n->state));
#define K(bit, fmt, val) if (n->have & (bit)) fprintf(out, fmt, val)
		K(NV_HAVE_START_SEQ, " start_seq=%lld", (long long)n->start_seq);
		K(NV_HAVE_PREV_SEQ, " prev_seq=%lld", (long long)n->prev_seq);
		K(NV_HAVE_PROMO_SEQ, " promo_seq=%lld", (long long)n->promo_seq);
		K(NV_HAVE_PROMO_BACKOFF, " promo_backoff=%llu",
		  (unsigned long long)n->promo_backoff);
		if (n->have & NV_HAVE_PIDS)
			fprintf(out, " pids=0x%llx,0x%llx", (unsigned long long)n->pids[0],
				(unsigned long long)n->pids[1]);
		K(NV_HAVE_PID_RESET, " pid_reset_ms=%lld", (long long)n->pid_reset_ms);
		K(NV_HAVE_NEXT_SCAN, " next_scan_ms=%lld", (long long)n->next_scan_ms);
		K(NV_HAVE_PROMO_ONLY, " promo_only=%llu", (unsigned long long)n->promo_only);
		K(NV_HAVE_SCANS, " scans=%llu", (unsigned long long)n->scans);
		K(NV_HAVE_PROMO_SCANS, " promo_scans=%llu", (unsigned long long)n->promo_scans);
		K(NV_HAVE_PTE_UPDATES, " pte_updates=%llu", (unsigned long long)n->pte_updates);
		K(NV_HAVE_SKIP_DELAY, " skip_delay=%llu", (unsigned long long)n->skip_delay);
		K(NV_HAVE_SKIP_SEQ, " skip_seq=%llu", (unsigned long long)n->skip_seq);
		K(NV_HAVE_SKIP_PID, " skip_pid=%llu", (unsigned long long)n->skip_pid);
		K(NV_HAVE_LAST_SKIP, " last_skip=%s", nx_sym_str(n->last_skip));
#undef K
		dump_name(v->name, out);
		fputc('\n', out);
	}
}

bool nx_vmas_backend_done(struct nx_vmlist *l)
{
	struct nx_scan_rate rate;
	bool need = false;
	long seq;

	if (l->backend == NX_BACKEND_BPF)
		nx_warn("%s", l->backend_note);
	if (getenv("NUMABCTL_TIMING"))
		nx_warn("scan state of %zu VMAs read in %.6f s (backend %s%s)", l->n,
			l->state_seconds, nx_backend_name(l->backend), l->bpf_timing);
	if (dump_numa_vmas) {
		dump(l, stdout);
		return true;
	}
	/* only a stranded VMA's prediction is worth the wait */
	for (size_t i = 0; i < l->n && !need; i++)
		need = l->v[i].release_in >= 0 && l->v[i].verdict &&
		       !strcmp(l->v[i].verdict, "stranded");
	if (!need || rate_max_sec <= 0 || nx_opt.sysroot[0])
		return false;
	nx_scan_rate_measure(l->pid, rate_max_sec, &rate);
	/* the predictions count from now, the end of the measurement */
	seq = sched_scan_seq(l->pid);
	if (seq > (long)l->mm.scan_seq)
		for (size_t i = 0; i < l->n; i++) {
			struct nx_vma *v = &l->v[i];

			if (v->release_in < 0)
				continue;
			v->release_in -= seq - (long)l->mm.scan_seq;
			if (v->release_in < 0)
				v->release_in = 0;
		}
	l->sec_per_seq = rate.sec_per_seq;
	l->rate_err = rate.err;
	snprintf(l->rate_how, sizeof(l->rate_how), "%s", rate.how);
	nx_warn("scan rate: %s", rate.how);
	return false;
}

void nx_release_cells(const struct nx_vma *v, const struct nx_vmlist *l, const char **cells,
		      int col_seqs, int col_sec, int col_err, char *buf_seqs, char *buf_sec,
		      char *buf_err)
{
	if (v->release_in < 0)
		return;
	snprintf(buf_seqs, 32, "%lld", (long long)v->release_in);
	cells[col_seqs] = buf_seqs;
	if (l->sec_per_seq > 0) {
		snprintf(buf_sec, 32, "%.0f", (double)v->release_in * l->sec_per_seq);
		cells[col_sec] = buf_sec;
		snprintf(buf_err, 32, "%.0f", (double)v->release_in * l->rate_err + l->sec_per_seq);
		cells[col_err] = buf_err;
	}
}

void nx_fmt_duration(double sec, char *buf, size_t sz)
{
	if (sec < 90)
		snprintf(buf, sz, "%.0f s", sec);
	else if (sec < 5400)
		snprintf(buf, sz, "%.0f min", sec / 60);
	else
		snprintf(buf, sz, "%.1f h", sec / 3600);
}

/* ---- BPF ------------------------------------------------------------------ */

#ifndef NX_HAVE_BPF

bool nx_bpf_built(void)
{
	return false;
}

int nx_bpf_usable(char *why, size_t sz)
{
	snprintf(why, sz, "numabctl was built without BPF (no clang, libbpf or bpftool)");
	return NX_ENOTSUP;
}

int nx_bpf_read(pid_t pid, nx_bpf_fn fn, void *priv, struct nx_bpf_info *info,
		char *err, size_t errsz)
{
	(void)pid; (void)fn; (void)priv; (void)info;
	return nx_bpf_usable(err, errsz);
}

#else /* NX_HAVE_BPF */

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <zlib.h>

#include "bpf/numab_rec.h"

_Static_assert(sizeof(struct nb_rec) == 136, "struct nb_rec changed size");

bool nx_bpf_built(void)
{
	return true;
}

/* capability @cap in this process's effective set */
static bool has_cap(int cap)
{
	char buf[8192], *p;
	unsigned long long eff;

	/* our own status, not below --sysroot */
	FILE *f = fopen("/proc/self/status", "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strstr(buf, "\nCapEff:");
	if (!p)
		return false;
	eff = strtoull(p + 8, NULL, 16);
	return eff >> cap & 1;
}

#define CAP_SYS_ADMIN_	21
#define CAP_PERFMON_	38
#define CAP_BPF_	39

/* "none", "integrity", "confidentiality" or "" when unknown */
static void lockdown_mode(char *buf, size_t sz)
{
	char raw[128], *b, *e;
	FILE *f = fopen("/sys/kernel/security/lockdown", "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(raw, sizeof(raw), f) && (b = strchr(raw, '[')) && (e = strchr(b, ']'))) {
		*e = '\0';
		snprintf(buf, sz, "%s", b + 1);
	}
	fclose(f);
}

int nx_bpf_usable(char *why, size_t sz)
{
	char mode[32];

	if (nx_opt.sysroot[0]) {
		snprintf(why, sz, "--sysroot: BPF reads only the running kernel");
		return NX_ENOTSUP;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(why, sz, "kernel has no BTF (/sys/kernel/btf/vmlinux: %s; "
			 "CONFIG_DEBUG_INFO_BTF)", strerror(errno));
		return NX_ENOTSUP;
	}
	lockdown_mode(mode, sizeof(mode));
	if (!strcmp(mode, "confidentiality")) {
		snprintf(why, sz, "kernel lockdown (confidentiality) forbids BPF programs "
			 "that read kernel memory");
		return NX_EPERM;
	}
	if (!has_cap(CAP_SYS_ADMIN_) && !(has_cap(CAP_BPF_) && has_cap(CAP_PERFMON_))) {
		snprintf(why, sz, "loading the BPF iterator needs CAP_BPF and CAP_PERFMON "
			 "(or CAP_SYS_ADMIN): %s", nx_root_hint("CAP_BPF and CAP_PERFMON"));
		return NX_EPERM;
	}
	return 0;
}

/* libbpf's messages: kept (the last warning) for the error, printed on request */
static char bpf_last_msg[256];

static int bpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static int debug = -1;
	char buf[512];
	size_t n;

	if (debug < 0)
		debug = getenv("NUMABCTL_BPF_DEBUG") != NULL;
	if (debug)
		return vfprintf(stderr, fmt, ap);
	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	snprintf(bpf_last_msg, sizeof(bpf_last_msg), "%.200s", buf);
	return 0;
}

/* CONFIG_HZ=N of a kernel config file (plain or gzip), 0 if not found */
static long config_hz(const char *path)
{
	char line[256];
	long hz = 0;
	gzFile f = gzopen(path, "r");

	if (!f)
		return 0;
	while (gzgets(f, line, sizeof(line)))
		if (!strncmp(line, "CONFIG_HZ=", 10)) {
			hz = strtol(line + 10, NULL, 10);
			break;
		}
	gzclose(f);
	return hz;
}

/*
 * CONFIG_HZ, for the jiffies numab_state holds: from the kernel's config
 * if there is one, else from jiffies_64 and CLOCK_MONOTONIC read together:
 * jiffies_64 starts at INITIAL_JIFFIES = 2^32 - 300 * HZ at boot, so the
 * HZ that fits jiffies = 2^32 + (uptime - 300) * HZ best.  Near 300 s of
 * uptime every HZ fits: unknown.
 */
static long kernel_hz(const struct nb_rec *mm, char *how, size_t sz)
{
	static const long cand[] = { 100, 250, 300, 1000 };
	static long conf_hz = -1;	/* the config's, read once */
	double up, best = 1e30, second = 1e30;
	struct utsname u;
	char path[512];
	long hz = 0;

	if (conf_hz < 0) {
		conf_hz = 0;
		if (!uname(&u)) {
			snprintf(path, sizeof(path), "/boot/config-%s", u.release);
			conf_hz = config_hz(path);
		}
		if (!conf_hz)
			conf_hz = config_hz("/proc/config.gz");
	}
	if (conf_hz > 0) {
		snprintf(how, sz, "kernel config");
		return conf_hz;
	}
	if (!mm)
		return 0;
	up = (double)mm->ktime_ns / 1e9;
	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) {
		double want = 4294967296.0 + (up - 300.0) * (double)cand[i];
		double d = (double)mm->jiffies - want;

		d = d < 0 ? -d : d;
		if (d < best) {
			second = best;
			best = d;
			hz = cand[i];
		} else if (d < second) {
			second = d;
		}
	}
	/*
	 * The fit must be clear: within 2 s of ticks, and the next best HZ
	 * 5 s of ticks further off (HZ 250 and 300 differ by 50 ticks per
	 * second of |uptime - 300|).
	 */
	if (best > 2.0 * (double)hz || second < best + 5.0 * (double)hz) {
		snprintf(how, sz, "unknown (uptime %.0f s)", up);
		return 0;
	}
	snprintf(how, sz, "jiffies since boot");
	return hz;
}

/* jiffies64_to_msecs() of a signed delta */
static int64_t jiffies_ms(int64_t j, long hz)
{
	int64_t a = j < 0 ? -j : j, ms;

	ms = 1000 % hz == 0 ? a * (1000 / hz) : a * 1000 / hz;
	return j < 0 ? -ms : ms;
}

static const char *const skip_names[NB_SKIP_NR] = {
	[NB_SKIP_NONE] = "none",
	[NB_SKIP_UNSUITABLE] = "unsuitable",
	[NB_SKIP_SHARED_RO] = "shared_ro",
	[NB_SKIP_INACCESSIBLE] = "inaccessible",
	[NB_SKIP_SCAN_DELAY] = "scan_delay",
	[NB_SKIP_PID_INACTIVE] = "pid_inactive",
	[NB_SKIP_IGNORE_PID] = "ignore_pid_inactive",
	[NB_SKIP_SEQ_COMPLETED] = "seq_completed",
	[NB_SKIP_PID_INACTIVE_PROMO] = "pid_inactive_promo_only",
	[NB_SKIP_PROMO_BACKOFF] = "promo_backoff",
	[NB_SKIP_SHARED_RO_PROMO] = "shared_ro_promo_only",
};

#define VM_READ		0x00000001ull
#define VM_WRITE	0x00000002ull
#define VM_EXEC		0x00000004ull
#define VM_PFNMAP	0x00000400ull
#define VM_IO		0x00004000ull
#define VM_HUGETLB	0x00400000ull
#define VM_MIXEDMAP	0x10000000ull

/* the settings the static filters depend on */
struct filter_ctx {
	int shared_ro;		/* 0 off, 1 skip, 2 tier (stock: 1) */
	bool tiering;		/* numa_balancing & NUMA_BALANCING_MEMORY_TIERING */
	bool task_mof;		/* the task's policy has MPOL_F_MOF */
};

/*
 * The static filter of task_numa_work() for a VMA record, as
 * numab_vma_filter_name() of the series names it (stock 6.12 is the
 * series with shared_ro=1).  vma_policy_mof() differs between kernels for
 * a VMA with vm_ops->get_policy (shmem, memfd, SysV shm, files on tmpfs):
 * 6.12.109 and later stable 6.12 fall back to the task policy when the
 * VMA has no policy of its own, other kernels (mainline 6.18) do not and
 * skip it as unsuitable; @task_fallback says which to compute (shmem.c
 * picks).  Approximations: a shmem VMA's shared policy at its start is
 * taken to be its vm_policy (mbind() sets both); vma_migratable()'s zone
 * check takes policy_zone as ZONE_NORMAL (a file mapping allocating from
 * DMA or DMA32 is unsuitable); the task policy is the group leader's.
 */
static const char *bpf_filter(const struct nb_rec *r, const struct filter_ctx *c,
			      bool task_fallback)
{
	uint64_t f = r->vm_flags;
	bool mof, ro_file;

	if (r->flags & NB_F_VMPOL)
		mof = !!(r->flags & NB_F_VMPOL_MOF);
	else
		mof = r->flags & NB_F_GETPOL ? task_fallback && c->task_mof : c->task_mof;
	if (!(r->have & NB_H_POLICY))
		mof = true;	/* !CONFIG_NUMA: no policies */
	if (f & (VM_IO | VM_PFNMAP) || r->flags & (NB_F_DAX | NB_F_GFP_LOW) || !mof ||
	    f & (VM_HUGETLB | VM_MIXEDMAP))
		return "unsuitable";
	ro_file = c->shared_ro != 0 && (r->flags & NB_F_FILE) &&
		  (f & (VM_READ | VM_WRITE)) == VM_READ;
	if (ro_file && (c->shared_ro == 1 || !c->tiering))
		return "shared_ro";
	if (!(f & (VM_READ | VM_WRITE | VM_EXEC)))
		return "inaccessible";
	return ro_file ? "shared_ro_promo_only" : "none";
}

static void to_vma(const struct nb_rec *r, const struct filter_ctx *c, long hz,
		   struct nx_numab_vma *v)
{
	static const struct { uint32_t nb; unsigned int nv; } bits[] = {
		{ NB_H_START_SEQ, NV_HAVE_START_SEQ }, { NB_H_PREV_SEQ, NV_HAVE_PREV_SEQ },
		{ NB_H_PROMO_SEQ, NV_HAVE_PROMO_SEQ }, { NB_H_PIDS, NV_HAVE_PIDS },
		{ NB_H_PID_RESET, NV_HAVE_PID_RESET }, { NB_H_NEXT_SCAN, NV_HAVE_NEXT_SCAN },
		{ NB_H_PROMO_ONLY, NV_HAVE_PROMO_ONLY }, { NB_H_SCANS, NV_HAVE_SCANS },
		{ NB_H_PROMO_SCANS, NV_HAVE_PROMO_SCANS },
		{ NB_H_PTE_UPDATES, NV_HAVE_PTE_UPDATES },
		{ NB_H_SKIP_DELAY, NV_HAVE_SKIP_DELAY }, { NB_H_SKIP_SEQ, NV_HAVE_SKIP_SEQ },
		{ NB_H_SKIP_PID, NV_HAVE_SKIP_PID }, { NB_H_LAST_SKIP, NV_HAVE_LAST_SKIP },
		{ NB_H_PROMO_BACKOFF, NV_HAVE_PROMO_BACKOFF },
	};

	memset(v, 0, sizeof(*v));
	v->start = r->start;
	v->end = r->end;
	v->filter = nx_sym_cstr(bpf_filter(r, c, false));
	if ((r->flags & (NB_F_GETPOL | NB_F_VMPOL)) == NB_F_GETPOL &&
	    v->filter != nx_sym_cstr(bpf_filter(r, c, true))) {
		/* which one this kernel does: nx_shmem_resolve() */
		v->maybe[0] = v->filter;
		v->maybe[1] = nx_sym_cstr(bpf_filter(r, c, true));
		v->filter = NX_SYM_UNCERTAIN;
	}
	v->have = NV_HAVE_FILTER | NV_HAVE_STATE;
	if (r->flags & NB_F_HEAP)
		v->name = (struct nx_span){ "heap", 4 };
	else if (r->flags & NB_F_STACK)
		v->name = (struct nx_span){ "stack", 5 };
	else if ((r->flags & (NB_F_ANON | NB_F_FILE)) == NB_F_ANON)
		v->name = (struct nx_span){ "anon", 4 };
	if (!(r->flags & NB_F_STATE)) {
		v->state = NX_SYM_NONE;
		return;
	}
	v->state = NX_SYM_OK;
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (r->have & bits[i].nb)
			v->have |= bits[i].nv;
	/* without HZ the times cannot be given in ms: absent */
	if (!hz)
		v->have &= ~(NV_HAVE_PID_RESET | NV_HAVE_NEXT_SCAN);
	v->start_seq = r->start_seq;
	v->prev_seq = r->prev_seq;
	v->promo_seq = r->promo_seq;
	v->promo_backoff = r->promo_backoff;
	v->pids[0] = r->pids[0];
	v->pids[1] = r->pids[1];
	v->pid_reset_ms = hz ? jiffies_ms(r->pid_reset, hz) : 0;
	v->next_scan_ms = hz ? jiffies_ms(r->next_scan, hz) : 0;
	v->promo_only = r->promo_only;
	v->scans = r->scans;
	v->promo_scans = r->promo_scans;
	v->pte_updates = r->pte_updates;
	v->skip_delay = r->skip_delay;
	v->skip_seq = r->skip_seq;
	v->skip_pid = r->skip_pid;
	if (r->have & NB_H_LAST_SKIP)
		v->last_skip = nx_sym_cstr(r->last_skip < NB_SKIP_NR ?
					   skip_names[r->last_skip] : "unknown");
}

static void to_mm(const struct nb_rec *r, long hz, struct nx_numab_mm *mm)
{
	memset(mm, 0, sizeof(*mm));
	if (r->have & NB_H_MM_SEQ) {
		mm->scan_seq = (uint64_t)(int64_t)r->start_seq;
		mm->have |= MM_HAVE_SEQ;
	}
	if (r->have & NB_H_MM_OFFSET) {
		mm->scan_offset = r->start;
		mm->have |= MM_HAVE_OFFSET;
	}
	if ((r->have & NB_H_MM_NEXT) && hz) {
		mm->next_scan_ms = jiffies_ms(r->next_scan, hz);
		mm->have |= MM_HAVE_NEXT;
	}
}

/* why loading or attaching failed, as an exit code and a sentence */
static int load_error(int err, const char *what, char *buf, size_t sz)
{
	char mode[32];

	lockdown_mode(mode, sizeof(mode));
	if (err == EPERM || err == EACCES) {
		if (mode[0] && strcmp(mode, "none"))
			snprintf(buf, sz, "%s: %s; kernel lockdown is '%s'", what,
				 strerror(err), mode);
		else
			snprintf(buf, sz, "%s: %s: needs CAP_BPF and CAP_PERFMON (or root)%s%s",
				 what, strerror(err), bpf_last_msg[0] ? "; libbpf: " : "",
				 bpf_last_msg);
		return NX_EPERM;
	}
	snprintf(buf, sz, "%s: %s%s%s", what, strerror(err),
		 bpf_last_msg[0] ? "; libbpf: " : "", bpf_last_msg);
	return err == ENOENT || err == EINVAL || err == ESRCH || err == ENOTSUP ||
	       err == EOPNOTSUPP ? NX_ENOTSUP : NX_ERUNTIME;
}

struct reader {
	nx_bpf_fn fn;
	void *priv;
	struct nx_bpf_info *info;
	struct filter_ctx fc;
	long hz, hz_measured;
	bool have_mm;
};

/* a new walk of @pid: the program's state map reset */
static int reset_state(int map_fd, pid_t pid)
{
	struct nb_state st = { .target_tgid = (__s32)pid };
	__u32 zero = 0;

	return bpf_map_update_elem(map_fd, &zero, &st, 0);
}

/* the MM record alone: a fresh iterator read for its first record */
static int probe_mm(int map_fd, int link_fd, pid_t pid, struct nb_rec *rec)
{
	ssize_t n;
	int fd;

	if (reset_state(map_fd, pid))
		return -1;
	fd = bpf_iter_create(link_fd);
	if (fd < 0)
		return -1;
	n = read(fd, rec, sizeof(*rec));
	close(fd);
	if (reset_state(map_fd, pid))
		return -1;
	return n == (ssize_t)sizeof(*rec) && rec->kind == NB_REC_MM ? 0 : -1;
}

/*
 * HZ where kernel_hz() cannot tell (no config, uptime near 300 s): the
 * jiffies of two reads 0.3 s apart, to the nearest HZ within 10%.
 */
static long measure_hz(int map_fd, int link_fd, pid_t pid)
{
	static const long cand[] = { 100, 250, 300, 1000 };
	struct nb_rec a, b;
	char how[48];
	double hz;

	if (kernel_hz(NULL, how, sizeof(how)))
		return 0;	/* the config tells: no probe needed */
	if (probe_mm(map_fd, link_fd, pid, &a) || kernel_hz(&a, how, sizeof(how)))
		return 0;
	nx_sleep(0.3);
	if (probe_mm(map_fd, link_fd, pid, &b) || b.ktime_ns <= a.ktime_ns)
		return 0;
	hz = (double)(b.jiffies - a.jiffies) / ((double)(b.ktime_ns - a.ktime_ns) / 1e9);
	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++)
		if (hz > 0.9 * (double)cand[i] && hz < 1.1 * (double)cand[i])
			return cand[i];
	return 0;
}

static int one_record(struct reader *rd, const struct nb_rec *r)
{
	struct nx_numab_mm mm;
	struct nx_numab_vma v;

	if (r->kind == NB_REC_MM) {
		rd->hz = kernel_hz(r, rd->info->hz_how, sizeof(rd->info->hz_how));
		if (!rd->hz && rd->hz_measured) {
			rd->hz = rd->hz_measured;
			snprintf(rd->info->hz_how, sizeof(rd->info->hz_how), "jiffies over 0.3 s");
		}
		rd->info->hz = rd->hz;
		rd->info->nr_threads = r->nr_threads;
		rd->info->scan_period_ms = r->have & NB_H_MM_PERIOD ? r->scan_period : 0;
		rd->info->tid = (long)r->tid;
		rd->info->have_filters = r->have & NB_H_MM_FILTERS;
		rd->info->numab_filters = (uint32_t)r->vm_flags;
		rd->fc.task_mof = !(r->have & NB_H_MM_TASKPOL) || (r->flags & NB_F_TASKPOL_MOF);
		rd->have_mm = true;
		to_mm(r, rd->hz, &mm);
		return rd->fn(rd->priv, &mm, NULL);
	}
	if (r->kind != NB_REC_VMA || !rd->have_mm)
		return -EPROTO;
	to_vma(r, &rd->fc, rd->hz, &v);
	return rd->fn(rd->priv, NULL, &v);
}

/* the iterator of @prog on @pid's VMAs; -errno */
static int attach(const struct nx_bpf_prog *prog, pid_t pid)
{
	union bpf_iter_link_info linfo;
	int fd;

	memset(&linfo, 0, sizeof(linfo));
	linfo.task.tid = (__u32)pid;
	{
		LIBBPF_OPTS(bpf_link_create_opts, opts, .iter_info = &linfo,
			    .iter_info_len = sizeof(linfo));

		fd = bpf_link_create(prog->prog_fd, 0, BPF_TRACE_ITER, &opts);
	}
	/* kernels before 6.1 take no task: walk all, the program filters */
	if (fd < 0 && (errno == EINVAL || errno == E2BIG))
		fd = bpf_link_create(prog->prog_fd, 0, BPF_TRACE_ITER, NULL);
	return fd < 0 ? -errno : fd;
}

int nx_bpf_read(pid_t pid, nx_bpf_fn fn, void *priv, struct nx_bpf_info *info,
		char *err, size_t errsz)
{
	struct reader rd = { .fn = fn, .priv = priv, .info = info };
	struct nx_filters_state fs;
	struct nx_bpf_prog prog;
	static char buf[1 << 16];
	uint64_t last_end = 0;
	size_t have = 0;
	double t0;
	long mode;
	int fd = -1, link_fd = -1, r;

	memset(info, 0, sizeof(*info));
	r = nx_bpf_usable(err, errsz);
	if (r)
		return r;
	nx_filters_read(&fs);
	rd.fc.shared_ro = fs.val[NX_F_SHARED_RO] >= 0 ? fs.val[NX_F_SHARED_RO] : 1;	/* stock: skip */
	mode = nx_numa_balancing_mode();
	rd.fc.tiering = mode > 0 && (mode & 2);

	libbpf_set_print(bpf_print);
	t0 = nx_now();
	r = nx_bpf_prog_load(&prog);
	if (r)
		return load_error(-r, "loading the BPF program", err, errsz);
	info->load_seconds = nx_now() - t0;
	info->cached = prog.cached;
	t0 = nx_now();
	link_fd = attach(&prog, pid);
	if (link_fd == -ESRCH) {
		snprintf(err, errsz, "process %d: no such process", (int)pid);
		r = NX_ENOPROC;
		goto out;
	}
	if (link_fd < 0) {
		r = load_error(-link_fd, "attaching the task_vma iterator", err, errsz);
		goto out;
	}
	rd.hz_measured = measure_hz(prog.map_fd, link_fd, pid);
	if (reset_state(prog.map_fd, pid)) {
		r = load_error(errno, "setting up the BPF program's state", err, errsz);
		goto out;
	}
	fd = bpf_iter_create(link_fd);
	if (fd < 0) {
		r = load_error(errno, "creating the iterator", err, errsz);
		goto out;
	}
	/*
	 * Records come in address order.  A read that resumes after the
	 * process's mappings changed can start again before where the last
	 * one ended (seen on 6.18 when a process reads itself: every read
	 * past the end began again at the same VMA): such records are
	 * dropped, and a read with nothing new ends the walk.
	 */
	r = 0;
	for (unsigned long reads = 0;; reads++) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - have);
		size_t off = 0;
		bool news = false;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = load_error(errno, "reading the iterator", err, errsz);
			break;
		}
		if (n == 0)
			break;
		have += (size_t)n;
		while (have - off >= sizeof(struct nb_rec)) {
			struct nb_rec rec;
			int e;

			memcpy(&rec, buf + off, sizeof(rec));
			off += sizeof(rec);
			if ((rec.kind == NB_REC_MM && rd.have_mm) ||
			    (rec.kind == NB_REC_VMA && rec.start < last_end)) {
				info->dropped++;
				continue;
			}
			if (rec.kind == NB_REC_VMA)
				last_end = rec.end;
			news = true;
			info->records++;
			e = one_record(&rd, &rec);
			if (e) {
				snprintf(err, errsz, "%s", e == -ENOMEM ? "out of memory" :
					 "the BPF iterator's records are malformed");
				r = NX_ERUNTIME;
				goto out;
			}
		}
		memmove(buf, buf + off, have - off);
		have -= off;
		if (!news && reads > 0)
			break;
	}
	info->seconds = nx_now() - t0;
	if (!r && !rd.have_mm) {
		/* nothing: the process is gone, or it has no mm (a kernel thread) */
		if (kill(pid, 0) && errno == ESRCH) {
			snprintf(err, errsz, "process %d: no such process", (int)pid);
			r = NX_ENOPROC;
		} else {
			snprintf(err, errsz, "process %d: the iterator saw no mm "
				 "(a kernel thread, or it exited)", (int)pid);
			r = NX_ENOPROC;
		}
	}
out:
	if (fd >= 0)
		close(fd);
	if (link_fd >= 0)
		close(link_fd);
	nx_bpf_prog_close(&prog);
	return r;
}

#endif /* NX_HAVE_BPF */
