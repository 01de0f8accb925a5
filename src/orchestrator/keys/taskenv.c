/* taskenv.c - the environment vx gives a task's command. */
#include "orchestrator/keys/taskenv.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/config/config.h"
#include "orchestrator/config/framework.h"
#include "util/die.h"
#include "util/envname.h"
#include "util/strbuf.h"

extern char **environ;

/* node_modules/.bin of the project, then the root's, before host_path
 * (NULL: the usual system directories). */
static char *project_path(const struct workspace *ws, const struct project *p,
			  const char *host_path)
{
	const char *rest = host_path ? host_path : "/usr/local/bin:/usr/bin:/bin";
	if (p->is_root)
		return xasprintf("%s/node_modules/.bin:%s", p->dir, rest);
	return xasprintf("%s/node_modules/.bin:%s/node_modules/.bin:%s", p->dir, ws->root, rest);
}

char *task_env_path(const struct workspace *ws, const struct task_node *t)
{
	const struct project *p = ws->projects.v[t->project];
	const char *host = getenv("PATH");
	if (p->pkg_path)
		return project_path(ws, p, host);
	return xstrdup(host ? host : "/usr/local/bin:/usr/bin:/bin");
}

void task_env_delta(const struct workspace *ws, const struct task_node *t, struct strvec *delta)
{
	const struct project *p = ws->projects.v[t->project];
	strvec_pushf(delta, "VX_TASK=%s", t->id);
	strvec_pushf(delta, "VX_PROJECT=%s", p->name);
	strvec_pushf(delta, "VX_WORKSPACE_ROOT=%s", ws->root);
	if (p->pkg_path) {
		char *path = project_path(ws, p, getenv("PATH"));
		strvec_pushf(delta, "PATH=%s", path);
		free(path);
	}
	if (t->from_script) {
		/* What a script of the workspace's package manager sees when that
		 * manager runs it in the package's directory; vx spawns no
		 * manager (docs/config.md). */
		strvec_pushf(delta, "npm_package_name=%s", p->name);
		if (p->pkg_version)
			strvec_pushf(delta, "npm_package_version=%s", p->pkg_version);
		strvec_pushf(delta, "npm_lifecycle_event=%s", t->task);
		const char *script = project_script(p, t->task);
		if (script)
			strvec_pushf(delta, "npm_lifecycle_script=%s", script);
		if (p->pkg_path)
			strvec_pushf(delta, "npm_package_json=%s", p->pkg_path);
		strvec_pushf(delta, "INIT_CWD=%s", p->dir);
		strvec_pushf(delta, "npm_config_user_agent=%s/%s vx/%s", ws->pm.name,
			     *ws->pm.version ? ws->pm.version : "0.0.0", VX_VERSION);
	}
}

/* Sets entry ("NAME=VALUE") in env, replacing one of the same name. */
static void env_put(struct strvec *env, const char *entry)
{
	size_t n = strcspn(entry, "=");
	for (size_t i = 0; i < env->n; i++)
		if (!strncmp(env->v[i], entry, n) && env->v[i][n] == '=') {
			free(env->v[i]);
			env->v[i] = xstrdup(entry);
			return;
		}
	strvec_push(env, entry);
}

/* What envMode strict passes to every task, as turbo 2.11.13 does: read
 * off its tasks' environments with ~90 candidate names set (docs/turborepo.md). */
static const char *const strict_always[] = {
    "APPDATA",
    "CI",
    "COLORTERM",
    "COMSPEC",
    "COREPACK_*",
    "DISPLAY",
    "DYLD_FALLBACK_LIBRARY_PATH",
    "FORCE_COLOR",
    "GITHUB_*",
    "HOME",
    "HOMEDRIVE",
    "HOMEPATH",
    "LANG",
    "LD_LIBRARY_PATH",
    "LIBPATH",
    "LOCALAPPDATA",
    "NEXT_*",
    "NO_COLOR",
    "NODE_OPTIONS",
    "PATH",
    "PATHEXT",
    "PNPM_HOME",
    "PROGRAMDATA",
    "ProgramFiles",
    "PWD",
    "RUNNER_*",
    "SHELL",
    "SYSTEMROOT",
    "TEMP",
    "TERM",
    "TERM_PROGRAM",
    "TMP",
    "TMPDIR",
    "TURBO_*",
    "TZ",
    "USER",
    "USERPROFILE",
    "VERCEL",
    "VERCEL_*",
    "WINDIR",
    "XDG_DATA_HOME",
    "XDG_RUNTIME_DIR",
    NULL,
};

/* Does NAME (len bytes) match a pattern: NAME, or PREFIX* ? */
static bool name_matches(const char *pat, const char *name, size_t len)
{
	size_t pl = strlen(pat);
	if (pl && pat[pl - 1] == '*')
		return len >= pl - 1 && !strncmp(pat, name, pl - 1);
	return pl == len && !strncmp(pat, name, len);
}

/* Whether a list of Turborepo env patterns (NAME, wildcards, "!NAME"
 * taking away) lets NAME through. */
static bool list_passes(const lstr_vec *l, const char *name, size_t len)
{
	bool pass = false;
	for (size_t i = 0; i < l->n; i++) {
		const char *p = l->v[i].s;
		char *n = xstrndup(name, len);
		bool m = !fnmatch(p[0] == '!' ? p + 1 : p, n, 0);
		free(n);
		if (m)
			pass = p[0] != '!';
	}
	return pass;
}

/* Whether an env list takes name away ("!NAME", "!NEXT_PUBLIC_*"). */
static bool list_excludes(const lstr_vec *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].s[0] == '!' && !fnmatch(l->v[i].s + 1, name, 0))
			return true;
	return false;
}

/* Whether task t's env or the workspace's takes name away. */
static bool env_excluded(const struct workspace *ws, const struct task_node *t, const char *name)
{
	return list_excludes(&t->cfg->input_env, name) ||
	       list_excludes(&ws->cfg->ws_input_env, name);
}

const struct framework *task_framework(const struct workspace *ws, const struct task_node *t)
{
	return ws->cfg->no_framework_inference ? NULL : ws->projects.v[t->project]->framework;
}

void task_env_keyed(const struct workspace *ws, const struct task_node *t, struct strvec *names,
		    struct strvec *inferred)
{
	const lstr_vec *lists[] = {&t->cfg->input_env, &ws->cfg->ws_input_env};
	for (size_t l = 0; l < 2; l++)
		for (size_t e = 0; e < lists[l]->n; e++)
			if (lists[l]->v[e].s[0] != '!')
				strvec_push(names, lists[l]->v[e].s);
	strvec_sort_unique(names);
	const struct framework *fw = task_framework(ws, t);
	if (!fw)
		return;
	struct strvec all = STRVEC_INIT;
	framework_env_names(fw, environ, &all);
	for (size_t k = 0; k < all.n; k++)
		if (!env_excluded(ws, t, all.v[k]) && strvec_find(names, all.v[k]) < 0)
			strvec_push(inferred, all.v[k]);
	strvec_clear(&all);
}

/* What a sandboxed task gets beyond strict_always: the locale family.
 * Turborepo passes LANG alone (t0181's oracle sets LC_ALL and turbo drops
 * it); a tool's messages and sort order follow LC_*, and no locale holds a
 * secret. The host's proxy variables are not here: every connection out of
 * a sandbox goes through vx's own proxy, which sets them (network.md), and
 * a proxy URL can carry a user and password. */
static const char *const sandbox_always[] = {
    "LANGUAGE",
    "LC_*",
    NULL,
};

/* Whether the variable of entry ("NAME", len bytes of it) is one task t's
 * config names: its key's (inputs.env, the workspace's, its framework's)
 * and the pass-through lists'. */
static bool env_named(const struct workspace *ws, const struct task_node *t, const char *entry,
		      size_t len)
{
	const struct framework *fw = task_framework(ws, t);
	if (fw && framework_keys(fw, entry, len)) {
		/* what the framework bakes in is keyed, so it is passed too */
		char *name = xstrndup(entry, len);
		bool out = env_excluded(ws, t, name);
		free(name);
		if (!out)
			return true;
	}
	return list_passes(&t->cfg->input_env, entry, len) ||
	       list_passes(&t->cfg->env_pass, entry, len) ||
	       list_passes(&t->cfg->env_pass_secrets, entry, len) ||
	       list_passes(&ws->cfg->ws_input_env, entry, len) ||
	       list_passes(&ws->cfg->ws_env_pass, entry, len);
}

/* envMode strict: the variable of entry ("NAME=VALUE") reaches task t. A
 * sandboxed task also gets the locale (sandbox_always), and a name that
 * looks like a credential only when its config names it: the always list's
 * wildcards are Turborepo's choice, not the user's, and GITHUB_*, RUNNER_*,
 * VERCEL_*, TURBO_* hold CI's tokens (GITHUB_TOKEN, VERCEL_OIDC_TOKEN). */
static bool strict_passes(const struct workspace *ws, const struct task_node *t, const char *entry,
			  bool sandboxed)
{
	size_t len = strcspn(entry, "=");
	if (env_named(ws, t, entry, len))
		return true;
	for (const char *const *p = strict_always; *p; p++)
		if (name_matches(*p, entry, len))
			return !sandboxed || !strchr(*p, '*') || !envname_credential(entry, len);
	for (const char *const *p = sandbox_always; sandboxed && *p; p++)
		if (name_matches(*p, entry, len))
			return true;
	return false;
}

/* Whether vx's variable entry reaches task t, sandboxed or not: a
 * sandboxed task's environment is strict whatever envMode (issue 53: in
 * loose mode DATABASE_URL, RAILS_MASTER_KEY, CI_JOB_JWT reached it, and a
 * cached one that printed an undeclared variable replayed the old value
 * after it changed). What it gets is what strict mode keys: the key's
 * names; the rest (always-passed, pass-through) is unkeyed, as it is for
 * Turborepo. */
static bool env_passes(const struct workspace *ws, const struct task_node *t, const char *entry,
		       bool sandboxed)
{
	if (envname_vx_secret(entry))
		return false;
	if (!sandboxed && !ws->cfg->env_strict)
		return true;
	return strict_passes(ws, t, entry, sandboxed);
}

void task_env_held_back(const struct workspace *ws, const struct task_node *t, struct strvec *names)
{
	if (!t->cfg->sandbox)
		return;
	for (char **e = environ; *e; e++)
		if (!env_passes(ws, t, *e, true) && env_passes(ws, t, *e, false))
			strvec_push_nodup(names, xstrndup(*e, strcspn(*e, "=")));
}

void task_env(const struct workspace *ws, const struct task_node *t, struct strvec *env)
{
	bool sandboxed = t->cfg->sandbox != NULL;
	for (char **e = environ; *e; e++)
		if (env_passes(ws, t, *e, sandboxed))
			strvec_push(env, *e);
	for (size_t i = 0; i < t->cfg->env_define.n; i++) {
		char *kv =
		    xasprintf("%s=%s", t->cfg->env_define.v[i].key, t->cfg->env_define.v[i].value);
		env_put(env, kv);
		free(kv);
	}
	struct strvec delta = STRVEC_INIT;
	task_env_delta(ws, t, &delta);
	for (size_t i = 0; i < delta.n; i++)
		env_put(env, delta.v[i]);
	strvec_clear(&delta);
}
