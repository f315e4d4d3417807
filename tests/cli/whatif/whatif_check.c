/* SPDX-License-Identifier: MIT */
/*
 * whatif_check: does a `gpuscope analyze --format json` report agree with
 * itself about CUDA Graphs?
 *
 *   whatif_check REPORT.json
 *
 * For every GPU of the report:
 *   - each graph candidate covers launch gaps only: exposed_launch_ns > 0,
 *     mean_gap_ns <= max_gap_ns <= the what-if's max_gap_ns (100 us), and
 *     no kernel of its sequence is a communication kernel (an NCCL or RCCL
 *     name, any case);
 *   - each candidate replayed alone saves between 0 and its
 *     exposed_launch_ns;
 *   - the cuda_graph_replay what-if (all candidates not launched from a
 *     graph already) saves between 0 and the sum of their
 *     exposed_launch_ns, and its makespan is actual_ns - saving_ns;
 *   - the graph_candidates finding counts those same candidates ("N
 *     repeated kernel sequences"), and quotes the replay only when it
 *     saves time.
 *
 * Numbers are read as doubles: exact for every time below 2^53 ns.
 * Prints one line per problem (at most 20) and a summary; exits 0 when
 * none was found, 1 otherwise, 2 on usage or read errors.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

static int problems;

#define PROBLEM(...)                                                                               \
	do {                                                                                       \
		if (problems++ < 20) {                                                             \
			printf("FAIL: ");                                                          \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
		}                                                                                  \
	} while (0)

static char *read_all(const char *path)
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
			char *nb = realloc(buf, 2 * cap + 1);

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
	return buf;
}

/* A number field of o, or `dflt` when absent or not a number. */
static int64_t num(const cJSON *o, const char *key, int64_t dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : dflt;
}

static bool comm_name(const char *s)
{
	for (; *s; s++)
		if ((tolower((unsigned char)s[0]) == 'n' || tolower((unsigned char)s[0]) == 'r') &&
		    tolower((unsigned char)s[1]) == 'c' && tolower((unsigned char)s[2]) == 'c' &&
		    tolower((unsigned char)s[3]) == 'l')
			return true;
	return false;
}

static void check_device(const cJSON *d, const char *where)
{
	const cJSON *sched = cJSON_GetObjectItemCaseSensitive(d, "schedule");
	const cJSON *cands = cJSON_GetObjectItemCaseSensitive(d, "graph_candidates");
	const cJSON *whatifs = cJSON_GetObjectItemCaseSensitive(sched, "what_if");
	const cJSON *findings = cJSON_GetObjectItemCaseSensitive(d, "findings");
	const cJSON *replay = NULL, *c, *w, *f;
	int64_t max_gap = 100000, sum = 0, actual = num(sched, "actual_ns", -1);
	long replayed = 0, i = 0;

	cJSON_ArrayForEach(w, whatifs)
	{
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(w, "name");

		if (cJSON_IsString(name) && !strcmp(name->valuestring, "cuda_graph_replay"))
			replay = w;
	}
	if (replay)
		max_gap = num(replay, "max_gap_ns", -1);
	if (max_gap < 0)
		PROBLEM("%s: cuda_graph_replay has no max_gap_ns", where);
	cJSON_ArrayForEach(c, cands)
	{
		int64_t exposed = num(c, "exposed_launch_ns", -1), mean = num(c, "mean_gap_ns", -1),
			longest = num(c, "max_gap_ns", -1);
		const cJSON *seq = cJSON_GetObjectItemCaseSensitive(c, "sequence"), *k;
		const cJSON *alone = cJSON_GetObjectItemCaseSensitive(c, "replay");

		i++;
		if (exposed <= 0 || mean < 0 || longest < 0 || mean > longest || longest > max_gap)
			PROBLEM("%s: candidate %ld: exposed %" PRId64 ", mean gap %" PRId64
				", max gap %" PRId64 " (at most %" PRId64 ")",
				where, i, exposed, mean, longest, max_gap);
		cJSON_ArrayForEach(k, seq)
		{
			if (cJSON_IsString(k) && comm_name(k->valuestring))
				PROBLEM("%s: candidate %ld holds a communication kernel: %.60s",
					where, i, k->valuestring);
		}
		if (cJSON_IsObject(alone)) {
			int64_t saving = num(alone, "saving_ns", -1);

			if (saving < 0 || saving > exposed)
				PROBLEM("%s: candidate %ld alone saves %" PRId64
					", its gaps are %" PRId64,
					where, i, saving, exposed);
		}
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "already_graph"))) {
			sum += exposed;
			replayed++;
		}
	}
	if (replay) {
		int64_t saving = num(replay, "saving_ns", -1),
			makespan = num(replay, "makespan_ns", -1);

		if (saving < 0 || saving > sum)
			PROBLEM("%s: all candidates together save %" PRId64
				", their gaps sum to %" PRId64,
				where, saving, sum);
		if (makespan != actual - saving)
			PROBLEM("%s: replay makespan %" PRId64 " is not actual %" PRId64
				" - saving %" PRId64,
				where, makespan, actual, saving);
	} else if (i) {
		PROBLEM("%s: %ld candidates but no cuda_graph_replay what-if", where, i);
	}
	cJSON_ArrayForEach(f, findings)
	{
		const cJSON *kind = cJSON_GetObjectItemCaseSensitive(f, "kind");
		const cJSON *text = cJSON_GetObjectItemCaseSensitive(f, "text");
		long n;
		char *end;

		if (!cJSON_IsString(kind) || strcmp(kind->valuestring, "graph_candidates") ||
		    !cJSON_IsString(text))
			continue;
		n = strtol(text->valuestring, &end, 10);
		if (end == text->valuestring || strncmp(end, " repeated kernel sequence", 25))
			PROBLEM("%s: graph_candidates finding: %.80s", where, text->valuestring);
		else if (n != replayed)
			PROBLEM("%s: the finding counts %ld candidates, the what-if replays %ld",
				where, n, replayed);
		if (strstr(text->valuestring, "replayed from graphs") &&
		    (!replay || num(replay, "saving_ns", 0) <= 0))
			PROBLEM("%s: the finding quotes a replay that saves nothing", where);
	}
}

int main(int argc, char **argv)
{
	const cJSON *devices, *d;
	cJSON *root;
	char *text;
	long n = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: whatif_check REPORT.json\n");
		return 2;
	}
	text = read_all(argv[1]);
	root = text ? cJSON_Parse(text) : NULL;
	free(text);
	if (!root) {
		fprintf(stderr, "whatif_check: %s: cannot read or parse\n", argv[1]);
		return 2;
	}
	devices = cJSON_GetObjectItemCaseSensitive(root, "devices");
	cJSON_ArrayForEach(d, devices)
	{
		char where[64];

		snprintf(where, sizeof(where), "rank %" PRId64 " device %" PRId64,
			 num(d, "rank", 0), num(d, "device", -1));
		check_device(d, where);
		n++;
	}
	cJSON_Delete(root);
	printf("%s: %ld GPUs, %d problem%s\n", argv[1], n, problems, problems == 1 ? "" : "s");
	return problems ? 1 : 0;
}
