/* yamledit.h - adding to a YAML file as a person would: the new entries
 * written where they belong, every other byte (comments, order, quoting,
 * blank lines) as it was.
 *
 * `vx sandbox learn` (issue 40) writes grants and inputs into vx.yaml files
 * that people wrote and keep; a dump of the parsed document would lose their
 * comments and their layout. libyaml keeps each node's byte span (its start
 * and end mark), so an addition is one insertion into the text: after the
 * last item of a block sequence at its dash's column, before a flow
 * collection's closing bracket, after the last line of a block mapping at
 * its keys' column. The result is loaded again and walked: an edit that
 * does not hold is an error, never a written file. */
#ifndef VX_UTIL_YAMLEDIT_H
#define VX_UTIL_YAMLEDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"
#include "util/yamlload.h"

/* Sets *out to text with each of values that is not yet there added to the
 * sequence at path (keys from the root mapping down, e.g. tasks, build,
 * sandbox, allow, read), making the mappings and the sequence that are
 * missing (block style under a block mapping, flow style inside a flow
 * one). nvalues 0 asks only that a mapping be at path ("sandbox: {}").
 * *changed says whether anything was added. Returns 0, or -1 with err
 * placed at the node that is in the way (a scalar where a mapping must be,
 * an alias, text that is no YAML). len 0: an empty or missing file. */
int yamledit_add(const char *text, size_t len, const char *const *path, size_t npath,
		 const char *const *values, size_t nvalues, struct strbuf *out, bool *changed,
		 struct yamlload_error *err);

#endif
