// SPDX-License-Identifier: GPL-2.0
/*
 * vma_read_cost [NVMAS...]: the cost of reading /proc/self/maps,
 * /proc/self/numa_vmas and /proc/self/numa_maps of a process with NVMAS
 * mappings (default 1000 10000 100000). A benchmark, not a test: it
 * prints the median and the spread (min..max) of REPEAT reads of each,
 * and the ratios numa_vmas/maps and numa_maps/maps measured in the same
 * run. Raises vm.max_map_count when it has to (root).
 *
 * The mappings are one-page anonymous mappings with alternating
 * protections, so that none of them merge, each touched once.
 */
#include <sys/resource.h>
#include "../lib/numab_test.h"

#define REPEAT 7

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Seconds to read PATH to its end with 64 KiB reads; -1 on error. */
static double read_once(const char *path, size_t *bytes)
{
	static char buf[65536];
	double t0 = nt_now();
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	*bytes = 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		*bytes += n;
	close(fd);
	return n < 0 ? -1 : nt_now() - t0;
}

struct cost {
	double median, min, max;
	size_t bytes;
};

static int measure(const char *path, struct cost *c)
{
	double t[REPEAT];
	int i;

	for (i = 0; i < REPEAT; i++) {
		t[i] = read_once(path, &c->bytes);
		if (t[i] < 0)
			return -1;
	}
	qsort(t, REPEAT, sizeof(t[0]), cmp_double);
	c->median = t[REPEAT / 2];
	c->min = t[0];
	c->max = t[REPEAT - 1];
	return 0;
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

	if (argc > 1) {
		nsizes = 0;
		for (i = 1; i < argc && nsizes < 8; i++)
			sizes[nsizes++] = atol(argv[i]);
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
			if (measure(path, &c[f])) {
				fprintf(stderr, "%s: %s\n", path, strerror(errno));
				return f == 1 ? 4 : 1;
			}
			printf("%8ld %-10s %12.3f %12.3f %12.3f %10zu %8.2f\n", have,
			       files[f], c[f].median * 1e3, c[f].min * 1e3,
			       c[f].max * 1e3, c[f].bytes, c[f].median / c[0].median);
		}
	}
	return 0;
}
