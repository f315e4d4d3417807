/* SPDX-License-Identifier: MIT */
/*
 * gs_trace_finish: sort the records, group ops by stream and API calls by
 * thread, index devices and annotation ranges, then join (trace_joins.c).
 */
#include "trace_priv.h"

#include <gpuscope/search.h>
#include <gpuscope/workers.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the record orders ---- */

static int cmp_op(const void *pa, const void *pb)
{
	const struct gs_op *a = pa, *b = pb;

	CMP(a->stream, b->stream);
	CMP(a->start_ns, b->start_ns);
	CMP(a->end_ns, b->end_ns);
	CMP(a->correlation, b->correlation);
	CMP(a->kind, b->kind);
	CMP(a->name, b->name);
	return 0;
}

static int cmp_api(const void *pa, const void *pb)
{
	const struct gs_api_call *a = pa, *b = pb;

	CMP(a->pid, b->pid);
	CMP(a->tid, b->tid);
	CMP(a->start_ns, b->start_ns);
	CMP(b->end_ns, a->end_ns); /* enclosing call first */
	CMP(a->correlation, b->correlation);
	CMP(a->name, b->name);
	return 0;
}

static int cmp_sync(const void *pa, const void *pb)
{
	const struct gs_sync *a = pa, *b = pb;

	CMP(a->start_ns, b->start_ns);
	CMP(a->end_ns, b->end_ns);
	CMP(a->correlation, b->correlation);
	CMP(a->kind, b->kind);
	return 0;
}

static int cmp_event_record(const void *pa, const void *pb)
{
	const struct gs_event_record *a = pa, *b = pb;

	CMP(a->correlation, b->correlation);
	CMP(a->time_ns, b->time_ns);
	CMP(a->event_id, b->event_id);
	return 0;
}

static int cmp_range(const void *pa, const void *pb)
{
	const struct gs_range *a = pa, *b = pb;

	CMP(a->start_ns, b->start_ns);
	CMP(b->end_ns, a->end_ns); /* enclosing range first */
	CMP(a->pid, b->pid);
	CMP(a->tid, b->tid);
	CMP(a->kind, b->kind);
	CMP(a->name, b->name);
	return 0;
}

static int cmp_overhead(const void *pa, const void *pb)
{
	const struct gs_overhead *a = pa, *b = pb;

	CMP(a->start_ns, b->start_ns);
	CMP(a->end_ns, b->end_ns);
	return 0;
}

/* Sort keys: each orders records as its comparator's leading field. */
static uint64_t key_op(const void *p)
{
	return gs_sort_key_i64(((const struct gs_op *)p)->start_ns);
}

static uint64_t key_api(const void *p)
{
	return gs_sort_key_i64(((const struct gs_api_call *)p)->start_ns);
}

static uint64_t key_sync(const void *p)
{
	return gs_sort_key_i64(((const struct gs_sync *)p)->start_ns);
}

static uint64_t key_event_record(const void *p)
{
	return ((const struct gs_event_record *)p)->correlation;
}

static uint64_t key_range(const void *p)
{
	return gs_sort_key_i64(((const struct gs_range *)p)->start_ns);
}

static uint64_t key_overhead(const void *p)
{
	return gs_sort_key_i64(((const struct gs_overhead *)p)->start_ns);
}

/* The pass sort_ops makes over the unsorted ops, for what no later pass
 * need read them again: each op's stream (the sort's group), the ops'
 * span (the earliest start, the latest end: gs_trace_scan_op_span), each
 * stream's count, and whether the ops are in order within each stream
 * (*within; checked up to GS_SORT_SCATTER_MAX_GROUPS streams, the
 * scatter's, else false) and besides sorted (*all). The check keeps each
 * stream's last op and start, and reads that op back only on equal
 * starts. GS_ERR_NOMEM without a cause, as sort_ops. */
static gs_status scan_ops(const struct gs_trace *t, uint32_t *groups, size_t *count,
			  int64_t span[2], bool *within, bool *all)
{
	size_t nstreams = t->streams.count;
	bool check = nstreams <= GS_SORT_SCATTER_MAX_GROUPS;
	uint32_t *last = check ? malloc((nstreams ? nstreams : 1) * sizeof(*last)) : NULL;
	int64_t *last_start = check ? malloc((nstreams ? nstreams : 1) * sizeof(*last_start)) :
				      NULL;
	int64_t lo = t->ops[0].start_ns, hi = t->ops[0].end_ns;

	if (check && (!last || !last_start)) {
		free(last);
		free(last_start);
		return GS_ERR_NOMEM;
	}
	if (check)
		memset(last, 0xff, nstreams * sizeof(*last));
	*within = check;
	*all = check;
	for (size_t i = 0; i < t->n_ops; i++) {
		const struct gs_op *op = &t->ops[i];
		uint32_t s = op->stream;

		groups[i] = s;
		count[s]++;
		lo = op->start_ns < lo ? op->start_ns : lo;
		hi = op->end_ns > hi ? op->end_ns : hi;
		if (!*within)
			continue;
		if (last[s] != UINT32_MAX &&
		    (last_start[s] > op->start_ns ||
		     (last_start[s] == op->start_ns && cmp_op(&t->ops[last[s]], op) > 0)))
			*within = *all = false;
		if (i && s < groups[i - 1])
			*all = false;
		last[s] = (uint32_t)i;
		last_start[s] = op->start_ns;
	}
	span[0] = lo;
	span[1] = hi;
	free(last);
	free(last_start);
	return GS_OK;
}

/* Ops by stream (the group), then start and the rest; then each stream's
 * first op and count. GS_ERR_NOMEM without a cause: it may run on a second
 * thread, whose causes the caller would not see. The array the ops were
 * sorted away from goes to *spare (*spare_bytes long; NULL when they were
 * sorted where they were), for the next sort to fill. The ops' span goes
 * to span[0..1]. One pass over the unsorted ops (scan_ops) gives what the
 * sort and the stream table need, and the ops in order within their
 * streams (the bench traces' are) are scattered by stream without a
 * second pass to check that order; the counts give each stream's first
 * op, with no pass over the sorted ops. */
static gs_status sort_ops(struct gs_trace *t, void **spare, size_t *spare_bytes, int64_t span[2])
{
	struct gs_sort_spec spec = {.size = sizeof(*t->ops), .cmp = cmp_op, .key = key_op};
	size_t nstreams = t->streams.count, first = 0;
	uint32_t *groups;
	void *sorted = NULL;
	bool within, all;
	gs_status rc;

	free(t->stream_first);
	free(t->stream_count);
	t->stream_first = calloc(nstreams ? nstreams : 1, sizeof(size_t));
	t->stream_count = calloc(nstreams ? nstreams : 1, sizeof(size_t));
	if (!t->stream_first || !t->stream_count)
		return GS_ERR_NOMEM;
	if (!t->n_ops) {
		gs_trace_scan_op_span(t, &span[0], &span[1]);
		return GS_OK;
	}
	groups = malloc(t->n_ops * sizeof(*groups));
	if (!groups)
		return GS_ERR_NOMEM;
	rc = scan_ops(t, groups, t->stream_count, span, &within, &all);
	spec.groups = groups;
	spec.ngroups = (uint32_t)nstreams;
	/* Streams interleave in time: the ops move far, so a copy. */
	if (!rc && within && !all)
		rc = gs_sort_scatter_groups(t->ops, t->n_ops, sizeof(*t->ops), groups, spec.ngroups,
					    t->stream_count, NULL, &sorted);
	else if (!rc && !within)
		rc = gs_sort_records_copy(t->ops, t->n_ops, &spec, &sorted);
	free(groups);
	if (rc)
		return GS_ERR_NOMEM;
	if (sorted) {
		*spare = t->ops;
		*spare_bytes = t->cap_ops * sizeof(*t->ops);
		t->ops = sorted;
		t->cap_ops = t->n_ops;
	}
	for (size_t s = 0; s < nstreams; s++) {
		t->stream_first[s] = t->stream_count[s] ? first : 0;
		first += t->stream_count[s];
	}
	return GS_OK;
}

/* The host threads of the sorted API calls, one a run of (pid, tid): the
 * walk for a trace of fewer than two calls, which the sort leaves alone.
 * GS_ERR_NOMEM without a cause, as sort_ops. */
static gs_status threads_from_runs(struct gs_trace *t)
{
	t->n_threads = 0;
	for (size_t i = 0; i < t->n_api_calls; i++) {
		const struct gs_api_call *c = &t->api_calls[i];
		struct gs_thread *last = t->n_threads ? &t->threads[t->n_threads - 1] : NULL;

		if (last && last->pid == c->pid && last->tid == c->tid) {
			last->api_count++;
			continue;
		}
		struct gs_thread th = {.pid = c->pid, .tid = c->tid, .first_api = i, .api_count = 1};
		if (PUSH(t, threads, th))
			return GS_ERR_NOMEM;
	}
	return GS_OK;
}

/* The same table from the sort's groups: groups[i] is the rank of call i's
 * (pid, tid) (as the calls were before the sort) among the nranks pairs
 * in (pid, tid) order, the order of the sorted calls' runs, so a thread's
 * count is its rank's (count[r], of the groups) and its first call the
 * sum of the counts before. This reads 4 bytes a call where the walk read
 * a 56-byte record (630 MB at 1e7 ops). GS_ERR_NOMEM without a cause, as
 * sort_ops. */
static gs_status threads_from_ranks(struct gs_trace *t, const size_t *count, uint32_t nranks)
{
	struct gs_thread *th = calloc(nranks ? nranks : 1, sizeof(*th));
	size_t first = 0;

	if (!th)
		return GS_ERR_NOMEM;
	for (uint32_t r = 0; r < nranks; r++) {
		const struct gs_api_call *c = &t->api_calls[first];

		th[r].pid = c->pid;
		th[r].tid = c->tid;
		th[r].first_api = first;
		th[r].api_count = count[r];
		first += count[r];
	}
	free(t->threads);
	t->threads = th;
	t->n_threads = nranks;
	t->cap_threads = nranks ? nranks : 1;
	return GS_OK;
}

/* Each rank's count of the n groups into count (nranks, zeroed); whether
 * the ranks never fall (the calls are in thread order). */
static bool count_ranks(const uint32_t *groups, size_t n, size_t *count)
{
	bool rising = true;

	for (size_t i = 0; i < n; i++) {
		count[groups[i]]++;
		rising = rising && (!i || groups[i] >= groups[i - 1]);
	}
	return rising;
}

/* API calls by host thread (the group: ranks of (pid, tid)), then start,
 * into `spare` (spare_bytes long, the array the ops were sorted away from,
 * whose pages are touched already: brought to the calls' size, mremap
 * keeps the pages and gives back a longer array's tail; taken over) or,
 * when NULL, into a new array. The array the calls were sorted away from
 * goes to *left (*left_bytes long; NULL when they did not move), for the
 * joins (trace_joins_compute). The ranks' pass over the calls checks
 * that they are in order within their threads (the bench traces' are),
 * and then a scatter by thread sorts them, without a pass of its own to
 * check. GS_ERR_NOMEM without a cause, as sort_ops. */
static gs_status sort_api_calls(struct gs_trace *t, void *spare, size_t spare_bytes, void **left,
				size_t *left_bytes)
{
	struct gs_sort_spec spec = {.size = sizeof(*t->api_calls), .cmp = cmp_api, .key = key_api};
	size_t need = t->n_api_calls * sizeof(*t->api_calls), *count = NULL;
	uint32_t *groups = NULL;
	void *sorted = NULL;
	bool within = false;
	gs_status rc = GS_ERR_NOMEM;

	if (t->n_api_calls < 2) {
		free(spare);
		return threads_from_runs(t);
	}
	if (spare && spare_bytes != need) {
		void *p = realloc(spare, need);

		if (!p)
			free(spare);
		spare = p;
	}
	groups = malloc(t->n_api_calls * sizeof(*groups));
	if (!groups)
		goto out;
	rc = gs_sort_pair_ranks(t->api_calls, t->n_api_calls, sizeof(*t->api_calls),
				offsetof(struct gs_api_call, pid),
				offsetof(struct gs_api_call, tid), &spec, &within, groups,
				&spec.ngroups);
	count = rc ? NULL : calloc(spec.ngroups ? spec.ngroups : 1, sizeof(*count));
	if (!count)
		rc = GS_ERR_NOMEM;
	if (!rc && count_ranks(groups, t->n_api_calls, count) && within)
		sorted = NULL; /* in order already */
	else if (!rc && within && spec.ngroups <= GS_SORT_SCATTER_MAX_GROUPS)
		rc = gs_sort_scatter_groups(t->api_calls, t->n_api_calls, sizeof(*t->api_calls),
					    groups, spec.ngroups, count, spare, &sorted);
	else if (!rc) {
		spec.groups = groups;
		if (spare)
			rc = gs_sort_records_into(t->api_calls, t->n_api_calls, &spec, spare,
						  &sorted);
		else
			rc = gs_sort_records_copy(t->api_calls, t->n_api_calls, &spec, &sorted);
	}
	if (rc)
		rc = GS_ERR_NOMEM;
	if (sorted) {
		/* The array the calls left is touched already: cut to what
		 * the joins' index needs (mremap keeps its first pages and
		 * gives the rest back), it saves them fresh pages. */
		*left_bytes = t->n_api_calls * (sizeof(uint64_t) + sizeof(uint32_t));
		*left = realloc(t->api_calls, *left_bytes);
		if (!*left) {
			free(t->api_calls);
			*left_bytes = 0;
		}
		t->api_calls = sorted;
		t->cap_api_calls = t->n_api_calls;
		if (sorted == spare)
			spare = NULL;
	}
	if (!rc)
		rc = threads_from_ranks(t, count, spec.ngroups);
out:
	free(groups);
	free(count);
	free(spare);
	return rc;
}

/* The op sort, then the API call sort, on a second CPU while this thread
 * sorts the other records (host ranges the largest): the two threads touch
 * different arrays, and each sort alone decides its order, so the trace is
 * the same with one CPU or two. GS_ERR_NOMEM without a cause, as
 * sort_ops.
 *
 * Ops and API calls move far (streams and threads interleave in time), so
 * they are gathered into a new array that replaces the old, not permuted
 * in place: at 1e7 ops the in-place walk along the permutation's cycles
 * cost 2.2 s of CPU (a TLB miss a record over 0.6 to 0.9 GB). The API
 * calls go into the array the ops left, whose pages are touched already,
 * so only the ops' copy costs fresh pages. Host ranges come a few places
 * from their order, so their cycles are short and stay in cache: they are
 * sorted in place (bench/NOTES.md, "the copies of gs_trace_finish" and
 * session 5). */
#define GS_FINISH_THREAD_MIN (1u << 16) /* ops; below, a thread costs more */

struct ops_job {
	struct gs_trace *t;
	int64_t op_span[2];
	void *left; /* the API calls' old array (sort_api_calls) */
	size_t left_bytes;
	gs_status rc;
};

static void ops_job_run(void *arg)
{
	struct ops_job *j = arg;
	size_t spare_bytes = 0;
	void *spare = NULL;

	j->rc = sort_ops(j->t, &spare, &spare_bytes, j->op_span);
	if (j->rc) {
		free(spare);
		return;
	}
	j->rc = sort_api_calls(j->t, spare, spare_bytes, &j->left, &j->left_bytes);
}

static gs_status report_bad_times(struct gs_trace *t)
{
	static const char *const what[] = {"GPU ops", "API calls", "host ranges", "syncs"};
	char msg[160];

	for (int k = 0; k < 4; k++) {
		gs_status rc;

		if (!t->bad_times[k])
			continue;
		snprintf(msg, sizeof(msg), "dropped %s with a negative or over-7-day duration",
			 what[k]);
		rc = gs_trace_add_warning(t, msg, t->bad_times[k], GS_WARNING_OTHER);
		if (rc)
			return rc;
		t->bad_times[k] = 0;
	}
	return GS_OK;
}

/* A stream or a sync under its device, for index_devices. */
struct dev_key {
	uint64_t key; /* device << 32 | index */
};

static int cmp_dev_key(const void *pa, const void *pb)
{
	uint64_t a = ((const struct dev_key *)pa)->key, b = ((const struct dev_key *)pb)->key;

	return a < b ? -1 : a > b;
}

/*
 * The streams and syncs of each device id, so that an analysis of one
 * device reads its own records only. O((S + Y) log(S + Y)).
 */
static gs_status index_devices(struct gs_trace *t)
{
	size_t ns = t->streams.count, ny = t->n_syncs, n = ns + ny;
	struct dev_key *key = malloc((n ? n : 1) * sizeof(*key));

	free(t->by_device);
	free(t->dev_streams);
	free(t->dev_syncs);
	t->n_by_device = 0;
	t->by_device = malloc((n ? n : 1) * sizeof(*t->by_device));
	t->dev_streams = malloc((ns ? ns : 1) * sizeof(*t->dev_streams));
	t->dev_syncs = malloc((ny ? ny : 1) * sizeof(*t->dev_syncs));
	if (!key || !t->by_device || !t->dev_streams || !t->dev_syncs || ns >= UINT32_MAX ||
	    ny >= UINT32_MAX) {
		free(key);
		return gs_nomem();
	}
	/* Streams first, then syncs, each sorted by (device, index). */
	for (size_t i = 0; i < ns; i++)
		key[i].key = (uint64_t)t->streams.streams[i].device << 32 | i;
	for (size_t i = 0; i < ny; i++)
		key[ns + i].key = (uint64_t)t->syncs[i].device << 32 | i;
	qsort(key, ns, sizeof(*key), cmp_dev_key);
	qsort(key + ns, ny, sizeof(*key), cmp_dev_key);
	for (size_t i = 0, j = ns; i < ns || j < n;) {
		uint32_t di = i < ns ? (uint32_t)(key[i].key >> 32) : UINT32_MAX;
		uint32_t dj = j < n ? (uint32_t)(key[j].key >> 32) : UINT32_MAX;
		uint32_t dev = (i < ns && (j == n || di <= dj)) ? di : dj;
		struct dev_range *r = &t->by_device[t->n_by_device++];

		*r = (struct dev_range){.device = dev, .stream_first = i, .sync_first = j - ns};
		for (; i < ns && (uint32_t)(key[i].key >> 32) == dev; i++)
			t->dev_streams[i] = (uint32_t)key[i].key;
		for (; j < n && (uint32_t)(key[j].key >> 32) == dev; j++)
			t->dev_syncs[j - ns] = (uint32_t)key[j].key;
		r->stream_count = i - r->stream_first;
		r->sync_count = j - ns - r->sync_first;
	}
	free(key);
	return GS_OK;
}

/* What range_before compares: the sorted ranges with the one wanted. */
struct range_want {
	const struct gs_range *ranges;
	const struct gs_range *want;
};

/* Range i sorts before the one wanted. */
static bool range_before(const void *ctx, size_t i)
{
	const struct range_want *w = ctx;

	return cmp_range(&w->ranges[i], w->want) < 0;
}

/* The first of the n sorted ranges from `from` on that does not sort
 * before c, when none before `from` does either: a doubling step from
 * `from`, then a binary search of the last step. The copies come in the
 * ranges' order, so each search starts where the last ended and reads a
 * few nearby ranges, where a binary search over all of them (15 M ranges,
 * 860 MB at 1e7 ops) took a cache miss a step. */
static size_t range_gallop(const struct gs_range *ranges, size_t n, size_t from,
			   const struct gs_range *c)
{
	struct range_want w = {ranges, c};
	size_t lo = from, hi = from, step = 1;

	while (hi < n && range_before(&w, hi)) {
		lo = hi + 1;
		hi = lo + step - 1;
		step *= 2;
	}
	hi = hi < n ? hi : n;
	w.ranges = ranges + lo;
	return lo + gs_partition_point(hi - lo, range_before, &w);
}

/* The annotation ranges' indices, so that the analyses that want only
 * them do not walk every operator range: each copy kept at push is found
 * in the sorted ranges by search (the same order: equal copies take
 * consecutive places). */
static gs_status index_annotations(struct gs_trace *t)
{
	size_t n = t->n_ann_copies;
	gs_status rc;

	free(t->annotations);
	t->annotations = NULL;
	t->n_annotations = 0;
	if (!n)
		return GS_OK;
	rc = trace_sort(t->ann_copies, n, sizeof(*t->ann_copies), cmp_range, key_range);
	if (rc)
		return rc;
	t->annotations = malloc(n * sizeof(*t->annotations));
	if (!t->annotations)
		return gs_nomem();
	for (size_t k = 0, from = 0; k < n; k++) {
		const struct gs_range *c = &t->ann_copies[k];

		if (k && cmp_range(c, &t->ann_copies[k - 1]) == 0) {
			t->annotations[k] = t->annotations[k - 1] + 1;
			continue;
		}
		from = range_gallop(t->ranges, t->n_ranges, from, c);
		t->annotations[k] = (uint32_t)from;
	}
	t->n_annotations = n;
	return GS_OK;
}

/* The joins (trace_joins.c) on the second thread once the sorts are done,
 * beside the event records and the annotations on this one: each writes
 * only its own outputs and reads sorted records nobody moves any more. */
struct joins_job {
	struct gs_trace *t;
	bool split;    /* the ops' loop in halves (trace_joins_compute) */
	void *scratch; /* taken over by the joins (trace_joins_compute) */
	size_t scratch_bytes;
	uint64_t repeats;
	gs_status rc;
};

static void joins_job_run(void *arg)
{
	struct joins_job *j = arg;

	j->rc = trace_joins_compute(j->t, &j->repeats, j->split, j->scratch, j->scratch_bytes);
	j->scratch = NULL;
}

/* What follows the joins: the event records (their warning's count to
 * *unheld), then the annotations. */
static gs_status finish_rest(struct gs_trace *t, uint64_t *unheld)
{
	gs_status rc = trace_event_records_compute(t, unheld);

	return rc ? rc : index_annotations(t);
}

gs_status gs_trace_finish(struct gs_trace *t)
{
	struct ops_job job = {.t = t};
	struct joins_job joins = {.t = t};
	struct gs_aside worker;
	bool threaded = false, beside = false;
	uint64_t unheld = 0;
	int mark;
	gs_status rc = report_bad_times(t);

	if (rc)
		return rc;
	if (t->finished)
		return GS_OK;
	if (t->n_ops >= GS_FINISH_THREAD_MIN && gs_cpu_count() >= 2)
		threaded = gs_aside_start(&worker, ops_job_run, &job);
	rc = trace_sort(t->ranges, t->n_ranges, sizeof(*t->ranges), cmp_range, key_range);
	if (!rc)
		rc = trace_sort(t->syncs, t->n_syncs, sizeof(*t->syncs), cmp_sync, key_sync);
	if (!rc)
		rc = trace_sort(t->event_records, t->n_event_records, sizeof(*t->event_records),
				cmp_event_record, key_event_record);
	if (!rc)
		rc = trace_sort(t->overheads, t->n_overheads, sizeof(*t->overheads), cmp_overhead,
				key_overhead);
	if (threaded)
		gs_aside_join(&worker);
	else
		ops_job_run(&job);
	if (!rc && !job.rc)
		rc = index_devices(t);
	if (rc || job.rc) {
		free(job.left);
		return rc ? rc : gs_nomem();
	}
	joins.scratch = job.left;
	joins.scratch_bytes = job.left_bytes;
	mark = gs_error_count();
	/* With a second CPU, the joins' loop over the ops is split in two as
	 * well: this thread is done with the event records and annotations
	 * before the joins' index is, and waits. */
	joins.split = threaded;
	if (threaded)
		beside = gs_aside_start(&worker, joins_job_run, &joins);
	if (beside) {
		rc = finish_rest(t, &unheld);
		gs_aside_join(&worker);
		/* The joins' causes died with their thread, and they come
		 * first: drop what failed here after them and do it all again
		 * on this thread, as without a second one. */
		if (joins.rc) {
			gs_error_truncate(mark);
			beside = false;
		}
	}
	if (!beside) {
		joins_job_run(&joins);
		if (joins.rc)
			return joins.rc;
		rc = finish_rest(t, &unheld);
	}
	if (!rc)
		rc = trace_joins_warn(t, joins.repeats);
	if (!rc)
		rc = trace_event_records_warn(t, unheld);
	if (rc)
		return rc;
	t->op_first_ns = job.op_span[0];
	t->op_last_ns = job.op_span[1];
	t->finished = true;
	return GS_OK;
}
