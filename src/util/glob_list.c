/* glob_list.c - glob_walk_list (util/glob.h): the paths an include/exclude
 * list of globs selects under a root, in one walk of the tree
 * (util/glob_walk.h) for all of them.
 *
 * Every entry is matched through an index on its last segment when that is
 * a literal (no `{`, no `\` in the pattern, no `*?[` in the segment): a path
 * whose last segment differs cannot match it, so 1000 "**" + "/fN.txt"
 * globs cost one lookup a file, not 1000 matches. The other entries are
 * tried on every path. An including entry is walked one of three ways:
 *
 * - WALKED: in the one walk from root, which descends where any such
 *   entry may match and credits a path to the first that matches it at or
 *   below its literal prefix (where its own walk would have reported it);
 * - LITERAL: no magic and a plain path: one lstat (and a stat through a
 *   link), its parents checked once a run each, not an openat chain each;
 * - ALONE: a literal prefix that climbs ("..", "/"), holds a "." or empty
 *   segment, or names a skipped directory (the one walk would not enter
 *   it, the glob's own walk does): glob_walk_with as before. */
#include "util/glob.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/die.h"
#include "util/glob_walk.h"
#include "util/strbuf.h"
#include "util/strmap.h"

enum set_mode { SET_EXCLUDE, SET_WALKED, SET_LITERAL, SET_ALONE };

struct set_entry {
	const char *pat; /* the glob, without its '!' */
	char *prefix;	 /* its literal prefix (walk_literal_prefix), or all of it */
	size_t plen;
	enum set_mode mode;
};

struct set_hit {
	char *rel;
	size_t rank; /* the first including entry whose own walk reports it */
	size_t seq;  /* the order in which the walks met it */
};

struct globset {
	struct set_entry *e;
	size_t n;
	struct strmap byname;  /* last segment -> its first slot in idx */
	struct strvec names;   /* byname's keys */
	size_t *idx, *idx_end; /* entries by name, ascending within one; end of each run */
	size_t *rest, nrest;   /* entries with no name, ascending */
	struct strmap dirs;    /* parents of literals: 1 a directory, 0 not */
	struct strvec dirnames;
	struct set_hit *hits;
	size_t nhits, ahits, seq;
	size_t alone; /* with mode SET_ALONE: the entry being walked */
};

/* pat's last segment when it indexes it (above), else NULL. Caller frees. */
static char *last_name(const char *pat)
{
	if (strpbrk(pat, "{\\"))
		return NULL;
	const char *b = walk_trim_dots(pat), *e = b + strlen(b);
	while (e > b && e[-1] == '/')
		e--;
	const char *s = e;
	while (s > b && s[-1] != '/')
		s--;
	for (const char *q = s; q < e; q++)
		if (strchr("*?[", *q))
			return NULL;
	return s < e ? xstrndup(s, (size_t)(e - s)) : NULL;
}

static bool plain_prefix(const char *prefix, const char *const *skip)
{
	if (prefix[0] == '/')
		return false;
	for (const char *s = prefix; *s;) {
		const char *e = strchr(s, '/');
		if (!e)
			e = s + strlen(s);
		size_t n = (size_t)(e - s);
		if (!n || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return false;
		for (const char *const *k = skip; k && *k; k++)
			if (strlen(*k) == n && !strncmp(*k, s, n))
				return false;
		if (!*e)
			break;
		s = e + 1;
	}
	return true;
}

struct named {
	char *name;
	size_t i;
};

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

static void set_init(struct globset *s, char *const *pats, size_t n, const char *const *skip)
{
	s->e = xcalloc(n ? n : 1, sizeof *s->e);
	s->n = n;
	struct named *name = xcalloc(n ? n : 1, sizeof *name);
	size_t named = 0;
	s->idx = xcalloc(n ? n : 1, sizeof *s->idx);
	s->idx_end = xcalloc(n ? n : 1, sizeof *s->idx_end);
	s->rest = xcalloc(n ? n : 1, sizeof *s->rest);
	struct strbuf pre = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		struct set_entry *e = &s->e[i];
		bool neg = pats[i][0] == '!';
		e->pat = pats[i] + neg;
		bool literal = walk_literal_prefix(walk_trim_dots(e->pat), &pre);
		e->plen = pre.len;
		e->prefix = strbuf_detach(&pre, NULL);
		if (neg)
			e->mode = SET_EXCLUDE;
		else if (!plain_prefix(e->prefix, literal ? NULL : skip))
			e->mode = SET_ALONE;
		else
			e->mode = literal ? SET_LITERAL : SET_WALKED;
		char *last = last_name(e->pat);
		if (last)
			name[named++] = (struct named){last, i};
		else
			s->rest[s->nrest++] = i;
	}
	qsort(name, named, sizeof *name, cmp_named);
	for (size_t k = 0; k < named; k++)
		s->idx[k] = name[k].i;
	for (size_t k = 0; k < named;) {
		size_t j = k + 1;
		while (j < named && !strcmp(name[j].name, name[k].name))
			free(name[j++].name);
		strvec_push_nodup(&s->names, name[k].name);
		strmap_put(&s->byname, name[k].name, k);
		s->idx_end[k] = j;
		k = j;
	}
	free(name);
}

static void set_release(struct globset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->e[i].prefix);
	free(s->e);
	free(s->idx);
	free(s->idx_end);
	free(s->rest);
	strmap_clear(&s->byname);
	strvec_clear(&s->names);
	strmap_clear(&s->dirs);
	strvec_clear(&s->dirnames);
	for (size_t i = 0; i < s->nhits; i++)
		free(s->hits[i].rel);
	free(s->hits);
}

/* The entries that may match rel, ascending: [*a, *ae) of s->idx and all
 * of s->rest, to be merged. */
static void set_candidates(const struct globset *s, const char *rel, const size_t **a,
			   const size_t **ae)
{
	const char *slash = strrchr(rel, '/');
	size_t k;
	*a = *ae = s->idx;
	if (strmap_get(&s->byname, slash ? slash + 1 : rel, &k)) {
		*a = s->idx + k;
		*ae = s->idx + s->idx_end[k];
	}
}

/* True when the list selects rel: the last entry matching it includes. */
static bool set_selects(const struct globset *s, const char *rel)
{
	const size_t *a, *ae;
	set_candidates(s, rel, &a, &ae);
	const size_t *r = s->rest + s->nrest;
	while (a < ae || r > s->rest) {
		size_t i = (r > s->rest && (a == ae || r[-1] > ae[-1])) ? *--r : *--ae;
		if (glob_match(s->e[i].pat, rel))
			return s->e[i].mode != SET_EXCLUDE;
	}
	return false;
}

/* rel strictly below e's prefix, or (a directory) the prefix itself. */
static bool under_prefix(const struct set_entry *e, const char *rel, bool dir)
{
	if (!e->plen)
		return true;
	if (strncmp(rel, e->prefix, e->plen))
		return false;
	return rel[e->plen] == '/' || (dir && !rel[e->plen]);
}

/* The first WALKED entry whose own walk reports rel; false when none. */
static bool set_rank(const struct globset *s, const char *rel, bool dir, size_t *rank)
{
	const size_t *a, *ae;
	set_candidates(s, rel, &a, &ae);
	const size_t *r = s->rest, *re = s->rest + s->nrest;
	while (a < ae || r < re) {
		size_t i = (r < re && (a == ae || *r < *a)) ? *r++ : *a++;
		const struct set_entry *e = &s->e[i];
		if (e->mode == SET_WALKED && under_prefix(e, rel, dir) && glob_match(e->pat, rel)) {
			*rank = i;
			return true;
		}
	}
	return false;
}

static void set_hit(struct globset *s, const char *rel, size_t rank)
{
	if (s->nhits == s->ahits) {
		s->ahits = s->ahits ? 2 * s->ahits : 64;
		s->hits = xrealloc(s->hits, s->ahits * sizeof *s->hits);
	}
	s->hits[s->nhits++] = (struct set_hit){xstrdup(rel), rank, s->seq++};
}

/* The list's hooks (util/glob_walk.h): w->set decides. */

static int list_found(struct walk *w, bool dir)
{
	struct globset *s = w->set;
	const char *rel = w->rel.buf;
	size_t rank = s->alone;
	if (rank == SIZE_MAX ? !set_rank(s, rel, dir, &rank) : !glob_match(s->e[rank].pat, rel))
		return 0;
	if (set_selects(s, rel))
		set_hit(s, rel, rank);
	return 0;
}

static int list_literal(struct walk *w)
{
	if (set_selects(w->set, w->rel.buf))
		set_hit(w->set, w->rel.buf, w->set->alone);
	return 0;
}

static bool list_enters(struct walk *w)
{
	const char *rel = w->rel.buf;
	struct globset *s = w->set;
	if (s->alone != SIZE_MAX)
		return glob_match_below(s->e[s->alone].pat, rel);
	size_t len = w->rel.len;
	for (size_t i = 0; i < s->n; i++) {
		const struct set_entry *e = &s->e[i];
		if (e->mode != SET_WALKED)
			continue;
		/* on the way to its prefix, or below it where it may match */
		if (len <= e->plen && !strncmp(rel, e->prefix, len) &&
		    (len == e->plen || e->prefix[len] == '/'))
			return true;
		if (under_prefix(e, rel, false) && glob_match_below(e->pat, rel))
			return true;
	}
	return false;
}

/* Is every parent of w->rel a directory reached without a link? Each is
 * looked at once a list walk (lstat), kept in s->dirs. */
static bool parents_are_dirs(struct walk *w, struct globset *s)
{
	struct strbuf *rel = &w->rel;
	for (size_t i = 0; i < rel->len; i++) {
		if (rel->buf[i] != '/')
			continue;
		size_t known;
		if (strmap_getn(&s->dirs, rel->buf, i, &known)) {
			if (!known)
				return false;
			continue;
		}
		rel->buf[i] = '\0';
		struct stat st;
		bool dir = !fstatat(w->rootfd, walk_at(w, rel->buf), &st, AT_SYMLINK_NOFOLLOW) &&
			   S_ISDIR(st.st_mode);
		char *key = xstrdup(rel->buf);
		rel->buf[i] = '/';
		strvec_push_nodup(&s->dirnames, key);
		strmap_put(&s->dirs, key, dir);
		if (!dir)
			return false;
	}
	return true;
}

static int cmp_hit_order(const void *a, const void *b)
{
	const struct set_hit *x = a, *y = b;
	return x->rank != y->rank ? (x->rank > y->rank) - (x->rank < y->rank)
				  : (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_hit_rel(const void *a, const void *b)
{
	int c = strcmp(((const struct set_hit *)a)->rel, ((const struct set_hit *)b)->rel);
	return c ? c : cmp_hit_order(a, b);
}

int glob_walk_list(const char *root, char *const *pats, size_t n, int flags,
		   const struct glob_walk_opts *o, int (*cb)(const char *relpath, void *ctx),
		   void *ctx)
{
	struct globset s = {.alone = SIZE_MAX};
	struct walk w = {.flags = flags,
			 .skip = o->skip_names,
			 .lc = o->listings,
			 .reads = o->reads,
			 .found = list_found,
			 .literal = list_literal,
			 .enters = list_enters,
			 .set = &s};
	if (walk_open(&w, root) < 0)
		return -1;
	set_init(&s, pats, n, o->skip_names);
	int ret = 0;
	bool walked = false;
	for (size_t i = 0; !ret && i < n; i++) {
		const struct set_entry *e = &s.e[i];
		if (e->mode == SET_WALKED && !walked) {
			walked = true;
			ret = walk_dir(&w); /* from root, for every WALKED entry */
		} else if (e->mode == SET_LITERAL) {
			strbuf_reset(&w.rel);
			strbuf_addstr(&w.rel, e->prefix);
			s.alone = i;
			if (parents_are_dirs(&w, &s))
				ret = walk_report_literal(&w);
			s.alone = SIZE_MAX;
		} else if (e->mode == SET_ALONE) {
			/* its own walk, as glob_walk_with's */
			w.pat = walk_trim_dots(e->pat);
			walk_literal_prefix(w.pat, &w.rel);
			s.alone = i;
			ret = walk_one(&w);
			s.alone = SIZE_MAX;
		}
		strbuf_reset(&w.rel);
	}
	/* Each path once, where the first walk to report it put it. */
	if (s.nhits) /* qsort of no array: UBSan's null argument */
		qsort(s.hits, s.nhits, sizeof *s.hits, cmp_hit_rel);
	size_t keep = 0;
	for (size_t i = 0; i < s.nhits; i++) {
		if (keep && !strcmp(s.hits[keep - 1].rel, s.hits[i].rel))
			free(s.hits[i].rel);
		else
			s.hits[keep++] = s.hits[i];
	}
	s.nhits = keep;
	if (s.nhits)
		qsort(s.hits, s.nhits, sizeof *s.hits, cmp_hit_order);
	for (size_t i = 0; !ret && i < s.nhits; i++)
		ret = cb(s.hits[i].rel, ctx);
	set_release(&s);
	walk_close(&w);
	return ret;
}