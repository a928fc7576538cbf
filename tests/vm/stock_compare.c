// SPDX-License-Identifier: GPL-2.0
/*
 * The scenarios of the stock comparison (scripts/stock-compare runs this
 * program on stock 6.12 and on the
 * series with the legacy filter settings and compares the two).
 *
 * Needs the sockets topology (scripts/vm --topology sockets): nodes 0 and
 * 1 top tier with CPU 0 and CPU 1, node 2 CPU-less in a lower tier. Every
 * scenario runs in a new child process pinned to CPU 0 (node 0), created
 * after its mode and tunables are set, so each starts with a fresh mm and
 * task (first faults early in a task's life are what mode 1 and 3 migrate
 * at once) and the runner itself, asleep in waitpid(), is never scanned.
 *
 * For each scenario ONE line on stdout:
 *   STOCK_COMPARE scenario=NAME mode=M pages=N pte_updates=D hint_faults=D
 *     hint_faults_local=D pages_migrated=D promote_success=D seqs=S
 *     reached=R|not_reached reached_pte=Q|not_reached first_pte=F
 *     seconds=T placed=P stranded=0|1 [timed=1]
 * numa_pte_updates, numa_hint_faults(_local), numa_pages_migrated and
 * pgpromote_success are /proc/vmstat deltas over the scenario's measured
 * window; seqs the scan sequences (mm->numa_scan_seq) in that window;
 * reached the sequences it took until the scenario's pages were where
 * they belong (node 0) or not_reached at the bound; first_pte the
 * sequence of the window in which PTEs were first seen marked (-1: none)
 * and reached_pte the sequences from then to the placement, which leave
 * out when the scanner first came to the region; placed how many of
 * the N pages were there at the end. The window ends when the placement
 * is reached or at the bound. timed=1 marks a scenario whose workload
 * runs at a rate per second (its counters scale with its seconds).
 *
 * Before the scenarios, the series' filter sysctls that exist are set to
 * the legacy values, pid=1 shared_ro=1 cpuset=0 scan_delay=1
 * shared_folio=1 ("LEGACY ..." line says which were written); stock has
 * none of them.
 *
 * Scenarios (all 32 MiB = 8192 pages of 4 KiB, no THP):
 *   first_touch_m1, first_touch_m3  anonymous memory first touched on node
 *     1 (under MPOL_BIND) and read from CPU 0, mode 1 / 3: stock migrates
 *     each page at its first hinting fault (one fault per page);
 *   strand_pid_m2  the strand_pid recipe, shortened: 128 sleeping threads,
 *     a 256 MiB memfd B on node 2 touched 200 times a second, S below it
 *     on node 0 for 4 sequences then moved to node 2 and written in a hot
 *     loop; stock strands S (pid_inactive) for ~130 sequences, the bound
 *     is 12 (no node-0 filler: promotion takes the "free enough" path, so
 *     every hinting fault on a lower-tier page promotes it);
 *   rofile_m2  a tmpfs file with its page cache on node 2 mapped PROT_READ
 *     MAP_SHARED and read (stock never scans it: shared_ro);
 *   shared_text_m2  the same file mapped MAP_PRIVATE PROT_READ|PROT_EXEC
 *     and read by 2 forked processes (program text of a pre-forking
 *     server);
 *   shared_anon_m2  anonymous memory on node 2 shared copy-on-write by a
 *     process and its forked child, both reading: stock never marks a
 *     COW folio likely mapped by two processes (change_pte_range()), the
 *     page-level filter that filter_shared_folio=1 keeps;
 *   sockets_m3  mode 3 where socket placement and promotion meet: 16 MiB
 *     on node 1 and 16 MiB on node 2, read from CPU 0.
 *
 * Usage: stock_compare [SCENARIO...] (default: all). Knobs:
 * SC_MAX_SEQ [12] bound in scan sequences, SC_MAX_SECONDS [60] cap per
 * scenario, SC_THREADS [128], SC_B_MB [256] (strand_pid_m2), SC_REPEAT
 * [5] runs of each placement scenario (first_touch_m1, first_touch_m3,
 * sockets_m3; a line each, in rounds over the scenarios; the others run
 * once, or SC_REPEAT times with SC_REPEAT_ALL=1), SC_TRACE [0] a
 * STOCK_TRACE line per step of the placement.
 * Exit status: 0 when every scenario ran (whatever its numbers: judging
 * them is the host's job), 1 when one could not be set up, 4 (skip) when
 * the machine is not the sockets topology.
 */
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>

#include "../lib/numab_test.h"
#include "../lib/numab_work.h"

#define MB		(1L << 20)
#define REGION_MB	32
#define SCAN_DELAY_MS	1000
#define FILE_PATH	"/tmp/numab-stock-compare-file"

static long pagesz;
static long max_seq;
static double max_s;

/* a one-shot failure message, then exit status 1 from the scenario */
#define FAIL(...) do {							\
	printf("# %s: ", __func__);					\
	printf(__VA_ARGS__);						\
	printf(" (errno %d)\n", errno);					\
	fflush(stdout);							\
	_exit(1);							\
} while (0)

static void pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		FAIL("sched_setaffinity(cpu %d)", cpu);
}

/* node of each page of BUF (NPAGES pages): count on NODE */
static long pages_on(char *buf, long npages, int node)
{
	void **pages = calloc(npages, sizeof(*pages));
	int *status = calloc(npages, sizeof(*status));
	long i, n = 0;

	if (!pages || !status)
		FAIL("calloc");
	for (i = 0; i < npages; i++)
		pages[i] = buf + i * pagesz;
	if (nt_move_pages(npages, pages, NULL, status, 0))
		FAIL("move_pages query");
	for (i = 0; i < npages; i++)
		n += status[i] == node;
	free(pages);
	free(status);
	return n;
}

static void move_to(char *buf, long npages, int node)
{
	long left = nt_move_strided(buf, 0, 1, npages, pagesz, node);

	if (left)
		FAIL("move_pages to node %d: %ld not moved", node, left);
}

static void read_pages(const char *p, long npages)
{
	volatile char sink = 0;
	long i;

	for (i = 0; i < npages; i++)
		sink += p[i * pagesz];
	(void)sink;
}

static void write_pages(char *p, long npages)
{
	long i;

	for (i = 0; i < npages; i++)
		((volatile char *)p)[i * pagesz]++;
}

/* the measured window of a scenario */
struct window {
	const char *name;
	int mode, timed;
	struct nw_vmstat v0;
	long seq0, reached, first_pte;
	double t0, min_s;
};

/*
 * MIN_S: the sequence bound applies only after that many seconds. A new
 * VMA waits scan_delay_ms after the scan first sees it, and the sequences
 * of a small mm pass every scan period meanwhile (each one skipping the
 * VMA): a window that starts with the VMA must outlast the delay.
 */
static void window_start(struct window *w, const char *name, int mode,
			 double min_s)
{
	w->name = name;
	w->mode = mode;
	w->reached = -1;
	w->first_pte = -1;
	w->min_s = min_s;
	w->timed = 0;
	nw_vmstat_read(&w->v0);
	w->seq0 = nt_scan_seq();
	w->t0 = nt_now();
}

/*
 * SC_TRACE=1: a STOCK_TRACE line when the sequence or the placement moved
 * (seconds and sequences into the window, PTE updates and hinting faults
 * so far, pages placed), for measuring how the placement point spreads
 * from run to run.
 */
static void window_trace(struct window *w, long seqs, long placed)
{
	static long last_seqs = -1, last_placed = -1;
	static int trace = -1;
	struct nw_vmstat v1, d;

	if (trace < 0)
		trace = nw_env_long("SC_TRACE", 0) != 0;
	/* a line when the sequence or the placement moved */
	if (!trace || (seqs == last_seqs && placed == last_placed))
		return;
	last_seqs = seqs;
	last_placed = placed;
	nw_vmstat_read(&v1);
	nw_vmstat_delta(&w->v0, &v1, &d);
	printf("STOCK_TRACE scenario=%s t=%.2f seq=%ld pte_updates=%lld hint_faults=%lld placed=%ld\n",
	       w->name, nt_now() - w->t0, seqs, d.pte_updates, d.hint_faults,
	       placed);
}

/* sequences into the window; 1 when it is over (reached or bound) */
static int window_check(struct window *w, long placed, long want)
{
	long seqs = nt_scan_seq() - w->seq0;
	double t;

	window_trace(w, seqs, placed);
	/* the first check that sees PTEs marked in the window */
	if (w->first_pte < 0) {
		struct nw_vmstat v1;

		nw_vmstat_read(&v1);
		if (v1.pte_updates > w->v0.pte_updates)
			w->first_pte = seqs;
	}

	if (placed >= want) {
		w->reached = seqs;
		return 1;
	}
	t = nt_now() - w->t0;
	return (seqs > max_seq && t > w->min_s) || t > max_s;
}

static void window_print(struct window *w, long pages, long placed)
{
	struct nw_vmstat v1, d;
	char reached[32], from_pte[32];

	nw_vmstat_read(&v1);
	nw_vmstat_delta(&w->v0, &v1, &d);
	if (w->reached >= 0)
		snprintf(reached, sizeof(reached), "%ld", w->reached);
	else
		snprintf(reached, sizeof(reached), "not_reached");
	if (w->reached >= 0 && w->first_pte >= 0)
		snprintf(from_pte, sizeof(from_pte), "%ld", w->reached - w->first_pte);
	else
		snprintf(from_pte, sizeof(from_pte), "not_reached");
	printf("STOCK_COMPARE scenario=%s mode=%d pages=%ld pte_updates=%lld hint_faults=%lld hint_faults_local=%lld pages_migrated=%lld promote_success=%lld seqs=%ld reached=%s reached_pte=%s first_pte=%ld seconds=%.1f placed=%ld stranded=%d%s\n",
	       w->name, w->mode, pages, d.pte_updates, d.hint_faults,
	       d.hint_faults_local, d.pages_migrated, d.promote_success,
	       nt_scan_seq() - w->seq0, reached, from_pte, w->first_pte,
	       nt_now() - w->t0, placed, w->reached < 0,
	       w->timed ? " timed=1" : "");
	fflush(stdout);
}

/*
 * Read NPAGES pages at P from CPU 0 until all of them are on node 0 or the
 * bound; checks the placement after every pass over the pages.
 */
static void read_until_node0(struct window *w, char *p, long npages)
{
	long placed;

	for (;;) {
		read_pages(p, npages);
		placed = pages_on(p, npages, 0);
		if (window_check(w, placed, npages))
			break;
	}
	window_print(w, npages, placed);
}

/* ---- first touch between the sockets (modes 1 and 3) ------------------- */

static void first_touch(const char *name, int mode)
{
	long npages = REGION_MB * MB / pagesz;
	struct window w;
	char *p;

	pin_cpu(0);
	p = nw_map_on_node(REGION_MB * MB, 1);
	if (p == MAP_FAILED)
		FAIL("32 MiB on node 1");
	if (pages_on(p, npages, 1) != npages)
		FAIL("not all of the region is on node 1");
	/* the mm's first scan comes 1 s after the fork, the VMA's 1 s later */
	window_start(&w, name, mode, 3.0 * SCAN_DELAY_MS / 1000);
	read_until_node0(&w, p, npages);
}

static void first_touch_m1(void) { first_touch("first_touch_m1", 1); }
static void first_touch_m3(void) { first_touch("first_touch_m3", 3); }

/* ---- mode 3: socket placement and promotion at once -------------------- */

static void sockets_m3(void)
{
	long half = REGION_MB / 2 * MB / pagesz;
	char *p = mmap(NULL, REGION_MB * MB, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct window w;

	pin_cpu(0);
	if (p == MAP_FAILED || madvise(p, REGION_MB * MB, MADV_NOHUGEPAGE))
		FAIL("mmap");
	/* one VMA, first half on node 1 (other socket), second on node 2 */
	if (nw_bind_node(1))
		FAIL("bind node 1");
	memset(p, 1, half * pagesz);
	if (nw_bind_node(2))
		FAIL("bind node 2");
	memset(p + half * pagesz, 1, half * pagesz);
	if (nw_bind_node(-1))
		FAIL("unbind");
	if (pages_on(p, half, 1) != half || pages_on(p + half * pagesz, half, 2) != half)
		FAIL("placement before the scenario");
	window_start(&w, "sockets_m3", 3, 3.0 * SCAN_DELAY_MS / 1000);
	read_until_node0(&w, p, 2 * half);
}

/* ---- the read-only file on the lower tier (mode 2) --------------------- */

/* the scenario's file, its page cache new on node 2 */
static void make_file(void)
{
	if (nw_tmpfs_file_on(FILE_PATH, REGION_MB * MB, 2))
		FAIL("%s on node 2", FILE_PATH);
}

static char *map_file_on_node2(int prot, int flags)
{
	long npages = REGION_MB * MB / pagesz;
	char *p;
	int fd;

	fd = open(FILE_PATH, O_RDONLY);
	if (fd < 0)
		FAIL("open %s", FILE_PATH);
	p = mmap(NULL, REGION_MB * MB, prot, flags, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		FAIL("mmap %s", FILE_PATH);
	read_pages(p, npages);
	if (pages_on(p, npages, 2) < npages * 99 / 100)
		FAIL("the file's page cache is not on node 2");
	return p;
}

/*
 * Read the mapping past the new VMA's scan delay first: the bound counts
 * from when the scanner may look at it.
 */
static void past_scan_delay(const char *p, long npages)
{
	double t0 = nt_now();

	do
		read_pages(p, npages);
	while (nt_now() - t0 < 1.5 * SCAN_DELAY_MS / 1000.0);
}

static void rofile_m2(void)
{
	long npages = REGION_MB * MB / pagesz;
	struct window w;
	char *p;

	pin_cpu(0);
	make_file();
	p = map_file_on_node2(PROT_READ, MAP_SHARED);
	past_scan_delay(p, npages);
	window_start(&w, "rofile_m2", 2, 0);
	read_until_node0(&w, p, npages);
}

/* ---- shared text: 2 forked readers (mode 2) ----------------------------- */

static void shared_text_m2(void)
{
	long npages = REGION_MB * MB / pagesz;
	int prot = PROT_READ | PROT_EXEC, flags = MAP_PRIVATE;
	struct window w;
	pid_t other;
	char *p;

	pin_cpu(0);
	make_file();
	other = fork();
	if (other < 0)
		FAIL("fork");
	if (other == 0) {
		/* the second reader: reads until killed */
		p = map_file_on_node2(prot, flags);
		for (;;)
			read_pages(p, npages);
	}
	p = map_file_on_node2(prot, flags);
	past_scan_delay(p, npages);
	window_start(&w, "shared_text_m2", 2, 0);
	read_until_node0(&w, p, npages);
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);
}

/* ---- anonymous memory shared copy-on-write after fork (mode 2) ---------- */

/*
 * The page-level filter of change_pte_range(): a folio of a COW mapping
 * that is likely mapped by more than one process is never marked. Stock
 * leaves such memory on the lower tier; on the series the legacy value
 * of filter_shared_folio must do the same.
 */
static void shared_anon_m2(void)
{
	long npages = REGION_MB * MB / pagesz;
	struct window w;
	pid_t other;
	char *p;

	pin_cpu(0);
	/*
	 * Balancing off until the region is shared: a first pass during a
	 * slow setup would mark it while it is mapped once, and the fork
	 * would copy the marks past the page-level check under test.
	 */
	if (nt_write_long(NUMAB_MODE, 0))
		FAIL("numa_balancing=0");
	p = nw_map_on_node(REGION_MB * MB, 2);
	if (p == MAP_FAILED)
		FAIL("32 MiB on node 2");
	if (pages_on(p, npages, 2) != npages)
		FAIL("not all of the region is on node 2");
	other = fork();
	if (other < 0)
		FAIL("fork");
	if (other == 0) {
		/* the second process: reads (never writes) until killed */
		for (;;)
			read_pages(p, npages);
	}
	if (nt_write_long(NUMAB_MODE, 2))
		FAIL("numa_balancing=2");
	past_scan_delay(p, npages);
	window_start(&w, "shared_anon_m2", 2, 0);
	read_until_node0(&w, p, npages);
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);
}

/* ---- PID stranding, shortened (mode 2) ---------------------------------- */

#define S_MB		32
#define WARM_SEQ	4
#define WARM_MIN_S	3.0

static void strand_pid_m2(void)
{
	long b_mb = nw_env_long("SC_B_MB", 256), nthreads = nw_env_long("SC_THREADS", 128);
	long s_pages = S_MB * MB / pagesz, b_pages, placed, seq0;
	double period = 1.0 / 200, next_b = 0, t, t0;
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	struct nw_sleepers sleepers;
	struct window w;
	char *S, *B;
	int memfd;

	pin_cpu(0);
	/* the threads first: a first pthread_create() restarts the scan on stock */
	if (nw_sleepers_start(&sleepers, nthreads))
		FAIL("%ld sleeping threads", nthreads);
	/* [S 32M][gap 32M][B on node 1], then B to node 2 */
	if (nw_map_front_and_b(S_MB, b_mb, pagesz, &S, &B, &memfd))
		FAIL("S and B");
	b_pages = b_mb * MB / pagesz;
	move_to(B, b_pages, 2);
	memset(S, 1, S_MB * MB);
	if (pages_on(S, s_pages, 0) != s_pages)
		FAIL("S is not on node 0");

	/* one round: write all of S, touch B at 200 random pages a second */
#define ROUND() do {							\
		long __n = 0;						\
									\
		write_pages(S, s_pages);				\
		t = nt_now();						\
		if (next_b == 0 || t - next_b > 1.0)			\
			next_b = t;					\
		while (next_b <= t && __n++ < 64) {			\
			B[(nw_rand(&rng) % b_pages) * pagesz]++;	\
			next_b += period;				\
		}							\
	} while (0)

	/* warm-up on node 0: past S's two unconditional sequences */
	seq0 = nt_scan_seq();
	t0 = nt_now();
	do
		ROUND();
	while ((nt_scan_seq() < seq0 + WARM_SEQ || t - t0 < WARM_MIN_S) &&
	       t - t0 < 300);
	if (nt_scan_seq() < seq0 + WARM_SEQ)
		FAIL("the scanner did not run %d sequences in 300 s", WARM_SEQ);

	move_to(S, s_pages, 2);
	window_start(&w, "strand_pid_m2", 2, 0);
	w.timed = 1;	/* B is touched at a rate per second */
	for (;;) {
		ROUND();
		placed = pages_on(S, s_pages, 0);
		if (window_check(&w, placed, s_pages * 95 / 100))
			break;
	}
	window_print(&w, s_pages, placed);
#undef ROUND
	nw_sleepers_stop(&sleepers);
	nw_unmap_front_and_b(S, S_MB, B, b_mb, memfd);
}

/* ---- the runner ------------------------------------------------------------ */

/*
 * placement: the scenario ends when its pages are placed, a second or so;
 * what is compared is when, and that spreads from run to run, so it runs
 * SC_REPEAT times. The others are compared by their counters (or are
 * timed by the second) and run once unless SC_REPEAT_ALL is set.
 */
struct scenario {
	const char *name;
	int mode;
	void (*fn)(void);
	int placement;
};

static const struct scenario scenarios[] = {
	{ "first_touch_m1", 1, first_touch_m1, 1 },
	{ "first_touch_m3", 3, first_touch_m3, 1 },
	{ "strand_pid_m2", 2, strand_pid_m2, 0 },
	{ "rofile_m2", 2, rofile_m2, 0 },
	{ "shared_text_m2", 2, shared_text_m2, 0 },
	{ "shared_anon_m2", 2, shared_anon_m2, 0 },
	{ "sockets_m3", 3, sockets_m3, 1 },
};
#define NSCEN	(sizeof(scenarios) / sizeof(scenarios[0]))

/* the legacy filter values; a kernel has some, all or none of them */
static const struct { const char *name; long val; } legacy[] = {
	{ "pid", 1 }, { "shared_ro", 1 }, { "cpuset", 0 }, { "scan_delay", 1 },
	{ "shared_folio", 1 }, { "promo_slowdown", 1 },
};

static void set_legacy(void)
{
	char path[128], set[256] = "", missing[256] = "";
	unsigned int i;

	for (i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++) {
		char *list = set;

		snprintf(path, sizeof(path), NUMAB_FILTER "%s", legacy[i].name);
		if (access(path, F_OK))
			list = missing;
		else if (nt_write_long(path, legacy[i].val))
			FAIL("write %ld to %s", legacy[i].val, path);
		snprintf(list + strlen(list), 256 - strlen(list), " %s=%ld",
			 legacy[i].name, legacy[i].val);
	}
	printf("LEGACY set:%s%s missing:%s%s\n", set, *set ? "" : " (none)",
	       missing, *missing ? "" : " (none)");
}

static int run(const struct scenario *s)
{
	struct nt_tunables tun = {
		.mode = s->mode, .scan_delay = SCAN_DELAY_MS, .period_min = 100,
		.period_max = 100, .scan_size = 16,
	};
	double t0 = nt_now();
	int status;
	pid_t pid;

	if (nt_tunables_set(&tun))
		FAIL("scan tunables");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		FAIL("fork");
	if (pid == 0) {
		s->fn();
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		FAIL("waitpid");
	printf("# %s: %.1f s\n", s->name, nt_now() - t0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct nt_tunables saved;
	unsigned int i;
	int ret = 0, a;
	long rep, repeat = nw_env_long("SC_REPEAT", 5);
	int repeat_all = nw_env_long("SC_REPEAT_ALL", 0) != 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	pagesz = getpagesize();
	max_seq = nw_env_long("SC_MAX_SEQ", 12);
	max_s = nw_env_long("SC_MAX_SECONDS", 60);
	if (nt_node_tier(0) < 0 || nt_node_tier(0) != nt_node_tier(1) ||
	    nt_node_tier(2) <= nt_node_tier(0)) {
		printf("# not the sockets topology: nodes 0, 1 in tiers %d, %d, node 2 in %d\n",
		       nt_node_tier(0), nt_node_tier(1), nt_node_tier(2));
		return 4;
	}
	if (nt_scan_seq() < 0 || access(NUMAB_DEBUGFS, F_OK)) {
		printf("# no numa_scan_seq or %s\n", NUMAB_DEBUGFS);
		return 4;
	}
	printf("# tiers: node0 %d node1 %d node2 %d; bound %ld sequences, %.0f s\n",
	       nt_node_tier(0), nt_node_tier(1), nt_node_tier(2), max_seq, max_s);
	set_legacy();
	nt_tunables_save(&saved);
	for (rep = 0; rep < repeat; rep++) {
		for (i = 0; i < NSCEN; i++) {
			int want = argc < 2;

			for (a = 1; a < argc; a++)
				want |= !strcmp(argv[a], scenarios[i].name);
			if (rep && !scenarios[i].placement && !repeat_all)
				want = 0;
			if (want)
				ret |= run(&scenarios[i]);
		}
	}
	unlink(FILE_PATH);
	nt_tunables_set(&saved);
	return ret;
}
