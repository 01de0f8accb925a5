/* Unit tests for util/io.c's fs_mkdirs: every missing directory above a
 * path made, from an absolute or a relative path, with trailing slashes;
 * a file in the way is ENOTDIR. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "util/io.h"

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int main(void)
{
	char root[] = "/tmp/vxio-XXXXXX";
	if (!mkdtemp(root))
		return 1;
	char p[256];
	snprintf(p, sizeof p, "%s/a/b/c", root);
	CHECK_INT(fs_mkdirs(p, 0755), 0);
	CHECK(is_dir(p));
	CHECK_INT(fs_mkdirs(p, 0755), 0); /* already there */
	snprintf(p, sizeof p, "%s/x//y///", root);
	CHECK_INT(fs_mkdirs(p, 0755), 0);
	snprintf(p, sizeof p, "%s/x/y", root);
	CHECK(is_dir(p));
	CHECK_INT(chdir(root), 0);
	CHECK_INT(fs_mkdirs("r/s", 0755), 0);
	CHECK(is_dir("r/s"));
	CHECK_INT(fs_mkdirs("top", 0755), 0);
	CHECK(is_dir("top"));
	FILE *f = fopen("file", "w");
	fclose(f);
	errno = 0;
	CHECK_INT(fs_mkdirs("file/under", 0755), -1);
	CHECK_INT(errno, ENOTDIR);
	CHECK_INT(fs_mkdirs("/", 0755), 0);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	CHECK_INT(system(cmd), 0);
	return check_finish("io");
}
