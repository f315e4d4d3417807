/* SPDX-License-Identifier: MIT */
/*
 * gs_bench_gen: write a generated benchmark trace (bench/gen.h) as .gscope
 * (through the gs_writer sink), Kineto JSON and gzip Kineto JSON.
 *
 *   gs_bench_gen --ops N [--devices D] [--seed S] [--rank R]
 *                [--gscope OUT.gscope] [--json OUT.json] [--json-gz OUT.json.gz]
 *
 * Prints what was generated, one "key value" per line.
 */
#include "gen.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const char usage[] =
	"usage: gs_bench_gen --ops N [--devices D] [--seed S] [--rank R] [--gscope OUT.gscope]\n"
	"                    [--json OUT.json] [--json-gz OUT.json.gz]\n";

static int fail(const char *what)
{
	char buf[1024];

	fprintf(stderr, "gs_bench_gen: error: %s%s%s\n", what, gs_error_count() ? ": " : "",
		gs_error_count() ? gs_error_format(buf, sizeof(buf)) : "");
	return 1;
}

static bool parse_count(const char *s, uint64_t *v)
{
	char *end;
	double d = strtod(s, &end);

	if (end == s || *end || !(d >= 1 && d <= 1e12) || d != (double)(uint64_t)d)
		return false;
	*v = (uint64_t)d;
	return true;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"ops", required_argument, NULL, 'n'},
		{"devices", required_argument, NULL, 'd'},
		{"seed", required_argument, NULL, 's'},
		{"gscope", required_argument, NULL, 'g'},
		{"json", required_argument, NULL, 'j'},
		{"json-gz", required_argument, NULL, 'z'},
		{"rank", required_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct gs_bench_gen_options o = {0};
	struct gs_bench_gen_counts c;
	const char *gpath = NULL, *jpath = NULL, *zpath = NULL;
	struct gs_writer *w = NULL;
	FILE *json = NULL;
	gzFile gz = NULL;
	uint64_t v;
	gs_status rc;
	int opt;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			if (!parse_count(optarg, &o.ops))
				return fputs(usage, stderr), 2;
			break;
		case 'd':
			if (!parse_count(optarg, &v) || v > 64)
				return fputs(usage, stderr), 2;
			o.devices = (uint32_t)v;
			break;
		case 's':
			if (!parse_count(optarg, &o.seed))
				return fputs(usage, stderr), 2;
			break;
		case 'r':
			/* 0 is a rank: the first. */
			if (strcmp(optarg, "0") != 0 && (!parse_count(optarg, &v) || v > 1024))
				return fputs(usage, stderr), 2;
			o.rank = strcmp(optarg, "0") == 0 ? 0 : (uint32_t)v;
			break;
		case 'g':
			gpath = optarg;
			break;
		case 'j':
			jpath = optarg;
			break;
		case 'z':
			zpath = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (!o.ops || optind != argc)
		return fputs(usage, stderr), 2;
	if (gpath && gs_writer_open(gpath, NULL, &w))
		return fail(gpath);
	if (jpath && !(json = fopen(jpath, "wb")))
		return fail(jpath);
	if (zpath && !(gz = gzopen(zpath, "wb1")))
		return fail(zpath);
	rc = gs_bench_generate(&o, w ? gs_writer_borrow_sink(w) : NULL, json, gz, &c);
	if (w) {
		gs_status wrc = gs_writer_close(w);

		if (!rc)
			rc = wrc;
	}
	if (json && fclose(json) != 0 && !rc)
		rc = GS_ERR_IO;
	if (gz && gzclose(gz) != Z_OK && !rc)
		rc = GS_ERR_IO;
	if (rc)
		return fail("generating the trace");
	printf("ops %llu\nkernels %llu\nmemcpys %llu\nmemsets %llu\napi_calls %llu\n"
	       "syncs %llu\nevent_records %llu\nranges %llu\noverheads %llu\nstreams %llu\n"
	       "devices %llu\nsteps %llu\njson_bytes %llu\n",
	       (unsigned long long)c.ops, (unsigned long long)c.kernels,
	       (unsigned long long)c.memcpys, (unsigned long long)c.memsets,
	       (unsigned long long)c.api_calls, (unsigned long long)c.syncs,
	       (unsigned long long)c.event_records, (unsigned long long)c.ranges,
	       (unsigned long long)c.overheads, (unsigned long long)c.streams,
	       (unsigned long long)c.devices, (unsigned long long)c.steps,
	       (unsigned long long)c.json_bytes);
	return 0;
}
