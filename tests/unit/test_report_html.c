/* SPDX-License-Identifier: MIT */
/*
 * The analyze report as HTML (gs_report_write_html): one self-contained
 * page with the elements the browser test looks for, every name escaped,
 * nothing fetched from the network, write errors reported; and the size
 * bound: a synthetic million-op trace gives a page under 5 MB whose tables
 * still hold the exact numbers.
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
#include "trace_build.h"

#include <gpuscope/analyzer.h>
#include <gpuscope/import.h>

/* ---- traces ----------------------------------------------------------------- */

#define KERNEL(name, stream, ts, dur, corr)                                                        \
	"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" name                                   \
	"\", \"pid\": 0, \"tid\": " #stream ", \"ts\": " #ts ", \"dur\": " #dur                    \
	", \"args\": {\"device\": 0, \"context\": 1, "                                             \
	"\"stream\": " #stream ", \"correlation\": " #corr                                         \
	", \"grid\": [128, 1, 1], \"block\": [256, 1, 1]}}"

/* A hostile kernel name: markup, quotes, an ampersand, invalid UTF-8. */
#define EVIL "<script>alert(\\\"x\\\")</script>&'\xff"

/*
 * Two streams on device 0 named "<b>GPU</b>": a copy on stream 20
 * [10, 50) µs, an event recorded after it, stream 7 waits on it, then the
 * evil kernel runs [50, 90) and a plain one [95, 100).
 */
static const char wait_json[] = "{\"deviceProperties\": [{\"id\": 0, \"name\": \"<b>GPU</b>\"}], \"traceEvents\": [\n" RT(
	"cudaMemcpyAsync", 1000000, 2,
	21) ",\n" COPY("Memcpy HtoD (Pinned -> Device)", 20, 1000010, 40,
		       21) ",\n" RT("cudaEventRecord", 1000003, 1,
				    22) ",\n" RT("cudaStreamWaitEvent", 1000005, 1,
						 23) ",\n"
						     "{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Stream Wait Event\", \"pid\": 0, "
						     "\"tid\": 7, \"ts\": 1000005, \"dur\": 1, \"args\": {\"cuda_sync_kind\": \"Stream Wait "
						     "Event\", \"wait_on_stream\": 20, \"wait_on_cuda_event_record_corr_id\": 22, \"stream\": 7, "
						     "\"correlation\": 23, \"device\": 0, \"context\": 1}},\n" RT(
							     "cudaLaunchKernel", 1000007, 2,
							     24) ",\n" KERNEL(EVIL, 7, 1000050, 40,
									      24) ",\n" RT("cudaLaunchKernel",
											   1000060,
											   2,
											   25) ",\n" KERNEL("plain_kernel",
													    7,
													    1000095,
													    5,
													    25) "\n]}\n";

/* Waits in a cycle (test_report.c has the story): kernels a on stream 7
 * and b on stream 8 each wait on the other; both ran [30, 40) µs. */
static const char cycle_json[] = "{\"traceEvents\": [\n" RT("cudaStreamWaitEvent", 1000003, 1, 3) ",\n" RT(
	"cudaStreamWaitEvent", 1000004, 1,
	4) ",\n" RT("cudaLaunchKernel", 1000005, 1,
		    5) ",\n" RT("cudaLaunchKernel", 1000006, 1,
				6) ",\n" RT("cudaEventRecord", 1000009, 1,
					    9) ",\n" RT("cudaEventRecord", 1000010, 1,
							10) ",\n" WAIT(7, 8, 10, 1000003,
								       3) ",\n" WAIT(8, 7, 9,
										     1000004,
										     4) ",\n" KERNEL("a",
												     7,
												     1000030,
												     10,
												     5) ",\n" KERNEL("b",
														     8,
														     1000030,
														     10,
														     6) "\n]}\n";

static const char host_only_json[] =
	"{\"traceEvents\": [\n" RT("cudaGetDeviceCount", 1000000, 2, 1) "\n]}\n";

static struct gs_report *report_of(const struct gs_trace *t)
{
	static const char *const inputs[] = {"dir/<test>.json"};
	struct gs_report_options o = {.inputs = inputs, .n_inputs = 1, .format = "kineto"};
	struct gs_report *r = NULL;

	gs_error_clear();
	assert_int_equal(gs_report_build(t, &o, &r), GS_OK);
	assert_non_null(r);
	return r;
}

static char *html_of(const struct gs_report *r, size_t *len)
{
	return report_out(gs_report_write_html, r, NULL, len);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0, len = strlen(needle);
	const char *p = hay;

	while ((p = strstr(p, needle)) != NULL) {
		n++;
		p += len;
	}
	return n;
}

static void has(const char *html, const char *needle)
{
	if (!strstr(html, needle))
		print_error("missing: %s\n", needle);
	assert_non_null(strstr(html, needle));
}

/* A page: doctype to </html>, elements opened as often as closed, nothing
 * loaded from elsewhere. */
static void check_page(const char *html, size_t len)
{
	static const char *const pairs[][2] = {
		{"<svg", "</svg>"},        {"<table", "</table>"}, {"<section", "</section>"},
		{"<script>", "</script>"}, {"<g ", "</g>"},        {"<title>", "</title>"},
		{"<tr>", "</tr>"},
	};
	size_t i;

	assert_true(len > 15);
	assert_memory_equal(html, "<!DOCTYPE html>\n", 16);
	assert_string_equal(html + len - 8, "</html>\n");
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		if (count(html, pairs[i][0]) != count(html, pairs[i][1]))
			print_error("%s: %zu opened, %zu closed\n", pairs[i][0],
				    count(html, pairs[i][0]), count(html, pairs[i][1]));
		assert_int_equal(count(html, pairs[i][0]), count(html, pairs[i][1]));
	}
	assert_int_equal(count(html, "<script>"), 2);
	assert_null(strstr(html, "http://"));
	assert_null(strstr(html, "https://"));
	assert_null(strstr(html, " src="));
	assert_null(strstr(html, "<link"));
	assert_null(strstr(html, "@import"));
	assert_null(strstr(html, "url("));
}

/* ---- tests -------------------------------------------------------------------- */

static void test_small_page(void **state)
{
	static const char *const ids[] = {
		"id=\"dev-0\"",      "id=\"bdbar-0\"",    "id=\"breakdown-0\"",
		"id=\"findings-0\"", "id=\"timeline-0\"", "id=\"axis-0\"",
		"id=\"lanes-0\"",    "id=\"band-0\"",     "id=\"waitlines-0\"",
		"id=\"schedule-0\"", "id=\"critical-0\"", "id=\"waits-0\"",
		"id=\"missed-0\"",   "id=\"idle-0\"",     "id=\"candidates-0\"",
		"id=\"streams-0\"",  "id=\"kernels-0\"",
	};
	struct gs_trace *t = trace_of(wait_json);
	struct gs_report *r = report_of(t);
	size_t len, i;
	char *html = html_of(r, &len);

	(void)state;
	check_page(html, len);
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		has(html, ids[i]);
	/* Two lanes each for the actual run and the ideal schedule; small
	 * traces draw every op (3 ops, twice) with a tooltip. */
	assert_int_equal(count(html, "class=\"lane real\""), 2);
	assert_int_equal(count(html, "class=\"lane ideal\""), 2);
	assert_int_equal(count(html, "<rect class=\"k\""), 4);
	assert_int_equal(count(html, "<rect class=\"m\""), 2);
	/* The wait: a dashed line on stream 7, a link from stream 20. */
	assert_int_equal(count(html, "<line class=\"wait\""), 1);
	assert_int_equal(count(html, "<line class=\"wlink\""), 1);
	has(html, "wait 41.000 \xc2\xb5s (event)");
	/* Names escaped wherever they appear; bad bytes as U+FFFD. */
	assert_null(strstr(html, "<script>alert"));
	assert_null(strstr(html, "<b>GPU"));
	assert_null(strstr(html, "<test>"));
	has(html, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;\xef\xbf\xbd");
	has(html, "device 0: &lt;b&gt;GPU&lt;/b&gt;");
	has(html, "dir/&lt;test&gt;.json");
	/* Numbers as the text report has them, in µs. */
	has(html, "<td class=\"n\">41.000 \xc2\xb5s</td>");
	has(html, "data-span=\"90000\"");
	has(html, "<tr><td>efficiency</td><td class=\"n\">0.");
	has(html, "</td><td>ideal / actual</td></tr>");
	gs_report_destroy(r);
	gs_trace_destroy(t);
	free(html);
}

/* Waits in a cycle: the finding, and no efficiency (it was 2.00). */
static void test_wait_cycle(void **state)
{
	struct gs_trace *t = trace_of(cycle_json);
	struct gs_report *r = report_of(t);
	size_t len;
	char *html = html_of(r, &len);

	(void)state;
	check_page(html, len);
	has(html, "<tr><td>efficiency</td><td class=\"n\">n/a</td><td>not available: the schedule "
		  "broke dependency cycles, so the ideal is no bound (see the findings)</td></tr>");
	has(html, "efficiency n/a).");
	has(html, "dependency cycles: ops wait");
	assert_null(strstr(html, "2.00"));
	gs_report_destroy(r);
	gs_trace_destroy(t);
	free(html);
}

static void test_no_devices(void **state)
{
	struct gs_trace *t = trace_of(host_only_json);
	struct gs_report *r = report_of(t);
	size_t len;
	char *html = html_of(r, &len);

	(void)state;
	check_page(html, len);
	has(html, "id=\"nodev\"");
	assert_null(strstr(html, "class=\"timeline\""));
	gs_report_destroy(r);
	gs_trace_destroy(t);
	free(html);
}

static void test_write_error(void **state)
{
	struct gs_trace *t = trace_of(wait_json);
	struct gs_report *r = report_of(t);
	FILE *f = fopen("/dev/full", "w");
	char msg[512];

	(void)state;
	if (!f) {
		gs_report_destroy(r);
		gs_trace_destroy(t);
		skip();
	}
	gs_error_clear();
	assert_int_equal(gs_report_write_html(f, r, NULL), GS_ERR_IO);
	assert_non_null(strstr(gs_error_format(msg, sizeof(msg)), "write failed"));
	fclose(f);
	gs_error_clear();
	assert_int_equal(gs_report_write_html(NULL, r, NULL), GS_ERR_INVALID);
	gs_error_clear();
	gs_report_destroy(r);
	gs_trace_destroy(t);
}

/*
 * A million ops on 40 streams of one device, kernels, copies and memsets
 * with gaps of varying length (a linear congruential sequence), so the
 * drawing cannot collapse into a few long shapes: the page stays under
 * 5 MB, draws the 32 busiest streams binned, and its tables are exact.
 */
#define BIG_OPS 1000000
#define BIG_STREAMS 40
#define BIG_NAMES 64

static void test_million_ops(void **state)
{
	struct gs_trace *t = NULL;
	struct gs_sink *s;
	uint32_t names[BIG_NAMES], streams[BIG_STREAMS];
	int64_t at[BIG_STREAMS] = {0};
	uint64_t k0 = 0, seed = 12345;
	struct gs_report *r;
	size_t len, i;
	char *html, want[64];

	(void)state;
	assert_int_equal(gs_trace_create(&t), GS_OK);
	s = gs_trace_borrow_sink(t);
	for (i = 0; i < BIG_NAMES; i++) {
		char name[64];

		snprintf(name, sizeof(name), "kernel_%zu<float, %zu>", i, i % 7);
		assert_int_equal(s->intern(s, name, strlen(name), &names[i]), GS_OK);
	}
	for (i = 0; i < BIG_STREAMS; i++) {
		struct gs_stream st = {.pid = 1, .device = 0, .context = 1, .stream_id = 7 + i};

		assert_int_equal(s->stream(s, &st, &streams[i]), GS_OK);
	}
	for (i = 0; i < BIG_OPS; i++) {
		size_t k = i % BIG_STREAMS;
		struct gs_op op = {0};
		uint64_t x;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		x = seed >> 33;
		/* Streams of unequal load: stream k runs 1 + k % 5 us ops. */
		at[k] += (int64_t)(x % 4000) * ((x >> 12) % 3 == 0 ? 20 : 1);
		op.start_ns = 1000000000LL + at[k];
		op.end_ns = op.start_ns + 1000 * (int64_t)(1 + k % 5) + (int64_t)(x % 997);
		at[k] = op.end_ns - 1000000000LL;
		op.stream = streams[k];
		op.correlation = i + 1;
		op.kind = (x >> 20) % 10 < 7 ? GS_OP_KERNEL :
			  (x >> 20) % 10 < 9 ? GS_OP_MEMCPY :
					       GS_OP_MEMSET;
		if (op.kind == GS_OP_KERNEL) {
			op.name = names[(x >> 24) % BIG_NAMES];
			if (op.name == names[0])
				k0++;
		} else {
			op.bytes = 4096;
			op.flags = GS_OPF_ASYNC;
			op.copy_kind = op.kind == GS_OP_MEMCPY ? GS_COPY_HTOD : GS_COPY_UNKNOWN;
			op.src_mem = op.kind == GS_OP_MEMCPY ? GS_MEM_PINNED : GS_MEM_UNKNOWN;
			op.dst_mem = GS_MEM_DEVICE;
		}
		assert_int_equal(s->op(s, &op, NULL), GS_OK);
	}
	assert_int_equal(gs_trace_finish(t), GS_OK);
	{
		struct gs_report_options o = {0};

		gs_error_clear();
		assert_int_equal(gs_report_build(t, &o, &r), GS_OK);
	}
	html = report_out(gs_report_write_html, r, &(struct gs_report_style){.top = 64}, &len);
	printf("# %d ops on %d streams: %zu bytes of HTML\n", BIG_OPS, BIG_STREAMS, len);
	/* GS_HTML_KEEP=FILE keeps the page, to look at. */
	if (getenv("GS_HTML_KEEP")) {
		FILE *f = fopen(getenv("GS_HTML_KEEP"), "w");

		assert_non_null(f);
		assert_int_equal(fwrite(html, 1, len, f), len);
		assert_int_equal(fclose(f), 0);
	}
	assert_true(len < 5u * 1000 * 1000);
	check_page(html, len);
	has(html, "1000000 ops");
	has(html, "slices per lane");
	has(html, "8 less busy streams not drawn");
	assert_int_equal(count(html, "class=\"lane real\""), 32);
	assert_int_equal(count(html, "class=\"lane ideal\""), 32);
	/* Binned: no op drawn one by one. */
	assert_null(strstr(html, "<rect class=\"k\""));
	/* Every kernel name is in the table (--top 64), with its exact count. */
	has(html, "kernel_0&lt;float, 0&gt;");
	snprintf(want, sizeof(want), "<td class=\"n\">%llu</td>", (unsigned long long)k0);
	has(html, want);
	gs_report_destroy(r);
	gs_trace_destroy(t);
	free(html);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_page),  cmocka_unit_test(test_wait_cycle),
		cmocka_unit_test(test_no_devices),  cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_million_ops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
