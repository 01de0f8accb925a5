/* rootfiles.c - which of the workspace root's own files a task is shown:
 * the names tools walk up to, a .env* only when the task's key names it, a
 * .npmrc only when it holds nothing but harmless settings. */
#include "sandbox/rootfiles.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/glob.h"
#include "util/io.h"
#include "util/path.h"
#include "util/strbuf.h"

/* The settings a root .npmrc may hold and still be shown to every task:
 * npm's, pnpm's and yarn 1's, each one that carries no credential (issue
 * 53 item 6). A list of what is harmless, not of what is secret: the
 * filter it replaced looked for _authToken, _auth and _password and let
 * `key=` (an inline private key) through, and the next credential setting
 * a package manager adds would pass a list of secrets the same way, where
 * here it hides the file. */
static const char *const npmrc_harmless[] = {
    "registry",
    "save",
    "save-exact",
    "save-prefix",
    "save-workspace-protocol",
    "engine-strict",
    "auto-install-peers",
    "strict-peer-dependencies",
    "dedupe-peer-dependents",
    "resolve-peers-from-workspace-root",
    "shamefully-hoist",
    "hoist",
    "hoist-pattern[]",
    "public-hoist-pattern[]",
    "hoist-workspace-packages",
    "node-linker",
    "symlink",
    "link-workspace-packages",
    "prefer-workspace-packages",
    "shared-workspace-lockfile",
    "inject-workspace-packages",
    "disallow-workspace-cycles",
    "recursive-install",
    "legacy-peer-deps",
    "install-strategy",
    "install-links",
    "package-lock",
    "lockfile",
    "prefer-frozen-lockfile",
    "prefer-offline",
    "prefer-online",
    "resolution-mode",
    "enable-pre-post-scripts",
    "manage-package-manager-versions",
    "package-manager-strict",
    "package-manager-strict-version",
    "use-node-version",
    "fund",
    "audit",
    "audit-level",
    "progress",
    "loglevel",
    "color",
    "update-notifier",
    "git-checks",
    "omit[]",
    "include[]",
    "optional",
    "child-concurrency",
    "network-concurrency",
    "fetch-retries",
    "fetch-timeout",
    NULL,
};

/* Is the key (n bytes, trimmed) of a .npmrc line a harmless setting: one of
 * npmrc_harmless, or a scope's registry (@scope:registry)? A `//host/:...`
 * line is a registry's own setting, where npm keeps tokens, passwords,
 * certificates and keys: never harmless, whatever its value. */
static bool npmrc_key_harmless(const char *k, size_t n)
{
	if (n > 10 && k[0] == '@' && !memcmp(k + n - 9, ":registry", 9) && !memchr(k, '/', n))
		return true;
	for (const char *const *h = npmrc_harmless; *h; h++)
		if (strlen(*h) == n && !memcmp(*h, k, n))
			return true;
	return false;
}

/* Does the value v (n bytes) hold a URL whose authority names a user
 * (scheme://user[:password]@host)? */
static bool url_has_user(const char *v, size_t n)
{
	const char *s = v, *stop = v + n;
	for (; s + 3 <= stop; s++)
		if (!memcmp(s, "://", 3))
			break;
	if (s + 3 > stop)
		return false;
	for (s += 3; s < stop && *s != '/'; s++)
		if (*s == '@')
			return true;
	return false;
}

/* May a root .npmrc be shown to every task: is each line blank, a comment
 * (`#`, `;`) or a harmless setting (`key = value`) whose value is no URL
 * with a user in it (`registry=https://me:token@host/`)? A section header,
 * a line with no `=`, an unknown key and an unreadable file hide it. */
static bool npmrc_harmless_file(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	bool ok = strbuf_read_file(&sb, path) == 0;
	for (const char *line = sb.buf; ok && line && *line;) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		const char *k = line, *stop = line + n;
		while (k < stop && (*k == ' ' || *k == '\t' || *k == '\r'))
			k++;
		if (k < stop && *k != '#' && *k != ';') {
			const char *eq = memchr(k, '=', (size_t)(stop - k));
			const char *ke = eq;
			while (ke && ke > k && (ke[-1] == ' ' || ke[-1] == '\t'))
				ke--;
			ok = eq && npmrc_key_harmless(k, (size_t)(ke - k)) &&
			     !url_has_user(eq + 1, (size_t)(stop - eq - 1));
		}
		line = end ? end + 1 : NULL;
	}
	strbuf_release(&sb);
	return ok;
}

bool sandbox_lockfile_name(const char *name)
{
	static const char *const names[] = {"package-lock.json",
					    "npm-shrinkwrap.json",
					    "pnpm-lock.yaml",
					    "yarn.lock",
					    "bun.lock",
					    "bun.lockb",
					    NULL};
	for (const char *const *n = names; *n; n++)
		if (!strcmp(name, *n))
			return true;
	return false;
}

/* Is name one of the workspace root's own files that tools walk up to
 * (issue 40 item 5): the manifests, the lockfiles, turbo.json, .gitignore,
 * .npmrc, the TypeScript configs and the .env files? (The last two with a
 * condition: sandbox_root_files.) */
bool sandbox_root_file(const char *name)
{
	static const char *const names[] = {
	    "package.json", "pnpm-workspace.yaml", "turbo.json",
	    "turbo.jsonc",  ".gitignore",	   ".npmrc",
	    NULL,
	};
	for (const char *const *n = names; *n; n++)
		if (!strcmp(name, *n))
			return true;
	size_t len = strlen(name);
	return sandbox_lockfile_name(name) ||
	       (!strncmp(name, "tsconfig", 8) && len >= 13 && !strcmp(name + len - 5, ".json")) ||
	       !strcmp(name, ".env") || !strncmp(name, ".env.", 5);
}

void sandbox_root_files(const char *ws, const char *proj, const char *const *named, size_t n_named,
			struct strvec *out)
{
	if (!strcmp(proj, ws))
		return; /* the root project reads its own */
	DIR *d = opendir(ws);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		if (!sandbox_root_file(e->d_name))
			continue;
		/* A .env file holds the secrets of whatever reads it (issue 53
		 * item 6: every task of every project read .env.keys): shown
		 * to a task whose own key names it, which says the task reads
		 * it; an allow.read grant shows it as any grant does. */
		if ((!strcmp(e->d_name, ".env") || !strncmp(e->d_name, ".env.", 5)) &&
		    !globlist_match((char *const *)named, n_named, e->d_name))
			continue;
		char *p = path_join(ws, e->d_name);
		struct stat st;
		if (!lstat(p, &st) && S_ISREG(st.st_mode) &&
		    (strcmp(e->d_name, ".npmrc") || npmrc_harmless_file(p)))
			strvec_push(out, p);
		free(p);
	}
	closedir(d);
	strvec_sort(out);
}
