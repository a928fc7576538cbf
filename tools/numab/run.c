// SPDX-License-Identifier: GPL-2.0
/* numabctl run: run a workload with filters changed, then restore them */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "override.h"

/* Values left by a run that died without restoring: put them back. */
static int recover_stale(int fd)
{
	int val[NX_NFILTERS];
	bool set[NX_NFILTERS], any = false;
	struct stat st;
	int r;

	if (fstat(fd, &st) || st.st_size == 0)
		return NX_OK;
	r = nx_filters_load_file(nx_lock_path(), val, set);
	for (int i = 0; i < NX_NFILTERS; i++)
		any |= set[i];
	if (r || !any)
		return NX_OK;
	nx_warn("%s: a previous run died without restoring the filters; "
		"restoring them now", nx_lock_path());
	return nx_filters_write(val, set);
}

static int record_saved(int fd, const struct nx_filters_state *old)
{
	char buf[1024];
	int off = snprintf(buf, sizeof(buf), "# numabctl run pid %d\n", (int)getpid());

	for (int i = 0; i < NX_NFILTERS; i++)
		if (old->val[i] >= 0)
			off += snprintf(buf + off, sizeof(buf) - (size_t)off,
					"kernel.numa_balancing_filter_%s = %d\n",
					nx_filters[i].name, old->val[i]);
	if (ftruncate(fd, 0) || pwrite(fd, buf, (size_t)off, 0) != off || fsync(fd))
		return nx_file_error(nx_lock_path(), errno);
	return NX_OK;
}

static volatile sig_atomic_t child_pid, got_signal;

static void forward_signal(int sig)
{
	got_signal = sig;
	if (child_pid > 0)
		kill(child_pid, sig);
}

static const int handled_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

static void set_handlers(void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(handled_signals) / sizeof(handled_signals[0]); i++)
		sigaction(handled_signals[i], &sa, NULL);
}

static void block_signals(int how, sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(handled_signals) / sizeof(handled_signals[0]); i++)
		sigaddset(&set, handled_signals[i]);
	sigprocmask(how, &set, old);
}

/*
 * fork/exec @argv; returns its exit status in shell convention.  The
 * signals stay blocked until child_pid is known, so that none is lost
 * between fork() and the assignment.
 */
static int run_child(char **argv)
{
	int status, err_pipe[2], err = 0;
	sigset_t old;
	pid_t pid;

	if (pipe2(err_pipe, O_CLOEXEC))
		return 125;
	block_signals(SIG_BLOCK, &old);
	pid = fork();
	if (pid < 0) {
		nx_warn("fork: %s", strerror(errno));
		sigprocmask(SIG_SETMASK, &old, NULL);
		return 125;
	}
	if (pid == 0) {
		set_handlers(SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(err_pipe[0]);
		execvp(argv[0], argv);
		err = errno;
		if (write(err_pipe[1], &err, sizeof(err)) < 0)
			_exit(127);
		_exit(err == ENOENT ? 127 : 126);
	}
	child_pid = pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(err_pipe[1]);
	if (read(err_pipe[0], &err, sizeof(err)) == (ssize_t)sizeof(err))
		nx_warn("%s: %s", argv[0], strerror(err));
	close(err_pipe[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return 125;
	}
	child_pid = 0;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static void run_usage(FILE *out)
{
	fputs("Usage: numabctl run [--filter NAME=VALUE ...] [--legacy|--default|--inherit] -- CMD [ARG...]\n"
	      "       numabctl run --global [--filter NAME=VALUE ...] [--legacy|--default] -- CMD [ARG...]\n\n"
	      "Run CMD with the scan filters changed for CMD only: numabctl sets the\n"
	      "per-process overrides of its own process (/proc/self/numa_filters) and\n"
	      "executes CMD in its place (same PID), so CMD and the processes it forks\n"
	      "have them ('numabctl run ... -- CMD &': $! is CMD); no sysctl changes,\n"
	      "no lock.  On a kernel without per-process filters, run runs nothing and\n"
	      "exits 7; --global is the system-wide way, for every process.\n\n"
	      "  -f, --filter NAME=VALUE  e.g. pid=skip, shared_ro=0, cpuset=off,\n"
	      "                           shared_folio=tier, promo_slowdown=off; VALUE\n"
	      "                           inherit: the sysctl applies (per-process mode only)\n"
	      "      --legacy             stock 6.12 filters (pid=1 shared_ro=1 scan_delay=1\n"
	      "                           cpuset=0 shared_folio=1 promo_slowdown=1)\n"
	      "      --default            kernel default filters\n"
	      "      --inherit            every filter inherits the sysctl (per-process only)\n"
	      "                           (-f values apply on top of a preset)\n"
	      "  -g, --global             the old behaviour: change the sysctls for every\n"
	      "                           process while CMD runs and restore them when it\n"
	      "                           exits, also on SIGINT, SIGTERM, SIGHUP or SIGQUIT\n"
	      "                           (passed on to CMD); one run at a time (lock:\n"
	      "                           /run/numabctl.lock, which records the values to\n"
	      "                           restore); --legacy/--default set only the\n"
	      "                           filters this kernel has\n\n"
	      "A value less restrictive than the sysctl needs CAP_SYS_NICE (exit 3).\n"
	      "Exit status: that of CMD (128+N if killed by signal N, 126/127 if it\n"
	      "could not be run); numabctl's own codes (1-7) if it fails before CMD;\n"
	      "7: the kernel has no per-process filters (use --global).\n", out);
}

/* per-process mode: set our own overrides and become CMD */
static int run_self(char **argv, const int *val, const bool *set)
{
	char path[4096];
	bool any = false;
	int r;

	for (int i = 0; i < NX_NFILTERS; i++)
		any |= set[i];
	if (any && !nx_pf_supported()) {
		struct nx_filters_state st;

		nx_filters_read(&st);
		nx_pf_path(path, sizeof(path), 0);
		if (st.present)
			nx_warn("%s not found: this kernel has no per-process filter overrides; "
				"'numabctl run --global' would change the filters for every "
				"process while CMD runs; CMD not run", path);
		else
			nx_warn("%s not found: the kernel lacks the numab series (no per-process "
				"filter overrides, no filter sysctls): the filters cannot be "
				"changed on it; CMD not run", path);
		return NX_ENOOVERRIDE;
	}
	if (any) {
		r = nx_pf_write(0, val, set);
		if (r)
			return r;
	}
	fflush(NULL);
	execvp(argv[0], argv);
	r = errno;
	nx_warn("%s: %s", argv[0], strerror(r));
	return r == ENOENT ? 127 : 126;
}

/* --global: flip the sysctls under the lock, run CMD, restore */
static int run_global(char **argv, int *val, const bool *set)
{
	bool restore[NX_NFILTERS];
	struct nx_filters_state old;
	int r, lock, status;

	nx_filters_read(&old);
	if (!old.present) {
		nx_warn("no kernel.numa_balancing_filter_* sysctls: the kernel lacks the "
			"numab series; cannot change filters");
		return NX_ENOTSUP;
	}
	r = nx_filters_writable(set);
	if (r)
		return r;
	r = nx_lock_filters(&lock, false);
	if (r)
		return r;
	r = recover_stale(lock);
	nx_filters_read(&old);
	if (!r)
		r = record_saved(lock, &old);
	/* handlers first: a signal between write and exec must still restore */
	set_handlers(forward_signal);
	if (!r)
		r = nx_filters_write(val, set);
	if (r) {
		set_handlers(SIG_DFL);
		nx_unlock_filters(lock);
		return r;
	}
	status = got_signal ? 128 + got_signal : run_child(argv);
	for (int i = 0; i < NX_NFILTERS; i++) {
		restore[i] = set[i] && old.val[i] >= 0;
		val[i] = old.val[i];
	}
	r = nx_filters_write(val, restore);
	if (r)
		nx_warn("could not restore the filters; the values to restore are in %s",
			nx_lock_path());
	else
		nx_unlock_filters(lock);
	set_handlers(SIG_DFL);
	return r ? r : status;
}

int cmd_run(int argc, char **argv)
{
	static const struct option lo[] = {
		NX_COMMON_LONGOPTS,
		{ "filter", required_argument, NULL, 'f' },
		{ "legacy", no_argument, NULL, 'L' },
		{ "default", no_argument, NULL, 'D' },
		{ "inherit", no_argument, NULL, 'I' },
		{ "global", no_argument, NULL, 'g' },
		{ NULL, 0, NULL, 0 },
	};
	int val[NX_NFILTERS] = { 0 }, fval[NX_NFILTERS] = { 0 }, c, r, idx, v;
	bool set[NX_NFILTERS] = { false }, fset[NX_NFILTERS] = { false };
	bool global = false;
	int preset = -1;

	while ((c = getopt_long(argc, argv, "+:f:g" NX_COMMON_SHORTOPTS, lo, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (nx_pf_parse_assign(optarg, &idx, &v))
				return NX_EUSAGE;
			fval[idx] = v;
			fset[idx] = true;
			break;
		case 'L':
		case 'D':
		case 'I':
			v = c == 'L' ? NX_PF_LEGACY : c == 'D' ? NX_PF_DEFAULT : NX_PF_INHERIT;
			if (preset >= 0 && preset != v)
				return nx_usage_error("--legacy, --default and --inherit cannot be "
						      "used together");
			preset = v;
			break;
		case 'g': global = true; break;
		default:
			r = nx_opt_other(c, optarg, run_usage);
			if (r >= 0)
				return r;
		}
	}
	r = nx_opts_done(NULL, 0);
	if (r >= 0)
		return r;
	if (optind >= argc)
		return nx_usage_error("no command given (numabctl run [--filter N=V] -- CMD)");
	if (global) {
		if (preset == NX_PF_INHERIT)
			return nx_usage_error("--inherit is for per-process filters, not with "
					      "--global");
		if (preset >= 0)
			nx_filters_preset(val, set, preset == NX_PF_LEGACY);
	} else if (preset >= 0) {
		nx_pf_preset(val, set, preset);
	}
	for (int i = 0; i < NX_NFILTERS; i++) {
		if (!fset[i])
			continue;
		if (global && fval[i] == NX_FILTER_INHERIT)
			return nx_usage_error("%s=inherit is for per-process filters, not with "
					      "--global", nx_filters[i].name);
		val[i] = fval[i];
		set[i] = true;
	}
	if (global)
		return run_global(argv + optind, val, set);
	return run_self(argv + optind, val, set);
}
