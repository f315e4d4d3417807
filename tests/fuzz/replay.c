/* SPDX-License-Identifier: MIT */
/*
 * Runs a fuzz target's LLVMFuzzerTestOneInput on files, without libFuzzer:
 * the checked-in corpus and every past finding (regressions/<target>/) are
 * replayed by ctest in every build, sanitizers included.
 *
 *   replay_<target> FILE_OR_DIR...
 *
 * An argument that does not exist counts as no input (a target without
 * findings has no regressions/ directory).
 * Exit 0 when every input ran; a crash or sanitizer report ends the run.
 */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* Referenced by custom mutators; never called here. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size)
{
	(void)data;
	(void)max_size;
	return size;
}

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;

	if (!f) {
		fprintf(stderr, "replay: cannot open %s\n", path);
		return -1;
	}
	for (;;) {
		size_t k;

		if (n == cap) {
			uint8_t *nb = realloc(buf, cap ? cap * 2 : 65536);

			if (!nb) {
				fclose(f);
				free(buf);
				return -1;
			}
			buf = nb;
			cap = cap ? cap * 2 : 65536;
		}
		k = fread(buf + n, 1, cap - n, f);
		if (!k)
			break;
		n += k;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files of a directory, in name order; returns the count run or -1. */
static int run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int count = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof(*names));

			if (!nn)
				break;
			names = nn;
		}
		names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
		if (!names[n])
			break;
		sprintf(names[n], "%s/%s", dir, e->d_name);
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp);
	for (size_t i = 0; i < n; i++) {
		if (count >= 0 && run_file(names[i]) == 0)
			count++;
		else
			count = -1;
		free(names[i]);
	}
	free(names);
	return count;
}

int main(int argc, char **argv)
{
	int total = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		int k;

		if (stat(argv[i], &st) != 0) { /* no findings yet for this target */
			printf("%s: absent, 0 inputs\n", argv[i]);
			continue;
		}
		k = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]) == 0 ? 1 : -1;
		if (k < 0) {
			fprintf(stderr, "replay: %s: cannot read every input\n", argv[i]);
			return 1;
		}
		printf("%s: %d inputs\n", argv[i], k);
		total += k;
	}
	printf("replayed %d inputs\n", total);
	return 0;
}
