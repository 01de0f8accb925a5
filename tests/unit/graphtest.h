/* graphtest.h - looking a task graph up by task id, for the unit tests
 * of the graph and of the plans made from it. */
#ifndef VX_TEST_GRAPHTEST_H
#define VX_TEST_GRAPHTEST_H

#include <stdbool.h>
#include <string.h>

#include "orchestrator/plan/graph.h"

/* The index of the node with id in g, or -1. */
static inline long node(const struct graph *g, const char *id)
{
	for (size_t i = 0; i < g->nodes.n; i++)
		if (!strcmp(g->nodes.v[i]->id, id))
			return (long)i;
	return -1;
}

/* Whether from depends on to directly (both in g). */
static inline bool has_edge(const struct graph *g, const char *from, const char *to)
{
	long f = node(g, from), t = node(g, to);
	if (f < 0 || t < 0)
		return false;
	for (size_t k = 0; k < g->nodes.v[f]->deps.n; k++)
		if (g->nodes.v[f]->deps.v[k].to == (size_t)t)
			return true;
	return false;
}

#endif
