/* strace_text.c - the text of a call as strace prints it: its arguments,
 * quoted strings, numbers, flags, and the paths they resolve to. */
#include <stdlib.h>
#include <string.h>

#include "util/hex.h"
#include "violations/strace_state.h"

static bool is_ident(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* True when the symbol word appears whole in sp ("O_CREAT" in
 * "O_WRONLY|O_CREAT|O_TRUNC", not in "O_CREATX"). Token by token: a memcmp
 * at every offset was a tenth of the parse. */
bool span_has(struct span sp, const char *word)
{
	size_t wn = strlen(word);
	const char *s = sp.s, *e = sp.s + sp.n;
	while (s < e) {
		while (s < e && !is_ident(*s))
			s++;
		const char *t = s;
		while (s < e && is_ident(*s))
			s++;
		if ((size_t)(s - t) == wn && !memcmp(t, word, wn))
			return true;
	}
	return false;
}

const char *skip_quoted(const char *s, const char *e)
{
	for (s++; s < e; s++) {
		if (*s == '\\' && s + 1 < e)
			s++;
		else if (*s == '"')
			return s + 1;
	}
	return NULL;
}

/* The end of a -y annotation that starts at s ('<'): the position after its
 * '>', or NULL. */
const char *fd_annotation_end(const char *s, const char *e)
{
	for (s++; s < e && *s != '>'; s++)
		if (*s == '\\' && s + 1 < e)
			s++;
	return s < e ? s + 1 : NULL;
}

/* Splits "name(a, b, {c, d}, "e,f") = ..." after its '(' into top-level
 * arguments; returns the position after the closing ')', or NULL when the
 * text is not one well-formed call. */
const char *args_split(const char *s, const char *e, struct span *args, size_t *nargs)
{
	int depth = 0;
	const char *start = s;
	*nargs = 0;
	while (s < e) {
		char c = *s;
		if (c == '"') {
			s = skip_quoted(s, e);
			if (!s)
				return NULL;
			continue;
		}
		if (c == '/' && s + 1 < e && s[1] == '*') {
			const char *end = memmem(s + 2, (size_t)(e - s - 2), "*/", 2);
			if (!end)
				return NULL;
			s = end + 2;
			continue;
		}
		if (c == '<' && s > start &&
		    ((s[-1] >= '0' && s[-1] <= '9') ||
		     (s - start >= 8 && !memcmp(s - 8, "AT_FDCWD", 8)))) {
			/* -y: "3</path>", "AT_FDCWD</cwd>", the path escaped as a
			 * string is ("<" and ">" in it as \74 and \76) */
			s = fd_annotation_end(s, e);
			if (!s)
				return NULL;
			continue;
		}
		if (c == '{' || c == '[' || c == '(')
			depth++;
		else if (c == '}' || c == ']' || (c == ')' && depth > 0))
			depth--;
		if (depth == 0 && (c == ',' || c == ')')) {
			const char *a = start, *b = s;
			while (a < b && *a == ' ')
				a++;
			while (b > a && b[-1] == ' ')
				b--;
			if (*nargs < ARGS_MAX && (b > a || c == ',' || *nargs))
				args[(*nargs)++] = (struct span){a, (size_t)(b - a)};
			start = s + 1;
			if (c == ')')
				return s + 1;
		}
		if (depth < 0)
			return NULL;
		s++;
	}
	return NULL;
}

/* Decodes what strace escaped as in a C string, from s up to the first
 * unescaped term, into out (appended); returns the position of term, or
 * NULL when it is missing or an escape is bad. A NUL only when binary (a
 * buffer, not a path). */
static const char *str_unescape(const char *s, const char *e, char term, struct strbuf *out,
				bool binary)
{
	for (;;) {
		const char *run = s;
		while (s < e && *s != term && *s != '\\' && *s)
			s++;
		strbuf_add(out, run, (size_t)(s - run));
		if (s >= e || !*s)
			return NULL; /* strace escapes every NUL: a raw one is not its line */
		if (*s == term)
			return s;
		if (++s >= e)
			return NULL;
		int c = (unsigned char)*s++;
		switch (c) {
		case 'n':
			c = '\n';
			break;
		case 't':
			c = '\t';
			break;
		case 'r':
			c = '\r';
			break;
		case 'v':
			c = '\v';
			break;
		case 'f':
			c = '\f';
			break;
		case 'a':
			c = '\a';
			break;
		case 'b':
			c = '\b';
			break;
		case 'x': {
			int v = 0, k = 0;
			for (; k < 2 && s < e && hex_value(*s) >= 0; k++)
				v = v * 16 + hex_value(*s++);
			if (!k)
				return NULL;
			c = v;
			break;
		}
		default:
			if (c >= '0' && c <= '7') {
				int v = c - '0';
				for (int k = 1; k < 3 && s < e && *s >= '0' && *s <= '7'; k++)
					v = v * 8 + (*s++ - '0');
				c = v;
			}
			/* \" \\ and anything else stand for themselves */
		}
		if ((c == 0 && !binary) || c > 255)
			return NULL; /* no path holds a NUL */
		strbuf_addch(out, (char)c);
	}
}

/* Decodes a string argument as strace prints it ("a\"b\303\251", maybe
 * followed by "..." when cut) into out; a NUL only when binary (a buffer,
 * not a path). */
enum str_result str_decode_as(struct span a, struct strbuf *out, bool *truncated, bool binary)
{
	strbuf_reset(out);
	*truncated = false;
	if (a.n == 4 && !memcmp(a.s, "NULL", 4))
		return STR_NULL;
	if (!a.n || a.s[0] != '"')
		return STR_BAD;
	const char *e = a.s + a.n, *s = str_unescape(a.s + 1, e, '"', out, binary);
	if (!s)
		return STR_BAD;
	s++;
	if (s == e)
		return STR_OK;
	if (e - s == 3 && !memcmp(s, "...", 3)) {
		*truncated = true;
		return STR_OK;
	}
	return STR_BAD;
}

enum str_result str_decode(struct span a, struct strbuf *out, bool *truncated)
{
	return str_decode_as(a, out, truncated, false);
}

bool num_parse(struct span a, long *out)
{
	const char *s = a.s, *e = a.s + a.n;
	bool neg = false;
	if (s < e && *s == '-') {
		neg = true;
		s++;
	}
	if (s >= e || *s < '0' || *s > '9')
		return false;
	long v = 0;
	if (e - s > 2 && s[0] == '0' && s[1] == 'x') {
		for (s += 2; s < e && hex_value(*s) >= 0; s++)
			if (v < INT32_MAX) /* as below: a long string must not overflow */
				v = v * 16 + hex_value(*s);
	} else {
		for (; s < e && *s >= '0' && *s <= '9'; s++)
			if (v < INT32_MAX)
				v = v * 10 + (*s - '0');
	}
	*out = neg ? -v : v;
	return true;
}

/* path (absolute) has no empty, "." or ".." segment and no trailing '/':
 * as the kernel names a file, and as trace_path_append leaves one. */
static bool path_normal(const char *s, size_t n)
{
	if (!n || s[0] != '/')
		return false;
	if (n == 1)
		return true;
	if (s[n - 1] == '/')
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '/')
			continue;
		size_t k = i + 1;
		while (k < n && s[k] != '/')
			k++;
		size_t len = k - i - 1;
		if (!len || (len == 1 && s[i + 1] == '.') ||
		    (len == 2 && s[i + 1] == '.' && s[i + 2] == '.'))
			return false;
	}
	return true;
}

/* Appends rel's segments to out, an absolute normalized path, lexically. */
void trace_path_append(struct strbuf *out, const char *rel, size_t n)
{
	const char *s = rel, *e = rel + n;
	while (s < e) {
		while (s < e && *s == '/')
			s++;
		const char *seg = s;
		while (s < e && *s != '/')
			s++;
		size_t len = (size_t)(s - seg);
		if (!len || (len == 1 && seg[0] == '.'))
			continue;
		if (len == 2 && seg[0] == '.' && seg[1] == '.') {
			char *slash = strrchr(out->buf, '/');
			strbuf_setlen(out,
				      slash && slash != out->buf ? (size_t)(slash - out->buf) : 1);
			continue;
		}
		if (out->len > 1)
			strbuf_addch(out, '/');
		strbuf_add(out, seg, len);
	}
}

bool fd_annotation(struct span a, struct strbuf *out)
{
	strbuf_reset(out);
	const char *lt = memchr(a.s, '<', a.n), *e = a.s + a.n;
	if (!lt || lt == a.s)
		return false;
	/* "3</p>", "AT_FDCWD</p>"; a socket's "3<socket:[N]>" or a pipe's
	 * "3<pipe:[N]>" is no path */
	const char *end = fd_annotation_end(lt, e);
	if (!end || end != e || lt[1] != '/')
		return false;
	const char *term = str_unescape(lt + 1, e, '>', out, false);
	if (term != e - 1 || !out->len)
		return false;
	/* the kernel's name of a file unlinked since it was opened */
	static const char deleted[] = " (deleted)";
	size_t dn = sizeof deleted - 1;
	if (out->len > dn && !memcmp(out->buf + out->len - dn, deleted, dn))
		return false;
	if (!path_normal(out->buf, out->len)) { /* the kernel's never is: a hand-made line */
		char *raw = strbuf_detach(out, NULL);
		strbuf_addch(out, '/');
		trace_path_append(out, raw, strlen(raw));
		free(raw);
	}
	return true;
}

/* Resolves the decoded path rel against dirfd (a span: "AT_FDCWD", "3",
 * "3</p>"; NULL for the working directory) into out. Sets *unresolved and
 * copies rel as is when the base is unknown. */
void trace_path_resolve(const struct tracee *pr, const struct span *dirfd, const struct strbuf *rel,
			struct strbuf *out, bool *unresolved)
{
	*unresolved = false;
	strbuf_reset(out);
	if (rel->len && rel->buf[0] == '/') {
		strbuf_addch(out, '/');
		trace_path_append(out, rel->buf, rel->len);
		return;
	}
	const char *base = NULL;
	size_t baselen = 0;
	long fd;
	if (!dirfd || (dirfd->n == 8 && !memcmp(dirfd->s, "AT_FDCWD", 8))) {
		if (!pr->fs->unknown) {
			base = pr->fs->cwd.buf;
			baselen = pr->fs->cwd.len;
		}
	} else if (dirfd->n > 2 && dirfd->s[dirfd->n - 1] == '>') {
		/* -y: the kernel's path of the descriptor (or of the cwd, for
		 * AT_FDCWD) when the call was made; one that is no path (a
		 * socket) or cannot be read leaves rel unresolved */
		if (fd_annotation(*dirfd, out)) {
			trace_path_append(out, rel->buf, rel->len);
			return;
		}
		strbuf_reset(out);
	} else if (num_parse(*dirfd, &fd)) {
		base = fdtab_get(pr->fds, fd);
		baselen = base ? strlen(base) : 0;
	}
	if (!base) {
		*unresolved = true;
		strbuf_add(out, rel->buf, rel->len);
		return;
	}
	strbuf_add(out, base, baselen); /* the cwd and the descriptors' paths are normalized */
	trace_path_append(out, rel->buf, rel->len);
}

/* The descriptor's own path as an absolute path in out (for utimensat(fd,
 * NULL), fchdir, "" with AT_EMPTY_PATH). */
void trace_path_of_fd(const struct tracee *pr, struct span fdarg, struct strbuf *out,
		      bool *unresolved)
{
	struct strbuf empty = STRBUF_INIT;
	trace_path_resolve(pr, &fdarg, &empty, out, unresolved);
	if (*unresolved) {
		strbuf_reset(out);
		strbuf_add(out, fdarg.s, fdarg.n);
	}
}

/* Finds key (e.g. "sin_port=htons(") in sp; returns the span from just
 * after it to the end of sp, or an empty span. */
struct span span_after(struct span sp, const char *key)
{
	size_t k = strlen(key);
	for (size_t i = 0; i + k <= sp.n; i++)
		if (!memcmp(sp.s + i, key, k))
			return (struct span){sp.s + i + k, sp.n - i - k};
	return (struct span){"", 0};
}

/* The quoted string at the start of sp, as a span of its own. */
struct span span_quoted(struct span sp)
{
	if (!sp.n || sp.s[0] != '"')
		return (struct span){"", 0};
	const char *end = skip_quoted(sp.s, sp.s + sp.n);
	return end ? (struct span){sp.s, (size_t)(end - sp.s)} : (struct span){"", 0};
}
