/* SPDX-License-Identifier: MIT */
/*
 * The job report written from parts, as gpuscope-mpi writes it (each
 * rank's summary packed into bytes and unpacked, the analysis reduced from
 * them, each rank's sections rendered on their own) equals the one
 * gs_report_write_json / _text / _html writes of the same job, byte for
 * byte; and a
 * summary holds exactly what its rank's collectives and steps are.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
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

#include <gpuscope/job_summary.h>
#include <gpuscope/report_parts.h>

#include "job.h"
#include "job_sum.h"
#include "report_model_priv.h"

#define RANKS 5

struct fixture {
	char dir[64];
	char *paths[RANKS];
	struct gs_job *job;
	struct gs_report *whole;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct gs_bench_job_options o = {.ranks = RANKS,
					 .ops_per_rank = 300,
					 .straggler = 3,
					 .threads = 1,
					 .steps = true};
	struct gs_bench_job_summary sum;
	struct gs_report_options ro = {0};

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/gs-test-job-sum-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_int_equal(gs_bench_job_generate(&o, f->dir, &sum), GS_OK);
	for (int r = 0; r < RANKS; r++) {
		f->paths[r] = malloc(128);
		snprintf(f->paths[r], 128, "%s/rank%d.json", f->dir, r);
	}
	assert_int_equal(gs_job_load((const char *const *)f->paths, RANKS, NULL, &f->job, NULL,
				     NULL),
			 GS_OK);
	ro.inputs = (const char *const *)f->paths;
	ro.n_inputs = RANKS;
	ro.format = "kineto";
	assert_int_equal(gs_report_build_job(f->job, &ro, &f->whole), GS_OK);
	*state = f;
	return 0;
}

/* Remove the generated job: its files (no subdirectories), then itself. */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[64 + sizeof(e->d_name) + 2];

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		assert_int_equal(unlink(path), 0);
	}
	closedir(d);
	assert_int_equal(rmdir(dir), 0);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	gs_report_destroy(f->whole);
	gs_job_destroy(f->job);
	for (int r = 0; r < RANKS; r++)
		free(f->paths[r]);
	remove_dir(f->dir);
	free(f);
	return 0;
}

/* The shell of the job (no ranks) with the analysis reduced from packed
 * and unpacked summaries. */
static struct gs_report *shell_of(struct fixture *f)
{
	struct gs_report_options ro = {0};
	bool none[RANKS] = {false};
	struct gs_report *shell = NULL;
	struct gs_js_rank **sums =
		calloc(RANKS, sizeof(*sums)); /* NOLINT(bugprone-sizeof-expression): pointers */

	assert_non_null(sums);
	ro.inputs = (const char *const *)f->paths;
	ro.n_inputs = RANKS;
	ro.format = "kineto";
	assert_int_equal(gs_report_build_job_own(f->job, &ro, none, &shell), GS_OK);
	assert_int_equal(shell->n_ranks, 0);
	for (size_t i = 0; i < RANKS; i++) {
		struct gs_js_rank *x = NULL;
		char *buf = NULL;
		size_t len = 0;

		assert_int_equal(gs_js_extract(f->whole->ranks[i], &x), GS_OK);
		assert_int_equal(gs_js_pack(x, &buf, &len), GS_OK);
		gs_js_free(x);
		/* Cut short, the bytes are refused. */
		assert_int_equal(gs_js_unpack(buf, len - 1, &x), GS_ERR_FORMAT);
		gs_error_clear();
		assert_int_equal(gs_js_unpack(buf, len, &sums[i]), GS_OK);
		free(buf);
	}
	assert_int_equal(gs_report_job_reduce(shell, sums, RANKS), GS_OK);
	return shell;
}

static char *slurp(void (*write)(FILE *, void *), void *arg, size_t *len)
{
	char *p = NULL;
	FILE *m = open_memstream(&p, len);

	assert_non_null(m);
	write(m, arg);
	assert_int_equal(fclose(m), 0);
	return p;
}

struct parts {
	struct fixture *f;
	struct gs_report *shell;
	const struct gs_report_style *st; /* NULL: the defaults */
	size_t asked;                     /* text parts asked for */
};

/* A rank's part as its process renders it, handed over as bytes. */
struct one {
	struct parts *p;
	size_t i;
	unsigned part;
};

static void w_json_rank(FILE *m, void *arg)
{
	struct one *o = arg;

	assert_int_equal(gs_report_json_rank_part(m, o->p->f->whole->ranks[o->i], o->part), GS_OK);
}

static gs_status json_part(void *ctx, unsigned part, size_t i, char **bytes, size_t *len)
{
	struct one o = {ctx, i, part};

	*bytes = slurp(w_json_rank, &o, len);
	return GS_OK;
}

static void w_text_rank(FILE *m, void *arg)
{
	struct one *o = arg;

	assert_int_equal(gs_report_text_rank_part(m, o->p->f->whole->ranks[o->i], o->p->st), GS_OK);
}

static gs_status text_part(void *ctx, size_t i, char **bytes, size_t *len)
{
	struct one o = {ctx, i, 0};

	o.p->asked++;
	*bytes = slurp(w_text_rank, &o, len);
	return GS_OK;
}

/* HTML: the layout from the shell's summaries, each rank's first GPU
 * after the GPUs of the ranks before it (as the root broadcasts them). */
static void w_html_rank(FILE *m, void *arg)
{
	struct one *o = arg;
	struct gs_html_layout L = gs_report_html_job_layout(o->p->shell);
	size_t di0 = 0;

	for (size_t k = 0; k < o->i; k++)
		di0 += gs_report_job_rank_gpus(o->p->shell, k);
	assert_int_equal(gs_report_html_rank_part(m, o->p->f->whole->ranks[o->i], &L, di0, o->part,
						  o->p->st),
			 GS_OK);
}

static gs_status html_part(void *ctx, unsigned part, size_t i, char **bytes, size_t *len)
{
	struct one o = {ctx, i, part};

	*bytes = slurp(w_html_rank, &o, len);
	return GS_OK;
}

static void w_html_whole(FILE *m, void *arg)
{
	assert_int_equal(gs_report_write_html(m, arg, NULL), GS_OK);
}

static void w_html_parts(FILE *m, void *arg)
{
	struct parts *p = arg;
	struct gs_html_layout L = gs_report_html_job_layout(p->shell);

	assert_int_equal(gs_report_html_job_parts(m, p->shell, &L, p->st, html_part, p), GS_OK);
}

static void w_json_whole(FILE *m, void *arg)
{
	assert_int_equal(gs_report_write_json(m, arg, NULL), GS_OK);
}

static void w_text_whole(FILE *m, void *arg)
{
	assert_int_equal(gs_report_write_text(m, arg, NULL), GS_OK);
}

static void w_json_parts(FILE *m, void *arg)
{
	struct parts *p = arg;

	assert_int_equal(gs_report_json_job_parts(m, p->shell, NULL, json_part, p), GS_OK);
}

static void w_text_parts(FILE *m, void *arg)
{
	struct parts *p = arg;

	assert_int_equal(gs_report_text_job_parts(m, p->shell, p->st, text_part, p), GS_OK);
}

static void test_parts_equal_whole(void **state)
{
	struct fixture *f = *state;
	struct parts p = {f, shell_of(f), NULL, 0};
	size_t la, lb;
	char *a, *b;

	a = slurp(w_json_whole, f->whole, &la);
	b = slurp(w_json_parts, &p, &lb);
	assert_true(la > 1000);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	assert_non_null(strstr(a, "\"straggler\""));
	free(a);
	free(b);
	a = slurp(w_text_whole, f->whole, &la);
	b = slurp(w_text_parts, &p, &lb);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	free(a);
	free(b);
	a = slurp(w_html_whole, f->whole, &la);
	b = slurp(w_html_parts, &p, &lb);
	assert_true(la > 10000);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	assert_non_null(strstr(a, "id=\"job-timeline-0\""));
	assert_non_null(strstr(a, "<a href=\"#dev-4\">rank 4 GPU 4</a>"));
	assert_non_null(strstr(a, "<section class=\"device\" id=\"dev-4\">"));
	free(a);
	free(b);
	/* options.mpi only when set. */
	gs_report_set_mpi_processes(p.shell, 3);
	b = slurp(w_json_parts, &p, &lb);
	assert_non_null(strstr(b, "\"mpi\": {\"processes\": 3}"));
	a = slurp(w_json_whole, f->whole, &la);
	assert_null(strstr(a, "\"mpi\""));
	free(a);
	free(b);
	gs_report_destroy(p.shell);
}

/* The whole job written with a style, its report in p->f->whole. */
static void w_text_whole_st(FILE *m, void *arg)
{
	struct parts *p = arg;

	assert_int_equal(gs_report_write_text(m, p->f->whole, p->st), GS_OK);
}

static void w_html_whole_st(FILE *m, void *arg)
{
	struct parts *p = arg;

	assert_int_equal(gs_report_write_html(m, p->f->whole, p->st), GS_OK);
}

/* More GPUs than the rank table holds (--ranks 2 of 5): the text asks
 * only the shown ranks (the straggler's) for their sections and equals the
 * whole job's; the HTML wraps the others' as the whole job's page does. */
static void test_parts_equal_whole_cut(void **state)
{
	struct fixture *f = *state;
	const struct gs_report_style st = {.ranks = 2};
	struct parts p = {f, shell_of(f), &st, 0};
	bool shown[RANKS];
	size_t la, lb, n_shown = 0;
	char *a, *b;

	assert_int_equal(gs_report_text_job_shown(p.shell, &st, shown, &n_shown), GS_OK);
	assert_true(shown[3]);
	assert_true(n_shown < RANKS);
	a = slurp(w_text_whole_st, &p, &la);
	b = slurp(w_text_parts, &p, &lb);
	assert_int_equal(p.asked, n_shown);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	assert_non_null(strstr(a, "━━ rank 3 "));
	assert_non_null(strstr(a, "ranks' sections not shown"));
	free(a);
	free(b);
	a = slurp(w_html_whole_st, &p, &la);
	b = slurp(w_html_parts, &p, &lb);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	assert_non_null(strstr(a, "<details id=\"job-index\">"));
	assert_non_null(strstr(a, "<details class=\"rank\">"));
	free(a);
	free(b);
	gs_report_destroy(p.shell);
}

/* A summary: one GPU row, one communicator (process group "0") whose
 * kernels are the rank's collective kernels in start order. */
static void test_summary_content(void **state)
{
	struct fixture *f = *state;
	const struct gs_report *r = f->whole->ranks[2];
	struct gs_js_rank *x = NULL;
	size_t n_ops;
	const struct gs_op *ops = gs_trace_ops(r->t, &n_ops);
	uint64_t colls = 0;

	assert_int_equal(gs_js_extract(r, &x), GS_OK);
	assert_int_equal(x->rank, 2);
	assert_int_equal(x->n_gpus, 1);
	assert_int_equal(x->ops, n_ops);
	assert_int_equal(x->n_m, 1);
	assert_string_equal(gs_js_str(x, x->m[0].group), "0");
	/* Those that start in the window: the steps but the first (warm-up). */
	assert_true(r->window_from_steps);
	assert_true(r->dev[0].b.window_start > ops[0].start_ns);
	for (size_t i = 0; i < n_ops; i++)
		colls += ops[i].kind == GS_OP_KERNEL && gs_trace_op_collective(r->t, &ops[i]) &&
			 ops[i].start_ns >= r->dev[0].b.window_start &&
			 ops[i].start_ns <= r->dev[0].b.window_end;
	assert_true(colls > 0);
	assert_int_equal(x->m[0].n, colls);
	/* Its steps: the report's, with their GPU windows. */
	assert_int_equal(x->n_steps, r->steps.n);
	assert_true(x->n_steps >= 2);
	for (size_t i = 0; i < x->n_steps; i++) {
		assert_int_equal(x->steps[i].number, r->steps.steps[i].number);
		assert_int_equal(x->steps[i].start_ns, r->steps.steps[i].gpu_start_ns);
		assert_int_equal(x->steps[i].end_ns, r->steps.steps[i].gpu_end_ns);
		assert_int_equal(x->steps[i].selected, r->steps.steps[i].selected);
	}
	assert_false(x->steps[0].selected);
	for (size_t k = 1; k < x->m[0].n; k++)
		assert_true(x->m[0].k[k - 1].start_ns <= x->m[0].k[k].start_ns);
	assert_string_equal(gs_js_str(x, x->m[0].k[0].name), "allreduce");
	/* 2^23 Float elements. */
	assert_int_equal(x->m[0].k[0].bytes, 4 * (1 << 23));
	/* Its load on the HTML page: the ops of its one device in the
	 * window; a lane per stream with ops, twice (actual and ideal), and
	 * the band. */
	assert_int_equal(x->html_ops, r->dev[0].ops);
	assert_true(r->dev[0].ops < n_ops);
	assert_int_equal(x->html_lanes, 2 * r->dev[0].n_streams + 1);
	gs_js_free(x);
}

/* A job's ranks read through results.h: from the ranks' reports (the whole
 * report) and from their summaries (the shell), the same numbers, and the
 * same as the ranks' own reports say. */
static void test_job_rank_accessors(void **state)
{
	struct fixture *f = *state;
	struct gs_report *shell = shell_of(f);
	struct gs_report *rep[2] = {f->whole, shell};

	assert_int_equal(gs_results_job_rank_count(f->whole), RANKS);
	assert_int_equal(gs_results_job_rank_count(shell), RANKS);
	assert_null(gs_results_job_analysis(gs_results_rank(f->whole, 0)));
	assert_int_equal(gs_results_job_rank_count(gs_results_rank(f->whole, 0)), 0);
	for (size_t i = 0; i < RANKS; i++) {
		const struct gs_report *rank = gs_results_rank(f->whole, i);
		struct gs_results_job_rank x[2];
		struct gs_results_process p;
		uint64_t ops[2], lanes[2];
		size_t n_ops, n_dev;
		const struct gs_report_device *dev = gs_results_devices(rank, &n_dev);

		gs_results_process(rank, &p);
		gs_trace_ops(gs_results_trace(rank), &n_ops);
		for (int k = 0; k < 2; k++) {
			assert_true(gs_results_job_rank(rep[k], i, &x[k]));
			assert_int_equal(x[k].rank, p.rank);
			assert_string_equal(x[k].host, p.host);
			assert_int_equal(x[k].ops, n_ops);
			assert_int_equal(x[k].gpus, n_dev);
			for (size_t g = 0; g < n_dev; g++)
				assert_int_equal(gs_results_job_rank_device(rep[k], i, g),
						 dev[g].device);
			assert_int_equal(gs_results_job_rank_device(rep[k], i, n_dev), UINT32_MAX);
			gs_report_job_rank_html_load(rep[k], i, &ops[k], &lanes[k]);
		}
		assert_int_equal(x[0].dropped_records, x[1].dropped_records);
		assert_int_equal(x[0].streams, x[1].streams);
		assert_true(x[0].streams > 0);
		assert_int_equal(ops[0], ops[1]);
		assert_int_equal(lanes[0], lanes[1]);
		assert_true(lanes[0] > 0);
	}
	assert_false(gs_results_job_rank(shell, RANKS, &(struct gs_results_job_rank){0}));
	gs_report_destroy(shell);
}

/* The page's layout from the ranks' loads: every op drawn up to 3000 ops,
 * else binned; 96000 slices over the lanes, 100 to 2000 a lane. */
static void test_html_layout(void **state)
{
	struct gs_html_layout L;

	(void)state;
	L = gs_report_html_layout(3000, 96);
	assert_int_equal(L.exact, 1);
	assert_int_equal(L.bins, 1000);
	L = gs_report_html_layout(3001, 10);
	assert_int_equal(L.exact, 0);
	assert_int_equal(L.bins, 2000);
	L = gs_report_html_layout(50000, 1000);
	assert_int_equal(L.bins, 100);
	L = gs_report_html_layout(0, 0);
	assert_int_equal(L.exact, 1);
	assert_int_equal(L.bins, 2000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parts_equal_whole),
		cmocka_unit_test(test_parts_equal_whole_cut),
		cmocka_unit_test(test_summary_content),
		cmocka_unit_test(test_job_rank_accessors),
		cmocka_unit_test(test_html_layout),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
