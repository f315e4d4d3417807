/* SPDX-License-Identifier: MIT */
/*
 * Output files (target gs_common): the one policy of every -o of gpuscope
 * and gpuscope-mpi. OUT is never one of the inputs (the same device and
 * inode: another spelling, a hard link or a symbolic link to an input is
 * that input; "-" among the inputs is the file standard input comes from),
 * never a symbolic link, never an existing file without `force`, and never
 * an existing file that is not a regular one (a device, a FIFO, a
 * directory) even with it.
 *
 * OUT is written to "DIR/.BASE.tmp-XXXXXX" beside it (O_EXCL | O_NOFOLLOW,
 * mode 0666 less the umask, as any new file) and moved into place in one
 * step when complete: renamed over OUT with `force`, else renamed with
 * RENAME_NOREPLACE (or, where the file system has no such rename, linked
 * to OUT), so that a file that appeared at OUT meanwhile is never
 * replaced. A failure removes the temporary file only, never OUT.
 *
 * While a temporary file exists, SIGXFSZ is ignored (a write over the file
 * size limit fails with EFBIG and is reported like any failed write), and
 * SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM and
 * SIGXCPU remove every temporary file before ending the process by the
 * signal's default action (a signal the program found ignored stays
 * ignored). The program's own dispositions are back when the last
 * temporary file is gone.
 *
 * Errors are returned with one cause naming OUT: "is one of the inputs",
 * "is a symbolic link", "exists (use --force to replace it)", "is not a
 * regular file", "cannot create: ...", "write failed: ...", "cannot
 * replace: ...". Nothing is printed. Not thread-safe: one thread of a
 * program opens and closes its output files.
 */
#ifndef GPUSCOPE_OUTFILE_H
#define GPUSCOPE_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <gpuscope/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The longest temporary file name, directory included. */
#define GS_OUTFILE_PATH_MAX 4352
/* Output files open at once (export csv writes two; gpuscope-mpi -o DIR/
 * holds the job report and one rank's). */
#define GS_OUTFILE_MAX_OPEN 4

struct gs_outfile {
	FILE *f;          /* where to write: stdout, or the temporary file */
	const char *path; /* OUT (borrowed); NULL for stdout */
	bool force;
	const char *const *inputs; /* borrowed, for the check before the move */
	size_t n_inputs;
	int slot; /* the temporary file's; -1: none */
};

/* "-" or NULL: stdout. */
bool gs_outfile_is_stdout(const char *path);
/*
 * The policy's checks alone, before any work. `inputs` may hold NULL
 * entries (skipped). GS_OK when OUT may be written (stdout, a new name, or
 * with `force` an existing regular file that is no input).
 */
gs_status gs_outfile_check(const char *path, bool force, const char *const *inputs,
			   size_t n_inputs);
/*
 * Check OUT and create its temporary file; o->f is where to write (stdout
 * for "-" or NULL). On failure *o holds nothing to discard (discarding it
 * is harmless).
 */
gs_status gs_outfile_open(struct gs_outfile *o, const char *path, bool force,
			  const char *const *inputs, size_t n_inputs);
/*
 * Close the temporary file (a flush or close error is a failed write) and
 * check OUT again; on failure the temporary file is removed. For stdout
 * nothing is done (the program checks stdout at its end).
 */
gs_status gs_outfile_finish(struct gs_outfile *o);
/* After gs_outfile_finish: move the temporary file to OUT. */
gs_status gs_outfile_publish(struct gs_outfile *o);
/* gs_outfile_finish, then gs_outfile_publish. */
gs_status gs_outfile_commit(struct gs_outfile *o);
/* Close and remove the temporary file (no cause recorded). Safe to call
 * twice, and after a commit. */
void gs_outfile_discard(struct gs_outfile *o);
/*
 * Remove every temporary file of this process now (async-signal-safe),
 * for a program about to end abnormally (MPI_Abort, abort).
 */
void gs_outfile_remove_temps(void);

#ifdef __cplusplus
}
#endif

#endif /* GPUSCOPE_OUTFILE_H */
