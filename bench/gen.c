/* SPDX-License-Identifier: MIT */
/*
 * The benchmark trace generator (see gen.h).
 *
 * Workload, per device and per training step (one host thread per device,
 * PyTorch-like, B transformer blocks):
 *   - the input batch: cudaMemcpyAsync HtoD (pinned) on the copy stream, an
 *     event recorded there, the compute stream waits on it;
 *   - the labels: a synchronous cudaMemcpy HtoD from pageable memory on the
 *     legacy default (compute) stream: a copy that could not overlap;
 *   - zero_grad: two cudaMemsetAsync;
 *   - forward: 10 kernels a block (layer norm, GEMMs, flash attention,
 *     element-wise), then the loss (2 kernels);
 *   - backward: 14 kernels a block; after each block's weight gradients an
 *     event on the compute stream, the communication stream waits on it and
 *     runs an NCCL all-reduce (launched with cuLaunchKernelEx); at the end
 *     the compute stream waits on the communication stream;
 *   - the optimizer: 8 short multi_tensor_apply kernels (launch-bound);
 *   - the loss to the host: the d2h stream waits on the compute stream, a
 *     cudaMemcpyAsync DtoH to pageable memory, then cudaStreamSynchronize.
 * Every launch has its API call (correlation ids), every kernel its cpu_op
 * (GEMMs two nested: aten::linear > aten::addmm), each step a ProfilerStep#
 * user_annotation (with its gpu_user_annotation on the compute stream) and
 * two python_function ranges; a profiler overhead
 * record every 64 steps. Durations carry a deterministic jitter (+-8%, and
 * one op in 200 three times longer), host work likewise, so the numbers
 * compress like recorded ones, not like a repeated pattern.
 *
 * Host and GPU clocks: each host thread runs ahead of its GPU (launches take
 * 4-7 us, host work 8-25 us per op); an op starts at the latest of its
 * launch plus 3-6 us, the end of the previous op of its stream and the
 * events it waits on.
 */
#include "gen.h"
#include "jbuf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define GEN_MAX_DEVICES 64
#define GEN_BLOCKS 4
#define GEN_PID 4242
#define GEN_CONTEXT 1
#define GEN_BASE_NS 1718294400000000000LL

enum gen_stream {
	ST_COMPUTE, /* legacy default stream 7 */
	ST_COMM,    /* NCCL */
	ST_H2D,
	ST_D2H,
	ST_COUNT
};

static const uint64_t stream_ids[ST_COUNT] = {7, 13, 20, 24};
static const uint8_t stream_kinds[ST_COUNT] = {GS_STREAM_LEGACY_DEFAULT, GS_STREAM_NON_BLOCKING,
					       GS_STREAM_NON_BLOCKING, GS_STREAM_NON_BLOCKING};
static const int32_t stream_prio[ST_COUNT] = {0, -1, 0, 0};

/* Every string the generator uses, interned once. */
enum gen_name {
	/* kernels */
	N_LN_FWD,
	N_GEMM_QKV,
	N_FLASH_FWD,
	N_GEMM_PROJ,
	N_ADD,
	N_GEMM_FC1,
	N_GELU,
	N_GEMM_FC2,
	N_LOG_SOFTMAX,
	N_NLL,
	N_GEMM_DGRAD,
	N_GEMM_WGRAD,
	N_GELU_BWD,
	N_LN_BWD,
	N_FLASH_BWD,
	N_REDUCE,
	N_ALLREDUCE,
	N_ADAM,
	/* copies and memsets */
	N_MEMCPY_H2D_PINNED,
	N_MEMCPY_H2D_PAGEABLE,
	N_MEMCPY_D2H_PAGEABLE,
	N_MEMSET,
	/* API calls */
	N_LAUNCH,
	N_LAUNCH_EX,
	N_MEMCPY_ASYNC,
	N_MEMCPY_SYNC,
	N_MEMSET_ASYNC,
	N_EVENT_RECORD,
	N_WAIT_EVENT,
	N_STREAM_SYNC,
	/* host ranges */
	N_OP_LAYER_NORM,
	N_OP_LINEAR,
	N_OP_ADDMM,
	N_OP_FLASH,
	N_OP_ADD,
	N_OP_GELU,
	N_OP_CROSS_ENTROPY,
	N_OP_MM,
	N_OP_BWD_ADDMM,
	N_OP_BWD_GELU,
	N_OP_BWD_LN,
	N_OP_BWD_FLASH,
	N_OP_SUM,
	N_OP_ALLREDUCE,
	N_OP_ADAM,
	N_OP_TO,
	N_OP_COPY,
	N_OP_ZERO,
	N_OP_ITEM,
	N_PY_STEP,
	N_PY_CALL,
	N_STEP, /* "ProfilerStep#" prefix: steps get their own strings */
	N_OVERHEAD,
	/* metadata */
	N_HOST,
	N_CMDLINE,
	N_DRIVER,
	N_RUNTIME,
	N_CUPTI,
	N_DEVICE,
	N_COUNT
};

static const char *const names[N_COUNT] = {
	[N_LN_FWD] = "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<"
		     "c10::BFloat16, float>(int, float, c10::BFloat16 const*, c10::BFloat16 "
		     "const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)",
	[N_GEMM_QKV] = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_"
		       "warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas",
	[N_FLASH_FWD] = "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, "
			"false, cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, "
			"cutlass::bfloat16_t> >, false, true, false, false, true, true, false, "
			"false>(Flash_fwd_params)",
	[N_GEMM_PROJ] = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_"
			"warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
	[N_ADD] = "void at::native::vectorized_elementwise_kernel<4, "
		  "at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3> "
		  ">(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, "
		  "3>)",
	[N_GEMM_FC1] = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x64_"
		       "warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas",
	[N_GELU] = "void at::native::vectorized_elementwise_kernel<4, "
		   "at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
		   "at::native::GeluType)::{lambda()#2}::operator()() "
		   "const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, "
		   "at::detail::Array<char*, 2> >(int, at::native::GeluCUDAKernelImpl("
		   "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() "
		   "const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, "
		   "at::detail::Array<char*, 2>)",
	[N_GEMM_FC2] = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize256x128x64_"
		       "warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas",
	[N_LOG_SOFTMAX] = "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, "
			  "float, float, float, at::native::(anonymous "
			  "namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)",
	[N_NLL] = "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_"
		  "kernel_2d<float, float, long>(float*, float*, float const*, long const*, "
		  "float const*, bool, long, long, long, long)",
	[N_GEMM_DGRAD] = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x256x64_"
			 "warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas",
	[N_GEMM_WGRAD] = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x128x64_"
			 "warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
	[N_GELU_BWD] = "void at::native::vectorized_elementwise_kernel<4, "
		       "at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, "
		       "at::native::GeluType)::{lambda()#2}::operator()() "
		       "const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, "
		       "c10::BFloat16)#1}, at::detail::Array<char*, 3> >(int, "
		       "at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, "
		       "at::native::GeluType)::{lambda()#2}::operator()() "
		       "const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16, "
		       "c10::BFloat16)#1}, at::detail::Array<char*, 3>)",
	[N_LN_BWD] = "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_"
		     "vectorized<c10::BFloat16, float>(c10::BFloat16 const*, c10::BFloat16 "
		     "const*, float const*, float const*, c10::BFloat16 const*, c10::BFloat16*, "
		     "int)",
	[N_FLASH_BWD] = "void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_"
			"traits<128, 64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t, "
			"Flash_kernel_traits<128, 64, 128, 8, cutlass::bfloat16_t> >, false, "
			"true, false, false, true, true>(Flash_bwd_params)",
	[N_REDUCE] = "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
		     "at::native::func_wrapper_t<float, at::native::sum_functor<c10::BFloat16, "
		     "float, c10::BFloat16>::operator()(at::TensorIterator&)::{lambda(float, "
		     "float)#1}>, unsigned int, c10::BFloat16, 4, 4> >(at::native::ReduceOp<"
		     "float, at::native::func_wrapper_t<float, "
		     "at::native::sum_functor<c10::BFloat16, float, "
		     "c10::BFloat16>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
		     "unsigned int, c10::BFloat16, 4, 4>)",
	[N_ALLREDUCE] = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, "
			"ncclWork*)",
	[N_ADAM] = "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<"
		   "at::native::(anonymous namespace)::TensorListMetadata<4>, "
		   "at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, "
		   "(at::native::ADAM_MODE)1, false>, double*, double, double, double, double, "
		   "double, bool, float*, float*>(at::native::(anonymous "
		   "namespace)::TensorListMetadata<4>, at::native::(anonymous "
		   "namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, "
		   "double*, double, double, double, double, double, bool, float*, float*)",
	[N_MEMCPY_H2D_PINNED] = "Memcpy HtoD (Pinned -> Device)",
	[N_MEMCPY_H2D_PAGEABLE] = "Memcpy HtoD (Pageable -> Device)",
	[N_MEMCPY_D2H_PAGEABLE] = "Memcpy DtoH (Device -> Pageable)",
	[N_MEMSET] = "Memset (Device)",
	[N_LAUNCH] = "cudaLaunchKernel",
	[N_LAUNCH_EX] = "cuLaunchKernelEx",
	[N_MEMCPY_ASYNC] = "cudaMemcpyAsync",
	[N_MEMCPY_SYNC] = "cudaMemcpy",
	[N_MEMSET_ASYNC] = "cudaMemsetAsync",
	[N_EVENT_RECORD] = "cudaEventRecord",
	[N_WAIT_EVENT] = "cudaStreamWaitEvent",
	[N_STREAM_SYNC] = "cudaStreamSynchronize",
	[N_OP_LAYER_NORM] = "aten::layer_norm",
	[N_OP_LINEAR] = "aten::linear",
	[N_OP_ADDMM] = "aten::addmm",
	[N_OP_FLASH] = "aten::_scaled_dot_product_flash_attention",
	[N_OP_ADD] = "aten::add",
	[N_OP_GELU] = "aten::gelu",
	[N_OP_CROSS_ENTROPY] = "aten::cross_entropy_loss",
	[N_OP_MM] = "aten::mm",
	[N_OP_BWD_ADDMM] = "autograd::engine::evaluate_function: AddmmBackward0",
	[N_OP_BWD_GELU] = "autograd::engine::evaluate_function: GeluBackward0",
	[N_OP_BWD_LN] = "autograd::engine::evaluate_function: NativeLayerNormBackward0",
	[N_OP_BWD_FLASH] = "autograd::engine::evaluate_function: "
			   "ScaledDotProductFlashAttentionBackward0",
	[N_OP_SUM] = "aten::sum",
	[N_OP_ALLREDUCE] = "nccl:all_reduce",
	[N_OP_ADAM] = "aten::_fused_adamw_",
	[N_OP_TO] = "aten::to",
	[N_OP_COPY] = "aten::copy_",
	[N_OP_ZERO] = "aten::zero_",
	[N_OP_ITEM] = "aten::item",
	[N_PY_STEP] = "train.py(88): train_step",
	[N_PY_CALL] = "torch/nn/modules/module.py(1511): _wrapped_call_impl",
	[N_STEP] = "ProfilerStep#",
	[N_OVERHEAD] = "Activity Buffer Request",
	[N_HOST] = "bench-node-0",
	[N_CMDLINE] = "python train.py --model gpt-small --bench",
	[N_DRIVER] = "12040",
	[N_RUNTIME] = "12040",
	[N_CUPTI] = "22",
	[N_DEVICE] = "NVIDIA H100 80GB HBM3",
};

/* Launch shape of a kernel. */
struct kshape {
	uint32_t grid[3], block[3], regs, smem;
	int64_t ns; /* typical duration */
};

static const struct kshape shapes[N_ADAM + 1] = {
	[N_LN_FWD] = {{8192, 1, 1}, {128, 1, 1}, 30, 0, 12000},
	[N_GEMM_QKV] = {{132, 1, 1}, {384, 1, 1}, 168, 232448, 180000},
	[N_FLASH_FWD] = {{16, 32, 8}, {128, 1, 1}, 255, 98304, 150000},
	[N_GEMM_PROJ] = {{132, 1, 1}, {256, 1, 1}, 168, 196608, 60000},
	[N_ADD] = {{4096, 1, 1}, {128, 1, 1}, 22, 0, 9000},
	[N_GEMM_FC1] = {{132, 1, 1}, {384, 1, 1}, 168, 232448, 240000},
	[N_GELU] = {{8192, 1, 1}, {128, 1, 1}, 24, 0, 20000},
	[N_GEMM_FC2] = {{132, 1, 1}, {384, 1, 1}, 168, 232448, 240000},
	[N_LOG_SOFTMAX] = {{8192, 1, 1}, {1024, 1, 1}, 40, 16384, 11000},
	[N_NLL] = {{1, 1, 1}, {32, 32, 1}, 32, 4096, 6000},
	[N_GEMM_DGRAD] = {{132, 1, 1}, {384, 1, 1}, 168, 232448, 200000},
	[N_GEMM_WGRAD] = {{132, 1, 1}, {256, 1, 1}, 168, 196608, 210000},
	[N_GELU_BWD] = {{8192, 1, 1}, {128, 1, 1}, 26, 0, 25000},
	[N_LN_BWD] = {{8192, 1, 1}, {128, 1, 1}, 40, 0, 25000},
	[N_FLASH_BWD] = {{16, 32, 8}, {256, 1, 1}, 255, 147456, 380000},
	[N_REDUCE] = {{264, 1, 1}, {32, 16, 1}, 32, 16, 14000},
	[N_ALLREDUCE] = {{24, 1, 1}, {640, 1, 1}, 96, 0, 450000},
	[N_ADAM] = {{1280, 1, 1}, {512, 1, 1}, 64, 0, 30000},
};

/* CUPTI callback ids of the runtime calls (Kineto's "cbid"). */
static uint32_t cbid_of(enum gen_name n)
{
	switch (n) {
	case N_LAUNCH:
		return 211;
	case N_LAUNCH_EX:
		return 652;
	case N_MEMCPY_ASYNC:
		return 41;
	case N_MEMCPY_SYNC:
		return 31;
	case N_MEMSET_ASYNC:
		return 51;
	case N_EVENT_RECORD:
		return 135;
	case N_WAIT_EVENT:
		return 147;
	case N_STREAM_SYNC:
		return 131;
	default:
		return 0;
	}
}

struct gen_event {
	uint64_t id, corr;
	enum gen_stream stream;
	int64_t at; /* the GPU time the event captures */
};

struct gen_dev {
	uint32_t id;
	int64_t tid;
	int64_t host; /* the launching thread's clock */
	int64_t free[ST_COUNT];
	uint32_t sidx[ST_COUNT];
	uint64_t next_event;
};

struct gen {
	struct gs_sink *sink;
	FILE *json;
	gzFile gz;
	struct gs_jbuf j; /* JSON text (bench/jbuf.h) */
	bool done;
	uint64_t rng;
	uint64_t target;
	uint64_t corr, ext, ev_idx, py_id;
	uint32_t ids[N_COUNT];
	int64_t pid;   /* the process: GEN_PID + rank */
	uint32_t dev0; /* the first device id: rank * devices */
	uint32_t ndev;
	struct gen_dev dev[GEN_MAX_DEVICES];
	struct gs_bench_gen_counts *c;
};

/* ---- randomness ---- */

static uint64_t rnd(struct gen *g)
{
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static int64_t between(struct gen *g, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd(g) % (uint64_t)(hi - lo + 1));
}

/* A duration around `ns`: +-8%, one in 200 three times longer. */
static int64_t jitter(struct gen *g, int64_t ns)
{
	int64_t d = ns * (920 + (int64_t)(rnd(g) % 161)) / 1000;

	if (rnd(g) % 200 == 0)
		d *= 3;
	return d > 1000 ? d : 1000;
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* ---- JSON text ---- */

static gs_status jb_flush(struct gen *g)
{
	return gs_jbuf_flush(&g->j);
}

static void js(struct gen *g, const char *s)
{
	gs_outbuf_puts(&g->j.o, s);
}

static void ju(struct gen *g, uint64_t v)
{
	gs_outbuf_u64(&g->j.o, v);
}

static void jfix2(struct gen *g, uint64_t hundredths)
{
	gs_jbuf_fix2(&g->j, hundredths);
}

static gs_status jev(struct gen *g, const char *ph, const char *cat, const char *name, int64_t pid,
		     int64_t tid, int64_t ts, int64_t dur)
{
	return gs_jbuf_event(&g->j, ph, cat, name, pid, tid, ts, dur);
}

static bool want_json(const struct gen *g)
{
	return g->json || g->gz;
}

/* ---- records ---- */

#define CALL(rc, expr)                                                                             \
	do {                                                                                       \
		(rc) = (expr);                                                                     \
		if (rc)                                                                            \
			return rc;                                                                 \
	} while (0)

static gs_status emit_api(struct gen *g, struct gen_dev *d, enum gen_name name, int64_t start,
			  int64_t end, uint64_t corr, uint64_t ext)
{
	gs_status rc;
	bool driver = name == N_LAUNCH_EX;

	g->c->api_calls++;
	if (g->sink && g->sink->api_call) {
		struct gs_api_call a = {.start_ns = start,
					.end_ns = end,
					.pid = g->pid,
					.tid = d->tid,
					.correlation = corr,
					.name = g->ids[name],
					.cbid = cbid_of(name),
					.kind = driver ? GS_API_DRIVER : GS_API_RUNTIME};

		CALL(rc, g->sink->api_call(g->sink, &a));
	}
	if (want_json(g)) {
		CALL(rc, jev(g, "X", driver ? "cuda_driver" : "cuda_runtime", names[name], g->pid,
			     d->tid, start, end - start));
		js(g, ",\n    \"args\": {\n      ");
		if (ext) {
			js(g, "\"External id\": ");
			ju(g, ext);
			js(g, ", ");
		}
		js(g, "\"cbid\": ");
		ju(g, cbid_of(name));
		js(g, ", \"correlation\": ");
		ju(g, corr);
		js(g, "\n    }\n  }");
	}
	return GS_OK;
}

/* Kineto's launch -> op flow arrows (JSON only; the importer skips them). */
static gs_status emit_flow(struct gen *g, struct gen_dev *d, enum gen_stream s, uint64_t corr,
			   int64_t api_ts, int64_t op_ts)
{
	gs_status rc;

	if (!want_json(g))
		return GS_OK;
	CALL(rc, jev(g, "s", "ac2g", "ac2g", g->pid, d->tid, api_ts, -1));
	js(g, ", \"id\": ");
	ju(g, corr);
	js(g, "\n  }");
	CALL(rc, jev(g, "f", "ac2g", "ac2g", d->id, (int64_t)stream_ids[s], op_ts, -1));
	js(g, ", \"id\": ");
	ju(g, corr);
	js(g, ", \"bp\": \"e\"\n  }");
	return GS_OK;
}

static void json_gpu_args(struct gen *g, struct gen_dev *d, enum gen_stream s, uint64_t corr,
			  uint64_t ext)
{
	js(g, ",\n    \"args\": {\n      \"External id\": ");
	ju(g, ext);
	js(g, ", \"device\": ");
	ju(g, d->id);
	js(g, ", \"context\": ");
	ju(g, GEN_CONTEXT);
	js(g, ", \"stream\": ");
	ju(g, stream_ids[s]);
	js(g, ", \"correlation\": ");
	ju(g, corr);
}

static gs_status emit_op(struct gen *g, struct gen_dev *d, const struct gs_op *op,
			 const struct gs_launch_cfg *lc, enum gen_stream s, enum gen_name name,
			 uint64_t ext)
{
	gs_status rc;

	g->c->ops++;
	g->c->kernels += op->kind == GS_OP_KERNEL;
	g->c->memcpys += op->kind == GS_OP_MEMCPY;
	g->c->memsets += op->kind == GS_OP_MEMSET;
	if (g->sink && g->sink->op)
		CALL(rc, g->sink->op(g->sink, op, lc));
	if (!want_json(g))
		return GS_OK;
	if (op->kind == GS_OP_KERNEL) {
		uint64_t threads = (uint64_t)lc->block[0] * lc->block[1] * lc->block[2];
		uint64_t blocks = (uint64_t)lc->grid[0] * lc->grid[1] * lc->grid[2];

		CALL(rc, jev(g, "X", "kernel", names[name], d->id, (int64_t)stream_ids[s],
			     op->start_ns, op->end_ns - op->start_ns));
		json_gpu_args(g, d, s, op->correlation, ext);
		js(g, ", \"queued\": 0, \"registers per thread\": ");
		ju(g, lc->registers);
		js(g, ", \"shared memory\": ");
		ju(g, lc->shared_mem);
		js(g, ", \"blocks per SM\": ");
		jfix2(g, blocks * 100 / 132);
		js(g, ", \"warps per SM\": ");
		jfix2(g, blocks * ((threads + 31) / 32) * 100 / 132);
		js(g, ", \"grid\": [");
		ju(g, lc->grid[0]);
		js(g, ", ");
		ju(g, lc->grid[1]);
		js(g, ", ");
		ju(g, lc->grid[2]);
		js(g, "], \"block\": [");
		ju(g, lc->block[0]);
		js(g, ", ");
		ju(g, lc->block[1]);
		js(g, ", ");
		ju(g, lc->block[2]);
		js(g, "], \"est. achieved occupancy %\": ");
		ju(g, threads >= 256 ? 25 : 12);
	} else {
		CALL(rc, jev(g, "X", op->kind == GS_OP_MEMCPY ? "gpu_memcpy" : "gpu_memset",
			     names[name], d->id, (int64_t)stream_ids[s], op->start_ns,
			     op->end_ns - op->start_ns));
		json_gpu_args(g, d, s, op->correlation, ext);
		js(g, ", \"bytes\": ");
		ju(g, op->bytes);
		js(g, ", \"memory bandwidth (GB/s)\": ");
		jfix2(g, op->bytes * 100 / (uint64_t)max64(op->end_ns - op->start_ns, 1));
	}
	js(g, "\n    }\n  }");
	return GS_OK;
}

static gs_status emit_range(struct gen *g, struct gen_dev *d, enum gs_range_kind kind,
			    uint32_t name_id, const char *name, int64_t start, int64_t end,
			    uint64_t ext, const char *dims)
{
	gs_status rc;
	static const char *const cats[] = {
		[GS_RANGE_CPU_OP] = "cpu_op",
		[GS_RANGE_USER_ANNOTATION] = "user_annotation",
		[GS_RANGE_PYTHON] = "python_function",
	};

	g->c->ranges++;
	if (g->sink && g->sink->range) {
		struct gs_range r = {.start_ns = start,
				     .end_ns = end,
				     .pid = g->pid,
				     .tid = d->tid,
				     .external_id = kind == GS_RANGE_PYTHON ? 0 : ext,
				     .name = name_id,
				     .domain = GS_NO_STRING,
				     .kind = (uint8_t)kind};

		CALL(rc, g->sink->range(g->sink, &r));
	}
	if (!want_json(g))
		return GS_OK;
	CALL(rc, jev(g, "X", cats[kind], name, g->pid, d->tid, start, end - start));
	js(g, ",\n    \"args\": {\n      ");
	if (kind == GS_RANGE_PYTHON) {
		js(g, "\"Python parent id\": ");
		ju(g, g->py_id);
		js(g, ", \"Python id\": ");
		ju(g, ++g->py_id);
	} else {
		js(g, "\"External id\": ");
		ju(g, ext);
		js(g, ", \"Record function id\": 0");
		if (dims) {
			js(g, ", \"Input Dims\": ");
			js(g, dims);
			js(g, ", \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\", "
			      "\"c10::BFloat16\"]");
		}
	}
	js(g, ", \"Ev Idx\": ");
	ju(g, g->ev_idx++);
	js(g, "\n    }\n  }");
	return GS_OK;
}

/* Host work before a launch (PyTorch dispatch). */
static void host_work(struct gen *g, struct gen_dev *d, int64_t lo, int64_t hi)
{
	d->host += between(g, lo, hi);
}

static bool room(struct gen *g)
{
	if (g->done)
		return false;
	if (g->c->ops >= g->target) {
		g->done = true;
		return false;
	}
	return true;
}

/* A kernel launched now on stream `s`; its duration from its shape. */
static gs_status kernel(struct gen *g, struct gen_dev *d, enum gen_stream s, enum gen_name kname,
			uint64_t ext)
{
	const struct kshape *k = &shapes[kname];
	enum gen_name api = s == ST_COMM ? N_LAUNCH_EX : N_LAUNCH;
	int64_t t0 = d->host, api_end = t0 + between(g, 4000, 7000);
	struct gs_op op = {0};
	struct gs_launch_cfg lc = {0};
	gs_status rc;

	if (!room(g))
		return GS_OK;
	op.kind = GS_OP_KERNEL;
	op.correlation = ++g->corr;
	op.name = g->ids[kname];
	op.stream = d->sidx[s];
	memcpy(lc.grid, k->grid, sizeof(lc.grid));
	memcpy(lc.block, k->block, sizeof(lc.block));
	lc.registers = k->regs;
	lc.shared_mem = k->smem;
	op.start_ns = max64(t0 + between(g, 3000, 6000), d->free[s]);
	op.end_ns = op.start_ns + jitter(g, k->ns);
	d->free[s] = op.end_ns;
	CALL(rc, emit_api(g, d, api, t0, api_end, op.correlation, ext));
	CALL(rc, emit_flow(g, d, s, op.correlation, t0, op.start_ns));
	CALL(rc, emit_op(g, d, &op, &lc, s, kname, ext));
	d->host = api_end + between(g, 500, 1500);
	return GS_OK;
}

/* A kernel inside one cpu_op (or two nested ones when `outer` is set). */
static gs_status op_kernel(struct gen *g, struct gen_dev *d, enum gen_name outer,
			   enum gen_name inner, enum gen_name kname, const char *dims)
{
	int64_t o0 = d->host, i0;
	uint64_t oext = 0, iext;
	gs_status rc;

	if (!room(g))
		return GS_OK;
	if (outer != N_COUNT) {
		oext = ++g->ext;
		host_work(g, d, 3000, 8000);
	}
	i0 = d->host;
	iext = ++g->ext;
	host_work(g, d, 8000, 25000);
	CALL(rc, kernel(g, d, ST_COMPUTE, kname, iext));
	host_work(g, d, 1000, 3000);
	CALL(rc, emit_range(g, d, GS_RANGE_CPU_OP, g->ids[inner], names[inner], i0, d->host, iext,
			    dims));
	if (outer != N_COUNT) {
		host_work(g, d, 1000, 2000);
		CALL(rc, emit_range(g, d, GS_RANGE_CPU_OP, g->ids[outer], names[outer], o0, d->host,
				    oext, dims));
	}
	return GS_OK;
}

static gs_status record_event(struct gen *g, struct gen_dev *d, enum gen_stream s,
			      struct gen_event *ev)
{
	int64_t t0 = d->host, t1 = t0 + between(g, 1500, 3000);
	gs_status rc;

	ev->id = d->next_event++;
	ev->corr = ++g->corr;
	ev->stream = s;
	ev->at = d->free[s];
	g->c->event_records++;
	CALL(rc, emit_api(g, d, N_EVENT_RECORD, t0, t1, ev->corr, 0));
	if (g->sink && g->sink->event_record) {
		struct gs_event_record e = {.time_ns = t0,
					    .correlation = ev->corr,
					    .event_id = ev->id,
					    .sync_id = GS_NO_SYNC_ID,
					    .stream = d->sidx[s]};

		CALL(rc, g->sink->event_record(g->sink, &e));
	}
	d->host = t1 + between(g, 300, 1000);
	return GS_OK;
}

/* A cuda_sync record (JSON side: pid = device, tid = stream, as Kineto). */
static gs_status emit_sync(struct gen *g, struct gen_dev *d, const struct gs_sync *y,
			   enum gen_stream s, int wait_on, const char *kind)
{
	gs_status rc;

	g->c->syncs++;
	if (g->sink && g->sink->sync)
		CALL(rc, g->sink->sync(g->sink, y));
	if (!want_json(g))
		return GS_OK;
	CALL(rc, jev(g, "X", "cuda_sync", kind, d->id, (int64_t)stream_ids[s], y->start_ns,
		     y->end_ns - y->start_ns));
	js(g, ",\n    \"args\": {\n      \"cuda_sync_kind\": \"");
	js(g, kind);
	js(g, "\", ");
	if (wait_on >= 0) {
		js(g, "\"wait_on_stream\": ");
		ju(g, stream_ids[wait_on]);
		js(g, ", \"wait_on_cuda_event_record_corr_id\": ");
		ju(g, y->event_correlation);
		js(g, ", \"wait_on_cuda_event_id\": ");
		ju(g, y->event_id);
		js(g, ", ");
	}
	js(g, "\"stream\": ");
	ju(g, stream_ids[s]);
	js(g, ", \"correlation\": ");
	ju(g, y->correlation);
	js(g, ", \"device\": ");
	ju(g, d->id);
	js(g, ", \"context\": ");
	ju(g, GEN_CONTEXT);
	js(g, "\n    }\n  }");
	return GS_OK;
}

static gs_status wait_event(struct gen *g, struct gen_dev *d, enum gen_stream s,
			    const struct gen_event *ev)
{
	int64_t t0 = d->host, t1 = t0 + between(g, 1500, 3000);
	struct gs_sync y = {.start_ns = t0,
			    .end_ns = t1,
			    .pid = g->pid,
			    .tid = d->tid,
			    .correlation = ++g->corr,
			    .event_id = ev->id,
			    .sync_id = GS_NO_SYNC_ID,
			    .event_correlation = ev->corr,
			    .stream = d->sidx[s],
			    .wait_on_stream = d->sidx[ev->stream],
			    .device = d->id,
			    .kind = GS_SYNC_STREAM_WAIT};
	gs_status rc;

	CALL(rc, emit_api(g, d, N_WAIT_EVENT, t0, t1, y.correlation, 0));
	CALL(rc, emit_sync(g, d, &y, s, (int)ev->stream, "Stream Wait Event"));
	d->free[s] = max64(d->free[s], ev->at);
	d->host = t1 + between(g, 300, 1000);
	return GS_OK;
}

static gs_status stream_sync(struct gen *g, struct gen_dev *d, enum gen_stream s)
{
	int64_t t0 = d->host, t1 = max64(t0 + between(g, 2000, 4000), d->free[s] + 1500);
	struct gs_sync y = {.start_ns = t0,
			    .end_ns = t1,
			    .pid = g->pid,
			    .tid = d->tid,
			    .correlation = ++g->corr,
			    .sync_id = GS_NO_SYNC_ID,
			    .stream = d->sidx[s],
			    .wait_on_stream = GS_NO_INDEX,
			    .device = d->id,
			    .kind = GS_SYNC_STREAM};
	gs_status rc;

	CALL(rc, emit_api(g, d, N_STREAM_SYNC, t0, t1, y.correlation, 0));
	CALL(rc, emit_sync(g, d, &y, s, -1, "Stream Sync"));
	d->host = t1 + between(g, 1000, 3000);
	return GS_OK;
}

/* A copy or memset. `sync`: cudaMemcpy, the host waits for the copy. */
static gs_status copy(struct gen *g, struct gen_dev *d, enum gen_stream s, enum gen_name name,
		      uint64_t bytes, uint64_t bytes_per_us, bool sync)
{
	struct gs_op op = {0};
	enum gen_name api = name == N_MEMSET ? N_MEMSET_ASYNC :
			    sync             ? N_MEMCPY_SYNC :
					       N_MEMCPY_ASYNC;
	int64_t t0, api_end, o0 = d->host;
	uint64_t ext;
	gs_status rc;

	if (!room(g))
		return GS_OK;
	ext = ++g->ext;
	host_work(g, d, 5000, 12000);
	t0 = d->host;
	op.kind = name == N_MEMSET ? GS_OP_MEMSET : GS_OP_MEMCPY;
	op.correlation = ++g->corr;
	op.name = g->ids[name];
	op.stream = d->sidx[s];
	op.bytes = bytes;
	switch (name) {
	case N_MEMCPY_H2D_PINNED:
		op.copy_kind = GS_COPY_HTOD;
		op.src_mem = GS_MEM_PINNED;
		op.dst_mem = GS_MEM_DEVICE;
		break;
	case N_MEMCPY_H2D_PAGEABLE:
		op.copy_kind = GS_COPY_HTOD;
		op.src_mem = GS_MEM_PAGEABLE;
		op.dst_mem = GS_MEM_DEVICE;
		break;
	case N_MEMCPY_D2H_PAGEABLE:
		op.copy_kind = GS_COPY_DTOH;
		op.src_mem = GS_MEM_DEVICE;
		op.dst_mem = GS_MEM_PAGEABLE;
		break;
	default:
		op.dst_mem = GS_MEM_DEVICE;
		break;
	}
	if (!sync)
		op.flags = GS_OPF_ASYNC;
	op.start_ns = max64(t0 + between(g, 3000, 6000), d->free[s]);
	op.end_ns = op.start_ns + jitter(g, 2000 + (int64_t)(bytes * 1000 / bytes_per_us));
	d->free[s] = op.end_ns;
	api_end = sync ? op.end_ns + between(g, 1500, 3000) : t0 + between(g, 6000, 11000);
	CALL(rc, emit_api(g, d, api, t0, api_end, op.correlation, ext));
	CALL(rc, emit_flow(g, d, s, op.correlation, t0, op.start_ns));
	CALL(rc, emit_op(g, d, &op, NULL, s, name, ext));
	d->host = api_end + between(g, 1000, 3000);
	return emit_range(g, d, GS_RANGE_CPU_OP, g->ids[name == N_MEMSET ? N_OP_ZERO : N_OP_COPY],
			  names[name == N_MEMSET ? N_OP_ZERO : N_OP_COPY], o0, d->host, ext, NULL);
}

static const char dims_qkv[] = "[[8, 2048, 1024], [3072, 1024], [3072]]";
static const char dims_fc1[] = "[[8, 2048, 1024], [4096, 1024], [4096]]";
static const char dims_fc2[] = "[[8, 2048, 4096], [1024, 4096], [1024]]";
static const char dims_proj[] = "[[8, 2048, 1024], [1024, 1024], [1024]]";

static gs_status forward_block(struct gen *g, struct gen_dev *d)
{
	gs_status rc;

	CALL(rc, op_kernel(g, d, N_COUNT, N_OP_LAYER_NORM, N_LN_FWD, NULL));
	CALL(rc, op_kernel(g, d, N_OP_LINEAR, N_OP_ADDMM, N_GEMM_QKV, dims_qkv));
	CALL(rc, op_kernel(g, d, N_COUNT, N_OP_FLASH, N_FLASH_FWD, NULL));
	CALL(rc, op_kernel(g, d, N_OP_LINEAR, N_OP_ADDMM, N_GEMM_PROJ, dims_proj));
	CALL(rc, op_kernel(g, d, N_COUNT, N_OP_ADD, N_ADD, NULL));
	CALL(rc, op_kernel(g, d, N_COUNT, N_OP_LAYER_NORM, N_LN_FWD, NULL));
	CALL(rc, op_kernel(g, d, N_OP_LINEAR, N_OP_ADDMM, N_GEMM_FC1, dims_fc1));
	CALL(rc, op_kernel(g, d, N_COUNT, N_OP_GELU, N_GELU, NULL));
	CALL(rc, op_kernel(g, d, N_OP_LINEAR, N_OP_ADDMM, N_GEMM_FC2, dims_fc2));
	return op_kernel(g, d, N_COUNT, N_OP_ADD, N_ADD, NULL);
}

static gs_status backward_block(struct gen *g, struct gen_dev *d)
{
	struct gen_event ev;
	uint64_t ext;
	int64_t t0;
	gs_status rc;

	CALL(rc, op_kernel(g, d, N_OP_BWD_ADDMM, N_OP_MM, N_GEMM_DGRAD, dims_fc2));
	CALL(rc, op_kernel(g, d, N_OP_BWD_ADDMM, N_OP_MM, N_GEMM_WGRAD, dims_fc2));
	CALL(rc, op_kernel(g, d, N_OP_BWD_ADDMM, N_OP_SUM, N_REDUCE, NULL));
	CALL(rc, op_kernel(g, d, N_COUNT, N_OP_BWD_GELU, N_GELU_BWD, NULL));
	CALL(rc, op_kernel(g, d, N_OP_BWD_ADDMM, N_OP_MM, N_GEMM_DGRAD, dims_fc1));
	CALL(rc, op_kernel(g, d, N_OP_BWD_ADDMM, N_OP_MM, N_GEMM_WGRAD, dims_fc1));
	CALL(rc, op_kernel(g, d, N_COUNT, N_OP_BWD_LN, N_LN_BWD, NULL));
	CALL(rc, op_kernel(g, d, N_OP_BWD_ADDMM, N_OP_MM, N_GEMM_DGRAD, dims_proj));
	CALL(rc, op_kernel(g, d, N_OP_BWD_ADDMM, N_OP_MM, N_GEMM_WGRAD, dims_proj));
	CALL(rc, op_kernel(g, d, N_COUNT, N_OP_BWD_FLASH, N_FLASH_BWD, NULL));
	CALL(rc, op_kernel(g, d, N_OP_BWD_ADDMM, N_OP_MM, N_GEMM_DGRAD, dims_qkv));
	CALL(rc, op_kernel(g, d, N_OP_BWD_ADDMM, N_OP_MM, N_GEMM_WGRAD, dims_qkv));
	CALL(rc, op_kernel(g, d, N_OP_BWD_ADDMM, N_OP_SUM, N_REDUCE, NULL));
	CALL(rc, op_kernel(g, d, N_COUNT, N_OP_BWD_LN, N_LN_BWD, NULL));
	/* The block's gradients are ready: all-reduce them on the NCCL stream. */
	if (!room(g))
		return GS_OK;
	CALL(rc, record_event(g, d, ST_COMPUTE, &ev));
	CALL(rc, wait_event(g, d, ST_COMM, &ev));
	t0 = d->host;
	ext = ++g->ext;
	host_work(g, d, 10000, 20000);
	CALL(rc, kernel(g, d, ST_COMM, N_ALLREDUCE, ext));
	host_work(g, d, 2000, 4000);
	return emit_range(g, d, GS_RANGE_CPU_OP, g->ids[N_OP_ALLREDUCE], names[N_OP_ALLREDUCE], t0,
			  d->host, ext, NULL);
}

static gs_status step(struct gen *g, struct gen_dev *d, uint64_t k)
{
	int64_t s0 = d->host, p0, p1;
	uint64_t step_ext = ++g->ext;
	struct gen_event ev;
	char step_name[48];
	uint32_t step_id = GS_NO_STRING;
	gs_status rc;

	snprintf(step_name, sizeof(step_name), "ProfilerStep#%llu", (unsigned long long)k);
	if (g->sink && g->sink->intern)
		CALL(rc, g->sink->intern(g->sink, step_name, strlen(step_name), &step_id));
	host_work(g, d, 20000, 40000);
	p0 = d->host;
	host_work(g, d, 5000, 10000);
	/* Inputs. */
	CALL(rc, copy(g, d, ST_H2D, N_MEMCPY_H2D_PINNED, (8u << 20) + (rnd(g) % 4096) * 64, 22000,
		      false));
	if (room(g)) {
		CALL(rc, record_event(g, d, ST_H2D, &ev));
		CALL(rc, wait_event(g, d, ST_COMPUTE, &ev));
	}
	CALL(rc, copy(g, d, ST_COMPUTE, N_MEMCPY_H2D_PAGEABLE, 65536, 6000, true));
	CALL(rc, copy(g, d, ST_COMPUTE, N_MEMSET, 64u << 20, 1500000, false));
	CALL(rc, copy(g, d, ST_COMPUTE, N_MEMSET, 16u << 20, 1500000, false));
	p1 = d->host;
	host_work(g, d, 3000, 6000);
	/* Forward and loss. */
	for (int b = 0; b < GEN_BLOCKS; b++)
		CALL(rc, forward_block(g, d));
	CALL(rc, op_kernel(g, d, N_OP_CROSS_ENTROPY, N_OP_ADD, N_LOG_SOFTMAX, NULL));
	CALL(rc, op_kernel(g, d, N_OP_CROSS_ENTROPY, N_OP_ADD, N_NLL, NULL));
	/* Backward with the all-reduce beside it. */
	for (int b = 0; b < GEN_BLOCKS; b++)
		CALL(rc, backward_block(g, d));
	if (room(g)) {
		CALL(rc, record_event(g, d, ST_COMM, &ev));
		CALL(rc, wait_event(g, d, ST_COMPUTE, &ev));
	}
	/* Optimizer: short kernels, bound by their launches. */
	for (int i = 0; i < 8; i++)
		CALL(rc, op_kernel(g, d, N_COUNT, N_OP_ADAM, N_ADAM, NULL));
	/* The loss to the host. */
	if (room(g)) {
		CALL(rc, record_event(g, d, ST_COMPUTE, &ev));
		CALL(rc, wait_event(g, d, ST_D2H, &ev));
	}
	CALL(rc, copy(g, d, ST_D2H, N_MEMCPY_D2H_PAGEABLE, 4, 1000, false));
	if (!g->done)
		CALL(rc, stream_sync(g, d, ST_D2H));
	host_work(g, d, 5000, 10000);
	CALL(rc, emit_range(g, d, GS_RANGE_PYTHON, g->ids[N_PY_CALL], names[N_PY_CALL], p0, p1, 0,
			    NULL));
	CALL(rc, emit_range(g, d, GS_RANGE_PYTHON, g->ids[N_PY_STEP], names[N_PY_STEP], p0, d->host,
			    0, NULL));
	host_work(g, d, 2000, 5000);
	CALL(rc, emit_range(g, d, GS_RANGE_USER_ANNOTATION, step_id, step_name, s0, d->host,
			    step_ext, NULL));
	g->c->ranges++; /* Kineto's GPU-side copy of the step annotation */
	if (g->sink && g->sink->range) {
		struct gs_range r = {.start_ns = s0,
				     .end_ns = d->free[ST_COMPUTE],
				     .pid = -1,
				     .tid = -1,
				     .external_id = step_ext,
				     .name = step_id,
				     .domain = GS_NO_STRING,
				     .kind = GS_RANGE_GPU_ANNOTATION,
				     .stream = d->sidx[ST_COMPUTE]};

		CALL(rc, g->sink->range(g->sink, &r));
	}
	if (want_json(g)) {
		CALL(rc, jev(g, "X", "gpu_user_annotation", step_name, d->id,
			     (int64_t)stream_ids[ST_COMPUTE], s0, d->free[ST_COMPUTE] - s0));
		js(g, ",\n    \"args\": {\n      \"External id\": ");
		ju(g, step_ext);
		js(g, "\n    }\n  }");
	}
	if (d == &g->dev[0] && k % 64 == 63) {
		int64_t o0 = d->host - between(g, 100000, 400000);
		int64_t o1 = o0 + between(g, 500000, 2000000);

		g->c->overheads++;
		if (g->sink && g->sink->overhead) {
			struct gs_overhead o = {.start_ns = o0,
						.end_ns = o1,
						.pid = -1,
						.kind = g->ids[N_OVERHEAD]};

			CALL(rc, g->sink->overhead(g->sink, &o));
		}
		if (want_json(g)) {
			CALL(rc, jev(g, "X", "overhead", names[N_OVERHEAD], -1, 0, o0, o1 - o0));
			js(g, "\n  }");
		}
	}
	return GS_OK;
}

/* ---- the file around the events ---- */

static gs_status declare(struct gen *g)
{
	struct gs_sink *s = g->sink;
	gs_status rc;

	for (int i = 0; i < N_COUNT; i++) {
		g->ids[i] = GS_NO_STRING;
		if (s && s->intern)
			CALL(rc, s->intern(s, names[i], strlen(names[i]), &g->ids[i]));
	}
	if (s && s->process) {
		struct gs_process p = {.pid = g->pid,
				       .host_name = g->ids[N_HOST],
				       .command_line = g->ids[N_CMDLINE],
				       .driver_version = g->ids[N_DRIVER],
				       .runtime_version = g->ids[N_RUNTIME],
				       .cupti_version = g->ids[N_CUPTI],
				       .start_ns = GEN_BASE_NS};

		CALL(rc, s->process(s, &p));
	}
	for (uint32_t i = 0; i < g->ndev; i++) {
		struct gen_dev *d = &g->dev[i];

		d->id = g->dev0 + i;
		d->tid = g->pid + i;
		d->host = GEN_BASE_NS + (int64_t)i * 7919;
		d->next_event = 1;
		for (int k = 0; k < ST_COUNT; k++) {
			struct gs_stream st = {.pid = g->pid,
					       .device = d->id,
					       .context = GEN_CONTEXT,
					       .stream_id = stream_ids[k],
					       .kind = stream_kinds[k],
					       .priority = stream_prio[k]};

			d->free[k] = d->host;
			d->sidx[k] = k;
			if (s && s->stream)
				CALL(rc, s->stream(s, &st, &d->sidx[k]));
			g->c->streams++;
		}
		if (s && s->device) {
			struct gs_device dv = {.id = d->id,
					       .name = g->ids[N_DEVICE],
					       .uuid = GS_NO_STRING,
					       .sm_count = 132,
					       .cc_major = 9,
					       .cc_minor = 0,
					       .memory_bytes = 85045231616ull,
					       .copy_engines = 3};

			CALL(rc, s->device(s, &dv));
		}
		g->c->devices++;
	}
	if (!want_json(g))
		return GS_OK;
	js(g, "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [");
	for (uint32_t i = 0; i < g->ndev; i++) {
		js(g, i ? ",\n    {" : "\n    {");
		js(g, "\n      \"id\": ");
		ju(g, g->dev[i].id);
		js(g,
		   ", \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": 85045231616,\n"
		   "      \"computeMajor\": 9, \"computeMinor\": 0, \"maxThreadsPerBlock\": "
		   "1024, \"maxThreadsPerMultiprocessor\": 2048,\n      \"regsPerBlock\": 65536, "
		   "\"regsPerMultiprocessor\": 65536, \"warpSize\": 32,\n"
		   "      \"sharedMemPerBlock\": 49152, \"sharedMemPerMultiprocessor\": 233472,\n"
		   "      \"numSms\": 132, \"sharedMemPerBlockOptin\": 232448\n    }");
		if (gs_jbuf_reserve(&g->j))
			return GS_ERR_IO;
	}
	js(g, "\n  ],\n  \"cupti_version\": 22,\n  \"cuda_runtime_version\": 12040,\n"
	      "  \"cuda_driver_version\": 12040,\n  \"host_name\": \"bench-node-0\",\n"
	      "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": ");
	ju(g, (uint64_t)(g->pid - GEN_PID));
	/* The job's size is not known here; rank + 1 keeps rank 0 the bytes
	 * of a single-process trace. */
	js(g, ", \"world_size\": ");
	ju(g, (uint64_t)(g->pid - GEN_PID) + 1);
	js(g, "},\n  \"traceEvents\": [");
	g->j.first_event = true;
	CALL(rc, jev(g, "M", "__metadata", "process_name", g->pid, 0, GEN_BASE_NS, -1));
	js(g, ",\n    \"args\": {\n      \"name\": \"python train.py --model gpt-small --bench\"\n"
	      "    }\n  }");
	CALL(rc, jev(g, "M", "__metadata", "process_labels", g->pid, 0, GEN_BASE_NS, -1));
	js(g, ",\n    \"args\": {\n      \"labels\": \"CPU\"\n    }\n  }");
	for (uint32_t i = 0; i < g->ndev; i++) {
		CALL(rc,
		     jev(g, "M", "__metadata", "process_name", g->dev[i].id, 0, GEN_BASE_NS, -1));
		js(g, ",\n    \"args\": {\n      \"name\": \"python train.py --model gpt-small "
		      "--bench\"\n    }\n  }");
		CALL(rc,
		     jev(g, "M", "__metadata", "process_labels", g->dev[i].id, 0, GEN_BASE_NS, -1));
		js(g, ",\n    \"args\": {\n      \"labels\": \"GPU ");
		ju(g, g->dev[i].id);
		js(g, "\"\n    }\n  }");
	}
	return GS_OK;
}

static gs_status finish_json(struct gen *g)
{
	if (!want_json(g))
		return GS_OK;
	if (gs_jbuf_reserve(&g->j))
		return GS_ERR_IO;
	js(g,
	   "\n  ],\n  \"traceName\": \"bench-node-0_4242.pt.trace.json\",\n"
	   "  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": 1718294400000000000\n}\n");
	return jb_flush(g);
}

gs_status gs_bench_generate(const struct gs_bench_gen_options *o, struct gs_sink *sink, FILE *json,
			    void *gz, struct gs_bench_gen_counts *counts)
{
	struct gen *g = calloc(1, sizeof(*g));
	gs_status rc;

	memset(counts, 0, sizeof(*counts));
	if (!g) {
		gs_error_append("out of memory");
		return GS_ERR_NOMEM;
	}
	g->sink = sink;
	g->json = json;
	g->gz = gz;
	g->c = counts;
	g->target = o->ops;
	g->ndev = o->devices ? o->devices : 2;
	g->pid = GEN_PID + (int64_t)o->rank;
	g->dev0 = o->rank * g->ndev;
	g->rng = o->seed ? o->seed : 0x6770757363ull;
	if (o->rank > 1024 || g->ndev > GEN_MAX_DEVICES) {
		free(g);
		gs_error_append("at most %d devices and rank 1024", GEN_MAX_DEVICES);
		return GS_ERR_INVALID;
	}
	if (want_json(g) && (rc = gs_jbuf_init(&g->j, json, gz))) {
		free(g);
		return rc;
	}
	rc = declare(g);
	for (uint64_t k = 0; !rc && !g->done && g->c->ops < g->target; k++) {
		for (uint32_t i = 0; !rc && i < g->ndev && !g->done; i++)
			rc = step(g, &g->dev[i], k);
		counts->steps = k + 1;
	}
	if (!rc)
		rc = finish_json(g);
	counts->json_bytes = g->j.bytes;
	gs_jbuf_fini(&g->j);
	free(g);
	return rc;
}
