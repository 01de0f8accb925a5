/* yamlload.h - a YAML text into a libyaml document, bounded and placed:
 * libyaml's own loader with a depth limit, and every error at its byte.
 *
 * libyaml's scanner walks its stack of possible simple keys, one per open
 * flow collection, on every token it fetches: `[[[…]]]` 100 000 deep (a
 * 200 KB file) took 22 s (issue 39). The loader below composes the
 * document from events and stops at YAMLLOAD_MAX_DEPTH open collections,
 * so the scanner never holds more and a load is linear in the text. A
 * reader error (invalid UTF-8, a NUL or other control byte) comes from
 * libyaml with a byte offset and no mark; it is placed here by counting
 * lines and characters up to that byte, as libyaml's marks count them. */
#ifndef VX_UTIL_YAMLLOAD_H
#define VX_UTIL_YAMLLOAD_H

#include <yaml.h>

/* No config vx reads nests a tenth as deep. */
#define YAMLLOAD_MAX_DEPTH 256
/* A document whose aliases stand for more nodes than this, expanded, is
 * refused: a reader follows every alias, and nested ones double the walk
 * a level. A document without aliases (a lockfile of any size) is never
 * refused by it. */
#define YAMLLOAD_MAX_ALIASED 1000000

struct yamlload_error {
	int line, col;	   /* 1-based */
	char message[160]; /* libyaml's problem and context, or the depth bound */
};

/* Like yaml_parser_load: loads the parser's next document into doc (with
 * no root node when the stream has ended) and returns 1, or returns 0
 * with err filled and doc empty. The parser's input must be a string
 * (yaml_parser_set_input_string). Dies when out of memory. */
int yamlload_next(yaml_parser_t *parser, yaml_document_t *doc, struct yamlload_error *err);
/* The same for JSON read through libyaml (turbo.json): an anchor or an
 * alias, which JSON has not, is an error at its place. */
int yamlload_json(yaml_parser_t *parser, yaml_document_t *doc, struct yamlload_error *err);

#endif
