/* SPDX-License-Identifier: MIT */
/*
 * Collector settings. Every GPUSCOPE_* variable is read in config_env.c and
 * nowhere else; the README has the table. So are the variables launchers
 * (Open MPI, PMI, Slurm, torchrun) set to give a process its rank.
 */
#ifndef GS_COLLECTOR_CONFIG_H
#define GS_COLLECTOR_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GS_CONFIG_PATH_MAX 4096
#define GS_DEFAULT_OUTPUT "gpuscope-%h-%p.gscope"
#define GS_DEFAULT_FLUSH_MS 200u
/* CUPTI keeps one buffer per launching thread, and a plain flush never hands
 * back one that holds an unfinished kernel: a thread that keeps launching
 * returns its buffer only when full. What a crash can lose is thus one
 * buffer per such thread (512 KiB: about 2,000 launches of a kernel and its
 * API record, 256 B) beside the last flush interval; more buffers keep the
 * memory bound of the former 64 x 4 MiB (256 MiB). */
#define GS_DEFAULT_BUFFER_SIZE (512u << 10)
#define GS_DEFAULT_MAX_BUFFERS 512u
/* The CUDA driver library, as the CUDA runtime and CUPTI load it. */
#define GS_DRIVER_LIBRARY "libcuda.so.1"
#define GS_CONFIG_NAME_MAX 256

struct gs_config {
	char output[GS_CONFIG_PATH_MAX]; /* pattern: %p pid, %h host, %% '%' */
	unsigned flush_ms;               /* periodic flush interval */
	bool data_deps;                  /* copy and kernel pointer arguments */
	size_t buffer_size;              /* bytes per CUPTI activity buffer */
	unsigned max_buffers;            /* buffers in the pool at most */
	int log_level;                   /* enum gs_log_level */
	bool nvtx;                       /* NVTX_INJECTION64_PATH is set: enable markers */
	/* The process's rank in a distributed job, when a launcher says it;
	 * world_size 0 when unknown (or not above the rank). */
	bool has_rank;
	uint32_t rank;
	uint32_t world_size;
	/* GPUSCOPE_STATUS_FILE: `gpuscope record`'s private file, where the
	 * collector appends one line per event ("loaded PID", "disabled PID
	 * REASON", "wrote PID PATH"); "" when unset. */
	char status_file[GS_CONFIG_PATH_MAX];
	/*
	 * The driver library looked for before CUPTI is used: GS_DRIVER_LIBRARY,
	 * or GPUSCOPE_TEST_DRIVER_NAME, for gpuscope's own tests only. The
	 * tests run where a driver may well be installed (a GPU box) and must
	 * show what a machine without one does: a name that is nowhere makes
	 * the driver missing for this process alone, whatever the machine has,
	 * without changing the library search path of the program (which
	 * LD_LIBRARY_PATH tricks would, and which cannot hide a driver in the
	 * system directories anyway). Messages still say libcuda.so.1.
	 */
	char driver_name[GS_CONFIG_NAME_MAX];
};

/* A getenv-like lookup (tests pass their own). */
typedef const char *(*gs_env_fn)(const char *name);

void gs_config_defaults(struct gs_config *c);
/*
 * Read the settings through `env` (getenv when NULL). A malformed or out
 * of range value keeps the default; its message is put in `warn` (empty
 * when all is well) for the caller to log. The rank is the first of
 * OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID and RANK that holds a
 * decimal number, the world size the first of OMPI_COMM_WORLD_SIZE,
 * PMI_SIZE, SLURM_NTASKS and WORLD_SIZE; other values of those are
 * ignored without a word (they belong to the launcher, not to gpuscope).
 */
void gs_config_parse(struct gs_config *c, gs_env_fn env, char *warn, size_t warn_size);

/*
 * Expand an output pattern: %p the pid, %h the host name, %% a '%'.
 * `attempt` > 0 (a retry after the name was taken) appends ".N" to the pid
 * of every %p. Returns 0, or -1 when the result does not fit or the pattern
 * is empty or has an unknown % sequence.
 */
int gs_config_expand(const char *pattern, long pid, const char *host, unsigned attempt, char *out,
		     size_t size);
/*
 * True when CUDA_INJECTION64_PATH is set: the driver will call
 * InitializeInjection, so the LD_PRELOAD constructor leaves setup to it.
 */
bool gs_config_injected(gs_env_fn env);

/* True when the pattern has a %p (the file name differs per process). */
bool gs_config_has_pid(const char *pattern);

#endif
