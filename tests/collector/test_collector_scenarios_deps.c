/* SPDX-License-Identifier: MIT */
/*
 * The collector's data dependencies end to end, without a GPU (each
 * scenario in a child, as in test_collector_scenarios.c; harness.h):
 * GPUSCOPE_DATA_DEPS linking copies and kernels to allocations, segments,
 * the forms and drops, the runtime's launch calls; and event waits with
 * and without CUPTI's sync ids.
 */
#include <gpuscope/diff.h>
#include <gpuscope/format.h>
#include <gpuscope/graph.h>
#include <gpuscope/import.h>
#include <gpuscope/report.h>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cubin_build.h"
#include "cuda_double.h"
#include "cupti_double.h"
#include "harness.h"
#include "records.h"
#include "scenarios.h"

/* GPUSCOPE_DATA_DEPS: copy and kernel pointers linked to MEMORY2 allocations. */
#define A_BASE 0x700000000000ull
#define B_BASE (A_BASE + (8ull << 20))
static const int kernel_handle_k = 1, kernel_handle_f = 2;

/* A module whose cubin describes kernel "k" (the name CUPTI gives its launches). */
static void load_module_k(void)
{
	static const unsigned k_sizes[] = {8, 8, 4};
	static const struct test_kernel ks[] = {{"_Z1kPfS_i", 3, k_sizes}};
	static uint8_t cubin[4096];
	size_t size = test_cubin(cubin, sizeof(cubin), ks, 1);

	if (!size)
		_exit(39);
	gsd_module(CUPTI_CBID_RESOURCE_MODULE_LOADED, 1, cubin, size);
}

/* The writer thread has made resolved_calls param-info calls and put the
 * layout they gave in its table: it asks for the dropped records after
 * the pass that resolved (the calls alone were seen to race the table). */
static unsigned resolved_calls;
static bool f_resolved(void)
{
	return gsd_cuda_param_info_calls() >= resolved_calls &&
	       gsd_last_dropped_query() > gsd_cuda_param_info_last_seq();
}

/*
 * Kernel "k"'s layout comes from its module's cubin (found by the launch's
 * symbol name); kernel "f" is in no module seen: its first launch is not
 * read and its handle goes to the writer thread, which asks the driver;
 * its next launch is read. No parameter query is ever made from inside a
 * callback.
 */
static void sc_data_deps(void)
{
	static const size_t fsizes[] = {16};
	char host[64];
	uint64_t a0 = A_BASE + 128, a1 = B_BASE;
	int a2 = 5;
	void *args[3] = {&a0, &a1, &a2};
	struct {
		uint64_t ptr, junk;
	} fparam = {A_BASE + 4096, 0};
	void *fargs[1] = {&fparam};
	cudaMemcpyAsync_v3020_params cp;
	cudaLaunchKernel_v7000_params kp;
	cudaMemsetAsync_v3020_params mp;
	cuLaunchKernel_params dp;

	if (!gsd_callback_enabled(CUPTI_CB_DOMAIN_RUNTIME_API,
				  CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000) ||
	    !gsd_callback_enabled(CUPTI_CB_DOMAIN_DRIVER_API,
				  CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel) ||
	    !gsd_callback_enabled(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED))
		_exit(40);
	gsd_cuda_set_params(&kernel_handle_f, 1, fsizes);
	load_module_k();
	gsd_set_time(2000);
	memset(&cp, 0, sizeof(cp));
	cp.dst = (void *)(uintptr_t)(A_BASE + 64);
	cp.src = host;
	cp.count = 64;
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, KCBID_MEMCPY_ASYNC, CUPTI_API_ENTER, 40, &cp);
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, KCBID_MEMCPY_ASYNC, CUPTI_API_EXIT, 40, &cp);
	memset(&kp, 0, sizeof(kp));
	kp.func = &kernel_handle_k;
	kp.args = args;
	gsd_api_sym(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
		    CUPTI_API_ENTER, 41, &kp, "_Z1kPfS_i");
	memset(&mp, 0, sizeof(mp));
	mp.devPtr = (void *)(uintptr_t)(B_BASE + 16);
	mp.count = 16;
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
		CUPTI_API_ENTER, 42, &mp);
	memset(&dp, 0, sizeof(dp));
	dp.f = (CUfunction)(uintptr_t)&kernel_handle_f;
	dp.kernelParams = fargs;
	gsd_api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_API_ENTER,
		43, &dp);
	/* The same kernel again: its layout is known by name. */
	gsd_api_sym(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
		    CUPTI_API_ENTER, 44, &kp, "_Z1kPfS_i");
	if (gsd_cuda_param_info_calls() != 0) /* "k" from the cubin; "f" not yet asked */
		_exit(41);
	/* The writer thread wakes for a buffer and asks for f's layout: one
	 * parameter, then "no more". */
	EMIT(rec_context(1, 0, 7));
	resolved_calls = 2;
	gsd_complete_thread_buffer();
	if (!wait_until(f_resolved))
		_exit(42);
	gsd_api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_API_ENTER,
		45, &dp);
	if (gsd_cuda_param_info_calls_in_callback() != 0 || gsd_cuda_param_info_calls() != 2)
		_exit(43);
	EMIT(rec_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, A_BASE, 1 << 20, 1000));
	EMIT(rec_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, B_BASE, 2 << 20, 1100));
	EMIT(rec_memcpy(1, 7, 40, 2100, 2200, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, PAGEABLE, DEVICE,
			true, 64));
	EMIT(rec_kernel(1, 7, 41, 2300, 2400, "k"));
	EMIT(rec_memset(1, 7, 42, 2500, 2600, true, 16));
	EMIT(rec_kernel(1, 7, 43, 2700, 2800, "f"));
	EMIT(rec_kernel(1, 7, 44, 2900, 3000, "k"));
	EMIT(rec_kernel(1, 7, 45, 3100, 3200, "f"));
	EMIT(rec_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE, A_BASE, 1 << 20, 5000));
}

static bool has_link(const struct gs_trace *t, uint64_t corr, uint64_t address, uint8_t kind)
{
	size_t n, na;
	const struct gs_op_alloc *l = gs_trace_op_allocs(t, &n);
	const struct gs_allocation *a = gs_trace_allocations(t, &na);

	for (size_t i = 0; i < n; i++)
		if (l[i].correlation == corr && l[i].op_kind == kind && l[i].allocation < na &&
		    a[l[i].allocation].address == address)
			return true;
	return false;
}

static const struct gs_op_alloc *find_link(const struct gs_trace *t, uint64_t corr,
					   uint64_t address)
{
	size_t n, na;
	const struct gs_op_alloc *l = gs_trace_op_allocs(t, &n);
	const struct gs_allocation *a = gs_trace_allocations(t, &na);

	static const struct gs_op_alloc none;

	for (size_t i = 0; i < n; i++)
		if (l[i].correlation == corr && l[i].allocation < na &&
		    a[l[i].allocation].address == address)
			return &l[i];
	fail_msg("no link of op %llu to the allocation at 0x%llx", (unsigned long long)corr,
		 (unsigned long long)address);
	return &none;
}

static void test_data_deps(void **state)
{
	struct run r = {.name = "datadeps",
			.fn = sc_data_deps,
			.env = {{"GPUSCOPE_DATA_DEPS", "1"}}};
	const struct gs_op_alloc *l;
	struct gs_trace *t;
	const struct gs_allocation *a;
	uint64_t misses = 0;
	size_t n, nw;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_string_equal(r.err, "");
	t = load_trace(r.trace, false);
	/* f's first launch, and only it, had no layout yet. */
	gs_trace_warnings(t, &nw);
	assert_int_equal(nw, 1);
	assert_true(has_warning(t, "before their kernel's parameter layout was known", &misses));
	assert_int_equal(misses, 1);
	a = gs_trace_allocations(t, &n);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		if (a[i].address == A_BASE) {
			assert_int_equal(a[i].bytes, 1 << 20);
			assert_int_equal(a[i].alloc_ns, 1000);
			assert_int_equal(a[i].free_ns, 5000);
		} else {
			assert_int_equal(a[i].address, B_BASE);
			assert_int_equal(a[i].bytes, 2 << 20);
			assert_int_equal(a[i].free_ns, 0); /* still live at exit */
		}
		assert_int_equal(a[i].mem_kind, GS_MEM_DEVICE);
	}
	gs_trace_op_allocs(t, &n);
	assert_int_equal(n, 7);
	assert_true(has_link(t, 40, A_BASE, GS_OP_MEMCPY));
	assert_true(has_link(t, 41, A_BASE, GS_OP_KERNEL));
	assert_true(has_link(t, 41, B_BASE, GS_OP_KERNEL));
	assert_true(has_link(t, 42, B_BASE, GS_OP_MEMSET));
	assert_false(has_link(t, 43, A_BASE, GS_OP_KERNEL));
	assert_true(has_link(t, 44, A_BASE, GS_OP_KERNEL));
	assert_true(has_link(t, 44, B_BASE, GS_OP_KERNEL));
	assert_true(has_link(t, 45, A_BASE, GS_OP_KERNEL));
	/* Where each pointer fell, and what copies and memsets say of their size. */
	l = find_link(t, 40, A_BASE);
	assert_int_equal(l->offset, 64);
	assert_int_equal(l->bytes, 64);
	l = find_link(t, 42, B_BASE);
	assert_int_equal(l->offset, 16);
	assert_int_equal(l->bytes, 16);
	assert_true(l->flags & GS_LINK_HAS_OFFSET);
	l = find_link(t, 45, A_BASE);
	assert_int_equal(l->offset, 4096);
	assert_int_equal(l->bytes, 0); /* a kernel: unknown */
	/* A is touched at 64, 128 and 4096: shared by several buffers. */
	assert_true(l->flags & GS_LINK_SEGMENT);
	gs_trace_destroy(t);
}

/*
 * A caching allocator's segment: one 8 MiB allocation (PyTorch's
 * cudaMalloc of a segment) holds the tensors. A memset clears [0, 4 KiB)
 * and a copy fills [1 MiB, 1 MiB + 4 KiB); kernel "k" reads the first
 * tensor (pointer at 0), then two kernels touch disjoint parts (pointers
 * at 2 MiB and 4 MiB, sizes unknown). The links say where each pointer
 * fell, the allocation is marked a segment, and the analyzer joins only
 * what the ranges prove: memset -> k0 (same offset) is a data edge; the
 * copy is proven apart from the memset (it starts past the memset's
 * 4 KiB) and from k2 and k4 (they start past its end); k0 (size unknown)
 * may reach the copy and k2, k2 may reach k4: segment edges (possible),
 * not graph edges. Before, every op here was chained to the one before.
 */
#define SEG_BASE 0x7a0000000000ull

static void sc_segment(void)
{
	static const unsigned k_sizes[] = {8, 8, 4};
	static const struct test_kernel ks[] = {{"_Z1kPfS_i", 3, k_sizes}};
	static uint8_t cubin[4096];
	size_t size = test_cubin(cubin, sizeof(cubin), ks, 1);
	char host[64];
	uint64_t p0 = SEG_BASE, p2 = SEG_BASE + (2u << 20), p4 = SEG_BASE + (4u << 20), none = 0;
	int n = 4;
	void *a0[3] = {&p0, &none, &n}, *a2[3] = {&p2, &none, &n}, *a4[3] = {&p4, &none, &n};
	cudaLaunchKernel_v7000_params kp;
	cudaMemsetAsync_v3020_params mp;
	cudaMemcpyAsync_v3020_params cp;

	if (!size)
		_exit(39);
	gsd_module(CUPTI_CBID_RESOURCE_MODULE_LOADED, 1, cubin, size);
	gsd_set_time(2000);
	memset(&mp, 0, sizeof(mp));
	mp.devPtr = (void *)(uintptr_t)SEG_BASE;
	mp.count = 4096;
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
		CUPTI_API_ENTER, 70, &mp);
	memset(&cp, 0, sizeof(cp));
	cp.dst = (void *)(uintptr_t)(SEG_BASE + (1u << 20));
	cp.src = host;
	cp.count = 4096;
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, KCBID_MEMCPY_ASYNC, CUPTI_API_ENTER, 71, &cp);
	memset(&kp, 0, sizeof(kp));
	kp.func = &kernel_handle_k;
	kp.args = a0;
	gsd_api_sym(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
		    CUPTI_API_ENTER, 72, &kp, "_Z1kPfS_i");
	kp.args = a2;
	gsd_api_sym(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
		    CUPTI_API_ENTER, 73, &kp, "_Z1kPfS_i");
	kp.args = a4;
	gsd_api_sym(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
		    CUPTI_API_ENTER, 74, &kp, "_Z1kPfS_i");
	if (gsd_cuda_param_info_calls() != 0)
		_exit(41);
	EMIT(rec_context(1, 0, 7));
	EMIT(rec_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, SEG_BASE, 8u << 20, 1000));
	EMIT(rec_memset(1, 7, 70, 2100, 2200, true, 4096));
	EMIT(rec_memcpy(1, 7, 71, 2300, 2400, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, PAGEABLE, DEVICE,
			true, 4096));
	EMIT(rec_kernel(1, 7, 72, 2500, 2600, "k0"));
	EMIT(rec_kernel(1, 7, 73, 2700, 2800, "k2"));
	EMIT(rec_kernel(1, 7, 74, 2900, 3000, "k4"));
}

static uint32_t op_by_corr(const struct gs_trace *t, uint64_t corr)
{
	size_t n;
	const struct gs_op *op = gs_trace_ops(t, &n);

	for (size_t i = 0; i < n; i++)
		if (op[i].correlation == corr)
			return (uint32_t)i;
	fail_msg("no op with correlation %llu", (unsigned long long)corr);
	return 0;
}

static bool graph_has(const struct gs_graph *g, uint32_t from, uint32_t to, unsigned kind)
{
	for (size_t i = g->in_first[to]; i < g->in_first[to + 1]; i++)
		if (g->edges[i].from == from && g->edges[i].kind == kind)
			return true;
	return false;
}

/* What write(f, r, NULL) writes, NUL-terminated; the caller frees it. */
static char *report_text(gs_status (*write)(FILE *, const struct gs_report *,
					    const struct gs_report_style *),
			 const struct gs_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(write(f, r, NULL), GS_OK);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_data_deps_segment(void **state)
{
	struct run r = {.name = "datadeps_segment",
			.fn = sc_segment,
			.env = {{"GPUSCOPE_DATA_DEPS", "1"}}};
	const struct gs_op_alloc *l;
	struct gs_graph *g = NULL;
	struct gs_trace *t;
	uint32_t ms, cp, k0, k2, k4;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	assert_string_equal(r.err, "");
	t = load_trace(r.trace, true);
	l = gs_trace_op_allocs(t, &n);
	assert_int_equal(n, 5);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(l[i].flags, GS_LINK_HAS_OFFSET | GS_LINK_SEGMENT);
	assert_int_equal(find_link(t, 71, SEG_BASE)->offset, 1u << 20);
	assert_int_equal(find_link(t, 71, SEG_BASE)->bytes, 4096);
	assert_int_equal(find_link(t, 73, SEG_BASE)->offset, 2u << 20);
	assert_int_equal(find_link(t, 73, SEG_BASE)->bytes, 0);
	assert_int_equal(gs_graph_build(t, &g), GS_OK);
	ms = op_by_corr(t, 70);
	cp = op_by_corr(t, 71);
	k0 = op_by_corr(t, 72);
	k2 = op_by_corr(t, 73);
	k4 = op_by_corr(t, 74);
	assert_true(g->has_data_edges);
	assert_int_equal(g->edge_count[GS_EDGE_DATA], 1);
	assert_true(graph_has(g, ms, k0, GS_EDGE_DATA));
	assert_false(graph_has(g, cp, k0, GS_EDGE_DATA));
	assert_false(graph_has(g, k0, k2, GS_EDGE_DATA));
	assert_false(graph_has(g, k2, k4, GS_EDGE_DATA));
	/* Possible only, in time order of their later op. */
	assert_int_equal(g->n_segment_edges, 3);
	assert_int_equal(g->segment_edges[0].from, cp);
	assert_int_equal(g->segment_edges[0].to, k0);
	assert_int_equal(g->segment_edges[1].from, k0);
	assert_int_equal(g->segment_edges[1].to, k2);
	assert_int_equal(g->segment_edges[2].from, k2);
	assert_int_equal(g->segment_edges[2].to, k4);
	assert_int_equal(g->segment_edges[2].allocation, find_link(t, 74, SEG_BASE)->allocation);
	gs_graph_destroy(g);
	/* The analyze report counts them as possible, apart from the edges. */
	{
		struct gs_report_options o = {.format = "gscope"};
		struct gs_report *rep = NULL;
		char *out;

		assert_int_equal(gs_report_build(t, &o, &rep), GS_OK);
		out = report_text(gs_report_write_json, rep);
		assert_non_null(strstr(out, "\"segment_edges\": 3,"));
		assert_non_null(strstr(out, "\"segment_edges_evidence\": \"possible\""));
		free(out);
		out = report_text(gs_report_write_text, rep);
		assert_non_null(strstr(out, "3 possible data dependencies on shared allocations"));
		free(out);
		gs_report_destroy(rep);
	}
	gs_trace_destroy(t);
}

/*
 * --data-deps: the API forms added (memset 2D/3D and their _ptds/_ptsz,
 * the driver's D16 and _ptds/_ptsz memsets, 3D copies, batch copies, symbol
 * copies) each give a link; then a burst of observations, some of which may
 * find the writer's batch full: every one is either linked or counted in
 * the trace's warning (none vanishes unaccounted).
 */
#define DD_BURST 60000

static void sc_data_deps_forms(void)
{
	static char host[64];
	uint64_t a = A_BASE;
	cudaMemset2DAsync_v3020_params m2;
	cudaMemset3D_v3020_params m3;
	cuMemsetD16Async_params d16;
	struct cudaMemcpy3DParms c3p;
	cudaMemcpy3D_v3020_params c3;
	void *dsts[2] = {(void *)(uintptr_t)(A_BASE + 512), host};
	const void *srcs[2] = {host, host};
	size_t sizes[2] = {8, 8};
	cudaMemcpyBatchAsync_v13000_params b;
	cudaMemcpyFromSymbol_v3020_params fs;
	cudaMemset_ptds_v7000_params ms;

	EMIT(rec_context(1, 0, 7));
	EMIT(rec_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, A_BASE, 1 << 20, 1000));
	gsd_complete_thread_buffer();
	gsd_set_time(2000);
	memset(&m2, 0, sizeof(m2));
	m2.devPtr = (void *)(uintptr_t)(a + 64);
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemset2DAsync_ptsz_v7000,
		CUPTI_API_ENTER, 60, &m2);
	memset(&m3, 0, sizeof(m3));
	m3.pitchedDevPtr.ptr = (void *)(uintptr_t)(a + 128);
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemset3D_ptds_v7000,
		CUPTI_API_ENTER, 61, &m3);
	memset(&d16, 0, sizeof(d16));
	d16.dstDevice = a + 192;
	gsd_api(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz,
		CUPTI_API_ENTER, 62, &d16);
	memset(&c3p, 0, sizeof(c3p));
	c3p.dstPtr.ptr = (void *)(uintptr_t)(a + 256);
	c3p.srcPtr.ptr = host;
	c3.p = &c3p;
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_ptsz_v7000,
		CUPTI_API_ENTER, 63, &c3);
	memset(&b, 0, sizeof(b));
	b.dsts = dsts;
	b.srcs = srcs;
	b.sizes = sizes;
	b.count = 2;
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_v13000,
		CUPTI_API_ENTER, 64, &b);
	memset(&fs, 0, sizeof(fs));
	fs.dst = (void *)(uintptr_t)(a + 768);
	fs.symbol = host;
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_v3020,
		CUPTI_API_ENTER, 65, &fs);
	for (uint32_t i = 0; i < DD_BURST; i++) {
		memset(&ms, 0, sizeof(ms));
		ms.devPtr = (void *)(uintptr_t)(a + 1024 + (i % 1000) * 8);
		gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000,
			CUPTI_API_ENTER, 1000 + i, &ms);
	}
}

static void test_data_deps_forms_and_drops(void **state)
{
	struct run r = {.name = "datadeps_forms",
			.fn = sc_data_deps_forms,
			.env = {{"GPUSCOPE_DATA_DEPS", "1"}}};
	uint64_t dropped = 0;
	struct gs_trace *t;
	size_t n;

	(void)state;
	run_scenario(&r);
	expect_exit(&r, 0);
	t = load_trace(r.trace, false);
	assert_true(has_link(t, 60, A_BASE, GS_OP_MEMSET));
	assert_true(has_link(t, 61, A_BASE, GS_OP_MEMSET));
	assert_true(has_link(t, 62, A_BASE, GS_OP_MEMSET));
	assert_true(has_link(t, 63, A_BASE, GS_OP_MEMCPY));
	assert_true(has_link(t, 64, A_BASE, GS_OP_MEMCPY));
	assert_true(has_link(t, 65, A_BASE, GS_OP_MEMCPY));
	gs_trace_op_allocs(t, &n);
	has_warning(t, "observations dropped", &dropped);
	printf("data deps: %zu links, %llu observations dropped of %d\n", n - 6,
	       (unsigned long long)dropped, DD_BURST);
	assert_int_equal(n - 6 + dropped, DD_BURST);
	gs_trace_destroy(t);
}

/* --data-deps with the runtime's launch calls (-D__NV_LEGACY_LAUNCH, and
 * cudaLaunchKernelEx): the handle is the host stub, its layout comes from
 * the program's cudaFuncGetParamInfo. */
static const int host_stub = 3;

static void dd_launch(CUpti_CallbackId cbid)
{
	static const size_t sizes[] = {8, 4};
	uint64_t a0 = A_BASE + 256;
	int a1 = 7;
	void *args[2] = {&a0, &a1};
	cudaLaunchConfig_t cfg;
	union {
		cudaLaunchKernel_v7000_params k;
		cudaLaunchKernel_ptsz_v7000_params kp;
		cudaLaunchKernelExC_v11060_params x;
		cudaLaunchKernelExC_ptsz_v11060_params xp;
	} p;

	if (!gsd_callback_enabled(CUPTI_CB_DOMAIN_RUNTIME_API, cbid))
		_exit(48);
	/* The host stub is unknown to the driver: its layout comes from the
	 * writer thread through the program's cudaFuncGetParamInfo. */
	gsd_cuda_set_params(&host_stub, 2, sizes);
	memset(&p, 0, sizeof(p));
	memset(&cfg, 0, sizeof(cfg));
	cfg.gridDim.x = 1;
	cfg.blockDim.x = 32;
	switch (cbid) {
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
		p.k.func = &host_stub;
		p.k.args = args;
		break;
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
		p.kp.func = &host_stub;
		p.kp.args = args;
		break;
	case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
		p.x.config = &cfg;
		p.x.func = &host_stub;
		p.x.args = args;
		break;
	default:
		p.xp.config = &cfg;
		p.xp.func = &host_stub;
		p.xp.args = args;
		break;
	}
	gsd_set_time(2000);
	/* The first launch is not read; the writer thread, woken by a buffer,
	 * asks for the stub's layout (two parameters, then "no more"). */
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, CUPTI_API_ENTER, 49, &p);
	EMIT(rec_context(1, 0, 7));
	resolved_calls = 3;
	gsd_complete_thread_buffer();
	if (!wait_until(f_resolved))
		_exit(47);
	gsd_api(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, CUPTI_API_ENTER, 50, &p);
	if (gsd_cuda_param_info_calls_in_callback() != 0)
		_exit(46);
	EMIT(rec_memory(CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION, A_BASE, 1 << 20, 1000));
	EMIT(rec_api(RT, cbid, 50, 0, 1990, 2010));
	EMIT(rec_kernel(1, 7, 50, 2100, 2200, "legacy_launch"));
}

static void sc_dd_launch(void)
{
	dd_launch(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
}
static void sc_dd_launch_ptsz(void)
{
	dd_launch(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000);
}
static void sc_dd_launch_exc(void)
{
	dd_launch(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060);
}
static void sc_dd_launch_exc_ptsz(void)
{
	dd_launch(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060);
}

static void test_data_deps_runtime_launches(void **state)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} cases[] = {
		{"dd_launch", sc_dd_launch},
		{"dd_launch_ptsz", sc_dd_launch_ptsz},
		{"dd_launch_exc", sc_dd_launch_exc},
		{"dd_launch_exc_ptsz", sc_dd_launch_exc_ptsz},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r = {.name = cases[i].name,
				.fn = cases[i].fn,
				.env = {{"GPUSCOPE_DATA_DEPS", "1"}}};
		struct gs_trace *t;
		size_t n;

		run_scenario(&r);
		expect_exit(&r, 0);
		t = load_trace(r.trace, false);
		assert_true(has_warning(t, "parameter layout was known", NULL));
		gs_trace_op_allocs(t, &n);
		if (n != 1 || !has_link(t, 50, A_BASE, GS_OP_KERNEL))
			fail_msg("%s: %zu links, want the kernel's to A", cases[i].name, n);
		gs_trace_destroy(t);
	}
}

/*
 * Waits on an event recorded twice, with cudaEventSyncId and without (0,
 * older drivers): the same edges. The records arrive out of correlation
 * order (the re-record first); each wait links to the latest record of its
 * event made before it.
 */
static void event_waits(bool ids)
{
	const uint32_t W = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;

	EMIT(rec_context(1, 0, 7));
	EMIT(rec_stream(1, 13, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING, 0));
	EMIT(rec_stream(1, 14, CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING, 0));
	/* The second round first. */
	EMIT(rec_api(RT, KCBID_LAUNCH, 21, 100, 1200, 1205));
	EMIT(rec_kernel(1, 13, 21, 3000, 3100, "produce2"));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, 22, 100, 1210, 1215));
	EMIT(rec_event(1, 13, 5, ids ? 78 : 0, 22));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, 23, 100, 1220, 1225));
	EMIT(rec_sync(W, 1, 14, 5, ids ? 78 : 0, 23, 1220, 1225));
	EMIT(rec_api(RT, KCBID_LAUNCH, 24, 100, 1230, 1235));
	EMIT(rec_kernel(1, 14, 24, 3200, 3300, "consume2"));
	/* The first round. */
	EMIT(rec_api(RT, KCBID_LAUNCH, 11, 100, 1000, 1005));
	EMIT(rec_kernel(1, 13, 11, 2000, 2100, "produce1"));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, 12, 100, 1010, 1015));
	EMIT(rec_event(1, 13, 5, ids ? 77 : 0, 12));
	EMIT(rec_api(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, 13, 100, 1020, 1025));
	EMIT(rec_sync(W, 1, 14, 5, ids ? 77 : 0, 13, 1020, 1025));
	EMIT(rec_api(RT, KCBID_LAUNCH, 14, 100, 1030, 1035));
	EMIT(rec_kernel(1, 14, 14, 2200, 2300, "consume1"));
}

static void sc_event_waits_ids(void)
{
	event_waits(true);
}

static void sc_event_waits_no_ids(void)
{
	event_waits(false);
}

static uint32_t op_index(const struct gs_trace *t, uint64_t corr)
{
	size_t n;

	return (uint32_t)(find_op(t, corr, GS_OP_KERNEL) - gs_trace_ops(t, &n));
}

static bool has_event_edge(const struct gs_graph *g, uint32_t from, uint32_t to)
{
	for (size_t i = 0; i < g->n_edges; i++)
		if (g->edges[i].kind == GS_EDGE_EVENT && g->edges[i].from == from &&
		    g->edges[i].to == to && gs_graph_edge_event(g, &g->edges[i]) == 5)
			return true;
	return false;
}

static void test_event_waits_without_sync_ids(void **state)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} cases[] = {{"waits_ids", sc_event_waits_ids}, {"waits_no_ids", sc_event_waits_no_ids}};

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct run r = {.name = cases[i].name, .fn = cases[i].fn};
		struct gs_graph *g;
		struct gs_trace *t;

		run_scenario(&r);
		expect_exit(&r, 0);
		t = load_trace(r.trace, true);
		assert_int_equal(gs_graph_build(t, &g), GS_OK);
		if (g->edge_count[GS_EDGE_EVENT] != 2 || g->unlinked_waits != 0 ||
		    !has_event_edge(g, op_index(t, 11), op_index(t, 14)) ||
		    !has_event_edge(g, op_index(t, 21), op_index(t, 24)))
			fail_msg("%s: %llu event edges, %llu unlinked waits", cases[i].name,
				 (unsigned long long)g->edge_count[GS_EDGE_EVENT],
				 (unsigned long long)g->unlinked_waits);
		gs_graph_destroy(g);
		gs_trace_destroy(t);
	}
}

static int setup_tmp(void **state)
{
	(void)state;
	return setup_tmpdir("scenarios-deps");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_deps),
		cmocka_unit_test(test_data_deps_segment),
		cmocka_unit_test(test_data_deps_forms_and_drops),
		cmocka_unit_test(test_data_deps_runtime_launches),
		cmocka_unit_test(test_event_waits_without_sync_ids),
	};

	/* GS_TEST_FILTER=NAME: one case (a loop hunting a rare hang). */
	if (getenv("GS_TEST_FILTER"))
		cmocka_set_test_filter(getenv("GS_TEST_FILTER"));
	return cmocka_run_group_tests(tests, setup_tmp, NULL);
}
