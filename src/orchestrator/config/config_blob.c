/* config_blob.c - parsed project configs as bytes (config_blob.h).
 *
 * Little-endian fixed widths: u8, u32, i64; a string is u32 length and its
 * bytes (0xffffffff: none); a place is its line and column as u32 (its
 * file is the config's own). Every task field is written by walking the
 * schema rows, as config_task_merge and schema_free walk them. */
#include "orchestrator/config/config_blob.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "orchestrator/config/schema.h"
#include "util/die.h"

#define CONFIG_MAGIC "VXCB"
#define PKG_MAGIC "VXPB"
#define BLOB_VERSION 2
#define NONE UINT32_MAX

#define AT(base, r, type) ((type *)((char *)(base) + (r)->off))
#define AT_CONST(base, r, type) ((const type *)((const char *)(base) + (r)->off))

/* The build's shape: any change to a row or a struct refuses old blobs. */
static uint64_t signature(void)
{
	static uint64_t sig;
	if (sig)
		return sig;
	XXH3_state_t *st = XXH3_createState();
	if (!st)
		die("out of memory");
	XXH3_64bits_reset(st);
	const size_t sizes[] = {BLOB_VERSION,
				sizeof(struct config),
				sizeof(struct task_cfg),
				sizeof(struct sandbox_cfg),
				sizeof(struct lstr),
				sizeof(struct kv),
				sizeof(struct grant_list)};
	XXH3_64bits_update(st, sizes, sizeof sizes);
	const struct schema_row *tables[] = {schema_task, schema_sandbox};
	for (size_t t = 0; t < 2; t++)
		for (const struct schema_row *r = tables[t]; r->name; r++) {
			XXH3_64bits_update(st, r->name, strlen(r->name) + 1);
			const size_t shape[] = {r->kind, r->off, r->flags, r->field};
			XXH3_64bits_update(st, shape, sizeof shape);
		}
	sig = XXH3_64bits_digest(st) | 1;
	XXH3_freeState(st);
	return sig;
}

/* --- writing --- */

struct writer {
	struct strbuf *out;
	const char *file; /* every place must be in it */
	bool ok;
};

static void put_u(struct writer *w, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		strbuf_addch(w->out, (char)(v >> (8 * i) & 0xff));
}

static void put_str(struct writer *w, const char *s)
{
	if (!s) {
		put_u(w, NONE, 4);
		return;
	}
	size_t n = strlen(s);
	if (n >= NONE)
		w->ok = false;
	put_u(w, n, 4);
	strbuf_add(w->out, s, n);
}

static void put_loc(struct writer *w, const struct loc *l)
{
	if (l->file && (!w->file || (l->file != w->file && strcmp(l->file, w->file))))
		w->ok = false; /* a place in another file: not this blob's to say */
	put_u(w, l->file != NULL, 1);
	put_u(w, (uint32_t)l->line, 4);
	put_u(w, (uint32_t)l->col, 4);
}

static void put_lstr(struct writer *w, const struct lstr *l)
{
	put_str(w, l->s);
	if (l->s)
		put_loc(w, &l->loc);
}

static void put_lstrs(struct writer *w, const lstr_vec *v)
{
	put_u(w, v->n, 4);
	for (size_t i = 0; i < v->n; i++)
		put_lstr(w, &v->v[i]);
}

static void put_rows(struct writer *w, const struct schema_row *t, const void *base)
{
	for (const struct schema_row *r = t; r->name; r++) {
		switch (r->kind) {
		case SCHEMA_MAP:
			break;
		case SCHEMA_STR:
			put_lstr(w, AT_CONST(base, r, struct lstr));
			break;
		case SCHEMA_LIST:
			put_lstrs(w, AT_CONST(base, r, lstr_vec));
			break;
		case SCHEMA_GRANTS:
		case SCHEMA_PORTS: {
			const struct grant_list *g = AT_CONST(base, r, struct grant_list);
			put_u(w, g->any, 1);
			put_loc(w, &g->loc);
			put_lstrs(w, &g->list);
			break;
		}
		case SCHEMA_BOOL:
		case SCHEMA_BOOL_NOT:
			put_u(w, *AT_CONST(base, r, bool), 1);
			break;
		case SCHEMA_DURATION:
			put_u(w, (uint64_t)*AT_CONST(base, r, long long), 8);
			break;
		case SCHEMA_ENV: {
			const kv_vec *v = AT_CONST(base, r, kv_vec);
			put_u(w, v->n, 4);
			for (size_t i = 0; i < v->n; i++) {
				put_str(w, v->v[i].key);
				put_str(w, v->v[i].value);
				put_loc(w, &v->v[i].loc);
			}
			break;
		}
		case SCHEMA_SANDBOX: {
			const struct sandbox_cfg *sb = *AT_CONST(base, r, struct sandbox_cfg *);
			put_u(w, sb != NULL, 1);
			if (sb) {
				put_loc(w, &sb->loc);
				put_rows(w, schema_sandbox, sb);
			}
			break;
		}
		}
	}
}

/* Whether text may hold a ${VAR} the parse expanded: written so, or with
 * its '$' as a YAML escape ("\x24{VAR}", "\u0024{VAR}"). */
static bool has_expansion(const char *text, size_t len)
{
	for (const char *p = text, *end = text + len; (p = memchr(p, '$', (size_t)(end - p)));)
		if (++p < end && *p == '{')
			return true;
	static const char *const escapes[] = {"\\x24", "\\u0024", "\\U00000024"};
	for (size_t i = 0; i < sizeof escapes / sizeof *escapes; i++) {
		size_t n = strlen(escapes[i]);
		for (const char *p = text, *end = text + len;
		     (p = memchr(p, '\\', (size_t)(end - p))); p++)
			if ((size_t)(end - p) >= n && !memcmp(p, escapes[i], n))
				return true;
	}
	return false;
}

bool config_blob_write(const struct config *cfg, const char *text, size_t len, struct strbuf *out)
{
	/* The parse expanded ${VAR} from this process's environment: the
	 * next run's may differ. A workspace file holds more than a blob. */
	if (cfg->is_workspace || cfg->turbo_path || has_expansion(text, len))
		return false;
	size_t start = out->len;
	struct writer w = {out, cfg->path, true};
	strbuf_add(out, CONFIG_MAGIC, 4);
	put_u(&w, signature(), 8);
	put_lstr(&w, &cfg->name);
	put_lstrs(&w, &cfg->depends_on);
	put_u(&w, cfg->tasks.n, 4);
	for (size_t i = 0; i < cfg->tasks.n; i++) {
		const struct task_cfg *t = cfg->tasks.v[i];
		put_str(&w, t->name);
		put_loc(&w, &t->loc);
		put_u(&w, t->set, 4);
		put_u(&w, t->inherited, 4);
		put_rows(&w, schema_task, t);
	}
	if (!w.ok)
		strbuf_setlen(out, start);
	return w.ok;
}

/* --- reading --- */

struct reader {
	const unsigned char *p, *end;
	const char *file;
	bool ok;
};

static uint64_t get_u(struct reader *r, int bytes)
{
	if (!r->ok || r->end - r->p < bytes) {
		r->ok = false;
		return 0;
	}
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += bytes;
	return v;
}

/* A string, or NULL for none (and on damage, r->ok false). */
static char *get_str(struct reader *r)
{
	uint64_t n = get_u(r, 4);
	if (!r->ok || n == NONE)
		return NULL;
	if ((uint64_t)(r->end - r->p) < n || memchr(r->p, '\0', n)) {
		r->ok = false;
		return NULL;
	}
	char *s = xstrndup((const char *)r->p, n);
	r->p += n;
	return s;
}

static void get_loc(struct reader *r, struct loc *l)
{
	l->file = get_u(r, 1) ? r->file : NULL;
	l->line = (int)(uint32_t)get_u(r, 4);
	l->col = (int)(uint32_t)get_u(r, 4);
}

static void get_lstr(struct reader *r, struct lstr *l)
{
	l->s = get_str(r);
	if (l->s)
		get_loc(r, &l->loc);
}

/* A count of items each at least min bytes long: more than the rest of the
 * blob could hold is damage. */
static uint64_t get_count(struct reader *r, size_t min)
{
	uint64_t n = get_u(r, 4);
	if (r->ok && n > (uint64_t)(r->end - r->p) / min)
		r->ok = false;
	return r->ok ? n : 0;
}

static void get_lstrs(struct reader *r, lstr_vec *v)
{
	uint64_t n = get_count(r, 4);
	for (uint64_t i = 0; i < n && r->ok; i++) {
		struct lstr l = {0};
		get_lstr(r, &l);
		if (!l.s) {
			r->ok = false; /* a list holds no "none" */
			break;
		}
		vec_push(v, l);
	}
}

static void get_rows(struct reader *r, const struct schema_row *t, void *base)
{
	for (const struct schema_row *row = t; row->name && r->ok; row++) {
		switch (row->kind) {
		case SCHEMA_MAP:
			break;
		case SCHEMA_STR:
			get_lstr(r, AT(base, row, struct lstr));
			break;
		case SCHEMA_LIST:
			get_lstrs(r, AT(base, row, lstr_vec));
			break;
		case SCHEMA_GRANTS:
		case SCHEMA_PORTS: {
			struct grant_list *g = AT(base, row, struct grant_list);
			g->any = get_u(r, 1) != 0;
			get_loc(r, &g->loc);
			get_lstrs(r, &g->list);
			break;
		}
		case SCHEMA_BOOL:
		case SCHEMA_BOOL_NOT:
			*AT(base, row, bool) = get_u(r, 1) != 0;
			break;
		case SCHEMA_DURATION:
			*AT(base, row, long long) = (long long)get_u(r, 8);
			break;
		case SCHEMA_ENV: {
			kv_vec *v = AT(base, row, kv_vec);
			uint64_t n = get_count(r, 16);
			for (uint64_t i = 0; i < n && r->ok; i++) {
				struct kv kv = {0};
				kv.key = get_str(r);
				kv.value = get_str(r);
				get_loc(r, &kv.loc);
				if (!kv.key || !kv.value)
					r->ok = false;
				vec_push(v, kv); /* freed with the rest on damage */
			}
			break;
		}
		case SCHEMA_SANDBOX: {
			if (!get_u(r, 1))
				break;
			struct sandbox_cfg *sb = xcalloc(1, sizeof *sb);
			*AT(base, row, struct sandbox_cfg *) = sb;
			get_loc(r, &sb->loc);
			get_rows(r, schema_sandbox, sb);
			break;
		}
		}
	}
}

static bool header(struct reader *r, const char *magic)
{
	if (r->end - r->p < 4 || memcmp(r->p, magic, 4))
		return false;
	r->p += 4;
	return get_u(r, 8) == signature() && r->ok;
}

struct config *config_blob_read(const char *path, const char *blob, size_t len)
{
	struct config *cfg = config_new(path);
	struct reader r = {(const unsigned char *)blob, (const unsigned char *)blob + len,
			   cfg->path, true};
	if (!header(&r, CONFIG_MAGIC)) {
		config_free(cfg);
		return NULL;
	}
	get_lstr(&r, &cfg->name);
	get_lstrs(&r, &cfg->depends_on);
	uint64_t n = get_count(&r, 16);
	for (uint64_t i = 0; i < n && r.ok; i++) {
		struct task_cfg *t = xcalloc(1, sizeof *t);
		vec_push(&cfg->tasks, t);
		t->name = get_str(&r);
		get_loc(&r, &t->loc);
		t->set = (unsigned)get_u(&r, 4);
		t->inherited = (unsigned)get_u(&r, 4);
		if (!t->name)
			r.ok = false;
		get_rows(&r, schema_task, t);
	}
	if (!r.ok || r.p != r.end) {
		config_free(cfg);
		return NULL;
	}
	return cfg;
}

/* --- package.json --- */

void pkg_fields_free(struct pkg_fields *f)
{
	free(f->name);
	free(f->version);
	strvec_clear(&f->deps);
	strvec_clear(&f->dep_specs);
	strvec_clear(&f->script_names);
	strvec_clear(&f->scripts);
	memset(f, 0, sizeof *f);
}

static void put_pairs(struct writer *w, const struct strvec *a, const struct strvec *b)
{
	put_u(w, a->n, 4);
	for (size_t i = 0; i < a->n; i++) {
		put_str(w, a->v[i]);
		put_str(w, b->v[i]);
	}
}

void pkg_blob_write(const struct pkg_fields *f, struct strbuf *out)
{
	struct writer w = {out, NULL, true};
	strbuf_add(out, PKG_MAGIC, 4);
	put_u(&w, signature(), 8);
	put_str(&w, f->name);
	put_u(&w, (uint32_t)f->name_line, 4);
	put_u(&w, (uint32_t)f->name_col, 4);
	put_str(&w, f->version);
	put_pairs(&w, &f->deps, &f->dep_specs);
	put_u(&w, (uint32_t)f->peer_at, 4);
	put_pairs(&w, &f->script_names, &f->scripts);
}

static void get_pairs(struct reader *r, struct strvec *a, struct strvec *b)
{
	uint64_t n = get_count(r, 8);
	for (uint64_t i = 0; i < n && r->ok; i++) {
		char *x = get_str(r);
		char *y = get_str(r);
		if (!x || !y) {
			free(x);
			free(y);
			r->ok = false;
			break;
		}
		strvec_push_nodup(a, x);
		strvec_push_nodup(b, y);
	}
}

bool pkg_blob_read(const char *blob, size_t len, struct pkg_fields *f)
{
	memset(f, 0, sizeof *f);
	struct reader r = {(const unsigned char *)blob, (const unsigned char *)blob + len, NULL,
			   true};
	if (!header(&r, PKG_MAGIC))
		return false;
	f->name = get_str(&r);
	f->name_line = (int)get_u(&r, 4);
	f->name_col = (int)get_u(&r, 4);
	f->version = get_str(&r);
	get_pairs(&r, &f->deps, &f->dep_specs);
	f->peer_at = get_u(&r, 4);
	get_pairs(&r, &f->script_names, &f->scripts);
	if (!r.ok || r.p != r.end || f->peer_at > f->deps.n) {
		pkg_fields_free(f);
		return false;
	}
	return true;
}
