/* SPDX-License-Identifier: MIT */
/*
 * Test fixture: a two-process, two-GPU Nsight Systems SQLite export, built
 * with the SQLite C API in the schema of the real exports in
 * ../shared/data/nsys (3.x column sets of a100_cloverleaf.sqlite; MEMSET and
 * CUDA_EVENT, which that file lacks, as a100_saxpy_mpi_rank0.sqlite has
 * them).
 *
 * Process A (pid NSB_PID_A) runs on GPU NSB_DEV_A, process B (pid
 * NSB_PID_B) on GPU NSB_DEV_B; both are context NSB_CTX and use streams
 * NSB_STREAM_1 and NSB_STREAM_2 (stream ids and context ids coincide, as
 * each process numbers its own). Each process, on its main thread (tid =
 * pid), makes the same calls with correlation ids 1..9 (ids of the two
 * processes coincide, as in real multi-process exports); B's times are
 * A's plus NSB_B_SHIFT ns. Times below are relative to the process's T0:
 *
 *   corr call                   GPU record
 *   1    cudaMemcpyAsync  0-20  memcpy HtoD pinned->device 1 MiB, s1, 30-130
 *   2    cudaLaunchKernel 25-35 kernel "produce", s1, 140-340
 *   3    cudaEventRecord  40-45 event record of event 1 on s1
 *   4    cudaStreamWaitEvent 50-55  stream wait: s2 waits for event 1 (50-55)
 *   5    cudaMemsetAsync  60-65 memset device 4096 B, s2, 345-355
 *   6    cudaLaunchKernel 70-80 kernel "consume", s2, 360-460
 *   7    cudaStreamSynchronize(s1) 85-345  stream sync 86-344
 *   8    cudaLaunchKernel 350-360 kernel "finish", s1, 465-565
 *   9    cudaDeviceSynchronize 370-570  context sync 371-569
 *
 * Op rows carry the right deviceId; BOTH processes' SYNCHRONIZATION and
 * CUDA_EVENT rows carry deviceId NSB_ROW_DEVICE (0), as real exports of
 * several processes on several GPUs do. Also: StringIds, the four ENUM
 * tables the importer reads, TARGET_INFO_GPU (two H100, cuDevice 0 and 1),
 * TARGET_INFO_CUDA_STREAM (both streams non-blocking),
 * TARGET_INFO_CUDA_CONTEXT_INFO (null stream 7, right deviceId), PROCESSES
 * ("proc-a", "proc-b"), TARGET_INFO_SYSTEM_ENV, META_DATA_EXPORT.
 */
#ifndef GS_TEST_NSYS_BUILD_H
#define GS_TEST_NSYS_BUILD_H

#include <stdbool.h>

#define NSB_PID_A 100
#define NSB_PID_B 200
#define NSB_DEV_A 0
#define NSB_DEV_B 1
#define NSB_ROW_DEVICE 0 /* deviceId of every sync and event record row */
#define NSB_CTX 1
#define NSB_NULL_STREAM 7
#define NSB_STREAM_1 13
#define NSB_STREAM_2 14
#define NSB_EVENT 1
#define NSB_T0_A 1000000000ll
#define NSB_B_SHIFT 7
#define NSB_T0_B (NSB_T0_A + NSB_B_SHIFT)

/* Per process. */
#define NSB_KERNELS 3
#define NSB_MEMCPYS 1
#define NSB_MEMSETS 1
#define NSB_OPS (NSB_KERNELS + NSB_MEMCPYS + NSB_MEMSETS)
#define NSB_CALLS 9
#define NSB_SYNCS 3
#define NSB_EVENT_RECORDS 1
#define NSB_MEMCPY_BYTES (1 << 20)
#define NSB_MEMSET_BYTES 4096

/* Times relative to T0. */
#define NSB_MEMCPY_START 30
#define NSB_MEMCPY_END 130
#define NSB_PRODUCE_START 140
#define NSB_PRODUCE_END 340
#define NSB_MEMSET_START 345
#define NSB_MEMSET_END 355
#define NSB_CONSUME_START 360
#define NSB_CONSUME_END 460
#define NSB_FINISH_START 465
#define NSB_FINISH_END 565
#define NSB_RECORD_CALL_START 40 /* the event record's time */
#define NSB_WAIT_START 50        /* stream wait, correlation 4 */
#define NSB_WAIT_END 55
#define NSB_SSYNC_START 86 /* stream sync of s1, correlation 7 */
#define NSB_SSYNC_END 344
#define NSB_CSYNC_START 371 /* context sync, correlation 9 */
#define NSB_CSYNC_END 569

/* nsys GlobalIds as the real exports hold them: (vm 1 << 48) | pid << 24
 * | tid. */
#define NSB_GPID(pid) ((1ll << 48) | ((long long)(pid) << 24))
#define NSB_GTID(pid, tid) (NSB_GPID(pid) | (long long)(tid))

/*
 * Write the export to `path` (replacing any file there). 0 on success; -1
 * with a message on stderr.
 */
int nsys_build_2proc(const char *path);

/*
 * A job's Nsight export: `procs` processes (pid 100 * (p + 1), thread =
 * pid, GPU p of host `host`, context 1), each with `collectives` NCCL
 * all-reduce kernels ("ncclDevKernel_AllReduce_Sum_f32_RING_LL(...)") on a
 * stream of its own number (nccl_stream[p]; stream ids are per process)
 * and a compute kernel ("gemm") on stream 13 before each; every GPU record
 * launched by a cudaLaunchKernel with correlation ids 1, 2, ... in every
 * process (they coincide across processes, as in real exports).
 *
 * Collective j: base B_j = t0 + j * NSB_JOB_PERIOD; process p arrives
 * (its NCCL kernel starts) at B_j + J(p, j), J(p, j) = ((j * 7 + p * 3) %
 * 11) * 1000 + p (distinct over p), except that process skew_proc arrives
 * at collective skew_index skew_ns after the latest other arrival (skew_ns
 * > 0). Every kernel of collective j ends at E_j = latest arrival +
 * NSB_JOB_TRANSFER. The compute kernel runs [B_j - 60 us, B_j - 10 us).
 * Process drop_proc (>= 0) leaves out its kernel of collective drop_index
 * (a collective its trace missed); then its later kernels are one index
 * behind.
 *
 * session_utc_ns > 0 writes TARGET_INFO_SESSION_START_TIME with that
 * utcEpochNs, and with sys_clock a systemClockNs column holding
 * session_sys_ns; host names the host in TARGET_INFO_SYSTEM_ENV.
 */
#define NSB_JOB_MAX_PROCS 8
#define NSB_JOB_PERIOD 1000000ll /* 1 ms between collectives */
#define NSB_JOB_TRANSFER 200000ll

struct nsb_job {
	int procs;
	int collectives;
	long long t0;
	long long nccl_stream[NSB_JOB_MAX_PROCS];
	int skew_proc, skew_index;
	long long skew_ns;
	int drop_proc, drop_index;
	long long session_utc_ns;
	bool sys_clock;
	long long session_sys_ns;
	const char *host;
};

/* The arrival of process p at collective j, as nsys_build_job writes it
 * (relative to t0), and the end of collective j. */
long long nsb_job_arrival(const struct nsb_job *o, int p, int j);
long long nsb_job_end(const struct nsb_job *o, int j);

int nsys_build_job(const char *path, const struct nsb_job *o);

/*
 * One process (pid NSB_PID_A, GPU NSB_DEV_A, context NSB_CTX) whose
 * threads push and pop NVTX ranges and launch GPU ops, as listed: an
 * export for the tests of what host ranges do. Each op is a kernel on
 * NSB_STREAM_1 or a 4 KiB pinned-to-device copy on NSB_STREAM_2, launched
 * by a cudaLaunchKernel / cudaMemcpyAsync of thread tid at call (lasting
 * NSB_CALL_NS), or by no runtime call at all (`call` < 0). Names (no
 * quotes in them) go through StringIds (kernels, calls) and the NVTX text
 * column. Times in ns, as written.
 */
#define NSB_CALL_NS 2

struct nsb_nvtx {
	long long tid;
	const char *name;
	long long start, end;
	bool start_end; /* a start/end range (may cross others), else push/pop */
};

struct nsb_op {
	long long tid;
	long long call; /* < 0: no runtime call */
	bool copy;
	const char *name;
	long long start, end;
};

int nsys_build_nvtx(const char *path, const struct nsb_nvtx *ranges, int n_ranges,
		    const struct nsb_op *ops, int n_ops);

#endif
