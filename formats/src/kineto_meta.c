/* SPDX-License-Identifier: MIT */
/*
 * Kineto importer (kineto.c): the top-level values other than traceEvents:
 * deviceProperties, host_name, the driver/runtime/CUPTI versions,
 * distributedInfo, baseTimeNanoseconds, and gpuscope's job marker.
 */
#include "kineto_priv.h"

#include <gpuscope/names.h>
#include <gpuscope/sort.h>
#include <gpuscope/text.h>

#include <cJSON.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Top-level values other than traceEvents                                  */
/* ------------------------------------------------------------------------ */

KIN_DEFINE_EMIT(device, struct gs_device)

static gs_status kin_devices(struct kin *k, const cJSON *arr)
{
	const cJSON *d;

	if (!cJSON_IsArray(arr))
		return GS_OK;
	cJSON_ArrayForEach(d, arr)
	{
		struct gs_device dev = {
			.name = GS_NO_STRING,
			.uuid = GS_NO_STRING,
		};
		const char *s;
		gs_status rc;

		if (!cJSON_IsObject(d) || !kin_get_u32(d, "id", &dev.id))
			continue;
		s = kin_get_str(d, "name");
		if (s && (rc = kin_intern_str(k, s, &dev.name)))
			return rc;
		s = kin_get_str(d, "uuid");
		if (s && (rc = kin_intern_str(k, s, &dev.uuid)))
			return rc;
		kin_get_u32(d, "numSms", &dev.sm_count);
		kin_get_u32(d, "computeMajor", &dev.cc_major);
		kin_get_u32(d, "computeMinor", &dev.cc_minor);
		kin_get_u64(d, "totalGlobalMem", &dev.memory_bytes);
		if (!kin_get_u32(d, "numMemcpyEngines", &dev.copy_engines))
			kin_get_u32(d, "asyncEngineCount", &dev.copy_engines);
		if (k->ndevs == k->devs_cap) {
			size_t nc = k->devs_cap ? k->devs_cap * 2 : 16;
			uint32_t *nd = realloc(k->devs, nc * sizeof(*nd));

			if (!nd)
				return gs_nomem();
			k->devs = nd;
			k->devs_cap = nc;
		}
		k->devs[k->ndevs++] = dev.id;
		rc = kin_emit_device(k, &dev);
		if (rc)
			return rc;
	}
	return GS_OK;
}

/* A version number or string, kept as text ("12090"). */
static gs_status kin_version(struct kin *k, const cJSON *v, uint32_t *id)
{
	char tmp[32];

	if (cJSON_IsString(v) && v->valuestring)
		return kin_intern_str(k, v->valuestring, id);
	if (!cJSON_IsNumber(v))
		return GS_OK;
	/* The cast only in range: a huge or NaN version is printed with %g. */
	if (v->valuedouble > -9e15 && v->valuedouble < 9e15 &&
	    v->valuedouble == (double)(long long)v->valuedouble)
		snprintf(tmp, sizeof(tmp), "%lld", (long long)v->valuedouble);
	else
		snprintf(tmp, sizeof(tmp), "%g", v->valuedouble);
	return kin_intern_str(k, tmp, id);
}

enum kin_top kin_top_key(const char *s, size_t n)
{
	static const struct {
		const char *key;
		enum kin_top top;
	} keys[] = {
		{"traceEvents", KT_TOP_EVENTS},
		{"deviceProperties", KT_TOP_DEVICES},
		{"host_name", KT_TOP_HOST},
		{"cuda_driver_version", KT_TOP_DRIVER},
		{"cuda_runtime_version", KT_TOP_RUNTIME},
		{"cupti_version", KT_TOP_CUPTI},
		{"hip_driver_version", KT_TOP_HIP_DRIVER},
		{"hip_runtime_version", KT_TOP_HIP_RUNTIME},
		{"distributedInfo", KT_TOP_DISTRIBUTED},
		{"baseTimeNanoseconds", KT_TOP_BASE_TIME},
		{"gpuscope_clock", KT_TOP_GS_CLOCK},
		{"gpuscope_job", KT_TOP_GS_JOB},
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strlen(keys[i].key) == n && memcmp(keys[i].key, s, n) == 0)
			return keys[i].top;
	return KT_TOP_OTHER;
}

/* An integer written as JSON text (no fraction, no exponent), exactly;
 * false when it is not one or is out of the model's time range. */
static bool kin_int_text(const char *p, size_t n, int64_t *v)
{
	size_t i = 0;
	bool neg = false;
	uint64_t x = 0;

	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	if (i < n && p[i] == '-') {
		neg = true;
		i++;
	}
	if (i >= n || p[i] < '0' || p[i] > '9')
		return false;
	for (; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
		x = x * 10 + (uint64_t)(p[i] - '0');
		if (x >= (uint64_t)GS_TIME_LIMIT_NS)
			return false;
	}
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	if (i != n)
		return false;
	*v = neg ? -(int64_t)x : (int64_t)x;
	return true;
}

/* The ranks of a job export at most, and its largest pid (a marker past
 * either is ignored). */
#define KIN_JOB_MAX_RANKS (1u << 20)
#define KIN_JOB_MAX_PID (1LL << 62)

static gs_status kin_job_ignore(struct kin *k, const char *why)
{
	free(k->job);
	k->job = NULL;
	k->n_job = 0;
	if (!k->job_ignored[0])
		snprintf(k->job_ignored, sizeof(k->job_ignored), "%s", why);
	return GS_OK;
}

/* Whether `pid` is in the open-addressed set `set` (cap slots, a power of
 * two; used[] marks the slots in use); adds it when `add`. */
static bool pid_set(int64_t *set, uint8_t *used, size_t cap, int64_t pid, bool add)
{
	size_t h = (size_t)(((uint64_t)pid * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);

	for (; used[h]; h = (h + 1) & (cap - 1))
		if (set[h] == pid)
			return true;
	if (add) {
		used[h] = 1;
		set[h] = pid;
	}
	return false;
}

/*
 * The pid each rank is read back under: the pid it recorded, unless an
 * earlier rank (in marker order) recorded it too (ranks of two hosts) or
 * it is unknown (-1); then pid + k * 2^32 (0 + k * 2^32 when unknown),
 * k = 1, 2, ... over the ranks that share it (the next k free, should a
 * rank have recorded that one: a file read back and exported again), so
 * that every rank is a process of its own (formats/src/job.c splits a
 * trace by pid).
 */
static gs_status kin_job_pids(struct kin *k)
{
	size_t n = k->n_job, cap = 16, i, first = 0;
	int64_t(*o)[2] = malloc(n * sizeof(*o));
	int64_t *kth = malloc(n * sizeof(*kth)), *set;
	uint8_t *used;
	gs_status rc = GS_OK;

	while (cap < 2 * n)
		cap <<= 1;
	set = malloc(cap * sizeof(*set));
	used = calloc(cap, 1);
	k->job_pids = malloc(n * sizeof(*k->job_pids));
	if (!o || !kth || !set || !used || !k->job_pids) {
		rc = gs_nomem();
		goto out;
	}
	for (i = 0; i < n; i++) {
		o[i][0] = k->job[i].pid;
		o[i][1] = (int64_t)i;
	}
	/* Each rank's place among those that recorded its pid (o is built in
	 * index order: a stable sort by pid keeps it within a pid). */
	gs_sort_by_i64(o, n, sizeof(*o));
	for (i = 0; i < n; i++) {
		if (i && o[i][0] != o[i - 1][0])
			first = i;
		kth[o[i][1]] = (int64_t)(i - first) + (o[i][0] < 0);
	}
	for (i = 0; i < n; i++) {
		int64_t rec = k->job[i].pid, pid = (rec >= 0 ? rec : 0) + kth[i] * (1LL << 32);

		while (pid_set(set, used, cap, pid, false))
			pid += 1LL << 32;
		pid_set(set, used, cap, pid, true);
		k->job[i].pid = pid;
		k->job[i].proc.pid = pid;
		k->job_pids[i] = pid;
	}
	gs_sort_by_i64(k->job_pids, n, sizeof(*k->job_pids));
out:
	free(o);
	free(kth);
	free(set);
	free(used);
	return rc;
}

/* A string member interned into *id (left as it is when absent). */
static gs_status kin_job_str(struct kin *k, const cJSON *o, const char *key, uint32_t *id)
{
	const char *v = kin_get_str(o, key);

	return v ? kin_intern_str(k, v, id) : GS_OK;
}

/*
 * gpuscope_job (formats/src/chrome.c, write_job_marker): the ranks of
 * gpuscope's job export. Read only before traceEvents (where the exporter
 * writes it); a marker that is not well formed is ignored with a warning
 * (the file is then read as one process, as any Kineto file).
 */
static gs_status kin_job_marker(struct kin *k, const cJSON *v)
{
	const cJSON *ranks, *it;
	int64_t ver, stride;
	uint32_t n, i = 0;
	gs_status rc;

	if (k->saw_events)
		return kin_job_ignore(k, "it follows traceEvents");
	if (k->n_job)
		return kin_job_ignore(k, "given twice");
	if (!kin_get_int(v, "version", &ver) || ver != 1)
		return kin_job_ignore(k, "not version 1");
	if (!kin_get_int(v, "pid_stride", &stride) || stride < 1 || stride > INT32_MAX)
		return kin_job_ignore(k, "no pid_stride");
	ranks = cJSON_GetObjectItemCaseSensitive(v, "ranks");
	n = cJSON_IsArray(ranks) ? (uint32_t)cJSON_GetArraySize(ranks) : 0;
	if (!n || n > KIN_JOB_MAX_RANKS)
		return kin_job_ignore(k, "no ranks, or too many");
	k->job = calloc(n, sizeof(*k->job));
	if (!k->job)
		return gs_nomem();
	k->job_stride = stride;
	cJSON_ArrayForEach(it, ranks)
	{
		struct kin_jrank *j = &k->job[i];
		struct gs_process *p = &j->proc;
		const char *clock = kin_get_str(it, "clock");
		int64_t rank, base, x = 0;

		if (!cJSON_IsObject(it) || !kin_get_int(it, "rank", &rank) || rank < 0 ||
		    rank > UINT32_MAX || !kin_get_int(it, "pid_base", &base) || base < 0 ||
		    base > INT32_MAX)
			return kin_job_ignore(k, "a rank without its number or pids");
		if (i && base - k->job[i - 1].pid_base < stride)
			return kin_job_ignore(k, "ranks whose pids are not apart, in order");
		j->pid_base = base;
		if (!kin_get_int(it, "pid", &j->pid) || j->pid < 0)
			j->pid = -1;
		if (j->pid > KIN_JOB_MAX_PID)
			return kin_job_ignore(k, "a pid past 2^62");
		*p = (struct gs_process){
			.host_name = GS_NO_STRING,
			.command_line = GS_NO_STRING,
			.driver_version = GS_NO_STRING,
			.runtime_version = GS_NO_STRING,
			.cupti_version = GS_NO_STRING,
			.backend = GS_NO_STRING,
			.has_rank = true,
			.rank = (uint32_t)rank,
		};
		if ((rc = kin_job_str(k, it, "host", &p->host_name)) ||
		    (rc = kin_job_str(k, it, "command_line", &p->command_line)) ||
		    (rc = kin_job_str(k, it, "cuda_driver_version", &p->driver_version)) ||
		    (rc = kin_job_str(k, it, "cuda_runtime_version", &p->runtime_version)) ||
		    (rc = kin_job_str(k, it, "cupti_version", &p->cupti_version)) ||
		    (rc = kin_job_str(k, it, "backend", &p->backend)))
			return rc;
		p->has_backend = p->backend != GS_NO_STRING;
		/* As recorded: a rank of a job made of several runs' traces may
		 * be numbered past its own run's world size. */
		if (!kin_get_u32(it, "world_size", &p->world_size))
			p->world_size = 0;
		if (!kin_get_u32(it, "capture", &p->capture))
			p->capture = 0;
		for (unsigned c = 1; clock && c < GS_CLOCK_SOURCE_COUNT; c++)
			if (!strcmp(clock, gs_clock_source_name(c)))
				p->clock = (uint8_t)c;
		if (p->clock && (!kin_get_int(it, "wall_offset_ns", &x) || x <= -GS_TIME_LIMIT_NS ||
				 x >= GS_TIME_LIMIT_NS))
			return kin_job_ignore(k, "a clock without its offset");
		p->wall_offset_ns = p->clock ? x : 0;
		if (kin_get_int(it, "time_shift_ns", &x)) {
			if (x <= -GS_TIME_LIMIT_NS || x >= GS_TIME_LIMIT_NS)
				return kin_job_ignore(k, "a time shift out of range");
			j->shift = x;
		}
		if (!kin_get_u64(it, "id_offset", &j->id_offset))
			j->id_offset = 0;
		if (kin_get_int(it, "start_ns", &x) && x > -GS_TIME_LIMIT_NS &&
		    x < GS_TIME_LIMIT_NS)
			p->start_ns = x;
		kin_get_u64(it, "dropped_records", &p->dropped_records);
		i++;
	}
	k->n_job = n;
	return kin_job_pids(k);
}

gs_status kin_top_value(struct kin *k, enum kin_top top, const char *p, size_t n)
{
	cJSON *v;
	gs_status rc = GS_OK;

	/* baseTimeNanoseconds (about 1.7e18) needs every digit: read from the
	 * text; a value that is not a whole number in range is ignored. */
	if (top == KT_TOP_BASE_TIME) {
		k->has_base = kin_int_text(p, n, &k->base_ns);
		return GS_OK;
	}
	v = cJSON_ParseWithLength(p, n);
	if (!v)
		return kin_format_error(&k->sc, k->ev_off, "a top-level value is not valid JSON");
	switch (top) {
	case KT_TOP_DEVICES:
		rc = kin_devices(k, v);
		break;
	case KT_TOP_HOST:
		if (cJSON_IsString(v) && v->valuestring)
			rc = kin_intern_str(k, v->valuestring, &k->host_name);
		break;
	case KT_TOP_DRIVER:
		rc = kin_version(k, v, &k->driver_version);
		break;
	case KT_TOP_RUNTIME:
		rc = kin_version(k, v, &k->runtime_version);
		break;
	case KT_TOP_CUPTI:
		rc = kin_version(k, v, &k->cupti_version);
		break;
	case KT_TOP_HIP_DRIVER:
		if (k->driver_version == GS_NO_STRING)
			rc = kin_version(k, v, &k->driver_version);
		break;
	case KT_TOP_HIP_RUNTIME:
		if (k->runtime_version == GS_NO_STRING)
			rc = kin_version(k, v, &k->runtime_version);
		break;
	case KT_TOP_GS_CLOCK:
		/* gpuscope's export says where its base came from. */
		for (unsigned c = 1;
		     cJSON_IsString(v) && v->valuestring && c < GS_CLOCK_SOURCE_COUNT; c++)
			if (!strcmp(v->valuestring, gs_clock_source_name(c)))
				k->gs_clock = (uint8_t)c;
		break;
	case KT_TOP_GS_JOB:
		rc = kin_job_marker(k, v);
		break;
	case KT_TOP_DISTRIBUTED:
		k->has_rank = kin_get_u32(v, "rank", &k->rank);
		if (!k->has_rank || !kin_get_u32(v, "world_size", &k->world_size) ||
		    k->world_size <= k->rank)
			k->world_size = 0;
		{
			const char *b = kin_get_str(v, "backend");

			if (b && *b && !(rc = kin_intern_str(k, b, &k->backend)))
				k->has_backend = true;
		}
		break;
	default:
		break;
	}
	cJSON_Delete(v);
	return rc;
}
