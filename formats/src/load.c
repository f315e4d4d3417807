/* SPDX-License-Identifier: MIT */
/* Loading any supported trace, recognised by content, into a trace. */
#include "import_priv.h"
#include "progress_sink.h"

#include <stddef.h>

gs_status gs_trace_load_into(const char *path, const struct gs_load_options *opts,
			     struct gs_trace *t, enum gs_input_format *fmt)
{
	enum gs_input_format f;
	struct gs_reader *r = NULL;
	struct gs_limit_sink ls;
	struct gs_progress_sink ps;
	struct gs_sink *sink;
	const char *why;
	gs_status rc;

	if (fmt)
		*fmt = GS_INPUT_UNKNOWN;
	if (!path || !t) {
		gs_error_append("gs_trace_load_into: no %s", path ? "trace" : "path");
		return GS_ERR_INVALID;
	}
	rc = gs_detect_format_why(path, &f, &why);
	if (rc)
		return rc;
	if (fmt)
		*fmt = f;
	/* Every format is held to the limits they share (limits.c). Each
	 * reader names the file and the place (byte, chunk, table) of what the
	 * limits refuse. */
	gs_limit_sink_init(&ls, gs_trace_borrow_sink(t), NULL, opts ? opts->limits : NULL);
	sink = &ls.sink;
	if (opts && opts->progress) {
		gs_progress_sink_init(&ps, sink, opts->progress, opts->progress_user);
		sink = &ps.sink;
	}
	/* The outermost sink is ours: every source skips a NULL callback. */
	if (opts && (opts->load_flags & GS_LOAD_SKIP_RANGES))
		sink->range = NULL;
	switch (f) {
	case GS_INPUT_GSCOPE:
		rc = gs_reader_open(path, opts ? opts->reader_flags : 0, &r);
		if (!rc)
			rc = gs_reader_read_all(r, sink);
		gs_reader_close(r);
		return rc;
	case GS_INPUT_KINETO:
		return gs_import_kineto(path, &ls.lim, sink);
	case GS_INPUT_NSYS:
		return gs_import_nsys(path, &ls.lim, sink);
	case GS_INPUT_UNKNOWN:
		break;
	}
	gs_error_append("%s: %s", path, why);
	return GS_ERR_FORMAT;
}

gs_status gs_trace_load(const char *path, const struct gs_load_options *opts, struct gs_trace **out,
			enum gs_input_format *fmt)
{
	struct gs_trace *t = NULL;
	gs_status rc;

	if (out)
		*out = NULL;
	if (!out) {
		gs_error_append("gs_trace_load: no output");
		return GS_ERR_INVALID;
	}
	rc = gs_trace_create(&t);
	if (!rc)
		rc = gs_trace_load_into(path, opts, t, fmt);
	if (!rc)
		rc = gs_trace_finish(t);
	if (rc) {
		gs_trace_destroy(t);
		return rc;
	}
	*out = t;
	return GS_OK;
}
