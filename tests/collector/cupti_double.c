/* SPDX-License-Identifier: MIT */
/*
 * The CUPTI test double (see cupti_double.h). Thread-safe: one mutex
 * guards the state; it is never held while the collector's callbacks run.
 */
#include "cupti_double.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_THREADS 128
#define MAX_CALLBACKS 256
#define MAX_KINDS 64

struct tbuf {
	pthread_t thread;
	bool live;
	uint8_t *buf;
	size_t size, used;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct gsd_options opts;
static pid_t owner; /* the process that subscribed */
static bool subscribed;
static CUpti_CallbackFunc callback;
static void *callback_data;
static CUpti_BuffersCallbackRequestFunc requested;
static CUpti_BuffersCallbackCompleteFunc completed;
static uint64_t enabled_cb[MAX_CALLBACKS];
static unsigned nenabled_cb;
static bool domain_off[8];
static bool kind_on[MAX_KINDS];
static struct tbuf tbufs[MAX_THREADS];
static struct gsd_stats stats;
static atomic_ullong now_ns = 1000000;
static atomic_ullong dropped_pending;

void gsd_configure(const struct gsd_options *o)
{
	pthread_mutex_lock(&lock);
	opts = *o;
	pthread_mutex_unlock(&lock);
}

void gsd_set_time(uint64_t ns)
{
	atomic_store(&now_ns, ns);
}

struct gsd_stats gsd_get_stats(void)
{
	struct gsd_stats s;

	pthread_mutex_lock(&lock);
	s = stats;
	pthread_mutex_unlock(&lock);
	return s;
}

size_t gsd_record_size(CUpti_ActivityKind kind)
{
	switch (kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		return sizeof(CUpti_ActivityKernel10);
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		return sizeof(CUpti_ActivityMemcpy6);
	case CUPTI_ACTIVITY_KIND_MEMCPY2:
		return sizeof(CUpti_ActivityMemcpyPtoP4);
	case CUPTI_ACTIVITY_KIND_MEMSET:
		return sizeof(CUpti_ActivityMemset4);
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		return sizeof(CUpti_ActivitySynchronization2);
	case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
		return sizeof(CUpti_ActivityCudaEvent2);
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER:
	case CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API:
		return sizeof(CUpti_ActivityAPI);
	case CUPTI_ACTIVITY_KIND_MEMORY2:
		return sizeof(CUpti_ActivityMemory4);
	case CUPTI_ACTIVITY_KIND_STREAM:
		return sizeof(CUpti_ActivityStream);
	case CUPTI_ACTIVITY_KIND_CONTEXT:
		return sizeof(CUpti_ActivityContext3);
	case CUPTI_ACTIVITY_KIND_DEVICE:
		return sizeof(CUpti_ActivityDevice5);
	case CUPTI_ACTIVITY_KIND_OVERHEAD:
		return sizeof(CUpti_ActivityOverhead3);
	case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
		return sizeof(CUpti_ActivityExternalCorrelation);
	case CUPTI_ACTIVITY_KIND_MARKER:
		return sizeof(CUpti_ActivityMarker2);
	default:
		return 0;
	}
}

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* A flush, enable or disable from a forked child: real CUPTI hangs there. */
static void check_not_forked(void)
{
	if (subscribed && getpid() != owner)
		abort();
}

/* ---- the CUPTI API ---- */

CUptiResult CUPTIAPI cuptiGetResultString(CUptiResult result, const char **str)
{
	switch (result) {
	case CUPTI_SUCCESS:
		*str = "CUPTI_SUCCESS";
		break;
	case CUPTI_ERROR_UNKNOWN:
		*str = "CUPTI_ERROR_UNKNOWN";
		break;
	case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
		*str = "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED";
		break;
	default:
		*str = "CUPTI_ERROR_(other)";
		break;
	}
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetVersion(uint32_t *version)
{
	*version = CUPTI_API_VERSION;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t *timestamp)
{
	*timestamp = atomic_fetch_add(&now_ns, 1);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc fn,
				    void *userdata)
{
	CUptiResult r;

	pthread_mutex_lock(&lock);
	stats.subscribes++;
	r = opts.fail_all ? opts.fail_all : opts.subscribe_result;
	if (r == CUPTI_SUCCESS) {
		if (subscribed) {
			r = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
		} else {
			subscribed = true;
			owner = getpid();
			callback = fn;
			callback_data = userdata;
			*subscriber = (CUpti_SubscriberHandle)(uintptr_t)0x5u;
		}
	}
	pthread_mutex_unlock(&lock);
	return r;
}

CUptiResult CUPTIAPI cuptiUnsubscribe(CUpti_SubscriberHandle subscriber)
{
	(void)subscriber;
	pthread_mutex_lock(&lock);
	subscribed = false;
	callback = NULL;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
					 CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	uint64_t key = (uint64_t)domain << 32 | cbid;

	(void)subscriber;
	if (opts.fail_all)
		return opts.fail_all;
	pthread_mutex_lock(&lock);
	check_not_forked();
	for (unsigned i = 0; i < nenabled_cb; i++) {
		if (enabled_cb[i] == key) {
			if (!enable)
				enabled_cb[i] = enabled_cb[--nenabled_cb];
			pthread_mutex_unlock(&lock);
			return CUPTI_SUCCESS;
		}
	}
	if (enable && nenabled_cb < MAX_CALLBACKS)
		enabled_cb[nenabled_cb++] = key;
	if ((unsigned)domain < 8 && enable)
		domain_off[domain] = false;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber,
				       CUpti_CallbackDomain domain)
{
	(void)subscriber;
	if (opts.fail_all)
		return opts.fail_all;
	pthread_mutex_lock(&lock);
	check_not_forked();
	if ((unsigned)domain < 8)
		domain_off[domain] = !enable;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
						    CUpti_BuffersCallbackCompleteFunc comp)
{
	if (opts.fail_all)
		return opts.fail_all;
	pthread_mutex_lock(&lock);
	requested = req;
	completed = comp;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

static CUptiResult set_kind(CUpti_ActivityKind kind, bool on)
{
	if (opts.fail_all)
		return opts.fail_all;
	if ((unsigned)kind >= MAX_KINDS)
		return CUPTI_ERROR_INVALID_KIND;
	pthread_mutex_lock(&lock);
	check_not_forked();
	kind_on[kind] = on;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind)
{
	return set_kind(kind, true);
}

CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind)
{
	return set_kind(kind, false);
}

CUptiResult CUPTIAPI cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable)
{
	(void)cbid;
	(void)enable;
	return opts.fail_all;
}

CUptiResult CUPTIAPI cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t enable)
{
	(void)cbid;
	(void)enable;
	return opts.fail_all;
}

CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext context, uint32_t streamId,
						       size_t *dropped)
{
	(void)context;
	(void)streamId;
	if (opts.fail_all)
		return opts.fail_all;
	*dropped = (size_t)atomic_exchange(&dropped_pending, 0);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityGetNextRecord(uint8_t *buffer, size_t validBufferSizeBytes,
						CUpti_Activity **record)
{
	size_t off = 0, size;

	if (!buffer)
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (*record) {
		size = gsd_record_size((*record)->kind);
		off = (size_t)((uint8_t *)*record - buffer) + align8(size);
	}
	if (off + sizeof(CUpti_Activity) > validBufferSizeBytes)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	size = gsd_record_size(((CUpti_Activity *)(void *)(buffer + off))->kind);
	if (!size || off + size > validBufferSizeBytes)
		return CUPTI_ERROR_INVALID_KIND;
	*record = (CUpti_Activity *)(void *)(buffer + off);
	return CUPTI_SUCCESS;
}

/* Take every non-empty buffer (under lock) and complete them (without). */
CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag)
{
	struct tbuf out[MAX_THREADS];
	CUpti_BuffersCallbackCompleteFunc comp;
	unsigned n = 0;

	if (opts.fail_all)
		return opts.fail_all;
	pthread_mutex_lock(&lock);
	check_not_forked();
	stats.flushes++;
	if (opts.hang_flush_from && stats.flushes >= opts.hang_flush_from) {
		pthread_mutex_unlock(&lock);
		for (;;) /* never returns; the lock is not held */
			pause();
	}
	if (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)
		stats.forced_flushes++;
	for (unsigned i = 0; i < MAX_THREADS; i++) {
		if (tbufs[i].live && tbufs[i].buf && tbufs[i].used) {
			out[n++] = tbufs[i];
			tbufs[i].buf = NULL;
			tbufs[i].used = 0;
		}
	}
	stats.buffers_completed += n;
	comp = completed;
	pthread_mutex_unlock(&lock);
	for (unsigned i = 0; i < n; i++)
		if (comp)
			comp(NULL, 0, out[i].buf, out[i].size, out[i].used);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid,
					  const char **name)
{
	static const struct {
		CUpti_CallbackDomain domain;
		uint32_t cbid;
		const char *name;
	} names[] = {
		{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,
		 "cudaMemcpy_v3020"},
		{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
		 "cudaMemcpyAsync_v3020"},
		{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
		 "cudaLaunchKernel_v7000"},
		{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
		 "__cudaLaunchKernel_v13000"},
		{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020,
		 "cudaEventRecord_v3020"},
		{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020,
		 "cudaStreamWaitEvent_v3020"},
		{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
		 "cudaStreamSynchronize_v3020"},
		{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020,
		 "cudaEventSynchronize_v3020"},
		{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
		 "cudaDeviceSynchronize_v3020"},
		{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
		 "cudaGraphLaunch_v10000"},
		{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
		 "cudaMalloc_v3020"},
		{CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020,
		 "cudaFree_v3020"},
		{CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
		 "cuLaunchKernel"},
		{CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2,
		 "cuMemcpyHtoD_v2"},
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (names[i].domain == domain && names[i].cbid == cbid) {
			*name = names[i].name;
			return CUPTI_SUCCESS;
		}
	}
	*name = NULL;
	return CUPTI_ERROR_INVALID_PARAMETER;
}

/* ---- scenario control ---- */

static struct tbuf *thread_slot(void)
{
	pthread_t self = pthread_self();
	int free_at = -1;

	for (int i = 0; i < MAX_THREADS; i++) {
		if (tbufs[i].live && pthread_equal(tbufs[i].thread, self))
			return &tbufs[i];
		if (!tbufs[i].live && free_at < 0)
			free_at = i;
	}
	if (free_at < 0)
		return NULL;
	tbufs[free_at] = (struct tbuf){.thread = self, .live = true};
	return &tbufs[free_at];
}

int gsd_emit(const void *record)
{
	const CUpti_Activity *rec = record;
	size_t size = gsd_record_size(rec->kind);

	if (!size)
		abort(); /* a test bug */
	for (int tries = 0; tries < 3; tries++) {
		struct tbuf *t, full = {0};
		CUpti_BuffersCallbackRequestFunc req;
		CUpti_BuffersCallbackCompleteFunc comp;
		uint8_t *nb = NULL;
		size_t nsize = 0, maxrec = 0;

		pthread_mutex_lock(&lock);
		if (!subscribed || !requested || (unsigned)rec->kind >= MAX_KINDS ||
		    !kind_on[rec->kind]) {
			pthread_mutex_unlock(&lock);
			return 1; /* not collected: as CUPTI with the kind off */
		}
		t = thread_slot();
		if (t && t->buf && t->used + align8(size) <= t->size) {
			memcpy(t->buf + t->used, record, size);
			t->used += align8(size);
			pthread_mutex_unlock(&lock);
			return 0;
		}
		if (t && t->buf) { /* full: hand it back first */
			full = *t;
			t->buf = NULL;
			t->used = 0;
			stats.buffers_completed++;
		}
		req = requested;
		comp = completed;
		pthread_mutex_unlock(&lock);
		if (full.buf && comp)
			comp(NULL, 0, full.buf, full.size, full.used);
		if (full.buf)
			continue;
		req(&nb, &nsize, &maxrec);
		pthread_mutex_lock(&lock);
		stats.buffers_requested++;
		if (!nb || nsize < size) {
			stats.buffers_refused++;
			stats.dropped++;
			atomic_fetch_add(&dropped_pending, 1);
			pthread_mutex_unlock(&lock);
			return -1;
		}
		t = thread_slot();
		if (t) {
			t->buf = nb;
			t->size = nsize;
			t->used = 0;
		}
		pthread_mutex_unlock(&lock);
	}
	return -1;
}

void gsd_complete_raw(uint8_t *buffer, size_t size, size_t valid)
{
	CUpti_BuffersCallbackCompleteFunc comp;

	pthread_mutex_lock(&lock);
	comp = completed;
	pthread_mutex_unlock(&lock);
	if (comp)
		comp(NULL, 0, buffer, size, valid);
}

uint8_t *gsd_request_raw(size_t *size)
{
	CUpti_BuffersCallbackRequestFunc req;
	uint8_t *b = NULL;
	size_t maxrec = 0;

	*size = 0;
	pthread_mutex_lock(&lock);
	req = requested;
	pthread_mutex_unlock(&lock);
	if (req)
		req(&b, size, &maxrec);
	return b;
}

void gsd_complete_thread_buffer(void)
{
	struct tbuf *t, full = {0};
	CUpti_BuffersCallbackCompleteFunc comp;

	pthread_mutex_lock(&lock);
	t = thread_slot();
	if (t && t->buf) {
		full = *t;
		t->buf = NULL;
		t->used = 0;
		stats.buffers_completed++;
	}
	comp = completed;
	pthread_mutex_unlock(&lock);
	if (full.buf && comp)
		comp(NULL, 0, full.buf, full.size, full.used);
}

bool gsd_callback_enabled(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	uint64_t key = (uint64_t)domain << 32 | cbid;
	bool on = false;

	pthread_mutex_lock(&lock);
	if ((unsigned)domain < 8 && domain_off[domain]) {
		pthread_mutex_unlock(&lock);
		return false;
	}
	for (unsigned i = 0; i < nenabled_cb && !on; i++)
		on = enabled_cb[i] == key;
	pthread_mutex_unlock(&lock);
	return on;
}

bool gsd_kind_enabled(CUpti_ActivityKind kind)
{
	bool on;

	pthread_mutex_lock(&lock);
	on = (unsigned)kind < MAX_KINDS && kind_on[kind];
	pthread_mutex_unlock(&lock);
	return on;
}

void gsd_api(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, CUpti_ApiCallbackSite site,
	     uint32_t correlation, const void *params)
{
	CUpti_CallbackData cd;
	CUpti_CallbackFunc fn;
	void *ud;
	const char *name = NULL;

	if (!gsd_callback_enabled(domain, cbid))
		return;
	pthread_mutex_lock(&lock);
	fn = callback;
	ud = callback_data;
	pthread_mutex_unlock(&lock);
	if (!fn)
		return;
	cuptiGetCallbackName(domain, cbid, &name);
	memset(&cd, 0, sizeof(cd));
	cd.callbackSite = site;
	cd.functionName = name ? name : "?";
	cd.functionParams = params;
	cd.correlationId = correlation;
	fn(ud, domain, cbid, &cd);
}

void gsd_resource(CUpti_CallbackId cbid)
{
	CUpti_ResourceData rd;
	CUpti_CallbackFunc fn;
	void *ud;

	if (!gsd_callback_enabled(CUPTI_CB_DOMAIN_RESOURCE, cbid))
		return;
	pthread_mutex_lock(&lock);
	fn = callback;
	ud = callback_data;
	pthread_mutex_unlock(&lock);
	if (!fn)
		return;
	memset(&rd, 0, sizeof(rd));
	fn(ud, CUPTI_CB_DOMAIN_RESOURCE, cbid, &rd);
}
