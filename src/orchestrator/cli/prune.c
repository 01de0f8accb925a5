/* prune.c - `vx prune PACKAGE... [--docker] [--out-dir DIR]`: the subset of
 * the workspace some packages need, with the lockfile cut down to it, as
 * `turbo prune` lays it out (issue 42 item 8; docs/turborepo.md).
 *
 * Kept: the packages named and every workspace package they depend on,
 * directly or not; the root's own files (package.json, the package
 * manager's configs, turbo.json, vx.yaml, .gitignore); the lockfile, cut
 * by keys/externals.c (lockfile/prune.c) and never rewritten otherwise. A
 * package's files are those git lists, tracked and untracked but not
 * ignored (its node_modules and build outputs stay behind), or with
 * --use-gitignore=false every file but .git, node_modules and .vx.
 *
 * --docker splits it for a Dockerfile's two layers: out/json holds what an
 * install reads (each package.json, the lockfile, the manager's configs),
 * out/full everything but the lockfile, and out/ the lockfile again. */
#include "orchestrator/cli/prune.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "orchestrator/config/workspace.h"
#include "orchestrator/keys/externals.h"
#include "orchestrator/keys/ignores.h"
#include "orchestrator/keys/listing.h"
#include "util/die.h"
#include "util/io.h"
#include "util/parseopt.h"
#include "util/path.h"

/* The root's files an install reads (into json/ and full/), and those
 * only a build reads (full/). */
static const char *const install_files[] = {
    "package.json", "pnpm-workspace.yaml", ".npmrc",	    ".yarnrc.yml",
    ".yarnrc",	    "bunfig.toml",	   ".pnpmfile.cjs", NULL};
static const char *const build_files[] = {"turbo.json", "turbo.jsonc", "vx.yaml", ".gitignore",
					  NULL};
/* Directories of the root an install reads: Yarn berry's own release,
 * plugins and patches. */
static const char *const install_dirs[] = {".yarn/releases/", ".yarn/plugins/", ".yarn/patches/",
					   NULL};

static const struct opt_usage prune_usage = {
    "usage: vx prune PACKAGE... [options]\n"
    "\n"
    "Writes the part of the workspace the PACKAGEs need (they, the workspace\n"
    "packages they depend on, the root's files) to DIR, with the lockfile cut\n"
    "down to it: what a Docker image of one app is built from.\n"
    "\n",
    "  -C DIR                 as if started in DIR\n"};

struct out {
	const char *root; /* the workspace's */
	char *top;	  /* DIR */
	char *json;	  /* DIR/json, or NULL without --docker */
	char *full;	  /* DIR/full, or DIR */
	size_t files;
	int rc;
};

/* Copies root-relative rel into dir: a link as a link, a file with its
 * mode. A file git lists but the tree no longer has is no error. */
static void copy_into(struct out *o, const char *dir, const char *rel)
{
	if (o->rc)
		return;
	char *src = path_join(o->root, rel), *dst = path_join(dir, rel);
	char *parent = path_dirname(dst);
	struct stat st;
	char buf[65536];
	int in = -1, out = -1;
	if (lstat(src, &st)) {
		if (errno != ENOENT)
			goto fail;
		goto done;
	}
	if (fs_mkdirs(parent, 0755))
		goto fail;
	if (S_ISLNK(st.st_mode)) {
		ssize_t n = readlink(src, buf, sizeof buf - 1);
		if (n < 0)
			goto fail;
		buf[n] = '\0';
		if (symlink(buf, dst) && errno != EEXIST)
			goto fail;
	} else if (S_ISREG(st.st_mode)) {
		in = open(src, O_RDONLY | O_CLOEXEC);
		out = in < 0 ? -1
			     : open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
				    st.st_mode & 0777);
		if (in < 0 || out < 0)
			goto fail;
		ssize_t n;
		while ((n = read(in, buf, sizeof buf)) > 0)
			if (write_all(out, buf, (size_t)n))
				goto fail;
		if (n < 0 || close(out))
			goto fail;
		out = -1;
	} else {
		goto done; /* a socket, a fifo: nothing to copy */
	}
	o->files++;
	goto done;
fail:
	error("prune: cannot copy %s to %s: %s", src, dst, strerror(errno));
	o->rc = 1;
done:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	free(src);
	free(dst);
	free(parent);
}

static void write_into(struct out *o, const char *dir, const char *rel, const struct strbuf *sb)
{
	char *dst = path_join(dir, rel);
	if (!o->rc && (fs_mkdirs(dir, 0755) || write_file_atomic(dst, sb->buf, sb->len))) {
		error("prune: cannot write %s: %s", dst, strerror(errno));
		o->rc = 1;
	}
	o->files++;
	free(dst);
}

/* An install's file: into json/ (with --docker) and full/. */
static void copy_install(struct out *o, const char *rel)
{
	if (o->json)
		copy_into(o, o->json, rel);
	copy_into(o, o->full, rel);
}

/* Every file under dir (root-relative, "" the root) but .git, node_modules
 * and .vx, into files: --use-gitignore=false, or no git work tree. */
static void walk(const char *root, const char *dir, struct strvec *files)
{
	char *abs = *dir ? path_join(root, dir) : xstrdup(root);
	DIR *d = opendir(abs);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		const char *n = de->d_name;
		if (!strcmp(n, ".") || !strcmp(n, ".."))
			continue;
		bool skip = false;
		for (size_t k = 0; listing_skip_names[k]; k++)
			skip |= !strcmp(n, listing_skip_names[k]);
		if (skip)
			continue;
		char *rel = *dir ? xasprintf("%s/%s", dir, n) : xstrdup(n);
		char *p = path_join(root, rel);
		struct stat st;
		if (!lstat(p, &st) && S_ISDIR(st.st_mode))
			walk(root, rel, files);
		else
			strvec_push(files, rel);
		free(p);
		free(rel);
	}
	if (d)
		closedir(d);
	free(abs);
}

/* The workspace's files, root-relative: git's view unless told not to. */
static void list_files(const struct workspace *ws, bool gitignore, struct strvec *files)
{
	if (gitignore) {
		struct ignores *ig = ignores_load(NULL, ws->root);
		int r = listing_finish(NULL, ws->root, NULL, NULL, ig, files);
		ignores_free(ig);
		if (r == 0)
			return;
		if (r < 0)
			warning("prune: git could not run (%s): every file is copied",
				strerror(errno));
		strvec_clear(files);
	}
	walk(ws->root, "", files);
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* The patch files the root package.json names (pnpm.patchedDependencies). */
static void package_json_patches(const struct workspace *ws, struct strvec *out)
{
	const cJSON *pnpm = cJSON_GetObjectItemCaseSensitive(ws->root_pkg, "pnpm");
	const cJSON *p, *patches = cJSON_GetObjectItemCaseSensitive(pnpm, "patchedDependencies");
	cJSON_ArrayForEach(p, patches) if (cJSON_IsString(p)) strvec_push(out, p->valuestring);
}

/* The projects to keep: those named, what they depend on, and the root. */
static int select_projects(const struct workspace *ws, const struct strvec *names, bool *keep)
{
	size_t n = ws->projects.n;
	bool *seed = xcalloc(n + 1, 1);
	int rc = 0;
	for (size_t i = 0; i < names->n; i++) {
		long k = workspace_find(ws, names->v[i]);
		if (k < 0) {
			error("prune: no package is named '%s' (vx ls lists them)", names->v[i]);
			rc = 2;
		} else {
			seed[k] = true;
		}
	}
	workspace_closure(ws, seed, false, keep);
	for (size_t i = 0; i < n; i++)
		keep[i] |= seed[i] || ws->projects.v[i]->is_root;
	free(seed);
	return rc;
}

struct opt *prune_opts_rows(struct prune_opts *o)
{
	const struct opt rows[] = {
	    OPT_BOOL(0, "docker", &o->docker,
		     "split the output for a Dockerfile: DIR/json (what an install\n"
		     "reads), DIR/full (everything), the lockfile in DIR"),
	    OPT_STRING(0, "out-dir", &o->out_dir, "DIR", "where to write it (default: out)"),
	    OPT_ENUM(0, "use-gitignore", &o->use_gitignore, parseopt_bools, "BOOL",
		     "copy only the files git does not ignore (default: true)"),
	    OPT_HELP(),
	    OPT_END(),
	};
	return parseopt_copy(rows);
}

int prune_main(int argc, char **argv)
{
	struct prune_opts o = {.out_dir = "out", .use_gitignore = OPT_TRUE};
	struct opt *rows = prune_opts_rows(&o);
	struct strvec names = STRVEC_INIT;
	int rc = parseopt(argc, argv, rows, &prune_usage, &names, NULL);
	free(rows);
	if (rc) {
		strvec_clear(&names);
		return rc > 0 ? 0 : 2;
	}
	if (!names.n) {
		error("prune: name the packages to keep (vx prune PACKAGE...)");
		strvec_clear(&names);
		return 2;
	}
	char *cwd = path_absolute(".");
	struct workspace *ws = workspace_load(cwd);
	free(cwd);
	if (!ws) {
		strvec_clear(&names);
		return 2;
	}
	if (ws->single_package) {
		error("prune: %s is a single package (its package.json lists no workspaces): "
		      "there is no part of it to keep",
		      ws->root);
		strvec_clear(&names);
		workspace_free(ws);
		return 2;
	}
	size_t n = ws->projects.n;
	bool *keep = xcalloc(n + 1, 1);
	struct out out = {.root = ws->root, .top = path_absolute(o.out_dir)};
	struct strbuf lock = STRBUF_INIT, err = STRBUF_INIT;
	struct strvec files = STRVEC_INIT, extra = STRVEC_INIT;
	const char *lock_name = NULL;
	struct stat st;
	rc = select_projects(ws, &names, keep);
	if (rc)
		goto out;
	/* a directory holding anything is refused, not merged into: a stale
	 * file from an earlier prune would go into the image unseen */
	DIR *d = opendir(out.top);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			error("prune: %s is not empty (remove it, or name another with --out-dir)",
			      out.top);
			rc = 2;
			break;
		}
	if (d)
		closedir(d);
	if (rc)
		goto out;
	if (!lstat(out.top, &st) && !S_ISDIR(st.st_mode)) {
		error("prune: %s is not a directory", out.top);
		rc = 2;
		goto out;
	}
	int have_lock = externals_prune(ws, keep, &lock_name, &lock, &extra, &err);
	if (have_lock < 0) {
		error("prune: %s", err.buf);
		rc = 2;
		goto out;
	}
	package_json_patches(ws, &extra);
	list_files(ws, o.use_gitignore == OPT_TRUE, &files);

	printf("Generating pruned monorepo for ");
	for (size_t i = 0; i < names.n; i++)
		printf("%s%s", i ? ", " : "", names.v[i]);
	printf(" in %s\n", out.top);
	for (size_t i = 0; i < n; i++)
		if (keep[i] && !ws->projects.v[i]->is_root)
			printf(" - Added %s\n", ws->projects.v[i]->name);
	if (fs_mkdirs(out.top, 0755)) {
		error("prune: cannot make %s: %s", out.top, strerror(errno));
		rc = 1;
		goto out;
	}
	out.json = o.docker ? path_join(out.top, "json") : NULL;
	out.full = o.docker ? path_join(out.top, "full") : xstrdup(out.top);
	char *out_rel = path_relative(ws->root, out.top);
	for (size_t i = 0; i < files.n; i++) {
		const char *f = files.v[i];
		size_t fl = strlen(f);
		if (fl && f[fl - 1] == '/')
			continue; /* a nested repository git does not enter */
		if (out_rel && path_is_within(out_rel, f))
			continue; /* the output itself, when it lies in the workspace */
		long p = workspace_project_of(ws, f);
		const struct project *pr = p >= 0 ? ws->projects.v[p] : NULL;
		if (pr && !pr->is_root) {
			if (!keep[p])
				continue;
			copy_into(&out, out.full, f);
			if (out.json && !strncmp(f, pr->rel, strlen(pr->rel)) &&
			    !strcmp(f + strlen(pr->rel), "/package.json"))
				copy_into(&out, out.json, f);
			continue;
		}
		for (size_t k = 0; install_dirs[k]; k++)
			if (starts_with(f, install_dirs[k]))
				copy_install(&out, f);
	}
	free(out_rel);
	for (size_t k = 0; install_files[k]; k++)
		copy_install(&out, install_files[k]);
	for (size_t k = 0; build_files[k]; k++)
		copy_into(&out, out.full, build_files[k]);
	for (size_t k = 0; k < extra.n; k++)
		copy_install(&out, extra.v[k]);
	if (have_lock) {
		write_into(&out, out.json ? out.json : out.full, lock_name, &lock);
		if (out.json) {
			write_into(&out, out.top, lock_name, &lock);
			copy_into(&out, out.top, "pnpm-workspace.yaml"); /* as turbo does */
		}
	}
	rc = out.rc;
out:
	free(keep);
	free(out.top);
	free(out.json);
	free(out.full);
	strbuf_release(&lock);
	strbuf_release(&err);
	strvec_clear(&files);
	strvec_clear(&extra);
	strvec_clear(&names);
	workspace_free(ws);
	return rc;
}
