// SPDX-License-Identifier: MIT
// One-shot experiments of the GPU check (tests/gpu/experiments.sh): small
// programs that settle what the CUPTI headers leave open. Built twice by
// scripts/gpu-bundle.sh: `experiments` and, with --default-stream
// per-thread, `experiments_ptsz`.
//
//   experiments small              a little work: kernels, copies, the device's name
//   experiments cupti              its own CUPTI subscriber (run without the collector):
//                                  query sync records, nested driver callbacks in
//                                  runtime launches, cuptiSubscribe and kernel
//                                  timestamps; prints "result b|c|i: ..." lines
//   experiments streams            kernels on the default stream from two threads, on
//                                  cudaStreamPerThread and on cudaStreamLegacy
//   experiments launches N SECS    up to N empty-kernel launches or SECS seconds;
//                                  prints "experiments pid=P", then "launched=K"
//                                  every 50 ms and at the end
//   experiments reset              kernels, cudaDeviceReset, kernels; a context
//                                  created with cuCtxCreate, used and destroyed;
//                                  kernels again; prints "reset ok kernels=N"
//
// It does not link libcuda: driver functions come through
// cudaGetDriverEntryPointByVersion, so that it starts on a machine without a
// driver and says so. Exit status: 0 done, 77 no usable GPU (the first CUDA
// call failed; "needs a GPU: ..." on stderr), 1 something else failed.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CHECK(x)                                                                                   \
	do {                                                                                       \
		cudaError_t e_ = (x);                                                              \
		if (e_ != cudaSuccess) {                                                           \
			fprintf(stderr, "experiments: %s: %s\n", #x, cudaGetErrorString(e_));      \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

__global__ void empty(int *p)
{
	if (p && threadIdx.x == 1024)
		*p = 1;
}

__global__ void fill(float *p, int n, float v)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] = v;
}

/* Busy for about `ns` nanoseconds of GPU time. */
__global__ void spin(long long ns)
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while ((long long)(t - t0) < ns);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long os_tid(void)
{
	return (long)syscall(SYS_gettid);
}

/* The first CUDA call: exit 77 when no GPU can be used. */
static void first_call(const char *why)
{
	cudaError_t e = cudaFree(0);

	if (e != cudaSuccess) {
		fprintf(stderr, "needs a GPU: cudaFree(0): %s (error %d)%s%s\n",
			cudaGetErrorString(e), (int)e, why ? "; " : "", why ? why : "");
		exit(77);
	}
}

/* A driver function in its CUDA 12.0 form. */
static void *driver_fn(const char *name)
{
	void *fn = NULL;
	cudaDriverEntryPointQueryResult q;

	if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q) !=
		    cudaSuccess ||
	    q != cudaDriverEntryPointSuccess || !fn) {
		fprintf(stderr, "experiments: no driver entry point %s\n", name);
		exit(1);
	}
	return fn;
}

/* ---- small ---- */

static int run_small(void)
{
	const int n = 1 << 16;
	float *d, *h;
	cudaDeviceProp prop;
	int rc;

	first_call(NULL);
	CHECK(cudaGetDeviceProperties(&prop, 0));
	CHECK(cudaMalloc(&d, n * sizeof(float)));
	h = (float *)calloc(n, sizeof(float));
	if (!h)
		return 1;
	for (int k = 0; k < 8; k++)
		fill<<<n / 256, 256>>>(d, n, (float)k);
	CHECK(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(d));
	printf("small ok device=\"%s\" value=%g\n", prop.name, h[0]);
	rc = h[0] == 7.0f ? 0 : 1;
	free(h);
	return rc;
}

/* ---- cupti ---- */

#define MAX_LABELS 64
#define MAX_NESTED 16
#define BUF_SIZE (1u << 20)

struct label {
	uint32_t corr;
	const char *what;
	int ret; /* the call's own return value */
	int driver;
};

static struct label labels[MAX_LABELS];
static int n_labels;
static const char *current_label; /* set around each query call, main thread only */
static char nested[MAX_NESTED][96];
static int n_nested;
static __thread uint32_t in_rt_launch; /* the runtime launch cbid being run, 0 if none */
static int rt_launches, rt_launches_nested;
static __thread int nested_seen;
static pthread_mutex_t cb_lock = PTHREAD_MUTEX_INITIALIZER;

static int kernels, kernels_zero, drv_launch_records, rt_launch_records;
static char syncs[4096];
static size_t syncs_len;
static int unlabeled_syncs;

static int is_rt_launch(CUpti_CallbackId cbid)
{
	return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 ||
	       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000 ||
	       cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000 ||
	       cbid == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000 ||
	       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060 ||
	       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060;
}

static int is_query(CUpti_CallbackDomain dom, CUpti_CallbackId cbid)
{
	if (dom == CUPTI_CB_DOMAIN_RUNTIME_API)
		return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020 ||
		       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020 ||
		       cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_ptsz_v7000;
	return cbid == CUPTI_DRIVER_TRACE_CBID_cuEventQuery ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamQuery ||
	       cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamQuery_ptsz;
}

static void CUPTIAPI on_callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId cbid,
				 const void *data)
{
	const CUpti_CallbackData *cb = (const CUpti_CallbackData *)data;

	(void)ud;
	if (dom != CUPTI_CB_DOMAIN_RUNTIME_API && dom != CUPTI_CB_DOMAIN_DRIVER_API)
		return;
	if (dom == CUPTI_CB_DOMAIN_RUNTIME_API && is_rt_launch(cbid)) {
		if (cb->callbackSite == CUPTI_API_ENTER) {
			in_rt_launch = cbid;
			nested_seen = 0;
		} else {
			pthread_mutex_lock(&cb_lock);
			rt_launches++;
			rt_launches_nested += nested_seen;
			pthread_mutex_unlock(&cb_lock);
			in_rt_launch = 0;
		}
		return;
	}
	if (dom == CUPTI_CB_DOMAIN_DRIVER_API && in_rt_launch &&
	    cb->callbackSite == CUPTI_API_ENTER) {
		char one[96];
		const char *rt = NULL;
		int seen = 0;

		nested_seen = 1;
		cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, in_rt_launch, &rt);
		snprintf(one, sizeof(one), "%s>%s", rt ? rt : "?", cb->functionName);
		pthread_mutex_lock(&cb_lock);
		for (int i = 0; i < n_nested; i++)
			seen |= !strcmp(nested[i], one);
		if (!seen && n_nested < MAX_NESTED)
			strcpy(nested[n_nested++], one);
		pthread_mutex_unlock(&cb_lock);
		return;
	}
	if (is_query(dom, cbid) && cb->callbackSite == CUPTI_API_EXIT && current_label &&
	    n_labels < MAX_LABELS) {
		struct label *l = &labels[n_labels++];

		l->corr = cb->correlationId;
		l->what = current_label;
		l->driver = dom == CUPTI_CB_DOMAIN_DRIVER_API;
		l->ret = cb->functionReturnValue ? *(const int *)cb->functionReturnValue : -1;
	}
}

static void CUPTIAPI buf_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
	*buf = (uint8_t *)aligned_alloc(8, BUF_SIZE);
	*size = *buf ? BUF_SIZE : 0;
	*max_records = 0;
}

static const char *sync_type(unsigned t)
{
	switch (t) {
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
		return "EVENT_SYNCHRONIZE";
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
		return "STREAM_WAIT_EVENT";
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
		return "STREAM_SYNCHRONIZE";
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
		return "CONTEXT_SYNCHRONIZE";
	default:
		return "UNKNOWN";
	}
}

static void on_sync(const CUpti_ActivitySynchronization2 *y)
{
	const struct label *l = NULL;

	for (int i = 0; i < n_labels; i++)
		if (labels[i].corr == y->correlationId)
			l = &labels[i];
	if (!l) {
		unlabeled_syncs++;
		return;
	}
	if (syncs_len < sizeof(syncs))
		syncs_len += (size_t)snprintf(syncs + syncs_len, sizeof(syncs) - syncs_len,
					      "%s%s%s: %s returnValue=%u", syncs_len ? "; " : "",
					      l->what, l->driver ? " (driver corr)" : "",
					      sync_type(y->type), (unsigned)y->returnValue);
}

static void CUPTIAPI buf_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
				   size_t valid)
{
	CUpti_Activity *r = NULL;

	(void)ctx;
	(void)stream;
	(void)size;
	while (cuptiActivityGetNextRecord(buf, valid, &r) == CUPTI_SUCCESS) {
		switch (r->kind) {
		case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
			const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)r;

			kernels++;
			kernels_zero += k->start == 0 || k->end == 0;
			break;
		}
		case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
			on_sync((const CUpti_ActivitySynchronization2 *)r);
			break;
		case CUPTI_ACTIVITY_KIND_DRIVER: {
			const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *)r;

			drv_launch_records += a->cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ||
					      a->cbid ==
						      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz;
			break;
		}
		case CUPTI_ACTIVITY_KIND_RUNTIME:
			rt_launch_records += is_rt_launch(((const CUpti_ActivityAPI *)r)->cbid);
			break;
		default:
			break;
		}
	}
	free(buf);
}

static const char *cupti_err(CUptiResult r)
{
	const char *s = NULL;

	cuptiGetResultString(r, &s);
	return s ? s : "?";
}

/* Event and stream queries on unfinished, then finished work. */
static void queries(cudaStream_t s, cudaEvent_t ev, const char *phase)
{
	static char names[8][64];
	static int used;
	const char *what[4] = {"EventQuery busy", "StreamQuery busy", "EventQuery done",
			       "StreamQuery done"};
	cudaError_t got[4];

	for (int i = 0; i < 4 && used < 8; i++, used++)
		snprintf(names[used], sizeof(names[used]), "%s %s", phase, what[i]);
	spin<<<1, 1, 0, s>>>(50 * 1000 * 1000LL);
	CHECK(cudaEventRecord(ev, s));
	current_label = names[used - 4];
	got[0] = cudaEventQuery(ev);
	current_label = names[used - 3];
	got[1] = cudaStreamQuery(s);
	current_label = NULL;
	CHECK(cudaStreamSynchronize(s));
	current_label = names[used - 2];
	got[2] = cudaEventQuery(ev);
	current_label = names[used - 1];
	got[3] = cudaStreamQuery(s);
	current_label = NULL;
	printf("queries %s: returned %d %d %d %d\n", phase, (int)got[0], (int)got[1], (int)got[2],
	       (int)got[3]);
}

static int run_cupti(void)
{
	CUpti_SubscriberHandle sub;
	CUptiResult sr, r;
	uint32_t version = 0;
	char why[160];
	cudaStream_t s;
	cudaEvent_t ev;
	int *d;
	CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
			   unsigned, CUstream, void **, void **);
	CUfunction fn;
	static const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
						   CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
						   CUPTI_ACTIVITY_KIND_CUDA_EVENT,
						   CUPTI_ACTIVITY_KIND_RUNTIME,
						   CUPTI_ACTIVITY_KIND_DRIVER};

	cuptiGetVersion(&version);
	sr = cuptiSubscribe(&sub, on_callback, NULL);
	snprintf(why, sizeof(why), "CUPTI %u, cuptiSubscribe: %s (%d)", version, cupti_err(sr),
		 (int)sr);
	if (sr == CUPTI_SUCCESS) {
		cuptiActivityRegisterCallbacks(buf_requested, buf_completed);
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if ((r = cuptiActivityEnable(kinds[i])) != CUPTI_SUCCESS)
				fprintf(stderr, "experiments: cuptiActivityEnable(%d): %s\n",
					(int)kinds[i], cupti_err(r));
		cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API);
		cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API);
	}
	first_call(why);
	if (sr != CUPTI_SUCCESS) {
		printf("result i: %s with a working GPU\n", why);
		return 1;
	}
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
	CHECK(cudaMalloc(&d, sizeof(int)));

	/* (c): a <<<>>> launch, a cudaLaunchKernel call, a cuLaunchKernel call. */
	empty<<<1, 32, 0, s>>>(d);
	{
		void *args[] = {&d};

		CHECK(cudaLaunchKernel((const void *)empty, dim3(1), dim3(32), args, 0, s));
		CHECK(cudaGetFuncBySymbol((cudaFunction_t *)&fn, (const void *)empty));
		*(void **)&launch = driver_fn("cuLaunchKernel");
		if (launch(fn, 1, 1, 1, 32, 1, 1, 0, (CUstream)s, args, NULL) != CUDA_SUCCESS) {
			fprintf(stderr, "experiments: cuLaunchKernel failed\n");
			return 1;
		}
	}
	CHECK(cudaStreamSynchronize(s));

	/* (b): with every sync record, then with CUPTI's default. */
	r = cuptiActivityEnableAllSyncRecords(1);
	queries(s, ev, r == CUPTI_SUCCESS ? "all=1" : "all=1(failed)");
	cuptiActivityFlushAll(0);
	r = cuptiActivityEnableAllSyncRecords(0);
	queries(s, ev, r == CUPTI_SUCCESS ? "all=0" : "all=0(failed)");
	CHECK(cudaDeviceSynchronize());
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);

	printf("result b: %s; %d other sync records\n", syncs_len ? syncs : "no query sync records",
	       unlabeled_syncs);
	{
		char list[MAX_NESTED * 96 + 16] = "";

		for (int i = 0; i < n_nested; i++) {
			strcat(list, i ? ", " : "");
			strcat(list, nested[i]);
		}
		printf("result c: %d of %d runtime launches had nested driver callbacks (%s); "
		       "activity records: %d runtime launch, %d driver cuLaunchKernel (1 direct)\n",
		       rt_launches_nested, rt_launches, n_nested ? list : "none", rt_launch_records,
		       drv_launch_records);
	}
	printf("result i: cuptiSubscribe ok (CUPTI %u); %d kernel records, %d with a zero "
	       "start or end\n",
	       version, kernels, kernels_zero);
	cuptiUnsubscribe(sub);
	CHECK(cudaFree(d));
	return kernels > 0 && kernels_zero == 0 ? 0 : 1;
}

/* ---- streams ---- */

struct worker {
	long tid;
	int failed;
};

static void *stream_worker(void *arg)
{
	struct worker *w = (struct worker *)arg;

	w->tid = os_tid();
	empty<<<1, 32>>>(NULL);
	empty<<<1, 32>>>(NULL);
	w->failed = cudaGetLastError() != cudaSuccess || cudaStreamSynchronize(0) != cudaSuccess;
	return NULL;
}

static int run_streams(void)
{
	struct worker w = {0, 0};
	pthread_t t;

	first_call(NULL);
	empty<<<1, 32>>>(NULL); /* the default stream */
	empty<<<1, 32>>>(NULL);
	if (pthread_create(&t, NULL, stream_worker, &w) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	empty<<<1, 32, 0, cudaStreamPerThread>>>(NULL);
	empty<<<1, 32, 0, cudaStreamLegacy>>>(NULL);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
	printf("streams build=per-thread");
#else
	printf("streams build=legacy");
#endif
	printf(" tid main=%ld worker=%ld\n", os_tid(), w.tid);
	return w.failed;
}

/* ---- launches ---- */

static int run_launches(long n, double secs)
{
	cudaStream_t s;
	long long t0, next;
	long i;

	first_call(NULL);
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	printf("experiments pid=%ld\n", (long)getpid());
	fflush(stdout);
	t0 = now_ns();
	next = t0 + 50000000LL;
	for (i = 0; i < n; i++) {
		empty<<<1, 32, 0, s>>>(NULL);
		if ((i & 255) == 255) {
			long long t = now_ns();

			if (t >= next) {
				printf("launched=%ld\n", i + 1);
				fflush(stdout);
				next = t + 50000000LL;
			}
			if (t - t0 >= (long long)(secs * 1e9)) {
				i++;
				break;
			}
		}
	}
	CHECK(cudaGetLastError());
	CHECK(cudaStreamSynchronize(s));
	printf("launched=%ld\n", i);
	return 0;
}

/* ---- reset ---- */

static int run_reset(void)
{
	/* The CUDA 12.0 forms: cuCtxCreate_v2(pctx, flags, dev), cuCtxSynchronize(void). */
	CUresult (*ctx_create)(CUcontext *, unsigned, CUdevice);
	CUresult (*ctx_destroy)(CUcontext);
	CUresult (*mem_alloc)(CUdeviceptr *, size_t);
	CUresult (*memset_d8)(CUdeviceptr, unsigned char, size_t);
	CUresult (*ctx_sync)(void);
	CUcontext ctx;
	CUdeviceptr p;
	int launched = 0;

	first_call(NULL);
	for (int k = 0; k < 4; k++, launched++)
		empty<<<1, 32>>>(NULL);
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaDeviceReset());
	for (int k = 0; k < 4; k++, launched++) /* a new primary context */
		empty<<<1, 32>>>(NULL);
	CHECK(cudaDeviceSynchronize());

	*(void **)&ctx_create = driver_fn("cuCtxCreate");
	*(void **)&ctx_destroy = driver_fn("cuCtxDestroy");
	*(void **)&mem_alloc = driver_fn("cuMemAlloc");
	*(void **)&memset_d8 = driver_fn("cuMemsetD8");
	*(void **)&ctx_sync = driver_fn("cuCtxSynchronize");
	if (ctx_create(&ctx, 0, 0) != CUDA_SUCCESS || mem_alloc(&p, 1 << 20) != CUDA_SUCCESS ||
	    memset_d8(p, 1, 1 << 20) != CUDA_SUCCESS || ctx_sync() != CUDA_SUCCESS) {
		fprintf(stderr, "experiments: work in a cuCtxCreate context failed\n");
		return 1;
	}
	if (ctx_destroy(ctx) != CUDA_SUCCESS) {
		fprintf(stderr, "experiments: cuCtxDestroy failed\n");
		return 1;
	}
	/* The runtime's primary context again. */
	CHECK(cudaSetDevice(0));
	CHECK(cudaFree(0));
	for (int k = 0; k < 4; k++, launched++)
		empty<<<1, 32>>>(NULL);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	printf("reset ok kernels=%d\n", launched);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "small"))
		return run_small();
	if (!strcmp(mode, "cupti"))
		return run_cupti();
	if (!strcmp(mode, "streams"))
		return run_streams();
	if (!strcmp(mode, "launches") && argc == 4)
		return run_launches(atol(argv[2]), atof(argv[3]));
	if (!strcmp(mode, "reset"))
		return run_reset();
	fprintf(stderr, "usage: experiments small|cupti|streams|reset|launches N SECONDS\n");
	return 2;
}
