/* SPDX-License-Identifier: MIT */
/*
 * The inputs of a job (gs_input_list_*): directories read in byte order of
 * their entries' names, traces recognised by content, the others skipped
 * with one warning (hidden ones silently), lists of paths (--inputs), and
 * the same trace given twice refused by name, link or content. Every case
 * runs in a directory of its own under the build's temporary directory.
 */
#define _GNU_SOURCE /* mkdtemp */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <gpuscope/import.h>

#define TRACE_JSON "{\"traceEvents\": []}\n"

static char root[256];

/* ROOT/rel */
static const char *at(const char *rel)
{
	static char buf[4][4200];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", root, rel);
	return buf[k];
}

static void put(const char *rel, const void *data, size_t len)
{
	FILE *f = fopen(at(rel), "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void put_str(const char *rel, const char *s)
{
	put(rel, s, strlen(s));
}

static void dir(const char *rel)
{
	assert_int_equal(mkdir(at(rel), 0777), 0);
}

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void)state;
	snprintf(root, sizeof(root), "%s/gs-test-inputs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[4200];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

/* The causes of the last error, one line. */
static const char *cause(void)
{
	static char buf[2048];

	gs_error_format(buf, sizeof(buf));
	gs_error_clear();
	return buf;
}

/* A directory of traces among other things: the traces in byte order of
 * their names, one warning naming what was skipped. */
static void test_directory(void **state)
{
	struct gs_input_list l;
	char want[4300];

	(void)state;
	dir("runs");
	put_str("runs/b.json", TRACE_JSON);
	put_str("runs/a.json", TRACE_JSON);
	put_str("runs/B.json", TRACE_JSON);
	put_str("runs/10.json", TRACE_JSON);
	put_str("runs/2.json", TRACE_JSON);
	put("runs/x.gscope", "GSCOPE\0\0\1\0", 10);
	put_str("runs/README", "how these were recorded\n");
	put_str("runs/empty.json", "");
	/* A report an earlier -o left there, the job generator's expected
	 * numbers: JSON, not traces. */
	put_str("runs/report.json",
		"{\n  \"schema\": \"gpuscope.report/1\",\n  \"traceEvents\": []}\n");
	put_str("runs/expected.json",
		"{\"schema\":\"gpuscope-bench-job-expected\", \"version\": 1}");
	put_str("runs/.hidden.json", TRACE_JSON);
	put_str("runs/.report.json.tmp-abc123", TRACE_JSON);
	dir("runs/sub");
	put_str("runs/sub/c.json", TRACE_JSON);
	assert_int_equal(symlink("a.json", at("runs/link.json")), 0);
	assert_int_equal(symlink("nowhere.json", at("runs/dangling.json")), 0);
	assert_int_equal(mkfifo(at("runs/fifo"), 0600), 0); /* never opened: it would block */

	gs_input_list_init(&l);
	assert_int_equal(gs_input_list_add(&l, at("runs")), GS_OK);
	{
		static const char *const names[] = {"10.json", "2.json",    "B.json",  "a.json",
						    "b.json",  "link.json", "x.gscope"};

		assert_int_equal(l.n, 7);
		for (size_t i = 0; i < l.n; i++) {
			snprintf(want, sizeof(want), "%s/runs/%s", root, names[i]);
			assert_string_equal(l.paths[i], want);
			assert_non_null(l.from[i]);
			assert_string_equal(l.from[i], at("runs"));
		}
	}
	assert_int_equal(l.n_warnings, 1);
	snprintf(want, sizeof(want),
		 "%s/runs: skipped 7 entries that are not traces (README, dangling.json, "
		 "empty.json, ...)",
		 root);
	assert_string_equal(l.warnings[0], want);
	gs_input_list_fini(&l);
	assert_int_equal(l.n, 0);

	/* "DIR/" as given: no second slash. */
	gs_input_list_init(&l);
	assert_int_equal(gs_input_list_add(&l, at("runs/sub/")), GS_OK);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.paths[0], at("runs/sub/c.json"));
	assert_int_equal(l.n_warnings, 0);
	assert_int_equal(gs_input_list_check_distinct(&l), GS_OK);
	gs_input_list_fini(&l);
}

/* A directory with no trace is an error naming it; other arguments are
 * left for the loader. */
static void test_no_trace(void **state)
{
	struct gs_input_list l;
	char want[4300];

	(void)state;
	dir("none");
	put_str("none/notes.txt", "not a trace\n");
	put_str("none/.hidden.json", TRACE_JSON);
	gs_input_list_init(&l);
	gs_error_clear();
	assert_int_equal(gs_input_list_add(&l, at("none")), GS_ERR_INVALID);
	snprintf(want, sizeof(want),
		 "%s/none: no trace in this directory (1 file that is not a trace: notes.txt)",
		 root);
	assert_string_equal(cause(), want);
	dir("void");
	assert_int_equal(gs_input_list_add(&l, at("void")), GS_ERR_INVALID);
	snprintf(want, sizeof(want), "%s/void: no trace in this directory", root);
	assert_string_equal(cause(), want);
	assert_int_equal(l.n, 0);

	/* A missing file, stdin, a file that is no trace: each one path. */
	assert_int_equal(gs_input_list_add(&l, at("missing.json")), GS_OK);
	assert_int_equal(gs_input_list_add(&l, "-"), GS_OK);
	assert_int_equal(gs_input_list_add(&l, at("none/notes.txt")), GS_OK);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.paths[1], "-");
	assert_null(l.from[0]);
	assert_int_equal(gs_input_list_check_distinct(&l), GS_OK);
	gs_input_list_fini(&l);
}

/* --inputs FILE: one path a line. */
static void test_list(void **state)
{
	struct gs_input_list l;
	char list[8192], want[4300];

	(void)state;
	dir("job");
	put_str("job/r0.json", "{\"traceEvents\": [], \"rank\": 0}\n");
	put_str("job/r1.json", "{\"traceEvents\": [], \"rank\": 1}\n");
	dir("more");
	put_str("more/r2.json", "{\"traceEvents\": [], \"rank\": 2}\n");
	put_str("more/r3.json", "{\"traceEvents\": [], \"rank\": 3}\n");
	snprintf(list, sizeof(list),
		 "# the ranks\n"
		 "\n"
		 "  %s/job/r1.json \t\n"
		 "%s/job/r0.json\r\n"
		 "   # an indented comment\n"
		 "%s/more\n"
		 "\t\n"
		 "%s/job/r9.json",
		 root, root, root, root);
	put_str("list.txt", list);
	gs_input_list_init(&l);
	assert_int_equal(gs_input_list_add(&l, at("job/r0.json")), GS_OK);
	assert_int_equal(gs_input_list_add_file(&l, at("list.txt")), GS_OK);
	assert_int_equal(l.n, 6);
	assert_string_equal(l.paths[0], at("job/r0.json"));
	assert_string_equal(l.paths[1], at("job/r1.json"));
	assert_string_equal(l.paths[2], at("job/r0.json"));
	assert_string_equal(l.paths[3], at("more/r2.json"));
	assert_string_equal(l.paths[4], at("more/r3.json"));
	assert_string_equal(l.paths[5], at("job/r9.json"));
	assert_null(l.from[2]);
	assert_string_equal(l.from[3], at("more"));
	/* r0.json directly and listed. */
	assert_int_equal(gs_input_list_check_distinct(&l), GS_ERR_INVALID);
	snprintf(want, sizeof(want),
		 "%s/job/r0.json and %s/job/r0.json are the same trace (same file); give each "
		 "input once",
		 root, root);
	assert_string_equal(cause(), want);
	gs_input_list_fini(&l);

	/* Refused lists, each naming the file (and the line). */
	put_str("comments.txt", "# nothing\n\n   \n");
	put("nul.txt", "job/r0.json\nab\0c\n", 17);
	memset(list, 'x', sizeof(list));
	put("long.txt", list, sizeof(list));
	gs_input_list_init(&l);
	assert_int_equal(gs_input_list_add_file(&l, at("comments.txt")), GS_ERR_INVALID);
	snprintf(want, sizeof(want),
		 "%s: lists no path (one a line; empty lines and lines starting with # are "
		 "skipped)",
		 at("comments.txt"));
	assert_string_equal(cause(), want);
	assert_int_equal(gs_input_list_add_file(&l, at("nul.txt")), GS_ERR_INVALID);
	snprintf(want, sizeof(want), "%s: line 2: a NUL byte (one path a line)", at("nul.txt"));
	assert_string_equal(cause(), want);
	assert_int_equal(gs_input_list_add_file(&l, at("long.txt")), GS_ERR_INVALID);
	snprintf(want, sizeof(want), "%s: line 1: longer than 4096 bytes (one path a line)",
		 at("long.txt"));
	assert_string_equal(cause(), want);
	assert_int_equal(gs_input_list_add_file(&l, at("job/r0.json")), GS_ERR_INVALID);
	snprintf(want, sizeof(want),
		 "%s: is a trace (kineto), not a list of paths (--inputs FILE lists one path a "
		 "line)",
		 at("job/r0.json"));
	assert_string_equal(cause(), want);
	assert_int_equal(gs_input_list_add_file(&l, at("job")), GS_ERR_INVALID);
	assert_non_null(strstr(cause(), "is a directory, not a list of paths"));
	assert_int_equal(gs_input_list_add_file(&l, at("nolist.txt")), GS_ERR_IO);
	snprintf(want, sizeof(want), "%s: cannot open: No such file or directory",
		 at("nolist.txt"));
	assert_string_equal(cause(), want);
	gs_input_list_fini(&l);
}

/* The result of check_distinct on `n` paths under ROOT: GS_OK, or the
 * error with its cause in *why. */
static gs_status distinct(const char *const *rel, size_t n, const char **why)
{
	struct gs_input_list l;
	gs_status st = GS_OK;

	gs_input_list_init(&l);
	for (size_t i = 0; i < n && st == GS_OK; i++)
		st = gs_input_list_add(&l, strcmp(rel[i], "-") ? at(rel[i]) : "-");
	assert_int_equal(st, GS_OK);
	gs_error_clear();
	st = gs_input_list_check_distinct(&l);
	*why = st == GS_OK ? "" : cause();
	gs_input_list_fini(&l);
	return st;
}

/* "ROOT/a and ROOT/b are the same trace (same what); ..." */
static void same(const char *why, const char *a, const char *b, const char *what)
{
	char want[9000];

	snprintf(want, sizeof(want), "%s and %s are the same trace (same %s); give each input once",
		 a, b, what);
	assert_string_equal(why, want);
}

static void test_same_trace_twice(void **state)
{
	static unsigned char big[200000];
	const char *why;
	char a[4200];

	(void)state;
	dir("d");
	put_str("d/r0.json", "{\"traceEvents\": [], \"r\": 0}\n");
	put_str("d/r1.json", "{\"traceEvents\": [], \"r\": 1}\n"); /* same size */
	put_str("d/r2.json", "{\"traceEvents\": [], \"r\": 22}\n");
	dir("copy");
	put_str("copy/r1.json", "{\"traceEvents\": [], \"r\": 1}\n");
	assert_int_equal(link(at("d/r0.json"), at("hard.json")), 0);
	assert_int_equal(symlink("d/r2.json", at("sym.json")), 0);
	put_str("e1.json", "");
	put_str("e2.json", "");

	/* Different files of one size, and empty files: distinct. */
	{
		const char *ok[] = {"d/r0.json", "d/r1.json", "d/r2.json", "e1.json", "e2.json"};

		assert_int_equal(distinct(ok, 5, &why), GS_OK);
	}
	/* The same name twice; a hard link; a symbolic link; another spelling. */
	{
		const char *p[] = {"d/r0.json", "d/r0.json"};

		assert_int_equal(distinct(p, 2, &why), GS_ERR_INVALID);
		same(why, at("d/r0.json"), at("d/r0.json"), "file");
	}
	{
		const char *p[] = {"d/r1.json", "d/r0.json", "hard.json"};

		assert_int_equal(distinct(p, 3, &why), GS_ERR_INVALID);
		same(why, at("d/r0.json"), at("hard.json"), "file");
	}
	{
		const char *p[] = {"sym.json", "d/r1.json", "d/../d/r2.json"};

		assert_int_equal(distinct(p, 3, &why), GS_ERR_INVALID);
		same(why, at("sym.json"), at("d/../d/r2.json"), "file");
	}
	/* A copy, and a copy in a directory given whole. */
	{
		const char *p[] = {"d/r1.json", "copy/r1.json"};

		assert_int_equal(distinct(p, 2, &why), GS_ERR_INVALID);
		same(why, at("d/r1.json"), at("copy/r1.json"), "content");
	}
	{
		const char *p[] = {"copy/r1.json", "d"};

		assert_int_equal(distinct(p, 2, &why), GS_ERR_INVALID);
		snprintf(a, sizeof(a), "%s (in %s)", at("d/r1.json"), at("d"));
		same(why, at("copy/r1.json"), a, "content");
	}
	{
		const char *p[] = {"d", "d/r2.json"};

		assert_int_equal(distinct(p, 2, &why), GS_ERR_INVALID);
		snprintf(a, sizeof(a), "%s (in %s)", at("d/r2.json"), at("d"));
		same(why, a, at("d/r2.json"), "file");
	}
	/* The earliest pair, by its later member. */
	{
		const char *p[] = {"d/r2.json", "d/r1.json", "copy/r1.json", "sym.json"};

		assert_int_equal(distinct(p, 4, &why), GS_ERR_INVALID);
		same(why, at("d/r1.json"), at("copy/r1.json"), "content");
	}
	/* stdin is not compared (the command line refuses it twice). */
	{
		const char *p[] = {"-", "-", "d/r0.json"};

		assert_int_equal(distinct(p, 3, &why), GS_OK);
	}

	/* Over 64 KiB: alike in the first 64 KiB, different at the end: not a
	 * copy; alike to the end: a copy. */
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (unsigned char)(i * 7 + i / 251);
	big[0] = '{';
	put("big1.json", big, sizeof(big));
	put("big2.json", big, sizeof(big));
	big[sizeof(big) - 1] ^= 1;
	put("big3.json", big, sizeof(big));
	{
		const char *p[] = {"big1.json", "big3.json"};

		assert_int_equal(distinct(p, 2, &why), GS_OK);
	}
	{
		const char *p[] = {"big3.json", "big1.json", "big2.json"};

		assert_int_equal(distinct(p, 3, &why), GS_ERR_INVALID);
		same(why, at("big1.json"), at("big2.json"), "content");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_trace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_trace_twice, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
