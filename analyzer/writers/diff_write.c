/* SPDX-License-Identifier: MIT */
/*
 * `gpuscope diff`'s writers: the comparison diff_match.c built, as JSON
 * (gs_diff_write_json) and as text (gs_diff_write_text).
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <gpuscope/diff.h>
#include <gpuscope/gate.h>
#include <gpuscope/json.h>
#include <gpuscope/names.h>
#include <gpuscope/outbuf.h>
#include <gpuscope/results.h>
#include <gpuscope/text.h>

#define WIDTH 100

static const struct {
	const char *key;  /* JSON */
	const char *text; /* text label */
	bool ns;          /* a duration (else a count) */
} metrics[GS_DIFF_M_COUNT] = {
	[GS_DIFF_M_WINDOW] = {"window_ns", "window", true},
	[GS_DIFF_M_KERNEL] = {"kernel_ns", "kernel", true},
	[GS_DIFF_M_COPY] = {"copy_ns", "copy (exposed)", true},
	[GS_DIFF_M_SYNC] = {"sync_ns", "sync (exposed)", true},
	[GS_DIFF_M_IDLE] = {"idle_ns", "idle", true},
	[GS_DIFF_M_COPY_HIDDEN] = {"copy_hidden_ns", "copy hidden", true},
	[GS_DIFF_M_CONCURRENCY] = {"kernel_concurrency_ns", "kernel concurrency", true},
	[GS_DIFF_M_HOST_BOUND] = {"host_bound_ns", "idle: host bound", true},
	[GS_DIFF_M_LAUNCH_LATENCY] = {"launch_latency_ns", "idle: launch latency", true},
	[GS_DIFF_M_UNATTRIBUTED] = {"unattributed_ns", "idle: unattributed", true},
	[GS_DIFF_M_ACTUAL] = {"actual_ns", "actual", true},
	[GS_DIFF_M_DEP_BOUND] = {"dependency_bound_ns", "dependency bound", true},
	[GS_DIFF_M_IDEAL] = {"ideal_ns", "ideal", true},
	[GS_DIFF_M_PIPELINED] = {"pipelined_batches_ns", "pipelined batches", true},
	[GS_DIFF_M_OPS] = {"ops", "ops", false},
	[GS_DIFF_M_KERNELS] = {"kernels", "kernels", false},
	[GS_DIFF_M_MEMCPYS] = {"memcpys", "memcpys", false},
	[GS_DIFF_M_MEMSETS] = {"memsets", "memsets", false},
	[GS_DIFF_M_WAITS] = {"waits", "waits", false},
	[GS_DIFF_M_WAIT_NS] = {"wait_ns", "wait time", true},
	[GS_DIFF_M_MISSED] = {"missed_overlaps", "missed overlaps", false},
	[GS_DIFF_M_MISSED_NS] = {"missed_exposed_ns", "missed: exposed", true},
};

static const char *const basis_names[] = {"total", "per_iteration", "scaled_by_ops"};
static const char *const iter_src_names[] = {"none", "profiler_steps", "nvtx"};

static const char *const eff_kind_names[] = {
	[GS_REPORT_EFF_EXACT] = "exact",
	[GS_REPORT_EFF_BOUNDED] = "bounded",
	[GS_REPORT_EFF_CYCLES] = "cycles_broken",
};

static const char *const status_names[] = {"same", "changed", "new", "vanished"};

static int64_t kern_delta(const struct gs_diff_kernel *k)
{
	return k->ns[GS_DIFF_NEW] - k->ns[GS_DIFF_BASE];
}

/* The mean time per call, rounded to the ns (0 without calls). */
static int64_t kern_mean(const struct gs_diff_kernel *k, int s)
{
	return k->count[s] ? llround((double)k->ns[s] / (double)k->count[s]) : 0;
}
/* ---- JSON ------------------------------------------------------------------ */

static void diff_json_i64_or_null(struct gs_json *w, const char *key, bool has, int64_t v)
{
	if (has)
		gs_json_i64(w, key, v);
	else
		gs_json_null(w, key);
}

static void diff_json_u64_or_null(struct gs_json *w, const char *key, bool has, uint64_t v)
{
	if (has)
		gs_json_u64(w, key, v);
	else
		gs_json_null(w, key);
}

static void diff_json_str_or_null(struct gs_json *w, const char *key, bool has, const char *s)
{
	if (has)
		gs_json_str(w, key, s);
	else
		gs_json_null(w, key);
}

/* A number in fixed notation with `prec` decimals. */
static void diff_json_double(struct gs_json *w, const char *key, int prec, double v)
{
	char buf[512]; /* the widest double in fixed notation */

	snprintf(buf, sizeof(buf), "%.*f", prec, v);
	gs_json_raw(w, key, buf);
}

/* null when absent or not finite: a report gives no efficiency when its
 * schedule broke dependency cycles (report.c). */
static void diff_json_fixed4(struct gs_json *w, const char *key, bool has, double v)
{
	if (has && isfinite(v))
		diff_json_double(w, key, 4, v);
	else
		gs_json_null(w, key);
}

/* A metric: base, new and delta, then on the basis of the comparison when
 * it is not the totals (durations in whole ns, counts with two decimals). */
static void diff_json_metric(struct gs_json *w, const struct gs_diff_gpu *dd, int i)
{
	const int64_t v[2] = {dd->metric[0][i], dd->metric[1][i]};
	bool both = dd->dev[GS_DIFF_BASE] && dd->dev[GS_DIFF_NEW];
	double x = gs_diff_norm(dd, GS_DIFF_BASE, v[GS_DIFF_BASE]),
	       y = gs_diff_norm(dd, GS_DIFF_NEW, v[GS_DIFF_NEW]);

	gs_json_row(w, metrics[i].key);
	diff_json_i64_or_null(w, "base", dd->dev[GS_DIFF_BASE], v[GS_DIFF_BASE]);
	diff_json_i64_or_null(w, "new", dd->dev[GS_DIFF_NEW], v[GS_DIFF_NEW]);
	diff_json_i64_or_null(w, "delta", both, v[GS_DIFF_NEW] - v[GS_DIFF_BASE]);
	if (dd->basis != GS_DIFF_BASIS_TOTAL) {
		gs_json_row(w, "normalized");
		if (metrics[i].ns) {
			gs_json_i64(w, "base", llround(x));
			gs_json_i64(w, "new", llround(y));
			gs_json_i64(w, "delta", llround(y) - llround(x));
		} else {
			diff_json_double(w, "base", 2, x);
			diff_json_double(w, "new", 2, y);
			diff_json_double(w, "delta", 2, y - x);
		}
		gs_json_end_obj(w);
	}
	gs_json_end_obj(w);
}

static void diff_json_efficiency(struct gs_json *w, const struct gs_diff_gpu *dd)
{
	gs_json_row(w, "efficiency");
	diff_json_fixed4(w, "base", dd->dev[GS_DIFF_BASE], dd->efficiency[GS_DIFF_BASE]);
	diff_json_fixed4(w, "new", dd->dev[GS_DIFF_NEW], dd->efficiency[GS_DIFF_NEW]);
	/* A bounded or cycle-broken efficiency is no measure to subtract. */
	diff_json_fixed4(w, "delta",
			 dd->dev[GS_DIFF_BASE] && dd->dev[GS_DIFF_NEW] &&
				 dd->efficiency_kind[0] == GS_REPORT_EFF_EXACT &&
				 dd->efficiency_kind[1] == GS_REPORT_EFF_EXACT,
			 dd->efficiency[GS_DIFF_NEW] - dd->efficiency[GS_DIFF_BASE]);
	diff_json_str_or_null(w, "base_kind", dd->dev[GS_DIFF_BASE],
			      eff_kind_names[dd->efficiency_kind[0] % 3]);
	diff_json_str_or_null(w, "new_kind", dd->dev[GS_DIFF_NEW],
			      eff_kind_names[dd->efficiency_kind[1] % 3]);
	gs_json_end_obj(w);
}

/* The pairs present on both sides: the first, when all share one basis
 * (and iteration counts), else NULL; *mixed when they differ. */
static const struct gs_diff_gpu *common_basis(const struct gs_diff *df, bool *mixed)
{
	const struct gs_diff_gpu *first = NULL;
	size_t n;
	const struct gs_diff_gpu *gpus = gs_diff_gpus(df, &n);

	*mixed = false;
	for (size_t i = 0; i < n; i++) {
		const struct gs_diff_gpu *dd = &gpus[i];

		if (!dd->dev[0] || !dd->dev[1])
			continue;
		if (!first) {
			first = dd;
			continue;
		}
		if (dd->basis != first->basis || dd->iters[0] != first->iters[0] ||
		    dd->iters[1] != first->iters[1] || dd->divisor[1] != first->divisor[1])
			*mixed = true;
	}
	return *mixed ? NULL : first;
}

static const char *common_basis_name(const struct gs_diff *df)
{
	bool mixed;
	const struct gs_diff_gpu *dd = common_basis(df, &mixed);

	return mixed ? "mixed" : dd ? basis_names[dd->basis] : "total";
}

static void diff_json_side(struct gs_json *w, const struct gs_diff *df, int s)
{
	struct gs_diff_run run;

	gs_diff_run(df, s, &run);
	gs_json_row(w, s ? "new" : "base");
	gs_json_str(w, "file", run.label);
	gs_json_str(w, "format", run.format);
	gs_json_u64(w, "ops", run.ops);
	gs_json_u64(w, "devices", run.gpus);
	gs_json_end_obj(w);
}

/* A kernel's or a group's times on the basis of the comparison. */
static void diff_json_norm_ns(struct gs_json *w, const struct gs_diff_gpu *dd,
			      const int64_t norm[2])
{
	if (dd->basis == GS_DIFF_BASIS_TOTAL)
		return;
	gs_json_i64(w, "base_normalized_ns", norm[0]);
	gs_json_i64(w, "new_normalized_ns", norm[1]);
	gs_json_i64(w, "delta_normalized_ns", norm[1] - norm[0]);
}

/* A group's counts and times; ns_key[s] names the times of side s. */
static void diff_json_counts(struct gs_json *w, const struct gs_diff_gpu *dd,
			     const struct gs_diff_group *g, const char *const ns_key[2])
{
	gs_json_u64(w, "base_count", g->count[0]);
	gs_json_u64(w, "new_count", g->count[1]);
	gs_json_i64(w, ns_key[0], g->ns[0]);
	gs_json_i64(w, ns_key[1], g->ns[1]);
	gs_json_i64(w, "delta_ns", g->ns[1] - g->ns[0]);
	diff_json_norm_ns(w, dd, g->norm_ns);
}

/* Which GPUs were compared, and on what basis. */
static void diff_json_pairing(struct gs_json *w, const struct gs_diff_gpu *dd)
{
	bool iters = dd->iter_src != GS_DIFF_ITERS_NONE;

	diff_json_u64_or_null(w, "base_device", dd->dev[GS_DIFF_BASE], dd->device_of[GS_DIFF_BASE]);
	diff_json_u64_or_null(w, "new_device", dd->dev[GS_DIFF_NEW], dd->device_of[GS_DIFF_NEW]);
	diff_json_u64_or_null(w, "base_rank", dd->dev[GS_DIFF_BASE], dd->rank_of[GS_DIFF_BASE]);
	diff_json_u64_or_null(w, "new_rank", dd->dev[GS_DIFF_NEW], dd->rank_of[GS_DIFF_NEW]);
	gs_json_str(w, "paired", dd->explicit_pair ? "explicit" : "by_id");
	gs_json_wrap(w);
	gs_json_str(w, "basis", basis_names[dd->basis]);
	gs_json_row(w, "iterations");
	diff_json_u64_or_null(w, "base", iters, dd->iters[GS_DIFF_BASE]);
	diff_json_u64_or_null(w, "new", iters, dd->iters[GS_DIFF_NEW]);
	diff_json_str_or_null(w, "from", iters, iter_src_names[dd->iter_src]);
	if (dd->iter_src == GS_DIFF_ITERS_NVTX)
		gs_json_str(w, "nvtx_range", dd->iter_name);
	gs_json_end_obj(w);
	if (dd->basis == GS_DIFF_BASIS_SCALED_BY_OPS)
		diff_json_double(w, "new_scale", 6, 1.0 / dd->divisor[GS_DIFF_NEW]);
}

static void diff_json_kernel(struct gs_json *w, const struct gs_diff_gpu *dd,
			     const struct gs_diff_kernel *k)
{
	gs_json_row(w, NULL);
	gs_json_str(w, "name", k->name);
	gs_json_u64(w, "base_count", k->count[0]);
	gs_json_u64(w, "new_count", k->count[1]);
	gs_json_i64(w, "base_ns", k->ns[0]);
	gs_json_i64(w, "new_ns", k->ns[1]);
	gs_json_i64(w, "delta_ns", kern_delta(k));
	diff_json_i64_or_null(w, "base_mean_ns", k->count[0], kern_mean(k, 0));
	diff_json_i64_or_null(w, "new_mean_ns", k->count[1], kern_mean(k, 1));
	diff_json_i64_or_null(w, "delta_mean_ns", k->count[0] && k->count[1],
			      kern_mean(k, 1) - kern_mean(k, 0));
	gs_json_i64(w, "delta_count", (int64_t)k->count[1] - (int64_t)k->count[0]);
	diff_json_norm_ns(w, dd, k->norm_ns);
	gs_json_end_obj(w);
}

static void diff_json_wait(struct gs_json *w, const struct gs_diff_gpu *dd,
			   const struct gs_diff_group *g)
{
	static const char *const ns_key[2] = {"base_wait_ns", "new_wait_ns"};

	gs_json_row(w, NULL);
	gs_json_str(w, "status", status_names[g->status]);
	gs_json_str(w, "kind", gs_edge_kind_name(g->kind));
	gs_json_str(w, "consumer", g->name);
	gs_json_u64(w, "consumer_stream", g->stream);
	gs_json_str(w, "producer", g->peer);
	gs_json_u64(w, "producer_stream", g->peer_stream);
	diff_json_counts(w, dd, g, ns_key);
	gs_json_end_obj(w);
}

static void diff_json_missed(struct gs_json *w, const struct gs_diff_gpu *dd,
			     const struct gs_diff_group *g)
{
	static const char *const ns_key[2] = {"base_exposed_ns", "new_exposed_ns"};

	gs_json_row(w, NULL);
	gs_json_str(w, "status", status_names[g->status]);
	gs_json_str(w, "name", g->name);
	gs_json_u64(w, "stream", g->stream);
	gs_json_str(w, "direction", gs_copy_kind_name(g->kind));
	diff_json_counts(w, dd, g, ns_key);
	gs_json_i64(w, "base_hideable_ns", g->hideable_ns[0]);
	gs_json_i64(w, "new_hideable_ns", g->hideable_ns[1]);
	gs_json_end_obj(w);
}

/* A GPU pair: its identity on the first line, then a line for each of its
 * lists and tables. */
static void diff_json_device(struct gs_json *w, const struct gs_diff_gpu *dd)
{
	size_t i;

	gs_json_mixed(w, NULL);
	gs_json_u64(w, "device", dd->device);
	gs_json_u64(w, "rank", dd->rank);
	gs_json_str(w, "name", dd->name);
	gs_json_bool(w, "in_base", dd->dev[GS_DIFF_BASE]);
	gs_json_bool(w, "in_new", dd->dev[GS_DIFF_NEW]);
	diff_json_pairing(w, dd);
	gs_json_wrap(w);
	gs_json_obj(w, "metrics");
	for (i = 0; i < GS_DIFF_M_COUNT; i++)
		diff_json_metric(w, dd, (int)i);
	diff_json_efficiency(w, dd);
	gs_json_end_obj(w);
	gs_json_wrap(w);
	gs_json_row(w, "dominant");
	diff_json_str_or_null(
		w, "base", dd->dev[GS_DIFF_BASE],
		dd->dev[GS_DIFF_BASE] ? gs_category_name(dd->dev[GS_DIFF_BASE]->b.dominant) : NULL);
	diff_json_str_or_null(
		w, "new", dd->dev[GS_DIFF_NEW],
		dd->dev[GS_DIFF_NEW] ? gs_category_name(dd->dev[GS_DIFF_NEW]->b.dominant) : NULL);
	gs_json_end_obj(w);
	gs_json_wrap(w);
	gs_json_arr(w, "kernels");
	for (i = 0; i < dd->n_kernels; i++)
		diff_json_kernel(w, dd, &dd->kernels[i]);
	gs_json_end_arr(w);
	gs_json_wrap(w);
	gs_json_arr(w, "waits");
	for (i = 0; i < dd->n_waits; i++)
		diff_json_wait(w, dd, &dd->waits[i]);
	gs_json_end_arr(w);
	gs_json_wrap(w);
	gs_json_arr(w, "missed_overlap");
	for (i = 0; i < dd->n_missed; i++)
		diff_json_missed(w, dd, &dd->missed[i]);
	gs_json_end_arr(w);
	gs_json_end_obj(w);
}

gs_status gs_diff_write_json(FILE *f, const struct gs_diff *df)
{
	struct gs_outbuf o;
	struct gs_json w;
	const struct gs_diff_gpu *gpus;
	const char *const *warnings;
	size_t n_gpus, n_warnings;

	if (!f || !df) {
		gs_error_append("gs_diff_write_json: no output or no diff");
		return GS_ERR_INVALID;
	}
	gs_outbuf_init(&o, f);
	gs_json_init(&w, &o, GS_JSON_ESCAPE_DEL);
	gs_json_obj(&w, NULL);
	gs_json_str(&w, "schema", "gpuscope.diff/1");
	diff_json_side(&w, df, GS_DIFF_BASE);
	diff_json_side(&w, df, GS_DIFF_NEW);
	gs_json_str(&w, "basis", common_basis_name(df));
	gs_json_arr_inline(&w, "warnings");
	warnings = gs_diff_warnings(df, &n_warnings);
	for (size_t i = 0; i < n_warnings; i++)
		gs_json_str(&w, NULL, warnings[i]);
	gs_json_end_arr(&w);
	gs_json_arr(&w, "devices");
	gpus = gs_diff_gpus(df, &n_gpus);
	for (size_t i = 0; i < n_gpus; i++)
		diff_json_device(&w, &gpus[i]);
	gs_json_end_arr(&w);
	gs_gate_write_json(&w, gs_diff_verdict(df)); /* nothing without a verdict */
	gs_json_end_obj(&w);
	gs_outbuf_putc(&o, '\n');
	return gs_outbuf_finish(&o);
}

/* ---- text ------------------------------------------------------------------ */

/* `s` printable (control characters and bad UTF-8 as their escapes,
 * gs_text_char) in at most `cols` columns, cut with "..." when longer.
 * Returns the columns used. */
static size_t fit(char *buf, size_t size, const char *s, size_t cols)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t len = 0, used = 0, total = gs_text_cols(s);
	char ch[GS_TEXT_CHAR_MAX];

	while (*p && len + GS_TEXT_CHAR_MAX + 4 < size) {
		size_t c, adv, n = gs_text_char(p, ch, &c, &adv);

		if (total > cols && used + c + 3 > cols) {
			for (int k = 0; k < 3 && used < cols; k++) {
				buf[len++] = '.';
				used++;
			}
			break;
		}
		memcpy(buf + len, ch, n);
		len += n;
		used += c;
		p += adv;
	}
	buf[len] = '\0';
	return used;
}

static void diff_text_cell(struct gs_outbuf *o, const char *s, size_t cols, bool right)
{
	char buf[4 * WIDTH + 16];
	size_t used = fit(buf, sizeof(buf), s, cols);

	if (right)
		for (size_t i = used; i < cols; i++)
			gs_outbuf_putc(o, ' ');
	gs_outbuf_puts(o, buf);
	if (!right)
		for (size_t i = used; i < cols; i++)
			gs_outbuf_putc(o, ' ');
}

/* The last cell of a line: no padding, then the newline. */
static void diff_text_last(struct gs_outbuf *o, const char *s, size_t cols)
{
	char buf[4 * WIDTH + 16];

	fit(buf, sizeof(buf), s, cols);
	gs_outbuf_puts(o, buf);
	gs_outbuf_putc(o, '\n');
}

static uint64_t uabs64(int64_t v)
{
	return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* (new - base) / base as "+12.5%"; "new" when base is 0 and new is not. */
static const char *change_text(char *buf, size_t size, double base, double v)
{
	if (base == 0) {
		snprintf(buf, size, "%s", v != 0 ? "new" : "");
		return buf;
	}
	snprintf(buf, size, "%+.1f%%", 100.0 * (v - base) / base);
	return buf;
}

#define C_LABEL 22
#define C_VALUE 20
#define C_DELTA 16
#define C_CHANGE 9

/* A row of the headline table, on the basis of the comparison; the
 * durations of a row in one unit. */
static void diff_text_metric_row(struct gs_outbuf *o, const struct gs_diff_gpu *dd, int i)
{
	char b[48], n[48], d[48], c[32];
	bool both = dd->dev[0] && dd->dev[1], frac = dd->basis != GS_DIFF_BASIS_TOTAL;
	double xb = gs_diff_norm(dd, 0, dd->metric[0][i]),
	       xn = gs_diff_norm(dd, 1, dd->metric[1][i]);
	int64_t vb = llround(xb), vn = llround(xn);
	uint64_t unit = gs_dur_unit(
		max_u64(max_u64(dd->dev[0] ? uabs64(vb) : 0, dd->dev[1] ? uabs64(vn) : 0),
			both ? uabs64(vn - vb) : 0));

	if (metrics[i].ns) {
		gs_dur_text_in(b, sizeof(b), vb, unit, false);
		gs_dur_text_in(n, sizeof(n), vn, unit, false);
		gs_dur_text_in(d, sizeof(d), vn - vb, unit, true);
	} else if (frac) {
		snprintf(b, sizeof(b), "%.1f", xb);
		snprintf(n, sizeof(n), "%.1f", xn);
		snprintf(d, sizeof(d), "%+.1f", xn - xb);
	} else {
		snprintf(b, sizeof(b), "%lld", (long long)vb);
		snprintf(n, sizeof(n), "%lld", (long long)vn);
		snprintf(d, sizeof(d), "%+lld", (long long)(vn - vb));
	}
	gs_outbuf_puts(o, "  ");
	diff_text_cell(o, metrics[i].text, C_LABEL, false);
	diff_text_cell(o, dd->dev[0] ? b : "-", C_VALUE, true);
	diff_text_cell(o, dd->dev[1] ? n : "-", C_VALUE, true);
	if (!both) {
		gs_outbuf_putc(o, '\n');
		return;
	}
	if (strcmp(b, n) == 0) {
		diff_text_cell(o, "=", C_DELTA, true);
		gs_outbuf_putc(o, '\n');
		return;
	}
	diff_text_cell(o, d, C_DELTA, true);
	change_text(c, sizeof(c), metrics[i].ns ? (double)vb : xb, metrics[i].ns ? (double)vn : xn);
	if (*c) {
		gs_outbuf_putc(o, ' ');
		diff_text_cell(o, c, C_CHANGE, true);
	}
	gs_outbuf_putc(o, '\n');
}

/* An efficiency as the diff shows it: a bounded or cycle-broken one is
 * no number to compare ("n/a (bounded)", "n/a (cycles broken)"). */
static const char *eff_cell(char *buf, size_t size, const struct gs_diff_gpu *dd, int s)
{
	if (!dd->dev[s])
		snprintf(buf, size, "-");
	else if (dd->efficiency_kind[s] == GS_REPORT_EFF_CYCLES || !isfinite(dd->efficiency[s]))
		snprintf(buf, size, "n/a (cycles broken)");
	else if (dd->efficiency_kind[s] == GS_REPORT_EFF_BOUNDED)
		snprintf(buf, size, "n/a (bounded)");
	else
		snprintf(buf, size, "%.4f", dd->efficiency[s]);
	return buf;
}

static void diff_text_eff_row(struct gs_outbuf *o, const struct gs_diff_gpu *dd)
{
	char b[32], n[32], d[32];
	bool exact[2], cycles = false, bounded = false;

	for (int s = 0; s < 2; s++) {
		exact[s] = dd->dev[s] && dd->efficiency_kind[s] == GS_REPORT_EFF_EXACT &&
			   isfinite(dd->efficiency[s]);
		cycles |= dd->dev[s] && dd->efficiency_kind[s] == GS_REPORT_EFF_CYCLES;
		bounded |= dd->dev[s] && dd->efficiency_kind[s] == GS_REPORT_EFF_BOUNDED;
	}
	snprintf(d, sizeof(d), exact[0] && exact[1] ? "%+.4f" : "n/a",
		 dd->efficiency[1] - dd->efficiency[0]);
	gs_outbuf_puts(o, "  ");
	diff_text_cell(o, "efficiency", C_LABEL, false);
	diff_text_cell(o, eff_cell(b, sizeof(b), dd, 0), C_VALUE, true);
	diff_text_cell(o, eff_cell(n, sizeof(n), dd, 1), C_VALUE, true);
	if (dd->dev[0] && dd->dev[1])
		diff_text_cell(o, d, C_DELTA, true);
	gs_outbuf_putc(o, '\n');
	if (cycles)
		gs_outbuf_puts(
			o, "    (cycles broken: the schedule dropped edges of dependency cycles, "
			   "so its ideal is no bound)\n");
	if (bounded)
		gs_outbuf_puts(
			o, "    (bounded: the ideal is longer than the recorded run, which started "
			   "an op early)\n");
}

static void diff_text_count_cells(struct gs_outbuf *o, const uint64_t count[2])
{
	char a[32], b[32], d[32];

	snprintf(a, sizeof(a), "%llu", (unsigned long long)count[0]);
	snprintf(b, sizeof(b), "%llu", (unsigned long long)count[1]);
	snprintf(d, sizeof(d), "%+lld", (long long)count[1] - (long long)count[0]);
	diff_text_cell(o, a, 8, true);
	diff_text_cell(o, b, 8, true);
	diff_text_cell(o, count[0] == count[1] ? "=" : d, 8, true);
}

/* Base, new and delta of a kernel's times or means: one unit; "-" for a
 * side without calls. */
static void diff_text_dur3(struct gs_outbuf *o, const uint64_t count[2], const int64_t v[2],
			   bool last)
{
	char a[48], b[48], d[48];
	bool both = count[0] && count[1];
	uint64_t unit = gs_dur_unit(
		max_u64(max_u64(count[0] ? uabs64(v[0]) : 0, count[1] ? uabs64(v[1]) : 0),
			both ? uabs64(v[1] - v[0]) : 0));

	diff_text_cell(o, count[0] ? gs_dur_text_in(a, sizeof(a), v[0], unit, false) : "-", 12,
		       true);
	diff_text_cell(o, count[1] ? gs_dur_text_in(b, sizeof(b), v[1], unit, false) : "-", 12,
		       true);
	if (!both)
		gs_dur_text_in(d, sizeof(d), count[0] ? -v[0] : v[1], unit, true);
	else if (v[0] == v[1])
		snprintf(d, sizeof(d), "=");
	else
		gs_dur_text_in(d, sizeof(d), v[1] - v[0], unit, true);
	diff_text_cell(o, d, 12, true); /* right-aligned: no trailing blanks */
	if (last)
		gs_outbuf_putc(o, '\n');
}

static void diff_text_kernels(struct gs_outbuf *o, const struct gs_diff *df,
			      const struct gs_diff_gpu *dd)
{
	size_t top = gs_diff_top(df), shown = dd->n_kernels < top ? dd->n_kernels : top;
	const char *time = dd->basis == GS_DIFF_BASIS_PER_ITERATION ? "time per iteration" :
			   dd->basis == GS_DIFF_BASIS_SCALED_BY_OPS ? "time (new scaled)" :
								      "total time";

	if (!dd->n_kernels)
		return;
	gs_outbuf_printf(o, "\n  kernels whose %s changed most (%zu of %zu names)\n",
			 dd->basis == GS_DIFF_BASIS_PER_ITERATION ? "time per iteration" :
								    "total time",
			 shown, dd->n_kernels);
	gs_outbuf_puts(o, "  ");
	diff_text_cell(o, "calls", 24, true);
	diff_text_cell(o, time, 36, true);
	diff_text_cell(o, "mean per call", 36, true);
	gs_outbuf_puts(o, "\n  ");
	for (int g = 0; g < 3; g++) {
		diff_text_cell(o, "base", g ? 12 : 8, true);
		diff_text_cell(o, "new", g ? 12 : 8, true);
		diff_text_cell(o, "delta", g ? 12 : 8, true);
	}
	gs_outbuf_putc(o, '\n');
	gs_outbuf_puts(o, "    name\n");
	for (size_t i = 0; i < shown; i++) {
		const struct gs_diff_kernel *r = &dd->kernels[i];
		int64_t mean[2] = {kern_mean(r, 0), kern_mean(r, 1)};

		gs_outbuf_puts(o, "  ");
		diff_text_count_cells(o, r->count);
		diff_text_dur3(o, r->count, r->norm_ns, false);
		diff_text_dur3(o, r->count, mean, true);
		gs_outbuf_puts(o, "    ");
		diff_text_last(o, r->name, WIDTH - 4);
	}
}

static size_t count_status(const struct gs_diff_group *g, size_t n, uint8_t st)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += g[i].status == st;
	return k;
}

/* One group: status, kind, time base / new / delta, count; then what it is
 * on a line of its own. */
static void diff_text_group_line(struct gs_outbuf *o, const struct gs_diff_group *g,
				 const char *kind, const char *what)
{
	char a[48], b[48], d[48], k[48];
	const int64_t *v = g->norm_ns; /* on the basis of the comparison */
	uint64_t unit =
		gs_dur_unit(max_u64(max_u64(uabs64(v[0]), uabs64(v[1])), uabs64(v[1] - v[0])));

	gs_outbuf_puts(o, "  ");
	diff_text_cell(o, status_names[g->status], 9, false);
	diff_text_cell(o, kind, 15, false);
	gs_dur_text_in(a, sizeof(a), v[0], unit, false);
	gs_dur_text_in(b, sizeof(b), v[1], unit, false);
	diff_text_cell(o, g->count[0] ? a : "-", 12, true);
	diff_text_cell(o, g->count[1] ? b : "-", 12, true);
	diff_text_cell(o, gs_dur_text_in(d, sizeof(d), v[1] - v[0], unit, true), 13, true);
	snprintf(k, sizeof(k), "%llu -> %llu", (unsigned long long)g->count[0],
		 (unsigned long long)g->count[1]);
	diff_text_cell(o, k, 16, true);
	gs_outbuf_puts(o, "\n             ");
	diff_text_last(o, what, WIDTH - 13);
}

static void diff_text_group_head(struct gs_outbuf *o, const char *what)
{
	gs_outbuf_puts(o, "  ");
	diff_text_cell(o, "status", 9, false);
	diff_text_cell(o, "kind", 15, false);
	diff_text_cell(o, "base", 12, true);
	diff_text_cell(o, "new", 12, true);
	diff_text_cell(o, "delta", 13, true);
	diff_text_cell(o, "count", 16, true);
	gs_outbuf_puts(o, "\n             ");
	gs_outbuf_puts(o, what);
	gs_outbuf_putc(o, '\n');
}

/* The rows worth showing: new, vanished and changed ones, `top` at most. */
static size_t shown_groups(const struct gs_diff_group *g, size_t n, size_t top)
{
	size_t k = 0;

	while (k < n && k < top && g[k].status != GS_DIFF_SAME)
		k++;
	return k;
}

static void diff_text_waits(struct gs_outbuf *o, const struct gs_diff *df,
			    const struct gs_diff_gpu *dd)
{
	size_t shown = shown_groups(dd->waits, dd->n_waits, gs_diff_top(df));
	char what[8 * WIDTH + 64];

	if (!dd->n_waits)
		return;
	gs_outbuf_printf(o,
			 "\n  waits: %zu new, %zu vanished, %zu changed, %zu same (by consumer and "
			 "producer)\n",
			 count_status(dd->waits, dd->n_waits, GS_DIFF_ADDED),
			 count_status(dd->waits, dd->n_waits, GS_DIFF_VANISHED),
			 count_status(dd->waits, dd->n_waits, GS_DIFF_CHANGED),
			 count_status(dd->waits, dd->n_waits, GS_DIFF_SAME));
	if (!shown)
		return;
	diff_text_group_head(o, "consumer <- producer [stream]");
	for (size_t i = 0; i < shown; i++) {
		const struct gs_diff_group *g = &dd->waits[i];

		char ca[4 * WIDTH], cb[4 * WIDTH];

		fit(ca, sizeof(ca), g->name, 38);
		fit(cb, sizeof(cb), g->peer, 38);
		snprintf(what, sizeof(what), "%s [%llu] <- %s [%llu]", ca,
			 (unsigned long long)g->stream, cb, (unsigned long long)g->peer_stream);
		diff_text_group_line(o, g, gs_edge_kind_name(g->kind), what);
	}
}

static void diff_text_missed(struct gs_outbuf *o, const struct gs_diff *df,
			     const struct gs_diff_gpu *dd)
{
	size_t shown = shown_groups(dd->missed, dd->n_missed, gs_diff_top(df));
	char what[4 * WIDTH];

	if (!dd->n_missed)
		return;
	gs_outbuf_printf(o,
			 "\n  missed overlaps: %zu new, %zu vanished, %zu changed, %zu same (by "
			 "copy, stream, direction)\n",
			 count_status(dd->missed, dd->n_missed, GS_DIFF_ADDED),
			 count_status(dd->missed, dd->n_missed, GS_DIFF_VANISHED),
			 count_status(dd->missed, dd->n_missed, GS_DIFF_CHANGED),
			 count_status(dd->missed, dd->n_missed, GS_DIFF_SAME));
	if (!shown)
		return;
	diff_text_group_head(o, "copy [stream] (exposed time)");
	for (size_t i = 0; i < shown; i++) {
		const struct gs_diff_group *g = &dd->missed[i];

		snprintf(what, sizeof(what), "%.200s [%llu]", g->name,
			 (unsigned long long)g->stream);
		diff_text_group_line(o, g, gs_copy_kind_name(g->kind), what);
	}
}

/* The one line that says what the comparison is on, when not the totals. */
static void diff_text_basis(struct gs_outbuf *o, const struct gs_diff_gpu *dd)
{
	char line[8 * WIDTH], nm[4 * WIDTH], src[4 * WIDTH + 32];
	uint64_t a = dd->dev[0] ? dd->dev[0]->ops : 0, b = dd->dev[1] ? dd->dev[1]->ops : 0;

	if (dd->basis == GS_DIFF_BASIS_PER_ITERATION) {
		if (dd->iter_src == GS_DIFF_ITERS_NVTX) {
			fit(nm, sizeof(nm), dd->iter_name, 24);
			snprintf(src, sizeof(src), "NVTX ranges \"%s\"", nm);
		} else {
			snprintf(src, sizeof(src), "ProfilerStep#N ranges");
		}
		snprintf(line, sizeof(line),
			 "compared per iteration: %llu iterations in base, %llu in new (%s)",
			 (unsigned long long)dd->iters[0], (unsigned long long)dd->iters[1], src);
	} else if (dd->basis == GS_DIFF_BASIS_SCALED_BY_OPS) {
		snprintf(line, sizeof(line),
			 "compared per op: %llu ops in base, %llu in new (%+.1f%%), no iterations "
			 "marked; new scaled to base",
			 (unsigned long long)a, (unsigned long long)b,
			 100.0 * ((double)b - (double)a) / (double)a);
	} else {
		return;
	}
	diff_text_last(o, line, WIDTH);
}

static void diff_text_device(struct gs_outbuf *o, const struct gs_diff *df,
			     const struct gs_diff_gpu *dd)
{
	char name[4 * WIDTH];
	bool mixed;

	fit(name, sizeof(name), dd->name, 60);
	if (dd->explicit_pair && dd->in_job)
		gs_outbuf_printf(
			o, "\nbase rank %u \u00b7 GPU %u <-> new rank %u \u00b7 GPU %u%s%s%s\n",
			dd->rank_of[0], dd->device_of[0], dd->rank_of[1], dd->device_of[1],
			*name ? " (" : "", name, *name ? ")" : "");
	else if (dd->explicit_pair)
		gs_outbuf_printf(o, "\nbase device %u <-> new device %u%s%s%s\n", dd->device_of[0],
				 dd->device_of[1], *name ? " (" : "", name, *name ? ")" : "");
	else if (dd->in_job)
		gs_outbuf_printf(o, "\nrank %u \u00b7 GPU %u%s%s%s\n", dd->rank, dd->device,
				 *name ? " (" : "", name, *name ? ")" : "");
	else
		gs_outbuf_printf(o, "\ndevice %u%s%s%s\n", dd->device, *name ? " (" : "", name,
				 *name ? ")" : "");
	if (!dd->dev[GS_DIFF_BASE] || !dd->dev[GS_DIFF_NEW])
		gs_outbuf_printf(o, "  only in %s\n", dd->dev[GS_DIFF_BASE] ? "base" : "new");
	if (dd->models_differ && dd->dev[GS_DIFF_BASE] && dd->dev[GS_DIFF_NEW]) { /* a pair */
		char a[4 * WIDTH], b[4 * WIDTH];

		fit(a, sizeof(a), dd->dev[GS_DIFF_BASE]->name, 40);
		fit(b, sizeof(b), dd->dev[GS_DIFF_NEW]->name, 40);
		gs_outbuf_printf(o, "  two GPU models: %s in base, %s in new\n", a, b);
	}
	if (!common_basis(df, &mixed) || mixed) {
		gs_outbuf_puts(o, "  ");
		diff_text_basis(o, dd);
	}
	gs_outbuf_puts(o, "  ");
	diff_text_cell(o, "", C_LABEL, false);
	diff_text_cell(o, "base", C_VALUE, true);
	diff_text_cell(o, "new", C_VALUE, true);
	diff_text_cell(o, "delta", C_DELTA, true);
	gs_outbuf_putc(o, ' ');
	diff_text_cell(o, "change", C_CHANGE, true);
	gs_outbuf_putc(o, '\n');
	for (int i = 0; i < GS_DIFF_M_COUNT; i++) {
		diff_text_metric_row(o, dd, i);
		if (i == GS_DIFF_M_IDEAL)
			diff_text_eff_row(o, dd);
	}
	gs_outbuf_puts(o, "  ");
	diff_text_cell(o, "dominant", C_LABEL, false);
	diff_text_cell(o, dd->dev[0] ? gs_category_name(dd->dev[0]->b.dominant) : "-", C_VALUE,
		       true);
	diff_text_cell(o, dd->dev[1] ? gs_category_name(dd->dev[1]->b.dominant) : "-", C_VALUE,
		       true);
	gs_outbuf_putc(o, '\n');
	diff_text_kernels(o, df, dd);
	diff_text_waits(o, df, dd);
	diff_text_missed(o, df, dd);
}

gs_status gs_diff_write_text(FILE *f, const struct gs_diff *df)
{
	char a[4 * WIDTH], b[4 * WIDTH];
	struct gs_outbuf o;
	struct gs_diff_run run[2];
	const struct gs_diff_gpu *gpus;
	size_t n_gpus;

	if (!f || !df) {
		gs_error_append("gs_diff_write_text: no output or no diff");
		return GS_ERR_INVALID;
	}
	gs_outbuf_init(&o, f);
	gs_diff_run(df, GS_DIFF_BASE, &run[0]);
	gs_diff_run(df, GS_DIFF_NEW, &run[1]);
	fit(a, sizeof(a), run[0].label, WIDTH - 6);
	fit(b, sizeof(b), run[1].label, WIDTH - 6);
	gs_outbuf_printf(&o, "base: %s\nnew:  %s\n", a, b);
	gs_outbuf_puts(&o, "delta = new - base; change = delta / base\n");
	{
		bool mixed;
		const struct gs_diff_gpu *first = common_basis(df, &mixed);

		if (first)
			diff_text_basis(&o, first);
	}
	gpus = gs_diff_gpus(df, &n_gpus);
	if (!n_gpus)
		gs_outbuf_puts(&o, "\nneither trace has GPU ops\n");
	for (size_t i = 0; i < n_gpus; i++)
		diff_text_device(&o, df, &gpus[i]);
	return gs_outbuf_finish(&o);
}
