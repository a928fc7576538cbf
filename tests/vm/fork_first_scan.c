// SPDX-License-Identifier: GPL-2.0
/*
 * When does a forked child, one that does not exec (a pre-forked worker),
 * start being scanned?
 *
 * task_tick_numa() queues a task's first task_numa_work() once the task
 * has run for numa_scan_period, which init_numa_balancing() sets to the
 * scan delay at fork; the work then scans unless the mm's numa_next_scan
 * is still in the future, and an mm's numa_next_scan of 0 means "start
 * the scan delay now". Stock 6.12 gives the child's mm (a copy of the
 * parent's) fork time + scan delay, since init_numa_balancing() writes
 * that into the parent's mm just before copy_mm() (the parent's restart
 * that fork_scan checks). A version of the fork fix that gave every new
 * mm numa_next_scan = 0 instead made the child's first work only start
 * the delay: its first scan came one scan delay later than on stock.
 *
 * The test: the single-threaded test process forks a busy child (it only
 * touches 4 MiB and reads its own /proc/self/sched); the child reports
 * the CPU time and the time since fork at which its mm->numa_scan_seq
 * first moves (a scan sequence completes: the first pass covers its few
 * MiB). Default debugfs tunables but a 1000 ms scan delay (the default),
 * mode 1 (placement between nodes; the timing does not depend on the
 * mode). Three children, one after the other. Pass: each child's first
 * scan sequence completes before it has run for 1.5 scan delays.
 * Stock 6.12: about one scan delay (its first task_numa_work() scans);
 * numa_next_scan = 0 at fork: about two.
 */
#include <sys/wait.h>

#include "../lib/numab_test.h"
#include "../lib/numab_work.h"
#include "kselftest_harness.h"

#define CHILDREN	3
#define TOUCH_MB	4
#define SCAN_DELAY_MS	1000
#define LIMIT		1.5	/* scan delays of CPU time */
#define CHILD_MAX_S	10.0	/* a child gives up after this much CPU time */

struct first_scan {
	double cpu_s;		/* the child's CPU time at its first sequence */
	double wall_s;		/* seconds since fork */
	long seq0, seq;		/* mm->numa_scan_seq at start and then */
};

FIXTURE(fork_first) {
	struct nt_tunables saved;
	struct nt_filters filters;
};

FIXTURE_SETUP(fork_first)
{
	struct nt_tunables tun = {
		.mode = 1, .scan_delay = SCAN_DELAY_MS, .period_min = 1000,
		.period_max = 60000, .scan_size = 256,
	};

	/* the numab defaults where the sysctls exist; stock has none */
	NW_SCAN_SETUP(self, &tun);
}

FIXTURE_TEARDOWN(fork_first)
{
	nt_tunables_set(&self->saved);
	nt_filters_set(&self->filters);
}

/* The child: run, and report when the first scan sequence completed. */
static void child_main(int out, double t_fork)
{
	struct first_scan r = { .seq0 = nt_scan_seq() };
	char *buf = malloc(TOUCH_MB * NW_MB);
	long i, pagesz = getpagesize();

	if (!buf)
		_exit(2);
	memset(buf, 1, TOUCH_MB * NW_MB);
	r.seq = r.seq0;
	while ((r.cpu_s = nt_cpu_now()) < CHILD_MAX_S) {
		for (i = 0; i < TOUCH_MB * (long)NW_MB; i += pagesz)
			((volatile char *)buf)[i]++;
		r.seq = nt_scan_seq();
		if (r.seq != r.seq0)
			break;
	}
	r.wall_s = nt_now() - t_fork;
	if (write(out, &r, sizeof(r)) != sizeof(r))
		_exit(3);
	_exit(0);
}

TEST_F_TIMEOUT(fork_first, busy_child, 120)
{
	double worst = 0, delay_s = SCAN_DELAY_MS / 1000.0;
	struct first_scan r[CHILDREN];
	int i, status, fds[2];

	/* this process has run for a while; its own scan is under way */
	for (i = 0; i < CHILDREN; i++) {
		double t_fork;
		ssize_t n;
		pid_t pid;

		ASSERT_EQ(pipe(fds), 0);
		t_fork = nt_now();
		pid = fork();
		ASSERT_GE(pid, 0);
		if (!pid) {
			close(fds[0]);
			child_main(fds[1], t_fork);
		}
		close(fds[1]);
		n = read(fds[0], &r[i], sizeof(r[i]));
		close(fds[0]);
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
		ASSERT_EQ(n, (ssize_t)sizeof(r[i]));
		TH_LOG("child %d: mm->numa_scan_seq %ld -> %ld after %.2f s of CPU time, %.2f s after fork",
		       i, r[i].seq0, r[i].seq, r[i].cpu_s, r[i].wall_s);
		if (r[i].seq == r[i].seq0)
			r[i].cpu_s = CHILD_MAX_S;
		if (r[i].cpu_s > worst)
			worst = r[i].cpu_s;
	}
	TH_LOG("RESULT fork_first_scan: first scan sequence of a busy forked child after %.2f, %.2f, %.2f s of its CPU time (%.2f, %.2f, %.2f s after fork); scan delay %.1f s, limit %.1f s",
	       r[0].cpu_s, r[1].cpu_s, r[2].cpu_s, r[0].wall_s, r[1].wall_s,
	       r[2].wall_s, delay_s, LIMIT * delay_s);
	/* in ms: the harness prints integers */
	EXPECT_LT((long)(worst * 1000), (long)(LIMIT * SCAN_DELAY_MS)) {
		TH_LOG("a forked child's first scan came %.2f s of CPU time after fork: more than %.1f scan delays",
		       worst, LIMIT);
	}
}

TEST_HARNESS_MAIN
