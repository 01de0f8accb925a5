/* judge.h - from a sandboxed task's trace to its verdict: the violations
 * that fail it, the notes that explain, and the fix (SPEC §4, §5). */
#ifndef VX_VIOLATIONS_JUDGE_H
#define VX_VIOLATIONS_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/vec.h"

/* Filled by the orchestrator after the task ran. Paths absolute and
 * canonical (as the sandbox bound them: binds keep host paths). */
struct judge_input {
	const char *project_dir;    /* violations are refusals inside it */
	const char *workspace_root; /* report paths are relative to it */
	const char *home;           /* "~" in ignore globs and in notes; may be NULL */
	const char *tmpdir;         /* the task's TMPDIR inside: never judged */
	const char *const *ignore_read, *const *ignore_write; /* sandbox.ignore, as written */
	size_t n_ignore_read, n_ignore_write;
	const char *const *withheld; /* linked packages hidden from a cached task: refusals there count */
	size_t n_withheld;
	bool cached;                 /* a fix that grants a read also keys it (inputs.files) */
	const char *const *input_files; /* inputs.files as written, when the task sets them:
					 * a granted read they do not cover needs keying */
	size_t n_input_files;
	bool inputs_explicit;        /* inputs.files was written (else every project file is keyed) */
};

struct violation {
	bool write;          /* a write refused, else a read (open, exec, probe, readlink, chdir) */
	char *path;          /* absolute */
	const char *syscall; /* static */
	int err;
};

struct judge_note {
	const char *kind;    /* "refused-write-outside", "hidden-read-outside" */
	char *path;          /* absolute */
};

struct verdict {
	VEC(struct violation) violations;
	VEC(struct judge_note) notes;
	struct strvec fix_read, fix_write; /* allow.read / allow.write entries, project-relative */
	struct strvec fix_inputs;          /* inputs.files entries (cached tasks) */
	bool incomplete;     /* the trace ends before the command did: never cache */
	size_t lines;        /* trace lines read */
};

/* Reads the strace log at log_path and judges it. Returns 0, or -1 with
 * errno when the log cannot be read (a task whose trace is missing is as
 * incomplete as one whose tracer died: the caller fails it). */
int judge_trace(const struct judge_input *in, const char *log_path, struct verdict *out);
void verdict_release(struct verdict *v);

#endif
