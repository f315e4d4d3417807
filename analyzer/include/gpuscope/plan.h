/* SPDX-License-Identifier: MIT */
/*
 * The stage calculator (`gpuscope plan`): a declared list of stages, never
 * a trace.
 */
#ifndef GPUSCOPE_PLAN_H
#define GPUSCOPE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <gpuscope/conditions.h>
#include <gpuscope/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * `gpuscope plan`: the stage calculator (schedule, pipeline comparison,
 * overlap conditions and breakdown; docs/design.md, Plan) on a declared
 * list of stages. Times are integer
 * nanoseconds; the JSON input gives them in µs with at most 3 decimals.
 *
 * Model. A stage starts when all its predecessors have ended: the stages
 * named in its depends_on, and the stage declared before it on the same
 * stream (a stream is a lane whose stages run one at a time, in declaration
 * order; different streams have independent resources). Two declared
 * resources refine that model:
 *   - a pageable h2d/d2h copy is host-synchronous (cudaMemcpy from pageable
 *     memory): it starts after every stage declared before it has ended, and
 *     every stage declared after it waits for it (edges of kind sync_copy);
 *   - copy engines: copies of a pool run at most `engines` at a time; a pool
 *     of 0 engines means such a copy cannot overlap device work: it runs
 *     with no other h2d/d2h/compute stage running.
 * Competing ready stages take a resource in order of (ready time,
 * declaration index); a waiting copy that cannot overlap device work holds
 * back device stages that became ready after it.
 */
enum gs_plan_kind {
	GS_PLAN_KIND_OTHER = 0,   /* not declared: scheduled, not classified */
	GS_PLAN_KIND_H2D = 1,     /* host-to-device copy: "h2d" or "copy_in" */
	GS_PLAN_KIND_D2H = 2,     /* device-to-host copy: "d2h" or "copy_out" */
	GS_PLAN_KIND_COMPUTE = 3, /* device work: "compute" or "kernel" */
	GS_PLAN_KIND_SYNC = 4,    /* host blocked on the device: "sync" */
	GS_PLAN_KIND_HOST = 5,    /* host work, device idle: "host" */
};
#define GS_PLAN_KIND_COUNT 6
/* "other", "h2d", "d2h", "compute", "sync", "host". */
const char *gs_plan_kind_name(unsigned kind);
/* A kind name or alias (above) to its value; false when unknown. */
bool gs_plan_kind_parse(const char *s, unsigned *kind);

enum gs_plan_memory {
	GS_PLAN_MEM_PINNED = 0, /* the default */
	GS_PLAN_MEM_PAGEABLE = 1,
};

enum gs_plan_engine_mode {
	GS_PLAN_ENGINES_UNLIMITED = 0,     /* no copy_engines: the plain model */
	GS_PLAN_ENGINES_SHARED = 1,        /* "copy_engines": N, one pool for all copies */
	GS_PLAN_ENGINES_PER_DIRECTION = 2, /* {"h2d": A, "d2h": B} */
};
#define GS_PLAN_UNLIMITED UINT32_MAX

/* Limits (an input beyond them is refused with GS_ERR_LIMIT / FORMAT). */
#define GS_PLAN_MAX_STAGES 100000
#define GS_PLAN_MAX_FILE_BYTES (16u << 20)
#define GS_PLAN_MAX_DURATION_NS (7LL * 24 * 3600 * 1000000000LL) /* 7 days */
#define GS_PLAN_MAX_ENGINES 64

struct gs_plan_stage {
	const char *name;   /* non-empty, not blank, unique */
	const char *stream; /* non-empty, not blank */
	int64_t duration_ns;
	uint8_t kind;                  /* enum gs_plan_kind */
	uint8_t memory;                /* enum gs_plan_memory; pageable only for h2d/d2h */
	const char *const *depends_on; /* names of other stages */
	size_t n_depends_on;
};

struct gs_plan_input {
	const struct gs_plan_stage *stages;
	size_t n_stages;
	bool has_overhead;
	int64_t exposed_overhead_ns; /* >= 0 */
	uint8_t engine_mode;         /* enum gs_plan_engine_mode */
	uint32_t engines_shared;     /* SHARED: engines of the one pool */
	uint32_t engines_h2d;        /* PER_DIRECTION (GS_PLAN_UNLIMITED: no limit) */
	uint32_t engines_d2h;
};

/*
 * Parse a plan (docs/guide.md, Plan input). Every cause names `label` (when not NULL)
 * and the stage: "plan.json: stage 'b' (stages[1]): ...". Types, keys and
 * value ranges are checked here; names, predecessors and cycles by
 * gs_plan_compute. Free with gs_plan_input_destroy.
 */
gs_status gs_plan_parse(const char *json, size_t len, const char *label,
			struct gs_plan_input **out);
/* Read and parse a file ("-": stdin), at most GS_PLAN_MAX_FILE_BYTES. */
gs_status gs_plan_load(const char *path, struct gs_plan_input **out);
/* Only for inputs from gs_plan_parse / gs_plan_load. NULL is fine. */
void gs_plan_input_destroy(struct gs_plan_input *in);

enum gs_plan_edge_kind {
	GS_PLAN_EDGE_DEPENDS_ON = 0,   /* declared in depends_on */
	GS_PLAN_EDGE_STREAM_ORDER = 1, /* previous stage on the same stream */
	GS_PLAN_EDGE_SYNC_COPY = 2,    /* around a pageable copy */
};
const char *gs_plan_edge_kind_name(unsigned kind);

/* What set a stage's start. */
enum gs_plan_bound {
	GS_PLAN_BOUND_NONE = 0, /* started at 0: nothing before it */
	GS_PLAN_BOUND_DEPENDS_ON = 1,
	GS_PLAN_BOUND_STREAM_ORDER = 2,
	GS_PLAN_BOUND_SYNC_COPY = 3,
	GS_PLAN_BOUND_COPY_ENGINE = 4,    /* waited for a copy engine */
	GS_PLAN_BOUND_EXCLUSIVE_COPY = 5, /* waited for a copy that cannot overlap */
};
const char *gs_plan_bound_name(unsigned bound);

struct gs_plan_edge {
	uint32_t from; /* stage indices */
	uint32_t to;
	uint8_t kind; /* enum gs_plan_edge_kind */
};

struct gs_plan_timing {
	int64_t start_ns;
	int64_t end_ns;
	uint8_t bound_by; /* enum gs_plan_bound */
	uint32_t after;   /* the stage whose end set the start, or GS_NO_INDEX (UINT32_MAX) */
};

/* An h2d/d2h stage and the overlap conditions for it. */
struct gs_plan_copy {
	uint32_t stage;
	int64_t hidden_ns;   /* under compute in the schedule */
	int64_t exposed_ns;  /* duration - hidden */
	int64_t hideable_ns; /* under compute with pinned memory and free engines */
	unsigned missing;    /* enum gs_overlap_condition bits */
};

/*
 * What gs_plan_compute fills, and what the writers read (times in ns from
 * the schedule's start, 0). The arrays are the result's own, valid until
 * gs_plan_result_fini; an empty one (no stages, edges or copies) has its
 * count 0 and may be NULL (critical_path is NULL without stages).
 */
struct gs_plan_result {
	size_t n_stages;
	struct gs_plan_timing *timing; /* per stage, declaration order */
	struct gs_plan_edge *edges;    /* sorted by (to, from), one per pair */
	size_t n_edges;
	uint32_t *critical_path; /* stage indices, in time order */
	size_t n_critical;
	size_t n_streams;
	int64_t serial_ns;    /* sum of durations */
	int64_t ideal_ns;     /* makespan */
	int64_t saved_ns;     /* serial - ideal */
	double overlap_ratio; /* saved / serial (0 when serial is 0) */
	double speedup;       /* serial / ideal (1 when ideal is 0) */
	bool has_overhead;
	int64_t exposed_overhead_ns;
	int64_t elapsed_ns;   /* ideal + overhead */
	int64_t net_saved_ns; /* saved - overhead */
	/* The schedule's breakdown (priorities as analyze's) over [0, ideal): compute stages
	 * are kernel, h2d/d2h copy, sync stages sync, the rest idle. */
	int64_t breakdown_ns[4];     /* kernel, copy, sync, idle */
	int dominant;                /* 0..3 (first largest), -1 when ideal is 0 */
	struct gs_plan_copy *copies; /* h2d/d2h stages, declaration order */
	size_t n_copies;
	unsigned missing; /* union of the copies' missing conditions */
};

/*
 * Validate and schedule. O((S + E) log (S + E)) for S stages and E edges.
 * Errors (GS_ERR_FORMAT, GS_ERR_LIMIT) name the stage: duplicate or blank
 * names, unknown predecessors, cycles (with the stages in them), durations
 * that are negative or over GS_PLAN_MAX_DURATION_NS.
 */
gs_status gs_plan_compute(const struct gs_plan_input *in, struct gs_plan_result *out);
void gs_plan_result_fini(struct gs_plan_result *r);

/* `file` (may be NULL) is named in the output. */
gs_status gs_plan_write_text(FILE *out, const struct gs_plan_input *in,
			     const struct gs_plan_result *r, const char *file);
/* One object, schema "gpuscope.plan/1"; times in µs (see gs_plan_us). */
gs_status gs_plan_write_json(FILE *out, const struct gs_plan_input *in,
			     const struct gs_plan_result *r, const char *file);

/* ns as µs without float noise: 102000 -> "102", 12500 -> "12.5". */
#define GS_PLAN_US_MAX 32
const char *gs_plan_us(int64_t ns, char buf[GS_PLAN_US_MAX]);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_PLAN_H */
