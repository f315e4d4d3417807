/* SPDX-License-Identifier: MIT */
/*
 * Private to the Nsight Systems importer: its database layer (nsys_db.c),
 * what nsys.c reads the tables through.
 */
#ifndef GS_IMPORT_NSYS_DB_H
#define GS_IMPORT_NSYS_DB_H

#include <gpuscope/error.h>
#include <gpuscope/import.h>
#include <gpuscope/u64map.h>

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define NSYS_MAX_FIELDS 24

/* Rows dropped for a value of the wrong type in an integer column. */
#define NSYS_TYPE_WARN_MAX 16u
struct nsys_type_warn {
	const char *table;
	char column[48];
	char value[40]; /* the first one */
	uint64_t count;
};

/* The database being read. Zeroed, then name and lim set. */
struct nsys_db {
	const char *name;
	const struct gs_import_limits *lim; /* resolved: no zero fields */
	sqlite3 *db;
	const char *table;      /* being read, for messages */
	sqlite3_stmt *str_stmt; /* SELECT value FROM StringIds WHERE rowid (or id) = ? */
	/* StringIds id -> its row (the first with that id), read in one pass:
	 * a table without an index on id cost a scan per id. */
	struct gs_u64map str_rows;
	bool str_by_rowid;
	bool has_row_minus1; /* id -1 (a key str_rows cannot hold) */
	int64_t row_minus1;
	/* When SQLite must stop (max_sqlite_ms from the start), and whether
	 * the progress handler stopped it. */
	struct timespec deadline;
	bool timed_out;
	sqlite3_stmt *col_stmt; /* does table ?1 have column ?2 */
	bool wal;               /* the header says WAL mode */
	bool with_wal;          /* read with the -wal file beside it */
	char *copy_dir;         /* with_wal: the private copy's directory */
	char *copy_db;          /* with_wal: the database copied there */
	struct nsys_type_warn type_warn[NSYS_TYPE_WARN_MAX];
	uint32_t ntype_warn;
	uint64_t type_other; /* rows with a bad value in further columns */
};

/*
 * A SELECT over the columns a table has. Each field names its column,
 * or several spellings separated by '|' (the first the table has is read);
 * a field the table lacks reads as NULL. Column i of the result is field i.
 */
struct nsys_query {
	sqlite3_stmt *st;
	bool exists;
	const char *col[NSYS_MAX_FIELDS];
	int col_len[NSYS_MAX_FIELDS];
};

/* Column `col` of the row: false when NULL. */
bool nsys_i64(sqlite3_stmt *st, int col, int64_t *v);
int64_t nsys_i64_or(sqlite3_stmt *st, int col, int64_t def);

gs_status nsys_check_file(struct nsys_db *n);
gs_status nsys_open(struct nsys_db *n);
/* Closes the database and removes a private copy (nsys_open). */
void nsys_close(struct nsys_db *n);
gs_status nsys_check_nsys(struct nsys_db *n);
/* "checkpoint it first": a database in WAL mode that cannot be read. */
gs_status nsys_wal_refused(struct nsys_db *n);

gs_status nsys_step(struct nsys_db *n, sqlite3_stmt *st, bool *row);
gs_status nsys_query_open(struct nsys_db *n, struct nsys_query *q, const char *table,
			  const char *const *fields, size_t nfields, const char *where,
			  const int *order, size_t norder);
void nsys_query_close(struct nsys_query *q);

#endif
