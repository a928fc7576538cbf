// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.numa_balancing and the numab filter sysctls, the files of saved
 * settings, and the lock that serialises their changes (filter, run)
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "numabctl.h"

int nx_filter_path(char *buf, size_t sz, int idx)
{
	return nx_path(buf, sz, "/proc/sys/kernel/numa_balancing_filter_%s",
		       nx_filters[idx].name);
}

void nx_filters_read(struct nx_filters_state *st)
{
	char path[4096];

	st->present = 0;
	for (int i = 0; i < NX_NFILTERS; i++) {
		long v;
		int r;

		nx_filter_path(path, sizeof(path), i);
		r = nx_read_long(path, &v);
		if (!r && (v < 0 || v > 1000))
			r = -EINVAL;
		st->err[i] = r;
		st->val[i] = r ? -1 : (int)v;
		st->present += r != -ENOENT;
	}
}

const char *nx_filter_err_name(int err)
{
	return !err ? "ok" : err == -ENOENT ? "absent" :
	       err == -EINVAL ? "malformed" : "unreadable";
}

const char *nx_filter_names(void)
{
	static char buf[160];
	int off = 0;

	if (buf[0])
		return buf;
	for (int i = 0; i < NX_NFILTERS; i++)
		off += snprintf(buf + off, sizeof(buf) - (size_t)off, "%s%s", i ? ", " : "",
				nx_filters[i].name);
	return buf;
}

/*
 * Which filters this kernel has: those whose sysctl exists (a kernel of an
 * older numab series lacks the newest, shared_folio or promo_slowdown, in
 * its sysctls and its numa_filters alike); a warning for @opt names those
 * it lacks.  Without any filter sysctl all, so that a write says why.
 */
void nx_filters_kernel(bool *have, const char *opt)
{
	char path[4096], missing[256] = "";
	size_t off = 0;
	int n = 0;

	for (int i = 0; i < NX_NFILTERS; i++) {
		nx_filter_path(path, sizeof(path), i);
		have[i] = nx_exists(path);
		if (!have[i] && off < sizeof(missing))
			off += (size_t)snprintf(missing + off, sizeof(missing) - off,
						"%skernel.numa_balancing_filter_%s",
						n ? ", " : "", nx_filters[i].name);
		n += !have[i];
	}
	if (n == NX_NFILTERS) {
		for (int i = 0; i < NX_NFILTERS; i++)
			have[i] = true;
		return;
	}
	if (n)
		nx_warn("%s: %s %s not on this kernel (an older numab series): left out, the "
			"kernel behaves as it always does there; the other filters are set",
			opt, missing, n > 1 ? "are" : "is");
}

/* --legacy (@legacy) or --default: every filter this kernel has */
void nx_filters_preset(int *val, bool *set, bool legacy)
{
	for (int i = 0; i < NX_NFILTERS; i++)
		val[i] = legacy ? nx_filters[i].legacy : nx_filters[i].def;
	nx_filters_kernel(set, legacy ? "--legacy" : "--default");
}

static int write_error(int idx, int err, int val)
{
	char path[4096];

	nx_filter_path(path, sizeof(path), idx);
	if (err == -EINVAL || err == -ERANGE) {
		nx_warn("%s: the kernel rejected %d (out of range)", path, val);
		return NX_EUSAGE;
	}
	if (err == -ENOENT) {
		if (nx_filters[idx].newer)
			nx_warn("%s: not found: this kernel lacks %s", path, nx_filters[idx].newer);
		else
			nx_warn("%s: not found: this kernel lacks the numab filter sysctls "
				"(the numab kernel series)", path);
		return NX_ENOTSUP;
	}
	if (err == -EACCES || err == -EPERM) {
		nx_warn("%s: permission denied: setting filters needs root: %s", path,
			nx_root_hint("CAP_SYS_ADMIN"));
		return NX_EPERM;
	}
	return nx_file_error(path, err);
}

/*
 * Could the @set filters be written?  Each must exist (else the kernel
 * lacks it: exit 4), and every old value be readable: one that cannot be
 * read could not be put back if a later write failed, so nothing is
 * written.  Asked before the lock is taken, so that a missing sysctl is
 * not reported as a lock file the user cannot open.
 */
static int check_old(const struct nx_filters_state *old, const bool *set, bool absent)
{
	char path[4096];

	for (int i = 0; i < NX_NFILTERS; i++) {
		if (!set[i] || !old->err[i])
			continue;
		if (old->err[i] == -ENOENT) {
			if (absent)
				return write_error(i, -ENOENT, 0);
			continue;
		}
		nx_filter_path(path, sizeof(path), i);
		nx_warn("%s: the current value is %s (%s): nothing changed, since it "
			"could not be restored if a later write failed", path,
			nx_filter_err_name(old->err[i]), old->err[i] == -EINVAL ?
			"not a number from 0 to 1000" : strerror(-old->err[i]));
		return old->err[i] == -EACCES || old->err[i] == -EPERM ? NX_EPERM : NX_ERUNTIME;
	}
	return NX_OK;
}

int nx_filters_writable(const bool *set)
{
	struct nx_filters_state old;

	nx_filters_read(&old);
	return check_old(&old, set, true);
}

int nx_filters_write(const int *val, const bool *set)
{
	struct nx_filters_state old;
	char path[4096];
	int i, r;

	nx_filters_read(&old);
	r = check_old(&old, set, false);
	if (r)
		return r;
	for (i = 0; i < NX_NFILTERS; i++) {
		int err;

		if (!set[i])
			continue;
		nx_filter_path(path, sizeof(path), i);
		err = nx_write_long(path, val[i]);
		if (err) {
			r = write_error(i, err, val[i]);
			break;
		}
	}
	if (r == NX_OK)
		return NX_OK;
	/* roll back what was already written: never leave a half-set state */
	while (--i >= 0) {
		if (!set[i] || old.val[i] < 0)
			continue;
		nx_filter_path(path, sizeof(path), i);
		if (nx_write_long(path, old.val[i]))
			nx_warn("%s: could not restore %d", path, old.val[i]);
	}
	return r;
}

long nx_numa_balancing_mode(void)
{
	char path[4096];
	long v;

	nx_path(path, sizeof(path), "/proc/sys/kernel/numa_balancing");
	return nx_read_long(path, &v) ? -1 : v;
}

const char *nx_mode_name(long mode)
{
	switch (mode) {
	case -1: return "unsupported";
	case 0: return "disabled";
	case 1: return "normal";
	case 2: return "memory_tiering";
	case 3: return "normal+memory_tiering";
	default: return "unknown";
	}
}

int nx_filter_assign_error(const char *arg)
{
	const char *eq = strchr(arg, '=');
	int idx = nx_filter_index(arg, eq ? (size_t)(eq - arg) : strlen(arg));

	if (idx < 0)
		return nx_usage_error("invalid filter '%s': NAME is one of %s", arg,
				      nx_filter_names());
	return nx_usage_error("invalid value '%s' for filter %s (%s)", eq ? eq + 1 : "",
			      nx_filters[idx].name, nx_filters[idx].max == 2 ?
			      "off|skip|tier or 0..2" : "off|on or 0..1");
}

struct restore_ctx {
	int val[NX_NFILTERS];
	bool set[NX_NFILTERS];
	unsigned long bad;
};

static int restore_line(void *priv, const char *line, size_t len, unsigned long no)
{
	struct restore_ctx *rc = priv;
	size_t i = 0;
	int idx, val;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i == len || line[i] == '#' || line[i] == ';')
		return 0;
	if (nx_parse_filter_assign(line, len, &idx, &val)) {
		nx_warn("line %lu: not a valid filter setting: %.*s", no, (int)len, line);
		rc->bad++;
		return 0;
	}
	rc->val[idx] = val;
	rc->set[idx] = true;
	return 0;
}

int nx_filters_load_file(const char *file, int *val, bool *set)
{
	struct restore_ctx rc;
	int r;

	memset(&rc, 0, sizeof(rc));
	r = nx_for_each_line(strcmp(file, "-") ? file : "/dev/stdin", restore_line, &rc);
	if (r)
		return nx_user_file_error(file, r);
	if (rc.bad)
		return NX_EUSAGE;
	memcpy(val, rc.val, sizeof(rc.val));
	memcpy(set, rc.set, sizeof(rc.set));
	return NX_OK;
}

/*
 * <sysroot>/run/numabctl.lock serialises filter changes (filter, run);
 * while a 'run' holds it, the file holds the values to restore
 */
static char lock_path[4096];

const char *nx_lock_path(void)
{
	return lock_path;
}

static int lock_open(void)
{
	char dir[4096];
	int fd;

	nx_path(dir, sizeof(dir), "/run");
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	nx_path(lock_path, sizeof(lock_path), "/run/numabctl.lock");
	fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	return fd < 0 ? -errno : fd;
}

int nx_lock_filters(int *fdp, bool wait)
{
	int fd = lock_open();

	*fdp = -1;
	if (fd < 0)
		return nx_file_error(lock_path[0] ? lock_path : "/run", fd);
	if (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB))) {
		char buf[64] = "";
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		nx_warn("%s: the filters are held by another 'numabctl run' (%s); "
			"wait for it to finish ('numabctl filter --force' sets filters anyway)",
			lock_path,
			buf[0] == '#' ? buf + 2 : "pid unknown");
		close(fd);
		return NX_EBUSY;
	}
	*fdp = fd;
	return NX_OK;
}

void nx_unlock_filters(int fd)
{
	if (fd < 0)
		return;
	if (ftruncate(fd, 0))
		nx_warn("%s: cannot clear: %s", lock_path, strerror(errno));
	close(fd);	/* releases the flock */
}
