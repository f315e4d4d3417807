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
#include <gpuscope/names.h>
#include <gpuscope/text.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/trace_sink.h>

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

static gs_status filter_intern(struct gs_sink *s, const char *str, size_t len, uint32_t *id)
{
	return pf(s)->next->intern(pf(s)->next, str, len, id);
}

static gs_status filter_stream(struct gs_sink *s, const struct gs_stream *st, uint32_t *index)
{
	struct pid_filter *f = pf(s);

	if (st->pid != f->pid) {
		*index = JOB_DROPPED;
		return GS_OK;
	}
	return f->next->stream(f->next, st, index);
}

static gs_status filter_process(struct gs_sink *s, const struct gs_process *p)
{
	return p->pid == pf(s)->pid ? pf(s)->next->process(pf(s)->next, p) : GS_OK;
}

static gs_status filter_device(struct gs_sink *s, const struct gs_device *d)
{
	return pf(s)->next->device(pf(s)->next, d);
}

static gs_status filter_op(struct gs_sink *s, const struct gs_op *op,
			   const struct gs_launch_cfg *launch)
{
	if (op->stream == JOB_DROPPED || op->stream == GS_NO_INDEX)
		return GS_OK;
	return pf(s)->next->op(pf(s)->next, op, launch);
}

static gs_status filter_collective(struct gs_sink *s, const struct gs_collective *c,
				   uint32_t *index)
{
	return pf(s)->next->collective(pf(s)->next, c, index);
}

static gs_status filter_api_call(struct gs_sink *s, const struct gs_api_call *c)
{
	return c->pid == pf(s)->pid ? pf(s)->next->api_call(pf(s)->next, c) : GS_OK;
}

static gs_status filter_sync(struct gs_sink *s, const struct gs_sync *y)
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

static gs_status filter_event_record(struct gs_sink *s, const struct gs_event_record *e)
{
	if (e->stream == JOB_DROPPED || e->stream == GS_NO_INDEX)
		return GS_OK;
	return pf(s)->next->event_record(pf(s)->next, e);
}

static gs_status filter_allocation(struct gs_sink *s, const struct gs_allocation *a,
				   uint32_t *index)
{
	if (a->pid != pf(s)->pid) {
		*index = JOB_DROPPED;
		return GS_OK;
	}
	return pf(s)->next->allocation(pf(s)->next, a, index);
}

static gs_status filter_op_alloc(struct gs_sink *s, const struct gs_op_alloc *l)
{
	if (l->allocation == JOB_DROPPED)
		return GS_OK;
	return pf(s)->next->op_alloc(pf(s)->next, l);
}

static gs_status filter_range(struct gs_sink *s, const struct gs_range *r)
{
	return r->pid == pf(s)->pid ? pf(s)->next->range(pf(s)->next, r) : GS_OK;
}

static gs_status filter_overhead(struct gs_sink *s, const struct gs_overhead *o)
{
	return o->pid == pf(s)->pid ? pf(s)->next->overhead(pf(s)->next, o) : GS_OK;
}

static gs_status filter_clock_pair(struct gs_sink *s, const struct gs_clock_pair *c)
{
	return c->pid == pf(s)->pid ? pf(s)->next->clock_pair(pf(s)->next, c) : GS_OK;
}

static gs_status filter_dropped(struct gs_sink *s, int64_t pid, uint64_t count)
{
	return pid == pf(s)->pid ? pf(s)->next->dropped(pf(s)->next, pid, count) : GS_OK;
}

static gs_status filter_warning(struct gs_sink *s, const char *msg, uint64_t count, unsigned kind)
{
	return pf(s)->warnings ? pf(s)->next->warning(pf(s)->next, msg, count, kind) : GS_OK;
}

/* The records of `pid` in `src` (finished) as a new finished trace. */
static gs_status split_one(const struct gs_trace *src, int64_t pid, bool warnings,
			   struct gs_trace **out)
{
	struct pid_filter f = {
		.sink =
			{
				.intern = filter_intern,
				.stream = filter_stream,
				.process = filter_process,
				.device = filter_device,
				.op = filter_op,
				.collective = filter_collective,
				.api_call = filter_api_call,
				.sync = filter_sync,
				.event_record = filter_event_record,
				.allocation = filter_allocation,
				.op_alloc = filter_op_alloc,
				.range = filter_range,
				.overhead = filter_overhead,
				.clock_pair = filter_clock_pair,
				.dropped = filter_dropped,
				.warning = filter_warning,
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

/* The rank's host: its process's, else its file's name. */
static void rank_host(struct gs_job_rank *r, const char *name)
{
	const char *h = r->host == GS_NO_STRING ? "" : gs_trace_string(r->trace, r->host);

	r->host_from_name = false;
	if (h && *h) {
		snprintf(r->host_name, sizeof(r->host_name), "%s", h);
		return;
	}
	r->host_name[0] = '\0';
	if (name && gs_job_host_from_name(name, r->pid, r->host_name, sizeof(r->host_name)))
		r->host_from_name = true;
}

static gs_status add_rank(struct job_build *b, struct gs_trace *t, size_t input, int64_t pid,
			  const char *name)
{
	const struct gs_process *p = process_of(t, pid);
	struct gs_job_rank r = {.trace = t, .input = input, .pid = pid, .host = GS_NO_STRING};

	if (p) {
		r.pid = p->pid;
		r.host = p->host_name;
		r.rank_declared = p->has_rank;
		r.rank = p->rank;
		r.world_size = p->world_size;
		r.clock = p->clock;
		r.wall_offset_ns = p->clock ? p->wall_offset_ns : 0;
		r.capture = p->capture;
	}
	rank_host(&r, name);
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
		return add_rank(b, t, input, pid, name);
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
			rc = add_rank(b, part, input, pids[i], name);
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
			    (x->rank_declared && x->rank != y->rank) || !x->clock != !y->clock ||
			    x->wall_offset_ns != y->wall_offset_ns || !spans_overlap(x, y)) {
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

/* ---- clock groups and domains ---- */

static size_t union_find(size_t *up, size_t i)
{
	while (up[i] != i) {
		up[i] = up[up[i]];
		i = up[i];
	}
	return i;
}

/* Joins the sets of a and b; the smaller index is the root, so that a set's
 * root is its first rank. */
static void union_join(size_t *up, size_t a, size_t b)
{
	a = union_find(up, a);
	b = union_find(up, b);
	if (a < b)
		up[b] = a;
	else if (b < a)
		up[a] = b;
}

/* A rank's span on the clock it is compared on: wall time when known. */
static int64_t span_start(const struct gs_job_id_rank *r)
{
	return r->clock ? r->first_ns + r->wall_offset_ns : r->first_ns;
}

static int64_t span_end(const struct gs_job_id_rank *r)
{
	return r->clock ? r->last_ns + r->wall_offset_ns : r->last_ns;
}

struct span_key {
	int64_t start;
	size_t i;
};

static int cmp_span_key(const void *pa, const void *pb)
{
	const struct span_key *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/*
 * Joins, among the ranks whose clock is (or is not) known, those that can
 * be one run: known, spans that overlap in wall time (a chain of them);
 * not known, spans that overlap or lie within JOB_CLOCK_GAP_NS.
 */
static gs_status join_by_time(struct gs_job_identity *j, size_t *up, bool known)
{
	struct span_key *k = malloc((j->n_ranks ? j->n_ranks : 1) * sizeof(*k));
	size_t n = 0;
	int64_t reach = 0;

	if (!k)
		return gs_nomem();
	for (size_t i = 0; i < j->n_ranks; i++)
		if ((j->ranks[i].clock != 0) == known)
			k[n++] = (struct span_key){span_start(&j->ranks[i]), i};
	if (n > 1)
		qsort(k, n, sizeof(*k), cmp_span_key);
	for (size_t x = 0; x < n; x++) {
		const struct gs_job_id_rank *r = &j->ranks[k[x].i];

		if (x && (known ? k[x].start <= reach : k[x].start - reach <= JOB_CLOCK_GAP_NS))
			union_join(up, k[x - 1].i, k[x].i);
		if (!x || span_end(r) > reach)
			reach = span_end(r);
	}
	free(k);
	return GS_OK;
}

/* Two ranks of one input that may share its clock: hosts not known to
 * differ, wall clocks the same. (An input is one capture, but gpuscope's
 * own export of a job holds the ranks of several hosts and runs, each
 * with its clock.) */
static bool one_clock(const struct gs_job_identity *j, const struct gs_job_ident *in, size_t a,
		      size_t b)
{
	const struct gs_job_id_rank *x = &j->ranks[a], *y = &j->ranks[b];
	const char *hx = in[x->idents[0]].host, *hy = in[y->idents[0]].host;

	if (*hx && *hy && strcmp(hx, hy) != 0)
		return false;
	if (in[x->idents[0]].capture != in[y->idents[0]].capture)
		return false;
	return x->clock == y->clock && x->wall_offset_ns == y->wall_offset_ns;
}

/* Joins the ranks that came from one input and share its clock. */
static gs_status join_by_input(struct gs_job_identity *j, const struct gs_job_ident *in,
			       size_t n_in, size_t *up)
{
	size_t n_inputs = 0, *first, *next;

	for (size_t i = 0; i < n_in; i++)
		if (in[i].input + 1 > n_inputs)
			n_inputs = in[i].input + 1;
	first = malloc((n_inputs ? n_inputs : 1) * sizeof(*first));
	next = malloc((j->n_ranks ? j->n_ranks : 1) * sizeof(*next));
	if (!first || !next) {
		free(first);
		free(next);
		return gs_nomem();
	}
	for (size_t i = 0; i < n_inputs; i++)
		first[i] = SIZE_MAX;
	/* Per input, a chain of the ranks that each start a clock of it. */
	for (size_t i = 0; i < j->n_ranks; i++) {
		size_t input = in[j->ranks[i].idents[0]].input, r;

		next[i] = SIZE_MAX;
		for (r = first[input]; r != SIZE_MAX; r = next[r])
			if (one_clock(j, in, r, i))
				break;
		if (r != SIZE_MAX) {
			union_join(up, r, i);
			continue;
		}
		next[i] = first[input];
		first[input] = i;
	}
	free(first);
	free(next);
	return GS_OK;
}

/* The ranks of one clock group (those whose root in up is `root`), one by
 * one, counted. */
struct group_iter {
	const struct gs_job_identity *j;
	size_t *up, root, i, count;
};

static bool group_next(void *ctx, uint32_t *v)
{
	struct group_iter *it = ctx;

	while (it->i < it->j->n_ranks && union_find(it->up, it->i) != it->root)
		it->i++;
	if (it->i >= it->j->n_ranks)
		return false;
	*v = it->j->ranks[it->i++].rank;
	it->count++;
	return true;
}

/* "ranks 4-7, 9" of the ranks whose root in up is `root`, six runs at
 * most; *count of them all. */
static void group_ranks_text(const struct gs_job_identity *j, size_t *up, size_t root, char *buf,
			     size_t size, size_t *count)
{
	struct group_iter it = {j, up, root, 0, 0};
	uint32_t v;

	gs_text_runs(buf, size, group_next, &it, 6, false);
	while (group_next(&it, &v))
		;
	*count = it.count;
}

/* How far apart two groups' spans lie, in hours (0 when they overlap). */
static double gap_hours(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
	if (b0 >= a1)
		return (double)(b0 - a1) / 3.6e12;
	if (a0 >= b1)
		return (double)(a0 - b1) / 3.6e12;
	return 0;
}

/* One warning per clock group but the first rank's: which ranks, and why
 * they cannot be compared with it. */
static gs_status warn_groups(struct id_build *b, const struct gs_job_ident *in,
			     const char *const *names, size_t *up)
{
	struct gs_job_identity *j = b->id;
	const struct gs_job_id_rank *r0 = &j->ranks[0];
	size_t root0 = union_find(up, 0);
	int64_t a0 = INT64_MAX, a1 = INT64_MIN;
	gs_status rc = GS_OK;

	for (size_t i = 0; i < j->n_ranks; i++)
		if (union_find(up, i) == root0) {
			a0 = span_start(&j->ranks[i]) < a0 ? span_start(&j->ranks[i]) : a0;
			a1 = span_end(&j->ranks[i]) > a1 ? span_end(&j->ranks[i]) : a1;
		}
	for (size_t g = 1; g < j->n_ranks && !rc; g++) {
		const struct gs_job_id_rank *r = &j->ranks[g];
		int64_t b0 = INT64_MAX, b1 = INT64_MIN;
		char list[160], why[320];
		size_t count;

		if (union_find(up, g) != g || g == root0)
			continue;
		for (size_t i = g; i < j->n_ranks; i++)
			if (union_find(up, i) == g) {
				b0 = span_start(&j->ranks[i]) < b0 ? span_start(&j->ranks[i]) : b0;
				b1 = span_end(&j->ranks[i]) > b1 ? span_end(&j->ranks[i]) : b1;
			}
		group_ranks_text(j, up, g, list, sizeof(list), &count);
		if (r->clock && r0->clock)
			snprintf(
				why, sizeof(why),
				"their captures do not overlap in wall time (%.1f h apart, by %s and "
				"%s)",
				gap_hours(a0, a1, b0, b1), gs_clock_source_text(r->clock),
				gs_clock_source_text(r0->clock));
		else if (!r->clock && !r0->clock)
			snprintf(why, sizeof(why), "their times lie %.1f h apart",
				 gap_hours(a0, a1, b0, b1));
		else
			snprintf(why, sizeof(why),
				 "the wall-clock time of %s is known (%s) and that of %s is not, "
				 "so they cannot be placed on one clock",
				 r->clock ? (count > 1 ? "those ranks" : "that rank") : "rank 0's",
				 gs_clock_source_text(r->clock ? r->clock : r0->clock),
				 r->clock ? "rank 0's" : (count > 1 ? "those ranks" : "that rank"));
		rc = id_warn(
			b,
			"rank%s %s (%s%s) cannot be one run with rank %u (%s): %s; each is "
			"analyzed on its own window and the job compares only ranks of one run",
			count > 1 ? "s" : "", list, names[in[r->idents[0]].input],
			count > 1 ? ", ..." : "", r0->rank, names[in[r0->idents[0]].input], why);
	}
	return rc;
}

struct host_key {
	uint32_t group;
	const char *host;
	size_t i;
};

static int cmp_host_key(const void *pa, const void *pb)
{
	const struct host_key *a = pa, *b = pb;
	int c;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	c = strcmp(a->host, b->host);
	if (c)
		return c;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* Clock domains: within a group, the ranks of one host or one input. */
static gs_status number_domains(struct gs_job_identity *j, const struct gs_job_ident *in,
				size_t n_in, size_t *up)
{
	struct host_key *k = malloc((j->n_ranks ? j->n_ranks : 1) * sizeof(*k));
	size_t n = 0, root;
	uint32_t d = 0;
	uint32_t *id;
	gs_status rc = GS_OK;

	if (!k)
		return gs_nomem();
	for (size_t i = 0; i < j->n_ranks; i++) {
		up[i] = i;
		if (*in[j->ranks[i].idents[0]].host)
			k[n++] = (struct host_key){j->ranks[i].clock_group,
						   in[j->ranks[i].idents[0]].host, i};
	}
	if (n > 1)
		qsort(k, n, sizeof(*k), cmp_host_key);
	for (size_t x = 1; x < n; x++)
		if (k[x].group == k[x - 1].group && !strcmp(k[x].host, k[x - 1].host))
			union_join(up, k[x - 1].i, k[x].i);
	free(k);
	/* One input is one clock, within its group (an input's ranks share
	 * a group). */
	rc = join_by_input(j, in, n_in, up);
	if (rc)
		return rc;
	id = malloc((j->n_ranks ? j->n_ranks : 1) * sizeof(*id));
	if (!id)
		return gs_nomem();
	for (size_t i = 0; i < j->n_ranks; i++) {
		root = union_find(up, i);
		if (root == i)
			id[i] = d++;
		j->ranks[i].clock_domain = id[root];
	}
	j->n_clock_domains = d;
	free(id);
	return GS_OK;
}

/* Clock groups (the header of gpuscope/import.h says which ranks can be
 * one run), numbered in the order of their first rank; then domains. */
static gs_status group_clocks(struct id_build *b, const struct gs_job_ident *in, size_t n_in,
			      const char *const *names)
{
	struct gs_job_identity *j = b->id;
	size_t n = j->n_ranks, *up;
	uint32_t g = 0, *gid;
	gs_status rc;

	if (!n)
		return GS_OK;
	up = malloc(n * sizeof(*up));
	gid = malloc(n * sizeof(*gid));
	if (!up || !gid) {
		free(up);
		free(gid);
		return gs_nomem();
	}
	for (size_t i = 0; i < n; i++)
		up[i] = i;
	rc = join_by_input(j, in, n_in, up);
	if (!rc)
		rc = join_by_time(j, up, true);
	if (!rc)
		rc = join_by_time(j, up, false);
	for (size_t i = 0; !rc && i < n; i++) {
		size_t root = union_find(up, i);

		if (root == i)
			gid[i] = g++;
		j->ranks[i].clock_group = gid[root];
	}
	if (!rc) {
		j->n_clock_groups = g;
		if (g > 1)
			rc = warn_groups(b, in, names, up);
	}
	if (!rc)
		rc = number_domains(j, in, n_in, up);
	free(up);
	free(gid);
	return rc;
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
		r->clock = in[i].clock < GS_CLOCK_SOURCE_COUNT ? in[i].clock : GS_CLOCK_NONE;
		r->wall_offset_ns = r->clock ? in[i].wall_offset_ns : 0;
	}
	if (!rc)
		rc = merge_same_process(&b, in, names);
	if (!rc)
		rc = number_ranks(&b, in, names);
	if (!rc)
		rc = group_clocks(&b, in, n, names);
	if (rc) {
		gs_job_identity_destroy(b.id);
		return rc;
	}
	*out = b.id;
	return GS_OK;
}

/* The inputs of rank x that are one process (q's), merged into x's trace
 * at once: what two inputs hold alike (a trace cut in two with an overlap)
 * is kept once (job_merge.c), with a warning for each input that held
 * some. */
static gs_status merge_inputs(struct job_build *b, struct gs_job_rank *x,
			      const struct gs_job_id_rank *q, const char *const *names)
{
	struct gs_job *j = b->j;
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
	const struct gs_trace **in = malloc(q->n_idents * sizeof(*in));
	uint64_t *both = malloc(q->n_idents * sizeof(*both));
	struct gs_trace *m = NULL;
	gs_status rc = GS_OK;

	if (!in || !both) {
		free(in);
		free(both);
		return gs_nomem();
	}
	in[0] = x->trace;
	for (size_t k = 1; k < q->n_idents; k++)
		in[k] = j->ranks[q->idents[k]].trace;
	rc = gs_job_merge_traces_n(in, q->n_idents, &m, both);
	for (size_t k = 1; !rc && k < q->n_idents; k++)
		if (both[k])
			rc = job_warn(b,
				      "%s and %s hold %" PRIu64 " identical records (one "
				      "process recorded in both): each kept once",
				      names[x->input], names[j->ranks[q->idents[k]].input],
				      both[k]);
	free(in);
	free(both);
	if (rc) {
		gs_trace_destroy(m);
		return rc;
	}
	gs_trace_destroy(x->trace);
	for (size_t k = 1; k < q->n_idents; k++) {
		gs_trace_destroy(j->ranks[q->idents[k]].trace);
		j->ranks[q->idents[k]].trace = NULL;
	}
	x->trace = m;
	if (x->host != GS_NO_STRING) {
		/* Replay keeps string ids of the first trace. */
		const struct gs_process *p = process_of(m, x->pid);
		x->host = p ? p->host_name : GS_NO_STRING;
	}
	return GS_OK;
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
					      .host = r->host_name,
					      .rank_declared = r->rank_declared,
					      .rank = r->rank,
					      .world_size = r->world_size,
					      .first_ns = r->first_ns,
					      .last_ns = r->last_ns,
					      .clock = r->clock,
					      .wall_offset_ns = r->wall_offset_ns,
					      .capture = r->capture};
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
		if (q->n_idents > 1)
			rc = merge_inputs(b, x, q, names);
		x->rank = q->rank;
		x->rank_declared = q->rank_declared;
		x->clock_group = q->clock_group;
		x->clock_domain = q->clock_domain;
		x->first_ns = q->first_ns;
		x->last_ns = q->last_ns;
	}
	if (!rc) {
		for (size_t i = 0; i < id->n_warnings && !rc; i++)
			rc = job_warn(b, "%s", id->warnings[i]);
		j->n_clock_groups = id->n_clock_groups;
		j->n_clock_domains = id->n_clock_domains;
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

/* n digits (at least one) at p. */
static bool all_digits(const char *p, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return false;
	return true;
}

bool gs_job_host_from_name(const char *path, int64_t pid, char *buf, size_t size)
{
	static const char *const suffixes[] = {".pt.trace.json.gz", ".pt.trace.json"};
	const char *base = strrchr(path, '/'), *dot, *us;
	size_t n = 0, host_len;
	bool ok = false;

	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]) && !ok; i++) {
		size_t len = strlen(base), sl = strlen(suffixes[i]);

		if (len > sl && !strcmp(base + len - sl, suffixes[i])) {
			n = len - sl;
			ok = true;
		}
	}
	if (!ok)
		return false;
	/* {host}_{pid}.{ns}: the ns after the last dot, the pid after the last
	 * underscore before it. */
	dot = NULL;
	for (size_t i = n; i > 0; i--)
		if (base[i - 1] == '.') {
			dot = base + i - 1;
			break;
		}
	if (!dot || !all_digits(dot + 1, (size_t)(base + n - dot - 1)))
		return false;
	us = NULL;
	for (const char *p = dot; p > base; p--)
		if (p[-1] == '_') {
			us = p - 1;
			break;
		}
	if (!us || us == base || !all_digits(us + 1, (size_t)(dot - us - 1)) || dot - us - 1 > 18)
		return false;
	if (pid >= 0) {
		long long v = strtoll(us + 1, NULL, 10);

		if (v != pid)
			return false;
	}
	host_len = (size_t)(us - base);
	if (host_len + 1 > size)
		return false;
	memcpy(buf, base, host_len);
	buf[host_len] = '\0';
	return true;
}
