/* SPDX-License-Identifier: MIT */
/*
 * gpuscope plan: the text and JSON writers of a plan's input and result
 * (gs_plan_write_text, gs_plan_write_json), and the microseconds they are
 * written in (gs_plan_us).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpuscope/json.h>
#include <gpuscope/outbuf.h>
#include <gpuscope/plan.h>
#include <gpuscope/trace_model.h>

/* The three overlap conditions, in the order they are listed. */
static const struct {
	unsigned bit;
	const char *name;
} plan_conditions[] = {
	{GS_COND_PINNED_MEMORY, "pinned_memory"},
	{GS_COND_INDEPENDENT, "independent"},
	{GS_COND_CONCURRENT_RESOURCES, "concurrent_resources"},
};
#define PLAN_NCONDITIONS (sizeof(plan_conditions) / sizeof(plan_conditions[0]))

static const char *const plan_category_names[4] = {"kernel", "copy", "sync", "idle"};

const char *gs_plan_us(int64_t ns, char buf[GS_PLAN_US_MAX])
{
	uint64_t v = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	unsigned frac = (unsigned)(v % 1000);
	int n;

	n = snprintf(buf, GS_PLAN_US_MAX, "%s%llu", ns < 0 ? "-" : "",
		     (unsigned long long)(v / 1000));
	if (frac && n > 0 && n < GS_PLAN_US_MAX - 5) {
		char f[8];
		size_t len;

		snprintf(f, sizeof(f), ".%03u", frac);
		len = strlen(f);
		while (len > 1 && f[len - 1] == '0') /* frac > 0: never below ".x" */
			f[--len] = '\0';
		memcpy(buf + n, f, len + 1);
	}
	return buf;
}

/* A ratio for people and JSON: 6 significant digits, no trailing zeros. */
static const char *plan_ratio(double x, char buf[GS_PLAN_US_MAX])
{
	if (!isfinite(x) || x == 0)
		x = 0;
	snprintf(buf, GS_PLAN_US_MAX, "%.6g", x);
	return buf;
}
/* ------------------------------------------------------------------------ */
/* Output                                                                    */
/* ------------------------------------------------------------------------ */

/* Text: control characters as escapes ("\x1b"), so that a name never
 * breaks the table or the terminal. */
static void plan_text_name(struct gs_outbuf *o, const char *s, int width)
{
	size_t n = gs_text_cols(s);

	gs_outbuf_text(o, s);
	for (; (int)n < width; n++)
		gs_outbuf_putc(o, ' ');
}

static int plan_width(const char *s, int min, int max)
{
	size_t len = gs_text_cols(s);

	if ((int)len < min)
		return min;
	return len > (size_t)max ? max : (int)len;
}

static void plan_missing_text(struct gs_outbuf *o, unsigned missing)
{
	const char *sep = "";
	size_t c;

	if (!missing) {
		gs_outbuf_puts(o, "none");
		return;
	}
	for (c = 0; c < PLAN_NCONDITIONS; c++) {
		if (missing & plan_conditions[c].bit) {
			gs_outbuf_printf(o, "%s%s", sep, plan_conditions[c].name);
			sep = ", ";
		}
	}
}

gs_status gs_plan_write_text(FILE *f, const struct gs_plan_input *in,
			     const struct gs_plan_result *r, const char *file)
{
	struct gs_outbuf o;
	char b1[GS_PLAN_US_MAX], b2[GS_PLAN_US_MAX], b3[GS_PLAN_US_MAX];
	int wn = 5, ws = 6, wt = 5, we = 3, wd = 8;
	bool *crit = NULL, classified = false;
	size_t i, c;

	gs_outbuf_init(&o, f);
	if (r->n_stages) {
		crit = calloc(r->n_stages, sizeof(*crit));
		if (!crit) {
			gs_outbuf_discard(&o);
			return gs_nomem();
		}
		for (i = 0; i < r->n_critical; i++)
			crit[r->critical_path[i]] = true;
	}
	gs_outbuf_printf(&o, "plan%s%s: %zu stage%s on %zu stream%s; times in us\n",
			 file ? " " : "", file ? file : "", r->n_stages,
			 r->n_stages == 1 ? "" : "s", r->n_streams, r->n_streams == 1 ? "" : "s");
	for (i = 0; i < r->n_stages; i++) {
		const struct gs_plan_stage *s = &in->stages[i];
		int x;

		wn = plan_width(s->name, wn, 40);
		ws = plan_width(s->stream, ws, 24);
		x = (int)strlen(gs_plan_us(r->timing[i].start_ns, b1));
		wt = x > wt ? x : wt;
		x = (int)strlen(gs_plan_us(r->timing[i].end_ns, b1));
		we = x > we ? x : we;
		x = (int)strlen(gs_plan_us(s->duration_ns, b1));
		wd = x > wd ? x : wd;
		if (s->kind != GS_PLAN_KIND_OTHER)
			classified = true;
	}
	if (r->n_stages) {
		gs_outbuf_printf(&o, "\n  %-*s  %-*s  %-7s  %*s  %*s  %*s  %s\n", wn, "stage", ws,
				 "stream", "kind", wt, "start", we, "end", wd, "duration",
				 "started by");
	}
	for (i = 0; i < r->n_stages; i++) {
		const struct gs_plan_stage *s = &in->stages[i];
		const struct gs_plan_timing *t = &r->timing[i];

		gs_outbuf_puts(&o, crit[i] ? "* " : "  ");
		plan_text_name(&o, s->name, wn);
		gs_outbuf_puts(&o, "  ");
		plan_text_name(&o, s->stream, ws);
		gs_outbuf_printf(&o, "  %-7s  %*s  %*s  %*s  ", gs_plan_kind_name(s->kind), wt,
				 gs_plan_us(t->start_ns, b1), we, gs_plan_us(t->end_ns, b2), wd,
				 gs_plan_us(s->duration_ns, b3));
		if (t->bound_by == GS_PLAN_BOUND_NONE) {
			gs_outbuf_puts(&o, "-");
		} else {
			gs_outbuf_puts(&o, gs_plan_bound_name(t->bound_by));
			if (t->after != GS_NO_INDEX) {
				gs_outbuf_putc(&o, ' ');
				plan_text_name(&o, in->stages[t->after].name, 0);
			}
		}
		gs_outbuf_putc(&o, '\n');
	}
	if (r->n_stages)
		gs_outbuf_puts(&o, "(* critical path)\n");

	{
		struct {
			const char *label;
			char value[GS_PLAN_US_MAX];
			bool us;
			const char *what;
		} rows[8];
		size_t nrows = 0, k;
		int wv = 1;

#define PLAN_ROW(l, v, u, w)                                                                       \
	do {                                                                                       \
		rows[nrows].label = (l);                                                           \
		snprintf(rows[nrows].value, GS_PLAN_US_MAX, "%s", (v));                            \
		rows[nrows].us = (u);                                                              \
		rows[nrows++].what = (w);                                                          \
	} while (0)
		PLAN_ROW("serial", gs_plan_us(r->serial_ns, b1), true,
			 "every stage one after another");
		PLAN_ROW("ideal", gs_plan_us(r->ideal_ns, b1), true, "the schedule's makespan");
		PLAN_ROW("saved", gs_plan_us(r->saved_ns, b1), true, "serial - ideal");
		PLAN_ROW("overlap ratio", plan_ratio(r->overlap_ratio, b1), false,
			 "saved / serial");
		PLAN_ROW("speedup", plan_ratio(r->speedup, b1), false, "serial / ideal");
		if (r->has_overhead) {
			PLAN_ROW("overhead", gs_plan_us(r->exposed_overhead_ns, b1), true,
				 "exposed_overhead_us, as given");
			PLAN_ROW("elapsed", gs_plan_us(r->elapsed_ns, b1), true,
				 "ideal + overhead");
			PLAN_ROW("net saved", gs_plan_us(r->net_saved_ns, b1), true,
				 "saved - overhead");
		}
#undef PLAN_ROW
		for (k = 0; k < nrows; k++)
			if ((int)strlen(rows[k].value) > wv)
				wv = (int)strlen(rows[k].value);
		gs_outbuf_putc(&o, '\n');
		for (k = 0; k < nrows; k++)
			gs_outbuf_printf(&o, "  %-13s  %*s %s  %s\n", rows[k].label, wv,
					 rows[k].value, rows[k].us ? "us" : "  ", rows[k].what);
	}

	if (r->n_critical) {
		gs_outbuf_printf(&o, "\ncritical path (%s us): ", gs_plan_us(r->ideal_ns, b1));
		for (i = 0; i < r->n_critical; i++) {
			const struct gs_plan_timing *t = &r->timing[r->critical_path[i]];

			if (i)
				gs_outbuf_puts(
					&o, t->bound_by == GS_PLAN_BOUND_COPY_ENGINE ||
							    t->bound_by ==
								    GS_PLAN_BOUND_EXCLUSIVE_COPY ?
						    " => " :
						    " -> ");
			plan_text_name(&o, in->stages[r->critical_path[i]].name, 0);
		}
		gs_outbuf_putc(&o, '\n');
	}

	gs_outbuf_puts(&o, "\nbreakdown of the schedule (kernel > copy > sync > idle):");
	if (!classified) {
		gs_outbuf_puts(
			&o, " no stage has a kind (compute, h2d, d2h, sync), so it is all idle\n");
	} else {
		for (c = 0; c < 4; c++)
			gs_outbuf_printf(&o, "%s %s %s us", c ? "," : "", plan_category_names[c],
					 gs_plan_us(r->breakdown_ns[c], b1));
		if (r->dominant >= 0)
			gs_outbuf_printf(&o, "; dominant: %s (a lead to check, not a verdict)",
					 plan_category_names[r->dominant]);
		gs_outbuf_putc(&o, '\n');
	}

	gs_outbuf_puts(&o, "\ncopies and the overlap conditions (pinned_memory, independent, "
			   "concurrent_resources):");
	if (!r->n_copies) {
		gs_outbuf_puts(&o, " no h2d/d2h stage\n");
	} else {
		int wc = 4;

		for (i = 0; i < r->n_copies; i++)
			wc = plan_width(in->stages[r->copies[i].stage].name, wc, 40);
		gs_outbuf_printf(&o, "\n  %-*s  %-4s  %-8s  %*s  %*s  %*s  %s\n", wc, "copy",
				 "kind", "memory", wd, "hidden", wd, "exposed", wd, "hideable",
				 "missing");
		for (i = 0; i < r->n_copies; i++) {
			const struct gs_plan_copy *cp = &r->copies[i];
			const struct gs_plan_stage *s = &in->stages[cp->stage];

			gs_outbuf_puts(&o, "  ");
			plan_text_name(&o, s->name, wc);
			gs_outbuf_printf(&o, "  %-4s  %-8s  %*s  %*s  %*s  ",
					 gs_plan_kind_name(s->kind),
					 s->memory == GS_PLAN_MEM_PAGEABLE ? "pageable" : "pinned",
					 wd, gs_plan_us(cp->hidden_ns, b1), wd,
					 gs_plan_us(cp->exposed_ns, b2), wd,
					 gs_plan_us(cp->hideable_ns, b3));
			plan_missing_text(&o, cp->missing);
			gs_outbuf_putc(&o, '\n');
		}
		gs_outbuf_puts(&o, "missing overlap conditions: ");
		plan_missing_text(&o, r->missing);
		gs_outbuf_putc(&o, '\n');
	}
	free(crit);
	return gs_outbuf_finish(&o);
}

static void plan_json_missing(struct gs_json *w, const char *key, unsigned missing)
{
	gs_json_arr_inline(w, key);
	for (size_t c = 0; c < PLAN_NCONDITIONS; c++)
		if (missing & plan_conditions[c].bit)
			gs_json_str(w, NULL, plan_conditions[c].name);
	gs_json_end_arr(w);
}

static void plan_json_engines(struct gs_json *w, const struct gs_plan_input *in)
{
	if (in->engine_mode == GS_PLAN_ENGINES_SHARED) {
		gs_json_u64(w, "copy_engines", in->engines_shared);
	} else if (in->engine_mode == GS_PLAN_ENGINES_PER_DIRECTION) {
		gs_json_row(w, "copy_engines");
		if (in->engines_h2d == GS_PLAN_UNLIMITED)
			gs_json_null(w, "h2d");
		else
			gs_json_u64(w, "h2d", in->engines_h2d);
		if (in->engines_d2h == GS_PLAN_UNLIMITED)
			gs_json_null(w, "d2h");
		else
			gs_json_u64(w, "d2h", in->engines_d2h);
		gs_json_end_obj(w);
	} else {
		gs_json_null(w, "copy_engines");
	}
}

gs_status gs_plan_write_json(FILE *f, const struct gs_plan_input *in,
			     const struct gs_plan_result *r, const char *file)
{
	struct gs_outbuf o;
	struct gs_json w;
	char b[GS_PLAN_US_MAX];
	size_t i, c;

	gs_outbuf_init(&o, f);
	gs_json_init(&w, &o, GS_JSON_ESCAPE_DEL);
	gs_json_obj(&w, NULL);
	gs_json_str(&w, "schema", "gpuscope.plan/1");
	if (file)
		gs_json_str(&w, "file", file);
	gs_json_raw(&w, "serial_us", gs_plan_us(r->serial_ns, b));
	gs_json_raw(&w, "ideal_us", gs_plan_us(r->ideal_ns, b));
	gs_json_raw(&w, "saved_us", gs_plan_us(r->saved_ns, b));
	gs_json_raw(&w, "overlap_ratio", plan_ratio(r->overlap_ratio, b));
	gs_json_raw(&w, "speedup", plan_ratio(r->speedup, b));
	if (r->has_overhead) {
		gs_json_raw(&w, "exposed_overhead_us", gs_plan_us(r->exposed_overhead_ns, b));
		gs_json_raw(&w, "estimated_elapsed_us", gs_plan_us(r->elapsed_ns, b));
		gs_json_raw(&w, "net_saved_us", gs_plan_us(r->net_saved_ns, b));
	}
	plan_json_engines(&w, in);
	gs_json_u64(&w, "streams", r->n_streams);

	gs_json_arr(&w, "stages");
	for (i = 0; i < r->n_stages; i++) {
		const struct gs_plan_stage *s = &in->stages[i];
		const struct gs_plan_timing *t = &r->timing[i];

		gs_json_row(&w, NULL);
		gs_json_str(&w, "name", s->name);
		gs_json_str(&w, "stream", s->stream);
		gs_json_str(&w, "kind", gs_plan_kind_name(s->kind));
		gs_json_raw(&w, "duration_us", gs_plan_us(s->duration_ns, b));
		gs_json_raw(&w, "start_us", gs_plan_us(t->start_ns, b));
		gs_json_raw(&w, "end_us", gs_plan_us(t->end_ns, b));
		gs_json_str(&w, "bound_by", gs_plan_bound_name(t->bound_by));
		if (t->after == GS_NO_INDEX)
			gs_json_null(&w, "after");
		else
			gs_json_str(&w, "after", in->stages[t->after].name);
		gs_json_end_obj(&w);
	}
	gs_json_end_arr(&w);

	gs_json_arr_inline(&w, "critical_path");
	for (i = 0; i < r->n_critical; i++)
		gs_json_str(&w, NULL, in->stages[r->critical_path[i]].name);
	gs_json_end_arr(&w);

	gs_json_arr(&w, "edges");
	for (i = 0; i < r->n_edges; i++) {
		const struct gs_plan_edge *e = &r->edges[i];

		gs_json_row(&w, NULL);
		gs_json_str(&w, "from", in->stages[e->from].name);
		gs_json_str(&w, "to", in->stages[e->to].name);
		gs_json_str(&w, "kind", gs_plan_edge_kind_name(e->kind));
		gs_json_end_obj(&w);
	}
	gs_json_end_arr(&w);

	gs_json_row(&w, "breakdown");
	for (c = 0; c < 4; c++) {
		char key[32];

		snprintf(key, sizeof(key), "%s_us", plan_category_names[c]);
		gs_json_raw(&w, key, gs_plan_us(r->breakdown_ns[c], b));
	}
	gs_json_raw(&w, "total_us", gs_plan_us(r->ideal_ns, b));
	gs_json_row(&w, "fractions");
	for (c = 0; c < 4; c++)
		gs_json_raw(&w, plan_category_names[c],
			    plan_ratio(r->ideal_ns ?
					       (double)r->breakdown_ns[c] / (double)r->ideal_ns :
					       0.0,
				       b));
	gs_json_end_obj(&w);
	if (r->dominant >= 0)
		gs_json_str(&w, "dominant", plan_category_names[r->dominant]);
	else
		gs_json_null(&w, "dominant");
	gs_json_end_obj(&w);

	gs_json_arr(&w, "copies");
	for (i = 0; i < r->n_copies; i++) {
		const struct gs_plan_copy *cp = &r->copies[i];
		const struct gs_plan_stage *s = &in->stages[cp->stage];

		gs_json_row(&w, NULL);
		gs_json_str(&w, "name", s->name);
		gs_json_str(&w, "kind", gs_plan_kind_name(s->kind));
		gs_json_str(&w, "memory",
			    s->memory == GS_PLAN_MEM_PAGEABLE ? "pageable" : "pinned");
		gs_json_raw(&w, "hidden_us", gs_plan_us(cp->hidden_ns, b));
		gs_json_raw(&w, "exposed_us", gs_plan_us(cp->exposed_ns, b));
		gs_json_raw(&w, "hideable_us", gs_plan_us(cp->hideable_ns, b));
		plan_json_missing(&w, "missing_conditions", cp->missing);
		gs_json_end_obj(&w);
	}
	gs_json_end_arr(&w);
	plan_json_missing(&w, "missing_conditions", r->missing);
	gs_json_end_obj(&w);
	gs_outbuf_putc(&o, '\n');
	return gs_outbuf_finish(&o);
}
