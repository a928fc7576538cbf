// SPDX-License-Identifier: GPL-2.0
/*
 * cpuset.mems pinning.
 *
 * A task whose cpuset.mems allows one node only cannot have its memory
 * migrated anywhere, so NUMA-balancing hinting faults are pure overhead:
 * the patched kernel skips the scan (task_numa_work() returns early when
 * cpusets_enabled() and the task's mems_allowed has a single node, with
 * the sched_skip_cpuset_numa tracepoint).
 *
 * The test process moves itself into a cgroup-v2 child with the cpuset
 * controller, cpuset.cpus = all CPUs, and runs with numa_balancing=1
 * (NORMAL, so that stock does mark top-tier pages) a 64 MiB anonymous
 * buffer on node 0 touched in a loop by the main thread; a second,
 * sleeping thread makes mm_users > 1 (change_pte_range() skips pages on
 * the local node of a single-threaded task).
 *
 *  - one_node: first a calibration phase with cpuset.mems = 0-1: over N
 *    scan sequences the global numa_pte_updates delta must be > 0 (the
 *    scan runs: any kernel), and how long they take is measured; then
 *    cpuset.mems = 0 for N sequences or, since a kernel that skips the
 *    scan may stop numa_scan_seq too, for max(2 x calibration time,
 *    MIN_WINDOW_S): numa_pte_updates delta must be 0. Stock 6.12 keeps
 *    scanning: fails.
 *
 * Measured (series v3, 2 CPUs shared with other guests, load 4-6, 5 runs
 * of 20 sequences): 20 sequences took 3.2 to 3.5 s with either setting
 * of cpuset.mems, 311431 to 327820 PTE updates with mems=0-1 and 327842
 * to 327845 with mems=0 and the legacy filter (stock: 327822); the
 * defaults: 0 PTE updates and no sequence in 10 s. A scanning kernel
 * updates about 16000 PTEs per sequence, a sequence about every 0.17 s:
 * N = 10 and a window of at least MIN_WINDOW_S = 3 s (30 scan periods)
 * tell 0 from that.
 *
 * numa_pte_updates is global (/proc/vmstat): the guest runs nothing else.
 * A warm-up of 3 s (past the new VMA's scan delay) comes first.
 * Knobs: CPUSET_SEQ [10], CPUSET_MAX_SECONDS [180]. NUMAB_BENCH=1 adds
 * "BENCH p4 ..." metrics lines for scripts/bench, with the touch loop's
 * throughput (pages touched per second) in each phase.
 */
#include "../lib/numab_test.h"
#include "../lib/numab_work.h"
#include "kselftest_harness.h"

#include <sys/stat.h>

#define CG_ROOT		"/sys/fs/cgroup"
#define CG_DIR		CG_ROOT "/numab-cpuset"
#define BUF_MB		64
#define WARM_S		3.0	/* > scan_delay_ms: new VMAs wait that long */
#define MIN_WINDOW_S	3.0	/* the mems=0 window at least */

FIXTURE(cpuset) {
	struct nt_tunables saved;
	struct nt_filters filters;
	struct nw_sleepers sleepers;
	char *buf;
	long pagesz, npages;
	int in_cgroup;
};

struct phase {
	long seqs;
	double seconds;
	long long touches;	/* pages touched */
	struct nw_vmstat d;
	struct nw_opt_ctrs o0, o1;	/* optional vmstat counters */
};

static int write_pid(const char *path, pid_t pid)
{
	return nt_write_long(path, pid);
}

/*
 * numab: default filters, a one-node cpuset is not scanned (fails on
 * stock). legacy: kernel.numa_balancing_filter_cpuset=0 and the other
 * filters as in stock, the task is scanned as before: both in one boot.
 */
FIXTURE_VARIANT(cpuset) {
	int legacy;
};
FIXTURE_VARIANT_ADD(cpuset, numab) { .legacy = 0 };
FIXTURE_VARIANT_ADD(cpuset, legacy) { .legacy = 1 };

FIXTURE_SETUP(cpuset)
{
	struct nt_tunables tun = {
		.mode = 1, .scan_delay = 1000, .period_min = 100,
		.period_max = 100, .scan_size = 16,
	};
	char buf[256];
	struct nt_placement pl;

	/* all -1: the teardown restores nothing unless saved below */
	memset(&self->saved, -1, sizeof(self->saved));
	self->filters.pid = -1;
	if (access(NUMAB_DEBUGFS, F_OK))
		SKIP(return, "no %s (needs DEBUG_FS and SCHED_DEBUG)", NUMAB_DEBUGFS);
	if (nt_scan_seq() < 0)
		SKIP(return, "no mm->numa_scan_seq in /proc/self/sched");
	if (nt_read(CG_ROOT "/cgroup.controllers", buf, sizeof(buf)) <= 0)
		SKIP(return, "no cgroup v2 at %s", CG_ROOT);
	if (!strstr(buf, "cpuset"))
		SKIP(return, "no cpuset controller in %s/cgroup.controllers (\"%s\")",
		     CG_ROOT, strtok(buf, "\n"));
	if (nt_write(CG_ROOT "/cgroup.subtree_control", "+cpuset"))
		SKIP(return, "cannot enable +cpuset in %s/cgroup.subtree_control", CG_ROOT);
	if (mkdir(CG_DIR, 0755) && errno != EEXIST)
		SKIP(return, "mkdir %s: %s", CG_DIR, strerror(errno));
	if (access(CG_DIR "/cpuset.mems", F_OK))
		SKIP(return, "%s has no cpuset.mems", CG_DIR);
	ASSERT_GT(nt_read(CG_ROOT "/cpuset.cpus.effective", buf, sizeof(buf)), 0);
	ASSERT_EQ(nt_write(CG_DIR "/cpuset.cpus", strtok(buf, "\n")), 0);
	ASSERT_EQ(nt_write(CG_DIR "/cpuset.mems", "0-1"), 0);
	ASSERT_EQ(write_pid(CG_DIR "/cgroup.procs", getpid()), 0);
	self->in_cgroup = 1;

	if (nt_filters_apply(variant->legacy, &self->filters))
		SKIP(return, "no kernel.numa_balancing_filter_* sysctls (kernel without the numab series)");
	nt_tunables_save(&self->saved);
	ASSERT_EQ(nt_tunables_set(&tun), 0);

	self->pagesz = getpagesize();
	self->npages = (BUF_MB << 20) / self->pagesz;
	self->buf = mmap(NULL, BUF_MB << 20, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(self->buf, MAP_FAILED);
	ASSERT_EQ(madvise(self->buf, BUF_MB << 20, MADV_NOHUGEPAGE), 0);
	memset(self->buf, 1, BUF_MB << 20);
	if (self->npages <= 0)
		SKIP(return, "page size %ld", self->pagesz);
	ASSERT_EQ(nt_placement(self->buf, self->npages, self->pagesz, &pl), 0);
	ASSERT_EQ(pl.node[0], self->npages);
	ASSERT_EQ(nw_sleepers_start(&self->sleepers, 1), 0);
}

FIXTURE_TEARDOWN(cpuset)
{
	nw_sleepers_stop(&self->sleepers);
	if (self->buf && self->buf != MAP_FAILED)
		munmap(self->buf, BUF_MB << 20);
	if (self->in_cgroup) {
		write_pid(CG_ROOT "/cgroup.procs", getpid());
		rmdir(CG_DIR);
	}
	nt_tunables_set(&self->saved);
	nt_filters_set(&self->filters);
}

/* Mems_allowed_list of this task, as the kernel sees it */
static void mems_allowed(char *out, size_t size)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	snprintf(out, size, "?");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Mems_allowed_list: %63s", out) == 1)
			break;
	fclose(f);
}

/*
 * Set cpuset.mems, then touch the buffer until NSEQ scan sequences and MIN
 * seconds, or CAP seconds, have passed.
 */
static int phase(FIXTURE_DATA(cpuset) *self, const char *mems, long nseq,
		 double min, double cap, struct phase *ph)
{
	struct nw_vmstat v0, v1;
	volatile char *b = self->buf;
	long seq0, seq, i;
	double t0, t;
	int ret = nt_write(CG_DIR "/cpuset.mems", mems);

	if (ret)
		return ret;
	nw_opt_ctrs_read(&ph->o0);
	nw_vmstat_read(&v0);
	seq0 = nt_scan_seq();
	t0 = nt_now();
	ph->touches = 0;
	do {
		for (i = 0; i < self->npages; i++)
			b[i * self->pagesz]++;
		ph->touches += self->npages;
		seq = nt_scan_seq();
		t = nt_now();
	} while ((seq - seq0 < nseq || t - t0 < min) && t - t0 < cap);
	nw_vmstat_read(&v1);
	nw_vmstat_delta(&v0, &v1, &ph->d);
	nw_opt_ctrs_read(&ph->o1);
	ph->seqs = seq - seq0;
	ph->seconds = t - t0;
	return 0;
}

static void log_phase(struct __test_metadata *_metadata,
		      const FIXTURE_VARIANT(cpuset) *variant, const char *name,
		      const char *mems, const struct phase *ph)
{
	static char ctrs[512];
	char allowed[64];

	nw_opt_ctrs_format(&ph->o0, &ph->o1, ctrs, sizeof(ctrs));
	mems_allowed(allowed, sizeof(allowed));
	TH_LOG("RESULT cpuset %s: cpuset.mems=%s (Mems_allowed_list %s): %ld scan sequences in %.1f s: numa_pte_updates +%lld numa_hint_faults +%lld (local +%lld)",
	       name, mems, allowed, ph->seqs, ph->seconds, ph->d.pte_updates,
	       ph->d.hint_faults, ph->d.hint_faults_local);
	nw_bench("p4 variant=%s phase=%s mems=%s seqs=%ld seconds=%.2f numa_pte_updates=%lld numa_hint_faults=%lld touches=%lld touches_per_s=%.0f%s",
		 variant->legacy ? "legacy" : "numab", name, mems, ph->seqs,
		 ph->seconds, ph->d.pte_updates, ph->d.hint_faults, ph->touches,
		 ph->seconds > 0 ? ph->touches / ph->seconds : 0, ctrs);
}

TEST_F_TIMEOUT(cpuset, one_node, 600)
{
	long nseq = nw_env_long("CPUSET_SEQ", 10);
	double cap = nw_env_long("CPUSET_MAX_SECONDS", 180);
	struct phase warm, cal, ph;
	double window;

	/* calibration with both nodes: the scanner runs, and how fast */
	ASSERT_EQ(phase(self, "0-1", 2, WARM_S, cap, &warm), 0);
	ASSERT_EQ(phase(self, "0-1", nseq, 0, cap, &cal), 0);
	log_phase(_metadata, variant, "calibration", "0-1", &cal);
	ASSERT_GE(cal.seqs, nseq);
	ASSERT_GT(cal.d.pte_updates, 0);

	window = 2 * cal.seconds > MIN_WINDOW_S ? 2 * cal.seconds : MIN_WINDOW_S;
	ASSERT_EQ(phase(self, "0", nseq, 0, window, &ph), 0);
	log_phase(_metadata, variant, "one_node", "0", &ph);
	if (variant->legacy) {
		/* the stock scanner, reproduced: the pinned task is scanned */
		ASSERT_GE(ph.seqs, nseq);
		ASSERT_GT(ph.d.pte_updates, 0);
		return;
	}
	ASSERT_EQ(ph.d.pte_updates, 0) {
		TH_LOG("memory pinned to node 0 by cpuset.mems was still scanned: %lld PTE updates in %ld sequences",
		       ph.d.pte_updates, ph.seqs);
	}
}

/*
 * one_node_tiering: in tiering mode a task pinned to the top-tier node 0
 * can still have memory on the lower tier: 6.12's demotion ignores
 * cpuset.mems, and page cache (here a memfd) is put there by others. Its
 * promotion to node 0 is a migration cpuset.mems allows, so the task must
 * still be scanned. MEMFD_MB of a memfd written while bound to node 1,
 * before cpuset.mems = 0 (unmapped then, so the change migrates nothing of
 * it), then mapped shared and read in a loop with numa_balancing=2 and
 * room on node 0: the pages must come to node 0 within TIER_CAP_S, as on
 * stock. Measured (tiered guest, mode 2, scan delay 1 s, period 100 ms,
 * size 16 MiB): all 8192 pages on node 0 after 0.7 s (filter on) and
 * 0.8 s (legacy, filter off); with the upstream condition, which skips
 * any one-node task, 0 of 8192 after 30 s and no scan sequence.
 */
#define MEMFD_MB	32
#define TIER_CAP_S	30.0

static void one_node_tiering(struct __test_metadata *_metadata,
			     FIXTURE_DATA(cpuset) *self,
			     const FIXTURE_VARIANT(cpuset) *variant)
{
	struct nt_tunables tun = {
		.mode = 2, .scan_delay = -1, .period_min = -1,
		.period_max = -1, .scan_size = -1,
	};
	long n = (MEMFD_MB << 20) / self->pagesz, i, seq0;
	struct nt_placement pl = { 0 };
	char chunk[1 << 16], allowed[64];
	volatile char *m;
	double t0, t = 0;
	int fd;

	if (n <= 0)
		SKIP(return, "page size %ld", self->pagesz);
	if (nt_node_tier(1) <= nt_node_tier(0))
		SKIP(return, "node 1 is not in a lower tier than node 0 (tiers %d, %d): needs the tiered topology",
		     nt_node_tier(0), nt_node_tier(1));
	fd = memfd_create("numab-cpuset", 0);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(nw_bind_node(1), 0);
	memset(chunk, 7, sizeof(chunk));
	for (i = 0; i < (MEMFD_MB << 20) / (long)sizeof(chunk); i++)
		ASSERT_EQ(write(fd, chunk, sizeof(chunk)), (ssize_t)sizeof(chunk));
	ASSERT_EQ(nw_bind_node(-1), 0);
	ASSERT_EQ(nt_write(CG_DIR "/cpuset.mems", "0"), 0);
	mems_allowed(allowed, sizeof(allowed));
	ASSERT_EQ(strcmp(allowed, "0"), 0);
	ASSERT_EQ(nt_tunables_set(&tun), 0);

	m = mmap(NULL, MEMFD_MB << 20, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(m, MAP_FAILED);
	for (i = 0; i < n; i++)		/* map every page: move_pages() sees mapped ones */
		(void)m[i * self->pagesz];
	ASSERT_EQ(nt_placement((char *)m, n, self->pagesz, &pl), 0);
	ASSERT_EQ(pl.node[1], n) {
		TH_LOG("the memfd is not on node 1: %ld on node 0, %ld on node 1",
		       pl.node[0], pl.node[1]);
	}
	seq0 = nt_scan_seq();
	t0 = nt_now();
	while (t < TIER_CAP_S) {
		long sum = 0;

		for (i = 0; i < n; i++)
			sum += m[i * self->pagesz];
		ASSERT_EQ(sum, 7 * n);
		ASSERT_EQ(nt_placement((char *)m, n, self->pagesz, &pl), 0);
		t = nt_now() - t0;
		if (pl.node[0] == n)
			break;
	}
	TH_LOG("RESULT cpuset one_node_tiering %s: cpuset.mems=0, mode 2: %ld of %ld memfd pages on node 0 after %.1f s, %ld scan sequences",
	       variant->legacy ? "legacy" : "numab", pl.node[0], n, t,
	       nt_scan_seq() - seq0);
	munmap((void *)m, MEMFD_MB << 20);
	close(fd);
	ASSERT_EQ(pl.node[0], n) {
		TH_LOG("memory of a task pinned to top-tier node 0 stayed on the lower tier: the scan was skipped");
	}
}

/* -O0 wrapper: see first_fault.c (the harness's setjmp, -Wclobbered) */
#pragma GCC push_options
#pragma GCC optimize("O0")
TEST_F_TIMEOUT(cpuset, one_node_tiering, 120)
{
	one_node_tiering(_metadata, self, variant);
}
#pragma GCC pop_options

TEST_HARNESS_MAIN
