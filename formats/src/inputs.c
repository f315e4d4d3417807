/* SPDX-License-Identifier: MIT */
/*
 * The inputs of a job (gpuscope/import.h, "The inputs of a job"): TRACE
 * arguments, directories of traces and lists of paths, expanded into the
 * paths to load; the same trace given twice found before anything loads.
 *
 * A directory's entries are recognised by their first bytes
 * (gs_detect_format_why, as the loader recognises any input), never
 * loaded. Duplicates: the paths are stat'ed once; equal (device, inode)
 * pairs are one file; files of one size are hashed (the first 64 KiB, then,
 * where those agree, the whole file) and equal hashes compared byte for
 * byte, so that a hash collision is never taken for a copy. Two 64 KiB
 * buffers at most are held.
 */
#include "import_priv.h"

#include <gpuscope/hash.h>
#include <gpuscope/vec.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Names of skipped entries a directory's warning shows. */
#define SKIPPED_SHOWN 3
/* The bytes of each file hashed first, and the unit of every read. */
#define HEAD_BYTES ((size_t)64 * 1024)

void gs_input_list_init(struct gs_input_list *l)
{
	memset(l, 0, sizeof(*l));
}

void gs_input_list_fini(struct gs_input_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->paths[i]);
	for (size_t i = 0; i < l->n_warnings; i++)
		free(l->warnings[i]);
	for (size_t i = 0; i < l->n_dirs; i++)
		free(l->dirs[i]);
	free(l->paths);
	free(l->from);
	free(l->warnings);
	free(l->dirs);
	gs_input_list_init(l);
}

/* Append `p` (taken over: freed on failure) found in `from` (or NULL). */
static gs_status push_owned(struct gs_input_list *l, char *p, const char *from)
{
	if (gs_vec_reserve((void **)&l->paths, &l->cap_paths, l->n + 1, sizeof(*l->paths)) ||
	    gs_vec_reserve((void **)&l->from, &l->cap_from, l->n + 1, sizeof(*l->from))) {
		free(p);
		return gs_nomem();
	}
	l->paths[l->n] = p;
	l->from[l->n] = from;
	l->n++;
	return GS_OK;
}

static gs_status push_warning(struct gs_input_list *l, const char *s)
{
	char *w = strdup(s);

	if (!w || GS_VEC_PUSH(l->warnings, l->n_warnings, l->cap_warnings, w)) {
		free(w);
		return gs_nomem();
	}
	return GS_OK;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* DIR/NAME, DIR as given (no second '/' after one it ends with). */
static char *join(const char *dir, const char *name)
{
	size_t nd = strlen(dir), size = nd + strlen(name) + 2;
	char *p = malloc(size);

	if (p)
		snprintf(p, size, "%s%s%s", dir, nd && dir[nd - 1] == '/' ? "" : "/", name);
	return p;
}

/* The sorted names of `dir`'s entries, hidden ones left out. */
static gs_status read_names(const char *dir, char ***out, size_t *n)
{
	char **names = NULL;
	size_t cnt = 0, cap = 0;
	gs_status rc = GS_OK;
	struct dirent *e;
	DIR *d = opendir(dir);

	*out = NULL;
	*n = 0;
	if (!d) {
		gs_error_append("%s: cannot read the directory: %s", dir, strerror(errno));
		return GS_ERR_IO;
	}
	for (;;) {
		char *s;

		errno = 0;
		e = readdir(d);
		if (!e) {
			if (errno) {
				gs_error_append("%s: cannot read the directory: %s", dir,
						strerror(errno));
				rc = GS_ERR_IO;
			}
			break;
		}
		if (e->d_name[0] == '.')
			continue;
		s = strdup(e->d_name);
		if (!s || GS_VEC_PUSH(names, cnt, cap, s)) {
			free(s);
			rc = gs_nomem();
			break;
		}
	}
	closedir(d);
	if (rc) {
		for (size_t i = 0; i < cnt; i++)
			free(names[i]);
		free(names);
		return rc;
	}
	if (cnt > 1)
		qsort(names, cnt, sizeof(*names), cmp_names);
	*out = names;
	*n = cnt;
	return GS_OK;
}

/* What a directory left out: a count, the first few names. */
struct skipped {
	size_t n;
	bool other; /* an entry that is not a regular file */
	char text[SKIPPED_SHOWN * 96 + 8];
};

static void skip(struct skipped *s, const char *name, bool dir)
{
	size_t len = strlen(s->text);

	if (s->n < SKIPPED_SHOWN)
		snprintf(s->text + len, sizeof(s->text) - len, "%s%.80s%s", s->n ? ", " : "", name,
			 dir ? "/" : "");
	else if (s->n == SKIPPED_SHOWN)
		snprintf(s->text + len, sizeof(s->text) - len, ", ...");
	s->n++;
}

/* "3 files that are not traces" (what), "a, b, c, ..." (s->text). */
static void skipped_what(const struct skipped *s, char *buf, size_t size)
{
	const char *noun = s->other ? (s->n == 1 ? "entry" : "entries") :
				      (s->n == 1 ? "file" : "files");

	snprintf(buf, size, "%zu %s that %s", s->n, noun,
		 s->n == 1 ? "is not a trace" : "are not traces");
}

/* JSON that gpuscope wrote itself, its first member "schema":
 * "gpuscope...": an analyze or diff report an earlier -o left in the
 * directory (gpuscope.report/1, gpuscope.diff/1), the job generator's
 * expected.json (gpuscope-bench-job-expected); not a trace. */
static size_t json_blanks(const unsigned char *p, size_t n, size_t i)
{
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	return i;
}

static bool gpuscope_report(const unsigned char *p, size_t n)
{
	static const char key[] = "\"schema\"", value[] = "\"gpuscope";
	size_t i = json_blanks(p, n, 0);

	if (i >= n || p[i] != '{')
		return false;
	i = json_blanks(p, n, i + 1);
	if (n - i < sizeof(key) - 1 || memcmp(p + i, key, sizeof(key) - 1) != 0)
		return false;
	i = json_blanks(p, n, i + sizeof(key) - 1);
	if (i >= n || p[i] != ':')
		return false;
	i = json_blanks(p, n, i + 1);
	return n - i >= sizeof(value) - 1 && memcmp(p + i, value, sizeof(value) - 1) == 0;
}

/* Whether the regular file `path` is a trace, by its first bytes (as the
 * loader recognises it), never loaded. */
static gs_status is_trace(const char *path, bool *trace)
{
	unsigned char head[GS_DETECT_HEAD];
	enum gs_input_format fmt;
	const char *why;
	size_t n = 0;
	gs_status rc;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*trace = false;
	if (fd < 0) {
		gs_error_append("%s: cannot open: %s", path, strerror(errno));
		return GS_ERR_IO;
	}
	rc = gs_detect_read_head(fd, path, head, sizeof(head), &n);
	close(fd);
	if (rc)
		return rc;
	gs_detect_head(head, n, &fmt, &why);
	*trace = fmt != GS_INPUT_UNKNOWN && !(fmt == GS_INPUT_KINETO && gpuscope_report(head, n));
	return GS_OK;
}

/* Every trace of directory `dir`, in name order. */
static gs_status add_dir(struct gs_input_list *l, const char *dir)
{
	struct skipped sk = {0};
	char **names = NULL;
	size_t n = 0, found = 0;
	char what[64], line[2 * GS_ERROR_MSG_MAX], hint[GS_ERROR_MSG_MAX / 2] = "";
	char *from = strdup(dir);
	gs_status rc;

	if (!from || GS_VEC_PUSH(l->dirs, l->n_dirs, l->cap_dirs, from)) {
		free(from);
		return gs_nomem();
	}
	rc = read_names(dir, &names, &n);

	for (size_t i = 0; i < n && !rc; i++) {
		bool trace = false;
		struct stat sb;
		char *p = join(dir, names[i]);

		if (!p) {
			rc = gs_nomem();
			break;
		}
		/* Followed: a link to a regular file is one. A FIFO or a device
		 * is never opened (a FIFO would block). */
		if (stat(p, &sb) != 0 || !S_ISREG(sb.st_mode)) {
			bool is_dir = stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);

			sk.other = true;
			skip(&sk, names[i], is_dir);
			free(p);
			continue;
		}
		rc = is_trace(p, &trace);
		if (!rc && !trace) {
			skip(&sk, names[i], false);
			if (!*hint)
				gs_detect_name_hint(p, hint, sizeof(hint));
			free(p);
			continue;
		}
		if (!rc)
			rc = push_owned(l, p, from);
		else
			free(p);
		if (!rc)
			found++;
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (rc)
		return rc;
	skipped_what(&sk, what, sizeof(what));
	if (!found) {
		if (sk.n)
			gs_error_append("%s: no trace in this directory (%s: %s)%s%s", dir, what,
					sk.text, *hint ? "; " : "", hint);
		else
			gs_error_append("%s: no trace in this directory", dir);
		return GS_ERR_INVALID;
	}
	if (!sk.n)
		return GS_OK;
	snprintf(line, sizeof(line), "%s: skipped %s (%s)%s%s", dir, what, sk.text,
		 *hint ? "; " : "", hint);
	return push_warning(l, line);
}

gs_status gs_input_list_add(struct gs_input_list *l, const char *arg)
{
	struct stat sb;
	char *p;

	if (!l || !arg) {
		gs_error_append("gs_input_list_add: no %s", l ? "argument" : "list");
		return GS_ERR_INVALID;
	}
	if (strcmp(arg, GS_INPUT_STDIN) != 0 && stat(arg, &sb) == 0 && S_ISDIR(sb.st_mode))
		return add_dir(l, arg);
	p = strdup(arg);
	return p ? push_owned(l, p, NULL) : gs_nomem();
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* One line of a list (its newline removed), `len` bytes, line number `no`. */
static gs_status add_line(struct gs_input_list *l, const char *file, size_t no, char *s, size_t len)
{
	if (memchr(s, '\0', len)) {
		gs_error_append("%s: line %zu: a NUL byte (one path a line)", file, no);
		return GS_ERR_INVALID;
	}
	while (len && (s[len - 1] == '\r' || blank(s[len - 1])))
		len--;
	s[len] = '\0';
	while (blank(*s))
		s++;
	if (!*s || *s == '#')
		return GS_OK;
	return gs_input_list_add(l, s);
}

/* The next line of `f` into buf (without its newline; NUL bytes kept),
 * *len bytes. 1: a line; 0: the end; -1: longer than cap - 1 bytes. */
static int read_line(FILE *f, char *buf, size_t cap, size_t *len)
{
	size_t n = 0;
	int c;

	for (;;) {
		c = getc(f);
		if (c == EOF) {
			if (!n)
				return 0;
			break;
		}
		if (c == '\n')
			break;
		if (n == cap - 1)
			return -1;
		buf[n++] = (char)c;
	}
	buf[n] = '\0';
	*len = n;
	return 1;
}

gs_status gs_input_list_add_file(struct gs_input_list *l, const char *file)
{
	const char *name = gs_input_name(file);
	char buf[GS_INPUT_LINE_MAX + 1];
	size_t before, no = 0;
	gs_status rc = GS_OK;
	FILE *f;
	int fd;

	if (!l || !file) {
		gs_error_append("gs_input_list_add_file: no %s", l ? "file" : "list");
		return GS_ERR_INVALID;
	}
	before = l->n;
	fd = strcmp(file, GS_INPUT_STDIN) == 0 ? fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3) :
						 open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		gs_error_append("%s: cannot open: %s", name, strerror(errno));
		return GS_ERR_IO;
	}
	{
		struct stat sb;

		if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			close(fd);
			gs_error_append("%s: is a directory, not a list of paths (give it as a "
					"TRACE argument)",
					name);
			return GS_ERR_INVALID;
		}
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return gs_nomem();
	}
	for (;;) {
		size_t len = 0;
		int got = read_line(f, buf, sizeof(buf), &len);

		if (got == 0)
			break;
		no++;
		if (got < 0) {
			gs_error_append("%s: line %zu: longer than %d bytes (one path a line)",
					name, no, GS_INPUT_LINE_MAX);
			rc = GS_ERR_INVALID;
			break;
		}
		if (no == 1) {
			enum gs_input_format fmt;
			const char *why;

			gs_detect_head((const unsigned char *)buf, len, &fmt, &why);
			if (fmt != GS_INPUT_UNKNOWN) {
				gs_error_append("%s: is a trace (%s), not a list of paths "
						"(--inputs FILE lists one path a line)",
						name, gs_input_format_name(fmt));
				rc = GS_ERR_INVALID;
				break;
			}
		}
		rc = add_line(l, name, no, buf, len);
		if (rc)
			break;
	}
	if (!rc && ferror(f)) {
		gs_error_append("%s: read failed: %s", name, strerror(errno));
		rc = GS_ERR_IO;
	}
	fclose(f);
	if (!rc && l->n == before) {
		gs_error_append("%s: lists no path (one a line; empty lines and lines starting "
				"with # are skipped)",
				name);
		rc = GS_ERR_INVALID;
	}
	return rc;
}

/* ---- the same trace twice ---- */

struct entry {
	size_t i; /* index in the list */
	bool ok;  /* stat'ed and comparable */
	dev_t dev;
	ino_t ino;
	off_t size;
	bool regular;
	uint64_t head, whole; /* hashes, once computed */
	size_t same;          /* the first index of its class (itself when none) */
	bool by_content;      /* `same` holds by content, not by inode */
};

static int cmp_inode(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;

	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static int cmp_size(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;

	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static int cmp_index(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;

	return a->i < b->i ? -1 : a->i > b->i;
}

/* Fill buf with up to `cap` bytes (fewer only at the end). -1: error. */
static ssize_t read_full(int fd, unsigned char *buf, size_t cap)
{
	size_t n = 0;

	while (n < cap) {
		ssize_t r = read(fd, buf + n, cap - n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	return (ssize_t)n;
}

/* The hash of the first `limit` bytes of `path` (all: limit 0). false when
 * it cannot be read (then it is compared with nothing). */
static bool hash_file(const char *path, unsigned char *buf, uint64_t limit, uint64_t *h)
{
	uint64_t done = 0, acc = 0x84222325cbf29ce4ull;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	for (;;) {
		size_t want = HEAD_BYTES;
		ssize_t r;

		if (limit && limit - done < want)
			want = (size_t)(limit - done);
		if (!want)
			break;
		r = read_full(fd, buf, want);
		if (r < 0) {
			close(fd);
			return false;
		}
		if (r == 0)
			break;
		acc = gs_hash_combine(acc, gs_hash_bytes(buf, (size_t)r));
		done += (uint64_t)r;
		if ((size_t)r < want)
			break;
	}
	close(fd);
	*h = gs_hash_combine(acc, done);
	return true;
}

/* 1: the two files hold the same bytes; 0: they differ or cannot be read. */
static int same_bytes(const char *a, const char *b, unsigned char *ba, unsigned char *bb)
{
	int fa = open(a, O_RDONLY | O_CLOEXEC), fb = open(b, O_RDONLY | O_CLOEXEC);
	int same = fa >= 0 && fb >= 0;

	while (same) {
		ssize_t ra = read_full(fa, ba, HEAD_BYTES), rb = read_full(fb, bb, HEAD_BYTES);

		if (ra < 0 || rb < 0 || ra != rb || memcmp(ba, bb, (size_t)ra) != 0)
			same = 0;
		if (ra <= 0)
			break;
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

/* Files of one size, e[0..n): find those of one content. */
static void same_content(const struct gs_input_list *l, struct entry *e, size_t n,
			 unsigned char *ba, unsigned char *bb)
{
	bool whole = (uint64_t)e[0].size > HEAD_BYTES;

	for (size_t k = 0; k < n; k++)
		if (e[k].ok)
			e[k].ok = hash_file(l->paths[e[k].i], ba, HEAD_BYTES, &e[k].head);
	for (size_t k = 0; k < n; k++) {
		if (!e[k].ok || e[k].same != e[k].i)
			continue;
		for (size_t m = k + 1; m < n; m++) {
			if (!e[m].ok || e[m].same != e[m].i || e[m].head != e[k].head)
				continue;
			/* Both heads agree: the whole files, hashed once each. */
			if (whole && !e[k].whole &&
			    !hash_file(l->paths[e[k].i], ba, 0, &e[k].whole))
				e[k].ok = false;
			if (whole && !e[m].whole &&
			    !hash_file(l->paths[e[m].i], ba, 0, &e[m].whole))
				e[m].ok = false;
			if (!e[k].ok)
				break;
			if (!e[m].ok || e[m].whole != e[k].whole)
				continue;
			if (same_bytes(l->paths[e[k].i], l->paths[e[m].i], ba, bb)) {
				e[m].same = e[k].i;
				e[m].by_content = true;
			}
		}
	}
}

gs_status gs_input_list_check_distinct(const struct gs_input_list *l)
{
	struct entry *e;
	unsigned char *ba = NULL, *bb = NULL;
	size_t n;
	gs_status rc = GS_OK;

	if (!l) {
		gs_error_append("gs_input_list_check_distinct: no list");
		return GS_ERR_INVALID;
	}
	n = l->n;
	if (n < 2)
		return GS_OK;
	e = calloc(n, sizeof(*e));
	if (!e)
		return gs_nomem();
	for (size_t i = 0; i < n; i++) {
		struct stat sb;

		e[i].i = i;
		e[i].same = i;
		if (strcmp(l->paths[i], GS_INPUT_STDIN) == 0 || stat(l->paths[i], &sb) != 0)
			continue;
		e[i].ok = true;
		e[i].dev = sb.st_dev;
		e[i].ino = sb.st_ino;
		e[i].size = sb.st_size;
		e[i].regular = S_ISREG(sb.st_mode);
	}
	/* One file under several names: each joins the first of them. */
	qsort(e, n, sizeof(*e), cmp_inode);
	for (size_t k = 1; k < n; k++)
		if (e[k].ok && e[k - 1].ok && e[k].dev == e[k - 1].dev && e[k].ino == e[k - 1].ino)
			e[k].same = e[k - 1].same;
	/* Copies: regular files of one non-zero size, one of each file. */
	for (size_t k = 0; k < n; k++)
		if (!e[k].regular || e[k].same != e[k].i || !e[k].size)
			e[k].ok = false;
	qsort(e, n, sizeof(*e), cmp_size);
	for (size_t k = 0, end; k < n; k = end) {
		for (end = k + 1; end < n && e[end].size == e[k].size; end++)
			;
		if (end - k < 2)
			continue;
		if (!ba) {
			ba = malloc(HEAD_BYTES);
			bb = malloc(HEAD_BYTES);
			if (!ba || !bb) {
				rc = gs_nomem();
				break;
			}
		}
		same_content(l, e + k, end - k, ba, bb);
	}
	free(ba);
	free(bb);
	if (!rc) {
		qsort(e, n, sizeof(*e), cmp_index);
		for (size_t i = 0; i < n; i++) {
			if (e[i].same == i)
				continue;
			const char *fa = l->from[e[i].same], *fb = l->from[i];

			gs_error_append("%s%s%s%s and %s%s%s%s are the same trace (same %s); give "
					"each input once",
					l->paths[e[i].same], fa ? " (in " : "", fa ? fa : "",
					fa ? ")" : "", l->paths[i], fb ? " (in " : "", fb ? fb : "",
					fb ? ")" : "", e[i].by_content ? "content" : "file");
			rc = GS_ERR_INVALID;
			break;
		}
	}
	free(e);
	return rc;
}
