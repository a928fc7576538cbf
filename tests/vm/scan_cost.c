// SPDX-License-Identifier: GPL-2.0
/*
 * What the scanner costs once everything is back on the top tier.
 *
 * On stock 6.12 the promotions of a demotion wave double the scan period
 * of the task that took them, up to task_scan_max(), and nothing brings
 * it down: once the memory is back on DRAM the scanner runs at that long
 * period, cheap by accident. With the numab series promotions halve it
 * toward the minimum instead, so the scanner keeps its pace: it must
 * cost no more than the same task at its start, when the period is the
 * minimum too (task_scan_start()), with everything on DRAM as now.
 *
 * A single-threaded process keeps 64 MiB of its own memory hot in
 * memory-tiering mode (scan_period_min_ms 1000, scan_period_max_ms
 * 16000: one scan window, a pass is a window).
 *   start: from its start, all of it on node 0, for MEASURE_CPU_S of CPU
 *          time: scan sequences, hence pages walked, and the time in
 *          task_numa_work() (function profiler; the process's system time
 *          without it), per second of CPU time;
 *   history: HISTORY rounds of a demotion wave (all of it moved to node
 *          1, touched until FAST_PCT is back on node 0);
 *   after: all of it on node 0 again, measured as at the start.
 * Variant numab: "after" walks at most 1.25 times the pages of "start"
 * per second of CPU, plus one sequence (measured spread below). Variants
 * slowdown and legacy (stock's rule): reported; "after" walks fewer pages
 * than "start" (the doubled period), the differential half of the check.
 */
#include "../lib/numab_test.h"
#include "../lib/numab_work.h"
#include "kselftest_harness.h"

#define AREA_MB		64
#define PERIOD_MIN_MS	1000
#define PERIOD_MAX_MS	16000
#define MEASURE_CPU_S	8.0
#define HISTORY		3
#define FAST_PCT	90
#define ROUND_CPU_S	40.0
#define AFTER_RATIO	1.25

FIXTURE(cost) {
	struct nt_tunables saved;
	struct nt_filters filters;
	char *buf;
	int legacy;
};

NW_PACE_VARIANTS(cost);

FIXTURE_SETUP(cost)
{
	struct nt_tunables tun = {
		.mode = 2, .scan_delay = 1000, .period_min = PERIOD_MIN_MS,
		.period_max = PERIOD_MAX_MS, .scan_size = 256,
	};

	self->buf = MAP_FAILED;
	NW_PACE_SETUP(self, variant, &tun);
	self->buf = nw_map_on_node((size_t)AREA_MB * NW_MB, 0);
	ASSERT_NE(self->buf, MAP_FAILED);
}

FIXTURE_TEARDOWN(cost)
{
	if (self->buf != MAP_FAILED)
		munmap(self->buf, (size_t)AREA_MB * NW_MB);
	nt_tunables_set(&self->saved);
	nt_filters_set(&self->filters);
}

struct phase {
	double cpu;		/* CPU seconds measured */
	long seqs;		/* scan sequences completed */
	long long pte_updates;	/* numa_pte_updates, system-wide */
	struct nw_scan_cpu scan;
};

/* Touch the area for MEASURE_CPU_S of CPU time and measure the scanner. */
static void measure(char *buf, long npages, long pagesz, struct phase *ph)
{
	double c0 = nt_cpu_now();
	long s0 = nt_scan_seq();
	long long u0 = nt_vmstat("numa_pte_updates");

	nw_scan_cpu_start(&ph->scan);
	while (nt_cpu_now() - c0 < MEASURE_CPU_S)
		nw_touch_pages(buf, npages, pagesz);
	nw_scan_cpu_stop(&ph->scan);
	ph->cpu = nt_cpu_now() - c0;
	ph->seqs = nt_scan_seq() - s0;
	ph->pte_updates = nt_vmstat("numa_pte_updates") - u0;
}

/* HISTORY demotion waves; returns the round (from 1) not back, or 0 */
static int history(char *buf, long npages, long pagesz)
{
	struct nt_placement pl;
	int r;

	for (r = 0; r < HISTORY; r++) {
		double c0;

		if (nt_move_all(buf, npages, pagesz, 1) < 0)
			return r + 1;
		c0 = nt_cpu_now();
		do {
			nw_touch_pages(buf, npages, pagesz);
			if (nt_placement(buf, npages, pagesz, &pl))
				return r + 1;
		} while (pl.node[0] * 100 < npages * FAST_PCT &&
			 nt_cpu_now() - c0 <= ROUND_CPU_S);
		if (pl.node[0] * 100 < npages * FAST_PCT)
			return r + 1;
	}
	return 0;
}

static void describe(const char *name, const struct phase *ph, long npages,
		     char *out, size_t size)
{
	double ms = ph->scan.profiler ? ph->scan.scan_ms : ph->scan.stime_ms;

	snprintf(out, size, "%s: %ld sequences in %.1f s of CPU, %.0f pages walked and %.2f ms in %s per CPU second, %lld PTE updates",
		 name, ph->seqs, ph->cpu, ph->seqs * (double)npages / ph->cpu,
		 ms / ph->cpu, ph->scan.profiler ? "task_numa_work()" : "system time",
		 ph->pte_updates);
}

TEST_F_TIMEOUT(cost, after_history, 600)
{
	long pagesz = getpagesize(), npages = (long)AREA_MB * NW_MB / pagesz;
	struct phase start, after;
	char a[256], b[256];
	int ret;

	measure(self->buf, npages, pagesz, &start);
	ret = history(self->buf, npages, pagesz);
	measure(self->buf, npages, pagesz, &after);
	describe("start", &start, npages, a, sizeof(a));
	describe("after", &after, npages, b, sizeof(b));
	TH_LOG("RESULT scan_cost %s%s: %s; after %d demotion waves%s, %s (scan_period_min_ms %d, max %d)",
	       nw_pace_name(variant), nw_pace_forced(self, variant), a, HISTORY,
	       ret ? " (one not back)" : "", b, PERIOD_MIN_MS, PERIOD_MAX_MS);
	ASSERT_GT(start.seqs, 1) {
		TH_LOG("the process did not scan at its start: nothing measured");
	}
	if (variant->slowdown) {
		EXPECT_LT(after.seqs / after.cpu, start.seqs / start.cpu) {
			TH_LOG("promo_slowdown=1: the scanner was not slower after promotions");
		}
		return;
	}
	ASSERT_EQ(ret, 0) {
		TH_LOG("demotion wave %d not %d%% back within %.0f s of CPU time",
		       ret, FAST_PCT, ROUND_CPU_S);
	}
	EXPECT_LE(after.seqs / after.cpu,
		  AFTER_RATIO * start.seqs / start.cpu + 1 / after.cpu) {
		TH_LOG("the scanner walks more after promotions than at the task's start");
	}
}

TEST_HARNESS_MAIN
