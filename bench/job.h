/* SPDX-License-Identifier: MIT */
/*
 * The job generator: the Kineto traces of the ranks of one data-parallel
 * NCCL job (DIR/rank<r>.json or .json.gz, one a rank) and DIR/expected.json,
 * the job numbers they must give, computed here from the times written.
 * Every time is a whole ns, so the expected numbers are exact.
 *
 * Ranks: 8 GPUs a node; rank r is device r % 8 of host process
 * 1000 + r % 8 (thread = pid), host "bench-node-<r / 8>": ranks on
 * different nodes share pid and device numbers on purpose. All ranks share
 * one clock. distributedInfo: backend nccl, rank r, world_size N, one
 * process group "0" (default_pg) of all ranks.
 *
 * The trace is the start of one endless sequence of steps, the same on
 * every rank. Step i (start T_i, the same on every rank):
 *   - 6 compute kernels back to back on stream 7 (gaps of 0-2 us), each
 *     with its cudaLaunchKernel; the last one ends at the rank's arrival
 *     at the all-reduce (it absorbs the rank's jitter and delay);
 *   - the all-reduce (collective name "allreduce", 2^23 Float elements,
 *     32 MiB) on stream 13, from the rank's arrival to its end;
 *   - one compute kernel on stream 7, 1-2 us after the arrival, beside the
 *     all-reduce (the next bucket's gradients): overlap;
 *   - when i % 4 == 3, an all-gather ("_allgather_base", 2^20 BFloat16
 *     elements in, N * 2^20 out) on stream 13 after the all-reduce.
 * T_{i+1} = 30 us after the latest end of any kernel of step i on any
 * rank, so steps never overlap. Host calls: one burst a step starting
 * ~300 us before T_i, 4-7 us a call, so each call precedes its kernel.
 *
 * Collective j (0, 1, ... in the order of group "0", both names) has a
 * base time B_j: T_i + a fixed compute span for an all-reduce, the
 * all-reduce's end + 5 us for an all-gather. Arrivals (kernel starts):
 *   1. every rank r: A_{j,r} = B_j + J_{j,r}, J_{j,r} = (h % 250) * N + r
 *      (h a hash of seed, j, r): whole ns, distinct over ranks;
 *   2. straggler R (when given): when j % k == 0, k = max(1, round(1/P)),
 *      A_{j,R} = max over r != R of A_{j,r} + D: last in every k-th
 *      collective, starting with collective 0 (and last by jitter alone
 *      in about 1/N of the others);
 *   3. skew S (when > 0) on collective j_s = C/2 (C: the collectives
 *      written), or C/2 + 1 when the straggler is planted on C/2, k > 1
 *      and C/2 + 1 < C; skew rank Q = (R + N/2) % N (R = 0 without a
 *      straggler): A_{j_s,Q} = max over r != Q of A_{j_s,r} + S (after 2).
 * Every rank's kernel ends at E_j = max_r A_{j,r} + transfer_j, with
 * transfer_j = 20 us + S_j * f / (150 B/ns) + (hash % 20 us), S_j the
 * message bytes and f the bus factor: the transfer is exact.
 *
 * Length: with ops_per_rank K, the first K GPU ops of the sequence; with
 * collectives C, whole steps until C collectives are written, without a
 * collective past the C-th (an all-gather that would be C+1 is left
 * out); with both, whichever ends first. Neither: C = 100.
 *
 * The merged file (option `merged`): the same ops, times, names and args
 * as one process, to compare a job's analysis with the same per-GPU work
 * without the job part. Rank r's ops are on device r (not r % 8) of host
 * process 1000, its launches on host thread 1000 + r, its correlation ids
 * r * K + 1 .. r * K + K (K the ops of a rank); the deviceProperties list
 * all N devices; no distributedInfo (it is not a rank of a job). Ranks are
 * written one after another; gzip like the rank files.
 *
 * expected.json (version 1; times in ns on the traces' clock, which
 * starts at 10^15 ns and stays below 2^53, so a reader through doubles
 * gets them exactly; bandwidths in GB/s = bytes/ns, as doubles):
 * {
 *   "schema": "gpuscope-bench-job-expected", "version": 1,
 *   "ranks": N, "gpus_per_node": 8, "seed": X,
 *   "compute_stream": 7, "comm_stream": 13,
 *   "files": ["rank0.json", ...],
 *   "ops_per_rank": GPU ops in each file (the same for all),
 *   "steps": steps begun,
 *   "groups": [{"name": "0", "desc": "default_pg", "ranks": [0, ..., N-1],
 *               "collectives": C}],
 *   "collectives": [{"group": "0", "index": j, "name": "allreduce",
 *                    "kernel": kernel name, "bytes": S_j,
 *                    "arrivals_ns": [A_{j,0}, ..., A_{j,N-1}],
 *                    "end_ns": E_j, "skew_ns": max A - min A,
 *                    "last_rank": argmax A, "transfer_ns": E_j - max A,
 *                    "algbw_gbps": S_j / transfer,
 *                    "busbw_gbps": algbw * f}, ...],
 *   "straggler": null, or {"rank": R, "every": k, "delay_ns": D,
 *                "planted": collectives planted, "times_last": T,
 *                "last_share": T / C,
 *                "cost_ns": sum over the collectives R was last in of
 *                           the other ranks' waits},
 *   "skew": null, or {"collective": j_s, "rank": Q, "skew_ns": S},
 *   "per_rank": [{"rank": r, "device": r % 8, "pid": 1000 + r % 8,
 *                 "file": "rank<r>.json", "ops": GPU ops,
 *                 "comm_kernels": NCCL kernels,
 *                 "window_start_ns": first op start,
 *                 "window_end_ns": last op end,
 *                 "compute_kernel_ns": sum of compute kernel durations,
 *                 "comm_kernel_ns": sum of NCCL kernel durations,
 *                 "overlap_ns": NCCL kernel time with a compute kernel of
 *                               the rank's GPU running alongside,
 *                 "exposed_comm_ns": comm_kernel_ns - overlap_ns,
 *                 "overlap_share": overlap_ns / comm_kernel_ns (0 if none),
 *                 "busy_ns": time any kernel of the rank runs,
 *                 "waited_ns": sum over collectives of max A - A_{j,r},
 *                 "times_last": collectives the rank was last in}, ...]
 * }
 * With `steps`: each step i of a rank file is also a user_annotation
 * "ProfilerStep#i" on the rank's thread, from the first launch of the step
 * to the end of its last (the merged file has none), and expected.json has
 *   "step_windows": [{"number": i, "gpu_start_ns": [per rank: its first op start
 *              in the step], "gpu_end_ns": [... its last op end]}, ...]
 * for every step with an op written.
 * S_j: all-reduce count * 4; all-gather the output bytes (N * 2^20 * 2).
 * f: all-reduce 2(N-1)/N, all-gather (N-1)/N.
 */
#ifndef GS_BENCH_JOB_H
#define GS_BENCH_JOB_H

#include <gpuscope/error.h>

#include <stdbool.h>
#include <stdint.h>

#define GS_BENCH_JOB_MAX_RANKS 4096

struct gs_bench_job_options {
	uint32_t ranks;          /* N >= 1 */
	uint64_t ops_per_rank;   /* 0: no limit */
	uint64_t collectives;    /* 0: no limit (100 when ops_per_rank is 0 too) */
	int64_t straggler;       /* -1: none */
	double straggler_share;  /* P in (0, 1]; 0: 0.5 */
	int64_t straggler_delay; /* D ns; 0: 500000 */
	int64_t skew;            /* S ns; 0: none */
	bool gzip;               /* rank<r>.json.gz */
	uint64_t seed;           /* 0: a fixed default */
	unsigned threads;        /* ranks written at once; 0: the CPUs we may use */
	const char *merged;      /* also this file, the job as one process; NULL: not */
	bool steps;              /* each step a ProfilerStep#i range (rank files) */
};

struct gs_bench_job_summary {
	uint64_t ops_per_rank, collectives, steps;
	uint64_t json_bytes;        /* JSON text of all ranks (before gzip) */
	uint64_t merged_json_bytes; /* of the merged file (0: none) */
};

/*
 * Write the ranks' traces and expected.json into `dir` (created when
 * missing). Errors come back with a cause appended.
 */
gs_status gs_bench_job_generate(const struct gs_bench_job_options *o, const char *dir,
				struct gs_bench_job_summary *sum);

#endif
