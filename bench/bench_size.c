/* SPDX-License-Identifier: MIT */
/*
 * gs_bench, one SIZE: generate the trace as .gscope, Kineto JSON and gzip
 * Kineto JSON, check that each loads back with the generated counts, then
 * time the import, the load, each analysis, `gpuscope analyze` (of the trace
 * and of its BENCH_RANKS ranks) and the Chrome and Perfetto exports.
 */
#define _GNU_SOURCE /* unlink, rmdir */
#include "bench_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const count_keys[] = {"ops",    "api_calls", "syncs",   "event_records",
					 "ranges", "overheads", "streams", "devices"};

/* The loaded counts must equal the generated ones. */
static int check_counts(const char *what, const struct run *gen, const struct run *got)
{
	int bad = 0;

	for (size_t i = 0; i < sizeof(count_keys) / sizeof(count_keys[0]); i++) {
		double a = get(gen, count_keys[i]), b = get(got, count_keys[i]);

		if (a != b) {
			fprintf(stderr, "gs_bench: error: %s: %s: generated %.0f, loaded %.0f\n",
				what, count_keys[i], a, b);
			bad = 1;
		}
	}
	return bad;
}

int rm_rf_files(const char *dir)
{
	static const char *const files[] = {"trace.gscope", "trace.json", "trace.json.gz",
					    "export.json"};
	char p[4200];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		unlink(p);
	}
	return rmdir(dir);
}

static bool gpuscope_has(const char *gpuscope, const char *cmd)
{
	char *argv[] = {S(gpuscope), S(cmd), S("--help"), NULL};
	struct run r;

	return gpuscope && run_child(argv, &r, true, false) == 0;
}

int bench_size(uint64_t ops, const char *tmp, const char *gpuscope, unsigned devices,
	       struct result *res)
{
	char ops_s[32], dev_s[16], gpath[4200], jpath[4200], zpath[4200], epath[4200], ppath[4200];
	struct run gen, r;
	double v[8];
	int bad = 0;

	memset(res, 0, sizeof(*res));
	res->ops = ops;
	if (make_tmp_dir(cur_dir, sizeof(cur_dir), tmp, "gs_bench"))
		return 1;
	snprintf(ops_s, sizeof(ops_s), "%llu", (unsigned long long)ops);
	snprintf(dev_s, sizeof(dev_s), "%u", devices);
	snprintf(gpath, sizeof(gpath), "%s/trace.gscope", cur_dir);
	snprintf(jpath, sizeof(jpath), "%s/trace.json", cur_dir);
	snprintf(zpath, sizeof(zpath), "%s/trace.json.gz", cur_dir);
	snprintf(epath, sizeof(epath), "%s/export.json", cur_dir);
	snprintf(ppath, sizeof(ppath), "%s/export.pftrace", cur_dir);

	fprintf(stderr, "gs_bench: %s ops: generating in %s\n", ops_s, cur_dir);
	{
		char *argv[] = {self_exe, S("--child"), S("gen"), cur_dir, ops_s, dev_s, NULL};

		if (run_child(argv, &gen, false, false))
			return 1;
	}
	res->gen_ns = get(&gen, "gen_ns");
	res->records = get(&gen, "ops") + get(&gen, "api_calls") + get(&gen, "syncs") +
		       get(&gen, "event_records") + get(&gen, "ranges") + get(&gen, "overheads");
	res->gscope_bytes = (double)file_size(gpath);
	res->json_bytes = (double)file_size(jpath);
	res->gz_bytes = (double)file_size(zpath);

	/* Import and load, with the round-trip checks. */
	{
		static const char *const keys[] = {"ns", "model_bytes", "cpu_ns"};
		char *argv[] = {self_exe, S("--child"), S("load"), gpath, NULL};

		fprintf(stderr, "gs_bench: %s ops: .gscope load\n", ops_s);
		if (measure(argv, keys, 3, &r, v, false))
			return 1;
		bad |= check_counts(".gscope", &gen, &r);
		res->load_ns = v[0];
		res->load_model = v[1];
		res->load_cpu_ns = v[2];
		res->load_rss = r.maxrss;
		fprintf(stderr, "gs_bench: %s ops: .gscope load on one CPU\n", ops_s);
		if (measure(argv, keys, 1, &r, v, true))
			return 1;
		res->load1_ns = v[0];
		fprintf(stderr, "gs_bench: %s ops: Kineto JSON import\n", ops_s);
		argv[3] = jpath;
		if (measure(argv, keys, 3, &r, v, false))
			return 1;
		bad |= check_counts("Kineto JSON", &gen, &r);
		res->json_ns = v[0];
		res->json_model = v[1];
		res->json_cpu_ns = v[2];
		res->json_rss = r.maxrss;
		fprintf(stderr, "gs_bench: %s ops: Kineto JSON (gzip) import\n", ops_s);
		argv[3] = zpath;
		if (measure(argv, keys, 3, &r, v, false))
			return 1;
		bad |= check_counts("Kineto JSON (gzip)", &gen, &r);
		res->gz_ns = v[0];
		res->gz_cpu_ns = v[2];
		res->gz_rss = r.maxrss;
	}
	if (bad)
		return 1;

	/* Each analysis. */
	{
		static const char *const keys[] = {"graph_ns",    "waits_ns",   "breakdown_ns",
						   "schedule_ns", "overlap_ns", "candidates_ns",
						   "edges",       "cpu_ns"};
		char *argv[] = {self_exe, S("--child"), S("analyses"), gpath, NULL};

		fprintf(stderr, "gs_bench: %s ops: analyses\n", ops_s);
		if (measure(argv, keys, 8, &r, v, false))
			return 1;
		res->graph_ns = v[0];
		res->waits_ns = v[1];
		res->breakdown_ns = v[2];
		res->schedule_ns = v[3];
		res->overlap_ns = v[4];
		res->candidates_ns = v[5];
		res->edges = v[6];
		res->analyses_cpu_ns = v[7];
	}

	/* The whole command, as a user runs it. */
	res->analyze_ns = res->analyze_rss = res->analyze_cpu_ns = res->analyze1_ns = NAN;
	if (gpuscope) {
		/* The report on stdout: a pipe that run_child reads and drops
		 * (-o never names a device, /dev/null included). */
		char *argv[] = {S(gpuscope), S("analyze"), gpath, NULL};

		fprintf(stderr, "gs_bench: %s ops: gpuscope analyze\n", ops_s);
		if (measure(argv, NULL, 0, &r, v, false))
			return 1;
		res->analyze_ns = r.wall_ns;
		res->analyze_cpu_ns = r.cpu_ns;
		res->analyze_rss = r.maxrss;
		fprintf(stderr, "gs_bench: %s ops: gpuscope analyze on one CPU\n", ops_s);
		if (measure(argv, NULL, 0, &r, v, true))
			return 1;
		res->analyze1_ns = r.wall_ns;
	}

	/* Several ranks of one job: their files are read on both CPUs. */
	res->ranks_ns = res->ranks1_ns = NAN;
	if (gpuscope) {
		char rp[BENCH_RANKS][4200];
		char *gargv[] = {self_exe, S("--child"), S("genranks"), cur_dir,
				 ops_s,    dev_s,        NULL};
		char *argv[] = {S(gpuscope), S("analyze"), rp[0], rp[1], rp[2], rp[3], NULL};

		for (int k = 0; k < BENCH_RANKS; k++)
			snprintf(rp[k], sizeof(rp[k]), "%s/rank%d.gscope", cur_dir, k);
		fprintf(stderr, "gs_bench: %s ops: gpuscope analyze of %d ranks\n", ops_s,
			BENCH_RANKS);
		if (run_child(gargv, &r, false, false))
			return 1;
		if (measure(argv, NULL, 0, &r, v, false))
			return 1;
		res->ranks_ns = r.wall_ns;
		if (measure(argv, NULL, 0, &r, v, true))
			return 1;
		res->ranks1_ns = r.wall_ns;
		for (int k = 0; k < BENCH_RANKS; k++)
			unlink(rp[k]);
	}

	/* Chrome export, where the command exists. */
	res->export_ns = NAN;
	if (!gpuscope) {
		res->export_note = "no --gpuscope given";
	} else if (!gpuscope_has(gpuscope, "export")) {
		res->export_note = "`gpuscope export` not available in this build yet";
	} else {
		/* --force: each repeat replaces the last one's file. */
		char *argv[] = {S(gpuscope), S("export"), S("--format"), S("chrome"), S("--force"),
				S("-o"),     epath,       gpath,         NULL};

		fprintf(stderr, "gs_bench: %s ops: gpuscope export --format chrome\n", ops_s);
		if (measure(argv, NULL, 0, &r, v, false)) {
			res->export_note = "`gpuscope export --format chrome` failed";
		} else {
			res->export_ns = r.wall_ns;
			res->export_bytes = (double)file_size(epath);
		}
		unlink(epath);
	}
	/* Perfetto export, where the format exists. */
	res->pexport_ns = NAN;
	if (!gpuscope || !gpuscope_has(gpuscope, "export")) {
		res->pexport_note = res->export_note;
	} else {
		char *argv[] = {S(gpuscope),   S("export"),  S("--format"),
				S("perfetto"), S("--force"), S("-o"),
				ppath,         gpath,        NULL};

		fprintf(stderr, "gs_bench: %s ops: gpuscope export --format perfetto\n", ops_s);
		if (measure(argv, NULL, 0, &r, v, false)) {
			res->pexport_note = "`gpuscope export --format perfetto` failed";
		} else {
			res->pexport_ns = r.wall_ns;
			res->pexport_bytes = (double)file_size(ppath);
		}
		unlink(ppath);
	}
	if (!opt_keep)
		rm_rf_files(cur_dir);
	else
		fprintf(stderr, "gs_bench: kept %s\n", cur_dir);
	cur_dir[0] = '\0';
	return 0;
}
