/* SPDX-License-Identifier: MIT */
/*
 * export_check: checks a Chrome trace JSON written by `gpuscope export`.
 *
 *   export_check [--loose] EXPORT [SOURCE...]
 *
 * EXPORT (plain or gzip) must be valid JSON (cJSON), an object whose
 * "traceEvents" is an array of objects with a "ph", and:
 *   - every flow pairs up: each id has exactly one "s" and one "f", with
 *     the same cat and name, the "f" binding to its enclosing slice
 *     ("bp": "e"), and each end inside a complete event of its own track;
 *   - no track mis-nests: on a track holding GPU work (kernel, gpu_memcpy,
 *     gpu_memset, cuda_sync, overhead, ideal) no two complete events
 *     overlap; on any other track every two events are disjoint or one
 *     holds the other;
 *   - every track with complete events is named (thread_name), once, and
 *     every device process too (process_name);
 *   - ts and dur have at most three decimals (exact ns), dur >= 0;
 *   - the export of a job (process_name args with a "rank"): every process
 *     name is unique, and no flow has its ends in two ranks. It prints how
 *     many GPU processes (pids with kernels, copies or memsets) and ranks
 *     there are.
 * With SOURCEs, the export and the sources (together: the ranks of a job)
 * are loaded with gpuscope's importers and their ops must be the same (as
 * multisets, every field the Kineto format carries; --loose skips the
 * names of copies and memsets and the async and graph flags, which a
 * Kineto reader derives from other fields).
 *
 * Times are compared exactly: the file is parsed a second time with every
 * number turned into a string, and the decimal text is read as integer ns.
 * Prints one line per problem (at most 20) and a summary; exits 0 when all
 * checks pass, 1 otherwise, 2 on usage errors.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cJSON.h>

#include "quote_numbers.h"

#include <gpuscope/import.h>
#include <gpuscope/names.h>

static int problems;

#define PROBLEM(...)                                                                               \
	do {                                                                                       \
		if (problems++ < 20) {                                                             \
			printf("FAIL: ");                                                          \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
		}                                                                                  \
	} while (0)

static char *read_all(const char *path, size_t *len)
{
	gzFile f = gzopen(path, "rb");
	size_t cap = 1 << 20, n = 0;
	char *buf;
	int got;

	if (!f)
		return NULL;
	buf = malloc(cap + 1);
	while (buf && (got = gzread(f, buf + n, (unsigned)(cap - n))) > 0) {
		n += (size_t)got;
		if (n == cap) {
			char *nb = realloc(buf, cap * 2 + 1);

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	gzclose(f);
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

/* µs text with at most three decimals to ns. */
static bool us_to_ns(const char *s, int64_t *ns)
{
	bool neg = *s == '-';
	int64_t ip = 0, frac = 0;
	int digits = 0, fd = 0;

	if (neg)
		s++;
	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		if (ip > INT64_MAX / 10 / 1000)
			return false;
		ip = ip * 10 + (*s - '0');
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, fd++) {
			if (fd == 3)
				return false;
			frac = frac * 10 + (*s - '0');
		}
		if (!fd)
			return false;
	}
	if (*s || !digits)
		return false;
	while (fd++ < 3)
		frac *= 10;
	*ns = (ip * 1000 + frac) * (neg ? -1 : 1);
	return true;
}

static const char *str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

struct slice {
	char *track; /* "pid/tid" */
	int64_t start, end;
	size_t parent; /* the innermost slice around it, SIZE_MAX at the top */
	bool gpu;      /* must not overlap others on its track */
	bool device;   /* in a device process */
};

struct flow {
	char *id;
	char ph;
	char *track;
	char *pid;
	int64_t ts;
	const char *cat, *name;
	bool bp_e;
};

static int cmp_slice(const void *pa, const void *pb)
{
	const struct slice *a = pa, *b = pb;
	int c = strcmp(a->track, b->track);

	if (c)
		return c;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	return 0;
}

static int cmp_flow(const void *pa, const void *pb)
{
	const struct flow *a = pa, *b = pb;
	int c = strcmp(a->id, b->id);

	return c ? c : a->ph - b->ph;
}

static char *track_of(const char *pid, const char *tid)
{
	size_t n = strlen(pid) + strlen(tid) + 2;
	char *t = malloc(n);

	if (t)
		snprintf(t, n, "%s/%s", pid, tid);
	return t;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool have(char **sorted, size_t n, const char *key)
{
	return bsearch(&key, sorted, n, sizeof(char *), cmp_str) != NULL;
}

/* Whether a slice of `track` holds ts (slices sorted, parents set). */
static bool inside(const struct slice *s, size_t n, const char *track, int64_t ts)
{
	size_t lo = 0, hi = n, end, i;

	while (lo < hi) { /* first slice of the track */
		size_t m = lo + (hi - lo) / 2;

		if (strcmp(s[m].track, track) < 0)
			lo = m + 1;
		else
			hi = m;
	}
	end = lo;
	hi = n;
	while (end < hi) { /* past its last slice */
		size_t m = end + (hi - end) / 2;

		if (strcmp(s[m].track, track) <= 0)
			end = m + 1;
		else
			hi = m;
	}
	hi = end;
	while (lo < hi) { /* past the last slice starting at or before ts */
		size_t m = lo + (hi - lo) / 2;

		if (s[m].start <= ts)
			lo = m + 1;
		else
			hi = m;
	}
	if (!lo || strcmp(s[lo - 1].track, track))
		return false;
	for (i = lo - 1; i != SIZE_MAX; i = s[i].parent)
		if (ts < s[i].end || (ts == s[i].start && ts == s[i].end))
			return true;
	return false;
}

/* Events of a device process (GPU work, syncs, the ideal schedule). */
static bool is_device_cat(const char *cat)
{
	static const char *const cats[] = {"kernel", "gpu_memcpy", "gpu_memset", "cuda_sync",
					   "ideal"};

	for (size_t i = 0; i < sizeof(cats) / sizeof(cats[0]); i++)
		if (!strcmp(cat, cats[i]))
			return true;
	return false;
}

/* Events that must not overlap on their track. */
static bool is_disjoint_cat(const char *cat)
{
	return !strcmp(cat, "overhead") || is_device_cat(cat);
}

/* A process of the export: its pid (text), rank (-1: none) and name. */
struct proc {
	char *pid;
	long long rank;
	char *name;
	bool gpu; /* holds kernels, copies or memsets */
};

static int cmp_proc(const void *pa, const void *pb)
{
	return strcmp(((const struct proc *)pa)->pid, ((const struct proc *)pb)->pid);
}

static int cmp_pid_proc(const void *key, const void *pb)
{
	return strcmp(key, ((const struct proc *)pb)->pid);
}

static const struct proc *proc_of(const struct proc *p, size_t n, const char *pid)
{
	return bsearch(pid, p, n, sizeof(*p), cmp_pid_proc);
}

/* Process names unique, flows within a rank, and the counts. */
static void check_ranks(struct proc *pr, size_t np, const struct flow *fl, size_t nf)
{
	size_t ranks = 0, gpus = 0, across = 0, i, j;
	long long *seen = calloc(np + 1, sizeof(*seen));
	bool job = false;

	for (i = 0; i < np; i++)
		job |= pr[i].rank >= 0;
	for (i = 0; i < np; i++) {
		gpus += pr[i].gpu;
		if (pr[i].rank < 0)
			continue;
		for (j = 0; j < ranks && seen[j] != pr[i].rank; j++)
			;
		if (j == ranks && seen)
			seen[ranks++] = pr[i].rank;
		for (j = i + 1; job && pr[i].name && j < np; j++)
			if (pr[j].name && !strcmp(pr[i].name, pr[j].name))
				PROBLEM("processes %s and %s are both named '%s'", pr[i].pid,
					pr[j].pid, pr[i].name);
	}
	free(seen);
	for (i = 0; i + 1 < nf; i++) {
		const struct proc *a, *b;

		if (strcmp(fl[i].id, fl[i + 1].id))
			continue;
		a = proc_of(pr, np, fl[i].pid);
		b = proc_of(pr, np, fl[i + 1].pid);
		if (job && (!a || !b || a->rank < 0 || b->rank < 0 || a->rank != b->rank)) {
			if (across++ < 5)
				PROBLEM("flow id %s joins process %s (rank %lld) and %s (rank %lld)",
					fl[i].id, fl[i].pid, a ? a->rank : -1, fl[i + 1].pid,
					b ? b->rank : -1);
		}
	}
	printf("%zu GPU processes, %zu ranks, %zu flows across ranks\n", gpus, ranks, across);
}

static void check_events(const cJSON *events)
{
	size_t n = (size_t)cJSON_GetArraySize(events), ns = 0, nf = 0, nt = 0, np = 0, i;
	struct slice *sl = calloc(n + 1, sizeof(*sl));
	struct flow *fl = calloc(n + 1, sizeof(*fl));
	char **named = calloc(n + 1, sizeof(char *)), **pnamed = calloc(n + 1, sizeof(char *));
	struct proc *pr = calloc(n + 1, sizeof(*pr));
	size_t counters = 0, npr = 0;
	const cJSON *e;

	if (!sl || !fl || !named || !pnamed || !pr) {
		PROBLEM("out of memory");
		return;
	}
	cJSON_ArrayForEach(e, events)
	{
		const char *ph = str_of(e, "ph"), *pid = str_of(e, "pid"), *tid = str_of(e, "tid");
		const char *name = str_of(e, "name"), *cat = str_of(e, "cat");
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");

		if (!cJSON_IsObject(e) || !ph) {
			PROBLEM("an event without a phase");
			continue;
		}
		if (!strcmp(ph, "M")) {
			if (!pid || !name) {
				PROBLEM("metadata without pid or name");
				continue;
			}
			if (!strcmp(name, "thread_name") && tid) {
				named[nt++] = track_of(pid, tid);
			} else if (!strcmp(name, "process_name")) {
				const char *rank = str_of(args, "rank"), *pn = str_of(args, "name");

				pnamed[np++] = strdup(pid);
				pr[npr].pid = strdup(pid);
				pr[npr].rank = rank ? atoll(rank) : -1;
				pr[npr].name = pn ? strdup(pn) : NULL;
				npr++;
			}
			continue;
		}
		if (!strcmp(ph, "C")) {
			int64_t ts;

			counters++;
			if (!pid || !name || !str_of(e, "ts") || !us_to_ns(str_of(e, "ts"), &ts) ||
			    !cJSON_IsObject(args))
				PROBLEM("a counter event without pid, name, exact ts or args");
			continue;
		}
		if (!pid || !tid) {
			PROBLEM("a '%s' event without pid or tid", ph);
			continue;
		}
		if (!strcmp(ph, "X")) {
			int64_t ts, dur;

			if (!str_of(e, "ts") || !str_of(e, "dur") ||
			    !us_to_ns(str_of(e, "ts"), &ts) || !us_to_ns(str_of(e, "dur"), &dur) ||
			    dur < 0 || !cat || !name) {
				PROBLEM("complete event '%s' on %s/%s: no cat or name, or ts/dur "
					"not exact µs",
					name ? name : "?", pid, tid);
				continue;
			}
			sl[ns].track = track_of(pid, tid);
			sl[ns].start = ts;
			sl[ns].end = ts + dur;
			sl[ns].gpu = is_disjoint_cat(cat);
			sl[ns].device = is_device_cat(cat);
			ns++;
			if (!strcmp(cat, "kernel") || !strcmp(cat, "gpu_memcpy") ||
			    !strcmp(cat, "gpu_memset")) {
				/* Noted now, joined to the processes below. */
				pr[npr].pid = strdup(pid);
				pr[npr].rank = -2; /* not a process_name */
				pr[npr].gpu = true;
				npr++;
			}
		} else if (!strcmp(ph, "s") || !strcmp(ph, "f")) {
			const char *bp = str_of(e, "bp");
			int64_t ts;

			if (!str_of(e, "id") || !str_of(e, "ts") ||
			    !us_to_ns(str_of(e, "ts"), &ts) || !cat || !name) {
				PROBLEM("flow event without id, exact ts, cat or name");
				continue;
			}
			fl[nf].id = strdup(str_of(e, "id"));
			fl[nf].ph = ph[0];
			fl[nf].track = track_of(pid, tid);
			fl[nf].pid = strdup(pid);
			fl[nf].ts = ts;
			fl[nf].cat = cat;
			fl[nf].name = name;
			fl[nf].bp_e = bp && !strcmp(bp, "e");
			nf++;
		} else {
			PROBLEM("unexpected phase '%s'", ph);
		}
	}

	/* Lanes. */
	qsort(sl, ns, sizeof(*sl), cmp_slice);
	{
		size_t first = 0, bad_tracks = 0;
		size_t *stack = malloc((ns + 1) * sizeof(*stack));

		for (first = 0; stack && first < ns;) {
			size_t last = first, depth = 0;
			bool gpu = false, bad = false;

			while (last < ns && !strcmp(sl[last].track, sl[first].track))
				gpu |= sl[last++].gpu;
			for (i = first; i < last; i++) {
				sl[i].parent = SIZE_MAX;
				if (gpu) {
					/* A zero-length event holds [start, start + 1 ns). */
					int64_t prev = i > first ? sl[i - 1].end : INT64_MIN;

					if (i > first && sl[i - 1].end == sl[i - 1].start)
						prev++;
					if (sl[i].start < prev)
						bad = true;
					continue;
				}
				while (depth && sl[stack[depth - 1]].end <= sl[i].start)
					depth--;
				if (depth && sl[i].end > sl[stack[depth - 1]].end)
					bad = true;
				if (depth)
					sl[i].parent = stack[depth - 1];
				stack[depth++] = i;
			}
			if (bad && bad_tracks++ < 5)
				PROBLEM("track %s: complete events %s", sl[first].track,
					gpu ? "overlap" : "do not nest");
			first = last;
		}
		free(stack);
		printf("%zu complete events, %zu tracks checked, %zu tracks mis-nest\n", ns, nt,
		       bad_tracks);
	}

	/* Names. */
	qsort(named, nt, sizeof(char *), cmp_str);
	qsort(pnamed, np, sizeof(char *), cmp_str);
	for (i = 1; i < nt; i++)
		if (!strcmp(named[i], named[i - 1]))
			PROBLEM("track %s is named twice (two tracks share a tid)", named[i]);
	for (i = 0; i < ns; i++) {
		if (i && !strcmp(sl[i].track, sl[i - 1].track))
			continue;
		if (!have(named, nt, sl[i].track))
			PROBLEM("track %s has no thread_name", sl[i].track);
		{
			char pid[64];
			const char *slash = strchr(sl[i].track, '/');
			size_t len = (size_t)(slash - sl[i].track);

			snprintf(pid, sizeof(pid), "%.*s", (int)len, sl[i].track);
			/* Host processes are named only when the trace named them. */
			if (sl[i].device && !have(pnamed, np, pid))
				PROBLEM("process %s has no process_name", pid);
		}
	}

	/* Flows. */
	qsort(fl, nf, sizeof(*fl), cmp_flow);
	{
		size_t pairs = 0, unbound = 0;

		for (i = 0; i < nf;) {
			size_t j = i;

			while (j < nf && !strcmp(fl[j].id, fl[i].id))
				j++;
			if (j - i != 2 || fl[i].ph != 'f' || fl[i + 1].ph != 's') {
				PROBLEM("flow id %s: %zu events, not one 's' and one 'f'", fl[i].id,
					j - i);
			} else {
				const struct flow *f = &fl[i], *s = &fl[i + 1];

				pairs++;
				if (strcmp(f->cat, s->cat) || strcmp(f->name, s->name))
					PROBLEM("flow id %s: cat or name differ", f->id);
				if (!f->bp_e)
					PROBLEM("flow id %s: the 'f' has no \"bp\": \"e\"", f->id);
				if (!inside(sl, ns, s->track, s->ts) ||
				    !inside(sl, ns, f->track, f->ts)) {
					if (unbound++ < 5)
						PROBLEM("flow id %s: an end is in no slice of its "
							"track",
							f->id);
				}
			}
			i = j;
		}
		printf("%zu flows paired, %zu ends outside a slice, %zu counter events\n", pairs,
		       unbound, counters);
	}

	/* Processes: one entry per pid, from its process_name, with whether
	 * it holds GPU work. */
	qsort(pr, npr, sizeof(*pr), cmp_proc);
	{
		size_t k = 0;

		for (i = 0; i < npr;) {
			struct proc p = {.pid = pr[i].pid, .rank = -1};
			size_t j;

			for (j = i; j < npr && !strcmp(pr[j].pid, p.pid); j++) {
				p.gpu |= pr[j].gpu;
				if (pr[j].rank != -2) {
					p.rank = pr[j].rank;
					if (!p.name)
						p.name = pr[j].name;
					else
						free(pr[j].name);
				}
				if (j > i)
					free(pr[j].pid);
			}
			pr[k++] = p;
			i = j;
		}
		npr = k;
	}
	check_ranks(pr, npr, fl, nf);
	for (i = 0; i < npr; i++) {
		free(pr[i].pid);
		free(pr[i].name);
	}
	free(pr);
	for (i = 0; i < ns; i++)
		free(sl[i].track);
	for (i = 0; i < nf; i++) {
		free(fl[i].id);
		free(fl[i].track);
		free(fl[i].pid);
	}
	for (i = 0; i < nt; i++)
		free(named[i]);
	for (i = 0; i < np; i++)
		free(pnamed[i]);
	free(sl);
	free(fl);
	free(named);
	free(pnamed);
}

/* ---- the same ops ------------------------------------------------------------ */

struct opkey {
	const struct gs_trace *t;
	const struct gs_op *op;
	uint32_t device, context;
	uint64_t stream;
};

/* An op's launch configuration, all zero when it has none. */
static const struct gs_launch_cfg *lcfg(const struct gs_trace *t, const struct gs_op *o)
{
	static const struct gs_launch_cfg none;
	const struct gs_launch_cfg *lc = gs_trace_op_launch_cfg(t, o);

	return lc ? lc : &none;
}

static bool loose;

static int cmp_opkey(const void *pa, const void *pb)
{
	const struct opkey *a = pa, *b = pb;
	const struct gs_op *x = a->op, *y = b->op;
	uint8_t fx = x->flags, fy = y->flags;
	int c;

#define CMPF(u, v)                                                                                 \
	do {                                                                                       \
		if ((u) != (v))                                                                    \
			return (u) < (v) ? -1 : 1;                                                 \
	} while (0)
	CMPF(a->device, b->device);
	CMPF(a->context, b->context);
	CMPF(a->stream, b->stream);
	CMPF(x->start_ns, y->start_ns);
	CMPF(x->end_ns, y->end_ns);
	CMPF(x->kind, y->kind);
	CMPF(x->correlation, y->correlation);
	CMPF(x->bytes, y->bytes);
	for (int k = 0; k < 3; k++) {
		CMPF(lcfg(a->t, x)->grid[k], lcfg(b->t, y)->grid[k]);
		CMPF(lcfg(a->t, x)->block[k], lcfg(b->t, y)->block[k]);
	}
	CMPF(lcfg(a->t, x)->shared_mem, lcfg(b->t, y)->shared_mem);
	CMPF(lcfg(a->t, x)->registers, lcfg(b->t, y)->registers);
	CMPF(lcfg(a->t, x)->graph_id, lcfg(b->t, y)->graph_id);
	CMPF(x->graph_node, y->graph_node);
	CMPF(x->copy_kind, y->copy_kind);
	CMPF(x->src_mem, y->src_mem);
	CMPF(x->dst_mem, y->dst_mem);
	if (loose) {
		fx &= (uint8_t) ~(GS_OPF_ASYNC | GS_OPF_GRAPH);
		fy &= (uint8_t) ~(GS_OPF_ASYNC | GS_OPF_GRAPH);
	}
	CMPF(fx, fy);
	if (loose && x->kind != GS_OP_KERNEL)
		return 0;
	c = strcmp(gs_trace_string(a->t, x->name), gs_trace_string(b->t, y->name));
	return c;
#undef CMPF
}

static struct opkey *keys_of(const struct gs_trace *t, size_t *n)
{
	size_t n_streams;
	const struct gs_op *ops = gs_trace_ops(t, n);
	const struct gs_stream *st = gs_trace_streams(t, &n_streams);
	struct opkey *k = calloc(*n + 1, sizeof(*k));

	for (size_t i = 0; k && i < *n; i++) {
		k[i].t = t;
		k[i].op = &ops[i];
		if (ops[i].stream < n_streams) {
			k[i].device = st[ops[i].stream].device;
			k[i].context = st[ops[i].stream].context;
			k[i].stream = st[ops[i].stream].stream_id;
		}
	}
	if (k)
		qsort(k, *n, sizeof(*k), cmp_opkey);
	return k;
}

static void describe(const struct opkey *k, char *buf, size_t size)
{
	snprintf(buf, size,
		 "dev %u stream %" PRIu64 " %s '%s' [%" PRId64 ", %" PRId64 ") corr %" PRIu64,
		 k->device, k->stream, gs_op_kind_name(k->op->kind),
		 gs_trace_string(k->t, k->op->name), k->op->start_ns, k->op->end_ns,
		 k->op->correlation);
}

/* The sources together, ops as each one's. */
static gs_status load_sources(const char *const *sources, size_t n, struct gs_trace **out)
{
	gs_status st = gs_trace_create(out);

	if (!st)
		st = gs_trace_load_all(sources, n, NULL, *out, NULL, NULL);
	if (!st)
		st = gs_trace_finish(*out);
	if (st) {
		gs_trace_destroy(*out);
		*out = NULL;
	}
	return st;
}

static void check_same_ops(const char *export_path, const char *const *sources, size_t n_sources)
{
	struct gs_trace *a = NULL, *b = NULL;
	size_t na, nb, i, diffs = 0;
	struct opkey *ka, *kb;
	char msg[256];

	gs_error_clear();
	if (load_sources(sources, n_sources, &a) != GS_OK ||
	    gs_trace_load(export_path, NULL, &b, NULL) != GS_OK) {
		PROBLEM("cannot load %s: %s", a ? export_path : sources[0],
			gs_error_format(msg, sizeof(msg)));
		gs_trace_destroy(a);
		return;
	}
	ka = keys_of(a, &na);
	kb = keys_of(b, &nb);
	if (na != nb)
		PROBLEM("%zu ops in the source, %zu read back", na, nb);
	for (i = 0; ka && kb && i < na && i < nb; i++) {
		if (cmp_opkey(&ka[i], &kb[i]) == 0)
			continue;
		if (diffs++ < 3) {
			char x[200], y[200];

			describe(&ka[i], x, sizeof(x));
			describe(&kb[i], y, sizeof(y));
			PROBLEM("op %zu differs: source %s; read back %s", i, x, y);
		}
	}
	printf("%zu ops in the source, %zu read back, %zu differ\n", na, nb, diffs);
	free(ka);
	free(kb);
	gs_trace_destroy(a);
	gs_trace_destroy(b);
}

int main(int argc, char **argv)
{
	const char *path;
	const char *const *sources;
	size_t len, qlen, n_sources;
	char *text, *q;
	cJSON *doc;
	int a = 1;

	if (a < argc && !strcmp(argv[a], "--loose")) {
		loose = true;
		a++;
	}
	if (argc - a < 1) {
		fprintf(stderr, "usage: export_check [--loose] EXPORT [SOURCE...]\n");
		return 2;
	}
	path = argv[a];
	sources = (const char *const *)argv + a + 1;
	n_sources = (size_t)(argc - a - 1);
	text = read_all(path, &len);
	if (!text) {
		printf("FAIL: cannot read %s\n", path);
		return 1;
	}
	doc = cJSON_ParseWithLength(text, len);
	if (!doc || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "traceEvents"))) {
		printf("FAIL: %s is not valid JSON with a traceEvents array\n", path);
		free(text);
		cJSON_Delete(doc);
		return 1;
	}
	cJSON_Delete(doc);
	q = quote_numbers(text, len, &qlen);
	free(text);
	doc = q ? cJSON_ParseWithLength(q, qlen) : NULL;
	free(q);
	if (!doc) {
		printf("FAIL: %s: cannot re-read with numbers as text\n", path);
		return 1;
	}
	check_events(cJSON_GetObjectItemCaseSensitive(doc, "traceEvents"));
	cJSON_Delete(doc);
	if (n_sources)
		check_same_ops(path, sources, n_sources);
	if (problems)
		printf("%s: %d problems\n", path, problems);
	else
		printf("%s: ok\n", path);
	return problems ? 1 : 0;
}
