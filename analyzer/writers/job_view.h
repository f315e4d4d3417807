/* SPDX-License-Identifier: MIT */
/*
 * Internal: what the job analysis's writers share (job_view.c; the writers
 * are job_text.c, job_json.c and job_html.c): the metrics' names, the
 * formatting of values, and which GPUs a report of many ranks shows.
 */
#ifndef GS_ANALYZER_JOB_VIEW_H
#define GS_ANALYZER_JOB_VIEW_H

#include <gpuscope/job_results.h>
#include <gpuscope/report_phrases.h>

#include "report_write_priv.h"

#define JSON_COLLECTIVES 1000 /* collectives listed in the JSON, by skew */
#define JSON_RANK_ROWS 100000 /* ... and their rows of ranks, at most */

/* How each metric is named and written. */
struct job_metric_info {
	const char *key;   /* JSON */
	const char *label; /* text, HTML */
	bool ns;           /* a duration (else a fraction) */
};

extern const struct job_metric_info job_metric_info[GS_JOB_METRIC_COUNT];

/* The unit of the comparable times of the text line being written (0:
 * each its own): a line never mixes ms and s. Set by LINE_UNIT, reset to 0
 * at the end of the line. */
extern _Thread_local uint64_t job_line_unit;

const char *job_dur_text(char *buf, size_t size, int64_t ns);
void job_set_line_unit(const int64_t *v, size_t n);

#define LINE_UNIT(...)                                                                             \
	job_set_line_unit((const int64_t[]){__VA_ARGS__},                                          \
			  sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))

#define DUR(ns) job_dur_text((char[48]){0}, 48, (ns))
#define PCT(a, b) gs_report_pct((char[32]){0}, 32, (a), (b))

/* A fraction as a percentage with one decimal; "n/a" when not finite. */
const char *job_frac_text(char *buf, size_t size, double v);
/* Bytes per ns is GB/s; "-" when not finite. */
const char *job_bw_text(char *buf, size_t size, double gbps);
/* A metric's value: a duration, an efficiency or a fraction. */
const char *job_metric_text(char *buf, size_t size, enum gs_job_metric m, double v);
/* "12.000 ms (rank 3)"; "(rank 3:1)" for GPU 1 of a rank with several. */
const char *job_stat_cell(char *buf, size_t size, const struct gs_job_analysis *ja,
			  const struct gs_job_stat *s, enum gs_job_metric m, int which);
/* "0.92", or "n/a" (gs_report_eff_text of the summary's numbers). */
const char *job_eff_text(const struct gs_js_gpu *d, char *buf, size_t size);

#define FRAC(v) job_frac_text((char[32]){0}, 32, (v))
#define BW(v) job_bw_text((char[32]){0}, 32, (v))

/* The text that names a GPU in a finding: "rank 3" ("rank 3 GPU 1" when
 * the rank has several). */
const char *job_gpu_name(char *buf, size_t size, const struct gs_job_gpu *g);

/* A finding in words: its sentence and its advice (malloc'd; NULL when
 * out of memory). */
char *job_finding_text(const struct gs_job_analysis *ja, const struct gs_job_finding *f);
char *job_finding_advice(const struct gs_job_analysis *ja, const struct gs_job_finding *f);

#define OUTLIER_STRAGGLER GS_JOB_METRIC_COUNT /* job_outlier.by of a straggler's GPU */

struct job_outlier {
	size_t gpu;   /* index into ja->gpus */
	unsigned by;  /* the metric farthest beyond its bound; OUTLIER_STRAGGLER */
	double score; /* |v - median| / bound on it (> 1); 0 for a straggler's */
};

/* What a writer shows of the job's GPUs with a style. */
struct job_view {
	bool all;                 /* every GPU fits the rank table (or --ranks all) */
	size_t limit;             /* outliers shown at most */
	struct job_outlier *outs; /* every outlier, in the order of choice */
	size_t n_outs;
	size_t n_shown;     /* the first n_shown of outs are shown */
	unsigned *why;      /* per GPU: its outlier's `by` when shown, else UINT_MAX */
	bool *rank_shown;   /* per rank: a GPU of it is shown (all: every rank) */
	size_t ranks_shown; /* ... how many */
};

/* The view of the job with at most `limit` outliers shown (job_view.c
 * says how they are chosen). */
gs_status job_view_make(const struct gs_job_analysis *ja, size_t limit, struct job_view *v);
void job_view_free(struct job_view *v);
/* Why a GPU is an outlier, in words ("straggler", "idle share"). */
const char *job_outlier_word(unsigned by);

#endif /* GS_ANALYZER_JOB_VIEW_H */
