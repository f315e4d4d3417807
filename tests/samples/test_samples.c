/* SPDX-License-Identifier: MIT */
/*
 * Golden pattern tests of the sample traces: `gpuscope analyze --format json`
 * on the trace of every kernels/ program must report what the program's
 * header comment promises (kernels/NAME.cu). Patterns, not timings: which
 * edges, waits, conditions, candidates and stream kinds appear, with counts
 * that follow from the program's structure.
 *
 *   test_samples GPUSCOPE DIR...
 *
 * Every DIR/NAME.gscope found is checked (real recordings in samples/ and
 * the synthetic stand-ins in samples/synthetic/ alike); each program needs
 * at least one. Every report must also be clean: exit 0, nothing on stderr,
 * one device, breakdown totals that add up to the window, no dropped
 * records, no warnings, no unlinked waits, stream kinds known.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <cJSON.h>

#define MAX_DIRS 8
#define MAX_OUTPUT (64u << 20)

static const char *gpuscope;
static const char *dirs[MAX_DIRS];
static int n_dirs;

/* ---- running gpuscope ------------------------------------------------------ */

/* Single quotes for sh; the paths here never hold one (checked). */
static void quote(char *buf, size_t size, const char *s)
{
	assert_null(strchr(s, '\''));
	assert_true((size_t)snprintf(buf, size, "'%s'", s) < size);
}

/* `gpuscope analyze --format json FILE`: its parsed stdout; exit 0 and an
 * empty stderr are checked here. */
static cJSON *analyze(const char *file)
{
	char qg[4200], qf[4200], qe[4200], cmd[13000], err_path[] = "/tmp/gs_samples_err_XXXXXX";
	size_t cap = 1 << 16, n = 0;
	char *out = malloc(cap);
	FILE *p, *e;
	int fd, status;
	cJSON *j;

	assert_non_null(out);
	fd = mkstemp(err_path);
	assert_true(fd >= 0);
	close(fd);
	quote(qg, sizeof(qg), gpuscope);
	quote(qf, sizeof(qf), file);
	quote(qe, sizeof(qe), err_path);
	snprintf(cmd, sizeof(cmd), "%s analyze --format json %s 2>%s", qg, qf, qe);
	p = popen(cmd, "r");
	assert_non_null(p);
	for (;;) {
		size_t k;

		if (n + 1 == cap) {
			assert_true(cap < MAX_OUTPUT);
			cap *= 2;
			out = realloc(out, cap);
			assert_non_null(out);
		}
		k = fread(out + n, 1, cap - 1 - n, p);
		if (k == 0)
			break;
		n += k;
	}
	out[n] = '\0';
	status = pclose(p);
	e = fopen(err_path, "r");
	assert_non_null(e);
	{
		char line[1024] = "";

		if (fgets(line, sizeof(line), e))
			fail_msg("%s: gpuscope analyze wrote on stderr: %s", file, line);
	}
	fclose(e);
	unlink(err_path);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("%s: gpuscope analyze exited with status %d", file, status);
	j = cJSON_Parse(out);
	if (!j)
		fail_msg("%s: the report is not JSON", file);
	free(out);
	return j;
}

/* ---- JSON access ------------------------------------------------------------ */

/* "devices.0.breakdown.kernel_ns": object keys and array indices. */
static const cJSON *at(const cJSON *j, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k && j; k = strtok_r(NULL, ".", &save)) {
		if (k[0] >= '0' && k[0] <= '9')
			j = cJSON_GetArrayItem(j, atoi(k));
		else
			j = cJSON_GetObjectItemCaseSensitive(j, k);
	}
	return j;
}

static double num(const cJSON *j, const char *path)
{
	const cJSON *v = at(j, path);

	if (!cJSON_IsNumber(v))
		fail_msg("no number at %s", path);
	return v->valuedouble;
}

static const char *text(const cJSON *j, const char *path)
{
	const cJSON *v = at(j, path);

	if (!cJSON_IsString(v))
		fail_msg("no string at %s", path);
	return v->valuestring;
}

static bool has_string(const cJSON *arr, const char *s)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, arr)
	{
		if (cJSON_IsString(v) && !strcmp(v->valuestring, s))
			return true;
	}
	return false;
}

static size_t count(const cJSON *j, const char *path)
{
	const cJSON *v = at(j, path);

	if (!cJSON_IsArray(v))
		fail_msg("no array at %s", path);
	return (size_t)cJSON_GetArraySize(v);
}

/* A finding of that kind in devices.0.findings. */
static bool has_finding(const cJSON *r, const char *kind)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, at(r, "devices.0.findings"))
	{
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(f, "kind");

		if (cJSON_IsString(k) && !strcmp(k->valuestring, kind))
			return true;
	}
	return false;
}

/* Streams of devices.0 of that kind ("non_blocking", ...). */
static size_t streams_of_kind(const cJSON *r, const char *kind)
{
	const cJSON *s;
	size_t n = 0;

	cJSON_ArrayForEach(s, at(r, "devices.0.streams"))
	{
		if (!strcmp(text(s, "kind"), kind))
			n++;
	}
	return n;
}

static double edges(const cJSON *r, const char *kind)
{
	char path[128];

	snprintf(path, sizeof(path), "trace.graph.edges_by_kind.%s", kind);
	return num(r, path);
}

/* waits_summary.KIND, 0 when the kind has no waits. */
static double waits(const cJSON *r, const char *kind)
{
	const cJSON *v = at(r, "devices.0.waits_summary");

	v = cJSON_GetObjectItemCaseSensitive(v, kind);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const cJSON *pipelined_what_if(const cJSON *r)
{
	const cJSON *w;

	cJSON_ArrayForEach(w, at(r, "devices.0.schedule.what_if"))
	{
		if (!strcmp(text(w, "name"), "pipelined_batches"))
			return w;
	}
	fail_msg("no pipelined_batches what-if");
	abort(); /* not reached: fail_msg leaves the test */
}

/* ---- what every report must be ------------------------------------------------ */

static void check_clean(const cJSON *r)
{
	double k = num(r, "devices.0.breakdown.kernel_ns"),
	       c = num(r, "devices.0.breakdown.copy_ns");
	double s = num(r, "devices.0.breakdown.sync_ns"), i = num(r, "devices.0.breakdown.idle_ns");
	const cJSON *w = at(r, "devices.0.window_ns");

	assert_string_equal(text(r, "schema"), "gpuscope.report/1");
	assert_int_equal(count(r, "devices"), 1);
	assert_true(k + c + s + i == num(r, "devices.0.breakdown.total_ns"));
	/* The window's bounds are above 2^53: as doubles they are within 256 ns. */
	assert_true(fabs(num(r, "devices.0.breakdown.total_ns") - (num(w, "1") - num(w, "0"))) <=
		    512);
	assert_true(num(r, "trace.dropped_records") == 0);
	assert_int_equal(count(r, "trace.warnings"), 0);
	assert_true(num(r, "trace.graph.unlinked_waits") == 0);
	assert_true(num(r, "trace.graph.unlinked_wait_calls") == 0);
	assert_true(cJSON_IsTrue(at(r, "trace.graph.stream_kinds_known")));
}

/* ---- what each program promises (kernels/NAME.cu) ------------------------------ */

static void check_serial_stream(const cJSON *r)
{
	const cJSON *m, *w = pipelined_what_if(r);
	size_t resources = 0;

	assert_int_equal(count(r, "devices.0.streams"), 1);
	assert_int_equal(streams_of_kind(r, "non_blocking"), 1);
	/* Exposed copies that a kernel could have hidden: one stream is what
	 * is missing, never pinned memory. */
	assert_true(count(r, "devices.0.missed_overlap") > 0);
	cJSON_ArrayForEach(m, at(r, "devices.0.missed_overlap"))
	{
		const cJSON *miss = at(m, "missing_conditions");

		assert_false(has_string(miss, "pinned_memory"));
		if (has_string(miss, "concurrent_resources"))
			resources++;
	}
	assert_int_equal(resources, count(r, "devices.0.missed_overlap"));
	/* Pipelining the batches saves time, with nothing to change first. */
	assert_true(num(w, "batches") == 8);
	assert_true(num(w, "saving_ns") > 0.25 * num(r, "devices.0.schedule.actual_ns"));
	assert_int_equal(count(w, "preconditions"), 0);
	assert_true(has_finding(r, "pipelining"));
	assert_true(has_finding(r, "exposed_copy"));
}

static void check_pipelined_streams(const cJSON *r)
{
	const cJSON *m, *w = pipelined_what_if(r);

	assert_int_equal(count(r, "devices.0.streams"), 4);
	assert_int_equal(streams_of_kind(r, "non_blocking"), 4);
	/* Already pipelined: near the ideal, little left for the what-if. */
	assert_true(num(r, "devices.0.schedule.efficiency") >= 0.9);
	assert_true(num(w, "saving_ns") < 0.1 * num(r, "devices.0.schedule.actual_ns"));
	assert_true(num(r, "devices.0.overlap.copy_hidden_ns") > 0);
	cJSON_ArrayForEach(m, at(r, "devices.0.missed_overlap"))
	{
		assert_false(has_string(at(m, "missing_conditions"), "pinned_memory"));
	}
	assert_false(has_finding(r, "pipelining"));
}

static void check_pageable_copies(const cJSON *r)
{
	const cJSON *m, *w = pipelined_what_if(r);

	assert_int_equal(streams_of_kind(r, "non_blocking"), 4);
	/* Pageable copies block the host: sync_copy edges, and pinned memory is
	 * what every missed overlap lacks. */
	assert_true(edges(r, "sync_copy") > 0);
	assert_true(count(r, "devices.0.missed_overlap") > 0);
	cJSON_ArrayForEach(m, at(r, "devices.0.missed_overlap"))
	{
		assert_true(has_string(at(m, "missing_conditions"), "pinned_memory"));
	}
	assert_true(has_string(at(w, "preconditions"), "pinned_memory"));
	assert_true(num(w, "saving_ns") > 0);
}

static void check_event_chain(const cJSON *r)
{
	const cJSON *s;

	assert_int_equal(count(r, "devices.0.streams"), 3);
	assert_int_equal(streams_of_kind(r, "non_blocking"), 3);
	/* 16 iterations: produce -> consume and consume -> reduce each, and from
	 * the third on consume -> produce and reduce -> consume (slot reuse). */
	assert_true(edges(r, "event") == 2 * 16 + 2 * 14);
	assert_true(edges(r, "default_stream") == 0);
	assert_true(waits(r, "event") > 0);
	cJSON_ArrayForEach(s, at(r, "waits"))
	{
		assert_string_equal(text(s, "kind"), "event");
	}
	assert_true(num(r, "devices.0.overlap.kernel_concurrency_ns") > 0);
}

static void check_default_stream(const cJSON *r)
{
	assert_int_equal(count(r, "devices.0.streams"), 3);
	assert_int_equal(streams_of_kind(r, "legacy_default"), 1);
	assert_int_equal(streams_of_kind(r, "blocking"), 2);
	/* Each average waits for both blocking streams and both wait for it. */
	assert_true(edges(r, "default_stream") >= 2 * 8 + 2 * 7);
	assert_true(edges(r, "event") == 0);
	assert_true(waits(r, "default_stream") > 0);
	assert_true(edges(r, "sync_copy") > 0);
	assert_true(has_finding(r, "waits"));
}

static void check_host_sync_loop(const cJSON *r)
{
	const cJSON *c;
	bool stream_sync = false;

	assert_int_equal(count(r, "devices.0.streams"), 1);
	/* Each iteration's kernel waits for the previous iteration's sync. */
	assert_true(edges(r, "host_sync") >= 49);
	assert_true(num(r, "devices.0.breakdown.sync_ns") > 0);
	assert_true(num(r, "devices.0.breakdown.idle_ns") > 0);
	assert_true(num(r, "devices.0.idle.host_bound_ns") > 0);
	assert_true(has_finding(r, "sync"));
	cJSON_ArrayForEach(c, at(r, "devices.0.findings"))
	{
		if (!strcmp(text(c, "kind"), "sync") &&
		    strstr(text(c, "text"), "cudaStreamSynchronize"))
			stream_sync = true;
	}
	assert_true(stream_sync);
}

static void check_graph_replay(const cJSON *r)
{
	const cJSON *c;
	double direct_stream = -1, graph_stream = -1;

	assert_int_equal(count(r, "devices.0.streams"), 2);
	cJSON_ArrayForEach(c, at(r, "devices.0.graph_candidates"))
	{
		if (num(c, "length") != 18 || num(c, "repetitions") < 3)
			continue;
		if (cJSON_IsTrue(at(c, "already_graph")))
			graph_stream = num(c, "stream");
		else
			direct_stream = num(c, "stream");
	}
	/* The direct launches are a candidate; the replayed graph is one
	 * already, on the other stream. */
	assert_true(direct_stream >= 0);
	assert_true(graph_stream >= 0);
	assert_true(direct_stream != graph_stream);
	assert_true(has_finding(r, "graph_candidates"));
}

static void check_launch_bound(const cJSON *r)
{
	double idle = num(r, "devices.0.breakdown.idle_ns");
	double host =
		num(r, "devices.0.idle.host_bound_ns") + num(r, "devices.0.idle.launch_latency_ns");

	assert_true(num(r, "devices.0.ops_by_kind.kernel") == 5000);
	assert_string_equal(text(r, "devices.0.breakdown.dominant"), "idle");
	/* The idle time waits for the host's launches. */
	assert_true(host >= 0.9 * idle);
	assert_true(has_finding(r, "idle"));
	assert_true(count(r, "devices.0.graph_candidates") > 0);
	assert_false(cJSON_IsTrue(at(r, "devices.0.graph_candidates.0.already_graph")));
}

static void check_stream_priorities(const cJSON *r)
{
	const cJSON *s;
	size_t low = 0, high = 0;

	cJSON_ArrayForEach(s, at(r, "devices.0.streams"))
	{
		if (strcmp(text(s, "kind"), "non_blocking"))
			continue;
		if (num(s, "priority") == 0)
			low++;
		else if (num(s, "priority") < 0)
			high++;
	}
	assert_int_equal(low, 1);
	assert_int_equal(high, 1);
	/* The high-priority kernels ran inside a low-priority one. */
	assert_true(num(r, "devices.0.overlap.kernel_concurrency_ns") > 0);
	assert_true(edges(r, "event") == 0);
	assert_true(edges(r, "default_stream") == 0);
}

/* ---- the tests ------------------------------------------------------------------- */

struct sample {
	const char *name;
	void (*check)(const cJSON *r);
};

static const struct sample samples[] = {
	{"serial_stream", check_serial_stream},
	{"pipelined_streams", check_pipelined_streams},
	{"pageable_copies", check_pageable_copies},
	{"event_chain", check_event_chain},
	{"default_stream", check_default_stream},
	{"host_sync_loop", check_host_sync_loop},
	{"graph_replay", check_graph_replay},
	{"launch_bound", check_launch_bound},
	{"stream_priorities", check_stream_priorities},
};

static void test_sample(void **state)
{
	const struct sample *s = *state;
	int found = 0;

	for (int d = 0; d < n_dirs; d++) {
		char path[4096];
		FILE *f;
		cJSON *r;

		snprintf(path, sizeof(path), "%s/%s.gscope", dirs[d], s->name);
		f = fopen(path, "rb");
		if (!f)
			continue;
		fclose(f);
		found++;
		print_message("%s\n", path);
		r = analyze(path);
		check_clean(r);
		s->check(r);
		cJSON_Delete(r);
	}
	if (!found)
		fail_msg("no %s.gscope in the sample directories", s->name);
}

int main(int argc, char **argv)
{
	struct CMUnitTest tests[sizeof(samples) / sizeof(samples[0])];

	if (argc < 3 || argc - 2 > MAX_DIRS) {
		fprintf(stderr, "usage: test_samples GPUSCOPE DIR... (at most %d)\n", MAX_DIRS);
		return 2;
	}
	gpuscope = argv[1];
	for (int i = 2; i < argc; i++)
		dirs[n_dirs++] = argv[i];
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
		tests[i] = (struct CMUnitTest){.name = samples[i].name,
					       .test_func = test_sample,
					       .initial_state = (void *)(uintptr_t)&samples[i]};
	return cmocka_run_group_tests_name("samples", tests, NULL, NULL);
}
