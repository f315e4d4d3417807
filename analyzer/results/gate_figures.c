/* SPDX-License-Identifier: MIT */
/*
 * A report's GPUs gated apart from the report (gpuscope/gate.h): the
 * figures gate.c checks of each GPU, as bytes, and the GPUs gathered from
 * them, checked as gs_report_gate checks a report's.
 */
#include <stdlib.h>
#include <string.h>

#include <gpuscope/gate.h>
#include <gpuscope/results.h>

#include "gate_priv.h"
#include "report_model_priv.h"

/* Per GPU: rank, device, in_job, the steps' median, ops, window, the
 * breakdown's totals, host-bound and launch-latency idle, efficiency and
 * its kind, actual, ideal, communication and its exposed part, waits,
 * missed overlap's exposed time; each as 8 bytes. */
#define FIELDS (16 + GS_CAT_COUNT)

struct gs_gate_figures {
	struct gs_report_device *dev; /* what the checks read of each GPU */
	struct gs_gate_gpu *gpu;
	size_t n, cap;
};

struct bytes {
	char *p;
	size_t len;
};

static void put(struct bytes *b, uint64_t v)
{
	memcpy(b->p + b->len, &v, sizeof(v));
	b->len += sizeof(v);
}

static uint64_t get(const char **p)
{
	uint64_t v;

	memcpy(&v, *p, sizeof(v));
	*p += sizeof(v);
	return v;
}

gs_status gs_gate_figures_pack(const struct gs_report *r, char **buf, size_t *len)
{
	size_t n_rk = gs_results_rank_count(r), n_gpus = 0, n, size;
	struct bytes b = {0};

	*buf = NULL;
	*len = 0;
	for (size_t i = 0; i < n_rk; i++) {
		gs_results_devices(gs_results_rank(r, i), &n);
		n_gpus += n;
	}
	size = sizeof(uint64_t) * (1 + n_gpus * FIELDS);
	b.p = malloc(size);
	if (!b.p)
		return gs_nomem();
	put(&b, n_gpus);
	for (size_t i = 0; i < n_rk; i++) {
		const struct gs_report *rank = gs_results_rank(r, i);
		const struct gs_report_device *dev = gs_results_devices(rank, &n);
		int64_t step = gs_results_window_from_steps(rank) ?
				       gs_gate_steps_median(gs_results_steps(rank)) :
				       -1;
		struct gs_results_process proc;

		gs_results_process(rank, &proc);
		for (size_t k = 0; k < n; k++) {
			const struct gs_report_device *d = &dev[k];
			uint64_t eff;

			memcpy(&eff, &d->efficiency, sizeof(eff));
			put(&b, proc.rank);
			put(&b, d->device);
			put(&b, proc.in_job);
			put(&b, (uint64_t)step);
			put(&b, d->ops);
			put(&b, (uint64_t)d->b.window_ns);
			for (int c = 0; c < GS_CAT_COUNT; c++)
				put(&b, (uint64_t)d->b.total_ns[c]);
			put(&b, (uint64_t)d->b.host_bound_ns);
			put(&b, (uint64_t)d->b.launch_latency_ns);
			put(&b, eff);
			put(&b, d->efficiency_kind);
			put(&b, (uint64_t)d->actual_ns);
			put(&b, (uint64_t)d->ideal_ns);
			put(&b, (uint64_t)d->comm_ns);
			put(&b, (uint64_t)d->comm_exposed_ns);
			put(&b, (uint64_t)d->wait_ns);
			put(&b, (uint64_t)d->missed_exposed_ns);
		}
	}
	*buf = b.p;
	*len = b.len;
	return GS_OK;
}

gs_status gs_gate_figures_add(struct gs_gate_figures **fp, const char *p, size_t len)
{
	const char *end = p + len;
	struct gs_gate_figures *f = *fp;
	uint64_t n;

	if (len < sizeof(uint64_t)) {
		gs_error_append("GPU figures: a short message of %zu bytes", len);
		return GS_ERR_INVALID;
	}
	n = get(&p);
	if (n > (size_t)(end - p) / (FIELDS * sizeof(uint64_t)) ||
	    (size_t)(end - p) != n * FIELDS * sizeof(uint64_t)) {
		gs_error_append("GPU figures: a message of the wrong length (%zu bytes)", len);
		return GS_ERR_INVALID;
	}
	if (!f) {
		f = calloc(1, sizeof(*f));
		if (!f)
			return gs_nomem();
		*fp = f;
	}
	if (f->n + n > f->cap) {
		size_t nc = f->cap ? f->cap : 16;
		struct gs_report_device *dev;
		struct gs_gate_gpu *gpu;

		while (nc < f->n + n)
			nc *= 2;
		dev = realloc(f->dev, nc * sizeof(*dev));
		if (dev)
			f->dev = dev;
		gpu = realloc(f->gpu, nc * sizeof(*gpu));
		if (gpu)
			f->gpu = gpu;
		if (!dev || !gpu)
			return gs_nomem();
		f->cap = nc;
	}
	for (uint64_t k = 0; k < n; k++) {
		struct gs_report_device *d = &f->dev[f->n];
		struct gs_gate_gpu *x = &f->gpu[f->n];
		uint64_t eff;

		memset(d, 0, sizeof(*d));
		memset(x, 0, sizeof(*x));
		x->rank[1] = (uint32_t)get(&p);
		d->device = (uint32_t)get(&p);
		x->device[1] = d->device;
		x->in_job = get(&p) != 0;
		x->step_ns[0] = -1;
		x->step_ns[1] = (int64_t)get(&p);
		x->f[0] = x->f[1] = 1;
		d->ops = get(&p);
		d->b.window_ns = (int64_t)get(&p);
		for (int c = 0; c < GS_CAT_COUNT; c++)
			d->b.total_ns[c] = (int64_t)get(&p);
		d->b.host_bound_ns = (int64_t)get(&p);
		d->b.launch_latency_ns = (int64_t)get(&p);
		eff = get(&p);
		memcpy(&d->efficiency, &eff, sizeof(eff));
		d->efficiency_kind = (uint8_t)get(&p);
		d->actual_ns = (int64_t)get(&p);
		d->ideal_ns = (int64_t)get(&p);
		d->comm_ns = (int64_t)get(&p);
		d->comm_exposed_ns = (int64_t)get(&p);
		d->wait_ns = (int64_t)get(&p);
		d->missed_exposed_ns = (int64_t)get(&p);
		f->n++;
	}
	return GS_OK;
}

gs_status gs_gate_figures_evaluate(const struct gs_gate *g, const struct gs_gate_figures *f,
				   struct gs_gate_verdict **out)
{
	/* The devices may have moved as the collection grew: point at them now. */
	for (size_t k = 0; f && k < f->n; k++)
		f->gpu[k].d[1] = &f->dev[k];
	return gs_gate_evaluate(g, f ? f->gpu : NULL, f ? f->n : 0, out);
}

void gs_gate_figures_destroy(struct gs_gate_figures *f)
{
	if (!f)
		return;
	free(f->dev);
	free(f->gpu);
	free(f);
}

void gs_report_keep_verdict(struct gs_report *r, struct gs_gate_verdict *v)
{
	if (!r) {
		gs_gate_verdict_destroy(v);
		return;
	}
	if (r->verdict != v)
		gs_gate_verdict_destroy(r->verdict);
	r->verdict = v;
}
