// SPDX-License-Identifier: GPL-2.0
/* sysroot-aware file access, error reporting and small helpers */
#include <errno.h>
#include <getopt.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "numabctl.h"

struct nx_opts nx_opt = { .sysroot = "" };
const char *nx_cmd;
char **nx_argv;		/* the argv getopt is working on: main's or the command's */

bool nx_warn_quiet;
/* nx_write_cause(): set by nx_write_atomic(), said by nx_user_file_error() */
static char write_cause[512];

void nx_warn(const char *fmt, ...)
{
	va_list ap;

	if (nx_warn_quiet)
		return;
	fputs("numabctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

bool nx_usage_hinted;

int nx_usage_error(const char *fmt, ...)
{
	va_list ap;

	nx_usage_hinted = true;
	if (fmt) {
		fputs("numabctl: ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fprintf(stderr, "Try 'numabctl %s%s--help' for more information.\n",
		nx_cmd ? nx_cmd : "", nx_cmd ? " " : "");
	return NX_EUSAGE;
}

int nx_path(char *buf, size_t sz, const char *fmt, ...)
{
	size_t off;
	va_list ap;
	int n;

	n = snprintf(buf, sz, "%s", nx_opt.sysroot);
	if (n < 0 || (size_t)n >= sz)
		return -ENAMETOOLONG;
	off = (size_t)n;
	va_start(ap, fmt);
	n = vsnprintf(buf + off, sz - off, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= sz - off ? -ENAMETOOLONG : 0;
}

int nx_read_str(const char *path, char *buf, size_t sz)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sz - 1);
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return 0;
}

int nx_read_long(const char *path, long *v)
{
	char buf[64], *end;
	int r = nx_read_str(path, buf, sizeof(buf));

	if (r)
		return r;
	errno = 0;
	*v = strtol(buf, &end, 10);
	if (errno || end == buf || *end)
		return -EINVAL;
	return 0;
}

int nx_write_long(const char *path, long v)
{
	char buf[32];
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	int n = snprintf(buf, sizeof(buf), "%ld\n", v);
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, buf, (size_t)n);
	if (w != n) {
		int e = w < 0 ? errno : EIO;

		close(fd);
		return -e;
	}
	return close(fd) ? -errno : 0;
}

bool nx_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

const char *nx_root_hint(const char *caps)
{
	static char buf[256];

	if (geteuid() != 0)
		snprintf(buf, sizeof(buf), "run as root%s%s", caps ? " or with " : "",
			 caps ? caps : "");
	else
		snprintf(buf, sizeof(buf), "numabctl runs as root already: it lacks %s "
			 "(dropped capabilities?), or a security module or kernel lockdown "
			 "denies it", caps ? caps : "capabilities root normally has");
	return buf;
}

int nx_file_error(const char *path, int err)
{
	bool proc;

	if (err < 0)
		err = -err;
	switch (err) {
	case EACCES:
	case EPERM:
		proc = strstr(path, "/proc/") && !strstr(path, "/proc/sys/");
		nx_warn("%s: permission denied: %s%s", path,
			nx_root_hint(proc ? "CAP_SYS_PTRACE" : "CAP_DAC_OVERRIDE"),
			proc && geteuid() ? " (or as the owner of the process)" : "");
		return NX_EPERM;
	case ENOENT:
		nx_warn("%s: not found: this kernel does not provide it", path);
		return NX_ENOTSUP;
	default:
		nx_warn("%s: %s", path, strerror(err));
		return NX_ERUNTIME;
	}
}

int nx_user_file_error(const char *path, int err)
{
	if (err < 0)
		err = -err;
	nx_warn("%s: %s%s%s", path, strerror(err), write_cause[0] ? ": " : "", write_cause);
	write_cause[0] = '\0';
	return err == EACCES || err == EPERM ? NX_EPERM : NX_ERUNTIME;
}

int nx_write_output(const char *file, const char *data, size_t len)
{
	int r;

	if (!strcmp(file, "-"))
		return fwrite(data, 1, len, stdout) == len ? NX_OK : NX_ERUNTIME;
	r = nx_write_file(file, data, len);
	return r ? nx_user_file_error(file, r) : NX_OK;
}

void nx_close_stdout(void)
{
	bool fail;

	errno = 0;
	fail = fflush(stdout) != 0 || ferror(stdout);
	if (!fail && fclose(stdout) && errno != EBADF)
		fail = true;
	if (fail && errno != EPIPE) {
		if (errno)
			nx_warn("write error: %s", strerror(errno));
		else
			nx_warn("write error");
		_exit(NX_ERUNTIME);
	}
	if (fflush(stderr))
		_exit(NX_ERUNTIME);
}

int nx_pid_error(pid_t pid, const char *path, int err)
{
	char dir[4096];

	if (err < 0)
		err = -err;
	nx_path(dir, sizeof(dir), "/proc/%d/status", (int)pid);
	if (err == ESRCH || ((err == ENOENT || err == EINVAL) && !nx_exists(dir))) {
		nx_warn("%s: %s: process %d is gone (it exited, or never existed); "
			"check the PID", path, strerror(err), (int)pid);
		return NX_ENOPROC;
	}
	return nx_file_error(path, err);
}

/* "self": the process /proc/self names (below --sysroot), else numabctl */
static int self_pid(pid_t *pid)
{
	char path[4096], buf[32];
	uint64_t v;
	ssize_t n;

	nx_path(path, sizeof(path), "/proc/self");
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n > 0 && !nx_parse_u64(buf, (size_t)n, 10, &v) && v && v <= 0x3fffffff) {
		*pid = (pid_t)v;
		return 0;
	}
	if (nx_opt.sysroot[0])
		return -1;
	*pid = getpid();
	return 0;
}

/*
 * The process of a thread ID, as /proc/TID (not listed, but there) names
 * it: the Tgid of its status (below --sysroot); @pid itself when that is
 * not there to read (the error is the command's, when it reads the process)
 */
static pid_t tgid_of(pid_t pid)
{
	char path[4096], buf[1024];
	const char *t;
	uint64_t v;
	ssize_t n;
	int fd;

	if (nx_path(path, sizeof(path), "/proc/%d/status", (int)pid))
		return pid;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return pid;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return pid;
	buf[n] = '\0';
	t = strstr(buf, "\nTgid:");
	if (!t)
		return pid;
	t += strlen("\nTgid:");
	t += strspn(t, " \t");
	if (nx_parse_u64(t, strcspn(t, "\n"), 10, &v) || v == 0 || v > 0x3fffffff)
		return pid;
	return (pid_t)v;
}

int nx_parse_pid(const char *s, pid_t *pid)
{
	uint64_t v;

	if (s && !strcmp(s, "self") && !self_pid(pid))
		return 0;
	if (!s || nx_parse_u64(s, strlen(s), 10, &v) || v == 0 || v > 0x3fffffff) {
		nx_usage_error("invalid PID '%s': expected a number from 1 to %d, or self",
			       s ? s : "", 0x3fffffff);
		return -1;
	}
	*pid = tgid_of((pid_t)v);
	return 0;
}

int nx_pid_operand(int argc, char **argv, void (*usage)(FILE *), pid_t *pid)
{
	(void)usage;
	if (optind >= argc)
		return nx_usage_error("no PID given");
	if (optind + 1 != argc)
		return nx_usage_error("one PID expected, got %d operands ('%s' ...)",
				      argc - optind, argv[optind]);
	return nx_parse_pid(argv[optind], pid) ? NX_EUSAGE : -1;
}

int nx_parse_seconds(const char *s, double *sec)
{
	char *end;

	errno = 0;
	*sec = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(*sec) || *sec < 0 || *sec > 86400.0) {
		nx_usage_error("invalid number of seconds '%s' (0 to 86400)", s);
		return -1;
	}
	return 0;
}

/*
 * Digits in 32 bits once the value fits: a 64-bit division by 10 is a
 * 64x64->128 multiply, which QEMU TCG (the testbed) emulates slowly.
 */
char *nx_fmt_u64(char *buf, uint64_t v)
{
	char tmp[24];
	size_t n = 0, i = 0;
	uint32_t w;

	while (v > UINT32_MAX) {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	}
	w = (uint32_t)v;
	do
		tmp[n++] = (char)('0' + w % 10);
	while ((w /= 10));
	while (n)
		buf[i++] = tmp[--n];
	buf[i] = '\0';
	return buf;
}

char *nx_fmt_s64(char *buf, int64_t v)
{
	if (v >= 0)
		return nx_fmt_u64(buf, (uint64_t)v);
	buf[0] = '-';
	nx_fmt_u64(buf + 1, -(uint64_t)v);
	return buf;
}

char *nx_fmt_hex(char *buf, uint64_t v)
{
	char tmp[24];
	size_t n = 0, i = 0;

	do
		tmp[n++] = "0123456789abcdef"[v & 15];
	while ((v >>= 4));
	while (n)
		buf[i++] = tmp[--n];
	buf[i] = '\0';
	return buf;
}

/*
 * "%.0f%c" / "%.1f%c" of @bytes in the largest unit it reaches (B, K, ...
 * E).  Below 2^53 the unit and a whole number of units are found with
 * integers (pages are whole Ks): floating point only for fractions.
 */
void nx_human_size(uint64_t bytes, char *buf, size_t sz)
{
	static const char units[] = "BKMGTPE";
	double v;
	int u = 0;

	if (bytes < (1ull << 53)) {	/* exact in a double: integers first */
		while (u < 6 && bytes >> (10 * (u + 1)))
			u++;
		/* a whole number of units: "%.0f" is the integer */
		if (!(bytes & ((1ull << (10 * u)) - 1)) && sz >= 24) {
			char *p = nx_fmt_u64(buf, bytes >> (10 * u));

			while (*p)
				p++;
			p[0] = units[u];
			p[1] = '\0';
			return;
		}
		v = (double)bytes / (double)(1ull << (10 * u));
	} else {
		v = (double)bytes;
		while (v >= 1024.0 && u < 6) {
			v /= 1024.0;
			u++;
		}
	}
	if (u == 0)
		snprintf(buf, sz, "%lluB", (unsigned long long)bytes);
	else if (v < 10.0 && v != (double)(uint64_t)v)
		snprintf(buf, sz, "%.1f%c", v, units[u]);
	else
		snprintf(buf, sz, "%.0f%c", v, units[u]);
}

/* the length of the valid UTF-8 sequence at @p (of @n bytes), 0 if none */
size_t nx_utf8_len(const unsigned char *p, size_t n)
{
	size_t len = p[0] < 0x80 ? 1 : p[0] >= 0xc2 && p[0] <= 0xdf ? 2 :
		     p[0] >= 0xe0 && p[0] <= 0xef ? 3 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;

	if (!len || len > n)
		return 0;
	/* no overlong forms, no surrogates, nothing above U+10FFFF */
	if (len > 1 && ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) ||
			(p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f)))
		return 0;
	for (size_t k = 1; k < len; k++)
		if ((p[k] & 0xc0) != 0x80)
			return 0;
	return len;
}

static int write_all(int fd, const char *data, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		off += (size_t)w;
	}
	return 0;
}

/*
 * A regular file: a temporary file next to it, renamed over it, with the
 * old file's mode (and owner, for root); a new file gets 0666 less the
 * umask, as the shell's '>' gives it.
 */
const char *nx_write_cause(void)
{
	return write_cause;
}

/* give the temporary file @fd the owner of the file it replaces (root only) */
static int keep_owner(int fd, const struct stat *old)
{
	struct stat st;

	if (geteuid() != 0)
		return 0;
	if (fstat(fd, &st))
		return -errno;
	if (st.st_uid == old->st_uid && st.st_gid == old->st_gid)
		return 0;
	if (!fchown(fd, old->st_uid, old->st_gid))
		return 0;
	if (errno == EPERM)
		snprintf(write_cause, sizeof(write_cause), "the file it replaces belongs to "
			 "uid %u gid %u and the new one cannot be given that owner: %s",
			 (unsigned int)old->st_uid, (unsigned int)old->st_gid,
			 nx_root_hint("CAP_CHOWN"));
	return -errno;
}

/*
 * A new temporary file beside @path, its name in @tmp (@n bytes): the file
 * descriptor, or -errno. Clears the cause a failed write reports.
 */
static int temp_beside(const char *path, char *tmp, size_t n)
{
	int fd;

	write_cause[0] = '\0';
	if (snprintf(tmp, n, "%s.XXXXXX", path) >= (int)n)
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	return fd < 0 ? -errno : fd;
}

int nx_write_atomic(const char *path, const char *data, size_t len)
{
	char tmp[4096];
	struct stat st;
	bool old = lstat(path, &st) == 0 && S_ISREG(st.st_mode);
	mode_t mask;
	int fd, e;

	fd = temp_beside(path, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	mask = umask(0);
	umask(mask);
	e = write_all(fd, data, len);
	if (!e && fchmod(fd, old ? st.st_mode & 07777 : 0666 & ~mask))
		e = -errno;
	if (!e && old)
		e = keep_owner(fd, &st);
	if (!e && fsync(fd))
		e = -errno;
	if (close(fd) && !e)
		e = -errno;
	if (!e && rename(tmp, path)) {
		struct stat dir;
		char *d = strdup(path);

		e = -errno;
		/* a sticky directory (/tmp): another user's file stays theirs */
		if (e == -EPERM && d && !stat(dirname(d), &dir) && (dir.st_mode & S_ISVTX))
			snprintf(write_cause, sizeof(write_cause), "the directory is sticky and "
				 "the file belongs to uid %u: replacing it needs its owner, or %s",
				 (unsigned int)st.st_uid, nx_root_hint("CAP_FOWNER"));
		free(d);
	}
	if (e)
		unlink(tmp);
	return e;
}

/* what the shell's '>' does: open (following links), truncate, write */
static int write_through(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0666);
	int e;

	if (fd < 0)
		return -errno;
	e = write_all(fd, data, len);
	if (close(fd) && !e)
		e = -errno;
	return e;
}

int nx_write_file(const char *path, const char *data, size_t len)
{
	struct stat st;
	int r;

	if (lstat(path, &st)) {
		if (errno != ENOENT)
			return -errno;
		return nx_write_atomic(path, data, len);
	}
	/* a device, a FIFO, a symlink (/dev/stdout), a file with other links */
	if (!S_ISREG(st.st_mode) || st.st_nlink > 1)
		return write_through(path, data, len);
	r = nx_write_atomic(path, data, len);
	/* a file we may write in a directory we may not: as the shell does */
	if (r == -EACCES || r == -EPERM || r == -EROFS) {
		write_cause[0] = '\0';
		r = write_through(path, data, len);
	}
	return r;
}

/*
 * Whether a temporary file beside @path can be made and given @old's owner
 * (root): what nx_write_atomic() will do, short of writing and renaming.
 */
static int probe_atomic(const char *path, const struct stat *old)
{
	char tmp[4096];
	int fd, e = 0;

	fd = temp_beside(path, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	if (old)
		e = keep_owner(fd, old);
	close(fd);
	unlink(tmp);
	return e;
}

/* the target of a write-through, opened now (not truncated before the end) */
static int open_through(struct nx_out *o, const char *path)
{
	o->fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY, 0666);
	return o->fd < 0 ? -errno : 0;
}

int nx_out_open(struct nx_out *o, const char *path, bool atomic_only)
{
	struct stat st;
	int r;

	o->path = path;
	o->fd = -1;
	o->atomic_only = atomic_only;
	snprintf(o->real, sizeof(o->real), "%s", path);
	if (!strcmp(path, "-"))
		return 0;
	if (lstat(path, &st)) {
		if (errno != ENOENT)
			return -errno;
		return probe_atomic(path, NULL);	/* a new file in its directory */
	}
	if (atomic_only && S_ISLNK(st.st_mode)) {
		/* a symbolic link: its target replaced; a dangling one's created */
		if (!realpath(path, o->real) || stat(o->real, &st))
			return open_through(o, path);
		if (S_ISDIR(st.st_mode))
			return -EISDIR;
		return S_ISREG(st.st_mode) ? probe_atomic(o->real, &st) : open_through(o, path);
	}
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	/* a device, a FIFO, a symlink (/dev/stdout), a file with other links */
	if (!S_ISREG(st.st_mode) || (!atomic_only && st.st_nlink > 1))
		return open_through(o, path);
	r = probe_atomic(path, &st);
	/* a file we may write in a directory we may not: as the shell does */
	if (!atomic_only && (r == -EACCES || r == -EPERM || r == -EROFS)) {
		write_cause[0] = '\0';
		return open_through(o, path);
	}
	return r;
}

int nx_out_write(struct nx_out *o, const char *data, size_t len)
{
	struct stat st;
	int e;

	if (o->fd < 0 && !strcmp(o->path, "-"))
		return fwrite(data, 1, len, stdout) == len ? 0 : -EIO;
	if (o->fd < 0)
		return o->atomic_only ? nx_write_atomic(o->real, data, len) :
			nx_write_file(o->path, data, len);
	/* a regular file written in place loses its old contents only now */
	e = !fstat(o->fd, &st) && S_ISREG(st.st_mode) && ftruncate(o->fd, 0) ? -errno : 0;
	if (!e)
		e = write_all(o->fd, data, len);
	if (close(o->fd) && !e)
		e = -errno;
	o->fd = -1;
	return e;
}

void nx_out_close(struct nx_out *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
}

/* read more of @fd behind the @keep bytes at the start of *@buf */
static ssize_t fill(int fd, char **buf, size_t *cap, size_t keep)
{
	ssize_t n;

	if (keep == *cap) {	/* a line longer than the buffer */
		char *p = realloc(*buf, *cap * 2);

		if (!p)
			return -ENOMEM;
		*buf = p;
		*cap *= 2;
	}
	do
		n = read(fd, *buf + keep, *cap - keep);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/* hand the complete lines of buf[0..len) to @fn; returns bytes consumed */
static int split_lines(const char *buf, size_t len, bool eof, nx_line_fn fn,
		       void *priv, unsigned long *no, size_t *used)
{
	size_t off = 0;
	int r = 0;

	while (off < len && !r) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - buf - off) : len - off;

		if (!nl && !eof)
			break;
		r = fn(priv, buf + off, n, ++*no);
		off += n + (nl != NULL);
	}
	*used = off;
	return r;
}

int nx_for_each_line(const char *path, nx_line_fn fn, void *priv)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t cap = 1 << 16, keep = 0, used;
	unsigned long no = 0;
	char *buf;
	int r = 0;

	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n = fill(fd, &buf, &cap, keep);

		if (n < 0) {
			r = (int)n;
			break;
		}
		r = split_lines(buf, keep + (size_t)n, n == 0, fn, priv, &no, &used);
		if (r || n == 0)
			break;
		keep = keep + (size_t)n - used;
		memmove(buf, buf + used, keep);
	}
	free(buf);
	close(fd);
	return r;
}

double nx_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double nx_now_real(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void nx_sleep(double sec)
{
	struct timespec ts;

	if (sec <= 0)
		return;
	ts.tv_sec = (time_t)sec;
	ts.tv_nsec = (long)((sec - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int nx_common_opt(int c, const char *arg)
{
	switch (c) {
	case 'S':
		nx_opt.sysroot = arg;
		nx_opt.sysroot_given = true;
		return 0;
	case 'J':
		nx_opt.json = true;
		if (arg && *arg == '=')	/* -J=compact */
			arg++;
		if (arg && !strcmp(arg, "compact"))
			nx_opt.compact = true;
		else if (arg && strcmp(arg, "pretty"))
			return 2;
		return 0;
	case 'r': nx_opt.raw = true; return 0;
	case 'P': nx_opt.pairs = true; return 0;
	case 'n': nx_opt.noheadings = true; return 0;
	case 'o': nx_opt.columns = arg; return 0;
	case 'A': nx_opt.all_columns = true; return 0;
	case 'H': nx_opt.list_columns = true; return 0;
	case 'x': nx_opt.sort = arg; return 0;
	case 'b': nx_opt.bytes = true; return 0;
	case 'y': nx_opt.shell = true; return 0;
	case 'h': return 1;
	case 'V': return 3;
	default: return -1;
	}
}

int nx_opt_other(int c, const char *arg, void (*usage)(FILE *))
{
	const char *opt = nx_argv && optind > 0 ? nx_argv[optind - 1] : "?";
	int r = nx_common_opt(c, arg);

	if (r == 0)
		return -1;
	if (r == 1) {
		usage(stdout);
		return NX_OK;
	}
	if (r == 3) {
		printf("numabctl %s\n", NUMABCTL_VERSION);
		return NX_OK;
	}
	if (r == 2)
		return nx_usage_error("invalid --json argument '%s' (pretty or compact)", arg);
	if (c == ':')
		return nx_usage_error("option '%s' needs an argument", opt);
	if (optopt && nx_argv && !nx_argv[optind] && strchr(opt, optopt))
		return nx_usage_error("option '%s' is unknown or needs an argument", opt);
	if (optopt)
		return nx_usage_error("unknown option '-%c'", optopt);
	return nx_usage_error("unknown option '%s'", opt);
}

static int find_spec(const struct nx_colspec *spec, size_t nspec, const char *name)
{
	for (size_t i = 0; i < nspec; i++)
		if (!strcasecmp(spec[i].name, name))
			return (int)i;
	return -1;
}

int nx_opts_done(const struct nx_colspec *spec, size_t nspec)
{
	static char all[NX_MAX_SPEC * 16];
	struct stat st;

	if (nx_opt.sysroot_given && !nx_opt.sysroot[0])
		return nx_usage_error("--sysroot needs a directory (a saved tree with proc/ "
				      "and sys/), not an empty name");
	if (nx_opt.sysroot[0] && stat(nx_opt.sysroot, &st))
		return nx_usage_error("--sysroot %s: %s", nx_opt.sysroot, strerror(errno));
	if (nx_opt.sysroot[0] && !S_ISDIR(st.st_mode))
		return nx_usage_error("--sysroot %s: not a directory", nx_opt.sysroot);
	if (nx_opt.sysroot[0]) {
		char proc[4096];

		snprintf(proc, sizeof(proc), "%s/proc", nx_opt.sysroot);
		if (stat(proc, &st) || !S_ISDIR(st.st_mode))
			return nx_usage_error("--sysroot %s: not a saved tree: no proc/ in it",
					      nx_opt.sysroot);
	}
	if (nx_opt.json + nx_opt.raw + nx_opt.pairs > 1)
		return nx_usage_error("%s and %s cannot be used together: pick one output format",
				      nx_opt.json ? "--json" : "--raw",
				      nx_opt.pairs ? "--pairs" : "--raw");
	if (!spec && (nx_opt.columns || nx_opt.sort || nx_opt.all_columns || nx_opt.list_columns))
		return nx_usage_error("'numabctl %s' has no columns to choose: %s is not accepted",
				      nx_cmd ? nx_cmd : "", nx_opt.columns ? "-o" :
				      nx_opt.sort ? "--sort" : nx_opt.all_columns ?
				      "--output-all" : "--list-columns");
	if (nx_opt.columns && (!*nx_opt.columns || !strcmp(nx_opt.columns, "+")))
		return nx_usage_error("-o needs a list of columns (see --list-columns)");
	if (nx_opt.columns && nx_opt.all_columns)
		return nx_usage_error("-o and --output-all cannot be used together");
	if (!spec)
		return -1;
	/* every column of -o exists: checked before any work */
	for (const char *c = nx_opt.columns && *nx_opt.columns == '+' ? nx_opt.columns + 1 :
	     nx_opt.columns; c && *c; c += strcspn(c, ",") + (c[strcspn(c, ",")] == ',')) {
		char name[64];
		size_t len = strcspn(c, ",");

		snprintf(name, sizeof(name), "%.*s", (int)len, c);
		if (!len || len >= sizeof(name) || find_spec(spec, nspec, name) < 0)
			return nx_usage_error("unknown column '%.*s' (see 'numabctl %s "
					      "--list-columns')", (int)len, c,
					      nx_cmd ? nx_cmd : "");
	}
	if (nx_opt.sort && find_spec(spec, nspec, nx_opt.sort) < 0)
		return nx_usage_error("--sort: unknown column '%s' (see --list-columns)",
				      nx_opt.sort);
	if (nx_opt.all_order)
		snprintf(all, sizeof(all), "%s", nx_opt.all_order);
	else
		for (size_t i = 0, off = 0; i < nspec && off < sizeof(all) - 32; i++)
			off += (size_t)snprintf(all + off, sizeof(all) - off, "%s%s",
						i ? "," : "", spec[i].name);
	if (nx_opt.list_columns) {
		for (const char *c = all; *c; c += strcspn(c, ",") + (c[strcspn(c, ",")] == ',')) {
			char name[64];

			snprintf(name, sizeof(name), "%.*s", (int)strcspn(c, ","), c);
			if (find_spec(spec, nspec, name) >= 0)
				printf("%12s  %s\n", name, spec[find_spec(spec, nspec, name)].help);
		}
		return NX_OK;
	}
	if (nx_opt.all_columns)
		nx_opt.columns = all;
	return -1;
}
