/* SPDX-License-Identifier: MIT */
/*
 * Host-bound idle attributed to host ranges (gpuscope/hostattr.h).
 *
 * Build: the host ranges grouped by thread (their indices: times and kind
 * are read from the ranges) and sorted by (start, longest first, kind
 * order), then per thread one sweep with a stack of open ranges (a range
 * that ended is dropped when it comes to the top) cuts the thread's time
 * into pieces, each owned by the range on top: the latest-starting range
 * still open, its innermost one. The pieces of a thread tile its time in
 * order (gap pieces where no range is open), each a start and a tag: the
 * owner's (name, kind) label with the context and class that the ranges
 * around it gave it. Each name is classified once per distinct (name,
 * kind). For a process whose threads wait, the busy (non-wait) pieces of
 * all its threads are cut the same way, on demand: at each instant the
 * piece that started last wins, the thread that most recently began its
 * current work.
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

/*
 * A thread's time is cut into pieces that tile it from its first range's
 * start to its last range's end: piece i lasts from start[i] to start[i + 1]
 * and says what the thread did then by a tag, HA_GAP where no range is
 * open. Each thread's pieces end with a gap piece, so that its last real
 * piece has an end. With no end of its own and the (label, context,
 * class) it would repeat kept once per distinct tag, a piece is 12 bytes
 * (8 for its start, 4 for its tag) where it was 24: a trace has one to
 * two pieces a host range (1.2 in PyTorch's nesting), and the index is
 * held through every device's analyses.
 */
#define HA_GAP UINT32_MAX
#define HA_MAX_LABELS (1u << 28) /* a label's id, 28 bits, and a class in a tag's key */

/* What a piece was: its range's label, the context and class the ranges
 * around it gave it. */
struct ha_tag {
	uint32_t label;
	uint32_t context;
	uint8_t cls; /* enum gs_host_class */
	bool wait;   /* the label's: forwarded to a busy thread */
};

/* Pieces being appended: a thread's (or a process's busy cut), after those
 * of the threads before it. */
struct ha_cut {
	int64_t *start;
	uint32_t *tag;
	size_t n, cap;
	size_t first; /* the current thread's first piece */
	int64_t end;  /* where piece n - 1 ends, while it is not closed */
};

struct ha_thread {
	int64_t pid;
	int64_t tid;
	size_t first; /* pieces[first .. first + n), the last a gap piece */
	size_t n;
	size_t proc;
};

struct ha_proc {
	int64_t pid;
	size_t first_thread, n_threads;
	bool has_wait;
	bool built;
	/* The busy cut, as a thread's pieces are (the last a gap piece): the
	 * tag of the busy piece that wins at each instant, HA_GAP where no
	 * thread is busy. */
	int64_t *busy_start;
	uint32_t *busy_tag;
	size_t n_busy;
};

/* A distinct (name, kind) and what its name says. */
struct ha_label {
	uint32_t name;
	uint8_t kind;
	bool input, sync, wait;
	/* While building: its last tag (HA_GAP: none yet). A label nearly
	 * always comes with one context and class: this finds its tag without
	 * the map. */
	uint32_t tag;
};

struct ha_acc {
	struct gs_host_range_time h;
	size_t last_gap;
	uint32_t label;
};

struct gs_host_index {
	const struct gs_trace *t;
	int64_t *piece_start; /* pieces: see struct ha_cut */
	uint32_t *piece_tag;
	size_t n_pieces;
	struct ha_tag *tags;
	size_t n_tags;
	struct ha_thread *threads;
	size_t n_threads;
	struct ha_proc *procs;
	size_t n_procs;
	struct ha_label *labels;
	size_t n_labels;
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

/* A thread's ranges by start; same start: the longer first; then kind order
 * and index: the range pushed last is the inner one. */
static int cmp_range_at(const struct gs_range *r, uint32_t a, uint32_t b)
{
	uint8_t pa, pb;

	if (r[a].start_ns != r[b].start_ns)
		return r[a].start_ns < r[b].start_ns ? -1 : 1;
	if (r[a].end_ns != r[b].end_ns)
		return r[a].end_ns > r[b].end_ns ? -1 : 1;
	pa = kind_prio(r[a].kind);
	pb = kind_prio(r[b].kind);
	if (pa != pb)
		return pa < pb ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The order's fields copied, for gs_sort (its comparator has no context). */
struct ha_sort_rec {
	int64_t start;
	int64_t end;
	uint32_t ref;
	uint8_t prio;
};

static int cmp_sort_rec(const void *pa, const void *pb)
{
	const struct ha_sort_rec *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	if (a->prio != b->prio)
		return a->prio < b->prio ? -1 : 1;
	return a->ref < b->ref ? -1 : a->ref > b->ref;
}

/* Sort v[0 .. n) by cmp_range_at through a copy of the order's fields. */
static gs_status sort_copied(const struct gs_range *r, uint32_t *v, size_t n)
{
	struct ha_sort_rec *c = malloc((n ? n : 1) * sizeof(*c));

	if (!c)
		return gs_nomem();
	for (size_t i = 0; i < n; i++)
		c[i] = (struct ha_sort_rec){.start = r[v[i]].start_ns,
					    .end = r[v[i]].end_ns,
					    .ref = v[i],
					    .prio = kind_prio(r[v[i]].kind)};
	gs_sort(c, n, sizeof(*c), cmp_sort_rec);
	for (size_t i = 0; i < n; i++)
		v[i] = c[i].ref;
	free(c);
	return GS_OK;
}

#define HA_TIE_MAX 16 /* longer runs of one start: sorted through a copy */

/*
 * A thread of the host ranges: their indices (4 bytes each: times and kind
 * are read from the ranges) in cmp_range_at's order, placed as they come.
 * The ranges of a finished trace come by start, so a range goes at the
 * end of its thread's, but for a run of one start, sorted as it grows (an
 * insertion sort of the ranges just read). A run longer than HA_TIE_MAX is
 * sorted through a copy once it ends; a thread whose ranges come out of
 * start order, all of it. A total order: the same result either way.
 */
struct ha_group {
	int64_t pid;
	int64_t tid;
	uint32_t *ref; /* its room in one array for all (counted first) */
	size_t n, count;
	size_t run;        /* ref[run .. n) share a start */
	int64_t run_start; /* that start */
	bool copy;         /* out of start order: sorted through a copy at the end */
	size_t next;       /* the next group of the same hash key, or SIZE_MAX */
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

static bool is_host_span(const struct gs_range *r)
{
	/* A GPU-side annotation's pid and tid name a device and a stream, not
	 * a host thread. */
	return r->end_ns > r->start_ns && r->kind != GS_RANGE_GPU_ANNOTATION;
}

/* The run of one start that ends: sorted through a copy when it grew past
 * the insertion sort's. */
static gs_status group_end_run(const struct gs_range *r, struct ha_group *g)
{
	return !g->copy && g->n - g->run > HA_TIE_MAX ?
		       sort_copied(r, g->ref + g->run, g->n - g->run) :
		       GS_OK;
}

/* Range i of the trace into its thread's ranges. */
static gs_status group_add(const struct gs_range *r, struct ha_group *g, uint32_t i)
{
	int64_t s = r[i].start_ns;
	size_t b = g->n;

	if (g->copy || b == 0 || s > g->run_start) {
		gs_status rc = b && !g->copy ? group_end_run(r, g) : GS_OK;

		g->ref[g->n++] = i;
		g->run = b;
		g->run_start = s;
		return rc;
	}
	g->n++;
	if (s < g->run_start) {
		g->ref[b] = i;
		g->copy = true;
		return GS_OK;
	}
	if (b - g->run < HA_TIE_MAX)
		for (; b > g->run && cmp_range_at(r, g->ref[b - 1], i) > 0; b--)
			g->ref[b] = g->ref[b - 1];
	g->ref[b] = i;
	return GS_OK;
}

/* Range i's group, SIZE_MAX when new (last: the previous range's). */
static size_t group_of(const struct gs_u64map *m, const struct ha_group *g, size_t last,
		       const struct gs_range *q)
{
	if (last != SIZE_MAX && g[last].pid == q->pid && g[last].tid == q->tid)
		return last;
	return group_find(m, g, q->pid, q->tid);
}

/*
 * The host ranges of r grouped by thread (*g, *ng), in (pid, tid) order,
 * each sorted by cmp_range_at, in one array (*all) of *n indices. Counted
 * first, so that the array is allocated once at its size: grown by
 * doubling, it was copied and left freed pages behind.
 */
static gs_status group_ranges(const struct gs_range *r, size_t n_ranges, struct ha_group **g_out,
			      size_t *ng_out, uint32_t **all, size_t *n_out)
{
	struct gs_u64map m = {0};
	struct ha_group *g = NULL;
	size_t ng = 0, cap = 0, last = SIZE_MAX, n = 0;
	gs_status rc = GS_OK;

	*all = NULL;

	for (size_t i = 0; i < n_ranges && !rc; i++) {
		if (!is_host_span(&r[i]))
			continue;
		last = group_of(&m, g, last, &r[i]);
		if (last == SIZE_MAX || !g) { /* no group yet: none found either */
			rc = gs_vec_grow((void **)&g, &cap, ng + 1, sizeof(*g));
			if (rc)
				break;
			g[ng] = (struct ha_group){.pid = r[i].pid, .tid = r[i].tid};
			rc = group_link(&m, g, ng);
			if (rc)
				break;
			last = ng++;
		}
		g[last].count++;
		n++;
	}
	if (!rc) {
		*all = malloc((n ? n : 1) * sizeof(**all));
		if (!*all)
			rc = gs_nomem();
	}
	for (size_t k = 0, pos = 0; k < ng && !rc; k++) {
		g[k].ref = *all + pos;
		pos += g[k].count;
	}
	last = SIZE_MAX;
	for (size_t i = 0; i < n_ranges && !rc; i++)
		if (is_host_span(&r[i])) {
			last = group_of(&m, g, last, &r[i]);
			rc = group_add(r, &g[last], (uint32_t)i);
		}
	gs_u64map_fini(&m);
	for (size_t k = 0; k < ng && !rc; k++)
		rc = g[k].copy ? sort_copied(r, g[k].ref, g[k].n) : group_end_run(r, &g[k]);
	if (!rc && ng)
		qsort(g, ng, sizeof(*g), cmp_group);
	*g_out = g;
	*ng_out = ng;
	*n_out = n;
	return rc;
}

/* A piece of a thread to cut again with the other threads of its process
 * (the busy cut). */
struct ha_busy_span {
	int64_t start;
	int64_t end;
	uint32_t tag;
	uint32_t thread;
};

/* What a sweep reads: host ranges through their indices (a thread's cut),
 * or the spans of a busy cut. */
struct ha_src {
	const struct gs_range *r;
	const uint32_t *ref;
	const struct ha_busy_span *b; /* NULL: r[ref[k]] */
};

static inline int64_t src_start(const struct ha_src *s, size_t k)
{
	return s->b ? s->b[k].start : s->r[s->ref[k]].start_ns;
}

static inline int64_t src_end(const struct ha_src *s, size_t k)
{
	return s->b ? s->b[k].end : s->r[s->ref[k]].end_ns;
}

struct ha_frame {
	size_t span;
	int64_t end;
	uint32_t label;   /* the range's (a thread's cut) */
	uint32_t tag;     /* HA_GAP until its first piece (a thread's cut) */
	uint32_t context; /* the outermost input range's name around it */
	bool input, sync;
};

struct ha_sweep {
	struct ha_frame *st;
	size_t sp, cap;
};

/* What a sweep does with the spans: on_push sets the new frame from its
 * parent (NULL at the bottom), on_emit gets [s, e) of the top frame. */
struct ha_sweep_ops {
	gs_status (*on_push)(void *ctx, struct ha_frame *f, const struct ha_frame *parent);
	gs_status (*on_emit)(void *ctx, int64_t s, int64_t e, struct ha_frame *f);
};

/* One sweep over n spans of src in cmp_range_at's order (one thread) or
 * cmp_busy's (one process's busy pieces): the latest-starting open span
 * owns each instant. */
static gs_status sweep(struct ha_sweep *sw, const struct ha_src *src, size_t n,
		       const struct ha_sweep_ops *ops, void *ctx)
{
	size_t i = 0;
	int64_t cur = INT64_MIN, next = n ? src_start(src, 0) : INT64_MAX;
	gs_status rc;

	sw->sp = 0;
	for (;;) {
		while (sw->sp && sw->st[sw->sp - 1].end <= cur)
			sw->sp--;
		if (i < n && next <= cur) {
			if (GS_VEC_PUSH(sw->st, sw->sp, sw->cap,
					((struct ha_frame){.span = i,
							   .end = src_end(src, i),
							   .tag = HA_GAP,
							   .context = GS_NO_STRING})))
				return gs_nomem();
			rc = ops->on_push(ctx, &sw->st[sw->sp - 1],
					  sw->sp > 1 ? &sw->st[sw->sp - 2] : NULL);
			if (rc)
				return rc;
			i++;
			next = i < n ? src_start(src, i) : INT64_MAX;
			continue;
		}
		if (!sw->sp) {
			if (i >= n)
				return GS_OK;
			cur = next;
			continue;
		}
		{
			struct ha_frame *top = &sw->st[sw->sp - 1];
			int64_t e = i < n && next < top->end ? next : top->end;

			rc = ops->on_emit(ctx, cur, e, top);
			if (rc)
				return rc;
			cur = e;
		}
	}
}

/* ---- Pieces ------------------------------------------------------------- */

static gs_status cut_push(struct ha_cut *c, int64_t s, uint32_t tag)
{
	/* with the null tests the static analyzer needs to follow the
	 * capacity reserved at build */
	if (!c->start || !c->tag || c->n >= c->cap) {
		size_t cap_s = c->cap, cap_t = c->cap;
		gs_status rc = gs_vec_grow((void **)&c->start, &cap_s, c->n + 1, sizeof(*c->start));

		if (!rc)
			rc = gs_vec_grow((void **)&c->tag, &cap_t, c->n + 1, sizeof(*c->tag));
		if (rc)
			return rc;
		c->cap = cap_s < cap_t ? cap_s : cap_t;
	}
	c->start[c->n] = s;
	c->tag[c->n++] = tag;
	return GS_OK;
}

/* [s, e) of tag, after the current thread's pieces: the same tag again
 * where the last piece ends (its range resumed after a child with no time
 * or of the same tag) extends that piece; a later start comes after a gap
 * piece. */
static gs_status cut_emit(struct ha_cut *c, int64_t s, int64_t e, uint32_t tag)
{
	gs_status rc;

	if (e <= s)
		return GS_OK;
	if (c->n > c->first) {
		if (s == c->end && c->tag[c->n - 1] == tag) {
			c->end = e;
			return GS_OK;
		}
		if (s > c->end) {
			rc = cut_push(c, c->end, HA_GAP);
			if (rc)
				return rc;
		}
	}
	rc = cut_push(c, s, tag);
	if (!rc)
		c->end = e;
	return rc;
}

/* The end of a thread's pieces: a gap piece that gives the last its end. */
static gs_status cut_close(struct ha_cut *c)
{
	return c->n > c->first ? cut_push(c, c->end, HA_GAP) : GS_OK;
}

/* Both arrays cut to their length (realloc to 0 would free them). */
static void cut_trim(struct ha_cut *c)
{
	if (!c->n) {
		free(c->start);
		free(c->tag);
		c->start = NULL;
		c->tag = NULL;
		c->cap = 0;
	} else if (c->n < c->cap) {
		int64_t *s = realloc(c->start, c->n * sizeof(*s));
		uint32_t *t;

		if (s)
			c->start = s;
		t = realloc(c->tag, c->n * sizeof(*t));
		if (t)
			c->tag = t;
		if (s && t)
			c->cap = c->n;
	}
}

/* ---- Building ----------------------------------------------------------- */

/* A direct-mapped cache of the label map: names repeat. */
#define HA_MEMO 1024

struct ha_memo {
	uint64_t key; /* UINT64_MAX: none (no label's key) */
	uint32_t v;
};

struct ha_build {
	struct gs_host_index *ix;
	const struct gs_range *r;
	const uint32_t *ref; /* the thread's ranges being swept */
	struct ha_cut cut;
	size_t cap_labels, cap_tags;
	struct gs_u64map label_map, tag_map;
	struct ha_memo *memo; /* HA_MEMO entries */
};

/* The label of range q: a distinct (name, kind), its name classified once. */
static gs_status label_for(struct ha_build *b, const struct gs_range *q, uint32_t *out)
{
	struct gs_host_index *ix = b->ix;
	uint64_t key = (uint64_t)q->name << 3 | (q->kind & 7u), v;
	struct ha_memo *m = &b->memo[gs_hash_u64(key) & (HA_MEMO - 1)];

	if (m->key == key) {
		*out = m->v;
		return GS_OK;
	}
	if (!gs_u64map_get(&b->label_map, key, &v)) {
		const char *s = gs_trace_string(ix->t, q->name);
		gs_status rc;

		if (ix->n_labels + 1 >= HA_MAX_LABELS) {
			gs_error_append("too many distinct host range names (%zu)", ix->n_labels);
			return GS_ERR_LIMIT;
		}
		rc = gs_vec_grow((void **)&ix->labels, &b->cap_labels, ix->n_labels + 1,
				 sizeof(*ix->labels));
		if (rc)
			return rc;
		v = ix->n_labels;
		ix->labels[v] = (struct ha_label){.name = q->name,
						  .kind = q->kind,
						  .input = is_input(s),
						  .sync = is_sync(s),
						  .wait = gs_host_name_is_wait(s),
						  .tag = HA_GAP};
		rc = gs_u64map_put(&b->label_map, key, v, false);
		if (rc)
			return rc;
		ix->n_labels++;
	}
	m->key = key;
	m->v = (uint32_t)v;
	*out = (uint32_t)v;
	return GS_OK;
}

/* The tag of (label, context, class). */
static gs_status tag_for(struct ha_build *b, uint32_t label, uint32_t context, uint8_t cls,
			 uint32_t *out)
{
	struct gs_host_index *ix = b->ix;
	uint64_t key = (uint64_t)context << 32 | (uint64_t)label << 3 | cls, v;
	uint32_t last = ix->labels[label].tag;

	if (last != HA_GAP && ix->tags[last].context == context && ix->tags[last].cls == cls) {
		*out = last;
		return GS_OK;
	}
	if (!gs_u64map_get(&b->tag_map, key, &v)) {
		gs_status rc;

		if (ix->n_tags + 1 >= HA_GAP) {
			gs_error_append("too many distinct host range pieces (%zu)", ix->n_tags);
			return GS_ERR_LIMIT;
		}
		rc = gs_vec_grow((void **)&ix->tags, &b->cap_tags, ix->n_tags + 1,
				 sizeof(*ix->tags));
		if (rc)
			return rc;
		v = ix->n_tags;
		ix->tags[v] = (struct ha_tag){.label = label,
					      .context = context,
					      .cls = cls,
					      .wait = ix->labels[label].wait};
		rc = gs_u64map_put(&b->tag_map, key, v, false);
		if (rc)
			return rc;
		ix->n_tags++;
	}
	ix->labels[label].tag = (uint32_t)v;
	*out = (uint32_t)v;
	return GS_OK;
}

static gs_status range_push(void *ctx, struct ha_frame *f, const struct ha_frame *parent)
{
	struct ha_build *b = ctx;
	const struct ha_label *l;
	gs_status rc = label_for(b, &b->r[b->ref[f->span]], &f->label);

	if (rc)
		return rc;
	l = &b->ix->labels[f->label];
	f->input = l->input || (parent && parent->input);
	f->sync = l->sync || (parent && parent->sync);
	f->context = parent && parent->context != GS_NO_STRING ? parent->context :
		     l->input                                  ? l->name :
								 GS_NO_STRING;
	return GS_OK;
}

static gs_status range_emit(void *ctx, int64_t s, int64_t e, struct ha_frame *f)
{
	struct ha_build *b = ctx;

	if (e <= s)
		return GS_OK;
	if (f->tag == HA_GAP) { /* its first piece: the tag is the frame's for good */
		const struct ha_label *l = &b->ix->labels[f->label];
		uint8_t cls;
		gs_status rc;

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
		rc = tag_for(b, f->label, f->context, cls, &f->tag);
		if (rc)
			return rc;
	}
	return cut_emit(&b->cut, s, e, f->tag);
}

/* Thread g of the groups, after the others: its process too when new. */
static gs_status add_thread(struct gs_host_index *ix, const struct ha_group *g, size_t first)
{
	struct ha_thread *nt = realloc(ix->threads, (ix->n_threads + 1) * sizeof(*ix->threads));

	if (!nt)
		return gs_nomem();
	ix->threads = nt;
	if (!ix->n_procs || ix->procs[ix->n_procs - 1].pid != g->pid) {
		struct ha_proc *p = realloc(ix->procs, (ix->n_procs + 1) * sizeof(*p));

		if (!p)
			return gs_nomem();
		ix->procs = p;
		ix->procs[ix->n_procs++] =
			(struct ha_proc){.pid = g->pid, .first_thread = ix->n_threads};
	}
	ix->procs[ix->n_procs - 1].n_threads++;
	ix->threads[ix->n_threads++] = (struct ha_thread){.pid = g->pid,
							  .tid = g->tid,
							  .first = first,
							  .proc = ix->n_procs - 1};
	return GS_OK;
}

gs_status gs_host_index_build(const struct gs_trace *t, struct gs_host_index **out)
{
	size_t n_ranges, n = 0, ng = 0;
	const struct gs_range *r = gs_trace_ranges(t, &n_ranges);
	struct ha_group *g = NULL;
	struct gs_host_index *ix = calloc(1, sizeof(*ix));
	uint32_t *all = NULL;
	struct ha_sweep sw = {0};
	struct ha_build b = {.r = r};
	static const struct ha_sweep_ops ops = {range_push, range_emit};
	gs_status rc = GS_OK;

	*out = NULL;
	if (!ix)
		return gs_nomem();
	ix->t = t;
	b.ix = ix;
	if (n_ranges >= UINT32_MAX) {
		free(ix);
		gs_error_append("too many host ranges (%zu)", n_ranges);
		return GS_ERR_LIMIT;
	}
	rc = group_ranges(r, n_ranges, &g, &ng, &all, &n);
	if (!rc) {
		b.memo = malloc(HA_MEMO * sizeof(*b.memo));
		if (!b.memo)
			rc = gs_nomem();
		for (size_t i = 0; !rc && i < HA_MEMO; i++)
			b.memo[i].key = UINT64_MAX;
	}
	/* A sweep emits at most two pieces a range (one as it starts, one as
	 * a child ends), a gap piece before a range that starts with none
	 * open, and a gap piece at the end of each thread: room for all at
	 * once, so the pieces are never copied while they grow (pages never
	 * written cost nothing). */
	if (!rc) {
		size_t need = 3 * n + ng + 16, cap_s = 0, cap_t = 0;

		if (gs_vec_reserve((void **)&b.cut.start, &cap_s, need, sizeof(*b.cut.start)) ||
		    gs_vec_reserve((void **)&b.cut.tag, &cap_t, need, sizeof(*b.cut.tag)))
			rc = gs_nomem();
		b.cut.cap = cap_s < cap_t ? cap_s : cap_t;
	}
	/* Threads (and processes) in (pid, tid) order, then each thread cut. */
	for (size_t gi = 0; gi < ng && !rc; gi++) {
		struct ha_src src = {.r = r, .ref = g[gi].ref};
		struct ha_thread *th;

		rc = add_thread(ix, &g[gi], b.cut.n);
		if (rc)
			break;
		b.cut.first = b.cut.n;
		b.ref = g[gi].ref;
		rc = sweep(&sw, &src, g[gi].n, &ops, &b);
		if (!rc)
			rc = cut_close(&b.cut);
		if (rc)
			break;
		th = &ix->threads[ix->n_threads - 1];
		th->n = b.cut.n - th->first;
		for (size_t k = th->first; k < b.cut.n; k++)
			if (b.cut.tag[k] != HA_GAP && ix->tags[b.cut.tag[k]].wait)
				ix->procs[th->proc].has_wait = true;
	}
	free(sw.st);
	free(all);
	free(g);
	free(b.memo);
	gs_u64map_fini(&b.label_map);
	gs_u64map_fini(&b.tag_map);
	cut_trim(&b.cut);
	ix->piece_start = b.cut.start;
	ix->piece_tag = b.cut.tag;
	ix->n_pieces = b.cut.n;
	if (!rc) {
		size_t nl = ix->n_labels ? ix->n_labels : 1;

		ix->slot = malloc(nl * sizeof(*ix->slot));
		if (ix->slot)
			memset(ix->slot, 0xff, nl * sizeof(*ix->slot));
		else
			rc = gs_nomem();
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
	for (size_t i = 0; i < ix->n_procs; i++) {
		free(ix->procs[i].busy_start);
		free(ix->procs[i].busy_tag);
	}
	free(ix->procs);
	free(ix->threads);
	free(ix->piece_start);
	free(ix->piece_tag);
	free(ix->tags);
	free(ix->labels);
	free(ix->slot);
	free(ix->acc);
	free(ix);
}

/* ---- The busy cut of a process ------------------------------------------ */

struct ha_busy_build {
	const struct ha_busy_span *v;
	struct ha_cut cut;
};

static gs_status busy_push(void *ctx, struct ha_frame *f, const struct ha_frame *parent)
{
	const struct ha_busy_build *b = ctx;

	(void)parent;
	f->tag = b->v[f->span].tag;
	return GS_OK;
}

/* Busy pieces of one tag that meet are one: crediting them apart or
 * together gives the same sums. */
static gs_status busy_emit(void *ctx, int64_t s, int64_t e, struct ha_frame *f)
{
	struct ha_busy_build *b = ctx;

	return cut_emit(&b->cut, s, e, f->tag);
}

/* Same start: the longer first, then the higher thread first (so the lower
 * tid, pushed last, wins a full tie). A thread's pieces never share a
 * start: the order is total. */
static int cmp_busy(const void *pa, const void *pb)
{
	const struct ha_busy_span *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	return a->thread > b->thread ? -1 : a->thread < b->thread;
}

static gs_status build_busy(struct gs_host_index *ix, struct ha_proc *p)
{
	static const struct ha_sweep_ops ops = {busy_push, busy_emit};
	size_t n = 0, k = 0;
	struct ha_busy_span *v;
	struct ha_sweep sw = {0};
	struct ha_busy_build b = {0};
	struct ha_src src;
	gs_status rc;

	for (size_t t = p->first_thread; t < p->first_thread + p->n_threads; t++)
		n += ix->threads[t].n;
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return gs_nomem();
	for (size_t t = p->first_thread; t < p->first_thread + p->n_threads; t++) {
		const struct ha_thread *th = &ix->threads[t];

		for (size_t i = th->first; i + 1 < th->first + th->n; i++) {
			uint32_t tag = ix->piece_tag[i];

			if (tag != HA_GAP && !ix->tags[tag].wait)
				v[k++] = (struct ha_busy_span){.start = ix->piece_start[i],
							       .end = ix->piece_start[i + 1],
							       .tag = tag,
							       .thread = (uint32_t)t};
		}
	}
	gs_sort(v, k, sizeof(*v), cmp_busy); /* sorted runs, one a thread */
	b.v = v;
	src = (struct ha_src){.b = v};
	rc = sweep(&sw, &src, k, &ops, &b);
	if (!rc)
		rc = cut_close(&b.cut);
	free(sw.st);
	free(v);
	if (rc) {
		free(b.cut.start);
		free(b.cut.tag);
		return rc;
	}
	cut_trim(&b.cut);
	p->busy_start = b.cut.start;
	p->busy_tag = b.cut.tag;
	p->n_busy = b.cut.n;
	p->built = true;
	return GS_OK;
}

/* ---- Queries ----------------------------------------------------------- */

struct ha_query {
	struct gs_host_index *ix;
	struct gs_host_ranges *out;
	size_t gap;
};

static gs_status credit(struct ha_query *q, const struct ha_tag *p, int64_t ns, bool forwarded)
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

/* The piece of start[0 .. n) (pieces that tile their time) that holds
 * instant s, or the first one when s comes before them all. */
static size_t piece_at(const int64_t *start, size_t n, int64_t s)
{
	size_t i = gs_upper_bound_i64(start, n, s);

	return i ? i - 1 : 0;
}

/* [s, e) of wait piece w: to the busy pieces of its process, the rest to w. */
static gs_status forward(struct ha_query *q, const struct ha_thread *th, const struct ha_tag *w,
			 int64_t s, int64_t e)
{
	struct gs_host_index *ix = q->ix;
	struct ha_proc *p = &ix->procs[th->proc];
	int64_t cur = s;
	gs_status rc;

	if (p->n_threads < 2)
		return credit(q, w, e - s, false);
	if (!p->built) {
		rc = build_busy(ix, p);
		if (rc)
			return rc;
	}
	for (size_t i = piece_at(p->busy_start, p->n_busy, s);
	     i + 1 < p->n_busy && p->busy_start[i] < e; i++) {
		int64_t bs = p->busy_start[i] > cur ? p->busy_start[i] : cur;
		int64_t be = p->busy_start[i + 1] < e ? p->busy_start[i + 1] : e;

		if (p->busy_tag[i] == HA_GAP || be <= bs)
			continue;
		rc = credit(q, w, bs - cur, false);
		if (!rc)
			rc = credit(q, &ix->tags[p->busy_tag[i]], be - bs, true);
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
	const int64_t *st;
	const uint32_t *tg;
	int64_t cur = iv->start_ns;

	if (!th) {
		q->out->outside_ns += iv->end_ns - iv->start_ns;
		return GS_OK;
	}
	st = ix->piece_start + th->first;
	tg = ix->piece_tag + th->first;
	for (size_t i = piece_at(st, th->n, iv->start_ns); i + 1 < th->n && st[i] < iv->end_ns;
	     i++) {
		int64_t s = st[i] > cur ? st[i] : cur;
		int64_t e = st[i + 1] < iv->end_ns ? st[i + 1] : iv->end_ns;
		const struct ha_tag *p;
		gs_status rc;

		if (tg[i] == HA_GAP || e <= s)
			continue;
		p = &ix->tags[tg[i]];
		q->out->outside_ns += s - cur;
		rc = p->wait ? forward(q, th, p, s, e) : credit(q, p, e - s, false);
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
