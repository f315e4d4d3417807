/* SPDX-License-Identifier: MIT */
/*
 * gs_bench's child processes (`gs_bench --child ...`): generating the traces
 * and the jobs, loading a trace, running each analysis. One measurement each,
 * in a process of its own so that its peak RSS is its own; the results as
 * "key value" lines on stdout.
 */
#define _GNU_SOURCE /* POSIX under -std=c11: pthreads */
#include "bench_priv.h"
#include "gen.h"
#include "job.h"

#include <gpuscope/cudagraph.h>
#include <gpuscope/gscope_file.h>
#include <gpuscope/import.h>
#include <gpuscope/overlap.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static int child_fail(const char *what)
{
	char buf[1024];

	fprintf(stderr, "gs_bench: error: %s: %s\n", what,
		gs_error_count() ? gs_error_format(buf, sizeof(buf)) : "failed");
	return 1;
}

/* Bytes of the in-memory model: every record array at its exact size, the
 * string table and the per-stream index (what a loaded trace must hold). */
static uint64_t model_bytes(const struct gs_trace *t)
{
	uint64_t b = 0;
	size_t n;

	gs_trace_processes(t, &n);
	b += n * sizeof(struct gs_process);
	gs_trace_devices(t, &n);
	b += n * sizeof(struct gs_device);
	gs_trace_streams(t, &n);
	b += n * (sizeof(struct gs_stream) + 2 * sizeof(size_t));
	gs_trace_ops(t, &n);
	b += n * sizeof(struct gs_op);
	gs_trace_api_calls(t, &n);
	b += n * sizeof(struct gs_api_call);
	gs_trace_syncs(t, &n);
	b += n * sizeof(struct gs_sync);
	gs_trace_event_records(t, &n);
	b += n * sizeof(struct gs_event_record);
	gs_trace_allocations(t, &n);
	b += n * sizeof(struct gs_allocation);
	gs_trace_op_allocs(t, &n);
	b += n * sizeof(struct gs_op_alloc);
	gs_trace_ranges(t, &n);
	b += n * sizeof(struct gs_range);
	gs_trace_overheads(t, &n);
	b += n * sizeof(struct gs_overhead);
	gs_trace_threads(t, &n);
	b += n * sizeof(struct gs_thread);
	n = gs_trace_string_count(t);
	for (size_t i = 0; i < n; i++)
		b += strlen(gs_trace_string(t, (uint32_t)i)) + 1 + sizeof(char *) + 4;
	return b;
}

static void print_counts(const struct gs_trace *t)
{
	size_t n;

	gs_trace_ops(t, &n);
	printf("ops %zu\n", n);
	gs_trace_api_calls(t, &n);
	printf("api_calls %zu\n", n);
	gs_trace_syncs(t, &n);
	printf("syncs %zu\n", n);
	gs_trace_event_records(t, &n);
	printf("event_records %zu\n", n);
	gs_trace_ranges(t, &n);
	printf("ranges %zu\n", n);
	gs_trace_overheads(t, &n);
	printf("overheads %zu\n", n);
	gs_trace_streams(t, &n);
	printf("streams %zu\n", n);
	gs_trace_devices(t, &n);
	printf("devices %zu\n", n);
	printf("model_bytes %llu\n", (unsigned long long)model_bytes(t));
}

static int child_gen(const char *dir, const char *ops, const char *devices)
{
	struct gs_bench_gen_options o = {.ops = strtoull(ops, NULL, 10),
					 .devices = (uint32_t)strtoul(devices, NULL, 10)};
	struct gs_bench_gen_counts c;
	char gpath[4096], jpath[4096], zpath[4096];
	struct gs_writer *w;
	FILE *json;
	gzFile gz;
	double t0 = now_ns();
	gs_status rc;

	snprintf(gpath, sizeof(gpath), "%s/trace.gscope", dir);
	snprintf(jpath, sizeof(jpath), "%s/trace.json", dir);
	snprintf(zpath, sizeof(zpath), "%s/trace.json.gz", dir);
	if (gs_writer_open(gpath, NULL, &w))
		return child_fail(gpath);
	json = fopen(jpath, "wb");
	gz = gzopen(zpath, "wb1");
	if (!json || !gz) {
		fprintf(stderr, "gs_bench: error: %s: cannot create\n", json ? zpath : jpath);
		return 1;
	}
	rc = gs_bench_generate(&o, gs_writer_borrow_sink(w), json, gz, &c);
	if (!rc)
		rc = gs_writer_close(w);
	else
		gs_writer_close(w);
	if (fclose(json) != 0 || gzclose(gz) != Z_OK) {
		fprintf(stderr, "gs_bench: error: writing the JSON traces failed\n");
		return 1;
	}
	if (rc)
		return child_fail("generating the trace");
	printf("gen_ns %.0f\nops %llu\napi_calls %llu\nsyncs %llu\nevent_records %llu\n"
	       "ranges %llu\noverheads %llu\nstreams %llu\ndevices %llu\nkernels %llu\n"
	       "memcpys %llu\nmemsets %llu\n",
	       now_ns() - t0, (unsigned long long)c.ops, (unsigned long long)c.api_calls,
	       (unsigned long long)c.syncs, (unsigned long long)c.event_records,
	       (unsigned long long)c.ranges, (unsigned long long)c.overheads,
	       (unsigned long long)c.streams, (unsigned long long)c.devices,
	       (unsigned long long)c.kernels, (unsigned long long)c.memcpys,
	       (unsigned long long)c.memsets);
	return 0;
}

static int child_gen_ranks(const char *dir, const char *ops, const char *devices)
{
	for (uint32_t k = 0; k < BENCH_RANKS; k++) {
		struct gs_bench_gen_options o = {.ops = strtoull(ops, NULL, 10) / BENCH_RANKS,
						 .devices = (uint32_t)strtoul(devices, NULL, 10),
						 .seed = k + 1,
						 .rank = k};
		struct gs_bench_gen_counts c;
		char path[4096];
		struct gs_writer *w;
		gs_status rc;

		snprintf(path, sizeof(path), "%s/rank%u.gscope", dir, k);
		if (gs_writer_open(path, NULL, &w))
			return child_fail(path);
		rc = gs_bench_generate(&o, gs_writer_borrow_sink(w), NULL, NULL, &c);
		if (!rc)
			rc = gs_writer_close(w);
		else
			gs_writer_close(w);
		if (rc)
			return child_fail("generating the ranks");
	}
	return 0;
}

/*
 * A job of `ranks` ranks, `ops` GPU ops each (bench/job.h), in `dir`:
 * rank<r>.json, and merged.json, the same ops as one process; then each
 * of them also as .gscope (loaded and saved, as `gpuscope convert` does),
 * on as many CPUs as there are. Not timed as part of any measurement.
 */
struct convert_pool {
	const char *dir;
	uint32_t ranks, next;
	pthread_mutex_t mu;
	gs_status rc;
	char cause[8192];
};

static void *convert_main(void *arg)
{
	struct convert_pool *p = arg;

	for (;;) {
		char base[4200], in[4220], out[4220];
		struct gs_trace *t = NULL;
		uint32_t k;
		gs_status rc;

		pthread_mutex_lock(&p->mu);
		k = p->rc ? p->ranks + 1 : p->next++;
		pthread_mutex_unlock(&p->mu);
		if (k > p->ranks)
			return NULL;
		/* k == 0: the merged file (started first: the longest). */
		if (k == 0)
			snprintf(base, sizeof(base), "%s/merged", p->dir);
		else
			snprintf(base, sizeof(base), "%s/rank%u", p->dir, k - 1);
		snprintf(in, sizeof(in), "%s.json", base);
		snprintf(out, sizeof(out), "%s.gscope", base);
		gs_error_clear();
		rc = gs_trace_load(in, NULL, &t, NULL);
		if (!rc)
			rc = gs_trace_save_gscope(t, out, NULL);
		gs_trace_destroy(t);
		if (rc) {
			pthread_mutex_lock(&p->mu);
			if (!p->rc) {
				p->rc = rc;
				snprintf(p->cause, sizeof(p->cause), "%s: %s", in,
					 gs_error_count() ? gs_error_message(0) : "failed");
			}
			pthread_mutex_unlock(&p->mu);
		}
		gs_error_clear();
	}
}

/* straggler: a rank number, or "-1" (none); convert: "1" to write the
 * .gscope files too. */
static int child_gen_job(const char *dir, const char *ranks, const char *ops, const char *straggler,
			 const char *convert)
{
	char merged[4200];
	struct gs_bench_job_options o = {.ranks = (uint32_t)strtoul(ranks, NULL, 10),
					 .ops_per_rank = strtoull(ops, NULL, 10),
					 .straggler = strtoll(straggler, NULL, 10),
					 .merged = merged};
	struct gs_bench_job_summary sum;
	struct convert_pool p = {.dir = dir, .ranks = o.ranks};
	pthread_t th[2];
	unsigned nth = 0;
	double t0 = now_ns(), t1;

	snprintf(merged, sizeof(merged), "%s/merged.json", dir);
	if (gs_bench_job_generate(&o, dir, &sum))
		return child_fail("generating the job");
	t1 = now_ns();
	if (strcmp(convert, "1") != 0) { /* nothing to convert */
		p.ranks = 0;
		p.next = 1;
	}
	if (pthread_mutex_init(&p.mu, NULL) != 0)
		return child_fail("pthread_mutex_init");
	while (nth < 2 && pthread_create(&th[nth], NULL, convert_main, &p) == 0)
		nth++;
	if (!nth)
		convert_main(&p);
	for (unsigned k = 0; k < nth; k++)
		pthread_join(th[k], NULL);
	pthread_mutex_destroy(&p.mu);
	if (p.rc) {
		fprintf(stderr, "gs_bench: error: converting the job: %s\n", p.cause);
		return 1;
	}
	printf("gen_ns %.0f\nconvert_ns %.0f\nops_per_rank %llu\njson_bytes %llu\n"
	       "merged_json_bytes %llu\n",
	       t1 - t0, now_ns() - t1, (unsigned long long)sum.ops_per_rank,
	       (unsigned long long)sum.json_bytes, (unsigned long long)sum.merged_json_bytes);
	return 0;
}

/* Load any trace (recognised by content) into a finished model. */
static int child_load(const char *path)
{
	struct gs_trace *t;
	enum gs_input_format fmt;
	double t0 = now_ns(), c0 = cpu_ns();

	if (gs_trace_load(path, NULL, &t, &fmt))
		return child_fail(path);
	printf("ns %.0f\ncpu_ns %.0f\n", now_ns() - t0, cpu_ns() - c0);
	print_counts(t);
	gs_trace_destroy(t);
	return 0;
}

/* Each analysis on its own, on every device. */
static int child_analyses(const char *path)
{
	struct gs_trace *t;
	struct gs_graph *g;
	struct gs_wait *waits;
	uint32_t *devs;
	size_t ndev, nwaits, nmissed = 0, ncands = 0, nedges;
	double t0, c0, ns_graph, ns_waits, ns_b = 0, ns_s = 0, ns_m = 0, ns_c = 0;

	if (gs_trace_load(path, NULL, &t, NULL))
		return child_fail(path);
	if (gs_trace_op_devices(t, &devs, &ndev))
		return child_fail("devices");
	c0 = cpu_ns();
	t0 = now_ns();
	if (gs_graph_build(t, &g))
		return child_fail("graph");
	ns_graph = now_ns() - t0;
	nedges = g->n_edges;
	t0 = now_ns();
	if (gs_waits_compute(t, g, &waits, &nwaits))
		return child_fail("waits");
	ns_waits = now_ns() - t0;
	free(waits);
	for (size_t i = 0; i < ndev; i++) {
		struct gs_breakdown b;
		struct gs_schedule s;
		struct gs_missed_overlap *m;
		struct gs_cudagraph_candidate *c;
		size_t nm, nc;

		t0 = now_ns();
		if (gs_breakdown_compute(t, devs[i], NULL, &b))
			return child_fail("breakdown");
		ns_b += now_ns() - t0;
		memset(&s, 0, sizeof(s));
		t0 = now_ns();
		if (gs_schedule_compute(t, g, devs[i], NULL, &s))
			return child_fail("schedule");
		ns_s += now_ns() - t0;
		t0 = now_ns();
		if (gs_missed_overlap_compute(t, g, &s, &b, &m, &nm))
			return child_fail("missed overlap");
		ns_m += now_ns() - t0;
		t0 = now_ns();
		if (gs_cudagraph_candidates_compute(t, devs[i], NULL, &c, &nc))
			return child_fail("graph candidates");
		ns_c += now_ns() - t0;
		nmissed += nm;
		ncands += nc;
		free(m);
		gs_cudagraph_candidates_free(c, nc);
		gs_schedule_fini(&s);
		gs_breakdown_fini(&b);
	}
	printf("graph_ns %.0f\nwaits_ns %.0f\nbreakdown_ns %.0f\nschedule_ns %.0f\n"
	       "overlap_ns %.0f\ncandidates_ns %.0f\ncpu_ns %.0f\nedges %zu\nwaits %zu\n"
	       "missed %zu\ncandidates %zu\n",
	       ns_graph, ns_waits, ns_b, ns_s, ns_m, ns_c, cpu_ns() - c0, nedges, nwaits, nmissed,
	       ncands);
	gs_graph_destroy(g);
	free(devs);
	gs_trace_destroy(t);
	return 0;
}

int child_main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "gen"))
		return child_gen(argv[2], argv[3], argv[4]);
	if (argc == 5 && !strcmp(argv[1], "genranks"))
		return child_gen_ranks(argv[2], argv[3], argv[4]);
	if (argc == 5 && !strcmp(argv[1], "genjob"))
		return child_gen_job(argv[2], argv[3], argv[4], "-1", "1");
	if (argc == 7 && !strcmp(argv[1], "genjob"))
		return child_gen_job(argv[2], argv[3], argv[4], argv[5], argv[6]);
	if (argc == 3 && !strcmp(argv[1], "load"))
		return child_load(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "analyses"))
		return child_analyses(argv[2]);
	fprintf(stderr, "gs_bench: error: bad --child arguments\n");
	return 2;
}
