#include "violations/judge_host.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/die.h"
#include "util/path.h"

static enum judge_kind disk_kind(const struct judge_host *h, const char *path)
{
	(void)h;
	struct stat st;
	if (lstat(path, &st))
		return JUDGE_ABSENT;
	return S_ISREG(st.st_mode)   ? JUDGE_FILE
	       : S_ISDIR(st.st_mode) ? JUDGE_DIR
	       : S_ISLNK(st.st_mode) ? JUDGE_LINK
				     : JUDGE_OTHER;
}

static char *disk_resolve(const struct judge_host *h, const char *path)
{
	(void)h;
	return realpath(path, NULL);
}

static long long disk_mtime(const struct judge_host *h, const char *path)
{
	(void)h;
	struct stat st;
	return stat(path, &st) ? -1 : (long long)st.st_mtime;
}

const struct judge_host *judge_host_disk(void)
{
	static const struct judge_host disk = {disk_kind, disk_resolve, disk_mtime};
	return &disk;
}

static const struct judge_host_table *table_of(const struct judge_host *h)
{
	return (const struct judge_host_table *)h;
}

static enum judge_kind table_kind(const struct judge_host *h, const char *path)
{
	size_t at;
	return strmap_get(&table_of(h)->at, path, &at) ? table_of(h)->kinds.v[at] : JUDGE_ABSENT;
}

/* The kernel's walk, over the table: component by component from "/",
 * ".." from where the walk stands (after a link, its target's parent),
 * each link replaced by its target, at most 40 of them (ELOOP). */
static char *table_resolve(const struct judge_host *h, const char *path)
{
	const struct judge_host_table *t = table_of(h);
	if (path[0] != '/')
		return NULL;
	char *rest = xstrdup(path), *cur = xstrdup("/");
	const char *s = rest;
	for (int hops = 0;;) {
		while (*s == '/')
			s++;
		if (!*s)
			break;
		size_t n = strcspn(s, "/");
		if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.')) {
			if (n == 2) {
				char *up = path_dirname(cur);
				free(cur);
				cur = up;
			}
			s += n;
			continue;
		}
		char *next = strcmp(cur, "/") ? xasprintf("%s/%.*s", cur, (int)n, s)
					      : xasprintf("/%.*s", (int)n, s);
		s += n;
		size_t at;
		bool more = *s && s[strspn(s, "/")];
		if (!strmap_get(&t->at, next, &at) || (more && t->kinds.v[at] == JUDGE_FILE) ||
		    (t->kinds.v[at] == JUDGE_LINK && ++hops > 40)) {
			free(next);
			free(cur);
			free(rest);
			return NULL;
		}
		if (t->kinds.v[at] != JUDGE_LINK) {
			free(cur);
			cur = next;
			continue;
		}
		/* the target (an absolute one from "/", a relative one from the
		 * link's directory), then what is left: walked again */
		const char *target = t->targets.v[at];
		char *joined = target[0] == '/' ? xasprintf("%s/%s", target, s)
						: xasprintf("%s/%s/%s", cur, target, s);
		free(next);
		free(rest);
		rest = joined;
		free(cur);
		cur = xstrdup("/");
		s = rest;
	}
	free(rest);
	return cur;
}

static long long table_mtime(const struct judge_host *h, const char *path)
{
	char *real = table_resolve(h, path);
	size_t at;
	long long m =
	    real && strmap_get(&table_of(h)->at, real, &at) ? table_of(h)->mtimes.v[at] : -1;
	free(real);
	return m;
}

void judge_host_table_init(struct judge_host_table *t)
{
	memset(t, 0, sizeof *t);
	t->host = (struct judge_host){table_kind, table_resolve, table_mtime};
	judge_host_table_put(t, "/", JUDGE_DIR, NULL, -1);
}

static void table_set(struct judge_host_table *t, const char *path, enum judge_kind kind,
		      const char *target, long long mtime, bool replace)
{
	size_t at;
	if (strmap_get(&t->at, path, &at)) {
		if (!replace)
			return;
		free(t->targets.v[at]);
		t->targets.v[at] = xstrdup(target ? target : "");
		t->kinds.v[at] = kind;
		t->mtimes.v[at] = mtime;
		return;
	}
	strvec_push(&t->paths, path);
	strvec_push(&t->targets, target ? target : "");
	vec_push(&t->kinds, kind);
	vec_push(&t->mtimes, mtime);
	/* keys borrowed from paths: its strings never move */
	strmap_put(&t->at, t->paths.v[t->paths.n - 1], t->paths.n - 1);
}

void judge_host_table_put(struct judge_host_table *t, const char *path, enum judge_kind kind,
			  const char *target, long long mtime)
{
	char *norm = path_normalize(path);
	for (char *s = strchr(norm + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		table_set(t, norm, JUDGE_DIR, NULL, -1, false);
		*s = '/';
	}
	table_set(t, norm, kind, target, mtime, true);
	free(norm);
}

void judge_host_table_release(struct judge_host_table *t)
{
	strmap_clear(&t->at);
	strvec_clear(&t->paths);
	strvec_clear(&t->targets);
	vec_free(&t->kinds);
	vec_free(&t->mtimes);
}
