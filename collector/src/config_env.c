/* SPDX-License-Identifier: MIT */
/*
 * The collector's settings: every GPUSCOPE_* environment variable is read
 * here (and NVTX_INJECTION64_PATH, which says NVTX markers can be enabled,
 * and the rank variables of launchers). Parsing is pure (an env lookup is
 * passed in) so tests can drive it.
 */
#include "config.h"
#include "log.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void gs_config_defaults(struct gs_config *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->output, sizeof(c->output), "%s", GS_DEFAULT_OUTPUT);
	c->flush_ms = GS_DEFAULT_FLUSH_MS;
	c->buffer_size = GS_DEFAULT_BUFFER_SIZE;
	c->max_buffers = GS_DEFAULT_MAX_BUFFERS;
	c->log_level = GS_LOG_WARN;
	snprintf(c->driver_name, sizeof(c->driver_name), "%s", GS_DRIVER_LIBRARY);
}

static void add_warn(char *warn, size_t size, const char *name, const char *value,
		     const char *expect)
{
	size_t n = strlen(warn);

	if (n + 1 >= size)
		return;
	snprintf(warn + n, size - n, "%s%s='%.64s' ignored (%s)", n ? "; " : "", name, value,
		 expect);
}

/* A decimal number with an optional K/M/G suffix (powers of 1024). */
static bool parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return false;
	if (*end == 'k' || *end == 'K')
		shift = 10, end++;
	else if (*end == 'm' || *end == 'M')
		shift = 20, end++;
	else if (*end == 'g' || *end == 'G')
		shift = 30, end++;
	if (*end == 'i' && shift)
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end)
		return false;
	if (v > (UINT64_MAX >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

static bool parse_bool(const char *s, bool *out)
{
	if (!strcmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "true") ||
	    !strcasecmp(s, "on")) {
		*out = true;
		return true;
	}
	if (!strcmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "false") ||
	    !strcasecmp(s, "off") || !*s) {
		*out = false;
		return true;
	}
	return false;
}

/* A plain decimal number that fits 32 bits: digits only, no sign, no
 * spaces (a launcher writes nothing else). */
static bool parse_u32(const char *s, uint32_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

/* The first of `names` whose value is a number (at least `min`). */
static bool first_number(gs_env_fn env, const char *const *names, size_t n, uint32_t min,
			 uint32_t *out)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t v;

		if (parse_u32(env(names[i]), &v) && v >= min) {
			*out = v;
			return true;
		}
	}
	return false;
}

static void parse_rank(struct gs_config *c, gs_env_fn env)
{
	static const char *const ranks[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID",
					    "RANK"};
	static const char *const sizes[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS",
					    "WORLD_SIZE"};

	c->has_rank = first_number(env, ranks, sizeof(ranks) / sizeof(ranks[0]), 0, &c->rank);
	if (!c->has_rank)
		c->rank = 0;
	if (!c->has_rank ||
	    !first_number(env, sizes, sizeof(sizes) / sizeof(sizes[0]), 1, &c->world_size) ||
	    c->world_size <= c->rank)
		c->world_size = 0;
}

static const char *real_getenv(const char *name)
{
	return getenv(name);
}

void gs_config_parse(struct gs_config *c, gs_env_fn env, char *warn, size_t warn_size)
{
	const char *v;
	uint64_t n;

	if (!env)
		env = real_getenv;
	if (warn_size)
		warn[0] = '\0';

	v = env("GPUSCOPE_LOG");
	if (v && *v) {
		if (!strcasecmp(v, "quiet"))
			c->log_level = GS_LOG_QUIET;
		else if (!strcasecmp(v, "warn"))
			c->log_level = GS_LOG_WARN;
		else if (!strcasecmp(v, "debug"))
			c->log_level = GS_LOG_DEBUG;
		else
			add_warn(warn, warn_size, "GPUSCOPE_LOG", v, "quiet, warn or debug");
	}
	v = env("GPUSCOPE_OUTPUT");
	if (v && *v) {
		char probe[GS_CONFIG_PATH_MAX];

		if (strlen(v) >= sizeof(c->output) ||
		    gs_config_expand(v, 1, "h", 0, probe, sizeof(probe)) != 0)
			add_warn(warn, warn_size, "GPUSCOPE_OUTPUT", v,
				 "a path; %p pid, %h host, %% a '%'");
		else
			snprintf(c->output, sizeof(c->output), "%s", v);
	}
	v = env("GPUSCOPE_FLUSH_MS");
	if (v && *v) {
		if (parse_size(v, &n) && n >= 1 && n <= 3600000 && !strpbrk(v, "kKmMgG"))
			c->flush_ms = (unsigned)n;
		else
			add_warn(warn, warn_size, "GPUSCOPE_FLUSH_MS", v, "1..3600000");
	}
	v = env("GPUSCOPE_DATA_DEPS");
	if (v && !parse_bool(v, &c->data_deps))
		add_warn(warn, warn_size, "GPUSCOPE_DATA_DEPS", v, "0 or 1");
	v = env("GPUSCOPE_BUFFER_SIZE");
	if (v && *v) {
		if (parse_size(v, &n) && n >= (64u << 10) && n <= (256u << 20))
			c->buffer_size = (size_t)n & ~(size_t)7;
		else
			add_warn(warn, warn_size, "GPUSCOPE_BUFFER_SIZE", v, "64K..256M");
	}
	v = env("GPUSCOPE_MAX_BUFFERS");
	if (v && *v) {
		if (parse_size(v, &n) && n >= 1 && n <= 4096 && !strpbrk(v, "kKmMgG"))
			c->max_buffers = (unsigned)n;
		else
			add_warn(warn, warn_size, "GPUSCOPE_MAX_BUFFERS", v, "1..4096");
	}
	v = env("GPUSCOPE_STATUS_FILE");
	if (v && *v) {
		if (v[0] == '/' && strlen(v) < sizeof(c->status_file))
			snprintf(c->status_file, sizeof(c->status_file), "%s", v);
		else
			add_warn(warn, warn_size, "GPUSCOPE_STATUS_FILE", v, "an absolute path");
	}
	v = env("GPUSCOPE_TEST_DRIVER_NAME");
	if (v && *v) {
		if (strlen(v) < sizeof(c->driver_name))
			snprintf(c->driver_name, sizeof(c->driver_name), "%s", v);
		else
			add_warn(warn, warn_size, "GPUSCOPE_TEST_DRIVER_NAME", v, "a library name");
	}
	v = env("NVTX_INJECTION64_PATH");
	c->nvtx = v && *v;
	parse_rank(c, env);
}

bool gs_config_injected(gs_env_fn env)
{
	const char *v = (env ? env : real_getenv)("CUDA_INJECTION64_PATH");

	return v && *v;
}

bool gs_config_has_pid(const char *pattern)
{
	for (const char *p = pattern; *p; p++) {
		if (*p != '%')
			continue;
		if (p[1] == 'p')
			return true;
		if (p[1])
			p++;
	}
	return false;
}

int gs_config_expand(const char *pattern, long pid, const char *host, unsigned attempt, char *out,
		     size_t size)
{
	size_t n = 0;

	if (!pattern || !*pattern || size == 0)
		return -1;
	for (const char *p = pattern; *p; p++) {
		char piece[64];
		const char *add = piece;
		size_t len;

		if (*p != '%') {
			piece[0] = *p;
			piece[1] = '\0';
		} else if (p[1] == 'p') {
			if (attempt)
				snprintf(piece, sizeof(piece), "%ld.%u", pid, attempt);
			else
				snprintf(piece, sizeof(piece), "%ld", pid);
			p++;
		} else if (p[1] == 'h') {
			add = host && *host ? host : "localhost";
			p++;
		} else if (p[1] == '%') {
			piece[0] = '%';
			piece[1] = '\0';
			p++;
		} else {
			return -1;
		}
		len = strlen(add);
		if (n + len >= size)
			return -1;
		memcpy(out + n, add, len);
		n += len;
	}
	out[n] = '\0';
	return 0;
}
