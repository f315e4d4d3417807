/* SPDX-License-Identifier: MIT */
/*
 * The Perfetto exporter (gs_export_perfetto, gs_export_perfetto_job),
 * checked against the model: every file is decoded with the reader built
 * from formats/proto/perfetto_trace.proto (tests/pftrace) and must be a
 * valid stream whose op slices are the trace's ops (times to the ns,
 * names, args), whose flows are the launches and the dependency edges,
 * whose counters are the breakdown segments and whose ideal schedule is
 * the analyzer's; overflow tracks for ops that overlap and host events
 * that do not nest; names interned once per sequence; long names and args
 * (lengths of two bytes and more); times before 0 lifted by one offset; a
 * full disk an I/O error; a job's ranks apart (pids, flows); the same
 * bytes every time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>
#include <cmocka.h>

#include <gpuscope/analyzer.h>
#include <gpuscope/export.h>

#include "pftrace_read.h"

#include "tb_build.h"

#define T0 1700000000123456789LL

/*
 * Host process 100 (thread 100), device 0, streams 7 and 9: a cpu_op
 * "step" [T0, T0+100000) around three launches; "late" straddles its end
 * (an overflow track); k1 and k2 on stream 7 overlap by 1 ns (an overflow
 * track); a copy on stream 9 after k2 (a dependency edge when the graph
 * sees one); a stream sync.
 */
static struct gs_trace *build_basic(int64_t base)
{
	struct tb b = tb_new();
	uint32_t s7, s9;
	struct gs_sync y = {.pid = 100,
			    .tid = 100,
			    .start_ns = base + 82000,
			    .end_ns = base + 95000,
			    .correlation = 14,
			    .sync_id = GS_NO_SYNC_ID,
			    .wait_on_stream = GS_NO_INDEX,
			    .device = 0,
			    .kind = GS_SYNC_STREAM};

	tb_process(&b, 100, "python train.py", NULL);
	s7 = tb_stream(&b, 0, 0, 7);
	s9 = tb_stream(&b, 0, 0, 9);
	y.stream = s9;
	tb_range(&b, 100, 100, "step", base, base + 100000);
	tb_range(&b, 100, 100, "late", base + 90000, base + 150000);
	tb_call(&b, 100, 100, "cudaLaunchKernel", base + 1000, base + 3000, 11);
	tb_call(&b, 100, 100, "cudaLaunchKernel", base + 4000, base + 6000, 12);
	tb_call(&b, 100, 100, "cudaMemcpyAsync", base + 7000, base + 9000, 13);
	tb_call(&b, 100, 100, "cudaStreamSynchronize", base + 81000, base + 96000, 14);
	tb_kernel(&b, s7, "k1", base + 20000, base + 50001, 11);
	tb_kernel(&b, s7, "k2", base + 50000, base + 60000, 12);
	tb_copy(&b, s9, "Memcpy HtoD (Pinned -> Device)", base + 70000, base + 80000, 13,
		GS_COPY_HTOD, GS_MEM_PINNED, GS_MEM_DEVICE, GS_OPF_ASYNC);
	assert_int_equal(b.s->sync(b.s, &y), GS_OK);
	return tb_done(&b);
}

/* ---- export and decode ---------------------------------------------------- */

struct mem {
	char *buf;
	size_t len;
};

static struct mem perfetto_of(const struct gs_trace *t, const struct gs_export_extras *x,
			      const struct gs_export_options *o)
{
	struct mem m = {0};
	FILE *f = open_memstream(&m.buf, &m.len);

	assert_non_null(f);
	gs_error_clear();
	assert_int_equal(gs_export_perfetto(f, t, x, o), GS_OK);
	assert_int_equal(fclose(f), 0);
	return m;
}

static void decode(const struct mem *m, struct pf_trace *pt)
{
	char err[512];

	if (pf_read((const uint8_t *)m->buf, m->len, PF_KEEP_ALL, pt, err, sizeof(err)))
		fail_msg("invalid Perfetto trace: %s", err);
}

static size_t get_varint(const struct mem *m, size_t *pos)
{
	size_t v = 0;

	for (unsigned shift = 0; *pos < m->len && shift < 64; shift += 7) {
		uint8_t c = (uint8_t)m->buf[(*pos)++];

		v |= (size_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			break;
	}
	return v;
}

/* The packets of a file, each packet of compressed_packets (field 50)
 * replaced by the packets it inflates to; *n_compressed: how many. */
static struct mem inflated(const struct mem *m, size_t *n_compressed)
{
	struct mem out = {0};
	FILE *f = open_memstream(&out.buf, &out.len);
	size_t pos = 0;

	assert_non_null(f);
	*n_compressed = 0;
	while (pos < m->len) {
		size_t start = pos, n, body, zlen;

		assert_int_equal((uint8_t)m->buf[pos++], 1 << 3 | 2);
		n = get_varint(m, &pos);
		body = pos;
		assert_true(n <= m->len - pos);
		pos += n;
		if (n < 2 || (uint8_t)m->buf[body] != 0x92 || m->buf[body + 1] != 0x03) {
			fwrite(m->buf + start, 1, pos - start, f);
			continue;
		}
		body += 2;
		zlen = get_varint(m, &body);
		assert_int_equal(body + zlen, pos); /* nothing else in the packet */
		{
			uLongf cap = 64u << 20;
			Bytef *raw = malloc(cap);

			assert_non_null(raw);
			assert_int_equal(uncompress(raw, &cap, (const Bytef *)m->buf + body, zlen),
					 Z_OK);
			fwrite(raw, 1, cap, f);
			free(raw);
		}
		(*n_compressed)++;
	}
	assert_int_equal(fclose(f), 0);
	return out;
}

static const char *proc_of(const struct pf_trace *pt, const struct pf_slice *s)
{
	const struct pf_track *k = pf_track_find(pt, s->track);
	const struct pf_track *p = k && k->parent ? pf_track_find(pt, k->parent) : NULL;

	return p ? p->name : "";
}

static const char *track_of(const struct pf_trace *pt, const struct pf_slice *s)
{
	const struct pf_track *k = pf_track_find(pt, s->track);

	return k ? k->name : "";
}

/* The slice of category `cat` (and name, when not NULL) starting at ts;
 * fails on none or two (and then gives an empty slice, never NULL: the
 * compiler does not know that a failed check does not return). */
static const struct pf_slice *slice_named(const struct pf_trace *pt, const char *cat, int64_t ts,
					  const char *name)
{
	static char empty[1];
	static const struct pf_slice none = {.name = empty, .cat = empty, .args = empty};
	const struct pf_slice *hit = NULL;

	for (size_t i = 0; i < pt->n_slices; i++) {
		if (pt->slices[i].ts != ts || strcmp(pt->slices[i].cat, cat) != 0 ||
		    (name && strcmp(pt->slices[i].name, name) != 0))
			continue;
		assert_null(hit);
		hit = &pt->slices[i];
	}
	if (!hit) {
		fail_msg("no %s slice at %lld", cat, (long long)ts);
		return &none;
	}
	return hit;
}

static const struct pf_slice *slice_at(const struct pf_trace *pt, const char *cat, int64_t ts)
{
	return slice_named(pt, cat, ts, NULL);
}

static size_t count_cat(const struct pf_trace *pt, const char *cat)
{
	size_t n = 0;

	for (size_t i = 0; i < pt->n_slices; i++)
		n += !strcmp(pt->slices[i].cat, cat);
	return n;
}

/* The value of counter track (of process `proc`, named `name`) at ts: the
 * last value written at or before it (-1: none). */
static int64_t counter_at(const struct pf_trace *pt, const char *proc, const char *name, int64_t ts)
{
	int64_t v = -1, at = INT64_MIN;

	for (size_t i = 0; i < pt->n_counters; i++) {
		const struct pf_counter *c = &pt->counters[i];
		const struct pf_track *k = pf_track_find(pt, c->track);
		const struct pf_track *p = pf_track_find(pt, k->parent);

		if (strcmp(k->name, name) != 0 || strcmp(p->name, proc) != 0)
			continue;
		if (c->ts <= ts && c->ts >= at) {
			at = c->ts;
			v = c->value;
		}
	}
	return v;
}

/* ---- the model --------------------------------------------------------------- */

static void test_ops_flows_counters(void **state)
{
	(void)state;
	struct gs_trace *t = build_basic(T0);
	struct gs_export_data *d = NULL;
	const struct gs_export_extras *x;
	struct gs_export_options o = {.with_ideal = true};
	unsigned want = GS_EXPORT_WANT_LAUNCH | GS_EXPORT_WANT_EDGES | GS_EXPORT_WANT_BREAKDOWN |
			GS_EXPORT_WANT_IDEAL;
	size_t n_ops, n_launched = 0, n_ideal = 0, n_api;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const struct gs_api_call *api = gs_trace_api_calls(t, &n_api);
	const uint32_t *launch;
	struct pf_trace pt;
	struct mem m;

	assert_int_equal(gs_export_data_build(t, want, &d), GS_OK);
	x = gs_export_data_extras(d);
	launch = gs_trace_op_launches(t, &n_ops);
	m = perfetto_of(t, x, &o);
	decode(&m, &pt);

	/* Every op a slice of its kind, at its times to the ns, with its name
	 * and args. */
	assert_int_equal(count_cat(&pt, "kernel") + count_cat(&pt, "gpu_memcpy"), n_ops);
	for (size_t i = 0; i < n_ops; i++) {
		const struct gs_op *op = &ops[i];
		const struct pf_slice *s = slice_at(
			&pt, op->kind == GS_OP_KERNEL ? "kernel" : "gpu_memcpy", op->start_ns);
		char corr[64];

		assert_non_null(s);
		assert_int_equal(s->end, op->end_ns);
		assert_string_equal(s->name, gs_trace_string(t, op->name));
		assert_string_equal(proc_of(&pt, s), "GPU 0");
		snprintf(corr, sizeof(corr), "correlation=%llu",
			 (unsigned long long)op->correlation);
		assert_non_null(strstr(s->args, corr));
		n_launched += launch[i] != GS_NO_INDEX;
		n_ideal += x->ideal_in[i];
	}
	/* The kernel args as the Chrome export writes them. */
	assert_string_equal(
		slice_at(&pt, "kernel", T0 + 20000)->args,
		"device=0; context=1; stream=7; correlation=11; registers per thread=32; "
		"shared memory=1024; grid=[4,2,1]; block=[128,1,1]");
	assert_string_equal(slice_at(&pt, "gpu_memcpy", T0 + 70000)->args,
			    "device=0; context=1; stream=9; correlation=13; bytes=4096; copy "
			    "kind=HtoD; src memory=pinned; dst memory=device; async=1");
	/* k2 overlaps k1: an overflow track; "late" does not nest. */
	assert_string_equal(track_of(&pt, slice_at(&pt, "kernel", T0 + 20000)), "stream 7");
	assert_string_equal(track_of(&pt, slice_at(&pt, "kernel", T0 + 50000)),
			    "stream 7: overlapping ops (1)");
	assert_string_equal(track_of(&pt, slice_at(&pt, "cpu_op", T0)), "thread 100");
	assert_string_equal(track_of(&pt, slice_at(&pt, "cpu_op", T0 + 90000)),
			    "thread 100: calls and ranges that do not nest (1)");
	assert_int_equal(count_cat(&pt, "cuda_runtime"), n_api);
	assert_int_equal(count_cat(&pt, "cuda_sync"), 1);
	assert_string_equal(slice_at(&pt, "cuda_sync", T0 + 82000)->args,
			    "cuda_sync_kind=Stream Sync; device=0; context=1; stream=9; "
			    "correlation=14");

	/* Flows: each launch (call -> op) and each dependency edge. */
	assert_int_equal(pt.n_flows, n_launched + x->n_edges);
	for (size_t i = 0; i < pt.n_flows; i++) {
		const struct pf_slice *a = &pt.slices[pt.flows[i].src];
		const struct pf_slice *b = &pt.slices[pt.flows[i].dst];

		if (!strcmp(a->cat, "cuda_runtime")) {
			bool found = false;

			for (size_t k = 0; k < n_ops; k++)
				found |= launch[k] != GS_NO_INDEX &&
					 api[launch[k]].start_ns == a->ts &&
					 ops[k].start_ns == b->ts;
			assert_true(found);
		} else {
			bool found = false;

			for (size_t e = 0; e < x->n_edges; e++)
				found |= ops[x->edges[e].from].start_ns == a->ts &&
					 ops[x->edges[e].to].start_ns == b->ts;
			assert_true(found);
		}
	}

	/* Counters: each breakdown segment's category is 1 over it, the
	 * others 0; all 0 after the last. */
	assert_int_equal(x->n_breakdowns, 1);
	for (size_t s = 0; s < x->breakdowns[0].n_segments; s++) {
		const struct gs_export_segment *g = &x->breakdowns[0].segments[s];

		for (size_t k = 0; k < x->n_categories; k++) {
			char name[64];

			snprintf(name, sizeof(name), "breakdown %s", x->category_names[k]);
			assert_int_equal(counter_at(&pt, "GPU 0", name, g->start_ns),
					 g->category == k);
			if (s + 1 == x->breakdowns[0].n_segments)
				assert_int_equal(counter_at(&pt, "GPU 0", name, g->end_ns), 0);
		}
	}

	/* The ideal schedule: its own process, the analyzer's starts. */
	assert_int_equal(count_cat(&pt, "ideal"), n_ideal);
	for (size_t i = 0; i < n_ops; i++) {
		const struct pf_slice *s;

		if (!x->ideal_in[i])
			continue;
		s = slice_named(&pt, "ideal", x->ideal_start[i], gs_trace_string(t, ops[i].name));
		assert_non_null(s);
		assert_string_equal(proc_of(&pt, s), "GPU 0 ideal schedule");
		assert_int_equal(s->end - s->ts, ops[i].end_ns - ops[i].start_ns);
	}
	pf_trace_free(&pt);
	free(m.buf);
	gs_export_data_destroy(d);
	gs_trace_destroy(t);
}

/* The bytes of a string in the file (how often it was interned). */
static size_t occurrences(const struct mem *m, const char *s)
{
	size_t n = 0, k = strlen(s);

	for (size_t i = 0; i + k <= m->len; i++) {
		if (!memcmp(m->buf + i, s, k)) {
			n++;
			i += k - 1;
		}
	}
	return n;
}

/* A name is written once per sequence (track) that uses it, however many
 * slices carry it; names of 300 bytes and args past 127 bytes (lengths of
 * two bytes) decode. */
static void test_interning_and_long_names(void **state)
{
	(void)state;
	struct tb b = tb_new();
	char longname[301];
	uint32_t s7, s9;
	struct gs_trace *t;
	struct pf_trace pt;
	struct mem m;

	memset(longname, 'x', 300);
	longname[300] = '\0';
	memcpy(longname, "kernel_", 7);
	s7 = tb_stream(&b, 0, 0, 7);
	s9 = tb_stream(&b, 0, 0, 9);
	for (int i = 0; i < 50; i++) {
		int64_t at = T0 + (int64_t)i * 1000;

		tb_kernel(&b, s7, longname, at, at + 500, 0);
		tb_kernel(&b, s9, longname, at, at + 500, 0);
	}
	t = tb_done(&b);
	m = perfetto_of(t, NULL, NULL);
	decode(&m, &pt);
	assert_int_equal(count_cat(&pt, "kernel"), 100);
	{
		size_t nz;
		struct mem plain = inflated(&m, &nz);

		assert_int_equal(nz, 1);
		assert_int_equal(occurrences(&plain, longname), 2);
		assert_int_equal(occurrences(&plain, "registers per thread"), 2);
		/* The packets inflated decode as the file does. */
		{
			struct pf_trace pp;

			decode(&plain, &pp);
			assert_int_equal(pp.n_slices, pt.n_slices);
			assert_int_equal(pp.n_packets, pt.n_packets);
			assert_int_equal(pp.n_compressed, 0);
			pf_trace_free(&pp);
		}
		free(plain.buf);
	}
	for (size_t i = 0; i < pt.n_slices; i++)
		assert_string_equal(pt.slices[i].name, longname);
	pf_trace_free(&pt);
	free(m.buf);
	gs_trace_destroy(t);
}

/* Every packet is in a compressed_packets of at most 1 MiB of packets: a
 * trace of more is several, each a packet of its own, and together they
 * hold every slice. */
static void test_compressed_chunks(void **state)
{
	(void)state;
	struct tb b = tb_new();
	uint32_t s7 = tb_stream(&b, 0, 0, 7);
	struct gs_trace *t;
	struct pf_trace pt;
	struct mem m, plain;
	size_t nz, top = 0, pos = 0;

	for (int i = 0; i < 40000; i++) {
		int64_t at = T0 + (int64_t)i * 1000;

		tb_kernel(&b, s7, i % 2 ? "gemm" : "relu", at, at + 500, 0);
	}
	t = tb_done(&b);
	m = perfetto_of(t, NULL, NULL);
	decode(&m, &pt);
	assert_int_equal(count_cat(&pt, "kernel"), 40000);
	plain = inflated(&m, &nz);
	while (pos < m.len) { /* the packets of the file itself */
		pos++;
		pos += get_varint(&m, &pos);
		top++;
	}
	assert_true(plain.len > (size_t)1 << 20);
	assert_int_equal(nz, pt.n_compressed);
	assert_int_equal(top, nz); /* nothing outside them */
	assert_true(nz >= (plain.len >> 20) + 1);
	assert_true(m.len * 3 < plain.len);
	pf_trace_free(&pt);
	free(plain.buf);
	free(m.buf);
	gs_trace_destroy(t);
}

/* Times before 0: one offset lifts the earliest to 0, reported in stats. */
static void test_negative_times(void **state)
{
	(void)state;
	struct gs_trace *t = build_basic(-1000000);
	struct gs_export_stats st = {0};
	struct gs_export_options o = {.stats = &st};
	struct pf_trace pt;
	struct mem m = perfetto_of(t, NULL, &o);

	assert_int_equal(st.time_offset_ns, 1000000);
	decode(&m, &pt);
	assert_non_null(slice_at(&pt, "kernel", -1000000 + 20000 + 1000000));
	assert_non_null(slice_at(&pt, "cpu_op", 0));
	pf_trace_free(&pt);
	free(m.buf);
	gs_trace_destroy(t);

	t = build_basic(T0);
	m = perfetto_of(t, NULL, &o);
	assert_int_equal(st.time_offset_ns, 0);
	free(m.buf);
	gs_trace_destroy(t);
}

/* A full disk is an I/O error with the errno text. */
static void test_write_error(void **state)
{
	(void)state;
	struct gs_trace *t = build_basic(T0);
	FILE *f = fopen("/dev/full", "w");
	char msg[512];

	if (!f)
		skip();
	gs_error_clear();
	assert_int_equal(gs_export_perfetto(f, t, NULL, NULL), GS_ERR_IO);
	assert_non_null(strstr(gs_error_format(msg, sizeof(msg)), "No space left on device"));
	fclose(f);
	gs_error_clear();
	assert_int_equal(gs_export_perfetto(NULL, t, NULL, NULL), GS_ERR_INVALID);
	gs_error_clear();
	gs_trace_destroy(t);
}

/* The same bytes every time. */
static void test_deterministic(void **state)
{
	(void)state;
	struct gs_trace *t = build_basic(T0);
	struct mem a = perfetto_of(t, NULL, NULL), b = perfetto_of(t, NULL, NULL);

	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.buf, b.buf, a.len);
	free(a.buf);
	free(b.buf);
	gs_trace_destroy(t);
}

/* Two ranks with one pid and one device: processes apart, each rank's
 * flows within it, every op once. */
static void test_job(void **state)
{
	(void)state;
	struct gs_trace *t[2] = {build_basic(T0), build_basic(T0 + 500)};
	struct gs_export_data *d[2] = {NULL, NULL};
	struct gs_export_rank r[2];
	struct gs_export_options o = {0};
	struct pf_trace pt;
	struct mem m = {0};
	FILE *f = open_memstream(&m.buf, &m.len);
	size_t pids = 0;

	for (int k = 0; k < 2; k++) {
		assert_int_equal(gs_export_data_build(t[k],
						      GS_EXPORT_WANT_LAUNCH | GS_EXPORT_WANT_EDGES |
							      GS_EXPORT_WANT_BREAKDOWN,
						      &d[k]),
				 GS_OK);
		r[k] = (struct gs_export_rank){.trace = t[k],
					       .extras = gs_export_data_extras(d[k]),
					       .rank = (uint32_t)k,
					       .pid = 100,
					       .host = k ? "node1" : "node0"};
	}
	assert_non_null(f);
	assert_int_equal(gs_export_perfetto_job(f, r, 2, &o), GS_OK);
	assert_int_equal(fclose(f), 0);
	decode(&m, &pt);
	assert_int_equal(count_cat(&pt, "kernel"), 4);
	for (size_t i = 0; i < pt.n_tracks; i++)
		pids += pt.tracks[i].is_process;
	assert_int_equal(pids, 4); /* per rank: the host and GPU 0 */
	assert_non_null(strstr(proc_of(&pt, slice_at(&pt, "kernel", T0 + 500 + 20000)),
			       "rank 1 \xc2\xb7 node1 \xc2\xb7 pid 100 \xc2\xb7 GPU 0"));
	for (size_t i = 0; i < pt.n_flows; i++) {
		const char *a = proc_of(&pt, &pt.slices[pt.flows[i].src]);
		const char *b = proc_of(&pt, &pt.slices[pt.flows[i].dst]);

		assert_int_equal(strncmp(a, "rank 0", 6) == 0, strncmp(b, "rank 0", 6) == 0);
	}
	pf_trace_free(&pt);
	free(m.buf);
	for (int k = 0; k < 2; k++) {
		gs_export_data_destroy(d[k]);
		gs_trace_destroy(t[k]);
	}
}

/* The reader refuses what a trace processor could not read. */
static void test_reader_refuses(void **state)
{
	(void)state;
	struct gs_trace *t = build_basic(T0);
	struct pf_trace pt;
	struct mem m = perfetto_of(t, NULL, NULL);
	char err[256];

	/* Cut inside a packet. */
	assert_int_equal(pf_read((const uint8_t *)m.buf, m.len - 3, PF_KEEP_NONE, &pt, err,
				 sizeof(err)),
			 -1);
	pf_trace_free(&pt);
	/* Compressed packets that do not inflate. */
	assert_int_equal(pf_read((const uint8_t *)"\x0a\x05\x92\x03\x02xx", 7, PF_KEEP_NONE, &pt,
				 err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "do not inflate"));
	pf_trace_free(&pt);
	/* Compressed packets within compressed packets. */
	{
		uint8_t z[64], in[] = "\x0a\x05\x92\x03\x02xx", out[80] = {0x0a, 0, 0x92, 0x03, 0};
		uLongf zn = sizeof(z);

		assert_int_equal(compress(z, &zn, in, 7), Z_OK);
		out[1] = (uint8_t)(zn + 3);
		out[4] = (uint8_t)zn;
		memcpy(out + 5, z, zn);
		assert_int_equal(pf_read(out, zn + 5, PF_KEEP_NONE, &pt, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "within compressed packets"));
		pf_trace_free(&pt);
	}
	/* Not a trace. */
	assert_int_equal(pf_read((const uint8_t *)"{\"traceEvents\"", 14, PF_KEEP_NONE, &pt, err,
				 sizeof(err)),
			 -1);
	pf_trace_free(&pt);
	free(m.buf);
	gs_trace_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ops_flows_counters),
		cmocka_unit_test(test_interning_and_long_names),
		cmocka_unit_test(test_compressed_chunks),
		cmocka_unit_test(test_negative_times),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_job),
		cmocka_unit_test(test_reader_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
