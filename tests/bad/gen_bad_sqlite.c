/* SPDX-License-Identifier: MIT */
/*
 * gen_bad's SQLite files that are not Nsight Systems exports (or are, in
 * part: no kernels table, a lost -wal file, 100000 unindexed names, a
 * 4 MiB one).
 */
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_bad.h"

static void sql(sqlite3 *db, const char *stmt)
{
	char *err = NULL;

	if (sqlite3_exec(db, stmt, NULL, NULL, &err) != SQLITE_OK)
		die("sqlite: %s", err ? err : "error");
}

/*
 * Nsight exports made to be slow or big: `rows` kernels, each named by a
 * StringIds row of its own, in a StringIds table without an index on id
 * (each name looked up by id cost a scan of the table); with
 * `long_string`, one name 4 MiB long.
 */
static void nsys_kernels_sqlite(const char *name, int rows, bool long_string)
{
	char stmt[1024];
	sqlite3 *db;

	remove(path_of(name));
	if (sqlite3_open(path_of(name), &db) != SQLITE_OK)
		die("sqlite3_open failed");
	sql(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"
		"CREATE TABLE StringIds (id INTEGER, value TEXT);"
		"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER,"
		" deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER,"
		" globalPid INTEGER, demangledName INTEGER, shortName INTEGER);");
	snprintf(stmt, sizeof(stmt),
		 "WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x < %d)"
		 " INSERT INTO StringIds SELECT x, 'kernel_' || x FROM c;"
		 "WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x < %d)"
		 " INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL SELECT 1000 + 100 * x, 1050 + 100 * x,"
		 " 0, 1, 7, x + 1, %lld, x, x FROM c;",
		 rows - 1, rows - 1, 100ll << 24);
	sql(db, stmt);
	if (long_string)
		sql(db, "UPDATE StringIds SET value = printf('%.*c', 4194304, 'k') WHERE id = 0;");
	sqlite3_close(db);
}

void sqlite_files(void)
{
	sqlite3 *db;
	FILE *f;
	long len;
	unsigned char *p;

	remove(path_of("not-nsys.sqlite"));
	if (sqlite3_open(path_of("not-nsys.sqlite"), &db) != SQLITE_OK)
		die("sqlite3_open failed");
	sql(db, "CREATE TABLE recipes(name TEXT, minutes INTEGER);"
		"INSERT INTO recipes VALUES('bread', 240), ('soup', 45);");
	sqlite3_close(db);

	/* The SQLite header, then the file cut short after its first page. */
	f = fopen(path_of("not-nsys.sqlite"), "rb");
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET))
		die("not-nsys.sqlite: cannot read back");
	p = malloc((size_t)len);
	if (!p || fread(p, 1, (size_t)len, f) != (size_t)len)
		die("not-nsys.sqlite: cannot read back");
	fclose(f);
	write_bytes("sqlite-cut.sqlite", p, 100);
	free(p);

	/* A small export whose kernels have a start of 'abc', an end that is a
	 * blob and a stream id of 7.5: each such row is dropped. */
	remove(path_of("nsys-wrong-types.sqlite"));
	if (sqlite3_open(path_of("nsys-wrong-types.sqlite"), &db) != SQLITE_OK)
		die("sqlite3_open failed");
	sql(db, "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
		"INSERT INTO StringIds VALUES (1, 'k');"
		"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL,"
		" end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,"
		" streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
		" demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL);"
		"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
		" (100, 200, 0, 1, 7, 1, 72057594037927936, 1, 1),"
		" ('abc', 300, 0, 1, 7, 2, 72057594037927936, 1, 1),"
		" ('def', 300, 0, 1, 7, 3, 72057594037927936, 1, 1),"
		" (400, x'00ff', 0, 1, 7, 4, 72057594037927936, 1, 1),"
		" (500, 600, 0, 1, 7.5, 5, 72057594037927936, 1, 1);");
	sqlite3_close(db);

	/* An export in WAL mode: its tables in the database, their rows only
	 * in its -wal file (closed without the checkpoint that would move them
	 * into the database). */
	remove(path_of("nsys-wal.sqlite"));
	remove(path_of("nsys-wal.sqlite-wal"));
	remove(path_of("nsys-wal.sqlite-shm"));
	if (sqlite3_open(path_of("nsys-wal.sqlite"), &db) != SQLITE_OK)
		die("sqlite3_open failed");
	if (sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL) != SQLITE_OK)
		die("sqlite: cannot keep the WAL");
	sql(db, "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);"
		"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL,"
		" end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,"
		" streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,"
		" demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL);"
		"PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;"
		"INSERT INTO StringIds VALUES (1, 'k');"
		"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
		" (100, 200, 0, 1, 7, 1, 72057594037927936, 1, 1),"
		" (300, 400, 0, 1, 7, 2, 72057594037927936, 1, 1);");
	sqlite3_close(db);
	remove(path_of("nsys-wal.sqlite-shm"));
	/* The same database copied without its -wal file. */
	f = fopen(path_of("nsys-wal.sqlite"), "rb");
	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET))
		die("nsys-wal.sqlite: cannot read back");
	p = malloc((size_t)len);
	if (!p || fread(p, 1, (size_t)len, f) != (size_t)len)
		die("nsys-wal.sqlite: cannot read back");
	fclose(f);
	write_bytes("nsys-wal-lost.sqlite", p, (size_t)len);
	free(p);
	nsys_kernels_sqlite("nsys-stringids-100k.sqlite", 100000, false);
	nsys_kernels_sqlite("nsys-long-name.sqlite", 10, true);
}
