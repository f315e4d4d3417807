/* SPDX-License-Identifier: MIT */
/*
 * The Nsight Systems importer's database layer: checking the file and
 * opening it read-only through SQLite (immutable, or a private copy with
 * its -wal file),
 * the time and size limits SQLite runs under, the check that it is an
 * Nsight export, where each StringIds row is, prepared statements and
 * SELECTs over the columns a table has, row iteration (rows with a value
 * of the wrong type in an integer column counted and passed over) and the
 * error wording that names the file and the table. nsys.c maps the rows to
 * trace records.
 */
#include "nsys_db.h"

#include <gpuscope/error.h>
#include <gpuscope/strbuf.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* Errors and column values                                                 */
/* ------------------------------------------------------------------------ */

/* A failed SQLite call: one error naming the file and the table. SQLite's
 * message may quote bytes of a corrupt file: only printable ASCII is kept. */
static gs_status nsys_fail(struct nsys_db *n, int rc)
{
	const char *raw = n->db ? sqlite3_errmsg(n->db) : sqlite3_errstr(rc);
	const char *what = n->table ? n->table : "the schema";
	char msg[200];
	size_t i = 0;

	for (; raw && raw[i] && i + 1 < sizeof(msg); i++)
		msg[i] = raw[i] >= 0x20 && raw[i] < 0x7f ? raw[i] : '?';
	msg[i] = '\0';

	switch (rc & 0xff) {
	case SQLITE_NOMEM:
		gs_error_append("%s: out of memory reading %s", n->name, what);
		return GS_ERR_NOMEM;
	case SQLITE_INTERRUPT:
		if (!n->timed_out)
			break;
		gs_error_append("%s: %s: still reading after max_sqlite_ms (%u ms)", n->name, what,
				n->lim->max_sqlite_ms);
		return GS_ERR_LIMIT;
	case SQLITE_TOOBIG:
		gs_error_append("%s: %s: a value or row longer than max_string_bytes (%llu) allows",
				n->name, what, (unsigned long long)n->lim->max_string_bytes);
		return GS_ERR_LIMIT;
	case SQLITE_IOERR:
		if (rc == SQLITE_IOERR_SHORT_READ)
			break;
		__attribute__((fallthrough));
	case SQLITE_CANTOPEN:
	case SQLITE_PERM:
	case SQLITE_AUTH:
		gs_error_append("%s: cannot read the SQLite database: %s (reading %s)", n->name,
				msg, what);
		return GS_ERR_IO;
	default:
		break;
	}
	gs_error_append("%s: corrupt SQLite database: %s (reading %s)", n->name, msg, what);
	return GS_ERR_FORMAT;
}

bool nsys_i64(sqlite3_stmt *st, int col, int64_t *v)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return false;
	*v = sqlite3_column_int64(st, col);
	return true;
}

int64_t nsys_i64_or(sqlite3_stmt *st, int col, int64_t def)
{
	int64_t v;

	return nsys_i64(st, col, &v) ? v : def;
}

/* ------------------------------------------------------------------------ */
/* Queries                                                                  */
/* ------------------------------------------------------------------------ */

static gs_status nsys_prepare(struct nsys_db *n, const char *sql, sqlite3_stmt **st)
{
	int rc = sqlite3_prepare_v2(n->db, sql, -1, st, NULL);

	if (rc != SQLITE_OK) {
		*st = NULL;
		return nsys_fail(n, rc);
	}
	return GS_OK;
}

static bool nsys_int_affinity(const char *decl)
{
	for (; decl && decl[0] && decl[1] && decl[2]; decl++)
		if ((decl[0] | 0x20) == 'i' && (decl[1] | 0x20) == 'n' && (decl[2] | 0x20) == 't')
			return true;
	return false;
}

static void nsys_type_warn(struct nsys_db *n, sqlite3_stmt *st, int col, int type)
{
	const char *name = sqlite3_column_name(st, col);
	const char *table = n->table ? n->table : "?";
	struct nsys_type_warn *e;
	uint32_t i;

	if (!name)
		name = "?";
	for (i = 0; i < n->ntype_warn; i++) {
		e = &n->type_warn[i];
		if (strcmp(e->table, table) == 0 &&
		    strncmp(e->column, name, sizeof(e->column) - 1) == 0) {
			e->count += e->count < UINT64_MAX;
			return;
		}
	}
	if (n->ntype_warn == NSYS_TYPE_WARN_MAX) {
		n->type_other += n->type_other < UINT64_MAX;
		return;
	}
	e = &n->type_warn[n->ntype_warn++];
	e->table = table;
	e->count = 1;
	snprintf(e->column, sizeof(e->column), "%s", name);
	if (type == SQLITE_BLOB) {
		snprintf(e->value, sizeof(e->value), "a blob of %d bytes",
			 sqlite3_column_bytes(st, col));
	} else if (type == SQLITE_FLOAT) {
		snprintf(e->value, sizeof(e->value), "%.17g", sqlite3_column_double(st, col));
	} else {
		const unsigned char *t = sqlite3_column_text(st, col);
		size_t o = 0;

		e->value[o++] = '\'';
		for (; t && *t && o < sizeof(e->value) - 5; t++)
			e->value[o++] = *t < 0x20 || *t >= 0x7f || *t == '\'' ? '?' : (char)*t;
		if (t && *t) {
			memcpy(e->value + o, "...", 3);
			o += 3;
		}
		e->value[o++] = '\'';
		e->value[o] = '\0';
	}
}

/* True when every integer column of the row holds an integer or NULL;
 * else the row is counted under its table and first bad column. */
static bool nsys_row_typed(struct nsys_db *n, sqlite3_stmt *st)
{
	int cols = sqlite3_column_count(st);

	for (int i = 0; i < cols; i++) {
		int t = sqlite3_column_type(st, i);

		if (t == SQLITE_INTEGER || t == SQLITE_NULL)
			continue;
		if (!nsys_int_affinity(sqlite3_column_decltype(st, i)))
			continue;
		nsys_type_warn(n, st, i, t);
		return false;
	}
	return true;
}

/* Step: *row true with a row, false at the end. Rows with a value of the
 * wrong type in an integer column are passed over (counted). */
gs_status nsys_step(struct nsys_db *n, sqlite3_stmt *st, bool *row)
{
	int rc;

	do
		rc = sqlite3_step(st);
	while (rc == SQLITE_ROW && !nsys_row_typed(n, st));

	*row = rc == SQLITE_ROW;
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		return GS_OK;
	return nsys_fail(n, rc);
}

static gs_status nsys_table_exists(struct nsys_db *n, const char *table, bool *yes)
{
	sqlite3_stmt *st;
	gs_status rc;

	*yes = false;
	rc = nsys_prepare(n, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", &st);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	rc = nsys_step(n, st, yes);
	sqlite3_finalize(st);
	return rc;
}

static gs_status nsys_has_column(struct nsys_db *n, const char *table, const char *col, size_t len,
				 bool *yes)
{
	gs_status rc;

	sqlite3_reset(n->col_stmt);
	sqlite3_bind_text(n->col_stmt, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(n->col_stmt, 2, col, (int)len, SQLITE_STATIC);
	rc = nsys_step(n, n->col_stmt, yes);
	sqlite3_reset(n->col_stmt);
	return rc;
}

/*
 * Prepare q over `table` (q->exists false, no statement, when the table is
 * missing). `where` is appended as is; `order` lists fields to sort by
 * (field i ascending, -(i + 1) descending; missing ones are left out).
 */
gs_status nsys_query_open(struct nsys_db *n, struct nsys_query *q, const char *table,
			  const char *const *fields, size_t nfields, const char *where,
			  const int *order, size_t norder)
{
	struct gs_strbuf sb = GS_STRBUF_INIT;
	bool first = true;
	gs_status rc;

	memset(q, 0, sizeof(*q));
	n->table = table;
	rc = nsys_table_exists(n, table, &q->exists);
	if (rc || !q->exists)
		return rc;
	for (size_t i = 0; i < nfields && i < NSYS_MAX_FIELDS; i++) {
		const char *p = fields[i];

		while (*p && !q->col[i]) {
			const char *bar = strchr(p, '|');
			size_t len = bar ? (size_t)(bar - p) : strlen(p);
			bool yes;

			rc = nsys_has_column(n, table, p, len, &yes);
			if (rc)
				return rc;
			if (yes) {
				q->col[i] = p;
				q->col_len[i] = (int)len;
			}
			p += len + (bar ? 1 : 0);
		}
	}
	gs_strbuf_puts(&sb, "SELECT ");
	for (size_t i = 0; i < nfields; i++) {
		if (i)
			gs_strbuf_puts(&sb, ", ");
		if (q->col[i]) {
			gs_strbuf_puts(&sb, "\"");
			gs_strbuf_add(&sb, q->col[i], (size_t)q->col_len[i]);
			gs_strbuf_puts(&sb, "\"");
		} else {
			gs_strbuf_puts(&sb, "NULL");
		}
	}
	gs_strbuf_puts(&sb, " FROM \"");
	gs_strbuf_puts(&sb, table);
	gs_strbuf_puts(&sb, "\"");
	if (where) {
		gs_strbuf_puts(&sb, " ");
		gs_strbuf_puts(&sb, where);
	}
	for (size_t i = 0; i < norder; i++) {
		int f = order[i] >= 0 ? order[i] : -order[i] - 1;

		if (f >= (int)nfields || !q->col[f])
			continue;
		gs_strbuf_puts(&sb, first ? " ORDER BY \"" : ", \"");
		gs_strbuf_add(&sb, q->col[f], (size_t)q->col_len[f]);
		gs_strbuf_puts(&sb, order[i] >= 0 ? "\"" : "\" DESC");
		first = false;
	}
	if (sb.oom) {
		gs_strbuf_free(&sb);
		return gs_nomem();
	}
	rc = nsys_prepare(n, sb.p, &q->st);
	gs_strbuf_free(&sb);
	return rc;
}

void nsys_query_close(struct nsys_query *q)
{
	sqlite3_finalize(q->st);
	q->st = NULL;
}

/* ------------------------------------------------------------------------ */
/* Opening                                                                  */
/* ------------------------------------------------------------------------ */

static uint32_t nsys_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A file cut short is refused before SQLite reads it: SQLite would read
 * the missing pages as errors only when a query reaches them. */
gs_status nsys_check_file(struct nsys_db *n)
{
	unsigned char h[100];
	struct stat sb;
	size_t got = 0;
	uint32_t page, pages;
	int fd = open(n->name, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		gs_error_append("%s: cannot open: %s", n->name, strerror(errno));
		return GS_ERR_IO;
	}
	if (fstat(fd, &sb) != 0) {
		int e = errno;

		close(fd);
		gs_error_append("%s: cannot stat: %s", n->name, strerror(e));
		return GS_ERR_IO;
	}
	while (got < sizeof(h)) {
		ssize_t r = read(fd, h + got, sizeof(h) - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			close(fd);
			gs_error_append("%s: read failed: %s", n->name, strerror(e));
			return GS_ERR_IO;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (got < sizeof(h) || memcmp(h, "SQLite format 3", 16) != 0) {
		gs_error_append(
			"%s: truncated SQLite database (%zu bytes, shorter than its header)",
			n->name, got);
		return GS_ERR_FORMAT;
	}
	page = (uint32_t)h[16] << 8 | h[17];
	if (page == 1)
		page = 65536;
	if (page < 512 || (page & (page - 1))) {
		gs_error_append("%s: corrupt SQLite database: page size %u in the header", n->name,
				page);
		return GS_ERR_FORMAT;
	}
	pages = nsys_be32(h + 28);
	n->wal = h[18] == 2 && h[19] == 2;
	if ((uint64_t)sb.st_size % page) {
		gs_error_append("%s: truncated SQLite database (%llu bytes, not a whole number of "
				"%u-byte pages)",
				n->name, (unsigned long long)sb.st_size, page);
		return GS_ERR_FORMAT;
	}
	/* The header's page count is valid when its version-valid-for number
	 * matches the change counter. */
	if (pages && nsys_be32(h + 92) == nsys_be32(h + 24) &&
	    (uint64_t)sb.st_size < (uint64_t)pages * page) {
		gs_error_append("%s: truncated SQLite database (%llu bytes, the header says %llu)",
				n->name, (unsigned long long)sb.st_size,
				(unsigned long long)pages * page);
		return GS_ERR_FORMAT;
	}
	return GS_OK;
}

/* "file:" URI of a path, percent-encoded, opened immutable (else
 * read-only, for a database in WAL mode read with its -wal file). */
static char *nsys_uri(const char *path, bool immutable)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t len = strlen(path);
	char *u = malloc(len * 3 + 32), *p;

	if (!u)
		return NULL;
	p = u;
	memcpy(p, path[0] == '/' ? "file://" : "file:", path[0] == '/' ? 7 : 5);
	p += path[0] == '/' ? 7 : 5;
	for (const unsigned char *s = (const unsigned char *)path; *s; s++) {
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || strchr("/-._~", *s)) {
			*p++ = (char)*s;
		} else {
			*p++ = '%';
			*p++ = hex[*s >> 4];
			*p++ = hex[*s & 15];
		}
	}
	if (immutable)
		memcpy(p, "?immutable=1", sizeof("?immutable=1"));
	else
		memcpy(p, "?mode=ro", sizeof("?mode=ro"));
	return u;
}

/* PATH with SUFFIX appended; NULL when out of memory. */
static char *nsys_path_plus(const char *path, const char *suffix)
{
	size_t len = strlen(path), sl = strlen(suffix);
	char *w = malloc(len + sl + 1);

	if (!w)
		return NULL;
	snprintf(w, len + sl + 1, "%s%s", path, suffix);
	return w;
}

/* A -wal file with frames beside the database. */
static bool nsys_has_wal(const char *path)
{
	char *w = nsys_path_plus(path, "-wal");
	struct stat sb;
	bool yes;

	if (!w)
		return false;
	yes = stat(w, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0;
	free(w);
	return yes;
}

/* Copies file `from` to a new file `to` (mode 0600). */
static gs_status nsys_copy_file(const char *from, const char *to)
{
	char buf[1 << 16];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	gs_status rc = GS_OK;

	if (in < 0) {
		gs_error_append("cannot open %s: %s", from, strerror(errno));
		return GS_ERR_IO;
	}
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0) {
		gs_error_append("cannot create %s: %s", to, strerror(errno));
		close(in);
		return GS_ERR_IO;
	}
	for (;;) {
		ssize_t r = read(in, buf, sizeof(buf)), off = 0;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			gs_error_append("cannot read %s: %s", from, strerror(errno));
			rc = GS_ERR_IO;
			break;
		}
		if (r == 0)
			break;
		while (off < r) {
			ssize_t w = write(out, buf + off, (size_t)(r - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				gs_error_append("cannot write %s: %s", to, strerror(errno));
				rc = GS_ERR_IO;
				break;
			}
			off += w;
		}
		if (rc)
			break;
	}
	close(in);
	if (close(out) != 0 && !rc) {
		gs_error_append("cannot write %s: %s", to, strerror(errno));
		rc = GS_ERR_IO;
	}
	return rc;
}

/*
 * SQLite reads a database in WAL mode only through its -shm index, which
 * it creates beside the database. So that nothing is ever written next to
 * the input, the database and its -wal file are copied into a private
 * directory (mkdtemp under TMPDIR, else /tmp) and read there; nsys_close
 * removes the copies. Sets n->copy_dir and n->copy_db.
 */
static gs_status nsys_private_copy(struct nsys_db *n)
{
	const char *tmp = getenv("TMPDIR");
	char *wal = NULL, *copy_wal = NULL;
	gs_status rc;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	n->copy_dir = nsys_path_plus(tmp, "/gpuscope-nsys-XXXXXX");
	if (!n->copy_dir)
		return gs_nomem();
	if (!mkdtemp(n->copy_dir)) {
		gs_error_append("cannot create a directory in %s: %s", tmp, strerror(errno));
		free(n->copy_dir);
		n->copy_dir = NULL;
		return GS_ERR_IO;
	}
	n->copy_db = nsys_path_plus(n->copy_dir, "/export.sqlite");
	wal = nsys_path_plus(n->name, "-wal");
	copy_wal = n->copy_db ? nsys_path_plus(n->copy_db, "-wal") : NULL;
	if (!n->copy_db || !wal || !copy_wal) {
		rc = gs_nomem();
	} else {
		rc = nsys_copy_file(n->name, n->copy_db);
		if (!rc)
			rc = nsys_copy_file(wal, copy_wal);
	}
	free(wal);
	free(copy_wal);
	if (rc)
		gs_error_append("%s: cannot copy a SQLite database in WAL mode and its -wal file "
				"to read them (or checkpoint it first: sqlite3 %s "
				"'PRAGMA wal_checkpoint')",
				n->name, n->name);
	return rc;
}

void nsys_close(struct nsys_db *n)
{
	static const char *const suffix[] = {"-wal", "-shm", "-journal", ""};

	sqlite3_close(n->db);
	n->db = NULL;
	if (!n->copy_dir)
		return;
	for (size_t i = 0; n->copy_db && i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		char *p = nsys_path_plus(n->copy_db, suffix[i]);

		if (p)
			unlink(p);
		free(p);
	}
	rmdir(n->copy_dir);
	free(n->copy_db);
	free(n->copy_dir);
	n->copy_db = n->copy_dir = NULL;
}

gs_status nsys_wal_refused(struct nsys_db *n)
{
	gs_error_append("%s: a SQLite database in WAL mode: checkpoint it first (sqlite3 %s "
			"'PRAGMA wal_checkpoint')",
			n->name, n->name);
	return GS_ERR_FORMAT;
}

/* SQLite's progress handler: stop it (SQLITE_INTERRUPT) past the deadline. */
static int nsys_progress(void *arg)
{
	struct nsys_db *n = arg;
	struct timespec now;

	if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
		return 0;
	if (now.tv_sec > n->deadline.tv_sec ||
	    (now.tv_sec == n->deadline.tv_sec && now.tv_nsec >= n->deadline.tv_nsec))
		n->timed_out = true;
	return n->timed_out;
}

/* The SQLite VM instructions between two looks at the clock. */
#define NSYS_PROGRESS_STEPS 10000

gs_status nsys_open(struct nsys_db *n)
{
	/* Immutable reads ignore a -wal file, whose rows would be lost: a
	 * database in WAL mode with one is read with it, from a private copy
	 * (nsys_private_copy). Without one it is read as it is (complete once checkpointed);
	 * see gs_import_nsys for one that holds nothing. */
	bool with_wal = n->wal && nsys_has_wal(n->name);
	char *uri;
	uint64_t len;
	int rc;

	n->with_wal = with_wal;
	if (with_wal) {
		gs_status st = nsys_private_copy(n);

		if (st)
			return st;
	}
	uri = nsys_uri(with_wal ? n->copy_db : n->name, !with_wal);
	if (!uri)
		return gs_nomem();
	rc = sqlite3_open_v2(uri, &n->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	free(uri);
	if (rc == SQLITE_OK && with_wal)
		rc = sqlite3_exec(n->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		gs_status st = with_wal ? nsys_wal_refused(n) : nsys_fail(n, rc);

		nsys_close(n);
		return st;
	}
	/* No value (nor row) much longer than a string may be: a hostile
	 * file cannot make SQLite allocate a gigabyte for one. */
	len = n->lim->max_string_bytes > (uint64_t)INT_MAX / 2 - (1u << 20) ?
		      (uint64_t)INT_MAX :
		      2 * n->lim->max_string_bytes + (1u << 20);
	sqlite3_limit(n->db, SQLITE_LIMIT_LENGTH, (int)len);
	/* Nor keep it busy for ever (queries over tables the file shaped). */
	if (clock_gettime(CLOCK_MONOTONIC, &n->deadline) == 0) {
		n->deadline.tv_sec += (time_t)(n->lim->max_sqlite_ms / 1000);
		n->deadline.tv_nsec += (long)(n->lim->max_sqlite_ms % 1000) * 1000000L;
		if (n->deadline.tv_nsec >= 1000000000L) {
			n->deadline.tv_sec++;
			n->deadline.tv_nsec -= 1000000000L;
		}
		sqlite3_progress_handler(n->db, NSYS_PROGRESS_STEPS, nsys_progress, n);
	}
	return nsys_prepare(n, "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2 COLLATE NOCASE",
			    &n->col_stmt);
}

/*
 * Where each StringIds id is: one pass over the table keeps the row of
 * each id (the first one, as a search by id finds it), and each string is
 * then read by its row (O(log N) in any table; by id, a table without an
 * index on it is scanned whole each time). A table without row ids (its
 * id is then its key) is read by id.
 */
static gs_status nsys_load_string_rows(struct nsys_db *n)
{
	sqlite3_stmt *st = NULL;
	gs_status rc = GS_OK;
	bool row = true;

	n->table = "StringIds";
	if (sqlite3_prepare_v2(n->db, "SELECT id, rowid FROM StringIds", -1, &st, NULL) !=
	    SQLITE_OK) {
		sqlite3_finalize(st);
		rc = nsys_prepare(n, "SELECT value FROM StringIds WHERE id = ?1", &n->str_stmt);
		n->table = NULL;
		return rc;
	}
	while (!rc && row) {
		rc = nsys_step(n, st, &row);
		if (!rc && row) {
			int type = sqlite3_column_type(st, 0);
			int64_t id = sqlite3_column_int64(st, 0);

			/* What `id = ?` with an integer matches: integers, and
			 * reals of the same value. */
			if (type == SQLITE_FLOAT && sqlite3_column_double(st, 0) != (double)id)
				continue;
			if (type != SQLITE_INTEGER && type != SQLITE_FLOAT)
				continue;
			if (id == -1 && !n->has_row_minus1) {
				n->has_row_minus1 = true;
				n->row_minus1 = sqlite3_column_int64(st, 1);
			} else if (id != -1) {
				rc = gs_u64map_put(&n->str_rows, (uint64_t)id,
						   (uint64_t)sqlite3_column_int64(st, 1), false);
			}
		}
	}
	sqlite3_finalize(st);
	if (!rc)
		rc = nsys_prepare(n, "SELECT value FROM StringIds WHERE rowid = ?1", &n->str_stmt);
	n->str_by_rowid = true;
	n->table = NULL;
	return rc;
}

gs_status nsys_check_nsys(struct nsys_db *n)
{
	sqlite3_stmt *st;
	gs_status rc;
	bool yes;

	rc = nsys_prepare(n,
			  "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name LIKE "
			  "'CUPTI\\_ACTIVITY\\_KIND\\_%' ESCAPE '\\' LIMIT 1",
			  &st);
	if (rc)
		return rc;
	rc = nsys_step(n, st, &yes);
	sqlite3_finalize(st);
	if (rc)
		return rc;
	if (!yes) {
		gs_error_append("%s: SQLite database is not an Nsight Systems export (no "
				"CUPTI_ACTIVITY_KIND_* tables)",
				n->name);
		return GS_ERR_FORMAT;
	}
	rc = nsys_table_exists(n, "StringIds", &yes);
	if (!rc && yes)
		rc = nsys_load_string_rows(n);
	return rc;
}
