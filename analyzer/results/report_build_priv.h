/* SPDX-License-Identifier: MIT */
/*
 * Internal: what the parts of the report's assembly share: report.c builds
 * one trace's report, report_tables.c a device's tables, report_findings.c
 * its findings, report_job.c a job's (a report per rank); measures.c and
 * job_summary.c use a few of the helpers. The writers never include it.
 */
#ifndef GS_REPORT_BUILD_PRIV_H
#define GS_REPORT_BUILD_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuscope/report.h>
#include <gpuscope/results.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

#include "report_model_priv.h"

/* The ops that the steps with figures may hold: the first steps get
 * figures while their windows hold no more than GS_REPORT_STEP_BUDGET ops
 * in all (at least one step). */
#define GS_REPORT_STEP_BUDGET 4000000

/* Adds a number (past GS_FINDING_NUMBERS: left out). */
static inline void gs_finding_num(struct gs_finding_data *d, const char *key, double value)
{
	if (d->n < GS_FINDING_NUMBERS)
		d->num[d->n++] = (struct gs_finding_number){key, value};
}

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

/* NCCL / RCCL kernels by name (any case): the communication kernels. */
bool gs_report_comm_name(const char *name);

/* report.c */
gs_status gs_report_copy_options(struct gs_report *r, const struct gs_report_options *o);

/* What the device builds of one thread use and put back, all 0 between
 * devices (so that a device costs its own records, not the string table):
 * per string id (+1 for ids out of range) a kernel row slot and a name's
 * class; per API call a sum (with many devices, the call tree); and its
 * fork of the report's breakdown cache. Threads building devices at once
 * have one each: nothing here is shared. */
struct gs_breakdown_cache;
struct gs_report_scratch {
	uint32_t *name_slot;
	uint8_t *name_memo;
	int64_t *call_sum;
	struct gs_breakdown_cache *bd;
};

/* report_tables.c: a device's per-stream and per-kernel totals, its
 * communication kernels, the API calls over its sync time; the orders of
 * the missed overlaps and CUDA Graph candidates (qsort); and, last, every
 * per-op list cut to r->rows entries beside its exact count. */
gs_status gs_report_dev_streams(const struct gs_report *r, struct gs_report_scratch *x,
				struct gs_report_device *d, struct gs_report_win w);
gs_status gs_report_dev_comm(const struct gs_report *r, struct gs_report_scratch *x,
			     struct gs_report_device *d, struct gs_report_win w);
/* The call tree, built before the devices when they are built on several
 * threads (else by the first device with sync time, with many devices). */
gs_status gs_report_call_tree_build(struct gs_report *r);
gs_status gs_report_dev_sync_calls(struct gs_report *r, struct gs_report_scratch *x,
				   struct gs_report_device *d);
int gs_report_cmp_missed(const void *pa, const void *pb);
int gs_report_cmp_cand(const void *pa, const void *pb);
gs_status gs_report_cut_lists(struct gs_report *r);
/* The part of it that lists the device's critical path: the `rows`
 * longest ops of d->sched.critical_path (indices into `ops`). */
gs_status gs_report_cut_critical(struct gs_report_device *d, const struct gs_op *ops, size_t rows);

/* measures.c: the class of a row of the kernel table (enum
 * gs_kernel_class), from its first kernel, else its name. */
unsigned gs_measures_kernel_row_class(const struct gs_trace *t, const struct gs_report_kernel *k);

/* report_findings.c: a device's ranked findings, with their advice. */
gs_status gs_report_dev_findings(const struct gs_report *r, struct gs_report_device *d);

/* report_helpers.c */
uint64_t gs_report_mag(int64_t v);

#endif
