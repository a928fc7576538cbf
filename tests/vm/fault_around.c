// SPDX-License-Identifier: GPL-2.0
/*
 * What idle page tracking counts as used when a process maps file pages
 * by fault-around, the measurement behind srvsample's used memory.
 *
 * A read fault on a file mapping maps the page faulted on and, through
 * ->map_pages(), the pages of the page cache around it: fault_around_bytes
 * (debugfs, 64 KiB by default), aligned in the virtual address space and
 * clipped to the VMA and the page table. x86 does not ask for prefaulted
 * entries to be old (arch_wants_old_prefaulted_pte()), and its user page
 * protections carry the accessed bit, so every one of those entries is
 * installed young, and the next read of /sys/kernel/mm/page_idle/bitmap
 * finds the page used though nothing read it. A forked child that does not
 * exec has no entries for a file mapping without anonymous pages (fork
 * does not copy them): its first reads of the program text fault, and
 * each makes the pages around it look used.
 *
 * The test: a 4 MiB memfd (shmem, whose ->map_pages is filemap_map_pages),
 * written on one CPU so that its pages are on the LRU where idle tracking
 * works, mapped shared at a 2 MiB boundary and read in full by the test
 * process. Its first 512 pages are marked idle; a read of the bitmap
 * with nothing touched finds none used (the control). Then a forked child
 * reads one byte of page 21 and waits. Pass: with fault_around_bytes at
 * 65536, the pages used are exactly pages 16 to 31, the 64 KiB window
 * around page 21; at 4096, page 21 alone. x86 only (arm64 with hardware
 * access flags installs prefaulted entries old), and small folios only
 * (idle tracking keeps one flag per folio).
 */
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "../lib/numab_test.h"
#include "kselftest_harness.h"

#define FAULT_AROUND	"/sys/kernel/debug/fault_around_bytes"
#define IDLE_BITMAP	"/sys/kernel/mm/page_idle/bitmap"
#define FILE_PAGES	1024	/* 4 MiB: the last LRU batch lies past ... */
#define PAGES		512	/* ... the 2 MiB the test follows */
#define TOUCHED		21	/* the page the child reads */
#define ALIGN_2M	(2UL << 20)
#define PM_PRESENT	(1ULL << 63)
#define PM_PFN_MASK	((1ULL << 55) - 1)
#define KPF_COMPOUND	((1ULL << 15) | (1ULL << 16))	/* head or tail */

FIXTURE(around) {
	char saved[32];
	pid_t child;
	int idle_fd;
	char *map;
	unsigned long pfn[PAGES];
};

FIXTURE_SETUP(around)
{
	long psz = getpagesize();
	char *chunk, *area;
	cpu_set_t cpu;
	int fd, pm, i;

	self->idle_fd = -1;
	self->map = NULL;
	self->child = 0;
	self->saved[0] = '\0';
#ifndef __x86_64__
	SKIP(return, "the windows expected assume x86, which installs prefaulted entries young");
#endif
	if (psz != 4096)
		SKIP(return, "the expected windows assume 4 KiB pages (here %ld)", psz);
	if (nt_read(FAULT_AROUND, self->saved, sizeof(self->saved)) <= 0)
		SKIP(return, "no %s (needs DEBUG_FS, debugfs mounted)", FAULT_AROUND);
	self->idle_fd = open(IDLE_BITMAP, O_RDWR | O_CLOEXEC);
	if (self->idle_fd < 0)
		SKIP(return, "no %s (needs IDLE_PAGE_TRACKING)", IDLE_BITMAP);

	/* one CPU: every LRU batch but the last is on the LRU when written */
	CPU_ZERO(&cpu);
	CPU_SET(0, &cpu);
	ASSERT_EQ(sched_setaffinity(0, sizeof(cpu), &cpu), 0);
	fd = memfd_create("fault_around", MFD_CLOEXEC);
	ASSERT_GE(fd, 0);
	chunk = malloc(psz);
	ASSERT_NE(chunk, NULL);
	for (i = 0; i < FILE_PAGES; i++) {
		memset(chunk, i + 1, psz);
		ASSERT_EQ(write(fd, chunk, psz), psz);
	}
	free(chunk);

	/* the file at a 2 MiB boundary: windows are aligned to it */
	area = mmap(NULL, FILE_PAGES * psz + ALIGN_2M, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(area, MAP_FAILED);
	self->map = (char *)(((unsigned long)area + ALIGN_2M - 1) & ~(ALIGN_2M - 1));
	ASSERT_EQ(mmap(self->map, FILE_PAGES * psz, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0),
		  self->map);
	close(fd);
	for (i = 0; i < FILE_PAGES; i++)
		ASSERT_EQ(((volatile char *)self->map)[i * psz], (char)(i + 1));

	pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(pm, 0);
	for (i = 0; i < PAGES; i++) {
		uint64_t e = 0;

		ASSERT_EQ(pread(pm, &e, 8, ((unsigned long)self->map / psz + i) * 8), 8);
		ASSERT_NE(e & PM_PRESENT, 0ULL);
		self->pfn[i] = e & PM_PFN_MASK;
		if (!self->pfn[i])
			SKIP(close(pm); return, "pagemap gives no page frame numbers: run as root");
	}
	close(pm);

	/* idle tracking keeps one flag per folio: the windows assume small ones */
	pm = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(pm, 0);
	for (i = 0; i < PAGES; i++) {
		uint64_t flags = 0;

		ASSERT_EQ(pread(pm, &flags, 8, self->pfn[i] * 8), 8);
		if (flags & KPF_COMPOUND)
			SKIP(close(pm); return, "page %d is in a large folio (shmem THP or mTHP enabled)", i);
	}
	close(pm);
}

FIXTURE_TEARDOWN(around)
{
	if (self->child > 0) {
		kill(self->child, SIGKILL);
		waitpid(self->child, NULL, 0);
	}
	if (self->saved[0])
		nt_write(FAULT_AROUND, self->saved);
	if (self->idle_fd >= 0)
		close(self->idle_fd);
}

/* mark the followed pages idle: this clears their accessed bits */
static int mark_idle(int fd, const unsigned long *pfn)
{
	int i;

	for (i = 0; i < PAGES; i++) {
		uint64_t bit = 1ULL << (pfn[i] % 64);

		if (pwrite(fd, &bit, 8, pfn[i] / 64 * 8) != 8)
			return -1;
	}
	return 0;
}

/* used[i]: page i is no longer idle; returns how many, -1 on error */
static int read_used(int fd, const unsigned long *pfn, int *used)
{
	int i, n = 0;

	for (i = 0; i < PAGES; i++) {
		uint64_t word;

		if (pread(fd, &word, 8, pfn[i] / 64 * 8) != 8)
			return -1;
		used[i] = !(word & (1ULL << (pfn[i] % 64)));
		n += used[i];
	}
	return n;
}

/* the pages a child's read of page TOUCHED makes used, at fault_around_bytes BYTES */
static int child_read(struct __test_metadata *_metadata, FIXTURE_DATA(around) *self,
		      const char *bytes, int *used)
{
	int fds[2], status, n;
	char c;
	pid_t pid;

	ASSERT_EQ(nt_write(FAULT_AROUND, bytes), 0);
	ASSERT_EQ(mark_idle(self->idle_fd, self->pfn), 0);
	n = read_used(self->idle_fd, self->pfn, used);
	/* the control: nothing touched the pages since they were marked */
	ASSERT_EQ(n, 0) {
		TH_LOG("%d of %d pages used with nothing touching them", n, PAGES);
	}
	ASSERT_EQ(mark_idle(self->idle_fd, self->pfn), 0);
	ASSERT_EQ(pipe(fds), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	self->child = pid;	/* teardown kills it if an assertion ends the test */
	if (!pid) {
		c = ((volatile char *)self->map)[TOUCHED * getpagesize()];
		if (write(fds[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	ASSERT_EQ(read(fds[0], &c, 1), 1);
	close(fds[0]);
	n = read_used(self->idle_fd, self->pfn, used);
	kill(pid, SIGKILL);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	self->child = 0;
	ASSERT_EQ(c, TOUCHED + 1);
	return n;
}

static void log_used(struct __test_metadata *_metadata, const char *bytes, const int *used,
		     int n)
{
	char list[256] = "";
	int i, len = 0;

	for (i = 0; i < PAGES && len < (int)sizeof(list) - 8; i++)
		if (used[i])
			len += snprintf(list + len, sizeof(list) - len, " %d", i);
	TH_LOG("RESULT fault_around: fault_around_bytes %s: a child's read of page %d left %d of %d pages used:%s",
	       bytes, TOUCHED, n, PAGES, list);
}

TEST_F(around, window_counts_as_used)
{
	int used[PAGES], n, i;

	n = child_read(_metadata, self, "65536", used);
	log_used(_metadata, "65536", used, n);
	for (i = 0; i < PAGES; i++)
		EXPECT_EQ(used[i], i >= TOUCHED / 16 * 16 && i < TOUCHED / 16 * 16 + 16) {
			TH_LOG("page %d", i);
		}
	EXPECT_EQ(n, 16);
}

TEST_F(around, one_page_without_fault_around)
{
	int used[PAGES], n, i;

	n = child_read(_metadata, self, "4096", used);
	log_used(_metadata, "4096", used, n);
	for (i = 0; i < PAGES; i++)
		EXPECT_EQ(used[i], i == TOUCHED) {
			TH_LOG("page %d", i);
		}
	EXPECT_EQ(n, 1);
}

TEST_HARNESS_MAIN
