/* jsimports.c - the imports of a JavaScript or TypeScript file
 * (jsimports.h). Two passes: a lexer turns the text into the tokens of its
 * code (what lies in comments, strings, templates, regular expressions and
 * JSX text is no token), then the import forms are matched on the tokens.
 * A regex-free hand lexer: the one hard question, whether a '/' starts a
 * regular expression or divides, is answered from the token before it, as
 * the ECMAScript grammar's goal symbols do; braces and parentheses are
 * kept on stacks to answer it after a '}' or a ')'. */
#include "util/jsimports.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/hex.h"
#include "util/strbuf.h"

enum tok_kind { TK_IDENT, TK_PUNCT, TK_STRING, TK_OTHER };

struct tok {
	enum tok_kind kind;
	size_t start, len;	     /* in the source; a string's with its quotes */
	enum jsimport_ignore ignore; /* what the comments just before it say */
};

/* What an open brace (or JSX element) is, so that its close resumes the
 * right lexing. */
enum ctx {
	CTX_BLOCK,	  /* { of a statement block: a '/' after its } starts a regex */
	CTX_OBJECT,	  /* { of an expression (an object literal): a '/' after divides */
	CTX_TEMPLATE,	  /* ${ in a template: its } resumes the template's text */
	CTX_JSX_TAG,	  /* inside <name ...>: attributes */
	CTX_JSX_ATTR,	  /* { in a tag: its } goes back to the tag */
	CTX_JSX_CHILDREN, /* between <name> and </name> */
	CTX_JSX_CHILD,	  /* { among the children: its } goes back to them */
};

struct lexer {
	const char *s;
	size_t n, i;
	enum jsimports_syntax syntax;
	VEC(struct tok) toks;
	VEC(unsigned char) ctx;	     /* enum ctx, innermost last */
	VEC(unsigned char) parens;   /* per open '(': was it a condition's (if, while, for, with) */
	bool regex_ok;		     /* a '/' here starts a regular expression */
	enum jsimport_ignore ignore; /* the comments since the last token */
};

static bool is_ident_start(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' ||
	       c == '\\' || c >= 0x80;
}

static bool is_ident_char(unsigned char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static bool is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static bool tok_is(const struct lexer *lx, const struct tok *t, const char *word)
{
	size_t len = strlen(word);
	return t->len == len && !memcmp(lx->s + t->start, word, len);
}

/* A comment's text (without its markers) said @boundaries-ignore:
 * Turborepo's rule, the text trimmed must start with it, and what follows
 * is the reason. */
static void comment_ignore(struct lexer *lx, size_t from, size_t to)
{
	static const char word[] = "@boundaries-ignore";
	while (from < to && is_space((unsigned char)lx->s[from]))
		from++;
	while (to > from && is_space((unsigned char)lx->s[to - 1]))
		to--;
	size_t wl = sizeof word - 1;
	if (to - from < wl || memcmp(lx->s + from, word, wl))
		return;
	enum jsimport_ignore said = to - from > wl ? JSIMPORT_IGNORED : JSIMPORT_NO_REASON;
	if (lx->ignore != JSIMPORT_IGNORED)
		lx->ignore = said;
}

/* Skips white space and comments. */
static void skip_trivia(struct lexer *lx)
{
	while (lx->i < lx->n) {
		unsigned char c = (unsigned char)lx->s[lx->i];
		if (is_space(c)) {
			lx->i++;
		} else if (c == '/' && lx->i + 1 < lx->n && lx->s[lx->i + 1] == '/') {
			size_t from = lx->i + 2;
			while (lx->i < lx->n && lx->s[lx->i] != '\n')
				lx->i++;
			comment_ignore(lx, from, lx->i);
		} else if (c == '/' && lx->i + 1 < lx->n && lx->s[lx->i + 1] == '*') {
			size_t from = lx->i + 2;
			const char *end = NULL;
			for (size_t k = from; k + 1 < lx->n && !end; k++)
				if (lx->s[k] == '*' && lx->s[k + 1] == '/')
					end = lx->s + k;
			size_t to = end ? (size_t)(end - lx->s) : lx->n;
			comment_ignore(lx, from, to);
			lx->i = end ? to + 2 : lx->n;
		} else {
			return;
		}
	}
}

static void push_tok(struct lexer *lx, enum tok_kind kind, size_t start, bool regex_after)
{
	struct tok t = {.kind = kind, .start = start, .len = lx->i - start, .ignore = lx->ignore};
	vec_push(&lx->toks, t);
	lx->ignore = JSIMPORT_CHECKED;
	lx->regex_ok = regex_after;
}

static unsigned char ctx_top(const struct lexer *lx)
{
	return lx->ctx.n ? lx->ctx.v[lx->ctx.n - 1] : CTX_BLOCK;
}

/* A quoted string from its opening quote: ends at the matching quote, or
 * (unclosed) before the line's end, where the lexer resumes. */
static void lex_string(struct lexer *lx)
{
	char q = lx->s[lx->i++];
	while (lx->i < lx->n) {
		char c = lx->s[lx->i];
		if (c == q) {
			lx->i++;
			return;
		}
		if (c == '\n')
			return;
		if (c == '\\' && lx->i + 1 < lx->n) {
			lx->i += 2;
			/* \r\n continues the line as one */
			if (lx->s[lx->i - 1] == '\r' && lx->i < lx->n && lx->s[lx->i] == '\n')
				lx->i++;
			continue;
		}
		lx->i++;
	}
}

/* A template's text from just past a '`' or a substitution's '}': to its
 * closing '`' (true), or into a "${" (false, the substitution pushed). */
static bool lex_template_text(struct lexer *lx)
{
	while (lx->i < lx->n) {
		char c = lx->s[lx->i];
		if (c == '\\') {
			lx->i += lx->i + 1 < lx->n ? 2 : 1;
		} else if (c == '`') {
			lx->i++;
			return true;
		} else if (c == '$' && lx->i + 1 < lx->n && lx->s[lx->i + 1] == '{') {
			lx->i += 2;
			vec_push(&lx->ctx, CTX_TEMPLATE);
			return false;
		} else {
			lx->i++;
		}
	}
	return true;
}

/* A regular expression literal from its '/': a '/' inside a class [...]
 * or escaped does not close it; a line's end does (it was no regex). */
static void lex_regex(struct lexer *lx)
{
	bool cls = false;
	lx->i++;
	while (lx->i < lx->n) {
		char c = lx->s[lx->i];
		if (c == '\n')
			return;
		lx->i++;
		if (c == '\\' && lx->i < lx->n && lx->s[lx->i] != '\n')
			lx->i++;
		else if (c == '[')
			cls = true;
		else if (c == ']')
			cls = false;
		else if (c == '/' && !cls)
			break;
	}
	while (lx->i < lx->n && is_ident_char((unsigned char)lx->s[lx->i]))
		lx->i++; /* flags */
}

/* After these words an expression begins: a '/' there starts a regex. */
static bool word_before_expression(const struct lexer *lx, const struct tok *t)
{
	static const char *const words[] = {
	    "return", "typeof", "instanceof", "in",   "of",    "new",	"delete",  "void",
	    "throw",  "case",	"do",	      "else", "yield", "await", "extends", NULL,
	};
	for (const char *const *w = words; *w; w++)
		if (tok_is(lx, t, *w))
			return true;
	return false;
}

/* Whether '<' at lx->i, where an expression may begin, opens a JSX
 * element: a name or '>' follows, and not TSX's generic arrow
 * (<T,>() => ..., <T extends U>() => ...). */
static bool jsx_starts(const struct lexer *lx)
{
	if (lx->syntax == JSIMPORTS_TS)
		return false;
	size_t k = lx->i + 1;
	if (k < lx->n && lx->s[k] == '>')
		return true;
	if (k >= lx->n || !is_ident_start((unsigned char)lx->s[k]))
		return false;
	while (k < lx->n && (is_ident_char((unsigned char)lx->s[k]) || lx->s[k] == '.' ||
			     lx->s[k] == '-' || lx->s[k] == ':'))
		k++;
	while (k < lx->n && is_space((unsigned char)lx->s[k]))
		k++;
	if (k < lx->n && lx->s[k] == ',')
		return false;
	if (lx->syntax == JSIMPORTS_TSX && k + 7 <= lx->n && !memcmp(lx->s + k, "extends", 7) &&
	    (k + 7 == lx->n || !is_ident_char((unsigned char)lx->s[k + 7])))
		return false;
	return true;
}

/* Inside a tag: names, '=', quoted values (which may span lines, and know
 * no escapes), '{' to JavaScript, and its end. */
static void lex_jsx_tag(struct lexer *lx)
{
	char c = lx->s[lx->i];
	if (c == '"' || c == '\'') {
		const char *end = memchr(lx->s + lx->i + 1, c, lx->n - lx->i - 1);
		lx->i = end ? (size_t)(end - lx->s) + 1 : lx->n;
	} else if (c == '{') {
		lx->i++;
		vec_push(&lx->ctx, CTX_JSX_ATTR);
		lx->regex_ok = true;
	} else if (c == '/' && lx->i + 1 < lx->n && lx->s[lx->i + 1] == '>') {
		lx->i += 2;
		lx->ctx.n--; /* the element ends here */
		lx->regex_ok = false;
	} else if (c == '>') {
		lx->i++;
		lx->ctx.v[lx->ctx.n - 1] = CTX_JSX_CHILDREN;
	} else {
		lx->i++;
	}
}

/* Among the children: text, '{' to JavaScript, a nested element, or the
 * closing tag, which ends the element. */
static void lex_jsx_children(struct lexer *lx)
{
	while (lx->i < lx->n && lx->s[lx->i] != '<' && lx->s[lx->i] != '{')
		lx->i++;
	if (lx->i >= lx->n)
		return;
	if (lx->s[lx->i] == '{') {
		lx->i++;
		vec_push(&lx->ctx, CTX_JSX_CHILD);
		lx->regex_ok = true;
		return;
	}
	size_t k = lx->i + 1;
	while (k < lx->n && is_space((unsigned char)lx->s[k]))
		k++;
	if (k < lx->n && lx->s[k] == '/') {
		const char *end = memchr(lx->s + k, '>', lx->n - k);
		lx->i = end ? (size_t)(end - lx->s) + 1 : lx->n;
		lx->ctx.n--;
		lx->regex_ok = false;
		return;
	}
	lx->i++;
	vec_push(&lx->ctx, CTX_JSX_TAG);
}

/* A '}' in JavaScript: closes what its '{' opened. */
static void lex_close_brace(struct lexer *lx)
{
	size_t start = lx->i++;
	unsigned char top = ctx_top(lx);
	if (lx->ctx.n)
		lx->ctx.n--;
	switch (top) {
	case CTX_TEMPLATE:
		lex_template_text(lx);
		push_tok(lx, TK_OTHER, start, false);
		break;
	case CTX_JSX_ATTR:
	case CTX_JSX_CHILD:
		lx->regex_ok = false;
		break;
	default:
		push_tok(lx, TK_PUNCT, start, top == CTX_BLOCK);
		break;
	}
}

static void lex_punct(struct lexer *lx)
{
	size_t start = lx->i;
	char c = lx->s[lx->i];
	const struct tok *prev = lx->toks.n ? &lx->toks.v[lx->toks.n - 1] : NULL;
	switch (c) {
	case '(': {
		bool cond = prev && prev->kind == TK_IDENT &&
			    (tok_is(lx, prev, "if") || tok_is(lx, prev, "while") ||
			     tok_is(lx, prev, "for") || tok_is(lx, prev, "with"));
		vec_push(&lx->parens, cond);
		lx->i++;
		push_tok(lx, TK_PUNCT, start, true);
		return;
	}
	case ')': {
		bool cond = lx->parens.n && lx->parens.v[--lx->parens.n];
		lx->i++;
		push_tok(lx, TK_PUNCT, start, cond);
		return;
	}
	case '{': {
		/* an expression's brace where one may begin, but for an arrow's
		 * body and after a ')' (a function's or a statement's body) */
		bool object =
		    lx->regex_ok && prev &&
		    !(prev->kind == TK_PUNCT &&
		      (tok_is(lx, prev, "=>") || tok_is(lx, prev, ")") || tok_is(lx, prev, ";") ||
		       tok_is(lx, prev, "{") || tok_is(lx, prev, "}"))) &&
		    !(prev->kind == TK_IDENT &&
		      (tok_is(lx, prev, "else") || tok_is(lx, prev, "do")));
		vec_push(&lx->ctx, object ? CTX_OBJECT : CTX_BLOCK);
		lx->i++;
		push_tok(lx, TK_PUNCT, start, true);
		return;
	}
	case ']':
		lx->i++;
		push_tok(lx, TK_PUNCT, start, false);
		return;
	case '[':
	case ';':
	case ',':
	case '~':
		lx->i++;
		push_tok(lx, TK_PUNCT, start, true);
		return;
	case '.':
		if (lx->i + 2 < lx->n && lx->s[lx->i + 1] == '.' && lx->s[lx->i + 2] == '.') {
			lx->i += 3;
			push_tok(lx, TK_PUNCT, start, true);
		} else {
			lx->i++;
			push_tok(lx, TK_PUNCT, start, false); /* a member name follows */
		}
		return;
	default:
		break;
	}
	/* the operators, by maximal munch over their characters; a '/' only
	 * as "/" or "/=" ("=/x/" is '=' and a regex, "=//" '=' and a comment) */
	static const char ops[] = "=<>!+-*%&|^?:";
	if (c == '/') {
		lx->i++;
		if (lx->i < lx->n && lx->s[lx->i] == '=')
			lx->i++;
	} else {
		while (lx->i < lx->n && lx->s[lx->i] && strchr(ops, lx->s[lx->i]))
			lx->i++;
	}
	if (lx->i == start)
		lx->i++; /* '#', '@' or any byte the language has no use for here */
	bool incdec = lx->i - start == 2 &&
		      (!memcmp(lx->s + start, "++", 2) || !memcmp(lx->s + start, "--", 2));
	push_tok(lx, TK_PUNCT, start, !incdec);
}

/* One step of JavaScript: a token, or a context's change. */
static void lex_js(struct lexer *lx)
{
	skip_trivia(lx);
	if (lx->i >= lx->n)
		return;
	size_t start = lx->i;
	unsigned char c = (unsigned char)lx->s[lx->i];
	if (is_ident_start(c)) {
		while (lx->i < lx->n && is_ident_char((unsigned char)lx->s[lx->i]))
			lx->i++;
		struct tok t = {.kind = TK_IDENT, .start = start, .len = lx->i - start};
		const struct tok *prev = lx->toks.n ? &lx->toks.v[lx->toks.n - 1] : NULL;
		/* a keyword after '.' is a property name */
		bool member = prev && prev->kind == TK_PUNCT && tok_is(lx, prev, ".");
		push_tok(lx, TK_IDENT, start, !member && word_before_expression(lx, &t));
	} else if (c >= '0' && c <= '9') {
		/* digits, letters (0x, 1e5, 10n), '_' and '.'; an exponent's sign */
		while (lx->i < lx->n) {
			char d = lx->s[lx->i];
			if (is_ident_char((unsigned char)d) || d == '.')
				lx->i++;
			else if ((d == '+' || d == '-') &&
				 (lx->s[lx->i - 1] == 'e' || lx->s[lx->i - 1] == 'E') &&
				 lx->s[start] != '0')
				lx->i++;
			else
				break;
		}
		push_tok(lx, TK_OTHER, start, false);
	} else if (c == '"' || c == '\'') {
		lex_string(lx);
		push_tok(lx, TK_STRING, start, false);
	} else if (c == '`') {
		lx->i++;
		if (lex_template_text(lx))
			push_tok(lx, TK_OTHER, start, false);
		else
			lx->regex_ok = true; /* a substitution begins */
	} else if (c == '/' && lx->regex_ok) {
		lex_regex(lx);
		push_tok(lx, TK_OTHER, start, false);
	} else if (c == '<' && lx->regex_ok && lx->syntax != JSIMPORTS_TS && jsx_starts(lx)) {
		lx->i++;
		vec_push(&lx->ctx, CTX_JSX_TAG);
	} else if (c == '}') {
		lex_close_brace(lx);
	} else if (c == '.' && lx->i + 1 < lx->n && lx->s[lx->i + 1] >= '0' &&
		   lx->s[lx->i + 1] <= '9') {
		lx->i++;
		while (lx->i < lx->n && (is_ident_char((unsigned char)lx->s[lx->i])))
			lx->i++;
		push_tok(lx, TK_OTHER, start, false);
	} else {
		lex_punct(lx);
	}
}

static void lex(struct lexer *lx)
{
	/* a hashbang line is no code */
	if (lx->n >= 2 && lx->s[0] == '#' && lx->s[1] == '!')
		while (lx->i < lx->n && lx->s[lx->i] != '\n')
			lx->i++;
	while (lx->i < lx->n) {
		unsigned char top = ctx_top(lx);
		if (lx->ctx.n && top == CTX_JSX_TAG) {
			lex_jsx_tag(lx);
		} else if (lx->ctx.n && top == CTX_JSX_CHILDREN) {
			lex_jsx_children(lx);
		} else {
			size_t before = lx->i;
			lex_js(lx);
			if (lx->i == before && lx->i < lx->n)
				lx->i++; /* never stall */
		}
	}
}

/* ---- the import forms, on the tokens ---- */

struct finder {
	const struct lexer *lx;
	const size_t *line_starts; /* the offset each line starts at */
	size_t n_lines;
	struct jsimports *out;
};

/* n hex digits at s (fewer when the text ends or a non-digit comes);
 * returns how many were read. */
static size_t hex_run(const char *s, size_t max, size_t n, uint32_t *cp)
{
	size_t k = 0;
	*cp = 0;
	for (; k < n && k < max && hex_value(s[k]) >= 0; k++)
		*cp = *cp * 16 + (uint32_t)hex_value(s[k]);
	return k;
}

/* The value of a string token (quotes off, escapes decoded). */
static char *string_value(const struct lexer *lx, const struct tok *t)
{
	const char *s = lx->s + t->start + 1;
	size_t n = t->len >= 2 && lx->s[t->start + t->len - 1] == lx->s[t->start] ? t->len - 2
										  : t->len - 1;
	struct strbuf sb = STRBUF_INIT;
	for (size_t k = 0; k < n;) {
		if (s[k] != '\\' || k + 1 >= n) {
			strbuf_addch(&sb, s[k++]);
			continue;
		}
		char e = s[k + 1];
		k += 2;
		uint32_t cp;
		size_t got;
		switch (e) {
		case 'n':
			strbuf_addch(&sb, '\n');
			break;
		case 't':
			strbuf_addch(&sb, '\t');
			break;
		case 'r':
			strbuf_addch(&sb, '\r');
			break;
		case 'b':
			strbuf_addch(&sb, '\b');
			break;
		case 'f':
			strbuf_addch(&sb, '\f');
			break;
		case 'v':
			strbuf_addch(&sb, '\v');
			break;
		case '0':
			strbuf_addch(&sb, '\0');
			break;
		case '\r':
			if (k < n && s[k] == '\n')
				k++;
			break; /* a line continuation */
		case '\n':
			break;
		case 'x':
			got = hex_run(s + k, n - k, 2, &cp);
			k += got;
			strbuf_add_utf8(&sb, got == 2 ? cp : 0xFFFD);
			break;
		case 'u':
			if (k < n && s[k] == '{') {
				const char *close = memchr(s + k, '}', n - k);
				got = close
					  ? hex_run(s + k + 1, (size_t)(close - s) - k - 1, 6, &cp)
					  : 0;
				k = close ? (size_t)(close - s) + 1 : n;
				strbuf_add_utf8(&sb, got ? cp : 0xFFFD);
			} else {
				got = hex_run(s + k, n - k, 4, &cp);
				k += got;
				strbuf_add_utf8(&sb, got == 4 ? cp : 0xFFFD);
			}
			break;
		default:
			strbuf_addch(&sb, e);
			break;
		}
	}
	return strbuf_detach(&sb, NULL);
}

static void position(const struct finder *f, size_t off, unsigned *line, unsigned *col)
{
	size_t lo = 0, hi = f->n_lines; /* the last line starting at or before off */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->line_starts[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	size_t chars = 0;
	for (size_t k = f->line_starts[lo]; k < off; k++)
		chars += ((unsigned char)f->lx->s[k] & 0xC0) != 0x80;
	*line = (unsigned)(lo + 1);
	*col = (unsigned)(chars + 1);
}

static void add(struct finder *f, const struct tok *str, const struct tok *at,
		enum jsimport_kind kind, bool type_only, enum jsimport_ignore ignore)
{
	struct jsimport im = {.spec = string_value(f->lx, str),
			      .kind = kind,
			      .type_only = type_only,
			      .ignore = ignore};
	position(f, at->start, &im.line, &im.col);
	vec_push(&f->out->v, im);
}

static const struct tok *tok_at(const struct finder *f, size_t k)
{
	return k < f->lx->toks.n ? &f->lx->toks.v[k] : NULL;
}

static bool is_punct(const struct finder *f, size_t k, const char *p)
{
	const struct tok *t = tok_at(f, k);
	return t && t->kind == TK_PUNCT && tok_is(f->lx, t, p);
}

static bool is_word(const struct finder *f, size_t k, const char *w)
{
	const struct tok *t = tok_at(f, k);
	return t && t->kind == TK_IDENT && tok_is(f->lx, t, w);
}

static bool is_string(const struct finder *f, size_t k)
{
	const struct tok *t = tok_at(f, k);
	return t && t->kind == TK_STRING;
}

/* At k: require ( STRING ). */
static bool require_call(const struct finder *f, size_t k)
{
	return is_word(f, k, "require") && is_punct(f, k + 1, "(") && is_string(f, k + 2) &&
	       is_punct(f, k + 3, ")");
}

/* The clause of an import or export from token k: names, '*', 'as',
 * braces and the strings of arbitrary module names, up to 'from STRING'
 * (returns the string's index) or '= require(STRING)' (TypeScript's;
 * *req set). Returns 0 when the statement names no module. */
static size_t clause_source(const struct finder *f, size_t k, bool *req)
{
	*req = false;
	bool braces = false;
	size_t first = k;
	const struct tok *last = NULL; /* the last token outside braces */
	for (; k < f->lx->toks.n; k++) {
		const struct tok *t = &f->lx->toks.v[k];
		/* import and export bind no name: one is the next statement (a
		 * review: `import as ` repeated was scanned to the end from
		 * every import, 12 s for 800 KB; now each scan ends at the
		 * next, and the pass is linear) */
		if (t->kind == TK_IDENT &&
		    (tok_is(f->lx, t, "import") || tok_is(f->lx, t, "export")))
			return 0;
		if (braces) {
			if (t->kind == TK_PUNCT && tok_is(f->lx, t, "}"))
				braces = false;
			else if (t->kind != TK_IDENT && t->kind != TK_STRING &&
				 !(t->kind == TK_PUNCT && tok_is(f->lx, t, ",")))
				return 0;
			last = t;
			continue;
		}
		if (t->kind == TK_IDENT && tok_is(f->lx, t, "from") && k > first &&
		    is_string(f, k + 1))
			return k + 1;
		if (t->kind == TK_IDENT) {
			/* two names in a row only around "as" (* as ns): else the
			 * statement ended (no semicolon) and another began */
			if (last && last->kind == TK_IDENT && !tok_is(f->lx, last, "as") &&
			    !tok_is(f->lx, t, "as"))
				return 0;
			last = t;
			continue;
		}
		if (t->kind != TK_PUNCT)
			return 0;
		if (tok_is(f->lx, t, "{"))
			braces = true;
		else if (tok_is(f->lx, t, "=") && k == first + 1 && last &&
			 last->kind == TK_IDENT && require_call(f, k + 1)) {
			*req = true;
			return k + 3;
		} else if (!tok_is(f->lx, t, "*") && !tok_is(f->lx, t, ","))
			return 0;
		last = t;
	}
	return 0;
}

/* Whether 'type' at k makes the statement type-only: not when 'type' is
 * itself the default import's name (import type from 'x', import type,
 * {a} from 'x', import type = require('x')). */
static bool type_modifier(const struct finder *f, size_t k)
{
	if (!is_word(f, k, "type"))
		return false;
	if (is_punct(f, k + 1, ",") || is_punct(f, k + 1, "="))
		return false;
	if (is_word(f, k + 1, "from") && is_string(f, k + 2))
		return false;
	return true;
}

static void find(struct finder *f)
{
	const struct lexer *lx = f->lx;
	for (size_t k = 0; k < lx->toks.n; k++) {
		const struct tok *t = &lx->toks.v[k];
		if (t->kind != TK_IDENT)
			continue;
		/* obj.import(), obj.require(), import.meta: members, not forms */
		if (k && is_punct(f, k - 1, "."))
			continue;
		if (tok_is(lx, t, "import")) {
			if (is_punct(f, k + 1, "(") && is_string(f, k + 2)) {
				add(f, &lx->toks.v[k + 2], &lx->toks.v[k + 2], JSIMPORT_DYNAMIC,
				    false, t->ignore);
			} else if (is_string(f, k + 1)) {
				add(f, &lx->toks.v[k + 1], &lx->toks.v[k + 1], JSIMPORT_IMPORT,
				    false, t->ignore);
			} else if (!is_punct(f, k + 1, "(") && !is_punct(f, k + 1, ".")) {
				bool type_only = type_modifier(f, k + 1), req;
				size_t s = clause_source(f, k + 1 + type_only, &req);
				if (s) {
					add(f, &lx->toks.v[s], &lx->toks.v[s], JSIMPORT_IMPORT,
					    type_only, t->ignore);
					k = s;
				}
			}
		} else if (tok_is(lx, t, "export")) {
			bool type_only = type_modifier(f, k + 1), req;
			size_t first = k + 1 + type_only;
			/* export import a = require('x') is TypeScript's import */
			if (is_word(f, first, "import"))
				continue;
			if (!is_punct(f, first, "*") && !is_punct(f, first, "{"))
				continue;
			size_t s = clause_source(f, first, &req);
			if (s && !req) {
				add(f, &lx->toks.v[s], &lx->toks.v[s], JSIMPORT_EXPORT, type_only,
				    t->ignore);
				k = s;
			}
		} else if (tok_is(lx, t, "require") && require_call(f, k)) {
			/* not the definition of a function named require */
			if (k && is_word(f, k - 1, "function"))
				continue;
			add(f, &lx->toks.v[k + 2], t, JSIMPORT_REQUIRE, false, t->ignore);
		}
	}
}

void jsimports_scan(const char *src, size_t n, enum jsimports_syntax syntax, struct jsimports *out)
{
	struct lexer lx = {.s = src, .n = n, .syntax = syntax, .regex_ok = true};
	lex(&lx);
	VEC(size_t) starts = {0};
	vec_push(&starts, (size_t)0);
	for (size_t k = 0; k < n; k++)
		if (src[k] == '\n' || (src[k] == '\r' && (k + 1 >= n || src[k + 1] != '\n')))
			vec_push(&starts, k + 1);
	struct finder f = {.lx = &lx, .line_starts = starts.v, .n_lines = starts.n, .out = out};
	find(&f);
	vec_free(&starts);
	vec_free(&lx.toks);
	vec_free(&lx.ctx);
	vec_free(&lx.parens);
}

void jsimports_clear(struct jsimports *out)
{
	for (size_t k = 0; k < out->v.n; k++)
		free(out->v.v[k].spec);
	vec_free(&out->v);
}

int jsimports_syntax_of(const char *name)
{
	static const struct {
		const char *ext;
		enum jsimports_syntax syntax;
	} exts[] = {
	    {".js", JSIMPORTS_JS},  {".jsx", JSIMPORTS_JS},  {".mjs", JSIMPORTS_JS},
	    {".cjs", JSIMPORTS_JS}, {".ts", JSIMPORTS_TS},   {".mts", JSIMPORTS_TS},
	    {".cts", JSIMPORTS_TS}, {".tsx", JSIMPORTS_TSX},
	};
	const char *dot = strrchr(name, '.');
	if (!dot || dot == name || dot[-1] == '/')
		return -1;
	for (size_t k = 0; k < sizeof exts / sizeof *exts; k++)
		if (!strcmp(dot, exts[k].ext))
			return exts[k].syntax;
	return -1;
}

/* An npm name's part: what turbo boundaries takes for a package. */
static size_t name_part(const char *s)
{
	size_t k = 0;
	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9') || s[0] == '-' ||
	      s[0] == '~'))
		return 0;
	for (k = 1; (s[k] >= 'a' && s[k] <= 'z') || (s[k] >= '0' && s[k] <= '9') || s[k] == '-' ||
		    s[k] == '.' || s[k] == '_' || s[k] == '~';
	     k++)
		;
	return k;
}

size_t jsimports_package_len(const char *spec)
{
	size_t k = 0;
	if (spec[0] == '@') {
		size_t scope = name_part(spec + 1);
		if (!scope || spec[1 + scope] != '/')
			return 0;
		k = scope + 2;
	}
	size_t name = name_part(spec + k);
	if (!name || (spec[k + name] && spec[k + name] != '/'))
		return 0;
	return k + name;
}
