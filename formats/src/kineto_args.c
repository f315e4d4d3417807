/* SPDX-License-Identifier: MIT */
/*
 * Kineto importer (kineto.c): reading an event's args and the top-level
 * values (the j_* accessors of kineto_priv.h, over the scanner's members or
 * cJSON), collectives from a kernel's args, and the category names.
 */
#include "kineto_priv.h"

#include <gpuscope/sort.h>
#include <gpuscope/text.h>

#include <cJSON.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* cJSON helpers                                                            */
/* ------------------------------------------------------------------------ */

/*
 * The args of the event being handled (kin_parse_args) are read through the
 * j_* accessors below. When the scanner found args to be an object cJSON
 * would read the same way (ev->args_state KIN_ARGS_JSON: strings without
 * escapes, numbers, literals, arrays of numbers), its members answer; any
 * other text is parsed by cJSON as before. Both give the same answers: a
 * number is what strtod makes of its text, a string its bytes up to a NUL,
 * the first of two members of one name. The j_* names also take a cJSON
 * object (top-level values: deviceProperties, the job marker): _Generic
 * picks the reader from the argument's type.
 */

/* Parse the args object of an event; *args is NULL when it has none. */
gs_status kin_parse_args(struct kin *k, const struct kin_event *ev, struct kin_args **args,
			 bool *ok)
{
	const struct kin_span *s = &ev->f[EV_ARGS];
	cJSON *tree;
	size_t n;
	gs_status rc = GS_OK;

	*args = NULL;
	*ok = true;
	if (s->n == 0)
		return GS_OK;
	k->args = (struct kin_args){.k = k};
	if (ev->args_state == KIN_ARGS_JSON) {
		k->args.ev = ev;
		*args = &k->args;
		return GS_OK;
	}
	tree = cJSON_ParseWithLength(s->p, s->n);
	if (!tree && kin_sanitise_nonfinite(&k->sc, s->p, s->n, &n, &rc)) {
		tree = cJSON_ParseWithLength(k->sc.scratch[1], n);
		if (tree)
			kin_warn(k, KW_NONFINITE);
	} else if (!tree && rc) {
		return rc;
	}
	if (!tree || !cJSON_IsObject(tree)) {
		cJSON_Delete(tree);
		*ok = false;
		return GS_OK;
	}
	k->args.tree = tree;
	*args = &k->args;
	return GS_OK;
}

void kin_args_free(struct kin_args *a)
{
	if (a) {
		cJSON_Delete((cJSON *)(uintptr_t)a->tree);
		a->tree = NULL;
	}
}

/* The member `key` of args read by the scanner, or NULL. */
static const struct kin_member *args_member(const struct kin_args *a, const char *key)
{
	return kin_event_arg(a->ev, key, strlen(key));
}

/* A number member as an integer (numbers, or integer text in a string). */
bool kin_jt_int(const cJSON *obj, const char *key, int64_t *v)
{
	const cJSON *it = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
	double d;

	if (!it)
		return false;
	if (cJSON_IsString(it) && it->valuestring)
		return kin_parse_int_text(it->valuestring, strlen(it->valuestring), v);
	if (!cJSON_IsNumber(it))
		return false;
	d = it->valuedouble;
	if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || d != (double)(int64_t)d)
		return false;
	*v = (int64_t)d;
	return true;
}

/* The bytes of a string member as cJSON keeps them: up to a NUL. */
static size_t args_string_len(const struct kin_member *m)
{
	const char *z = memchr(m->val + 1, '\0', m->vlen - 2);

	return z ? (size_t)(z - (m->val + 1)) : m->vlen - 2;
}

bool kin_ja_int(const struct kin_args *a, const char *key, int64_t *v)
{
	const struct kin_member *m;
	double d;

	if (!a)
		return false;
	if (a->tree)
		return kin_jt_int(a->tree, key, v);
	m = args_member(a, key);
	if (!m)
		return false;
	if (m->type == KA_STRING)
		return kin_parse_int_text(m->val + 1, args_string_len(m), v);
	if (m->type != KA_NUMBER)
		return false;
	d = kin_number_value(m->val, m->vlen);
	if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || d != (double)(int64_t)d)
		return false;
	*v = (int64_t)d;
	return true;
}

bool kin_jt_u64(const cJSON *obj, const char *key, uint64_t *v)
{
	int64_t x;

	if (!kin_get_int(obj, key, &x) || x < 0)
		return false;
	*v = (uint64_t)x;
	return true;
}

bool kin_ja_u64(const struct kin_args *obj, const char *key, uint64_t *v)
{
	int64_t x;

	if (!kin_get_int(obj, key, &x) || x < 0)
		return false;
	*v = (uint64_t)x;
	return true;
}

bool kin_jt_u32(const cJSON *obj, const char *key, uint32_t *v)
{
	int64_t x;

	if (!kin_get_int(obj, key, &x) || x < 0 || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

bool kin_ja_u32(const struct kin_args *obj, const char *key, uint32_t *v)
{
	int64_t x;

	if (!kin_get_int(obj, key, &x) || x < 0 || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

/* The text a bad id value is shown as: a number as %.0f (whole) or %.15g. */
static void id_number_text(double d, char *text, size_t cap)
{
	bool whole = d > -1e20 && d < 1e20 && (d >= 9e15 || d <= -9e15 || d == (double)(int64_t)d);

	if (whole)
		snprintf(text, cap, "%.0f", d);
	else
		snprintf(text, cap, "%.15g", d);
}

/*
 * A member that must hold an id from lo to hi: an integer number, or
 * integer text in a string. Anything else present (a fraction, a value out
 * of range, other text, null, an object) is KI_BAD, counted under w with
 * the value shown.
 */
enum kin_id kin_jt_id(struct kin *k, const cJSON *obj, const char *key, int64_t lo, int64_t hi,
		      enum kin_warn w, int64_t *v)
{
	const cJSON *it = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
	char text[KIN_BAD_VALUE_MAX];
	int64_t x;

	if (!it)
		return KI_ABSENT;
	if (kin_get_int(obj, key, &x) && x >= lo && x <= hi) {
		*v = x;
		return KI_OK;
	}
	if (cJSON_IsNumber(it)) {
		id_number_text(it->valuedouble, text, sizeof(text));
	} else if (cJSON_IsString(it) && it->valuestring) {
		snprintf(text, sizeof(text), "\"%s\"", it->valuestring);
	} else if (cJSON_IsNull(it)) {
		snprintf(text, sizeof(text), "null");
	} else if (cJSON_IsBool(it)) {
		snprintf(text, sizeof(text), "%s", cJSON_IsTrue(it) ? "true" : "false");
	} else {
		snprintf(text, sizeof(text), "%s", cJSON_IsArray(it) ? "an array" : "an object");
	}
	kin_warn_value(k, w, text, strlen(text));
	return KI_BAD;
}

enum kin_id kin_ja_id(struct kin *k, const struct kin_args *a, const char *key, int64_t lo,
		      int64_t hi, enum kin_warn w, int64_t *v)
{
	const struct kin_member *m;
	char text[KIN_BAD_VALUE_MAX];
	int64_t x;

	if (!a)
		return KI_ABSENT;
	if (a->tree)
		return kin_jt_id(k, a->tree, key, lo, hi, w, v);
	m = args_member(a, key);
	if (!m)
		return KI_ABSENT;
	if (kin_get_int(a, key, &x) && x >= lo && x <= hi) {
		*v = x;
		return KI_OK;
	}
	switch (m->type) {
	case KA_NUMBER:
		id_number_text(kin_number_value(m->val, m->vlen), text, sizeof(text));
		break;
	case KA_STRING:
		snprintf(text, sizeof(text), "\"%.*s\"", (int)args_string_len(m), m->val + 1);
		break;
	case KA_NULL:
		snprintf(text, sizeof(text), "null");
		break;
	case KA_TRUE:
	case KA_FALSE:
		snprintf(text, sizeof(text), "%s", m->type == KA_TRUE ? "true" : "false");
		break;
	default:
		snprintf(text, sizeof(text), "%s", m->type == KA_ARRAY ? "an array" : "an object");
		break;
	}
	kin_warn_value(k, w, text, strlen(text));
	return KI_BAD;
}

const char *kin_jt_str(const cJSON *obj, const char *key)
{
	const cJSON *it = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;

	return it && cJSON_IsString(it) ? it->valuestring : NULL;
}

/* A string member; from the scanner's members, a copy valid until the
 * next kin_ja_str (NULL also when it cannot be made). */
const char *kin_ja_str(const struct kin_args *a, const char *key)
{
	const struct kin_member *m;
	struct kin *k;
	size_t n;

	if (!a)
		return NULL;
	if (a->tree)
		return kin_jt_str(a->tree, key);
	m = args_member(a, key);
	if (!m || m->type != KA_STRING)
		return NULL;
	k = a->k;
	n = args_string_len(m);
	if (n + 1 > k->args_str_cap) {
		size_t nc = k->args_str_cap ? k->args_str_cap : 64;
		char *nb;

		while (nc < n + 1)
			nc *= 2;
		nb = realloc(k->args_str, nc);
		if (!nb)
			return NULL;
		k->args_str = nb;
		k->args_str_cap = nc;
	}
	memcpy(k->args_str, m->val + 1, n);
	k->args_str[n] = '\0';
	return k->args_str;
}

/* An array of up to three non-negative integers ("grid": [128, 1, 1]). */
void kin_jt_dim3(const cJSON *obj, const char *key, uint32_t out[3])
{
	const cJSON *arr = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
	const cJSON *it;
	int i = 0;

	if (!cJSON_IsArray(arr))
		return;
	cJSON_ArrayForEach(it, arr)
	{
		if (i == 3)
			break;
		if (cJSON_IsNumber(it) && it->valuedouble >= 0 && it->valuedouble <= UINT32_MAX)
			out[i] = (uint32_t)it->valuedouble;
		i++;
	}
}

void kin_ja_dim3(const struct kin_args *a, const char *key, uint32_t out[3])
{
	const struct kin_member *m;
	const char *p, *end;
	int i = 0;

	if (!a)
		return;
	if (a->tree) {
		kin_jt_dim3(a->tree, key, out);
		return;
	}
	m = args_member(a, key);
	if (!m || m->type != KA_ARRAY)
		return;
	/* The scanner checked the form: '[' numbers separated by ',' ']'. */
	p = m->val + 1;
	end = m->val + m->vlen - 1;
	while (i < 3) {
		const char *q;
		double d;

		while (p < end &&
		       (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ','))
			p++;
		if (p >= end)
			break;
		q = p;
		while (q < end && *q != ',' && *q != ' ' && *q != '\t' && *q != '\n' && *q != '\r')
			q++;
		d = kin_number_value(p, (size_t)(q - p));
		if (d >= 0 && d <= UINT32_MAX)
			out[i] = (uint32_t)d;
		i++;
		p = q;
	}
}

/*
 * The collective of an NCCL kernel, from the args PyTorch's profiler adds
 * ("Collective name", "Process Group Name", "In msg nelems", ...): declared
 * to the sink, *index its 1-based id (0 when the args name no collective
 * or the sink keeps none).
 */
gs_status kin_collective(struct kin *k, const struct kin_args *args, uint32_t *index)
{
	static const struct {
		const char *key;
		size_t off;
	} strs[] = {
		{"Collective name", offsetof(struct gs_collective, name)},
		{"Process Group Name", offsetof(struct gs_collective, group)},
		{"Process Group Description", offsetof(struct gs_collective, group_desc)},
		{"Process Group Ranks", offsetof(struct gs_collective, group_ranks)},
		{"dtype", offsetof(struct gs_collective, dtype)},
	};
	struct gs_collective c = {0};
	const char *name = kin_get_str(args, "Collective name");
	uint32_t idx = 0;
	gs_status rc;

	*index = 0;
	if (!name || !*name || !k->sink->collective)
		return GS_OK;
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		const char *v = kin_get_str(args, strs[i].key);
		uint32_t *dst = (uint32_t *)(void *)((char *)&c + strs[i].off);

		*dst = GS_NO_STRING;
		if (v && (rc = kin_intern_str(k, v, dst)))
			return rc;
	}
	kin_get_u32(args, "Group size", &c.group_size);
	c.has_nelems = kin_get_u64(args, "In msg nelems", &c.in_nelems);
	if (!kin_get_u64(args, "Out msg nelems", &c.out_nelems))
		c.out_nelems = c.in_nelems;
	c.has_seq = kin_get_u64(args, "Seq", &c.seq);
	rc = kin_count(k);
	if (!rc && (rc = k->sink->collective(k->sink, &c, &idx)))
		rc = kin_sink_failed(k, rc);
	if (!rc)
		*index = idx + 1;
	return rc;
}

/* ------------------------------------------------------------------------ */
/* Mapping                                                                  */
/* ------------------------------------------------------------------------ */

/* The names with their lengths: compared by length first, no strlen. */
#define KIN_CAT(s, c)                                                                              \
	{                                                                                          \
		s, sizeof(s) - 1, c                                                                \
	}
static const struct {
	const char *name;
	size_t len;
	enum kin_cat cat;
} kin_cats[] = {
	KIN_CAT("cpu_op", KC_CPU_OP),
	KIN_CAT("cuda_runtime", KC_RUNTIME),
	KIN_CAT("kernel", KC_KERNEL),
	KIN_CAT("python_function", KC_PYTHON),
	KIN_CAT("gpu_memcpy", KC_MEMCPY),
	KIN_CAT("gpu_memset", KC_MEMSET),
	KIN_CAT("cuda_driver", KC_DRIVER),
	KIN_CAT("cuda_sync", KC_SYNC),
	KIN_CAT("user_annotation", KC_USER_ANNOTATION),
	KIN_CAT("gpu_user_annotation", KC_GPU_ANNOTATION),
	KIN_CAT("overhead", KC_OVERHEAD),
	KIN_CAT("Operator", KC_CPU_OP),
	KIN_CAT("Runtime", KC_RUNTIME),
	KIN_CAT("Kernel", KC_KERNEL),
	KIN_CAT("Memcpy", KC_MEMCPY),
	KIN_CAT("Memset", KC_MEMSET),
	KIN_CAT("Trace", KC_IGNORE),
	KIN_CAT("ideal", KC_IGNORE), /* gpuscope export --with-ideal: not recorded work */
	KIN_CAT("cpu_instant_event", KC_IGNORE),
};

enum kin_cat kin_cat_lookup(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(kin_cats) / sizeof(kin_cats[0]); i++)
		if (kin_cats[i].len == n && memcmp(kin_cats[i].name, s, n) == 0)
			return kin_cats[i].cat;
	return KC_UNKNOWN;
}

/* One side of "(Pageable -> Device)". */
