/* SPDX-License-Identifier: MIT */
/*
 * The harness of the collector's end-to-end tests (test_collector_scenarios*.c,
 * test_collector_faults.c; the code is in harness.c, compiled into each):
 * a scenario runs in a child process that loads the collector built against
 * the CUPTI test double (cupti_double.h) and "runs" a CUDA program; the
 * parent then has the child's exit status, stdout, stderr and the path of
 * the .gscope file it left, and loads that file.
 *
 * The test's target defines GS_COLLECTOR_DOUBLE (the collector linked
 * against the double) and GS_TEST_TMP (a directory for the tests' files).
 */
#ifndef GS_TESTS_COLLECTOR_HARNESS_H
#define GS_TESTS_COLLECTOR_HARNESS_H

#include <gpuscope/format.h>

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cupti_double.h"

#ifndef GS_COLLECTOR_DOUBLE
#error "GS_COLLECTOR_DOUBLE (the collector linked against the double) must be defined"
#endif
#ifndef GS_TEST_TMP
#error "GS_TEST_TMP must be defined"
#endif

/* Hand one activity record (a records.h constructor's value) to the double. */
#define EMIT(rec)                                                                                  \
	do {                                                                                       \
		__typeof__(rec) r_ = (rec);                                                        \
		gsd_emit(&r_);                                                                     \
	} while (0)

#define RT CUPTI_ACTIVITY_KIND_RUNTIME
#define KCBID_LAUNCH CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000

struct run {
	const char *name;          /* also the prefix of the files it leaves */
	void (*fn)(void);          /* the program, in the child */
	void (*before_load)(void); /* in the child, before the collector loads */
	struct gsd_options opts;   /* how the CUPTI double behaves */
	const char *env[8][2];     /* more environment: {name, value}, up to 8 */
	const char *output;        /* GPUSCOPE_OUTPUT; NULL: tmpdir/NAME-%p.gscope */
	bool no_default_output;    /* with output NULL: leave GPUSCOPE_OUTPUT unset */
	bool check_deferred;       /* CUDA_INJECTION64_PATH: setup waits for InitializeInjection */
	/* results */
	pid_t pid;
	int status; /* from waitpid */
	double seconds;
	char out[4096];       /* the child's stdout */
	char err[4096];       /* its stderr, without sanitizer lines */
	char trace[PATH_MAX]; /* tmpdir/NAME-PID.gscope (the default pattern) */
};

extern char tmpdir[PATH_MAX / 2]; /* this test's directory (setup_tmpdir) */
extern const char *scenario_name; /* in the child: the running scenario's name */
extern int (*child_init)(void);   /* in the child: InitializeInjection */

/* Set tmpdir to GS_TEST_TMP/SUB, create it and empty it (the scenarios
 * count the files they leave). 0, or -1 when it cannot be created. */
int setup_tmpdir(const char *sub);
/* Remove the files in `dir` (not its subdirectories). */
void clean_dir(const char *dir);

/* Run `r` in a child (its stdout and stderr to tmpdir/NAME.stdout and
 * .stderr) and wait for it; fills in the results. The child exits 89-91
 * (50, 51 with check_deferred) when the harness itself fails there. */
void run_scenario(struct run *r);
/* In a child: dlopen the collector and call InitializeInjection (sets
 * child_init); _exit(90) or _exit(91) on failure. */
void load_collector(void);

/* How long run_scenario waits for a scenario: past it the scenario (its
 * process group) is killed and the test fails, naming it (a hang). */
#define SCENARIO_WAIT_S 120
/* waitpid for at most `seconds`: pid, 0 when it is still running, -1 on error. */
pid_t wait_child(pid_t pid, int *status, int seconds);

/* In a child: poll `done` (every ms) until it holds. False only after 60 s:
 * a guard against a hang, never a timing (load makes it slower, not fail). */
bool wait_until(bool (*done)(void));

/* Fail unless the child exited with `code` (prints its stderr). */
void expect_exit(const struct run *r, int code);
/* Load a trace; `complete`: it must have its end chunk and no warning. */
struct gs_trace *load_trace(const char *path, bool complete);
/* Whether a warning of `t` contains `needle` (its count into *count). */
bool has_warning(const struct gs_trace *t, const char *needle, uint64_t *count);

/* A text file into buf (NUL-terminated; empty when it cannot be read). */
void read_text(const char *path, char *buf, size_t size);
int count_lines(const char *text);
/* Files in `dir` whose names start with `prefix` and end with .gscope. */
int count_traces(const char *dir, const char *prefix);

#endif
