/* SPDX-License-Identifier: MIT */
/*
 * Steps (gpuscope/steps.h): the marker ranges (else the repeated top-level
 * annotation, steps_repeat.c), deduplicated (the profiler may write a
 * step's range twice: once as an annotation, once as an operator), their
 * GPU windows, the partial last step and the selection.
 */
#include "analyzer_priv.h"
#include "steps_priv.h"

#include <gpuscope/search.h>
#include <gpuscope/sort.h>
#include <gpuscope/steps.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>
#include <gpuscope/window.h>

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROFILER_STEP "ProfilerStep#"

static bool parse_u64(const char *s, const char *end, uint64_t *out)
{
	uint64_t v = 0;

	if (s == end)
		return false;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return true;
}

gs_status gs_step_options_parse(const char *text, struct gs_step_options *out)
{
	const char *colon;

	out->first = out->last = 0;
	if (!text || !*text) {
		gs_error_append("--step: empty (N, A:B, all or none)");
		return GS_ERR_INVALID;
	}
	if (!strcmp(text, "all")) {
		out->pick = GS_STEP_ALL;
		return GS_OK;
	}
	if (!strcmp(text, "none")) {
		out->pick = GS_STEP_NONE;
		return GS_OK;
	}
	colon = strchr(text, ':');
	if (!colon ? !parse_u64(text, text + strlen(text), &out->first) :
		     !parse_u64(text, colon, &out->first) ||
			     !parse_u64(colon + 1, colon + 1 + strlen(colon + 1), &out->last)) {
		gs_error_append("--step %s: not a step number, A:B, all or none", text);
		return GS_ERR_INVALID;
	}
	if (!colon)
		out->last = out->first;
	if (out->last < out->first) {
		gs_error_append("--step %s: the range ends before it starts", text);
		return GS_ERR_INVALID;
	}
	out->pick = GS_STEP_RANGE;
	return GS_OK;
}

/* The number in ProfilerStep#N (false: not such a name). */
static bool profiler_step(const char *name, uint64_t *n)
{
	size_t len = strlen(PROFILER_STEP);

	return name && !strncmp(name, PROFILER_STEP, len) &&
	       parse_u64(name + len, name + strlen(name), n);
}

/* The first run of digits in a name (false: none, or too long). */
static bool first_number(const char *name, uint64_t *n)
{
	const char *a = name, *b;

	while (*a && (*a < '0' || *a > '9'))
		a++;
	for (b = a; *b >= '0' && *b <= '9'; b++)
		;
	return parse_u64(a, b, n);
}

static int cmp_number(const void *pa, const void *pb)
{
	const struct gs_step *a = pa, *b = pb;
	int64_t da = a->host_end_ns - a->host_start_ns, db = b->host_end_ns - b->host_start_ns;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->number != b->number)
		return a->number < b->number ? -1 : 1;
	if (da != db) /* the longest first: kept */
		return da > db ? -1 : 1;
	return (a->host_start_ns > b->host_start_ns) - (a->host_start_ns < b->host_start_ns);
}

static int cmp_start(const void *pa, const void *pb)
{
	const struct gs_step *a = pa, *b = pb;

	if (a->host_start_ns != b->host_start_ns)
		return a->host_start_ns < b->host_start_ns ? -1 : 1;
	return (a->number > b->number) - (a->number < b->number);
}

static int cmp_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return (a > b) - (a < b);
}

/* The marker ranges as steps, deduplicated, by host start. */
static gs_status collect(const struct gs_trace *t, const struct gs_step_options *o,
			 struct gs_steps *out)
{
	size_t nr, n = 0, i, k, n_str = gs_trace_string_count(t);
	const struct gs_range *r = gs_trace_ranges(t, &nr);
	uint8_t *other = NULL; /* per string id: not a marker */
	regex_t re;
	bool numbered = true;
	gs_status st = GS_OK;

	if (o->marker) {
		int rc = regcomp(&re, o->marker, REG_EXTENDED | REG_NOSUB);

		if (rc) {
			char msg[128];

			regerror(rc, &re, msg, sizeof(msg));
			gs_error_append("--step-marker %s: %s", o->marker, msg);
			return GS_ERR_INVALID;
		}
	}
	out->steps = calloc(nr ? nr : 1, sizeof(*out->steps));
	/* Whether a name is a marker depends on the name alone: a name found
	 * not to be one is not looked at again (names repeat: millions of
	 * ranges, a few thousand names), a byte read instead. */
	other = calloc(n_str ? n_str : 1, 1);
	if (!out->steps || !other) {
		st = gs_nomem();
		goto done;
	}
	for (i = 0; i < nr; i++) {
		uint32_t id = r[i].name;
		const char *name;
		uint64_t num = 0;

		if (r[i].kind == GS_RANGE_GPU_ANNOTATION || r[i].end_ns < r[i].start_ns ||
		    (id < n_str && other[id]))
			continue;
		name = gs_trace_string(t, id);
		if (!name || (o->marker ? regexec(&re, name, 0, NULL, 0) != 0 :
					  !profiler_step(name, &num))) {
			if (id < n_str)
				other[id] = 1;
			continue;
		}
		if (o->marker && !profiler_step(name, &num) && !first_number(name, &num))
			numbered = false;
		out->steps[n++] = (struct gs_step){.number = num,
						   .name = r[i].name,
						   .pid = r[i].pid,
						   .host_start_ns = r[i].start_ns,
						   .host_end_ns = r[i].end_ns};
	}
	if (!n && !o->marker) {
		/* Neither: the repeated top-level annotation, if any. Its
		 * ranges never overlap, so equal numbers are no duplicates:
		 * then the names do not number the steps. */
		st = gs_steps_repeated(t, o, out->steps, &n, &out->source_buf);
		if (st)
			goto done;
		for (i = 0; i < n && numbered; i++)
			numbered = first_number(gs_trace_string(t, out->steps[i].name),
						&out->steps[i].number);
		gs_sort(out->steps, n, sizeof(*out->steps), cmp_number);
		for (i = 1; i < n && numbered; i++)
			numbered = out->steps[i].number != out->steps[i - 1].number ||
				   out->steps[i].pid != out->steps[i - 1].pid;
	}
	if (numbered && n) {
		/* One step per (process, number): the longest range. */
		gs_sort(out->steps, n, sizeof(*out->steps), cmp_number);
		for (i = 0, k = 0; i < n; i++)
			if (!k || out->steps[i].number != out->steps[k - 1].number ||
			    out->steps[i].pid != out->steps[k - 1].pid)
				out->steps[k++] = out->steps[i];
		n = k;
	}
	gs_sort(out->steps, n, sizeof(*out->steps), cmp_start);
	if (!numbered)
		for (i = 0; i < n; i++)
			out->steps[i].number = i + 1;
	out->n = n;
	out->source = out->source_buf ? out->source_buf :
		      o->marker       ? "ranges matching --step-marker" :
					"ProfilerStep#N ranges";
done:
	free(other);
	if (o->marker)
		regfree(&re);
	return st;
}

/* The step whose host range holds `t` for process `pid` (or for any
 * process, any[k] for step k), else NULL. */
static bool first_after(const struct gs_steps *s, size_t i, int64_t t)
{
	return (i == 0 || s->steps[i - 1].host_start_ns <= t) &&
	       (i == s->n || s->steps[i].host_start_ns > t);
}

/* *hint: where the last call found the first step after its time (the
 * ops come about in time order, so it is usually where this one is). */
static struct gs_step *step_at(struct gs_steps *s, const bool *any, int64_t pid, int64_t t,
			       size_t *hint)
{
	/* the first step starting after t */
	size_t lo = *hint;

	if (!first_after(s, lo, t)) {
		if (lo < s->n && first_after(s, lo + 1, t))
			lo++;
		else
			lo = gs_upper_bound_i64_at(s->steps, s->n, sizeof(*s->steps),
						   offsetof(struct gs_step, host_start_ns), t);
	}
	*hint = lo;

	/* Steps of one process do not overlap; of several, look a little back. */
	for (size_t i = lo, tries = 0; i > 0 && tries < 8; i--, tries++) {
		struct gs_step *st = &s->steps[i - 1];

		if ((st->pid == pid || any[i - 1]) && t < st->host_end_ns)
			return st;
	}
	return NULL;
}

/* The index of pid in the n sorted pids, n when absent. */
static size_t pid_at(const int64_t *pids, size_t n, int64_t pid)
{
	size_t lo = gs_lower_bound_i64(pids, n, pid);

	return lo < n && pids[lo] == pid ? lo : n;
}

/* Per step: whether its marker's process launched no GPU op of the trace
 * (a profiler may record its step ranges under another pid than the
 * work's: a process id namespace); such a step takes the launches of every
 * process of the trace. NULL when out of memory. */
static bool *steps_of_any_process(const struct gs_steps *s, size_t n_ops, const uint32_t *launch,
				  size_t n_launch, const struct gs_api_call *api, size_t n_api)
{
	/* The steps' processes (few), each with whether it launched. */
	int64_t *pids = malloc((s->n ? s->n : 1) * sizeof(*pids));
	bool *launched = calloc(s->n ? s->n : 1, sizeof(*launched));
	bool *any = calloc(s->n ? s->n : 1, sizeof(*any));
	size_t u = 0;

	if (!pids || !launched || !any) {
		free(pids);
		free(launched);
		free(any);
		return NULL;
	}
	for (size_t k = 0; k < s->n; k++)
		pids[k] = s->steps[k].pid;
	gs_sort_by_i64(pids, s->n, sizeof(*pids));
	for (size_t k = 0; k < s->n; k++)
		if (!u || pids[u - 1] != pids[k])
			pids[u++] = pids[k];
	for (size_t o = 0, left = u; o < n_ops && o < n_launch && left; o++) {
		size_t at;

		if (launch[o] >= n_api)
			continue;
		at = pid_at(pids, u, api[launch[o]].pid);
		if (at < u && !launched[at]) {
			launched[at] = true;
			left--;
		}
	}
	for (size_t k = 0; k < s->n; k++)
		any[k] = !launched[pid_at(pids, u, s->steps[k].pid)];
	free(pids);
	free(launched);
	return any;
}

/* A step by its marker's name. */
struct by_name {
	uint32_t name;
	uint32_t k;
};

static int cmp_by_name(const void *pa, const void *pb)
{
	const struct by_name *a = pa, *b = pb;

	if (a->name != b->name)
		return a->name < b->name ? -1 : 1;
	return (a->k > b->k) - (a->k < b->k);
}

/* A name searched for among the steps by name. */
struct name_key {
	const struct by_name *names;
	uint32_t name;
};

static bool name_before(const void *ctx, size_t i)
{
	const struct name_key *k = ctx;

	return k->names[i].name < k->name;
}

static gs_status gpu_windows(const struct gs_trace *t, const struct gs_step_options *opt,
			     struct gs_steps *s)
{
	size_t nr, n_ops, n_launch, n_api;
	const struct gs_range *r = gs_trace_ranges(t, &nr);
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const uint32_t *launch = gs_trace_op_launches(t, &n_launch);
	const struct gs_api_call *api = gs_trace_api_calls(t, &n_api);
	size_t n_streams;
	const struct gs_stream *streams = gs_trace_streams(t, &n_streams);

	/* The profiler's own drawing of a step on the GPU: same name. The
	 * steps by name, so that each drawing finds its steps by a search. */
	struct by_name *names = malloc((s->n ? s->n : 1) * sizeof(*names));
	const uint32_t *ann;
	size_t n_ann;
	bool *any;

	if (!names)
		return gs_nomem();
	for (size_t k = 0; k < s->n; k++)
		names[k] = (struct by_name){.name = s->steps[k].name, .k = (uint32_t)k};
	gs_sort(names, s->n, sizeof(*names), cmp_by_name);
	/* The drawings are among the annotation ranges the trace lists (all
	 * the ranges read when it lists none), when it has any. */
	ann = gs_trace_annotation_ranges(t, &n_ann);
	if (!gs_trace_range_count(t, GS_RANGE_GPU_ANNOTATION))
		n_ann = 0;
	else if (!ann)
		n_ann = nr;
	for (size_t j = 0; j < n_ann; j++) {
		size_t i = ann ? ann[j] : j;
		struct name_key key = {names, r[i].name};
		size_t lo;

		if (r[i].kind != GS_RANGE_GPU_ANNOTATION || r[i].end_ns <= r[i].start_ns)
			continue;
		if (opt->has_device &&
		    (r[i].stream >= n_streams || streams[r[i].stream].device != opt->device))
			continue;
		lo = gs_partition_point(s->n, name_before, &key); /* the first step of that name */
		for (; lo < s->n && names[lo].name == r[i].name; lo++) {
			struct gs_step *st = &s->steps[names[lo].k];

			if (!st->gpu_drawn || r[i].start_ns < st->gpu_start_ns)
				st->gpu_start_ns = r[i].start_ns;
			if (!st->gpu_drawn || r[i].end_ns > st->gpu_end_ns)
				st->gpu_end_ns = r[i].end_ns;
			st->gpu_drawn = true;
		}
	}
	free(names);
	any = steps_of_any_process(s, n_ops, launch, n_launch, api, n_api);
	if (!any)
		return gs_nomem();
	for (size_t o = 0, hint = 0; o < n_ops && o < n_launch; o++) {
		struct gs_step *st;

		if (launch[o] >= n_api ||
		    (opt->has_device && gs_op_device(t, &ops[o]) != opt->device))
			continue;
		st = step_at(s, any, api[launch[o]].pid, api[launch[o]].start_ns, &hint);
		if (!st)
			continue;
		if (!st->gpu_drawn) {
			if (!st->ops || ops[o].start_ns < st->gpu_start_ns)
				st->gpu_start_ns = ops[o].start_ns;
			if (!st->ops || ops[o].end_ns > st->gpu_end_ns)
				st->gpu_end_ns = ops[o].end_ns;
		}
		st->ops++;
	}
	free(any);
	return GS_OK;
}

static bool has_window(const struct gs_step *st)
{
	return st->gpu_end_ns > st->gpu_start_ns;
}

/* The last step is partial when it launched nothing, or its host range is
 * under half the median of the others'. */
static gs_status mark_partial(struct gs_steps *s)
{
	struct gs_step *last;
	int64_t *d;

	if (!s->n)
		return GS_OK;
	last = &s->steps[s->n - 1];
	if (!last->ops && !last->gpu_drawn) {
		last->partial = true;
		return GS_OK;
	}
	if (s->n < 3)
		return GS_OK;
	d = malloc((s->n - 1) * sizeof(*d));
	if (!d)
		return gs_nomem();
	for (size_t i = 0; i + 1 < s->n; i++)
		d[i] = s->steps[i].host_end_ns - s->steps[i].host_start_ns;
	gs_sort(d, s->n - 1, sizeof(*d), cmp_i64);
	last->partial = (last->host_end_ns - last->host_start_ns) * 2 < d[(s->n - 2) / 2];
	free(d);
	return GS_OK;
}

static void select_steps(struct gs_steps *s, const struct gs_step_options *o)
{
	size_t whole = 0, seen = 0;

	for (size_t i = 0; i < s->n; i++)
		whole += !s->steps[i].partial && has_window(&s->steps[i]);
	for (size_t i = 0; i < s->n; i++) {
		struct gs_step *st = &s->steps[i];

		if (!has_window(st))
			continue;
		switch (o->pick) {
		case GS_STEP_ALL:
			st->selected = true;
			break;
		case GS_STEP_RANGE:
			st->selected = st->number >= o->first && st->number <= o->last;
			break;
		case GS_STEP_NONE:
			break;
		default:
			if (st->partial) {
				s->partial_left_out = whole > 0;
				st->selected = whole == 0;
			} else if (whole >= 2 && seen++ == 0) {
				s->warmup_left_out = true;
			} else {
				st->selected = true;
			}
			break;
		}
		if (!st->selected)
			continue;
		if (!s->n_selected || st->gpu_start_ns < s->window_start_ns)
			s->window_start_ns = st->gpu_start_ns;
		if (!s->n_selected || st->gpu_end_ns > s->window_end_ns)
			s->window_end_ns = st->gpu_end_ns;
		s->n_selected++;
	}
	s->window_set = s->n_selected > 0;
}

/* "5..10", "5, 7, 9", as far as fits. */
static void list_numbers(const struct gs_steps *s, char *buf, size_t size)
{
	size_t len = 0;
	bool run = s->n > 1;

	buf[0] = '\0';
	for (size_t i = 1; i < s->n && run; i++)
		run = s->steps[i].number == s->steps[i - 1].number + 1;
	if (run) {
		snprintf(buf, size, "%llu..%llu", (unsigned long long)s->steps[0].number,
			 (unsigned long long)s->steps[s->n - 1].number);
		return;
	}
	for (size_t i = 0; i < s->n && len + 24 < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%llu", i ? ", " : "",
					(unsigned long long)s->steps[i].number);
}

gs_status gs_steps_find(const struct gs_trace *t, const struct gs_step_options *o,
			struct gs_steps *out)
{
	static const struct gs_step_options defaults = {.pick = GS_STEP_DEFAULT};
	gs_status st;

	if (!out)
		return GS_ERR_INVALID;
	memset(out, 0, sizeof(*out));
	if (!t) {
		gs_error_append("gs_steps_find: no trace");
		return GS_ERR_INVALID;
	}
	if (!o)
		o = &defaults;
	st = collect(t, o, out);
	if (!st)
		st = gpu_windows(t, o, out);
	if (!st)
		st = mark_partial(out);
	if (st) {
		gs_steps_fini(out);
		return st;
	}
	select_steps(out, o);
	if (o->pick == GS_STEP_RANGE && !out->n_selected) {
		char have[160], asked[64];

		if (o->last != o->first)
			snprintf(asked, sizeof(asked), "%llu:%llu", (unsigned long long)o->first,
				 (unsigned long long)o->last);
		else
			snprintf(asked, sizeof(asked), "%llu", (unsigned long long)o->first);
		list_numbers(out, have, sizeof(have));
		if (!out->n)
			gs_error_append("--step %s: the trace marks no steps (%s)", asked,
					o->marker ?
						"no range matches --step-marker" :
						"no ProfilerStep#N ranges nor a repeated top-level "
						"range; --step-marker REGEX names NVTX ones");
		else
			gs_error_append("--step %s: no such step with GPU work (the trace has "
					"steps %s)",
					asked, have);
		gs_steps_fini(out);
		return GS_ERR_INVALID;
	}
	return GS_OK;
}

void gs_steps_fini(struct gs_steps *s)
{
	if (!s)
		return;
	free(s->steps);
	free(s->source_buf);
	memset(s, 0, sizeof(*s));
}
