/* SPDX-License-Identifier: MIT */
/*
 * The output policy of every command's -o (cli.h, docs/design.md): never one of
 * the inputs, never through a symbolic link, never replacing a file
 * without --force (and --force replaces regular files only); written to a
 * temporary file beside OUT and moved into place only when complete, so
 * that a failure or an interrupt leaves no partial output and an existing
 * OUT as it was. "-" (or no -o) is stdout.
 */
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

#include "cli.h"

/*
 * The temporary files, for the signal handler to remove: fixed buffers, as
 * the handler may only call async-signal-safe functions (unlink, raise).
 */
static char out_tmp[GS_OUTPUT_MAX_FILES][GS_OUTPUT_PATH_MAX];
static volatile sig_atomic_t out_tmp_live[GS_OUTPUT_MAX_FILES];
static int out_n_live; /* slots in use; the handlers are set while > 0 */

static const int out_signals[] = {SIGHUP, SIGINT, SIGTERM};
#define OUT_NSIGNALS (sizeof(out_signals) / sizeof(out_signals[0]))
static struct sigaction out_old[OUT_NSIGNALS];

static void out_on_signal(int sig)
{
	for (int i = 0; i < GS_OUTPUT_MAX_FILES; i++)
		if (out_tmp_live[i])
			unlink(out_tmp[i]);
	/* SA_RESETHAND restored the default: this ends the process as it would have. */
	raise(sig);
}

static void out_signals_set(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = out_on_signal;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < OUT_NSIGNALS; i++) {
		sigaction(out_signals[i], NULL, &out_old[i]);
		/* Keep a signal the caller chose to ignore ignored. */
		if (out_old[i].sa_handler != SIG_IGN)
			sigaction(out_signals[i], &sa, NULL);
	}
}

static void out_signals_restore(void)
{
	for (size_t i = 0; i < OUT_NSIGNALS; i++)
		sigaction(out_signals[i], &out_old[i], NULL);
}

static void out_signals_block(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < OUT_NSIGNALS; i++)
		sigaddset(&set, out_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

bool gs_output_is_stdout(const char *path)
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
		int got = !inputs[i]                             ? -1 :
			  strcmp(inputs[i], GS_INPUT_STDIN) == 0 ? fstat(STDIN_FILENO, &is) :
								   stat(inputs[i], &is);

		if (got == 0 && is.st_dev == os.st_dev && is.st_ino == os.st_ino)
			return true;
	}
	return false;
}

int gs_output_check(const char *path, bool force, const char *const *inputs, size_t n_inputs)
{
	struct stat ls;

	if (gs_output_is_stdout(path))
		return GS_EXIT_OK;
	if (lstat(path, &ls) != 0) {
		if (errno == ENOENT)
			return GS_EXIT_OK;
		gs_cli_error("%s: cannot create: %s", path, strerror(errno));
		return GS_EXIT_FAIL;
	}
	if (out_is_input(path, &ls, inputs, n_inputs)) {
		gs_cli_error("%s: is one of the inputs", path);
		return GS_EXIT_FAIL;
	}
	if (S_ISLNK(ls.st_mode)) {
		gs_cli_error("%s: is a symbolic link", path);
		return GS_EXIT_FAIL;
	}
	/* Renaming over /dev/null as root would replace the device itself. */
	if (!S_ISREG(ls.st_mode)) {
		gs_cli_error("%s: is not a regular file", path);
		return GS_EXIT_FAIL;
	}
	if (!force) {
		gs_cli_error("%s: exists (use --force to replace it)", path);
		return GS_EXIT_FAIL;
	}
	return GS_EXIT_OK;
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
	for (int i = 0; i < GS_OUTPUT_MAX_FILES; i++)
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

int gs_output_open(struct gs_output *o, const char *path, bool force, const char *const *inputs,
		   size_t n_inputs)
{
	sigset_t oldmask;
	int fd, slot, err;

	memset(o, 0, sizeof(*o));
	o->slot = -1;
	o->force = force;
	o->inputs = inputs;
	o->n_inputs = n_inputs;
	if (gs_output_is_stdout(path)) {
		o->f = stdout;
		return GS_EXIT_OK;
	}
	o->path = path;
	if (gs_output_check(path, force, inputs, n_inputs) != GS_EXIT_OK)
		return GS_EXIT_FAIL;
	slot = out_slot_take();
	if (slot < 0) { /* a programming error: more files than the table holds */
		gs_cli_error("%s: too many output files at once", path);
		return GS_EXIT_FAIL;
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
		gs_cli_error("%s: cannot create: %s", path, strerror(err));
		return GS_EXIT_FAIL;
	}
	o->slot = slot;
	o->f = fdopen(fd, "w");
	if (!o->f) {
		gs_cli_error("%s: cannot create: %s", path, strerror(errno));
		close(fd);
		gs_output_discard(o);
		return GS_EXIT_FAIL;
	}
	return GS_EXIT_OK;
}

void gs_output_discard(struct gs_output *o)
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

int gs_output_finish(struct gs_output *o)
{
	FILE *f = o->f;

	if (f == stdout || !f)
		return GS_EXIT_OK;
	o->f = NULL;
	errno = 0;
	if (fflush(f) == EOF || ferror(f)) {
		gs_cli_error("%s: write error: %s", o->path, strerror(errno ? errno : EIO));
		fclose(f);
		gs_output_discard(o);
		return GS_EXIT_FAIL;
	}
	if (fclose(f) == EOF) {
		gs_cli_error("%s: write error: %s", o->path, strerror(errno ? errno : EIO));
		gs_output_discard(o);
		return GS_EXIT_FAIL;
	}
	/* What appeared at OUT meanwhile is refused as it would have been at the start. */
	if (gs_output_check(o->path, o->force, o->inputs, o->n_inputs) != GS_EXIT_OK) {
		gs_output_discard(o);
		return GS_EXIT_FAIL;
	}
	return GS_EXIT_OK;
}

/* link() failed because the file system has no hard links (not a real error). */
static bool out_links_unsupported(int e)
{
	if (e == EOPNOTSUPP) /* the same value as ENOTSUP on Linux, not everywhere */
		return true;
	return e == ENOTSUP || e == EPERM || e == ENOSYS || e == EMLINK;
}

/* Move the finished temporary file to OUT: 0, or -1 with the error printed. */
static int out_move(struct gs_output *o)
{
	const char *tmp = out_tmp[o->slot];
	struct stat sb;

	if (o->force) {
		if (rename(tmp, o->path) == 0)
			return 0;
		gs_cli_error("%s: cannot replace: %s", o->path, strerror(errno));
		return -1;
	}
	/* link() fails if OUT appeared meanwhile: no check-then-overwrite race. */
	if (link(tmp, o->path) == 0) {
		unlink(tmp);
		return 0;
	}
	if (errno == EEXIST) {
		gs_cli_error("%s: exists (use --force to replace it)", o->path);
		return -1;
	}
	if (!out_links_unsupported(errno)) {
		gs_cli_error("%s: cannot create: %s", o->path, strerror(errno));
		return -1;
	}
	/* No hard links on this file system: check, then rename. */
	if (lstat(o->path, &sb) == 0) {
		gs_cli_error("%s: exists (use --force to replace it)", o->path);
		return -1;
	}
	if (rename(tmp, o->path) == 0)
		return 0;
	gs_cli_error("%s: cannot create: %s", o->path, strerror(errno));
	return -1;
}

int gs_output_publish(struct gs_output *o)
{
	sigset_t oldmask;
	int r;

	if (o->slot < 0) /* stdout */
		return GS_EXIT_OK;
	out_signals_block(&oldmask);
	r = out_move(o);
	if (r == 0) {
		out_slot_release(o->slot);
		o->slot = -1;
	}
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	if (r != 0) {
		gs_output_discard(o);
		return GS_EXIT_FAIL;
	}
	return GS_EXIT_OK;
}

int gs_output_commit(struct gs_output *o)
{
	int rc = gs_output_finish(o);

	return rc == GS_EXIT_OK ? gs_output_publish(o) : rc;
}

int gs_output_close(struct gs_output *o, gs_status st)
{
	if (st == GS_OK)
		return gs_output_commit(o);
	gs_output_discard(o);
	return gs_cli_fail(st, o->path ? o->path : "stdout");
}
