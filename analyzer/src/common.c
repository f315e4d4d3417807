/* SPDX-License-Identifier: MIT */
/*
 * Shared vocabulary of the analyses: the device of an op, the devices that
 * have ops, and joins from ops to the API calls that launched them.
 *
 * Complexity: gs_op_device O(1); gs_trace_op_devices O(N + S log S) for N
 * ops and S streams; the launch index O(A) to build for A API calls and
 * O(1) expected per lookup; gs_trace_find_thread O(log T);
 * gs_device_op_ranges O(S_d log S_d) for the S_d streams of the device.
 */
#include "analyzer_priv.h"

#include <gpuscope/hash.h>

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

uint32_t gs_op_device(const struct gs_trace *t, const struct gs_op *op)
{
	size_t n;
	const struct gs_stream *st = gs_trace_streams(t, &n);

	return op->stream < n ? st[op->stream].device : UINT32_MAX;
}

static int cmp_u32(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return a < b ? -1 : a > b;
}

gs_status gs_trace_op_devices(const struct gs_trace *t, uint32_t **ids, size_t *n)
{
	size_t n_ops, n_streams, m = 0;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const struct gs_stream *streams = gs_trace_streams(t, &n_streams);
	uint8_t *used;
	uint32_t *out;

	*ids = NULL;
	*n = 0;
	if (!n_ops)
		return GS_OK;
	used = calloc(n_streams ? n_streams : 1, 1);
	out = malloc((n_streams ? n_streams : 1) * sizeof(*out));
	if (!used || !out) {
		free(used);
		free(out);
		return gs_nomem();
	}
	for (size_t i = 0; i < n_ops; i++)
		if (ops[i].stream < n_streams)
			used[ops[i].stream] = 1;
	for (size_t s = 0; s < n_streams; s++)
		if (used[s])
			out[m++] = streams[s].device;
	free(used);
	gs_sort(out, m, sizeof(*out), cmp_u32);
	{
		size_t k = 0;

		for (size_t i = 0; i < m; i++)
			if (k == 0 || out[k - 1] != out[i])
				out[k++] = out[i];
		m = k;
	}
	if (!m) {
		free(out);
		return GS_OK;
	}
	*ids = out;
	*n = m;
	return GS_OK;
}

/* ---- launch index ---- */

/*
 * The direct table: when the ids of the calls span at most four times their
 * number, head[id - base] lists the calls of each id in call order (as the
 * hash's probe order does), so lookups see the same calls in the same order.
 * Building it writes nearly in order (ids grow with time on each thread), a
 * hash build writes at random: at 10 M calls that is a second per index.
 */
static bool launch_index_direct(struct gs_launch_index *ix)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t n = 0;

	for (size_t i = 0; i < ix->n_calls; i++) {
		uint64_t c = ix->calls[i].correlation;

		if (!c)
			continue;
		n++;
		if (c < lo)
			lo = c;
		if (c > hi)
			hi = c;
	}
	if (!n || hi - lo >= 4 * (uint64_t)n + 1024)
		return false;
	ix->base = lo;
	ix->range = (size_t)(hi - lo + 1);
	ix->head = malloc(ix->range * sizeof(*ix->head));
	ix->next = malloc((ix->n_calls ? ix->n_calls : 1) * sizeof(*ix->next));
	if (!ix->head || !ix->next) {
		free(ix->head);
		free(ix->next);
		ix->head = ix->next = NULL;
		return false;
	}
	memset(ix->head, 0xff, ix->range * sizeof(*ix->head)); /* GS_NO_INDEX */
	/* Backwards, pushing in front: each list ends up in call order. */
	for (size_t i = ix->n_calls; i-- > 0;) {
		uint64_t c = ix->calls[i].correlation;

		if (!c)
			continue;
		ix->next[i] = ix->head[c - lo];
		ix->head[c - lo] = (uint32_t)i;
	}
	return true;
}

gs_status gs_launch_index_init(struct gs_launch_index *ix, const struct gs_trace *t)
{
	size_t cap = 16;

	memset(ix, 0, sizeof(*ix));
	ix->calls = gs_trace_api_calls(t, &ix->n_calls);
	if (ix->n_calls >= UINT32_MAX) {
		gs_error_append("too many API calls to index (%zu)", ix->n_calls);
		return GS_ERR_LIMIT;
	}
	if (launch_index_direct(ix))
		return GS_OK;
	while (cap < 2 * ix->n_calls + 2)
		cap *= 2;
	ix->slots = malloc(cap * sizeof(*ix->slots));
	if (!ix->slots) {
		return gs_nomem();
	}
	memset(ix->slots, 0xff, cap * sizeof(*ix->slots)); /* GS_NO_INDEX */
	ix->mask = cap - 1;
	for (size_t i = 0; i < ix->n_calls; i++) {
		size_t h;

		if (!ix->calls[i].correlation)
			continue;
		h = (size_t)gs_hash_u64(ix->calls[i].correlation) & ix->mask;
		while (ix->slots[h] != GS_NO_INDEX)
			h = (h + 1) & ix->mask;
		ix->slots[h] = (uint32_t)i;
	}
	return GS_OK;
}

void gs_launch_index_fini(struct gs_launch_index *ix)
{
	free(ix->slots);
	free(ix->head);
	free(ix->next);
	memset(ix, 0, sizeof(*ix));
}

/* True when a is preferred over b as the call of an op (see the header). */
static bool better_call(const struct gs_api_call *a, const struct gs_api_call *b, int64_t pid,
			int64_t before_ns)
{
	if (pid > 0 && (a->pid == pid) != (b->pid == pid))
		return a->pid == pid;
	if ((a->start_ns <= before_ns) != (b->start_ns <= before_ns))
		return a->start_ns <= before_ns;
	if (a->start_ns != b->start_ns)
		return a->start_ns > b->start_ns;
	return a->end_ns < b->end_ns; /* the inner one; enclosing calls come next */
}

/*
 * The calls with id `corr`, in call order, whichever table holds them:
 * FIRST/NEXT walk the direct lists or the hash's probe sequence.
 */
struct call_iter {
	const struct gs_launch_index *ix;
	uint64_t corr;
	size_t h; /* hash: slot; direct: call */
};

static uint32_t iter_first(struct call_iter *it, const struct gs_launch_index *ix, uint64_t corr)
{
	it->ix = ix;
	it->corr = corr;
	if (!ix->slots) {
		if (corr < ix->base || corr - ix->base >= ix->range)
			return GS_NO_INDEX;
		it->h = ix->head[corr - ix->base];
		return (uint32_t)it->h;
	}
	for (it->h = (size_t)gs_hash_u64(corr) & ix->mask; ix->slots[it->h] != GS_NO_INDEX;
	     it->h = (it->h + 1) & ix->mask)
		if (ix->calls[ix->slots[it->h]].correlation == corr)
			return ix->slots[it->h];
	return GS_NO_INDEX;
}

static uint32_t iter_next(struct call_iter *it)
{
	const struct gs_launch_index *ix = it->ix;

	if (!ix->slots) {
		it->h = ix->next[it->h];
		return (uint32_t)it->h;
	}
	for (it->h = (it->h + 1) & ix->mask; ix->slots[it->h] != GS_NO_INDEX;
	     it->h = (it->h + 1) & ix->mask)
		if (ix->calls[ix->slots[it->h]].correlation == it->corr)
			return ix->slots[it->h];
	return GS_NO_INDEX;
}

uint32_t gs_launch_index_find(const struct gs_launch_index *ix, uint64_t corr, int64_t pid,
			      int64_t before_ns)
{
	const struct gs_api_call *calls = ix->calls;
	uint32_t best = GS_NO_INDEX, outer;
	struct call_iter it;

	if (!corr || (!ix->slots && !ix->head))
		return GS_NO_INDEX;
	if (!ix->slots) { /* one call with the id (the rule): that one */
		if (corr < ix->base || corr - ix->base >= ix->range)
			return GS_NO_INDEX;
		best = ix->head[corr - ix->base];
		if (best == GS_NO_INDEX || ix->next[best] == GS_NO_INDEX)
			return best;
		best = GS_NO_INDEX;
	}
	for (uint32_t c = iter_first(&it, ix, corr); c != GS_NO_INDEX; c = iter_next(&it))
		if (best == GS_NO_INDEX || better_call(&calls[c], &calls[best], pid, before_ns))
			best = c;
	if (best == GS_NO_INDEX)
		return best;
	/* A call of the same thread around the chosen one: the outermost. */
	outer = best;
	for (uint32_t c = iter_first(&it, ix, corr); c != GS_NO_INDEX; c = iter_next(&it)) {
		const struct gs_api_call *a = &calls[c], *o = &calls[outer];

		if (a->pid != calls[best].pid || a->tid != calls[best].tid || c == outer)
			continue;
		if (a->start_ns <= calls[best].start_ns && a->end_ns >= calls[best].end_ns &&
		    (a->start_ns < o->start_ns ||
		     (a->start_ns == o->start_ns && a->end_ns > o->end_ns)))
			outer = c;
	}
	return outer;
}

uint32_t gs_launch_index_find_op(const struct gs_launch_index *ix, const struct gs_trace *t,
				 const struct gs_op *op)
{
	size_t n;
	const struct gs_stream *st = gs_trace_streams(t, &n);
	int64_t pid = op->stream < n ? st[op->stream].pid : 0;

	return gs_launch_index_find(ix, op->correlation, pid, op->start_ns);
}

gs_status gs_op_launches(const struct gs_trace *t, uint32_t **out)
{
	struct gs_launch_index ix;
	size_t n;
	const struct gs_op *ops = gs_trace_ops(t, &n);
	uint32_t *launch;
	gs_status rc;

	*out = NULL;
	rc = gs_launch_index_init(&ix, t);
	if (rc)
		return rc;
	launch = malloc((n ? n : 1) * sizeof(*launch));
	if (!launch) {
		gs_launch_index_fini(&ix);
		return gs_nomem();
	}
	for (size_t i = 0; i < n; i++)
		launch[i] = gs_launch_index_find_op(&ix, t, &ops[i]);
	gs_launch_index_fini(&ix);
	*out = launch;
	return GS_OK;
}

uint32_t gs_trace_find_thread(const struct gs_trace *t, int64_t pid, int64_t tid)
{
	size_t n, lo = 0, hi;
	const struct gs_thread *th = gs_trace_threads(t, &n);

	hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (th[mid].pid < pid || (th[mid].pid == pid && th[mid].tid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && th[lo].pid == pid && th[lo].tid == tid && lo < UINT32_MAX)
		return (uint32_t)lo;
	return GS_NO_INDEX;
}

/* ---- the ops of one device ---- */

static int cmp_range(const void *pa, const void *pb)
{
	const struct gs_op_range *a = pa, *b = pb;

	return a->first < b->first ? -1 : a->first > b->first;
}

gs_status gs_device_op_ranges(const struct gs_trace *t, uint32_t device, struct gs_op_range **out,
			      size_t *n)
{
	size_t n_ops, n_streams, n_dev, k = 0, covered = 0;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const uint32_t *dev = gs_trace_device_streams(t, device, &n_dev);
	struct gs_op_range *r;

	*out = NULL;
	*n = 0;
	gs_trace_streams(t, &n_streams);
	r = malloc((n_dev + 1) * sizeof(*r));
	if (!r) {
		return gs_nomem();
	}
	/* Only the device's streams (gs_trace_device_streams). */
	for (size_t i = 0; i < n_dev; i++) {
		size_t first, count;

		gs_trace_stream_ops(t, dev[i], &first, &count);
		if (count)
			r[k++] = (struct gs_op_range){.first = first, .count = count};
	}
	if (device == UINT32_MAX) {
		for (uint32_t s = 0; s < n_streams; s++) {
			size_t first, count;

			gs_trace_stream_ops(t, s, &first, &count);
			covered += count;
		}
	}
	if (device == UINT32_MAX && covered < n_ops) {
		/* Ops of no stream (UINT32_MAX too): rare, found the slow way. */
		struct gs_op_range *all = realloc(r, (k + n_ops + 1) * sizeof(*r));

		if (!all) {
			free(r);
			return gs_nomem();
		}
		r = all;
		for (size_t i = 0; i < n_ops; i++)
			if (ops[i].stream >= n_streams)
				r[k++] = (struct gs_op_range){.first = i, .count = 1};
	}
	gs_sort(r, k, sizeof(*r), cmp_range);
	if (!k) {
		free(r);
		return GS_OK;
	}
	*out = r;
	*n = k;
	return GS_OK;
}

bool gs_has_ci(const char *s, const char *part)
{
	size_t n = strlen(part);

	for (; *s; s++) {
		size_t i = 0;

		while (i < n && s[i] && tolower((unsigned char)s[i]) == part[i])
			i++;
		if (i == n)
			return true;
	}
	return false;
}
