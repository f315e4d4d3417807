/* SPDX-License-Identifier: MIT */
/*
 * The CUDA Graph replay what-if: the recorded run of one device with the
 * launch gaps of its CUDA Graph candidates (gpuscope/cudagraph.h) shortened.
 */
#ifndef GPUSCOPE_WHATIF_H
#define GPUSCOPE_WHATIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gpuscope/cudagraph.h>
#include <gpuscope/graph.h>
#include <gpuscope/schedule.h>
#include <gpuscope/trace.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A graph's launch cost per kernel node, by default (`--graph-node-ns`). */
#define GS_CUDAGRAPH_NODE_NS_DEFAULT 1000

/* Candidates replayed one by one (each costs a pass over the device's ops);
 * those ranked after are in the total only. */
#define GS_REPLAY_MAX_CANDIDATES 16

/*
 * The recorded run of one device (the ops of schedule `s`) with the gaps a
 * graph would shorten shortened: each gap inside an occurrence of a
 * candidate (gs_cudagraph_candidate.gap_ops / gap_ns) becomes `node_ns` (a gap
 * no longer than that stays). Re-timed in (recorded start, op index) order:
 *
 *   removed(o) = max(0, gap before o - node_ns) for a shortened gap, else 0
 *   D(o)       = sum of removed(p) over ops p of the device with
 *                start(p) <= start(o) (the host runs ahead by what it no
 *                longer spends launching, for everything after)
 *   start'(o)  = min(start(o), max(start(o) - D(o), window start, end'(p)
 *                for every edge p -> o of the graph, all kinds; an op
 *                outside the set, or one not yet re-timed (an edge back in
 *                time), counts at its recorded end))
 *   end'(o)    = start'(o) + duration(o)
 *
 * and a kernel then waits, on the device of the ideal schedule, until its
 * share of the SMs fits beside the kernels still running (s->slot_share
 * under s->kernel_capacity; in recorded order this never makes it later
 * than it was), so that ops brought closer never run more at once than
 * the device holds. Dependencies are unchanged, no op starts later than it did (the outer
 * min matters only on edges the recording contradicts: a consumer that
 * started before its producer ended), and a run with nothing removed is
 * the recorded run. Hence 0 <= saving_ns <= the time removed, which is at
 * most the candidates' exposed_launch_ns. makespan_ns = last end' - window start; saving_ns against
 * s->actual_ns, saving_vs_ideal_ns against s->ideal_ns.
 *
 * `total` gets every candidate not already launched from a graph; per[i]
 * (when per is not NULL; n entries) candidate i alone, for the first
 * GS_REPLAY_MAX_CANDIDATES of them (per_done[i] says which were; NULL
 * allowed). O(N log N + (k + 1)(N + E)) for N ops, E edges, k candidates.
 */
gs_status gs_cudagraph_replay_compute(const struct gs_trace *t, const struct gs_graph *g,
				      const struct gs_schedule *s,
				      const struct gs_cudagraph_candidate *c, size_t n,
				      int64_t node_ns, struct gs_what_if *total,
				      struct gs_what_if *per, bool *per_done);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_WHATIF_H */
