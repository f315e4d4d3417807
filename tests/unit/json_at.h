/* SPDX-License-Identifier: MIT */
/*
 * Members of a parsed JSON report (cJSON), for the tests that check its
 * fields. Header-only (static functions).
 */
#ifndef GS_TEST_JSON_AT_H
#define GS_TEST_JSON_AT_H

#include <cJSON.h>

#include <stdarg.h>
#include <stdlib.h>

/* The member at a path of keys and array indices, NULL-terminated:
 * at(j, "devices", "#0", "breakdown", NULL). Fails the test when absent. */
static inline const cJSON *at(const cJSON *j, ...)
{
	va_list ap;
	const char *k;

	va_start(ap, j);
	while ((k = va_arg(ap, const char *)) != NULL) {
		if (!j)
			break;
		if (k[0] == '#')
			j = cJSON_GetArrayItem(j, (int)strtol(k + 1, NULL, 10));
		else
			j = cJSON_GetObjectItemCaseSensitive(j, k);
		if (!j)
			print_error("no member '%s'\n", k);
	}
	va_end(ap);
	assert_non_null(j);
	return j;
}

static inline void str_is(const cJSON *j, const char *want)
{
	assert_true(cJSON_IsString(j));
	assert_string_equal(j->valuestring, want);
}

#endif /* GS_TEST_JSON_AT_H */
