/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the Kineto / PyTorch-profiler JSON importer (plain or
 * gzip bytes) into a trace, then the trace finished and analysed (the
 * report of every device). Small limits keep each input fast and reach the
 * limit paths; any crash, leak, hang or sanitizer report is a bug. */
#include <gpuscope/analyzer.h>
#include <gpuscope/format.h>
#include <gpuscope/import.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink_file(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	return f;
}

static void analyse(const struct gs_trace *t)
{
	struct gs_report_options o = {.top = 5};
	struct gs_report *r = NULL;
	FILE *out = sink_file();

	if (gs_report_build(t, &o, &r) == GS_OK && out) {
		gs_report_write_text(out, r);
		gs_report_write_json(out, r);
	}
	gs_report_destroy(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gs_import_limits lim;
	struct gs_trace *t = NULL;

	gs_import_limits_default(&lim);
	lim.max_depth = 32;
	lim.max_event_bytes = 1u << 20;
	lim.max_string_bytes = 64u << 10;
	lim.max_streams = 4096;
	lim.max_records = 1u << 20;
	if (gs_trace_create(&t) != GS_OK)
		return 0;
	if (gs_import_kineto_mem(data, size, "fuzz.json", &lim, gs_trace_borrow_sink(t)) == GS_OK &&
	    gs_trace_finish(t) == GS_OK)
		analyse(t);
	gs_trace_destroy(t);
	gs_error_clear();
	return 0;
}
