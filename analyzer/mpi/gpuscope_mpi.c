/* SPDX-License-Identifier: MIT */
/*
 * gpuscope-mpi analyze: the job report of `gpuscope analyze` over many rank
 * files, each MPI process reading and analysing only its share of them.
 *
 * The phases, each ended by a collective so that a failure anywhere ends
 * every process with the same status (no hang):
 *   1. the inputs are shared out by file size (the root stats them and
 *      broadcasts the sizes; largest first to the least loaded process,
 *      ties to the lower input and the lower process), the same on all;
 *   2. each process loads its inputs and splits them into processes
 *      (gs_job_from_input); a few numbers of each (host, pid, declared rank,
 *      op span, warnings, status) are gathered on every process, and every
 *      process decides the job's identity with gs_job_identify, as
 *      gs_job_load does;
 *   3. each process builds the reports of its ranks (gs_report_build_job_own)
 *      and their job summaries (job_sum.h), sent to the root in rank order;
 *      the root reduces them into the job analysis;
 *   4. the root writes the report: its own parts, and each rank's sections
 *      as the bytes its process renders, received in rank order as they are
 *      written (MPI_Ssend: at most one section per process in flight).
 * Only summaries and rendered sections travel; no process holds another
 * rank's ops.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gpuscope/analyzer.h>
#include <gpuscope/gate.h>
#include <gpuscope/import.h>
#include <gpuscope/outfile.h>

#include "gate_priv.h"
#include "input_opts.h"
#include "job_sum.h"
#include "out.h"
#include "report_priv.h"

enum {
	TAG_SUM = 100,
	TAG_TEXT = 110,
	TAG_JSON = 120, /* + part */
	TAG_WHOLE = 130,
	TAG_HTML = 140,
	TAG_GATE = 150,
};

enum fmt {
	F_TEXT,
	F_JSON,
	F_HTML
};

/* The trace-input options gpuscope-mpi takes (input_opts.h): analyze's but
 * --rank, --device, --step and --step-marker; --window in ns only. */
#define MPI_INOPTS                                                                                 \
	(GS_INOPT_WINDOW_NS | GS_INOPT_ALIGN | GS_INOPT_SALVAGE | GS_INOPT_QUIET |                 \
	 GS_INOPT_INPUTS | GS_INOPT_INPUTS_NO_STDIN | GS_INOPT_OPERANDS)

struct opts {
	struct gs_input_opts io; /* --window, --align, --salvage, -q, --inputs, TRACE|DIR */
	enum fmt format;
	const char *output;
	bool force, keep_going, stats, color_always, color_never;
	size_t top;
	size_t ranks;  /* 0: the default; GS_REPORT_RANKS_ALL */
	size_t rows;   /* 0: the default */
	char *fail_if; /* every --fail-if, comma-separated (owned) */
};

static int me, np;
static uint64_t sent_to_root, summary_bytes;

static const char usage_line[] =
	"usage: mpirun -n P gpuscope-mpi analyze [--format text|json|html] [-o OUT|DIR/]\n"
	"                  [--force] [--window T0:T1] [--top N] [--ranks N|all] [--rows N|all]\n"
	"                  [--salvage] [--quiet] [--color=auto|always|never] [--keep-going]\n"
	"                  [--stats] [--align collectives|none] [--fail-if THRESHOLDS]\n"
	"                  [--inputs FILE] TRACE|DIR...\n";

static const char help_text[] =
	"\n"
	"The job report of `gpuscope analyze TRACE...` (the same text, JSON and HTML;\n"
	"the JSON adds options.mpi, {\"processes\": P}), made by P MPI processes: each\n"
	"reads and analyses only its share of the rank files (shared out by file size),\n"
	"and the root (MPI process 0) writes the report from the ranks' summaries and\n"
	"sections. A job of 10,000 ranks needs no machine that holds them all.\n"
	"\n"
	"options (as gpuscope analyze's, and):\n"
	"  --inputs FILE       read TRACE paths from FILE, one a line (as well as the\n"
	"                      TRACE arguments, which come first), as gpuscope analyze\n"
	"                      reads them: relative to the current directory; blanks\n"
	"                      around a path, empty lines and lines starting with #\n"
	"                      skipped; a line may name a directory\n"
	"  -o DIR/             with a trailing '/': DIR/job.EXT, the job report, and\n"
	"                      DIR/rank-NNNNN.EXT, each rank's own report (NNNNN its rank\n"
	"                      number, five digits or more), written by the process that\n"
	"                      analysed it; EXT is txt, json or html. Every path is\n"
	"                      checked as OUT is, all before any is written\n"
	"  --keep-going        a TRACE that cannot be read is reported (one error line,\n"
	"                      and a warning in the report) and the rest analysed; exit 0,\n"
	"                      or 1 when no TRACE could be read\n"
	"  --stats             per MPI process on stderr: inputs, ranks, bytes read, peak\n"
	"                      memory, bytes sent to the root, seconds\n"
	"  --fail-if THRESHOLDS\n"
	"                      the gate of a CI job, as gpuscope analyze's: exit status\n"
	"                      3 on every process when a GPU crosses a threshold\n"
	"                      (METRIC OP VALUE, comma-separated, e.g. 'efficiency<0.6,\n"
	"                      idle_share>30%'), one line per crossed threshold on\n"
	"                      stderr from the root, the report written all the same\n"
	"                      (JSON: its \"gate\" verdict). Repeatable\n"
	"  -h, --help          show this help\n"
	"\n"
	"A DIR stands for every trace in it, in name order, as for gpuscope analyze\n"
	"(regular files, not recursive; others skipped with one warning, hidden ones\n"
	"silently); the root reads the directories and the lists and shares the paths\n"
	"out. The same trace given twice is refused.\n"
	"-o OUT follows gpuscope's rules for output files (man gpuscope, OUTPUT FILES):\n"
	"never one of the inputs (nor a hard or symbolic link to one), never through a\n"
	"symbolic link, an existing regular file only with --force; written to a\n"
	"temporary file beside it (mode 0666 less the umask) and moved into place when\n"
	"complete, so that a failure or a signal leaves no partial file. The root checks\n"
	"OUT (or DIR/job.EXT) before reading any TRACE.\n"
	"--rank and --device are not taken: analyse that rank's file with gpuscope\n"
	"analyze; nor are --step, --step-marker, --op-level and --graph-node-ns: their\n"
	"defaults apply. --window takes ns (T0:T1, or +T0:+T1 from the first op).\n"
	"Standard input is neither a TRACE nor the --inputs list. Exit status: 0, 1 (a\n"
	"failure, on every process), 2 (usage), 3 (a --fail-if threshold crossed, on\n"
	"every process).\n"
	"\n"
	"example:\n"
	"  mpirun -n 4 gpuscope-mpi analyze --format json -o job.json rank*.json.gz\n"
	"  srun -n 64 gpuscope-mpi analyze --inputs ranks.txt -o report/\n"
	"  mpirun -n 8 gpuscope-mpi analyze --format html -o job.html runs/\n"
	"  mpirun -n 4 gpuscope-mpi analyze --fail-if 'efficiency<0.6' -o job.txt runs/\n";

static void errorf(const char *fmt, ...) GS_PRINTF(1, 2);

static void errorf(const char *fmt, ...)
{
	va_list ap;
	char buf[4096];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "gpuscope-mpi: error: %s\n", buf);
	fflush(stderr);
}

/* The whole MPI job ends now (after the error line): this process's
 * temporary output files go first; the others' go with the SIGTERM that
 * mpirun sends them. */
static _Noreturn void abort_job(void)
{
	gs_outfile_remove_temps();
	MPI_Abort(MPI_COMM_WORLD, 1);
	abort();
}

/* Out of memory, or a failure after which the processes cannot agree:
 * the message, then the whole MPI job ends. */
static _Noreturn void die(const char *what)
{
	errorf("%s (MPI process %d)", what, me);
	abort_job();
}

static int vusage(const void *ctx, const char *fmt, va_list ap) GS_PRINTF(2, 0);

/* A usage error, from the root only; returns 2. `ctx` is unused (the
 * gs_input_opts_ui callback's). */
static int vusage(const void *ctx, const char *fmt, va_list ap)
{
	char buf[1024];

	(void)ctx;
	if (me != 0)
		return 2;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	fprintf(stderr, "gpuscope-mpi: error: %s\n%s", buf, usage_line);
	return 2;
}

static void usage_report(const char *fmt, ...) GS_PRINTF(1, 2);

static void usage_report(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vusage(NULL, fmt, ap);
	va_end(ap);
}

/* The usage error, as an expression worth 2: a macro, so that the static
 * analyzer sees that a usage error is never 0 (it does not look into
 * variadic functions), as gs_cli_usage_error. */
#define usage(...) (usage_report(__VA_ARGS__), 2)
/* The cause chain as one line. */
static const char *chain(gs_status st, char *buf, size_t size)
{
	if (gs_error_count() > 0)
		gs_error_format(buf, size);
	else
		snprintf(buf, size, "%s", gs_status_str(st));
	gs_error_clear();
	return buf;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- options ---- */

static int parse_args(int argc, char **argv, struct opts *o, bool *help)
{
	static const struct option own[] = {
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"force", no_argument, NULL, 'F'},
		{"top", required_argument, NULL, 't'},
		{"ranks", required_argument, NULL, 'K'}, /* N|all: a job's rank rows */
		{"rows", required_argument, NULL, 'R'},
		{"color", optional_argument, NULL, 'c'},
		{"colour", optional_argument, NULL, 'c'},
		{"keep-going", no_argument, NULL, 'k'},
		{"stats", no_argument, NULL, 'S'},
		{"fail-if", required_argument, NULL, 'G'},
		/* analyze's, refused: a rank's file is for gpuscope analyze */
		{"rank", required_argument, NULL, 'r'},
		{"device", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static const struct gs_input_opts_ui ui = {vusage, NULL};
	struct option longopts[32];
	int c, rc;

	if (argc < 2 || strcmp(argv[1], "analyze") != 0) {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			*help = true;
			return 0;
		}
		return usage("the one command is 'analyze'");
	}
	argc--;
	argv++;
	if (!gs_input_opts_table(MPI_INOPTS, own, longopts, sizeof(longopts) / sizeof(longopts[0])))
		die("option table too small");
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:q", longopts, NULL)) != -1) {
		const char *arg = optarg ? optarg : "";

		if (gs_input_opts_takes(MPI_INOPTS, c)) {
			rc = gs_input_opts_parse(&o->io, MPI_INOPTS, &ui, c, optarg);
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'f':
			if (!strcmp(arg, "json"))
				o->format = F_JSON;
			else if (!strcmp(arg, "html"))
				o->format = F_HTML;
			else if (!strcmp(arg, "text"))
				o->format = F_TEXT;
			else
				return usage("unknown format '%s' (text, json or html)", arg);
			break;
		case 'o':
			if (!*arg)
				return usage("-o wants a file name");
			o->output = arg;
			break;
		case 'F':
			o->force = true;
			break;
		case 't': {
			char *end;
			unsigned long v = strtoul(arg, &end, 10);

			if (*end || !*arg || v == 0 || v > 1000000)
				return usage("--top wants a count from 1, not '%s'", arg);
			o->top = v;
			break;
		}
		case 'K': {
			char *end;
			unsigned long v;

			if (strcmp(arg, "all") == 0) {
				o->ranks = GS_REPORT_RANKS_ALL;
				break;
			}
			v = strtoul(arg, &end, 10);
			if (*end || *arg < '0' || *arg > '9' || v == 0 || v > 1000000)
				return usage("--ranks wants a count from 1 or 'all', not '%s'",
					     arg);
			o->ranks = v;
			break;
		}
		case 'R': {
			char *end;
			unsigned long long v;

			if (strcmp(arg, "all") == 0) {
				o->rows = GS_REPORT_ROWS_ALL;
				break;
			}
			v = strtoull(arg, &end, 10);
			if (*end || *arg < '0' || *arg > '9' || v == 0 || v > 1000000000ULL)
				return usage("--rows wants a count from 1 or 'all', not '%s'", arg);
			o->rows = (size_t)v;
			break;
		}
		case 'k':
			o->keep_going = true;
			break;
		case 'S':
			o->stats = true;
			break;
		case 'c':
			if (!optarg || !strcmp(arg, "always"))
				o->color_always = true;
			else if (!strcmp(arg, "never"))
				o->color_never = true;
			else if (strcmp(arg, "auto") != 0)
				return usage("--color wants auto, always or never, not '%s'", arg);
			break;
		case 'G': {
			/* Every --fail-if, joined by commas, as gpuscope analyze
			 * joins them. */
			size_t have = o->fail_if ? strlen(o->fail_if) : 0;
			char *grown = realloc(o->fail_if, have + strlen(arg) + 2);

			if (!grown)
				die("out of memory");
			if (have)
				grown[have++] = ',';
			memcpy(grown + have, arg, strlen(arg) + 1);
			o->fail_if = grown;
			break;
		}
		case 'r':
		case 'd':
			return usage("--%s is not taken by gpuscope-mpi: analyse that rank's file "
				     "with gpuscope analyze",
				     c == 'r' ? "rank" : "device");
		case 'h':
			*help = true;
			return 0;
		case ':':
			return usage("option %s wants a value", argv[optind - 1]);
		default:
			return usage("unknown option %s", argv[optind - 1]);
		}
	}
	return gs_input_opts_finish(&o->io, MPI_INOPTS, &ui, argc, argv, optind);
}

/* ---- byte buffers and messages ---- */

struct buf {
	char *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *src, size_t n)
{
	if (b->len + n > b->cap) {
		size_t nc = b->cap ? b->cap : 4096;

		while (nc < b->len + n)
			nc *= 2;
		char *q = realloc(b->p, nc);
		if (!q) {
			die("out of memory");
		}
		b->p = q;
		b->cap = nc;
	}
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

static void put_u64(struct buf *b, uint64_t v)
{
	put(b, &v, sizeof(v));
}

static void put_str(struct buf *b, const char *s)
{
	put(b, s, strlen(s) + 1);
}

static uint64_t get_u64(const char **p)
{
	uint64_t v;

	memcpy(&v, *p, sizeof(v));
	*p += sizeof(v);
	return v;
}

static const char *get_str(const char **p)
{
	const char *s = *p;

	*p += strlen(s) + 1;
	return s;
}

/* Send bytes to the root (synchronously: the root takes them when it
 * writes them). */
static void send_root(const void *p, size_t len, int tag)
{
	if (len > INT32_MAX) {
		errorf("a section of %zu bytes is over what one message takes (MPI process %d)",
		       len, me);
		abort_job();
	}
	MPI_Ssend(p, (int)len, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
	sent_to_root += len;
}

static char *recv_from(int src, int tag, size_t *len)
{
	MPI_Status s;
	int n;
	char *p;

	MPI_Probe(src, tag, MPI_COMM_WORLD, &s);
	MPI_Get_count(&s, MPI_BYTE, &n);
	p = malloc(n ? (size_t)n : 1);
	if (!p) {
		die("out of memory");
	}
	MPI_Recv(p, n, MPI_BYTE, src, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	*len = (size_t)n;
	return p;
}

/* All processes agree: the largest status of any. */
static int agree(int st)
{
	int all = 0;

	MPI_Allreduce(&st, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	return all;
}

/* Append x to the vector v of n items (capacity *cap). */
/* The numbers of one process of an input in the identity summaries:
 * pid, declared, rank, world size, first, last, clock, offset, host from
 * the file name, capture (then its host). */
#define IDENT_U64S 10

#define PUSH(v, n, cap, x)                                                                         \
	do {                                                                                       \
		if ((n) == (cap)) {                                                                \
			size_t nc_ = (cap) ? (cap)*2 : 16;                                         \
			void *p_ = realloc((v), nc_ * sizeof(*(v)));                               \
			if (!p_) {                                                                 \
				die("out of memory");                                              \
			}                                                                          \
			(v) = p_;                                                                  \
			(cap) = nc_;                                                               \
		}                                                                                  \
		(v)[(n)++] = (x);                                                                  \
	} while (0)

/*
 * The TRACE arguments (each a trace or a directory of traces), then the
 * paths --inputs FILE lists: expanded as gpuscope expands them
 * (gs_input_list_*), once, at the root (one process reads the directories
 * and the first bytes of their entries, not all), the same trace given
 * twice refused; then every process gets the list.
 */
static int gather_paths(struct opts *o, char ***paths, size_t *n)
{
	struct gs_input_list l;
	uint64_t len = 0;
	char *buf = NULL, **p;
	size_t k = 0;
	int st = 0;

	gs_input_list_init(&l);
	if (me == 0) {
		char msg[GS_ERROR_MSG_MAX * 2];
		gs_status gst = GS_OK;

		gs_error_clear();
		for (size_t i = 0; i < o->io.n_operands && gst == GS_OK; i++)
			gst = gs_input_list_add(&l, o->io.operands[i]);
		if (gst == GS_OK && o->io.inputs_file)
			gst = gs_input_list_add_file(&l, o->io.inputs_file);
		if (gst == GS_OK)
			gst = gs_input_list_check_distinct(&l);
		if (gst != GS_OK) {
			errorf("%s", chain(gst, msg, sizeof(msg)));
			st = 1;
		}
		for (size_t i = 0; !st && !o->io.quiet && i < l.n_warnings; i++)
			fprintf(stderr, "gpuscope-mpi: warning: %s\n", l.warnings[i]);
		for (size_t i = 0; !st && i < l.n; i++)
			len += strlen(l.paths[i]) + 1;
		if (len > INT32_MAX) {
			errorf("the paths of %zu inputs are over 2 GiB", l.n);
			st = 1;
		}
		buf = malloc(len ? (size_t)len : 1);
		if (!buf)
			die("out of memory");
		for (size_t i = 0, at = 0; !st && i < l.n; i++) {
			size_t pl = strlen(l.paths[i]) + 1;

			memcpy(buf + at, l.paths[i], pl);
			at += pl;
		}
		gs_input_list_fini(&l);
	}
	if (agree(st)) {
		free(buf);
		return 1;
	}
	MPI_Bcast(&len, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	if (!buf) { /* not the root */
		buf = malloc(len ? (size_t)len : 1);
		if (!buf)
			die("out of memory");
	}
	MPI_Bcast(buf, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD);
	for (uint64_t i = 0; i < len; i++)
		k += buf[i] == '\0';
	p = calloc(k ? k : 1, sizeof(*p));
	if (!p)
		die("out of memory");
	for (size_t i = 0, at = 0; i < k; i++) {
		p[i] = strdup(buf + at);
		at += strlen(buf + at) + 1;
	}
	free(buf);
	*paths = p;
	*n = k;
	return 0;
}

/* ---- the share of each process ---- */

static void share_out(const uint64_t *size, size_t n, int *owner)
{
	size_t *order = malloc((n ? n : 1) * sizeof(*order));
	uint64_t *load = calloc((size_t)np, sizeof(*load));

	if (!order || !load) {
		die("out of memory");
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	/* Largest first, ties by input order: an insertion-free merge of
	 * qsort is not stable, so compare indices too. */
	for (size_t i = 1; i < n; i++) {
		size_t x = order[i], k = i;

		while (k > 0 && (size[order[k - 1]] < size[x] ||
				 (size[order[k - 1]] == size[x] && order[k - 1] > x))) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = x;
	}
	for (size_t i = 0; i < n; i++) {
		int best = 0;

		for (int p = 1; p < np; p++)
			if (load[p] < load[best])
				best = p;
		owner[order[i]] = best;
		load[best] += size[order[i]] + 1;
	}
	free(order);
	free(load);
}

/* ---- main ---- */

struct input {
	struct gs_job *job; /* its processes (gs_job_from_input); NULL when failed */
	int fmt;
};

struct state {
	struct opts o;
	char **paths;
	const char **names;
	size_t n;
	int *owner; /* per input */
	struct input *in;
	struct gs_job j;        /* the whole job; traces of this process's ranks only */
	int *rank_owner;        /* per rank of j */
	struct gs_report *mine; /* this process's ranks' reports */
	size_t *mine_at;        /* per rank of j: its index in mine->ranks, or SIZE_MAX */
	struct gs_report *shell;
	bool progress;
	struct gs_report_style style; /* the writers' --top and colour */
	/* HTML: the page's layout and each rank's first GPU on it, decided at
	 * the root from the summaries and broadcast. */
	struct gs_html_layout html;
	uint64_t *html_di0;
	/* Text: per rank, whether its sections are shown (the job's outliers'
	 * when its GPUs are many), decided at the root and broadcast. */
	unsigned char *text_shown;
	uint64_t bytes_read;
	size_t n_inputs_mine;
	/* The root's report: -o OUT, DIR/job.EXT or stdout, opened before the
	 * load as gpuscope analyze opens it (a refused OUT is known at once). */
	struct gs_outfile out;
	char out_path[4096];
	bool dir; /* -o DIR/ */
	/* --fail-if: the thresholds (every process), and at the root the
	 * verdict over every GPU of the job (owned by the shell's report in
	 * a job of several ranks, else by verdict_own). */
	struct gs_gate *gate;
	const struct gs_gate_verdict *verdict;
	struct gs_gate_verdict *verdict_own;
};

static void progress(struct state *s, const char *fmt, ...) GS_PRINTF(2, 3);

static void progress(struct state *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->progress)
		return;
	va_start(ap, fmt);
	fputs("\r\033[K", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
}

/* Phase 2: load this process's inputs; everyone gets everyone's identity
 * summaries. Returns 0, or 1 when an input failed and --keep-going is off
 * (every process returns the same). */
static int load_phase(struct state *s, char **all_out, int **counts_out, int **displs_out)
{
	/* Host ranges are kept, as gpuscope analyze keeps them: host-bound
	 * idle is attributed to them. */
	struct gs_load_options lo = {.reader_flags = s->o.io.salvage ? GS_READER_SALVAGE : 0,
				     .load_flags = s->n > 1 ? GS_LOAD_NAME_WARNINGS : 0};
	struct buf b = {0};
	int failed = 0, len, *counts, *displs, total = 0;
	uint64_t n_read = 0; /* inputs read, this process's, then the job's */
	char *all;
	size_t done = 0, n_mine = 0, at = 0;
	const char **mine = calloc(s->n ? s->n : 1, sizeof(*mine));
	struct gs_trace **pre = calloc(
		s->n ? s->n : 1, sizeof(*pre)); /* NOLINT(bugprone-sizeof-expression): pointers */
	enum gs_input_format *pre_fmt = calloc(s->n ? s->n : 1, sizeof(*pre_fmt));
	bool batch;

	if (!mine || !pre || !pre_fmt)
		die("out of memory");
	/* The share at once, on every CPU (as gpuscope analyze reads); after a
	 * failure, file by file, to report each and go on with the rest. */
	for (size_t i = 0; i < s->n; i++)
		if (s->owner[i] == me)
			mine[n_mine++] = s->paths[i];
	gs_error_clear();
	batch = n_mine &&
		gs_trace_load_each(mine, n_mine, &lo, pre, pre_fmt, &(size_t){0}) == GS_OK;
	gs_error_clear();
	for (size_t i = 0; i < s->n; i++) {
		struct gs_trace *t = NULL;
		enum gs_input_format fmt = 0;
		size_t fail = 0;
		gs_status st;
		char msg[GS_ERROR_MSG_MAX * 2] = "";

		if (s->owner[i] != me)
			continue;
		s->n_inputs_mine++;
		gs_error_clear();
		if (batch) {
			t = pre[at];
			fmt = pre_fmt[at];
			at++;
			st = GS_OK;
		} else {
			st = gs_trace_load_each((const char *const *)&s->paths[i], 1, &lo, &t, &fmt,
						&fail);
		}
		if (st == GS_OK)
			st = gs_job_from_input(t, i, s->names[i], &s->in[i].job);
		if (st != GS_OK) {
			char full[sizeof(msg)];
			size_t nl = strlen(s->names[i]);

			chain(st, full, sizeof(full));
			/* One line naming the file and this process. */
			snprintf(msg, sizeof(msg), "%s",
				 strncmp(full, s->names[i], nl) == 0 && full[nl] == ':' &&
						 full[nl + 1] == ' ' ?
					 full + nl + 2 :
					 full);
			errorf("%s (MPI process %d): %s", s->names[i], me, msg);
			failed = 1;
		} else {
			struct stat sb;

			n_read++;
			if (stat(s->paths[i], &sb) == 0)
				s->bytes_read += (uint64_t)sb.st_size;
		}
		s->in[i].fmt = (int)fmt;
		/* input, status, format, message, warnings, processes */
		put_u64(&b, i);
		put_u64(&b, st != GS_OK);
		put_u64(&b, (uint64_t)fmt);
		put_str(&b, msg);
		if (st == GS_OK) {
			const struct gs_job *jj = s->in[i].job;

			put_u64(&b, jj->n_warnings);
			for (size_t w = 0; w < jj->n_warnings; w++)
				put_str(&b, jj->warnings[w]);
			put_u64(&b, jj->n_ranks);
			for (size_t r = 0; r < jj->n_ranks; r++) {
				const struct gs_job_rank *k = &jj->ranks[r];

				put_u64(&b, (uint64_t)k->pid);
				put_u64(&b, k->rank_declared);
				put_u64(&b, k->rank);
				put_u64(&b, k->world_size);
				put_u64(&b, (uint64_t)k->first_ns);
				put_u64(&b, (uint64_t)k->last_ns);
				put_u64(&b, k->clock);
				put_u64(&b, (uint64_t)k->wall_offset_ns);
				put_u64(&b, k->host_from_name);
				put_u64(&b, k->capture);
				put_str(&b, k->host_name);
			}
		}
		done++;
		if (me == 0)
			progress(
				s,
				"gpuscope-mpi: loading: %zu of %zu files on process 0 (%zu in all)",
				done, s->n_inputs_mine, s->n);
	}
	free(mine);
	free(pre);
	free(pre_fmt);
	if (b.len > INT32_MAX) {
		errorf("identity summaries over 2 GiB (MPI process %d)", me);
		abort_job();
	}
	len = (int)b.len;
	counts = calloc((size_t)np, sizeof(*counts));
	displs = calloc((size_t)np, sizeof(*displs));
	if (!counts || !displs) {
		die("out of memory");
	}
	MPI_Allgather(&len, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
	for (int p = 0; p < np; p++) {
		displs[p] = total;
		total += counts[p];
	}
	all = malloc(total ? (size_t)total : 1);
	if (!all) {
		die("out of memory");
	}
	MPI_Allgatherv(b.p, len, MPI_BYTE, all, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
	free(b.p);
	*all_out = all;
	*counts_out = counts;
	*displs_out = displs;
	failed = agree(failed);
	MPI_Allreduce(MPI_IN_PLACE, &n_read, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	/* --keep-going goes on without what failed, not without everything. */
	if (failed && s->o.keep_going && n_read == 0) {
		if (me == 0)
			errorf("none of the %zu inputs could be read: nothing to analyse", s->n);
		return 1;
	}
	return failed && !s->o.keep_going ? 1 : 0;
}

/* The records of input i in the gathered bytes. */
struct rec {
	const char *at; /* its processes' part, after the warnings */
	bool failed;
	int fmt;
	const char *msg;
	size_t n_warnings;
	const char *warnings;
	size_t n_ranks;
};

/* Phase 2, continued: identity, the same on every process. */
static int identity_phase(struct state *s, const char *all, const int *counts, const int *displs)
{
	struct rec *rec = calloc(s->n ? s->n : 1, sizeof(*rec));
	struct gs_job_ident *ids = NULL;
	size_t n_ids = 0, cap_warn = 0, ids_cap = 0;
	/* The ids[] whose host came from a file name. */
	size_t *host_from_name = NULL, n_hfn = 0, hfn_cap = 0;
	struct gs_job_identity *id = NULL;
	size_t *ident_input = NULL;
	gs_status st;
	char msg[GS_ERROR_MSG_MAX * 2];

	ids = calloc(1, sizeof(*ids)); /* never NULL, even without processes */
	ids_cap = 1;
	if (!rec || !ids)
		die("out of memory");
	for (int p = 0; p < np; p++) {
		const char *q = all + displs[p], *end = q + counts[p];

		while (q < end) {
			size_t i = (size_t)get_u64(&q);
			struct rec *r = &rec[i];

			r->failed = get_u64(&q) != 0;
			r->fmt = (int)get_u64(&q);
			r->msg = get_str(&q);
			if (r->failed)
				continue;
			r->n_warnings = (size_t)get_u64(&q);
			r->warnings = q;
			for (size_t w = 0; w < r->n_warnings; w++)
				get_str(&q);
			r->n_ranks = (size_t)get_u64(&q);
			r->at = q;
			for (size_t k = 0; k < r->n_ranks; k++) {
				q += IDENT_U64S * sizeof(uint64_t);
				get_str(&q);
			}
		}
	}
	/* The job's warnings: each input's (or its failure), in input order,
	 * then identity's. */
	for (size_t i = 0; i < s->n; i++) {
		const struct rec *r = &rec[i];
		const char *q = r->warnings;
		char line[GS_ERROR_MSG_MAX * 3];

		if (r->failed) {
			snprintf(line, sizeof(line),
				 "%s (MPI process %d) could not be read: %s; it is "
				 "left out of the analysis",
				 s->names[i], s->owner[i], r->msg);
			PUSH(s->j.warnings, s->j.n_warnings, cap_warn, strdup(line));
			continue;
		}
		for (size_t w = 0; w < r->n_warnings; w++)
			PUSH(s->j.warnings, s->j.n_warnings, cap_warn, strdup(get_str(&q)));
		q = r->at;
		for (size_t k = 0; k < r->n_ranks; k++) {
			struct gs_job_ident x = {.input = i};

			x.pid = (int64_t)get_u64(&q);
			x.rank_declared = get_u64(&q) != 0;
			x.rank = (uint32_t)get_u64(&q);
			x.world_size = (uint32_t)get_u64(&q);
			x.first_ns = (int64_t)get_u64(&q);
			x.last_ns = (int64_t)get_u64(&q);
			x.clock = (uint8_t)get_u64(&q);
			x.wall_offset_ns = (int64_t)get_u64(&q);
			if (get_u64(&q))
				PUSH(host_from_name, n_hfn, hfn_cap, n_ids);
			x.capture = (uint32_t)get_u64(&q);
			x.host = get_str(&q);
			PUSH(ids, n_ids, ids_cap, x);
		}
	}
	/* The input format: one name, or "mixed" (failed inputs left out). */
	{
		int f0 = -1;
		bool mixed = false;

		for (size_t i = 0; i < s->n; i++) {
			if (rec[i].failed)
				continue;
			if (f0 < 0)
				f0 = rec[i].fmt;
			else if (rec[i].fmt != f0)
				mixed = true;
		}
		s->in[0].fmt = mixed ? -2 : f0;
	}
	st = gs_job_identify(ids, n_ids, s->names, &id);
	if (st != GS_OK) {
		if (me == 0)
			errorf("%s", chain(st, msg, sizeof(msg)));
		free(rec);
		free(ids);
		free(host_from_name);
		return 1;
	}
	/* Processes split over inputs of two MPI processes cannot be joined. */
	for (size_t i = 0; i < id->n_ranks; i++) {
		const struct gs_job_id_rank *r = &id->ranks[i];

		for (size_t k = 1; k < r->n_idents; k++) {
			size_t a = ids[r->idents[0]].input, b = ids[r->idents[k]].input;

			if (me == 0)
				errorf("%s and %s are one process (host %s, pid %" PRId64
				       ", overlapping times; read by MPI processes %d and %d): "
				       "gpuscope-mpi does not join one process split over two "
				       "inputs; analyse this job with gpuscope analyze, or give "
				       "each process's records in one input",
				       s->names[a], s->names[b], ids[r->idents[0]].host,
				       ids[r->idents[0]].pid, s->owner[a], s->owner[b]);
			gs_job_identity_destroy(id);
			free(rec);
			free(ids);
			free(host_from_name);
			return 1;
		}
	}
	for (size_t w = 0; w < id->n_warnings; w++)
		PUSH(s->j.warnings, s->j.n_warnings, cap_warn, strdup(id->warnings[w]));
	/* The whole job: every rank, with the traces of this process's own. */
	s->j.ranks = calloc(id->n_ranks ? id->n_ranks : 1, sizeof(*s->j.ranks));
	s->rank_owner = calloc(id->n_ranks ? id->n_ranks : 1, sizeof(*s->rank_owner));
	ident_input = calloc(n_ids ? n_ids : 1, sizeof(*ident_input));
	if (!s->j.ranks || !s->rank_owner || !ident_input) {
		die("out of memory");
	}
	s->j.n_ranks = id->n_ranks;
	s->j.n_clock_groups = id->n_clock_groups;
	s->j.n_clock_domains = id->n_clock_domains;
	{
		/* ids[] index -> (input, process within it) */
		size_t x = 0;

		for (size_t i = 0; i < s->n; i++)
			for (size_t k = 0; !rec[i].failed && k < rec[i].n_ranks; k++)
				ident_input[x++] = k;
	}
	for (size_t i = 0; i < id->n_ranks; i++) {
		const struct gs_job_id_rank *q = &id->ranks[i];
		const struct gs_job_ident *x = &ids[q->idents[0]];
		struct gs_job_rank *r = &s->j.ranks[i];

		r->rank = q->rank;
		r->rank_declared = q->rank_declared;
		r->world_size = x->world_size;
		r->pid = x->pid;
		r->host = GS_NO_STRING;
		r->input = x->input;
		r->clock_group = q->clock_group;
		r->clock_domain = q->clock_domain;
		r->clock = x->clock;
		r->wall_offset_ns = x->wall_offset_ns;
		r->capture = x->capture;
		snprintf(r->host_name, sizeof(r->host_name), "%s", x->host);
		for (size_t h = 0; h < n_hfn; h++)
			r->host_from_name |= host_from_name[h] == q->idents[0];
		r->first_ns = q->first_ns;
		r->last_ns = q->last_ns;
		s->rank_owner[i] = s->owner[x->input];
		if (s->owner[x->input] == me) {
			struct gs_job_rank *src =
				&s->in[x->input].job->ranks[ident_input[q->idents[0]]];

			r->trace = src->trace;
			r->host = src->host;
			src->trace = NULL;
		}
	}
	gs_job_identity_destroy(id);
	free(ident_input);
	free(rec);
	free(ids);
	free(host_from_name);
	return 0;
}

/* The report options of `gpuscope analyze`. */
static void report_options(const struct state *s, struct gs_report_options *ro, const char *format)
{
	memset(ro, 0, sizeof(*ro));
	ro->window = s->o.io.window;
	ro->window_relative = s->o.io.window_relative;
	ro->inputs = s->names;
	ro->n_inputs = s->n;
	ro->format = format;
	ro->rows = s->o.rows;
	ro->align = s->o.io.align;
}

static struct gs_report_style report_style(const struct state *s)
{
	struct gs_report_style st = {.top = s->o.top, .ranks = s->o.ranks};

	/* mpirun hands stdout to a terminal of its own, whatever the user's
	 * stdout is: colour only when asked for. */
	st.color = s->o.format == F_TEXT && s->o.color_always && !s->o.color_never;
	return st;
}

/*
 * The error line of an output file after `st`: the cause chain, naming
 * `path` in front unless the chain already does (as gpuscope prints it);
 * `proc`: this MPI process is named too. Clears the chain. Returns 1.
 */
static int out_error(gs_status st, const char *path, bool proc)
{
	char msg[GS_ERROR_MSG_MAX * 2], where[32] = "";

	chain(st, msg, sizeof(msg));
	if (proc)
		snprintf(where, sizeof(where), " (MPI process %d)", me);
	if (path && !strstr(msg, path))
		errorf("%s: %s%s", path, msg, where);
	else
		errorf("%s%s", msg, where);
	return 1;
}

/* After a write to `o` that returned `st`: commit it (gpuscope/outfile.h),
 * or remove its temporary file; 0, or 1 with the error line printed. */
static int out_close(struct gs_outfile *o, gs_status st, bool proc)
{
	const char *path = o->path ? o->path : "stdout";

	if (st != GS_OK) {
		gs_outfile_discard(o);
		return out_error(st, path, proc);
	}
	gs_error_clear();
	st = gs_outfile_commit(o);
	return st == GS_OK ? 0 : out_error(st, path, proc);
}

static const char *ext_of(enum fmt f)
{
	return f == F_JSON ? "json" : f == F_HTML ? "html" : "txt";
}

/* -o DIR/: rank i's own report, DIR/rank-NNNNN.EXT. 0, or 1 when the path
 * is too long. */
static int rank_path(const struct state *s, size_t i, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%srank-%05u.%s", s->o.output, s->j.ranks[i].rank,
			 ext_of(s->o.format));

	return n < 0 || (size_t)n >= size;
}

/*
 * Before the load, at the root, as gpuscope analyze does before its load:
 * -o OUT checked and its temporary file created (gpuscope/outfile.h), or
 * with -o DIR/ the directory made and DIR/job.EXT so; without -o, stdout.
 * A refused or unwritable OUT is one error line, before any work. Every
 * process returns the same.
 */
static int open_report(struct state *s)
{
	const char *path = s->o.output;
	int st = 0;

	s->dir = s->o.output && s->o.output[strlen(s->o.output) - 1] == '/';
	if (me != 0)
		return agree(0);
	if (s->dir) {
		int n = snprintf(s->out_path, sizeof(s->out_path), "%sjob.%s", s->o.output,
				 ext_of(s->o.format));

		path = s->out_path;
		if (n < 0 || (size_t)n >= sizeof(s->out_path)) {
			errorf("%s: path too long", s->o.output);
			st = 1;
		} else if (mkdir(s->o.output, 0777) != 0 && errno != EEXIST) {
			errorf("%s: cannot create: %s", s->o.output, strerror(errno));
			st = 1;
		}
	}
	if (!st) {
		gs_status os;

		gs_error_clear();
		os = gs_outfile_open(&s->out, path, s->o.force, (const char *const *)s->paths,
				     s->n);
		if (os != GS_OK)
			st = out_error(os, NULL, false);
	}
	return agree(st);
}

/*
 * -o DIR/: every rank's report path checked at the root, once the ranks
 * are known and before any is written, so that a refusal (an input among
 * them, a link, a file without --force) is one error line and leaves DIR
 * as it was. Every process returns the same.
 */
static int check_rank_paths(const struct state *s)
{
	char path[4096];
	int st = 0;

	for (size_t i = 0; me == 0 && s->dir && i < s->j.n_ranks && !st; i++) {
		gs_status os;

		if (rank_path(s, i, path, sizeof(path))) {
			errorf("%s: path too long", s->o.output);
			st = 1;
			break;
		}
		gs_error_clear();
		os = gs_outfile_check(path, s->o.force, (const char *const *)s->paths, s->n);
		if (os != GS_OK)
			st = out_error(os, NULL, false);
	}
	return agree(st);
}

static gs_status write_whole(FILE *f, enum fmt fmt, const struct gs_report *r,
			     const struct gs_report_style *st)
{
	return fmt == F_JSON ? gs_report_write_json(f, r, st) :
	       fmt == F_HTML ? gs_report_write_html(f, r, st) :
			       gs_report_write_text(f, r, st);
}

/* ---- the root's parts callbacks ---- */

struct part_ctx {
	struct state *s;
};

static char *render(struct state *s, size_t i, int kind, unsigned part, size_t *len)
{
	char *p = NULL;
	FILE *f = open_memstream(&p, len);
	const struct gs_report *r = s->mine->ranks[s->mine_at[i]];
	gs_status st;

	if (!f) {
		die("out of memory");
	}
	st = kind == TAG_TEXT ? gs_report_text_rank_part(f, r, &s->style) :
	     kind == TAG_HTML ? gs_report_html_rank_part(f, r, &s->html, (size_t)s->html_di0[i],
							 part, &s->style) :
				gs_report_json_rank_part(f, r, part);
	if (fclose(f) != 0 || st != GS_OK) {
		char msg[GS_ERROR_MSG_MAX * 2];

		errorf("rank %u (MPI process %d): %s", r->rank, me, chain(st, msg, sizeof(msg)));
		abort_job();
	}
	return p;
}

static char *section(struct state *s, size_t i, int kind, unsigned part, size_t *len)
{
	if (s->rank_owner[i] == 0)
		return render(s, i, kind, part, len);
	return recv_from(s->rank_owner[i], kind + (int)part, len);
}

static gs_status text_part(void *ctx, size_t i, struct gs_out *o)
{
	struct state *s = ((struct part_ctx *)ctx)->s;
	size_t len;
	char *p = section(s, i, TAG_TEXT, 0, &len);

	if (len && fwrite(p, 1, len, o->f) != len && !o->failed) {
		o->failed = true;
		o->err = errno;
	}
	free(p);
	progress(s, "gpuscope-mpi: writing: rank %zu of %zu", i + 1, s->j.n_ranks);
	return GS_OK;
}

static gs_status json_part(void *ctx, unsigned part, size_t i, struct gs_out *o, bool first,
			   bool *any)
{
	struct state *s = ((struct part_ctx *)ctx)->s;
	size_t len, skip;
	char *p = section(s, i, TAG_JSON, part, &len);

	skip = first && len && p[0] == ',' ? 1 : 0;
	if (len > skip && fwrite(p + skip, 1, len - skip, o->f) != len - skip && !o->failed) {
		o->failed = true;
		o->err = errno;
	}
	*any = len > 0;
	free(p);
	if (part == GS_JSON_PARTS - 1)
		progress(s, "gpuscope-mpi: writing: rank %zu of %zu", i + 1, s->j.n_ranks);
	return GS_OK;
}

static gs_status html_part(void *ctx, unsigned part, size_t i, struct gs_out *o)
{
	struct state *s = ((struct part_ctx *)ctx)->s;
	size_t len;
	char *p = section(s, i, TAG_HTML, part, &len);

	if (len && fwrite(p, 1, len, o->f) != len && !o->failed) {
		o->failed = true;
		o->err = errno;
	}
	free(p);
	if (part == GS_HTML_PARTS - 1)
		progress(s, "gpuscope-mpi: writing: rank %zu of %zu", i + 1, s->j.n_ranks);
	return GS_OK;
}

/*
 * HTML: the page's drawing resolution depends on every rank's load, and a
 * rank's GPU sections on how many GPUs the ranks before it have; the root
 * decides both from the summaries and every process gets them, so that
 * each renders its ranks' parts as the single-process page has them.
 */
static void share_html_layout(struct state *s)
{
	size_t n = s->j.n_ranks;
	uint64_t *v = calloc(n + 2, sizeof(*v));

	s->html_di0 = calloc(n ? n : 1, sizeof(*s->html_di0));
	if (!v || !s->html_di0)
		die("out of memory");
	if (me == 0) {
		size_t n_sums = 0;
		const struct gs_js_rank *const *sums = gs_job_analysis_ranks(s->shell->ja, &n_sums);
		uint64_t di = 0;

		s->html = gs_report_html_job_layout(s->shell);
		v[0] = s->html.exact;
		v[1] = s->html.bins;
		for (size_t i = 0; i < n && i < n_sums; i++) {
			v[2 + i] = di;
			di += sums[i]->n_gpus;
		}
	}
	MPI_Bcast(v, (int)(n + 2), MPI_UINT64_T, 0, MPI_COMM_WORLD);
	s->html.exact = v[0];
	s->html.bins = v[1];
	memcpy(s->html_di0, v + 2, n * sizeof(*v));
	free(v);
}

/*
 * Text: a job of many GPUs shows the sections of its outliers' ranks only;
 * the root decides which from the job analysis and every process learns
 * it, so that each sends the root just those.
 */
static void share_text_shown(struct state *s)
{
	size_t n = s->j.n_ranks, n_shown = 0;

	s->text_shown = calloc(n ? n : 1, 1);
	if (!s->text_shown)
		die("out of memory");
	if (me == 0) {
		bool *shown = calloc(n ? n : 1, sizeof(*shown));
		gs_status st = shown ? gs_job_analysis_shown_ranks(s->shell->ja, &s->style, shown,
								   &n_shown) :
				       GS_ERR_NOMEM;

		if (st != GS_OK)
			die("out of memory");
		for (size_t i = 0; i < n; i++)
			s->text_shown[i] = shown[i];
		free(shown);
	}
	MPI_Bcast(s->text_shown, (int)n, MPI_UNSIGNED_CHAR, 0, MPI_COMM_WORLD);
}

/* A non-root process: its ranks' sections, in the order the root asks. */
static void serve_sections(struct state *s)
{
	size_t len;
	char *p;

	if (s->o.format == F_HTML) {
		for (unsigned part = 0; part < GS_HTML_PARTS; part++)
			for (size_t i = 0; i < s->j.n_ranks; i++) {
				if (s->rank_owner[i] != me)
					continue;
				p = render(s, i, TAG_HTML, part, &len);
				send_root(p, len, TAG_HTML + (int)part);
				free(p);
			}
		return;
	}

	if (s->o.format == F_TEXT) {
		for (size_t i = 0; i < s->j.n_ranks; i++) {
			if (s->rank_owner[i] != me || !s->text_shown[i])
				continue;
			p = render(s, i, TAG_TEXT, 0, &len);
			send_root(p, len, TAG_TEXT);
			free(p);
		}
		return;
	}
	for (unsigned part = 0; part < GS_JSON_PARTS; part++)
		for (size_t i = 0; i < s->j.n_ranks; i++) {
			if (s->rank_owner[i] != me)
				continue;
			p = render(s, i, TAG_JSON, part, &len);
			send_root(p, len, TAG_JSON + (int)part);
			free(p);
		}
}

/* ---- the gate (--fail-if) ---- */

/* The figures of a GPU that a threshold can check, as gs_report_gate reads
 * them: each rank's are packed by the process that analysed it and checked
 * at the root over every GPU of the job, in rank order, so that the verdict
 * is gpuscope analyze's without the root holding the ranks' reports. */
#define GATE_FIELDS (16 + GS_CAT_COUNT)

static void pack_gate(struct buf *b, const struct gs_report *r)
{
	int64_t step = r->window_from_steps ? gs_gate_steps_median(&r->steps) : -1;

	put_u64(b, r->n_dev);
	for (size_t k = 0; k < r->n_dev; k++) {
		const struct gs_report_device *d = &r->dev[k];
		uint64_t eff;

		memcpy(&eff, &d->efficiency, sizeof(eff));
		put_u64(b, r->rank);
		put_u64(b, d->device);
		put_u64(b, r->in_job);
		put_u64(b, (uint64_t)step);
		put_u64(b, d->ops);
		put_u64(b, (uint64_t)d->b.window_ns);
		for (int c = 0; c < GS_CAT_COUNT; c++)
			put_u64(b, (uint64_t)d->b.total_ns[c]);
		put_u64(b, (uint64_t)d->b.host_bound_ns);
		put_u64(b, (uint64_t)d->b.launch_latency_ns);
		put_u64(b, eff);
		put_u64(b, d->efficiency_kind);
		put_u64(b, (uint64_t)d->actual_ns);
		put_u64(b, (uint64_t)d->ideal_ns);
		put_u64(b, (uint64_t)d->comm_ns);
		put_u64(b, (uint64_t)d->comm_exposed_ns);
		put_u64(b, (uint64_t)d->wait_ns);
		put_u64(b, (uint64_t)d->missed_exposed_ns);
	}
}

/* The GPUs the root checks: a device record holding what pack_gate sent. */
struct gate_gpus {
	struct gs_report_device *dev;
	struct gs_gate_gpu *gpu;
	size_t n, cap;
};

static void unpack_gate(struct gate_gpus *g, const char *p, size_t len)
{
	const char *end = p + len;
	uint64_t n;

	if (len < sizeof(uint64_t))
		die("a short message of GPU figures");
	n = get_u64(&p);
	if (n > (size_t)(end - p) / (GATE_FIELDS * sizeof(uint64_t)) ||
	    (size_t)(end - p) != n * GATE_FIELDS * sizeof(uint64_t))
		die("a message of GPU figures of the wrong length");
	if (g->n + n > g->cap) {
		size_t nc = g->cap ? g->cap : 16;

		while (nc < g->n + n)
			nc *= 2;
		struct gs_report_device *dev = realloc(g->dev, nc * sizeof(*dev));
		if (dev)
			g->dev = dev;
		struct gs_gate_gpu *gpu = realloc(g->gpu, nc * sizeof(*gpu));
		if (gpu)
			g->gpu = gpu;
		if (!dev || !gpu)
			die("out of memory");
		g->cap = nc;
	}
	for (uint64_t k = 0; k < n; k++) {
		struct gs_report_device *d = &g->dev[g->n];
		struct gs_gate_gpu *x = &g->gpu[g->n];
		uint64_t eff;

		memset(d, 0, sizeof(*d));
		memset(x, 0, sizeof(*x));
		x->rank[1] = (uint32_t)get_u64(&p);
		d->device = (uint32_t)get_u64(&p);
		x->device[1] = d->device;
		x->in_job = get_u64(&p) != 0;
		x->step_ns[0] = -1;
		x->step_ns[1] = (int64_t)get_u64(&p);
		x->f[0] = x->f[1] = 1;
		d->ops = get_u64(&p);
		d->b.window_ns = (int64_t)get_u64(&p);
		for (int c = 0; c < GS_CAT_COUNT; c++)
			d->b.total_ns[c] = (int64_t)get_u64(&p);
		d->b.host_bound_ns = (int64_t)get_u64(&p);
		d->b.launch_latency_ns = (int64_t)get_u64(&p);
		eff = get_u64(&p);
		memcpy(&d->efficiency, &eff, sizeof(eff));
		d->efficiency_kind = (uint8_t)get_u64(&p);
		d->actual_ns = (int64_t)get_u64(&p);
		d->ideal_ns = (int64_t)get_u64(&p);
		d->comm_ns = (int64_t)get_u64(&p);
		d->comm_exposed_ns = (int64_t)get_u64(&p);
		d->wait_ns = (int64_t)get_u64(&p);
		d->missed_exposed_ns = (int64_t)get_u64(&p);
		g->n++;
	}
}

/* Every GPU's figures to the root, in rank order; the root checks them
 * (a threshold no GPU has is an error there, exit 1 on every process) and
 * keeps the verdict for the report's JSON and the exit status. A job of
 * one rank is written whole by the process that analysed it: that process
 * gates its report too, for the JSON. */
static int gate_phase(struct state *s)
{
	struct gate_gpus g = {0};
	char msg[GS_ERROR_MSG_MAX * 2];
	int st = 0;

	for (size_t i = 0; i < s->j.n_ranks; i++) {
		char *p = NULL;
		size_t len = 0;

		if (s->rank_owner[i] == me) {
			struct buf b = {0};

			pack_gate(&b, s->mine->ranks[s->mine_at[i]]);
			if (me != 0)
				send_root(b.p, b.len, TAG_GATE);
			p = b.p;
			len = b.len;
		} else if (me == 0) {
			p = recv_from(s->rank_owner[i], TAG_GATE, &len);
		}
		if (me == 0)
			unpack_gate(&g, p, len);
		free(p);
	}
	if (me == 0) {
		struct gs_gate_verdict *v = NULL;
		gs_status gs;

		for (size_t k = 0; k < g.n; k++)
			g.gpu[k].d[1] = &g.dev[k];
		gs_error_clear();
		gs = gs_gate_evaluate(s->gate, g.gpu, g.n, &v);
		if (gs != GS_OK) {
			gs_error_append("--fail-if");
			errorf("%s", chain(gs, msg, sizeof(msg)));
			st = 1;
		} else if (s->j.n_ranks > 1) {
			s->shell->verdict = v; /* the JSON's "gate" */
			s->verdict = v;
		} else {
			s->verdict_own = v;
			s->verdict = v;
		}
	}
	free(g.dev);
	free(g.gpu);
	if (!st && s->j.n_ranks == 1 && s->rank_owner[0] == me) {
		gs_error_clear();
		if (gs_report_gate(s->mine, s->gate) != GS_OK) {
			gs_error_clear();
			st = 1; /* cannot happen: the root's check passed on the same figures */
		}
	}
	return agree(st);
}

/* After the report is out: the root's line per threshold crossed, and the
 * exit status 3 on every process when one is. */
static int gate_verdict(const struct state *s)
{
	int crossed = 0;

	if (me == 0 && s->verdict && s->verdict->crossed) {
		char line[1024];

		crossed = 1;
		for (size_t i = 0; i < s->verdict->n; i++)
			if (s->verdict->results[i].crossed)
				fprintf(stderr, "gpuscope-mpi: threshold crossed: %s\n",
					gs_gate_result_text(&s->verdict->results[i], line,
							    sizeof(line)));
		fflush(stderr);
	}
	MPI_Bcast(&crossed, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return crossed ? 3 : 0;
}

static void print_stats(const struct state *s, double t0)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr,
		"gpuscope-mpi: stats: MPI process %d of %d: %zu inputs, %zu ranks, %" PRIu64
		" bytes read, peak memory %ld KiB, %" PRIu64 " bytes sent to the root (%" PRIu64
		" of them job summaries; all its ranks' summaries: %" PRIu64 "), %.3f s\n",
		me, np, s->n_inputs_mine, s->mine ? s->mine->n_ranks : 0, s->bytes_read,
		ru.ru_maxrss, sent_to_root, me ? summary_bytes : 0, summary_bytes, now_s() - t0);
}

static int run(struct state *s)
{
	char *all = NULL;
	int *counts = NULL, *displs = NULL, rc;
	uint64_t *size;
	bool *own;
	struct gs_report_options ro;
	const char *format;
	char msg[GS_ERROR_MSG_MAX * 2];
	int st = 0;

	s->names = calloc(s->n ? s->n : 1, sizeof(*s->names));
	s->owner = calloc(s->n ? s->n : 1, sizeof(*s->owner));
	s->in = calloc(s->n ? s->n : 1, sizeof(*s->in));
	size = calloc(s->n ? s->n : 1, sizeof(*size));
	if (!s->names || !s->owner || !s->in || !size)
		die("out of memory");
	for (size_t i = 0; i < s->n; i++)
		s->names[i] = gs_input_name(s->paths[i]);
	if (open_report(s)) {
		free(size);
		return 1;
	}
	/* Phase 1: the shares. */
	if (me == 0)
		for (size_t i = 0; i < s->n; i++) {
			struct stat sb;

			size[i] = stat(s->paths[i], &sb) == 0 ? (uint64_t)sb.st_size : 0;
		}
	MPI_Bcast(size, (int)s->n, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	share_out(size, s->n, s->owner);
	free(size);
	if (me == 0)
		progress(s, "gpuscope-mpi: loading %zu files on %d processes", s->n, np);
	/* Phase 2: loading and identity. */
	rc = load_phase(s, &all, &counts, &displs);
	if (rc) {
		free(all);
		free(counts);
		free(displs);
		return 1;
	}
	rc = identity_phase(s, all, counts, displs);
	free(all);
	free(counts);
	free(displs);
	if (agree(rc) || check_rank_paths(s))
		return 1;
	/* Phase 3: this process's reports. */
	format = s->in[0].fmt == -2 ? "mixed" :
		 s->in[0].fmt < 0   ? "" :
				      gs_input_format_name((enum gs_input_format)s->in[0].fmt);
	report_options(s, &ro, format);
	s->style = report_style(s);
	own = calloc(s->j.n_ranks ? s->j.n_ranks : 1, sizeof(*own));
	s->mine_at = calloc(s->j.n_ranks ? s->j.n_ranks : 1, sizeof(*s->mine_at));
	if (!own || !s->mine_at)
		die("out of memory");
	for (size_t i = 0; i < s->j.n_ranks; i++)
		own[i] = s->rank_owner[i] == me;
	if (me == 0)
		progress(s, "gpuscope-mpi: analysing %zu ranks", s->j.n_ranks);
	gs_error_clear();
	{
		gs_status bs = gs_report_build_job_own(&s->j, &ro, own, &s->mine);

		if (bs != GS_OK) {
			errorf("MPI process %d: %s", me, chain(bs, msg, sizeof(msg)));
			st = 1;
		}
	}
	if (agree(st)) {
		free(own);
		return 1;
	}
	for (size_t i = 0, k = 0; i < s->j.n_ranks; i++)
		s->mine_at[i] = own[i] ? k++ : SIZE_MAX;
	free(own);
	/* The root's shell: the job report without ranks of its own. */
	if (me == 0) {
		bool *none = calloc(s->j.n_ranks ? s->j.n_ranks : 1, sizeof(*none));
		gs_status bs = none ? gs_report_build_job_own(&s->j, &ro, none, &s->shell) :
				      GS_ERR_NOMEM;

		free(none);
		if (bs != GS_OK) {
			errorf("%s", chain(bs, msg, sizeof(msg)));
			abort_job();
		}
		s->shell->mpi_processes = (size_t)np;
	}
	/* Summaries to the root, in rank order. */
	if (s->j.n_ranks > 1) {
		struct gs_js_rank **sums = NULL;

		if (me == 0) {
			sums = calloc(
				s->j.n_ranks,
				sizeof(*sums)); /* NOLINT(bugprone-sizeof-expression): pointers */
			if (!sums)
				return 1;
		}
		for (size_t i = 0; i < s->j.n_ranks; i++) {
			char *p = NULL;
			size_t len = 0;
			gs_status es = GS_OK;

			if (s->rank_owner[i] == me) {
				struct gs_js_rank *x = NULL;

				es = gs_js_extract(s->mine->ranks[s->mine_at[i]], &x);
				if (es == GS_OK)
					es = gs_js_pack(x, &p, &len);
				gs_js_free(x);
				if (es != GS_OK) {
					errorf("rank %u (MPI process %d): %s", s->j.ranks[i].rank,
					       me, chain(es, msg, sizeof(msg)));
					abort_job();
				}
				summary_bytes += len;
				if (me != 0)
					send_root(p, len, TAG_SUM);
			} else if (me == 0) {
				p = recv_from(s->rank_owner[i], TAG_SUM, &len);
			}
			if (me == 0) {
				es = gs_js_unpack(p, len, &sums[i]);
				if (es != GS_OK) {
					errorf("rank %u: %s", s->j.ranks[i].rank,
					       chain(es, msg, sizeof(msg)));
					abort_job();
				}
			}
			free(p);
		}
		if (me == 0) {
			gs_status es = gs_js_reduce(sums, s->j.n_ranks, s->j.n_clock_groups,
						    s->o.io.align, &s->shell->ja);

			if (es != GS_OK) {
				errorf("%s", chain(es, msg, sizeof(msg)));
				abort_job();
			}
		}
	}
	/* The gate, before anything is written: a threshold no GPU has is an
	 * error, as in gpuscope analyze. */
	if (s->gate && gate_phase(s))
		return 1;
	/* Phase 4: writing. Each rank's own report first (-o DIR/), by the
	 * process that analysed it. */
	for (size_t i = 0; s->dir && i < s->j.n_ranks && !st; i++) {
		struct gs_outfile f;
		char path[4096];
		gs_status os;

		if (s->rank_owner[i] != me)
			continue;
		rank_path(s, i, path, sizeof(path)); /* its length checked at the root */
		gs_error_clear();
		os = gs_outfile_open(&f, path, s->o.force, (const char *const *)s->paths, s->n);
		if (os != GS_OK) {
			st = out_error(os, NULL, true);
			break;
		}
		gs_error_clear();
		st = out_close(
			&f, write_whole(f.f, s->o.format, s->mine->ranks[s->mine_at[i]], &s->style),
			true);
	}
	if (agree(st))
		return 1;
	if (s->o.format == F_HTML && s->j.n_ranks > 1)
		share_html_layout(s);
	if (s->o.format == F_TEXT && s->j.n_ranks > 1)
		share_text_shown(s);
	if (s->j.n_ranks == 1) {
		/* One rank: its own report, as gpuscope analyze writes it. */
		if (s->rank_owner[0] == me && me != 0) {
			char *p = NULL;
			size_t len = 0;
			FILE *f = open_memstream(&p, &len);

			if (!f || write_whole(f, s->o.format, s->mine, &s->style) != GS_OK ||
			    fclose(f) != 0) {
				errorf("MPI process %d: %s", me,
				       chain(GS_ERR_IO, msg, sizeof(msg)));
				abort_job();
			}
			send_root(p, len, TAG_WHOLE);
			free(p);
		}
	} else if (me != 0) {
		serve_sections(s);
	}
	if (me == 0) {
		struct part_ctx pc = {s};
		FILE *f = s->out.f; /* opened before the load */
		gs_status ws = GS_OK;

		gs_error_clear();
		if (s->j.n_ranks == 1) {
			if (s->rank_owner[0] == 0) {
				ws = write_whole(f, s->o.format, s->mine, &s->style);
			} else {
				size_t len;
				char *p = recv_from(s->rank_owner[0], TAG_WHOLE, &len);

				if (fwrite(p, 1, len, f) != len) {
					gs_error_append("write failed: %s", strerror(errno));
					ws = GS_ERR_IO;
				}
				free(p);
			}
		} else if (s->j.n_ranks == 0) {
			ws = write_whole(f, s->o.format, s->shell, &s->style);
		} else if (s->o.format == F_JSON) {
			ws = gs_report_json_job_parts(f, s->shell, &s->style, json_part, &pc);
		} else if (s->o.format == F_HTML) {
			ws = gs_report_html_job_parts(f, s->shell, &s->html, &s->style, html_part,
						      &pc);
		} else {
			ws = gs_report_text_job_parts(f, s->shell, &s->style, text_part, &pc);
		}
		progress(s, "%s", "");
		if (s->progress)
			fputs("\r\033[K", stderr);
		if (s->out.path) {
			st = out_close(&s->out, ws, false);
		} else {
			if (fflush(stdout) != 0 && ws == GS_OK) {
				gs_error_append("write failed: %s", strerror(errno));
				ws = GS_ERR_IO;
			}
			if (ws != GS_OK)
				st = out_error(ws, "stdout", false);
		}
	}
	if (agree(st))
		return 1;
	/* The report is out: then the verdict (exit status 3 when crossed). */
	return s->gate ? gate_verdict(s) : 0;
}

/* Everything run() made (the reports before the traces they borrow). */
static void cleanup(struct state *s)
{
	gs_outfile_discard(&s->out); /* after a failure: the temporary file only */
	gs_report_destroy(s->mine);
	gs_report_destroy(s->shell);
	gs_gate_verdict_destroy(s->verdict_own);
	gs_gate_destroy(s->gate);
	free(s->o.fail_if);
	for (size_t i = 0; i < s->j.n_ranks; i++)
		gs_trace_destroy(s->j.ranks[i].trace);
	for (size_t i = 0; i < s->j.n_warnings; i++)
		free(s->j.warnings[i]);
	free(s->j.ranks);
	free(s->j.warnings);
	for (size_t i = 0; s->in && i < s->n; i++)
		gs_job_destroy(s->in[i].job);
	free(s->in);
	free(s->names);
	free(s->owner);
	free(s->rank_owner);
	free(s->mine_at);
	free(s->html_di0);
	free(s->text_shown);
	for (size_t i = 0; i < s->n; i++)
		free(s->paths[i]);
	free(s->paths);
}

int main(int argc, char **argv)
{
	struct state s;
	bool help = false;
	int rc;
	double t0;

	memset(&s, 0, sizeof(s));
	s.out.slot = -1; /* nothing to discard */
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	t0 = now_s();
	rc = parse_args(argc, argv, &s.o, &help);
	/* The thresholds before any input is read: a bad one is known at once
	 * (every process parses them; the root says what is wrong). */
	if (!rc && !help && s.o.fail_if) {
		gs_status gst;

		gs_error_clear();
		gst = gs_gate_parse(s.o.fail_if, GS_GATE_REPORT, &s.gate);
		if (gst != GS_OK) {
			char msg[GS_ERROR_MSG_MAX * 2];

			chain(gst, msg, sizeof(msg));
			if (me == 0)
				errorf("%s%s", strstr(msg, "--fail-if") ? "" : "--fail-if: ", msg);
			rc = 1;
		}
	}
	if (rc || help) {
		if (help && me == 0)
			printf("%s%s", usage_line, help_text);
		free(s.o.fail_if);
		MPI_Finalize();
		return rc;
	}
	if (gather_paths(&s.o, &s.paths, &s.n)) {
		gs_gate_destroy(s.gate);
		free(s.o.fail_if);
		MPI_Finalize();
		return 1;
	}
	for (size_t i = 0; i < s.n && !rc; i++)
		if (!s.paths[i])
			die("out of memory");
		else if (!strcmp(s.paths[i], "-"))
			rc = usage("standard input ('-') is not a TRACE of gpuscope-mpi");
	if (rc) {
		for (size_t i = 0; i < s.n; i++)
			free(s.paths[i]);
		free(s.paths);
		gs_gate_destroy(s.gate);
		free(s.o.fail_if);
		MPI_Finalize();
		return rc;
	}
	s.progress = me == 0 && !s.o.io.quiet && isatty(STDERR_FILENO);
	rc = run(&s);
	if (s.o.stats)
		print_stats(&s, t0);
	cleanup(&s);
	MPI_Finalize();
	return rc == 3 ? 3 : rc ? 1 : 0;
}
