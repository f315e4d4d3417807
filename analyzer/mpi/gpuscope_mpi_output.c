/* SPDX-License-Identifier: MIT */
/*
 * gpuscope-mpi's output: the report's options and style, the output files
 * (gpuscope/outfile.h), and the job's report written at the root from the
 * parts each process renders of its ranks (gpuscope/report_parts.h).
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gpuscope/error.h>
#include <gpuscope/job_summary.h>
#include <gpuscope/outfile.h>
#include <gpuscope/report.h>
#include <gpuscope/report_parts.h>
#include <gpuscope/results.h>

#include "gpuscope_mpi.h"

/* The report options of `gpuscope analyze`. */
void report_options(const struct state *s, struct gs_report_options *ro, const char *format)
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

struct gs_report_style report_style(const struct state *s)
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
int out_error(gs_status st, const char *path, bool proc)
{
	char msg[GS_ERROR_MSG_MAX * 2], where[32] = "";

	chain(st, msg, sizeof(msg));
	if (proc)
		snprintf(where, sizeof(where), " (MPI process %d)", mpi_me);
	if (path && !strstr(msg, path))
		errorf("%s: %s%s", path, msg, where);
	else
		errorf("%s%s", msg, where);
	return 1;
}

/* After a write to `o` that returned `st`: commit it (gpuscope/outfile.h),
 * or remove its temporary file; 0, or 1 with the error line printed. */
int out_close(struct gs_outfile *o, gs_status st, bool proc)
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
int rank_path(const struct state *s, size_t i, char *buf, size_t size)
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
int open_report(struct state *s)
{
	const char *path = s->o.output;
	int st = 0;

	s->dir = s->o.output && s->o.output[strlen(s->o.output) - 1] == '/';
	if (mpi_me != 0)
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
int check_rank_paths(const struct state *s)
{
	char path[4096];
	int st = 0;

	for (size_t i = 0; mpi_me == 0 && s->dir && i < s->j.n_ranks && !st; i++) {
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

gs_status write_whole(FILE *f, enum fmt fmt, const struct gs_report *r,
		      const struct gs_report_style *st)
{
	return fmt == F_JSON ? gs_report_write_json(f, r, st) :
	       fmt == F_HTML ? gs_report_write_html(f, r, st) :
			       gs_report_write_text(f, r, st);
}

/* ---- the root's parts callbacks ---- */

/* A part of rank i that this process renders: its bytes, NUL-terminated. */
static char *render(struct state *s, size_t i, int kind, unsigned part, size_t *len)
{
	char *p = NULL;
	FILE *f = open_memstream(&p, len);
	const struct gs_report *r = gs_results_rank(s->mine, s->mine_at[i]);
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
		struct gs_results_process proc;

		gs_results_process(r, &proc);
		errorf("rank %u (MPI process %d): %s", proc.rank, mpi_me,
		       chain(st, msg, sizeof(msg)));
		abort_job();
	}
	return p;
}

/* Rank i's part, rendered here or received from its process. */
static char *section(struct state *s, size_t i, int kind, unsigned part, size_t *len)
{
	if (s->rank_owner[i] == 0)
		return render(s, i, kind, part, len);
	return recv_from(s->rank_owner[i], kind + (int)part, len);
}

static gs_status text_part(void *ctx, size_t i, char **bytes, size_t *len)
{
	struct state *s = ctx;

	*bytes = section(s, i, TAG_TEXT, 0, len);
	progress(s, "gpuscope-mpi: writing: rank %zu of %zu", i + 1, s->j.n_ranks);
	return GS_OK;
}

static gs_status json_part(void *ctx, unsigned part, size_t i, char **bytes, size_t *len)
{
	struct state *s = ctx;

	*bytes = section(s, i, TAG_JSON, part, len);
	if (part == GS_JSON_PARTS - 1)
		progress(s, "gpuscope-mpi: writing: rank %zu of %zu", i + 1, s->j.n_ranks);
	return GS_OK;
}

static gs_status html_part(void *ctx, unsigned part, size_t i, char **bytes, size_t *len)
{
	struct state *s = ctx;

	*bytes = section(s, i, TAG_HTML, part, len);
	if (part == GS_HTML_PARTS - 1)
		progress(s, "gpuscope-mpi: writing: rank %zu of %zu", i + 1, s->j.n_ranks);
	return GS_OK;
}

gs_status write_parts(struct state *s, FILE *f)
{
	if (s->o.format == F_JSON)
		return gs_report_json_job_parts(f, s->shell, &s->style, json_part, s);
	if (s->o.format == F_HTML)
		return gs_report_html_job_parts(f, s->shell, &s->html, &s->style, html_part, s);
	return gs_report_text_job_parts(f, s->shell, &s->style, text_part, s);
}

/*
 * HTML: the page's drawing resolution depends on every rank's load, and a
 * rank's GPU sections on how many GPUs the ranks before it have; the root
 * decides both from the summaries and every process gets them, so that
 * each renders its ranks' parts as the single-process page has them.
 */
void share_html_layout(struct state *s)
{
	size_t n = s->j.n_ranks;
	uint64_t *v = calloc(n + 2, sizeof(*v));

	s->html_di0 = calloc(n ? n : 1, sizeof(*s->html_di0));
	if (!v || !s->html_di0)
		die("out of memory");
	if (mpi_me == 0) {
		uint64_t di = 0;

		s->html = gs_report_html_job_layout(s->shell);
		v[0] = s->html.exact;
		v[1] = s->html.bins;
		for (size_t i = 0; i < n; i++) {
			v[2 + i] = di;
			di += gs_report_job_rank_gpus(s->shell, i);
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
void share_text_shown(struct state *s)
{
	size_t n = s->j.n_ranks, n_shown = 0;

	s->text_shown = calloc(n ? n : 1, 1);
	if (!s->text_shown)
		die("out of memory");
	if (mpi_me == 0) {
		bool *shown = calloc(n ? n : 1, sizeof(*shown));
		gs_status st =
			shown ? gs_report_text_job_shown(s->shell, &s->style, shown, &n_shown) :
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
void serve_sections(struct state *s)
{
	size_t len;
	char *p;

	if (s->o.format == F_HTML) {
		for (unsigned part = 0; part < GS_HTML_PARTS; part++)
			for (size_t i = 0; i < s->j.n_ranks; i++) {
				if (s->rank_owner[i] != mpi_me)
					continue;
				p = render(s, i, TAG_HTML, part, &len);
				send_root(p, len, TAG_HTML + (int)part);
				free(p);
			}
		return;
	}

	if (s->o.format == F_TEXT) {
		for (size_t i = 0; i < s->j.n_ranks; i++) {
			if (s->rank_owner[i] != mpi_me || !s->text_shown[i])
				continue;
			p = render(s, i, TAG_TEXT, 0, &len);
			send_root(p, len, TAG_TEXT);
			free(p);
		}
		return;
	}
	for (unsigned part = 0; part < GS_JSON_PARTS; part++)
		for (size_t i = 0; i < s->j.n_ranks; i++) {
			if (s->rank_owner[i] != mpi_me)
				continue;
			p = render(s, i, TAG_JSON, part, &len);
			send_root(p, len, TAG_JSON + (int)part);
			free(p);
		}
}
