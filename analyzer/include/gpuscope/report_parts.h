/* SPDX-License-Identifier: MIT */
/*
 * gpuscope/report_parts.h: a job's report written from parts, where the
 * ranks' reports live in other processes (gpuscope-mpi).
 *
 * `shell` is a job report whose ranks' reports live elsewhere
 * (gs_report_build_job_own with no rank its own, its job analysis from
 * gs_report_job_reduce, gpuscope/job_summary.h). The writer writes the
 * shell's own parts and asks part() for the sections of each rank, in
 * rank order: the bytes that the rank's process rendered with the
 * gs_report_*_rank_part of the same format and style. part() hands them
 * over in *bytes (malloc'd, NUL-terminated, *len bytes before the NUL;
 * the writer frees them); a status other than GS_OK ends the writing with
 * it. A write that fails does not end the asking: every part is asked
 * for, and the failure is the writer's status at the end. The result is
 * byte for byte what gs_report_write_* writes of the whole job report.
 */
#ifndef GPUSCOPE_REPORT_PARTS_H
#define GPUSCOPE_REPORT_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gpuscope/report.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gs_report;

/* Text: part() is asked only for the ranks whose sections are shown, as
 * gs_report_text_job_shown says with the same style. */
gs_status gs_report_text_job_parts(
	FILE *f, const struct gs_report *shell, const struct gs_report_style *style,
	gs_status (*part)(void *ctx, size_t i, char **bytes, size_t *len), void *ctx);
/* The ranks (a slot each in shown[], by index in rank order) whose GPU
 * sections a job's text report shows with `style`: every one when every
 * GPU's row fits the rank table, else the ranks of the outliers it lists.
 * *n_shown: how many. Decided from the shell's job analysis. */
gs_status gs_report_text_job_shown(const struct gs_report *shell,
				   const struct gs_report_style *style, bool *shown,
				   size_t *n_shown);
/* Every device section of one rank. */
gs_status gs_report_text_rank_part(FILE *f, const struct gs_report *rank,
				   const struct gs_report_style *style);

/* JSON: GS_JSON_PARTS parts per rank (loading warnings, trace.ranks row,
 * devices, waits). Each member of a part starts with its comma, which the
 * writer leaves out before the first member of a list. */
#define GS_JSON_PARTS 4
gs_status gs_report_json_job_parts(FILE *f, const struct gs_report *shell,
				   const struct gs_report_style *style,
				   gs_status (*part)(void *ctx, unsigned part, size_t i,
						     char **bytes, size_t *len),
				   void *ctx);
gs_status gs_report_json_rank_part(FILE *f, const struct gs_report *rank, unsigned part);

/* HTML. The drawing resolution of a page is decided from the load of all
 * its ranks, kept in their summaries: gs_report_html_job_layout of the
 * shell, handed to every process that renders a rank's parts. */
struct gs_html_layout {
	uint64_t exact; /* every op drawn one by one, else binned */
	uint64_t bins;  /* slices per lane when binned */
};
struct gs_html_layout gs_report_html_job_layout(const struct gs_report *shell);
/* A rank's load on the HTML page (report_helpers.c), kept in its summary
 * so that a page's drawing resolution can be decided from the summaries:
 * its ops on its reported devices and the lanes drawn, each device's
 * busiest GS_HTML_LANES_MAX streams of ops in two lanes (actual and ideal)
 * and its breakdown band. */
#define GS_HTML_LANES_MAX 32
void gs_report_html_rank_load(const struct gs_report *rank, uint64_t *ops, uint64_t *lanes);
/* The load of rank i of a job's report (gs_results_job_rank: from its
 * report, else from its summary); 0 out of range. */
void gs_report_job_rank_html_load(const struct gs_report *job, size_t i, uint64_t *ops,
				  uint64_t *lanes);
/* The layout of a page of that load: exact up to a few thousand ops, else
 * binned to a budget of slices over all lanes. */
struct gs_html_layout gs_report_html_layout(uint64_t ops, uint64_t lanes);
/* GS_HTML_PARTS parts per rank: its warnings (items of the page's notes)
 * and its GPUs' sections; `di0` is the index of the rank's first GPU on
 * the page (the GPUs of the ranks before it, gs_report_job_rank_gpus). */
#define GS_HTML_PARTS 2
gs_status gs_report_html_job_parts(FILE *f, const struct gs_report *shell,
				   const struct gs_html_layout *L,
				   const struct gs_report_style *style,
				   gs_status (*part)(void *ctx, unsigned part, size_t i,
						     char **bytes, size_t *len),
				   void *ctx);
gs_status gs_report_html_rank_part(FILE *f, const struct gs_report *rank,
				   const struct gs_html_layout *L, size_t di0, unsigned part,
				   const struct gs_report_style *style);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_REPORT_PARTS_H */
