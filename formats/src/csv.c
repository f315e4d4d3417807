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

#include "export_out.h"

#define NONE GS_NO_INDEX

static void col_u64(struct gs_wbuf *w, uint64_t v)
{
	gs_wbuf_putc(w, ',');
	gs_wbuf_u64(w, v);
}

static void col_i64(struct gs_wbuf *w, int64_t v)
{
	gs_wbuf_putc(w, ',');
	gs_wbuf_i64(w, v);
}

static void col_str(struct gs_wbuf *w, const char *s)
{
	gs_wbuf_putc(w, ',');
	gs_wbuf_csv_str(w, s);
}

static void col_flags(struct gs_wbuf *w, uint8_t flags)
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

	gs_wbuf_putc(w, ',');
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (flags & names[i].bit) {
			gs_wbuf_puts(w, sep);
			gs_wbuf_puts(w, names[i].name);
			sep = "|";
		}
	}
}

gs_status gs_export_csv_ops(FILE *out, const struct gs_trace *t, const struct gs_export_extras *x,
			    const struct gs_export_options *o)
{
	size_t n_ops, n_streams, n_api, i;
	const struct gs_op *ops;
	const struct gs_stream *streams;
	const struct gs_api_call *api;
	bool ideal = o && o->with_ideal;
	struct gs_wbuf w;
	uint32_t *launch = NULL;
	gs_status rc;

	if (!out || !t) {
		gs_error_append("gs_export_csv_ops: no %s", out ? "trace" : "output");
		return GS_ERR_INVALID;
	}
	if (ideal && (!x || !x->ideal_in || !x->ideal_start)) {
		gs_error_append("csv export: the ideal schedule was asked for but not given");
		return GS_ERR_INVALID;
	}
	ops = gs_trace_ops(t, &n_ops);
	streams = gs_trace_streams(t, &n_streams);
	api = gs_trace_api_calls(t, &n_api);
	rc = gs_export_launches(t, x, &launch);
	if (!rc)
		rc = gs_wbuf_init(&w, out, o && o->gzip, o ? o->compression_level : 0);
	if (rc) {
		free(launch);
		return rc;
	}
	gs_wbuf_puts(&w, "index,kind,device,pid,context,stream,stream_kind,stream_priority,"
			 "start_ns,end_ns,dur_ns,correlation,name,grid_x,grid_y,grid_z,"
			 "block_x,block_y,block_z,shared_mem,registers,bytes,copy_kind,src_mem,"
			 "dst_mem,flags,graph_id,graph_node,launch_api,launch_pid,launch_tid");
	if (ideal)
		gs_wbuf_puts(&w, ",ideal_start_ns,delay_ns,bound_by");
	gs_wbuf_putc(&w, '\n');
	for (i = 0; i < n_ops; i++) {
		const struct gs_op *op = &ops[i];
		static const struct gs_stream none = {0};
		const struct gs_stream *st = op->stream < n_streams ? &streams[op->stream] : &none;

		gs_wbuf_u64(&w, i);
		col_str(&w, gs_op_kind_name(op->kind));
		col_u64(&w, st->device);
		col_i64(&w, st->pid);
		col_u64(&w, st->context);
		col_u64(&w, st->stream_id);
		col_str(&w, gs_stream_kind_name(st->kind));
		col_i64(&w, st->priority);
		col_i64(&w, op->start_ns);
		col_i64(&w, op->end_ns);
		col_i64(&w, op->end_ns - op->start_ns);
		col_u64(&w, op->correlation);
		col_str(&w, gs_trace_string(t, op->name));
		for (int k = 0; k < 3; k++)
			col_u64(&w, op->grid[k]);
		for (int k = 0; k < 3; k++)
			col_u64(&w, op->block[k]);
		col_u64(&w, op->shared_mem);
		col_u64(&w, op->registers);
		col_u64(&w, op->bytes);
		col_str(&w, gs_copy_kind_name(op->copy_kind));
		col_str(&w, gs_mem_kind_name(op->src_mem));
		col_str(&w, gs_mem_kind_name(op->dst_mem));
		col_flags(&w, op->flags);
		col_u64(&w, op->graph_id);
		col_u64(&w, op->graph_node);
		if (launch[i] != NONE) {
			col_str(&w, gs_trace_string(t, api[launch[i]].name));
			col_i64(&w, api[launch[i]].pid);
			col_i64(&w, api[launch[i]].tid);
		} else {
			gs_wbuf_puts(&w, ",,,");
		}
		if (ideal) {
			if (x->ideal_in[i]) {
				col_i64(&w, x->ideal_start[i]);
				col_i64(&w, op->start_ns - x->ideal_start[i]);
				if (x->ideal_bound && x->bound_names &&
				    x->ideal_bound[i] < x->n_bound_names &&
				    x->bound_names[x->ideal_bound[i]])
					col_str(&w, x->bound_names[x->ideal_bound[i]]);
				else
					gs_wbuf_putc(&w, ',');
			} else {
				gs_wbuf_puts(&w, ",,,");
			}
		}
		gs_wbuf_putc(&w, '\n');
	}
	free(launch);
	return gs_wbuf_finish(&w);
}

gs_status gs_export_csv_segments(FILE *out, const struct gs_trace *t,
				 const struct gs_export_extras *x,
				 const struct gs_export_options *o)
{
	struct gs_wbuf w;
	gs_status rc;

	if (!out || !t) {
		gs_error_append("gs_export_csv_segments: no %s", out ? "trace" : "output");
		return GS_ERR_INVALID;
	}
	rc = gs_wbuf_init(&w, out, o && o->gzip, o ? o->compression_level : 0);
	if (rc)
		return rc;
	gs_wbuf_puts(&w, "device,start_ns,end_ns,dur_ns,category\n");
	for (size_t b = 0; x && b < x->n_breakdowns; b++) {
		const struct gs_export_breakdown *bd = &x->breakdowns[b];

		for (size_t i = 0; i < bd->n_segments; i++) {
			const struct gs_export_segment *g = &bd->segments[i];

			gs_wbuf_u64(&w, bd->device);
			col_i64(&w, g->start_ns);
			col_i64(&w, g->end_ns);
			col_i64(&w, g->end_ns - g->start_ns);
			if (x->category_names && g->category < x->n_categories &&
			    x->category_names[g->category])
				col_str(&w, x->category_names[g->category]);
			else
				col_u64(&w, g->category);
			gs_wbuf_putc(&w, '\n');
		}
	}
	return gs_wbuf_finish(&w);
}
