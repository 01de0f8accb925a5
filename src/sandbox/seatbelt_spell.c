/* seatbelt_spell.c - host paths and globs as a Seatbelt profile spells
 * them (sandbox/seatbelt_spell.h). A glob becomes a POSIX ERE that matches
 * the paths glob.c matches (test_seatbelt runs each against them); what
 * has no spelling is refused here, never approximated. */
#include "sandbox/seatbelt_spell.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/grants.h"
#include "sandbox/seatbelt.h"
#include "util/path.h"

const char *const seatbelt_os_links[] = {"/etc", "/tmp", "/var", NULL};

/* The links at / that macOS resolves: a canonical path under one of them
 * is named under /private. (On macOS realpath already says so; on any
 * other host, where `vx sandbox show --platform darwin` and the tests
 * run, the builder keeps host paths for its file system checks and
 * spells them so only in the text.) */
char *seatbelt_spell(const char *c)
{
	for (const char *const *l = seatbelt_os_links; *l; l++)
		if (path_is_within(*l, c))
			return xasprintf("/private%s", c);
	return xstrdup(c);
}

char *seatbelt_path(const char *p)
{
	char *c = grants_canonical(p);
	char *s = seatbelt_spell(c);
	free(c);
	return s;
}

int sbpl_string(struct strbuf *out, const char *path)
{
	char *s = seatbelt_spell(path);
	for (const char *q = s; *q; q++)
		if ((unsigned char)*q < 0x20 || *q == 0x7f) {
			free(s);
			return -1;
		}
	strbuf_addch(out, '"');
	for (const char *q = s; *q; q++) {
		if (*q == '"' || *q == '\\')
			strbuf_addch(out, '\\');
		strbuf_addch(out, *q);
	}
	strbuf_addch(out, '"');
	free(s);
	return 0;
}

/* Appends the n bytes of s as a regex matching them literally. A character
 * that is an operator is a one-member bracket (`.` is `[.]`, `[` is `[[]`;
 * `]` alone is itself). `*` and `?` (only escaped ones reach here), `"`,
 * `\`, `^` and control characters have no spelling inside `#"…"`: -1. */
int sbpl_rx_literal(struct strbuf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f || strchr("*?\"\\^", c))
			return -1;
		if (strchr(".+()|${}[", c))
			strbuf_addf(out, "[%c]", c);
		else
			strbuf_addch(out, (char)c);
	}
	return 0;
}

/* Appends a bracket expression of glob class at *p (just past its `[`),
 * moving *p past its `]`. The class's members are read as glob.c's
 * class_has reads them (an escape is its byte; `x-y` every byte from x to
 * y) and written out one by one, so no ERE range, collating form or
 * locale can read them otherwise (fuzz_seatbelt_profile found `a-c-c` and
 * `[.` inside a class). Returns -1 when it has no spelling (a `"`, `\` or
 * control byte among the members, a positive class of nothing but `^` or
 * `/`), 1 when the `[` is unclosed (a literal then), 0 when done. */
static int add_rx_class(struct strbuf *out, const char **p)
{
	const char *q = *p;
	bool neg = *q == '!' || *q == '^';
	if (neg)
		q++;
	const char *first = q;
	while (*q && (*q != ']' || q == first)) {
		if (*q == '\\' && q[1])
			q++;
		q++;
	}
	if (!*q)
		return 1;
	const char *end = q;
	bool set[256] = {false};
	for (const char *m = first; m < end;) {
		if (*m == '\\' && m + 1 < end)
			m++;
		unsigned char lo = (unsigned char)*m++, hi = lo;
		if (m + 1 < end && *m == '-') {
			m++;
			if (*m == '\\' && m + 1 < end)
				m++;
			hi = (unsigned char)*m++;
		}
		for (unsigned c = lo; c <= hi; c++)
			set[c] = true;
	}
	set['/'] = false; /* a class never matches '/' (glob.h) */
	size_t n = 0;
	for (unsigned c = 0; c < 256; c++) {
		if (!set[c])
			continue;
		if (c < 0x20 || c == 0x7f || c == '"' || c == '\\')
			return -1;
		n++;
	}
	if (!neg && (n == 0 || (n == 1 && set['^'])))
		return -1;
	/* `]` first, the plain bytes, then `[` (never followed by . : =),
	 * `^` (never first of a positive class) and `-` last */
	struct strbuf m = STRBUF_INIT;
	if (set[']'])
		strbuf_addch(&m, ']');
	if (neg)
		strbuf_addch(&m, '/'); /* after a `]` member: first, it would close */
	for (unsigned c = 0; c < 256; c++)
		if (set[c] && !strchr("]^-[", (int)c))
			strbuf_addch(&m, (char)c);
	if (set['['])
		strbuf_addch(&m, '[');
	if (set['^']) {
		if (!neg && !m.len) {
			strbuf_addch(&m, '-'); /* {^, -}: "-^", not a negation */
			set['-'] = false;
		}
		strbuf_addch(&m, '^');
	}
	if (set['-'])
		strbuf_addch(&m, '-');
	strbuf_addstr(out, neg ? "[^" : "[");
	strbuf_add(out, m.buf, m.len);
	strbuf_addch(out, ']');
	strbuf_release(&m);
	*p = end + 1;
	return 0;
}

int sbpl_rx_glob(struct strbuf *out, const char *pat)
{
	for (const char *p = pat; *p;) {
		bool seg_start = p == pat || p[-1] == '/';
		if (seg_start && p[0] == '*' && p[1] == '*' && (p[2] == '/' || !p[2])) {
			if (p[2] == '/') {
				strbuf_addstr(out, "(.*/)?");
				p += 3;
			} else {
				strbuf_addstr(out, ".*");
				p += 2;
			}
			continue;
		}
		if (p[0] == '/' && p[1] == '*' && p[2] == '*' && !p[3]) {
			strbuf_addstr(out, "(/.*)?");
			break;
		}
		switch (*p) {
		case '*':
			while (*p == '*')
				p++;
			strbuf_addstr(out, "[^/]*");
			continue;
		case '?':
			strbuf_addstr(out, "[^/]");
			p++;
			continue;
		case '[': {
			p++;
			int rc = add_rx_class(out, &p);
			if (rc < 0)
				return -1;
			if (rc > 0)
				strbuf_addstr(out, "[[]");
			continue;
		}
		case '\\':
			if (!p[1])
				return -1;
			p++;
			if (*p == '[')
				strbuf_addstr(out, "[[]");
			else if (*p == ']')
				strbuf_addch(out, ']');
			else if (sbpl_rx_literal(out, p, 1))
				return -1;
			p++;
			continue;
		default:
			if (sbpl_rx_literal(out, p, 1))
				return -1;
			p++;
		}
	}
	return 0;
}
