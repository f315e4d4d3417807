/* SPDX-License-Identifier: MIT */
/*
 * What the pieces of gs_bench (bench.c and bench_*.c) share: a child
 * measurement's result, the results of each section, the options and
 * temporary paths (bench.c), the measurement helpers (bench_run.c), each
 * section's benchmark and its part of the table.
 */
#ifndef GS_BENCH_PRIV_H
#define GS_BENCH_PRIV_H

#include <gpuscope/error.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A string for an argv array (exec never writes to it). */
#define S(x) ((char *)(uintptr_t)(x))
#define CHILD_OUT_MAX 8192

/* The 4 ranks of one job, OPS / 4 GPU ops each, as rank0..3.gscope. */
#define BENCH_RANKS 4

/* ---- bench.c: options, temporary paths (deleted on exit unless --keep) */

extern char self_exe[4096];
extern char loadavg_start[64], loadavg_end[64];
extern unsigned opt_repeat;
extern bool opt_keep;
extern char cur_dir[4096];
extern char shared_plain[4200]; /* a shared trace inflated, while measured */
extern char job_dir[4096];
extern uint32_t job_dir_ranks;
extern FILE *out_file; /* --out, beside stdout */

/* ---- bench_run.c: measurements in child processes */

struct run {
	char out[CHILD_OUT_MAX];
	size_t lines; /* of all the child wrote to stdout */
	double wall_ns;
	double cpu_ns; /* user + system, every thread */
	double maxrss; /* bytes */
};

double now_ns(void);
/* CPU time of the process, every thread. */
double cpu_ns(void);
uint64_t file_size(const char *path);
/* Run argv with stdout captured (stderr passes through unless `quiet`), on
 * one CPU when `one_cpu` (the libraries then use one thread). 0 on exit 0. */
int run_child(char *const argv[], struct run *r, bool quiet, bool one_cpu);
/* The value of "key value" in a child's output; NAN when absent. */
double get(const struct run *r, const char *key);
/* The first three fields of /proc/loadavg ("?" when unreadable). */
void read_loadavg(char *buf, size_t n);
/* Run a child measurement up to opt_repeat times, keeping for each key the
 * smallest value and the largest peak RSS. 0 when every run succeeded. */
int measure(char *const argv[], const char *const *keys, size_t nkeys, struct run *best,
	    double *best_vals, bool one_cpu);
/* The median of n values (the mean of the middle two of an even count);
 * sorts v. */
double median_of(double *v, unsigned n);
/* A new directory TMP/NAME.XXXXXX in `dir` (size bytes); 1, the error
 * printed and `dir` empty, when it cannot be created. */
int make_tmp_dir(char *dir, size_t size, const char *tmp, const char *name);

/* ---- bench_child.c: `gs_bench --child ...` */

int child_main(int argc, char **argv);

/* ---- bench_size.c: one SIZE */

struct result {
	uint64_t ops;
	double records;
	double gscope_bytes, json_bytes, gz_bytes;
	double gen_ns;
	/* import / load */
	double json_ns, json_rss, json_model, json_cpu_ns;
	double gz_ns, gz_rss, gz_cpu_ns;
	double load_ns, load_rss, load_model;
	double load_cpu_ns; /* CPU time of the two-thread load */
	double load1_ns;    /* the load on one CPU */
	/* analyses */
	double graph_ns, waits_ns, breakdown_ns, schedule_ns, overlap_ns, candidates_ns;
	double edges, analyses_cpu_ns;
	/* gpuscope analyze: on both CPUs, its CPU time, on one CPU */
	double analyze_ns, analyze_rss, analyze_cpu_ns, analyze1_ns;
	/* gpuscope analyze of BENCH_RANKS files of ops / BENCH_RANKS each */
	double ranks_ns, ranks1_ns;
	/* chrome export */
	double export_ns, export_bytes;
	const char *export_note;
	/* perfetto export */
	double pexport_ns, pexport_bytes;
	const char *pexport_note;
};

int bench_size(uint64_t ops, const char *tmp, const char *gpuscope, unsigned devices,
	       struct result *res);
/* The files of one size (bench_size) and its directory. */
int rm_rf_files(const char *dir);

/* ---- bench_job.c: a job against the same ops as one rank */

enum {
	JOB_JSON,
	JOB_GSCOPE,
	JOB_FORMATS
};
enum {
	SIDE_JOB,
	SIDE_ONE,
	JOB_SIDES
};

/* `gpuscope analyze -q` of one side in one format. */
struct job_side {
	double ns, cpu_ns, rss; /* on all CPUs: best wall, best CPU, largest peak RSS */
	double ns1, rss1;       /* pinned to one CPU */
};

struct job_result {
	uint32_t ranks;
	uint64_t ops_per_rank;
	double gen_ns, convert_ns;
	double bytes[JOB_FORMATS][JOB_SIDES]; /* on disk, all files of the side */
	struct job_side m[JOB_FORMATS][JOB_SIDES];
	bool done;
};

/* Many ranks, few ops: the text report of a large job. */
struct scale_result {
	uint32_t ranks, straggler;
	uint64_t ops_per_rank;
	unsigned pairs;
	double gen_ns;
	double ns[JOB_SIDES], cpu_ns[JOB_SIDES], rss[JOB_SIDES]; /* medians; RSS the largest */
	double wall_ratio, cpu_ratio; /* medians of the pairs' ratios, job / one */
	size_t lines[JOB_SIDES];      /* of the text report */
	bool done;
};

int bench_job(const char *tmp, const char *gpuscope, uint32_t ranks, uint64_t ops,
	      struct job_result *jr);
int bench_scale(const char *tmp, const char *gpuscope, uint32_t ranks, uint64_t ops,
		struct scale_result *sr);
/* The files of a job (`--child genjob`) and its directory. */
int rm_job_files(const char *dir, uint32_t ranks);
void print_job(const struct job_result *jr);
void print_job_targets(const struct job_result *jr);
void print_scale(const struct scale_result *sr);
void print_scale_targets(const struct scale_result *sr);

/* ---- bench_shared.c: the Kineto traces of ../shared/data */

#define MAX_SHARED 64

struct shared_trace {
	char name[160]; /* subdirectory/file, without .json.gz */
	double json_bytes, gz_bytes;
	double plain_ns, plain_cpu_ns, gz_ns, gz_cpu_ns;
};

struct shared_result {
	struct shared_trace t[MAX_SHARED];
	size_t n;
	const char *note; /* why nothing was measured */
	bool done;
};

int bench_shared(const char *tmp, const char *dir, struct shared_result *sr);
void print_shared(const struct shared_result *sr);
/* The lowest plain rate a core among the traces judged, and which. */
double shared_worst(const struct shared_result *sr, const char **name);

/* ---- bench_report.c: the table */

/* printf to stdout and to out_file. */
void emit(const char *fmt, ...) GS_PRINTF(1, 2);
const char *verdict(bool ok);
void print_table(const struct result *res, size_t n, unsigned devices, const struct job_result *jr,
		 const struct scale_result *sr, const struct shared_result *shr, bool smoke);

#endif
