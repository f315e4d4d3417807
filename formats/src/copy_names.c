/* SPDX-License-Identifier: MIT */
/* Copy and memset names, as Kineto writes them (copy_names.h). */
#include "copy_names.h"

#include <gpuscope/trace_model.h>

#include <string.h>

uint8_t gs_mem_kind_parse(const char *s, size_t n)
{
	static const struct {
		const char *name;
		uint8_t kind;
	} kinds[] = {
		{"Pageable", GS_MEM_PAGEABLE},
		{"Pinned", GS_MEM_PINNED},
		{"Device Static", GS_MEM_DEVICE},
		{"Device", GS_MEM_DEVICE},
		{"Managed Static", GS_MEM_MANAGED},
		{"Managed", GS_MEM_MANAGED},
		{"Array", GS_MEM_ARRAY},
	};

	while (n && s[0] == ' ') {
		s++;
		n--;
	}
	while (n && s[n - 1] == ' ')
		n--;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strlen(kinds[i].name) == n && memcmp(kinds[i].name, s, n) == 0)
			return kinds[i].kind;
	return GS_MEM_UNKNOWN;
}

/* The memory a direction letter implies: device and peer memory are
 * device memory; host memory could be pageable or pinned. */
static uint8_t side_mem(char c)
{
	return c == 'D' || c == 'P' ? GS_MEM_DEVICE : c == 'A' ? GS_MEM_ARRAY : GS_MEM_UNKNOWN;
}

/* "HtoD" and friends (4 bytes at d). */
static bool copy_dir(const char *d, uint8_t *ck, uint8_t *src, uint8_t *dst)
{
	char a = d[0], b = d[3];

	if (!a || !b || d[1] != 't' || d[2] != 'o' || !strchr("HDAP", a) || !strchr("HDAP", b))
		return false;
	if (a == 'P' || b == 'P')
		*ck = a == b ? GS_COPY_PTOP : GS_COPY_UNKNOWN;
	else if (a == 'H' && b == 'H')
		*ck = GS_COPY_HTOH;
	else if (a == 'H')
		*ck = GS_COPY_HTOD;
	else if (b == 'H')
		*ck = GS_COPY_DTOH;
	else
		*ck = GS_COPY_DTOD;
	*src = side_mem(a);
	*dst = side_mem(b);
	return true;
}

bool gs_copy_name_parse(const char *s, size_t n, const char *kind, uint8_t *ck, uint8_t *src,
			uint8_t *dst)
{
	const char *lp, *rp, *arrow = NULL;
	bool found = false;

	for (size_t i = 0; i + 4 <= n && !found; i++)
		found = (i == 0 || s[i - 1] == ' ') && (i + 4 == n || s[i + 4] == ' ') &&
			copy_dir(s + i, ck, src, dst);
	if (!found && kind && strlen(kind) == 4)
		found = copy_dir(kind, ck, src, dst);
	if (!found)
		return false;
	lp = memchr(s, '(', n);
	rp = lp ? memchr(lp, ')', n - (size_t)(lp - s)) : NULL;
	if (!rp)
		return true;
	for (const char *q = lp + 1; q + 2 <= rp; q++) {
		if (q[0] == '-' && q[1] == '>') {
			arrow = q;
			break;
		}
	}
	if (arrow) {
		*src = gs_mem_kind_parse(lp + 1, (size_t)(arrow - lp - 1));
		*dst = gs_mem_kind_parse(arrow + 2, (size_t)(rp - arrow - 2));
	}
	return true;
}

uint8_t gs_memset_name_parse(const char *s, size_t n)
{
	const char *lp = memchr(s, '(', n);
	const char *rp = lp ? memchr(lp, ')', n - (size_t)(lp - s)) : NULL;

	return rp ? gs_mem_kind_parse(lp + 1, (size_t)(rp - lp - 1)) : GS_MEM_UNKNOWN;
}
