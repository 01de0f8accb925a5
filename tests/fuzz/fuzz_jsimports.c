/* fuzz_jsimports.c - libFuzzer target for util/jsimports.c. The first byte
 * picks the syntax (JavaScript with JSX, TypeScript, TSX), the rest is the
 * file. Any text must scan without crashing; every import must lie in the
 * text (line and column within it), in source order; and the same text
 * one line lower must give the same imports one line lower (the lexer
 * keeps no state of where it began, but a hashbang, which only the first
 * two bytes can make). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/jsimports.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	enum jsimports_syntax syntax = (enum jsimports_syntax)(data[0] % 3);
	const char *src = (const char *)data + 1;
	size_t n = size - 1;
	struct jsimports a = {0}, b = {0};
	jsimports_scan(src, n, syntax, &a);

	size_t lines = 1;
	for (size_t k = 0; k < n; k++)
		lines += src[k] == '\n' || (src[k] == '\r' && (k + 1 >= n || src[k + 1] != '\n'));
	for (size_t k = 0; k < a.v.n; k++) {
		const struct jsimport *x = &a.v.v[k];
		if (!x->spec || x->line < 1 || x->line > lines || x->col < 1 || x->col > n)
			abort();
		if (k && (x->line < a.v.v[k - 1].line ||
			  (x->line == a.v.v[k - 1].line && x->col <= a.v.v[k - 1].col)))
			abort();
		(void)jsimports_package_len(x->spec);
	}

	if (!(n >= 2 && src[0] == '#' && src[1] == '!')) {
		char *lower = malloc(n + 1);
		if (!lower)
			abort();
		lower[0] = '\n';
		memcpy(lower + 1, src, n);
		jsimports_scan(lower, n + 1, syntax, &b);
		if (a.v.n != b.v.n)
			abort();
		for (size_t k = 0; k < a.v.n; k++) {
			const struct jsimport *x = &a.v.v[k], *y = &b.v.v[k];
			if (y->line != x->line + 1 || y->col != x->col || y->kind != x->kind ||
			    y->type_only != x->type_only || y->ignore != x->ignore ||
			    strcmp(x->spec, y->spec)) {
				fprintf(stderr, "import %zu moved: %u:%u %s, then %u:%u %s\n", k,
					x->line, x->col, x->spec, y->line, y->col, y->spec);
				abort();
			}
		}
		free(lower);
	}
	jsimports_clear(&a);
	jsimports_clear(&b);
	return 0;
}
