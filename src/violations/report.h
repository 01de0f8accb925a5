/* report.h - a failed sandboxed task's violations, notes and fix, as text. */
#ifndef VX_VIOLATIONS_REPORT_H
#define VX_VIOLATIONS_REPORT_H

#include "util/strbuf.h"
#include "violations/judge.h"

/* Appends the text report of task id (its project's vx.yaml at
 * yaml_rel, the task named task) to out:
 *   ID: violation: read packages/app/notes.txt (openat ENOENT)
 *   ID: note: a write outside the project was refused: /tmp/x (...)
 *   ID: fix: add to packages/app/vx.yaml tasks.build.sandbox.allow.read: ["notes.txt"]
 * Paths are workspace-relative where they lie in the workspace. */
void report_text(const char *id, const char *yaml_rel, const char *task, const struct judge_input *in,
		 const struct verdict *v, struct strbuf *out);

#endif
