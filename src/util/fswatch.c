/* fswatch.c - directories watched with inotify, events coalesced into
 * batches on the loop (fswatch.h). */
#include "util/fswatch.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/die.h"
#include "util/path.h"

enum {
	MASK = IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO |
	       IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW |
	       IN_EXCL_UNLINK,
};

struct fswatch {
	struct loop *loop;
	int fd;
	fswatch_fn *fn;
	fswatch_skip_fn *skip;
	void *ctx;
	VEC(char *) dirs; /* by watch descriptor: the directory, or NULL */
	size_t count;
	long limit; /* VX_TEST_MAX_WATCHES: a limit below the kernel's, for the tests */
	struct strvec batch;
	bool overflow;
	long long first_ms;
	unsigned long timer;
};

/* How many directories the tree at dir holds (itself included) that skip
 * does not leave out: what a watch of it needs. */
static size_t count_tree(struct fswatch *w, const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	size_t n = 1;
	for (struct dirent *de; (de = readdir(d));) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *sub = path_join(dir, de->d_name);
		struct stat st;
		if ((de->d_type == DT_DIR ||
		     (de->d_type == DT_UNKNOWN && lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))) &&
		    !(w->skip && w->skip(sub, w->ctx)))
			n += count_tree(w, sub);
		free(sub);
	}
	closedir(d);
	return n;
}

static long kernel_limit(void)
{
	FILE *f = fopen("/proc/sys/fs/inotify/max_user_watches", "re");
	long v = -1;
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* Watches dir and the tree below it; each file found (when found is not
 * NULL: a directory made after the watch began) is added to found. */
static int add_tree(struct fswatch *w, const char *dir, struct strvec *found, struct strbuf *err)
{
	int wd = w->limit >= 0 && (long)w->count >= w->limit ? (errno = ENOSPC, -1)
							     : inotify_add_watch(w->fd, dir, MASK);
	if (wd < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == EACCES)
			return 0; /* gone since, or not ours to read: nothing to watch */
		if (errno == ENOSPC) {
			long limit = w->limit >= 0 ? w->limit : kernel_limit();
			size_t past = count_tree(w, dir); /* a walk: once */
			strbuf_addf(
			    err,
			    "cannot watch %s: inotify's limit is reached "
			    "(fs.inotify.max_user_watches is %ld, and the inputs need %zu "
			    "directories watched, %zu of them past it); raise it: sysctl -w "
			    "fs.inotify.max_user_watches=%zu",
			    dir, limit, w->count + past, past,
			    (size_t)(limit > 0 ? limit : 0) + past + 1024);
		} else {
			strbuf_addf(err, "cannot watch %s: %s", dir, strerror(errno));
		}
		return -1;
	}
	while (w->dirs.n <= (size_t)wd)
		vec_push(&w->dirs, NULL);
	if (!w->dirs.v[wd])
		w->count++;
	free(w->dirs.v[wd]);
	w->dirs.v[wd] = xstrdup(dir);
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	int rc = 0;
	for (struct dirent *de; !rc && (de = readdir(d));) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *sub = path_join(dir, de->d_name);
		struct stat st;
		bool is_dir = de->d_type == DT_DIR || (de->d_type == DT_UNKNOWN &&
						       lstat(sub, &st) == 0 && S_ISDIR(st.st_mode));
		if (is_dir && !(w->skip && w->skip(sub, w->ctx)))
			rc = add_tree(w, sub, found, err);
		else if (!is_dir && found)
			strvec_push(found, sub);
		free(sub);
	}
	closedir(d);
	return rc;
}

static void flush(struct loop *l, void *data)
{
	struct fswatch *w = data;
	w->timer = 0;
	strvec_sort_unique(&w->batch);
	struct strvec paths = w->batch;
	bool overflow = w->overflow;
	w->batch = (struct strvec)STRVEC_INIT;
	w->overflow = false;
	w->fn(&paths, overflow, w->ctx);
	strvec_clear(&paths);
}

/* A change: the batch is handed over once quiet for FSWATCH_QUIET_MS, and
 * at most FSWATCH_MAX_MS after its first event. */
static void touched(struct fswatch *w)
{
	long long now = loop_now();
	if (!w->timer)
		w->first_ms = now;
	long long at = now + FSWATCH_QUIET_MS;
	if (at > w->first_ms + FSWATCH_MAX_MS)
		at = w->first_ms + FSWATCH_MAX_MS;
	loop_timer_cancel(w->loop, w->timer);
	w->timer = loop_timer(w->loop, at, flush, w);
}

static void on_events(struct loop *l, int fd, unsigned ev, void *data)
{
	struct fswatch *w = data;
	char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n <= 0)
			return;
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)p;
			p += sizeof *e + e->len;
			if (e->mask & IN_Q_OVERFLOW) {
				w->overflow = true;
				touched(w);
				continue;
			}
			const char *dir =
			    e->wd >= 0 && (size_t)e->wd < w->dirs.n ? w->dirs.v[e->wd] : NULL;
			if (!dir)
				continue;
			if (e->mask & IN_IGNORED) { /* its directory is gone */
				free(w->dirs.v[e->wd]);
				w->dirs.v[e->wd] = NULL;
				w->count--;
				continue;
			}
			char *path = e->len && e->name[0] ? path_join(dir, e->name) : xstrdup(dir);
			if ((e->mask & (IN_CREATE | IN_MOVED_TO)) && (e->mask & IN_ISDIR) &&
			    !(w->skip && w->skip(path, w->ctx))) {
				/* watched first, then scanned: a file made in it
				 * before the watch is listed by the scan */
				struct strbuf err = STRBUF_INIT;
				if (add_tree(w, path, &w->batch, &err) < 0) {
					warning("%s", err.buf);
					w->overflow = true; /* not all is watched: rerun all */
				}
				strbuf_release(&err);
			}
			strvec_push_nodup(&w->batch, path);
			touched(w);
		}
	}
}

struct fswatch *fswatch_new(struct loop *l, fswatch_fn *fn, fswatch_skip_fn *skip, void *ctx,
			    struct strbuf *err)
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd < 0) {
		strbuf_addf(err, "cannot watch files: inotify_init1: %s%s", strerror(errno),
			    errno == EMFILE ? " (fs.inotify.max_user_instances is reached)" : "");
		return NULL;
	}
	struct fswatch *w = xcalloc(1, sizeof *w);
	w->loop = l;
	w->fd = fd;
	w->fn = fn;
	w->skip = skip;
	w->ctx = ctx;
	const char *t = getenv("VX_TEST_MAX_WATCHES");
	w->limit = t && *t ? strtol(t, NULL, 10) : -1;
	loop_watch(l, fd, LOOP_READ, on_events, w);
	return w;
}

int fswatch_add_tree(struct fswatch *w, const char *dir, struct strbuf *err)
{
	return add_tree(w, dir, NULL, err);
}

size_t fswatch_count(const struct fswatch *w)
{
	return w->count;
}

void fswatch_free(struct fswatch *w)
{
	if (!w)
		return;
	loop_unwatch(w->loop, w->fd);
	close(w->fd);
	loop_timer_cancel(w->loop, w->timer);
	for (size_t i = 0; i < w->dirs.n; i++)
		free(w->dirs.v[i]);
	vec_free(&w->dirs);
	strvec_clear(&w->batch);
	free(w);
}
