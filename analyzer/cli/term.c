/* SPDX-License-Identifier: MIT */
/*
 * Colour decisions and the progress line (term.h).
 *
 * The progress line is drawn by a helper thread that wakes every 200 ms
 * while a step runs: the step itself (loading, analysing, writing) needs no
 * hooks beyond an optional record count, and a step that is one long call
 * (gs_report_build) still shows its time going by. One mutex guards the
 * state and every write of the line; the line is written with one
 * write(2), "\r" + text + "\033[K", cut to the terminal's width.
 */
#include "term.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* ---- colour --------------------------------------------------------------- */

bool gs_color_parse(const char *when, enum gs_color_mode *out)
{
	if (!when || !strcmp(when, "always"))
		*out = GS_COLOR_ALWAYS;
	else if (!strcmp(when, "never"))
		*out = GS_COLOR_NEVER;
	else if (!strcmp(when, "auto"))
		*out = GS_COLOR_AUTO;
	else
		return false;
	return true;
}

static bool term_dumb(void)
{
	const char *term = getenv("TERM");

	return term && !strcmp(term, "dumb");
}

bool gs_color_want(enum gs_color_mode mode, FILE *f)
{
	const char *no = getenv("NO_COLOR");

	if (mode == GS_COLOR_NEVER)
		return false;
	if (mode == GS_COLOR_ALWAYS)
		return true;
	if (!f || (no && *no) || term_dumb())
		return false;
	return isatty(fileno(f)) == 1;
}

/* ---- progress ------------------------------------------------------------- */

#define TICK_MS 200
#define LABEL_MAX 512

static struct {
	bool enabled;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool running; /* the helper thread exists */
	bool stop;
	bool drawn; /* the line is on the terminal */
	char label[LABEL_MAX];
	uint64_t records;
	struct timespec t0;
	long delay_ms;
} P = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.delay_ms = 1000,
};

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

static void write_all(const char *s, size_t n)
{
	while (n) {
		ssize_t k = write(STDERR_FILENO, s, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return; /* nothing to do about a broken stderr */
		s += k;
		n -= (size_t)k;
	}
}

/* Columns of the terminal on stderr (80 when unknown). */
static size_t term_cols(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

/* Bytes of `s` that fit in `cols` columns (one per UTF-8 code point). */
static size_t fit_cols(const char *s, size_t len, size_t cols)
{
	size_t i, used = 0;

	for (i = 0; i < len; i++) {
		if (((unsigned char)s[i] & 0xc0) == 0x80)
			continue;
		if (used == cols)
			return i;
		used++;
	}
	return len;
}

/* With the lock held. */
static void draw(double secs)
{
	char line[LABEL_MAX + 128];
	size_t len, room = term_cols();
	int n;

	if (P.records)
		n = snprintf(line + 1, sizeof(line) - 1, "gpuscope: %s: %llu records, %.1f s",
			     P.label, (unsigned long long)P.records, secs);
	else
		n = snprintf(line + 1, sizeof(line) - 1, "gpuscope: %s: %.1f s", P.label, secs);
	if (n < 0)
		return;
	len = (size_t)n < sizeof(line) - 1 ? (size_t)n : sizeof(line) - 2;
	/* Leave the last column free: a full line would wrap on some terminals. */
	len = fit_cols(line + 1, len, room > 1 ? room - 1 : 1);
	line[0] = '\r';
	/* Clear to the end of the line; the copy takes the NUL too, so line
	 * stays a string (it fits: len + 1 + 4 <= sizeof(line)). */
	if (len + 1 + 3 < sizeof(line)) {
		memcpy(line + 1 + len, "\033[K", sizeof("\033[K"));
		len += 3;
	}
	write_all(line, len + 1);
	P.drawn = true;
}

/* With the lock held. */
static void erase(void)
{
	if (P.drawn)
		write_all("\r\033[K", 4);
	P.drawn = false;
}

static void *helper(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&P.lock);
	while (!P.stop) {
		struct timespec until;
		double secs = since(&P.t0);

		if (secs * 1000 >= (double)P.delay_ms)
			draw(secs);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += TICK_MS * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		while (!P.stop && pthread_cond_timedwait(&P.wake, &P.lock, &until) == 0)
			;
	}
	/* A step that outlasted the delay between two ticks still shows. */
	if (!P.drawn && since(&P.t0) * 1000 >= (double)P.delay_ms)
		draw(since(&P.t0));
	erase();
	pthread_mutex_unlock(&P.lock);
	return NULL;
}

void gs_progress_setup(bool quiet)
{
	const char *delay = getenv("GPUSCOPE_PROGRESS_DELAY_MS");

	P.enabled = !quiet && isatty(STDERR_FILENO) == 1 && !term_dumb();
	if (delay && *delay) {
		char *end;
		long v = strtol(delay, &end, 10);

		if (!*end && v >= 0)
			P.delay_ms = v;
	}
}

void gs_progress_begin(const char *fmt, ...)
{
	va_list ap;

	if (!P.enabled)
		return;
	gs_progress_end();
	pthread_mutex_lock(&P.lock);
	va_start(ap, fmt);
	vsnprintf(P.label, sizeof(P.label), fmt, ap);
	va_end(ap);
	/* One line: no control bytes from file names. */
	for (char *c = P.label; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	P.records = 0;
	P.stop = false;
	clock_gettime(CLOCK_MONOTONIC, &P.t0);
	if (pthread_cond_init(&P.wake, NULL) == 0) {
		if (pthread_create(&P.thread, NULL, helper, NULL) == 0)
			P.running = true;
		else
			pthread_cond_destroy(&P.wake);
	}
	pthread_mutex_unlock(&P.lock);
}

void gs_progress_records(void *user, uint64_t records)
{
	(void)user;
	if (!P.enabled)
		return;
	pthread_mutex_lock(&P.lock);
	P.records = records;
	pthread_mutex_unlock(&P.lock);
}

void gs_progress_end(void)
{
	if (!P.enabled)
		return;
	pthread_mutex_lock(&P.lock);
	if (!P.running) {
		pthread_mutex_unlock(&P.lock);
		return;
	}
	P.stop = true;
	pthread_cond_signal(&P.wake);
	pthread_mutex_unlock(&P.lock);
	pthread_join(P.thread, NULL);
	pthread_cond_destroy(&P.wake);
	P.running = false;
}

void gs_progress_clear(void)
{
	if (!P.enabled)
		return;
	pthread_mutex_lock(&P.lock);
	erase();
	pthread_mutex_unlock(&P.lock);
}
