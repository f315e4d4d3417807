/* SPDX-License-Identifier: MIT */
/*
 * Jobs: the processes of several inputs as ranks, each in a trace of its
 * own (gpuscope/import.h says how a rank's identity is found).
 *
 * Splitting an input by process replays its finished trace through a
 * filter sink into one new trace per pid: the strings all pass (their ids
 * stay), a stream passes when it is the pid's, a record when its pid (or
 * its stream's) is the pid's. Merging inputs of one process replays the
 * later ones onto the first, each record both hold kept once
 * (job_merge.c). The common case, one process an input, moves
 * the loaded trace into the job as it is.
 */
#include "job_merge.h"
#include "util.h"

#include <gpuscope/import.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Two clocks further apart than this cannot be one run. */
#define JOB_CLOCK_GAP_NS (3600LL * 1000000000LL)

/* A stream or allocation left out by the filter (not GS_NO_INDEX, which
 * means "none" in the records). */
#define JOB_DROPPED (UINT32_MAX - 1)

/* ---- the filter sink: the records of one pid ---- */

struct pid_filter {
	struct gs_sink sink; /* first: the callbacks recover the filter */
	struct gs_sink *next;
	int64_t pid;
	const struct gs_stream *src_streams; /* of the source trace */
	uint32_t *kept_pid;                  /* per output stream index: 1 */
	size_t n_src_streams, seen_streams;
	bool warnings; /* pass the source's warnings (first split only) */
};

static struct pid_filter *pf(struct gs_sink *s)
{
	return (struct pid_filter *)s;
}

static gs_status f_intern(struct gs_sink *s, const char *str, size_t len, uint32_t *id)
{
	return pf(s)->next->intern(pf(s)->next, str, len, id);
}

static gs_status f_stream(struct gs_sink *s, const struct gs_stream *st, uint32_t *index)
{
	struct pid_filter *f = pf(s);

	if (st->pid != f->pid) {
		*index = JOB_DROPPED;
		return GS_OK;
	}
	return f->next->stream(f->next, st, index);
}

static gs_status f_process(struct gs_sink *s, const struct gs_process *p)
{
	return p->pid == pf(s)->pid ? pf(s)->next->process(pf(s)->next, p) : GS_OK;
}

static gs_status f_device(struct gs_sink *s, const struct gs_device *d)
{
	return pf(s)->next->device(pf(s)->next, d);
}

static gs_status f_op(struct gs_sink *s, const struct gs_op *op, const struct gs_launch_cfg *launch)
{
	if (op->stream == JOB_DROPPED || op->stream == GS_NO_INDEX)
		return GS_OK;
	return pf(s)->next->op(pf(s)->next, op, launch);
}

static gs_status f_collective(struct gs_sink *s, const struct gs_collective *c, uint32_t *index)
{
	return pf(s)->next->collective(pf(s)->next, c, index);
}

static gs_status f_api_call(struct gs_sink *s, const struct gs_api_call *c)
{
	return c->pid == pf(s)->pid ? pf(s)->next->api_call(pf(s)->next, c) : GS_OK;
}

static gs_status f_sync(struct gs_sink *s, const struct gs_sync *y)
{
	struct gs_sync copy = *y;

	if (y->pid != pf(s)->pid)
		return GS_OK;
	/* A stream of another process: no record of one process names it. */
	if (copy.stream == JOB_DROPPED)
		copy.stream = GS_NO_INDEX;
	if (copy.wait_on_stream == JOB_DROPPED)
		copy.wait_on_stream = GS_NO_INDEX;
	return pf(s)->next->sync(pf(s)->next, &copy);
}

static gs_status f_event_record(struct gs_sink *s, const struct gs_event_record *e)
{
	if (e->stream == JOB_DROPPED || e->stream == GS_NO_INDEX)
		return GS_OK;
	return pf(s)->next->event_record(pf(s)->next, e);
}

static gs_status f_allocation(struct gs_sink *s, const struct gs_allocation *a, uint32_t *index)
{
	if (a->pid != pf(s)->pid) {
		*index = JOB_DROPPED;
		return GS_OK;
	}
	return pf(s)->next->allocation(pf(s)->next, a, index);
}

static gs_status f_op_alloc(struct gs_sink *s, const struct gs_op_alloc *l)
{
	if (l->allocation == JOB_DROPPED)
		return GS_OK;
	return pf(s)->next->op_alloc(pf(s)->next, l);
}

static gs_status f_range(struct gs_sink *s, const struct gs_range *r)
{
	return r->pid == pf(s)->pid ? pf(s)->next->range(pf(s)->next, r) : GS_OK;
}

static gs_status f_overhead(struct gs_sink *s, const struct gs_overhead *o)
{
	return o->pid == pf(s)->pid ? pf(s)->next->overhead(pf(s)->next, o) : GS_OK;
}

static gs_status f_clock_pair(struct gs_sink *s, const struct gs_clock_pair *c)
{
	return c->pid == pf(s)->pid ? pf(s)->next->clock_pair(pf(s)->next, c) : GS_OK;
}

static gs_status f_dropped(struct gs_sink *s, int64_t pid, uint64_t count)
{
	return pid == pf(s)->pid ? pf(s)->next->dropped(pf(s)->next, pid, count) : GS_OK;
}

static gs_status f_warning(struct gs_sink *s, const char *msg, uint64_t count)
{
	return pf(s)->warnings ? pf(s)->next->warning(pf(s)->next, msg, count) : GS_OK;
}

/* The records of `pid` in `src` (finished) as a new finished trace. */
static gs_status split_one(const struct gs_trace *src, int64_t pid, bool warnings,
			   struct gs_trace **out)
{
	struct pid_filter f = {
		.sink =
			{
				.intern = f_intern,
				.stream = f_stream,
				.process = f_process,
				.device = f_device,
				.op = f_op,
				.collective = f_collective,
				.api_call = f_api_call,
				.sync = f_sync,
				.event_record = f_event_record,
				.allocation = f_allocation,
				.op_alloc = f_op_alloc,
				.range = f_range,
				.overhead = f_overhead,
				.clock_pair = f_clock_pair,
				.dropped = f_dropped,
				.warning = f_warning,
			},
		.pid = pid,
		.warnings = warnings,
	};
	struct gs_trace *t = NULL;
	gs_status rc = gs_trace_create(&t);

	if (rc)
		return rc;
	f.next = gs_trace_borrow_sink(t);
	rc = gs_trace_replay(src, &f.sink);
	if (!rc)
		rc = gs_trace_finish(t);
	if (rc) {
		gs_trace_destroy(t);
		return rc;
	}
	*out = t;
	return GS_OK;
}

/* ---- the job ---- */

struct job_build {
	struct gs_job *j;
	size_t cap_ranks, cap_warnings;
};

/* Append the formatted line to the warnings (*v, *n, *cap). */
static gs_status warn_vpush(char ***v, size_t *n, size_t *cap, const char *fmt, va_list ap)
	GS_PRINTF(4, 0);

static gs_status warn_vpush(char ***v, size_t *n, size_t *cap, const char *fmt, va_list ap)
{
	char buf[GS_ERROR_MSG_MAX];
	char *s;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	s = strdup(buf);
	if (!s || GS_VEC_PUSH(*v, *n, *cap, s)) {
		free(s);
		return gs_nomem();
	}
	return GS_OK;
}

static gs_status job_warn(struct job_build *b, const char *fmt, ...) GS_PRINTF(2, 3);

static gs_status job_warn(struct job_build *b, const char *fmt, ...)
{
	va_list ap;
	gs_status rc;

	va_start(ap, fmt);
	rc = warn_vpush(&b->j->warnings, &b->j->n_warnings, &b->cap_warnings, fmt, ap);
	va_end(ap);
	return rc;
}

/* Distinct pids of the streams that have ops, ascending; *n of them. */
static gs_status stream_pids(const struct gs_trace *t, int64_t **out, size_t *n)
{
	size_t ns, cnt = 0;
	const struct gs_stream *st = gs_trace_streams(t, &ns);
	int64_t *p = malloc((ns ? ns : 1) * sizeof(*p));

	if (!p)
		return gs_nomem();
	for (size_t s = 0; s < ns; s++) {
		size_t first, count;

		gs_trace_stream_ops(t, (uint32_t)s, &first, &count);
		if (!count)
			continue;
		size_t k = 0;
		while (k < cnt && p[k] != st[s].pid)
			k++;
		if (k == cnt)
			p[cnt++] = st[s].pid;
	}
	/* Few pids: an insertion sort. */
	for (size_t i = 1; i < cnt; i++)
		for (size_t k = i; k > 0 && p[k - 1] > p[k]; k--) {
			int64_t x = p[k];
			p[k] = p[k - 1];
			p[k - 1] = x;
		}
	*out = p;
	*n = cnt;
	return GS_OK;
}

/* The process record of `pid`, or NULL. For pid < 0 (a trace whose GPU
 * lanes carry no pid: Kineto), the host process that made the most CUDA
 * calls (the others are data-loader workers and the like). */
static const struct gs_process *process_of(const struct gs_trace *t, int64_t pid)
{
	size_t n, nth;
	const struct gs_process *p = gs_trace_processes(t, &n);
	const struct gs_thread *th = gs_trace_threads(t, &nth);
	const struct gs_process *best = NULL;
	size_t best_calls = 0;

	for (size_t i = 0; i < n; i++) {
		size_t calls = 0;

		if (pid >= 0) {
			if (p[i].pid == pid)
				return &p[i];
			continue;
		}
		for (size_t k = 0; k < nth; k++)
			if (th[k].pid == p[i].pid)
				calls += th[k].api_count;
		if (!best || calls > best_calls) {
			best = &p[i];
			best_calls = calls;
		}
	}
	return best;
}

static gs_status add_rank(struct job_build *b, struct gs_trace *t, size_t input, int64_t pid)
{
	const struct gs_process *p = process_of(t, pid);
	struct gs_job_rank r = {.trace = t, .input = input, .pid = pid, .host = GS_NO_STRING};

	if (p) {
		r.pid = p->pid;
		r.host = p->host_name;
		r.rank_declared = p->has_rank;
		r.rank = p->rank;
		r.world_size = p->world_size;
	}
	gs_trace_op_span(t, &r.first_ns, &r.last_ns);
	if (GS_VEC_PUSH(b->j->ranks, b->j->n_ranks, b->cap_ranks, r)) {
		gs_trace_destroy(t);
		return gs_nomem();
	}
	return GS_OK;
}

/* One input: itself, or one trace per pid with GPU ops. */
static gs_status add_input(struct job_build *b, struct gs_trace *t, size_t input, const char *name)
{
	int64_t *pids = NULL;
	size_t n = 0, left_out = 0;
	gs_status rc = stream_pids(t, &pids, &n);

	if (rc) {
		gs_trace_destroy(t);
		return rc;
	}
	/* Kineto GPU lanes are pid 0: one process, whatever pid 0 is. */
	if (n < 2) {
		int64_t pid = n == 1 && process_of(t, pids[0]) ? pids[0] : -1;

		free(pids);
		return add_rank(b, t, input, pid);
	}
	{
		size_t np;
		const struct gs_process *ps = gs_trace_processes(t, &np);

		for (size_t i = 0; i < np; i++) {
			size_t k = 0;
			while (k < n && pids[k] != ps[i].pid)
				k++;
			if (k == n)
				left_out++;
		}
	}
	for (size_t i = 0; i < n && !rc; i++) {
		struct gs_trace *part = NULL;

		rc = split_one(t, pids[i], i == 0, &part);
		if (!rc)
			rc = add_rank(b, part, input, pids[i]);
	}
	if (!rc && left_out)
		rc = job_warn(b,
			      "%s: %zu process%s without GPU ops left out of the analysis "
			      "(their host records are not any rank's)",
			      name, left_out, left_out == 1 ? "" : "es");
	free(pids);
	gs_trace_destroy(t);
	return rc;
}

/* ---- identity, from summaries ---- */

struct id_build {
	struct gs_job_identity *id;
	size_t cap_warnings;
};

static gs_status id_warn(struct id_build *b, const char *fmt, ...) GS_PRINTF(2, 3);

static gs_status id_warn(struct id_build *b, const char *fmt, ...)
{
	va_list ap;
	gs_status rc;

	va_start(ap, fmt);
	rc = warn_vpush(&b->id->warnings, &b->id->n_warnings, &b->cap_warnings, fmt, ap);
	va_end(ap);
	return rc;
}

static bool spans_overlap(const struct gs_job_id_rank *a, const struct gs_job_id_rank *b)
{
	return a->first_ns < b->last_ns && b->first_ns < a->last_ns;
}

/* Ranks i < k that are one process: same host (named), pid and declared
 * rank, overlapping spans. k goes into i. */
static gs_status merge_same_process(struct id_build *b, const struct gs_job_ident *in,
				    const char *const *names)
{
	struct gs_job_identity *id = b->id;

	for (size_t i = 0; i < id->n_ranks; i++) {
		for (size_t k = i + 1; k < id->n_ranks;) {
			struct gs_job_id_rank *x = &id->ranks[i], *y = &id->ranks[k];
			const struct gs_job_ident *xi = &in[x->idents[0]], *yi = &in[y->idents[0]];
			size_t *p;
			gs_status rc;

			if (xi->input == yi->input || !*xi->host ||
			    strcmp(xi->host, yi->host) != 0 || xi->pid != yi->pid || xi->pid < 0 ||
			    x->rank_declared != y->rank_declared ||
			    (x->rank_declared && x->rank != y->rank) || !spans_overlap(x, y)) {
				k++;
				continue;
			}
			p = realloc(x->idents, (x->n_idents + y->n_idents) * sizeof(*p));
			if (!p)
				return gs_nomem();
			x->idents = p;
			memcpy(x->idents + x->n_idents, y->idents, y->n_idents * sizeof(*p));
			x->n_idents += y->n_idents;
			rc = id_warn(b,
				     "%s and %s are one process (host %s, pid %" PRId64
				     ", overlapping times): merged",
				     names[xi->input], names[yi->input], xi->host, xi->pid);
			if (rc)
				return rc;
			if (y->first_ns < x->first_ns)
				x->first_ns = y->first_ns;
			if (y->last_ns > x->last_ns)
				x->last_ns = y->last_ns;
			free(y->idents);
			memmove(y, y + 1, (id->n_ranks - k - 1) * sizeof(*y));
			id->n_ranks--;
		}
	}
	return GS_OK;
}

static int cmp_rank(const void *pa, const void *pb)
{
	const struct gs_job_id_rank *a = pa, *b = pb;

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return 0;
}

/* Declared ranks when all are declared and distinct, else input order. */
static gs_status number_ranks(struct id_build *b, const struct gs_job_ident *in,
			      const char *const *names)
{
	struct gs_job_identity *j = b->id;
	size_t declared = 0, clash_a = 0, clash_b = 0;
	bool clash = false;

	for (size_t i = 0; i < j->n_ranks; i++) {
		if (!j->ranks[i].rank_declared)
			continue;
		declared++;
		for (size_t k = 0; k < i && !clash; k++)
			if (j->ranks[k].rank_declared && j->ranks[k].rank == j->ranks[i].rank) {
				clash = true;
				clash_a = k;
				clash_b = i;
			}
	}
	if (declared == j->n_ranks && !clash) {
		if (j->n_ranks > 1)
			qsort(j->ranks, j->n_ranks, sizeof(*j->ranks), cmp_rank);
		return GS_OK;
	}
	uint32_t clash_rank = clash ? j->ranks[clash_b].rank : 0;

	for (size_t i = 0; i < j->n_ranks; i++) {
		j->ranks[i].rank = (uint32_t)i;
		j->ranks[i].rank_declared = false;
	}
	if (clash)
		return id_warn(b,
			       "%s and %s both say they are rank %u: ranks are numbered in "
			       "the order of the inputs",
			       names[in[j->ranks[clash_a].idents[0]].input],
			       names[in[j->ranks[clash_b].idents[0]].input], clash_rank);
	if (declared)
		return id_warn(b,
			       "%zu of %zu processes say their rank: ranks are numbered in the "
			       "order of the inputs",
			       declared, j->n_ranks);
	return GS_OK;
}

/* Clock groups: ranks chained by overlapping or near spans. */
static gs_status group_clocks(struct id_build *b, const struct gs_job_ident *in,
			      const char *const *names)
{
	struct gs_job_identity *j = b->id;
	size_t n = j->n_ranks;
	size_t *order;
	uint32_t g = 0;
	int64_t reach = 0;

	if (!n)
		return GS_OK;
	order = malloc(n * sizeof(*order));
	if (!order)
		return gs_nomem();
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	for (size_t i = 1; i < n; i++)
		for (size_t k = i;
		     k > 0 && j->ranks[order[k - 1]].first_ns > j->ranks[order[k]].first_ns; k--) {
			size_t x = order[k];
			order[k] = order[k - 1];
			order[k - 1] = x;
		}
	for (size_t i = 0; i < n; i++) {
		struct gs_job_id_rank *r = &j->ranks[order[i]];

		if (i && r->first_ns - reach > JOB_CLOCK_GAP_NS)
			g++;
		if (!i || r->last_ns > reach)
			reach = r->last_ns;
		r->clock_group = g;
	}
	j->n_clock_groups = g + 1;
	free(order);
	if (g == 0)
		return GS_OK;
	for (size_t i = 1; i < n; i++) {
		const struct gs_job_id_rank *r = &j->ranks[i];

		if (r->clock_group == j->ranks[0].clock_group)
			continue;
		gs_status rc = id_warn(
			b,
			"rank %u (%s) cannot be one run with rank %u (%s): their times lie %.1f h "
			"apart; each is analyzed on its own window and the job compares only "
			"ranks of one run",
			r->rank, names[in[r->idents[0]].input], j->ranks[0].rank,
			names[in[j->ranks[0].idents[0]].input],
			(double)(r->first_ns > j->ranks[0].last_ns ?
					 r->first_ns - j->ranks[0].last_ns :
					 j->ranks[0].first_ns - r->last_ns) /
				3.6e12);
		if (rc)
			return rc;
	}
	return GS_OK;
}

void gs_job_identity_destroy(struct gs_job_identity *id)
{
	if (!id)
		return;
	for (size_t i = 0; i < id->n_ranks; i++)
		free(id->ranks[i].idents);
	for (size_t i = 0; i < id->n_warnings; i++)
		free(id->warnings[i]);
	free(id->ranks);
	free(id->warnings);
	free(id);
}

gs_status gs_job_identify(const struct gs_job_ident *in, size_t n, const char *const *names,
			  struct gs_job_identity **out)
{
	struct id_build b = {0};
	gs_status rc = GS_OK;

	*out = NULL;
	b.id = calloc(1, sizeof(*b.id));
	if (!b.id)
		return gs_nomem();
	b.id->ranks = calloc(n ? n : 1, sizeof(*b.id->ranks));
	if (!b.id->ranks)
		rc = gs_nomem();
	for (size_t i = 0; i < n && !rc; i++) {
		struct gs_job_id_rank *r = &b.id->ranks[b.id->n_ranks];

		r->idents = malloc(sizeof(*r->idents));
		if (!r->idents) {
			rc = gs_nomem();
			break;
		}
		b.id->n_ranks++;
		r->idents[0] = i;
		r->n_idents = 1;
		r->rank = in[i].rank;
		r->rank_declared = in[i].rank_declared;
		r->first_ns = in[i].first_ns;
		r->last_ns = in[i].last_ns;
	}
	if (!rc)
		rc = merge_same_process(&b, in, names);
	if (!rc)
		rc = number_ranks(&b, in, names);
	if (!rc)
		rc = group_clocks(&b, in, names);
	if (rc) {
		gs_job_identity_destroy(b.id);
		return rc;
	}
	*out = b.id;
	return GS_OK;
}

static const char *host_of(const struct gs_job_rank *r)
{
	return r->host == GS_NO_STRING ? "" : gs_trace_string(r->trace, r->host);
}

/* The job's ranks as gs_job_identify numbers them: merged inputs replayed
 * into one trace, in rank order. */
static gs_status apply_identity(struct job_build *b, const char *const *names)
{
	struct gs_job *j = b->j;
	struct gs_job_ident *in = calloc(j->n_ranks ? j->n_ranks : 1, sizeof(*in));
	struct gs_job_identity *id = NULL;
	struct gs_job_rank *ranks = NULL;
	gs_status rc;

	if (!in)
		return gs_nomem();
	for (size_t i = 0; i < j->n_ranks; i++) {
		const struct gs_job_rank *r = &j->ranks[i];

		in[i] = (struct gs_job_ident){.input = r->input,
					      .pid = r->pid,
					      .host = host_of(r),
					      .rank_declared = r->rank_declared,
					      .rank = r->rank,
					      .world_size = r->world_size,
					      .first_ns = r->first_ns,
					      .last_ns = r->last_ns};
	}
	rc = gs_job_identify(in, j->n_ranks, names, &id);
	free(in);
	if (!rc) {
		ranks = calloc(id->n_ranks ? id->n_ranks : 1, sizeof(*ranks));
		if (!ranks)
			rc = gs_nomem();
	}
	for (size_t i = 0; !rc && i < id->n_ranks; i++) {
		const struct gs_job_id_rank *q = &id->ranks[i];
		struct gs_job_rank *x = &ranks[i];

		*x = j->ranks[q->idents[0]];
		j->ranks[q->idents[0]].trace = NULL;
		for (size_t k = 1; k < q->n_idents && !rc; k++) {
			struct gs_job_rank *y = &j->ranks[q->idents[k]];
			struct gs_trace *m = NULL;
			uint64_t both = 0;

			/* What both inputs hold (a trace cut in two with an
			 * overlap) is kept once: job_merge.c. */
			rc = gs_job_merge_traces(x->trace, y->trace, &m, &both);
			if (!rc && both)
				rc = job_warn(b,
					      "%s and %s hold %" PRIu64 " identical records (one "
					      "process recorded in both): each kept once",
					      names[x->input], names[y->input], both);
			if (rc) {
				gs_trace_destroy(m);
				break;
			}
			gs_trace_destroy(x->trace);
			gs_trace_destroy(y->trace);
			y->trace = NULL;
			x->trace = m;
			if (x->host != GS_NO_STRING) {
				/* Replay keeps string ids of the first trace. */
				const struct gs_process *p = process_of(m, x->pid);
				x->host = p ? p->host_name : GS_NO_STRING;
			}
		}
		x->rank = q->rank;
		x->rank_declared = q->rank_declared;
		x->clock_group = q->clock_group;
		x->first_ns = q->first_ns;
		x->last_ns = q->last_ns;
	}
	if (!rc) {
		for (size_t i = 0; i < id->n_warnings && !rc; i++)
			rc = job_warn(b, "%s", id->warnings[i]);
		j->n_clock_groups = id->n_clock_groups;
	}
	if (rc) {
		for (size_t i = 0; ranks && i < id->n_ranks; i++)
			gs_trace_destroy(ranks[i].trace);
		free(ranks);
		gs_job_identity_destroy(id);
		return rc;
	}
	for (size_t i = 0; i < j->n_ranks; i++)
		gs_trace_destroy(j->ranks[i].trace);
	free(j->ranks);
	j->ranks = ranks;
	j->n_ranks = id->n_ranks;
	b->cap_ranks = id->n_ranks;
	gs_job_identity_destroy(id);
	return GS_OK;
}

gs_status gs_job_from_traces(struct gs_trace **traces, const char *const *names, size_t n,
			     struct gs_job **out)
{
	struct job_build b = {0};
	gs_status rc = GS_OK;
	size_t i;

	*out = NULL;
	b.j = calloc(1, sizeof(*b.j));
	if (!b.j) {
		for (i = 0; i < n; i++)
			gs_trace_destroy(traces[i]);
		return gs_nomem();
	}
	for (i = 0; i < n && !rc; i++) {
		rc = add_input(&b, traces[i], i, names[i]);
		traces[i] = NULL;
	}
	for (; i < n; i++) {
		gs_trace_destroy(traces[i]);
		traces[i] = NULL;
	}
	if (!rc)
		rc = apply_identity(&b, names);
	if (rc) {
		gs_job_destroy(b.j);
		return rc;
	}
	*out = b.j;
	return GS_OK;
}

gs_status gs_job_from_input(struct gs_trace *t, size_t input, const char *name, struct gs_job **out)
{
	struct job_build b = {0};
	gs_status rc;

	*out = NULL;
	b.j = calloc(1, sizeof(*b.j));
	if (!b.j) {
		gs_trace_destroy(t);
		return gs_nomem();
	}
	rc = add_input(&b, t, input, name);
	if (rc) {
		gs_job_destroy(b.j);
		return rc;
	}
	*out = b.j;
	return GS_OK;
}

gs_status gs_job_load(const char *const *paths, size_t n, const struct gs_load_options *opts,
		      struct gs_job **out, enum gs_input_format *fmts, size_t *failed)
{
	struct gs_load_options o = {0};
	struct gs_trace **traces;
	const char **names;
	gs_status rc;

	*out = NULL;
	if (opts)
		o = *opts;
	if (n > 1)
		o.load_flags |= GS_LOAD_NAME_WARNINGS;
	traces = calloc(n ? n : 1,
			sizeof(*traces)); /* NOLINT(bugprone-sizeof-expression): pointers */
	if (!traces)
		return gs_nomem();
	names = calloc(n ? n : 1, sizeof(*names));
	if (!names) {
		free(traces);
		return gs_nomem();
	}
	/* Warnings name each input as its errors do ("stdin" for "-"). */
	for (size_t i = 0; i < n; i++)
		names[i] = gs_input_name(paths[i]);
	rc = gs_trace_load_each(paths, n, &o, traces, fmts, failed);
	if (!rc)
		rc = gs_job_from_traces(traces, names, n, out);
	free(traces);
	free(names);
	return rc;
}

void gs_job_destroy(struct gs_job *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->n_ranks; i++)
		gs_trace_destroy(j->ranks[i].trace);
	for (size_t i = 0; i < j->n_warnings; i++)
		free(j->warnings[i]);
	free(j->ranks);
	free(j->warnings);
	free(j);
}

const struct gs_job_rank *gs_job_find_rank(const struct gs_job *j, uint32_t rank)
{
	for (size_t i = 0; i < j->n_ranks; i++)
		if (j->ranks[i].rank == rank)
			return &j->ranks[i];
	return NULL;
}
