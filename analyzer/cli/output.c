/* SPDX-License-Identifier: MIT */
/*
 * Every command's -o: the output policy of gpuscope/outfile.h (shared with
 * gpuscope-mpi), with its errors printed as the command line prints them.
 */
#include <gpuscope/outfile.h>

#include "cli.h"

/* The status of a gs_outfile_* call: GS_EXIT_OK, or its one error line. */
static int out_rc(gs_status st)
{
	return st == GS_OK ? GS_EXIT_OK : gs_cli_fail(st, NULL);
}

int gs_cli_output_check(const char *path, bool force, const char *const *inputs, size_t n_inputs)
{
	gs_error_clear();
	return out_rc(gs_outfile_check(path, force, inputs, n_inputs));
}

int gs_cli_output_open(struct gs_outfile *o, const char *path, bool force,
		       const char *const *inputs, size_t n_inputs)
{
	gs_error_clear();
	return out_rc(gs_outfile_open(o, path, force, inputs, n_inputs));
}

int gs_cli_output_finish(struct gs_outfile *o)
{
	gs_error_clear();
	return out_rc(gs_outfile_finish(o));
}

int gs_cli_output_publish(struct gs_outfile *o)
{
	gs_error_clear();
	return out_rc(gs_outfile_publish(o));
}

int gs_cli_output_commit(struct gs_outfile *o)
{
	gs_error_clear();
	return out_rc(gs_outfile_commit(o));
}

int gs_cli_output_close(struct gs_outfile *o, gs_status st)
{
	if (st == GS_OK)
		return gs_cli_output_commit(o);
	gs_outfile_discard(o);
	return gs_cli_fail(st, o->path ? o->path : "stdout");
}
