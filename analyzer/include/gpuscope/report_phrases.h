/* SPDX-License-Identifier: MIT */
/*
 * gpuscope/report_phrases.h: the report's phrases, sentences and figures
 * for people, made from the results model (gpuscope/results.h): the
 * efficiency, a what-if, the gap by cause, the steps line, a device's
 * title and window, a rank's notes, percentages, durations and op labels.
 * The findings' sentences, the job summaries' notes and every writer say
 * them alike (report_helpers.c). Each writes into the caller's buffer and
 * returns it; nothing here prints.
 */
#ifndef GPUSCOPE_REPORT_PHRASES_H
#define GPUSCOPE_REPORT_PHRASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuscope/results.h>
#include <gpuscope/trace.h>
#include <gpuscope/whatif.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gs_report;

/* The efficiency as text and HTML print it: "0.92", or "n/a". Returns buf. */
const char *gs_report_eff_text(const struct gs_report_device *d, char *buf, size_t size);

/* A what-if for people, led by its saving beyond the ideal schedule, the
 * rest named as host/launch time ("0 ns beyond the ideal; its 3.598 ms
 * saving is host/launch time the ideal already removes"); one_batch: the
 * pipelined what-if of a single batch, which has nothing to pipeline.
 * Its durations are marked (GS_DUR_OWN_FMT) for the writer to write out
 * (gs_dur_sentence). Returns buf. */
const char *gs_report_whatif_text(const struct gs_what_if *w, bool one_batch, char *buf,
				  size_t size);

/* How the ideal schedule modelled the device, for people: "kernels by
 * occupancy: side by side while their shares of the SMs fit; copy engines
 * HtoD 1, DtoH 1". Returns buf. */
const char *gs_report_ideal_model_text(const struct gs_report_device *d, bool engines_known,
				       char *buf, size_t size);

/* actual - ideal by cause, for people: "actual - ideal: host_bound
 * 3.000 us 27%, launch_latency 8.000 us 73%". Returns buf. */
const char *gs_report_gap_text(const struct gs_report_device *d, char *buf, size_t size);

/* The steps line of a report's head: "steps 6..9, 4 of 6 (ProfilerStep#N
 * ranges); step 5 left out as warm-up; step 10 partial, left out; ..."
 * ("" without steps). Returns buf. */
const char *gs_report_steps_text(const struct gs_report *r, char *buf, size_t size);

/* The title of a device's section: "device 0: NAME" alone, "rank 3 ·
 * node7 · pid 4242 · GPU 0 NAME" in a job of two or more ranks. */
const char *gs_report_device_title(const struct gs_report *r, const struct gs_report_device *d,
				   char *buf, size_t size);

/* A loading warning that a caution of the report says again, more fully
 * (text and HTML show the caution only; JSON keeps both). */
bool gs_report_warning_restated(const struct gs_report *r, const struct gs_warning *w);

/* A device's window for people, relative to the first op of the trace
 * (absolute ns stay in the JSON): "+0.000 ms .. +3.659 ms into the trace:
 * 3.659 ms", in one unit. Returns buf. */
const char *gs_report_window_text(const struct gs_trace *t, const struct gs_report_device *d,
				  char *buf, size_t size);

/* The notes of a device on what its recording contradicts (text and HTML),
 * NULL when not due: RETURNED, copies whose call returned before they
 * ended ("note"); RECORDED, dependencies whose consumer started before the
 * producer ended ("caution"; not when the inconsistent_schedule finding
 * says it already). */
enum gs_report_early {
	GS_REPORT_EARLY_RETURNED,
	GS_REPORT_EARLY_RECORDED
};
const char *gs_report_early_note(const struct gs_report *r, const struct gs_report_device *d,
				 enum gs_report_early which, char *buf, size_t size);

/* The cautions of a rank about waits its trace does not link, with the
 * profiler option that records them (text and HTML), NULL when not due:
 * WAITS, stream waits whose event record the trace lacks; CALLS,
 * cudaStreamWaitEvent calls with no sync record at all. */
enum gs_report_unlinked {
	GS_REPORT_UNLINKED_WAITS,
	GS_REPORT_UNLINKED_CALLS
};
const char *gs_report_unlinked_note(const struct gs_report *r, enum gs_report_unlinked which,
				    char *buf, size_t size);

/* The note of a rank on its possible data dependencies (gs_graph's
 * segment_edges: two ops on a caching allocator's segment whose ranges are
 * not known to meet), with what the report leaves them out of (text and
 * HTML); NULL when the graph has none. */
const char *gs_report_segment_note(const struct gs_report *r, char *buf, size_t size);

/* "41.0%" of part in whole (one decimal, rounded); "0.0%" when whole <= 0. */
const char *gs_report_pct(char *buf, size_t size, int64_t part, int64_t whole);
/* A duration for people as the text report writes it, but "µs" for "us"
 * (the HTML pages). Returns buf. */
const char *gs_report_dur_utf8(char *buf, size_t size, int64_t ns);

/* What to call an op in a table: a kernel by name, a copy by direction,
 * size and host memory ("HtoD 8.0 MiB pageable"), a memset by size
 * ("memset 64.0 KiB"); "?" for an index out of range. Returns buf or a
 * string of the trace. */
const char *gs_report_op_label(const struct gs_trace *t, uint32_t op, char *buf, size_t size);

/* The notes of one rank's report on what its trace could not show
 * (dropped records, loading warnings a caution does not restate, waits it
 * could not link, optimistic schedules, what its recording contradicts,
 * possible data dependencies left out),
 * each to fn with its label ("caution", "warning" or "note"), in the
 * order the text report prints them. */
void gs_report_notes(const struct gs_report *r,
		     void (*fn)(void *ctx, const char *label, const char *text), void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_REPORT_PHRASES_H */
