// SPDX-License-Identifier: GPL-2.0
/*
 * Multi-pass promotion-only scan.
 *
 * Property of the patched kernel: a VMA that the PID filter rejects is
 * scanned promotion-only (only folios on a lower tier are made PROT_NONE),
 * and when that scan takes several passes (the VMA is larger than what one
 * task_numa_work() call covers) it stays promotion-only until it is
 * complete. The v1 posting reset its per-VMA state at every pass: from
 * the second pass on, vma_is_accessed() admitted the VMA through "complete
 * a scan that has already started" (mm->numa_scan_offset > vm_start) and
 * the rest of it was scanned normally, marking its top-tier pages too in
 * mode 3 (NORMAL|TIERING), and completing as a full scan.
 *
 * What is observed, directly, in /proc/self/numa_vmas and by probers:
 *  - V's line: scans (complete full scans) and prev_seq (the sequence of
 *    the last one) must not change while V is PID-inactive, promo_scans
 *    must grow, and a promotion-only scan must be seen in progress across
 *    passes (promo_only=1 with the mm's scan_offset inside V);
 *  - a top-tier page of V made PROT_NONE <=> the next access to it takes
 *    a NUMA hinting fault, a minor fault of the thread that takes it
 *    (getrusage(RUSAGE_THREAD)): a short-lived prober thread that reads
 *    V's node-0 pages counts those;
 *  - control, that the prober does detect marked top-tier pages: W, a
 *    second VMA on node 0 that the scanning thread keeps PID-active (it
 *    touches W's first page all the time) and so fully scans in mode 3;
 *    the prober reads W's other pages and must see faults;
 *  - V's slow-tier pages come back to node 0 (move_pages(2)).
 *
 * Shape (the strand_pid recipe, with mode 3):
 *  - V: 64 MiB of private anonymous memory (no THP) on node 0, at a lower
 *    address than B: a 128 MiB memfd mapping on node 1 that the main
 *    thread (the only thread running long enough to scan: a thread needs
 *    scan_delay_ms of CPU time before its first scan) keeps faulting in
 *    with ~200 random touches per second. B takes the scan budget of every
 *    pass that reaches it, so that no pass reaches the end of the address
 *    space with budget left after skipping V (that would force a full
 *    scan of the first skipped VMA, V, as stock does);
 *  - W: a 4 MiB memfd mapping on node 0 whose first page the main thread
 *    touches all the time, busy-waiting in between; it never touches V.
 *    W's first page starts on node 1 (and is put back there during the
 *    warm-up until W is PID-active): a VMA whose scans so far were
 *    promotion-only marks nothing on node 0, and the main thread's
 *    hinting fault on that page is what makes W PID-active;
 *  - then 128 sleeping threads keep the get_nr_threads() horizon ~130
 *    sequences away. On a kernel without the fork fix the first
 *    pthread_create() zeroes numa_scan_seq, and V is admitted
 *    unconditionally until the sequence is 2 past V's start_seq again;
 *  - warm-up, read in numa_vmas: until V has scan state, its scan delay
 *    has been over for 3 sequences, the sequence is 3 past V's start_seq
 *    (its two unconditional sequences, full scans, are over and complete)
 *    and 3 past V's last full scan (prev_seq), and B's and W's PID bits
 *    hold the main thread's (a stock scanner that finds V and B
 *    PID-inactive at once, as when their scan delays end together,
 *    forces full scans);
 *  - every 16th page of V goes to node 1. With scan_size_mb 4 and a slow
 *    page in every 4 MiB chunk, a promotion-only scan of V updates PTEs in
 *    every chunk and covers 4 MiB per pass: 16 passes per V scan (2, by
 *    the virtual-space budget, once the slow pages are gone). V is 64 MiB,
 *    a multiple of 4: the last pass of each V scan uses up its budget
 *    exactly at V's end, and the scan must still be recorded as complete
 *    (promo_scans; on stock 6.12 and before the fix of that case, it was
 *    not, so V was 62 MiB);
 *  - a first prober reads all of V and W (clears what the warm-up
 *    marked); then one prober every PROBE_S seconds over a window of
 *    MIN_SEQ..MAX_SEQ sequences: V's node-0 pages once, its node-1 pages
 *    twice (those hinting faults promote them: node 0 is "free enough"),
 *    W's pages but the first once. A prober whose PID hashes to the main
 *    thread's bit in pids_active does nothing.
 *
 * Assertions, numab defaults: in the window V's scans and prev_seq do not
 * change, no prober fault on V's node-0 pages, V's promo_scans grows, a
 * promotion-only scan of V is seen between two of its passes, >= 95% of
 * V's slow pages on node 0 within MAX_SEQ sequences, and the probers took
 * faults on W. Legacy filters (stock behaviour): V is not scanned (scans,
 * prev_seq, promo_scans unchanged, no fault on its node-0 pages), its slow
 * pages stay, the probers took faults on W. Measured on the series (v3):
 * V's slow pages promoted at sequence +2 to +4 in 5 runs; MAX_SEQ is 10,
 * 2.5 times that, and every window lasts MIN_SEQ (10) sequences.
 * Knobs: MULTIPASS_MAX_SEQ [10], MULTIPASS_MIN_SEQ [10],
 * MULTIPASS_MAX_SECONDS [300], MULTIPASS_THREADS [128].
 */
#include "../lib/numab_test.h"
#include "../lib/numab_work.h"
#include "numa_vmas_lib.h"
#include "kselftest_harness.h"

#define V_MB		64
#define B_MB		128
#define W_MB		4
#define SCAN_MB		4
#define STRIDE		16	/* every STRIDE-th page of V goes to node 1 */
#define WARM_SEQ	3	/* sequences past V's start_seq and prev_seq */
#define WARM_MAX_S	120.0
#define PROBE_S		0.25
#define SAMPLE_S	0.02	/* numa_vmas samples in the window */

/* V's numa_vmas state, and the mm's scan offset */
struct vstate {
	int ok;				/* V has scan state */
	long long start_seq, prev_seq, scans, promo_scans, promo_only;
	long long next_scan_ms;
	long long seq, offset;		/* the mm line */
	int b_active, w_active;		/* the main thread's bit in their pids */
};

/* Whether the line of the VMA at ADDR in numa_vmas text ALL has BIT in pids= */
static int pid_active(const char *all, const void *addr, unsigned int bit)
{
	char prefix[32], line[1024];
	unsigned long long p0, p1 = 0;
	const char *v;
	char *end;

	snprintf(prefix, sizeof(prefix), "%08lx-", (unsigned long)addr);
	if (nv_find_line(all, prefix, line, sizeof(line)))
		return 0;
	v = nv_key(line, "pids");
	if (!v)
		return 0;
	p0 = strtoull(v, &end, 0);
	if (*end == ',')
		p1 = strtoull(end + 1, NULL, 0);
	return !!((p0 | p1) & (1ULL << bit));
}

FIXTURE(multipass) {
	struct nt_tunables saved;
	struct nt_filters filters;
	struct nw_sleepers sleepers;
	char *V, *W, *B;
	int memfd, b_memfd;
	long pagesz, v_pages, w_pages, b_pages, slow_n;
	long nthreads;		/* sleeping threads */
	unsigned int main_bit;
	uint64_t rng;
	double next_b;
	long b_touches;
	/* numa_vmas samples taken in main_work() while sampling is set */
	int sampling;
	struct vstate s0, first_change, last;
	long samples, changed, mid_promo, sample_errors;
};

struct probe {
	char *V, *W;
	long v_pages, w_pages, pagesz;
	unsigned int main_bit;
	int skipped;
	long fast_faults, slow_faults, w_faults;
};

static void *probe_fn(void *arg)
{
	struct probe *p = arg;
	volatile char *v = p->V, *w = p->W;
	long i, f0, f1, f2, f3;
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
	for (i = 1; i < p->w_pages; i++)
		sink += w[i * p->pagesz];
	f3 = nw_thread_minflt();
	p->fast_faults = f1 - f0;
	p->slow_faults = f2 - f1;
	p->w_faults = f3 - f2;
	(void)sink;
	return NULL;
}

/* pages demoted by kswapd, direct reclaim and khugepaged */
static long long demoted(void)
{
	return nt_vmstat("pgdemote_kswapd") + nt_vmstat("pgdemote_direct") +
	       nt_vmstat("pgdemote_khugepaged");
}

static int probe(FIXTURE_DATA(multipass) *self, struct probe *p)
{
	pthread_t t;
	int ret;

	memset(p, 0, sizeof(*p));
	p->V = self->V;
	p->W = self->W;
	p->v_pages = self->v_pages;
	p->w_pages = self->w_pages;
	p->pagesz = self->pagesz;
	p->main_bit = self->main_bit;
	ret = pthread_create(&t, NULL, probe_fn, p);
	if (ret)
		return -ret;
	return -pthread_join(t, NULL);
}

static int read_vstate(FIXTURE_DATA(multipass) *self, struct vstate *s)
{
	char prefix[32], line[1024];
	char *all = nv_read_pid(0, 0);
	char state[8] = "";

	memset(s, 0, sizeof(*s));
	if (!all)
		return -1;
	if (nv_find_line(all, "mm ", line, sizeof(line))) {
		free(all);
		return -1;
	}
	s->seq = nv_key_ll(line, "scan_seq", -1);
	s->offset = nv_key_ll(line, "scan_offset", -1);
	s->b_active = pid_active(all, self->B, self->main_bit);
	s->w_active = pid_active(all, self->W, self->main_bit);
	snprintf(prefix, sizeof(prefix), "%08lx-", (unsigned long)self->V);
	if (nv_find_line(all, prefix, line, sizeof(line))) {
		free(all);
		return -1;
	}
	free(all);
	nv_key_word(line, "state", state, sizeof(state));
	s->ok = !strcmp(state, "ok");
	s->start_seq = nv_key_ll(line, "start_seq", -1);
	s->prev_seq = nv_key_ll(line, "prev_seq", -1);
	s->scans = nv_key_ll(line, "scans", -1);
	s->promo_scans = nv_key_ll(line, "promo_scans", -1);
	s->promo_only = nv_key_ll(line, "promo_only", -1);
	s->next_scan_ms = nv_key_ll(line, "next_scan_ms", 1);
	return 0;
}

/*
 * numab: default filters (fails on stock). legacy: the filter sysctls set
 * to the stock behaviour on a patched kernel, which must leave V alone:
 * before and after in one boot.
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
		.period_max = 100, .scan_size = SCAN_MB,
	};
	struct nt_placement pl;
	long nthreads, i;

	self->memfd = -1;
	self->b_memfd = -1;
	self->V = self->W = self->B = MAP_FAILED;
	NW_TIERING_SETUP(self, variant->legacy, &tun);
	if (nw_thread_minflt() < 0)
		SKIP(return, "no getrusage(RUSAGE_THREAD)");
	if (access("/proc/self/numa_vmas", R_OK))
		SKIP(return, "no /proc/self/numa_vmas: V's scan state cannot be observed");

	self->pagesz = getpagesize();
	self->v_pages = (V_MB << 20) / self->pagesz;
	self->w_pages = (W_MB << 20) / self->pagesz;
	self->b_pages = (B_MB << 20) / self->pagesz;
	if (self->v_pages <= 0 || self->w_pages <= 1 || self->b_pages <= 0)
		SKIP(return, "page size %ld", self->pagesz);
	self->slow_n = (self->v_pages + STRIDE - 1) / STRIDE;
	self->rng = 0x9e3779b97f4a7c15ULL ^ getpid();
	self->main_bit = nw_pid_bit(nw_gettid());

	/* V below B: [V 64M][gap 32M][B 128M on node 1] */
	ASSERT_EQ(nw_map_front_and_b(V_MB, B_MB, self->pagesz, &self->V,
				     &self->B, &self->b_memfd), 0);
	ASSERT_EQ(nt_placement(self->B, self->b_pages, self->pagesz, &pl), 0);
	ASSERT_GE(pl.node[1], self->b_pages * 99 / 100);
	memset(self->V, 1, V_MB * NW_MB);
	ASSERT_EQ(nt_placement(self->V, self->v_pages, self->pagesz, &pl), 0);
	ASSERT_EQ(pl.node[0], self->v_pages);

	/* W: a memfd mapping (never merged with V) on node 0 */
	self->memfd = memfd_create("numab-W", 0);
	ASSERT_GE(self->memfd, 0);
	ASSERT_EQ(ftruncate(self->memfd, W_MB * NW_MB), 0);
	self->W = mmap(NULL, W_MB * NW_MB, PROT_READ | PROT_WRITE, MAP_SHARED,
		       self->memfd, 0);
	ASSERT_NE(self->W, MAP_FAILED);
	/* W's first page on node 1, see main_work() */
	ASSERT_EQ(nw_bind_node(1), 0);
	self->W[0] = 1;
	ASSERT_EQ(nw_bind_node(0), 0);
	for (i = 1; i < self->w_pages; i++)
		self->W[i * self->pagesz] = 1;
	ASSERT_EQ(nw_bind_node(-1), 0);
	ASSERT_EQ(nt_placement(self->W, self->w_pages, self->pagesz, &pl), 0);
	ASSERT_EQ(pl.node[0], self->w_pages - 1);

	nthreads = nw_env_long("MULTIPASS_THREADS", 128);
	self->nthreads = nthreads;
	ASSERT_EQ(nw_sleepers_start(&self->sleepers, nthreads), 0);
	TH_LOG("V %p (%ld pages, node0) below B %p (%ld pages, node1), W %p (%ld pages, node0), %ld sleeping threads, scan seq %ld",
	       self->V, self->v_pages, self->B, self->b_pages, self->W,
	       self->w_pages, nthreads, nt_scan_seq());
}

FIXTURE_TEARDOWN(multipass)
{
	nw_trace_vma_stop();
	nw_sleepers_stop(&self->sleepers);
	nw_unmap_front_and_b(self->V, V_MB, self->B, B_MB, self->b_memfd);
	if (self->W != MAP_FAILED)
		munmap(self->W, W_MB * NW_MB);
	if (self->memfd >= 0)
		close(self->memfd);
	nt_tunables_set(&self->saved);
	nt_filters_set(&self->filters);
}

static int offset_in_v(FIXTURE_DATA(multipass) *self, const struct vstate *s)
{
	unsigned long off = (unsigned long)s->offset, v = (unsigned long)self->V;

	return off > v && off < v + V_MB * NW_MB;
}

/* One numa_vmas sample of the window: V fully scanned? promo-only mid-V? */
static void sample(FIXTURE_DATA(multipass) *self)
{
	struct vstate s;

	if (read_vstate(self, &s)) {
		self->sample_errors++;
		return;
	}
	self->samples++;
	if (s.scans != self->s0.scans || s.prev_seq != self->s0.prev_seq) {
		if (!self->changed)
			self->first_change = s;
		self->changed++;
	}
	if (s.promo_only == 1 && offset_in_v(self, &s))
		self->mid_promo++;
	self->last = s;
}

/*
 * The main thread's work until UNTIL: random B touches (~200/s), W's first
 * page touched all the time in between, and numa_vmas samples every
 * SAMPLE_S while self->sampling.
 */
static void main_work(FIXTURE_DATA(multipass) *self, double until)
{
	double now, next_sample = 0;
	int n;

	while ((now = nt_now()) < until) {
		if (self->next_b == 0 || now - self->next_b > 1.0)
			self->next_b = now;
		while (self->next_b <= now) {
			long pg = nw_rand(&self->rng) % self->b_pages;

			((volatile char *)self->B)[pg * self->pagesz]++;
			self->b_touches++;
			self->next_b += 1.0 / 200;
		}
		if (self->sampling && now >= next_sample) {
			sample(self);
			next_sample = now + SAMPLE_S;
		}
		for (n = 0; n < 100; n++)
			((volatile char *)self->W)[0]++;
	}
}

static void promotion_only_until_complete(struct __test_metadata *_metadata,
					  FIXTURE_DATA(multipass) *self,
					  const FIXTURE_VARIANT(multipass) *variant)
{
	long max_seq = nw_env_long("MULTIPASS_MAX_SEQ", 10);
	long min_seq = nw_env_long("MULTIPASS_MIN_SEQ", 10);
	double max_s = nw_env_long("MULTIPASS_MAX_SECONDS", 300);
	long want = self->slow_n * 95 / 100, seq, seq0, last_seq = -1;
	long promoted_seq = -1, probes = 0, skipped = 0, delay_seq = -1;
	long fast_faults = 0, slow_faults = 0, w_faults = 0;
	long long compact0, compact, migrate0, migrate, demote0, demote;
	struct nw_vmstat v0, v1, d;
	struct nt_placement pl = { 0 };
	static char reasons[512];
	struct vstate s;
	struct probe p;
	double t, t0, tw = nt_now(), next_w = 0;
	int traced;

	/*
	 * Warm-up: V's scan state, its delay over for WARM_SEQ sequences, its
	 * unconditional sequences over, its last full scan WARM_SEQ sequences
	 * old, and B PID-active. (A stock scanner that finds every large VMA
	 * PID-inactive, as when the scan delays of V and B end together,
	 * forces full scans of the first one it skipped until the main
	 * thread's hinting faults make B PID-active.) And the window must end
	 * before the get_nr_threads() fallback admits V to a full scan again
	 * (at prev_seq + nthreads + 2: the sleepers and the main thread): a
	 * slow warm-up waits for that scan and starts after it.
	 */
	for (;;) {
		main_work(self, nt_now() + 0.1);
		ASSERT_EQ(read_vstate(self, &s), 0);
		t = nt_now() - tw;
		if (delay_seq < 0 && s.ok && s.next_scan_ms < 0)
			delay_seq = s.seq;
		/* W's first page back to node 1 until W is PID-active */
		if (!s.w_active && nt_now() >= next_w) {
			nt_move_strided(self->W, 0, 1, 1, self->pagesz, 1);
			next_w = nt_now() + 0.5;
		}
		if ((delay_seq >= 0 && s.seq >= delay_seq + WARM_SEQ && s.b_active &&
		     s.w_active && s.seq >= s.start_seq + WARM_SEQ &&
		     s.seq >= s.prev_seq + WARM_SEQ &&
		     s.seq + max_seq < s.prev_seq + self->nthreads) || t > WARM_MAX_S)
			break;
	}
	TH_LOG("warm-up: %.1f s; seq %lld (V's delay over at %ld), B %sPID-active, W %sPID-active, V: start_seq %lld scans %lld prev_seq %lld promo_scans %lld promo_only %lld",
	       t, s.seq, delay_seq, s.b_active ? "" : "not ",
	       s.w_active ? "" : "not ", s.start_seq,
	       s.scans, s.prev_seq, s.promo_scans, s.promo_only);
	ASSERT_TRUE(s.ok) TH_LOG("V never got scan state in %.0f s", WARM_MAX_S);
	ASSERT_TRUE(s.b_active) TH_LOG("B, which the main thread touches, is not PID-active after %.0f s", WARM_MAX_S);
	ASSERT_TRUE(s.w_active) TH_LOG("W, which the main thread touches, is not PID-active after %.0f s", WARM_MAX_S);
	ASSERT_GE(s.seq, s.start_seq + WARM_SEQ);
	ASSERT_GE(s.seq, s.prev_seq + WARM_SEQ) {
		TH_LOG("V still gets full scans after %.0f s: last at seq %lld",
		       WARM_MAX_S, s.prev_seq);
	}
	ASSERT_LT(s.seq + max_seq, s.prev_seq + self->nthreads) {
		TH_LOG("the window would reach the get_nr_threads() fallback: seq %lld, V's last full scan at %lld",
		       s.seq, s.prev_seq);
	}

	/* every STRIDE-th page of V to node 1 */
	ASSERT_EQ(nt_move_strided(self->V, 0, STRIDE, self->slow_n, self->pagesz, 1), 0);
	ASSERT_EQ(nt_placement_strided(self->V, 0, STRIDE, self->slow_n, self->pagesz, &pl), 0);
	ASSERT_EQ(pl.node[1], self->slow_n);
	/* clear what the warm-up marked */
	ASSERT_EQ(probe(self, &p), 0);
	if (p.skipped)	/* PID hash collision with the main thread: again */
		ASSERT_EQ(probe(self, &p), 0);
	TH_LOG("%ld of V's pages moved to node1; clean-up prober: %ld faults on V's node0 pages, %ld on its node1 pages, %ld on W",
	       self->slow_n, p.fast_faults, p.slow_faults, p.w_faults);

	traced = nw_trace_vma_start(self->V) == 0;
	compact0 = nt_vmstat("compact_isolated");
	migrate0 = nt_vmstat("pgmigrate_success");
	demote0 = demoted();
	nw_vmstat_read(&v0);
	ASSERT_EQ(read_vstate(self, &self->s0), 0);
	self->last = self->s0;
	self->sampling = 1;
	seq0 = self->s0.seq;
	t0 = nt_now();
	for (;;) {
		main_work(self, nt_now() + PROBE_S);
		ASSERT_EQ(probe(self, &p), 0);
		probes++;
		skipped += p.skipped;
		fast_faults += p.fast_faults;
		slow_faults += p.slow_faults;
		w_faults += p.w_faults;
		ASSERT_EQ(nt_placement_strided(self->V, 0, STRIDE, self->slow_n,
					       self->pagesz, &pl), 0);
		s = self->last;
		seq = s.seq;
		t = nt_now();
		if (seq != last_seq) {
			nw_vmstat_read(&v1);
			nw_vmstat_delta(&v0, &v1, &d);
			TH_LOG("seq +%3ld %6.1f s: V's slow pages node0 %5ld node1 %5ld | V scans %lld prev_seq %lld promo_scans %lld; promo-only mid-V in %ld of %ld samples | prober faults: V node0 %ld, V node1 %ld, W %ld | promote +%lld pte_updates +%lld",
			       seq - seq0, t - t0, pl.node[0], pl.node[1],
			       s.scans, s.prev_seq, s.promo_scans,
			       self->mid_promo, self->samples, fast_faults,
			       slow_faults, w_faults, d.promote_success,
			       d.pte_updates);
		}
		last_seq = seq;
		if (promoted_seq < 0 && pl.node[0] >= want)
			promoted_seq = seq - seq0;
		if ((promoted_seq >= 0 || variant->legacy) && seq - seq0 >= min_seq)
			break;
		if (seq - seq0 > max_seq || t - t0 > max_s)
			break;
	}
	self->sampling = 0;
	s = self->last;
	nw_vmstat_read(&v1);
	nw_vmstat_delta(&v0, &v1, &d);
	compact = nt_vmstat("compact_isolated") - compact0;
	migrate = nt_vmstat("pgmigrate_success") - migrate0;
	demote = demoted() - demote0;
	if (traced) {
		nw_trace_vma_reasons(reasons, sizeof(reasons));
		nw_trace_vma_stop();
		TH_LOG("sched_skip_vma_numa events for V in the window: %s", reasons);
	}
	TH_LOG("RESULT multipass %s: V's slow pages %s (promoted at seq %+ld); window %ld scan sequences, %.1f s, %ld probers (%ld skipped): faults on V's node0 pages %ld, on its node1 pages %ld, on W %ld; V scans %lld -> %lld, prev_seq %lld -> %lld (changed in %ld of %ld samples), promo_scans %lld -> %lld, promotion-only scan of V seen between its passes in %ld samples; node0 %ld/%ld node1 %ld; pgpromote_success +%lld numa_hint_faults +%lld numa_pte_updates +%lld",
	       variant->legacy ? "legacy" : "numab",
	       promoted_seq >= 0 ? "PROMOTED" : "STRANDED", promoted_seq,
	       seq - seq0, t - t0, probes, skipped, fast_faults, slow_faults,
	       w_faults, self->s0.scans, s.scans, self->s0.prev_seq, s.prev_seq,
	       self->changed, self->samples, self->s0.promo_scans,
	       s.promo_scans, self->mid_promo, pl.node[0], self->slow_n,
	       pl.node[1], d.promote_success, d.hint_faults, d.pte_updates);
	ASSERT_GE(probes - skipped, 1);
	ASSERT_GT(self->samples, 0) TH_LOG("%ld numa_vmas samples failed", self->sample_errors);
	/* control: the prober detects top-tier pages marked by full scans */
	ASSERT_GT(w_faults, 0) {
		TH_LOG("no prober fault on W, which the scanning thread keeps PID-active: the probers cannot detect marked pages");
	}
	/* V is never fully scanned in the window, in either variant */
	EXPECT_EQ(self->changed, 0) {
		TH_LOG("V completed a full scan while PID-inactive: scans %lld -> %lld, prev_seq %lld -> %lld at seq %+lld",
		       self->s0.scans, self->first_change.scans, self->s0.prev_seq,
		       self->first_change.prev_seq, self->first_change.seq - seq0);
	}
	ASSERT_EQ(fast_faults, 0) {
		TH_LOG("%ld minor faults on node-0 pages of a VMA the scanning thread never touches: hinting faults, or a read of a page that compaction or demotion was moving (in the window: compact_isolated +%lld, pgdemote +%lld, pgmigrate_success +%lld, pgpromote_success +%lld)",
		       fast_faults, compact, demote, migrate, d.promote_success);
	}
	if (variant->legacy) {
		/* the stock scanner, reproduced: V is not scanned, stays put */
		ASSERT_EQ(s.promo_scans, self->s0.promo_scans);
		ASSERT_LT(pl.node[0], want);
		return;
	}
	/* V was scanned promotion-only, over several passes */
	ASSERT_GT(s.promo_scans, self->s0.promo_scans);
	ASSERT_GE(self->mid_promo, 1) {
		TH_LOG("no promotion-only scan of V seen between two of its passes: the test did not exercise a multi-pass scan");
	}
	ASSERT_GE(pl.node[0], want) {
		TH_LOG("V's node-1 pages stranded: %ld/%ld on node0 after %ld sequences",
		       pl.node[0], self->slow_n, seq - seq0);
	}
	ASSERT_LE(promoted_seq, max_seq);
}

/* -O0 wrapper: see first_fault.c (the harness's setjmp, -Wclobbered) */
#pragma GCC push_options
#pragma GCC optimize("O0")
TEST_F_TIMEOUT(multipass, promotion_only_until_complete, 600)
{
	promotion_only_until_complete(_metadata, self, variant);
}
#pragma GCC pop_options

TEST_HARNESS_MAIN
