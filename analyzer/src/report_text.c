/* SPDX-License-Identifier: MIT */
/*
 * The analyze report as text for people: per device a header, the
 * breakdown as two bars (shares, and a timeline) and a table, the ranked
 * findings with what to do about each, then the tables (schedule, waits,
 * missed overlap, idle attribution, CUDA Graph candidates, streams,
 * kernels). Every line fits 100 columns (names are cut with an ellipsis);
 * control characters and invalid UTF-8 in names print as escapes ("\x1b",
 * gs_out_text_char). ANSI colour only
 * when the style asks for it.
 *
 * Complexity: linear in the rows printed, plus O(segments) for the
 * timeline bar.
 */
#include "job_sum.h"
#include "measures_priv.h"
#include "operators_priv.h"
#include "report_priv.h"

#include <gpuscope/sort.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"

#define WIDTH 100
#define BAR 60

struct tw {
	struct gs_out o;
	const struct gs_report *r;
	const struct gs_trace *t;
	struct gs_report_style st; /* resolved (gs_report_style_of) */
	uint64_t unit; /* of every duration on the line being written; 0: each its own */
};

/* ---- colour ------------------------------------------------------------- */

enum tone {
	T_BOLD,
	T_DIM,
	T_KERNEL,
	T_COPY,
	T_SYNC,
	T_IDLE,
};

static void tw_on(struct tw *w, enum tone t)
{
	static const char *const codes[] = {"1", "2", "32", "36", "33", "31"};

	if (w->st.color)
		gs_out_printf(&w->o, "\033[%sm", codes[t]);
}

static void tw_off(struct tw *w)
{
	if (w->st.color)
		gs_out_puts(&w->o, "\033[0m");
}

/* ---- columns -------------------------------------------------------------- */

/*
 * `s` made printable into buf (control characters and bad UTF-8 as their
 * escapes, gs_out_text_char), cut to at most `cols` columns with a
 * trailing "…" when longer. Returns the columns used.
 */
static size_t fit(char *buf, size_t size, const char *s, size_t cols)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t len = 0, used = 0, total = gs_out_text_cols(s);
	char ch[GS_OUT_CHAR_MAX];

	while (*p) {
		size_t c, adv, n = gs_out_text_char(p, ch, &c, &adv);

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

static void tw_spaces(struct tw *w, size_t n)
{
	while (n--)
		gs_out_putc(&w->o, ' ');
}

/* `s` in a column of `cols`, left- or right-aligned. */
static void tw_cell(struct tw *w, const char *s, size_t cols, bool right)
{
	char buf[4 * WIDTH + 8];
	size_t used = fit(buf, sizeof(buf), s, cols);

	if (right)
		tw_spaces(w, cols - used);
	gs_out_puts(&w->o, buf);
	if (!right)
		tw_spaces(w, cols - used);
}

/* The last column of a line: no padding after it. */
static void tw_last(struct tw *w, const char *s, size_t cols)
{
	char buf[4 * WIDTH + 8];

	fit(buf, sizeof(buf), s, cols);
	gs_out_puts(&w->o, buf);
	gs_out_putc(&w->o, '\n');
}

static const char *dur(const struct tw *w, char *buf, size_t size, int64_t ns)
{
	return w->unit ? gs_dur_text_in(buf, size, ns, w->unit, false) : gs_dur_text(buf, size, ns);
}

#define DUR(ns) dur(w, (char[48]){0}, 48, (ns))

/* One unit for the comparable durations of a line (from the largest);
 * tw_unit(w, NULL, 0) ends it. */
static void tw_unit(struct tw *w, const int64_t *v, size_t n)
{
	uint64_t m = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t a = v[i] < 0 ? (uint64_t)0 - (uint64_t)v[i] : (uint64_t)v[i];

		m = a > m ? a : m;
	}
	w->unit = n ? gs_dur_unit(m) : 0;
}

#define LINE_UNIT(w, ...)                                                                          \
	tw_unit((w), (const int64_t[]){__VA_ARGS__},                                               \
		sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define PCT(a, b) gs_report_pct((char[32]){0}, 32, (a), (b))
#define U64(v) u64s((char[32]){0}, 32, (uint64_t)(v))

static const char *u64s(char *buf, size_t size, uint64_t v)
{
	snprintf(buf, size, "%llu", (unsigned long long)v);
	return buf;
}

/* Words of `s` over lines of WIDTH, the first after `first` (already
 * printed, `col0` columns), the rest indented by `indent`. Words longer
 * than a line are cut. */
void gs_report_text_wrap(struct gs_out *o, const char *first, size_t col0, const char *s,
			 size_t indent)
{
	char word[4 * WIDTH + 8], tmp[4 * WIDTH + 8];
	size_t col = col0, room = WIDTH - indent;
	bool space = false;
	const char *p = s;

	gs_out_puts(o, first);
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
		cols = fit(word, sizeof(word), tmp, room);
		if (col > indent && col + (space ? 1 : 0) + cols > WIDTH) {
			gs_out_putc(o, '\n');
			for (size_t i = 0; i < indent; i++)
				gs_out_putc(o, ' ');
			col = indent;
		} else if (space) {
			gs_out_putc(o, ' ');
			col++;
		}
		gs_out_puts(o, word);
		col += cols;
		space = true;
		p = e;
	}
	gs_out_putc(o, '\n');
}

size_t gs_report_text_fit(char *buf, size_t size, const char *s, size_t cols)
{
	return fit(buf, size, s, cols);
}

static void tw_wrap(struct tw *w, const char *first, size_t col0, const char *s, size_t indent)
{
	gs_report_text_wrap(&w->o, first, col0, s, indent);
}

/* ---- report header -------------------------------------------------------- */

static void tw_rule(struct tw *w, const char *title)
{
	char buf[4 * WIDTH + 8];
	size_t used;

	tw_on(w, T_BOLD);
	gs_out_puts(&w->o, "━━ ");
	used = 3 + fit(buf, sizeof(buf), title, WIDTH - 4);
	gs_out_puts(&w->o, buf);
	gs_out_putc(&w->o, ' ');
	used++;
	while (used++ < WIDTH)
		gs_out_puts(&w->o, "━");
	tw_off(w);
	gs_out_putc(&w->o, '\n');
}

static void tw_section(struct tw *w, const char *title)
{
	gs_out_puts(&w->o, "\n  ");
	tw_on(w, T_BOLD);
	gs_out_puts(&w->o, title);
	tw_off(w);
	gs_out_putc(&w->o, '\n');
}

static void tw_note(struct tw *w, const char *label, const char *text)
{
	char first[64];

	snprintf(first, sizeof(first), "  %-8s ", label);
	tw_wrap(w, first, strlen(first), text, 11);
}

/* A note: printed at once, or gathered over the ranks of a job. */
struct note_sink {
	void (*note)(struct note_sink *ns, const char *label, const char *text);
	struct tw *w;
};

static void note_print(struct note_sink *ns, const char *label, const char *text)
{
	tw_note(ns->w, label, text);
}

/* What one rank's trace could not show: dropped records, loading
 * warnings, waits it could not link. */
static void text_notes(struct note_sink *ns, const struct gs_report *r)
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
		ns->note(ns, "caution", line);
	}
	warn = gs_trace_warnings(r->t, &n);
	for (i = 0; i < n; i++)
		if (!gs_report_warning_restated(r, &warn[i]))
			ns->note(ns, "warning", gs_warning_format(&warn[i], line, sizeof(line)));
	if (gs_report_unlinked_note(r, GS_REPORT_UNLINKED_WAITS, line, sizeof(line)))
		ns->note(ns, "caution", line);
	if (gs_report_unlinked_note(r, GS_REPORT_UNLINKED_CALLS, line, sizeof(line)))
		ns->note(ns, "caution", line);
	for (i = 0; i < r->n_dev; i++) {
		if (!r->dev[i].optimistic)
			continue;
		snprintf(line, sizeof(line),
			 "device %u: ops on %zu streams and no cross-stream synchronization "
			 "recorded (no event records, stream waits or syncs): the ideal schedule "
			 "runs every stream from the window start and is optimistic",
			 r->dev[i].device, r->dev[i].active_streams);
		ns->note(ns, "caution", line);
	}
	for (i = 0; i < r->n_dev; i++) {
		if (gs_report_early_note(r, &r->dev[i], GS_REPORT_EARLY_RETURNED, line,
					 sizeof(line)))
			ns->note(ns, "note", line);
		if (gs_report_early_note(r, &r->dev[i], GS_REPORT_EARLY_RECORDED, line,
					 sizeof(line)))
			ns->note(ns, "caution", line);
	}
	if (r->g && !r->g->stream_kinds_known && r->n_dev)
		ns->note(ns, "note",
			 "stream kinds are not recorded in this trace: implicit legacy "
			 "default-stream synchronization is not modelled");
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

static void job_notes_print(struct tw *w, struct job_notes *jn, size_t n_ranks)
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
		tw_note(w, n->label, line);
		free(n->text);
	}
	if (jn->dropped)
		tw_note(w, "note",
			"more notes of the ranks are in their sections of --format json");
}

static void text_header(struct tw *w)
{
	const struct gs_report *r = w->r;
	size_t n_ops, i;

	gs_trace_ops(w->t, &n_ops);
	tw_on(w, T_BOLD);
	gs_out_printf(&w->o, "gpuscope analyze");
	tw_off(w);
	gs_out_printf(&w->o, ": %zu input%s (%s), %zu ops, %zu device%s with ops\n", r->n_inputs,
		      r->n_inputs == 1 ? "" : "s", r->format && *r->format ? r->format : "?", n_ops,
		      r->n_dev, r->n_dev == 1 ? "" : "s");
	for (i = 0; i < r->n_inputs; i++)
		tw_note(w, "input", r->inputs[i]);
	if (r->steps.n)
		tw_note(w, "steps", gs_report_steps_text(r, (char[512]){0}, 512));
	{
		struct note_sink ns = {.note = note_print, .w = w};

		text_notes(&ns, r);
	}
}

/* ---- breakdown ---------------------------------------------------------------- */

static const char *const cat_glyph[GS_CAT_COUNT] = {"█", "▓", "▒", "░"};
static const enum tone cat_tone[GS_CAT_COUNT] = {T_KERNEL, T_COPY, T_SYNC, T_IDLE};

static void tw_glyphs(struct tw *w, unsigned cat, size_t n)
{
	if (!n)
		return;
	tw_on(w, cat_tone[cat]);
	while (n--)
		gs_out_puts(&w->o, cat_glyph[cat]);
	tw_off(w);
}

/* Shares of the window, BAR characters, by largest remainder. */
static void bar_shares(struct tw *w, const struct gs_breakdown *b)
{
	size_t cells[GS_CAT_COUNT] = {0}, used = 0, c;
	double rem[GS_CAT_COUNT] = {0};

	if (b->window_ns <= 0) {
		gs_out_puts(&w->o, "(empty window)");
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
		tw_glyphs(w, (unsigned)c, cells[c]);
}

/* The window in BAR slices, each drawn as the category that held most of
 * it. One pass over the segments. */
static void bar_timeline(struct tw *w, const struct gs_breakdown *b)
{
	int64_t acc[BAR][GS_CAT_COUNT];
	int64_t span = b->window_ns;
	size_t i, run = 0;
	unsigned prev = 0;

	if (span <= 0) {
		gs_out_puts(&w->o, "(empty window)");
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
			tw_glyphs(w, prev, run);
			run = 0;
		}
		prev = best;
		run++;
	}
	tw_glyphs(w, prev, run);
}

static void text_breakdown(struct tw *w, const struct gs_report_device *d)
{
	const struct gs_breakdown *b = &d->b;
	unsigned c;

	tw_section(w, "Breakdown");
	gs_out_puts(&w->o, "    share     ");
	bar_shares(w, b);
	gs_out_puts(&w->o, "\n    timeline  ");
	bar_timeline(w, b);
	gs_out_puts(&w->o, "\n              ");
	for (c = 0; c < GS_CAT_COUNT; c++) {
		tw_glyphs(w, c, 1);
		gs_out_printf(&w->o, " %s  ", gs_category_name(c));
	}
	gs_out_printf(&w->o, "(timeline: %s a character)\n\n", DUR(b->window_ns / BAR));

	gs_out_puts(&w->o, "    category          time    share\n");
	for (c = 0; c < GS_CAT_COUNT; c++) {
		gs_out_puts(&w->o, "    ");
		tw_cell(w, gs_category_name(c), 8, false);
		tw_cell(w, DUR(b->total_ns[c]), 14, true);
		tw_cell(w, PCT(b->total_ns[c], b->window_ns), 9, true);
		gs_out_putc(&w->o, '\n');
	}
	gs_out_puts(&w->o, "    ");
	tw_cell(w, "window", 8, false);
	tw_cell(w, DUR(b->window_ns), 14, true);
	tw_cell(w, "100.0%", 9, true);
	gs_out_putc(&w->o, '\n');
	gs_out_printf(&w->o, "    dominant: %s (%s) - a lead to check, not a verdict\n",
		      gs_category_name(b->dominant),
		      PCT(b->total_ns[b->dominant < GS_CAT_COUNT ? b->dominant : 0], b->window_ns));
	LINE_UNIT(w, b->copy_hidden_ns, b->copy_total_ns, b->kernel_concurrency_ns);
	gs_out_printf(&w->o, "    overlap:  %s of %s copy hidden by kernels",
		      DUR(b->copy_hidden_ns), DUR(b->copy_total_ns));
	gs_out_printf(&w->o, "; 2+ kernels at once: %s\n", DUR(b->kernel_concurrency_ns));
	tw_unit(w, NULL, 0);
}

/* ---- findings ------------------------------------------------------------------ */

static void text_findings(struct tw *w, const struct gs_report_device *d)
{
	size_t i;

	tw_section(w, "Top findings");
	if (!d->n_findings) {
		gs_out_puts(&w->o,
			    "    nothing stands out: no idle, exposed copy or sync time above "
			    "0.5% of the window\n");
		return;
	}
	for (i = 0; i < d->n_findings && i < w->st.top; i++) {
		char num[32], *text = gs_dur_sentence_dup(d->findings[i].text, false),
			      *advice = gs_dur_sentence_dup(d->findings[i].advice, false);

		if (!text || !advice) {
			free(text);
			free(advice);
			w->o.failed = true;
			w->o.err = ENOMEM;
			return;
		}
		snprintf(num, sizeof(num), "  %2zu. ", i + 1);
		tw_on(w, T_BOLD);
		gs_out_puts(&w->o, num);
		tw_off(w);
		tw_wrap(w, "", strlen(num), text, 6);
		tw_wrap(w, "      -> ", 9, advice, 9);
		free(text);
		free(advice);
	}
}

/* What to call an op in a table (report.c). */
static const char *op_label(const struct gs_trace *t, uint32_t op, char *buf, size_t size)
{
	return gs_report_op_label(t, op, buf, size);
}

/* A list cut to --rows entries (listed of count): "N of M shown". */
static void tw_cut(struct tw *w, size_t shown, size_t listed, size_t count)
{
	if (listed < count)
		gs_out_printf(&w->o, "    " GS_REPORT_CUT_FMT "\n", shown, count, listed);
}

/* Rows past the table: "... N more", or "N of M shown" when cut. */
static void tw_more(struct tw *w, size_t shown, size_t listed, size_t count)
{
	if (listed < count)
		tw_cut(w, shown, listed, count);
	else if (shown < count)
		gs_out_printf(&w->o, "    ... %zu more (--top N, or --format json for all)\n",
			      count - shown);
}

/* ---- schedule ------------------------------------------------------------------ */

/* The efficiency line: never above 1 (report.c, enum gs_report_eff). */
static void text_efficiency(struct tw *w, const struct gs_report_device *d)
{
	char eff[32], first[64], note[256];

	switch (d->efficiency_kind) {
	case GS_REPORT_EFF_CYCLES:
		snprintf(
			note, sizeof(note),
			"(not available: the schedule broke dependency cycles at %llu op%s, so the "
			"ideal is no bound; see the findings)",
			(unsigned long long)d->broken_cycles, d->broken_cycles == 1 ? "" : "s");
		break;
	case GS_REPORT_EFF_BOUNDED:
		snprintf(
			note, sizeof(note),
			"(bounded: the ideal, %s, is longer than the actual run, which started some "
			"op before a dependency allowed)",
			DUR(d->ideal_ns));
		break;
	default:
		snprintf(note, sizeof(note), "(ideal / actual)");
		break;
	}
	snprintf(first, sizeof(first), "    efficiency         %-4s  ",
		 gs_report_eff_text(d, eff, sizeof(eff)));
	tw_wrap(w, first, strlen(first), note, 30);
}

static void text_schedule(struct tw *w, const struct gs_report_device *d)
{
	const struct gs_trace *t = w->t;
	size_t n_ops, i, k, shown;
	const size_t *order;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const struct gs_device *dev = gs_trace_device(t, d->device); /* ids are unique */
	const struct gs_what_if *p = &d->pipelined;
	bool engines_known = dev && dev->copy_engines;
	const char *sep = "";
	char line[256], label[96];
	unsigned c;

	tw_section(w, "Schedule (same ops, same durations, from the window start)");
	gs_out_printf(&w->o, "    actual             %s\n", DUR(d->actual_ns));
	{
		char first[64], model[320], what[336];

		snprintf(first, sizeof(first), "    dependency bound   %s  ",
			 DUR(d->dependency_bound_ns));
		tw_wrap(w, first, strlen(first),
			"(the lower bound: every edge, unlimited SMs and copy engines, no host or "
			"launch cost)",
			23);

		snprintf(first, sizeof(first), "    ideal              %s  ", DUR(d->ideal_ns));
		snprintf(what, sizeof(what), "(%s)",
			 gs_report_ideal_model_text(d, engines_known, model, sizeof(model)));
		tw_wrap(w, first, strlen(first), what, 23);
	}
	text_efficiency(w, d);
	if (d->actual_ns > d->ideal_ns) {
		char first[64], gap[512], what[528];

		snprintf(first, sizeof(first), "    gap                %s  ",
			 DUR(d->actual_ns - d->ideal_ns));
		snprintf(what, sizeof(what), "(%s)", gs_report_gap_text(d, gap, sizeof(gap)));
		tw_wrap(w, first, strlen(first), what, 23);
	}
	if (p->name && p->makespan_ns > 0) {
		char first[96], what[384];
		size_t len;

		LINE_UNIT(w, p->makespan_ns, p->saving_ns);
		snprintf(first, sizeof(first), "    pipelined batches  %s  ", DUR(p->makespan_ns));
		/* A what-if slower than the run (its kernels ran side by side;
		 * the what-if runs one at a time) saves nothing: say so. */
		char phrase[224], marked[224];

		/* Led by the saving beyond the ideal; the rest is host/launch
		 * time, which the ideal removes already. */
		gs_report_whatif_text(p, p->batches < 2, marked, sizeof(marked));
		gs_dur_sentence(marked, false, phrase, sizeof(phrase));
		if (p->batches < 2)
			snprintf(what, sizeof(what), "(%s", phrase);
		else
			snprintf(what, sizeof(what), "(%zu batches; %s", p->batches, phrase);
		for (i = 0; i < p->n_preconditions && i < 4; i++) {
			len = strlen(what);
			snprintf(what + len, sizeof(what) - len, "%s%s", i ? ", " : "; needs ",
				 p->preconditions[i] ? p->preconditions[i] : "?");
		}
		len = strlen(what);
		snprintf(what + len, sizeof(what) - len, ")");
		tw_unit(w, NULL, 0);
		tw_wrap(w, first, strlen(first), what, 23);
	}
	if (d->replay.name) {
		char first[96], what[384], phrase[224], marked[224];

		snprintf(first, sizeof(first), "    CUDA Graph replay  %s  ",
			 DUR(d->replay.makespan_ns));
		gs_report_whatif_text(&d->replay, false, marked, sizeof(marked));
		gs_dur_sentence(marked, false, phrase, sizeof(phrase));
		snprintf(what, sizeof(what), "(%zu candidate%s, %s per node; %s)", d->n_cands,
			 d->n_cands == 1 ? "" : "s", DUR(w->r->graph_node_ns), phrase);
		tw_wrap(w, first, strlen(first), what, 23);
	}
	line[0] = '\0';
	for (c = 0; c < GS_BOUND_COUNT; c++) {
		size_t len = strlen(line);

		if (!d->bound_ops[c] || c == GS_BOUND_NONE)
			continue;
		snprintf(line + len, sizeof(line) - len, "%s%s %llu", sep, gs_constraint_name(c),
			 (unsigned long long)d->bound_ops[c]);
		sep = ", ";
	}
	if (line[0])
		tw_wrap(w, "    ops bound by       ", 23, line, 23);

	if (!d->n_critical)
		return;
	gs_out_printf(&w->o, "    critical path      %zu ops, %s; the longest:\n",
		      d->critical_count, DUR(d->critical_ns));
	/* The longest ops of the path, longest first, with their steps. */
	shown = d->n_critical < w->st.top ? d->n_critical : w->st.top;
	order = d->critical_rank;
	gs_out_puts(&w->o, "    ");
	tw_cell(w, "step", 7, true);
	gs_out_puts(&w->o, "  ");
	tw_cell(w, "op", 12, false);
	tw_cell(w, "stream", 8, true);
	gs_out_puts(&w->o, "  ");
	tw_cell(w, "kind", 6, false);
	tw_cell(w, "time", 12, true);
	gs_out_puts(&w->o, "  name\n");
	for (k = 0; k < shown; k++) {
		uint32_t op = d->critical[order[k]].op;

		gs_out_puts(&w->o, "    ");
		tw_cell(w, U64(d->critical_step[order[k]] + 1), 7, true);
		gs_out_puts(&w->o, "  ");
		tw_cell(w, U64(gs_report_op_id(t, op)), 12, false);
		tw_cell(w, U64(gs_report_op_stream(t, op)), 8, true);
		gs_out_puts(&w->o, "  ");
		tw_cell(w, op < n_ops ? gs_op_kind_name(ops[op].kind) : "?", 6, false);
		tw_cell(w, DUR(d->critical[order[k]].ns), 12, true);
		gs_out_puts(&w->o, "  ");
		tw_last(w, op_label(t, op, label, sizeof(label)), WIDTH - 55);
	}
	tw_cut(w, shown, d->n_critical, d->critical_count);
}

/* ---- waits --------------------------------------------------------------------- */

/* "label [s7]" of an op in `cols` columns. */
static void tw_op_cell(struct tw *w, uint32_t op, size_t cols, bool last)
{
	char tag[32], name[4 * WIDTH + 8], label[96];
	size_t tl, used;

	snprintf(tag, sizeof(tag), " [s%llu]", (unsigned long long)gs_report_op_stream(w->t, op));
	tl = strlen(tag);
	used = fit(name, sizeof(name), op_label(w->t, op, label, sizeof(label)),
		   cols > tl + 4 ? cols - tl : 4);
	gs_out_puts(&w->o, name);
	gs_out_puts(&w->o, tag);
	if (!last)
		tw_spaces(w, cols > used + tl ? cols - used - tl : 0);
}

static void text_waits(struct tw *w, const struct gs_report_device *d)
{
	const struct gs_report *r = w->r;
	size_t i, shown = d->n_waits < w->st.top ? d->n_waits : w->st.top;
	char title[160];

	if (!d->n_waits)
		return;
	snprintf(title, sizeof(title), "Waits (%zu, %s in total; consumer held back by producer)",
		 d->wait_count, DUR(d->wait_ns));
	tw_section(w, title);
	gs_out_puts(&w->o, "    ");
	tw_cell(w, "#", 4, true);
	tw_cell(w, "wait", 12, true);
	gs_out_puts(&w->o, "  ");
	tw_cell(w, "kind", 14, false);
	gs_out_puts(&w->o, "  ");
	tw_cell(w, "consumer [stream]", 31, false);
	gs_out_puts(&w->o, "    producer [stream]\n");
	for (i = 0; i < shown; i++) {
		const struct gs_wait *x = &r->waits[d->waits[i]];

		gs_out_puts(&w->o, "    ");
		tw_cell(w, U64(i + 1), 4, true);
		tw_cell(w, DUR(x->wait_ns), 12, true);
		gs_out_puts(&w->o, "  ");
		tw_cell(w, gs_edge_kind_name(x->kind), 14, false);
		gs_out_puts(&w->o, "  ");
		tw_op_cell(w, x->consumer, 31, false);
		gs_out_puts(&w->o, " <- ");
		tw_op_cell(w, x->producer, WIDTH - 4 - 4 - 12 - 2 - 14 - 2 - 31 - 4, true);
		gs_out_putc(&w->o, '\n');
	}
	tw_more(w, shown, d->n_waits, d->wait_count);
}

/* ---- missed overlap ------------------------------------------------------------ */

static void text_missed(struct tw *w, const struct gs_report_device *d)
{
	size_t i, shown = d->n_missed < w->st.top ? d->n_missed : w->st.top;
	char title[200];

	if (!d->n_missed)
		return;
	LINE_UNIT(w, d->missed_exposed_ns, d->missed_hideable_ns);
	if (d->n_possible)
		snprintf(title, sizeof(title),
			 "Missed overlap (%zu exposed cop%s, %llu possible: %s, up to "
			 "%s hideable)",
			 d->missed_count, d->missed_count == 1 ? "y" : "ies",
			 (unsigned long long)d->n_possible, DUR(d->missed_exposed_ns),
			 DUR(d->missed_hideable_ns));
	else
		snprintf(title, sizeof(title),
			 "Missed overlap (%zu exposed cop%s a kernel could have hidden: %s, %s "
			 "hideable)",
			 d->missed_count, d->missed_count == 1 ? "y" : "ies",
			 DUR(d->missed_exposed_ns), DUR(d->missed_hideable_ns));
	tw_unit(w, NULL, 0);
	tw_section(w, title);
	gs_out_puts(&w->o, "    ");
	tw_cell(w, "#", 4, true);
	tw_cell(w, "exposed", 12, true);
	tw_cell(w, "hideable", 12, true);
	gs_out_puts(&w->o, "  ");
	tw_cell(w, "copy [stream]", 27, false);
	gs_out_puts(&w->o, "  ");
	tw_cell(w, "bound by", 12, false);
	gs_out_puts(&w->o, "  missing\n");
	for (i = 0; i < shown; i++) {
		static const char *const short_name[3] = {"pinned", "indep", "resources"};
		const struct gs_missed_overlap *m = &d->missed[i];
		char miss[96] = "";
		const char *sep = "";
		unsigned bit;

		for (bit = 0; bit < 3; bit++) {
			size_t len = strlen(miss);

			if (!((m->missing | m->unknown) & (1u << bit)))
				continue;
			snprintf(miss + len, sizeof(miss) - len, "%s%s%s", sep, short_name[bit],
				 m->missing & (1u << bit) ? "" : "?");
			sep = ",";
		}
		gs_out_puts(&w->o, "    ");
		tw_cell(w, U64(i + 1), 4, true);
		LINE_UNIT(w, m->exposed_ns, m->hideable_ns);
		tw_cell(w, DUR(m->exposed_ns), 12, true);
		tw_cell(w, DUR(m->hideable_ns), 12, true);
		tw_unit(w, NULL, 0);
		gs_out_puts(&w->o, "  ");
		tw_op_cell(w, m->op, 27, false);
		gs_out_puts(&w->o, "  ");
		tw_cell(w, gs_constraint_name(m->bound_by), 12, false);
		gs_out_puts(&w->o, "  ");
		tw_last(w, miss[0] ? miss : "-", WIDTH - 4 - 4 - 12 - 12 - 2 - 27 - 2 - 12 - 2);
	}
	tw_more(w, shown, d->n_missed, d->missed_count);
	gs_out_puts(&w->o, "    missing: pinned = pinned_memory (the host side is pinned), indep = "
			   "independent (no\n    dependency path to the kernel), resources = "
			   "concurrent_resources (another stream,\n    a free copy engine)\n");
	if (d->n_possible)
		gs_out_puts(&w->o,
			    "    ?: unknown (indep?: only stream order joins the copy and the "
			    "kernel, no data\n    dependencies recorded; pinned?: memory kind "
			    "not recorded): a possible missed\n    overlap, its hideable time "
			    "an upper bound (up to)\n");
}

/* ---- idle ------------------------------------------------------------------------ */

static void text_sync(struct tw *w, const struct gs_report_device *d)
{
	size_t i, shown = d->n_sync_calls < w->st.top ? d->n_sync_calls : w->st.top;

	if (!d->n_sync_calls)
		return;
	tw_section(w, "Sync attribution (CUDA calls the host was in while the device sat idle)");
	for (i = 0; i < shown; i++) {
		const struct gs_host_call_time *h = &d->sync_calls[i];
		char calls[48];

		gs_out_puts(&w->o, "      ");
		tw_cell(w, gs_trace_string(w->t, h->name), 40, false);
		tw_cell(w, DUR(h->ns), 14, true);
		snprintf(calls, sizeof(calls), "  in %llu call%s", (unsigned long long)h->count,
			 h->count == 1 ? "" : "s");
		gs_out_puts(&w->o, calls);
		gs_out_putc(&w->o, '\n');
	}
	if (d->pageable_copies)
		gs_out_printf(&w->o,
			      "    %llu copies use pageable host memory (HtoD %llu, DtoH %llu): "
			      "each blocks its host thread\n",
			      (unsigned long long)d->pageable_copies,
			      (unsigned long long)d->pageable_by_dir[GS_COPY_HTOD],
			      (unsigned long long)d->pageable_by_dir[GS_COPY_DTOH]);
}

/* Host-bound idle by the launching thread's innermost host ranges. */
static void text_host_ranges(struct tw *w, const struct gs_breakdown *b)
{
	const struct gs_host_ranges *h = &b->host_ranges;
	size_t i, shown = h->n_ranges < w->st.top ? h->n_ranges : w->st.top;

	if (!h->n_ranges)
		return;
	gs_out_puts(&w->o, "    Host ranges the launching thread was in during host-bound idle "
			   "(innermost):\n");
	for (i = 0; i < shown; i++) {
		const struct gs_host_range_time *x = &h->ranges[i];
		char gaps[64];

		gs_out_puts(&w->o, "      ");
		tw_cell(w, gs_trace_string(w->t, x->name), 40, false);
		tw_cell(w, DUR(x->ns), 14, true);
		tw_cell(w, PCT(x->ns, b->host_bound_ns), 8, true);
		snprintf(gaps, sizeof(gaps), "  %-15s in %llu gap%s", gs_range_kind_name(x->kind),
			 (unsigned long long)x->gaps, x->gaps == 1 ? "" : "s");
		gs_out_puts(&w->o, gaps);
		gs_out_putc(&w->o, '\n');
	}
	if (shown < h->n_ranges)
		gs_out_printf(&w->o, "      (%zu more)\n", h->n_ranges - shown);
	gs_out_printf(&w->o, "      %-40s%14s%8s\n", "(outside any host range)", DUR(h->outside_ns),
		      PCT(h->outside_ns, b->host_bound_ns));
	if (h->forwarded_ns > 0)
		gs_out_printf(&w->o,
			      "      %s of it while the launching thread waited, credited to the "
			      "busy thread of its process\n",
			      DUR(h->forwarded_ns));
}

static void text_idle(struct tw *w, const struct gs_report_device *d)
{
	const struct gs_breakdown *b = &d->b;
	int64_t idle = b->total_ns[GS_CAT_IDLE];
	size_t i, shown;

	if (idle <= 0)
		return;
	tw_section(w, "Idle attribution (what held the next op back)");
	gs_out_printf(&w->o,
		      "    host-bound      %14s  %6s of idle  (the host had not launched it "
		      "yet)\n",
		      DUR(b->host_bound_ns), PCT(b->host_bound_ns, idle));
	gs_out_printf(&w->o, "    launch latency  %14s  %6s of idle  (launched, not started yet)\n",
		      DUR(b->launch_latency_ns), PCT(b->launch_latency_ns, idle));
	gs_out_printf(&w->o, "    unattributed    %14s  %6s of idle  (no launch call recorded)\n",
		      DUR(b->unattributed_ns), PCT(b->unattributed_ns, idle));
	text_host_ranges(w, b);
	if (!b->n_top_host_calls)
		return;
	gs_out_puts(&w->o, "    CUDA calls the launching thread was in during host-bound idle:\n");
	shown = b->n_top_host_calls < w->st.top ? b->n_top_host_calls : w->st.top;
	for (i = 0; i < shown; i++) {
		const struct gs_host_call_time *h = &b->top_host_calls[i];
		char gaps[48];

		gs_out_puts(&w->o, "      ");
		tw_cell(w, gs_trace_string(w->t, h->name), 40, false);
		tw_cell(w, DUR(h->ns), 14, true);
		snprintf(gaps, sizeof(gaps), "  in %llu gap%s", (unsigned long long)h->count,
			 h->count == 1 ? "" : "s");
		gs_out_puts(&w->o, gaps);
		gs_out_putc(&w->o, '\n');
	}
}

/* ---- CUDA Graph candidates ----------------------------------------------------- */

static void text_candidates(struct tw *w, const struct gs_report_device *d)
{
	size_t n_ops, i, k, shown = d->n_cands < w->st.top ? d->n_cands : w->st.top;
	const struct gs_op *ops = gs_trace_ops(w->t, &n_ops);

	if (!d->n_cands)
		return;
	tw_section(w, "CUDA Graph candidates (repeated kernel sequences; gaps: idle on the stream "
		      "between their kernels)");
	gs_out_puts(&w->o, "    ");
	tw_cell(w, "#", 4, true);
	tw_cell(w, "stream", 8, true);
	tw_cell(w, "kernels", 9, true);
	tw_cell(w, "repeats", 9, true);
	tw_cell(w, "gaps", 12, true);
	tw_cell(w, "mean gap", 12, true);
	gs_out_puts(&w->o, "  sequence\n");
	for (i = 0; i < shown; i++) {
		const struct gs_cudagraph_candidate *c = &d->cands[i];
		uint64_t gaps = (uint64_t)c->repetitions * (c->length > 1 ? c->length - 1 : 1);
		char seq[4 * WIDTH + 8];
		size_t len = 0;

		seq[0] = '\0';
		if (c->already_graph)
			len += (size_t)snprintf(seq, sizeof(seq), "(already a graph) ");
		for (k = 0; k < c->length && len + 8 < sizeof(seq); k++) {
			char name[64];

			fit(name, sizeof(name),
			    c->kernels[k] < n_ops ? gs_trace_string(w->t, ops[c->kernels[k]].name) :
						    "?",
			    14);
			len += (size_t)snprintf(seq + len, sizeof(seq) - len, "%s%s",
						k ? " > " : "", name);
			if (len >= sizeof(seq))
				len = sizeof(seq) - 1;
		}
		gs_out_puts(&w->o, "    ");
		tw_cell(w, U64(i + 1), 4, true);
		tw_cell(w,
			U64(c->length && c->kernels[0] < n_ops ?
				    gs_report_op_stream(w->t, c->kernels[0]) :
				    0),
			8, true);
		tw_cell(w, U64(c->length), 9, true);
		tw_cell(w, U64(c->repetitions), 9, true);
		LINE_UNIT(w, c->exposed_launch_ns);
		tw_cell(w, DUR(c->exposed_launch_ns), 12, true);
		tw_cell(w, DUR(gaps ? c->exposed_launch_ns / (int64_t)gaps : 0), 12, true);
		tw_unit(w, NULL, 0);
		gs_out_puts(&w->o, "  ");
		tw_last(w, seq, WIDTH - 4 - 4 - 8 - 9 - 9 - 12 - 12 - 2);
	}
	if (shown < d->n_cands)
		gs_out_printf(&w->o, "    ... %zu more (--top N, or --format json for all)\n",
			      d->n_cands - shown);
	if (d->cand_replay_done) {
		char line[1024];
		size_t len;

		/* Each alone: what replaying it from a graph saves. */
		len = (size_t)snprintf(
			line, sizeof(line),
			"each replayed from a graph (%s per node):", DUR(w->r->graph_node_ns));
		for (i = 0; i < shown && len < sizeof(line); i++) {
			const struct gs_what_if *p = &d->cand_replay[i];

			if (!d->cand_replay_done[i])
				continue;
			len += (size_t)snprintf(line + len, sizeof(line) - len,
						"%s #%zu saves %s (%s vs the ideal)", i ? "," : "",
						i + 1, DUR(p->saving_ns),
						DUR(p->saving_vs_ideal_ns));
		}
		tw_wrap(w, "    ", 4, line, 4);
	}
	gs_out_printf(&w->o,
		      "    a gap over %s is not launch overhead, nor is a communication kernel "
		      "(it waits for\n    other ranks): a graph would not remove either, so "
		      "both end a sequence\n",
		      DUR(GS_REPORT_LAUNCH_GAP_NS));
}

/* ---- streams and kernels ------------------------------------------------------- */

static void text_streams(struct tw *w, const struct gs_report_device *d)
{
	size_t i;
	bool pids = false;

	if (!d->n_streams)
		return;
	for (i = 1; i < d->n_streams; i++)
		if (d->streams[i].pid != d->streams[0].pid)
			pids = true;
	tw_section(w, "Streams");
	gs_out_puts(&w->o, "    ");
	tw_cell(w, "stream", 10, false);
	gs_out_puts(&w->o, "  ");
	tw_cell(w, "kind", 18, false);
	tw_cell(w, "prio", 6, true);
	tw_cell(w, "ops", 9, true);
	tw_cell(w, "kernel time", 14, true);
	tw_cell(w, "copy time", 14, true);
	tw_cell(w, "busy", 7, true);
	gs_out_puts(&w->o, pids ? "  pid\n" : "\n");
	for (i = 0; i < d->n_streams; i++) {
		const struct gs_report_stream *s = &d->streams[i];
		char prio[16];

		snprintf(prio, sizeof(prio), "%d", s->priority);
		gs_out_puts(&w->o, "    ");
		tw_cell(w, U64(s->stream_id), 10, false);
		gs_out_puts(&w->o, "  ");
		tw_cell(w, gs_stream_kind_name(s->kind), 18, false);
		tw_cell(w, prio, 6, true);
		tw_cell(w, U64(s->ops), 9, true);
		LINE_UNIT(w, s->kernel_ns, s->copy_ns);
		tw_cell(w, DUR(s->kernel_ns), 14, true);
		tw_cell(w, DUR(s->copy_ns), 14, true);
		tw_unit(w, NULL, 0);
		tw_cell(w, PCT(s->busy_ns, d->b.window_ns), 7, true);
		if (pids)
			gs_out_printf(&w->o, "  %lld", (long long)s->pid);
		gs_out_putc(&w->o, '\n');
	}
}

/* The kernel table: per name its total, share and count, then mean, p95
 * and max in one unit of their own (a name's total can be seconds where
 * its kernels take microseconds); min, median and std are in JSON and
 * HTML. */
static void text_kernels(struct tw *w, const struct gs_report_device *d)
{
	size_t i, shown = d->n_kernels < w->st.top ? d->n_kernels : w->st.top;
	int64_t all = 0;
	char title[96];

	if (!d->n_kernels)
		return;
	for (i = 0; i < d->n_kernels; i++)
		all += d->kernels[i].ns;
	snprintf(title, sizeof(title), "Kernels by time (%zu name%s, %s)", d->n_kernels,
		 d->n_kernels == 1 ? "" : "s", DUR(all));
	tw_section(w, title);
	gs_out_puts(&w->o, "    ");
	tw_cell(w, "#", 4, true);
	tw_cell(w, "time", 11, true);
	tw_cell(w, "share", 7, true);
	tw_cell(w, "count", 8, true);
	tw_cell(w, "mean", 11, true);
	tw_cell(w, "p95", 11, true);
	tw_cell(w, "max", 11, true);
	gs_out_puts(&w->o, "  class         name\n");
	for (i = 0; i < shown; i++) {
		const struct gs_report_kernel *k = &d->kernels[i];

		gs_out_puts(&w->o, "    ");
		tw_cell(w, U64(i + 1), 4, true);
		LINE_UNIT(w, k->ns);
		tw_cell(w, DUR(k->ns), 11, true);
		tw_cell(w, PCT(k->ns, all), 7, true);
		tw_cell(w, U64(k->count), 8, true);
		LINE_UNIT(w, k->mean_ns, k->p95_ns, k->max_ns);
		tw_cell(w, DUR(k->mean_ns), 11, true);
		tw_cell(w, DUR(k->p95_ns), 11, true);
		tw_cell(w, DUR(k->max_ns), 11, true);
		tw_unit(w, NULL, 0);
		gs_out_puts(&w->o, "  ");
		tw_cell(w, gs_kernel_class_name(k->cls), 14, false);
		tw_last(w, gs_trace_string(w->t, k->name),
			WIDTH - 4 - 4 - 11 - 7 - 8 - 3 * 11 - 2 - 14);
	}
	if (shown < d->n_kernels)
		gs_out_printf(&w->o, "    ... %zu more (--top N, or --format json for all)\n",
			      d->n_kernels - shown);
}

/* ---- steps ------------------------------------------------------------------------- */

/* Every step of the trace on this device with figures (at most
 * GS_REPORT_STEP_FIGURES, report.c's bound, all of which the table shows):
 * GPU time, breakdown, efficiency and the largest cause of its gap; `*`
 * marks the steps analysed. */
static void text_steps(struct tw *w, const struct gs_report_device *d)
{
	const struct gs_steps *s = &w->r->steps;
	int64_t *times, median = 0;
	size_t n = 0;

	if (!s->n || !d->step_stats)
		return;
	times = malloc(s->n * sizeof(*times));
	if (!times)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (s->steps[i].selected && s->steps[i].gpu_end_ns > s->steps[i].gpu_start_ns)
			times[n++] = s->steps[i].gpu_end_ns - s->steps[i].gpu_start_ns;
	if (n) {
		gs_sort_by_i64(times, n, sizeof(*times));
		median = times[(n - 1) / 2];
	}
	tw_section(w,
		   "Steps (GPU window of each; * analysed; ! over 1.2x or under 0.8x the median)");
	gs_out_puts(&w->o,
		    "      step      GPU time  kernel    copy    sync    idle  effic.  largest "
		    "cause of the gap\n");
	for (size_t i = 0; i < s->n && i < d->n_step_figures; i++) {
		const struct gs_report_step_stat *x = &d->step_stats[i];
		const struct gs_step *st = &s->steps[i];
		/* window * 5 > median * 6 or < median * 4, without multiplying
		 * (times near 2^62 ns overflowed): |window - median| > median / 5. */
		int64_t off = x->window_ns - median;
		bool odd = x->has && st->selected && median > 0 && x->window_ns >= 0 &&
			   (off > median / 5 || -off > median / 5);
		char eff[16];

		gs_out_printf(&w->o, "    %c%c", st->selected ? '*' : ' ', odd ? '!' : ' ');
		tw_cell(w, U64(st->number), 6, true);
		if (!x->has) {
			gs_out_printf(&w->o, "  %s\n",
				      st->partial ? "(partial: no GPU work here)" :
						    "(no GPU work here)");
			continue;
		}
		tw_cell(w, DUR(x->window_ns), 14, true);
		for (unsigned c = 0; c < GS_CAT_COUNT; c++)
			tw_cell(w, PCT(x->total_ns[c], x->window_ns), 8, true);
		snprintf(eff, sizeof(eff), isfinite(x->efficiency) ? "%.2f" : "n/a", x->efficiency);
		tw_cell(w, eff, 8, true);
		gs_out_puts(&w->o, "  ");
		if (x->gap_cause < GS_GAP_CAUSE_COUNT)
			gs_out_printf(&w->o, "%s %s%s\n", gs_gap_cause_name(x->gap_cause),
				      DUR(x->gap_cause_ns), st->partial ? " (partial)" : "");
		else
			gs_out_printf(&w->o, "-%s\n", st->partial ? " (partial)" : "");
	}
	if (s->n > d->n_step_figures)
		gs_out_printf(
			&w->o,
			"    figures for the first %zu of %zu steps only (--step A:B for others; "
			"JSON: every step's windows)\n",
			d->n_step_figures, s->n);
	if (n)
		gs_out_printf(&w->o, "    analysed steps' GPU time: min %s, median %s, max %s\n",
			      DUR(times[0]), DUR(median), DUR(times[n - 1]));
	free(times);
}

/* ---- a device ---------------------------------------------------------------------- */

static void text_device(struct tw *w, const struct gs_report_device *d)
{
	char title[4 * WIDTH];
	const char *sep = " (";
	unsigned k;

	gs_report_device_title(w->r, d, title, sizeof(title));
	gs_out_putc(&w->o, '\n');
	tw_rule(w, title);
	gs_out_printf(&w->o, "  window   %s%s\n",
		      gs_report_window_text(w->t, d, (char[160]){0}, 160),
		      d->default_window       ? " (first op start to last op end)" :
		      w->r->window_from_steps ? " (the steps chosen)" :
						" (--window)");
	gs_out_printf(&w->o, "  ops      %llu", (unsigned long long)d->ops);
	for (k = 0; k < GS_OP_KIND_COUNT; k++) {
		if (!d->op_kinds[k])
			continue;
		gs_out_printf(&w->o, "%s%s %llu", sep, gs_op_kind_name(k),
			      (unsigned long long)d->op_kinds[k]);
		sep = ", ";
	}
	gs_out_printf(&w->o, "%s on %zu stream%s\n", sep[0] == ',' ? ")" : "", d->n_streams,
		      d->n_streams == 1 ? "" : "s");
	text_breakdown(w, d);
	text_steps(w, d);
	text_findings(w, d);
	text_schedule(w, d);
	text_waits(w, d);
	text_missed(w, d);
	text_idle(w, d);
	text_sync(w, d);
	text_candidates(w, d);
	text_streams(w, d);
	text_kernels(w, d);
	gs_measures_write_text(&w->o, w->r, d, &w->st);
	gs_operators_write_text(&w->o, w->r, d, &w->st);
}

/* The head of a job's report: its line, inputs, warnings, the ranks'
 * notes (from their reports, or from `sums` when they are elsewhere) and
 * the job analysis. */
static void text_job_head(struct tw *w, const struct gs_report *r, size_t n_ranks, size_t gpus,
			  size_t ops, const struct gs_js_rank *const *sums)
{
	static const char *const labels[3] = {"caution", "warning", "note"};
	const struct gs_job *j = r->job;
	size_t i;
	char who[64];

	tw_on(w, T_BOLD);
	gs_out_printf(&w->o, "gpuscope analyze");
	tw_off(w);
	gs_out_printf(&w->o, ": %zu input%s (%s), %zu ranks, %zu GPU%s with ops, %zu ops\n",
		      r->n_inputs, r->n_inputs == 1 ? "" : "s",
		      r->format && *r->format ? r->format : "?", j->n_ranks, gpus,
		      gpus == 1 ? "" : "s", ops);
	/* A thousand ranks: the first inputs, and how many more. */
	for (i = 0; i < r->n_inputs && i < 4; i++)
		tw_note(w, "input", r->inputs[i]);
	if (r->n_inputs > 4) {
		snprintf(who, sizeof(who), "... and %zu more", r->n_inputs - 4);
		tw_note(w, "input", who);
	}
	for (i = 0; i < j->n_warnings; i++)
		tw_note(w, "warning", j->warnings[i]);
	{
		struct job_notes *jn = calloc(1, sizeof(*jn));

		if (jn) {
			jn->sink.note = note_gather;
			for (i = 0; i < n_ranks; i++) {
				if (!sums) {
					jn->rank = r->ranks[i]->rank;
					text_notes(&jn->sink, r->ranks[i]);
					continue;
				}
				jn->rank = sums[i]->rank;
				for (size_t k = 0; k < sums[i]->n_notes; k++)
					note_gather(&jn->sink, labels[sums[i]->notes[k].label % 3],
						    gs_js_str(sums[i], sums[i]->notes[k].text));
			}
			job_notes_print(w, jn, n_ranks);
			free(jn);
		}
	}
	gs_job_analysis_write_text(&w->o, r, &w->st);
}

/* The end of a job's report: the ranks whose sections were left out. */
static void text_job_tail(struct tw *w, size_t gpus, size_t n_ranks, size_t shown)
{
	if (!gpus)
		gs_out_puts(&w->o, "\nno GPU ops in the job: nothing to analyze (host-only "
				   "traces?)\n");
	if (shown < n_ranks)
		gs_out_printf(&w->o,
			      "\n%zu of %zu ranks' sections not shown (the job's outliers' only): "
			      "--ranks all shows\nevery one, --rank R one rank's\n",
			      n_ranks - shown, n_ranks);
}

/*
 * The ranks whose sections a job's report shows (job_sum.h): a slot per
 * rank in *shown, NULL without a job analysis (every rank is shown).
 */
static gs_status job_shown(const struct gs_report *r, const struct gs_report_style *st,
			   size_t n_ranks, bool **shown, size_t *n_shown)
{
	gs_status rc;

	*shown = NULL;
	*n_shown = n_ranks;
	if (!r->ja)
		return GS_OK;
	*shown = calloc(n_ranks ? n_ranks : 1, sizeof(**shown));
	if (!*shown)
		return gs_nomem();
	rc = gs_job_analysis_shown_ranks(r->ja, st, *shown, n_shown);
	if (rc != GS_OK) {
		free(*shown);
		*shown = NULL;
	}
	return rc;
}

/* A job of two or more ranks: the job first, then its ranks' GPUs (the
 * outliers' when they are many). */
static gs_status text_job(struct tw *w, const struct gs_report *r)
{
	size_t ops = 0, gpus = 0, i, k, n_shown;
	bool *shown;
	gs_status rc;

	for (i = 0; i < r->n_ranks; i++) {
		size_t n;

		gs_trace_ops(r->ranks[i]->t, &n);
		ops += n;
		gpus += r->ranks[i]->n_dev;
	}
	rc = job_shown(r, &w->st, r->n_ranks, &shown, &n_shown);
	if (rc != GS_OK)
		return rc;
	text_job_head(w, r, r->n_ranks, gpus, ops, NULL);
	for (i = 0; i < r->n_ranks; i++) {
		if (shown && !shown[i])
			continue;
		w->r = r->ranks[i];
		w->t = r->ranks[i]->t;
		for (k = 0; k < w->r->n_dev; k++)
			text_device(w, &w->r->dev[k]);
	}
	w->r = r;
	w->t = NULL;
	text_job_tail(w, gpus, r->n_ranks, n_shown);
	free(shown);
	return GS_OK;
}

gs_status gs_report_write_text(FILE *f, const struct gs_report *r,
			       const struct gs_report_style *style)
{
	struct tw w;
	size_t i;

	if (!f || !r) {
		gs_error_append("gs_report_write_text: no output or no report");
		return GS_ERR_INVALID;
	}
	/* A job of one rank reads as that rank's report. */
	if (r->job && r->n_ranks == 1 && !r->ranks[0]->in_job)
		return gs_report_write_text(f, r->ranks[0], style);
	memset(&w, 0, sizeof(w));
	gs_out_init(&w.o, f);
	w.r = r;
	w.t = r->t;
	w.st = gs_report_style_of(style);
	if (r->job) {
		gs_status rc = text_job(&w, r);

		if (rc != GS_OK) {
			gs_out_finish(&w.o);
			return rc;
		}
		return gs_out_finish(&w.o);
	}
	text_header(&w);
	if (!r->n_dev)
		gs_out_puts(&w.o, "\nno GPU ops in the trace: nothing to analyze (a host-only "
				  "trace?)\n");
	for (i = 0; i < r->n_dev; i++)
		text_device(&w, &r->dev[i]);
	return gs_out_finish(&w.o);
}

/* ---- the parts of a job's text report (gpuscope-mpi) ---- */

struct notes_cb {
	struct note_sink sink;
	void (*fn)(void *ctx, const char *label, const char *text);
	void *ctx;
};

static void note_cb(struct note_sink *ns, const char *label, const char *text)
{
	struct notes_cb *c = (struct notes_cb *)ns;

	c->fn(c->ctx, label, text);
}

void gs_report_text_notes(const struct gs_report *r,
			  void (*fn)(void *ctx, const char *label, const char *text), void *ctx)
{
	struct notes_cb c = {.sink = {.note = note_cb}, .fn = fn, .ctx = ctx};

	text_notes(&c.sink, r);
}

gs_status gs_report_text_job_parts(FILE *f, const struct gs_report *shell,
				   const struct gs_report_style *style,
				   gs_status (*part)(void *ctx, size_t i, struct gs_out *o),
				   void *ctx)
{
	struct tw w;
	size_t n_sums, ops = 0, gpus = 0, n_shown;
	const struct gs_js_rank *const *sums = gs_job_analysis_ranks(shell->ja, &n_sums);
	gs_status st = GS_OK;
	bool *shown;

	memset(&w, 0, sizeof(w));
	gs_out_init(&w.o, f);
	w.r = shell;
	w.st = gs_report_style_of(style);
	for (size_t i = 0; i < n_sums; i++) {
		ops += sums[i]->ops;
		gpus += sums[i]->n_gpus;
	}
	st = job_shown(shell, &w.st, n_sums, &shown, &n_shown);
	if (st != GS_OK)
		return st;
	text_job_head(&w, shell, n_sums, gpus, ops, sums);
	for (size_t i = 0; i < n_sums && st == GS_OK; i++)
		if (!shown || shown[i])
			st = part(ctx, i, &w.o);
	text_job_tail(&w, gpus, n_sums, n_shown);
	free(shown);
	if (st != GS_OK) {
		gs_out_finish(&w.o);
		return st;
	}
	return gs_out_finish(&w.o);
}

gs_status gs_report_text_rank_part(FILE *f, const struct gs_report *rank,
				   const struct gs_report_style *style)
{
	struct tw w;

	memset(&w, 0, sizeof(w));
	gs_out_init(&w.o, f);
	w.r = rank;
	w.t = rank->t;
	w.st = gs_report_style_of(style);
	for (size_t k = 0; k < rank->n_dev; k++)
		text_device(&w, &rank->dev[k]);
	return gs_out_finish(&w.o);
}
