/* SPDX-License-Identifier: MIT */
/*
 * gen_synthetic: writes SYNTHETIC stand-ins for the traces of the kernels/
 * programs, one .gscope file per program, through the .gscope writer (the
 * sink the collector writes through), until real recordings replace them
 * (tests/gpu/run.sh records the programs on a machine with a GPU).
 *
 *   gen_synthetic OUTDIR [NAME...]     write OUTDIR/NAME.gscope (all by default)
 *   gen_synthetic --list               the program names
 *   gen_synthetic --zlib-version       the zlib the bytes depend on
 *
 * NOT RECORDED: every time here comes from a small model of the CUDA
 * runtime and of an A100-class GPU with plausible costs, not from a GPU.
 * The model replays each program's CUDA calls in the program's order on
 * one host thread and keeps what CUPTI would have reported:
 *
 * - host: every runtime call is an API record with its thread, correlation
 *   id and CUPTI callback id (names as CUDA 13 reports them: a <<<>>>
 *   launch is __cudaLaunchKernel, followed by the program's
 *   cudaGetLastError). A call costs a few µs; the first launch of a kernel
 *   loads it (lazy loading); the first CUDA call creates the context.
 * - streams: one FIFO each; an op starts when the call that issued it has
 *   reached the GPU (about 1.5 µs after the call returns), when the op before
 *   it on its stream has ended (plus about 1 µs), after the events the
 *   stream waits on, and, on the legacy default stream, after the earlier
 *   work of the blocking streams (which in turn wait for it).
 * - copies: PCIe at 24.5 GB/s to the device and 25.8 GB/s back from pinned
 *   memory, about 11.5 / 9.8 GB/s from pageable memory; one copy engine per
 *   direction (the device record says so), copies of one direction in issue
 *   order. A pageable or synchronous copy's call returns only after the
 *   copy, so the host waits.
 * - kernels run side by side when their streams allow it (no SM model),
 *   except in stream_priorities, whose timeline is laid out by hand (below).
 * - syncs block the host until the work they wait for ends, plus a wake-up
 *   of about 4 µs; event records and stream waits carry a shared
 *   cudaEventSyncId; graph kernels carry the graph id, their node id and the
 *   correlation id of their cudaGraphLaunch.
 *
 * The output is deterministic: a fixed seed per program, a fixed base time,
 * integer arithmetic only. tests/samples/regen.sh checks that the files in
 * samples/synthetic/ are byte for byte what this program writes (given the
 * same zlib).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <gpuscope/gscope_file.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/trace_sink.h>

/* 2025-01-01T00:00:00Z: the process start of every stand-in. */
#define BASE_NS 1735689600000000000LL
#define US 1000LL
#define MS 1000000LL

#define MAX_STREAMS 16
#define MAX_EVENTS 16
#define MAX_LOADED 16
#define NO_STREAM (-1)

/* ---- the CUDA runtime calls, as CUPTI names them (CUDA 13.0) ----------- */

enum call {
	C_MALLOC,
	C_FREE,
	C_MALLOC_HOST,
	C_FREE_HOST,
	C_MEMCPY,
	C_MEMCPY_ASYNC,
	C_MEMSET_ASYNC,
	C_STREAM_CREATE,
	C_STREAM_CREATE_FLAGS,
	C_STREAM_CREATE_PRIO,
	C_STREAM_DESTROY,
	C_STREAM_SYNC,
	C_EVENT_CREATE,
	C_EVENT_RECORD,
	C_EVENT_DESTROY,
	C_STREAM_WAIT,
	C_DEVICE_SYNC,
	C_PRIORITY_RANGE,
	C_LAUNCH,
	C_GET_LAST_ERROR,
	C_BEGIN_CAPTURE,
	C_END_CAPTURE,
	C_GRAPH_INSTANTIATE,
	C_GRAPH_LAUNCH,
	C_GRAPH_EXEC_DESTROY,
	C_GRAPH_DESTROY,
	C_COUNT
};

static const struct {
	const char *name;
	uint32_t cbid; /* CUPTI_RUNTIME_TRACE_CBID_* */
} calls[C_COUNT] = {
	[C_MALLOC] = {"cudaMalloc", 20},
	[C_FREE] = {"cudaFree", 22},
	[C_MALLOC_HOST] = {"cudaMallocHost", 25},
	[C_FREE_HOST] = {"cudaFreeHost", 26},
	[C_MEMCPY] = {"cudaMemcpy", 31},
	[C_MEMCPY_ASYNC] = {"cudaMemcpyAsync", 41},
	[C_MEMSET_ASYNC] = {"cudaMemsetAsync", 51},
	[C_STREAM_CREATE] = {"cudaStreamCreate", 129},
	[C_STREAM_CREATE_FLAGS] = {"cudaStreamCreateWithFlags", 198},
	[C_STREAM_CREATE_PRIO] = {"cudaStreamCreateWithPriority", 202},
	[C_STREAM_DESTROY] = {"cudaStreamDestroy", 201},
	[C_STREAM_SYNC] = {"cudaStreamSynchronize", 131},
	[C_EVENT_CREATE] = {"cudaEventCreateWithFlags", 134},
	[C_EVENT_RECORD] = {"cudaEventRecord", 135},
	[C_EVENT_DESTROY] = {"cudaEventDestroy", 136},
	[C_STREAM_WAIT] = {"cudaStreamWaitEvent", 147},
	[C_DEVICE_SYNC] = {"cudaDeviceSynchronize", 165},
	[C_PRIORITY_RANGE] = {"cudaDeviceGetStreamPriorityRange", 205},
	[C_LAUNCH] = {"__cudaLaunchKernel", 505},
	[C_GET_LAST_ERROR] = {"cudaGetLastError", 10},
	[C_BEGIN_CAPTURE] = {"cudaStreamBeginCapture", 315},
	[C_END_CAPTURE] = {"cudaStreamEndCapture", 319},
	[C_GRAPH_INSTANTIATE] = {"cudaGraphInstantiate", 443},
	[C_GRAPH_LAUNCH] = {"cudaGraphLaunch", 311},
	[C_GRAPH_EXEC_DESTROY] = {"cudaGraphExecDestroy", 313},
	[C_GRAPH_DESTROY] = {"cudaGraphDestroy", 314},
};

/* ---- the model's state ------------------------------------------------- */

struct sstream {
	uint64_t id;    /* CUPTI stream id */
	uint32_t index; /* in the writer's stream table */
	uint8_t kind;   /* enum gs_stream_kind */
	int64_t tail;   /* end of its last op; 0 before the first */
	int64_t wait;   /* its next op starts no earlier (stream waits) */
};

struct sevent {
	uint64_t id;
	uint64_t sync_id; /* of its latest record */
	int64_t done;     /* when the work its latest record captured ends */
};

/* A kernel as launched: name and launch configuration. */
struct kdesc {
	const char *name;
	uint32_t grid;
	uint32_t block;
	uint32_t registers;
	uint32_t shared_mem;
};

struct gen {
	struct gs_sink *sink;
	gs_status st; /* the first failure; later calls do nothing */
	uint64_t rng;
	int64_t pid;
	int64_t tid;
	int64_t now; /* the host thread's clock */
	uint64_t corr;
	uint64_t next_sync_id;
	bool context_created;
	struct sstream s[MAX_STREAMS];
	int n_streams;
	int legacy; /* the legacy default stream, or NO_STREAM */
	struct sevent ev[MAX_EVENTS];
	int n_events;
	int64_t engine_free[GS_COPY_KIND_COUNT];
	const char *loaded[MAX_LOADED]; /* kernels loaded (lazy loading) */
	int n_loaded;
	/* The call in progress (begin_call .. end_call). */
	enum call cur;
	int64_t call_start;
	uint64_t call_corr;
};

/* ---- helpers -------------------------------------------------------- */

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* splitmix64: small, fast, and the same everywhere. */
static uint64_t next_rand(struct gen *g)
{
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* ns varied by up to +-pct percent. */
static int64_t jit(struct gen *g, int64_t ns, int pct)
{
	uint64_t span = (uint64_t)(ns * pct / 100);

	if (span == 0)
		return ns;
	return ns - (int64_t)span + (int64_t)(next_rand(g) % (2 * span + 1));
}

static void fail(struct gen *g, gs_status st)
{
	if (!g->st)
		g->st = st;
}

static uint32_t str(struct gen *g, const char *s)
{
	uint32_t id = GS_NO_STRING;
	gs_status st;

	if (g->st || !s)
		return GS_NO_STRING;
	st = g->sink->intern(g->sink, s, strlen(s), &id);
	if (st)
		fail(g, st);
	return id;
}

static void host(struct gen *g, int64_t ns)
{
	g->now += ns;
}

/* ---- host calls ------------------------------------------------------- */

static uint64_t begin_call(struct gen *g, enum call c)
{
	g->cur = c;
	g->call_start = g->now;
	g->call_corr = ++g->corr;
	return g->call_corr;
}

static void end_call(struct gen *g, int64_t end_ns)
{
	struct gs_api_call a = {.start_ns = g->call_start,
				.end_ns = end_ns,
				.pid = g->pid,
				.tid = g->tid,
				.correlation = g->call_corr,
				.name = str(g, calls[g->cur].name),
				.cbid = calls[g->cur].cbid,
				.kind = GS_API_RUNTIME};
	gs_status st;

	if (g->st)
		return;
	st = g->sink->api_call(g->sink, &a);
	if (st)
		fail(g, st);
	g->now = end_ns;
}

/* A call with no GPU work; the first CUDA call also creates the context. */
static void call(struct gen *g, enum call c, int64_t ns)
{
	begin_call(g, c);
	if (!g->context_created) {
		g->context_created = true;
		ns += jit(g, 212 * MS, 5);
	}
	end_call(g, g->now + jit(g, ns, 15));
}

/* ---- streams and ops -------------------------------------------------- */

static int add_stream(struct gen *g, uint64_t id, uint8_t kind, int32_t priority)
{
	struct gs_stream st = {.pid = g->pid,
			       .device = 0,
			       .context = 1,
			       .stream_id = id,
			       .kind = kind,
			       .priority = priority};
	struct sstream *s = &g->s[g->n_streams];
	gs_status rc;

	if (g->n_streams == MAX_STREAMS) {
		gs_error_append("more than %d streams in the model", MAX_STREAMS);
		fail(g, GS_ERR_LIMIT);
	}
	if (g->st)
		return 0;
	memset(s, 0, sizeof(*s));
	s->id = id;
	s->kind = kind;
	rc = g->sink->stream(g->sink, &st, &s->index);
	if (rc)
		fail(g, rc);
	if (kind == GS_STREAM_LEGACY_DEFAULT)
		g->legacy = g->n_streams;
	return g->n_streams++;
}

/* A stream created by the program: the create call, then the stream. */
static int create_stream(struct gen *g, enum call c, uint64_t id, uint8_t kind, int32_t priority)
{
	call(g, c, 7 * US);
	return add_stream(g, id, kind, priority);
}

/* Earliest start of the next op of stream `i` (stream order). */
static int64_t stream_ready(struct gen *g, int i)
{
	const struct sstream *s = &g->s[i];
	int64_t r = s->tail ? s->tail + jit(g, 1100, 30) : 0;

	r = max64(r, s->wait);
	if (g->legacy == NO_STREAM)
		return r;
	if (s->kind == GS_STREAM_LEGACY_DEFAULT) {
		for (int k = 0; k < g->n_streams; k++)
			if (g->s[k].kind == GS_STREAM_BLOCKING && g->s[k].tail)
				r = max64(r, g->s[k].tail + jit(g, 1100, 30));
	} else if (s->kind == GS_STREAM_BLOCKING && g->s[g->legacy].tail) {
		r = max64(r, g->s[g->legacy].tail + jit(g, 1100, 30));
	}
	return r;
}

static void emit_op(struct gen *g, int stream, struct gs_op *op, const struct gs_launch_cfg *lc)
{
	gs_status st;

	if (g->st)
		return;
	op->stream = g->s[stream].index;
	st = g->sink->op(g->sink, op, lc);
	if (st)
		fail(g, st);
	if (op->end_ns > g->s[stream].tail)
		g->s[stream].tail = op->end_ns;
}

static void emit_kernel(struct gen *g, int stream, const struct kdesc *k, uint64_t corr,
			int64_t start, int64_t end, uint32_t graph_id, uint64_t graph_node)
{
	struct gs_op op = {.start_ns = start,
			   .end_ns = end,
			   .correlation = corr,
			   .graph_node = graph_node,
			   .name = str(g, k->name),
			   .kind = GS_OP_KERNEL};
	struct gs_launch_cfg lc = {.grid = {k->grid, 1, 1},
				   .block = {k->block, 1, 1},
				   .shared_mem = k->shared_mem,
				   .registers = k->registers,
				   .graph_id = graph_id};

	if (graph_id)
		op.flags |= GS_OPF_GRAPH;
	emit_op(g, stream, &op, &lc);
}

/* The launch call of kernel k (lazy loading on its first launch) and the
 * program's cudaGetLastError after it. Returns the correlation id and, in
 * *reach, when the launch reaches the GPU. */
static uint64_t launch_call(struct gen *g, const struct kdesc *k, int64_t *reach)
{
	int64_t cost = jit(g, 4300, 12);
	uint64_t corr;
	bool loaded = false;

	for (int i = 0; i < g->n_loaded; i++)
		if (!strcmp(g->loaded[i], k->name))
			loaded = true;
	if (!loaded && g->n_loaded < MAX_LOADED) {
		g->loaded[g->n_loaded++] = k->name;
		cost += jit(g, 38 * US, 20);
	}
	corr = begin_call(g, C_LAUNCH);
	end_call(g, g->now + cost);
	*reach = g->now + jit(g, 1500, 30);
	host(g, jit(g, 150, 30));
	call(g, C_GET_LAST_ERROR, 200);
	host(g, jit(g, 250, 30));
	return corr;
}

/* Launch k on `stream`; it runs `ns` once the stream lets it start. */
static int64_t launch(struct gen *g, int stream, const struct kdesc *k, int64_t ns)
{
	int64_t reach, start;
	uint64_t corr = launch_call(g, k, &reach);
	int64_t end;

	start = max64(reach, stream_ready(g, stream));
	end = start + jit(g, ns, 3);
	emit_kernel(g, stream, k, corr, start, end, 0, 0);
	return end;
}

/* Copies are named as the collector names them. */
static const char *copy_name(uint8_t dir, uint8_t host_mem)
{
	bool pinned = host_mem == GS_MEM_PINNED;

	if (dir == GS_COPY_HTOD)
		return pinned ? "Memcpy HtoD (Pinned -> Device)" :
				"Memcpy HtoD (Pageable -> Device)";
	return pinned ? "Memcpy DtoH (Device -> Pinned)" : "Memcpy DtoH (Device -> Pageable)";
}

/* Copy time at `bytes_per_us` plus a fixed 1.6 µs. */
static int64_t copy_ns(uint64_t bytes, uint64_t bytes_per_us)
{
	return 1600 + (int64_t)(bytes * 1000 / bytes_per_us);
}

static uint64_t bandwidth(uint8_t dir, uint8_t host_mem)
{
	bool pinned = host_mem == GS_MEM_PINNED;

	if (dir == GS_COPY_HTOD)
		return pinned ? 24500 : 11500;
	if (dir == GS_COPY_DTOH)
		return pinned ? 25800 : 9800;
	return 1300000; /* device to device */
}

/*
 * A copy between host memory of kind host_mem and the device on `stream`:
 * cudaMemcpyAsync (async) or cudaMemcpy (on the legacy default stream). The
 * call returns at once for an async copy from pinned memory; otherwise only
 * after the copy (host-synchronous).
 */
static int64_t copy(struct gen *g, int stream, uint8_t dir, uint8_t host_mem, uint64_t bytes,
		    bool async)
{
	struct gs_op op = {.bytes = bytes, .kind = GS_OP_MEMCPY, .copy_kind = dir};
	bool sync_return = !async || host_mem != GS_MEM_PINNED;
	int64_t cost = jit(g, async ? 4200 : 5200, 12), reach, start, end;

	op.correlation = begin_call(g, async ? C_MEMCPY_ASYNC : C_MEMCPY);
	op.name = str(g, copy_name(dir, host_mem));
	op.src_mem = dir == GS_COPY_HTOD ? host_mem : GS_MEM_DEVICE;
	op.dst_mem = dir == GS_COPY_DTOH ? host_mem : GS_MEM_DEVICE;
	if (async)
		op.flags = GS_OPF_ASYNC;
	reach = g->now + (sync_return ? jit(g, 2500, 30) : cost + jit(g, 1500, 30));
	start = max64(max64(reach, stream_ready(g, stream)), g->engine_free[dir]);
	end = start + jit(g, copy_ns(bytes, bandwidth(dir, host_mem)), 3);
	g->engine_free[dir] = end;
	op.start_ns = start;
	op.end_ns = end;
	emit_op(g, stream, &op, NULL);
	if (sync_return)
		end_call(g, end + jit(g, dir == GS_COPY_DTOH ? 6 * US : 3 * US, 25));
	else
		end_call(g, g->now + cost);
	host(g, jit(g, 300, 30));
	return end;
}

static void memset_async(struct gen *g, int stream, uint64_t bytes)
{
	struct gs_op op = {.bytes = bytes,
			   .kind = GS_OP_MEMSET,
			   .dst_mem = GS_MEM_DEVICE,
			   .flags = GS_OPF_ASYNC};
	int64_t cost = jit(g, 3600, 12), start;

	op.correlation = begin_call(g, C_MEMSET_ASYNC);
	start = max64(g->now + cost + jit(g, 1500, 30), stream_ready(g, stream));
	op.start_ns = start;
	op.end_ns = start + jit(g, 1200 + (int64_t)(bytes / 1500), 3);
	op.name = str(g, "Memset (Device)");
	emit_op(g, stream, &op, NULL);
	end_call(g, g->now + cost);
	host(g, jit(g, 300, 30));
}

static int64_t memcpy_async(struct gen *g, int stream, uint8_t dir, uint8_t host_mem,
			    uint64_t bytes)
{
	return copy(g, stream, dir, host_mem, bytes, true);
}

/* ---- events and syncs ------------------------------------------------- */

static int create_event(struct gen *g)
{
	struct sevent *e = &g->ev[g->n_events];

	if (g->n_events == MAX_EVENTS) {
		gs_error_append("more than %d events in the model", MAX_EVENTS);
		fail(g, GS_ERR_LIMIT);
		return 0;
	}
	call(g, C_EVENT_CREATE, 1800);
	memset(e, 0, sizeof(*e));
	e->id = (uint64_t)g->n_events + 1;
	return g->n_events++;
}

static void event_record(struct gen *g, int event, int stream)
{
	struct sevent *e = &g->ev[event];
	struct gs_event_record r = {0};
	gs_status st;

	r.correlation = begin_call(g, C_EVENT_RECORD);
	r.time_ns = g->call_start;
	r.event_id = e->id;
	r.sync_id = e->sync_id = ++g->next_sync_id;
	r.stream = g->s[stream].index;
	e->done = max64(g->s[stream].tail, g->s[stream].wait);
	if (!g->st) {
		st = g->sink->event_record(g->sink, &r);
		if (st)
			fail(g, st);
	}
	end_call(g, g->now + jit(g, 1900, 15));
	host(g, jit(g, 200, 30));
}

static void emit_sync(struct gen *g, uint8_t kind, int stream, const struct sevent *e)
{
	struct gs_sync y = {.start_ns = g->call_start,
			    .end_ns = g->now,
			    .pid = g->pid,
			    .tid = g->tid,
			    .correlation = g->call_corr,
			    .stream = stream == NO_STREAM ? GS_NO_INDEX : g->s[stream].index,
			    .wait_on_stream = GS_NO_INDEX,
			    .device = 0,
			    .kind = kind};
	gs_status st;

	if (e) {
		y.event_id = e->id;
		y.sync_id = e->sync_id;
	}
	if (g->st)
		return;
	st = g->sink->sync(g->sink, &y);
	if (st)
		fail(g, st);
}

static void stream_wait(struct gen *g, int stream, int event)
{
	const struct sevent *e = &g->ev[event];

	begin_call(g, C_STREAM_WAIT);
	g->s[stream].wait = max64(g->s[stream].wait, e->done);
	end_call(g, g->now + jit(g, 1600, 15));
	emit_sync(g, GS_SYNC_STREAM_WAIT, stream, e);
	host(g, jit(g, 200, 30));
}

/* Blocks until `until`, then wakes up about 4 µs later. */
static void blocking_sync(struct gen *g, enum call c, uint8_t kind, int stream, int64_t until)
{
	begin_call(g, c);
	end_call(g, max64(g->now + jit(g, 1500, 15), until + jit(g, 4 * US, 25)));
	emit_sync(g, kind, stream, NULL);
	host(g, jit(g, 300, 30));
}

static void stream_sync(struct gen *g, int stream)
{
	const struct sstream *s = &g->s[stream];

	blocking_sync(g, C_STREAM_SYNC, GS_SYNC_STREAM, stream, max64(s->tail, s->wait));
}

static void device_sync(struct gen *g)
{
	int64_t until = 0;

	for (int i = 0; i < g->n_streams; i++)
		until = max64(until, g->s[i].tail);
	blocking_sync(g, C_DEVICE_SYNC, GS_SYNC_CONTEXT, NO_STREAM, until);
}

/* ---- the process ------------------------------------------------------ */

static void start_process(struct gen *g, const char *cmdline, int64_t pid)
{
	/* As the collector writes it: CUPTI's clock is the real-time clock. */
	struct gs_process p = {.pid = pid,
			       .start_ns = BASE_NS,
			       .backend = GS_NO_STRING,
			       .clock = GS_CLOCK_COLLECTOR};
	struct gs_device d = {.id = 0,
			      .sm_count = 108,
			      .cc_major = 8,
			      .cc_minor = 0,
			      .memory_bytes = 85899345920ull,
			      .copy_engines = 1};
	struct gs_clock_pair c = {.pid = pid,
				  .device = UINT32_MAX,
				  .host_ns = 7204918273645LL,
				  .gpu_ns = BASE_NS + 31 * MS};

	g->pid = pid;
	g->tid = pid; /* the main thread */
	g->now = BASE_NS + 31 * MS;
	g->legacy = NO_STREAM;
	p.host_name = str(g, "synthetic");
	p.command_line = str(g, cmdline);
	p.driver_version = str(g, "13000");
	p.runtime_version = str(g, "13000");
	p.cupti_version = str(g, "130001");
	d.name = str(g, "NVIDIA A100-SXM4-80GB");
	d.uuid = str(g, "GPU-00000000-0000-0000-0000-000000000000");
	if (g->st)
		return;
	if ((g->st = g->sink->process(g->sink, &p)) == GS_OK &&
	    (g->st = g->sink->device(g->sink, &d)) == GS_OK)
		g->st = g->sink->clock_pair(g->sink, &c);
}

static void end_process(struct gen *g)
{
	struct gs_clock_pair c = {.pid = g->pid,
				  .device = UINT32_MAX,
				  .host_ns = 7204918273645LL + (g->now - BASE_NS - 31 * MS),
				  .gpu_ns = g->now};

	if (!g->st)
		g->st = g->sink->clock_pair(g->sink, &c);
}

/* ---- the programs ------------------------------------------------------ */

/* iterate_affine over n floats with `iters` fmaf steps: about 9.2 fmaf/ns
 * over the whole GPU, plus 3 µs. */
static int64_t affine_ns(int64_t n, int64_t iters)
{
	return 3 * US + n * iters / 9200;
}

static const struct kdesc k_affine_1m = {"iterate_affine(const float *, float *, int, int)", 4096,
					 256, 16, 0};

/* serial_stream 8 1048576 1000: H2D -> kernel -> D2H per batch, one stream. */
static void prog_serial_stream(struct gen *g)
{
	const int64_t batches = 8, n = 1 << 20, iters = 1000;
	const uint64_t bytes = (uint64_t)n * 4;
	int s;

	call(g, C_MALLOC_HOST, 6 * MS);
	call(g, C_MALLOC_HOST, 6 * MS);
	call(g, C_MALLOC, 180 * US);
	call(g, C_MALLOC, 60 * US);
	s = create_stream(g, C_STREAM_CREATE_FLAGS, 13, GS_STREAM_NON_BLOCKING, 0);
	host(g, jit(g, 9 * MS, 5)); /* fill the inputs */
	for (int64_t b = 0; b < batches; b++) {
		memcpy_async(g, s, GS_COPY_HTOD, GS_MEM_PINNED, bytes);
		launch(g, s, &k_affine_1m, affine_ns(n, iters));
		memcpy_async(g, s, GS_COPY_DTOH, GS_MEM_PINNED, bytes);
	}
	stream_sync(g, s);
	host(g, jit(g, 14 * MS, 5)); /* check the results */
	call(g, C_STREAM_DESTROY, 9 * US);
	call(g, C_FREE, 90 * US);
	call(g, C_FREE, 70 * US);
	call(g, C_FREE_HOST, 2 * MS);
	call(g, C_FREE_HOST, 2 * MS);
}

/* pipelined_streams / pageable_copies 8 4 1048576 1000. */
static void pipelined(struct gen *g, uint8_t host_mem)
{
	const int64_t batches = 8, nstreams = 4, n = 1 << 20, iters = 1000;
	const uint64_t bytes = (uint64_t)n * 4;
	int s[4];

	if (host_mem == GS_MEM_PINNED) {
		call(g, C_MALLOC_HOST, 6 * MS);
		call(g, C_MALLOC_HOST, 6 * MS);
	}
	for (int k = 0; k < nstreams; k++) {
		call(g, C_MALLOC, k ? 60 * US : 180 * US);
		call(g, C_MALLOC, 60 * US);
		s[k] = create_stream(g, C_STREAM_CREATE_FLAGS, 13 + (uint64_t)k,
				     GS_STREAM_NON_BLOCKING, 0);
	}
	host(g, jit(g, 9 * MS, 5));
	for (int64_t b = 0; b < batches; b++) {
		int k = s[b % nstreams];

		memcpy_async(g, k, GS_COPY_HTOD, host_mem, bytes);
		launch(g, k, &k_affine_1m, affine_ns(n, iters));
		memcpy_async(g, k, GS_COPY_DTOH, host_mem, bytes);
	}
	device_sync(g);
	host(g, jit(g, 14 * MS, 5));
	for (int k = 0; k < nstreams; k++) {
		call(g, C_STREAM_DESTROY, 9 * US);
		call(g, C_FREE, 90 * US);
		call(g, C_FREE, 70 * US);
	}
	if (host_mem == GS_MEM_PINNED) {
		call(g, C_FREE_HOST, 2 * MS);
		call(g, C_FREE_HOST, 2 * MS);
	}
}

static void prog_pipelined_streams(struct gen *g)
{
	pipelined(g, GS_MEM_PINNED);
}

static void prog_pageable_copies(struct gen *g)
{
	pipelined(g, GS_MEM_PAGEABLE);
}

/* event_chain 16 1048576 1000: producer / consumer / reducer joined by events. */
static void prog_event_chain(struct gen *g)
{
	const int64_t iterations = 16, n = 1 << 20, steps = 1000;
	const struct kdesc produce = {"produce(float *, int, int)", 4096, 256, 10, 0};
	const struct kdesc reduce = {"reduce_sum(const float *, int, float *)", 1, 1024, 18, 4096};
	int sp, sc, sr, produced[2], consumed[2], reduced[2];

	sp = create_stream(g, C_STREAM_CREATE_FLAGS, 13, GS_STREAM_NON_BLOCKING, 0);
	sc = create_stream(g, C_STREAM_CREATE_FLAGS, 14, GS_STREAM_NON_BLOCKING, 0);
	sr = create_stream(g, C_STREAM_CREATE_FLAGS, 15, GS_STREAM_NON_BLOCKING, 0);
	for (int k = 0; k < 2; k++) {
		call(g, C_MALLOC, k ? 60 * US : 180 * US);
		call(g, C_MALLOC, 60 * US);
		produced[k] = create_event(g);
		consumed[k] = create_event(g);
		reduced[k] = create_event(g);
	}
	call(g, C_MALLOC, 20 * US);
	call(g, C_MALLOC_HOST, 400 * US);
	memset_async(g, sr, (uint64_t)iterations * 4);
	for (int64_t i = 0; i < iterations; i++) {
		int k = (int)(i % 2);

		if (i >= 2)
			stream_wait(g, sp, consumed[k]);
		launch(g, sp, &produce, 2500 + n * 4 / 1400);
		event_record(g, produced[k], sp);

		stream_wait(g, sc, produced[k]);
		if (i >= 2)
			stream_wait(g, sc, reduced[k]);
		launch(g, sc, &k_affine_1m, affine_ns(n, steps));
		event_record(g, consumed[k], sc);

		stream_wait(g, sr, consumed[k]);
		launch(g, sr, &reduce, 3 * US + n * 4 / 60);
		event_record(g, reduced[k], sr);
	}
	memcpy_async(g, sr, GS_COPY_DTOH, GS_MEM_PINNED, (uint64_t)iterations * 4);
	stream_sync(g, sr);
	host(g, jit(g, 30 * MS, 5)); /* the sums in double */
	for (int k = 0; k < 2; k++) {
		for (int e = 0; e < 3; e++)
			call(g, C_EVENT_DESTROY, 1500);
		call(g, C_FREE, 90 * US);
		call(g, C_FREE, 70 * US);
	}
	call(g, C_FREE, 20 * US);
	call(g, C_FREE_HOST, 300 * US);
	for (int k = 0; k < 3; k++)
		call(g, C_STREAM_DESTROY, 9 * US);
}

/* default_stream 8 65536 2000: legacy default stream between blocking streams. */
static void prog_default_stream(struct gen *g)
{
	const int64_t iterations = 8, n = 1 << 16;
	const uint64_t bytes = (uint64_t)n * 4;
	const struct kdesc affine = {"iterate_affine(const float *, float *, int, int)", 256, 256,
				     16, 0};
	const struct kdesc average = {"average(const float *, const float *, float *, int)", 256,
				      256, 12, 0};
	int legacy, s1, s2;

	host(g, jit(g, 300 * US, 5)); /* fill the inputs */
	legacy = add_stream(g, 7, GS_STREAM_LEGACY_DEFAULT, 0);
	s1 = create_stream(g, C_STREAM_CREATE, 13, GS_STREAM_BLOCKING, 0);
	s2 = create_stream(g, C_STREAM_CREATE, 14, GS_STREAM_BLOCKING, 0);
	call(g, C_MALLOC, 180 * US);
	call(g, C_MALLOC, 40 * US);
	call(g, C_MALLOC, 40 * US);
	copy(g, legacy, GS_COPY_HTOD, GS_MEM_PAGEABLE, bytes, false);
	for (int64_t i = 0; i < iterations; i++) {
		/* 256 blocks fill about a third of the GPU: the two run side by
		 * side, each a little slower than alone. */
		launch(g, s1, &affine, 17 * US);
		launch(g, s2, &affine, 17 * US);
		launch(g, legacy, &average, 3 * US);
	}
	copy(g, legacy, GS_COPY_DTOH, GS_MEM_PAGEABLE, bytes, false);
	host(g, jit(g, 600 * US, 5));
	call(g, C_STREAM_DESTROY, 9 * US);
	call(g, C_STREAM_DESTROY, 9 * US);
	for (int k = 0; k < 3; k++)
		call(g, C_FREE, 50 * US);
}

/* host_sync_loop 50 262144 250: a synchronize in every iteration. */
static void prog_host_sync_loop(struct gen *g)
{
	const int64_t iterations = 50, n = 1 << 18, steps = 250;
	const uint64_t bytes = (uint64_t)n * 4;
	const struct kdesc affine = {"iterate_affine(const float *, float *, int, int)", 1024, 256,
				     16, 0};
	int s;

	call(g, C_MALLOC_HOST, 700 * US);
	call(g, C_MALLOC_HOST, 300 * US);
	call(g, C_MALLOC, 180 * US);
	s = create_stream(g, C_STREAM_CREATE_FLAGS, 13, GS_STREAM_NON_BLOCKING, 0);
	host(g, jit(g, 900 * US, 5));
	memcpy_async(g, s, GS_COPY_HTOD, GS_MEM_PINNED, bytes);
	for (int64_t i = 0; i < iterations; i++) {
		launch(g, s, &affine, affine_ns(n, steps));
		memcpy_async(g, s, GS_COPY_DTOH, GS_MEM_PINNED, 4);
		stream_sync(g, s);
		host(g, jit(g, 2500, 20)); /* the host checks the probe */
	}
	memcpy_async(g, s, GS_COPY_DTOH, GS_MEM_PINNED, bytes);
	stream_sync(g, s);
	host(g, jit(g, 1500 * US, 5));
	call(g, C_STREAM_DESTROY, 9 * US);
	call(g, C_FREE, 60 * US);
	call(g, C_FREE_HOST, 500 * US);
	call(g, C_FREE_HOST, 200 * US);
}

/* graph_replay 20: an 18-kernel MLP forward launched directly, then as a graph. */
#define GR_LAYERS 9
static const int64_t gr_width[GR_LAYERS + 1] = {1024, 896, 768, 640, 512, 384, 256, 192, 128, 64};

static int64_t linear_ns(int l)
{
	int64_t in = gr_width[l], out = gr_width[l + 1], grid = out / 64;

	/* One SM per block at about 80 bytes/ns reads the block's part of W. */
	return 2200 + in * out * 4 / (grid * 80);
}

static void gr_kernels(struct kdesc *lin, struct kdesc *bias)
{
	for (int l = 0; l < GR_LAYERS; l++) {
		uint32_t grid = (uint32_t)(gr_width[l + 1] / 64);

		lin[l] = (struct kdesc){"linear(const float *, const float *, float *, int, int)",
					grid, 64, 32, 0};
		bias[l] = (struct kdesc){"bias_relu(float *, const float *, int)", grid, 64, 8, 0};
	}
}

/* Launches into a capturing stream make API records but no ops. */
static void gr_capture_calls(struct gen *g)
{
	for (int k = 0; k < 2 * GR_LAYERS; k++) {
		call(g, C_LAUNCH, 2600);
		host(g, jit(g, 150, 30));
		call(g, C_GET_LAST_ERROR, 200);
		host(g, jit(g, 250, 30));
	}
}

static void prog_graph_replay(struct gen *g)
{
	const int64_t reps = 20;
	struct kdesc lin[GR_LAYERS], bias[GR_LAYERS];
	const struct kdesc init = {"init_layer(float *, float *, int, int, int)", 0, 256, 20, 0};
	const uint32_t graph_id = 1;
	int sd, sg;

	gr_kernels(lin, bias);
	sd = create_stream(g, C_STREAM_CREATE_FLAGS, 13, GS_STREAM_NON_BLOCKING, 0);
	sg = create_stream(g, C_STREAM_CREATE_FLAGS, 14, GS_STREAM_NON_BLOCKING, 0);
	for (int k = 0; k < 3; k++)
		call(g, C_MALLOC_HOST, 250 * US);
	for (int l = 0; l <= GR_LAYERS; l++)
		call(g, C_MALLOC, l ? 12 * US : 180 * US);
	for (int l = 0; l < GR_LAYERS; l++) {
		call(g, C_MALLOC, 40 * US);
		call(g, C_MALLOC, 12 * US);
	}
	for (int l = 0; l < GR_LAYERS; l++) {
		struct kdesc k = init;
		int64_t n = gr_width[l] * gr_width[l + 1];

		k.grid = (uint32_t)((n + 255) / 256);
		launch(g, sd, &k, 3 * US + n * 4 / 1300);
	}
	host(g, jit(g, 20 * US, 5));
	memcpy_async(g, sd, GS_COPY_HTOD, GS_MEM_PINNED, (uint64_t)gr_width[0] * 4);

	for (int64_t r = 0; r < reps; r++) {
		for (int l = 0; l < GR_LAYERS; l++) {
			launch(g, sd, &lin[l], linear_ns(l));
			launch(g, sd, &bias[l], 1800);
		}
	}
	memcpy_async(g, sd, GS_COPY_DTOH, GS_MEM_PINNED, (uint64_t)gr_width[GR_LAYERS] * 4);
	stream_sync(g, sd);

	call(g, C_BEGIN_CAPTURE, 3 * US);
	gr_capture_calls(g);
	call(g, C_END_CAPTURE, 12 * US);
	call(g, C_GRAPH_INSTANTIATE, 150 * US);
	for (int64_t r = 0; r < reps; r++) {
		/* The first launch uploads the graph. */
		int64_t cost = jit(g, r ? 7500 : 45 * US, 12), t;
		uint64_t corr = begin_call(g, C_GRAPH_LAUNCH);

		end_call(g, g->now + cost);
		t = max64(g->now + jit(g, 1800, 30), stream_ready(g, sg));
		for (int l = 0; l < GR_LAYERS; l++) {
			const struct kdesc *k[2] = {&lin[l], &bias[l]};
			int64_t ns[2] = {linear_ns(l), 1800};

			for (int j = 0; j < 2; j++) {
				int64_t end = t + jit(g, ns[j], 3);

				emit_kernel(g, sg, k[j], corr, t, end, graph_id,
					    (uint64_t)(2 * l + j + 1));
				t = end + jit(g, 650, 30);
			}
		}
		host(g, jit(g, 400, 30));
	}
	memcpy_async(g, sg, GS_COPY_DTOH, GS_MEM_PINNED, (uint64_t)gr_width[GR_LAYERS] * 4);
	stream_sync(g, sg);
	host(g, jit(g, 14 * MS, 5)); /* the host reference */
	call(g, C_GRAPH_EXEC_DESTROY, 60 * US);
	call(g, C_GRAPH_DESTROY, 20 * US);
	for (int l = 0; l < 2 * GR_LAYERS + GR_LAYERS + 1; l++)
		call(g, C_FREE, 40 * US);
	for (int k = 0; k < 3; k++)
		call(g, C_FREE_HOST, 150 * US);
	call(g, C_STREAM_DESTROY, 9 * US);
	call(g, C_STREAM_DESTROY, 9 * US);
}

/* launch_bound 5000 4096: thousands of tiny kernels on one stream. */
static void prog_launch_bound(struct gen *g)
{
	const int64_t kernels = 5000, n = 4096;
	const struct kdesc add_one = {"add_one(float *, int)", 16, 256, 8, 0};
	int s;

	call(g, C_MALLOC_HOST, 300 * US);
	call(g, C_MALLOC, 180 * US);
	s = create_stream(g, C_STREAM_CREATE_FLAGS, 13, GS_STREAM_NON_BLOCKING, 0);
	memset_async(g, s, (uint64_t)n * 4);
	for (int64_t k = 0; k < kernels; k++)
		launch(g, s, &add_one, jit(g, 1900, 8));
	memcpy_async(g, s, GS_COPY_DTOH, GS_MEM_PINNED, (uint64_t)n * 4);
	stream_sync(g, s);
	host(g, jit(g, 20 * US, 5));
	call(g, C_STREAM_DESTROY, 9 * US);
	call(g, C_FREE, 60 * US);
	call(g, C_FREE_HOST, 200 * US);
}

/*
 * stream_priorities 4 1048576 1000, laid out by hand: the high-priority
 * kernels take the SMs about 2.5 µs after they reach the GPU (as the blocks
 * of the running low-priority kernel retire), run one after another, and
 * the interrupted low-priority kernel finishes its remaining blocks after
 * them; the other low-priority kernels follow it.
 */
static void prog_stream_priorities(struct gen *g)
{
	const int64_t kernels = 4, n = 1 << 20, steps = 1000;
	const uint64_t bytes = (uint64_t)n * 4;
	const int64_t dur = affine_ns(n, steps);
	uint64_t corr_low[4], corr_high[4];
	int64_t reach_low[4], reach_high[4], t, low_start, low_done, resume;
	int legacy, low, high;

	legacy = add_stream(g, 7, GS_STREAM_LEGACY_DEFAULT, 0);
	call(g, C_PRIORITY_RANGE, 1200);
	low = create_stream(g, C_STREAM_CREATE_PRIO, 13, GS_STREAM_NON_BLOCKING, 0);
	high = create_stream(g, C_STREAM_CREATE_PRIO, 14, GS_STREAM_NON_BLOCKING, -5);
	call(g, C_MALLOC_HOST, 9 * MS);
	call(g, C_MALLOC, 180 * US);
	for (int k = 0; k < 2 * kernels; k++)
		call(g, C_MALLOC, 60 * US);
	host(g, jit(g, 1200 * US, 5)); /* fill the input */
	copy(g, legacy, GS_COPY_HTOD, GS_MEM_PINNED, bytes, false);

	for (int k = 0; k < kernels; k++)
		corr_low[k] = launch_call(g, &k_affine_1m, &reach_low[k]);
	for (int k = 0; k < kernels; k++)
		corr_high[k] = launch_call(g, &k_affine_1m, &reach_high[k]);

	low_start = max64(reach_low[0], stream_ready(g, low));
	t = max64(reach_high[0] + jit(g, 2500, 20), low_start);
	for (int k = 0; k < kernels; k++) {
		int64_t start = k ? max64(t + jit(g, 1100, 30), reach_high[k]) : t;

		t = start + jit(g, dur, 3);
		emit_kernel(g, high, &k_affine_1m, corr_high[k], start, t, 0, 0);
	}
	/* What the first low-priority kernel had done before it was interrupted. */
	resume = t + jit(g, 2500, 20);
	low_done = max64(0, reach_high[0] - low_start);
	if (low_done > dur - 10 * US)
		low_done = dur - 10 * US;
	t = resume + jit(g, dur - low_done, 3);
	emit_kernel(g, low, &k_affine_1m, corr_low[0], low_start, t, 0, 0);
	for (int k = 1; k < kernels; k++) {
		int64_t start = max64(t + jit(g, 1100, 30), reach_low[k]);

		t = start + jit(g, dur, 3);
		emit_kernel(g, low, &k_affine_1m, corr_low[k], start, t, 0, 0);
	}
	device_sync(g);
	host(g, jit(g, 60 * US, 5));
	for (int k = 0; k < 2 * kernels; k++)
		copy(g, legacy, GS_COPY_DTOH, GS_MEM_PINNED, bytes, false);
	for (int k = 0; k < 2 * kernels; k++) {
		host(g, jit(g, 1800 * US, 5)); /* check the results */
		call(g, C_FREE, 60 * US);
	}
	call(g, C_STREAM_DESTROY, 9 * US);
	call(g, C_STREAM_DESTROY, 9 * US);
	call(g, C_FREE, 60 * US);
	call(g, C_FREE_HOST, 900 * US);
}

static const struct program {
	const char *name;
	const char *cmdline;
	void (*run)(struct gen *g);
} programs[] = {
	{"serial_stream", "kernels/serial_stream", prog_serial_stream},
	{"pipelined_streams", "kernels/pipelined_streams", prog_pipelined_streams},
	{"pageable_copies", "kernels/pageable_copies", prog_pageable_copies},
	{"event_chain", "kernels/event_chain", prog_event_chain},
	{"default_stream", "kernels/default_stream", prog_default_stream},
	{"host_sync_loop", "kernels/host_sync_loop", prog_host_sync_loop},
	{"graph_replay", "kernels/graph_replay", prog_graph_replay},
	{"launch_bound", "kernels/launch_bound", prog_launch_bound},
	{"stream_priorities", "kernels/stream_priorities", prog_stream_priorities},
};
#define N_PROGRAMS (sizeof(programs) / sizeof(programs[0]))

/* ---- files --------------------------------------------------------------- */

static gs_status write_one(const struct program *p, size_t index, const char *dir)
{
	char path[4096], tmp[4200], err[1024];
	struct gs_writer_options opts = {.compression_level = 9};
	struct gs_writer *w;
	struct gen g;
	gs_status st;

	gs_error_clear();
	if (snprintf(path, sizeof(path), "%s/%s.gscope", dir, p->name) >= (int)sizeof(path)) {
		fprintf(stderr, "gen_synthetic: %s: path too long\n", dir);
		return GS_ERR_INVALID;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	st = gs_writer_open(tmp, &opts, &w);
	if (st) {
		fprintf(stderr, "gen_synthetic: %s\n", gs_error_format(err, sizeof(err)));
		return st;
	}
	memset(&g, 0, sizeof(g));
	g.sink = gs_writer_borrow_sink(w);
	g.rng = 0x6770757363617065ull + index; /* "gpuscape" + the program's index */
	start_process(&g, p->cmdline, 24601 + (int64_t)index * 97);
	p->run(&g);
	end_process(&g);
	st = g.st;
	if (gs_writer_close(w) && !st)
		st = GS_ERR_IO;
	if (!st && rename(tmp, path) != 0) {
		fprintf(stderr, "gen_synthetic: rename %s: %s\n", path, strerror(errno));
		remove(tmp);
		return GS_ERR_IO;
	}
	if (st) {
		fprintf(stderr, "gen_synthetic: %s: %s\n", path, gs_error_format(err, sizeof(err)));
		remove(tmp);
	}
	return st;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gen_synthetic OUTDIR [NAME...]\n"
		   "       gen_synthetic --list | --zlib-version\n"
		   "Writes SYNTHETIC stand-in traces of the kernels/ programs (a model, not a\n"
		   "recording) to OUTDIR/NAME.gscope, all of them unless NAMEs are given.\n");
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (size_t i = 0; i < N_PROGRAMS; i++)
			printf("%s\n", programs[i].name);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--zlib-version")) {
		printf("%s\n", zlibVersion());
		return 0;
	}
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc < 2 || argv[1][0] == '-') {
		usage(stderr);
		return 2;
	}
	for (int a = 2; a < argc; a++) {
		bool known = false;

		for (size_t i = 0; i < N_PROGRAMS; i++)
			known |= !strcmp(argv[a], programs[i].name);
		if (!known) {
			fprintf(stderr, "gen_synthetic: unknown program '%s' (--list)\n", argv[a]);
			return 2;
		}
	}
	for (size_t i = 0; i < N_PROGRAMS; i++) {
		bool want = argc == 2;

		for (int a = 2; a < argc; a++)
			want |= !strcmp(argv[a], programs[i].name);
		if (want && write_one(&programs[i], i, argv[1]))
			return 1;
	}
	return 0;
}
