// SPDX-License-Identifier: GPL-2.0
/*
 * In memory-tiering mode, promotions lengthen the scan period of the task
 * that faulted on them.
 *
 * From the code of 6.12, not traced: a hinting fault on a lower-tier
 * folio in tiering mode is private (the folio's cpupid field holds its
 * scan time, so last_cpupid is "none", a first access) and not local
 * (the folio was on another node: no TNF_FAULT_LOCAL). When it promotes
 * the folio, do_numa_page() passes the node it went to, a top-tier node,
 * to task_numa_fault(), which leaves out only faults on lower-tier nodes,
 * so the fault is counted. At a later fault in a new scan sequence,
 * task_numa_placement() calls update_task_scan_period(), which doubles
 * the period, up to task_scan_max() (scan_period_max_ms over the task's
 * 256 MiB scan windows), when the faults since its last call were
 * neither local nor shared. In mode 2 no counted fault is either:
 * top-tier folios are not marked. So the period doubles at each
 * sequence with a promotion, and never comes down (only a task moved to
 * another node resets it, update_scan_period()). Memory demoted later
 * waits up to a full pass at that period for its next marking.
 *
 * The test: a single-threaded process touches 64 MiB of its own memory,
 * with debugfs scan_period_min_ms 1000 and scan_period_max_ms 8000
 * (one scan window, so task_scan_max() is 8000 ms). It samples
 * next_scan_ms of its mm line in /proc/self/numa_vmas (the series): the
 * time until the mm's next scan window may start, which the scanning
 * thread (here the only one) sets to its period when it scans or its
 * period doubles; a sample comes up to one pass over the area (about
 * 0.3 s under TCG) after that.
 *   A, the baseline: all of it on node 0 (fast) for 8 s of CPU time. Its
 *      largest sample must stay under 1.5 s: nothing is promoted, so
 *      nothing may lengthen the period.
 *   B: every 1 s of CPU time, 8 MiB of it moved to node 1 (slow), so that
 *      each scan sequence promotes some. Pass: the largest sample
 *      reaches 4 s within 40 s of CPU time, and within 4 scan sequences:
 *      doubling got there in 3 in each run here, and growth by 30% a
 *      sequence (the other branch of update_task_scan_period() for
 *      private faults) would need 6.
 */
#include "../lib/numab_test.h"
#include "../lib/numab_work.h"
#include "kselftest_harness.h"

#define AREA_MB		64
#define SLICE_MB	8
#define PERIOD_MIN_MS	1000
#define PERIOD_MAX_MS	8000
#define A_CPU_S		8.0
#define B_CPU_S		40.0
#define A_LIMIT_MS	1500
#define B_TARGET_MS	4000
#define B_MAX_SEQS	4

FIXTURE(period) {
	struct nt_tunables saved;
	struct nt_filters filters;
	char *buf;
};

FIXTURE_SETUP(period)
{
	struct nt_tunables tun = {
		.mode = 2, .scan_delay = 1000, .period_min = PERIOD_MIN_MS,
		.period_max = PERIOD_MAX_MS, .scan_size = 256,
	};

	self->buf = MAP_FAILED;
	NW_TIERING_SETUP(self, 0, &tun);
	if (access("/proc/self/numa_vmas", R_OK))
		SKIP(return, "no /proc/self/numa_vmas (next_scan_ms needs the numab series)");
	self->buf = nw_map_on_node((size_t)AREA_MB * NW_MB, 0);
	ASSERT_NE(self->buf, MAP_FAILED);
}

FIXTURE_TEARDOWN(period)
{
	if (self->buf != MAP_FAILED)
		munmap(self->buf, (size_t)AREA_MB * NW_MB);
	nt_tunables_set(&self->saved);
	nt_filters_set(&self->filters);
}

/*
 * Touch the area until the process has run UNTIL s of CPU time; every
 * MOVE_EVERY s of it (0: never) move the next SLICE_MB to node 1 first.
 * Returns the largest next_scan_ms sampled, stopping early once it
 * reaches STOP_MS.
 */
static long long run(char *buf, double until, double move_every, long long stop_ms,
		     int *moves)
{
	long pagesz = getpagesize(), npages = (long)AREA_MB * NW_MB / pagesz;
	long slice = (long)SLICE_MB * NW_MB / pagesz, next_slice = 0;
	long long best = LLONG_MIN;
	double next_move = nt_cpu_now();

	while (nt_cpu_now() < until && best < stop_ms) {
		long long ms;
		long i;

		if (move_every > 0 && nt_cpu_now() >= next_move) {
			if (nt_move_strided(buf, next_slice, 1, slice, pagesz, 1) >= 0)
				(*moves)++;
			next_slice = (next_slice + slice) % npages;
			next_move += move_every;
		}
		for (i = 0; i < npages; i++)
			((volatile char *)buf)[i * pagesz]++;
		ms = nt_next_scan_ms(0);
		if (ms > best)
			best = ms;
	}
	return best;
}

TEST_F_TIMEOUT(period, promotions_lengthen_it, 240)
{
	long long a_ms, b_ms;
	long seq0, seq_a, seq_b;
	struct nw_vmstat v0, v1, dv;
	double t0;
	int moves = 0;

	seq0 = nt_scan_seq();
	t0 = nt_cpu_now();
	a_ms = run(self->buf, t0 + A_CPU_S, 0, LLONG_MAX, &moves);
	seq_a = nt_scan_seq();
	nw_vmstat_read(&v0);
	b_ms = run(self->buf, nt_cpu_now() + B_CPU_S, 1.0, B_TARGET_MS, &moves);
	seq_b = nt_scan_seq();
	nw_vmstat_read(&v1);
	nw_vmstat_delta(&v0, &v1, &dv);
	TH_LOG("RESULT tiering_scan_period: without promotions the longest next_scan_ms was %lld over %ld scan sequences; with %d moves of %d MiB to node 1 (%lld pages promoted) it reached %lld ms over %ld sequences (scan_period_max_ms %d)",
	       a_ms, seq_a - seq0, moves, SLICE_MB, (long long)dv.promote_success, b_ms,
	       seq_b - seq_a, PERIOD_MAX_MS);
	ASSERT_GT(seq_a - seq0, 1) {
		TH_LOG("the process did not scan in phase A: nothing measured");
	}
	EXPECT_LT(a_ms, A_LIMIT_MS) {
		TH_LOG("the scan period grew without promotions");
	}
	EXPECT_GT(dv.promote_success, 0);
	EXPECT_GE(b_ms, B_TARGET_MS) {
		TH_LOG("promotions did not lengthen the scan period to %d ms", B_TARGET_MS);
	}
	EXPECT_LE(seq_b - seq_a, B_MAX_SEQS) {
		TH_LOG("the period took %ld scan sequences to reach %d ms: it did not double",
		       seq_b - seq_a, B_TARGET_MS);
	}
}

TEST_HARNESS_MAIN
