// SPDX-License-Identifier: GPL-2.0
/*
 * srvsample: where a real server's memory is, every second, per process
 * and per region, for the real-server scenarios (scripts/servers).
 *
 *   srvsample -l LABEL (-c COMM[,COMM...] | -r PID) [-i SEC] [-d SEC]
 *             [-s STOPFILE] [-P] [-1]
 *
 * Every -i seconds (default 1) until -d seconds (default: until STOPFILE
 * exists or SIGTERM), for every process whose /proc/PID/comm starts with
 * one of the COMMs (PostgreSQL's backends, Redis' BGSAVE child
 * "redis-rdb-bgsave", memcached) or, with -r, for PID and every process
 * descended from it (one server instance of several), it reads
 * /proc/PID/maps and
 * /proc/PID/numa_maps and sums the pages on each node per region:
 *
 *   shared  shared memory: a shared mapping of anonymous or tmpfs memory
 *           (PostgreSQL's shared_buffers, "/dev/zero (deleted)"; SysV
 *           and POSIX shm; memfd)
 *   text    the server's program file (/proc/PID/exe), all its mappings
 *   heap    private anonymous memory: [heap], malloc arenas, jemalloc and
 *           slab areas (not stacks)
 *   other   the rest: shared libraries, other files, stacks, vDSO
 *
 * "Fast" is memory on a node of the top tier, "slow" on a lower tier
 * (memory_tiering in sysfs). Pages are what each process has mapped, so a
 * shared page counts once per process that maps it: the shares weigh a
 * page by how many processes use it.
 *
 * Output, one line each (key=value):
 *   SRV_SAMPLE label t n_procs seq_max vmstat deltas since the first
 *     sample (hint_faults pte_updates promote_success numa_pages_migrated
 *     and the numab skip counters that exist)
 *   SRV_REGION label t region fast_kb slow_kb      (all processes)
 *   SRV_PROC label t pid comm seq region fast_kb slow_kb   (with -P)
 * -1: one sample and exit. Exit status 0; 1 on bad usage.
 */
#include <ctype.h>
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/numab_test.h"

#define MAX_NODES	8
#define MAX_COMMS	8

enum region { R_SHARED, R_TEXT, R_HEAP, R_OTHER, NREGION };
static const char *const region_name[NREGION] = { "shared", "text", "heap", "other" };

static int node_fast[MAX_NODES];
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* node N is in the top tier: the tier with the lowest abstract distance */
static void read_tiers(void)
{
	int n, top = -1;

	for (n = 0; n < MAX_NODES; n++) {
		int t = nt_node_tier(n);

		node_fast[n] = t;
		if (t >= 0 && (top < 0 || t < top))
			top = t;
	}
	for (n = 0; n < MAX_NODES; n++)
		node_fast[n] = node_fast[n] >= 0 && node_fast[n] == top;
}

struct mapping {
	unsigned long start;
	enum region region;
};

/* the regions of PID's mappings from /proc/PID/maps, by start address */
static int read_maps(pid_t pid, const char *exe, struct mapping **out, int *n)
{
	char path[64], line[4096];
	struct mapping *m = NULL;
	int cap = 0, cnt = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long start, end, off, ino;
		char perms[8], dev[16];
		int pos = 0;
		char *name;
		enum region r;

		if (sscanf(line, "%lx-%lx %7s %lx %15s %lu %n", &start, &end,
			   perms, &off, dev, &ino, &pos) < 6)
			continue;
		name = line + pos;
		name[strcspn(name, "\n")] = '\0';
		if (perms[3] == 's' && (ino == 0 || !strncmp(name, "/dev/zero", 9) ||
					!strncmp(name, "/SYSV", 5) ||
					!strncmp(name, "/dev/shm/", 9) ||
					!strncmp(name, "/memfd:", 7)))
			r = R_SHARED;
		else if (*exe && !strcmp(name, exe))
			r = R_TEXT;
		else if (!strcmp(name, "[heap]") ||
			 (*name == '\0' && perms[3] == 'p') ||
			 !strncmp(name, "[anon:", 6))
			r = R_HEAP;
		else
			r = R_OTHER;
		if (cnt == cap) {
			struct mapping *nm;

			cap = cap ? 2 * cap : 256;
			nm = realloc(m, cap * sizeof(*m));
			if (!nm) {
				free(m);
				fclose(f);
				return -1;
			}
			m = nm;
		}
		m[cnt].start = start;
		m[cnt].region = r;
		cnt++;
	}
	fclose(f);
	*out = m;
	*n = cnt;
	return 0;
}

/* kB per node and region of PID, from numa_maps joined with maps */
static int sample_pid(pid_t pid, long long kb[NREGION][MAX_NODES])
{
	char path[64], exe[4096] = "", line[8192];
	struct mapping *m = NULL;
	int nm = 0, i = 0;
	ssize_t len;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	len = readlink(path, exe, sizeof(exe) - 1);
	exe[len > 0 ? len : 0] = '\0';
	if (read_maps(pid, exe, &m, &nm))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/numa_maps", pid);
	f = fopen(path, "re");
	if (!f) {
		free(m);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long start = strtoul(line, NULL, 16), pkb = 4;
		enum region r = R_OTHER;
		char *p;

		/* both files list the VMAs in address order */
		while (i < nm && m[i].start < start)
			i++;
		if (i < nm && m[i].start == start)
			r = m[i].region;
		p = strstr(line, "kernelpagesize_kB=");
		if (p)
			pkb = strtoul(p + 18, NULL, 10);
		for (p = line; (p = strstr(p, " N")); p++) {
			char *e;
			long node = strtol(p + 2, &e, 10);

			if (*e != '=' || node < 0 || node >= MAX_NODES)
				continue;
			kb[r][node] += strtoll(e + 1, NULL, 10) * pkb;
		}
	}
	fclose(f);
	free(m);
	return 0;
}

/* the parent of PID from /proc/PID/stat ("pid (comm) state ppid ..."), or -1 */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	int ppid;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (nt_read(path, buf, sizeof(buf)) <= 0)
		return -1;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return -1;
	return ppid;
}

/* PID is ROOT or descends from it */
static int descends(pid_t pid, pid_t root)
{
	int depth;

	for (depth = 0; depth < 64 && pid > 1; depth++) {
		if (pid == root)
			return 1;
		pid = parent_of(pid);
	}
	return 0;
}

static int comm_matches(pid_t pid, char **comms, int ncomms, pid_t root,
			char *comm, size_t sz)
{
	char path[64];
	int i;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (nt_read(path, comm, sz) <= 0)
		return 0;
	comm[strcspn(comm, "\n")] = '\0';
	if (root > 0)
		return descends(pid, root);
	for (i = 0; i < ncomms; i++)
		if (!strncmp(comm, comms[i], strlen(comms[i])))
			return 1;
	return 0;
}

static const char *const counters[] = {
	"numa_hint_faults", "numa_pte_updates", "pgpromote_success",
	"numa_pages_migrated", "numa_vma_skip_pid", "numa_vma_skip_shared_ro",
	"numa_vma_skip_scan_delay", "numa_vma_promo_scans",
	"numa_promo_pte_updates",
};
#define NCOUNTERS	(sizeof(counters) / sizeof(counters[0]))

static void read_counters(long long *v)
{
	unsigned int i;

	for (i = 0; i < NCOUNTERS; i++)
		v[i] = nt_vmstat(counters[i]);
}

static void usage(void)
{
	fprintf(stderr, "usage: srvsample -l LABEL (-c COMM[,COMM...] | -r PID) [-i SEC] [-d SEC] [-s STOPFILE] [-P] [-1]\n");
	exit(1);
}

int main(int argc, char **argv)
{
	const char *label = "srv", *stopfile = NULL;
	double interval = 1, duration = 0, t0, next;
	char *comms[MAX_COMMS], *list = NULL;
	long long c0[NCOUNTERS], c1[NCOUNTERS];
	int ncomms = 0, per_proc = 0, once = 0, opt;
	pid_t root = 0;

	while ((opt = getopt(argc, argv, "l:c:r:i:d:s:P1")) != -1) {
		switch (opt) {
		case 'l': label = optarg; break;
		case 'c': list = optarg; break;
		case 'r': root = atoi(optarg); break;
		case 'i': interval = atof(optarg); break;
		case 'd': duration = atof(optarg); break;
		case 's': stopfile = optarg; break;
		case 'P': per_proc = 1; break;
		case '1': once = 1; break;
		default: usage();
		}
	}
	if ((!list && root <= 0) || interval <= 0)
		usage();
	for (char *tok = list ? strtok(list, ",") : NULL; tok && ncomms < MAX_COMMS;
	     tok = strtok(NULL, ","))
		comms[ncomms++] = tok;
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	read_tiers();
	read_counters(c0);
	t0 = nt_now();
	next = t0;
	while (!stop) {
		long long tot[NREGION][MAX_NODES];
		double t = nt_now() - t0;
		long seq_max = -1;
		int nprocs = 0, r, n;
		struct dirent *de;
		unsigned int c;
		DIR *d;

		memset(tot, 0, sizeof(tot));
		d = opendir("/proc");
		while (d && (de = readdir(d))) {
			long long kb[NREGION][MAX_NODES];
			char comm[64];
			pid_t pid;
			long seq;

			if (!isdigit((unsigned char)de->d_name[0]))
				continue;
			pid = atoi(de->d_name);
			if (pid == getpid() || !comm_matches(pid, comms, ncomms, root, comm, sizeof(comm)))
				continue;
			memset(kb, 0, sizeof(kb));
			if (sample_pid(pid, kb))
				continue;	/* exited meanwhile */
			seq = nt_scan_seq_of(pid);
			if (seq > seq_max)
				seq_max = seq;
			nprocs++;
			for (r = 0; r < NREGION; r++) {
				long long fast = 0, slow = 0;

				for (n = 0; n < MAX_NODES; n++) {
					tot[r][n] += kb[r][n];
					if (node_fast[n])
						fast += kb[r][n];
					else
						slow += kb[r][n];
				}
				if (per_proc && fast + slow)
					printf("SRV_PROC label=%s t=%.1f pid=%d comm=%s seq=%ld region=%s fast_kb=%lld slow_kb=%lld\n",
					       label, t, pid, comm, seq, region_name[r], fast, slow);
			}
		}
		if (d)
			closedir(d);
		read_counters(c1);
		printf("SRV_SAMPLE label=%s t=%.1f procs=%d seq_max=%ld", label, t, nprocs, seq_max);
		for (c = 0; c < NCOUNTERS; c++)
			if (c1[c] >= 0)
				printf(" %s=%lld", counters[c], c1[c] - c0[c]);
		printf("\n");
		for (r = 0; r < NREGION; r++) {
			long long fast = 0, slow = 0;

			for (n = 0; n < MAX_NODES; n++) {
				if (node_fast[n])
					fast += tot[r][n];
				else
					slow += tot[r][n];
			}
			printf("SRV_REGION label=%s t=%.1f region=%s fast_kb=%lld slow_kb=%lld\n",
			       label, t, region_name[r], fast, slow);
		}
		fflush(stdout);
		if (once || (duration > 0 && t >= duration) ||
		    (stopfile && !access(stopfile, F_OK)))
			break;
		next += interval;
		while (!stop && nt_now() < next)
			usleep(20000);
	}
	return 0;
}
