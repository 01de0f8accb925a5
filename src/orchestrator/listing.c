/* listing.c - git's list of the workspace's files. */
#include "orchestrator/listing.h"

#include <stdlib.h>

#include "util/die.h"

static char *ls_files[] = {"git",      "ls-files",	     "-z", "--cached",
			   "--others", "--exclude-standard", NULL};

struct spawned *listing_start(const char *root)
{
	struct spawned *s = xmalloc(sizeof *s);
	if (spawn_start(ls_files, root, s)) {
		free(s);
		return NULL;
	}
	return s;
}

int listing_finish(struct spawned *started, const char *root, struct strbuf *out)
{
	/* A listing started at load is collected once; a second caller asks
	 * git again. */
	if (started && started->pid)
		return spawn_finish(started, out);
	return spawn_capture(ls_files, root, out, NULL);
}
