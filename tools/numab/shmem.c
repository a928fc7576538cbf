// SPDX-License-Identifier: GPL-2.0
/*
 * What the running kernel does with a VMA that has vm_ops->get_policy
 * (shmem, memfd, SysV shm, a file on tmpfs) but no memory policy of its
 * own: task_numa_work() skips a VMA unless vma_policy_mof() says its
 * policy allows migration-on-fault, and kernels differ in which policy
 * that is for such a VMA:
 *
 *  - stable 6.12 from 6.12.109 on ("mm: mempolicy: fix automatic numa
 *    balancing for shmem", Debian's changelog of 6.12.111-1; the source
 *    of 6.12.117) and mainline 7.3 (vma_task_policy_mof() in the source
 *    of 7.3-rc7) fall back to the task policy: the VMA is scanned;
 *  - mainline kernels before it (the get_policy branch of vma_policy_mof()
 *    returns false without a shared policy) and 6.18 (measured with
 *    filter_oracle and the tracepoint) do not: it is "unsuitable".
 *
 * The BPF backend computes both filters for such a VMA (backend.c, into
 * nx_numab_vma.maybe[]); the one shown is picked here, from what is known
 * of this kernel, in this order:
 *
 *  1. learned from its sched_skip_vma_numa tracepoint by an earlier
 *     `numabctl trace` in this boot (the cache, nx_shmem_learn());
 *  2. its release, where the release tells: 6.12.y with y >= 109, and
 *     7.3 or later;
 *  3. a VMA of the process read now that only the fallback lets the
 *     scanner visit (it has a numab_state);
 *
 * else the filter stays "uncertain", and vmas says how to learn it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "numabctl.h"

/* the cache of what a trace learned: NUMABCTL_KERNEL_RULES or <sysroot>/run/numabctl.kernel */
static void cache_path(char *buf, size_t sz)
{
	const char *e = getenv("NUMABCTL_KERNEL_RULES");

	if (e && *e)
		snprintf(buf, sz, "%s", e);
	else
		nx_path(buf, sz, "/run/numabctl.kernel");
}

static void boot_id(char *buf, size_t sz)
{
	char path[4096];

	nx_path(path, sizeof(path), "/proc/sys/kernel/random/boot_id");
	if (nx_read_str(path, buf, sz))
		buf[0] = '\0';
}

/* a release's end: nothing, or what distributions put after the numbers */
static int release_end(char c)
{
	return !c || c == '-' || c == '+' || c == '.' || c == '_';
}

int nx_shmem_rule_release(const char *release, char *how, size_t sz)
{
	unsigned int major = 0, minor = 0, sub = 0;
	int n = 0, m = 0;

	/* MAJOR.MINOR[.SUB]: Debian names 7.3's ABI "7.3-amd64", without SUB */
	if (!release || sscanf(release, "%u.%u%n", &major, &minor, &n) != 2)
		major = minor = 0;
	else if (release[n] == '.' && sscanf(release + n, ".%u%n", &sub, &m) == 1)
		n += m;
	if (!release || !release_end(release[n]))
		major = minor = sub = 0;
	if (major == 6 && minor == 12 && sub >= 109) {
		snprintf(how, sz, "kernel %s: stable 6.12 falls back to the task policy "
			 "since 6.12.109", release);
		return NX_SHMEM_TASKPOL;
	}
	/* read in 7.3-rc7's source: vma_task_policy_mof() */
	if (major > 7 || (major == 7 && minor >= 3)) {
		snprintf(how, sz, "kernel %s: mainline falls back to the task policy "
			 "in 7.3 and later", release);
		return NX_SHMEM_TASKPOL;
	}
	snprintf(how, sz, "kernel %s: its release does not tell whether vma_policy_mof() "
		 "falls back to the task policy for shmem", release ? release : "?");
	return NX_SHMEM_UNKNOWN;
}

struct cache {
	char boot[64];
	int rule;
	char how[256];
};

static int cache_line(void *priv, const char *line, size_t len, unsigned long no)
{
	struct cache *c = priv;

	(void)no;
	if (len > 8 && !memcmp(line, "boot_id=", 8))
		snprintf(c->boot, sizeof(c->boot), "%.*s", (int)(len - 8), line + 8);
	else if (nx_span_eq((struct nx_span){ line, len }, "shmem_task_policy=yes"))
		c->rule = NX_SHMEM_TASKPOL;
	else if (nx_span_eq((struct nx_span){ line, len }, "shmem_task_policy=no"))
		c->rule = NX_SHMEM_NOPOL;
	else if (len > 8 && !memcmp(line, "learned=", 8))
		snprintf(c->how, sizeof(c->how), "%.*s", (int)(len - 8), line + 8);
	return 0;
}

int nx_shmem_rule(char *how, size_t sz)
{
	char path[4096], rel[128], boot[64];
	struct cache c = { .rule = NX_SHMEM_UNKNOWN };

	cache_path(path, sizeof(path));
	boot_id(boot, sizeof(boot));
	if (boot[0] && !nx_for_each_line(path, cache_line, &c) && !strcmp(c.boot, boot) &&
	    c.rule != NX_SHMEM_UNKNOWN) {
		snprintf(how, sz, "learned from the sched_skip_vma_numa tracepoint (%s)",
			 c.how[0] ? c.how : path);
		return c.rule;
	}
	nx_path(path, sizeof(path), "/proc/sys/kernel/osrelease");
	if (nx_read_str(path, rel, sizeof(rel)))
		snprintf(rel, sizeof(rel), "?");
	return nx_shmem_rule_release(rel, how, sz);
}

static bool uncertain(const struct nx_vma *v)
{
	/* maybe[] is set only with "uncertain": no strcmp for every VMA */
	return v->in_numab && v->nv.maybe[0] && v->nv.filter == NX_SYM_UNCERTAIN;
}

void nx_shmem_resolve(struct nx_vmlist *l)
{
	char how[256];
	size_t n = 0;
	int rule;

	for (size_t i = 0; i < l->n; i++)
		n += uncertain(&l->v[i]);
	if (!n)
		return;
	rule = nx_shmem_rule(how, sizeof(how));
	/* a VMA only the fallback lets the scanner visit, visited */
	for (size_t i = 0; rule == NX_SHMEM_UNKNOWN && i < l->n; i++)
		if (uncertain(&l->v[i]) && l->v[i].nv.state == NX_SYM_OK) {
			rule = NX_SHMEM_TASKPOL;
			snprintf(how, sizeof(how), "the scanner visited %llx, which only the "
				 "fallback to the task policy allows",
				 (unsigned long long)l->v[i].start);
		}
	for (size_t i = 0; rule != NX_SHMEM_UNKNOWN && i < l->n; i++) {
		struct nx_numab_vma *nv = &l->v[i].nv;

		if (!uncertain(&l->v[i]))
			continue;
		nv->filter = nv->maybe[rule == NX_SHMEM_TASKPOL];
	}
	if (rule == NX_SHMEM_UNKNOWN)
		snprintf(l->shmem_note, sizeof(l->shmem_note), "the filter of %zu VMA%s (shmem "
			 "or tmpfs without a memory policy) is uncertain: %s; 'numabctl trace' of a "
			 "process with such a VMA, as root with NUMA balancing on, learns it", n,
			 n == 1 ? "" : "s", how);
}

int nx_shmem_learn(const struct nx_vmlist *l, const struct nx_trace_result *r, pid_t pid)
{
	char path[4096], boot[64], rel[128], buf[1024], date[32], known[256];
	const struct nx_trace_agg *seen = NULL;
	int rule = NX_SHMEM_UNKNOWN, before, e;
	time_t now = time(NULL);
	struct tm tm;

	/* an uncertain VMA skipped as unsuitable: no fallback; anything else: fallback */
	for (size_t i = 0; i < r->n && !seen; i++)
		for (size_t k = 0; k < l->n; k++) {
			const struct nx_vma *v = &l->v[k];

			if (v->start != r->a[i].start || v->end != r->a[i].end ||
			    !v->in_numab || !v->nv.maybe[0])
				continue;
			seen = &r->a[i];
			rule = strcmp(seen->reason, "unsuitable") ? NX_SHMEM_TASKPOL : NX_SHMEM_NOPOL;
			break;
		}
	if (!seen)
		return NX_SHMEM_UNKNOWN;
	before = nx_shmem_rule(known, sizeof(known));
	if (before == rule)
		return rule;	/* known already, and confirmed */
	if (before != NX_SHMEM_UNKNOWN)
		nx_warn("the tracepoint contradicts what numabctl took this kernel to do "
			"(%s)", known);
	boot_id(boot, sizeof(boot));
	nx_path(path, sizeof(path), "/proc/sys/kernel/osrelease");
	if (nx_read_str(path, rel, sizeof(rel)))
		snprintf(rel, sizeof(rel), "?");
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(buf, sizeof(buf), "# numabctl: what this kernel was seen to do (numabctl trace)\n"
		 "boot_id=%s\nrelease=%s\nshmem_task_policy=%s\n"
		 "learned=%s, kernel %s, process %d, VMA %llx-%llx skipped as %s\n",
		 boot, rel, rule == NX_SHMEM_TASKPOL ? "yes" : "no", date, rel, (int)pid,
		 (unsigned long long)seen->start, (unsigned long long)seen->end, seen->reason);
	cache_path(path, sizeof(path));
	e = boot[0] ? nx_write_file(path, buf, strlen(buf)) : -ENOENT;
	nx_warn("learned from the tracepoint: this kernel %s a shmem VMA without a memory "
		"policy (%llx-%llx: %s)%s%s", rule == NX_SHMEM_TASKPOL ?
		"falls back to the task policy for" : "skips as unsuitable",
		(unsigned long long)seen->start, (unsigned long long)seen->end, seen->reason,
		e ? "; not kept: " : "; kept in ", e ? strerror(-e) : path);
	return rule;
}
