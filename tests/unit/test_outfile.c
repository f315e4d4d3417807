/* SPDX-License-Identifier: MIT */
/*
 * Output files (gpuscope/outfile.h) through the library, where the command
 * lines cannot reach: a file that appears at OUT between the check and the
 * move is refused, not replaced; the signal dispositions while a temporary
 * file exists and after; a signal and a write over the file size limit in
 * a child process. The policy cases of both programs are tests/cli/output.
 */
#include <gpuscope/error.h>
#include <gpuscope/outfile.h>

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gs-outfile-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[sizeof(dir) + 256 + 1];

	(void)state;
	while (d && (e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	return rmdir(dir);
}

static const char *at(const char *name)
{
	static char p[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The whole content of `path` equals `text`. */
static bool holds(const char *path, const char *text)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strcmp(buf, text) == 0;
}

/* Temporary files left in the directory. */
static int temps(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] == '.' && strstr(e->d_name, ".tmp-") != NULL;
	closedir(d);
	return n;
}

static const char *cause(void)
{
	static char buf[512];

	return gs_error_format(buf, sizeof(buf));
}

static void test_new_file(void **state)
{
	struct gs_outfile o;
	struct stat sb;
	mode_t old = umask(027);

	(void)state;
	gs_error_clear();
	assert_int_equal(gs_outfile_open(&o, at("new.json"), false, NULL, 0), GS_OK);
	assert_int_equal(temps(), 1);
	fputs("report\n", o.f);
	assert_int_equal(gs_outfile_commit(&o), GS_OK);
	umask(old);
	assert_int_equal(stat(at("new.json"), &sb), 0);
	/* 0666 less the umask, as any new file (mkstemp would give 0600). */
	assert_int_equal(sb.st_mode & 07777, 0640);
	assert_true(holds(at("new.json"), "report\n"));
	assert_int_equal(temps(), 0);
	gs_outfile_discard(&o); /* after a commit: nothing */
	assert_true(holds(at("new.json"), "report\n"));
}

/* A file created at OUT after every check, just before the move: without
 * --force the move itself refuses it. */
static void test_appeared_before_move(void **state)
{
	struct gs_outfile o;

	(void)state;
	gs_error_clear();
	assert_int_equal(gs_outfile_open(&o, at("race.json"), false, NULL, 0), GS_OK);
	fputs("ours\n", o.f);
	assert_int_equal(gs_outfile_finish(&o), GS_OK);
	put_file(at("race.json"), "theirs\n");
	assert_int_equal(gs_outfile_publish(&o), GS_ERR_INVALID);
	assert_non_null(strstr(cause(), "race.json: exists (use --force to replace it)"));
	assert_true(holds(at("race.json"), "theirs\n"));
	assert_int_equal(temps(), 0);
	gs_error_clear();
}

/* The same after the write, before the close: the second check refuses it. */
static void test_appeared_while_writing(void **state)
{
	struct gs_outfile o;

	(void)state;
	gs_error_clear();
	assert_int_equal(gs_outfile_open(&o, at("late.json"), false, NULL, 0), GS_OK);
	fputs("ours\n", o.f);
	put_file(at("late.json"), "theirs\n");
	assert_int_equal(gs_outfile_commit(&o), GS_ERR_INVALID);
	assert_true(holds(at("late.json"), "theirs\n"));
	assert_int_equal(temps(), 0);
	gs_error_clear();
}

static void test_force(void **state)
{
	struct gs_outfile o;

	(void)state;
	put_file(at("old.json"), "old\n");
	gs_error_clear();
	assert_int_equal(gs_outfile_open(&o, at("old.json"), false, NULL, 0), GS_ERR_INVALID);
	assert_int_equal(temps(), 0);
	gs_error_clear();
	assert_int_equal(gs_outfile_open(&o, at("old.json"), true, NULL, 0), GS_OK);
	fputs("new\n", o.f);
	assert_true(holds(at("old.json"), "old\n")); /* untouched until the move */
	assert_int_equal(gs_outfile_commit(&o), GS_OK);
	assert_true(holds(at("old.json"), "new\n"));
	assert_int_equal(temps(), 0);
}

/* An input by name, hard link and symbolic link, --force or not; NULL
 * entries are skipped. */
static void test_inputs(void **state)
{
	char in[256];
	const char *inputs[2] = {NULL, in};
	char outs[3][256];

	(void)state;
	/* at()'s buffers are reused: copies that stay. */
	snprintf(in, sizeof(in), "%s", at("in.json"));
	snprintf(outs[0], sizeof(outs[0]), "%s", at("in.json"));
	snprintf(outs[1], sizeof(outs[1]), "%s", at("hard.json"));
	snprintf(outs[2], sizeof(outs[2]), "%s", at("sym.json"));
	put_file(at("in.json"), "trace\n");
	assert_int_equal(link(at("in.json"), at("hard.json")), 0);
	assert_int_equal(symlink("in.json", at("sym.json")), 0);
	for (int i = 0; i < 3; i++)
		for (int force = 0; force < 2; force++) {
			gs_error_clear();
			assert_int_equal(gs_outfile_check(outs[i], force, inputs, 2),
					 GS_ERR_INVALID);
			assert_non_null(strstr(cause(), ": is one of the inputs"));
		}
	gs_error_clear();
	put_file(at("victim.txt"), "keep\n");
	assert_int_equal(symlink("victim.txt", at("link.json")), 0);
	assert_int_equal(gs_outfile_check(at("link.json"), true, inputs, 2), GS_ERR_INVALID);
	assert_non_null(strstr(cause(), "link.json: is a symbolic link"));
	gs_error_clear();
	assert_int_equal(gs_outfile_check(dir, true, inputs, 2), GS_ERR_INVALID);
	assert_non_null(strstr(cause(), ": is not a regular file"));
	gs_error_clear();
	assert_int_equal(gs_outfile_check("-", false, inputs, 2), GS_OK);
	assert_true(holds(at("in.json"), "trace\n"));
}

static void (*handler_of(int sig))(int)
{
	struct sigaction sa;

	sigaction(sig, NULL, &sa);
	return sa.sa_handler;
}

/* While a temporary file exists: SIGXFSZ ignored, the others handled, an
 * ignored one left ignored; after it, the dispositions as before. */
static void test_dispositions(void **state)
{
	static const int handled[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGTERM,
				      SIGPIPE, SIGUSR1, SIGALRM, SIGXCPU};
	struct gs_outfile a, b;

	(void)state;
	signal(SIGUSR2, SIG_IGN);
	for (size_t i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
		signal(handled[i], SIG_DFL);
	signal(SIGXFSZ, SIG_DFL);
	gs_error_clear();
	assert_int_equal(gs_outfile_open(&a, at("a.json"), false, NULL, 0), GS_OK);
	assert_int_equal(gs_outfile_open(&b, at("b.json"), false, NULL, 0), GS_OK);
	assert_true(handler_of(SIGXFSZ) == SIG_IGN);
	assert_true(handler_of(SIGUSR2) == SIG_IGN);
	for (size_t i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
		assert_true(handler_of(handled[i]) != SIG_DFL && handler_of(handled[i]) != SIG_IGN);
	gs_outfile_discard(&a);
	assert_true(handler_of(SIGXFSZ) == SIG_IGN); /* b's temporary file is still there */
	assert_int_equal(gs_outfile_commit(&b), GS_OK);
	assert_true(handler_of(SIGXFSZ) == SIG_DFL);
	assert_true(handler_of(SIGUSR2) == SIG_IGN);
	for (size_t i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
		assert_true(handler_of(handled[i]) == SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
	assert_int_equal(access(at("a.json"), F_OK), -1);
	assert_int_equal(temps(), 0);
}

/* In a child: `what` 1 raises SIGUSR1 while writing; 2 writes over a file
 * size limit of 1 KiB (the status and cause must be the failed write: exit
 * 0, else the step that went wrong). */
static int child(int what)
{
	struct gs_outfile o;
	struct rlimit rl = {1024, 1024};
	char line[100];

	gs_error_clear();
	if (gs_outfile_open(&o, at("child.json"), true, NULL, 0) != GS_OK)
		return 10;
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	if (what == 1) {
		fputs(line, o.f);
		fflush(o.f);
		raise(SIGUSR1);
		return 11; /* not reached: the handler ends the process */
	}
	if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
		return 12;
	for (int i = 0; i < 100; i++)
		fputs(line, o.f);
	if (gs_outfile_commit(&o) != GS_ERR_IO)
		return 13;
	if (!strstr(cause(), "child.json: write failed: File too large"))
		return 14;
	return 0;
}

static void test_signal_in_child(void **state)
{
	int st;
	pid_t pid;

	(void)state;
	put_file(at("child.json"), "keep\n");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child(1));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGUSR1);
	assert_int_equal(temps(), 0);
	assert_true(holds(at("child.json"), "keep\n"));
}

static void test_file_size_limit_in_child(void **state)
{
	int st;
	pid_t pid;

	(void)state;
	put_file(at("child.json"), "keep\n");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(child(2));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st)); /* not killed by SIGXFSZ */
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(temps(), 0);
	assert_true(holds(at("child.json"), "keep\n"));
}

static void test_remove_temps(void **state)
{
	struct gs_outfile o;

	(void)state;
	gs_error_clear();
	assert_int_equal(gs_outfile_open(&o, at("abort.json"), false, NULL, 0), GS_OK);
	assert_int_equal(temps(), 1);
	gs_outfile_remove_temps();
	assert_int_equal(temps(), 0);
	gs_outfile_discard(&o); /* the file is gone already: no harm */
	assert_true(handler_of(SIGXFSZ) == SIG_DFL);
	assert_int_equal(access(at("abort.json"), F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_file),
		cmocka_unit_test(test_appeared_before_move),
		cmocka_unit_test(test_appeared_while_writing),
		cmocka_unit_test(test_force),
		cmocka_unit_test(test_inputs),
		cmocka_unit_test(test_dispositions),
		cmocka_unit_test(test_signal_in_child),
		cmocka_unit_test(test_file_size_limit_in_child),
		cmocka_unit_test(test_remove_temps),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
