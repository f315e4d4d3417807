/* SPDX-License-Identifier: MIT */
/*
 * The .gscope reader: reading ahead on a second CPU (gs_reader_read_all).
 * A helper thread reads, checks, inflates and unpacks the next chunks
 * while the calling thread feeds the sink; the sink sees the same records
 * in the same order, and any chunk the helper finds wrong is read again by
 * gs_reader_next, which reports it.
 */
#include "reader_priv.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define AHEAD_SLOTS 3
/*
 * A slot holds one chunk that inflates to BATCH_SMALL bytes or more,
 * inflated and unpacked by the helper, or a batch of smaller ones in file
 * order, inflated by the helper and unpacked by the reader: at most
 * BATCH_MAX chunks and about BATCH_BYTES inflated. The two threads meet
 * once a slot, so many tiny chunks cost no more than few large ones.
 */
#define BATCH_SMALL (64u << 10)
#define BATCH_BYTES (1u << 20)
#define BATCH_MAX 1024u

enum slot_state {
	SLOT_FREE,
	SLOT_READY, /* chunks checked and inflated, `n` of them */
};

struct ahead_item {
	struct frame f;
	uint64_t offset;
	size_t raw_at; /* its payload: rbuf + raw_at */
};

struct ahead_slot {
	int state;
	bool stop;        /* the helper stopped after these: the reader goes on by itself */
	size_t n;         /* chunks */
	Gscope__Chunk *c; /* the one large chunk, unpacked; NULL for a batch */
	struct ahead_item *items;
	size_t items_cap;
	unsigned char *cbuf, *rbuf;
	size_t cbuf_cap, rbuf_cap;
	struct gs_chunk_fast fast;
};

struct ahead {
	struct gs_reader *r; /* the helper only reads r->fd, r->mem, r->size */
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct ahead_slot slot[AHEAD_SLOTS];
	size_t head, tail; /* next slot to decode, next slot to fill */
	bool quit;
	/* The helper's own. */
	uint64_t offset;
	bool past_end;
	uint64_t raw_total, comp_total; /* of the chunks before `offset` */
	struct rwin win;
	struct inflater inflater;
};

/*
 * The helper's check of the frame header at `off`, as read_frame makes it
 * but without messages (a chunk that fails any check is read again, and
 * reported, by gs_reader_next). false: stop here.
 */
static bool ahead_header(struct gs_reader *r, struct ahead *a, struct frame *f, uint64_t off)
{
	char why[200];

	if (rd_win_read(r, &a->win, off, f->hdr, GS_CHUNK_HEADER_LEN) != GS_CHUNK_HEADER_LEN ||
	    memcmp(f->hdr, GS_CHUNK_MAGIC, 4) != 0 ||
	    gs_get_u32(f->hdr + 24) != (uint32_t)crc32(0, f->hdr, 24))
		return false;
	f->type = gs_get_u16(f->hdr + 4);
	f->flags = gs_get_u16(f->hdr + 6);
	f->raw_len = gs_get_u32(f->hdr + 8);
	f->comp_len = gs_get_u32(f->hdr + 12);
	f->nrecords = gs_get_u32(f->hdr + 16);
	f->crc = gs_get_u32(f->hdr + 20);
	/* Unknown chunk types are left to gs_reader_next, which skips them. */
	return rd_known_chunk_type(f->type) && f->raw_len <= GS_CHUNK_MAX_RAW &&
	       f->comp_len <= GS_CHUNK_MAX_COMPRESSED &&
	       off + GS_CHUNK_HEADER_LEN + f->comp_len <= r->size &&
	       !rd_frame_bound(r, f, a->raw_total, a->comp_total, why, sizeof(why));
}

/* Read, check and inflate the payload of `f` (at `off`) into s->rbuf +
 * raw_at. false: stop here. */
static bool ahead_payload(struct gs_reader *r, struct ahead *a, struct ahead_slot *s,
			  const struct frame *f, uint64_t off, size_t raw_at)
{
	uLongf len = f->raw_len;

	if (gs_vec_reserve((void **)&s->cbuf, &s->cbuf_cap, f->comp_len ? f->comp_len : 1, 1) ||
	    gs_vec_reserve((void **)&s->rbuf, &s->rbuf_cap, raw_at + (f->raw_len ? f->raw_len : 1),
			   1))
		return false;
	return rd_win_read(r, &a->win, off + GS_CHUNK_HEADER_LEN, s->cbuf, f->comp_len) ==
		       (int64_t)f->comp_len &&
	       (uint32_t)crc32(0, s->cbuf, f->comp_len) == f->crc &&
	       rd_inflate_exact(&a->inflater, s->rbuf + raw_at, &len, s->cbuf, f->comp_len) ==
		       Z_OK &&
	       len == f->raw_len;
}

/* Fill slot `s` with the chunks from a->offset on (see BATCH_SMALL). */
static void ahead_fill(struct gs_reader *r, struct ahead *a, struct ahead_slot *s)
{
	size_t raw_at = 0;

	s->n = 0;
	s->c = NULL;
	s->stop = true;
	while (!a->past_end) {
		struct frame f;
		bool large;

		if (!ahead_header(r, a, &f, a->offset))
			return;
		large = f.raw_len >= BATCH_SMALL;
		if (large && s->n) {
			s->stop = false; /* the next slot takes it */
			return;
		}
		if (gs_vec_reserve((void **)&s->items, &s->items_cap, s->n + 1,
				   sizeof(*s->items)) ||
		    !ahead_payload(r, a, s, &f, a->offset, raw_at))
			return;
		if (large) {
			s->c = gs_chunk_fast_unpack(&s->fast, f.raw_len, s->rbuf);
			if (!s->c)
				return;
		}
		s->items[s->n++] =
			(struct ahead_item){.f = f, .offset = a->offset, .raw_at = raw_at};
		raw_at += f.raw_len;
		a->offset += GS_CHUNK_HEADER_LEN + f.comp_len;
		a->raw_total += f.raw_len;
		a->comp_total += f.comp_len;
		a->past_end = f.type == GS_CHUNK_END;
		if (large || s->n == BATCH_MAX || raw_at >= BATCH_BYTES) {
			s->stop = a->past_end;
			return;
		}
	}
}

static void *ahead_main(void *arg)
{
	struct ahead *a = arg;
	bool stop = false;

	while (!stop) {
		struct ahead_slot *s;

		pthread_mutex_lock(&a->mu);
		while (!a->quit && a->slot[a->tail].state != SLOT_FREE)
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->quit) {
			pthread_mutex_unlock(&a->mu);
			break;
		}
		s = &a->slot[a->tail];
		pthread_mutex_unlock(&a->mu);
		ahead_fill(a->r, a, s);
		stop = s->stop;
		pthread_mutex_lock(&a->mu);
		s->state = SLOT_READY;
		a->tail = (a->tail + 1) % AHEAD_SLOTS;
		pthread_cond_broadcast(&a->cv);
		pthread_mutex_unlock(&a->mu);
	}
	return NULL;
}

/*
 * Feed the chunks of one slot to the sink, exactly as gs_reader_next would
 * have (decode_chunk, then chunk_done). *go_on: false when the reader must
 * go on by itself from r->offset (a chunk the helper did not take, or one
 * its unpacking refuses: gs_reader_next reads it again and reports it).
 */
static gs_status ahead_feed(struct gs_reader *r, struct gs_sink *sink, struct ahead_slot *s,
			    bool *go_on)
{
	*go_on = false;
	for (size_t i = 0; i < s->n; i++) {
		const struct ahead_item *it = &s->items[i];
		struct gs_chunk_fast *fast = s->c ? &s->fast : &r->fast;
		Gscope__Chunk *c = s->c;
		gs_status rc;

		if (it->offset != r->offset)
			break;
		if (!c)
			c = gs_chunk_fast_unpack(fast, it->f.raw_len, s->rbuf + it->raw_at);
		if (!c)
			break;
		rc = rd_decode_chunk(r, sink, &it->f, c);
		gs_chunk_fast_free(fast, c);
		s->c = NULL;
		if (rc == GS_OK)
			rc = rd_chunk_done(r, sink, &it->f);
		if (rc || r->ended)
			return rc;
		if (i + 1 == s->n)
			*go_on = !s->stop;
	}
	gs_chunk_fast_free(&s->fast, s->c); /* a chunk left for gs_reader_next */
	s->c = NULL;
	return GS_OK;
}

/*
 * Feed the chunks the helper prepared to the sink, in file order, until the
 * helper stops, the file ends or an error. Returns GS_OK to let
 * gs_reader_next go on from r->offset, or the error that ends the read.
 */
gs_status rd_read_ahead(struct gs_reader *r, struct gs_sink *sink)
{
	struct ahead *a = calloc(1, sizeof(*a));
	gs_status rc = GS_OK;
	bool go_on = true;

	if (!a)
		return GS_OK; /* no memory to spare: read one chunk at a time */
	a->r = r;
	a->offset = r->offset;
	a->raw_total = r->raw_total;
	a->comp_total = r->comp_total;
	for (int i = 0; i < AHEAD_SLOTS; i++)
		gs_chunk_fast_init(&a->slot[i].fast);
	if (pthread_mutex_init(&a->mu, NULL) != 0) {
		free(a);
		return GS_OK;
	}
	if (pthread_cond_init(&a->cv, NULL) != 0 ||
	    pthread_create(&a->th, NULL, ahead_main, a) != 0) {
		pthread_mutex_destroy(&a->mu);
		free(a);
		return GS_OK;
	}
	while (go_on && !rc) {
		struct ahead_slot *s = &a->slot[a->head];

		pthread_mutex_lock(&a->mu);
		while (s->state == SLOT_FREE)
			pthread_cond_wait(&a->cv, &a->mu);
		pthread_mutex_unlock(&a->mu);
		rc = ahead_feed(r, sink, s, &go_on);
		pthread_mutex_lock(&a->mu);
		s->state = SLOT_FREE;
		a->head = (a->head + 1) % AHEAD_SLOTS;
		a->quit = !go_on || rc;
		pthread_cond_broadcast(&a->cv);
		pthread_mutex_unlock(&a->mu);
	}
	pthread_join(a->th, NULL);
	for (int i = 0; i < AHEAD_SLOTS; i++) {
		gs_chunk_fast_free(&a->slot[i].fast, a->slot[i].c);
		gs_chunk_fast_fini(&a->slot[i].fast);
		free(a->slot[i].items);
		free(a->slot[i].cbuf);
		free(a->slot[i].rbuf);
	}
	free(a->win.buf);
	rd_inflater_fini(&a->inflater);
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
	free(a);
	return rc;
}
