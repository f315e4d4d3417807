/* SPDX-License-Identifier: MIT */
/*
 * The collector's writer thread and its queue (see output.h).
 *
 * Producers (CUPTI's bufferCompleted, the callbacks, the timer) only link
 * a buffer into a list or copy an observation under `lock`, then signal.
 * The thread takes everything queued in one swap and works without the
 * lock. A request (flush, close) is acknowledged through `done_seq` so the
 * exit and signal paths can wait for the data to be on disk. Each record
 * read from a buffer, converted or not, has what CUPTI hands the client
 * with it freed (gs_glue_release_record). The API records of the writer
 * thread itself (the version queries) are left out by its gettid: CUPTI
 * is set to give system thread ids. With data deps it also looks up, for
 * the launch callbacks, the kernel parameter layouts they found no entry
 * for (gs_glue_resolve_layouts: driver and runtime calls stay out of
 * callbacks).
 */
#include "output.h"

#include "cupti_glue.h"
#include "demangle.h"
#include "log.h"
#include "record_convert.h"

#include <gpuscope/gscope_file.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define OBS_BATCH 4096u
#define MAX_OVERHEADS 64u
#define CLOCK_EVERY_NS 1000000000LL
#define MAX_NAME_ATTEMPTS 100u

/* A span the collector spent in the program's process (the periodic CUPTI
 * flush), written to the trace as an overhead record. */
struct overhead_span {
	int64_t start, end;
};

static struct {
	const struct gs_config *cfg;
	struct gs_pool *pool;
	int64_t start_ns;

	pthread_mutex_t lock;
	pthread_cond_t cond;      /* work queued */
	pthread_cond_t done_cond; /* a request finished */
	struct gs_pool_buf *head, *tail;
	struct gs_dd_obs *obs, *obs_spare;
	size_t nobs;
	uint64_t obs_dropped;
	struct overhead_span overheads[MAX_OVERHEADS];
	size_t n_overheads;
	unsigned req;
	uint64_t req_seq, done_seq;
	bool running;
	bool started; /* the writer thread has run (gs_out_start waits for it) */
	pthread_t thread;

	/* Writer thread only. */
	struct gs_writer *w;
	struct gs_sink *sink;
	struct gs_conv *conv;
	struct gs_dd *dd;
	int64_t pid;
	uint64_t generation;
	uint64_t dropped; /* CUPTI drops not yet written */
	int64_t last_clock;
	uint32_t flush_name;
	int fd; /* the file (gs_writer_open_fd: ours to close) */

	atomic_bool disabled;
	/* After a write error (a full disk): records that never reach the
	 * file, counted for the loss chunk gs_writer_close_lost ends it with. */
	bool failed; /* writer thread only */
	char fail_why[256];
	atomic_ullong lost;
	atomic_uint flush_hang_ms; /* the exit flush did not return in this time */
	pthread_mutex_t path_lock;
	char path[PATH_MAX];
} out = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
	.done_cond = PTHREAD_COND_INITIALIZER,
	.path_lock = PTHREAD_MUTEX_INITIALIZER,
};

bool gs_out_disabled(void)
{
	return atomic_load(&out.disabled);
}

void gs_out_path(char *buf, size_t size)
{
	pthread_mutex_lock(&out.path_lock);
	snprintf(buf, size, "%s", out.path);
	pthread_mutex_unlock(&out.path_lock);
}

/* ---- producers ---- */

void gs_out_push_buffer(uint8_t *buffer, size_t valid)
{
	struct gs_pool_buf *b = gs_pool_header(buffer);

	b->next = NULL;
	b->valid = valid;
	pthread_mutex_lock(&out.lock);
	if (out.tail)
		out.tail->next = b;
	else
		out.head = b;
	out.tail = b;
	pthread_cond_signal(&out.cond);
	pthread_mutex_unlock(&out.lock);
}

void gs_out_push_obs(const struct gs_dd_obs *o)
{
	pthread_mutex_lock(&out.lock);
	if (out.obs && out.nobs < OBS_BATCH) {
		out.obs[out.nobs++] = *o;
		if (out.nobs == OBS_BATCH / 2)
			pthread_cond_signal(&out.cond);
	} else {
		out.obs_dropped++;
	}
	pthread_mutex_unlock(&out.lock);
}

void gs_out_overhead(int64_t start_ns, int64_t end_ns)
{
	if (!start_ns || end_ns < start_ns)
		return;
	pthread_mutex_lock(&out.lock);
	if (out.n_overheads < MAX_OVERHEADS)
		out.overheads[out.n_overheads++] = (struct overhead_span){start_ns, end_ns};
	pthread_mutex_unlock(&out.lock);
}

static void deadline_in(struct timespec *ts, unsigned ms)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

int gs_out_request(unsigned what, bool wait, unsigned timeout_ms)
{
	struct timespec dl;
	uint64_t seq;
	int rc = 0;

	pthread_mutex_lock(&out.lock);
	if (!out.running) {
		pthread_mutex_unlock(&out.lock);
		return -1;
	}
	out.req |= what;
	seq = ++out.req_seq;
	pthread_cond_signal(&out.cond);
	if (wait) {
		if (timeout_ms)
			deadline_in(&dl, timeout_ms);
		while (out.done_seq < seq && rc == 0) {
			if (timeout_ms)
				rc = pthread_cond_timedwait(&out.done_cond, &out.lock, &dl) ? -1 :
											      0;
			else
				pthread_cond_wait(&out.done_cond, &out.lock);
		}
		if (out.done_seq >= seq)
			rc = 0;
	}
	pthread_mutex_unlock(&out.lock);
	return rc;
}

/* ---- the file ---- */

static void disable(const char *why)
{
	if (!atomic_exchange(&out.disabled, true)) {
		gs_log_disabled("%s", why);
		gs_glue_stop();
	}
}

static void write_failed(void)
{
	char chain[GS_ERROR_MAX_CAUSES * (GS_ERROR_MSG_MAX + 2)];
	char msg[sizeof(chain) + PATH_MAX + 160];

	gs_error_format(chain, sizeof(chain));
	if (!out.failed) {
		/* The innermost cause ("write failed at byte N: <errno text>"):
		 * what went wrong, without the file's name and context. */
		const char *root = gs_error_count() > 0 ? gs_error_message(0) : NULL;
		const char *from = root && *root ? root : chain;
		size_t n = strlen(from);

		out.failed = true;
		if (n >= sizeof(out.fail_why))
			n = sizeof(out.fail_why) - 1;
		memcpy(out.fail_why, from, n);
		out.fail_why[n] = '\0';
	}
	gs_error_clear();
	{
		/* The chain names the file too: once is enough. */
		size_t lp = strlen(out.path);
		const char *why = chain;

		if (lp && !strncmp(why, out.path, lp) && !strncmp(why + lp, ": ", 2))
			why += lp + 2;
		snprintf(msg, sizeof(msg),
			 "cannot write %s: %s (the file keeps its whole chunks; the records "
			 "lost are counted at its end when there is room)",
			 out.path, why);
	}
	disable(msg);
}

/* The host's name as gethostname gives it; "" when it cannot. */
static void real_host_name(char *buf, size_t size)
{
	if (gethostname(buf, size) != 0)
		buf[0] = '\0';
	buf[size - 1] = '\0';
}

/* The host's name for a file name (%h): never empty, no '/'. */
static void host_name(char *buf, size_t size)
{
	real_host_name(buf, size);
	if (!buf[0])
		snprintf(buf, size, "localhost");
	for (char *p = buf; *p; p++)
		if (*p == '/')
			*p = '_';
}

static void command_line(char *buf, size_t size)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = 0;

	buf[0] = '\0';
	if (fd < 0)
		return;
	while ((size_t)n < size - 1) {
		ssize_t k = read(fd, buf + n, size - 1 - (size_t)n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += k;
	}
	close(fd);
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
}

static gs_status intern_str(const char *s, uint32_t *id)
{
	if (!s || !*s) {
		*id = GS_NO_STRING;
		return GS_OK;
	}
	return out.sink->intern(out.sink, s, strlen(s), id);
}

static int64_t monotonic_raw_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC_RAW, &ts) != 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* host_ns: CLOCK_MONOTONIC_RAW; gpu_ns: CUPTI's clock, the trace's timeline. */
static gs_status clock_pair(void)
{
	struct gs_clock_pair c = {.pid = out.pid, .device = UINT32_MAX};
	int64_t a = monotonic_raw_ns();

	c.gpu_ns = gs_glue_timestamp();
	c.host_ns = a / 2 + monotonic_raw_ns() / 2;
	out.last_clock = c.gpu_ns;
	if (!c.gpu_ns || !c.host_ns)
		return GS_OK;
	return out.sink->clock_pair(out.sink, &c);
}

static int64_t realtime_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * The offset from CUPTI's clock (the trace's times) to Unix-epoch ns: read
 * beside CLOCK_REALTIME. CUPTI's clock on Linux is CLOCK_REALTIME itself
 * (the offset is then a read's own noise, under a millisecond: 0); where it
 * is another clock (WSL: CLOCK_MONOTONIC_RAW) the offset is the one
 * measured. False when a clock cannot be read.
 */
static bool wall_offset(int64_t *off)
{
	int64_t a = realtime_ns(), c = gs_glue_timestamp(), b = realtime_ns(), d;

	if (!a || !b || !c)
		return false;
	d = a / 2 + b / 2 - c;
	*off = d > -1000000 && d < 1000000 ? 0 : d;
	return true;
}

static gs_status write_process(void)
{
	char host[256], cmd[4096], cupti[32], driver[32], runtime[32];
	struct gs_process p = {.pid = out.pid,
			       .start_ns = out.start_ns,
			       .has_rank = out.cfg->has_rank,
			       .rank = out.cfg->rank,
			       .world_size = out.cfg->world_size,
			       .backend = GS_NO_STRING};
	gs_status rc;

	if (wall_offset(&p.wall_offset_ns))
		p.clock = GS_CLOCK_COLLECTOR;

	real_host_name(host, sizeof(host));
	command_line(cmd, sizeof(cmd));
	gs_glue_versions(cupti, sizeof(cupti), driver, sizeof(driver), runtime, sizeof(runtime));
	rc = intern_str(host, &p.host_name);
	if (!rc)
		rc = intern_str(cmd, &p.command_line);
	if (!rc)
		rc = intern_str(driver, &p.driver_version);
	if (!rc)
		rc = intern_str(runtime, &p.runtime_version);
	if (!rc)
		rc = intern_str(cupti, &p.cupti_version);
	if (!rc)
		rc = out.sink->process(out.sink, &p);
	return rc;
}

/* Create the file on first use. False when collection is off. */
static bool ensure_open(void)
{
	struct gs_writer_options opts = {.compression_level = -1};
	char host[256], path[PATH_MAX], msg[PATH_MAX + 128];
	bool has_pid = gs_config_has_pid(out.cfg->output);
	gs_status rc;
	int fd = -1, err = 0;

	if (atomic_load(&out.disabled))
		return false;
	if (out.w)
		return true;
	host_name(host, sizeof(host));
	out.pid = getpid();
	for (unsigned attempt = 0; attempt < MAX_NAME_ATTEMPTS; attempt++) {
		if (gs_config_expand(out.cfg->output, (long)out.pid, host, attempt, path,
				     sizeof(path))) {
			snprintf(msg, sizeof(msg), "bad output path pattern %s", out.cfg->output);
			disable(msg);
			return false;
		}
		/* Never overwrite, never follow a symbolic link. */
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		err = errno;
		if (fd >= 0 || err != EEXIST || !has_pid)
			break;
	}
	if (fd < 0) {
		struct stat st;

		if (err == ELOOP || (err == EEXIST && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)))
			snprintf(msg, sizeof(msg), "%s is a symbolic link: not followed", path);
		else if (err == EEXIST)
			snprintf(msg, sizeof(msg), "%s already exists: not overwritten", path);
		else
			snprintf(msg, sizeof(msg), "cannot create %s: %s", path, strerror(err));
		disable(msg);
		return false;
	}
	rc = gs_writer_open_fd(fd, path, &opts, &out.w);
	if (rc) {
		close(fd);
		snprintf(msg, sizeof(msg), "cannot write %s", path);
		gs_error_clear();
		disable(msg);
		return false;
	}
	out.fd = fd;
	pthread_mutex_lock(&out.path_lock);
	snprintf(out.path, sizeof(out.path), "%s", path);
	pthread_mutex_unlock(&out.path_lock);
	out.sink = gs_writer_borrow_sink(out.w);
	rc = gs_dd_create(out.sink, out.pid, &out.dd);
	if (!rc)
		rc = gs_conv_create(out.sink, out.dd, out.pid, gs_glue_api_name, NULL, &out.conv);
	if (!rc) {
		gs_conv_ignore_thread(out.conv, (uint32_t)syscall(SYS_gettid));
		gs_conv_set_demangler(out.conv, gs_demangle); /* on this, the writer thread */
		rc = write_process();
	}
	if (!rc)
		rc = clock_pair();
	if (!rc)
		rc = out.sink->intern(out.sink, "gpuscope activity flush", 23, &out.flush_name);
	if (rc) {
		write_failed();
		return false;
	}
	gs_log_debug("writing %s", path);
	return true;
}

void gs_out_discard_buffer(uint8_t *buffer, size_t valid)
{
	if (atomic_load(&out.disabled) && valid)
		atomic_fetch_add(&out.lost, gs_glue_release_buffer(buffer, valid));
	gs_pool_put(out.pool, buffer);
}

void gs_out_note_flush_hang(unsigned ms)
{
	atomic_store(&out.flush_hang_ms, ms);
}

static void convert_buffer(struct gs_pool_buf *b)
{
	uint8_t *buf = gs_pool_payload(b);
	CUpti_Activity *rec = NULL;

	if (!b->valid)
		return;
	if (!ensure_open()) {
		if (out.w) /* the file failed: these records are lost */
			atomic_fetch_add(&out.lost, gs_glue_release_buffer(buf, b->valid));
		return;
	}
	while (gs_glue_next_record(buf, b->valid, &rec) == 1) {
		gs_status rc = gs_conv_record(out.conv, rec);

		gs_glue_release_record(rec);
		if (rc != GS_OK) {
			write_failed();
			atomic_fetch_add(&out.lost, gs_glue_release_buffer(buf, b->valid));
			return;
		}
	}
}

static gs_status write_dropped(void)
{
	uint64_t n = out.dropped + gs_conv_take_dropped(out.conv);

	out.dropped = 0;
	return n ? out.sink->dropped(out.sink, out.pid, n) : GS_OK;
}

static void free_state(void)
{
	close(out.fd);
	out.fd = -1;
	gs_error_clear();
	out.w = NULL;
	gs_conv_destroy(out.conv);
	out.conv = NULL;
	gs_dd_destroy(out.dd);
	out.dd = NULL;
}

/* After a write error: cut the file back to its last whole chunk and end it
 * with the count of the records lost (when the disk takes that much). */
static void finish_lost(void)
{
	uint64_t also = atomic_load(&out.lost) + out.dropped + gs_conv_take_dropped(out.conv);
	char why[sizeof(out.fail_why) + 64];

	snprintf(why, sizeof(why), "the collector could not write them (%s)", out.fail_why);
	gs_writer_close_lost(out.w, out.pid, also, why, NULL);
	free_state();
}

/* The tail: whatever waits, totals, warnings; then close. */
static void finish(void)
{
	struct gs_conv_stats cs;
	struct gs_dd_stats ds;
	uint64_t refused = atomic_load(&out.pool->refused);
	uint64_t obs_dropped;
	char msg[256];
	gs_status rc;

	rc = gs_conv_finish(out.conv);
	if (!rc)
		rc = gs_dd_settle(out.dd, out.generation, true);
	if (!rc)
		rc = write_dropped();
	if (!rc && refused) {
		snprintf(msg, sizeof(msg),
			 "activity buffer pool exhausted (GPUSCOPE_MAX_BUFFERS=%u of %zu bytes): "
			 "buffer requests refused, CUPTI dropped their records",
			 out.cfg->max_buffers, out.cfg->buffer_size);
		rc = out.sink->warning(out.sink, msg, refused, GS_WARNING_OTHER);
	}
	/* --data-deps: what was counted but never written before. */
	pthread_mutex_lock(&out.lock);
	obs_dropped = out.obs_dropped;
	pthread_mutex_unlock(&out.lock);
	if (!rc && obs_dropped)
		rc = out.sink->warning(
			out.sink,
			"data dependencies: launch and copy observations dropped (their "
			"batch was full): their ops have no data links",
			obs_dropped, GS_WARNING_OTHER);
	if (!rc && out.cfg->data_deps && gs_glue_layout_misses())
		rc = out.sink->warning(out.sink,
				       "data dependencies: kernel launches made before their "
				       "kernel's parameter layout was known (no module load "
				       "described it): their ops have no data links",
				       gs_glue_layout_misses(), GS_WARNING_OTHER);
	gs_dd_get_stats(out.dd, &ds);
	if (!rc && ds.pending_dropped)
		rc = out.sink->warning(out.sink,
				       "data dependencies: pointers dropped (too many waiting for "
				       "their allocation): their ops may lack data links",
				       ds.pending_dropped, GS_WARNING_OTHER);
	if (!rc && atomic_load(&out.flush_hang_ms)) {
		snprintf(msg, sizeof(msg),
			 "a CUPTI activity flush did not return within %u ms at exit: the records "
			 "CUPTI still held are lost",
			 atomic_load(&out.flush_hang_ms));
		rc = out.sink->warning(out.sink, msg, 1, GS_WARNING_OTHER);
	}
	if (!rc)
		rc = clock_pair();
	gs_conv_get_stats(out.conv, &cs);
	gs_dd_get_stats(out.dd, &ds);
	gs_log_debug(
		"closing %s: %llu records, %llu ops, %llu API calls, %llu syncs, %llu event "
		"records, %llu no-timing, %llu incomplete, %llu syncs without thread, %llu "
		"queries and %llu failed syncs dropped, %llu allocations, %llu links, %llu unresolved pointers, %llu buffer refusals",
		out.path, (unsigned long long)cs.records, (unsigned long long)cs.ops,
		(unsigned long long)cs.api_calls, (unsigned long long)cs.syncs,
		(unsigned long long)cs.event_records, (unsigned long long)cs.no_timing,
		(unsigned long long)cs.incomplete, (unsigned long long)cs.no_thread,
		(unsigned long long)cs.queries, (unsigned long long)cs.failed_syncs,
		(unsigned long long)ds.allocations, (unsigned long long)ds.links,
		(unsigned long long)ds.unresolved, (unsigned long long)refused);
	if (!rc && !out.failed)
		rc = gs_writer_flush(out.w);
	if (rc || out.failed) {
		if (rc)
			write_failed();
		finish_lost();
		return;
	}
	if (gs_writer_close(out.w) != GS_OK) { /* the end chunk (the writer is freed) */
		out.w = NULL;
		write_failed();
	} else if (fsync(out.fd) != 0 && errno != EINVAL) {
		gs_log_warn("%s: fsync: %s", out.path, strerror(errno));
	}
	free_state();
}

static void *writer_main(void *arg)
{
	struct gs_dd_obs *obs = NULL;
	bool closing = false;

	(void)arg;
	pthread_mutex_lock(&out.lock);
	out.started = true;
	pthread_cond_broadcast(&out.done_cond);
	pthread_mutex_unlock(&out.lock);
	while (!closing) {
		struct gs_pool_buf *list;
		struct overhead_span overheads[MAX_OVERHEADS];
		size_t nobs, n_overheads;
		unsigned req;
		uint64_t seq;
		gs_status rc = GS_OK;

		pthread_mutex_lock(&out.lock);
		while (!out.head && !out.req && !out.nobs)
			pthread_cond_wait(&out.cond, &out.lock);
		list = out.head;
		out.head = out.tail = NULL;
		obs = out.obs;
		nobs = out.nobs;
		out.obs = out.obs_spare;
		out.obs_spare = obs;
		out.nobs = 0;
		n_overheads = out.n_overheads;
		memcpy(overheads, out.overheads, n_overheads * sizeof(*overheads));
		out.n_overheads = 0;
		req = out.req;
		out.req = 0;
		seq = out.req_seq;
		pthread_mutex_unlock(&out.lock);

		closing = (req & GS_OUT_CLOSE) != 0;
		if (out.cfg->data_deps)
			gs_glue_resolve_layouts();
		if (nobs && ensure_open()) {
			for (size_t i = 0; i < nobs && !rc; i++)
				rc = gs_dd_observe(out.dd, &obs[i], out.generation);
		}
		while (list) {
			struct gs_pool_buf *next = list->next;

			if (!rc)
				convert_buffer(list);
			gs_pool_put(out.pool, gs_pool_payload(list));
			list = next;
		}
		out.dropped += gs_glue_dropped();
		if (out.w && !rc) {
			rc = gs_dd_settle(out.dd, out.generation, false);
			for (size_t i = 0; i < n_overheads && !rc; i++) {
				struct gs_overhead o = {.start_ns = overheads[i].start,
							.end_ns = overheads[i].end,
							.pid = out.pid,
							.kind = out.flush_name};

				rc = out.sink->overhead(out.sink, &o);
			}
			if (!rc && (req & (GS_OUT_FLUSH | GS_OUT_CLOSE))) {
				out.generation++;
				rc = write_dropped();
				if (!rc && gs_glue_timestamp() - out.last_clock >= CLOCK_EVERY_NS)
					rc = clock_pair();
				if (!rc && !closing)
					rc = gs_writer_flush(out.w);
			}
			if (rc)
				write_failed();
		}
		/* Nothing recorded but records were dropped: say so in a file. */
		if (closing && !out.w && (out.dropped || atomic_load(&out.pool->refused)))
			ensure_open();
		if (closing && out.w)
			out.failed ? finish_lost() : finish();
		pthread_mutex_lock(&out.lock);
		out.done_seq = seq;
		if (closing)
			out.running = false;
		pthread_cond_broadcast(&out.done_cond);
		pthread_mutex_unlock(&out.lock);
	}
	return NULL;
}

int gs_out_start(const struct gs_config *cfg, struct gs_pool *pool, int64_t start_ns, char *msg,
		 size_t size)
{
	struct timespec dl;
	sigset_t all, old;
	int err;

	out.cfg = cfg;
	out.pool = pool;
	out.start_ns = start_ns;
	if (cfg->data_deps) {
		out.obs = malloc(OBS_BATCH * sizeof(*out.obs));
		out.obs_spare = malloc(OBS_BATCH * sizeof(*out.obs_spare));
		if (!out.obs || !out.obs_spare) {
			free(out.obs);
			free(out.obs_spare);
			out.obs = out.obs_spare = NULL;
			snprintf(msg, size, "out of memory");
			return -1;
		}
	}
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_mutex_lock(&out.lock);
	out.running = true;
	pthread_mutex_unlock(&out.lock);
	err = pthread_create(&out.thread, NULL, writer_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_mutex_lock(&out.lock);
		out.running = false;
		pthread_mutex_unlock(&out.lock);
		snprintf(msg, size, "cannot start the writer thread: %s", strerror(err));
		return -1;
	}
	/* Not back before the thread has started (a second at most): a fork
	 * right after the first CUDA call must not catch it half-started.
	 * Without fork handlers in the memory allocator (AddressSanitizer's,
	 * GCC 12), a thread's first allocations would leave the allocator's
	 * lock held in the child, which then hangs at exit. */
	deadline_in(&dl, 1000);
	pthread_mutex_lock(&out.lock);
	while (!out.started && pthread_cond_timedwait(&out.done_cond, &out.lock, &dl) == 0)
		;
	pthread_mutex_unlock(&out.lock);
	return 0;
}

void gs_out_join(void)
{
	pthread_join(out.thread, NULL);
}
