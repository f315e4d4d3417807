/* SPDX-License-Identifier: MIT */
/*
 * The analyze report's findings (report.c runs them per device): what was
 * seen, with numbers, and what to do about it (idle time, syncs, exposed
 * copies, pipelining, the schedule's constraints, dependency cycles,
 * invariants, waits, CUDA Graph candidates, communication, kernels),
 * ranked by the time at stake.
 */
#include <gpuscope/report_phrases.h>
#include "analyzer_priv.h"
#include "report_build_priv.h"

#include <gpuscope/breakdown.h>
#include <gpuscope/conditions.h>
#include <gpuscope/cudagraph.h>
#include <gpuscope/graph.h>
#include <gpuscope/hostattr.h>
#include <gpuscope/names.h>
#include <gpuscope/results.h>
#include <gpuscope/schedule.h>
#include <gpuscope/strbuf.h>
#include <gpuscope/text.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

#include <stdlib.h>
#include <string.h>

/* A duration in a finding: a marker (GS_DUR_MARK_FMT) that the writers
 * write out, every duration of the sentence in one unit (the largest's),
 * in their own way ("us" or "µs": gs_dur_sentence). */
static void append_dur(struct gs_strbuf *s, int64_t ns)
{
	gs_strbuf_printf(s, GS_DUR_MARK_FMT, (long long)ns);
}

/* A name cut to 60 code points with an ellipsis (findings stay short). */
static void append_name(struct gs_strbuf *s, const char *name)
{
	const unsigned char *p = (const unsigned char *)(name ? name : "");
	size_t cps = 0, cut = 0, i;

	for (i = 0; p[i]; i++) {
		if ((p[i] & 0xc0) != 0x80) {
			if (cps == 59)
				cut = i;
			cps++;
		}
	}
	if (cps <= 60)
		gs_strbuf_printf(s, "%s", (const char *)p);
	else
		gs_strbuf_printf(s, "%.*s\xe2\x80\xa6", (int)cut, (const char *)p);
}

static void append_pct(struct gs_strbuf *s, int64_t part, int64_t whole)
{
	char buf[32];

	gs_strbuf_printf(s, "%s", gs_report_pct(buf, sizeof(buf), part, whole));
}

/* ------------------------------------------------------------------------ */
/* Findings                                                                  */
/* ------------------------------------------------------------------------ */

#define MAX_FINDINGS 12

struct finding_list {
	struct gs_report_finding f[MAX_FINDINGS];
	size_t n;
	bool oom;
};

const char *gs_evidence_name(unsigned e)
{
	static const char *const n[] = {"measured", "modeled", "none"};

	return e < GS_COUNT_OF(n) ? n[e] : "?";
}

static void add_finding(struct finding_list *l, const char *kind, int64_t ns,
			struct gs_strbuf *text, struct gs_strbuf *advice,
			const struct gs_finding_data *data)
{
	struct gs_report_finding *f;

	if (l->n == MAX_FINDINGS) {
		gs_strbuf_free(text);
		gs_strbuf_free(advice);
		return;
	}
	f = &l->f[l->n];
	f->kind = kind;
	f->ns = ns;
	f->data = *data;
	f->text = gs_strbuf_take(text);
	f->advice = gs_strbuf_take(advice);
	if (!f->text || !f->advice) {
		free(f->text);
		free(f->advice);
		l->oom = true;
		return;
	}
	l->n++;
}

/* Worth a finding: at least 0.5% of the window (and some time at all). */
static bool significant(int64_t ns, int64_t window)
{
	/* ns * 200 >= window, without overflow on absurd spans. */
	return ns > 0 && ns >= window / 200 + (window % 200 > 0);
}

static bool name_has(const char *name, const char *part)
{
	return strstr(name, part) != NULL;
}

/* "N%" of the window and the time: "41.0% (12.300 ms)". */
static void append_share(struct gs_strbuf *s, int64_t ns, int64_t window)
{
	append_pct(s, ns, window);
	gs_strbuf_printf(s, " (");
	append_dur(s, ns);
	gs_strbuf_printf(s, ")");
}

/* Cross-stream dependencies the trace could not link (graph caveats). */
static uint64_t unlinked(const struct gs_report *r)
{
	return r->g ? r->g->unlinked_waits + r->g->unlinked_wait_calls : 0;
}

/* What to do about time the host spent inside `call` while the device
 * waited. */
static void advise_call(struct gs_strbuf *adv, const char *call, bool pageable)
{
	if (name_has(call, "Launch"))
		gs_strbuf_printf(
			adv,
			"the launch calls themselves (%s) are slower than the kernels they "
			"launch: launch fewer, larger kernels (fuse them) or replay the "
			"sequence from a CUDA Graph",
			call);
	else if ((name_has(call, "Memcpy") || name_has(call, "Memset")) &&
		 (pageable || !gs_api_name_is_async(call, strlen(call))))
		gs_strbuf_printf(adv,
				 "%s blocks the host until the device reaches the copy (%s): copy "
				 "to/from pinned buffers (cudaHostAlloc; pin_memory=True, "
				 "non_blocking=True) and read the result later instead of "
				 ".item()/.cpu() every iteration",
				 call, pageable ? "pageable host memory" : "a synchronous copy");
	else if (name_has(call, "Synchronize") || name_has(call, "Query"))
		gs_strbuf_printf(
			adv,
			"remove the per-iteration sync in %s (.item(), .cpu(), printing a "
			"loss) or move it off the critical path: queue the next work first",
			call);
	else if (name_has(call, "Malloc") || name_has(call, "Free") ||
		 name_has(call, "HostAlloc") || name_has(call, "HostRegister") ||
		 name_has(call, "HostUnregister"))
		gs_strbuf_printf(
			adv,
			"allocate once and reuse the buffers (a caching allocator) instead "
			"of calling %s in the loop",
			call);
	else
		gs_strbuf_printf(adv,
				 "the host was inside %s: move it out of the loop or onto another "
				 "thread",
				 call);
}

/* The class of host work that got most of the host-bound time. */
static unsigned host_dominant(const struct gs_host_ranges *h)
{
	unsigned best = 0;

	for (unsigned c = 1; c < GS_HOST_CLASS_COUNT; c++)
		if (h->class_ns[c] > h->class_ns[best])
			best = c;
	return best;
}

/* The host ranges explain the host-bound time: at least half of it lies
 * in ranges of the launching thread. */
static bool host_ranges_explain(const struct gs_host_ranges *h, int64_t total)
{
	return h->n_ranges && (total - h->outside_ns) * 2 >= total;
}

/* ": 420.1 ms (84%) in zoom (python) inside __next__; input_pipeline 96%,
 * outside any host range 1%" */
static void append_host_ranges(struct gs_strbuf *s, const struct gs_trace *t,
			       const struct gs_host_ranges *h, int64_t total)
{
	const struct gs_host_range_time *top = &h->ranges[0];
	unsigned dom = host_dominant(h);

	gs_strbuf_printf(s, ": ");
	append_dur(s, top->ns);
	gs_strbuf_printf(s, " (");
	append_pct(s, top->ns, total);
	gs_strbuf_printf(s, ") in ");
	append_name(s, gs_trace_string(t, top->name));
	gs_strbuf_printf(s, " (%s)", gs_range_kind_name(top->kind));
	if (top->context != GS_NO_STRING && top->context != top->name) {
		gs_strbuf_printf(s, " inside ");
		append_name(s, gs_trace_string(t, top->context));
	}
	gs_strbuf_printf(s, "; %s ", gs_host_class_name(dom));
	append_pct(s, h->class_ns[dom], total);
	for (unsigned c = 0; c < GS_HOST_CLASS_COUNT; c++) /* the others of 10% or more */
		if (c != dom && h->class_ns[c] > 0 && h->class_ns[c] * 10 >= total) {
			gs_strbuf_printf(s, ", %s ", gs_host_class_name(c));
			append_pct(s, h->class_ns[c], total);
		}
	if (h->outside_ns > 0) {
		gs_strbuf_printf(s, ", outside any host range ");
		append_pct(s, h->outside_ns, total);
	}
}

/* Advice from what dominated the host ranges during host-bound idle. */
static void advise_host_class(struct gs_strbuf *adv, const struct gs_trace *t,
			      const struct gs_host_ranges *h, int64_t total, unsigned dom)
{
	const struct gs_host_range_time *top = &h->ranges[0];

	for (size_t i = 0; i < h->n_ranges; i++) /* the top range of that class */
		if (h->ranges[i].cls == dom) {
			top = &h->ranges[i];
			break;
		}
	switch (dom) {
	case GS_HOST_INPUT:
		gs_strbuf_printf(adv, "the GPU waited for the input pipeline (");
		append_name(adv, gs_trace_string(t, top->name));
		if (top->context != GS_NO_STRING && top->context != top->name) {
			gs_strbuf_printf(adv, " inside ");
			append_name(adv, gs_trace_string(t, top->context));
		}
		gs_strbuf_printf(
			adv, "): prepare batches ahead of the GPU: more data-loader workers "
			     "(num_workers), pin_memory=True with non_blocking copies, prefetch "
			     "(prefetch_factor), or move the preprocessing onto the GPU or "
			     "offline");
		break;
	case GS_HOST_SYNC:
		gs_strbuf_printf(adv, "a synchronizing call (");
		append_name(adv, gs_trace_string(t, top->name));
		gs_strbuf_printf(adv,
				 ") held the host: remove it or defer it (read .item()/.cpu() "
				 "results later, not every step) and queue the next work first");
		break;
	case GS_HOST_OPERATOR:
		gs_strbuf_printf(
			adv,
			"the host spent %llu gaps in framework operators and Python between "
			"kernels (mostly ",
			(unsigned long long)h->intervals);
		append_name(adv, gs_trace_string(t, top->name));
		gs_strbuf_printf(adv,
				 "): capture the step in a CUDA Graph or use torch.compile to cut "
				 "the per-op overhead, or do more per launch (larger batches)");
		if (h->short_ns * 2 < total) {
			gs_strbuf_printf(adv, "; most of it is in gaps over ");
			append_dur(adv, GS_HOST_SHORT_GAP_NS);
			gs_strbuf_printf(
				adv, ": check first that it is dispatch overhead, not host "
				     "computation (a CPU fallback, allocations, data conversion)");
		}
		break;
	case GS_HOST_WAIT:
		gs_strbuf_printf(adv, "the launching thread was waiting (");
		append_name(adv, gs_trace_string(t, top->name));
		gs_strbuf_printf(adv,
				 ") for work this trace does not show: record the thread or "
				 "process it waited for (data-loader workers) to see what it did");
		break;
	default:
		gs_strbuf_printf(adv, "the host was inside ");
		append_name(adv, gs_trace_string(t, top->name));
		gs_strbuf_printf(
			adv,
			" (%s) with no finer host range recorded there: add ranges inside it "
			"(record_function, NVTX) or record with with_stack=True to see what "
			"the host did between launches",
			gs_range_kind_name(top->kind));
		break;
	}
}

static void advise_host_ranges(struct gs_strbuf *adv, const struct gs_trace *t,
			       const struct gs_host_ranges *h, int64_t total)
{
	advise_host_class(adv, t, h, total, host_dominant(h));
}

static void finding_idle(const struct gs_report *r, const struct gs_report_device *d,
			 struct finding_list *l)
{
	const struct gs_trace *t = r->t;
	const struct gs_breakdown *b = &d->b;
	int64_t idle = b->total_ns[GS_CAT_IDLE];
	struct gs_strbuf text = {0}, adv = {0};
	struct gs_finding_data fd = {.evidence = GS_EVIDENCE_MEASURED};
	const char *sep = "";
	const char *call = NULL;
	int64_t call_ns = 0, calls_ns = 0;

	if (!significant(idle, b->window_ns))
		return;
	if (b->n_top_host_calls) {
		call = gs_trace_string(t, b->top_host_calls[0].name);
		call_ns = b->top_host_calls[0].ns;
	}
	for (size_t i = 0; i < b->n_top_host_calls; i++)
		calls_ns += b->top_host_calls[i].ns;
	gs_finding_num(&fd, "idle_ns", (double)idle);
	gs_finding_num(&fd, "window_ns", (double)b->window_ns);
	gs_finding_num(&fd, "host_bound_ns", (double)b->host_bound_ns);
	gs_finding_num(&fd, "launch_latency_ns", (double)b->launch_latency_ns);
	gs_finding_num(&fd, "unattributed_ns", (double)b->unattributed_ns);
	if (call && call_ns > 0)
		gs_finding_num(&fd, "top_call_ns", (double)call_ns);
	gs_strbuf_printf(&text, "idle ");
	append_share(&text, idle, b->window_ns);
	gs_strbuf_printf(&text, ": ");
	if (b->host_bound_ns > 0) {
		append_dur(&text, b->host_bound_ns);
		gs_strbuf_printf(&text, " host-bound");
		if (call && call_ns > 0) {
			gs_strbuf_printf(&text, " (%s",
					 call_ns * 2 >= b->host_bound_ns ? "mostly " : "");
			append_dur(&text, call_ns);
			gs_strbuf_printf(&text, " inside %s)", call);
		}
		if (b->host_ranges.n_ranges)
			append_host_ranges(&text, t, &b->host_ranges, b->host_bound_ns);
		sep = b->host_ranges.n_ranges ? "; " : ", ";
	}
	if (b->launch_latency_ns > 0) {
		gs_strbuf_printf(&text, "%s", sep);
		append_dur(&text, b->launch_latency_ns);
		gs_strbuf_printf(&text, " launch latency");
		sep = ", ";
	}
	if (b->unattributed_ns > 0) {
		gs_strbuf_printf(&text, "%s", sep);
		append_dur(&text, b->unattributed_ns);
		gs_strbuf_printf(&text, " unattributed (no launch call recorded)");
	}

	if (b->host_bound_ns >= b->launch_latency_ns && b->host_bound_ns >= b->unattributed_ns) {
		fd.advice = call && call_ns * 3 >= b->host_bound_ns                ? "host_call" :
			    host_ranges_explain(&b->host_ranges, b->host_bound_ns) ? "host_ranges" :
			    calls_ns * 10 < b->host_bound_ns ? "record_host_ranges" :
							       "feed_the_gpu";
		if (call && call_ns * 3 >= b->host_bound_ns)
			advise_call(&adv, call, false);
		else if (host_ranges_explain(&b->host_ranges, b->host_bound_ns))
			advise_host_ranges(&adv, t, &b->host_ranges, b->host_bound_ns);
		else if (calls_ns * 10 < b->host_bound_ns)
			gs_strbuf_printf(
				&adv,
				"the trace does not show what the host was doing in these gaps "
				"(evidence: unknown; %s): record host ranges (PyTorch profiler "
				"with_stack=True and record_function, or NVTX ranges) to see it "
				"before changing the code",
				b->host_ranges.recorded ?
					"the launching thread's host ranges cover less than half" :
					"no host ranges recorded, the CUDA calls explain little");
		else
			gs_strbuf_printf(
				&adv,
				"the CPU did not issue work fast enough (host code between "
				"launches): overlap host work with GPU work, do more per "
				"launch (fuse kernels, larger batches) or capture the launches "
				"in a CUDA Graph");
	} else if (b->launch_latency_ns >= b->unattributed_ns) {
		fd.advice = unlinked(r) || d->comm_kernels ? "find_the_waits" : "fewer_launches";
		if (unlinked(r) || d->comm_kernels)
			gs_strbuf_printf(
				&adv,
				"the ops were launched early but started late: they waited on "
				"something this trace does not link (%s%s%s): %s",
				unlinked(r) ? "cross-stream events" : "",
				unlinked(r) && d->comm_kernels ? ", " : "",
				d->comm_kernels ? "other ranks through NCCL" : "",
				unlinked(r) ?
					"record cuda_sync events (PyTorch profiler: "
					"_ExperimentalConfig(enable_cuda_sync_events=True)) "
					"to see the waits, and compare the ranks' traces" :
					"compare the ranks' traces: the slowest rank sets the "
					"pace");
		else
			gs_strbuf_printf(
				&adv, "the ops started late after their launch call began (launch "
				      "overhead, or a full launch queue): launch fewer, larger "
				      "kernels (fuse them) or replay them from a CUDA Graph");
	} else {
		fd.advice = "record_runtime_api";
		gs_strbuf_printf(
			&adv,
			"no launch call is recorded for the ops that ended these gaps: "
			"record the CUDA runtime API too (the PyTorch profiler does by default) "
			"to attribute them");
	}
	add_finding(l, "idle", idle, &text, &adv, &fd);
}

static void finding_sync(const struct gs_report *r, const struct gs_report_device *d,
			 struct finding_list *l)
{
	int64_t sync = d->b.total_ns[GS_CAT_SYNC];
	struct gs_strbuf text = {0}, adv = {0};
	struct gs_finding_data fd = {.evidence = GS_EVIDENCE_MEASURED};
	const char *call = NULL;

	if (!significant(sync, d->b.window_ns))
		return;
	gs_finding_num(&fd, "sync_ns", (double)sync);
	gs_finding_num(&fd, "window_ns", (double)d->b.window_ns);
	if (d->n_sync_calls) {
		gs_finding_num(&fd, "top_call_ns", (double)d->sync_calls[0].ns);
		gs_finding_num(&fd, "top_call_count", (double)d->sync_calls[0].count);
	}
	gs_finding_num(&fd, "pageable_copies_count", (double)d->pageable_copies);
	gs_strbuf_printf(&text, "sync ");
	append_share(&text, sync, d->b.window_ns);
	gs_strbuf_printf(&text,
			 ": the device ran nothing while the host was blocked waiting on it");
	if (d->n_sync_calls) {
		call = gs_trace_string(r->t, d->sync_calls[0].name);
		gs_strbuf_printf(&text, ", %sinside %s (",
				 d->sync_calls[0].ns * 2 >= sync ? "mostly " : "", call);
		append_dur(&text, d->sync_calls[0].ns);
		gs_strbuf_printf(&text, " in %llu call%s)",
				 (unsigned long long)d->sync_calls[0].count,
				 d->sync_calls[0].count == 1 ? "" : "s");
	}
	if (d->pageable_copies && call && (name_has(call, "Memcpy") || name_has(call, "Memset"))) {
		gs_strbuf_printf(&text, "; %llu copies use pageable host memory",
				 (unsigned long long)d->pageable_copies);
		if (d->pageable_by_dir[GS_COPY_DTOH])
			gs_strbuf_printf(&text, " (%llu DtoH)",
					 (unsigned long long)d->pageable_by_dir[GS_COPY_DTOH]);
	}
	fd.advice = call ? "host_call" : "sync_later";
	if (call)
		advise_call(&adv, call, d->pageable_copies > 0);
	else
		gs_strbuf_printf(&adv,
				 "queue the next work before synchronizing, or sync on an event "
				 "later (only when the result is really needed)");
	add_finding(l, "sync", sync, &text, &adv, &fd);
}

static void finding_copy(const struct gs_report_device *d, struct finding_list *l)
{
	int64_t copy = d->b.total_ns[GS_CAT_COPY];
	struct gs_strbuf text = {0}, adv = {0};
	struct gs_finding_data fd = {.evidence = GS_EVIDENCE_MEASURED};
	unsigned worst = 0;
	size_t i;

	if (!significant(copy, d->b.window_ns))
		return;
	gs_finding_num(&fd, "copy_exposed_ns", (double)copy);
	gs_finding_num(&fd, "window_ns", (double)d->b.window_ns);
	gs_finding_num(&fd, "missed_count", (double)d->n_missed);
	gs_strbuf_printf(&text, "copy exposed ");
	append_share(&text, copy, d->b.window_ns);
	if (!d->n_missed) {
		gs_strbuf_printf(&text, ": no kernel could have hidden these copies");
		gs_strbuf_printf(&adv,
				 "move fewer bytes (keep data on the device, smaller dtypes) or "
				 "overlap the copies with the work of the next step");
		fd.advice = "move_fewer_bytes";
		add_finding(l, "exposed_copy", copy, &text, &adv, &fd);
		return;
	}
	gs_strbuf_printf(&text, ": %zu cop%s (", d->n_missed, d->n_missed == 1 ? "y" : "ies");
	append_dur(&text, d->missed_exposed_ns);
	if (d->n_possible == d->n_missed)
		gs_strbuf_printf(&text,
				 ") ran exposed where a kernel might have hidden %s (possible: ",
				 d->n_missed == 1 ? "it" : "them");
	else if (d->n_possible)
		gs_strbuf_printf(
			&text,
			") ran exposed although a kernel could have hidden %s (%llu possible: ",
			d->n_missed == 1 ? "it" : "them", (unsigned long long)d->n_possible);
	else
		gs_strbuf_printf(&text, ") ran exposed although a kernel could have hidden %s",
				 d->n_missed == 1 ? "it" : "them");
	if (d->n_possible)
		gs_strbuf_printf(&text, "%s)",
				 d->unknown_count[1] ? "only stream order joins them, no data "
						       "dependencies recorded" :
						       "host memory kind not recorded");
	for (i = 0; i < 3; i++)
		if (d->missing_count[i] > d->missing_count[worst])
			worst = (unsigned)i;
	if (d->missing_count[worst]) {
		const char *sep = "; missing ";

		for (i = 0; i < 3; i++) {
			if (!d->missing_count[i])
				continue;
			gs_strbuf_printf(&text, "%s%s (%llu)", sep, gs_condition_name(1u << i),
					 (unsigned long long)d->missing_count[i]);
			sep = ", ";
		}
	}
	gs_finding_num(&fd, "missed_exposed_ns", (double)d->missed_exposed_ns);
	gs_finding_num(&fd, "hideable_ns", (double)d->missed_hideable_ns);
	gs_finding_num(&fd, "possible_count", (double)d->n_possible);
	gs_strbuf_printf(&text, "; %s", d->n_possible ? "up to " : "");
	append_dur(&text, d->missed_hideable_ns);
	gs_strbuf_printf(&text, " could be hidden");
	fd.advice = !d->missing_count[worst]               ? "prefetch" :
		    (1u << worst) == GS_COND_PINNED_MEMORY ? "pin_memory" :
		    (1u << worst) == GS_COND_INDEPENDENT   ? "double_buffer" :
							     "copy_stream";
	if (!d->missing_count[worst] && d->n_possible)
		gs_strbuf_printf(
			&adv, "no condition is known to be missing, but independence is not "
			      "proven: check that the copies do not use the data of the kernels "
			      "around them (gpuscope record --data-deps records it); if not, issue "
			      "them on a separate stream ahead of those kernels (prefetch)");
	else if (!d->missing_count[worst])
		gs_strbuf_printf(&adv,
				 "every condition holds: issue these copies on a separate stream "
				 "ahead of the kernels that can hide them (prefetch)");
	else if ((1u << worst) == GS_COND_PINNED_MEMORY)
		gs_strbuf_printf(&adv,
				 "allocate the host buffers pinned (cudaHostAlloc / "
				 "cudaHostRegister; pin_memory=True in a DataLoader) so copies run "
				 "asynchronously");
	else if ((1u << worst) == GS_COND_INDEPENDENT)
		gs_strbuf_printf(&adv,
				 "double-buffer: split the data into batches so the next batch's "
				 "copy does not depend on the kernel running now");
	else
		gs_strbuf_printf(
			&adv, "issue the copies on their own stream (ops of one stream never "
			      "overlap) and keep a copy engine of that direction free: merge small "
			      "copies");
	add_finding(l, "exposed_copy", copy, &text, &adv, &fd);
}

static bool has_precondition(const struct gs_what_if *w, const char *name)
{
	size_t i;

	for (i = 0; i < w->n_preconditions && i < GS_COUNT_OF(w->preconditions); i++)
		if (w->preconditions[i] && !strcmp(w->preconditions[i], name))
			return true;
	return false;
}

/* Only when the batches exist and pipelining beats the ideal schedule of
 * the current structure (else the saving is only the host overhead that
 * the schedule finding already counts). */
static void finding_pipeline(const struct gs_report_device *d, struct finding_list *l)
{
	const struct gs_what_if *w = &d->pipelined;
	struct gs_strbuf text = {0}, adv = {0};
	struct gs_finding_data fd = {.evidence = GS_EVIDENCE_MODELED, .advice = "pipeline"};
	size_t i;

	if (!w->name || w->batches < 2 || w->makespan_ns <= 0 || w->makespan_ns >= d->ideal_ns ||
	    d->broken_cycles || !significant(d->ideal_ns - w->makespan_ns, d->actual_ns))
		return;
	gs_finding_num(&fd, "batches_count", (double)w->batches);
	gs_finding_num(&fd, "makespan_ns", (double)w->makespan_ns);
	gs_finding_num(&fd, "ideal_ns", (double)d->ideal_ns);
	gs_finding_num(&fd, "actual_ns", (double)d->actual_ns);
	gs_finding_num(&fd, "saving_ns", (double)w->saving_ns);
	gs_strbuf_printf(&text, "pipelining %zu batches over streams: makespan ", w->batches);
	append_dur(&text, w->makespan_ns);
	gs_strbuf_printf(&text, ", ");
	append_dur(&text, d->ideal_ns - w->makespan_ns);
	gs_strbuf_printf(&text, " under the ideal schedule of the current structure (");
	append_dur(&text, w->saving_ns);
	gs_strbuf_printf(&text, " under the actual ");
	append_dur(&text, d->actual_ns);
	gs_strbuf_printf(&text, ")");
	for (i = 0; i < w->n_preconditions && i < GS_COUNT_OF(w->preconditions); i++)
		gs_strbuf_printf(&text, "%s%s", i ? ", " : "; precondition: ",
				 w->preconditions[i] ? w->preconditions[i] : "?");
	gs_strbuf_printf(&adv,
			 "issue each batch's copy-in, compute and copy-out on its own stream, "
			 "with events between them, so one batch's copies run under another's "
			 "kernels");
	if (has_precondition(w, "pinned_memory"))
		gs_strbuf_printf(&adv, "; pin the host buffers first");
	add_finding(l, "pipelining", d->ideal_ns - w->makespan_ns, &text, &adv, &fd);
}

static const char *constraint_advice(unsigned c)
{
	switch (c) {
	case GS_BOUND_HOST_LAUNCH:
		return "the GPU waited for the CPU to launch: cut per-launch host work, fuse "
		       "kernels, or replay them from a CUDA Graph";
	case GS_BOUND_HOST_SYNC:
		return "host synchronizations serialise the work: remove them or wait on an "
		       "event later";
	case GS_BOUND_EVENT:
		return "cross-stream events gate the work: record each event right after the op "
		       "the other stream needs";
	case GS_BOUND_STREAM_ORDER:
		return "ops queued behind earlier ops of their stream: a delay upstream carries "
		       "over to every op behind it; shorten the ops at the head of the queue, and "
		       "give independent work its own stream";
	case GS_BOUND_DEFAULT_STREAM:
		return "the legacy default stream serialises the blocking streams: use streams "
		       "created with cudaStreamNonBlocking, or --default-stream per-thread";
	case GS_BOUND_SYNC_COPY:
		return "synchronous copies block the host: use cudaMemcpyAsync from pinned memory";
	case GS_BOUND_COPY_ENGINE:
		return "copies queue for a copy engine: merge small copies or spread them out";
	case GS_BOUND_DATA:
		return "data dependencies order the work: double-buffer so batches do not share "
		       "buffers";
	default:
		return "compare the ideal schedule with the actual one op by op (JSON output)";
	}
}

/* What to do about the largest cause of the gap. */
static void advise_gap(struct gs_strbuf *adv, const struct gs_report *r,
		       const struct gs_report_device *d, unsigned cause)
{
	const struct gs_host_ranges *h = &d->gap_host;
	int64_t total = d->gap.host_charged_ns;

	switch (cause) {
	case GS_GAP_HOST_BOUND:
		if (host_ranges_explain(h, total)) {
			/* The input pipeline first when it holds a quarter or
			 * more: its remedy is a setting, not a rewrite. */
			unsigned dom = host_dominant(h);

			if (dom != GS_HOST_INPUT && h->class_ns[GS_HOST_INPUT] * 4 >= total) {
				advise_host_class(adv, r->t, h, total, GS_HOST_INPUT);
				gs_strbuf_printf(adv, "; then ");
			}
			advise_host_class(adv, r->t, h, total, dom);
		} else
			gs_strbuf_printf(
				adv, "the host launched the ops late: see the idle finding for "
				     "what it was doing, and issue the work earlier or in larger "
				     "pieces (fuse kernels, larger batches, a CUDA Graph)");
		break;
	case GS_GAP_LAUNCH_LATENCY:
		gs_strbuf_printf(adv,
				 "the ops started late after their launch call began: launch "
				 "fewer, larger kernels (fuse them) or replay them from a CUDA "
				 "Graph");
		break;
	case GS_GAP_HOST_SYNC:
		gs_strbuf_printf(adv,
				 "host syncs drained the GPU before the next launch: remove or "
				 "defer them and queue the next work first");
		break;
	case GS_GAP_PAGEABLE_COPY:
		gs_strbuf_printf(adv,
				 "copies from or to pageable memory held the host: pin the host "
				 "buffers (cudaHostAlloc, pin_memory=True) so the copies run "
				 "asynchronously");
		break;
	case GS_GAP_STREAM_WAIT:
		gs_strbuf_printf(adv,
				 "ops started late after the waits on other streams ended: see "
				 "the waits");
		break;
	case GS_GAP_STREAM_SERIAL:
		gs_strbuf_printf(adv,
				 "ops started late after the op before them on their stream "
				 "(whether they needed it is unknown: the trace records no data "
				 "dependency): launch fewer, larger kernels, or put independent "
				 "work on its own stream");
		break;
	case GS_GAP_COPY_ENGINE:
		gs_strbuf_printf(adv,
				 "copies queued for a busy copy engine: fewer, larger copies, or "
				 "spread them over time");
		break;
	default:
		if (unlinked(r))
			gs_strbuf_printf(
				adv,
				"ops started long after every constraint the trace records "
				"(%llu cross-stream waits are not linked): record cuda_sync "
				"events (PyTorch profiler: _ExperimentalConfig("
				"enable_cuda_sync_events=True)) to see what held them",
				(unsigned long long)unlinked(r));
		else
			gs_strbuf_printf(adv,
					 "ops started long after every constraint the trace "
					 "records: a wait it did not record (other ranks, another "
					 "process), or the SMs busy with other work; record the "
					 "waits to know");
		break;
	}
}

/* The headline: how fast the same ops could run, and what the difference
 * is made of (gpuscope/schedule.h, gs_schedule_gap), largest cause first. */
static void finding_schedule(const struct gs_report *r, const struct gs_report_device *d,
			     struct finding_list *l)
{
	int64_t slack = d->actual_ns - d->ideal_ns;
	struct gs_strbuf text = {0}, adv = {0};
	const struct gs_gap *g = &d->gap;
	unsigned order[GS_GAP_CAUSE_COUNT], n = 0;
	struct gs_finding_data fd = {.evidence = GS_EVIDENCE_MODELED};

	if (d->actual_ns <= 0 || d->ideal_ns <= 0 || d->efficiency_kind != GS_REPORT_EFF_EXACT ||
	    !significant(slack, d->actual_ns))
		return;
	gs_finding_num(&fd, "efficiency", d->efficiency);
	gs_finding_num(&fd, "ideal_ns", (double)d->ideal_ns);
	gs_finding_num(&fd, "actual_ns", (double)d->actual_ns);
	gs_finding_num(&fd, "unlinked_waits_count", (double)unlinked(r));
	gs_strbuf_printf(&text, "efficiency %.2f: the same ops could finish in ", d->efficiency);
	append_dur(&text, d->ideal_ns);
	gs_strbuf_printf(&text, " (ideal schedule) instead of ");
	append_dur(&text, d->actual_ns);
	if (unlinked(r))
		gs_strbuf_printf(&text, " - optimistic: %llu cross-stream waits are not linked",
				 (unsigned long long)unlinked(r));
	if (d->optimistic)
		gs_strbuf_printf(&text, " - optimistic (see the caution on synchronization)");
	if (g->available) {
		for (unsigned c = 0; c < GS_GAP_CAUSE_COUNT; c++)
			if (g->ns[c] > 0)
				order[n++] = c;
		for (unsigned i = 1; i < n; i++) /* largest first (ties: cause order) */
			for (unsigned j = i; j > 0 && g->ns[order[j]] > g->ns[order[j - 1]]; j--) {
				unsigned x = order[j];

				order[j] = order[j - 1];
				order[j - 1] = x;
			}
		gs_strbuf_printf(&text, "; the ");
		append_dur(&text, slack);
		gs_strbuf_printf(&text, " between is");
		for (unsigned i = 0; i < n; i++) {
			static const char *const words[GS_GAP_CAUSE_COUNT] = {
				"host-bound",
				"launch latency",
				"after host syncs",
				"after pageable copies",
				"after waits on other streams",
				"stream order",
				"copy engines busy",
				"unexplained"};
			unsigned c = order[i];

			gs_strbuf_printf(&text, "%s ", i ? ";" : "");
			append_pct(&text, g->ns[c], slack);
			gs_strbuf_printf(&text, " %s (", words[c]);
			append_dur(&text, g->ns[c]);
			gs_strbuf_printf(&text, ")");
			if (c == GS_GAP_HOST_BOUND && d->gap_host.n_ranges &&
			    g->host_charged_ns > 0)
				append_host_ranges(&text, r->t, &d->gap_host, g->host_charged_ns);
		}
	}
	if (g->available && n) {
		static const char *const kinds[GS_GAP_CAUSE_COUNT] = {
			"host_bound",  "launch_latency",       "host_sync",   "pageable_copy",
			"stream_wait", "stream_serialisation", "copy_engine", "unexplained"};

		gs_finding_num(&fd, "largest_cause_ns", (double)g->ns[order[0]]);
		fd.advice = kinds[order[0]];
	} else {
		fd.advice = d->active_streams <= 1 ? "fewer_launches" : "compare_schedules";
	}
	if (g->available && n)
		advise_gap(&adv, r, d, order[0]);
	else if (d->active_streams <= 1)
		/* One stream: its ops run one after another in both schedules,
		 * so the whole gap is host and launch time between them. */
		gs_strbuf_printf(
			&adv, "one stream: the gap to the ideal is host and launch time between "
			      "the ops: launch fewer, larger kernels (fuse them, larger batches) "
			      "or replay the sequence from a CUDA Graph");
	else
		gs_strbuf_printf(&adv,
				 "compare the ideal schedule with the actual one op by op (JSON "
				 "output)");
	add_finding(l, "schedule", slack, &text, &adv, &fd);
}

/* Dependency cycles: the schedules rest on a graph no real run has. First
 * of the findings, whatever the time at stake (none is known). */
static void finding_cycles(const struct gs_report_device *d, struct finding_list *l)
{
	struct gs_strbuf text = {0}, adv = {0};
	struct gs_finding_data fd = {.evidence = GS_EVIDENCE_NONE, .advice = "check_the_trace"};

	if (!d->broken_cycles)
		return;
	gs_finding_num(&fd, "broken_at_count", (double)d->broken_cycles);
	gs_strbuf_printf(
		&text,
		"dependency cycles: ops wait (through events, host syncs or the default stream) "
		"on work that waits on them, which no real run can do; the schedules broke the "
		"cycles at %llu op%s by dropping edges, so the ideal and dependency-bound "
		"schedules, the critical path and the waits are unreliable and no efficiency "
		"is given",
		(unsigned long long)d->broken_cycles, d->broken_cycles == 1 ? "" : "s");
	gs_strbuf_printf(&adv,
			 "check how the trace was made: a corrupt, hand-edited or wrongly merged "
			 "trace (waits joined to the wrong event records) has cycles; the waits "
			 "listed are a place to start");
	add_finding(l, "dependency_cycles", 0, &text, &adv, &fd);
}

/* A schedule that breaks what must hold (gs_invariants), or an ideal
 * longer than the run: the numbers say which and how much. First of the
 * findings, like cycles. */
/* append_dur's marker, for a printf argument: one unit when taken. */
#define DUR(buf, ns) gs_dur_mark(buf, sizeof(buf), (ns))

static void finding_invariants(const struct gs_report *r, const struct gs_report_device *d,
			       struct finding_list *l)
{
	const struct gs_invariants *v = &d->inv;
	struct gs_strbuf text = {0}, adv = {0};
	char a[32], b[32];
	bool bounded = d->efficiency_kind == GS_REPORT_EFF_BOUNDED;
	struct gs_finding_data fd = {.evidence = GS_EVIDENCE_NONE};

	if (!v->violations && !bounded)
		return;
	fd.advice = v->violations ? "report_a_bug" : "check_the_trace";
	gs_finding_num(&fd, "violations_count", (double)v->violations);
	gs_finding_num(&fd, "ideal_ns", (double)d->ideal_ns);
	gs_finding_num(&fd, "actual_ns", (double)d->actual_ns);
	gs_finding_num(&fd, "dependency_bound_ns", (double)d->dependency_bound_ns);
	gs_strbuf_printf(&text, "inconsistent schedule:");
	if (bounded)
		gs_strbuf_printf(
			&text,
			" the ideal schedule (%s) is longer than the recorded run (%s), so "
			"the efficiency is given as 1;",
			DUR(a, d->ideal_ns), DUR(b, d->actual_ns));
	if (v->actual_early)
		gs_strbuf_printf(&text,
				 " in the recording %llu op%s started before an op %s depend%s on "
				 "ended (by up to %s, op %llu);",
				 (unsigned long long)v->actual_early,
				 v->actual_early == 1 ? "" : "s",
				 v->actual_early == 1 ? "it" : "they",
				 v->actual_early == 1 ? "s" : "", DUR(a, v->actual_early_max_ns),
				 (unsigned long long)gs_report_op_id(r->t, v->actual_early_op));
	if (v->cross_process_edges)
		gs_strbuf_printf(&text, " %llu dependenc%s join%s two processes;",
				 (unsigned long long)v->cross_process_edges,
				 v->cross_process_edges == 1 ? "y" : "ies",
				 v->cross_process_edges == 1 ? "s" : "");
	if (v->early_starts)
		gs_strbuf_printf(
			&text,
			" the ideal schedule starts %llu op%s before a predecessor ends (by up "
			"to %s, op %llu);",
			(unsigned long long)v->early_starts, v->early_starts == 1 ? "" : "s",
			DUR(a, v->early_max_ns),
			(unsigned long long)gs_report_op_id(r->t, v->early_op));
	if (v->ideal_below_bound)
		gs_strbuf_printf(&text,
				 " the ideal (%s) is shorter than the dependency bound (%s);",
				 DUR(a, d->ideal_ns), DUR(b, d->dependency_bound_ns));
	if (v->critical_mismatch)
		gs_strbuf_printf(&text,
				 " the critical path (%s) differs from the dependency bound (%s);",
				 DUR(a, v->critical_path_ns), DUR(b, d->dependency_bound_ns));
	gs_strbuf_printf(&text, " the schedules and waits of this GPU are not reliable");
	gs_strbuf_printf(&adv, "%s",
			 v->violations ?
				 "this is a bug in gpuscope or in how the trace was merged: "
				 "please report it with the trace" :
				 "check the trace: device clocks that disagree with the host's, "
				 "or a wait joined to the wrong event record, make a run look "
				 "faster than its dependencies allow");
	add_finding(l, "inconsistent_schedule", 0, &text, &adv, &fd);
}
#undef DUR

/* Waits matter where the device had nothing else to run: their time at
 * stake is capped by the device's idle and sync time. */
static void finding_waits(const struct gs_report *r, const struct gs_report_device *d,
			  struct finding_list *l)
{
	const struct gs_trace *t = r->t;
	struct gs_strbuf text = {0}, adv = {0};
	struct gs_finding_data fd = {.evidence = GS_EVIDENCE_MEASURED};
	const struct gs_wait *w;
	size_t n_ops;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	int64_t at_stake, empty = d->b.total_ns[GS_CAT_IDLE] + d->b.total_ns[GS_CAT_SYNC];
	const char *sep = " (";
	unsigned k;

	if (!d->n_waits)
		return;
	at_stake = d->wait_ns < empty ? d->wait_ns : empty;
	if (!significant(at_stake, d->b.window_ns))
		return;
	w = &r->waits[d->waits[0]];
	gs_finding_num(&fd, "waits_count", (double)d->n_waits);
	gs_finding_num(&fd, "wait_ns", (double)d->wait_ns);
	gs_finding_num(&fd, "idle_and_sync_ns", (double)empty);
	gs_finding_num(&fd, "longest_wait_ns", (double)w->wait_ns);
	fd.advice = w->kind == GS_EDGE_HOST_SYNC      ? "sync_later" :
		    w->kind == GS_EDGE_DEFAULT_STREAM ? "non_blocking_streams" :
							"record_events_earlier";
	gs_strbuf_printf(&text, "%zu wait%s held ops back for ", d->n_waits,
			 d->n_waits == 1 ? "" : "s");
	append_dur(&text, d->wait_ns);
	gs_strbuf_printf(&text, " in total");
	for (k = 0; k < GS_EDGE_KIND_COUNT; k++) {
		if (!d->wait_kind_count[k])
			continue;
		gs_strbuf_printf(&text, "%s%s %llu", sep, gs_edge_kind_name(k),
				 (unsigned long long)d->wait_kind_count[k]);
		sep = ", ";
	}
	if (sep[0] == ',')
		gs_strbuf_printf(&text, ")");
	if (w->consumer < n_ops && w->producer < n_ops) {
		gs_strbuf_printf(&text, "; longest: ");
		append_name(&text, gs_trace_string(t, ops[w->consumer].name));
		gs_strbuf_printf(&text, " on stream %llu waited ",
				 (unsigned long long)gs_report_op_stream(t, w->consumer));
		append_dur(&text, w->wait_ns);
		gs_strbuf_printf(&text, " for ");
		append_name(&text, gs_trace_string(t, ops[w->producer].name));
		gs_strbuf_printf(&text, " on stream %llu",
				 (unsigned long long)gs_report_op_stream(t, w->producer));
	}
	switch (w->kind) {
	case GS_EDGE_HOST_SYNC:
		gs_strbuf_printf(&adv,
				 "the host waited for the GPU before launching more: launch the "
				 "next work before the sync, or sync later");
		break;
	case GS_EDGE_DEFAULT_STREAM:
		gs_strbuf_printf(&adv, "%s", constraint_advice(GS_BOUND_DEFAULT_STREAM));
		break;
	default:
		gs_strbuf_printf(&adv,
				 "check that the consumer really needs the whole producer: record "
				 "the event right after the op it needs, or split the producer");
		break;
	}
	add_finding(l, "waits", at_stake, &text, &adv, &fd);
}

/* Mean gap between the kernels of a candidate's occurrences. */
static int64_t cand_mean_gap(const struct gs_cudagraph_candidate *c)
{
	uint64_t gaps = (uint64_t)c->repetitions * (c->length > 1 ? c->length - 1 : 1);

	return gaps ? c->exposed_launch_ns / (int64_t)gaps : 0;
}

/* Candidates a graph would shorten: not launched from one already. Their
 * gaps are launch overhead (none over GS_REPORT_LAUNCH_GAP_NS), and they
 * are exactly the ones the replay what-if removes. */
static bool cand_launch_bound(const struct gs_cudagraph_candidate *c)
{
	return !c->already_graph && c->exposed_launch_ns > 0;
}

static void finding_graphs(const struct gs_trace *t, const struct gs_report_device *d,
			   struct finding_list *l)
{
	struct gs_strbuf text = {0}, adv = {0};
	struct gs_finding_data fd = {.evidence = GS_EVIDENCE_MEASURED, .advice = "cuda_graph"};
	const struct gs_cudagraph_candidate *c = NULL;
	size_t n_ops, i, n = 0;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	int64_t total = 0, at_stake, empty;

	for (i = 0; i < d->n_cands; i++) {
		if (!cand_launch_bound(&d->cands[i]))
			continue;
		if (!c)
			c = &d->cands[i]; /* ranked: most exposed first */
		total = gs_report_sat_add(total, d->cands[i].exposed_launch_ns);
		n++;
	}
	empty = d->b.total_ns[GS_CAT_IDLE] + d->b.total_ns[GS_CAT_SYNC];
	at_stake = total < empty ? total : empty;
	if (!c || !significant(at_stake, d->b.window_ns))
		return;
	gs_finding_num(&fd, "sequences_count", (double)n);
	gs_finding_num(&fd, "launch_gaps_ns", (double)total);
	gs_finding_num(&fd, "idle_and_sync_ns", (double)empty);
	gs_finding_num(&fd, "largest_length_count", (double)c->length);
	gs_finding_num(&fd, "largest_repetitions_count", (double)c->repetitions);
	if (d->replay.name && d->replay.saving_ns > 0) {
		gs_finding_num(&fd, "replay_makespan_ns", (double)d->replay.makespan_ns);
		gs_finding_num(&fd, "replay_saving_ns", (double)d->replay.saving_ns);
	}
	gs_strbuf_printf(&text, "%zu repeated kernel sequence%s with launch gaps: ", n,
			 n == 1 ? "" : "s");
	append_dur(&text, total);
	gs_strbuf_printf(&text,
			 " between their kernels; the largest: %zu kernels x %zu on stream %llu (",
			 c->length, c->repetitions,
			 (unsigned long long)(c->length && c->kernels[0] < n_ops ?
						      gs_report_op_stream(t, c->kernels[0]) :
						      0));
	append_dur(&text, c->exposed_launch_ns);
	gs_strbuf_printf(&text, ", ");
	append_dur(&text, cand_mean_gap(c));
	gs_strbuf_printf(&text, " a gap)");
	if (c->length && c->kernels[0] < n_ops) {
		gs_strbuf_printf(&text, ", starting with ");
		append_name(&text, gs_trace_string(t, ops[c->kernels[0]].name));
	}
	if (d->replay.name && d->replay.saving_ns > 0) {
		/* The replay what-if: the recorded run re-timed. */
		gs_strbuf_printf(&text, "; replayed from graphs the run takes ");
		append_dur(&text, d->replay.makespan_ns);
		gs_strbuf_printf(&text, " (");
		append_dur(&text, d->replay.saving_ns);
		gs_strbuf_printf(&text, " less)");
	}
	gs_strbuf_printf(&adv,
			 "capture the sequence once in a CUDA Graph (cudaStreamBeginCapture / "
			 "torch.cuda.CUDAGraph) and replay it: one launch instead of %zu",
			 c->length);
	add_finding(l, "graph_candidates", at_stake, &text, &adv, &fd);
}

static void finding_comm(const struct gs_report_device *d, struct finding_list *l)
{
	struct gs_strbuf text = {0}, adv = {0};
	struct gs_finding_data fd = {.evidence = GS_EVIDENCE_MEASURED,
				     .advice = "overlap_communication"};
	int64_t all = 0;
	size_t i;

	if (!d->comm_kernels || !significant(d->comm_exposed_ns, d->b.window_ns))
		return;
	gs_finding_num(&fd, "comm_kernels_count", (double)d->comm_kernels);
	gs_finding_num(&fd, "comm_ns", (double)d->comm_ns);
	gs_finding_num(&fd, "comm_union_ns", (double)d->comm_union_ns);
	gs_finding_num(&fd, "comm_exposed_ns", (double)d->comm_exposed_ns);
	gs_finding_num(&fd, "window_ns", (double)d->b.window_ns);
	for (i = 0; i < d->n_kernels; i++)
		all += d->kernels[i].ns;
	gs_strbuf_printf(&text, "communication: %llu NCCL kernels ran ",
			 (unsigned long long)d->comm_kernels);
	append_dur(&text, d->comm_union_ns);
	gs_strbuf_printf(&text, " (");
	append_pct(&text, d->comm_ns, all);
	gs_strbuf_printf(&text, " of kernel time); ");
	append_dur(&text, d->comm_exposed_ns);
	gs_strbuf_printf(&text, " of it with no compute kernel alongside");
	gs_strbuf_printf(&adv,
			 "NCCL kernel time includes waiting for the other ranks: compare the "
			 "ranks' traces (the slowest sets the pace), and overlap communication "
			 "with compute (bucketed all-reduce, send/recv on their own stream)");
	add_finding(l, "communication", d->comm_exposed_ns, &text, &adv, &fd);
}

static void finding_kernels(const struct gs_trace *t, const struct gs_report_device *d,
			    struct finding_list *l)
{
	int64_t kern = d->b.total_ns[GS_CAT_KERNEL], all = 0;
	const struct gs_report_kernel *k;
	struct gs_strbuf text = {0}, adv = {0};
	struct gs_finding_data fd = {.evidence = GS_EVIDENCE_MEASURED, .advice = "faster_kernels"};
	size_t i;

	if (!d->n_kernels || d->b.dominant != GS_CAT_KERNEL || !significant(kern, d->b.window_ns))
		return;
	k = &d->kernels[0];
	for (i = 0; i < d->n_kernels; i++)
		all += d->kernels[i].ns;
	gs_finding_num(&fd, "kernel_ns", (double)kern);
	gs_finding_num(&fd, "window_ns", (double)d->b.window_ns);
	gs_finding_num(&fd, "top_kernel_ns", (double)k->ns);
	gs_finding_num(&fd, "top_kernel_count", (double)k->count);
	gs_finding_num(&fd, "kernels_total_ns", (double)all);
	gs_strbuf_printf(&text, "kernels ran ");
	append_pct(&text, kern, d->b.window_ns);
	gs_strbuf_printf(&text, " of the window (the dominant category: a lead to check); the top "
				"kernel ");
	append_name(&text, gs_trace_string(t, k->name));
	gs_strbuf_printf(&text, " takes ");
	append_dur(&text, k->ns);
	gs_strbuf_printf(&text, " (");
	append_pct(&text, k->ns, all);
	gs_strbuf_printf(&text, " of kernel time, %llu launches)", (unsigned long long)k->count);
	gs_strbuf_printf(&adv,
			 "the GPU is busy: speed up the top kernels (profile them with Nsight "
			 "Compute), or run independent work concurrently on other streams");
	add_finding(l, "kernels", k->ns, &text, &adv, &fd);
}

/* Ranked by the time at stake; dependency cycles (which make the rest
 * doubtful) first, then the efficiency headline, the dominant-kernel lead
 * last. */
static int finding_rank(const char *kind)
{
	if (!strcmp(kind, "dependency_cycles") || !strcmp(kind, "inconsistent_schedule"))
		return -1;
	if (!strcmp(kind, "schedule"))
		return 0;
	if (!strcmp(kind, "kernels"))
		return 2;
	return 1;
}

static int cmp_finding(const void *pa, const void *pb)
{
	const struct gs_report_finding *a = pa, *b = pb;
	int ra = finding_rank(a->kind), rb = finding_rank(b->kind);

	if (ra != rb)
		return ra < rb ? -1 : 1;
	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return strcmp(a->kind, b->kind);
}

gs_status gs_report_dev_findings(const struct gs_report *r, struct gs_report_device *d)
{
	struct finding_list l = {.n = 0};

	finding_cycles(d, &l);
	finding_invariants(r, d, &l);
	finding_schedule(r, d, &l);
	finding_idle(r, d, &l);
	finding_sync(r, d, &l);
	finding_copy(d, &l);
	finding_pipeline(d, &l);
	finding_waits(r, d, &l);
	finding_graphs(r->t, d, &l);
	finding_comm(d, &l);
	finding_kernels(r->t, d, &l);
	if (l.n) {
		qsort(l.f, l.n, sizeof(l.f[0]), cmp_finding);
		d->findings = malloc(l.n * sizeof(*d->findings));
		if (d->findings) {
			memcpy(d->findings, l.f, l.n * sizeof(*d->findings));
			d->n_findings = l.n;
		} else {
			size_t i;

			for (i = 0; i < l.n; i++) {
				free(l.f[i].text);
				free(l.f[i].advice);
			}
			l.oom = true;
		}
	}
	return l.oom ? gs_nomem() : GS_OK;
}
