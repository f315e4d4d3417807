/* SPDX-License-Identifier: MIT */
/*
 * The Nsight Systems SQLite importer on the real exports in
 * ../shared/data/nsys/pipit (skips with 77 when absent): the import op by
 * op and call by call against the pipit tool's event listings of the same
 * trace (CSV, read here), against this test's own SQL over the file, and
 * counts with SELECT COUNT(*).
 */
#include <gpuscope/import.h>

#include <errno.h>
#include <setjmp.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "nsys_test.h"

/* ------------------------------------------------------------------------ */
/* The real exports against the pipit listings and SQL                      */
/* ------------------------------------------------------------------------ */

/* A whole CSV file (RFC 4180: quoted fields, "" in quotes), as rows of
 * fields. */
struct csv {
	char *data;
	char ***rows;
	size_t *nfields;
	size_t nrows;
};

static void csv_read(const char *path, struct csv *c)
{
	FILE *f = fopen(path, "rb");
	size_t len, cap_rows = 0, cap_f = 0, nf = 0;
	char *w, *p, *end, **fields = NULL;
	long sz;

	memset(c, 0, sizeof(*c));
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	sz = ftell(f);
	assert_true(sz >= 0);
	rewind(f);
	c->data = malloc((size_t)sz + 1);
	assert_non_null(c->data);
	len = fread(c->data, 1, (size_t)sz, f);
	assert_int_equal(len, (size_t)sz);
	fclose(f);
	c->data[len] = '\0';
	/* Fields are unescaped in place: w never passes p. */
	p = c->data;
	end = c->data + len;
	while (p < end) {
		char *start = w = p;

		if (*p == '"') {
			p++;
			for (;;) {
				assert_true(p < end);
				if (*p == '"' && p[1] == '"') {
					*w++ = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					*w++ = *p++;
				}
			}
		} else {
			while (p < end && *p != ',' && *p != '\n' && *p != '\r')
				*w++ = *p++;
		}
		if (nf == cap_f) {
			cap_f = cap_f ? cap_f * 2 : 16;
			fields = realloc(fields, cap_f * sizeof(*fields));
			assert_non_null(fields);
		}
		fields[nf++] = start;
		if (p < end && *p == ',') {
			*w = '\0';
			p++;
			continue;
		}
		/* End of the row. */
		if (p < end && *p == '\r')
			p++;
		assert_true(p >= end || *p == '\n');
		*w = '\0';
		p++;
		if (c->nrows == cap_rows) {
			cap_rows = cap_rows ? cap_rows * 2 : 1024;
			c->rows = realloc(c->rows, cap_rows * sizeof(*c->rows));
			c->nfields = realloc(c->nfields, cap_rows * sizeof(*c->nfields));
			assert_non_null(c->rows);
			assert_non_null(c->nfields);
		}
		c->rows[c->nrows] = fields;
		c->nfields[c->nrows++] = nf;
		fields = NULL;
		nf = cap_f = 0;
	}
	free(fields);
}

static void csv_free(struct csv *c)
{
	for (size_t i = 0; i < c->nrows; i++)
		free(c->rows[i]);
	free(c->rows);
	free(c->nfields);
	free(c->data);
}

static int csv_col(const struct csv *c, const char *name)
{
	assert_true(c->nrows > 0);
	for (size_t i = 0; i < c->nfields[0]; i++)
		if (strcmp(c->rows[0][i], name) == 0)
			return (int)i;
	fail_msg("no column %s", name);
	return -1;
}

static int64_t parse_ns(const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	assert_int_equal(errno, 0);
	assert_true(end != s);
	if (*end == '.') /* "123.0" */
		for (end++; *end == '0'; end++)
			;
	if (*end)
		fail_msg("not an integer time: \"%s\"", s);
	return v;
}

/* An op or call as the pipit listing has it. */
struct ev {
	int64_t start, end, a, b; /* gpu: stream id, bytes; api: pid, tid */
	const char *name, *type;
};

static int ev_cmp(const void *pa, const void *pb)
{
	const struct ev *x = pa, *y = pb;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* The Enter rows of a pipit listing (each with its Leave time). */
static size_t pipit_events(const struct csv *c, bool gpu, struct ev **out)
{
	int cname = csv_col(c, "Name"), cev = csv_col(c, "Event Type");
	int cts = csv_col(c, "Timestamp (ns)"), cend = csv_col(c, "_matching_timestamp");
	int ca = csv_col(c, gpu ? "streamId" : "Process");
	int cb = csv_col(c, gpu ? "bytes" : "Thread");
	int ctype = gpu ? csv_col(c, "type") : -1;
	struct ev *v = calloc(c->nrows, sizeof(*v));
	size_t n = 0, enter = 0, leave = 0;

	assert_non_null(v);
	for (size_t i = 1; i < c->nrows; i++) {
		char **f = c->rows[i];

		assert_int_equal(c->nfields[i], c->nfields[0]);
		if (strcmp(f[cev], "Leave") == 0) {
			leave++;
			continue;
		}
		assert_string_equal(f[cev], "Enter");
		enter++;
		v[n].start = parse_ns(f[cts]);
		v[n].end = parse_ns(f[cend]);
		v[n].a = f[ca][0] ? parse_ns(f[ca]) : -1;
		v[n].b = f[cb][0] ? parse_ns(f[cb]) : 0;
		v[n].name = f[cname];
		v[n].type = gpu ? f[ctype] : NULL;
		n++;
	}
	assert_int_equal(enter, leave);
	qsort(v, n, sizeof(*v), ev_cmp);
	*out = v;
	return n;
}

static uint8_t pipit_copy_kind(const char *type)
{
	static const struct {
		const char *name;
		uint8_t kind;
	} k[] = {
		{"CUDA_MEMCPY_KIND_HTOD", GS_COPY_HTOD}, {"CUDA_MEMCPY_KIND_DTOH", GS_COPY_DTOH},
		{"CUDA_MEMCPY_KIND_DTOD", GS_COPY_DTOD}, {"CUDA_MEMCPY_KIND_HTOH", GS_COPY_HTOH},
		{"CUDA_MEMCPY_KIND_PTOP", GS_COPY_PTOP},
	};
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (strcmp(type, k[i].name) == 0)
			return k[i].kind;
	fail_msg("unexpected pipit type %s", type);
	return 0;
}

/* "cudaMalloc_v3020" -> "cudaMalloc" (this test's own reading). */
static void strip_version(const char *s, char *out, size_t cap)
{
	const char *v = strrchr(s, '_');
	size_t n = strlen(s);

	if (v && v[1] == 'v' && v[2] && strspn(v + 2, "0123456789") == strlen(v + 2))
		n = (size_t)(v - s);
	assert_true(n < cap);
	memcpy(out, s, n);
	out[n] = '\0';
}

struct op_ref {
	const struct gs_op *op;
};

static int op_ref_cmp(const void *pa, const void *pb)
{
	const struct gs_op *x = ((const struct op_ref *)pa)->op;
	const struct gs_op *y = ((const struct op_ref *)pb)->op;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->end_ns < y->end_ns ? -1 : x->end_ns > y->end_ns;
}

static int call_cmp(const void *pa, const void *pb)
{
	const struct gs_api_call *x = *(const struct gs_api_call *const *)pa;
	const struct gs_api_call *y = *(const struct gs_api_call *const *)pb;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->end_ns < y->end_ns ? -1 : x->end_ns > y->end_ns;
}

static sqlite3 *open_ro(const char *path)
{
	sqlite3 *db = NULL;
	char uri[1024];

	snprintf(uri, sizeof(uri), "file:%s?immutable=1", path);
	assert_int_equal(sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL),
			 SQLITE_OK);
	return db;
}

static int64_t sql_count(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void check_cloverleaf(void)
{
	const char *path = PIPIT "/a100_cloverleaf.sqlite";
	struct gs_trace *t;
	enum gs_input_format fmt;
	struct csv gcsv, acsv;
	struct ev *gev, *aev;
	size_t ngev, naev, nops, ncalls, nsync;
	const struct gs_op *ops;
	const struct gs_api_call *calls;
	const struct gs_sync *syncs;
	struct op_ref *refs;
	const struct gs_api_call **cref;
	sqlite3 *db;
	sqlite3_stmt *st;
	size_t k = 0;

	gs_error_clear();
	if (gs_trace_load(path, NULL, &t, &fmt) != GS_OK)
		fail_msg("load: %s", last_error());
	assert_int_equal(fmt, GS_INPUT_NSYS);
	ops = gs_trace_ops(t, &nops);
	calls = gs_trace_api_calls(t, &ncalls);
	syncs = gs_trace_syncs(t, &nsync);

	/* GPU ops, one by one, against pipit's listing. */
	csv_read(PIPIT "/a100_cloverleaf.pipit_gpu_events.csv", &gcsv);
	ngev = pipit_events(&gcsv, true, &gev);
	assert_int_equal(ngev, 1591);
	assert_int_equal(nops, ngev);
	refs = calloc(nops, sizeof(*refs));
	assert_non_null(refs);
	for (size_t i = 0; i < nops; i++)
		refs[i].op = &ops[i];
	qsort(refs, nops, sizeof(*refs), op_ref_cmp);
	for (size_t i = 0; i < nops; i++) {
		const struct gs_op *o = refs[i].op;
		const struct ev *e = &gev[i];

		assert_int_equal(o->start_ns, e->start);
		assert_int_equal(o->end_ns, e->end);
		assert_int_equal(stream_of(t, o->stream)->stream_id, e->a);
		if (strcmp(e->type, "kernel") == 0) {
			assert_int_equal(o->kind, GS_OP_KERNEL);
			/* pipit shows the short name; the import the full one. */
			if (!strstr(str(t, o->name), e->name))
				fail_msg("kernel at %lld: \"%s\" lacks \"%s\"", (long long)e->start,
					 str(t, o->name), e->name);
		} else {
			assert_int_equal(o->kind, GS_OP_MEMCPY);
			assert_string_equal(e->name, e->type);
			assert_int_equal(o->copy_kind, pipit_copy_kind(e->type));
			assert_int_equal(o->bytes, e->b);
		}
	}

	/* API calls, one by one. */
	csv_read(PIPIT "/a100_cloverleaf.pipit_api_events.csv", &acsv);
	naev = pipit_events(&acsv, false, &aev);
	assert_int_equal(naev, 3048);
	assert_int_equal(ncalls, naev);
	cref = calloc(ncalls, sizeof(*cref));
	assert_non_null(cref);
	for (size_t i = 0; i < ncalls; i++)
		cref[i] = &calls[i];
	qsort(cref, ncalls, sizeof(*cref), call_cmp);
	for (size_t i = 0; i < ncalls; i++) {
		char want[256];

		strip_version(aev[i].name, want, sizeof(want));
		assert_int_equal(cref[i]->start_ns, aev[i].start);
		assert_int_equal(cref[i]->end_ns, aev[i].end);
		assert_int_equal(cref[i]->pid, aev[i].a);
		assert_int_equal(cref[i]->tid, aev[i].b);
		assert_string_equal(str(t, cref[i]->name), want);
	}

	/* This test's own SQL: every kernel's full name and launch fields. */
	db = open_ro(path);
	assert_int_equal(
		sqlite3_prepare_v2(db,
				   "SELECT k.start, k.end, s.value, k.gridX, k.gridY, k.gridZ,"
				   " k.blockX, k.blockY, k.blockZ, k.registersPerThread,"
				   " k.staticSharedMemory + k.dynamicSharedMemory, k.correlationId"
				   " FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s"
				   " ON s.id = k.demangledName ORDER BY k.start",
				   -1, &st, NULL),
		SQLITE_OK);
	for (size_t i = 0; i < nops; i++) {
		const struct gs_op *o = refs[i].op;

		if (o->kind != GS_OP_KERNEL)
			continue;
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(o->start_ns, sqlite3_column_int64(st, 0));
		assert_int_equal(o->end_ns, sqlite3_column_int64(st, 1));
		assert_string_equal(str(t, o->name), (const char *)sqlite3_column_text(st, 2));
		for (int d = 0; d < 3; d++) {
			assert_int_equal(lcfg(t, o)->grid[d], sqlite3_column_int64(st, 3 + d));
			assert_int_equal(lcfg(t, o)->block[d], sqlite3_column_int64(st, 6 + d));
		}
		assert_int_equal(lcfg(t, o)->registers, sqlite3_column_int64(st, 9));
		assert_int_equal(lcfg(t, o)->shared_mem, sqlite3_column_int64(st, 10));
		assert_int_equal(o->correlation, sqlite3_column_int64(st, 11));
		k++;
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);

	/* Counts. */
	assert_int_equal(k, sql_count(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
	assert_int_equal(k, 1312);
	assert_int_equal(count_ops(t, GS_OP_MEMCPY),
			 sql_count(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"));
	assert_int_equal(count_ops(t, GS_OP_MEMCPY), 279);
	assert_int_equal(ncalls, sql_count(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"));
	assert_int_equal(nsync,
			 sql_count(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"));
	assert_int_equal(nsync, 1312);
	assert_int_equal(COUNT(gs_trace_devices, t),
			 sql_count(db, "SELECT COUNT(*) FROM TARGET_INFO_GPU"));
	/* Every sync is a cudaDeviceSynchronize of the main thread, on the
	 * device of the one context; one stream in all. */
	for (size_t i = 0; i < nsync; i++) {
		assert_int_equal(syncs[i].kind, GS_SYNC_CONTEXT);
		assert_int_equal(syncs[i].tid, 1701896);
		assert_int_equal(syncs[i].device, 0);
	}
	assert_int_equal(COUNT(gs_trace_streams, t), 1);
	assert_int_equal(stream_of(t, ops[0].stream)->kind, GS_STREAM_LEGACY_DEFAULT);
	assert_string_equal(str(t, process_of(t, 1701896)->command_line), "cuda-cloverleaf");
	assert_int_equal(COUNT(gs_trace_warnings, t), 0);
	sqlite3_close(db);

	free(cref);
	free(refs);
	free(gev);
	free(aev);
	csv_free(&gcsv);
	csv_free(&acsv);
	gs_trace_destroy(t);
}

static void check_saxpy(void)
{
	const char *path = PIPIT "/a100_saxpy_mpi_rank0.sqlite";
	struct gs_trace *t = import_ok(path);
	sqlite3 *db = open_ro(path);
	size_t n;
	const struct gs_op *ops = gs_trace_ops(t, &n);
	int64_t folded;

	assert_int_equal(count_ops(t, GS_OP_KERNEL),
			 sql_count(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"));
	assert_int_equal(count_ops(t, GS_OP_MEMCPY),
			 sql_count(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"));
	/* Calls: the rows no other row of the same thread and correlation id
	 * encloses. */
	folded = sql_count(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r WHERE NOT EXISTS"
			       " (SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME o"
			       " WHERE o.correlationId = r.correlationId"
			       " AND o.globalTid = r.globalTid AND o.rowid != r.rowid"
			       " AND o.start <= r.start AND o.end >= r.end"
			       " AND (o.start < r.start OR o.end > r.end))");
	assert_int_equal(COUNT(gs_trace_api_calls, t), folded);
	assert_true(folded < sql_count(db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME"));
	assert_int_equal(COUNT(gs_trace_ranges, t),
			 sql_count(db, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType IN"
				       " (59, 60) AND end IS NOT NULL"));
	assert_int_equal(COUNT(gs_trace_devices, t), 1);
	assert_int_equal(COUNT(gs_trace_streams, t), 1);
	for (size_t i = 0; i < n; i++) {
		if (ops[i].kind != GS_OP_MEMCPY)
			continue;
		if (ops[i].copy_kind == GS_COPY_HTOD) {
			assert_int_equal(ops[i].src_mem, GS_MEM_PAGEABLE);
			assert_int_equal(ops[i].dst_mem, GS_MEM_DEVICE);
		} else {
			assert_int_equal(ops[i].copy_kind, GS_COPY_DTOH);
		}
	}
	assert_int_equal(COUNT(gs_trace_warnings, t), 0);
	sqlite3_close(db);
	gs_trace_destroy(t);
}

static void test_shared(void **state)
{
	(void)state;
	check_cloverleaf();
	check_saxpy();
}

int main(void)
{
	const struct CMUnitTest shared[] = {
		cmocka_unit_test(test_shared),
	};

	if (access(PIPIT "/a100_cloverleaf.sqlite", R_OK) != 0) {
		printf("skipped: ../shared/data absent\n");
		return 77;
	}
	return cmocka_run_group_tests(shared, NULL, NULL);
}
