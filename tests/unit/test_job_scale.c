/* SPDX-License-Identifier: MIT */
/*
 * A job report that scales with its ranks (analyzer/writers/job_view.c, "Outliers";
 * report_text.c, report_html.c): with more GPUs than the rank table holds
 * (--ranks, default --top or 8), the text lists each column's min / median
 * / max and the outliers only, shows the outliers' ranks' sections only and
 * says in one line each how many it left out; --ranks all and small jobs
 * show every row and section; the JSON keeps every rank and lists the
 * outliers in the order of choice.
 *
 * Over a hand-built job of 12 ranks whose outliers are known to the ratio
 * (one idle rank, one long window, one just inside the bound), and over
 * jobs of gs_bench_gen --job of 64 and 1,024 ranks with a planted
 * straggler: under 200 lines at 1,024 ranks, the straggler's row and
 * section there, the counts of the left-out lines, every row and section
 * with --ranks all, every rank in the JSON, the HTML's collapsed parts.
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

#include "report_out.h"

#include <cJSON.h>

#include "json_at.h"

#include <gpuscope/analyzer.h>
#include <gpuscope/import.h>

#include "job.h"

#define MS 1000000LL
#define BASE 1000000000LL

/* ---- text helpers ---- */

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Searches over a whole report go by explicit lengths: ASan's strstr and
 * strchr measure the rest of the string at every call, which turns a loop
 * over a 1,024-rank report quadratic (minutes instead of a second). */
static const char *find_in(const char *s, const char *end, const char *what)
{
	size_t len = strlen(what);

	while ((size_t)(end - s) >= len) {
		s = memchr(s, what[0], (size_t)(end - s) - len + 1);
		if (!s)
			return NULL;
		if (!memcmp(s, what, len))
			return s;
		s++;
	}
	return NULL;
}

static size_t count_of(const char *s, const char *what)
{
	const char *end = s + strlen(s);
	size_t n = 0;

	while ((s = find_in(s, end, what)) != NULL) {
		n++;
		s += strlen(what);
	}
	return n;
}

/* A line of the text that starts with `prefix`. */
static bool has_line(const char *text, const char *prefix)
{
	const char *end = text + strlen(text);
	size_t len = strlen(prefix);

	for (const char *p = text; p; p = memchr(p, '\n', (size_t)(end - p))) {
		p += p != text;
		if ((size_t)(end - p) >= len && !memcmp(p, prefix, len))
			return true;
	}
	return false;
}

/* The rows of the text's rank table: lines under its column heads up to
 * the blank line. */
static size_t rank_rows(const char *text)
{
	const char *end = text + strlen(text);
	const char *p = find_in(text, end, "\n    rank  host      GPU");
	size_t n = 0;

	assert_non_null(p);
	p = memchr(p + 1, '\n', (size_t)(end - p - 1));
	while (p && p[1] && p[1] != '\n') {
		n++;
		p = memchr(p + 1, '\n', (size_t)(end - p - 1));
	}
	return n;
}

/* job.ranks[i].outlier */
static bool outlier_flag(const cJSON *j, int i)
{
	const cJSON *row = cJSON_GetArrayItem(at(j, "job", "ranks", NULL), i);

	assert_non_null(row);
	return cJSON_IsTrue(at(row, "outlier", NULL));
}

static char *text_of(const struct gs_report *r, const struct gs_report_style *st)
{
	char *t = report_out(gs_report_write_text, r, st, NULL);

	check_lines(t);
	return t;
}

static cJSON *json_of(const struct gs_report *r)
{
	char *t = report_out(gs_report_write_json, r, NULL, NULL);
	cJSON *j = cJSON_Parse(t);

	free(t);
	assert_non_null(j);
	return j;
}

/* ---- a hand-built job of 12 ranks, one GPU each ---- */

#define HAND_RANKS 12

/* Rank r's trace: kernels back to back on one stream from BASE to
 * BASE + 10 ms, but rank 5 idle 3 ms in the middle (idle share 0.3,
 * efficiency 0.7), rank 9 running to 11 ms (window 1 ms over the median,
 * 5 times the floor of 2% of it) and rank 3 to 10.1 ms (half the floor:
 * no outlier). */
static struct gs_trace *hand_rank(uint32_t r)
{
	struct gs_trace *t = NULL;
	struct gs_sink *s;
	struct gs_process p = {0};
	struct gs_device d = {0};
	struct gs_stream st = {0};
	uint32_t stream = 0, name = 0, host = 0, dname = 0;
	int64_t end = r == 9 ? 11 * MS : r == 3 ? 10 * MS + MS / 10 : 10 * MS;
	char hostname[32];

	assert_int_equal(gs_trace_create(&t), GS_OK);
	s = gs_trace_borrow_sink(t);
	snprintf(hostname, sizeof(hostname), "node%u", r / 8);
	assert_int_equal(s->intern(s, hostname, strlen(hostname), &host), GS_OK);
	assert_int_equal(s->intern(s, "gemm", 4, &name), GS_OK);
	assert_int_equal(s->intern(s, "Test GPU", 8, &dname), GS_OK);
	p.pid = 1000 + r;
	p.host_name = host;
	p.command_line = p.driver_version = p.runtime_version = p.cupti_version = GS_NO_STRING;
	p.has_rank = true;
	p.rank = r;
	p.world_size = HAND_RANKS;
	assert_int_equal(s->process(s, &p), GS_OK);
	d.id = r % 8;
	d.name = dname;
	d.uuid = GS_NO_STRING;
	assert_int_equal(s->device(s, &d), GS_OK);
	st.pid = p.pid;
	st.device = d.id;
	st.context = 1;
	st.kind = GS_STREAM_NON_BLOCKING;
	st.stream_id = 7;
	assert_int_equal(s->stream(s, &st, &stream), GS_OK);
	for (int64_t a = 0; a < end; a += MS) {
		struct gs_op op = {0};
		struct gs_launch_cfg lc = {0};

		if (r == 5 && a >= 4 * MS && a < 7 * MS)
			continue;
		op.kind = GS_OP_KERNEL;
		op.start_ns = BASE + a;
		op.end_ns = BASE + (a + MS < end ? a + MS : end);
		op.name = name;
		op.stream = stream;
		op.correlation = (uint64_t)(a / MS) + 1;
		lc.grid[0] = lc.block[0] = 1;
		assert_int_equal(s->op(s, &op, &lc), GS_OK);
	}
	assert_int_equal(gs_trace_finish(t), GS_OK);
	return t;
}

struct hand {
	struct gs_job *job;
	struct gs_report *r;
};

static int hand_setup(void **state)
{
	static const char *const names[HAND_RANKS] = {
		"r0.json", "r1.json", "r2.json", "r3.json", "r4.json",  "r5.json",
		"r6.json", "r7.json", "r8.json", "r9.json", "r10.json", "r11.json",
	};
	struct gs_report_options o = {.inputs = names, .n_inputs = HAND_RANKS, .format = "kineto"};
	struct gs_trace *traces[HAND_RANKS];
	struct hand *h = calloc(1, sizeof(*h));

	assert_non_null(h);
	for (uint32_t r = 0; r < HAND_RANKS; r++)
		traces[r] = hand_rank(r);
	assert_int_equal(gs_job_from_traces(traces, names, HAND_RANKS, &h->job), GS_OK);
	assert_int_equal(gs_report_build_job(h->job, &o, &h->r), GS_OK);
	*state = h;
	return 0;
}

static int hand_teardown(void **state)
{
	struct hand *h = *state;

	gs_report_destroy(h->r);
	gs_job_destroy(h->job);
	free(h);
	return 0;
}

/* Rank 5 (0.3 from a median idle share of 0 over a bound of 0.02: 15) before
 * rank 9 (1 ms over a bound of 0.2 ms: 5); rank 3 (0.5) is none. */
static void test_outliers_by_distance(void **state)
{
	struct hand *h = *state;
	cJSON *j = json_of(h->r);
	const cJSON *outs = at(j, "job", "outliers", NULL);
	const char *by;
	char *t;

	assert_int_equal(cJSON_GetArraySize(outs), 2);
	assert_int_equal(at(outs, "#0", "rank", NULL)->valueint, 5);
	/* Idle share and efficiency are one signal on one stream (0.3 either
	 * way); the first of the metrics at the largest ratio names it. */
	by = at(outs, "#0", "by", NULL)->valuestring;
	assert_true(!strcmp(by, "idle_share") || !strcmp(by, "efficiency"));
	assert_float_equal(at(outs, "#0", "score", NULL)->valuedouble, 15.0, 1e-3);
	assert_int_equal(at(outs, "#1", "rank", NULL)->valueint, 9);
	str_is(at(outs, "#1", "by", NULL), "window_ns");
	assert_float_equal(at(outs, "#1", "score", NULL)->valuedouble, 5.0, 1e-3);
	for (int i = 0; i < HAND_RANKS; i++)
		assert_int_equal(outlier_flag(j, i), i == 5 || i == 9);
	assert_int_equal(cJSON_GetArraySize(at(j, "devices", NULL)), HAND_RANKS);
	cJSON_Delete(j);

	/* 12 GPUs, 8 rows: min / median / max and the two, their sections. */
	t = text_of(h->r, NULL);
	assert_non_null(strstr(t, "  Ranks: each column's min, median and max over the 12 GPUs, "
				  "then the outliers (2)\n"));
	assert_int_equal(rank_rows(t), 3 + 2 + 1 + 2);
	assert_true(has_line(t, "    min "));
	assert_true(has_line(t, "    median "));
	assert_true(has_line(t, "    max "));
	assert_true(has_line(t, "    5     node0       5 "));
	assert_true(has_line(t, "    9     node1       1 "));
	assert_false(has_line(t, "    3     node0"));
	assert_non_null(strstr(t, "    outliers: rank 5 ("));
	assert_non_null(strstr(t, "), rank 9 (window)\n"));
	assert_non_null(strstr(t, "    10 of 12 GPUs not listed (no other outlier among them)"));
	assert_int_equal(count_of(t, "\n━━ rank "), 2);
	assert_non_null(strstr(t, "\n━━ rank 5 · node0 · pid 1005 · GPU 5 Test GPU"));
	assert_non_null(strstr(t, "\n━━ rank 9 · node1 · pid 1009 · GPU 1 Test GPU"));
	assert_non_null(strstr(t,
			       "\n10 of 12 ranks' sections not shown (the job's outliers' only): "
			       "--ranks all shows\nevery one, --rank R one rank's\n"));
	assert_null(strstr(t, "Across the 12 GPUs"));
	free(t);

	/* --ranks 1: the first of them, and the other said. */
	t = text_of(h->r, &(struct gs_report_style){.ranks = 1});
	assert_true(has_line(t, "    5     node0"));
	assert_false(has_line(t, "    9     node1"));
	assert_non_null(strstr(t, "    11 of 12 GPUs not listed (1 more outlier among them)"));
	assert_int_equal(count_of(t, "\n━━ rank "), 1);
	assert_non_null(strstr(t, "\n11 of 12 ranks' sections not shown"));
	free(t);

	/* --top 12 (no --ranks): they fit, as before: every row and section,
	 * the table across the GPUs, no left-out line. */
	t = text_of(h->r, &(struct gs_report_style){.top = 12});
	assert_non_null(strstr(t, "\n  Ranks\n"));
	assert_int_equal(rank_rows(t), HAND_RANKS);
	assert_non_null(strstr(t, "Across the 12 GPUs"));
	assert_int_equal(count_of(t, "\n━━ rank "), HAND_RANKS);
	assert_null(strstr(t, "not shown"));
	assert_null(strstr(t, "not listed"));
	free(t);
}

/* ---- generated jobs: a straggler among many ranks ---- */

struct gen {
	char dir[64];
	uint32_t ranks, straggler;
	char **paths;
	struct gs_job *job;
	struct gs_report *r;
};

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[64 + sizeof(e->d_name) + 2];

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		assert_int_equal(unlink(path), 0);
	}
	closedir(d);
	assert_int_equal(rmdir(dir), 0);
}

static struct gen *gen_job(uint32_t ranks, uint32_t straggler)
{
	struct gen *g = calloc(1, sizeof(*g));
	struct gs_bench_job_options o = {.ranks = ranks,
					 .ops_per_rank = 40,
					 .straggler = straggler,
					 .straggler_share = 1,
					 .threads = 2};
	struct gs_bench_job_summary sum;
	struct gs_report_options ro = {0};

	assert_non_null(g);
	g->ranks = ranks;
	g->straggler = straggler;
	snprintf(g->dir, sizeof(g->dir), "/tmp/gs-test-job-scale-XXXXXX");
	assert_non_null(mkdtemp(g->dir));
	assert_int_equal(gs_bench_job_generate(&o, g->dir, &sum), GS_OK);
	g->paths = calloc(ranks, sizeof(*g->paths));
	assert_non_null(g->paths);
	for (uint32_t r = 0; r < ranks; r++) {
		g->paths[r] = malloc(128);
		assert_non_null(g->paths[r]);
		snprintf(g->paths[r], 128, "%s/rank%u.json", g->dir, r);
	}
	assert_int_equal(gs_job_load((const char *const *)g->paths, ranks, NULL, &g->job, NULL,
				     NULL),
			 GS_OK);
	ro.inputs = (const char *const *)g->paths;
	ro.n_inputs = ranks;
	ro.format = "kineto";
	assert_int_equal(gs_report_build_job(g->job, &ro, &g->r), GS_OK);
	return g;
}

static void gen_free(struct gen *g)
{
	gs_report_destroy(g->r);
	gs_job_destroy(g->job);
	for (uint32_t r = 0; r < g->ranks; r++)
		free(g->paths[r]);
	free(g->paths);
	remove_dir(g->dir);
	free(g);
}

static void check_gen(struct gen *g)
{
	char want[160], *t;
	cJSON *j;

	/* The default: under 200 lines, the straggler's row and section. */
	t = text_of(g->r, NULL);
	assert_true(count_lines(t) < 200);
	snprintf(want, sizeof(want), "    %-6u", g->straggler);
	assert_true(has_line(t, want));
	snprintf(want, sizeof(want), "\n━━ rank %u · bench-node-%u · pid %u · GPU %u ",
		 g->straggler, g->straggler / 8, 1000 + g->straggler % 8, g->straggler % 8);
	assert_non_null(strstr(t, want));
	assert_int_equal(count_of(t, "\n━━ rank "), 1);
	snprintf(want, sizeof(want), "    outliers: rank %u (straggler)\n", g->straggler);
	assert_non_null(strstr(t, want));
	snprintf(want, sizeof(want), "    %u of %u GPUs not listed (no other outlier among them)",
		 g->ranks - 1, g->ranks);
	assert_non_null(strstr(t, want));
	snprintf(want, sizeof(want), "\n%u of %u ranks' sections not shown", g->ranks - 1,
		 g->ranks);
	assert_non_null(strstr(t, want));
	snprintf(want, sizeof(want), "    %u of %u ranks not listed (--ranks all", g->ranks - 1,
		 g->ranks);
	assert_non_null(strstr(t, want));
	/* 8 GPUs a node: one caution for all of them. */
	assert_non_null(strstr(t, "  caution  every rank (devices 0-7): ops on 2 streams"));
	free(t);

	/* --ranks all: every row and every section, as a small job's. */
	t = text_of(g->r, &(struct gs_report_style){.ranks = GS_REPORT_RANKS_ALL});
	assert_int_equal(rank_rows(t), g->ranks);
	assert_int_equal(count_of(t, "\n━━ rank "), g->ranks);
	assert_null(strstr(t, "not shown"));
	assert_null(strstr(t, "not listed"));
	free(t);

	/* JSON: every rank, its row and its section, the straggler first. */
	j = json_of(g->r);
	assert_int_equal(cJSON_GetArraySize(at(j, "devices", NULL)), (int)g->ranks);
	assert_int_equal(cJSON_GetArraySize(at(j, "trace", "ranks", NULL)), (int)g->ranks);
	assert_int_equal(cJSON_GetArraySize(at(j, "job", "ranks", NULL)), (int)g->ranks);
	assert_int_equal(cJSON_GetArraySize(at(j, "job", "rank_totals", NULL)), (int)g->ranks);
	assert_int_equal(at(j, "job", "outliers", "#0", "rank", NULL)->valueint, (int)g->straggler);
	str_is(at(j, "job", "outliers", "#0", "by", NULL), "straggler");
	assert_true(cJSON_IsNull(at(j, "job", "outliers", "#0", "score", NULL)));
	assert_true(outlier_flag(j, (int)g->straggler));
	assert_false(outlier_flag(j, (int)(g->straggler + 1) % (int)g->ranks));
	cJSON_Delete(j);
}

static void check_html(struct gen *g)
{
	char want[96], *h = report_out(gs_report_write_html, g->r, NULL, NULL);
	const char *sec, *closed = NULL;

	/* The chart and findings before the ranks; rows and sections of the
	 * others collapsed; the outlier's section open, linked from the top. */
	assert_true(strstr(h, "id=\"job-findings\"") < strstr(h, "id=\"job-timeline-0\""));
	assert_true(strstr(h, "id=\"job-timeline-0\"") < strstr(h, "id=\"job-ranks\""));
	assert_non_null(strstr(h, "<details class=\"more\" id=\"job-ranks-all\">"));
	assert_non_null(strstr(h, "<details class=\"more\" id=\"job-totals-all\">"));
	assert_non_null(strstr(h, "<details id=\"job-index\">"));
	assert_non_null(strstr(h, "id=\"job-filter\""));
	assert_int_equal(count_of(h, "<details class=\"rank\">"), g->ranks - 1);
	assert_non_null(strstr(h, " other GPUs</text>"));
	assert_true(count_of(strstr(h, "<svg class=\"labels\""), "<text ") >= 2);
	snprintf(want, sizeof(want), "<nav>The outliers' sections: <a href=\"#dev-%u\">",
		 g->straggler);
	assert_non_null(strstr(h, want));
	snprintf(want, sizeof(want), "<section class=\"device\" id=\"dev-%u\">", g->straggler);
	sec = strstr(h, want);
	assert_non_null(sec);
	/* Not inside a collapsed block: the last block opened before it is
	 * closed before it. */
	for (const char *p = h; (p = find_in(p, sec, "<details class=\"ranks\">")) != NULL; p++)
		closed = p;
	assert_non_null(closed);
	assert_true(strstr(closed, "</details>\n</details>\n") < sec);
	assert_int_equal(count_of(h, "id=\"dev-"), g->ranks);
	free(h);
}

static void test_job_64(void **state)
{
	struct gen *g = gen_job(64, 37);

	(void)state;
	check_gen(g);
	check_html(g);
	gen_free(g);
}

static void test_job_1024(void **state)
{
	struct gen *g = gen_job(1024, 300);

	(void)state;
	check_gen(g);
	check_html(g);
	gen_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_outliers_by_distance, hand_setup,
						hand_teardown),
		cmocka_unit_test(test_job_64),
		cmocka_unit_test(test_job_1024),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
