/* SPDX-License-Identifier: MIT */
/*
 * Recognising a trace by its content, never by its name: each importer's
 * test (importers.c) on the first GS_DETECT_HEAD bytes, read once, so that
 * a pipe is recognised from bytes the loader keeps and hands on to the
 * reader.
 */
#include "import_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void gs_detect_head(const unsigned char *head, size_t n, enum gs_input_format *fmt,
		    const char **why)
{
	*fmt = GS_INPUT_UNKNOWN;
	*why = NULL;
	if (n == 0) {
		*why = "empty file";
		return;
	}
	for (size_t i = 0; i < gs_n_importers; i++) {
		const char *w = NULL;

		if (gs_importers[i].sniff(head, n, &w)) {
			*fmt = gs_importers[i].format;
			*why = NULL;
			return;
		}
		if (w && !*why)
			*why = w;
	}
}

bool gs_detect_name_hint(const char *name, char *buf, size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; name && i < gs_n_importers; i++)
		if (gs_importers[i].name_hint && gs_importers[i].name_hint(name, buf, size))
			return true;
	buf[0] = '\0';
	return false;
}

gs_status gs_detect_read_head(int fd, const char *name, unsigned char *head, size_t cap, size_t *n)
{
	*n = 0;
	while (*n < cap) {
		ssize_t r = read(fd, head + *n, cap - *n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			gs_error_append("%s: read failed: %s", name, strerror(errno));
			return GS_ERR_IO;
		}
		if (r == 0)
			break;
		*n += (size_t)r;
	}
	return GS_OK;
}

gs_status gs_detect_format_why(const char *path, enum gs_input_format *fmt, const char **why)
{
	unsigned char head[GS_DETECT_HEAD];
	size_t n;
	gs_status rc;
	int fd;

	*fmt = GS_INPUT_UNKNOWN;
	*why = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		gs_error_append("%s: cannot open: %s", path, strerror(errno));
		return GS_ERR_IO;
	}
	rc = gs_detect_read_head(fd, path, head, sizeof(head), &n);
	close(fd);
	if (rc)
		return rc;
	gs_detect_head(head, n, fmt, why);
	return GS_OK;
}

gs_status gs_detect_format(const char *path, enum gs_input_format *fmt)
{
	const char *why;

	return gs_detect_format_why(path, fmt, &why);
}
