/* initpath.c - vx-sandbox-init beside vx, or in the libexec/vx/ an install
 * puts it in (initpath.h). */
#include "sandbox/initpath.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/path.h"

/* From an installed vx's directory to its init's (or where it is, when
 * LIBEXECDIR was made absolute): cmake/install.cmake passes the one its
 * BINDIR and LIBEXECDIR make. */
#ifndef VX_INIT_FROM_BIN
#define VX_INIT_FROM_BIN "../libexec/vx"
#endif

static bool executable_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *initpath_of(const char *self, struct strbuf *looked)
{
	if (!self) {
		if (looked)
			strbuf_addstr(looked, "(vx cannot find its own binary)");
		return NULL;
	}
	char *dir = path_dirname(self);
	char *beside = path_join(dir, "vx-sandbox-init");
	/* path_join normalizes the ".." away, and takes an absolute one as is */
	char *installed = path_join(dir, VX_INIT_FROM_BIN "/vx-sandbox-init");
	free(dir);
	char *found = NULL;
	if (executable_file(beside)) {
		found = beside;
		beside = NULL;
	} else if (executable_file(installed)) {
		found = installed;
		installed = NULL;
	} else if (looked) {
		strbuf_addf(looked, "%s nor %s", beside, installed);
	}
	free(beside);
	free(installed);
	return found;
}

char *initpath_find(struct strbuf *looked)
{
	char *self = realpath("/proc/self/exe", NULL);
	char *init = initpath_of(self, looked);
	free(self);
	return init;
}
