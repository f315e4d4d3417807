/* SPDX-License-Identifier: MIT */
/*
 * The job generator (see job.h for the timing rule and expected.json).
 *
 * Three passes: count the steps and collectives the limits allow; plan the
 * times of every collective (arrivals, ends) and step start, which needs
 * all ranks at once; then write each rank's file, on as many threads as
 * the process may use, from the plan and a counter-based hash (so a rank's
 * kernels do not depend on the order ranks are written). The writers
 * record every time they write; expected.json is computed from those.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include "job.h"

#include "jbuf.h"

#include <gpuscope/json.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#define JOB_GPUS_PER_NODE 8
#define JOB_PID_BASE 1000
#define JOB_CONTEXT 1
#define JOB_STREAM_COMPUTE 7
#define JOB_STREAM_COMM 13
/* The traces' clock: like the uptime clocks of recent Kineto traces
 * (ts ~1.4e12 us), and below 2^53 ns for 104 days, so that every time in
 * expected.json is exact through a double (cJSON) too. */
#define JOB_BASE_NS 1000000000000000LL
#define JOB_START_NS (JOB_BASE_NS + 1000000) /* T_0 */
#define JOB_DEFAULT_SEED 0x6a6f6267656eull
#define JOB_DEFAULT_COLLECTIVES 100
#define JOB_DEFAULT_SHARE 0.5
#define JOB_DEFAULT_DELAY 500000

#define JOB_NCOMPUTE 6       /* compute kernels before the all-reduce */
#define JOB_STEP_OPS_MAX 9   /* those, the all-reduce, the overlap kernel, an all-gather */
#define JOB_AG_EVERY 4       /* steps i % 4 == 3 have an all-gather */
#define JOB_JITTER_SLOTS 250 /* J = (h % 250) * N + r */
#define JOB_AG_GAP 5000      /* all-gather base: the all-reduce's end + 5 us */
#define JOB_STEP_GAP 30000
#define JOB_HOST_LEAD 300000
#define JOB_BUS_BYTES_PER_NS 150
#define JOB_TRANSFER_FIXED 20000
#define JOB_TRANSFER_JITTER 20000
#define JOB_AR_COUNT (1u << 23) /* Float elements */
#define JOB_AG_COUNT (1u << 20) /* BFloat16 elements in, per rank */
#define JOB_CAUSES 4

enum job_kind {
	JK_COMPUTE, /* stream 7 */
	JK_ALLREDUCE,
	JK_ALLGATHER,
};

struct kname {
	const char *name;
	int64_t ns; /* typical duration */
	uint32_t grid, block, regs, smem;
};

/* The compute kernels in order; the last absorbs the rank's jitter. */
static const struct kname compute_kernels[JOB_NCOMPUTE] = {
	{"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_"
	 "execute_segment_k_off_kernel__5x_cublas",
	 180000, 132, 384, 168, 232448},
	{"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
	 "cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, "
	 "false, true, false, false, true, true, false, false>(Flash_fwd_params)",
	 150000, 4096, 128, 255, 98304},
	{"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, "
	 "float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, "
	 "float*, float*, c10::BFloat16*)",
	 20000, 8192, 128, 30, 0},
	{"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
	 "execute_segment_k_off_kernel__5x_cublas",
	 60000, 132, 256, 168, 196608},
	{"void at::native::vectorized_elementwise_kernel<4, "
	 "at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3> >(int, "
	 "at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)",
	 10000, 4096, 128, 22, 0},
	{"sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize256x128x64_warpgroupsize2x1x1_"
	 "execute_segment_k_off_kernel__5x_cublas",
	 240000, 132, 384, 168, 232448},
};

/* Beside the all-reduce: the next bucket's weight gradients. */
static const struct kname overlap_kernel = {
	"sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x128x64_warpgroupsize1x1x1_"
	"execute_segment_k_off_kernel__5x_cublas",
	210000,
	132,
	256,
	168,
	196608};

static const struct kname allreduce_kernel = {
	"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
	0,
	24,
	640,
	96,
	0};
static const struct kname allgather_kernel = {
	"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 0, 11, 512, 96, 0};

/* Hash tags: one per independent draw. */
enum job_tag {
	TAG_ARRIVAL = 1,
	TAG_TRANSFER,
	TAG_OFFSET,
	TAG_DUR,
	TAG_GAP,
	TAG_OVL_GAP,
	TAG_OVL_DUR,
	TAG_BURST,
	TAG_API,
	TAG_API_GAP,
};

struct jstep {
	int64_t t;      /* T_i */
	uint64_t coll0; /* its first collective (planned) */
	uint8_t has_ag;
	uint8_t nops; /* ops written (the last step may be cut) */
};

struct jcoll {
	int64_t base, end, transfer;
	uint64_t bytes;
	uint8_t kind; /* JK_ALLREDUCE, JK_ALLGATHER */
};

/* One op of a step's layout. */
struct jop {
	int64_t start, end;
	const struct kname *k;
	uint64_t coll; /* comm kernels: the collective */
	uint8_t kind;
};

/* What a writer measured of its rank. */
struct jrank {
	uint64_t ops, comm_kernels;
	int64_t window_start, window_end;
	int64_t compute_ns, comm_ns, overlap_ns;
	uint64_t json_bytes;
};

struct job {
	uint32_t n;
	uint64_t seed;
	bool gzip;
	const char *dir;
	const char *merged;    /* the one-process file; NULL: none */
	uint64_t merged_bytes; /* its JSON text */
	int64_t straggler;     /* -1: none */
	uint64_t every;        /* the straggler's collectives: j % every == 0 */
	int64_t delay, skew;
	uint64_t skew_coll;
	uint32_t skew_rank;
	uint64_t ops_per_rank; /* written */
	uint64_t nsteps;
	struct jstep *steps;
	uint64_t ncoll_plan, ncoll; /* planned (whole steps), written */
	struct jcoll *coll;
	int64_t *arr;             /* ncoll_plan x n planned arrivals */
	int64_t *w_start, *w_end; /* ncoll x n as written */
	bool mark_steps;
	int64_t *s_start, *s_end; /* with mark_steps: nsteps x n GPU windows written */
	struct jrank *rk;         /* n */
	char *ranks_str;          /* "[0, 1, ..., N-1]" */
	size_t ranks_len;
	/* the writers */
	pthread_mutex_t mu;
	uint32_t next;
	gs_status rc;
	int ncauses;
	char causes[JOB_CAUSES][256];
};

static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A draw that depends only on what it is for. */
static uint64_t hash(const struct job *jb, enum job_tag tag, uint64_t a, uint64_t b, uint64_t c)
{
	return mix(mix(mix(mix(jb->seed ^ (uint64_t)tag) ^ a) ^ b) ^ c);
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* ±8% around `ns`. */
static int64_t around(const struct job *jb, int64_t ns, enum job_tag tag, uint64_t a, uint64_t b,
		      uint64_t c)
{
	return ns * (920 + (int64_t)(hash(jb, tag, a, b, c) % 161)) / 1000;
}

/* The bus factor f = num / den of a collective (a job has a rank at
 * least: check_options). */
static void bus_factor(const struct job *jb, uint8_t kind, int64_t *num, int64_t *den)
{
	*num = (kind == JK_ALLREDUCE ? 2 : 1) * ((int64_t)jb->n - 1);
	*den = jb->n ? jb->n : 1;
}

static int64_t compute_span(void)
{
	int64_t s = 3000;

	for (int q = 0; q < JOB_NCOMPUTE - 1; q++)
		s += compute_kernels[q].ns * 1080 / 1000 + 2000;
	return s + compute_kernels[JOB_NCOMPUTE - 1].ns;
}

/* ---- pass 1: steps and collectives ---- */

static gs_status count_steps(struct job *jb, uint64_t max_ops, uint64_t max_coll)
{
	uint64_t ops = 0, cap = 0;

	jb->nsteps = jb->ncoll = jb->ncoll_plan = 0;
	for (uint64_t i = 0;; i++) {
		struct jstep *s;
		unsigned nops, full;
		bool has_ag = i % JOB_AG_EVERY == JOB_AG_EVERY - 1;

		if ((max_coll && jb->ncoll >= max_coll) || (max_ops && ops >= max_ops))
			break;
		full = JOB_NCOMPUTE + 2 + has_ag;
		nops = full;
		if (max_coll && has_ag && jb->ncoll + 1 == max_coll)
			nops = JOB_NCOMPUTE + 2; /* the all-gather would be C+1 */
		if (max_ops && ops + nops > max_ops)
			nops = (unsigned)(max_ops - ops);
		if (jb->nsteps == cap) {
			struct jstep *ns;

			cap = cap ? cap * 2 : 256;
			ns = realloc(jb->steps, cap * sizeof(*ns));
			if (!ns) {
				gs_error_append("out of memory");
				return GS_ERR_NOMEM;
			}
			jb->steps = ns;
		}
		s = &jb->steps[jb->nsteps++];
		s->coll0 = jb->ncoll_plan;
		s->has_ag = has_ag;
		s->nops = (uint8_t)nops;
		s->t = 0;
		jb->ncoll += (nops > JOB_NCOMPUTE) + (nops > JOB_NCOMPUTE + 2);
		jb->ncoll_plan += 1 + has_ag;
		ops += nops;
	}
	jb->ops_per_rank = ops;
	return GS_OK;
}

/* ---- pass 2: the plan ---- */

static void plan_collective(struct job *jb, uint64_t j, uint8_t kind, int64_t base)
{
	struct jcoll *c = &jb->coll[j];
	int64_t *a = jb->arr + j * jb->n, last = INT64_MIN, num, den;

	c->kind = kind;
	c->base = base;
	c->bytes = kind == JK_ALLREDUCE ? (uint64_t)JOB_AR_COUNT * 4 :
					  (uint64_t)JOB_AG_COUNT * jb->n * 2;
	for (uint32_t r = 0; r < jb->n; r++)
		a[r] = base + (int64_t)(hash(jb, TAG_ARRIVAL, j, r, 0) % JOB_JITTER_SLOTS) * jb->n +
		       r;
	if (jb->straggler >= 0 && j % jb->every == 0) {
		int64_t m = INT64_MIN;

		for (uint32_t r = 0; r < jb->n; r++)
			if (r != (uint32_t)jb->straggler)
				m = max64(m, a[r]);
		a[jb->straggler] = m + jb->delay;
	}
	if (jb->skew && j == jb->skew_coll) {
		int64_t m = INT64_MIN;

		for (uint32_t r = 0; r < jb->n; r++)
			if (r != jb->skew_rank)
				m = max64(m, a[r]);
		a[jb->skew_rank] = m + jb->skew;
	}
	for (uint32_t r = 0; r < jb->n; r++)
		last = max64(last, a[r]);
	bus_factor(jb, kind, &num, &den);
	c->transfer = JOB_TRANSFER_FIXED + (int64_t)c->bytes * num / (den * JOB_BUS_BYTES_PER_NS) +
		      (int64_t)(hash(jb, TAG_TRANSFER, j, 0, 0) % JOB_TRANSFER_JITTER);
	c->end = last + c->transfer;
}

/*
 * The kernels of step i on rank r, in the order they are written (the
 * plan of the step's collectives must be done). Returns the count.
 */
static unsigned layout(const struct job *jb, uint64_t i, uint32_t r, struct jop *ops)
{
	const struct jstep *s = &jb->steps[i];
	const struct jcoll *ar = &jb->coll[s->coll0];
	int64_t arrive = jb->arr[s->coll0 * jb->n + r];
	int64_t t = s->t + (int64_t)(hash(jb, TAG_OFFSET, i, r, 0) % 3000);
	unsigned n = 0;

	for (unsigned q = 0; q < JOB_NCOMPUTE; q++) {
		const struct kname *k = &compute_kernels[q];
		int64_t end = q == JOB_NCOMPUTE - 1 ? arrive :
						      t + around(jb, k->ns, TAG_DUR, i, r, q);

		ops[n++] = (struct jop){.start = t, .end = end, .k = k, .kind = JK_COMPUTE};
		t = end + (int64_t)(hash(jb, TAG_GAP, i, r, q) % 2001);
	}
	ops[n++] = (struct jop){.start = arrive,
				.end = ar->end,
				.k = &allreduce_kernel,
				.coll = s->coll0,
				.kind = JK_ALLREDUCE};
	t = arrive + 1000 + (int64_t)(hash(jb, TAG_OVL_GAP, i, r, 0) % 1001);
	ops[n++] = (struct jop){.start = t,
				.end = t + around(jb, overlap_kernel.ns, TAG_OVL_DUR, i, r, 0),
				.k = &overlap_kernel,
				.kind = JK_COMPUTE};
	if (s->has_ag)
		ops[n++] = (struct jop){.start = jb->arr[(s->coll0 + 1) * jb->n + r],
					.end = jb->coll[s->coll0 + 1].end,
					.k = &allgather_kernel,
					.coll = s->coll0 + 1,
					.kind = JK_ALLGATHER};
	return n;
}

static gs_status plan(struct job *jb)
{
	int64_t t = JOB_START_NS, span = compute_span();

	for (uint64_t i = 0; i < jb->nsteps; i++) {
		struct jstep *s = &jb->steps[i];
		int64_t latest = INT64_MIN;
		struct jop ops[JOB_STEP_OPS_MAX];

		s->t = t;
		plan_collective(jb, s->coll0, JK_ALLREDUCE, t + span);
		if (s->has_ag)
			plan_collective(jb, s->coll0 + 1, JK_ALLGATHER,
					jb->coll[s->coll0].end + JOB_AG_GAP);
		for (uint32_t r = 0; r < jb->n; r++) {
			unsigned n = layout(jb, i, r, ops);

			/* The last compute kernel ends at the arrival: it
			 * must not end before it starts. */
			if (ops[JOB_NCOMPUTE - 1].end - ops[JOB_NCOMPUTE - 1].start < 1000) {
				gs_error_append("internal: step %" PRIu64 " rank %" PRIu32
						" has no room for its last kernel",
						i, r);
				return GS_ERR_INVALID;
			}
			for (unsigned k = 0; k < n; k++)
				latest = max64(latest, ops[k].end);
		}
		t = latest + JOB_STEP_GAP;
	}
	return GS_OK;
}

/* ---- pass 3: the files ---- */

/*
 * A writer writes one file: a rank's (rank r is device r % 8 of host
 * process 1000 + r % 8, thread = pid), or the merged one, every rank's
 * ops as one process (see job.h): rank r is device r, host thread
 * 1000 + r of process 1000, correlation ids r * K + 1 .. r * K + K.
 */
struct writer {
	struct job *jb;
	bool merged;
	uint32_t r;    /* the rank being written */
	uint32_t dev;  /* its device */
	int64_t pid;   /* its host process */
	int64_t tid;   /* its host thread */
	uint64_t corr; /* the last correlation id written */
	int64_t host;  /* the host thread's clock */
	struct jrank *st;
	struct gs_jbuf j;
};

/* Rank r as the writer writes it. */
static void w_set_rank(struct writer *w, uint32_t r)
{
	w->r = r;
	w->host = 0;
	if (w->merged) {
		w->dev = r;
		w->pid = JOB_PID_BASE;
		w->tid = JOB_PID_BASE + (int64_t)r;
		w->corr = (uint64_t)r * w->jb->ops_per_rank;
	} else {
		w->dev = r % JOB_GPUS_PER_NODE;
		w->pid = JOB_PID_BASE + w->dev;
		w->tid = w->pid;
		w->corr = 0;
	}
}

static void w_device_props(struct gs_jbuf *j, uint32_t dev)
{
	gs_outbuf_puts(&j->o, "    {\n      \"id\": ");
	gs_outbuf_u64(&j->o, dev);
	gs_outbuf_puts(
		&j->o,
		", \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 85045231616,\n"
		"      \"computeMajor\": 9, \"computeMinor\": 0, \"maxThreadsPerBlock\": "
		"1024, \"maxThreadsPerMultiprocessor\": 2048,\n      \"regsPerBlock\": 65536, "
		"\"regsPerMultiprocessor\": 65536, \"warpSize\": 32,\n"
		"      \"sharedMemPerBlock\": 49152, \"sharedMemPerMultiprocessor\": 233472,\n"
		"      \"numSms\": 132, \"sharedMemPerBlockOptin\": 232448\n    }");
}

/* The metadata events of a GPU lane (Kineto: pid = device). */
static gs_status w_gpu_lane(struct gs_jbuf *j, uint32_t dev)
{
	gs_status rc;

	if ((rc = gs_jbuf_event(j, "M", "__metadata", "process_name", dev, 0, JOB_BASE_NS, -1)))
		return rc;
	gs_outbuf_puts(&j->o,
		       ",\n    \"args\": {\n      \"name\": \"python train.py --job\"\n    }\n  }");
	if ((rc = gs_jbuf_event(j, "M", "__metadata", "process_labels", dev, 0, JOB_BASE_NS, -1)))
		return rc;
	gs_outbuf_puts(&j->o, ",\n    \"args\": {\n      \"labels\": \"GPU ");
	gs_outbuf_u64(&j->o, dev);
	gs_outbuf_puts(&j->o, "\"\n    }\n  }");
	return GS_OK;
}

static gs_status w_header(struct writer *w)
{
	struct gs_jbuf *j = &w->j;
	uint32_t ndev = w->merged ? w->jb->n : 1;
	gs_status rc;

	gs_outbuf_puts(&j->o, "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n");
	for (uint32_t d = 0; d < ndev; d++) {
		if ((rc = gs_jbuf_reserve(j)))
			return rc;
		if (d)
			gs_outbuf_puts(&j->o, ",\n");
		w_device_props(j, w->merged ? d : w->dev);
	}
	gs_outbuf_puts(&j->o,
		       "\n  ],\n  \"cupti_version\": 22,\n  \"cuda_runtime_version\": 12040,\n"
		       "  \"cuda_driver_version\": 12040,\n  \"host_name\": \"bench-node-");
	gs_outbuf_u64(&j->o, w->merged ? 0 : w->r / JOB_GPUS_PER_NODE);
	if (w->merged) {
		/* One process: no distributedInfo, it is not a rank of a job. */
		gs_outbuf_puts(&j->o, "\",\n  \"traceEvents\": [");
	} else {
		gs_outbuf_puts(&j->o,
			       "\",\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": ");
		gs_outbuf_u64(&j->o, w->r);
		gs_outbuf_puts(&j->o, ", \"world_size\": ");
		gs_outbuf_u64(&j->o, w->jb->n);
		gs_outbuf_puts(
			&j->o,
			", \"pg_count\": 1, \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": "
			"\"default_pg\", \"backend_config\": \"cuda:nccl\", \"pg_size\": ");
		gs_outbuf_u64(&j->o, w->jb->n);
		gs_outbuf_puts(&j->o, ", \"ranks\": ");
		if ((rc = gs_jbuf_long(j, w->jb->ranks_str, w->jb->ranks_len)))
			return rc;
		gs_outbuf_puts(&j->o, "}], \"nccl_version\": \"2.21.5\"},\n  \"traceEvents\": [");
	}
	j->first_event = true;
	if ((rc = gs_jbuf_event(j, "M", "__metadata", "process_name", w->pid, 0, JOB_BASE_NS, -1)))
		return rc;
	gs_outbuf_puts(&j->o,
		       ",\n    \"args\": {\n      \"name\": \"python train.py --job\"\n    }\n  }");
	if ((rc = gs_jbuf_event(j, "M", "__metadata", "process_labels", w->pid, 0, JOB_BASE_NS,
				-1)))
		return rc;
	gs_outbuf_puts(&j->o, ",\n    \"args\": {\n      \"labels\": \"CPU\"\n    }\n  }");
	for (uint32_t d = 0; d < ndev; d++)
		if ((rc = w_gpu_lane(j, w->merged ? d : w->dev)))
			return rc;
	return GS_OK;
}

/* One kernel and its cudaLaunchKernel (step i, op k). */
static gs_status w_kernel(struct writer *w, uint64_t i, unsigned k, const struct jop *op)
{
	struct gs_jbuf *j = &w->j;
	const struct kname *kn = op->k;
	uint32_t dev = w->dev;
	int64_t t0 = w->host, t1 = t0 + 4000 + (int64_t)(hash(w->jb, TAG_API, i, w->r, k) % 3001);
	uint64_t corr = ++w->corr;
	bool comm = op->kind != JK_COMPUTE;
	gs_status rc;

	if (t0 >= op->start) {
		gs_error_append("internal: a launch after its kernel (rank %" PRIu32 ")", w->r);
		return GS_ERR_INVALID;
	}
	w->host = t1 + 1000 + (int64_t)(hash(w->jb, TAG_API_GAP, i, w->r, k) % 2001);
	if ((rc = gs_jbuf_event(j, "X", "cuda_runtime", "cudaLaunchKernel", w->pid, w->tid, t0,
				t1 - t0)))
		return rc;
	gs_outbuf_puts(&j->o, ",\n    \"args\": {\n      \"cbid\": 211, \"correlation\": ");
	gs_outbuf_u64(&j->o, corr);
	gs_outbuf_puts(&j->o, "\n    }\n  }");
	if ((rc = gs_jbuf_event(j, "X", "kernel", kn->name, dev,
				comm ? JOB_STREAM_COMM : JOB_STREAM_COMPUTE, op->start,
				op->end - op->start)))
		return rc;
	gs_outbuf_puts(&j->o, ",\n    \"args\": {\n      \"queued\": 0, \"device\": ");
	gs_outbuf_u64(&j->o, dev);
	gs_outbuf_puts(&j->o, ", \"context\": 1, \"stream\": ");
	gs_outbuf_u64(&j->o, comm ? JOB_STREAM_COMM : JOB_STREAM_COMPUTE);
	gs_outbuf_puts(&j->o, ", \"correlation\": ");
	gs_outbuf_u64(&j->o, corr);
	gs_outbuf_puts(&j->o, ", \"registers per thread\": ");
	gs_outbuf_u64(&j->o, kn->regs);
	gs_outbuf_puts(&j->o, ", \"shared memory\": ");
	gs_outbuf_u64(&j->o, kn->smem);
	gs_outbuf_puts(&j->o, ", \"grid\": [");
	gs_outbuf_u64(&j->o, kn->grid);
	gs_outbuf_puts(&j->o, ", 1, 1], \"block\": [");
	gs_outbuf_u64(&j->o, kn->block);
	gs_outbuf_puts(&j->o, ", 1, 1]");
	if (comm) {
		bool ar = op->kind == JK_ALLREDUCE;
		uint64_t in = ar ? JOB_AR_COUNT : JOB_AG_COUNT;

		gs_outbuf_puts(&j->o, ar ? ",\n      \"Collective name\": \"allreduce\"" :
					   ",\n      \"Collective name\": \"_allgather_base\"");
		gs_outbuf_puts(&j->o, ", \"In msg nelems\": ");
		gs_outbuf_u64(&j->o, in);
		gs_outbuf_puts(&j->o, ", \"Out msg nelems\": ");
		gs_outbuf_u64(&j->o, ar ? in : in * w->jb->n);
		gs_outbuf_puts(&j->o, ", \"Group size\": ");
		gs_outbuf_u64(&j->o, w->jb->n);
		gs_outbuf_puts(&j->o, ar ? ", \"dtype\": \"Float\"" : ", \"dtype\": \"BFloat16\"");
		gs_outbuf_puts(&j->o,
			       ", \"In split size\": \"[]\", \"Out split size\": \"[]\", "
			       "\"Process Group Name\": \"0\", \"Process Group Description\": "
			       "\"default_pg\", \"Process Group Ranks\": \"");
		if ((rc = gs_jbuf_long(j, w->jb->ranks_str, w->jb->ranks_len)))
			return rc;
		gs_outbuf_puts(&j->o, "\"");
	}
	gs_outbuf_puts(&j->o, "\n    }\n  }");
	return GS_OK;
}

/* Every op of rank w->r and its launch, with what it measures in w->st
 * (and, for the rank files, the collectives' times as written). */
static gs_status w_ops(struct writer *w)
{
	struct job *jb = w->jb;
	struct jrank *st = w->st;
	struct jop ops[JOB_STEP_OPS_MAX];
	gs_status rc;

	memset(st, 0, sizeof(*st));
	st->window_start = INT64_MAX;
	st->window_end = INT64_MIN;
	for (uint64_t i = 0; i < jb->nsteps; i++) {
		const struct jstep *s = &jb->steps[i];
		unsigned n = layout(jb, i, w->r, ops);

		if (n > s->nops)
			n = s->nops;
		int64_t h0, g0 = INT64_MAX, g1 = INT64_MIN;

		w->host = max64(w->host, s->t - JOB_HOST_LEAD +
						 (int64_t)(hash(jb, TAG_BURST, i, w->r, 0) % 5000));
		h0 = w->host;
		for (unsigned k = 0; k < n; k++) {
			const struct jop *op = &ops[k];
			int64_t d = op->end - op->start;

			if ((rc = w_kernel(w, i, k, op)))
				return rc;
			g0 = min64(g0, op->start);
			g1 = max64(g1, op->end);
			st->ops++;
			st->window_start = min64(st->window_start, op->start);
			st->window_end = max64(st->window_end, op->end);
			if (op->kind == JK_COMPUTE) {
				st->compute_ns += d;
				continue;
			}
			st->comm_kernels++;
			st->comm_ns += d;
			if (!w->merged) {
				jb->w_start[op->coll * jb->n + w->r] = op->start;
				jb->w_end[op->coll * jb->n + w->r] = op->end;
			}
			/* Compute kernels of one stream never overlap each
			 * other, and steps never overlap: the sum of the
			 * intersections with this step's is exact. */
			for (unsigned q = 0; q < n; q++)
				if (ops[q].kind == JK_COMPUTE)
					st->overlap_ns +=
						max64(0, min64(op->end, ops[q].end) -
								 max64(op->start, ops[q].start));
		}
		if (jb->mark_steps && !w->merged && n) {
			char name[48];

			snprintf(name, sizeof(name), "ProfilerStep#%" PRIu64, i);
			if ((rc = gs_jbuf_event(&w->j, "X", "user_annotation", name, w->pid, w->tid,
						h0, w->host - h0)))
				return rc;
			gs_outbuf_puts(&w->j.o, "\n  }");
			jb->s_start[i * jb->n + w->r] = g0;
			jb->s_end[i * jb->n + w->r] = g1;
		}
	}
	return GS_OK;
}

/* The whole file: one rank's, or (merged) every rank's one after another. */
static gs_status w_file(struct writer *w)
{
	struct jrank scratch;
	gs_status rc;

	if ((rc = w_header(w)))
		return rc;
	if (w->merged) {
		w->st = &scratch;
		for (uint32_t r = 0; r < w->jb->n && !rc; r++) {
			w_set_rank(w, r);
			rc = w_ops(w);
		}
	} else {
		rc = w_ops(w);
	}
	if (rc || (rc = gs_jbuf_reserve(&w->j)))
		return rc;
	gs_outbuf_puts(&w->j.o, "\n  ],\n  \"traceName\": \"");
	if (w->merged) {
		gs_outbuf_puts(&w->j.o, "merged");
	} else {
		gs_outbuf_puts(&w->j.o, "rank");
		gs_outbuf_u64(&w->j.o, w->r);
	}
	gs_outbuf_puts(&w->j.o, ".pt.trace.json\",\n  \"displayTimeUnit\": \"ms\",\n"
				"  \"baseTimeNanoseconds\": 1718294400000000000\n}\n");
	return gs_jbuf_flush(&w->j);
}

/* Task 0 is the merged file when asked for (the longest: first), then the
 * ranks. */
static gs_status write_file(struct job *jb, uint32_t task)
{
	char path[4096];
	struct writer w = {.jb = jb, .merged = jb->merged && task == 0};
	uint32_t r = task - (jb->merged ? 1 : 0);
	FILE *f = NULL;
	gzFile gz = NULL;
	gs_status rc;

	if (w.merged) {
		snprintf(path, sizeof(path), "%s", jb->merged);
		w_set_rank(&w, 0);
	} else {
		snprintf(path, sizeof(path), "%s/rank%" PRIu32 ".json%s", jb->dir, r,
			 jb->gzip ? ".gz" : "");
		w_set_rank(&w, r);
		w.st = &jb->rk[r];
	}
	if (jb->gzip ? !(gz = gzopen(path, "wb1")) : !(f = fopen(path, "wb"))) {
		gs_error_append("%s: %s", path, strerror(errno));
		return GS_ERR_IO;
	}
	rc = gs_jbuf_init(&w.j, f, gz);
	if (!rc)
		rc = w_file(&w);
	if (w.merged)
		jb->merged_bytes = w.j.bytes;
	else
		jb->rk[r].json_bytes = w.j.bytes;
	gs_jbuf_fini(&w.j);
	if (f && fclose(f) != 0 && !rc) {
		gs_error_append("%s: %s", path, strerror(errno));
		rc = GS_ERR_IO;
	}
	if (gz && gzclose(gz) != Z_OK && !rc) {
		gs_error_append("%s: closing failed", path);
		rc = GS_ERR_IO;
	}
	return rc;
}

static void *writer_main(void *arg)
{
	struct job *jb = arg;
	uint32_t tasks = jb->n + (jb->merged ? 1 : 0);

	pthread_mutex_lock(&jb->mu);
	while (!jb->rc && jb->next < tasks) {
		uint32_t task = jb->next++;
		gs_status rc;

		pthread_mutex_unlock(&jb->mu);
		gs_error_clear();
		rc = write_file(jb, task);
		pthread_mutex_lock(&jb->mu);
		if (rc && !jb->rc) {
			/* The causes are this thread's: keep them for the caller. */
			jb->rc = rc;
			jb->ncauses = gs_error_count() < JOB_CAUSES ? gs_error_count() : JOB_CAUSES;
			for (int k = 0; k < jb->ncauses; k++)
				snprintf(jb->causes[k], sizeof(jb->causes[k]), "%s",
					 gs_error_message(k));
		}
	}
	pthread_mutex_unlock(&jb->mu);
	gs_error_clear();
	return NULL;
}

static unsigned cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 1;
	return CPU_COUNT(&set) > 0 ? (unsigned)CPU_COUNT(&set) : 1;
}

static gs_status write_ranks(struct job *jb, unsigned threads)
{
	pthread_t th[64];
	unsigned nth = 0, tasks = jb->n + (jb->merged ? 1 : 0);

	if (!threads)
		threads = cpus();
	if (threads > tasks)
		threads = tasks;
	if (threads > 64)
		threads = 64;
	if (pthread_mutex_init(&jb->mu, NULL) != 0) {
		gs_error_append("pthread_mutex_init failed");
		return GS_ERR_NOMEM;
	}
	/* This thread writes too, so fewer threads than asked is fine. */
	while (nth + 1 < threads && pthread_create(&th[nth], NULL, writer_main, jb) == 0)
		nth++;
	writer_main(jb);
	for (unsigned k = 0; k < nth; k++)
		pthread_join(th[k], NULL);
	pthread_mutex_destroy(&jb->mu);
	for (int k = 0; k < jb->ncauses; k++)
		gs_error_append("%s", jb->causes[k]);
	return jb->rc;
}

/* ---- expected.json ---- */

/* The last arrival and its rank of collective j, as written. */
static int64_t last_of(const struct job *jb, uint64_t j, uint32_t *rank)
{
	const int64_t *a = jb->w_start + j * jb->n;
	uint32_t lr = 0;

	for (uint32_t r = 1; r < jb->n; r++)
		if (a[r] > a[lr])
			lr = r;
	*rank = lr;
	return a[lr];
}

/* "rank<r>.json" or ".json.gz": rank r's file. */
static void json_rank_file(struct gs_json *w, const struct job *jb, const char *key, uint32_t r)
{
	char name[32];

	snprintf(name, sizeof(name), "rank%" PRIu32 ".json%s", r, jb->gzip ? ".gz" : "");
	gs_json_str(w, key, name);
}

static void json_i64s(struct gs_json *w, const char *key, const int64_t *v, uint32_t n)
{
	gs_json_arr_inline(w, key);
	for (uint32_t r = 0; r < n; r++)
		gs_json_i64(w, NULL, v[r]);
	gs_json_end_arr(w);
}

/* The collectives, checked against their plan as they are written: GS_OK
 * or GS_ERR_INVALID (its cause appended). Adds up each rank's wait and
 * times last, the straggler's cost and the collectives planted. */
static gs_status json_collectives(struct gs_json *w, const struct job *jb, int64_t *waited,
				  uint64_t *times_last, int64_t *cost, uint64_t *planted)
{
	gs_status rc = GS_OK;

	gs_json_arr(w, "collectives");
	for (uint64_t j = 0; j < jb->ncoll; j++) {
		const struct jcoll *c = &jb->coll[j];
		const int64_t *a = jb->w_start + j * jb->n, *e = jb->w_end + j * jb->n;
		uint32_t lr;
		int64_t last = last_of(jb, j, &lr), first = a[0], num, den, transfer;
		double algbw;

		for (uint32_t r = 0; r < jb->n; r++) {
			first = min64(first, a[r]);
			if (e[r] != e[0] || a[r] != jb->arr[j * jb->n + r]) {
				gs_error_append("internal: collective %" PRIu64
						" written unlike its plan",
						j);
				rc = GS_ERR_INVALID;
			}
			waited[r] += last - a[r];
		}
		times_last[lr]++;
		if (jb->straggler >= 0 && lr == (uint32_t)jb->straggler)
			for (uint32_t r = 0; r < jb->n; r++)
				*cost += last - a[r];
		if (jb->straggler >= 0 && j % jb->every == 0)
			(*planted)++;
		transfer = e[0] - last;
		bus_factor(jb, c->kind, &num, &den);
		algbw = (double)c->bytes / (double)transfer;
		gs_json_mixed(w, NULL);
		gs_json_str(w, "group", "0");
		gs_json_u64(w, "index", j);
		gs_json_str(w, "name", c->kind == JK_ALLREDUCE ? "allreduce" : "_allgather_base");
		gs_json_str(w, "kernel",
			    c->kind == JK_ALLREDUCE ? allreduce_kernel.name :
						      allgather_kernel.name);
		gs_json_u64(w, "bytes", c->bytes);
		gs_json_wrap(w);
		json_i64s(w, "arrivals_ns", a, jb->n);
		gs_json_wrap(w);
		gs_json_i64(w, "end_ns", e[0]);
		gs_json_i64(w, "skew_ns", last - first);
		gs_json_u64(w, "last_rank", lr);
		gs_json_i64(w, "transfer_ns", transfer);
		gs_json_double(w, "algbw_gbps", algbw);
		gs_json_double(w, "busbw_gbps", algbw * (double)num / (double)den);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
	return rc;
}

static void json_per_rank(struct gs_json *w, const struct job *jb, const int64_t *waited,
			  const uint64_t *times_last)
{
	gs_json_arr(w, "per_rank");
	for (uint32_t r = 0; r < jb->n; r++) {
		const struct jrank *s = &jb->rk[r];

		gs_json_mixed(w, NULL);
		gs_json_u64(w, "rank", r);
		gs_json_u64(w, "device", r % JOB_GPUS_PER_NODE);
		gs_json_u64(w, "pid", JOB_PID_BASE + r % JOB_GPUS_PER_NODE);
		json_rank_file(w, jb, "file", r);
		gs_json_u64(w, "ops", s->ops);
		gs_json_u64(w, "comm_kernels", s->comm_kernels);
		gs_json_wrap(w);
		gs_json_i64(w, "window_start_ns", s->ops ? s->window_start : 0);
		gs_json_i64(w, "window_end_ns", s->ops ? s->window_end : 0);
		gs_json_i64(w, "compute_kernel_ns", s->compute_ns);
		gs_json_i64(w, "comm_kernel_ns", s->comm_ns);
		gs_json_wrap(w);
		gs_json_i64(w, "overlap_ns", s->overlap_ns);
		gs_json_i64(w, "exposed_comm_ns", s->comm_ns - s->overlap_ns);
		gs_json_double(w, "overlap_share",
			       s->comm_ns ? (double)s->overlap_ns / (double)s->comm_ns : 0.0);
		gs_json_i64(w, "busy_ns", s->compute_ns + s->comm_ns - s->overlap_ns);
		gs_json_wrap(w);
		gs_json_i64(w, "waited_ns", waited[r]);
		gs_json_u64(w, "times_last", times_last[r]);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
}

static void json_step_windows(struct gs_json *w, const struct job *jb)
{
	gs_json_arr(w, "step_windows");
	for (uint64_t i = 0; i < jb->nsteps; i++) {
		if (!jb->steps[i].nops)
			continue;
		gs_json_row(w, NULL);
		gs_json_u64(w, "number", i);
		json_i64s(w, "gpu_start_ns", jb->s_start + i * jb->n, jb->n);
		json_i64s(w, "gpu_end_ns", jb->s_end + i * jb->n, jb->n);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
}

static gs_status write_expected(const struct job *jb, struct gs_bench_job_summary *sum)
{
	char path[4096];
	FILE *f;
	struct gs_outbuf o;
	struct gs_json w;
	int64_t *waited = calloc(jb->n, sizeof(*waited));
	uint64_t *times_last = calloc(jb->n, sizeof(*times_last));
	int64_t cost = 0;
	uint64_t planted = 0;
	gs_status rc, wrc;

	if (!waited || !times_last) {
		free(waited);
		free(times_last);
		gs_error_append("out of memory");
		return GS_ERR_NOMEM;
	}
	snprintf(path, sizeof(path), "%s/expected.json", jb->dir);
	if (!(f = fopen(path, "w"))) {
		gs_error_append("%s: %s", path, strerror(errno));
		free(waited);
		free(times_last);
		return GS_ERR_IO;
	}
	gs_outbuf_init(&o, f);
	gs_json_init(&w, &o, GS_JSON_ESCAPE_DEL);
	/* "schema" first: the inputs of a directory tell it from a trace by it. */
	gs_json_obj(&w, NULL);
	gs_json_str(&w, "schema", "gpuscope-bench-job-expected");
	gs_json_u64(&w, "version", 1);
	gs_json_u64(&w, "ranks", jb->n);
	gs_json_u64(&w, "gpus_per_node", JOB_GPUS_PER_NODE);
	gs_json_u64(&w, "seed", jb->seed);
	gs_json_u64(&w, "compute_stream", JOB_STREAM_COMPUTE);
	gs_json_u64(&w, "comm_stream", JOB_STREAM_COMM);
	gs_json_arr_inline(&w, "files");
	for (uint32_t r = 0; r < jb->n; r++)
		json_rank_file(&w, jb, NULL, r);
	gs_json_end_arr(&w);
	gs_json_u64(&w, "ops_per_rank", jb->ops_per_rank);
	gs_json_u64(&w, "steps", jb->nsteps);
	gs_json_arr_inline(&w, "groups");
	gs_json_row(&w, NULL);
	gs_json_str(&w, "name", "0");
	gs_json_str(&w, "desc", "default_pg");
	gs_json_arr_inline(&w, "ranks");
	for (uint32_t r = 0; r < jb->n; r++)
		gs_json_u64(&w, NULL, r);
	gs_json_end_arr(&w);
	gs_json_u64(&w, "collectives", jb->ncoll);
	gs_json_end_obj(&w);
	gs_json_end_arr(&w);
	rc = json_collectives(&w, jb, waited, times_last, &cost, &planted);
	if (jb->straggler >= 0) {
		gs_json_row(&w, "straggler");
		gs_json_i64(&w, "rank", jb->straggler);
		gs_json_u64(&w, "every", jb->every);
		gs_json_i64(&w, "delay_ns", jb->delay);
		gs_json_u64(&w, "planted", planted);
		gs_json_u64(&w, "times_last", times_last[jb->straggler]);
		gs_json_double(&w, "last_share",
			       jb->ncoll ? (double)times_last[jb->straggler] / (double)jb->ncoll :
					   0.0);
		gs_json_i64(&w, "cost_ns", cost);
		gs_json_end_obj(&w);
	} else {
		gs_json_null(&w, "straggler");
	}
	if (jb->skew && jb->skew_coll < jb->ncoll) {
		gs_json_row(&w, "skew");
		gs_json_u64(&w, "collective", jb->skew_coll);
		gs_json_u64(&w, "rank", jb->skew_rank);
		gs_json_i64(&w, "skew_ns", jb->skew);
		gs_json_end_obj(&w);
	} else {
		gs_json_null(&w, "skew");
	}
	json_per_rank(&w, jb, waited, times_last);
	for (uint32_t r = 0; r < jb->n; r++)
		sum->json_bytes += jb->rk[r].json_bytes;
	if (jb->mark_steps)
		json_step_windows(&w, jb);
	gs_json_end_obj(&w);
	gs_outbuf_putc(&o, '\n');
	wrc = gs_outbuf_finish(&o);
	if (fclose(f) != 0 && !wrc) {
		gs_error_append("write failed: %s", strerror(errno));
		wrc = GS_ERR_IO;
	}
	if (wrc && !rc) {
		gs_error_append("%s", path);
		rc = wrc;
	}
	free(waited);
	free(times_last);
	return rc;
}

/* ---- the whole ---- */

static gs_status check_options(const struct gs_bench_job_options *o)
{
	if (o->ranks < 1 || o->ranks > GS_BENCH_JOB_MAX_RANKS) {
		gs_error_append("a job has 1 to %d ranks", GS_BENCH_JOB_MAX_RANKS);
		return GS_ERR_INVALID;
	}
	if ((o->straggler >= 0 || o->skew) && o->ranks < 2) {
		gs_error_append("a straggler or a skew needs 2 ranks or more");
		return GS_ERR_INVALID;
	}
	if (o->straggler >= (int64_t)o->ranks || o->straggler < -1) {
		gs_error_append("the straggler must be a rank (0 to %" PRIu32 ")", o->ranks - 1);
		return GS_ERR_INVALID;
	}
	if (!(o->straggler_share >= 0 && o->straggler_share <= 1) || o->straggler_delay < 0 ||
	    o->straggler_delay > 10000000000LL || o->skew < 0 || o->skew > 10000000000LL) {
		gs_error_append("the straggler share is in (0, 1], delays and skews 0 to 10 s");
		return GS_ERR_INVALID;
	}
	return GS_OK;
}

static gs_status make_dir(const char *dir)
{
	if (mkdir(dir, 0777) == 0 || errno == EEXIST)
		return GS_OK;
	gs_error_append("%s: %s", dir, strerror(errno));
	return GS_ERR_IO;
}

static char *ranks_string(uint32_t n)
{
	char *s = malloc((size_t)n * 7 + 3), *p = s;

	if (!s)
		return NULL;
	*p++ = '[';
	for (uint32_t r = 0; r < n; r++)
		p += sprintf(p, r ? ", %" PRIu32 : "%" PRIu32, r);
	*p++ = ']';
	*p = 0;
	return s;
}

gs_status gs_bench_job_generate(const struct gs_bench_job_options *o, const char *dir,
				struct gs_bench_job_summary *sum)
{
	struct job *jb;
	uint64_t max_coll = o->collectives;
	gs_status rc;

	memset(sum, 0, sizeof(*sum));
	if ((rc = check_options(o)) || (rc = make_dir(dir)))
		return rc;
	if (!(jb = calloc(1, sizeof(*jb)))) {
		gs_error_append("out of memory");
		return GS_ERR_NOMEM;
	}
	jb->n = o->ranks;
	jb->seed = o->seed ? o->seed : JOB_DEFAULT_SEED;
	jb->gzip = o->gzip;
	jb->dir = dir;
	jb->merged = o->merged;
	jb->straggler = o->straggler;
	jb->every = (uint64_t)llround(
		1.0 / (o->straggler_share > 0 ? o->straggler_share : JOB_DEFAULT_SHARE));
	if (jb->every < 1)
		jb->every = 1;
	jb->delay = o->straggler_delay ? o->straggler_delay : JOB_DEFAULT_DELAY;
	jb->skew = o->skew;
	jb->skew_rank =
		(uint32_t)(((jb->straggler >= 0 ? (uint64_t)jb->straggler : 0) + jb->n / 2) %
			   jb->n);
	if (!max_coll && !o->ops_per_rank)
		max_coll = JOB_DEFAULT_COLLECTIVES;
	rc = count_steps(jb, o->ops_per_rank, max_coll);
	if (!rc) {
		jb->skew_coll = jb->ncoll / 2;
		if (jb->straggler >= 0 && jb->every > 1 && jb->skew_coll % jb->every == 0 &&
		    jb->skew_coll + 1 < jb->ncoll)
			jb->skew_coll++;
		jb->coll = calloc(jb->ncoll_plan ? jb->ncoll_plan : 1, sizeof(*jb->coll));
		jb->arr = calloc(jb->ncoll_plan * jb->n + 1, sizeof(*jb->arr));
		jb->w_start = calloc(jb->ncoll * jb->n + 1, sizeof(*jb->w_start));
		jb->w_end = calloc(jb->ncoll * jb->n + 1, sizeof(*jb->w_end));
		jb->rk = calloc(jb->n, sizeof(*jb->rk));
		jb->ranks_str = ranks_string(jb->n);
		jb->ranks_len = jb->ranks_str ? strlen(jb->ranks_str) : 0;
		if (!jb->coll || !jb->arr || !jb->w_start || !jb->w_end || !jb->rk ||
		    !jb->ranks_str) {
			gs_error_append("out of memory");
			rc = GS_ERR_NOMEM;
		}
	}
	jb->mark_steps = o->steps;
	if (!rc && jb->mark_steps) {
		jb->s_start = calloc(jb->nsteps * jb->n + 1, sizeof(*jb->s_start));
		jb->s_end = calloc(jb->nsteps * jb->n + 1, sizeof(*jb->s_end));
		if (!jb->s_start || !jb->s_end) {
			gs_error_append("out of memory");
			rc = GS_ERR_NOMEM;
		}
	}
	if (!rc)
		rc = plan(jb);
	if (!rc)
		rc = write_ranks(jb, o->threads);
	if (!rc)
		rc = write_expected(jb, sum);
	sum->ops_per_rank = jb->ops_per_rank;
	sum->collectives = jb->ncoll;
	sum->steps = jb->nsteps;
	sum->merged_json_bytes = jb->merged_bytes;
	free(jb->steps);
	free(jb->coll);
	free(jb->arr);
	free(jb->w_start);
	free(jb->w_end);
	free(jb->s_start);
	free(jb->s_end);
	free(jb->rk);
	free(jb->ranks_str);
	free(jb);
	return rc;
}
