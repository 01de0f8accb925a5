/* jsimports.h - the module specifiers a JavaScript or TypeScript file
 * names: a lexer (comments, strings, template literals with their ${}
 * nesting, regular expressions told from division, JSX) and the forms that
 * import on its tokens. Knows the language, not the workspace: what a
 * specifier resolves to is vx boundaries' (docs/boundaries.md). */
#ifndef VX_UTIL_JSIMPORTS_H
#define VX_UTIL_JSIMPORTS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/vec.h"

enum jsimport_kind {
	JSIMPORT_IMPORT,  /* import x from 'y', import 'y', import x = require('y') */
	JSIMPORT_EXPORT,  /* export ... from 'y' */
	JSIMPORT_DYNAMIC, /* import('y') */
	JSIMPORT_REQUIRE, /* require('y') */
};

/* What the comment just before an import says (Turborepo's
 * "// @boundaries-ignore REASON"). */
enum jsimport_ignore {
	JSIMPORT_CHECKED,   /* no such comment */
	JSIMPORT_IGNORED,   /* "@boundaries-ignore" with a reason: not checked */
	JSIMPORT_NO_REASON, /* "@boundaries-ignore" alone: checked, and warned */
};

struct jsimport {
	char *spec; /* the specifier, its escapes decoded */
	enum jsimport_kind kind;
	bool type_only; /* import type / export type: erased from the JavaScript */
	enum jsimport_ignore ignore;
	/* 1-based; col counts characters (UTF-8 code points), not bytes. At
	 * the specifier's opening quote; a require's at the word require, as
	 * turbo boundaries reports them. */
	unsigned line, col;
};

struct jsimports {
	VEC(struct jsimport) v;
};

enum jsimports_syntax {
	JSIMPORTS_JS,  /* .js .mjs .cjs .jsx: JSX read */
	JSIMPORTS_TS,  /* .ts .mts .cts: no JSX (`<T>x` is a type assertion) */
	JSIMPORTS_TSX, /* .tsx */
};

/* The syntax a file name's extension says, or -1 when it is none of the
 * eight: .js .jsx .mjs .cjs .ts .tsx .mts .cts. */
int jsimports_syntax_of(const char *name);

/* Appends to out every import of the n bytes of src, in the order they are
 * written. Never fails: text that is no JavaScript is scanned as well as
 * it goes (an unclosed string ends at its line, an unclosed comment or
 * template at the end), and yields what it names. */
void jsimports_scan(const char *src, size_t n, enum jsimports_syntax syntax, struct jsimports *out);
void jsimports_clear(struct jsimports *out);

/* The package a bare specifier names: "@scope/name/sub" -> "@scope/name",
 * "name/sub" -> "name". Returns its length in spec (0: spec is relative,
 * absolute, a URL or a "node:" builtin, or no package name). */
size_t jsimports_package_len(const char *spec);

#endif
