/* fix.c - a fix's text (fix.h): the one place a config entry the judge
 * prints is spelled. */
#include "violations/fix.h"

#include <stdlib.h>
#include <string.h>

#include "util/io.h"
#include "util/path.h"
#include "violations/judge.h"

/* text escaped for the config grammar (issue 53 item 3: a project file
 * named `${HOME}` was learned as `write: ["${HOME}"]`, which the next load
 * expands to home): with glob, each of `*?[]{}\` and '!' (a list's
 * exclusion) after a backslash, which makes "${" "$\{", no variable;
 * without, "${" as "$${" (the loader's literal); base_from, when not NULL, is where a tail already
 * spelled as a pattern begins (stable_target's '*'), copied as it is. */
void fix_escape(struct strbuf *sb, const char *text, bool glob, const char *base_from)
{
	for (const char *c = text; *c; c++) {
		if (base_from && c == base_from) {
			strbuf_addstr(sb, c);
			return;
		}
		if (!glob && c[0] == '$' && c[1] == '{')
			strbuf_addch(sb, '$');
		else if (glob && strchr("*?[]{}\\!", *c))
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, *c);
	}
}

/* text as a glob entry of the config (inputs, ignore): escaped. */
char *fix_glob(const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	fix_escape(&sb, text, true, NULL);
	return strbuf_detach(&sb, NULL);
}

/* path as an inputs.workspaceFiles entry: workspace-relative, a directory
 * as all under it. */
char *fix_ws_key(const struct judge_input *in, const char *path, bool dir)
{
	char *rel = path_relative(in->workspace_root, path);
	char *spelled = fix_glob(rel);
	free(rel);
	if (!dir)
		return spelled;
	char *all = xasprintf("%s/**", spelled);
	free(spelled);
	return all;
}

/* An allow entry for a path, spelled as SPEC §4 says a committed vx.yaml
 * spells it: "~/..." under home, relative to the project inside the
 * workspace, else absolute; a directory ends in '/'; escaped, so that it
 * loads back as this very path (a relative name starting with '~' as
 * "./~..."). pattern_from, when not NULL, points into path where a tail
 * already spelled as a pattern begins. */
static char *fix_grant_from(const struct judge_input *in, const char *path, bool dir,
			    const char *pattern_from)
{
	struct strbuf sb = STRBUF_INIT;
	char *rel = NULL;
	const char *text = path;
	if (in->home && *in->home && strcmp(in->home, "/") && path_is_within(in->home, path) &&
	    !path_is_within(in->workspace_root, path)) {
		rel = path_relative(in->home, path);
		strbuf_addch(&sb, '~');
		if (strcmp(rel, "."))
			strbuf_addch(&sb, '/');
		text = strcmp(rel, ".") ? rel : "";
		pattern_from = pattern_from ? rel + strlen(rel) - strlen(pattern_from) : NULL;
	} else if (path_is_within(in->workspace_root, path)) {
		rel = path_relative(in->project_dir, path);
		if (rel[0] == '~')
			strbuf_addstr(&sb, "./");
		text = rel;
		pattern_from = pattern_from ? rel + strlen(rel) - strlen(pattern_from) : NULL;
	}
	fix_escape(&sb, text, true, pattern_from);
	free(rel);
	if (dir && (!sb.len || sb.buf[sb.len - 1] != '/'))
		strbuf_addch(&sb, '/');
	return strbuf_detach(&sb, NULL);
}

char *fix_grant(const struct judge_input *in, const char *path, bool dir)
{
	return fix_grant_from(in, path, dir, NULL);
}

/* Is the n bytes at s a name piece that changes from run to run: a content
 * hash (8+ hex digits with a digit), a number of 4+ digits (a pid, a time),
 * or a random token (letters and 2+ digits, a letter after a digit: "x7f3",
 * not "es2020")? */
static bool is_token(const char *s, size_t n)
{
	size_t hex = 0, digits = 0, letters = 0;
	bool letter_after_digit = false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		bool d = c >= '0' && c <= '9', l = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
		if (!d && !l)
			return false;
		hex += d || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
		digits += d;
		letters += l;
		letter_after_digit |= l && digits;
	}
	return (n >= 8 && hex == n && digits) || (n >= 4 && digits == n) ||
	       (n >= 4 && digits >= 2 && letters && letter_after_digit);
}

/* The fix for a path, made to hold on the next run too: a directory that is
 * a token (node_modules/.vite/vitest/da39a3ee.../results.json) is cut to
 * the stable directory above it, and a token inside the file name
 * (tsup.config.bundled_x7f3.mjs) becomes '*' (a write glob is a valid grant
 * for files not made yet). Only the directories from `from` on are looked
 * at (below the project: the workspace's own path is no token). Returns the
 * path to spell, and sets *dir when it names a directory; *pattern_at is
 * where its name, then a pattern (escaped), begins, else SIZE_MAX. Issue 11. */
static char *stable_target(const char *path, const char *from, bool *dir, size_t *pattern_at)
{
	*pattern_at = SIZE_MAX;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	for (const char *s = from; s < base;) {
		const char *e = strchr(s, '/');
		if (is_token(s, (size_t)(e - s))) {
			*dir = true;
			return xstrndup(path, (size_t)(s - path - 1));
		}
		s = e + 1;
	}
	struct strbuf sb = STRBUF_INIT;
	strbuf_add(&sb, path, (size_t)(base - path));
	bool any = false;
	for (const char *s = base, *prev = NULL; *s;) {
		size_t n = strcspn(s, "._-");
		/* esbuild-based config loaders name their temp file
		 * NAME.bundled_RANDOM.mjs, RANDOM of any shape
		 * ("mwlf4twlnq": issue 54 item 6, learned literally) */
		bool bundled = prev && !strncmp(prev, "bundled_", 8) && prev + 8 == s;
		prev = s;
		if (n && (is_token(s, n) || bundled)) {
			strbuf_addch(&sb, '*');
			any = true;
		} else {
			char *piece = xstrndup(s, n);
			fix_escape(&sb, piece, true, NULL);
			free(piece);
		}
		s += n;
		if (*s)
			strbuf_addch(&sb, *s++);
	}
	if (!any) {
		strbuf_release(&sb);
		return xstrdup(path);
	}
	*pattern_at = (size_t)(base - path);
	return strbuf_detach(&sb, NULL);
}

char *fix_entry(const struct judge_input *in, const char *path, bool write, bool makes_dir)
{
	bool dir = false;
	size_t len = strlen(path);
	const char *from = path + len; /* outside the workspace: the name only */
	if (judge_under(in->project_dir, path) && strlen(in->project_dir) < len)
		from = path + strlen(in->project_dir) + 1;
	else if (judge_under(in->workspace_root, path) && strlen(in->workspace_root) < len)
		from = path + strlen(in->workspace_root) + 1;
	size_t pattern_at;
	char *stable = stable_target(path, from, &dir, &pattern_at);
	bool changed = strcmp(stable, path) != 0;
	/* A write grants its directory, but one in the project's own root
	 * would be `./`, all of it: a file there (eslint's .eslintcache, a
	 * tsbuildinfo), there already or not made yet (the write was
	 * refused: issue 40, `write: ["./"]` for eslint's first cache), is
	 * granted by name. */
	char *parent = path_dirname(path);
	enum judge_kind kind = judge_host_kind(in, path);
	bool by_name = write && !makes_dir && (kind == JUDGE_ABSENT || kind == JUDGE_FILE) &&
		       !strcmp(parent, in->project_dir);
	free(parent);
	/* A refused mkdir (next's .next, a first dist/) asks for that very
	 * directory, not its parent: `./` would open the whole project. */
	if (write && makes_dir && !changed)
		dir = by_name = true;
	char *target = changed || !write || by_name ? stable : path_dirname(stable);
	if (target != stable)
		free(stable);
	char *out = fix_grant_from(
	    in, target, dir || (!changed && !by_name && (write || judge_host_is_dir(in, target))),
	    target == stable && pattern_at != SIZE_MAX ? target + pattern_at : NULL);
	free(target);
	return out;
}

/* The ignore.read entry a leftover read needs, project-relative: the file
 * when it is the grant or lies at its top, else its top directory below
 * the grant ("/" ended: it and all below), so a tool cache of many files
 * is one entry. */
char *fix_leftover(const struct judge_input *in, const char *root, const char *path)
{
	const char *below = path + strlen(root);
	while (*below == '/')
		below++;
	const char *slash = strchr(below, '/');
	char *top = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(path);
	char *fix = fix_grant(in, top, slash != NULL);
	free(top);
	return fix;
}

/* The grant for a write a widened directory let through: the topmost
 * directory the task made on the way to it (`dist/` for dist/a.js after
 * mkdir dist: a file grant there would be no directory), else the file by
 * name. */
char *fix_widened(const struct judge_input *in, const struct access_event *e,
		  const struct strmap *made_dirs)
{
	size_t plen = strlen(in->project_dir);
	for (const char *s = e->path + plen + 1; (s = strchr(s, '/')); s++) {
		char *dir = xstrndup(e->path, (size_t)(s - e->path));
		size_t at;
		bool mine = strmap_get(made_dirs, dir, &at);
		if (mine) {
			char *fix = fix_grant(in, dir, true);
			free(dir);
			return fix;
		}
		free(dir);
	}
	return fix_grant(in, e->path, e->op == ACCESS_MKDIR);
}

/* An inputs fix as the task's whole resulting list: what it has now (from
 * whichever layer: turbo.json, a package turbo.json, a vx.yaml), in its
 * order, then what the fix adds, sorted. Written into a vx.yaml it
 * replaces the inherited list with itself and more; added to one it only
 * repeats entries: read either way, the key only grows (issue 40: a fix
 * of one new entry, written as printed over turbo.json's inputs, keyed
 * that file alone). */
void fix_whole_list(struct strvec *fix, const char *const *now, size_t n_now)
{
	strvec_sort_unique(fix);
	if (!fix->n || !n_now)
		return;
	struct strvec all = STRVEC_INIT;
	for (size_t i = 0; i < n_now; i++)
		if (strvec_find(&all, now[i]) < 0)
			strvec_push(&all, now[i]);
	for (size_t i = 0; i < fix->n; i++)
		if (strvec_find(&all, fix->v[i]) < 0)
			strvec_push(&all, fix->v[i]);
	strvec_clear(fix);
	*fix = all;
}

void fix_text_at(struct strbuf *out, const char *yaml_rel, const char *path,
		 const struct strvec *list, bool whole)
{
	strbuf_addf(out, "%s %s %s: [", whole ? "set in" : "add to", yaml_rel, path);
	for (size_t i = 0; i < list->n; i++) {
		if (i)
			strbuf_addstr(out, ", ");
		strbuf_add_json_string(out, list->v[i]);
	}
	strbuf_addch(out, ']');
	if (whole)
		strbuf_addstr(out,
			      " (its whole list: what it has now, from any layer, and the new)");
}

char *fix_field_entry(const char *field, const char *entry)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s: [", field);
	strbuf_add_json_string(&sb, entry);
	strbuf_addch(&sb, ']');
	return strbuf_detach(&sb, NULL);
}

char *fix_grant_entry(const struct judge_input *in, const char *field, const char *path, bool dir)
{
	char *grant = fix_grant(in, path, dir);
	char *entry = fix_field_entry(field, grant);
	free(grant);
	return entry;
}

void fix_text(struct strbuf *out, const char *yaml_rel, const char *task, const char *field,
	      const struct strvec *list, bool whole)
{
	char *path = xasprintf("tasks.%s.%s", task, field);
	fix_text_at(out, yaml_rel, path, list, whole);
	free(path);
}

char *fix_dep_output(const struct judge_dep *d, const char *path)
{
	char *rel = path_relative(d->dir, path);
	struct strvec entry = STRVEC_INIT;
	strvec_push_nodup(&entry, fix_glob(rel));
	struct strbuf sb = STRBUF_INIT;
	fix_text(&sb, d->config, d->task, "outputs", &entry, false);
	strvec_clear(&entry);
	free(rel);
	return strbuf_detach(&sb, NULL);
}

#define NO_NETWORK                                                                                 \
	"the task connected past vx's proxy, which no grant allows: a sandboxed task reaches "     \
	"the network only through the proxy its HTTP_PROXY, HTTPS_PROXY and ALL_PROXY name, "      \
	"for the hosts in allow.network; make the tool use them, or make it work offline"

void fix_texts(struct strvec *out, const char *yaml_rel, const char *task, const struct verdict *v)
{
	/* whole: the list is the task's whole one (judge.c's fix_whole_list),
	 * "set in", not "add to" */
	const struct {
		const char *field;
		const struct strvec *list;
		bool whole;
	} fields[] = {
	    {"sandbox.allow.read", &v->fix_read, false},
	    {"sandbox.allow.write", &v->fix_write, false},
	    {"sandbox.allow.network", &v->fix_network, false},
	    {"inputs.files", &v->fix_inputs, true},
	    {"inputs.workspaceFiles", &v->fix_workspace_inputs, true},
	    {"inputs.toolchain", &v->fix_toolchain, false},
	    {"sandbox.ignore.read", &v->fix_ignore_read, false},
	};
	if (v->needs_network)
		strvec_push(out, NO_NETWORK);
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
		if (!fields[i].list->n)
			continue;
		struct strbuf sb = STRBUF_INIT;
		fix_text(&sb, yaml_rel, task, fields[i].field, fields[i].list, fields[i].whole);
		strvec_push_nodup(out, strbuf_detach(&sb, NULL));
	}
}
