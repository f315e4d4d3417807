/* SPDX-License-Identifier: MIT */
/*
 * The trace-input options of every command that reads traces (input_opts.h):
 * one parser, so that `gpuscope analyze`, `export`, `diff` and gpuscope-mpi
 * read --rank, --device, --window, ... the same way.
 */
#include <gpuscope/input_opts.h>

#include <stdio.h>
#include <string.h>

#include <gpuscope/error.h>
#include <gpuscope/report.h>

static const struct {
	unsigned flag;
	struct option opt;
} shared[] = {
	{GS_INOPT_RANK, {"rank", required_argument, NULL, GS_INOPT_C_RANK}},
	{GS_INOPT_DEVICE, {"device", required_argument, NULL, GS_INOPT_C_DEVICE}},
	{GS_INOPT_WINDOW | GS_INOPT_WINDOW_NS,
	 {"window", required_argument, NULL, GS_INOPT_C_WINDOW}},
	{GS_INOPT_STEP, {"step", required_argument, NULL, GS_INOPT_C_STEP}},
	{GS_INOPT_STEP_MARKER, {"step-marker", required_argument, NULL, GS_INOPT_C_STEP_MARKER}},
	{GS_INOPT_ALIGN, {"align", required_argument, NULL, GS_INOPT_C_ALIGN}},
	{GS_INOPT_SALVAGE, {"salvage", no_argument, NULL, GS_INOPT_C_SALVAGE}},
	{GS_INOPT_QUIET, {"quiet", no_argument, NULL, 'q'}},
	{GS_INOPT_INPUTS, {"inputs", required_argument, NULL, GS_INOPT_C_INPUTS}},
};

#define N_SHARED (sizeof(shared) / sizeof(shared[0]))

bool gs_input_opts_table(unsigned flags, const struct option *own, struct option *out, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < N_SHARED; i++) {
		if (!(shared[i].flag & flags))
			continue;
		if (n + 1 >= cap)
			return false;
		out[n++] = shared[i].opt;
	}
	for (; own && own->name; own++) {
		if (n + 1 >= cap)
			return false;
		out[n++] = *own;
	}
	out[n] = (struct option){NULL, 0, NULL, 0};
	return true;
}

bool gs_input_opts_takes(unsigned flags, int c)
{
	for (size_t i = 0; i < N_SHARED; i++)
		if (shared[i].opt.val == c)
			return (shared[i].flag & flags) != 0;
	return false;
}

static int usage(const struct gs_input_opts_ui *ui, const char *fmt, ...) GS_PRINTF(2, 3);

static int usage(const struct gs_input_opts_ui *ui, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = ui->usage(ui->ctx, fmt, ap);
	va_end(ap);
	return rc;
}

/* A decimal count: digits only (no sign, no space), at most `max`, of the
 * `len` bytes at s; every digit counts, whatever the length. */
static bool parse_count_n(const char *s, size_t len, unsigned long long max,
			  unsigned long long *out)
{
	unsigned long long v = 0;

	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned d;

		if (s[i] < '0' || s[i] > '9')
			return false;
		d = (unsigned)(s[i] - '0');
		if (v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

static bool parse_count(const char *s, unsigned long long max, unsigned long long *out)
{
	return parse_count_n(s, strlen(s), max, out);
}

/*
 * A time: digits, an optional fraction, an optional unit (ns, us, ms, s;
 * default ns), converted exactly to integer ns. A fraction finer than 1 ns
 * is refused. Sets *relative when it starts with '+'.
 */
static bool parse_time(const char *s, const char *end, int64_t *out, bool *relative)
{
	static const struct {
		const char *unit;
		uint64_t mult;
	} units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
	uint64_t ip = 0, frac = 0, scale = 1, mult = 1;
	const char *p = s;
	size_t i, ulen;
	bool digits = false;

	*relative = false;
	if (p < end && *p == '+') {
		*relative = true;
		p++;
	}
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (ip > (UINT64_MAX - 9) / 10)
			return false;
		ip = ip * 10 + (uint64_t)(*p - '0');
		digits = true;
	}
	if (p < end && *p == '.') {
		p++;
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			if (scale >= 1000000000) /* finer than 1 ns in any unit */
				return false;
			frac = frac * 10 + (uint64_t)(*p - '0');
			scale *= 10;
			digits = true;
		}
	}
	if (!digits)
		return false;
	ulen = (size_t)(end - p);
	if (ulen) {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strlen(units[i].unit) == ulen && !memcmp(p, units[i].unit, ulen))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return false;
		mult = units[i].mult;
	}
	/* frac / scale of a unit must be a whole number of ns (both < 1e9). */
	if ((frac * mult) % scale != 0)
		return false;
	if (ip > (uint64_t)INT64_MAX / mult)
		return false;
	ip *= mult;
	frac = frac * mult / scale;
	if (ip > (uint64_t)INT64_MAX - frac)
		return false;
	*out = (int64_t)(ip + frac);
	return true;
}

/* A time in ns only, '+' allowed in front (gpuscope-mpi's --window). */
static bool parse_ns(const char *s, const char *end, int64_t *out, bool *rel)
{
	uint64_t v = 0;
	bool digits = false;

	*rel = s < end && *s == '+';
	if (*rel)
		s++;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9' || v > (uint64_t)(INT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
		digits = true;
	}
	*out = (int64_t)v;
	return digits;
}

static int parse_window_ns(struct gs_input_opts *o, const struct gs_input_opts_ui *ui,
			   const char *arg)
{
	const char *colon = strchr(arg, ':');
	bool r0, r1;

	if (!colon || !parse_ns(arg, colon, &o->window.start_ns, &r0) ||
	    !parse_ns(colon + 1, colon + strlen(colon), &o->window.end_ns, &r1) || r0 != r1 ||
	    o->window.end_ns <= o->window.start_ns)
		return usage(ui, "--window wants T0:T1 in ns (or +T0:+T1), not '%s'", arg);
	o->window.set = true;
	o->window_relative = r0;
	o->window_arg = arg;
	return 0;
}

static int parse_window(struct gs_input_opts *o, const struct gs_input_opts_ui *ui, const char *arg)
{
	const char *colon = strchr(arg, ':');
	bool rel0, rel1;

	if (!colon || strchr(colon + 1, ':'))
		return usage(ui,
			     "--window wants T0:T1 (ns, or with a unit, e.g. "
			     "+1ms:+5ms), not '%s'",
			     arg);
	if (!parse_time(arg, colon, &o->window.start_ns, &rel0) ||
	    !parse_time(colon + 1, colon + strlen(colon), &o->window.end_ns, &rel1))
		return usage(ui,
			     "--window: '%s' is not T0:T1 (times in ns, or with a unit "
			     "ns, us, ms, s)",
			     arg);
	if (rel0 != rel1)
		return usage(ui, "--window: '%s' mixes an offset (+) and an absolute time", arg);
	if (o->window.end_ns <= o->window.start_ns)
		return usage(ui, "--window: '%s' ends before it starts", arg);
	o->window.set = true;
	o->window_relative = rel0;
	o->window_arg = arg;
	return 0;
}

static int parse_device(struct gs_input_opts *o, const struct gs_input_opts_ui *ui, const char *arg)
{
	const char *colon = strchr(arg, ':');
	unsigned long long rk, v;

	if (colon) {
		if (!parse_count_n(arg, (size_t)(colon - arg), UINT32_MAX - 1, &rk) ||
		    !parse_count(colon + 1, UINT32_MAX - 1, &v))
			return usage(ui, "--device wants N or R:N (rank R, device N), not '%s'",
				     arg);
		if (o->has_rank && o->rank != (uint32_t)rk)
			return usage(ui, "--device %s names rank %llu, --rank says %u", arg, rk,
				     o->rank);
		o->has_rank = true;
		o->rank = (uint32_t)rk;
	} else if (!parse_count(arg, UINT32_MAX - 1, &v)) {
		return usage(ui, "--device wants N or R:N (rank R, device N), not '%s'", arg);
	}
	o->has_device = true;
	o->device = (uint32_t)v;
	return 0;
}

int gs_input_opts_parse(struct gs_input_opts *o, unsigned flags, const struct gs_input_opts_ui *ui,
			int c, const char *arg)
{
	unsigned long long v;

	if (!arg)
		arg = "";
	switch (c) {
	case GS_INOPT_C_RANK:
		if (!parse_count(arg, UINT32_MAX - 1, &v))
			return usage(ui, "--rank wants a rank number, not '%s'", arg);
		if (o->has_rank && o->rank != (uint32_t)v)
			return usage(ui, "--rank %s and --device %u:... disagree", arg, o->rank);
		o->has_rank = true;
		o->rank = (uint32_t)v;
		return 0;
	case GS_INOPT_C_DEVICE:
		return parse_device(o, ui, arg);
	case GS_INOPT_C_WINDOW:
		return flags & GS_INOPT_WINDOW ? parse_window(o, ui, arg) :
						 parse_window_ns(o, ui, arg);
	case GS_INOPT_C_STEP:
		if (gs_step_options_parse(arg, &o->steps) != GS_OK) {
			gs_error_clear();
			return usage(ui, "--step wants a step number, A:B, all or none, not '%s'",
				     arg);
		}
		o->has_step = true;
		return 0;
	case GS_INOPT_C_STEP_MARKER:
		if (!*arg)
			return usage(ui, "--step-marker wants a regular expression");
		o->steps.marker = arg;
		return 0;
	case GS_INOPT_C_ALIGN:
		if (!strcmp(arg, "collectives"))
			o->align = GS_REPORT_ALIGN_COLLECTIVES;
		else if (!strcmp(arg, "none"))
			o->align = GS_REPORT_ALIGN_NONE;
		else
			return usage(ui, "--align wants collectives or none, not '%s'", arg);
		return 0;
	case GS_INOPT_C_SALVAGE:
		o->salvage = true;
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	case GS_INOPT_C_INPUTS:
		if (flags & GS_INOPT_INPUTS_NO_STDIN) {
			if (!*arg || !strcmp(arg, "-"))
				return usage(ui, "--inputs wants a file name (standard input is "
						 "not read by gpuscope-mpi)");
		} else if (!*arg) {
			return usage(ui, "--inputs wants a file name");
		}
		o->inputs_file = arg;
		return 0;
	default: /* not one of ours: a programming error of the front end */
		return usage(ui, "unknown option");
	}
}

int gs_input_opts_finish(struct gs_input_opts *o, unsigned flags, const struct gs_input_opts_ui *ui,
			 int argc, char **argv, int optind_now)
{
	if ((flags & GS_INOPT_OPERANDS) && optind_now >= argc && !o->inputs_file)
		return usage(ui, "no TRACE given");
	if ((flags & GS_INOPT_STEP) && o->has_step && o->window.set)
		return usage(ui, "--step and --window both choose the window: give one");
	o->operands = argv + optind_now;
	o->n_operands = optind_now < argc ? (size_t)(argc - optind_now) : 0;
	return 0;
}
