/* SPDX-License-Identifier: MIT */
/*
 * The small helpers of the analyze report that the writers share
 * (report_priv.h): warnings restated, the window, notes on unlinked and
 * early records, op labels and ids, percentages, durations, efficiency,
 * what-if, ideal model, gap and steps texts.
 */
#include <gpuscope/report_phrases.h>
#include "analyzer_priv.h"
#include "gate_priv.h"
#include "job_sum.h"
#include "report_build_priv.h"
#include "schedule_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpuscope/names.h>
#include <gpuscope/report_parts.h>
#include <gpuscope/results.h>
#include <gpuscope/schedule.h>
#include <gpuscope/steps.h>
#include <gpuscope/summary.h>
#include <gpuscope/text.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

/* ------------------------------------------------------------------------ */
/* Small helpers shared with the writers (report_priv.h)                    */
/* ------------------------------------------------------------------------ */

bool gs_report_warning_restated(const struct gs_report *r, const struct gs_warning *w)
{
	/* The importer's warning of wait calls with no sync record is the
	 * caution about unlinked wait calls, and the trace's warning of
	 * waits naming an event record it does not hold the caution about
	 * unlinked waits; each caution says what follows. */
	if (!r->g)
		return false;
	return (r->g->unlinked_wait_calls && w->kind == GS_WARNING_UNLINKED_WAIT_CALLS) ||
	       (r->g->unlinked_waits && w->kind == GS_WARNING_UNHELD_WAITS);
}

uint64_t gs_report_mag(int64_t v)
{
	return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

const char *gs_report_window_text(const struct gs_trace *t, const struct gs_report_device *d,
				  char *buf, size_t size)
{
	int64_t first = 0, last = 0, a, b;
	uint64_t unit, m;
	char x[48], y[48], z[48];

	gs_trace_op_span(t, &first, &last);
	a = d->b.window_start - first;
	b = d->b.window_end - first;
	m = gs_report_mag(a) > gs_report_mag(b) ? gs_report_mag(a) : gs_report_mag(b);
	unit = gs_dur_unit(m > gs_report_mag(d->b.window_ns) ? m : gs_report_mag(d->b.window_ns));
	snprintf(buf, size, "%s%s .. %s%s into the trace: %s", a >= 0 ? "+" : "",
		 gs_dur_text_in(x, sizeof(x), a, unit, false), b >= 0 ? "+" : "",
		 gs_dur_text_in(y, sizeof(y), b, unit, false),
		 gs_dur_text_in(z, sizeof(z), d->b.window_ns, unit, false));
	return buf;
}

/* What records the waits of a PyTorch-profiler trace. */
#define SYNC_EVENTS_HINT                                                                           \
	"PyTorch profiler: experimental_config=torch._C._profiler._ExperimentalConfig("            \
	"enable_cuda_sync_events=True) records each stream wait with its event record"

const char *gs_report_unlinked_note(const struct gs_report *r, enum gs_report_unlinked which,
				    char *buf, size_t size)
{
	if (!r->g)
		return NULL;
	if (which == GS_REPORT_UNLINKED_WAITS && r->g->unlinked_waits)
		snprintf(buf, size,
			 "%llu stream waits could not be linked to their event record: those "
			 "dependencies are missing from the waits and schedules (" SYNC_EVENTS_HINT
			 ")",
			 (unsigned long long)r->g->unlinked_waits);
	else if (which == GS_REPORT_UNLINKED_CALLS && r->g->unlinked_wait_calls)
		snprintf(buf, size,
			 "%llu cudaStreamWaitEvent calls have no sync record: cross-stream "
			 "dependencies are unknown, so waits, critical path and ideal schedule "
			 "leave them out (the ideal is optimistic; " SYNC_EVENTS_HINT ")",
			 (unsigned long long)r->g->unlinked_wait_calls);
	else
		return NULL;
	return buf;
}

const char *gs_report_segment_note(const struct gs_report *r, char *buf, size_t size)
{
	size_t n = r->g ? r->g->n_segment_edges : 0;

	if (!n)
		return NULL;
	snprintf(buf, size,
		 "%zu possible data dependenc%s on shared allocations (caching allocator "
		 "segments, ranges not known to meet): not proven, so the waits, critical path, "
		 "ideal schedule and what-ifs leave %s out",
		 n, n == 1 ? "y" : "ies", n == 1 ? "it" : "them");
	return buf;
}

const char *gs_report_early_note(const struct gs_report *r, const struct gs_report_device *d,
				 enum gs_report_early which, char *buf, size_t size)
{
	const struct gs_invariants *v = &d->inv;
	char a[GS_DUR_TEXT_MAX];

	if (which == GS_REPORT_EARLY_RETURNED) {
		if (!v->returned_early)
			return NULL;
		snprintf(buf, size,
			 "device %u: %llu host call%s returned before %s copy ended (largest %s, "
			 "op %llu): the edges %s would imply are left out",
			 d->device, (unsigned long long)v->returned_early,
			 v->returned_early == 1 ? "" : "s",
			 v->returned_early == 1 ? "its" : "their",
			 gs_dur_text(a, sizeof(a), v->returned_early_max_ns),
			 (unsigned long long)gs_report_op_id(r->t, v->returned_early_op),
			 v->returned_early == 1 ? "it" : "they");
		return buf;
	}
	if (!v->actual_early || v->violations || d->efficiency_kind == GS_REPORT_EFF_BOUNDED)
		return NULL;
	snprintf(buf, size,
		 "device %u: in the recording %llu op%s started before an op %s depend%s on ended "
		 "(by up to %s, op %llu): the schedules keep %s",
		 d->device, (unsigned long long)v->actual_early, v->actual_early == 1 ? "" : "s",
		 v->actual_early == 1 ? "it" : "they", v->actual_early == 1 ? "s" : "",
		 gs_dur_text(a, sizeof(a), v->actual_early_max_ns),
		 (unsigned long long)gs_report_op_id(r->t, v->actual_early_op),
		 v->actual_early == 1 ? "that dependency" : "those dependencies");
	return buf;
}

/* Bytes for people: "512 B", "64.0 KiB", "8.0 MiB". */
static const char *bytes_str(char *buf, size_t size, uint64_t b)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
	double v = (double)b;
	size_t u = 0;

	if (b < 1024) {
		snprintf(buf, size, "%llu B", (unsigned long long)b);
		return buf;
	}
	v /= 1024;
	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, "%.1f %s", v, units[u]);
	return buf;
}

const char *gs_report_op_label(const struct gs_trace *t, uint32_t op, char *buf, size_t size)
{
	size_t n_ops;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const struct gs_op *o;
	char b[32];

	if (op >= n_ops)
		return "?";
	o = &ops[op];
	if (o->kind == GS_OP_MEMCPY) {
		uint8_t host = o->copy_kind == GS_COPY_HTOD ? o->src_mem :
			       o->copy_kind == GS_COPY_DTOH ? o->dst_mem :
							      GS_MEM_UNKNOWN;

		snprintf(buf, size, "%s %s%s%s", gs_copy_kind_name(o->copy_kind),
			 bytes_str(b, sizeof(b), o->bytes), host != GS_MEM_UNKNOWN ? " " : "",
			 host != GS_MEM_UNKNOWN ? gs_mem_kind_name(host) : "");
		return buf;
	}
	if (o->kind == GS_OP_MEMSET) {
		snprintf(buf, size, "memset %s", bytes_str(b, sizeof(b), o->bytes));
		return buf;
	}
	return gs_trace_string(t, o->name);
}

const char *gs_report_pct(char *buf, size_t size, int64_t part, int64_t whole)
{
	double p = whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;

	snprintf(buf, size, "%.1f%%", p);
	return buf;
}

const char *gs_report_dur_utf8(char *buf, size_t size, int64_t ns)
{
	size_t len;

	gs_dur_text(buf, size, ns);
	len = strlen(buf);
	if (len >= 3 && strcmp(buf + len - 3, " us") == 0 && len + 2 < size)
		memcpy(buf + len - 2, "\xc2\xb5s", 4);
	return buf;
}

const char *gs_report_eff_text(const struct gs_report_device *d, char *buf, size_t size)
{
	if (d->efficiency_kind == GS_REPORT_EFF_CYCLES || !isfinite(d->efficiency))
		snprintf(buf, size, "n/a");
	else
		snprintf(buf, size, "%.2f", d->efficiency);
	return buf;
}

const char *gs_report_whatif_text(const struct gs_what_if *w, bool one_batch, char *buf,
				  size_t size)
{
	char a[32], b[32];
	int64_t svi = w->saving_vs_ideal_ns, host = w->saving_ns - (svi > 0 ? svi : 0);

	/* One batch is one stream (each stream starts a batch), whose ops the
	 * ideal runs back to back already: nothing is left to gain. */
	if (one_batch) {
		snprintf(buf, size, "1 batch: nothing to pipeline, no saving beyond the ideal");
		return buf;
	}
	if (svi > 0)
		snprintf(buf, size, "%s beyond the ideal", gs_dur_own_mark(a, sizeof(a), svi));
	else if (svi < 0)
		snprintf(buf, size, "no saving beyond the ideal (%s longer than it)",
			 gs_dur_own_mark(a, sizeof(a), -svi));
	else
		snprintf(buf, size, "0 ns beyond the ideal");
	if (w->saving_ns < 0) {
		size_t len = strlen(buf);

		snprintf(buf + len, size - len, "; slower than the actual run by %s",
			 gs_dur_own_mark(a, sizeof(a), -w->saving_ns));
	} else if (host > 0) {
		size_t len = strlen(buf);

		if (svi > 0)
			snprintf(buf + len, size - len,
				 "; of its %s saving, %s is host/launch time the ideal already "
				 "removes",
				 gs_dur_own_mark(a, sizeof(a), w->saving_ns),
				 gs_dur_own_mark(b, sizeof(b), host));
		else
			snprintf(buf + len, size - len,
				 "; its %s saving is host/launch time the ideal already removes",
				 gs_dur_own_mark(a, sizeof(a), w->saving_ns));
	}
	return buf;
}

const char *gs_report_ideal_model_text(const struct gs_report_device *d, bool engines_known,
				       char *buf, size_t size)
{
	const struct gs_schedule *s = &d->sched;
	size_t len;

	buf[0] = '\0';
	len = 0;
	if (s->ideal_is_recorded) {
		snprintf(buf + len, size - len,
			 "the recorded run itself: the list schedule came out longer, as the run "
			 "started some op before a dependency allowed; ");
		len = strlen(buf);
	}
	switch (s->ideal_rule) {
	case GS_IDEAL_OCCUPANCY:
		snprintf(buf + len, size - len,
			 "kernels by occupancy: side by side while their shares of the SMs fit; ");
		break;
	case GS_IDEAL_AS_RECORDED:
		snprintf(buf + len, size - len,
			 "kernels as recorded: at most %u at once, as in the run, for want of %s; ",
			 s->recorded_kernels_at_once,
			 d->sched_device_known ? "launch configurations" :
						 "the device's SM count and compute capability");
		break;
	case GS_IDEAL_MIXED:
		snprintf(buf + len, size - len,
			 "kernels by occupancy (%llu) and as recorded (%llu, 1/%u of the SMs "
			 "each); ",
			 (unsigned long long)s->kernels_by_occupancy,
			 (unsigned long long)s->kernels_as_recorded, s->recorded_kernels_at_once);
		break;
	default:
		break;
	}
	len = strlen(buf);
	if (s->kernel_capacity > GS_SHARE_UNIT) {
		snprintf(buf + len, size - len,
			 "up to %.2f devices' worth at once, as the run had; ",
			 (double)s->kernel_capacity / GS_SHARE_UNIT);
		len = strlen(buf);
	}
	snprintf(buf + len, size - len, "copy engines HtoD %u, DtoH %u%s",
		 d->copy_engines[GS_COPY_HTOD], d->copy_engines[GS_COPY_DTOH],
		 engines_known ? "" : ", assumed");
	return buf;
}

const char *gs_report_gap_text(const struct gs_report_device *d, char *buf, size_t size)
{
	const struct gs_gap *g = &d->gap;
	int64_t gap = d->actual_ns - d->ideal_ns;
	const char *sep = "";
	size_t len;

	if (!g->available) {
		snprintf(buf, size, "not split: %s",
			 d->broken_cycles ? "dependency cycles were broken" :
					    "the ideal is longer than the run");
		return buf;
	}
	snprintf(buf, size, "actual - ideal:");
	for (unsigned c = 0; c < GS_GAP_CAUSE_COUNT; c++) {
		char dur[32];

		if (g->ns[c] <= 0)
			continue;
		len = strlen(buf);
		snprintf(buf + len, size - len, "%s %s %s %.0f%%", sep, gs_gap_cause_name(c),
			 gs_dur_text(dur, sizeof(dur), g->ns[c]),
			 gap > 0 ? 100.0 * (double)g->ns[c] / (double)gap : 0.0);
		sep = ",";
	}
	len = strlen(buf);
	if (!*sep)
		snprintf(buf + len, size - len, " nothing");
	return buf;
}

const char *gs_report_steps_text(const struct gs_report *r, char *buf, size_t size)
{
	const struct gs_steps *s = &r->steps;
	uint64_t lo = 0, hi = 0;
	bool first = true;
	size_t len;

	buf[0] = '\0';
	if (!s->n)
		return buf;
	for (size_t i = 0; i < s->n; i++) {
		if (!s->steps[i].selected)
			continue;
		if (first || s->steps[i].number < lo)
			lo = s->steps[i].number;
		if (first || s->steps[i].number > hi)
			hi = s->steps[i].number;
		first = false;
	}
	if (!r->window_from_steps)
		snprintf(buf, size, "%zu found (%s), none chosen: %s", s->n, s->source,
			 r->window_set ? "--window gives the window" : "the whole trace");
	else if (lo == hi)
		snprintf(buf, size, "step %llu of %zu (%s)", (unsigned long long)lo, s->n,
			 s->source);
	else
		snprintf(buf, size, "steps %llu..%llu, %zu of %zu (%s)", (unsigned long long)lo,
			 (unsigned long long)hi, s->n_selected, s->n, s->source);
	len = strlen(buf);
	if (r->window_from_steps && s->warmup_left_out)
		for (size_t i = 0; i < s->n; i++)
			if (!s->steps[i].selected && !s->steps[i].partial &&
			    s->steps[i].gpu_end_ns > s->steps[i].gpu_start_ns) {
				snprintf(buf + len, size - len, "; step %llu left out as warm-up",
					 (unsigned long long)s->steps[i].number);
				break;
			}
	len = strlen(buf);
	if (r->window_from_steps && s->partial_left_out && s->steps[s->n - 1].partial)
		snprintf(buf + len, size - len, "; step %llu partial, left out",
			 (unsigned long long)s->steps[s->n - 1].number);
	len = strlen(buf);
	if (r->window_from_steps) {
		size_t with_work = 0;

		for (size_t i = 0; i < s->n; i++)
			with_work += s->steps[i].gpu_end_ns > s->steps[i].gpu_start_ns;
		snprintf(buf + len, size - len, "%s",
			 s->n_selected < with_work ? "; --step all or --step none for more" :
						     "; --step none for the whole trace");
	}
	return buf;
}

uint64_t gs_report_op_id(const struct gs_trace *t, uint32_t op)
{
	size_t n;
	const struct gs_op *ops = gs_trace_ops(t, &n);

	if (op >= n)
		return op;
	return ops[op].correlation ? ops[op].correlation : op;
}

uint32_t gs_report_op_device(const struct gs_trace *t, uint32_t op)
{
	size_t n, ns;
	const struct gs_op *ops = gs_trace_ops(t, &n);
	const struct gs_stream *st = gs_trace_streams(t, &ns);

	if (op >= n || ops[op].stream >= ns)
		return UINT32_MAX;
	return st[ops[op].stream].device;
}

uint64_t gs_report_op_stream(const struct gs_trace *t, uint32_t op)
{
	size_t n, ns;
	const struct gs_op *ops = gs_trace_ops(t, &n);
	const struct gs_stream *st = gs_trace_streams(t, &ns);

	if (op >= n || ops[op].stream >= ns)
		return 0;
	return st[ops[op].stream].stream_id;
}

/* What one rank's trace could not show: dropped records, loading
 * warnings, waits it could not link (the text report's notes). */
void gs_report_notes(const struct gs_report *r,
		     void (*fn)(void *ctx, const char *label, const char *text), void *ctx)
{
	const struct gs_warning *warn;
	size_t n, i;
	char line[GS_ERROR_MSG_MAX + 64];

	if (gs_trace_dropped(r->t)) {
		snprintf(line, sizeof(line),
			 "%s%llu records were dropped while recording: the times below are lower "
			 "bounds",
			 gs_trace_dropped(r->t) == UINT64_MAX ? "at least " : "",
			 (unsigned long long)gs_trace_dropped(r->t));
		fn(ctx, "caution", line);
	}
	warn = gs_trace_warnings(r->t, &n);
	for (i = 0; i < n; i++)
		if (!gs_report_warning_restated(r, &warn[i]))
			fn(ctx, "warning", gs_warning_format(&warn[i], line, sizeof(line)));
	if (gs_report_unlinked_note(r, GS_REPORT_UNLINKED_WAITS, line, sizeof(line)))
		fn(ctx, "caution", line);
	if (gs_report_unlinked_note(r, GS_REPORT_UNLINKED_CALLS, line, sizeof(line)))
		fn(ctx, "caution", line);
	for (i = 0; i < r->n_dev; i++) {
		if (!r->dev[i].optimistic)
			continue;
		snprintf(line, sizeof(line),
			 "device %u: ops on %zu streams and no cross-stream synchronization "
			 "recorded (no event records, stream waits or syncs): the ideal schedule "
			 "runs every stream from the window start and is optimistic",
			 r->dev[i].device, r->dev[i].active_streams);
		fn(ctx, "caution", line);
	}
	for (i = 0; i < r->n_dev; i++) {
		if (gs_report_early_note(r, &r->dev[i], GS_REPORT_EARLY_RETURNED, line,
					 sizeof(line)))
			fn(ctx, "note", line);
		if (gs_report_early_note(r, &r->dev[i], GS_REPORT_EARLY_RECORDED, line,
					 sizeof(line)))
			fn(ctx, "caution", line);
	}
	if (gs_report_segment_note(r, line, sizeof(line)))
		fn(ctx, "note", line);
	if (r->g && !r->g->stream_kinds_known && r->n_dev)
		fn(ctx, "note",
		   "stream kinds are not recorded in this trace: implicit legacy "
		   "default-stream synchronization is not modelled");
}

/* Ops and lanes: see job_sum.h. */
void gs_report_html_rank_load(const struct gs_report *r, uint64_t *ops, uint64_t *lanes)
{
	*ops = 0;
	*lanes = 0;
	for (size_t i = 0; i < r->n_dev; i++) {
		size_t n = 0;

		*ops += r->dev[i].ops;
		for (size_t k = 0; k < r->dev[i].n_streams; k++)
			if (r->dev[i].streams[k].ops)
				n++;
		*lanes += 2 * (n < GS_HTML_LANES_MAX ? n : GS_HTML_LANES_MAX) + 1;
	}
}
