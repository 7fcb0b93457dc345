/*
 * main() for a libFuzzer target without libFuzzer (gcc has none): runs
 * LLVMFuzzerTestOneInput() once on each file named on the command line,
 * and on each regular file of a directory named there (in name order).
 * The UBSan builds (dsp/dsp.mk, build/dsp/ubsan-{gcc,clang}/fuzz/) use it:
 * tests/dsp/test_ubsan.py feeds them a generated corpus of hostile inputs.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long runs;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		perror(path);
		return 1;
	}
	buf = malloc(n ? (size_t)n : 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	runs++;
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int main(int argc, char **argv)
{
	int i, k, n, rc = 0;

	for (i = 1; i < argc; i++) {
		struct dirent **ents;
		struct stat st;

		if (stat(argv[i], &st)) {
			perror(argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			rc |= run_file(argv[i]);
			continue;
		}
		n = scandir(argv[i], &ents, NULL, by_name);
		if (n < 0) {
			perror(argv[i]);
			return 1;
		}
		for (k = 0; k < n; k++) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", argv[i], ents[k]->d_name);
			if (!stat(path, &st) && S_ISREG(st.st_mode))
				rc |= run_file(path);
			free(ents[k]);
		}
		free(ents);
	}
	printf("%s: ran %lu inputs\n", argv[0], runs);
	return rc;
}
