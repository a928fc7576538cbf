// SPDX-License-Identifier: GPL-2.0
/*
 * numa_vmas reports the filter of the TARGET's memory policy.
 *
 * The scanner skips a VMA whose memory policy does not allow migration on
 * fault (MPOL_F_MOF): numa_vmas shows it as filter=unsuitable. A VMA
 * without a policy of its own falls back to its task's policy, and
 * vma_policy_mof() falls back to get_task_policy(current): in the
 * 10-patch series, /proc/<pid>/numa_vmas computed it with the READER's
 * policy, so a target bound with MPOL_BIND (without
 * MPOL_F_NUMA_BALANCING) showed filter=none to a reader with the default
 * policy. numa_maps uses the target's policy (priv->task_mempolicy).
 *
 * A child sets a task policy, maps and touches 1 MiB of anonymous memory,
 * and waits; the parent reads /proc/<child>/numa_vmas and numa_maps:
 *  - bind_target: MPOL_BIND nodes 0-1 without MPOL_F_NUMA_BALANCING,
 *    read by a default-policy parent: filter=unsuitable;
 *  - bind_numa_balancing_target (control): MPOL_BIND nodes 0-1 with
 *    MPOL_F_NUMA_BALANCING: filter=none;
 *  - bind_reader: the child keeps the default policy, the parent binds
 *    itself (no MPOL_F_NUMA_BALANCING) before it reads: filter=none.
 * numa_maps of the child must show its policy ("bind:0-1" or "default")
 * for the VMA in each case: the child really has the policy the test says.
 * Today's series: none/none/unsuitable (the first and third fail).
 */
#include <sys/wait.h>

#include "../lib/numab_test.h"
#include "../lib/numab_work.h"
#include "numa_vmas_lib.h"
#include "kselftest_harness.h"

#ifndef MPOL_F_NUMA_BALANCING
#define MPOL_F_NUMA_BALANCING	(1 << 13)
#endif

#define VMA_SIZE	(1UL << 20)

struct target {
	pid_t pid;
	int release;		/* write end: closing it lets the child exit */
	unsigned long addr;	/* its VMA */
	int err;		/* the child's errno of set_mempolicy(), or 0 */
};

/*
 * Fork a child that sets MODE (MPOL_DEFAULT: none) with FLAGS on nodes
 * 0-1, maps and touches VMA_SIZE of anonymous memory and waits for
 * T->release to be closed. 0, or -errno.
 */
static int target_start(struct target *t, int mode, int flags)
{
	int ready[2], rel[2];
	struct { unsigned long addr; int err; } msg;
	ssize_t n;

	memset(t, 0, sizeof(*t));
	t->release = -1;
	if (pipe(ready) || pipe(rel))
		return -errno;
	t->pid = fork();
	if (t->pid < 0)
		return -errno;
	if (t->pid == 0) {
		unsigned long mask = 3;	/* nodes 0-1 */
		char c, *p;

		close(ready[0]);
		close(rel[1]);
		msg.addr = 0;
		msg.err = 0;
		if (mode != MPOL_DEFAULT &&
		    syscall(SYS_set_mempolicy, mode | flags, &mask, sizeof(mask) * 8))
			msg.err = errno;
		p = mmap(NULL, VMA_SIZE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED) {
			memset(p, 1, VMA_SIZE);
			msg.addr = (unsigned long)p;
		}
		if (write(ready[1], &msg, sizeof(msg)) != sizeof(msg))
			_exit(1);
		while (read(rel[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(ready[1]);
	close(rel[0]);
	t->release = rel[1];
	n = read(ready[0], &msg, sizeof(msg));
	close(ready[0]);
	if (n != sizeof(msg))
		return -EIO;
	t->addr = msg.addr;
	t->err = msg.err;
	return msg.addr ? 0 : -ENOMEM;
}

static void target_stop(struct target *t)
{
	if (t->release >= 0)
		close(t->release);
	t->release = -1;
	if (t->pid > 0)
		waitpid(t->pid, NULL, 0);
	t->pid = 0;
}

/*
 * The filter= word of T's VMA in /proc/<pid>/numa_vmas and the policy
 * word of its /proc/<pid>/numa_maps line; 0 or -1.
 */
static int target_read(struct target *t, char *filter, char *policy, size_t size,
		       char *line, size_t lsize)
{
	char path[64], l[1024];
	unsigned long start;
	FILE *f;

	if (nv_vma_line(t->pid, (void *)t->addr, line, lsize) ||
	    nv_key_word(line, "filter", filter, size))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/numa_maps", t->pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	policy[0] = '\0';
	while (fgets(l, sizeof(l), f))
		if (sscanf(l, "%lx", &start) == 1 && start == t->addr) {
			snprintf(policy, size, "%.*s", (int)strcspn(l + strcspn(l, " ") + 1, " \n"),
				 l + strcspn(l, " ") + 1);
			break;
		}
	fclose(f);
	return policy[0] ? 0 : -1;
}

FIXTURE(policy) {
	struct target t;
	int rebound;
};

FIXTURE_VARIANT(policy) {
	int target_mode, target_flags;	/* the child's task policy */
	int reader_bind;		/* the reader binds itself to nodes 0-1 */
	const char *want_filter, *want_policy;
};
FIXTURE_VARIANT_ADD(policy, bind_target) {
	.target_mode = MPOL_BIND, .target_flags = 0, .reader_bind = 0,
	.want_filter = "unsuitable", .want_policy = "bind:0-1",
};
FIXTURE_VARIANT_ADD(policy, bind_numa_balancing_target) {
	.target_mode = MPOL_BIND, .target_flags = MPOL_F_NUMA_BALANCING,
	.reader_bind = 0, .want_filter = "none", .want_policy = "bind=balancing:0-1",
};
FIXTURE_VARIANT_ADD(policy, bind_reader) {
	.target_mode = MPOL_DEFAULT, .target_flags = 0, .reader_bind = 1,
	.want_filter = "none", .want_policy = "default",
};

FIXTURE_SETUP(policy)
{
	int ret;

	self->t.release = -1;
	if (access("/proc/self/numa_vmas", R_OK))
		SKIP(return, "no /proc/self/numa_vmas (kernel without the numab series)");
	ret = target_start(&self->t, variant->target_mode, variant->target_flags);
	ASSERT_EQ(ret, 0) TH_LOG("target child: %s", strerror(-ret));
	if (self->t.err == EINVAL && variant->target_flags)
		SKIP(return, "set_mempolicy(MPOL_F_NUMA_BALANCING): EINVAL (kernel older than 5.12?)");
	ASSERT_EQ(self->t.err, 0) TH_LOG("child's set_mempolicy(): %s", strerror(self->t.err));
}

FIXTURE_TEARDOWN(policy)
{
	target_stop(&self->t);
	if (self->rebound)
		nw_bind_node(-1);
}

static void filter_of_target(struct __test_metadata *_metadata,
			     FIXTURE_DATA(policy) *self,
			     const FIXTURE_VARIANT(policy) *variant)
{
	char filter[64], policy[64], line[1024];
	unsigned long mask = 3;
	int mode = -1;

	if (variant->reader_bind) {
		ASSERT_EQ(syscall(SYS_set_mempolicy, MPOL_BIND, &mask, sizeof(mask) * 8), 0);
		self->rebound = 1;
	}
	/* the reader's own policy is what the variant says */
	ASSERT_EQ(syscall(SYS_get_mempolicy, &mode, NULL, 0, NULL, 0), 0);
	ASSERT_EQ(mode, variant->reader_bind ? MPOL_BIND : MPOL_DEFAULT);

	ASSERT_EQ(target_read(&self->t, filter, policy, sizeof(filter), line,
			      sizeof(line)), 0);
	TH_LOG("RESULT numa_vmas_policy: target policy %s (numa_maps), reader policy %s: filter=%s (want %s)",
	       policy, variant->reader_bind ? "bind:0-1" : "default", filter,
	       variant->want_filter);
	TH_LOG("numa_vmas: %s", line);
	/* the child has the policy the test gave it */
	ASSERT_STREQ(policy, variant->want_policy);
	ASSERT_STREQ(filter, variant->want_filter) {
		TH_LOG("numa_vmas shows filter=%s for a VMA whose task policy is %s, read by a task with policy %s",
		       filter, policy, variant->reader_bind ? "bind:0-1" : "default");
	}
}

/* -O0: see first_fault.c (the harness wrapper's setjmp, -Wclobbered) */
#pragma GCC push_options
#pragma GCC optimize("O0")
TEST_F(policy, filter_of_target)
{
	filter_of_target(_metadata, self, variant);
}
#pragma GCC pop_options

TEST_HARNESS_MAIN
