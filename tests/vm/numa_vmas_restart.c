// SPDX-License-Identifier: GPL-2.0
/*
 * The "mm" line of /proc/<pid>/numa_vmas across read() restarts.
 *
 * numa_vmas uses the maps seq_file iterator: each read() that finds the
 * seq_file buffer empty restarts the walk at the VMA it stopped at
 * (m_start(), *ppos = that VMA's vm_start). The 10-patch series prints the
 * "mm" line in show() when find_vma(mm, 0) == vma, so the line follows
 * the address space, not the read: it is printed again when the first VMA
 * is gone by the time a later read() restarts, and never for an mm
 * without VMAs. The fixed kernel prints it exactly once per open and read
 * to EOF, first, whatever the read sizes, also for an mm without VMAs.
 *
 * The target is a child blocked in read(2) with 256 extra one-page VMAs
 * (alternating protections, so they do not merge: the file spans several
 * seq_file buffers), with numa_balancing=0 during the test so that no VMA
 * gets scan state while it is read. Checks, each of the whole text read
 * to EOF: exactly one line starts with "mm " and it is the first line, for
 *  - one_byte_reads: read(fd, buf, 1) until EOF;
 *  - line_sized_reads: every read() ends exactly at a line end (sizes from
 *    a normal read just before), and reads of exactly the mm line, and of
 *    exactly the mm line and the first VMA line, then the rest;
 *  - seek_and_pread: a partial read then lseek(0) and a read to EOF; a
 *    read to EOF then pread() at 0; lseek(0) after EOF and a re-read;
 *  - first_vma_unmapped: read exactly the mm line and the first VMA line,
 *    the target unmaps that first VMA, read the rest (the series prints
 *    a second "mm" line there);
 *  - same_ranges_as_maps: the VMA ranges equal those of
 *    /proc/<pid>/maps, [vsyscall] aside;
 *  - empty_mm: a child stopped under ptrace at a syscall entry whose
 *    syscall is rewritten into munmap(0, 0x7ffffffff000) and run to its
 *    exit, so its mm has no VMA (maps is empty apart from [vsyscall]):
 *    numa_vmas must be exactly one line, the mm line (with whole and with
 *    1-byte reads). The series prints nothing.
 */
#include <signal.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "../lib/numab_test.h"
#include "../lib/numab_work.h"
#include "numa_vmas_lib.h"
#include "kselftest_harness.h"

#define EXTRA_VMAS	256
#define LOW_ADDR	0x10000UL	/* below the binary: the first VMA */

/* commands to the target */
#define CMD_UNMAP_LOW	'u'

struct target {
	pid_t pid;
	int cmd, ack;		/* pipes to and from the child */
};

static void target_loop(int cmd, int ack, int extra)
{
	long pagesz = sysconf(_SC_PAGESIZE);
	char c = 0, *p, *low;
	int i;

	low = mmap((void *)LOW_ADDR, pagesz, PROT_READ,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (low != (void *)LOW_ADDR)
		c = 'L';	/* no low VMA: tests that need it fail */
	if (extra) {
		p = mmap(NULL, extra * pagesz, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(2);
		for (i = 0; i < extra; i += 2)
			if (mprotect(p + i * pagesz, pagesz, PROT_READ))
				_exit(3);
	}
	if (write(ack, c ? &c : "r", 1) != 1)
		_exit(4);
	for (;;) {
		ssize_t n = read(cmd, &c, 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(0);
		if (c == CMD_UNMAP_LOW)
			c = munmap((void *)LOW_ADDR, pagesz) ? 'E' : 'k';
		if (write(ack, &c, 1) != 1)
			_exit(5);
	}
}

/* 0, or -errno; *LOW is set when the child has its VMA at LOW_ADDR */
static int target_start(struct target *t, int *low)
{
	int cmd[2], ack[2];
	char c;

	t->pid = -1;
	t->cmd = t->ack = -1;
	if (pipe(cmd) || pipe(ack))
		return -errno;
	t->pid = fork();
	if (t->pid < 0)
		return -errno;
	if (t->pid == 0) {
		close(cmd[1]);
		close(ack[0]);
		target_loop(cmd[0], ack[1], EXTRA_VMAS);
	}
	close(cmd[0]);
	close(ack[1]);
	t->cmd = cmd[1];
	t->ack = ack[0];
	if (read(t->ack, &c, 1) != 1)
		return -EIO;
	*low = c == 'r';
	return 0;
}

static int target_cmd(struct target *t, char cmd)
{
	char c;

	if (write(t->cmd, &cmd, 1) != 1 || read(t->ack, &c, 1) != 1)
		return -EIO;
	return c == 'k' ? 0 : -EINVAL;
}

static void target_stop(struct target *t)
{
	if (t->cmd >= 0)
		close(t->cmd);
	if (t->ack >= 0)
		close(t->ack);
	if (t->pid > 0)
		waitpid(t->pid, NULL, 0);
	t->pid = -1;
	t->cmd = t->ack = -1;
}

/* ---- reading and checking -------------------------------------------------- */

struct text {
	char *buf;
	size_t len, cap;
};

static int text_add(struct text *t, const char *p, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		size_t cap = (t->len + n + 1) * 2;
		char *nb = realloc(t->buf, cap);

		if (!nb)
			return -ENOMEM;
		t->buf = nb;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, p, n);
	t->len += n;
	t->buf[t->len] = '\0';
	return 0;
}

static void text_free(struct text *t)
{
	free(t->buf);
	memset(t, 0, sizeof(*t));
}

/*
 * Read FD to EOF into T: the first reads of sizes SIZES[0..NSIZES-1], then
 * reads of CHUNK bytes. 0 or -errno.
 */
static int read_to_eof(int fd, const size_t *sizes, int nsizes, size_t chunk,
		       struct text *t)
{
	static char buf[1 << 17];
	int i = 0;

	for (;;) {
		size_t want = i < nsizes ? sizes[i] : chunk;
		ssize_t n;

		if (want > sizeof(buf))
			want = sizeof(buf);
		n = read(fd, buf, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		if (text_add(t, buf, n))
			return -ENOMEM;
		i++;
	}
}

static int open_numa_vmas(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/numa_vmas", pid);
	return open(path, O_RDONLY);
}

/* Lines of TEXT that start with "mm ", and whether line 1 is one. */
struct mm_lines {
	int count, first, lines;
};

static struct mm_lines mm_lines(const char *text)
{
	struct mm_lines r = { 0, 0, 0 };
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, "mm ", 3)) {
			r.count++;
			if (r.lines == 0)
				r.first = 1;
		}
		r.lines++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return r;
}

#define ASSERT_ONE_MM_LINE(text, what) do {					\
	struct mm_lines __m = mm_lines(text);					\
										\
	TH_LOG("%s: %d lines, %d \"mm\" lines, first line %s", what,		\
	       __m.lines, __m.count, __m.first ? "mm" : "not mm");		\
	EXPECT_EQ(__m.count, 1) TH_LOG("%s: %d \"mm\" lines", what, __m.count);	\
	EXPECT_EQ(__m.first, 1) TH_LOG("%s: the first line is not the mm line", what); \
} while (0)

/* ---- the fixture: a stable target --------------------------------------- */

FIXTURE(restart) {
	struct target t;
	int low;
	long mode;
};

FIXTURE_SETUP(restart)
{
	int ret;

	self->t.pid = -1;
	self->t.cmd = self->t.ack = -1;
	self->mode = -1;
	if (access("/proc/self/numa_vmas", R_OK))
		SKIP(return, "no /proc/self/numa_vmas (kernel without the numab series)");
	/* no scan state changes while the target's file is read */
	self->mode = nt_read_long(NUMAB_MODE, -1);
	if (self->mode > 0)
		ASSERT_EQ(nt_write_long(NUMAB_MODE, 0), 0);
	ret = target_start(&self->t, &self->low);
	ASSERT_EQ(ret, 0) TH_LOG("target: %s", strerror(-ret));
}

FIXTURE_TEARDOWN(restart)
{
	target_stop(&self->t);
	if (self->mode > 0)
		nt_write_long(NUMAB_MODE, self->mode);
}

static void one_byte_reads(struct __test_metadata *_metadata,
			   FIXTURE_DATA(restart) *self)
{
	struct text t = { 0 };
	int fd = open_numa_vmas(self->t.pid);

	ASSERT_GE(fd, 0);
	ASSERT_EQ(read_to_eof(fd, NULL, 0, 1, &t), 0);
	close(fd);
	ASSERT_ONE_MM_LINE(t.buf, "1-byte reads");
	EXPECT_GT(mm_lines(t.buf).lines, EXTRA_VMAS);
	text_free(&t);
}

static void line_sized_reads(struct __test_metadata *_metadata,
			     FIXTURE_DATA(restart) *self)
{
	char *ref = nv_read_pid(self->t.pid, 0);
	size_t *sizes, two[2];
	struct text t = { 0 };
	int n = 0, fd;
	char *p;

	ASSERT_NE(ref, NULL);
	sizes = calloc(strlen(ref) + 1, sizeof(*sizes));
	ASSERT_NE(sizes, NULL);
	for (p = ref; *p; n++) {
		char *eol = strchr(p, '\n');

		sizes[n] = eol ? (size_t)(eol + 1 - p) : strlen(p);
		p += sizes[n];
	}
	TH_LOG("reference read: %zu bytes, %d lines, the mm line %zu bytes, the first VMA line %zu bytes",
	       strlen(ref), n, sizes[0], n > 1 ? sizes[1] : 0);
	ASSERT_GT(n, 2);

	/* every read() ends exactly at the end of a line */
	fd = open_numa_vmas(self->t.pid);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(read_to_eof(fd, sizes, n, 1 << 16, &t), 0);
	close(fd);
	ASSERT_ONE_MM_LINE(t.buf, "reads of one line each");
	text_free(&t);

	/* exactly the mm line, then 64 KiB reads */
	fd = open_numa_vmas(self->t.pid);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(read_to_eof(fd, sizes, 1, 1 << 16, &t), 0);
	close(fd);
	ASSERT_ONE_MM_LINE(t.buf, "a read of the mm line, then the rest");
	text_free(&t);

	/* exactly the mm line and the first VMA line, then the rest */
	two[0] = sizes[0] + sizes[1];
	fd = open_numa_vmas(self->t.pid);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(read_to_eof(fd, two, 1, 1 << 16, &t), 0);
	close(fd);
	ASSERT_ONE_MM_LINE(t.buf, "a read of the first two lines, then the rest");
	text_free(&t);

	/* line-sized reads one line out of step: each ends a line earlier */
	fd = open_numa_vmas(self->t.pid);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(read_to_eof(fd, sizes + 1, n - 1, 1 << 16, &t), 0);
	close(fd);
	ASSERT_ONE_MM_LINE(t.buf, "reads of the next line's size");
	text_free(&t);
	free(sizes);
	free(ref);
}

static void seek_and_pread(struct __test_metadata *_metadata,
			   FIXTURE_DATA(restart) *self)
{
	static char buf[1 << 18];
	struct text t = { 0 };
	size_t partial = 100;
	ssize_t n;
	int fd;

	fd = open_numa_vmas(self->t.pid);
	ASSERT_GE(fd, 0);
	/* a partial read, back to 0, to EOF */
	ASSERT_EQ(read(fd, buf, partial), (ssize_t)partial);
	ASSERT_EQ(lseek(fd, 0, SEEK_SET), 0);
	ASSERT_EQ(read_to_eof(fd, NULL, 0, 4096, &t), 0);
	ASSERT_ONE_MM_LINE(t.buf, "partial read, lseek(0), read to EOF");
	text_free(&t);
	/* at EOF: back to 0 and again, with 1-byte then larger reads */
	ASSERT_EQ(lseek(fd, 0, SEEK_SET), 0);
	ASSERT_EQ(read_to_eof(fd, (size_t[]){ 1, 1, 1 }, 3, 333, &t), 0);
	ASSERT_ONE_MM_LINE(t.buf, "read to EOF, lseek(0), read to EOF again");
	text_free(&t);
	/* at EOF: pread at 0 of the whole file */
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	ASSERT_GT(n, 0);
	buf[n] = '\0';
	ASSERT_ONE_MM_LINE(buf, "pread(0) after EOF");
	/* a pread at 0 in the middle of a read sequence */
	ASSERT_EQ(lseek(fd, 0, SEEK_SET), 0);
	ASSERT_EQ(read(fd, buf, partial), (ssize_t)partial);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	ASSERT_GT(n, 0);
	buf[n] = '\0';
	ASSERT_ONE_MM_LINE(buf, "pread(0) after a partial read");
	close(fd);
}

static void first_vma_unmapped(struct __test_metadata *_metadata,
			       FIXTURE_DATA(restart) *self)
{
	char *ref = nv_read_pid(self->t.pid, 0), *l2;
	struct text t = { 0 };
	char first[64];
	size_t two;
	int fd;

	if (!self->low)
		SKIP(return, "the target could not map a page at 0x%lx (vm.mmap_min_addr?)",
		     LOW_ADDR);
	ASSERT_NE(ref, NULL);
	l2 = strchr(ref, '\n');
	ASSERT_NE(l2, NULL);
	snprintf(first, sizeof(first), "%08lx-", LOW_ADDR);
	ASSERT_EQ(strncmp(l2 + 1, first, strlen(first)), 0) {
		TH_LOG("the target's first VMA is not at 0x%lx: %.80s", LOW_ADDR, l2 + 1);
	}
	l2 = strchr(l2 + 1, '\n');
	ASSERT_NE(l2, NULL);
	two = l2 + 1 - ref;

	fd = open_numa_vmas(self->t.pid);
	ASSERT_GE(fd, 0);
	/* the mm line and the first VMA's: the seq_file buffer is empty then */
	ASSERT_EQ(read_to_eof(fd, &two, 1, 0, &t), 0);	/* chunk 0: stops */
	EXPECT_EQ(t.len, two);
	ASSERT_EQ(target_cmd(&self->t, CMD_UNMAP_LOW), 0);
	ASSERT_EQ(read_to_eof(fd, NULL, 0, 1 << 16, &t), 0);
	close(fd);
	ASSERT_ONE_MM_LINE(t.buf, "the first VMA unmapped between two reads");
	free(ref);
	text_free(&t);
}

/* "start-end" of every VMA line of numa_vmas and of maps ([vsyscall] aside) */
static int ranges(const char *text, int maps, char *out, size_t size)
{
	const char *p = text;
	size_t len = 0;
	int n = 0;

	out[0] = '\0';
	while (p && *p) {
		unsigned long s, e;
		const char *eol = strchr(p, '\n');

		if (sscanf(p, "%lx-%lx", &s, &e) == 2 &&
		    !(maps && strstr(p, "[vsyscall]") &&
		      (!eol || strstr(p, "[vsyscall]") < eol))) {
			len += snprintf(out + len, size - len, "%lx-%lx\n", s, e);
			n++;
			if (len >= size)
				return -1;
		}
		p = eol ? eol + 1 : NULL;
	}
	return n;
}

static char *read_maps(pid_t pid)
{
	char path[64];
	struct text t = { 0 };
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	if (read_to_eof(fd, NULL, 0, 1 << 16, &t)) {
		text_free(&t);
		t.buf = NULL;
	}
	close(fd);
	if (!t.buf)
		t.buf = strdup("");
	return t.buf;
}

static void same_ranges_as_maps(struct __test_metadata *_metadata,
				FIXTURE_DATA(restart) *self)
{
	static char a[1 << 16], b[1 << 16];
	char *nv = nv_read_pid(self->t.pid, 0), *maps = read_maps(self->t.pid);
	int na, nb;

	ASSERT_NE(nv, NULL);
	ASSERT_NE(maps, NULL);
	na = ranges(nv, 0, a, sizeof(a));
	nb = ranges(maps, 1, b, sizeof(b));
	TH_LOG("numa_vmas: %d VMA lines, maps: %d lines ([vsyscall] aside)", na, nb);
	ASSERT_GT(nb, EXTRA_VMAS);
	EXPECT_EQ(na, nb);
	EXPECT_STREQ(a, b);
	free(nv);
	free(maps);
}

/* -O0 wrappers: see first_fault.c (the harness's setjmp, -Wclobbered) */
#pragma GCC push_options
#pragma GCC optimize("O0")
TEST_F(restart, one_byte_reads) { one_byte_reads(_metadata, self); }
TEST_F(restart, line_sized_reads) { line_sized_reads(_metadata, self); }
TEST_F(restart, seek_and_pread) { seek_and_pread(_metadata, self); }
TEST_F(restart, first_vma_unmapped) { first_vma_unmapped(_metadata, self); }
TEST_F(restart, same_ranges_as_maps) { same_ranges_as_maps(_metadata, self); }
#pragma GCC pop_options

/* ---- an mm without VMAs ------------------------------------------------------ */

/*
 * Fork a traced child, stop it at the entry of its next system call,
 * turn that call into munmap(0, USER_END) and run it to the syscall exit:
 * it stays stopped there with no VMA. Returns the pid (> 0) or -errno.
 */
#define USER_END	0x7ffffffff000UL	/* TASK_SIZE_MAX with 4-level paging */

static pid_t stopped_empty_child(long *munmap_ret)
{
	struct user_regs_struct regs;
	int status, i;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(1);
		raise(SIGSTOP);
		for (;;)
			syscall(SYS_getppid);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		return -ECHILD;
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_TRACESYSGOOD))
		return -errno;
	/* to the next syscall entry (getppid, or raise()'s tail) */
	if (ptrace(PTRACE_SYSCALL, pid, NULL, NULL))
		return -errno;
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) ||
	    WSTOPSIG(status) != (SIGTRAP | 0x80))
		return -EPROTO;
	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs))
		return -errno;
	regs.orig_rax = SYS_munmap;
	regs.rdi = 0;
	regs.rsi = USER_END;
	if (ptrace(PTRACE_SETREGS, pid, NULL, &regs))
		return -errno;
	/* run it to its syscall exit */
	for (i = 0; i < 4; i++) {
		if (ptrace(PTRACE_SYSCALL, pid, NULL, NULL))
			return -errno;
		if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
			return -EPROTO;
		if (WSTOPSIG(status) == (SIGTRAP | 0x80))
			break;
	}
	if (ptrace(PTRACE_GETREGS, pid, NULL, &regs))
		return -errno;
	*munmap_ret = regs.rax;
	return pid;
}

static void check_empty_mm(struct __test_metadata *_metadata)
{
	long munmap_ret = -1;
	struct text t = { 0 };
	char *maps, *nv, vr[256];
	pid_t pid;
	int fd, nmaps;

	if (access("/proc/self/numa_vmas", R_OK))
		SKIP(return, "no /proc/self/numa_vmas (kernel without the numab series)");
	pid = stopped_empty_child(&munmap_ret);
	ASSERT_GT(pid, 0) TH_LOG("tracing the child: %s", strerror(-pid));
	maps = read_maps(pid);
	nv = nv_read_pid(pid, 0);
	fd = open_numa_vmas(pid);
	if (fd >= 0) {
		read_to_eof(fd, NULL, 0, 1, &t);
		close(fd);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);

	ASSERT_NE(maps, NULL);
	ASSERT_NE(nv, NULL);
	nmaps = ranges(maps, 1, vr, sizeof(vr));
	TH_LOG("RESULT numa_vmas_restart empty mm: munmap(0, 0x%lx) = %ld; maps: %d VMAs ([vsyscall] aside); numa_vmas: %d lines (%d mm lines): '%s'; with 1-byte reads: %d lines",
	       USER_END, munmap_ret, nmaps, mm_lines(nv).lines,
	       mm_lines(nv).count, nv, t.buf ? mm_lines(t.buf).lines : -1);
	/* the child really has no VMA */
	ASSERT_EQ(munmap_ret, 0);
	ASSERT_EQ(nmaps, 0) TH_LOG("maps: %s", maps);
	EXPECT_EQ(mm_lines(nv).lines, 1);
	ASSERT_ONE_MM_LINE(nv, "an mm without VMAs");
	ASSERT_NE(t.buf, NULL) TH_LOG("1-byte reads: nothing read");
	EXPECT_EQ(mm_lines(t.buf).lines, 1);
	ASSERT_ONE_MM_LINE(t.buf, "an mm without VMAs, 1-byte reads");
	free(maps);
	free(nv);
	text_free(&t);
}

#pragma GCC push_options
#pragma GCC optimize("O0")
TEST(empty_mm) { check_empty_mm(_metadata); }
#pragma GCC pop_options

TEST_HARNESS_MAIN
