/* learn_files.c - the config files `vx sandbox learn` edits (in memory
 * round by round, written when a round ends, printed as a diff at the
 * end), and the files that decide what vx runs, watched across each
 * round's run (sandbox_learn.c). */
#include "orchestrator/cli/learn.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox/config_names.h"
#include "util/die.h"
#include "util/io.h"
#include "util/path.h"
#include "util/spawn.h"
#include "util/yamledit.h"

static struct learned_file *file_of(struct learn *l, const char *rel)
{
	for (size_t i = 0; i < l->files.n; i++)
		if (!strcmp(l->files.v[i].rel, rel))
			return &l->files.v[i];
	struct learned_file f = {.rel = xstrdup(rel), .path = path_join(l->ws->root, rel)};
	strbuf_init(&f.before);
	strbuf_init(&f.now);
	if (!strbuf_read_file(&f.before, f.path))
		f.existed = true;
	else if (errno != ENOENT)
		die("cannot read %s: %s", f.path, strbuf_read_strerror(errno));
	strbuf_add(&f.now, f.before.buf, f.before.len);
	vec_push(&l->files, f);
	return &l->files.v[l->files.n - 1];
}

int learn_add(struct learn *l, const char *rel, const char *const *path, size_t np,
	      const char *const *values, size_t nv)
{
	struct learned_file *f = file_of(l, rel);
	struct strbuf out = STRBUF_INIT;
	struct yamlload_error err;
	bool changed;
	if (yamledit_add(f->now.buf, f->now.len, path, np, values, nv, &out, &changed, &err)) {
		error("%s:%d:%d: %s", f->rel, err.line, err.col, err.message);
		strbuf_release(&out);
		return -1;
	}
	if (changed) {
		strbuf_release(&f->now);
		f->now = out;
		l->added += nv ? nv : 1;
	} else {
		strbuf_release(&out);
	}
	return 0;
}

int learn_write_files(struct learn *l)
{
	for (size_t i = 0; i < l->files.n; i++) {
		struct learned_file *f = &l->files.v[i];
		struct strbuf disk = STRBUF_INIT;
		bool same = !strbuf_read_file(&disk, f->path) && disk.len == f->now.len &&
			    !memcmp(disk.buf, f->now.buf, disk.len);
		strbuf_release(&disk);
		if (same || (!f->existed && !f->now.len))
			continue;
		char *dir = path_dirname(f->path);
		int rc = fs_mkdirs(dir, 0755);
		free(dir);
		if (rc || write_file_atomic(f->path, f->now.buf, f->now.len))
			return error_errno("cannot write %s", f->path);
	}
	return 0;
}

void learn_print_diffs(struct learn *l)
{
	for (size_t i = 0; i < l->files.n; i++) {
		struct learned_file *f = &l->files.v[i];
		if (f->before.len == f->now.len && !memcmp(f->before.buf, f->now.buf, f->now.len))
			continue;
		const char *tmpdir = getenv("TMPDIR");
		char *old = xasprintf("%s/vx-learn-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
		int fd = mkstemp(old);
		bool ok = fd >= 0 && !write_all(fd, f->before.buf, f->before.len);
		if (fd >= 0)
			close(fd);
		char *la = xasprintf("a/%s", f->rel), *lb = xasprintf("b/%s", f->rel);
		char *argv[] = {
		    "diff",  "-u", "--label", la, "--label", lb, f->existed ? old : "/dev/null",
		    f->path, NULL};
		struct strbuf out = STRBUF_INIT;
		int rc = ok ? spawn_capture(argv, NULL, &out, NULL) : -1;
		if (rc == 1)
			fputs(out.buf, stdout);
		else /* no diff(1): the file as it is now */
			printf("--- %s\n%s", f->rel, f->now.buf);
		strbuf_release(&out);
		if (fd >= 0)
			unlink(old);
		free(old);
		free(la);
		free(lb);
	}
	fflush(stdout);
}

void learn_configs_take(struct learn *l)
{
	for (size_t i = 0; i < l->configs.n; i++) {
		free(l->configs.v[i].path);
		strbuf_release(&l->configs.v[i].bytes);
	}
	l->configs.n = 0;
	struct strvec paths = STRVEC_INIT;
	for (size_t k = 0; k < l->ws->projects.n; k++)
		config_paths(l->ws->projects.v[k]->dir, false, &paths);
	config_paths(l->ws->root, true, &paths);
	strvec_sort_unique(&paths);
	for (size_t i = 0; i < paths.n; i++) {
		struct config_seen c = {.path = xstrdup(paths.v[i])};
		strbuf_init(&c.bytes);
		c.exists = !strbuf_read_file(&c.bytes, c.path);
		vec_push(&l->configs, c);
	}
	strvec_clear(&paths);
}

const char *learn_configs_changed(const struct learn *l)
{
	for (size_t i = 0; i < l->configs.n; i++) {
		const struct config_seen *c = &l->configs.v[i];
		struct strbuf now = STRBUF_INIT;
		bool exists = !strbuf_read_file(&now, c->path);
		bool same = exists == c->exists && now.len == c->bytes.len &&
			    !memcmp(now.buf, c->bytes.buf, now.len);
		strbuf_release(&now);
		if (!same)
			return c->path;
	}
	return NULL;
}

void learn_files_release(struct learn *l)
{
	for (size_t i = 0; i < l->configs.n; i++) {
		free(l->configs.v[i].path);
		strbuf_release(&l->configs.v[i].bytes);
	}
	vec_free(&l->configs);
	for (size_t i = 0; i < l->files.n; i++) {
		free(l->files.v[i].rel);
		free(l->files.v[i].path);
		strbuf_release(&l->files.v[i].before);
		strbuf_release(&l->files.v[i].now);
	}
	vec_free(&l->files);
}
