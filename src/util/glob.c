/* glob.c - the glob pattern: its syntax, matcher, checker and brace
 * expander. The walks that match it against a tree are glob_walk.c's (one
 * glob) and glob_list.c's (a list at once).
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

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/die.h"
#include "util/strbuf.h"

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
