/* SPDX-License-Identifier: MIT */
/*
 * gs_bench's table: the rows of each size's measurements (stdout and, with
 * --out, the results file), the scaling between sizes, the sections of the
 * job, the scale job and the shared traces, and the targets judged on the
 * largest size.
 */
#define _GNU_SOURCE /* gethostname, sysconf */
#include "bench_priv.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void emit(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	if (out_file) {
		va_start(ap, fmt);
		vfprintf(out_file, fmt, ap);
		va_end(ap);
	}
}

static void size_label(uint64_t ops, char *buf, size_t n)
{
	int e = 0;
	uint64_t m = ops;

	while (m >= 10 && m % 10 == 0) {
		m /= 10;
		e++;
	}
	if (e >= 3 && m < 10)
		snprintf(buf, n, "%llue%d", (unsigned long long)m, e);
	else
		snprintf(buf, n, "%llu", (unsigned long long)ops);
}

typedef double (*metric_fn)(const struct result *r);

/* One table row: a value per size in `fmt` (NAN prints as "-"). */
static void row(const char *label, const char *unit, const struct result *res, size_t n,
		metric_fn f, int decimals, const char *target)
{
	emit("%-34s %-10s", label, unit);
	for (size_t i = 0; i < n; i++) {
		double v = f(&res[i]);
		char cell[32];

		if (isnan(v) || isinf(v))
			snprintf(cell, sizeof(cell), "-");
		else
			snprintf(cell, sizeof(cell), "%.*f", decimals, v);
		emit(" %12s", cell);
	}
	emit("   %s\n", target ? target : "");
}

#define M(name, expr)                                                                              \
	static double name(const struct result *r)                                                 \
	{                                                                                          \
		return (expr);                                                                     \
	}

M(m_records, r->records / (double)r->ops)
M(m_json_mbs, r->json_bytes / r->json_ns * 1e3)
M(m_json_ops, (double)r->ops / r->json_ns * 1e3)
M(m_json_rss_model, r->json_rss / r->json_model)
M(m_json_rss_file, r->json_rss / r->json_bytes)
M(m_json_core_mbs, r->json_bytes / r->json_cpu_ns * 1e3)
M(m_gz_mbs, r->json_bytes / r->gz_ns * 1e3)
M(m_gz_core_mbs, r->json_bytes / r->gz_cpu_ns * 1e3)
M(m_gz_file_mbs, r->gz_bytes / r->gz_ns * 1e3)
M(m_gz_rss_model, r->gz_rss / r->json_model)
M(m_load_ops, (double)r->ops / r->load_ns * 1e3)
M(m_load1_ops, (double)r->ops / r->load1_ns * 1e3)
M(m_load_cpu_ops, (double)r->ops / r->load_cpu_ns * 1e3)
M(m_load_recs, r->records / r->load_ns * 1e3)
M(m_load_rss_op, r->load_rss / (double)r->ops)
M(m_model_op, r->load_model / (double)r->ops)
M(m_load_rss_model, r->load_rss / r->load_model)
M(m_gscope_bop, r->gscope_bytes / (double)r->ops)
M(m_gscope_brec, r->gscope_bytes / r->records)
M(m_json_bop, r->json_bytes / (double)r->ops)
M(m_gz_bop, r->gz_bytes / (double)r->ops)
M(m_graph_ms, r->graph_ns / 1e6)
M(m_waits_ms, r->waits_ns / 1e6)
M(m_breakdown_ms, r->breakdown_ns / 1e6)
M(m_schedule_ms, r->schedule_ns / 1e6)
M(m_overlap_ms, r->overlap_ns / 1e6)
M(m_candidates_ms, r->candidates_ns / 1e6)
M(m_analyses_ms, (r->graph_ns + r->waits_ns + r->breakdown_ns + r->schedule_ns + r->overlap_ns +
		  r->candidates_ns) /
			 1e6)
M(m_analyze_s, r->analyze_ns / 1e9)
M(m_analyze1_s, r->analyze1_ns / 1e9)
M(m_ranks_s, r->ranks_ns / 1e9)
M(m_ranks1_s, r->ranks1_ns / 1e9)
M(m_analyze_cpu_s, r->analyze_cpu_ns / 1e9)
M(m_analyses_cpu_ms, r->analyses_cpu_ns / 1e6)
M(m_analyze_rss_op, r->analyze_rss / (double)r->ops)
M(m_analyze_rss_mb, r->analyze_rss / 1048576.0)
M(m_analyze_10m, r->analyze_ns / 1e9 * 1e7 / (double)r->ops)
M(m_export_mbs, r->export_bytes / (r->export_ns - r->load_ns) * 1e3)
M(m_export_e2e_mbs, r->export_bytes / r->export_ns * 1e3)
M(m_export_bop, r->export_bytes / (double)r->ops)
M(m_pexport_s, r->pexport_ns / 1e9)
M(m_export_s, r->export_ns / 1e9)
M(m_pexport_bop, r->pexport_bytes / (double)r->ops)
M(m_pexport_smaller, r->export_bytes / r->pexport_bytes)
M(m_pexport_faster, r->export_ns / r->pexport_ns)
M(m_gen_s, r->gen_ns / 1e9)
M(m_load_t, r->load_ns)
M(m_json_t, r->json_ns)
M(m_analyses_t,
  r->graph_ns + r->waits_ns + r->breakdown_ns + r->schedule_ns + r->overlap_ns + r->candidates_ns)

/* Time ratio of each size to the previous one, per 10x ops. */
static void scaling_row(const char *label, const struct result *res, size_t n, metric_fn f,
			double *worst)
{
	emit("%-34s %-10s", label, "x per 10x");
	for (size_t i = 0; i < n; i++) {
		char cell[32] = "-";

		if (i > 0 && res[i].ops == res[i - 1].ops * 10) {
			double ratio = f(&res[i]) / f(&res[i - 1]);

			snprintf(cell, sizeof(cell), "%.1f", ratio);
			if (!isnan(ratio) && ratio > *worst)
				*worst = ratio;
		}
		emit(" %12s", cell);
	}
	emit("   <= 12\n");
}

const char *verdict(bool ok)
{
	return ok ? "met" : "MISSED";
}

void print_table(const struct result *res, size_t n, unsigned devices, const struct job_result *jr,
		 const struct scale_result *sr, const struct shared_result *shr, bool smoke)
{
	char host[256] = "?";
	double worst_analyze = 0, worst_lib = 0, worst_load = 0, worst_json = 0;
	const struct result *big = &res[n - 1];

	gethostname(host, sizeof(host) - 1);
	emit("gpuscope benchmark (bench/gs_bench): %u devices, %ld CPUs online, host %s\n", devices,
	     sysconf(_SC_NPROCESSORS_ONLN), host);
	emit("Times are wall-clock, the best of up to %u runs; memory is the peak RSS of the "
	     "process that did\nthe work. Load average (1, 5, 15 min) at the start: %s, at the "
	     "end: %s (other jobs\nshare the CPUs: CPU-time rows tell what the work itself "
	     "cost).\n\n",
	     opt_repeat, loadavg_start, loadavg_end);
	emit("%-34s %-10s", "GPU ops", "");
	for (size_t i = 0; i < n; i++) {
		char l[32];

		size_label(res[i].ops, l, sizeof(l));
		emit(" %12s", l);
	}
	emit("   target\n");
	row("records per op (all kinds)", "", res, n, m_records, 2, NULL);
	row("generate (all three files)", "s", res, n, m_gen_s, 2, NULL);
	emit("-- Kineto JSON import (parse + model + sort)\n");
	row("  plain JSON", "MB/s", res, n, m_json_mbs, 0, ">= 150");
	row("  plain JSON, a core (CPU time)", "MB/s", res, n, m_json_core_mbs, 0, ">= 600");
	row("  plain JSON", "Mops/s", res, n, m_json_ops, 3, NULL);
	row("  plain JSON peak RSS / model", "x", res, n, m_json_rss_model, 2, "<= 3");
	row("  plain JSON peak RSS / file size", "x", res, n, m_json_rss_file, 3,
	    "falls with size");
	row("  gzip JSON (JSON text rate)", "MB/s", res, n, m_gz_mbs, 0, NULL);
	row("  gzip JSON, a core (JSON text)", "MB/s", res, n, m_gz_core_mbs, 0, NULL);
	row("  gzip JSON (file rate)", "MB/s", res, n, m_gz_file_mbs, 1, NULL);
	row("  gzip JSON peak RSS / model", "x", res, n, m_gz_rss_model, 2, "<= 3");
	emit("-- .gscope load (read + model + sort)\n");
	row("  load (two CPUs: reads ahead)", "Mops/s", res, n, m_load_ops, 2, ">= 20");
	row("  load (one CPU)", "Mops/s", res, n, m_load1_ops, 2, ">= 20");
	row("  load, by its CPU time", "Mops/s", res, n, m_load_cpu_ops, 2, NULL);
	row("  load, records (two CPUs)", "Mrec/s", res, n, m_load_recs, 2, NULL);
	row("  in-memory model", "B/op", res, n, m_model_op, 0, NULL);
	row("  peak RSS", "B/op", res, n, m_load_rss_op, 0, NULL);
	row("  peak RSS / model", "x", res, n, m_load_rss_model, 2, NULL);
	emit("-- on disk\n");
	row("  .gscope", "B/op", res, n, m_gscope_bop, 2, "<= 12");
	row("  .gscope", "B/record", res, n, m_gscope_brec, 2, NULL);
	row("  Kineto JSON", "B/op", res, n, m_json_bop, 0, NULL);
	row("  Kineto JSON (gzip -1)", "B/op", res, n, m_gz_bop, 1, NULL);
	emit("-- each analysis, on the loaded trace (all devices)\n");
	row("  dependency graph", "ms", res, n, m_graph_ms, 1, NULL);
	row("  waits", "ms", res, n, m_waits_ms, 1, NULL);
	row("  breakdown", "ms", res, n, m_breakdown_ms, 1, NULL);
	row("  schedules (actual/bound/ideal)", "ms", res, n, m_schedule_ms, 1, NULL);
	row("  missed overlap", "ms", res, n, m_overlap_ms, 1, NULL);
	row("  graph candidates", "ms", res, n, m_candidates_ms, 1, NULL);
	row("  sum of the above", "ms", res, n, m_analyses_ms, 1, NULL);
	row("  CPU time of the above", "ms", res, n, m_analyses_cpu_ms, 1, NULL);
	emit("-- gpuscope analyze TRACE.gscope (load, every analysis, text report)\n");
	row("  time (two CPUs)", "s", res, n, m_analyze_s, 2, NULL);
	row("  time (one CPU)", "s", res, n, m_analyze1_s, 2, NULL);
	row("  CPU time (two CPUs)", "s", res, n, m_analyze_cpu_s, 2, NULL);
	row("  time scaled to 10M ops", "s", res, n, m_analyze_10m, 2, "<= 5 at 1e7");
	row("  peak RSS", "MB", res, n, m_analyze_rss_mb, 0, "<= 1536 at 1e7");
	row("  peak RSS", "B/op", res, n, m_analyze_rss_op, 0, "<= 150");
	emit("-- gpuscope analyze of %d ranks of a job (rank0..%d.gscope, 1/%d of the ops each)\n",
	     BENCH_RANKS, BENCH_RANKS - 1, BENCH_RANKS);
	row("  time (two CPUs: files read at once)", "s", res, n, m_ranks_s, 2, NULL);
	row("  time (one CPU)", "s", res, n, m_ranks1_s, 2, NULL);
	emit("-- gpuscope export --format chrome\n");
	if (!isnan(res[0].export_ns)) {
		row("  export (load time taken out)", "MB/s", res, n, m_export_mbs, 0, ">= 100");
		row("  export (whole command)", "MB/s", res, n, m_export_e2e_mbs, 0, NULL);
		row("  output", "B/op", res, n, m_export_bop, 0, NULL);
	} else {
		emit("  skipped: %s\n", res[0].export_note ? res[0].export_note : "?");
	}
	emit("-- gpuscope export --format perfetto (against the Chrome export)\n");
	if (!isnan(res[0].pexport_ns) && !isnan(res[0].export_ns)) {
		row("  time (whole command)", "s", res, n, m_pexport_s, 2, NULL);
		row("  Chrome export (whole command)", "s", res, n, m_export_s, 2, NULL);
		row("  output", "B/op", res, n, m_pexport_bop, 0, NULL);
		row("  smaller than the Chrome JSON", "x", res, n, m_pexport_smaller, 1, ">= 4");
		row("  faster than the Chrome export", "x", res, n, m_pexport_faster, 1, ">= 1");
	} else {
		emit("  skipped: %s\n", res[0].pexport_note ? res[0].pexport_note : "?");
	}
	emit("-- scaling (time ratio between sizes 10x apart)\n");
	scaling_row("  gpuscope analyze", res, n, m_analyze_s, &worst_analyze);
	scaling_row("  analyses (library)", res, n, m_analyses_t, &worst_lib);
	scaling_row("  .gscope load", res, n, m_load_t, &worst_load);
	scaling_row("  Kineto JSON import", res, n, m_json_t, &worst_json);
	if (shr && shr->done)
		print_shared(shr);
	if (jr && jr->done)
		print_job(jr);
	if (sr && sr->done)
		print_scale(sr);
	if (smoke)
		return;

	/* The targets, judged on the largest size. */
	emit("\nTargets (judged at %llu ops):\n", (unsigned long long)big->ops);
	emit("  Kineto JSON import >= 150 MB/s: %.0f MB/s: %s\n", m_json_mbs(big),
	     verdict(m_json_mbs(big) >= 150));
	{
		const char *wname = "";
		double worst = shr && shr->done ? shared_worst(shr, &wname) : NAN;
		bool ok = m_json_core_mbs(big) >= 600 && (isnan(worst) || worst >= 600);

		if (isnan(worst))
			emit("  Kineto JSON import >= 600 MB/s a core (plain): %.0f MB/s (no shared "
			     "traces measured): %s\n",
			     m_json_core_mbs(big), verdict(ok));
		else
			emit("  Kineto JSON import >= 600 MB/s a core (plain): %.0f MB/s; shared "
			     "traces of 1 MB or more: lowest %.0f MB/s (%s): %s\n",
			     m_json_core_mbs(big), worst, wname, verdict(ok));
	}
	emit("  import peak memory <= 3x the model: %.2fx (plain), %.2fx (gzip): %s\n",
	     m_json_rss_model(big), m_gz_rss_model(big),
	     verdict(m_json_rss_model(big) <= 3 && m_gz_rss_model(big) <= 3));
	emit("  .gscope load >= 20 M ops/s: %.2f M ops/s (one CPU: %.2f): %s\n", m_load_ops(big),
	     m_load1_ops(big), verdict(m_load_ops(big) >= 20));
	emit("  .gscope <= 12 bytes per op: %.2f: %s\n", m_gscope_bop(big),
	     verdict(m_gscope_bop(big) <= 12));
	emit("  analyze of 10M ops <= 5 s: %.2f s%s (one CPU: %.2f s; CPU time %.2f s): %s\n",
	     m_analyze_10m(big), big->ops == 10000000 ? "" : " (scaled linearly from this size)",
	     m_analyze1_s(big) * 1e7 / (double)big->ops,
	     m_analyze_cpu_s(big) * 1e7 / (double)big->ops, verdict(m_analyze_10m(big) <= 5));
	emit("  analyze peak memory <= 150 B/op: %.0f B/op: %s\n", m_analyze_rss_op(big),
	     verdict(m_analyze_rss_op(big) <= 150));
	emit("  N log N (10x ops costs <= 12x time): worst ratio %.1fx (analyze %.1fx, analyses "
	     "%.1fx, load %.1fx, import %.1fx): %s\n",
	     fmax(fmax(worst_analyze, worst_lib), fmax(worst_load, worst_json)), worst_analyze,
	     worst_lib, worst_load, worst_json,
	     verdict(worst_analyze <= 12 && worst_lib <= 12 && worst_load <= 12 &&
		     worst_json <= 12));
	if (!isnan(big->export_ns))
		emit("  Chrome export >= 100 MB/s: %.0f MB/s: %s\n", m_export_mbs(big),
		     verdict(m_export_mbs(big) >= 100));
	else
		emit("  Chrome export >= 100 MB/s: not measured (%s)\n",
		     big->export_note ? big->export_note : "?");
	if (!isnan(big->pexport_ns) && !isnan(big->export_ns))
		emit("  Perfetto export >= 4x smaller than the JSON, at least as fast: %.1fx, "
		     "%.1fx: %s\n",
		     m_pexport_smaller(big), m_pexport_faster(big),
		     verdict(m_pexport_smaller(big) >= 4 && m_pexport_faster(big) >= 1));
	if (jr && jr->done)
		print_job_targets(jr);
	if (sr && sr->done)
		print_scale_targets(sr);
}
