#include "util/path.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/strbuf.h"

/* Whether the n bytes at p are already what path_normalize makes of them:
 * no empty, "." or ".." segment, no trailing '/' (but "/" itself). */
static bool is_normal(const char *p, size_t n)
{
	if (!n)
		return false;
	if (n == 1 && p[0] == '/')
		return true;
	size_t i = p[0] == '/';
	if (i == n || p[n - 1] == '/')
		return false;
	while (i < n) {
		size_t e = i;
		while (e < n && p[e] != '/')
			e++;
		size_t len = e - i;
		if (!len || (p[i] == '.' && (len == 1 || (len == 2 && p[i + 1] == '.'))))
			return false;
		i = e + 1;
	}
	return true;
}

char *path_normalize(const char *p)
{
	size_t plen = strlen(p);
	if (is_normal(p, plen))
		return xstrndup(p, plen); /* most paths: one allocation, no rebuild */
	bool abs = p[0] == '/';
	/* Segments kept so far, as offsets into out. */
	struct strbuf out = STRBUF_INIT;
	strbuf_grow(&out, plen + 1);
	size_t *starts = xmalloc((plen / 2 + 2) * sizeof *starts);
	size_t nseg = 0, nup = 0; /* nup: leading ".." segments kept */
	if (abs)
		strbuf_addch(&out, '/');
	const char *s = p;
	while (*s) {
		while (*s == '/')
			s++;
		const char *e = s;
		while (*e && *e != '/')
			e++;
		size_t n = (size_t)(e - s);
		if (n == 0 || (n == 1 && s[0] == '.')) {
			/* nothing */
		} else if (n == 2 && s[0] == '.' && s[1] == '.') {
			if (nseg > nup) {
				nseg--;
				strbuf_setlen(&out, starts[nseg] > 0 && !(abs && starts[nseg] == 1)
							? starts[nseg] - 1
							: starts[nseg]);
			} else if (!abs) {
				if (out.len && out.buf[out.len - 1] != '/')
					strbuf_addch(&out, '/');
				starts[nseg++] = out.len;
				nup++;
				strbuf_addstr(&out, "..");
			}
		} else {
			if (out.len && out.buf[out.len - 1] != '/')
				strbuf_addch(&out, '/');
			starts[nseg++] = out.len;
			strbuf_add(&out, s, n);
		}
		s = e;
	}
	free(starts);
	if (!out.len)
		strbuf_addch(&out, '.');
	return strbuf_detach(&out, NULL);
}

char *path_join(const char *a, const char *b)
{
	if (b[0] == '/' || !a[0])
		return path_normalize(b);
	size_t la = strlen(a), lb = strlen(b);
	if (is_normal(a, la) && is_normal(b, lb) && !(la == 1 && a[0] == '/')) {
		char *j = xmalloc(la + 1 + lb + 1);
		memcpy(j, a, la);
		j[la] = '/';
		memcpy(j + la + 1, b, lb + 1);
		return j;
	}
	char *j = xasprintf("%s/%s", a, b);
	char *n = path_normalize(j);
	free(j);
	return n;
}

bool path_same_dir(const char *a, const char *b)
{
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
	size_t na = sa ? (size_t)(sa - a) : 0, nb = sb ? (size_t)(sb - b) : 0;
	return na == nb && !memcmp(a, b, na);
}

bool path_is_within(const char *dir, const char *path)
{
	size_t n = strlen(dir);
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	if (!strcmp(dir, "."))
		return path[0] != '/' && strncmp(path, "..", 2) != 0;
	return strncmp(dir, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

char *path_relative(const char *from, const char *to)
{
	/* Find the longest common directory prefix. */
	size_t common = 0, i = 0;
	for (;; i++) {
		char f = from[i], t = to[i];
		if ((f == '/' || f == '\0') && (t == '/' || t == '\0'))
			common = i;
		if (f != t || f == '\0')
			break;
	}
	if (!strcmp(from, "/"))
		common = 0;
	struct strbuf out = STRBUF_INIT;
	for (const char *s = from + common; *s; s++)
		if (*s == '/' && s[1] != '\0')
			strbuf_addstr(&out, out.len ? "/.." : "..");
	const char *rest = to + common;
	while (*rest == '/')
		rest++;
	if (*rest) {
		if (out.len)
			strbuf_addch(&out, '/');
		strbuf_addstr(&out, rest);
	}
	if (!out.len)
		strbuf_addch(&out, '.');
	return strbuf_detach(&out, NULL);
}

char *path_dirname(const char *p)
{
	const char *slash = strrchr(p, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == p)
		return xstrdup("/");
	return xstrndup(p, (size_t)(slash - p));
}

const char *path_basename(const char *p)
{
	const char *slash = strrchr(p, '/');
	return slash ? slash + 1 : p;
}

char *path_absolute(const char *p)
{
	if (p[0] == '/')
		return path_normalize(p);
	char *cwd = getcwd(NULL, 0);
	if (!cwd)
		die_errno("cannot read the current directory");
	char *r = path_join(cwd, p);
	free(cwd);
	return r;
}
