/* SPDX-License-Identifier: MIT */
/*
 * The analyses' results that `gpuscope export` adds to the records
 * (gpuscope/export.h).
 */
#ifndef GPUSCOPE_EXPORT_DATA_H
#define GPUSCOPE_EXPORT_DATA_H

#include <stdint.h>

#include <gpuscope/export.h>
#include <gpuscope/trace.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What `gpuscope export` adds to the records (gpuscope/export.h): the
 * analyses' results as the plain data of struct gs_export_extras.
 */
enum gs_export_want {
	GS_EXPORT_WANT_LAUNCH = 1u << 0,    /* per op, the API call that launched it */
	GS_EXPORT_WANT_EDGES = 1u << 1,     /* every dependency edge */
	GS_EXPORT_WANT_BREAKDOWN = 1u << 2, /* each device's breakdown segments */
	GS_EXPORT_WANT_IDEAL = 1u << 3,     /* each device's ideal schedule */
};

struct gs_export_data;

/* Compute what `want` asks for over a finished trace (borrowed: it must
 * outlive the data). Default windows (whole trace per device). */
gs_status gs_export_data_build(const struct gs_trace *t, unsigned want,
			       struct gs_export_data **out);
/* The same with a bound on the dependency graph's edges (gs_graph_options;
 * 0: the default). The edges exported are every edge of the graph, the
 * ones a path implies included. */
gs_status gs_export_data_build_max(const struct gs_trace *t, unsigned want, uint64_t max_edges,
				   struct gs_export_data **out);
/* The extras to pass to gs_export_chrome / gs_export_csv_*; valid until
 * the data is destroyed. */
const struct gs_export_extras *gs_export_data_extras(const struct gs_export_data *d);
void gs_export_data_destroy(struct gs_export_data *d);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_EXPORT_DATA_H */
