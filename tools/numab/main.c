// SPDX-License-Identifier: GPL-2.0
/* numabctl: inspect and tune the NUMA-balancing VMA scanner */
#include <stdlib.h>
#include <string.h>

#include "numabctl.h"

static const struct cmd {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
} cmds[] = {
	{ "status", cmd_status, "kernel support, mode, nodes and tiers, tunables, filters, counters" },
	{ "vmas",   cmd_vmas,   "per-VMA scan state, tier residency and verdict of a process" },
	{ "filter", cmd_filter, "show or set the scan filter sysctls" },
	{ "run",    cmd_run,    "run a command with filters changed, restore them afterwards" },
	{ "watch",  cmd_watch,  "per-interval promotion, residency and scan progress" },
	{ "trace",  cmd_trace,  "why VMAs are skipped, from the sched_skip_vma_numa tracepoint" },
	{ "report", cmd_report, "write a bug report a kernel developer can act on" },
};

static void usage(FILE *out)
{
	fputs("Usage: numabctl [OPTIONS] COMMAND [ARGS]\n"
	      "       numabctl COMMAND --help\n\n"
	      "Make the NUMA-balancing VMA scanner visible and tunable.\n\n"
	      "Commands:\n", out);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(out, "  %-8s %s\n", cmds[i].name, cmds[i].summary);
	fputs("  help     this text\n"
	      "\nCommon options (before or after COMMAND):\n"
	      "  --sysroot DIR      read /proc and /sys below DIR (tests, saved trees)\n"
	      "  -J, --json         JSON output\n"
	      "  -r, --raw          raw output (no column alignment)\n"
	      "  -n, --noheadings   no table headers\n"
	      "  -o, --output COLS  columns to print (see COMMAND --help)\n"
	      "  -b, --bytes        sizes in bytes\n"
	      "  -V, --version      print the version\n"
	      "\nExit status: 0 ok, 1 usage, 2 runtime error, 3 permission denied,\n"
	      "4 not supported by this kernel, 5 no such process, 6 filters busy.\n", out);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		NX_COMMON_LONGOPTS,
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+" NX_COMMON_SHORTOPTS "V", lo, NULL)) != -1) {
		int r = c == 'V' ? 2 : nx_common_opt(c, optarg);

		if (r == 2) {
			printf("numabctl %s\n", NUMABCTL_VERSION);
			return NX_OK;
		}
		if (r) {
			usage(r == 1 ? stdout : stderr);
			return r == 1 ? NX_OK : NX_EUSAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return NX_EUSAGE;
	}
	if (!strcmp(argv[optind], "help")) {
		usage(stdout);
		return NX_OK;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(argv[optind], cmds[i].name))
			continue;
		argc -= optind;
		argv += optind;
		optind = 0;	/* full getopt reset for the command */
		return cmds[i].fn(argc, argv);
	}
	nx_warn("unknown command '%s'; try 'numabctl help'", argv[optind]);
	return NX_EUSAGE;
}
