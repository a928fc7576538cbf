// SPDX-License-Identifier: GPL-2.0
/*
 * hold: fill a node's free memory and keep it until told to let go, so
 * that a server started meanwhile gets its memory from the next node in
 * the fallback order (the slow tier): the state a full fast tier leaves
 * behind. Used by the real-server scenarios (tests/vm/servers.sh).
 *
 *   hold -n NODE -f FREE_MB [-r READYFILE]
 *
 * Faults in private anonymous memory (no THP) bound to NODE, 8 MiB at a
 * time, until NODE has at most FREE_MB free; writes READYFILE, then
 * sleeps until SIGTERM or SIGINT and exits 0 (its memory freed). Exits 1
 * when NODE does not exist or the memory cannot be taken.
 */
#include <signal.h>

#include "../lib/numab_test.h"
#include "../lib/numab_work.h"

static volatile sig_atomic_t done;

static void on_signal(int sig)
{
	(void)sig;
	done = 1;
}

int main(int argc, char **argv)
{
	long node = -1, free_mb = -1, chunk = 8 * NW_MB, held = 0, free_kb;
	const char *ready = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "n:f:r:")) != -1) {
		switch (opt) {
		case 'n': node = atol(optarg); break;
		case 'f': free_mb = atol(optarg); break;
		case 'r': ready = optarg; break;
		default: goto usage;
		}
	}
	if (node < 0 || free_mb < 0)
		goto usage;
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	while (!done) {
		free_kb = nw_node_meminfo_kb(node, "MemFree");
		if (free_kb < 0) {
			fprintf(stderr, "hold: node %ld has no meminfo\n", node);
			return 1;
		}
		if (free_kb <= free_mb * 1024)
			break;
		if (nw_map_on_node(chunk, node) == MAP_FAILED) {
			fprintf(stderr, "hold: cannot take 8 MiB on node %ld after %ld MiB: %s\n",
				node, held / NW_MB, strerror(errno));
			return 1;
		}
		held += chunk;
	}
	printf("hold: %ld MiB on node %ld, %ld MiB left free\n", held / NW_MB,
	       node, nw_node_meminfo_kb(node, "MemFree") / 1024);
	fflush(stdout);
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (!f || fclose(f)) {
			fprintf(stderr, "hold: cannot write %s\n", ready);
			return 1;
		}
	}
	while (!done)
		pause();
	return 0;
usage:
	fprintf(stderr, "usage: hold -n NODE -f FREE_MB [-r READYFILE]\n");
	return 1;
}
