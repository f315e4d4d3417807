/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the Kineto / PyTorch-profiler JSON importer (plain or
 * gzip bytes) into a trace, then the trace finished and analysed (the
 * report of every device), and the same input loaded a second time as two
 * ranks of a job (the job analysis matches their collectives). Both are
 * also exported to Perfetto's format, which must always decode as a valid
 * stream (tests/pftrace/pftrace_read.h; an invalid one aborts). Small
 * limits keep each input fast and reach the limit paths; any crash, leak,
 * hang or sanitizer report is a bug. */
#include <gpuscope/analyzer.h>
#include <gpuscope/export.h>
#include <gpuscope/format.h>
#include <gpuscope/import.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pftrace_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink_file(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	return f;
}

/* The Perfetto export of `n` ranks (with every extra the analyzer gives):
 * when it is written, it is a valid stream, or the input is a finding. */
static void export_perfetto(struct gs_trace *const *t, size_t n)
{
	struct gs_export_data *d[2] = {NULL, NULL};
	struct gs_export_rank r[2];
	struct gs_export_options o = {.with_ideal = true};
	unsigned want = GS_EXPORT_WANT_LAUNCH | GS_EXPORT_WANT_EDGES | GS_EXPORT_WANT_BREAKDOWN |
			GS_EXPORT_WANT_IDEAL;
	char *buf = NULL, err[256];
	size_t len = 0, k;
	struct pf_trace pt;
	FILE *f;
	gs_status st = GS_OK;

	for (k = 0; k < n && !st; k++) {
		st = gs_export_data_build(t[k], want, &d[k]);
		r[k] = (struct gs_export_rank){.trace = t[k],
					       .extras = gs_export_data_extras(d[k]),
					       .rank = (uint32_t)k,
					       .pid = -1};
	}
	f = st ? NULL : open_memstream(&buf, &len);
	if (f) {
		st = gs_export_perfetto_job(f, r, n, &o);
		if (fclose(f) == 0 && !st) {
			if (pf_read((const uint8_t *)buf, len, PF_KEEP_NONE, &pt, err,
				    sizeof(err))) {
				fprintf(stderr, "invalid Perfetto export: %s\n", err);
				abort();
			}
			pf_trace_free(&pt);
		}
	}
	free(buf);
	for (k = 0; k < n; k++)
		gs_export_data_destroy(d[k]);
}

static void analyse(const struct gs_trace *t)
{
	struct gs_report_options o = {0};
	struct gs_report_style st = {.top = 5};
	struct gs_report *r = NULL;
	FILE *out = sink_file();

	if (gs_report_build(t, &o, &r) == GS_OK && out) {
		gs_report_write_text(out, r, &st);
		gs_report_write_json(out, r, &st);
	}
	gs_report_destroy(r);
}

/* Two ranks of one job, both this input. */
static void analyse_job(const uint8_t *data, size_t size, const struct gs_import_limits *lim)
{
	static const char *const names[2] = {"rank0.json", "rank1.json"};
	struct gs_trace *t[2] = {NULL, NULL};
	struct gs_report_options o = {0};
	struct gs_report_style st = {.top = 5};
	struct gs_report *r = NULL;
	struct gs_job *j = NULL;
	FILE *out = sink_file();

	for (int k = 0; k < 2; k++) {
		if (gs_trace_create(&t[k]) != GS_OK ||
		    gs_import_kineto_mem(data, size, names[k], lim, gs_trace_borrow_sink(t[k])) !=
			    GS_OK ||
		    gs_trace_finish(t[k]) != GS_OK) {
			gs_trace_destroy(t[0]);
			gs_trace_destroy(t[1]);
			return;
		}
	}
	export_perfetto(t, 2);
	if (gs_job_from_traces(t, names, 2, &j) != GS_OK)
		return;
	if (gs_report_build_job(j, &o, &r) == GS_OK && out) {
		gs_report_write_text(out, r, &st);
		gs_report_write_json(out, r, &st);
		gs_report_write_html(out, r, &st);
	}
	gs_report_destroy(r);
	gs_job_destroy(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gs_import_limits lim;
	struct gs_trace *t = NULL;
	bool ok;

	gs_import_limits_default(&lim);
	lim.max_depth = 32;
	lim.max_event_bytes = 1u << 20;
	lim.max_string_bytes = 64u << 10;
	lim.max_streams = 4096;
	lim.max_records = 1u << 20;
	if (gs_trace_create(&t) != GS_OK)
		return 0;
	ok = gs_import_kineto_mem(data, size, "fuzz.json", &lim, gs_trace_borrow_sink(t)) ==
		     GS_OK &&
	     gs_trace_finish(t) == GS_OK;
	if (ok) {
		analyse(t);
		export_perfetto(&t, 1);
	}
	gs_trace_destroy(t);
	if (ok)
		analyse_job(data, size, &lim);
	gs_error_clear();
	return 0;
}
