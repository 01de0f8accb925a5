/* Unit tests for lockfile/prune.c: each real manager's lockfile of the
 * fixture workspace (fixtures/lockfiles/README.md) cut down to a subset.
 * What stays must give every kept importer the closure it had; what goes
 * must be gone from the text; keeping everything changes no byte, and
 * pruning twice is pruning once. The managers themselves take the result
 * in tests/integration/t0188-prune.sh. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lockfile/lockfile.h"
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

struct fixture {
	enum lock_format fmt;
	const char *path;
	/* how the header of is-number 6.0.0 reads when only c asks for it */
	const char *c_header;
} fixtures[] = {
    {LOCK_NPM, "fixtures/lockfiles/npm/package-lock.json", "\"node_modules/is-number\": {"},
    {LOCK_PNPM, "fixtures/lockfiles/pnpm9/pnpm-lock.yaml", "\n  is-number@6.0.0:\n"},
    {LOCK_PNPM, "fixtures/lockfiles/pnpm6/pnpm-lock.yaml", "\n  /is-number@6.0.0:\n"},
    {LOCK_YARN, "fixtures/lockfiles/yarn1/yarn.lock", "\n\nis-number@6.0.0:\n"},
    {LOCK_YARN, "fixtures/lockfiles/berry/yarn.lock", "\n\n\"is-number@npm:6.0.0\":\n"},
    {LOCK_BUN, "fixtures/lockfiles/bun/bun.lock", "\"is-number\": [\"is-number@6.0.0\""},
};

static char *read_all(const char *path, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, path))
		die_errno("%s", path);
	return strbuf_detach(&sb, len);
}

static struct lockset *read_text(const struct fixture *f, const char *text, size_t len)
{
	struct strbuf err = STRBUF_INIT;
	struct lockset *ls = lockset_read(f->fmt, f->path, text, len, importers, N_IMP, &err);
	if (!ls)
		fprintf(stderr, "%s: %s\n", f->path, err.buf);
	strbuf_release(&err);
	return ls;
}

/* Importer i's closure as one string. */
static char *closure(const struct lockset *ls, size_t i)
{
	struct strvec lines = STRVEC_INIT;
	lockset_lines(ls, i, &lines);
	struct strbuf sb = STRBUF_INIT;
	for (size_t l = 0; l < lines.n; l++)
		strbuf_addf(&sb, "%s\n", lines.v[l]);
	strvec_clear(&lines);
	return strbuf_detach(&sb, NULL);
}

/* text pruned to keep (as "10010": root, a, b, c, ui); NULL on an error. */
static char *pruned(const struct fixture *f, const char *text, size_t len, const char *keep,
		    size_t *out_len)
{
	bool k[N_IMP];
	for (size_t i = 0; i < N_IMP; i++)
		k[i] = keep[i] == '1';
	struct lockset *ls = read_text(f, text, len);
	if (!ls)
		return NULL;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct strvec extra = STRVEC_INIT;
	int rc = lockset_prune(ls, f->fmt, text, len, k, &out, &extra, &err);
	if (rc)
		fprintf(stderr, "%s: prune: %s\n", f->path, err.buf);
	CHECK_INT(rc, 0);
	CHECK_INT(extra.n, 0);
	lockset_free(ls);
	strvec_clear(&extra);
	strbuf_release(&err);
	return strbuf_detach(&out, out_len);
}

/* Pruned to keep: each kept importer's closure is what it was, a dropped
 * one's is the root's alone, gone is absent from the text, and pruning
 * again changes nothing. Returns the pruned text. */
static char *check_prune(const struct fixture *f, const char *keep, const char *const *gone)
{
	size_t len, plen, p2len;
	char *text = read_all(f->path, &len);
	char *p = pruned(f, text, len, keep, &plen);
	struct lockset *before = read_text(f, text, len), *after = p ? read_text(f, p, plen) : NULL;
	CHECK(before && after);
	for (size_t i = 0; before && after && i < N_IMP; i++) {
		char *x = closure(before, i), *y = closure(after, i), *root = closure(before, 0);
		if (keep[i] == '1' && strcmp(x, y))
			fprintf(stderr, "%s (%s): importer %s\n", f->path, keep, importers[i].rel);
		CHECK_STR(y, keep[i] == '1' ? x : root);
		free(x);
		free(y);
		free(root);
	}
	for (size_t g = 0; p && gone[g]; g++) {
		if (strstr(p, gone[g]))
			fprintf(stderr, "%s (%s): still holds %s\n", f->path, keep, gone[g]);
		CHECK(!strstr(p, gone[g]));
	}
	char *p2 = p ? pruned(f, p, plen, keep, &p2len) : NULL;
	CHECK(p2 && !strcmp(p, p2));
	free(p2);
	lockset_free(before);
	lockset_free(after);
	free(text);
	return p;
}

static void test_fixture(const struct fixture *f)
{
	/* everything kept: not a byte changes */
	size_t len, plen;
	char *text = read_all(f->path, &len);
	char *same = pruned(f, text, len, "11111", &plen);
	CHECK(same && plen == len && !memcmp(same, text, len));
	free(same);
	free(text);

	/* a and what it loads: ui; b's left-pad and c's ms go */
	static const char *const gone_a[] = {"left-pad", "ms@", "apps/b", "apps/c", NULL};
	free(check_prune(f, "11001", gone_a));
	/* c alone: is-number 6.0.0 stays under c's own descriptor only */
	static const char *const gone_c[] = {"left-pad", "is-odd", "7.0.0", "apps/a", NULL};
	char *c = check_prune(f, "10010", gone_c);
	if (c && !strstr(c, f->c_header))
		fprintf(stderr, "%s: no %s in:\n%s\n", f->path, f->c_header, c);
	CHECK(c && strstr(c, f->c_header));
	free(c);
	/* the root alone */
	static const char *const gone_root[] = {"left-pad", "is-odd", "is-number", "ms@", NULL};
	free(check_prune(f, "10000", gone_root));
}

/* pnpm's patchedDependencies: kept as they are, their files named. */
static void test_pnpm_patches(void)
{
	const struct fixture *f = &fixtures[1];
	size_t len;
	char *text = read_all(f->path, &len);
	struct strbuf t = STRBUF_INIT;
	const char *after = strstr(text, "\n\nsettings:");
	CHECK(after != NULL);
	if (!after) {
		free(text);
		return;
	}
	strbuf_add(&t, text, (size_t)(after - text) + 1);
	strbuf_addstr(&t, "\npatchedDependencies:\n  is-odd@3.0.1:\n    hash: 4fe3\n"
			  "    path: patches/is-odd@3.0.1.patch\n");
	strbuf_addstr(&t, after + 1);
	struct lockset *ls = read_text(f, t.buf, t.len);
	bool keep[N_IMP] = {true, true, false, false, true};
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct strvec extra = STRVEC_INIT;
	CHECK(ls && !lockset_prune(ls, f->fmt, t.buf, t.len, keep, &out, &extra, &err));
	CHECK_INT(extra.n, 1);
	if (extra.n)
		CHECK_STR(extra.v[0], "patches/is-odd@3.0.1.patch");
	CHECK(strstr(out.buf, "patchedDependencies:\n  is-odd@3.0.1:\n    hash: 4fe3\n"));
	lockset_free(ls);
	strbuf_release(&out);
	strbuf_release(&err);
	strbuf_release(&t);
	strvec_clear(&extra);
	free(text);
}

/* A layout no manager writes is refused with its line, never cut wrong. */
static void test_refused(void)
{
	const struct fixture *f = &fixtures[1];
	static const char text[] = "lockfileVersion: '9.0'\n"
				   "importers:\n  .: {}\n  apps/b: {}\n"
				   "packages: {left-pad@1.3.0: {resolution: {integrity: x}}}\n"
				   "snapshots: {left-pad@1.3.0: {}}\n";
	struct lockset *ls = read_text(f, text, sizeof text - 1);
	bool keep[N_IMP] = {true, true, false, false, true};
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct strvec extra = STRVEC_INIT;
	CHECK(ls && lockset_prune(ls, f->fmt, text, sizeof text - 1, keep, &out, &extra, &err));
	CHECK_STR(err.buf, "5: packages: a flow mapping (vx prunes pnpm's own block style)");
	lockset_free(ls);
	strbuf_release(&out);
	strbuf_release(&err);
	strvec_clear(&extra);
}

int main(void)
{
	for (size_t i = 0; i < sizeof fixtures / sizeof *fixtures; i++)
		test_fixture(&fixtures[i]);
	test_pnpm_patches();
	test_refused();
	return check_finish("test_lockfile_prune");
}
