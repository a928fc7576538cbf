// SPDX-License-Identifier: GPL-2.0
/*
 * A single-threaded process that forks must keep its own NUMA scan going.
 *
 * sched_fork() calls init_numa_balancing() before copy_mm(), while the
 * child's task still points at the parent's mm.  When that mm has one
 * user, init_numa_balancing() "initialises" it: numa_next_scan = now +
 * scan_delay, numa_scan_seq = 0.  So every fork(), vfork() or
 * posix_spawn() of a single-threaded process pushes the parent's next
 * scan scan_delay (1 s by default) into the future: a process that forks
 * more often than that is never scanned, and in memory-tiering mode its
 * memory on a lower tier is never promoted.
 *
 * The test: 16 MiB on node 1, touched in a loop by a single-threaded
 * process that forks (or vforks) a child that exits at once every 300 ms,
 * in mode 2 with scan_delay 1000 ms and 100 ms scan periods.  Pass: within
 * 20 s the scan sequence advances by 3 and at least 90% of the region is on
 * node 0.  Stock 6.12: no sequence, nothing promoted.
 */
#include <sys/wait.h>

#include "../lib/numab_test.h"
#include "../lib/numab_work.h"
#include "kselftest_harness.h"

#define REGION_MB	16
#define FORK_EVERY_S	0.3
#define WAIT_S		20.0

FIXTURE(fork) {
	struct nt_tunables saved;
	struct nt_filters filters;
	char *buf;
	long pagesz, npages;
};

FIXTURE_VARIANT(fork) {
	int use_vfork;
};
FIXTURE_VARIANT_ADD(fork, fork) { .use_vfork = 0 };
FIXTURE_VARIANT_ADD(fork, vfork) { .use_vfork = 1 };

FIXTURE_SETUP(fork)
{
	struct nt_tunables tun = {
		.mode = 2, .scan_delay = 1000, .period_min = 100,
		.period_max = 100, .scan_size = 256,
	};

	self->buf = MAP_FAILED;
	NW_TIERING_SETUP(self, 0, &tun);
	self->pagesz = sysconf(_SC_PAGESIZE);
	self->npages = REGION_MB * NW_MB / self->pagesz;
	self->buf = nw_map_on_node(REGION_MB * NW_MB, 1);
	ASSERT_NE(self->buf, MAP_FAILED);
}

FIXTURE_TEARDOWN(fork)
{
	if (self->buf != MAP_FAILED)
		munmap(self->buf, REGION_MB * NW_MB);
	nt_tunables_set(&self->saved);
	nt_filters_set(&self->filters);
}

/* a child that exits at once; 0 when it was reaped */
static int spawn_one(int use_vfork)
{
	pid_t c = use_vfork ? vfork() : fork();
	int status;

	if (c == 0)
		_exit(0);
	if (c < 0 || waitpid(c, &status, 0) != c)
		return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

TEST_F_TIMEOUT(fork, scanned_and_promoted, 120)
{
	long seq0 = nt_scan_seq(), seqs = 0, forks = 0, i;
	double t0 = nt_now(), next = t0 + FORK_EVERY_S;
	struct nt_placement pl = { 0 };

	ASSERT_GE(seq0, 0) TH_LOG("no mm->numa_scan_seq in /proc/self/sched");
	ASSERT_EQ(nt_placement(self->buf, self->npages, self->pagesz, &pl), 0);
	ASSERT_GE(pl.node[1], self->npages * 9 / 10) TH_LOG("the region is not on node 1");
	while (nt_now() - t0 < WAIT_S) {
		for (i = 0; i < self->npages; i++)
			((volatile char *)self->buf)[i * self->pagesz]++;
		if (nt_now() >= next) {
			ASSERT_EQ(spawn_one(variant->use_vfork), 0);
			forks++;
			next += FORK_EVERY_S;
		}
		seqs = nt_scan_seq() - seq0;
		ASSERT_EQ(nt_placement(self->buf, self->npages, self->pagesz, &pl), 0);
		if (seqs >= 3 && pl.node[0] >= self->npages * 9 / 10)
			break;
	}
	TH_LOG("%s every %.1f s: %ld children in %.1f s, scan sequences +%ld, node0 %ld/%ld pages",
	       variant->use_vfork ? "vfork" : "fork", FORK_EVERY_S, forks, nt_now() - t0,
	       seqs, pl.node[0], self->npages);
	EXPECT_GE(seqs, 3);
	EXPECT_GE(pl.node[0], self->npages * 9 / 10);
}

TEST_HARNESS_MAIN
