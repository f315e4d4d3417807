/* SPDX-License-Identifier: MIT */
/* Private to gs_import: merging two inputs of one process (job_load.c). */
#ifndef GS_JOB_MERGE_H
#define GS_JOB_MERGE_H

#include <gpuscope/error.h>
#include <gpuscope/trace.h>

#include <stdint.h>

/*
 * The trace of one process recorded in two inputs (finished traces `a` and
 * `b`): every record of `a`, then every record of `b` that `a` does not
 * hold already, finished. A record of `b` identical to one of `a` (every
 * field alike: an op's stream identity, kind, times, correlation id, name,
 * launch configuration, collective...; an API call, sync, event record,
 * range, allocation and its op links, overhead, clock pair) is kept once:
 * each record of `a` stands for one identical record of `b`, so that a
 * record a source holds twice is kept twice. Strings, streams, processes
 * and devices merge as the trace sink merges them. *dropped (may be NULL):
 * the records of `b` left out.
 */
gs_status gs_job_merge_traces(const struct gs_trace *a, const struct gs_trace *b,
			      struct gs_trace **out, uint64_t *dropped);
/*
 * The same over n inputs at once, finished once: what merging them two by
 * two in order gives (each input against every record kept before it),
 * without redoing the sorts and joins after each. dropped (may be NULL):
 * n counts, the records of each input left out (the first's is 0).
 */
gs_status gs_job_merge_traces_n(const struct gs_trace *const *in, size_t n, struct gs_trace **out,
				uint64_t *dropped);

#endif
