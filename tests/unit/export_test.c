/* SPDX-License-Identifier: MIT */
/* The helpers of export_test.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "export_test.h"
#include "tb_build.h"

struct gs_trace *build_basic(void)
{
	struct tb b = tb_new();
	uint32_t s7;

	tb_process(&b, 100, "python train.py", "12040");
	tb_device(&b, 0, "Test GPU");
	s7 = tb_stream(&b, 0, 0, 7);
	tb_range(&b, 100, 100, "step", T0, T0 + 100000);
	tb_range(&b, 100, 100, "late", T0 + 90000, T0 + 150000);
	tb_call(&b, 100, 100, "cudaLaunchKernel", T0 + 1000, T0 + 3000, 11);
	tb_call(&b, 100, 100, "cudaLaunchKernel", T0 + 4000, T0 + 6000, 12);
	tb_call(&b, 100, 100, "cudaMemcpyAsync", T0 + 7000, T0 + 9000, 13);
	tb_kernel(&b, s7, "k1", T0 + 20000, T0 + 50001, 11);
	tb_kernel(&b, s7, "k2", T0 + 50000, T0 + 60000, 12);
	tb_copy(&b, s7, "Memcpy HtoD (Pinned -> Device)", T0 + 70000, T0 + 80000, 13, GS_COPY_HTOD,
		GS_MEM_PINNED, GS_MEM_DEVICE, GS_OPF_ASYNC);
	return tb_done(&b);
}

struct mem chrome_of(const struct gs_trace *t, const struct gs_export_extras *x,
		     const struct gs_export_options *o)
{
	struct mem m = {0};
	FILE *f = open_memstream(&m.buf, &m.len);

	assert_non_null(f);
	gs_error_clear();
	assert_int_equal(gs_export_chrome(f, t, x, o), GS_OK);
	assert_int_equal(fclose(f), 0);
	return m;
}

struct mem chrome_full(const struct gs_trace *t, bool ideal)
{
	struct gs_export_data *d = NULL;
	struct gs_export_options o = {.with_ideal = ideal};
	unsigned want = GS_EXPORT_WANT_LAUNCH | GS_EXPORT_WANT_EDGES | GS_EXPORT_WANT_BREAKDOWN;
	struct mem m;

	if (ideal)
		want |= GS_EXPORT_WANT_IDEAL;
	assert_int_equal(gs_export_data_build(t, want, &d), GS_OK);
	m = chrome_of(t, gs_export_data_extras(d), &o);
	gs_export_data_destroy(d);
	return m;
}

cJSON *events_of(const struct mem *m, cJSON **doc)
{
	cJSON *ev;

	*doc = cJSON_ParseWithLength(m->buf, m->len);
	assert_non_null(*doc);
	ev = cJSON_GetObjectItemCaseSensitive(*doc, "traceEvents");
	assert_true(cJSON_IsArray(ev));
	return ev;
}

const char *sget(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

double nget(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

const cJSON *find_ev(const cJSON *ev, const char *ph, const char *name)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, ev)
	{
		if (!strcmp(sget(e, "ph"), ph) &&
		    (!name || (sget(e, "name") && !strcmp(sget(e, "name"), name))))
			return e;
	}
	return NULL;
}

const cJSON *meta_arg(const cJSON *ev, const char *what, double pid, double tid)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, ev)
	{
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");

		if (strcmp(sget(e, "ph"), "M") || strcmp(sget(e, "name"), what) ||
		    nget(e, "pid") != pid || (tid >= 0 && nget(e, "tid") != tid))
			continue;
		return args ? args->child : NULL;
	}
	return NULL;
}

struct gs_trace *read_back(const struct mem *m)
{
	struct gs_trace *t = NULL;

	assert_int_equal(gs_trace_create(&t), GS_OK);
	gs_error_clear();
	assert_int_equal(gs_import_kineto_mem(m->buf, m->len, "export.json", NULL,
					      gs_trace_borrow_sink(t)),
			 GS_OK);
	assert_int_equal(gs_trace_finish(t), GS_OK);
	return t;
}

struct mem csv_ops(const struct gs_trace *t, const struct gs_export_extras *x, bool ideal)
{
	struct gs_export_options o = {.with_ideal = ideal};
	struct mem m = {0};
	FILE *f = open_memstream(&m.buf, &m.len);

	assert_int_equal(gs_export_csv_ops(f, t, x, &o), GS_OK);
	assert_int_equal(fclose(f), 0);
	return m;
}

size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}
