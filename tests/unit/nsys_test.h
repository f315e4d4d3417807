/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the Nsight Systems importer's tests (test_nsys.c,
 * test_nsys_2proc.c, test_nsys_shared.c): a temporary directory for the
 * fixtures (setup, teardown, tmp_path), SQL into a database, an import with
 * its error, and the records of a trace found by time, id or kind.
 * Header-only (static functions); needs cmocka.h first.
 */
#ifndef GS_TEST_NSYS_TEST_H
#define GS_TEST_NSYS_TEST_H

#include <gpuscope/import.h>

#include <dirent.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PIPIT GS_SHARED_DATA "/nsys/pipit"

/* nsys GlobalIds: (vm << 56) | (pid << 24) | tid. */
#define GPID(pid) ((1ll << 56) | ((long long)(pid) << 24))
#define GTID(pid, tid) (GPID(pid) | (tid))

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

static char tmpdir[256];

static inline void make_tmpdir(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/gs_nsys_XXXXXX", base && *base ? base : "/tmp");
	assert_non_null(mkdtemp(tmpdir));
}

static inline void remove_tmpdir(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *e;
	char p[512];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", tmpdir, e->d_name);
		chmod(p, 0644);
		unlink(p);
	}
	closedir(d);
	rmdir(tmpdir);
}

static inline int setup(void **state)
{
	(void)state;
	make_tmpdir();
	return 0;
}

static inline int teardown(void **state)
{
	(void)state;
	remove_tmpdir();
	return 0;
}

static inline const char *tmp_path(const char *name)
{
	static char p[4][512];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", tmpdir, name);
	return p[k];
}

static inline void db_exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("SQL failed: %s\n%s", err ? err : "?", sql);
}

/* Printf-style SQL. */
static void db_execf(sqlite3 *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void db_execf(sqlite3 *db, const char *fmt, ...)
{
	char buf[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	db_exec(db, buf);
}

static inline sqlite3 *db_create(const char *path)
{
	sqlite3 *db = NULL;

	unlink(path);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	db_exec(db, "PRAGMA page_size = 4096; PRAGMA synchronous = OFF");
	return db;
}

static inline const char *last_error(void)
{
	static char buf[4096];

	return gs_error_format(buf, sizeof(buf));
}

static inline void assert_error_has(const char *needle)
{
	const char *msg = last_error();

	if (!strstr(msg, needle))
		fail_msg("error \"%s\" lacks \"%s\"", msg, needle);
}

static inline gs_status import_lim(const char *path, const struct gs_import_limits *lim,
				   struct gs_trace **out)
{
	struct gs_trace *t = NULL;
	gs_status rc;

	gs_error_clear();
	assert_int_equal(gs_trace_create(&t), GS_OK);
	rc = gs_import_nsys(path, lim, gs_trace_borrow_sink(t));
	if (rc == GS_OK)
		assert_int_equal(gs_trace_finish(t), GS_OK);
	*out = t;
	return rc;
}

static inline struct gs_trace *import_ok(const char *path)
{
	struct gs_trace *t;
	gs_status rc = import_lim(path, NULL, &t);

	if (rc != GS_OK)
		fail_msg("import of %s failed: %s", path, last_error());
	return t;
}

static inline const char *str(const struct gs_trace *t, uint32_t id)
{
	return gs_trace_string(t, id);
}

/* An op's launch configuration, all zero when it has none. */
static inline const struct gs_launch_cfg *lcfg(const struct gs_trace *t, const struct gs_op *o)
{
	static const struct gs_launch_cfg none;
	const struct gs_launch_cfg *lc = gs_trace_op_launch_cfg(t, o);

	return lc ? lc : &none;
}

static inline const struct gs_op *op_at(const struct gs_trace *t, int64_t start)
{
	size_t n;
	const struct gs_op *ops = gs_trace_ops(t, &n);

	for (size_t i = 0; i < n; i++)
		if (ops[i].start_ns == start)
			return &ops[i];
	fail_msg("no op starts at %lld", (long long)start);
	abort(); /* not reached: fail_msg leaves the test */
}

static inline const struct gs_api_call *call_at(const struct gs_trace *t, int64_t start)
{
	size_t n;
	const struct gs_api_call *c = gs_trace_api_calls(t, &n);

	for (size_t i = 0; i < n; i++)
		if (c[i].start_ns == start)
			return &c[i];
	fail_msg("no API call starts at %lld", (long long)start);
	abort(); /* not reached: fail_msg leaves the test */
}

static inline const struct gs_sync *sync_at(const struct gs_trace *t, int64_t start)
{
	size_t n;
	const struct gs_sync *y = gs_trace_syncs(t, &n);

	for (size_t i = 0; i < n; i++)
		if (y[i].start_ns == start)
			return &y[i];
	fail_msg("no sync starts at %lld", (long long)start);
	abort(); /* not reached: fail_msg leaves the test */
}

static inline const struct gs_range *range_at(const struct gs_trace *t, int64_t start)
{
	size_t n;
	const struct gs_range *r = gs_trace_ranges(t, &n);

	for (size_t i = 0; i < n; i++)
		if (r[i].start_ns == start)
			return &r[i];
	fail_msg("no range starts at %lld", (long long)start);
	abort(); /* not reached: fail_msg leaves the test */
}

static inline const struct gs_event_record *record_of(const struct gs_trace *t, uint64_t corr)
{
	size_t n;
	const struct gs_event_record *e = gs_trace_event_records(t, &n);

	for (size_t i = 0; i < n; i++)
		if (e[i].correlation == corr)
			return &e[i];
	fail_msg("no event record with correlation %llu", (unsigned long long)corr);
	abort(); /* not reached: fail_msg leaves the test */
}

static inline const struct gs_stream *stream_of(const struct gs_trace *t, uint32_t index)
{
	size_t n;
	const struct gs_stream *s = gs_trace_streams(t, &n);

	assert_true(index < n);
	return &s[index];
}

/* Index of stream (pid, device, context, stream id); fails when absent. */
static inline uint32_t stream_index(const struct gs_trace *t, int64_t pid, uint32_t dev,
				    uint32_t ctx, uint64_t id)
{
	size_t n;
	const struct gs_stream *s = gs_trace_streams(t, &n);

	for (size_t i = 0; i < n; i++)
		if (s[i].pid == pid && s[i].device == dev && s[i].context == ctx &&
		    s[i].stream_id == id)
			return (uint32_t)i;
	fail_msg("no stream %lld/%u/%u/%llu", (long long)pid, dev, ctx, (unsigned long long)id);
	return 0;
}

static inline const struct gs_device *device_of(const struct gs_trace *t, uint32_t id)
{
	size_t n;
	const struct gs_device *d = gs_trace_devices(t, &n);

	for (size_t i = 0; i < n; i++)
		if (d[i].id == id)
			return &d[i];
	fail_msg("no device %u", id);
	abort(); /* not reached: fail_msg leaves the test */
}

static inline const struct gs_process *process_of(const struct gs_trace *t, int64_t pid)
{
	size_t n;
	const struct gs_process *p = gs_trace_processes(t, &n);

	for (size_t i = 0; i < n; i++)
		if (p[i].pid == pid)
			return &p[i];
	fail_msg("no process %lld", (long long)pid);
	abort(); /* not reached: fail_msg leaves the test */
}

static inline size_t count_ops(const struct gs_trace *t, unsigned kind)
{
	size_t n, c = 0;
	const struct gs_op *ops = gs_trace_ops(t, &n);

	for (size_t i = 0; i < n; i++)
		c += ops[i].kind == kind;
	return c;
}

/* Number of records an accessor returns (the comma sequences the call). */
static inline size_t *count_tmp(void)
{
	static size_t n;

	return &n;
}
#define COUNT(fn, t) ((void)(fn)((t), count_tmp()), *count_tmp())

#endif
