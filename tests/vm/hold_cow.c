// SPDX-License-Identifier: GPL-2.0
/*
 * hold_cow [-u MIN] SECONDS [MB]: a workload for tool tests, not a test.
 * Puts MB MiB (default 16) of private anonymous memory on node 1, forks a
 * child that shares it copy-on-write and reads it until the parent ends
 * (as Redis's BGSAVE child or a preforked server's workers do), prints
 * "ready <pid> <address>" and reads it in the parent for SECONDS
 * (nw_hold(): with -u it ends once every page is on node 0 and MIN
 * seconds have passed; it prints "placed S" and "node0 N node1 N").
 */
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "../lib/numab_test.h"
#include "../lib/numab_work.h"

int main(int argc, char **argv)
{
	long pagesz = sysconf(_SC_PAGESIZE), npages, mb, seconds;
	volatile char sink = 0;
	double until_min;
	pid_t child;
	char *map;

	if (nw_hold_args(argc, argv, &seconds, &mb, &until_min))
		return 2;
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
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			for (long i = 0; i < npages; i++)
				sink += map[i * pagesz];
	}
	printf("ready %d %p\n", getpid(), (void *)map);
	fflush(stdout);
	nw_hold(map, npages, pagesz, seconds, until_min);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return 0;
}
