// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel.numa_balancing_filter_* sysctls: present with their
 * defaults, mode 0644, every value in range accepted, everything else
 * rejected with EINVAL and the value left unchanged, writes past offset
 * 0 ignored, nothing logged for a rejected write, and writes refused to a
 * user without privileges, also as root of a user namespace.
 */
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "../lib/numab_test.h"
#include "kselftest_harness.h"

struct filter {
	const char *name;
	long def, max;
};

static const struct filter filters[] = {
	{ "pid", 2, 2 },
	{ "shared_ro", 2, 2 },
	{ "scan_delay", 1, 1 },
	{ "cpuset", 1, 1 },
	{ "shared_folio", 2, 2 },
	{ "promo_slowdown", 0, 1 },
};

#define NFILTERS (sizeof(filters) / sizeof(filters[0]))

static void path_of(const struct filter *f, char *buf, size_t size)
{
	snprintf(buf, size, NUMAB_FILTER "%s", f->name);
}

/* write(2) VAL as is; returns 0 or -errno */
static int write_raw(const char *path, const char *val, size_t len)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	close(fd);
	return n < 0 ? -errno : 0;
}

FIXTURE(filters) {
	struct nt_filters saved;
};

/*
 * defaults_and_mode fails on a kernel without the sysctls (that is what it
 * tests); the other tests skip there.
 */
FIXTURE_SETUP(filters)
{
	if (nt_filters_save(&self->saved))
		self->saved.pid = -1;
}

#define NEED_SYSCTLS() do { \
	if (self->saved.pid < 0) \
		SKIP(return, "no kernel.numa_balancing_filter_* sysctls (kernel without the numab series)"); \
} while (0)

FIXTURE_TEARDOWN(filters)
{
	nt_filters_set(&self->saved);
}

TEST_F(filters, defaults_and_mode)
{
	char path[128];
	struct stat st;
	size_t i;

	for (i = 0; i < NFILTERS; i++) {
		path_of(&filters[i], path, sizeof(path));
		ASSERT_EQ(stat(path, &st), 0) TH_LOG("%s: %s", path, strerror(errno));
		EXPECT_EQ((long)(st.st_mode & 0777), 0644L) TH_LOG("%s", path);
		EXPECT_EQ(nt_read_long(path, -1), filters[i].def) TH_LOG("%s", path);
	}
}

TEST_F(filters, every_value_in_range)
{
	char path[128];
	size_t i;
	long v;

	NEED_SYSCTLS();

	for (i = 0; i < NFILTERS; i++) {
		path_of(&filters[i], path, sizeof(path));
		for (v = 0; v <= filters[i].max; v++) {
			ASSERT_EQ(nt_write_long(path, v), 0) TH_LOG("%s=%ld", path, v);
			ASSERT_EQ(nt_read_long(path, -1), v) TH_LOG("%s", path);
		}
	}
}

TEST_F(filters, bad_values_rejected_unchanged)
{
	static const char *bad[] = { "-1", "3", "99", "2147483648",
				     "-2147483649", "abc", "1x", "0x", "" };
	static char longval[8192];
	char path[128], val[32];
	size_t i, j;
	int ret;

	NEED_SYSCTLS();

	memset(longval, '1', sizeof(longval) - 1);
	for (i = 0; i < NFILTERS; i++) {
		path_of(&filters[i], path, sizeof(path));
		ASSERT_EQ(nt_write_long(path, 0), 0);
		for (j = 0; j < sizeof(bad) / sizeof(bad[0]); j++) {
			ret = write_raw(path, bad[j], strlen(bad[j]));
			/* "" writes nothing and is no error; all else EINVAL */
			if (*bad[j])
				EXPECT_EQ(ret, -EINVAL) TH_LOG("%s <- \"%s\"", path, bad[j]);
			EXPECT_EQ(nt_read_long(path, -1), 0) TH_LOG("%s <- \"%s\"", path, bad[j]);
		}
		/* one past the maximum for the on/off filters */
		snprintf(val, sizeof(val), "%ld", filters[i].max + 1);
		EXPECT_EQ(write_raw(path, val, strlen(val)), -EINVAL) TH_LOG("%s", path);
		ret = write_raw(path, longval, strlen(longval));
		EXPECT_NE(ret, 0) TH_LOG("%s <- 8191 digits", path);
		EXPECT_EQ(nt_read_long(path, -1), 0) TH_LOG("%s", path);
	}
}

/*
 * In a child as uid 65534 (and root of a new user namespace with USERNS):
 * PATH must read 0 and refuse a write with EACCES (or EPERM in the user
 * namespace). Returns the
 * child's exit status: 0 as expected, 2 setuid failed, 3 unshare or read
 * failed, 1 the write was not refused.
 */
static int write_as_nobody(const char *path, int userns)
{
	int status, ret;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		if (userns && unshare(CLONE_NEWUSER))
			_exit(3);
		/* readable by anyone, writable by root only */
		if (nt_read_long(path, -1) != 0)
			_exit(3);
		ret = nt_write_long(path, 1);
		_exit(ret == -EACCES || (userns && ret == -EPERM) ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST_F(filters, unprivileged_write_refused)
{
	char path[128];
	size_t i;

	NEED_SYSCTLS();

	for (i = 0; i < NFILTERS; i++) {
		path_of(&filters[i], path, sizeof(path));
		ASSERT_EQ(nt_write_long(path, 0), 0);
		EXPECT_EQ(write_as_nobody(path, 0), 0) TH_LOG("%s as uid 65534", path);
		EXPECT_EQ(nt_read_long(path, -1), 0) TH_LOG("%s", path);
	}
}

/*
 * Writes not at offset 0 are ignored (kernel.sysctl_writes_strict=1, the
 * default): a value written in two pieces must not become their
 * concatenation, and a pwrite() at offset 1 changes nothing.
 */
TEST_F(filters, partial_writes_ignored)
{
	char path[128];
	size_t i;
	int fd;

	NEED_SYSCTLS();

	for (i = 0; i < NFILTERS; i++) {
		path_of(&filters[i], path, sizeof(path));
		ASSERT_EQ(nt_write_long(path, 0), 0);
		fd = open(path, O_WRONLY);
		ASSERT_GE(fd, 0);
		EXPECT_EQ(write(fd, "0", 1), 1);
		EXPECT_GE(write(fd, "1", 1), 0);	/* at offset 1: ignored */
		close(fd);
		EXPECT_EQ(nt_read_long(path, -1), 0) TH_LOG("%s after \"0\" + \"1\"", path);
		fd = open(path, O_WRONLY);
		ASSERT_GE(fd, 0);
		EXPECT_GE(pwrite(fd, "1", 1, 1), 0);
		close(fd);
		EXPECT_EQ(nt_read_long(path, -1), 0) TH_LOG("%s after pwrite at 1", path);
	}
}

/* As uid 65534 made root of a new user namespace: still refused */
TEST_F(filters, userns_root_write_refused)
{
	char path[128];
	size_t i;

	NEED_SYSCTLS();

	for (i = 0; i < NFILTERS; i++) {
		path_of(&filters[i], path, sizeof(path));
		ASSERT_EQ(nt_write_long(path, 0), 0);
		EXPECT_EQ(write_as_nobody(path, 1), 0)
			TH_LOG("%s from a user namespace (3: unshare or read failed)", path);
		EXPECT_EQ(nt_read_long(path, -1), 0) TH_LOG("%s", path);
	}
}

/* Log records of level warning or worse appended to /dev/kmsg since FD's open */
static int kmsg_warnings(int fd, char *first, size_t size)
{
	char rec[2048];
	int n, warn = 0;
	ssize_t len;
	unsigned int pri;

	while ((len = read(fd, rec, sizeof(rec) - 1)) > 0 || (len < 0 && errno == EPIPE)) {
		if (len <= 0)
			continue;
		rec[len] = '\0';
		n = sscanf(rec, "%u,", &pri);
		if (n == 1 && (pri & 7) <= 4) {
			if (!warn++)
				snprintf(first, size, "%s", rec);
		}
	}
	return warn;
}

/*
 * Write every bad value to every filter; returns the number of kernel log
 * records of level warning or worse that appeared meanwhile, -errno when
 * /dev/kmsg cannot be read.
 */
static int __attribute__((noinline)) bad_writes_logged(char *first, size_t size)
{
	static const char *bad[] = { "-1", "3", "abc", "1x", "" };
	static char longval[8192];
	char path[128];
	size_t i, j;
	int kmsg, warn;

	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg < 0)
		return -errno;
	lseek(kmsg, 0, SEEK_END);
	memset(longval, '9', sizeof(longval) - 1);
	for (i = 0; i < NFILTERS; i++) {
		path_of(&filters[i], path, sizeof(path));
		for (j = 0; j < sizeof(bad) / sizeof(bad[0]); j++)
			write_raw(path, bad[j], strlen(bad[j]));
		write_raw(path, longval, strlen(longval));
	}
	warn = kmsg_warnings(kmsg, first, size);
	close(kmsg);
	return warn;
}

/* Rejected writes log nothing at warning level or worse */
TEST_F(filters, bad_writes_log_nothing)
{
	static char first[2048];
	int warn;

	NEED_SYSCTLS();

	warn = bad_writes_logged(first, sizeof(first));
	if (warn < 0)
		SKIP(return, "no /dev/kmsg: %s", strerror(-warn));
	EXPECT_EQ(warn, 0) TH_LOG("first: %s", first);
}

TEST_HARNESS_MAIN
