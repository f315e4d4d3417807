/* SPDX-License-Identifier: MIT */
/*
 * The analyze report as text for people: per device a header, the
 * breakdown as two bars (shares, and a timeline) and a table, the ranked
 * findings with what to do about each, then the tables (schedule, waits,
 * missed overlap, idle attribution, CUDA Graph candidates, streams,
 * kernels). Every line fits 100 columns (names are cut with an ellipsis);
 * control characters and invalid UTF-8 in names print as escapes ("\x1b",
 * gs_text_char). ANSI colour only
 * when the style asks for it.
 *
 * The tables of a device are report_text_tables.c; report_text_priv.h
 * holds what the two share.
 *
 * Complexity: linear in the rows printed, plus O(segments) for the
 * timeline bar.
 */
#include <gpuscope/report_parts.h>
#include <gpuscope/report_phrases.h>
#include "measures_priv.h"
#include "operators_priv.h"
#include "report_text_priv.h"
#include "report_write_priv.h"

#include <gpuscope/import.h>
#include <gpuscope/names.h>
#include <gpuscope/sort.h>
#include <gpuscope/text.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_model.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gpuscope/outbuf.h>

/* ---- colour ------------------------------------------------------------- */

static void text_on(struct text_writer *w, enum tone t)
{
	static const char *const codes[] = {"1", "2", "32", "36", "33", "31"};

	if (w->st.color)
		gs_outbuf_printf(&w->o, "\033[%sm", codes[t]);
}

static void text_off(struct text_writer *w)
{
	if (w->st.color)
		gs_outbuf_puts(&w->o, "\033[0m");
}

/* ---- columns -------------------------------------------------------------- */

/*
 * `s` made printable into buf (control characters and bad UTF-8 as their
 * escapes, gs_text_char), cut to at most `cols` columns with a
 * trailing "…" when longer. Returns the columns used.
 */
size_t text_fit(char *buf, size_t size, const char *s, size_t cols)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t len = 0, used = 0, total = gs_text_cols(s);
	char ch[GS_TEXT_CHAR_MAX];

	while (*p) {
		size_t c, adv, n = gs_text_char(p, ch, &c, &adv);

		/* Cut: room for the ellipsis in the last column. */
		if (total > cols && used + c + 1 > cols) {
			if (used < cols && len + 4 <= size) {
				memcpy(buf + len, "\xe2\x80\xa6", 3); /* … */
				len += 3;
				used++;
			}
			break;
		}
		if (len + n + 1 > size)
			break;
		memcpy(buf + len, ch, n);
		len += n;
		used += c;
		p += adv;
	}
	if (size)
		buf[len < size ? len : size - 1] = '\0';
	return used;
}

void text_spaces(struct text_writer *w, size_t n)
{
	while (n--)
		gs_outbuf_putc(&w->o, ' ');
}

/* `s` in a column of `cols`, left- or right-aligned. */
void text_cell(struct text_writer *w, const char *s, size_t cols, bool right)
{
	char buf[4 * WIDTH + 8];
	size_t used = text_fit(buf, sizeof(buf), s, cols);

	if (right)
		text_spaces(w, cols - used);
	gs_outbuf_puts(&w->o, buf);
	if (!right)
		text_spaces(w, cols - used);
}

/* The last column of a line: no padding after it. */
void text_last(struct text_writer *w, const char *s, size_t cols)
{
	char buf[4 * WIDTH + 8];

	text_fit(buf, sizeof(buf), s, cols);
	gs_outbuf_puts(&w->o, buf);
	gs_outbuf_putc(&w->o, '\n');
}

const char *text_dur(const struct text_writer *w, char *buf, size_t size, int64_t ns)
{
	return w->unit ? gs_dur_text_in(buf, size, ns, w->unit, false) : gs_dur_text(buf, size, ns);
}

/* One unit for the comparable durations of a line (from the largest);
 * text_unit(w, NULL, 0) ends it. */
void text_unit(struct text_writer *w, const int64_t *v, size_t n)
{
	uint64_t m = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t a = v[i] < 0 ? (uint64_t)0 - (uint64_t)v[i] : (uint64_t)v[i];

		m = a > m ? a : m;
	}
	w->unit = n ? gs_dur_unit(m) : 0;
}

const char *text_u64s(char *buf, size_t size, uint64_t v)
{
	snprintf(buf, size, "%llu", (unsigned long long)v);
	return buf;
}

/* Words of `s` over lines of WIDTH, the first after `first` (already
 * printed, `col0` columns), the rest indented by `indent`. Words longer
 * than a line are cut. */
void gs_report_text_wrap(struct gs_outbuf *o, const char *first, size_t col0, const char *s,
			 size_t indent)
{
	char word[4 * WIDTH + 8], tmp[4 * WIDTH + 8];
	size_t col = col0, room = WIDTH - indent;
	bool space = false;
	const char *p = s;

	gs_outbuf_puts(o, first);
	while (*p) {
		const char *e;
		size_t n, cols;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		for (e = p; *e && *e != ' '; e++)
			;
		n = (size_t)(e - p) < sizeof(tmp) - 1 ? (size_t)(e - p) : sizeof(tmp) - 1;
		memcpy(tmp, p, n);
		tmp[n] = '\0';
		cols = text_fit(word, sizeof(word), tmp, room);
		if (col > indent && col + (space ? 1 : 0) + cols > WIDTH) {
			gs_outbuf_putc(o, '\n');
			for (size_t i = 0; i < indent; i++)
				gs_outbuf_putc(o, ' ');
			col = indent;
		} else if (space) {
			gs_outbuf_putc(o, ' ');
			col++;
		}
		gs_outbuf_puts(o, word);
		col += cols;
		space = true;
		p = e;
	}
	gs_outbuf_putc(o, '\n');
}

size_t gs_report_text_fit(char *buf, size_t size, const char *s, size_t cols)
{
	return text_fit(buf, size, s, cols);
}

void text_wrap(struct text_writer *w, const char *first, size_t col0, const char *s, size_t indent)
{
	gs_report_text_wrap(&w->o, first, col0, s, indent);
}

/* ---- report header -------------------------------------------------------- */

static void text_rule(struct text_writer *w, const char *title)
{
	char buf[4 * WIDTH + 8];
	size_t used;

	text_on(w, T_BOLD);
	gs_outbuf_puts(&w->o, "━━ ");
	used = 3 + text_fit(buf, sizeof(buf), title, WIDTH - 4);
	gs_outbuf_puts(&w->o, buf);
	gs_outbuf_putc(&w->o, ' ');
	used++;
	while (used++ < WIDTH)
		gs_outbuf_puts(&w->o, "━");
	text_off(w);
	gs_outbuf_putc(&w->o, '\n');
}

void text_section(struct text_writer *w, const char *title)
{
	gs_outbuf_puts(&w->o, "\n  ");
	text_on(w, T_BOLD);
	gs_outbuf_puts(&w->o, title);
	text_off(w);
	gs_outbuf_putc(&w->o, '\n');
}

static void text_note(struct text_writer *w, const char *label, const char *text)
{
	char first[64];

	snprintf(first, sizeof(first), "  %-8s ", label);
	text_wrap(w, first, strlen(first), text, 11);
}

/* A note: printed at once, or gathered over the ranks of a job. */
struct note_sink {
	void (*note)(struct note_sink *ns, const char *label, const char *text);
	struct text_writer *w;
};

static void note_print(struct note_sink *ns, const char *label, const char *text)
{
	text_note(ns->w, label, text);
}

static void sink_note(void *ctx, const char *label, const char *text)
{
	struct note_sink *ns = ctx;

	ns->note(ns, label, text);
}

/* What one rank's trace could not show (gs_report_notes). */
static void text_notes(struct note_sink *ns, const struct gs_report *r)
{
	gs_report_notes(r, sink_note, ns);
}

/* The same note of many ranks is printed once, with the ranks that have it
 * ("ranks 0-7, 9: ..."); a note of a device ("device 3: ...") of many
 * devices once too, with the devices ("every rank (devices 0-7): ..."):
 * 8 GPUs a node make 8 such notes of every cautioned rank otherwise. Notes
 * are few; a linear search is fine. */
#define JOB_NOTES_MAX 64
#define JOB_NOTE_DEVS 16 /* devices listed in a note, at most */

struct job_note {
	const char *label;
	char *text; /* after "device N: " when has_dev */
	char ranks[96];
	size_t len;
	uint32_t first, last; /* the run of ranks being added to */
	size_t count;
	bool more;
	bool has_dev;
	uint32_t devs[JOB_NOTE_DEVS];
	size_t n_devs;
	bool more_devs;
};

struct job_notes {
	struct note_sink sink;
	struct job_note notes[JOB_NOTES_MAX];
	size_t n;
	uint32_t rank;
	size_t dropped;
};

static void run_flush(struct job_note *n)
{
	int k;

	if (!n->count || n->more)
		return;
	if (n->len + 24 >= sizeof(n->ranks)) {
		n->more = true;
		snprintf(n->ranks + n->len, sizeof(n->ranks) - n->len, ", ...");
		return;
	}
	k = n->first == n->last ? snprintf(n->ranks + n->len, sizeof(n->ranks) - n->len, "%s%u",
					   n->len ? ", " : "", n->first) :
				  snprintf(n->ranks + n->len, sizeof(n->ranks) - n->len, "%s%u-%u",
					   n->len ? ", " : "", n->first, n->last);
	if (k > 0)
		n->len += (size_t)k;
}

/* "device 3: rest": *dev 3 and *rest "rest"; false for any other text. */
static bool device_note(const char *text, uint32_t *dev, const char **rest)
{
	const char *p = text + 7;
	uint64_t v = 0;

	if (strncmp(text, "device ", 7) != 0 || *p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9' && v <= UINT32_MAX; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	if (v > UINT32_MAX || p[0] != ':' || p[1] != ' ')
		return false;
	*dev = (uint32_t)v;
	*rest = p + 2;
	return true;
}

static void note_add_dev(struct job_note *n, uint32_t dev)
{
	size_t i = 0;

	while (i < n->n_devs && n->devs[i] < dev)
		i++;
	if (i < n->n_devs && n->devs[i] == dev)
		return;
	if (n->n_devs == JOB_NOTE_DEVS) {
		n->more_devs = true;
		return;
	}
	memmove(&n->devs[i + 1], &n->devs[i], (n->n_devs - i) * sizeof(n->devs[0]));
	n->devs[i] = dev;
	n->n_devs++;
}

static void note_gather(struct note_sink *ns, const char *label, const char *text)
{
	struct job_notes *jn = (struct job_notes *)ns;
	struct job_note *n = NULL;
	const char *rest = text;
	uint32_t dev = 0;
	bool has_dev = device_note(text, &dev, &rest);

	for (size_t i = 0; i < jn->n && !n; i++)
		if (jn->notes[i].label == label && jn->notes[i].has_dev == has_dev &&
		    !strcmp(jn->notes[i].text, rest))
			n = &jn->notes[i];
	if (!n) {
		if (jn->n == JOB_NOTES_MAX) {
			jn->dropped++;
			return;
		}
		n = &jn->notes[jn->n];
		memset(n, 0, sizeof(*n));
		n->text = strdup(rest);
		if (!n->text) {
			jn->dropped++;
			return;
		}
		n->label = label;
		n->has_dev = has_dev;
		jn->n++;
	}
	if (has_dev)
		note_add_dev(n, dev);
	if (n->count && n->last == jn->rank)
		return; /* another device of the same rank */
	if (n->count && n->last + 1 == jn->rank) {
		n->last = jn->rank;
	} else {
		run_flush(n);
		n->first = n->last = jn->rank;
	}
	n->count++;
}

/* A note's devices, one by one (gs_text_runs). */
struct dev_iter {
	const struct job_note *n;
	size_t i;
};

static bool dev_next(void *ctx, uint32_t *v)
{
	struct dev_iter *it = ctx;

	if (it->i >= it->n->n_devs)
		return false;
	*v = it->n->devs[it->i++];
	return true;
}

/* The devices of a note as runs: "0-7", "0, 2, 5-6, ...". */
static void note_devs(const struct job_note *n, char *buf, size_t size)
{
	struct dev_iter it = {n, 0};
	size_t len;

	if (!gs_text_runs(buf, size, dev_next, &it, SIZE_MAX, false))
		return;
	len = strlen(buf);
	if (n->more_devs && len < size)
		snprintf(buf + len, size - len, ", ...");
}

static void job_notes_print(struct text_writer *w, struct job_notes *jn, size_t n_ranks)
{
	char line[GS_ERROR_MSG_MAX + 320], who[128], devs[160];

	for (size_t i = 0; i < jn->n; i++) {
		struct job_note *n = &jn->notes[i];

		run_flush(n);
		if (n->count == n_ranks && n_ranks > 1)
			snprintf(who, sizeof(who), "every rank");
		else
			snprintf(who, sizeof(who), "rank%s %s", n->count == 1 ? "" : "s", n->ranks);
		note_devs(n, devs, sizeof(devs));
		if (n->has_dev && (n->n_devs > 1 || n->more_devs))
			snprintf(line, sizeof(line), "%s (devices %s): %s", who, devs, n->text);
		else if (n->has_dev)
			snprintf(line, sizeof(line), "%s: device %s: %s", who, devs, n->text);
		else
			snprintf(line, sizeof(line), "%s: %s", who, n->text);
		text_note(w, n->label, line);
		free(n->text);
	}
	if (jn->dropped)
		text_note(w, "note",
			  "more notes of the ranks are in their sections of --format json");
}

static void text_header(struct text_writer *w)
{
	const struct gs_report *r = w->r;
	const char *format = gs_results_format(r);
	size_t n_ops, n_dev, i, n_in = gs_results_input_count(r);

	gs_trace_ops(w->t, &n_ops);
	gs_results_devices(r, &n_dev);
	text_on(w, T_BOLD);
	gs_outbuf_printf(&w->o, "gpuscope analyze");
	text_off(w);
	gs_outbuf_printf(&w->o, ": %zu input%s (%s), %zu ops, %zu device%s with ops\n", n_in,
			 n_in == 1 ? "" : "s", *format ? format : "?", n_ops, n_dev,
			 n_dev == 1 ? "" : "s");
	for (i = 0; i < n_in; i++)
		text_note(w, "input", gs_results_input(r, i));
	if (gs_results_steps(r)->n)
		text_note(w, "steps", gs_report_steps_text(r, (char[512]){0}, 512));
	{
		struct note_sink ns = {.note = note_print, .w = w};

		text_notes(&ns, r);
	}
}

/* ---- breakdown ---------------------------------------------------------------- */

static const char *const cat_glyph[GS_CAT_COUNT] = {"█", "▓", "▒", "░"};
static const enum tone cat_tone[GS_CAT_COUNT] = {T_KERNEL, T_COPY, T_SYNC, T_IDLE};

static void text_glyphs(struct text_writer *w, unsigned cat, size_t n)
{
	if (!n)
		return;
	text_on(w, cat_tone[cat]);
	while (n--)
		gs_outbuf_puts(&w->o, cat_glyph[cat]);
	text_off(w);
}

/* Shares of the window, BAR characters, by largest remainder. */
static void bar_shares(struct text_writer *w, const struct gs_breakdown *b)
{
	size_t cells[GS_CAT_COUNT] = {0}, used = 0, c;
	double rem[GS_CAT_COUNT] = {0};

	if (b->window_ns <= 0) {
		gs_outbuf_puts(&w->o, "(empty window)");
		return;
	}
	for (c = 0; c < GS_CAT_COUNT; c++) {
		double exact = (double)b->total_ns[c] * BAR / (double)b->window_ns;

		cells[c] = (size_t)exact;
		rem[c] = exact - (double)cells[c];
		used += cells[c];
	}
	while (used < BAR) {
		size_t best = 0;

		for (c = 1; c < GS_CAT_COUNT; c++)
			if (rem[c] > rem[best])
				best = c;
		cells[best]++;
		rem[best] = -1;
		used++;
	}
	for (c = 0; c < GS_CAT_COUNT; c++)
		text_glyphs(w, (unsigned)c, cells[c]);
}

/* The window in BAR slices, each drawn as the category that held most of
 * it. One pass over the segments. */
static void bar_timeline(struct text_writer *w, const struct gs_breakdown *b)
{
	int64_t acc[BAR][GS_CAT_COUNT];
	int64_t span = b->window_ns;
	size_t i, run = 0;
	unsigned prev = 0;

	if (span <= 0) {
		gs_outbuf_puts(&w->o, "(empty window)");
		return;
	}
	memset(acc, 0, sizeof(acc));
	for (i = 0; i < b->n_segments; i++) {
		const struct gs_segment *s = &b->segments[i];
		int64_t a = s->start_ns - b->window_start, e = s->end_ns - b->window_start;
		size_t cell;

		if (s->category >= GS_CAT_COUNT || e <= a)
			continue;
		if (a < 0)
			a = 0;
		if (e > span)
			e = span;
		/* Cell k covers [k*span/BAR, (k+1)*span/BAR). */
		cell = (size_t)((double)a * BAR / (double)span);
		while (cell < BAR && a < e) {
			int64_t cell_end = (int64_t)((double)span * (double)(cell + 1) / BAR);
			int64_t stop = e < cell_end ? e : cell_end;

			if (cell + 1 == BAR)
				stop = e;
			if (stop > a)
				acc[cell][s->category] += stop - a;
			a = stop > a ? stop : a;
			cell++;
		}
	}
	for (i = 0; i < BAR; i++) {
		unsigned c, best = GS_CAT_IDLE;

		for (c = 0; c < GS_CAT_COUNT; c++)
			if (acc[i][c] > acc[i][best])
				best = c;
		if (i && best != prev) {
			text_glyphs(w, prev, run);
			run = 0;
		}
		prev = best;
		run++;
	}
	text_glyphs(w, prev, run);
}

static void text_breakdown(struct text_writer *w, const struct gs_report_device *d)
{
	const struct gs_breakdown *b = &d->b;
	unsigned c;

	text_section(w, "Breakdown");
	gs_outbuf_puts(&w->o, "    share     ");
	bar_shares(w, b);
	gs_outbuf_puts(&w->o, "\n    timeline  ");
	bar_timeline(w, b);
	gs_outbuf_puts(&w->o, "\n              ");
	for (c = 0; c < GS_CAT_COUNT; c++) {
		text_glyphs(w, c, 1);
		gs_outbuf_printf(&w->o, " %s  ", gs_category_name(c));
	}
	gs_outbuf_printf(&w->o, "(timeline: %s a character)\n\n", DUR(b->window_ns / BAR));

	gs_outbuf_puts(&w->o, "    category          time    share\n");
	for (c = 0; c < GS_CAT_COUNT; c++) {
		gs_outbuf_puts(&w->o, "    ");
		text_cell(w, gs_category_name(c), 8, false);
		text_cell(w, DUR(b->total_ns[c]), 14, true);
		text_cell(w, PCT(b->total_ns[c], b->window_ns), 9, true);
		gs_outbuf_putc(&w->o, '\n');
	}
	gs_outbuf_puts(&w->o, "    ");
	text_cell(w, "window", 8, false);
	text_cell(w, DUR(b->window_ns), 14, true);
	text_cell(w, "100.0%", 9, true);
	gs_outbuf_putc(&w->o, '\n');
	gs_outbuf_printf(&w->o, "    dominant: %s (%s) - a lead to check, not a verdict\n",
			 gs_category_name(b->dominant),
			 PCT(b->total_ns[b->dominant < GS_CAT_COUNT ? b->dominant : 0],
			     b->window_ns));
	LINE_UNIT(w, b->copy_hidden_ns, b->copy_total_ns, b->kernel_concurrency_ns);
	gs_outbuf_printf(&w->o, "    overlap:  %s of %s copy hidden by kernels",
			 DUR(b->copy_hidden_ns), DUR(b->copy_total_ns));
	gs_outbuf_printf(&w->o, "; 2+ kernels at once: %s\n", DUR(b->kernel_concurrency_ns));
	text_unit(w, NULL, 0);
}

/* ---- findings ------------------------------------------------------------------ */

static void text_findings(struct text_writer *w, const struct gs_report_device *d)
{
	size_t i;

	text_section(w, "Top findings");
	if (!d->n_findings) {
		gs_outbuf_puts(&w->o,
			       "    nothing stands out: no idle, exposed copy or sync time above "
			       "0.5% of the window\n");
		return;
	}
	for (i = 0; i < d->n_findings && i < w->st.top; i++) {
		char num[32], *text = gs_outbuf_sentence(&w->o, d->findings[i].text, false),
			      *advice = gs_outbuf_sentence(&w->o, d->findings[i].advice, false);

		if (!text || !advice) {
			free(text);
			free(advice);
			return;
		}
		snprintf(num, sizeof(num), "  %2zu. ", i + 1);
		text_on(w, T_BOLD);
		gs_outbuf_puts(&w->o, num);
		text_off(w);
		text_wrap(w, "", strlen(num), text, 6);
		text_wrap(w, "      -> ", 9, advice, 9);
		free(text);
		free(advice);
	}
}

/* What to call an op in a table (report.c). */
const char *text_op_label(const struct gs_trace *t, uint32_t op, char *buf, size_t size)
{
	return gs_report_op_label(t, op, buf, size);
}

/* A list cut to --rows entries (listed of count): "N of M shown". */
void text_cut(struct text_writer *w, size_t shown, size_t listed, size_t count)
{
	if (listed < count)
		gs_outbuf_printf(&w->o, "    " GS_REPORT_CUT_FMT "\n", shown, count, listed);
}

/* Rows past the table: "... N more", or "N of M shown" when cut. */
void text_more(struct text_writer *w, size_t shown, size_t listed, size_t count)
{
	if (listed < count)
		text_cut(w, shown, listed, count);
	else if (shown < count)
		gs_outbuf_printf(&w->o, "    ... %zu more (--top N, or --format json for all)\n",
				 count - shown);
}

/* ---- a device ---------------------------------------------------------------------- */

static void text_device(struct text_writer *w, const struct gs_report_device *d)
{
	char title[4 * WIDTH];
	const char *sep = " (";
	unsigned k;

	gs_report_device_title(w->r, d, title, sizeof(title));
	gs_outbuf_putc(&w->o, '\n');
	text_rule(w, title);
	gs_outbuf_printf(&w->o, "  window   %s%s\n",
			 gs_report_window_text(w->t, d, (char[160]){0}, 160),
			 d->default_window                  ? " (first op start to last op end)" :
			 gs_results_window_from_steps(w->r) ? " (the steps chosen)" :
							      " (--window)");
	gs_outbuf_printf(&w->o, "  ops      %llu", (unsigned long long)d->ops);
	for (k = 0; k < GS_OP_KIND_COUNT; k++) {
		if (!d->op_kinds[k])
			continue;
		gs_outbuf_printf(&w->o, "%s%s %llu", sep, gs_op_kind_name(k),
				 (unsigned long long)d->op_kinds[k]);
		sep = ", ";
	}
	gs_outbuf_printf(&w->o, "%s on %zu stream%s\n", sep[0] == ',' ? ")" : "", d->n_streams,
			 d->n_streams == 1 ? "" : "s");
	text_breakdown(w, d);
	gs_report_text_steps(w, d);
	text_findings(w, d);
	gs_report_text_schedule(w, d);
	gs_report_text_waits(w, d);
	gs_report_text_missed(w, d);
	gs_report_text_idle(w, d);
	gs_report_text_sync(w, d);
	gs_report_text_candidates(w, d);
	gs_report_text_streams(w, d);
	gs_report_text_kernels(w, d);
	gs_measures_write_text(&w->o, w->r, d, &w->st);
	gs_operators_write_text(&w->o, w->r, d, &w->st);
}

/* Every device section of one rank's report. */
static void text_rank(struct text_writer *w, const struct gs_report *rank)
{
	size_t n_dev;
	const struct gs_report_device *dev = gs_results_devices(rank, &n_dev);

	w->r = rank;
	w->t = gs_results_trace(rank);
	for (size_t k = 0; k < n_dev; k++)
		text_device(w, &dev[k]);
}

/* The head of a job's report: its line, inputs, warnings, the ranks'
 * notes (from their reports, or from their summaries when they are
 * elsewhere) and the job analysis. */
static void text_job_head(struct text_writer *w, const struct gs_report *r,
			  const struct gs_report_job_totals *tot)
{
	const struct gs_job *j = gs_results_job(r);
	const char *format = gs_results_format(r);
	size_t i, n_in = gs_results_input_count(r);
	char who[64];

	text_on(w, T_BOLD);
	gs_outbuf_printf(&w->o, "gpuscope analyze");
	text_off(w);
	gs_outbuf_printf(&w->o, ": %zu input%s (%s), %zu ranks, %zu GPU%s with ops, %zu ops\n",
			 n_in, n_in == 1 ? "" : "s", *format ? format : "?", j->n_ranks, tot->gpus,
			 tot->gpus == 1 ? "" : "s", (size_t)tot->ops);
	/* A thousand ranks: the first inputs, and how many more. */
	for (i = 0; i < n_in && i < 4; i++)
		text_note(w, "input", gs_results_input(r, i));
	if (n_in > 4) {
		snprintf(who, sizeof(who), "... and %zu more", n_in - 4);
		text_note(w, "input", who);
	}
	for (i = 0; i < j->n_warnings; i++)
		text_note(w, "warning", j->warnings[i]);
	{
		struct job_notes *jn = calloc(1, sizeof(*jn));

		if (jn) {
			jn->sink.note = note_gather;
			for (i = 0; i < tot->ranks; i++) {
				struct gs_results_job_rank x;

				gs_results_job_rank(r, i, &x);
				jn->rank = x.rank;
				gs_results_job_rank_notes(r, i, sink_note, &jn->sink);
			}
			job_notes_print(w, jn, tot->ranks);
			free(jn);
		}
	}
	gs_job_analysis_write_text(&w->o, r, &w->st);
}

/* The end of a job's report: the ranks whose sections were left out. */
static void text_job_tail(struct text_writer *w, size_t gpus, size_t n_ranks, size_t shown)
{
	if (!gpus)
		gs_outbuf_puts(&w->o, "\nno GPU ops in the job: nothing to analyze (host-only "
				      "traces?)\n");
	if (shown < n_ranks)
		gs_outbuf_printf(
			&w->o,
			"\n%zu of %zu ranks' sections not shown (the job's outliers' only): "
			"--ranks all shows\nevery one, --rank R one rank's\n",
			n_ranks - shown, n_ranks);
}

/* Rank i's sections of a job's report, written to w. */
typedef gs_status (*text_part_fn)(void *ctx, size_t i, struct text_writer *w);

/* A job of two or more ranks: the job first, then its ranks' GPUs (the
 * outliers' when they are many), each from part(). */
static gs_status text_job(struct text_writer *w, const struct gs_report *r, text_part_fn part,
			  void *ctx)
{
	struct gs_report_job_totals tot;
	size_t n_shown;
	bool *shown;
	gs_status st;

	gs_report_job_totals(r, &tot);
	st = gs_report_job_shown(r, &w->st, tot.ranks, &shown, &n_shown);
	if (st != GS_OK)
		return st;
	text_job_head(w, r, &tot);
	for (size_t i = 0; i < tot.ranks && st == GS_OK; i++)
		if (shown[i])
			st = part(ctx, i, w);
	w->r = r;
	w->t = NULL;
	text_job_tail(w, tot.gpus, tot.ranks, n_shown);
	free(shown);
	return st;
}

/* Rank i's sections from its report, which the job's report holds. */
struct text_own {
	const struct gs_report *job;
};

static gs_status own_part(void *ctx, size_t i, struct text_writer *w)
{
	text_rank(w, gs_results_rank(((struct text_own *)ctx)->job, i));
	return GS_OK;
}

gs_status gs_report_write_text(FILE *f, const struct gs_report *r,
			       const struct gs_report_style *style)
{
	struct text_writer w;
	size_t i, n_dev;
	const struct gs_report_device *dev;

	if (!f || !r) {
		gs_error_append("gs_report_write_text: no output or no report");
		return GS_ERR_INVALID;
	}
	/* A job of one rank reads as that rank's report. */
	r = gs_report_single(r);
	memset(&w, 0, sizeof(w));
	gs_outbuf_init(&w.o, f);
	w.r = r;
	w.t = gs_results_trace(r);
	w.st = gs_report_style_of(style);
	if (gs_results_job(r)) {
		struct text_own own = {r};

		return gs_outbuf_finish_keep(&w.o, text_job(&w, r, own_part, &own));
	}
	text_header(&w);
	dev = gs_results_devices(r, &n_dev);
	if (!n_dev)
		gs_outbuf_puts(&w.o, "\nno GPU ops in the trace: nothing to analyze (a host-only "
				     "trace?)\n");
	for (i = 0; i < n_dev; i++)
		text_device(&w, &dev[i]);
	return gs_outbuf_finish(&w.o);
}

/* ---- the parts of a job's text report (gpuscope-mpi) ---- */

struct text_given {
	gs_status (*part)(void *ctx, size_t i, char **bytes, size_t *len);
	void *ctx;
};

/* Rank i's sections as its process wrote them, from part(). */
static gs_status given_part(void *ctx, size_t i, struct text_writer *w)
{
	struct text_given *c = ctx;
	char *bytes = NULL;
	size_t len = 0;
	gs_status st = c->part(c->ctx, i, &bytes, &len);

	gs_report_put_part(&w->o, st, bytes, len, false);
	return st;
}

gs_status gs_report_text_job_parts(
	FILE *f, const struct gs_report *shell, const struct gs_report_style *style,
	gs_status (*part)(void *ctx, size_t i, char **bytes, size_t *len), void *ctx)
{
	struct text_given given = {part, ctx};
	struct text_writer w;

	memset(&w, 0, sizeof(w));
	gs_outbuf_init(&w.o, f);
	w.r = shell;
	w.st = gs_report_style_of(style);
	return gs_outbuf_finish_keep(&w.o, text_job(&w, shell, given_part, &given));
}

gs_status gs_report_text_rank_part(FILE *f, const struct gs_report *rank,
				   const struct gs_report_style *style)
{
	struct text_writer w;

	memset(&w, 0, sizeof(w));
	gs_outbuf_init(&w.o, f);
	w.st = gs_report_style_of(style);
	text_rank(&w, rank);
	return gs_outbuf_finish(&w.o);
}
