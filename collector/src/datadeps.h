/* SPDX-License-Identifier: MIT */
/*
 * Allocations and data dependencies (pure: no CUPTI, no I/O but the sink).
 *
 * MEMORY2 records give allocations (address, bytes, alloc and release
 * times). With GPUSCOPE_DATA_DEPS=1 the callbacks also give, per copy,
 * memset or kernel launch, the pointer values it was called with (its
 * "observation", keyed by the launch's correlation id). An observation's
 * pointers are matched by containment against the allocations live at the
 * observation's time, giving gs_op_alloc links.
 *
 * Ordering: observations are queued synchronously on the calling thread,
 * while MEMORY2 records come later in activity buffers. So observations
 * wait in a pending list until gs_dd_settle; one still unmatched after two
 * flush generations (or at the final settle) is dropped (a host pointer,
 * an allocation made before the collector attached, ...).
 *
 * Each link carries where the op's pointer falls in the allocation (its
 * offset) and, for copies and memsets, how many bytes it touches from
 * there (kernels: unknown). An allocation touched at more than one offset
 * is shared by several buffers (a caching allocator's segment, as
 * PyTorch's): its links are written with GS_LINK_SEGMENT, and the analyzer
 * joins two ops on it only where their ranges are known to meet. The
 * links of an allocation declared early (below) that were written before
 * its second offset was seen lack the mark.
 *
 * The .gscope model declares an allocation once with its lifetime, and a
 * link must follow its allocation: an allocation is declared when its
 * release has been seen (or at the end, free_ns = 0), followed by the links
 * held for it. An allocation with more than GS_DD_LINKS_HELD held links is
 * declared early with free_ns = 0 (its release time is then not recorded)
 * so that memory stays bounded.
 *
 * Complexity: allocations live in a treap keyed by (address, sequence):
 * O(log n) expected per insert, release and lookup; settle is linear in
 * the pending observations.
 */
#ifndef GS_COLLECTOR_DATADEPS_H
#define GS_COLLECTOR_DATADEPS_H

#include <gpuscope/trace_model.h>
#include <gpuscope/trace_sink.h>

#define GS_DD_MAX_PTRS 16
#define GS_DD_LINKS_HELD 4096
#define GS_DD_MAX_PENDING (1u << 20)

struct gs_dd_obs {
	uint64_t correlation;
	int64_t time_ns; /* CUPTI clock at the call; 0: unknown */
	uint8_t op_kind; /* enum gs_op_kind */
	uint8_t n;
	uint64_t bytes; /* bytes touched from each pointer (copies, memsets); 0: unknown */
	uint64_t ptr[GS_DD_MAX_PTRS];
};

struct gs_dd_stats {
	uint64_t allocations;      /* declared */
	uint64_t links;            /* op -> allocation links written */
	uint64_t unresolved;       /* pointers matching no allocation */
	uint64_t pending_dropped;  /* pointers dropped: pending list full */
	uint64_t unknown_releases; /* releases of addresses never seen allocated */
	uint64_t early_declared;   /* allocations declared before their release */
	uint64_t segments;         /* allocations touched at more than one offset */
};

struct gs_dd;

gs_status gs_dd_create(struct gs_sink *sink, int64_t pid, struct gs_dd **out);
void gs_dd_destroy(struct gs_dd *d);

gs_status gs_dd_alloc(struct gs_dd *d, uint64_t address, uint64_t bytes, int64_t time_ns,
		      uint32_t device, uint8_t mem_kind);
gs_status gs_dd_release(struct gs_dd *d, uint64_t address, int64_t time_ns);
/* Queue an observation's pointers (NULL pointers are skipped). */
gs_status gs_dd_observe(struct gs_dd *d, const struct gs_dd_obs *o, uint64_t generation);
/*
 * Match pending pointers, declare released allocations and write links.
 * `generation` counts periodic flushes; with `final` every pending pointer
 * is matched or dropped and every allocation still live is declared.
 */
gs_status gs_dd_settle(struct gs_dd *d, uint64_t generation, bool final);
void gs_dd_get_stats(const struct gs_dd *d, struct gs_dd_stats *s);

#endif
