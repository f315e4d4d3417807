/* SPDX-License-Identifier: MIT */
/*
 * __cxa_demangle found once: in the global scope (a program linked with
 * libstdc++ / libc++abi), else in one of those already mapped but loaded
 * locally (dlopen RTLD_NOLOAD: a reference to a loaded library, never a load).
 */
#include "demangle.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static cxa_demangle_fn cxa_demangle;

static void resolve(void)
{
	static const char *const libs[] = {"libstdc++.so.6", "libc++abi.so.1", "libc++.so.1"};
	void *sym = dlsym(RTLD_DEFAULT, "__cxa_demangle");

	for (size_t i = 0; !sym && i < sizeof(libs) / sizeof(libs[0]); i++) {
		/* Kept open: the reference keeps the function there. */
		void *h = dlopen(libs[i], RTLD_NOLOAD | RTLD_LAZY);

		if (h)
			sym = dlsym(h, "__cxa_demangle");
	}
	memcpy(&cxa_demangle, &sym, sizeof(sym));
}

char *gs_demangle(const char *mangled)
{
	int status = -1;
	char *out;

	if (!mangled || strncmp(mangled, "_Z", 2) != 0)
		return NULL;
	pthread_once(&once, resolve);
	if (!cxa_demangle)
		return NULL;
	out = cxa_demangle(mangled, NULL, NULL, &status);
	return status == 0 ? out : NULL;
}
