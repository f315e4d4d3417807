/* SPDX-License-Identifier: MIT */
/*
 * gs_bench: the Kineto JSON import of each real trace of ../shared/data
 * (--shared DIR), plain (inflated into the temporary directory first) and
 * gzip, MB/s of JSON text by the wall clock and a core; its section of the
 * table and the lowest rate among the traces judged.
 */
#define _GNU_SOURCE /* opendir, getpid, unlink */
#include "bench_priv.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* Traces this large or larger are judged against the target (smaller
 * ones are mostly the import's fixed costs). */
#define SHARED_JUDGED_BYTES 1e6

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Inflate `from` into the file `to`; 0 on success. */
static int gunzip_file(const char *from, const char *to)
{
	gzFile in = gzopen(from, "rb");
	FILE *out = in ? fopen(to, "wb") : NULL;
	char buf[1 << 16];
	int got, bad = !out;

	while (!bad && (got = gzread(in, buf, sizeof(buf))) > 0)
		bad = fwrite(buf, 1, (size_t)got, out) != (size_t)got;
	if (in && gzclose(in) != Z_OK)
		bad = 1;
	if (out && fclose(out) != 0)
		bad = 1;
	return bad;
}

/* Each .json.gz of DIR/kineto/<sub>/ through the import, plain and gzip. */
int bench_shared(const char *tmp, const char *dir, struct shared_result *sr)
{
	char kdir[4200], *names[MAX_SHARED];
	size_t nnames = 0;
	struct dirent *e;
	DIR *top;

	sr->done = true;
	snprintf(kdir, sizeof(kdir), "%s/kineto", dir);
	top = opendir(kdir);
	if (!top) {
		sr->note = "no ../shared/data/kineto (--shared DIR)";
		return 0;
	}
	while ((e = readdir(top)) != NULL && nnames < MAX_SHARED) {
		char sub[4200 + 256 + 2];
		struct dirent *f;
		DIR *d;

		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", kdir, e->d_name);
		d = opendir(sub);
		if (!d)
			continue;
		while ((f = readdir(d)) != NULL && nnames < MAX_SHARED) {
			size_t len = strlen(f->d_name);
			char *name;

			if (len < 9 || strcmp(f->d_name + len - 8, ".json.gz") != 0)
				continue;
			name = malloc(strlen(e->d_name) + len + 2);
			if (!name)
				break;
			snprintf(name, strlen(e->d_name) + len + 2, "%s/%s", e->d_name, f->d_name);
			names[nnames++] = name;
		}
		closedir(d);
	}
	closedir(top);
	qsort(names, nnames, sizeof(*names), cmp_names);
	snprintf(shared_plain, sizeof(shared_plain), "%s/gs_bench_shared.%ld.json", tmp,
		 (long)getpid());
	for (size_t i = 0; i < nnames; i++) {
		static const char *const keys[] = {"ns", "cpu_ns"};
		struct shared_trace *t = &sr->t[sr->n];
		char gz[4400];
		char *argv[] = {self_exe, S("--child"), S("load"), gz, NULL};
		struct run r;
		double v[2];

		snprintf(gz, sizeof(gz), "%s/%s", kdir, names[i]);
		snprintf(t->name, sizeof(t->name), "%.*s", (int)(strlen(names[i]) - 8), names[i]);
		fprintf(stderr, "gs_bench: shared trace %s\n", t->name);
		if (gunzip_file(gz, shared_plain)) {
			fprintf(stderr, "gs_bench: error: %s: cannot inflate into %s\n", gz,
				shared_plain);
			return 1;
		}
		t->gz_bytes = (double)file_size(gz);
		t->json_bytes = (double)file_size(shared_plain);
		if (measure(argv, keys, 2, &r, v, false))
			return 1;
		t->gz_ns = v[0];
		t->gz_cpu_ns = v[1];
		argv[3] = shared_plain;
		if (measure(argv, keys, 2, &r, v, false))
			return 1;
		t->plain_ns = v[0];
		t->plain_cpu_ns = v[1];
		unlink(shared_plain);
		sr->n++;
		free(names[i]);
	}
	shared_plain[0] = '\0';
	if (!sr->n)
		sr->note = "no .json.gz trace under ../shared/data/kineto";
	return 0;
}

void print_shared(const struct shared_result *sr)
{
	emit("-- Kineto JSON import of each trace of ../shared/data (once; MB/s of JSON text,\n"
	     "   by the wall clock and by CPU time: a core; plain: inflated first)\n");
	if (!sr->n) {
		emit("  skipped: %s\n", sr->note ? sr->note : "?");
		return;
	}
	emit("  %-48s %8s %8s %8s %8s %8s\n", "trace", "JSON MB", "plain", "a core", "gzip",
	     "a core");
	for (size_t i = 0; i < sr->n; i++) {
		const struct shared_trace *t = &sr->t[i];

		emit("  %-48s %8.1f %8.0f %8.0f %8.0f %8.0f\n", t->name, t->json_bytes / 1e6,
		     t->json_bytes / t->plain_ns * 1e3, t->json_bytes / t->plain_cpu_ns * 1e3,
		     t->json_bytes / t->gz_ns * 1e3, t->json_bytes / t->gz_cpu_ns * 1e3);
	}
}

/* The lowest plain rate a core among the traces judged, and which. */
double shared_worst(const struct shared_result *sr, const char **name)
{
	double worst = NAN;

	*name = "";
	for (size_t i = 0; i < sr->n; i++) {
		const struct shared_trace *t = &sr->t[i];
		double mbs = t->json_bytes / t->plain_cpu_ns * 1e3;

		if (t->json_bytes < SHARED_JUDGED_BYTES)
			continue;
		if (isnan(worst) || mbs < worst) {
			worst = mbs;
			*name = t->name;
		}
	}
	return worst;
}
