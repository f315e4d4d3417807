/* SPDX-License-Identifier: MIT */
/*
 * Collector logging (see log.h). Lines are formatted into a stack buffer and
 * written with one write(2) so that lines from several threads never mix;
 * stdio is not used (a program's stdout/stderr buffers stay untouched).
 */
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LINE_MAX_LEN 1024

static atomic_int log_level = GS_LOG_WARN;
static atomic_int disabled_said;
static char status_path[4096];
static atomic_bool status_set;

void gs_log_set_level(int level)
{
	atomic_store(&log_level, level);
}

int gs_log_get_level(void)
{
	return atomic_load(&log_level);
}

/* PREFIX + FMT into line (control characters as '?', a '\n' at the end):
 * its length. */
static size_t format_line(char *line, size_t size, const char *prefix, const char *fmt, va_list ap)
{
	size_t n;
	int k;

	k = snprintf(line, size, "%s", prefix);
	n = k < 0 ? 0 : (size_t)k;
	if (n < size) {
		k = vsnprintf(line + n, size - n, fmt, ap);
		if (k > 0)
			n += (size_t)k;
	}
	if (n >= size - 1)
		n = size - 2;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)line[i] < 0x20 && line[i] != '\t')
			line[i] = '?';
	line[n++] = '\n';
	return n;
}

static void write_all(int fd, const char *p, size_t n)
{
	for (size_t off = 0; off < n;) {
		ssize_t w = write(fd, p + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
}

static void emit(const char *prefix, const char *fmt, va_list ap)
{
	char line[LINE_MAX_LEN];
	int saved = errno;
	size_t n = format_line(line, sizeof(line), prefix, fmt, ap);

	write_all(STDERR_FILENO, line, n);
	errno = saved;
}

static void status_emit(const char *prefix, const char *fmt, va_list ap)
{
	char line[LINE_MAX_LEN];
	int saved = errno;
	size_t n;
	int fd;

	if (!atomic_load(&status_set))
		return;
	n = format_line(line, sizeof(line), prefix, fmt, ap);
	fd = open(status_path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd >= 0) {
		struct stat sb;

		/* One write: O_APPEND keeps each line whole among processes. A
		 * line that cannot be written is lost: record then says less. */
		if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
			ssize_t w = write(fd, line, n);

			(void)w;
		}
		close(fd);
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
	char prefix[64];
	va_list ap;

	if (atomic_exchange(&disabled_said, 1))
		return false;
	snprintf(prefix, sizeof(prefix), "disabled %ld ", (long)getpid());
	va_start(ap, fmt);
	status_emit(prefix, fmt, ap);
	va_end(ap);
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

void gs_log_set_status_file(const char *path)
{
	atomic_store(&status_set, false);
	if (!path || !*path || strlen(path) >= sizeof(status_path))
		return;
	memcpy(status_path, path, strlen(path) + 1);
	atomic_store(&status_set, true);
}

void gs_log_status(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	status_emit("", fmt, ap);
	va_end(ap);
}
