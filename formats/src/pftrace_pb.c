/* SPDX-License-Identifier: MIT */
/*
 * The Perfetto writer's encoding (pftrace.c): protobuf wire format into a
 * growing buffer (varints, tags, fixed64, bytes, nested messages whose
 * length byte is patched or moved up by proto_end), and the map of strings
 * by content that gives names and values their interned ids.
 */
#include <stdlib.h>
#include <string.h>

#include "pftrace_priv.h"

/* ------------------------------------------------------------------------ */
/* Encoding                                                                 */
/* ------------------------------------------------------------------------ */

static bool proto_room(struct pbuf *b, size_t n)
{
	if (b->failed)
		return false;
	if (b->len + n > b->cap) {
		size_t nc = b->cap ? b->cap : 256;
		uint8_t *np;

		while (nc < b->len + n)
			nc *= 2;
		np = realloc(b->p, nc);
		if (!np) {
			b->failed = true;
			return false;
		}
		b->p = np;
		b->cap = nc;
	}
	return true;
}

size_t pftrace_varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

size_t pftrace_varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static void proto_varint(struct pbuf *b, uint64_t v)
{
	if (proto_room(b, 10))
		b->len += pftrace_varint_put(b->p + b->len, v);
}

static void proto_tag(struct pbuf *b, uint32_t field, unsigned wt)
{
	proto_varint(b, (uint64_t)field << 3 | wt);
}

void proto_uint(struct pbuf *b, uint32_t field, uint64_t v)
{
	proto_tag(b, field, WT_VARINT);
	proto_varint(b, v);
}

/* int32 / int64 fields: two's complement, ten bytes when negative. */
void proto_int(struct pbuf *b, uint32_t field, int64_t v)
{
	proto_uint(b, field, (uint64_t)v);
}

void proto_fixed64(struct pbuf *b, uint32_t field, uint64_t v)
{
	proto_tag(b, field, WT_FIXED64);
	if (!proto_room(b, 8))
		return;
	for (int i = 0; i < 8; i++)
		b->p[b->len++] = (uint8_t)(v >> (8 * i));
}

void proto_bytes(struct pbuf *b, uint32_t field, const void *p, size_t n)
{
	proto_tag(b, field, WT_LEN);
	proto_varint(b, n);
	if (proto_room(b, n)) {
		if (n)
			memcpy(b->p + b->len, p, n);
		b->len += n;
	}
}

void proto_str(struct pbuf *b, uint32_t field, const char *s)
{
	proto_bytes(b, field, s, strlen(s));
}

/* A nested message: its length byte reserved, patched by proto_end. */
void proto_begin(struct pbuf *b, uint32_t field)
{
	proto_tag(b, field, WT_LEN);
	if (b->depth == PROTO_DEPTH) {
		b->failed = true; /* a programming error: never this deep */
		return;
	}
	b->open[b->depth++] = b->len;
	if (proto_room(b, 1))
		b->p[b->len++] = 0;
}

void proto_end(struct pbuf *b)
{
	size_t at, n, k;

	if (!b->depth)
		return;
	at = b->open[--b->depth];
	if (b->failed)
		return;
	n = b->len - (at + 1);
	k = pftrace_varint_len(n);
	if (k > 1) {
		if (!proto_room(b, k - 1))
			return;
		memmove(b->p + at + k, b->p + at + 1, n);
		b->len += k - 1;
	}
	pftrace_varint_put(b->p + at, n);
}

void proto_reset(struct pbuf *b)
{
	b->len = 0;
	b->depth = 0;
}

/* ------------------------------------------------------------------------ */
/* Interning                                                                */
/* ------------------------------------------------------------------------ */

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ULL;
	return h;
}

void pftrace_strmap_fini(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->slot[i].s);
	free(m->slot);
	memset(m, 0, sizeof(*m));
}

static gs_status strmap_grow(struct strmap *m)
{
	size_t nc = m->cap ? m->cap * 2 : 64;
	struct strmap_slot *ns = calloc(nc, sizeof(*ns));

	if (!ns)
		return gs_nomem();
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->slot[i].s)
			continue;
		for (j = m->slot[i].hash & (nc - 1); ns[j].s; j = (j + 1) & (nc - 1))
			;
		ns[j] = m->slot[i];
	}
	free(m->slot);
	m->slot = ns;
	m->cap = nc;
	return GS_OK;
}

/* The iid of `s` (*fresh: not yet interned on sequence `seq`; a new
 * string, *added, gets iid next_iid). */
gs_status pftrace_strmap_get(struct strmap *m, const char *s, uint64_t next_iid, uint32_t seq,
			     uint64_t *iid, bool *fresh, bool *added)
{
	uint64_t h = str_hash(s);
	size_t j;

	*fresh = *added = false;
	if ((m->n + 1) * 2 > m->cap) {
		gs_status rc = strmap_grow(m);

		if (rc)
			return rc;
	}
	for (j = h & (m->cap - 1); m->slot[j].s; j = (j + 1) & (m->cap - 1)) {
		if (m->slot[j].hash == h && !strcmp(m->slot[j].s, s)) {
			*iid = m->slot[j].iid;
			*fresh = m->slot[j].seq != seq;
			m->slot[j].seq = seq;
			return GS_OK;
		}
	}
	m->slot[j].s = strdup(s);
	if (!m->slot[j].s)
		return gs_nomem();
	m->slot[j].hash = h;
	m->slot[j].iid = next_iid;
	m->slot[j].seq = seq;
	m->n++;
	*iid = next_iid;
	*fresh = *added = true;
	return GS_OK;
}
