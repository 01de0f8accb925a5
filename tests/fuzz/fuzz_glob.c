/* fuzz_glob.c - libFuzzer target for util/glob.c. The input is a pattern and
 * a path, split at the first NUL or newline. Every entry point must return
 * without crashing on any pattern, checked or not; and for a pattern that
 * checks, matching in place must agree with matching its brace expansions
 * one by one (the matcher never expands, so this pits two implementations of
 * the braces against each other). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/glob.h"

/* Expansions beyond this are matched only in place: the oracle would cost
 * thousands of matches per input and slow the search down. */
#define ORACLE_MAX 256

/* True when braces could decide, in an expansion, whether stars form a `**`
 * segment: stars on both sides of brace syntax ("*{,a}*" gives "**"), or a
 * `{` right after `**` ("**{,x}" gives "**"). In place the text decides (two
 * stars; a star): known differences, in docs/glob.md. */
static bool stars_may_fuse(const char *p)
{
	/* A `**` whose next byte, once it leaves the groups it ends, is '{'
	 * (stars, then a '}', then a '{', as in the finding
	 * regress-globstar-before-group): a star in place, a globstar in its
	 * expansion. A ',' after the stars leaves its group at a '}' further
	 * on: any later '{' may then follow it. */
	for (const char *s = strstr(p, "**"); s; s = strstr(s + 1, "**")) {
		const char *q = s;
		while (*q == '*')
			q++;
		while (*q == '}')
			q++;
		if (*q == '{' || (*q == ',' && strchr(q, '{')))
			return true;
	}
	bool before = false, after = false;
	for (; *p && p[1]; p++) {
		before |= p[0] == '*' && strchr("{,}", p[1]);
		after |= strchr("{,}", p[0]) && p[1] == '*';
	}
	return before && after;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cut = 0;
	while (cut < size && data[cut] != '\0' && data[cut] != '\n')
		cut++;
	char *pat = malloc(cut + 1);
	size_t plen = cut < size ? size - cut - 1 : 0;
	char *path = malloc(plen + 1);
	if (!pat || !path)
		abort();
	memcpy(pat, data, cut);
	pat[cut] = '\0';
	if (plen)
		memcpy(path, data + cut + 1, plen);
	path[plen] = '\0';
	/* The path stops at an inner NUL, as a C string does. */

	const char *why = NULL;
	size_t off = 0;
	int ok = glob_check(pat, &why, &off) == 0;
	if (!ok && (!why || off > strlen(pat)))
		abort(); /* a refusal names its reason and a place in the pattern */
	bool m = glob_match(pat, path);
	size_t steps;
	if (glob_match_counted(pat, path, &steps) != m)
		abort();
	(void)glob_match(path, pat); /* the path as a pattern: unchecked syntax */
	if (glob_literal_prefix(pat) > strlen(pat))
		abort();
	if (!glob_has_magic(pat) && glob_literal_prefix(pat) != strlen(pat))
		abort();
	char *list[] = {pat, path};
	(void)globlist_match(list, 2, path);

	struct strvec exp = STRVEC_INIT;
	int n = glob_expand_braces(pat, &exp);
	if (n > GLOB_MAX_EXPANSION || (n < 0 && exp.n) || (n >= 0 && (size_t)n != exp.n))
		abort();
	if (ok && n < 1)
		abort(); /* a pattern that checks always expands */
	bool oracle = ok && n >= 1 && n <= ORACLE_MAX && !stars_may_fuse(pat);
	/* "./" is cut only at the very start of the whole pattern, not at the
	 * start of an alternative ("{./a,b}"): there the two may differ. */
	for (int i = 0; oracle && i < n; i++)
		if (exp.v[i][0] == '.' && exp.v[i][1] == '/')
			oracle = false;
	if (oracle) {
		bool any = false;
		for (int i = 0; i < n && !any; i++)
			any = glob_match(exp.v[i], path);
		if (any != m) {
			fprintf(stderr, "glob_match(\"%s\", \"%s\") = %d, its expansions say %d\n",
				pat, path, m, any);
			abort();
		}
	}
	strvec_clear(&exp);
	free(pat);
	free(path);
	return 0;
}
