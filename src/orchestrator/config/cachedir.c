/* cachedir.c - a workspace's cache directory: where it is, where it may
 * not be, and the .vx directory that is its default home (workspace.h). */
#include "orchestrator/config/workspace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/die.h"
#include "util/io.h"
#include "util/path.h"

int workspace_vx_dir(const struct workspace *ws)
{
	char *dir = path_join(ws->root, ".vx");
	int rc = fs_mkdirs(dir, 0755);
	char *ignore = path_join(dir, ".gitignore");
	struct stat st;
	/* its own: a user's .gitignore there is left as it is; never half a
	 * file (a failed write is left out, quietly) */
	static const char text[] = "# made by vx: its cache and state are this machine's\n*\n";
	if (!rc && lstat(ignore, &st) < 0 && errno == ENOENT)
		write_file_atomic(ignore, text, sizeof text - 1);
	free(ignore);
	free(dir);
	return rc;
}

/* dir resolved through the links of its longest existing ancestor, the
 * rest appended lexically. Caller frees. */
static char *resolve_existing(const char *dir)
{
	char *n = path_normalize(dir), *rest = NULL;
	for (;;) {
		char *real = realpath(n, NULL);
		if (real || !strcmp(n, "/")) {
			char *out = !real  ? xstrdup(n)
				    : rest ? path_join(real, rest)
					   : xstrdup(real);
			free(real);
			free(n);
			free(rest);
			return out;
		}
		char *up = path_dirname(n);
		const char *base = path_basename(n);
		char *r = rest ? path_join(base, rest) : xstrdup(base);
		free(rest);
		rest = r;
		free(n);
		n = up;
	}
}

const char *workspace_cache_dir_refused(const struct workspace *ws, const char *dir)
{
	static const char *const below[] = {"/usr",   "/etc",	"/bin",	   "/sbin", "/lib",
					    "/lib32", "/lib64", "/libx32", "/boot", "/dev",
					    "/proc",  "/sys",	NULL};
	static const char *const at[] = {"/var", "/tmp", "/home",  "/root",    "/run",	     "/opt",
					 "/srv", "/mnt", "/media", "/var/tmp", "/var/cache", NULL};
	char *d = resolve_existing(dir);
	char *root = resolve_existing(ws->root);
	const char *home = getenv("HOME");
	char *h = home && *home == '/' ? resolve_existing(home) : NULL;
	const char *why = NULL;
	if (!strcmp(d, "/"))
		why = "it is the file system's root";
	else if (path_is_within(d, root))
		why = "it is or holds the workspace, whose files it would hide from every key and "
		      "`vx cache clean` would remove";
	else if (h && path_is_within(d, h))
		why = "it holds the home directory, which `vx cache clean` would empty";
	for (size_t i = 0; !why && !path_is_within(root, d) && below[i]; i++)
		if (path_is_within(below[i], d))
			why = "it is a system directory";
	for (size_t i = 0; !why && at[i]; i++)
		if (!strcmp(at[i], d))
			why = "it is a system directory, which `vx cache clean` would empty";
	free(d);
	free(root);
	free(h);
	return why;
}

char *workspace_cache_dir(const struct workspace *ws)
{
	const char *env = getenv("VX_CACHE_DIR");
	if (env && *env)
		return path_absolute(env);
	return path_join(ws->root, ws->cfg->cache_dir);
}
