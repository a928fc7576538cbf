// SPDX-License-Identifier: GPL-2.0
/*
 * Multi-pass promotion-only scan (issue 3, test 4).
 *
 * Property of the patched kernel: a VMA that the PID filter rejects is
 * scanned promotion-only (only folios on a lower tier are made PROT_NONE),
 * and when that scan takes several passes (the VMA is larger than what one
 * task_numa_work() call covers) it stays promotion-only until it is
 * complete. The v1 posting reset its per-VMA state at every pass: from
 * the second pass on, vma_is_accessed() admitted the VMA through "complete
 * a scan that has already started" (mm->numa_scan_offset > vm_start) and
 * the rest of it was scanned normally, marking its top-tier pages too in
 * mode 3 (NORMAL|TIERING).
 *
 * What userspace can observe without per-VMA state in /proc (issue 4):
 *  - a top-tier page of the VMA was made PROT_NONE <=> the next access to
 *    it takes a NUMA hinting fault, and a hinting fault is a minor fault
 *    of the thread that takes it (getrusage(RUSAGE_THREAD).ru_minflt);
 *  - the slow-tier pages of the VMA come back to node 0 (move_pages(2)
 *    query): the VMA was scanned at all.
 * Global counters cannot tell the VMA apart (the scanning thread's own
 * memory is marked normally in mode 3), but a dedicated prober thread that
 * accesses only this VMA can: its minor faults while reading the VMA's
 * node-0 pages are exactly the hinting faults on them.
 *
 * Shape (the strand_pid recipe, with mode 3):
 *  - V: a 256 MiB anonymous VMA on node 0, at a lower address than
 *    B: a 512 MiB memfd mapping on node 1 that the main thread (the only
 *    thread running long enough to scan: a thread needs scan_delay_ms of
 *    CPU time before its first scan) keeps faulting in with ~200 random
 *    touches per second, busy-waiting in between; 128 sleeping threads
 *    keep the get_nr_threads() horizon ~130 sequences away;
 *  - V is left alone for WARM_SEQ sequences (past its two unconditional
 *    ones), then every 16th page of it (16 MiB) is moved to node 1. With
 *    scan_size_mb 16 and a slow page in every 16 MiB chunk, a
 *    promotion-only scan of V updates PTEs in every chunk and so covers
 *    one chunk per pass: 16 passes per V scan (and 2 passes, by the
 *    virtual-space budget, once the slow pages are gone);
 *  - the main thread never touches V, so the PID filter rejects V for it;
 *    V is accessed by short-lived prober threads instead, one every
 *    PROBE_S seconds: each reads every node-0 page of V once (counting
 *    its minor faults) and then the node-1 pages twice (those hinting
 *    faults promote them: node 0 is "free enough"). A prober lives far
 *    less than the 1 s of CPU time a thread needs before it scans, and one
 *    whose PID hashes to the main thread's bit in pids_active does nothing.
 *    A first prober after the move clears what the warm-up marked: V's
 *    first two sequences are normal mode-3 scans, so it must see faults on
 *    V's node-0 pages (a control that the prober detects marked pages;
 *    stock: 61440 of 61440).
 *
 * Assertions over a window of MIN_SEQ..MAX_SEQ scan sequences:
 *  1. no prober took a fault on a node-0 page of V (no top-tier page of a
 *     promotion-only-scanned VMA was marked, over all its passes);
 *  2. >= 95% of V's node-1 pages are on node 0 within MAX_SEQ sequences.
 * Stock 6.12: (1) holds trivially and (2) fails: V is never scanned after
 * its first two sequences (pid_inactive), until the horizon.
 * Knobs: MULTIPASS_MAX_SEQ [20], MULTIPASS_MIN_SEQ [10],
 * MULTIPASS_MAX_SECONDS [420], MULTIPASS_THREADS [128].
 */
#include "../lib/numab_test.h"
#include "../lib/numab_work.h"
#include "kselftest_harness.h"

#define V_MB		256
#define B_MB		512
#define STRIDE		16	/* every STRIDE-th page of V goes to node 1 */
#define WARM_SEQ	4
#define WARM_MIN_S	3.0
#define WARM_MAX_S	300.0
#define PROBE_S		0.25

FIXTURE(multipass) {
	struct nt_tunables saved;
	struct nt_filters filters;
	struct nw_sleepers sleepers;
	char *V, *B;
	int memfd;
	long pagesz, v_pages, b_pages, slow_n;
	long seq_created;
	double t_created;
	uint64_t rng;
	double next_b;
	long b_touches;
	unsigned int main_bit;
};

struct probe {
	char *V;
	long v_pages, pagesz;
	unsigned int main_bit;
	int skipped;
	long fast_faults, slow_faults;
};

static void *probe_fn(void *arg)
{
	struct probe *p = arg;
	volatile char *v = p->V;
	long i, f0, f1, f2;
	char sink = 0;
	int r;

	if (nw_pid_bit(nw_gettid()) == p->main_bit) {
		p->skipped = 1;
		return NULL;
	}
	nw_thread_minflt();		/* fault in getrusage's stack first */
	f0 = nw_thread_minflt();
	for (i = 0; i < p->v_pages; i++)
		if (i % STRIDE)
			sink += v[i * p->pagesz];
	f1 = nw_thread_minflt();
	for (r = 0; r < 2; r++)
		for (i = 0; i < p->v_pages; i += STRIDE)
			sink += v[i * p->pagesz];
	f2 = nw_thread_minflt();
	p->fast_faults = f1 - f0;
	p->slow_faults = f2 - f1;
	(void)sink;
	return NULL;
}

static int probe(FIXTURE_DATA(multipass) *self, struct probe *p)
{
	pthread_t t;
	int ret;

	memset(p, 0, sizeof(*p));
	p->V = self->V;
	p->v_pages = self->v_pages;
	p->pagesz = self->pagesz;
	p->main_bit = self->main_bit;
	ret = pthread_create(&t, NULL, probe_fn, p);
	if (ret)
		return -ret;
	return -pthread_join(t, NULL);
}

/*
 * numab: default filters (fails on stock). legacy: the filter sysctls set
 * to the stock behaviour on a patched kernel, which must strand V's slow
 * pages again: before and after in one boot.
 */
FIXTURE_VARIANT(multipass) {
	int legacy;
};
FIXTURE_VARIANT_ADD(multipass, numab) { .legacy = 0 };
FIXTURE_VARIANT_ADD(multipass, legacy) { .legacy = 1 };

FIXTURE_SETUP(multipass)
{
	struct nt_tunables tun = {
		.mode = 3, .scan_delay = 1000, .period_min = 100,
		.period_max = 100, .scan_size = 16,
	};
	struct nt_placement pl;
	long nthreads, b_node1;

	self->memfd = -1;
	NW_TIERING_SETUP(self, variant->legacy, &tun);
	if (nw_thread_minflt() < 0)
		SKIP(return, "no getrusage(RUSAGE_THREAD)");

	self->pagesz = getpagesize();
	self->v_pages = (V_MB << 20) / self->pagesz;
	self->b_pages = (B_MB << 20) / self->pagesz;
	if (self->v_pages <= 0 || self->b_pages <= 0)
		SKIP(return, "page size %ld", self->pagesz);
	self->slow_n = (self->v_pages + STRIDE - 1) / STRIDE;
	self->rng = 0x9e3779b97f4a7c15ULL ^ getpid();
	self->main_bit = nw_pid_bit(nw_gettid());

	/* V below B: [V 256M][gap 32M][B 512M on node 1] */
	ASSERT_EQ(nw_map_front_and_b(V_MB, B_MB, self->pagesz, &self->V,
				     &self->B, &self->memfd), 0);
	ASSERT_EQ(nt_placement(self->B, self->b_pages, self->pagesz, &pl), 0);
	ASSERT_GE(pl.node[1], self->b_pages * 99 / 100);
	b_node1 = pl.node[1];

	memset(self->V, 1, V_MB * NW_MB);
	ASSERT_EQ(nt_placement(self->V, self->v_pages, self->pagesz, &pl), 0);
	ASSERT_EQ(pl.node[0], self->v_pages);
	self->seq_created = nt_scan_seq();
	self->t_created = nt_now();

	nthreads = nw_env_long("MULTIPASS_THREADS", 128);
	ASSERT_EQ(nw_sleepers_start(&self->sleepers, nthreads), 0);
	TH_LOG("V %p (%ld pages) below B %p (%ld pages on node1), %ld sleeping threads, scan seq %ld",
	       self->V, self->v_pages, self->B, b_node1, nthreads,
	       self->seq_created);
}

FIXTURE_TEARDOWN(multipass)
{
	nw_trace_vma_stop();
	nw_sleepers_stop(&self->sleepers);
	nw_unmap_front_and_b(self->V, V_MB, self->B, B_MB, self->memfd);
	nt_tunables_set(&self->saved);
	nt_filters_set(&self->filters);
}

/* The main thread's work until UNTIL: random B touches, busy in between. */
static void main_work(FIXTURE_DATA(multipass) *self, double until)
{
	double now;

	while ((now = nt_now()) < until) {
		if (self->next_b == 0 || now - self->next_b > 1.0)
			self->next_b = now;
		while (self->next_b <= now) {
			long pg = nw_rand(&self->rng) % self->b_pages;

			((volatile char *)self->B)[pg * self->pagesz]++;
			self->b_touches++;
			self->next_b += 1.0 / 200;
		}
	}
}

TEST_F_TIMEOUT(multipass, promotion_only_until_complete, 850)
{
	long max_seq = nw_env_long("MULTIPASS_MAX_SEQ", 20);
	long min_seq = nw_env_long("MULTIPASS_MIN_SEQ", 10);
	double max_s = nw_env_long("MULTIPASS_MAX_SECONDS", 420);
	long want = self->slow_n * 95 / 100, seq, seq0, last_seq = -1;
	long promoted_seq = -1, probes = 0, skipped = 0;
	long fast_faults = 0, slow_faults = 0;
	struct nw_vmstat v0, v1, d;
	struct nt_placement pl = { 0 };
	static char reasons[512];
	struct probe p;
	double t, t0;
	int traced;

	/* V on node 0, untouched, past its two unconditional sequences */
	do {
		main_work(self, nt_now() + 0.1);
		seq = nt_scan_seq();
		t = nt_now();
	} while ((seq < self->seq_created + WARM_SEQ ||
		  t - self->t_created < WARM_MIN_S) &&
		 t - self->t_created < WARM_MAX_S);
	TH_LOG("warm-up: %ld scan sequences, %.1f s", seq - self->seq_created,
	       t - self->t_created);
	ASSERT_GE(seq, self->seq_created + WARM_SEQ);

	/* every STRIDE-th page of V to node 1 */
	ASSERT_EQ(nt_move_strided(self->V, 0, STRIDE, self->slow_n, self->pagesz, 1), 0);
	ASSERT_EQ(nt_placement_strided(self->V, 0, STRIDE, self->slow_n, self->pagesz, &pl), 0);
	ASSERT_EQ(pl.node[1], self->slow_n);
	/* clear what the warm-up marked (V's first two sequences are full scans) */
	ASSERT_EQ(probe(self, &p), 0);
	if (p.skipped)	/* PID hash collision with the main thread: again */
		ASSERT_EQ(probe(self, &p), 0);
	TH_LOG("%ld of V's pages moved to node1; clean-up prober: %ld faults on node0 pages, %ld on node1 pages",
	       self->slow_n, p.fast_faults, p.slow_faults);
	/*
	 * Control: V's unconditional first sequences were normal mode-3
	 * scans, so its node-0 pages were marked and the prober must have
	 * seen that; otherwise assertion 1 below would prove nothing.
	 */
	ASSERT_GT(p.fast_faults, 0) {
		TH_LOG("the prober saw no fault on V's node-0 pages after V's full warm-up scans: it cannot detect marked pages");
	}

	traced = nw_trace_vma_start(self->V) == 0;
	nw_vmstat_read(&v0);
	seq0 = nt_scan_seq();
	t0 = nt_now();
	for (;;) {
		main_work(self, nt_now() + PROBE_S);
		ASSERT_EQ(probe(self, &p), 0);
		probes++;
		skipped += p.skipped;
		fast_faults += p.fast_faults;
		slow_faults += p.slow_faults;
		ASSERT_EQ(nt_placement_strided(self->V, 0, STRIDE, self->slow_n,
					       self->pagesz, &pl), 0);
		seq = nt_scan_seq();
		t = nt_now();
		if (seq != last_seq) {
			nw_vmstat_read(&v1);
			nw_vmstat_delta(&v0, &v1, &d);
			TH_LOG("seq +%3ld %6.1f s: V's slow pages node0 %5ld node1 %5ld | prober faults: node0 pages %ld, node1 pages %ld | promote +%lld hint_faults +%lld (local +%lld) pte_updates +%lld",
			       seq - seq0, t - t0, pl.node[0], pl.node[1],
			       fast_faults, slow_faults, d.promote_success,
			       d.hint_faults, d.hint_faults_local, d.pte_updates);
		}
		last_seq = seq;
		if (promoted_seq < 0 && pl.node[0] >= want)
			promoted_seq = seq - seq0;
		if ((promoted_seq >= 0 && seq - seq0 >= min_seq) ||
		    seq - seq0 > max_seq || t - t0 > max_s)
			break;
	}
	nw_vmstat_read(&v1);
	nw_vmstat_delta(&v0, &v1, &d);
	if (traced) {
		nw_trace_vma_reasons(reasons, sizeof(reasons));
		nw_trace_vma_stop();
		TH_LOG("sched_skip_vma_numa events for V in the window: %s", reasons);
	}
	TH_LOG("RESULT multipass: V's slow pages %s (promoted at seq %+ld); window %ld scan sequences, %.1f s, %ld probers (%ld skipped): faults on V's node0 pages %ld, on its node1 pages %ld; node0 %ld/%ld node1 %ld; pgpromote_success +%lld numa_hint_faults +%lld (local +%lld) numa_pte_updates +%lld",
	       promoted_seq >= 0 ? "PROMOTED" : "STRANDED", promoted_seq,
	       seq - seq0, t - t0, probes, skipped, fast_faults, slow_faults,
	       pl.node[0], self->slow_n, pl.node[1], d.promote_success,
	       d.hint_faults, d.hint_faults_local, d.pte_updates);
	if (variant->legacy) {
		/* the stock scanner, reproduced: V is not scanned, stays put */
		ASSERT_EQ(fast_faults, 0);
		ASSERT_LT(pl.node[0], want);
		return;
	}
	/* 1: no top-tier page of V was marked while V was scanned for promotion */
	ASSERT_EQ(fast_faults, 0) {
		TH_LOG("%ld hinting faults on node-0 pages of a VMA the scanning thread never touches",
		       fast_faults);
	}
	/* 2: V was scanned (promotion-only) at all */
	ASSERT_GE(pl.node[0], want) {
		TH_LOG("V's node-1 pages stranded: %ld/%ld on node0 after %ld sequences",
		       pl.node[0], self->slow_n, seq - seq0);
	}
	ASSERT_LE(promoted_seq, max_seq);
	ASSERT_GE(probes - skipped, 1);
}

TEST_HARNESS_MAIN
