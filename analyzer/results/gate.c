/* SPDX-License-Identifier: MIT */
/*
 * The gate of a CI job (gpuscope/gate.h): `--fail-if` thresholds parsed,
 * checked against each GPU of a report or each pair of GPUs of a diff, the
 * verdict of each threshold with its worst GPU, as one line for people and
 * as the "gate" member of the JSON. docs/design.md, "The gate", has the
 * metrics and the rules.
 *
 * A threshold is checked on every GPU that has its metric and is crossed
 * when one of them crosses it; the verdict names the worst (the largest
 * value for > and >=, the smallest for < and <=). O(T G) for T thresholds
 * and G GPUs.
 */
#include "gate_priv.h"
#include "report_model_priv.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuscope/json.h>

#include <gpuscope/text.h>

/* ---- the metrics ------------------------------------------------------------ */

enum metric_id {
	M_STEP_TIME,
	M_WINDOW,
	M_KERNEL_TIME,
	M_COPY_TIME,
	M_SYNC_TIME,
	M_IDLE_TIME,
	M_KERNEL_SHARE,
	M_COPY_SHARE,
	M_SYNC_SHARE,
	M_IDLE_SHARE,
	M_EFFICIENCY,
	M_GAP,
	M_HOST_BOUND,
	M_LAUNCH_LATENCY,
	M_EXPOSED_COMM,
	M_COMM_TIME,
	M_WAIT_TIME,
	M_MISSED_OVERLAP,
	M_OPS,
	M_COUNT
};

static const struct metric {
	const char *name;
	uint8_t unit; /* enum gs_gate_unit */
	bool share;   /* a fraction for people as a percentage (else a ratio) */
} metrics[M_COUNT] = {
	[M_STEP_TIME] = {"step_time", GS_GATE_NS, false},
	[M_WINDOW] = {"window", GS_GATE_NS, false},
	[M_KERNEL_TIME] = {"kernel_time", GS_GATE_NS, false},
	[M_COPY_TIME] = {"copy_time", GS_GATE_NS, false},
	[M_SYNC_TIME] = {"sync_time", GS_GATE_NS, false},
	[M_IDLE_TIME] = {"idle_time", GS_GATE_NS, false},
	[M_KERNEL_SHARE] = {"kernel_share", GS_GATE_FRACTION, true},
	[M_COPY_SHARE] = {"copy_share", GS_GATE_FRACTION, true},
	[M_SYNC_SHARE] = {"sync_share", GS_GATE_FRACTION, true},
	[M_IDLE_SHARE] = {"idle_share", GS_GATE_FRACTION, true},
	[M_EFFICIENCY] = {"efficiency", GS_GATE_FRACTION, false},
	[M_GAP] = {"gap", GS_GATE_NS, false},
	[M_HOST_BOUND] = {"host_bound", GS_GATE_NS, false},
	[M_LAUNCH_LATENCY] = {"launch_latency", GS_GATE_NS, false},
	[M_EXPOSED_COMM] = {"exposed_comm", GS_GATE_NS, false},
	[M_COMM_TIME] = {"comm_time", GS_GATE_NS, false},
	[M_WAIT_TIME] = {"wait_time", GS_GATE_NS, false},
	[M_MISSED_OVERLAP] = {"missed_overlap", GS_GATE_NS, false},
	[M_OPS] = {"ops", GS_GATE_COUNT, false},
};

enum op {
	OP_GT,
	OP_GE,
	OP_LT,
	OP_LE
};
static const char *const op_names[] = {">", ">=", "<", "<="};

static const char *const compare_names[] = {"value", "change", "relative_change"};
static const char *const unit_names[] = {"ns", "fraction", "count"};

struct threshold {
	char *text; /* as written, blanks left out */
	uint8_t metric;
	uint8_t op;
	uint8_t compare; /* enum gs_gate_compare */
	double limit;    /* ns, a fraction or a count; RELATIVE: a fraction */
};

struct gs_gate {
	uint8_t use; /* enum gs_gate_for */
	struct threshold *t;
	size_t n;
};

/* ---- parsing ---------------------------------------------------------------- */

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* "step_time, window, ..." into buf. */
static const char *metric_list(char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < M_COUNT && len < size; i++) {
		int k = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", metrics[i].name);

		if (k < 0)
			break;
		len += (size_t)k;
	}
	return buf;
}

static const struct {
	const char *name;
	double ns;
} time_units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};

enum unit_kind {
	U_NONE,
	U_TIME,
	U_PERCENT,
	U_PP
};

/* A value as written: its sign, number and unit (the unit's ns in *scale
 * for a time). False with a cause naming `piece` and `v`. */
static bool parse_value(const char *piece, const char *v, int *sign, double *num, uint8_t *unit,
			double *scale)
{
	const char *p = v, *digits;
	char buf[64];
	bool any = false;
	size_t i, len;

	*sign = 0;
	*scale = 1;
	if (*p == '+' || *p == '-')
		*sign = *p++ == '+' ? 1 : -1;
	digits = p;
	while (*p >= '0' && *p <= '9')
		p++, any = true;
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9')
			p++, any = true;
	}
	len = (size_t)(p - digits);
	if (!any || len >= sizeof(buf)) {
		gs_error_append("'%s': '%s' is not a number with a unit (ns, us, ms, s, %%, pp)",
				piece, v);
		return false;
	}
	memcpy(buf, digits, len);
	buf[len] = '\0';
	*num = strtod(buf, NULL);
	if (!*p) {
		*unit = U_NONE;
		return true;
	}
	if (!strcmp(p, "%")) {
		*unit = U_PERCENT;
		return true;
	}
	if (!strcmp(p, "pp")) {
		*unit = U_PP;
		return true;
	}
	for (i = 0; i < sizeof(time_units) / sizeof(time_units[0]); i++) {
		if (!strcmp(p, time_units[i].name)) {
			*unit = U_TIME;
			*scale = time_units[i].ns;
			return true;
		}
	}
	gs_error_append("'%s': unknown unit '%s' in '%s' (ns, us, ms, s, %%, pp)", piece, p, v);
	return false;
}

/* The comparison and limit of `v` for metric `m`; false with a cause. */
static bool value_meaning(const char *piece, const char *v, const struct metric *m, uint8_t use,
			  struct threshold *t)
{
	double num, scale;
	uint8_t unit;
	int sign;

	if (!parse_value(piece, v, &sign, &num, &unit, &scale))
		return false;
	if (sign && use != GS_GATE_DIFF) {
		gs_error_append("'%s': '%s' is a change, which needs two runs (gpuscope diff BASE "
				"NEW --fail-if ...); here give a value, without a sign",
				piece, v);
		return false;
	}
	if (unit == U_PP && !sign) {
		gs_error_append("'%s': pp (percentage points) is a change: give its sign "
				"('+%s'), in gpuscope diff; a share here is 30%% or 0.3",
				piece, v);
		return false;
	}
	if (unit == U_PERCENT && sign) {
		t->compare = GS_GATE_RELATIVE;
		t->limit = sign * num / 100.0;
		return true;
	}
	t->compare = sign ? GS_GATE_CHANGE : GS_GATE_VALUE;
	switch (m->unit) {
	case GS_GATE_NS:
		if (unit != U_TIME) {
			gs_error_append(
				"'%s': %s is a time: '%s' wants a unit, ns, us, ms or s (12ms)%s",
				piece, m->name, v,
				unit == U_PERCENT ? "; a relative change is +5% (diff)" : "");
			return false;
		}
		t->limit = (sign < 0 ? -1 : 1) * num * scale;
		return true;
	case GS_GATE_FRACTION:
		if (unit == U_TIME) {
			gs_error_append("'%s': %s is a %s: '%s' wants a fraction (0.3), %% (30%%) "
					"or, as a change in diff, pp (+3pp), not a time",
					piece, m->name, m->share ? "share" : "ratio", v);
			return false;
		}
		t->limit = (sign < 0 ? -1 : 1) * (unit == U_NONE ? num : num / 100.0);
		return true;
	default:
		if (unit != U_NONE) {
			gs_error_append("'%s': %s is a count: '%s' wants a plain number (or, as a "
					"change in diff, +N or +N%%)",
					piece, m->name, v);
			return false;
		}
		t->limit = (sign < 0 ? -1 : 1) * num;
		return true;
	}
}

/* The metric named by the `len` bytes at `name`; M_COUNT when none. */
static size_t metric_index(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < M_COUNT; i++)
		if (strlen(metrics[i].name) == len && !memcmp(metrics[i].name, name, len))
			break;
	return i;
}

/* One threshold, `piece` (trimmed, NUL-terminated). */
static gs_status parse_one(char *piece, uint8_t use, struct threshold *t)
{
	char names[512], metric[64], value[96];
	const char *p = piece, *mend, *v, *ops;
	size_t i, len;

	while (*p && !blank(*p) && *p != '<' && *p != '>' && *p != '=')
		p++;
	mend = p;
	len = (size_t)(mend - piece);
	if (!len) {
		gs_error_append("'%s': no metric before the comparison (%s)", piece,
				metric_list(names, sizeof(names)));
		return GS_ERR_INVALID;
	}
	if (len >= sizeof(metric)) {
		gs_error_append("'%s': unknown metric (%s)", piece,
				metric_list(names, sizeof(names)));
		return GS_ERR_INVALID;
	}
	memcpy(metric, piece, len);
	metric[len] = '\0';
	i = metric_index(metric, len);
	if (i == M_COUNT) {
		size_t id = 0;

		/* "step_time+5%": a metric, then no comparison. */
		while (id < len && (isalnum((unsigned char)metric[id]) || metric[id] == '_'))
			id++;
		if (id < len && metric_index(metric, id) < M_COUNT)
			gs_error_append("'%s': no comparison after '%.*s' (>, >=, <, <=)", piece,
					(int)id, metric);
		else
			gs_error_append("'%s': unknown metric '%s' (%s)", piece, metric,
					metric_list(names, sizeof(names)));
		return GS_ERR_INVALID;
	}
	t->metric = (uint8_t)i;
	while (blank(*p))
		p++;
	ops = p;
	while (*p == '<' || *p == '>' || *p == '=')
		p++;
	len = (size_t)(p - ops);
	if (len == 1 && (ops[0] == '>' || ops[0] == '<'))
		t->op = ops[0] == '>' ? OP_GT : OP_LT;
	else if (len == 2 && (ops[0] == '>' || ops[0] == '<') && ops[1] == '=')
		t->op = ops[0] == '>' ? OP_GE : OP_LE;
	else if (len) {
		gs_error_append("'%s': '%.*s' is no comparison (>, >=, <, <=)", piece, (int)len,
				ops);
		return GS_ERR_INVALID;
	} else {
		gs_error_append("'%s': no comparison after '%s' (>, >=, <, <=)", piece, metric);
		return GS_ERR_INVALID;
	}
	while (blank(*p))
		p++;
	v = p;
	if (!*v) {
		gs_error_append("'%s': no value after '%s'", piece, op_names[t->op]);
		return GS_ERR_INVALID;
	}
	for (p = v; *p; p++) {
		if (blank(*p)) {
			gs_error_append("'%s': '%s' is not one value (no blank inside a value)",
					piece, v);
			return GS_ERR_INVALID;
		}
	}
	if (strlen(v) >= sizeof(value)) {
		gs_error_append("'%s': the value is too long", piece);
		return GS_ERR_INVALID;
	}
	snprintf(value, sizeof(value), "%s", v);
	if (!value_meaning(piece, value, &metrics[i], use, t))
		return GS_ERR_INVALID;
	/* The threshold as written, blanks left out. */
	t->text = malloc(strlen(piece) + 1);
	if (!t->text)
		return gs_nomem();
	len = 0;
	for (p = piece; *p; p++)
		if (!blank(*p))
			t->text[len++] = *p;
	t->text[len] = '\0';
	return GS_OK;
}

gs_status gs_gate_parse(const char *text, enum gs_gate_for use, struct gs_gate **out)
{
	struct gs_gate *g;
	char *copy, *s, *piece;
	gs_status st = GS_OK;

	if (out)
		*out = NULL;
	if (!text || !out) {
		gs_error_append("gs_gate_parse: no %s", out ? "text" : "output");
		return GS_ERR_INVALID;
	}
	g = calloc(1, sizeof(*g));
	copy = strdup(text);
	if (g)
		g->t = calloc(GS_GATE_MAX, sizeof(*g->t));
	if (!g || !copy || !g->t) {
		free(copy);
		gs_gate_destroy(g);
		return gs_nomem();
	}
	g->use = (uint8_t)use;
	for (s = copy; st == GS_OK;) {
		char *comma = strchr(s, ',');
		char *end;

		if (comma)
			*comma = '\0';
		piece = s;
		while (blank(*piece))
			piece++;
		end = piece + strlen(piece);
		while (end > piece && blank(end[-1]))
			*--end = '\0';
		if (!*piece) {
			gs_error_append("'%s': %s", text,
					comma || s != copy ?
						"an empty threshold (two commas, or one "
						"at an end)" :
						"no threshold (METRIC>VALUE, ...)");
			st = GS_ERR_INVALID;
		} else if (g->n == GS_GATE_MAX) {
			gs_error_append("%d thresholds at most", GS_GATE_MAX);
			st = GS_ERR_INVALID;
		} else {
			st = parse_one(piece, (uint8_t)use, &g->t[g->n]);
			g->n += st == GS_OK;
		}
		if (!comma)
			break;
		s = comma + 1;
	}
	free(copy);
	if (st != GS_OK) {
		gs_error_append("--fail-if");
		gs_gate_destroy(g);
		return st;
	}
	*out = g;
	return GS_OK;
}

void gs_gate_destroy(struct gs_gate *g)
{
	if (!g)
		return;
	for (size_t i = 0; g->t && i < g->n; i++)
		free(g->t[i].text);
	free(g->t);
	free(g);
}

size_t gs_gate_count(const struct gs_gate *g)
{
	return g ? g->n : 0;
}

enum gs_gate_for gs_gate_use(const struct gs_gate *g)
{
	return g && g->use == GS_GATE_DIFF ? GS_GATE_DIFF : GS_GATE_REPORT;
}

bool gs_gate_wants_steps(const struct gs_gate *g)
{
	for (size_t i = 0; g && i < g->n; i++)
		if (g->t[i].metric == M_STEP_TIME)
			return true;
	return false;
}

/* ---- values ----------------------------------------------------------------- */

static int cmp_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;

	return a < b ? -1 : a > b;
}

int64_t gs_gate_steps_median(const struct gs_steps *s)
{
	int64_t *times, median = -1;
	size_t n = 0;

	if (!s || !s->n)
		return -1;
	times = malloc(s->n * sizeof(*times));
	if (!times)
		return -1;
	for (size_t i = 0; i < s->n; i++)
		if (s->steps[i].selected && s->steps[i].gpu_end_ns > s->steps[i].gpu_start_ns)
			times[n++] = s->steps[i].gpu_end_ns - s->steps[i].gpu_start_ns;
	if (n) {
		qsort(times, n, sizeof(*times), cmp_i64);
		median = times[(n - 1) / 2];
	}
	free(times);
	return median;
}

static double share(int64_t part, int64_t whole)
{
	return whole > 0 ? (double)part / (double)whole : 0;
}

/* A side's value of metric m, on the basis of the comparison (times and
 * counts divided by f; the step time is per step already); false when the
 * side lacks it. */
static bool side_value(uint8_t m, const struct gs_gate_gpu *g, int s, double *v)
{
	const struct gs_report_device *d = g->d[s];
	const int64_t *tot;

	if (!d)
		return false;
	tot = d->b.total_ns;
	switch (m) {
	case M_STEP_TIME:
		if (g->step_ns[s] < 0)
			return false;
		*v = (double)g->step_ns[s];
		return true;
	case M_WINDOW:
		*v = (double)d->b.window_ns;
		break;
	case M_KERNEL_TIME:
		*v = (double)tot[GS_CAT_KERNEL];
		break;
	case M_COPY_TIME:
		*v = (double)tot[GS_CAT_COPY];
		break;
	case M_SYNC_TIME:
		*v = (double)tot[GS_CAT_SYNC];
		break;
	case M_IDLE_TIME:
		*v = (double)tot[GS_CAT_IDLE];
		break;
	case M_KERNEL_SHARE:
		*v = share(tot[GS_CAT_KERNEL], d->b.window_ns);
		return true;
	case M_COPY_SHARE:
		*v = share(tot[GS_CAT_COPY], d->b.window_ns);
		return true;
	case M_SYNC_SHARE:
		*v = share(tot[GS_CAT_SYNC], d->b.window_ns);
		return true;
	case M_IDLE_SHARE:
		*v = share(tot[GS_CAT_IDLE], d->b.window_ns);
		return true;
	case M_EFFICIENCY:
		if (d->efficiency_kind == GS_REPORT_EFF_CYCLES || !isfinite(d->efficiency))
			return false;
		*v = d->efficiency;
		return true;
	case M_GAP:
		*v = d->actual_ns > d->ideal_ns ? (double)(d->actual_ns - d->ideal_ns) : 0;
		break;
	case M_HOST_BOUND:
		*v = (double)d->b.host_bound_ns;
		break;
	case M_LAUNCH_LATENCY:
		*v = (double)d->b.launch_latency_ns;
		break;
	case M_EXPOSED_COMM:
		*v = (double)d->comm_exposed_ns;
		break;
	case M_COMM_TIME:
		*v = (double)d->comm_ns;
		break;
	case M_WAIT_TIME:
		*v = (double)d->wait_ns;
		break;
	case M_MISSED_OVERLAP:
		*v = (double)d->missed_exposed_ns;
		break;
	default:
		*v = (double)d->ops;
		break;
	}
	*v /= g->f[s] > 0 ? g->f[s] : 1;
	return true;
}

/* What threshold t compares on GPU g (and both sides' values); false when
 * g lacks the metric. A diff compares the GPUs present on both sides; a
 * change needs the metric on both (of efficiency, exact on both: bounded
 * is no measure), NEW's value on NEW only (BASE's is then NaN). */
static bool gpu_value(const struct gs_gate *gate, const struct threshold *t,
		      const struct gs_gate_gpu *g, double *value, double *base, double *now)
{
	*base = 0;
	if (!side_value(t->metric, g, 1, now))
		return false;
	if (gate->use != GS_GATE_DIFF) {
		*value = *now;
		return true;
	}
	if (!side_value(t->metric, g, 0, base)) {
		/* NEW's value needs no BASE (shown as n/a). */
		*base = NAN;
		*value = *now;
		return t->compare == GS_GATE_VALUE;
	}
	if (t->compare != GS_GATE_VALUE && t->metric == M_EFFICIENCY &&
	    (g->d[0]->efficiency_kind != GS_REPORT_EFF_EXACT ||
	     g->d[1]->efficiency_kind != GS_REPORT_EFF_EXACT))
		return false;
	switch (t->compare) {
	case GS_GATE_CHANGE:
		*value = *now - *base;
		break;
	case GS_GATE_RELATIVE:
		if (*base != 0)
			*value = (*now - *base) / fabs(*base);
		else
			*value = *now == 0 ? 0 : *now > 0 ? INFINITY : -INFINITY;
		break;
	default:
		*value = *now;
		break;
	}
	return true;
}

static bool crosses(uint8_t op, double v, double limit)
{
	switch (op) {
	case OP_GT:
		return v > limit;
	case OP_GE:
		return v >= limit;
	case OP_LT:
		return v < limit;
	default:
		return v <= limit;
	}
}

/* Why no GPU has the metric of t: the cause. */
static void none_checked(const struct gs_gate *gate, const struct threshold *t, size_t n)
{
	const char *side = gate->use == GS_GATE_DIFF ? " on both sides" : "";

	if (!n)
		gs_error_append("%s: no GPU to check%s", t->text,
				gate->use == GS_GATE_DIFF ? " (none is in both runs)" : "");
	else if (t->metric == M_STEP_TIME)
		gs_error_append("%s: no GPU has a step time%s: no steps %s (ProfilerStep#N ranges, "
				"--step-marker REGEX, or a repeated top-level annotation)",
				t->text, side,
				gate->use == GS_GATE_DIFF ? "found" :
							    "analysed (none found, or --window, "
							    "--step none)");
	else if (t->metric == M_EFFICIENCY)
		gs_error_append("%s: no GPU has an efficiency%s%s", t->text,
				t->compare != GS_GATE_VALUE ? " that is exact on both sides" : "",
				t->compare != GS_GATE_VALUE ?
					" (bounded, or dependency cycles broken)" :
					" (its schedule broke dependency cycles)");
	else
		gs_error_append("%s: no GPU has it%s", t->text, side);
}

/* A verdict and the texts it owns (its results' `threshold`). */
struct verdict_box {
	struct gs_gate_verdict v;
	char **texts;
};

void gs_gate_verdict_destroy(struct gs_gate_verdict *v)
{
	struct verdict_box *box = (struct verdict_box *)v; /* v is its first member */

	if (!v)
		return;
	for (size_t i = 0; box->texts && i < v->n; i++)
		free(box->texts[i]);
	free(box->texts);
	free(v->results);
	free(box);
}

gs_status gs_gate_evaluate(const struct gs_gate *g, const struct gs_gate_gpu *gpus, size_t n,
			   struct gs_gate_verdict **out)
{
	struct verdict_box *box;
	struct gs_gate_verdict *v;

	*out = NULL;
	box = calloc(1, sizeof(*box));
	if (!box)
		return gs_nomem();
	v = &box->v;
	v->use = g->use;
	v->results = calloc(g->n ? g->n : 1, sizeof(*v->results));
	box->texts = calloc(g->n ? g->n : 1, sizeof(*box->texts));
	if (!v->results || !box->texts) {
		gs_gate_verdict_destroy(v);
		return gs_nomem();
	}
	for (size_t i = 0; i < g->n; i++) {
		const struct threshold *t = &g->t[i];
		struct gs_gate_result *res = &v->results[i];
		bool upward = t->op == OP_GT || t->op == OP_GE;

		box->texts[i] = strdup(t->text);
		v->n++;
		if (!box->texts[i]) {
			gs_gate_verdict_destroy(v);
			return gs_nomem();
		}
		res->threshold = box->texts[i];
		res->metric = metrics[t->metric].name;
		res->op = op_names[t->op];
		res->use = g->use;
		res->compare = t->compare;
		res->metric_unit = metrics[t->metric].unit;
		res->unit = t->compare == GS_GATE_RELATIVE ? GS_GATE_FRACTION : res->metric_unit;
		res->limit = t->limit;
		for (size_t k = 0; k < n; k++) {
			double x, base, now;
			bool worse;

			if (!gpu_value(g, t, &gpus[k], &x, &base, &now))
				continue;
			worse = !res->gpus || (upward ? x > res->value : x < res->value);
			res->gpus++;
			if (crosses(t->op, x, t->limit))
				res->gpus_crossing++;
			if (!worse)
				continue;
			res->value = x;
			res->base = base;
			res->now = now;
			res->rank = gpus[k].rank[1];
			res->device = gpus[k].device[1];
			res->base_rank = gpus[k].rank[0];
			res->base_device = gpus[k].device[0];
			res->in_job = gpus[k].in_job;
			res->paired = gpus[k].paired;
		}
		if (!res->gpus) {
			none_checked(g, t, n);
			gs_gate_verdict_destroy(v);
			return GS_ERR_INVALID;
		}
		res->crossed = res->gpus_crossing > 0;
		v->crossed += res->crossed;
	}
	*out = v;
	return GS_OK;
}

/* ---- for people --------------------------------------------------------------- */

/* A value of the metric (or a change of it, `change`) for people. */
static const char *metric_text(char *buf, size_t size, const struct gs_gate_result *r, double v,
			       bool change)
{
	const struct metric *m = NULL;

	if (!isfinite(v)) {
		snprintf(buf, size, "n/a");
		return buf;
	}
	for (size_t i = 0; i < M_COUNT && !m; i++)
		if (!strcmp(metrics[i].name, r->metric))
			m = &metrics[i];
	if (r->metric_unit == GS_GATE_NS) {
		int64_t ns = llround(v);
		uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

		return change ? gs_dur_text_in(buf, size, ns, gs_dur_unit(mag), true) :
				gs_dur_text(buf, size, ns);
	}
	if (r->metric_unit == GS_GATE_FRACTION) {
		if (m && m->share)
			snprintf(buf, size, change ? "%+.1f pp" : "%.1f%%", 100.0 * v);
		else
			snprintf(buf, size, change ? "%+.4f" : "%.4f", v);
		return buf;
	}
	if (v == floor(v))
		snprintf(buf, size, change ? "%+.0f" : "%.0f", v);
	else
		snprintf(buf, size, change ? "%+.2f" : "%.2f", v);
	return buf;
}

static const char *gpu_text(char *buf, size_t size, const struct gs_gate_result *r, bool diff)
{
	if (diff && r->paired && r->in_job)
		snprintf(buf, size, "base rank %u GPU %u / new rank %u GPU %u", r->base_rank,
			 r->base_device, r->rank, r->device);
	else if (diff && r->paired)
		snprintf(buf, size, "base GPU %u / new GPU %u", r->base_device, r->device);
	else if (r->in_job)
		snprintf(buf, size, "rank %u GPU %u", r->rank, r->device);
	else
		snprintf(buf, size, "GPU %u", r->device);
	return buf;
}

const char *gs_gate_result_text(const struct gs_gate_result *r, char *buf, size_t size)
{
	char val[64], a[64], b[64], gpu[96], tail[64] = "";
	bool diff = r->use == GS_GATE_DIFF;

	if (r->compare == GS_GATE_RELATIVE && isfinite(r->value))
		snprintf(val, sizeof(val), "%+.1f%%", 100.0 * r->value);
	else if (r->compare == GS_GATE_RELATIVE)
		snprintf(val, sizeof(val), "from 0");
	else
		metric_text(val, sizeof(val), r, r->value, r->compare == GS_GATE_CHANGE);
	if (r->gpus > 1)
		snprintf(tail, sizeof(tail), "; %zu of %zu GPUs cross it", r->gpus_crossing,
			 r->gpus);
	if (diff)
		snprintf(buf, size, "%s: %s on %s (%s -> %s)%s", r->threshold, val,
			 gpu_text(gpu, sizeof(gpu), r, diff),
			 metric_text(a, sizeof(a), r, r->base, false),
			 metric_text(b, sizeof(b), r, r->now, false), tail);
	else
		snprintf(buf, size, "%s: %s on %s%s", r->threshold, val,
			 gpu_text(gpu, sizeof(gpu), r, diff), tail);
	return buf;
}

/* ---- JSON ------------------------------------------------------------------- */

/* A number in `unit` (null when not finite): ns whole, fractions with six
 * decimals, counts whole or with two. */
static void gate_json_num(struct gs_json *w, const char *key, double v, uint8_t unit)
{
	gs_json_key(w, key);
	if (!isfinite(v))
		gs_outbuf_puts(w->o, "null");
	else if (unit == GS_GATE_NS)
		gs_outbuf_printf(w->o, "%lld", (long long)llround(v));
	else if (unit == GS_GATE_FRACTION)
		gs_outbuf_printf(w->o, "%.6f", v);
	else if (v == floor(v) && fabs(v) < 9e15)
		gs_outbuf_printf(w->o, "%lld", (long long)v);
	else
		gs_outbuf_printf(w->o, "%.2f", v);
}

void gs_gate_write_json(struct gs_json *w, const struct gs_gate_verdict *v)
{
	if (!v)
		return;
	gs_json_obj(w, "gate");
	gs_json_bool(w, "passed", v->crossed == 0);
	gs_json_u64(w, "crossed", v->crossed);
	gs_json_arr(w, "thresholds");
	for (size_t i = 0; i < v->n; i++) {
		const struct gs_gate_result *r = &v->results[i];

		gs_json_row(w, NULL);
		gs_json_str(w, "threshold", r->threshold);
		gs_json_str(w, "metric", r->metric);
		gs_json_str(w, "op", r->op);
		gs_json_str(w, "compare", compare_names[r->compare % 3]);
		gs_json_str(w, "unit", unit_names[r->unit % 3]);
		gate_json_num(w, "limit", r->limit, r->unit);
		gs_json_bool(w, "crossed", r->crossed);
		gate_json_num(w, "value", r->value, r->unit);
		if (r->compare == GS_GATE_RELATIVE)
			gs_json_bool(w, "from_zero", !isfinite(r->value));
		gs_json_u64(w, "gpus", r->gpus);
		gs_json_u64(w, "gpus_crossing", r->gpus_crossing);
		gs_json_row(w, "worst");
		if (v->use == GS_GATE_DIFF) {
			gs_json_u64(w, "base_rank", r->base_rank);
			gs_json_u64(w, "base_device", r->base_device);
		}
		gs_json_u64(w, "rank", r->rank);
		gs_json_u64(w, "device", r->device);
		gs_json_str(w, "metric_unit", unit_names[r->metric_unit % 3]);
		if (v->use == GS_GATE_DIFF) {
			gate_json_num(w, "base", r->base, r->metric_unit);
			gate_json_num(w, "new", r->now, r->metric_unit);
		} else {
			gate_json_num(w, "value", r->now, r->metric_unit);
		}
		gs_json_end_obj(w);
		gs_json_end_obj(w);
	}
	gs_json_end_arr(w);
	gs_json_end_obj(w);
}

/* ---- a report --------------------------------------------------------------- */

gs_status gs_report_gate(struct gs_report *r, const struct gs_gate *g)
{
	const struct gs_report *const *rk;
	struct gs_gate_gpu *gpus;
	size_t n_rk, n = 0, cap = 0;
	gs_status st;

	if (!r || !g) {
		gs_error_append("gs_report_gate: no %s", r ? "gate" : "report");
		return GS_ERR_INVALID;
	}
	if (g->use != GS_GATE_REPORT) {
		gs_error_append("gs_report_gate: thresholds parsed for a diff");
		return GS_ERR_INVALID;
	}
	rk = r->job ? (const struct gs_report *const *)r->ranks :
		      (const struct gs_report *const *)&r;
	n_rk = r->job ? r->n_ranks : 1;
	for (size_t i = 0; i < n_rk; i++)
		cap += rk[i]->n_dev;
	gpus = calloc(cap ? cap : 1, sizeof(*gpus));
	if (!gpus)
		return gs_nomem();
	for (size_t i = 0; i < n_rk; i++) {
		int64_t step = rk[i]->window_from_steps ? gs_gate_steps_median(&rk[i]->steps) : -1;

		for (size_t k = 0; k < rk[i]->n_dev; k++) {
			struct gs_gate_gpu *x = &gpus[n++];

			x->d[1] = &rk[i]->dev[k];
			x->f[0] = x->f[1] = 1;
			x->step_ns[0] = -1;
			x->step_ns[1] = step;
			x->rank[1] = rk[i]->rank;
			x->device[1] = rk[i]->dev[k].device;
			x->in_job = rk[i]->in_job;
		}
	}
	gs_gate_verdict_destroy(r->verdict);
	r->verdict = NULL;
	st = gs_gate_evaluate(g, gpus, n, &r->verdict);
	free(gpus);
	if (st != GS_OK)
		gs_error_append("--fail-if");
	return st;
}

const struct gs_gate_verdict *gs_report_verdict(const struct gs_report *r)
{
	return r ? r->verdict : NULL;
}
