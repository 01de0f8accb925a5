/* mounts.c - a plan's mounts: the masks (the workspace, home, /run, the
 * walls outside the workspace), the binds of the grants, the directories
 * punched around a wall a grant holds, the mandatory denies and config
 * files made read-only, the stubs of the root's hidden files; their order
 * and what the task sees through them. */
#include "sandbox/mounts.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/denies.h"
#include "sandbox/walls.h"
#include "util/path.h"

void mount_add(struct sandbox_request *req, enum sandbox_mount_kind kind, const char *src,
	       const char *dst)
{
	struct sandbox_mount m = {kind, src ? xstrdup(src) : NULL, xstrdup(dst), -1, false};
	vec_push(&req->mounts, m);
}

static bool is_strictly_within(const char *dir, const char *p)
{
	return strcmp(dir, p) && path_is_within(dir, p);
}

/* A wall strictly inside dir that exists, or NULL: a read bind cannot let
 * the task make one that is not there, so only a real one is punched
 * around (a project with no .git was punched child by child for the .git
 * it might have had). */
static const struct wall *wall_below(const wall_vec *w, const char *dir)
{
	struct stat st;
	for (size_t i = 0; i < w->n; i++)
		if (is_strictly_within(dir, w->v[i].path) && lstat(w->v[i].path, &st) == 0)
			return &w->v[i];
	return NULL;
}

static bool is_wall(const wall_vec *w, const char *p)
{
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->v[i].path, p))
			return true;
	return false;
}

/* Under a masked home: hidden by the mask (a grant that holds a wall there
 * is punched around it). */
static bool under_masked_home(const struct builder *b, const char *p)
{
	return (b->home_masked && path_is_within(b->home, p)) ||
	       (b->run_masked && path_is_within(SANDBOX_RUN_DIR, p));
}

/* Would the host's copy of p show inside without a bind? (the ro "/" holds it,
 * no mask covers it) */
static bool visible_by_base(struct builder *b, const char *p)
{
	if (b->in->hermetic || path_is_within(b->ws, p) || path_is_within(b->tmp, p) ||
	    under_masked_home(b, p))
		return false;
	const struct wall *w = walls_holding(&b->walls, p);
	return !w;
}

/* Binds dir's children one by one, leaving out each wall, so a grant that
 * holds a wall reaches all of it but the wall. mask: dir is visible from the
 * host and must first be hidden under a tmpfs. */
static void punch_children(struct builder *b, const char *dir, const struct strvec *skip);

static void punch(struct builder *b, const char *dir, bool mask)
{
	if (strvec_find(&b->punched, dir) >= 0)
		return;
	strvec_push(&b->punched, dir);
	struct sandbox_request *req = b->req;
	if (mask) {
		mount_add(req, SANDBOX_TMPFS, NULL, dir);
		mount_add(req, SANDBOX_REMOUNT_RO, NULL, dir);
	} else {
		mount_add(req, SANDBOX_DIR, NULL, dir);
	}
	punch_children(b, dir, NULL);
}

/* The entries of dir that sandbox_request_prepare will create (an
 * ancestor of a planned directory or placeholder, or one itself) and that
 * are not there yet: appended to names and to planned, the placeholder
 * files among them also to files. */
static void planned_children(const struct sandbox_request *req, const char *dir,
			     const struct strvec *skip, struct strvec *names,
			     struct strvec *planned, struct strvec *files)
{
	const struct strvec *lists[] = {&req->mkdirs, &req->files};
	size_t n = strlen(dir);
	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; i < lists[l]->n; i++) {
			const char *p = lists[l]->v[i];
			if (!is_strictly_within(dir, p))
				continue;
			const char *name = p + n + (n > 1);
			size_t len = strcspn(name, "/");
			char *child = xstrndup(name, len);
			char *abs = path_join(dir, child);
			struct stat st;
			if (strvec_find(names, child) < 0 &&
			    !(skip && strvec_find(skip, child) >= 0) && lstat(abs, &st) != 0) {
				strvec_push(names, child);
				strvec_push(planned, child);
				if (l == 1 && !name[len])
					strvec_push(files, child);
			}
			free(abs);
			free(child);
		}
}

/* Binds dir's children read-only one by one (links recreated, a directory
 * holding a wall punched in turn), leaving out each wall and each name in
 * skip. */
static void punch_children(struct builder *b, const char *dir, const struct strvec *skip)
{
	struct sandbox_request *req = b->req;
	struct strvec names = STRVEC_INIT, planned = STRVEC_INIT, planned_files = STRVEC_INIT;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    !(skip && strvec_find(skip, e->d_name) >= 0))
			strvec_push(&names, e->d_name);
	if (d)
		closedir(d);
	/* What prepare will create here is bound as if it were there. */
	planned_children(req, dir, skip, &names, &planned, &planned_files);
	if (names.n)
		strvec_sort(&names);
	for (size_t i = 0; i < names.n; i++) {
		char *c = path_join(dir, names.v[i]);
		struct stat st;
		bool plan = strvec_find(&planned, names.v[i]) >= 0;
		if (plan) /* a placeholder file, or a directory */
			st.st_mode =
			    strvec_find(&planned_files, names.v[i]) >= 0 ? S_IFREG : S_IFDIR;
		if (is_wall(&b->walls, c) || (!plan && lstat(c, &st))) {
			free(c);
			continue;
		}
		if (S_ISLNK(st.st_mode)) {
			struct strbuf t = STRBUF_INIT;
			strbuf_grow(&t, (size_t)st.st_size + 1);
			ssize_t n = readlink(c, t.buf, (size_t)st.st_size + 1);
			if (n >= 0 && (size_t)n <= (size_t)st.st_size) {
				strbuf_setlen(&t, (size_t)n);
				mount_add(req, SANDBOX_SYMLINK, t.buf, c);
			}
			strbuf_release(&t);
		} else if (S_ISDIR(st.st_mode) && wall_below(&b->walls, c)) {
			punch(b, c, false);
		} else {
			mount_add(req, SANDBOX_RO, c, c);
		}
		free(c);
	}
	strvec_clear(&names);
	strvec_clear(&planned);
	strvec_clear(&planned_files);
}

/* Hide the walls that lie outside the workspace, where the ro "/" shows them:
 * a directory under an empty read-only tmpfs, a file by punching its parent
 * (a mount cannot make a file absent). */
static void mask_outside_walls(struct builder *b)
{
	if (b->in->hermetic)
		return;
	for (size_t i = 0; i < b->walls.n; i++) {
		const char *w = b->walls.v[i].path;
		struct stat st;
		if (path_is_within(b->ws, w) || path_is_within(b->tmp, w) ||
		    under_masked_home(b, w) || lstat(w, &st))
			continue;
		if (!S_ISDIR(st.st_mode)) {
			char *parent = path_dirname(w);
			punch(b, parent, true);
			free(parent);
		}
	}
	for (size_t i = 0; i < b->walls.n; i++) {
		const char *w = b->walls.v[i].path;
		struct stat st;
		if (path_is_within(b->ws, w) || path_is_within(b->tmp, w) ||
		    under_masked_home(b, w) || lstat(w, &st) || !S_ISDIR(st.st_mode))
			continue;
		char *parent = path_dirname(w);
		bool in_punched = strvec_find(&b->punched, parent) >= 0;
		free(parent);
		if (!in_punched) {
			mount_add(b->req, SANDBOX_TMPFS, NULL, w);
			mount_add(b->req, SANDBOX_REMOUNT_RO, NULL, w);
		}
	}
}

static int mount_cmp(const void *a, const void *b)
{
	const struct sandbox_mount *x = a, *y = b;
	bool rx = x->kind == SANDBOX_REMOUNT_RO, ry = y->kind == SANDBOX_REMOUNT_RO;
	if (rx != ry)
		return rx - ry; /* remounts last: after every mount point was made in the mask */
	int c = strcmp(x->dst, y->dst);
	if (c)
		return c;
	return (int)x->kind - (int)y->kind;
}

/* Drops repeats and a DIR where a mount already is; RO and RW at one path keep RW. */
static void mounts_tidy(struct sandbox_request *req)
{
	qsort(req->mounts.v, req->mounts.n, sizeof *req->mounts.v, mount_cmp);
	size_t out = 0;
	for (size_t i = 0; i < req->mounts.n; i++) {
		struct sandbox_mount *m = &req->mounts.v[i];
		struct sandbox_mount *prev = out ? &req->mounts.v[out - 1] : NULL;
		bool drop = false;
		if (prev && !strcmp(prev->dst, m->dst)) {
			if (prev->kind == m->kind)
				drop = true;
			else if (prev->kind == SANDBOX_RO && m->kind == SANDBOX_RW) {
				free(prev->src);
				free(prev->dst);
				out--; /* RW replaces RO */
			} else if (m->kind == SANDBOX_DIR && prev->kind != SANDBOX_REMOUNT_RO)
				drop = true;
		}
		if (drop) {
			free(m->src);
			free(m->dst);
			if (m->fd >= 0)
				close(m->fd);
			continue;
		}
		req->mounts.v[out++] = *m;
	}
	req->mounts.n = out;
	/* A mask's remount where a read-write bind replaced the mask (a write
	 * grant of the workspace root's own file binds the root) would make
	 * the bind read-only: dropped. */
	out = 0;
	for (size_t i = 0; i < req->mounts.n; i++) {
		struct sandbox_mount *m = &req->mounts.v[i];
		bool rw = false;
		for (size_t k = 0; k < req->mounts.n && !rw && m->kind == SANDBOX_REMOUNT_RO; k++)
			rw = req->mounts.v[k].kind == SANDBOX_RW &&
			     !strcmp(req->mounts.v[k].dst, m->dst);
		if (rw) {
			free(m->src);
			free(m->dst);
			continue;
		}
		req->mounts.v[out++] = *m;
	}
	req->mounts.n = out;
}

/* Is read grant i already shown by another bind that holds it whole: a RW
 * dir, or a read grant bound unpunched (of two equal grants, the first)? */
static bool held_whole(struct builder *b, size_t i)
{
	const char *p = b->reads.v[i].path;
	for (size_t j = 0; j < b->rw_dirs.n; j++)
		if (path_is_within(b->rw_dirs.v[j], p))
			return true;
	for (size_t j = 0; j < b->reads.n; j++) {
		const struct grant *r = &b->reads.v[j];
		if (j == i || !r->exists || !path_is_within(r->path, p) ||
		    wall_below(&b->walls, r->path))
			continue;
		if (!strcmp(r->path, p) && j > i)
			continue;
		return true;
	}
	return false;
}

/* The mandatory denies in a writable path (a bound dir, or a staged
 * entry, itself perhaps one): each made read-only where it is, but one in
 * a masked wall (.git/config in a masked .git stays hidden). Returns 0, or
 * -1 with the reason in err. */
static int deny_within(struct builder *b, const char *path)
{
	struct strvec denied = STRVEC_INIT;
	struct stat st;
	if (denies_match(path_basename(path)) && lstat(path, &st) == 0)
		strvec_push(&denied, path);
	else if (denies_walk(path, &denied))
		return plan_refuse(b->err, "cannot walk write grant %s: %s", path, strerror(errno));
	for (size_t j = 0; j < denied.n; j++) {
		bool hidden = false;
		for (size_t k = 0; k < b->masked.n && !hidden; k++)
			hidden = path_is_within(b->masked.v[k], denied.v[j]);
		if (!hidden)
			mount_add(b->req, SANDBOX_RO, denied.v[j], denied.v[j]);
	}
	strvec_clear(&denied);
	return 0;
}

/* Each config file in a writable place that no grant names: bound
 * read-only over itself when it is there (a staged one from its fd, opened
 * before it moves); one not there yet cannot be walled by a mount, so the
 * judge reports the write that makes it (req->configs, which lists these
 * alone: a write anywhere else is refused by the walls already). */
static void protect_configs(struct builder *b)
{
	for (size_t i = 0; i < b->in->n_config; i++) {
		const char *file = b->in->config_files[i];
		bool writable = strvec_find(&b->rw_files, file) >= 0;
		for (size_t k = 0; k < b->rw_dirs.n && !writable; k++)
			writable = path_is_within(b->rw_dirs.v[k], file);
		for (size_t k = 0; k < b->staged_roots.n && !writable; k++)
			writable = path_is_within(b->staged_roots.v[k], file);
		bool named = false;
		for (size_t k = 0; k < b->writes.n && writable && !named; k++)
			named = !b->writes.v[k].from_glob && !strcmp(b->writes.v[k].path, file);
		if (!writable || named)
			continue;
		strvec_push(&b->req->configs, file);
		struct stat st;
		if (lstat(file, &st) == 0 && S_ISREG(st.st_mode))
			mount_add(b->req, SANDBOX_RO, file, file);
	}
}

const char *const sandbox_os_roots[] = {"/usr",	  "/bin",    "/sbin", "/lib", "/lib32",
					"/lib64", "/libx32", "/etc",  "/opt", NULL};

static bool sees(const struct sandbox_request *req, const char *path, int depth)
{
	const struct sandbox_mount *deepest = NULL;
	size_t best = 0;
	for (size_t i = 0; i < req->mounts.n; i++) {
		const struct sandbox_mount *m = &req->mounts.v[i];
		size_t len = strlen(m->dst);
		if (m->kind == SANDBOX_REMOUNT_RO || !path_is_within(m->dst, path) ||
		    (deepest && len < best))
			continue;
		deepest = m;
		best = len;
	}
	if (!deepest) {
		if (!req->hermetic)
			return true;
		for (const char *const *r = sandbox_os_roots; *r; r++)
			if (path_is_within(*r, path))
				return true;
		return false;
	}
	bool same = !strcmp(deepest->dst, path);
	switch (deepest->kind) {
	case SANDBOX_RW:
		if (req->stage && !strcmp(deepest->src, req->stage)) {
			/* the stage: the project's root, and its staged entries */
			if (same)
				return true;
			const char *rest = path + best + 1;
			char *name = xstrndup(rest, strcspn(rest, "/"));
			bool r = strvec_find(&req->staged, name) >= 0;
			free(name);
			return r;
		}
		return !strcmp(deepest->src, deepest->dst);
	case SANDBOX_RO:
		return !strcmp(deepest->src, deepest->dst);
	case SANDBOX_STUB:
		return false; /* its name shows, nothing of it */
	case SANDBOX_SYMLINK: {
		if (same || depth > 8)
			return same;
		char *dir = path_dirname(deepest->dst);
		char *target = path_join(dir, deepest->src); /* an absolute src stays itself */
		char *rest = path_join(target, path + best + (path[best] == '/'));
		bool r = sees(req, rest, depth + 1);
		free(rest);
		free(target);
		free(dir);
		return r;
	}
	default: /* a tmpfs or an empty directory: it shows, nothing of the host's below it does */
		return same;
	}
}

bool sandbox_request_sees(const struct sandbox_request *req, const char *path)
{
	if (path[0] != '/')
		return false;
	/* bwrap makes the directories that hold a mount point */
	for (size_t i = 0; i < req->mounts.n; i++)
		if (req->mounts.v[i].kind != SANDBOX_REMOUNT_RO &&
		    strcmp(req->mounts.v[i].dst, path) &&
		    path_is_within(path, req->mounts.v[i].dst))
			return true;
	return sees(req, path, 0);
}

/* The workspace root's own files the task is not shown, each as a stub
 * that refuses every open (issue 54 item 5): a tool that resolves a path by
 * listing its directory (esbuild, for tsup's `../../tsup.config.base`) saw
 * no such name in the root's mask and said "Could not resolve" with no
 * refusal in the trace, so nothing was learnable. With the name there, its
 * open is refused (EACCES), traced, and judged as the hidden read it is,
 * with the grant. Only names: not a byte of the file. The .env files and
 * .npmrc stay absent (a loader that finds one must not fail on it), and so
 * does every directory (a path through one is refused by its first name
 * that is missing, which the trace shows). */
static void root_stubs(struct builder *b)
{
	if (!strcmp(b->proj, b->ws))
		return;
	DIR *d = opendir(b->ws);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		const char *n = e->d_name;
		if (!strcmp(n, ".npmrc") || !strcmp(n, ".env") || !strncmp(n, ".env.", 5) ||
		    !sandbox_path_safe(n))
			continue;
		char *p = path_join(b->ws, n);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISREG(st.st_mode) && !sees(b->req, p, 0) &&
		    !walls_holding(&b->walls, p))
			mount_add(b->req, SANDBOX_STUB, NULL, p);
		free(p);
	}
	closedir(d);
}

/* Vite's temp directory: Vite 5+ bundles vite.config.* into the nearest
 * node_modules/.vite-temp before it loads it, which in a hoisted
 * repository is the workspace root's (issue 54: learn could only ask a
 * person for allow.write ["../../node_modules/"] for every Vite app). A
 * private tmpfs at the project's and the root's: Vite writes and deletes
 * its file there, and nothing reaches the host. vx makes the directory
 * (prepare), empty, where node_modules is; a link there is left alone. */
static void vite_scratch(struct builder *b)
{
	const char *roots[] = {b->proj, b->ws};
	for (size_t i = 0; i < 2; i++) {
		if (i && !strcmp(b->proj, b->ws))
			break;
		char *nm = path_join(roots[i], "node_modules");
		char *tmp = path_join(nm, ".vite-temp");
		struct stat st;
		if (lstat(nm, &st) == 0 && S_ISDIR(st.st_mode) && !walls_holding(&b->walls, nm) &&
		    (lstat(tmp, &st) ? errno == ENOENT : S_ISDIR(st.st_mode))) {
			if (strvec_find(&b->req->scratch, tmp) < 0)
				strvec_push(&b->req->scratch, tmp);
			mount_add(b->req, SANDBOX_TMPFS, NULL, tmp);
		}
		free(tmp);
		free(nm);
	}
}

/* The sandbox has no DNS (issue 54 item 7): the host's resolver is
 * beyond its network namespace, where a query met ENETUNREACH before it
 * was sent, and the trace could name only the resolver. Its resolv.conf
 * names the task's own loopback instead, where nothing answers: the query
 * is sent, and refused at once, and the trace holds the name it asked for
 * (the judge's lookup violation). A resolv.conf that is a link into /run,
 * masked, already dangles inside, and glibc then asks 127.0.0.1 by itself. */
static void resolv_mask(struct builder *b)
{
	static const char text[] = "# vx: a sandboxed task has no DNS; its proxy resolves the "
				   "hosts allow.network names\nnameserver 127.0.0.1\n";
	char *real = realpath("/etc/resolv.conf", NULL);
	struct stat st;
	if (real && stat(real, &st) == 0 && S_ISREG(st.st_mode) &&
	    !(b->run_masked && path_is_within(SANDBOX_RUN_DIR, real)) && sees(b->req, real, 0))
		mount_add(b->req, SANDBOX_DATA, text, real);
	free(real);
}

/* Another task's outputs in the project, which this task does not wait
 * for, shown empty (issue 54: a Next app's typecheck read the .next/types
 * its build had made, or had not yet: its result depended on which ran
 * first, read-unkeyed, and learn could only ask a person for an edge). As
 * Bazel shows an action no output it did not declare an input. Not where a
 * grant of this task reads or writes in it (or it in a grant's). */
static void other_outputs(struct builder *b)
{
	for (size_t i = 0; i < b->in->n_other_outputs; i++) {
		const char *d = b->in->other_outputs[i];
		struct stat st;
		if (!path_is_within(b->proj, d) || !strcmp(d, b->proj) || lstat(d, &st) ||
		    !S_ISDIR(st.st_mode))
			continue;
		/* by the grants as written: a FILE grant's bind of its
		 * directory (tsconfig.tsbuildinfo's: the whole project) holds
		 * nothing more */
		bool held = false;
		for (size_t k = 0; k < b->writes.n && !held; k++) {
			const struct grant *g = &b->writes.v[k];
			bool dir = g->from_glob || (g->exists ? g->is_dir : g->want_dir);
			held = path_is_within(d, g->path) || (dir && path_is_within(g->path, d));
		}
		for (size_t k = 0; k < b->reads.n && !held; k++)
			held = strcmp(b->reads.v[k].path, b->proj) &&
			       path_is_within(d, b->reads.v[k].path);
		if (!held && strvec_find(&b->masked, d) < 0) {
			strvec_push(&b->masked, d);
			strvec_push(&b->hidden_outputs, d);
		}
	}
}

/* A staged project binds each of its entries back read-only (punch), and
 * a read-only bind at a masked output's place would show it again: the
 * mask wins. */
static void drop_hidden_binds(struct builder *b)
{
	size_t keep = 0;
	for (size_t i = 0; i < b->req->mounts.n; i++) {
		struct sandbox_mount *m = &b->req->mounts.v[i];
		bool hidden = false;
		for (size_t k = 0; k < b->hidden_outputs.n && !hidden; k++)
			hidden = (m->kind == SANDBOX_RO || m->kind == SANDBOX_SYMLINK) &&
				 path_is_within(b->hidden_outputs.v[k], m->dst);
		if (hidden) {
			free(m->src);
			free(m->dst);
			continue;
		}
		b->req->mounts.v[keep++] = *m;
	}
	b->req->mounts.n = keep;
}

int mounts_assemble(struct builder *b)
{
	struct sandbox_request *req = b->req;
	mount_add(req, SANDBOX_TMPFS, NULL, b->tmp);
	mount_add(req, SANDBOX_TMPFS, NULL, b->ws);
	mount_add(req, SANDBOX_REMOUNT_RO, NULL, b->ws);
	if (b->home_masked) {
		mount_add(req, SANDBOX_TMPFS, NULL, b->home);
		mount_add(req, SANDBOX_REMOUNT_RO, NULL, b->home);
	}
	if (b->run_masked) {
		mount_add(req, SANDBOX_TMPFS, NULL, SANDBOX_RUN_DIR);
		mount_add(req, SANDBOX_REMOUNT_RO, NULL, SANDBOX_RUN_DIR);
	}
	mask_outside_walls(b);
	resolv_mask(b);
	vite_scratch(b);
	if (b->staging) {
		struct sandbox_mount m = {SANDBOX_RW, xstrdup(b->req->stage), xstrdup(b->proj), -1,
					  false};
		vec_push(&req->mounts, m);
		punch_children(b, b->proj, &b->req->staged);
	}
	for (size_t i = 0; i < b->reads.n; i++) {
		const struct grant *g = &b->reads.v[i];
		if (!g->exists || held_whole(b, i) || visible_by_base(b, g->path))
			continue;
		/* the stage shows every entry of the project but its walls */
		if (b->staging && path_is_within(b->proj, g->path) &&
		    !walls_holding(&b->walls, g->path))
			continue;
		if (g->is_dir && wall_below(&b->walls, g->path))
			punch(b, g->path, false);
		else
			mount_add(req, SANDBOX_RO, g->path, g->path);
	}
	for (size_t i = 0; i < b->rw_dirs.n; i++) {
		/* one prepare will create is empty: nothing in it to deny */
		struct sandbox_mount m = {SANDBOX_RW, xstrdup(b->rw_dirs.v[i]),
					  xstrdup(b->rw_dirs.v[i]), -1, false};
		vec_push(&req->mounts, m);
		if (deny_within(b, b->rw_dirs.v[i]))
			return -1;
	}
	for (size_t i = 0; i < b->staged_roots.n; i++)
		if (deny_within(b, b->staged_roots.v[i]))
			return -1;
	for (size_t i = 0; i < b->rw_files.n; i++) {
		struct sandbox_mount m = {SANDBOX_RW, xstrdup(b->rw_files.v[i]),
					  xstrdup(b->rw_files.v[i]), -1, false};
		vec_push(&req->mounts, m);
	}
	protect_configs(b);
	other_outputs(b);
	for (size_t i = 0; i < b->masked.n; i++) {
		struct stat st;
		const char *w = b->masked.v[i];
		if (lstat(w, &st) == 0 && !S_ISDIR(st.st_mode)) {
			mount_add(req, SANDBOX_RO, w, w); /* a file cannot be made absent */
		} else {
			mount_add(req, SANDBOX_TMPFS, NULL, w);
			mount_add(req, SANDBOX_REMOUNT_RO, NULL, w);
		}
	}
	bool held = b->staging;
	for (size_t i = 0; i < b->reads.n && !held; i++)
		held = b->reads.v[i].exists && path_is_within(b->reads.v[i].path, b->proj);
	for (size_t i = 0; i < b->rw_dirs.n && !held; i++)
		held = path_is_within(b->rw_dirs.v[i], b->proj);
	if (!held) {
		req->cwd_denied = true;
		mount_add(req, SANDBOX_DIR, NULL, b->proj);
		/* Grants inside the project (src/, dist/) show through the empty
		 * cwd, which is what such a task wants; only a cwd with nothing
		 * granted under it is worth a note. */
		bool inside = false;
		for (size_t i = 0; i < b->reads.n && !inside; i++)
			inside =
			    b->reads.v[i].exists && path_is_within(b->proj, b->reads.v[i].path);
		for (size_t i = 0; i < b->rw_dirs.n && !inside; i++)
			inside = path_is_within(b->proj, b->rw_dirs.v[i]);
		if (!inside)
			strvec_pushf(&req->notes,
				     "no grant holds the project dir %s: the task runs in an empty "
				     "directory (grant '.' in allow.read to see it)",
				     b->proj);
	}
	root_stubs(b);
	drop_hidden_binds(b);
	mounts_tidy(req);
	/* A link (a deny mask over one) is bound by its path, as is a mount
	 * planned by path (the proxy's socket, in vx's own 0700 dir); every
	 * other source goes by fd, opened by prepare. */
	for (size_t i = 0; i < req->mounts.n; i++) {
		struct sandbox_mount *m = &req->mounts.v[i];
		struct stat st;
		m->by_path = m->kind == SANDBOX_RO &&
			     (m->by_path || (lstat(m->src, &st) == 0 && S_ISLNK(st.st_mode)));
		/* by path, a source in a staged entry is where the entry is when
		 * bwrap runs: in the stage (a deny mask over a link there) */
		if (m->by_path && req->stage && is_strictly_within(b->proj, m->src)) {
			const char *rest = m->src + strlen(b->proj) + 1;
			char *name = xstrndup(rest, strcspn(rest, "/"));
			if (strvec_find(&req->staged, name) >= 0) {
				char *in_stage = path_join(req->stage, rest);
				free(m->src);
				m->src = in_stage;
			}
			free(name);
		}
	}
	return 0;
}
