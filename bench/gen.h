/* SPDX-License-Identifier: MIT */
/*
 * The benchmark trace generator: a deterministic, realistic multi-stream
 * training workload (transformer blocks forward and backward, all-reduce on a
 * communication stream, input copies on a copy stream, optimizer bursts,
 * event waits between streams, pageable copies, stream syncs, PyTorch host
 * ranges) written at once into a gs_sink (the .gscope writer) and as Kineto
 * Chrome-trace JSON, plain and/or gzip. The same seed gives the same bytes.
 */
#ifndef GS_BENCH_GEN_H
#define GS_BENCH_GEN_H

#include <gpuscope/trace_sink.h>

#include <stdint.h>
#include <stdio.h>

struct gs_bench_gen_options {
	uint64_t ops;     /* GPU ops to generate, exactly */
	uint32_t devices; /* 0: 2 */
	uint64_t seed;    /* 0: a fixed default */
	/* One rank of a multi-process job: process GEN_PID + rank, devices
	 * rank * devices .. + devices - 1 (at most 1024). */
	uint32_t rank;
};

/* What was generated (the counts a loaded trace must show). */
struct gs_bench_gen_counts {
	uint64_t ops, kernels, memcpys, memsets;
	uint64_t api_calls, syncs, event_records, ranges, overheads;
	uint64_t streams, devices, steps;
	uint64_t json_bytes; /* bytes of JSON text written */
};

/*
 * Generate into any of: `sink` (records), `json` (plain JSON text), `gz`
 * (a gzFile, passed as void * to keep zlib out of this header). NULL ones
 * are skipped. Errors come back with a cause appended.
 */
gs_status gs_bench_generate(const struct gs_bench_gen_options *o, struct gs_sink *sink, FILE *json,
			    void *gz, struct gs_bench_gen_counts *counts);

#endif
