// SPDX-License-Identifier: MIT
/*
 * replay.c - run a fuzz target over files and folders of inputs, without
 * libFuzzer: make test replays the saved corpus this way (gcc, ASan, UBSan),
 * so an input that once crashed a parser stays a test.
 *
 *   build/fuzz-replay/TARGET FILE-OR-FOLDER...
 *
 * Prints "TARGET: N inputs" and exits 0, or dies on the input that fails
 * (its name is printed first).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static size_t inputs;

static void run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	static u8 buf[1 << 20];
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	u8 *copy = malloc(n ? n : 1);           /* exactly n bytes: ASan sees overreads */
	memcpy(copy, buf, n);
	fprintf(stderr, "replay: %s\n", path);
	LLVMFuzzerTestOneInput(copy, n);
	free(copy);
	inputs++;
}

static void run_path(const char *path)
{
	struct stat st;

	if (stat(path, &st)) {
		perror(path);
		exit(2);
	}
	if (!S_ISDIR(st.st_mode)) {
		run_file(path);
		return;
	}
	DIR *dir = opendir(path);
	struct dirent *e;
	while (dir && (e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		char child[4096];
		snprintf(child, sizeof(child), "%s/%s", path, e->d_name);
		run_path(child);
	}
	if (dir)
		closedir(dir);
}

int main(int argc, char **argv)
{
	host_map_phys();
	for (int i = 1; i < argc; i++)
		run_path(argv[i]);
	printf("%s: %zu inputs\n", argc > 0 ? argv[0] : "replay", inputs);
	return 0;
}
