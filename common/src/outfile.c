/* SPDX-License-Identifier: MIT */
/*
 * Output files (gpuscope/outfile.h): the policy of every -o of gpuscope and
 * gpuscope-mpi, one implementation for both.
 */
#define _GNU_SOURCE /* renameat2, RENAME_NOREPLACE */

#include <gpuscope/outfile.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * The temporary files, for the signal handler to remove: fixed buffers, as
 * the handler may only call async-signal-safe functions (unlink, raise).
 * A slot's name is written while it is not live, with the signals blocked.
 */
static char out_tmp[GS_OUTFILE_MAX_OPEN][GS_OUTFILE_PATH_MAX];
static volatile sig_atomic_t out_tmp_live[GS_OUTFILE_MAX_OPEN];
static int out_n_live; /* slots in use; the handlers are set while > 0 */

/* The signals whose default action ends the process (SIGQUIT and SIGXCPU
 * also dump core: after the cleanup). */
static const int out_signals[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGTERM, SIGPIPE,
				  SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU};
#define OUT_NSIGNALS (sizeof(out_signals) / sizeof(out_signals[0]))
static struct sigaction out_old[OUT_NSIGNALS];
static struct sigaction out_old_xfsz;

void gs_outfile_remove_temps(void)
{
	for (int i = 0; i < GS_OUTFILE_MAX_OPEN; i++)
		if (out_tmp_live[i])
			unlink(out_tmp[i]);
}

static void out_on_signal(int sig)
{
	gs_outfile_remove_temps();
	/* SA_RESETHAND restored the default action, and the signal is blocked
	 * until the handler returns: then it ends the process as it would
	 * have, and the exit status tells which signal. */
	raise(sig);
}

static void out_signals_set(void)
{
	struct sigaction sa, ign;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = out_on_signal;
	sa.sa_flags = SA_RESETHAND;
	/* One cleanup at a time: the others wait for the first to end it. */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < OUT_NSIGNALS; i++)
		sigaddset(&sa.sa_mask, out_signals[i]);
	for (size_t i = 0; i < OUT_NSIGNALS; i++) {
		sigaction(out_signals[i], NULL, &out_old[i]);
		/* Keep a signal the caller chose to ignore ignored. */
		if (out_old[i].sa_handler != SIG_IGN)
			sigaction(out_signals[i], &sa, NULL);
	}
	/* Over the file size limit, write() fails with EFBIG instead of the
	 * process ending with the temporary file left behind. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGXFSZ, &ign, &out_old_xfsz);
}

static void out_signals_restore(void)
{
	for (size_t i = 0; i < OUT_NSIGNALS; i++)
		sigaction(out_signals[i], &out_old[i], NULL);
	sigaction(SIGXFSZ, &out_old_xfsz, NULL);
}

static void out_signals_block(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < OUT_NSIGNALS; i++)
		sigaddset(&set, out_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

bool gs_outfile_is_stdout(const char *path)
{
	return !path || !strcmp(path, "-");
}

/* The file at `path` is the file of one of the inputs. */
static bool out_is_input(const char *path, const struct stat *ls, const char *const *inputs,
			 size_t n_inputs)
{
	struct stat os = *ls, is;

	/* Through a link too: a link to an input is that input. */
	if (S_ISLNK(ls->st_mode) && stat(path, &os) != 0)
		return false;
	for (size_t i = 0; i < n_inputs; i++) {
		/* "-" is stdin: the file it was redirected from, if any. */
		int got = !inputs[i]                  ? -1 :
			  strcmp(inputs[i], "-") == 0 ? fstat(STDIN_FILENO, &is) :
							stat(inputs[i], &is);

		if (got == 0 && is.st_dev == os.st_dev && is.st_ino == os.st_ino)
			return true;
	}
	return false;
}

gs_status gs_outfile_check(const char *path, bool force, const char *const *inputs, size_t n_inputs)
{
	struct stat ls;

	if (gs_outfile_is_stdout(path))
		return GS_OK;
	if (lstat(path, &ls) != 0) {
		if (errno == ENOENT)
			return GS_OK;
		gs_error_append("%s: cannot create: %s", path, strerror(errno));
		return GS_ERR_IO;
	}
	if (out_is_input(path, &ls, inputs, n_inputs)) {
		gs_error_append("%s: is one of the inputs", path);
		return GS_ERR_INVALID;
	}
	if (S_ISLNK(ls.st_mode)) {
		gs_error_append("%s: is a symbolic link", path);
		return GS_ERR_INVALID;
	}
	/* Renaming over /dev/null as root would replace the device itself. */
	if (!S_ISREG(ls.st_mode)) {
		gs_error_append("%s: is not a regular file", path);
		return GS_ERR_INVALID;
	}
	if (!force) {
		gs_error_append("%s: exists (use --force to replace it)", path);
		return GS_ERR_INVALID;
	}
	return GS_OK;
}

/* Letters for the temporary name, as mkstemp's. */
static uint64_t out_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/*
 * Create "DIR/.BASE.tmp-XXXXXX" beside `path` in out_tmp[slot]: O_EXCL and
 * O_NOFOLLOW (a name that exists, link or not, is never opened), mode
 * 0666 less the umask as a plain create would give. Returns the fd, or -1
 * with errno.
 */
static int out_tmp_create(int slot, const char *path)
{
	static const char letters[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	static uint64_t counter;
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dirlen = slash ? (int)(slash - path) + 1 : 0;
	struct timespec ts;
	int n;

	clock_gettime(CLOCK_REALTIME, &ts);
	for (int attempt = 0; attempt < 100; attempt++) {
		uint64_t r = out_mix((uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
				     ((uint64_t)getpid() << 40) ^ ++counter);
		char suffix[7];
		int fd;

		for (int i = 0; i < 6; i++, r /= sizeof(letters) - 1)
			suffix[i] = letters[r % (sizeof(letters) - 1)];
		suffix[6] = '\0';
		/* Keep the name under NAME_MAX (255) whatever OUT's length. */
		n = snprintf(out_tmp[slot], sizeof(out_tmp[slot]), "%.*s.%.200s.tmp-%s", dirlen,
			     path, base, suffix);
		if (n < 0 || (size_t)n >= sizeof(out_tmp[slot])) {
			errno = ENAMETOOLONG;
			return -1;
		}
		fd = open(out_tmp[slot], O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			  0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}

static int out_slot_take(void)
{
	for (int i = 0; i < GS_OUTFILE_MAX_OPEN; i++)
		if (!out_tmp_live[i])
			return i;
	return -1;
}

/* The temporary file of slot `slot` is gone (renamed, linked or removed). */
static void out_slot_release(int slot)
{
	out_tmp_live[slot] = 0;
	if (--out_n_live == 0)
		out_signals_restore();
}

gs_status gs_outfile_open(struct gs_outfile *o, const char *path, bool force,
			  const char *const *inputs, size_t n_inputs)
{
	sigset_t oldmask;
	gs_status st;
	int fd, slot, err;

	memset(o, 0, sizeof(*o));
	o->slot = -1;
	o->force = force;
	o->inputs = inputs;
	o->n_inputs = n_inputs;
	if (gs_outfile_is_stdout(path)) {
		o->f = stdout;
		return GS_OK;
	}
	o->path = path;
	st = gs_outfile_check(path, force, inputs, n_inputs);
	if (st != GS_OK)
		return st;
	slot = out_slot_take();
	if (slot < 0) { /* a programming error: more files than the table holds */
		gs_error_append("%s: more than %d output files at once", path, GS_OUTFILE_MAX_OPEN);
		return GS_ERR_LIMIT;
	}
	if (out_n_live++ == 0)
		out_signals_set();
	/* No interrupt between the create and the handler knowing the name. */
	out_signals_block(&oldmask);
	fd = out_tmp_create(slot, path);
	err = errno;
	if (fd >= 0)
		out_tmp_live[slot] = 1;
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	if (fd < 0) {
		if (--out_n_live == 0)
			out_signals_restore();
		gs_error_append("%s: cannot create: %s", path, strerror(err));
		return GS_ERR_IO;
	}
	o->slot = slot;
	o->f = fdopen(fd, "w");
	if (!o->f) {
		gs_error_append("%s: cannot create: %s", path, strerror(errno));
		close(fd);
		gs_outfile_discard(o);
		return GS_ERR_IO;
	}
	return GS_OK;
}

void gs_outfile_discard(struct gs_outfile *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	o->f = NULL;
	if (o->slot >= 0) {
		unlink(out_tmp[o->slot]); /* only what this process created */
		out_slot_release(o->slot);
		o->slot = -1;
	}
}

static gs_status out_write_failed(struct gs_outfile *o, int err)
{
	if (err)
		gs_error_append("%s: write failed: %s", o->path, strerror(err));
	else /* an earlier write failed; its errno is gone */
		gs_error_append("%s: write failed", o->path);
	gs_outfile_discard(o);
	return GS_ERR_IO;
}

gs_status gs_outfile_finish(struct gs_outfile *o)
{
	FILE *f = o->f;
	gs_status st;

	if (f == stdout || !f)
		return GS_OK;
	errno = 0;
	if (fflush(f) == EOF || ferror(f))
		return out_write_failed(o, errno);
	/* A full disk or a failing device may show only now (delayed
	 * allocation, network file systems). */
	if (fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS)
		return out_write_failed(o, errno);
	o->f = NULL;
	errno = 0;
	if (fclose(f) == EOF)
		return out_write_failed(o, errno);
	/* What appeared at OUT meanwhile is refused as it would have been at the start. */
	st = gs_outfile_check(o->path, o->force, o->inputs, o->n_inputs);
	if (st != GS_OK) {
		gs_outfile_discard(o);
		return st;
	}
	return GS_OK;
}

/* link() failed because the file system has no hard links (not a real error). */
static bool out_links_unsupported(int e)
{
	if (e == EOPNOTSUPP) /* the same value as ENOTSUP on Linux, not everywhere */
		return true;
	return e == ENOTSUP || e == EPERM || e == ENOSYS || e == EMLINK;
}

static gs_status out_exists(const struct gs_outfile *o)
{
	gs_error_append("%s: exists (use --force to replace it)", o->path);
	return GS_ERR_INVALID;
}

static gs_status out_cannot(const struct gs_outfile *o, const char *what, int err)
{
	gs_error_append("%s: %s: %s", o->path, what, strerror(err));
	return GS_ERR_IO;
}

/*
 * Move the finished temporary file to OUT without --force: in one step
 * that fails when OUT exists, so that a file that appeared meanwhile is
 * never replaced (no check-then-rename race).
 */
static gs_status out_move_new(const struct gs_outfile *o, const char *tmp)
{
	int fd;

#ifdef RENAME_NOREPLACE
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, o->path, RENAME_NOREPLACE) == 0)
		return GS_OK;
	if (errno == EEXIST)
		return out_exists(o);
	/* EINVAL: a file system without it; ENOSYS: a kernel without it. */
	if (errno != EINVAL && errno != ENOSYS)
		return out_cannot(o, "cannot create", errno);
#endif
	/* link() fails if OUT exists; then the temporary name goes. */
	if (link(tmp, o->path) == 0) {
		unlink(tmp);
		return GS_OK;
	}
	if (errno == EEXIST)
		return out_exists(o);
	if (!out_links_unsupported(errno))
		return out_cannot(o, "cannot create", errno);
	/* Neither: take the name with O_EXCL, then rename over what is ours. */
	fd = open(o->path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0)
		return errno == EEXIST ? out_exists(o) : out_cannot(o, "cannot create", errno);
	close(fd);
	if (rename(tmp, o->path) == 0)
		return GS_OK;
	{
		int err = errno;

		unlink(o->path); /* the empty file created just above */
		return out_cannot(o, "cannot create", err);
	}
}

gs_status gs_outfile_publish(struct gs_outfile *o)
{
	sigset_t oldmask;
	gs_status st;

	if (o->slot < 0) /* stdout */
		return GS_OK;
	out_signals_block(&oldmask);
	if (o->force)
		st = rename(out_tmp[o->slot], o->path) == 0 ?
			     GS_OK :
			     out_cannot(o, "cannot replace", errno);
	else
		st = out_move_new(o, out_tmp[o->slot]);
	if (st == GS_OK) {
		out_slot_release(o->slot);
		o->slot = -1;
	}
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	if (st != GS_OK)
		gs_outfile_discard(o);
	return st;
}

gs_status gs_outfile_commit(struct gs_outfile *o)
{
	gs_status st = gs_outfile_finish(o);

	return st == GS_OK ? gs_outfile_publish(o) : st;
}
