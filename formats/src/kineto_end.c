/* SPDX-License-Identifier: MIT */
/*
 * Kineto importer (kineto.c): the counted warnings, and the end of the
 * import: held-back records, devices, processes, the warnings' text.
 */
#include "kineto_priv.h"

#include <gpuscope/sort.h>
#include <gpuscope/text.h>

#include <cJSON.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each warning reads "<verb> <count> <what>". */
static const struct {
	const char *verb, *what;
	bool where; /* append the offset of the first one */
} kin_warn_text[KW_COUNT] = {
	[KW_NOT_NUMBER] = {"dropped", "events whose ts or dur is not a number", true},
	[KW_NO_TIME] = {"dropped", "complete events without ts or dur", true},
	[KW_NEG_DUR] = {"dropped", "events with a negative duration", true},
	[KW_HUGE_DUR] = {"dropped", "events with a duration over 7 days", true},
	[KW_TIME_RANGE] = {"dropped", "events whose time does not fit in 64-bit nanoseconds", true},
	[KW_MALFORMED] = {"skipped", "events that are not valid JSON", true},
	[KW_NOT_OBJECT] = {"skipped", "elements of traceEvents that are not objects", true},
	[KW_NO_PHASE] = {"skipped", "events without a phase (\"ph\")", true},
	[KW_STRING_PID] = {"skipped", "host events whose pid is not a number", true},
	[KW_NO_STREAM] = {"dropped", "GPU events without a device or stream", true},
	[KW_NONFINITE] = {"read NaN or Infinity as null in the args of", "events", true},
	[KW_PROCESSES] = {"did not list the processes of",
			  "host events beyond the first 4096 processes", false},
	[KW_BAD_DEVICE] = {"dropped", "GPU events whose args.device is not a device number", true},
	[KW_BAD_IN_DEVICE] = {"dropped", "GPU events whose args.inDevice is not a device number",
			      true},
	[KW_BAD_PID_DEVICE] = {"dropped", "GPU events whose pid is not a device number", true},
	[KW_BAD_STREAM] = {"dropped", "GPU events whose args.stream is not a stream number", true},
	[KW_BAD_WAIT_STREAM] = {"dropped",
				"GPU events whose args.wait_on_stream is not a stream number",
				true},
	[KW_BAD_TID_STREAM] = {"dropped", "GPU events whose tid is not a stream number", true},
};
void kin_warn(struct kin *k, enum kin_warn w)
{
	if (k->warn[w]++ == 0)
		k->warn_at[w] = k->ev_off;
}

/* A counted warning that also shows the first offending value. */
void kin_warn_value(struct kin *k, enum kin_warn w, const char *text, size_t n)
{
	size_t o = 0;

	if (k->warn[w] == 0) {
		if (n > KIN_BAD_VALUE_MAX - 4) {
			n = KIN_BAD_VALUE_MAX - 4;
			memcpy(k->warn_value[w] + n, "...", 4);
		} else {
			k->warn_value[w][n] = '\0';
		}
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)text[i];

			k->warn_value[w][o++] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
		}
	}
	kin_warn(k, w);
}

void kin_warn_named(struct kin *k, enum kin_named_kind kind, const char *s, size_t n)
{
	uint32_t i;

	if (n >= KIN_NAMED_KEY)
		n = KIN_NAMED_KEY - 1;
	for (i = 0; i < k->nnamed; i++) {
		struct kin_named *e = &k->named[i];

		if (e->kind == kind && strlen(e->key) == n && memcmp(e->key, s, n) == 0) {
			e->count++;
			return;
		}
	}
	if (k->nnamed == KIN_NAMED_MAX) {
		k->named_other++;
		return;
	}
	memcpy(k->named[k->nnamed].key, s, n);
	k->named[k->nnamed].key[n] = '\0';
	k->named[k->nnamed].kind = (uint8_t)kind;
	k->named[k->nnamed].count = 1;
	k->nnamed++;
}

/* ------------------------------------------------------------------------ */
/* The end: held-back records, devices, processes, warnings                 */
/* ------------------------------------------------------------------------ */

KIN_DEFINE_EMIT(device, struct gs_device)
KIN_DEFINE_EMIT(process, struct gs_process)

static bool kin_dev_known(const struct kin *k, uint32_t id)
{
	for (size_t i = 0; i < k->ndevs; i++)
		if (k->devs[i] == id)
			return true;
	return false;
}

gs_status kin_finish(struct kin *k)
{
	gs_status rc;
	char msg[256];

	k->ev_off = kin_here(&k->sc);
	while (k->pend.count) {
		rc = kin_pend_pop(k);
		if (rc)
			return rc;
	}
	/* Devices that ops use but deviceProperties did not describe. */
	for (uint32_t i = 0; i < k->stream_slots; i++) {
		const struct kin_stream_ent *e = &k->streams[i];
		struct gs_device dev = {.name = GS_NO_STRING, .uuid = GS_NO_STRING};
		uint32_t *nd;

		if (!e->used || kin_dev_known(k, e->device))
			continue;
		dev.id = e->device;
		if (k->ndevs == k->devs_cap) {
			size_t nc = k->devs_cap ? k->devs_cap * 2 : 16;

			nd = realloc(k->devs, nc * sizeof(*nd));
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
	/* gpuscope's job export: each rank's process as gpuscope_job says. */
	for (uint32_t i = 0; i < k->n_job; i++) {
		rc = kin_emit_process(k, &k->job[i].proc);
		if (rc)
			return rc;
	}
	for (uint32_t i = 0; i < KIN_PROC_SLOTS; i++) {
		const struct kin_proc *p = &k->procs[i];
		struct gs_process proc = {0};
		bool host;

		if (!p->used || (k->n_job && kin_job_pid(k, p->pid)))
			continue;
		host = (p->flags & (KPF_API | KPF_LABEL_CPU)) ||
		       ((p->flags & KPF_HOST_EVENTS) && !(p->flags & KPF_LABEL_GPU));
		if (!host)
			continue;
		proc.pid = p->pid;
		proc.command_line = p->name;
		proc.host_name = k->host_name;
		proc.driver_version = k->driver_version;
		proc.runtime_version = k->runtime_version;
		proc.cupti_version = k->cupti_version;
		proc.has_rank = k->has_rank;
		proc.rank = k->rank;
		proc.world_size = k->world_size;
		proc.has_backend = k->has_backend;
		proc.backend = k->backend;
		if (k->gs_clock) {
			proc.clock = k->gs_clock;
			proc.wall_offset_ns = k->has_base ? k->base_ns : 0;
		} else if (k->has_base) {
			proc.clock = GS_CLOCK_KINETO_BASE;
			proc.wall_offset_ns = k->base_ns;
		} else if (k->has_first_op && k->first_op_ns >= GS_EPOCH_PLAUSIBLE_NS) {
			proc.clock = GS_CLOCK_EPOCH;
		}
		rc = kin_emit_process(k, &proc);
		if (rc)
			return rc;
	}
	if (!k->sink->warning)
		return GS_OK;
	if (k->job_ignored[0]) {
		snprintf(msg, sizeof(msg),
			 "ignored gpuscope's job marker (gpuscope_job: %s): the ranks are read "
			 "as one process",
			 k->job_ignored);
		rc = k->sink->warning(k->sink, msg, 1, GS_WARNING_OTHER);
		if (rc)
			return kin_sink_failed(k, rc);
	}
	for (int w = 0; w < KW_COUNT; w++) {
		if (!k->warn[w])
			continue;
		if (kin_warn_text[w].where && k->warn_value[w][0])
			snprintf(msg, sizeof(msg), "%s %llu %s (%s, first at byte %llu)",
				 kin_warn_text[w].verb, (unsigned long long)k->warn[w],
				 kin_warn_text[w].what, k->warn_value[w],
				 (unsigned long long)k->warn_at[w]);
		else if (kin_warn_text[w].where)
			snprintf(msg, sizeof(msg), "%s %llu %s (first at byte %llu)",
				 kin_warn_text[w].verb, (unsigned long long)k->warn[w],
				 kin_warn_text[w].what, (unsigned long long)k->warn_at[w]);
		else
			snprintf(msg, sizeof(msg), "%s %llu %s", kin_warn_text[w].verb,
				 (unsigned long long)k->warn[w], kin_warn_text[w].what);
		rc = k->sink->warning(k->sink, msg, k->warn[w], GS_WARNING_OTHER);
		if (rc)
			return kin_sink_failed(k, rc);
	}
	for (uint32_t i = 0; i < k->nnamed; i++) {
		const struct kin_named *e = &k->named[i];

		if (e->kind == KN_PHASE)
			snprintf(msg, sizeof(msg), "skipped %llu events of unsupported phase '%s'",
				 (unsigned long long)e->count, e->key);
		else if (e->key[0])
			snprintf(msg, sizeof(msg), "skipped %llu events of unknown category '%s'",
				 (unsigned long long)e->count, e->key);
		else
			snprintf(msg, sizeof(msg),
				 "skipped %llu complete events without a category",
				 (unsigned long long)e->count);
		rc = k->sink->warning(k->sink, msg, e->count, GS_WARNING_OTHER);
		if (rc)
			return kin_sink_failed(k, rc);
	}
	if (k->named_other) {
		snprintf(msg, sizeof(msg), "skipped %llu events of other unknown categories",
			 (unsigned long long)k->named_other);
		rc = k->sink->warning(k->sink, msg, k->named_other, GS_WARNING_OTHER);
		if (rc)
			return kin_sink_failed(k, rc);
	}
	if (k->wait_calls && !k->sync_events) {
		snprintf(msg, sizeof(msg),
			 "%llu cudaStreamWaitEvent calls but no cuda_sync events: waits between "
			 "streams cannot be linked",
			 (unsigned long long)k->wait_calls);
		rc = k->sink->warning(k->sink, msg, k->wait_calls, GS_WARNING_UNLINKED_WAIT_CALLS);
		if (rc)
			return kin_sink_failed(k, rc);
	}
	return GS_OK;
}
