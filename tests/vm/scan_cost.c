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
 * Variant numab: "after" walks the area (full and promotion-only scans,
 * from numa_vmas; sequences without it) at most 1.25 times as often as
 * "start" per second of CPU, plus one, and spends at most TIME_RATIO
 * times its task_numa_work() time per second. Measured in five runs: 7
 * walks at the start and 8 after in each; 0.95 to 1.98 ms a second at
 * the start, 1.02 to 1.50 after (the largest ratio of any after to any
 * start, 1.58, under TIME_RATIO). Variants slowdown and legacy (stock's
 * rule): reported; "after" runs fewer sequences than "start" (the
 * doubled period: 1 against 8, 0.15 against 1.04 ms a second), the
 * differential half of the check.
 */
#include "../lib/numab_test.h"
#include "../lib/numab_work.h"
#include "numa_vmas_lib.h"
#include "kselftest_harness.h"

#define AREA_MB		64
#define PERIOD_MIN_MS	1000
#define PERIOD_MAX_MS	16000
#define MEASURE_CPU_S	8.0
#define HISTORY		3
#define FAST_PCT	90
#define ROUND_CPU_S	40.0
#define AFTER_RATIO	1.25
#define TIME_RATIO	2.0

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
	long long walks;	/* full and promotion-only scans of the area, -1 unknown */
	long long pte_updates;	/* numa_pte_updates, system-wide */
	struct nw_scan_cpu scan;
};

/*
 * Complete scans of the area, full and promotion-only, from its numa_vmas
 * line (the series); -1 without it. A sequence does not always walk it:
 * a promotion-only scan that found nothing backs off.
 */
static long long walks(const char *buf)
{
	char line[1024];

	if (nv_vma_line(0, buf, line, sizeof(line)))
		return -1;
	return nv_key_ll(line, "scans", 0) + nv_key_ll(line, "promo_scans", 0);
}

/* Touch the area for MEASURE_CPU_S of CPU time and measure the scanner. */
static void measure(char *buf, long npages, long pagesz, struct phase *ph)
{
	double c0 = nt_cpu_now();
	long s0 = nt_scan_seq();
	long long u0 = nt_vmstat("numa_pte_updates"), w0 = walks(buf), w1;

	nw_scan_cpu_start(&ph->scan);
	while (nt_cpu_now() - c0 < MEASURE_CPU_S)
		nw_touch_pages(buf, npages, pagesz);
	nw_scan_cpu_stop(&ph->scan);
	ph->cpu = nt_cpu_now() - c0;
	ph->seqs = nt_scan_seq() - s0;
	ph->pte_updates = nt_vmstat("numa_pte_updates") - u0;
	w1 = walks(buf);
	ph->walks = w0 >= 0 && w1 >= 0 ? w1 - w0 : -1;
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

static double scan_ms(const struct phase *ph)
{
	return ph->scan.profiler ? ph->scan.scan_ms : ph->scan.stime_ms;
}

static void describe(const char *name, const struct phase *ph, long npages,
		     char *out, size_t size)
{
	char w[64] = "walks unknown (no numa_vmas)";

	if (ph->walks >= 0)
		snprintf(w, sizeof(w), "%lld walks of it, %.0f pages walked", ph->walks,
			 ph->walks * (double)npages / ph->cpu);
	snprintf(out, size, "%s: %ld sequences in %.1f s of CPU, %s and %.2f ms in %s per CPU second, %lld PTE updates",
		 name, ph->seqs, ph->cpu, w, scan_ms(ph) / ph->cpu,
		 ph->scan.profiler ? "task_numa_work()" : "system time", ph->pte_updates);
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
	/* walks where numa_vmas counts them, else sequences */
	if (start.walks >= 0 && after.walks >= 0) {
		EXPECT_LE(after.walks / after.cpu,
			  AFTER_RATIO * start.walks / start.cpu + 1 / after.cpu) {
			TH_LOG("the scanner walks the area more often after promotions than at the task's start");
		}
	} else {
		EXPECT_LE(after.seqs / after.cpu,
			  AFTER_RATIO * start.seqs / start.cpu + 1 / after.cpu) {
			TH_LOG("the scanner runs more sequences after promotions than at the task's start");
		}
	}
	if (start.scan.profiler)
		EXPECT_LE(scan_ms(&after) / after.cpu, TIME_RATIO * scan_ms(&start) / start.cpu) {
			TH_LOG("task_numa_work() takes more time after promotions than at the task's start");
		}
}

TEST_HARNESS_MAIN
