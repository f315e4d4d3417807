/* SPDX-License-Identifier: MIT */
/*
 * The Nsight Systems exports test_nsys.c builds at run time (the code is
 * in nsys_fixtures.c), with the schemas of the two export versions in
 * ../shared/data/nsys: 3.x (nsys 2024, ENUM_* tables,
 * TARGET_INFO_CUDA_CONTEXT_INFO) and 2.x (nsys 2022, no enum tables,
 * TARGET_INFO_CUDA_NULL_STREAM, runtime calls recorded twice). Each
 * builder writes a new database at `path` and fails the test if it cannot.
 */
#ifndef GS_TEST_NSYS_FIXTURES_H
#define GS_TEST_NSYS_FIXTURES_H

/* Schema 3.x (nsys 2024.5), as in a100_cloverleaf.sqlite, with the columns
 * newer exports add (graphId, cudaEventSyncId) and the tables it lacks:
 * the tables alone, for tests that fill them their own way. */
extern const char *const schema_v3;

/* Two processes: A (pid 1000, threads 1001..1003) and B (pid 2000). */
#define PA 1000
#define PB 2000

/* Schema 3.x with the records of PA and PB. */
void build_v3(const char *path);

/* Schema 2.x (nsys 2022.2), as in a100_saxpy_mpi_rank0.sqlite, with the
 * records of processes PC and PD. */
#define PC 500
#define PD 600

void build_v2(const char *path);

#endif
