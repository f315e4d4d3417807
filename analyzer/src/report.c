/* SPDX-License-Identifier: MIT */
/*
 * The analyze report, assembled: runs every analysis over a finished
 * trace and keeps what the text, JSON and HTML writers print
 * (report_text.c, report_json.c, report_html.c): gs_report_build and the
 * per-device assembly (dev_build), the job report (one report per rank),
 * and the small helpers the writers share. The per-device tables and
 * their ranking are in report_tables.c, the findings and their advice in
 * report_findings.c.
 *
 * Complexity, for N ops, S streams, D reported devices and W waits: the
 * graph and the waits once (their own costs), then per device the
 * analyses (each O(N log N) or better), one pass over the device's ops for
 * the stream totals and the constraint counts, a sort of its kernels by
 * name (O(K log K)), and one pass over the waits with a binary search of
 * the device (O(W log D)). Nothing is quadratic.
 */
#include "analyzer_priv.h"
#include "gate_priv.h"
#include "job_sum.h"
#include "measures_priv.h"
#include "report_priv.h"
#include "schedule_priv.h"

#include <gpuscope/search.h>
#include <gpuscope/sort.h>

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

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

static uint64_t mag(int64_t v)
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
	m = mag(a) > mag(b) ? mag(a) : mag(b);
	unit = gs_dur_unit(m > mag(d->b.window_ns) ? m : mag(d->b.window_ns));
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

/* A duration of its own unit, marked for the writer (GS_DUR_OWN_FMT). */
static const char *own_mark(char *buf, size_t size, int64_t ns)
{
	snprintf(buf, size, GS_DUR_OWN_FMT, (long long)ns);
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
		snprintf(buf, size, "%s beyond the ideal", own_mark(a, sizeof(a), svi));
	else if (svi < 0)
		snprintf(buf, size, "no saving beyond the ideal (%s longer than it)",
			 own_mark(a, sizeof(a), -svi));
	else
		snprintf(buf, size, "0 ns beyond the ideal");
	if (w->saving_ns < 0) {
		size_t len = strlen(buf);

		snprintf(buf + len, size - len, "; slower than the actual run by %s",
			 own_mark(a, sizeof(a), -w->saving_ns));
	} else if (host > 0) {
		size_t len = strlen(buf);

		if (svi > 0)
			snprintf(buf + len, size - len,
				 "; of its %s saving, %s is host/launch time the ideal already "
				 "removes",
				 own_mark(a, sizeof(a), w->saving_ns),
				 own_mark(b, sizeof(b), host));
		else
			snprintf(buf + len, size - len,
				 "; its %s saving is host/launch time the ideal already removes",
				 own_mark(a, sizeof(a), w->saving_ns));
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

/* ------------------------------------------------------------------------ */
/* The schedule and the waits, per device                                    */
/* ------------------------------------------------------------------------ */

/* The schedule's results the report keeps; the per-op arrays are
 * summarised over the device's ops in the window, then dropped. */
static gs_status dev_schedule(const struct gs_trace *t, const struct gs_schedule *s,
			      struct gs_report_device *d, struct gs_report_win w, bool window_set)
{
	size_t n_ops, i, st, hint = 0;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);

	d->actual_ns = s->actual_ns;
	d->dependency_bound_ns = s->dependency_bound_ns;
	d->ideal_ns = s->ideal_ns;
	d->broken_cycles = s->broken_cycles;
	/*
	 * Efficiency (ideal / actual) as reported, never above 1.
	 * The ideal schedule bounds the makespan from below only when the
	 * recorded run honoured every edge the schedule keeps.
	 * - Cycles broken (waits that cannot all have happened: a corrupt,
	 *   hand-edited or mis-merged trace): the ideal depends on which edges
	 *   were dropped to break them, so the ratio means nothing, whether
	 *   above 1 or not. None is given (NaN: "n/a", JSON null) rather than
	 *   a clamped 1 that would read "nothing to gain"; a finding says why.
	 * - Else a list schedule longer than the actual run means the run
	 *   started some op before an edge allowed (device clocks that
	 *   disagree, an event joined to the wrong record): the ideal is the
	 *   recorded run (gs_schedule.ideal_is_recorded), so 1, flagged as
	 *   bounded (JSON efficiency_bounded).
	 */
	if (s->broken_cycles) {
		d->efficiency_kind = GS_REPORT_EFF_CYCLES;
		d->efficiency = NAN;
	} else if (s->actual_ns > 0 && (s->ideal_is_recorded || s->ideal_ns > s->actual_ns)) {
		d->efficiency_kind = GS_REPORT_EFF_BOUNDED;
		d->efficiency = 1.0;
	} else {
		d->efficiency_kind = GS_REPORT_EFF_EXACT;
		d->efficiency = s->efficiency > 1.0 ? 1.0 : s->efficiency;
	}
	d->pipelined = s->pipelined;
	d->sched_device_known = gs_sched_device_known(gs_trace_device(t, d->device));
	memcpy(d->copy_engines, s->copy_engines, sizeof(d->copy_engines));
	if (s->n_critical) {
		d->critical = malloc(s->n_critical * sizeof(*d->critical));
		if (!d->critical)
			return gs_nomem();
		memcpy(d->critical, s->critical_path, s->n_critical * sizeof(*d->critical));
		d->n_critical = s->n_critical;
		for (i = 0; i < d->n_critical; i++)
			d->critical_ns = gs_report_sat_add(d->critical_ns, d->critical[i].ns);
	}
	if (!s->slot_bound_by)
		return GS_OK;
	for (st = 0; st < d->n_streams; st++) {
		size_t first, count;

		gs_trace_stream_ops(t, d->streams[st].index, &first, &count);
		for (i = first; i < first + count && i < n_ops; i++) {
			/* gs_schedule_bound_by and gs_schedule_delay_ns, one slot
			 * lookup (the stream's ops: one range) */
			uint32_t k = gs_sched_slot_near(s, (uint32_t)i, &hint);
			unsigned c = k == GS_NO_INDEX ? GS_BOUND_NONE : s->slot_bound_by[k];
			int64_t delay = k == GS_NO_INDEX ? 0 : s->slot_delay_ns[k];

			/* The schedule's op set: every op, or those starting in the window. */
			if (window_set && (ops[i].start_ns < w.start || ops[i].start_ns >= w.end))
				continue;
			if (c >= GS_BOUND_COUNT)
				continue;
			d->bound_ops[c]++;
			if (delay > 0)
				d->bound_delay_ns[c] =
					gs_report_sat_add(d->bound_delay_ns[c], delay);
		}
	}
	return GS_OK;
}

struct dev_key {
	const struct gs_report *r;
	uint32_t device;
};

static bool dev_before(const void *ctx, size_t i)
{
	const struct dev_key *k = ctx;

	return k->r->dev[i].device < k->device;
}

/* The index of `device` among the reported devices (by device), SIZE_MAX
 * when it is not reported. */
static size_t find_dev(const struct gs_report *r, uint32_t device)
{
	struct dev_key key = {r, device};
	size_t i = gs_partition_point(r->n_dev, dev_before, &key);

	return i < r->n_dev && r->dev[i].device == device ? i : SIZE_MAX;
}

/* Hand each wait to the device of its consumer (when that device is
 * reported and the consumer lies in its window). */
static gs_status assign_waits(struct gs_report *r)
{
	size_t n_ops, i, *dev_of = NULL;
	const struct gs_op *ops = gs_trace_ops(r->t, &n_ops);

	if (!r->n_waits)
		return GS_OK;
	dev_of = malloc(r->n_waits * sizeof(*dev_of));
	r->reported_waits = malloc(r->n_waits * sizeof(*r->reported_waits));
	if (!dev_of || !r->reported_waits) {
		free(dev_of);
		return gs_nomem();
	}
	for (i = 0; i < r->n_waits; i++) {
		const struct gs_wait *w = &r->waits[i];
		size_t k;

		dev_of[i] = SIZE_MAX;
		if (w->consumer >= n_ops)
			continue;
		k = find_dev(r, gs_report_op_device(r->t, w->consumer));
		if (k == SIZE_MAX)
			continue;
		if (!gs_report_in_window(&ops[w->consumer],
					 (struct gs_report_win){r->dev[k].b.window_start,
								r->dev[k].b.window_end}))
			continue;
		dev_of[i] = k;
		r->dev[k].n_waits++;
		r->reported_waits[r->n_reported_waits++] = i;
	}
	for (i = 0; i < r->n_dev; i++) {
		if (!r->dev[i].n_waits)
			continue;
		r->dev[i].waits = malloc(r->dev[i].n_waits * sizeof(size_t));
		if (!r->dev[i].waits) {
			free(dev_of);
			return gs_nomem();
		}
		r->dev[i].n_waits = 0;
	}
	for (i = 0; i < r->n_waits; i++) {
		struct gs_report_device *d;

		if (dev_of[i] == SIZE_MAX)
			continue;
		d = &r->dev[dev_of[i]];
		d->waits[d->n_waits++] = i;
		d->wait_ns = gs_report_sat_add(d->wait_ns, r->waits[i].wait_ns);
		if (r->waits[i].kind < GS_EDGE_KIND_COUNT)
			d->wait_kind_count[r->waits[i].kind]++;
	}
	free(dev_of);
	return GS_OK;
}

/* ------------------------------------------------------------------------ */
/* One device                                                                 */
/* ------------------------------------------------------------------------ */

/* The device record's name or UUID (uuid true) of device `id`; "". */
static const char *device_string(const struct gs_trace *t, uint32_t id, bool uuid)
{
	const struct gs_device *dv = gs_trace_device(t, id); /* ids are unique */
	uint32_t s = dv ? (uuid ? dv->uuid : dv->name) : GS_NO_STRING;

	return s != GS_NO_STRING ? gs_trace_string(t, s) : "";
}

/*
 * Whether the device's schedules are optimistic: ops on two or more of its
 * streams, and nothing in the trace that synchronizes streams (event
 * records, syncs of any kind, stream-wait calls seen or unlinked, event,
 * host-sync or default-stream edges). Such a trace may have had the
 * synchronization and not recorded it; the ideal then runs each stream
 * from the window start as if independent.
 */
static void dev_optimistic(const struct gs_report *r, struct gs_report_device *d)
{
	size_t n_sync = 0, n_rec = 0;
	const struct gs_graph *g = r->g;

	d->active_streams = 0;
	for (size_t i = 0; i < d->n_streams; i++)
		d->active_streams += d->streams[i].ops > 0;
	gs_trace_syncs(r->t, &n_sync);
	gs_trace_event_records(r->t, &n_rec);
	d->optimistic =
		d->active_streams >= 2 && !n_sync && !n_rec &&
		(!g ||
		 (!g->unlinked_waits && !g->unlinked_wait_calls && !g->edge_count[GS_EDGE_EVENT] &&
		  !g->edge_count[GS_EDGE_HOST_SYNC] && !g->edge_count[GS_EDGE_DEFAULT_STREAM]));
}

/* The CUDA Graph replay what-if over the ranked candidates. */
static gs_status dev_replay(const struct gs_report *r, struct gs_report_device *d,
			    const struct gs_schedule *s)
{
	gs_status st;

	if (!d->n_cands || !r->g)
		return GS_OK;
	d->cand_replay = calloc(d->n_cands, sizeof(*d->cand_replay));
	d->cand_replay_done = calloc(d->n_cands, sizeof(*d->cand_replay_done));
	if (!d->cand_replay || !d->cand_replay_done)
		return gs_nomem();
	st = gs_cudagraph_replay_compute(r->t, r->g, s, d->cands, d->n_cands, r->graph_node_ns,
					 &d->replay, d->cand_replay, d->cand_replay_done);
	if (st != GS_OK)
		gs_error_append("device %u: CUDA Graph replay", d->device);
	return st;
}

/*
 * The operator tables of every device, before the devices' other analyses,
 * so that the operator index's memory goes back before theirs: each over
 * its device's window, the one its breakdown takes (--window or the steps'
 * span, else from its first op start to its last op end).
 */
static gs_status all_operators(struct gs_report *r)
{
	size_t n_ops;
	const struct gs_op *ops = gs_trace_ops(r->t, &n_ops);
	gs_status st = gs_op_index_build(r->t, r->op_level, &r->op_index);

	for (size_t i = 0; st == GS_OK && i < r->n_dev; i++) {
		struct gs_report_device *d = &r->dev[i];
		int64_t lo = r->window.start_ns, hi = r->window.end_ns;

		if (!r->window_set) {
			struct gs_op_range *rg = NULL;
			size_t nr = 0;
			bool any = false;

			st = gs_device_op_ranges(r->t, d->device, &rg, &nr);
			for (size_t k = 0; st == GS_OK && k < nr; k++)
				for (size_t o = rg[k].first; o < rg[k].first + rg[k].count; o++) {
					if (!any || ops[o].start_ns < lo)
						lo = ops[o].start_ns;
					if (!any || ops[o].end_ns > hi)
						hi = ops[o].end_ns;
					any = true;
				}
			free(rg);
			if (!any)
				lo = hi = 0;
		}
		if (st == GS_OK)
			st = gs_operators_compute(r->t, r->op_index, d->device, lo, hi,
						  r->g ? r->g->launch : NULL, &d->operators);
		if (st != GS_OK)
			gs_error_append("device %u: operators", d->device);
	}
	gs_op_index_destroy(r->op_index);
	r->op_index = NULL;
	return st;
}

/*
 * The analyses of a device, in order: each stage reads what the stages
 * before it left in the device (and in the context), fills its part, and
 * on failure names itself in the cause (`what`, "device 0: schedule";
 * NULL: the stage's own cause says enough). dev_fini frees what they
 * filled. A new per-device analysis is a stage here, its part of struct
 * gs_report_device (results.h) and its line in dev_fini.
 */
struct dev_ctx {
	struct gs_report *r;
	struct gs_report_device *d;
	const struct gs_window *win; /* --window, else NULL: the default */
	struct gs_report_win w;      /* the device's window, once the breakdown has it */
	struct gs_schedule s;        /* until the device keeps it */
};

static gs_status stage_breakdown(struct dev_ctx *c)
{
	struct gs_report *r = c->r;
	struct gs_report_device *d = c->d;
	gs_status st;

	d->name = device_string(r->t, d->device, false);
	d->uuid = device_string(r->t, d->device, true);
	d->default_window = !r->window_set;
	if (!r->bd_cache) {
		st = gs_breakdown_cache_create(r->t, r->g ? r->g->launch : NULL,
					       r->n_dev >= GS_SHARE_MIN_DEVICES, &r->bd_cache);
		if (st != GS_OK)
			return st;
	}
	st = gs_breakdown_compute_cached(r->t, d->device, c->win, r->bd_cache, &d->b);
	if (st != GS_OK) {
		gs_error_append("device %u: breakdown", d->device);
		return st;
	}
	c->w.start = d->b.window_start;
	c->w.end = d->b.window_end;
	if (!r->name_slot) {
		size_t n_names = gs_trace_string_count(r->t) + 1;

		r->name_slot = calloc(n_names, sizeof(*r->name_slot));
		r->name_memo = calloc(n_names, sizeof(*r->name_memo));
		if (!r->name_slot || !r->name_memo)
			return gs_nomem();
	}
	return GS_OK;
}

static gs_status stage_streams(struct dev_ctx *c)
{
	gs_status st = gs_report_dev_streams(c->r, c->d, c->w);

	if (st == GS_OK)
		dev_optimistic(c->r, c->d);
	return st;
}

static gs_status stage_comm(struct dev_ctx *c)
{
	return gs_report_dev_comm(c->r, c->d, c->w);
}

static gs_status stage_sync_calls(struct dev_ctx *c)
{
	return gs_report_dev_sync_calls(c->r, c->d);
}

static gs_status stage_measures(struct dev_ctx *c)
{
	const struct gs_report *r = c->r;

	return gs_measures_compute_max(r->t, c->d->device, c->w.start, c->w.end,
				       r->g ? r->g->launch : NULL, r->max_annotation_pieces,
				       &c->d->measures);
}

static gs_status stage_schedule(struct dev_ctx *c)
{
	return gs_schedule_compute(c->r->t, c->r->g, c->d->device, c->win, &c->s);
}

/* The invariants, the missed overlap, the schedule's figures and the gap
 * by cause: one cause ("missed overlap") for all four, as before. */
static gs_status stage_over_schedule(struct dev_ctx *c)
{
	const struct gs_report *r = c->r;
	struct gs_report_device *d = c->d;
	gs_status st;

	st = gs_schedule_check(r->t, r->g, &c->s, &d->inv);
	if (st == GS_OK)
		st = gs_missed_overlap_compute(r->t, r->g, &c->s, &d->b, &d->missed, &d->n_missed);
	if (st == GS_OK)
		st = dev_schedule(r->t, &c->s, d, c->w, r->window_set);
	if (st == GS_OK)
		st = gs_schedule_gap(r->t, r->g, &c->s, &d->gap);
	if (st == GS_OK && d->gap.n_host)
		st = gs_breakdown_cache_host_ranges(r->bd_cache, d->gap.host, d->gap.n_host,
						    &d->gap_host);
	if (st == GS_OK) {
		free(d->gap.host);
		d->gap.host = NULL;
		d->gap.n_host = 0;
	}
	d->critical_lead_ns = c->s.critical_lead_ns;
	return st;
}

static gs_status stage_missed_sums(struct dev_ctx *c)
{
	struct gs_report_device *d = c->d;

	if (d->n_missed)
		qsort(d->missed, d->n_missed, sizeof(*d->missed), gs_report_cmp_missed);
	for (size_t i = 0; i < d->n_missed; i++) {
		d->missed_exposed_ns =
			gs_report_sat_add(d->missed_exposed_ns, d->missed[i].exposed_ns);
		d->missed_hideable_ns =
			gs_report_sat_add(d->missed_hideable_ns, d->missed[i].hideable_ns);
		for (unsigned bit = 0; bit < 3; bit++) {
			if (d->missed[i].missing & (1u << bit))
				d->missing_count[bit]++;
			if (d->missed[i].unknown & (1u << bit))
				d->unknown_count[bit]++;
		}
		if (d->missed[i].unknown) {
			d->n_possible++;
			d->possible_hideable_ns = gs_report_sat_add(d->possible_hideable_ns,
								    d->missed[i].hideable_ns);
		}
	}
	return GS_OK;
}

static gs_status stage_candidates(struct dev_ctx *c)
{
	struct gs_report_device *d = c->d;
	gs_status st;

	st = gs_cudagraph_candidates_compute_launch(c->r->t, d->device, c->win,
						    c->r->g ? c->r->g->launch : NULL, &d->cands,
						    &d->n_cands);
	if (st == GS_OK && d->n_cands)
		qsort(d->cands, d->n_cands, sizeof(*d->cands), gs_report_cmp_cand);
	return st;
}

static gs_status stage_replay(struct dev_ctx *c)
{
	return dev_replay(c->r, c->d, &c->s);
}

/* The writers draw the ideal schedule and the whole critical path; the
 * per-op delays and bounds were summed above: the device keeps the rest. */
static gs_status stage_keep_schedule(struct dev_ctx *c)
{
	struct gs_schedule *s = &c->s;

	free(s->slot_delay_ns);
	free(s->slot_bound_by);
	free(s->slot_pipelined_start);
	free(s->slot_share);
	s->slot_delay_ns = NULL;
	s->slot_bound_by = NULL;
	s->slot_pipelined_start = NULL;
	s->slot_share = NULL;
	c->d->sched = *s;
	memset(s, 0, sizeof(*s));
	return GS_OK;
}

static const struct dev_stage {
	gs_status (*run)(struct dev_ctx *c);
	const char *what; /* the cause's name for it, NULL: none */
} dev_stages[] = {
	{stage_breakdown, NULL},
	{stage_streams, NULL},
	{stage_comm, NULL},
	{stage_sync_calls, NULL},
	{stage_measures, NULL},
	{stage_schedule, "schedule"},
	{stage_over_schedule, "missed overlap"},
	{stage_missed_sums, NULL},
	{stage_candidates, "CUDA Graph candidates"},
	{stage_replay, NULL},
	{stage_keep_schedule, NULL},
};

static gs_status dev_build(struct gs_report *r, struct gs_report_device *d)
{
	struct dev_ctx c = {.r = r, .d = d, .win = r->window_set ? &r->window : NULL};
	gs_status st = GS_OK;

	for (size_t i = 0; st == GS_OK && i < GS_COUNT_OF(dev_stages); i++) {
		st = dev_stages[i].run(&c);
		if (st != GS_OK && dev_stages[i].what)
			gs_error_append("device %u: %s", d->device, dev_stages[i].what);
	}
	/* The schedule until the device keeps it (on a failure before). */
	gs_schedule_fini(&c.s);
	return st;
}

static void dev_fini(struct gs_report_device *d)
{
	size_t i;

	gs_breakdown_fini(&d->b);
	gs_schedule_fini(&d->sched);
	gs_gap_fini(&d->gap);
	gs_host_ranges_fini(&d->gap_host);
	free(d->step_stats);
	free(d->critical);
	free(d->critical_step);
	free(d->critical_rank);
	free(d->missed);
	gs_cudagraph_candidates_free(d->cands, d->n_cands);
	free(d->cand_replay);
	free(d->cand_replay_done);
	free(d->streams);
	free(d->kernels);
	free(d->waits);
	free(d->sync_calls);
	gs_measures_fini(&d->measures);
	gs_operators_fini(&d->operators);
	for (i = 0; i < d->n_findings; i++) {
		free(d->findings[i].text);
		free(d->findings[i].advice);
	}
	free(d->findings);
}

/* ------------------------------------------------------------------------ */
/* The report                                                                 */
/* ------------------------------------------------------------------------ */

void gs_report_destroy(struct gs_report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n_dev; i++)
		dev_fini(&r->dev[i]);
	free(r->dev);
	gs_steps_fini(&r->steps);
	free(r->name_slot);
	free(r->name_memo);
	free(r->call_order);
	free(r->call_tree);
	free(r->call_sum);
	gs_breakdown_cache_destroy(r->bd_cache);
	gs_op_index_destroy(r->op_index);
	free(r->waits);
	free(r->reported_waits);
	gs_graph_destroy(r->g);
	for (i = 0; i < r->n_inputs; i++)
		free(r->inputs[i]);
	free(r->inputs);
	free(r->format);
	for (i = 0; i < r->n_ranks; i++)
		gs_report_destroy(r->ranks[i]);
	free(r->ranks);
	gs_job_analysis_destroy(r->ja);
	gs_gate_verdict_destroy(r->verdict);
	free(r);
}

static gs_status copy_options(struct gs_report *r, const struct gs_report_options *o)
{
	size_t i;

	r->rows = o->rows ? o->rows : GS_REPORT_DEFAULT_ROWS;
	r->max_annotation_pieces = o->max_annotation_pieces;
	r->op_level = o->op_level == GS_OP_LEVEL_MODULE ? GS_OP_LEVEL_MODULE : GS_OP_LEVEL_OPERATOR;
	r->graph_node_ns = o->has_graph_node_ns ? o->graph_node_ns : GS_CUDAGRAPH_NODE_NS_DEFAULT;
	if (o->format) {
		r->format = strdup(o->format);
		if (!r->format)
			return gs_nomem();
	}
	if (o->n_inputs) {
		r->inputs = calloc(o->n_inputs, sizeof(*r->inputs));
		if (!r->inputs)
			return gs_nomem();
		for (i = 0; i < o->n_inputs; i++) {
			r->inputs[i] = strdup(o->inputs && o->inputs[i] ? o->inputs[i] : "");
			if (!r->inputs[i])
				return gs_nomem();
			r->n_inputs++;
		}
	}
	return GS_OK;
}

static gs_status resolve_window(struct gs_report *r, const struct gs_report_options *o)
{
	int64_t first = 0, last = 0;

	if (!o->window.set)
		return GS_OK;
	r->window = o->window;
	if (o->window_relative) {
		gs_trace_op_span(r->t, &first, &last);
		if (o->window.start_ns > INT64_MAX - first ||
		    o->window.end_ns > INT64_MAX - first) {
			gs_error_append("window: offsets too large");
			return GS_ERR_INVALID;
		}
		r->window.start_ns = first + o->window.start_ns;
		r->window.end_ns = first + o->window.end_ns;
	}
	if (r->window.end_ns <= r->window.start_ns) {
		gs_error_append("window: end %lld is not after start %lld",
				(long long)r->window.end_ns, (long long)r->window.start_ns);
		return GS_ERR_INVALID;
	}
	r->window_set = true;
	return GS_OK;
}

/* The trace's steps; without --window, the selected steps' span is the
 * window. With --window, the steps are listed and none is selected. */
static gs_status find_steps(struct gs_report *r, const struct gs_report_options *o)
{
	struct gs_step_options so = o->steps;
	gs_status st;

	so.has_device = o->has_device;
	so.device = o->device;
	if (r->window_set)
		so.pick = GS_STEP_NONE;
	st = gs_steps_find(r->t, &so, &r->steps);
	if (st != GS_OK || !r->steps.window_set)
		return st;
	r->window = (struct gs_window){.set = true,
				       .start_ns = r->steps.window_start_ns,
				       .end_ns = r->steps.window_end_ns};
	r->window_set = true;
	r->window_from_steps = true;
	return GS_OK;
}

/* Step i's figures on device d: its breakdown, schedules and the largest
 * cause of its gap, over the step's GPU window. */
static gs_status step_figures(struct gs_report *r, struct gs_report_device *d, size_t i)
{
	const struct gs_step *stp = &r->steps.steps[i];
	struct gs_report_step_stat *x = &d->step_stats[i];
	struct gs_window w = {.set = true,
			      .start_ns = stp->gpu_start_ns,
			      .end_ns = stp->gpu_end_ns};
	struct gs_breakdown b;
	struct gs_schedule s;
	struct gs_gap gap;
	gs_status st;

	st = gs_breakdown_compute_cached(r->t, d->device, &w, r->bd_cache, &b);
	if (st != GS_OK)
		return st;
	x->window_ns = b.window_ns;
	memcpy(x->total_ns, b.total_ns, sizeof(x->total_ns));
	gs_breakdown_fini(&b);
	st = gs_schedule_compute(r->t, r->g, d->device, &w, &s);
	if (st == GS_OK)
		st = gs_schedule_gap(r->t, r->g, &s, &gap);
	if (st != GS_OK) {
		gs_schedule_fini(&s);
		return st;
	}
	x->has = s.n_scheduled > 0;
	x->ops = s.n_scheduled;
	x->actual_ns = s.actual_ns;
	x->ideal_ns = s.ideal_ns;
	x->efficiency = s.actual_ns > 0 && s.ideal_ns <= s.actual_ns && !s.broken_cycles ?
				(double)s.ideal_ns / (double)s.actual_ns :
				NAN;
	for (unsigned c = 0; gap.available && c < GS_GAP_CAUSE_COUNT; c++)
		if (gap.ns[c] > 0 && gap.ns[c] > x->gap_cause_ns) {
			x->gap_cause = (uint8_t)c;
			x->gap_cause_ns = gap.ns[c];
		}
	gs_gap_fini(&gap);
	gs_schedule_fini(&s);
	return GS_OK;
}

/* How many of the first steps get figures on device d: each costs about
 * the device's ops that start in its window. */
static gs_status steps_with_figures(struct gs_report *r, struct gs_report_device *d)
{
	size_t n_ops, n_ranges, used = 0;
	const struct gs_op *ops = gs_trace_ops(r->t, &n_ops);
	struct gs_op_range *ranges = NULL;
	gs_status st = gs_device_op_ranges(r->t, d->device, &ranges, &n_ranges);

	if (st != GS_OK)
		return st;
	d->n_step_figures = 0;
	for (size_t i = 0; i < r->steps.n && i < GS_REPORT_STEP_FIGURES; i++) {
		const struct gs_step *stp = &r->steps.steps[i];
		size_t cost = 1;

		for (size_t k = 0; k < n_ranges && stp->gpu_end_ns > stp->gpu_start_ns; k++)
			cost += gs_op_range_first_at(ops, ranges[k], stp->gpu_end_ns) -
				gs_op_range_first_at(ops, ranges[k], stp->gpu_start_ns);
		if (i && used + cost > GS_REPORT_STEP_BUDGET)
			break;
		used += cost;
		d->n_step_figures = i + 1;
	}
	free(ranges);
	return GS_OK;
}

/* Each step's figures on device d, for the first steps within the
 * budget (the others list their windows only). */
static gs_status dev_steps(struct gs_report *r, struct gs_report_device *d)
{
	bool keep = r->n_dev >= GS_SHARE_MIN_DEVICES; /* the cache keeps them already */
	gs_status st;

	if (!r->steps.n || !r->g)
		return GS_OK;
	d->step_stats = calloc(r->steps.n, sizeof(*d->step_stats));
	if (!d->step_stats)
		return gs_nomem();
	for (size_t i = 0; i < r->steps.n; i++)
		d->step_stats[i].gap_cause = GS_GAP_CAUSE_COUNT;
	st = steps_with_figures(r, d);
	/* The steps' breakdowns share the threads' flattened calls; they go
	 * after this device's steps. */
	if (!keep)
		gs_breakdown_cache_keep(r->bd_cache, true);
	for (size_t i = 0; st == GS_OK && i < d->n_step_figures; i++)
		if (r->steps.steps[i].gpu_end_ns > r->steps.steps[i].gpu_start_ns)
			st = step_figures(r, d, i);
	if (!keep)
		gs_breakdown_cache_keep(r->bd_cache, false);
	return st;
}

/* The devices to report: all with ops, or the one asked for. */
static gs_status pick_devices(struct gs_report *r, const struct gs_report_options *o)
{
	uint32_t *ids = NULL;
	size_t n = 0, i;
	gs_status st;

	st = gs_trace_op_devices(r->t, &ids, &n);
	if (st != GS_OK)
		return st;
	if (o->has_device) {
		for (i = 0; i < n && ids[i] != o->device; i++)
			;
		if (i == n) {
			char list[256] = "";
			size_t len = 0, k;

			for (k = 0; k < n && len + 16 < sizeof(list); k++)
				len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%u",
							k ? ", " : "", ids[k]);
			if (n)
				gs_error_append(
					"device %u has no GPU ops in the trace (devices with "
					"ops: %s)",
					o->device, list);
			else
				gs_error_append(
					"device %u has no GPU ops: the trace has no GPU ops",
					o->device);
			free(ids);
			return GS_ERR_INVALID;
		}
		ids[0] = o->device;
		n = 1;
	}
	if (n) {
		r->dev = calloc(n, sizeof(*r->dev));
		if (!r->dev) {
			free(ids);
			return gs_nomem();
		}
	}
	for (i = 0; i < n; i++)
		r->dev[i].device = ids[i];
	r->n_dev = n;
	free(ids);
	return GS_OK;
}

gs_status gs_report_build(const struct gs_trace *t, const struct gs_report_options *o,
			  struct gs_report **out)
{
	static const struct gs_report_options defaults = {.rows = 0};
	struct gs_report *r;
	gs_status st;
	size_t i;

	if (out)
		*out = NULL;
	if (!t || !out) {
		gs_error_append("gs_report_build: no %s", t ? "output" : "trace");
		return GS_ERR_INVALID;
	}
	if (!o)
		o = &defaults;
	r = calloc(1, sizeof(*r));
	if (!r)
		return gs_nomem();
	r->t = t;
	r->pid = -1;
	r->host = "";
	r->input = "";
	st = copy_options(r, o);
	if (st == GS_OK)
		st = resolve_window(r, o);
	if (st == GS_OK)
		st = find_steps(r, o);
	if (st == GS_OK)
		st = pick_devices(r, o);
	if (st == GS_OK && r->n_dev) {
		struct gs_graph_options go = {.max_edges = o->max_edges};

		st = gs_graph_build_opts(t, &go, &r->g);
		if (st != GS_OK)
			gs_error_append("dependency graph");
	}
	if (st == GS_OK && r->g) {
		st = gs_waits_compute(t, r->g, &r->waits, &r->n_waits);
		if (st != GS_OK)
			gs_error_append("waits");
	}
	if (st == GS_OK)
		st = all_operators(r);
	for (i = 0; st == GS_OK && i < r->n_dev; i++) {
		st = dev_build(r, &r->dev[i]);
		if (st == GS_OK)
			st = dev_steps(r, &r->dev[i]);
	}
	/* The breakdown cache (per-thread pieces, the host range index) serves
	 * the devices' breakdowns only: its memory goes back before the rest. */
	gs_breakdown_cache_destroy(r->bd_cache);
	r->bd_cache = NULL;
	if (st == GS_OK)
		st = assign_waits(r);
	for (i = 0; st == GS_OK && i < r->n_dev; i++)
		st = gs_report_dev_findings(r, &r->dev[i]);
	if (st == GS_OK)
		st = gs_report_cut_lists(r);
	if (st != GS_OK) {
		gs_report_destroy(r);
		return st;
	}
	*out = r;
	return GS_OK;
}

/* ------------------------------------------------------------------------ */
/* The report of a job: one report per rank                                   */
/* ------------------------------------------------------------------------ */

const char *gs_report_device_title(const struct gs_report *r, const struct gs_report_device *d,
				   char *buf, size_t size)
{
	int n;

	if (!r->in_job) {
		snprintf(buf, size, "device %u%s%s", d->device, *d->name ? ": " : "", d->name);
		return buf;
	}
	n = snprintf(buf, size, "rank %u", r->rank);
	if (*r->host && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " \u00b7 %s", r->host);
	if (r->pid >= 0 && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " \u00b7 pid %lld", (long long)r->pid);
	if (n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " \u00b7 GPU %u%s%s", d->device,
			 *d->name ? " " : "", d->name);
	return buf;
}

/* Does rank `k` have GPU ops on device `dev`? */
static bool rank_has_device(const struct gs_job_rank *k, uint32_t dev)
{
	uint32_t *ids = NULL;
	size_t n = 0;
	bool has = false;

	if (gs_trace_op_devices(k->trace, &ids, &n) != GS_OK)
		return false;
	for (size_t i = 0; i < n; i++)
		has |= ids[i] == dev;
	free(ids);
	return has;
}

/* The ranks to report (a bitmap over j->ranks), from --rank and --device. */
static gs_status pick_ranks(const struct gs_job *j, const struct gs_report_options *o, bool *pick)
{
	size_t hits = 0, i;
	char list[160] = "";
	size_t len = 0;

	for (i = 0; i < j->n_ranks; i++) {
		pick[i] = !o->has_rank || j->ranks[i].rank == o->rank;
		hits += pick[i];
	}
	if (o->has_rank && !hits) {
		for (i = 0; i < j->n_ranks && len + 16 < sizeof(list); i++)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%u",
						i ? ", " : "", j->ranks[i].rank);
		gs_error_append("rank %u is not in the job (ranks: %s)", o->rank, list);
		return GS_ERR_INVALID;
	}
	if (!o->has_device || o->has_rank || j->n_ranks < 2)
		return GS_OK;
	/* --device N alone in a job: the one rank that has device N. */
	hits = 0;
	for (i = 0; i < j->n_ranks; i++) {
		pick[i] = rank_has_device(&j->ranks[i], o->device);
		if (pick[i]) {
			if (len + 16 < sizeof(list))
				len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%u",
							hits ? ", " : "", j->ranks[i].rank);
			hits++;
		}
	}
	if (hits == 1)
		return GS_OK;
	if (!hits)
		gs_error_append("device %u has no GPU ops on any rank of the job", o->device);
	else
		gs_error_append("device %u is on %zu ranks (%s): say which with --device R:%u "
				"or --rank R",
				o->device, hits, list, o->device);
	return GS_ERR_INVALID;
}

/* The first op start of the ranks of one clock group. */
static int64_t group_first(const struct gs_job *j, uint32_t group)
{
	int64_t first = 0;
	bool any = false;

	for (size_t i = 0; i < j->n_ranks; i++) {
		const struct gs_job_rank *k = &j->ranks[i];

		if (k->clock_group != group || (k->first_ns == 0 && k->last_ns == 0))
			continue;
		if (!any || k->first_ns < first)
			first = k->first_ns;
		any = true;
	}
	return first;
}

/*
 * A window that overlaps no op of the picked ranks (their op spans, first
 * start to last end, as the job read them) selects nothing: an error that
 * names the span, as offsets from the first op of each rank's clock group
 * (what --window +T0:+T1 takes), and in ns too for an absolute window.
 * Decided from the job alone, so every process of gpuscope-mpi decides the
 * same.
 */
static gs_status check_window(const struct gs_job *j, const struct gs_report_options *o,
			      const bool *pick)
{
	int64_t lo = 0, hi = 0, abs_lo = 0, abs_hi = 0;
	size_t spans = 0;
	uint64_t unit;
	char a[GS_DUR_TEXT_MAX], b[GS_DUR_TEXT_MAX], name[96];

	if (!o->window.set)
		return GS_OK;
	for (size_t i = 0; i < j->n_ranks; i++) {
		const struct gs_job_rank *k = &j->ranks[i];
		int64_t first = group_first(j, k->clock_group), w0, w1;

		if (!pick[i] || (k->first_ns == 0 && k->last_ns == 0))
			continue;
		w0 = o->window.start_ns;
		w1 = o->window.end_ns;
		if (o->window_relative) {
			if (w0 > INT64_MAX - first || w1 > INT64_MAX - first)
				return GS_OK; /* build_rank says so */
			w0 += first;
			w1 += first;
		}
		if (k->first_ns < w1 && (k->last_ns > w0 || k->first_ns >= w0))
			return GS_OK; /* it selects an op */
		if (!spans || k->first_ns - first < lo)
			lo = k->first_ns - first;
		if (!spans || k->last_ns - first > hi)
			hi = k->last_ns - first;
		if (!spans || k->first_ns < abs_lo)
			abs_lo = k->first_ns;
		if (!spans || k->last_ns > abs_hi)
			abs_hi = k->last_ns;
		spans++;
	}
	if (!spans)
		return GS_OK; /* no ops at all: the report says so */
	unit = gs_dur_unit(mag(lo) > mag(hi) ? mag(lo) : mag(hi));
	if (o->window_text)
		snprintf(name, sizeof(name), "%s", o->window_text);
	else
		snprintf(name, sizeof(name), "window %s%lld:%s%lld ns",
			 o->window_relative ? "+" : "", (long long)o->window.start_ns,
			 o->window_relative ? "+" : "", (long long)o->window.end_ns);
	if (o->window_relative)
		gs_error_append("%s: the trace%s span%s %s%s .. %s%s", name, spans > 1 ? "s" : "",
				spans > 1 ? "" : "s", lo >= 0 ? "+" : "",
				gs_dur_text_in(a, sizeof(a), lo, unit, false), hi >= 0 ? "+" : "",
				gs_dur_text_in(b, sizeof(b), hi, unit, false));
	else
		gs_error_append("%s: the trace%s span%s %lld .. %lld ns (%s%s .. %s%s)", name,
				spans > 1 ? "s" : "", spans > 1 ? "" : "s", (long long)abs_lo,
				(long long)abs_hi, lo >= 0 ? "+" : "",
				gs_dur_text_in(a, sizeof(a), lo, unit, false), hi >= 0 ? "+" : "",
				gs_dur_text_in(b, sizeof(b), hi, unit, false));
	return GS_ERR_INVALID;
}

static gs_status build_rank(const struct gs_job *j, size_t i, const struct gs_report_options *o,
			    struct gs_report **out)
{
	const struct gs_job_rank *k = &j->ranks[i];
	struct gs_report_options ro = *o;
	struct gs_report *c = NULL;
	gs_status st;

	if (o->window.set && o->window_relative) {
		int64_t first = group_first(j, k->clock_group);

		if (o->window.start_ns > INT64_MAX - first ||
		    o->window.end_ns > INT64_MAX - first) {
			gs_error_append("window: offsets too large");
			return GS_ERR_INVALID;
		}
		ro.window.start_ns = first + o->window.start_ns;
		ro.window.end_ns = first + o->window.end_ns;
		ro.window_relative = false;
	}
	/* In a job of two or more ranks, a rank's report names its own input
	 * only (the job's report names them all): a copy of every input in
	 * every rank's report grew as the square of the ranks (1,024 ranks:
	 * a million paths). A job of one rank is that rank's report, with
	 * every input (two inputs can be one process). */
	if (j->n_ranks > 1) {
		ro.inputs = o->inputs && k->input < o->n_inputs ? &o->inputs[k->input] : NULL;
		ro.n_inputs = ro.inputs ? 1 : 0;
	}
	/* --device N picks the device inside the rank; without --rank in a
	 * job, only the rank that has it was picked. */
	st = gs_report_build(k->trace, &ro, &c);
	if (st != GS_OK) {
		if (j->n_ranks > 1)
			gs_error_append("rank %u", k->rank);
		return st;
	}
	c->rank = k->rank;
	c->rank_declared = k->rank_declared;
	c->pid = k->pid;
	c->host = k->host_name;
	c->input = "";
	if (o->inputs && k->input < o->n_inputs && o->inputs[k->input])
		c->input = c->inputs[j->n_ranks > 1 ? 0 : k->input];
	c->clock_group = k->clock_group;
	c->clock_domain = k->clock_domain;
	c->clock = k->clock;
	c->wall_offset_ns = k->wall_offset_ns;
	c->world_size = k->world_size;
	c->host_from_name = k->host_from_name;
	c->in_job = j->n_ranks > 1;
	*out = c;
	return GS_OK;
}

/*
 * The picked ranks' reports, on as many CPUs as the process may use (at
 * most RANK_THREADS): each rank's report depends on its trace alone, so the
 * reports are the same whatever the threads. Threads take ranks in order
 * from a shared counter. On a failure the causes live on the thread that
 * failed: the first failing rank, in order, is built again on this thread
 * to report them.
 */
#define RANK_THREADS 16

struct rank_jobs {
	const struct gs_job *j;
	const struct gs_report_options *o;
	const bool *pick;
	struct gs_report **out; /* per rank of the job */
	gs_status *st;
	pthread_mutex_t mu;
	size_t next;
};

static void *rank_worker(void *arg)
{
	struct rank_jobs *rj = arg;

	for (;;) {
		size_t i;

		pthread_mutex_lock(&rj->mu);
		while (rj->next < rj->j->n_ranks && !rj->pick[rj->next])
			rj->next++;
		i = rj->next++;
		pthread_mutex_unlock(&rj->mu);
		if (i >= rj->j->n_ranks)
			return NULL;
		rj->st[i] = build_rank(rj->j, i, rj->o, &rj->out[i]);
		gs_error_clear();
	}
}

static gs_status build_ranks(const struct gs_job *j, const struct gs_report_options *o,
			     const bool *pick, struct gs_report *r)
{
	struct rank_jobs rj = {.j = j, .o = o, .pick = pick};
	pthread_t th[RANK_THREADS];
	size_t nth = 0, want = gs_cpu_count(), picked = 0, i;
	gs_status st = GS_OK;

	for (i = 0; i < j->n_ranks; i++)
		picked += pick[i];
	if (want > RANK_THREADS)
		want = RANK_THREADS;
	if (want > picked)
		want = picked;
	rj.out = calloc(j->n_ranks ? j->n_ranks : 1,
			sizeof(*rj.out)); /* NOLINT(bugprone-sizeof-expression): pointers */
	rj.st = calloc(j->n_ranks ? j->n_ranks : 1, sizeof(*rj.st));
	if (!rj.out || !rj.st) {
		free(rj.out);
		free(rj.st);
		return gs_nomem();
	}
	if (want >= 2 && pthread_mutex_init(&rj.mu, NULL) == 0) {
		while (nth < want && pthread_create(&th[nth], NULL, rank_worker, &rj) == 0)
			nth++;
		for (size_t k = 0; k < nth; k++)
			pthread_join(th[k], NULL);
		pthread_mutex_destroy(&rj.mu);
	}
	for (i = 0; i < j->n_ranks; i++) {
		if (!pick[i])
			continue;
		if (!nth) /* one CPU, or no thread could start */
			rj.st[i] = build_rank(j, i, o, &rj.out[i]);
		else if (rj.st[i] != GS_OK && st == GS_OK)
			rj.st[i] = build_rank(j, i, o, &rj.out[i]); /* for its causes */
		if (rj.st[i] != GS_OK && st == GS_OK)
			st = rj.st[i];
		if (rj.out[i])
			r->ranks[r->n_ranks++] = rj.out[i];
	}
	free(rj.out);
	free(rj.st);
	return st;
}

/* A job whose traces hold no GPU op at all: a profile of the host only,
 * which has nothing to analyze; the cause says what to record. */
static gs_status check_gpu_ops(const struct gs_job *j)
{
	size_t n;

	for (size_t i = 0; i < j->n_ranks; i++) {
		gs_trace_ops(j->ranks[i].trace, &n);
		if (n)
			return GS_OK;
	}
	if (j->n_ranks > 1)
		gs_error_append("no GPU ops in any of its %zu processes: they record the host only "
				"(a CPU-only profile): record the GPU too (PyTorch profiler: "
				"activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]; Nsight "
				"Systems: nsys profile --trace=cuda)",
				j->n_ranks);
	else
		gs_error_append("no GPU ops: the trace records the host only (a CPU-only "
				"profile): record the GPU too (PyTorch profiler: "
				"activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]; Nsight "
				"Systems: nsys profile --trace=cuda)");
	return GS_ERR_INVALID;
}

static gs_status build_job(const struct gs_job *j, const struct gs_report_options *o,
			   const bool *own, struct gs_report **out)
{
	static const struct gs_report_options defaults = {.rows = 0};
	struct gs_report *r;
	bool *pick = NULL;
	gs_status st;

	if (out)
		*out = NULL;
	if (!j || !out) {
		gs_error_append("gs_report_build_job: no %s", j ? "output" : "job");
		return GS_ERR_INVALID;
	}
	if (!o)
		o = &defaults;
	/* gpuscope-mpi (own) holds the traces of its own ranks only. */
	if (!own && check_gpu_ops(j) != GS_OK)
		return GS_ERR_INVALID;
	r = calloc(1, sizeof(*r));
	if (!r)
		return gs_nomem();
	r->job = j;
	r->pid = -1;
	r->host = "";
	r->input = "";
	r->align = o->align;
	st = copy_options(r, o);
	if (st == GS_OK && o->window.set) {
		r->window_set = true;
		r->window = o->window;
	}
	pick = calloc(j->n_ranks ? j->n_ranks : 1, sizeof(*pick));
	if (st == GS_OK && !pick)
		st = gs_nomem();
	if (st == GS_OK)
		st = pick_ranks(j, o, pick);
	if (st == GS_OK)
		st = check_window(j, o, pick);
	for (size_t i = 0; own && st == GS_OK && i < j->n_ranks; i++)
		pick[i] = pick[i] && own[i];
	if (st == GS_OK) {
		r->ranks = calloc(
			j->n_ranks ? j->n_ranks : 1,
			sizeof(*r->ranks)); /* NOLINT(bugprone-sizeof-expression): pointers */
		if (!r->ranks)
			st = gs_nomem();
	}
	if (st == GS_OK)
		st = build_ranks(j, o, pick, r);
	if (st == GS_OK && !own && j->n_ranks > 1 && !o->has_rank && !o->has_device)
		st = gs_job_analysis_build(r, &r->ja);
	free(pick);
	if (st != GS_OK) {
		gs_report_destroy(r);
		return st;
	}
	*out = r;
	return GS_OK;
}

gs_status gs_report_build_job(const struct gs_job *j, const struct gs_report_options *o,
			      struct gs_report **out)
{
	return build_job(j, o, NULL, out);
}

gs_status gs_report_build_job_own(const struct gs_job *j, const struct gs_report_options *o,
				  const bool *own, struct gs_report **out)
{
	return build_job(j, o, own, out);
}
