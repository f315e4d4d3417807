/* SPDX-License-Identifier: MIT */
/*
 * gpuscope record: run a program under the CUPTI collector
 * (libgpuscope_collector.so through CUDA_INJECTION64_PATH), return its exit
 * status as a shell would (128 + N for signal N), and list the trace files
 * it wrote: one per process that used CUDA (exec'd children inherit the
 * variables; %p in the output name tells them apart).
 *
 * The collector is found through GPUSCOPE_COLLECTOR, then next to this
 * executable (../<libdir>, ../lib, ../lib64, the build tree's ../collector),
 * then the paths it was built and installed at.
 *
 * Before the run: the output directory must exist and be writable (the
 * collector creates no directory), and a child loads the collector and
 * looks for the CUDA driver (neither is loaded into gpuscope itself): a
 * collector that cannot be loaded is an error, a missing driver a warning
 * (the program runs, without the collector). After a run that wrote no
 * trace, the collector's status file (GPUSCOPE_STATUS_FILE, in a private
 * directory: each process appends "loaded PID", "disabled PID REASON",
 * "wrote PID PATH") and PROGRAM's ELF file tell why.
 */
#include <gpuscope/elfcuda.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

#define RECORD_COLLECTOR_NAME "libgpuscope_collector.so"
#define RECORD_DEFAULT_OUTPUT "gpuscope-%h-%p.gscope"
#define RECORD_PATH_MAX 4096
/* The CUDA driver library; GPUSCOPE_TEST_DRIVER_NAME stands in for it in
 * gpuscope's own tests, as in the collector (collector/src/config.h). */
#define RECORD_DRIVER "libcuda.so.1"
#define RECORD_NO_DRIVER "no CUDA driver on this machine (" RECORD_DRIVER " not found)"

static const struct gs_cli_usage record_usage = {
	.name = "record",
	.synopsis = "gpuscope record [-o OUT] [--force] [--data-deps] [--flush-ms N] -- PROGRAM "
		    "[ARGS...]",
};

static const char record_help[] =
	"usage: gpuscope record [-o OUT] [--force] [--data-deps] [--flush-ms N] -- PROGRAM "
	"[ARGS...]\n"
	"\n"
	"Run PROGRAM (unmodified) under the CUPTI collector and write one .gscope trace per\n"
	"process that uses CUDA. The exit status is PROGRAM's own (128 + N when signal N\n"
	"ended it). The traces written are listed on stderr.\n"
	"\n"
	"Before PROGRAM starts, record checks that OUT's directory exists and can be\n"
	"written and that the collector loads (else exit 1, PROGRAM not run), and warns\n"
	"when this machine has no CUDA driver (libcuda.so.1): PROGRAM then runs as usual,\n"
	"without the collector. When no trace is written, the last line says why:\n"
	"  no CUDA driver                     install the NVIDIA driver, or record on a\n"
	"                                     machine with a GPU\n"
	"  the collector was loaded but       its reason follows (a GPU not visible, a\n"
	"  disabled                           driver CUPTI cannot use, another profiler)\n"
	"  the collector was loaded but       PROGRAM initialised CUDA and did nothing\n"
	"  nothing was recorded               more, or was killed before the first flush\n"
	"  'PROGRAM' links CUDA, but the      a process cleared or replaced\n"
	"  CUDA driver never loaded the       CUDA_INJECTION64_PATH, or no CUDA call\n"
	"  collector                          was made\n"
	"  'PROGRAM' made no CUDA calls       nothing to record\n"
	"\n"
	"options:\n"
	"  -o, --output OUT  trace file name; %p is the process id, %h the host name, %%\n"
	"                    a '%' (default: gpuscope-%h-%p.gscope in the current\n"
	"                    directory). Without %p only the first process that uses\n"
	"                    CUDA records. Never a symbolic link; with %p a name that\n"
	"                    is taken gets .1, .2, ... after the pid. Its directory\n"
	"                    must exist (%p only in the file name)\n"
	"  --force           without %p: replace OUT if it exists, a regular file only\n"
	"                    (default: refuse). It is kept until the run writes a new\n"
	"                    trace, and put back if none is written\n"
	"  --data-deps       also record the pointers copies, memsets and kernels are\n"
	"                    called with, to link ops to allocations (more overhead;\n"
	"                    default: off)\n"
	"  --flush-ms N      write what was collected every N ms (default: 200): a\n"
	"                    crash or SIGKILL loses at most the last interval\n"
	"  -h, --help        show this help\n"
	"\n"
	"The collector is found through GPUSCOPE_COLLECTOR, else next to gpuscope.\n"
	"Other GPUSCOPE_* variables (docs/collector.md, man gpuscope) pass through to\n"
	"the collector.\n"
	"Only one CUPTI client can attach to a process: not under Nsight Systems or an\n"
	"active PyTorch profiler.\n"
	"\n"
	"example:\n"
	"  gpuscope record -- ./my_app --steps 10\n"
	"  gpuscope record -o run-%p.gscope --data-deps -- python train.py\n";

struct record_opts {
	const char *output;
	bool force;
	bool data_deps;
	long flush_ms; /* 0: the collector's default */
	char **argv;   /* PROGRAM ARGS... (NULL-terminated) */
};

static int record_parse(int argc, char **argv, struct record_opts *o, bool *help)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"force", no_argument, NULL, 'F'},
		{"data-deps", no_argument, NULL, 'd'},
		{"flush-ms", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	char *end;
	int c;

	opterr = 0;
	/* '+': stop at PROGRAM, its own options are its own. */
	while ((c = getopt_long(argc, argv, "+:ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->output = optarg;
			break;
		case 'F':
			o->force = true;
			break;
		case 'd':
			o->data_deps = true;
			break;
		case 'f':
			errno = 0;
			o->flush_ms = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || o->flush_ms < 1 ||
			    o->flush_ms > 3600000)
				return gs_cli_usage_error(
					&record_usage,
					"--flush-ms needs a number of "
					"milliseconds from 1 to 3600000 (got '%s')",
					optarg);
			break;
		case 'h':
			*help = true;
			return GS_EXIT_OK;
		default:
			return gs_cli_bad_option(&record_usage, argv, c);
		}
	}
	if (optind >= argc)
		return gs_cli_usage_error(&record_usage, "no PROGRAM given (put it after --)");
	o->argv = argv + optind;
	return GS_EXIT_OK;
}

/* ---- paths ---- */

static bool record_is_file(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* The directory of this executable, "" when unknown. */
static void record_exe_dir(char *dir, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", dir, size - 1);
	char *slash;

	if (n <= 0) {
		dir[0] = '\0';
		return;
	}
	dir[n] = '\0';
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		dir[0] = '\0';
}

static int record_find_collector(char *out, size_t size)
{
	const char *env = getenv("GPUSCOPE_COLLECTOR");
	static const char *const rel[] = {
#ifdef GS_COLLECTOR_LIBDIR
		"../" GS_COLLECTOR_LIBDIR,
#endif
		"../lib",
		"../lib64",
		"../collector",
	};
	static const char *const fixed[] = {
#ifdef GS_COLLECTOR_BUILD_PATH
		GS_COLLECTOR_BUILD_PATH,
#endif
#ifdef GS_COLLECTOR_INSTALL_PATH
		GS_COLLECTOR_INSTALL_PATH,
#endif
		"",
	};
	char dir[RECORD_PATH_MAX], cand[RECORD_PATH_MAX + 64];

	if (env && *env) {
		if (!record_is_file(env) || !realpath(env, out)) {
			gs_cli_error("record: GPUSCOPE_COLLECTOR=%s: no such file", env);
			return GS_EXIT_FAIL;
		}
		return GS_EXIT_OK;
	}
	record_exe_dir(dir, sizeof(dir));
	for (size_t i = 0; dir[0] && i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(cand, sizeof(cand), "%s/%s/%s", dir, rel[i], RECORD_COLLECTOR_NAME);
		if (record_is_file(cand) && realpath(cand, out))
			return GS_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		if (fixed[i][0] && record_is_file(fixed[i]) && realpath(fixed[i], out))
			return GS_EXIT_OK;
	}
	(void)size;
#ifdef GS_COLLECTOR_BUILD_PATH
	gs_cli_error("record: cannot find %s (looked next to gpuscope and in %s); set "
		     "GPUSCOPE_COLLECTOR to its path",
		     RECORD_COLLECTOR_NAME, GS_COLLECTOR_BUILD_PATH);
#else
	gs_cli_error("record: this gpuscope was built without the CUPTI collector (the CUDA "
		     "toolkit with CUPTI was not found when it was configured); build it where "
		     "CUDA is installed, or set GPUSCOPE_COLLECTOR to a %s",
		     RECORD_COLLECTOR_NAME);
#endif
	return GS_EXIT_FAIL;
}

/* The host name as the collector writes it ('/' -> '_'). */
static void record_host(char *buf, size_t size)
{
	if (gethostname(buf, size) != 0 || !buf[0])
		snprintf(buf, size, "localhost");
	buf[size - 1] = '\0';
	for (char *p = buf; *p; p++)
		if (*p == '/')
			*p = '_';
}

/* Check the pattern and make it absolute. */
static int record_output(const char *pattern, char *out, size_t size, bool *has_pid)
{
	char cwd[RECORD_PATH_MAX];
	int n;

	*has_pid = false;
	for (const char *p = pattern; *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] == 'p')
			*has_pid = true;
		else if (p[1] != 'h' && p[1] != '%')
			return gs_cli_usage_error(&record_usage,
						  "-o: unknown '%%%c' in '%s' (%%p pid, %%h host, "
						  "%%%% a '%%')",
						  p[1] ? p[1] : ' ', pattern);
		p++;
	}
	if (!*pattern || pattern[strlen(pattern) - 1] == '/')
		return gs_cli_usage_error(&record_usage, "-o needs a file name (got '%s')",
					  pattern);
	if (pattern[0] == '/') {
		n = snprintf(out, size, "%s", pattern);
	} else {
		if (!getcwd(cwd, sizeof(cwd))) {
			gs_cli_error("record: cannot get the current directory: %s",
				     strerror(errno));
			return GS_EXIT_FAIL;
		}
		n = snprintf(out, size, "%s/%s", cwd, pattern);
	}
	if (n < 0 || (size_t)n >= size) {
		gs_cli_error("record: output path too long");
		return GS_EXIT_FAIL;
	}
	return GS_EXIT_OK;
}

/* The pattern as a glob(3) pattern: %p -> *, %h -> host, literals escaped. */
static void record_glob_pattern(const char *pattern, const char *host, char *out, size_t size)
{
	size_t n = 0;

	for (const char *p = pattern; *p && n + 2 < size; p++) {
		if (*p == '%' && p[1] == 'p') {
			out[n++] = '*';
			p++;
		} else if (*p == '%' && p[1] == 'h') {
			for (const char *h = host; *h && n + 2 < size; h++) {
				if (strchr("*?[]\\", *h))
					out[n++] = '\\';
				out[n++] = *h;
			}
			p++;
		} else {
			if (*p == '%' && p[1] == '%')
				p++;
			if (strchr("*?[]\\", *p))
				out[n++] = '\\';
			out[n++] = *p;
		}
	}
	out[n] = '\0';
}

/* A pattern without %p as the file name the collector writes: %h and %%. */
static int record_expand(const char *pattern, const char *host, char *out, size_t size)
{
	size_t n = 0;

	for (const char *p = pattern; *p; p++) {
		const char *add = p;
		size_t len = 1;

		if (*p == '%' && p[1] == 'h') {
			add = host;
			len = strlen(host);
			p++;
		} else if (*p == '%' && p[1] == '%') {
			p++;
		}
		if (n + len >= size) {
			gs_cli_error("record: output path too long");
			return GS_EXIT_FAIL;
		}
		memcpy(out + n, add, len);
		n += len;
	}
	out[n] = '\0';
	return GS_EXIT_OK;
}

/*
 * The directory of the (absolute) output pattern must exist and be
 * writable before PROGRAM starts: the collector creates no directory, and
 * would only say so from inside the program. For the same reason a %p in
 * the directory's name (a directory per process) is a usage error.
 */
static int record_check_dir(const char *output, const char *host)
{
	char dir[RECORD_PATH_MAX], shown[RECORD_PATH_MAX];
	const char *slash = strrchr(output, '/');
	struct stat sb;
	size_t n = slash ? (size_t)(slash - output) : 0;

	if (n == 0) /* "/x.gscope": the root */
		n = 1;
	if (n >= sizeof(dir))
		return GS_EXIT_OK;
	memcpy(dir, output, n);
	dir[n] = '\0';
	for (const char *p = dir; *p; p++) {
		if (*p == '%' && p[1] == 'p')
			return gs_cli_usage_error(&record_usage,
						  "-o: %%p in the directory of '%s': the collector "
						  "creates no directory (put %%p in the file name)",
						  output);
		if (*p == '%' && p[1])
			p++;
	}
	if (record_expand(dir, host, shown, sizeof(shown)) != GS_EXIT_OK)
		return GS_EXIT_FAIL;
	if (stat(shown, &sb) != 0) {
		if (errno == ENOENT)
			gs_cli_error("record: cannot write traces in %s: no such directory", shown);
		else if (errno == ENOTDIR)
			gs_cli_error("record: cannot write traces in %s: not a directory", shown);
		else
			gs_cli_error("record: cannot write traces in %s: %s", shown,
				     strerror(errno));
		return GS_EXIT_FAIL;
	}
	if (!S_ISDIR(sb.st_mode)) {
		gs_cli_error("record: cannot write traces in %s: not a directory", shown);
		return GS_EXIT_FAIL;
	}
	if (access(shown, W_OK | X_OK) != 0) {
		gs_cli_error("record: cannot write traces in %s: %s", shown, strerror(errno));
		return GS_EXIT_FAIL;
	}
	return GS_EXIT_OK;
}

/*
 * With --force, an existing OUT is moved aside (renamed to a hidden name
 * beside it) for the run, then removed once a new trace is there, or put
 * back when none was written: a failed run leaves OUT as it was.
 */
struct record_aside {
	char path[RECORD_PATH_MAX + 256];
	bool live;
};

/*
 * The output policy (cli.h) before the run, for a name without %p (with
 * %p the collector never reuses a name): never PROGRAM or the collector,
 * never a symbolic link, an existing file only with --force and a regular
 * one. The collector opens the file itself, O_EXCL | O_NOFOLLOW.
 */
static int record_check_output(const struct record_opts *o, const char *file, const char *collector,
			       struct record_aside *aside)
{
	const char *inputs[2] = {collector, strchr(o->argv[0], '/') ? o->argv[0] : NULL};
	const char *slash = strrchr(file, '/');
	const char *base = slash ? slash + 1 : file;
	int dirlen = slash ? (int)(slash - file) + 1 : 0;
	struct stat sb;
	int n, fd;

	if (gs_cli_output_check(file, o->force, inputs, 2) != GS_EXIT_OK)
		return GS_EXIT_FAIL;
	if (lstat(file, &sb) != 0) /* nothing to replace */
		return GS_EXIT_OK;
	n = snprintf(aside->path, sizeof(aside->path), "%.*s.%.200s.old-XXXXXX", dirlen, file,
		     base);
	if (n < 0 || (size_t)n >= sizeof(aside->path)) {
		gs_cli_error("%s: path too long", file);
		return GS_EXIT_FAIL;
	}
	fd = mkstemp(aside->path); /* a unique name, replaced by the rename */
	if (fd < 0 || close(fd) != 0 || rename(file, aside->path) != 0) {
		gs_cli_error("%s: cannot replace: %s", file, strerror(errno));
		if (fd >= 0)
			unlink(aside->path);
		return GS_EXIT_FAIL;
	}
	aside->live = true;
	return GS_EXIT_OK;
}

/* After the run: drop the old OUT if a new trace is there, else put it back. */
static void record_aside_end(const char *file, struct record_aside *aside)
{
	struct stat sb;

	if (!aside->live)
		return;
	aside->live = false;
	if (lstat(file, &sb) == 0 && S_ISREG(sb.st_mode)) {
		unlink(aside->path);
		return;
	}
	/* link(): never over a name that something else took meanwhile. */
	if (link(aside->path, file) == 0) {
		unlink(aside->path);
		return;
	}
	gs_cli_warning("record: %s: cannot put back the file it replaced (%s): it is kept as %s",
		       file, strerror(errno), aside->path);
}

static bool record_in(const glob_t *g, const char *path)
{
	for (size_t i = 0; i < g->gl_pathc; i++)
		if (!strcmp(g->gl_pathv[i], path))
			return true;
	return false;
}

/* ---- before and after the run: the collector, the driver, the status file ---- */

struct record_probe {
	bool driver;     /* the CUDA driver can be loaded */
	char error[768]; /* why the collector cannot be loaded ("" when it can) */
};

static const char *record_driver_name(void)
{
	const char *v = getenv("GPUSCOPE_TEST_DRIVER_NAME");

	return v && *v ? v : RECORD_DRIVER;
}

/*
 * In a child, so that neither the collector, CUPTI nor the driver is ever
 * loaded into gpuscope: load the collector with CUDA_INJECTION64_PATH
 * naming it, as the driver would (its constructor then leaves setup to
 * InitializeInjection, which is not called: it does nothing), then look
 * for the driver. GS_EXIT_OK, or GS_EXIT_FAIL with the error said.
 */
static int record_probe(const char *collector, struct record_probe *p)
{
	struct record_probe got;
	size_t have = 0;
	int fds[2], st;
	pid_t pid;

	memset(p, 0, sizeof(*p));
	if (pipe(fds) != 0) {
		gs_cli_error("record: cannot check the collector: %s", strerror(errno));
		return GS_EXIT_FAIL;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		gs_cli_error("record: cannot check the collector: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return GS_EXIT_FAIL;
	}
	if (pid == 0) {
		const char *e;
		ssize_t k;

		close(fds[0]);
		memset(&got, 0, sizeof(got));
		setenv("CUDA_INJECTION64_PATH", collector, 1);
		if (!dlopen(collector, RTLD_NOW | RTLD_LOCAL)) {
			e = dlerror();
			snprintf(got.error, sizeof(got.error), "%s", e ? e : "unknown error");
		}
		got.driver = dlopen(record_driver_name(), RTLD_LAZY | RTLD_LOCAL) != NULL;
		k = write(fds[1], &got, sizeof(got));
		_exit(k == (ssize_t)sizeof(got) ? 0 : 1);
	}
	close(fds[1]);
	while (have < sizeof(got)) {
		ssize_t k = read(fds[0], (char *)&got + have, sizeof(got) - have);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		have += (size_t)k;
	}
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (have != sizeof(got)) {
		if (WIFSIGNALED(st))
			gs_cli_error(
				"record: loading the collector %s killed the process that tried "
				"(signal %d, %s)",
				collector, WTERMSIG(st), strsignal(WTERMSIG(st)));
		else
			gs_cli_error("record: cannot check the collector %s", collector);
		return GS_EXIT_FAIL;
	}
	got.error[sizeof(got.error) - 1] = '\0';
	if (got.error[0]) {
		gs_cli_error("record: cannot load the collector: %s", got.error);
		return GS_EXIT_FAIL;
	}
	*p = got;
	return GS_EXIT_OK;
}

/* The collector's status file, in a directory of record's own. */
struct record_status {
	char dir[RECORD_PATH_MAX];
	char file[RECORD_PATH_MAX + 16];
	bool live;
};

/* Without it (no temporary directory) the run goes on: record says less. */
static void record_status_open(struct record_status *st)
{
	const char *tmp = getenv("TMPDIR");
	int n, fd;

	st->live = false;
	n = snprintf(st->dir, sizeof(st->dir), "%s/gpuscope-record-XXXXXX",
		     tmp && tmp[0] == '/' ? tmp : "/tmp");
	if (n < 0 || (size_t)n >= sizeof(st->dir) || !mkdtemp(st->dir))
		return;
	snprintf(st->file, sizeof(st->file), "%s/status", st->dir);
	fd = open(st->file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		rmdir(st->dir);
		return;
	}
	close(fd);
	st->live = true;
}

static void record_status_close(struct record_status *st)
{
	if (!st->live)
		return;
	unlink(st->file);
	rmdir(st->dir);
	st->live = false;
}

/* What the processes of the run said. */
struct record_events {
	unsigned loaded, disabled;
	long disabled_pid; /* the first to be disabled */
	char reason[1024]; /* its reason */
};

/* Read the status file; each "wrote PID PATH" not yet listed (a process
 * that changed GPUSCOPE_OUTPUT) is listed. True when one was. */
static bool record_status_read(const struct record_status *st, const glob_t *listed,
			       struct record_events *ev)
{
	static char text[1 << 20];
	bool more = false;
	size_t n = 0;
	char *line, *save = NULL;
	FILE *f;

	memset(ev, 0, sizeof(*ev));
	f = st->live ? fopen(st->file, "r") : NULL;
	if (!f)
		return false;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *end;
		long pid;

		if (!strncmp(line, "loaded ", 7)) {
			ev->loaded++;
		} else if (!strncmp(line, "disabled ", 9)) {
			pid = strtol(line + 9, &end, 10);
			if (*end == ' ' && ev->disabled++ == 0) {
				ev->disabled_pid = pid;
				snprintf(ev->reason, sizeof(ev->reason), "%s", end + 1);
			}
		} else if (!strncmp(line, "wrote ", 6)) {
			struct stat sb;

			strtol(line + 6, &end, 10);
			if (*end != ' ' || record_in(listed, end + 1) || lstat(end + 1, &sb) != 0 ||
			    !S_ISREG(sb.st_mode))
				continue;
			fprintf(stderr, "gpuscope: record: trace written: %s (%lld bytes)\n",
				end + 1, (long long)sb.st_size);
			more = true;
		}
	}
	return more;
}

/* PROGRAM as execvp(3) finds it: "" when it does not. */
static void record_which(const char *name, char *out, size_t size)
{
	const char *path = getenv("PATH");

	out[0] = '\0';
	if (strchr(name, '/')) {
		snprintf(out, size, "%s", name);
		return;
	}
	if (!path)
		path = "/bin:/usr/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);
		int n = snprintf(out, size, "%.*s%s%s", (int)len, path, len ? "/" : "", name);

		if (n > 0 && (size_t)n < size && record_is_file(out) && access(out, X_OK) == 0)
			return;
		path += len + (colon ? 1 : 0);
	}
	out[0] = '\0';
}

/* True when PROGRAM's ELF file links CUDA: the CUDA runtime or driver
 * among its libraries, or CUDA device code (nvcc links the runtime in). */
static bool record_links_cuda(const char *name)
{
	char path[RECORD_PATH_MAX];
	struct gs_elf_cuda e;
	bool yes;
	int fd;

	record_which(name, path, sizeof(path));
	if (!path[0] || !record_is_file(path))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	yes = gs_elf_cuda_scan(fd, &e) == 0 && (e.fatbin || e.links_cuda);
	close(fd);
	return yes;
}

/* Why no trace was written, on one line. */
static void record_why_none(const char *prog, bool driver, const struct record_status *st,
			    const struct record_events *ev)
{
	const char *p = "gpuscope: record: no trace written: ";

	if (!driver)
		fprintf(stderr, "%sno CUDA driver (see the warning above)\n", p);
	else if (!st->live)
		fprintf(stderr,
			"%s'%s' made no CUDA calls, or the collector was disabled (see its message "
			"above)\n",
			p, prog);
	else if (ev->disabled > 1)
		fprintf(stderr,
			"%sthe collector was loaded but disabled (pid %ld, and %u more processes): "
			"%s\n",
			p, ev->disabled_pid, ev->disabled - 1, ev->reason);
	else if (ev->disabled)
		fprintf(stderr, "%sthe collector was loaded but disabled (pid %ld): %s\n", p,
			ev->disabled_pid, ev->reason);
	else if (ev->loaded)
		fprintf(stderr,
			"%sthe collector was loaded but nothing was recorded: '%s' made no CUDA call "
			"after initialising CUDA, or was killed before its first flush\n",
			p, prog);
	else if (record_links_cuda(prog))
		fprintf(stderr,
			"%s'%s' links CUDA, but the CUDA driver never loaded the collector: it made no "
			"CUDA call, or CUDA_INJECTION64_PATH was cleared or replaced before it did\n",
			p, prog);
	else
		fprintf(stderr,
			"%s'%s' made no CUDA calls (the CUDA driver never loaded the collector)\n",
			p, prog);
}

/* ---- running the program ---- */

static volatile sig_atomic_t record_child;

/* Pass on what was sent to gpuscope itself (a terminal's ^C reaches the
 * whole process group already: the program gets it on its own). */
static void record_forward(int sig, siginfo_t *info, void *uctx)
{
	(void)uctx;
	if (record_child > 0 && info && info->si_code <= 0)
		kill((pid_t)record_child, sig);
}

static const int record_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define RECORD_NSIGNALS (sizeof(record_signals) / sizeof(record_signals[0]))

static void record_signals_set(struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = record_forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < RECORD_NSIGNALS; i++) {
		sigaction(record_signals[i], NULL, &old[i]);
		if (old[i].sa_handler != SIG_IGN)
			sigaction(record_signals[i], &sa, NULL);
	}
}

static void record_signals_restore(const struct sigaction *old)
{
	for (size_t i = 0; i < RECORD_NSIGNALS; i++)
		sigaction(record_signals[i], &old[i], NULL);
}

/* Fork and exec; -1 with the exec errno in *err when PROGRAM did not start. */
static pid_t record_spawn(char **argv, const sigset_t *mask, int *err)
{
	int fds[2];
	pid_t pid;
	ssize_t n;
	int e = 0;

	*err = 0;
	if (pipe(fds) != 0) {
		*err = errno;
		return -1;
	}
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		*err = errno;
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		/* A signal already pending here (one sent to the whole process
		 * group) is the program's: it acts as it would on the program,
		 * not through record's forwarding, which has no child here. */
		for (size_t i = 0; i < RECORD_NSIGNALS; i++) {
			struct sigaction now;

			if (sigaction(record_signals[i], NULL, &now) == 0 &&
			    now.sa_sigaction == record_forward)
				signal(record_signals[i], SIG_DFL);
		}
		sigprocmask(SIG_SETMASK, mask, NULL);
		execvp(argv[0], argv);
		e = errno;
		if (write(fds[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	record_child = pid;
	close(fds[1]);
	do {
		n = read(fds[0], &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(fds[0]);
	if (n == (ssize_t)sizeof(e)) {
		int st;

		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		record_child = 0;
		*err = e;
		return -1;
	}
	return pid;
}

static int record_run(const struct record_opts *o)
{
	char collector[RECORD_PATH_MAX], output[RECORD_PATH_MAX], host[256];
	char gpattern[2 * RECORD_PATH_MAX], num[32], file[RECORD_PATH_MAX] = "";
	struct record_aside aside = {.live = false};
	struct record_status sfile = {.live = false};
	struct record_probe probe;
	struct record_events ev;
	struct sigaction old[RECORD_NSIGNALS];
	sigset_t block, mask;
	glob_t before = {0}, after = {0};
	bool has_pid, listed = false;
	const char *injection = getenv("CUDA_INJECTION64_PATH");
	int rc, err, status, code;
	pid_t pid;

	if (!o->argv || !o->argv[0]) { /* record_parse made sure there is one */
		gs_cli_error("record: no program to run");
		return GS_EXIT_USAGE;
	}
	rc = record_output(o->output ? o->output : RECORD_DEFAULT_OUTPUT, output, sizeof(output),
			   &has_pid);
	if (rc)
		return rc;
	record_host(host, sizeof(host));
	rc = record_check_dir(output, host);
	if (rc)
		return rc;
	rc = record_find_collector(collector, sizeof(collector));
	if (rc)
		return rc;
	rc = record_probe(collector, &probe);
	if (rc)
		return rc;
	if (!has_pid) {
		rc = record_expand(output, host, file, sizeof(file));
		if (rc == GS_EXIT_OK)
			rc = record_check_output(o, file, collector, &aside);
		if (rc != GS_EXIT_OK)
			return rc;
	}
	record_glob_pattern(output, host, gpattern, sizeof(gpattern));
	glob(gpattern, 0, NULL, &before);
	if (!probe.driver)
		gs_cli_warning("record: " RECORD_NO_DRIVER ": '%s' runs without the collector, no "
			       "trace will be written",
			       o->argv[0]);
	/* From the status directory on, a signal waits until there is a
	 * program to pass it to: one that came between its creation and the
	 * fork would end gpuscope (leaving the directory) or go to no one
	 * (leaving the program running). */
	sigemptyset(&block);
	for (size_t i = 0; i < RECORD_NSIGNALS; i++)
		sigaddset(&block, record_signals[i]);
	sigprocmask(SIG_BLOCK, &block, &mask);
	record_status_open(&sfile);
	if (sfile.live)
		setenv("GPUSCOPE_STATUS_FILE", sfile.file, 1);
	else
		unsetenv("GPUSCOPE_STATUS_FILE");

	if (injection && strcmp(injection, collector) != 0)
		gs_cli_warning("record: replacing CUDA_INJECTION64_PATH=%s", injection);
	setenv("CUDA_INJECTION64_PATH", collector, 1);
	setenv("GPUSCOPE_OUTPUT", output, 1);
	if (o->data_deps)
		setenv("GPUSCOPE_DATA_DEPS", "1", 1);
	if (o->flush_ms) {
		snprintf(num, sizeof(num), "%ld", o->flush_ms);
		setenv("GPUSCOPE_FLUSH_MS", num, 1);
	}
	/* NVTX_INJECTION64_PATH is the collector's to set: to the CUPTI it is
	 * bound to in the program (PyTorch's own, say), not this machine's. */

	record_signals_set(old);
	pid = record_spawn(o->argv, &mask, &err);
	if (pid < 0) {
		record_signals_restore(old);
		record_status_close(&sfile);
		globfree(&before);
		record_aside_end(file, &aside);
		gs_cli_error("record: cannot run '%s': %s", o->argv[0], strerror(err));
		sigprocmask(SIG_SETMASK, &mask, NULL);
		return err == ENOENT ? 127 : 126;
	}
	sigprocmask(SIG_SETMASK, &mask, NULL);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			gs_cli_error("record: waiting for '%s': %s", o->argv[0], strerror(errno));
			status = 0;
			break;
		}
	}
	/* Until record has cleaned up, a signal for record itself (a second
	 * one sent to the process group, say) waits: it then acts as it
	 * would have, with nothing left behind. */
	sigprocmask(SIG_BLOCK, &block, NULL);
	record_child = 0;
	record_signals_restore(old);

	if (WIFSIGNALED(status)) {
		code = 128 + WTERMSIG(status);
		fprintf(stderr, "gpuscope: record: '%s' was ended by signal %d (%s)\n", o->argv[0],
			WTERMSIG(status), strsignal(WTERMSIG(status)));
	} else {
		code = WIFEXITED(status) ? WEXITSTATUS(status) : GS_EXIT_FAIL;
	}
	if (glob(gpattern, 0, NULL, &after) == 0) {
		for (size_t i = 0; i < after.gl_pathc; i++) {
			struct stat sb;

			if (record_in(&before, after.gl_pathv[i]) ||
			    lstat(after.gl_pathv[i], &sb) != 0 || !S_ISREG(sb.st_mode))
				continue;
			fprintf(stderr, "gpuscope: record: trace written: %s (%lld bytes)\n",
				after.gl_pathv[i], (long long)sb.st_size);
			listed = true;
		}
	}
	if (record_status_read(&sfile, &after, &ev))
		listed = true;
	if (!listed)
		record_why_none(o->argv[0], probe.driver, &sfile, &ev);
	record_status_close(&sfile);
	record_aside_end(file, &aside); /* after the list: a file put back is not new */
	globfree(&before);
	globfree(&after);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	return code;
}

int gs_cmd_record(int argc, char **argv)
{
	struct record_opts o = {0};
	bool help = false;
	int rc = record_parse(argc, argv, &o, &help);

	if (rc != GS_EXIT_OK || help)
		return help ? gs_cli_help(record_help) : rc;
	return record_run(&o);
}
