/* SPDX-License-Identifier: MIT */
/*
 * Loading any supported trace, recognised by content, into a trace.
 *
 * A regular file (or a directory, refused by its reader) is recognised and
 * then read by its path. "-" (stdin) and anything else that is not a
 * regular file (a pipe, a FIFO, process substitution's /dev/fd/N, a
 * character device) is opened once and read in one pass: its first bytes
 * are read into a buffer for the content test and handed on to the reader
 * in front of the rest, never read again nor sought. Kineto JSON (plain or
 * gzip) streams from it as from a file. A .gscope is read into memory
 * first (its reader checks chunk lengths against the file's size and, with
 * --salvage, searches ahead), at most max_inflated_bytes of it. An Nsight
 * SQLite export cannot be read from a pipe at all (SQLite needs the file).
 */
#include "gzin.h"
#include "import_priv.h"
#include "progress_sink.h"
#include "util.h"

#include <gpuscope/trace.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *gs_input_name(const char *path)
{
	return path && strcmp(path, GS_INPUT_STDIN) == 0 ? "stdin" : path;
}

/*
 * Open `path` for one pass when it must be read so: *fd >= 0 then (owned
 * by the caller), else -1 with the path to be read as a file.
 */
static gs_status open_stream(const char *path, const char *name, int *fd)
{
	struct stat st;
	int f;

	*fd = -1;
	if (strcmp(path, GS_INPUT_STDIN) == 0) {
		f = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
		if (f < 0) {
			gs_error_append("%s: cannot read: %s", name, strerror(errno));
			return GS_ERR_IO;
		}
		*fd = f;
		return GS_OK;
	}
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0) {
		gs_error_append("%s: cannot open: %s", name, strerror(errno));
		return GS_ERR_IO;
	}
	if (fstat(f, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
		close(f);
		return GS_OK;
	}
	*fd = f;
	return GS_OK;
}

gs_status gs_load_slurp(int fd, const char *name, const unsigned char *head, size_t n, uint64_t max,
			unsigned char **data, size_t *size)
{
	size_t cap = 1u << 20, len = n;
	unsigned char *buf = malloc(cap);
	gs_status rc = GS_OK;

	*data = NULL;
	*size = 0;
	if (!buf) {
		close(fd);
		return gs_nomem();
	}
	memcpy(buf, head, n);
	for (;;) {
		ssize_t r;

		if ((uint64_t)len > max) {
			gs_error_append(
				"%s: a .gscope read from a pipe is held in memory, and this "
				"one is over max_inflated_bytes (%" PRIu64 ") bytes: save it "
				"to a file first, or raise the limit",
				name, max);
			rc = GS_ERR_LIMIT;
			break;
		}

		if (len == cap) {
			unsigned char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);

			if (!nb) {
				gs_error_append("%s: out of memory holding a .gscope read from a "
						"pipe (%zu bytes so far): save it to a file first",
						name, len);
				rc = GS_ERR_NOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			gs_error_append("%s: read failed: %s", name, strerror(errno));
			rc = GS_ERR_IO;
			break;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (rc) {
		free(buf);
		return rc;
	}
	*data = buf;
	*size = len;
	return GS_OK;
}

/* The cause for an input that is no trace: the importers' reason when one
 * saw something of its format, else what is expected, with the command
 * that makes a trace of another tool's file when its name says what it
 * is (an Nsight Systems report). */
static void unrecognised(const char *name, const char *why)
{
	char hint[GS_ERROR_MSG_MAX], expected[256];

	if (why)
		gs_error_append("%s: %s", name, why);
	else if (gs_detect_name_hint(name, hint, sizeof(hint)))
		gs_error_append("%s: not a recognised trace: %s", name, hint);
	else
		gs_error_append("%s: not a recognised trace (expected %s)", name,
				gs_importers_expected(expected, sizeof(expected)));
}

gs_status gs_trace_load_into(const char *path, const struct gs_load_options *opts,
			     struct gs_trace *t, enum gs_input_format *fmt)
{
	enum gs_input_format f;
	const struct gs_importer *im;
	struct gs_importer_input in = {.fd = -1};
	struct gs_limit_sink ls;
	struct gs_progress_sink ps;
	unsigned char head[GS_DETECT_HEAD];
	const char *why = NULL, *name;
	gs_status rc;
	int fd;

	if (fmt)
		*fmt = GS_INPUT_UNKNOWN;
	if (!path || !t) {
		gs_error_append("gs_trace_load_into: no %s", path ? "trace" : "path");
		return GS_ERR_INVALID;
	}
	name = gs_input_name(path);
	rc = open_stream(path, name, &fd);
	if (rc)
		return rc;
	/* A file is recognised by path; a stream from the first bytes read
	 * off it, which its importer then takes in front of the rest. */
	f = GS_INPUT_UNKNOWN;
	if (fd < 0) {
		rc = gs_detect_format_why(path, &f, &why);
	} else {
		rc = gs_detect_read_head(fd, name, head, sizeof(head), &in.n);
		if (rc)
			close(fd);
		else
			gs_detect_head(head, in.n, &f, &why);
	}
	if (rc)
		return rc;
	if (fmt)
		*fmt = f;
	im = gs_importer_of(f);
	if (!im) {
		if (fd >= 0)
			close(fd);
		unrecognised(fd >= 0 ? name : path, why);
		return GS_ERR_FORMAT;
	}
	if (fd >= 0 && !im->load_stream) {
		close(fd);
		gs_error_append("%s: %s", name, im->stream_refusal);
		return GS_ERR_FORMAT;
	}
	/* Every format is held to the limits they share (limits.c). Each
	 * reader names the file and the place (byte, chunk, table) of what the
	 * limits refuse. */
	gs_limit_sink_init(&ls, gs_trace_borrow_sink(t), NULL, opts ? opts->limits : NULL);
	if (opts && (opts->load_flags & GS_LOAD_NAME_WARNINGS))
		ls.warn_name = name;
	in.sink = &ls.sink;
	if (opts && opts->progress) {
		gs_progress_sink_init(&ps, in.sink, opts->progress, opts->progress_user);
		in.sink = &ps.sink;
	}
	/* The outermost sink is ours: every source skips a NULL callback. */
	if (opts && (opts->load_flags & GS_LOAD_SKIP_RANGES)) {
		if (opts->load_flags & GS_LOAD_KEEP_ANNOTATIONS)
			ls.annotations_only = true;
		else
			in.sink->range = NULL;
	}
	in.name = name;
	in.ls = &ls;
	in.reader_flags = opts ? opts->reader_flags : 0;
	if (fd < 0) {
		in.path = path;
		return im->load_path(&in);
	}
	in.fd = fd;
	in.head = head;
	return im->load_stream(&in);
}

gs_status gs_trace_load(const char *path, const struct gs_load_options *opts, struct gs_trace **out,
			enum gs_input_format *fmt)
{
	struct gs_trace *t = NULL;
	gs_status rc;

	if (out)
		*out = NULL;
	if (!out) {
		gs_error_append("gs_trace_load: no output");
		return GS_ERR_INVALID;
	}
	rc = gs_trace_create(&t);
	if (!rc)
		rc = gs_trace_load_into(path, opts, t, fmt);
	if (!rc)
		rc = gs_trace_finish(t);
	if (rc) {
		gs_trace_destroy(t);
		return rc;
	}
	*out = t;
	return GS_OK;
}

/* ---- several files at once ---- */

/* Threads reading files at once; a bound on the traces held in memory. */
#define GS_LOAD_MAX_THREADS 8

struct load_job {
	const char *path;
	struct gs_trace *t; /* the file's own trace, until appended */
	enum gs_input_format fmt;
	gs_status rc;
	uint64_t records;
	/* The reading thread's error causes, innermost first. */
	char (*causes)[GS_ERROR_MSG_MAX];
	int n_causes;
	bool done;
};

struct load_all {
	struct load_job *jobs;
	size_t n;
	const struct gs_load_options *opts; /* without progress */
	bool finish;                        /* each trace finished by its reader */
	size_t next;                        /* the next file a reader takes */
	size_t appended;                    /* files appended to the result so far */
	size_t ahead;                       /* how far past `appended` readers may go */
	bool stop;
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static void count_records(void *user, uint64_t records)
{
	*(uint64_t *)user = records;
}

/* Read one file into a trace of its own (finished when `finish`), keeping
 * its error causes. */
static void load_one(struct load_job *j, const struct gs_load_options *base, bool finish)
{
	struct gs_load_options o = *base;
	int n;

	o.progress = count_records;
	o.progress_user = &j->records;
	gs_error_clear();
	j->rc = gs_trace_create(&j->t);
	if (!j->rc)
		j->rc = gs_trace_load_into(j->path, &o, j->t, &j->fmt);
	if (!j->rc && finish)
		j->rc = gs_trace_finish(j->t);
	if (!j->rc)
		return;
	gs_trace_destroy(j->t);
	j->t = NULL;
	n = gs_error_count();
	j->causes = n ? malloc((size_t)n * sizeof(*j->causes)) : NULL;
	for (int i = 0; j->causes && i < n; i++)
		snprintf(j->causes[i], sizeof(j->causes[i]), "%s", gs_error_message(i));
	j->n_causes = j->causes ? n : 0;
	gs_error_clear();
}

static void *reader_main(void *arg)
{
	struct load_all *a = arg;

	pthread_mutex_lock(&a->mu);
	for (;;) {
		struct load_job *j;

		while (!a->stop && a->next < a->n && a->next >= a->appended + a->ahead)
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->stop || a->next >= a->n)
			break;
		j = &a->jobs[a->next++];
		pthread_mutex_unlock(&a->mu);
		load_one(j, a->opts, a->finish);
		pthread_mutex_lock(&a->mu);
		j->done = true;
		pthread_cond_broadcast(&a->cv);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

/* The causes a reader kept, back into this thread's chain. */
static void restore_causes(const struct load_job *j)
{
	gs_error_clear();
	for (int i = 0; i < j->n_causes; i++)
		gs_error_append("%s", j->causes[i]);
}

/*
 * gs_trace_load_all (into: the trace to append each file to) and
 * gs_trace_load_each (into NULL: each file's finished trace to each[i]).
 */
static gs_status load_many(const char *const *paths, size_t n, const struct gs_load_options *opts,
			   struct gs_trace *into, struct gs_trace **each,
			   enum gs_input_format *fmts, size_t *failed)
{
	struct gs_load_options base = {0};
	struct load_all a = {.n = n, .opts = &base, .finish = !into};
	pthread_t th[GS_LOAD_MAX_THREADS];
	size_t nth = 0, want, i;
	uint64_t records = 0;
	gs_status rc = GS_OK;

	if (failed)
		*failed = 0;
	if (opts)
		base = *opts;
	if (n > 1 && into)
		base.load_flags |= GS_LOAD_NAME_WARNINGS;
	base.progress = NULL;
	base.progress_user = NULL;
	a.jobs = calloc(n ? n : 1, sizeof(*a.jobs));
	if (!a.jobs) {
		return gs_nomem();
	}
	for (i = 0; i < n; i++)
		a.jobs[i].path = paths[i];
	want = gs_cpu_count();
	if (want > GS_LOAD_MAX_THREADS)
		want = GS_LOAD_MAX_THREADS;
	if (want > n)
		want = n;
	/* With one CPU (or one file) this thread reads each file itself: the
	 * same traces, appended in the same order. Appending, readers stay at
	 * most one file ahead each; kept, all are held anyway. */
	a.ahead = want < 2 ? 0 : into ? want : n;
	if (want > 1 && pthread_mutex_init(&a.mu, NULL) == 0) {
		if (pthread_cond_init(&a.cv, NULL) == 0) {
			while (nth < want && pthread_create(&th[nth], NULL, reader_main, &a) == 0)
				nth++;
			if (!nth)
				pthread_cond_destroy(&a.cv);
		}
		if (!nth)
			pthread_mutex_destroy(&a.mu);
	}
	for (i = 0; i < n; i++) {
		struct load_job *j = &a.jobs[i];

		if (nth) {
			pthread_mutex_lock(&a.mu);
			while (!j->done)
				pthread_cond_wait(&a.cv, &a.mu);
			pthread_mutex_unlock(&a.mu);
		} else {
			load_one(j, &base, a.finish);
		}
		if (j->rc) {
			rc = j->rc;
			restore_causes(j);
		} else {
			rc = into ? gs_trace_append(into, j->t) : GS_OK;
			if (fmts)
				fmts[i] = j->fmt;
		}
		if (!into && !rc) {
			each[i] = j->t;
			j->t = NULL;
		}
		gs_trace_destroy(j->t);
		j->t = NULL;
		if (rc) {
			if (failed)
				*failed = i;
			break;
		}
		records += j->records;
		if (opts && opts->progress)
			opts->progress(opts->progress_user, records);
		if (nth) {
			pthread_mutex_lock(&a.mu);
			a.appended = i + 1;
			pthread_cond_broadcast(&a.cv);
			pthread_mutex_unlock(&a.mu);
		}
	}
	if (nth) {
		pthread_mutex_lock(&a.mu);
		a.stop = true;
		pthread_cond_broadcast(&a.cv);
		pthread_mutex_unlock(&a.mu);
		for (size_t k = 0; k < nth; k++)
			pthread_join(th[k], NULL);
		pthread_cond_destroy(&a.cv);
		pthread_mutex_destroy(&a.mu);
	}
	for (i = 0; i < n; i++) {
		gs_trace_destroy(a.jobs[i].t);
		free(a.jobs[i].causes);
		if (rc && !into) {
			gs_trace_destroy(each[i]);
			each[i] = NULL;
		}
	}
	free(a.jobs);
	return rc;
}

gs_status gs_trace_load_all(const char *const *paths, size_t n, const struct gs_load_options *opts,
			    struct gs_trace *t, enum gs_input_format *fmts, size_t *failed)
{
	if (failed)
		*failed = 0;
	if (!paths || !t) {
		gs_error_append("gs_trace_load_all: no %s", paths ? "trace" : "paths");
		return GS_ERR_INVALID;
	}
	return load_many(paths, n, opts, t, NULL, fmts, failed);
}

gs_status gs_trace_load_each(const char *const *paths, size_t n, const struct gs_load_options *opts,
			     struct gs_trace **out, enum gs_input_format *fmts, size_t *failed)
{
	if (failed)
		*failed = 0;
	if (!paths || !out) {
		gs_error_append("gs_trace_load_each: no %s", paths ? "output" : "paths");
		return GS_ERR_INVALID;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = NULL;
	return load_many(paths, n, opts, NULL, out, fmts, failed);
}
