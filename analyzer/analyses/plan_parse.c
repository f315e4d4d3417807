/* SPDX-License-Identifier: MIT */
/*
 * gpuscope plan: reading STAGES.json (cJSON) into a gs_plan_input, and the
 * names of kinds, edges and bounds. The schedule is plan_schedule.c's, the
 * text and JSON writers plan_output.c's (docs/design.md, Plan).
 *
 * Parsing is linear in the input (cJSON), capped at GS_PLAN_MAX_FILE_BYTES.
 */
#include "plan_priv.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* ------------------------------------------------------------------------ */
/* Names                                                                     */
/* ------------------------------------------------------------------------ */

static const char *const plan_kind_names[GS_PLAN_KIND_COUNT] = {
	"other", "h2d", "d2h", "compute", "sync", "host",
};

const char *gs_plan_kind_name(unsigned kind)
{
	return kind < GS_PLAN_KIND_COUNT ? plan_kind_names[kind] : "unknown";
}

bool gs_plan_kind_parse(const char *s, unsigned *kind)
{
	static const struct {
		const char *name;
		unsigned kind;
	} names[] = {
		{"other", GS_PLAN_KIND_OTHER},    {"h2d", GS_PLAN_KIND_H2D},
		{"copy_in", GS_PLAN_KIND_H2D},    {"d2h", GS_PLAN_KIND_D2H},
		{"copy_out", GS_PLAN_KIND_D2H},   {"compute", GS_PLAN_KIND_COMPUTE},
		{"kernel", GS_PLAN_KIND_COMPUTE}, {"sync", GS_PLAN_KIND_SYNC},
		{"host", GS_PLAN_KIND_HOST},
	};
	size_t i;

	for (i = 0; s && i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i].name)) {
			*kind = names[i].kind;
			return true;
		}
	}
	return false;
}

const char *gs_plan_edge_kind_name(unsigned kind)
{
	switch (kind) {
	case GS_PLAN_EDGE_DEPENDS_ON:
		return "depends_on";
	case GS_PLAN_EDGE_STREAM_ORDER:
		return "stream_order";
	case GS_PLAN_EDGE_SYNC_COPY:
		return "sync_copy";
	}
	return "unknown";
}

const char *gs_plan_bound_name(unsigned bound)
{
	switch (bound) {
	case GS_PLAN_BOUND_NONE:
		return "none";
	case GS_PLAN_BOUND_DEPENDS_ON:
		return "depends_on";
	case GS_PLAN_BOUND_STREAM_ORDER:
		return "stream_order";
	case GS_PLAN_BOUND_SYNC_COPY:
		return "sync_copy";
	case GS_PLAN_BOUND_COPY_ENGINE:
		return "copy_engine";
	case GS_PLAN_BOUND_EXCLUSIVE_COPY:
		return "exclusive_copy";
	}
	return "unknown";
}

/* A number as written back for a message: the shortest exact form. */
static const char *plan_num(double x, char buf[GS_PLAN_US_MAX])
{
	int prec;

	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, GS_PLAN_US_MAX, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	return buf;
}

/* A name short enough for an error line (its start, then "..."). */
const char *plan_short(const char *s, char buf[80])
{
	size_t len = s ? strlen(s) : 0;

	if (!s)
		return "";
	if (len < 72)
		return s;
	memcpy(buf, s, 64);
	memcpy(buf + 64, "...", 4);
	return buf;
}

bool plan_blank(const char *s)
{
	if (!s)
		return true;
	for (; *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r' && *s != '\v' && *s != '\f')
			return false;
	return true;
}

/* ------------------------------------------------------------------------ */
/* Parsing (cJSON)                                                           */
/* ------------------------------------------------------------------------ */

/* What gs_plan_parse hands out: `in` first, so the input pointer is ours. */
struct plan_doc {
	struct gs_plan_input in;
	cJSON *root;
	struct gs_plan_stage *stages;
	const char **deps;
};

struct plan_parser {
	const char *label;
	gs_status st;
};

static void plan_perr(struct plan_parser *p, gs_status st, const char *fmt, ...) GS_PRINTF(3, 4);

static void plan_perr(struct plan_parser *p, gs_status st, const char *fmt, ...)
{
	char msg[GS_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->label)
		gs_error_append("%s: %s", p->label, msg);
	else
		gs_error_append("%s", msg);
	p->st = st;
}

static const char *plan_json_type(const cJSON *v)
{
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsBool(v))
		return "a boolean";
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsArray(v))
		return "an array";
	if (cJSON_IsObject(v))
		return "an object";
	return "invalid";
}

/*
 * A duration in µs (finite, >= 0, at most 7 days, whole ns) to ns. `what`
 * names the value in messages ("stage 'a' (stages[0]): duration_us").
 */
static bool plan_parse_us(struct plan_parser *p, const cJSON *v, const char *what, int64_t *ns)
{
	char nb[GS_PLAN_US_MAX];
	double d, x, r;

	if (!cJSON_IsNumber(v)) {
		plan_perr(p, GS_ERR_FORMAT, "%s must be a number of microseconds, not %s", what,
			  plan_json_type(v));
		return false;
	}
	d = v->valuedouble;
	if (!isfinite(d)) {
		plan_perr(p, GS_ERR_FORMAT, "%s is not a finite number", what);
		return false;
	}
	if (d < 0) {
		plan_perr(p, GS_ERR_FORMAT, "%s %s is negative", what, plan_num(d, nb));
		return false;
	}
	if (d > (double)GS_PLAN_MAX_DURATION_NS / 1000.0) {
		plan_perr(p, GS_ERR_FORMAT, "%s %s is over 7 days (604800000000 us)", what,
			  plan_num(d, nb));
		return false;
	}
	x = d * 1000.0;
	r = nearbyint(x);
	if (fabs(x - r) > fabs(x) * 1e-15 + 1e-9) {
		plan_perr(p, GS_ERR_FORMAT, "%s %s is finer than 1 ns (at most 3 decimals)", what,
			  plan_num(d, nb));
		return false;
	}
	*ns = (int64_t)r;
	return true;
}

/* A whole number of copy engines, 0 .. GS_PLAN_MAX_ENGINES. */
static bool plan_parse_engines(struct plan_parser *p, const cJSON *v, const char *what, uint32_t *n)
{
	char nb[GS_PLAN_US_MAX];
	double d;

	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
		plan_perr(p, GS_ERR_FORMAT, "%s must be a whole number of copy engines, not %s",
			  what, plan_json_type(v));
		return false;
	}
	d = v->valuedouble;
	if (d < 0 || d > GS_PLAN_MAX_ENGINES || d != floor(d)) {
		plan_perr(p, GS_ERR_FORMAT, "%s %s must be a whole number from 0 to %d", what,
			  plan_num(d, nb), GS_PLAN_MAX_ENGINES);
		return false;
	}
	*n = (uint32_t)d;
	return true;
}

static bool plan_parse_copy_engines(struct plan_parser *p, const cJSON *v, struct gs_plan_input *in)
{
	const cJSON *c;
	bool seen[2] = {false, false};

	if (cJSON_IsNull(v))
		return true;
	if (cJSON_IsNumber(v)) {
		in->engine_mode = GS_PLAN_ENGINES_SHARED;
		return plan_parse_engines(p, v, "copy_engines", &in->engines_shared);
	}
	if (!cJSON_IsObject(v)) {
		plan_perr(p, GS_ERR_FORMAT,
			  "copy_engines must be a number or an object {\"h2d\": N, \"d2h\": N}, "
			  "not %s",
			  plan_json_type(v));
		return false;
	}
	in->engine_mode = GS_PLAN_ENGINES_PER_DIRECTION;
	cJSON_ArrayForEach(c, v)
	{
		int k = !strcmp(c->string, "h2d") ? 0 : !strcmp(c->string, "d2h") ? 1 : -1;
		char what[32];

		if (k < 0) {
			char b[80];

			plan_perr(p, GS_ERR_FORMAT,
				  "copy_engines: unknown key '%s' (expected h2d, d2h)",
				  plan_short(c->string, b));
			return false;
		}
		if (seen[k]) {
			plan_perr(p, GS_ERR_FORMAT, "copy_engines: duplicate key '%s'", c->string);
			return false;
		}
		seen[k] = true;
		snprintf(what, sizeof(what), "copy_engines.%s", c->string);
		if (!plan_parse_engines(p, c, what, k ? &in->engines_d2h : &in->engines_h2d))
			return false;
	}
	return true;
}

enum {
	KEY_NAME = 1u << 0,
	KEY_DURATION = 1u << 1,
	KEY_STREAM = 1u << 2,
	KEY_DEPENDS = 1u << 3,
	KEY_KIND = 1u << 4,
	KEY_MEMORY = 1u << 5,
	KEY_COMMENT = 1u << 6,
};

static unsigned plan_stage_key(const char *k)
{
	static const struct {
		const char *name;
		unsigned bit;
	} keys[] = {
		{"name", KEY_NAME},       {"duration_us", KEY_DURATION},
		{"stream", KEY_STREAM},   {"depends_on", KEY_DEPENDS},
		{"kind", KEY_KIND},       {"memory", KEY_MEMORY},
		{"comment", KEY_COMMENT},
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(k, keys[i].name))
			return keys[i].bit;
	return 0;
}

static bool plan_parse_stage(struct plan_parser *p, const cJSON *obj, size_t i,
			     struct gs_plan_stage *s, const char **deps, size_t *ndeps)
{
	const cJSON *c, *name = NULL, *dur = NULL, *stream = NULL, *dep = NULL, *kind = NULL,
			*mem = NULL;
	char who[160], b[80], what[200];
	unsigned seen = 0, k;

	snprintf(who, sizeof(who), "stages[%zu]", i);
	if (!cJSON_IsObject(obj)) {
		plan_perr(p, GS_ERR_FORMAT, "%s must be an object, not %s", who,
			  plan_json_type(obj));
		return false;
	}
	/* The name first, so that later messages can give it. */
	cJSON_ArrayForEach(c, obj)
	{
		if (!strcmp(c->string, "name") && !name)
			name = c;
	}
	if (name && cJSON_IsString(name))
		snprintf(who, sizeof(who), "stage '%s' (stages[%zu])",
			 plan_short(name->valuestring, b), i);
	cJSON_ArrayForEach(c, obj)
	{
		k = plan_stage_key(c->string);
		if (!k) {
			plan_perr(p, GS_ERR_FORMAT,
				  "%s: unknown key '%s' (expected name, duration_us, stream, "
				  "depends_on, kind, memory, comment)",
				  who, plan_short(c->string, b));
			return false;
		}
		if (seen & k) {
			plan_perr(p, GS_ERR_FORMAT, "%s: duplicate key '%s'", who, c->string);
			return false;
		}
		seen |= k;
		if (k == KEY_DURATION)
			dur = c;
		else if (k == KEY_STREAM)
			stream = c;
		else if (k == KEY_DEPENDS)
			dep = c;
		else if (k == KEY_KIND)
			kind = c;
		else if (k == KEY_MEMORY)
			mem = c;
	}
	if (!name) {
		plan_perr(p, GS_ERR_FORMAT, "%s: no \"name\"", who);
		return false;
	}
	if (!cJSON_IsString(name)) {
		plan_perr(p, GS_ERR_FORMAT, "%s: \"name\" must be a string, not %s", who,
			  plan_json_type(name));
		return false;
	}
	s->name = name->valuestring;
	if (!dur) {
		plan_perr(p, GS_ERR_FORMAT, "%s: no \"duration_us\"", who);
		return false;
	}
	snprintf(what, sizeof(what), "%s: duration_us", who);
	if (!plan_parse_us(p, dur, what, &s->duration_ns))
		return false;
	if (!stream) {
		plan_perr(p, GS_ERR_FORMAT, "%s: no \"stream\"", who);
		return false;
	}
	if (!cJSON_IsString(stream)) {
		plan_perr(p, GS_ERR_FORMAT, "%s: \"stream\" must be a string, not %s", who,
			  plan_json_type(stream));
		return false;
	}
	s->stream = stream->valuestring;
	s->depends_on = deps + *ndeps;
	s->n_depends_on = 0;
	if (dep && !cJSON_IsNull(dep)) {
		size_t j = 0;

		if (!cJSON_IsArray(dep)) {
			plan_perr(p, GS_ERR_FORMAT,
				  "%s: \"depends_on\" must be an array of stage names, not %s", who,
				  plan_json_type(dep));
			return false;
		}
		cJSON_ArrayForEach(c, dep)
		{
			if (!cJSON_IsString(c)) {
				plan_perr(p, GS_ERR_FORMAT,
					  "%s: depends_on[%zu] must be a stage name, not %s", who,
					  j, plan_json_type(c));
				return false;
			}
			deps[(*ndeps)++] = c->valuestring;
			s->n_depends_on++;
			j++;
		}
	}
	s->kind = GS_PLAN_KIND_OTHER;
	if (kind) {
		unsigned kv;

		if (!cJSON_IsString(kind) || !gs_plan_kind_parse(kind->valuestring, &kv)) {
			plan_perr(
				p, GS_ERR_FORMAT,
				"%s: unknown kind %s%s%s (expected h2d or copy_in, d2h or copy_out, "
				"compute or kernel, sync, host, other)",
				who, cJSON_IsString(kind) ? "'" : "",
				cJSON_IsString(kind) ? plan_short(kind->valuestring, b) :
						       plan_json_type(kind),
				cJSON_IsString(kind) ? "'" : "");
			return false;
		}
		s->kind = (uint8_t)kv;
	}
	s->memory = GS_PLAN_MEM_PINNED;
	if (mem) {
		if (cJSON_IsString(mem) && !strcmp(mem->valuestring, "pageable")) {
			s->memory = GS_PLAN_MEM_PAGEABLE;
		} else if (!cJSON_IsString(mem) || strcmp(mem->valuestring, "pinned") != 0) {
			plan_perr(p, GS_ERR_FORMAT, "%s: memory must be \"pinned\" or \"pageable\"",
				  who);
			return false;
		}
		if (s->kind != GS_PLAN_KIND_H2D && s->kind != GS_PLAN_KIND_D2H) {
			plan_perr(p, GS_ERR_FORMAT,
				  "%s: memory applies to h2d/d2h copies only (kind is %s)", who,
				  gs_plan_kind_name(s->kind));
			return false;
		}
	}
	return true;
}

/* Open arrays and objects before `at` (strings skipped): tells cJSON's
 * nesting limit from a syntax error. O(at - json). */
static size_t plan_depth_before(const char *json, size_t len, const char *at)
{
	size_t depth = 0,
	       n = at && at >= json && (size_t)(at - json) <= len ? (size_t)(at - json) : 0;
	bool in_str = false;

	for (size_t i = 0; i < n; i++) {
		char c = json[i];

		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = false;
		} else if (c == '"') {
			in_str = true;
		} else if (c == '[' || c == '{') {
			depth++;
		} else if ((c == ']' || c == '}') && depth) {
			depth--;
		}
	}
	return depth;
}

/* "line L, column C" of a position in the text. */
static void plan_position(const char *json, size_t len, const char *at, char *buf, size_t size)
{
	size_t line = 1, col = 1, i, end;

	end = at && at >= json && (size_t)(at - json) <= len ? (size_t)(at - json) : len;
	for (i = 0; i < end; i++) {
		if (json[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	snprintf(buf, size, "line %zu, column %zu", line, col);
}

static void plan_doc_free(struct plan_doc *d)
{
	if (!d)
		return;
	cJSON_Delete(d->root);
	free(d->stages);
	free(d->deps);
	free(d);
}

gs_status gs_plan_parse(const char *json, size_t len, const char *label, struct gs_plan_input **out)
{
	struct plan_parser p = {.label = label, .st = GS_OK};
	struct plan_doc *d;
	const char *end = NULL;
	const cJSON *c, *stages = NULL, *overhead = NULL, *engines = NULL;
	bool seen_comment = false;
	size_t n, i, total_deps = 0, ndeps = 0;
	char pos[64], b[80];

	*out = NULL;
	if (!json && len) {
		plan_perr(&p, GS_ERR_INVALID, "no input text");
		return p.st;
	}
	if (len == 0) {
		plan_perr(&p, GS_ERR_FORMAT, "empty file (expected a JSON object with \"stages\")");
		return p.st;
	}
	if (len > GS_PLAN_MAX_FILE_BYTES) {
		plan_perr(&p, GS_ERR_LIMIT, "larger than the %u MiB limit for a plan",
			  GS_PLAN_MAX_FILE_BYTES >> 20);
		return p.st;
	}
	for (i = 0; i < len && strchr(" \t\r\n", json[i]) && json[i]; i++)
		;
	if (i == len) {
		plan_perr(&p, GS_ERR_FORMAT,
			  "only white space (expected a JSON object with \"stages\")");
		return p.st;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		plan_perr(&p, GS_ERR_NOMEM, "out of memory");
		return p.st;
	}
	d->root = cJSON_ParseWithLengthOpts(json, len, &end, false);
	if (!d->root) {
		plan_position(json, len, end, pos, sizeof(pos));
		if (plan_depth_before(json, len, end) >= CJSON_NESTING_LIMIT)
			plan_perr(&p, GS_ERR_LIMIT, "JSON nested deeper than %d levels at %s",
				  CJSON_NESTING_LIMIT, pos);
		else
			plan_perr(&p, GS_ERR_FORMAT, "not JSON: syntax error at %s", pos);
		goto fail;
	}
	for (; end && (size_t)(end - json) < len; end++) {
		if (*end != ' ' && *end != '\t' && *end != '\n' && *end != '\r') {
			plan_position(json, len, end, pos, sizeof(pos));
			plan_perr(&p, GS_ERR_FORMAT, "not JSON: more text after the value at %s",
				  pos);
			goto fail;
		}
	}
	if (!cJSON_IsObject(d->root)) {
		plan_perr(&p, GS_ERR_FORMAT,
			  "the top level must be an object with a \"stages\" array, not %s",
			  plan_json_type(d->root));
		goto fail;
	}
	d->in.engine_mode = GS_PLAN_ENGINES_UNLIMITED;
	d->in.engines_shared = GS_PLAN_UNLIMITED;
	d->in.engines_h2d = GS_PLAN_UNLIMITED;
	d->in.engines_d2h = GS_PLAN_UNLIMITED;
	cJSON_ArrayForEach(c, d->root)
	{
		const cJSON **slot = NULL;

		if (!strcmp(c->string, "stages"))
			slot = &stages;
		else if (!strcmp(c->string, "exposed_overhead_us"))
			slot = &overhead;
		else if (!strcmp(c->string, "copy_engines"))
			slot = &engines;
		else if (strcmp(c->string, "comment") != 0) {
			plan_perr(
				&p, GS_ERR_FORMAT,
				"unknown top-level key '%s' (expected stages, exposed_overhead_us, "
				"copy_engines, comment)",
				plan_short(c->string, b));
			goto fail;
		}
		if ((slot && *slot) || (!slot && seen_comment)) {
			plan_perr(&p, GS_ERR_FORMAT, "duplicate top-level key '%s'", c->string);
			goto fail;
		}
		if (slot)
			*slot = c;
		else
			seen_comment = true;
	}
	if (!stages) {
		plan_perr(&p, GS_ERR_FORMAT, "no \"stages\" array");
		goto fail;
	}
	if (!cJSON_IsArray(stages)) {
		plan_perr(&p, GS_ERR_FORMAT, "\"stages\" must be an array, not %s",
			  plan_json_type(stages));
		goto fail;
	}
	if (overhead && !cJSON_IsNull(overhead)) {
		if (!plan_parse_us(&p, overhead, "exposed_overhead_us", &d->in.exposed_overhead_ns))
			goto fail;
		d->in.has_overhead = true;
	}
	if (engines && !plan_parse_copy_engines(&p, engines, &d->in))
		goto fail;

	n = 0;
	cJSON_ArrayForEach(c, stages)
	{
		const cJSON *dep;

		if (++n > GS_PLAN_MAX_STAGES) {
			plan_perr(&p, GS_ERR_LIMIT, "more than %d stages (the limit of a plan)",
				  GS_PLAN_MAX_STAGES);
			goto fail;
		}
		dep = cJSON_IsObject(c) ? cJSON_GetObjectItemCaseSensitive(c, "depends_on") : NULL;
		if (cJSON_IsArray(dep))
			total_deps += (size_t)cJSON_GetArraySize(dep);
	}
	d->stages = calloc(n ? n : 1, sizeof(*d->stages));
	d->deps = calloc(total_deps ? total_deps : 1, sizeof(*d->deps));
	if (!d->stages || !d->deps) {
		plan_perr(&p, GS_ERR_NOMEM, "out of memory for %zu stages", n);
		goto fail;
	}
	i = 0;
	cJSON_ArrayForEach(c, stages)
	{
		if (!plan_parse_stage(&p, c, i, &d->stages[i], d->deps, &ndeps))
			goto fail;
		i++;
	}
	d->in.stages = d->stages;
	d->in.n_stages = n;
	*out = &d->in;
	return GS_OK;
fail:
	plan_doc_free(d);
	return p.st;
}

void gs_plan_input_destroy(struct gs_plan_input *in)
{
	/* `in` is the first member of the plan_doc gs_plan_parse allocated. */
	plan_doc_free((struct plan_doc *)in);
}

gs_status gs_plan_load(const char *path, struct gs_plan_input **out)
{
	bool is_stdin = !strcmp(path, "-");
	const char *label = is_stdin ? "<stdin>" : path;
	FILE *f;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	gs_status st;

	*out = NULL;
	f = is_stdin ? stdin : fopen(path, "rb");
	if (!f) {
		gs_error_append("%s: cannot open: %s", label, strerror(errno));
		return GS_ERR_IO;
	}
	for (;;) {
		size_t got;

		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 65536;
			char *nb;

			if (ncap > (size_t)GS_PLAN_MAX_FILE_BYTES + 1)
				ncap = (size_t)GS_PLAN_MAX_FILE_BYTES + 1;
			if (ncap <= cap) {
				gs_error_append("%s: larger than the %u MiB limit for a plan",
						label, GS_PLAN_MAX_FILE_BYTES >> 20);
				st = GS_ERR_LIMIT;
				goto out;
			}
			nb = realloc(buf, ncap);
			if (!nb) {
				gs_error_append("%s: out of memory", label);
				st = GS_ERR_NOMEM;
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0) {
			if (ferror(f)) {
				gs_error_append("%s: read error: %s", label, strerror(errno));
				st = GS_ERR_IO;
				goto out;
			}
			break;
		}
	}
	if (len > GS_PLAN_MAX_FILE_BYTES) {
		gs_error_append("%s: larger than the %u MiB limit for a plan", label,
				GS_PLAN_MAX_FILE_BYTES >> 20);
		st = GS_ERR_LIMIT;
		goto out;
	}
	st = gs_plan_parse(buf, len, label, out);
out:
	free(buf);
	if (!is_stdin)
		fclose(f);
	return st;
}
