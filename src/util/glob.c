/* glob.c - the glob matcher, checker, brace expander and directory walker.
 *
 * glob_match runs on every file of every project when inputs are hashed, so
 * it never allocates in the common case and stays polynomial:
 *
 * - `*` is matched by the classic "last star" backtracking: only the most
 *   recent star is ever extended, because an earlier star's other extents can
 *   only reach states the later star already covers. A literal '/' matched
 *   after a star also forgets that star: the '/' must pair with the first '/'
 *   after it, so every extent leads to the same state.
 * - `**` is the same trick one level up: only the most recent `**` is
 *   extended, by one whole path segment at a time.
 * - `{a,b}` is matched by trying each alternative in place, without
 *   expanding: the pattern cursor is a plain pointer, and reaching a ',' of
 *   the group being matched jumps to its '}'. Expanding up front would
 *   allocate on every call (the API takes the pattern text, not a compiled
 *   form) and `*.{ts,tsx}` under a `**` is a common input pattern. Alternation
 *   breaks the last-star argument, so each (group, path offset) that failed
 *   is remembered in a bitmap (on the stack unless the path is long), which
 *   keeps `{a,a}{a,a}...` linear instead of exponential. A pattern with at
 *   most one group needs no bitmap: the path offset at which the group is
 *   reached is different for every retry.
 */
#include "util/glob.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/compat.h"
#include "util/die.h"
#include "util/io.h"
#include "util/readcache.h"
#include "util/strbuf.h"
#include "util/strmap.h"

/* Bits of failure memo kept on the stack; beyond, one calloc per call. */
#define MEMO_STACK_BITS 8192

/* The pattern syntax shared by the checker, the expander and the matcher, so
 * the three agree on where a class or a group ends. */

/* Returns the end of the escape or single byte at p (never beyond pe). */
static const char *char_end(const char *p, const char *pe)
{
	return (*p == '\\' && p + 1 < pe) ? p + 2 : p + 1;
}

/* p is at '['. Returns the byte after the closing ']', or NULL when the class
 * does not close (then the '[' is a literal). A ']' first is a member. */
static const char *class_end(const char *p, const char *pe)
{
	const char *q = p + 1;
	if (q < pe && (*q == '!' || *q == '^'))
		q++;
	if (q < pe && *q == ']')
		q++;
	while (q < pe && *q != ']')
		q = char_end(q, pe);
	return q < pe ? q + 1 : NULL;
}

/* Returns the end of the syntactic unit at p: an escape, a class, or a byte. */
static const char *unit_end(const char *p, const char *pe)
{
	if (*p == '[') {
		const char *e = class_end(p, pe);
		if (e)
			return e;
	}
	return char_end(p, pe);
}

/* Scans from p for the '}' that closes the group p lies in (or opens, when p
 * is at its '{'). Returns it, or NULL when the braces do not close. */
static const char *group_close(const char *p, const char *pe, int depth)
{
	for (const char *q = p; q < pe; q = unit_end(q, pe)) {
		if (*q == '{')
			depth++;
		else if (*q == '}' && --depth <= 0)
			return q;
	}
	return NULL;
}

/* p is at '{'. Returns its '}', or NULL (then the '{' is a literal). */
static const char *brace_end(const char *p, const char *pe)
{
	return group_close(p, pe, 0);
}

/* q starts an alternative of the group closing at close. Returns the ','
 * ending it, or close. */
static const char *alt_end(const char *q, const char *close)
{
	int depth = 0;
	for (; q < close; q = unit_end(q, close)) {
		if (*q == '{')
			depth++;
		else if (*q == '}')
			depth--;
		else if (*q == ',' && depth == 0)
			return q;
	}
	return close;
}

/* Moves p past the syntax that ends an alternative: a ',' jumps to the '}' of
 * the group being matched, and a '}' leaves it. *depth counts the groups the
 * cursor is inside; at depth 0 ',' and '}' are literals. */
static const char *settle(const char *p, const char *pe, unsigned *depth)
{
	while (p<pe && * depth> 0 && (*p == ',' || *p == '}')) {
		if (*p == ',') {
			p = group_close(p, pe, 1);
			if (!p)
				return pe;
		}
		p++;
		(*depth)--;
	}
	return p;
}

/* p is at '[' and e after its ']'. True when c is a member. */
static bool class_has(const char *p, const char *e, unsigned char c)
{
	const char *q = p + 1, *end = e - 1;
	bool neg = false, hit = false;
	if (*q == '!' || *q == '^') {
		neg = true;
		q++;
	}
	while (q < end) {
		if (*q == '\\' && q + 1 < end)
			q++;
		unsigned char lo = (unsigned char)*q++, hi = lo;
		if (q + 1 < end && *q == '-') {
			q++;
			if (*q == '\\' && q + 1 < end)
				q++;
			hi = (unsigned char)*q++;
		}
		if (lo <= c && c <= hi)
			hit = true;
	}
	return hit != neg;
}

/* True when the byte at p is escaped by an odd run of backslashes before it. */
static bool is_escaped(const char *start, const char *p)
{
	size_t n = 0;
	while (p > start && p[-1] == '\\') {
		p--;
		n++;
	}
	return n % 2;
}

/* Cuts a leading "./" (repeated) and trailing '/' from [*b, *e): in a
 * pattern only an unescaped '/', in a path any, since a backslash escapes
 * nothing in a path (a path "j" backslash "/" is the directory "j"
 * backslash: found by fuzz_glob's oracle, "*{/,}" against it). */
static void trim(const char **b, const char **e, bool pattern)
{
	while (*e - *b >= 2 && (*b)[0] == '.' && (*b)[1] == '/')
		*b += 2;
	while (*e > *b && (*e)[-1] == '/' && !(pattern && is_escaped(*b, *e - 1)))
		(*e)--;
}

struct matcher {
	const char *pb, *pe; /* the pattern, trimmed */
	const char *sb, *se; /* the path, trimmed */
	bool partial;	     /* true: "could a path below this directory match?" */
	unsigned level;	     /* groups being tried, nested (bounded by GLOB_MAX_BRACES) */
	size_t steps;	     /* loop turns, for glob_match_counted */
	uint64_t *memo;	     /* failed (group, path offset) pairs; NULL: at most one group */
	/* vanishes() answers per pattern offset: 0 unknown, else
	 * (depth << 1 | answer) + 1. Made by the first vanishes() that meets a
	 * group (freed by match_mode): without it nested alternatives ending in
	 * '/' were tried exponentially often (fuzz_glob-timeout: 199 bytes, no
	 * answer after 60 s). */
	uint32_t *vanish_memo;
};

static bool match_from(struct matcher *m, const char *p, const char *s, unsigned depth);

/* True when what follows a '/' at the end of the path can match nothing:
 * the end of the pattern, more '/', or `**` segments (so "a/" then "**" matches "a"). */
static bool vanishes(struct matcher *m, const char *p, unsigned depth)
{
	m->steps++;
	p = settle(p, m->pe, &depth);
	if (p == m->pe)
		return true;
	if (*p == '/') /* "a//" is trimmed to "a" like "a/" */
		return vanishes(m, p + 1, depth);
	if (*p == '{') {
		const char *close = brace_end(p, m->pe);
		if (!close || m->level >= GLOB_MAX_BRACES)
			return false;
		if (!m->vanish_memo)
			m->vanish_memo =
			    xcalloc((size_t)(m->pe - m->pb) + 1, sizeof *m->vanish_memo);
		uint32_t *slot = &m->vanish_memo[p - m->pb];
		if (*slot && (*slot - 1) >> 1 == depth)
			return (*slot - 1) & 1;
		m->level++;
		bool r = false;
		for (const char *q = p + 1; !r; q++) {
			const char *e = alt_end(q, close);
			r = vanishes(m, q, depth + 1);
			if (e == close)
				break;
			q = e;
		}
		m->level--;
		*slot = (depth << 1 | (uint32_t)r) + 1;
		return r;
	}
	if (m->pe - p >= 2 && p[0] == '*' && p[1] == '*') {
		while (p < m->pe && *p == '*')
			p++;
		p = settle(p, m->pe, &depth);
		if (p == m->pe)
			return true;
		if (*p == '/')
			return vanishes(m, p + 1, depth);
	}
	return false;
}

static size_t memo_bit(const struct matcher *m, const char *brace, const char *s)
{
	size_t idx = 0;
	for (const char *q = m->pb; q < brace; q++)
		idx += *q == '{';
	return idx * (size_t)(m->se - m->sb + 1) + (size_t)(s - m->sb);
}

/* p is at a '{' closing at close: true when some alternative, followed by the
 * rest of the pattern, matches the path from s. */
static bool brace_match(struct matcher *m, const char *p, const char *close, const char *s,
			unsigned depth)
{
	size_t bit = 0;
	if (m->memo) {
		bit = memo_bit(m, p, s);
		if (m->memo[bit / 64] >> (bit % 64) & 1)
			return false;
	}
	if (m->level >= GLOB_MAX_BRACES)
		return false;
	m->level++;
	for (const char *q = p + 1;; q++) {
		const char *e = alt_end(q, close);
		if (match_from(m, q, s, depth + 1)) {
			m->level--;
			return true;
		}
		if (e == close)
			break;
		q = e;
	}
	m->level--;
	if (m->memo)
		m->memo[bit / 64] |= (uint64_t)1 << (bit % 64);
	return false;
}

static bool match_from(struct matcher *m, const char *p, const char *s, unsigned depth)
{
	const char *pe = m->pe, *sb = m->sb, *se = m->se;
	const char *star_p = NULL, *star_s = NULL, *dstar_p = NULL, *dstar_s = NULL;
	unsigned star_depth = 0, dstar_depth = 0;

	for (;;) {
		m->steps++;
		p = settle(p, pe, &depth);
		if (p == pe) {
			if (s == se && !m->partial)
				return true;
			goto backtrack;
		}

		unsigned char c = (unsigned char)*p;
		if (c == '{') {
			const char *close = brace_end(p, pe);
			if (close) {
				if (brace_match(m, p, close, s, depth))
					return true;
				goto backtrack;
			}
		} else if (c == '*') {
			const char *q = p + 1;
			while (q < pe && *q == '*')
				q++;
			/* `**` is a globstar only as a whole segment; "a**b" is a star. */
			if (q - p >= 2 && (s == sb || s[-1] == '/')) {
				unsigned d = depth;
				const char *after = settle(q, pe, &d);
				if (after == pe || *after == '/') {
					/* A `**` ending the pattern, maybe through a
					 * '/' and alternatives that vanish ("**" + "/{,x}"
					 * reads as "**"), takes whatever is left. */
					if (m->partial || after == pe || vanishes(m, after + 1, d))
						return true;
					dstar_p = after + 1;
					dstar_s = s;
					dstar_depth = d;
					star_p = NULL;
					p = dstar_p;
					depth = d;
					continue;
				}
			}
			star_p = p = q;
			star_s = s;
			star_depth = depth;
			continue;
		} else if (c == '?') {
			if (s < se && *s != '/') {
				p++;
				s++;
				continue;
			}
			goto backtrack;
		} else if (c == '[') {
			const char *e = class_end(p, pe);
			if (e) {
				if (s < se && *s != '/' && class_has(p, e, (unsigned char)*s)) {
					p = e;
					s++;
					continue;
				}
				goto backtrack;
			}
		}

		/* A literal byte (an unclosed '[' or '{' is one too). */
		if (c == '\\' && p + 1 < pe)
			c = (unsigned char)*++p;
		if (s < se && (unsigned char)*s == c) {
			p++;
			s++;
			if (c == '/')
				star_p = NULL;
			continue;
		}
		if (s == se && c == '/' && (m->partial || vanishes(m, p + 1, depth)))
			return true;

	backtrack:
		if (star_p && star_s < se && *star_s != '/') {
			s = ++star_s;
			p = star_p;
			depth = star_depth;
			continue;
		}
		if (dstar_p) {
			const char *slash = memchr(dstar_s, '/', (size_t)(se - dstar_s));
			if (slash) {
				s = dstar_s = slash + 1;
				p = dstar_p;
				depth = dstar_depth;
				star_p = NULL;
				continue;
			}
		}
		return false;
	}
}

static bool match_mode(const char *pat, const char *path, bool partial, size_t *steps)
{
	struct matcher m = {.pb = pat,
			    .pe = pat + strlen(pat),
			    .sb = path,
			    .se = path + strlen(path),
			    .partial = partial};
	trim(&m.pb, &m.pe, true);
	trim(&m.sb, &m.se, false);

	size_t groups = 0;
	for (const char *q = memchr(m.pb, '{', (size_t)(m.pe - m.pb)); q;
	     q = memchr(q + 1, '{', (size_t)(m.pe - q - 1)))
		groups++;
	uint64_t stack_memo[MEMO_STACK_BITS / 64];
	bool heap = false;
	if (groups >= 2) {
		size_t cols = (size_t)(m.se - m.sb) + 1;
		if (groups > SIZE_MAX / 2 / cols)
			die("glob memo too large");
		size_t words = (groups * cols + 63) / 64;
		if (words <= MEMO_STACK_BITS / 64) {
			memset(stack_memo, 0, words * sizeof *stack_memo);
			m.memo = stack_memo;
		} else {
			m.memo = xcalloc(words, sizeof *m.memo);
			heap = true;
		}
	}
	bool r = match_from(&m, m.pb, m.sb, 0);
	if (heap)
		free(m.memo);
	free(m.vanish_memo);
	if (steps)
		*steps = m.steps;
	return r;
}

bool glob_match(const char *pat, const char *path)
{
	return match_mode(pat, path, false, NULL);
}

bool glob_match_below(const char *pat, const char *dir)
{
	return match_mode(pat, dir, true, NULL);
}

bool glob_match_counted(const char *pat, const char *path, size_t *steps)
{
	return match_mode(pat, path, false, steps);
}

/* Brace expansion. */

/* Returns how many patterns [p, pe) expands to, saturated at cap + 1. The
 * braces in it balance. */
static size_t expand_count(const char *p, const char *pe, size_t cap)
{
	size_t n = 1;
	while (p < pe) {
		if (*p != '{') {
			p = unit_end(p, pe);
			continue;
		}
		const char *close = brace_end(p, pe);
		size_t sum = 0;
		for (const char *q = p + 1;; q++) {
			const char *e = alt_end(q, close);
			sum += expand_count(q, e, cap);
			if (sum > cap || e == close)
				break;
			q = e;
		}
		n = (sum > cap || n * sum > cap) ? cap + 1 : n * sum;
		if (n > cap)
			return n;
		p = close + 1;
	}
	return n;
}

/* Appends lit to every string of acc. */
static void append_all(struct strvec *acc, const char *lit, size_t len)
{
	if (!len)
		return;
	for (size_t i = 0; i < acc->n; i++) {
		size_t old = strlen(acc->v[i]);
		acc->v[i] = xrealloc(acc->v[i], old + len + 1);
		memcpy(acc->v[i] + old, lit, len);
		acc->v[i][old + len] = '\0';
	}
}

/* Appends to out the expansions of [p, pe), whose braces balance. */
static void expand_range(const char *p, const char *pe, struct strvec *out)
{
	struct strvec acc = STRVEC_INIT;
	strvec_push(&acc, "");
	const char *lit = p;
	while (p < pe) {
		if (*p != '{') {
			p = unit_end(p, pe);
			continue;
		}
		append_all(&acc, lit, (size_t)(p - lit));
		const char *close = brace_end(p, pe);
		struct strvec alts = STRVEC_INIT;
		for (const char *q = p + 1;; q++) {
			const char *e = alt_end(q, close);
			expand_range(q, e, &alts);
			if (e == close)
				break;
			q = e;
		}
		struct strvec next = STRVEC_INIT;
		for (size_t i = 0; i < acc.n; i++)
			for (size_t j = 0; j < alts.n; j++)
				strvec_pushf(&next, "%s%s", acc.v[i], alts.v[j]);
		strvec_clear(&acc);
		strvec_clear(&alts);
		acc = next;
		p = lit = close + 1;
	}
	append_all(&acc, lit, (size_t)(pe - lit));
	for (size_t i = 0; i < acc.n; i++)
		strvec_push_nodup(out, acc.v[i]);
	free(acc.v);
}

/* Returns the offset of the outermost '{' left open, or -1. A '}' with no
 * group open is a literal, as in the shell ("\\{a,b}" is one pattern). */
static long brace_unclosed(const char *pat, const char *pe)
{
	long depth = 0, outer = -1;
	for (const char *q = pat; q < pe; q = unit_end(q, pe)) {
		if (*q == '{' && depth++ == 0)
			outer = q - pat;
		else if (*q == '}' && depth > 0)
			depth--;
	}
	return depth ? outer : -1;
}

int glob_expand_braces(const char *pat, struct strvec *out)
{
	const char *pe = pat + strlen(pat);
	if (brace_unclosed(pat, pe) >= 0)
		return -1;
	size_t n = expand_count(pat, pe, GLOB_MAX_EXPANSION);
	if (n > GLOB_MAX_EXPANSION)
		return -1;
	expand_range(pat, pe, out);
	return (int)n;
}

int glob_check(const char *pat, const char **why, size_t *offset)
{
	const char *b = pat, *pe = pat + strlen(pat);
	trim(&b, &pe, true);
	*offset = 0;
	if (b == pe) {
		*why = "empty pattern";
		return -1;
	}
	size_t groups = 0;
	for (const char *q = pat; q < pe; q = unit_end(q, pe)) {
		*offset = (size_t)(q - pat);
		if (*q == '\\' && q + 1 == pe) {
			*why = "trailing backslash escapes nothing";
			return -1;
		}
		if (*q == '{')
			groups++;
		if (*q != '[')
			continue;
		const char *e = class_end(q, pe);
		const char *m = q + 1;
		if (m < pe && (*m == '!' || *m == '^'))
			m++;
		if (!e) {
			*why = (m < pe && *m == ']')
				   ? "empty character class (a ']' first is a member)"
				   : "unclosed [";
			return -1;
		}
		while (m < e - 1) {
			const char *lo = m;
			m = char_end(m, e - 1);
			if (m + 1 < e - 1 && *m == '-') {
				const char *hi = m + 1;
				m = char_end(hi, e - 1);
				unsigned char l = (unsigned char)lo[*lo == '\\'];
				unsigned char h = (unsigned char)hi[*hi == '\\'];
				if (l > h) {
					*offset = (size_t)(lo - pat);
					*why = "reversed range in character class matches nothing";
					return -1;
				}
			}
		}
	}
	long bad = brace_unclosed(pat, pe);
	if (bad >= 0) {
		*offset = (size_t)bad;
		*why = "unclosed {";
		return -1;
	}
	const char *first = strchr(pat, '{');
	*offset = first ? (size_t)(first - pat) : 0;
	if (groups > GLOB_MAX_BRACES) {
		*why = "too many brace groups";
		return -1;
	}
	if (expand_count(pat, pe, GLOB_MAX_EXPANSION) > GLOB_MAX_EXPANSION) {
		*why = "braces expand to too many patterns";
		return -1;
	}
	*offset = 0;
	*why = NULL;
	return 0;
}

bool glob_has_magic(const char *pat)
{
	for (const char *q = pat; *q; q++) {
		if (*q == '\\') {
			if (!q[1])
				break;
			q++;
		} else if (strchr("*?[{", *q)) {
			return true;
		}
	}
	return false;
}

char *glob_unescape(const char *pat, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_grow(&sb, n);
	for (size_t i = 0; i < n && pat[i]; i++) {
		if (pat[i] == '\\' && i + 1 < n && pat[i + 1])
			i++;
		strbuf_addch(&sb, pat[i]);
	}
	return strbuf_detach(&sb, NULL);
}

size_t glob_literal_prefix(const char *pat)
{
	size_t slash = 0;
	for (size_t i = 0; pat[i]; i++) {
		if (pat[i] == '\\') {
			if (!pat[i + 1])
				break;
			i++;
		} else if (pat[i] == '/') {
			slash = i;
		} else if (strchr("*?[{", pat[i])) {
			return slash;
		}
	}
	return strlen(pat);
}

bool globlist_match(char *const *pats, size_t n, const char *path)
{
	while (n--) {
		const char *p = pats[n];
		bool neg = *p == '!';
		if (glob_match(p + neg, path))
			return !neg;
	}
	return false;
}

/* The walk. */

struct walk {
	const char *root;
	int rootfd;	    /* root's own fd, or the anchor's (util/io.h fs_at) */
	const char *base;   /* with the anchor's: root relative to it; else NULL */
	struct strbuf full; /* base/rel, as anchored lookups name it (at()) */
	const char *pat;    /* trimmed of its leading "./" */
	int flags;
	const char *const *skip;
	bool (*prune)(const char *reldir, void *ctx); /* NULL: enter every directory */
	int (*cb)(const char *relpath, void *ctx);
	void *ctx;
	struct strbuf rel;	       /* the directory being read, then each entry in turn */
	struct listcache *lc;	       /* NULL: read every directory */
	const struct readcache *reads; /* its stat of the root, if any, is taken */
	/* glob_walk_list's: the list walked at once (pat then unused), and
	 * its hits, kept until the walk ends; NULL for glob_walk */
	struct globset *set;
};

/* rel (root-relative; "" the root) as it is looked up from w->rootfd. */
static const char *at(struct walk *w, const char *rel)
{
	if (!w->base)
		return *rel ? rel : ".";
	strbuf_reset(&w->full);
	strbuf_addstr(&w->full, w->base);
	if (*rel) {
		strbuf_addch(&w->full, '/');
		strbuf_addstr(&w->full, rel);
	}
	return w->full.buf;
}

static bool is_skipped(const struct walk *w, const char *name)
{
	for (const char *const *s = w->skip; s && *s; s++)
		if (!strcmp(*s, name))
			return true;
	return false;
}

enum kind { KIND_NONE, KIND_FILE, KIND_DIR, KIND_OTHER };

/* Returns what rel (root-relative) is to the walk: a directory (never through
 * a link), a regular file (or a link to one; any link with GLOB_WALK_LINKS),
 * another kind of file itself (a fifo, socket, device: never through a
 * link), or none of them; -1 with errno. */
static int entry_kind(struct walk *w, const char *rel, unsigned char type)
{
	struct stat st;
	bool links = w->flags & GLOB_WALK_LINKS;
	if (type == DT_DIR)
		return KIND_DIR;
	if (type == DT_REG || (type == DT_LNK && links))
		return KIND_FILE;
	if (type != DT_UNKNOWN && type != DT_LNK)
		return KIND_OTHER;
	if (type == DT_UNKNOWN) {
		if (fstatat(w->rootfd, at(w, rel), &st, AT_SYMLINK_NOFOLLOW) < 0)
			goto fail;
		if (S_ISDIR(st.st_mode))
			return KIND_DIR;
		if (S_ISLNK(st.st_mode) && links)
			return KIND_FILE;
		if (!S_ISLNK(st.st_mode))
			return S_ISREG(st.st_mode) ? KIND_FILE : KIND_OTHER;
	}
	if (fstatat(w->rootfd, at(w, rel), &st, 0) < 0)
		goto fail;
	return S_ISREG(st.st_mode) ? KIND_FILE : KIND_NONE;
fail:
	/* Vanished since listed, or a dangling link: not there for the walk. */
	return (errno == ENOENT || errno == ENOTDIR || errno == ELOOP) ? KIND_NONE : -1;
}

/* w->rel's entries, sorted, through the kept listings when there are
 * (util/listcache.h): the kept array, or one read into scratch; *n set.
 * NULL, *n 0, for a directory below the root gone or turned into a link
 * since it was listed (errno 0); NULL with errno on failure. */
static const struct listcache_entry *walk_read(struct walk *w, struct listcache_scratch *scratch,
					       size_t *n)
{
	const char *rel = at(w, w->rel.buf);
	/* The root itself, looked up from the anchor, is reached as opening
	 * it by name would reach it: through links, and an error when gone. */
	bool root = w->base && !w->rel.len;
	struct stat st;
	const struct stat *known = NULL;
	if (root && w->lc && readcache_dir_stat(w->reads, w->root, &st))
		known = &st; /* the same stat, taken earlier in this run */
	char *abs = !w->lc	 ? NULL
		    : w->rel.len ? xasprintf("%s/%s", w->root, w->rel.buf)
				 : xstrdup(w->root);
	const struct listcache_entry *e =
	    listcache_list(w->lc, w->rootfd, rel, abs, root, known, scratch, n);
	int err = errno;
	free(abs);
	if (!e && !root && (err == ENOENT || err == ENOTDIR || err == ELOOP))
		err = 0;
	errno = err;
	return e;
}

static int walk_found(struct walk *w, bool dir);
static bool walk_enters(struct walk *w);

static int walk_dir(struct walk *w)
{
	/* The entries are walked as listed: a kept listing stays while the
	 * walk is below it (no directory is listed twice), a read one is
	 * scratch's. */
	struct listcache_scratch scratch = {0};
	size_t n;
	const struct listcache_entry *ents = walk_read(w, &scratch, &n);
	int ret = !ents && errno ? -1 : 0;
	size_t base = w->rel.len;
	for (size_t i = 0; ents && !ret && i < n; i++) {
		if (is_skipped(w, ents[i].name))
			continue;
		strbuf_setlen(&w->rel, base);
		if (base)
			strbuf_addch(&w->rel, '/');
		strbuf_addstr(&w->rel, ents[i].name);
		int kind = entry_kind(w, w->rel.buf, ents[i].type);
		if (kind < 0) {
			ret = -1;
		} else if (kind == KIND_DIR) {
			if (w->flags & GLOB_WALK_DIRS)
				ret = walk_found(w, true);
			if (!ret && walk_enters(w) && !(w->prune && w->prune(w->rel.buf, w->ctx)))
				ret = walk_dir(w);
		} else if (kind == KIND_FILE || kind == KIND_OTHER) {
			int want = kind == KIND_FILE ? GLOB_WALK_FILES : GLOB_WALK_OTHER;
			if (w->flags & want)
				ret = walk_found(w, false);
		}
	}
	int e = errno;
	listcache_scratch_release(&scratch);
	strbuf_setlen(&w->rel, base);
	errno = e;
	return ret;
}

/* Checks that every component of rel is a directory reached without a link.
 * Returns 1, 0 when one is missing or not such a directory, -1 with errno. */
static int prefix_is_dir(struct walk *w, const char *rel)
{
	if (!*rel)
		return 1;
	/* from the root, reached as opening it by name reaches it */
	int fd = w->base ? openat(w->rootfd, w->base, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
			 : dup(w->rootfd);
	if (fd < 0)
		return -1;
	struct strbuf part = STRBUF_INIT;
	int ret = 1;
	for (const char *p = rel; *p && ret == 1;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		strbuf_reset(&part);
		strbuf_add(&part, p, n);
		p += n + (slash != NULL);
		if (!n)
			continue;
		int next = openat(fd, part.buf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0)
			ret = (errno == ENOENT || errno == ENOTDIR || errno == ELOOP) ? 0 : -1;
		int e = errno;
		close(fd);
		errno = e;
		fd = next;
	}
	if (fd >= 0)
		close(fd);
	strbuf_release(&part);
	return ret;
}

/* Opens the walk of root: its fd (or the anchor's). Returns 0, or -1 with
 * errno. */
static int walk_open(struct walk *w, const char *root)
{
	/* Under the workspace root, lookups start from its fd: no open and
	 * close of the walk's own root (2000 system calls in a no-op run of
	 * 1000 projects). */
	const char *root_at;
	w->root = root;
	w->rootfd = fs_at(root, &root_at);
	if (w->rootfd != AT_FDCWD) {
		w->base = root_at;
	} else {
		w->rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (w->rootfd < 0)
			return -1;
	}
	strbuf_init(&w->rel);
	strbuf_init(&w->full);
	return 0;
}

static void walk_close(struct walk *w)
{
	int e = errno;
	strbuf_release(&w->rel);
	strbuf_release(&w->full);
	if (!w->base)
		close(w->rootfd);
	errno = e;
}

/* Sets out to pat's literal prefix (pat trimmed of its leading "./"),
 * unescaped and without trailing '/'. True when pat has no magic: the
 * prefix is all of it. */
static bool literal_prefix(const char *pat, struct strbuf *out)
{
	size_t plen = glob_literal_prefix(pat);
	strbuf_reset(out);
	for (size_t i = 0; i < plen; i++) {
		if (pat[i] == '\\' && i + 1 < plen)
			i++;
		strbuf_addch(out, pat[i]);
	}
	while (out->len && out->buf[out->len - 1] == '/')
		strbuf_setlen(out, out->len - 1);
	return !pat[plen];
}

static const char *trim_dots(const char *pat)
{
	while (pat[0] == '.' && pat[1] == '/')
		pat += 2;
	return pat;
}

struct globset;
static bool set_selects(const struct globset *s, const char *rel);
static void set_hit(struct globset *s, const char *rel, size_t rank);
static size_t set_alone(const struct globset *s);

/* Reports w->rel (the literal path) when it is of a kind asked for. */
static int report_literal(struct walk *w)
{
	int kind = entry_kind(w, w->rel.buf, DT_UNKNOWN);
	if (kind < 0)
		return -1;
	if (!(kind == KIND_DIR && (w->flags & GLOB_WALK_DIRS)) &&
	    !(kind == KIND_FILE && (w->flags & GLOB_WALK_FILES)) &&
	    !(kind == KIND_OTHER && (w->flags & GLOB_WALK_OTHER)))
		return 0;
	if (!w->set)
		return w->cb(w->rel.buf, w->ctx);
	if (set_selects(w->set, w->rel.buf))
		set_hit(w->set, w->rel.buf, set_alone(w->set));
	return 0;
}

/* Walks w->pat (its literal prefix in w->rel, literal_prefix) from that
 * prefix, as glob_walk describes. */
static int walk_one(struct walk *w)
{
	if (!w->pat[glob_literal_prefix(w->pat)]) {
		/* No magic: the pattern names one path; check its parents, then it. */
		char *slash = strrchr(w->rel.buf, '/');
		if (slash)
			*slash = '\0';
		int ret = w->rel.len ? prefix_is_dir(w, slash ? w->rel.buf : "") : 0;
		if (slash)
			*slash = '/';
		return ret == 1 ? report_literal(w) : ret;
	}
	int ret = prefix_is_dir(w, w->rel.buf);
	if (ret != 1)
		return ret;
	ret = 0;
	if (w->rel.len && (w->flags & GLOB_WALK_DIRS))
		ret = walk_found(w, true);
	return ret ? ret : walk_dir(w);
}

int glob_walk(const char *root, const char *pat, int flags, const char *const *skip_names,
	      int (*cb)(const char *relpath, void *ctx), void *ctx)
{
	struct glob_walk_opts o = {.skip_names = skip_names};
	return glob_walk_with(root, pat, flags, &o, cb, ctx);
}

int glob_walk_with(const char *root, const char *pat, int flags, const struct glob_walk_opts *o,
		   int (*cb)(const char *relpath, void *ctx), void *ctx)
{
	struct walk w = {.pat = trim_dots(pat),
			 .flags = flags,
			 .skip = o->skip_names,
			 .prune = o->prune,
			 .lc = o->listings,
			 .reads = o->reads,
			 .cb = cb,
			 .ctx = ctx};
	if (walk_open(&w, root) < 0)
		return -1;
	literal_prefix(w.pat, &w.rel);
	int ret = walk_one(&w);
	walk_close(&w);
	return ret;
}

/* The list walk (glob_walk_list).
 *
 * Every entry is matched through an index on its last segment when that is
 * a literal (no `{`, no `\` in the pattern, no `*?[` in the segment): a path
 * whose last segment differs cannot match it, so 1000 "**" + "/fN.txt"
 * globs cost one lookup a file, not 1000 matches. The other entries are
 * tried on every path. An including entry is walked one of three ways:
 *
 * - WALKED: in the one walk from root, which descends where any such
 *   entry may match and credits a path to the first that matches it at or
 *   below its literal prefix (where its own walk would have reported it);
 * - LITERAL: no magic and a plain path: one lstat (and a stat through a
 *   link), its parents checked once a run each, not an openat chain each;
 * - ALONE: a literal prefix that climbs ("..", "/"), holds a "." or empty
 *   segment, or names a skipped directory (the one walk would not enter
 *   it, the glob's own walk does): glob_walk_with as before. */

enum set_mode { SET_EXCLUDE, SET_WALKED, SET_LITERAL, SET_ALONE };

struct set_entry {
	const char *pat; /* the glob, without its '!' */
	char *prefix;	 /* its literal prefix (literal_prefix), or all of it */
	size_t plen;
	enum set_mode mode;
};

struct set_hit {
	char *rel;
	size_t rank; /* the first including entry whose own walk reports it */
	size_t seq;  /* the order in which the walks met it */
};

struct globset {
	struct set_entry *e;
	size_t n;
	struct strmap byname;  /* last segment -> its first slot in idx */
	struct strvec names;   /* byname's keys */
	size_t *idx, *idx_end; /* entries by name, ascending within one; end of each run */
	size_t *rest, nrest;   /* entries with no name, ascending */
	struct strmap dirs;    /* parents of literals: 1 a directory, 0 not */
	struct strvec dirnames;
	struct set_hit *hits;
	size_t nhits, ahits, seq;
	size_t alone; /* with mode SET_ALONE: the entry being walked */
};

/* pat's last segment when it indexes it (above), else NULL. Caller frees. */
static char *last_name(const char *pat)
{
	if (strpbrk(pat, "{\\"))
		return NULL;
	const char *b = trim_dots(pat), *e = b + strlen(b);
	while (e > b && e[-1] == '/')
		e--;
	const char *s = e;
	while (s > b && s[-1] != '/')
		s--;
	for (const char *q = s; q < e; q++)
		if (strchr("*?[", *q))
			return NULL;
	return s < e ? xstrndup(s, (size_t)(e - s)) : NULL;
}

static bool plain_prefix(const char *prefix, const char *const *skip)
{
	if (prefix[0] == '/')
		return false;
	for (const char *s = prefix; *s;) {
		const char *e = strchr(s, '/');
		if (!e)
			e = s + strlen(s);
		size_t n = (size_t)(e - s);
		if (!n || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return false;
		for (const char *const *k = skip; k && *k; k++)
			if (strlen(*k) == n && !strncmp(*k, s, n))
				return false;
		if (!*e)
			break;
		s = e + 1;
	}
	return true;
}

struct named {
	char *name;
	size_t i;
};

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

static void set_init(struct globset *s, char *const *pats, size_t n, const char *const *skip)
{
	s->e = xcalloc(n ? n : 1, sizeof *s->e);
	s->n = n;
	struct named *name = xcalloc(n ? n : 1, sizeof *name);
	size_t named = 0;
	s->idx = xcalloc(n ? n : 1, sizeof *s->idx);
	s->idx_end = xcalloc(n ? n : 1, sizeof *s->idx_end);
	s->rest = xcalloc(n ? n : 1, sizeof *s->rest);
	struct strbuf pre = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		struct set_entry *e = &s->e[i];
		bool neg = pats[i][0] == '!';
		e->pat = pats[i] + neg;
		bool literal = literal_prefix(trim_dots(e->pat), &pre);
		e->plen = pre.len;
		e->prefix = strbuf_detach(&pre, NULL);
		if (neg)
			e->mode = SET_EXCLUDE;
		else if (!plain_prefix(e->prefix, literal ? NULL : skip))
			e->mode = SET_ALONE;
		else
			e->mode = literal ? SET_LITERAL : SET_WALKED;
		char *last = last_name(e->pat);
		if (last)
			name[named++] = (struct named){last, i};
		else
			s->rest[s->nrest++] = i;
	}
	qsort(name, named, sizeof *name, cmp_named);
	for (size_t k = 0; k < named; k++)
		s->idx[k] = name[k].i;
	for (size_t k = 0; k < named;) {
		size_t j = k + 1;
		while (j < named && !strcmp(name[j].name, name[k].name))
			free(name[j++].name);
		strvec_push_nodup(&s->names, name[k].name);
		strmap_put(&s->byname, name[k].name, k);
		s->idx_end[k] = j;
		k = j;
	}
	free(name);
}

static void set_release(struct globset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->e[i].prefix);
	free(s->e);
	free(s->idx);
	free(s->idx_end);
	free(s->rest);
	strmap_clear(&s->byname);
	strvec_clear(&s->names);
	strmap_clear(&s->dirs);
	strvec_clear(&s->dirnames);
	for (size_t i = 0; i < s->nhits; i++)
		free(s->hits[i].rel);
	free(s->hits);
}

/* The entries that may match rel, ascending: [*a, *ae) of s->idx and all
 * of s->rest, to be merged. */
static void set_candidates(const struct globset *s, const char *rel, const size_t **a,
			   const size_t **ae)
{
	const char *slash = strrchr(rel, '/');
	size_t k;
	*a = *ae = s->idx;
	if (strmap_get(&s->byname, slash ? slash + 1 : rel, &k)) {
		*a = s->idx + k;
		*ae = s->idx + s->idx_end[k];
	}
}

/* True when the list selects rel: the last entry matching it includes. */
static bool set_selects(const struct globset *s, const char *rel)
{
	const size_t *a, *ae;
	set_candidates(s, rel, &a, &ae);
	const size_t *r = s->rest + s->nrest;
	while (a < ae || r > s->rest) {
		size_t i = (r > s->rest && (a == ae || r[-1] > ae[-1])) ? *--r : *--ae;
		if (glob_match(s->e[i].pat, rel))
			return s->e[i].mode != SET_EXCLUDE;
	}
	return false;
}

/* rel strictly below e's prefix, or (a directory) the prefix itself. */
static bool under_prefix(const struct set_entry *e, const char *rel, bool dir)
{
	if (!e->plen)
		return true;
	if (strncmp(rel, e->prefix, e->plen))
		return false;
	return rel[e->plen] == '/' || (dir && !rel[e->plen]);
}

/* The first WALKED entry whose own walk reports rel; false when none. */
static bool set_rank(const struct globset *s, const char *rel, bool dir, size_t *rank)
{
	const size_t *a, *ae;
	set_candidates(s, rel, &a, &ae);
	const size_t *r = s->rest, *re = s->rest + s->nrest;
	while (a < ae || r < re) {
		size_t i = (r < re && (a == ae || *r < *a)) ? *r++ : *a++;
		const struct set_entry *e = &s->e[i];
		if (e->mode == SET_WALKED && under_prefix(e, rel, dir) && glob_match(e->pat, rel)) {
			*rank = i;
			return true;
		}
	}
	return false;
}

static size_t set_alone(const struct globset *s)
{
	return s->alone;
}

static void set_hit(struct globset *s, const char *rel, size_t rank)
{
	if (s->nhits == s->ahits) {
		s->ahits = s->ahits ? 2 * s->ahits : 64;
		s->hits = xrealloc(s->hits, s->ahits * sizeof *s->hits);
	}
	s->hits[s->nhits++] = (struct set_hit){xstrdup(rel), rank, s->seq++};
}

static int walk_found(struct walk *w, bool dir)
{
	struct globset *s = w->set;
	const char *rel = w->rel.buf;
	if (!s)
		return glob_match(w->pat, rel) ? w->cb(rel, w->ctx) : 0;
	size_t rank = s->alone;
	if (rank == SIZE_MAX ? !set_rank(s, rel, dir, &rank) : !glob_match(s->e[rank].pat, rel))
		return 0;
	if (set_selects(s, rel))
		set_hit(s, rel, rank);
	return 0;
}

static bool walk_enters(struct walk *w)
{
	const char *rel = w->rel.buf;
	struct globset *s = w->set;
	if (!s || s->alone != SIZE_MAX)
		return match_mode(s ? s->e[s->alone].pat : w->pat, rel, true, NULL);
	size_t len = w->rel.len;
	for (size_t i = 0; i < s->n; i++) {
		const struct set_entry *e = &s->e[i];
		if (e->mode != SET_WALKED)
			continue;
		/* on the way to its prefix, or below it where it may match */
		if (len <= e->plen && !strncmp(rel, e->prefix, len) &&
		    (len == e->plen || e->prefix[len] == '/'))
			return true;
		if (under_prefix(e, rel, false) && match_mode(e->pat, rel, true, NULL))
			return true;
	}
	return false;
}

/* Is every parent of w->rel a directory reached without a link? Each is
 * looked at once a list walk (lstat), kept in s->dirs. */
static bool parents_are_dirs(struct walk *w, struct globset *s)
{
	struct strbuf *rel = &w->rel;
	for (size_t i = 0; i < rel->len; i++) {
		if (rel->buf[i] != '/')
			continue;
		size_t known;
		if (strmap_getn(&s->dirs, rel->buf, i, &known)) {
			if (!known)
				return false;
			continue;
		}
		rel->buf[i] = '\0';
		struct stat st;
		bool dir = !fstatat(w->rootfd, at(w, rel->buf), &st, AT_SYMLINK_NOFOLLOW) &&
			   S_ISDIR(st.st_mode);
		char *key = xstrdup(rel->buf);
		rel->buf[i] = '/';
		strvec_push_nodup(&s->dirnames, key);
		strmap_put(&s->dirs, key, dir);
		if (!dir)
			return false;
	}
	return true;
}

static int cmp_hit_order(const void *a, const void *b)
{
	const struct set_hit *x = a, *y = b;
	return x->rank != y->rank ? (x->rank > y->rank) - (x->rank < y->rank)
				  : (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_hit_rel(const void *a, const void *b)
{
	int c = strcmp(((const struct set_hit *)a)->rel, ((const struct set_hit *)b)->rel);
	return c ? c : cmp_hit_order(a, b);
}

int glob_walk_list(const char *root, char *const *pats, size_t n, int flags,
		   const struct glob_walk_opts *o, int (*cb)(const char *relpath, void *ctx),
		   void *ctx)
{
	struct globset s = {.alone = SIZE_MAX};
	struct walk w = {
	    .flags = flags, .skip = o->skip_names, .lc = o->listings, .reads = o->reads, .set = &s};
	if (walk_open(&w, root) < 0)
		return -1;
	set_init(&s, pats, n, o->skip_names);
	int ret = 0;
	bool walked = false;
	for (size_t i = 0; !ret && i < n; i++) {
		const struct set_entry *e = &s.e[i];
		if (e->mode == SET_WALKED && !walked) {
			walked = true;
			ret = walk_dir(&w); /* from root, for every WALKED entry */
		} else if (e->mode == SET_LITERAL) {
			strbuf_reset(&w.rel);
			strbuf_addstr(&w.rel, e->prefix);
			s.alone = i;
			if (parents_are_dirs(&w, &s))
				ret = report_literal(&w);
			s.alone = SIZE_MAX;
		} else if (e->mode == SET_ALONE) {
			/* its own walk, as glob_walk_with's */
			w.pat = trim_dots(e->pat);
			literal_prefix(w.pat, &w.rel);
			s.alone = i;
			ret = walk_one(&w);
			s.alone = SIZE_MAX;
		}
		strbuf_reset(&w.rel);
	}
	/* Each path once, where the first walk to report it put it. */
	if (s.nhits) /* qsort of no array: UBSan's null argument */
		qsort(s.hits, s.nhits, sizeof *s.hits, cmp_hit_rel);
	size_t keep = 0;
	for (size_t i = 0; i < s.nhits; i++) {
		if (keep && !strcmp(s.hits[keep - 1].rel, s.hits[i].rel))
			free(s.hits[i].rel);
		else
			s.hits[keep++] = s.hits[i];
	}
	s.nhits = keep;
	if (s.nhits)
		qsort(s.hits, s.nhits, sizeof *s.hits, cmp_hit_order);
	for (size_t i = 0; !ret && i < s.nhits; i++)
		ret = cb(s.hits[i].rel, ctx);
	set_release(&s);
	walk_close(&w);
	return ret;
}
