// SPDX-License-Identifier: GPL-2.0
/*
 * Permission matrix of /proc/<pid>/numa_vmas: the file must
 * answer exactly like its neighbours maps and numa_maps, which are
 * checked with PTRACE_MODE_READ_FSCREDS at open.
 *
 *  - an unprivileged user reading a setuid-root process it started:
 *    refused (the process is not dumpable);
 *  - a file opened before its process exec()s a setuid binary: the
 *    open file keeps the old mm, so a read after the exec shows nothing
 *    of the new image;
 *  - a hidepid=invisible proc mount: another user's process is not there;
 *  - root (CAP_SYS_PTRACE) reads the setuid process.
 *
 * The setuid binary is this program copied to /tmp with mode 04755; run
 * as "perms --sleep" it sleeps until killed (bounded by alarm()).
 */
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "../lib/numab_test.h"
#include "kselftest_harness.h"

#define SUID_BIN	"/tmp/numab-perms-suid"
#define HIDEPID_MNT	"/tmp/numab-proc-hidepid"
#define NOBODY		65534

static const char * const files[] = { "maps", "numa_maps", "numa_vmas" };
#define NFILES (sizeof(files) / sizeof(files[0]))

/* open /proc/PID/NAME (under ROOT) read-only: fd or -errno */
static int open_proc(const char *root, pid_t pid, const char *name)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%d/%s", root, pid, name);
	fd = open(path, O_RDONLY);
	return fd < 0 ? -errno : fd;
}

/* read all of FD; returns bytes or -errno; puts up to SIZE-1 in BUF */
static long read_all(int fd, char *buf, size_t size)
{
	long total = 0, n;
	char chunk[4096];

	buf[0] = '\0';
	while ((n = read(fd, chunk, sizeof(chunk))) > 0) {
		if ((size_t)total + 1 < size) {
			size_t room = size - 1 - total;
			size_t k = (size_t)n < room ? (size_t)n : room;

			memcpy(buf + total, chunk, k);
			buf[total + k] = '\0';
		}
		total += n;
	}
	return n < 0 ? -errno : total;
}

static int copy_self_setuid(void)
{
	char buf[65536];
	int in, out;
	ssize_t n;

	unlink(SUID_BIN);
	in = open("/proc/self/exe", O_RDONLY);
	out = open(SUID_BIN, O_WRONLY | O_CREAT | O_EXCL, 0700);
	if (in < 0 || out < 0)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			return -1;
	close(in);
	close(out);
	if (chown(SUID_BIN, 0, 0) || chmod(SUID_BIN, 04755))
		return -1;
	return 0;
}

/*
 * Drop to uid/gid 65534. Changing credentials makes the process
 * non-dumpable, which would refuse even its own children's files:
 * make it dumpable again, as a process started by that user would be.
 */
static int become_nobody(void)
{
	if (setgid(NOBODY) || setuid(NOBODY))
		return -1;
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) ? -1 : 0;
}

/*
 * Wait (bounded) until PID runs the setuid binary: its comm is the
 * binary's name and its effective uid is 0.
 */
static int wait_exec(pid_t pid)
{
	char path[64], line[256], comm[64];
	unsigned int r, e;
	int i, found = 0;
	FILE *f;

	for (i = 0; i < 500 && !found; i++) {
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		if (nt_read(path, comm, sizeof(comm)) <= 0)
			return -1;
		if (strncmp(comm, "numab-perms-sui", 15)) {
			usleep(10000);
			continue;
		}
		snprintf(path, sizeof(path), "/proc/%d/status", pid);
		f = fopen(path, "r");
		if (!f)
			return -1;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "Uid: %u %u", &r, &e) == 2 && e == 0)
				found = 1;
		fclose(f);
		if (!found)
			usleep(10000);
	}
	return found ? 0 : -1;
}

/* Child: start the setuid sleeper once FD becomes readable */
static void exec_suid_after(int fd)
{
	char c;

	if (fd >= 0 && read(fd, &c, 1) != 1)
		_exit(3);
	execl(SUID_BIN, SUID_BIN, "--sleep", (char *)NULL);
	_exit(4);
}

FIXTURE(perms) {
	int ready;
};

FIXTURE_SETUP(perms)
{
	if (geteuid())
		SKIP(return, "needs root to create a setuid binary");
	if (access("/proc/self/numa_vmas", F_OK))
		SKIP(return, "no /proc/self/numa_vmas (kernel without the numab series)");
	ASSERT_EQ(copy_self_setuid(), 0) TH_LOG("%s: %s", SUID_BIN, strerror(errno));
	self->ready = 1;
}

FIXTURE_TEARDOWN(perms)
{
	unlink(SUID_BIN);
}

/*
 * As nobody, start the setuid sleeper and open its three files: every one
 * refused with the same errno. Returns a bitmask of files that behaved
 * wrongly, or 0x100 + step on a setup failure.
 */
static int nobody_reads_setuid_child(void)
{
	int fd, err[NFILES], bad = 0;
	pid_t child;
	size_t i;

	if (become_nobody())
		return 0x11;
	child = fork();
	if (child < 0)
		return 0x12;
	if (child == 0)
		exec_suid_after(-1);
	if (wait_exec(child)) {
		kill(child, SIGKILL);
		return 0x13;
	}
	for (i = 0; i < NFILES; i++) {
		fd = open_proc("/proc", child, files[i]);
		err[i] = fd < 0 ? -fd : 0;
		if (fd >= 0)
			close(fd);
		if (err[i] != EACCES)
			bad |= 1 << i;
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return bad;
}

/*
 * Run FN in a child (it drops privileges there) and return its exit
 * status, or -1 when it did not exit normally.
 */
static int in_child(int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn());
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST_F(perms, setuid_target_refused)
{
	int rc = in_child(nobody_reads_setuid_child);

	EXPECT_EQ(rc, 0)
		TH_LOG("bitmask of maps/numa_maps/numa_vmas not refused with EACCES (>=0x11: setup step 0x10+N failed, -1: child killed): 0x%x",
		       rc);
}

TEST_F(perms, root_reads_setuid_target)
{
	static char buf[65536];
	pid_t child;
	long n;
	int fd, status;

	child = fork();
	ASSERT_GE(child, 0);
	if (child == 0) {
		if (become_nobody())
			_exit(2);
		exec_suid_after(-1);
	}
	ASSERT_EQ(wait_exec(child), 0);
	fd = open_proc("/proc", child, "numa_vmas");
	EXPECT_GE(fd, 0) TH_LOG("root: %s", strerror(-fd));
	if (fd >= 0) {
		n = read_all(fd, buf, sizeof(buf));
		EXPECT_GT(n, 0);
		EXPECT_NE(strstr(buf, SUID_BIN), NULL) TH_LOG("%s", buf);
		close(fd);
	}
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
}

/*
 * As nobody: open the files of our own child, then let it exec the
 * setuid binary, then read. Returns a bitmask of files that showed
 * anything of the new image, or 0x100 + step on a setup failure.
 */
static int open_then_exec(void)
{
	static char buf[65536];
	int fds[NFILES], pipefd[2], bad = 0;
	pid_t child;
	size_t i;
	long n;

	if (become_nobody() || pipe(pipefd))
		return 0x11;
	child = fork();
	if (child < 0)
		return 0x12;
	if (child == 0) {
		close(pipefd[1]);
		exec_suid_after(pipefd[0]);
	}
	close(pipefd[0]);
	for (i = 0; i < NFILES; i++) {
		fds[i] = open_proc("/proc", child, files[i]);
		if (fds[i] < 0)
			return 0x13;	/* our own, dumpable child: must open */
	}
	if (write(pipefd[1], "x", 1) != 1 || wait_exec(child))
		bad = 0x14;
	for (i = 0; !bad && i < NFILES; i++) {
		n = read_all(fds[i], buf, sizeof(buf));
		/* the mm of the open is gone: nothing, or an error */
		if (n > 0 && strstr(buf, SUID_BIN))
			bad |= 1 << i;
	}
	for (i = 0; i < NFILES; i++)
		close(fds[i]);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return bad;
}

TEST_F(perms, exec_setuid_while_open)
{
	int rc = in_child(open_then_exec);

	EXPECT_EQ(rc, 0)
		TH_LOG("bitmask of maps/numa_maps/numa_vmas that showed the setuid image (>=0x11: setup step 0x10+N failed, -1: child killed): 0x%x",
		       rc);
}

/*
 * As nobody on a hidepid=invisible mount: init's files are absent
 * (ENOENT), our own are readable. Bitmask of misbehaving files.
 */
static int hidepid_reads(void)
{
	int fd, bad = 0;
	size_t i;

	if (become_nobody())
		return 0x11;
	for (i = 0; i < NFILES; i++) {
		fd = open_proc(HIDEPID_MNT, 1, files[i]);
		if (fd != -ENOENT)
			bad |= 1 << i;
		if (fd >= 0)
			close(fd);
		fd = open_proc(HIDEPID_MNT, getpid(), files[i]);
		if (fd < 0)
			bad |= 0x10 << i;
		else
			close(fd);
	}
	return bad;
}

TEST_F(perms, hidepid_invisible)
{
	int rc;

	mkdir(HIDEPID_MNT, 0755);
	ASSERT_EQ(mount("proc", HIDEPID_MNT, "proc", 0, "hidepid=invisible"), 0)
		TH_LOG("mount proc hidepid=invisible: %s", strerror(errno));
	rc = in_child(hidepid_reads);
	umount(HIDEPID_MNT);
	rmdir(HIDEPID_MNT);
	EXPECT_EQ(rc, 0)
		TH_LOG("bits 0-2: init's maps/numa_maps/numa_vmas not ENOENT; bits 4-6: own not readable; -1: child killed: 0x%x",
		       rc);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--sleep")) {
		alarm(60);	/* bounded even if nobody kills us */
		for (;;)
			pause();
	}
	return test_harness_run(argc, argv);
}
