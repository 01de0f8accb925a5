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
    /* shells: startup files run with the developer's rights */
    {".bashrc", "runs in every interactive bash the developer starts"},
    {".bash_profile", "runs in every login bash"},
    {".bash_login", "runs in every login bash that has no .bash_profile"},
    {".bash_logout", "runs when a login bash exits"},
    {".profile", "runs in every login shell"},
    {".zshenv", "runs in every zsh, scripts included"},
    {".zshrc", "runs in every interactive zsh"},
    {".zprofile", "runs in every login zsh"},
    {".zlogin", "runs in every login zsh"},
    {".zlogout", "runs when a login zsh exits"},
    {".cshrc", "runs in every csh and tcsh"},
    {".tcshrc", "runs in every tcsh"},
    {".login", "runs in every login csh"},
    {".envrc", "direnv runs it on entering the directory"},
    /* git, and the hook managers that run commands on a commit */
    {".gitconfig", "can set core.fsmonitor or aliases that run programs on git commands"},
    {".gitmodules", "can point a submodule at a URL or path the next clone fetches"},
    {".git/hooks", "hooks run on the developer's next commit, checkout or push"},
    {".git/config", "can set core.hooksPath, core.fsmonitor or a credential helper"},
    {".husky", "husky's hooks run on the developer's next commit"},
    {".pre-commit-config.yaml", "pre-commit runs the hooks it names on the next commit"},
    {"lefthook.yml", "lefthook runs the commands it names on the next commit"},
    {".lefthook.yml", "lefthook runs the commands it names on the next commit"},
    /* package managers: configs and hooks they run without asking */
    {".npmrc", "can set script-shell, node-options or a registry for the next npm command"},
    {".yarnrc", "can set yarn-path, a program yarn 1 runs in its place"},
    {".yarnrc.yml", "can set yarnPath or plugins, code yarn runs on its next command"},
    {".pnpmfile.cjs", "pnpm runs its hooks on the next install"},
    {"bunfig.toml", "can preload scripts into every bun run"},
    {".bunfig.toml", "can preload scripts into every bun run"},
    /* editors and AI agents: settings and tasks run when a folder opens */
    {".vscode", "tasks.json and settings can run programs when the folder opens"},
    {".idea", "run configurations and startup tasks run when the project opens"},
    {".zed", "tasks and settings can run programs in the editor"},
    {".devcontainer", "its commands run when the folder opens in a container"},
    {".claude", "settings and hooks an AI agent runs with the developer's rights"},
    {".cursor", "rules and MCP servers an AI agent runs with the developer's rights"},
    {".gemini", "settings and MCP servers an AI agent runs with the developer's rights"},
    {".mcp.json", "names MCP servers an AI agent starts with the developer's rights"},
    {".ripgreprc", "read by every rg; can add --pre, which runs a program per file"},
    /* CI: workflows run with the repository's secrets */
    {".github/workflows", "workflows run in CI with the repository's secrets"},
    {".github/actions", "actions the workflows run in CI with the repository's secrets"},
    {".gitlab-ci.yml", "the pipeline runs in CI with the project's secrets"},
    {".circleci", "the pipeline runs in CI with the project's secrets"},
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

const struct deny_rule *denies_holding(const char *path, const char *const *bases, size_t *len)
{
	size_t from = 0;
	for (const char *const *b = bases; *b; b++)
		if (path_is_within(*b, path)) {
			from = strlen(*b);
			break;
		}
	for (size_t i = from + 1; i <= strlen(path); i++) {
		if (path[i] != '/' && path[i])
			continue;
		char *prefix = xstrndup(path, i);
		const struct deny_rule *r = denies_match(prefix + from + (path[from] == '/'));
		free(prefix);
		if (r) {
			*len = i;
			return r;
		}
	}
	return NULL;
}

int denies_say_no_writes(struct strbuf *err, const char *entry, const char *path, size_t len,
			 const struct deny_rule *r)
{
	strbuf_reset(err);
	strbuf_addf(err,
		    "write grant '%s' %s %.*s, a mandatory deny (%s); no grant opens it: "
		    "grant a directory that does not hold it",
		    entry, path[len] ? "lies in" : "names", (int)len, path, r->why);
	return -1;
}

int denies_refuse_write(struct strbuf *err, const char *entry, const char *path, const char *ws,
			const char *home)
{
	const char *bases[] = {ws, home ? home : ws, NULL};
	size_t len;
	const struct deny_rule *r = denies_holding(path, bases, &len);
	return r ? denies_say_no_writes(err, entry, path, len, r) : 0;
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
