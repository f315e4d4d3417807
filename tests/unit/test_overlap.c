/* SPDX-License-Identifier: MIT */
/*
 * gs_analyzer: missed overlap on random traces against a brute force over
 * every kernel: which copies are reported, their exposed and hideable
 * times, and their kernel among the nearest. The traces mix windows, a
 * coarse clock (kernels that start or end together), ops that overlap on
 * a stream, graphs without stream_order edges and producers recorded
 * after their consumers, so that the what-if's kernels start in their
 * recorded order in some and go back in others: both ways of building
 * the what-if's cover (overlap.c) are checked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <gpuscope/analyzer.h>

#include "sched_build.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % n);
}

struct gen_op {
	uint64_t corr;
	int64_t end;
};

/* Up to 60 ops on up to 5 streams (the last may be device 1's), each after
 * its stream's previous op and its random producers, or (one in eight)
 * overlapping the previous op of its stream. */
static void random_trace(struct tb *b, struct gs_window *w, bool *windowed)
{
	struct gen_op g[60];
	int64_t last_start[5] = {0}, last_end[5] = {0};
	uint32_t streams[5];
	uint32_t n_streams = 1 + rnd(5), n = 1 + rnd(60);
	bool back_edges;
	int64_t tick = rnd(4) ? 1 : 10;
	uint32_t kernel_pct = rnd(8) ? 20 + rnd(60) : rnd(2) * 100; /* none or only */
	static const uint8_t dirs[] = {GS_COPY_HTOD, GS_COPY_DTOH, GS_COPY_DTOD};
	static const uint8_t kinds[] = {GS_EDGE_EVENT, GS_EDGE_HOST_SYNC, GS_EDGE_DATA,
					GS_EDGE_SYNC_COPY, GS_EDGE_DEFAULT_STREAM};

	if (rnd(2))
		tb_init_sms(b, rnd(3), 108, 8, 0); /* kernels hold a share */
	else
		tb_init(b, rnd(3));
	b->no_stream_order = rnd(3) == 0;
	back_edges = rnd(3) == 0;
	for (uint32_t i = 0; i < n_streams; i++)
		streams[i] = tb_stream(b, 1 + i, i == 4 && rnd(2) ? 1 : 0);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = rnd(n_streams);
		int64_t start = last_end[s], end;

		g[i].corr = i + 1;
		for (uint32_t e = 0; i && e < rnd(4); e++) {
			uint32_t p = rnd(i);

			tb_edge(b, g[p].corr, g[i].corr, kinds[rnd(5)]);
			if (g[p].end > start)
				start = g[p].end;
		}
		/* A producer recorded after its consumer: the schedule's order
		 * then leaves the recorded one. */
		if (back_edges && i + 1 < n && rnd(4) == 0)
			tb_edge(b, i + 2 + rnd(n - i - 1), g[i].corr, kinds[rnd(5)]);
		start += rnd(3) ? (int64_t)rnd(20) : 0;
		if (rnd(8) == 0 && last_end[s] > last_start[s])
			start = last_start[s] +
				(int64_t)rnd((uint32_t)(last_end[s] - last_start[s]));
		end = start + (rnd(8) ? 1 + (int64_t)rnd(30) : 0);
		/* On a coarse clock many kernels start or end together. */
		start -= start % tick;
		end -= end % tick;
		if (rnd(100) < kernel_pct)
			tb_kernel(b, streams[s], T0 + start, T0 + end, g[i].corr, "k");
		else
			tb_copy(b, streams[s], dirs[rnd(3)],
				rnd(4) ? GS_MEM_PINNED : GS_MEM_PAGEABLE, T0 + start, T0 + end,
				g[i].corr);
		g[i].end = end;
		last_start[s] = start;
		if (end > last_end[s])
			last_end[s] = end;
	}
	*windowed = rnd(4) == 0;
	w->set = *windowed;
	w->start_ns = T0 + (int64_t)rnd(100);
	w->end_ns = w->start_ns + (int64_t)rnd(400);
}

struct span {
	int64_t s, e;
};

static int cmp_span(const void *pa, const void *pb)
{
	const struct span *a = pa, *b = pb;

	return a->s < b->s ? -1 : a->s > b->s;
}

/* The length of [a, b) under the union of v[0 .. n), the plain way: the
 * intervals cut to [a, b), sorted and merged. */
static int64_t covered(const struct span *v, size_t n, int64_t a, int64_t b)
{
	struct span c[64];
	size_t k = 0;
	int64_t sum = 0, hi = INT64_MIN;

	for (size_t i = 0; i < n; i++) {
		struct span x = {v[i].s > a ? v[i].s : a, v[i].e < b ? v[i].e : b};

		if (x.e > x.s)
			c[k++] = x;
	}
	qsort(c, k, sizeof(*c), cmp_span);
	for (size_t i = 0; i < k; i++) {
		int64_t s = c[i].s > hi ? c[i].s : hi;

		if (c[i].e > s)
			sum += c[i].e - s;
		if (c[i].e > hi)
			hi = c[i].e;
	}
	return sum;
}

static bool on_device0(const struct tb *b, const struct gs_op *op)
{
	size_t n;
	const struct gs_stream *st = gs_trace_streams(b->t, &n);

	return op->stream < n && st[op->stream].device == 0;
}

static bool in_set(const struct gs_schedule *s, const struct gs_op *op)
{
	return !s->window_set || (op->start_ns >= s->window_start && op->start_ns < s->window_end);
}

static bool set_kernel(const struct tb *b, const struct gs_schedule *s, size_t i)
{
	const struct gs_op *k = &b->ops[i];

	return k->kind == GS_OP_KERNEL && k->end_ns > k->start_ns && on_device0(b, k) &&
	       in_set(s, k);
}

/* Whether some kernel of the set starts earlier in the what-if than one
 * before it in (recorded start, op) order. */
static bool whatif_goes_back(const struct tb *b, const struct gs_schedule *s)
{
	for (size_t i = 0; i < b->n_ops; i++) {
		for (size_t j = 0; j < b->n_ops; j++) {
			int64_t si = b->ops[i].start_ns, sj = b->ops[j].start_ns;

			if (set_kernel(b, s, i) && set_kernel(b, s, j) &&
			    (si < sj || (si == sj && i < j)) &&
			    gs_schedule_pipelined_start(s, (uint32_t)j) <
				    gs_schedule_pipelined_start(s, (uint32_t)i))
				return true;
		}
	}
	return false;
}

/* Whether kernel op k is among the 4 (GS_MO_NEAR) kernels of the set that
 * ended last at or before `at` (after: started first at or after it), ties
 * to the later op before and the earlier op after. */
static bool among_near(const struct tb *b, const struct gs_schedule *s, uint32_t k, int64_t at,
		       bool after)
{
	size_t closer = 0;
	int64_t tk = after ? b->ops[k].start_ns : b->ops[k].end_ns;

	if (after ? tk < at : tk > at)
		return false;
	for (size_t i = 0; i < b->n_ops; i++) {
		int64_t t = after ? b->ops[i].start_ns : b->ops[i].end_ns;

		if (i == k || !set_kernel(b, s, i) || (after ? t < at : t > at))
			continue;
		if (after ? t < tk || (t == tk && i < k) : t > tk || (t == tk && i > k))
			closer++;
	}
	return closer < 4;
}

/* Every copy of the set against the brute force: reported exactly when its
 * exposed and hideable times are positive and some kernel of the set ends
 * before it or starts after it, with those times. */
static void check_copies(const struct tb *b, const struct gs_schedule *s,
			 const struct gs_missed_overlap *m, size_t nm)
{
	struct span all[64], wi[64];
	size_t n_all = 0, n_wi = 0, found = 0;

	for (size_t i = 0; i < b->n_ops; i++) {
		const struct gs_op *k = &b->ops[i];
		int64_t ps;

		if (k->kind != GS_OP_KERNEL || k->end_ns <= k->start_ns || !on_device0(b, k))
			continue;
		all[n_all++] = (struct span){k->start_ns, k->end_ns};
		if (!in_set(s, k))
			continue;
		ps = gs_schedule_pipelined_start(s, (uint32_t)i);
		wi[n_wi++] = (struct span){ps, ps + (k->end_ns - k->start_ns)};
	}
	for (size_t i = 0; i < b->n_ops; i++) {
		const struct gs_op *c = &b->ops[i];
		int64_t dur = c->end_ns > c->start_ns ? c->end_ns - c->start_ns : 0, exposed,
			hideable, ps = gs_schedule_pipelined_start(s, (uint32_t)i);
		bool near = false;
		const struct gs_missed_overlap *r = NULL;

		if (c->kind != GS_OP_MEMCPY || !on_device0(b, c) || !in_set(s, c))
			continue;
		exposed = dur - covered(all, n_all, c->start_ns, c->end_ns);
		hideable = exposed - (dur - covered(wi, n_wi, ps, ps + dur));
		for (size_t j = 0; j < b->n_ops; j++) {
			const struct gs_op *k = &b->ops[j];

			if (k->kind == GS_OP_KERNEL && k->end_ns > k->start_ns &&
			    on_device0(b, k) && in_set(s, k) &&
			    (k->end_ns <= c->start_ns || k->start_ns >= c->end_ns))
				near = true;
		}
		for (size_t j = 0; j < nm; j++)
			if (m[j].op == i)
				r = &m[j];
		if (exposed > 0 && hideable > 0 && near) {
			assert_non_null(r);
			assert_int_equal(r->exposed_ns, exposed);
			assert_int_equal(r->hideable_ns, hideable);
			assert_true(among_near(b, s, r->kernel, c->start_ns, false) ||
				    among_near(b, s, r->kernel, c->end_ns, true));
			found++;
		} else {
			assert_null(r);
		}
	}
	assert_int_equal(found, nm);
}

static void test_random_covers(void **state)
{
	size_t back = 0, forward = 0, reported = 0;

	(void)state;
	for (int iter = 0; iter < 4000; iter++) {
		struct tb b;
		struct gs_window w;
		struct gs_schedule s;
		struct gs_missed_overlap *m = NULL;
		size_t nm = 0;
		bool windowed;

		random_trace(&b, &w, &windowed);
		tb_build(&b);
		schedule(&b, windowed ? &w : NULL, &s);
		missed(&b, &s, &m, &nm);
		check_copies(&b, &s, m, nm);
		if (whatif_goes_back(&b, &s))
			back++;
		else
			forward++;
		reported += nm;
		free(m);
		gs_schedule_fini(&s);
		tb_fini(&b);
	}
	/* Both ways were taken, and often, with copies reported. */
	assert_true(back >= 100);
	assert_true(forward >= 100);
	assert_true(reported >= 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_covers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
