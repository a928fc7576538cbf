/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the numab guest tests: procfs/sysfs/debugfs access,
 * page placement through move_pages(2), scan-sequence and vmstat reads.
 * The tests themselves use kselftest_harness.h from the kernel tree.
 */
#ifndef NUMAB_TEST_H
#define NUMAB_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define NUMAB_DEBUGFS "/sys/kernel/debug/sched/numa_balancing"
#define NUMAB_MODE "/proc/sys/kernel/numa_balancing"
#define MPOL_MF_MOVE (1 << 1)

static inline long nt_move_pages(unsigned long count, void **pages,
				 const int *nodes, int *status, int flags)
{
	return syscall(SYS_move_pages, 0, count, pages, nodes, status, flags);
}

/* Read a whole small file into buf; returns bytes read or -errno. */
static inline int nt_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return (int)n;
}

/* write VAL to PATH opened with O_WRONLY | FLAGS; 0 or -errno */
static inline int nt_write_flags(const char *path, const char *val, int flags)
{
	int fd = open(path, O_WRONLY | flags);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

static inline int nt_write(const char *path, const char *val)
{
	return nt_write_flags(path, val, 0);
}

static inline long nt_read_long(const char *path, long def)
{
	char buf[64];

	if (nt_read(path, buf, sizeof(buf)) <= 0)
		return def;
	return strtol(buf, NULL, 0);
}

static inline int nt_write_long(const char *path, long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld", val);
	return nt_write(path, buf);
}

/* Value of KEY in a "key value" file such as /proc/vmstat, or -1. */
static inline long long nt_keyval(const char *path, const char *key)
{
	char line[256], name[128];
	long long v, ret = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %lld", name, &v) == 2 && !strcmp(name, key)) {
			ret = v;
			break;
		}
	}
	fclose(f);
	return ret;
}

static inline long long nt_vmstat(const char *key)
{
	return nt_keyval("/proc/vmstat", key);
}

/* /proc/PID/NAME, /proc/self/NAME for PID 0 */
static inline void nt_proc_path(char *buf, size_t size, pid_t pid, const char *name)
{
	if (pid)
		snprintf(buf, size, "/proc/%d/%s", pid, name);
	else
		snprintf(buf, size, "/proc/self/%s", name);
}

/*
 * The value of KEY in SCHED_DEBUG's /proc/PID/sched (0: this process), -1
 * when it is not there: "mm->numa_scan_seq   :   12",
 * "se.sum_exec_runtime   :   1234.567" (P() and PN() in debug.c).
 */
static inline double nt_sched_value(pid_t pid, const char *key)
{
	char line[256], path[64];
	size_t len = strlen(key);
	double v = -1;
	FILE *f;

	nt_proc_path(path, sizeof(path), pid, "sched");
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, key, len) && (line[len] == ' ' || line[len] == ':') && colon) {
			v = strtod(colon + 1, NULL);
			break;
		}
	}
	fclose(f);
	return v;
}

/* mm->numa_scan_seq of PID, 0 for this process; -1 without SCHED_DEBUG */
static inline long nt_scan_seq_of(pid_t pid)
{
	return (long)nt_sched_value(pid, "mm->numa_scan_seq");
}

static inline long nt_scan_seq(void)
{
	return nt_scan_seq_of(0);
}

/*
 * Pages of the VMA starting at ADDR on NODE, from /proc/self/numa_maps
 * ("7f12a0000000 default anon=16384 dirty=16384 N0=16 N1=16368 ..."), or -1.
 */
static inline long nt_numa_maps_node(const void *addr, int node)
{
	char line[1024], key[16];
	unsigned long start;
	long v = -1;
	FILE *f = fopen("/proc/self/numa_maps", "r");

	if (!f)
		return -1;
	snprintf(key, sizeof(key), " N%d=", node);
	while (fgets(line, sizeof(line), f)) {
		char *p;

		if (sscanf(line, "%lx", &start) != 1 || start != (unsigned long)addr)
			continue;
		p = strstr(line, key);
		v = p ? strtol(p + strlen(key), NULL, 10) : 0;
		break;
	}
	fclose(f);
	return v;
}

static inline double nt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* the CPU time this process has run, in seconds */
static inline double nt_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Milliseconds until PID's mm may start its next scan window (0: this
 * process): next_scan_ms of the mm line of /proc/PID/numa_vmas (the
 * series), which a thread sets to its own scan period when it scans or
 * its period doubles. LLONG_MIN without numa_vmas.
 */
static inline long long nt_next_scan_ms(pid_t pid)
{
	char path[64], line[512], *p;
	long long ms = LLONG_MIN;
	FILE *f;

	nt_proc_path(path, sizeof(path), pid, "numa_vmas");
	f = fopen(path, "re");
	if (!f)
		return ms;
	if (fgets(line, sizeof(line), f) && (p = strstr(line, " next_scan_ms=")))
		ms = strtoll(p + strlen(" next_scan_ms="), NULL, 10);
	fclose(f);
	return ms;
}

/* The memory tier (memory_tierN) that holds NODE, or -1. */
static inline int nt_node_tier(int node)
{
	char path[128], buf[256];
	int tier;

	for (tier = 0; tier < 4096; tier++) {
		int lo, hi, n;
		char *p;

		snprintf(path, sizeof(path),
			 "/sys/devices/virtual/memory_tiering/memory_tier%d/nodelist",
			 tier);
		if (nt_read(path, buf, sizeof(buf)) <= 0)
			continue;
		/* nodelist is a cpulist-style range list: "0", "0-1", "0,2-3" */
		for (p = buf; *p; ) {
			n = sscanf(p, "%d-%d", &lo, &hi);
			if (n < 1)
				break;
			if (n == 1)
				hi = lo;
			if (node >= lo && node <= hi)
				return tier;
			p += strcspn(p, ",");
			if (*p == ',')
				p++;
		}
	}
	return -1;
}

/* Where the pages of a buffer are: count per node 0/1 and elsewhere. */
struct nt_placement {
	long node[2];
	long other;
};

/*
 * Count per node the pages BUF + (FIRST + i * STRIDE) * PAGESZ for i < N
 * of process PID, 0 for this one (move_pages(2) query). Returns 0 or -errno.
 */
static inline int nt_placement_of(pid_t pid, char *buf, long first,
				  long stride, long n, long pagesz,
				  struct nt_placement *pl)
{
	void **pages = calloc(n, sizeof(*pages));
	int *status = calloc(n, sizeof(*status));
	long i;
	int ret = 0;

	if (!pages || !status) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		pages[i] = buf + (first + i * stride) * pagesz;
	if (syscall(SYS_move_pages, pid, n, pages, NULL, status, 0)) {
		ret = -errno;
		goto out;
	}
	memset(pl, 0, sizeof(*pl));
	for (i = 0; i < n; i++) {
		if (status[i] == 0 || status[i] == 1)
			pl->node[status[i]]++;
		else
			pl->other++;
	}
out:
	free(pages);
	free(status);
	return ret;
}

static inline int nt_placement_strided(char *buf, long first, long stride,
				       long n, long pagesz, struct nt_placement *pl)
{
	return nt_placement_of(0, buf, first, stride, n, pagesz, pl);
}

static inline int nt_placement(char *buf, long npages, long pagesz,
			       struct nt_placement *pl)
{
	return nt_placement_strided(buf, 0, 1, npages, pagesz, pl);
}

/*
 * Move the pages BUF + (FIRST + i * STRIDE) * PAGESZ, i < N, to NODE;
 * returns the number of pages not moved or -errno.
 */
static inline long nt_move_strided(char *buf, long first, long stride, long n,
				   long pagesz, int node)
{
	void **pages = calloc(n, sizeof(*pages));
	int *nodes = calloc(n, sizeof(*nodes));
	int *status = calloc(n, sizeof(*status));
	long i, left;

	if (!pages || !nodes || !status) {
		left = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		pages[i] = buf + (first + i * stride) * pagesz;
		nodes[i] = node;
	}
	left = nt_move_pages(n, pages, nodes, status, MPOL_MF_MOVE);
	if (left < 0)
		left = -errno;
out:
	free(pages);
	free(nodes);
	free(status);
	return left;
}

/* Move every page of a buffer to NODE; returns pages not moved or -errno. */
static inline long nt_move_all(char *buf, long npages, long pagesz, int node)
{
	return nt_move_strided(buf, 0, 1, npages, pagesz, node);
}

/*
 * Saved NUMA-balancing tunables, so a test can lower the scan delay and
 * period and put everything back in its teardown.
 */
struct nt_tunables {
	long mode, scan_delay, period_min, period_max, scan_size;
};

static inline void nt_tunables_save(struct nt_tunables *t)
{
	t->mode = nt_read_long(NUMAB_MODE, -1);
	t->scan_delay = nt_read_long(NUMAB_DEBUGFS "/scan_delay_ms", -1);
	t->period_min = nt_read_long(NUMAB_DEBUGFS "/scan_period_min_ms", -1);
	t->period_max = nt_read_long(NUMAB_DEBUGFS "/scan_period_max_ms", -1);
	t->scan_size = nt_read_long(NUMAB_DEBUGFS "/scan_size_mb", -1);
}

static inline int nt_tunables_set(const struct nt_tunables *t)
{
	int ret = 0;

	if (t->mode >= 0)
		ret |= nt_write_long(NUMAB_MODE, t->mode);
	if (t->scan_delay >= 0)
		ret |= nt_write_long(NUMAB_DEBUGFS "/scan_delay_ms", t->scan_delay);
	/* max before min so that min <= max holds at every step */
	if (t->period_max >= 0)
		ret |= nt_write_long(NUMAB_DEBUGFS "/scan_period_max_ms", t->period_max);
	if (t->period_min >= 0)
		ret |= nt_write_long(NUMAB_DEBUGFS "/scan_period_min_ms", t->period_min);
	if (t->scan_size >= 0)
		ret |= nt_write_long(NUMAB_DEBUGFS "/scan_size_mb", t->scan_size);
	return ret;
}

/*
 * The numab series' filter sysctls (kernel.numa_balancing_filter_*).
 * Legacy settings reproduce the stock scanner on a patched kernel, so a
 * test can run before and after in one boot.
 */
#define NUMAB_FILTER "/proc/sys/kernel/numa_balancing_filter_"

struct nt_filters {
	long pid, shared_ro, scan_delay, cpuset;
	long shared_folio;	/* -1: a series without this sysctl */
	long promo_slowdown;	/* -1: a series without this sysctl */
};

static const struct nt_filters nt_filters_legacy = { 1, 1, 1, 0, 1, 1 };
static const struct nt_filters nt_filters_default = { 2, 2, 1, 1, 2, 0 };

/* Returns 0, or -ENOENT on a kernel without the sysctls. */
static inline int nt_filters_save(struct nt_filters *f)
{
	f->pid = nt_read_long(NUMAB_FILTER "pid", -1);
	f->shared_ro = nt_read_long(NUMAB_FILTER "shared_ro", -1);
	f->scan_delay = nt_read_long(NUMAB_FILTER "scan_delay", -1);
	f->cpuset = nt_read_long(NUMAB_FILTER "cpuset", -1);
	f->shared_folio = nt_read_long(NUMAB_FILTER "shared_folio", -1);
	f->promo_slowdown = nt_read_long(NUMAB_FILTER "promo_slowdown", -1);
	if (f->pid < 0 || f->shared_ro < 0 || f->scan_delay < 0 || f->cpuset < 0)
		return -ENOENT;
	return 0;
}

static inline int nt_filters_set(const struct nt_filters *f)
{
	int ret = 0;

	if (f->pid < 0)
		return 0;	/* nothing saved */
	ret |= nt_write_long(NUMAB_FILTER "pid", f->pid);
	ret |= nt_write_long(NUMAB_FILTER "shared_ro", f->shared_ro);
	ret |= nt_write_long(NUMAB_FILTER "scan_delay", f->scan_delay);
	ret |= nt_write_long(NUMAB_FILTER "cpuset", f->cpuset);
	if (f->shared_folio >= 0 &&
	    nt_read_long(NUMAB_FILTER "shared_folio", -1) >= 0)
		ret |= nt_write_long(NUMAB_FILTER "shared_folio", f->shared_folio);
	if (f->promo_slowdown >= 0 &&
	    nt_read_long(NUMAB_FILTER "promo_slowdown", -1) >= 0)
		ret |= nt_write_long(NUMAB_FILTER "promo_slowdown", f->promo_slowdown);
	return ret;
}

/*
 * Apply the filters a test variant asks for: LEGACY needs the sysctls
 * (returns -ENOENT without them, for the caller to skip); the numab
 * defaults are set when the sysctls exist and are what a kernel without
 * them is tested for otherwise. SAVED gets what to restore.
 */
static inline int nt_filters_apply(int legacy, struct nt_filters *saved)
{
	if (nt_filters_save(saved)) {
		saved->pid = -1;
		return legacy ? -ENOENT : 0;
	}
	return nt_filters_set(legacy ? &nt_filters_legacy : &nt_filters_default);
}

#endif /* NUMAB_TEST_H */
