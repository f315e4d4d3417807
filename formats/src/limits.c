/* SPDX-License-Identifier: MIT */
/*
 * Import limits (struct gs_import_limits): defaults, setting one by name,
 * and the limit sink that holds every input format to the limits they
 * share. The sink adds one indirect call per record: O(1), no allocation.
 */
#include "import_priv.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void gs_import_limits_default(struct gs_import_limits *lim)
{
	lim->max_depth = 64;
	lim->max_event_bytes = 16u << 20;
	lim->max_string_bytes = 1u << 20;
	lim->max_streams = 65536;
	lim->max_records = 1ull << 31;
	lim->max_ops = 1ull << 28;
	lim->max_inflated_bytes = 64ull << 30;
	lim->max_inflate_ratio = 250;
	lim->max_edges = 1ull << 24;
	lim->max_annotation_pieces = 1ull << 26;
	lim->max_sqlite_ms = 60000;
}

void gs_import_limits_resolve(struct gs_import_limits *out, const struct gs_import_limits *in)
{
	struct gs_import_limits def;

	gs_import_limits_default(&def);
	*out = def;
	if (!in)
		return;
#define TAKE(f)                                                                                    \
	if (in->f)                                                                                 \
	out->f = in->f
	TAKE(max_depth);
	TAKE(max_event_bytes);
	TAKE(max_string_bytes);
	TAKE(max_streams);
	TAKE(max_records);
	TAKE(max_ops);
	TAKE(max_inflated_bytes);
	TAKE(max_inflate_ratio);
	TAKE(max_edges);
	TAKE(max_annotation_pieces);
	TAKE(max_sqlite_ms);
#undef TAKE
}

/* ---- by name ---- */

static const struct {
	const char *name;
	size_t offset;
	bool is32;
} fields[] = {
	{"max_depth", offsetof(struct gs_import_limits, max_depth), true},
	{"max_event_bytes", offsetof(struct gs_import_limits, max_event_bytes), false},
	{"max_string_bytes", offsetof(struct gs_import_limits, max_string_bytes), false},
	{"max_streams", offsetof(struct gs_import_limits, max_streams), true},
	{"max_records", offsetof(struct gs_import_limits, max_records), false},
	{"max_ops", offsetof(struct gs_import_limits, max_ops), false},
	{"max_inflated_bytes", offsetof(struct gs_import_limits, max_inflated_bytes), false},
	{"max_inflate_ratio", offsetof(struct gs_import_limits, max_inflate_ratio), true},
	{"max_edges", offsetof(struct gs_import_limits, max_edges), false},
	{"max_annotation_pieces", offsetof(struct gs_import_limits, max_annotation_pieces), false},
	{"max_sqlite_ms", offsetof(struct gs_import_limits, max_sqlite_ms), true},
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

const char *gs_import_limit_name(size_t i)
{
	return i < NFIELDS ? fields[i].name : NULL;
}

/* "64K" -> 65536; false when not a positive number that fits in `max`. */
static bool parse_value(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	switch (toupper((unsigned char)*end)) {
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	case 'T':
		shift = 40;
		break;
	case '\0':
		break;
	default:
		return false;
	}
	if (shift && end[1] != '\0')
		return false;
	if (v == 0 || v > (max >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

gs_status gs_import_limit_set(struct gs_import_limits *lim, const char *name, const char *value)
{
	char known[256];
	size_t used = 0;

	if (!lim || !name) {
		gs_error_append("gs_import_limit_set: no %s", lim ? "name" : "limits");
		return GS_ERR_INVALID;
	}
	for (size_t i = 0; i < NFIELDS; i++) {
		unsigned char *p = (unsigned char *)lim + fields[i].offset;
		uint64_t max = fields[i].is32 ? UINT32_MAX : UINT64_MAX, v;

		if (strcasecmp(name, fields[i].name) != 0)
			continue;
		if (!parse_value(value, max, &v)) {
			gs_error_append("limit %s: '%s' is not a number from 1 to %" PRIu64
					" (with an optional K, M, G or T)",
					fields[i].name, value ? value : "", max);
			return GS_ERR_INVALID;
		}
		if (fields[i].is32) {
			uint32_t v32 = (uint32_t)v;

			memcpy(p, &v32, sizeof(v32));
		} else {
			memcpy(p, &v, sizeof(v));
		}
		return GS_OK;
	}
	known[0] = '\0';
	for (size_t i = 0; i < NFIELDS && used < sizeof(known); i++) {
		size_t room = sizeof(known) - used;
		int n = snprintf(known + used, room, "%s%s", i ? ", " : "", fields[i].name);

		if (n < 0 || (size_t)n >= room)
			break;
		used += (size_t)n;
	}
	gs_error_append("unknown limit '%s' (known: %s)", name, known);
	return GS_ERR_INVALID;
}

/* ---- the limit sink ---- */

static struct gs_limit_sink *of(struct gs_sink *s)
{
	return (struct gs_limit_sink *)(void *)s;
}

static gs_status over(struct gs_limit_sink *ls, const char *what, uint64_t limit)
{
	gs_error_append("%s%smore than %s (%" PRIu64 ") %s", ls->name ? ls->name : "",
			ls->name ? ": " : "", what, limit,
			!strcmp(what, "max_ops")     ? "GPU ops" :
			!strcmp(what, "max_streams") ? "streams" :
						       "records");
	return GS_ERR_LIMIT;
}

static gs_status count_record(struct gs_limit_sink *ls)
{
	if (++ls->records > ls->lim.max_records)
		return over(ls, "max_records", ls->lim.max_records);
	return GS_OK;
}

static gs_status limit_intern(struct gs_sink *s, const char *str, size_t len, uint32_t *id)
{
	struct gs_limit_sink *ls = of(s);

	if (len > ls->lim.max_string_bytes) {
		gs_error_append("%s%sa string of %zu bytes, longer than max_string_bytes (%" PRIu64
				")",
				ls->name ? ls->name : "", ls->name ? ": " : "", len,
				ls->lim.max_string_bytes);
		return GS_ERR_LIMIT;
	}
	return ls->next->intern(ls->next, str, len, id);
}

static gs_status limit_stream(struct gs_sink *s, const struct gs_stream *st, uint32_t *index)
{
	struct gs_limit_sink *ls = of(s);
	uint32_t idx = GS_NO_INDEX;
	gs_status rc = ls->next->stream(ls->next, st, &idx);

	if (index)
		*index = idx;
	if (rc)
		return rc;
	/* Indices are dense: the largest one counts the distinct streams. */
	if (idx != GS_NO_INDEX && (uint64_t)idx + 1 > ls->streams)
		ls->streams = (uint64_t)idx + 1;
	if (ls->streams > ls->lim.max_streams)
		return over(ls, "max_streams", ls->lim.max_streams);
	return GS_OK;
}

static gs_status limit_process(struct gs_sink *s, const struct gs_process *p)
{
	return of(s)->next->process(of(s)->next, p);
}

static gs_status limit_device(struct gs_sink *s, const struct gs_device *d)
{
	return of(s)->next->device(of(s)->next, d);
}

static gs_status limit_op(struct gs_sink *s, const struct gs_op *op,
			  const struct gs_launch_cfg *launch)
{
	struct gs_limit_sink *ls = of(s);
	gs_status rc;

	if (++ls->ops > ls->lim.max_ops)
		return over(ls, "max_ops", ls->lim.max_ops);
	rc = count_record(ls);
	return rc ? rc : ls->next->op(ls->next, op, launch);
}

#define FORWARD_RECORD(fn, type, cb)                                                               \
	static gs_status fn(struct gs_sink *s, const type *r)                                      \
	{                                                                                          \
		struct gs_limit_sink *ls = of(s);                                                  \
		gs_status rc = count_record(ls);                                                   \
                                                                                                   \
		return rc ? rc : ls->next->cb(ls->next, r);                                        \
	}

FORWARD_RECORD(limit_api_call, struct gs_api_call, api_call)
FORWARD_RECORD(limit_sync, struct gs_sync, sync)
FORWARD_RECORD(limit_event_record, struct gs_event_record, event_record)
FORWARD_RECORD(limit_op_alloc, struct gs_op_alloc, op_alloc)
FORWARD_RECORD(limit_overhead, struct gs_overhead, overhead)
FORWARD_RECORD(limit_clock_pair, struct gs_clock_pair, clock_pair)
#undef FORWARD_RECORD

static gs_status limit_range(struct gs_sink *s, const struct gs_range *r)
{
	struct gs_limit_sink *ls = of(s);
	gs_status rc = count_record(ls);

	if (rc)
		return rc;
	if (ls->annotations_only && r->kind != GS_RANGE_USER_ANNOTATION &&
	    r->kind != GS_RANGE_NVTX && r->kind != GS_RANGE_GPU_ANNOTATION)
		return GS_OK;
	return ls->next->range(ls->next, r);
}

static gs_status limit_allocation(struct gs_sink *s, const struct gs_allocation *a, uint32_t *index)
{
	struct gs_limit_sink *ls = of(s);
	gs_status rc = count_record(ls);

	return rc ? rc : ls->next->allocation(ls->next, a, index);
}

static gs_status limit_collective(struct gs_sink *s, const struct gs_collective *c, uint32_t *index)
{
	struct gs_limit_sink *ls = of(s);
	gs_status rc = count_record(ls);

	return rc ? rc : ls->next->collective(ls->next, c, index);
}

static gs_status limit_dropped(struct gs_sink *s, int64_t pid, uint64_t count)
{
	return of(s)->next->dropped(of(s)->next, pid, count);
}

static gs_status limit_warning(struct gs_sink *s, const char *msg, uint64_t count, unsigned kind)
{
	struct gs_limit_sink *ls = of(s);
	char named[GS_ERROR_MSG_MAX];

	if (ls->warn_name && !strstr(msg, ls->warn_name)) {
		snprintf(named, sizeof(named), "%s: %s", ls->warn_name, msg);
		msg = named;
	}
	return ls->next->warning(ls->next, msg, count, kind);
}

void gs_limit_sink_init(struct gs_limit_sink *ls, struct gs_sink *next, const char *name,
			const struct gs_import_limits *lim)
{
	memset(ls, 0, sizeof(*ls));
	ls->next = next;
	ls->name = name;
	gs_import_limits_resolve(&ls->lim, lim);
	/* A callback the next sink lacks stays NULL: that record kind is ignored. */
	ls->sink.intern = next->intern ? limit_intern : NULL;
	ls->sink.stream = next->stream ? limit_stream : NULL;
	ls->sink.process = next->process ? limit_process : NULL;
	ls->sink.device = next->device ? limit_device : NULL;
	ls->sink.op = next->op ? limit_op : NULL;
	ls->sink.collective = next->collective ? limit_collective : NULL;
	ls->sink.api_call = next->api_call ? limit_api_call : NULL;
	ls->sink.sync = next->sync ? limit_sync : NULL;
	ls->sink.event_record = next->event_record ? limit_event_record : NULL;
	ls->sink.allocation = next->allocation ? limit_allocation : NULL;
	ls->sink.op_alloc = next->op_alloc ? limit_op_alloc : NULL;
	ls->sink.range = next->range ? limit_range : NULL;
	ls->sink.overhead = next->overhead ? limit_overhead : NULL;
	ls->sink.clock_pair = next->clock_pair ? limit_clock_pair : NULL;
	ls->sink.dropped = next->dropped ? limit_dropped : NULL;
	ls->sink.warning = next->warning ? limit_warning : NULL;
}
