/* SPDX-License-Identifier: MIT */
/*
 * pftrace_check: checks a Perfetto trace written by `gpuscope export
 * --format perfetto`.
 *
 *   pftrace_check [--dump] [--chrome CHROME] [--large] PFTRACE [SOURCE...]
 *
 * PFTRACE (plain or gzip) must be a valid Perfetto protobuf trace
 * (tests/pftrace/pftrace_read.h says what is checked). Then:
 *   --dump           print what it decodes, one line each (processes,
 *                    tracks, slices with args, flows, counter changes), in
 *                    a stable order: the golden test's text;
 *   --chrome CHROME  the Chrome trace JSON export of the same traces with
 *                    the same options must say the same thing: the same
 *                    slices (process and track names, ts and dur to the ns,
 *                    category, name and args in order), the same flows
 *                    (slice to slice; Chrome's bound at their ts), the same
 *                    counter values where they change, and the same
 *                    process names, labels and track names;
 *   SOURCE...        the trace(s) exported (one rank): its ops are the op
 *                    slices (kernel, gpu_memcpy, gpu_memset): start and end
 *                    to the ns, device, stream and correlation, kernels by
 *                    name;
 *   --large          keep the names and args of op slices only (a trace of
 *                    millions of ops): the validity and SOURCE checks, no
 *                    --dump or --chrome.
 * Prints one line per problem (at most 20) and a summary; exits 0 when all
 * checks pass, 1 otherwise, 2 on usage errors.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <cJSON.h>

#include <gpuscope/import.h>

#include "pftrace_read.h"
#include "quote_numbers.h"

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
	int got = 0;

	if (!f)
		return NULL;
	buf = malloc(cap + 1);
	/* At most 1 GiB a call: gzread counts in int. */
	while (buf && (got = gzread(f, buf + n,
				    (unsigned)(cap - n < (1u << 30) ? cap - n : (1u << 30)))) > 0) {
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
	if (got < 0) {
		free(buf);
		buf = NULL;
	}
	gzclose(f);
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

/* ---- a list of text lines, compared as multisets --------------------------------- */

struct lines {
	char **s;
	size_t n, cap;
};

static void add_line(struct lines *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add_line(struct lines *l, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(s = malloc((size_t)n + 1)))
		exit(2);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->s = realloc(l->s, l->cap * sizeof(*l->s));
		if (!l->s)
			exit(2);
	}
	l->s[l->n++] = s;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void lines_free(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->s[i]);
	free(l->s);
	memset(l, 0, sizeof(*l));
}

/* Both lists the same multiset; the first differences reported. */
static void same_lines(const char *what, struct lines *a, struct lines *b)
{
	size_t i = 0, j = 0, shown = 0;

	if (!a->n && !b->n)
		return;
	if (!a->n || !b->n) {
		PROBLEM("%s: %zu in the Perfetto trace, %zu in the Chrome export", what, a->n,
			b->n);
		return;
	}

	qsort(a->s, a->n, sizeof(*a->s), cmp_str);
	qsort(b->s, b->n, sizeof(*b->s), cmp_str);
	if (a->n != b->n)
		PROBLEM("%s: %zu in the Perfetto trace, %zu in the Chrome export", what, a->n,
			b->n);
	while ((i < a->n || j < b->n) && shown < 6) {
		int c = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->s[i], b->s[j]);

		if (!c) {
			i++;
			j++;
			continue;
		}
		if (c < 0)
			PROBLEM("%s only in the Perfetto trace: %s", what, a->s[i++]);
		else
			PROBLEM("%s only in the Chrome export: %s", what, b->s[j++]);
		shown++;
	}
}

/* ---- the Perfetto side --------------------------------------------------------------- */

static const char *proc_name(const struct pf_trace *t, const struct pf_track *k)
{
	const struct pf_track *p = k->parent ? pf_track_find(t, k->parent) : NULL;

	return p ? p->name : "";
}

static void slice_key(const struct pf_trace *t, const struct pf_slice *s, char *buf, size_t size)
{
	const struct pf_track *k = pf_track_find(t, s->track);

	snprintf(buf, size, "%s/%s|%" PRId64 "|%s", proc_name(t, k), k->name, s->ts, s->name);
}

static void pf_lines(const struct pf_trace *t, struct lines *procs, struct lines *tracks,
		     struct lines *slices, struct lines *flows, struct lines *counters)
{
	char a[1024], b[1024];

	for (size_t i = 0; i < t->n_tracks; i++) {
		const struct pf_track *k = &t->tracks[i];

		if (k->is_process)
			add_line(procs, "%s [%s]", k->name, k->labels);
		else if (!k->is_counter)
			add_line(tracks, "%s/%s", proc_name(t, k), k->name);
	}
	for (size_t i = 0; i < t->n_slices; i++) {
		const struct pf_slice *s = &t->slices[i];
		const struct pf_track *k = pf_track_find(t, s->track);

		add_line(slices, "%s/%s|%" PRId64 "|%" PRId64 "|%s|%s|%s", proc_name(t, k), k->name,
			 s->ts, s->end - s->ts, s->cat, s->name, s->args);
	}
	for (size_t i = 0; i < t->n_flows; i++) {
		slice_key(t, &t->slices[t->flows[i].src], a, sizeof(a));
		slice_key(t, &t->slices[t->flows[i].dst], b, sizeof(b));
		add_line(flows, "%s -> %s", a, b);
	}
	/* Counter values where they change, per track. */
	for (size_t i = 0; i < t->n_tracks; i++) {
		const struct pf_track *k = &t->tracks[i];
		bool any = false;
		int64_t last = 0;

		if (!k->is_counter)
			continue;
		for (size_t c = 0; c < t->n_counters; c++) {
			const struct pf_counter *v = &t->counters[c];

			if (v->track != k->uuid || (any && v->value == last))
				continue;
			add_line(counters, "%s/%s|%" PRId64 "|%" PRId64, proc_name(t, k), k->name,
				 v->ts, v->value);
			any = true;
			last = v->value;
		}
	}
}

/* ---- the Chrome side ------------------------------------------------------------------- */

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
	}
	if (*s || !digits)
		return false;
	while (fd++ < 3)
		frac *= 10;
	*ns = (ip * 1000 + frac) * (neg ? -1 : 1);
	return true;
}

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Names by "pid" and "pid/tid". */
struct names {
	char **key, **val;
	size_t n, cap;
};

static void names_set(struct names *m, const char *key, const char *val)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 64;
		m->key = realloc(m->key, m->cap * sizeof(*m->key));
		m->val = realloc(m->val, m->cap * sizeof(*m->val));
		if (!m->key || !m->val)
			exit(2);
	}
	m->key[m->n] = strdup(key);
	m->val[m->n] = strdup(val);
	m->n++;
}

static const char *names_get(const struct names *m, const char *key)
{
	for (size_t i = m->n; i-- > 0;)
		if (!strcmp(m->key[i], key))
			return m->val[i];
	return NULL;
}

static void names_free(struct names *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->key[i]);
		free(m->val[i]);
	}
	free(m->key);
	free(m->val);
}

/* Chrome's args as "key=value; ..." (numbers as their text, arrays [a,b]). */
static void chrome_args(const cJSON *args, char *buf, size_t size)
{
	size_t n = 0;
	const cJSON *a;

	buf[0] = '\0';
	cJSON_ArrayForEach(a, args)
	{
		if (n >= size)
			break;
		n += (size_t)snprintf(buf + n, size - n, "%s%s=", n ? "; " : "", a->string);
		if (cJSON_IsString(a)) {
			n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s",
					      a->valuestring);
		} else if (cJSON_IsArray(a)) {
			const cJSON *v;
			bool first = true;

			cJSON_ArrayForEach(v, a)
			{
				if (n >= size)
					break;
				n += (size_t)snprintf(buf + n, size - n, "%s%s", first ? "[" : ",",
						      cJSON_IsString(v) ? v->valuestring : "?");
				first = false;
			}
			if (n < size)
				n += (size_t)snprintf(buf + n, size - n, "]");
		}
	}
}

struct cslice {
	char *track; /* "pid/tid" */
	int64_t start, end;
	char *key; /* as slice_key */
	size_t parent;
};

static int cmp_cslice(const void *pa, const void *pb)
{
	const struct cslice *a = pa, *b = pb;
	int c = strcmp(a->track, b->track);

	if (c)
		return c;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return (a->end < b->end) - (a->end > b->end);
}

/* The innermost slice of `track` holding point p (NULL: none). */
static const struct cslice *enclosing(const struct cslice *s, size_t n, const char *track,
				      int64_t p)
{
	size_t lo = 0, hi = n;

	/* the last slice of the track starting at or before p */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(s[mid].track, track);

		if (c < 0 || (c == 0 && s[mid].start <= p))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || strcmp(s[lo - 1].track, track) != 0)
		return NULL;
	for (size_t i = lo - 1; i != SIZE_MAX; i = s[i].parent)
		if (s[i].end >= p)
			return &s[i];
	return NULL;
}

struct fpoint {
	char *id;
	char ph;
	char track[64];
	int64_t ts;
};

static int chrome_lines(const char *path, struct lines *procs, struct lines *tracks,
			struct lines *slices, struct lines *flows, struct lines *counters)
{
	size_t len, qlen, n_cs = 0, n_fp = 0;
	char *text = read_all(path, &len), *q;
	cJSON *root, *events, *e;
	struct names pname = {0}, tname = {0}, plabel = {0};
	struct cslice *cs = NULL;
	struct fpoint *fp = NULL;
	char key[64], args[4096];

	if (!text) {
		PROBLEM("%s: cannot read", path);
		return -1;
	}
	q = quote_numbers(text, len, &qlen);
	free(text);
	root = q ? cJSON_ParseWithLength(q, qlen) : NULL;
	free(q);
	events = root ? cJSON_GetObjectItemCaseSensitive(root, "traceEvents") : NULL;
	if (!cJSON_IsArray(events)) {
		PROBLEM("%s: not a Chrome trace", path);
		cJSON_Delete(root);
		return -1;
	}
	cs = calloc((size_t)cJSON_GetArraySize(events) + 1, sizeof(*cs));
	fp = calloc((size_t)cJSON_GetArraySize(events) + 1, sizeof(*fp));
	if (!cs || !fp)
		exit(2);
	/* Names first (metadata comes first, but do not rely on it). */
	cJSON_ArrayForEach(e, events)
	{
		const char *ph = jstr(e, "ph"), *name = jstr(e, "name");
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(e, "args");

		if (!ph || strcmp(ph, "M") != 0 || !name)
			continue;
		if (!strcmp(name, "process_name")) {
			names_set(&pname, jstr(e, "pid"), jstr(a, "name") ? jstr(a, "name") : "");
		} else if (!strcmp(name, "process_labels")) {
			names_set(&plabel, jstr(e, "pid"),
				  jstr(a, "labels") ? jstr(a, "labels") : "");
		} else if (!strcmp(name, "thread_name")) {
			snprintf(key, sizeof(key), "%s/%s", jstr(e, "pid"), jstr(e, "tid"));
			names_set(&tname, key, jstr(a, "name") ? jstr(a, "name") : "");
			add_line(tracks, "%s/%s",
				 names_get(&pname, jstr(e, "pid")) ?
					 names_get(&pname, jstr(e, "pid")) :
					 "",
				 jstr(a, "name") ? jstr(a, "name") : "");
		} else if (!strcmp(name, "process_sort_index")) {
			const char *pid = jstr(e, "pid");

			add_line(procs, "%s [%s]",
				 names_get(&pname, pid) ? names_get(&pname, pid) : "",
				 names_get(&plabel, pid) ? names_get(&plabel, pid) : "");
		}
	}
	cJSON_ArrayForEach(e, events)
	{
		const char *ph = jstr(e, "ph"), *pid = jstr(e, "pid"), *tid = jstr(e, "tid");
		const char *pn = pid && names_get(&pname, pid) ? names_get(&pname, pid) : "";
		const char *ts = jstr(e, "ts"), *dur = jstr(e, "dur");
		int64_t t0 = 0, d = 0;

		if (!ph || !strcmp(ph, "M"))
			continue;
		snprintf(key, sizeof(key), "%s/%s", pid ? pid : "?", tid ? tid : "?");
		if (!ts || !us_to_ns(ts, &t0)) {
			PROBLEM("%s: an event without a ts in ns", path);
			continue;
		}
		if (!strcmp(ph, "X")) {
			const char *tn = names_get(&tname, key) ? names_get(&tname, key) : "";
			char sk[1024];

			if (!dur || !us_to_ns(dur, &d))
				PROBLEM("%s: a slice without a dur in ns", path);
			chrome_args(cJSON_GetObjectItemCaseSensitive(e, "args"), args,
				    sizeof(args));
			add_line(slices, "%s/%s|%" PRId64 "|%" PRId64 "|%s|%s|%s", pn, tn, t0, d,
				 jstr(e, "cat") ? jstr(e, "cat") : "",
				 jstr(e, "name") ? jstr(e, "name") : "", args);
			snprintf(sk, sizeof(sk), "%s/%s|%" PRId64 "|%s", pn, tn, t0,
				 jstr(e, "name") ? jstr(e, "name") : "");
			cs[n_cs] = (struct cslice){strdup(key), t0, t0 + d, strdup(sk), SIZE_MAX};
			n_cs++;
		} else if (!strcmp(ph, "C")) {
			const cJSON *a;

			cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(e, "args"))
			{
				add_line(counters, "%s/%s %s|%" PRId64 "|%s", pn, jstr(e, "name"),
					 a->string, t0, cJSON_IsString(a) ? a->valuestring : "?");
			}
		} else if (!strcmp(ph, "s") || !strcmp(ph, "f")) {
			fp[n_fp].id = strdup(jstr(e, "id") ? jstr(e, "id") : "");
			fp[n_fp].ph = ph[0];
			snprintf(fp[n_fp].track, sizeof(fp[n_fp].track), "%s", key);
			fp[n_fp].ts = t0;
			n_fp++;
		}
	}
	/* Flows: each end bound to the innermost slice of its track. */
	qsort(cs, n_cs, sizeof(*cs), cmp_cslice);
	{
		size_t *stack = malloc((n_cs + 1) * sizeof(*stack)), depth = 0;

		for (size_t i = 0; i < n_cs; i++) {
			if (i && strcmp(cs[i].track, cs[i - 1].track) != 0)
				depth = 0;
			while (depth && cs[stack[depth - 1]].end <= cs[i].start &&
			       !(cs[stack[depth - 1]].end == cs[i].start &&
				 cs[stack[depth - 1]].start == cs[i].start))
				depth--;
			cs[i].parent = depth ? stack[depth - 1] : SIZE_MAX;
			stack[depth++] = i;
		}
		free(stack);
	}
	for (size_t i = 0; i < n_fp; i++) {
		const struct fpoint *a = &fp[i];

		if (a->ph != 's')
			continue;
		for (size_t j = 0; j < n_fp; j++) {
			const struct fpoint *b = &fp[j];
			const struct cslice *x, *y;

			if (b->ph != 'f' || strcmp(a->id, b->id) != 0)
				continue;
			x = enclosing(cs, n_cs, a->track, a->ts);
			y = enclosing(cs, n_cs, b->track, b->ts);
			if (!x || !y)
				PROBLEM("chrome flow %s: an end outside every slice", a->id);
			else
				add_line(flows, "%s -> %s", x->key, y->key);
			break;
		}
	}
	for (size_t i = 0; i < n_cs; i++) {
		free(cs[i].track);
		free(cs[i].key);
	}
	for (size_t i = 0; i < n_fp; i++)
		free(fp[i].id);
	free(cs);
	free(fp);
	names_free(&pname);
	names_free(&tname);
	names_free(&plabel);
	cJSON_Delete(root);
	return 0;
}

/* Chrome's counter samples ("proc/breakdown key|ts|value", every series at
 * every sample) reduced to the values where each series changes. */
static void counter_changes(struct lines *in, struct lines *out)
{
	/* Samples are in file order per series: keep that order (stable). */
	char **seen_key = NULL, **seen_val = NULL;
	size_t n_seen = 0;

	for (size_t i = 0; i < in->n; i++) {
		char *s = in->s[i], *bar = strchr(s, '|'),
		     *bar2 = bar ? strchr(bar + 1, '|') : NULL;
		size_t k;

		if (!bar2)
			continue;
		*bar = '\0';
		for (k = 0; k < n_seen && strcmp(seen_key[k], s) != 0; k++)
			;
		if (k == n_seen) {
			seen_key = realloc(seen_key, (n_seen + 1) * sizeof(*seen_key));
			seen_val = realloc(seen_val, (n_seen + 1) * sizeof(*seen_val));
			if (!seen_key || !seen_val)
				exit(2);
			seen_key[n_seen] = strdup(s);
			seen_val[n_seen] = NULL;
			n_seen++;
		}
		if (!seen_val[k] || strcmp(seen_val[k], bar2 + 1) != 0) {
			add_line(out, "%s|%.*s|%s", s, (int)(bar2 - bar - 1), bar + 1, bar2 + 1);
			free(seen_val[k]);
			seen_val[k] = strdup(bar2 + 1);
		}
		*bar = '|';
	}
	for (size_t k = 0; k < n_seen; k++) {
		free(seen_key[k]);
		free(seen_val[k]);
	}
	free(seen_key);
	free(seen_val);
}

/* ---- the model ---------------------------------------------------------------------- */

/* The value of `key` in "k=v; k=v" args (copied into buf). */
static const char *arg_of(const char *args, const char *key, char *buf, size_t size)
{
	size_t kl = strlen(key);

	for (const char *p = args; p && *p;) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			const char *e = strstr(p, "; ");
			size_t n = e ? (size_t)(e - p - kl - 1) : strlen(p + kl + 1);

			snprintf(buf, size, "%.*s", (int)n, p + kl + 1);
			return buf;
		}
		p = strstr(p, "; ");
		if (p)
			p += 2;
	}
	return "";
}

static void model_check(const struct pf_trace *t, const char *const *src, size_t n_src)
{
	struct gs_trace *tr = NULL;
	struct lines a = {0}, b = {0};
	char d[32], s[32], c[32];
	size_t n_ops, n_st;
	const struct gs_op *ops;
	const struct gs_stream *st;

	if (gs_trace_create(&tr) != GS_OK ||
	    gs_trace_load_all(src, n_src, NULL, tr, NULL, NULL) != GS_OK ||
	    gs_trace_finish(tr) != GS_OK) {
		PROBLEM("cannot load the source");
		gs_trace_destroy(tr);
		return;
	}
	ops = gs_trace_ops(tr, &n_ops);
	st = gs_trace_streams(tr, &n_st);
	for (size_t i = 0; i < n_ops; i++) {
		const struct gs_op *o = &ops[i];

		add_line(&b, "%" PRId64 "|%" PRId64 "|%u|%" PRIu64 "|%" PRIu64 "|%s", o->start_ns,
			 o->end_ns - o->start_ns, st[o->stream].device, st[o->stream].stream_id,
			 o->correlation,
			 o->kind == GS_OP_KERNEL ? gs_trace_string(tr, o->name) : "-");
	}
	for (size_t i = 0; i < t->n_slices; i++) {
		const struct pf_slice *x = &t->slices[i];
		bool kernel;

		if (!x->cat)
			continue;
		kernel = !strcmp(x->cat, "kernel");

		if (!kernel && strcmp(x->cat, "gpu_memcpy") != 0 &&
		    strcmp(x->cat, "gpu_memset") != 0)
			continue;
		add_line(&a, "%" PRId64 "|%" PRId64 "|%s|%s|%s|%s", x->ts, x->end - x->ts,
			 arg_of(x->args, "device", d, sizeof(d)),
			 arg_of(x->args, "stream", s, sizeof(s)),
			 arg_of(x->args, "correlation", c, sizeof(c)), kernel ? x->name : "-");
	}
	same_lines("op (source model)", &a, &b);
	printf("ops: %zu in the source, %zu op slices\n", b.n, a.n);
	lines_free(&a);
	lines_free(&b);
	gs_trace_destroy(tr);
}

int main(int argc, char **argv)
{
	const char *chrome = NULL, *path;
	bool dump = false, large = false;
	int i = 1;
	size_t len;
	uint8_t *buf;
	struct pf_trace t;
	char err[512];
	struct lines p[5] = {{0}}, c[5] = {{0}}, cc = {0};
	static const char *const what[5] = {"process", "track", "slice", "flow", "counter change"};

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--dump"))
			dump = true;
		else if (!strcmp(argv[i], "--chrome") && i + 1 < argc)
			chrome = argv[++i];
		else if (!strcmp(argv[i], "--large"))
			large = true;
		else
			break;
	}
	if (i >= argc || (large && (dump || chrome))) {
		fprintf(stderr, "usage: pftrace_check [--dump] [--chrome CHROME] [--large] PFTRACE "
				"[SOURCE...]\n");
		return 2;
	}
	path = argv[i++];
	buf = (uint8_t *)read_all(path, &len);
	if (!buf) {
		printf("FAIL: %s: cannot read\n", path);
		return 1;
	}
	if (pf_read(buf, len, large ? PF_KEEP_OPS : PF_KEEP_ALL, &t, err, sizeof(err))) {
		printf("FAIL: %s: invalid: %s\n", path, err);
		free(buf);
		pf_trace_free(&t);
		return 1;
	}
	free(buf);
	if (!large)
		pf_lines(&t, &p[0], &p[1], &p[2], &p[3], &p[4]);
	if (dump) {
		for (int k = 0; k < 5; k++) {
			qsort(p[k].s, p[k].n, sizeof(*p[k].s), cmp_str);
			for (size_t j = 0; j < p[k].n; j++)
				printf("%s %s\n", what[k], p[k].s[j]);
		}
	}
	if (chrome && chrome_lines(chrome, &c[0], &c[1], &c[2], &c[3], &cc) == 0) {
		counter_changes(&cc, &c[4]);
		for (int k = 0; k < 5; k++)
			same_lines(what[k], &p[k], &c[k]);
	}
	if (i < argc)
		model_check(&t, (const char *const *)argv + i, (size_t)(argc - i));
	printf("%zu packets (in %zu of compressed packets), %zu sequences, %zu tracks, %zu slices, "
	       "%zu flows, %zu counter values\n",
	       t.n_packets, t.n_compressed, t.n_sequences, t.n_tracks, t.n_slices, t.n_flows,
	       t.n_counters);
	for (int k = 0; k < 5; k++) {
		lines_free(&p[k]);
		lines_free(&c[k]);
	}
	lines_free(&cc);
	pf_trace_free(&t);
	if (problems)
		printf("%d problem(s)\n", problems);
	return problems ? 1 : 0;
}
