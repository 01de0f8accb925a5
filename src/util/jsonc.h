/* jsonc.h - JSON with comments and trailing commas (turbo.json, bun.lock)
 * made plain JSON in place, so a strict reader (cJSON, libyaml) takes it. */
#ifndef VX_UTIL_JSONC_H
#define VX_UTIL_JSONC_H

#include <stddef.h>

/* Turns the n bytes of s into JSON: each line and block comment to spaces
 * (newlines kept, so every line and column stays where it was), then each
 * comma that closes nothing (before a } or ]) to a space. */
void jsonc_blank(char *s, size_t n);

#endif
