/* SPDX-License-Identifier: MIT */
/*
 * The Kineto scanner's fast way through events (kin_scan_event: positions
 * from 64-byte masks) against the byte-at-a-time code it stands in for
 * (kin_scan_value, then kin_find_members): on realistic events, on
 * thousands of randomly damaged ones (bytes changed, inserted, removed),
 * under small limits and across buffer refills, with each mask
 * implementation this CPU runs (portable, SSE2, AVX2). Same status, same
 * error text, same position, same members; members of args the same as
 * kin_find_members finds, and where the scanner says cJSON would read args
 * the same, the same values as cJSON gives. Also the masks themselves
 * against each other on random bytes.
 */
#include <gpuscope/error.h>
#include <gpuscope/import.h>

#include <cJSON.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gzin.h"
#include "import_priv.h"
#include "kineto_blocks.h"
#include "kineto_scan.h"

/* ---- a deterministic generator ---- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rng_state = x;
	return x;
}

static size_t rnd_below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

/* ---- growing text ---- */

struct text {
	char *p;
	size_t n, cap;
};

static void put(struct text *t, const char *s, size_t n)
{
	if (t->n + n + 1 > t->cap) {
		t->cap = (t->n + n + 1) * 2;
		t->p = realloc(t->p, t->cap);
		assert_non_null(t->p);
	}
	memcpy(t->p + t->n, s, n);
	t->n += n;
	t->p[t->n] = '\0';
}

static void puts_(struct text *t, const char *s)
{
	put(t, s, strlen(s));
}

/* Events as the profilers write them, and some that are odd but valid. */
static const char *const seeds[] = {
	"{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void at::native::vectorized_elementwise_"
	"kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, "
	"at::native::FillFunctor<float>, at::detail::Array<char*, 1>)\", \"pid\": 0, \"tid\": 7,"
	"\n    \"ts\": 1718294400000043.958, \"dur\": 360.763,\n    \"args\": {\n      \"External "
	"id\": 2, \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": "
	"1, \"registers per thread\": 16, \"shared memory\": 0, \"blocks per SM\": 0.5, \"warps "
	"per SM\": 2, \"grid\": [66, 1, 1], \"block\": [128, 1, 1], \"est. achieved occupancy "
	"%\": 3\n    }\n  }",
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":4242,"
	"\"tid\":4242,\"ts\":1718294400000038.470,\"dur\":6.051,\"args\":{\"External id\":2,"
	"\"cbid\":211,\"correlation\":1}}",
	"{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::addmm\", \"pid\": 4242, \"tid\": "
	"4242, \"ts\": 1718294400000030.000, \"dur\": 20.5, \"args\": {\"External id\": 5, "
	"\"Record function id\": 0, \"Ev Idx\": 4, \"Input Dims\": [[512], [64, 256], [256, "
	"512], [], []], \"Input type\": [\"float\", \"float\", \"float\", \"Scalar\", "
	"\"Scalar\"], \"Input Strides\": [[1], [256, 1], [1, 256], [], []], \"Concrete Inputs\": "
	"[\"\", \"\", \"\", \"1\", \"1\"], \"Fwd thread id\": 1, \"Sequence number\": 120}}",
	"{\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy HtoD (Pinned -> Device)\", "
	"\"pid\": 0, \"tid\": \"stream 20\", \"ts\": 5, \"dur\": 3, \"args\": {\"device\": 0, "
	"\"context\": 1, \"stream\": 20, \"correlation\": 9, \"bytes\": 8453632, \"memory "
	"bandwidth (GB/s)\": 23.43, \"kind\": \"HtoD\", \"flag\": true, \"none\": null, "
	"\"neg\": -0, \"exp\": 1.5e-3, \"big\": 12345678901234567890, \"empty\": []}}",
	"{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 0, \"tid\": 0, \"args\": {\"name\": "
	"\"python \\\"train\\\".py\\n\\u00e9\\ud83d\\ude00\"}}",
	"{\"ph\": \"s\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"pid\": 4242, \"tid\": 4242, "
	"\"ts\": 38.470, \"id\": 1}",
	"{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Stream Wait Event\", \"pid\": 0, "
	"\"tid\": 7, \"ts\": 12.5, \"dur\": 0.1, \"args\": {\"cuda_sync_kind\": \"Stream Wait "
	"Event\", \"wait_on_stream\": 20, \"wait_on_cuda_event_record_corr_id\": 3, \"device\": "
	"0, \"stream\": 7, \"correlation\": 4, \"dup\": 1, \"dup\": 2}}",
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce\",\"pid\":0,\"tid\":13,"
	"\"ts\":100,\"dur\":50,\"args\":{\"device\":0,\"stream\":13,\"correlation\":77,"
	"\"Collective name\":\"allreduce\",\"Process Group Name\":\"0\",\"Process Group "
	"Description\":\"default_pg\",\"Process Group Ranks\":\"[0, 1]\",\"dtype\":\"Float\","
	"\"In msg nelems\":1048576,\"Out msg nelems\":1048576,\"Group size\":2,\"Seq\":3}}",
	"{ }",
	"{\"ph\":\"i\",\"s\":\"t\",\"name\":\"x\\\\\",\"args\":{\"a\\\"b\":{\"c\":[{\"d\":[1,[2,[3]]]}]}}}",
	"{\"ts\": 1, \"ts\": 2, \"args\": 5, \"args\": {\"x\": 1}, \"name\": \"\\\\\\\\\\\"\"}",
	"{\"args\": {\"a\": NaN, \"b\": Infinity}, \"ph\": \"X\"}",
	"{\"args\": {\"a\": 01, \"b\": 1., \"c\": .5, \"d\": +1, \"e\": 0x10, \"f\": tru}}",
};

/* Bytes that change what the scanner sees. */
static const char specials[] = "\"\\{}[]:,  \n\t\r\x01\x00x1-.eE";

static void mutate(struct text *t)
{
	int n = 1 + (int)rnd_below(3);

	for (int i = 0; i < n && t->n; i++) {
		size_t at = rnd_below(t->n);
		char c = specials[rnd_below(sizeof(specials) - 1)];

		switch (rnd_below(4)) {
		case 0:
			t->p[at] = c;
			break;
		case 1:
			put(t, "", 1); /* room for one more */
			t->n--;
			memmove(t->p + at + 1, t->p + at, t->n - at);
			t->p[at] = c;
			t->n++;
			break;
		case 2:
			memmove(t->p + at, t->p + at + 1, t->n - at - 1);
			t->n--;
			break;
		default:
			/* A few bytes doubled. */
			if (at + 4 <= t->n) {
				char tmp[4];

				memcpy(tmp, t->p + at, 4);
				put(t, "    ", 4);
				t->n -= 4;
				memmove(t->p + at + 4, t->p + at, t->n - at);
				memcpy(t->p + at, tmp, 4);
				t->n += 4;
			}
			break;
		}
	}
}

/* ---- one pass over a bare event array, as kin_events_array walks it ---- */

struct seen {
	gs_status rc;
	char err[256];
	uint64_t off; /* input offset of the element */
	size_t n;
	bool object, members_ok;
	long f_off[EV_COUNT]; /* -1: absent */
	size_t f_n[EV_COUNT];
};

struct walk {
	struct seen *v;
	size_t n, cap;
	size_t fast; /* events the fast way took */
	size_t args_json, args_members;
};

static void walk_add(struct walk *w, const struct seen *s)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 64;
		w->v = realloc(w->v, w->cap * sizeof(*w->v));
		assert_non_null(w->v);
	}
	w->v[w->n++] = *s;
}

static void last_error(char *out, size_t cap)
{
	const char *m = gs_error_message(0);

	snprintf(out, cap, "%s", m ? m : "");
}

/* The members of args as kin_find_members finds them, from the scanner's
 * list, checked against the text; and against cJSON when it says so. */
static void check_args(const struct kin_event *ev)
{
	const struct kin_span *a = &ev->f[EV_ARGS];
	const char *keys[KIN_ARGS_MAX + 2];
	char keybuf[KIN_ARGS_MAX + 2][64];
	struct kin_span got[KIN_ARGS_MAX + 2], want[KIN_ARGS_MAX + 2];
	size_t nk = 0;
	bool ok_got, ok_want;

	if (ev->args_state == KIN_ARGS_UNREAD || a->n == 0)
		return;
	for (uint32_t i = 0; i < ev->nargs && nk < KIN_ARGS_MAX; i++) {
		size_t kl = ev->args[i].klen < 63 ? ev->args[i].klen : 63;

		memcpy(keybuf[nk], ev->args[i].key, kl);
		keybuf[nk][kl] = '\0';
		keys[nk] = keybuf[nk];
		nk++;
	}
	keys[nk++] = "absent";
	keys[nk++] = "";
	ok_got = kin_event_args_members(ev, keys, nk, got);
	ok_want = kin_find_members(a->p, a->n, keys, nk, want);
	assert_true(ok_got == ok_want);
	for (size_t i = 0; i < nk; i++) {
		assert_true(got[i].n == want[i].n);
		assert_true(got[i].n == 0 || got[i].p == want[i].p);
	}
	if (ev->args_state != KIN_ARGS_JSON)
		return;
	{
		cJSON *tree = cJSON_ParseWithLength(a->p, a->n), *it;
		uint32_t count = 0;

		assert_non_null(tree);
		assert_true(cJSON_IsObject(tree));
		cJSON_ArrayForEach(it, tree)
		{
			count++;
		}
		assert_int_equal(count, ev->nargs);
		for (uint32_t i = 0; i < ev->nargs; i++) {
			const struct kin_member *m =
				kin_event_arg(ev, ev->args[i].key, ev->args[i].klen);
			const cJSON *c;
			char key[256];

			assert_non_null(m);
			assert_true(m->klen < sizeof(key));
			memcpy(key, m->key, m->klen);
			key[m->klen] = '\0';
			c = cJSON_GetObjectItemCaseSensitive(tree, key);
			assert_non_null(c);
			switch (m->type) {
			case KA_STRING:
				assert_true(cJSON_IsString(c));
				assert_true(strlen(c->valuestring) <= m->vlen - 2);
				assert_memory_equal(c->valuestring, m->val + 1,
						    strlen(c->valuestring));
				break;
			case KA_NUMBER: {
				double d = kin_number_value(m->val, m->vlen);

				assert_true(cJSON_IsNumber(c));
				assert_memory_equal(&d, &c->valuedouble, sizeof(d));
				break;
			}
			case KA_TRUE:
				assert_true(cJSON_IsTrue(c));
				break;
			case KA_FALSE:
				assert_true(cJSON_IsFalse(c));
				break;
			case KA_NULL:
				assert_true(cJSON_IsNull(c));
				break;
			case KA_ARRAY: {
				const cJSON *e;

				assert_true(cJSON_IsArray(c));
				cJSON_ArrayForEach(e, c)
				{
					assert_true(cJSON_IsNumber(e));
				}
				break;
			}
			default:
				fail_msg("a KIN_ARGS_JSON member of type %d", m->type);
			}
		}
		cJSON_Delete(tree);
	}
}

/*
 * Walk the bare array `doc` the way kin_events_array does: `fast` through
 * kin_scan_event, else through kin_scan_value and kin_find_members. Stops
 * at the first error (recorded).
 */
static void walk_doc(const char *doc, size_t n, const struct gs_import_limits *lim, bool fast,
		     size_t cap, struct walk *w)
{
	struct gs_import_limits L;
	struct kin_scan k;
	struct kin_event ev;
	struct gs_gzin *in;
	int c;

	memset(&k, 0, sizeof(k));
	gs_import_limits_resolve(&L, lim);
	assert_int_equal(gs_gzin_open_mem(doc, n, "t.json", &in), GS_OK);
	k.name = "t.json";
	k.lim = &L;
	k.in = in;
	k.cap = cap;
	k.buf = malloc(cap);
	assert_non_null(k.buf);
	gs_error_clear();
	assert_int_equal(kin_peek(&k, &c), GS_OK);
	assert_int_equal(c, '[');
	k.pos++;
	for (;;) {
		struct seen s;
		size_t start;

		memset(&s, 0, sizeof(s));
		s.rc = kin_peek(&k, &c);
		if (s.rc || c < 0 || c == ']')
			break;
		s.off = kin_here(&k);
		s.object = c == '{';
		gs_error_clear();
		if (c == '{' && fast) {
			s.rc = kin_scan_event(&k, 1, &ev);
			if (!s.rc && k.cur.live)
				w->fast++;
		} else {
			s.rc = kin_scan_value(&k, 1, c == '{', &start);
			if (!s.rc && c == '{') {
				ev.p = k.buf + start;
				ev.n = k.pos - start;
				ev.members_ok =
					kin_find_members(ev.p, ev.n, kin_ev_keys, EV_COUNT, ev.f);
				ev.args_state = KIN_ARGS_UNREAD;
			}
		}
		if (s.rc) {
			last_error(s.err, sizeof(s.err));
			walk_add(w, &s);
			break;
		}
		if (s.object) {
			s.n = ev.n;
			s.members_ok = ev.members_ok;
			for (int i = 0; i < EV_COUNT && ev.members_ok; i++) {
				s.f_off[i] = ev.f[i].n ? (long)(ev.f[i].p - ev.p) : -1;
				s.f_n[i] = ev.f[i].n;
			}
			if (ev.members_ok) {
				if (ev.args_state == KIN_ARGS_JSON)
					w->args_json++;
				else if (ev.args_state == KIN_ARGS_MEMBERS)
					w->args_members++;
				check_args(&ev);
			}
		}
		walk_add(w, &s);
		if (kin_peek(&k, &c) || c != ',')
			break;
		k.pos++;
	}
	gs_gzin_close(in);
	free(k.buf);
	free(k.stack);
	free(k.scratch[0]);
	free(k.scratch[1]);
}

static void same_walks(const struct walk *a, const struct walk *b)
{
	assert_int_equal(a->n, b->n);
	if (a->n && (!a->v || !b->v)) {
		fail();
		return;
	}
	for (size_t i = 0; i < a->n; i++) {
		const struct seen *x = &a->v[i], *y = &b->v[i];

		assert_int_equal(x->rc, y->rc);
		assert_string_equal(x->err, y->err);
		assert_int_equal(x->off, y->off);
		assert_int_equal(x->n, y->n);
		assert_int_equal(x->members_ok, y->members_ok);
		for (int f = 0; f < EV_COUNT; f++) {
			assert_int_equal(x->f_off[f], y->f_off[f]);
			assert_int_equal(x->f_n[f], y->f_n[f]);
		}
	}
}

static const enum kin_blocks_impl impls[] = {KIN_BLOCKS_PORTABLE, KIN_BLOCKS_SSE2, KIN_BLOCKS_AVX2};

/* The document through both walks, with every implementation this CPU
 * runs; returns how many events the fast way took (with the last one). */
static size_t compare_doc(const char *doc, size_t n, const struct gs_import_limits *lim, size_t cap)
{
	struct walk ref = {0};
	size_t fast = 0;

	walk_doc(doc, n, lim, false, cap, &ref);
	for (size_t i = 0; i < sizeof(impls) / sizeof(impls[0]); i++) {
		struct walk got = {0};

		if (!kin_blocks_force(impls[i]))
			continue;
		walk_doc(doc, n, lim, true, cap, &got);
		same_walks(&ref, &got);
		fast = got.fast;
		free(got.v);
	}
	kin_blocks_force(KIN_BLOCKS_AUTO);
	free(ref.v);
	return fast;
}

/* A document of events from the seeds, some damaged, separated by blanks
 * of random length. */
static void make_doc(struct text *t, size_t events, int damage_pct)
{
	static const char *const gaps[] = {"", " ", "\n  ", "\n", "\t", "\r\n    "};

	t->n = 0;
	puts_(t, "[");
	for (size_t i = 0; i < events; i++) {
		struct text e = {0};

		puts_(&e, seeds[rnd_below(sizeof(seeds) / sizeof(seeds[0]))]);
		if ((int)rnd_below(100) < damage_pct)
			mutate(&e);
		if (i)
			puts_(t, ",");
		puts_(t, gaps[rnd_below(sizeof(gaps) / sizeof(gaps[0]))]);
		put(t, e.p, e.n);
		puts_(t, gaps[rnd_below(sizeof(gaps) / sizeof(gaps[0]))]);
		free(e.p);
	}
	puts_(t, "]");
}

static void test_seeds_fast(void **state)
{
	struct text t = {0};
	size_t fast;

	(void)state;
	rng_state = 0x9e3779b97f4a7c15ull;
	make_doc(&t, 200, 0);
	fast = compare_doc(t.p, t.n, NULL, (size_t)KIN_READ_CHUNK * 2);
	/* Valid events inside the buffer take the fast way. */
	assert_int_equal(fast, 200);
	free(t.p);
}

static void test_damaged(void **state)
{
	struct text t = {0};
	size_t fast = 0, events = 0, errors = 0, malformed = 0, json = 0, members = 0;

	(void)state;
	rng_state = 0x243f6a8885a308d3ull;
	for (int round = 0; round < 20000; round++) {
		struct walk w = {0};

		make_doc(&t, 1 + rnd_below(4), 100);
		compare_doc(t.p, t.n, NULL, (size_t)KIN_READ_CHUNK * 2);
		walk_doc(t.p, t.n, NULL, true, (size_t)KIN_READ_CHUNK * 2, &w);
		fast += w.fast;
		events += w.n;
		json += w.args_json;
		members += w.args_members;
		for (size_t i = 0; i < w.n; i++) {
			errors += w.v[i].rc != 0;
			malformed += w.v[i].object && !w.v[i].rc && !w.v[i].members_ok;
		}
		free(w.v);
	}
	/* The damage reaches every outcome: taken fast, an error, members
	 * not found, args read for cJSON and for kin_find_members only. */
	assert_true(fast > events / 3 && errors > events / 10 && malformed > events / 10);
	assert_true(json > events / 20 && members > events / 20);
	free(t.p);
}

static void test_small_limits(void **state)
{
	struct gs_import_limits lim;
	struct text t = {0};

	(void)state;
	rng_state = 0x13198a2e03707344ull;
	for (int round = 0; round < 5000; round++) {
		memset(&lim, 0, sizeof(lim));
		lim.max_depth = (uint32_t)(1 + rnd_below(6));
		lim.max_string_bytes = 1 + rnd_below(120);
		lim.max_event_bytes = 8 + rnd_below(700);
		make_doc(&t, 1 + rnd_below(6), 30);
		compare_doc(t.p, t.n, &lim, (size_t)KIN_READ_CHUNK * 2);
	}
	free(t.p);
}

/* Events across the buffer's refills: a document of about 3 MB read 512
 * KiB at a time (the buffer grows and moves). */
static void test_refills(void **state)
{
	struct text t = {0};
	size_t fast;

	(void)state;
	rng_state = 0xa4093822299f31d0ull;
	make_doc(&t, 6000, 0);
	fast = compare_doc(t.p, t.n, NULL, (size_t)KIN_READ_CHUNK * 2);
	/* All but those the buffer holds in part (one a refill). */
	assert_true(fast > 5900 && fast < 6000);
	free(t.p);
}

/* The masks of every implementation are the same, on random bytes drawn
 * mostly from the ones that matter. */
static void test_blocks_same(void **state)
{
	static const char alphabet[] = "\"\\{}[]:, \t\n\r\x01\x1f\x7f\x80\xff"
				       "aZ09-.";
	char buf[64];

	(void)state;
	rng_state = 0x082efa98ec4e6c89ull;
	for (int round = 0; round < 20000; round++) {
		struct kin_block want, got;

		for (int i = 0; i < 64; i++)
			buf[i] = rnd_below(4) ? alphabet[rnd_below(sizeof(alphabet) - 1)] :
						(char)rnd();
		assert_true(kin_blocks_force(KIN_BLOCKS_PORTABLE));
		kin_blocks_classifier()(buf, &want);
		for (size_t i = 1; i < sizeof(impls) / sizeof(impls[0]); i++) {
			if (!kin_blocks_force(impls[i]))
				continue;
			kin_blocks_classifier()(buf, &got);
			assert_memory_equal(&want, &got, sizeof(want));
		}
	}
	/* And the portable one is right, byte by byte. */
	for (int c = 0; c < 256; c++) {
		struct kin_block b;

		memset(buf, 'a', sizeof(buf));
		buf[17] = (char)c;
		assert_true(kin_blocks_force(KIN_BLOCKS_PORTABLE));
		kin_blocks_classifier()(buf, &b);
		assert_true(((b.quote >> 17) & 1) == (c == '"'));
		assert_true(((b.bslash >> 17) & 1) == (c == '\\'));
		assert_true(((b.op >> 17) & 1) ==
			    (c == '{' || c == '}' || c == '[' || c == ']' || c == ':' || c == ','));
		assert_true(((b.ws >> 17) & 1) ==
			    (c == ' ' || c == '\t' || c == '\n' || c == '\r'));
		assert_true(((b.ctl >> 17) & 1) ==
			    (c < 0x20 && c != '\t' && c != '\n' && c != '\r'));
		assert_true(((b.quote | b.bslash | b.op | b.ws | b.ctl) & ~((uint64_t)1 << 17)) ==
			    0);
	}
	kin_blocks_force(KIN_BLOCKS_AUTO);
}

/* Runs of backslashes across block boundaries: a string of k backslashes
 * then a quote, at every offset around 64. */
static void test_escape_runs(void **state)
{
	struct text t = {0};

	(void)state;
	for (int pad = 40; pad < 72; pad++) {
		for (int k = 0; k < 6; k++) {
			t.n = 0;
			puts_(&t, "[{\"name\": \"");
			for (int i = 0; i < pad; i++)
				puts_(&t, "a");
			for (int i = 0; i < k; i++)
				puts_(&t, "\\");
			/* An odd run escapes the quote: the string goes on. */
			puts_(&t, k & 1 ? "\"\", \"ph\": \"X\"}]" : "\", \"ph\": \"X\"}]");
			compare_doc(t.p, t.n, NULL, (size_t)KIN_READ_CHUNK * 2);
		}
	}
	free(t.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocks_same),  cmocka_unit_test(test_seeds_fast),
		cmocka_unit_test(test_escape_runs),  cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_small_limits), cmocka_unit_test(test_refills),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
