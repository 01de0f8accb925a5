/* seatbelt.h - the macOS translation of a sandbox request: a Seatbelt
 * profile (SBPL) for `sandbox-exec -p`, made from the same struct
 * sandbox_input the bwrap plan is made from (request.h). It reads the file
 * system (realpath, a .git file, whether node_modules is there) and creates
 * nothing; it is plain POSIX, so it compiles, runs and is tested on any
 * host. docs/seatbelt.md says what each rule is for. */
#ifndef VX_SANDBOX_SEATBELT_H
#define VX_SANDBOX_SEATBELT_H

#include "sandbox/request.h"
#include "util/strbuf.h"
#include "util/vec.h"

/* The path as a profile must name it: canonical (grants_canonical), and
 * /tmp, /var and /etc spelled /private/tmp, /private/var, /private/etc,
 * where macOS keeps them (Seatbelt matches the resolved path). Caller frees. */
char *seatbelt_path(const char *p);
/* seatbelt_path without resolving links: the canonical path c as macOS
 * names it (/tmp/x is /private/tmp/x). Caller frees. */
char *seatbelt_spell(const char *c);

/* Writes the profile for in to out. A grant that has no spelling in a
 * profile (an escaped `*` or `?`, a `"`, `\` or `^` in a glob, a control
 * character) is left out with one line in notes naming it. Returns 0, or
 * -1 with one line in err: the project lies under a directory whose name
 * holds `[`, `*`, `?` or `{` (its grants could not be told from globs), a
 * grant into a credential store, a bad pattern, "~" without a home. */
int seatbelt_profile(const struct sandbox_input *in, struct strbuf *out, struct strvec *notes,
		     struct strbuf *err);

/* The command a run spawns: sandbox-exec -p PROFILE SHELL -c COMMAND. */
void seatbelt_argv(const char *profile, const char *shell, const char *command,
		   struct strvec *argv);

/* The note every failed sandboxed task on macOS gets (never silence: the
 * OS may not report what a profile applied with `sandbox-exec -p`
 * refused): the walls it ran under and the grants it had, and, when the
 * log reader heard no denial of it (heard == 0), that macOS may have
 * refused an access without saying so. One paragraph, no trailing newline. */
void seatbelt_failure_note(const struct sandbox_input *in, size_t heard, const char *task_id,
			   struct strbuf *out);

#endif
