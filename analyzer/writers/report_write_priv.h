/* SPDX-License-Identifier: MIT */
/*
 * Internal: what the writers share across formats and files: the style
 * resolved, the line under a cut list, and the helpers of one writer that
 * the job sections (job_text.c, job_json.c, job_html.c) and the measures
 * and operators sections (measures_out.c, operators_out.c) use too, and
 * what the three writers share of a job's report written whole or from
 * parts (report_job_parts.c). It reads the report through public headers
 * only (gpuscope/results.h), as the writers do; the analyses never include
 * it.
 */
#ifndef GS_ANALYZER_REPORT_WRITE_PRIV_H
#define GS_ANALYZER_REPORT_WRITE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuscope/report.h>
#include <gpuscope/results.h>

struct gs_outbuf;
struct gs_json;

/* The report a writer writes of r: a job of one rank (not numbered as one
 * of a job) reads as that rank's report, else r itself. */
static inline const struct gs_report *gs_report_single(const struct gs_report *r)
{
	const struct gs_report *rank = gs_results_rank(r, 0);
	struct gs_results_process p;

	if (!gs_results_job(r) || gs_results_rank_count(r) != 1 || !rank)
		return r;
	gs_results_process(rank, &p);
	return p.in_job ? r : rank;
}

/* Sizes of the derived tables. */
#define GS_REPORT_DEFAULT_TOP 10

/* A writer's style with its defaults filled in (st NULL: all defaults;
 * top 0: GS_REPORT_DEFAULT_TOP; ranks 0: the top given, else
 * GS_REPORT_DEFAULT_RANKS). The writers' internal functions take the
 * resolved style. */
static inline struct gs_report_style gs_report_style_of(const struct gs_report_style *st)
{
	struct gs_report_style s = {GS_REPORT_DEFAULT_TOP, false, GS_REPORT_DEFAULT_RANKS};

	if (st) {
		s.top = st->top ? st->top : GS_REPORT_DEFAULT_TOP;
		s.color = st->color;
		s.ranks = st->ranks ? st->ranks : st->top ? st->top : GS_REPORT_DEFAULT_RANKS;
	}
	return s;
}

/* The line under a per-op list cut to --rows: shown, of count, with
 * listed kept (text and HTML say the same). */
#define GS_REPORT_CUT_FMT                                                                          \
	"%zu of %zu shown (--top N; the report keeps %zu, --rows N or --rows all for more)"

/* Text report helpers (report_text.c), for the job section (job_text.c)
 * and the measures and operators tables: words of `s` over lines of 100
 * columns, the first after `first` (already `col0` columns), the rest
 * indented by `indent`; and `s` made printable and cut to `cols` columns
 * with "…" (returns the columns). */
void gs_report_text_wrap(struct gs_outbuf *o, const char *first, size_t col0, const char *s,
			 size_t indent);
size_t gs_report_text_fit(char *buf, size_t size, const char *s, size_t cols);

/* HTML helpers (report_html.c): `s` as HTML text, safe in content and in
 * quoted attributes (& < > " ' escaped, control bytes and invalid UTF-8
 * as U+FFFD), cut to `max` code points with "…" (0: no cut); and a
 * sentence with duration marks (gs_dur_sentence, written with "µs"). */
void gs_report_html_text(struct gs_outbuf *o, const char *s, size_t max);
void gs_report_html_sentence(struct gs_outbuf *o, const char *s);

/* A finding as a JSON row (report_json.c): kind, ns, evidence, numbers,
 * text, advice, advice_kind. */
void gs_report_json_finding(struct gs_json *w, const char *kind, int64_t ns,
			    const struct gs_finding_data *d, const char *text, const char *advice);

/* ---- a job's report, written whole or from parts (report_job_parts.c) ---- */

/* What a job's head counts over its ranks (gs_results_job_rank of each). */
struct gs_report_job_totals {
	size_t ranks;
	size_t gpus;
	uint64_t ops;
	uint64_t dropped; /* saturating */
	uint64_t streams;
};
void gs_report_job_totals(const struct gs_report *job, struct gs_report_job_totals *out);

/* The ranks whose GPU sections a job's text and HTML reports show
 * (gs_report_text_job_shown): *shown a slot per rank of the n (malloc'd;
 * every one without a job analysis), *n_shown how many. */
gs_status gs_report_job_shown(const struct gs_report *job, const struct gs_report_style *st,
			      size_t n, bool **shown, size_t *n_shown);

/* The bytes that part() of gpuscope/report_parts.h handed over with st,
 * taken over: written to o when st is GS_OK, less a leading comma when
 * drop_comma (the first member of a JSON list), then freed. Returns
 * whether any byte went to o. */
bool gs_report_put_part(struct gs_outbuf *o, gs_status st, char *bytes, size_t len,
			bool drop_comma);

/* The job sections of the text, JSON ("job" member) and HTML reports
 * (job_text.c, job_json.c, job_html.c); nothing without a job analysis. */
void gs_job_analysis_write_text(struct gs_outbuf *o, const struct gs_report *job,
				const struct gs_report_style *st);
void gs_job_analysis_write_json(struct gs_json *w, const struct gs_report *job);
void gs_job_analysis_write_html(struct gs_outbuf *o, const struct gs_report *job,
				const struct gs_report_style *st);

#endif /* GS_ANALYZER_REPORT_WRITE_PRIV_H */
