/* grants.c - resolving allow.read/allow.write entries to canonical paths. */
#include "sandbox/grants.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/glob.h"
#include "util/path.h"
#include "util/strbuf.h"

/* The realpath of p's longest existing prefix, and the rest. A dangling
 * link in the rest is followed too: a write grant through one must be judged
 * where the kernel would create the file. */
char *grants_canonical(const char *p)
{
	char *norm = path_normalize(p);
	for (int hops = 0; hops < 40; hops++) {
		size_t len = strlen(norm), cut = len;
		char *real = NULL;
		while (cut > 0) {
			char *head = xstrndup(norm, cut);
			real = realpath(head, NULL);
			free(head);
			if (real)
				break;
			while (cut > 0 && norm[cut - 1] != '/')
				cut--;
			if (cut > 0)
				cut--; /* drop the '/' too */
		}
		if (!real)
			return norm;
		if (cut == len) {
			free(norm);
			return real;
		}
		/* The first missing component: a dangling link is followed. */
		const char *rest = norm + cut + 1;
		size_t first = strcspn(rest, "/");
		char *comp = xstrndup(rest, first);
		char *at = path_join(real, comp);
		struct strbuf t = STRBUF_INIT;
		strbuf_grow(&t, 4096);
		ssize_t n = readlink(at, t.buf, 4095);
		char *next;
		if (n > 0) {
			strbuf_setlen(&t, (size_t)n);
			char *target = path_join(real, t.buf);
			next = rest[first] ? path_join(target, rest + first + 1) : xstrdup(target);
			free(target);
		} else {
			next = NULL;
		}
		strbuf_release(&t);
		if (!next) {
			char *out = path_join(real, rest);
			free(at);
			free(comp);
			free(real);
			free(norm);
			return out;
		}
		free(at);
		free(comp);
		free(real);
		free(norm);
		norm = path_normalize(next);
		free(next);
	}
	return norm; /* a link loop: judged as written, and the mount will fail */
}

bool grants_collapse_tree(char *pat)
{
	static const char *const tails[] = {"/**/*", "/**"};
	size_t n = strlen(pat);
	for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
		size_t t = strlen(tails[i]);
		if (n > t && !strcmp(pat + n - t, tails[i])) {
			pat[n - t] = '\0';
			return true;
		}
	}
	return false;
}

static void push_grant(grant_vec *out, const char *lexical, const char *entry, bool from_glob,
		       bool want_dir)
{
	struct grant g = {0};
	g.lexical = path_normalize(lexical);
	g.path = grants_canonical(g.lexical);
	g.entry = entry;
	g.from_glob = from_glob;
	g.want_dir = want_dir;
	struct stat st;
	if (lstat(g.path, &st) == 0) {
		g.exists = true;
		g.is_dir = S_ISDIR(st.st_mode) ||
			   (S_ISLNK(st.st_mode) && stat(g.path, &st) == 0 && S_ISDIR(st.st_mode));
	}
	vec_push(out, g);
}

struct glob_ctx {
	const char *head, *real_head, *entry;
	grant_vec *out;
	size_t hits;
};

static int glob_hit(const char *rel, void *vctx)
{
	struct glob_ctx *c = vctx;
	char *abs = path_join(c->head, rel);
	char *real = grants_canonical(abs);
	/* The escape rule: a hit is what lies under the wildcard's directory,
	 * not wherever a link in it points. */
	if (path_is_within(c->real_head, real)) {
		push_grant(c->out, abs, c->entry, true, false);
		c->hits++;
	}
	free(real);
	free(abs);
	return 0;
}

char *grants_absolute(const char *pat, const char *entry, const char *project_dir, const char *home,
		      struct strbuf *err)
{
	if (pat[0] == '~' && (pat[1] == '\0' || pat[1] == '/')) {
		if (!home || !*home) {
			strbuf_addf(
			    err, "grant '%s' names ~ but HOME is not set; write the absolute path",
			    entry);
			return NULL;
		}
		return path_join(home, pat[1] ? pat + 2 : ".");
	}
	if (pat[0] == '~') {
		strbuf_addf(err, "grant '%s': ~user is not supported; write the absolute path",
			    entry);
		return NULL;
	}
	return path_join(project_dir, pat);
}

static int resolve_one(const char *pat, const char *entry, const char *project_dir,
		       const char *home, grant_vec *out, grant_vec *glob_heads, struct strbuf *err)
{
	char *abs = grants_absolute(pat, entry, project_dir, home, err);
	if (!abs)
		return -1;
	size_t plen = strlen(pat);
	bool want_dir = plen && pat[plen - 1] == '/';
	if (!glob_has_magic(abs)) {
		char *path = glob_unescape(abs, strlen(abs));
		push_grant(out, path, entry, false, want_dir);
		free(path);
		free(abs);
		return 0;
	}
	const char *why;
	size_t off;
	if (glob_check(abs + 1, &why, &off)) {
		strbuf_addf(err, "grant '%s': %s", entry, why);
		free(abs);
		return -1;
	}
	size_t lit = glob_literal_prefix(abs + 1);
	char *head = lit ? glob_unescape(abs, lit + 1) : xstrdup("/");
	const char *rest = abs + 1 + lit + (lit ? 1 : 0);
	char *real_head = grants_canonical(head);
	struct glob_ctx c = {head, real_head, entry, out, 0};
	if (glob_walk(real_head, rest, GLOB_WALK_FILES | GLOB_WALK_DIRS, NULL, glob_hit, &c) < 0) {
		strbuf_addf(err, "grant '%s': cannot read %s: %s", entry, real_head,
			    strerror(errno));
		free(real_head);
		free(head);
		free(abs);
		return -1;
	}
	if (glob_heads) {
		struct grant h = {0};
		struct stat st;
		h.path = xstrdup(real_head);
		h.lexical = xstrdup(head);
		h.entry = entry;
		h.exists = stat(real_head, &st) == 0;
		h.is_dir = h.exists && S_ISDIR(st.st_mode);
		h.want_dir = true;
		vec_push(glob_heads, h);
	}
	free(real_head);
	free(head);
	free(abs);
	return 0;
}

int grants_resolve(const char *entry, const char *project_dir, const char *home, grant_vec *out,
		   grant_vec *glob_heads, struct strbuf *err)
{
	struct strvec pats = STRVEC_INIT;
	if (glob_expand_braces(entry, &pats) < 0) {
		strbuf_addf(err, "grant '%s': its braces are unclosed or expand to too many paths",
			    entry);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; i < pats.n && !rc; i++) {
		grants_collapse_tree(pats.v[i]);
		rc = resolve_one(pats.v[i], entry, project_dir, home, out, glob_heads, err);
	}
	strvec_clear(&pats);
	return rc;
}

void grants_clear(grant_vec *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].path);
		free(g->v[i].lexical);
	}
	vec_free(g);
}

char *grants_path_next(const char **s)
{
	while (*s && **s) {
		const char *e = strchr(*s, ':');
		size_t n = e ? (size_t)(e - *s) : strlen(*s);
		const char *entry = *s;
		*s = e ? e + 1 : *s + n;
		if (n && entry[0] == '/')
			return xstrndup(entry, n);
	}
	return NULL;
}

char *grants_toolchain_dir(const char *dir, const char *home)
{
	if (home && strcmp(dir, home) && path_is_within(home, dir) &&
	    !strcmp(path_basename(dir), "bin")) {
		char *prefix = path_dirname(dir);
		if (strcmp(prefix, home))
			return prefix;
		free(prefix);
	}
	return xstrdup(dir);
}

char *grants_canonical_dir(const char *p)
{
	char *lexical = path_normalize(p);
	char *dir = path_dirname(lexical);
	char *real_dir = grants_canonical(dir);
	char *at = path_join(real_dir, path_basename(lexical));
	free(lexical);
	free(dir);
	free(real_dir);
	return at;
}

bool grants_link_out(const char *proj, const char *lexical, const char *real)
{
	return path_is_within(proj, lexical) && !path_is_within(proj, real);
}

void grants_say_link_out(struct strbuf *err, const char *entry, const char *real, const char *proj)
{
	strbuf_reset(err);
	strbuf_addf(err,
		    "write grant '%s' leads through a link to %s, outside the project %s; grant "
		    "the real path, or replace the link with a directory",
		    entry, real, proj);
}

/* A path component that names a version or a build ("9.1.0", "v20.11.1",
 * "v3", "1a2b3c4d5e6f"): a grant must not stop holding at the next upgrade. */
static bool versioned(const char *c, size_t n)
{
	size_t i = c[0] == 'v' && n > 1 ? 1 : 0, digits = 0;
	bool dotted = i < n && c[i] >= '0' && c[i] <= '9';
	for (size_t k = i; dotted && k < n; k++) {
		if (c[k] >= '0' && c[k] <= '9')
			digits++;
		else if (c[k] != '.' && !(k > i && (c[k] == '-' || c[k] == '+')))
			dotted = false;
		else if (c[k] == '-' || c[k] == '+')
			break; /* 1.0.0-beta.1: the prerelease does not matter */
	}
	if (dotted && digits)
		return true;
	size_t hex = 0, letters = 0;
	for (size_t k = 0; k < n; k++) {
		bool d = c[k] >= '0' && c[k] <= '9', x = c[k] >= 'a' && c[k] <= 'f';
		if (!d && !x)
			return false;
		hex++;
		letters += x;
	}
	return hex >= 12 && letters && letters < hex;
}

char *grants_generalised(const char *entry)
{
	if (entry[0] != '/' && strncmp(entry, "~/", 2))
		return xstrdup(entry);
	const char *start = entry[0] == '/' ? entry + 1 : entry + 2;
	for (const char *c = start; *c;) {
		size_t n = strcspn(c, "/");
		if (versioned(c, n)) {
			if (c == start)
				break;
			return xasprintf("%.*s", (int)(c - entry), entry);
		}
		c += n + (c[n] == '/');
	}
	return xstrdup(entry);
}
