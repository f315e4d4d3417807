/* SPDX-License-Identifier: MIT */
/*
 * The operators table over every Kineto trace in ../shared/data/kineto/
 * (recorded by other projects), per device and at both levels, against
 * sums the test makes itself: the rows add up exactly to the GPU time of
 * the device's ops with a known launch call (each op's duration; the
 * window is the device's first op start to last op end), each such op is
 * counted once (kernels + copies of the rows, and the op names under
 * them), the others are the unlinked ones; and at the operator level each
 * row's time is what a brute-force search (every cpu_op of the launching
 * thread over the call's start, the innermost kept) gives its name. Skips
 * (77) when the data is absent.
 */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gpuscope/analyzer.h>
#include <gpuscope/import.h>

/* The innermost cpu_op / NVTX range of thread (pid, tid) open at t, by a
 * scan of all of them (latest start, then earliest end, then the CPU op
 * over an NVTX range, then the later index); -1 when none. */
static long innermost(const struct gs_range *r, size_t nr, int64_t pid, int64_t tid, int64_t t)
{
	long best = -1;

	for (size_t i = 0; i < nr; i++) {
		const struct gs_range *x = &r[i];

		if ((x->kind != GS_RANGE_CPU_OP && x->kind != GS_RANGE_NVTX) || x->pid != pid ||
		    x->tid != tid || x->start_ns > t || x->end_ns <= t)
			continue;
		if (best >= 0) {
			const struct gs_range *b = &r[best];

			if (x->start_ns != b->start_ns ? x->start_ns < b->start_ns :
			    x->end_ns != b->end_ns     ? x->end_ns > b->end_ns :
			    x->kind != b->kind         ? x->kind < b->kind :
							 false)
				continue;
		}
		best = (long)i;
	}
	return best;
}

static void check_device(const struct gs_trace *t, uint32_t dev, unsigned level, bool brute)
{
	size_t n_ops, n_calls, nr, n_launch;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const struct gs_api_call *calls = gs_trace_api_calls(t, &n_calls);
	const struct gs_range *r = gs_trace_ranges(t, &nr);
	const uint32_t *launch = gs_trace_op_launches(t, &n_launch);
	int64_t ws = INT64_MAX, we = INT64_MIN, linked_ns = 0, unlinked_ns = 0, rows_ns = 0;
	int64_t *by_name = NULL, outside_ns = 0;
	uint64_t linked = 0, unlinked = 0, rows_ops = 0, names_ops = 0;
	struct gs_op_index *ix = NULL;
	struct gs_operators o;

	for (size_t i = 0; i < n_ops; i++) {
		if (gs_trace_op_device(t, i) != dev)
			continue;
		if (ops[i].start_ns < ws)
			ws = ops[i].start_ns;
		if (ops[i].end_ns > we)
			we = ops[i].end_ns;
	}
	if (brute) {
		by_name = calloc(gs_trace_string_count(t) + 1, sizeof(*by_name));
		assert_non_null(by_name);
	}
	for (size_t i = 0; i < n_ops; i++) {
		int64_t d = ops[i].end_ns > ops[i].start_ns ? ops[i].end_ns - ops[i].start_ns : 0;
		uint32_t c = launch[i];

		if (gs_trace_op_device(t, i) != dev)
			continue;
		if (c >= n_calls) {
			unlinked++;
			unlinked_ns += d;
			continue;
		}
		linked++;
		linked_ns += d;
		if (brute) {
			long b = innermost(r, nr, calls[c].pid, calls[c].tid, calls[c].start_ns);

			if (b < 0)
				outside_ns += d;
			else
				by_name[r[b].name] += d;
		}
	}
	assert_int_equal(gs_op_index_build(t, level, &ix), GS_OK);
	assert_int_equal(gs_operators_compute(t, ix, dev, ws, we, launch, &o), GS_OK);
	if (!o.ranges) {
		assert_int_equal(o.n_rows, 0);
		goto out;
	}
	assert_int_equal(o.ops, linked);
	assert_int_equal(o.ns, linked_ns);
	assert_int_equal(o.unlinked_ops, unlinked);
	assert_int_equal(o.unlinked_ns, unlinked_ns);
	for (size_t k = 0; k < o.n_rows; k++) {
		const struct gs_operator *p = &o.rows[k];

		rows_ns += p->ns;
		rows_ops += p->kernels + p->copies;
		assert_int_equal(p->ns, p->kernel_ns + p->copy_ns);
		assert_true(p->outside || (p->calls >= 1 && p->calls <= p->total_calls));
		for (size_t j = 0; j < p->n_ops_by_name; j++)
			names_ops += p->ops_by_name[j].count;
		if (k)
			assert_true(o.rows[k - 1].ns >= p->ns);
		if (brute && p->outside)
			assert_int_equal(p->ns, outside_ns);
		else if (brute)
			by_name[p->name] -= p->ns; /* rows of one name, two kinds: summed */
	}
	assert_int_equal(rows_ns, linked_ns);
	assert_int_equal(rows_ops, linked);
	assert_int_equal(names_ops, linked);
	for (size_t s = 0; brute && s <= gs_trace_string_count(t); s++)
		assert_int_equal(by_name[s], 0);
out:
	gs_operators_fini(&o);
	gs_op_index_destroy(ix);
	free(by_name);
}

static void check_trace(void **state)
{
	const char *path = *state;
	struct gs_trace *t = NULL;
	size_t n_ops;
	uint32_t seen[64];
	size_t n_seen = 0;

	gs_error_clear();
	assert_int_equal(gs_trace_load(path, NULL, &t, NULL), GS_OK);
	gs_trace_ops(t, &n_ops);
	for (size_t i = 0; i < n_ops; i++) {
		uint32_t d = gs_trace_op_device(t, i);
		size_t k;

		for (k = 0; k < n_seen && seen[k] != d; k++)
			;
		if (k < n_seen || n_seen == 64)
			continue;
		seen[n_seen++] = d;
		check_device(t, d, GS_OP_LEVEL_OPERATOR, true);
		check_device(t, d, GS_OP_LEVEL_MODULE, false);
	}
	gs_trace_destroy(t);
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
	rc = _cmocka_run_group_tests("operators_shared", tests, g.gl_pathc, NULL, NULL);
	free(tests);
	globfree(&g);
	return rc;
}
