/* Unit tests for util/jsimports.c: every import form, what is not one
 * (comments, strings, templates, regular expressions, JSX text, members),
 * the regex/division question, positions, escapes, ignore comments, and
 * the package a specifier names. */
#include <stdlib.h>

#include "check.h"
#include "util/jsimports.h"
#include "util/strbuf.h"

/* The imports of src as "LINE:COL KIND SPEC" lines, KIND one of i e d r
 * (import, export, dynamic, require), a 't' after it for type-only, an
 * '!' for ignored, a '?' for an ignore without a reason. */
static char *scan(const char *src, enum jsimports_syntax syntax)
{
	struct jsimports im = {0};
	jsimports_scan(src, strlen(src), syntax, &im);
	struct strbuf sb = STRBUF_INIT;
	for (size_t k = 0; k < im.v.n; k++) {
		const struct jsimport *x = &im.v.v[k];
		strbuf_addf(&sb, "%u:%u %c%s%s %s\n", x->line, x->col, "iedr"[x->kind],
			    x -> type_only ? "t" : "",
			    x->ignore == JSIMPORT_IGNORED     ? "!"
			    : x->ignore == JSIMPORT_NO_REASON ? "?"
							      : "",
			    x->spec);
	}
	jsimports_clear(&im);
	return strbuf_detach(&sb, NULL);
}

#define SCAN(src, want)                                                                            \
	do {                                                                                       \
		char *got_ = scan(src, JSIMPORTS_TS);                                              \
		CHECK_STR(got_, want);                                                             \
		free(got_);                                                                        \
	} while (0)

#define SCAN_AS(syntax, src, want)                                                                 \
	do {                                                                                       \
		char *got_ = scan(src, syntax);                                                    \
		CHECK_STR(got_, want);                                                             \
		free(got_);                                                                        \
	} while (0)

static void test_forms(void)
{
	SCAN("import x from 'a';", "1:15 i a\n");
	SCAN("import 'a'", "1:8 i a\n");
	SCAN("import * as ns from \"a\"", "1:21 i a\n");
	SCAN("import x, { y as z, type T } from 'a'", "1:35 i a\n");
	SCAN("import {\n  a,\n  b,\n} from 'multi'", "4:8 i multi\n");
	SCAN("import type { T } from 'a'", "1:24 it a\n");
	SCAN("import type T from 'a'", "1:20 it a\n");
	SCAN("import type from 'a'", "1:18 i a\n"); /* a default import named type */
	SCAN("import type, { a } from 'a'", "1:25 i a\n");
	SCAN("import { \"a-b\" as ab } from 'a'", "1:29 i a\n");
	SCAN("import { from } from 'a'", "1:22 i a\n");
	SCAN("import fs = require('fs')", "1:21 i fs\n");
	SCAN("import type T = require('t')", "1:25 it t\n");
	SCAN("export import fs = require('fs')", "1:28 i fs\n");
	SCAN("export { a } from 'a'", "1:19 e a\n");
	SCAN("export * from 'a'", "1:15 e a\n");
	SCAN("export * as ns from 'a'", "1:21 e a\n");
	SCAN("export type { T } from 'a'", "1:24 et a\n");
	SCAN("export { a };\nexport const b = 1;\nexport default 'c';", "");
	SCAN("const m = await import('a')", "1:24 d a\n");
	SCAN("const a = require('a')", "1:11 r a\n");
	SCAN("require('a');", "1:1 r a\n");
	SCAN("foo(require(\"a\"), require('b'))", "1:5 r a\n1:19 r b\n");
	SCAN("import x from 'a' with { type: 'json' }", "1:15 i a\n");
}

static void test_not_imports(void)
{
	SCAN("// import x from 'a'\n/* import 'b' */", "");
	SCAN("const s = \"import x from 'a'\";", "");
	SCAN("const s = 'require(\"a\")';", "");
	SCAN("const t = `import x from 'a'`;", "");
	SCAN("const u = import.meta.url;", "");
	SCAN("obj.import('a'); obj.require('b'); a?.require('c')", "");
	SCAN("function require(x) {}", "");
	SCAN("const o = { import: 1, require: 2 };", "");
	SCAN("import(dynamicName); require(name)", "");
	SCAN("declare module 'a' {}", "");
	/* no semicolon: the import ends at its line, the require is its own
	 * (the fuzzer's regress-import-clause-across-statements) */
	SCAN("import X\nconst t = require('b')", "2:11 r b\n");
	/* a regex holding what looks like an import, a comment, a quote */
	SCAN("const r = /import 'a'/g; x = 1", "");
	SCAN("const r = /[/]require('a')/;", "");
	SCAN("if (x) /'/.test(y); import 'b'", "1:28 i b\n");
	SCAN("const r = x ? /'/ : 2; import 'b'", "1:31 i b\n");
}

static void test_division(void)
{
	/* a '/' after an operand divides: the quote after it is a string */
	SCAN("const a = b / 2; const c = d / 'e'.length; import 'f'", "1:51 i f\n");
	SCAN("const a = (b) / 2 / 'x'; import 'f'", "1:33 i f\n");
	SCAN("a[0] / 2 /'x'; import 'f'", "1:23 i f\n");
	SCAN("i++ / 2; import 'f' // '", "1:17 i f\n");
	SCAN("x = {} / 2; import 'f'", "1:20 i f\n"); /* an object literal */
	SCAN("{} /'x'/; import 'f'", "1:18 i f\n");   /* a block, then a regex */
	SCAN("const r = 1 /* c */ / 2; import 'f'", "1:33 i f\n");
	SCAN("a /= 2; import 'f'", "1:16 i f\n");
	SCAN("return /'/; import 'f'", "1:20 i f\n");
	SCAN("x = a.return / 'y'; import 'f'", "1:28 i f\n"); /* a member, not the keyword */
}

static void test_templates(void)
{
	SCAN("const t = `a ${'b'} c`; import 'x'", "1:32 i x\n");
	SCAN("const t = `${ {a: `${require('inner')}`}.a }`", "1:22 r inner\n");
	SCAN("const t = `${ x } import 'no' ${ y }`; import 'x'", "1:47 i x\n");
	SCAN("const t = `\nimport 'no'\n${`\n`}`;\nimport 'x'", "5:8 i x\n");
	SCAN("const t = `${a / 2}/'`; import 'x'", "1:32 i x\n");
}

static void test_jsx(void)
{
	SCAN_AS(JSIMPORTS_TSX, "const a = <p>Don't import 'x' here</p>;\nimport 'y'", "2:8 i y\n");
	SCAN_AS(JSIMPORTS_JS, "const a = <A b=\"it's\" c={require('c')}>{/* ' */}</A>; import 'y'",
		"1:26 r c\n1:62 i y\n");
	SCAN_AS(JSIMPORTS_JS, "x = <><b/>it's</>; import 'y'", "1:27 i y\n");
	SCAN_AS(JSIMPORTS_TSX, "const f = <T,>(x: T) => x; import 'y'", "1:35 i y\n");
	SCAN_AS(JSIMPORTS_TSX, "const f = <T extends U>(x: T) => x; import 'y'", "1:44 i y\n");
	SCAN_AS(JSIMPORTS_TSX, "useState<string>('x'); import 'y'", "1:31 i y\n");
	/* a type assertion in .ts: no JSX there */
	SCAN("const a = <Foo>'x'; import 'y'", "1:28 i y\n");
}

static void test_positions_and_escapes(void)
{
	SCAN("\n\n  import 'a'", "3:10 i a\n");
	SCAN("/* é */ import 'a'", "1:16 i a\n"); /* characters, not bytes */
	SCAN("import 'a'\r\nimport 'b'\rimport 'c'", "1:8 i a\n2:8 i b\n3:8 i c\n");
	SCAN("import '\\x61\\u0062\\u{63}\\'d'", "1:8 i abc'd\n");
	SCAN("#!/usr/bin/env node\nimport 'a'", "2:8 i a\n");
	/* an unclosed string ends at its line; the next line is read */
	SCAN("const s = 'open\nimport 'a'", "2:8 i a\n");
	SCAN("/* never closed import 'a'", "");
	SCAN("import '", "1:8 i \n");
}

static void test_ignore(void)
{
	SCAN("// @boundaries-ignore it is a peer\nimport 'a'", "2:8 i! a\n");
	SCAN("/* @boundaries-ignore why */ import 'a'", "1:37 i! a\n");
	SCAN("// @boundaries-ignore\nimport 'a'", "2:8 i? a\n");
	SCAN("// @boundaries-ignore x\n\nconst y = 1;\nimport 'a'", "4:8 i a\n");
	SCAN("// not @boundaries-ignore x\nimport 'a'", "2:8 i a\n");
}

static void test_package(void)
{
	static const struct {
		const char *spec;
		size_t len;
	} cases[] = {
	    {"ship", 4},
	    {"ship/a/b", 4},
	    {"@scope/ship", 11},
	    {"@scope/ship/x", 11},
	    {"ship/", 4},
	    {"lodash.get", 10},
	    {"./a", 0},
	    {"../a", 0},
	    {"/abs", 0},
	    {"node:fs", 0},
	    {"@scope", 0},
	    {"@/alias", 0},
	    {"#internal", 0},
	    {"Upper", 0},
	    {"", 0},
	    {"https://x.y/z", 0},
	    {"virtual:x", 0},
	    {"~/alias", 1},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		size_t got = jsimports_package_len(cases[k].spec);
		CHECK_INT(got, cases[k].len);
		if (got != cases[k].len)
			fprintf(stderr, "  (spec \"%s\")\n", cases[k].spec);
	}
}

static void test_syntax_of(void)
{
	CHECK_INT(jsimports_syntax_of("a/b.js"), JSIMPORTS_JS);
	CHECK_INT(jsimports_syntax_of("b.cjs"), JSIMPORTS_JS);
	CHECK_INT(jsimports_syntax_of("b.mts"), JSIMPORTS_TS);
	CHECK_INT(jsimports_syntax_of("b.d.ts"), JSIMPORTS_TS);
	CHECK_INT(jsimports_syntax_of("b.tsx"), JSIMPORTS_TSX);
	CHECK_INT(jsimports_syntax_of("b.json"), -1);
	CHECK_INT(jsimports_syntax_of(".ts"), -1);
	CHECK_INT(jsimports_syntax_of("js"), -1);
}

int main(void)
{
	test_forms();
	test_not_imports();
	test_division();
	test_templates();
	test_jsx();
	test_positions_and_escapes();
	test_ignore();
	test_package();
	test_syntax_of();
	return check_finish("jsimports");
}
