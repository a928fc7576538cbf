// SPDX-License-Identifier: GPL-2.0
/*
 * Promotion on the testbed, unpatched kernel: with numa_balancing=2
 * (memory tiering) and a short scan delay/period, a 64 MiB anonymous
 * buffer moved to the slow node 1 and then touched in a loop comes back to
 * node 0. On a topology where node 1 is not in a lower tier the same
 * buffer stays put, although the scanner runs.
 *
 * Bounds are in scan sequences (mm->numa_scan_seq) as well as guest
 * seconds: TCG guests run at very different speeds.
 */
#include "../lib/numab_test.h"
#include "kselftest_harness.h"

#define BUF_MB		64
#define MAX_SEQ		60	/* scan sequences allowed for promotion */
#define MAX_SECONDS	150	/* and guest seconds, whichever comes first */
#define FLAT_SEQ	20	/* sequences to watch nothing happen */

FIXTURE(promo) {
	struct nt_tunables saved;
	char *buf;
	long npages, pagesz;
};

FIXTURE_SETUP(promo)
{
	struct nt_tunables fast = {
		.mode = 2, .scan_delay = 100, .period_min = 100,
		.period_max = 100, .scan_size = 256,
	};
	struct nt_placement pl;

	if (access(NUMAB_DEBUGFS, F_OK))
		SKIP(return, "no %s (needs DEBUG_FS and SCHED_DEBUG)", NUMAB_DEBUGFS);
	nt_tunables_save(&self->saved);
	ASSERT_EQ(nt_tunables_set(&fast), 0);

	self->pagesz = sysconf(_SC_PAGESIZE);
	self->npages = (BUF_MB << 20) / self->pagesz;
	self->buf = mmap(NULL, BUF_MB << 20, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(self->buf, MAP_FAILED);
	/* base pages, so that counts are in pages and THP stays out of it */
	ASSERT_EQ(madvise(self->buf, BUF_MB << 20, MADV_NOHUGEPAGE), 0);
	memset(self->buf, 1, BUF_MB << 20);
	ASSERT_EQ(nt_move_all(self->buf, self->npages, self->pagesz, 1), 0);
	ASSERT_EQ(nt_placement(self->buf, self->npages, self->pagesz, &pl), 0);
	TH_LOG("after move_pages: node0 %ld node1 %ld other %ld",
	       pl.node[0], pl.node[1], pl.other);
	ASSERT_EQ(pl.node[1], self->npages);
}

FIXTURE_TEARDOWN(promo)
{
	if (self->buf && self->buf != MAP_FAILED)
		munmap(self->buf, BUF_MB << 20);
	nt_tunables_set(&self->saved);
}

/* Touch every page of the buffer once. */
static void touch(char *buf, long npages, long pagesz)
{
	long i;

	for (i = 0; i < npages; i++)
		((volatile char *)buf)[i * pagesz]++;
}

struct progress {
	struct nt_placement pl;
	long seq0, seq;
	double t0, t;
	long long promoted0, promoted;
};

/*
 * Touch the buffer until at least WANT pages are on node 0 or the bounds
 * (MAX_SEQ sequences / MAX_SECONDS, or exactly SEQ_LIMIT sequences when
 * nonzero) are reached.
 */
static int run(char *buf, long npages, long pagesz, long want,
	       long seq_limit, struct progress *p)
{
	double next = 0;
	int ret;

	p->seq0 = nt_scan_seq();
	p->t0 = nt_now();
	p->promoted0 = nt_vmstat("pgpromote_success");
	for (;;) {
		touch(buf, npages, pagesz);
		p->t = nt_now();
		if (p->t < next)
			continue;
		next = p->t + 0.25;
		ret = nt_placement(buf, npages, pagesz, &p->pl);
		if (ret)
			return ret;
		p->seq = nt_scan_seq();
		p->promoted = nt_vmstat("pgpromote_success");
		if (seq_limit) {
			if (p->seq - p->seq0 >= seq_limit || p->t - p->t0 > MAX_SECONDS)
				return 0;
		} else if (p->pl.node[0] >= want || p->seq - p->seq0 > MAX_SEQ ||
			   p->t - p->t0 > MAX_SECONDS) {
			return 0;
		}
	}
}

TEST_F_TIMEOUT(promo, promotes, 240)
{
	long want = self->npages * 95 / 100;
	struct progress p;

	ASSERT_EQ(run(self->buf, self->npages, self->pagesz, want, 0, &p), 0);
	TH_LOG("node0 %ld/%ld pages after %ld scan sequences, %.1f s; pgpromote_success +%lld",
	       p.pl.node[0], self->npages, p.seq - p.seq0, p.t - p.t0,
	       p.promoted - p.promoted0);
	ASSERT_GE(p.pl.node[0], want);
	ASSERT_LE(p.seq - p.seq0, MAX_SEQ);
	/* numa_maps, what a user would look at, agrees */
	ASSERT_GE(nt_numa_maps_node(self->buf, 0), want);
	/* the pages came back through NUMA-balancing promotion */
	ASSERT_GE(p.promoted - p.promoted0, want);
}

TEST_F_TIMEOUT(promo, no_promotion, 240)
{
	struct progress p;

	ASSERT_EQ(run(self->buf, self->npages, self->pagesz, 0, FLAT_SEQ, &p), 0);
	TH_LOG("node0 %ld/%ld pages after %ld scan sequences, %.1f s; pgpromote_success +%lld",
	       p.pl.node[0], self->npages, p.seq - p.seq0, p.t - p.t0,
	       p.promoted - p.promoted0);
	/* the scanner did run, so "nothing moved" means something */
	ASSERT_GE(p.seq - p.seq0, FLAT_SEQ);
	ASSERT_LT(p.pl.node[0], self->npages / 20);
	ASSERT_EQ(nt_numa_maps_node(self->buf, 1), self->npages);
	ASSERT_EQ(p.promoted - p.promoted0, 0);
}

TEST_HARNESS_MAIN
