/* SPDX-License-Identifier: MIT */
/*
 * gs_bench's jobs of many ranks (bench/job.h), each against the same ops as
 * one rank: `gpuscope analyze -q` of a job of N ranks x K ops, as Kineto JSON
 * and .gscope (--job-ranks, --job-ops), and of a job of many ranks x few ops
 * with a straggler, in interleaved pairs (--scale-ranks, --scale-ops); the
 * sections of the table for both.
 */
#define _GNU_SOURCE /* unlink, rmdir */
#include "bench_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const job_ext[JOB_FORMATS] = {"json", "gscope"};

/* The files of the job benchmark (child_gen_job) and its directory. */
int rm_job_files(const char *dir, uint32_t ranks)
{
	static const char *const files[] = {"merged.json", "merged.gscope", "expected.json"};
	char p[4200];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		unlink(p);
	}
	for (uint32_t r = 0; r < ranks; r++) {
		snprintf(p, sizeof(p), "%s/rank%u.json", dir, r);
		unlink(p);
		snprintf(p, sizeof(p), "%s/rank%u.gscope", dir, r);
		unlink(p);
	}
	return rmdir(dir);
}

/* The counts of a loaded file must be the generated ones. */
static int job_check_load(const char *path, double ops, double devices)
{
	char *argv[] = {self_exe, S("--child"), S("load"), S(path), NULL};
	struct run r;

	if (run_child(argv, &r, false, false))
		return 1;
	if (get(&r, "ops") != ops || get(&r, "devices") != devices) {
		fprintf(stderr,
			"gs_bench: error: %s: %.0f ops on %.0f devices, generated %.0f on %.0f\n",
			path, get(&r, "ops"), get(&r, "devices"), ops, devices);
		return 1;
	}
	return 0;
}

/* What analyze's first line must say: every file a rank, or one process. */
static void job_check_head(const struct run *r, const char *want)
{
	if (!strstr(r->out, want))
		fprintf(stderr, "gs_bench: warning: gpuscope analyze did not say \"%s\"\n", want);
}

/* What analyze's first line says of each side: the job's ranks, or the
 * same ops as one process. */
static void job_heads(char head[JOB_SIDES][128], uint32_t ranks, uint64_t ops_per_rank)
{
	snprintf(head[SIDE_JOB], sizeof(head[SIDE_JOB]), "%u ranks, %u GPUs with ops, %llu ops",
		 ranks, ranks, (unsigned long long)ops_per_rank * ranks);
	snprintf(head[SIDE_ONE], sizeof(head[SIDE_ONE]), "%llu ops, %u devices with ops",
		 (unsigned long long)ops_per_rank * ranks, ranks);
}

/* `gpuscope analyze -q` of one side: paths[0 .. ranks - 1] (the job) or
 * paths[ranks] (the merged rank), NULL-terminated, in argv. */
static void analyze_argv(char **argv, const char *gpuscope, char **paths, uint32_t ranks, int side)
{
	size_t a = 0;

	argv[a++] = S(gpuscope);
	argv[a++] = S("analyze");
	argv[a++] = S("-q");
	if (side == SIDE_JOB)
		for (uint32_t k = 0; k < ranks; k++)
			argv[a++] = paths[k];
	else
		argv[a++] = paths[ranks];
	argv[a] = NULL;
}

/* The end of a job's benchmark: its paths freed, its files deleted (or
 * kept with --keep). */
static void job_done(char **paths, uint32_t ranks)
{
	if (paths)
		for (uint32_t k = 0; k <= ranks; k++)
			free(paths[k]);
	free(paths);
	if (!opt_keep)
		rm_job_files(job_dir, ranks);
	else
		fprintf(stderr, "gs_bench: kept %s\n", job_dir);
	job_dir[0] = '\0';
}

int bench_job(const char *tmp, const char *gpuscope, uint32_t ranks, uint64_t ops,
	      struct job_result *jr)
{
	char ranks_s[16], ops_s[32], head[JOB_SIDES][128];
	char **paths = NULL, **argv = NULL;
	struct run r;
	double v[1];
	int rc = 1;

	memset(jr, 0, sizeof(*jr));
	jr->ranks = ranks;
	jr->ops_per_rank = ops;
	snprintf(ranks_s, sizeof(ranks_s), "%u", ranks);
	snprintf(ops_s, sizeof(ops_s), "%llu", (unsigned long long)ops);
	if (make_tmp_dir(job_dir, sizeof(job_dir), tmp, "gs_bench_job"))
		return 1;
	job_dir_ranks = ranks;
	fprintf(stderr, "gs_bench: job: generating %u ranks x %s ops and the merged file in %s\n",
		ranks, ops_s, job_dir);
	{
		char *gargv[] = {self_exe, S("--child"), S("genjob"), job_dir,
				 ranks_s,  ops_s,        NULL};
		struct run gen;

		if (run_child(gargv, &gen, false, false))
			return 1;
		jr->gen_ns = get(&gen, "gen_ns");
		jr->convert_ns = get(&gen, "convert_ns");
		jr->ops_per_rank = (uint64_t)get(&gen, "ops_per_rank");
	}
	job_heads(head, ranks, jr->ops_per_rank);
	paths = calloc((size_t)ranks + 1, sizeof(*paths));
	argv = calloc((size_t)ranks + 4, sizeof(*argv));
	if (!paths || !argv) {
		fprintf(stderr, "gs_bench: error: out of memory\n");
		goto out;
	}
	for (uint32_t k = 0; k <= ranks; k++)
		if (!(paths[k] = malloc(4200)))
			goto out;
	for (int f = 0; f < JOB_FORMATS; f++) {
		/* paths[0 .. ranks - 1]: the ranks; paths[ranks]: merged. */
		for (uint32_t k = 0; k < ranks; k++) {
			snprintf(paths[k], 4200, "%s/rank%u.%s", job_dir, k, job_ext[f]);
			jr->bytes[f][SIDE_JOB] += (double)file_size(paths[k]);
		}
		snprintf(paths[ranks], 4200, "%s/merged.%s", job_dir, job_ext[f]);
		jr->bytes[f][SIDE_ONE] = (double)file_size(paths[ranks]);
		if (f == JOB_GSCOPE &&
		    (job_check_load(paths[ranks], (double)(jr->ops_per_rank * ranks), ranks) ||
		     job_check_load(paths[0], (double)jr->ops_per_rank, 1)))
			goto out;
		for (int side = 0; side < JOB_SIDES; side++) {
			struct job_side *m = &jr->m[f][side];

			analyze_argv(argv, gpuscope, paths, ranks, side);
			fprintf(stderr, "gs_bench: job: gpuscope analyze of %s (%s)\n",
				side == SIDE_JOB ? "the ranks" : "the merged rank", job_ext[f]);
			if (measure(argv, NULL, 0, &r, v, false))
				goto out;
			job_check_head(&r, head[side]);
			m->ns = r.wall_ns;
			m->cpu_ns = r.cpu_ns;
			m->rss = r.maxrss;
			fprintf(stderr, "gs_bench: job: gpuscope analyze of %s (%s) on one CPU\n",
				side == SIDE_JOB ? "the ranks" : "the merged rank", job_ext[f]);
			if (measure(argv, NULL, 0, &r, v, true))
				goto out;
			m->ns1 = r.wall_ns;
			m->rss1 = r.maxrss;
		}
	}
	jr->done = true;
	rc = 0;
out:
	free(argv);
	job_done(paths, ranks);
	return rc;
}

/* ---- many ranks, few ops: the text report of a large job ---- */

#define SCALE_PAIRS_MAX 15

/*
 * `gpuscope analyze -q RANKS...` (the text report to a pipe) of a job of
 * `ranks` Kineto files of `ops` GPU ops each, rank ranks / 3 a straggler,
 * and of the merged file (the same ops as one process), run in
 * interleaved pairs (job, one, job, one, ...) so that the machine's drift
 * hits both alike: each pair's ratio, and their median.
 */
int bench_scale(const char *tmp, const char *gpuscope, uint32_t ranks, uint64_t ops,
		struct scale_result *sr)
{
	char ranks_s[16], ops_s[32], strag_s[16], head[JOB_SIDES][128];
	char **paths = NULL, **argv[JOB_SIDES] = {NULL, NULL};
	double ns[JOB_SIDES][SCALE_PAIRS_MAX], cpu[JOB_SIDES][SCALE_PAIRS_MAX];
	double wr[SCALE_PAIRS_MAX], cr[SCALE_PAIRS_MAX];
	int rc = 1;

	memset(sr, 0, sizeof(*sr));
	sr->ranks = ranks;
	sr->straggler = ranks / 3;
	sr->pairs = 2 * opt_repeat - 1 < SCALE_PAIRS_MAX ? 2 * opt_repeat - 1 : SCALE_PAIRS_MAX;
	snprintf(ranks_s, sizeof(ranks_s), "%u", ranks);
	snprintf(ops_s, sizeof(ops_s), "%llu", (unsigned long long)ops);
	snprintf(strag_s, sizeof(strag_s), "%u", sr->straggler);
	if (make_tmp_dir(job_dir, sizeof(job_dir), tmp, "gs_bench_scale"))
		return 1;
	job_dir_ranks = ranks;
	fprintf(stderr, "gs_bench: scale: generating %u ranks x %s ops and the merged file in %s\n",
		ranks, ops_s, job_dir);
	{
		char *gargv[] = {self_exe, S("--child"), S("genjob"), job_dir, ranks_s,
				 ops_s,    strag_s,      S("0"),      NULL};
		struct run gen;

		if (run_child(gargv, &gen, false, false))
			goto out;
		sr->gen_ns = get(&gen, "gen_ns");
		sr->ops_per_rank = (uint64_t)get(&gen, "ops_per_rank");
	}
	job_heads(head, ranks, sr->ops_per_rank);
	paths = calloc((size_t)ranks + 1, sizeof(*paths));
	argv[SIDE_JOB] = calloc((size_t)ranks + 4, sizeof(*argv[SIDE_JOB]));
	argv[SIDE_ONE] = calloc(5, sizeof(*argv[SIDE_ONE]));
	if (!paths || !argv[SIDE_JOB] || !argv[SIDE_ONE])
		goto out;
	for (uint32_t k = 0; k <= ranks; k++) {
		if (!(paths[k] = malloc(4200)))
			goto out;
		if (k < ranks)
			snprintf(paths[k], 4200, "%s/rank%u.json", job_dir, k);
		else
			snprintf(paths[k], 4200, "%s/merged.json", job_dir);
	}
	for (int side = 0; side < JOB_SIDES; side++)
		analyze_argv(argv[side], gpuscope, paths, ranks, side);
	for (unsigned i = 0; i < sr->pairs; i++) {
		for (int side = 0; side < JOB_SIDES; side++) {
			struct run r;

			fprintf(stderr, "gs_bench: scale: pair %u of %u: gpuscope analyze of %s\n",
				i + 1, sr->pairs,
				side == SIDE_JOB ? "the ranks" : "the merged rank");
			if (run_child(argv[side], &r, false, false))
				goto out;
			if (i == 0)
				job_check_head(&r, head[side]);
			ns[side][i] = r.wall_ns;
			cpu[side][i] = r.cpu_ns;
			if (r.maxrss > sr->rss[side])
				sr->rss[side] = r.maxrss;
			sr->lines[side] = r.lines;
		}
		wr[i] = ns[SIDE_JOB][i] / ns[SIDE_ONE][i];
		cr[i] = cpu[SIDE_JOB][i] / cpu[SIDE_ONE][i];
	}
	for (int side = 0; side < JOB_SIDES; side++) {
		sr->ns[side] = median_of(ns[side], sr->pairs);
		sr->cpu_ns[side] = median_of(cpu[side], sr->pairs);
	}
	sr->wall_ratio = median_of(wr, sr->pairs);
	sr->cpu_ratio = median_of(cr, sr->pairs);
	sr->done = true;
	rc = 0;
out:
	free(argv[SIDE_JOB]);
	free(argv[SIDE_ONE]);
	job_done(paths, ranks);
	return rc;
}

/* ---- their sections of the table ---- */

/* The job section: each measurement of the job, of the one rank, and the
 * ratio, per input format. */
static void job_row(const struct job_result *jr, const char *label, const char *unit,
		    double (*f)(const struct job_side *m), double scale, int decimals,
		    const char *target)
{
	emit("%-34s %-10s", label, unit);
	for (int fmt = 0; fmt < JOB_FORMATS; fmt++) {
		double a = f(&jr->m[fmt][SIDE_JOB]), b = f(&jr->m[fmt][SIDE_ONE]);

		emit(" %9.*f %9.*f %7.2f", decimals, a / scale, decimals, b / scale, a / b);
	}
	emit("   %s\n", target ? target : "");
}

static double js_ns(const struct job_side *m)
{
	return m->ns;
}

static double js_cpu(const struct job_side *m)
{
	return m->cpu_ns;
}

static double js_rss(const struct job_side *m)
{
	return m->rss;
}

static double js_ns1(const struct job_side *m)
{
	return m->ns1;
}

static double js_rss1(const struct job_side *m)
{
	return m->rss1;
}

static double job_ratio(const struct job_result *jr, int fmt, double (*f)(const struct job_side *m))
{
	return f(&jr->m[fmt][SIDE_JOB]) / f(&jr->m[fmt][SIDE_ONE]);
}

void print_job(const struct job_result *jr)
{
	unsigned long long total = (unsigned long long)jr->ops_per_rank * jr->ranks;

	emit("-- gpuscope analyze -q of a job: %u ranks x %llu GPU ops, one Kineto file per rank,\n"
	     "   against the same %llu ops as one rank (one process, device = rank: merged.json)\n",
	     jr->ranks, (unsigned long long)jr->ops_per_rank, total);
	emit("%-34s %-10s  %-27s  %s\n", "", "", "Kineto JSON", ".gscope");
	emit("%-34s %-10s %9s %9s %7s %9s %9s %7s   target\n", "", "", "job", "one rank", "job/one",
	     "job", "one rank", "job/one");
	job_row(jr, "  time (two CPUs)", "s", js_ns, 1e9, 2, "job/one <= 1.5");
	job_row(jr, "  CPU time (two CPUs)", "s", js_cpu, 1e9, 2, NULL);
	job_row(jr, "  peak RSS (two CPUs)", "MB", js_rss, 1048576.0, 0, "job/one <= 1.2");
	job_row(jr, "  time (one CPU)", "s", js_ns1, 1e9, 2, NULL);
	job_row(jr, "  peak RSS (one CPU)", "MB", js_rss1, 1048576.0, 0, NULL);
	emit("%-34s %-10s", "  on disk", "MB");
	for (int fmt = 0; fmt < JOB_FORMATS; fmt++)
		emit(" %9.1f %9.1f %7.2f", jr->bytes[fmt][SIDE_JOB] / 1048576.0,
		     jr->bytes[fmt][SIDE_ONE] / 1048576.0,
		     jr->bytes[fmt][SIDE_JOB] / jr->bytes[fmt][SIDE_ONE]);
	emit("\n  (not timed: generating the %u + 1 JSON files %.1f s, converting them to .gscope "
	     "%.1f s)\n",
	     jr->ranks, jr->gen_ns / 1e9, jr->convert_ns / 1e9);
}

void print_job_targets(const struct job_result *jr)
{
	double t[JOB_FORMATS], m[JOB_FORMATS];

	for (int fmt = 0; fmt < JOB_FORMATS; fmt++) {
		t[fmt] = job_ratio(jr, fmt, js_ns);
		m[fmt] = job_ratio(jr, fmt, js_rss);
	}
	emit("  job of %u x %llu ops within 1.5x the time of one rank (two CPUs): %.2fx (JSON), "
	     "%.2fx (.gscope); CPU time %.2fx, %.2fx: %s\n",
	     jr->ranks, (unsigned long long)jr->ops_per_rank, t[JOB_JSON], t[JOB_GSCOPE],
	     job_ratio(jr, JOB_JSON, js_cpu), job_ratio(jr, JOB_GSCOPE, js_cpu),
	     verdict(t[JOB_JSON] <= 1.5 && t[JOB_GSCOPE] <= 1.5));
	emit("  job of %u x %llu ops within 1.2x the memory of one rank: %.2fx (JSON), %.2fx "
	     "(.gscope): %s\n",
	     jr->ranks, (unsigned long long)jr->ops_per_rank, m[JOB_JSON], m[JOB_GSCOPE],
	     verdict(m[JOB_JSON] <= 1.2 && m[JOB_GSCOPE] <= 1.2));
}

#define SCALE_LINES_MAX 200 /* the text report of the scale job, at most */

void print_scale(const struct scale_result *sr)
{
	unsigned long long total = (unsigned long long)sr->ops_per_rank * sr->ranks;

	emit("-- gpuscope analyze -q of a job of many ranks: %u ranks x %llu GPU ops (rank %u a "
	     "straggler),\n   one Kineto file per rank, the text report, against the same %llu "
	     "ops as one rank;\n   %u interleaved pairs: medians, and the median of the pairs' "
	     "ratios\n",
	     sr->ranks, (unsigned long long)sr->ops_per_rank, sr->straggler, total, sr->pairs);
	emit("%-34s %-10s %9s %9s %7s   target\n", "", "", "job", "one rank", "job/one");
	emit("%-34s %-10s %9.2f %9.2f %7.2f   job/one <= 1.5\n", "  time (two CPUs)", "s",
	     sr->ns[SIDE_JOB] / 1e9, sr->ns[SIDE_ONE] / 1e9, sr->wall_ratio);
	emit("%-34s %-10s %9.2f %9.2f %7.2f\n", "  CPU time (two CPUs)", "s",
	     sr->cpu_ns[SIDE_JOB] / 1e9, sr->cpu_ns[SIDE_ONE] / 1e9, sr->cpu_ratio);
	emit("%-34s %-10s %9.0f %9.0f %7.2f\n", "  peak RSS", "MB", sr->rss[SIDE_JOB] / 1048576.0,
	     sr->rss[SIDE_ONE] / 1048576.0, sr->rss[SIDE_JOB] / sr->rss[SIDE_ONE]);
	emit("%-34s %-10s %9zu %9zu %7s   job < %d\n", "  text report", "lines",
	     sr->lines[SIDE_JOB], sr->lines[SIDE_ONE], "", SCALE_LINES_MAX);
	emit("  (not timed: generating the %u + 1 JSON files %.1f s)\n", sr->ranks,
	     sr->gen_ns / 1e9);
}

void print_scale_targets(const struct scale_result *sr)
{
	emit("  job of %u x %llu ops (text) within 1.5x the time of one rank (two CPUs, median of "
	     "%u pairs): %.2fx (CPU time %.2fx): %s\n",
	     sr->ranks, (unsigned long long)sr->ops_per_rank, sr->pairs, sr->wall_ratio,
	     sr->cpu_ratio, verdict(sr->wall_ratio <= 1.5));
	emit("  its text report under %d lines: %zu: %s\n", SCALE_LINES_MAX, sr->lines[SIDE_JOB],
	     verdict(sr->lines[SIDE_JOB] < SCALE_LINES_MAX));
}
