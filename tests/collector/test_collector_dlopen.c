/* SPDX-License-Identifier: MIT */
/*
 * The real libgpuscope_collector.so, loaded into a process on this machine
 * (in CI: no GPU, no driver). It must not crash, print nothing on stdout
 * and return 1 from InitializeInjection. Without a driver: loaded as
 * LD_PRELOAD loads it, into this process that shows no CUDA (no CUDA
 * library, no CUDA device code), it says nothing at all; loaded as the
 * driver loads it (InitializeInjection), it says once that there is no
 * driver. On a machine with a driver it may well collect: then it only has
 * to stay quiet on stdout.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static char dir[PATH_MAX];

static void read_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, size - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

static bool driver_present(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);

	if (!h)
		return false;
	dlclose(h);
	return true;
}

/* Load the library in a child; `injected`: as the driver does it;
 * `no_driver`: with the test-only driver name found nowhere (config.h). */
static void load_in_child(const char *name, bool injected, bool no_driver, int *status, char *out,
			  char *err, size_t size)
{
	char outp[PATH_MAX + 32], errp[PATH_MAX + 32], pattern[PATH_MAX + 32];
	pid_t pid;

	snprintf(outp, sizeof(outp), "%s/%s.stdout", dir, name);
	snprintf(errp, sizeof(errp), "%s/%s.stderr", dir, name);
	snprintf(pattern, sizeof(pattern), "%s/%s-%%p.gscope", dir, name);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fo = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int fe = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int (*init)(void);
		void *h;

		if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0)
			_exit(89);
		setenv("GPUSCOPE_OUTPUT", pattern, 1);
		if (injected)
			setenv("CUDA_INJECTION64_PATH", GS_COLLECTOR_REAL, 1);
		else
			unsetenv("CUDA_INJECTION64_PATH");
		if (no_driver)
			setenv("GPUSCOPE_TEST_DRIVER_NAME", "libgpuscope-test-no-driver.so.1", 1);
		else
			unsetenv("GPUSCOPE_TEST_DRIVER_NAME");
		unsetenv("GPUSCOPE_LOG");
		h = dlopen(GS_COLLECTOR_REAL, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			_exit(90);
		}
		*(void **)&init = dlsym(h, "InitializeInjection");
		if (!init)
			_exit(91);
		if (init() != 1 || init() != 1)
			_exit(92);
		fflush(NULL);
		_exit(0); /* what libcupti keeps at exit is not ours to check */
	}
	assert_int_equal(waitpid(pid, status, 0), pid);
	read_file(outp, out, size);
	read_file(errp, err, size);
}

static void check(const char *name, bool injected, bool no_driver)
{
	char out[4096], err[4096];
	int status;

	load_in_child(name, injected, no_driver, &status, out, err, sizeof(out));
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_string_equal(out, "");
	if (!no_driver && driver_present()) {
		print_message("note: a CUDA driver is present; the collector may run\n");
		return;
	}
	if (injected)
		assert_string_equal(
			err,
			"gpuscope: collector disabled: no CUDA driver (libcuda.so.1 not found)\n");
	else
		assert_string_equal(err, "");
}

static void test_preload_path(void **state)
{
	(void)state;
	check("preload", false, false);
}

static void test_injection_path(void **state)
{
	(void)state;
	check("inject", true, false);
}

/* The same whatever this machine has. */
static void test_preload_no_driver(void **state)
{
	(void)state;
	check("preload-nodriver", false, true);
}

static void test_injection_no_driver(void **state)
{
	(void)state;
	check("inject-nodriver", true, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_preload_path),
		cmocka_unit_test(test_injection_path),
		cmocka_unit_test(test_preload_no_driver),
		cmocka_unit_test(test_injection_no_driver),
	};

	snprintf(dir, sizeof(dir), "%s/dlopen", GS_TEST_TMP);
	mkdir(GS_TEST_TMP, 0755);
	mkdir(dir, 0755);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
