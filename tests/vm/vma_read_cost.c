// SPDX-License-Identifier: GPL-2.0
/*
 * vma_read_cost [-H] [-r REPEAT] [-x COMMAND]... [NVMAS...]: the cost of
 * reading /proc/self/maps, /proc/self/numa_vmas and /proc/self/numa_maps
 * of a process with NVMAS mappings (default 1000 10000 100000). A
 * benchmark, not a test: it prints the median and the spread (min..max)
 * of REPEAT (default 7) reads of each, and the ratios numa_vmas/maps and
 * numa_maps/maps measured in the same run. Raises vm.max_map_count when
 * it has to (root).
 *
 * -x COMMAND (repeatable): once the last size is mapped, run COMMAND
 * (split at spaces, every "%p" replaced by this process's PID, stdout to
 * /dev/null) REPEAT times and print its time per run the same way, with
 * the peak RSS of the child (wait4's ru_maxrss) and its ratio to the
 * first COMMAND. The commands are started by a launcher forked before
 * the mappings are made: a child forked from this process would count
 * its parent's RSS in ru_maxrss: e.g. -x 'numabctl vmas %p' against the raw reads it
 * needs, -x 'cat /proc/%p/numa_vmas /proc/%p/numa_maps /proc/%p/maps'.
 *
 * -H: at the end print "HOLD <pid>" and wait for a signal, so that the
 * process can be inspected with its mappings.
 *
 * The mappings are one-page anonymous mappings with alternating
 * protections, so that none of them merge, each touched once.
 * NUMAB_BENCH=1 adds "BENCH p5 ..." / "BENCH p6 ..." lines for
 * scripts/bench.
 */
#include <sys/resource.h>
#include <sys/wait.h>
#include "../lib/numab_test.h"
#include "../lib/numab_work.h"

#define MAX_REPEAT 101
#define MAX_CMDS 4

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct cost {
	double median, min, max;
	size_t bytes;
	long maxrss_kb;
};

/* Seconds to read the file ARG to its end with 64 KiB reads; -1 on error. */
static double read_once(const void *arg, struct cost *c)
{
	static char buf[65536];
	double t0 = nt_now();
	ssize_t n;
	int fd = open(arg, O_RDONLY);

	if (fd < 0)
		return -1;
	c->bytes = 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		c->bytes += n;
	close(fd);
	return n < 0 ? -1 : nt_now() - t0;
}

/* the launcher's answer for one run */
struct run_result {
	double seconds;		/* -1: failed */
	long maxrss_kb;
};

/* Run ARGV to its exit (status 0), stdout to /dev/null. */
static struct run_result run_cmd(char *const *argv)
{
	struct run_result r = { .seconds = -1 };
	double t0 = nt_now();
	struct rusage ru;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return r;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		return r;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s: exit status %d\n", argv[0],
			WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		return r;
	}
	r.seconds = nt_now() - t0;
	r.maxrss_kb = ru.ru_maxrss;
	return r;
}

/* a small process that runs the commands for us: fds and the argvs */
struct launcher {
	int req, resp;
	char **argv[MAX_CMDS];
};

static int launcher_start(struct launcher *l)
{
	int req[2], resp[2], idx;
	pid_t pid;

	if (pipe(req) || pipe(resp))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(req[1]);
		close(resp[0]);
		while (read(req[0], &idx, sizeof(idx)) == sizeof(idx) &&
		       idx >= 0 && idx < MAX_CMDS) {
			struct run_result r = run_cmd(l->argv[idx]);

			if (write(resp[1], &r, sizeof(r)) != sizeof(r))
				break;
		}
		_exit(0);
	}
	close(req[0]);
	close(resp[1]);
	l->req = req[1];
	l->resp = resp[0];
	return 0;
}

struct exec_arg {
	struct launcher *l;
	int idx;
};

/* Seconds to run command ARG (struct exec_arg) through the launcher. */
static double exec_once(const void *arg, struct cost *c)
{
	const struct exec_arg *a = arg;
	struct run_result r;

	if (write(a->l->req, &a->idx, sizeof(a->idx)) != sizeof(a->idx) ||
	    read(a->l->resp, &r, sizeof(r)) != sizeof(r) || r.seconds < 0) {
		errno = EINVAL;
		return -1;
	}
	if (r.maxrss_kb > c->maxrss_kb)
		c->maxrss_kb = r.maxrss_kb;
	return r.seconds;
}

static int measure(double (*once)(const void *, struct cost *), const void *arg,
		   int repeat, struct cost *c)
{
	double t[MAX_REPEAT];
	int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < repeat; i++) {
		t[i] = once(arg, c);
		if (t[i] < 0)
			return -1;
	}
	qsort(t, repeat, sizeof(t[0]), cmp_double);
	c->median = t[repeat / 2];
	c->min = t[0];
	c->max = t[repeat - 1];
	return 0;
}

/* COMMAND split at spaces into ARGV (at most MAX - 1 words), "%p" -> PID */
static void split_cmd(const char *cmd, char **argv, int max)
{
	char pid[16], *copy = strdup(cmd), *w, *save = NULL;
	int n = 0;

	snprintf(pid, sizeof(pid), "%d", getpid());
	for (w = strtok_r(copy, " ", &save); w && n < max - 1;
	     w = strtok_r(NULL, " ", &save)) {
		char *out = malloc(strlen(w) * 8 + 1), *o = out;

		for (; *w; w++) {
			if (w[0] == '%' && w[1] == 'p') {
				o += sprintf(o, "%s", pid);
				w++;
			} else {
				*o++ = *w;
			}
		}
		*o = '\0';
		argv[n++] = out;
	}
	argv[n] = NULL;
}

static long map_vmas(long n, long pagesz)
{
	char *base = mmap(NULL, n * pagesz, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long i;

	if (base == MAP_FAILED)
		return -1;
	for (i = 0; i < n; i++) {
		base[i * pagesz] = 1;
		/* every other page read-only: neighbours never merge */
		if ((i & 1) && mprotect(base + i * pagesz, pagesz, PROT_READ))
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const char * const files[] = { "maps", "numa_vmas", "numa_maps" };
	long sizes[8] = { 1000, 10000, 100000 }, nsizes = 3, have = 0, i, f;
	long pagesz = sysconf(_SC_PAGESIZE);
	const char *cmds[MAX_CMDS];
	struct launcher l = { 0 };
	int repeat = 7, ncmds = 0, hold = 0, opt;

	while ((opt = getopt(argc, argv, "Hr:x:")) != -1) {
		switch (opt) {
		case 'H':
			hold = 1;
			break;
		case 'r':
			repeat = atoi(optarg);
			break;
		case 'x':
			if (ncmds < MAX_CMDS)
				cmds[ncmds++] = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-H] [-r REPEAT] [-x COMMAND]... [NVMAS...]\n",
				argv[0]);
			return 2;
		}
	}
	if (repeat < 1 || repeat > MAX_REPEAT) {
		fprintf(stderr, "REPEAT must be 1..%d\n", MAX_REPEAT);
		return 2;
	}
	if (optind < argc) {
		nsizes = 0;
		for (i = optind; i < argc && nsizes < 8; i++)
			sizes[nsizes++] = atol(argv[i]);
	}
	for (f = 0; f < ncmds; f++) {
		l.argv[f] = calloc(32, sizeof(char *));
		split_cmd(cmds[f], l.argv[f], 32);
		if (!l.argv[f][0]) {
			fprintf(stderr, "empty command\n");
			return 2;
		}
	}
	if (ncmds && launcher_start(&l)) {
		fprintf(stderr, "cannot start the launcher: %s\n", strerror(errno));
		return 1;
	}
	nt_write_long("/proc/sys/vm/max_map_count", 2 * sizes[nsizes - 1] + 1000);
	printf("%8s %-10s %12s %12s %12s %10s %8s\n", "vmas", "file",
	       "median_ms", "min_ms", "max_ms", "bytes", "x_maps");
	for (i = 0; i < nsizes; i++) {
		struct cost c[3];
		char path[64];

		if (map_vmas(sizes[i] - have, pagesz)) {
			fprintf(stderr, "cannot map %ld VMAs: %s (vm.max_map_count?)\n",
				sizes[i], strerror(errno));
			return 1;
		}
		have = sizes[i];
		for (f = 0; f < 3; f++) {
			snprintf(path, sizeof(path), "/proc/self/%s", files[f]);
			if (measure(read_once, path, repeat, &c[f])) {
				fprintf(stderr, "%s: %s\n", path, strerror(errno));
				return f == 1 ? 4 : 1;
			}
			printf("%8ld %-10s %12.3f %12.3f %12.3f %10zu %8.2f\n", have,
			       files[f], c[f].median * 1e3, c[f].min * 1e3,
			       c[f].max * 1e3, c[f].bytes, c[f].median / c[0].median);
			nw_bench("p5 vmas=%ld file=%s repeat=%d median_ms=%.3f min_ms=%.3f max_ms=%.3f bytes=%zu x_maps=%.3f",
				 have, files[f], repeat, c[f].median * 1e3,
				 c[f].min * 1e3, c[f].max * 1e3, c[f].bytes,
				 c[f].median / c[0].median);
		}
	}
	if (ncmds)
		printf("%8s %-10s %12s %12s %12s %10s %8s  %s\n", "vmas", "run",
		       "median_ms", "min_ms", "max_ms", "maxrss_kB", "x_first", "command");
	for (f = 0; f < ncmds; f++) {
		static struct cost c[MAX_CMDS];
		struct exec_arg a = { &l, f };

		if (measure(exec_once, &a, repeat, &c[f])) {
			fprintf(stderr, "%s: %s\n", cmds[f], strerror(errno));
			return 1;
		}
		printf("%8ld %-10ld %12.3f %12.3f %12.3f %10ld %8.2f  %s\n", have, f,
		       c[f].median * 1e3, c[f].min * 1e3, c[f].max * 1e3,
		       c[f].maxrss_kb, c[f].median / c[0].median, cmds[f]);
		nw_bench("p6 vmas=%ld run=%ld name=%s repeat=%d median_ms=%.3f min_ms=%.3f max_ms=%.3f maxrss_kb=%ld x_first=%.3f",
			 have, f, l.argv[f][0], repeat, c[f].median * 1e3,
			 c[f].min * 1e3, c[f].max * 1e3, c[f].maxrss_kb,
			 c[f].median / c[0].median);
	}
	if (hold) {
		printf("HOLD %d\n", getpid());
		fflush(stdout);
		for (;;)
			pause();
	}
	return 0;
}
