/* SPDX-License-Identifier: MIT */
/* The collector tests' harness (harness.h). */
#include "harness.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cuda_double.h"

char tmpdir[PATH_MAX / 2];
const char *scenario_name;
int (*child_init)(void);

void clean_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[PATH_MAX];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
}

int setup_tmpdir(const char *sub)
{
	snprintf(tmpdir, sizeof(tmpdir), "%s/%s", GS_TEST_TMP, sub);
	mkdir(GS_TEST_TMP, 0755);
	if (mkdir(tmpdir, 0755) != 0 && errno != EEXIST)
		return -1;
	clean_dir(tmpdir);
	return 0;
}

void read_text(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, size - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

/* Drop sanitizer chatter ("==pid==..." lines: LeakSanitizer noting in a
 * forked child that its parent's threads are gone, ThreadSanitizer's report
 * framing) from a captured stderr: a report fails the run anyway. */
static void strip_sanitizer_lines(char *text)
{
	char *in = text, *out = text;

	while (*in) {
		char *nl = strchr(in, '\n');
		size_t len = nl ? (size_t)(nl - in) + 1 : strlen(in);

		if (strncmp(in, "==", 2) != 0) {
			memmove(out, in, len);
			out += len;
		}
		in += len;
	}
	*out = '\0';
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* `check_deferred`: loading alone must not subscribe (setup waits for
 * InitializeInjection), InitializeInjection must, once. */
static void open_collector(bool check_deferred)
{
	void *h = dlopen(GS_COLLECTOR_DOUBLE, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		_exit(90);
	}
	if (check_deferred && gsd_get_stats().subscribes != 0)
		_exit(50);
	*(void **)&child_init = dlsym(h, "InitializeInjection");
	if (!child_init || child_init() != 1)
		_exit(91);
	if (check_deferred && gsd_get_stats().subscribes != 1)
		_exit(51);
}

void load_collector(void)
{
	open_collector(false);
}

/* What launchers set to tell a process its rank and the job's size. */
static const char *const rank_vars[] = {
	"OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "RANK",
	"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", "WORLD_SIZE",
};

void run_scenario(struct run *r)
{
	char outp[PATH_MAX + 32], errp[PATH_MAX + 32], pattern[PATH_MAX + 64];
	double t0 = now_s();
	pid_t pid;

	snprintf(outp, sizeof(outp), "%s/%s.stdout", tmpdir, r->name);
	snprintf(errp, sizeof(errp), "%s/%s.stderr", tmpdir, r->name);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fo = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		setpgid(0, 0); /* its own group: a hang is ended with its children */
		int fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
			_exit(89);
		close(fo);
		close(fe);
		scenario_name = r->name;
		unsetenv("CUDA_INJECTION64_PATH");
		unsetenv("GPUSCOPE_DATA_DEPS");
		unsetenv("GPUSCOPE_BUFFER_SIZE");
		unsetenv("GPUSCOPE_MAX_BUFFERS");
		unsetenv("GPUSCOPE_LOG");
		unsetenv("NVTX_INJECTION64_PATH");
		/* A launcher's rank variables (ctest may itself run under one):
		 * a scenario sets those it wants. */
		for (size_t i = 0; i < sizeof(rank_vars) / sizeof(rank_vars[0]); i++)
			unsetenv(rank_vars[i]);
		snprintf(pattern, sizeof(pattern), "%s/%s-%%p.gscope", tmpdir, r->name);
		if (r->output)
			setenv("GPUSCOPE_OUTPUT", r->output, 1);
		else if (!r->no_default_output)
			setenv("GPUSCOPE_OUTPUT", pattern, 1);
		setenv("GPUSCOPE_FLUSH_MS", "600000", 1); /* flushes are the scenario's */
		for (int i = 0; i < 8 && r->env[i][0]; i++)
			setenv(r->env[i][0], r->env[i][1], 1);
		gsd_configure(&r->opts);
		/* The driver double must be in the process, as libcuda.so.1 is in a
		 * CUDA program's: the collector looks for it before using CUPTI. A
		 * call keeps the linker from dropping it (--as-needed). */
		(void)gsd_cuda_param_info_calls();
		if (r->before_load)
			r->before_load();
		open_collector(r->check_deferred);
		r->fn();
		exit(0);
	}
	if (wait_child(pid, &r->status, SCENARIO_WAIT_S) != pid) {
		kill(-pid, SIGKILL);
		waitpid(pid, &r->status, 0);
		read_text(errp, r->err, sizeof(r->err));
		print_error("scenario %s: still running after %d s: killed (a hang), stderr:\n%s\n",
			    r->name, SCENARIO_WAIT_S, r->err);
		fail();
	}
	r->seconds = now_s() - t0;
	r->pid = pid;
	read_text(outp, r->out, sizeof(r->out));
	read_text(errp, r->err, sizeof(r->err));
	strip_sanitizer_lines(r->err);
	snprintf(r->trace, sizeof(r->trace), "%s/%s-%ld.gscope", tmpdir, r->name, (long)pid);
}

pid_t wait_child(pid_t pid, int *status, int seconds)
{
	double t0 = now_s();
	struct timespec nap = {0, 1000000};

	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r != 0 && !(r < 0 && errno == EINTR))
			return r;
		if (now_s() - t0 >= seconds)
			return 0;
		nanosleep(&nap, NULL);
	}
}

bool wait_until(bool (*done)(void))
{
	double t0 = now_s();
	struct timespec nap = {0, 1000000};

	while (!done()) {
		if (now_s() - t0 >= 60)
			return false;
		nanosleep(&nap, NULL);
	}
	return true;
}

void expect_exit(const struct run *r, int code)
{
	if (!WIFEXITED(r->status) || WEXITSTATUS(r->status) != code) {
		print_error("scenario %s: status 0x%x, stderr:\n%s\n", r->name, r->status, r->err);
		fail();
	}
}

bool has_warning(const struct gs_trace *t, const char *needle, uint64_t *count)
{
	size_t n;
	const struct gs_warning *w = gs_trace_warnings(t, &n);

	for (size_t i = 0; i < n; i++) {
		if (strstr(w[i].message, needle)) {
			if (count)
				*count = w[i].count;
			return true;
		}
	}
	return false;
}

struct gs_trace *load_trace(const char *path, bool complete)
{
	struct gs_trace *t = NULL;
	gs_status st = gs_trace_load_gscope(path, 0, &t);
	size_t n;

	if (st != GS_OK) {
		char buf[1024];

		print_error("%s: %s\n", path, gs_error_format(buf, sizeof(buf)));
		fail();
	}
	if (complete) {
		const struct gs_warning *w = gs_trace_warnings(t, &n);

		for (size_t i = 0; i < n; i++)
			print_error("%s: warning: %s\n", path, w[i].message);
		assert_int_equal(n, 0);
	}
	return t;
}

int count_lines(const char *text)
{
	int n = 0;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

int count_traces(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t lp = strlen(prefix);
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (!strncmp(e->d_name, prefix, lp) && l > 7 &&
		    !strcmp(e->d_name + l - 7, ".gscope"))
			n++;
	}
	closedir(d);
	return n;
}
