/* SPDX-License-Identifier: MIT */
/* Private to gs_import: helpers shared by detect.c, kineto.c, nsys.c and load.c. */
#ifndef GS_IMPORT_PRIV_H
#define GS_IMPORT_PRIV_H

#include <gpuscope/import.h>

/*
 * gs_detect_format, and when the result is GS_INPUT_UNKNOWN a short reason
 * for the user in *why ("empty file", "gzip data that is not JSON", ...),
 * or NULL when no importer saw anything of its format (the message then
 * lists what is expected: gs_importers_expected). Appends no error cause
 * unless it returns an error.
 */
gs_status gs_detect_format_why(const char *path, enum gs_input_format *fmt, const char **why);

/* The bytes content detection looks at: the first GS_DETECT_HEAD of an input. */
#define GS_DETECT_HEAD 16384
/* Recognise an input from its first `n` bytes (all of it when shorter than
 * GS_DETECT_HEAD), with the reason as gs_detect_format_why. */
void gs_detect_head(const unsigned char *head, size_t n, enum gs_input_format *fmt,
		    const char **why);
/*
 * What to do with an input named `name` that is not a trace, when its name
 * says (an importer's name_hint): an Nsight Systems report (.nsys-rep,
 * .qdrep) is read through its SQLite export, "an Nsight Systems report is
 * read through its SQLite export: nsys export --type sqlite --output
 * run.sqlite run.nsys-rep". Writes it to buf and returns true; false (buf
 * "") for any other name.
 */
bool gs_detect_name_hint(const char *name, char *buf, size_t size);
/* Read up to `cap` bytes from `fd` into `head` (fewer only at the end of the
 * input); errors name `name`. */
gs_status gs_detect_read_head(int fd, const char *name, unsigned char *head, size_t cap, size_t *n);

/* ---- the importers (importers.c) ---- */

struct gs_limit_sink;

/* What an importer reads: a file by its path, or a stream (a pipe, stdin)
 * whose first n bytes (head) have been read for detection. */
struct gs_importer_input {
	const char *path; /* a file; NULL for a stream */
	const char *name; /* the input in messages */
	int fd;           /* a stream, owned by the importer (closed); -1 for a file */
	const unsigned char *head;
	size_t n;
	unsigned reader_flags; /* enum gs_reader_flags (.gscope) */
	struct gs_limit_sink *ls;
	struct gs_sink *sink;
};

/*
 * One input format. sniff: whether the first n bytes (all of the input
 * when shorter than GS_DETECT_HEAD) are this format's; for data that looks
 * like the format but is not, it may set *why ("corrupt gzip data").
 * load_stream NULL: the format is read from files only (stream_refusal
 * says so). name_hint: for an input that is no trace, whether its name is
 * another tool's file that this format is made from, and how (buf).
 */
struct gs_importer {
	enum gs_input_format format;
	const char *name;  /* gs_input_format_name */
	const char *what;  /* in "expected ..." */
	const char *help;  /* in the help texts' TRACE paragraph: "a ... (.ext)" */
	const char *title; /* the name people know it by (the docs name each) */
	const char *files; /* those inputs in a "not for ..." (file-only formats) */
	int (*sniff)(const unsigned char *head, size_t n, const char **why);
	gs_status (*load_path)(const struct gs_importer_input *in);
	gs_status (*load_stream)(const struct gs_importer_input *in);
	const char *stream_refusal;
	bool (*name_hint)(const char *name, char *buf, size_t size);
};

/* In the order detection tries them and messages list them. */
extern const struct gs_importer gs_importers[];
extern const size_t gs_n_importers;
/* The importer of a format (NULL for GS_INPUT_UNKNOWN). */
const struct gs_importer *gs_importer_of(enum gs_input_format f);
/* ".gscope, Kineto / Chrome-trace JSON, or an Nsight Systems SQLite
 * export": every importer's `what`. Returns buf. */
const char *gs_importers_expected(char *buf, size_t size);

/* The rest of a .gscope on `fd` after `head`, all in memory (*data, freed
 * by the caller), at most `max` bytes. Closes fd. */
gs_status gs_load_slurp(int fd, const char *name, const unsigned char *head, size_t n, uint64_t max,
			unsigned char **data, size_t *size);

/* gs_import_kineto over an open byte reader (gzin.h), closed when done. */
struct gs_gzin;
gs_status gs_import_kineto_gzin(struct gs_gzin *in, const struct gs_import_limits *lim,
				struct gs_sink *sink);

/* `in` with its zero fields (or all, when `in` is NULL) set to the defaults. */
void gs_import_limits_resolve(struct gs_import_limits *out, const struct gs_import_limits *in);

/*
 * A sink that holds what passes through it to the limits every input format
 * shares (max_streams, max_ops, max_records, max_string_bytes) and forwards
 * it to `next`. `name` (borrowed; NULL when the importer adds its own
 * context to a sink's error) names the input in the error causes.
 */
struct gs_limit_sink {
	struct gs_sink sink;
	struct gs_sink *next;
	struct gs_import_limits lim;
	const char *name;
	/* When set, warnings are passed on as "warn_name: MSG" (unless MSG
	 * names it already): several inputs in one trace. */
	const char *warn_name;
	/* Pass on only annotation ranges (GS_LOAD_KEEP_ANNOTATIONS). */
	bool annotations_only;
	uint64_t streams, ops, records;
};
void gs_limit_sink_init(struct gs_limit_sink *ls, struct gs_sink *next, const char *name,
			const struct gs_import_limits *lim);

/*
 * An importer's PREFIX_emit_<cb>(ctx, rec): count one record with
 * count(ctx) (a gs_status, the record limit), pass it to the sink's
 * callback `cb` when the sink has one, and give a callback's error the
 * importer's context with failed(ctx, rc). `ctx` points to a struct with
 * a `struct gs_sink *sink` member.
 */
/* ctx_type and type name types, which cannot stand in parentheses. */
/* NOLINTBEGIN(bugprone-macro-parentheses) */
#define GS_IMPORT_DEFINE_EMIT(prefix, ctx_type, count, failed, cb, type)                           \
	static gs_status prefix##_emit_##cb(ctx_type *ctx, const type *rec)                        \
	{                                                                                          \
		gs_status rc = count(ctx);                                                         \
                                                                                                   \
		if (!rc && ctx->sink->cb && (rc = ctx->sink->cb(ctx->sink, rec)))                  \
			rc = failed(ctx, rc);                                                      \
		return rc;                                                                         \
	}
/* NOLINTEND(bugprone-macro-parentheses) */

#endif
