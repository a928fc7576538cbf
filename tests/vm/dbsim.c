// SPDX-License-Identifier: GPL-2.0
/*
 * dbsim: a database server in miniature, for `make demo`.
 *
 * The production case: a database on a host with DRAM and CXL memory,
 * hundreds of threads, a large shared-memory buffer pool that dominates
 * the NUMA-balancing scan, small hot anonymous regions (a hash table,
 * per-thread arenas) and the database binary, mapped read-only. Its hot
 * regions ended up on CXL and stayed there: the PID filter skips an
 * anonymous VMA no scanning thread took a hinting fault in (and nothing
 * faults in a VMA that is never scanned), the shared_ro filter never scans
 * a read-only file mapping.
 *
 * Shape (in address order, in one reserved range so the hot regions are
 * below the pool, as in tests/vm/strand_pid.c; PROT_NONE gaps between):
 *   binary  a tmpfs file (BIN_MB) mapped PROT_READ, MAP_SHARED, its page
 *           cache written on the fast node;
 *   hash    HASH_MB of anonymous memory (no THP);
 *   arenas  one ARENA_MB anonymous mapping per worker thread;
 *   pool    POOL_MB of a memfd mapped MAP_SHARED, faulted on the slow node.
 * Threads: WORKERS hot threads, each touching random pages of the hash
 * table, its own arena and the binary without pause, and ~POOL_HZ random
 * pool pages a second (so every thread that scans has taken hinting faults
 * in the pool: the pool stays "accessed" and the scan always ends inside
 * it, never falling back to forcing skipped VMAs); the main thread samples
 * and touches the pool too; the rest (THREADS in all) sleep, like idle
 * connection threads, and only push the get_nr_threads() horizon of the
 * PID filter ~THREADS scan sequences away.
 *
 * Phases: the hash table, the arenas and the binary are created on the
 * fast node and left there until the scanner has seen the anonymous ones
 * for WARM_SEQ sequences (past the two sequences in which a new VMA is
 * scanned unconditionally) and the pool is "accessed" for every running
 * thread (scanned once, their PID bits in its active-PID words), both read
 * from /proc/self/numa_vmas when the kernel has it; then all pages of the hash table and the arenas, and all pages
 * of the binary but every 10th (BIN_SLOW_PCT=90, as on the production
 * host), are moved to the slow node with move_pages(2), standing in for
 * the demotion that put them on CXL. From then on, every INTERVAL seconds,
 * one sample: the fraction of each region on the fast node (move_pages(2)
 * status query; every 16th page of the pool), mm->numa_scan_seq and the
 * NUMA-balancing vmstat counters since the move (pgpromote_success,
 * numa_pte_updates, numa_hint_faults, and every numa_vma_*, numa_promo_*
 * and numa_scan_skip_* counter the kernel has), for SECONDS (the same
 * guest time for every run; with UNTIL, longer while a hot region is below
 * 95% on the fast node, up to UNTIL seconds), or until MAX_SEQS sequences
 * have passed, or, under the legacy PID filter (filter_pid=1), before
 * its fallback would scan the hot regions again (THREADS sequences after
 * their last full scan, from numa_vmas), early enough that the caller can
 * read the state within READ_TIME seconds of --done at the fastest
 * sequence rate seen, plus 16 sequences: with scan periods of 100 ms
 * instead of seconds, the testbed gets there within a minute when the
 * guest runs fast.
 *
 * dbsim sets numa_balancing=2 and the scan tunables (scan_delay 0 during
 * the setup, 1000 ms from the move on, period 100 ms, scan_size 16 MiB)
 * and restores them on exit; it does not
 * touch the filter sysctls: run it under `numabctl filter --legacy` or
 * `--default` (or `numabctl run`).
 *
 * Output (stdout, line-buffered): a progress line per sample, and
 * tab-separated machine-readable lines:
 *   DBSIM_REGION run name start_hex bytes     one per mapping
 *   DBSIM_HDR    run t seq hash arenas binary pool counter...
 *   DBSIM_ROW    run <values of DBSIM_HDR>    t: seconds since the move,
 *                seq: scan sequences since the move, regions: fraction on
 *                the fast node, counters: delta since the move
 * With --done FILE, dbsim creates FILE when the measurement is over and
 * keeps the workload running (no more output) until SIGTERM/SIGINT or
 * --hold seconds, so that numabctl can look at the final state.
 */
#include <getopt.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>

#include "../lib/numab_test.h"
#include "../lib/numab_work.h"

#define MAX_WORKERS	64
#define MAX_MAPS	(MAX_WORKERS + 1)
#define MAX_COUNTERS	32
#define GAP_MB		2
#define POOL_STRIDE	16	/* pool residency: every 16th page */
#define POOL_TOUCH_SAMPLE 32	/* pool pages the sampling thread touches */
#define HORIZON_MARGIN	16	/* sequences, besides those of horizon_margin() */
#define RATE_MIN_S	0.5	/* shortest time a sequence rate is taken over */
#define BIN_DIR		"/tmp"	/* the binary is BIN_DIR/dbsim-binary-LABEL */
#define WARM_SEQ	3
#define WARM_MIN_S	3.0
#define WARM_POOL_S	20.0	/* then the pool accessed by some threads will do */
#define WARM_MAX_S	90.0

struct opts {
	const char *label, *done_file;
	long threads, workers, pool_mb, hash_mb, arena_mb, bin_mb;
	long bin_slow_pct, seqs, pool_hz;
	double interval, max_seconds, until_seconds, hold_seconds, read_seconds;
};

/* A region reported as one: one or more mappings. */
struct group {
	const char *name;
	int n;
	char *addr[MAX_MAPS];
	long pages[MAX_MAPS];
	long stride;		/* residency sampled every STRIDE-th page */
};

enum { G_HASH, G_ARENAS, G_BINARY, G_POOL, NR_GROUPS };

struct worker {
	struct dbsim *db;
	pthread_t thread;
	int id, started;
	atomic_int tid;
	uint64_t rng;
	char *arena;
	long arena_pages;
};

struct dbsim {
	struct opts o;
	long pagesz;
	struct group g[NR_GROUPS];
	char *va;
	size_t va_size;
	int memfd, binfd;
	char bin_path[256];	/* per label: two instances run side by side */
	struct nw_sleepers first, sleepers;
	struct worker workers[MAX_WORKERS];
	struct nt_tunables saved;
	atomic_int go, stop;
	uint64_t rng;
	/* vmstat counters reported: the three of every kernel, then the
	 * numab skip/promotion counters this kernel has */
	int ncounters;
	char counters[MAX_COUNTERS][128];
	long long base[MAX_COUNTERS];	/* at the move */
	double t_move;
};

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "dbsim: error: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

/* ---- options ------------------------------------------------------------- */

static void usage(int status)
{
	printf("usage: dbsim [options]\n"
	       "  -l, --label NAME     run name in the output (default dbsim)\n"
	       "  -t, --threads N      threads in all, >= workers + 1 (default 200)\n"
	       "  -w, --workers N      hot worker threads (default 4)\n"
	       "  -P, --pool-mb MB     shared buffer pool, memfd (default 512)\n"
	       "  -H, --hash-mb MB     hash table (default 64)\n"
	       "  -A, --arena-mb MB    arena per worker (default 8)\n"
	       "  -B, --bin-mb MB      read-only mapped file, the \"binary\" (default 32)\n"
	       "  -S, --bin-slow PCT   percent of the binary on the slow node (default 90)\n"
	       "  -r, --pool-hz N      pool pages each thread touches per second (default 50)\n"
	       "  -T, --seconds S      seconds to sample after the move (default 60)\n"
	       "  -U, --until S        after -T, go on while a hot region is < 95%% on the\n"
	       "                       fast node, up to S seconds (default: no)\n"
	       "  -n, --max-seqs N     or until N scan sequences have passed (default 100000)\n"
	       "  -i, --interval S     sample interval (default 1)\n"
	       "  -d, --done FILE      create FILE when done, then hold (see -W)\n"
	       "  -W, --hold S         hold at most S seconds after --done (default 120)\n"
	       "  -R, --read-time S    seconds the caller takes after --done to read the\n"
	       "                       state: the stop before the PID filter's fallback\n"
	       "                       leaves that much time at the sequence rate seen\n"
	       "                       (default 2)\n");
	exit(status);
}

static long opt_long(const char *s, long min, long max)
{
	char *end;
	long v = strtol(s, &end, 0);

	if (*s == '\0' || *end || v < min || v > max)
		die("bad value '%s' (%ld..%ld)", s, min, max);
	return v;
}

static double opt_double(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (*s == '\0' || *end || v <= 0)
		die("bad value '%s' (a positive number)", s);
	return v;
}

static void parse_opts(struct opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "label", 1, NULL, 'l' }, { "threads", 1, NULL, 't' },
		{ "workers", 1, NULL, 'w' }, { "pool-mb", 1, NULL, 'P' },
		{ "hash-mb", 1, NULL, 'H' }, { "arena-mb", 1, NULL, 'A' },
		{ "bin-mb", 1, NULL, 'B' }, { "bin-slow", 1, NULL, 'S' },
		{ "pool-hz", 1, NULL, 'r' }, { "max-seqs", 1, NULL, 'n' },
		{ "seconds", 1, NULL, 'T' }, { "interval", 1, NULL, 'i' },
		{ "until", 1, NULL, 'U' }, { "done", 1, NULL, 'd' }, { "hold", 1, NULL, 'W' },
		{ "read-time", 1, NULL, 'R' },
		{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct opts){
		.label = "dbsim", .threads = 200, .workers = 4, .pool_mb = 512,
		.hash_mb = 64, .arena_mb = 8, .bin_mb = 32, .bin_slow_pct = 90,
		.seqs = 100000, .pool_hz = 50, .interval = 1, .max_seconds = 60,
		.hold_seconds = 120, .read_seconds = 2,
	};
	while ((c = getopt_long(argc, argv, "l:t:w:P:H:A:B:S:r:n:T:U:i:d:W:R:h",
				lo, NULL)) != -1) {
		switch (c) {
		case 'l': o->label = optarg; break;
		case 't': o->threads = opt_long(optarg, 2, 4096); break;
		case 'w': o->workers = opt_long(optarg, 1, MAX_WORKERS); break;
		case 'P': o->pool_mb = opt_long(optarg, 16, 1 << 16); break;
		case 'H': o->hash_mb = opt_long(optarg, 1, 1 << 16); break;
		case 'A': o->arena_mb = opt_long(optarg, 1, 1 << 12); break;
		case 'B': o->bin_mb = opt_long(optarg, 1, 1 << 12); break;
		case 'S': o->bin_slow_pct = opt_long(optarg, 0, 100); break;
		case 'r': o->pool_hz = opt_long(optarg, 1, 100000); break;
		case 'n': o->seqs = opt_long(optarg, 1, 100000); break;
		case 'T': o->max_seconds = opt_double(optarg); break;
		case 'U': o->until_seconds = opt_double(optarg); break;
		case 'i': o->interval = opt_double(optarg); break;
		case 'd': o->done_file = optarg; break;
		case 'W': o->hold_seconds = opt_double(optarg); break;
		case 'R': o->read_seconds = opt_double(optarg); break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (optind != argc)
		usage(2);
	if (o->threads < o->workers + 1)
		die("--threads %ld < workers + 1 (%ld)", o->threads, o->workers + 1);
}

/* ---- regions ------------------------------------------------------------- */

static void group_add(struct group *g, char *addr, long pages)
{
	g->addr[g->n] = addr;
	g->pages[g->n] = pages;
	g->n++;
}

/* An anonymous mapping at ADDR, without THP, faulted in on NODE. */
static char *map_anon_on(char *addr, size_t size, int node)
{
	char *p = mmap(addr, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	if (p != addr)
		die("mmap anon at %p: %s", (void *)addr, strerror(errno));
	if (madvise(p, size, MADV_NOHUGEPAGE))
		die("madvise: %s", strerror(errno));
	if (nw_bind_node(node))
		die("set_mempolicy: %s", strerror(errno));
	memset(p, 1, size);
	nw_bind_node(-1);
	return p;
}

/* The buffer pool: a memfd mapped MAP_SHARED at ADDR, faulted on NODE. */
static char *map_pool_on(struct dbsim *db, char *addr, size_t size, int node)
{
	char *p;
	size_t off;

	db->memfd = memfd_create("dbsim-pool", 0);
	if (db->memfd < 0 || ftruncate(db->memfd, size))
		die("memfd: %s", strerror(errno));
	p = mmap(addr, size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, db->memfd, 0);
	if (p != addr)
		die("mmap pool at %p: %s", (void *)addr, strerror(errno));
	if (nw_bind_node(node))
		die("set_mempolicy: %s", strerror(errno));
	for (off = 0; off < size; off += db->pagesz)
		p[off] = 1;
	nw_bind_node(-1);
	return p;
}

/* The "binary": a tmpfs file written on the fast node, mapped PROT_READ. */
static char *map_binary(struct dbsim *db, char *addr, size_t size)
{
	volatile char sink = 0;
	long npages = size / db->pagesz, i;
	char *p;
	int ret;

	snprintf(db->bin_path, sizeof(db->bin_path), BIN_DIR "/dbsim-binary-%s",
		 db->o.label);
	ret = nw_tmpfs_file_on(db->bin_path, size, 0);
	if (ret)
		die("writing %s: %s", db->bin_path, strerror(-ret));
	db->binfd = open(db->bin_path, O_RDONLY);
	if (db->binfd < 0)
		die("open %s: %s", db->bin_path, strerror(errno));
	p = mmap(addr, size, PROT_READ, MAP_SHARED | MAP_FIXED, db->binfd, 0);
	if (p != addr)
		die("mmap %s at %p: %s", db->bin_path, (void *)addr, strerror(errno));
	for (i = 0; i < npages; i++)
		sink += p[i * db->pagesz];
	(void)sink;
	return p;
}

/*
 * Move bin_slow_pct percent of the binary to the slow node: all pages but
 * every k-th. Returns pages not moved or -errno.
 */
static long binary_demote(const struct dbsim *db)
{
	const struct group *g = &db->g[G_BINARY];
	long pct = db->o.bin_slow_pct, npages = g->pages[0], k, r, n, left = 0, ret;

	if (pct == 0)
		return 0;
	if (pct == 100)
		return nt_move_all(g->addr[0], npages, db->pagesz, 1);
	k = 100 / (100 - pct);
	for (r = 1; r < k && r < npages; r++) {
		n = (npages - r + k - 1) / k;
		ret = nt_move_strided(g->addr[0], r, k, n, db->pagesz, 1);
		if (ret < 0)
			return ret;
		left += ret;
	}
	return left;
}

/*
 * Lay out binary, hash, arenas and pool in that address order, with
 * PROT_NONE gaps between them.
 */
static void map_regions(struct dbsim *db)
{
	const struct opts *o = &db->o;
	size_t gap = GAP_MB * NW_MB, arena = o->arena_mb * NW_MB;
	char *p;
	long i;

	db->va_size = (o->bin_mb + o->hash_mb + o->workers * o->arena_mb +
		       o->pool_mb) * NW_MB + (o->workers + 3) * gap;
	/*
	 * The whole range stays reserved (PROT_NONE) and the regions replace
	 * parts of it: the gaps keep neighbouring regions from merging, and
	 * thread stacks from landing between them.
	 */
	db->va = mmap(NULL, db->va_size, PROT_NONE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (db->va == MAP_FAILED)
		die("no %zu bytes of address space", db->va_size);
	p = db->va;
	db->g[G_BINARY] = (struct group){ .name = "binary", .stride = 1 };
	group_add(&db->g[G_BINARY], map_binary(db, p, o->bin_mb * NW_MB),
		  o->bin_mb * NW_MB / db->pagesz);
	p += o->bin_mb * NW_MB + gap;
	db->g[G_HASH] = (struct group){ .name = "hash", .stride = 1 };
	group_add(&db->g[G_HASH], map_anon_on(p, o->hash_mb * NW_MB, 0),
		  o->hash_mb * NW_MB / db->pagesz);
	p += o->hash_mb * NW_MB + gap;
	db->g[G_ARENAS] = (struct group){ .name = "arenas", .stride = 1 };
	for (i = 0; i < o->workers; i++) {
		group_add(&db->g[G_ARENAS], map_anon_on(p, arena, 0),
			  arena / db->pagesz);
		p += arena + gap;
	}
	db->g[G_POOL] = (struct group){ .name = "pool", .stride = POOL_STRIDE };
	group_add(&db->g[G_POOL], map_pool_on(db, p, o->pool_mb * NW_MB, 1),
		  o->pool_mb * NW_MB / db->pagesz);
}

static void print_regions(const struct dbsim *db)
{
	int g, m;

	for (g = 0; g < NR_GROUPS; g++)
		for (m = 0; m < db->g[g].n; m++)
			printf("DBSIM_REGION\t%s\t%s\t%lx\t%ld\n", db->o.label,
			       db->g[g].name, (unsigned long)db->g[g].addr[m],
			       db->g[g].pages[m] * db->pagesz);
}

static void unmap_regions(struct dbsim *db)
{
	if (db->va && db->va != MAP_FAILED)
		munmap(db->va, db->va_size);
	if (db->memfd >= 0)
		close(db->memfd);
	if (db->binfd >= 0)
		close(db->binfd);
	if (db->bin_path[0])
		unlink(db->bin_path);
}

/* Fraction of group G on node 0 (-1 on error); *SLOW gets node-1 pages. */
static double group_fast(const struct dbsim *db, const struct group *g,
			 long *fast, long *slow)
{
	struct nt_placement pl;
	long n, total = 0;
	int m;

	*fast = *slow = 0;
	for (m = 0; m < g->n; m++) {
		n = (g->pages[m] + g->stride - 1) / g->stride;
		if (nt_placement_strided(g->addr[m], 0, g->stride, n, db->pagesz, &pl))
			return -1;
		*fast += pl.node[0];
		*slow += pl.node[1];
		total += n;
	}
	return total ? (double)*fast / total : -1;
}

/* Move every page of group G to NODE; returns pages not moved or -errno. */
static long group_move(const struct dbsim *db, const struct group *g, int node)
{
	long left = 0, r;
	int m;

	for (m = 0; m < g->n; m++) {
		r = nt_move_all(g->addr[m], g->pages[m], db->pagesz, node);
		if (r < 0)
			return r;
		left += r;
	}
	return left;
}

/* ---- threads ------------------------------------------------------------- */

/* Touch N random pool pages. */
static void touch_pool_n(struct dbsim *db, uint64_t *rng, int n)
{
	const struct group *g = &db->g[G_POOL];
	long pg;

	while (n-- > 0) {
		pg = nw_rand(rng) % g->pages[0];
		((volatile char *)g->addr[0])[pg * db->pagesz]++;
	}
}

/* Touch random pool pages at ~pool_hz per second; *NEXT keeps the pace. */
static void touch_pool(struct dbsim *db, uint64_t *rng, double *next)
{
	const struct group *g = &db->g[G_POOL];
	double now = nt_now(), period = 1.0 / db->o.pool_hz;
	int n = 0;

	if (*next == 0 || now - *next > 1.0)
		*next = now;	/* start, or far behind: do not burst */
	while (*next <= now && n++ < 64) {
		long pg = nw_rand(rng) % g->pages[0];

		((volatile char *)g->addr[0])[pg * db->pagesz]++;
		*next += period;
	}
}

/* One batch of a worker's hot loop: hash, own arena, binary. */
static void worker_batch(struct worker *w, long *sink)
{
	const struct dbsim *db = w->db;
	const struct group *hash = &db->g[G_HASH], *bin = &db->g[G_BINARY];
	volatile char *h = hash->addr[0], *b = bin->addr[0], *a = w->arena;
	long i, pg;

	for (i = 0; i < 256; i++) {
		pg = nw_rand(&w->rng) % hash->pages[0];
		h[pg * db->pagesz + (i & 63) * 64]++;
		pg = nw_rand(&w->rng) % w->arena_pages;
		a[pg * db->pagesz + (i & 63) * 64]++;
		pg = nw_rand(&w->rng) % bin->pages[0];
		*sink += b[pg * db->pagesz + (i & 63) * 64];
	}
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	double next = 0;
	long sink = 0;

	atomic_store(&w->tid, nw_gettid());
	while (!atomic_load(&w->db->go) && !atomic_load(&w->db->stop))
		usleep(1000);
	while (!atomic_load(&w->db->stop)) {
		worker_batch(w, &sink);
		touch_pool(w->db, &w->rng, &next);
	}
	return (void *)sink;
}

static void start_workers(struct dbsim *db)
{
	struct worker *w;
	long i;
	int ret;

	for (i = 0; i < db->o.workers; i++) {
		w = &db->workers[i];
		w->db = db;
		w->id = i;
		w->rng = 0x9e3779b97f4a7c15ULL * (i + 1) ^ getpid();
		w->arena = db->g[G_ARENAS].addr[i];
		w->arena_pages = db->g[G_ARENAS].pages[i];
		ret = pthread_create(&w->thread, NULL, worker_fn, w);
		if (ret)
			die("pthread_create: %s", strerror(ret));
		w->started = 1;
	}
}

static void stop_workers(struct dbsim *db)
{
	long i;

	atomic_store(&db->stop, 1);
	for (i = 0; i < db->o.workers; i++)
		if (db->workers[i].started)
			pthread_join(db->workers[i].thread, NULL);
}

/* ---- counters and scan state ---------------------------------------------- */

static void add_counter(struct dbsim *db, const char *name)
{
	if (db->ncounters == MAX_COUNTERS)
		return;
	snprintf(db->counters[db->ncounters], sizeof(db->counters[0]), "%s", name);
	db->ncounters++;
}

/* The counters every kernel has, then numab's, when this kernel has them. */
static void find_counters(struct dbsim *db)
{
	static const char *const prefixes[] = {
		"numa_vma_", "numa_promo_", "numa_scan_skip_",
	};
	char line[256], name[128];
	long long v;
	size_t i;
	FILE *f;

	add_counter(db, "pgpromote_success");
	add_counter(db, "numa_pte_updates");
	add_counter(db, "numa_hint_faults");
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %lld", name, &v) != 2)
			continue;
		for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
			if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
				add_counter(db, name);
	}
	fclose(f);
}

static void counters_read(const struct dbsim *db, long long *v)
{
	int i;

	for (i = 0; i < db->ncounters; i++)
		v[i] = nt_vmstat(db->counters[i]);
}

/* What /proc/self/numa_vmas says about one VMA. */
struct vstate {
	long seen;		/* scan_seq - start_seq */
	long scans;		/* complete full scans */
	long prev_seq;		/* scan_seq of the last full scan */
	unsigned long pids;	/* both words of active PID bits */
	int filter_pid;		/* the mm line's filter_pid, -1 if it has none */
};

/*
 * The numa_vmas state of the VMA at ADDR: 0, -ENOENT without the file
 * (kernel without the numab series), -ESRCH while it has no scan state.
 */
static int vma_state(const void *addr, struct vstate *st)
{
	char line[1024], want[32], *s;
	long seq = -1, start;
	unsigned long p0, p1;
	int ret = -ESRCH;
	FILE *f = fopen("/proc/self/numa_vmas", "r");

	if (!f)
		return -ENOENT;
	st->filter_pid = -1;
	snprintf(want, sizeof(want), "%lx-", (unsigned long)addr);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "mm scan_seq=%ld", &seq) == 1) {
			s = strstr(line, " filter_pid=");
			if (s)
				st->filter_pid = (int)strtol(s + 12, NULL, 10);
			continue;
		}
		if (strncmp(line, want, strlen(want)))
			continue;
		s = strstr(line, " start_seq=");
		if (!s || seq < 0 || sscanf(s, " start_seq=%ld", &start) != 1)
			break;
		st->seen = seq - start;
		s = strstr(line, " scans=");
		st->scans = s ? strtol(s + 7, NULL, 10) : 0;
		s = strstr(line, " prev_seq=");
		st->prev_seq = s ? strtol(s + 10, NULL, 10) : -1;
		s = strstr(line, " pids=");
		st->pids = s && sscanf(s, " pids=%lx,%lx", &p0, &p1) == 2 ? p0 | p1 : 0;
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

/* The fewest sequences the scanner has seen any hot anonymous VMA for. */
static long hot_seqs_seen(const struct dbsim *db)
{
	struct vstate st;
	long min = 1L << 30;
	int g, m, ret;

	for (g = G_HASH; g <= G_ARENAS; g++)
		for (m = 0; m < db->g[g].n; m++) {
			ret = vma_state(db->g[g].addr[m], &st);
			if (ret == -ENOENT)
				return -2;
			if (ret || st.seen < min)
				min = ret ? -1 : st.seen;
		}
	return min;
}

/*
 * The scan sequence at which the legacy PID filter's fallback would scan
 * a hot anonymous VMA again (the earliest prev_seq + threads), or -1
 * without numa_vmas or when the mm line names another PID filter setting
 * than the legacy skip (filter_pid=1): the numab defaults scan such a VMA
 * promotion-only, so there is no stranding to keep for the reader, and a
 * stop would end the run before its regions are back.
 */
static long hot_horizon(const struct dbsim *db)
{
	long h = -1, v;
	struct vstate st;
	int g, m;

	for (g = G_HASH; g <= G_ARENAS; g++)
		for (m = 0; m < db->g[g].n; m++) {
			if (vma_state(db->g[g].addr[m], &st))
				return -1;
			if (st.filter_pid >= 0 && st.filter_pid != 1)
				return -1;
			v = st.prev_seq + db->o.threads;
			if (h < 0 || v < h)
				h = v;
		}
	return h;
}

/*
 * Is the pool "accessed" for the threads that scan (workers and this one):
 * their PID bits in its active-PID words, from hinting faults? Then every
 * scan pass has a VMA to work on and ends inside the pool. Returns 2 when
 * all bits are there, 1 when some are, 0 when none; 2 without numa_vmas.
 */
static int pool_accessed(const struct dbsim *db)
{
	unsigned long want = 1UL << nw_pid_bit(nw_gettid());
	struct vstate st;
	long i;
	int ret = vma_state(db->g[G_POOL].addr[0], &st);

	if (ret == -ENOENT)
		return 2;
	for (i = 0; i < db->o.workers; i++)
		want |= 1UL << nw_pid_bit(db->workers[i].tid);
	if (ret || !(st.pids & want))
		return 0;
	return (st.pids & want) == want ? 2 : 1;
}

/* ---- phases --------------------------------------------------------------- */

/*
 * numa_balancing=2, scan period 100 ms, 16 MiB per pass, and no scan
 * delay while the regions are set up: with the legacy PID filter, a new
 * VMA is scanned only in its first two sequences (until the
 * get_nr_threads() horizon), and with a scan delay those can pass before
 * its first scan; the pool would then take no hinting fault for a long
 * time. The delay goes back to 1000 ms before the hot regions move.
 */
static void set_tunables(struct dbsim *db)
{
	struct nt_tunables tun = {
		.mode = 2, .scan_delay = 0, .period_min = 100,
		.period_max = 100, .scan_size = 16,
	};

	nt_tunables_save(&db->saved);
	if (nt_tunables_set(&tun))
		die("cannot set numa_balancing=2 and the scan tunables (root? debugfs?)");
}

static void set_scan_delay(long ms)
{
	if (nt_write_long(NUMAB_DEBUGFS "/scan_delay_ms", ms))
		die("cannot set scan_delay_ms");
}

/*
 * Let the scanner see the hash table and the arenas on the fast node for
 * WARM_SEQ sequences (past their two unconditional ones), then move them
 * to the slow node. Returns the scan sequence at the move.
 */
static long warm_up_and_demote(struct dbsim *db)
{
	long seq_created = nt_scan_seq(), seen = -1, left, seq_move;
	double t0 = nt_now(), t;
	int g, pool_ok = 0;

	do {
		usleep(200 * 1000);
		touch_pool_n(db, &db->rng, 8);
		t = nt_now() - t0;
		seen = hot_seqs_seen(db);
		if (seen == -2)
			seen = nt_scan_seq() - seq_created - 1;
		pool_ok = pool_accessed(db);
	} while ((seen < WARM_SEQ || t < WARM_MIN_S || pool_ok == 0 ||
		  (pool_ok == 1 && t < WARM_POOL_S)) && t < WARM_MAX_S);
	set_scan_delay(1000);
	counters_read(db, db->base);
	db->t_move = nt_now();
	seq_move = nt_scan_seq();
	printf("%s: warm-up: hot regions on the fast node, seen by the scanner for %ld sequences, pool accessed by %s running threads, %.1f s\n",
	       db->o.label, seen, pool_ok == 2 ? "all" : pool_ok ? "some" : "no", t);
	if (seen < WARM_SEQ || !pool_ok)
		fprintf(stderr, "dbsim: warning: warm-up incomplete after %.0f s: the legacy filters may not strand the hot regions\n",
			WARM_MAX_S);
	for (g = 0; g < NR_GROUPS; g++) {
		if (g == G_POOL)
			continue;
		left = g == G_BINARY ? binary_demote(db) : group_move(db, &db->g[g], 1);
		if (left)
			fprintf(stderr, "dbsim: warning: %s: %ld pages not moved to node 1 (%s)\n",
				db->g[g].name, left, left < 0 ? strerror(-left) : "busy");
	}
	return seq_move;
}

static void print_placement(const struct dbsim *db, const char *when)
{
	long fast, slow;
	double f;
	int g;

	printf("%s: %s:", db->o.label, when);
	for (g = 0; g < NR_GROUPS; g++) {
		f = group_fast(db, &db->g[g], &fast, &slow);
		printf(" %s fast %ld slow %ld (%.1f%% fast)%s", db->g[g].name,
		       fast, slow, 100 * f, g == G_POOL ? " [every 16th page]" : "");
	}
	printf("\n");
}

static void print_header(const struct dbsim *db)
{
	int g, i;

	printf("DBSIM_HDR\trun\tt\tseq");
	for (g = 0; g < NR_GROUPS; g++)
		printf("\t%s", db->g[g].name);
	for (i = 0; i < db->ncounters; i++)
		printf("\t%s", db->counters[i]);
	printf("\n");
}

/* The counters on the progress line, with short names (NULL: row only). */
static const char *short_name(const char *counter)
{
	static const char *const map[][2] = {
		{ "pgpromote_success", "promote" }, { "numa_pte_updates", "pte" },
		{ "numa_hint_faults", "hint" }, { "numa_vma_skip_pid", "skip_pid" },
		{ "numa_vma_skip_shared_ro", "skip_ro" },
		{ "numa_vma_skip_delay", "skip_delay" },
		{ "numa_vma_skip_seq", "skip_seq" },
		{ "numa_vma_promo_scans", "promo_scans" },
		{ "numa_promo_pte_updates", "promo_pte" },
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(counter, map[i][0]))
			return map[i][1];
	return NULL;
}

/* One sample: a DBSIM_ROW and a progress line; 1 if every hot region is >= 95% fast. */
static int sample(struct dbsim *db, double t, long dseq)
{
	long long v[MAX_COUNTERS];
	double f[NR_GROUPS];
	long fast, slow;
	int g, i;

	for (g = 0; g < NR_GROUPS; g++)
		f[g] = group_fast(db, &db->g[g], &fast, &slow);
	counters_read(db, v);
	printf("DBSIM_ROW\t%s\t%.1f\t%ld", db->o.label, t, dseq);
	for (g = 0; g < NR_GROUPS; g++)
		printf("\t%.4f", f[g]);
	for (i = 0; i < db->ncounters; i++)
		printf("\t%lld", v[i] - db->base[i]);
	printf("\n%-6s %5.1fs seq +%-3ld fast%%:", db->o.label, t, dseq);
	for (g = 0; g < NR_GROUPS; g++)
		printf(" %s %.0f", db->g[g].name, 100 * f[g]);
	printf(" |");
	for (i = 0; i < db->ncounters; i++)
		if (short_name(db->counters[i]))
			printf(" %s +%lld", short_name(db->counters[i]),
			       v[i] - db->base[i]);
	printf("\n");
	return f[G_HASH] >= 0.95 && f[G_ARENAS] >= 0.95 && f[G_BINARY] >= 0.95;
}

static void sleep_until(double when)
{
	double d = when - nt_now();

	if (d > 0)
		usleep((useconds_t)(d * 1e6));
}

/* The sequences that pass in SECONDS at RATE a second, rounded up. */
static long seqs_in(double rate, double seconds)
{
	return (long)(rate * seconds + 0.999);
}

/*
 * Sequences to keep between a sample and the PID filter's fallback: the
 * next sample comes one interval later and the caller reads the state up
 * to read_seconds after the last one, so at the fastest sequence rate seen
 * (the mean since the move, or over the last interval) that many sequences
 * can pass before anyone looks, plus HORIZON_MARGIN to spare. The rate is
 * capped by the scan period (one pass per period of the mm, at most two
 * sequences a pass) and varies below that from run to run, 2 to 19
 * sequences a second measured in the testbed: a fixed margin that holds
 * at 7 a second is overrun at 14.
 */
static long horizon_margin(const struct dbsim *db, double rate)
{
	return HORIZON_MARGIN + seqs_in(rate, db->o.interval + db->o.read_seconds);
}

/*
 * Sample every interval for max_seconds after SEQ0, or seqs sequences.
 * Sampling costs CPU time, so this thread scans too at times: it takes
 * hinting faults in the pool around every sample, or the pool would be
 * "not accessed" for it, every VMA skipped, and the scanner's fallback
 * (scan one skipped VMA when all were skipped) would scan the hot regions.
 */
static void measure(struct dbsim *db, long seq0)
{
	double t0 = db->t_move, next = nt_now(), t, t_prev = 0, rate = 0, r;
	long dseq, dseq_prev = 0, horizon = hot_horizon(db), stop = -1, margin = 0, need;
	int hot;

	print_header(db);
	do {
		sleep_until(next);
		next += db->o.interval;
		touch_pool_n(db, &db->rng, POOL_TOUCH_SAMPLE);
		t = nt_now() - t0;
		dseq = nt_scan_seq() - seq0;
		hot = sample(db, t, dseq);
		touch_pool_n(db, &db->rng, POOL_TOUCH_SAMPLE);
		/* rates over less than RATE_MIN_S say little */
		if (t >= RATE_MIN_S && dseq / t > rate)
			rate = dseq / t;
		if (t - t_prev >= RATE_MIN_S) {
			r = (dseq - dseq_prev) / (t - t_prev);
			if (r > rate)
				rate = r;
			t_prev = t;
			dseq_prev = dseq;
		}
		margin = horizon_margin(db, rate);
		if (horizon >= 0 && seq0 + dseq >= horizon - margin)
			stop = seq0 + dseq;
	} while (dseq < db->o.seqs && stop < 0 && !got_signal &&
		 (t < db->o.max_seconds || (!hot && t < db->o.until_seconds)));
	if (stop < 0)
		return;
	printf("%s: stopped after %.1f s, %ld sequences before the PID filter's fallback would scan the hot regions again (sequence %ld; at up to %.1f sequences a second the margin is %ld: %d spare, the next sample's and %.1f s of reading)\n",
	       db->o.label, t, horizon - stop, horizon, rate, margin, HORIZON_MARGIN,
	       db->o.read_seconds);
	/*
	 * Stopping does not slow the scanner: when the fallback was nearer
	 * than the reading time and the spare sequences at the first sample
	 * that knew the rate, the reader may come too late.
	 */
	need = HORIZON_MARGIN + seqs_in(rate, db->o.read_seconds);
	if (horizon - stop < need)
		fprintf(stderr, "dbsim: warning: %s: %ld sequences before the fallback, fewer than the %ld that %.1f s of reading (-R) and %d spare need at %.1f a second: the reader may be too late; more threads (-t) put the fallback farther\n",
			db->o.label, horizon - stop, need, db->o.read_seconds, HORIZON_MARGIN, rate);
}

/* After --done: keep the workload running until a signal or --hold. */
static void hold(struct dbsim *db)
{
	double t0 = nt_now(), next = 0;
	int fd;

	if (!db->o.done_file)
		return;
	fd = open(db->o.done_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("create %s: %s", db->o.done_file, strerror(errno));
	close(fd);
	while (!got_signal && nt_now() - t0 < db->o.hold_seconds) {
		usleep(100 * 1000);
		touch_pool(db, &db->rng, &next);
	}
}

static void setup_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

int main(int argc, char **argv)
{
	static struct dbsim db = { .memfd = -1, .binfd = -1 };
	long seq0, sleepers;
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_opts(&db.o, argc, argv);
	db.pagesz = sysconf(_SC_PAGESIZE);
	db.rng = 0x2545f4914f6cdd1dULL ^ getpid();
	if (!nw_tiered())
		die("node 1 is not in a lower memory tier than node 0 (boot scripts/vm --topology tiered)");
	if (nt_scan_seq() < 0)
		die("no mm->numa_scan_seq in /proc/self/sched (needs SCHED_DEBUG)");
	setup_signals();
	set_tunables(&db);
	/*
	 * One thread first: the first pthread_create() of a process resets
	 * mm->numa_scan_seq, which would confuse the scan state of VMAs the
	 * scanner has seen before. The other threads after the regions, so
	 * that their stacks are below them (mmap goes top-down): many small
	 * VMAs after the pool, at the end of the address space, slow every
	 * scan sequence down (the scanner's fallback makes one VMA of progress
	 * per pass there).
	 */
	sleepers = db.o.threads - db.o.workers - 1;
	ret = nw_sleepers_start(&db.first, 1);
	if (ret)
		die("starting a thread: %s", strerror(-ret));
	map_regions(&db);
	ret = nw_sleepers_start(&db.sleepers, sleepers - 1);
	if (ret)
		die("starting %ld sleeping threads: %s", sleepers - 1, strerror(-ret));
	start_workers(&db);
	find_counters(&db);
	printf("%s: pid %d, %ld threads (%ld hot workers, %ld sleeping), pool %ld MiB, hash %ld MiB, arenas %ld x %ld MiB, binary %ld MiB (%ld%% slow)\n",
	       db.o.label, getpid(), db.o.threads, db.o.workers, sleepers,
	       db.o.pool_mb, db.o.hash_mb, db.o.workers, db.o.arena_mb,
	       db.o.bin_mb, db.o.bin_slow_pct);
	print_regions(&db);
	atomic_store(&db.go, 1);
	seq0 = warm_up_and_demote(&db);
	print_placement(&db, "after the move to the slow node");
	measure(&db, seq0);
	print_placement(&db, "end");
	hold(&db);
	stop_workers(&db);
	nw_sleepers_stop(&db.sleepers);
	nw_sleepers_stop(&db.first);
	unmap_regions(&db);
	nt_tunables_set(&db.saved);
	return 0;
}
