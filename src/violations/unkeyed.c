/* unkeyed.c - read-unkeyed (unkeyed.h): what a cached task read that its
 * key does not hold, judged where the kernel opened it, and its fix. */
#include "violations/unkeyed.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sandbox/rootfiles.h"
#include "util/glob.h"
#include "util/io.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "violations/fix.h"
#include "violations/notes.h"

static int cmp_rel(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

/* Does the cached task's key hold the workspace-relative file rel? */
static bool in_key(const struct judge_input *in, const char *rel)
{
	return in->keyed && bsearch(rel, in->keyed, in->n_keyed, sizeof *in->keyed, cmp_rel);
}

static bool has_component(const char *rel, const char *name)
{
	size_t n = strlen(name);
	for (const char *s = rel; (s = strstr(s, name)); s += n)
		if ((s == rel || s[-1] == '/') && (s[n] == '/' || !s[n]))
			return true;
	return false;
}

/* Is rel (workspace-relative) a tool's own incremental cache, one the
 * tool validates itself against the inputs it reads (content hashes or
 * versions of each source), so what an earlier run left there cannot
 * change what this run makes (issue 54 item 3: after a sandboxed build,
 * the first rebuild after any edit failed read-unkeyed on
 * .next/cache/webpack/.../index.pack and .cache/tsbuildinfo.json, and
 * learn went round removing them)? A leftover read there is judged as
 * `sandbox.ignore.read` would have it: not a violation. The table, and
 * why each is safe, is docs/violations.md's. */
bool judge_tool_cache(const char *rel)
{
	static const char *const dirs[] = {
	    ".next/cache",	   /* webpack's and SWC's, keyed by content hashes */
	    "node_modules/.cache", /* babel-loader, terser, eslint-loader: content-keyed */
	    "node_modules/.vite",  /* Vite's optimized deps (lockfile-hashed), vitest's results */
	    ".parcel-cache",	   /* Parcel's, content-keyed */
	    ".angular/cache",	   /* the Angular CLI's, content-keyed */
	    ".swc",		   /* SWC's plugin cache, keyed by plugin version */
	    NULL,
	};
	for (const char *const *d = dirs; *d; d++) {
		const char *at = strstr(rel, *d);
		size_t n = strlen(*d);
		if (at && (at == rel || at[-1] == '/') && at[n] == '/')
			return true;
	}
	const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	/* ESLint's and Stylelint's caches, keyed by each file's content and
	 * the config's hash */
	return !strcmp(base, ".eslintcache") || !strcmp(base, ".stylelintcache");
}

static bool self_validating_cache(const struct judge_input *in, const char *path, const char *rel)
{
	if (judge_tool_cache(rel))
		return true;
	const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	/* tsc's build info (its sources' hashes: tsc -b, --incremental), any
	 * name a tsconfig gives it, only where the task's outputs hold it:
	 * kept while the dist/ it describes is deleted or restored older,
	 * tsc emits only what changed and the dist/ is incomplete
	 * (Turborepo's stale-output report); saved and restored with it,
	 * the two agree. */
	if (!strstr(base, "tsbuildinfo") || !judge_under(in->project_dir, path))
		return false;
	char *own = path_relative(in->project_dir, path);
	bool held = globlist_match((char *const *)in->own_outputs, in->n_own_outputs, own);
	free(own);
	return held;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The write grant path lies in (the first that holds it), or NULL. */
static const char *write_root_of(const struct judge_input *in, const char *path)
{
	for (size_t i = 0; i < in->n_write_roots; i++)
		if (path_is_within(in->write_roots[i], path))
			return in->write_roots[i];
	return NULL;
}

/* The key written holds a link the task made under (its path after it). */
#define LINK_MADE "\001"

/* Whether path, or a directory it lies in, is a link the task made. */
static bool through_link_made(const struct strmap *written, const char *path)
{
	char *k = xasprintf("%s%s", LINK_MADE, path);
	bool made = false;
	for (char *slash; !made;) {
		size_t at;
		made = strmap_get(written, k, &at);
		slash = strrchr(k, '/');
		if (!slash || slash == k + 1)
			break;
		*slash = '\0';
	}
	free(k);
	return made;
}

/* The paths the task made in this run, each with the index of its first
 * event (a file written, linked or renamed there, a directory made), by
 * its lexical path and by the one its directory resolves to. */
void unkeyed_written(const struct judge_input *in, struct strmap *written, struct strvec *keys,
		     const struct access_event *ev, size_t nev)
{
	/* a directory's resolution, once (keys borrowed from names): into reals */
	struct strmap dirs = STRMAP_INIT;
	struct strvec names = STRVEC_INIT, reals = STRVEC_INIT;
	for (size_t i = 0; i < nev; i++) {
		const struct access_event *e = &ev[i];
		/* a hard link is no file made: its bytes are its source's, which
		 * link(2) does not read, so reading it back is a read of that
		 * source (a review: link an undeclared file into a grant, read
		 * it there, unlink it) */
		if (e->err || e->unresolved || e->truncated || e->path[0] != '/' ||
		    !(e->op == ACCESS_WRITE || e->op == ACCESS_RENAME_TO ||
		      e->op == ACCESS_SYMLINK || e->op == ACCESS_TRUNCATE || e->op == ACCESS_MKDIR))
			continue;
		size_t first;
		if (!strmap_get(written, e->path, &first))
			strmap_put(written, e->path, i);
		if (e->op == ACCESS_SYMLINK) {
			/* a link made: an exec through it is placed by it alone */
			char *k = xasprintf("%s%s", LINK_MADE, e->path);
			if (strmap_get(written, k, &first)) {
				free(k);
			} else {
				strvec_push_nodup(keys, k);
				strmap_put(written, k, i);
			}
		}
		if (e->real) {
			/* -y: where the kernel made it, when it was made; through a
			 * link, only inside a write grant (a write-open that
			 * appended nothing through a link to an undeclared file
			 * made nothing of it) */
			if (strcmp(e->real, e->path) && write_root_of(in, e->real) &&
			    !strmap_get(written, e->real, &first))
				strmap_put(written, e->real, i);
			continue;
		}
		char *dir = path_dirname(e->path);
		size_t at;
		if (!strmap_get(&dirs, dir, &at)) {
			char *rdir = judge_host_resolve(in, dir);
			at = reals.n;
			strvec_push(&reals, rdir ? rdir : "");
			free(rdir);
			strvec_push_nodup(&names, dir);
			strmap_put(&dirs, dir, at);
		} else {
			free(dir);
		}
		if (*reals.v[at]) {
			char *real = path_join(reals.v[at], path_basename(e->path));
			if (strcmp(real, e->path) && !strmap_get(written, real, &first)) {
				strvec_push_nodup(keys, real);
				strmap_put(written, real, i);
			} else {
				free(real);
			}
		}
	}
	strmap_clear(&dirs);
	strvec_clear(&names);
	strvec_clear(&reals);
}

/* The task made path (or a directory it lies in, below root) before
 * event at, or vx made it empty for a file grant: what it reads there is
 * its own work, not an earlier run's. */
static bool made_in_run(const struct judge_input *in, const struct strmap *written,
			const char *root, const char *path, size_t at)
{
	for (size_t i = 0; i < in->n_placeholders; i++)
		if (!strcmp(in->placeholders[i].path, path))
			return true;
	char *p = xstrdup(path);
	bool made = false;
	for (;;) {
		size_t first;
		if (strmap_get(written, p, &first) && first < at) {
			made = true;
			break;
		}
		char *slash = strrchr(p, '/');
		if (!strcmp(p, root) || !slash || slash == p)
			break;
		*slash = '\0';
	}
	free(p);
	return made;
}

/* What a read of path reached (judge_read_kind), where the task itself
 * may have changed path since: a directory there now that the task made
 * (a leftover read, removed and made a directory before it exited) was
 * a file when an open that demanded none read it. */
static enum judge_kind read_kind(const struct judge_input *in, const struct access_event *e,
				 const char *path, const struct strmap *written)
{
	enum judge_kind k = judge_read_kind(in, e, path);
	size_t first;
	return k == JUDGE_DIR && !e->opened_dir && e->real && strmap_get(written, path, &first)
		   ? JUDGE_FILE
		   : k;
}

/* A successful read of a regular file of the workspace that the cached
 * task's key does not hold: a hit would replay a build that read it (the
 * sandbox shows it, so only the key can answer for it). The key holds the
 * task's own files, and through each dependency's key its files and the
 * outputs it made; node_modules is the lockfile's (lockfiles.md). Outputs
 * of the task itself (under a write root, written before they are read)
 * and .git and the cache (walled) are not judged. Each path once (seen). */
enum unkeyed unkeyed_read(const struct judge_input *in, const struct access_event *e, size_t at,
			  const struct strmap *written, struct strset *seen, char **real_out)
{
	*real_out = NULL;
	if (!in->keyed ||
	    (e->op != ACCESS_READ && e->op != ACCESS_EXEC && e->op != ACCESS_READLINK))
		return KEYED;
	/* Judged where the kernel opened it (issue 37: `src/config.json ->
	 * ../config/dev.json` was keyed by its text, and its target read
	 * unkeyed: a stale hit). A link on the path, the last component's or
	 * a directory's, leads to the file judged; readlink reads the link
	 * itself (`current -> releases/v1` repointed replayed v1), so only
	 * its directories are followed. */
	char *opened = NULL;
	if (e->op == ACCESS_READLINK) {
		char *dir = path_dirname(e->path), *rdir = judge_host_resolve(in, dir);
		opened = rdir ? path_join(rdir, path_basename(e->path)) : NULL;
		free(rdir);
		free(dir);
	} else {
		/* the kernel's path, at the call (strace -y), over the host's now */
		opened = e->real ? xstrdup(e->real) : judge_host_resolve(in, e->path);
		/* an exec has no descriptor for -y to name: through a link the
		 * task made and removed before it exited, where it led is known
		 * to no one, and its name is the task's own: not placed, not
		 * keyed (a review, session 30) */
		if (e->op == ACCESS_EXEC && !e->real && !opened &&
		    through_link_made(written, e->path)) {
			if (!strset_add(seen, xasprintf("u%s", e->path)))
				return KEYED;
			*real_out = xstrdup(e->path);
			return UNKEYED_PROJECT;
		}
	}
	if (opened && strcmp(opened, e->path)) {
		struct access_event opened_at = *e;
		opened_at.path = opened;
		enum unkeyed u = unkeyed_read(in, &opened_at, at, written, seen, real_out);
		free(opened);
		return u;
	}
	free(opened);
	if (!judge_under(in->workspace_root, e->path)) {
		/* outside: only what a read grant there lets through is judged;
		 * the OS roots are the toolchain's, not file by file */
		bool granted = false;
		for (size_t i = 0; i < in->n_outside_grants && !granted; i++)
			granted = judge_under(in->outside_grants[i], e->path);
		char *real = !granted  ? NULL
			     : e->real ? xstrdup(e->real)
				       : judge_host_resolve(in, e->path);
		if (!real || judge_read_kind(in, e, real) != JUDGE_FILE ||
		    (in->toolchain && bsearch(&real, in->toolchain, in->n_toolchain,
					      sizeof *in->toolchain, cmp_str)) ||
		    judge_ignored(in, in->ignore_read, in->n_ignore_read, e->path)) {
			free(real);
			return KEYED;
		}
		if (!strset_add(seen, xasprintf("u%s", real))) {
			free(real);
			return KEYED;
		}
		*real_out = real;
		return UNKEYED_OUTSIDE;
	}
	if (!strcmp(in->project_dir, e->path))
		return KEYED;
	/* In a write grant, what the task made in this run is its own; a file
	 * an earlier run left there and the task read is judged like any
	 * (issue 37: a build that read its old output replayed it). */
	const char *leftover = write_root_of(in, e->path);
	if (leftover && made_in_run(in, written, leftover, e->path, at))
		return KEYED;
	/* so is a file a file grant let it make, read back (a glob names no
	 * root: tsup writes tsup.config.bundled_*.mjs, reads it and removes
	 * it; it was judged by the disk after the run, where it was gone) */
	size_t made;
	if (!leftover && strmap_get(written, e->path, &made) && made < at)
		return KEYED;
	char *rel = path_relative(in->workspace_root, e->path);
	char *path = xstrdup(e->path);
	enum unkeyed what = KEYED;
	if (has_component(rel, "node_modules")) {
		/* a workspace package linked there is judged where it lies */
		char *real = e->real ? xstrdup(e->real) : judge_host_resolve(in, e->path);
		char *rrel = real && judge_under(in->workspace_root, real)
				 ? path_relative(in->workspace_root, real)
				 : NULL;
		if (rrel && !has_component(rrel, "node_modules")) {
			free(rel);
			free(path);
			rel = rrel;
			path = real;
		} else {
			free(rrel);
			free(real);
			/* one violation for the lot (the directory), not one per file */
			if (!in->externals_keyed &&
			    read_kind(in, e, e->path, written) == JUDGE_FILE &&
			    strset_add(seen, xstrdup("n")))
				what = UNKEYED_EXTERNAL;
			goto out;
		}
	}
	/* The root's lockfile (rel has no '/'), when it keys node_modules: the
	 * key already folds what it decides for the task (its packages'
	 * closure, lockfiles.md); Next and the package managers read it whole,
	 * and keying its bytes would miss every task on any package's change,
	 * which the closure exists to avoid (issue 40 item 5). */
	if (has_component(rel, ".git") || has_component(rel, ".vx") ||
	    (e->op == ACCESS_READLINK ? judge_host_kind(in, path) != JUDGE_LINK
				      : read_kind(in, e, path, written) != JUDGE_FILE) ||
	    in_key(in, rel) || (in->externals_keyed && sandbox_lockfile_name(rel)) ||
	    (in->dep_keyed &&
	     bsearch(&rel, in->dep_keyed, in->n_dep_keyed, sizeof *in->dep_keyed, cmp_str)) ||
	    (in->dep_outputs && bsearch(&path, in->dep_outputs, in->n_dep_outputs,
					sizeof *in->dep_outputs, cmp_str)) ||
	    judge_ignored(in, in->ignore_read, in->n_ignore_read, path))
		goto out;
	if (leftover && !path_is_within(leftover, path))
		leftover = NULL; /* a linked workspace package's file, judged where it lies */
	if (leftover && self_validating_cache(in, path, rel))
		goto out;
	char *fix = leftover ? fix_leftover(in, leftover, path) : NULL;
	char *key = fix ? xasprintf("l%s", fix) : xasprintf("u%s", path);
	free(fix);
	if (!strset_add(seen, key))
		goto out;
	if (leftover)
		what = UNKEYED_LEFTOVER;
	else if (judge_under(in->project_dir, path))
		what = UNKEYED_PROJECT;
	else if (judge_dep_written(in, path))
		what = UNKEYED_DEP_OUTPUT;
	else
		what = UNKEYED_WORKSPACE;
out:
	free(rel);
	if (what && what != UNKEYED_EXTERNAL)
		*real_out = path;
	else
		free(path);
	return what;
}

/* The task of the same project whose outputs name path (a project file),
 * when this task does not depend on it, or NULL (issue 40 item 3: a build
 * that read lint's .cache/.eslintcache was told to key it). */
static const struct judge_other_output *other_task_output(const struct judge_input *in,
							  const char *path)
{
	char *rel = path_relative(in->project_dir, path);
	const struct judge_other_output *maker = NULL;
	for (size_t i = 0; i < in->n_other_outputs && !maker; i++)
		if (glob_match(in->other_outputs[i].glob, rel))
			maker = &in->other_outputs[i];
	free(rel);
	return maker;
}

/* An unkeyed read's violation, and its fix: inputs.files for the task's
 * own file when it lists them, else inputs.workspaceFiles (which add to the
 * defaults); a note naming the dependency's outputs entry for a file a
 * dependency wrote; a note naming the lockfile for node_modules. */
void unkeyed_verdict(const struct judge_input *in, struct verdict *out,
		     const struct access_event *e, const char *where, enum unkeyed u)
{
	char *path = xstrdup(where);
	if (u == UNKEYED_EXTERNAL) {
		/* the node_modules directory the read was under */
		char *nm = strstr(path, "/node_modules");
		while (nm && nm[13] && nm[13] != '/')
			nm = strstr(nm + 1, "/node_modules");
		if (nm)
			nm[13] = '\0';
	}
	struct violation v = {.op = e->op == ACCESS_EXEC ? VIOLATION_EXEC : VIOLATION_READ_UNKEYED,
			      .path = path,
			      .syscall = e->syscall};
	vec_push(&out->violations, v);
	const struct judge_other_output *maker =
	    u == UNKEYED_PROJECT ? other_task_output(in, where) : NULL;
	if (maker) {
		char *rel = path_relative(in->project_dir, where);
		/* issue 54 item 8: a printed edge, followed, made a cycle */
		char *how = maker->cycle
				? xasprintf("an edge to it would be a cycle (%s depends on this "
					    "task): do not read it, or take it out of %s's outputs",
					    maker->task, maker->task)
				: xasprintf("add dependsOn: [\"%s\"] (it then comes as that task's "
					    "output), or do not read it",
					    maker->task);
		verdict_add_note(
		    out, "other-task-output", where,
		    xasprintf("%s is what this project's task %s makes (its outputs name "
			      "it): keying it would key another task's result, which changes "
			      "whenever that task runs; %s",
			      rel, maker->task, how));
		free(how);
		free(rel);
	} else if (u == UNKEYED_PROJECT && in->inputs_explicit) {
		char *rel = path_relative(in->project_dir, where);
		strvec_push_nodup(&out->fix_inputs, fix_glob(rel));
		free(rel);
	} else if (u == UNKEYED_PROJECT || u == UNKEYED_WORKSPACE) {
		strvec_push_nodup(&out->fix_workspace_inputs, fix_ws_key(in, where, false));
	} else if (u == UNKEYED_OUTSIDE) {
		/* spelled so every machine's vx.yaml finds it: ${HOME} for home */
		struct strbuf spelled = STRBUF_INIT;
		if (in->home && *in->home && strcmp(in->home, "/") &&
		    path_is_within(in->home, where)) {
			char *rel = path_relative(in->home, where);
			strbuf_addstr(&spelled, "${HOME}/");
			fix_escape(&spelled, rel, false, NULL);
			free(rel);
		} else {
			fix_escape(&spelled, where, false, NULL);
		}
		strvec_push_nodup(&out->fix_toolchain, strbuf_detach(&spelled, NULL));
	} else if (u == UNKEYED_LEFTOVER) {
		char *fix = fix_leftover(in, write_root_of(in, where), where);
		char *rel = path_relative(in->project_dir, where);
		verdict_add_note(
		    out, "leftover", where,
		    xasprintf("%s was left there before the task ran (an earlier run's, or "
			      "put there by hand) and the task read it before writing it: "
			      "what it makes may depend on it, and the key does not hold it; "
			      "remove it before the task runs, or, if it is a tool's own cache "
			      "that never changes what the task makes (.eslintcache, a "
			      "tsbuildinfo, .next/cache), say so with sandbox.ignore.read: "
			      "[\"%s\"]",
			      rel, fix));
		strvec_push_nodup(&out->fix_ignore_read, fix);
		free(rel);
	} else if (u == UNKEYED_DEP_OUTPUT) {
		const struct judge_dep *d = judge_dep_of(in, where);
		char *rel = path_relative(d->dir, where);
		char *fix = fix_dep_output(d, where);
		verdict_add_note(out, "unlisted-output", where,
				 xasprintf("%s was written by the dependency %s in this run and is "
					   "not among its outputs, so a replay of it would not "
					   "bring it back: %s",
					   rel, d->id, fix));
		free(fix);
		free(rel);
	} else {
		char *rel = path_relative(in->workspace_root, path);
		verdict_add_note(
		    out, "unkeyed-node-modules", path,
		    xasprintf("%s holds external packages, and no lockfile keys them: the "
			      "key cannot see an install change them; commit the package "
			      "manager's lockfile (package-lock.json, pnpm-lock.yaml, "
			      "yarn.lock, bun.lock) at the workspace root",
			      rel));
		free(rel);
	}
}

/* Granting a read the key does not fold would be a stale hit: the fix
 * keys it too, as inputs.files when the task lists them, else (the default
 * inputs leave it out: a nested project's file, a gitignored one) as
 * inputs.workspaceFiles, which add to the defaults. */
void unkeyed_key_fix(const struct judge_input *in, struct verdict *out, const char *path)
{
	bool dir = judge_host_is_dir(in, path);
	char *ws_rel = path_relative(in->workspace_root, path);
	bool keyed = !dir && in_key(in, ws_rel);
	if (in->inputs_explicit) {
		char *rel = path_relative(in->project_dir, path);
		char *spelled = fix_glob(rel);
		if (!keyed &&
		    !globlist_match((char *const *)in->input_files, in->n_input_files, rel))
			strvec_push_nodup(&out->fix_inputs,
					  dir ? xasprintf("%s/**", spelled) : xstrdup(spelled));
		free(spelled);
		free(rel);
	} else if (!keyed && in->keyed) {
		strvec_push_nodup(&out->fix_workspace_inputs, fix_ws_key(in, path, dir));
	}
	free(ws_rel);
}
