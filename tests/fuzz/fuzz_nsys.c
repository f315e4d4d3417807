/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the Nsight Systems SQLite importer (gs_import_nsys),
 * then the trace finished and analysed. Any crash, leak, hang or
 * sanitizer report is a bug.
 *
 * The importer reads a file, so each input becomes one (in /dev/shm when
 * there is one). The first byte picks how:
 *   - even: the rest is a script of rows, inserted into a database with the
 *     tables and columns of an Nsight Systems export (the names the
 *     importer reads). Columns have no declared type, so any value goes
 *     anywhere: NULLs, huge and negative integers, reals, text, enum names.
 *     This reaches the importer's joins and checks, not SQLite's parser;
 *   - odd: the rest is the database file itself (corrupt pages, headers).
 * GS_FUZZ_KEEP_DB=1 keeps the last database (/dev/shm/fuzz-nsys-PID.sqlite).
 */
#include <gpuscope/analyzer.h>
#include <gpuscope/format.h>
#include <gpuscope/import.h>

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Tables and the columns the importer looks for. */
static const struct {
	const char *name;
	const char *cols[24];
} tables[] = {
	{"StringIds", {"id", "value"}},
	{"CUPTI_ACTIVITY_KIND_KERNEL",
	 {"start",
	  "end",
	  "deviceId",
	  "contextId",
	  "streamId",
	  "correlationId",
	  "globalPid",
	  "demangledName",
	  "shortName",
	  "mangledName",
	  "registersPerThread",
	  "gridX",
	  "gridY",
	  "gridZ",
	  "blockX",
	  "blockY",
	  "blockZ",
	  "staticSharedMemory",
	  "dynamicSharedMemory",
	  "graphNodeId",
	  "graphId"}},
	{"CUPTI_ACTIVITY_KIND_MEMCPY",
	 {"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid",
	  "bytes", "copyKind", "srcKind", "dstKind", "graphNodeId"}},
	{"CUPTI_ACTIVITY_KIND_MEMSET",
	 {"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid",
	  "value", "bytes", "memKind", "graphNodeId"}},
	{"CUPTI_ACTIVITY_KIND_RUNTIME",
	 {"start", "end", "eventClass", "globalTid", "correlationId", "nameId", "returnValue"}},
	{"CUPTI_ACTIVITY_KIND_DRIVER",
	 {"start", "end", "eventClass", "globalTid", "correlationId", "nameId", "returnValue"}},
	{"CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
	 {"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid",
	  "syncType", "eventId", "cudaEventSyncId"}},
	{"CUPTI_ACTIVITY_KIND_CUDA_EVENT",
	 {"deviceId", "contextId", "streamId", "correlationId", "globalPid", "eventId",
	  "cudaEventSyncId"}},
	{"ENUM_CUPTI_SYNC_TYPE", {"id", "name"}},
	{"ENUM_CUPTI_STREAM_TYPE", {"id", "name"}},
	{"ENUM_CUDA_MEMCPY_OPER", {"id", "name"}},
	{"ENUM_CUDA_MEM_KIND", {"id", "name"}},
	{"TARGET_INFO_CUDA_STREAM", {"streamId", "processId", "contextId", "priority", "flag"}},
	{"TARGET_INFO_CUDA_NULL_STREAM", {"streamId", "processId", "contextId"}},
	{"TARGET_INFO_CUDA_CONTEXT_INFO", {"nullStreamId", "processId", "deviceId", "contextId"}},
	{"TARGET_INFO_CUDA_DEVICE", {"gpuId", "cudaId", "pid"}},
	{"TARGET_INFO_GPU",
	 {"id", "name", "uuid", "cuDevice", "asyncEngines", "smCount", "totalMemory",
	  "computeMajor", "computeMinor"}},
	{"NVTX_EVENTS",
	 {"start", "end", "eventType", "text", "textId", "globalTid", "endGlobalTid", "domainId"}},
	{"PROCESSES", {"globalPid", "pid", "name"}},
	{"TARGET_INFO_SYSTEM_ENV", {"name", "value"}},
};
#define NTABLES (sizeof(tables) / sizeof(tables[0]))

/* Words the importer gives meaning to (enum names, call names). */
static const char *const words[] = {
	"CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE",
	"CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT",
	"CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE",
	"CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE",
	"CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING",
	"CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT",
	"CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL",
	"CUDA_MEMCPY_KIND_HTOD",
	"CUDA_MEMCPY_KIND_DTOH",
	"CUDA_MEMCPY_KIND_PTOP",
	"CUDA_MEMOPR_MEMORY_KIND_PAGEABLE",
	"CUDA_MEMOPR_MEMORY_KIND_PINNED",
	"CUDA_MEMOPR_MEMORY_KIND_DEVICE",
	"cudaLaunchKernel_v7000",
	"cudaMemcpyAsync_v3020",
	"cudaEventRecord_v3020",
	"cudaStreamWaitEvent_v3020",
	"cudaStreamSynchronize_v3020",
	"cudaDeviceSynchronize_v3020",
	"cudaGraphLaunch_v10000",
	"Hostname",
	"",
};
#define NWORDS (sizeof(words) / sizeof(words[0]))

struct in {
	const uint8_t *p;
	size_t n;
};

static uint8_t byte(struct in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static uint64_t bytes(struct in *in, unsigned k)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < k; i++)
		v |= (uint64_t)byte(in) << (8 * i);
	return v;
}

/* One value for a column, by a tag byte. */
static int bind_value(sqlite3_stmt *st, int col, struct in *in)
{
	static const int64_t special[] = {0,         -1,         1,         INT64_MAX,
					  INT64_MIN, UINT32_MAX, INT32_MIN, 604800000000000LL,
					  1LL << 40, 7,          16777216,  (1LL << 24) + 5};
	uint8_t tag = byte(in);
	double d;
	uint64_t u;
	char text[32];
	size_t len;

	switch (tag % 9) {
	case 0:
		return sqlite3_bind_null(st, col);
	case 1:
		return sqlite3_bind_int64(st, col, (int8_t)byte(in));
	case 2:
		return sqlite3_bind_int64(st, col, (int64_t)bytes(in, 2));
	case 3:
		return sqlite3_bind_int64(st, col, (int64_t)bytes(in, 8));
	case 4:
		return sqlite3_bind_int64(
			st, col, special[byte(in) % (sizeof(special) / sizeof(special[0]))]);
	case 5:
		len = byte(in) % sizeof(text);
		for (size_t i = 0; i < len; i++)
			text[i] = (char)byte(in);
		return sqlite3_bind_text(st, col, text, (int)len, SQLITE_TRANSIENT);
	case 6:
		u = bytes(in, 8);
		memcpy(&d, &u, sizeof(d));
		return sqlite3_bind_double(st, col, d);
	case 7:
		return sqlite3_bind_text(st, col, words[byte(in) % NWORDS], -1, SQLITE_STATIC);
	default: /* a small increasing time or id */
		return sqlite3_bind_int64(st, col, (int64_t)(tag / 9) * 100 + byte(in));
	}
}

static int create_tables(sqlite3 *db)
{
	char sql[1024];

	for (size_t t = 0; t < NTABLES; t++) {
		size_t used =
			(size_t)snprintf(sql, sizeof(sql), "CREATE TABLE %s (", tables[t].name);

		for (size_t c = 0; tables[t].cols[c] && used < sizeof(sql); c++)
			used += (size_t)snprintf(sql + used, sizeof(sql) - used, "%s%s",
						 c ? ", " : "", tables[t].cols[c]);
		if (used + 3 >= sizeof(sql))
			return -1;
		memcpy(sql + used, ");", 3);
		if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
			return -1;
	}
	return 0;
}

/* Rows from the script: a table byte, then one value per column. */
static int insert_rows(sqlite3 *db, struct in *in)
{
	sqlite3_stmt *st[NTABLES] = {0};
	int rc = 0;

	for (size_t t = 0; t < NTABLES && !rc; t++) {
		char sql[1024];
		size_t used = (size_t)snprintf(sql, sizeof(sql), "INSERT INTO %s VALUES (",
					       tables[t].name);

		for (size_t c = 0; tables[t].cols[c] && used < sizeof(sql); c++)
			used += (size_t)snprintf(sql + used, sizeof(sql) - used, "%s?",
						 c ? "," : "");
		if (used + 2 >= sizeof(sql) ||
		    (memcpy(sql + used, ")", 2),
		     sqlite3_prepare_v2(db, sql, -1, &st[t], NULL) != SQLITE_OK))
			rc = -1;
	}
	for (unsigned rows = 0; !rc && in->n && rows < 2000; rows++) {
		size_t t = byte(in) % NTABLES;

		for (int c = 0; tables[t].cols[c]; c++)
			bind_value(st[t], c + 1, in);
		if (sqlite3_step(st[t]) != SQLITE_DONE)
			rc = -1;
		sqlite3_reset(st[t]);
	}
	for (size_t t = 0; t < NTABLES; t++)
		sqlite3_finalize(st[t]);
	return rc;
}

static const char *db_path(void)
{
	static char path[64];

	if (!path[0])
		snprintf(path, sizeof(path), "%s/fuzz-nsys-%ld.sqlite",
			 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (long)getpid());
	return path;
}

static int write_script_db(const char *path, struct in *in)
{
	sqlite3 *db = NULL;
	int rc;

	unlink(path);
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
	    SQLITE_OK) {
		sqlite3_close(db);
		return -1;
	}
	rc = sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;", NULL, NULL,
			  NULL) == SQLITE_OK ?
		     0 :
		     -1;
	if (!rc)
		rc = create_tables(db);
	if (!rc)
		rc = insert_rows(db, in);
	if (!rc && sqlite3_exec(db, "COMMIT;", NULL, NULL, NULL) != SQLITE_OK)
		rc = -1;
	sqlite3_close(db);
	return rc;
}

static int write_raw(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	int rc;

	if (!f)
		return -1;
	rc = size && fwrite(data, 1, size, f) != size ? -1 : 0;
	if (fclose(f) != 0)
		rc = -1;
	return rc;
}

static FILE *sink_file(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gs_import_limits lim;
	struct gs_trace *t = NULL;
	struct in in = {data + (size ? 1 : 0), size ? size - 1 : 0};
	const char *path = db_path();
	int rc;

	if (!size)
		return 0;
	rc = data[0] & 1 ? write_raw(path, in.p, in.n) : write_script_db(path, &in);
	if (rc)
		return 0;
	gs_import_limits_default(&lim);
	lim.max_streams = 4096;
	lim.max_records = 1u << 20;
	lim.max_string_bytes = 64u << 10;
	if (gs_trace_create(&t) != GS_OK)
		return 0;
	if (gs_import_nsys(path, &lim, gs_trace_borrow_sink(t)) == GS_OK &&
	    gs_trace_finish(t) == GS_OK) {
		/* Its processes as the ranks of a job (the split by pid). */
		struct gs_report_options o = {0};
		struct gs_report_style st = {.top = 5};
		struct gs_report *r = NULL;
		struct gs_job *j = NULL;
		const char *name = path;

		if (gs_job_from_traces(&t, &name, 1, &j) == GS_OK &&
		    gs_report_build_job(j, &o, &r) == GS_OK && sink_file()) {
			gs_report_write_json(sink_file(), r, &st);
			gs_report_write_text(sink_file(), r, &st);
		}
		gs_report_destroy(r);
		gs_job_destroy(j);
	}
	gs_trace_destroy(t);
	gs_error_clear();
	if (!getenv("GS_FUZZ_KEEP_DB")) /* set it to look at an input's database */
		unlink(path);
	return 0;
}
