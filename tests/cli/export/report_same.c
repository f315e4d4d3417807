/* SPDX-License-Identifier: MIT */
/*
 * report_same: are two `gpuscope analyze --format json` reports the same
 * analysis? For the round trip of an export (SOURCE analysed, EXPORT read
 * back and analysed):
 *
 *   report_same [--first-description] SOURCE.json READBACK.json
 *
 * The same GPUs, by (rank, device), and for each: window, op count,
 * breakdown, name, host, uuid, and the schedule's actual, dependency bound,
 * ideal and efficiency; and the same job analysis ("job", whole, or absent
 * from both). --first-description leaves out the GPUs' names and uuids:
 * a Chrome file describes each device id once (deviceProperties), so ranks
 * whose GPUs of one id differ read back with the first rank's. Numbers are compared as their text (the file is read with
 * every number turned into a string), so a time of 1.7e18 ns must agree to
 * the digit.
 *
 * Pids: a rank is read back under the pid it recorded, except where an
 * earlier rank (by number) of the job recorded the same pid (ranks of two
 * hosts) or none was known: then under that pid (0 when none) + k * 2^32,
 * k = 1, 2, ... in rank order (formats/src/kineto.c). This tool expects
 * exactly that pid, and compares the rest as if it were the recorded one.
 *
 * Prints one line per difference (at most 20) and a summary; exits 0 when
 * the two are the same, 1 otherwise, 2 on usage errors.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "quote_numbers.h"

static int problems;

#define PROBLEM(...)                                                                               \
	do {                                                                                       \
		if (problems++ < 20) {                                                             \
			printf("FAIL: ");                                                          \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
		}                                                                                  \
	} while (0)

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 1 << 16, n = 0, got;
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(cap + 1);
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *nb = realloc(buf, cap * 2 + 1);

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (buf)
		buf[n] = '\0';
	*len = n;
	return buf;
}

/* The JSON of `path` with every number outside strings turned into a
 * string of its text. */
static cJSON *load(const char *path)
{
	size_t n, k = 0;
	char *s = read_all(path, &n), *o;
	cJSON *doc;

	if (!s)
		return NULL;
	o = quote_numbers(s, n, &k);
	if (!o) {
		free(s);
		return NULL;
	}
	doc = cJSON_ParseWithLength(o, k);
	free(s);
	free(o);
	return doc;
}

static const cJSON *get(const cJSON *o, const char *key)
{
	return o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

/* A member's text ("null" for null, "" when absent). */
static const char *text(const cJSON *o, const char *key)
{
	const cJSON *v = get(o, key);

	if (!v)
		return "";
	if (cJSON_IsNull(v))
		return "null";
	return cJSON_IsString(v) ? v->valuestring : "?";
}

/* The pid each rank of the source had, and the one its read-back must
 * have (struct above); ranks by number. */
struct rank_pid {
	long long rank;
	char pid[32];      /* as recorded: digits or "null" */
	char expected[32]; /* in the read-back */
};

static int cmp_rank_pid(const void *pa, const void *pb)
{
	const struct rank_pid *a = pa, *b = pb;

	return (a->rank > b->rank) - (a->rank < b->rank);
}

static struct rank_pid *rank_pids(const cJSON *devices, size_t *n)
{
	size_t cap = (size_t)cJSON_GetArraySize(devices) + 1, k = 0;
	struct rank_pid *r = calloc(cap, sizeof(*r));
	const cJSON *d;

	if (!r)
		return NULL;
	cJSON_ArrayForEach(d, devices)
	{
		long long rank = strtoll(text(d, "rank"), NULL, 10);
		size_t i;

		for (i = 0; i < k && r[i].rank != rank; i++)
			;
		if (i < k)
			continue;
		r[k].rank = rank;
		snprintf(r[k].pid, sizeof(r[k].pid), "%s", text(d, "pid"));
		k++;
	}
	qsort(r, k, sizeof(*r), cmp_rank_pid);
	for (size_t i = 0; i < k; i++) {
		bool known = strcmp(r[i].pid, "null") != 0;
		long long low = known ? strtoll(r[i].pid, NULL, 10) : 0, m = known ? 0 : 1;

		for (size_t j = 0; j < i; j++)
			if (!strcmp(r[j].pid, r[i].pid))
				m++;
		snprintf(r[i].expected, sizeof(r[i].expected), "%lld",
			 low + (long long)((uint64_t)m << 32));
	}
	*n = k;
	return r;
}

/* In the read-back, each rank's pid back to the recorded one, where it is
 * the pid expected (in every object with "rank" and "pid" members). */
static void unmap_pids(cJSON *o, const struct rank_pid *r, size_t n)
{
	cJSON *c;

	if (cJSON_IsObject(o) && get(o, "rank") && get(o, "pid")) {
		long long rank = strtoll(text(o, "rank"), NULL, 10);

		for (size_t i = 0; i < n; i++) {
			if (r[i].rank != rank || strcmp(text(o, "pid"), r[i].expected) != 0)
				continue;
			cJSON_ReplaceItemInObjectCaseSensitive(
				o, "pid",
				strcmp(r[i].pid, "null") ? cJSON_CreateString(r[i].pid) :
							   cJSON_CreateNull());
			break;
		}
	}
	cJSON_ArrayForEach(c, o) unmap_pids(c, r, n);
}

static const cJSON *find_device(const cJSON *devices, const char *rank, const char *device)
{
	const cJSON *d;

	cJSON_ArrayForEach(d, devices)
	{
		if (!strcmp(text(d, "rank"), rank) && !strcmp(text(d, "device"), device))
			return d;
	}
	return NULL;
}

static void same_member(const char *what, const cJSON *a, const cJSON *b, const char *key)
{
	const cJSON *x = get(a, key), *y = get(b, key);

	if (!x && !y)
		return;
	if (!x || !y || !cJSON_Compare(x, y, true)) {
		char *sx = x ? cJSON_PrintUnformatted(x) : NULL,
		     *sy = y ? cJSON_PrintUnformatted(y) : NULL;

		PROBLEM("%s: %s differs: %.200s against %.200s", what, key, sx ? sx : "(absent)",
			sy ? sy : "(absent)");
		free(sx);
		free(sy);
	}
}

int main(int argc, char **argv)
{
	static const char *const dev_keys[] = {"window_ns", "ops",  "breakdown", "host",
					       "pid",       "name", "uuid"};
	static const char *const sched_keys[] = {"actual_ns", "dependency_bound_ns", "ideal_ns",
						 "efficiency"};
	cJSON *a, *b;
	const cJSON *da, *db, *d;
	struct rank_pid *pids;
	size_t n_pids = 0, gpus = 0, n_keys = sizeof(dev_keys) / sizeof(dev_keys[0]);
	int arg = 1;

	if (arg < argc && !strcmp(argv[arg], "--first-description")) {
		n_keys -= 2; /* name, uuid */
		arg++;
	}
	if (argc - arg != 2) {
		fprintf(stderr,
			"usage: report_same [--first-description] SOURCE.json READBACK.json\n");
		return 2;
	}
	a = load(argv[arg]);
	b = load(argv[arg + 1]);
	if (!a || !b) {
		printf("FAIL: cannot read %s as JSON\n", a ? argv[arg + 1] : argv[arg]);
		return 1;
	}
	da = get(a, "devices");
	db = get(b, "devices");
	pids = rank_pids(da, &n_pids);
	if (!pids || !cJSON_IsArray(da) || !cJSON_IsArray(db)) {
		printf("FAIL: no devices\n");
		return 1;
	}
	/* Each rank under the pid expected, then compared as if recorded. */
	cJSON_ArrayForEach(d, db)
	{
		long long rank = strtoll(text(d, "rank"), NULL, 10);

		for (size_t i = 0; i < n_pids; i++)
			if (pids[i].rank == rank && strcmp(text(d, "pid"), pids[i].expected) != 0)
				PROBLEM("rank %lld GPU %s: read back as pid %s, want %s", rank,
					text(d, "device"), text(d, "pid"), pids[i].expected);
	}
	unmap_pids(b, pids, n_pids);
	if (cJSON_GetArraySize(da) != cJSON_GetArraySize(db))
		PROBLEM("%d GPUs in the source, %d read back", cJSON_GetArraySize(da),
			cJSON_GetArraySize(db));
	cJSON_ArrayForEach(d, da)
	{
		const char *rank = text(d, "rank"), *device = text(d, "device");
		const cJSON *e = find_device(db, rank, device);
		char what[64];

		snprintf(what, sizeof(what), "rank %s GPU %s", rank, device);
		if (!e) {
			PROBLEM("%s: not read back", what);
			continue;
		}
		gpus++;
		for (size_t k = 0; k < n_keys; k++)
			same_member(what, d, e, dev_keys[k]);
		for (size_t k = 0; k < sizeof(sched_keys) / sizeof(sched_keys[0]); k++)
			same_member(what, get(d, "schedule"), get(e, "schedule"), sched_keys[k]);
	}
	same_member("the report", a, b, "job");
	if (!problems)
		printf("%zu GPUs of %zu ranks: breakdown, schedule and job analysis the same\n",
		       gpus, n_pids);
	else
		printf("%d differences\n", problems);
	free(pids);
	cJSON_Delete(a);
	cJSON_Delete(b);
	return problems ? 1 : 0;
}
