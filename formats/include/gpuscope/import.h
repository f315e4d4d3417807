/* SPDX-License-Identifier: MIT */
/*
 * gpuscope importers (target gs_import): recognise a trace by its content
 * and load it into the trace model. Kineto / PyTorch-profiler Chrome-trace
 * JSON (.json, .json.gz) is parsed event by event with bounded memory; an
 * Nsight Systems SQLite export is read row by row through SQLite.
 */
#ifndef GPUSCOPE_IMPORT_H
#define GPUSCOPE_IMPORT_H

#include <gpuscope/error.h>
#include <gpuscope/trace.h>
#include <gpuscope/trace_sink.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gs_input_format {
	GS_INPUT_UNKNOWN = 0,
	GS_INPUT_GSCOPE = 1,
	GS_INPUT_KINETO = 2, /* Chrome-trace JSON, plain or gzip */
	GS_INPUT_NSYS = 3,   /* Nsight Systems SQLite export */
};

const char *gs_input_format_name(enum gs_input_format f);

/*
 * The formats gpuscope reads, from its table of importers, for help texts:
 * "a .gscope file, a Kineto / PyTorch-profiler JSON trace (.json, .json.gz)
 * or an Nsight Systems SQLite export (.sqlite)". Returns buf (truncated to
 * size, always terminated).
 */
const char *gs_importers_help(char *buf, size_t size);
/* Those that must be files, not pipes or stdin ("Nsight exports"); "" when
 * every format can be streamed. Returns buf. */
const char *gs_importers_file_only(char *buf, size_t size);
/* How many formats, and the i-th one's name as people know it (".gscope",
 * "Kineto", ...); NULL past the last. In detection order. */
size_t gs_importer_count(void);
const char *gs_importer_title(size_t i);

/*
 * Recognise a file by its first bytes (gzip is looked inside). Returns
 * GS_OK with *fmt set (GS_INPUT_UNKNOWN when nothing matches), or an I/O
 * error naming the file.
 */
gs_status gs_detect_format(const char *path, enum gs_input_format *fmt);

/*
 * Limits that keep a hostile input from running away with memory or time.
 * A zero field means its default; the defaults are far above what real
 * traces reach. An input over a limit fails with GS_ERR_LIMIT and a cause
 * that names the limit ("more than max_streams (65536) streams"). Every
 * input format is held to max_streams, max_ops, max_records and
 * max_string_bytes (gs_trace_load_into checks what reaches the trace); the
 * others bound the Kineto JSON reader.
 */
struct gs_import_limits {
	uint32_t max_depth;        /* JSON nesting (default 64) */
	uint64_t max_event_bytes;  /* one JSON event (default 16 MiB) */
	uint64_t max_string_bytes; /* one string (default 1 MiB) */
	uint32_t max_streams;      /* distinct streams (default 65536) */
	uint64_t max_records;      /* records of all kinds (default 2^31) */
	uint64_t max_ops;          /* GPU ops (default 2^28) */
	/* gzip input: inflated bytes (default 64 GiB), and inflated bytes per
	 * compressed byte once past 16 MiB inflated (default 250; real
	 * traces compress 5-30 times): stops decompression bombs. */
	uint64_t max_inflated_bytes;
	uint32_t max_inflate_ratio;
	/* Not of a format: the dependency graph an analysis builds of the
	 * trace, its edges but stream order (default 2^24, about 400 MB). */
	uint64_t max_edges;
	/* Not of a format either: GPU time per annotation, the pieces of op
	 * time it keeps (GPU annotations: one per op and annotation; host
	 * annotations: one per annotation, more where ranges cross) (default
	 * 2^26, about 1.3 GB). */
	uint64_t max_annotation_pieces;
	/* Nsight export: milliseconds an import may keep SQLite busy
	 * (default 60000). */
	uint32_t max_sqlite_ms;
};

/* Fill with the defaults. */
void gs_import_limits_default(struct gs_import_limits *lim);

/*
 * Set one limit by name ("max_depth", "max_event_bytes", "max_string_bytes",
 * "max_streams", "max_records", "max_ops", "max_inflated_bytes",
 * "max_inflate_ratio", "max_edges", "max_annotation_pieces", "max_sqlite_ms"; case does
 * not matter) from a decimal value with an
 * optional binary suffix (K, M, G, T: 64K = 65536). GS_ERR_INVALID with a
 * cause for an unknown name or a value that is not a positive number in
 * the field's range.
 */
gs_status gs_import_limit_set(struct gs_import_limits *lim, const char *name, const char *value);
/* The limit names, in the order above; NULL after the last. */
const char *gs_import_limit_name(size_t i);

/* What a load may leave out, for a caller that never reads it. */
enum gs_load_flags {
	/* Host ranges (gs_trace_ranges: NVTX, cpu_op, user annotations) are
	 * read and checked but not stored: `analyze` never uses them, and
	 * they are the most numerous records of a PyTorch trace. */
	GS_LOAD_SKIP_RANGES = 1u << 0,
	/* Warnings name the file ("run1.json: skipped 3 ..."), so that those
	 * of several inputs in one trace stay apart: gs_trace_load_all sets
	 * it when it loads more than one file. */
	GS_LOAD_NAME_WARNINGS = 1u << 1,
	/* With GS_LOAD_SKIP_RANGES: keep the annotation ranges (user
	 * annotations, NVTX, GPU annotations), which the report's GPU time
	 * per annotation reads, and leave out the others (cpu_op, Python). */
	GS_LOAD_KEEP_ANNOTATIONS = 1u << 2,
};

struct gs_load_options {
	unsigned reader_flags;                 /* enum gs_reader_flags */
	unsigned load_flags;                   /* enum gs_load_flags */
	const struct gs_import_limits *limits; /* NULL: defaults */
	/* Called every 65536 records read from the input, with the count so
	 * far (NULL: never); for a progress line. It must not use the trace. */
	void (*progress)(void *user, uint64_t records);
	void *progress_user;
};

/*
 * Stream a Kineto / PyTorch-profiler trace (plain or gzip JSON) into a sink.
 * Unknown categories are skipped and counted; impossible values are dropped
 * and counted; both reach the sink as warnings.
 */
gs_status gs_import_kineto(const char *path, const struct gs_import_limits *lim,
			   struct gs_sink *sink);
/* The same over a memory buffer (plain JSON or gzip bytes). */
gs_status gs_import_kineto_mem(const void *data, size_t size, const char *name,
			       const struct gs_import_limits *lim, struct gs_sink *sink);

/*
 * Stream an Nsight Systems SQLite export (`nsys export --type sqlite`) into
 * a sink: kernels, copies, memsets, runtime and driver calls, syncs, CUDA
 * event records, streams, NVTX ranges, GPUs and processes (formats/src/nsys.c
 * says how each table maps). Opened read-only and immutable (nothing is
 * written next to the file). A SQLite database without CUPTI_ACTIVITY_KIND_*
 * tables is GS_ERR_FORMAT; a corrupt or truncated one is one error. Uses
 * max_string_bytes, max_streams and max_records of `lim` (NULL: defaults).
 */
gs_status gs_import_nsys(const char *path, const struct gs_import_limits *lim,
			 struct gs_sink *sink);

/*
 * Load any supported trace, recognised by content, into an existing trace
 * (several inputs merge into one; call gs_trace_finish after the last).
 * `opts` and `fmt` may be NULL.
 *
 * `path` GS_INPUT_STDIN ("-") is standard input, named "stdin" in errors and
 * warnings (gs_input_name). Standard input, pipes, FIFOs and process
 * substitution (/dev/fd/N) are read in one pass, never sought: Kineto JSON
 * (plain or gzip) streams as from a file; a .gscope is held in memory while
 * it is read (at most max_inflated_bytes, else GS_ERR_LIMIT naming the
 * limit); an Nsight SQLite export is GS_ERR_FORMAT ("must be a file, not a
 * pipe"). Standard input can be read once only: the caller sees to it that
 * "-" is not given twice.
 */
#define GS_INPUT_STDIN "-"
/* How errors and warnings name the input at `path`: "stdin" for "-". */
const char *gs_input_name(const char *path);

gs_status gs_trace_load_into(const char *path, const struct gs_load_options *opts,
			     struct gs_trace *t, enum gs_input_format *fmt);

/*
 * Load `n` traces into `t` (not finished; the caller finishes it), as
 * gs_trace_load_into of each path in turn would (with GS_LOAD_NAME_WARNINGS
 * when n > 1), and with the same result whatever the number of CPUs: each file is read into a trace of its own,
 * on a second (third, ...) CPU when the process may use one, and appended
 * to `t` in the order of `paths` (gs_trace_append). At most one file more
 * than the threads reading is held in memory beside `t`. `fmts` (may be
 * NULL) gets each file's format. opts->progress, when set, is called from
 * this thread only, after each file, with the records of the files
 * appended so far. On failure *failed (may be NULL) is the index of the
 * first path, in order, that failed, and the error causes are that file's.
 */
gs_status gs_trace_load_all(const char *const *paths, size_t n, const struct gs_load_options *opts,
			    struct gs_trace *t, enum gs_input_format *fmts, size_t *failed);
/*
 * Load `n` traces, each into a finished trace of its own (out[i]): the same
 * traces as gs_trace_load of each path, read on as many CPUs as the
 * process may use (`diff`'s two inputs). Progress, fmts and *failed as for
 * gs_trace_load_all; on failure every out[i] is NULL.
 */
gs_status gs_trace_load_each(const char *const *paths, size_t n, const struct gs_load_options *opts,
			     struct gs_trace **out, enum gs_input_format *fmts, size_t *failed);

/* Load any supported trace, recognised by content, into a finished trace.
 * `opts` may be NULL. */
gs_status gs_trace_load(const char *path, const struct gs_load_options *opts, struct gs_trace **out,
			enum gs_input_format *fmt);

/* ------------------------------------------------------------------------ */
/* The inputs of a job: traces, directories of traces, lists of paths        */
/* ------------------------------------------------------------------------ */

/*
 * What a command reads, as the paths to load in order: every command that
 * takes a job (gpuscope analyze, export, diff; gpuscope-mpi) expands its
 * arguments here, so that all read them alike. Nothing is loaded.
 *
 *   - a TRACE argument that is a directory stands for every trace in it:
 *     its entries in byte order of their names, regular files only (and
 *     symbolic links to them), not recursive; a name starting with '.' is
 *     passed over silently (the temporary files of an -o are .OUT.tmp-*).
 *     A trace is recognised by its first bytes as every input is
 *     (gs_detect_format); the other entries (and gpuscope's own JSON,
 *     {"schema": "gpuscope...", such as a report an earlier -o left
 *     there) are skipped with one warning for the directory, naming the
 *     first few. A directory with no trace
 *     is GS_ERR_INVALID naming it. The paths are DIR/NAME (DIR as given);
 *   - any other argument ("-" included) is one path, left for the loader
 *     to open, or to fail on naming it;
 *   - a list (--inputs FILE; "-": standard input) holds one path a line,
 *     each read as a TRACE argument (so it may name a directory); relative
 *     paths are relative to the current directory, not to FILE. Blanks
 *     (spaces, tabs) around a path and a trailing CR are dropped; empty
 *     lines and lines whose first non-blank is '#' are skipped. A line of
 *     over GS_INPUT_LINE_MAX bytes or with a NUL byte, a FILE that is a
 *     trace itself, and a FILE that lists nothing are GS_ERR_INVALID
 *     naming FILE (and the line).
 *
 * Warnings are one line each, for the caller to print (the library never
 * prints): "runs/: skipped 3 files that are not traces (notes.txt, job.log,
 * run.nsys-rep)".
 */
#define GS_INPUT_LINE_MAX 4096

struct gs_input_list {
	char **paths; /* to load, in order (owned) */
	/* Per path: the directory argument it was found in, as given; NULL
	 * for a path given itself (an argument or a line of a list). */
	const char **from;
	size_t n;
	char **warnings; /* one line each (owned) */
	size_t n_warnings;
	/* The list's own. */
	char **dirs;
	size_t n_dirs, cap_paths, cap_from, cap_warnings, cap_dirs;
};

/* An empty list. */
void gs_input_list_init(struct gs_input_list *l);
/* Free what the list holds; it is then empty. */
void gs_input_list_fini(struct gs_input_list *l);
/* One TRACE argument: a directory's traces, else the path itself. */
gs_status gs_input_list_add(struct gs_input_list *l, const char *arg);
/* Each path listed in `file` ("-": standard input), as gs_input_list_add. */
gs_status gs_input_list_add_file(struct gs_input_list *l, const char *file);
/*
 * The same trace given twice is refused (GS_ERR_INVALID, one cause naming
 * both paths, each found in a directory with it: "runs/rank0.json (in
 * runs/)"; the earliest such pair in the list's order): the same file
 * (same device and inode: a hard link, a symbolic link, another spelling)
 * or the same content (two regular files of the same non-zero size and the
 * same bytes: compared by size, then a hash of each, then byte for byte,
 * streamed in bounded memory). "-" and paths that cannot be read are not
 * compared (the loader reports the latter).
 */
gs_status gs_input_list_check_distinct(const struct gs_input_list *l);

/* ------------------------------------------------------------------------ */
/* Jobs: the processes (ranks) of several inputs, each on its own            */
/* ------------------------------------------------------------------------ */

/*
 * A job is what several inputs recorded: one process each, or several (an
 * Nsight export of a multi-process run). Each process is a rank with a
 * trace of its own, so that nothing of one process (streams, threads,
 * correlation ids, event ids, devices) is ever joined with another's, even
 * when their numbers coincide (device 0 on two hosts, pid 1 in two
 * containers). A GPU of the job is (rank, device).
 *
 * Identity of a rank:
 *   - the process: an input whose streams belong to two or more pids
 *     (Nsight, .gscope) is split into one rank per pid with GPU ops (host
 *     records of pids without GPU ops are left out, counted in a warning);
 *     an input whose streams carry no pid (Kineto: GPU lanes are pid 0) is
 *     one process, its pid the host process's;
 *   - two inputs are one process only when both name the same host, pid and
 *     rank and their op spans overlap: they are merged, with a warning;
 *   - the rank number: the one the trace declares (Kineto
 *     distributedInfo.rank, the .gscope process record) when every rank
 *     declares one and no two declare the same; otherwise the order of the
 *     inputs (and of pids within one), with a warning if some were declared;
 *   - the host: the trace's (Nsight TARGET_INFO_SYSTEM_ENV, Kineto
 *     host_name, the .gscope process record), else the one in a file name
 *     PyTorch's tensorboard_trace_handler writes
 *     ({host}_{pid}.{ns}.pt.trace.json[.gz], when the pid agrees), else
 *     unknown;
 *   - the clock: each rank's process says how its times map onto UTC
 *     (gs_process.clock, wall_offset_ns). Clock groups are the ranks that
 *     can be one run: ranks of one input are; ranks whose wall clocks are
 *     known are when their op spans overlap in wall time; ranks whose
 *     clocks are not known, when their spans overlap or lie within an hour
 *     of each other on their own times; a rank of known clock and one of
 *     unknown clock never are. Ranks of different groups are never
 *     compared (one warning per group);
 *   - the clock domain: ranks that share one clock for certain (one host,
 *     or one input's capture: gs_process.capture) within a group; each
 *     other rank is a domain of its own. Ranks of one input are one clock
 *     unless their hosts, captures or wall clocks differ (gpuscope's
 *     export of a job holds several hosts' and runs' ranks). Domains of one group are placed on one clock by the job
 *     analysis (aligned on the ends of collectives).
 */
#define GS_JOB_HOST_MAX 256

struct gs_job_rank {
	struct gs_trace *trace; /* finished; owned by the job */
	uint32_t rank;
	bool rank_declared;  /* the trace says it (else input order) */
	uint32_t world_size; /* declared; 0 when unknown */
	int64_t pid;         /* -1 when unknown */
	uint32_t host;       /* string id in `trace`; GS_NO_STRING when unknown */
	size_t input;        /* index of the input it came from (the first, if merged) */
	uint32_t clock_group;
	int64_t first_ns, last_ns; /* op span (0, 0 without ops) */
	/* Its wall clock: UTC ns = its times + wall_offset_ns (clock: enum
	 * gs_clock_source of its process; GS_CLOCK_NONE, offset 0, when not
	 * known). */
	uint8_t clock;
	int64_t wall_offset_ns;
	/* Ranks of one domain share one clock (host or input); numbered over
	 * the job in rank order. */
	uint32_t clock_domain;
	uint32_t capture; /* gs_process.capture: the capture of its input */
	/* The host's name ("" when unknown), from the trace or, with
	 * host_from_name, from the file's name. */
	char host_name[GS_JOB_HOST_MAX];
	bool host_from_name;
};

struct gs_job {
	struct gs_job_rank *ranks; /* ascending rank */
	size_t n_ranks;
	uint32_t n_clock_groups;
	uint32_t n_clock_domains;
	/* Warnings about the job as a whole (rank numbering, merged inputs,
	 * clocks), each one line. */
	char **warnings;
	size_t n_warnings;
};

/*
 * Load `n` inputs (read on all CPUs, as gs_trace_load_each) and make the
 * job of their processes. `names` label the inputs in warnings (NULL: the
 * paths). On failure *failed is the index of the failing input.
 */
gs_status gs_job_load(const char *const *paths, size_t n, const struct gs_load_options *opts,
		      struct gs_job **out, enum gs_input_format *fmts, size_t *failed);
/*
 * The job of `n` finished traces, taken over (freed by the job, also on
 * failure); names[i] labels input i in warnings.
 */
gs_status gs_job_from_traces(struct gs_trace **traces, const char *const *names, size_t n,
			     struct gs_job **out);
void gs_job_destroy(struct gs_job *j);

/*
 * Identity from summaries: the rules above (merging, numbering, clock
 * groups) applied to one gs_job_ident per process of the inputs, in input
 * order (and pid order within one). gs_job_from_traces takes this path, and
 * so can a caller that holds the inputs in several places (gpuscope-mpi):
 * identity needs only these few numbers of each.
 */
struct gs_job_ident {
	size_t input;
	int64_t pid;
	const char *host; /* "" when unknown */
	bool rank_declared;
	uint32_t rank;
	uint32_t world_size;
	int64_t first_ns, last_ns;
	uint8_t clock; /* enum gs_clock_source */
	int64_t wall_offset_ns;
	uint32_t capture; /* of its input: ranks of one input and capture share a clock */
};

struct gs_job_id_rank {
	size_t *idents; /* the processes it is, the first one's first */
	size_t n_idents;
	uint32_t rank;
	bool rank_declared;
	uint32_t clock_group;
	uint32_t clock_domain;
	int64_t first_ns, last_ns;
	uint8_t clock;
	int64_t wall_offset_ns;
};

struct gs_job_identity {
	struct gs_job_id_rank *ranks; /* ascending rank */
	size_t n_ranks;
	uint32_t n_clock_groups;
	uint32_t n_clock_domains;
	char **warnings; /* merged inputs, rank numbering, clocks */
	size_t n_warnings;
};

gs_status gs_job_identify(const struct gs_job_ident *in, size_t n, const char *const *names,
			  struct gs_job_identity **out);
void gs_job_identity_destroy(struct gs_job_identity *id);
/*
 * Input `input` (a finished trace, taken over) split into its processes,
 * before identity: each rank as the trace declares it (rank, pid, host,
 * span), the warnings of the split; no merging or numbering yet.
 */
gs_status gs_job_from_input(struct gs_trace *t, size_t input, const char *name,
			    struct gs_job **out);
/* The rank whose number is `rank`, or NULL. */
const struct gs_job_rank *gs_job_find_rank(const struct gs_job *j, uint32_t rank);

/*
 * The host a file name written by PyTorch's tensorboard_trace_handler
 * gives ({host}_{pid}.{ns}.pt.trace.json, or .json.gz; any directory
 * before it), into buf; false when the name is not of that form or names
 * another pid than `pid` (pid < 0: not checked).
 */
bool gs_job_host_from_name(const char *path, int64_t pid, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_IMPORT_H */
