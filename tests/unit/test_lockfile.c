/* Unit tests for lockfile/: the closures of one workspace read from the
 * lockfile each real manager wrote for it (fixtures/lockfiles/README.md),
 * then the properties a key needs: a reformat or a reorder changes no
 * hash, a bump changes exactly the closures that hold the package, and a
 * file vx cannot read is an error with its reason, never a crash. */
#include <stdlib.h>

#include "check.h"
#include "lockfile/lockfile.h"
#include "lockfile/lockgraph.h"
#include "util/die.h"
#include "util/strbuf.h"

static const char *const a_names[] = {"is-odd", "ui"};
static const char *const a_specs[] = {"3.0.1", "*"};
static const char *const b_names[] = {"left-pad"};
static const char *const b_specs[] = {"1.3.0"};
static const char *const c_names[] = {"ms", "is-number"};
static const char *const c_specs[] = {"2.1.3", "6.0.0"};
static const char *const ui_names[] = {"is-number"};
static const char *const ui_specs[] = {"7.0.0"};
static const char *const root_names[] = {"kleur"};
static const char *const root_specs[] = {"4.1.5"};

static const struct lock_importer importers[] = {
    {".", "fixture-root", root_names, root_specs, 1},
    {"apps/a", "a", a_names, a_specs, 2},
    {"apps/b", "b", b_names, b_specs, 1},
    {"apps/c", "c", c_names, c_specs, 2},
    {"packages/ui", "ui", ui_names, ui_specs, 1},
};
#define N_IMP (sizeof importers / sizeof *importers)

/* What each importer's closure holds, as "NAME VERSION" lines. */
static const char *const want[N_IMP] = {
    "kleur 4.1.5",
    "is-number 6.0.0,is-number 7.0.0,is-odd 3.0.1,kleur 4.1.5",
    "kleur 4.1.5,left-pad 1.3.0",
    "is-number 6.0.0,kleur 4.1.5,ms 2.1.3",
    "is-number 7.0.0,kleur 4.1.5",
};

static char *read_all(const char *path, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path))
		die_errno("%s", path);
	return strbuf_detach(&sb, len);
}

static struct lockset *read_text(enum lock_format fmt, const char *text, size_t len,
				 struct strbuf *err)
{
	return lockset_read(fmt, "fixture", text, len, importers, N_IMP, err);
}

/* Importer i's lines without their identities, joined by ','. */
static char *names_versions(const struct lockset *ls, size_t i)
{
	struct strvec lines = STRVEC_INIT;
	lockset_lines(ls, i, &lines);
	struct strbuf sb = STRBUF_INIT;
	for (size_t l = 0; l < lines.n; l++) {
		const char *sp = strchr(lines.v[l], ' ');
		const char *sp2 = sp ? strchr(sp + 1, ' ') : NULL;
		if (l)
			strbuf_addch(&sb, ',');
		strbuf_add(&sb, lines.v[l], sp2 ? (size_t)(sp2 - lines.v[l]) : strlen(lines.v[l]));
		CHECK(sp2 && sp2[1] && strcmp(sp2 + 1, "-")); /* every package has an identity */
	}
	strvec_clear(&lines);
	return strbuf_detach(&sb, NULL);
}

static void check_fixture(enum lock_format fmt, const char *path)
{
	size_t len;
	char *text = read_all(path, &len);
	struct strbuf err = STRBUF_INIT;
	struct lockset *ls = read_text(fmt, text, len, &err);
	if (!ls) {
		fprintf(stderr, "%s: %s\n", path, err.buf);
		CHECK(ls);
		free(text);
		strbuf_release(&err);
		return;
	}
	CHECK_INT(lockset_packages(ls) >= 6, 1);
	for (size_t i = 0; i < N_IMP; i++) {
		char *got = names_versions(ls, i);
		if (strcmp(got, want[i]))
			fprintf(stderr, "%s: importer %s\n", path, importers[i].rel);
		CHECK_STR(got, want[i]);
		free(got);
		CHECK_INT(strlen(lockset_hash(ls, i)), 32);
	}
	/* distinct closures, distinct hashes */
	for (size_t i = 0; i < N_IMP; i++)
		for (size_t j = i + 1; j < N_IMP; j++)
			CHECK(strcmp(lockset_hash(ls, i), lockset_hash(ls, j)));
	lockset_free(ls);
	free(text);
	strbuf_release(&err);
}

/* Replaces the first occurrence of from in *text by to. */
static void replace(char **text, size_t *len, const char *from, const char *to)
{
	char *at = strstr(*text, from);
	CHECK(at != NULL);
	if (!at)
		return;
	struct strbuf sb = STRBUF_INIT;
	strbuf_add(&sb, *text, (size_t)(at - *text));
	strbuf_addstr(&sb, to);
	strbuf_addstr(&sb, at + strlen(from));
	free(*text);
	*text = strbuf_detach(&sb, len);
}

/* The hashes of each importer for text. */
static void hashes(enum lock_format fmt, const char *text, size_t len, char out[N_IMP][33])
{
	struct strbuf err = STRBUF_INIT;
	struct lockset *ls = read_text(fmt, text, len, &err);
	CHECK(ls != NULL);
	for (size_t i = 0; i < N_IMP; i++)
		strcpy(out[i], ls ? lockset_hash(ls, i) : "");
	lockset_free(ls);
	strbuf_release(&err);
}

/* pnpm 9: a reformat (flow mappings, quoting, another order of entries)
 * changes nothing; is-number 7.0.0's integrity changed misses ui and a
 * (which links ui) and nothing else. */
static void test_pnpm_changes(void)
{
	size_t len;
	char *text = read_all("fixtures/lockfiles/pnpm9/pnpm-lock.yaml", &len);
	char before[N_IMP][33], after[N_IMP][33];
	hashes(LOCK_PNPM, text, len, before);

	char *moved = xstrdup(text);
	size_t mlen = len;
	replace(&moved, &mlen, "lockfileVersion: '9.0'", "lockfileVersion: \"9.0\"  # reformatted");
	/* the same left-pad entry, quoted and as a flow mapping */
	replace(&moved, &mlen, "  left-pad@1.3.0:\n    resolution: {integrity: ",
		"  'left-pad@1.3.0':\n    resolution:\n      integrity: ");
	replace(&moved, &mlen, "CBy/aVx2HrNcqQGsdot8ghrjyrvMCoEA==}",
		"CBy/aVx2HrNcqQGsdot8ghrjyrvMCoEA==");
	hashes(LOCK_PNPM, moved, mlen, after);
	for (size_t i = 0; i < N_IMP; i++)
		CHECK_STR(after[i], before[i]);
	free(moved);

	char *bumped = xstrdup(text);
	size_t blen = len;
	replace(&bumped, &blen,
		"sha512-41Cifkg6e8TylSpdtTpeLVMqvSBEVzTttHvERD741+"
		"pnZ8ANv0004MRL43QKPDlK9cGvNp6NZWZUBlbGXYxxng==",
		"sha512-AAAAkg6e8TylSpdtTpeLVMqvSBEVzTttHvERD741+"
		"pnZ8ANv0004MRL43QKPDlK9cGvNp6NZWZUBlbGXYxxng==");
	hashes(LOCK_PNPM, bumped, blen, after);
	CHECK_STR(after[0], before[0]);	    /* root */
	CHECK(strcmp(after[1], before[1])); /* a, through ui */
	CHECK_STR(after[2], before[2]);	    /* b */
	CHECK_STR(after[3], before[3]);	    /* c */
	CHECK(strcmp(after[4], before[4])); /* ui */
	free(bumped);
	free(text);
}

/* npm: moving an entry (the object's order) changes nothing; a bump of
 * left-pad misses b only, and says so. */
static void test_npm_changes(void)
{
	size_t len;
	char *text = read_all("fixtures/lockfiles/npm/package-lock.json", &len);
	char before[N_IMP][33], after[N_IMP][33];
	hashes(LOCK_NPM, text, len, before);
	struct strbuf err = STRBUF_INIT;
	struct lockset *old = read_text(LOCK_NPM, text, len, &err);
	char *bumped = xstrdup(text);
	size_t blen = len;
	replace(&bumped, &blen, "\"version\": \"1.3.0\",\n      \"integrity\": \"sha512-XI5M",
		"\"version\": \"1.3.1\",\n      \"integrity\": \"sha512-YI5M");
	hashes(LOCK_NPM, bumped, blen, after);
	for (size_t i = 0; i < N_IMP; i++)
		if (i != 2)
			CHECK_STR(after[i], before[i]);
	CHECK(strcmp(after[2], before[2]));
	struct lockset *now = read_text(LOCK_NPM, bumped, blen, &err);
	struct strvec a = STRVEC_INIT, b = STRVEC_INIT;
	lockset_lines(old, 2, &a);
	lockset_lines(now, 2, &b);
	struct strbuf diff = STRBUF_INIT;
	lock_lines_diff(&a, &b, 8, &diff);
	CHECK_STR(diff.buf, "left-pad 1.3.0 \u2192 1.3.1");
	strbuf_reset(&diff);
	lock_lines_diff(&a, &a, 8, &diff);
	CHECK_STR(diff.buf, "");
	strvec_clear(&a);
	strvec_clear(&b);
	lockset_free(old);
	lockset_free(now);
	strbuf_release(&diff);
	strbuf_release(&err);
	free(bumped);
	free(text);
}

static void test_diff(void)
{
	struct strvec a = STRVEC_INIT, b = STRVEC_INIT;
	strvec_push(&a, "left-pad 1.3.0 sha-x");
	strvec_push(&a, "react 18.2.0 sha-a");
	strvec_push(&a, "react-dom 18.2.0 sha-b");
	strvec_push(&b, "lodash 4.17.21 sha-l");
	strvec_push(&b, "react 18.3.1 sha-c");
	strvec_push(&b, "react-dom 18.2.0 sha-B");
	struct strbuf out = STRBUF_INIT;
	lock_lines_diff(&a, &b, 8, &out);
	CHECK_STR(out.buf,
		  "left-pad 1.3.0 removed, lodash 4.17.21 added, react 18.2.0 \u2192 18.3.1, "
		  "react-dom 18.2.0 (integrity changed)");
	strbuf_reset(&out);
	lock_lines_diff(&a, &b, 2, &out);
	CHECK_STR(out.buf, "left-pad 1.3.0 removed, lodash 4.17.21 added, and 2 more");
	strvec_clear(&a);
	strvec_clear(&b);
	strbuf_release(&out);
}

static void check_error(enum lock_format fmt, const char *text, const char *want_err)
{
	struct strbuf err = STRBUF_INIT;
	struct lockset *ls = read_text(fmt, text, strlen(text), &err);
	CHECK(ls == NULL);
	if (!strstr(err.buf, want_err))
		fprintf(stderr, "error \"%s\" lacks \"%s\"\n", err.buf, want_err);
	CHECK(strstr(err.buf, want_err) != NULL);
	lockset_free(ls);
	strbuf_release(&err);
}

static void test_errors(void)
{
	check_error(LOCK_PNPM, "lockfileVersion: 5.4\nimporters: {}\n",
		    "lockfileVersion 5.4 is not read");
	check_error(LOCK_PNPM, "lockfileVersion: '9.0'\npackages: [\n", "line ");
	check_error(LOCK_NPM, "{\"lockfileVersion\": 1, \"dependencies\": {}}",
		    "lockfileVersion 1 is not read");
	check_error(LOCK_NPM, "{\"lockfileVersion\": 3,", "1:22: invalid JSON");
	check_error(LOCK_NPM, "[3]", "not a JSON object");
	/* a key repeated (issue 57 item 2): npm's JSON.parse took the last
	 * silently; which one a reader keeps is no lockfile vx can key by */
	check_error(LOCK_NPM,
		    "{\"lockfileVersion\": 3, \"packages\": {\"\": {},\n"
		    "  \"node_modules/a\": {\"version\": \"1.0.0\"},\n"
		    "  \"node_modules/a\": {\"version\": \"2.0.0\"}}}",
		    "3:3: duplicate key \"node_modules/a\" (first at 2:3)");
	check_error(LOCK_BUN,
		    "{\"lockfileVersion\": 1, // JSONC\n \"workspaces\": {}, \"packages\": {},"
		    " \"packages\": {},}",
		    "2:36: duplicate key \"packages\" (first at 2:20)");
	check_error(LOCK_YARN, "# yarn lockfile v1\n\"a@1:\n  version \"1\"\n", "line 2");
	check_error(LOCK_YARN, "  version \"1\"\n", "outside an entry");
	check_error(LOCK_YARN, "__metadata:\n  version: 2\n", "__metadata version 2 is not read");
	check_error(LOCK_BUN, "{\"lockfileVersion\": 7, \"workspaces\": {}, \"packages\": {}}",
		    "lockfileVersion 7 is not read");
}

int main(void)
{
	check_fixture(LOCK_NPM, "fixtures/lockfiles/npm/package-lock.json");
	check_fixture(LOCK_PNPM, "fixtures/lockfiles/pnpm9/pnpm-lock.yaml");
	lock_pnpm_split_min = 0; /* the same file cut in two at snapshots:, two threads */
	check_fixture(LOCK_PNPM, "fixtures/lockfiles/pnpm9/pnpm-lock.yaml");
	lock_pnpm_split_min = (size_t)1 << 20;
	check_fixture(LOCK_PNPM, "fixtures/lockfiles/pnpm6/pnpm-lock.yaml");
	check_fixture(LOCK_YARN, "fixtures/lockfiles/yarn1/yarn.lock");
	check_fixture(LOCK_YARN, "fixtures/lockfiles/berry/yarn.lock");
	check_fixture(LOCK_BUN, "fixtures/lockfiles/bun/bun.lock");
	test_pnpm_changes();
	test_npm_changes();
	test_diff();
	test_errors();
	return check_finish("test_lockfile");
}
