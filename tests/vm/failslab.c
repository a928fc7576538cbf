// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failure where the series allocates, with failslab
 * limited to one task (task-filter, /proc/<pid>/make-it-fail):
 *
 *  - scanner: task_numa_work() allocates a VMA's vma_numab_state with
 *    kzalloc(). A busy task whose every slab allocation fails must keep
 *    running, its VMAs must stay without state (numa_vmas: state=none)
 *    and get it once the failures stop;
 *  - numa_vmas: opening and reading the file from a task whose slab
 *    allocations fail half of the time must fail with ENOMEM or return
 *    lines that parse, never anything else.
 *
 * The kernel log must stay clean (scripts/vm fails the run on a splat):
 * failslab's own reports are turned off (verbose=0), and reads use the
 * seq_file's first page only, so no vmalloc() fallback warns.
 */
#include <signal.h>
#include <sys/wait.h>
#include "../lib/numab_test.h"
#include "kselftest_harness.h"

#define FAILSLAB	"/sys/kernel/debug/failslab/"
#define BUSY_SIZE	(8UL << 20)

static const char * const knobs[] = {
	"probability", "interval", "times", "verbose", "task-filter",
	"ignore-gfp-wait",
};
#define NKNOBS (sizeof(knobs) / sizeof(knobs[0]))

static int failslab_set(const char *knob, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), FAILSLAB "%s", knob);
	return nt_write(path, val);
}

static int make_it_fail(pid_t pid, int on)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/make-it-fail", pid);
	return nt_write(path, on ? "1" : "0");
}

/* numa_vmas of PID: counts of VMA lines with and without scan state */
static int count_states(pid_t pid, long *with, long *without)
{
	static char line[4096];
	char path[64];
	FILE *f;

	*with = *without = 0;
	snprintf(path, sizeof(path), "/proc/%d/numa_vmas", pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, " state=ok"))
			(*with)++;
		else if (strstr(line, " state=none"))
			(*without)++;
	}
	fclose(f);
	return 0;
}

FIXTURE(failslab) {
	char saved[NKNOBS][32];
	struct nt_tunables tun;
	long mode;
	pid_t busy;
};

FIXTURE_SETUP(failslab)
{
	struct nt_tunables fast = {
		.mode = 2, .scan_delay = 0, .period_min = 100,
		.period_max = 100, .scan_size = 256,
	};
	char path[128];
	size_t i;

	self->busy = 0;
	if (access(FAILSLAB "probability", F_OK))
		SKIP(return, "no " FAILSLAB " (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS)");
	if (access("/proc/self/numa_vmas", F_OK))
		SKIP(return, "no /proc/self/numa_vmas (kernel without the numab series)");
	for (i = 0; i < NKNOBS; i++) {
		snprintf(path, sizeof(path), FAILSLAB "%s", knobs[i]);
		ASSERT_GE(nt_read(path, self->saved[i], sizeof(self->saved[i])), 0);
		self->saved[i][strcspn(self->saved[i], "\n")] = '\0';
	}
	nt_tunables_save(&self->tun);
	ASSERT_EQ(nt_tunables_set(&fast), 0);
	ASSERT_EQ(failslab_set("verbose", "0"), 0);
	ASSERT_EQ(failslab_set("task-filter", "Y"), 0);
	ASSERT_EQ(failslab_set("ignore-gfp-wait", "N"), 0);
	ASSERT_EQ(failslab_set("interval", "1"), 0);
	ASSERT_EQ(failslab_set("times", "-1"), 0);
}

FIXTURE_TEARDOWN(failslab)
{
	size_t i;

	failslab_set("probability", "0");
	if (self->busy > 0) {
		kill(self->busy, SIGKILL);
		waitpid(self->busy, NULL, 0);
	}
	for (i = 0; i < NKNOBS; i++)
		if (self->saved[i][0])
			failslab_set(knobs[i], self->saved[i]);
	nt_tunables_set(&self->tun);
}

/*
 * The busy task: fault its memory in, say so on READY, wait for GO
 * (pipes, -1: none), then touch the memory forever without system calls.
 * Its failures must start only after the faults: an mmap() or a page
 * fault whose allocation fails would kill or stall it before it scans.
 */
static void busy_loop(int ready, int go)
{
	volatile char *p = mmap(NULL, BUSY_SIZE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long i;
	char c;

	if (p == MAP_FAILED)
		_exit(2);
	for (i = 0; i < BUSY_SIZE; i += 4096)
		p[i] = 1;
	if (ready >= 0 && write(ready, "r", 1) != 1)
		_exit(3);
	if (go >= 0 && read(go, &c, 1) != 1)
		_exit(3);
	for (;;)
		for (i = 0; i < BUSY_SIZE; i += 4096)
			p[i]++;
}

/*
 * Wait (bounded) for PID's scan sequence to advance by N; -1 on timeout,
 * with the last numa_vmas header and the task's state in LAST.
 */
static int wait_seqs(pid_t pid, long n, double max_s, char *last, size_t size)
{
	char path[64], buf[256], stat[256] = "";
	long seq0 = -1, seq;
	double t0 = nt_now();

	snprintf(path, sizeof(path), "/proc/%d/numa_vmas", pid);
	while (nt_now() - t0 < max_s) {
		if (nt_read(path, buf, sizeof(buf)) > 0 &&
		    sscanf(buf, "mm scan_seq=%ld", &seq) == 1) {
			if (seq0 < 0)
				seq0 = seq;
			if (seq - seq0 >= n)
				return 0;
		}
		usleep(50000);
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	nt_read(path, stat, sizeof(stat));
	buf[strcspn(buf, "\n")] = '\0';
	snprintf(last, size, "first seq %ld, last: %s; stat: %.80s", seq0, buf, stat);
	return -1;
}

TEST_F_TIMEOUT(failslab, scanner_without_numab_state, 300)
{
	static char last[512];
	long with, without;
	int status;

	int go[2], ready[2];
	char c;

	/*
	 * The first scan pass of a new mm waits scan_delay: long enough that
	 * none runs (and allocates scan state) before the failures start.
	 */
	ASSERT_EQ(nt_write_long(NUMAB_DEBUGFS "/scan_delay_ms", 3000), 0);
	ASSERT_EQ(pipe(go), 0);
	ASSERT_EQ(pipe(ready), 0);
	self->busy = fork();
	ASSERT_GE(self->busy, 0);
	if (self->busy == 0) {
		close(go[1]);
		close(ready[0]);
		busy_loop(ready[1], go[0]);	/* runs once make-it-fail is set */
	}
	close(go[0]);
	close(ready[1]);
	ASSERT_EQ(read(ready[0], &c, 1), 1) TH_LOG("the busy task died before it was ready");
	close(ready[0]);
	ASSERT_EQ(failslab_set("probability", "100"), 0);
	ASSERT_EQ(make_it_fail(self->busy, 1), 0);
	ASSERT_EQ(write(go[1], "x", 1), 1);
	close(go[1]);
	ASSERT_EQ(wait_seqs(self->busy, 5, 120, last, sizeof(last)), 0)
		TH_LOG("the busy task's scan did not advance: %s", last);
	ASSERT_EQ(count_states(self->busy, &with, &without), 0);
	TH_LOG("every slab allocation of the busy task failing, 5 sequences: %ld VMAs with scan state, %ld without",
	       with, without);
	EXPECT_EQ(with, 0);
	EXPECT_GT(without, 0);
	ASSERT_EQ(waitpid(self->busy, &status, WNOHANG), 0) TH_LOG("the busy task died");

	ASSERT_EQ(make_it_fail(self->busy, 0), 0);
	ASSERT_EQ(failslab_set("probability", "0"), 0);
	ASSERT_EQ(wait_seqs(self->busy, 3, 120, last, sizeof(last)), 0) TH_LOG("%s", last);
	ASSERT_EQ(count_states(self->busy, &with, &without), 0);
	TH_LOG("failures off, 3 more sequences: %ld VMAs with scan state, %ld without",
	       with, without);
	EXPECT_GT(with, 0);
}

/*
 * Complete lines in BUF (a read() chunk, which may start mid-line) that
 * start neither with "mm " nor with an address range.
 */
static long bad_line_starts(const char *buf)
{
	const char *p = strchr(buf, '\n');
	unsigned long a, b;
	long bad = 0;

	for (; p && strchr(p + 1, '\n'); p = strchr(p + 1, '\n'))
		if (strncmp(p + 1, "mm ", 3) &&
		    sscanf(p + 1, "%lx-%lx ", &a, &b) != 2)
			bad++;
	return bad;
}

/*
 * In a child with make-it-fail: open and read numa_vmas of PID N times
 * with 4 KiB reads. Exit status: 0 ok, 1 an unexpected errno, 2 a line
 * that does not parse, 3 no ENOMEM seen, 4 no successful read.
 */
static int read_under_failslab(pid_t pid, int n)
{
	char path[64], buf[4096];
	long ok = 0, nomem = 0, bad = 0, badline = 0;
	int i, fd;
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/numa_vmas", pid);
	if (make_it_fail(getpid(), 1))
		return 5;
	for (i = 0; i < n; i++) {
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			errno == ENOMEM ? nomem++ : bad++;
			continue;
		}
		while ((len = read(fd, buf, sizeof(buf) - 1)) > 0) {
			buf[len] = '\0';
			badline += bad_line_starts(buf);
			ok++;
		}
		if (len < 0)
			errno == ENOMEM ? nomem++ : bad++;
		close(fd);
	}
	make_it_fail(getpid(), 0);
	printf("# %d opens: %ld reads returned data, %ld ENOMEM, %ld other errors, %ld bad lines\n",
	       n, ok, nomem, bad, badline);
	fflush(stdout);
	if (bad)
		return 1;
	if (badline)
		return 2;
	if (!nomem)
		return 3;
	return ok ? 0 : 4;
}

TEST_F_TIMEOUT(failslab, numa_vmas_read_enomem, 300)
{
	static char last[512];
	pid_t reader;
	int status;

	self->busy = fork();
	ASSERT_GE(self->busy, 0);
	if (self->busy == 0)
		busy_loop(-1, -1);
	ASSERT_EQ(wait_seqs(self->busy, 2, 120, last, sizeof(last)), 0) TH_LOG("%s", last);
	ASSERT_EQ(failslab_set("probability", "50"), 0);
	reader = fork();
	ASSERT_GE(reader, 0);
	if (reader == 0)
		_exit(read_under_failslab(self->busy, 500));
	ASSERT_EQ(waitpid(reader, &status, 0), reader);
	failslab_set("probability", "0");
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("the reader was killed by signal %d", WTERMSIG(status));
	EXPECT_EQ(WEXITSTATUS(status), 0)
		TH_LOG("1: unexpected errno, 2: bad line, 3: no ENOMEM, 4: no data, 5: make-it-fail");
}

TEST_HARNESS_MAIN
