/* fuzz_judge.c - libFuzzer target for violations/judge.c and report.c. The
 * input is the task's output and its trace log (the first two bytes give
 * the output's length, the rest of the input after it is the log), judged
 * against a small fixed tree (a table host: judge_host.h), with every judge input set: a widened
 * directory, a grant root, an unwritten placeholder, ignores, a sandbox
 * that hides every path whose length is odd. The judge must never crash or
 * leak on either (the task writes both), and what it returns must obey the
 * header: violation paths absolute (a network peer is ADDR:PORT), every note with a kind and a
 * text, no empty fix entry; the text and JSON reports of it must build. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/path.h"
#include "util/strbuf.h"
#include "violations/judge.h"
#include "violations/report.h"

static char root[64], ws[96], app[128], home[96], log_path[128], gen[160], dist[160],
    unwritten[192];

/* The host the judge is told of: a table (judge_host.h), no file. */
static struct judge_host_table host;

static void touch(const char *rel)
{
	char *p = path_join(root, rel);
	judge_host_table_put(&host, p, JUDGE_FILE, NULL, -1);
	free(p);
}

static void cleanup(void)
{
	char *cmd = xasprintf("rm -rf '%s'", root);
	if (system(cmd)) {
	}
	free(cmd);
}

static void setup(void)
{
	if (root[0])
		return;
	strcpy(root, "/tmp/vx-fuzz-judge-XXXXXX");
	if (!mkdtemp(root))
		abort();
	atexit(cleanup);
	judge_host_table_init(&host);
	snprintf(ws, sizeof ws, "%s/ws", root);
	snprintf(app, sizeof app, "%s/app", ws);
	snprintf(home, sizeof home, "%s/home", root);
	snprintf(log_path, sizeof log_path, "%s/log", root);
	snprintf(gen, sizeof gen, "%s/gen", app);
	snprintf(dist, sizeof dist, "%s/dist", app);
	snprintf(unwritten, sizeof unwritten, "%s/gen/out", app);
	touch("ws/app/notes.txt");
	touch("ws/app/tsconfig.json");
	touch("ws/app/gen/out");
	touch("ws/app/dist/a");
	touch("ws/app/src/a.ts");
	touch("ws/shared/x.json");
	touch("ws/.git/HEAD");
	touch("home/.ssh/id_rsa");
	touch("home/notes");
	char *link = path_join(root, "ws/app/cur");
	judge_host_table_put(&host, link, JUDGE_LINK, "../shared", -1);
	free(link);
}

static bool odd_hidden(const char *path, void *ctx)
{
	(void)ctx;
	return strlen(path) % 2 == 0;
}

/* The network notes' seams, pure: a host is allowed when it holds an 'a';
 * the host listens on every even port; 8080 is relayed. */
static bool allows_some(const char *host, void *ctx)
{
	(void)ctx;
	return strchr(host, 'a') != NULL;
}

static bool even_listens(int port)
{
	return port % 2 == 0;
}

static const int relayed[] = {8080};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	if (size < 2)
		return 0;
	size_t out_len = ((size_t)data[0] << 8 | data[1]) % (size - 1);
	const char *output = (const char *)data + 2;
	const char *log = output + out_len;
	size_t log_len = size - 2 - out_len;
	FILE *f = fopen(log_path, "w");
	if (!f || fwrite(log, 1, log_len, f) != log_len || fclose(f))
		abort();
	const char *ignore_read[] = {"*.md", "~/.cache/"}, *ignore_write[] = {"tmp/"};
	const char *widened[] = {gen}, *allow_write[] = {"gen/out", "dist/"},
		   *roots[] = {dist, gen};
	const char *inputs[] = {"src/**"};
	struct sandbox_placeholder unw = {unwritten, 0, 0, {0, 0}, true};
	struct judge_input in = {
	    .project_dir = app,
	    .workspace_root = ws,
	    .home = home,
	    .tmpdir = "/nonexistent-tmp",
	    .ignore_read = ignore_read,
	    .n_ignore_read = 2,
	    .ignore_write = ignore_write,
	    .n_ignore_write = 1,
	    .cached = data[0] & 1,
	    .input_files = inputs,
	    .n_input_files = 1,
	    .inputs_explicit = data[1] & 1,
	    .widened = widened,
	    .n_widened = 1,
	    .allow_write = allow_write,
	    .n_allow_write = 2,
	    .sees = odd_hidden,
	    .write_roots = roots,
	    .n_write_roots = 2,
	    .placeholders = &unw,
	    .n_placeholders = 1,
	    .output = output,
	    .output_len = out_len,
	    .net_allowed = data[0] & 2 ? allows_some : NULL,
	    .host_listens = even_listens,
	    .relay_ports = relayed,
	    .n_relay_ports = 1,
	    .host = &host.host,
	};
	struct verdict v;
	if (judge_trace(&in, log_path, &v))
		abort(); /* the log is there: it must be read */
	for (size_t i = 0; i < v.violations.n; i++)
		if ((v.violations.v[i].path[0] != '/') !=
			(v.violations.v[i].op == VIOLATION_NETWORK) ||
		    !v.violations.v[i].syscall)
			abort();
	for (size_t i = 0; i < v.notes.n; i++) {
		/* a network note names a host or an address, never a path */
		bool net =
		    v.notes.v[i].kind && (!strcmp(v.notes.v[i].kind, "unresolved-name") ||
					  !strcmp(v.notes.v[i].kind, "refused-loopback-port"));
		if (!v.notes.v[i].kind || !v.notes.v[i].text || !*v.notes.v[i].text ||
		    (!net && v.notes.v[i].path[0] != '/') || (net && v.notes.v[i].path[0] == '/'))
			abort();
	}
	const struct strvec *fixes[] = {&v.fix_read, &v.fix_write, &v.fix_inputs};
	for (size_t k = 0; k < 3; k++)
		for (size_t i = 0; i < fixes[k]->n; i++)
			if (!fixes[k]->v[i][0])
				abort();
	struct strbuf text = STRBUF_INIT, json = STRBUF_INIT;
	report_text("app#build", "app/vx.yaml", "build", &in, &v, &text);
	struct task_report r = {.id = "app#build",
				.project = "app",
				.task = "build",
				.status = "failed",
				.cache = "miss",
				.key = "0",
				.yaml = "app/vx.yaml",
				.line = 3,
				.col = 5,
				.in = &in,
				.v = &v};
	report_json(&r, 1, &json);
	if (!json.len)
		abort();
	strbuf_release(&text);
	strbuf_release(&json);
	verdict_release(&v);
	return 0;
}
