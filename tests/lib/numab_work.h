/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Workload helpers for the numab guest tests of the scan-filter series:
 * task mempolicy binding, tmpfs files placed on a node, sleeping
 * threads that only inflate get_nr_threads(), mappings at chosen relative
 * addresses, vmstat snapshots, the PID hash vma_is_accessed() uses, and
 * per-thread fault counts. Include after numab_test.h.
 */
#ifndef NUMAB_WORK_H
#define NUMAB_WORK_H

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "numab_test.h"

#ifndef MPOL_DEFAULT
#define MPOL_DEFAULT	0
#define MPOL_BIND	2
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define NW_MB		(1UL << 20)

/* ---- memory policy ------------------------------------------------------ */

/* Bind this thread's future allocations to NODE (node < 0: back to default). */
static inline int nw_bind_node(int node)
{
	unsigned long mask = node >= 0 ? 1UL << node : 0;

	if (node < 0)
		return syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0) ? -errno : 0;
	return syscall(SYS_set_mempolicy, MPOL_BIND, &mask,
		       sizeof(mask) * 8) ? -errno : 0;
}

/*
 * SIZE bytes of private anonymous memory in small pages, every page
 * faulted in on NODE; MAP_FAILED on error.
 */
static inline char *nw_map_on_node(size_t size, int node)
{
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return p;
	if (madvise(p, size, MADV_NOHUGEPAGE) || nw_bind_node(node)) {
		munmap(p, size);
		return MAP_FAILED;
	}
	memset(p, 1, size);
	if (nw_bind_node(-1)) {
		munmap(p, size);
		return MAP_FAILED;
	}
	return p;
}

/* "Node N MemFree:  123 kB" of /sys/devices/system/node/nodeN/meminfo, in kB */
static inline long nw_node_meminfo_kb(int node, const char *key)
{
	char path[96], line[256], k[64];
	long v, ret = -1;
	int n;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d %63[^:]: %ld", &n, k, &v) == 3 &&
		    !strcmp(k, key)) {
			ret = v;
			break;
		}
	}
	fclose(f);
	return ret;
}

/*
 * Create PATH (on tmpfs) of SIZE bytes with its page cache on NODE: the
 * pages are allocated by write(2) under a temporary MPOL_BIND of this
 * thread (shmem falls back to the task policy). Returns 0 or -errno.
 */
static inline int nw_tmpfs_file_on(const char *path, size_t size, int node)
{
	size_t done = 0, chunk = NW_MB;
	char *buf = malloc(chunk);
	int fd, ret = 0;

	if (!buf)
		return -ENOMEM;
	memset(buf, 0x5a, chunk);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	ret = nw_bind_node(node);
	while (!ret && done < size) {
		size_t n = size - done < chunk ? size - done : chunk;
		ssize_t w = write(fd, buf, n);

		if (w <= 0)
			ret = w < 0 ? -errno : -EIO;
		else
			done += w;
	}
	nw_bind_node(-1);
	close(fd);
	free(buf);
	return ret;
}

/* ---- threads -------------------------------------------------------------- */

static inline pid_t nw_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/*
 * The bit vma_set_access_pid_bit() sets for a thread: hash_32(pid, 6) on a
 * 64-bit kernel (GOLDEN_RATIO_32 multiplicative hash).
 */
static inline unsigned int nw_pid_bit(pid_t pid)
{
	return ((uint32_t)pid * 0x61C88647u) >> (32 - 6);
}

/* Threads that sleep in read(2) until nw_sleepers_stop(): they never run. */
struct nw_sleepers {
	pthread_t *tids;
	int n;
	int pipefd[2];
};

static void *nw_sleeper_fn(void *arg)
{
	char c;

	while (read((int)(long)arg, &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static inline int nw_sleepers_start(struct nw_sleepers *s, int n)
{
	pthread_attr_t attr;
	int i, ret;

	memset(s, 0, sizeof(*s));
	if (pipe(s->pipefd))
		return -errno;
	s->tids = calloc(n, sizeof(*s->tids));
	if (!s->tids)
		return -ENOMEM;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (i = 0; i < n; i++) {
		ret = pthread_create(&s->tids[i], &attr, nw_sleeper_fn,
				     (void *)(long)s->pipefd[0]);
		if (ret) {
			pthread_attr_destroy(&attr);
			return -ret;
		}
		s->n++;
	}
	pthread_attr_destroy(&attr);
	return 0;
}

static inline void nw_sleepers_stop(struct nw_sleepers *s)
{
	int i;

	if (!s->tids)
		return;
	close(s->pipefd[1]);
	for (i = 0; i < s->n; i++)
		pthread_join(s->tids[i], NULL);
	close(s->pipefd[0]);
	free(s->tids);
	s->tids = NULL;
}

/* Minor faults (NUMA hinting faults included) taken by the calling thread. */
static inline long nw_thread_minflt(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -1;
	return ru.ru_minflt;
}

/* ---- address space layout --------------------------------------------------- */

/*
 * Find SIZE bytes of free address space (mmap's choice, then released) so
 * that mappings can be placed inside it with MAP_FIXED_NOREPLACE in a
 * chosen order. Returns NULL on failure.
 */
static inline char *nw_reserve_va(size_t size)
{
	char *p = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		       MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p, size);
	return p;
}

/* ---- vmstat ------------------------------------------------------------------ */

struct nw_vmstat {
	long long hint_faults, hint_faults_local, pte_updates, promote_success,
		  pages_migrated;
};

static inline void nw_vmstat_read(struct nw_vmstat *v)
{
	v->hint_faults = nt_vmstat("numa_hint_faults");
	v->hint_faults_local = nt_vmstat("numa_hint_faults_local");
	v->pte_updates = nt_vmstat("numa_pte_updates");
	v->promote_success = nt_vmstat("pgpromote_success");
	v->pages_migrated = nt_vmstat("numa_pages_migrated");
}

static inline void nw_vmstat_delta(const struct nw_vmstat *a,
				   const struct nw_vmstat *b, struct nw_vmstat *d)
{
	d->hint_faults = b->hint_faults - a->hint_faults;
	d->hint_faults_local = b->hint_faults_local - a->hint_faults_local;
	d->pte_updates = b->pte_updates - a->pte_updates;
	d->promote_success = b->promote_success - a->promote_success;
	d->pages_migrated = b->pages_migrated - a->pages_migrated;
}

/* strided placement and moves: nt_placement_strided(), nt_move_strided() */

/*
 * The stranding shape: FRONT_MB of private anonymous memory (no THP), a
 * 32 MiB gap, then B_MB of a memfd mapped MAP_SHARED, in that address
 * order, with every page of B faulted in on node 1. Returns 0 with the
 * mappings in *FRONT, *B and the memfd in *MEMFD (-1 if not made), or
 * -errno.
 */
static inline int nw_map_front_and_b(long front_mb, long b_mb, long pagesz,
				     char **front, char **b, int *memfd)
{
	char *va = nw_reserve_va((front_mb + 32 + b_mb) * NW_MB);
	char *want_b = va + (front_mb + 32) * NW_MB;
	long i;

	*front = MAP_FAILED;
	*b = MAP_FAILED;
	*memfd = -1;
	if (!va)
		return -ENOMEM;
	*front = mmap(va, front_mb * NW_MB, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (*front != va || madvise(va, front_mb * NW_MB, MADV_NOHUGEPAGE))
		return -errno;
	*memfd = memfd_create("numab-B", 0);
	if (*memfd < 0 || ftruncate(*memfd, b_mb * NW_MB))
		return -errno;
	*b = mmap(want_b, b_mb * NW_MB, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_FIXED_NOREPLACE, *memfd, 0);
	if (*b != want_b)
		return -errno;
	/* B onto node 1: fault it in under a temporary bind */
	if (nw_bind_node(1))
		return -errno;
	for (i = 0; i < (long)(b_mb * NW_MB / pagesz); i++)
		(*b)[i * pagesz] = 1;
	return nw_bind_node(-1) ? -errno : 0;
}

/* Undo nw_map_front_and_b() (also a partial one). */
static inline void nw_unmap_front_and_b(char *front, long front_mb, char *b,
					long b_mb, int memfd)
{
	if (front && front != MAP_FAILED)
		munmap(front, front_mb * NW_MB);
	if (b && b != MAP_FAILED)
		munmap(b, b_mb * NW_MB);
	if (memfd >= 0)
		close(memfd);
}

/* ---- sched_skip_vma_numa tracing of one VMA ------------------------------------ */

#define NW_TRACEFS	"/sys/kernel/tracing"
#define NW_SKIP_EVENT	NW_TRACEFS "/events/sched/sched_skip_vma_numa"

/*
 * Record the sched_skip_vma_numa events of the VMA that starts at VM_START
 * (an event filter keeps the ring buffer for that VMA only). Returns 0, or
 * -errno when tracefs or the event is missing: tracing is diagnostics,
 * callers go on without it.
 */
static inline int nw_trace_vma_start(const void *vm_start)
{
	char filter[64];
	int ret;

	if (access(NW_SKIP_EVENT "/enable", W_OK))
		return -ENOENT;
	snprintf(filter, sizeof(filter), "vm_start == 0x%lx",
		 (unsigned long)vm_start);
	nt_write(NW_SKIP_EVENT "/enable", "0");
	ret = nt_write(NW_SKIP_EVENT "/filter", filter);
	if (!ret)
		ret = nt_write_flags(NW_TRACEFS "/trace", "", O_TRUNC); /* clear */
	if (!ret)
		ret = nt_write(NW_SKIP_EVENT "/enable", "1");
	return ret;
}

static inline void nw_trace_vma_stop(void)
{
	nt_write(NW_SKIP_EVENT "/enable", "0");
	nt_write(NW_SKIP_EVENT "/filter", "0");
}

/*
 * "reason=count ..." of the recorded events (each distinct reason string,
 * so that a reason added by the series shows up too), into OUT.
 */
static __attribute__((noinline, unused))
void nw_trace_vma_reasons(char *out, size_t size)
{
	char line[512], reasons[16][40];
	long counts[16] = { 0 };
	int n = 0, i;
	size_t len = 0;
	FILE *f = fopen(NW_TRACEFS "/trace", "r");

	snprintf(out, size, "(no trace)");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *r = strstr(line, " reason=");
		char word[40];

		if (line[0] == '#' || !r || sscanf(r, " reason=%39s", word) != 1)
			continue;
		for (i = 0; i < n && strcmp(reasons[i], word); i++)
			;
		if (i == n) {
			if (n == 16)
				continue;
			strcpy(reasons[n++], word);
		}
		counts[i]++;
	}
	fclose(f);
	out[0] = '\0';
	for (i = 0; i < n && len < size; i++)
		len += snprintf(out + len, size - len, "%s%s=%ld", i ? " " : "",
				reasons[i], counts[i]);
	if (!n)
		snprintf(out, size, "no events");
}

/* ---- misc ------------------------------------------------------------------------ */

/* An integer knob from the environment (for longer diagnostic runs). */
static inline long nw_env_long(const char *name, long def)
{
	const char *s = getenv(name);

	return s && *s ? strtol(s, NULL, 0) : def;
}

/* xorshift64: cheap random page picks in hot loops */
static inline uint64_t nw_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

/* Is the testbed tiered (node 1 in a lower memory tier than node 0)? */
static inline int nw_tiered(void)
{
	int t0 = nt_node_tier(0), t1 = nt_node_tier(1);

	return t0 >= 0 && t1 > t0;
}

/*
 * What every scanner test checks before it starts: debugfs tunables and
 * mm->numa_scan_seq are there, with TIERS node 1 is in a lower tier, and
 * the filter sysctls are set for the variant (nt_filters_apply(); FILTERS
 * gets what to restore; LEGACY needs the sysctls, the defaults are what a
 * kernel without them is tested for). Returns NULL, or why the test must
 * be skipped.
 */
static inline const char *nw_scan_prereqs(int tiers, int legacy,
					  struct nt_filters *filters)
{
	if (access(NUMAB_DEBUGFS, F_OK))
		return "no " NUMAB_DEBUGFS " (needs DEBUG_FS and SCHED_DEBUG)";
	if (nt_scan_seq() < 0)
		return "no mm->numa_scan_seq in /proc/self/sched";
	if (tiers && !nw_tiered())
		return "node 1 is not in a lower memory tier than node 0";
	if (nt_filters_apply(legacy, filters))
		return "no kernel.numa_balancing_filter_* sysctls (kernel without the numab series)";
	return NULL;
}

static inline const char *nw_tiering_prereqs(int legacy, struct nt_filters *filters)
{
	return nw_scan_prereqs(1, legacy, filters);
}

/*
 * The start of every scanner fixture's setup (SELF has .saved and
 * .filters; teardown restores both): nothing to restore yet; skip, saying
 * why, when the guest lacks what the test needs (with TIERS, a lower
 * tier); then the variant's filter sysctls (LEGACY) and the tunables TUN
 * in force. NW_TIERING_SETUP for the tiering tests, NW_SCAN_SETUP for
 * those that run on any topology with the default filters (or none).
 */
#define NW_SETUP(self, tiers, legacy, tun) do {				\
	const char *__skip;						\
									\
	memset(&(self)->saved, -1, sizeof((self)->saved));		\
	(self)->filters.pid = -1;					\
	__skip = nw_scan_prereqs(tiers, legacy, &(self)->filters);	\
	if (__skip)							\
		SKIP(return, "%s", __skip);				\
	nt_tunables_save(&(self)->saved);				\
	ASSERT_EQ(nt_tunables_set(tun), 0);				\
} while (0)

#define NW_TIERING_SETUP(self, legacy, tun)	NW_SETUP(self, 1, legacy, tun)
#define NW_SCAN_SETUP(self, tun)		NW_SETUP(self, 0, 0, tun)

/* ---- scan pace ----------------------------------------------------------------- */

/* Write to every page of BUF, NPAGES pages of PAGESZ bytes. */
static inline void nw_touch_pages(char *buf, long npages, long pagesz)
{
	long i;

	for (i = 0; i < npages; i++)
		((volatile char *)buf)[i * pagesz]++;
}

/*
 * The variants of the scan-pace tests (tiering_scan_period, demote_again,
 * scan_cost, cold_memory) for fixture FX: numab, the kernel's defaults;
 * legacy, every filter at its legacy setting (stock's scanner); slowdown,
 * the defaults but promo_slowdown=1 (stock's scan period rule alone).
 */
#define NW_PACE_VARIANTS(fx)						\
	FIXTURE_VARIANT(fx) {						\
		int legacy, slowdown;					\
	};								\
	FIXTURE_VARIANT_ADD(fx, numab) { .legacy = 0, .slowdown = 0 };	\
	FIXTURE_VARIANT_ADD(fx, legacy) { .legacy = 1, .slowdown = 1 };	\
	FIXTURE_VARIANT_ADD(fx, slowdown) { .legacy = 0, .slowdown = 1 }

#define nw_pace_name(variant)						\
	((variant)->legacy ? "legacy" : (variant)->slowdown ? "slowdown" : "numab")

/*
 * NW_TIERING_SETUP for a scan-pace fixture (SELF also has .legacy): the
 * variant's settings; NUMAB_FORCE_LEGACY=1 in the environment applies the
 * legacy settings to any variant, so that variant numab's checks can be
 * shown to fail under them, as on stock.
 */
#define NW_PACE_SETUP(self, variant, tun) do {				\
	(self)->legacy = (variant)->legacy ||				\
			 nw_env_long("NUMAB_FORCE_LEGACY", 0);		\
	NW_TIERING_SETUP(self, (self)->legacy, tun);			\
	if ((variant)->slowdown || (self)->legacy) {			\
		if (nt_read_long(NUMAB_FILTER "promo_slowdown", -1) < 0) \
			SKIP(return, "no kernel.numa_balancing_filter_promo_slowdown (a kernel without the numab scan period rule)"); \
		ASSERT_EQ(nt_write_long(NUMAB_FILTER "promo_slowdown", 1), 0); \
	}								\
} while (0)

/* " (forced legacy settings)" when NUMAB_FORCE_LEGACY changed VARIANT's */
#define nw_pace_forced(self, variant)					\
	((self)->legacy && !(variant)->legacy ? " (forced legacy settings)" : "")

/* ---- benchmark output (scripts/bench) ------------------------------------------ */

/*
 * With NUMAB_BENCH=1 in the environment the fixtures also print their
 * metrics for scripts/bench, one line "BENCH <bench> key=value ..." on
 * stdout each; without it their output is what it always was.
 */
static inline int nw_bench_on(void)
{
	const char *s = getenv("NUMAB_BENCH");

	return s && *s && strcmp(s, "0");
}

static __attribute__((format(printf, 1, 2), unused))
void nw_bench(const char *fmt, ...)
{
	va_list ap;

	if (!nw_bench_on())
		return;
	fputs("BENCH ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/*
 * vmstat counters a kernel may or may not have (the series' skip and
 * promotion-scan counters): read what is there, print the deltas of those
 * present as " name=delta".
 */
static const char *const nw_opt_ctr_names[] = {
	"numa_vma_skip_pid", "numa_vma_skip_shared_ro", "numa_vma_skip_delay",
	"numa_vma_skip_seq", "numa_vma_promo_scans", "numa_promo_pte_updates",
};
#define NW_NOPT_CTRS	(sizeof(nw_opt_ctr_names) / sizeof(nw_opt_ctr_names[0]))

struct nw_opt_ctrs {
	long long v[NW_NOPT_CTRS];	/* -1: not in /proc/vmstat */
};

static inline void nw_opt_ctrs_read(struct nw_opt_ctrs *c)
{
	unsigned int i;

	for (i = 0; i < NW_NOPT_CTRS; i++)
		c->v[i] = nt_vmstat(nw_opt_ctr_names[i]);
}

static inline void nw_opt_ctrs_format(const struct nw_opt_ctrs *a,
				      const struct nw_opt_ctrs *b,
				      char *out, size_t size)
{
	size_t len = 0;
	unsigned int i;

	out[0] = '\0';
	for (i = 0; i < NW_NOPT_CTRS && len < size; i++)
		if (a->v[i] >= 0 && b->v[i] >= 0)
			len += snprintf(out + len, size - len, " %s=%lld",
					nw_opt_ctr_names[i], b->v[i] - a->v[i]);
}

/*
 * CPU time of the NUMA scanner over an interval: with the function
 * profiler (CONFIG_FUNCTION_PROFILER, tracefs function_profile_enabled)
 * the hits and total time (callees included when the graph tracer is
 * built) of task_numa_work() on all CPUs; always the system time of the
 * whole process (scanner, hinting faults and everything else it did in
 * the kernel).
 */
#define NW_PROF_ENABLED	NW_TRACEFS "/function_profile_enabled"
#define NW_PROF_FILTER	NW_TRACEFS "/set_ftrace_filter"

struct nw_scan_cpu {
	int profiler;		/* task_numa_work profiled */
	long long calls;	/* its hits */
	double scan_ms;		/* its total time */
	double stime_ms;	/* process system time */
	double stime0;
};

static inline double nw_stime_ms(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return -1;
	return ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;
}

/* write VAL to PATH replacing its content (set_ftrace_filter appends otherwise) */
static inline int nw_write_trunc(const char *path, const char *val)
{
	return nt_write_flags(path, val, O_TRUNC);
}

static inline void nw_scan_cpu_start(struct nw_scan_cpu *c)
{
	memset(c, 0, sizeof(*c));
	/* 0 then 1: enabling the profiler resets its statistics */
	if (!access(NW_PROF_ENABLED, W_OK) &&
	    !nw_write_trunc(NW_PROF_FILTER, "task_numa_work") &&
	    !nt_write(NW_PROF_ENABLED, "0") && !nt_write(NW_PROF_ENABLED, "1"))
		c->profiler = 1;
	c->stime0 = nw_stime_ms();
}

static __attribute__((noinline, unused))
void nw_scan_cpu_stop(struct nw_scan_cpu *c)
{
	char path[96], line[256], name[64];
	long long hit;
	double us;
	int cpu;

	c->stime_ms = nw_stime_ms() - c->stime0;
	if (!c->profiler)
		return;
	nt_write(NW_PROF_ENABLED, "0");	/* the statistics stay readable */
	for (cpu = 0; ; cpu++) {
		FILE *f;

		snprintf(path, sizeof(path), NW_TRACEFS "/trace_stat/function%d", cpu);
		f = fopen(path, "r");
		if (!f)
			break;
		/* "  task_numa_work   123    4567.890 us    37.137 us ..." */
		while (fgets(line, sizeof(line), f)) {
			int n = sscanf(line, "%63s %lld %lf", name, &hit, &us);

			if (n >= 2 && !strcmp(name, "task_numa_work")) {
				c->calls += hit;
				if (n == 3)
					c->scan_ms += us / 1e3;
			}
		}
		fclose(f);
	}
	nw_write_trunc(NW_PROF_FILTER, "");
}

/* " scan_cpu=profiler scan_calls=N scan_ms=X stime_ms=Y" or "=stime ..." */
static inline void nw_scan_cpu_format(const struct nw_scan_cpu *c, char *out,
				      size_t size)
{
	if (c->profiler)
		snprintf(out, size, " scan_cpu=profiler scan_calls=%lld scan_ms=%.3f stime_ms=%.1f",
			 c->calls, c->scan_ms, c->stime_ms);
	else
		snprintf(out, size, " scan_cpu=stime stime_ms=%.1f", c->stime_ms);
}

/*
 * kB of AnonHugePages in the /proc/self/smaps entry of the VMA that
 * starts at ADDR, -1 when not found.
 */
static inline long nw_vma_anon_huge_kb(const void *addr)
{
	char line[512], want[32];
	long kb = -1, v;
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	snprintf(want, sizeof(want), "%lx-", (unsigned long)addr);
	while (fgets(line, sizeof(line), f)) {
		size_t tok = strcspn(line, " ");

		/* "Key:   value" lines; anything else starts a VMA */
		if (tok && line[tok - 1] != ':') {
			if (in)
				break;
			in = !strncmp(line, want, strlen(want));
			continue;
		}
		if (in && sscanf(line, "AnonHugePages: %ld kB", &v) == 1)
			kb = v;
	}
	fclose(f);
	return kb;
}

/* ---- tool workloads (hold_rofile, hold_cow) ------------------------------ */

/*
 * "PROG [-u MIN] SECONDS [MB]" into *seconds, *mb (default 16) and
 * *until_min (-1 without -u): 0, or 2 after printing the usage.
 */
static inline int nw_hold_args(int argc, char **argv, long *seconds, long *mb,
			       double *until_min)
{
	int c;

	*mb = 16;
	*until_min = -1;
	while ((c = getopt(argc, argv, "u:")) != -1) {
		if (c != 'u') {
			fprintf(stderr, "usage: %s [-u MIN] SECONDS [MB]\n", argv[0]);
			return 2;
		}
		*until_min = atof(optarg);
	}
	*seconds = optind < argc ? atol(argv[optind]) : 10;
	if (optind + 1 < argc)
		*mb = atol(argv[optind + 1]);
	return 0;
}

static volatile sig_atomic_t nw_hold_move_req;

static inline void nw_hold_usr1(int sig)
{
	(void)sig;
	nw_hold_move_req = 1;
}

/*
 * Read the NPAGES pages at MAP in a loop for SECONDS and look where they
 * are every half second; with UNTIL_MIN >= 0, end early once every page
 * is on node 0 and UNTIL_MIN seconds have passed. Prints when every
 * page is first seen on node 0 ("placed 3.5", seconds from the start, as
 * it happens; "placed never" at the end if never) and, at the end, where
 * the pages are ("node0 N node1 N"). SIGUSR1 moves every page to node 1,
 * as demotion would, and prints how many did not move ("unmoved N");
 * once all are on node 0 again it prints "back S", seconds after the
 * move.
 */
static inline void nw_hold(const volatile char *map, long npages, long pagesz,
			   double seconds, double until_min)
{
	double t0 = nt_now(), next = t0 + 0.5, placed = -1, moved = -1;
	struct nt_placement pl;
	volatile char sink = 0;

	signal(SIGUSR1, nw_hold_usr1);
	while (nt_now() < t0 + seconds) {
		for (long i = 0; i < npages; i++)
			sink += map[i * pagesz];
		if (nw_hold_move_req) {
			nw_hold_move_req = 0;
			printf("unmoved %ld\n", nt_move_all((char *)map, npages, pagesz, 1));
			fflush(stdout);
			moved = nt_now();
		}
		if (nt_now() < next)
			continue;
		next += 0.5;
		if ((placed < 0 || moved >= 0) &&
		    nt_placement((char *)map, npages, pagesz, &pl) == 0 && pl.node[0] == npages) {
			if (placed < 0) {
				placed = nt_now() - t0;
				printf("placed %.1f\n", placed);
				fflush(stdout);
			}
			if (moved >= 0) {
				printf("back %.1f\n", nt_now() - moved);
				fflush(stdout);
				moved = -1;
			}
		}
		if (placed >= 0 && until_min >= 0 && nt_now() - t0 >= until_min)
			break;
	}
	(void)sink;
	if (placed < 0)
		printf("placed never\n");
	if (nt_placement((char *)map, npages, pagesz, &pl) == 0)
		printf("node0 %ld node1 %ld\n", pl.node[0], pl.node[1]);
	fflush(stdout);
}

#endif /* NUMAB_WORK_H */
