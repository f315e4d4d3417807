/* SPDX-License-Identifier: MIT */
/*
 * Every record of a trace as one text line (`gpuscope dump`).
 */
#ifndef GPUSCOPE_DUMP_H
#define GPUSCOPE_DUMP_H

#include <stddef.h>
#include <stdio.h>

#include <gpuscope/trace.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Every record of a finished trace as one text line. First the untimed
 * records (processes, devices, streams, in table order), then all timed
 * records (ops, api calls, syncs, event records, allocations, ranges,
 * overheads) merged by time, each line starting with its time in ns:
 *
 *   1707417525512145000 kernel dev=0 stream=7 dur=1000 corr=1482 ...
 *
 * Ties are broken by record kind (in the order above), then end time,
 * correlation id, and finally table index, so the order is total and the
 * output is the same on every run. Strings are quoted; '"', '\\' and
 * control bytes are escaped, so a record never spans two lines.
 * `limit` caps the number of timed lines (0: no cap).
 */
gs_status gs_dump_write(FILE *out, const struct gs_trace *t, size_t limit);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_DUMP_H */
