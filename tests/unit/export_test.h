/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the exporters' tests (test_export.c, test_export_job.c): a
 * small trace built through its sink (build_basic), exports into memory
 * (Chrome JSON with or without the analyzer's extras, CSV), the events of a
 * Chrome export and their fields, and an export read back by the Kineto
 * importer. The code is in export_test.c, compiled into each.
 */
#ifndef GS_TEST_EXPORT_TEST_H
#define GS_TEST_EXPORT_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include <gpuscope/analyzer.h>
#include <gpuscope/export.h>
#include <gpuscope/import.h>

/* Base of the built traces: a time with every ns digit in use. */
#define T0 1700000000123456789LL

/*
 * Host process 100 (thread 100), device 0 "Test GPU", stream 7:
 *   cpu_op "step" [T0, T0+100000) encloses two launches, kernel k1 and a
 *   copy; a second range "late" [T0+90000, T0+150000) straddles the end of
 *   "step" (does not nest); k1 [T0+20000, T0+50001) and k2 on the same
 *   stream [T0+50000, T0+60000) overlap by 1 ns (skew), and a copy
 *   [T0+70000, T0+80000).
 */
struct gs_trace *build_basic(void);

/* An export in memory (open_memstream). */
struct mem {
	char *buf;
	size_t len;
};

struct mem chrome_of(const struct gs_trace *t, const struct gs_export_extras *x,
		     const struct gs_export_options *o);
/* The whole export of a trace with every extra the analyzer gives. */
struct mem chrome_full(const struct gs_trace *t, bool ideal);
struct mem csv_ops(const struct gs_trace *t, const struct gs_export_extras *x, bool ideal);

/* The traceEvents of a Chrome export (*doc: the document to delete). */
cJSON *events_of(const struct mem *m, cJSON **doc);
const char *sget(const cJSON *o, const char *k);
double nget(const cJSON *o, const char *k);
/* The first event with phase ph and name (NULL: any). */
const cJSON *find_ev(const cJSON *ev, const char *ph, const char *name);
/* Metadata `what` for (pid, tid): its args value as a string or number. */
const cJSON *meta_arg(const cJSON *ev, const char *what, double pid, double tid);
/* An export read back by the Kineto importer. */
struct gs_trace *read_back(const struct mem *m);
size_t count_lines(const char *s);

#endif
