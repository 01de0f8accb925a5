#include "violations/report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/path.h"
#include "violations/strace.h"

/* Appends path workspace-relative when inside the workspace, "~/…" under
 * home, else absolute. */
static void add_path(struct strbuf *out, const struct judge_input *in, const char *path)
{
	if (path_is_within(in->workspace_root, path)) {
		char *rel = path_relative(in->workspace_root, path);
		strbuf_addstr(out, rel);
		free(rel);
	} else if (in->home && *in->home && strcmp(in->home, "/") && path_is_within(in->home, path)) {
		char *rel = path_relative(in->home, path);
		strbuf_addf(out, "~/%s", rel);
		free(rel);
	} else {
		strbuf_addstr(out, path);
	}
}

static const char *errno_name(int err)
{
	switch (err) {
	case ENOENT: return "ENOENT";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EROFS: return "EROFS";
	default: return "refused";
	}
}

static void add_list(struct strbuf *out, const struct strvec *sv)
{
	strbuf_addch(out, '[');
	for (size_t i = 0; i < sv->n; i++) {
		if (i)
			strbuf_addstr(out, ", ");
		strbuf_add_json_string(out, sv->v[i]);
	}
	strbuf_addch(out, ']');
}

void report_text(const char *id, const char *yaml_rel, const char *task, const struct judge_input *in,
		 const struct verdict *v, struct strbuf *out)
{
	for (size_t i = 0; i < v->violations.n; i++) {
		const struct violation *x = &v->violations.v[i];
		strbuf_addf(out, "%s: violation: %s ", id, x->write ? "write" : "read");
		add_path(out, in, x->path);
		strbuf_addf(out, " (%s %s)\n", x->syscall, errno_name(x->err));
	}
	for (size_t i = 0; i < v->notes.n; i++) {
		const struct judge_note *n = &v->notes.v[i];
		strbuf_addf(out, "%s: note: %s outside the project was refused: ", id,
			    !strcmp(n->kind, "refused-write-outside") ? "a write" : "a read of a hidden path");
		add_path(out, in, n->path);
		strbuf_addch(out, '\n');
	}
	const struct {
		const char *field;
		const struct strvec *list;
	} fixes[] = {
		{"sandbox.allow.read", &v->fix_read},
		{"sandbox.allow.write", &v->fix_write},
		{"inputs.files", &v->fix_inputs},
	};
	for (size_t i = 0; i < 3; i++) {
		if (!fixes[i].list->n)
			continue;
		strbuf_addf(out, "%s: fix: add to %s tasks.%s.%s: ", id, yaml_rel, task, fixes[i].field);
		add_list(out, fixes[i].list);
		strbuf_addch(out, '\n');
	}
}
