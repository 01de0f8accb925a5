/* denies.c - the mandatory-deny table and the walk of one write grant. */
#include "sandbox/denies.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/path.h"
#include "util/strbuf.h"

const struct deny_rule denies_table[] = {
    {".bashrc", "runs in every interactive bash the developer starts"},
    {".bash_profile", "runs in every login bash"},
    {".zshrc", "runs in every interactive zsh"},
    {".zprofile", "runs in every login zsh"},
    {".profile", "runs in every login shell"},
    {".gitconfig", "can set core.fsmonitor or aliases that run programs on git commands"},
    {".gitmodules", "can point a submodule at a URL or path the next clone fetches"},
    {".ripgreprc", "read by every rg; can add --pre, which runs a program per file"},
    {".mcp.json", "names MCP servers an AI agent starts with the developer's rights"},
    {".git/hooks", "hooks run on the developer's next commit, checkout or push"},
    {".git/config", "can set core.hooksPath, core.fsmonitor or a credential helper"},
    {".vscode", "tasks.json and settings can run programs when the folder opens"},
    {".idea", "run configurations and startup tasks run when the project opens"},
    {".claude", "settings and hooks an AI agent runs with the developer's rights"},
    {NULL, NULL},
};

const struct deny_rule *denies_match(const char *rel)
{
	const char *base = path_basename(rel);
	for (const struct deny_rule *r = denies_table; r->name; r++) {
		const char *slash = strchr(r->name, '/');
		if (!slash) {
			if (!strcmp(base, r->name))
				return r;
			continue;
		}
		/* "a/b": rel ends in "/a/b" or is "a/b". */
		size_t n = strlen(r->name), len = strlen(rel);
		if (len >= n && !strcmp(rel + len - n, r->name) &&
		    (len == n || rel[len - n - 1] == '/'))
			return r;
	}
	return NULL;
}

static int walk(const char *root, const char *rel, struct strvec *out)
{
	char *dir = rel[0] ? path_join(root, rel) : xstrdup(root);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return (errno == ENOENT || errno == ENOTDIR || errno == ELOOP) ? 0 : -1;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	struct strvec subdirs = STRVEC_INIT;
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *child = rel[0] ? xasprintf("%s/%s", rel, e->d_name) : xstrdup(e->d_name);
		if (denies_match(child)) {
			strvec_push_nodup(out, path_join(root, child));
			free(child);
			continue;
		}
		unsigned char type = e->d_type;
		if (type == DT_UNKNOWN) {
			struct stat st;
			type = fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
				       S_ISDIR(st.st_mode)
				   ? DT_DIR
				   : DT_REG;
		}
		if (type == DT_DIR)
			strvec_push_nodup(&subdirs, child);
		else
			free(child);
	}
	closedir(d);
	for (size_t i = 0; i < subdirs.n && !rc; i++)
		rc = walk(root, subdirs.v[i], out);
	strvec_clear(&subdirs);
	return rc;
}

int denies_walk(const char *dir, struct strvec *out)
{
	return walk(dir, "", out);
}
