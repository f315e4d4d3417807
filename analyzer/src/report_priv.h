/* SPDX-License-Identifier: MIT */
/*
 * Internal: the contents of a gs_report (report.c builds it, with
 * report_tables.c and report_findings.c; report_text.c, report_json.c and
 * report_html.c write it), and the small text helpers the writers use.
 */
#ifndef GS_ANALYZER_REPORT_PRIV_H
#define GS_ANALYZER_REPORT_PRIV_H

#include <gpuscope/analyzer.h>
#include <gpuscope/results.h>
#include <gpuscope/text.h>

/* Steps with figures of their own (breakdown, schedules, gap): each costs
 * about the device's ops that start in its window, so the first steps get
 * them, at most GS_REPORT_STEP_FIGURES, while their windows hold no more
 * than GS_REPORT_STEP_BUDGET ops in all (at least one step). */
#define GS_REPORT_STEP_FIGURES 64
#define GS_REPORT_STEP_BUDGET 4000000

/* Adds a number (past GS_FINDING_NUMBERS: left out). */
static inline void gs_finding_num(struct gs_finding_data *d, const char *key, double value)
{
	if (d->n < GS_FINDING_NUMBERS)
		d->num[d->n++] = (struct gs_finding_number){key, value};
}

struct gs_report {
	const struct gs_trace *t;
	char **inputs;
	size_t n_inputs;
	char *format;
	uint64_t max_annotation_pieces; /* the option, for the measures */
	unsigned op_level;              /* the option, for the operators */
	struct gs_op_index *op_index;   /* built for the first device */
	int64_t graph_node_ns;          /* the replay what-if's cost per graph node */
	bool window_set;
	struct gs_window window; /* absolute, after resolving a relative one */

	struct gs_graph *g;
	struct gs_wait *waits; /* all waits, ranked */
	size_t n_waits;
	/* Waits reported (consumer on a reported device, in its window): the
	 * JSON "waits" list, as indices into `waits`; the first `rows` of
	 * reported_wait_count, whose wait time is reported_wait_ns. */
	size_t *reported_waits;
	size_t n_reported_waits;
	size_t reported_wait_count;
	int64_t reported_wait_ns;
	size_t rows; /* entries kept in each per-op list */

	struct gs_report_device *dev;
	size_t n_dev;
	/* Per string id (+1 for ids out of range), scratch of the per-device
	 * passes, all 0 between devices: each pass puts back what it used, so
	 * a device costs its own records, not the string table. */
	uint32_t *name_slot;
	uint8_t *name_memo;
	struct gs_breakdown_cache *bd_cache; /* the devices' breakdowns share it */
	/* The trace's steps and which the window covers (window_from_steps:
	 * the window is the selected steps' span, not --window). */
	struct gs_steps steps;
	bool window_from_steps;
	/* The API calls by start, and over them a tree of the latest end, to
	 * find the calls over a sync segment; per call, scratch sums (0
	 * between devices). Built when a device first has sync time. */
	uint32_t *call_order;
	int64_t *call_tree;
	size_t call_leaves;
	int64_t *call_sum;

	/* The process this report is of, as its job numbered it (pid -1 and
	 * host "" when unknown; input: the name of the input it came from). */
	bool in_job; /* one rank of a job of two or more */
	uint32_t rank;
	bool rank_declared;
	int64_t pid;
	const char *host;
	const char *input;
	uint32_t clock_group;
	/* Its clock (gs_job_rank): domain, wall-clock source and offset; the
	 * world size it declares (0 unknown); its host from its file name. */
	uint32_t clock_domain;
	uint8_t clock;
	int64_t wall_offset_ns;
	uint32_t world_size;
	bool host_from_name;
	/* A job report: enum gs_report_align, as asked. */
	int align;

	/* A job report (gs_report_build_job): `t`, `g`, the waits and `dev`
	 * are unused; each rank reported has a report of its own, in rank
	 * order, and a job of two or more ranks its job analysis. */
	const struct gs_job *job;
	struct gs_report **ranks;
	size_t n_ranks;
	struct gs_job_analysis *ja;
	/* gpuscope-mpi: the MPI processes (options.mpi); 0 otherwise. */
	size_t mpi_processes;
	/* The verdict of --fail-if (gs_report_gate), written as the JSON's
	 * "gate" member; NULL without one. */
	struct gs_gate_verdict *verdict;
};

/* The job analysis (job_analysis.c) of a job report's ranks; NULL-safe destroy. */
struct gs_job_analysis;
gs_status gs_job_analysis_build(const struct gs_report *job, struct gs_job_analysis **out);
void gs_job_analysis_destroy(struct gs_job_analysis *ja);
/* The job sections of the text, JSON ("job" member) and HTML reports. */
struct gs_outbuf;
void gs_job_analysis_write_text(struct gs_outbuf *o, const struct gs_report *job,
				const struct gs_report_style *st);
struct gs_json;
/* A finding as a JSON row: kind, ns, evidence, numbers, text, advice,
 * advice_kind. */
void gs_report_json_finding(struct gs_json *w, const char *kind, int64_t ns,
			    const struct gs_finding_data *d, const char *text, const char *advice);
/* The "job" member of the JSON report (nothing without a job analysis). */
void gs_job_analysis_write_json(struct gs_json *w, const struct gs_report *job);
/* The job's section of the HTML page (nothing without a job analysis). */
void gs_job_analysis_write_html(struct gs_outbuf *o, const struct gs_report *job,
				const struct gs_report_style *st);

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

/* NCCL / RCCL kernels by name (any case): the communication kernels. */
bool gs_report_comm_name(const char *name);

/* Text report helpers (report_text.c), for the job section (job_text.c):
 * words of `s` over lines of 100 columns, the first after `first`
 * (already `col0` columns), the rest indented by `indent`; and `s` made
 * printable and cut to `cols` columns with "…" (returns the columns). */
struct gs_outbuf;
void gs_report_text_wrap(struct gs_outbuf *o, const char *first, size_t col0, const char *s,
			 size_t indent);
size_t gs_report_text_fit(char *buf, size_t size, const char *s, size_t cols);

/* HTML helpers (report_html.c): `s` as HTML text, safe in content and in
 * quoted attributes (& < > " ' escaped, control bytes and invalid UTF-8
 * as U+FFFD), cut to `max` code points with "…" (0: no cut); and a
 * sentence with duration marks (gs_dur_sentence, written with "µs"). */
void gs_report_html_text(struct gs_outbuf *o, const char *s, size_t max);
void gs_report_html_sentence(struct gs_outbuf *o, const char *s);

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

/* The longest gap a CUDA Graph candidate covers (gpuscope/cudagraph.h). */
#define GS_REPORT_LAUNCH_GAP_NS GS_CUDAGRAPH_MAX_GAP_NS

/* Durations for people: gs_dur_text, gs_dur_unit, gs_dur_text_in (gpuscope/text.h). */
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

/* The line under a per-op list cut to --rows: shown, of count, with
 * listed kept (text and HTML say the same). */
#define GS_REPORT_CUT_FMT                                                                          \
	"%zu of %zu shown (--top N; the report keeps %zu, --rows N or --rows all for more)"

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

/* ---- between the parts of report.c (report_tables.c, report_findings.c) ---- */

/* a + b, held at INT64_MAX / INT64_MIN: sums of many op times from a trace
 * with absurd (but valid) times must not overflow (found by fuzz_kineto). */
static inline int64_t gs_report_sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* A device's window, [start, end]. */
struct gs_report_win {
	int64_t start;
	int64_t end;
};

/* An op counts for a window when it overlaps it (an instant op: when it
 * lies inside it, ends included). */
static inline bool gs_report_in_window(const struct gs_op *op, struct gs_report_win w)
{
	if (op->end_ns <= op->start_ns)
		return op->start_ns >= w.start && op->start_ns <= w.end;
	return op->start_ns < w.end && op->end_ns > w.start;
}

/* The nearest rank of percentile p among n values sorted ascending:
 * rank ceil(p n / 100), 1-based, returned as a 0-based index (0 when n is
 * 0). The launch delays and the kernel statistics use it. */
static inline size_t gs_report_nearest_rank(size_t n, unsigned p)
{
	size_t r = (n * p + 99) / 100;

	return r ? r - 1 : 0;
}

/* report_tables.c: a device's per-stream and per-kernel totals, its
 * communication kernels, the API calls over its sync time; the orders of
 * the missed overlaps and CUDA Graph candidates (qsort); and, last, every
 * per-op list cut to r->rows entries beside its exact count. */
gs_status gs_report_dev_streams(const struct gs_report *r, struct gs_report_device *d,
				struct gs_report_win w);
gs_status gs_report_dev_comm(const struct gs_report *r, struct gs_report_device *d,
			     struct gs_report_win w);
gs_status gs_report_dev_sync_calls(struct gs_report *r, struct gs_report_device *d);
int gs_report_cmp_missed(const void *pa, const void *pb);
int gs_report_cmp_cand(const void *pa, const void *pb);
gs_status gs_report_cut_lists(struct gs_report *r);

/* report_findings.c: a device's ranked findings, with their advice. */
gs_status gs_report_dev_findings(const struct gs_report *r, struct gs_report_device *d);

#endif /* GS_ANALYZER_REPORT_PRIV_H */
