/* fixture.h - temporary directory trees for the unit tests. */
#ifndef VX_TEST_FIXTURE_H
#define VX_TEST_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Makes a fresh directory under /tmp; returns its path (static storage). */
static inline const char *fixture_dir(void)
{
	static char path[64];
	strcpy(path, "/tmp/vx-test-XXXXXX");
	if (!mkdtemp(path)) {
		perror("mkdtemp");
		exit(1);
	}
	return path;
}

/* Writes root/rel with content, making the parent directories. */
static inline void fixture_write(const char *root, const char *rel, const char *content)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (char *s = path + strlen(root) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(path, 0755);
			*s = '/';
		}
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(content, f);
	fclose(f);
}

static inline void fixture_remove(const char *root)
{
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", root);
}

#endif
