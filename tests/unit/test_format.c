/* SPDX-License-Identifier: MIT */
/* .gscope writer and reader: round trips, cut files, corrupt bytes, bounds. */
#define _GNU_SOURCE /* sched_setaffinity */
#include <gpuscope/format.h>

#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

/* ---- helpers ---- */

static uint32_t S(struct gs_sink *s, const char *str)
{
	uint32_t id;

	assert_int_equal(s->intern(s, str, strlen(str), &id), GS_OK);
	return id;
}

static uint32_t stream(struct gs_sink *s, int64_t pid, uint32_t dev, uint64_t id, uint8_t kind,
		       int32_t prio)
{
	struct gs_stream st = {.pid = pid,
			       .device = dev,
			       .context = 1,
			       .stream_id = id,
			       .kind = kind,
			       .priority = prio};
	uint32_t idx;

	assert_int_equal(s->stream(s, &st, &idx), GS_OK);
	return idx;
}

/* Collective number `i` (its fields vary with i), declared; returns what
 * op.collective holds. */
static uint32_t emit_collective(struct gs_sink *s, int i)
{
	static const char *const names[] = {"allreduce", "_allgather_base", "broadcast"};
	struct gs_collective c = {
		.name = S(s, names[i % 3]),
		.group = S(s, i % 4 ? "0" : "1"),
		.group_desc = i % 5 ? S(s, "default_pg") : GS_NO_STRING,
		.group_ranks = i % 2 ? GS_NO_STRING : S(s, "[0, 1, 2, 3, 4, 5, 6, 7]"),
		.dtype = S(s, i % 4 ? "Float" : "BFloat16"),
		.group_size = 8,
		.in_nelems = 1024 * (uint64_t)(i + 1),
		.out_nelems = i % 3 == 1 ? 8192 * (uint64_t)(i + 1) : 1024 * (uint64_t)(i + 1),
		.has_nelems = i % 7 != 0};
	uint32_t idx = GS_NO_INDEX;

	assert_int_equal(s->collective(s, &c, &idx), GS_OK);
	return idx + 1;
}

/* Emit `nops` ops and one or more of every other record kind. */
static void emit_sample(struct gs_sink *s, int nops)
{
	const int64_t t0 = 1707417525509335123LL;
	uint32_t s7 = stream(s, 42, 0, 7, GS_STREAM_LEGACY_DEFAULT, 0);
	uint32_t s9 = stream(s, 42, 0, 9, GS_STREAM_NON_BLOCKING, -2);
	uint32_t s1 = stream(s, 42, 1, 13, GS_STREAM_BLOCKING, 0);
	struct gs_process p = {.pid = 42,
			       .host_name = S(s, "node-a"),
			       .command_line = S(s, "./train --epochs 1"),
			       .driver_version = S(s, "13000"),
			       .runtime_version = S(s, "13000"),
			       .cupti_version = S(s, "130001"),
			       .start_ns = t0 - 1000,
			       .dropped_records = 0,
			       .has_rank = true,
			       .rank = 3,
			       .world_size = 8};
	struct gs_device d0 = {.id = 0,
			       .name = S(s, "NVIDIA H200"),
			       .uuid = S(s, "GPU-1234"),
			       .sm_count = 132,
			       .cc_major = 9,
			       .cc_minor = 0,
			       .memory_bytes = 150ull << 30,
			       .copy_engines = 3};
	struct gs_device d1 = d0;
	struct gs_allocation a = {.address = 0x7f0000000000ull,
				  .bytes = 1 << 20,
				  .alloc_ns = t0,
				  .free_ns = t0 + 999999,
				  .pid = 42,
				  .device = 0,
				  .mem_kind = GS_MEM_DEVICE};
	uint32_t aidx;

	d1.id = 1;
	d1.uuid = S(s, "GPU-5678");
	assert_int_equal(s->process(s, &p), GS_OK);
	assert_int_equal(s->device(s, &d0), GS_OK);
	assert_int_equal(s->device(s, &d1), GS_OK);
	for (int i = 0; i < nops; i++) {
		struct gs_op op = {0};
		struct gs_launch_cfg lc = {0};
		char name[64];

		op.kind = (uint8_t)(i % 3);
		op.start_ns = t0 + i * 1500 + (i % 7);
		op.end_ns = op.start_ns + 100 + (i % 11) * 37;
		op.correlation = 1000 + (uint64_t)i * 2;
		op.stream = i % 5 == 0 ? s1 : (i % 2 ? s7 : s9);
		snprintf(name, sizeof(name), "kernel_%d", i % 13);
		op.name = S(s, op.kind == GS_OP_KERNEL ? name :
			       op.kind == GS_OP_MEMCPY ? "Memcpy HtoD" :
							 "Memset");
		if (op.kind == GS_OP_KERNEL) {
			lc.grid[0] = 128 + (uint32_t)i;
			lc.grid[1] = 2;
			lc.grid[2] = 1;
			lc.block[0] = 256;
			lc.block[1] = 1;
			lc.block[2] = 1;
			lc.shared_mem = (uint32_t)(i % 4) * 1024;
			lc.registers = 32;
			if (i % 4 == 0) {
				/* Graph ids past 32 bits: two graphs apart. */
				op.flags = GS_OPF_GRAPH;
				lc.graph_id = (1ull << 32) + (uint64_t)(i % 8 == 0);
				op.graph_node = 77 + (uint64_t)i;
			}
			if (i % 6 == 0)
				op.collective = emit_collective(s, i / 6);
		} else {
			op.bytes = 4096 * (uint64_t)(i + 1);
			op.flags = GS_OPF_ASYNC;
			if (i % 7 == 1) { /* a copy or memset node of a graph */
				op.flags |= GS_OPF_GRAPH;
				lc.graph_id = 5;
				op.graph_node = 900 + (uint64_t)i;
			}
			if (op.kind == GS_OP_MEMCPY) {
				op.copy_kind = (uint8_t)(1 + i % 5);
				op.src_mem = GS_MEM_PINNED;
				op.dst_mem = GS_MEM_DEVICE;
			} else {
				op.dst_mem = i % 2 ? GS_MEM_MANAGED : GS_MEM_DEVICE;
			}
		}
		assert_int_equal(s->op(s, &op, &lc), GS_OK);

		struct gs_api_call c = {.start_ns = op.start_ns - 5000,
					.end_ns = op.start_ns - 4000,
					.pid = 42,
					.tid = 42 + i % 2,
					.correlation = op.correlation,
					.name = S(s, op.kind == GS_OP_KERNEL ? "cudaLaunchKernel" :
									       "cudaMemcpyAsync"),
					.return_value = i == 3 ? 700 : 0,
					.cbid = 211,
					.kind = (uint8_t)(i % 9 == 0 ? GS_API_DRIVER :
								       GS_API_RUNTIME)};
		assert_int_equal(s->api_call(s, &c), GS_OK);
	}
	struct gs_sync y = {.kind = GS_SYNC_STREAM_WAIT,
			    .start_ns = t0 + 10,
			    .end_ns = t0 + 20,
			    .pid = 42,
			    .tid = 42,
			    .correlation = 5000,
			    .event_id = 3,
			    .sync_id = 99,
			    .event_correlation = 4999,
			    .stream = s9,
			    .wait_on_stream = s7,
			    .device = 0};
	assert_int_equal(s->sync(s, &y), GS_OK);
	y.kind = GS_SYNC_CONTEXT;
	y.stream = GS_NO_INDEX;
	y.wait_on_stream = GS_NO_INDEX;
	y.start_ns = t0 + 30000;
	y.end_ns = t0 + 90000;
	y.tid = -1;
	assert_int_equal(s->sync(s, &y), GS_OK);
	struct gs_event_record e = {.time_ns = t0 + 5,
				    .correlation = 4999,
				    .event_id = 3,
				    .sync_id = 99,
				    .stream = s7};
	assert_int_equal(s->event_record(s, &e), GS_OK);
	e.stream = GS_NO_INDEX;
	e.correlation = 6000;
	assert_int_equal(s->event_record(s, &e), GS_OK);
	assert_int_equal(s->allocation(s, &a, &aidx), GS_OK);
	struct gs_op_alloc l = {.correlation = 1000, .allocation = aidx, .op_kind = GS_OP_KERNEL};
	assert_int_equal(s->op_alloc(s, &l), GS_OK);
	struct gs_range r = {.start_ns = t0,
			     .end_ns = t0 + 500000,
			     .pid = 42,
			     .tid = 42,
			     .external_id = 17,
			     .name = S(s, "aten::conv2d"),
			     .domain = GS_NO_STRING,
			     .kind = GS_RANGE_CPU_OP};
	assert_int_equal(s->range(s, &r), GS_OK);
	r.kind = GS_RANGE_NVTX;
	r.domain = S(s, "my-domain");
	r.name = S(s, "step 1");
	r.external_id = 0;
	assert_int_equal(s->range(s, &r), GS_OK);
	struct gs_overhead o = {.start_ns = t0 + 1,
				.end_ns = t0 + 2,
				.pid = 42,
				.kind = S(s, "buffer flush")};
	assert_int_equal(s->overhead(s, &o), GS_OK);
	struct gs_clock_pair cp = {.pid = 42, .device = 0, .host_ns = t0, .gpu_ns = 123456789};
	assert_int_equal(s->clock_pair(s, &cp), GS_OK);
	assert_int_equal(s->dropped(s, 42, 17), GS_OK);
	assert_int_equal(s->warning(s, "an importer warning", 3, GS_WARNING_OTHER), GS_OK);
	assert_int_equal(s->warning(s, "wait calls, no syncs", 2, GS_WARNING_UNLINKED_WAIT_CALLS),
			 GS_OK);
}

/* The kind of the warning whose message holds needle (-1: none). */
static int warning_kind(const struct gs_trace *t, const char *needle)
{
	size_t n;
	const struct gs_warning *w = gs_trace_warnings(t, &n);

	for (size_t i = 0; i < n; i++)
		if (strstr(w[i].message, needle))
			return w[i].kind;
	return -1;
}

static char *tmp_path(const char *tag)
{
	static int seq;
	char *p = malloc(256);

	assert_non_null(p);
	snprintf(p, 256, "/tmp/gs_test_format_%d_%s_%d.gscope", (int)getpid(), tag, seq++);
	unlink(p);
	return p;
}

static unsigned char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return buf;
}

static struct gs_trace *sample_trace(int nops)
{
	struct gs_trace *t;

	assert_int_equal(gs_trace_create(&t), GS_OK);
	emit_sample(gs_trace_borrow_sink(t), nops);
	assert_int_equal(gs_trace_finish(t), GS_OK);
	return t;
}

/* Write a sample through the streaming writer with small chunks. */
static char *write_sample(int nops, uint32_t flush_records, uint64_t *chunks)
{
	char *path = tmp_path("w");
	struct gs_writer *w;
	struct gs_writer_options o = {.flush_records = flush_records,
				      .compression_level = -1,
				      .exclusive = true};

	assert_int_equal(gs_writer_open(path, &o, &w), GS_OK);
	emit_sample(gs_writer_borrow_sink(w), nops);
	if (chunks)
		*chunks = gs_writer_chunk_count(w);
	assert_int_equal(gs_writer_close(w), GS_OK);
	return path;
}

static struct gs_trace *read_mem(const unsigned char *buf, size_t size, unsigned flags,
				 gs_status *st)
{
	struct gs_reader *r;
	struct gs_trace *t;

	assert_int_equal(gs_trace_create(&t), GS_OK);
	assert_int_equal(gs_reader_open_mem(buf, size, "mem.gscope", flags, &r), GS_OK);
	*st = gs_reader_read_all(r, gs_trace_borrow_sink(t));
	gs_reader_close(r);
	if (*st == GS_OK)
		assert_int_equal(gs_trace_finish(t), GS_OK);
	return t;
}

static const char *str(const struct gs_trace *t, uint32_t id)
{
	return gs_trace_string(t, id);
}

static void assert_same_collective(const struct gs_trace *a, const struct gs_collective *x,
				   const struct gs_trace *b, const struct gs_collective *y)
{
	assert_int_equal(x != NULL, y != NULL);
	if (!x)
		return;
	assert_string_equal(str(a, x->name), str(b, y->name));
	assert_string_equal(str(a, x->group), str(b, y->group));
	assert_string_equal(str(a, x->group_desc), str(b, y->group_desc));
	assert_string_equal(str(a, x->group_ranks), str(b, y->group_ranks));
	assert_string_equal(str(a, x->dtype), str(b, y->dtype));
	assert_int_equal(x->group_desc == GS_NO_STRING, y->group_desc == GS_NO_STRING);
	assert_int_equal(x->group_ranks == GS_NO_STRING, y->group_ranks == GS_NO_STRING);
	assert_int_equal(x->group_size, y->group_size);
	assert_int_equal(x->in_nelems, y->in_nelems);
	assert_int_equal(x->out_nelems, y->out_nelems);
	assert_int_equal(x->has_nelems, y->has_nelems);
}

/* Two finished traces hold the same records, strings compared by text. */
static void assert_same(const struct gs_trace *a, const struct gs_trace *b)
{
	size_t na, nb;
	const struct gs_op *oa = gs_trace_ops(a, &na), *ob = gs_trace_ops(b, &nb);
	const struct gs_stream *sa, *sb;

	assert_int_equal(na, nb);
	sa = gs_trace_streams(a, &na);
	sb = gs_trace_streams(b, &nb);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(sa[i].pid, sb[i].pid);
		assert_int_equal(sa[i].device, sb[i].device);
		assert_int_equal(sa[i].context, sb[i].context);
		assert_int_equal(sa[i].stream_id, sb[i].stream_id);
		assert_int_equal(sa[i].kind, sb[i].kind);
		assert_int_equal(sa[i].priority, sb[i].priority);
	}
	gs_trace_ops(a, &na);
	for (size_t i = 0; i < na; i++) {
		const struct gs_op *x = &oa[i], *y = &ob[i];

		assert_int_equal(x->start_ns, y->start_ns);
		assert_int_equal(x->end_ns, y->end_ns);
		assert_int_equal(x->correlation, y->correlation);
		assert_int_equal(x->bytes, y->bytes);
		assert_int_equal(x->graph_node, y->graph_node);
		assert_string_equal(str(a, x->name), str(b, y->name));
		assert_int_equal(sa[x->stream].stream_id, sb[y->stream].stream_id);
		{
			const struct gs_launch_cfg *lx = gs_trace_op_launch_cfg(a, x);
			const struct gs_launch_cfg *ly = gs_trace_op_launch_cfg(b, y);

			assert_int_equal(lx == NULL, ly == NULL);
			if (lx)
				assert_memory_equal(lx, ly, sizeof(*lx));
		}
		assert_int_equal(x->kind, y->kind);
		assert_int_equal(x->copy_kind, y->copy_kind);
		assert_int_equal(x->src_mem, y->src_mem);
		assert_int_equal(x->dst_mem, y->dst_mem);
		assert_int_equal(x->flags, y->flags);
		assert_same_collective(a, gs_trace_op_collective(a, x), b,
				       gs_trace_op_collective(b, y));
	}
	gs_trace_collectives(a, &na);
	gs_trace_collectives(b, &nb);
	assert_int_equal(na, nb);
	const struct gs_api_call *ca = gs_trace_api_calls(a, &na), *cb = gs_trace_api_calls(b, &nb);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(ca[i].start_ns, cb[i].start_ns);
		assert_int_equal(ca[i].end_ns, cb[i].end_ns);
		assert_int_equal(ca[i].pid, cb[i].pid);
		assert_int_equal(ca[i].tid, cb[i].tid);
		assert_int_equal(ca[i].correlation, cb[i].correlation);
		assert_int_equal(ca[i].return_value, cb[i].return_value);
		assert_int_equal(ca[i].cbid, cb[i].cbid);
		assert_int_equal(ca[i].kind, cb[i].kind);
		assert_string_equal(str(a, ca[i].name), str(b, cb[i].name));
	}
	const struct gs_sync *ya = gs_trace_syncs(a, &na), *yb = gs_trace_syncs(b, &nb);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(ya[i].kind, yb[i].kind);
		assert_int_equal(ya[i].start_ns, yb[i].start_ns);
		assert_int_equal(ya[i].end_ns, yb[i].end_ns);
		assert_int_equal(ya[i].tid, yb[i].tid);
		assert_int_equal(ya[i].correlation, yb[i].correlation);
		assert_int_equal(ya[i].event_id, yb[i].event_id);
		assert_int_equal(ya[i].sync_id, yb[i].sync_id);
		assert_int_equal(ya[i].event_correlation, yb[i].event_correlation);
		assert_int_equal(ya[i].stream, yb[i].stream);
		assert_int_equal(ya[i].wait_on_stream, yb[i].wait_on_stream);
	}
	const struct gs_event_record *ea = gs_trace_event_records(a, &na),
				     *eb = gs_trace_event_records(b, &nb);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(ea[i].time_ns, eb[i].time_ns);
		assert_int_equal(ea[i].correlation, eb[i].correlation);
		assert_int_equal(ea[i].sync_id, eb[i].sync_id);
		assert_int_equal(ea[i].stream, eb[i].stream);
	}
	const struct gs_range *ra = gs_trace_ranges(a, &na), *rb = gs_trace_ranges(b, &nb);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(ra[i].start_ns, rb[i].start_ns);
		assert_int_equal(ra[i].end_ns, rb[i].end_ns);
		assert_int_equal(ra[i].external_id, rb[i].external_id);
		assert_int_equal(ra[i].kind, rb[i].kind);
		assert_string_equal(str(a, ra[i].name), str(b, rb[i].name));
		assert_string_equal(str(a, ra[i].domain), str(b, rb[i].domain));
	}
	const struct gs_allocation *aa = gs_trace_allocations(a, &na),
				   *ab = gs_trace_allocations(b, &nb);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(aa[i].address, ab[i].address);
		assert_int_equal(aa[i].bytes, ab[i].bytes);
		assert_int_equal(aa[i].free_ns, ab[i].free_ns);
		assert_int_equal(aa[i].mem_kind, ab[i].mem_kind);
	}
	const struct gs_op_alloc *la = gs_trace_op_allocs(a, &na), *lb = gs_trace_op_allocs(b, &nb);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(la[i].correlation, lb[i].correlation);
		assert_int_equal(la[i].allocation, lb[i].allocation);
	}
	const struct gs_process *pa = gs_trace_processes(a, &na), *pb = gs_trace_processes(b, &nb);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(pa[i].pid, pb[i].pid);
		assert_string_equal(str(a, pa[i].host_name), str(b, pb[i].host_name));
		assert_string_equal(str(a, pa[i].command_line), str(b, pb[i].command_line));
		assert_string_equal(str(a, pa[i].driver_version), str(b, pb[i].driver_version));
		assert_string_equal(str(a, pa[i].cupti_version), str(b, pb[i].cupti_version));
		assert_int_equal(pa[i].dropped_records, pb[i].dropped_records);
		assert_int_equal(pa[i].has_rank, pb[i].has_rank);
		assert_int_equal(pa[i].rank, pb[i].rank);
		assert_int_equal(pa[i].world_size, pb[i].world_size);
	}
	const struct gs_device *da = gs_trace_devices(a, &na), *db = gs_trace_devices(b, &nb);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(da[i].id, db[i].id);
		assert_string_equal(str(a, da[i].name), str(b, db[i].name));
		assert_string_equal(str(a, da[i].uuid), str(b, db[i].uuid));
		assert_int_equal(da[i].memory_bytes, db[i].memory_bytes);
		assert_int_equal(da[i].copy_engines, db[i].copy_engines);
	}
	const struct gs_overhead *va = gs_trace_overheads(a, &na), *vb = gs_trace_overheads(b, &nb);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(va[i].end_ns, vb[i].end_ns);
		assert_string_equal(str(a, va[i].kind), str(b, vb[i].kind));
	}
	const struct gs_clock_pair *qa = gs_trace_clock_pairs(a, &na),
				   *qb = gs_trace_clock_pairs(b, &nb);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++)
		assert_int_equal(qa[i].gpu_ns, qb[i].gpu_ns);
	assert_int_equal(gs_trace_dropped(a), gs_trace_dropped(b));
}

static bool has_warning(const struct gs_trace *t, const char *needle)
{
	size_t n;
	const struct gs_warning *w = gs_trace_warnings(t, &n);

	for (size_t i = 0; i < n; i++)
		if (strstr(w[i].message, needle))
			return true;
	return false;
}

/* ---- tests ---- */

static void test_round_trip_every_kind(void **state)
{
	(void)state;
	struct gs_trace *a = sample_trace(200), *b = NULL;
	char *path = tmp_path("rt");
	size_t n;

	assert_int_equal(gs_trace_save_gscope(a, path, NULL), GS_OK);
	assert_int_equal(gs_trace_load_gscope(path, 0, &b), GS_OK);
	assert_same(a, b);
	/* Import warnings travel with the trace, and what each is about. */
	assert_true(has_warning(b, "an importer warning"));
	assert_int_equal(warning_kind(b, "an importer warning"), GS_WARNING_OTHER);
	assert_int_equal(warning_kind(b, "wait calls, no syncs"), GS_WARNING_UNLINKED_WAIT_CALLS);
	assert_int_equal(gs_trace_dropped(b), 17);
	gs_trace_ops(b, &n);
	assert_int_equal(n, 200);
	gs_trace_destroy(a);
	gs_trace_destroy(b);
	unlink(path);
	free(path);
}

static void test_streaming_writer_many_chunks(void **state)
{
	(void)state;
	uint64_t chunks = 0;
	char *path = write_sample(1000, 64, &chunks);
	struct gs_trace *a = sample_trace(1000), *b = NULL;

	assert_true(chunks >= 1000 / 64);
	assert_int_equal(gs_trace_load_gscope(path, 0, &b), GS_OK);
	assert_same(a, b);
	assert_false(has_warning(b, "cut short"));
	gs_trace_destroy(a);
	gs_trace_destroy(b);
	unlink(path);
	free(path);
}

static void test_writer_never_overwrites(void **state)
{
	(void)state;
	char *path = write_sample(3, 0, NULL);
	char link[300];
	struct gs_writer *w = NULL;
	struct gs_writer_options o = {.exclusive = true, .compression_level = -1};

	assert_int_equal(gs_writer_open(path, &o, &w), GS_ERR_IO);
	assert_null(w);
	gs_error_clear();
	/* A symlink is not followed either. */
	snprintf(link, sizeof(link), "%s.link", path);
	unlink(link);
	assert_int_equal(symlink("/tmp/gs_no_such_target_file", link), 0);
	assert_int_equal(gs_writer_open(link, &o, &w), GS_ERR_IO);
	assert_int_equal(access("/tmp/gs_no_such_target_file", F_OK), -1);
	gs_error_clear();
	unlink(link);
	unlink(path);
	free(path);
}

/* A file cut at every byte offset: no crash, every whole chunk kept. */
static void test_cut_at_every_offset(void **state)
{
	(void)state;
	uint64_t chunks = 0;
	char *path = write_sample(60, 8, &chunks);
	size_t size;
	unsigned char *buf = slurp(path, &size);
	struct gs_trace *full;
	size_t nfull, prev_ops = 0;
	gs_status st;

	full = read_mem(buf, size, 0, &st);
	assert_int_equal(st, GS_OK);
	gs_trace_ops(full, &nfull);
	assert_int_equal(nfull, 60);
	for (size_t cut = 0; cut < size; cut++) {
		unsigned char *part = malloc(cut ? cut : 1);
		struct gs_trace *t;
		size_t nops;

		memcpy(part, buf, cut);
		t = read_mem(part, cut, 0, &st);
		if (cut < GS_FILE_HEADER_LEN) {
			/* No header: a clear error, never a crash. */
			assert_int_equal(st, GS_ERR_FORMAT);
			gs_error_clear();
		} else {
			assert_int_equal(st, GS_OK);
			gs_trace_ops(t, &nops);
			/* Ops only grow as more whole chunks are present. */
			assert_true(nops >= prev_ops);
			assert_true(nops <= nfull);
			prev_ops = nops;
			assert_true(has_warning(t, "cut short"));
		}
		gs_trace_destroy(t);
		free(part);
	}
	/* Cut inside the end chunk: every record chunk is whole. */
	assert_int_equal(prev_ops, nfull);
	gs_trace_destroy(full);
	free(buf);
	unlink(path);
	free(path);
}

/* Find the byte offset of chunk `k` by walking the frames. */
static size_t chunk_offset(const unsigned char *buf, size_t size, int k)
{
	size_t off = GS_FILE_HEADER_LEN;

	for (int i = 0; i < k; i++) {
		uint32_t comp;

		assert_true(off + GS_CHUNK_HEADER_LEN <= size);
		comp = (uint32_t)buf[off + 12] | (uint32_t)buf[off + 13] << 8 |
		       (uint32_t)buf[off + 14] << 16 | (uint32_t)buf[off + 15] << 24;
		off += GS_CHUNK_HEADER_LEN + comp;
	}
	return off;
}

static void test_flipped_byte_names_chunk(void **state)
{
	(void)state;
	char *path = write_sample(60, 8, NULL);
	size_t size;
	unsigned char *buf = slurp(path, &size);
	size_t off3 = chunk_offset(buf, size, 3), off4 = chunk_offset(buf, size, 4);
	char msg[1024];
	struct gs_trace *t;
	gs_status st;

	/* Flip every byte of chunk 3 in turn: always an error naming chunk 3. */
	for (size_t i = off3; i < off4; i++) {
		buf[i] ^= 0x5a;
		t = read_mem(buf, size, 0, &st);
		assert_int_equal(st, GS_ERR_FORMAT);
		gs_error_format(msg, sizeof(msg));
		assert_non_null(strstr(msg, "mem.gscope: chunk 3 at byte"));
		gs_error_clear();
		gs_trace_destroy(t);
		buf[i] ^= 0x5a;
	}
	/* A flipped payload byte is a CRC mismatch. */
	buf[off3 + GS_CHUNK_HEADER_LEN + 1] ^= 1;
	t = read_mem(buf, size, 0, &st);
	gs_error_format(msg, sizeof(msg));
	assert_non_null(strstr(msg, "chunk 3 at byte"));
	assert_non_null(strstr(msg, "CRC mismatch"));
	gs_error_clear();
	gs_trace_destroy(t);

	/* Salvage skips chunk 3 with a warning and keeps the rest. */
	t = read_mem(buf, size, GS_READER_SALVAGE, &st);
	assert_int_equal(st, GS_OK);
	assert_true(has_warning(t, "chunk 3"));
	assert_true(has_warning(t, "skipped"));
	{
		size_t n;
		gs_trace_ops(t, &n);
		/* 8 records a chunk, an op and its API call each: chunk 3 held 4 ops. */
		assert_int_equal(n, 60 - 4);
	}
	gs_trace_destroy(t);
	free(buf);
	unlink(path);
	free(path);
}

/* The payload lengths of a file's chunks (hdr + 8), in file order. */
static size_t chunk_raw_lens(const unsigned char *buf, size_t size, uint32_t *raw, size_t max)
{
	size_t off = GS_FILE_HEADER_LEN, n = 0;

	while (off + GS_CHUNK_HEADER_LEN <= size && n < max) {
		uint32_t comp = (uint32_t)buf[off + 12] | (uint32_t)buf[off + 13] << 8 |
				(uint32_t)buf[off + 14] << 16 | (uint32_t)buf[off + 15] << 24;

		raw[n++] = (uint32_t)buf[off + 8] | (uint32_t)buf[off + 9] << 8 |
			   (uint32_t)buf[off + 10] << 16 | (uint32_t)buf[off + 11] << 24;
		off += GS_CHUNK_HEADER_LEN + comp;
	}
	return n;
}

static void write_file(const char *path, const unsigned char *buf, size_t size)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, size, f), size);
	assert_int_equal(fclose(f), 0);
}

/* Load `path` on every CPU of the process (reading ahead with two or
 * more) and on one: the same trace, or the same error. */
static struct gs_trace *load_both_ways(const char *path, gs_status *st, char *msg, size_t size)
{
	struct gs_trace *t[2] = {NULL, NULL};
	gs_status rc[2];
	char m[2][1024];
	cpu_set_t all, one;

	assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
	for (int i = 0; i < 2; i++) {
		if (i == 1) {
			int cpu = 0;

			while (!CPU_ISSET(cpu, &all))
				cpu++;
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
		}
		rc[i] = gs_trace_load_gscope(path, 0, &t[i]);
		gs_error_format(m[i], sizeof(m[i]));
		gs_error_clear();
	}
	assert_int_equal(sched_setaffinity(0, sizeof(all), &all), 0);
	assert_int_equal(rc[0], rc[1]);
	assert_string_equal(m[0], m[1]);
	if (rc[0] == GS_OK)
		assert_same(t[0], t[1]);
	gs_trace_destroy(t[1]);
	*st = rc[0];
	snprintf(msg, size, "%s", m[0]);
	return t[0];
}

/*
 * Read ahead, a file's chunks go over in batches of small ones and alone
 * when large (64 KiB inflated or more): a file of both kinds, and one of
 * thousands of tiny chunks (several batches), read from the file give the
 * trace written, a flipped byte the error naming its chunk, a cut the
 * warning naming it, the same on one CPU as on all.
 */
static void test_read_ahead_batches(void **state)
{
	(void)state;
	static const struct {
		int nops;
		uint32_t flush;
	} files[] = {{30000, 12000}, {3000, 2}};
	uint32_t raw[4096];
	char msg[1024];

	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		char *path = write_sample(files[k].nops, files[k].flush, NULL);
		struct gs_trace *want = sample_trace(files[k].nops), *t;
		size_t size, n, small = 0, large = 0, bad, at;
		unsigned char *buf = slurp(path, &size);
		gs_status st;

		n = chunk_raw_lens(buf, size, raw, sizeof(raw) / sizeof(raw[0]));
		assert_true(n < sizeof(raw) / sizeof(raw[0]));
		for (size_t i = 0; i < n; i++) {
			small += raw[i] < (64u << 10);
			large += raw[i] >= (64u << 10);
		}
		if (k == 0)
			assert_true(small >= 2 && large >= 2);
		else
			assert_true(small > 2048);
		t = load_both_ways(path, &st, msg, sizeof(msg));
		assert_int_equal(st, GS_OK);
		assert_same(want, t);
		gs_trace_destroy(t);

		/* A byte of the last but one chunk's payload. */
		bad = n - 2;
		at = chunk_offset(buf, size, (int)bad);
		buf[at + GS_CHUNK_HEADER_LEN] ^= 0x5a;
		write_file(path, buf, size);
		t = load_both_ways(path, &st, msg, sizeof(msg));
		assert_int_equal(st, GS_ERR_FORMAT);
		{
			char want_msg[256];

			snprintf(want_msg, sizeof(want_msg), "chunk %zu at byte %zu: CRC mismatch",
				 bad, at);
			assert_non_null(strstr(msg, want_msg));
		}
		gs_trace_destroy(t);
		buf[at + GS_CHUNK_HEADER_LEN] ^= 0x5a;

		/* Cut inside that chunk: every chunk before it. */
		write_file(path, buf, at + GS_CHUNK_HEADER_LEN + 1);
		t = load_both_ways(path, &st, msg, sizeof(msg));
		assert_int_equal(st, GS_OK);
		{
			char want_msg[256];

			snprintf(want_msg, sizeof(want_msg),
				 "cut short inside chunk %zu at byte %zu", bad, at);
			assert_true(has_warning(t, want_msg));
		}
		gs_trace_destroy(t);
		gs_trace_destroy(want);
		free(buf);
		unlink(path);
		free(path);
	}
}

/*
 * Times near the ends of 64 bits. The writer stores start deltas and
 * durations modulo 2^64, and the reader adds them back so: a record dropped
 * for its duration at INT64_MAX - 10 ns does not cost the next one, at
 * -1000 ns, its time. A record of 1000 ns starting at INT64_MAX - 5 ns
 * (its end past INT64_MAX) is refused for its start, naming it, whatever
 * its kind; it used to be dropped as one that ends before it starts.
 */
static void test_times_past_64_bits(void **state)
{
	(void)state;
	const int64_t late = INT64_MAX - 5;
	const int64_t late_end = (int64_t)((uint64_t)late + 1000);
	static const char *const want[] = {
		"kernel 'k' (correlation 7): start time 9223372036854775802 ns",
		"API call 'k' (correlation 7): start time 9223372036854775802 ns",
		"host range 'k': start time 9223372036854775802 ns",
		"sync (correlation 7): start time 9223372036854775802 ns",
	};
	char *path = tmp_path("wrap");
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_trace *t;
	struct gs_stream st = {.pid = 1, .stream_id = 7, .kind = GS_STREAM_BLOCKING};
	uint32_t name, idx;
	size_t n;
	const struct gs_op *ops;
	char msg[1024];

	assert_int_equal(gs_writer_open(path, NULL, &w), GS_OK);
	s = gs_writer_borrow_sink(w);
	assert_int_equal(s->intern(s, "k", 1, &name), GS_OK);
	assert_int_equal(s->stream(s, &st, &idx), GS_OK);
	{
		struct gs_op a = {.kind = GS_OP_KERNEL,
				  .start_ns = INT64_MAX - 10,
				  .end_ns = 0,
				  .correlation = 1,
				  .name = name,
				  .stream = idx};
		struct gs_op b = a;

		b.start_ns = -1000;
		b.end_ns = -990;
		b.correlation = 2;
		assert_int_equal(s->op(s, &a, NULL), GS_OK);
		assert_int_equal(s->op(s, &b, NULL), GS_OK);
	}
	assert_int_equal(gs_writer_close(w), GS_OK);
	assert_int_equal(gs_trace_load_gscope(path, 0, &t), GS_OK);
	ops = gs_trace_ops(t, &n);
	assert_int_equal(n, 1);
	assert_int_equal(ops[0].start_ns, -1000);
	assert_int_equal(ops[0].end_ns, -990);
	assert_true(has_warning(t, "dropped GPU ops with a negative or over-7-day duration"));
	gs_trace_destroy(t);
	unlink(path);

	for (int k = 0; k < 4; k++) {
		gs_status rc = GS_OK;

		assert_int_equal(gs_writer_open(path, NULL, &w), GS_OK);
		s = gs_writer_borrow_sink(w);
		assert_int_equal(s->intern(s, "k", 1, &name), GS_OK);
		assert_int_equal(s->stream(s, &st, &idx), GS_OK);
		if (k == 0) {
			struct gs_op o = {.kind = GS_OP_KERNEL,
					  .start_ns = late,
					  .end_ns = late_end,
					  .correlation = 7,
					  .name = name,
					  .stream = idx};

			rc = s->op(s, &o, NULL);
		} else if (k == 1) {
			struct gs_api_call c = {.start_ns = late,
						.end_ns = late_end,
						.pid = 1,
						.tid = 1,
						.correlation = 7,
						.name = name};

			rc = s->api_call(s, &c);
		} else if (k == 2) {
			struct gs_range g = {.start_ns = late,
					     .end_ns = late_end,
					     .pid = 1,
					     .tid = 1,
					     .name = name,
					     .domain = GS_NO_STRING,
					     .kind = GS_RANGE_NVTX};

			rc = s->range(s, &g);
		} else {
			struct gs_sync y = {.start_ns = late,
					    .end_ns = late_end,
					    .pid = 1,
					    .tid = 1,
					    .correlation = 7,
					    .sync_id = GS_NO_SYNC_ID,
					    .stream = idx,
					    .wait_on_stream = GS_NO_INDEX,
					    .kind = GS_SYNC_STREAM};

			rc = s->sync(s, &y);
		}
		assert_int_equal(rc, GS_OK);
		assert_int_equal(gs_writer_close(w), GS_OK);
		t = NULL;
		assert_int_equal(gs_trace_load_gscope(path, 0, &t), GS_ERR_FORMAT);
		assert_null(t);
		gs_error_format(msg, sizeof(msg));
		gs_error_clear();
		assert_non_null(strstr(msg, "chunk 0 at byte 20"));
		assert_non_null(strstr(msg, want[k]));
		assert_non_null(strstr(msg, "is out of range (|t| must be below 2^62 ns"));
		unlink(path);
	}
	free(path);
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void test_header_errors(void **state)
{
	(void)state;
	char *path = write_sample(5, 0, NULL);
	size_t size;
	unsigned char *buf = slurp(path, &size);
	char msg[1024];
	struct gs_trace *t;
	gs_status st;

	/* Empty. */
	t = read_mem(buf, 0, 0, &st);
	assert_int_equal(st, GS_ERR_FORMAT);
	assert_non_null(strstr(gs_error_format(msg, sizeof(msg)), "empty file"));
	gs_error_clear();
	gs_trace_destroy(t);

	/* Wrong magic. */
	t = read_mem((const unsigned char *)"{\"traceEvents\": []}", 19, 0, &st);
	assert_int_equal(st, GS_ERR_FORMAT);
	assert_non_null(strstr(gs_error_format(msg, sizeof(msg)), "not a .gscope file"));
	gs_error_clear();
	gs_trace_destroy(t);

	/* Unknown optional feature bits are ignored, unknown required ones
	 * refused. */
	put32(buf + 12, 0x00030000u);
	put32(buf + 16, (uint32_t)crc32(0, buf, 16));
	t = read_mem(buf, size, 0, &st);
	assert_int_equal(st, GS_OK);
	gs_trace_destroy(t);
	put32(buf + 12, 0x00038001u);
	put32(buf + 16, (uint32_t)crc32(0, buf, 16));
	t = read_mem(buf, size, 0, &st);
	assert_int_equal(st, GS_ERR_VERSION);
	assert_non_null(strstr(gs_error_format(msg, sizeof(msg)),
			       "needs a newer reader: unknown feature bits 0x8001"));
	gs_error_clear();
	gs_trace_destroy(t);
	put32(buf + 12, 0);

	/* A future major version (header CRC fixed up): a version error. */
	buf[8] = 2;
	put32(buf + 16, (uint32_t)crc32(0, buf, 16));
	t = read_mem(buf, size, 0, &st);
	assert_int_equal(st, GS_ERR_VERSION);
	assert_non_null(strstr(gs_error_format(msg, sizeof(msg)), "newer than this reader"));
	gs_error_clear();
	gs_trace_destroy(t);

	/* A corrupt header. */
	buf[9] = 7;
	t = read_mem(buf, size, 0, &st);
	assert_int_equal(st, GS_ERR_FORMAT);
	assert_non_null(strstr(gs_error_format(msg, sizeof(msg)), "header CRC"));
	gs_error_clear();
	gs_trace_destroy(t);
	free(buf);
	unlink(path);
	free(path);
}

/* Chunks of a type the reader does not know are skipped, one warning per
 * type, on one thread (salvage) and with reading ahead. */
static void test_unknown_chunk_types(void **state)
{
	(void)state;
	char *path = write_sample(5, 0, NULL);
	size_t size, off = GS_FILE_HEADER_LEN;
	unsigned char *buf = slurp(path, &size), *out;
	unsigned char chunk[GS_CHUNK_HEADER_LEN + 64];
	uLongf clen = 64;
	const char raw[] = "from a newer writer";
	struct gs_trace *t, *base;
	gs_status st;

	base = read_mem(buf, size, 0, &st);
	assert_int_equal(st, GS_OK);
	assert_int_equal(compress2(chunk + GS_CHUNK_HEADER_LEN, &clen, (const Bytef *)raw,
				   sizeof(raw), 6),
			 Z_OK);
	memcpy(chunk, "GSCK", 4);
	chunk[4] = 40;
	chunk[5] = chunk[6] = chunk[7] = 0;
	put32(chunk + 8, (uint32_t)sizeof(raw));
	put32(chunk + 12, (uint32_t)clen);
	put32(chunk + 16, 0);
	put32(chunk + 20, (uint32_t)crc32(0, chunk + GS_CHUNK_HEADER_LEN, (uInt)clen));
	put32(chunk + 24, (uint32_t)crc32(0, chunk, 24));
	off += GS_CHUNK_HEADER_LEN + (buf[off + 12] | (size_t)buf[off + 13] << 8 |
				      (size_t)buf[off + 14] << 16 | (size_t)buf[off + 15] << 24);
	/* The unknown chunk three times after the first chunk. */
	out = malloc(size + 3 * (GS_CHUNK_HEADER_LEN + clen));
	assert_non_null(out);
	memcpy(out, buf, off);
	for (int i = 0; i < 3; i++)
		memcpy(out + off + i * (GS_CHUNK_HEADER_LEN + clen), chunk,
		       GS_CHUNK_HEADER_LEN + clen);
	memcpy(out + off + 3 * (GS_CHUNK_HEADER_LEN + clen), buf + off, size - off);
	for (unsigned flags = 0; flags <= GS_READER_SALVAGE; flags += GS_READER_SALVAGE) {
		const struct gs_warning *w;
		size_t n, nb;

		t = read_mem(out, size + 3 * (GS_CHUNK_HEADER_LEN + clen), flags, &st);
		assert_int_equal(st, GS_OK);
		w = gs_trace_warnings(t, &n);
		assert_int_equal(n, 3); /* the sample's own two, then this one */
		assert_string_equal(w[2].message,
				    "mem.gscope: skipped 3 chunks of unknown type 40 "
				    "(first: chunk 1); a newer gpuscope may read them");
		gs_trace_ops(t, &n);
		gs_trace_ops(base, &nb);
		assert_int_equal(n, nb);
		gs_trace_destroy(t);
	}
	gs_trace_destroy(base);
	free(out);
	free(buf);
	unlink(path);
	free(path);
}

/* A length field claiming gigabytes is refused before any allocation. */
static void test_oversized_length(void **state)
{
	(void)state;
	char *path = write_sample(5, 0, NULL);
	size_t size;
	unsigned char *buf = slurp(path, &size);
	size_t off = GS_FILE_HEADER_LEN;
	char msg[1024];
	struct gs_trace *t;
	gs_status st;

	put32(buf + off + 8, 0xfffffff0u);
	put32(buf + off + 12, 0xfffffff0u);
	put32(buf + off + 24, (uint32_t)crc32(0, buf + off, 24));
	t = read_mem(buf, size, 0, &st);
	assert_int_equal(st, GS_ERR_FORMAT);
	gs_error_format(msg, sizeof(msg));
	assert_non_null(strstr(msg, "chunk 0 at byte 20: length field too large"));
	gs_error_clear();
	gs_trace_destroy(t);
	free(buf);
	unlink(path);
	free(path);
}

/* A chunk whose payload is valid zlib of garbage protobuf: malformed. */
static void test_garbage_payload(void **state)
{
	(void)state;
	unsigned char file[256], payload[64], comp[128];
	uLongf clen = sizeof(comp);
	char msg[1024];
	struct gs_trace *t;
	gs_status st;
	size_t off;

	memset(payload, 0xff, sizeof(payload));
	assert_int_equal(compress2(comp, &clen, payload, sizeof(payload), 6), Z_OK);
	memcpy(file, GS_FILE_MAGIC, 8);
	file[8] = 1;
	file[9] = 0;
	file[10] = 0;
	file[11] = 0;
	put32(file + 12, 0);
	put32(file + 16, (uint32_t)crc32(0, file, 16));
	off = GS_FILE_HEADER_LEN;
	memcpy(file + off, "GSCK", 4);
	file[off + 4] = 2;
	file[off + 5] = 0;
	file[off + 6] = 0;
	file[off + 7] = 0;
	put32(file + off + 8, sizeof(payload));
	put32(file + off + 12, (uint32_t)clen);
	put32(file + off + 16, 0);
	memcpy(file + off + GS_CHUNK_HEADER_LEN, comp, clen);
	put32(file + off + 20, (uint32_t)crc32(0, file + off + GS_CHUNK_HEADER_LEN, (uInt)clen));
	put32(file + off + 24, (uint32_t)crc32(0, file + off, 24));
	t = read_mem(file, off + GS_CHUNK_HEADER_LEN + clen, 0, &st);
	assert_int_equal(st, GS_ERR_FORMAT);
	gs_error_format(msg, sizeof(msg));
	assert_non_null(strstr(msg, "chunk 0 at byte 20: malformed payload"));
	gs_error_clear();
	gs_trace_destroy(t);
}

/* File `buf` with chunk k's compressed payload replaced by `comp` (clen
 * bytes): its length and both CRCs fixed, the chunks after it moved. */
static unsigned char *with_payload(const unsigned char *buf, size_t size, int k,
				   const unsigned char *comp, size_t clen, size_t *out_size)
{
	size_t off = chunk_offset(buf, size, k), next = chunk_offset(buf, size, k + 1);
	size_t n = off + GS_CHUNK_HEADER_LEN + clen + (size - next);
	unsigned char *f = malloc(n);

	assert_non_null(f);
	memcpy(f, buf, off + GS_CHUNK_HEADER_LEN);
	memcpy(f + off + GS_CHUNK_HEADER_LEN, comp, clen);
	memcpy(f + off + GS_CHUNK_HEADER_LEN + clen, buf + next, size - next);
	put32(f + off + 12, (uint32_t)clen);
	put32(f + off + 20, (uint32_t)crc32(0, comp, (uInt)clen));
	put32(f + off + 24, (uint32_t)crc32(0, f + off, 24));
	*out_size = n;
	return f;
}

/*
 * A payload is inflated by ISA-L where the build has it, by zlib where
 * ISA-L does not take it whole: either way zlib's verdict stands. A payload
 * compressed again (other bytes, the same records) reads as the original;
 * a wrong Adler-32, a preset dictionary or a raw deflate stream (each with
 * a valid CRC) is the error zlib gives, read ahead or not, on one CPU or
 * all.
 */
static void test_zlib_verdict_kept(void **state)
{
	(void)state;
	char *path = write_sample(400, 64, NULL);
	size_t size, fsize, off;
	unsigned char *buf = slurp(path, &size), *raw, *comp, *f;
	uint32_t raw_len;
	uLongf rlen, clen;
	z_stream z;
	char msg[1024];
	struct gs_trace *ref, *t;
	gs_status st;

	ref = load_both_ways(path, &st, msg, sizeof(msg));
	assert_int_equal(st, GS_OK);
	off = chunk_offset(buf, size, 3);
	raw_len = (uint32_t)buf[off + 8] | (uint32_t)buf[off + 9] << 8 |
		  (uint32_t)buf[off + 10] << 16 | (uint32_t)buf[off + 11] << 24;
	rlen = raw_len;
	raw = malloc(raw_len);
	clen = compressBound(raw_len) + 16;
	comp = malloc(clen);
	assert_non_null(raw);
	assert_non_null(comp);
	assert_int_equal(uncompress(raw, &rlen, buf + off + GS_CHUNK_HEADER_LEN,
				    chunk_offset(buf, size, 4) - off - GS_CHUNK_HEADER_LEN),
			 Z_OK);
	assert_int_equal(rlen, raw_len);

	for (int v = 0; v < 4; v++) {
		clen = compressBound(raw_len) + 16;
		if (v == 3) { /* raw deflate: no zlib header nor Adler-32 */
			memset(&z, 0, sizeof(z));
			assert_int_equal(
				deflateInit2(&z, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
			z.next_in = raw;
			z.avail_in = raw_len;
			z.next_out = comp;
			z.avail_out = (uInt)clen;
			assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
			clen = z.total_out;
			deflateEnd(&z);
		} else {
			assert_int_equal(compress2(comp, &clen, raw, raw_len, 9), Z_OK);
		}
		if (v == 1) /* the Adler-32 (the last 4 bytes) wrong */
			comp[clen - 1] ^= 0x40;
		if (v == 2) { /* FDICT set, the header check kept */
			comp[1] |= 0x20;
			comp[1] = (unsigned char)(comp[1] & ~0x1f);
			comp[1] = (unsigned char)(comp[1] +
						  (31 - ((comp[0] << 8) | comp[1]) % 31) % 31);
			assert_int_equal(((comp[0] << 8) | comp[1]) % 31, 0);
			assert_true(comp[1] & 0x20);
		}
		f = with_payload(buf, size, 3, comp, clen, &fsize);
		write_file(path, f, fsize);
		t = load_both_ways(path, &st, msg, sizeof(msg));
		if (v == 0) {
			assert_int_equal(st, GS_OK);
			assert_same(ref, t);
		} else {
			assert_int_equal(st, GS_ERR_FORMAT);
			assert_non_null(strstr(msg, "chunk 3 at byte"));
			assert_non_null(strstr(msg, "corrupt compressed payload (data error)"));
		}
		gs_trace_destroy(t);
		/* From memory, through gs_reader_next and read ahead: the same. */
		t = read_mem(f, fsize, 0, &st);
		assert_int_equal(st, v == 0 ? GS_OK : GS_ERR_FORMAT);
		gs_error_clear();
		gs_trace_destroy(t);
		free(f);
	}
	gs_trace_destroy(ref);
	free(raw);
	free(comp);
	free(buf);
	unlink(path);
	free(path);
}

/* Strings interned once per file, however many chunks use them. */
static void test_strings_interned(void **state)
{
	(void)state;
	char *p1 = tmp_path("s1"), *p2 = tmp_path("s2");
	const char *longname = "void at::native::vectorized_elementwise_kernel<4, "
			       "at::native::FillFunctor<c10::Half>, "
			       "at::detail::Array<char*, 1> >(int, at::native::FillFunctor)";
	struct stat st1, st2;

	for (int variant = 0; variant < 2; variant++) {
		struct gs_writer *w;
		struct gs_sink *s;
		uint32_t idx;

		assert_int_equal(gs_writer_open(variant ? p2 : p1, NULL, &w), GS_OK);
		s = gs_writer_borrow_sink(w);
		idx = stream(s, 1, 0, 7, 0, 0);
		for (int i = 0; i < 4000; i++) {
			char name[300];
			struct gs_op op = {.kind = GS_OP_KERNEL,
					   .start_ns = 1000000 + i * 1000,
					   .end_ns = 1000000 + i * 1000 + 500,
					   .stream = idx,
					   .correlation = (uint64_t)i};

			/* variant 0: one name; variant 1: 4000 distinct names */
			snprintf(name, sizeof(name), "%s%d", longname, variant ? i : 0);
			op.name = S(s, name);
			assert_int_equal(s->op(s, &op, NULL), GS_OK);
		}
		assert_int_equal(gs_writer_close(w), GS_OK);
	}
	assert_int_equal(stat(p1, &st1), 0);
	assert_int_equal(stat(p2, &st2), 0);
	/* 4000 regular kernels of one name: a few bytes each. */
	assert_true(st1.st_size < 4000 * 4);
	assert_true(st2.st_size > st1.st_size);
	unlink(p1);
	unlink(p2);
	free(p1);
	free(p2);
}

/* Replay declares every collective before the first op: with small chunks
 * they fill chunks of their own, and ops refer back across chunks. */
static void test_collectives_across_chunks(void **state)
{
	(void)state;
	struct gs_trace *a = sample_trace(600), *b = NULL;
	struct gs_writer_options o = {.flush_records = 16, .compression_level = -1};
	char *path = tmp_path("coll");
	size_t n, with = 0;
	const struct gs_op *ops;

	assert_int_equal(gs_trace_save_gscope(a, path, &o), GS_OK);
	assert_int_equal(gs_trace_load_gscope(path, 0, &b), GS_OK);
	assert_same(a, b);
	gs_trace_collectives(b, &n);
	assert_int_equal(n, 100);
	ops = gs_trace_ops(b, &n);
	for (size_t i = 0; i < n; i++)
		with += ops[i].collective != 0;
	assert_int_equal(with, 100);
	gs_trace_destroy(a);
	gs_trace_destroy(b);
	unlink(path);
	free(path);
}

/* A rank of 0 is a rank; no rank is none; the largest rank fits. */
static void test_ranks_round_trip(void **state)
{
	(void)state;
	static const struct {
		bool has;
		uint32_t rank, world;
	} cases[] = {{false, 0, 0}, {true, 0, 1}, {true, 7, 0}, {true, UINT32_MAX, UINT32_MAX}};
	char *path = tmp_path("rank");
	struct gs_writer *w;
	struct gs_trace *t;
	const struct gs_process *p;
	size_t n;

	assert_int_equal(gs_writer_open(path, NULL, &w), GS_OK);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gs_process q = {.pid = 10 + (int64_t)i,
				       .host_name = GS_NO_STRING,
				       .command_line = GS_NO_STRING,
				       .driver_version = GS_NO_STRING,
				       .runtime_version = GS_NO_STRING,
				       .cupti_version = GS_NO_STRING,
				       .has_rank = cases[i].has,
				       .rank = cases[i].rank,
				       .world_size = cases[i].world};

		assert_int_equal(gs_writer_borrow_sink(w)->process(gs_writer_borrow_sink(w), &q),
				 GS_OK);
	}
	assert_int_equal(gs_writer_close(w), GS_OK);
	assert_int_equal(gs_trace_load_gscope(path, 0, &t), GS_OK);
	p = gs_trace_processes(t, &n);
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(p[i].pid, 10 + (int64_t)i);
		assert_int_equal(p[i].has_rank, cases[i].has);
		assert_int_equal(p[i].rank, cases[i].rank);
		assert_int_equal(p[i].world_size, cases[i].world);
	}
	gs_trace_destroy(t);
	unlink(path);
	free(path);
}

/* The writer refuses an op whose collective was never declared. */
static void test_writer_undeclared_collective(void **state)
{
	(void)state;
	char *path = tmp_path("undecl");
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream st = {.pid = 1, .stream_id = 7};
	struct gs_op op = {.start_ns = 10, .end_ns = 20, .name = GS_NO_STRING, .collective = 1};

	assert_int_equal(gs_writer_open(path, NULL, &w), GS_OK);
	s = gs_writer_borrow_sink(w);
	assert_int_equal(s->stream(s, &st, &op.stream), GS_OK);
	gs_error_clear();
	assert_int_equal(s->op(s, &op, NULL), GS_ERR_INVALID);
	assert_non_null(strstr(gs_error_message(0), "undeclared collective 0"));
	gs_error_clear();
	op.collective = emit_collective(s, 1);
	assert_int_equal(op.collective, 1);
	assert_int_equal(s->op(s, &op, NULL), GS_OK);
	assert_int_equal(gs_writer_close(w), GS_OK);
	unlink(path);
	free(path);
}

static void test_error_chain(void **state)
{
	(void)state;
	char buf[256];

	gs_error_clear();
	assert_string_equal(gs_error_format(buf, sizeof(buf)), "unknown error");
	gs_error_append("chunk %d: CRC mismatch", 12);
	gs_error_append("run.gscope");
	assert_int_equal(gs_error_count(), 2);
	assert_string_equal(gs_error_format(buf, sizeof(buf)),
			    "run.gscope: chunk 12: CRC mismatch");
	gs_error_truncate(1);
	assert_string_equal(gs_error_format(buf, sizeof(buf)), "chunk 12: CRC mismatch");
	for (int i = 0; i < 20; i++)
		gs_error_append("ctx %d", i);
	assert_int_equal(gs_error_count(), GS_ERROR_MAX_CAUSES);
	assert_string_equal(gs_error_message(0), "chunk 12: CRC mismatch");
	gs_error_clear();
	assert_string_equal(gs_status_str(GS_ERR_VERSION), "unsupported version");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_every_kind),
		cmocka_unit_test(test_streaming_writer_many_chunks),
		cmocka_unit_test(test_writer_never_overwrites),
		cmocka_unit_test(test_cut_at_every_offset),
		cmocka_unit_test(test_flipped_byte_names_chunk),
		cmocka_unit_test(test_read_ahead_batches),
		cmocka_unit_test(test_times_past_64_bits),
		cmocka_unit_test(test_header_errors),
		cmocka_unit_test(test_unknown_chunk_types),
		cmocka_unit_test(test_oversized_length),
		cmocka_unit_test(test_garbage_payload),
		cmocka_unit_test(test_zlib_verdict_kept),
		cmocka_unit_test(test_strings_interned),
		cmocka_unit_test(test_collectives_across_chunks),
		cmocka_unit_test(test_ranks_round_trip),
		cmocka_unit_test(test_writer_undeclared_collective),
		cmocka_unit_test(test_error_chain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
