/* SPDX-License-Identifier: MIT */
/*
 * CUDA Graph candidates (analyzer/analyses/candidates.c) against a plain
 * reference of the same rules: every round, every length 2 ..
 * min(32, m / 3), windows grouped by their kernels (compared kernel by
 * kernel), occurrences leftmost first and never overlapping, the winner by
 * (covered gap, length, earlier first), its kernels set aside, four rounds;
 * no window spans a gap over GS_CUDAGRAPH_MAX_GAP_NS or holds a
 * communication kernel.
 * The search in candidates.c is exact group ids, pruning, and two threads
 * on long streams; the reference is none of that. Long streams (over 16 k
 * kernels) are searched on two threads when two CPUs are there, so the
 * same traces are also run pinned to one CPU: the results must not differ.
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gpuscope/analyzer.h>

#define MAX_LEN 32
#define MIN_REPS 3
#define ROUNDS 4

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* Signature COMM is a communication kernel (an NCCL name). */
#define COMM 16

/* One stream of kernels: signature (name index) and the gap before each. */
struct stream_spec {
	size_t m;
	uint32_t *sig;
	int64_t *gap;
};

/* ---- the reference ------------------------------------------------------- */

struct ref_cand {
	uint32_t stream;
	size_t first; /* kernel index in the stream */
	size_t length;
	size_t reps;
	int64_t gap;
};

/* Whether kernels k - 1 and k may be in one occurrence. */
static bool ref_joins(const struct stream_spec *s, size_t k)
{
	return s->gap[k] <= GS_CUDAGRAPH_MAX_GAP_NS && s->sig[k] != COMM && s->sig[k - 1] != COMM;
}

static bool ref_free(const struct stream_spec *s, const uint8_t *used, size_t j, size_t len)
{
	for (size_t k = j; k < j + len; k++)
		if (used[k] || (k > j && !ref_joins(s, k)))
			return false;
	return true;
}

static int64_t ref_gap(const struct stream_spec *s, size_t j, size_t len)
{
	int64_t g = 0;

	for (size_t k = j + 1; k < j + len; k++)
		g += s->gap[k];
	return g;
}

/* Groups of one length: the first window of each group (open addressing
 * on a hash of the kernels, compared kernel by kernel). */
struct ref_group {
	size_t first;
	size_t count, next;
	int64_t gap;
	bool used;
};

static uint64_t ref_hash(const uint32_t *w, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ w[i]) * 1099511628211ull;
	return h;
}

static size_t ref_search(const struct stream_spec *s, uint32_t stream, struct ref_cand *out)
{
	size_t m = s->m, max_len = m / MIN_REPS, n = 0, cap = 1;
	uint8_t *used = calloc(m + 1, 1);
	struct ref_group *tab;

	assert_non_null(used);
	while (cap < 4 * m + 4)
		cap *= 2;
	tab = calloc(cap, sizeof(*tab));
	assert_non_null(tab);
	if (max_len > MAX_LEN)
		max_len = MAX_LEN;
	for (int round = 0; round < ROUNDS && max_len >= 2; round++) {
		struct ref_cand best = {0};

		for (size_t len = 2; len <= max_len; len++) {
			memset(tab, 0, cap * sizeof(*tab));
			for (size_t j = 0; j + len <= m; j++) {
				size_t h;
				struct ref_group *g;

				if (!ref_free(s, used, j, len))
					continue;
				h = ref_hash(&s->sig[j], len) & (cap - 1);
				while (tab[h].used && memcmp(&s->sig[tab[h].first], &s->sig[j],
							     len * sizeof(*s->sig)))
					h = (h + 1) & (cap - 1);
				g = &tab[h];
				if (!g->used) {
					g->used = true;
					g->first = j;
				}
				if (j < g->next)
					continue;
				g->count++;
				g->gap += ref_gap(s, j, len);
				g->next = j + len;
			}
			for (size_t h = 0; h < cap; h++) {
				const struct ref_group *g = &tab[h];

				if (!g->used || g->count < MIN_REPS || g->gap <= 0)
					continue;
				if (g->gap > best.gap ||
				    (g->gap == best.gap && len > best.length) ||
				    (g->gap == best.gap && len == best.length &&
				     g->first < best.first))
					best = (struct ref_cand){.stream = stream,
								 .first = g->first,
								 .length = len,
								 .reps = g->count,
								 .gap = g->gap};
			}
		}
		if (!best.length)
			break;
		/* Set the winner's occurrences aside. */
		for (size_t j = best.first, next = 0; j + best.length <= m; j++) {
			if (j < next || !ref_free(s, used, j, best.length) ||
			    memcmp(&s->sig[j], &s->sig[best.first], best.length * sizeof(*s->sig)))
				continue;
			next = j + best.length;
			memset(used + j, 1, best.length);
		}
		out[n++] = best;
	}
	free(tab);
	free(used);
	return n;
}

/* ---- building the trace -------------------------------------------------- */

static const char *const names[] = {"A",
				    "B",
				    "C",
				    "D",
				    "E",
				    "F",
				    "G",
				    "H",
				    "I",
				    "J",
				    "K",
				    "L",
				    "M",
				    "N",
				    "O",
				    "P",
				    "ncclDevKernel_AllReduce"};

/* Streams 0 .. n - 1 on device 0; kernels 1 us long. */
static struct gs_trace *build(const struct stream_spec *specs, size_t n)
{
	struct gs_trace *t;
	struct gs_sink *k;
	struct gs_device d = {.id = 0, .name = GS_NO_STRING, .uuid = GS_NO_STRING};
	uint32_t ids[COMM + 1];
	uint64_t corr = 1;

	assert_int_equal(gs_trace_create(&t), GS_OK);
	k = gs_trace_borrow_sink(t);
	assert_int_equal(k->device(k, &d), GS_OK);
	for (size_t i = 0; i <= COMM; i++)
		assert_int_equal(k->intern(k, names[i], strlen(names[i]), &ids[i]), GS_OK);
	for (size_t s = 0; s < n; s++) {
		struct gs_stream st = {.pid = 1,
				       .device = 0,
				       .context = 1,
				       .stream_id = 10 + s,
				       .kind = GS_STREAM_NON_BLOCKING};
		uint32_t index;
		int64_t now = 1000000;

		assert_int_equal(k->stream(k, &st, &index), GS_OK);
		for (size_t i = 0; i < specs[s].m; i++) {
			struct gs_op o = {.start_ns = now + specs[s].gap[i],
					  .correlation = corr++,
					  .name = ids[specs[s].sig[i]],
					  .stream = index,
					  .kind = GS_OP_KERNEL};
			struct gs_launch_cfg lc = {.grid = {64, 1, 1}, .block = {128, 1, 1}};

			o.end_ns = o.start_ns + 1000;
			now = o.end_ns;
			assert_int_equal(k->op(k, &o, &lc), GS_OK);
		}
	}
	assert_int_equal(gs_trace_finish(t), GS_OK);
	return t;
}

/* candidates.c's answer, with kernel indices as in the stream. */
static size_t run(const struct gs_trace *t, size_t n_specs, struct ref_cand *out)
{
	struct gs_cudagraph_candidate *c;
	size_t n;

	assert_int_equal(gs_cudagraph_candidates_compute(t, 0, NULL, &c, &n), GS_OK);
	for (size_t i = 0; i < n; i++) {
		size_t first, count;

		assert_true(c[i].stream < n_specs);
		gs_trace_stream_ops(t, c[i].stream, &first, &count);
		assert_true(c[i].kernels[0] >= first && c[i].kernels[0] < first + count);
		for (size_t k = 1; k < c[i].length; k++)
			assert_int_equal(c[i].kernels[k], c[i].kernels[0] + k);
		out[i] = (struct ref_cand){.stream = c[i].stream,
					   .first = c[i].kernels[0] - first,
					   .length = c[i].length,
					   .reps = c[i].repetitions,
					   .gap = c[i].exposed_launch_ns};
	}
	gs_cudagraph_candidates_free(c, n);
	return n;
}

static int cmp_cand(const void *pa, const void *pb)
{
	const struct ref_cand *a = pa, *b = pb;

	if (a->gap != b->gap)
		return a->gap > b->gap ? -1 : 1;
	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

/* The reference over every stream, in the order gs_cudagraph_candidates_compute
 * reports (covered gap, then stream, then first kernel). */
static size_t reference(const struct stream_spec *specs, size_t n, struct ref_cand *out)
{
	size_t k = 0;

	for (size_t s = 0; s < n; s++)
		k += ref_search(&specs[s], (uint32_t)s, out + k);
	qsort(out, k, sizeof(*out), cmp_cand);
	return k;
}

static void expect_same(const struct ref_cand *want, size_t n_want, const struct ref_cand *got,
			size_t n_got)
{
	assert_int_equal(n_got, n_want);
	for (size_t i = 0; i < n_want; i++) {
		assert_int_equal(got[i].stream, want[i].stream);
		assert_int_equal(got[i].first, want[i].first);
		assert_int_equal(got[i].length, want[i].length);
		assert_int_equal(got[i].reps, want[i].reps);
		assert_int_equal(got[i].gap, want[i].gap);
	}
}

/* Run on one CPU, then on every CPU this process had: same answer. */
static size_t run_pinned(const struct gs_trace *t, size_t n, struct ref_cand *out)
{
	cpu_set_t all, one;
	size_t k;

	if (sched_getaffinity(0, sizeof(all), &all) != 0)
		return run(t, n, out);
	CPU_ZERO(&one);
	for (int c = 0; c < CPU_SETSIZE; c++) {
		if (CPU_ISSET(c, &all)) {
			CPU_SET(c, &one);
			break;
		}
	}
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	k = run(t, n, out);
	assert_int_equal(sched_setaffinity(0, sizeof(all), &all), 0);
	return k;
}

static void spec_alloc(struct stream_spec *s, size_t m)
{
	s->m = m;
	s->sig = calloc(m + 1, sizeof(*s->sig));
	s->gap = calloc(m + 1, sizeof(*s->gap));
	assert_non_null(s->sig);
	assert_non_null(s->gap);
}

static void spec_free(struct stream_spec *s)
{
	free(s->sig);
	free(s->gap);
}

/* Check specs[0 .. n) against the reference, on all CPUs and on one. */
static void check(const struct stream_spec *specs, size_t n)
{
	size_t total = 0, n_want, n_got;
	struct ref_cand *want, *got;
	struct gs_trace *t = build(specs, n);

	for (size_t s = 0; s < n; s++)
		total += ROUNDS;
	want = calloc(total + 1, sizeof(*want));
	got = calloc(total + 1, sizeof(*got));
	assert_non_null(want);
	assert_non_null(got);
	n_want = reference(specs, n, want);
	n_got = run(t, n, got);
	expect_same(want, n_want, got, n_got);
	n_got = run_pinned(t, n, got);
	expect_same(want, n_want, got, n_got);
	free(want);
	free(got);
	gs_trace_destroy(t);
}

/* ---- cases --------------------------------------------------------------- */

/* Short random streams over small alphabets: every round. */
static void test_short_random(void **state)
{
	(void)state;
	for (int iter = 0; iter < 300; iter++) {
		struct stream_spec s[2];
		size_t n = 1 + rnd(2);

		for (size_t k = 0; k < n; k++) {
			size_t m = 6 + rnd(200), alpha = 1 + rnd(4);

			spec_alloc(&s[k], m);
			for (size_t i = 0; i < m; i++) {
				s[k].sig[i] = rnd((uint32_t)alpha);
				s[k].gap[i] = i && rnd(3) ? (int64_t)rnd(5) * 100 : 0;
			}
		}
		check(s, n);
		for (size_t k = 0; k < n; k++)
			spec_free(&s[k]);
	}
}

/*
 * A long stream (two threads search it when there are two CPUs): a period
 * of P kernels repeated, with a few kernels changed at random, gaps in a
 * few places of the period (as launch-bound optimizer steps) or all over,
 * or in one stretch only.
 */
static void long_case(size_t m, size_t period, unsigned noise_per_mille, int gaps)
{
	struct stream_spec s;
	uint32_t pat[256];
	int64_t pgap[256];

	spec_alloc(&s, m);
	for (size_t i = 0; i < period; i++) {
		pat[i] = rnd(16);
		pgap[i] = gaps == 0 ? (rnd(8) == 0 ? 1000 + rnd(5000) : 0) : (int64_t)rnd(3000);
	}
	for (size_t i = 0; i < m; i++) {
		s.sig[i] = pat[i % period];
		s.gap[i] = i ? pgap[i % period] : 0;
		if (rnd(1000) < noise_per_mille)
			s.sig[i] = rnd(16);
		if (gaps == 2 && (i < m / 3 || i > m / 2))
			s.gap[i] = 0;
	}
	check(&s, 1);
	spec_free(&s);
}

static void test_long_periodic(void **state)
{
	(void)state;
	long_case(20000, 105, 0, 0);
	long_case(18000, 7, 2, 1);
	long_case(24000, 41, 10, 2);
	long_case(17000, 64, 30, 0);
	/* Random periods and gap layouts: winners whose gaps sit at their
	 * start, found only if no part of them left the search too early. */
	for (int i = 0; i < 48; i++)
		long_case(16500 + rnd(3000), 10 + rnd(110), rnd(4), (int)rnd(3));
}

/* Little repetition: most windows leave the search after short lengths. */
static void test_long_random(void **state)
{
	struct stream_spec s;

	(void)state;
	spec_alloc(&s, 30000);
	for (size_t i = 0; i < s.m; i++) {
		s.sig[i] = rnd(16);
		s.gap[i] = i ? (int64_t)rnd(2000) : 0;
	}
	check(&s, 1);
	/* Repeats of a few long pieces, separated by noise. */
	for (size_t i = 0; i < s.m; i++) {
		s.sig[i] = (i / 1000) % 3 == 0 ? (uint32_t)(i % 29 % 16) : rnd(16);
		s.gap[i] = i % 7 ? 0 : 500;
	}
	check(&s, 1);
	spec_free(&s);
}

/*
 * Gaps too long for launch overhead and communication kernels end a
 * sequence: short random streams with both, and a long periodic one whose
 * period holds an NCCL kernel and a long gap.
 */
static void test_breaks(void **state)
{
	struct stream_spec s;

	(void)state;
	for (int iter = 0; iter < 300; iter++) {
		size_t m = 6 + rnd(200), alpha = 1 + rnd(4);

		spec_alloc(&s, m);
		for (size_t i = 0; i < m; i++) {
			s.sig[i] = rnd(8) == 0 ? COMM : rnd((uint32_t)alpha);
			s.gap[i] = !i          ? 0 :
				   rnd(6) == 0 ? GS_CUDAGRAPH_MAX_GAP_NS + (int64_t)rnd(3) * 50000 :
						 (int64_t)rnd(5) * 100;
		}
		check(&s, 1);
		spec_free(&s);
	}
	spec_alloc(&s, 20000);
	for (size_t i = 0; i < s.m; i++) {
		s.sig[i] = i % 23 == 7 ? COMM : (uint32_t)(i % 23 % 16);
		s.gap[i] = !i ? 0 : i % 23 == 15 ? 21700000 : (int64_t)(i % 5) * 700;
	}
	check(&s, 1);
	spec_free(&s);
}

/* No launch gaps: no candidate, however much repeats. */
static void test_no_gaps(void **state)
{
	struct stream_spec s;

	(void)state;
	spec_alloc(&s, 20000);
	for (size_t i = 0; i < s.m; i++)
		s.sig[i] = (uint32_t)(i % 5);
	check(&s, 1);
	spec_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_random), cmocka_unit_test(test_long_periodic),
		cmocka_unit_test(test_long_random),  cmocka_unit_test(test_no_gaps),
		cmocka_unit_test(test_breaks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
