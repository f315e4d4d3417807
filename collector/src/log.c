/* SPDX-License-Identifier: MIT */
/*
 * Collector logging (see log.h). Lines are formatted into a stack buffer and
 * written with one write(2) so that lines from several threads never mix;
 * stdio is not used (a program's stdout/stderr buffers stay untouched).
 */
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LINE_MAX_LEN 1024

static atomic_int log_level = GS_LOG_WARN;
static atomic_int disabled_said;

void gs_log_set_level(int level)
{
	atomic_store(&log_level, level);
}

int gs_log_get_level(void)
{
	return atomic_load(&log_level);
}

static void emit(const char *prefix, const char *fmt, va_list ap)
{
	char line[LINE_MAX_LEN];
	int saved = errno;
	size_t n;
	int k;

	k = snprintf(line, sizeof(line), "%s", prefix);
	n = k < 0 ? 0 : (size_t)k;
	if (n < sizeof(line)) {
		k = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
		if (k > 0)
			n += (size_t)k;
	}
	if (n >= sizeof(line) - 1)
		n = sizeof(line) - 2;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)line[i] < 0x20 && line[i] != '\t')
			line[i] = '?';
	line[n++] = '\n';
	for (size_t off = 0; off < n;) {
		ssize_t w = write(STDERR_FILENO, line + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	errno = saved;
}

void gs_log_warn(const char *fmt, ...)
{
	va_list ap;

	if (atomic_load(&log_level) < GS_LOG_WARN)
		return;
	va_start(ap, fmt);
	emit("gpuscope: warning: ", fmt, ap);
	va_end(ap);
}

void gs_log_debug(const char *fmt, ...)
{
	char prefix[64];
	va_list ap;

	if (atomic_load(&log_level) < GS_LOG_DEBUG)
		return;
	snprintf(prefix, sizeof(prefix), "gpuscope: debug: [%ld] ", (long)getpid());
	va_start(ap, fmt);
	emit(prefix, fmt, ap);
	va_end(ap);
}

bool gs_log_disabled(const char *fmt, ...)
{
	va_list ap;

	if (atomic_exchange(&disabled_said, 1))
		return false;
	if (atomic_load(&log_level) < GS_LOG_WARN)
		return true;
	va_start(ap, fmt);
	emit("gpuscope: collector disabled: ", fmt, ap);
	va_end(ap);
	return true;
}

void gs_log_reset_once(void)
{
	atomic_store(&disabled_said, 0);
}
