/* SPDX-License-Identifier: MIT */
/*
 * Internal: the job analysis in two steps (job_summary.c, job_analysis.c).
 * Step one reads one rank's report and trace into a plain summary (gs_js_rank): no pointer
 * into the trace, strings copied into a pool of its own, so that it can be
 * packed into bytes and sent to another process (gpuscope-mpi). Step two
 * reduces the summaries of every rank, in rank order, into the job
 * analysis. `gpuscope analyze` and gpuscope-mpi both take these two steps,
 * so that their job analyses are the same.
 *
 * A summary holds, per GPU of the rank, the numbers of the rank table;
 * per communicator of the rank (the process group its kernels name, else
 * the collective kind, and its point-to-point kernels apart), its
 * collective kernels in start order with what matching needs (arrival,
 * end, name, message size, the kind, group size and sequence number the
 * collective declares, the compute time before it on its GPU); the rank's
 * identity and clock (wall-clock offset, clock domain); its steps (GPU
 * window and the figures of each);
 * its totals (ops, dropped records, streams), its notes for the text
 * report and its load on the HTML page (ops and lanes drawn). About 100 bytes per GPU, 48 per collective kernel, plus the
 * strings.
 */
#ifndef GS_ANALYZER_JOB_SUM_H
#define GS_ANALYZER_JOB_SUM_H

#include "report_priv.h"

#define GS_JS_NONE UINT32_MAX /* no string */

struct gs_js_gpu {
	uint32_t device;
	uint8_t efficiency_kind; /* enum gs_report_eff */
	double efficiency;
	int64_t window_ns, window_start, window_end;
	int64_t total_ns[GS_CAT_COUNT];
	uint64_t comm_kernels;
	int64_t comm_ns, comm_union_ns, comm_exposed_ns;
};

/* One collective kernel of a rank (times on its trace's clock). */
struct gs_js_kernel {
	int64_t start_ns, end_ns;
	int64_t bytes;          /* message size; -1 when unknown or no collective */
	int64_t compute_before; /* compute union on its GPU since the previous one */
	uint64_t seq;           /* the group's sequence number, with has_seq */
	uint32_t name;          /* the collective's name, else the kernel's */
	uint32_t group;         /* its process group's name, or GS_JS_NONE */
	uint32_t device;
	uint32_t group_size; /* the collective's declared group size, 0 */
	uint8_t has_col;     /* the kernel describes a collective */
	uint8_t has_seq;
	uint8_t kind_col; /* kind from the collective's name (0: unknown) */
	uint8_t kind_op;  /* kind from the kernel's name */
	uint8_t kind;     /* the kind: kind_col, else kind_op */
};

/* The collective kernels of one communicator of the rank: key (enum
 * ja_key) a process group (group), a collective kind without a group
 * (kind), or the rank's point-to-point kernels. */
struct gs_js_member {
	uint8_t key;
	uint8_t kind;
	uint32_t group;         /* JA_KEY_GROUP: the group's name */
	uint32_t e0_group_size; /* of the first kernel's collective */
	uint32_t e0_desc;       /* its group description, or GS_JS_NONE */
	uint64_t n;
	struct gs_js_kernel *k;
};

/* One step of the rank (gpuscope/steps.h; times on its trace's clock),
 * with the figures of its GPU of the longest step window where the rank's
 * report has figures for the step (has_figures). */
struct gs_js_step {
	uint64_t number;
	int64_t start_ns, end_ns; /* its GPU window; equal: no GPU work */
	int64_t idle_ns;          /* with has_figures */
	int64_t gap_cause_ns;
	double efficiency; /* NaN when not available */
	uint32_t device;
	uint8_t selected, partial, has_figures;
	uint8_t gap_cause; /* GS_GAP_CAUSE_COUNT: none */
};

/* A note of the text report: label ("caution", "warning", "note"). */
struct gs_js_note {
	uint32_t label;
	uint32_t text;
};

struct gs_js_rank {
	uint32_t rank;
	uint32_t clock_group;
	uint32_t clock_domain;
	bool rank_declared;
	bool host_from_name;
	uint8_t clock;          /* enum gs_clock_source */
	int64_t wall_offset_ns; /* its times + this = UTC ns (0 unknown) */
	uint32_t world_size;    /* declared; 0 unknown */
	int64_t pid;
	uint32_t host; /* "" when unknown (never GS_JS_NONE) */
	uint64_t ops, dropped, streams;
	uint64_t html_ops, html_lanes; /* the rank's load on the HTML page */
	struct gs_js_gpu *gpus;
	uint64_t n_gpus;
	struct gs_js_member *m;
	uint64_t n_m;
	struct gs_js_note *notes;
	uint64_t n_notes;
	struct gs_js_step *steps; /* by host start, as the report's */
	uint64_t n_steps;
	char *pool; /* NUL-terminated strings; ids are offsets */
	uint64_t pool_len, pool_cap;
};

static inline const char *gs_js_str(const struct gs_js_rank *r, uint32_t id)
{
	return id == GS_JS_NONE || id >= r->pool_len ? "" : r->pool + id;
}

/* Step one: the summary of one rank's report (r->t its trace). */
gs_status gs_js_extract(const struct gs_report *r, struct gs_js_rank **out);
/* Step two: the job analysis of n summaries, in rank order (taken over,
 * freed with the analysis, also on failure); align: enum
 * gs_report_align. */
gs_status gs_js_reduce(struct gs_js_rank **sums, size_t n, uint32_t n_clock_groups, int align,
		       struct gs_job_analysis **out);
void gs_js_free(struct gs_js_rank *r);
/* gs_report_build_job of the ranks with own[i] only (the others' traces
 * may be NULL), and no job analysis: a process's share of a job. */
gs_status gs_report_build_job_own(const struct gs_job *j, const struct gs_report_options *o,
				  const bool *own, struct gs_report **out);
/* Bytes of a summary (same architecture on both ends) and back. */
gs_status gs_js_pack(const struct gs_js_rank *r, char **buf, size_t *len);
gs_status gs_js_unpack(const char *buf, size_t len, struct gs_js_rank **out);
/* The summaries the analysis holds, in rank order. */
const struct gs_js_rank *const *gs_job_analysis_ranks(const struct gs_job_analysis *ja, size_t *n);
/* The ranks (by index in rank order, a slot each in shown[]) whose GPU
 * sections a job's text report shows with `style`: every one when every
 * GPU's row fits the rank table, else the ranks of the outliers it lists
 * (job_view.c says which). *n_shown: how many. Decided from the summaries
 * alone, so that gpuscope-mpi's root can tell the others. */
gs_status gs_job_analysis_shown_ranks(const struct gs_job_analysis *ja,
				      const struct gs_report_style *style, bool *shown,
				      size_t *n_shown);

/* ---- a job's report written from parts (report_text.c, report_json.c) ----
 *
 * `shell` is a job report whose ranks' reports live elsewhere: its inputs,
 * format, options, job (warnings, ranks, clock groups) and job analysis
 * (the summaries) are set, its ranks are not. The ranks' sections come
 * from part(), in rank order, as the bytes gs_report_*_rank_part wrote.
 * part() gets the writer flushed: it writes through o, or to o->f itself
 * (the rank's bytes as they are), and keeps a failed write in o
 * (gs_outbuf_fail).
 */
struct gs_outbuf;
/* The notes of one rank's text report, label "caution", "warning", "note". */
void gs_report_text_notes(const struct gs_report *r,
			  void (*fn)(void *ctx, const char *label, const char *text), void *ctx);
/* Text: part() is asked only for the ranks whose sections are shown
 * (gs_job_analysis_shown_ranks with the same style), in rank order. */
gs_status gs_report_text_job_parts(FILE *f, const struct gs_report *shell,
				   const struct gs_report_style *style,
				   gs_status (*part)(void *ctx, size_t i, struct gs_outbuf *o),
				   void *ctx);
/* Every device section of one rank. */
gs_status gs_report_text_rank_part(FILE *f, const struct gs_report *rank,
				   const struct gs_report_style *style);

/* JSON: GS_JSON_PARTS parts per rank (loading warnings, trace.ranks row,
 * devices, waits). part() writes part `part` of rank i to o; when `first`
 * (the list has no member yet), without the comma the bytes start with;
 * *any: whether it wrote anything. */
#define GS_JSON_PARTS 4
gs_status gs_report_json_job_parts(FILE *f, const struct gs_report *shell,
				   const struct gs_report_style *style,
				   gs_status (*part)(void *ctx, unsigned part, size_t i,
						     struct gs_outbuf *o, bool first, bool *any),
				   void *ctx);
gs_status gs_report_json_rank_part(FILE *f, const struct gs_report *rank, unsigned part);

/* HTML (report_html.c). The drawing resolution of a page is decided from
 * the load of all its ranks: each rank's ops on its reported devices and
 * lanes drawn (gs_report_html_rank_load, kept in its summary). */
struct gs_html_layout {
	uint64_t exact; /* every op drawn one by one, else binned */
	uint64_t bins;  /* slices per lane when binned */
};
void gs_report_html_rank_load(const struct gs_report *rank, uint64_t *ops, uint64_t *lanes);
struct gs_html_layout gs_report_html_layout(uint64_t ops, uint64_t lanes);
/* The layout of a shell's page, from the summaries of its job analysis. */
struct gs_html_layout gs_report_html_job_layout(const struct gs_report *shell);
/* GS_HTML_PARTS parts per rank: its warnings (items of the page's notes)
 * and its GPUs' sections. part() writes part `part` of rank i to o, the
 * bytes gs_report_html_rank_part wrote with the same layout; `di0` is the
 * index of the rank's first GPU on the page (the GPUs of the ranks before
 * it). */
#define GS_HTML_PARTS 2
gs_status
gs_report_html_job_parts(FILE *f, const struct gs_report *shell, const struct gs_html_layout *L,
			 const struct gs_report_style *style,
			 gs_status (*part)(void *ctx, unsigned part, size_t i, struct gs_outbuf *o),
			 void *ctx);
gs_status gs_report_html_rank_part(FILE *f, const struct gs_report *rank,
				   const struct gs_html_layout *L, size_t di0, unsigned part,
				   const struct gs_report_style *style);

#endif /* GS_ANALYZER_JOB_SUM_H */
