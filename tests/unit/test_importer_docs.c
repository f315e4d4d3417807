/* SPDX-License-Identifier: MIT */
/*
 * The formats gpuscope reads come from one table of importers: the help
 * texts' list (gs_importers_help), the "not for ..." of the formats that
 * must be files, and the documents that describe the inputs (the man page,
 * README, docs/inputs.md), which must name every importer of the table.
 * A new importer whose help line or documentation is missing fails here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gpuscope/import.h>

/* The file under the source tree, its whitespace runs as single spaces,
 * roff's escaped hyphens as hyphens. */
static char *read_doc(const char *rel)
{
	char path[1024];
	FILE *f;
	char *s;
	size_t n = 0, cap = 1 << 16;
	int c;
	bool space = false;

	snprintf(path, sizeof(path), "%s/%s", GS_SOURCE_DIR, rel);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s", path);
	s = malloc(cap);
	assert_non_null(s);
	while ((c = fgetc(f)) != EOF) {
		if (c == ' ' || c == '\t' || c == '\n') {
			space = true;
			continue;
		}
		if (n + 3 > cap) {
			cap *= 2;
			s = realloc(s, cap);
			assert_non_null(s);
		}
		if (space && n)
			s[n++] = ' ';
		space = false;
		s[n++] = (char)c;
	}
	s[n] = '\0';
	fclose(f);
	return s;
}

static void test_help_lists_every_importer(void **state)
{
	char list[1024], files[256];

	(void)state;
	assert_true(gs_importer_count() >= 3);
	gs_importers_help(list, sizeof(list));
	for (size_t i = 0; i < gs_importer_count(); i++) {
		const char *title = gs_importer_title(i);

		assert_non_null(title);
		if (!strstr(list, title))
			fail_msg("the help's list \"%s\" does not name %s", list, title);
	}
	assert_null(gs_importer_title(gs_importer_count()));
	/* "a, b or c": one " or " before the last, commas before the others. */
	assert_non_null(strstr(list, " or "));
	assert_string_equal(gs_importers_file_only(files, sizeof(files)), "Nsight exports");
	/* Truncated, never overrun, always terminated. */
	gs_importers_help(list, 8);
	assert_true(strlen(list) < 8);
}

static void test_docs_name_every_importer(void **state)
{
	static const char *const docs[] = {"docs/gpuscope.1", "docs/inputs.md", "README.md"};

	(void)state;
	for (size_t d = 0; d < sizeof(docs) / sizeof(docs[0]); d++) {
		char *text = read_doc(docs[d]);

		for (size_t i = 0; i < gs_importer_count(); i++)
			if (!strstr(text, gs_importer_title(i)))
				fail_msg("%s does not name the input format %s", docs[d],
					 gs_importer_title(i));
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help_lists_every_importer),
		cmocka_unit_test(test_docs_name_every_importer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
