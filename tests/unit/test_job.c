/* SPDX-License-Identifier: MIT */
/*
 * Jobs: every process a rank with a trace of its own, and what must hold of
 * every GPU's section and schedule.
 *
 * The invariants are checked on every trace the tests read (the shared real
 * traces, the samples, the two-process Nsight export, generated jobs and
 * random multi-process traces): a GPU section lists only its own streams
 * (its device, its process), the dependency bound equals the critical path
 * (its durations plus the lead an op outside the schedule gave it), the
 * ideal is at least the dependency bound, no op starts in the ideal
 * schedule before its predecessors end, no edge joins two processes, and
 * the breakdown sums to the window.
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include <dirent.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <gpuscope/analyzer.h>
#include <gpuscope/import.h>

#include "nsys_build.h"
#include "report_model_priv.h"
#include "shift_sink.h"

/* ---- the invariants of one report ---- */

static void check_device(const struct gs_report *r, const struct gs_report_device *d,
			 const char *what)
{
	size_t ns;
	const struct gs_stream *st = gs_trace_streams(r->t, &ns);
	int64_t sum = 0;

	for (size_t i = 0; i < d->n_streams; i++) {
		const struct gs_stream *s = &st[d->streams[i].index];

		if (s->device != d->device || (r->pid >= 0 && s->pid != 0 && s->pid != r->pid))
			fail_msg("%s: rank %u device %u lists stream %llu of device %u pid %lld",
				 what, r->rank, d->device, (unsigned long long)s->stream_id,
				 s->device, (long long)s->pid);
	}
	for (unsigned c = 0; c < GS_CAT_COUNT; c++)
		sum += d->b.total_ns[c];
	if (sum != d->b.window_ns)
		fail_msg("%s: breakdown sums to %lld, window %lld", what, (long long)sum,
			 (long long)d->b.window_ns);
	if (d->inv.violations)
		fail_msg("%s: rank %u device %u: %llu invariant violations (cross-process %llu, "
			 "early %llu, ideal < bound %d, ideal > actual %d, over capacity %d, "
			 "critical %lld vs bound %lld)",
			 what, r->rank, d->device, (unsigned long long)d->inv.violations,
			 (unsigned long long)d->inv.cross_process_edges,
			 (unsigned long long)d->inv.early_starts, d->inv.ideal_below_bound,
			 d->inv.ideal_above_actual, d->inv.over_capacity,
			 (long long)d->inv.critical_path_ns, (long long)d->dependency_bound_ns);
	if (!d->broken_cycles) {
		int64_t crit = d->critical_lead_ns;
		size_t n_ops;
		const struct gs_op *ops = gs_trace_ops(r->t, &n_ops);

		/* The whole path (the report lists --rows of it). */
		for (size_t i = 0; i < d->sched.n_critical; i++)
			crit += gs_schedule_op_ns(&ops[d->sched.critical_path[i]]);
		if (d->sched.n_critical != d->critical_count)
			fail_msg("%s: critical path of %zu ops, %zu counted", what,
				 d->sched.n_critical, d->critical_count);
		if (d->critical_count && crit != d->dependency_bound_ns)
			fail_msg("%s: critical path %lld != dependency bound %lld", what,
				 (long long)crit, (long long)d->dependency_bound_ns);
		if (d->ideal_ns < d->dependency_bound_ns)
			fail_msg("%s: ideal %lld < dependency bound %lld", what,
				 (long long)d->ideal_ns, (long long)d->dependency_bound_ns);
	}
	/* No sync call is attributed more time than the section's sync. */
	for (size_t i = 0; i < d->n_sync_calls; i++)
		if (d->sync_calls[i].ns > d->b.total_ns[GS_CAT_SYNC])
			fail_msg("%s: sync attribution %lld > sync total %lld", what,
				 (long long)d->sync_calls[i].ns,
				 (long long)d->b.total_ns[GS_CAT_SYNC]);
}

static void check_report(const struct gs_report *r, const char *what)
{
	if (r->job) {
		for (size_t i = 0; i < r->n_ranks; i++)
			check_report(r->ranks[i], what);
		return;
	}
	for (size_t k = 0; k < r->n_dev; k++)
		check_device(r, &r->dev[k], what);
}

static struct gs_report *job_report(const struct gs_job *j)
{
	struct gs_report_options o = {0};
	struct gs_report *r = NULL;

	assert_int_equal(gs_report_build_job(j, &o, &r), GS_OK);
	return r;
}

/* Whether any rank of the job has a GPU op. */
static bool job_has_ops(const struct gs_job *j)
{
	size_t n;

	for (size_t i = 0; i < j->n_ranks; i++) {
		gs_trace_ops(j->ranks[i].trace, &n);
		if (n)
			return true;
	}
	return false;
}

/* Load, build, check; the number of GPUs reported. A profile of the host
 * only (the shared cpu_only trace) is refused, saying what to record. */
static size_t check_paths(const char *const *paths, size_t n)
{
	struct gs_report_options o = {0};
	struct gs_job *j = NULL;
	struct gs_report *r = NULL;
	size_t gpus = 0;

	if (gs_job_load(paths, n, NULL, &j, NULL, NULL) != GS_OK)
		fail_msg("%s: cannot load", paths[0]);
	if (!job_has_ops(j)) {
		char chain[2048];

		gs_error_clear();
		assert_int_equal(gs_report_build_job(j, &o, &r), GS_ERR_INVALID);
		assert_null(r);
		gs_error_format(chain, sizeof(chain));
		if (!strstr(chain, "no GPU ops") || !strstr(chain, "ProfilerActivity.CUDA"))
			fail_msg("%s: host-only profile refused with '%s'", paths[0], chain);
		gs_error_clear();
		gs_job_destroy(j);
		return 0;
	}
	r = job_report(j);
	check_report(r, paths[0]);
	for (size_t i = 0; i < r->n_ranks; i++)
		gpus += r->ranks[i]->n_dev;
	gs_report_destroy(r);
	gs_job_destroy(j);
	return gpus;
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a >= b && !strcmp(s + a - b, suf);
}

/* Every trace under `dir` (one level of subdirectories). */
static size_t check_dir(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t count = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[4096];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (has_suffix(path, ".json") || has_suffix(path, ".json.gz") ||
		    has_suffix(path, ".gscope") || has_suffix(path, ".sqlite")) {
			const char *p = path;

			check_paths(&p, 1);
			count++;
		} else if (depth > 0) {
			count += check_dir(path, depth - 1);
		}
	}
	closedir(d);
	return count;
}

static void test_invariants_shared(void **state)
{
	size_t n;

	(void)state;
	n = check_dir(GS_SHARED_DATA, 2);
	if (!n)
		skip();
	print_message("%zu shared traces checked\n", n);
	assert_true(n >= 15);
}

static void test_invariants_samples(void **state)
{
	(void)state;
	assert_true(check_dir(GS_TEST_DATA "/../../samples", 1) >= 9);
}

/* ---- the two-process Nsight export ---- */

static void test_nsys_two_processes(void **state)
{
	const char *path = "test_job_2proc.sqlite";
	struct gs_job *j = NULL;
	struct gs_report *r;

	(void)state;
	assert_int_equal(nsys_build_2proc(path), 0);
	assert_int_equal(gs_job_load(&path, 1, NULL, &j, NULL, NULL), GS_OK);
	assert_int_equal(j->n_ranks, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct gs_job_rank *k = &j->ranks[i];
		int64_t pid = i == 0 ? NSB_PID_A : NSB_PID_B;
		uint32_t dev = i == 0 ? NSB_DEV_A : NSB_DEV_B;
		size_t n;
		const struct gs_stream *st = gs_trace_streams(k->trace, &n);
		const struct gs_sync *y;
		const struct gs_api_call *c;

		assert_int_equal(k->rank, i);
		assert_int_equal(k->pid, pid);
		assert_int_equal(n, 2);
		for (size_t s = 0; s < n; s++) {
			assert_int_equal(st[s].pid, pid);
			assert_int_equal(st[s].device, dev);
		}
		y = gs_trace_syncs(k->trace, &n);
		assert_int_equal(n, 3);
		for (size_t s = 0; s < n; s++) {
			assert_int_equal(y[s].pid, pid);
			assert_int_equal(y[s].device, dev);
		}
		c = gs_trace_api_calls(k->trace, &n);
		assert_int_equal(n, 9);
		for (size_t s = 0; s < n; s++)
			assert_int_equal(c[s].pid, pid);
		gs_trace_ops(k->trace, &n);
		assert_int_equal(n, 5);
	}
	r = job_report(j);
	assert_int_equal(r->n_ranks, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct gs_report *c = r->ranks[i];

		assert_int_equal(c->n_dev, 1);
		assert_int_equal(c->dev[0].device, i == 0 ? NSB_DEV_A : NSB_DEV_B);
		assert_int_equal(c->dev[0].n_streams, 2);
		assert_int_equal(c->dev[0].ops, 5);
		/* The same calls 7 ns later: the same schedule. */
		assert_int_equal(c->dev[0].dependency_bound_ns,
				 r->ranks[0]->dev[0].dependency_bound_ns);
		assert_int_equal(c->dev[0].b.total_ns[GS_CAT_SYNC],
				 r->ranks[0]->dev[0].b.total_ns[GS_CAT_SYNC]);
	}
	check_report(r, path);
	gs_report_destroy(r);
	gs_job_destroy(j);
	remove(path);
}

/* diff of two jobs matches GPUs by (rank, device). */
static void test_diff_jobs(void **state)
{
	const char *path = "test_job_diff.sqlite";
	struct gs_job *a = NULL, *b = NULL;
	struct gs_diff *d = NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(nsys_build_2proc(path), 0);
	assert_int_equal(gs_job_load(&path, 1, NULL, &a, NULL, NULL), GS_OK);
	assert_int_equal(gs_job_load(&path, 1, NULL, &b, NULL, NULL), GS_OK);
	assert_int_equal(gs_diff_build_job(a, b, NULL, &d), GS_OK);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(gs_diff_write_text(f, d), GS_OK);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(buf, "rank 0 \u00b7 GPU 0"));
	assert_non_null(strstr(buf, "rank 1 \u00b7 GPU 1"));
	assert_null(strstr(buf, "only in"));
	free(buf);
	gs_diff_destroy(d);
	gs_job_destroy(a);
	gs_job_destroy(b);
	remove(path);
}

/* ---- two copies of one trace as two ranks ---- */

/* `src` replayed into a new finished trace as o says (host, shift, clock). */
static struct gs_trace *copy_with(const struct gs_trace *src, struct shift_opts o)
{
	struct gs_trace *t = shift_copy(src, &o);

	assert_non_null(t);
	return t;
}

/* `src` replayed into a new finished trace on `host`, times shifted. */
static struct gs_trace *copy_as(const struct gs_trace *src, const char *host, int64_t shift)
{
	return copy_with(src, (struct shift_opts){.host = host, .shift_ns = shift});
}

/* Two sections of one GPU say the same (rank and host aside). */
static void same_device(const struct gs_report_device *a, const struct gs_report_device *b)
{
	assert_int_equal(a->device, b->device);
	assert_int_equal(a->ops, b->ops);
	assert_int_equal(a->b.window_ns, b->b.window_ns);
	for (unsigned c = 0; c < GS_CAT_COUNT; c++)
		assert_int_equal(a->b.total_ns[c], b->b.total_ns[c]);
	assert_int_equal(a->b.host_bound_ns, b->b.host_bound_ns);
	assert_int_equal(a->actual_ns, b->actual_ns);
	assert_int_equal(a->dependency_bound_ns, b->dependency_bound_ns);
	assert_int_equal(a->ideal_ns, b->ideal_ns);
	assert_int_equal(a->n_critical, b->n_critical);
	assert_int_equal(a->n_waits, b->n_waits);
	assert_int_equal(a->wait_ns, b->wait_ns);
	assert_int_equal(a->n_missed, b->n_missed);
	assert_int_equal(a->n_cands, b->n_cands);
	assert_int_equal(a->n_streams, b->n_streams);
	assert_int_equal(a->n_findings, b->n_findings);
	for (size_t i = 0; i < a->n_findings; i++)
		assert_string_equal(a->findings[i].text, b->findings[i].text);
}

static void two_copies(const char *path, int64_t shift, uint32_t expect_groups)
{
	struct gs_trace *one = NULL, *copies[2];
	const char *names[2] = {"a", "b"};
	struct gs_report *single = NULL, *r;
	struct gs_job *j = NULL;

	assert_int_equal(gs_trace_load(path, NULL, &one, NULL), GS_OK);
	copies[0] = copy_as(one, "nodeA", 0);
	copies[1] = copy_as(one, "nodeB", shift);
	assert_int_equal(gs_report_build(one, NULL, &single), GS_OK);
	assert_int_equal(gs_job_from_traces(copies, names, 2, &j), GS_OK);
	assert_int_equal(j->n_ranks, 2);
	assert_int_equal(j->n_clock_groups, expect_groups);
	if (expect_groups > 1)
		assert_true(j->n_warnings >= 1 &&
			    strstr(j->warnings[j->n_warnings - 1], "one run"));
	r = job_report(j);
	assert_int_equal(r->n_ranks, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct gs_report *c = r->ranks[i];

		assert_string_equal(c->host, i == 0 ? "nodeA" : "nodeB");
		assert_true(c->in_job);
		assert_int_equal(c->n_dev, single->n_dev);
		for (size_t k = 0; k < c->n_dev; k++) {
			same_device(&c->dev[k], &single->dev[k]);
			assert_int_equal(c->dev[k].b.window_start,
					 single->dev[k].b.window_start + (i ? shift : 0));
		}
	}
	check_report(r, path);
	gs_report_destroy(r);
	gs_report_destroy(single);
	gs_job_destroy(j);
	gs_trace_destroy(one);
}

static void test_two_copies_two_hosts(void **state)
{
	(void)state;
	two_copies(GS_TEST_DATA "/../../samples/synthetic/event_chain.gscope", 0, 1);
	two_copies(GS_TEST_DATA "/../../samples/tiny_pipeline.json", 0, 1);
}

static void test_twenty_days_apart(void **state)
{
	(void)state;
	two_copies(GS_TEST_DATA "/../../samples/synthetic/serial_stream.gscope",
		   20LL * 86400 * 1000000000LL, 2);
}

/*
 * Clock groups by wall time: copies of one trace with the clocks their
 * processes declare (a is on host "nodeA" with clock ca / offset oa and
 * times shifted by sa; b likewise): the groups and domains expected, and
 * the warning's words when there are two groups.
 */
struct clock_case {
	const char *host_a, *host_b;
	uint8_t ca, cb;
	int64_t oa, ob, sa, sb;
	uint32_t groups, domains;
	const char *warning;
};

static void clock_case(const struct gs_trace *one, const struct clock_case *c)
{
	struct gs_trace *copies[2];
	const char *names[2] = {"a.sqlite", "b.sqlite"};
	struct gs_job *j = NULL;

	copies[0] = copy_with(one, (struct shift_opts){.host = c->host_a,
						       .shift_ns = c->sa,
						       .set_clock = true,
						       .clock = c->ca,
						       .offset_ns = c->oa,
						       .set_rank = true,
						       .rank = 0});
	copies[1] = copy_with(one, (struct shift_opts){.host = c->host_b,
						       .shift_ns = c->sb,
						       .set_clock = true,
						       .clock = c->cb,
						       .offset_ns = c->ob,
						       .set_rank = true,
						       .rank = 1});
	assert_int_equal(gs_job_from_traces(copies, names, 2, &j), GS_OK);
	assert_int_equal(j->n_ranks, 2);
	assert_int_equal(j->n_clock_groups, c->groups);
	assert_int_equal(j->n_clock_domains, c->domains);
	assert_int_equal(j->ranks[0].clock_group, 0);
	assert_int_equal(j->ranks[1].clock_group, c->groups - 1);
	assert_int_equal(j->ranks[0].clock, c->ca);
	assert_int_equal(j->ranks[1].wall_offset_ns, c->cb ? c->ob : 0);
	if (c->warning) {
		assert_true(j->n_warnings >= 1);
		if (!strstr(j->warnings[j->n_warnings - 1], c->warning))
			fail_msg("warning '%s' lacks '%s'", j->warnings[j->n_warnings - 1],
				 c->warning);
		assert_non_null(strstr(j->warnings[j->n_warnings - 1], "rank 1 (b.sqlite) cannot "
								       "be one run with rank 0"));
	} else {
		for (size_t i = 0; i < j->n_warnings; i++)
			assert_null(strstr(j->warnings[i], "one run"));
	}
	gs_job_destroy(j);
}

static void test_clock_groups(void **state)
{
	const int64_t hour = 3600LL * 1000000000LL;
	const struct clock_case cases[] = {
		/* Two Nsight sessions on one host 80 min apart: the same times
		 * since boot, different session starts. */
		{"nodeA", "nodeA", GS_CLOCK_NSYS_SESSION, GS_CLOCK_NSYS_SESSION, 0, 80 * hour / 60,
		 0, 0, 2, 2, "do not overlap in wall time (1.3 h apart"},
		/* Two hosts booted at different times, one run: times 5 h apart,
		 * wall clocks together. */
		{"nodeA", "nodeB", GS_CLOCK_NSYS_SESSION, GS_CLOCK_NSYS_SESSION, 7 * hour, 2 * hour,
		 0, 5 * hour, 1, 2, NULL},
		/* One host, one run, two exports: one domain. */
		{"nodeA", "nodeA", GS_CLOCK_KINETO_BASE, GS_CLOCK_KINETO_BASE, 10, 10, 0, 0, 1, 1,
		 NULL},
		/* Wall clock known for one only: never one group. */
		{"nodeA", "nodeB", GS_CLOCK_EPOCH, GS_CLOCK_NONE, 0, 0, 0, 0, 2, 2,
		 "cannot be placed on one clock"},
		/* Neither known: within an hour on their own times is one run. */
		{"nodeA", "nodeB", GS_CLOCK_NONE, GS_CLOCK_NONE, 0, 0, 0, hour / 2, 1, 2, NULL},
		{"nodeA", "nodeB", GS_CLOCK_NONE, GS_CLOCK_NONE, 0, 0, 0, 3 * hour, 2, 2,
		 "their times lie"},
		/* Hosts unknown: each rank its own domain. */
		{"", "", GS_CLOCK_EPOCH, GS_CLOCK_EPOCH, 0, 0, 0, 0, 1, 2, NULL},
	};
	struct gs_trace *one = NULL;

	(void)state;
	assert_int_equal(gs_trace_load(GS_TEST_DATA "/../../samples/synthetic/event_chain.gscope",
				       NULL, &one, NULL),
			 GS_OK);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		clock_case(one, &cases[i]);
	gs_trace_destroy(one);
}

/* The ranks of one input share a group and a domain, however their spans
 * lie. */
static void test_one_input_one_clock(void **state)
{
	char path[] = "/tmp/gs_job_nsys_XXXXXX";
	int fd = mkstemp(path);
	const char *paths[1] = {path};
	struct gs_job *j = NULL;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(nsys_build_2proc(path), 0);
	assert_int_equal(gs_job_load(paths, 1, NULL, &j, NULL, NULL), GS_OK);
	assert_int_equal(j->n_ranks, 2);
	assert_int_equal(j->n_clock_groups, 1);
	assert_int_equal(j->n_clock_domains, 1);
	assert_string_equal(j->ranks[0].host_name, "gpunode1");
	assert_false(j->ranks[0].host_from_name);
	gs_job_destroy(j);
	unlink(path);
}

static void test_host_from_name(void **state)
{
	char h[64];

	(void)state;
	assert_true(gs_job_host_from_name("logs/node-7.cluster_4242.1717171717171.pt.trace.json",
					  4242, h, sizeof(h)));
	assert_string_equal(h, "node-7.cluster");
	assert_true(gs_job_host_from_name("a_b_12.99.pt.trace.json.gz", -1, h, sizeof(h)));
	assert_string_equal(h, "a_b");
	/* Another pid, not the pattern, no host, no digits. */
	assert_false(gs_job_host_from_name("node_4242.1.pt.trace.json", 4243, h, sizeof(h)));
	assert_false(gs_job_host_from_name("node_4242.1.json", 4242, h, sizeof(h)));
	assert_false(gs_job_host_from_name("_4242.1.pt.trace.json", 4242, h, sizeof(h)));
	assert_false(gs_job_host_from_name("node_x.1.pt.trace.json", -1, h, sizeof(h)));
	assert_false(gs_job_host_from_name("node_1.x.pt.trace.json", -1, h, sizeof(h)));
	assert_false(gs_job_host_from_name("node_1.pt.trace.json", -1, h, sizeof(h)));
	/* Too long for the buffer. */
	assert_false(
		gs_job_host_from_name("averyveryverylonghostname_1.2.pt.trace.json", -1, h, 8));
}

/* The same file twice, no host known: two ranks, never merged. */
static void test_same_file_twice(void **state)
{
	const char *p = GS_TEST_DATA "/../../samples/tiny_pipeline.json";
	const char *paths[2] = {p, p};
	struct gs_job *j = NULL;

	(void)state;
	assert_int_equal(gs_job_load(paths, 2, NULL, &j, NULL, NULL), GS_OK);
	assert_int_equal(j->n_ranks, 2);
	assert_int_equal(j->ranks[0].rank, 0);
	assert_int_equal(j->ranks[1].rank, 1);
	assert_int_equal(j->ranks[1].input, 1);
	gs_job_destroy(j);
	assert_int_equal(check_paths(paths, 2), 2);
}

/* ---- one process in two inputs: what both hold is kept once ---- */

/* A sink passing the records of a trace that start in [lo, hi) (those
 * without a time of their own: all, but a collective only with an op of
 * it, as a profiler writes them), the process on host `host`. */
struct part_sink {
	struct gs_sink sink;
	struct gs_sink *next;
	const char *host;
	int64_t lo, hi;
	struct gs_collective held[64];
	uint32_t passed[64]; /* 1 + its index in the part, once passed */
	size_t n_held;
};

#define PART(s) ((struct part_sink *)(s))
#define IN_PART(s, t) ((t) >= PART(s)->lo && (t) < PART(s)->hi)

static gs_status ps_intern(struct gs_sink *s, const char *str, size_t len, uint32_t *id)
{
	return PART(s)->next->intern(PART(s)->next, str, len, id);
}

static gs_status ps_stream(struct gs_sink *s, const struct gs_stream *st, uint32_t *i)
{
	return PART(s)->next->stream(PART(s)->next, st, i);
}

static gs_status ps_process(struct gs_sink *s, const struct gs_process *p)
{
	struct gs_process q = *p;

	if (PART(s)->next->intern(PART(s)->next, PART(s)->host, strlen(PART(s)->host),
				  &q.host_name))
		return GS_ERR_NOMEM;
	return PART(s)->next->process(PART(s)->next, &q);
}

static gs_status ps_device(struct gs_sink *s, const struct gs_device *d)
{
	return PART(s)->next->device(PART(s)->next, d);
}

static gs_status ps_op(struct gs_sink *s, const struct gs_op *o, const struct gs_launch_cfg *lc)
{
	struct part_sink *p = PART(s);
	struct gs_op x = *o;

	if (!IN_PART(s, o->start_ns))
		return GS_OK;
	if (x.collective) {
		uint32_t *at = &p->passed[x.collective - 1], idx = 0;

		if (!*at) {
			gs_status rc =
				p->next->collective(p->next, &p->held[x.collective - 1], &idx);

			if (rc)
				return rc;
			*at = idx + 1;
		}
		x.collective = *at;
	}
	return p->next->op(p->next, &x, lc);
}

static gs_status ps_collective(struct gs_sink *s, const struct gs_collective *c, uint32_t *i)
{
	struct part_sink *p = PART(s);

	assert_true(p->n_held < sizeof(p->held) / sizeof(p->held[0]));
	p->held[p->n_held] = *c;
	*i = (uint32_t)p->n_held++;
	return GS_OK;
}

static gs_status ps_api_call(struct gs_sink *s, const struct gs_api_call *c)
{
	return IN_PART(s, c->start_ns) ? PART(s)->next->api_call(PART(s)->next, c) : GS_OK;
}

static gs_status ps_sync(struct gs_sink *s, const struct gs_sync *y)
{
	return IN_PART(s, y->start_ns) ? PART(s)->next->sync(PART(s)->next, y) : GS_OK;
}

static gs_status ps_event_record(struct gs_sink *s, const struct gs_event_record *e)
{
	return IN_PART(s, e->time_ns) ? PART(s)->next->event_record(PART(s)->next, e) : GS_OK;
}

static gs_status ps_allocation(struct gs_sink *s, const struct gs_allocation *a, uint32_t *i)
{
	return PART(s)->next->allocation(PART(s)->next, a, i);
}

static gs_status ps_op_alloc(struct gs_sink *s, const struct gs_op_alloc *l)
{
	return PART(s)->next->op_alloc(PART(s)->next, l);
}

static gs_status ps_range(struct gs_sink *s, const struct gs_range *r)
{
	return IN_PART(s, r->start_ns) ? PART(s)->next->range(PART(s)->next, r) : GS_OK;
}

static gs_status ps_overhead(struct gs_sink *s, const struct gs_overhead *o)
{
	return PART(s)->next->overhead(PART(s)->next, o);
}

static gs_status ps_clock_pair(struct gs_sink *s, const struct gs_clock_pair *c)
{
	return PART(s)->next->clock_pair(PART(s)->next, c);
}

static gs_status ps_dropped(struct gs_sink *s, int64_t pid, uint64_t n)
{
	return PART(s)->next->dropped(PART(s)->next, pid, n);
}

static gs_status ps_warning(struct gs_sink *s, const char *m, uint64_t n, unsigned kind)
{
	return PART(s)->next->warning(PART(s)->next, m, n, kind);
}

/* The part of `src` in [lo, hi) as a finished trace on host `host`. */
static struct gs_trace *part_of(const struct gs_trace *src, const char *host, int64_t lo,
				int64_t hi)
{
	struct gs_trace *t = NULL;
	struct part_sink p = {
		.sink = {.intern = ps_intern,
			 .stream = ps_stream,
			 .process = ps_process,
			 .device = ps_device,
			 .op = ps_op,
			 .collective = ps_collective,
			 .api_call = ps_api_call,
			 .sync = ps_sync,
			 .event_record = ps_event_record,
			 .allocation = ps_allocation,
			 .op_alloc = ps_op_alloc,
			 .range = ps_range,
			 .overhead = ps_overhead,
			 .clock_pair = ps_clock_pair,
			 .dropped = ps_dropped,
			 .warning = ps_warning},
		.host = host,
		.lo = lo,
		.hi = hi,
	};

	assert_int_equal(gs_trace_create(&t), GS_OK);
	p.next = gs_trace_borrow_sink(t);
	assert_int_equal(gs_trace_replay(src, &p.sink), GS_OK);
	assert_int_equal(gs_trace_finish(t), GS_OK);
	return t;
}

/* The JSON report of one trace, in memory. */
static char *trace_json(const struct gs_trace *t, size_t *len)
{
	struct gs_report *r = NULL;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	assert_non_null(f);
	assert_int_equal(gs_report_build(t, NULL, &r), GS_OK);
	assert_int_equal(gs_report_write_json(f, r, &(struct gs_report_style){.top = 5}), GS_OK);
	assert_int_equal(fclose(f), 0);
	gs_report_destroy(r);
	return buf;
}

/* Record counts of every kind. */
static void counts(const struct gs_trace *t, size_t c[10])
{
	gs_trace_ops(t, &c[0]);
	gs_trace_api_calls(t, &c[1]);
	gs_trace_syncs(t, &c[2]);
	gs_trace_event_records(t, &c[3]);
	gs_trace_ranges(t, &c[4]);
	gs_trace_collectives(t, &c[5]);
	gs_trace_allocations(t, &c[6]);
	gs_trace_op_allocs(t, &c[7]);
	gs_trace_overheads(t, &c[8]);
	gs_trace_clock_pairs(t, &c[9]);
}

/*
 * A trace cut in two overlapping inputs of one process (the first up to
 * `end` ns after its first op starts, the second from `start`): one rank,
 * every record once, the very report of the whole trace.
 */
static void split_at(const char *path, int64_t end, int64_t start)
{
	struct gs_trace *one = NULL, *whole, *parts[2];
	const char *names[2] = {"first.json", "second.json"};
	size_t cw[10], cm[10], c0[10], c1[10], lw, lm;
	struct gs_job *j = NULL;
	int64_t first, last;
	char *jw, *jm;
	bool said = false;

	assert_int_equal(gs_trace_load(path, NULL, &one, NULL), GS_OK);
	gs_trace_op_span(one, &first, &last);
	whole = part_of(one, "nodeA", INT64_MIN, INT64_MAX);
	parts[0] = part_of(one, "nodeA", INT64_MIN, first + end);
	parts[1] = part_of(one, "nodeA", first + start, INT64_MAX);
	counts(whole, cw);
	counts(parts[0], c0);
	counts(parts[1], c1);
	/* A part lacks ops, and they share some: merging them whole would
	 * double those. */
	if (!((c0[0] < cw[0] || c1[0] < cw[0]) && c0[0] + c1[0] > cw[0]))
		fail_msg("%s: parts of %zu and %zu ops of %zu", path, c0[0], c1[0], cw[0]);

	assert_int_equal(gs_job_from_traces(parts, names, 2, &j), GS_OK);
	assert_int_equal(j->n_ranks, 1);
	for (size_t i = 0; i < j->n_warnings; i++)
		if (strstr(j->warnings[i], "first.json and second.json hold ") &&
		    strstr(j->warnings[i], " identical records (one process recorded in both): "
					   "each kept once"))
			said = true;
	assert_true(said);
	counts(j->ranks[0].trace, cm);
	for (size_t k = 0; k < 10; k++)
		assert_int_equal(cm[k], cw[k]);
	jw = trace_json(whole, &lw);
	jm = trace_json(j->ranks[0].trace, &lm);
	assert_int_equal(lw, lm);
	assert_memory_equal(jw, jm, lw);
	free(jw);
	free(jm);
	gs_job_destroy(j);
	gs_trace_destroy(whole);
	gs_trace_destroy(one);
}

/* Cut at a quarter and three quarters of the op span. */
static void split_in_two(const char *path)
{
	struct gs_trace *t = NULL;
	int64_t first, last;

	assert_int_equal(gs_trace_load(path, NULL, &t, NULL), GS_OK);
	gs_trace_op_span(t, &first, &last);
	gs_trace_destroy(t);
	split_at(path, (last - first) * 3 / 4, (last - first) / 4);
}

/*
 * The same trace cut in three overlapping inputs of one process (halves
 * and the middle half): merged at once, finished once, it is still the
 * whole trace, every record once, with a warning for each input after
 * the first that held records already kept.
 */
static void split_in_three(const char *path)
{
	struct gs_trace *one = NULL, *whole, *parts[3];
	const char *names[3] = {"a.json", "b.json", "c.json"};
	size_t cw[10], cm[10], lw, lm, said = 0;
	struct gs_job *j = NULL;
	int64_t first, last, q;
	char *jw, *jm;

	assert_int_equal(gs_trace_load(path, NULL, &one, NULL), GS_OK);
	gs_trace_op_span(one, &first, &last);
	q = (last - first) / 4;
	whole = part_of(one, "nodeA", INT64_MIN, INT64_MAX);
	parts[0] = part_of(one, "nodeA", INT64_MIN, first + 2 * q);
	parts[1] = part_of(one, "nodeA", first + q, first + 3 * q);
	parts[2] = part_of(one, "nodeA", first + 2 * q, INT64_MAX);
	counts(whole, cw);
	assert_int_equal(gs_job_from_traces(parts, names, 3, &j), GS_OK);
	assert_int_equal(j->n_ranks, 1);
	for (size_t i = 0; i < j->n_warnings; i++)
		if (strstr(j->warnings[i], " identical records (one process recorded in both)"))
			said++;
	assert_true(said >= 1 && said <= 2);
	counts(j->ranks[0].trace, cm);
	for (size_t k = 0; k < 10; k++)
		assert_int_equal(cm[k], cw[k]);
	jw = trace_json(whole, &lw);
	jm = trace_json(j->ranks[0].trace, &lm);
	assert_int_equal(lw, lm);
	assert_memory_equal(jw, jm, lw);
	free(jw);
	free(jm);
	gs_job_destroy(j);
	gs_trace_destroy(whole);
	gs_trace_destroy(one);
}

static void test_merge_keeps_once(void **state)
{
	(void)state;
	split_in_two(GS_TEST_DATA "/../../samples/tiny_pipeline.json");
	split_in_two(GS_TEST_DATA "/../../samples/synthetic/event_chain.gscope");
	split_in_two(GS_TEST_DATA "/../../samples/synthetic/host_sync_loop.gscope");
	split_in_two(GS_TEST_DATA "/../../samples/synthetic/graph_replay.gscope");
	split_in_two(GS_TEST_DATA "/../../samples/synthetic/pageable_copies.gscope");
	/* The all-reduce in both parts, the all-gather in the second only:
	 * each collective once. */
	split_at(GS_TEST_DATA "/../cli/data/nccl_rank.json", 1000, -10000);
	split_in_three(GS_TEST_DATA "/../../samples/tiny_pipeline.json");
	split_in_three(GS_TEST_DATA "/../../samples/synthetic/host_sync_loop.gscope");
	split_in_three(GS_TEST_DATA "/../../samples/synthetic/graph_replay.gscope");
}

#define MK_KERNEL(name, ts, corr)                                                                  \
	"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" name "\", \"pid\": 0, "                \
	"\"tid\": 7, \"ts\": " #ts ", \"dur\": 5, \"args\": {\"device\": 0, \"context\": 1, "      \
	"\"stream\": 7, \"correlation\": " #corr "}}"
#define MK_CALL(ts, corr)                                                                          \
	"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "              \
	"\"pid\": 100, \"tid\": 100, \"ts\": " #ts                                                 \
	", \"dur\": 2, \"args\": {\"correlation\": " #corr "}}"
#define MK_HEAD "{\"host_name\": \"h\", \"traceEvents\": [\n"

static struct gs_trace *kineto(const char *json)
{
	struct gs_trace *t = NULL;

	assert_int_equal(gs_trace_create(&t), GS_OK);
	assert_int_equal(gs_import_kineto_mem(json, strlen(json), "mk.json", NULL,
					      gs_trace_borrow_sink(t)),
			 GS_OK);
	assert_int_equal(gs_trace_finish(t), GS_OK);
	return t;
}

/* The ops of the one rank of inputs a and b (one process), by name. */
static void merged_ops(const char *a, const char *b, size_t want_k, size_t want_l)
{
	struct gs_trace *t[2] = {kineto(a), kineto(b)};
	const char *names[2] = {"a", "b"};
	struct gs_job *j = NULL;
	size_t n, k = 0, l = 0;
	const struct gs_op *ops;

	assert_int_equal(gs_job_from_traces(t, names, 2, &j), GS_OK);
	assert_int_equal(j->n_ranks, 1);
	ops = gs_trace_ops(j->ranks[0].trace, &n);
	for (size_t i = 0; i < n; i++) {
		const char *name = gs_trace_string(j->ranks[0].trace, ops[i].name);

		k += !strcmp(name, "k");
		l += !strcmp(name, "l");
	}
	assert_int_equal(k, want_k);
	assert_int_equal(l, want_l);
	gs_job_destroy(j);
}

/* Each record of one input stands for one identical record of the other:
 * a record an input holds twice is kept twice; records that differ in one
 * field (the end, the correlation id, the name) are all kept. */
static void test_merge_counts(void **state)
{
	(void)state;
	merged_ops(MK_HEAD MK_CALL(8, 1) "," MK_KERNEL("k", 10, 1) "," MK_KERNEL("k", 10, 1) "]}",
		   MK_HEAD MK_CALL(8, 1) "," MK_KERNEL("k", 10, 1) "," MK_KERNEL("l", 20, 2) "]}",
		   2, 1);
	merged_ops(MK_HEAD MK_CALL(8, 1) "," MK_KERNEL("k", 10, 1) "]}",
		   MK_HEAD MK_CALL(8, 1) "," MK_KERNEL("k", 10, 1) "," MK_KERNEL("k", 10, 1) "]}",
		   2, 0);
	merged_ops(MK_HEAD MK_CALL(8, 1) "," MK_KERNEL("k", 10, 1) "," MK_KERNEL("l", 20, 2) "]}",
		   MK_HEAD MK_CALL(8, 1) "," MK_KERNEL("k", 10, 3) "," MK_KERNEL(
			   "k", 11, 1) "," MK_KERNEL("l", 20, 2) "," MK_KERNEL("kk", 10, 1) "]}",
		   3, 1);
}

/* ---- random multi-process traces ---- */

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(uint64_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return n ? rng_state % n : 0;
}

/*
 * P processes in one trace (as one Nsight export holds them), each with
 * its own streams on devices 0..1, ops with the same correlation ids in
 * every process, launches, event records, stream waits and syncs whose
 * event and sync ids also coincide across processes.
 */
static struct gs_trace *random_processes(size_t procs)
{
	struct gs_trace *t = NULL;
	struct gs_sink *s;
	uint32_t kname, lname, sname;

	assert_int_equal(gs_trace_create(&t), GS_OK);
	s = gs_trace_borrow_sink(t);
	assert_int_equal(s->intern(s, "k", 1, &kname), GS_OK);
	assert_int_equal(s->intern(s, "cudaLaunchKernel", 16, &lname), GS_OK);
	assert_int_equal(s->intern(s, "cudaStreamSynchronize", 21, &sname), GS_OK);
	for (size_t p = 0; p < procs; p++) {
		int64_t pid = 100 + (int64_t)p, host = 1000000 + (int64_t)rnd(1000);
		uint32_t idx[3];
		uint64_t corr = 1;
		struct gs_process pr = {.pid = pid,
					.host_name = GS_NO_STRING,
					.command_line = GS_NO_STRING,
					.driver_version = GS_NO_STRING,
					.runtime_version = GS_NO_STRING,
					.cupti_version = GS_NO_STRING};

		assert_int_equal(s->process(s, &pr), GS_OK);
		for (uint32_t k = 0; k < 3; k++) {
			struct gs_stream st = {.pid = pid,
					       .device = (uint32_t)(p % 2),
					       .context = 1,
					       .stream_id = 13 + k,
					       .kind = GS_STREAM_NON_BLOCKING};
			assert_int_equal(s->stream(s, &st, &idx[k]), GS_OK);
		}
		for (int i = 0; i < 40; i++, corr++) {
			uint32_t k = (uint32_t)rnd(3);
			int64_t ls = host, le = ls + 2000 + (int64_t)rnd(3000);
			int64_t os = le + (int64_t)rnd(20000), oe = os + 1000 + (int64_t)rnd(50000);
			struct gs_api_call c = {.start_ns = ls,
						.end_ns = le,
						.pid = pid,
						.tid = pid,
						.correlation = corr,
						.name = lname};
			struct gs_op op = {.start_ns = os,
					   .end_ns = oe,
					   .correlation = corr,
					   .name = kname,
					   .stream = idx[k],
					   .kind = GS_OP_KERNEL};

			host = le + (int64_t)rnd(4000);
			assert_int_equal(s->api_call(s, &c), GS_OK);
			assert_int_equal(s->op(s, &op, NULL), GS_OK);
			if (rnd(4) == 0) {
				struct gs_event_record e = {.time_ns = le,
							    .correlation = corr + 1000,
							    .event_id = 7,
							    .sync_id = (uint64_t)i + 1,
							    .stream = idx[k]};
				struct gs_sync w = {.start_ns = le + 10,
						    .end_ns = le + 20,
						    .pid = pid,
						    .tid = pid,
						    .correlation = corr + 2000,
						    .event_id = 7,
						    .sync_id = (uint64_t)i + 1,
						    .stream = idx[(k + 1) % 3],
						    .wait_on_stream = GS_NO_INDEX,
						    .device = (uint32_t)(p % 2),
						    .kind = GS_SYNC_STREAM_WAIT};
				assert_int_equal(s->event_record(s, &e), GS_OK);
				assert_int_equal(s->sync(s, &w), GS_OK);
			}
			if (rnd(8) == 0) {
				struct gs_sync y = {.start_ns = host,
						    .end_ns = oe + 500,
						    .pid = pid,
						    .tid = pid,
						    .correlation = corr + 3000,
						    .stream = idx[k],
						    .wait_on_stream = GS_NO_INDEX,
						    .device = (uint32_t)(p % 2),
						    .kind = GS_SYNC_STREAM};
				struct gs_api_call c2 = {.start_ns = host,
							 .end_ns = oe + 500,
							 .pid = pid,
							 .tid = pid,
							 .correlation = corr + 3000,
							 .name = sname};
				assert_int_equal(s->sync(s, &y), GS_OK);
				assert_int_equal(s->api_call(s, &c2), GS_OK);
				host = oe + 600;
			}
		}
	}
	assert_int_equal(gs_trace_finish(t), GS_OK);
	return t;
}

static void test_random_processes(void **state)
{
	(void)state;
	for (int round = 0; round < 60; round++) {
		size_t procs = 2 + (size_t)rnd(5);
		struct gs_trace *t = random_processes(procs);
		const char *name = "random";
		struct gs_job *j = NULL;
		struct gs_report *r;

		assert_int_equal(gs_job_from_traces(&t, &name, 1, &j), GS_OK);
		assert_int_equal(j->n_ranks, procs);
		for (size_t i = 0; i < procs; i++) {
			size_t n;
			const struct gs_stream *st = gs_trace_streams(j->ranks[i].trace, &n);

			assert_int_equal(j->ranks[i].pid, 100 + (int64_t)i);
			assert_int_equal(n, 3);
			for (size_t k = 0; k < n; k++)
				assert_int_equal(st[k].pid, j->ranks[i].pid);
			gs_trace_ops(j->ranks[i].trace, &n);
			assert_int_equal(n, 40);
		}
		r = job_report(j);
		check_report(r, "random processes");
		gs_report_destroy(r);
		gs_job_destroy(j);
	}
}

/* ---- rank numbers ---- */

static struct gs_trace *one_rank(int64_t pid, bool declared, uint32_t rank)
{
	struct gs_trace *t = NULL;
	struct gs_sink *s;
	struct gs_process p = {.pid = pid,
			       .host_name = GS_NO_STRING,
			       .command_line = GS_NO_STRING,
			       .driver_version = GS_NO_STRING,
			       .runtime_version = GS_NO_STRING,
			       .cupti_version = GS_NO_STRING,
			       .has_rank = declared,
			       .rank = rank,
			       .world_size = 8};
	struct gs_stream st = {.pid = 0, .device = 0, .stream_id = 7};
	struct gs_op op = {.start_ns = 1000, .end_ns = 2000, .kind = GS_OP_KERNEL};
	uint32_t idx;

	assert_int_equal(gs_trace_create(&t), GS_OK);
	s = gs_trace_borrow_sink(t);
	assert_int_equal(s->intern(s, "k", 1, &op.name), GS_OK);
	assert_int_equal(s->process(s, &p), GS_OK);
	assert_int_equal(s->stream(s, &st, &idx), GS_OK);
	op.stream = idx;
	assert_int_equal(s->op(s, &op, NULL), GS_OK);
	assert_int_equal(gs_trace_finish(t), GS_OK);
	return t;
}

static void test_rank_numbers(void **state)
{
	const char *names[3] = {"r5", "r2", "r7"};
	struct gs_trace *t[3];
	struct gs_job *j = NULL;

	(void)state;
	/* Declared and distinct: kept, in rank order. */
	t[0] = one_rank(1, true, 5);
	t[1] = one_rank(1, true, 2);
	t[2] = one_rank(1, true, 7);
	assert_int_equal(gs_job_from_traces(t, names, 3, &j), GS_OK);
	assert_int_equal(j->n_ranks, 3);
	assert_int_equal(j->ranks[0].rank, 2);
	assert_int_equal(j->ranks[0].input, 1);
	assert_int_equal(j->ranks[2].rank, 7);
	assert_true(j->ranks[2].rank_declared);
	assert_int_equal(j->n_warnings, 0);
	assert_non_null(gs_job_find_rank(j, 5));
	assert_null(gs_job_find_rank(j, 3));
	gs_job_destroy(j);
	/* Two say rank 2: input order, with a warning naming both. */
	t[0] = one_rank(1, true, 2);
	t[1] = one_rank(1, true, 2);
	t[2] = one_rank(1, false, 0);
	assert_int_equal(gs_job_from_traces(t, names, 3, &j), GS_OK);
	assert_int_equal(j->ranks[0].rank, 0);
	assert_int_equal(j->ranks[1].input, 1);
	assert_int_equal(j->n_warnings, 1);
	assert_non_null(strstr(j->warnings[0], "r5 and r2 both say they are rank 2"));
	gs_job_destroy(j);
}

/* --rank and --device R:N pick; --device N alone must be unambiguous. */
static void test_pick(void **state)
{
	const char *names[2] = {"a", "b"};
	struct gs_trace *t[2];
	struct gs_job *j = NULL;
	struct gs_report_options o = {.has_device = true, .device = 0};
	struct gs_report *r = NULL;

	(void)state;
	t[0] = one_rank(1, true, 0);
	t[1] = one_rank(1, true, 1);
	assert_int_equal(gs_job_from_traces(t, names, 2, &j), GS_OK);
	assert_int_equal(gs_report_build_job(j, &o, &r), GS_ERR_INVALID);
	o.has_rank = true;
	o.rank = 1;
	assert_int_equal(gs_report_build_job(j, &o, &r), GS_OK);
	assert_int_equal(r->n_ranks, 1);
	assert_int_equal(r->ranks[0]->rank, 1);
	gs_report_destroy(r);
	o.rank = 4;
	assert_int_equal(gs_report_build_job(j, &o, &r), GS_ERR_INVALID);
	gs_job_destroy(j);
}

/* The JSON report of a job, in memory. */
static char *job_json(const struct gs_job *j, size_t *len)
{
	struct gs_report *r = job_report(j);
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	assert_non_null(f);
	assert_int_equal(gs_report_write_json(f, r, &(struct gs_report_style){.top = 5}), GS_OK);
	assert_int_equal(fclose(f), 0);
	gs_report_destroy(r);
	return buf;
}

/* The ranks are reported on all CPUs: the same report as on one. */
static void test_same_on_one_cpu(void **state)
{
	struct gs_trace *t = random_processes(7);
	const char *name = "random";
	struct gs_job *j = NULL;
	cpu_set_t all, one;
	char *a, *b;
	size_t la, lb;

	(void)state;
	assert_int_equal(gs_job_from_traces(&t, &name, 1, &j), GS_OK);
	a = job_json(j, &la);
	assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
	CPU_ZERO(&one);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &all)) {
			CPU_SET(c, &one);
			break;
		}
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	b = job_json(j, &lb);
	assert_int_equal(sched_setaffinity(0, sizeof(all), &all), 0);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	assert_non_null(strstr(a, "\"rank\": 6"));
	free(a);
	free(b);
	gs_job_destroy(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nsys_two_processes),
		cmocka_unit_test(test_two_copies_two_hosts),
		cmocka_unit_test(test_twenty_days_apart),
		cmocka_unit_test(test_same_file_twice),
		cmocka_unit_test(test_clock_groups),
		cmocka_unit_test(test_one_input_one_clock),
		cmocka_unit_test(test_host_from_name),
		cmocka_unit_test(test_merge_keeps_once),
		cmocka_unit_test(test_merge_counts),
		cmocka_unit_test(test_random_processes),
		cmocka_unit_test(test_rank_numbers),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_diff_jobs),
		cmocka_unit_test(test_same_on_one_cpu),
		cmocka_unit_test(test_invariants_samples),
		cmocka_unit_test(test_invariants_shared),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
