/* SPDX-License-Identifier: MIT */
/*
 * CSV export (gpuscope/export.h): ops with every model field, and the
 * breakdown segments. One row per record, streamed; integers exact; names
 * quoted per RFC 4180 when they hold a comma, a quote, CR or LF, and a
 * leading ' when they would start a spreadsheet formula (=, +, -, @).
 */
#include <stdlib.h>
#include <string.h>

#include <gpuscope/export.h>
#include <gpuscope/names.h>

#include "export_base.h"

#define NONE GS_NO_INDEX

static void col_u64(struct gs_outbuf *w, uint64_t v)
{
	gs_outbuf_putc(w, ',');
	gs_outbuf_u64(w, v);
}

static void col_i64(struct gs_outbuf *w, int64_t v)
{
	gs_outbuf_putc(w, ',');
	gs_outbuf_i64(w, v);
}

static void col_str(struct gs_outbuf *w, const char *s)
{
	gs_outbuf_putc(w, ',');
	gs_export_csv_str(w, s);
}

static void col_flags(struct gs_outbuf *w, uint8_t flags)
{
	static const struct {
		uint8_t bit;
		const char *name;
	} names[] = {
		{GS_OPF_ASYNC, "async"},
		{GS_OPF_GRAPH, "graph"},
		{GS_OPF_DEVICE_LAUNCHED, "device_launched"},
	};
	const char *sep = "";

	gs_outbuf_putc(w, ',');
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (flags & names[i].bit) {
			gs_outbuf_puts(w, sep);
			gs_outbuf_puts(w, names[i].name);
			sep = "|";
		}
	}
}

static void ops_header(struct gs_outbuf *w, bool ideal, bool rank)
{
	if (rank)
		gs_outbuf_puts(w, "rank,");
	gs_outbuf_puts(w, "index,kind,device,pid,context,stream,stream_kind,stream_priority,"
			  "start_ns,end_ns,dur_ns,correlation,name,grid_x,grid_y,grid_z,"
			  "block_x,block_y,block_z,shared_mem,registers,bytes,copy_kind,src_mem,"
			  "dst_mem,flags,graph_id,graph_node,launch_api,launch_pid,launch_tid");
	if (ideal)
		gs_outbuf_puts(w, ",ideal_start_ns,delay_ns,bound_by");
	gs_outbuf_putc(w, '\n');
}

static gs_status check_ops(const char *what, FILE *out, const struct gs_trace *t,
			   const struct gs_export_extras *x, bool ideal)
{
	if (!out || !t) {
		gs_error_append("%s: no %s", what, out ? "trace" : "output");
		return GS_ERR_INVALID;
	}
	if (ideal && (!x || !x->ideal_in || !x->ideal_start)) {
		gs_error_append("csv export: the ideal schedule was asked for but not given");
		return GS_ERR_INVALID;
	}
	return GS_OK;
}

/* Whether rows of device `dev` are written (gs_export_options.has_device). */
static bool device_kept(const struct gs_export_options *o, uint32_t dev)
{
	return !o || !o->has_device || o->device == dev;
}

/* The op rows of one trace; `rank` (a job's) first when not NULL. An op's
 * index is its place in the trace, also when a device is left out. */
static gs_status ops_rows(struct gs_outbuf *w, const struct gs_trace *t,
			  const struct gs_export_extras *x, const struct gs_export_options *o,
			  const uint32_t *rank)
{
	bool ideal = o && o->with_ideal;
	size_t n_ops, n_streams, n_api, i;
	const struct gs_op *ops = gs_trace_ops(t, &n_ops);
	const struct gs_stream *streams = gs_trace_streams(t, &n_streams);
	const struct gs_api_call *api = gs_trace_api_calls(t, &n_api);
	uint32_t *launch = NULL;
	gs_status rc = gs_export_launches(t, x, &launch);

	if (rc)
		return rc;
	for (i = 0; i < n_ops; i++) {
		const struct gs_op *op = &ops[i];
		static const struct gs_stream none = {0};
		static const struct gs_launch_cfg no_launch = {0};
		const struct gs_stream *st = op->stream < n_streams ? &streams[op->stream] : &none;
		const struct gs_launch_cfg *lc;

		if (!device_kept(o, st->device))
			continue;
		if (rank) {
			gs_outbuf_u64(w, *rank);
			gs_outbuf_putc(w, ',');
		}
		gs_outbuf_u64(w, i);
		col_str(w, gs_op_kind_name(op->kind));
		col_u64(w, st->device);
		col_i64(w, st->pid);
		col_u64(w, st->context);
		col_u64(w, st->stream_id);
		col_str(w, gs_stream_kind_name(st->kind));
		col_i64(w, st->priority);
		col_i64(w, op->start_ns);
		col_i64(w, op->end_ns);
		col_i64(w, op->end_ns - op->start_ns);
		col_u64(w, op->correlation);
		col_str(w, gs_trace_string(t, op->name));
		lc = gs_trace_op_launch_cfg(t, op);
		if (!lc)
			lc = &no_launch;
		for (int k = 0; k < 3; k++)
			col_u64(w, lc->grid[k]);
		for (int k = 0; k < 3; k++)
			col_u64(w, lc->block[k]);
		col_u64(w, lc->shared_mem);
		col_u64(w, lc->registers);
		col_u64(w, op->bytes);
		col_str(w, gs_copy_kind_name(op->copy_kind));
		col_str(w, gs_mem_kind_name(op->src_mem));
		col_str(w, gs_mem_kind_name(op->dst_mem));
		col_flags(w, op->flags);
		col_u64(w, lc->graph_id);
		col_u64(w, op->graph_node);
		if (launch[i] != NONE) {
			col_str(w, gs_trace_string(t, api[launch[i]].name));
			col_i64(w, api[launch[i]].pid);
			col_i64(w, api[launch[i]].tid);
		} else {
			gs_outbuf_puts(w, ",,,");
		}
		if (ideal) {
			if (x->ideal_in[i]) {
				col_i64(w, x->ideal_start[i]);
				col_i64(w, op->start_ns - x->ideal_start[i]);
				if (x->ideal_bound && x->bound_names &&
				    x->ideal_bound[i] < x->n_bound_names &&
				    x->bound_names[x->ideal_bound[i]])
					col_str(w, x->bound_names[x->ideal_bound[i]]);
				else
					gs_outbuf_putc(w, ',');
			} else {
				gs_outbuf_puts(w, ",,,");
			}
		}
		gs_outbuf_putc(w, '\n');
	}
	free(launch);
	return GS_OK;
}

gs_status gs_export_csv_ops(FILE *out, const struct gs_trace *t, const struct gs_export_extras *x,
			    const struct gs_export_options *o)
{
	bool ideal = o && o->with_ideal;
	struct gs_outbuf w;
	gs_status rc = check_ops("gs_export_csv_ops", out, t, x, ideal);

	if (!rc)
		rc = gs_export_out_open(&w, out, o && o->gzip, o ? o->compression_level : 0);
	if (rc)
		return rc;
	ops_header(&w, ideal, false);
	rc = ops_rows(&w, t, x, o, NULL);
	if (rc) {
		gs_export_out_discard(&w);
		return rc;
	}
	return gs_export_out_finish(&w);
}

static void segment_rows(struct gs_outbuf *w, const struct gs_export_extras *x,
			 const struct gs_export_options *o, const uint32_t *rank)
{
	for (size_t b = 0; x && b < x->n_breakdowns; b++) {
		const struct gs_export_breakdown *bd = &x->breakdowns[b];

		if (!device_kept(o, bd->device))
			continue;
		for (size_t i = 0; i < bd->n_segments; i++) {
			const struct gs_export_segment *g = &bd->segments[i];

			if (rank) {
				gs_outbuf_u64(w, *rank);
				gs_outbuf_putc(w, ',');
			}
			gs_outbuf_u64(w, bd->device);
			col_i64(w, g->start_ns);
			col_i64(w, g->end_ns);
			col_i64(w, g->end_ns - g->start_ns);
			if (x->category_names && g->category < x->n_categories &&
			    x->category_names[g->category])
				col_str(w, x->category_names[g->category]);
			else
				col_u64(w, g->category);
			gs_outbuf_putc(w, '\n');
		}
	}
}

gs_status gs_export_csv_segments(FILE *out, const struct gs_trace *t,
				 const struct gs_export_extras *x,
				 const struct gs_export_options *o)
{
	struct gs_outbuf w;
	gs_status rc;

	if (!out || !t) {
		gs_error_append("gs_export_csv_segments: no %s", out ? "trace" : "output");
		return GS_ERR_INVALID;
	}
	rc = gs_export_out_open(&w, out, o && o->gzip, o ? o->compression_level : 0);
	if (rc)
		return rc;
	gs_outbuf_puts(&w, "device,start_ns,end_ns,dur_ns,category\n");
	segment_rows(&w, x, o, NULL);
	return gs_export_out_finish(&w);
}

static gs_status check_ranks(const char *what, FILE *out, const struct gs_export_rank *ranks,
			     size_t n)
{
	if (!out || !ranks || !n) {
		gs_error_append("%s: no %s", what, out ? "rank" : "output");
		return GS_ERR_INVALID;
	}
	for (size_t r = 0; r < n; r++) {
		if (!ranks[r].trace) {
			gs_error_append("%s: rank %zu has no trace", what, r);
			return GS_ERR_INVALID;
		}
	}
	return GS_OK;
}

gs_status gs_export_csv_ops_job(FILE *out, const struct gs_export_rank *ranks, size_t n,
				const struct gs_export_options *o)
{
	bool ideal = o && o->with_ideal;
	struct gs_outbuf w;
	gs_status rc = check_ranks("gs_export_csv_ops_job", out, ranks, n);

	if (rc)
		return rc;
	if (n == 1)
		return gs_export_csv_ops(out, ranks[0].trace, ranks[0].extras, o);
	for (size_t r = 0; r < n && !rc; r++)
		rc = check_ops("gs_export_csv_ops_job", out, ranks[r].trace, ranks[r].extras,
			       ideal);
	if (!rc)
		rc = gs_export_out_open(&w, out, o && o->gzip, o ? o->compression_level : 0);
	if (rc)
		return rc;
	ops_header(&w, ideal, true);
	for (size_t r = 0; r < n && !rc; r++)
		rc = ops_rows(&w, ranks[r].trace, ranks[r].extras, o, &ranks[r].rank);
	if (rc) {
		gs_export_out_discard(&w);
		return rc;
	}
	return gs_export_out_finish(&w);
}

gs_status gs_export_csv_segments_job(FILE *out, const struct gs_export_rank *ranks, size_t n,
				     const struct gs_export_options *o)
{
	struct gs_outbuf w;
	gs_status rc = check_ranks("gs_export_csv_segments_job", out, ranks, n);

	if (rc)
		return rc;
	if (n == 1)
		return gs_export_csv_segments(out, ranks[0].trace, ranks[0].extras, o);
	rc = gs_export_out_open(&w, out, o && o->gzip, o ? o->compression_level : 0);
	if (rc)
		return rc;
	gs_outbuf_puts(&w, "rank,device,start_ns,end_ns,dur_ns,category\n");
	for (size_t r = 0; r < n; r++)
		segment_rows(&w, ranks[r].extras, o, &ranks[r].rank);
	return gs_export_out_finish(&w);
}
