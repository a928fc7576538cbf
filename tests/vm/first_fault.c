// SPDX-License-Identifier: GPL-2.0
/*
 * First-fault migration between two top-tier nodes.
 *
 * Stock 6.12: a folio that never took a NUMA hinting fault has its
 * last_cpupid unset, and should_numa_migrate_memory() lets it migrate at
 * its first hinting fault ("first faults ... migrate immediately"). The
 * 10-patch series made "!cpupid_valid(last_cpupid) -> return false" run
 * before that shortcut; the unset value decodes to a CPU >= nr_cpu_ids,
 * so every never-faulted folio lost its first-fault migration: two hinting
 * faults and two PTE updates per page instead of one.
 *
 * The test (topology flat: both nodes in one memory tier): 32 MiB of
 * private anonymous memory in small pages, written on node 1 under a
 * temporary MPOL_BIND (no hinting fault: last_cpupid unset), then read
 * in a loop by this single-threaded process on a CPU of node 0, with
 * 100 ms scan periods. The vmstat counters are read just before the loop
 * and at its end, while nothing else runs in the guest (the harness
 * parent sleeps in waitpid(), node-0 pages of a single-threaded process
 * are never marked), and the VMA's own pte_updates in numa_vmas is printed
 * as a per-process cross-check.
 *
 * Pass: >= 95% of the pages on node 0 and counted in numa_pages_migrated,
 * and at most 1.2 hinting faults per migrated page. Stock 6.12.117: 8192
 * PTE updates and 8192 faults for 8192 pages; the 10-patch series: 16384
 * and 16384.
 *
 * Variants: mode 1 with the numab default filters, mode 1 with the legacy
 * filters (skipped on a kernel without the sysctls), mode 3.
 * Knobs: FIRST_FAULT_MAX_SEQ [20], FIRST_FAULT_MAX_SECONDS [120].
 */
#include <sched.h>

#include "../lib/numab_test.h"
#include "../lib/numab_work.h"
#include "numa_vmas_lib.h"
#include "kselftest_harness.h"

#define REGION_MB	32

FIXTURE(first_fault) {
	struct nt_tunables saved;
	struct nt_filters filters;
	char *buf;
	long pagesz, npages;
};

FIXTURE_VARIANT(first_fault) {
	int mode;
	int legacy;
};
FIXTURE_VARIANT_ADD(first_fault, mode1) { .mode = 1, .legacy = 0 };
FIXTURE_VARIANT_ADD(first_fault, mode1_legacy) { .mode = 1, .legacy = 1 };
FIXTURE_VARIANT_ADD(first_fault, mode3) { .mode = 3, .legacy = 0 };

/* Pin this process to the CPUs of node 0; 0, or why not. */
static const char *pin_node0(void)
{
	char buf[256], *p;
	cpu_set_t set;
	int lo, hi, n, cpu;

	if (nt_read("/sys/devices/system/node/node0/cpulist", buf, sizeof(buf)) <= 0)
		return "no /sys/devices/system/node/node0/cpulist";
	CPU_ZERO(&set);
	for (p = buf; *p && *p != '\n'; ) {
		n = sscanf(p, "%d-%d", &lo, &hi);
		if (n < 1)
			break;
		if (n == 1)
			hi = lo;
		for (cpu = lo; cpu <= hi && cpu < CPU_SETSIZE; cpu++)
			CPU_SET(cpu, &set);
		p += strcspn(p, ",\n");
		if (*p == ',')
			p++;
	}
	if (!CPU_COUNT(&set))
		return "node 0 has no CPU";
	if (sched_setaffinity(0, sizeof(set), &set))
		return "sched_setaffinity() to node 0's CPUs failed";
	return NULL;
}

FIXTURE_SETUP(first_fault)
{
	struct nt_tunables tun = {
		.mode = variant->mode, .scan_delay = 1000, .period_min = 100,
		.period_max = 100, .scan_size = 256,
	};
	struct nt_placement pl;
	const char *why;
	int t0, t1;

	memset(&self->saved, -1, sizeof(self->saved));
	self->filters.pid = -1;
	self->buf = MAP_FAILED;
	if (access(NUMAB_DEBUGFS, F_OK))
		SKIP(return, "no " NUMAB_DEBUGFS " (needs DEBUG_FS and SCHED_DEBUG)");
	if (nt_scan_seq() < 0)
		SKIP(return, "no mm->numa_scan_seq in /proc/self/sched");
	t0 = nt_node_tier(0);
	t1 = nt_node_tier(1);
	if (t0 < 0 || t0 != t1)
		SKIP(return, "nodes 0 and 1 are not in one memory tier (tiers %d and %d): run on the flat topology",
		     t0, t1);
	why = pin_node0();
	if (why)
		SKIP(return, "%s", why);
	if (nt_filters_apply(variant->legacy, &self->filters))
		SKIP(return, "no kernel.numa_balancing_filter_* sysctls (kernel without the numab series)");
	nt_tunables_save(&self->saved);
	ASSERT_EQ(nt_tunables_set(&tun), 0);

	self->pagesz = getpagesize();
	self->npages = REGION_MB * NW_MB / self->pagesz;
	self->buf = nw_map_on_node(REGION_MB * NW_MB, 1);
	ASSERT_NE(self->buf, MAP_FAILED);
	ASSERT_EQ(nt_placement(self->buf, self->npages, self->pagesz, &pl), 0);
	ASSERT_EQ(pl.node[1], self->npages) {
		TH_LOG("the region is not on node 1: node0 %ld node1 %ld other %ld",
		       pl.node[0], pl.node[1], pl.other);
	}
}

FIXTURE_TEARDOWN(first_fault)
{
	if (self->buf != MAP_FAILED)
		munmap(self->buf, REGION_MB * NW_MB);
	nt_tunables_set(&self->saved);
	nt_filters_set(&self->filters);
}

static void one_fault_per_page(struct __test_metadata *_metadata,
			       FIXTURE_DATA(first_fault) *self,
			       const FIXTURE_VARIANT(first_fault) *variant)
{
	long max_seq = nw_env_long("FIRST_FAULT_MAX_SEQ", 20);
	double max_s = nw_env_long("FIRST_FAULT_MAX_SECONDS", 120);
	long want = self->npages * 95 / 100, i, seq, seq0, last_seq = -1;
	long seq_first = -1, seq_placed = -1;
	struct nw_vmstat v0, v1, d;
	struct nt_placement pl = { 0 };
	long long vma_ptes = -1;
	volatile char sink = 0;
	double t, t0, next_sample = 0;

	nw_vmstat_read(&v0);
	seq0 = nt_scan_seq();
	t0 = nt_now();
	for (;;) {
		for (i = 0; i < self->npages; i++)
			sink += ((volatile char *)self->buf)[i * self->pagesz];
		t = nt_now();
		if (t < next_sample)
			continue;
		next_sample = t + 0.25;
		ASSERT_EQ(nt_placement(self->buf, self->npages, self->pagesz, &pl), 0);
		seq = nt_scan_seq();
		nw_vmstat_read(&v1);
		nw_vmstat_delta(&v0, &v1, &d);
		if (seq_first < 0 && d.hint_faults > 0)
			seq_first = seq - seq0;
		if (seq != last_seq)
			TH_LOG("seq +%3ld %6.1f s: node0 %5ld node1 %5ld | numa_pte_updates +%lld numa_hint_faults +%lld (local +%lld) numa_pages_migrated +%lld",
			       seq - seq0, t - t0, pl.node[0], pl.node[1],
			       d.pte_updates, d.hint_faults, d.hint_faults_local,
			       d.pages_migrated);
		last_seq = seq;
		if (seq_placed < 0 && pl.node[0] >= want)
			seq_placed = seq - seq0;
		if (pl.node[0] == self->npages || seq - seq0 > max_seq ||
		    t - t0 > max_s)
			break;
	}
	nw_vmstat_read(&v1);
	nw_vmstat_delta(&v0, &v1, &d);
	vma_ptes = nv_vma_key_ll(0, self->buf, "pte_updates", -1);
	(void)sink;
	TH_LOG("RESULT first_fault mode %d %s: %ld pages, node0 %ld node1 %ld after %ld scan sequences (%.1f s; first hinting fault at seq +%ld, >=95%% on node0 at seq +%ld)",
	       variant->mode, variant->legacy ? "legacy" : "numab", self->npages,
	       pl.node[0], pl.node[1], seq - seq0, t - t0, seq_first, seq_placed);
	TH_LOG("RESULT raw: numa_pte_updates %lld numa_hint_faults %lld numa_hint_faults_local %lld numa_pages_migrated %lld pgpromote_success %lld; numa_vmas pte_updates of the region %lld; per migrated page: %.2f faults, %.2f PTE updates",
	       d.pte_updates, d.hint_faults, d.hint_faults_local,
	       d.pages_migrated, d.promote_success, vma_ptes,
	       d.pages_migrated ? (double)d.hint_faults / d.pages_migrated : 0.0,
	       d.pages_migrated ? (double)d.pte_updates / d.pages_migrated : 0.0);
	ASSERT_GE(pl.node[0], want) {
		TH_LOG("only %ld/%ld pages on node 0 after %ld sequences",
		       pl.node[0], self->npages, seq - seq0);
	}
	ASSERT_GE(d.pages_migrated, want);
	/* one hinting fault per page, as on stock (1.2 allows for retries) */
	ASSERT_LE(d.hint_faults * 5, d.pages_migrated * 6) {
		TH_LOG("%lld hinting faults for %lld migrated pages: a never-faulted folio did not migrate at its first fault",
		       d.hint_faults, d.pages_migrated);
	}
}

/*
 * The harness's wrapper keeps its 'child' across setjmp()/longjmp() (an
 * ASSERT in the test process): built with -O2 GCC may keep it in a
 * register and warns (-Wclobbered); at -O0 it lives in memory.
 */
#pragma GCC push_options
#pragma GCC optimize("O0")
TEST_F_TIMEOUT(first_fault, one_fault_per_page, 300)
{
	one_fault_per_page(_metadata, self, variant);
}
#pragma GCC pop_options

TEST_HARNESS_MAIN
