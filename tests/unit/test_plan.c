/* SPDX-License-Identifier: MIT */
/*
 * gs_plan_*: the stage calculator. Every worked example of docs/design.md through the
 * library, the JSON parser and its errors, copy engines and pageable
 * copies, and random plans checked against a plain fixpoint
 * algorithm and against every edge and resource rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gpuscope/analyzer.h>

#define US(x) ((int64_t)((x)*1000))
#define MAXDEP 6

/* A stage as the tests write it. */
struct st {
	const char *name;
	double us;
	const char *stream;
	const char *deps[MAXDEP];
	uint8_t kind;
	uint8_t memory;
};

struct plan {
	struct gs_plan_stage stages[64];
	struct gs_plan_input in;
	struct gs_plan_result r;
};

static void plan_init(struct plan *p, const struct st *s, size_t n)
{
	size_t i, j;

	memset(p, 0, sizeof(*p));
	assert_true(n <= 64);
	for (i = 0; i < n; i++) {
		p->stages[i].name = s[i].name;
		p->stages[i].stream = s[i].stream;
		p->stages[i].duration_ns = US(s[i].us);
		p->stages[i].kind = s[i].kind;
		p->stages[i].memory = s[i].memory;
		p->stages[i].depends_on = s[i].deps;
		for (j = 0; j < MAXDEP && s[i].deps[j]; j++)
			;
		p->stages[i].n_depends_on = j;
	}
	p->in.stages = p->stages;
	p->in.n_stages = n;
	p->in.engine_mode = GS_PLAN_ENGINES_UNLIMITED;
	p->in.engines_shared = p->in.engines_h2d = p->in.engines_d2h = GS_PLAN_UNLIMITED;
}

static void plan_ok(struct plan *p)
{
	gs_error_clear();
	assert_int_equal(gs_plan_compute(&p->in, &p->r), GS_OK);
}

/* The error line of a failing compute. */
static const char *plan_err(struct plan *p, gs_status want)
{
	static char buf[2048];

	gs_error_clear();
	assert_int_equal(gs_plan_compute(&p->in, &p->r), want);
	gs_error_format(buf, sizeof(buf));
	gs_error_clear();
	return buf;
}

static uint32_t idx(const struct plan *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->in.n_stages; i++)
		if (!strcmp(p->stages[i].name, name))
			return (uint32_t)i;
	fail_msg("no stage %s", name);
	return GS_NO_INDEX;
}

static int64_t start_of(const struct plan *p, const char *name)
{
	return p->r.timing[idx(p, name)].start_ns;
}

static int64_t end_of(const struct plan *p, const char *name)
{
	return p->r.timing[idx(p, name)].end_ns;
}

static void assert_path(const struct plan *p, const char *const *names, size_t n)
{
	size_t i;

	assert_int_equal(p->r.n_critical, n);
	for (i = 0; i < n; i++)
		assert_string_equal(p->stages[p->r.critical_path[i]].name, names[i]);
}

static const struct gs_plan_copy *copy_of(const struct plan *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->r.n_copies; i++)
		if (p->r.copies[i].stage == idx(p, name))
			return &p->r.copies[i];
	fail_msg("no copy %s", name);
	abort(); /* not reached: fail_msg leaves the test */
}

/* ---- the stage model ---------------------------------------------------- */

static const struct st example1[] = {
	{"H2D", 12, "copy", {NULL}, GS_PLAN_KIND_H2D, 0},
	{"Kernel", 40, "compute", {"H2D"}, GS_PLAN_KIND_COMPUTE, 0},
	{"D2H", 10, "copy", {"Kernel"}, GS_PLAN_KIND_D2H, 0},
	{"Post", 8, "host", {"D2H"}, GS_PLAN_KIND_HOST, 0},
};

static void test_example1_chain(void **state)
{
	static const char *const path[] = {"H2D", "Kernel", "D2H", "Post"};
	struct plan p;

	(void)state;
	plan_init(&p, example1, 4);
	plan_ok(&p);
	assert_int_equal(start_of(&p, "Kernel"), US(12));
	assert_int_equal(start_of(&p, "D2H"), US(52));
	assert_int_equal(end_of(&p, "Post"), US(70));
	assert_int_equal(p.r.serial_ns, US(70));
	assert_int_equal(p.r.ideal_ns, US(70));
	assert_int_equal(p.r.saved_ns, 0);
	assert_true(p.r.overlap_ratio == 0.0);
	assert_true(p.r.speedup == 1.0);
	assert_false(p.r.has_overhead);
	assert_int_equal(p.r.n_streams, 3);
	assert_path(&p, path, 4);
	/* The declared edges, plus the stream order H2D -> D2H. */
	assert_int_equal(p.r.n_edges, 4);
	assert_int_equal(p.r.edges[0].from, 0);
	assert_int_equal(p.r.edges[0].to, 1);
	assert_int_equal(p.r.edges[0].kind, GS_PLAN_EDGE_DEPENDS_ON);
	assert_int_equal(p.r.edges[1].from, 0);
	assert_int_equal(p.r.edges[1].to, 2);
	assert_int_equal(p.r.edges[1].kind, GS_PLAN_EDGE_STREAM_ORDER);
	assert_int_equal(p.r.edges[2].from, 1);
	assert_int_equal(p.r.edges[2].to, 2);
	assert_int_equal(p.r.edges[2].kind, GS_PLAN_EDGE_DEPENDS_ON);
	assert_int_equal(p.r.edges[3].from, 2);
	assert_int_equal(p.r.edges[3].to, 3);
	/* What set each start. */
	assert_int_equal(p.r.timing[0].bound_by, GS_PLAN_BOUND_NONE);
	assert_int_equal(p.r.timing[2].bound_by, GS_PLAN_BOUND_DEPENDS_ON);
	assert_int_equal(p.r.timing[2].after, 1);
	/* Breakdown: kernel 40, copy 22, sync 0, idle 8 (Post is host work). */
	assert_int_equal(p.r.breakdown_ns[0], US(40));
	assert_int_equal(p.r.breakdown_ns[1], US(22));
	assert_int_equal(p.r.breakdown_ns[2], 0);
	assert_int_equal(p.r.breakdown_ns[3], US(8));
	assert_int_equal(p.r.dominant, 0);
	/* Both copies wait for / are waited for by the only kernel. */
	assert_int_equal(p.r.n_copies, 2);
	assert_int_equal(p.r.copies[0].missing, GS_COND_INDEPENDENT);
	assert_int_equal(p.r.copies[1].missing, GS_COND_INDEPENDENT);
	assert_int_equal(p.r.copies[0].exposed_ns, US(12));
	gs_plan_result_fini(&p.r);
}

/* The same without kinds: the same times. */
static void test_example1_no_kinds(void **state)
{
	struct st s[4];
	struct plan p;
	size_t i;

	(void)state;
	memcpy(s, example1, sizeof(s));
	for (i = 0; i < 4; i++)
		s[i].kind = GS_PLAN_KIND_OTHER;
	plan_init(&p, s, 4);
	plan_ok(&p);
	assert_int_equal(start_of(&p, "Kernel"), US(12));
	assert_int_equal(start_of(&p, "D2H"), US(52));
	assert_int_equal(end_of(&p, "Post"), US(70));
	assert_int_equal(p.r.serial_ns, p.r.ideal_ns);
	assert_int_equal(p.r.n_copies, 0);
	assert_int_equal(p.r.breakdown_ns[3], US(70));
	gs_plan_result_fini(&p.r);
}

static const struct st example2[] = {
	{"in0", 12, "copy_in", {NULL}, 0, 0},         {"compute0", 40, "compute", {"in0"}, 0, 0},
	{"out0", 10, "copy_out", {"compute0"}, 0, 0}, {"in1", 12, "copy_in", {NULL}, 0, 0},
	{"compute1", 40, "compute", {"in1"}, 0, 0},   {"out1", 10, "copy_out", {"compute1"}, 0, 0},
};

static void test_example2_pipeline(void **state)
{
	static const char *const path[] = {"in0", "compute0", "compute1", "out1"};
	struct plan p;

	(void)state;
	plan_init(&p, example2, 6);
	p.in.has_overhead = true;
	p.in.exposed_overhead_ns = US(3);
	plan_ok(&p);
	assert_int_equal(p.r.serial_ns, US(124));
	assert_int_equal(p.r.ideal_ns, US(102));
	assert_int_equal(p.r.saved_ns, US(22));
	assert_true(p.r.has_overhead);
	assert_int_equal(p.r.elapsed_ns, US(105));
	assert_int_equal(p.r.net_saved_ns, US(19));
	assert_true(p.r.overlap_ratio > 22.0 / 124 - 1e-12 &&
		    p.r.overlap_ratio < 22.0 / 124 + 1e-12);
	/* The timeline of Example 2. */
	assert_int_equal(start_of(&p, "in1"), US(12));
	assert_int_equal(end_of(&p, "in1"), US(24));
	assert_int_equal(start_of(&p, "compute1"), US(52));
	assert_int_equal(start_of(&p, "out0"), US(52));
	assert_int_equal(start_of(&p, "out1"), US(92));
	assert_int_equal(p.r.timing[idx(&p, "compute1")].bound_by, GS_PLAN_BOUND_STREAM_ORDER);
	assert_path(&p, path, 4);
	gs_plan_result_fini(&p.r);

	p.in.exposed_overhead_ns = US(25);
	plan_ok(&p);
	assert_int_equal(p.r.net_saved_ns, US(-3));
	gs_plan_result_fini(&p.r);
}

/* With kinds, a copy engine per direction changes nothing (the streams
 * already serialize each direction); one shared engine neither. */
static void test_example2_engines(void **state)
{
	struct st s[6];
	struct plan p;
	size_t i;

	(void)state;
	memcpy(s, example2, sizeof(s));
	for (i = 0; i < 6; i++)
		s[i].kind = i % 3 == 0 ? GS_PLAN_KIND_H2D :
			    i % 3 == 1 ? GS_PLAN_KIND_COMPUTE :
					 GS_PLAN_KIND_D2H;
	plan_init(&p, s, 6);
	p.in.engine_mode = GS_PLAN_ENGINES_PER_DIRECTION;
	p.in.engines_h2d = p.in.engines_d2h = 1;
	plan_ok(&p);
	assert_int_equal(p.r.ideal_ns, US(102));
	/* in1 and out0 hide under the kernels; in0 and out1 cannot. */
	assert_int_equal(copy_of(&p, "in1")->hidden_ns, US(12));
	assert_int_equal(copy_of(&p, "out0")->hidden_ns, US(10));
	assert_int_equal(copy_of(&p, "in0")->missing, GS_COND_INDEPENDENT);
	assert_int_equal(copy_of(&p, "out1")->missing, GS_COND_INDEPENDENT);
	assert_int_equal(copy_of(&p, "in1")->missing, 0);
	assert_int_equal(p.r.breakdown_ns[0], US(80));
	assert_int_equal(p.r.breakdown_ns[1], US(22));
	gs_plan_result_fini(&p.r);

	p.in.engine_mode = GS_PLAN_ENGINES_SHARED;
	p.in.engines_shared = 1;
	plan_ok(&p);
	assert_int_equal(p.r.ideal_ns, US(102));
	gs_plan_result_fini(&p.r);
}

/* ---- Example 3 (design.md): a copy beside compute ----------------------- */

static void q1(double copy, double compute, double sync, bool independent, struct plan *p)
{
	struct st s[3] = {
		{"copy", copy, "copy", {NULL}, GS_PLAN_KIND_H2D, 0},
		{"compute", compute, "compute", {NULL}, GS_PLAN_KIND_COMPUTE, 0},
		{"sync", sync, "host", {"copy", "compute"}, GS_PLAN_KIND_SYNC, 0},
	};

	if (!independent)
		s[1].deps[0] = "copy";
	plan_init(p, s, 3);
	plan_ok(p);
}

static void test_example3(void **state)
{
	struct plan p;

	(void)state;
	q1(10, 20, 4, true, &p);
	assert_int_equal(p.r.serial_ns, US(34));
	assert_int_equal(p.r.ideal_ns, US(24));
	assert_int_equal(p.r.saved_ns, US(10));
	assert_true(p.r.speedup > 34.0 / 24 - 1e-12 && p.r.speedup < 34.0 / 24 + 1e-12);
	assert_int_equal(start_of(&p, "sync"), US(20));
	gs_plan_result_fini(&p.r);

	q1(10, 20, 4, false, &p);
	assert_int_equal(p.r.serial_ns, US(34));
	assert_int_equal(p.r.ideal_ns, US(34));
	assert_int_equal(p.r.saved_ns, 0);
	gs_plan_result_fini(&p.r);

	q1(0, 20, 4, true, &p);
	assert_true(p.r.speedup == 1.0);
	assert_int_equal(p.r.saved_ns, 0);
	gs_plan_result_fini(&p.r);

	/* Speedup is 1.0 when elapsed is 0. */
	q1(0, 0, 0, true, &p);
	assert_true(p.r.speedup == 1.0);
	assert_true(p.r.overlap_ratio == 0.0);
	assert_int_equal(p.r.dominant, -1);
	gs_plan_result_fini(&p.r);
}

/* ---- Example 4 (design.md): the three overlap conditions ---------------- */

enum {
	Q2_ALL,
	Q2_PAGEABLE,
	Q2_DEPENDENT,
	Q2_NO_ENGINE,
	Q2_NO_H2D_ENGINE
};

static void q2(double copy, double compute, double overhead, int variant, bool compute_first,
	       struct plan *p)
{
	struct st c = {"copy", copy, "copy", {NULL}, GS_PLAN_KIND_H2D, 0};
	struct st k = {"compute", compute, "compute", {NULL}, GS_PLAN_KIND_COMPUTE, 0};
	struct st s[2];

	if (variant == Q2_PAGEABLE)
		c.memory = GS_PLAN_MEM_PAGEABLE;
	if (variant == Q2_DEPENDENT)
		k.deps[0] = "copy";
	s[0] = compute_first ? k : c;
	s[1] = compute_first ? c : k;
	plan_init(p, s, 2);
	p->in.has_overhead = true;
	p->in.exposed_overhead_ns = US(overhead);
	if (variant == Q2_NO_ENGINE) {
		p->in.engine_mode = GS_PLAN_ENGINES_SHARED;
		p->in.engines_shared = 0;
	} else if (variant == Q2_NO_H2D_ENGINE) {
		p->in.engine_mode = GS_PLAN_ENGINES_PER_DIRECTION;
		p->in.engines_h2d = 0;
		p->in.engines_d2h = 1;
	}
	plan_ok(p);
}

static void test_example4(void **state)
{
	static const struct {
		int variant;
		unsigned missing;
	} rows[] = {
		{Q2_PAGEABLE, GS_COND_PINNED_MEMORY},
		{Q2_DEPENDENT, GS_COND_INDEPENDENT},
		{Q2_NO_ENGINE, GS_COND_CONCURRENT_RESOURCES},
		{Q2_NO_H2D_ENGINE, GS_COND_CONCURRENT_RESOURCES},
	};
	struct plan p;
	size_t i;
	int order;

	(void)state;
	for (order = 0; order < 2; order++) {
		/* All conditions: hidden 10, net 9. */
		q2(10, 20, 1, Q2_ALL, order, &p);
		assert_int_equal(p.r.saved_ns, US(10));
		assert_int_equal(p.r.net_saved_ns, US(9));
		assert_int_equal(p.r.copies[0].hidden_ns, US(10));
		assert_int_equal(p.r.copies[0].missing, 0);
		assert_int_equal(p.r.missing, 0);
		gs_plan_result_fini(&p.r);

		/* Any one missing: hidden 0 and that condition listed. */
		for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			if (rows[i].variant == Q2_DEPENDENT && order)
				continue; /* compute depends on a later stage: fine too */
			q2(10, 20, 1, rows[i].variant, order, &p);
			assert_int_equal(p.r.saved_ns, 0);
			assert_int_equal(p.r.ideal_ns, US(30));
			assert_int_equal(p.r.copies[0].hidden_ns, 0);
			assert_int_equal(p.r.copies[0].exposed_ns, US(10));
			assert_int_equal(p.r.copies[0].missing, rows[i].missing);
			assert_int_equal(p.r.missing, rows[i].missing);
			assert_int_equal(p.r.net_saved_ns, US(-1));
			/* What it would hide with pinned memory and an engine. */
			assert_int_equal(p.r.copies[0].hideable_ns,
					 rows[i].variant == Q2_DEPENDENT ? 0 : US(10));
			gs_plan_result_fini(&p.r);
		}
	}

	/* copy 1, compute 3, overhead 3: net -2. */
	q2(1, 3, 3, Q2_ALL, false, &p);
	assert_int_equal(p.r.copies[0].hidden_ns, US(1));
	assert_int_equal(p.r.net_saved_ns, US(-2));
	gs_plan_result_fini(&p.r);

	/* The model: hidden = min(copy, compute); a copy longer than the kernel. */
	q2(30, 20, 0, Q2_ALL, false, &p);
	assert_int_equal(p.r.copies[0].hidden_ns, US(20));
	assert_int_equal(p.r.copies[0].missing, 0);
	gs_plan_result_fini(&p.r);
}

/* Two missing conditions at once: both listed. */
static void test_example4_two_missing(void **state)
{
	struct st s[2] = {
		{"copy", 10, "copy", {NULL}, GS_PLAN_KIND_H2D, GS_PLAN_MEM_PAGEABLE},
		{"compute", 20, "compute", {"copy"}, GS_PLAN_KIND_COMPUTE, 0},
	};
	struct plan p;

	(void)state;
	plan_init(&p, s, 2);
	p.in.engine_mode = GS_PLAN_ENGINES_SHARED;
	p.in.engines_shared = 0;
	plan_ok(&p);
	assert_int_equal(p.r.copies[0].missing, GS_COND_PINNED_MEMORY | GS_COND_INDEPENDENT |
							GS_COND_CONCURRENT_RESOURCES);
	assert_int_equal(p.r.ideal_ns, US(30));
	gs_plan_result_fini(&p.r);
}

/* ---- Example 5 (design.md): the dominant category, serially ------------- */

static void q3(double kernel, double copy, double sync, double idle, struct plan *p)
{
	struct st s[4] = {
		{"kernel", kernel, "s", {NULL}, GS_PLAN_KIND_COMPUTE, 0},
		{"copy", copy, "s", {NULL}, GS_PLAN_KIND_D2H, 0},
		{"sync", sync, "s", {NULL}, GS_PLAN_KIND_SYNC, 0},
		{"idle", idle, "s", {NULL}, GS_PLAN_KIND_HOST, 0},
	};

	plan_init(p, s, 4);
	plan_ok(p);
}

static void test_example5(void **state)
{
	struct plan p;

	(void)state;
	q3(18, 2, 1, 1, &p);
	assert_int_equal(p.r.ideal_ns, US(22));
	assert_int_equal(p.r.breakdown_ns[0], US(18));
	assert_int_equal(p.r.breakdown_ns[1], US(2));
	assert_int_equal(p.r.breakdown_ns[2], US(1));
	assert_int_equal(p.r.breakdown_ns[3], US(1));
	assert_int_equal(p.r.dominant, 0);
	gs_plan_result_fini(&p.r);
	q3(6, 2, 12, 1, &p);
	assert_int_equal(p.r.ideal_ns, US(21));
	assert_int_equal(p.r.dominant, 2);
	gs_plan_result_fini(&p.r);
	q3(5, 14, 2, 1, &p);
	assert_int_equal(p.r.dominant, 1);
	gs_plan_result_fini(&p.r);
	/* Ties go to the first category (kernel, copy, sync, idle). */
	q3(5, 5, 5, 5, &p);
	assert_int_equal(p.r.dominant, 0);
	gs_plan_result_fini(&p.r);
}

/* The breakdown's priorities: a kernel over a copy over a sync. */
static void test_breakdown_priority(void **state)
{
	struct st s[4] = {
		{"k", 10, "a", {NULL}, GS_PLAN_KIND_COMPUTE, 0},
		{"c", 15, "b", {NULL}, GS_PLAN_KIND_H2D, 0},
		{"y", 20, "c", {NULL}, GS_PLAN_KIND_SYNC, 0},
		{"h", 30, "d", {NULL}, GS_PLAN_KIND_HOST, 0},
	};
	struct plan p;

	(void)state;
	plan_init(&p, s, 4);
	plan_ok(&p);
	assert_int_equal(p.r.ideal_ns, US(30));
	assert_int_equal(p.r.breakdown_ns[0], US(10));
	assert_int_equal(p.r.breakdown_ns[1], US(5));
	assert_int_equal(p.r.breakdown_ns[2], US(5));
	assert_int_equal(p.r.breakdown_ns[3], US(10));
	assert_int_equal(p.r.breakdown_ns[0] + p.r.breakdown_ns[1] + p.r.breakdown_ns[2] +
				 p.r.breakdown_ns[3],
			 p.r.ideal_ns);
	assert_int_equal(copy_of(&p, "c")->hidden_ns, US(10));
	assert_int_equal(copy_of(&p, "c")->exposed_ns, US(5));
	gs_plan_result_fini(&p.r);
}

/* ---- Example 6 (design.md): errors ---------------------------------------- */

static void test_errors(void **state)
{
	struct plan p;
	const char *e;

	(void)state;
	{
		const struct st s[] = {{"a", 1, "s", {NULL}, 0, 0}, {"a", 1, "t", {NULL}, 0, 0}};

		plan_init(&p, s, 2);
		e = plan_err(&p, GS_ERR_FORMAT);
		assert_string_equal(e,
				    "stage 'a' (stages[1]): duplicate name (first at stages[0])");
	}
	{
		const struct st s[] = {{"a", 1, "s", {NULL}, 0, 0},
				       {"b", 1, "t", {"a", "zz"}, 0, 0}};

		plan_init(&p, s, 2);
		e = plan_err(&p, GS_ERR_FORMAT);
		assert_string_equal(
			e, "stage 'b' (stages[1]): unknown predecessor 'zz' in depends_on");
	}
	{
		const struct st s[] = {
			{"a", 1, "s", {"c"}, 0, 0},
			{"b", 1, "t", {"a"}, 0, 0},
			{"c", 1, "u", {"b"}, 0, 0},
		};

		plan_init(&p, s, 3);
		e = plan_err(&p, GS_ERR_FORMAT);
		assert_string_equal(e, "stage 'a' (stages[0]): the dependencies form a cycle: "
				       "'a' -> 'b' -> 'c' -> 'a'");
	}
	{
		/* A cycle through stream order: b waits for a (stream s), a for b. */
		const struct st s[] = {
			{"x", 1, "t", {NULL}, 0, 0},
			{"a", 1, "s", {"b"}, 0, 0},
			{"b", 1, "s", {NULL}, 0, 0},
		};

		plan_init(&p, s, 3);
		e = plan_err(&p, GS_ERR_FORMAT);
		assert_string_equal(e, "stage 'a' (stages[1]): the dependencies form a cycle: "
				       "'a' -(stream order)-> 'b' -> 'a'");
	}
	{
		const struct st s[] = {{"self", 1, "s", {"self"}, 0, 0}};

		plan_init(&p, s, 1);
		e = plan_err(&p, GS_ERR_FORMAT);
		assert_string_equal(e, "stage 'self' (stages[0]): the dependencies form a cycle: "
				       "'self' -> 'self'");
	}
	{
		/* Acyclic alone, a cycle through a pageable copy: a waits for
		 * c (written later), c waits for everything after p. */
		const struct st s[] = {
			{"a", 1, "s", {"c"}, 0, 0},
			{"p", 1, "t", {NULL}, GS_PLAN_KIND_H2D, GS_PLAN_MEM_PAGEABLE},
			{"c", 1, "u", {NULL}, 0, 0},
		};

		plan_init(&p, s, 3);
		e = plan_err(&p, GS_ERR_FORMAT);
		assert_string_equal(e, "stage 'a' (stages[0]): the dependencies form a cycle: "
				       "'a' -(pageable copy)-> 'p' -(pageable copy)-> 'c' -> 'a'");
	}
	{
		const struct st s[] = {{"a", -1, "s", {NULL}, 0, 0}};

		plan_init(&p, s, 1);
		e = plan_err(&p, GS_ERR_FORMAT);
		assert_string_equal(e, "stage 'a' (stages[0]): the duration is negative");
	}
	{
		struct st s[] = {{"a", 1, "s", {NULL}, 0, 0}};

		plan_init(&p, s, 1);
		p.stages[0].duration_ns = GS_PLAN_MAX_DURATION_NS + 1;
		e = plan_err(&p, GS_ERR_FORMAT);
		assert_string_equal(e, "stage 'a' (stages[0]): the duration is over 7 days");
	}
	{
		const struct st s[] = {{"a", 1, "s", {NULL}, 0, 0}, {" \t", 1, "s", {NULL}, 0, 0}};

		plan_init(&p, s, 2);
		e = plan_err(&p, GS_ERR_FORMAT);
		assert_string_equal(e, "stages[1]: the name must be a non-empty string");
	}
	{
		const struct st s[] = {{"a", 1, "", {NULL}, 0, 0}};

		plan_init(&p, s, 1);
		e = plan_err(&p, GS_ERR_FORMAT);
		assert_string_equal(e,
				    "stage 'a' (stages[0]): the stream must be a non-empty string");
	}
	{
		const struct st s[] = {{"a", 1, "s", {""}, 0, 0}};

		plan_init(&p, s, 1);
		e = plan_err(&p, GS_ERR_FORMAT);
		assert_string_equal(e, "stage 'a' (stages[0]): depends_on[0] must be a non-empty "
				       "stage name");
	}
	{
		const struct st s[] = {
			{"a", 1, "s", {NULL}, GS_PLAN_KIND_COMPUTE, GS_PLAN_MEM_PAGEABLE}};

		plan_init(&p, s, 1);
		e = plan_err(&p, GS_ERR_FORMAT);
		assert_non_null(strstr(e, "pageable applies to h2d/d2h only"));
	}
	{
		const struct st s[] = {{"a", 1, "s", {NULL}, 0, 0}};

		plan_init(&p, s, 1);
		p.in.has_overhead = true;
		p.in.exposed_overhead_ns = -1;
		e = plan_err(&p, GS_ERR_FORMAT);
		assert_string_equal(e, "exposed_overhead_us must be from 0 to 7 days");
	}
}

/* A long cycle is named by its first stages and its length. */
static void test_error_long_cycle(void **state)
{
	struct gs_plan_stage *s = calloc(20, sizeof(*s));
	const char **dep = calloc(20, sizeof(*dep));
	char(*names)[24] = calloc(20, sizeof(*names));
	struct gs_plan_input in = {0};
	struct gs_plan_result r;
	char buf[2048];
	size_t i;

	(void)state;
	assert_non_null(s);
	assert_non_null(dep);
	assert_non_null(names);
	for (i = 0; i < 20; i++)
		snprintf(names[i], sizeof(names[i]), "s%zu", i);
	for (i = 0; i < 20; i++) {
		s[i].name = names[i];
		s[i].stream = names[i];
		s[i].duration_ns = 1000;
		dep[i] = names[(i + 19) % 20];
		s[i].depends_on = &dep[i];
		s[i].n_depends_on = 1;
	}
	in.stages = s;
	in.n_stages = 20;
	gs_error_clear();
	assert_int_equal(gs_plan_compute(&in, &r), GS_ERR_FORMAT);
	gs_error_format(buf, sizeof(buf));
	gs_error_clear();
	assert_string_equal(buf, "stage 's0' (stages[0]): the dependencies form a cycle: 's0' -> "
				 "'s1' -> 's2' -> 's3' -> 's4' -> 's5' -> 's6' -> 's7' -> 's8' -> "
				 "... (20 stages in all) -> 's0'");
	free(s);
	free(dep);
	free(names);
}

/* The durations' sum must stay in int64 range. */
static void test_error_overflow(void **state)
{
	size_t n = 20000, i;
	struct gs_plan_stage *s = calloc(n, sizeof(*s));
	char(*names)[24] = calloc(n, sizeof(*names));
	struct gs_plan_input in = {0};
	struct gs_plan_result r;
	char buf[1024];

	(void)state;
	assert_non_null(s);
	assert_non_null(names);
	for (i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "s%zu", i);
		s[i].name = names[i];
		s[i].stream = "s";
		s[i].duration_ns = GS_PLAN_MAX_DURATION_NS;
	}
	in.stages = s;
	in.n_stages = n;
	gs_error_clear();
	assert_int_equal(gs_plan_compute(&in, &r), GS_ERR_LIMIT);
	gs_error_format(buf, sizeof(buf));
	gs_error_clear();
	assert_non_null(strstr(buf, "the durations add up to more than 9e18 ns"));
	in.n_stages = GS_PLAN_MAX_STAGES + 1;
	assert_int_equal(gs_plan_compute(&in, &r), GS_ERR_LIMIT);
	gs_error_clear();
	free(s);
	free(names);
}

/* ---- resources ------------------------------------------------------------- */

/* Three independent h2d copies beside one kernel; engines limit them. */
static void test_copy_engines(void **state)
{
	const struct st s[] = {
		{"c0", 10, "a", {NULL}, GS_PLAN_KIND_H2D, 0},
		{"c1", 10, "b", {NULL}, GS_PLAN_KIND_H2D, 0},
		{"d0", 10, "c", {NULL}, GS_PLAN_KIND_D2H, 0},
		{"k", 40, "k", {NULL}, GS_PLAN_KIND_COMPUTE, 0},
	};
	struct plan p;

	(void)state;
	plan_init(&p, s, 4);
	plan_ok(&p);
	assert_int_equal(p.r.ideal_ns, US(40));
	assert_int_equal(start_of(&p, "c1"), 0);
	gs_plan_result_fini(&p.r);

	/* One engine for all: c0 0-10, c1 10-20, d0 20-30. */
	p.in.engine_mode = GS_PLAN_ENGINES_SHARED;
	p.in.engines_shared = 1;
	plan_ok(&p);
	assert_int_equal(start_of(&p, "c1"), US(10));
	assert_int_equal(start_of(&p, "d0"), US(20));
	assert_int_equal(p.r.timing[idx(&p, "d0")].bound_by, GS_PLAN_BOUND_COPY_ENGINE);
	assert_int_equal(p.r.timing[idx(&p, "d0")].after, idx(&p, "c1"));
	assert_int_equal(p.r.ideal_ns, US(40));
	assert_int_equal(copy_of(&p, "d0")->hidden_ns, US(10));
	assert_int_equal(copy_of(&p, "d0")->missing, 0);
	gs_plan_result_fini(&p.r);

	/* One engine per direction: d0 beside c0. */
	p.in.engine_mode = GS_PLAN_ENGINES_PER_DIRECTION;
	p.in.engines_h2d = 1;
	p.in.engines_d2h = 1;
	plan_ok(&p);
	assert_int_equal(start_of(&p, "c1"), US(10));
	assert_int_equal(start_of(&p, "d0"), 0);
	gs_plan_result_fini(&p.r);

	/* Two shared engines: c0, c1 at 0, d0 at 10. */
	p.in.engine_mode = GS_PLAN_ENGINES_SHARED;
	p.in.engines_shared = 2;
	plan_ok(&p);
	assert_int_equal(start_of(&p, "c1"), 0);
	assert_int_equal(start_of(&p, "d0"), US(10));
	gs_plan_result_fini(&p.r);

	/* No engine: each copy runs with the device to itself, in order of
	 * (ready, index): c0 0-10, c1 10-20, d0 20-30, then k 30-70. */
	p.in.engines_shared = 0;
	plan_ok(&p);
	assert_int_equal(start_of(&p, "c1"), US(10));
	assert_int_equal(start_of(&p, "d0"), US(20));
	assert_int_equal(start_of(&p, "k"), US(30));
	assert_int_equal(p.r.timing[idx(&p, "k")].bound_by, GS_PLAN_BOUND_EXCLUSIVE_COPY);
	assert_int_equal(p.r.ideal_ns, US(70));
	assert_int_equal(p.r.saved_ns, 0);
	assert_int_equal(p.r.missing, GS_COND_CONCURRENT_RESOURCES);
	gs_plan_result_fini(&p.r);

	/* No h2d engine only: the d2h copy still overlaps the kernel, but not
	 * the h2d copies. k is ready at 0 after c0: it waits (writer first). */
	p.in.engine_mode = GS_PLAN_ENGINES_PER_DIRECTION;
	p.in.engines_h2d = 0;
	p.in.engines_d2h = GS_PLAN_UNLIMITED;
	plan_ok(&p);
	assert_int_equal(start_of(&p, "c0"), 0);
	assert_int_equal(start_of(&p, "c1"), US(10));
	assert_int_equal(start_of(&p, "d0"), US(20));
	assert_int_equal(start_of(&p, "k"), US(20));
	assert_int_equal(p.r.ideal_ns, US(60));
	assert_int_equal(copy_of(&p, "d0")->missing, 0);
	assert_int_equal(copy_of(&p, "c0")->missing, GS_COND_CONCURRENT_RESOURCES);
	gs_plan_result_fini(&p.r);
}

/* Host stages are not device work: they overlap an exclusive copy. */
static void test_exclusive_host(void **state)
{
	const struct st s[] = {
		{"k", 5, "k", {NULL}, GS_PLAN_KIND_COMPUTE, 0},
		{"c", 10, "c", {NULL}, GS_PLAN_KIND_D2H, 0},
		{"h", 10, "h", {NULL}, GS_PLAN_KIND_HOST, 0},
		{"k2", 5, "k2", {NULL}, GS_PLAN_KIND_COMPUTE, 0},
	};
	struct plan p;

	(void)state;
	plan_init(&p, s, 4);
	p.in.engine_mode = GS_PLAN_ENGINES_SHARED;
	p.in.engines_shared = 0;
	plan_ok(&p);
	/* k (index 0) starts first; c waits for it; k2 waits behind c. */
	assert_int_equal(start_of(&p, "k"), 0);
	assert_int_equal(start_of(&p, "h"), 0);
	assert_int_equal(start_of(&p, "c"), US(5));
	assert_int_equal(p.r.timing[idx(&p, "c")].after, idx(&p, "k"));
	assert_int_equal(start_of(&p, "k2"), US(15));
	assert_int_equal(p.r.ideal_ns, US(20));
	gs_plan_result_fini(&p.r);
}

/* A pageable copy: after everything before it, before everything after. */
static void test_pageable_barrier(void **state)
{
	const struct st s[] = {
		{"k0", 10, "a", {NULL}, GS_PLAN_KIND_COMPUTE, 0},
		{"h0", 3, "h", {NULL}, GS_PLAN_KIND_HOST, 0},
		{"p", 5, "c", {NULL}, GS_PLAN_KIND_H2D, GS_PLAN_MEM_PAGEABLE},
		{"k1", 10, "b", {NULL}, GS_PLAN_KIND_COMPUTE, 0},
		{"q", 2, "d", {NULL}, GS_PLAN_KIND_D2H, GS_PLAN_MEM_PAGEABLE},
		{"k2", 1, "e", {NULL}, GS_PLAN_KIND_COMPUTE, 0},
	};
	struct plan p;
	size_t i, sync = 0;

	(void)state;
	plan_init(&p, s, 6);
	plan_ok(&p);
	assert_int_equal(start_of(&p, "p"), US(10));
	assert_int_equal(p.r.timing[idx(&p, "p")].bound_by, GS_PLAN_BOUND_SYNC_COPY);
	assert_int_equal(p.r.timing[idx(&p, "p")].after, idx(&p, "k0"));
	assert_int_equal(start_of(&p, "k1"), US(15));
	assert_int_equal(start_of(&p, "q"), US(25));
	assert_int_equal(start_of(&p, "k2"), US(27));
	assert_int_equal(p.r.ideal_ns, US(28));
	/* Edges: k0, h0 -> p; p -> k1, q, k2 (p -> k2 via q is q -> k2); k1 -> q. */
	for (i = 0; i < p.r.n_edges; i++)
		if (p.r.edges[i].kind == GS_PLAN_EDGE_SYNC_COPY)
			sync++;
	assert_int_equal(sync, 6); /* k0>p h0>p p>k1 p>q k1>q q>k2 */
	assert_int_equal(copy_of(&p, "p")->missing, GS_COND_PINNED_MEMORY);
	/* Pinned, p would hide under k0: 5 of it. */
	assert_int_equal(copy_of(&p, "p")->hideable_ns, US(5));
	gs_plan_result_fini(&p.r);
}

/* Forward references are fine (the model resolves names, not positions). */
static void test_forward_reference(void **state)
{
	const struct st s[] = {
		{"late", 5, "a", {"early"}, 0, 0},
		{"early", 7, "b", {NULL}, 0, 0},
	};
	struct plan p;

	(void)state;
	plan_init(&p, s, 2);
	plan_ok(&p);
	assert_int_equal(start_of(&p, "late"), US(7));
	assert_int_equal(p.r.ideal_ns, US(12));
	gs_plan_result_fini(&p.r);
}

/* Duplicate predecessors count once; an explicit dep on the stream
 * predecessor is one depends_on edge. */
static void test_duplicate_edges(void **state)
{
	const struct st s[] = {
		{"a", 5, "s", {NULL}, 0, 0},
		{"b", 5, "s", {"a", "a"}, 0, 0},
	};
	struct plan p;

	(void)state;
	plan_init(&p, s, 2);
	plan_ok(&p);
	assert_int_equal(p.r.n_edges, 1);
	assert_int_equal(p.r.edges[0].kind, GS_PLAN_EDGE_DEPENDS_ON);
	gs_plan_result_fini(&p.r);
}

static void test_empty(void **state)
{
	struct gs_plan_input in = {0};
	struct gs_plan_result r;

	(void)state;
	assert_int_equal(gs_plan_compute(&in, &r), GS_OK);
	assert_int_equal(r.serial_ns, 0);
	assert_int_equal(r.ideal_ns, 0);
	assert_true(r.speedup == 1.0);
	assert_int_equal(r.n_critical, 0);
	assert_int_equal(r.dominant, -1);
	gs_plan_result_fini(&r);
}

/* ---- formatting -------------------------------------------------------------- */

static void test_us_format(void **state)
{
	char b[GS_PLAN_US_MAX];

	(void)state;
	assert_string_equal(gs_plan_us(102000, b), "102");
	assert_string_equal(gs_plan_us(12500, b), "12.5");
	assert_string_equal(gs_plan_us(12345, b), "12.345");
	assert_string_equal(gs_plan_us(10, b), "0.01");
	assert_string_equal(gs_plan_us(0, b), "0");
	assert_string_equal(gs_plan_us(-3000, b), "-3");
	assert_string_equal(gs_plan_us(-1500, b), "-1.5");
	assert_string_equal(gs_plan_us(INT64_MIN, b), "-9223372036854775.808");
	assert_string_equal(gs_plan_kind_name(GS_PLAN_KIND_H2D), "h2d");
}

/* ---- parsing ------------------------------------------------------------------ */

static struct gs_plan_input *parse_ok(const char *json)
{
	struct gs_plan_input *in = NULL;

	gs_error_clear();
	assert_int_equal(gs_plan_parse(json, strlen(json), "t.json", &in), GS_OK);
	assert_non_null(in);
	return in;
}

static const char *parse_err(const char *json, size_t len, gs_status want)
{
	static char buf[2048];
	struct gs_plan_input *in = NULL;

	gs_error_clear();
	assert_int_equal(gs_plan_parse(json, len, "t.json", &in), want);
	assert_null(in);
	gs_error_format(buf, sizeof(buf));
	gs_error_clear();
	return buf;
}

#define PERR(json) parse_err(json, strlen(json), GS_ERR_FORMAT)

static void test_parse(void **state)
{
	struct gs_plan_input *in;
	struct gs_plan_result r;

	(void)state;
	in = parse_ok("{\"stages\": ["
		      "{\"name\": \"in0\", \"duration_us\": 12, \"stream\": \"copy_in\", "
		      "\"kind\": \"copy_in\", \"memory\": \"pageable\"},"
		      "{\"name\": \"k\", \"duration_us\": 40.125, \"stream\": \"compute\", "
		      "\"depends_on\": [\"in0\"], \"kind\": \"kernel\", \"comment\": 1},"
		      "{\"name\": \"o\", \"duration_us\": 1e1, \"stream\": \"x\", "
		      "\"depends_on\": null, \"kind\": \"copy_out\"}],"
		      " \"exposed_overhead_us\": 3.5, \"copy_engines\": {\"d2h\": 2},"
		      " \"comment\": \"hi\"}\n\n");
	assert_int_equal(in->n_stages, 3);
	assert_string_equal(in->stages[0].name, "in0");
	assert_int_equal(in->stages[0].kind, GS_PLAN_KIND_H2D);
	assert_int_equal(in->stages[0].memory, GS_PLAN_MEM_PAGEABLE);
	assert_int_equal(in->stages[1].duration_ns, 40125);
	assert_int_equal(in->stages[1].kind, GS_PLAN_KIND_COMPUTE);
	assert_int_equal(in->stages[1].n_depends_on, 1);
	assert_string_equal(in->stages[1].depends_on[0], "in0");
	assert_int_equal(in->stages[2].duration_ns, 10000);
	assert_int_equal(in->stages[2].kind, GS_PLAN_KIND_D2H);
	assert_int_equal(in->stages[2].n_depends_on, 0);
	assert_true(in->has_overhead);
	assert_int_equal(in->exposed_overhead_ns, 3500);
	assert_int_equal(in->engine_mode, GS_PLAN_ENGINES_PER_DIRECTION);
	assert_int_equal(in->engines_h2d, GS_PLAN_UNLIMITED);
	assert_int_equal(in->engines_d2h, 2);
	assert_int_equal(gs_plan_compute(in, &r), GS_OK);
	assert_int_equal(r.serial_ns, 12000 + 40125 + 10000);
	gs_plan_result_fini(&r);
	gs_plan_input_destroy(in);

	in = parse_ok("{\"stages\": [], \"copy_engines\": 0}");
	assert_int_equal(in->n_stages, 0);
	assert_false(in->has_overhead);
	assert_int_equal(in->engine_mode, GS_PLAN_ENGINES_SHARED);
	assert_int_equal(in->engines_shared, 0);
	gs_plan_input_destroy(in);

	/* 12.345 us is 12345 ns exactly despite binary floating point. */
	in = parse_ok("{\"stages\": [{\"name\": \"a\", \"duration_us\": 12.345, "
		      "\"stream\": \"s\"}, {\"name\": \"b\", \"duration_us\": 0.001, "
		      "\"stream\": \"s\"}, {\"name\": \"c\", \"duration_us\": 604800000000, "
		      "\"stream\": \"s\"}]}");
	assert_int_equal(in->stages[0].duration_ns, 12345);
	assert_int_equal(in->stages[1].duration_ns, 1);
	assert_int_equal(in->stages[2].duration_ns, GS_PLAN_MAX_DURATION_NS);
	gs_plan_input_destroy(in);
	gs_plan_input_destroy(NULL);
}

static void test_parse_errors(void **state)
{
	(void)state;
	assert_string_equal(parse_err("", 0, GS_ERR_FORMAT),
			    "t.json: empty file (expected a JSON object with \"stages\")");
	assert_string_equal(PERR("{\"stages\": [}"),
			    "t.json: not JSON: syntax error at line 1, column 13");
	assert_string_equal(PERR("{\"stages\": []}\n\n x"),
			    "t.json: not JSON: more text after the value at line 3, column 2");
	assert_string_equal(PERR("   \n"),
			    "t.json: only white space (expected a JSON object with \"stages\")");
	assert_string_equal(PERR("{\"stages\": [\n  {\"name\": \"a\",, }]}"),
			    "t.json: not JSON: syntax error at line 2, column 17");
	/* JSON has no NaN or Infinity; cJSON refuses them as text. */
	assert_non_null(strstr(PERR("{\"stages\": [{\"name\": \"a\", \"duration_us\": NaN, "
				    "\"stream\": \"s\"}]}"),
			       "not JSON: syntax error"));
	assert_non_null(strstr(PERR("{\"stages\": [{\"name\": \"a\", \"duration_us\": "
				    "Infinity, \"stream\": \"s\"}]}"),
			       "not JSON: syntax error"));
	/* A number too large for a double parses as infinity. */
	assert_string_equal(PERR("{\"stages\": [{\"name\": \"a\", \"duration_us\": 1e999, "
				 "\"stream\": \"s\"}]}"),
			    "t.json: stage 'a' (stages[0]): duration_us is not a finite number");
	assert_string_equal(PERR("{\"stages\": [{\"name\": \"a\", \"duration_us\": -1, "
				 "\"stream\": \"s\"}]}"),
			    "t.json: stage 'a' (stages[0]): duration_us -1 is negative");
	assert_string_equal(PERR("{\"stages\": [{\"name\": \"a\", \"duration_us\": 1e12, "
				 "\"stream\": \"s\"}]}"),
			    "t.json: stage 'a' (stages[0]): duration_us 1e+12 is over 7 days "
			    "(604800000000 us)");
	assert_string_equal(PERR("{\"stages\": [{\"name\": \"a\", \"duration_us\": 0.0005, "
				 "\"stream\": \"s\"}]}"),
			    "t.json: stage 'a' (stages[0]): duration_us 0.0005 is finer "
			    "than 1 ns (at most 3 decimals)");
	assert_string_equal(PERR("{\"stages\": [{\"name\": \"a\", \"duration_us\": \"12\", "
				 "\"stream\": \"s\"}]}"),
			    "t.json: stage 'a' (stages[0]): duration_us must be a number of "
			    "microseconds, not a string");
	assert_string_equal(PERR("{\"stages\": [{\"name\": \"a\", \"stream\": \"s\"}]}"),
			    "t.json: stage 'a' (stages[0]): no \"duration_us\"");
	assert_string_equal(PERR("{\"stages\": [{\"duration_us\": 1, \"stream\": \"s\"}]}"),
			    "t.json: stages[0]: no \"name\"");
	assert_string_equal(PERR("{\"stages\": [{\"name\": 7, \"duration_us\": 1, "
				 "\"stream\": \"s\"}]}"),
			    "t.json: stages[0]: \"name\" must be a string, not a number");
	assert_string_equal(PERR("{\"stages\": [{\"name\": \"a\", \"duration_us\": 1}]}"),
			    "t.json: stage 'a' (stages[0]): no \"stream\"");
	assert_string_equal(PERR("{\"stages\": [{\"name\": \"a\", \"duration_us\": 1, "
				 "\"stream\": [1]}]}"),
			    "t.json: stage 'a' (stages[0]): \"stream\" must be a string, not an "
			    "array");
	assert_string_equal(PERR("{\"stages\": [{\"name\": \"a\", \"duration_us\": 1, "
				 "\"stream\": \"s\", \"depends_on\": \"b\"}]}"),
			    "t.json: stage 'a' (stages[0]): \"depends_on\" must be an array of "
			    "stage names, not a string");
	assert_string_equal(PERR("{\"stages\": [{\"name\": \"a\", \"duration_us\": 1, "
				 "\"stream\": \"s\", \"depends_on\": [\"b\", 2]}]}"),
			    "t.json: stage 'a' (stages[0]): depends_on[1] must be a stage name, "
			    "not a number");
	assert_string_equal(PERR("{\"stages\": [{\"name\": \"a\", \"duration_us\": 1, "
				 "\"stream\": \"s\", \"depend_on\": []}]}"),
			    "t.json: stage 'a' (stages[0]): unknown key 'depend_on' (expected "
			    "name, duration_us, stream, depends_on, kind, memory, comment)");
	assert_string_equal(PERR("{\"stages\": [{\"name\": \"a\", \"duration_us\": 1, "
				 "\"stream\": \"s\", \"stream\": \"t\"}]}"),
			    "t.json: stage 'a' (stages[0]): duplicate key 'stream'");
	assert_string_equal(PERR("{\"stages\": [{\"name\": \"a\", \"duration_us\": 1, "
				 "\"stream\": \"s\", \"kind\": \"gpu\"}]}"),
			    "t.json: stage 'a' (stages[0]): unknown kind 'gpu' (expected h2d or "
			    "copy_in, d2h or copy_out, compute or kernel, sync, host, other)");
	assert_string_equal(PERR("{\"stages\": [{\"name\": \"a\", \"duration_us\": 1, "
				 "\"stream\": \"s\", \"memory\": \"pinned\"}]}"),
			    "t.json: stage 'a' (stages[0]): memory applies to h2d/d2h copies "
			    "only (kind is other)");
	assert_string_equal(PERR("{\"stages\": [{\"name\": \"a\", \"duration_us\": 1, "
				 "\"stream\": \"s\", \"kind\": \"h2d\", \"memory\": \"locked\"}]}"),
			    "t.json: stage 'a' (stages[0]): memory must be \"pinned\" or "
			    "\"pageable\"");
	assert_string_equal(PERR("{\"stages\": [3]}"),
			    "t.json: stages[0] must be an object, not a number");
	assert_string_equal(PERR("[]"), "t.json: the top level must be an object with a "
					"\"stages\" array, not an array");
	assert_string_equal(PERR("{}"), "t.json: no \"stages\" array");
	assert_string_equal(PERR("{\"stages\": {}}"),
			    "t.json: \"stages\" must be an array, not an object");
	assert_string_equal(PERR("{\"stages\": [], \"stage\": []}"),
			    "t.json: unknown top-level key 'stage' (expected stages, "
			    "exposed_overhead_us, copy_engines, comment)");
	assert_string_equal(PERR("{\"stages\": [], \"stages\": []}"),
			    "t.json: duplicate top-level key 'stages'");
	assert_string_equal(PERR("{\"stages\": [], \"exposed_overhead_us\": -3}"),
			    "t.json: exposed_overhead_us -3 is negative");
	assert_string_equal(PERR("{\"stages\": [], \"exposed_overhead_us\": true}"),
			    "t.json: exposed_overhead_us must be a number of microseconds, not "
			    "a boolean");
	assert_string_equal(PERR("{\"stages\": [], \"copy_engines\": 1.5}"),
			    "t.json: copy_engines 1.5 must be a whole number from 0 to 64");
	assert_string_equal(PERR("{\"stages\": [], \"copy_engines\": {\"h2d\": -1}}"),
			    "t.json: copy_engines.h2d -1 must be a whole number from 0 to 64");
	assert_string_equal(PERR("{\"stages\": [], \"copy_engines\": {\"p2p\": 1}}"),
			    "t.json: copy_engines: unknown key 'p2p' (expected h2d, d2h)");
	assert_string_equal(PERR("{\"stages\": [], \"copy_engines\": \"2\"}"),
			    "t.json: copy_engines must be a number or an object {\"h2d\": N, "
			    "\"d2h\": N}, not a string");
}

/* More stages than the limit: GS_ERR_LIMIT before any other work. */
static void test_parse_limit(void **state)
{
	size_t n = GS_PLAN_MAX_STAGES + 1, i, cap = n * 48 + 64, len = 0;
	char *json = malloc(cap);

	(void)state;
	assert_non_null(json);
	len += (size_t)snprintf(json + len, cap - len, "{\"stages\": [");
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(json + len, cap - len,
					"%s{\"name\":\"s%zu\",\"duration_us\":1,\"stream\":\"s\"}",
					i ? "," : "", i);
	len += (size_t)snprintf(json + len, cap - len, "]}");
	assert_true(len < cap);
	assert_string_equal(parse_err(json, len, GS_ERR_LIMIT),
			    "t.json: more than 100000 stages (the limit of a plan)");
	assert_string_equal(parse_err(json, GS_PLAN_MAX_FILE_BYTES + 1, GS_ERR_LIMIT),
			    "t.json: larger than the 16 MiB limit for a plan");
	free(json);
}

/* ---- random plans ------------------------------------------------------------- */

static uint64_t rng_state = 88172645463325252ULL;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % n);
}

/* The stage model, literally: passes until every stage is placed. */
static void model_schedule(const struct gs_plan_input *in, int64_t *start, int64_t *end)
{
	size_t n = in->n_stages, placed = 0, i, j, k;
	bool *done = calloc(n ? n : 1, sizeof(*done));

	assert_non_null(done);
	while (placed < n) {
		bool progressed = false;

		for (i = 0; i < n; i++) {
			int64_t st = 0;
			bool ok = true;

			if (done[i])
				continue;
			/* Predecessors: depends_on and the previous on the stream. */
			for (j = 0; j < in->stages[i].n_depends_on && ok; j++) {
				for (k = 0; k < n; k++)
					if (!strcmp(in->stages[k].name,
						    in->stages[i].depends_on[j]))
						break;
				if (!done[k])
					ok = false;
				else if (end[k] > st)
					st = end[k];
			}
			for (k = i; ok && k-- > 0;) {
				if (!strcmp(in->stages[k].stream, in->stages[i].stream)) {
					if (!done[k])
						ok = false;
					else if (end[k] > st)
						st = end[k];
					break;
				}
			}
			if (!ok)
				continue;
			start[i] = st;
			end[i] = st + in->stages[i].duration_ns;
			done[i] = true;
			placed++;
			progressed = true;
		}
		assert_true(progressed);
	}
	free(done);
}

struct rplan {
	struct gs_plan_stage s[40];
	const char *deps[40][4];
	char names[40][24];
	struct gs_plan_input in;
};

static void random_plan(struct rplan *p, size_t n, bool resources)
{
	static const char *const streams[] = {"s0", "s1", "s2", "s3", "s4"};
	size_t i, j;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < n; i++) {
		snprintf(p->names[i], sizeof(p->names[i]), "t%zu", i);
		p->s[i].name = p->names[i];
		p->s[i].stream = streams[rnd(5)];
		p->s[i].duration_ns = (int64_t)rnd(4) * 500 * (rnd(3) + 1);
		p->s[i].kind = (uint8_t)rnd(GS_PLAN_KIND_COUNT);
		if (resources &&
		    (p->s[i].kind == GS_PLAN_KIND_H2D || p->s[i].kind == GS_PLAN_KIND_D2H) &&
		    rnd(6) == 0)
			p->s[i].memory = GS_PLAN_MEM_PAGEABLE;
		/* Dependencies on earlier stages keep it acyclic. */
		for (j = 0; i && j < rnd(4); j++)
			p->deps[i][p->s[i].n_depends_on++] = p->names[rnd((uint32_t)i)];
		p->s[i].depends_on = p->deps[i];
	}
	/* Shuffle the declaration order of stages on distinct streams? No:
	 * stream order is by declaration; keep it. */
	p->in.stages = p->s;
	p->in.n_stages = n;
	p->in.engine_mode = GS_PLAN_ENGINES_UNLIMITED;
	if (resources) {
		p->in.engine_mode = (uint8_t)rnd(3);
		p->in.engines_shared = rnd(3);
		p->in.engines_h2d = rnd(4) == 3 ? GS_PLAN_UNLIMITED : rnd(3);
		p->in.engines_d2h = rnd(4) == 3 ? GS_PLAN_UNLIMITED : rnd(3);
	}
}

static void test_random_matches_model(void **state)
{
	struct rplan *p = malloc(sizeof(*p));
	int64_t start[40], end[40];
	int iter;

	(void)state;
	assert_non_null(p);
	for (iter = 0; iter < 2000; iter++) {
		struct gs_plan_result r;
		size_t n = 1 + rnd(40), i;
		int64_t ideal = 0, serial = 0;

		random_plan(p, n, false);
		assert_int_equal(gs_plan_compute(&p->in, &r), GS_OK);
		model_schedule(&p->in, start, end);
		for (i = 0; i < n; i++) {
			assert_int_equal(r.timing[i].start_ns, start[i]);
			assert_int_equal(r.timing[i].end_ns, end[i]);
			ideal = end[i] > ideal ? end[i] : ideal;
			serial += p->s[i].duration_ns;
		}
		assert_int_equal(r.ideal_ns, ideal);
		assert_int_equal(r.serial_ns, serial);
		/* The critical path is a chain from 0 to the makespan. */
		assert_true(r.n_critical > 0);
		assert_int_equal(r.timing[r.critical_path[0]].start_ns, 0);
		assert_int_equal(r.timing[r.critical_path[r.n_critical - 1]].end_ns, ideal);
		for (i = 1; i < r.n_critical; i++)
			assert_int_equal(r.timing[r.critical_path[i]].start_ns,
					 r.timing[r.critical_path[i - 1]].end_ns);
		gs_plan_result_fini(&r);
	}
	free(p);
}

/* With resources: every edge holds, engines are never oversubscribed, an
 * exclusive copy never shares the device, ideal <= serial, the breakdown
 * sums to the makespan, and the critical path is contiguous. */
static void test_random_resources(void **state)
{
	struct rplan *p = malloc(sizeof(*p));
	int iter;

	(void)state;
	assert_non_null(p);
	for (iter = 0; iter < 3000; iter++) {
		struct gs_plan_result r;
		size_t n = 1 + rnd(40), i, j;
		uint32_t cap[3] = {GS_PLAN_UNLIMITED, GS_PLAN_UNLIMITED, GS_PLAN_UNLIMITED};

		random_plan(p, n, true);
		assert_int_equal(gs_plan_compute(&p->in, &r), GS_OK);
		if (p->in.engine_mode == GS_PLAN_ENGINES_SHARED)
			cap[0] = p->in.engines_shared;
		else if (p->in.engine_mode == GS_PLAN_ENGINES_PER_DIRECTION) {
			cap[1] = p->in.engines_h2d;
			cap[2] = p->in.engines_d2h;
		}
		for (i = 0; i < r.n_edges; i++)
			assert_true(r.timing[r.edges[i].to].start_ns >=
				    r.timing[r.edges[i].from].end_ns);
		for (i = 0; i < n; i++) {
			const struct gs_plan_stage *s = &p->s[i];
			int pool = -1;
			uint32_t busy = 0;
			int64_t t = r.timing[i].start_ns;

			assert_int_equal(r.timing[i].end_ns, t + s->duration_ns);
			if (s->kind == GS_PLAN_KIND_H2D || s->kind == GS_PLAN_KIND_D2H)
				pool = p->in.engine_mode == GS_PLAN_ENGINES_SHARED    ? 0 :
				       p->in.engine_mode == GS_PLAN_ENGINES_UNLIMITED ? -1 :
				       s->kind == GS_PLAN_KIND_H2D                    ? 1 :
											2;
			if (pool < 0 || s->duration_ns == 0)
				continue;
			/* Copies of the pool running at t (this one included). */
			for (j = 0; j < n; j++) {
				const struct gs_plan_stage *o = &p->s[j];
				bool same = (o->kind == GS_PLAN_KIND_H2D ||
					     o->kind == GS_PLAN_KIND_D2H) &&
					    (pool == 0 || o->kind == s->kind);

				if (same && r.timing[j].start_ns <= t && r.timing[j].end_ns > t &&
				    o->duration_ns > 0)
					busy++;
				/* Exclusive: no other device stage overlaps it. */
				if (cap[pool] == 0 && j != i && o->duration_ns > 0 &&
				    (o->kind == GS_PLAN_KIND_H2D || o->kind == GS_PLAN_KIND_D2H ||
				     o->kind == GS_PLAN_KIND_COMPUTE))
					assert_true(r.timing[j].end_ns <= t ||
						    r.timing[j].start_ns >= r.timing[i].end_ns);
			}
			if (cap[pool] != 0 && cap[pool] != GS_PLAN_UNLIMITED)
				assert_true(busy <= cap[pool]);
		}
		assert_true(r.ideal_ns <= r.serial_ns);
		assert_int_equal(r.breakdown_ns[0] + r.breakdown_ns[1] + r.breakdown_ns[2] +
					 r.breakdown_ns[3],
				 r.ideal_ns);
		for (i = 0; i < r.n_copies; i++) {
			assert_true(r.copies[i].hidden_ns >= 0);
			assert_true(r.copies[i].exposed_ns >= 0);
		}
		assert_int_equal(r.timing[r.critical_path[0]].start_ns, 0);
		assert_int_equal(r.timing[r.critical_path[r.n_critical - 1]].end_ns, r.ideal_ns);
		for (i = 1; i < r.n_critical; i++)
			assert_int_equal(r.timing[r.critical_path[i]].start_ns,
					 r.timing[r.critical_path[i - 1]].end_ns);
		gs_plan_result_fini(&r);
	}
	free(p);
}

/* 100000 stages, a wide pipeline with engines: linear-ish, finishes fast. */
static void test_large(void **state)
{
	size_t n = GS_PLAN_MAX_STAGES, i;
	struct gs_plan_stage *s = calloc(n, sizeof(*s));
	char(*names)[24] = calloc(n, sizeof(*names));
	const char **deps = calloc(n, sizeof(*deps));
	struct gs_plan_input in = {0};
	struct gs_plan_result r;

	(void)state;
	assert_non_null(s);
	assert_non_null(names);
	assert_non_null(deps);
	for (i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "s%zu", i);
		s[i].name = names[i];
		/* Batches of in / compute / out as in Example 2 (design.md). */
		s[i].stream = i % 3 == 0 ? "in" : i % 3 == 1 ? "compute" : "out";
		s[i].kind = i % 3 == 0 ? GS_PLAN_KIND_H2D :
			    i % 3 == 1 ? GS_PLAN_KIND_COMPUTE :
					 GS_PLAN_KIND_D2H;
		s[i].duration_ns = i % 3 == 1 ? 40000 : i % 3 == 0 ? 12000 : 10000;
		if (i % 3) {
			deps[i] = names[i - 1];
			s[i].depends_on = &deps[i];
			s[i].n_depends_on = 1;
		}
	}
	in.stages = s;
	in.n_stages = n - 1; /* 33333 full batches */
	in.engine_mode = GS_PLAN_ENGINES_SHARED;
	in.engines_shared = 1;
	assert_int_equal(gs_plan_compute(&in, &r), GS_OK);
	/* Compute-bound: 12 + 33333 * 40 + 10. */
	assert_int_equal(r.ideal_ns, 12000 + 33333LL * 40000 + 10000);
	gs_plan_result_fini(&r);
	free(s);
	free(names);
	free(deps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example1_chain),
		cmocka_unit_test(test_example1_no_kinds),
		cmocka_unit_test(test_example2_pipeline),
		cmocka_unit_test(test_example2_engines),
		cmocka_unit_test(test_example3),
		cmocka_unit_test(test_example4),
		cmocka_unit_test(test_example4_two_missing),
		cmocka_unit_test(test_example5),
		cmocka_unit_test(test_breakdown_priority),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_error_long_cycle),
		cmocka_unit_test(test_error_overflow),
		cmocka_unit_test(test_copy_engines),
		cmocka_unit_test(test_exclusive_host),
		cmocka_unit_test(test_pageable_barrier),
		cmocka_unit_test(test_forward_reference),
		cmocka_unit_test(test_duplicate_edges),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_us_format),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_limit),
		cmocka_unit_test(test_random_matches_model),
		cmocka_unit_test(test_random_resources),
		cmocka_unit_test(test_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
