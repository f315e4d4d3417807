/* SPDX-License-Identifier: MIT */
/*
 * gs_analyzer: schedules, missed overlap and CUDA Graph candidates end to
 * end, from Kineto JSON fixtures through gs_graph_build; with "shared",
 * the real traces of ../shared/data (exit 77 when it is absent), each
 * device's schedule checked against its graph and the invariants.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include <gpuscope/analyzer.h>
#include <gpuscope/import.h>

#include "sched_build.h"

/* ---- end to end: Kineto JSON -> gs_graph_build -> schedules -------------- */

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long sz;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	sz = ftell(f);
	assert_true(sz >= 0);
	rewind(f);
	buf = malloc((size_t)sz + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)sz, f), (size_t)sz);
	fclose(f);
	buf[sz] = '\0';
	*len = (size_t)sz;
	return buf;
}

static struct gs_trace *load_fixture(const char *name)
{
	char path[1024];
	size_t len;
	char *json;
	struct gs_trace *t = NULL;

	snprintf(path, sizeof(path), "%s/schedule/%s", GS_TEST_DATA, name);
	json = read_file(path, &len);
	assert_int_equal(gs_trace_create(&t), GS_OK);
	assert_int_equal(gs_import_kineto_mem(json, len, name, NULL, gs_trace_borrow_sink(t)),
			 GS_OK);
	assert_int_equal(gs_trace_finish(t), GS_OK);
	free(json);
	return t;
}

static uint32_t op_by_corr(const struct gs_trace *t, uint64_t corr)
{
	size_t n;
	const struct gs_op *ops = gs_trace_ops(t, &n);

	for (size_t i = 0; i < n; i++)
		if (ops[i].correlation == corr)
			return (uint32_t)i;
	fail_msg("no op with correlation %llu", (unsigned long long)corr);
	return GS_NO_INDEX;
}

static void test_kineto_serial_loop(void **state)
{
	struct gs_trace *t = load_fixture("serial_loop.json");
	struct gs_graph *g = NULL;
	struct gs_schedule s;
	struct gs_missed_overlap *m;
	size_t n;

	(void)state;
	assert_int_equal(gs_graph_build(t, &g), GS_OK);
	assert_int_equal(g->edge_count[GS_EDGE_STREAM_ORDER], 5);
	assert_int_equal(gs_schedule_compute(t, g, 0, NULL, &s), GS_OK);
	assert_int_equal(s.actual_ns, US(124));
	assert_int_equal(s.ideal_ns, US(124));
	assert_int_equal(s.dependency_bound_ns, US(124));
	assert_int_equal(s.n_critical, 6);
	assert_int_equal(gs_schedule_bound_by(&s, op_by_corr(t, 1)), GS_BOUND_HOST_LAUNCH);
	assert_int_equal(gs_schedule_bound_by(&s, op_by_corr(t, 4)), GS_BOUND_STREAM_ORDER);
	assert_int_equal(s.pipelined.batches, 2);
	assert_int_equal(s.pipelined.makespan_ns, US(102));
	assert_int_equal(s.pipelined.saving_ns, US(22));
	assert_int_equal(s.pipelined.n_preconditions, 0);
	assert_int_equal(gs_missed_overlap_compute(t, g, &s, NULL, &m, &n), GS_OK);
	assert_int_equal(n, 2);
	assert_int_equal(m[0].op, op_by_corr(t, 4));
	assert_int_equal(m[0].kernel, op_by_corr(t, 2));
	assert_int_equal(m[0].exposed_ns, US(12));
	assert_int_equal(m[0].missing, GS_COND_CONCURRENT_RESOURCES);
	assert_int_equal(m[0].bound_by, GS_BOUND_STREAM_ORDER);
	assert_int_equal(m[0].hideable_ns, US(12));
	assert_int_equal(m[1].op, op_by_corr(t, 3));
	assert_int_equal(m[1].kernel, op_by_corr(t, 5));
	assert_int_equal(m[1].exposed_ns, US(10));
	assert_int_equal(m[1].missing, GS_COND_CONCURRENT_RESOURCES);
	free(m);
	gs_schedule_fini(&s);
	gs_graph_destroy(g);
	gs_trace_destroy(t);
}

/*
 * Pageable memory: the DtoH calls return when their copy is done, so the
 * second batch starts 2 us late (126 us) and is bound by its launch. The
 * graph has sync_copy edges 1->2, 3->4, 4->5; the dependency bound and the
 * ideal keep them (124 us); the what-if assumes pinned memory (102 us).
 */
static void test_kineto_serial_pageable(void **state)
{
	struct gs_trace *t = load_fixture("serial_loop_pageable.json");
	struct gs_graph *g = NULL;
	struct gs_schedule s;
	struct gs_missed_overlap *m;
	size_t n;

	(void)state;
	assert_int_equal(gs_graph_build(t, &g), GS_OK);
	/* The pageable HtoD calls (1 and 4) return before their copies end
	 * (the data is staged): no sync_copy edges from them; the DtoH call 3
	 * waits for its copy: one edge, to the next launch (4). */
	assert_int_equal(g->edge_count[GS_EDGE_SYNC_COPY], 1);
	assert_int_equal(g->n_returned_early, 2);
	assert_int_equal(g->returned_early[0], op_by_corr(t, 1));
	assert_int_equal(g->returned_early[1], op_by_corr(t, 4));
	assert_int_equal(gs_schedule_compute(t, g, 0, NULL, &s), GS_OK);
	assert_int_equal(s.actual_ns, US(126));
	assert_int_equal(s.dependency_bound_ns, US(124));
	assert_int_equal(s.ideal_ns, US(124));
	assert_int_equal(gs_schedule_delay_ns(t, &s, op_by_corr(t, 4)), US(2));
	assert_int_equal(gs_schedule_bound_by(&s, op_by_corr(t, 2)), GS_BOUND_STREAM_ORDER);
	assert_int_equal(gs_schedule_bound_by(&s, op_by_corr(t, 4)), GS_BOUND_HOST_LAUNCH);
	assert_int_equal(gs_schedule_bound_by(&s, op_by_corr(t, 3)), GS_BOUND_STREAM_ORDER);
	assert_int_equal(s.pipelined.makespan_ns, US(102));
	assert_int_equal(s.pipelined.saving_ns, US(24));
	assert_int_equal(s.pipelined.n_preconditions, 1);
	assert_string_equal(s.pipelined.preconditions[0], "pinned_memory");
	assert_int_equal(gs_missed_overlap_compute(t, g, &s, NULL, &m, &n), GS_OK);
	assert_int_equal(n, 2);
	assert_int_equal(m[0].op, op_by_corr(t, 4));
	assert_int_equal(m[0].kernel, op_by_corr(t, 2));
	assert_int_equal(m[0].exposed_ns, US(12));
	assert_int_equal(m[0].missing, GS_COND_PINNED_MEMORY | GS_COND_CONCURRENT_RESOURCES);
	assert_int_equal(m[0].bound_by, GS_BOUND_HOST_LAUNCH);
	assert_int_equal(m[1].op, op_by_corr(t, 3));
	assert_int_equal(m[1].kernel, op_by_corr(t, 5));
	assert_int_equal(m[1].exposed_ns, US(10));
	assert_int_equal(m[1].missing, GS_COND_PINNED_MEMORY | GS_COND_CONCURRENT_RESOURCES);
	free(m);
	gs_schedule_fini(&s);
	gs_graph_destroy(g);
	gs_trace_destroy(t);
}

static void test_kineto_pipelined(void **state)
{
	struct gs_trace *t = load_fixture("pipelined_events.json");
	struct gs_graph *g = NULL;
	struct gs_schedule s;
	struct gs_missed_overlap *m;
	size_t n;

	(void)state;
	assert_int_equal(gs_graph_build(t, &g), GS_OK);
	assert_true(g->edge_count[GS_EDGE_EVENT] >= 4);
	assert_int_equal(gs_schedule_compute(t, g, 0, NULL, &s), GS_OK);
	assert_int_equal(s.actual_ns, US(102));
	assert_int_equal(s.dependency_bound_ns, US(102));
	assert_int_equal(s.ideal_ns, US(102));
	assert_int_equal(gs_schedule_bound_by(&s, op_by_corr(t, 14)), GS_BOUND_EVENT);
	assert_int_equal(gs_schedule_bound_by(&s, op_by_corr(t, 4)), GS_BOUND_EVENT);
	assert_int_equal(gs_schedule_bound_by(&s, op_by_corr(t, 11)), GS_BOUND_STREAM_ORDER);
	assert_int_equal(gs_missed_overlap_compute(t, g, &s, NULL, &m, &n), GS_OK);
	assert_int_equal(n, 0);
	free(m);
	gs_schedule_fini(&s);
	gs_graph_destroy(g);
	gs_trace_destroy(t);
}

static void test_kineto_graph_candidates(void **state)
{
	struct gs_trace *t = load_fixture("repeated_sequence.json");
	struct gs_cudagraph_candidate *c;
	size_t n;

	(void)state;
	assert_int_equal(gs_cudagraph_candidates_compute(t, 0, NULL, &c, &n), GS_OK);
	assert_int_equal(n, 1);
	assert_int_equal(c[0].length, 3);
	assert_int_equal(c[0].repetitions, 3);
	/* Launch gaps of 4 us inside each of three "fwd, act, bwd". */
	assert_int_equal(c[0].exposed_launch_ns, 3 * 2 * US(4));
	assert_false(c[0].already_graph);
	gs_cudagraph_candidates_free(c, n);
	gs_trace_destroy(t);
}

/* ---- real traces ------------------------------------------------------- */

static bool exists(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0;
}

static void run_real(const char *path)
{
	struct gs_trace *t = NULL;
	struct gs_graph *g = NULL;
	uint32_t *dev;
	size_t n_dev, n_ops;
	const struct gs_op *ops;

	assert_int_equal(gs_trace_load(path, NULL, &t, NULL), GS_OK);
	assert_int_equal(gs_graph_build(t, &g), GS_OK);
	assert_int_equal(gs_trace_op_devices(t, &dev, &n_dev), GS_OK);
	ops = gs_trace_ops(t, &n_ops);
	for (size_t d = 0; d < n_dev; d++) {
		struct gs_schedule s;
		struct gs_missed_overlap *m;
		struct gs_cudagraph_candidate *c;
		size_t n, nc;

		assert_int_equal(gs_schedule_compute(t, g, dev[d], NULL, &s), GS_OK);
		assert_true(s.n_scheduled > 0);
		assert_true(s.dependency_bound_ns <= s.ideal_ns);
		assert_true(s.efficiency > 0.0 && s.efficiency <= 1.0);
		/* Every edge into a scheduled op is respected by the ideal. */
		for (size_t i = 0; i < n_ops; i++) {
			if (gs_op_device(t, &ops[i]) != dev[d])
				continue;
			for (size_t e = g->in_first[i]; e < g->in_first[i + 1]; e++) {
				uint32_t f = g->edges[e].from;
				int64_t ready = gs_op_device(t, &ops[f]) == dev[d] ?
							gs_schedule_ideal_start(&s, f) +
								(ops[f].end_ns - ops[f].start_ns) :
							ops[f].end_ns;

				if (s.broken_cycles == 0)
					assert_true(gs_schedule_ideal_start(&s, i) >= ready);
			}
		}
		check_gap_and_invariants(t, g, &s);
		print_message(
			"  %s device %u: %zu ops, actual %lld, bound %lld, ideal %lld "
			"(efficiency %.3f, %llu cycles broken), what-if %lld in %zu batches\n",
			strrchr(path, '/') + 1, dev[d], s.n_scheduled, (long long)s.actual_ns,
			(long long)s.dependency_bound_ns, (long long)s.ideal_ns, s.efficiency,
			(unsigned long long)s.broken_cycles, (long long)s.pipelined.makespan_ns,
			s.pipelined.batches);
		assert_int_equal(gs_missed_overlap_compute(t, g, &s, NULL, &m, &n), GS_OK);
		assert_int_equal(gs_cudagraph_candidates_compute(t, dev[d], NULL, &c, &nc), GS_OK);
		print_message("    %zu missed overlaps, %zu graph candidates\n", n, nc);
		free(m);
		gs_cudagraph_candidates_free(c, nc);
		gs_schedule_fini(&s);
	}
	free(dev);
	gs_graph_destroy(g);
	gs_trace_destroy(t);
}

/* Every Kineto trace of ../shared/data/kineto/<dir>/. */
static void test_real_traces(void **state)
{
	static const char *const dirs[] = {"hta-critical-path", "hta-misc", "tb-plugin",
					   "tracelens"};
	char path[1024];
	size_t runs = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		DIR *d;
		struct dirent *e;

		snprintf(path, sizeof(path), "%s/kineto/%s", GS_SHARED_DATA, dirs[i]);
		d = opendir(path);
		if (!d)
			continue;
		while ((e = readdir(d)) != NULL) {
			size_t len = strlen(e->d_name);

			if (len < 8 || strcmp(e->d_name + len - 8, ".json.gz") != 0)
				continue;
			snprintf(path, sizeof(path), "%s/kineto/%s/%s", GS_SHARED_DATA, dirs[i],
				 e->d_name);
			run_real(path);
			runs++;
		}
		closedir(d);
	}
	/* And the Nsight exports. */
	{
		static const char *const nsys[] = {"a100_cloverleaf.sqlite",
						   "a100_saxpy_mpi_rank0.sqlite"};

		for (size_t i = 0; i < sizeof(nsys) / sizeof(nsys[0]); i++) {
			snprintf(path, sizeof(path), "%s/nsys/pipit/%s", GS_SHARED_DATA, nsys[i]);
			if (exists(path)) {
				run_real(path);
				runs++;
			}
		}
	}
	assert_true(runs > 0);
}

/* Without arguments: the unit tests. With "shared": the real traces of
 * ../shared/data (exit 77 when it is absent). */
int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kineto_serial_loop),
		cmocka_unit_test(test_kineto_serial_pageable),
		cmocka_unit_test(test_kineto_pipelined),
		cmocka_unit_test(test_kineto_graph_candidates),
	};
	const struct CMUnitTest real[] = {
		cmocka_unit_test(test_real_traces),
	};

	if (argc > 1 && strcmp(argv[1], "shared") == 0) {
		if (!exists(GS_SHARED_DATA)) {
			printf("skipped: ../shared/data absent\n");
			return 77;
		}
		return cmocka_run_group_tests(real, NULL, NULL);
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
