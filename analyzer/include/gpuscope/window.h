/* SPDX-License-Identifier: MIT */
/*
 * What the analyses share: the time window an analysis covers and the
 * devices of a trace that have ops.
 */
#ifndef GPUSCOPE_WINDOW_H
#define GPUSCOPE_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A time window [start_ns, end_ns). `set` false means "the default": per
 * device, from its first op start to its last op end.
 */
struct gs_window {
	bool set;
	int64_t start_ns;
	int64_t end_ns;
};

/* The device an op runs on (its stream's device). */
uint32_t gs_op_device(const struct gs_trace *t, const struct gs_op *op);

/* Distinct device ids that have ops, ascending. Caller frees *ids. */
gs_status gs_trace_op_devices(const struct gs_trace *t, uint32_t **ids, size_t *n);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_WINDOW_H */
