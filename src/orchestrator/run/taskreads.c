/* taskreads.c - the reads of other packages a traced task made, kept
 * (taskreads.h). A record is text, one line a field:
 *   vx-reads 1
 *   task web#build
 *   project apps/web
 *   read packages/ui/data.json
 * named after the task id, its bytes outside [A-Za-z0-9._-] as %XX. */
#include "orchestrator/run/taskreads.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "orchestrator/config/workspace.h"
#include "util/io.h"
#include "util/path.h"
#include "util/strbuf.h"

#define HEADER "vx-reads 1\n"

static char *record_path(const struct workspace *ws, const char *id)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s/.vx/reads/", ws->root);
	for (const unsigned char *c = (const unsigned char *)id; *c; c++) {
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-')
			strbuf_addch(&sb, (char)*c);
		else
			strbuf_addf(&sb, "%%%02X", *c);
	}
	return strbuf_detach(&sb, NULL);
}

int taskreads_save(const struct workspace *ws, const char *id, const char *project_dir,
		   const struct strvec *reads)
{
	long own = workspace_project_of(ws, project_dir);
	struct strvec files = STRVEC_INIT;
	for (size_t i = 0; i < reads->n; i++) {
		const char *path = reads->v[i] + 2; /* past "K " */
		/* a name with a newline would read back as two records' lines
		 * (a review: a file named "x\nread packages/api/y" forged one) */
		if (strlen(reads->v[i]) < 3 || path[0] != '/' || !path_is_within(ws->root, path) ||
		    strchr(path, '\n'))
			continue;
		long q = workspace_project_of(ws, path);
		if (q < 0 || q == own || ws->projects.v[q]->is_root)
			continue;
		strvec_push_nodup(&files, path_relative(ws->root, path));
	}
	strvec_sort_unique(&files);
	char *file = record_path(ws, id);
	int rc = 0;
	/* .vx or .vx/reads planted as a link (a repository can commit one)
	 * would send the record, and its removal, elsewhere */
	const char *const dirs[] = {".vx", ".vx/reads"};
	for (size_t k = 0; k < 2 && !rc; k++) {
		char *d = path_join(ws->root, dirs[k]);
		struct stat st;
		if (!lstat(d, &st) && !S_ISDIR(st.st_mode)) {
			warning("%s is not a directory (a link?): the reads of %s are not kept", d,
				id);
			rc = -1;
		}
		free(d);
	}
	if (rc) {
		free(file);
		strvec_clear(&files);
		return rc;
	}
	if (!files.n) {
		if (unlink(file) && errno != ENOENT)
			rc = -1;
	} else {
		char *dir = path_join(ws->root, ".vx/reads");
		rc = workspace_vx_dir(ws);
		if (!rc)
			rc = fs_mkdirs(dir, 0777);
		free(dir);
		struct strbuf sb = STRBUF_INIT;
		strbuf_addstr(&sb, HEADER);
		char *rel = path_relative(ws->root, project_dir);
		strbuf_addf(&sb, "task %s\nproject %s\n", id, rel);
		free(rel);
		for (size_t i = 0; i < files.n; i++)
			strbuf_addf(&sb, "read %s\n", files.v[i]);
		if (!rc)
			rc = write_file_atomic(file, sb.buf, sb.len);
		strbuf_release(&sb);
	}
	free(file);
	strvec_clear(&files);
	return rc;
}

/* Parses one record's text; false when it is none. */
static bool parse(char *text, struct taskreads *r)
{
	if (strncmp(text, HEADER, strlen(HEADER)))
		return false;
	char *line = text + strlen(HEADER);
	while (*line) {
		char *nl = strchr(line, '\n');
		if (!nl)
			return false; /* torn: every line ends */
		*nl = '\0';
		if (!strncmp(line, "task ", 5) && !r->id)
			r->id = xstrdup(line + 5);
		else if (!strncmp(line, "project ", 8) && !r->project)
			r->project = xstrdup(line + 8);
		else if (!strncmp(line, "read ", 5))
			strvec_push(&r->files, line + 5);
		else
			return false;
		line = nl + 1;
	}
	return r->id && r->project;
}

static int by_id(const void *a, const void *b)
{
	return strcmp(((const struct taskreads *)a)->id, ((const struct taskreads *)b)->id);
}

void taskreads_load(const struct workspace *ws, struct taskreads_list *out)
{
	char *dir = path_join(ws->root, ".vx/reads");
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp-"))
			continue;
		char *file = path_join(dir, e->d_name);
		struct strbuf sb = STRBUF_INIT;
		struct taskreads r = {0};
		if (strbuf_read_file(&sb, file) >= 0 && parse(sb.buf, &r)) {
			strvec_sort_unique(&r.files);
			vec_push(&out->v, r);
		} else {
			taskreads_free(&r);
		}
		strbuf_release(&sb);
		free(file);
	}
	if (d)
		closedir(d);
	free(dir);
	if (out->v.n)
		qsort(out->v.v, out->v.n, sizeof *out->v.v, by_id);
}

void taskreads_free(struct taskreads *r)
{
	free(r->id);
	free(r->project);
	strvec_clear(&r->files);
}

void taskreads_list_free(struct taskreads_list *l)
{
	for (size_t i = 0; i < l->v.n; i++)
		taskreads_free(&l->v.v[i]);
	vec_free(&l->v);
}
