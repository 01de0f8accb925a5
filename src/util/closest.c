/* closest.c - the nearest of some names to a word, for "did you mean". */
#include "util/closest.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/die.h"

size_t closest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = xmalloc((lb + 1) * sizeof *row);
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost =
			    tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1])
				? 0
				: 1;
			size_t best = diag + cost;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	size_t d = row[lb];
	free(row);
	return d;
}

const char *closest_name(const char *word, const char *const *names, size_t n)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;
	for (size_t i = 0; i < n; i++) {
		if (!names[i])
			continue;
		size_t d = closest_distance(word, names[i]);
		if (d < best_d) {
			best_d = d;
			best = names[i];
		}
	}
	size_t len = strlen(word);
	size_t limit = len < 6 ? 2 : len / 3 + 1;
	return best && best_d <= limit ? best : NULL;
}
