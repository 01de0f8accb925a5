/* json.c - see json.h. */
#include "util/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/jsonloc.h"

cJSON *json_parse(const char *text, size_t len, const char *what, struct json_error *err)
{
	const char *why;
	err->at = jsonloc_bad_byte(text, len, &why);
	if (err->at < len) {
		err->fault = JSON_BAD_BYTE;
		snprintf(err->message, sizeof err->message, "%s: %s is UTF-8 JSON", why, what);
		return NULL;
	}
	const char *end = NULL;
	cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &end, false);
	if (!doc) {
		err->fault = JSON_INVALID;
		err->at = end ? (size_t)(end - text) : 0;
		snprintf(err->message, sizeof err->message, "invalid JSON");
		return NULL;
	}
	size_t rest = end ? (size_t)(end - text) : len;
	while (rest < len && strchr(" \t\r\n", text[rest]))
		rest++;
	if (rest < len) {
		err->fault = JSON_TRAILING;
		err->at = rest;
		snprintf(err->message, sizeof err->message, "text after the JSON %s",
			 cJSON_IsObject(doc) ? "object" : "value");
		cJSON_Delete(doc);
		return NULL;
	}
	struct jsonloc_repeat r;
	if (jsonloc_repeated_key(text, len, &r)) {
		char *key = jsonloc_string(text, len, r.first);
		int line, col;
		jsonloc_line_col(text, r.first, &line, &col);
		err->fault = JSON_REPEATED_KEY;
		err->at = r.second;
		/* a key too long for the line is cut: its place says which */
		snprintf(err->message, sizeof err->message,
			 "duplicate key \"%.100s\" (first at %d:%d)", key, line, col);
		free(key);
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}
