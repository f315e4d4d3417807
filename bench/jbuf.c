/* SPDX-License-Identifier: MIT */
/* The generators' JSON output buffer (see jbuf.h). */
#include "jbuf.h"

#include <stdlib.h>
#include <zlib.h>

gs_status gs_jbuf_init(struct gs_jbuf *j, FILE *json, void *gz)
{
	memset(j, 0, sizeof(*j));
	j->json = json;
	j->gz = gz;
	j->first_event = true;
	j->b = malloc(GS_JBUF_CAP);
	if (!j->b) {
		gs_error_append("out of memory");
		return GS_ERR_NOMEM;
	}
	return GS_OK;
}

void gs_jbuf_fini(struct gs_jbuf *j)
{
	free(j->b);
	j->b = NULL;
}

gs_status gs_jbuf_flush(struct gs_jbuf *j)
{
	if (!j->n)
		return GS_OK;
	if (j->json && fwrite(j->b, 1, j->n, j->json) != j->n) {
		gs_error_append("writing the JSON trace failed");
		return GS_ERR_IO;
	}
	if (j->gz && gzwrite(j->gz, j->b, (unsigned)j->n) != (int)j->n) {
		gs_error_append("writing the gzip JSON trace failed");
		return GS_ERR_IO;
	}
	j->bytes += j->n;
	j->n = 0;
	return GS_OK;
}

gs_status gs_jbuf_long(struct gs_jbuf *j, const char *s, size_t len)
{
	while (len) {
		size_t take = len < 4096 ? len : 4096;

		if (j->n + take + GS_JBUF_EVENT_MAX > GS_JBUF_CAP) {
			gs_status rc = gs_jbuf_flush(j);

			if (rc)
				return rc;
		}
		memcpy(j->b + j->n, s, take);
		j->n += take;
		s += take;
		len -= take;
	}
	return GS_OK;
}

gs_status gs_jbuf_event(struct gs_jbuf *j, const char *ph, const char *cat, const char *name,
			int64_t pid, int64_t tid, int64_t ts, int64_t dur)
{
	gs_status rc = gs_jbuf_reserve(j);

	if (rc)
		return rc;
	gs_jbuf_str(j, j->first_event ? "\n  {\n" : ",\n  {\n");
	j->first_event = false;
	gs_jbuf_str(j, "    \"ph\": \"");
	gs_jbuf_str(j, ph);
	gs_jbuf_str(j, "\", \"cat\": \"");
	gs_jbuf_str(j, cat);
	gs_jbuf_str(j, "\", \"name\": \"");
	gs_jbuf_str(j, name);
	gs_jbuf_str(j, "\", \"pid\": ");
	gs_jbuf_i64(j, pid);
	gs_jbuf_str(j, ", \"tid\": ");
	gs_jbuf_i64(j, tid);
	gs_jbuf_str(j, ",\n    \"ts\": ");
	gs_jbuf_us(j, ts);
	if (dur >= 0) {
		gs_jbuf_str(j, ", \"dur\": ");
		gs_jbuf_us(j, dur);
	}
	return GS_OK;
}
