/* SPDX-License-Identifier: MIT */
/*
 * `gpuscope diff`'s writers: the comparison diff_match.c built, as JSON
 * (gs_diff_write_json) and as text (gs_diff_write_text).
 */
#include "diff_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpuscope/json.h>
#include <gpuscope/outbuf.h>

#include <gpuscope/text.h>

#define WIDTH 100

static const struct {
	const char *key;  /* JSON */
	const char *text; /* text label */
	bool ns;          /* a duration (else a count) */
} metrics[M_COUNT] = {
	[M_WINDOW] = {"window_ns", "window", true},
	[M_KERNEL] = {"kernel_ns", "kernel", true},
	[M_COPY] = {"copy_ns", "copy (exposed)", true},
	[M_SYNC] = {"sync_ns", "sync (exposed)", true},
	[M_IDLE] = {"idle_ns", "idle", true},
	[M_COPY_HIDDEN] = {"copy_hidden_ns", "copy hidden", true},
	[M_CONCURRENCY] = {"kernel_concurrency_ns", "kernel concurrency", true},
	[M_HOST_BOUND] = {"host_bound_ns", "idle: host bound", true},
	[M_LAUNCH_LATENCY] = {"launch_latency_ns", "idle: launch latency", true},
	[M_UNATTRIBUTED] = {"unattributed_ns", "idle: unattributed", true},
	[M_ACTUAL] = {"actual_ns", "actual", true},
	[M_DEP_BOUND] = {"dependency_bound_ns", "dependency bound", true},
	[M_IDEAL] = {"ideal_ns", "ideal", true},
	[M_PIPELINED] = {"pipelined_batches_ns", "pipelined batches", true},
	[M_OPS] = {"ops", "ops", false},
	[M_KERNELS] = {"kernels", "kernels", false},
	[M_MEMCPYS] = {"memcpys", "memcpys", false},
	[M_MEMSETS] = {"memsets", "memsets", false},
	[M_WAITS] = {"waits", "waits", false},
	[M_WAIT_NS] = {"wait_ns", "wait time", true},
	[M_MISSED] = {"missed_overlaps", "missed overlaps", false},
	[M_MISSED_NS] = {"missed_exposed_ns", "missed: exposed", true},
};

static const char *const basis_names[] = {"total", "per_iteration", "scaled_by_ops"};
static const char *const iter_src_names[] = {"none", "profiler_steps", "nvtx"};

static const char *const eff_kind_names[] = {
	[GS_REPORT_EFF_EXACT] = "exact",
	[GS_REPORT_EFF_BOUNDED] = "bounded",
	[GS_REPORT_EFF_CYCLES] = "cycles_broken",
};

static const char *const status_names[] = {"same", "changed", "new", "vanished"};

static int64_t kern_delta(const struct kern_row *k)
{
	return k->ns[SIDE_NEW] - k->ns[SIDE_BASE];
}

/* The mean time per call, rounded to the ns (0 without calls). */
static int64_t kern_mean(const struct kern_row *k, int s)
{
	return k->count[s] ? llround((double)k->ns[s] / (double)k->count[s]) : 0;
}
/* ---- JSON ------------------------------------------------------------------ */

static void diff_json_side_i64(struct gs_outbuf *o, const char *key, const struct dev_diff *dd,
			       const int64_t v[2])
{
	gs_outbuf_printf(o, "\"%s\": {\"base\": ", key);
	if (dd->d[SIDE_BASE])
		gs_outbuf_printf(o, "%lld", (long long)v[SIDE_BASE]);
	else
		gs_outbuf_puts(o, "null");
	gs_outbuf_puts(o, ", \"new\": ");
	if (dd->d[SIDE_NEW])
		gs_outbuf_printf(o, "%lld", (long long)v[SIDE_NEW]);
	else
		gs_outbuf_puts(o, "null");
	gs_outbuf_puts(o, ", \"delta\": ");
	if (dd->d[SIDE_BASE] && dd->d[SIDE_NEW])
		gs_outbuf_printf(o, "%lld", (long long)(v[SIDE_NEW] - v[SIDE_BASE]));
	else
		gs_outbuf_puts(o, "null");
}

/* The values on the basis of the comparison, when it is not the totals:
 * durations in whole ns, counts with two decimals. */
static void diff_json_normalized(struct gs_outbuf *o, const struct dev_diff *dd, bool ns,
				 const int64_t v[2])
{
	double x = diff_norm_of(dd, SIDE_BASE, v[SIDE_BASE]),
	       y = diff_norm_of(dd, SIDE_NEW, v[SIDE_NEW]);

	if (dd->basis == B_TOTAL)
		return;
	if (ns)
		gs_outbuf_printf(
			o, ", \"normalized\": {\"base\": %lld, \"new\": %lld, \"delta\": %lld}",
			(long long)llround(x), (long long)llround(y),
			(long long)(llround(y) - llround(x)));
	else
		gs_outbuf_printf(
			o, ", \"normalized\": {\"base\": %.2f, \"new\": %.2f, \"delta\": %.2f}", x,
			y, y - x);
}

/* null when not finite: a report gives no efficiency when its schedule
 * broke dependency cycles (report.c). */
static void diff_json_fixed4(struct gs_outbuf *o, double v)
{
	if (!isfinite(v))
		gs_outbuf_puts(o, "null");
	else
		gs_outbuf_printf(o, "%.4f", v);
}

/* The pairs present on both sides: the first, when all share one basis
 * (and iteration counts), else NULL; *mixed when they differ. */
static const struct dev_diff *common_basis(const struct gs_diff *df, bool *mixed)
{
	const struct dev_diff *first = NULL;

	*mixed = false;
	for (size_t i = 0; i < df->n_dev; i++) {
		const struct dev_diff *dd = &df->dev[i];

		if (!dd->d[0] || !dd->d[1])
			continue;
		if (!first) {
			first = dd;
			continue;
		}
		if (dd->basis != first->basis || dd->iters[0] != first->iters[0] ||
		    dd->iters[1] != first->iters[1] || dd->f[1] != first->f[1])
			*mixed = true;
	}
	return *mixed ? NULL : first;
}

static const char *common_basis_name(const struct gs_diff *df)
{
	bool mixed;
	const struct dev_diff *dd = common_basis(df, &mixed);

	return mixed ? "mixed" : dd ? basis_names[dd->basis] : "total";
}

/* Ops and GPUs of one side (a job: all its ranks). */
static void side_counts(const struct gs_report *r, size_t *ops, size_t *gpus)
{
	const struct gs_report *const *rk = r->job ? (const struct gs_report *const *)r->ranks : &r;
	size_t n_rk = r->job ? r->n_ranks : 1, n;

	*ops = *gpus = 0;
	for (size_t i = 0; i < n_rk; i++) {
		gs_trace_ops(rk[i]->t, &n);
		*ops += n;
		*gpus += rk[i]->n_dev;
	}
}

static void diff_json_side(struct gs_outbuf *o, const struct gs_diff *df, int s)
{
	size_t n_ops, n_dev;

	side_counts(df->r[s], &n_ops, &n_dev);
	gs_outbuf_printf(o, "  \"%s\": {\"file\": ", s ? "new" : "base");
	gs_outbuf_json_str(o, df->label[s], GS_JSON_ESCAPE_DEL);
	gs_outbuf_puts(o, ", \"format\": ");
	gs_outbuf_json_str(o, df->format[s], GS_JSON_ESCAPE_DEL);
	gs_outbuf_printf(o, ", \"ops\": %llu, \"devices\": %llu}", (unsigned long long)n_ops,
			 (unsigned long long)n_dev);
}

/* A kernel's or a group's times on the basis of the comparison. */
static void diff_json_norm_ns(struct gs_outbuf *o, const struct dev_diff *dd, const int64_t norm[2])
{
	if (dd->basis != B_TOTAL)
		gs_outbuf_printf(o,
				 ", \"base_normalized_ns\": %lld, \"new_normalized_ns\": %lld, "
				 "\"delta_normalized_ns\": %lld",
				 (long long)norm[0], (long long)norm[1],
				 (long long)(norm[1] - norm[0]));
}

static void diff_json_counts(struct gs_outbuf *o, const struct dev_diff *dd, const struct group *g,
			     const char *ns_key)
{
	gs_outbuf_printf(o,
			 ", \"base_count\": %llu, \"new_count\": %llu, \"base_%s\": %lld, "
			 "\"new_%s\": %lld, \"delta_ns\": %lld",
			 (unsigned long long)g->count[0], (unsigned long long)g->count[1], ns_key,
			 (long long)g->ns[0], ns_key, (long long)g->ns[1],
			 (long long)(g->ns[1] - g->ns[0]));
	diff_json_norm_ns(o, dd, g->norm);
}

static void diff_json_side_u32(struct gs_outbuf *o, const char *key, const struct dev_diff *dd,
			       const uint32_t v[2])
{
	for (int s = 0; s < 2; s++) {
		gs_outbuf_printf(o, ", \"%s_%s\": ", s ? "new" : "base", key);
		if (dd->d[s])
			gs_outbuf_printf(o, "%u", v[s]);
		else
			gs_outbuf_puts(o, "null");
	}
}

/* Which GPUs were compared, and on what basis. */
static void diff_json_pairing(struct gs_outbuf *o, const struct dev_diff *dd)
{
	diff_json_side_u32(o, "device", dd, dd->dev_of);
	diff_json_side_u32(o, "rank", dd, dd->rank_of);
	gs_outbuf_printf(o, ", \"paired\": \"%s\",\n      \"basis\": \"%s\", \"iterations\": {",
			 dd->explicit_pair ? "explicit" : "by_id", basis_names[dd->basis]);
	for (int s = 0; s < 2; s++) {
		gs_outbuf_printf(o, "%s\"%s\": ", s ? ", " : "", s ? "new" : "base");
		if (dd->iter_src != IT_NONE)
			gs_outbuf_printf(o, "%llu", (unsigned long long)dd->iters[s]);
		else
			gs_outbuf_puts(o, "null");
	}
	gs_outbuf_puts(o, ", \"from\": ");
	if (dd->iter_src != IT_NONE)
		gs_outbuf_json_str(o, iter_src_names[dd->iter_src], GS_JSON_ESCAPE_DEL);
	else
		gs_outbuf_puts(o, "null");
	if (dd->iter_src == IT_NVTX) {
		gs_outbuf_puts(o, ", \"nvtx_range\": ");
		gs_outbuf_json_str(o, dd->iter_name, GS_JSON_ESCAPE_DEL);
	}
	gs_outbuf_putc(o, '}');
	if (dd->basis == B_SCALED_BY_OPS)
		gs_outbuf_printf(o, ", \"new_scale\": %.6f", 1.0 / dd->f[SIDE_NEW]);
}

static void diff_json_mean(struct gs_outbuf *o, const struct kern_row *k)
{
	for (int s = 0; s < 2; s++) {
		gs_outbuf_printf(o, ", \"%s_mean_ns\": ", s ? "new" : "base");
		if (k->count[s])
			gs_outbuf_printf(o, "%lld", (long long)kern_mean(k, s));
		else
			gs_outbuf_puts(o, "null");
	}
	gs_outbuf_puts(o, ", \"delta_mean_ns\": ");
	if (k->count[0] && k->count[1])
		gs_outbuf_printf(o, "%lld", (long long)(kern_mean(k, 1) - kern_mean(k, 0)));
	else
		gs_outbuf_puts(o, "null");
	gs_outbuf_printf(o, ", \"delta_count\": %lld",
			 (long long)k->count[1] - (long long)k->count[0]);
}

static void diff_json_device(struct gs_outbuf *o, const struct dev_diff *dd)
{
	size_t i;

	gs_outbuf_printf(o, "    {\"device\": %u, \"rank\": %u, \"name\": ", dd->device, dd->rank);
	gs_outbuf_json_str(o, dd->name, GS_JSON_ESCAPE_DEL);
	gs_outbuf_printf(o, ", \"in_base\": %s, \"in_new\": %s",
			 dd->d[SIDE_BASE] ? "true" : "false", dd->d[SIDE_NEW] ? "true" : "false");
	diff_json_pairing(o, dd);
	gs_outbuf_puts(o, ",\n      \"metrics\": {");
	for (i = 0; i < M_COUNT; i++) {
		int64_t v[2] = {dd->m[0][i], dd->m[1][i]};

		gs_outbuf_puts(o, i ? ",\n        " : "\n        ");
		diff_json_side_i64(o, metrics[i].key, dd, v);
		diff_json_normalized(o, dd, metrics[i].ns, v);
		gs_outbuf_putc(o, '}');
	}
	gs_outbuf_puts(o, ",\n        \"efficiency\": {\"base\": ");
	if (dd->d[SIDE_BASE])
		diff_json_fixed4(o, dd->eff[SIDE_BASE]);
	else
		gs_outbuf_puts(o, "null");
	gs_outbuf_puts(o, ", \"new\": ");
	if (dd->d[SIDE_NEW])
		diff_json_fixed4(o, dd->eff[SIDE_NEW]);
	else
		gs_outbuf_puts(o, "null");
	gs_outbuf_puts(o, ", \"delta\": ");
	/* A bounded or cycle-broken efficiency is no measure to subtract. */
	if (dd->d[SIDE_BASE] && dd->d[SIDE_NEW] && dd->eff_kind[0] == GS_REPORT_EFF_EXACT &&
	    dd->eff_kind[1] == GS_REPORT_EFF_EXACT)
		diff_json_fixed4(o, dd->eff[SIDE_NEW] - dd->eff[SIDE_BASE]);
	else
		gs_outbuf_puts(o, "null");
	for (int s = 0; s < 2; s++) {
		gs_outbuf_printf(o, ", \"%s_kind\": ", s ? "new" : "base");
		if (dd->d[s])
			gs_outbuf_json_str(o, eff_kind_names[dd->eff_kind[s] % 3],
					   GS_JSON_ESCAPE_DEL);
		else
			gs_outbuf_puts(o, "null");
	}
	gs_outbuf_puts(o, "}\n      },\n      \"dominant\": {\"base\": ");
	if (dd->d[SIDE_BASE])
		gs_outbuf_json_str(o, gs_category_name(dd->d[SIDE_BASE]->b.dominant),
				   GS_JSON_ESCAPE_DEL);
	else
		gs_outbuf_puts(o, "null");
	gs_outbuf_puts(o, ", \"new\": ");
	if (dd->d[SIDE_NEW])
		gs_outbuf_json_str(o, gs_category_name(dd->d[SIDE_NEW]->b.dominant),
				   GS_JSON_ESCAPE_DEL);
	else
		gs_outbuf_puts(o, "null");
	gs_outbuf_puts(o, "},\n      \"kernels\": [");
	for (i = 0; i < dd->n_kernels; i++) {
		const struct kern_row *k = &dd->kernels[i];

		gs_outbuf_puts(o, i ? ",\n        {\"name\": " : "\n        {\"name\": ");
		gs_outbuf_json_str(o, k->name, GS_JSON_ESCAPE_DEL);
		gs_outbuf_printf(o,
				 ", \"base_count\": %llu, \"new_count\": %llu, \"base_ns\": %lld, "
				 "\"new_ns\": %lld, \"delta_ns\": %lld",
				 (unsigned long long)k->count[0], (unsigned long long)k->count[1],
				 (long long)k->ns[0], (long long)k->ns[1],
				 (long long)kern_delta(k));
		diff_json_mean(o, k);
		diff_json_norm_ns(o, dd, k->norm);
		gs_outbuf_putc(o, '}');
	}
	gs_outbuf_puts(o,
		       dd->n_kernels ? "\n      ],\n      \"waits\": [" : "],\n      \"waits\": [");
	for (i = 0; i < dd->n_waits; i++) {
		const struct group *g = &dd->waits[i];

		gs_outbuf_puts(o, i ? ",\n        {\"status\": " : "\n        {\"status\": ");
		gs_outbuf_json_str(o, status_names[g->status], GS_JSON_ESCAPE_DEL);
		gs_outbuf_puts(o, ", \"kind\": ");
		gs_outbuf_json_str(o, gs_edge_kind_name(g->kind), GS_JSON_ESCAPE_DEL);
		gs_outbuf_puts(o, ", \"consumer\": ");
		gs_outbuf_json_str(o, g->a, GS_JSON_ESCAPE_DEL);
		gs_outbuf_printf(o, ", \"consumer_stream\": %llu, \"producer\": ",
				 (unsigned long long)g->sa);
		gs_outbuf_json_str(o, g->b, GS_JSON_ESCAPE_DEL);
		gs_outbuf_printf(o, ", \"producer_stream\": %llu", (unsigned long long)g->sb);
		diff_json_counts(o, dd, g, "wait_ns");
		gs_outbuf_putc(o, '}');
	}
	gs_outbuf_puts(o, dd->n_waits ? "\n      ],\n      \"missed_overlap\": [" :
					"],\n      \"missed_overlap\": [");
	for (i = 0; i < dd->n_missed; i++) {
		const struct group *g = &dd->missed[i];

		gs_outbuf_puts(o, i ? ",\n        {\"status\": " : "\n        {\"status\": ");
		gs_outbuf_json_str(o, status_names[g->status], GS_JSON_ESCAPE_DEL);
		gs_outbuf_puts(o, ", \"name\": ");
		gs_outbuf_json_str(o, g->a, GS_JSON_ESCAPE_DEL);
		gs_outbuf_printf(o,
				 ", \"stream\": %llu, \"direction\": ", (unsigned long long)g->sa);
		gs_outbuf_json_str(o, gs_copy_kind_name(g->kind), GS_JSON_ESCAPE_DEL);
		diff_json_counts(o, dd, g, "exposed_ns");
		gs_outbuf_printf(o, ", \"base_hideable_ns\": %lld, \"new_hideable_ns\": %lld}",
				 (long long)g->extra[0], (long long)g->extra[1]);
	}
	gs_outbuf_puts(o, dd->n_missed ? "\n      ]}" : "]}");
}

gs_status gs_diff_write_json(FILE *f, const struct gs_diff *df)
{
	struct gs_outbuf o;

	if (!f || !df) {
		gs_error_append("gs_diff_write_json: no output or no diff");
		return GS_ERR_INVALID;
	}
	gs_outbuf_init(&o, f);
	gs_outbuf_puts(&o, "{\n  \"schema\": \"gpuscope.diff/1\",\n");
	diff_json_side(&o, df, SIDE_BASE);
	gs_outbuf_puts(&o, ",\n");
	diff_json_side(&o, df, SIDE_NEW);
	gs_outbuf_printf(&o, ",\n  \"basis\": \"%s\"", common_basis_name(df));
	gs_outbuf_puts(&o, ",\n  \"warnings\": [");
	for (size_t i = 0; i < df->n_warnings; i++) {
		gs_outbuf_puts(&o, i ? ", " : "");
		gs_outbuf_json_str(&o, df->warnings[i], GS_JSON_ESCAPE_DEL);
	}
	gs_outbuf_puts(&o, "],\n  \"devices\": [");
	for (size_t i = 0; i < df->n_dev; i++) {
		gs_outbuf_puts(&o, i ? ",\n" : "\n");
		diff_json_device(&o, &df->dev[i]);
	}
	gs_outbuf_puts(&o, df->n_dev ? "\n  ]" : "]");
	if (df->verdict) {
		/* The gate through the report's JSON writer, one level in. */
		struct gs_json w;

		gs_json_init(&w, &o, GS_JSON_ESCAPE_DEL);
		w.depth = 1;
		gs_gate_write_json(&w, df->verdict);
	}
	gs_outbuf_puts(&o, "\n}\n");
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
static void diff_text_metric_row(struct gs_outbuf *o, const struct dev_diff *dd, int i)
{
	char b[48], n[48], d[48], c[32];
	bool both = dd->d[0] && dd->d[1], frac = dd->basis != B_TOTAL;
	double xb = diff_norm_of(dd, 0, dd->m[0][i]), xn = diff_norm_of(dd, 1, dd->m[1][i]);
	int64_t vb = llround(xb), vn = llround(xn);
	uint64_t unit =
		gs_dur_unit(max_u64(max_u64(dd->d[0] ? uabs64(vb) : 0, dd->d[1] ? uabs64(vn) : 0),
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
	diff_text_cell(o, dd->d[0] ? b : "-", C_VALUE, true);
	diff_text_cell(o, dd->d[1] ? n : "-", C_VALUE, true);
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
static const char *eff_cell(char *buf, size_t size, const struct dev_diff *dd, int s)
{
	if (!dd->d[s])
		snprintf(buf, size, "-");
	else if (dd->eff_kind[s] == GS_REPORT_EFF_CYCLES || !isfinite(dd->eff[s]))
		snprintf(buf, size, "n/a (cycles broken)");
	else if (dd->eff_kind[s] == GS_REPORT_EFF_BOUNDED)
		snprintf(buf, size, "n/a (bounded)");
	else
		snprintf(buf, size, "%.4f", dd->eff[s]);
	return buf;
}

static void diff_text_eff_row(struct gs_outbuf *o, const struct dev_diff *dd)
{
	char b[32], n[32], d[32];
	bool exact[2], cycles = false, bounded = false;

	for (int s = 0; s < 2; s++) {
		exact[s] = dd->d[s] && dd->eff_kind[s] == GS_REPORT_EFF_EXACT &&
			   isfinite(dd->eff[s]);
		cycles |= dd->d[s] && dd->eff_kind[s] == GS_REPORT_EFF_CYCLES;
		bounded |= dd->d[s] && dd->eff_kind[s] == GS_REPORT_EFF_BOUNDED;
	}
	snprintf(d, sizeof(d), exact[0] && exact[1] ? "%+.4f" : "n/a", dd->eff[1] - dd->eff[0]);
	gs_outbuf_puts(o, "  ");
	diff_text_cell(o, "efficiency", C_LABEL, false);
	diff_text_cell(o, eff_cell(b, sizeof(b), dd, 0), C_VALUE, true);
	diff_text_cell(o, eff_cell(n, sizeof(n), dd, 1), C_VALUE, true);
	if (dd->d[0] && dd->d[1])
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
			      const struct dev_diff *dd)
{
	size_t shown = dd->n_kernels < df->top ? dd->n_kernels : df->top;
	const char *time = dd->basis == B_PER_ITERATION ? "time per iteration" :
			   dd->basis == B_SCALED_BY_OPS ? "time (new scaled)" :
							  "total time";

	if (!dd->n_kernels)
		return;
	gs_outbuf_printf(o, "\n  kernels whose %s changed most (%zu of %zu names)\n",
			 dd->basis == B_PER_ITERATION ? "time per iteration" : "total time", shown,
			 dd->n_kernels);
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
		const struct kern_row *r = &dd->kernels[i];
		int64_t mean[2] = {kern_mean(r, 0), kern_mean(r, 1)};

		gs_outbuf_puts(o, "  ");
		diff_text_count_cells(o, r->count);
		diff_text_dur3(o, r->count, r->norm, false);
		diff_text_dur3(o, r->count, mean, true);
		gs_outbuf_puts(o, "    ");
		diff_text_last(o, r->name, WIDTH - 4);
	}
}

static size_t count_status(const struct group *g, size_t n, uint8_t st)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += g[i].status == st;
	return k;
}

/* One group: status, kind, time base / new / delta, count; then what it is
 * on a line of its own. */
static void diff_text_group_line(struct gs_outbuf *o, const struct group *g, const char *kind,
				 const char *what)
{
	char a[48], b[48], d[48], k[48];
	const int64_t *v = g->norm; /* on the basis of the comparison */
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
static size_t shown_groups(const struct group *g, size_t n, size_t top)
{
	size_t k = 0;

	while (k < n && k < top && g[k].status != ST_SAME)
		k++;
	return k;
}

static void diff_text_waits(struct gs_outbuf *o, const struct gs_diff *df,
			    const struct dev_diff *dd)
{
	size_t shown = shown_groups(dd->waits, dd->n_waits, df->top);
	char what[8 * WIDTH + 64];

	if (!dd->n_waits)
		return;
	gs_outbuf_printf(o,
			 "\n  waits: %zu new, %zu vanished, %zu changed, %zu same (by consumer and "
			 "producer)\n",
			 count_status(dd->waits, dd->n_waits, ST_NEW),
			 count_status(dd->waits, dd->n_waits, ST_VANISHED),
			 count_status(dd->waits, dd->n_waits, ST_CHANGED),
			 count_status(dd->waits, dd->n_waits, ST_SAME));
	if (!shown)
		return;
	diff_text_group_head(o, "consumer <- producer [stream]");
	for (size_t i = 0; i < shown; i++) {
		const struct group *g = &dd->waits[i];

		char ca[4 * WIDTH], cb[4 * WIDTH];

		fit(ca, sizeof(ca), g->a, 38);
		fit(cb, sizeof(cb), g->b, 38);
		snprintf(what, sizeof(what), "%s [%llu] <- %s [%llu]", ca,
			 (unsigned long long)g->sa, cb, (unsigned long long)g->sb);
		diff_text_group_line(o, g, gs_edge_kind_name(g->kind), what);
	}
}

static void diff_text_missed(struct gs_outbuf *o, const struct gs_diff *df,
			     const struct dev_diff *dd)
{
	size_t shown = shown_groups(dd->missed, dd->n_missed, df->top);
	char what[4 * WIDTH];

	if (!dd->n_missed)
		return;
	gs_outbuf_printf(o,
			 "\n  missed overlaps: %zu new, %zu vanished, %zu changed, %zu same (by "
			 "copy, stream, direction)\n",
			 count_status(dd->missed, dd->n_missed, ST_NEW),
			 count_status(dd->missed, dd->n_missed, ST_VANISHED),
			 count_status(dd->missed, dd->n_missed, ST_CHANGED),
			 count_status(dd->missed, dd->n_missed, ST_SAME));
	if (!shown)
		return;
	diff_text_group_head(o, "copy [stream] (exposed time)");
	for (size_t i = 0; i < shown; i++) {
		const struct group *g = &dd->missed[i];

		snprintf(what, sizeof(what), "%.200s [%llu]", g->a, (unsigned long long)g->sa);
		diff_text_group_line(o, g, gs_copy_kind_name(g->kind), what);
	}
}

/* The one line that says what the comparison is on, when not the totals. */
static void diff_text_basis(struct gs_outbuf *o, const struct dev_diff *dd)
{
	char line[8 * WIDTH], nm[4 * WIDTH], src[4 * WIDTH + 32];
	uint64_t a = dd->d[0] ? dd->d[0]->ops : 0, b = dd->d[1] ? dd->d[1]->ops : 0;

	if (dd->basis == B_PER_ITERATION) {
		if (dd->iter_src == IT_NVTX) {
			fit(nm, sizeof(nm), dd->iter_name, 24);
			snprintf(src, sizeof(src), "NVTX ranges \"%s\"", nm);
		} else {
			snprintf(src, sizeof(src), "ProfilerStep#N ranges");
		}
		snprintf(line, sizeof(line),
			 "compared per iteration: %llu iterations in base, %llu in new (%s)",
			 (unsigned long long)dd->iters[0], (unsigned long long)dd->iters[1], src);
	} else if (dd->basis == B_SCALED_BY_OPS) {
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
			     const struct dev_diff *dd)
{
	char name[4 * WIDTH];
	bool mixed;

	fit(name, sizeof(name), dd->name, 60);
	if (dd->explicit_pair && dd->in_job)
		gs_outbuf_printf(
			o, "\nbase rank %u \u00b7 GPU %u <-> new rank %u \u00b7 GPU %u%s%s%s\n",
			dd->rank_of[0], dd->dev_of[0], dd->rank_of[1], dd->dev_of[1],
			*name ? " (" : "", name, *name ? ")" : "");
	else if (dd->explicit_pair)
		gs_outbuf_printf(o, "\nbase device %u <-> new device %u%s%s%s\n", dd->dev_of[0],
				 dd->dev_of[1], *name ? " (" : "", name, *name ? ")" : "");
	else if (dd->in_job)
		gs_outbuf_printf(o, "\nrank %u \u00b7 GPU %u%s%s%s\n", dd->rank, dd->device,
				 *name ? " (" : "", name, *name ? ")" : "");
	else
		gs_outbuf_printf(o, "\ndevice %u%s%s%s\n", dd->device, *name ? " (" : "", name,
				 *name ? ")" : "");
	if (!dd->d[SIDE_BASE] || !dd->d[SIDE_NEW])
		gs_outbuf_printf(o, "  only in %s\n", dd->d[SIDE_BASE] ? "base" : "new");
	if (dd->models_differ) {
		char a[4 * WIDTH], b[4 * WIDTH];

		fit(a, sizeof(a), dd->d[SIDE_BASE]->name, 40);
		fit(b, sizeof(b), dd->d[SIDE_NEW]->name, 40);
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
	for (int i = 0; i < M_COUNT; i++) {
		diff_text_metric_row(o, dd, i);
		if (i == M_IDEAL)
			diff_text_eff_row(o, dd);
	}
	gs_outbuf_puts(o, "  ");
	diff_text_cell(o, "dominant", C_LABEL, false);
	diff_text_cell(o, dd->d[0] ? gs_category_name(dd->d[0]->b.dominant) : "-", C_VALUE, true);
	diff_text_cell(o, dd->d[1] ? gs_category_name(dd->d[1]->b.dominant) : "-", C_VALUE, true);
	gs_outbuf_putc(o, '\n');
	diff_text_kernels(o, df, dd);
	diff_text_waits(o, df, dd);
	diff_text_missed(o, df, dd);
}

gs_status gs_diff_write_text(FILE *f, const struct gs_diff *df)
{
	char a[4 * WIDTH], b[4 * WIDTH];
	struct gs_outbuf o;

	if (!f || !df) {
		gs_error_append("gs_diff_write_text: no output or no diff");
		return GS_ERR_INVALID;
	}
	gs_outbuf_init(&o, f);
	fit(a, sizeof(a), df->label[0], WIDTH - 6);
	fit(b, sizeof(b), df->label[1], WIDTH - 6);
	gs_outbuf_printf(&o, "base: %s\nnew:  %s\n", a, b);
	gs_outbuf_puts(&o, "delta = new - base; change = delta / base\n");
	{
		bool mixed;
		const struct dev_diff *first = common_basis(df, &mixed);

		if (first)
			diff_text_basis(&o, first);
	}
	if (!df->n_dev)
		gs_outbuf_puts(&o, "\nneither trace has GPU ops\n");
	for (size_t i = 0; i < df->n_dev; i++)
		diff_text_device(&o, df, &df->dev[i]);
	return gs_outbuf_finish(&o);
}
