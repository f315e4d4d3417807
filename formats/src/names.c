/* SPDX-License-Identifier: MIT */
/* Stable names for the model's enums, used in text and JSON output. */
#include <gpuscope/names.h>
#include <gpuscope/text.h>

#define NAME_OF(table, i) ((i) < sizeof(table) / sizeof((table)[0]) ? (table)[i] : "unknown")

const char *gs_op_kind_name(unsigned kind)
{
	static const char *const n[] = {"kernel", "memcpy", "memset"};
	return NAME_OF(n, kind);
}

const char *gs_copy_kind_name(unsigned kind)
{
	static const char *const n[] = {"unknown", "HtoD", "DtoH", "DtoD", "HtoH", "PtoP"};
	return NAME_OF(n, kind);
}

const char *gs_mem_kind_name(unsigned kind)
{
	static const char *const n[] = {"unknown", "pageable", "pinned",
					"device",  "managed",  "array"};
	return NAME_OF(n, kind);
}

const char *gs_stream_kind_name(unsigned kind)
{
	static const char *const n[] = {"unknown", "legacy_default", "per_thread_default",
					"blocking", "non_blocking"};
	return NAME_OF(n, kind);
}

const char *gs_sync_kind_name(unsigned kind)
{
	static const char *const n[] = {"unknown", "event_sync", "stream_wait", "stream_sync",
					"context_sync"};
	return NAME_OF(n, kind);
}

const char *gs_clock_source_name(unsigned source)
{
	static const char *const n[] = {"none", "epoch", "kineto_base", "nsys_session",
					"collector"};
	return NAME_OF(n, source);
}

const char *gs_clock_source_text(unsigned source)
{
	static const char *const n[] = {
		"not known (the trace's own times)",
		"epoch timestamps (Kineto ts in Unix-epoch us)",
		"Kineto baseTimeNanoseconds",
		"Nsight TARGET_INFO_SESSION_START_TIME",
		"the collector's real-time clock reading",
	};
	return NAME_OF(n, source);
}

const char *gs_range_kind_name(unsigned kind)
{
	static const char *const n[] = {"nvtx",   "cpu_op", "user_annotation",
					"python", "other",  "gpu_user_annotation"};
	return NAME_OF(n, kind);
}

const char *gs_api_kind_name(unsigned kind)
{
	static const char *const n[] = {"runtime", "driver"};
	return NAME_OF(n, kind);
}

bool gs_api_name_is_async(const char *name, size_t n)
{
	return gs_has_sub(name, n, "Async");
}

bool gs_api_name_is_graph_launch(const char *name, size_t n)
{
	return gs_has_sub(name, n, "GraphLaunch");
}
