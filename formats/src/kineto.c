/* SPDX-License-Identifier: MIT */
/*
 * Kineto / PyTorch-profiler Chrome-trace JSON importer.
 *
 * Bounded memory: the file is never held whole. A streaming scanner walks
 * the top-level value (an object with "traceEvents", or a bare array of
 * events), cuts out the exact bytes of one event at a time (string- and
 * escape-aware bracket matching, with the depth, event-size and string-size
 * limits of struct gs_import_limits) and hands them to the event code. Other
 * top-level members are either parsed the same way, one value at a time
 * ("deviceProperties", "host_name", versions), or skipped without being kept.
 * The scanner finds an event's members as it cuts it out, and the members
 * of its args; args are read from those when cJSON would read them the
 * same (plain strings, numbers, literals, arrays of numbers), else parsed
 * with cJSON_ParseWithLength. The fields whose exact text matters (ts, dur,
 * pid, tid) are read from their text. The JSON scanner (byte window, event
 * and value scan, member scanner, number and string readers) is
 * kineto_scan.c; this file walks the document and maps events, with
 * kineto_emit.c (rings, ids, emitting), kineto_args.c (args, categories),
 * kineto_meta.c (top-level values) and kineto_end.c (warnings, the end);
 * kineto_priv.h holds what they share.
 *
 * Times: ts and dur are µs, integer or decimal, read from their text to
 * exact integer ns (1707417525512145.123 -> 1707417525512145123); digits
 * below 1 ns round to nearest, exponents are honoured. An event whose ts or
 * dur is not a number, whose dur is negative or over GS_MAX_DURATION_NS, or
 * whose end does not fit in int64 ns is dropped and counted. Times are kept
 * as written: baseTimeNanoseconds is not added (it may follow the events);
 * it becomes each process's wall clock (GS_CLOCK_KINETO_BASE, the offset
 * from ts to Unix-epoch ns, read from its text to the digit). Without it,
 * a trace whose first op starts at GS_EPOCH_PLAUSIBLE_NS or later writes
 * epoch times (older profilers: GS_CLOCK_EPOCH); else the clock is not
 * known (GS_CLOCK_NONE).
 *
 * Categories (ph "X"), old and new spellings:
 *   kernel/Kernel, gpu_memcpy/Memcpy, gpu_memset/Memset -> gs_op
 *   cuda_runtime/Runtime -> gs_api_call GS_API_RUNTIME (ROCm's hip* calls too)
 *   cuda_driver -> gs_api_call GS_API_DRIVER
 *   cuda_sync -> gs_sync (cuda_sync_kind: Event Sync, Stream Wait Event,
 *                Stream Sync, Context Sync / Device Sync)
 *   cpu_op/Operator, user_annotation, python_function -> gs_range
 *   overhead -> gs_overhead
 *   gpu_user_annotation -> gs_range GS_RANGE_GPU_ANNOTATION on its stream
 *   (device and stream found as for GPU ops; the context of a stream already
 *   seen with that device and stream id, else args.context, else 0): a
 *   label over GPU time, never an op.
 *   Trace, cpu_instant_event: understood and skipped.
 *   Anything else: skipped, one warning per distinct category with a count.
 * Phases: s/f/t flows and i/I/n instants are skipped (flows are not needed:
 * args.correlation links a launch to its op); M process_name and
 * process_labels are read; other phases are skipped with a warning.
 *
 * GPU events: device = args.device (args.inDevice for peer copies, else the
 * event pid), context = args.context (else 0), stream = args.stream (else
 * the tid, a number or "stream N"). Streams are declared as (pid 0, device,
 * context, stream): a Kineto file does not say which host process owns a
 * GPU event, so every GPU stream gets pid 0 (in gpuscope's job export, its
 * rank's: below); kind GS_STREAM_UNKNOWN and
 * priority 0 (the file says neither). Copy direction and memory kinds come
 * from the event name ("Memcpy HtoD (Pageable -> Device)"; array copies map
 * to HtoD/DtoH/DtoD with GS_MEM_ARRAY), else from args.kind (ROCm); ROCm's
 * "Host" memory is GS_MEM_UNKNOWN.
 *
 * Joining ops and syncs to their API call (by correlation id): the call may
 * come before or after the op in the file (CUDA traces: after, ROCm: before,
 * and close by). Ops and syncs are held in a FIFO of KIN_PEND_CAP entries
 * until their call is seen or they fall out; the last KIN_RECENT_CAP calls
 * are remembered for ops that follow their call. From the call:
 *   - GS_OPF_GRAPH when the call is a graph launch (name contains
 *     "GraphLaunch": cudaGraphLaunch, cuGraphLaunch, hipGraphLaunch), or
 *     when the kernel's args carry a graph id ("graph id", "graphId");
 *   - GS_OPF_ASYNC on copies and memsets whose call's name contains "Async";
 *   - a sync's host pid and tid (else both -1).
 * Event records: Kineto has none, so each cudaEventRecord / cuEventRecord /
 * hipEventRecord call (and its WithFlags and _ptsz forms) becomes a
 * gs_event_record with the call's correlation and host time, event id 0 and
 * stream GS_NO_INDEX (the call's args do not name the stream); a sync's
 * event_correlation (wait_on_cuda_event_record_corr_id) joins to it.
 *
 * Host processes: a pid is a host process when it has API calls or a
 * process_labels "CPU" (or a list that starts with it: "CPU, rank 3"), or
 * host ranges without a "GPU n" label; pids labelled "GPU n" are devices.
 * Each becomes a gs_process at the end with its process_name as
 * command_line, the top-level host_name and the CUDA (or HIP)
 * driver/runtime and CUPTI versions. Events whose pid is a string
 * ("Spans", "Traces") are skipped. Devices come from deviceProperties; a
 * device that ops use but deviceProperties lacks gets a record with its id
 * only. gs_process.start_ns stays 0: the file does not say when the process
 * started. The top-level distributedInfo gives every host process its rank,
 * world_size and backend.
 *
 * gpuscope's job export (formats/src/chrome.c, gs_export_chrome_job): the
 * top-level "gpuscope_job", before traceEvents, lists the ranks of the file,
 * each owning the pids [pid_base, pid_base + pid_stride). Each rank is read
 * back as a process of its own, so that formats/src/job.c's split by pid
 * makes one rank of each: every GPU stream and host record of its pids under
 * one pid, the one it recorded (when an earlier rank recorded the same pid,
 * ranks of two hosts, or none was known: that pid, or 0, plus k * 2^32, k =
 * 1, 2, ..., the next one free), syncs and GPU annotations without a call
 * under it too; its times less its time_shift_ns; its ids but 0
 * (correlation, event, external) less its id_offset, while launches are
 * joined to ops by the ids as written (unique in the file); and one
 * process record with its rank (declared), world size, backend, host,
 * command line, versions, clock, start and records dropped from the marker
 * (its process metadata events are skipped). A marker that follows
 * traceEvents or is not well formed is ignored, with a warning: the file
 * is then read as one process.
 *
 * Collectives: a kernel whose args carry "Collective name" (PyTorch's NCCL
 * kernels) gets a gs_collective with the process group's name, description
 * and ranks, the group size, the message's element counts and dtype, and
 * the group's collective sequence number ("Seq").
 *
 * Limits: a zero field of struct gs_import_limits means its default. Member
 * names are matched as written (a key spelled with \u escapes is not
 * recognised); string values are unescaped. Errors name the input and the
 * byte offset in the (decompressed) JSON; warnings for skipped or dropped
 * events are counted per kind and reach the sink once each, at the end.
 */
#include "copy_names.h"
#include "gzin.h"
#include "import_priv.h"
#include "kineto_pipe.h"
#include "kineto_priv.h"
#include "kineto_scan.h"

#include <gpuscope/names.h>
#include <gpuscope/sort.h>
#include <gpuscope/text.h>

#include <cJSON.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

KIN_DEFINE_EMIT(api_call, struct gs_api_call)
KIN_DEFINE_EMIT(event_record, struct gs_event_record)
KIN_DEFINE_EMIT(range, struct gs_range)
KIN_DEFINE_EMIT(overhead, struct gs_overhead)

/* ------------------------------------------------------------------------ */
/* Events                                                                   */
/* ------------------------------------------------------------------------ */

static bool has_prefix(const char *s, size_t n, const char *pre)
{
	size_t m = strlen(pre);

	return n >= m && memcmp(s, pre, m) == 0;
}

static gs_status kin_name(struct kin *k, const struct kin_event *ev, uint32_t *id, const char **s,
			  size_t *n)
{
	gs_status rc;

	*s = "";
	*n = 0;
	if (!kin_span_string(&k->sc, &ev->f[EV_NAME], 0, s, n, &rc)) {
		*s = "";
		*n = 0;
		if (rc)
			return rc;
	}
	return kin_intern(k, *s, *n, id);
}

/* A GPU event's pid or tid as an id from lo to hi (see kin_get_id). */
static enum kin_id span_id(struct kin *k, const struct kin_span *s, bool stream_text, int64_t lo,
			   int64_t hi, enum kin_warn w, int64_t *v)
{
	int64_t x;

	if (s->n == 0)
		return KI_ABSENT;
	if ((stream_text ? kin_span_stream_tid(s, &x) : kin_span_int(s, &x)) && x >= lo &&
	    x <= hi) {
		*v = x;
		return KI_OK;
	}
	kin_warn_value(k, w, s->p, s->n);
	return KI_BAD;
}

/*
 * A GPU event's device: args.device, else args.inDevice (peer copies, when
 * in_device), else the pid. The first one present must be a device number.
 */
static enum kin_id kin_gpu_device(struct kin *k, const struct kin_event *ev,
				  const struct kin_args *args, bool in_device, uint32_t *device)
{
	enum kin_id r;
	int64_t v = 0;

	r = kin_get_id(k, args, "device", 0, UINT32_MAX, KW_BAD_DEVICE, &v);
	if (r == KI_ABSENT && in_device)
		r = kin_get_id(k, args, "inDevice", 0, UINT32_MAX, KW_BAD_IN_DEVICE, &v);
	if (r == KI_ABSENT)
		r = span_id(k, &ev->f[EV_PID], false, 0, UINT32_MAX, KW_BAD_PID_DEVICE, &v);
	if (r == KI_OK)
		*device = (uint32_t)v;
	return r;
}

/*
 * A GPU event's stream: args.KEY, else (when tid is not NULL) the tid, a
 * number or "stream N". CUPTI's "no stream" (-1 or (uint32_t)-1) reads as
 * absent; other negative values and values beyond int64 are bad.
 */
static enum kin_id kin_gpu_stream(struct kin *k, const struct kin_args *args, const char *key,
				  enum kin_warn w, const struct kin_span *tid, int64_t *stream)
{
	enum kin_id r;
	int64_t v = 0;

	r = kin_get_id(k, args, key, -1, INT64_MAX, w, &v);
	if (r == KI_ABSENT && tid)
		r = span_id(k, tid, true, -1, INT64_MAX, KW_BAD_TID_STREAM, &v);
	if (r == KI_OK && !kin_valid_stream_id(v))
		r = KI_ABSENT;
	if (r == KI_OK)
		*stream = v;
	return r;
}

/*
 * A GPU event's device and stream (kin_gpu_device, then kin_gpu_stream of
 * args.stream or the tid); false when either is bad (warned by those) or
 * absent (warned here): the event is then left out.
 */
static bool kin_gpu_place(struct kin *k, const struct kin_event *ev, const struct kin_args *args,
			  bool in_device, uint32_t *device, int64_t *stream)
{
	switch (kin_gpu_device(k, ev, args, in_device, device)) {
	case KI_BAD:
		return false;
	case KI_ABSENT:
		kin_warn(k, KW_NO_STREAM);
		return false;
	default:
		break;
	}
	switch (kin_gpu_stream(k, args, "stream", KW_BAD_STREAM, &ev->f[EV_TID], stream)) {
	case KI_BAD:
		return false;
	case KI_ABSENT:
		kin_warn(k, KW_NO_STREAM);
		return false;
	default:
		return true;
	}
}

static gs_status kin_gpu_op(struct kin *k, const struct kin_event *ev, enum kin_cat cat)
{
	struct kin_pend item = {.type = KP_OP};
	struct gs_op *op = &item.u.op;
	struct gs_launch_cfg *lc = &item.launch;
	uint64_t corr = 0; /* as in the file: the key that joins the op to its call */
	int64_t stream = -1;
	uint32_t device = 0, context = 0;
	struct kin_args *args;
	const char *name;
	size_t nlen;
	gs_status rc;
	bool ok;

	rc = kin_parse_args(k, ev, &args, &ok);
	if (rc)
		return rc;
	if (!ok) {
		kin_warn(k, KW_MALFORMED);
		return GS_OK;
	}
	if (!kin_gpu_place(k, ev, args, true, &device, &stream))
		goto out;
	if (!kin_get_u32(args, "context", &context))
		kin_get_u32(args, "inContext", &context);
	op->start_ns = ev->start;
	op->end_ns = ev->end;
	if (!kin_get_u64(args, "correlation", &corr))
		corr = 0;
	op->correlation = kin_id(k, corr);
	rc = kin_name(k, ev, &op->name, &name, &nlen);
	if (!rc)
		rc = kin_stream(k, device, context, (uint64_t)stream, &op->stream);
	if (rc)
		goto out;
	switch (cat) {
	case KC_KERNEL: {
		uint64_t g;

		op->kind = GS_OP_KERNEL;
		kin_get_dim3(args, "grid", lc->grid);
		kin_get_dim3(args, "block", lc->block);
		kin_get_u32(args, "registers per thread", &lc->registers);
		kin_get_u32(args, "shared memory", &lc->shared_mem);
		if (kin_get_u64(args, "graph id", &g) || kin_get_u64(args, "graphId", &g)) {
			lc->graph_id = g;
			if (g)
				op->flags |= GS_OPF_GRAPH;
		}
		if (!kin_get_u64(args, "graph node id", &op->graph_node))
			kin_get_u64(args, "graphNodeId", &op->graph_node);
		if (op->graph_node)
			op->flags |= GS_OPF_GRAPH;
		rc = kin_collective(k, args, &op->collective);
		if (rc)
			goto out;
		break;
	}
	case KC_MEMCPY: {
		uint8_t src = GS_MEM_UNKNOWN, dst = GS_MEM_UNKNOWN;

		op->kind = GS_OP_MEMCPY;
		kin_get_u64(args, "bytes", &op->bytes);
		gs_copy_name_parse(name, nlen, kin_get_str(args, "kind"), &op->copy_kind, &src,
				   &dst);
		op->src_mem = src & 0xf;
		op->dst_mem = dst & 0xf;
		break;
	}
	default:
		op->kind = GS_OP_MEMSET;
		kin_get_u64(args, "bytes", &op->bytes);
		op->dst_mem = gs_memset_name_parse(name, nlen);
		break;
	}
	rc = kin_submit(k, &item, corr);
out:
	kin_args_free(args);
	return rc;
}

static uint32_t kin_sync_kind(const char *s)
{
	if (!s)
		return GS_SYNC_UNKNOWN;
	if (strcmp(s, "Event Sync") == 0)
		return GS_SYNC_EVENT;
	if (strcmp(s, "Stream Wait Event") == 0)
		return GS_SYNC_STREAM_WAIT;
	if (strcmp(s, "Stream Sync") == 0)
		return GS_SYNC_STREAM;
	if (strcmp(s, "Context Sync") == 0 || strcmp(s, "Device Sync") == 0)
		return GS_SYNC_CONTEXT;
	return GS_SYNC_UNKNOWN;
}

static gs_status kin_sync(struct kin *k, const struct kin_event *ev)
{
	struct kin_pend item = {.type = KP_SYNC};
	struct gs_sync *y = &item.u.sync;
	uint32_t device = 0, context = 0;
	uint64_t corr = 0;
	int64_t v, stream = -1, wait = -1;
	struct kin_args *args;
	const char *kind;
	gs_status rc;
	bool ok;

	rc = kin_parse_args(k, ev, &args, &ok);
	if (rc)
		return rc;
	if (!ok) {
		kin_warn(k, KW_MALFORMED);
		return GS_OK;
	}
	k->sync_events++;
	if (kin_gpu_device(k, ev, args, false, &device) == KI_BAD ||
	    kin_gpu_stream(k, args, "stream", KW_BAD_STREAM, NULL, &stream) == KI_BAD ||
	    kin_gpu_stream(k, args, "wait_on_stream", KW_BAD_WAIT_STREAM, NULL, &wait) == KI_BAD)
		goto out;
	kin_get_u32(args, "context", &context);
	y->start_ns = ev->start;
	y->end_ns = ev->end;
	/* Its call says its pid and tid; in a job export its rank does too. */
	y->pid = k->ev_rank != KIN_NONE ? k->job[k->ev_rank].pid : -1;
	y->tid = -1;
	y->device = device;
	y->stream = GS_NO_INDEX;
	y->wait_on_stream = GS_NO_INDEX;
	y->sync_id = GS_NO_SYNC_ID;
	kind = kin_get_str(args, "cuda_sync_kind");
	if (!kind) {
		const char *name;
		size_t n;

		if (kin_span_string(&k->sc, &ev->f[EV_NAME], 0, &name, &n, &rc) &&
		    !memchr(name, 0, n) && n < 64) {
			char tmp[64];

			memcpy(tmp, name, n);
			tmp[n] = '\0';
			y->kind = (uint8_t)kin_sync_kind(tmp);
		} else if (rc) {
			goto out;
		}
	} else {
		y->kind = (uint8_t)kin_sync_kind(kind);
	}
	if (!kin_get_u64(args, "correlation", &corr))
		corr = 0;
	y->correlation = kin_id(k, corr);
	if (kin_get_int(args, "wait_on_cuda_event_record_corr_id", &v) && v > 0)
		y->event_correlation = kin_id(k, (uint64_t)v);
	if (kin_get_int(args, "wait_on_cuda_event_id", &v) && v >= 0)
		y->event_id = kin_id(k, (uint64_t)v);
	if (stream >= 0) {
		rc = kin_stream(k, device, context, (uint64_t)stream, &y->stream);
		if (rc)
			goto out;
	}
	if (wait >= 0) {
		rc = kin_stream(k, device, context, (uint64_t)wait, &y->wait_on_stream);
		if (rc)
			goto out;
	}
	rc = kin_submit(k, &item, corr);
out:
	kin_args_free(args);
	return rc;
}

/* The host pid and tid of an event; false (counted) for string pids. */
static bool kin_host_ids(struct kin *k, const struct kin_event *ev, int64_t *pid, int64_t *tid)
{
	if (!kin_span_int(&ev->f[EV_PID], pid)) {
		kin_warn(k, KW_STRING_PID);
		return false;
	}
	if (!kin_span_int(&ev->f[EV_TID], tid))
		*tid = -1;
	if (k->ev_rank != KIN_NONE)
		*pid = k->job[k->ev_rank].pid;
	return true;
}

static bool is_event_record(const char *s, size_t n)
{
	return has_prefix(s, n, "cudaEventRecord") || has_prefix(s, n, "cuEventRecord") ||
	       has_prefix(s, n, "hipEventRecord");
}

static gs_status kin_api_call(struct kin *k, const struct kin_event *ev, enum kin_cat cat)
{
	struct gs_api_call c = {0};
	struct kin_api a = {0};
	uint64_t corr = 0;
	const char *name;
	size_t n;
	struct kin_args *args;
	gs_status rc;
	bool ok;

	if (!kin_host_ids(k, ev, &c.pid, &c.tid))
		return GS_OK;
	rc = kin_parse_args(k, ev, &args, &ok);
	if (rc)
		return rc;
	if (!ok) {
		kin_warn(k, KW_MALFORMED);
		return GS_OK;
	}
	c.start_ns = ev->start;
	c.end_ns = ev->end;
	c.kind = cat == KC_DRIVER ? GS_API_DRIVER : GS_API_RUNTIME;
	if (!kin_get_u64(args, "correlation", &corr))
		corr = 0;
	c.correlation = kin_id(k, corr);
	kin_get_u32(args, "cbid", &c.cbid);
	kin_args_free(args);
	rc = kin_name(k, ev, &c.name, &name, &n);
	if (rc)
		return rc;
	kin_proc_flag(k, c.pid, KPF_API);
	rc = kin_emit_api_call(k, &c);
	if (rc)
		return rc;
	if (gs_api_name_is_graph_launch(name, n))
		a.flags |= KA_GRAPH;
	if (gs_api_name_is_async(name, n))
		a.flags |= KA_ASYNC;
	if (gs_has_sub(name, n, "StreamWaitEvent"))
		k->wait_calls++;
	if (is_event_record(name, n)) {
		struct gs_event_record e = {
			.time_ns = c.start_ns,
			.correlation = c.correlation,
			.event_id = 0,
			.sync_id = GS_NO_SYNC_ID,
			.stream = GS_NO_INDEX,
		};

		rc = kin_emit_event_record(k, &e);
		if (rc)
			return rc;
	}
	a.pid = c.pid;
	a.tid = c.tid;
	return kin_api_seen(k, corr, &a);
}

static const char *const ext_keys[2] = {"External id", "external id"};

static gs_status kin_range(struct kin *k, const struct kin_event *ev, enum kin_cat cat)
{
	struct gs_range r = {0};
	struct kin_span ext[2];
	const char *name;
	size_t n;
	int64_t v;
	gs_status rc;

	if (!kin_host_ids(k, ev, &r.pid, &r.tid))
		return GS_OK;
	r.start_ns = ev->start;
	r.end_ns = ev->end;
	r.domain = GS_NO_STRING;
	r.kind = cat == KC_CPU_OP          ? GS_RANGE_CPU_OP :
		 cat == KC_USER_ANNOTATION ? GS_RANGE_USER_ANNOTATION :
					     GS_RANGE_PYTHON;
	/* Host ranges are most of a trace and their args are large: read the
	 * one member needed without building a tree. */
	if (cat != KC_PYTHON && ev->f[EV_ARGS].n && kin_event_args_members(ev, ext_keys, 2, ext)) {
		if ((kin_span_int(&ext[0], &v) || kin_span_int(&ext[1], &v)) && v > 0)
			r.external_id = kin_id(k, (uint64_t)v);
	}
	rc = kin_name(k, ev, &r.name, &name, &n);
	if (rc)
		return rc;
	kin_proc_flag(k, r.pid, KPF_HOST_EVENTS);
	return kin_emit_range(k, &r);
}

/* The context of a stream already declared with this device and stream id
 * (the first one the table finds), or false. */
static bool kin_stream_context(const struct kin *k, uint32_t device, uint64_t stream,
			       uint32_t *context)
{
	int64_t pid = kin_gpu_pid(k);
	uint32_t mask, h;

	if (!k->streams)
		return false;
	mask = k->stream_slots - 1;
	h = kin_stream_hash(pid, device, stream) & mask;
	for (; k->streams[h].used; h = (h + 1) & mask)
		if (k->streams[h].pid == pid && k->streams[h].device == device &&
		    k->streams[h].stream == stream) {
			*context = k->streams[h].context;
			return true;
		}
	return false;
}

/* A gpu_user_annotation: the profiler's drawing of a user annotation over
 * the GPU ops it covers on one stream (pid: the device, tid: the stream). */
static gs_status kin_gpu_annotation(struct kin *k, const struct kin_event *ev)
{
	struct gs_range r = {0};
	struct kin_span ext[2];
	uint32_t device = 0, context = 0;
	int64_t stream = -1, v;
	const char *name;
	size_t n;
	struct kin_args *args;
	gs_status rc;
	bool ok;

	rc = kin_parse_args(k, ev, &args, &ok);
	if (rc)
		return rc;
	if (!ok) {
		kin_warn(k, KW_MALFORMED);
		return GS_OK;
	}
	if (!kin_gpu_place(k, ev, args, false, &device, &stream))
		goto out;
	if (!kin_stream_context(k, device, (uint64_t)stream, &context) &&
	    !kin_get_u32(args, "context", &context))
		context = 0;
	r.start_ns = ev->start;
	r.end_ns = ev->end;
	r.pid = k->ev_rank != KIN_NONE ? k->job[k->ev_rank].pid : -1;
	r.tid = -1;
	r.domain = GS_NO_STRING;
	r.kind = GS_RANGE_GPU_ANNOTATION;
	if (ev->f[EV_ARGS].n && kin_event_args_members(ev, ext_keys, 2, ext)) {
		if ((kin_span_int(&ext[0], &v) || kin_span_int(&ext[1], &v)) && v > 0)
			r.external_id = kin_id(k, (uint64_t)v);
	}
	rc = kin_name(k, ev, &r.name, &name, &n);
	if (!rc)
		rc = kin_stream(k, device, context, (uint64_t)stream, &r.stream);
	if (!rc)
		rc = kin_emit_range(k, &r);
out:
	kin_args_free(args);
	return rc;
}

static gs_status kin_overhead(struct kin *k, const struct kin_event *ev)
{
	struct gs_overhead o = {0};
	const char *name;
	size_t n;
	int64_t tid;
	gs_status rc;

	if (!kin_host_ids(k, ev, &o.pid, &tid))
		return GS_OK;
	o.start_ns = ev->start;
	o.end_ns = ev->end;
	rc = kin_name(k, ev, &o.kind, &name, &n);
	if (rc)
		return rc;
	return kin_emit_overhead(k, &o);
}

static gs_status kin_complete(struct kin *k, struct kin_event *ev)
{
	const char *cs = "";
	size_t cn = 0;
	enum kin_cat cat;
	gs_status rc;

	if (ev->f[EV_CAT].n && !kin_span_string(&k->sc, &ev->f[EV_CAT], 0, &cs, &cn, &rc)) {
		if (rc)
			return rc;
		cs = "";
		cn = 0;
	}
	cat = kin_cat_lookup(cs, cn);
	switch (cat) {
	case KC_UNKNOWN:
		kin_warn_named(k, KN_CATEGORY, cs, cn);
		return GS_OK;
	case KC_IGNORE:
		return GS_OK;
	default:
		break;
	}
	if (!kin_times(k, &ev->f[EV_TS], &ev->f[EV_DUR], &ev->start, &ev->end))
		return GS_OK;
	/* gpuscope's job export: the rank's own times again. */
	k->ev_rank = KIN_NONE;
	if (k->n_job) {
		int64_t pid, shift;

		if (kin_span_int(&ev->f[EV_PID], &pid))
			k->ev_rank = kin_job_rank(k, pid);
		shift = k->ev_rank != KIN_NONE ? k->job[k->ev_rank].shift : 0;
		if (__builtin_sub_overflow(ev->start, shift, &ev->start) ||
		    __builtin_sub_overflow(ev->end, shift, &ev->end)) {
			kin_warn(k, KW_TIME_RANGE);
			return GS_OK;
		}
	}
	switch (cat) {
	case KC_KERNEL:
	case KC_MEMCPY:
	case KC_MEMSET:
		return kin_gpu_op(k, ev, cat);
	case KC_RUNTIME:
	case KC_DRIVER:
		return kin_api_call(k, ev, cat);
	case KC_SYNC:
		return kin_sync(k, ev);
	case KC_OVERHEAD:
		return kin_overhead(k, ev);
	case KC_GPU_ANNOTATION:
		return kin_gpu_annotation(k, ev);
	default:
		return kin_range(k, ev, cat);
	}
}

static gs_status kin_metadata(struct kin *k, const struct kin_event *ev)
{
	bool pname = kin_span_equals(&ev->f[EV_NAME], "process_name");
	bool plabels = kin_span_equals(&ev->f[EV_NAME], "process_labels");
	struct kin_proc *p;
	const char *s;
	struct kin_args *args;
	int64_t pid;
	gs_status rc = GS_OK;
	bool ok;

	if ((!pname && !plabels) || !kin_span_int(&ev->f[EV_PID], &pid))
		return GS_OK;
	/* A rank's processes in gpuscope's job export: gpuscope_job says who
	 * they are. */
	if (kin_job_rank(k, pid) != KIN_NONE)
		return GS_OK;
	rc = kin_parse_args(k, ev, &args, &ok);
	if (rc || !ok)
		return rc;
	p = kin_proc(k, pid);
	if (!p)
		goto out;
	if (pname) {
		s = kin_get_str(args, "name");
		if (s)
			rc = kin_intern_str(k, s, &p->name);
	} else {
		/* Labels are a comma-separated list; the first says what
		 * the process is ("CPU", "CPU, rank 3, pid 4242"). */
		s = kin_get_str(args, "labels");
		if (s && strncmp(s, "CPU", 3) == 0 && (s[3] == '\0' || s[3] == ','))
			p->flags |= KPF_LABEL_CPU;
		else if (s && strncmp(s, "GPU", 3) == 0)
			p->flags |= KPF_LABEL_GPU;
	}
out:
	kin_args_free(args);
	return rc;
}

/* One element of traceEvents that is an object, its members found
 * (kin_scan_event). */
static gs_status kin_event(struct kin *k, struct kin_event *ev)
{
	const struct kin_span *ph = &ev->f[EV_PH];

	if (!ev->members_ok) {
		kin_warn(k, KW_MALFORMED);
		return GS_OK;
	}
	if (!kin_span_is_string(ph)) {
		kin_warn(k, KW_NO_PHASE);
		return GS_OK;
	}
	if (ph->n == 3) {
		switch (ph->p[1]) {
		case 'X':
			return kin_complete(k, ev);
		case 'M':
			return kin_metadata(k, ev);
		case 's':
		case 'f':
		case 't':
		case 'i':
		case 'I':
		case 'n':
		case 'C': /* counter tracks (ours carry the breakdown category) */
			return GS_OK;
		default:
			break;
		}
	}
	{
		const char *s;
		size_t sn;
		gs_status rc;

		if (!kin_span_string(&k->sc, ph, 0, &s, &sn, &rc)) {
			if (rc)
				return rc;
			s = "?";
			sn = 1;
		}
		kin_warn_named(k, KN_PHASE, s, sn);
	}
	return GS_OK;
}

/* ------------------------------------------------------------------------ */
/* The document walk: items for the event code (kineto_pipe.h)             */
/* ------------------------------------------------------------------------ */

/*
 * The walk (kin_document and what it calls) reads the input and writes
 * items; kin_handle, on the thread that builds the model, does what each
 * says. On one CPU each item is handled as soon as it is written, as the
 * walk used to call the event code itself; on two the walk runs ahead on
 * its own thread. The walk touches only k->sc and walk_* fields.
 */
static gs_status kin_handle(void *ctx, struct kin_item *it)
{
	struct kin *k = ctx;

	k->ev_off = it->off;
	switch (it->type) {
	case KIN_ITEM_EVENT:
		return kin_event(k, &it->ev);
	case KIN_ITEM_NOT_OBJECT:
		kin_warn(k, KW_NOT_OBJECT);
		return GS_OK;
	case KIN_ITEM_TOP:
		return kin_top_value(k, (enum kin_top)it->top, it->text.p, it->text.n);
	default:
		k->saw_events = true;
		return GS_OK;
	}
}

/* An item of `type` at input offset `off`, with nothing more to it. */
static gs_status kin_put(struct kin *k, uint8_t type, uint64_t off)
{
	struct kin_item *it = kin_item_next(&k->sc);

	it->type = type;
	it->off = off;
	return kin_item_put(&k->sc);
}

/* The elements of an array whose '[' is at k->sc.pos. */
static gs_status kin_events_array(struct kin *k, uint32_t depth)
{
	gs_status rc;
	int c;

	k->walk_saw_events = true;
	rc = kin_put(k, KIN_ITEM_EVENTS, kin_here(&k->sc));
	if (rc)
		return rc;
	k->sc.pos++; /* '[' */
	rc = kin_peek(&k->sc, &c);
	if (rc)
		return rc;
	if (c == ']') {
		k->sc.pos++;
		return GS_OK;
	}
	for (;;) {
		uint64_t off;
		size_t start;

		rc = kin_peek(&k->sc, &c);
		if (rc)
			return rc;
		if (c < 0)
			return kin_format_error(
				&k->sc, kin_here(&k->sc),
				"the input ends inside traceEvents (truncated JSON?)");
		off = kin_here(&k->sc);
		if (c == '{') {
			struct kin_item *it = kin_item_next(&k->sc);

			rc = kin_scan_event(&k->sc, depth, &it->ev);
			if (!rc) {
				it->type = KIN_ITEM_EVENT;
				it->off = off;
				rc = kin_item_put(&k->sc);
			}
		} else {
			rc = kin_scan_value(&k->sc, depth, false, &start);
			if (!rc)
				rc = kin_put(k, KIN_ITEM_NOT_OBJECT, off);
		}
		if (rc)
			return rc;
		rc = kin_peek(&k->sc, &c);
		if (rc)
			return rc;
		if (c == ',') {
			k->sc.pos++;
			continue;
		}
		if (c == ']') {
			k->sc.pos++;
			return GS_OK;
		}
		if (c < 0)
			return kin_format_error(
				&k->sc, kin_here(&k->sc),
				"the input ends inside traceEvents (truncated JSON?)");
		return kin_format_error(&k->sc, kin_here(&k->sc),
					"expected ',' or ']' in traceEvents");
	}
}

/* The members of the top-level object whose '{' is at k->sc.pos. */
static gs_status kin_top_object(struct kin *k)
{
	gs_status rc;
	int c;

	k->sc.pos++; /* '{' */
	rc = kin_peek(&k->sc, &c);
	if (rc)
		return rc;
	if (c == '}') {
		k->sc.pos++;
		return GS_OK;
	}
	for (;;) {
		enum kin_top top;
		uint64_t off;
		size_t start;

		rc = kin_peek(&k->sc, &c);
		if (rc)
			return rc;
		if (c < 0)
			return kin_format_error(&k->sc, kin_here(&k->sc),
						"the input ends inside the top-level object "
						"(truncated JSON?)");
		if (c != '"')
			return kin_format_error(&k->sc, kin_here(&k->sc),
						"expected a member name in the top-level object");
		rc = kin_scan_value(&k->sc, 1, true, &start);
		if (rc)
			return rc;
		top = kin_top_key(k->sc.buf + start + 1, k->sc.pos - start - 2);
		rc = kin_peek(&k->sc, &c);
		if (rc)
			return rc;
		if (c != ':')
			return kin_format_error(&k->sc, kin_here(&k->sc),
						"expected ':' after a member name");
		k->sc.pos++;
		rc = kin_peek(&k->sc, &c);
		if (rc)
			return rc;
		if (c < 0)
			return kin_format_error(&k->sc, kin_here(&k->sc),
						"the input ends inside the top-level object "
						"(truncated JSON?)");
		off = kin_here(&k->sc);
		if (top == KT_TOP_EVENTS) {
			if (c != '[')
				return kin_format_error(&k->sc, kin_here(&k->sc),
							"traceEvents is not an array");
			rc = kin_events_array(k, 2);
		} else if (top == KT_TOP_OTHER) {
			rc = kin_scan_value(&k->sc, 1, false, &start);
		} else {
			rc = kin_scan_value(&k->sc, 1, true, &start);
			if (!rc) {
				struct kin_item *it = kin_item_next(&k->sc);

				it->type = KIN_ITEM_TOP;
				it->off = off;
				it->top = (int)top;
				it->text.p = k->sc.buf + start;
				it->text.n = k->sc.pos - start;
				rc = kin_item_put(&k->sc);
			}
		}
		if (rc)
			return rc;
		rc = kin_peek(&k->sc, &c);
		if (rc)
			return rc;
		if (c == ',') {
			k->sc.pos++;
			continue;
		}
		if (c == '}') {
			k->sc.pos++;
			return GS_OK;
		}
		if (c < 0)
			return kin_format_error(&k->sc, kin_here(&k->sc),
						"the input ends inside the top-level object "
						"(truncated JSON?)");
		return kin_format_error(&k->sc, kin_here(&k->sc),
					"expected ',' or '}' after a top-level member");
	}
}

static gs_status kin_document(struct kin *k)
{
	gs_status rc;
	int c;

	rc = kin_peek(&k->sc, &c);
	if (rc)
		return rc;
	/* A UTF-8 byte order mark. */
	if (c == 0xEF && k->sc.len - k->sc.pos >= 3 &&
	    memcmp(k->sc.buf + k->sc.pos, "\xEF\xBB\xBF", 3) == 0) {
		k->sc.pos += 3;
		rc = kin_peek(&k->sc, &c);
		if (rc)
			return rc;
	}
	if (c < 0) {
		gs_error_append("%s: empty file: no JSON data", k->sc.name);
		return GS_ERR_FORMAT;
	}
	if (c == '[')
		rc = kin_events_array(k, 1);
	else if (c == '{')
		rc = kin_top_object(k);
	else
		return kin_format_error(&k->sc, kin_here(&k->sc),
					"not JSON: a Chrome trace starts with '{' or '['");
	if (rc)
		return rc;
	rc = kin_peek(&k->sc, &c);
	if (rc)
		return rc;
	if (c >= 0)
		return kin_format_error(&k->sc, kin_here(&k->sc),
					"unexpected data after the JSON document");
	if (!k->walk_saw_events) {
		gs_error_append("%s: no \"traceEvents\" array: not a Chrome trace", k->sc.name);
		return GS_ERR_FORMAT;
	}
	return GS_OK;
}

static gs_status kin_walk(void *ctx)
{
	return kin_document(ctx);
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                             */
/* ------------------------------------------------------------------------ */

static gs_status kin_run(struct gs_gzin *in, const char *name, const struct gs_import_limits *lim,
			 struct gs_sink *sink)
{
	struct kin *k = calloc(1, sizeof(*k));
	gs_status rc;

	if (!k) {
		gs_gzin_close(in);
		return gs_nomem();
	}
	k->sc.name = name;
	k->sc.in = in;
	k->sc.lim = &k->lim;
	k->sink = sink;
	gs_import_limits_resolve(&k->lim, lim);
	gs_gzin_set_limits(in, k->lim.max_inflated_bytes, k->lim.max_inflate_ratio);
	k->host_name = k->driver_version = k->runtime_version = k->cupti_version = GS_NO_STRING;
	k->backend = GS_NO_STRING;
	k->ev_rank = KIN_NONE;
	k->sc.cap = (size_t)KIN_READ_CHUNK * 2;
	k->sc.buf = malloc(k->sc.cap);
	k->pend_items = malloc(KIN_PEND_CAP * sizeof(*k->pend_items));
	k->recent_items = malloc(KIN_RECENT_CAP * sizeof(*k->recent_items));
	k->procs = calloc(KIN_PROC_SLOTS, sizeof(*k->procs));
	if (!k->sc.buf || !k->pend_items || !k->recent_items || !k->procs)
		rc = gs_nomem();
	else
		rc = kin_ring_init(&k->pend, KIN_PEND_CAP);
	if (!rc)
		rc = kin_ring_init(&k->recent, KIN_RECENT_CAP);
	if (!rc)
		rc = kin_pipe_run(&k->sc, kin_walk, kin_handle, k);
	if (!rc)
		rc = kin_finish(k);
	gs_gzin_close(in);
	kin_ring_fini(&k->pend);
	kin_ring_fini(&k->recent);
	free(k->pend_items);
	free(k->recent_items);
	free(k->sc.buf);
	free(k->sc.stack);
	free(k->sc.scratch[0]);
	free(k->sc.scratch[1]);
	free(k->args_str);
	free(k->streams);
	free(k->procs);
	free(k->devs);
	free(k->job);
	free(k->job_pids);
	free(k);
	return rc;
}

gs_status gs_import_kineto(const char *path, const struct gs_import_limits *lim,
			   struct gs_sink *sink)
{
	struct gs_gzin *in;
	gs_status rc;

	if (!path || !sink) {
		gs_error_append("gs_import_kineto: no %s", path ? "sink" : "path");
		return GS_ERR_INVALID;
	}
	rc = gs_gzin_open(path, &in);
	if (rc)
		return rc;
	return kin_run(in, gs_gzin_name(in), lim, sink);
}

gs_status gs_import_kineto_gzin(struct gs_gzin *in, const struct gs_import_limits *lim,
				struct gs_sink *sink)
{
	return kin_run(in, gs_gzin_name(in), lim, sink);
}

gs_status gs_import_kineto_mem(const void *data, size_t size, const char *name,
			       const struct gs_import_limits *lim, struct gs_sink *sink)
{
	struct gs_gzin *in;
	gs_status rc;

	if (!sink) {
		gs_error_append("gs_import_kineto_mem: no sink");
		return GS_ERR_INVALID;
	}
	rc = gs_gzin_open_mem(data, size, name ? name : "(memory)", &in);
	if (rc)
		return rc;
	return kin_run(in, gs_gzin_name(in), lim, sink);
}
