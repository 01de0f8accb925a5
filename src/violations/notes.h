/* notes.h - the judge's notes: words for a person that explain a
 * failure without counting as a violation (judge.h lists the kinds). What
 * a task printed is read for them, and never turned into fix data: a task
 * that prints a host must not have it granted. */
#ifndef VX_VIOLATIONS_NOTES_H
#define VX_VIOLATIONS_NOTES_H

#include <stdbool.h>

#include "violations/judge.h"

/* v holds a note of kind about path. */
bool verdict_has_note(const struct verdict *v, const char *kind, const char *path);
/* Adds a note (path copied, text taken). */
void verdict_add_note(struct verdict *v, const char *kind, const char *path, char *text);
/* A refusal outside the project: the wall working; the note says what to
 * grant, never a credential store. Once per path. */
void note_outside(const struct judge_input *in, struct verdict *v, const char *path, bool write);
/* A withheld workspace package reached through path: once per package. */
void note_withheld(const struct judge_input *in, struct verdict *v, const char *path,
		   const char *package);
/* Each write grant that named nothing and that the task never wrote. */
void note_unwritten(const struct judge_input *in, struct verdict *v);
/* A host name that did not resolve, as the output says (traced false) or
 * as the trace saw its query: words only, never a grant of an address. */
void note_name(const struct judge_input *in, struct verdict *v, const char *host, bool traced);
/* What a failed task's output says about the network. */
void note_network(const struct judge_input *in, struct verdict *v);
/* git found no repository because the sandbox hid .git. */
void note_git(const struct judge_input *in, struct verdict *v);
/* A path the task's last line names that the sandbox hides. */
void note_last_line(const struct judge_input *in, struct verdict *v);
/* A file that decides what vx runs, once. */
void note_config(const struct judge_input *in, struct verdict *out, const char *path);

#endif
