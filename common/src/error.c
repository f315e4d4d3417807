/* SPDX-License-Identifier: MIT */
/* Error causes: a small thread-local stack of messages (innermost first). */
#include <gpuscope/error.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct gs_error_cause {
	char msg[GS_ERROR_MSG_MAX];
	const char *file;
	int line;
};

static _Thread_local struct gs_error_cause causes[GS_ERROR_MAX_CAUSES];
static _Thread_local int ncauses;

const char *gs_status_str(gs_status st)
{
	switch (st) {
	case GS_OK:
		return "success";
	case GS_END:
		return "end of data";
	case GS_ERR_IO:
		return "I/O error";
	case GS_ERR_NOMEM:
		return "out of memory";
	case GS_ERR_FORMAT:
		return "malformed input";
	case GS_ERR_VERSION:
		return "unsupported version";
	case GS_ERR_LIMIT:
		return "limit exceeded";
	case GS_ERR_INVALID:
		return "invalid argument";
	case GS_ERR_UNSUPPORTED:
		return "not supported";
	}
	return "unknown status";
}

void gs_error_clear(void)
{
	ncauses = 0;
}

void gs_error_append_at(const char *file, int line, const char *fmt, ...)
{
	struct gs_error_cause *c;
	va_list ap;

	if (ncauses == GS_ERROR_MAX_CAUSES) {
		/* Keep the innermost cause and the newest context. */
		memmove(&causes[1], &causes[2], sizeof(causes[0]) * (GS_ERROR_MAX_CAUSES - 2));
		ncauses--;
	}
	c = &causes[ncauses++];
	c->file = file;
	c->line = line;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
}

void gs_error_truncate(int count)
{
	if (count >= 0 && count < ncauses)
		ncauses = count;
}

int gs_error_count(void)
{
	return ncauses;
}

const char *gs_error_message(int index)
{
	if (index < 0 || index >= ncauses)
		return "";
	return causes[index].msg;
}

const char *gs_error_format(char *buf, size_t size)
{
	size_t used = 0;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (int i = ncauses - 1; i >= 0 && used + 1 < size; i--) {
		int n = snprintf(buf + used, size - used, "%s%s", used ? ": " : "", causes[i].msg);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	if (ncauses == 0)
		snprintf(buf, size, "unknown error");
	return buf;
}
