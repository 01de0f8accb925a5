/* json.h - a JSON text vx is given (package.json, package-lock.json,
 * bun.lock) into cJSON, strictly: what cJSON takes and JSON does not is
 * refused at its byte. */
#ifndef VX_UTIL_JSON_H
#define VX_UTIL_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* Why a text was refused: the byte it is at and what is wrong there. */
struct json_error {
	enum json_fault { JSON_BAD_BYTE, JSON_INVALID, JSON_TRAILING, JSON_REPEATED_KEY } fault;
	size_t at;
	char message[160];
};

/* Parses the len bytes of text (comments already blanked, for JSONC),
 * what naming it in a message ("a package.json"). Returns the document,
 * or NULL with *err set: a byte no JSON text holds (invalid UTF-8, a
 * NUL: cJSON takes both, and cuts a string at the NUL), invalid JSON
 * (at cJSON's offset), text after the value, or a key repeated in one
 * object, at the second (issue 57 item 2: {"name": "a", "name": "zz"}
 * was the project a; Node and npm take the last; vx takes neither).
 * Dies when out of memory. */
cJSON *json_parse(const char *text, size_t len, const char *what, struct json_error *err);

#endif
