/* SPDX-License-Identifier: MIT */
/*
 * The collector under faults, without a GPU, through the CUPTI test double
 * (cupti_double.h): each scenario runs in a child process that loads the
 * collector built against the double, then the parent checks the child's
 * exit status, stdout, stderr and the .gscope file it left (harness.h,
 * shared with test_collector_scenarios.c).
 *
 * - buffer requests answered with nothing, and completions of a NULL or an
 *   empty buffer;
 * - 16 threads emitting records and API callbacks at once while the flush
 *   thread flushes every millisecond (run it under ThreadSanitizer: make tsan);
 * - a CUPTI flush that never returns, at exit and in the flush thread:
 *   the exit waits a bounded time, then goes on with a warning;
 * - a full disk (a 64 KiB tmpfs in a private mount namespace, else
 *   RLIMIT_FSIZE): the program runs on, the file is cut back to its last
 *   whole chunk and ends with the count of the records lost;
 * - an unwritable output directory: one line, the program runs on;
 * - the output path replaced by a symbolic link while the file is open:
 *   nothing is written through the link;
 * - fork then exec: the exec'd program records its own file;
 * - SIGKILL: every chunk written before the last flush interval is read.
 */
#define _GNU_SOURCE /* unshare, CLONE_NEWNS */
#include <gpuscope/format.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cupti_double.h"
#include "harness.h"
#include "records.h"

#define CBID_RESET CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020

static char fulldir[PATH_MAX / 2 + 16]; /* the small file system of the disk-full case */
static bool full_is_tmpfs;
static char self_exe[PATH_MAX];

static size_t count_ops_named(const struct gs_trace *t, const char *prefix)
{
	size_t n, k = 0;
	const struct gs_op *op = gs_trace_ops(t, &n);

	for (size_t i = 0; i < n; i++)
		k += !strncmp(gs_trace_string(t, op[i].name), prefix, strlen(prefix));
	return k;
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* This child's own trace path (the default pattern). */
static void my_trace(char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s-%ld.gscope", tmpdir, scenario_name, (long)getpid());
}

/* The flush cudaDeviceReset's callback triggers (not forced). */
static void forced_flush(void)
{
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, CBID_RESET, CUPTI_API_ENTER, 0, NULL);
}

static void program_output(void)
{
	printf("result=%d\n", 6 * 7);
	fflush(stdout);
}

/* ------------------------------------------------------------------------ */
/* Buffer requests answered with nothing; NULL and empty completions         */
/* ------------------------------------------------------------------------ */

/* A buffer from the collector's pool (handed straight back, empty). */
static bool pool_gives_buffer(void)
{
	size_t size;
	uint8_t *b = gsd_request_raw(&size);

	if (b)
		gsd_complete_raw(b, size, 0);
	return b != NULL;
}

static void sc_no_buffers(void)
{
	uint8_t *held[4];
	size_t size;

	/* A NULL buffer and an empty one handed back: nothing happens. */
	gsd_complete_raw(NULL, 0, 0);
	for (int i = 0; i < 4; i++) {
		held[i] = gsd_request_raw(&size);
		if (!held[i] || size < 1024)
			_exit(20);
	}
	if (gsd_request_raw(&size) != NULL) /* the pool (4) is empty: nothing */
		_exit(21);
	for (uint32_t k = 0; k < 10; k++) /* every request refused: dropped */
		EMIT(rec_kernel(1, 7, 100 + k, 1000 + k, 1001 + k, "lost"));
	if (gsd_get_stats().dropped != 10)
		_exit(22);
	for (int i = 0; i < 4; i++)
		gsd_complete_raw(held[i], size, 0); /* given back with no records */
	/* The writer thread puts them back in the pool: wait until a buffer
	 * can be had again (a 60 s guard against a hang, not a timing). */
	if (!wait_until(pool_gives_buffer))
		_exit(23);
	for (uint32_t k = 0; k < 5; k++)
		EMIT(rec_kernel(1, 7, 200 + k, 2000 + k * 10, 2005 + k * 10, "kept"));
	program_output();
}

static void test_buffer_requests_get_nothing(void **state)
{
	struct run r = {.name = "nobuf",
			.fn = sc_no_buffers,
			.env = {{"GPUSCOPE_BUFFER_SIZE", "64K"}, {"GPUSCOPE_MAX_BUFFERS", "4"}}};
	struct gs_trace *t;
	uint64_t count = 0;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_string_equal(r.out, "result=42\n");
	assert_string_equal(r.err, "");
	t = load_trace(r.trace, false);
	gs_trace_ops(t, &n);
	assert_int_equal(n, 5);
	assert_int_equal(count_ops_named(t, "kept"), 5);
	assert_int_equal(gs_trace_dropped(t), 10);
	/* 11 refusals at least: the 5th raw request and the 10 records (then
	 * the requests made while waiting for the pool to fill again). */
	assert_true(has_warning(t, "activity buffer pool exhausted", &count));
	assert_true(count >= 11);
	gs_trace_warnings(t, &n);
	assert_int_equal(n, 1);
	gs_trace_destroy(t);
}

/* ------------------------------------------------------------------------ */
/* 16 threads at once                                                        */
/* ------------------------------------------------------------------------ */

#define THREADS 16
#define PER_THREAD 1500

static void *busy_thread(void *arg)
{
	uint32_t i = (uint32_t)(uintptr_t)arg;
	char host[64];

	for (uint32_t k = 0; k < PER_THREAD; k++) {
		uint32_t corr = i * 100000 + k + 1;
		uint64_t t = 10000 + (uint64_t)k * 100;

		if (k % 50 == 0) { /* a data-dependency callback from this thread */
			cudaMemcpyAsync_v3020_params cp;

			memset(&cp, 0, sizeof(cp));
			cp.dst = (void *)(uintptr_t)(0x700000000000ull + i * 4096);
			cp.src = host;
			cp.count = 64;
			gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API,
				CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, CUPTI_API_ENTER,
				corr, &cp);
		}
		EMIT(rec_api(RT, KCBID_LAUNCH, corr, 1000 + i, t, t + 5));
		EMIT(rec_kernel(1, 20 + i, corr, t + 10, t + 60, "work"));
	}
	return NULL;
}

static void sc_sixteen_threads(void)
{
	pthread_t th[THREADS];

	EMIT(rec_context(1, 0, 7));
	for (uintptr_t i = 0; i < THREADS; i++)
		if (pthread_create(&th[i], NULL, busy_thread, (void *)i))
			_exit(30);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	if (gsd_get_stats().dropped)
		_exit(31);
	program_output();
}

static void test_sixteen_threads(void **state)
{
	struct run r = {.name = "threads16",
			.fn = sc_sixteen_threads,
			.env = {{"GPUSCOPE_BUFFER_SIZE", "64K"},
				{"GPUSCOPE_MAX_BUFFERS", "256"},
				{"GPUSCOPE_FLUSH_MS", "1"},
				{"GPUSCOPE_DATA_DEPS", "1"}}};
	struct gs_trace *t;
	const struct gs_op *op;
	const struct gs_stream *st;
	size_t n, ns;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_string_equal(r.out, "result=42\n");
	assert_string_equal(r.err, "");
	t = load_trace(r.trace, true);
	op = gs_trace_ops(t, &n);
	assert_int_equal(n, THREADS * PER_THREAD);
	gs_trace_api_calls(t, &n);
	assert_int_equal(n, THREADS * PER_THREAD);
	gs_trace_threads(t, &n);
	assert_int_equal(n, THREADS);
	assert_int_equal(gs_trace_dropped(t), 0);
	/* Each thread's stream holds its ops, in launch order. */
	st = gs_trace_streams(t, &ns);
	for (size_t s = 0; s < ns; s++) {
		size_t first, count;
		uint32_t i;

		if (st[s].stream_id < 20 || st[s].stream_id >= 20 + THREADS)
			continue;
		i = (uint32_t)st[s].stream_id - 20;
		gs_trace_stream_ops(t, (uint32_t)s, &first, &count);
		assert_int_equal(count, PER_THREAD);
		for (size_t k = 0; k < count; k++)
			assert_int_equal(op[first + k].correlation, i * 100000 + k + 1);
	}
	gs_trace_destroy(t);
}

/* ------------------------------------------------------------------------ */
/* A flush that never returns                                                */
/* ------------------------------------------------------------------------ */

/* Three kernels reach the collector in a buffer CUPTI hands back on its
 * own (full); two more wait in a buffer only a flush would return. */
static void sc_flush_hangs(void)
{
	for (uint32_t k = 0; k < 3; k++)
		EMIT(rec_kernel(1, 7, k + 1, 1000 + k * 100, 1050 + k * 100, "delivered"));
	gsd_complete_thread_buffer();
	for (uint32_t k = 0; k < 2; k++)
		EMIT(rec_kernel(1, 7, k + 10, 2000 + k * 100, 2050 + k * 100, "held_by_cupti"));
	program_output();
}

static void check_flush_hang(const struct run *r)
{
	struct gs_trace *t;
	size_t n;

	expect_exit(r, 0);
	assert_string_equal(r->out, "result=42\n");
	assert_int_equal(count_lines(r->err), 1);
	if (!strstr(r->err, "gpuscope: warning: CUPTI's activity flush did not return within "
			    "3000 ms: going on without it")) {
		print_error("stderr: %s\n", r->err);
		fail();
	}
	/* Bounded: the exit waited about 3 s, not forever (ctest's timeout
	 * would catch a hang; this catches a wait that grew). */
	assert_true(r->seconds < 30.0);
	t = load_trace(r->trace, false);
	gs_trace_ops(t, &n);
	assert_int_equal(n, 3);
	assert_int_equal(count_ops_named(t, "delivered"), 3);
	assert_true(has_warning(t, "activity flush did not return within 3000 ms", NULL));
	gs_trace_warnings(t, &n);
	assert_int_equal(n, 1); /* and no "cut short": the file was closed */
	gs_trace_destroy(t);
}

static void test_flush_never_returns_at_exit(void **state)
{
	struct run r = {.name = "hang_exit", .fn = sc_flush_hangs, .opts = {.hang_flush_from = 1}};

	(void)state;
	run_scenario(&r);
	check_flush_hang(&r);
}

/* The flush thread's first periodic flush never returns: the exit cannot
 * stop that thread either, and goes on without it. */
static void sc_flush_hangs_periodic(void)
{
	for (int i = 0; i < 500 && gsd_get_stats().flushes == 0; i++)
		sleep_ms(10);
	if (gsd_get_stats().flushes == 0)
		_exit(40);
	sc_flush_hangs();
}

static void test_flush_never_returns_in_flush_thread(void **state)
{
	struct run r = {.name = "hang_periodic",
			.fn = sc_flush_hangs_periodic,
			.opts = {.hang_flush_from = 1},
			.env = {{"GPUSCOPE_FLUSH_MS", "20"}}};

	(void)state;
	run_scenario(&r);
	check_flush_hang(&r);
}

/* CUPTI 13.0 GA: cuptiActivityDisable(CONCURRENT_KERNEL) never returns. The
 * exit flushes first, so the trace is whole, and waits for the disable at
 * most 3 s; the version is named in one warning at start. */
static void test_disable_never_returns_at_exit(void **state)
{
	struct run r = {.name = "hang_disable",
			.fn = sc_flush_hangs,
			.opts = {.hang_disable = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
				 .version = 130000}};
	struct gs_trace *t;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_string_equal(r.out, "result=42\n");
	if (count_lines(r.err) != 2 || !strstr(r.err, "CUPTI 13.0 GA (CUDA 13.0.0) found") ||
	    !strstr(r.err, "CUPTI did not return within 3000 ms from turning tracing off at "
			   "exit")) {
		print_error("stderr: %s\n", r.err);
		fail();
	}
	assert_true(r.seconds < 30.0);
	t = load_trace(r.trace, true);
	gs_trace_ops(t, &n);
	assert_int_equal(n, 5); /* the two CUPTI held too: flushed before the disable */
	assert_int_equal(count_ops_named(t, "held_by_cupti"), 2);
	gs_trace_destroy(t);
}

/* ------------------------------------------------------------------------ */
/* A full disk                                                               */
/* ------------------------------------------------------------------------ */

#define FULL_BATCH 400
#define FULL_SIZE (64 * 1024)

static char ballast[PATH_MAX];

/* Without a tmpfs: a file size limit, with SIGXFSZ ignored (EFBIG). */
static void limit_file_size(void)
{
	struct rlimit rl = {FULL_SIZE, RLIM_INFINITY};

	signal(SIGXFSZ, SIG_IGN);
	if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
		_exit(50);
}

/* Some room comes back (a file deleted; a higher limit). */
static void free_some_space(void)
{
	if (full_is_tmpfs) {
		unlink(ballast);
	} else {
		struct rlimit rl = {FULL_SIZE + 65536, RLIM_INFINITY};

		setrlimit(RLIMIT_FSIZE, &rl);
	}
}

static int full_emitted;
/* Kernel names, kept as long as the process (CUPTI keeps its names; the
 * writer thread reads them later) and reachable (no leak reported). */
static char *full_names[200 * FULL_BATCH];

/* Batches of kernels, each flushed, until the collector gives up writing
 * (it disables its activity kinds then); a little room comes back; the
 * program ends normally. */
static void sc_disk_full(void)
{
	char path[PATH_MAX + 64];
	uint32_t corr = 1;

	snprintf(path, sizeof(path), "%s/full-%ld.gscope", fulldir, (long)getpid());
	for (int b = 0; b < 200 && gsd_kind_enabled(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL); b++) {
		off_t before = file_size(path);

		for (int k = 0; k < FULL_BATCH; k++, corr++) {
			char name[32], *kept;
			CUpti_ActivityKernel10 rec;

			/* A name of its own (strings make chunks grow), kept until
			 * the writer thread has read it, as CUPTI keeps its names. */
			snprintf(name, sizeof(name), "kernel_%u_%x", corr, corr * 2654435761u);
			kept = strdup(name);
			if (!kept || corr > sizeof(full_names) / sizeof(full_names[0]))
				_exit(53);
			full_names[corr - 1] = kept;
			rec = rec_kernel(1, 7, corr, 1000 + (uint64_t)corr * 100,
					 1050 + (uint64_t)corr * 100, kept);
			if (gsd_emit(&rec) != 1) /* 1: not collected (kinds off) */
				full_emitted++;
		}
		forced_flush();
		/* Wait for the chunk, or for the collector to give up. */
		for (int i = 0; i < 500; i++) {
			if (file_size(path) != before ||
			    !gsd_kind_enabled(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL))
				break;
			sleep_ms(10);
		}
	}
	if (gsd_kind_enabled(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) {
		printf("the disk never filled: %s is %lld bytes\n", path,
		       (long long)file_size(path));
		fflush(stdout);
		_exit(52);
	}
	free_some_space();
	printf("result=%d emitted=%d\n", 6 * 7, full_emitted);
	fflush(stdout);
}

static void test_disk_full(void **state)
{
	char pattern[PATH_MAX], want_out[64];
	struct run r = {.name = "full", .fn = sc_disk_full, .output = pattern};
	const struct gs_process *p;
	struct gs_trace *t;
	uint64_t lost = 0;
	size_t ops, n;

	(void)state;
	snprintf(pattern, sizeof(pattern), "%s/full-%%p.gscope", fulldir);
	if (!full_is_tmpfs)
		r.before_load = limit_file_size;
	run_scenario(&r);
	if (r.out[0] && strncmp(r.out, "result=", 7) != 0)
		print_error("%s", r.out);
	expect_exit(&r, 0);
	snprintf(want_out, sizeof(want_out), "result=42 emitted=");
	assert_true(!strncmp(r.out, want_out, strlen(want_out)));
	full_emitted = atoi(r.out + strlen(want_out));
	assert_true(full_emitted > FULL_BATCH);
	/* One line, when it happened. */
	assert_int_equal(count_lines(r.err), 1);
	if (strncmp(r.err, "gpuscope: collector disabled: cannot write ", 43) != 0 ||
	    !strstr(r.err, full_is_tmpfs ? "No space left on device" : "File too large")) {
		print_error("stderr: %s\n", r.err);
		fail();
	}
	snprintf(r.trace, sizeof(r.trace), "%s/full-%ld.gscope", fulldir, (long)r.pid);
	assert_true(file_size(r.trace) <= FULL_SIZE + 4096);
	/* Whole chunks, then the loss: every record emitted is in the file or
	 * counted lost (the count may include the collector's own records). */
	t = load_trace(r.trace, false);
	gs_trace_ops(t, &ops);
	assert_true(ops > 0 && ops < (size_t)full_emitted);
	assert_true(has_warning(t, "records lost: the collector could not write them", &lost));
	assert_true(ops + lost >= (uint64_t)full_emitted);
	assert_true(ops + lost <= (uint64_t)full_emitted + 16);
	assert_int_equal(gs_trace_dropped(t), lost);
	p = gs_trace_processes(t, &n);
	assert_int_equal(n, 1);
	assert_int_equal(p->dropped_records, lost);
	gs_trace_warnings(t, &n);
	assert_int_equal(n, 1); /* not cut short: it ends with its end chunk */
	print_message("disk full: %zu ops written, %llu records counted lost, %d emitted\n", ops,
		      (unsigned long long)lost, full_emitted);
	gs_trace_destroy(t);
	unlink(r.trace);
}

/* ------------------------------------------------------------------------ */
/* An unwritable output directory                                            */
/* ------------------------------------------------------------------------ */

static void drop_root(void)
{
	if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
		_exit(55);
}

static void sc_some_records(void)
{
	EMIT(rec_api(RT, KCBID_LAUNCH, 1, 5, 100, 110));
	EMIT(rec_kernel(1, 7, 1, 120, 200, "k"));
	program_output();
}

static void test_unwritable_directory(void **state)
{
	char dir[PATH_MAX], pattern[PATH_MAX + 32], want[PATH_MAX + 128];
	struct run r = {.name = "rodir",
			.fn = sc_some_records,
			.output = pattern,
			.before_load = drop_root}; /* root writes anywhere */

	(void)state;
	snprintf(dir, sizeof(dir), "%s/readonly", tmpdir);
	mkdir(dir, 0755);
	assert_int_equal(chmod(dir, 0555), 0);
	snprintf(pattern, sizeof(pattern), "%s/ro-%%p.gscope", dir);
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_string_equal(r.out, "result=42\n");
	snprintf(want, sizeof(want),
		 "gpuscope: collector disabled: cannot create %s/ro-%ld.gscope: "
		 "Permission denied\n",
		 dir, (long)r.pid);
	assert_string_equal(r.err, want);
	assert_int_equal(count_traces(dir, "ro-"), 0);
	chmod(dir, 0755);
}

/* ------------------------------------------------------------------------ */
/* The output path replaced by a symbolic link while the file is open        */
/* ------------------------------------------------------------------------ */

static void sc_swap_to_symlink(void)
{
	char path[PATH_MAX], moved[PATH_MAX + 8], victim[PATH_MAX];

	my_trace(path, sizeof(path));
	snprintf(moved, sizeof(moved), "%s.moved", path);
	snprintf(victim, sizeof(victim), "%s/victim.txt", tmpdir);
	EMIT(rec_api(RT, KCBID_LAUNCH, 1, 5, 100, 110));
	EMIT(rec_kernel(1, 7, 1, 120, 200, "before_swap"));
	forced_flush();
	for (int i = 0; i < 500 && file_size(path) <= 20 + 28; i++)
		sleep_ms(10);
	if (file_size(path) <= 20 + 28)
		_exit(60);
	/* Someone moves the file away and puts a link in its place. */
	if (rename(path, moved) != 0 || symlink(victim, path) != 0)
		_exit(61);
	EMIT(rec_api(RT, KCBID_LAUNCH, 2, 5, 300, 310));
	EMIT(rec_kernel(1, 7, 2, 320, 400, "after_swap"));
	forced_flush();
	program_output();
}

static void test_output_swapped_for_symlink(void **state)
{
	struct run r = {.name = "swap", .fn = sc_swap_to_symlink};
	char victim[PATH_MAX], moved[PATH_MAX + 8], text[64];
	struct gs_trace *t;
	struct stat st;
	size_t n;

	(void)state;
	snprintf(victim, sizeof(victim), "%s/victim.txt", tmpdir);
	{
		FILE *f = fopen(victim, "w");

		assert_non_null(f);
		fputs("victim\n", f);
		fclose(f);
	}
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_string_equal(r.err, "");
	read_text(victim, text, sizeof(text));
	assert_string_equal(text, "victim\n"); /* never written through the link */
	assert_int_equal(lstat(r.trace, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	snprintf(moved, sizeof(moved), "%s.moved", r.trace);
	t = load_trace(moved, true); /* the open file got everything */
	gs_trace_ops(t, &n);
	assert_int_equal(n, 2);
	assert_int_equal(count_ops_named(t, "after_swap"), 1);
	gs_trace_destroy(t);
}

/* ------------------------------------------------------------------------ */
/* fork, then exec                                                           */
/* ------------------------------------------------------------------------ */

/* The exec'd program (this binary with --exec-child): a CUDA program of
 * its own, recording into the inherited GPUSCOPE_OUTPUT. */
static int exec_child_main(void)
{
	load_collector();
	for (uint32_t k = 0; k < 3; k++)
		EMIT(rec_kernel(1, 9, k + 1, 5000 + k * 10, 5005 + k * 10, "in_exec"));
	return 0;
}

static void sc_fork_exec(void)
{
	char path[PATH_MAX + 64];
	int status;
	pid_t pid;
	FILE *f;

	EMIT(rec_kernel(1, 7, 1, 120, 200, "before_fork"));
	pid = fork();
	if (pid < 0)
		_exit(70);
	if (pid == 0) {
		char *argv[] = {self_exe, (char *)(uintptr_t) "--exec-child", NULL};

		execv(self_exe, argv);
		_exit(71);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		_exit(72);
	snprintf(path, sizeof(path), "%s/forkexec.child", tmpdir);
	f = fopen(path, "w");
	if (!f)
		_exit(73);
	fprintf(f, "%ld\n", (long)pid);
	fclose(f);
	EMIT(rec_kernel(1, 7, 3, 520, 600, "after_fork"));
}

static void test_fork_then_exec(void **state)
{
	struct run r = {.name = "forkexec", .fn = sc_fork_exec};
	char path[PATH_MAX + 64], text[64], child[PATH_MAX + 64];
	struct gs_trace *t;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_string_equal(r.err, "");
	assert_int_equal(count_traces(tmpdir, "forkexec-"), 2);
	t = load_trace(r.trace, true);
	gs_trace_ops(t, &n);
	assert_int_equal(n, 2);
	assert_int_equal(count_ops_named(t, "before_fork"), 1);
	assert_int_equal(count_ops_named(t, "after_fork"), 1);
	assert_int_equal(count_ops_named(t, "in_exec"), 0);
	gs_trace_destroy(t);
	snprintf(path, sizeof(path), "%s/forkexec.child", tmpdir);
	read_text(path, text, sizeof(text));
	snprintf(child, sizeof(child), "%s/forkexec-%ld.gscope", tmpdir, atol(text));
	t = load_trace(child, true);
	gs_trace_ops(t, &n);
	assert_int_equal(n, 3);
	assert_int_equal(count_ops_named(t, "in_exec"), 3);
	assert_int_equal(gs_trace_processes(t, &n)->pid, atol(text));
	gs_trace_destroy(t);
}

/* ------------------------------------------------------------------------ */
/* SIGKILL                                                                   */
/* ------------------------------------------------------------------------ */

#define KILL_BATCHES 5
#define KILL_PER_BATCH 20

/* Batch b is on disk once a chunk is written after the flush that took it. */
static void sc_batches_then_kill(void)
{
	char path[PATH_MAX];
	uint32_t corr = 1;

	/* Names live as long as the process, as CUPTI's do (the writer thread
	 * reads them later). */
	static const char *const names[KILL_BATCHES + 1] = {"batch_0", "batch_1", "batch_2",
							    "batch_3", "batch_4", "batch_5"};

	my_trace(path, sizeof(path));
	for (int b = 0; b <= KILL_BATCHES; b++) {
		unsigned f0;
		off_t s1;
		int i;

		for (int k = 0; k < KILL_PER_BATCH; k++, corr++)
			EMIT(rec_kernel(1, 7, corr, (uint64_t)corr * 100, (uint64_t)corr * 100 + 50,
					names[b]));
		if (b == KILL_BATCHES)
			break; /* the last batch: killed before any flush takes it */
		f0 = gsd_get_stats().flushes;
		for (i = 0; i < 1000 && gsd_get_stats().flushes <= f0; i++)
			sleep_ms(5);
		s1 = file_size(path);
		for (i = 0; i < 1000 && file_size(path) <= s1; i++)
			sleep_ms(5);
		if (file_size(path) <= s1)
			_exit(80);
	}
	kill(getpid(), SIGKILL);
}

static void test_sigkill_keeps_flushed_chunks(void **state)
{
	struct run r = {.name = "kill",
			.fn = sc_batches_then_kill,
			.env = {{"GPUSCOPE_FLUSH_MS", "20"}}};
	struct gs_trace *t;
	size_t n;

	(void)state;
	run_scenario(&r);
	assert_true(WIFSIGNALED(r.status));
	assert_int_equal(WTERMSIG(r.status), SIGKILL);
	t = load_trace(r.trace, false);
	assert_true(has_warning(t, "cut short", NULL));
	for (int b = 0; b < KILL_BATCHES; b++) {
		char name[32];

		snprintf(name, sizeof(name), "batch_%d", b);
		assert_int_equal(count_ops_named(t, name), KILL_PER_BATCH);
	}
	gs_trace_ops(t, &n);
	assert_true(n >= KILL_BATCHES * KILL_PER_BATCH);
	gs_trace_destroy(t);
}

/*
 * The loss bound, measured: one thread launches kernels back to back (each
 * still running when the next is launched, as on a busy GPU: its buffer
 * always holds an unfinished record, so a plain flush never returns it);
 * the timer flushes every 20 ms and writes a chunk; then, with nothing new
 * for two flush intervals, the process is killed. What is lost is the
 * buffer CUPTI still held: up to one buffer of launches (default 512 KiB /
 * 256 B a launch = 2,048), not one flush interval. Printed ("loss: ...").
 */
#define LOOP_LAUNCHES 20000
#define LAUNCH_BYTES 256 /* Kernel10 216 B + API record 40 B */

static void sc_loop_then_kill(void)
{
	char path[PATH_MAX];
	int prev = -1;
	unsigned f0;
	off_t s1;
	int i;

	my_trace(path, sizeof(path));
	for (uint32_t k = 1; k <= LOOP_LAUNCHES; k++) {
		CUpti_ActivityKernel10 kr =
			rec_kernel(1, 7, k, (uint64_t)k * 100 + 10, (uint64_t)k * 100 + 90, "loop");
		int ticket;

		EMIT(rec_api(RT, KCBID_LAUNCH, k, 0, (uint64_t)k * 100, (uint64_t)k * 100 + 5));
		ticket = gsd_emit_incomplete(&kr);
		if (prev >= 0)
			gsd_complete_record(prev);
		prev = ticket;
	}
	/* Two flushes, and a chunk written after them: all a flush can take is on disk. */
	f0 = gsd_get_stats().flushes;
	for (i = 0; i < 1000 && gsd_get_stats().flushes < f0 + 2; i++)
		sleep_ms(5);
	s1 = file_size(path);
	for (i = 0; i < 1000 && file_size(path) <= s1; i++)
		sleep_ms(5);
	kill(getpid(), SIGKILL);
}

static void test_sigkill_loss_bound(void **state)
{
	struct run r = {.name = "kill_loop",
			.fn = sc_loop_then_kill,
			.env = {{"GPUSCOPE_FLUSH_MS", "20"}}};
	const size_t per_buffer = (512u << 10) / LAUNCH_BYTES;
	struct gs_trace *t;
	size_t n;

	(void)state;
	run_scenario(&r);
	assert_true(WIFSIGNALED(r.status));
	assert_int_equal(WTERMSIG(r.status), SIGKILL);
	t = load_trace(r.trace, false);
	gs_trace_ops(t, &n);
	printf("loss: %zu of %d launches lost at SIGKILL (one buffer holds %zu)\n",
	       LOOP_LAUNCHES - n, LOOP_LAUNCHES, per_buffer);
	assert_true(n <= LOOP_LAUNCHES);
	/* The unreturned buffer's launches, never more: the rest was flushed. */
	assert_true(LOOP_LAUNCHES - n > 0);
	assert_true(LOOP_LAUNCHES - n <= per_buffer);
	gs_trace_destroy(t);
}

/* ------------------------------------------------------------------------ */

/* A 64 KiB tmpfs in a mount namespace of this test's own (root, and a
 * kernel and container that allow it); else a directory and RLIMIT_FSIZE. */
static void setup_full_fs(void)
{
	int fd;

	snprintf(fulldir, sizeof(fulldir), "%s/fullfs", tmpdir);
	mkdir(fulldir, 0755);
	errno = ENOSYS;
	full_is_tmpfs = !getenv("GS_TEST_NO_TMPFS") && unshare(CLONE_NEWNS) == 0 &&
			mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
			mount("tmpfs", fulldir, "tmpfs", 0, "size=64k") == 0;
	snprintf(ballast, sizeof(ballast), "%s/ballast", fulldir);
	if (!full_is_tmpfs) {
		clean_dir(fulldir);
		printf("disk full: no tmpfs here (%s): RLIMIT_FSIZE of %d bytes instead\n",
		       strerror(errno), FULL_SIZE);
		return;
	}
	/* Room the scenario gives back once the collector gave up. */
	fd = open(ballast, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		static const char page[8192];

		if (write(fd, page, sizeof(page)) != (ssize_t)sizeof(page))
			unlink(ballast);
		close(fd);
	}
	printf("disk full: a 64 KiB tmpfs at %s\n", fulldir);
}

static int setup_tmp(void **state)
{
	(void)state;
	if (setup_tmpdir("faults") != 0)
		return -1;
	chmod(tmpdir, 0777); /* the unwritable-directory case runs as nobody */
	setup_full_fs();
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buffer_requests_get_nothing),
		cmocka_unit_test(test_sixteen_threads),
		cmocka_unit_test(test_flush_never_returns_at_exit),
		cmocka_unit_test(test_disable_never_returns_at_exit),
		cmocka_unit_test(test_flush_never_returns_in_flush_thread),
		cmocka_unit_test(test_disk_full),
		cmocka_unit_test(test_unwritable_directory),
		cmocka_unit_test(test_output_swapped_for_symlink),
		cmocka_unit_test(test_fork_then_exec),
		cmocka_unit_test(test_sigkill_keeps_flushed_chunks),
		cmocka_unit_test(test_sigkill_loss_bound),
	};
	ssize_t n;

	if (argc == 2 && !strcmp(argv[1], "--exec-child"))
		return exec_child_main();
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0)
		return 1;
	self_exe[n] = '\0';
	return cmocka_run_group_tests(tests, setup_tmp, NULL);
}
