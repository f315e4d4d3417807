/* SPDX-License-Identifier: MIT */
/*
 * Every Kineto trace in ../shared/data/kineto/ (recorded by other projects)
 * through the importer, checked against an independent count: the test
 * decompresses the file itself, parses all of it with cJSON and counts by
 * its own reading of the categories. Skips (77) when the data is absent.
 */
#include <gpuscope/import.h>

#include <cJSON.h>
#include <glob.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cmocka.h>

#include "kineto_sink.h"

/* What the importer should produce, counted without it. */
struct expect {
	size_t kernels, memcpys, memsets, apis, drivers, syncs, ranges[GS_RANGE_KIND_COUNT];
	size_t overheads, event_records, devices, graph_ops, async_copies, syncs_joined;
	size_t streams;
	int64_t kernel_ns;      /* sum of kernel durations */
	double first_kernel_us; /* earliest kernel ts, as a double */
};

static char *gunzip_file(const char *path, size_t *n)
{
	gzFile f = gzopen(path, "rb");
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap);
	int got;

	assert_non_null(f);
	assert_non_null(buf);
	while ((got = gzread(f, buf + len, (unsigned)(cap - len))) > 0) {
		len += (size_t)got;
		if (len == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
	}
	assert_int_equal(got, 0);
	gzclose(f);
	*n = len;
	return buf;
}

static bool cat_is(const char *cat, const char *a, const char *b)
{
	return cat && (strcmp(cat, a) == 0 || (b && strcmp(cat, b) == 0));
}

static bool numeric_pid(const cJSON *pid)
{
	if (cJSON_IsNumber(pid))
		return true;
	if (!cJSON_IsString(pid) || !pid->valuestring[0])
		return false;
	for (const char *p = pid->valuestring; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

static bool num_member(const cJSON *o, const char *key, double *v)
{
	const cJSON *it = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;

	if (!it || !cJSON_IsNumber(it))
		return false;
	*v = it->valuedouble;
	return true;
}

/* A small set of correlation ids (open addressing). */
struct idset {
	uint64_t *v;
	size_t cap, n;
};

static void idset_add(struct idset *s, uint64_t id)
{
	size_t h;

	if ((s->n + 1) * 2 > s->cap) {
		struct idset ns = {calloc(s->cap ? s->cap * 2 : 1024, sizeof(uint64_t)),
				   s->cap ? s->cap * 2 : 1024, 0};

		assert_non_null(ns.v);
		for (size_t i = 0; i < s->cap; i++)
			if (s->v[i])
				idset_add(&ns, s->v[i]);
		free(s->v);
		*s = ns;
	}
	if (!s->v)
		abort();
	for (h = (id * 0x9E3779B97F4A7C15ull) & (s->cap - 1); s->v[h]; h = (h + 1) & (s->cap - 1))
		if (s->v[h] == id)
			return;
	s->v[h] = id;
	s->n++;
}

static bool idset_has(const struct idset *s, uint64_t id)
{
	if (!s->cap || !id)
		return false;
	for (size_t h = (id * 0x9E3779B97F4A7C15ull) & (s->cap - 1); s->v[h];
	     h = (h + 1) & (s->cap - 1))
		if (s->v[h] == id)
			return true;
	return false;
}

static uint64_t corr_of(const cJSON *args)
{
	double c;

	return num_member(args, "correlation", &c) && c > 0 ? (uint64_t)c : 0;
}

/* FNV-1a, never 0 (the set's empty mark). */
static uint64_t hash_key(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h | 1;
}

/* The stream key of a GPU event, as a string ("device/context/stream"). */
static void stream_key(const cJSON *e, const cJSON *args, const char *skey, char *out, size_t n)
{
	double dev = -1, ctx = 0, st = -1;
	const cJSON *tid = cJSON_GetObjectItemCaseSensitive(e, "tid");

	if (!num_member(args, "device", &dev))
		num_member(e, "pid", &dev);
	num_member(args, "context", &ctx);
	if (!num_member(args, skey, &st)) {
		if (cJSON_IsNumber(tid))
			st = tid->valuedouble;
		else if (cJSON_IsString(tid) && strncmp(tid->valuestring, "stream ", 7) == 0)
			st = atof(tid->valuestring + 7);
	}
	snprintf(out, n, "%.0f/%.0f/%.0f", dev, ctx, st);
}

static void count_expected(const char *json, size_t n, struct expect *x)
{
	cJSON *root = cJSON_ParseWithLength(json, n);
	const cJSON *events, *e, *devs;
	struct idset graph = {0}, async = {0}, launches = {0}, streams = {0};

	assert_non_null(root);
	memset(x, 0, sizeof(*x));
	x->first_kernel_us = INFINITY;
	events = cJSON_IsArray(root) ? root : cJSON_GetObjectItemCaseSensitive(root, "traceEvents");
	assert_true(cJSON_IsArray(events));
	devs = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "deviceProperties") :
				      NULL;
	x->devices = cJSON_IsArray(devs) ? (size_t)cJSON_GetArraySize(devs) : 0;

	/* Pass 1: host calls, by correlation id. */
	cJSON_ArrayForEach(e, events)
	{
		const char *ph = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "ph"));
		const char *cat = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "cat"));
		const char *name =
			cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name"));
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");

		if (!ph || strcmp(ph, "X") != 0 || !name ||
		    (!cat_is(cat, "cuda_runtime", "Runtime") && !cat_is(cat, "cuda_driver", NULL)))
			continue;
		if (corr_of(args)) {
			idset_add(&launches, corr_of(args));
			if (strstr(name, "GraphLaunch"))
				idset_add(&graph, corr_of(args));
			if (strstr(name, "Async"))
				idset_add(&async, corr_of(args));
		}
	}
	/* Pass 2: everything, with times checked the way the importer must. */
	cJSON_ArrayForEach(e, events)
	{
		const char *ph = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "ph"));
		const char *cat = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "cat"));
		const char *name =
			cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name"));
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
		const cJSON *pid = cJSON_GetObjectItemCaseSensitive(e, "pid");
		double ts, dur;
		bool host;
		char key[96];

		if (!ph || strcmp(ph, "X") != 0 || !cat)
			continue;
		if (!num_member(e, "ts", &ts) || !num_member(e, "dur", &dur) || dur < 0 ||
		    dur * 1000.0 > 7.0 * 24 * 3600 * 1e9)
			continue;
		host = numeric_pid(pid);
		if (cat_is(cat, "kernel", "Kernel")) {
			x->kernels++;
			x->kernel_ns += llround(dur * 1000.0);
			if (ts < x->first_kernel_us)
				x->first_kernel_us = ts;
		} else if (cat_is(cat, "gpu_memcpy", "Memcpy")) {
			x->memcpys++;
		} else if (cat_is(cat, "gpu_memset", "Memset")) {
			x->memsets++;
		} else if (cat_is(cat, "cuda_runtime", "Runtime") && host) {
			x->apis++;
		} else if (cat_is(cat, "cuda_driver", NULL) && host) {
			x->apis++;
			x->drivers++;
		} else if (cat_is(cat, "cuda_sync", NULL)) {
			double s;

			x->syncs++;
			if (idset_has(&launches, corr_of(args)))
				x->syncs_joined++;
			if (num_member(args, "stream", &s) && s >= 0 && s != 4294967295.0) {
				stream_key(e, args, "stream", key, sizeof(key));
				idset_add(&streams, hash_key(key));
			}
			if (num_member(args, "wait_on_stream", &s) && s >= 0) {
				stream_key(e, args, "wait_on_stream", key, sizeof(key));
				idset_add(&streams, hash_key(key));
			}
			continue;
		} else if (cat_is(cat, "cpu_op", "Operator") && host) {
			x->ranges[GS_RANGE_CPU_OP]++;
		} else if (cat_is(cat, "user_annotation", NULL) && host) {
			x->ranges[GS_RANGE_USER_ANNOTATION]++;
		} else if (cat_is(cat, "python_function", NULL) && host) {
			x->ranges[GS_RANGE_PYTHON]++;
		} else if (cat_is(cat, "overhead", NULL) && host) {
			x->overheads++;
		}
		if ((cat_is(cat, "cuda_runtime", "Runtime") || cat_is(cat, "cuda_driver", NULL)) &&
		    host && name &&
		    (strncmp(name, "cudaEventRecord", 15) == 0 ||
		     strncmp(name, "cuEventRecord", 13) == 0 ||
		     strncmp(name, "hipEventRecord", 14) == 0))
			x->event_records++;
		if (cat_is(cat, "kernel", "Kernel") || cat_is(cat, "gpu_memcpy", "Memcpy") ||
		    cat_is(cat, "gpu_memset", "Memset")) {
			uint64_t c = corr_of(args);

			if (idset_has(&graph, c))
				x->graph_ops++;
			if (!cat_is(cat, "kernel", "Kernel") && idset_has(&async, c))
				x->async_copies++;
			stream_key(e, args, "stream", key, sizeof(key));
			idset_add(&streams, hash_key(key));
		}
	}
	x->streams = streams.n;
	free(graph.v);
	free(async.v);
	free(launches.v);
	free(streams.v);
	cJSON_Delete(root);
}

static void check_trace(void **state)
{
	const char *path = *state;
	struct expect x;
	struct rec r;
	size_t n, kinds[GS_OP_KIND_COUNT] = {0}, ranges[GS_RANGE_KIND_COUNT] = {0};
	size_t graph = 0, async = 0, joined = 0, drivers = 0;
	int64_t kernel_ns = 0, first_kernel = INT64_MAX;
	char *json = gunzip_file(path, &n);

	count_expected(json, n, &x);
	free(json);

	rec_init(&r);
	r.keep_strings = false;
	gs_error_clear();
	if (gs_import_kineto(path, NULL, &r.sink) != GS_OK) {
		char buf[1024];

		fail_msg("%s", gs_error_format(buf, sizeof(buf)));
	}
	for (size_t i = 0; i < r.nops; i++) {
		const struct gs_op *op = &r.ops[i];

		kinds[op->kind]++;
		if (op->flags & GS_OPF_GRAPH)
			graph++;
		if (op->flags & GS_OPF_ASYNC)
			async++;
		if (op->kind == GS_OP_KERNEL) {
			kernel_ns += op->end_ns - op->start_ns;
			if (op->start_ns < first_kernel)
				first_kernel = op->start_ns;
		}
		assert_true(op->stream < r.nstreams);
		assert_true(op->end_ns >= op->start_ns);
	}
	for (size_t i = 0; i < r.nranges; i++)
		ranges[r.ranges[i].kind]++;
	for (size_t i = 0; i < r.napis; i++)
		drivers += r.apis[i].kind == GS_API_DRIVER;
	for (size_t i = 0; i < r.nsyncs; i++)
		joined += r.syncs[i].pid != -1;

	print_message("%s: %zu kernels, %zu memcpy, %zu memset, %zu api calls (%zu driver), "
		      "%zu syncs (%zu joined), %zu cpu_op, %zu user_annotation, %zu python, "
		      "%zu overhead, %zu event records, %zu graph ops, %zu async copies, "
		      "%zu streams, %zu devices, %zu processes, %zu warnings\n",
		      strrchr(path, '/') + 1, kinds[GS_OP_KERNEL], kinds[GS_OP_MEMCPY],
		      kinds[GS_OP_MEMSET], r.napis, drivers, r.nsyncs, joined,
		      ranges[GS_RANGE_CPU_OP], ranges[GS_RANGE_USER_ANNOTATION],
		      ranges[GS_RANGE_PYTHON], r.noverheads, r.nevrecs, graph, async, r.nstreams,
		      r.ndevs, r.nprocs, r.nwarns);
	for (size_t i = 0; i < r.nwarns; i++)
		print_message("    warning: %s\n", r.warns[i].msg);

	assert_int_equal(kinds[GS_OP_KERNEL], x.kernels);
	assert_int_equal(kinds[GS_OP_MEMCPY], x.memcpys);
	assert_int_equal(kinds[GS_OP_MEMSET], x.memsets);
	assert_int_equal(r.napis, x.apis);
	assert_int_equal(drivers, x.drivers);
	assert_int_equal(r.nsyncs, x.syncs);
	assert_int_equal(joined, x.syncs_joined);
	assert_int_equal(ranges[GS_RANGE_CPU_OP], x.ranges[GS_RANGE_CPU_OP]);
	assert_int_equal(ranges[GS_RANGE_USER_ANNOTATION], x.ranges[GS_RANGE_USER_ANNOTATION]);
	assert_int_equal(ranges[GS_RANGE_PYTHON], x.ranges[GS_RANGE_PYTHON]);
	assert_int_equal(r.noverheads, x.overheads);
	assert_int_equal(r.nevrecs, x.event_records);
	assert_int_equal(graph, x.graph_ops);
	assert_int_equal(async, x.async_copies);
	assert_int_equal(r.nstreams, x.streams);
	assert_int_equal(kernel_ns, x.kernel_ns);
	if (x.kernels) {
		/* A double holds epoch µs to within 0.25 µs. */
		assert_true(fabs((double)first_kernel - x.first_kernel_us * 1000.0) < 512.0);
	}
	/* Every device ops use has a record; deviceProperties ones at least. */
	assert_true(r.ndevs >= x.devices);
	for (size_t i = 0; i < r.nstreams; i++) {
		bool found = false;

		for (size_t d = 0; d < r.ndevs; d++)
			found |= r.devs[d].id == r.streams[i].device;
		assert_true(found);
	}
	/* A host process whenever there are host calls. */
	if (r.napis)
		assert_true(r.nprocs >= 1);
	/* Nothing in these files is malformed or out of range. */
	for (size_t i = 0; i < r.nwarns; i++) {
		assert_null(strstr(r.warns[i].msg, "dropped"));
		assert_null(strstr(r.warns[i].msg, "not valid JSON"));
		assert_null(strstr(r.warns[i].msg, "unknown category"));
	}
	rec_free(&r);
}

int main(void)
{
	glob_t g;
	struct CMUnitTest *tests;
	int rc;

	if (glob(GS_SHARED_DATA "/kineto/*/*.json.gz", 0, NULL, &g) != 0 || g.gl_pathc == 0) {
		printf("skipped: ../shared/data absent\n");
		return 77;
	}
	tests = calloc(g.gl_pathc, sizeof(*tests));
	assert_non_null(tests);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		tests[i].name = strrchr(g.gl_pathv[i], '/') + 1;
		tests[i].test_func = check_trace;
		tests[i].initial_state = g.gl_pathv[i];
	}
	rc = _cmocka_run_group_tests("shared_kineto", tests, g.gl_pathc, NULL, NULL);
	free(tests);
	globfree(&g);
	return rc;
}
