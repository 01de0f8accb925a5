/* notes.c - the judge's notes (notes.h): what a refusal outside the
 * project, a withheld package, a grant never written, a hidden .git, the
 * task's last line and its network errors tell a person. */
#include "violations/notes.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/io.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "violations/fix.h"

bool verdict_has_note(const struct verdict *v, const char *kind, const char *path)
{
	for (size_t i = 0; i < v->notes.n; i++)
		if (!strcmp(v->notes.v[i].kind, kind) && !strcmp(v->notes.v[i].path, path))
			return true;
	return false;
}

void verdict_add_note(struct verdict *v, const char *kind, const char *path, char *text)
{
	struct judge_note n = {kind, xstrdup(path), text};
	vec_push(&v->notes, n);
}

/* A refusal outside the project: the wall working. The note says what to
 * grant, never a credential store. */
void note_outside(const struct judge_input *in, struct verdict *v, const char *path, bool write)
{
	const char *kind = write ? "refused-write-outside" : "hidden-read-outside";
	if (verdict_has_note(v, kind, path))
		return;
	char *shown = judge_display_path(in, path);
	const char *store = judge_credential_store(in, path);
	char *text;
	if (store) {
		text = xasprintf(
		    "a %s of %s was refused: it lies in ~/%s, a credential store, which vx never "
		    "grants to a task",
		    write ? "write" : "read", shown, store);
	} else if (write) {
		char *dir = path_dirname(path);
		char *entry = fix_grant_entry(in, "allow.write", dir, true);
		/* the host's /tmp is the task's own tmpfs inside: only a
		 * workspace under it, or /var/tmp, can refuse a write */
		bool shared_tmp =
		    path_is_within("/var/tmp", path) ||
		    (path_is_within("/tmp", path) && !path_is_within(in->workspace_root, path));
		text = xasprintf(
		    "a write outside the project was refused: %s; %sgrant it with %s", shown,
		    shared_tmp ? "write under $TMPDIR (the task's own temp dir) instead, or " : "",
		    entry);
		free(entry);
		free(dir);
	} else if (judge_dep_written(in, path)) {
		/* a dependency's file beside its outputs: the sandbox shows a
		 * dependency only its outputs, and a replay would not bring it */
		const struct judge_dep *d = judge_dep_of(in, path);
		char *fix = fix_dep_output(d, path);
		text =
		    xasprintf("%s was written by the dependency %s in this run and is not among "
			      "its outputs, so the sandbox hides it (and a replay of %s would not "
			      "bring it back): %s",
			      shown, d->id, d->id, fix);
		free(fix);
	} else {
		bool dir = judge_host_is_dir(in, path);
		char *entry = fix_grant_entry(in, "allow.read", path, dir);
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb,
			    "a read outside the project was refused: %s exists on the host and "
			    "the sandbox hides it; grant it with %s",
			    shown, entry);
		free(entry);
		/* A cached task's key must fold what it is granted to read, or a
		 * hit replays a build that read it unkeyed. */
		if (in->cached && path_is_within(in->workspace_root, path)) {
			char *ws_key = fix_ws_key(in, path, dir);
			char *keyed = fix_field_entry("inputs.workspaceFiles", ws_key);
			strbuf_addf(&sb, "; key it too: %s", keyed);
			free(keyed);
			free(ws_key);
		}
		text = strbuf_detach(&sb, NULL);
	}
	verdict_add_note(v, kind, path, text);
	free(shown);
}

/* A workspace package linked into node_modules that a cached task's key
 * does not fold was withheld, and the task reached for it (through the
 * link at path): one note per package, naming what the user can do. */
void note_withheld(const struct judge_input *in, struct verdict *v, const char *path,
		   const char *package)
{
	if (verdict_has_note(v, "withheld-package", package))
		return;
	char *rel = judge_display_path(in, package), *via = judge_display_path(in, path);
	bool dep = false;
	for (size_t i = 0; i < in->n_project_deps && !dep; i++)
		dep = !strcmp(in->project_deps[i], package);
	/* issue 40: the note said to add a dependency that was there */
	char *edge = dep ? xasprintf(": its project depends on it already, but the task does "
				     "not; add dependsOn: [\"^%s\"] to the task (or the task of "
				     "that package it needs)",
				     in->task ? in->task : "TASK")
			 : xstrdup("; add a dependsOn edge to it (its project in dependsOn, or a "
				   "package.json dependency)");
	verdict_add_note(
	    v, "withheld-package", package,
	    xasprintf("%s is a workspace package the task reached through %s, withheld "
		      "because the task's key does not fold that project%s, or allow.read "
		      "plus inputs.workspaceFiles",
		      rel, via, edge));
	free(edge);
	free(rel);
	free(via);
}

void note_unwritten(const struct judge_input *in, struct verdict *v)
{
	for (size_t i = 0; i < in->n_placeholders; i++) {
		const char *path = in->placeholders[i].path;
		if (!in->placeholders[i].untouched)
			continue;
		char *rel = path_relative(in->project_dir, path);
		verdict_add_note(
		    v, "unwritten-grant", path,
		    xasprintf(
			"write grant \"%s\" named nothing that existed, so vx bound an empty file "
			"there, and the task never wrote it; if %s is a directory, spell it "
			"\"%s/\"",
			rel, rel, rel));
		free(rel);
	}
}

enum { NET_TAIL = 8192 }; /* the output's end the network notes read */

/* The token after the last `marker` in the output's tail: a host, an
 * address or a port ([A-Za-z0-9._:-], trailing dots and colons dropped),
 * into out; false when there is none. *from, when not NULL, is where the
 * search starts (the marker after it is taken, and *from is moved past). */
static bool token_after(const char *out, size_t len, const char *marker, const char **from,
			char *tok, size_t cap)
{
	const char *start = from && *from ? *from : out;
	size_t mlen = strlen(marker);
	const char *hit = memmem(start, len - (size_t)(start - out), marker, mlen);
	if (!hit)
		return false;
	const char *s = hit + mlen, *end = out + len;
	size_t n = 0;
	while (s < end && n + 1 < cap && (isalnum((unsigned char)*s) || strchr("._:-[]", *s)))
		tok[n++] = *s++;
	while (n && (tok[n - 1] == '.' || tok[n - 1] == ':'))
		n--;
	tok[n] = 0;
	if (from)
		*from = s;
	return true;
}

static bool loopback_name(const char *h)
{
	return !strcmp(h, "localhost") || !strncmp(h, "127.", 4) || !strcmp(h, "::1") ||
	       !strcmp(h, "[::1]");
}

/* Is tok ("10.0.0.1", "0.0.0.0:8080", "[fd00::1]:80") an address, with or
 * without a port? Output text naming one is never turned into a grant. */
static bool address_literal(const char *tok)
{
	char host[INET6_ADDRSTRLEN + 8];
	unsigned char buf[sizeof(struct in6_addr)];
	size_t n = strlen(tok);
	if (n >= sizeof host)
		return false;
	memcpy(host, tok, n + 1);
	if (host[0] == '[') {
		char *close = strchr(host, ']');
		if (!close)
			return false;
		*close = 0;
		return inet_pton(AF_INET6, host + 1, buf) == 1;
	}
	if (inet_pton(AF_INET6, host, buf) == 1)
		return true;
	char *colon = strrchr(host, ':');
	if (colon)
		*colon = 0;
	return inet_pton(AF_INET, host, buf) == 1;
}

/* A sandboxed task has no DNS: a client that resolves a name itself, not
 * through its proxy, fails with ENOTFOUND / EAI_AGAIN / "Could not resolve
 * host". The note names the host, the grant, and whether the client just
 * did not use the proxy. It is words for a person, never fix data: the
 * output is the task's own text, and a task that prints a host must not
 * have it granted (issue 53: `ENOTFOUND 169.254.169.254` was learned). An
 * address in the text gets no grant at all, not even in words: a name
 * resolves through the proxy, an address names a place (loopback, a
 * private network, the metadata service) that a grant would open. */
/* The note on a name that did not resolve, as the task's output says it
 * or as the trace saw its query (traced): words for a person, never fix
 * data. */
void note_name(const struct judge_input *in, struct verdict *v, const char *host, bool traced)
{
	if (verdict_has_note(v, "unresolved-name", host))
		return;
	bool allowed = in->net_allowed && in->net_allowed(host, in->net_ctx);
	const char *says = traced ? "the task looked %s up itself"
				  : "the task's output says %s "
				    "did not resolve";
	struct strbuf sb = STRBUF_INIT;
	if (address_literal(host))
		strbuf_addf(&sb,
			    "the task's %s %s, an address, as not resolving: vx grants no "
			    "address from a task's output or queries (a sandboxed task has no "
			    "DNS and reaches a host only through its proxy, by name)",
			    traced ? "query names" : "output names", host);
	else if (allowed) {
		strbuf_addf(&sb, says, host);
		strbuf_addstr(&sb,
			      ", and allow.network allows it: this client resolves names "
			      "itself and does not use the proxy (a sandboxed task has no DNS; "
			      "HTTP_PROXY and HTTPS_PROXY name the proxy, and Node's fetch "
			      "needs Node 22.21+ or 24 for NODE_USE_ENV_PROXY)");
	} else {
		char *entry = fix_field_entry("allow.network", host);
		strbuf_addf(&sb, says, host);
		strbuf_addf(&sb,
			    ": a sandboxed task has no DNS and reaches a host only through its "
			    "proxy; if it should reach it, grant it with %s",
			    entry);
		free(entry);
	}
	verdict_add_note(v, "unresolved-name", host, strbuf_detach(&sb, NULL));
}

static void note_unresolved(const struct judge_input *in, const char *out, size_t len,
			    struct verdict *v)
{
	static const char *const named[] = {"getaddrinfo ENOTFOUND ",
					    "getaddrinfo EAI_AGAIN ",
					    "Could not resolve host: ",
					    "ENOTFOUND ",
					    "EAI_AGAIN ",
					    NULL};
	static const char *const unnamed[] = {"Temporary failure in name resolution",
					      "Name or service not known", "getaddrinfo", NULL};
	char host[256];
	bool any = false;
	for (const char *const *m = named; *m && !any; m++) {
		for (const char *from = NULL;
		     token_after(out, len, *m, &from, host, sizeof host);) {
			if (!*host || loopback_name(host) || !strchr(host, '.'))
				continue;
			any = true;
			note_name(in, v, host, false);
		}
	}
	for (const char *const *m = unnamed; *m && !any; m++)
		if (memmem(out, len, *m, strlen(*m)) &&
		    !verdict_has_note(v, "unresolved-name", "")) {
			any = true;
			verdict_add_note(
			    v, "unresolved-name", "",
			    xstrdup("the task's output says a name did not resolve: a sandboxed "
				    "task has no DNS and reaches a host only through its proxy; "
				    "name the host in allow.network, and use a client that reads "
				    "HTTP_PROXY / HTTPS_PROXY"));
		}
}

/* "127.0.0.1:5173", "[::1]:5173", "localhost:5173", "::1:5173": the
 * loopback port, or 0. */
static int loopback_port(const char *tok)
{
	const char *colon = strrchr(tok, ':');
	if (!colon || colon == tok)
		return 0;
	char host[64];
	size_t hn = (size_t)(colon - tok);
	if (hn >= sizeof host)
		return 0;
	memcpy(host, tok, hn);
	host[hn] = 0;
	char *end;
	long port = strtol(colon + 1, &end, 10);
	if (*end || port < 1 || port > 65535 || !loopback_name(host))
		return 0;
	return (int)port;
}

/* A loopback port refused the task (`ECONNREFUSED 127.0.0.1:5173`, curl's
 * `Failed to connect to localhost port 5173`, Chrome's
 * `ERR_CONNECTION_REFUSED`) while the host listens there: the task has its
 * own loopback, and the host's service needs a relay. */
static void note_refused_port(const struct judge_input *in, const char *out, size_t len,
			      struct verdict *v)
{
	if (!in->host_listens)
		return;
	VEC(int) ports = {0};
	char tok[128];
	for (const char *from = NULL;
	     token_after(out, len, "ECONNREFUSED ", &from, tok, sizeof tok);)
		vec_push(&ports, loopback_port(tok));
	for (const char *from = NULL;
	     token_after(out, len, "Failed to connect to ", &from, tok, sizeof tok);) {
		char port[16];
		const char *p = from;
		if (loopback_name(tok) && token_after(out, len, " port ", &p, port, sizeof port) &&
		    p - from < 24)
			vec_push(&ports, atoi(port));
	}
	for (const char *from = NULL;
	     token_after(out, len, "ERR_CONNECTION_REFUSED", &from, tok, sizeof tok);) {
		/* the URL stands on the same line, before or after */
		const char *ls = from, *le = from;
		while (ls > out && ls[-1] != '\n')
			ls--;
		while (le < out + len && *le != '\n')
			le++;
		for (const char *const *h =
			 (const char *const[]){"localhost:", "127.0.0.1:", "[::1]:", NULL};
		     *h; h++) {
			const char *f = ls;
			char port[16];
			if (token_after(ls, (size_t)(le - ls), *h, &f, port, sizeof port))
				vec_push(&ports, atoi(port));
		}
	}
	for (size_t i = 0; i < ports.n; i++) {
		int port = ports.v[i];
		bool granted = port <= 0;
		for (size_t k = 0; k < in->n_relay_ports && !granted; k++)
			granted = in->relay_ports[k] == port;
		for (size_t k = 0; k < in->n_bound_ports && !granted; k++)
			granted = in->bound_ports[k] == port;
		char where[32];
		snprintf(where, sizeof where, "127.0.0.1:%d", port);
		if (granted || verdict_has_note(v, "refused-loopback-port", where) ||
		    !in->host_listens(port))
			continue;
		verdict_add_note(
		    v, "refused-loopback-port", where,
		    xasprintf("the task's output says localhost port %d refused it; the host "
			      "listens there, but a sandboxed task has a loopback of its own: "
			      "relay the host's port in with allow.network: [\"localhost:%d\"]",
			      port, port));
	}
	vec_free(&ports);
}

/* What a failed task's output says about the network. */
void note_network(const struct judge_input *in, struct verdict *v)
{
	if (!in->output || !in->output_len)
		return;
	size_t len = in->output_len < NET_TAIL ? in->output_len : NET_TAIL;
	const char *out = in->output + in->output_len - len;
	note_unresolved(in, out, len, v);
	note_refused_port(in, out, len, v);
}

/* The last line of the output that holds anything but blanks. */
static const char *last_line(const char *out, size_t len, size_t *n)
{
	while (len && (out[len - 1] == '\n' || out[len - 1] == '\r' || out[len - 1] == ' ' ||
		       out[len - 1] == '\t'))
		len--;
	size_t start = len;
	while (start && out[start - 1] != '\n')
		start--;
	*n = len - start;
	return out + start;
}

/* git says "not a git repository" when the sandbox hid .git: the nearest
 * one above the project is walled on purpose when it is the workspace's
 * (a task must not read or rewrite what vx cannot key), else it needs a
 * grant. No .git anywhere above, or one the task saw: not the sandbox. */
void note_git(const struct judge_input *in, struct verdict *v)
{
	if (!in->output || !memmem(in->output, in->output_len, "not a git repository", 20))
		return;
	char *dir = xstrdup(in->project_dir), *git = NULL;
	for (;;) {
		char *cand = path_join(dir, ".git");
		if (judge_on_host(in, cand)) {
			git = cand;
			break;
		}
		free(cand);
		if (!strcmp(dir, "/"))
			break;
		char *up = path_dirname(dir);
		free(dir);
		dir = up;
	}
	free(dir);
	if (!git)
		return;
	char *shown = judge_display_path(in, git);
	if (path_is_within(in->workspace_root, git)) {
		verdict_add_note(
		    v, "not-a-git-repository", git,
		    xasprintf("git found no repository: %s is walled on purpose (a sandboxed "
			      "task must not "
			      "read or rewrite the repository, whose state vx cannot key); "
			      "pass what the task "
			      "needs from git through env, or run it without sandbox:",
			      shown));
	} else if (in->sees && !in->sees(git, in->sees_ctx)) {
		char *entry = fix_grant_entry(in, "allow.read", git, true);
		verdict_add_note(
		    v, "not-a-git-repository", git,
		    xasprintf("git found no repository: the sandbox hides %s; grant it with %s",
			      shown, entry));
		free(entry);
	}
	free(shown);
	free(git);
}

#define LAST_LINE_MAX 4096
#define LAST_LINE_WORDS 64

/* A tool that probes with stat (which the trace does not see) and then
 * names the path it missed in its last line, as tsc's TS5058 does: each
 * word of that line that is a path existing on the host and hidden in the
 * sandbox gets a note with its grant. */
void note_last_line(const struct judge_input *in, struct verdict *v)
{
	if (!in->output || !in->sees)
		return;
	size_t n;
	const char *line = last_line(in->output, in->output_len, &n);
	/* The task writes this line: bound what it can make vx look up. */
	if (n > LAST_LINE_MAX)
		n = LAST_LINE_MAX;
	char *copy = xstrndup(line, n), *save = NULL;
	int words = 0;
	for (char *w = strtok_r(copy, " \t\"'`()[]{},;", &save); w && words++ < LAST_LINE_WORDS;
	     w = strtok_r(NULL, " \t\"'`()[]{},;", &save)) {
		size_t len = strlen(w);
		while (len && strchr(".:!?", w[len - 1]))
			w[--len] = 0;
		if (!len || strstr(w, "://") || (!strchr(w, '/') && !strchr(w, '.')) ||
		    !strcmp(w, ".") || !strcmp(w, ".."))
			continue;
		char *abs = w[0] == '/' ? path_normalize(w) : path_join(in->project_dir, w);
		char *real = judge_host_resolve(in, abs);
		const char *p = real ? real : abs;
		if (judge_on_host(in, p) && !in->sees(p, in->sees_ctx) &&
		    !judge_credential_store(in, p) &&
		    !verdict_has_note(v, "hidden-path-in-output", p)) {
			bool listed = false;
			for (size_t i = 0; i < v->violations.n && !listed; i++)
				listed = !strcmp(v->violations.v[i].path, p);
			if (!listed) {
				char *shown = judge_display_path(in, p);
				char *entry =
				    fix_grant_entry(in, "allow.read", p, judge_host_is_dir(in, p));
				verdict_add_note(
				    v, "hidden-path-in-output", p,
				    xasprintf("the task's last line names %s, which exists on "
					      "the host and the sandbox hides (a lookup the "
					      "trace cannot see, such as stat); grant it with %s",
					      shown, entry));
				free(entry);
				free(shown);
			}
		}
		free(real);
		free(abs);
	}
	free(copy);
}

/* The config note for path, once. */
void note_config(const struct judge_input *in, struct verdict *out, const char *path)
{
	if (verdict_has_note(out, "config", path))
		return;
	char *shown = judge_display_path(in, path);
	verdict_add_note(
	    out, "config", path,
	    xasprintf("%s decides what vx runs: a sandboxed task writes it only when a "
		      "write grant names that very file, and `vx watch` never plans from "
		      "what a task wrote",
		      shown));
	free(shown);
}

void judge_output(const struct judge_input *in, struct verdict *out)
{
	memset(out, 0, sizeof *out);
	note_git(in, out);
	note_last_line(in, out);
	note_network(in, out);
}

/* The package in the output's registry URL ("GET https://registry.npmjs.org/
 * @tailwindcss%2fcli", ".../cowsay/-/cowsay-1.6.0.tgz") into pkg, or "". A
 * name as npm allows one: lower case, '@scope/name' at most. */
static void registry_package(const char *out, size_t len, const char *host, char *pkg, size_t size)
{
	*pkg = 0;
	size_t hl = strlen(host);
	for (const char *s = out; (s = memmem(s, len - (size_t)(s - out), host, hl)) != NULL;
	     s += hl) {
		const char *p = s + hl, *e = out + len;
		if (p >= e || *p != '/')
			continue;
		p++;
		size_t n = 0;
		bool ok = true;
		while (p < e && n + 1 < size && ok) {
			char c = *p;
			if (c == '%' && e - p >= 3 &&
			    (!strncasecmp(p, "%2f", 3) || !strncmp(p, "%40", 3))) {
				c = p[1] == '4' ? '@' : '/';
				p += 3;
			} else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
				   c == '.' || c == '_' || c == '@' || c == '/') {
				p++;
			} else {
				break;
			}
			if (c == '/' && (pkg[0] != '@' || strchr(pkg, '/')))
				break; /* "name/-/name-1.0.0.tgz", "@scope/name/-/…" */
			pkg[n++] = c;
			pkg[n] = 0;
		}
		ok = n && (pkg[0] != '@' || (strchr(pkg, '/') && pkg[n - 1] != '/')) &&
		     strchr(pkg + 1, '@') == NULL && pkg[0] != '.';
		if (ok)
			return;
		*pkg = 0;
	}
}

void judge_installs(const struct judge_input *in, struct verdict *out)
{
	static const char *const registries[] = {"registry.npmjs.org", "registry.yarnpkg.com",
						 NULL};
	const char *registry = NULL;
	for (size_t i = 0; i < out->fix_network.n && !registry; i++)
		for (const char *const *r = registries; *r && !registry; r++)
			if (!strcmp(out->fix_network.v[i], *r))
				registry = *r;
	if (!registry)
		return;
	/* npx (npm's npx-cli.js) and bunx by what ran; pnpm dlx and yarn dlx
	 * by the word in the output, which can only take a grant away */
	bool installer = false;
	for (size_t i = 0; i < out->execs.n && !installer; i++) {
		const char *b = strrchr(out->execs.v[i], '/');
		b = b ? b + 1 : out->execs.v[i];
		installer = !strcmp(b, "npx-cli.js") || !strcmp(b, "npx") || !strcmp(b, "bunx");
	}
	size_t len = in->output ? in->output_len : 0;
	for (const char *const *w = (const char *const[]){"npx ", " dlx ", "bunx ", NULL};
	     *w && !installer && len; w++)
		installer = memmem(in->output, len, *w, strlen(*w)) != NULL;
	if (!installer)
		return;
	char pkg[215];
	registry_package(len ? in->output : "", len, registry, pkg, sizeof pkg);
	size_t keep = 0;
	for (size_t i = 0; i < out->fix_network.n; i++) {
		bool reg = false;
		for (const char *const *r = registries; *r && !reg; r++)
			reg = !strcmp(out->fix_network.v[i], *r);
		if (reg)
			free(out->fix_network.v[i]);
		else
			out->fix_network.v[keep++] = out->fix_network.v[i];
	}
	out->fix_network.n = keep;
	if (out->fix_network.v)
		out->fix_network.v[keep] = NULL;
	const char *name = *pkg ? pkg : "a package";
	verdict_add_note(
	    out, "installs-at-build", pkg,
	    xasprintf("the task installs %s from the npm registry as it runs (npx, pnpm dlx, "
		      "yarn dlx or bunx): add it to the project's devDependencies (npm "
		      "install -D %s, or your package manager's add) so it is installed "
		      "before the build and its version is in the lockfile; a registry "
		      "grant would make the build fetch whatever the registry serves that "
		      "day",
		      name, *pkg ? pkg : "PACKAGE"));
}
