// SPDX-License-Identifier: GPL-2.0
/*
 * Read-only file stranding.
 *
 * task_numa_work() skips every file mapping that is readable but not
 * writable (reason shared_ro): they are assumed to be shared libraries,
 * cache-replicated and not worth a hinting fault. In memory-tiering mode
 * that also means page cache that sits on the slow tier is never promoted,
 * however hot: the patched kernel scans such mappings promotion-only.
 *
 * A 32 MiB file on tmpfs is written while this thread is bound to node 1,
 * so its page cache is on node 1; it is mapped PROT_READ, MAP_SHARED and
 * read in a loop with numa_balancing=2. Assertion: >= 95% of it on node 0
 * within MAX_SEQ scan sequences counted from the end of the new VMA's scan
 * delay (seconds cap as well). Stock 6.12: no
 * hinting fault at all, never promoted; the test fails.
 *
 * Environment knobs: ROFILE_MAX_SEQ [20], ROFILE_MAX_SECONDS [300],
 * ROFILE_NODE0_FREE_MB [0] (fill node 0 down to this much free memory so
 * promotion takes the hot-threshold path; 0 = no filler).
 * NUMAB_BENCH=1 adds a "BENCH p2 ..." metrics line for scripts/bench.
 */
#include "../lib/numab_test.h"
#include "../lib/numab_work.h"
#include "kselftest_harness.h"

#define FILE_MB		32
#define SCAN_DELAY_MS	1000
#define FILE_PATH	"/tmp/numab-rofile"
#define FILLER_PATH	"/tmp/numab-rofile-filler"

FIXTURE(rofile) {
	struct nt_tunables saved;
	struct nt_filters filters;
	char *map;
	int fd, filler;
	long pagesz, npages;
};

/*
 * numab: default filters, the file must be promoted (fails on stock).
 * legacy: the numa_balancing_filter_* sysctls set to the stock behaviour,
 * the file must stay stranded: before and after in one boot.
 */
FIXTURE_VARIANT(rofile) {
	int legacy;
};
FIXTURE_VARIANT_ADD(rofile, numab) { .legacy = 0 };
FIXTURE_VARIANT_ADD(rofile, legacy) { .legacy = 1 };

FIXTURE_SETUP(rofile)
{
	struct nt_tunables tun = {
		.mode = 2, .scan_delay = SCAN_DELAY_MS, .period_min = 100,
		.period_max = 100, .scan_size = 16,
	};
	struct nt_placement pl;
	long target_mb, free_mb, i;
	volatile char sink = 0;

	self->fd = -1;
	NW_TIERING_SETUP(self, variant->legacy, &tun);
	self->pagesz = getpagesize();
	self->npages = (FILE_MB << 20) / self->pagesz;

	target_mb = nw_env_long("ROFILE_NODE0_FREE_MB", 0);
	free_mb = nw_node_meminfo_kb(0, "MemFree") / 1024;
	if (target_mb > 0 && free_mb > target_mb) {
		ASSERT_EQ(nw_tmpfs_file_on(FILLER_PATH, (free_mb - target_mb) * NW_MB, 0), 0);
		self->filler = 1;
	}

	ASSERT_EQ(nw_tmpfs_file_on(FILE_PATH, FILE_MB * NW_MB, 1), 0);
	self->fd = open(FILE_PATH, O_RDONLY);
	ASSERT_GE(self->fd, 0);
	self->map = mmap(NULL, FILE_MB * NW_MB, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(self->map, MAP_FAILED);
	for (i = 0; i < self->npages; i++)
		sink += self->map[i * self->pagesz];
	if (self->npages <= 0)
		SKIP(return, "page size %ld", self->pagesz);
	ASSERT_EQ(nt_placement(self->map, self->npages, self->pagesz, &pl), 0);
	TH_LOG("%s: %ld pages mapped PROT_READ MAP_SHARED at %p: node0 %ld node1 %ld other %ld; node0 MemFree %ld MiB",
	       FILE_PATH, self->npages, self->map, pl.node[0], pl.node[1],
	       pl.other, nw_node_meminfo_kb(0, "MemFree") / 1024);
	ASSERT_GE(pl.node[1], self->npages * 99 / 100);
	(void)sink;
}

FIXTURE_TEARDOWN(rofile)
{
	nw_trace_vma_stop();
	if (self->map && self->map != MAP_FAILED)
		munmap(self->map, FILE_MB * NW_MB);
	if (self->fd >= 0)
		close(self->fd);
	unlink(FILE_PATH);
	if (self->filler)
		unlink(FILLER_PATH);
	nt_tunables_set(&self->saved);
	nt_filters_set(&self->filters);
}

TEST_F_TIMEOUT(rofile, promotion, 600)
{
	long max_seq = nw_env_long("ROFILE_MAX_SEQ", 20);
	double max_s = nw_env_long("ROFILE_MAX_SECONDS", 300);
	long want = self->npages * 95 / 100, i, seq, seq0, last_seq = -1;
	long promoted_seq = -1;
	double t, t0, next_sample = 0;
	struct nw_vmstat v0, v1, d;
	struct nt_placement pl = { 0 };
	volatile char sink = 0;
	static char reasons[512];
	static struct nw_opt_ctrs o0, o1;
	static char ctrs[512];
	int traced;

	traced = nw_trace_vma_start(self->map) == 0;
	nw_vmstat_read(&v0);
	nw_opt_ctrs_read(&o0);
	/*
	 * A new VMA is not scanned for scan_delay_ms after the scanner first
	 * sees it: the sequence bound starts once that is over.
	 */
	t0 = nt_now();
	do {
		for (i = 0; i < self->npages; i++)
			sink += self->map[i * self->pagesz];
		t = nt_now();
	} while (t - t0 < 1.5 * SCAN_DELAY_MS / 1000.0);
	ASSERT_EQ(nt_placement(self->map, self->npages, self->pagesz, &pl), 0);
	TH_LOG("after the %.1f s scan delay: file node0 %ld node1 %ld",
	       t - t0, pl.node[0], pl.node[1]);
	seq0 = nt_scan_seq();
	t0 = nt_now();
	for (;;) {
		for (i = 0; i < self->npages; i++)
			sink += self->map[i * self->pagesz];
		t = nt_now();
		if (t < next_sample)
			continue;
		next_sample = t + 0.25;
		ASSERT_EQ(nt_placement(self->map, self->npages, self->pagesz, &pl), 0);
		seq = nt_scan_seq();
		if (seq != last_seq) {
			nw_vmstat_read(&v1);
			nw_vmstat_delta(&v0, &v1, &d);
			TH_LOG("seq +%3ld %6.1f s: file node0 %5ld node1 %5ld | promote +%lld hint_faults +%lld pte_updates +%lld",
			       seq - seq0, t - t0, pl.node[0], pl.node[1],
			       d.promote_success, d.hint_faults, d.pte_updates);
		}
		last_seq = seq;
		if (pl.node[0] >= want) {
			promoted_seq = seq - seq0;
			break;
		}
		if (seq - seq0 > max_seq || t - t0 > max_s)
			break;
	}
	nw_vmstat_read(&v1);
	nw_vmstat_delta(&v0, &v1, &d);
	nw_opt_ctrs_read(&o1);
	nw_opt_ctrs_format(&o0, &o1, ctrs, sizeof(ctrs));
	if (traced) {
		nw_trace_vma_reasons(reasons, sizeof(reasons));
		nw_trace_vma_stop();
		TH_LOG("sched_skip_vma_numa events for the file mapping: %s", reasons);
	}
	TH_LOG("RESULT strand_rofile: %s after %ld scan sequences, %.1f s: file node0 %ld/%ld node1 %ld; pgpromote_success +%lld numa_hint_faults +%lld numa_pte_updates +%lld",
	       promoted_seq >= 0 ? "PROMOTED" : "STRANDED", seq - seq0, t - t0,
	       pl.node[0], self->npages, pl.node[1], d.promote_success,
	       d.hint_faults, d.pte_updates);
	nw_bench("p2 variant=%s reached=%d seqs=%ld seconds=%.1f max_seq=%ld fast=%ld slow=%ld total=%ld pgpromote_success=%lld numa_hint_faults=%lld numa_pte_updates=%lld%s",
		 variant->legacy ? "legacy" : "numab", promoted_seq >= 0,
		 seq - seq0, t - t0, max_seq, pl.node[0], pl.node[1],
		 self->npages, d.promote_success, d.hint_faults, d.pte_updates,
		 ctrs);
	(void)sink;
	if (variant->legacy) {
		/* the stock scanner, reproduced: never scanned, never promoted */
		ASSERT_LT(pl.node[0], self->npages / 20);
		ASSERT_GT(seq - seq0, max_seq);
		/* system-wide: other pages may be promoted meanwhile */
		ASSERT_LT(d.promote_success, self->npages / 20);
		return;
	}
	ASSERT_GE(pl.node[0], want) {
		TH_LOG("read-only file page cache stranded on node1: %ld/%ld on node0 after %ld sequences",
		       pl.node[0], self->npages, seq - seq0);
	}
	ASSERT_LE(promoted_seq, max_seq);
	ASSERT_GE(d.promote_success, want);
}

TEST_HARNESS_MAIN
