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
 *      and their job summaries (gpuscope/job_summary.h), sent to the root
 *      in rank order; the root reduces them into the job analysis;
 *   4. the root writes the report: its own parts, and each rank's sections
 *      as the bytes its process renders, received in rank order as they are
 *      written (MPI_Ssend: at most one section per process in flight).
 * Only summaries and rendered sections travel; no process holds another
 * rank's ops.
 *
 * This file: main and the phases in order; gpuscope_mpi.h says where the
 * rest lives. Public analyzer headers only.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gpuscope/error.h>
#include <gpuscope/gate.h>
#include <gpuscope/import.h>
#include <gpuscope/job_summary.h>
#include <gpuscope/outfile.h>
#include <gpuscope/report.h>
#include <gpuscope/report_parts.h>
#include <gpuscope/results.h>

#include "gpuscope_mpi.h"

int mpi_me, mpi_np;
uint64_t sent_to_root, summary_bytes;

void errorf(const char *fmt, ...)
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
_Noreturn void abort_job(void)
{
	gs_outfile_remove_temps();
	MPI_Abort(MPI_COMM_WORLD, 1);
	abort();
}

/* Out of memory, or a failure after which the processes cannot agree:
 * the message, then the whole MPI job ends. */
_Noreturn void die(const char *what)
{
	errorf("%s (MPI process %d)", what, mpi_me);
	abort_job();
}

/* The cause chain as one line. */
const char *chain(gs_status st, char *buf, size_t size)
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

void progress(struct state *s, const char *fmt, ...)
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

static void print_stats(const struct state *s, double t0)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr,
		"gpuscope-mpi: stats: MPI process %d of %d: %zu inputs, %zu ranks, %" PRIu64
		" bytes read, peak memory %ld KiB, %" PRIu64 " bytes sent to the root (%" PRIu64
		" of them job summaries; all its ranks' summaries: %" PRIu64 "), %.3f s\n",
		mpi_me, mpi_np, s->n_inputs_mine, gs_results_rank_count(s->mine), s->bytes_read,
		ru.ru_maxrss, sent_to_root, mpi_me ? summary_bytes : 0, summary_bytes,
		now_s() - t0);
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
	if (mpi_me == 0)
		for (size_t i = 0; i < s->n; i++) {
			struct stat sb;

			size[i] = stat(s->paths[i], &sb) == 0 ? (uint64_t)sb.st_size : 0;
		}
	MPI_Bcast(size, (int)s->n, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	share_out(size, s->n, s->owner);
	free(size);
	if (mpi_me == 0)
		progress(s, "gpuscope-mpi: loading %zu files on %d processes", s->n, mpi_np);
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
		own[i] = s->rank_owner[i] == mpi_me;
	if (mpi_me == 0)
		progress(s, "gpuscope-mpi: analysing %zu ranks", s->j.n_ranks);
	gs_error_clear();
	{
		gs_status bs = gs_report_build_job_own(&s->j, &ro, own, &s->mine);

		if (bs != GS_OK) {
			errorf("MPI process %d: %s", mpi_me, chain(bs, msg, sizeof(msg)));
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
	if (mpi_me == 0) {
		bool *none = calloc(s->j.n_ranks ? s->j.n_ranks : 1, sizeof(*none));
		gs_status bs = none ? gs_report_build_job_own(&s->j, &ro, none, &s->shell) :
				      GS_ERR_NOMEM;

		free(none);
		if (bs != GS_OK) {
			errorf("%s", chain(bs, msg, sizeof(msg)));
			abort_job();
		}
		gs_report_set_mpi_processes(s->shell, (size_t)mpi_np);
	}
	/* Summaries to the root, in rank order. */
	if (s->j.n_ranks > 1) {
		struct gs_js_rank **sums = NULL;
		const bool root = mpi_me == 0;

		if (root) {
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

			if (s->rank_owner[i] == mpi_me) {
				struct gs_js_rank *x = NULL;

				es = gs_js_extract(gs_results_rank(s->mine, s->mine_at[i]), &x);
				if (es == GS_OK)
					es = gs_js_pack(x, &p, &len);
				gs_js_free(x);
				if (es != GS_OK) {
					errorf("rank %u (MPI process %d): %s", s->j.ranks[i].rank,
					       mpi_me, chain(es, msg, sizeof(msg)));
					abort_job();
				}
				summary_bytes += len;
				if (!root)
					send_root(p, len, TAG_SUM);
			} else if (root) {
				p = recv_from(s->rank_owner[i], TAG_SUM, &len);
			}
			if (root) {
				es = gs_js_unpack(p, len, &sums[i]);
				if (es != GS_OK) {
					errorf("rank %u: %s", s->j.ranks[i].rank,
					       chain(es, msg, sizeof(msg)));
					abort_job();
				}
			}
			free(p);
		}
		if (root) {
			gs_status es = gs_report_job_reduce(s->shell, sums, s->j.n_ranks);

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

		if (s->rank_owner[i] != mpi_me)
			continue;
		rank_path(s, i, path, sizeof(path)); /* its length checked at the root */
		gs_error_clear();
		os = gs_outfile_open(&f, path, s->o.force, (const char *const *)s->paths, s->n);
		if (os != GS_OK) {
			st = out_error(os, NULL, true);
			break;
		}
		gs_error_clear();
		st = out_close(&f,
			       write_whole(f.f, s->o.format,
					   gs_results_rank(s->mine, s->mine_at[i]), &s->style),
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
		if (s->rank_owner[0] == mpi_me && mpi_me != 0) {
			char *p = NULL;
			size_t len = 0;
			FILE *f = open_memstream(&p, &len);

			if (!f || write_whole(f, s->o.format, s->mine, &s->style) != GS_OK ||
			    fclose(f) != 0) {
				errorf("MPI process %d: %s", mpi_me,
				       chain(GS_ERR_IO, msg, sizeof(msg)));
				abort_job();
			}
			send_root(p, len, TAG_WHOLE);
			free(p);
		}
	} else if (mpi_me != 0) {
		serve_sections(s);
	}
	if (mpi_me == 0) {
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
		} else {
			ws = write_parts(s, f);
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
	MPI_Comm_rank(MPI_COMM_WORLD, &mpi_me);
	MPI_Comm_size(MPI_COMM_WORLD, &mpi_np);
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
			if (mpi_me == 0)
				errorf("%s%s", strstr(msg, "--fail-if") ? "" : "--fail-if: ", msg);
			rc = 1;
		}
	}
	if (rc || help) {
		if (help && mpi_me == 0)
			print_help();
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
	s.progress = mpi_me == 0 && !s.o.io.quiet && isatty(STDERR_FILENO);
	rc = run(&s);
	if (s.o.stats)
		print_stats(&s, t0);
	cleanup(&s);
	MPI_Finalize();
	return rc == 3 ? 3 : rc ? 1 : 0;
}
