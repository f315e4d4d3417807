/* SPDX-License-Identifier: MIT */
/* The generators' JSON output (see jbuf.h). */
#include "jbuf.h"

#include <errno.h>
#include <string.h>
#include <zlib.h>

/* The gs_outbuf target: the plain file and/or the gzip one. */
static void jbuf_target(struct gs_outbuf *o, const char *p, size_t n, bool last)
{
	struct gs_jbuf *j = o->ctx;

	(void)last;
	if (!n)
		return;
	errno = 0;
	if (j->json && fwrite(p, 1, n, j->json) != n) {
		gs_outbuf_fail(o, errno, NULL);
		return;
	}
	if (j->gz && gzwrite(j->gz, p, (unsigned)n) != (int)n) {
		gs_outbuf_fail(o, 0, "gzwrite failed");
		return;
	}
	j->bytes += n;
}

gs_status gs_jbuf_init(struct gs_jbuf *j, FILE *json, void *gz)
{
	memset(j, 0, sizeof(*j));
	j->json = json;
	j->gz = gz;
	j->first_event = true;
	gs_outbuf_init_target(&j->o, jbuf_target, j);
	return GS_OK;
}

void gs_jbuf_fini(struct gs_jbuf *j)
{
	gs_outbuf_discard(&j->o);
}

gs_status gs_jbuf_reserve(struct gs_jbuf *j)
{
	/* A failed writer's finish returns its cause. */
	return j->o.failed ? gs_outbuf_finish(&j->o) : GS_OK;
}

gs_status gs_jbuf_flush(struct gs_jbuf *j)
{
	gs_outbuf_flush(&j->o);
	return gs_jbuf_reserve(j);
}

gs_status gs_jbuf_long(struct gs_jbuf *j, const char *s, size_t len)
{
	gs_outbuf_write(&j->o, s, len);
	return gs_jbuf_reserve(j);
}

gs_status gs_jbuf_event(struct gs_jbuf *j, const char *ph, const char *cat, const char *name,
			int64_t pid, int64_t tid, int64_t ts, int64_t dur)
{
	struct gs_outbuf *o = &j->o;
	gs_status rc = gs_jbuf_reserve(j);

	if (rc)
		return rc;
	gs_outbuf_puts(o, j->first_event ? "\n  {\n" : ",\n  {\n");
	j->first_event = false;
	gs_outbuf_puts(o, "    \"ph\": \"");
	gs_outbuf_puts(o, ph);
	gs_outbuf_puts(o, "\", \"cat\": \"");
	gs_outbuf_puts(o, cat);
	gs_outbuf_puts(o, "\", \"name\": \"");
	gs_outbuf_puts(o, name);
	gs_outbuf_puts(o, "\", \"pid\": ");
	gs_outbuf_i64(o, pid);
	gs_outbuf_puts(o, ", \"tid\": ");
	gs_outbuf_i64(o, tid);
	gs_outbuf_puts(o, ",\n    \"ts\": ");
	gs_jbuf_us(j, ts);
	if (dur >= 0) {
		gs_outbuf_puts(o, ", \"dur\": ");
		gs_jbuf_us(j, dur);
	}
	return GS_OK;
}
