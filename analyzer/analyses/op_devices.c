/* SPDX-License-Identifier: MIT */
/*
 * Shared vocabulary of the analyses: the device of an op, the devices that
 * have ops.
 *
 * Complexity: gs_op_device O(1); gs_trace_op_devices O(S log S) for S
 * streams of a finished trace (O(N + S log S) for N ops of one not
 * finished); gs_trace_find_thread O(log T);
 * gs_device_op_ranges O(S_d log S_d) for the S_d streams of the device.
 */
#include "analyzer_priv.h"

#include <gpuscope/search.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/window.h>

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

uint32_t gs_op_device(const struct gs_trace *t, const struct gs_op *op)
{
	return gs_trace_stream_device(t, op->stream);
}

static int cmp_u32(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return a < b ? -1 : a > b;
}

gs_status gs_trace_op_devices(const struct gs_trace *t, uint32_t **ids, size_t *n)
{
	size_t n_ops, n_streams, m = 0, counted = 0;
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
	/* A finished trace counts each stream's ops: its streams are read,
	 * not every op (else, or when the counts do not cover the ops). */
	for (size_t s = 0, first, count; s < n_streams; s++) {
		gs_trace_stream_ops(t, s, &first, &count);
		used[s] = count > 0;
		counted += count;
	}
	if (counted != n_ops) {
		memset(used, 0, n_streams);
		for (size_t i = 0; i < n_ops; i++)
			if (ops[i].stream < n_streams)
				used[ops[i].stream] = 1;
	}
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

/* A thread searched for by (pid, tid). */
struct thread_key {
	const struct gs_thread *th;
	int64_t pid, tid;
};

static bool thread_before(const void *ctx, size_t i)
{
	const struct thread_key *k = ctx;
	const struct gs_thread *x = &k->th[i];

	return x->pid < k->pid || (x->pid == k->pid && x->tid < k->tid);
}

uint32_t gs_trace_find_thread(const struct gs_trace *t, int64_t pid, int64_t tid)
{
	size_t n, lo;
	const struct gs_thread *th = gs_trace_threads(t, &n);
	struct thread_key key = {th, pid, tid};

	lo = gs_partition_point(n, thread_before, &key);
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

size_t gs_op_range_first_at(const struct gs_op *ops, struct gs_op_range r, int64_t t)
{
	return r.first + gs_lower_bound_i64_at(ops + r.first, r.count, sizeof(*ops),
					       offsetof(struct gs_op, start_ns), t);
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
