/* bench/floor: the least work a fully cached run of a bench/gen-monorepo
 * workspace can do, as one process, the fastest plain C way: for each
 * project under WS/packages, read package.json, list src/ and lstat every
 * entry, lstat the project's config files, lstat dist/out.txt (the output,
 * known by name as a cache's manifest knows it). Issue 20 measures vx's no-op run against this
 * (bench/noop). Built and run by bench/noop: cc -O2 -o bench/out/floor bench/floor.c &&
 * bench/out/floor WS It prints the number of files it looked at, so a reader can check it did the
 * work. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static long looked;

static void read_file(int dir, const char *name)
{
	char buf[65536];
	int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	while (read(fd, buf, sizeof buf) > 0)
		;
	close(fd);
	looked++;
}

/* Lists DIR/NAME and lstats every entry in it. */
static void stat_listing(int dir, const char *name)
{
	int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	struct dirent *e;
	struct stat st;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' &&
		    (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			looked++;
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: floor WS\n");
		return 2;
	}
	char path[4096];
	snprintf(path, sizeof path, "%s/packages", argv[1]);
	int top = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = top >= 0 ? fdopendir(top) : NULL;
	if (!d) {
		perror(path);
		return 1;
	}
	struct dirent *e;
	struct stat st;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		int p = openat(top, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (p < 0)
			continue;
		read_file(p, "package.json");
		stat_listing(p, "src");
		if (fstatat(p, "package.json", &st, AT_SYMLINK_NOFOLLOW) == 0)
			looked++;
		if (fstatat(p, "vx.yaml", &st, AT_SYMLINK_NOFOLLOW) == 0)
			looked++;
		if (fstatat(p, "dist/out.txt", &st, AT_SYMLINK_NOFOLLOW) == 0)
			looked++;
		close(p);
	}
	closedir(d);
	printf("%ld\n", looked);
	return 0;
}
