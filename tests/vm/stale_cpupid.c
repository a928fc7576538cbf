// SPDX-License-Identifier: GPL-2.0
/*
 * A stale access time must not be followed as a cpupid (found by the
 * stress test on the debug kernel: a general protection fault in
 * task_numa_group(), reading cpu_rq() of a CPU that does not exist).
 *
 * In memory-tiering mode the scanner stores the time it marked a folio on
 * a lower-tier node in the folio's last_cpupid field. When tiering is
 * switched off and the folio is then migrated to a top-tier node
 * (move_pages(2) here; mbind(2) or a cpuset.mems change do the same),
 * folio_migrate_flags() copies the field unchanged, and the next hinting
 * fault on the top-tier folio reads the time as a cpupid: its CPU bits
 * name a CPU beyond nr_cpu_ids and task_numa_group() dereferences that
 * CPU's runqueue.
 *
 * The test makes that sequence happen for 4096 pages and touches them in
 * mode 1 and in mode 3. Pass: the kernel survives (scripts/vm fails the
 * run on any splat) and the pages are touched.
 */
#include "../lib/numab_test.h"
#include "../lib/numab_work.h"
#include "kselftest_harness.h"
#include "numa_vmas_lib.h"

#define REGION_MB	16

FIXTURE(stale) {
	struct nt_tunables saved;
	struct nt_filters filters;
	struct nw_sleepers sleepers;
	char *buf, *busy;
	long pagesz, npages;
};

FIXTURE_VARIANT(stale) {
	int mode;	/* the non-tiering-aware mode the pages are touched in */
};
FIXTURE_VARIANT_ADD(stale, mode1) { .mode = 1 };
FIXTURE_VARIANT_ADD(stale, mode3) { .mode = 3 };

FIXTURE_SETUP(stale)
{
	struct nt_tunables tun = {
		.mode = 2, .scan_delay = 0, .period_min = 100,
		.period_max = 100, .scan_size = 256,
	};

	self->buf = MAP_FAILED;
	self->busy = MAP_FAILED;
	NW_TIERING_SETUP(self, 0, &tun);
	self->pagesz = sysconf(_SC_PAGESIZE);
	self->npages = REGION_MB * NW_MB / self->pagesz;
	self->busy = mmap(NULL, NW_MB, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(self->busy, MAP_FAILED);
	memset(self->busy, 1, NW_MB);
	/*
	 * A second thread: change_pte_range() does not mark folios on the
	 * node a single-threaded process runs on.
	 */
	ASSERT_EQ(nw_sleepers_start(&self->sleepers, 1), 0);
	/* the region on the lower tier */
	self->buf = nw_map_on_node(REGION_MB * NW_MB, 1);
	ASSERT_NE(self->buf, MAP_FAILED);
}

FIXTURE_TEARDOWN(stale)
{
	nw_sleepers_stop(&self->sleepers);
	if (self->buf != MAP_FAILED)
		munmap(self->buf, REGION_MB * NW_MB);
	if (self->busy != MAP_FAILED)
		munmap(self->busy, NW_MB);
	nt_tunables_set(&self->saved);
	nt_filters_set(&self->filters);
}

/* Run (touching BUSY only) until the scan sequence advanced by N */
static int run_seqs(char *busy, long n, double max_s)
{
	long seq0 = nt_scan_seq(), i;
	double t0 = nt_now();

	while (nt_scan_seq() - seq0 < n) {
		if (nt_now() - t0 > max_s)
			return -1;
		for (i = 0; i < (long)NW_MB; i += 4096)
			((volatile char *)busy)[i]++;
	}
	return 0;
}

TEST_F_TIMEOUT(stale, migrated_access_time, 300)
{
	struct nw_vmstat v0, v1, d;
	struct nt_placement pl;
	long long marked;
	long i, touched = 0, seq0;
	double t0;

	/*
	 * Mode 2: the scanner marks the region's lower-tier folios and
	 * stores the time in their last_cpupid field (the region is new:
	 * its first two sequences are scanned whatever the PID filter).
	 * The region's own pte_updates count: the first pass of a new
	 * process can come while the fixture is still setting up, and
	 * then marks the region before this test starts, after which a
	 * delta of /proc/vmstat taken here counts nothing.
	 */
	ASSERT_EQ(run_seqs(self->busy, 2, 120), 0) TH_LOG("the scanner did not run");
	marked = nv_vma_key_ll(0, self->buf, "pte_updates", -1);
	TH_LOG("mode 2, 2 sequences: the region's pte_updates %lld", marked);
	ASSERT_GE(marked, self->npages / 2) TH_LOG("the region was not marked");
	ASSERT_EQ(nt_placement(self->buf, self->npages, self->pagesz, &pl), 0);
	ASSERT_EQ(pl.node[1], self->npages);

	/* tiering off, then the folios move to the top tier as they are */
	ASSERT_EQ(nt_write_long(NUMAB_MODE, 1), 0);
	ASSERT_EQ(nt_move_all(self->buf, self->npages, self->pagesz, 0), 0);
	ASSERT_EQ(nt_placement(self->buf, self->npages, self->pagesz, &pl), 0);
	TH_LOG("after move_pages in mode 1: node0 %ld node1 %ld", pl.node[0], pl.node[1]);

	/*
	 * Hinting faults on them in a mode that reads last_cpupid as a
	 * cpupid: the scanner marks them (the PID filter off, so that it
	 * does), the loop touches them, for a few sequences.
	 */
	ASSERT_EQ(nt_write_long(NUMAB_FILTER "pid", 0), 0);
	ASSERT_EQ(nt_write_long(NUMAB_MODE, variant->mode), 0);
	nw_vmstat_read(&v0);
	seq0 = nt_scan_seq();
	t0 = nt_now();
	while (nt_scan_seq() - seq0 < 4 && nt_now() - t0 < 120) {
		for (i = 0; i < self->npages; i++, touched++)
			self->buf[i * self->pagesz]++;
	}
	nw_vmstat_read(&v1);
	nw_vmstat_delta(&v0, &v1, &d);
	TH_LOG("mode %d, %ld sequences: %ld page touches, numa_pte_updates +%lld numa_hint_faults +%lld",
	       variant->mode, nt_scan_seq() - seq0, touched, d.pte_updates, d.hint_faults);
	/* the faults happened: the test exercised the path */
	EXPECT_GE(d.hint_faults, self->npages / 2);
}

TEST_HARNESS_MAIN
