/* SPDX-License-Identifier: MIT */
/*
 * gs_bench's measurement helpers: the clocks, running one measurement in a
 * child process (its wall time, CPU time and peak RSS), the child's
 * "key value" output, the repeats (the best of up to --repeat runs) and
 * medians.
 */
#define _GNU_SOURCE /* sched_setaffinity, sched_getcpu, wait4, mkdtemp */
#include "bench_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REPEAT_BUDGET_NS 20e9

double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* CPU time of the process, every thread. */
double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

uint64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* Run argv with stdout captured (stderr passes through unless `quiet`), on
 * one CPU when `one_cpu` (the libraries then use one thread). 0 on exit 0. */
int run_child(char *const argv[], struct run *r, bool quiet, bool one_cpu)
{
	int fd[2], status;
	size_t len = 0;
	struct rusage ru;
	double t0;
	pid_t pid;

	if (pipe(fd) != 0)
		return -1;
	t0 = now_ns();
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fd[0]);
		dup2(fd[1], STDOUT_FILENO);
		close(fd[1]);
		if (one_cpu) {
			cpu_set_t set;
			int cpu = sched_getcpu();

			CPU_ZERO(&set);
			CPU_SET(cpu >= 0 ? cpu : 0, &set);
			sched_setaffinity(0, sizeof(set), &set);
		}
		if (quiet) {
			int nul = open("/dev/null", O_WRONLY);

			if (nul >= 0)
				dup2(nul, STDERR_FILENO);
		}
		execv(argv[0], argv);
		fprintf(stderr, "gs_bench: error: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	r->lines = 0;
	for (;;) {
		char sink[4096];
		char *got = len + 1 < sizeof(r->out) ? r->out + len : sink;
		ssize_t k;

		k = read(fd[0], got, got == sink ? sizeof(sink) : sizeof(r->out) - 1 - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		for (ssize_t i = 0; i < k; i++)
			r->lines += got[i] == '\n';
		if (len + 1 < sizeof(r->out))
			len += (size_t)k;
	}
	r->out[len] = '\0';
	close(fd[0]);
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return -1;
	r->wall_ns = now_ns() - t0;
	r->cpu_ns = ((double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec) * 1e9 +
		    ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e3;
	r->maxrss = (double)ru.ru_maxrss * 1024.0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* The value of "key value" in a child's output; NAN when absent. */
double get(const struct run *r, const char *key)
{
	size_t kl = strlen(key);
	const char *p = r->out;

	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return strtod(p + kl + 1, NULL);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NAN;
}

/* The first three fields of /proc/loadavg ("?" when unreadable). */
void read_loadavg(char *buf, size_t n)
{
	FILE *f = fopen("/proc/loadavg", "r");
	char line[256];
	double v[3];
	int got = 0;

	if (f && fgets(line, sizeof(line), f)) {
		char *p = line, *end;

		for (; got < 3; got++, p = end) {
			v[got] = strtod(p, &end);
			if (end == p)
				break;
		}
	}
	if (f)
		fclose(f);
	if (got == 3)
		snprintf(buf, n, "%.2f %.2f %.2f", v[0], v[1], v[2]);
	else
		snprintf(buf, n, "?");
}

/*
 * Run a child measurement up to opt_repeat times (fewer when the runs take
 * long), keeping for each key in `keys` the smallest value and the run's
 * peak RSS (the largest seen). 0 when every run succeeded.
 */
int measure(char *const argv[], const char *const *keys, size_t nkeys, struct run *best,
	    double *best_vals, bool one_cpu)
{
	double spent = 0;

	for (size_t k = 0; k < nkeys; k++)
		best_vals[k] = NAN;
	best->maxrss = 0;
	best->wall_ns = NAN;
	best->cpu_ns = NAN;
	for (unsigned i = 0; i < opt_repeat; i++) {
		struct run r;

		if (run_child(argv, &r, false, one_cpu))
			return -1;
		for (size_t k = 0; k < nkeys; k++) {
			double v = keys[k] ? get(&r, keys[k]) : r.wall_ns;

			if (isnan(best_vals[k]) || v < best_vals[k])
				best_vals[k] = v;
		}
		if (isnan(best->wall_ns) || r.wall_ns < best->wall_ns)
			best->wall_ns = r.wall_ns;
		if (isnan(best->cpu_ns) || r.cpu_ns < best->cpu_ns)
			best->cpu_ns = r.cpu_ns;
		if (r.maxrss > best->maxrss)
			best->maxrss = r.maxrss;
		if (i == 0)
			memcpy(best->out, r.out, sizeof(r.out));
		spent += r.wall_ns;
		if (spent > REPEAT_BUDGET_NS)
			break;
	}
	return 0;
}

static int cmp_dbl(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return a < b ? -1 : a > b;
}

/* The median of n values (the mean of the middle two of an even count). */
double median_of(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int make_tmp_dir(char *dir, size_t size, const char *tmp, const char *name)
{
	snprintf(dir, size, "%s/%s.XXXXXX", tmp, name);
	if (!mkdtemp(dir)) {
		fprintf(stderr, "gs_bench: error: %s: cannot create: %s\n", dir, strerror(errno));
		dir[0] = '\0';
		return 1;
	}
	return 0;
}
