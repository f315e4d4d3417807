/* SPDX-License-Identifier: MIT */
/*
 * The collector's CUPTI glue: the only file that includes cupti.h and calls
 * CUPTI (see cupti_glue.h). Enable order, as CUPTI needs it:
 * subscribe, register the buffer callbacks, set the thread id type to
 * SYSTEM (gettid: the OS's and Nsight's ids, and the writer thread knows
 * its own), enable the activity kinds (DEVICE, CONTEXT and STREAM with
 * cuptiActivityEnableAndDump, so that those existing before the collector
 * attached are recorded), trim chatty API records (the <<<>>> stub's
 * configuration calls among them), enable the callbacks by id.
 *
 * Flushes at cudaDeviceReset / context destruction are not forced (a
 * forced one returns kernels still running with end == 0); the exit's is.
 * Device names and overhead data in records are the client's to free
 * (gs_glue_release_record).
 *
 * Callbacks do no I/O, take no lock and call neither the driver nor the
 * runtime: with GPUSCOPE_DATA_DEPS=1 a launch's parameter layout comes from
 * tables filled at module load (the cubin) and by the writer thread (see
 * "kernel parameter layouts" below).
 */
#define _GNU_SOURCE /* dladdr */
#include "cupti_glue.h"

#include "log.h"

#include <gpuscope/elfcuda.h>

#include <cupti.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct gs_glue_hooks *hooks;
static CUpti_SubscriberHandle subscriber;
static bool subscribed;
static bool data_deps;

/* Activity kinds in enable order; `needed` ones failing disables the
 * collector. `dump`: enabled with cuptiActivityEnableAndDump, so that the
 * devices, contexts and streams that exist already (CUDA initialised before
 * the collector attached) are recorded too. */
static const struct {
	CUpti_ActivityKind kind;
	bool needed;
	bool dump;
} kinds[] = {
	{CUPTI_ACTIVITY_KIND_DEVICE, false, true},
	{CUPTI_ACTIVITY_KIND_CONTEXT, false, true},
	{CUPTI_ACTIVITY_KIND_STREAM, false, true},
	{CUPTI_ACTIVITY_KIND_RUNTIME, true, false},
	{CUPTI_ACTIVITY_KIND_DRIVER, true, false},
	{CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API, false, false},
	{CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, true, false},
	{CUPTI_ACTIVITY_KIND_MEMCPY, true, false},
	{CUPTI_ACTIVITY_KIND_MEMCPY2, false, false},
	{CUPTI_ACTIVITY_KIND_MEMSET, false, false},
	{CUPTI_ACTIVITY_KIND_MEMORY2, false, false},
	{CUPTI_ACTIVITY_KIND_CUDA_EVENT, false, false},
	{CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, false, false},
	{CUPTI_ACTIVITY_KIND_OVERHEAD, false, false},
	{CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, false, false},
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))
static bool kind_on[NKINDS];
static bool markers_on;

/* Frequent queries whose API records say nothing about the timeline. */
static const CUpti_CallbackId quiet_runtime[] = {
	CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,
	/* The writer's own call (process record), also made after the exit's
	 * last flush, when its record could only be dropped. */
	CUPTI_RUNTIME_TRACE_CBID_cudaRuntimeGetVersion_v3020,
	/* A CUDA 13 <<<>>> stub calls these around each __cudaLaunchKernel. */
	CUPTI_RUNTIME_TRACE_CBID___cudaPushCallConfiguration_v13000,
	CUPTI_RUNTIME_TRACE_CBID___cudaPopCallConfiguration_v13000,
	CUPTI_RUNTIME_TRACE_CBID___cudaGetKernel_v13000,
};
static const CUpti_CallbackId quiet_driver[] = {
	CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent,      CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice,
	CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice_v2,    CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion,
	CUPTI_DRIVER_TRACE_CBID_cuKernelGetParamInfo, CUPTI_DRIVER_TRACE_CBID_cuFuncGetParamInfo,
	CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress_v2,
};

/* Callbacks that flush before a context goes away. */
static const CUpti_CallbackId flush_runtime[] = {
	CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020,
};
static const CUpti_CallbackId flush_driver[] = {
	CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy,
	CUPTI_DRIVER_TRACE_CBID_cuCtxDestroy_v2,
	CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset,
	CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2,
};

/* Data dependencies: copies, memsets and launches whose pointers are read. */
static const CUpti_CallbackId deps_runtime[] = {
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeer_v4000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_ptds_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_ptds_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DPeer_v4000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DPeer_ptds_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DPeerAsync_v4000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DPeerAsync_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_ptds_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_ptds_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_v13000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_ptsz_v13000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemset2D_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemset2D_ptds_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemset2DAsync_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemset2DAsync_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemset3D_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemset3D_ptds_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemset3DAsync_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemset3DAsync_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
	CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
	CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
};
static const CUpti_CallbackId deps_driver[] = {
	CUPTI_DRIVER_TRACE_CBID_cuMemcpy,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const char *result_str(CUptiResult r)
{
	const char *s = NULL;

	if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
		return "unknown CUPTI error";
	return s;
}

/* ---- kernel parameter layouts (data deps) ----
 *
 * A launch callback reads a kernel's pointer arguments only when it knows
 * the kernel's parameter layout already, from two tables it reads without a
 * lock (entries are published with a release store, never freed: a
 * replaced one stays on a list, reachable):
 * - by kernel name (the callback's symbolName), filled at module load from
 *   the cubin CUPTI hands over (gs_cubin_param_layouts), on the loading
 *   thread: no CUDA call;
 * - by function handle, filled by the writer thread (gs_glue_resolve_layouts)
 *   through cuKernelGetParamInfo / cuFuncGetParamInfo / the runtime's
 *   cudaFuncGetParamInfo, for the handles a callback found in neither table
 *   and queued: that launch has no data links, the next ones do.
 * So no callback calls into the driver or the runtime (which would add
 * API records of its own, re-entrantly). A module unload makes the handle
 * entries stale (a handle may be reused); names are replaced by the next
 * module that defines them.
 */

typedef CUresult (*kernel_info_fn)(CUkernel k, size_t index, size_t *offset, size_t *size);
typedef CUresult (*func_info_fn)(CUfunction f, size_t index, size_t *offset, size_t *size);
/* cudaFuncGetParamInfo (the program's runtime): cudaError_t, 0 = success. */
typedef int (*stub_info_fn)(const void *stub, size_t index, size_t *offset, size_t *size);

/* What a launch's function handle is. */
enum handle_kind {
	H_KERNEL, /* CUkernel (cudaKernel_t): cuKernelGetParamInfo */
	H_FUNC,   /* CUfunction: cuFuncGetParamInfo */
	H_STUB,   /* a host stub (cudaLaunchKernel*): the runtime's cudaFuncGetParamInfo */
};
typedef CUresult (*driver_version_fn)(int *version);

#define MAX_PARAMS 64u     /* parameters read per launch */
#define NAME_SLOTS 65536u  /* kernels known by name (a power of two) */
#define HANDLE_SLOTS 4096u /* kernels known by handle (a power of two) */
#define PROBES 32u         /* slots tried per lookup */
#define WANT_SLOTS 64u     /* handles waiting for the writer thread */

struct layout {
	uint64_t key;           /* handle (with its kind), or the name's hash */
	const void *handle;     /* handle entries */
	uint32_t epoch;         /* handle entries: module_epoch when resolved */
	uint8_t kind;           /* handle entries: enum handle_kind */
	uint16_t count;         /* parameters (at most MAX_PARAMS) */
	struct layout *retired; /* on the retired list once replaced */
	char *name;             /* name entries: owned, NUL-terminated */
	uint16_t size[MAX_PARAMS];
};

static _Atomic(struct layout *) *by_name;                /* NAME_SLOTS, with data deps */
static _Atomic(struct layout *) by_handle[HANDLE_SLOTS]; /* the writer thread fills it */
static _Atomic(struct layout *) retired;                 /* replaced entries (reachable) */
static atomic_uint module_epoch;
static atomic_ullong layout_misses; /* launches with no layout known yet */
static atomic_ullong layout_table_full;
/* Handles queued for the writer: state 0 free, 1 being filled, 2 ready. */
static struct {
	atomic_uint state;
	_Atomic(const void *) handle;
	atomic_uint kind;
} want[WANT_SLOTS];

static kernel_info_fn kernel_param_info; /* cuKernelGetParamInfo */
static func_info_fn func_param_info;     /* cuFuncGetParamInfo */
static stub_info_fn stub_param_info;     /* cudaFuncGetParamInfo */
static bool driver_resolved;

static void *driver_symbol(const char *name)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOLOAD | RTLD_LAZY);
	void *sym;

	if (!lib)
		return NULL;
	sym = dlsym(lib, name);
	dlclose(lib); /* drops only the reference NOLOAD took */
	return sym;
}

/* At start, outside any callback. */
static void resolve_driver(void)
{
	void *k, *f, *r;

	if (driver_resolved)
		return;
	k = driver_symbol("cuKernelGetParamInfo");
	f = driver_symbol("cuFuncGetParamInfo");
	/* The program's own runtime, when it exports it (dynamic cudart). */
	r = dlsym(RTLD_DEFAULT, "cudaFuncGetParamInfo");
	memcpy(&kernel_param_info, &k, sizeof(k));
	memcpy(&func_param_info, &f, sizeof(f));
	memcpy(&stub_param_info, &r, sizeof(r));
	driver_resolved = k || f || r;
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static uint64_t name_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return mix(h);
}

static uint64_t handle_key(const void *handle, enum handle_kind kind)
{
	return mix((uint64_t)(uintptr_t)handle * 4 + (uint64_t)kind);
}

static void retire(struct layout *l)
{
	struct layout *head = atomic_load(&retired);

	do
		l->retired = head;
	while (!atomic_compare_exchange_weak(&retired, &head, l));
}

/* Insert or replace (the newest wins); false when the table is full. */
static bool table_put(_Atomic(struct layout *) *tab, size_t slots, struct layout *l,
		      bool (*same)(const struct layout *, const struct layout *))
{
	for (size_t p = 0; p < PROBES; p++) {
		_Atomic(struct layout *) *slot = &tab[(l->key + p) & (slots - 1)];
		struct layout *cur = atomic_load_explicit(slot, memory_order_acquire);

		for (;;) {
			if (cur && !same(cur, l))
				break;
			if (atomic_compare_exchange_weak_explicit(
				    slot, &cur, l, memory_order_acq_rel, memory_order_acquire)) {
				if (cur)
					retire(cur);
				return true;
			}
		}
	}
	return false;
}

static bool same_name(const struct layout *a, const struct layout *b)
{
	return a->key == b->key && !strcmp(a->name, b->name);
}

static bool same_handle(const struct layout *a, const struct layout *b)
{
	return a->handle == b->handle && a->kind == b->kind;
}

static const struct layout *find_name(const char *name)
{
	uint64_t key;

	if (!by_name || !name || !name[0])
		return NULL;
	key = name_hash(name, strlen(name));
	for (size_t p = 0; p < PROBES; p++) {
		const struct layout *l = atomic_load_explicit(
			&by_name[(key + p) & (NAME_SLOTS - 1)], memory_order_acquire);

		if (!l)
			return NULL;
		if (l->key == key && !strcmp(l->name, name))
			return l;
	}
	return NULL;
}

static const struct layout *find_handle(const void *handle, enum handle_kind kind)
{
	uint64_t key = handle_key(handle, kind);

	for (size_t p = 0; p < PROBES; p++) {
		const struct layout *l = atomic_load_explicit(
			&by_handle[(key + p) & (HANDLE_SLOTS - 1)], memory_order_acquire);

		if (!l)
			return NULL;
		if (l->handle == handle && l->kind == kind)
			return l->epoch == atomic_load(&module_epoch) ? l : NULL;
	}
	return NULL;
}

/* A kernel of a module's cubin (gs_cubin_param_layouts' callback). */
static void cubin_kernel(void *ctx, const char *name, size_t len, unsigned count,
			 const uint32_t *sizes)
{
	struct layout *l = calloc(1, sizeof(*l));

	(void)ctx;
	if (!l || !(l->name = malloc(len + 1))) {
		free(l);
		return;
	}
	memcpy(l->name, name, len);
	l->name[len] = '\0';
	l->key = name_hash(name, len);
	l->count = (uint16_t)(count < MAX_PARAMS ? count : MAX_PARAMS);
	for (unsigned i = 0; i < l->count; i++)
		l->size[i] = (uint16_t)(sizes[i] > UINT16_MAX ? UINT16_MAX : sizes[i]);
	if (!table_put(by_name, NAME_SLOTS, l, same_name)) {
		atomic_fetch_add(&layout_table_full, 1);
		free(l->name);
		free(l);
	}
}

static void module_loaded(const CUpti_ResourceData *rd)
{
	const CUpti_ModuleResourceData *m = rd ? rd->resourceDescriptor : NULL;

	if (by_name && m && m->pCubin && m->cubinSize)
		gs_cubin_param_layouts(m->pCubin, m->cubinSize, cubin_kernel, NULL);
}

/* A callback found no layout: queue the handle for the writer thread. */
static void want_layout(const void *handle, enum handle_kind kind)
{
	atomic_fetch_add(&layout_misses, 1);
	for (size_t i = 0; i < WANT_SLOTS; i++)
		if (atomic_load(&want[i].state) == 2 && atomic_load(&want[i].handle) == handle &&
		    atomic_load(&want[i].kind) == (unsigned)kind)
			return;
	for (size_t i = 0; i < WANT_SLOTS; i++) {
		unsigned free_state = 0;

		if (atomic_compare_exchange_strong(&want[i].state, &free_state, 1)) {
			atomic_store(&want[i].handle, handle);
			atomic_store(&want[i].kind, (unsigned)kind);
			atomic_store(&want[i].state, 2);
			return;
		}
	}
}

static bool param_info(const void *handle, enum handle_kind kind, size_t i, size_t *size)
{
	size_t off;

	switch (kind) {
	case H_KERNEL:
		return kernel_param_info && kernel_param_info((CUkernel)(uintptr_t)handle, i, &off,
							      size) == CUDA_SUCCESS;
	case H_FUNC:
		return func_param_info && func_param_info((CUfunction)(uintptr_t)handle, i, &off,
							  size) == CUDA_SUCCESS;
	default:
		return stub_param_info && stub_param_info(handle, i, &off, size) == 0;
	}
}

void gs_glue_resolve_layouts(void)
{
	for (size_t i = 0; i < WANT_SLOTS; i++) {
		struct layout *l;
		size_t size;

		if (atomic_load(&want[i].state) != 2)
			continue;
		l = calloc(1, sizeof(*l));
		if (l) {
			l->handle = atomic_load(&want[i].handle);
			l->kind = (uint8_t)atomic_load(&want[i].kind);
			l->key = handle_key(l->handle, (enum handle_kind)l->kind);
			l->epoch = atomic_load(&module_epoch);
			while (l->count < MAX_PARAMS &&
			       param_info(l->handle, (enum handle_kind)l->kind, l->count, &size))
				l->size[l->count++] =
					(uint16_t)(size > UINT16_MAX ? UINT16_MAX : size);
			if (!table_put(by_handle, HANDLE_SLOTS, l, same_handle)) {
				atomic_fetch_add(&layout_table_full, 1);
				free(l);
			}
		}
		atomic_store(&want[i].state, 0);
	}
}

uint64_t gs_glue_layout_misses(void)
{
	return atomic_load(&layout_misses);
}

/* Every 8-byte word of every argument of up to 64 bytes is a pointer candidate. */
static void kernel_pointers(struct gs_dd_obs *o, const void *handle, enum handle_kind kind,
			    const char *symbol, void **args)
{
	const struct layout *l;

	if (!args || !handle)
		return;
	l = find_handle(handle, kind);
	if (!l)
		l = find_name(symbol);
	if (!l) {
		want_layout(handle, kind);
		return;
	}
	for (unsigned i = 0; i < l->count && o->n < GS_DD_MAX_PTRS; i++) {
		const unsigned char *arg = args[i];

		if (!arg || l->size[i] < 8 || l->size[i] > 64)
			continue;
		for (unsigned w = 0; w + 8 <= l->size[i] && o->n < GS_DD_MAX_PTRS; w += 8) {
			uint64_t v;

			memcpy(&v, arg + w, sizeof(v));
			if (v)
				o->ptr[o->n++] = v;
		}
	}
}

static void add_ptr(struct gs_dd_obs *o, uint64_t p)
{
	if (p && o->n < GS_DD_MAX_PTRS)
		o->ptr[o->n++] = p;
}

#define P(type) ((const type *)params)
#define PTR(x) ((uint64_t)(uintptr_t)(x))

/* Fill `o` from an API's parameters at ENTER. False: not a tracked call. */
static bool read_pointers(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *params,
			  const char *symbol, struct gs_dd_obs *o)
{
	o->op_kind = GS_OP_MEMCPY;
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
		switch (cbid) {
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
			add_ptr(o, PTR(P(cudaMemcpy_v3020_params)->dst));
			add_ptr(o, PTR(P(cudaMemcpy_v3020_params)->src));
			o->bytes = P(cudaMemcpy_v3020_params)->count;
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000:
			add_ptr(o, PTR(P(cudaMemcpy_ptds_v7000_params)->dst));
			add_ptr(o, PTR(P(cudaMemcpy_ptds_v7000_params)->src));
			o->bytes = P(cudaMemcpy_ptds_v7000_params)->count;
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
			add_ptr(o, PTR(P(cudaMemcpyAsync_v3020_params)->dst));
			add_ptr(o, PTR(P(cudaMemcpyAsync_v3020_params)->src));
			o->bytes = P(cudaMemcpyAsync_v3020_params)->count;
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000:
			add_ptr(o, PTR(P(cudaMemcpyAsync_ptsz_v7000_params)->dst));
			add_ptr(o, PTR(P(cudaMemcpyAsync_ptsz_v7000_params)->src));
			o->bytes = P(cudaMemcpyAsync_ptsz_v7000_params)->count;
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020:
			add_ptr(o, PTR(P(cudaMemcpy2D_v3020_params)->dst));
			add_ptr(o, PTR(P(cudaMemcpy2D_v3020_params)->src));
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020:
			add_ptr(o, PTR(P(cudaMemcpy2DAsync_v3020_params)->dst));
			add_ptr(o, PTR(P(cudaMemcpy2DAsync_v3020_params)->src));
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeer_v4000:
			add_ptr(o, PTR(P(cudaMemcpyPeer_v4000_params)->dst));
			add_ptr(o, PTR(P(cudaMemcpyPeer_v4000_params)->src));
			o->bytes = P(cudaMemcpyPeer_v4000_params)->count;
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000:
			add_ptr(o, PTR(P(cudaMemcpyPeerAsync_v4000_params)->dst));
			add_ptr(o, PTR(P(cudaMemcpyPeerAsync_v4000_params)->src));
			o->bytes = P(cudaMemcpyPeerAsync_v4000_params)->count;
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020:
			o->op_kind = GS_OP_MEMSET;
			add_ptr(o, PTR(P(cudaMemset_v3020_params)->devPtr));
			o->bytes = P(cudaMemset_v3020_params)->count;
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000:
			o->op_kind = GS_OP_MEMSET;
			add_ptr(o, PTR(P(cudaMemset_ptds_v7000_params)->devPtr));
			o->bytes = P(cudaMemset_ptds_v7000_params)->count;
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020:
			o->op_kind = GS_OP_MEMSET;
			add_ptr(o, PTR(P(cudaMemsetAsync_v3020_params)->devPtr));
			o->bytes = P(cudaMemsetAsync_v3020_params)->count;
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000:
			o->op_kind = GS_OP_MEMSET;
			add_ptr(o, PTR(P(cudaMemsetAsync_ptsz_v7000_params)->devPtr));
			o->bytes = P(cudaMemsetAsync_ptsz_v7000_params)->count;
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_ptds_v7000:
			add_ptr(o, PTR(P(cudaMemcpy2D_ptds_v7000_params)->dst));
			add_ptr(o, PTR(P(cudaMemcpy2D_ptds_v7000_params)->src));
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_ptsz_v7000:
			add_ptr(o, PTR(P(cudaMemcpy2DAsync_ptsz_v7000_params)->dst));
			add_ptr(o, PTR(P(cudaMemcpy2DAsync_ptsz_v7000_params)->src));
			return true;
		/* The 3D forms take their parameters' address first. */
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_ptds_v7000:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_ptsz_v7000: {
			const struct cudaMemcpy3DParms *m = P(cudaMemcpy3D_v3020_params)->p;

			if (m) {
				add_ptr(o, PTR(m->dstPtr.ptr));
				add_ptr(o, PTR(m->srcPtr.ptr));
			}
			return true;
		}
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DPeer_v4000:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DPeer_ptds_v7000:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DPeerAsync_v4000:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DPeerAsync_ptsz_v7000: {
			const struct cudaMemcpy3DPeerParms *m = P(cudaMemcpy3DPeer_v4000_params)->p;

			if (m) {
				add_ptr(o, PTR(m->dstPtr.ptr));
				add_ptr(o, PTR(m->srcPtr.ptr));
			}
			return true;
		}
		/* A symbol is a host-side handle: only the other side's pointer
		 * can match an allocation (the symbol's device address would
		 * take a runtime call, not made in a callback). */
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_ptds_v7000:
			add_ptr(o, PTR(P(cudaMemcpyToSymbol_v3020_params)->src));
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_ptsz_v7000:
			add_ptr(o, PTR(P(cudaMemcpyToSymbolAsync_v3020_params)->src));
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_ptds_v7000:
			add_ptr(o, PTR(P(cudaMemcpyFromSymbol_v3020_params)->dst));
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_ptsz_v7000:
			add_ptr(o, PTR(P(cudaMemcpyFromSymbolAsync_v3020_params)->dst));
			return true;
		/* A batch: one op (its copies share the correlation id), the
		 * pointers of its first copies up to GS_DD_MAX_PTRS. */
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_v13000:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_ptsz_v13000: {
			const cudaMemcpyBatchAsync_v13000_params *b =
				P(cudaMemcpyBatchAsync_v13000_params);

			for (size_t i = 0;
			     b->dsts && b->srcs && i < b->count && o->n < GS_DD_MAX_PTRS; i++) {
				add_ptr(o, PTR(b->dsts[i]));
				add_ptr(o, PTR(b->srcs[i]));
			}
			return true;
		}
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemset2D_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemset2D_ptds_v7000:
			o->op_kind = GS_OP_MEMSET;
			add_ptr(o, PTR(P(cudaMemset2D_v3020_params)->devPtr));
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemset2DAsync_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemset2DAsync_ptsz_v7000:
			o->op_kind = GS_OP_MEMSET;
			add_ptr(o, PTR(P(cudaMemset2DAsync_v3020_params)->devPtr));
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemset3D_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemset3D_ptds_v7000:
			o->op_kind = GS_OP_MEMSET;
			add_ptr(o, PTR(P(cudaMemset3D_v3020_params)->pitchedDevPtr.ptr));
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemset3DAsync_v3020:
		case CUPTI_RUNTIME_TRACE_CBID_cudaMemset3DAsync_ptsz_v7000:
			o->op_kind = GS_OP_MEMSET;
			add_ptr(o, PTR(P(cudaMemset3DAsync_v3020_params)->pitchedDevPtr.ptr));
			return true;
		case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
		case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000:
			/* No params struct is published for __cudaLaunchKernel; its
			 * signature is cudaLaunchKernel's with a cudaKernel_t
			 * (= CUkernel) first (layout unverified on a GPU). */
			o->op_kind = GS_OP_KERNEL;
			kernel_pointers(o, P(cudaLaunchKernel_v7000_params)->func, H_KERNEL, symbol,
					P(cudaLaunchKernel_v7000_params)->args);
			return true;
		/* The runtime's launches pass the host stub; ExC's config holds
		 * the grid and stream, func and args are its own parameters. */
		case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
			o->op_kind = GS_OP_KERNEL;
			kernel_pointers(o, P(cudaLaunchKernel_v7000_params)->func, H_STUB, symbol,
					P(cudaLaunchKernel_v7000_params)->args);
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
			o->op_kind = GS_OP_KERNEL;
			kernel_pointers(o, P(cudaLaunchKernel_ptsz_v7000_params)->func, H_STUB,
					symbol, P(cudaLaunchKernel_ptsz_v7000_params)->args);
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
			o->op_kind = GS_OP_KERNEL;
			kernel_pointers(o, P(cudaLaunchKernelExC_v11060_params)->func, H_STUB,
					symbol, P(cudaLaunchKernelExC_v11060_params)->args);
			return true;
		case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
			o->op_kind = GS_OP_KERNEL;
			kernel_pointers(o, P(cudaLaunchKernelExC_ptsz_v11060_params)->func, H_STUB,
					symbol, P(cudaLaunchKernelExC_ptsz_v11060_params)->args);
			return true;
		default:
			return false;
		}
	}
	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpy:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds:
		add_ptr(o, P(cuMemcpy_params)->dst);
		add_ptr(o, P(cuMemcpy_params)->src);
		o->bytes = P(cuMemcpy_params)->ByteCount;
		return true;
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz:
		add_ptr(o, P(cuMemcpyAsync_params)->dst);
		add_ptr(o, P(cuMemcpyAsync_params)->src);
		o->bytes = P(cuMemcpyAsync_params)->ByteCount;
		return true;
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds:
		add_ptr(o, P(cuMemcpyHtoD_v2_params)->dstDevice);
		add_ptr(o, PTR(P(cuMemcpyHtoD_v2_params)->srcHost));
		o->bytes = P(cuMemcpyHtoD_v2_params)->ByteCount;
		return true;
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz:
		add_ptr(o, P(cuMemcpyHtoDAsync_v2_params)->dstDevice);
		add_ptr(o, PTR(P(cuMemcpyHtoDAsync_v2_params)->srcHost));
		o->bytes = P(cuMemcpyHtoDAsync_v2_params)->ByteCount;
		return true;
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds:
		add_ptr(o, PTR(P(cuMemcpyDtoH_v2_params)->dstHost));
		add_ptr(o, P(cuMemcpyDtoH_v2_params)->srcDevice);
		o->bytes = P(cuMemcpyDtoH_v2_params)->ByteCount;
		return true;
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz:
		add_ptr(o, PTR(P(cuMemcpyDtoHAsync_v2_params)->dstHost));
		add_ptr(o, P(cuMemcpyDtoHAsync_v2_params)->srcDevice);
		o->bytes = P(cuMemcpyDtoHAsync_v2_params)->ByteCount;
		return true;
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds:
		add_ptr(o, P(cuMemcpyDtoD_v2_params)->dstDevice);
		add_ptr(o, P(cuMemcpyDtoD_v2_params)->srcDevice);
		o->bytes = P(cuMemcpyDtoD_v2_params)->ByteCount;
		return true;
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz:
		add_ptr(o, P(cuMemcpyDtoDAsync_v2_params)->dstDevice);
		add_ptr(o, P(cuMemcpyDtoDAsync_v2_params)->srcDevice);
		o->bytes = P(cuMemcpyDtoDAsync_v2_params)->ByteCount;
		return true;
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds:
		o->op_kind = GS_OP_MEMSET;
		add_ptr(o, P(cuMemsetD8_v2_params)->dstDevice);
		o->bytes = (uint64_t)P(cuMemsetD8_v2_params)->N;
		return true;
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds:
		o->op_kind = GS_OP_MEMSET;
		add_ptr(o, P(cuMemsetD16_v2_params)->dstDevice);
		o->bytes = (uint64_t)P(cuMemsetD16_v2_params)->N * 2;
		return true;
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds:
		o->op_kind = GS_OP_MEMSET;
		add_ptr(o, P(cuMemsetD32_v2_params)->dstDevice);
		o->bytes = (uint64_t)P(cuMemsetD32_v2_params)->N * 4;
		return true;
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async:
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz:
		o->op_kind = GS_OP_MEMSET;
		add_ptr(o, P(cuMemsetD8Async_params)->dstDevice);
		o->bytes = (uint64_t)P(cuMemsetD8Async_params)->N;
		return true;
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async:
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz:
		o->op_kind = GS_OP_MEMSET;
		add_ptr(o, P(cuMemsetD16Async_params)->dstDevice);
		o->bytes = (uint64_t)P(cuMemsetD16Async_params)->N * 2;
		return true;
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async:
	case CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz:
		o->op_kind = GS_OP_MEMSET;
		add_ptr(o, P(cuMemsetD32Async_params)->dstDevice);
		o->bytes = (uint64_t)P(cuMemsetD32Async_params)->N * 4;
		return true;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
		o->op_kind = GS_OP_KERNEL;
		kernel_pointers(o, P(cuLaunchKernel_params)->f, H_FUNC, symbol,
				P(cuLaunchKernel_params)->kernelParams);
		return true;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
		o->op_kind = GS_OP_KERNEL;
		kernel_pointers(o, P(cuLaunchKernelEx_params)->f, H_FUNC, symbol,
				P(cuLaunchKernelEx_params)->kernelParams);
		return true;
	default:
		return false;
	}
}

#undef P
#undef PTR

/* ---- CUPTI callbacks ---- */

static void CUPTIAPI on_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*buffer = NULL;
	*size = 0;
	*max_records = 0;
	if (hooks)
		hooks->buffer_requested(buffer, size, max_records);
}

static void CUPTIAPI on_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
					 size_t size, size_t valid)
{
	(void)ctx;
	(void)stream;
	if (hooks && buffer)
		hooks->buffer_completed(buffer, size, valid);
}

static bool in_list(const CUpti_CallbackId *l, size_t n, CUpti_CallbackId cbid)
{
	for (size_t i = 0; i < n; i++)
		if (l[i] == cbid)
			return true;
	return false;
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				 const void *data)
{
	const CUpti_CallbackData *cd = data;
	struct gs_dd_obs o;

	(void)userdata;
	/* Kernel layouts are kept from the first module on (no side effect). */
	if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
		if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
			module_loaded(data);
			return;
		}
		if (cbid == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING) {
			atomic_fetch_add(&module_epoch, 1);
			return;
		}
	}
	if (!hooks || hooks->quiet())
		return;
	if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
		if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)
			hooks->flush_point("context destroy");
		return;
	}
	if ((domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API) ||
	    !cd || cd->callbackSite != CUPTI_API_ENTER)
		return;
	if ((domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
	     in_list(flush_runtime, COUNT(flush_runtime), cbid)) ||
	    (domain == CUPTI_CB_DOMAIN_DRIVER_API &&
	     in_list(flush_driver, COUNT(flush_driver), cbid))) {
		hooks->flush_point(domain == CUPTI_CB_DOMAIN_RUNTIME_API ? "device reset" :
									   "context destroy");
		return;
	}
	if (!data_deps || !cd->functionParams)
		return;
	o.correlation = cd->correlationId;
	o.n = 0;
	o.bytes = 0;
	o.time_ns = gs_glue_timestamp();
	if (read_pointers(domain, cbid, cd->functionParams, cd->symbolName, &o) && o.n)
		hooks->observation(&o);
}

/* ---- start / stop ---- */

static void disable_kinds(void)
{
	for (size_t i = 0; i < NKINDS; i++) {
		if (kind_on[i])
			cuptiActivityDisable(kinds[i].kind);
		kind_on[i] = false;
	}
	if (markers_on) {
		cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MARKER);
		cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MARKER_DATA);
		markers_on = false;
	}
}

static void enable_callbacks(CUpti_CallbackDomain domain, const CUpti_CallbackId *ids, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		CUptiResult r = cuptiEnableCallback(1, subscriber, domain, ids[i]);

		if (r != CUPTI_SUCCESS)
			gs_log_debug("callback %d/%u not enabled: %s", (int)domain,
				     (unsigned)ids[i], result_str(r));
	}
}

/* CUPTI 13.0 GA (CUPTI_API_VERSION 130000) deadlocks in
 * cuptiActivityDisable(CONCURRENT_KERNEL) and misses the sync records of
 * cudaDeviceSynchronize; 13.0 Update 1 (130001) fixes both. Said once. */
static void warn_old_cupti(void)
{
	uint32_t v = 0;

	if (cuptiGetVersion(&v) == CUPTI_SUCCESS && v == 130000)
		gs_log_warn("CUPTI 13.0 GA (CUDA 13.0.0) found: it can hang when tracing is turned "
			    "off at exit (the collector waits at most 3 s for it) and misses "
			    "cudaDeviceSynchronize waits; CUDA 13.0 Update 1 or later fixes both");
}

int gs_glue_start(const struct gs_config *cfg, const struct gs_glue_hooks *h, char *msg,
		  size_t size)
{
	CUptiResult r;

	data_deps = cfg->data_deps;
	warn_old_cupti();
	r = cuptiSubscribe(&subscriber, on_callback, NULL);
	if (r != CUPTI_SUCCESS) {
		if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
			snprintf(msg, size,
				 "another CUPTI client is already subscribed (a profiler such as "
				 "Nsight Systems or the PyTorch profiler): %s",
				 result_str(r));
		else
			snprintf(
				msg, size,
				"CUDA driver present but CUPTI cannot use it (%s, error %d, from "
				"cuptiSubscribe): is a GPU visible here (nvidia-smi), and does the "
				"driver support CUDA 13?",
				result_str(r), (int)r);
		return -1;
	}
	subscribed = true;
	hooks = h;
	r = cuptiActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed);
	if (r != CUPTI_SUCCESS) {
		snprintf(msg, size, "cuptiActivityRegisterCallbacks failed: %s (error %d)",
			 result_str(r), (int)r);
		goto fail;
	}
	/* Before any kind: OS thread ids (gettid), as the OS and Nsight show
	 * them and as the writer thread knows its own (the default is
	 * pthread_self() cut to 32 bits). */
	r = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
	if (r != CUPTI_SUCCESS)
		gs_log_debug("system thread ids not set: %s", result_str(r));
	for (size_t i = 0; i < NKINDS; i++) {
		r = kinds[i].dump ? cuptiActivityEnableAndDump(kinds[i].kind) :
				    CUPTI_ERROR_NOT_SUPPORTED;
		if (r != CUPTI_SUCCESS)
			r = cuptiActivityEnable(kinds[i].kind);
		kind_on[i] = r == CUPTI_SUCCESS;
		if (r == CUPTI_SUCCESS)
			continue;
		if (kinds[i].needed) {
			snprintf(msg, size, "cuptiActivityEnable(kind %d) failed: %s (error %d)",
				 (int)kinds[i].kind, result_str(r), (int)r);
			goto fail;
		}
		gs_log_debug("activity kind %d not enabled: %s", (int)kinds[i].kind, result_str(r));
	}
	/* CUPTI reports every cudaEventQuery / cudaStreamQuery as a sync
	 * record, finished or not; the unfinished ones (returnValue
	 * CUDA_ERROR_NOT_READY) go, the rest the converter drops by their API
	 * call. */
	r = cuptiActivityEnableAllSyncRecords(0);
	if (r != CUPTI_SUCCESS)
		gs_log_debug("unfinished query records not turned off: %s", result_str(r));
	if (cfg->nvtx) {
		markers_on = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MARKER) == CUPTI_SUCCESS;
		if (markers_on)
			cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MARKER_DATA);
	}
	for (size_t i = 0; i < COUNT(quiet_runtime); i++)
		cuptiActivityEnableRuntimeApi(quiet_runtime[i], 0);
	for (size_t i = 0; i < COUNT(quiet_driver); i++)
		cuptiActivityEnableDriverApi(quiet_driver[i], 0);
	enable_callbacks(CUPTI_CB_DOMAIN_RUNTIME_API, flush_runtime, COUNT(flush_runtime));
	enable_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, flush_driver, COUNT(flush_driver));
	{
		static const CUpti_CallbackId res[] = {
			CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING};
		enable_callbacks(CUPTI_CB_DOMAIN_RESOURCE, res, COUNT(res));
	}
	if (data_deps) {
		static const CUpti_CallbackId modules[] = {
			CUPTI_CBID_RESOURCE_MODULE_LOADED,
			CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING,
		};

		/* Here, not in a callback: the writer thread calls these. */
		resolve_driver();
		if (!by_name)
			by_name = calloc(NAME_SLOTS, sizeof(*by_name));
		enable_callbacks(CUPTI_CB_DOMAIN_RESOURCE, modules, COUNT(modules));
		enable_callbacks(CUPTI_CB_DOMAIN_RUNTIME_API, deps_runtime, COUNT(deps_runtime));
		enable_callbacks(CUPTI_CB_DOMAIN_DRIVER_API, deps_driver, COUNT(deps_driver));
	}
	return 0;
fail:
	disable_kinds();
	hooks = NULL;
	cuptiUnsubscribe(subscriber);
	subscribed = false;
	return -1;
}

/* Once, by whichever thread comes first: the exit's thread and the writer
 * (a file it cannot write) may both stop. The others return at once, never
 * waiting: the first may be stuck in CUPTI (13.0 GA's disable deadlock). */
static atomic_bool stopped;

void gs_glue_stop(void)
{
	if (!subscribed || atomic_exchange(&stopped, true))
		return;
	disable_kinds();
	cuptiEnableDomain(0, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
	cuptiEnableDomain(0, subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
	cuptiEnableDomain(0, subscriber, CUPTI_CB_DOMAIN_RESOURCE);
}

int gs_glue_flush(bool forced)
{
	CUptiResult r = cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);

	if (r != CUPTI_SUCCESS) {
		gs_log_debug("cuptiActivityFlushAll(%d): %s", forced ? 1 : 0, result_str(r));
		return -1;
	}
	return 0;
}

int64_t gs_glue_timestamp(void)
{
	uint64_t t = 0;

	if (cuptiGetTimestamp(&t) != CUPTI_SUCCESS || t > (uint64_t)INT64_MAX)
		return 0;
	return (int64_t)t;
}

uint64_t gs_glue_dropped(void)
{
	size_t n = 0;

	if (cuptiActivityGetNumDroppedRecords(NULL, 0, &n) != CUPTI_SUCCESS)
		return 0;
	return n;
}

int gs_glue_next_record(uint8_t *buffer, size_t valid, CUpti_Activity **rec)
{
	return cuptiActivityGetNextRecord(buffer, valid, rec) == CUPTI_SUCCESS ? 1 : 0;
}

void gs_glue_release_record(CUpti_Activity *rec)
{
	if (rec->kind == CUPTI_ACTIVITY_KIND_DEVICE) {
		CUpti_ActivityDevice5 *d = (CUpti_ActivityDevice5 *)(void *)rec;

		free((void *)(uintptr_t)d->name);
		d->name = NULL;
	} else if (rec->kind == CUPTI_ACTIVITY_KIND_OVERHEAD) {
		CUpti_ActivityOverhead3 *o = (CUpti_ActivityOverhead3 *)(void *)rec;

		free(o->overheadData);
		o->overheadData = NULL;
	}
}

uint64_t gs_glue_release_buffer(uint8_t *buffer, size_t valid)
{
	CUpti_Activity *rec = NULL;
	uint64_t n = 0;

	while (valid && gs_glue_next_record(buffer, valid, &rec) == 1) {
		gs_glue_release_record(rec);
		n++;
	}
	return n;
}

bool gs_glue_cupti_path(char *buf, size_t size)
{
	CUptiResult (*fn)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *) = cuptiSubscribe;
	char real[PATH_MAX];
	const char *path;
	Dl_info info;
	void *sym;

	memcpy(&sym, &fn, sizeof(sym));
	if (!dladdr(sym, &info) || !info.dli_fname || !info.dli_fname[0])
		return false;
	path = realpath(info.dli_fname, real) ? real : info.dli_fname;
	if (strlen(path) >= size)
		return false;
	snprintf(buf, size, "%s", path);
	return true;
}

const char *gs_glue_api_name(void *ctx, unsigned domain, uint32_t cbid)
{
	const char *name = NULL;

	(void)ctx;
	if (domain != CUPTI_CB_DOMAIN_RUNTIME_API && domain != CUPTI_CB_DOMAIN_DRIVER_API)
		return NULL;
	if (cuptiGetCallbackName((CUpti_CallbackDomain)domain, cbid, &name) != CUPTI_SUCCESS)
		return NULL;
	return name;
}

void gs_glue_versions(char *cupti, size_t ncupti, char *driver, size_t ndriver, char *runtime,
		      size_t nruntime)
{
	uint32_t v = 0;
	void *sym;
	int dv = 0;

	cupti[0] = driver[0] = runtime[0] = '\0';
	if (cuptiGetVersion(&v) == CUPTI_SUCCESS)
		snprintf(cupti, ncupti, "%u", v);
	sym = driver_symbol("cuDriverGetVersion");
	if (sym) {
		driver_version_fn fn;

		memcpy(&fn, &sym, sizeof(fn));
		if (fn(&dv) == CUDA_SUCCESS)
			snprintf(driver, ndriver, "%d", dv);
	}
	/* The program's own runtime, when it exports the symbol (dynamic cudart). */
	sym = dlsym(RTLD_DEFAULT, "cudaRuntimeGetVersion");
	if (sym) {
		int (*fn)(int *);
		int rv = 0;

		memcpy(&fn, &sym, sizeof(fn));
		if (fn(&rv) == 0)
			snprintf(runtime, nruntime, "%d", rv);
	}
}
