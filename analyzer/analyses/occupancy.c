/* SPDX-License-Identifier: MIT */
/*
 * The share of a device a kernel holds while it runs, from its launch
 * configuration against the device's per-SM limits (docs/design.md, "The
 * ideal schedule").
 *
 * Blocks resident per SM = the smallest of the block limit, the warp limit
 * (warps of a block rounded up), the registers (per-warp allocation in
 * units of 256 registers) and the shared memory (the block's static and
 * dynamic bytes plus what the runtime reserves per block). The share is
 * blocks / (SMs x blocks per SM), at most 1: a kernel with at least that
 * many blocks fills the device; one with a tenth of them leaves room for
 * nine more like it.
 *
 * The per-SM limits are those NVIDIA documents for each compute capability
 * ("Technical Specifications per Compute Capability"); a capability not in
 * the table, a device record without an SM count, or a configuration the
 * limits cannot hold (more threads than a block may have) gives no share,
 * and the schedule falls back on the concurrency the recorded run showed.
 * Then the lane of running kernels under the capacity that the schedules
 * place kernels on by their shares (gs_sched_kernel_place), and the copy
 * engines they place copies on (gs_sched_engines_take).
 */
#include "schedule_priv.h"

#include <gpuscope/error.h>

#include <stdlib.h>

struct sm_limits {
	uint8_t major, minor;
	uint16_t warps;    /* resident warps per SM */
	uint16_t blocks;   /* resident blocks per SM */
	uint32_t smem;     /* shared memory per SM, bytes */
	uint32_t reserved; /* shared memory the runtime keeps per block */
	uint32_t regs;     /* 32-bit registers per SM */
};

static const struct sm_limits limits[] = {
	{6, 0, 64, 32, 64u << 10, 0, 65536},      {6, 1, 64, 32, 96u << 10, 0, 65536},
	{6, 2, 64, 32, 64u << 10, 0, 65536},      {7, 0, 64, 32, 96u << 10, 0, 65536},
	{7, 2, 64, 32, 96u << 10, 0, 65536},      {7, 5, 32, 16, 64u << 10, 0, 65536},
	{8, 0, 64, 32, 164u << 10, 1024, 65536},  {8, 6, 48, 16, 100u << 10, 1024, 65536},
	{8, 7, 48, 16, 164u << 10, 1024, 65536},  {8, 9, 48, 24, 100u << 10, 1024, 65536},
	{9, 0, 64, 32, 228u << 10, 1024, 65536},  {10, 0, 64, 32, 228u << 10, 1024, 65536},
	{10, 3, 64, 32, 228u << 10, 1024, 65536},
};

static const struct sm_limits *find_limits(uint32_t major, uint32_t minor)
{
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
		if (limits[i].major == major && limits[i].minor == minor)
			return &limits[i];
	return NULL;
}

bool gs_sched_device_known(const struct gs_device *d)
{
	return d && d->sm_count && find_limits(d->cc_major, d->cc_minor);
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

uint32_t gs_sched_kernel_share(const struct gs_device *d, const struct gs_launch_cfg *lc)
{
	const struct sm_limits *lim = d && d->sm_count ? find_limits(d->cc_major, d->cc_minor) :
							 NULL;
	uint64_t threads, blocks, fill, share;
	uint32_t warps, fit;

	if (!lim || !lc)
		return 0;
	threads = mul_sat(mul_sat(lc->block[0], lc->block[1]), lc->block[2]);
	blocks = mul_sat(mul_sat(lc->grid[0], lc->grid[1]), lc->grid[2]);
	if (!threads || threads > 1024 || !blocks)
		return 0;
	warps = (uint32_t)((threads + 31) / 32);
	fit = lim->warps / warps;
	if (lim->blocks < fit)
		fit = lim->blocks;
	if (lc->registers) {
		uint32_t per_warp, by_regs;

		if (lc->registers > 255)
			return 0;
		per_warp = (lc->registers * 32 + 255) / 256 * 256;
		by_regs = lim->regs / per_warp / warps;
		if (by_regs < fit)
			fit = by_regs;
	}
	if (lc->shared_mem) {
		uint64_t per_block = (uint64_t)lc->shared_mem + lim->reserved;
		uint64_t by_smem = lim->smem / per_block;

		if (by_smem < fit)
			fit = (uint32_t)by_smem;
	}
	if (!fit)
		return 0;
	fill = (uint64_t)fit * d->sm_count; /* < 2^38 */
	if (blocks >= fill)
		return GS_SHARE_UNIT;
	/* Rounded down, so that ten tenths fit in one device, but never to
	 * nothing. blocks < fill < 2^38. */
	share = blocks * GS_SHARE_UNIT / fill;
	return share ? (uint32_t)share : 1;
}

/* ---- kernels: shares of the device under a capacity (schedule_priv.h) ----
 * The lane the ideal schedule and the CUDA Graph replay place kernels on. */

static void run_pop(struct gs_kernel_lane *l)
{
	struct gs_kernel_run v = l->run[--l->n];
	size_t i = 0;

	l->used -= l->run[0].share;
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= l->n)
			break;
		if (c + 1 < l->n && l->run[c + 1].end < l->run[c].end)
			c++;
		if (l->run[c].end >= v.end)
			break;
		l->run[i] = l->run[c];
		i = c;
	}
	if (l->n)
		l->run[i] = v;
}

static void run_push(struct gs_kernel_lane *l, struct gs_kernel_run v)
{
	size_t i = l->n++;

	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (l->run[p].end <= v.end)
			break;
		l->run[i] = l->run[p];
		i = p;
	}
	l->run[i] = v;
	l->used += v.share;
}

int64_t gs_sched_kernel_place(struct gs_kernel_lane *l, uint64_t cap, int64_t ready, int64_t dur,
			      uint32_t share)
{
	int64_t t = ready > l->last ? ready : l->last;

	if (!share)
		return ready;
	while (l->n && l->run[0].end <= t)
		run_pop(l);
	while (l->n && l->used + share > cap) {
		t = l->run[0].end;
		while (l->n && l->run[0].end <= t)
			run_pop(l);
	}
	run_push(l, (struct gs_kernel_run){.end = t + dur, .share = share});
	l->last = t;
	return t;
}

static void engine_sift_down(int64_t *a, size_t n, size_t i)
{
	int64_t v = a[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && a[c + 1] < a[c])
			c++;
		if (a[c] >= v)
			break;
		a[i] = a[c];
		i = c;
	}
	a[i] = v;
}

gs_status gs_sched_engines_init(struct gs_copy_engines *e, const uint32_t *count,
				const uint32_t *copies, int64_t w0)
{
	size_t total = 0, i;

	for (unsigned d = 0; d < GS_COPY_KIND_COUNT; d++) {
		uint32_t n = count[d] < copies[d] ? count[d] : copies[d];

		e->first[d] = total;
		total += n ? n : 1;
	}
	e->first[GS_COPY_KIND_COUNT] = total;
	e->free = malloc((total ? total : 1) * sizeof(*e->free));
	if (!e->free)
		return gs_nomem();
	for (i = 0; i < total; i++)
		e->free[i] = w0;
	return GS_OK;
}

int64_t gs_sched_engines_take(struct gs_copy_engines *e, unsigned dir, int64_t ready, int64_t dur)
{
	int64_t *a = e->free + e->first[dir], start = a[0] > ready ? a[0] : ready;

	a[0] = start + dur;
	engine_sift_down(a, e->first[dir + 1] - e->first[dir], 0);
	return start;
}

const char *gs_ideal_rule_name(unsigned rule)
{
	static const char *const names[] = {"none", "occupancy", "as recorded",
					    "occupancy and as recorded"};

	return rule < sizeof(names) / sizeof(names[0]) ? names[rule] : "unknown";
}
