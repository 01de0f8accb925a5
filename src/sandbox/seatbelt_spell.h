/* seatbelt_spell.h - host paths and globs as a Seatbelt profile (SBPL)
 * spells them: strings, and regexes inside `#"…"`. For seatbelt.c and
 * seatbelt_rules.c; what the profile says is theirs. */
#ifndef VX_SANDBOX_SEATBELT_SPELL_H
#define VX_SANDBOX_SEATBELT_SPELL_H

#include <stddef.h>

#include "util/strbuf.h"

/* The links macOS keeps at / (readlink of each is a metadata read),
 * NULL-terminated. */
extern const char *const seatbelt_os_links[];

/* seatbelt_path and seatbelt_spell, the paths as a profile names them,
 * are sandbox/seatbelt.h's (the log reader asks them too). */

/* Appends path (a host path) as an SBPL string ("…", `\` and `"`
 * escaped), spelled as macOS names it. Returns -1 (and appends nothing)
 * for a control character: no spelling. */
int sbpl_string(struct strbuf *out, const char *path);

/* Appends the n bytes of s as a regex matching them literally. Returns -1
 * when one has no spelling inside `#"…"` (an unescaped `*` or `?`, `"`,
 * `\`, `^`, a control character); out may then hold part of it. */
int sbpl_rx_literal(struct strbuf *out, const char *s, size_t n);

/* Appends the regex for glob pat (relative, braces expanded): `*` is
 * `[^/]*`, `?` is `[^/]`, a whole `**` segment is any number of them, and
 * a trailing "/" + "**" also matches the directory itself. Returns -1 when
 * pat has no spelling (out may then hold part of it). */
int sbpl_rx_glob(struct strbuf *out, const char *pat);

#endif
