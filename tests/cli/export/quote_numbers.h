/* SPDX-License-Identifier: MIT */
/*
 * The export checkers' reading of JSON: every number outside strings
 * turned into a string of its text, so that cJSON keeps every digit of
 * an epoch-ns time (a double would not). Header-only.
 */
#ifndef GS_TEST_QUOTE_NUMBERS_H
#define GS_TEST_QUOTE_NUMBERS_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The JSON text s[0, n) so changed, NUL-terminated (its length in
 * *out_len; the caller frees it); NULL without memory. */
static inline char *quote_numbers(const char *s, size_t n, size_t *out_len)
{
	char *o = malloc(n * 3 + 1);
	size_t k = 0;
	bool in_str = false;

	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (in_str) {
			o[k++] = c;
			if (c == '\\' && i + 1 < n)
				o[k++] = s[++i];
			else if (c == '"')
				in_str = false;
			continue;
		}
		if (c == '"') {
			in_str = true;
			o[k++] = c;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			o[k++] = '"';
			while (i < n && s[i] && strchr("-+.eE0123456789", s[i]))
				o[k++] = s[i++];
			i--;
			o[k++] = '"';
		} else {
			o[k++] = c;
		}
	}
	o[k] = '\0';
	*out_len = k;
	return o;
}

#endif
