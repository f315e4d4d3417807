/* SPDX-License-Identifier: MIT */
/*
 * The job analysis in the text report (gs_job_analysis_write_text).
 */
#include "job_view.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gpuscope/names.h>
#include <gpuscope/outbuf.h>

#include <gpuscope/text.h>

#define TEXT_WIDTH 100

struct job_text_writer {
	struct gs_outbuf *o;
	bool color;
	size_t top; /* rows in the ranked tables */
};

static void job_text_bold(struct job_text_writer *w, bool on)
{
	if (w->color)
		gs_outbuf_puts(w->o, on ? "\033[1m" : "\033[0m");
}

static void job_text_spaces(struct job_text_writer *w, size_t n)
{
	while (n--)
		gs_outbuf_putc(w->o, ' ');
}

/* `s` in a column of `cols`, left- or right-aligned. */
static void job_text_cell(struct job_text_writer *w, const char *s, size_t cols, bool right)
{
	char buf[4 * TEXT_WIDTH + 8];
	size_t used = gs_report_text_fit(buf, sizeof(buf), s, cols);

	if (right)
		job_text_spaces(w, cols - used);
	gs_outbuf_puts(w->o, buf);
	if (!right)
		job_text_spaces(w, cols - used);
}

static void job_text_section(struct job_text_writer *w, const char *title)
{
	char buf[4 * TEXT_WIDTH + 8];

	gs_report_text_fit(buf, sizeof(buf), title, TEXT_WIDTH - 2);
	gs_outbuf_puts(w->o, "\n  ");
	job_text_bold(w, true);
	gs_outbuf_puts(w->o, buf);
	job_text_bold(w, false);
	gs_outbuf_putc(w->o, '\n');
}

static void job_text_rule(struct job_text_writer *w, const char *title)
{
	char buf[4 * TEXT_WIDTH + 8];
	size_t used;

	job_text_bold(w, true);
	gs_outbuf_puts(w->o, "\n━━ ");
	used = 4 + gs_report_text_fit(buf, sizeof(buf), title, TEXT_WIDTH - 4);
	gs_outbuf_puts(w->o, buf);
	gs_outbuf_putc(w->o, ' ');
	while (used++ < TEXT_WIDTH)
		gs_outbuf_puts(w->o, "━");
	job_text_bold(w, false);
	gs_outbuf_putc(w->o, '\n');
}

/* A finding's sentence with its durations written out (gs_outbuf_sentence);
 * takes `marked` (NULL when out of memory). */
static char *words(struct gs_outbuf *o, char *marked)
{
	char *s = gs_outbuf_sentence(o, marked, false);

	free(marked);
	return s;
}

static void text_findings(struct job_text_writer *w, const struct gs_job_analysis *ja)
{
	job_text_section(w, "Job findings");
	if (!ja->n_findings) {
		gs_outbuf_puts(w->o,
			       "    nothing stands out across the ranks: no straggler, waits or "
			       "exposed communication\n    above 0.5% of a window\n");
		return;
	}
	for (size_t i = 0; i < ja->n_findings; i++) {
		char num[32];
		char *text = words(w->o, job_finding_text(ja, &ja->findings[i]));
		char *advice = words(w->o, job_finding_advice(ja, &ja->findings[i]));

		if (!text || !advice) {
			free(text);
			free(advice);
			return;
		}
		snprintf(num, sizeof(num), "  %2zu. ", i + 1);
		job_text_bold(w, true);
		gs_outbuf_puts(w->o, num);
		job_text_bold(w, false);
		gs_report_text_wrap(w->o, "", strlen(num), text, 6);
		gs_report_text_wrap(w->o, "      -> ", 9, advice, 9);
		free(text);
		free(advice);
	}
}

static void text_rank_head(struct job_text_writer *w)
{
	gs_outbuf_puts(w->o, "    ");
	job_text_cell(w, "rank", 6, false);
	job_text_cell(w, "host", 10, false);
	job_text_cell(w, "GPU", 3, true);
	job_text_cell(w, "window", 11, true);
	job_text_cell(w, "kernel", 7, true);
	job_text_cell(w, "copy", 7, true);
	job_text_cell(w, "sync", 7, true);
	job_text_cell(w, "idle", 7, true);
	job_text_cell(w, "eff", 6, true);
	job_text_cell(w, "comm", 11, true);
	job_text_cell(w, "exposed", 11, true);
	job_text_cell(w, "overlap", 8, true);
	gs_outbuf_putc(w->o, '\n');
}

static void text_rank_row(struct job_text_writer *w, const struct gs_job_gpu *g)
{
	const struct gs_js_gpu *d = g->d;
	char rank[16], dev[16], eff[32];

	snprintf(rank, sizeof(rank), "%u", g->r->rank);
	snprintf(dev, sizeof(dev), "%u", d->device);
	gs_outbuf_puts(w->o, "    ");
	job_text_cell(w, rank, 6, false);
	job_text_cell(w, *gs_js_str(g->r, g->r->host) ? gs_js_str(g->r, g->r->host) : "-", 10,
		      false);
	job_text_cell(w, dev, 3, true);
	LINE_UNIT(d->window_ns, d->comm_kernels ? d->comm_ns : 0,
		  d->comm_kernels ? d->comm_exposed_ns : 0);
	job_text_cell(w, DUR(d->window_ns), 11, true);
	job_text_cell(w, PCT(d->total_ns[GS_CAT_KERNEL], d->window_ns), 7, true);
	job_text_cell(w, PCT(d->total_ns[GS_CAT_COPY], d->window_ns), 7, true);
	job_text_cell(w, PCT(d->total_ns[GS_CAT_SYNC], d->window_ns), 7, true);
	job_text_cell(w, PCT(d->total_ns[GS_CAT_IDLE], d->window_ns), 7, true);
	job_text_cell(w, job_eff_text(d, eff, sizeof(eff)), 6, true);
	job_text_cell(w, d->comm_kernels ? DUR(d->comm_ns) : "-", 11, true);
	job_text_cell(w, d->comm_kernels ? DUR(d->comm_exposed_ns) : "-", 11, true);
	job_text_cell(w, isfinite(g->overlap) ? FRAC(g->overlap) : "-", 8, true);
	job_line_unit = 0;
	gs_outbuf_putc(w->o, '\n');
}

/* A row of the rank table with each column's min (k 0), median (1) or
 * max (2) over the GPUs. */
static void text_stat_row(struct job_text_writer *w, const struct gs_job_analysis *ja, int k)
{
	static const char *const label[3] = {"min", "median", "max"};
	static const struct {
		enum gs_job_metric m;
		size_t cols;
	} col[] = {
		{GS_JOB_METRIC_WINDOW, 11}, {GS_JOB_METRIC_KERNEL, 7},   {GS_JOB_METRIC_COPY, 7},
		{GS_JOB_METRIC_SYNC, 7},    {GS_JOB_METRIC_IDLE, 7},     {GS_JOB_METRIC_EFF, 6},
		{GS_JOB_METRIC_COMM, 11},   {GS_JOB_METRIC_EXPOSED, 11}, {GS_JOB_METRIC_OVERLAP, 8},
	};
	char buf[48];

	gs_outbuf_puts(w->o, "    ");
	job_text_cell(w, label[k], 19, false);
	LINE_UNIT(ja->stat[GS_JOB_METRIC_WINDOW].count ?
			  (int64_t)ja->stat[GS_JOB_METRIC_WINDOW].v[k] :
			  0,
		  ja->stat[GS_JOB_METRIC_COMM].count ? (int64_t)ja->stat[GS_JOB_METRIC_COMM].v[k] :
						       0,
		  ja->stat[GS_JOB_METRIC_EXPOSED].count ?
			  (int64_t)ja->stat[GS_JOB_METRIC_EXPOSED].v[k] :
			  0);
	for (size_t c = 0; c < sizeof(col) / sizeof(col[0]); c++) {
		const struct gs_job_stat *s = &ja->stat[col[c].m];

		job_text_cell(w,
			      s->count ? job_metric_text(buf, sizeof(buf), col[c].m, s->v[k]) : "-",
			      col[c].cols, true);
	}
	job_line_unit = 0;
	gs_outbuf_putc(w->o, '\n');
}

/* "rank 3" ("rank 3 GPU 1" when the rank has several), with why. */
static void outlier_name(char *buf, size_t size, const struct gs_job_gpu *g, unsigned by)
{
	char who[64];

	job_gpu_name(who, sizeof(who), g);
	snprintf(buf, size, "%s (%s)", who, job_outlier_word(by));
}

/* "rank 37 (straggler), rank 5 GPU 1 (idle share)": the outliers shown,
 * in the order of choice; NULL when out of memory. */
static char *outlier_list(const struct gs_job_analysis *ja, const struct job_view *v)
{
	size_t cap = v->n_shown * 112 + 1, len = 0;
	char *text = malloc(cap), line[96];

	if (!text)
		return NULL;
	text[0] = '\0';
	for (size_t i = 0; i < v->n_shown; i++) {
		outlier_name(line, sizeof(line), &ja->gpus[v->outs[i].gpu], v->outs[i].by);
		len += (size_t)snprintf(text + len, cap - len, "%s%s", i ? ", " : "", line);
	}
	return text;
}

static void text_ranks(struct job_text_writer *w, const struct gs_job_analysis *ja,
		       const struct job_view *v)
{
	char title[160], line[160];
	struct gs_outbuf *o = w->o;

	if (v->all) {
		job_text_section(w, "Ranks");
		text_rank_head(w);
		for (size_t i = 0; i < ja->n_gpus; i++)
			text_rank_row(w, &ja->gpus[i]);
		return;
	}
	snprintf(title, sizeof(title),
		 "Ranks: each column's min, median and max over the %zu GPUs, then the "
		 "outliers (%zu)",
		 ja->n_gpus, v->n_shown);
	job_text_section(w, title);
	text_rank_head(w);
	for (int k = 0; k < 3; k++)
		text_stat_row(w, ja, k);
	for (size_t i = 0; i < ja->n_gpus; i++)
		if (v->why[i] != UINT_MAX)
			text_rank_row(w, &ja->gpus[i]);
	if (v->n_shown) {
		char *text = outlier_list(ja, v);

		if (!text) {
			gs_outbuf_fail(o, ENOMEM, NULL);
			return;
		}
		gs_report_text_wrap(o, "    outliers: ", 14, text, 14);
		free(text);
	}
	if (v->n_outs > v->n_shown)
		snprintf(line, sizeof(line), "%zu more outlier%s", v->n_outs - v->n_shown,
			 v->n_outs - v->n_shown == 1 ? "" : "s");
	else
		snprintf(line, sizeof(line), "no %soutlier", v->n_shown ? "other " : "");
	gs_outbuf_printf(o,
			 "    %zu of %zu GPUs not listed (%s among them): --ranks all lists every "
			 "one,\n    --rank R shows one rank\n",
			 ja->n_gpus - v->n_shown, ja->n_gpus, line);
}

static void text_summary(struct job_text_writer *w, const struct gs_job_analysis *ja)
{
	char title[128];

	snprintf(title, sizeof(title),
		 "Across the %zu GPUs (the median of an even count is the "
		 "lower middle)",
		 ja->n_gpus);
	job_text_section(w, title);
	gs_outbuf_puts(w->o, "    ");
	job_text_cell(w, "", 14, false);
	job_text_cell(w, "min", 26, false);
	job_text_cell(w, "median", 26, false);
	gs_outbuf_puts(w->o, "max\n");
	for (unsigned m = 0; m < GS_JOB_METRIC_COUNT; m++) {
		const struct gs_job_stat *s = &ja->stat[m];
		char buf[96];

		gs_outbuf_puts(w->o, "    ");
		job_text_cell(w, job_metric_info[m].label, 14, false);
		if (!s->count) {
			gs_outbuf_puts(w->o, "-\n");
			continue;
		}
		if (job_metric_info[m].ns)
			LINE_UNIT((int64_t)s->v[0], (int64_t)s->v[1], (int64_t)s->v[2]);
		for (int k = 0; k < 3; k++) {
			job_stat_cell(buf, sizeof(buf), ja, s, (enum gs_job_metric)m, k);
			if (k < 2)
				job_text_cell(w, buf, 26, false);
			else
				gs_outbuf_puts(w->o, buf);
		}
		job_line_unit = 0;
		gs_outbuf_putc(w->o, '\n');
	}
}

/* The short name of how a communicator was matched, for the text table. */
static const char *by_short(uint8_t by)
{
	static const char *const n[] = {"-", "seq", "group", "order", "p2p"};

	return by < sizeof(n) / sizeof(n[0]) ? n[by] : "-";
}

static void text_collectives(struct job_text_writer *w, const struct gs_job_analysis *ja,
			     const struct job_view *v)
{
	char title[160];
	size_t comms = 0, i, shown, within = 0, lw = 12, n_comms;

	/* The communicator column as wide as its longest name, 22 at most. */
	for (i = 0; i < ja->n_comms; i++) {
		size_t l = gs_text_cols(ja->comms[i].label) + 1;

		comms += ja->comms[i].matched > 0;
		within += ja->comms[i].within_error;
		lw = l > lw ? (l > 22 ? 22 : l) : lw;
	}
	if (!ja->n_comms) {
		job_text_section(w, "Collectives");
		gs_outbuf_puts(w->o, "    no communication kernels (NCCL / RCCL) in the ranks' "
				     "windows\n");
		return;
	}
	snprintf(title, sizeof(title), "Collectives: %zu compared in %zu communicator%s",
		 ja->n_by_skew, comms, comms == 1 ? "" : "s");
	job_text_section(w, title);
	gs_outbuf_puts(w->o, "    ");
	job_text_cell(w, "communicator", lw, false);
	job_text_cell(w, "ranks", 5, true);
	job_text_cell(w, "count", 7, true);
	job_text_cell(w, "by", 6, true);
	job_text_cell(w, "mean skew", 11, true);
	job_text_cell(w, "max skew", 11, true);
	job_text_cell(w, "waited", 11, true);
	job_text_cell(w, "transfer", 11, true);
	job_text_cell(w, "busbw", 12, true);
	gs_outbuf_putc(w->o, '\n');
	/* Many GPUs: as many communicators as rank rows (a communicator a
	 * stream can make one a rank). */
	n_comms = v->all || ja->n_comms <= v->limit ? ja->n_comms : v->limit;
	for (i = 0; i < n_comms; i++) {
		const struct gs_job_comm *c = &ja->comms[i];
		char n[32], k[32];
		int64_t m = c->matched ? (int64_t)c->matched : 1;

		snprintf(n, sizeof(n), "%zu", c->n_m);
		snprintf(k, sizeof(k), "%zu", c->matched);
		gs_outbuf_puts(w->o, "    ");
		job_text_cell(w, c->label, lw, false);
		job_text_cell(w, n, 5, true);
		job_text_cell(w, k, 7, true);
		job_text_cell(w, by_short(c->matched_by), 6, true);
		if (!c->matched) {
			gs_outbuf_puts(w->o, c->n_m < 2 ? "   not compared: one rank\n" :
							  "   not compared\n");
			continue;
		}
		/* One unit for the per-collective times; the waits summed over
		 * every rank and collective (a thousand ranks: a thousand times a
		 * skew) in their own. */
		LINE_UNIT(c->skew_sum / m, c->skew_max, c->transfer_sum / m);
		job_text_cell(w, DUR(c->skew_sum / m), 11, true);
		job_text_cell(w, DUR(c->skew_max), 11, true);
		job_line_unit = 0;
		job_text_cell(w, DUR(c->wait_sum), 11, true);
		LINE_UNIT(c->skew_sum / m, c->skew_max, c->transfer_sum / m);
		job_text_cell(w, DUR(c->transfer_sum / m), 11, true);
		job_line_unit = 0;
		job_text_cell(w, c->busbw_n ? BW(c->busbw_sum / (double)c->busbw_n) : "-", 12,
			      true);
		gs_outbuf_putc(w->o, '\n');
	}
	if (n_comms < ja->n_comms)
		gs_outbuf_printf(
			w->o,
			"    ... %zu more communicators (--ranks all, or --format json for "
			"all)\n",
			ja->n_comms - n_comms);
	gs_outbuf_puts(
		w->o,
		"    by: seq (the group's sequence numbers), group / order (a group's, or one "
		"kind's, kernels\n    in order, aligned on their ends), p2p (peer kernels "
		"that end together); never by\n    stream id. skew: last arrival - first; "
		"waited: the ranks' waits summed; transfer: kernel\n    end after the last "
		"arrival (least over the ranks); busbw: mean of the known sizes\n");
	if (within)
		gs_outbuf_printf(
			w->o,
			"    %zu collective%s with a skew within the clocks' error (~): no "
			"one waited for certain\n",
			within, within == 1 ? "" : "s");
	if (ja->n_clock_groups > 1)
		gs_outbuf_puts(w->o,
			       "    ranks on different clocks (clock groups) are never compared: "
			       "each group is matched on its own\n");
	if (!ja->n_by_skew)
		return;

	shown = ja->n_by_skew < w->top ? ja->n_by_skew : w->top;
	snprintf(title, sizeof(title), "Collectives by skew (%zu of %zu)", shown, ja->n_by_skew);
	job_text_section(w, title);
	gs_outbuf_puts(w->o, "    ");
	job_text_cell(w, "#", 4, true);
	gs_outbuf_puts(w->o, "  ");
	job_text_cell(w, "communicator", lw > 20 ? 20 : lw, false);
	job_text_cell(w, "index", 6, true);
	gs_outbuf_puts(w->o, "  ");
	job_text_cell(w, "name", 20, false);
	job_text_cell(w, "skew", 11, true);
	job_text_cell(w, "last", 6, true);
	job_text_cell(w, "transfer", 11, true);
	job_text_cell(w, "busbw", 12, true);
	gs_outbuf_putc(w->o, '\n');
	for (i = 0; i < shown; i++) {
		const struct gs_job_coll *x = &ja->coll[ja->by_skew[i]];
		const struct gs_job_comm *c = &ja->comms[x->comm];
		char num[32], idx[32], last[32];

		snprintf(num, sizeof(num), "%zu", i + 1);
		snprintf(idx, sizeof(idx), "%u", x->index);
		if (x->state == GS_JOB_WITHIN_ERROR)
			snprintf(last, sizeof(last), "~");
		else if (x->skew > 0)
			snprintf(last, sizeof(last), "%u",
				 gs_job_rank(ja, c->m[x->last_m].ri)->rank);
		else
			snprintf(last, sizeof(last), "-");
		gs_outbuf_puts(w->o, "    ");
		job_text_cell(w, num, 4, true);
		gs_outbuf_puts(w->o, "  ");
		job_text_cell(w, c->label, lw > 20 ? 20 : lw, false);
		job_text_cell(w, idx, 6, true);
		gs_outbuf_puts(w->o, "  ");
		job_text_cell(w, x->name, 20, false);
		LINE_UNIT(x->skew, x->transfer);
		job_text_cell(w, DUR(x->skew), 11, true);
		job_text_cell(w, last, 6, true);
		job_text_cell(w, DUR(x->transfer), 11, true);
		job_line_unit = 0;
		job_text_cell(w, BW(x->busbw), 12, true);
		gs_outbuf_putc(w->o, '\n');
	}
	if (shown < ja->n_by_skew)
		gs_outbuf_printf(w->o,
				 "    ... %zu more (--top N, or --format json for the %d "
				 "largest)\n",
				 ja->n_by_skew - shown, JSON_COLLECTIVES);
}

/* "+1.234 ms" / "-20.000 us" / "0". */
static const char *signed_dur(char *buf, size_t size, int64_t ns)
{
	char d[40];

	if (!ns) {
		snprintf(buf, size, "0");
		return buf;
	}
	gs_dur_text(d, sizeof(d), ns < 0 ? -ns : ns);
	snprintf(buf, size, "%c%s", ns < 0 ? '-' : '+', d);
	return buf;
}

/* The ranks of a clock domain, one by one (gs_text_runs). */
struct dom_iter {
	const struct gs_job_analysis *ja;
	size_t d, i;
};

static bool dom_next(void *ctx, uint32_t *v)
{
	struct dom_iter *it = ctx;

	while (it->i < it->ja->n_sums && it->ja->rank_dom[it->i] != it->d)
		it->i++;
	if (it->i >= it->ja->n_sums)
		return false;
	*v = gs_job_rank(it->ja, it->i++)->rank;
	return true;
}

/* "0-7", the ranks of domain d (three runs at most). */
static void dom_ranks(char *buf, size_t size, const struct gs_job_analysis *ja, size_t d)
{
	struct dom_iter it = {ja, d, 0};

	gs_text_runs(buf, size, dom_next, &it, 3, false);
}

/* One row of the Clocks table: domain d. */
static void text_clock_row(struct job_text_writer *w, const struct gs_job_analysis *ja, size_t d)
{
	const struct gs_job_domain *x = &ja->dom[d];
	char g[16], ranks[64], off[48], res[48], how[96];

	snprintf(g, sizeof(g), "%u", x->group);
	dom_ranks(ranks, sizeof(ranks), ja, d);
	signed_dur(off, sizeof(off), x->offset);
	switch (x->state) {
	case GS_JOB_DOM_REFERENCE:
		snprintf(res, sizeof(res), "-");
		snprintf(how, sizeof(how), "reference");
		break;
	case GS_JOB_DOM_FITTED:
		gs_dur_text(res, sizeof(res), x->residual);
		snprintf(how, sizeof(how), "%zu collectives, against rank %u%s", x->evidence,
			 gs_job_rank(ja, ja->dom[x->via].first_ri)->rank,
			 x->outliers ? " (outliers set aside)" : "");
		break;
	case GS_JOB_DOM_NO_EVIDENCE:
		snprintf(res, sizeof(res), "unknown");
		snprintf(how, sizeof(how), "no collective ends with another host's");
		break;
	default:
		snprintf(res, sizeof(res), "-");
		snprintf(how, sizeof(how), "raw clock (--align none)");
		break;
	}
	gs_outbuf_puts(w->o, "    ");
	job_text_cell(w, g, 6, false);
	job_text_cell(w, *x->host ? x->host : "?", 16, false);
	job_text_cell(w, ranks, 14, false);
	job_text_cell(w, off, 13, true);
	job_text_cell(w, res, 11, true);
	gs_outbuf_puts(w->o, "  ");
	gs_outbuf_puts(w->o, how);
	gs_outbuf_putc(w->o, '\n');
}

#define CLOCK_ROWS 8 /* hosts listed one by one; more: a summary and the extremes */

/* The clocks: how the ranks' times were put on one clock per group. */
static void text_clocks(struct job_text_writer *w, const struct gs_job_analysis *ja,
			const struct job_view *v)
{
	size_t fitted = 0, unknown = 0, big_off = SIZE_MAX, big_res = SIZE_MAX;

	/* Nothing is compared across ranks without communication: with
	 * several hosts, say that their clocks stay as the traces give them. */
	if (!ja->n_comms) {
		if (ja->n_dom > 1) {
			job_text_section(w, "Clocks");
			gs_outbuf_printf(
				w->o,
				"    %zu clocks (hosts or inputs) and no collective to align them "
				"on: each trace's\n    times as it maps them to UTC; nothing is "
				"compared across ranks\n",
				ja->n_dom);
		}
		return;
	}
	for (size_t d = 0; d < ja->n_dom; d++) {
		const struct gs_job_domain *x = &ja->dom[d];
		int64_t a = x->offset < 0 ? -x->offset : x->offset;

		fitted += x->state == GS_JOB_DOM_FITTED;
		unknown += x->state == GS_JOB_DOM_NO_EVIDENCE;
		if (x->state != GS_JOB_DOM_FITTED)
			continue;
		if (big_off == SIZE_MAX ||
		    a > (ja->dom[big_off].offset < 0 ? -ja->dom[big_off].offset :
						       ja->dom[big_off].offset))
			big_off = d;
		if (big_res == SIZE_MAX || x->residual > ja->dom[big_res].residual)
			big_res = d;
	}
	if (ja->n_dom == 1) {
		const struct gs_job_domain *x = &ja->dom[0];

		job_text_section(w, "Clocks");
		gs_outbuf_puts(w->o, "    one clock: every rank ");
		if (*x->host) {
			gs_outbuf_puts(w->o, "on host ");
			gs_outbuf_text(w->o, x->host);
		} else {
			gs_outbuf_puts(w->o, "of one input");
		}
		gs_outbuf_printf(w->o, "; its wall clock: %s\n", gs_clock_source_text(x->clock));
		return;
	}
	job_text_section(w, fitted ? "Clocks: hosts aligned on the ends of collectives" : "Clocks");
	gs_outbuf_puts(w->o, "    ");
	job_text_cell(w, "group", 6, false);
	job_text_cell(w, "host", 16, false);
	job_text_cell(w, "ranks", 14, false);
	job_text_cell(w, "offset", 13, true);
	job_text_cell(w, "residual", 11, true);
	gs_outbuf_puts(w->o, "  how\n");
	if (v->all || ja->n_dom <= CLOCK_ROWS) {
		for (size_t d = 0; d < ja->n_dom; d++)
			text_clock_row(w, ja, d);
	} else {
		/* Many hosts: the reference, the largest offset and residual,
		 * and how many are left out. */
		size_t shown = 1;

		text_clock_row(w, ja, 0);
		if (big_off != SIZE_MAX && big_off != 0) {
			text_clock_row(w, ja, big_off);
			shown++;
		}
		if (big_res != SIZE_MAX && big_res != 0 && big_res != big_off) {
			text_clock_row(w, ja, big_res);
			shown++;
		}
		gs_outbuf_printf(
			w->o,
			"    ... %zu more hosts (%zu fitted, %zu with no collective to align "
			"on): --ranks all or\n    --format json for every one; above, the "
			"largest offset and residual\n",
			ja->n_dom - shown, fitted, unknown);
	}
	gs_outbuf_puts(
		w->o,
		"    each trace's times first go to UTC by what it says of its clock; offset: "
		"then added to\n    a host's ranks so that the ends of its all-reduces, "
		"all-gathers and reduce-scatters meet\n    the reference's (the median "
		"difference); residual: the spread left, outliers set aside;\n    a skew "
		"within the clocks' residuals is clock error, never a straggler\n");
}

#define STEP_ROWS 64 /* steps in the text report's table */

/* The steps matched across ranks by number. */
static void text_steps(struct job_text_writer *w, const struct gs_job_analysis *ja)
{
	int64_t err = 0;
	size_t unknown = 0;

	if (!ja->n_steps)
		return;
	job_text_section(
		w, "Steps across ranks (by number; * analysed on every rank; ! max over 1.2x the "
		   "median; p partial)");
	gs_outbuf_puts(w->o, "       ");
	job_text_cell(w, "step", 5, true);
	job_text_cell(w, "ranks", 6, true);
	job_text_cell(w, "min", 12, true);
	job_text_cell(w, "median", 12, true);
	job_text_cell(w, "max", 12, true);
	job_text_cell(w, "rank", 5, true);
	job_text_cell(w, "job span", 12, true);
	gs_outbuf_puts(w->o, "  ");
	job_text_cell(w, "last to end", 13, false);
	gs_outbuf_puts(w->o, "slowest's gap\n");
	for (size_t i = 0; i < ja->n_steps; i++) {
		const struct gs_job_step *x = &ja->steps[i];
		char num[32], ranks[32], rank[16], last[48], cause[4 * TEXT_WIDTH];

		if (!x->span_known)
			unknown++;
		else if (x->span_err > err)
			err = x->span_err;
		if (i >= STEP_ROWS)
			continue;
		snprintf(num, sizeof(num), "%llu", (unsigned long long)x->number);
		snprintf(ranks, sizeof(ranks), "%zu", x->ranks);
		snprintf(rank, sizeof(rank), "%u", gs_job_rank(ja, x->ri[2])->rank);
		LINE_UNIT(x->v[0], x->v[1], x->v[2], x->span_known ? x->span_ns : 0);
		gs_outbuf_printf(w->o, "    %c%c%c", x->analysed ? '*' : ' ', x->slow ? '!' : ' ',
				 x->partial ? 'p' : ' ');
		job_text_cell(w, num, 5, true);
		job_text_cell(w, ranks, 6, true);
		for (int k = 0; k < 3; k++)
			job_text_cell(w, DUR(x->v[k]), 12, true);
		job_text_cell(w, x->ranks > 1 ? rank : "", 5, true);
		job_text_cell(w, x->span_known ? DUR(x->span_ns) : "unknown", 12, true);
		job_line_unit = 0;
		if (!x->span_known || x->ranks < 2)
			snprintf(last, sizeof(last), "-");
		else if (x->last_ns == 0)
			snprintf(last, sizeof(last), "together");
		else
			snprintf(last, sizeof(last), "%u +%s", gs_job_rank(ja, x->last_ri)->rank,
				 DUR(x->last_ns));
		gs_outbuf_puts(w->o, "  ");
		job_text_cell(w, last, 13, false);
		gs_report_text_fit(cause, sizeof(cause),
				   x->cause < GS_GAP_CAUSE_COUNT ? gs_gap_cause_name(x->cause) :
								   "-",
				   TEXT_WIDTH - 86);
		gs_outbuf_printf(w->o, "%s\n", cause);
	}
	if (ja->n_steps > STEP_ROWS)
		gs_outbuf_printf(w->o, "    ... %zu more steps (--format json for every one)\n",
				 ja->n_steps - STEP_ROWS);
	if (ja->step_ranks < ja->n_sums)
		gs_outbuf_printf(w->o,
				 "    %zu of %zu ranks have no steps (no step markers in their "
				 "traces)\n",
				 ja->n_sums - ja->step_ranks, ja->n_sums);
	if (err > 0)
		gs_outbuf_printf(w->o, "    job spans are on the aligned clocks, within %s\n",
				 DUR(err));
	if (unknown)
		gs_outbuf_printf(w->o,
				 "    job span unknown for %zu step%s: its ranks are on clocks no "
				 "collective aligns\n",
				 unknown, unknown == 1 ? "" : "s");
	if (ja->slow_steps.steps)
		gs_outbuf_printf(
			w->o,
			"    rank %u had the longest step in %zu of %zu analysed steps, %s "
			"beyond the median rank's\n",
			gs_job_rank(ja, ja->slow_steps.ri)->rank, ja->slow_steps.steps,
			ja->slow_steps.of, DUR(ja->slow_steps.extra));
}

static void text_totals(struct job_text_writer *w, const struct gs_job_analysis *ja,
			const struct job_view *v)
{
	size_t with = 0, listed = 0;

	if (!ja->n_by_skew)
		return;
	for (size_t i = 0; i < ja->n_totals; i++)
		with += ja->totals[i].collectives > 0;
	if (v->all) {
		job_text_section(w, "Per rank, over its collectives");
	} else {
		char title[128];

		snprintf(title, sizeof(title),
			 "Per rank, over its collectives: the outliers' ranks");
		job_text_section(w, title);
	}
	gs_outbuf_puts(w->o, "    ");
	job_text_cell(w, "rank", 6, false);
	job_text_cell(w, "collectives", 12, true);
	job_text_cell(w, "waited", 12, true);
	job_text_cell(w, "last", 8, true);
	job_text_cell(w, "share", 8, true);
	job_text_cell(w, "cost to others", 16, true);
	job_text_cell(w, "compute before", 16, true);
	gs_outbuf_putc(w->o, '\n');
	for (size_t i = 0; i < ja->n_totals; i++) {
		const struct gs_job_total *t = &ja->totals[i];
		char rank[16], n[32], last[32];

		if (!t->collectives || !v->rank_shown[t->ri])
			continue;
		listed++;
		snprintf(rank, sizeof(rank), "%u", gs_job_rank(ja, t->ri)->rank);
		snprintf(n, sizeof(n), "%llu", (unsigned long long)t->collectives);
		snprintf(last, sizeof(last), "%llu", (unsigned long long)t->last);
		gs_outbuf_puts(w->o, "    ");
		job_text_cell(w, rank, 6, false);
		job_text_cell(w, n, 12, true);
		/* The rank's own times in one unit; what it cost the others,
		 * summed over every other rank, in its own. */
		LINE_UNIT(t->waited, t->compute_before);
		job_text_cell(w, DUR(t->waited), 12, true);
		job_text_cell(w, last, 8, true);
		job_text_cell(w, PCT((int64_t)t->last, (int64_t)t->counted), 8, true);
		job_line_unit = 0;
		job_text_cell(w, DUR(t->cost), 16, true);
		LINE_UNIT(t->waited, t->compute_before);
		job_text_cell(w, DUR(t->compute_before), 16, true);
		job_line_unit = 0;
		gs_outbuf_puts(w->o, t->straggler ? "  straggler\n" : "\n");
	}
	if (listed < with)
		gs_outbuf_printf(w->o,
				 "    %zu of %zu ranks not listed (--ranks all lists every one)\n",
				 with - listed, with);
	gs_outbuf_puts(w->o,
		       "    last: times the others waited for it (a skew of 0 counts for no "
		       "one); share: of its\n    collectives with a skew; straggler: last in at "
		       "least 3, a quarter, and twice chance;\n    compute before: its compute "
		       "kernels' time between its previous collective and its arrival\n");
}

static void text_mismatches(struct job_text_writer *w, const struct gs_job_analysis *ja)
{
	if (!ja->n_mm)
		return;
	job_text_section(w, "Mismatches (reported, not guessed over)");
	for (size_t i = 0; i < ja->n_mm && i < w->top; i++)
		gs_report_text_wrap(w->o, "    ", 4, ja->mm[i].text, 6);
	if (ja->n_mm > w->top)
		gs_outbuf_printf(w->o, "    ... %zu more (--top N, or --format json for all)\n",
				 ja->n_mm - w->top);
}

void gs_job_analysis_write_text(struct gs_outbuf *o, const struct gs_report *job,
				const struct gs_report_style *st)
{
	const struct gs_job_analysis *ja = gs_job_results(job);
	struct gs_report_style s = gs_report_style_of(st);
	struct job_text_writer w = {o, s.color, s.top};
	struct job_view v;
	char title[96];

	if (!ja)
		return;
	snprintf(title, sizeof(title), "job: %zu ranks, %zu GPU%s", ja->n_sums, ja->n_gpus,
		 ja->n_gpus == 1 ? "" : "s");
	job_text_rule(&w, title);
	if (job_view_make(ja, s.ranks, &v) != GS_OK) {
		gs_outbuf_fail(o, ENOMEM, NULL);
		return;
	}
	if (ja->world_size > ja->n_sums)
		gs_outbuf_printf(
			o,
			"\n  partial job: %zu of %u ranks (the world size the traces declare): "
			"every verdict\n  below is over the ranks at hand\n",
			ja->n_sums, ja->world_size);
	text_findings(&w, ja);
	text_ranks(&w, ja, &v);
	/* Many GPUs: the min / median / max rows above say it. */
	if (v.all)
		text_summary(&w, ja);
	text_steps(&w, ja);
	text_clocks(&w, ja, &v);
	text_collectives(&w, ja, &v);
	text_totals(&w, ja, &v);
	text_mismatches(&w, ja);
	job_view_free(&v);
}
