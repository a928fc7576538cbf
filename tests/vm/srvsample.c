// SPDX-License-Identifier: GPL-2.0
/*
 * srvsample: where a real server's memory is, and where the memory it
 * uses is, every second, for the real-server scenarios (tests/vm/servers.sh).
 *
 *   srvsample -l LABEL (-c COMM[,COMM...] | -r PID) [-i SEC] [-d SEC]
 *             [-s STOPFILE] [-P] [-H] [-1]
 *
 * Every -i seconds (default 1) until -d seconds (default: until STOPFILE
 * exists or SIGTERM), for every process whose /proc/PID/comm starts with
 * one of the COMMs or, with -r, for PID and every process descended from
 * it (one server instance of several), it reads /proc/PID/maps and
 * /proc/PID/pagemap: the physical page behind each mapped virtual page,
 * counted once however many processes map it, per region:
 *
 *   shared  shared memory: a shared mapping of anonymous or tmpfs memory
 *           (PostgreSQL's shared_buffers, "/dev/zero (deleted)"; SysV and
 *           POSIX shm; memfd)
 *   text    the server's program file (/proc/PID/exe), all its mappings
 *   heap    private anonymous memory: [heap], malloc arenas, jemalloc and
 *           slab areas (not stacks)
 *   other   the rest: shared libraries, other files, stacks, vDSO
 *
 * and per node: "fast" is a node of the top memory tier, "slow" one of a
 * lower tier. With idle page tracking (/sys/kernel/mm/page_idle/bitmap,
 * CONFIG_IDLE_PAGE_TRACKING) it also estimates the pages used since the
 * previous sample: every sample marks one in 16 of the pages it saw idle,
 * and the next one counts those the server touched meanwhile (hot, times
 * 16). The hot share is
 * where the memory the server works with is; the mapped share includes
 * memory that a process mapped once and left (a forked backend's
 * inherited heap, an idle auxiliary process).
 *
 * Output, one line each (key=value):
 *   SRV_SAMPLE label t procs seq_max idle=0|1 walk_s idle_s (the seconds
 *     the sample took to read the page tables and the idle bits) and the
 *     vmstat deltas
 *     since the first sample (numa_hint_faults numa_pte_updates
 *     pgpromote_success numa_pages_migrated and the numab counters that
 *     exist)
 *   SRV_REGION label t region fast_kb slow_kb hot_fast_kb hot_slow_kb
 *     (unique pages of all the processes; hot_* with idle=1 from the
 *     second sample on)
 *   SRV_PROC label t pid comm seq cpu_ms [next_scan_ms] region fast_kb
 *     slow_kb (with -P; cpu_ms: the CPU time of its main thread
 *     (se.sum_exec_runtime of /proc/PID/sched, CONFIG_SCHED_DEBUG; -1
 *     without), which paces the scan of a single-threaded process such as
 *     a PostgreSQL backend; next_scan_ms: the mm line's of
 *     /proc/PID/numa_vmas (the series), the time until the mm's next
 *     scan window may start, which a thread sets to its own scan period
 *     when it scans or its period doubles; the pages this process maps,
 *     shared ones counted in each)
 *   SRV_HOTSLOW label t pfn region pid comm maps off map (with -H and
 *     idle tracking: each followed page used since the previous sample
 *     that is on a slow node, with one process that maps it (the first
 *     one walked), how many of the server's processes map it, the page's
 *     offset in its file (in the mapping when it has no file) and, last
 *     since it may hold spaces, the name of that mapping in
 *     /proc/PID/maps; "?" when that process exited meanwhile)
 * -1: one sample and exit. Exit status 0; 1 on bad usage or when
 * /proc/PID/pagemap gives no page frame numbers (not root).
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
#define PM_PRESENT	(1ULL << 63)
#define PM_PFN_MASK	((1ULL << 55) - 1)
#define IDLE_BITMAP	"/sys/kernel/mm/page_idle/bitmap"
#define IDLE_EVERY	16	/* idle tracking follows one page in 16 */

enum region { R_SHARED, R_TEXT, R_HEAP, R_OTHER, NREGION };
static const char *const region_name[NREGION] = { "shared", "text", "heap", "other" };

static int node_fast[MAX_NODES];
static volatile sig_atomic_t stop;

/* physical pages: per-sample bitmaps */
static unsigned long max_pfn;
static uint64_t *seen;			/* PFNs mapped by the server this sample */
static uint64_t *idle;			/* the idle bitmap read this sample */
static unsigned char *pfn_region;	/* region + 1 of a seen PFN */
static int idle_fd = -1, have_idle;

/* -H: one process and address of each followed page, by PFN / IDLE_EVERY */
struct owner {
	pid_t pid;
	unsigned long va;
	unsigned int maps;	/* the server's processes that map it */
	pid_t last;		/* the last of them walked */
};
static struct owner *owner;

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
		node_fast[n] = top < 0 || (node_fast[n] >= 0 && node_fast[n] == top);
}

/*
 * The node of every physical page, from the zones in /proc/zoneinfo
 * ("Node 1, zone   Normal" ... "start_pfn: 524288", "spanned 524288").
 */
#define MAX_RANGES	64
static struct { unsigned long start, end; int node; } ranges[MAX_RANGES];
static int nranges;

static int read_ranges(void)
{
	FILE *f = fopen("/proc/zoneinfo", "re");
	unsigned long spanned = 0, start;
	char line[256];
	int node = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone", &node) == 1) {
			spanned = 0;
			continue;
		}
		if (sscanf(line, " spanned %lu", &spanned) == 1)
			continue;
		if (sscanf(line, " start_pfn: %lu", &start) == 1 && spanned &&
		    node >= 0 && nranges < MAX_RANGES) {
			ranges[nranges].start = start;
			ranges[nranges].end = start + spanned;
			ranges[nranges].node = node;
			if (start + spanned > max_pfn)
				max_pfn = start + spanned;
			nranges++;
		}
	}
	fclose(f);
	if (!nranges)
		return -1;
	seen = calloc(max_pfn / 64 + 1, sizeof(*seen));
	idle = calloc(max_pfn / 64 + 1, sizeof(*idle));
	pfn_region = calloc(max_pfn, 1);
	return seen && idle && pfn_region ? 0 : -1;
}

static int pfn_node(unsigned long pfn)
{
	int i;

	for (i = 0; i < nranges; i++)
		if (pfn >= ranges[i].start && pfn < ranges[i].end)
			return ranges[i].node;
	return -1;
}

struct mapping {
	unsigned long start, end;
	enum region region;
};

/*
 * One line of /proc/PID/maps: its range, permissions, file offset and
 * inode, and in *NAME the name (empty for anonymous memory, newline cut).
 * Returns 0, or -1 for a line that is not one.
 */
static int maps_line(char *line, unsigned long *start, unsigned long *end,
		     char perms[8], unsigned long *off, unsigned long *ino, char **name)
{
	char dev[16];
	int pos = 0;

	if (sscanf(line, "%lx-%lx %7s %lx %15s %lu %n", start, end, perms, off,
		   dev, ino, &pos) < 6)
		return -1;
	*name = line + pos;
	(*name)[strcspn(*name, "\n")] = '\0';
	return 0;
}

/* the regions of PID's mappings from /proc/PID/maps */
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
		char perms[8];
		char *name;
		enum region r;

		if (maps_line(line, &start, &end, perms, &off, &ino, &name))
			continue;
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
		if (!strcmp(name, "[vsyscall]"))
			continue;	/* not in pagemap's range */
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
		m[cnt].end = end;
		m[cnt].region = r;
		cnt++;
	}
	fclose(f);
	*out = m;
	*n = cnt;
	return 0;
}

/*
 * kB per node and region of the pages PID maps, from pagemap; each page
 * is also marked in seen[] with its region. Returns the number of present
 * pages, -1 when PID is gone.
 */
static long sample_pid(pid_t pid, long long kb[NREGION][MAX_NODES], long *nopfn)
{
	static uint64_t buf[4096];
	char path[64], exe[4096] = "";
	long kb_page = getpagesize() / 1024, present = 0;
	struct mapping *m = NULL;
	int nm = 0, i, fd;
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	len = readlink(path, exe, sizeof(exe) - 1);
	exe[len > 0 ? len : 0] = '\0';
	if (read_maps(pid, exe, &m, &nm))
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/pagemap", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(m);
		return -1;
	}
	for (i = 0; i < nm; i++) {
		unsigned long va = m[i].start, psz = getpagesize();

		while (va < m[i].end) {
			size_t want = (m[i].end - va) / psz, k;
			ssize_t got;

			if (want > sizeof(buf) / sizeof(buf[0]))
				want = sizeof(buf) / sizeof(buf[0]);
			got = pread(fd, buf, want * 8, (off_t)(va / psz) * 8);
			if (got <= 0)
				break;
			for (k = 0; k < (size_t)got / 8; k++) {
				unsigned long pfn;
				int node, first;

				if (!(buf[k] & PM_PRESENT))
					continue;
				present++;
				pfn = buf[k] & PM_PFN_MASK;
				if (!pfn) {
					(*nopfn)++;
					continue;
				}
				node = pfn_node(pfn);
				if (node < 0 || node >= MAX_NODES)
					continue;
				kb[m[i].region][node] += kb_page;
				first = !(seen[pfn / 64] & (1ULL << (pfn % 64)));
				if (first) {
					seen[pfn / 64] |= 1ULL << (pfn % 64);
					pfn_region[pfn] = m[i].region + 1;
				}
				if (owner && !(pfn % IDLE_EVERY)) {
					struct owner *o = &owner[pfn / IDLE_EVERY];

					if (first) {	/* the first process walked */
						o->pid = pid;
						o->va = va + k * psz;
						o->maps = 1;
					} else if (o->last != pid) {
						o->maps++;
					}
					o->last = pid;
				}
			}
			va += (unsigned long)got / 8 * psz;
		}
	}
	close(fd);
	free(m);
	return present;
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

/*
 * Idle page tracking costs two reverse-map walks per page and sample (one
 * to test, one to mark), which under TCG for a buffer pool mapped by
 * twenty processes took seconds: it follows one page in IDLE_EVERY, by
 * page frame number (which says nothing of the region or the node), and
 * the hot figures are scaled up by IDLE_EVERY.
 */
#define IDLE_MASK	0x0001000100010001ULL	/* bits 0, 16, 32, 48 of a word */

/*
 * The idle bitmap for the words that have seen sampled PFNs: bit set =
 * the page was not accessed since it was marked idle.
 */
static void idle_read(void)
{
	unsigned long w, nw = max_pfn / 64 + 1;

	for (w = 0; w < nw; w++) {
		if (!(seen[w] & IDLE_MASK))
			continue;
		if (pread(idle_fd, &idle[w], 8, (off_t)w * 8) != 8)
			idle[w] = ~0ULL;	/* not tracked: never counted hot */
	}
}

/*
 * Mark the sampled seen pages idle, for the next sample. A word the
 * kernel refuses (no pages there) stays untracked: idle_read() then never
 * counts its pages hot.
 */
static void idle_mark(void)
{
	unsigned long w, nw = max_pfn / 64 + 1;

	for (w = 0; w < nw; w++) {
		uint64_t bits = seen[w] & IDLE_MASK;

		if (bits)
			(void)!pwrite(idle_fd, &bits, 8, (off_t)w * 8);
	}
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

/* -H: the followed pages used on a slow node in this sample */
struct hotslow {
	unsigned long pfn;
	int region;
};
static struct hotslow *hs;
static size_t nhs, hs_cap;

static void hs_add(unsigned long pfn, int region)
{
	if (nhs == hs_cap) {
		size_t cap = hs_cap ? 2 * hs_cap : 256;
		struct hotslow *n = realloc(hs, cap * sizeof(*hs));

		if (!n)
			return;	/* named pages are a diagnostic: drop the rest */
		hs = n;
		hs_cap = cap;
	}
	hs[nhs].pfn = pfn;
	hs[nhs].region = region;
	nhs++;
}

static int hs_cmp(const void *a, const void *b)
{
	const struct owner *x = &owner[((const struct hotslow *)a)->pfn / IDLE_EVERY];
	const struct owner *y = &owner[((const struct hotslow *)b)->pfn / IDLE_EVERY];

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->va < y->va ? -1 : x->va > y->va;
}

/*
 * -H: name the pages of hs[]: for each, the mapping of its owner that
 * holds its address in /proc/PID/maps, and the page's offset in the file
 * (in the mapping when it has no file). One read of maps per owner: the
 * pages are sorted by owner and address.
 */
static void print_hotslow(const char *label, double t)
{
	size_t i = 0;

	qsort(hs, nhs, sizeof(*hs), hs_cmp);
	while (i < nhs) {
		const struct owner *o = &owner[hs[i].pfn / IDLE_EVERY];
		pid_t pid = o->pid;
		char path[64], line[4096] = "", comm[64] = "?", *mname = line;
		unsigned long start = 0, end = 0, foff = 0, ino = 0;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		if (nt_read(path, comm, sizeof(comm)) > 0)
			comm[strcspn(comm, "\n")] = '\0';
		snprintf(path, sizeof(path), "/proc/%d/maps", pid);
		f = fopen(path, "re");
		for (; i < nhs && (o = &owner[hs[i].pfn / IDLE_EVERY])->pid == pid; i++) {
			const char *name = "?";
			unsigned long off = 0;

			/* the maps line holding o->va: lines and pages both ascend */
			while (f && o->va >= end && fgets(line, sizeof(line), f)) {
				char perms[8];

				if (maps_line(line, &start, &end, perms, &foff, &ino, &mname))
					start = end = 0;
			}
			if (o->va >= start && o->va < end) {
				name = *mname ? mname : "anon";
				off = (ino ? foff : 0) + (o->va - start);
			}
			printf("SRV_HOTSLOW label=%s t=%.1f pfn=0x%lx region=%s pid=%d comm=%s maps=%u off=0x%lx map=%s\n",
			       label, t, hs[i].pfn, region_name[hs[i].region], pid, comm, o->maps, off, name);
		}
		if (f)
			fclose(f);
	}
	nhs = 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: srvsample -l LABEL (-c COMM[,COMM...] | -r PID) [-i SEC] [-d SEC] [-s STOPFILE] [-P] [-H] [-1]\n");
	exit(1);
}

int main(int argc, char **argv)
{
	const char *label = "srv", *stopfile = NULL;
	double interval = 1, duration = 0, t0, next;
	char *comms[MAX_COMMS], *list = NULL;
	long long c0[NCOUNTERS], c1[NCOUNTERS];
	int ncomms = 0, per_proc = 0, once = 0, hotslow = 0, opt, nsample = 0;
	pid_t root = 0;

	while ((opt = getopt(argc, argv, "l:c:r:i:d:s:PH1")) != -1) {
		switch (opt) {
		case 'l': label = optarg; break;
		case 'c': list = optarg; break;
		case 'r': root = atoi(optarg); break;
		case 'i': interval = atof(optarg); break;
		case 'd': duration = atof(optarg); break;
		case 's': stopfile = optarg; break;
		case 'P': per_proc = 1; break;
		case 'H': hotslow = 1; break;
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
	if (read_ranges()) {
		fprintf(stderr, "srvsample: no zones in /proc/zoneinfo\n");
		return 1;
	}
	idle_fd = open(IDLE_BITMAP, O_RDWR | O_CLOEXEC);
	have_idle = idle_fd >= 0;
	if (hotslow && have_idle)
		owner = calloc(max_pfn / IDLE_EVERY + 1, sizeof(*owner));
	if (hotslow && !owner)
		fprintf(stderr, "srvsample: -H names no page: %s\n",
			have_idle ? "out of memory" : "no idle page tracking (" IDLE_BITMAP ")");
	read_counters(c0);
	t0 = nt_now();
	next = t0;
	while (!stop) {
		long long tot[NREGION][2], hot[NREGION][2];
		double t = nt_now() - t0;
		long seq_max = -1, nopfn = 0;
		int nprocs = 0, r, n;
		unsigned long w;
		struct dirent *de;
		unsigned int c;
		DIR *d;

		double t_walk = nt_now(), t_idle;

		memset(seen, 0, (max_pfn / 64 + 1) * sizeof(*seen));
		d = opendir("/proc");
		while (d && (de = readdir(d))) {
			long long kb[NREGION][MAX_NODES];
			char comm[64];
			pid_t pid;
			long seq;
			double cpu_ms;
			long long next_ms;

			if (!isdigit((unsigned char)de->d_name[0]))
				continue;
			pid = atoi(de->d_name);
			if (pid == getpid() || !comm_matches(pid, comms, ncomms, root, comm, sizeof(comm)))
				continue;
			memset(kb, 0, sizeof(kb));
			if (sample_pid(pid, kb, &nopfn) < 0)
				continue;	/* exited meanwhile */
			seq = nt_scan_seq_of(pid);
			cpu_ms = per_proc ? nt_sched_value(pid, "se.sum_exec_runtime") : -1;
			next_ms = per_proc ? nt_next_scan_ms(pid) : LLONG_MIN;
			if (seq > seq_max)
				seq_max = seq;
			nprocs++;
			for (r = 0; per_proc && r < NREGION; r++) {
				long long fast = 0, slow = 0;

				for (n = 0; n < MAX_NODES; n++) {
					if (node_fast[n])
						fast += kb[r][n];
					else
						slow += kb[r][n];
				}
				if (!(fast + slow))
					continue;
				printf("SRV_PROC label=%s t=%.1f pid=%d comm=%s seq=%ld cpu_ms=%.0f",
				       label, t, pid, comm, seq, cpu_ms);
				if (next_ms != LLONG_MIN)
					printf(" next_scan_ms=%lld", next_ms);
				printf(" region=%s fast_kb=%lld slow_kb=%lld\n", region_name[r], fast, slow);
			}
		}
		if (d)
			closedir(d);
		if (nopfn && !nsample)
			fprintf(stderr, "srvsample: pagemap shows no page frame numbers: run as root\n");
		/* unique pages per region and tier, and those used since the last sample */
		memset(tot, 0, sizeof(tot));
		memset(hot, 0, sizeof(hot));
		t_idle = nt_now();
		t_walk = t_idle - t_walk;
		if (have_idle)
			idle_read();
		for (w = 0; w <= max_pfn / 64; w++) {
			uint64_t bits = seen[w];

			while (bits) {
				int b = __builtin_ctzll(bits);
				unsigned long pfn = w * 64 + b;
				int node = pfn_node(pfn), f;

				bits &= bits - 1;
				if (node < 0 || node >= MAX_NODES || !pfn_region[pfn])
					continue;
				r = pfn_region[pfn] - 1;
				f = node_fast[node] ? 0 : 1;
				tot[r][f]++;
				if (have_idle && nsample && (IDLE_MASK & (1ULL << b)) &&
				    !(idle[w] & (1ULL << b))) {
					hot[r][f] += IDLE_EVERY;
					if (owner && f)
						hs_add(pfn, r);
				}
			}
		}
		if (have_idle)
			idle_mark();
		t_idle = nt_now() - t_idle;
		read_counters(c1);
		printf("SRV_SAMPLE label=%s t=%.1f procs=%d seq_max=%ld idle=%d walk_s=%.2f idle_s=%.2f",
		       label, t, nprocs, seq_max, have_idle && nsample, t_walk, t_idle);
		for (c = 0; c < NCOUNTERS; c++)
			if (c1[c] >= 0)
				printf(" %s=%lld", counters[c], c1[c] - c0[c]);
		printf("\n");
		for (r = 0; r < NREGION; r++) {
			long kb_page = getpagesize() / 1024;

			printf("SRV_REGION label=%s t=%.1f region=%s fast_kb=%lld slow_kb=%lld",
			       label, t, region_name[r], tot[r][0] * kb_page, tot[r][1] * kb_page);
			if (have_idle && nsample)
				printf(" hot_fast_kb=%lld hot_slow_kb=%lld", hot[r][0] * kb_page,
				       hot[r][1] * kb_page);
			printf("\n");
		}
		if (nhs)
			print_hotslow(label, t);
		fflush(stdout);
		nsample++;
		if (once || (duration > 0 && t >= duration) ||
		    (stopfile && !access(stopfile, F_OK)))
			break;
		next += interval;
		while (!stop && nt_now() < next)
			usleep(20000);
	}
	return 0;
}
