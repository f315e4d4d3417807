/* SPDX-License-Identifier: MIT */
/*
 * The gate of a CI job (`--fail-if` of analyze and diff): thresholds over
 * the figures of each GPU of a report, or over their change between the
 * two runs of a diff, and the verdict of each (docs/design.md, "The gate").
 *
 *   THRESHOLDS := THRESHOLD [, THRESHOLD]...
 *   THRESHOLD  := METRIC OP VALUE          (blanks allowed around OP)
 *   OP         := > | >= | < | <=
 *   VALUE      := [+|-] NUMBER [UNIT]      (NUMBER: digits, a fraction)
 *   UNIT       := ns | us | ms | s | % | pp
 *
 * Without a sign VALUE is a value of the metric (a report's, or NEW's in
 * a diff): a time with ns, us, ms or s; a share or a ratio as a fraction
 * (0.6) or with % (60%); a count as a number. With a sign (diff only) it
 * is a change NEW - BASE: +5% relative (of BASE's value), +2ms of a time,
 * +3pp (percentage points) or +0.03 of a share or ratio, +10 of a count.
 * A threshold is crossed when the metric satisfies it (`step_time>+5%`:
 * the step time grew by more than 5%).
 */
#ifndef GPUSCOPE_GATE_H
#define GPUSCOPE_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuscope/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the thresholds are checked on. */
enum gs_gate_for {
	GS_GATE_REPORT = 0, /* the figures of one run (analyze) */
	GS_GATE_DIFF = 1,   /* two runs (diff): changes allowed */
};

/* How a threshold compares. */
enum gs_gate_compare {
	GS_GATE_VALUE = 0,    /* the metric's value (a diff: NEW's) */
	GS_GATE_CHANGE = 1,   /* NEW - BASE, in the metric's unit */
	GS_GATE_RELATIVE = 2, /* (NEW - BASE) / BASE */
};

/* The unit of a metric's values: ns, a fraction (share, ratio), a count. */
enum gs_gate_unit {
	GS_GATE_NS = 0,
	GS_GATE_FRACTION = 1,
	GS_GATE_COUNT = 2,
};

/* Parsed thresholds (opaque). */
struct gs_gate;

/* At most this many thresholds. */
#define GS_GATE_MAX 256

/*
 * Parse THRESHOLDS (above) for a report or a diff. GS_ERR_INVALID with a
 * cause naming the threshold and the token at fault: an unknown metric
 * (listing the metrics), a missing or unknown comparison, a value that is
 * no number, a unit the metric does not take, a change (+X) outside a
 * diff, pp without a sign.
 */
gs_status gs_gate_parse(const char *text, enum gs_gate_for use, struct gs_gate **out);
void gs_gate_destroy(struct gs_gate *g);
/* Thresholds parsed. */
size_t gs_gate_count(const struct gs_gate *g);

/* A threshold's verdict. Values are in the unit of `unit` (a relative
 * change: a fraction). */
struct gs_gate_result {
	const char *threshold; /* as written, blanks left out: "step_time>+5%" */
	const char *metric;    /* "step_time" */
	const char *op;        /* ">", ">=", "<", "<=" */
	uint8_t use;           /* enum gs_gate_for */
	uint8_t compare;       /* enum gs_gate_compare */
	uint8_t unit;          /* enum gs_gate_unit of limit and value */
	uint8_t metric_unit;   /* enum gs_gate_unit of base and now */
	double limit;
	bool crossed;
	size_t gpus;          /* GPUs checked: those that have the metric */
	size_t gpus_crossing; /* of them, those that cross the threshold */
	/* The worst GPU: the largest value for > and >=, the smallest for <
	 * and <= (the first in GPU order on ties). A diff's GPU is NEW's, its
	 * BASE's in base_rank, base_device. */
	uint32_t rank, device;
	uint32_t base_rank, base_device;
	bool in_job;  /* name the rank */
	bool paired;  /* a diff's GPUs paired by --pair */
	double value; /* what was compared (a relative change from 0: +-inf) */
	double base;  /* a diff: BASE's value of the metric */
	double now;   /* the report's, or NEW's, value of the metric */
};

struct gs_gate_verdict {
	uint8_t use;                    /* enum gs_gate_for */
	struct gs_gate_result *results; /* in the order of the thresholds */
	size_t n;
	size_t crossed; /* thresholds crossed */
};

/*
 * A threshold crossed, for people, one line: "step_time>+5%: +8.3% on
 * rank 0 GPU 0 (963.981 us -> 1.044 ms); 2 of 2 GPUs cross it". Returns
 * buf.
 */
const char *gs_gate_result_text(const struct gs_gate_result *res, char *buf, size_t size);

/*
 * Check a report's (gpuscope/report.h) or a diff's (gpuscope/diff.h) GPUs
 * against `g` and keep the verdict in it: its JSON writer then adds the
 * top-level "gate" member. A threshold no GPU has the metric of (a step
 * time without steps, an efficiency of broken dependency cycles) is
 * GS_ERR_INVALID naming it; so is a gate for a diff on a report, or the
 * other way round.
 */
struct gs_report;
struct gs_diff;
gs_status gs_report_gate(struct gs_report *r, const struct gs_gate *g);
const struct gs_gate_verdict *gs_report_verdict(const struct gs_report *r);
gs_status gs_diff_gate(struct gs_diff *d, const struct gs_gate *g);
const struct gs_gate_verdict *gs_diff_verdict(const struct gs_diff *d);
/* A verdict of gs_gate_figures_evaluate; NULL-safe. */
void gs_gate_verdict_destroy(struct gs_gate_verdict *v);
/* The verdict as the "gate" member of a JSON object being written
 * (gpuscope/json.h; nothing when v is NULL): the report's and the diff's
 * JSON writers add it last. */
struct gs_json;
void gs_gate_write_json(struct gs_json *w, const struct gs_gate_verdict *v);

/*
 * A report's GPUs gated apart from the report (gpuscope-mpi): the figures
 * a threshold checks of every GPU of each rank, packed into bytes by the
 * process that holds the rank's report (the same architecture on both
 * ends), gathered in rank order where the verdict is made, and checked
 * there as gs_report_gate checks them.
 */
struct gs_gate_figures;
/* The figures of every GPU of r's ranks (a rank's report: its own). */
gs_status gs_gate_figures_pack(const struct gs_report *r, char **buf, size_t *len);
/* Adds the GPUs of packed figures to *f (NULL: a new collection).
 * GS_ERR_INVALID when the bytes are not packed figures. */
gs_status gs_gate_figures_add(struct gs_gate_figures **f, const char *buf, size_t len);
/* Checks every threshold against the GPUs added (f NULL: none), in the
 * order added; *out the verdict (the caller's, or a report's after
 * gs_report_keep_verdict). */
gs_status gs_gate_figures_evaluate(const struct gs_gate *g, const struct gs_gate_figures *f,
				   struct gs_gate_verdict **out);
void gs_gate_figures_destroy(struct gs_gate_figures *f);
/* Keeps v as the report's verdict (gs_report_verdict, the JSON's "gate"),
 * freed with it; a verdict it had before is freed. */
void gs_report_keep_verdict(struct gs_report *r, struct gs_gate_verdict *v);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_GATE_H */
