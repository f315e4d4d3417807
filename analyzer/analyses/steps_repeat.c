/* SPDX-License-Identifier: MIT */
/*
 * Steps from a repeated top-level annotation (steps_priv.h).
 *
 * The annotation ranges (user annotations, NVTX) sorted by (thread, start,
 * longest first) and swept once per thread: a range is top-level when no
 * other annotation range of its thread encloses it or crosses it (each
 * reaching into the other), so the top-level ranges of a thread never
 * overlap. Names are grouped as equal but for their runs of digits ("iter
 * 7", "iter 8"). A group is in the running when it has two ranges or more,
 * every one of them top-level, no two of one process overlapping (on other
 * threads), and they launch GPU work: ops whose launch call starts inside
 * one of them on its thread, counted by a search per op over the ranges of
 * the groups in the running. The winner: the most ranges, then the most
 * ops, then the earliest first range. O(R log R + N log C).
 */
#include "analyzer_priv.h"
#include "steps_priv.h"

#include <gpuscope/search.h>
#include <gpuscope/sort.h>
#include <gpuscope/steps.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/window.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An annotation range. */
struct rp_cand {
	int64_t pid;
	int64_t tid;
	int64_t start;
	int64_t end;
	uint32_t name;
	uint32_t group; /* names equal but for their numbers */
	bool top;
	bool twin; /* the same name and span as the one before: one range */
};

/* A distinct name and its group. */
struct rp_name {
	uint32_t name;
	uint32_t group;
	const char *text;
};

/* A top-level range of a group in the running, as the launch calls of
 * its thread that start inside it: calls[lo .. hi). */
struct rp_span {
	size_t lo;
	size_t hi;
	uint32_t group;
};

/* Per group. */
struct rp_group {
	uint64_t ranges;
	uint64_t nested; /* ranges not top-level */
	uint64_t ops;
	int64_t first_start;
	bool out; /* two of its ranges in one process overlap */
};

static int cmp_thread_time(const void *pa, const void *pb)
{
	const struct rp_cand *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end) /* the enclosing one first */
		return a->end > b->end ? -1 : 1;
	return (a->name > b->name) - (a->name < b->name);
}

static int cmp_group_time(const void *pa, const void *pb)
{
	const struct rp_cand *a = pa, *b = pb;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

static int cmp_name_id(const void *pa, const void *pb)
{
	const struct rp_name *a = pa, *b = pb;

	return (a->name > b->name) - (a->name < b->name);
}

/* For the search of a name id among the distinct names sorted by id. */
struct rp_name_key {
	const struct rp_name *names;
	uint32_t name;
};

static bool name_before(const void *ctx, size_t i)
{
	const struct rp_name_key *k = ctx;

	return k->names[i].name < k->name;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Two names compared with each run of digits as one and the same symbol
 * (ordered as '0'). */
static int cmp_but_numbers(const char *a, const char *b)
{
	for (;;) {
		bool da = is_digit(*a), db = is_digit(*b);
		unsigned char va = da ? '0' : (unsigned char)*a, vb = db ? '0' : (unsigned char)*b;

		if (va != vb)
			return va < vb ? -1 : 1;
		if (!va)
			return 0;
		if (da) {
			while (is_digit(*a))
				a++;
			while (is_digit(*b))
				b++;
		} else {
			a++;
			b++;
		}
	}
}

static int cmp_name_text(const void *pa, const void *pb)
{
	const struct rp_name *a = pa, *b = pb;
	int c = cmp_but_numbers(a->text, b->text);

	return c ? c : cmp_name_id(pa, pb);
}

static int cmp_span(const void *pa, const void *pb)
{
	const struct rp_span *a = pa, *b = pb;

	return (a->lo > b->lo) - (a->lo < b->lo);
}

/* The annotation ranges of the trace (*n of them), their groups numbered
 * 0 .. *n_groups - 1. */
static gs_status annotations(const struct gs_trace *t, struct rp_cand **out, size_t *n,
			     size_t *n_groups)
{
	size_t na, nr, m = 0, d = 0;
	const uint32_t *ann = gs_trace_annotation_ranges(t, &na);
	const struct gs_range *r = gs_trace_ranges(t, &nr);
	struct rp_cand *c = malloc((na ? na : 1) * sizeof(*c));
	struct rp_name *names = malloc((na ? na : 1) * sizeof(*names));

	*out = NULL;
	*n = *n_groups = 0;
	if (!c || !names) {
		free(c);
		free(names);
		return gs_nomem();
	}
	for (size_t i = 0; i < na; i++) {
		const struct gs_range *x = &r[ann[i]];

		if (x->kind == GS_RANGE_GPU_ANNOTATION || x->end_ns <= x->start_ns ||
		    !*gs_trace_string(t, x->name))
			continue;
		c[m] = (struct rp_cand){.pid = x->pid,
					.tid = x->tid,
					.start = x->start_ns,
					.end = x->end_ns,
					.name = x->name};
		names[m++] = (struct rp_name){.name = x->name};
	}
	/* The distinct names, grouped by their text but for its numbers. */
	gs_sort(names, m, sizeof(*names), cmp_name_id);
	for (size_t i = 0; i < m; i++)
		if (!d || names[i].name != names[d - 1].name)
			names[d++] = names[i];
	for (size_t i = 0; i < d; i++)
		names[i].text = gs_trace_string(t, names[i].name);
	gs_sort(names, d, sizeof(*names), cmp_name_text);
	for (size_t i = 0; i < d; i++) {
		if (i && cmp_but_numbers(names[i].text, names[i - 1].text))
			(*n_groups)++;
		names[i].group = (uint32_t)*n_groups;
	}
	*n_groups += d > 0;
	gs_sort(names, d, sizeof(*names), cmp_name_id);
	for (size_t i = 0; i < m; i++) {
		struct rp_name_key key = {names, c[i].name};
		size_t f = gs_partition_point(d, name_before, &key);

		c[i].group = f < d ? names[f].group : 0; /* (always found) */
	}
	free(names);
	*out = c;
	*n = m;
	return GS_OK;
}

/* Mark the top-level ranges: per thread, a run of ranges each starting
 * before the latest end so far is one cluster; its first range is
 * top-level when it encloses every other one of the run and no other of
 * another name has its very span. */
static void mark_top(struct rp_cand *c, size_t n)
{
	size_t c0 = 0;
	int64_t reach = 0;
	bool shared = false;

	gs_sort(c, n, sizeof(*c), cmp_thread_time);
	for (size_t i = 0; i <= n; i++) {
		if (i < n && i > 0 && c[i].pid == c[c0].pid && c[i].tid == c[c0].tid &&
		    c[i].start < reach) {
			c[i].twin = c[i].start == c[i - 1].start && c[i].end == c[i - 1].end &&
				    c[i].name == c[i - 1].name;
			shared |= c[i].start == c[c0].start && c[i].end == c[c0].end &&
				  c[i].name != c[c0].name;
			if (c[i].end > reach)
				reach = c[i].end;
			continue;
		}
		if (i > 0)
			c[c0].top = reach == c[c0].end && !shared;
		if (i == n)
			break;
		c0 = i;
		reach = c[i].end;
		shared = false;
	}
}

/* The spans searched for a call: those starting at or before it come first. */
struct span_key {
	const struct rp_span *s;
	size_t call;
};

static bool span_before(const void *ctx, size_t i)
{
	const struct span_key *k = ctx;

	return k->s[i].lo <= k->call;
}

/* The first call of calls[lo .. hi) that starts at or after t. */
static size_t first_call_from(const struct gs_api_call *calls, size_t lo, size_t hi, int64_t t)
{
	return lo + gs_lower_bound_i64_at(calls + lo, hi - lo, sizeof(*calls),
					  offsetof(struct gs_api_call, start_ns), t);
}

/* The GPU ops each group in the running launched: per op, its launch
 * call among the spans of the top-level ranges c[0 .. n). */
static gs_status count_ops(const struct gs_trace *t, const struct gs_step_options *o,
			   const struct rp_cand *c, size_t n, struct rp_group *g)
{
	size_t n_ops, n_launch, n_api, n_threads, m = 0;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const uint32_t *launch = gs_trace_op_launches(t, &n_launch);
	const struct gs_api_call *api = gs_trace_api_calls(t, &n_api);
	const struct gs_thread *th = gs_trace_threads(t, &n_threads);
	struct rp_span *s = malloc((n ? n : 1) * sizeof(*s));

	if (!s)
		return gs_nomem();
	for (size_t i = 0; i < n; i++) {
		uint32_t k = gs_trace_find_thread(t, c[i].pid, c[i].tid);
		size_t lo, hi;

		if (k == GS_NO_INDEX || k >= n_threads)
			continue;
		lo = first_call_from(api, th[k].first_api, th[k].first_api + th[k].api_count,
				     c[i].start);
		hi = first_call_from(api, lo, th[k].first_api + th[k].api_count, c[i].end);
		if (lo < hi)
			s[m++] = (struct rp_span){.lo = lo, .hi = hi, .group = c[i].group};
	}
	/* Top-level ranges of one thread never overlap: the spans are
	 * disjoint, and by lo each op's call has one place. */
	gs_sort(s, m, sizeof(*s), cmp_span);
	for (size_t i = 0; m && i < n_ops && i < n_launch; i++) {
		size_t lo, call = launch[i];
		struct span_key key = {s, call};

		if (call >= n_api || (o->has_device && gs_op_device(t, &ops[i]) != o->device))
			continue;
		lo = gs_partition_point(m, span_before,
					&key); /* the first span starting after the call */
		if (lo && call < s[lo - 1].hi)
			g[s[lo - 1].group].ops++;
	}
	free(s);
	return GS_OK;
}

/* The name as the source text gives it: each run of digits as N. */
static char *source_text(const char *name)
{
	static const char head[] = "repeated top-level range \"";
	size_t len = strlen(name);
	char *buf = malloc(sizeof(head) + len + 2), *p;

	if (!buf)
		return NULL;
	memcpy(buf, head, sizeof(head) - 1);
	p = buf + sizeof(head) - 1;
	while (*name) {
		if (is_digit(*name)) {
			*p++ = 'N';
			while (is_digit(*name))
				name++;
		} else {
			*p++ = *name++;
		}
	}
	*p++ = '"';
	*p = '\0';
	return buf;
}

/* The group that wins, or SIZE_MAX. */
static size_t winner(const struct rp_group *g, size_t n_groups)
{
	size_t best = SIZE_MAX;

	for (size_t k = 0; k < n_groups; k++) {
		const struct rp_group *x = &g[k], *b = best == SIZE_MAX ? NULL : &g[best];

		if (x->out || x->nested || x->ranges < 2 || !x->ops)
			continue;
		if (!b || x->ranges > b->ranges ||
		    (x->ranges == b->ranges &&
		     (x->ops > b->ops || (x->ops == b->ops && x->first_start < b->first_start))))
			best = k;
	}
	return best;
}

gs_status gs_steps_repeated(const struct gs_trace *t, const struct gs_step_options *o,
			    struct gs_step *steps, size_t *n, char **source)
{
	struct rp_cand *c = NULL;
	struct rp_group *g = NULL;
	size_t nc, n_groups, m = 0, best;
	gs_status st;

	*n = 0;
	*source = NULL;
	st = annotations(t, &c, &nc, &n_groups);
	if (st || nc < 2)
		goto out;
	mark_top(c, nc);
	g = calloc(n_groups, sizeof(*g));
	if (!g) {
		st = gs_nomem();
		goto out;
	}
	for (size_t i = 0; i < nc; i++) {
		if (c[i].twin)
			continue;
		g[c[i].group].ranges++;
		g[c[i].group].nested += !c[i].top;
	}
	/* The top-level ranges of the groups that may win, by group, process
	 * and start: two of one process that overlap put the group out. */
	for (size_t i = 0; i < nc; i++)
		if (c[i].top && !g[c[i].group].nested && g[c[i].group].ranges >= 2)
			c[m++] = c[i];
	gs_sort(c, m, sizeof(*c), cmp_group_time);
	for (size_t i = 0; i < m; i++) {
		struct rp_group *x = &g[c[i].group];
		bool first = !i || c[i].group != c[i - 1].group;

		if (first)
			x->first_start = c[i].start;
		else if (c[i].pid == c[i - 1].pid && c[i].start < c[i - 1].end)
			x->out = true;
	}
	st = count_ops(t, o, c, m, g);
	best = st ? SIZE_MAX : winner(g, n_groups);
	if (best == SIZE_MAX)
		goto out;
	for (size_t i = 0; i < m; i++)
		if (c[i].group == best)
			steps[(*n)++] = (struct gs_step){.name = c[i].name,
							 .pid = c[i].pid,
							 .host_start_ns = c[i].start,
							 .host_end_ns = c[i].end};
	*source = source_text(gs_trace_string(t, steps[0].name));
	if (!*source) {
		*n = 0;
		st = gs_nomem();
	}
out:
	free(c);
	free(g);
	return st;
}
