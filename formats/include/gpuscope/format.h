/* SPDX-License-Identifier: MIT */
/*
 * gpuscope format library (target gs_format), all of it: the trace model
 * (trace_model.h), the record sink every reader emits into (trace_sink.h),
 * the in-memory trace (trace.h), the names of the model's enums and what an
 * API call's name says (names.h), and the .gscope writer and reader
 * (gscope_file.h). For code that wants it all at once; a file of the
 * project includes the topic headers it uses.
 */
#ifndef GPUSCOPE_FORMAT_H
#define GPUSCOPE_FORMAT_H

#include <gpuscope/gscope_file.h>
#include <gpuscope/names.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/trace_sink.h>

/* What format.h brought in before it was split. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#endif /* GPUSCOPE_FORMAT_H */
