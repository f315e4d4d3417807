/* SPDX-License-Identifier: MIT */
/*
 * Character classes of 64 bytes of JSON text as bit masks (see
 * kineto_blocks.h): a portable version, SSE2 and AVX2, and the choice
 * between them at run time.
 */
#include "kineto_blocks.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#define KIN_X86 1
#include <immintrin.h>
#else
#define KIN_X86 0
#endif

/* ------------------------------------------------------------------------ */
/* Portable: a byte at a time                                               */
/* ------------------------------------------------------------------------ */

enum {
	KC_QUOTE = 1,
	KC_BSLASH = 2,
	KC_OP = 4,
	KC_WS = 8,
	KC_CTL = 16,
};

static unsigned byte_class(unsigned char ch)
{
	switch (ch) {
	case '"':
		return KC_QUOTE;
	case '\\':
		return KC_BSLASH;
	case '{':
	case '}':
	case '[':
	case ']':
	case ':':
	case ',':
		return KC_OP;
	case ' ':
	case '\t':
	case '\n':
	case '\r':
		return KC_WS;
	default:
		return ch < 0x20 ? KC_CTL : 0;
	}
}

static void classify_portable(const char *p, struct kin_block *b)
{
	uint64_t q = 0, s = 0, o = 0, w = 0, c = 0;

	for (unsigned i = 0; i < 64; i++) {
		uint64_t t = byte_class((unsigned char)p[i]);

		q |= (t & 1) << i;
		s |= (t >> 1 & 1) << i;
		o |= (t >> 2 & 1) << i;
		w |= (t >> 3 & 1) << i;
		c |= (t >> 4 & 1) << i;
	}
	b->quote = q;
	b->bslash = s;
	b->op = o;
	b->ws = w;
	b->ctl = c;
}

#if KIN_X86
/* ------------------------------------------------------------------------ */
/* SSE2: 16 bytes a step (every x86-64 CPU)                                 */
/* ------------------------------------------------------------------------ */

__attribute__((target("sse2"))) static void classify_sse2(const char *p, struct kin_block *b)
{
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
	const __m128i open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
	const __m128i colon = _mm_set1_epi8(':'), comma = _mm_set1_epi8(',');
	const __m128i low = _mm_set1_epi8(0x20), top_ctl = _mm_set1_epi8(0x1F);
	const __m128i sp = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t');
	const __m128i nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
	uint64_t q = 0, s = 0, o = 0, w = 0, c = 0;

	for (unsigned i = 0; i < 64; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
		/* '[' and '{', ']' and '}' differ only in bit 5. */
		__m128i v20 = _mm_or_si128(v, low);
		__m128i op = _mm_or_si128(
			_mm_or_si128(_mm_cmpeq_epi8(v20, open), _mm_cmpeq_epi8(v20, close)),
			_mm_or_si128(_mm_cmpeq_epi8(v, colon), _mm_cmpeq_epi8(v, comma)));
		__m128i ws =
			_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, tab)),
				     _mm_or_si128(_mm_cmpeq_epi8(v, nl), _mm_cmpeq_epi8(v, cr)));
		/* v <= 0x1F as unsigned bytes. */
		__m128i lt = _mm_cmpeq_epi8(_mm_min_epu8(v, top_ctl), v);

		q |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) << i;
		s |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, bslash)) << i;
		o |= (uint64_t)(uint16_t)_mm_movemask_epi8(op) << i;
		w |= (uint64_t)(uint16_t)_mm_movemask_epi8(ws) << i;
		c |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_andnot_si128(ws, lt)) << i;
	}
	b->quote = q;
	b->bslash = s;
	b->op = o;
	b->ws = w;
	b->ctl = c;
}

/* ------------------------------------------------------------------------ */
/* AVX2: 32 bytes a step                                                    */
/* ------------------------------------------------------------------------ */

__attribute__((target("avx2"))) static inline uint64_t avx2_bits(__m256i lo, __m256i hi)
{
	return (uint64_t)(uint32_t)_mm256_movemask_epi8(lo) |
	       (uint64_t)(uint32_t)_mm256_movemask_epi8(hi) << 32;
}

__attribute__((target("avx2"))) static void classify_avx2(const char *p, struct kin_block *b)
{
	const __m256i quote = _mm256_set1_epi8('"'), bslash = _mm256_set1_epi8('\\');
	const __m256i open = _mm256_set1_epi8('{'), close = _mm256_set1_epi8('}');
	const __m256i colon = _mm256_set1_epi8(':'), comma = _mm256_set1_epi8(',');
	const __m256i low = _mm256_set1_epi8(0x20), top_ctl = _mm256_set1_epi8(0x1F);
	const __m256i sp = _mm256_set1_epi8(' ');
	/* \t \n \r by their low nibble: the table holds the byte itself at 9,
	 * 10 and 13 and a byte no input with that low nibble can equal
	 * elsewhere (0x80 is never produced for bytes below 0x80, and
	 * bytes with the top bit set shuffle to 0, which is not them). */
	const __m256i blank = _mm256_setr_epi8(
		(char)0x80, (char)0x80, (char)0x80, (char)0x80, (char)0x80, (char)0x80, (char)0x80,
		(char)0x80, (char)0x80, '\t', '\n', (char)0x80, (char)0x80, '\r', (char)0x80,
		(char)0x80, (char)0x80, (char)0x80, (char)0x80, (char)0x80, (char)0x80, (char)0x80,
		(char)0x80, (char)0x80, (char)0x80, '\t', '\n', (char)0x80, (char)0x80, '\r',
		(char)0x80, (char)0x80);
	__m256i v[2], q[2], s[2], o[2], w[2], c[2];

	v[0] = _mm256_loadu_si256((const __m256i *)(const void *)p);
	v[1] = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
	for (int i = 0; i < 2; i++) {
		__m256i v20 = _mm256_or_si256(v[i], low);
		__m256i lt = _mm256_cmpeq_epi8(_mm256_min_epu8(v[i], top_ctl), v[i]);

		q[i] = _mm256_cmpeq_epi8(v[i], quote);
		s[i] = _mm256_cmpeq_epi8(v[i], bslash);
		o[i] = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v20, open),
						       _mm256_cmpeq_epi8(v20, close)),
				       _mm256_or_si256(_mm256_cmpeq_epi8(v[i], colon),
						       _mm256_cmpeq_epi8(v[i], comma)));
		w[i] = _mm256_or_si256(_mm256_cmpeq_epi8(v[i], sp),
				       _mm256_cmpeq_epi8(_mm256_shuffle_epi8(blank, v[i]), v[i]));
		c[i] = _mm256_andnot_si256(w[i], lt);
	}
	b->quote = avx2_bits(q[0], q[1]);
	b->bslash = avx2_bits(s[0], s[1]);
	b->op = avx2_bits(o[0], o[1]);
	b->ws = avx2_bits(w[0], w[1]);
	b->ctl = avx2_bits(c[0], c[1]);
}
#endif

/* ------------------------------------------------------------------------ */
/* The choice                                                               */
/* ------------------------------------------------------------------------ */

static _Atomic int kin_chosen = KIN_BLOCKS_AUTO;

static bool cpu_can(enum kin_blocks_impl impl)
{
	switch (impl) {
	case KIN_BLOCKS_PORTABLE:
		return true;
#if KIN_X86
	case KIN_BLOCKS_SSE2:
		__builtin_cpu_init();
		return __builtin_cpu_supports("sse2");
	case KIN_BLOCKS_AVX2:
		__builtin_cpu_init();
		return __builtin_cpu_supports("avx2");
#endif
	default:
		return false;
	}
}

static enum kin_blocks_impl choose(void)
{
	const char *env = getenv("GPUSCOPE_TEST_SCAN");

	if (env) {
		for (int i = KIN_BLOCKS_PORTABLE; i <= KIN_BLOCKS_AVX2; i++)
			if (strcmp(env, kin_blocks_impl_name((enum kin_blocks_impl)i)) == 0 &&
			    cpu_can((enum kin_blocks_impl)i))
				return (enum kin_blocks_impl)i;
	}
	if (cpu_can(KIN_BLOCKS_AVX2))
		return KIN_BLOCKS_AVX2;
	if (cpu_can(KIN_BLOCKS_SSE2))
		return KIN_BLOCKS_SSE2;
	return KIN_BLOCKS_PORTABLE;
}

enum kin_blocks_impl kin_blocks_impl(void)
{
	int c = atomic_load_explicit(&kin_chosen, memory_order_relaxed);

	if (c == KIN_BLOCKS_AUTO) {
		c = (int)choose();
		atomic_store_explicit(&kin_chosen, c, memory_order_relaxed);
	}
	return (enum kin_blocks_impl)c;
}

kin_classify_fn kin_blocks_classifier(void)
{
	switch (kin_blocks_impl()) {
#if KIN_X86
	case KIN_BLOCKS_AVX2:
		return classify_avx2;
	case KIN_BLOCKS_SSE2:
		return classify_sse2;
#endif
	default:
		return classify_portable;
	}
}

bool kin_blocks_force(enum kin_blocks_impl impl)
{
	if (impl == KIN_BLOCKS_AUTO) {
		atomic_store_explicit(&kin_chosen, (int)choose(), memory_order_relaxed);
		return true;
	}
	if (!cpu_can(impl))
		return false;
	atomic_store_explicit(&kin_chosen, (int)impl, memory_order_relaxed);
	return true;
}

const char *kin_blocks_impl_name(enum kin_blocks_impl impl)
{
	switch (impl) {
	case KIN_BLOCKS_PORTABLE:
		return "portable";
	case KIN_BLOCKS_SSE2:
		return "sse2";
	case KIN_BLOCKS_AVX2:
		return "avx2";
	default:
		return "auto";
	}
}
