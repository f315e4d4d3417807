/* SPDX-License-Identifier: MIT */
/*
 * Internal: what the files of gpuscope-mpi share: the options
 * (gpuscope_mpi_opts.c), the messages between the MPI processes and the
 * phases that load the ranks (gpuscope_mpi_exchange.c), the report's
 * output (gpuscope_mpi_output.c), the gate (gpuscope_mpi_gate.c), and
 * main's helpers (gpuscope_mpi.c). Public analyzer headers only.
 */
#ifndef GS_MPI_GPUSCOPE_MPI_H
#define GS_MPI_GPUSCOPE_MPI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gpuscope/error.h>
#include <gpuscope/gate.h>
#include <gpuscope/import.h>
#include <gpuscope/input_opts.h>
#include <gpuscope/outfile.h>
#include <gpuscope/report.h>
#include <gpuscope/report_parts.h>

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

/* The trace-input options gpuscope-mpi takes (gpuscope/input_opts.h): analyze's but
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

/* This MPI process and how many there are. */
extern int mpi_me, mpi_np;
/* Bytes this process sent to the root; of them, job summaries (--stats). */
extern uint64_t sent_to_root, summary_bytes;

/* ---- the state of a run ---- */

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

/* gpuscope_mpi.c */
void errorf(const char *fmt, ...) GS_PRINTF(1, 2);
_Noreturn void abort_job(void);
_Noreturn void die(const char *what);
const char *chain(gs_status st, char *buf, size_t size);
void progress(struct state *s, const char *fmt, ...) GS_PRINTF(2, 3);

/* gpuscope_mpi_opts.c */
int parse_args(int argc, char **argv, struct opts *o, bool *help);
void print_help(void);
void usage_report(const char *fmt, ...) GS_PRINTF(1, 2);
/* The usage error, as an expression worth 2: a macro, so that the static
 * analyzer sees that a usage error is never 0 (it does not look into
 * variadic functions), as gs_cli_usage_error. */
#define usage(...) (usage_report(__VA_ARGS__), 2)

/* gpuscope_mpi_exchange.c */
void send_root(const void *p, size_t len, int tag);
/* The next message from src with tag, NUL-terminated (*len bytes before
 * the NUL). */
char *recv_from(int src, int tag, size_t *len);
int agree(int st);
int gather_paths(struct opts *o, char ***paths, size_t *n);
void share_out(const uint64_t *size, size_t n, int *owner);
int load_phase(struct state *s, char **all_out, int **counts_out, int **displs_out);
int identity_phase(struct state *s, const char *all, const int *counts, const int *displs);

/* gpuscope_mpi_output.c */
void report_options(const struct state *s, struct gs_report_options *ro, const char *format);
struct gs_report_style report_style(const struct state *s);
int out_error(gs_status st, const char *path, bool proc);
int out_close(struct gs_outfile *o, gs_status st, bool proc);
int rank_path(const struct state *s, size_t i, char *buf, size_t size);
int open_report(struct state *s);
int check_rank_paths(const struct state *s);
gs_status write_whole(FILE *f, enum fmt fmt, const struct gs_report *r,
		      const struct gs_report_style *st);
void share_html_layout(struct state *s);
void share_text_shown(struct state *s);
void serve_sections(struct state *s);
/* The root's report of a job of two ranks or more, from the parts. */
gs_status write_parts(struct state *s, FILE *f);

/* gpuscope_mpi_gate.c */
int gate_phase(struct state *s);
int gate_verdict(const struct state *s);

#endif /* GS_MPI_GPUSCOPE_MPI_H */
