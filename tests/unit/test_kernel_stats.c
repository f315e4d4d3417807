/* SPDX-License-Identifier: MIT */
/*
 * The kernel table's statistics per kernel name (count, total, mean, min,
 * median, p95, max, population standard deviation) in the analyze report,
 * on traces built through the sink API with durations in exact ns: odd
 * and even counts, one kernel, equal durations, rounding of the mean and
 * std, kernels of one name on two streams, a window that cuts kernels
 * (those overlapping it count, clipped to it), the text and HTML tables;
 * and, on random durations, every statistic against a naive computation
 * made here from the definitions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report_out.h"

#include <cJSON.h>

#include "json_at.h"

#include <gpuscope/analyzer.h>

#include <math.h>

/* ---- building traces ----------------------------------------------------- */

struct tb {
	struct gs_trace *t;
	struct gs_sink *s;
};

static void tb_init(struct tb *b)
{
	assert_int_equal(gs_trace_create(&b->t), GS_OK);
	b->s = gs_trace_borrow_sink(b->t);
}

static uint32_t str(struct tb *b, const char *s)
{
	uint32_t id;

	assert_int_equal(b->s->intern(b->s, s, strlen(s), &id), GS_OK);
	return id;
}

static uint32_t stream(struct tb *b, uint64_t id)
{
	struct gs_stream st = {.pid = 1, .device = 0, .context = 1, .stream_id = id};
	uint32_t idx;

	assert_int_equal(b->s->stream(b->s, &st, &idx), GS_OK);
	return idx;
}

static void op(struct tb *b, uint8_t kind, const char *name, uint32_t s, int64_t start, int64_t end)
{
	struct gs_op o = {0};

	o.kind = kind;
	o.name = str(b, name);
	o.stream = s;
	o.start_ns = start;
	o.end_ns = end;
	assert_int_equal(b->s->op(b->s, &o, NULL), GS_OK);
}

static void kernel(struct tb *b, const char *name, uint32_t s, int64_t start, int64_t dur)
{
	op(b, GS_OP_KERNEL, name, s, start, start + dur);
}

/* The report of device 0 (window [ws, we) when ws < we, else the
 * default one). */
static struct gs_report *report_of(struct tb *b, int64_t ws, int64_t we)
{
	static const char *const inputs[] = {"test.gscope"};
	struct gs_report_options o = {.inputs = inputs, .n_inputs = 1, .format = "gscope"};
	struct gs_report *r = NULL;

	assert_int_equal(gs_trace_finish(b->t), GS_OK);
	if (ws < we)
		o.window = (struct gs_window){.set = true, .start_ns = ws, .end_ns = we};
	gs_error_clear();
	assert_int_equal(gs_report_build(b->t, &o, &r), GS_OK);
	assert_non_null(r);
	return r;
}

static cJSON *json_of(const struct gs_report *r)
{
	char *buf = report_out(gs_report_write_json, r, NULL, NULL);
	cJSON *j = cJSON_Parse(buf);

	assert_non_null(j);
	free(buf);
	return j;
}

/* The row of kernel `name` in device 0's kernel table; NULL when none. */
static const cJSON *row_of(const cJSON *j, const char *name)
{
	const cJSON *k, *rows = at(j, "devices", "#0", "kernels", NULL);

	cJSON_ArrayForEach(k, rows)
	{
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(k, "name");

		if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
			return k;
	}
	return NULL;
}

static int64_t field(const cJSON *row, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, key);

	if (!cJSON_IsNumber(v))
		print_error("no number '%s'\n", key);
	assert_true(cJSON_IsNumber(v));
	return (int64_t)v->valuedouble;
}

struct want {
	int64_t count, ns, mean, min, median, p95, max, std;
};

static void row_is(const cJSON *j, const char *name, struct want w)
{
	const cJSON *row = row_of(j, name);

	if (!row)
		print_error("no kernel row '%s'\n", name);
	assert_non_null(row);
	assert_int_equal(field(row, "count"), w.count);
	assert_int_equal(field(row, "ns"), w.ns);
	assert_int_equal(field(row, "mean_ns"), w.mean);
	assert_int_equal(field(row, "min_ns"), w.min);
	assert_int_equal(field(row, "median_ns"), w.median);
	assert_int_equal(field(row, "p95_ns"), w.p95);
	assert_int_equal(field(row, "max_ns"), w.max);
	assert_int_equal(field(row, "std_ns"), w.std);
}

/* ---- hand-worked statistics --------------------------------------------- */

/*
 * Device 0, streams 7 and 8, one kernel after another (ns):
 *   odd:   1000 4000 2000 (stream 7), 5000 3000 (stream 8): sorted 1000 ..
 *          5000; median rank ceil(2.5) = 3: 3000; p95 rank ceil(4.75) =
 *          5: 5000; mean 3000; std sqrt((4 + 1 + 0 + 1 + 4) e6 / 5) =
 *          1414.2: 1414.
 *   even:  100 x k for k = 20 .. 1 (descending): median rank 10: 1000
 *          (the lower middle); p95 rank 19: 1900; mean 1050; std 100
 *          sqrt((20^2 - 1) / 12) = 576.6: 577.
 *   four:  400 100 300 200: median rank 2: 200; p95 rank ceil(3.8) = 4:
 *          400; mean 250; std sqrt(12500) = 111.8: 112.
 *   one:   777 alone: every statistic 777, std 0.
 *   same:  6 x 500: all 500, std 0.
 *   half:  1, 2: mean 1.5 and std 0.5, both rounded half up: 2 and 1.
 *   third: 3, 3, 4: mean 3.33: 3; std sqrt(2 / 9) = 0.47: 0.
 * A copy between them is no kernel of any row.
 */
static struct tb hand_trace(void)
{
	struct tb b;
	uint32_t s7, s8;
	int64_t t = 100000;

	tb_init(&b);
	s7 = stream(&b, 7);
	s8 = stream(&b, 8);
#define K(name, s, dur)                                                                            \
	do {                                                                                       \
		kernel(&b, name, s, t, dur);                                                       \
		t += (dur) + 50;                                                                   \
	} while (0)
	K("odd", s7, 1000);
	K("odd", s7, 4000);
	op(&b, GS_OP_MEMCPY, "Memcpy HtoD", s7, t, t + 9999);
	t += 10049;
	K("odd", s7, 2000);
	K("odd", s8, 5000);
	K("odd", s8, 3000);
	for (int k = 20; k >= 1; k--)
		K("even", k % 2 ? s7 : s8, 100 * k);
	K("four", s7, 400);
	K("four", s7, 100);
	K("four", s8, 300);
	K("four", s8, 200);
	K("one", s8, 777);
	for (int k = 0; k < 6; k++)
		K("same", s7, 500);
	K("half", s7, 1);
	K("half", s8, 2);
	K("third", s7, 3);
	K("third", s7, 3);
	K("third", s8, 4);
#undef K
	return b;
}

static void test_hand_worked(void **state)
{
	struct tb b = hand_trace();
	struct gs_report *r;
	cJSON *j;

	(void)state;
	r = report_of(&b, 0, 0);
	j = json_of(r);
	row_is(j, "odd", (struct want){5, 15000, 3000, 1000, 3000, 5000, 5000, 1414});
	row_is(j, "even", (struct want){20, 21000, 1050, 100, 1000, 1900, 2000, 577});
	row_is(j, "four", (struct want){4, 1000, 250, 100, 200, 400, 400, 112});
	row_is(j, "one", (struct want){1, 777, 777, 777, 777, 777, 777, 0});
	row_is(j, "same", (struct want){6, 3000, 500, 500, 500, 500, 500, 0});
	row_is(j, "half", (struct want){2, 3, 2, 1, 1, 2, 2, 1});
	row_is(j, "third", (struct want){3, 10, 3, 3, 3, 4, 4, 0});
	assert_null(row_of(j, "Memcpy HtoD"));
	assert_int_equal(cJSON_GetArraySize(at(j, "devices", "#0", "kernels", NULL)), 7);
	cJSON_Delete(j);
	gs_report_destroy(r);
	gs_trace_destroy(b.t);
}

/* The text table: mean, p95 and max in one unit of their own (the line's
 * total may be in another), every line within 100 columns; the HTML table
 * has every statistic. */
static void test_text_and_html(void **state)
{
	struct tb b = hand_trace();
	struct gs_report *r;
	char *text, *html, *line;

	(void)state;
	r = report_of(&b, 0, 0);
	text = report_out(gs_report_write_text, r, NULL, NULL);
	check_lines(text);
	assert_non_null(strstr(text, "count       mean        p95        max  class"));
	/* odd: total 15.000 us, mean 3 us, p95 and max 5 us. */
	line = strstr(text, "15.000 us");
	assert_non_null(line);
	assert_non_null(strstr(line, "3.000 us   5.000 us   5.000 us  compute       odd\n"));
	/* even: total 21 us; mean 1.050 us, p95 1.900 us, max 2.000 us. */
	line = strstr(text, "21.000 us");
	assert_non_null(line);
	assert_non_null(strstr(line, "1.050 us   1.900 us   2.000 us  compute       even\n"));
	/* half: all in ns. */
	assert_non_null(strstr(text, "     2 ns       2 ns       2 ns  compute       half\n"));
	free(text);

	html = report_out(gs_report_write_html, r, NULL, NULL);
	line = strstr(html, "id=\"kernels-0\"");
	assert_non_null(line);
	assert_non_null(strstr(line, "<th class=\"n\">mean</th><th class=\"n\">min</th>"
				     "<th class=\"n\">median</th><th class=\"n\">p95</th>"
				     "<th class=\"n\">max</th><th class=\"n\">std</th>"));
	free(html);
	gs_report_destroy(r);
	gs_trace_destroy(b.t);
}

/*
 * A window cuts kernels. The kernel table counts the kernels overlapping
 * the window [10000, 20000), each clipped to it:
 *   cut [9000, 10400) -> 400, [12000, 12600) -> 600, [19800, 21000) -> 200;
 *       [8000, 9500) ends before the window, [20000, 20500) starts at its
 *       end: neither counts.
 *   Count 3, total 1200; sorted 200 400 600: median 400, p95 600, mean
 *   400, std sqrt(80000 / 3) = 163.3: 163.
 *   outside [21000, 22000): no row.
 *   inside [14000, 14100): 100.
 */
static void test_window_cuts(void **state)
{
	struct tb b;
	struct gs_report *r;
	uint32_t s7, s8;
	cJSON *j;

	(void)state;
	tb_init(&b);
	s7 = stream(&b, 7);
	s8 = stream(&b, 8);
	kernel(&b, "cut", s7, 8000, 1500);
	kernel(&b, "cut", s8, 9000, 1400);
	kernel(&b, "cut", s7, 12000, 600);
	kernel(&b, "inside", s8, 14000, 100);
	kernel(&b, "cut", s7, 19800, 1200);
	kernel(&b, "cut", s8, 20000, 500);
	kernel(&b, "outside", s8, 21000, 1000);
	r = report_of(&b, 10000, 20000);
	j = json_of(r);
	row_is(j, "cut", (struct want){3, 1200, 400, 200, 400, 600, 600, 163});
	row_is(j, "inside", (struct want){1, 100, 100, 100, 100, 100, 100, 0});
	assert_null(row_of(j, "outside"));
	cJSON_Delete(j);
	gs_report_destroy(r);
	gs_trace_destroy(b.t);
}

/* ---- random durations against a naive computation ------------------------ */

static uint64_t rnd_state;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 2685821657736338717ull;
}

#define N_NAMES 6
#define MAX_PER_NAME 400

/* The nearest-rank p-th percentile from its definition: the smallest
 * value v of the n with at least p n / 100 of them <= v. Quadratic. */
static int64_t naive_percentile(const int64_t *v, size_t n, unsigned p)
{
	int64_t best = INT64_MAX;

	for (size_t i = 0; i < n; i++) {
		size_t le = 0;

		for (size_t k = 0; k < n; k++)
			le += v[k] <= v[i];
		if (le * 100 >= (size_t)p * n && v[i] < best)
			best = v[i];
	}
	return best;
}

static void check_naive(const cJSON *j, const char *name, const int64_t *v, size_t n)
{
	const cJSON *row = row_of(j, name);
	int64_t sum = 0, mn = INT64_MAX, mx = INT64_MIN;
	double mean, var = 0, sd;

	if (!n) {
		assert_null(row);
		return;
	}
	assert_non_null(row);
	for (size_t i = 0; i < n; i++) {
		sum += v[i];
		mn = v[i] < mn ? v[i] : mn;
		mx = v[i] > mx ? v[i] : mx;
	}
	mean = (double)sum / (double)n;
	for (size_t i = 0; i < n; i++)
		var += ((double)v[i] - mean) * ((double)v[i] - mean);
	sd = sqrt(var / (double)n);
	assert_int_equal(field(row, "count"), (int64_t)n);
	assert_int_equal(field(row, "ns"), sum);
	assert_int_equal(field(row, "mean_ns"), (int64_t)floor(mean + 0.5));
	assert_int_equal(field(row, "min_ns"), mn);
	assert_int_equal(field(row, "max_ns"), mx);
	assert_int_equal(field(row, "median_ns"), naive_percentile(v, n, 50));
	assert_int_equal(field(row, "p95_ns"), naive_percentile(v, n, 95));
	/* Rounded to the ns: within half a ns of the exact value (a tie at
	 * .5 may go either way in the naive double arithmetic). */
	if (fabs((double)field(row, "std_ns") - sd) > 0.5 + 1e-6)
		print_error("%s: std_ns %lld, naive %.6f\n", name, (long long)field(row, "std_ns"),
			    sd);
	assert_true(fabs((double)field(row, "std_ns") - sd) <= 0.5 + 1e-6);
}

static void test_random_against_naive(void **state)
{
	static const char *const names[N_NAMES] = {"ka", "kb", "kc", "kd", "ke", "kf"};

	(void)state;
	rnd_state = 0x9e3779b97f4a7c15ull;
	for (int round = 0; round < 25; round++) {
		int64_t *dur[N_NAMES];
		size_t n[N_NAMES] = {0};
		struct tb b;
		struct gs_report *r;
		uint32_t s[3];
		int64_t t[3] = {1000, 1000, 1000};
		cJSON *j;
		size_t total = 1 + rnd() % (N_NAMES * MAX_PER_NAME / 2);

		tb_init(&b);
		for (int k = 0; k < 3; k++)
			s[k] = stream(&b, 7 + (uint64_t)k);
		for (int k = 0; k < N_NAMES; k++) {
			dur[k] = malloc(MAX_PER_NAME * sizeof(*dur[k]));
			assert_non_null(dur[k]);
		}
		for (size_t i = 0; i < total; i++) {
			/* Names skewed (kf rare), durations of several scales, a few
			 * repeated, some long outliers. */
			unsigned k = (unsigned)(rnd() % (N_NAMES * (N_NAMES + 1) / 2));
			unsigned name = 0, st = (unsigned)(rnd() % 3);
			uint64_t x = rnd();
			int64_t d;

			while (k >= N_NAMES - name)
				k -= N_NAMES - name++;
			if (n[name] == MAX_PER_NAME)
				continue;
			switch (x % 4) {
			case 0:
				d = 1 + (int64_t)(x >> 8) % 50;
				break;
			case 1:
				d = 1000 + (int64_t)(x >> 8) % 100000;
				break;
			case 2:
				d = 5000;
				break;
			default:
				d = 1 + (int64_t)(x >> 8) % (x % 16 ? 20000 : 900000000);
				break;
			}
			dur[name][n[name]++] = d;
			kernel(&b, names[name], s[st], t[st], d);
			t[st] += d + (int64_t)(rnd() % 1000);
		}
		r = report_of(&b, 0, 0);
		j = json_of(r);
		for (int k = 0; k < N_NAMES; k++) {
			check_naive(j, names[k], dur[k], n[k]);
			free(dur[k]);
		}
		cJSON_Delete(j);
		gs_report_destroy(r);
		gs_trace_destroy(b.t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_worked),
		cmocka_unit_test(test_text_and_html),
		cmocka_unit_test(test_window_cuts),
		cmocka_unit_test(test_random_against_naive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
