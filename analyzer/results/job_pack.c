/* SPDX-License-Identifier: MIT */
/*
 * A rank's summary as bytes and back (gs_js_pack, gs_js_unpack), for
 * gpuscope-mpi.
 */
#include "job_sum.h"

#include <gpuscope/vec.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------------ */
/* Summaries as bytes                                                         */
/* ------------------------------------------------------------------------ */

/*
 * The rank's struct (pointers zeroed), its GPUs, each member's struct and
 * kernels, its notes, its strings: the in-memory layouts, for processes of
 * one build on one architecture (an MPI job's).
 */
struct js_buf {
	char *p;
	size_t len, cap;
};

static gs_status js_put(struct js_buf *b, const void *src, size_t n)
{
	if (n > SIZE_MAX - b->len)
		return gs_nomem();
	if (gs_vec_grow((void **)&b->p, &b->cap, b->len + n, 1) != GS_OK)
		return GS_ERR_NOMEM; /* the cause is appended */
	if (n)
		memcpy(b->p + b->len, src, n);
	b->len += n;
	return GS_OK;
}

gs_status gs_js_pack(const struct gs_js_rank *r, char **buf, size_t *len)
{
	struct js_buf b = {0};
	struct gs_js_rank head = *r;
	gs_status rc;

	head.gpus = NULL;
	head.m = NULL;
	head.notes = NULL;
	head.steps = NULL;
	head.pool = NULL;
	head.pool_cap = 0;
	rc = js_put(&b, &head, sizeof(head));
	if (rc == GS_OK)
		rc = js_put(&b, r->gpus, r->n_gpus * sizeof(*r->gpus));
	for (size_t i = 0; i < r->n_m && rc == GS_OK; i++) {
		struct gs_js_member m = r->m[i];

		m.k = NULL;
		rc = js_put(&b, &m, sizeof(m));
		if (rc == GS_OK)
			rc = js_put(&b, r->m[i].k, r->m[i].n * sizeof(*r->m[i].k));
	}
	if (rc == GS_OK)
		rc = js_put(&b, r->notes, r->n_notes * sizeof(*r->notes));
	if (rc == GS_OK)
		rc = js_put(&b, r->steps, r->n_steps * sizeof(*r->steps));
	if (rc == GS_OK)
		rc = js_put(&b, r->pool, r->pool_len);
	if (rc != GS_OK) {
		free(b.p);
		return rc;
	}
	*buf = b.p;
	*len = b.len;
	return GS_OK;
}

/* The next n items of `size` bytes from buf, copied; false past its end. */
static bool js_get(const char *buf, size_t len, size_t *at, void *dst, uint64_t n, size_t size)
{
	if (n > (len - *at) / (size ? size : 1))
		return false;
	if (n)
		memcpy(dst, buf + *at, (size_t)n * size);
	*at += (size_t)n * size;
	return true;
}

static void *js_alloc(uint64_t n, size_t size)
{
	return calloc(n ? (size_t)n : 1, size);
}

gs_status gs_js_unpack(const char *buf, size_t len, struct gs_js_rank **out)
{
	struct gs_js_rank *r = calloc(1, sizeof(*r));
	size_t at = 0;
	bool ok;

	*out = NULL;
	if (!r)
		return gs_nomem();
	ok = js_get(buf, len, &at, r, 1, sizeof(*r));
	if (ok) {
		uint64_t n_m = r->n_m;

		r->n_m = 0;
		r->gpus = js_alloc(r->n_gpus, sizeof(*r->gpus));
		r->m = js_alloc(n_m, sizeof(*r->m));
		r->notes = js_alloc(r->n_notes, sizeof(*r->notes));
		r->steps = js_alloc(r->n_steps, sizeof(*r->steps));
		r->pool = js_alloc(r->pool_len + 1, 1);
		r->pool_cap = r->pool_len + 1;
		if (!r->gpus || !r->m || !r->notes || !r->steps || !r->pool) {
			gs_js_free(r);
			return gs_nomem();
		}
		ok = js_get(buf, len, &at, r->gpus, r->n_gpus, sizeof(*r->gpus));
		for (uint64_t i = 0; ok && i < n_m; i++) {
			struct gs_js_member *m = &r->m[i];

			ok = js_get(buf, len, &at, m, 1, sizeof(*m));
			if (!ok)
				break;
			m->k = js_alloc(m->n, sizeof(*m->k));
			if (!m->k) {
				gs_js_free(r);
				return gs_nomem();
			}
			r->n_m++;
			ok = js_get(buf, len, &at, m->k, m->n, sizeof(*m->k));
		}
		if (ok)
			ok = js_get(buf, len, &at, r->notes, r->n_notes, sizeof(*r->notes));
		if (ok)
			ok = js_get(buf, len, &at, r->steps, r->n_steps, sizeof(*r->steps));
		if (ok)
			ok = js_get(buf, len, &at, r->pool, r->pool_len, 1);
		ok = ok && at == len && (!r->pool_len || r->pool[r->pool_len - 1] == '\0');
	}
	if (!ok) {
		gs_js_free(r);
		gs_error_append("job summary: %zu bytes that are not one", len);
		return GS_ERR_FORMAT;
	}
	*out = r;
	return GS_OK;
}
