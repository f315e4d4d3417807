/* SPDX-License-Identifier: MIT */
/*
 * libgpuscope_collector.so: entry points and lifecycle.
 *
 * - CUDA_INJECTION64_PATH: the driver calls InitializeInjection during
 *   cuInit. LD_PRELOAD: the constructor sets up (unless injection is also
 *   configured, then InitializeInjection does). Setup runs once
 *   (pthread_once): settings, buffer pool, CUPTI subscription and enables.
 * - Activation (threads, atexit, signal handlers) waits for the first
 *   buffer request or InitializeInjection, so a preloaded process that never
 *   uses CUDA runs no thread and writes no file.
 * - A timer thread calls cuptiActivityFlushAll(0) every GPUSCOPE_FLUSH_MS
 *   and asks the writer for a chunk: a crash loses at most that interval.
 *   It holds no lock the buffer callbacks take.
 * - At exit (atexit), on SIGTERM/SIGINT with the default action (flush,
 *   close, then the signal is raised again with that action), and before a
 *   context goes away (an unforced flush: a forced one would hand back the
 *   kernels still running with no end time). A program's own SIGTERM/SIGINT
 *   handler is kept: it is called after a flush.
 * - fork without exec: the child does nothing (no CUPTI call, no file, no
 *   lock or pthread_once of ours: a pthread_atfork child handler, registered
 *   first thing in setup, marks it); exec'd programs inherit the variables
 *   and record their own file. Activation returns only once its threads
 *   have started, so that a fork just after the first CUDA call never
 *   catches one half-started (inside its first allocations: with an
 *   allocator that has no fork handlers, AddressSanitizer's in GCC 12, the
 *   child would inherit its lock held and hang at exit).
 * - A CUPTI flush that never returns (a wedged driver), or a disable that
 *   never does (CUPTI 13.0 GA), does not hold the exit: the forced flush and
 *   then the disables run on a thread of its own and the flush thread is
 *   waited for, each at most EXIT_FLUSH_WAIT_MS; then the file is closed
 *   without what CUPTI still held, with a warning (tests: test_collector_faults).
 *
 * - No CUDA driver (libcuda.so.1 cannot be loaded): setup stops before any
 *   CUPTI call (CUPTI could only fail). Under LD_PRELOAD every process of
 *   a shell or a build loads the collector: one that shows no CUDA (no CUDA
 *   runtime or driver in its link map, no CUDA device code in its
 *   executable: cudaproc.h) is left alone without a word, whatever failed
 *   at setup; InitializeInjection means the CUDA driver (or a stand-in)
 *   loaded us, and a failure is always said.
 * - Under `gpuscope record`, each process appends its events to record's
 *   status file (log.h): "loaded PID", "disabled PID REASON", "wrote PID PATH".
 *
 * Never exits, aborts or prints to stdout; any failure disables collection
 * with one "gpuscope: collector disabled: ..." line on stderr.
 */
#include "buffer_pool.h"
#include "config.h"
#include "cudaproc.h"
#include "cupti_glue.h"
#include "log.h"
#include "output.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define GS_EXPORT __attribute__((visibility("default")))

enum state {
	ST_OFF = 0,      /* not set up */
	ST_READY = 1,    /* subscribed, waiting for the first buffer request */
	ST_ON = 2,       /* collecting */
	ST_CLOSING = 3,  /* exit or signal path running */
	ST_CLOSED = 4,   /* file closed */
	ST_DISABLED = 5, /* failed: nothing more is done */
};

#define SIGNAL_FLUSH_WAIT_MS 2000
#define SIGNAL_CLOSE_WAIT_MS 5000
/* At exit: how long CUPTI's forced flush (and the flush thread, which may
 * be inside a periodic one) may take before the collector gives up on it.
 * Below SIGNAL_CLOSE_WAIT_MS, so that a SIGTERM still closes the file. */
#define EXIT_FLUSH_WAIT_MS 3000

static const int caught[2] = {SIGTERM, SIGINT};

/* What a process without a CUDA driver says (the name CUDA loads, even
 * when the tests look for another: config.h). */
#define NO_DRIVER_MSG "no CUDA driver (" GS_DRIVER_LIBRARY " not found)"

static struct {
	pthread_once_t setup_once;
	pthread_once_t activate_once;
	atomic_int state;
	atomic_bool forked;
	struct gs_config cfg;
	struct gs_pool pool;
	int64_t start_ns;
	pthread_t timer;
	atomic_bool timer_running;
	atomic_bool flush_hung; /* a CUPTI flush did not return: call it no more */
	atomic_bool by_driver;  /* InitializeInjection was called (before setup) */
	int cmd[2];             /* signal handler / exit -> timer thread */
	int ack[2];             /* timer thread -> signal handler */
	struct sigaction old_act[2];
} g = {
	.setup_once = PTHREAD_ONCE_INIT,
	.activate_once = PTHREAD_ONCE_INIT,
	.cmd = {-1, -1},
	.ack = {-1, -1},
};

GS_EXPORT int InitializeInjection(void);

/* ---- CUPTI hooks ---- */

static void activate(void);

static void hook_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	uint8_t *b;

	if (atomic_load(&g.forked))
		return;
	if (atomic_load(&g.state) == ST_READY)
		pthread_once(&g.activate_once, activate);
	if (atomic_load(&g.state) != ST_ON || gs_out_disabled())
		return;
	b = gs_pool_get(&g.pool);
	if (!b)
		return; /* CUPTI drops the records and counts them */
	*buffer = b;
	*size = g.pool.size;
	*max_records = 0;
}

static void hook_buffer_completed(uint8_t *buffer, size_t size, size_t valid)
{
	int st;

	(void)size;
	if (atomic_load(&g.forked))
		return;
	st = atomic_load(&g.state);
	if ((st == ST_ON || st == ST_CLOSING) && !gs_out_disabled())
		gs_out_push_buffer(buffer, valid);
	else if (st == ST_ON || st == ST_CLOSING)
		gs_out_discard_buffer(buffer, valid); /* counted when the file failed */
	else {
		gs_glue_release_buffer(buffer, valid); /* after the close: not written */
		gs_pool_put(&g.pool, buffer);
	}
}

static void hook_flush_point(const char *why)
{
	if (atomic_load(&g.forked) || atomic_load(&g.state) != ST_ON)
		return;
	/* Not forced: a forced flush would take kernels still running as they
	 * are (end == 0, dropped); they come with a later flush. */
	gs_log_debug("flush: %s", why);
	gs_glue_flush(false);
	gs_out_request(GS_OUT_FLUSH, false, 0);
}

static void hook_observation(const struct gs_dd_obs *o)
{
	if (!atomic_load(&g.forked) && atomic_load(&g.state) == ST_ON)
		gs_out_push_obs(o);
}

static bool hook_quiet(void)
{
	return atomic_load(&g.forked) || atomic_load(&g.state) != ST_ON;
}

static const struct gs_glue_hooks hooks = {
	.buffer_requested = hook_buffer_requested,
	.buffer_completed = hook_buffer_completed,
	.flush_point = hook_flush_point,
	.observation = hook_observation,
	.quiet = hook_quiet,
};

/* ---- closing ---- */

/* The end of tracing at exit, on a thread of its own: the forced flush, then
 * turning the activity kinds and callbacks off. CUPTI can block in either (a
 * wedged driver in the flush; CUPTI 13.0 GA deadlocks in
 * cuptiActivityDisable(CONCURRENT_KERNEL), fixed in 13.0 Update 1); the exit
 * goes on without it after `ms`. Records that come after the flush find no
 * buffer (the state is no longer ON) and are dropped. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool flushed;
	bool done;
} exit_flush = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false};

static void *exit_flush_main(void *arg)
{
	(void)arg;
	gs_glue_flush(true);
	pthread_mutex_lock(&exit_flush.lock);
	exit_flush.flushed = true;
	pthread_cond_broadcast(&exit_flush.cond);
	pthread_mutex_unlock(&exit_flush.lock);
	gs_glue_stop();
	pthread_mutex_lock(&exit_flush.lock);
	exit_flush.done = true;
	pthread_cond_broadcast(&exit_flush.cond);
	pthread_mutex_unlock(&exit_flush.lock);
	return NULL;
}

static void flush_gave_up(unsigned ms)
{
	if (atomic_exchange(&g.flush_hung, true))
		return;
	gs_log_warn("CUPTI's activity flush did not return within %u ms: going on without "
		    "it (the records it still held are lost)",
		    ms);
	gs_out_note_flush_hang(ms);
}

static void bounded_flush_and_stop(unsigned ms)
{
	struct timespec dl;
	sigset_t all, old;
	pthread_t th;
	bool done, flushed;
	int err;

	if (atomic_load(&g.flush_hung))
		return;
	pthread_mutex_lock(&exit_flush.lock);
	exit_flush.flushed = false;
	exit_flush.done = false;
	pthread_mutex_unlock(&exit_flush.lock);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&th, NULL, exit_flush_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		/* No thread to bound it: flush, but no disable (it can deadlock);
		 * the process is ending anyway. */
		gs_glue_flush(true);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += ms / 1000;
	dl.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&exit_flush.lock);
	while (!exit_flush.done &&
	       pthread_cond_timedwait(&exit_flush.cond, &exit_flush.lock, &dl) == 0)
		;
	done = exit_flush.done;
	flushed = exit_flush.flushed;
	pthread_mutex_unlock(&exit_flush.lock);
	if (done) {
		pthread_join(th, NULL);
		return;
	}
	pthread_detach(th); /* left blocked in CUPTI; the process ends it */
	if (!flushed)
		flush_gave_up(ms);
	else
		gs_log_warn("CUPTI did not return within %u ms from turning tracing off at exit "
			    "(CUPTI 13.0 GA can deadlock there): going on without it; the trace "
			    "is complete",
			    ms);
}

/* Stop CUPTI, flush everything it holds, write the tail, close the file. */
static void close_all(void)
{
	char path[GS_CONFIG_PATH_MAX];

	bounded_flush_and_stop(EXIT_FLUSH_WAIT_MS);
	gs_out_request(GS_OUT_CLOSE, true, 0);
	gs_out_join();
	atomic_store(&g.state, ST_CLOSED);
	gs_out_path(path, sizeof(path));
	if (path[0])
		gs_log_status("wrote %ld %s", (long)getpid(), path);
}

static void periodic_flush(bool wait)
{
	int64_t t0, t1;

	if (atomic_load(&g.state) != ST_ON)
		return;
	t0 = gs_glue_timestamp();
	gs_glue_flush(false);
	t1 = gs_glue_timestamp();
	gs_out_overhead(t0, t1);
	gs_out_request(GS_OUT_FLUSH, wait, wait ? SIGNAL_FLUSH_WAIT_MS : 0);
}

static void send_ack(void)
{
	ssize_t k;

	do {
		k = write(g.ack[1], "A", 1);
	} while (k < 0 && errno == EINTR);
}

static void *timer_main(void *arg)
{
	(void)arg;
	send_ack(); /* started (activate waits for it) */
	for (;;) {
		struct pollfd p = {.fd = g.cmd[0], .events = POLLIN};
		int r = poll(&p, 1, (int)g.cfg.flush_ms);
		char c;

		if (r == 0) {
			periodic_flush(false);
			continue;
		}
		if (r < 0 || read(g.cmd[0], &c, 1) != 1)
			continue;
		if (c == 'Q') {
			send_ack();
			break;
		}
		if (c == 'F') {
			periodic_flush(true);
			send_ack();
		} else if (c == 'T') {
			close_all();
			send_ack();
			break;
		}
	}
	return NULL;
}

static bool command_and_wait(char c, int ms);

static void on_exit_handler(void)
{
	int expect = ST_ON;

	if (atomic_load(&g.forked))
		return;
	if (!atomic_compare_exchange_strong(&g.state, &expect, ST_CLOSING))
		return;
	if (atomic_load(&g.timer_running)) {
		/* The flush thread may be inside a CUPTI flush that never returns. */
		if (command_and_wait('Q', EXIT_FLUSH_WAIT_MS)) {
			pthread_join(g.timer, NULL);
		} else {
			pthread_detach(g.timer);
			flush_gave_up(EXIT_FLUSH_WAIT_MS);
		}
		atomic_store(&g.timer_running, false);
	}
	close_all();
}

/* ---- signals (async-signal-safe: atomics, read, write, poll, sigaction, raise) ---- */

/* Ask the timer thread for `c` and wait for its answer at most `ms`.
 * True when it answered. */
static bool command_and_wait(char c, int ms)
{
	struct pollfd p = {.fd = g.ack[0], .events = POLLIN};
	bool answered = false;
	char junk[16];
	ssize_t k;

	while (read(g.ack[0], junk, sizeof(junk)) > 0) /* stale answers */
		;
	do {
		k = write(g.cmd[1], &c, 1);
	} while (k < 0 && errno == EINTR);
	if (k != 1)
		return false;
	while (poll(&p, 1, ms) < 0 && errno == EINTR)
		;
	while (read(g.ack[0], junk, sizeof(junk)) > 0)
		answered = true;
	return answered;
}

static void on_signal(int sig, siginfo_t *info, void *uctx)
{
	int saved = errno;
	int i = sig == caught[0] ? 0 : 1;
	const struct sigaction *old = &g.old_act[i];
	bool chain = (old->sa_flags & SA_SIGINFO) ?
			     old->sa_sigaction != NULL :
			     (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN);

	if (!atomic_load(&g.forked)) {
		int expect = ST_ON;

		if (chain) {
			if (atomic_load(&g.state) == ST_ON)
				command_and_wait('F', SIGNAL_FLUSH_WAIT_MS);
		} else if (atomic_compare_exchange_strong(&g.state, &expect, ST_CLOSING)) {
			command_and_wait('T', SIGNAL_CLOSE_WAIT_MS);
		}
	}
	if (chain) {
		errno = saved;
		if (old->sa_flags & SA_SIGINFO)
			old->sa_sigaction(sig, info, uctx);
		else
			old->sa_handler(sig);
		return;
	}
	/* The action the program had (the default): raised again, it is taken
	 * when this handler returns and the signal is unblocked. */
	sigaction(sig, old, NULL);
	raise(sig);
	errno = saved;
}

static void install_signal_handlers(void)
{
	for (int i = 0; i < 2; i++) {
		struct sigaction sa, old;

		if (sigaction(caught[i], NULL, &old) != 0)
			continue;
		if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN)
			continue; /* the program ignores it: so do we */
		g.old_act[i] = old;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_signal;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		sigaddset(&sa.sa_mask, SIGTERM);
		sigaddset(&sa.sa_mask, SIGINT);
		if (sigaction(caught[i], &sa, NULL) == 0)
			gs_log_debug("signal %d: flush first, then %s", caught[i],
				     (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL ?
					     "the program's handler" :
					     "the default action");
	}
}

/* ---- setup and activation ---- */

static void on_fork_child(void)
{
	atomic_store(&g.forked, true);
}

static int make_pipe(int fds[2])
{
	if (pipe(fds) != 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		fcntl(fds[i], F_SETFD, FD_CLOEXEC);
		fcntl(fds[i], F_SETFL, fcntl(fds[i], F_GETFL) | O_NONBLOCK);
	}
	return 0;
}

static void give_up(const char *msg)
{
	gs_glue_stop();
	atomic_store(&g.state, ST_DISABLED);
	gs_log_disabled("%s", msg);
}

static void activate(void)
{
	char msg[256];
	sigset_t all, old;
	int err;

	if (atomic_load(&g.state) != ST_READY)
		return;
	if (make_pipe(g.cmd) || make_pipe(g.ack)) {
		snprintf(msg, sizeof(msg), "cannot create a pipe: %s", strerror(errno));
		give_up(msg);
		return;
	}
	if (gs_out_start(&g.cfg, &g.pool, g.start_ns, msg, sizeof(msg))) {
		give_up(msg);
		return;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&g.timer, NULL, timer_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		snprintf(msg, sizeof(msg), "cannot start the flush thread: %s", strerror(err));
		gs_out_request(GS_OUT_CLOSE, true, 0);
		gs_out_join();
		give_up(msg);
		return;
	}
	{
		/* Not on before the flush thread has started (a second at
		 * most): see gs_out_start, a fork right after. */
		struct pollfd p = {.fd = g.ack[0], .events = POLLIN};
		char c;

		while (poll(&p, 1, 1000) < 0 && errno == EINTR)
			;
		while (read(g.ack[0], &c, 1) == 1)
			;
	}
	atomic_store(&g.timer_running, true);
	atomic_store(&g.state, ST_ON);
	/* Registered now, after the CUDA runtime's own exit handlers: ours runs
	 * first (atexit is last in, first out), while CUDA is still alive. */
	atexit(on_exit_handler);
	install_signal_handlers();
	gs_log_debug("collecting");
}

/* An absolute pattern: the program may change directory before its first record. */
static void absolute_output(struct gs_config *c)
{
	char cwd[PATH_MAX], buf[GS_CONFIG_PATH_MAX];

	if (c->output[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return;
	if ((size_t)snprintf(buf, sizeof(buf), "%s/%s", cwd, c->output) < sizeof(buf))
		memcpy(c->output, buf, sizeof(buf));
}

/*
 * Setup cannot go on. Said (one line, and "loaded" then "disabled" in the
 * status file) when the CUDA driver called InitializeInjection or the
 * process shows CUDA; otherwise (a preloaded /bin/true) nothing at all.
 */
static void setup_failed(bool uses_cuda, const char *warn, const char *msg)
{
	atomic_store(&g.state, ST_DISABLED);
	if (!uses_cuda) {
		gs_log_debug("inactive, no CUDA in this process: %s", msg);
		return;
	}
	if (warn[0])
		gs_log_warn("%s", warn);
	gs_log_status("loaded %ld", (long)getpid());
	gs_log_disabled("%s", msg);
}

/*
 * NVTX hands its ranges to the library NVTX_INJECTION64_PATH names, which it
 * loads on the first NVTX call. That must be the CUPTI we subscribed to: the
 * one already mapped (PyTorch maps its own libcupti.so.13, to which we bind
 * by soname), never a second copy nobody subscribed to. A value the user set
 * is kept. Before any CUDA or NVTX call of ours; the program's first NVTX
 * call comes later (NVTX reads the variable then).
 */
static void nvtx_to_our_cupti(struct gs_config *c)
{
	char path[PATH_MAX];
	const char *v = getenv("NVTX_INJECTION64_PATH");

	if (v && *v) {
		gs_log_debug("NVTX_INJECTION64_PATH kept as set: %s", v);
		return;
	}
	if (!gs_glue_cupti_path(path, sizeof(path))) {
		gs_log_debug("the loaded CUPTI library was not found: NVTX ranges off");
		return;
	}
	if (setenv("NVTX_INJECTION64_PATH", path, 1) == 0) {
		c->nvtx = true;
		gs_log_debug("NVTX_INJECTION64_PATH=%s (the CUPTI in this process)", path);
	}
}

static void setup(void)
{
	char warn[512], msg[512];
	enum gs_driver drv;
	void *driver;
	bool uses;

	/* First: a fork from now on makes a child that does nothing (never
	 * waits on a pthread_once or a lock a thread of the parent held). */
	pthread_atfork(NULL, NULL, on_fork_child);
	gs_config_defaults(&g.cfg);
	gs_config_parse(&g.cfg, NULL, warn, sizeof(warn));
	nvtx_to_our_cupti(&g.cfg);
	gs_log_set_level(g.cfg.log_level);
	gs_log_set_status_file(g.cfg.status_file);
	drv = gs_driver_probe(g.cfg.driver_name, &driver);
	if (drv == GS_DRIVER_NONE) {
		setup_failed(atomic_load(&g.by_driver) || gs_process_uses_cuda(true), warn,
			     NO_DRIVER_MSG);
		return;
	}
	/* The driver counts as a sign of CUDA only when it was there before us. */
	uses = atomic_load(&g.by_driver) || drv == GS_DRIVER_LOADED;
	absolute_output(&g.cfg);
	if (gs_pool_init(&g.pool, g.cfg.buffer_size, g.cfg.max_buffers)) {
		if (driver)
			dlclose(driver);
		setup_failed(uses || gs_process_uses_cuda(false), warn,
			     "cannot set up the buffer pool");
		return;
	}
	g.start_ns = gs_glue_timestamp();
	atomic_store(&g.state, ST_READY);
	if (gs_glue_start(&g.cfg, &hooks, msg, sizeof(msg))) {
		if (driver)
			dlclose(driver);
		setup_failed(uses || gs_process_uses_cuda(false), warn, msg);
		return;
	}
	/* A driver loaded by the probe keeps that reference: CUPTI uses it now. */
	if (warn[0])
		gs_log_warn("%s", warn);
	gs_log_status("loaded %ld", (long)getpid());
	gs_log_debug("subscribed: output %s, flush every %u ms, %u buffers of %zu bytes, data "
		     "deps %s",
		     g.cfg.output, g.cfg.flush_ms, g.cfg.max_buffers, g.cfg.buffer_size,
		     g.cfg.data_deps ? "on" : "off");
}

GS_EXPORT int InitializeInjection(void)
{
	if (atomic_load(&g.forked))
		return 1;
	atomic_store(&g.by_driver, true);
	pthread_once(&g.setup_once, setup);
	if (atomic_load(&g.state) == ST_READY)
		pthread_once(&g.activate_once, activate);
	/* 1 even when disabled: the program must run on as if we were not here. */
	return 1;
}

__attribute__((constructor)) static void gs_collector_preload(void)
{
	if (gs_config_injected(NULL))
		return; /* InitializeInjection will be called during cuInit */
	pthread_once(&g.setup_once, setup);
}
