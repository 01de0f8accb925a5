/* taskcfg.c - the small walks of a task's values (taskcfg.h). */
#include "orchestrator/config/taskcfg.h"

#include <stdlib.h>
#include <string.h>

int output_logs_parse(const char *s)
{
	static const char *const names[] = {"full", "errors-only", "hash-only", "none", "new-only"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (!strcmp(s, names[i]))
			return (int)i;
	return -1;
}

void lstr_vec_strings(const lstr_vec *v, struct strvec *out)
{
	for (size_t i = 0; i < v->n; i++)
		strvec_push(out, v->v[i].s);
}

void lstr_vec_free(lstr_vec *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->v[i].s);
	vec_free(v);
}
