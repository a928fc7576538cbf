// SPDX-License-Identifier: GPL-2.0
/*
 * hold_cow [-u MIN] SECONDS [MB]: a workload for tool tests, not a test.
 * Puts MB MiB (default 16) of private anonymous memory on node 1, forks a
 * child that shares it copy-on-write (as Redis's BGSAVE child or a
 * preforked server's workers do), prints "ready <pid> <address>" and
 * reads it in a loop, in both processes, for SECONDS. Every half second
 * the parent looks where the pages are; with -u it ends early, once every
 * page is on node 0 and MIN seconds have passed. At the end it prints
 * when every page was first seen on node 0 ("placed 3.5" in seconds since
 * ready, or "placed never") and where the pages are ("node0 N node1 N").
 */
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "../lib/numab_test.h"
#include "../lib/numab_work.h"

static void read_all(volatile char *map, long npages, long pagesz, volatile char *sink)
{
	for (long i = 0; i < npages; i++)
		*sink += map[i * pagesz];
}

int main(int argc, char **argv)
{
	long pagesz = sysconf(_SC_PAGESIZE), npages, mb = 16, seconds;
	double t0, next, placed = -1, until_min = -1;
	struct nt_placement pl;
	volatile char sink = 0;
	pid_t child;
	char *map;
	int c;

	while ((c = getopt(argc, argv, "u:")) != -1) {
		if (c != 'u') {
			fprintf(stderr, "usage: hold_cow [-u MIN] SECONDS [MB]\n");
			return 2;
		}
		until_min = atof(optarg);
	}
	seconds = optind < argc ? atol(argv[optind]) : 10;
	if (optind + 1 < argc)
		mb = atol(argv[optind + 1]);
	npages = mb * NW_MB / pagesz;

	map = nw_map_on_node(mb * NW_MB, 1);
	if (map == MAP_FAILED) {
		perror("memory on node 1");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("fork");
		return 1;
	}
	if (!child) {
		/* the child reads until its parent is done with it */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			read_all(map, npages, pagesz, &sink);
	}
	printf("ready %d %p\n", getpid(), (void *)map);
	fflush(stdout);
	t0 = nt_now();
	next = t0 + 0.5;
	while (nt_now() < t0 + seconds) {
		read_all(map, npages, pagesz, &sink);
		if (nt_now() < next)
			continue;
		next += 0.5;
		if (placed < 0 && nt_placement(map, npages, pagesz, &pl) == 0 &&
		    pl.node[0] == npages)
			placed = nt_now() - t0;
		if (placed >= 0 && until_min >= 0 && nt_now() - t0 >= until_min)
			break;
	}
	if (placed >= 0)
		printf("placed %.1f\n", placed);
	else
		printf("placed never\n");
	if (nt_placement(map, npages, pagesz, &pl) == 0)
		printf("node0 %ld node1 %ld\n", pl.node[0], pl.node[1]);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return 0;
}
