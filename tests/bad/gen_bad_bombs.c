/* SPDX-License-Identifier: MIT */
/*
 * gen_bad's time and memory bombs in .gscope files (docs/testing.md),
 * written by gs_writer or packed by hand (struct gfile, gen_bad_gscope.c):
 * chunks inflating a thousand times, a million streams, times past the
 * model's range, wait cycles, stream waits on records the file lacks,
 * absurd counts and kinds, a million warnings, default-stream and
 * context-sync edge bombs, 60000 devices, one correlation id on many calls
 * and ops, deep NVTX ranges and GPU annotations, directories of many tiny
 * inputs.
 */
#include <gpuscope/format.h>

#include "gs_trace.pb-c.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "gen_bad.h"

/*
 * Chunk payloads that inflate a thousand times: 3 M kernels (every column
 * zero: over 1 GB of columns and trace from 50 KB), and 30 M empty syncs (a
 * message each for protobuf-c to allocate: gigabytes from 60 KB). Each
 * chunk claims the records it holds.
 */
static void inflate_bombs_gscope(void)
{
	enum {
		N_OPS = 3000000
	};
	static uint8_t k_name[] = "k";
	ProtobufCBinaryData str = {.len = 1, .data = k_name};
	Gscope__Chunk c = GSCOPE__CHUNK__INIT;
	Gscope__Stream st = GSCOPE__STREAM__INIT, *stp = &st;
	Gscope__Ops ops = GSCOPE__OPS__INIT;
	uint64_t *zero = calloc(N_OPS, sizeof(*zero));
	size_t n = 60u << 20;
	unsigned char *raw;
	struct gfile g = {0};

	if (!zero)
		die("out of memory");
	c.n_strings = 1;
	c.strings = &str;
	c.n_streams = 1;
	c.streams = &stp;
	/* Every kernel column N_OPS zeros (the 32-bit ones read the same memory). */
#define COL(f, T) (ops.n_##f = N_OPS, ops.f = (T *)(void *)zero)
	COL(kind, uint32_t), COL(start_delta, int64_t), COL(duration, uint64_t);
	COL(stream, uint32_t), COL(name, uint32_t), COL(correlation_delta, int64_t);
	COL(flags, uint32_t), COL(graph_id, uint64_t), COL(graph_node, uint64_t);
	COL(grid_x, uint32_t), COL(grid_y, uint32_t), COL(grid_z, uint32_t);
	COL(block_x, uint32_t), COL(block_y, uint32_t), COL(block_z, uint32_t);
	COL(shared_mem, uint32_t), COL(registers, uint32_t);
#undef COL
	c.ops = &ops;
	gf_header(&g);
	gf_chunk(&g, GS_CHUNK_RECORDS, &c, N_OPS);
	gf_write(&g, "inflate-ops.gscope");
	free(zero);

	raw = malloc(n);
	if (!raw)
		die("out of memory");
	for (size_t i = 0; i < n / 2; i++) {
		raw[2 * i] = 0x52; /* Chunk.syncs (10), an empty message */
		raw[2 * i + 1] = 0;
	}
	gf_header(&g);
	gf_raw_chunk(&g, GS_CHUNK_RECORDS, raw, n, (uint32_t)(n / 2));
	gf_write(&g, "inflate-syncs.gscope");
	free(raw);
}

/* One op on each of a million streams (written by gs_writer). */
static void million_streams_gscope(void)
{
	struct gs_writer_options o = {.compression_level = 1};
	struct gs_writer *w;
	struct gs_sink *s;
	uint32_t name;

	if (gs_writer_open(path_of("million-streams.gscope"), &o, &w) != GS_OK)
		die("cannot write million-streams.gscope");
	s = gs_writer_borrow_sink(w);
	if (s->intern(s, "k", 1, &name))
		die("million-streams.gscope: sink failed");
	for (uint32_t i = 0; i < 1000000; i++) {
		struct gs_stream st = {.pid = 1, .stream_id = i + 1};
		struct gs_op op = {.start_ns = 1000 + i, .end_ns = 1001 + i, .name = name};

		if (s->stream(s, &st, &op.stream) || s->op(s, &op, NULL))
			die("million-streams.gscope: sink failed");
	}
	if (gs_writer_close(w) != GS_OK)
		die("million-streams.gscope: close failed");
}

/*
 * Times at the edge of the range the trace model holds (|t| < 2^62 ns,
 * GS_TIME_LIMIT_NS): a kernel that starts just inside it (-2^62 + 1 ns), then
 * one that starts at exactly -2^62 ns (correlation 2), refused.
 */
static void times_past_limit_gscope(void)
{
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream st = {.pid = 1, .stream_id = 7};
	uint32_t name, idx;
	gs_status rc;

	if (gs_writer_open(path_of("times-past-limit.gscope"), NULL, &w) != GS_OK)
		die("cannot write times-past-limit.gscope");
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "k", 1, &name);
	rc = rc ? rc : s->stream(s, &st, &idx);
	for (int i = 0; i < 2 && !rc; i++) {
		struct gs_op op = {.start_ns = -GS_TIME_LIMIT_NS + 1 - i,
				   .end_ns = -GS_TIME_LIMIT_NS + 1000,
				   .correlation = (uint64_t)i + 1,
				   .name = name,
				   .stream = idx,
				   .kind = GS_OP_KERNEL};

		rc = s->op(s, &op, NULL);
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("times-past-limit.gscope: write failed");
}

/*
 * Waits that form a cycle: stream 7 waits (call 3) for an event recorded on
 * stream 8 after kernel b (call 10), stream 8 waits (call 4) for an event
 * recorded on stream 7 after kernel a (call 9): a after b after a. CUDA
 * cannot record this (a wait uses a record made before it); a corrupt or
 * hand-edited trace can.
 */
static void wait_cycle_gscope(void)
{
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream s7 = {.pid = 1, .stream_id = 7, .kind = GS_STREAM_NON_BLOCKING};
	struct gs_stream s8 = {.pid = 1, .stream_id = 8, .kind = GS_STREAM_NON_BLOCKING};
	uint32_t i7, i8, ka, kb, launch, record, wait;
	gs_status rc;

	if (gs_writer_open(path_of("wait-cycle.gscope"), NULL, &w) != GS_OK)
		die("cannot write wait-cycle.gscope");
	s = gs_writer_borrow_sink(w);
	rc = s->stream(s, &s7, &i7);
	rc = rc ? rc : s->stream(s, &s8, &i8);
	rc = rc ? rc : s->intern(s, "a", 1, &ka);
	rc = rc ? rc : s->intern(s, "b", 1, &kb);
	rc = rc ? rc : s->intern(s, "cudaLaunchKernel", 16, &launch);
	rc = rc ? rc : s->intern(s, "cudaEventRecord", 15, &record);
	rc = rc ? rc : s->intern(s, "cudaStreamWaitEvent", 19, &wait);
	for (uint64_t c = 3; c <= 10 && !rc; c++) {
		struct gs_api_call a = {.start_ns = 1000 + (int64_t)c * 100,
					.end_ns = 1010 + (int64_t)c * 100,
					.pid = 1,
					.tid = 1,
					.correlation = c,
					.name = c <= 4 ? wait :
						c <= 6 ? launch :
							 record};

		if (c == 7 || c == 8)
			continue;
		rc = s->api_call(s, &a);
	}
	if (!rc) {
		struct gs_sync y7 = {.start_ns = 1300,
				     .end_ns = 1310,
				     .pid = 1,
				     .tid = 1,
				     .correlation = 3,
				     .event_id = 2,
				     .event_correlation = 10,
				     .stream = i7,
				     .wait_on_stream = i8,
				     .kind = GS_SYNC_STREAM_WAIT};
		struct gs_sync y8 = {.start_ns = 1400,
				     .end_ns = 1410,
				     .pid = 1,
				     .tid = 1,
				     .correlation = 4,
				     .event_id = 1,
				     .event_correlation = 9,
				     .stream = i8,
				     .wait_on_stream = i7,
				     .kind = GS_SYNC_STREAM_WAIT};
		struct gs_event_record r1 = {.time_ns = 1900,
					     .correlation = 9,
					     .event_id = 1,
					     .stream = i7};
		struct gs_event_record r2 = {.time_ns = 2000,
					     .correlation = 10,
					     .event_id = 2,
					     .stream = i8};
		struct gs_op a = {.start_ns = 3000,
				  .end_ns = 4000,
				  .correlation = 5,
				  .name = ka,
				  .stream = i7,
				  .kind = GS_OP_KERNEL};
		struct gs_op b = {.start_ns = 3000,
				  .end_ns = 4000,
				  .correlation = 6,
				  .name = kb,
				  .stream = i8,
				  .kind = GS_OP_KERNEL};

		rc = s->sync(s, &y7);
		rc = rc ? rc : s->sync(s, &y8);
		rc = rc ? rc : s->event_record(s, &r1);
		rc = rc ? rc : s->event_record(s, &r2);
		rc = rc ? rc : s->op(s, &a, NULL);
		rc = rc ? rc : s->op(s, &b, NULL);
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("wait-cycle.gscope: write failed");
}

/*
 * Stream waits on events: a kernel on stream 7, its event recorded (sync id
 * 7), then three waits of stream 8 by sync id: 7, held, and 8 and 9, which
 * no record of the file has; a kernel on stream 8 after them.
 */
static void unheld_waits_gscope(void)
{
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream s7 = {.pid = 1, .stream_id = 7, .kind = GS_STREAM_NON_BLOCKING};
	struct gs_stream s8 = {.pid = 1, .stream_id = 8, .kind = GS_STREAM_NON_BLOCKING};
	uint32_t k, launch, i7, i8;
	gs_status rc;

	if (gs_writer_open(path_of("unheld-waits.gscope"), NULL, &w) != GS_OK)
		die("cannot write unheld-waits.gscope");
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "k", 1, &k);
	rc = rc ? rc : s->intern(s, "cudaLaunchKernel", 16, &launch);
	rc = rc ? rc : s->stream(s, &s7, &i7);
	rc = rc ? rc : s->stream(s, &s8, &i8);
	for (int i = 0; i < 2 && !rc; i++) {
		struct gs_api_call c = {.start_ns = 1000 + i * 3000,
					.end_ns = 1010 + i * 3000,
					.pid = 1,
					.tid = 1,
					.correlation = (uint64_t)i * 10 + 1,
					.name = launch};
		struct gs_op op = {.start_ns = 2000 + i * 3000,
				   .end_ns = 3000 + i * 3000,
				   .correlation = (uint64_t)i * 10 + 1,
				   .name = k,
				   .stream = i ? i8 : i7,
				   .kind = GS_OP_KERNEL};

		rc = s->api_call(s, &c);
		rc = rc ? rc : s->op(s, &op, NULL);
	}
	if (!rc) {
		struct gs_event_record r = {.time_ns = 1100,
					    .correlation = 2,
					    .event_id = 1,
					    .sync_id = 7,
					    .stream = i7};

		rc = s->event_record(s, &r);
	}
	for (int i = 0; i < 3 && !rc; i++) {
		struct gs_sync y = {.start_ns = 1200 + i * 100,
				    .end_ns = 1210 + i * 100,
				    .pid = 1,
				    .tid = 1,
				    .correlation = (uint64_t)i + 3,
				    .event_id = 1,
				    .sync_id = (uint64_t)i + 7,
				    .stream = i8,
				    .wait_on_stream = GS_NO_INDEX,
				    .kind = GS_SYNC_STREAM_WAIT};

		rc = s->sync(s, &y);
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("unheld-waits.gscope: write failed");
}

/* A device that claims four billion copy engines, and two copies (found by
 * fuzz_nsys: the ideal schedule allocated an engine heap that large). */
static void many_engines_gscope(void)
{
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream st = {.pid = 1, .stream_id = 7};
	struct gs_device d = {.id = 0, .copy_engines = 4000000000u};
	uint32_t name, idx;
	gs_status rc;

	if (gs_writer_open(path_of("engines-4e9.gscope"), NULL, &w) != GS_OK)
		die("cannot write engines-4e9.gscope");
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "Memcpy HtoD", 11, &name);
	d.name = name;
	rc = rc ? rc : s->device(s, &d);
	rc = rc ? rc : s->stream(s, &st, &idx);
	for (int i = 0; i < 2 && !rc; i++) {
		struct gs_op op = {.start_ns = 1000 + i * 500,
				   .end_ns = 1400 + i * 500,
				   .correlation = (uint64_t)i + 1,
				   .bytes = 4096,
				   .name = name,
				   .stream = idx,
				   .kind = GS_OP_MEMCPY,
				   .copy_kind = GS_COPY_HTOD,
				   .src_mem = GS_MEM_PINNED,
				   .dst_mem = GS_MEM_DEVICE};

		rc = s->op(s, &op, NULL);
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("engines-4e9.gscope: write failed");
}

/* A million distinct warnings, then the first one again: each is looked
 * up among those before it (a linear search took hours). */
/* A kernel, records dropped 2^64 - 1 and 5 times, and one warning given
 * with counts 2^64 - 2 and 3: both counts would wrap to a small number. */
static void saturating_counts_gscope(void)
{
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream st = {.pid = 1, .context = 1, .stream_id = 7};
	struct gs_op op = {.start_ns = 1000, .end_ns = 2000, .kind = GS_OP_KERNEL};
	gs_status rc;

	if (gs_writer_open(path_of("counts-saturate.gscope"), NULL, &w) != GS_OK)
		die("cannot write counts-saturate.gscope");
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "k", 1, &op.name);
	rc = rc ? rc : s->stream(s, &st, &op.stream);
	rc = rc ? rc : s->op(s, &op, NULL);
	rc = rc ? rc : s->dropped(s, 1, UINT64_MAX);
	rc = rc ? rc : s->dropped(s, 1, 5);
	rc = rc ? rc : s->warning(s, "a repeated warning", UINT64_MAX - 1, GS_WARNING_OTHER);
	rc = rc ? rc : s->warning(s, "a repeated warning", 3, GS_WARNING_OTHER);
	if (rc || gs_writer_close(w) != GS_OK)
		die("counts-saturate.gscope: write failed");
}

/* Two host ranges and three syncs of kind 99, which no version knows:
 * read as other ranges and syncs of unknown kind, with one counted
 * warning each. */
static void unknown_kinds_gscope(void)
{
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream st = {.pid = 1, .context = 1, .stream_id = 7};
	struct gs_op op = {.start_ns = 1000, .end_ns = 2000, .kind = GS_OP_KERNEL};
	struct gs_range g = {.start_ns = 900, .end_ns = 2100, .pid = 1, .tid = 1, .kind = 99};
	struct gs_sync y = {.start_ns = 2100, .end_ns = 2200, .pid = 1, .tid = 1, .kind = 99};
	gs_status rc;

	if (gs_writer_open(path_of("unknown-kinds.gscope"), NULL, &w) != GS_OK)
		die("cannot write unknown-kinds.gscope");
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "k", 1, &op.name);
	rc = rc ? rc : s->intern(s, "step", 4, &g.name);
	rc = rc ? rc : s->stream(s, &st, &op.stream);
	y.stream = op.stream;
	y.wait_on_stream = GS_NO_INDEX;
	g.domain = GS_NO_STRING;
	rc = rc ? rc : s->op(s, &op, NULL);
	for (int i = 0; i < 2 && !rc; i++)
		rc = s->range(s, &g);
	for (int i = 0; i < 3 && !rc; i++)
		rc = s->sync(s, &y);
	if (rc || gs_writer_close(w) != GS_OK)
		die("unknown-kinds.gscope: write failed");
}

static void many_warnings_gscope(void)
{
	struct gs_writer *w;
	struct gs_sink *s;
	gs_status rc = GS_OK;

	if (gs_writer_open(path_of("warnings-1m.gscope"), NULL, &w) != GS_OK)
		die("cannot write warnings-1m.gscope");
	s = gs_writer_borrow_sink(w);
	for (uint32_t i = 0; i <= 1000000 && !rc; i++) {
		char msg[32];

		snprintf(msg, sizeof(msg), "warning %u", i < 1000000 ? i : 0);
		rc = s->warning(s, msg, 1, GS_WARNING_OTHER);
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("warnings-1m.gscope: write failed");
}

/*
 * A legacy default stream and `peers` blocking streams of its context, each
 * op launched by one thread: with `waits`, `peers` ops first, one a
 * stream, then `dflt` default-stream ops (every pair an edge: 400 M at
 * 20000 x 20000, from 100 KB); else the default-stream ops first, all
 * launched at once and run long after by a busy device, then one op on each
 * blocking stream, each held by every default-stream op before it (a wait
 * each, so every edge stays).
 */
static void default_stream_gscope(const char *file, uint32_t peers, uint32_t dflt, bool waits)
{
	struct gs_writer_options o = {.compression_level = 9};
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream l = {.pid = 1,
			      .context = 1,
			      .stream_id = 7,
			      .kind = GS_STREAM_LEGACY_DEFAULT};
	uint32_t name, launch, li, *pi = malloc(peers * sizeof(*pi));
	uint64_t corr = 1;
	int64_t host = 1000, gpu = 1000;
	gs_status rc;

	if (!pi || gs_writer_open(path_of(file), &o, &w) != GS_OK)
		die("cannot write %s", file);
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "k", 1, &name);
	rc = rc ? rc : s->intern(s, "cudaLaunchKernel", 16, &launch);
	rc = rc ? rc : s->stream(s, &l, &li);
	for (uint32_t i = 0; i < peers && !rc; i++) {
		struct gs_stream st = {.pid = 1,
				       .context = 1,
				       .stream_id = 100 + i,
				       .kind = GS_STREAM_BLOCKING};

		rc = s->stream(s, &st, &pi[i]);
	}
	for (int phase = 0; phase < 2 && !rc; phase++) {
		bool on_peers = (phase == 0) != waits;
		uint32_t n = on_peers ? peers : dflt;

		for (uint32_t i = 0; i < n && !rc; i++) {
			struct gs_api_call c = {.start_ns = host,
						.end_ns = host + 5,
						.pid = 1,
						.tid = 1,
						.correlation = corr,
						.name = launch};
			struct gs_op op = {.start_ns = host + 10,
					   .correlation = corr++,
					   .name = name,
					   .stream = on_peers ? pi[i] : li,
					   .kind = GS_OP_KERNEL};

			if (waits) { /* a second behind the host */
				op.start_ns = gpu + 1000000000;
				if (!on_peers)
					gpu += 20;
			}
			op.end_ns = op.start_ns + 10;
			host += waits ? 10 : 30;
			rc = s->api_call(s, &c);
			rc = rc ? rc : s->op(s, &op, NULL);
		}
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("%s: write failed", file);
	free(pi);
}

/*
 * One op on each of `streams` streams of a device, then `syncs`
 * cudaDeviceSynchronize calls of the thread that launched them; with
 * `each`, a kernel launched on the first stream after each sync (every
 * sync links every stream to a new op), else one at the very end (every
 * sync links the same ops: one edge a stream).
 */
static void context_sync_gscope(const char *file, uint32_t streams, uint32_t syncs, bool each)
{
	struct gs_writer_options o = {.compression_level = 9};
	struct gs_writer *w;
	struct gs_sink *s;
	uint32_t name, launch, sync, *si = malloc(streams * sizeof(*si));
	uint64_t corr = 1;
	int64_t t = 1000;
	gs_status rc;

	if (!si || gs_writer_open(path_of(file), &o, &w) != GS_OK)
		die("cannot write %s", file);
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "k", 1, &name);
	rc = rc ? rc : s->intern(s, "cudaLaunchKernel", 16, &launch);
	rc = rc ? rc : s->intern(s, "cudaDeviceSynchronize", 21, &sync);
	for (uint32_t i = 0; i < streams && !rc; i++) {
		struct gs_stream st = {.pid = 1,
				       .context = 1,
				       .stream_id = 100 + i,
				       .kind = GS_STREAM_NON_BLOCKING};

		rc = s->stream(s, &st, &si[i]);
	}
	for (uint32_t i = 0; i < streams + syncs + 1 && !rc; i++) {
		bool is_sync = i >= streams && i < streams + syncs;
		struct gs_api_call c = {.start_ns = t,
					.end_ns = t + 5,
					.pid = 1,
					.tid = 1,
					.correlation = corr,
					.name = is_sync ? sync : launch};
		struct gs_op op = {.start_ns = t + 10,
				   .end_ns = t + 20,
				   .correlation = corr,
				   .name = name,
				   .stream = si[i < streams ? i : 0],
				   .kind = GS_OP_KERNEL};
		struct gs_sync y = {.start_ns = t,
				    .end_ns = t + 25,
				    .pid = 1,
				    .tid = 1,
				    .correlation = corr,
				    .stream = GS_NO_INDEX,
				    .wait_on_stream = GS_NO_INDEX,
				    .kind = GS_SYNC_CONTEXT};

		rc = s->api_call(s, &c);
		if (!rc && is_sync)
			rc = s->sync(s, &y);
		if (!rc && (!is_sync || each) && (i < streams || i == streams + syncs || each)) {
			if (is_sync) { /* its launch, right after the sync */
				c.start_ns = op.start_ns = t + 30;
				c.end_ns = t + 35;
				op.end_ns = t + 40;
				c.correlation = op.correlation = ++corr;
				c.name = launch;
				rc = s->api_call(s, &c);
			}
			rc = rc ? rc : s->op(s, &op, NULL);
		}
		corr++;
		t += 50;
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("%s: write failed", file);
	free(si);
}

/* 60000 devices, each with a stream, a kernel launched by a thread of its
 * own and a cudaDeviceSynchronize of that thread (every analysis of one
 * device once read the streams, syncs or devices of all). */
static void many_devices_gscope(void)
{
	struct gs_writer_options o = {.compression_level = 9};
	struct gs_writer *w;
	struct gs_sink *s;
	uint32_t name, launch, sync;
	int64_t t = 1000;
	gs_status rc;

	if (gs_writer_open(path_of("devices-60k.gscope"), &o, &w) != GS_OK)
		die("cannot write devices-60k.gscope");
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "k", 1, &name);
	rc = rc ? rc : s->intern(s, "cudaLaunchKernel", 16, &launch);
	rc = rc ? rc : s->intern(s, "cudaDeviceSynchronize", 21, &sync);
	for (uint32_t i = 0; i < 60000 && !rc; i++) {
		struct gs_device d = {.id = i, .name = name, .copy_engines = 2};
		struct gs_stream st = {.pid = 1, .device = i, .context = 1, .stream_id = 7};
		struct gs_api_call c = {.start_ns = t,
					.end_ns = t + 5,
					.pid = 1,
					.tid = 1 + i,
					.correlation = 2 * (uint64_t)i + 1,
					.name = launch};
		struct gs_op op = {.start_ns = t + 10,
				   .end_ns = t + 20,
				   .correlation = c.correlation,
				   .name = name,
				   .kind = GS_OP_KERNEL};
		struct gs_sync y = {.start_ns = t + 6,
				    .end_ns = t + 25,
				    .pid = 1,
				    .tid = 1 + i,
				    .correlation = c.correlation + 1,
				    .stream = GS_NO_INDEX,
				    .wait_on_stream = GS_NO_INDEX,
				    .device = i,
				    .kind = GS_SYNC_CONTEXT};

		rc = s->device(s, &d);
		rc = rc ? rc : s->stream(s, &st, &op.stream);
		rc = rc ? rc : s->api_call(s, &c);
		rc = rc ? rc : s->op(s, &op, NULL);
		c.start_ns = y.start_ns;
		c.end_ns = y.end_ns;
		c.correlation = y.correlation;
		c.name = sync;
		rc = rc ? rc : s->api_call(s, &c);
		rc = rc ? rc : s->sync(s, &y);
		t += 30;
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("devices-60k.gscope: write failed");
}

/*
 * `calls` API calls of one thread and `ops` kernels, all of correlation id
 * 7 (the join of ops to launch calls was quadratic in them): the calls one
 * after another, 100 ns apart, each op 10 ns after a call.
 */
static void shared_correlation_gscope(const char *file, uint32_t calls, uint32_t ops)
{
	struct gs_writer_options o = {.compression_level = 9};
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream st = {.pid = 1, .context = 1, .stream_id = 7};
	uint32_t name, launch, stream;
	gs_status rc;

	if (gs_writer_open(path_of(file), &o, &w) != GS_OK)
		die("cannot write %s", file);
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "k", 1, &name);
	rc = rc ? rc : s->intern(s, "cudaLaunchKernel", 16, &launch);
	rc = rc ? rc : s->stream(s, &st, &stream);
	for (uint32_t i = 0; i < calls && !rc; i++) {
		struct gs_api_call c = {.start_ns = 1000 + 100 * (int64_t)i,
					.end_ns = 1005 + 100 * (int64_t)i,
					.pid = 1,
					.tid = 1,
					.correlation = 7,
					.name = launch};

		rc = s->api_call(s, &c);
	}
	for (uint32_t i = 0; i < ops && !rc; i++) {
		struct gs_op op = {.start_ns = 1010 + 100 * (int64_t)i,
				   .end_ns = 1020 + 100 * (int64_t)i,
				   .correlation = 7,
				   .name = name,
				   .stream = stream,
				   .kind = GS_OP_KERNEL};

		rc = s->op(s, &op, NULL);
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("%s: write failed", file);
}

/*
 * `depth` nested NVTX ranges of one thread, each of its own name, around
 * `ops` kernels launched one after another inside the innermost (GPU time
 * per annotation kept a piece per op and enclosing range: depth x ops).
 * With `gpu`, the ranges are GPU annotations on the kernels' stream
 * instead (Kineto's gpu_user_annotation).
 */
static void nested_ranges_gscope(const char *file, uint32_t depth, uint32_t ops, bool gpu)
{
	struct gs_writer_options o = {.compression_level = 9};
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream st = {.pid = 1, .context = 1, .stream_id = 7};
	uint32_t name, launch, stream;
	int64_t first = 1000 + (int64_t)depth, last = first + 100 * (int64_t)ops;
	gs_status rc;

	if (gs_writer_open(path_of(file), &o, &w) != GS_OK)
		die("cannot write %s", file);
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "k", 1, &name);
	rc = rc ? rc : s->intern(s, "cudaLaunchKernel", 16, &launch);
	rc = rc ? rc : s->stream(s, &st, &stream);
	for (uint32_t i = 0; i < depth && !rc; i++) {
		char rn[32];
		int n = snprintf(rn, sizeof(rn), "range%u", i);
		struct gs_range r = {.start_ns = 1000 + (int64_t)i,
				     .end_ns = last + 100 - (int64_t)i,
				     .pid = gpu ? -1 : 1,
				     .tid = gpu ? -1 : 1,
				     .domain = GS_NO_STRING,
				     .kind = gpu ? GS_RANGE_GPU_ANNOTATION : GS_RANGE_NVTX,
				     .stream = gpu ? stream : 0};

		rc = s->intern(s, rn, (size_t)n, &r.name);
		rc = rc ? rc : s->range(s, &r);
	}
	for (uint32_t i = 0; i < ops && !rc; i++) {
		struct gs_api_call c = {.start_ns = first + 100 * (int64_t)i,
					.end_ns = first + 5 + 100 * (int64_t)i,
					.pid = 1,
					.tid = 1,
					.correlation = 1 + (uint64_t)i,
					.name = launch};
		struct gs_op op = {.start_ns = c.start_ns + 10,
				   .end_ns = c.start_ns + 20,
				   .correlation = c.correlation,
				   .name = name,
				   .stream = stream,
				   .kind = GS_OP_KERNEL};

		rc = s->api_call(s, &c);
		rc = rc ? rc : s->op(s, &op, NULL);
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("%s: write failed", file);
}

/* A tiny trace of one process (host "node", `pid`, rank `rank`) into
 * dir/name: a launch at `t` and its kernel from t + 10 to t + 30,
 * correlation id 1. */
static void tiny_rank_gscope(const char *dir, const char *name, int64_t pid, uint32_t rank,
			     int64_t t)
{
	struct gs_writer_options o = {.compression_level = 1};
	struct gs_writer *w;
	struct gs_sink *s;
	struct gs_stream st = {.pid = pid, .context = 1, .stream_id = 7};
	struct gs_process p = {.pid = pid, .has_rank = true, .rank = rank};
	struct gs_device d = {.id = 0, .copy_engines = 2};
	uint32_t kname, launch, stream;
	char file[512];
	gs_status rc;

	snprintf(file, sizeof(file), "%s/%s", dir, name);
	if (gs_writer_open(path_of(file), &o, &w) != GS_OK)
		die("cannot write %s", file);
	s = gs_writer_borrow_sink(w);
	rc = s->intern(s, "k", 1, &kname);
	rc = rc ? rc : s->intern(s, "cudaLaunchKernel", 16, &launch);
	rc = rc ? rc : s->intern(s, "node", 4, &p.host_name);
	d.name = kname;
	rc = rc ? rc : s->process(s, &p);
	rc = rc ? rc : s->device(s, &d);
	rc = rc ? rc : s->stream(s, &st, &stream);
	if (!rc) {
		struct gs_api_call c = {.start_ns = t,
					.end_ns = t + 5,
					.pid = pid,
					.tid = 1,
					.correlation = 1,
					.name = launch};
		struct gs_op op = {.start_ns = t + 10,
				   .end_ns = t + 30,
				   .correlation = 1,
				   .name = kname,
				   .stream = stream,
				   .kind = GS_OP_KERNEL};

		rc = s->api_call(s, &c);
		rc = rc ? rc : s->op(s, &op, NULL);
	}
	if (rc || gs_writer_close(w) != GS_OK)
		die("%s: write failed", file);
}

/*
 * Directories of tiny traces: `files` inputs of one process (host, pid and
 * rank alike, overlapping times: merged into one rank; each merge once
 * redid the joins), and `ranks` ranks of one input each (each rank's
 * report once copied every input's path).
 */
static void tiny_job_dir(const char *dir, uint32_t files, uint32_t ranks)
{
	if (mkdir(path_of(dir), 0755) != 0)
		die("cannot create %s", dir);
	for (uint32_t i = 0; i < files; i++) {
		char name[64];

		snprintf(name, sizeof(name), "part-%05u.gscope", i);
		tiny_rank_gscope(dir, name, 100, 0, 1000 + 10 * (int64_t)i);
	}
	for (uint32_t i = 0; i < ranks; i++) {
		char name[64];

		snprintf(name, sizeof(name), "rank-%05u.gscope", i);
		tiny_rank_gscope(dir, name, 100 + (int64_t)i, i, 1000);
	}
}

void gscope_bomb_files(void)
{
	million_streams_gscope();
	times_past_limit_gscope();
	wait_cycle_gscope();
	unheld_waits_gscope();
	many_engines_gscope();
	many_warnings_gscope();
	saturating_counts_gscope();
	unknown_kinds_gscope();
	inflate_bombs_gscope();
	default_stream_gscope("default-stream-20k.gscope", 20000, 20000, false);
	default_stream_gscope("default-stream-waits.gscope", 5000, 5000, true);
	default_stream_gscope("default-stream-flows.gscope", 1500, 1500, true);
	context_sync_gscope("context-syncs.gscope", 60000, 100000, false);
	context_sync_gscope("context-syncs-each.gscope", 2000, 10000, true);
	many_devices_gscope();
	shared_correlation_gscope("corr-shared-60k.gscope", 60000, 60000);
	shared_correlation_gscope("corr-shared-absurd.gscope", (1u << 20) + 1, 1);
	nested_ranges_gscope("nested-nvtx-10k.gscope", 10000, 10000, false);
	nested_ranges_gscope("nested-gpu-ann-10k.gscope", 10000, 10000, true);
	tiny_job_dir("one-process-4000", 4000, 0);
	tiny_job_dir("ranks-10000", 0, 10000);
}
