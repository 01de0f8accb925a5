/* fix.h - a fix's text: each config entry the judge prints (allow.read,
 * allow.write, inputs, ignore.read), spelled so that it loads back as the
 * very path it names, in the grammar a committed vx.yaml uses (SPEC §4),
 * and made to hold on the next run too (a token in a name becomes '*').
 * Every function returns a new string, or fills a list the caller owns. */
#ifndef VX_VIOLATIONS_FIX_H
#define VX_VIOLATIONS_FIX_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"
#include "util/strmap.h"
#include "util/vec.h"
#include "violations/judge_input.h"
#include "violations/strace.h"

struct verdict;

/* Appends text escaped for the config grammar: with glob, each of
 * `*?[]{}\` and '!' after a backslash; without, "${" as "$${" (the
 * loader's literal); base_from, when not NULL, points into text where a
 * tail already spelled as a pattern begins, copied as it is. */
void fix_escape(struct strbuf *sb, const char *text, bool glob, const char *base_from);
/* text as a glob entry of the config (inputs, ignore): escaped. */
char *fix_glob(const char *text);
/* path as an inputs.workspaceFiles entry: workspace-relative, a directory
 * as all under it. */
char *fix_ws_key(const struct judge_input *in, const char *path, bool dir);
/* An allow entry for path: "~/..." under home, relative to the project
 * inside the workspace, else absolute; a directory ends in '/'. */
char *fix_grant(const struct judge_input *in, const char *path, bool dir);
/* The allow entry a refused access of path needs (write: a write; makes_dir:
 * it made a directory), made stable across runs. */
char *fix_entry(const struct judge_input *in, const char *path, bool write, bool makes_dir);
/* The ignore.read entry a leftover read of path in the write grant root
 * needs. */
char *fix_leftover(const struct judge_input *in, const char *root, const char *path);
/* The allow.write entry for a write a widened directory let through:
 * the topmost directory the task made on the way (made_dirs), else the
 * file by name. */
char *fix_widened(const struct judge_input *in, const struct access_event *e,
		  const struct strmap *made_dirs);
/* Appends where a fix goes and what it adds, as every report (text,
 * SARIF, GitHub) and the refusal of a task whose key holds what its
 * sandbox hides say it: `add to app/vx.yaml
 * tasks.build.sandbox.allow.read: ["../x"]`; whole (the list is the
 * task's whole one, fix_whole_list): `set in ... (its whole list: ...)`. */
void fix_text(struct strbuf *out, const char *yaml_rel, const char *task, const char *field,
	      const struct strvec *list, bool whole);
/* The fix for path, a file dependency d wrote in this run outside its
 * outputs, as fix_text spells it: `add to lib/vx.yaml
 * tasks.build.outputs: ["gen/x.js"]` (the path relative to d's project,
 * as a glob entry). */
char *fix_dep_output(const struct judge_dep *d, const char *path);
/* `FIELD: ["ENTRY"]`, the entry quoted as fix_text quotes a list's, so a
 * vx.yaml reads it back as this very entry: how a note (words for a
 * person) names a grant or a key. */
char *fix_field_entry(const char *field, const char *entry);
/* fix_field_entry of path's grant (fix_grant): `allow.read: ["../x"]`. */
char *fix_grant_entry(const struct judge_input *in, const char *field, const char *path, bool dir);
/* fix_text for a field given whole ("tasks.build.sandbox.allow.read"). */
void fix_text_at(struct strbuf *out, const char *yaml_rel, const char *path,
		 const struct strvec *list, bool whole);
/* Each fix of v, one string each, in the order every report lists them
 * (the text report a line each, SARIF and GitHub joined by "; "): the
 * words for a connection past the proxy (no grant reaches it) first, then
 * each list as fix_text spells it, for the task's vx.yaml yaml_rel. */
void fix_texts(struct strvec *out, const char *yaml_rel, const char *task, const struct verdict *v);
/* Turns fix (sorted, unique) into the task's whole resulting list: the n_now
 * entries it has now, in order, then the new ones. */
void fix_whole_list(struct strvec *fix, const char *const *now, size_t n_now);

#endif
