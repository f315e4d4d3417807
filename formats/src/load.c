/* SPDX-License-Identifier: MIT */
/* Loading any supported trace, recognised by content, into a finished trace. */
#include "import_priv.h"

#include <stddef.h>

static gs_status load_kineto(const char *path, const struct gs_load_options *opts,
			     struct gs_trace **out)
{
	struct gs_trace *t = NULL;
	gs_status rc = gs_trace_create(&t);

	if (rc)
		return rc;
	rc = gs_import_kineto(path, opts ? opts->limits : NULL, gs_trace_borrow_sink(t));
	if (!rc)
		rc = gs_trace_finish(t);
	if (rc) {
		gs_trace_destroy(t);
		return rc;
	}
	*out = t;
	return GS_OK;
}

gs_status gs_trace_load(const char *path, const struct gs_load_options *opts, struct gs_trace **out,
			enum gs_input_format *fmt)
{
	enum gs_input_format f;
	const char *why;
	gs_status rc;

	if (out)
		*out = NULL;
	if (fmt)
		*fmt = GS_INPUT_UNKNOWN;
	if (!path || !out) {
		gs_error_append("gs_trace_load: no %s", path ? "output" : "path");
		return GS_ERR_INVALID;
	}
	rc = gs_detect_format_why(path, &f, &why);
	if (rc)
		return rc;
	if (fmt)
		*fmt = f;
	switch (f) {
	case GS_INPUT_GSCOPE:
		return gs_trace_load_gscope(path, opts ? opts->reader_flags : 0, out);
	case GS_INPUT_KINETO:
		return load_kineto(path, opts, out);
	case GS_INPUT_NSYS:
		gs_error_append("%s: Nsight Systems SQLite import is not supported yet", path);
		return GS_ERR_UNSUPPORTED;
	case GS_INPUT_UNKNOWN:
		break;
	}
	gs_error_append("%s: %s", path, why);
	return GS_ERR_FORMAT;
}
