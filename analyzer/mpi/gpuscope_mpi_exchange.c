/* SPDX-License-Identifier: MIT */
/*
 * gpuscope-mpi's messages between its processes (byte buffers, sends to
 * the root, agreement on a status) and the phases that share out and load
 * the inputs: the paths, each process's share, the loads and the job's
 * identity, decided alike on every process.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gpuscope/error.h>
#include <gpuscope/gscope_file.h>
#include <gpuscope/import.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/vec.h>

#include "gpuscope_mpi.h"

/* ---- byte buffers and messages ---- */

struct buf {
	char *p;
	size_t len, cap;
};

/* The numbers of one process of an input in the identity summaries:
 * pid, declared, rank, world size, first, last, clock, offset, host from
 * the file name, capture (then its host). */
#define IDENT_U64S 10

/* Append x to the vector v of n items (capacity cap); out of memory ends
 * the job (die). */
#define PUSH(v, n, cap, x)                                                                         \
	do {                                                                                       \
		if (GS_VEC_PUSH(v, n, cap, x) != GS_OK)                                            \
			die("out of memory");                                                      \
	} while (0)

static void put(struct buf *b, const void *src, size_t n)
{
	if (n > SIZE_MAX - b->len ||
	    gs_vec_reserve((void **)&b->p, &b->cap, b->len + n, 1) != GS_OK)
		die("out of memory");
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
void send_root(const void *p, size_t len, int tag)
{
	if (len > INT32_MAX) {
		errorf("a section of %zu bytes is over what one message takes (MPI process %d)",
		       len, mpi_me);
		abort_job();
	}
	MPI_Ssend(p, (int)len, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
	sent_to_root += len;
}

char *recv_from(int src, int tag, size_t *len)
{
	MPI_Status s;
	int n;
	char *p;

	MPI_Probe(src, tag, MPI_COMM_WORLD, &s);
	MPI_Get_count(&s, MPI_BYTE, &n);
	p = malloc((size_t)n + 1);
	if (!p) {
		die("out of memory");
	}
	MPI_Recv(p, n, MPI_BYTE, src, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	p[n] = '\0';
	*len = (size_t)n;
	return p;
}

/* All processes agree: the largest status of any. */
int agree(int st)
{
	int all = 0;

	MPI_Allreduce(&st, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	return all;
}

/*
 * The TRACE arguments (each a trace or a directory of traces), then the
 * paths --inputs FILE lists: expanded as gpuscope expands them
 * (gs_input_list_*), once, at the root (one process reads the directories
 * and the first bytes of their entries, not all), the same trace given
 * twice refused; then every process gets the list.
 */
int gather_paths(struct opts *o, char ***paths, size_t *n)
{
	struct gs_input_list l;
	uint64_t len = 0;
	char *buf = NULL, **p;
	size_t k = 0;
	int st = 0;

	gs_input_list_init(&l);
	if (mpi_me == 0) {
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

void share_out(const uint64_t *size, size_t n, int *owner)
{
	size_t *order = malloc((n ? n : 1) * sizeof(*order));
	uint64_t *load = calloc((size_t)mpi_np, sizeof(*load));

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

		for (int p = 1; p < mpi_np; p++)
			if (load[p] < load[best])
				best = p;
		owner[order[i]] = best;
		load[best] += size[order[i]] + 1;
	}
	free(order);
	free(load);
}

/* Phase 2: load this process's inputs; everyone gets everyone's identity
 * summaries. Returns 0, or 1 when an input failed and --keep-going is off
 * (every process returns the same). */
int load_phase(struct state *s, char **all_out, int **counts_out, int **displs_out)
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
		if (s->owner[i] == mpi_me)
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

		if (s->owner[i] != mpi_me)
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
			errorf("%s (MPI process %d): %s", s->names[i], mpi_me, msg);
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
		if (mpi_me == 0)
			progress(
				s,
				"gpuscope-mpi: loading: %zu of %zu files on process 0 (%zu in all)",
				done, s->n_inputs_mine, s->n);
	}
	free(mine);
	free(pre);
	free(pre_fmt);
	if (b.len > INT32_MAX) {
		errorf("identity summaries over 2 GiB (MPI process %d)", mpi_me);
		abort_job();
	}
	len = (int)b.len;
	counts = calloc((size_t)mpi_np, sizeof(*counts));
	displs = calloc((size_t)mpi_np, sizeof(*displs));
	if (!counts || !displs) {
		die("out of memory");
	}
	MPI_Allgather(&len, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
	for (int p = 0; p < mpi_np; p++) {
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
		if (mpi_me == 0)
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
int identity_phase(struct state *s, const char *all, const int *counts, const int *displs)
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
	for (int p = 0; p < mpi_np; p++) {
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
		if (mpi_me == 0)
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

			if (mpi_me == 0)
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
		if (s->owner[x->input] == mpi_me) {
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
