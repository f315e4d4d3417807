/* SPDX-License-Identifier: MIT */
/*
 * Host-bound idle attributed to host ranges (gpuscope/hostattr.h).
 *
 * Build: the ranges sorted once by (pid, tid, start, longest first, kind
 * order), then per thread one sweep with a stack of open ranges (a range
 * that ended is dropped when it comes to the top) cuts the thread's time
 * into pieces, each owned by the range on top: the latest-starting range
 * still open, its innermost one. The pieces of a thread are disjoint and
 * sorted. Each range's name is classified once per distinct (name, kind).
 * For a process whose threads wait, the busy (non-wait) pieces of all its
 * threads are cut the same way, on demand: at each instant the piece that
 * started last wins, the thread that most recently began its current work.
 *
 * Query: per interval, a binary search in the thread's pieces, then the
 * pieces that overlap it (and, for a wait piece, the busy pieces of its
 * process that overlap that). O((R + n) log R) in all.
 */
#include <gpuscope/hash.h>
#include <gpuscope/hostattr.h>
#include <gpuscope/search.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/u64map.h>
#include <gpuscope/vec.h>

#include "analyzer_priv.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

const char *gs_host_class_name(unsigned cls)
{
	static const char *const names[GS_HOST_CLASS_COUNT] = {"input_pipeline", "sync", "operator",
							       "other", "wait"};

	return cls < GS_HOST_CLASS_COUNT ? names[cls] : "?";
}

/* A range (or a piece, for the busy cut) to sweep. */
struct ha_span {
	int64_t start;
	int64_t end;
	uint32_t ref; /* range index, or piece index */
	/* Ranges: the kind order (higher is inner on a full tie); busy cut:
	 * the thread index (threads are in (pid, tid) order). */
	uint32_t key;
};

/* 24 bytes: a trace has about two pieces a range. */
#define HA_MAX_LABELS (1u << 28)

struct ha_piece {
	int64_t start;
	int64_t end;
	uint32_t context;
	unsigned label : 28; /* < HA_MAX_LABELS */
	unsigned cls : 3;    /* enum gs_host_class */
	unsigned wait : 1;
};

struct ha_thread {
	int64_t pid;
	int64_t tid;
	size_t first; /* pieces[first .. first + n) */
	size_t n;
	size_t proc;
};

struct ha_busy {
	int64_t start;
	int64_t end;
	uint32_t piece;
};

struct ha_proc {
	int64_t pid;
	size_t first_thread, n_threads;
	bool has_wait;
	bool built;
	struct ha_busy *busy;
	size_t n_busy;
};

/* A distinct (name, kind) and what its name says. */
struct ha_label {
	uint32_t name;
	uint8_t kind;
	bool input, sync, wait;
};

struct ha_acc {
	struct gs_host_range_time h;
	size_t last_gap;
	uint32_t label;
};

struct gs_host_index {
	const struct gs_trace *t;
	struct ha_piece *pieces;
	size_t n_pieces, cap_pieces;
	struct ha_thread *threads;
	size_t n_threads;
	struct ha_proc *procs;
	size_t n_procs;
	struct ha_label *labels;
	size_t n_labels;
	uint32_t *label_of; /* per range, its label (while building) */
	/* Query scratch: the accumulator slot of each label (GS_NO_INDEX
	 * between queries) and the accumulators. */
	uint32_t *slot;
	struct ha_acc *acc;
	size_t n_acc, cap_acc;
	/* A fork (gs_host_index_fork): the rest is the shared index's,
	 * borrowed; the scratch above is the fork's own. */
	bool fork;
};

/* ---- Names -------------------------------------------------------------- */

/* The function a range names: "<built-in method X of ...>", "<method 'X'
 * of ...>", "file.py(12): X", "Queue.X" all give X (cut into buf). */
static const char *func_of(const char *name, char *buf, size_t size)
{
	const char *s = name, *e, *p;
	size_t n;

	if (strncmp(s, "<built-in method ", 17) == 0) {
		s += 17;
		e = strchr(s, ' ');
	} else if (strncmp(s, "<method '", 9) == 0) {
		s += 9;
		e = strchr(s, '\'');
	} else {
		for (p = strstr(s, "): "); p; p = strstr(p + 1, "): "))
			s = p + 3;
		e = NULL;
	}
	if (!e)
		e = s + strlen(s);
	for (p = s; p < e; p++) /* the last dotted component */
		if (*p == '.' && p + 1 < e)
			s = p + 1;
	n = (size_t)(e - s);
	if (n >= size)
		n = size - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

static bool is_one_of(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

bool gs_host_name_is_wait(const char *name)
{
	static const char *const waits[] = {
		"wait",  "wait_for", "acquire", "select", "poll", "epoll", "_wait_for_tstate_lock",
		"_poll", NULL};
	char buf[64];
	const char *f;

	if (!name || strstr(name, "::")) /* framework operators (aten::select) */
		return false;
	f = func_of(name, buf, sizeof(buf));
	if (is_one_of(f, waits))
		return true;
	if (strcmp(f, "get") == 0 && gs_has_ci(name, "queue"))
		return true;
	return strcmp(f, "join") == 0 && gs_has_ci(name, "thread");
}

static bool is_input(const char *name)
{
	static const char *const parts[] = {
		"dataloader",    "__next__",   "_next_data", "__getitem__", "collate", "fetch.py",
		"zoom",          "resize",     "decode",     "imread",      "cv2",     "preprocess",
		"image_process", "transforms", "tokeniz",    "pin_memory",  "dataset", NULL};
	static const char *const reads[] = {"read",     "readinto", "readline", "readlines",
					    "fromfile", "load",     "open",     NULL};
	char buf[64], low[256];
	size_t n;

	if (strstr(name, "::"))
		return false;
	/* The parts are lower case: gs_has_ci of each is strstr in the name
	 * lowered once (names too long for the buffer take gs_has_ci). */
	n = strlen(name);
	if (n < sizeof(low)) {
		for (size_t i = 0; i <= n; i++)
			low[i] = (char)tolower((unsigned char)name[i]);
		for (const char *const *p = parts; *p; p++)
			if (strstr(low, *p))
				return true;
	} else {
		for (const char *const *p = parts; *p; p++)
			if (gs_has_ci(name, *p))
				return true;
	}
	if (strstr(name, "PIL"))
		return true;
	return is_one_of(func_of(name, buf, sizeof(buf)), reads);
}

static bool is_sync(const char *name)
{
	char buf[64];
	const char *f;

	if (strstr(name, "aten::item") || strstr(name, "_local_scalar_dense") ||
	    gs_has_ci(name, "synchroniz"))
		return true;
	if (strstr(name, "cudaMemcpy") && !strstr(name, "Async"))
		return true;
	if (strstr(name, "::"))
		return false;
	f = func_of(name, buf, sizeof(buf));
	return strcmp(f, "item") == 0 || strcmp(f, "tolist") == 0;
}

/* ---- Sweeping --------------------------------------------------------- */

/* The spans of one thread by start; same start: the longer first; then kind
 * order and ref ascending: the span pushed last is the inner one. */
static int cmp_span(const void *pa, const void *pb)
{
	const struct ha_span *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->ref < b->ref ? -1 : a->ref > b->ref;
}

/* A thread (distinct pid, tid) of the spans while grouping them. */
struct ha_group {
	int64_t pid;
	int64_t tid;
	size_t count, pos;
	size_t next; /* the next group of the same hash key, or SIZE_MAX */
};

static int cmp_group(const void *pa, const void *pb)
{
	const struct ha_group *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static uint64_t group_key(int64_t pid, int64_t tid)
{
	return ((uint64_t)pid * 0x9e3779b97f4a7c15ull) ^ (uint64_t)tid;
}

static size_t group_find(const struct gs_u64map *m, const struct ha_group *g, int64_t pid,
			 int64_t tid)
{
	uint64_t v;

	if (!g || !gs_u64map_get(m, group_key(pid, tid), &v))
		return SIZE_MAX;
	for (size_t k = (size_t)v; k != SIZE_MAX; k = g[k].next)
		if (g[k].pid == pid && g[k].tid == tid)
			return k;
	return SIZE_MAX;
}

/* Group k into the map (it heads its key's chain). */
static gs_status group_link(struct gs_u64map *m, struct ha_group *g, size_t k)
{
	uint64_t key = group_key(g[k].pid, g[k].tid), v;

	g[k].next = gs_u64map_get(m, key, &v) ? (size_t)v : SIZE_MAX;
	return gs_u64map_put(m, key, k, true);
}

static uint8_t kind_prio(unsigned kind);

static bool is_host_span(const struct gs_range *r)
{
	/* A GPU-side annotation's pid and tid name a device and a stream, not
	 * a host thread. */
	return r->end_ns > r->start_ns && r->kind != GS_RANGE_GPU_ANNOTATION;
}

/* The host ranges of r as spans grouped by thread, the groups (*g, *ng) in
 * (pid, tid) order, each sorted by cmp_span. The ranges of a finished trace
 * come by start, so grouping them (a counting scatter, stable) leaves each
 * group nearly in order: gs_sort's fast path. */
static gs_status sorted_spans(const struct gs_range *r, size_t n_ranges, struct ha_span **out,
			      size_t *n_out, struct ha_group **g_out, size_t *ng_out)
{
	struct gs_u64map m = {0};
	struct ha_group *g = NULL;
	size_t ng = 0, cap = 0, last = SIZE_MAX, n = 0;
	struct ha_span *v = NULL;
	gs_status rc = GS_OK;

	*out = NULL;
	*g_out = NULL;
	*n_out = *ng_out = 0;
	rc = gs_vec_grow((void **)&g, &cap, 1, sizeof(*g));
	if (rc)
		return rc;
	for (size_t i = 0; i < n_ranges && !rc; i++) {
		if (!is_host_span(&r[i]))
			continue;
		if (last == SIZE_MAX || g[last].pid != r[i].pid || g[last].tid != r[i].tid) {
			last = group_find(&m, g, r[i].pid, r[i].tid);
			if (last == SIZE_MAX) {
				rc = gs_vec_grow((void **)&g, &cap, ng + 1, sizeof(*g));
				if (rc)
					break;
				g[ng] = (struct ha_group){.pid = r[i].pid, .tid = r[i].tid};
				rc = group_link(&m, g, ng);
				last = ng++;
			}
		}
		g[last].count++;
		n++;
	}
	gs_u64map_fini(&m);
	m = (struct gs_u64map){0};
	if (!rc) {
		v = malloc((n ? n : 1) * sizeof(*v));
		if (!v)
			rc = gs_nomem();
	}
	if (!rc && ng)
		qsort(g, ng, sizeof(*g), cmp_group);
	for (size_t k = 0, pos = 0; k < ng && !rc; k++) {
		g[k].pos = pos;
		pos += g[k].count;
		rc = group_link(&m, g, k);
	}
	last = SIZE_MAX;
	for (size_t i = 0; i < n_ranges && !rc; i++) {
		if (!is_host_span(&r[i]))
			continue;
		if (last == SIZE_MAX || g[last].pid != r[i].pid || g[last].tid != r[i].tid)
			last = group_find(&m, g, r[i].pid, r[i].tid);
		v[g[last].pos++] = (struct ha_span){.start = r[i].start_ns,
						    .end = r[i].end_ns,
						    .ref = (uint32_t)i,
						    .key = kind_prio(r[i].kind)};
	}
	gs_u64map_fini(&m);
	for (size_t k = 0, pos = 0; k < ng && !rc; k++) {
		gs_sort(v + pos, g[k].count, sizeof(*v), cmp_span);
		pos += g[k].count;
	}
	if (rc) {
		free(v);
		free(g);
		return rc;
	}
	*out = v;
	*n_out = n;
	*g_out = g;
	*ng_out = ng;
	return GS_OK;
}

struct ha_frame {
	size_t span;
	bool input, sync;
	uint32_t context;
};

struct ha_sweep {
	struct ha_frame *st;
	size_t sp, cap;
};

/* What a sweep does with the spans: on_push sets the new frame from its
 * parent (NULL at the bottom), on_emit gets [s, e) of the top frame. */
struct ha_sweep_ops {
	void (*on_push)(void *ctx, struct ha_frame *f, const struct ha_frame *parent);
	gs_status (*on_emit)(void *ctx, int64_t s, int64_t e, const struct ha_frame *f);
};

/* One sweep over spans sorted by cmp_span (one thread, or one process for
 * the busy cut): the latest-starting open span owns each instant. */
static gs_status sweep(struct ha_sweep *sw, const struct ha_span *v, size_t n,
		       const struct ha_sweep_ops *ops, void *ctx)
{
	size_t i = 0;
	int64_t cur = INT64_MIN;

	sw->sp = 0;
	for (;;) {
		while (sw->sp && v[sw->st[sw->sp - 1].span].end <= cur)
			sw->sp--;
		if (i < n && v[i].start <= cur) {
			if (GS_VEC_PUSH(sw->st, sw->sp, sw->cap,
					((struct ha_frame){.span = i, .context = GS_NO_STRING})))
				return gs_nomem();
			ops->on_push(ctx, &sw->st[sw->sp - 1],
				     sw->sp > 1 ? &sw->st[sw->sp - 2] : NULL);
			i++;
			continue;
		}
		if (!sw->sp) {
			if (i >= n)
				return GS_OK;
			cur = v[i].start;
			continue;
		}
		{
			const struct ha_frame *top = &sw->st[sw->sp - 1];
			int64_t e = v[top->span].end;
			gs_status rc;

			if (i < n && v[i].start < e)
				e = v[i].start;
			rc = ops->on_emit(ctx, cur, e, top);
			if (rc)
				return rc;
			cur = e;
		}
	}
}

struct ha_build {
	struct gs_host_index *ix;
	const struct ha_span *v;
};

static void range_push(void *ctx, struct ha_frame *f, const struct ha_frame *parent)
{
	struct ha_build *b = ctx;
	const struct ha_label *l = &b->ix->labels[b->ix->label_of[b->v[f->span].ref]];

	f->input = l->input || (parent && parent->input);
	f->sync = l->sync || (parent && parent->sync);
	f->context = parent && parent->context != GS_NO_STRING ? parent->context :
		     l->input                                  ? l->name :
								 GS_NO_STRING;
}

static gs_status range_emit(void *ctx, int64_t s, int64_t e, const struct ha_frame *f)
{
	struct ha_build *b = ctx;
	struct gs_host_index *ix = b->ix;
	uint32_t label = ix->label_of[b->v[f->span].ref];
	const struct ha_label *l = &ix->labels[label];
	struct ha_piece *last = ix->n_pieces ? &ix->pieces[ix->n_pieces - 1] : NULL;
	uint8_t cls;

	if (e <= s)
		return GS_OK;
	if (l->wait)
		cls = f->input ? GS_HOST_INPUT : GS_HOST_WAIT;
	else if (f->sync)
		cls = GS_HOST_SYNC;
	else if (f->input)
		cls = GS_HOST_INPUT;
	else if (l->kind == GS_RANGE_CPU_OP || l->kind == GS_RANGE_PYTHON)
		cls = GS_HOST_OPERATOR;
	else
		cls = GS_HOST_OTHER;
	/* The same range again after a child ended stays one piece only when
	 * nothing came between. */
	if (last && last->end == s && last->label == label && last->context == f->context &&
	    last->cls == cls &&
	    (size_t)(last - ix->pieces) >= ix->threads[ix->n_threads - 1].first) {
		last->end = e;
		return GS_OK;
	}
	/* pieces: as GS_VEC_PUSH, with the null test the static analyzer
	 * needs to follow the capacity reserved at build */
	if (!ix->pieces || ix->n_pieces >= ix->cap_pieces) {
		gs_status rc = gs_vec_grow((void **)&ix->pieces, &ix->cap_pieces, ix->n_pieces + 1,
					   sizeof(*ix->pieces));

		if (rc)
			return rc;
	}
	ix->pieces[ix->n_pieces++] = (struct ha_piece){.start = s,
						       .end = e,
						       .context = f->context,
						       .label = label & (HA_MAX_LABELS - 1),
						       .cls = cls & 7u,
						       .wait = l->wait ? 1u : 0u};
	return GS_OK;
}

/* Distinct (name, kind) pairs, classified once each. */
#define LABEL_MEMO 1024 /* a direct-mapped cache of the map: names repeat */

static gs_status build_labels(struct gs_host_index *ix, const struct gs_range *r, size_t n)
{
	struct gs_u64map m = {0};
	struct {
		uint64_t key;
		uint32_t v;
	} *memo = malloc(LABEL_MEMO * sizeof(*memo));

	ix->label_of = malloc((n ? n : 1) * sizeof(*ix->label_of));
	ix->labels = malloc((n ? n : 1) * sizeof(*ix->labels));
	if (!ix->label_of || !ix->labels || !memo) {
		free(memo);
		return gs_nomem();
	}
	for (size_t i = 0; i < LABEL_MEMO; i++)
		memo[i].key = UINT64_MAX; /* no key: names are 32 bits */
	for (size_t i = 0; i < n; i++) {
		uint64_t key = (uint64_t)r[i].name << 3 | (r[i].kind & 7u);
		size_t h = (size_t)(gs_hash_u64(key) & (LABEL_MEMO - 1));
		uint64_t v;

		if (memo[h].key == key) {
			ix->label_of[i] = memo[h].v;
			continue;
		}
		if (!gs_u64map_get(&m, key, &v)) {
			const char *s = gs_trace_string(ix->t, r[i].name);

			if (ix->n_labels + 1 >= HA_MAX_LABELS) {
				gs_u64map_fini(&m);
				free(memo);
				gs_error_append("too many distinct host range names (%zu)",
						ix->n_labels);
				return GS_ERR_LIMIT;
			}

			v = (uint32_t)ix->n_labels++;
			ix->labels[v] = (struct ha_label){.name = r[i].name,
							  .kind = r[i].kind,
							  .input = is_input(s),
							  .sync = is_sync(s),
							  .wait = gs_host_name_is_wait(s)};
			gs_status rc = gs_u64map_put(&m, key, v, false);

			if (rc) {
				gs_u64map_fini(&m);
				free(memo);
				return rc;
			}
		}
		memo[h].key = key;
		memo[h].v = (uint32_t)v;
		ix->label_of[i] = (uint32_t)v;
	}
	gs_u64map_fini(&m);
	free(memo);
	return GS_OK;
}

static uint8_t kind_prio(unsigned kind)
{
	switch (kind) {
	case GS_RANGE_NVTX:
		return 0;
	case GS_RANGE_USER_ANNOTATION:
		return 1;
	case GS_RANGE_PYTHON:
		return 3;
	case GS_RANGE_CPU_OP:
		return 4;
	default:
		return 2;
	}
}

gs_status gs_host_index_build(const struct gs_trace *t, struct gs_host_index **out)
{
	size_t n_ranges, n = 0, ng = 0;
	const struct gs_range *r = gs_trace_ranges(t, &n_ranges);
	struct ha_group *g = NULL;
	struct gs_host_index *ix = calloc(1, sizeof(*ix));
	struct ha_span *v;
	struct ha_sweep sw = {0};
	struct ha_build b;
	static const struct ha_sweep_ops ops = {range_push, range_emit};
	gs_status rc = GS_OK;

	*out = NULL;
	if (!ix)
		return gs_nomem();
	ix->t = t;
	if (n_ranges >= UINT32_MAX) {
		free(ix);
		gs_error_append("too many host ranges (%zu)", n_ranges);
		return GS_ERR_LIMIT;
	}
	rc = sorted_spans(r, n_ranges, &v, &n, &g, &ng);
	if (rc) {
		free(ix);
		return rc;
	}
	rc = build_labels(ix, r, n_ranges);
	ix->slot = malloc((ix->n_labels ? ix->n_labels : 1) * sizeof(*ix->slot));
	if (!rc && !ix->slot)
		rc = gs_nomem();
	if (!rc)
		memset(ix->slot, 0xff, (ix->n_labels ? ix->n_labels : 1) * sizeof(*ix->slot));
	/* A sweep emits at most two pieces a span (one as it starts, one as a
	 * child ends): room for all at once, so the pieces are never copied
	 * while they grow (pages never written cost nothing). */
	if (!rc && gs_vec_reserve((void **)&ix->pieces, &ix->cap_pieces, 2 * n + 16,
				  sizeof(*ix->pieces)) != GS_OK)
		rc = gs_nomem();
	/* Threads (and processes) in (pid, tid) order, then each thread cut. */
	for (size_t gi = 0, i = 0; gi < ng && !rc; gi++) {
		size_t j = i + g[gi].count;

		{
			struct ha_thread *nt =
				realloc(ix->threads, (ix->n_threads + 1) * sizeof(*ix->threads));

			if (!nt) {
				rc = gs_nomem();
				break;
			}
			ix->threads = nt;
		}
		if (!ix->n_procs || ix->procs[ix->n_procs - 1].pid != g[gi].pid) {
			struct ha_proc *p = realloc(ix->procs, (ix->n_procs + 1) * sizeof(*p));

			if (!p) {
				rc = gs_nomem();
				break;
			}
			ix->procs = p;
			ix->procs[ix->n_procs++] =
				(struct ha_proc){.pid = g[gi].pid, .first_thread = ix->n_threads};
		}
		ix->procs[ix->n_procs - 1].n_threads++;
		ix->threads[ix->n_threads++] = (struct ha_thread){.pid = g[gi].pid,
								  .tid = g[gi].tid,
								  .first = ix->n_pieces,
								  .proc = ix->n_procs - 1};
		b = (struct ha_build){.ix = ix, .v = v + i};
		rc = sweep(&sw, v + i, j - i, &ops, &b);
		if (!rc) {
			struct ha_thread *th = &ix->threads[ix->n_threads - 1];

			th->n = ix->n_pieces - th->first;
			for (size_t k = th->first; k < ix->n_pieces; k++)
				if (ix->pieces[k].wait)
					ix->procs[th->proc].has_wait = true;
		}
		i = j;
	}
	free(sw.st);
	free(v);
	free(g);
	free(ix->label_of); /* the pieces carry their labels */
	ix->label_of = NULL;
	if (!rc && !ix->n_pieces) { /* the room reserved, unused: realloc to 0 would free it */
		free(ix->pieces);
		ix->pieces = NULL;
		ix->cap_pieces = 0;
	} else if (!rc && ix->n_pieces < ix->cap_pieces) { /* give back the slack */
		struct ha_piece *p = realloc(ix->pieces, ix->n_pieces * sizeof(*p));

		if (p) {
			ix->pieces = p;
			ix->cap_pieces = ix->n_pieces;
		}
	}
	if (rc) {
		gs_host_index_destroy(ix);
		return rc;
	}
	*out = ix;
	return GS_OK;
}

void gs_host_index_destroy(struct gs_host_index *ix)
{
	if (!ix)
		return;
	if (ix->fork) {
		free(ix->slot);
		free(ix->acc);
		free(ix);
		return;
	}
	for (size_t i = 0; i < ix->n_procs; i++)
		free(ix->procs[i].busy);
	free(ix->procs);
	free(ix->threads);
	free(ix->pieces);
	free(ix->labels);
	free(ix->label_of);
	free(ix->slot);
	free(ix->acc);
	free(ix);
}

/* ---- The busy cut of a process ------------------------------------------ */

struct ha_busy_build {
	struct ha_proc *p;
	const struct ha_span *v;
	size_t cap;
};

static void busy_push(void *ctx, struct ha_frame *f, const struct ha_frame *parent)
{
	(void)ctx;
	(void)f;
	(void)parent;
}

static gs_status busy_emit(void *ctx, int64_t s, int64_t e, const struct ha_frame *f)
{
	struct ha_busy_build *b = ctx;
	struct ha_proc *p = b->p;
	uint32_t piece = b->v[f->span].ref;
	gs_status rc;

	if (e <= s)
		return GS_OK;
	if (p->n_busy && p->busy[p->n_busy - 1].end == s && p->busy[p->n_busy - 1].piece == piece) {
		p->busy[p->n_busy - 1].end = e;
		return GS_OK;
	}
	rc = gs_vec_grow((void **)&p->busy, &b->cap, p->n_busy + 1, sizeof(*p->busy));
	if (rc)
		return rc;
	p->busy[p->n_busy++] = (struct ha_busy){.start = s, .end = e, .piece = piece};
	return GS_OK;
}

/* Same start: the longer first, then the higher tid first (so the lower
 * tid, pushed last, wins a full tie). */
static int cmp_busy(const void *pa, const void *pb)
{
	const struct ha_span *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	if (a->key != b->key)
		return a->key > b->key ? -1 : 1;
	return a->ref < b->ref ? -1 : a->ref > b->ref;
}

static gs_status build_busy(struct gs_host_index *ix, struct ha_proc *p)
{
	static const struct ha_sweep_ops ops = {busy_push, busy_emit};
	size_t n = 0, k = 0;
	struct ha_span *v;
	struct ha_sweep sw = {0};
	struct ha_busy_build b = {.p = p};
	gs_status rc;

	for (size_t t = p->first_thread; t < p->first_thread + p->n_threads; t++)
		n += ix->threads[t].n;
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return gs_nomem();
	for (size_t t = p->first_thread; t < p->first_thread + p->n_threads; t++) {
		const struct ha_thread *th = &ix->threads[t];

		for (size_t i = th->first; i < th->first + th->n; i++)
			if (!ix->pieces[i].wait)
				v[k++] = (struct ha_span){.start = ix->pieces[i].start,
							  .end = ix->pieces[i].end,
							  .ref = (uint32_t)i,
							  .key = (uint32_t)t};
	}
	gs_sort(v, k, sizeof(*v), cmp_busy); /* sorted runs, one a thread */
	b.v = v;
	rc = sweep(&sw, v, k, &ops, &b);
	free(sw.st);
	free(v);
	p->built = rc == GS_OK;
	return rc;
}

/* ---- Queries ----------------------------------------------------------- */

struct ha_query {
	struct gs_host_index *ix;
	struct gs_host_ranges *out;
	size_t gap;
};

static gs_status credit(struct ha_query *q, const struct ha_piece *p, int64_t ns, bool forwarded)
{
	struct gs_host_index *ix = q->ix;
	uint32_t slot;
	struct ha_acc *a;

	if (ns <= 0)
		return GS_OK;
	slot = ix->slot[p->label];
	if (slot == GS_NO_INDEX) {
		gs_status rc = gs_vec_grow((void **)&ix->acc, &ix->cap_acc, ix->n_acc + 1,
					   sizeof(*ix->acc));

		if (rc)
			return rc;
		slot = (uint32_t)ix->n_acc++;
		ix->slot[p->label] = slot;
		ix->acc[slot] = (struct ha_acc){.h = {.name = ix->labels[p->label].name,
						      .context = p->context,
						      .kind = ix->labels[p->label].kind,
						      .cls = p->cls},
						.last_gap = SIZE_MAX,
						.label = p->label};
	}
	a = &ix->acc[slot];
	if (a->h.context == GS_NO_STRING)
		a->h.context = p->context;
	a->h.ns += ns;
	if (forwarded) {
		a->h.forwarded_ns += ns;
		q->out->forwarded_ns += ns;
	}
	if (a->last_gap != q->gap) {
		a->last_gap = q->gap;
		a->h.gaps++;
	}
	q->out->kind_ns[a->h.kind < GS_RANGE_KIND_COUNT ? a->h.kind : GS_RANGE_OTHER] += ns;
	q->out->class_ns[p->cls] += ns;
	return GS_OK;
}

/* [s, e) of wait piece w: to the busy pieces of its process, the rest to w. */
static gs_status forward(struct ha_query *q, const struct ha_thread *th, const struct ha_piece *w,
			 int64_t s, int64_t e)
{
	struct gs_host_index *ix = q->ix;
	struct ha_proc *p = &ix->procs[th->proc];
	size_t lo;
	int64_t cur = s;
	gs_status rc;

	if (p->n_threads < 2)
		return credit(q, w, e - s, false);
	if (!p->built) {
		rc = build_busy(ix, p);
		if (rc)
			return rc;
	}
	/* the first busy piece ending after s */
	lo = gs_upper_bound_i64_at(p->busy, p->n_busy, sizeof(*p->busy),
				   offsetof(struct ha_busy, end), s);
	for (size_t i = lo; i < p->n_busy && p->busy[i].start < e; i++) {
		int64_t bs = p->busy[i].start > cur ? p->busy[i].start : cur;
		int64_t be = p->busy[i].end < e ? p->busy[i].end : e;

		if (be <= bs)
			continue;
		rc = credit(q, w, bs - cur, false);
		if (!rc)
			rc = credit(q, &ix->pieces[p->busy[i].piece], be - bs, true);
		if (rc)
			return rc;
		cur = be;
	}
	return credit(q, w, e - cur, false);
}

/* Every busy cut a query could need (a process of two threads or more
 * with a wait piece), built now rather than at its first query: after
 * this, queries through forks of ix only read it. */
gs_status gs_host_index_share(struct gs_host_index *ix)
{
	for (size_t i = 0; ix && i < ix->n_procs; i++) {
		struct ha_proc *p = &ix->procs[i];

		if (p->n_threads >= 2 && p->has_wait && !p->built) {
			gs_status rc = build_busy(ix, p);

			if (rc)
				return rc;
		}
	}
	return GS_OK;
}

gs_status gs_host_index_fork(const struct gs_host_index *ix, struct gs_host_index **out)
{
	struct gs_host_index *f = malloc(sizeof(*f));
	size_t n = ix->n_labels ? ix->n_labels : 1;

	*out = NULL;
	if (!f)
		return gs_nomem();
	*f = *ix;
	f->fork = true;
	f->acc = NULL;
	f->n_acc = f->cap_acc = 0;
	f->slot = malloc(n * sizeof(*f->slot));
	if (!f->slot) {
		free(f);
		return gs_nomem();
	}
	memset(f->slot, 0xff, n * sizeof(*f->slot));
	*out = f;
	return GS_OK;
}

/* A thread searched for by (pid, tid). */
struct thread_key {
	const struct ha_thread *threads;
	int64_t pid, tid;
};

static bool thread_before(const void *ctx, size_t i)
{
	const struct thread_key *k = ctx;
	const struct ha_thread *t = &k->threads[i];

	return t->pid < k->pid || (t->pid == k->pid && t->tid < k->tid);
}

static const struct ha_thread *find_thread(const struct gs_host_index *ix, int64_t pid, int64_t tid)
{
	struct thread_key key = {ix->threads, pid, tid};
	size_t lo = gs_partition_point(ix->n_threads, thread_before, &key);

	return lo < ix->n_threads && ix->threads[lo].pid == pid && ix->threads[lo].tid == tid ?
		       &ix->threads[lo] :
		       NULL;
}

static gs_status attribute(struct ha_query *q, const struct gs_host_interval *iv)
{
	struct gs_host_index *ix = q->ix;
	const struct ha_thread *th = find_thread(ix, iv->pid, iv->tid);
	const struct ha_piece *pc;
	int64_t cur = iv->start_ns;
	size_t lo;

	if (!th) {
		q->out->outside_ns += iv->end_ns - iv->start_ns;
		return GS_OK;
	}
	pc = ix->pieces + th->first;
	/* the first piece ending after the interval's start */
	lo = gs_upper_bound_i64_at(pc, th->n, sizeof(*pc), offsetof(struct ha_piece, end),
				   iv->start_ns);
	for (size_t i = lo; i < th->n && pc[i].start < iv->end_ns; i++) {
		int64_t s = pc[i].start > cur ? pc[i].start : cur;
		int64_t e = pc[i].end < iv->end_ns ? pc[i].end : iv->end_ns;
		gs_status rc;

		if (e <= s)
			continue;
		q->out->outside_ns += s - cur;
		rc = pc[i].wait ? forward(q, th, &pc[i], s, e) : credit(q, &pc[i], e - s, false);
		if (rc)
			return rc;
		cur = e;
	}
	q->out->outside_ns += iv->end_ns - cur;
	return GS_OK;
}

struct ha_rank {
	const char *name;
	struct gs_host_range_time h;
};

static int cmp_rank(const void *pa, const void *pb)
{
	const struct ha_rank *a = pa, *b = pb;
	int c;

	if (a->h.ns != b->h.ns)
		return a->h.ns > b->h.ns ? -1 : 1;
	if (a->h.gaps != b->h.gaps)
		return a->h.gaps > b->h.gaps ? -1 : 1;
	c = strcmp(a->name, b->name);
	if (c != 0)
		return c;
	return a->h.kind < b->h.kind ? -1 : a->h.kind > b->h.kind;
}

gs_status gs_host_ranges_compute(struct gs_host_index *ix, const struct gs_host_interval *iv,
				 size_t n, struct gs_host_ranges *out)
{
	struct ha_query q = {.ix = ix, .out = out};
	gs_status rc = GS_OK;
	struct ha_rank *rk = NULL;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		int64_t len = iv[i].end_ns - iv[i].start_ns;

		if (len <= 0)
			continue;
		out->intervals++;
		if (len <= GS_HOST_SHORT_GAP_NS) {
			out->short_intervals++;
			out->short_ns += len;
		}
		if (!ix)
			out->outside_ns += len;
	}
	if (!ix)
		return GS_OK;
	out->recorded = ix->n_threads > 0;
	ix->n_acc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		if (iv[i].end_ns <= iv[i].start_ns)
			continue;
		q.gap = i;
		rc = attribute(&q, &iv[i]);
	}
	if (!rc && ix->n_acc) {
		rk = malloc(ix->n_acc * sizeof(*rk));
		out->ranges = malloc(ix->n_acc * sizeof(*out->ranges));
		if (!rk || !out->ranges)
			rc = gs_nomem();
	}
	if (!rc && ix->n_acc) {
		for (size_t i = 0; i < ix->n_acc; i++)
			rk[i] = (struct ha_rank){.name = gs_trace_string(ix->t, ix->acc[i].h.name),
						 .h = ix->acc[i].h};
		qsort(rk, ix->n_acc, sizeof(*rk), cmp_rank);
		for (size_t i = 0; i < ix->n_acc; i++)
			out->ranges[i] = rk[i].h;
		out->n_ranges = ix->n_acc;
	}
	free(rk);
	for (size_t i = 0; i < ix->n_acc; i++) /* back to GS_NO_INDEX */
		ix->slot[ix->acc[i].label] = GS_NO_INDEX;
	ix->n_acc = 0;
	if (rc)
		gs_host_ranges_fini(out);
	return rc;
}

void gs_host_ranges_fini(struct gs_host_ranges *h)
{
	if (!h)
		return;
	free(h->ranges);
	memset(h, 0, sizeof(*h));
}
