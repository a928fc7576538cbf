// SPDX-License-Identifier: GPL-2.0
/*
 * Placement invariance.
 *
 * The series makes the scanner look at VMAs it used to skip (PID-inactive
 * VMAs and read-only file mappings), but promotion-only: only folios on a
 * lower tier are made PROT_NONE. On a workload whose memory is all on the
 * top tier this must change nothing: same hinting faults, same PTE updates
 * as a kernel that skips those VMAs, in modes 1 (NORMAL), 2 (TIERING) and
 * 3 (both).
 *
 * Workload, all on node 0: 3 busy threads (main + 2 workers) on the 2
 * CPUs; a 16 MiB anonymous VMA all of them write, one private 16 MiB VMA
 * per busy thread that only that thread writes (so the PID filter rejects
 * it for the other two when they scan), a 16 MiB VMA nobody touches after
 * populating it, and an 8 MiB tmpfs file with its page cache on node 0
 * mapped PROT_READ MAP_SHARED and read by the main thread; plus 32
 * sleeping threads, so the get_nr_threads() fallback stays far away.
 * After WARM_SEQ sequences and 3 s (past every VMA's scan delay and its
 * two unconditional sequences)
 * the deltas of numa_hint_faults(_local) and numa_pte_updates over N scan
 * sequences are printed as "RESULT placement mode=M ...".
 *
 * The comparison with a filters-skip run needs the legacy setting of the
 * filter sysctls (part 2), in the same boot; until then the assertions are
 * what holds on any kernel:
 *  - every mode: the memory stays on node 0 (nothing to promote, NORMAL
 *    has no CPU on node 1 to pull pages to);
 *  - mode 2: numa_pte_updates and numa_hint_faults deltas are 0 (nothing
 *    is on a lower tier, and top-tier pages are never marked in mode 2);
 *  - modes 1 and 3: numa_pte_updates > 0 (the scanner ran, the window
 *    means something).
 * Knobs: PLACEMENT_SEQ [30], PLACEMENT_MAX_SECONDS [400]. NUMAB_BENCH=1
 * adds a "BENCH p3 ..." metrics line for scripts/bench, with the
 * scanner's CPU time over the measured sequences (nw_scan_cpu_start()).
 */
#include "../lib/numab_test.h"
#include "../lib/numab_work.h"
#include "kselftest_harness.h"

#define VMA_MB		16
#define FILE_MB		8
#define NBUSY		3	/* main + 2 workers */
#define NSLEEP		32
#define WARM_SEQ	4
#define WARM_S		3.0	/* and > scan_delay_ms: new VMAs wait that long */
#define FILE_PATH	"/tmp/numab-placement-ro"

struct worker {
	pthread_t tid;
	char *own, *shared;
	long npages, pagesz;
	volatile int *stop;
};

FIXTURE(placement) {
	struct nt_tunables saved;
	struct nt_filters filters;
	struct nw_sleepers sleepers;
	struct worker workers[NBUSY - 1];
	int nworkers;
	volatile int stop;
	char *shared, *own[NBUSY], *idle, *file;
	int fd;
	long pagesz, npages, fpages;
};

/*
 * Each mode runs twice in one boot: first with the filter sysctls set to
 * the stock behaviour (legacy, skipped on a kernel without them), then
 * with the numab defaults, which are compared with the legacy run of the
 * same mode (its result is left in LEGACY_RESULT).
 */
FIXTURE_VARIANT(placement) {
	int mode;
	int legacy;
};

FIXTURE_VARIANT_ADD(placement, mode1_legacy) { .mode = 1, .legacy = 1 };
FIXTURE_VARIANT_ADD(placement, mode1) { .mode = 1 };
FIXTURE_VARIANT_ADD(placement, mode2_legacy) { .mode = 2, .legacy = 1 };
FIXTURE_VARIANT_ADD(placement, mode2) { .mode = 2 };
FIXTURE_VARIANT_ADD(placement, mode3_legacy) { .mode = 3, .legacy = 1 };
FIXTURE_VARIANT_ADD(placement, mode3) { .mode = 3 };

#define LEGACY_RESULT	"/tmp/numab-placement-legacy-mode%d"
/* numab vs legacy hinting faults: noise allowance */
#define FAULTS_SLACK_PCT	10

static void touch(char *p, long npages, long pagesz)
{
	long i;

	for (i = 0; i < npages; i++)
		((volatile char *)p)[i * pagesz]++;
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;

	while (!*w->stop) {
		touch(w->own, w->npages, w->pagesz);
		touch(w->shared, w->npages, w->pagesz);
	}
	return NULL;
}

static char *anon(size_t size)
{
	char *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, size, MADV_NOHUGEPAGE);
	memset(p, 1, size);
	return p;
}

FIXTURE_SETUP(placement)
{
	struct nt_tunables tun = {
		.mode = variant->mode, .scan_delay = 1000, .period_min = 100,
		.period_max = 100, .scan_size = 16,
	};
	volatile char sink = 0;
	long i;

	self->fd = -1;
	NW_TIERING_SETUP(self, variant->legacy, &tun);
	self->pagesz = getpagesize();
	self->npages = (VMA_MB << 20) / self->pagesz;
	self->fpages = (FILE_MB << 20) / self->pagesz;
	if (self->npages <= 0 || self->fpages <= 0)
		SKIP(return, "page size %ld", self->pagesz);

	/* everything on node 0: node 0 has the CPUs, default policy is local */
	self->shared = anon(VMA_MB << 20);
	ASSERT_NE(self->shared, NULL);
	self->idle = anon(VMA_MB << 20);
	ASSERT_NE(self->idle, NULL);
	for (i = 0; i < NBUSY; i++) {
		self->own[i] = anon(VMA_MB << 20);
		ASSERT_NE(self->own[i], NULL);
	}
	ASSERT_EQ(nw_tmpfs_file_on(FILE_PATH, FILE_MB << 20, 0), 0);
	self->fd = open(FILE_PATH, O_RDONLY);
	ASSERT_GE(self->fd, 0);
	self->file = mmap(NULL, FILE_MB << 20, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(self->file, MAP_FAILED);
	for (i = 0; i < self->fpages; i++)
		sink += self->file[i * self->pagesz];
	(void)sink;

	ASSERT_EQ(nw_sleepers_start(&self->sleepers, NSLEEP), 0);
	for (i = 0; i < NBUSY - 1; i++) {
		struct worker *w = &self->workers[i];

		w->own = self->own[i + 1];
		w->shared = self->shared;
		w->npages = self->npages;
		w->pagesz = self->pagesz;
		w->stop = &self->stop;
		ASSERT_EQ(pthread_create(&w->tid, NULL, worker_fn, w), 0);
		self->nworkers++;
	}
}

FIXTURE_TEARDOWN(placement)
{
	int i;

	self->stop = 1;
	for (i = 0; i < self->nworkers; i++)
		pthread_join(self->workers[i].tid, NULL);
	nw_sleepers_stop(&self->sleepers);
	if (self->file && self->file != MAP_FAILED)
		munmap(self->file, FILE_MB << 20);
	if (self->fd >= 0)
		close(self->fd);
	unlink(FILE_PATH);
	nt_tunables_set(&self->saved);
	nt_filters_set(&self->filters);
}

/* pages of all the workload's mappings on node 0 (and the total) */
static long on_node0(FIXTURE_DATA(placement) *self, long *total)
{
	struct nt_placement pl;
	long n = 0;
	int i;

	*total = 0;
#define COUNT(p, np) do { \
		if (!nt_placement(p, np, self->pagesz, &pl)) \
			n += pl.node[0]; \
		*total += np; \
	} while (0)
	COUNT(self->shared, self->npages);
	COUNT(self->idle, self->npages);
	for (i = 0; i < NBUSY; i++)
		COUNT(self->own[i], self->npages);
	COUNT(self->file, self->fpages);
#undef COUNT
	return n;
}

/* the main thread's share of the work until SEQS sequences or CAP s passed */
static long run_main(FIXTURE_DATA(placement) *self, long seqs, double min,
		     double cap, double *seconds)
{
	long seq0 = nt_scan_seq(), seq;
	double t0 = nt_now(), t;
	volatile char sink = 0;
	long i;

	do {
		touch(self->own[0], self->npages, self->pagesz);
		touch(self->shared, self->npages, self->pagesz);
		for (i = 0; i < self->fpages; i++)
			sink += self->file[i * self->pagesz];
		seq = nt_scan_seq();
		t = nt_now();
	} while ((seq - seq0 < seqs || t - t0 < min) && t - t0 < cap);
	(void)sink;
	*seconds = t - t0;
	return seq - seq0;
}

/*
 * The legacy run leaves its hinting faults behind; the numab run of the
 * same mode must not take more (promotion-only scans mark nothing here:
 * all memory is on the top tier), within FAULTS_SLACK_PCT of noise.
 */
static void compare_with_legacy(struct __test_metadata *_metadata,
				const FIXTURE_VARIANT(placement) *variant,
				const struct nw_vmstat *d)
{
	char path[64], buf[64];
	long long legacy;

	snprintf(path, sizeof(path), LEGACY_RESULT, variant->mode);
	if (variant->legacy) {
		FILE *f = fopen(path, "w");

		ASSERT_NE(f, NULL);
		fprintf(f, "%lld\n", d->hint_faults);
		ASSERT_EQ(fclose(f), 0);
		return;
	}
	if (nt_read(path, buf, sizeof(buf)) <= 0) {
		TH_LOG("no legacy run to compare with (kernel without the filter sysctls)");
		return;
	}
	legacy = strtoll(buf, NULL, 10);
	TH_LOG("mode %d: hinting faults numab %lld, legacy %lld", variant->mode,
	       d->hint_faults, legacy);
	ASSERT_LE(d->hint_faults, legacy + legacy * FAULTS_SLACK_PCT / 100 + 100);
}

TEST_F_TIMEOUT(placement, invariance, 600)
{
	long nseq = nw_env_long("PLACEMENT_SEQ", 30);
	double cap = nw_env_long("PLACEMENT_MAX_SECONDS", 400);
	long n0, total, seqs;
	struct nw_vmstat v0, v1, d;
	static struct nw_opt_ctrs o0, o1;
	static struct nw_scan_cpu cpu;
	static char ctrs[512], scan[160];
	double secs;

	n0 = on_node0(self, &total);
	TH_LOG("mode %d: %ld/%ld workload pages on node0 before", variant->mode, n0, total);
	ASSERT_EQ(n0, total);

	seqs = run_main(self, WARM_SEQ, WARM_S, cap, &secs);
	TH_LOG("warm-up: %ld scan sequences, %.1f s", seqs, secs);
	ASSERT_GE(seqs, WARM_SEQ);

	nw_opt_ctrs_read(&o0);
	if (nw_bench_on())
		nw_scan_cpu_start(&cpu);
	nw_vmstat_read(&v0);
	seqs = run_main(self, nseq, 0, cap, &secs);
	nw_vmstat_read(&v1);
	nw_vmstat_delta(&v0, &v1, &d);
	if (nw_bench_on())
		nw_scan_cpu_stop(&cpu);
	nw_opt_ctrs_read(&o1);
	nw_opt_ctrs_format(&o0, &o1, ctrs, sizeof(ctrs));
	n0 = on_node0(self, &total);
	TH_LOG("RESULT placement mode=%d%s seqs=%ld seconds=%.1f numa_pte_updates=%lld numa_hint_faults=%lld numa_hint_faults_local=%lld pgpromote_success=%lld numa_pages_migrated=%lld node0=%ld/%ld",
	       variant->mode, variant->legacy ? " legacy" : "", seqs, secs, d.pte_updates, d.hint_faults,
	       d.hint_faults_local, d.promote_success, d.pages_migrated, n0, total);
	if (nw_bench_on()) {
		nw_scan_cpu_format(&cpu, scan, sizeof(scan));
		nw_bench("p3 mode=%d variant=%s seqs=%ld seconds=%.1f numa_pte_updates=%lld numa_hint_faults=%lld numa_hint_faults_local=%lld pgpromote_success=%lld fast=%ld total=%ld%s%s",
			 variant->mode, variant->legacy ? "legacy" : "numab", seqs,
			 secs, d.pte_updates, d.hint_faults, d.hint_faults_local,
			 d.promote_success, n0, total, scan, ctrs);
	}
	ASSERT_GE(seqs, nseq);
	ASSERT_GE(n0, total * 99 / 100);
	compare_with_legacy(_metadata, variant, &d);
	if (variant->mode == 2) {
		/* nothing on a lower tier: nothing to mark, nothing to fault */
		ASSERT_EQ(d.pte_updates, 0);
		ASSERT_EQ(d.hint_faults, 0);
	} else {
		ASSERT_GT(d.pte_updates, 0);
	}
}

TEST_HARNESS_MAIN
