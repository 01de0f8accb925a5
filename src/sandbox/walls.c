/* walls.c - the walls a task's grants are punched around. */
#include "sandbox/walls.h"

#include <stdlib.h>
#include <string.h>

#include "sandbox/grants.h"
#include "util/path.h"
#include "util/strbuf.h"

/* Relative to home. A task that needs one of these is a task that would
 * publish or push with the developer's identity: that is not a build step. */
const char *const walls_credentials[] = {
    ".ssh",
    ".aws",
    ".gnupg",
    ".npmrc",
    ".netrc",
    ".docker/config.json",
    ".config/gh",
    ".kube",
    ".git-credentials",
    ".pypirc",
    ".config/gcloud",
    ".azure",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".config/hub",
    ".vault-token",
    ".terraform.d/credentials.tfrc.json",
    ".config/git/credentials",
    /* issue 36: what docs/sandbox.md itself calls credentials, readable
     * under an explicit `~/` grant */
    ".claude/.credentials.json",
    ".claude.json",
    ".yarnrc.yml",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
    ".gradle/gradle.properties",
    ".composer/auth.json",
    ".config/composer/auth.json",
    ".config/op",
    ".op",
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".local/share/keyrings",
    ".password-store",
    ".env",
    ".terraformrc",
    ".pgpass",
    ".my.cnf",
    ".config/sops",
    ".config/rclone",
    ".s3cfg",
    NULL,
};

static void add(wall_vec *out, char *path, enum wall_kind kind)
{
	for (size_t i = 0; i < out->n; i++)
		if (!strcmp(out->v[i].path, path)) {
			free(path);
			return;
		}
	struct wall w = {path, kind};
	vec_push(out, w);
}

/* A worktree's .git is a file "gitdir: PATH"; the objects live in PATH's
 * commondir. Both are the repository: a task must not rewrite refs or hooks. */
static void add_gitfile(const char *workspace_root, wall_vec *out)
{
	char *dotgit = path_join(workspace_root, ".git");
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, dotgit) == 0 && !strncmp(sb.buf, "gitdir: ", 8)) {
		char *val = xstrndup(sb.buf + 8, strcspn(sb.buf + 8, "\r\n"));
		char *gitdir = path_join(workspace_root, val);
		char *real = grants_canonical(gitdir);
		char *commonfile = path_join(real, "commondir");
		struct strbuf cs = STRBUF_INIT;
		if (strbuf_read_file(&cs, commonfile) == 0) {
			char *cval = xstrndup(cs.buf, strcspn(cs.buf, "\r\n"));
			char *common = path_join(real, cval);
			char *creal = grants_canonical(common);
			if (!path_is_within(workspace_root, creal))
				add(out, creal, WALL_GIT);
			else
				free(creal);
			free(common);
			free(cval);
		}
		strbuf_release(&cs);
		if (!path_is_within(workspace_root, real))
			add(out, real, WALL_GIT);
		else
			free(real);
		free(commonfile);
		free(gitdir);
		free(val);
	}
	strbuf_release(&sb);
	free(dotgit);
}

void walls_collect(const struct walls_input *in, wall_vec *out)
{
	for (size_t i = 0; i < in->n_nested; i++)
		if (!path_is_within(in->nested_dirs[i], in->project_dir))
			/* not the task's own project, nor one holding it */
			add(out, xstrdup(in->nested_dirs[i]), WALL_NESTED);
	add(out, path_join(in->workspace_root, ".git"), WALL_GIT);
	add(out, path_join(in->project_dir, ".git"), WALL_GIT);
	/* All of .vx is vx's, not only the cache and the stage (other tasks'
	 * staged write grants): a root project's task with write: ["./"]
	 * rewrote .vx/probe, the verdict vx trusts to skip its sandbox probe,
	 * and .vx/runs/ (issue 53 item 10); the config guards live there too. */
	char *dotvx = path_join(in->workspace_root, ".vx");
	char *cache = in->cache_dir ? grants_canonical(in->cache_dir) : NULL;
	if (cache && !path_is_within(dotvx, cache))
		add(out, cache, WALL_CACHE);
	else
		free(cache);
	add(out, dotvx, WALL_STATE);
	if (in->run_base)
		add(out, grants_canonical(in->run_base), WALL_RUN);
	add_gitfile(in->workspace_root, out);
	if (in->home && *in->home)
		for (const char *const *c = walls_credentials; *c; c++)
			add(out, path_join(in->home, *c), WALL_CREDENTIAL);
}

const struct wall *walls_inside(const wall_vec *w, const char *path)
{
	for (size_t i = 0; i < w->n; i++)
		if (path_is_within(path, w->v[i].path))
			return &w->v[i];
	return NULL;
}

const struct wall *walls_holding(const wall_vec *w, const char *path)
{
	for (size_t i = 0; i < w->n; i++)
		if (path_is_within(w->v[i].path, path))
			return &w->v[i];
	return NULL;
}

bool walls_show_linked(const wall_vec *w, const char *ws, const char *proj, const char *real)
{
	const struct wall *in = walls_holding(w, real);
	return path_is_within(ws, real) && !path_is_within(real, proj) &&
	       (!in || in->kind == WALL_NESTED);
}

int walls_say_no_writes(struct strbuf *err, const char *entry, const struct wall *w)
{
	strbuf_reset(err);
	strbuf_addf(err, "write grant '%s' lies in %s (%s); vx never grants writes there", entry,
		    w->path, walls_kind_name(w->kind));
	return -1;
}

const char *walls_kind_name(enum wall_kind k)
{
	switch (k) {
	case WALL_NESTED:
		return "a nested project";
	case WALL_GIT:
		return "the git repository";
	case WALL_CACHE:
		return "the vx cache";
	case WALL_CREDENTIAL:
		return "a credential store";
	case WALL_RUN:
		return "vx's run directory";
	case WALL_STATE:
		return "vx's own state";
	}
	return "a wall";
}

void walls_clear(wall_vec *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i].path);
	vec_free(w);
}
