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
	{ "filter", cmd_filter, "show or set the scan filter sysctls, or one process's (--pid)" },
	{ "run",    cmd_run,    "run a command with its own filters (--global: system-wide)" },
	{ "watch",  cmd_watch,  "per-interval promotion, residency and scan progress" },
	{ "trace",  cmd_trace,  "why VMAs are skipped, from the sched_skip_vma_numa tracepoint" },
	{ "report", cmd_report, "write a bug report a kernel developer can act on" },
	{ "export", cmd_export, "Prometheus metrics for node_exporter's textfile collector" },
};

static void usage(FILE *out)
{
	fputs("Usage: numabctl [OPTIONS] COMMAND [ARGS]\n"
	      "       numabctl help COMMAND | numabctl COMMAND help | numabctl COMMAND --help\n\n"
	      "Make the NUMA-balancing VMA scanner visible and tunable.\n\n"
	      "Commands:\n", out);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(out, "  %-8s %s\n", cmds[i].name, cmds[i].summary);
	fputs("  help     this text\n"
	      "\nCommon options (before or after COMMAND):\n"
	      "  --sysroot DIR      read /proc and /sys below DIR (tests, saved trees)\n"
	      "  -J, --json[=compact|pretty]  JSON output (pretty by default)\n"
	      "  -r, --raw          raw output (no column alignment)\n"
	      "  -P, --pairs        NAME=\"value\" pairs\n"
	      "  -y, --shell        with -P, column names usable as shell variables\n"
	      "                     (SLOW% as SLOW_PCT)\n"
	      "  -n, --noheadings   no table headers\n"
	      "  -o, --output COLS  columns to print (+COL adds to the defaults)\n"
	      "      --output-all   every column\n"
	      "  -H, --list-columns list the columns of COMMAND\n"
	      "  -x, --sort COL     sort the rows by COL\n"
	      "  -b, --bytes        sizes in bytes\n"
	      "  -h, --help         this text, or a command's help after COMMAND\n"
	      "  -V, --version      print the version\n"
	      "\nExit status: 0 ok, 1 usage, 2 runtime error, 3 permission denied,\n"
	      "4 not supported by this kernel, 5 no such process, 6 filters busy,\n"
	      "7 no per-process filters in this kernel (run without --global, filter --pid).\n", out);
}

static const struct cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(name, cmds[i].name))
			return &cmds[i];
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		NX_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	static char help_opt[] = "--help";
	const struct cmd *cmd;
	char *hargv[3];
	int c;

	atexit(nx_close_stdout);
	opterr = 0;		/* one message per error, with one prefix */
	nx_argv = argv;
	while ((c = getopt_long(argc, argv, "+:" NX_COMMON_SHORTOPTS, lo, NULL)) != -1) {
		int r = nx_opt_other(c, optarg, usage);

		if (r >= 0)
			return r;
	}
	if (optind >= argc) {
		nx_warn("no command given");
		return nx_usage_error(NULL);
	}
	/* bpftool style: 'numabctl help vmas' and 'numabctl vmas help' */
	if (!strcmp(argv[optind], "help") && optind + 2 == argc && find_cmd(argv[optind + 1])) {
		hargv[0] = argv[optind + 1];
		hargv[1] = help_opt;
		hargv[2] = NULL;
		argv = hargv;
		argc = 2;
		optind = 0;
	} else if (!strcmp(argv[optind], "help")) {
		if (optind + 1 != argc) {
			nx_warn("help: unknown command '%s'", argv[optind + 1]);
			return nx_usage_error(NULL);
		}
		usage(stdout);
		return NX_OK;
	} else if (optind + 2 == argc && !strcmp(argv[optind + 1], "help")) {
		hargv[0] = argv[optind];
		hargv[1] = help_opt;
		hargv[2] = NULL;
		argv = hargv;
		argc = 2;
		optind = 0;
	}
	cmd = find_cmd(argv[optind]);
	if (!cmd) {
		nx_warn("unknown command '%s'", argv[optind]);
		return nx_usage_error(NULL);
	}
	argc -= optind;
	argv += optind;
	optind = 0;	/* full getopt reset for the command */
	nx_cmd = cmd->name;
	nx_argv = argv;
	c = cmd->fn(argc, argv);
	/* a command-line error says how to get help, whichever check found it */
	if (c == NX_EUSAGE && !nx_usage_hinted)
		nx_usage_error(NULL);
	return c;
}
