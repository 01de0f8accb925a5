/* manifest.c - a cache entry's manifest as JSON (cJSON), written and read
 * back strictly: a field missing or of the wrong type is a corrupt entry. */
#include "cache/manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/die.h"
#include "util/path.h"
#include "util/strbuf.h"

static void file_release(struct manifest_file *f)
{
	free(f->path);
	free(f->target);
}

void manifest_release(struct manifest *m)
{
	free(m->key);
	free(m->task);
	free(m->vx_version);
	for (size_t i = 0; i < m->inputs.n; i++)
		file_release(&m->inputs.v[i]);
	for (size_t i = 0; i < m->outputs.n; i++)
		file_release(&m->outputs.v[i]);
	vec_free(&m->inputs);
	vec_free(&m->outputs);
	memset(m, 0, sizeof *m);
}

static const char *type_name(enum archive_type t)
{
	return t == ARCHIVE_DIR ? "dir" : t == ARCHIVE_SYMLINK ? "symlink" : "file";
}

/* s as a JSON string, as cJSON writes one: '"', '\\' and the control
 * characters escaped, every other byte as it is. */
static void json_str(struct strbuf *sb, const char *s)
{
	if (!s) {
		strbuf_addstr(sb, "null"); /* read back as a field of the wrong type */
		return;
	}
	strbuf_addch(sb, '"');
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c == '"' || *c == '\\')
			strbuf_addf(sb, "\\%c", *c);
		else if (*c == '\n')
			strbuf_addstr(sb, "\\n");
		else if (*c == '\t')
			strbuf_addstr(sb, "\\t");
		else if (*c < 0x20)
			strbuf_addf(sb, "\\u%04x", *c);
		else
			strbuf_addch(sb, (char)*c);
	}
	strbuf_addch(sb, '"');
}

/* Written straight, a line per file, where a cJSON tree of 100 000
 * outputs, printed, was 15% of their save (issue 43); read back by
 * cJSON all the same. */
char *manifest_format(const struct manifest *m)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "{\"format\": %d, \"key\": ", MANIFEST_FORMAT);
	json_str(&sb, m->key);
	strbuf_addstr(&sb, ", \"task\": ");
	json_str(&sb, m->task);
	strbuf_addstr(&sb, ", \"vxVersion\": ");
	json_str(&sb, m->vx_version);
	strbuf_addf(&sb, ", \"exitCode\": %d, \"durationMs\": %llu,\n\"inputs\": [", m->exit_code,
		    (unsigned long long)m->duration_ms);
	for (size_t i = 0; i < m->inputs.n; i++) {
		strbuf_addstr(&sb, i ? ",\n{\"path\": " : "\n{\"path\": ");
		json_str(&sb, m->inputs.v[i].path);
		strbuf_addstr(&sb, ", \"hash\": ");
		json_str(&sb, m->inputs.v[i].hash);
		strbuf_addch(&sb, '}');
	}
	strbuf_addstr(&sb, "],\n\"outputs\": [");
	for (size_t i = 0; i < m->outputs.n; i++) {
		const struct manifest_file *f = &m->outputs.v[i];
		strbuf_addstr(&sb, i ? ",\n{\"path\": " : "\n{\"path\": ");
		json_str(&sb, f->path);
		strbuf_addf(&sb, ", \"type\": \"%s\"", type_name(f->type));
		if (f->type != ARCHIVE_SYMLINK)
			strbuf_addf(&sb, ", \"mode\": \"%04o\"", f->mode);
		if (f->type == ARCHIVE_FILE)
			strbuf_addf(&sb, ", \"size\": %llu", (unsigned long long)f->size);
		if (f->type == ARCHIVE_SYMLINK) {
			strbuf_addstr(&sb, ", \"target\": ");
			json_str(&sb, f->target);
		}
		if (f->type != ARCHIVE_DIR) {
			strbuf_addstr(&sb, ", \"hash\": ");
			json_str(&sb, f->hash);
		}
		strbuf_addch(&sb, '}');
	}
	strbuf_addf(&sb, "],\n\"log\": {\"size\": %llu}, \"archive\": {\"size\": %llu, \"xxh3\": ",
		    (unsigned long long)m->log_size, (unsigned long long)m->archive_size);
	json_str(&sb, m->archive_hash);
	strbuf_addstr(&sb, "}}\n");
	return strbuf_detach(&sb, NULL);
}

/* ---- parsing: every field checked, since a bad manifest is an expected
 * state (a crash, a disk error, a hand edit) and must read as ENTRY_BAD ---- */

static const cJSON *get(const cJSON *o, const char *key, int want, struct strbuf *why)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v || !(v->type & want)) {
		strbuf_addf(why, "manifest: field \"%s\" missing or of the wrong type", key);
		return NULL;
	}
	return v;
}

static int get_str(const cJSON *o, const char *key, char **out, struct strbuf *why)
{
	const cJSON *v = get(o, key, cJSON_String, why);
	if (!v)
		return -1;
	*out = xstrdup(v->valuestring);
	return 0;
}

static int get_u64(const cJSON *o, const char *key, uint64_t *out, struct strbuf *why)
{
	const cJSON *v = get(o, key, cJSON_Number, why);
	if (!v)
		return -1;
	if (v->valuedouble < 0 || v->valuedouble > 9007199254740992.0 ||
	    v->valuedouble != (double)(uint64_t)v->valuedouble) {
		strbuf_addf(why, "manifest: field \"%s\" is not a size", key);
		return -1;
	}
	*out = (uint64_t)v->valuedouble;
	return 0;
}

static int get_hash(const cJSON *o, const char *key, char out[ARCHIVE_HASH_HEX], struct strbuf *why)
{
	const cJSON *v = get(o, key, cJSON_String, why);
	if (!v)
		return -1;
	if (strlen(v->valuestring) != ARCHIVE_HASH_HEX - 1) {
		strbuf_addf(why, "manifest: field \"%s\" is not a 128-bit hash", key);
		return -1;
	}
	memcpy(out, v->valuestring, ARCHIVE_HASH_HEX);
	return 0;
}

static int parse_output(const cJSON *o, struct manifest_file *f, struct strbuf *why)
{
	char *type = NULL, *mode = NULL;
	int ret = -1;
	if (get_str(o, "path", &f->path, why) || get_str(o, "type", &type, why))
		goto out;
	if (!archive_path_ok(f->path)) {
		strbuf_addf(why, "manifest: unsafe output path '%s'", f->path);
		goto out;
	}
	if (!strcmp(type, "file")) {
		f->type = ARCHIVE_FILE;
		if (get_str(o, "mode", &mode, why) || get_u64(o, "size", &f->size, why) ||
		    get_hash(o, "hash", f->hash, why))
			goto out;
	} else if (!strcmp(type, "dir")) {
		f->type = ARCHIVE_DIR;
		if (get_str(o, "mode", &mode, why))
			goto out;
	} else if (!strcmp(type, "symlink")) {
		f->type = ARCHIVE_SYMLINK;
		f->mode = 0777;
		if (get_str(o, "target", &f->target, why) || get_hash(o, "hash", f->hash, why))
			goto out;
	} else {
		strbuf_addf(why, "manifest: unknown output type \"%s\"", type);
		goto out;
	}
	if (mode) {
		char *end;
		unsigned long v = strtoul(mode, &end, 8);
		if (*end || !*mode || v > 0777) {
			strbuf_addf(why, "manifest: bad mode \"%s\"", mode);
			goto out;
		}
		f->mode = (unsigned)v;
	}
	ret = 0;
out:
	free(type);
	free(mode);
	return ret;
}

int manifest_file_cmp(const void *a, const void *b)
{
	return strcmp(((const struct manifest_file *)a)->path,
		      ((const struct manifest_file *)b)->path);
}

int manifest_parse(const char *json, size_t len, struct manifest *m, struct strbuf *why)
{
	memset(m, 0, sizeof *m);
	cJSON *root = cJSON_ParseWithLength(json, len);
	if (!root || !cJSON_IsObject(root)) {
		strbuf_addstr(why, "manifest: not a JSON object");
		cJSON_Delete(root);
		return -1;
	}
	int ret = -1;
	uint64_t format = 0, exit_code = 0;
	const cJSON *in, *out, *log, *arc, *x;
	if (get_u64(root, "format", &format, why))
		goto out;
	if (format != MANIFEST_FORMAT) {
		strbuf_addf(why, "manifest: format %llu, this vx reads %d",
			    (unsigned long long)format, MANIFEST_FORMAT);
		goto out;
	}
	x = get(root, "exitCode", cJSON_Number, why);
	if (!x || get_str(root, "key", &m->key, why) || get_str(root, "task", &m->task, why) ||
	    get_str(root, "vxVersion", &m->vx_version, why) ||
	    get_u64(root, "durationMs", &m->duration_ms, why))
		goto out;
	exit_code = (uint64_t)x->valueint;
	m->exit_code = (int)exit_code;
	if (!(in = get(root, "inputs", cJSON_Array, why)) ||
	    !(out = get(root, "outputs", cJSON_Array, why)) ||
	    !(log = get(root, "log", cJSON_Object, why)) ||
	    !(arc = get(root, "archive", cJSON_Object, why)))
		goto out;
	if (get_u64(log, "size", &m->log_size, why) ||
	    get_u64(arc, "size", &m->archive_size, why) ||
	    get_hash(arc, "xxh3", m->archive_hash, why))
		goto out;
	cJSON_ArrayForEach(x, in)
	{
		struct manifest_file f = {0};
		int bad = !cJSON_IsObject(x) || get_str(x, "path", &f.path, why) ||
			  get_hash(x, "hash", f.hash, why);
		vec_push(&m->inputs, f);
		if (bad)
			goto out;
	}
	cJSON_ArrayForEach(x, out)
	{
		struct manifest_file f = {0};
		int bad = !cJSON_IsObject(x) || parse_output(x, &f, why);
		vec_push(&m->outputs, f);
		if (bad)
			goto out;
	}
	if (m->outputs.n)
		qsort(m->outputs.v, m->outputs.n, sizeof *m->outputs.v, manifest_file_cmp);
	ret = 0;
out:
	if (ret < 0 && !why->len)
		strbuf_addstr(why, "manifest: malformed");
	if (ret < 0)
		manifest_release(m);
	cJSON_Delete(root);
	return ret;
}
