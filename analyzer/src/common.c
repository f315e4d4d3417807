/* SPDX-License-Identifier: MIT */
/*
 * Shared vocabulary of the analyses: the device of an op, the devices that
 * have ops, and joins from ops to the API calls that launched them.
 *
 * Complexity: gs_op_device O(1); gs_trace_op_devices O(N + S log S) for N
 * ops and S streams; the launch index O(A) to build for A API calls and
 * O(1) expected per lookup; gs_trace_find_thread O(log T).
 */
#include "analyzer_priv.h"

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
		gs_error_append("out of memory");
		return GS_ERR_NOMEM;
	}
	for (size_t i = 0; i < n_ops; i++)
		if (ops[i].stream < n_streams)
			used[ops[i].stream] = 1;
	for (size_t s = 0; s < n_streams; s++)
		if (used[s])
			out[m++] = streams[s].device;
	free(used);
	qsort(out, m, sizeof(*out), cmp_u32);
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

static size_t corr_hash(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return (size_t)x;
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
	while (cap < 2 * ix->n_calls + 2)
		cap *= 2;
	ix->slots = malloc(cap * sizeof(*ix->slots));
	if (!ix->slots) {
		gs_error_append("out of memory");
		return GS_ERR_NOMEM;
	}
	memset(ix->slots, 0xff, cap * sizeof(*ix->slots)); /* GS_NO_INDEX */
	ix->mask = cap - 1;
	for (size_t i = 0; i < ix->n_calls; i++) {
		size_t h;

		if (!ix->calls[i].correlation)
			continue;
		h = corr_hash(ix->calls[i].correlation) & ix->mask;
		while (ix->slots[h] != GS_NO_INDEX)
			h = (h + 1) & ix->mask;
		ix->slots[h] = (uint32_t)i;
	}
	return GS_OK;
}

void gs_launch_index_fini(struct gs_launch_index *ix)
{
	free(ix->slots);
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

uint32_t gs_launch_index_find(const struct gs_launch_index *ix, uint64_t corr, int64_t pid,
			      int64_t before_ns)
{
	const struct gs_api_call *calls = ix->calls;
	uint32_t best = GS_NO_INDEX, outer;
	size_t h;

	if (!corr || !ix->slots)
		return GS_NO_INDEX;
	h = corr_hash(corr) & ix->mask;
	for (size_t i = h; ix->slots[i] != GS_NO_INDEX; i = (i + 1) & ix->mask) {
		uint32_t c = ix->slots[i];

		if (calls[c].correlation != corr)
			continue;
		if (best == GS_NO_INDEX || better_call(&calls[c], &calls[best], pid, before_ns))
			best = c;
	}
	if (best == GS_NO_INDEX)
		return best;
	/* A call of the same thread around the chosen one: the outermost. */
	outer = best;
	for (size_t i = h; ix->slots[i] != GS_NO_INDEX; i = (i + 1) & ix->mask) {
		uint32_t c = ix->slots[i];
		const struct gs_api_call *a = &calls[c], *o = &calls[outer];

		if (a->correlation != corr || a->pid != calls[best].pid ||
		    a->tid != calls[best].tid || c == outer)
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
		gs_error_append("out of memory");
		return GS_ERR_NOMEM;
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
