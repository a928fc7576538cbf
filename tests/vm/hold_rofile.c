// SPDX-License-Identifier: GPL-2.0
/*
 * hold_rofile [-u MIN] SECONDS [MB]: a workload for tool tests, not a
 * test. Puts a tmpfs file of MB MiB (default 16) with its page cache on
 * node 1, maps it PROT_READ MAP_SHARED, prints "ready <pid> <address>" and
 * reads it in a loop for SECONDS. Every half second it looks where the
 * pages are; with -u it ends early, once every page is on node 0 and MIN
 * seconds have passed. At the end it prints when every page was first
 * seen on node 0 ("placed 3.5" in seconds since ready, or "placed never")
 * and where the pages are ("node0 N node1 N").
 */
#include "../lib/numab_test.h"
#include "../lib/numab_work.h"

int main(int argc, char **argv)
{
	long pagesz = sysconf(_SC_PAGESIZE), npages, mb = 16, seconds, i;
	double t0, next, placed = -1, until_min = -1;
	struct nt_placement pl;
	volatile char sink = 0;
	char path[64];
	char *map;
	int fd, c;

	while ((c = getopt(argc, argv, "u:")) != -1) {
		if (c != 'u') {
			fprintf(stderr, "usage: hold_rofile [-u MIN] SECONDS [MB]\n");
			return 2;
		}
		until_min = atof(optarg);
	}
	seconds = optind < argc ? atol(argv[optind]) : 10;
	if (optind + 1 < argc)
		mb = atol(argv[optind + 1]);
	npages = mb * NW_MB / pagesz;

	snprintf(path, sizeof(path), "/tmp/numab-hold-%d", getpid());
	if (nw_tmpfs_file_on(path, mb * NW_MB, 1)) {
		perror(path);
		return 1;
	}
	fd = open(path, O_RDONLY);
	map = fd < 0 ? MAP_FAILED : mmap(NULL, mb * NW_MB, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	printf("ready %d %p\n", getpid(), (void *)map);
	fflush(stdout);
	t0 = nt_now();
	next = t0 + 0.5;
	while (nt_now() < t0 + seconds) {
		for (i = 0; i < npages; i++)
			sink += map[i * pagesz];
		if (nt_now() < next)
			continue;
		next += 0.5;
		if (placed < 0 && nt_placement(map, npages, pagesz, &pl) == 0 &&
		    pl.node[0] == npages)
			placed = nt_now() - t0;
		if (placed >= 0 && until_min >= 0 && nt_now() - t0 >= until_min)
			break;
	}
	(void)sink;
	if (placed >= 0)
		printf("placed %.1f\n", placed);
	else
		printf("placed never\n");
	if (nt_placement(map, npages, pagesz, &pl) == 0)
		printf("node0 %ld node1 %ld\n", pl.node[0], pl.node[1]);
	munmap(map, mb * NW_MB);
	close(fd);
	unlink(path);
	return 0;
}
