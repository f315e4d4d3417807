/* SPDX-License-Identifier: MIT */
/*
 * The CUPTI test double (see cupti_double.h). Thread-safe: one mutex
 * guards the state; it is never held while the collector's callbacks run.
 * A worker thread (started at cuptiActivityRegisterCallbacks) delivers
 * every buffer CUPTI hands back on its own: a FIFO of buffers and a count
 * of those delivered, which a flush waits for.
 */
#include "cupti_double.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define GSD_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GSD_ASAN 1
#endif
#endif
#ifdef GSD_ASAN
/* The ASan runtime's (sanitizer/allocator_interface.h, not always installed):
 * non-zero while `p` is a live block of its allocator. */
int __sanitizer_get_ownership(const volatile void *p);
#endif

#define MAX_THREADS 128
#define MAX_CALLBACKS 256
#define MAX_KINDS 64
#define MAX_HELD 64    /* full buffers waiting for incomplete records */
#define MAX_TICKETS 64 /* incomplete records */
#define MAX_EXISTING 32
#define MAX_OWNED 4096 /* client-owned blocks tracked (the ASan check) */
#define MAX_CBID 2048

struct tbuf {
	pthread_t thread;
	bool live;
	uint8_t *buf;
	size_t size, used;
	unsigned incomplete; /* records with end == 0 in buf */
};

/* A buffer on its way to the worker thread. */
struct delivery {
	struct delivery *next;
	uint8_t *buf;
	size_t size, used;
};

struct ticket {
	bool live;
	uint8_t *buf; /* the buffer the record is in (while CUPTI holds it) */
	size_t off;
	CUpti_ActivityKind kind;
	uint64_t end;
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
static atomic_ullong next_seq;
static atomic_ullong dropped_query;

uint64_t gsd_next_seq(void)
{
	return (uint64_t)atomic_fetch_add(&next_seq, 1) + 1;
}

uint64_t gsd_last_dropped_query(void)
{
	return (uint64_t)atomic_load(&dropped_query);
}
static bool system_tids;
static bool any_kind_enabled;
static bool unfinished_syncs_off; /* cuptiActivityEnableAllSyncRecords(0) */

static uint8_t api_off[2][MAX_CBID]; /* [0] runtime, [1] driver: records off */
static struct tbuf held[MAX_HELD];   /* full, with incomplete records */
static struct ticket tickets[MAX_TICKETS];
#define MAX_RECORD 512
static struct {
	_Alignas(8) uint8_t rec[MAX_RECORD];
} existing[MAX_EXISTING];
static unsigned nexisting;

static pthread_cond_t worker_cond = PTHREAD_COND_INITIALIZER;    /* work queued */
static pthread_cond_t delivered_cond = PTHREAD_COND_INITIALIZER; /* work done */
static struct delivery *q_head, *q_tail;
static uint64_t queued, delivered;
static bool worker_started;

static struct {
	void *p;
	uint8_t *buf; /* in this buffer */
	bool handed;  /* the buffer reached the collector */
} owned[MAX_OWNED];   /* malloc'd blocks the client must free */
static unsigned nowned;
static bool owned_check_registered;

/* fork: the double's lock is taken around it, so that a child never
 * inherits it held by a thread that does not exist there (the worker
 * thread, a scenario's thread). */
static void fork_prepare(void)
{
	pthread_mutex_lock(&lock);
}

static void fork_done(void)
{
	pthread_mutex_unlock(&lock);
}

__attribute__((constructor)) static void fork_handlers(void)
{
	pthread_atfork(fork_prepare, fork_done, fork_done);
}

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
	s.system_thread_ids = system_tids;
	s.unfinished_syncs_off = unfinished_syncs_off;
	pthread_mutex_unlock(&lock);
	return s;
}

uint32_t gsd_thread_id(void)
{
	bool sys;

	pthread_mutex_lock(&lock);
	sys = system_tids;
	pthread_mutex_unlock(&lock);
	return sys ? (uint32_t)syscall(SYS_gettid) : (uint32_t)(uintptr_t)pthread_self();
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
	*version = opts.version ? opts.version : CUPTI_API_VERSION;
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

/* ---- the worker thread and the buffers CUPTI holds ---- */

static void *worker_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;) {
		struct delivery *d;
		CUpti_BuffersCallbackCompleteFunc comp;

		while (!q_head)
			pthread_cond_wait(&worker_cond, &lock);
		d = q_head;
		q_head = d->next;
		if (!q_head)
			q_tail = NULL;
		for (unsigned i = 0; i < nowned; i++)
			if (owned[i].buf == d->buf)
				owned[i].handed = true;
		comp = completed;
		pthread_mutex_unlock(&lock);
		if (comp)
			comp(NULL, 0, d->buf, d->size, d->used);
		free(d);
		pthread_mutex_lock(&lock);
		delivered++;
		pthread_cond_broadcast(&delivered_cond);
	}
	return NULL;
}

/* At exit, after the collector's exit handler (registered later): every
 * block handed to it that it had to free is freed. ASan builds only: a
 * freed block is no longer owned by the allocator (it sits in quarantine). */
static void owned_check(void)
{
#ifdef GSD_ASAN
	unsigned leaked = 0;

	if (getpid() != owner)
		return;
	pthread_mutex_lock(&lock);
	for (unsigned i = 0; i < nowned; i++)
		if (owned[i].handed && __sanitizer_get_ownership(owned[i].p))
			leaked++;
	pthread_mutex_unlock(&lock);
	if (leaked) {
		fprintf(stderr,
			"cupti double: %u blocks the client must free (Device5.name, "
			"Overhead3.overheadData) were never freed\n",
			leaked);
		fflush(stderr);
		_exit(86);
	}
#endif
}

/* Queue a buffer for the worker (lock held); its sequence number. */
static uint64_t enqueue_locked(uint8_t *buf, size_t size, size_t used)
{
	struct delivery *d = malloc(sizeof(*d));

	if (!d)
		abort(); /* a test machine out of memory */
	*d = (struct delivery){.buf = buf, .size = size, .used = used};
	if (q_tail)
		q_tail->next = d;
	else
		q_head = d;
	q_tail = d;
	/* Records completed from now on are never delivered again. */
	for (unsigned i = 0; i < MAX_TICKETS; i++)
		if (tickets[i].live && tickets[i].buf == buf)
			tickets[i].live = false;
	stats.buffers_completed++;
	pthread_cond_signal(&worker_cond);
	return ++queued;
}

static void wait_delivered_locked(uint64_t seq)
{
	while (worker_started && delivered < seq)
		pthread_cond_wait(&delivered_cond, &lock);
}

/* A thread's full buffer goes back: at once, or held while incomplete. */
static void retire_locked(struct tbuf *t)
{
	if (t->incomplete) {
		for (unsigned i = 0; i < MAX_HELD; i++) {
			if (!held[i].buf) {
				held[i] = *t;
				goto done;
			}
		}
	}
	enqueue_locked(t->buf, t->size, t->used);
done:
	t->buf = NULL;
	t->used = 0;
	t->incomplete = 0;
}

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
						    CUpti_BuffersCallbackCompleteFunc comp)
{
	pthread_attr_t attr;
	pthread_t th;

	if (opts.fail_all)
		return opts.fail_all;
	pthread_mutex_lock(&lock);
	requested = req;
	completed = comp;
	if (!worker_started) {
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&th, &attr, worker_main, NULL) == 0) {
			worker_started = true;
			stats.worker = th;
		}
		pthread_attr_destroy(&attr);
	}
	if (!owned_check_registered) {
		owned_check_registered = true;
		atexit(owned_check);
	}
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
	if (on)
		any_kind_enabled = true;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

/* Enabled after CUDA initialisation: the objects that exist give no record. */
CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind)
{
	return set_kind(kind, true);
}

static int emit(const void *record, bool incomplete, int *ticket);

CUptiResult CUPTIAPI cuptiActivityEnableAndDump(CUpti_ActivityKind kind)
{
	CUptiResult r = set_kind(kind, true);
	unsigned n;

	if (r != CUPTI_SUCCESS)
		return r;
	pthread_mutex_lock(&lock);
	stats.enable_and_dump++;
	n = nexisting;
	pthread_mutex_unlock(&lock);
	for (unsigned i = 0; i < n; i++)
		if (((const CUpti_Activity *)(const void *)existing[i].rec)->kind == kind)
			emit(existing[i].rec, false, NULL);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind)
{
	if (opts.hang_disable && kind == opts.hang_disable && !opts.fail_all)
		for (;;) /* never returns; no lock held */
			pause();
	return set_kind(kind, false);
}

CUptiResult CUPTIAPI cuptiSetThreadIdType(CUpti_ActivityThreadIdType type)
{
	if (opts.fail_all)
		return opts.fail_all;
	if (type != CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT &&
	    type != CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)
		return CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&lock);
	if (any_kind_enabled)
		stats.thread_id_type_late = true;
	system_tids = type == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableAllSyncRecords(uint8_t enable)
{
	if (opts.fail_all)
		return opts.fail_all;
	pthread_mutex_lock(&lock);
	unfinished_syncs_off = !enable;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

/* A sync record with a non-zero returnValue (a query of unfinished work:
 * CUDA_ERROR_NOT_READY) after cuptiActivityEnableAllSyncRecords(0) (lock held). */
static bool sync_filtered(const uint8_t *rec)
{
	CUpti_ActivitySynchronization2 y;

	memcpy(&y, rec, sizeof(y));
	return unfinished_syncs_off && y.returnValue != 0;
}

static CUptiResult api_records(int domain, CUpti_CallbackId cbid, uint8_t enable)
{
	if (opts.fail_all)
		return opts.fail_all;
	if (cbid >= MAX_CBID)
		return CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&lock);
	api_off[domain][cbid] = !enable;
	pthread_mutex_unlock(&lock);
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable)
{
	return api_records(0, cbid, enable);
}

CUptiResult CUPTIAPI cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t enable)
{
	return api_records(1, cbid, enable);
}

CUptiResult CUPTIAPI cuptiActivityGetNumDroppedRecords(CUcontext context, uint32_t streamId,
						       size_t *dropped)
{
	(void)context;
	(void)streamId;
	if (opts.fail_all)
		return opts.fail_all;
	*dropped = (size_t)atomic_exchange(&dropped_pending, 0);
	atomic_store(&dropped_query, gsd_next_seq());
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

/*
 * Hand back the buffers CUPTI holds: every non-empty one when forced (with
 * their incomplete records as they are), else only those whose records are
 * all complete. Returns when the worker thread has delivered them.
 */
CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag)
{
	bool forced = (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != 0;

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
	if (forced)
		stats.forced_flushes++;
	for (unsigned i = 0; i < MAX_THREADS; i++) {
		struct tbuf *t = &tbufs[i];

		if (t->live && t->buf && t->used && (forced || !t->incomplete)) {
			enqueue_locked(t->buf, t->size, t->used);
			t->buf = NULL;
			t->used = 0;
			t->incomplete = 0;
		}
	}
	for (unsigned i = 0; forced && i < MAX_HELD; i++) {
		if (held[i].buf) {
			enqueue_locked(held[i].buf, held[i].size, held[i].used);
			held[i].buf = NULL;
		}
	}
	wait_delivered_locked(queued);
	pthread_mutex_unlock(&lock);
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

static bool is_api(CUpti_ActivityKind k)
{
	return k == CUPTI_ACTIVITY_KIND_RUNTIME || k == CUPTI_ACTIVITY_KIND_DRIVER ||
	       k == CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API;
}

/* Off through cuptiActivityEnableRuntimeApi / EnableDriverApi (lock held). */
static bool api_filtered(const uint8_t *rec)
{
	CUpti_ActivityAPI a;

	memcpy(&a, rec, sizeof(a));
	if (a.cbid >= MAX_CBID)
		return false;
	if (a.kind == CUPTI_ACTIVITY_KIND_RUNTIME)
		return api_off[0][a.cbid];
	if (a.kind == CUPTI_ACTIVITY_KIND_DRIVER)
		return api_off[1][a.cbid];
	return false;
}

static void own(void *p, uint8_t *buf)
{
	if (p && nowned < MAX_OWNED)
		owned[nowned++] = (__typeof__(owned[0])){.p = p, .buf = buf};
}

/* What CUPTI fills in itself: thread ids, the client-owned blocks (lock held). */
static void fill_record(uint8_t *r, uint8_t *buf)
{
	CUpti_ActivityKind kind = ((CUpti_Activity *)(void *)r)->kind;
	uint32_t tid = system_tids ? (uint32_t)syscall(SYS_gettid) :
				     (uint32_t)(uintptr_t)pthread_self();

	if (is_api(kind)) {
		CUpti_ActivityAPI a;

		memcpy(&a, r, sizeof(a));
		if (!a.threadId) {
			a.threadId = tid;
			a.processId = (uint32_t)getpid();
		}
		memcpy(r, &a, sizeof(a));
	} else if (kind == CUPTI_ACTIVITY_KIND_OVERHEAD) {
		CUpti_ActivityOverhead3 o;

		memcpy(&o, r, sizeof(o));
		if (o.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD && !o.objectId.pt.threadId) {
			o.objectId.pt.threadId = tid;
			o.objectId.pt.processId = (uint32_t)getpid();
		}
		o.overheadData = calloc(1, 16);
		own(o.overheadData, buf);
		memcpy(r, &o, sizeof(o));
	} else if (kind == CUPTI_ACTIVITY_KIND_DEVICE) {
		CUpti_ActivityDevice5 d;

		memcpy(&d, r, sizeof(d));
		d.name = strdup(d.name ? d.name : "");
		own((void *)(uintptr_t)d.name, buf);
		memcpy(r, &d, sizeof(d));
	}
}

/* Where a record's end is (and a kernel's completed): 0 when it has none. */
static size_t end_offset(CUpti_ActivityKind kind)
{
	switch (kind) {
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
	case CUPTI_ACTIVITY_KIND_KERNEL:
		return offsetof(CUpti_ActivityKernel10, end);
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		return offsetof(CUpti_ActivityMemcpy6, end);
	case CUPTI_ACTIVITY_KIND_MEMSET:
		return offsetof(CUpti_ActivityMemset4, end);
	default:
		return 0;
	}
}

static void set_end(uint8_t *r, CUpti_ActivityKind kind, uint64_t end)
{
	memcpy(r + end_offset(kind), &end, sizeof(end));
	if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || kind == CUPTI_ACTIVITY_KIND_KERNEL)
		memcpy(r + offsetof(CUpti_ActivityKernel10, completed), &end, sizeof(end));
}

/* Copy a record into t's buffer (lock held, room checked). */
static void place(struct tbuf *t, const void *record, size_t size, bool incomplete, int *ticket)
{
	_Alignas(8) uint8_t r[MAX_RECORD];
	CUpti_ActivityKind kind = ((const CUpti_Activity *)record)->kind;

	memcpy(r, record, size);
	fill_record(r, t->buf);
	if (incomplete) {
		unsigned i = 0;
		uint64_t end;

		while (i < MAX_TICKETS && tickets[i].live)
			i++;
		if (i == MAX_TICKETS)
			abort(); /* a test bug */
		memcpy(&end, r + end_offset(kind), sizeof(end));
		tickets[i] = (struct ticket){.live = true,
					     .buf = t->buf,
					     .off = t->used,
					     .kind = kind,
					     .end = end};
		set_end(r, kind, 0);
		t->incomplete++;
		*ticket = (int)i;
	}
	memcpy(t->buf + t->used, r, size);
	t->used += align8(size);
}

static int emit(const void *record, bool incomplete, int *ticket)
{
	const CUpti_Activity *rec = record;
	size_t size = gsd_record_size(rec->kind);

	if (!size || size > MAX_RECORD || (incomplete && !end_offset(rec->kind)))
		abort(); /* a test bug */
	for (int tries = 0; tries < 3; tries++) {
		struct tbuf *t;
		CUpti_BuffersCallbackRequestFunc req;
		uint8_t *nb = NULL;
		size_t nsize = 0, maxrec = 0;

		pthread_mutex_lock(&lock);
		if (!subscribed || !requested || (unsigned)rec->kind >= MAX_KINDS ||
		    !kind_on[rec->kind] || (is_api(rec->kind) && api_filtered(record)) ||
		    (rec->kind == CUPTI_ACTIVITY_KIND_SYNCHRONIZATION && sync_filtered(record))) {
			pthread_mutex_unlock(&lock);
			return 1; /* not collected: as CUPTI with the kind off */
		}
		t = thread_slot();
		if (t && t->buf && t->used + align8(size) <= t->size) {
			place(t, record, size, incomplete, ticket);
			pthread_mutex_unlock(&lock);
			return 0;
		}
		if (t && t->buf) { /* full: CUPTI hands it back on its own thread */
			retire_locked(t);
			pthread_mutex_unlock(&lock);
			continue;
		}
		req = requested;
		pthread_mutex_unlock(&lock);
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
			t->incomplete = 0;
		}
		pthread_mutex_unlock(&lock);
	}
	return -1;
}

int gsd_emit(const void *record)
{
	return emit(record, false, NULL);
}

int gsd_emit_incomplete(const void *record)
{
	int ticket = -1;

	return emit(record, true, &ticket) == 0 ? ticket : -1;
}

void gsd_complete_record(int ticket)
{
	struct ticket *tk;
	struct tbuf *holder = NULL;
	bool is_held = false;

	if (ticket < 0 || ticket >= MAX_TICKETS)
		return;
	pthread_mutex_lock(&lock);
	tk = &tickets[ticket];
	for (unsigned i = 0; tk->live && !holder && i < MAX_THREADS; i++)
		if (tbufs[i].live && tbufs[i].buf == tk->buf)
			holder = &tbufs[i];
	for (unsigned i = 0; tk->live && !holder && i < MAX_HELD; i++)
		if (held[i].buf == tk->buf) {
			holder = &held[i];
			is_held = true;
		}
	if (holder) {
		set_end(holder->buf + tk->off, tk->kind, tk->end);
		holder->incomplete--;
		if (is_held && !holder->incomplete) {
			enqueue_locked(holder->buf, holder->size, holder->used);
			holder->buf = NULL;
		}
	}
	tk->live = false;
	pthread_mutex_unlock(&lock);
}

void gsd_cuda_exists(const void *record)
{
	const CUpti_Activity *rec = record;
	size_t size = gsd_record_size(rec->kind);
	bool on;

	if (!size || size > MAX_RECORD)
		abort(); /* a test bug */
	pthread_mutex_lock(&lock);
	if (nexisting < MAX_EXISTING)
		memcpy(existing[nexisting++].rec, record, size);
	on = subscribed && kind_on[rec->kind];
	pthread_mutex_unlock(&lock);
	if (on)
		emit(record, false, NULL);
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
	struct tbuf *t;

	pthread_mutex_lock(&lock);
	t = thread_slot();
	if (t && t->buf)
		wait_delivered_locked(enqueue_locked(t->buf, t->size, t->used));
	if (t) {
		t->buf = NULL;
		t->used = 0;
		t->incomplete = 0;
	}
	pthread_mutex_unlock(&lock);
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

/* The depth of subscriber callbacks running on this thread. */
static _Thread_local unsigned callback_depth;

bool gsd_in_callback(void)
{
	return callback_depth > 0;
}

static void deliver(CUpti_CallbackFunc fn, void *ud, CUpti_CallbackDomain domain,
		    CUpti_CallbackId cbid, const void *data)
{
	callback_depth++;
	fn(ud, domain, cbid, data);
	callback_depth--;
}

void gsd_api_sym(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, CUpti_ApiCallbackSite site,
		 uint32_t correlation, const void *params, const char *symbol)
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
	cd.symbolName = symbol;
	deliver(fn, ud, domain, cbid, &cd);
}

void gsd_api(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, CUpti_ApiCallbackSite site,
	     uint32_t correlation, const void *params)
{
	gsd_api_sym(domain, cbid, site, correlation, params, NULL);
}

static void resource(CUpti_CallbackId cbid, void *descriptor)
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
	rd.resourceDescriptor = descriptor;
	deliver(fn, ud, CUPTI_CB_DOMAIN_RESOURCE, cbid, &rd);
}

void gsd_resource(CUpti_CallbackId cbid)
{
	resource(cbid, NULL);
}

void gsd_module(CUpti_CallbackId cbid, uint32_t module_id, const void *cubin, size_t size)
{
	CUpti_ModuleResourceData m = {.moduleId = module_id, .cubinSize = size, .pCubin = cubin};

	resource(cbid, &m);
}
