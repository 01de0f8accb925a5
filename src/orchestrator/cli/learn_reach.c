/* learn_reach.c - the line `vx sandbox learn` keeps between what it writes
 * and what it asks a person for (issue 53, docs/sandbox.md). */
#include "orchestrator/cli/learn_reach.h"

#include <stdlib.h>
#include <string.h>

#include "sandbox/config_names.h"
#include "sandbox/denies.h"
#include "sandbox/request.h"
#include "util/die.h"
#include "util/glob.h"
#include "util/path.h"
#include "util/strbuf.h"

/* Under home, the places a toolchain lives (a version manager's installs,
 * a browser a test runner downloads); with request.c's sandbox_home_caches,
 * the read-only caches builds read, the reads learn writes by itself.
 * None holds a credential: those are walls (walls.c). */
const char *const learn_reach_home_toolchain[] = {
    ".nvm",
    ".fnm",
    ".local/share/fnm",
    ".volta",
    ".asdf/installs",
    ".local/share/mise/installs",
    ".pyenv/versions",
    ".rustup/toolchains",
    ".bun/bin",
    ".deno/bin",
    ".sdkman/candidates",
    ".cache/ms-playwright",
    ".cache/Cypress",
    ".cache/puppeteer",
    NULL,
};

bool learn_reach_secret_name(const char *name)
{
	/* Names, then patterns: what a repository or a home keeps secrets
	 * in. `.env.example` is here too: a person says it is a template. */
	static const char *const names[] = {
	    ".env",    ".npmrc",   ".yarnrc.yml",      ".yarnrc",     ".netrc",	      ".pypirc",
	    ".pgpass", ".my.cnf",  ".git-credentials", ".dockercfg",  ".vault-token", "id_rsa",
	    "id_dsa",  "id_ecdsa", "id_ed25519",       "credentials", ".htpasswd",    "auth.json",
	    NULL,
	};
	static const char *const patterns[] = {
	    ".env.*",	     "*.pem",	   "*.key",    "*.p12",	    "*.pfx",
	    "*.jks",	     "*.keystore", "*.kdbx",   "*.gpg",	    "*.asc",
	    "*credentials*", "*secret*",   "*.tfvars", "*.tfstate", NULL,
	};
	for (const char *const *n = names; *n; n++)
		if (!strcmp(name, *n))
			return true;
	for (const char *const *p = patterns; *p; p++)
		if (glob_match(*p, name))
			return true;
	return false;
}

/* The literal directory before abs's first wildcard, unescaped ("/" when
 * there is none). */
static char *literal_head(const char *abs)
{
	size_t n = glob_literal_prefix(abs);
	return n ? glob_unescape(abs, n) : xstrdup("/");
}

/* Could pattern abs name a file called name directly in dir (its literal
 * head), or is it that file? */
static bool may_name(const char *abs, const char *head, const char *name)
{
	char *p = path_join(head, name);
	bool yes = glob_match(abs, p) || !strcmp(head, p);
	free(p);
	return yes;
}

static bool has_component(const char *rel, const char *name)
{
	size_t n = strlen(name);
	for (const char *s = rel; s && *s; s = strchr(s, '/') ? strchr(s, '/') + 1 : NULL)
		if (!strncmp(s, name, n) && (s[n] == '/' || !s[n]))
			return true;
	return false;
}

/* Could abs (head its literal head) name a file that decides what vx runs,
 * or a mandatory deny? Judged on its name: the last component when abs is
 * literal, else every such name directly in head. */
static const char *names_trusted(const char *abs, const char *head, bool literal)
{
	const char *base = path_basename(head);
	for (const char *const *c = config_names; *c; c++)
		if (literal ? !strcmp(base, *c) : may_name(abs, head, *c))
			return "a file that decides what vx runs (SPEC §4): a write grant names "
			       "it only by a person's hand";
	for (const struct deny_rule *r = denies_table; r->name; r++) {
		bool hit = literal ? denies_match(head) == r
				   : !strchr(r->name, '/') && may_name(abs, head, r->name);
		if (hit)
			return "a mandatory deny (what runs or is trusted without asking)";
	}
	return NULL;
}

static bool within_any(const char *const *dirs, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (path_is_within(dirs[i], path))
			return true;
	return false;
}

/* Does a pattern of pats hold head: match it, name a directory holding it,
 * or hold all below it ("head/" + "**")? */
static bool held_by(const char *const *pats, size_t n, const char *head)
{
	size_t hn = strlen(head);
	for (size_t i = 0; i < n; i++) {
		const char *p = pats[i];
		size_t len = strlen(p);
		if (glob_match(p, head) || (!glob_has_magic(p) && path_is_within(p, head)) ||
		    (len == hn + 3 && !strncmp(p, head, hn) && !strcmp(p + hn, "/**")))
			return true;
	}
	return false;
}

static const char *read_asks(const struct learn_scope *s, const char *head)
{
	if (path_is_within(s->workspace_root, head)) {
		char *rel = path_relative(s->workspace_root, head);
		bool wall = has_component(rel, ".git") || has_component(rel, ".vx");
		free(rel);
		if (wall)
			return "a wall (.git, .vx): no grant opens it";
		if (path_is_within(s->project_dir, head) &&
		    !within_any(s->nested, s->n_nested, head))
			return NULL;
		if (held_by(s->dep_outputs, s->n_dep_outputs, head) ||
		    held_by(s->keyed, s->n_keyed, head))
			return NULL;
		return "a read outside its own project that its key does not hold (key it "
		       "with inputs.workspaceFiles, or depend on the task that makes it)";
	}
	if (s->home && *s->home && strcmp(s->home, "/") && path_is_within(s->home, head)) {
		char *rel = path_relative(s->home, head);
		bool tool = false;
		for (const char *const *t = learn_reach_home_toolchain; *t && !tool; t++)
			tool = path_is_within(*t, rel);
		for (const char *const *t = sandbox_home_caches; *t && !tool; t++)
			tool = path_is_within(*t, rel);
		free(rel);
		return tool ? NULL : "under home, beyond the toolchain and its caches";
	}
	return "outside the workspace and the toolchain";
}

static const char *write_asks(const struct learn_scope *s, const char *abs, const char *head,
			      bool literal)
{
	if (!path_is_within(s->project_dir, head))
		return "a write outside its own project";
	if (literal && !strcmp(head, s->project_dir))
		return "all of its own project, its sources among them";
	if (within_any(s->nested, s->n_nested, head))
		return "a write into a project nested in its own";
	char *rel = path_relative(s->project_dir, head);
	bool wall = has_component(rel, ".git") || has_component(rel, ".vx");
	free(rel);
	if (wall)
		return "a wall (.git, .vx): no grant opens it";
	const char *bases[] = {s->workspace_root, NULL};
	size_t len;
	if (denies_holding(head, bases, &len))
		return "a mandatory deny (what runs or is trusted without asking)";
	return names_trusted(abs, head, literal);
}

const char *learn_reach_asks(const struct learn_scope *s, enum learn_field f, const char *abs)
{
	if (f == LEARN_NETWORK)
		return "network: what a task may reach beyond this machine is a person's call";
	bool literal = !glob_has_magic(abs);
	char *head = literal ? glob_unescape(abs, strlen(abs)) : literal_head(abs);
	size_t hn = strlen(head);
	while (hn > 1 && head[hn - 1] == '/')
		head[--hn] = 0;
	const char *why = NULL;
	const char *base = path_basename(head);
	bool secret = literal ? learn_reach_secret_name(base) : false;
	/* A pattern that could name a secret: a read grant's where it points
	 * (its head); a key's only at the workspace root, where a root .env
	 * the key names is shown to the task (request.c); a project's own
	 * inputs.files key files it reads anyway. */
	const char *probe_at = f == LEARN_READ	     ? head
			       : f == LEARN_WS_FILES ? s->workspace_root
						     : NULL;
	static const char *const probes[] = {".env",   ".env.local", ".npmrc",
					     "id_rsa", "x.pem",	     NULL};
	for (const char *const *p = probes; !literal && probe_at && *p && !secret; p++)
		secret = may_name(abs, probe_at, *p);
	if (secret && f != LEARN_WRITE)
		why = "it may hold a secret (.env, .npmrc, a key): a person names it";
	else if (f == LEARN_READ)
		why = read_asks(s, head);
	else if (f == LEARN_WRITE)
		why = write_asks(s, abs, head, literal);
	free(head);
	return why;
}
