/* manifest.c - a cache entry's manifest as JSON (cJSON), written and read
 * back strictly: a field missing or of the wrong type is a corrupt entry. */
#include "cache/manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/die.h"
#include "util/path.h"

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

char *manifest_format(const struct manifest *m)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddNumberToObject(root, "format", MANIFEST_FORMAT);
	cJSON_AddStringToObject(root, "key", m->key);
	cJSON_AddStringToObject(root, "task", m->task);
	cJSON_AddStringToObject(root, "vxVersion", m->vx_version);
	cJSON_AddNumberToObject(root, "exitCode", m->exit_code);
	cJSON_AddNumberToObject(root, "durationMs", (double)m->duration_ms);
	cJSON *in = cJSON_AddArrayToObject(root, "inputs");
	for (size_t i = 0; i < m->inputs.n; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "path", m->inputs.v[i].path);
		cJSON_AddStringToObject(o, "hash", m->inputs.v[i].hash);
		cJSON_AddItemToArray(in, o);
	}
	cJSON *out = cJSON_AddArrayToObject(root, "outputs");
	for (size_t i = 0; i < m->outputs.n; i++) {
		const struct manifest_file *f = &m->outputs.v[i];
		cJSON *o = cJSON_CreateObject();
		char mode[8];
		snprintf(mode, sizeof mode, "%04o", f->mode);
		cJSON_AddStringToObject(o, "path", f->path);
		cJSON_AddStringToObject(o, "type", type_name(f->type));
		if (f->type != ARCHIVE_SYMLINK)
			cJSON_AddStringToObject(o, "mode", mode);
		if (f->type == ARCHIVE_FILE)
			cJSON_AddNumberToObject(o, "size", (double)f->size);
		if (f->type == ARCHIVE_SYMLINK)
			cJSON_AddStringToObject(o, "target", f->target);
		if (f->type != ARCHIVE_DIR)
			cJSON_AddStringToObject(o, "hash", f->hash);
		cJSON_AddItemToArray(out, o);
	}
	cJSON *log = cJSON_AddObjectToObject(root, "log");
	cJSON_AddNumberToObject(log, "size", (double)m->log_size);
	cJSON *arc = cJSON_AddObjectToObject(root, "archive");
	cJSON_AddNumberToObject(arc, "size", (double)m->archive_size);
	cJSON_AddStringToObject(arc, "xxh3", m->archive_hash);
	char *s = cJSON_Print(root);
	cJSON_Delete(root);
	if (!s)
		die("out of memory");
	char *ret = xasprintf("%s\n", s);
	cJSON_free(s);
	return ret;
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
