// SPDX-License-Identifier: GPL-2.0
/*
 * A VMA scan that uses up the pass's budget exactly at the VMA's end.
 *
 * task_numa_work() scans at most scan_size_mb of pages with PTE updates
 * per pass, in chunks aligned to 2 MiB; when the budget runs out it jumps
 * to the end of the pass and the next pass resumes at the scan offset. On
 * stock 6.12 that jump skips what follows a VMA's last chunk: when the
 * budget runs out in the chunk that ends at vm_end, the VMA is scanned to
 * its end but its prev_scan_seq is not set to the current sequence. The
 * PID filter's get_nr_threads() fallback (vma_is_accessed()) then still
 * counts from an old sequence and admits the VMA at every later sequence,
 * and in the series the promotion-only bookkeeping and the numa_vmas
 * counters of that scan are lost too.
 *
 * The test makes that happen at every scan of one VMA: scan_size_mb 2 and
 * V, a 2 MiB-aligned 2 MiB anonymous VMA (no THP). Whatever budget a pass
 * has left when it reaches V (at most 2 MiB), V's only chunk ends at
 * vm_end and uses it up, as long as V has PTEs to update. Nobody reads or
 * writes V: the main thread (the scanning one) empties it with
 * MADV_DONTNEED and fills it again with MADV_POPULATE_WRITE in a loop,
 * which takes no NUMA hinting fault, so V is PID-inactive for every
 * thread; a sleeping second thread makes mm_users 2 (a single-threaded
 * task's scanner leaves pages on its own node alone) and
 * get_nr_threads() 2. Mode 1, scan periods of 100 ms.
 *
 * After a warm-up (V's scan delay and its two unconditional sequences),
 * sched_skip_vma_numa events of V are counted over 16 scan sequences.
 * Pass: V is reported pid_inactive in at least half of them (its scans
 * are recorded, so the fallback admits it at most every third sequence;
 * the forced-scan retry may still scan it after the skip). Stock 6.12:
 * never (the fallback admits V at every sequence). On a kernel with
 * /proc/<pid>/numa_vmas also: V's completed scans (scans=) grow by at
 * least 8 and its prev_seq is at most one behind the mm's sequence.
 */
#include "../lib/numab_test.h"
#include "../lib/numab_work.h"
#include "numa_vmas_lib.h"
#include "kselftest_harness.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define V_SIZE		(2 * NW_MB)
#define SEQS		16
#define WARM_SEQS	4
#define MAX_S		60.0

FIXTURE(budget_end) {
	struct nt_tunables saved;
	struct nt_filters filters;
	struct nw_sleepers sleepers;
	int have_sleepers;
	char *map, *v;
	int tracing;
};

FIXTURE_SETUP(budget_end)
{
	struct nt_tunables tun = {
		.mode = 1, .scan_delay = 200, .period_min = 100,
		.period_max = 100, .scan_size = V_SIZE / NW_MB,
	};
	uintptr_t a;

	self->map = MAP_FAILED;
	self->have_sleepers = 0;
	self->tracing = 0;
	/* before anything is changed: a SKIP in setup runs no teardown */
	if (access(NW_SKIP_EVENT "/enable", W_OK))
		SKIP(return, "no sched_skip_vma_numa event in tracefs");
	NW_SCAN_SETUP(self, &tun);

	/* V: 2 MiB aligned, with unmapped gaps of at least 2 MiB around it */
	self->map = mmap(NULL, 4 * V_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(self->map, MAP_FAILED);
	a = ((uintptr_t)self->map + 2 * V_SIZE - 1) & ~(uintptr_t)(V_SIZE - 1);
	if (a - (uintptr_t)self->map < V_SIZE)
		a += V_SIZE;
	self->v = (char *)a;
	ASSERT_EQ(munmap(self->map, self->v - self->map), 0);
	ASSERT_EQ(munmap(self->v + V_SIZE, self->map + 4 * V_SIZE - (self->v + V_SIZE)), 0);
	self->map = self->v;
	/* VM_NOHUGEPAGE: no THP, and no merge with a neighbour */
	ASSERT_EQ(madvise(self->v, V_SIZE, MADV_NOHUGEPAGE), 0);
	ASSERT_EQ(madvise(self->v, V_SIZE, MADV_POPULATE_WRITE), 0);
	ASSERT_EQ(nw_sleepers_start(&self->sleepers, 1), 0);
	self->have_sleepers = 1;
}

FIXTURE_TEARDOWN(budget_end)
{
	if (self->tracing)
		nw_trace_vma_stop();
	if (self->have_sleepers)
		nw_sleepers_stop(&self->sleepers);
	if (self->map != MAP_FAILED)
		munmap(self->map, V_SIZE);
	nt_tunables_set(&self->saved);
	nt_filters_set(&self->filters);
}

/* Empty V and fill it again until N more scan sequences passed; seqs seen */
static long churn(char *v, long n, double max_s)
{
	long seq0 = nt_scan_seq(), seq = seq0;
	double t0 = nt_now();

	while (seq - seq0 < n && nt_now() - t0 < max_s) {
		if (madvise(v, V_SIZE, MADV_DONTNEED) ||
		    madvise(v, V_SIZE, MADV_POPULATE_WRITE))
			return -1;
		seq = nt_scan_seq();
	}
	return seq - seq0;
}

struct v_state {
	long long scans, prev_seq, skip_pid;
	long mm_seq;
	int have;
};

static void v_state(char *v, struct v_state *s)
{
	char line[1024];

	memset(s, 0, sizeof(*s));
	s->mm_seq = nt_scan_seq();
	if (nv_vma_line(0, v, line, sizeof(line)))
		return;
	s->have = 1;
	s->scans = nv_key_ll(line, "scans", 0);
	s->prev_seq = nv_key_ll(line, "prev_seq", -1);
	s->skip_pid = nv_key_ll(line, "skip_pid", 0);
}

/* Count " reason=pid_inactive" among the recorded events */
static long count_reason(const char *reason)
{
	char line[512], want[64];
	long n = 0;
	FILE *f = fopen(NW_TRACEFS "/trace", "r");

	if (!f)
		return -1;
	snprintf(want, sizeof(want), " reason=%s", reason);
	while (fgets(line, sizeof(line), f)) {
		char *r = strstr(line, want);

		if (line[0] != '#' && r && (r[strlen(want)] == '\n' ||
					    r[strlen(want)] == ' ' || !r[strlen(want)]))
			n++;
	}
	fclose(f);
	return n;
}

TEST_F_TIMEOUT(budget_end, pid_fallback, 120)
{
	struct v_state s0, s1;
	char reasons[512];
	long seqs, pid_inactive;
	double t0;

	/* V's scan delay (200 ms), then past its two unconditional sequences */
	usleep(300000);
	seqs = churn(self->v, WARM_SEQS, MAX_S);
	ASSERT_GE(seqs, WARM_SEQS) TH_LOG("warm-up: %ld scan sequences in %.0f s", seqs, MAX_S);

	ASSERT_EQ(nw_trace_vma_start(self->v), 0);
	self->tracing = 1;
	v_state(self->v, &s0);
	t0 = nt_now();
	seqs = churn(self->v, SEQS, MAX_S);
	v_state(self->v, &s1);
	nw_trace_vma_stop();
	self->tracing = 0;
	pid_inactive = count_reason("pid_inactive");
	nw_trace_vma_reasons(reasons, sizeof(reasons));
	TH_LOG("RESULT scan_budget_end: V %p (2 MiB, scan_size_mb 2), %ld scan sequences in %.1f s: sched_skip_vma_numa of V: %s",
	       self->v, seqs, nt_now() - t0, reasons);
	if (s1.have)
		TH_LOG("numa_vmas of V: scans %lld -> %lld, skip_pid %lld -> %lld, prev_seq %lld (mm scan_seq %ld)",
		       s0.scans, s1.scans, s0.skip_pid, s1.skip_pid, s1.prev_seq, s1.mm_seq);
	else
		TH_LOG("no /proc/self/numa_vmas: the trace events only");
	ASSERT_GE(seqs, SEQS);
	EXPECT_GE(pid_inactive, SEQS / 2) {
		TH_LOG("V was reported pid_inactive in %ld of %ld sequences: its scans, which end with the pass's budget, were not recorded",
		       pid_inactive, seqs);
	}
	if (s1.have) {
		EXPECT_GE(s1.scans - s0.scans, SEQS / 2)
			TH_LOG("V's completed scans were not counted");
		EXPECT_GE(s1.prev_seq, s1.mm_seq - 1)
			TH_LOG("V's prev_seq %lld is behind the mm's sequence %ld",
			       s1.prev_seq, s1.mm_seq);
	}
}

TEST_HARNESS_MAIN
