/* judge.c - which refused accesses are violations.
 *
 * A refusal counts when the sandbox caused it and the task's project is
 * where it happened: EACCES, EPERM or EROFS always; ENOENT only when the
 * path exists on the host (the sandbox hid it — a missing file is the
 * task's own business). Refusals outside the project are the wall working:
 * notes, never violations. Every distinct (read or write, path) is judged
 * once. */
#include "violations/judge.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox/config_names.h"
#include "sandbox/denies.h"
#include "sandbox/walls.h"
#include "util/glob.h"
#include "util/io.h"
#include "util/path.h"
#include "util/strbuf.h"
#include "util/strmap.h"
#include "violations/strace.h"

static bool under(const char *dir, const char *path)
{
	return dir && *dir && path_is_within(dir, path);
}

/* The path macOS reports under /private (/private/tmp/x) as its user
 * writes it (/tmp/x), or NULL when it is no such path. */
static const char *unprivate(const char *path)
{
	static const char *const links[] = {"/tmp", "/var", "/etc"};
	if (strncmp(path, "/private/", 9))
		return NULL;
	for (size_t i = 0; i < sizeof links / sizeof *links; i++)
		if (path_is_within(links[i], path + 8))
			return path + 8;
	return NULL;
}

/* An ignore glob: relative ones are anchored at the project, "~/" at home.
 * A path macOS spells under /private is matched as written too: an ignore
 * says /tmp/cache, as on Linux, and a Seatbelt record /private/tmp/cache. */
static bool ignored(const struct judge_input *in, const char *const *globs, size_t n,
		    const char *path)
{
	const char *alt = unprivate(path);
	if (alt && ignored(in, globs, n, alt))
		return true;
	for (size_t i = 0; i < n; i++) {
		const char *g = globs[i];
		char *abs;
		if (g[0] == '~' && (g[1] == '/' || !g[1]))
			abs = in->home ? path_join(in->home, g[1] ? g + 2 : ".") : NULL;
		else
			abs = path_join(in->project_dir, g);
		if (!abs)
			continue;
		/* A trailing '/' names a directory and all below it. */
		size_t len = strlen(g);
		bool hit = glob_match(abs + 1, path + 1) ||
			   ((len && g[len - 1] == '/') && path_is_within(abs, path));
		if (!hit && !glob_has_magic(g))
			hit = path_is_within(abs, path);
		free(abs);
		if (hit)
			return true;
	}
	return false;
}

static bool exists_on_host(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/* Does the sandbox show path? Binds keep host paths, so a path through a
 * host link shows when the link's target does (a linked package in a
 * node_modules bound read-only is hidden when its target is). */
static bool shown_inside(const struct judge_input *in, const char *path)
{
	if (!in->sees)
		return false;
	char *real = realpath(path, NULL);
	bool r = in->sees(path, in->sees_ctx) && (!real || in->sees(real, in->sees_ctx));
	free(real);
	return r;
}

char *judge_display_path(const struct judge_input *in, const char *path)
{
	if (in->workspace_root && path_is_within(in->workspace_root, path))
		return path_relative(in->workspace_root, path);
	if (in->home && *in->home && strcmp(in->home, "/") && path_is_within(in->home, path)) {
		char *rel = path_relative(in->home, path);
		char *out = xasprintf("~/%s", rel);
		free(rel);
		return out;
	}
	return xstrdup(path);
}

/* The credential store under home that holds path, or NULL. */
static const char *credential_store(const struct judge_input *in, const char *path)
{
	if (!in->home || !*in->home)
		return NULL;
	for (const char *const *c = walls_credentials; *c; c++) {
		char *store = path_join(in->home, *c);
		bool hit = path_is_within(store, path);
		free(store);
		if (hit)
			return *c;
	}
	return NULL;
}

/* text escaped for the config grammar (issue 53 item 3: a project file
 * named `${HOME}` was learned as `write: ["${HOME}"]`, which the next load
 * expands to home): with glob, each of `*?[]{}\` and '!' (a list's
 * exclusion) after a backslash, which makes "${" "$\{", no variable;
 * without, "${" as "$${" (the loader's literal); base_from, when not NULL, is where a tail already
 * spelled as a pattern begins (stable_target's '*'), copied as it is. */
static void spell_escaped(struct strbuf *sb, const char *text, bool glob, const char *base_from)
{
	for (const char *c = text; *c; c++) {
		if (base_from && c == base_from) {
			strbuf_addstr(sb, c);
			return;
		}
		if (!glob && c[0] == '$' && c[1] == '{')
			strbuf_addch(sb, '$');
		else if (glob && strchr("*?[]{}\\!", *c))
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, *c);
	}
}

/* text as a glob entry of the config (inputs, ignore): escaped. */
static char *spell_glob(const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	spell_escaped(&sb, text, true, NULL);
	return strbuf_detach(&sb, NULL);
}

/* path as an inputs.workspaceFiles entry: workspace-relative, a directory
 * as all under it. */
static char *ws_key_entry(const struct judge_input *in, const char *path, bool dir)
{
	char *rel = path_relative(in->workspace_root, path);
	char *spelled = spell_glob(rel);
	free(rel);
	if (!dir)
		return spelled;
	char *all = xasprintf("%s/**", spelled);
	free(spelled);
	return all;
}

/* An allow entry for a path, spelled as SPEC §4 says a committed vx.yaml
 * spells it: "~/..." under home, relative to the project inside the
 * workspace, else absolute; a directory ends in '/'; escaped, so that it
 * loads back as this very path (a relative name starting with '~' as
 * "./~..."). pattern_from, when not NULL, points into path where a tail
 * already spelled as a pattern begins. */
static char *grant_spelling_from(const struct judge_input *in, const char *path, bool dir,
				 const char *pattern_from)
{
	struct strbuf sb = STRBUF_INIT;
	char *rel = NULL;
	const char *text = path;
	if (in->home && *in->home && strcmp(in->home, "/") && path_is_within(in->home, path) &&
	    !path_is_within(in->workspace_root, path)) {
		rel = path_relative(in->home, path);
		strbuf_addch(&sb, '~');
		if (strcmp(rel, "."))
			strbuf_addch(&sb, '/');
		text = strcmp(rel, ".") ? rel : "";
		pattern_from = pattern_from ? rel + strlen(rel) - strlen(pattern_from) : NULL;
	} else if (path_is_within(in->workspace_root, path)) {
		rel = path_relative(in->project_dir, path);
		if (rel[0] == '~')
			strbuf_addstr(&sb, "./");
		text = rel;
		pattern_from = pattern_from ? rel + strlen(rel) - strlen(pattern_from) : NULL;
	}
	spell_escaped(&sb, text, true, pattern_from);
	free(rel);
	if (dir && (!sb.len || sb.buf[sb.len - 1] != '/'))
		strbuf_addch(&sb, '/');
	return strbuf_detach(&sb, NULL);
}

static char *grant_spelling(const struct judge_input *in, const char *path, bool dir)
{
	return grant_spelling_from(in, path, dir, NULL);
}

/* The allow entry that grants a violation's path inside the project: a
 * write grants its directory (a file grant is widened to it anyway). */
/* Is the n bytes at s a name piece that changes from run to run: a content
 * hash (8+ hex digits with a digit), a number of 4+ digits (a pid, a time),
 * or a random token (letters and 2+ digits, a letter after a digit: "x7f3",
 * not "es2020")? */
static bool is_token(const char *s, size_t n)
{
	size_t hex = 0, digits = 0, letters = 0;
	bool letter_after_digit = false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		bool d = c >= '0' && c <= '9', l = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
		if (!d && !l)
			return false;
		hex += d || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
		digits += d;
		letters += l;
		letter_after_digit |= l && digits;
	}
	return (n >= 8 && hex == n && digits) || (n >= 4 && digits == n) ||
	       (n >= 4 && digits >= 2 && letters && letter_after_digit);
}

/* The fix for a path, made to hold on the next run too: a directory that is
 * a token (node_modules/.vite/vitest/da39a3ee.../results.json) is cut to
 * the stable directory above it, and a token inside the file name
 * (tsup.config.bundled_x7f3.mjs) becomes '*' (a write glob is a valid grant
 * for files not made yet). Only the directories from `from` on are looked
 * at (below the project: the workspace's own path is no token). Returns the
 * path to spell, and sets *dir when it names a directory; *pattern_at is
 * where its name, then a pattern (escaped), begins, else SIZE_MAX. Issue 11. */
static char *stable_target(const char *path, const char *from, bool *dir, size_t *pattern_at)
{
	*pattern_at = SIZE_MAX;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	for (const char *s = from; s < base;) {
		const char *e = strchr(s, '/');
		if (is_token(s, (size_t)(e - s))) {
			*dir = true;
			return xstrndup(path, (size_t)(s - path - 1));
		}
		s = e + 1;
	}
	struct strbuf sb = STRBUF_INIT;
	strbuf_add(&sb, path, (size_t)(base - path));
	bool any = false;
	for (const char *s = base, *prev = NULL; *s;) {
		size_t n = strcspn(s, "._-");
		/* esbuild-based config loaders name their temp file
		 * NAME.bundled_RANDOM.mjs, RANDOM of any shape
		 * ("mwlf4twlnq": issue 54 item 6, learned literally) */
		bool bundled = prev && !strncmp(prev, "bundled_", 8) && prev + 8 == s;
		prev = s;
		if (n && (is_token(s, n) || bundled)) {
			strbuf_addch(&sb, '*');
			any = true;
		} else {
			char *piece = xstrndup(s, n);
			spell_escaped(&sb, piece, true, NULL);
			free(piece);
		}
		s += n;
		if (*s)
			strbuf_addch(&sb, *s++);
	}
	if (!any) {
		strbuf_release(&sb);
		return xstrdup(path);
	}
	*pattern_at = (size_t)(base - path);
	return strbuf_detach(&sb, NULL);
}

static char *fix_entry(const struct judge_input *in, const char *path, bool write, bool makes_dir)
{
	bool dir = false;
	size_t len = strlen(path);
	const char *from = path + len; /* outside the workspace: the name only */
	if (under(in->project_dir, path) && strlen(in->project_dir) < len)
		from = path + strlen(in->project_dir) + 1;
	else if (under(in->workspace_root, path) && strlen(in->workspace_root) < len)
		from = path + strlen(in->workspace_root) + 1;
	size_t pattern_at;
	char *stable = stable_target(path, from, &dir, &pattern_at);
	bool changed = strcmp(stable, path) != 0;
	/* A write grants its directory, but one in the project's own root
	 * would be `./`, all of it: a file there (eslint's .eslintcache, a
	 * tsbuildinfo), there already or not made yet (the write was
	 * refused: issue 40, `write: ["./"]` for eslint's first cache), is
	 * granted by name. */
	struct stat st;
	char *parent = path_dirname(path);
	bool by_name = write && !makes_dir && (lstat(path, &st) || S_ISREG(st.st_mode)) &&
		       !strcmp(parent, in->project_dir);
	free(parent);
	/* A refused mkdir (next's .next, a first dist/) asks for that very
	 * directory, not its parent: `./` would open the whole project. */
	if (write && makes_dir && !changed)
		dir = by_name = true;
	char *target = changed || !write || by_name ? stable : path_dirname(stable);
	if (target != stable)
		free(stable);
	char *out = grant_spelling_from(
	    in, target, dir || (!changed && !by_name && (write || fs_is_dir(target))),
	    target == stable && pattern_at != SIZE_MAX ? target + pattern_at : NULL);
	free(target);
	return out;
}

static bool has_note(const struct verdict *v, const char *kind, const char *path)
{
	for (size_t i = 0; i < v->notes.n; i++)
		if (!strcmp(v->notes.v[i].kind, kind) && !strcmp(v->notes.v[i].path, path))
			return true;
	return false;
}

static void add_note(struct verdict *v, const char *kind, const char *path, char *text)
{
	struct judge_note n = {kind, xstrdup(path), text};
	vec_push(&v->notes, n);
}

/* The dependency whose project holds path (the deepest), or NULL. */
static const struct judge_dep *dep_of(const struct judge_input *in, const char *path)
{
	const struct judge_dep *best = NULL;
	for (size_t i = 0; i < in->n_deps; i++)
		if (under(in->deps[i].dir, path) &&
		    (!best || strlen(in->deps[i].dir) > strlen(best->dir)))
			best = &in->deps[i];
	return best;
}

/* path is a regular file a dependency wrote in this run (newer than the
 * run's start): one its outputs should name. */
static bool dep_written(const struct judge_input *in, const char *path)
{
	struct stat st;
	return in->run_started && dep_of(in, path) && !stat(path, &st) && S_ISREG(st.st_mode) &&
	       st.st_mtime >= in->run_started;
}

/* A refusal outside the project: the wall working. The note says what to
 * grant, never a credential store. */
static void note_outside(const struct judge_input *in, struct verdict *v, const char *path,
			 bool write)
{
	const char *kind = write ? "refused-write-outside" : "hidden-read-outside";
	if (has_note(v, kind, path))
		return;
	char *shown = judge_display_path(in, path);
	const char *store = credential_store(in, path);
	char *text;
	if (store) {
		text = xasprintf(
		    "a %s of %s was refused: it lies in ~/%s, a credential store, which vx never "
		    "grants to a task",
		    write ? "write" : "read", shown, store);
	} else if (write) {
		char *dir = path_dirname(path);
		char *grant = grant_spelling(in, dir, true);
		/* the host's /tmp is the task's own tmpfs inside: only a
		 * workspace under it, or /var/tmp, can refuse a write */
		bool shared_tmp =
		    path_is_within("/var/tmp", path) ||
		    (path_is_within("/tmp", path) && !path_is_within(in->workspace_root, path));
		text = xasprintf(
		    "a write outside the project was refused: %s; %sgrant it with "
		    "allow.write: [\"%s\"]",
		    shown,
		    shared_tmp ? "write under $TMPDIR (the task's own temp dir) instead, or " : "",
		    grant);
		free(grant);
		free(dir);
	} else if (dep_written(in, path)) {
		/* a dependency's file beside its outputs: the sandbox shows a
		 * dependency only its outputs, and a replay would not bring it */
		const struct judge_dep *d = dep_of(in, path);
		char *rel = path_relative(d->dir, path);
		text =
		    xasprintf("%s was written by the dependency %s in this run and is not among "
			      "its outputs, so the sandbox hides it (and a replay of %s would not "
			      "bring it back): add to %s tasks.%s.outputs: [\"%s\"]",
			      shown, d->id, d->id, d->config, d->task, rel);
		free(rel);
	} else {
		char *grant = grant_spelling(in, path, fs_is_dir(path));
		/* A cached task's key must fold what it is granted to read, or a
		 * hit replays a build that read it unkeyed. */
		char *key = NULL;
		if (in->cached && path_is_within(in->workspace_root, path))
			key =
			    fs_is_dir(path)
				? xasprintf("; key it too: inputs.workspaceFiles: [\"%s/**\"]",
					    shown)
				: xasprintf("; key it too: inputs.workspaceFiles: [\"%s\"]", shown);
		text = xasprintf(
		    "a read outside the project was refused: %s exists on the host and the sandbox "
		    "hides it; grant it with allow.read: [\"%s\"]%s",
		    shown, grant, key ? key : "");
		free(key);
		free(grant);
	}
	add_note(v, kind, path, text);
	free(shown);
}

/* A workspace package linked into node_modules that a cached task's key
 * does not fold was withheld, and the task reached for it (through the
 * link at path): one note per package, naming what the user can do. */
static void note_withheld(const struct judge_input *in, struct verdict *v, const char *path,
			  const char *package)
{
	if (has_note(v, "withheld-package", package))
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
	add_note(v, "withheld-package", package,
		 xasprintf("%s is a workspace package the task reached through %s, withheld "
			   "because the task's key does not fold that project%s, or allow.read "
			   "plus inputs.workspaceFiles",
			   rel, via, edge));
	free(edge);
	free(rel);
	free(via);
}

static bool is_write_root(const struct judge_input *in, const char *path)
{
	for (size_t i = 0; i < in->n_write_roots; i++)
		if (!strcmp(in->write_roots[i], path))
			return true;
	return false;
}

static void note_unwritten(const struct judge_input *in, struct verdict *v)
{
	for (size_t i = 0; i < in->n_unwritten; i++) {
		char *rel = path_relative(in->project_dir, in->unwritten[i]);
		add_note(
		    v, "unwritten-grant", in->unwritten[i],
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
static void note_name(const struct judge_input *in, struct verdict *v, const char *host,
		      bool traced)
{
	if (has_note(v, "unresolved-name", host))
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
		strbuf_addf(&sb, says, host);
		strbuf_addf(&sb,
			    ": a sandboxed task has no DNS and reaches a host only through its "
			    "proxy; if it should reach it, grant it with allow.network: [\"%s\"]",
			    host);
	}
	add_note(v, "unresolved-name", host, strbuf_detach(&sb, NULL));
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
		if (memmem(out, len, *m, strlen(*m)) && !has_note(v, "unresolved-name", "")) {
			any = true;
			add_note(
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
		for (size_t k = 0; k < in->n_net_ports && !granted; k++)
			granted = in->net_ports[k] == port;
		char where[32];
		snprintf(where, sizeof where, "127.0.0.1:%d", port);
		if (granted || has_note(v, "refused-loopback-port", where) ||
		    !in->host_listens(port))
			continue;
		add_note(
		    v, "refused-loopback-port", where,
		    xasprintf("the task's output says localhost port %d refused it; the host "
			      "listens there, but a sandboxed task has a loopback of its own: "
			      "relay the host's port in with allow.network: [\"localhost:%d\"]",
			      port, port));
	}
	vec_free(&ports);
}

/* What a failed task's output says about the network. */
static void note_network(const struct judge_input *in, struct verdict *v)
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
static void note_git(const struct judge_input *in, struct verdict *v)
{
	if (!in->output || !memmem(in->output, in->output_len, "not a git repository", 20))
		return;
	char *dir = xstrdup(in->project_dir), *git = NULL;
	for (;;) {
		char *cand = path_join(dir, ".git");
		if (exists_on_host(cand)) {
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
		add_note(v, "not-a-git-repository", git,
			 xasprintf("git found no repository: %s is walled on purpose (a sandboxed "
				   "task must not "
				   "read or rewrite the repository, whose state vx cannot key); "
				   "pass what the task "
				   "needs from git through env, or run it without sandbox:",
				   shown));
	} else if (in->sees && !in->sees(git, in->sees_ctx)) {
		char *grant = grant_spelling(in, git, true);
		add_note(v, "not-a-git-repository", git,
			 xasprintf("git found no repository: the sandbox hides %s; grant it with "
				   "allow.read: [\"%s\"]",
				   shown, grant));
		free(grant);
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
static void note_last_line(const struct judge_input *in, struct verdict *v)
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
		char *real = realpath(abs, NULL);
		const char *p = real ? real : abs;
		if (exists_on_host(p) && !in->sees(p, in->sees_ctx) && !credential_store(in, p) &&
		    !has_note(v, "hidden-path-in-output", p)) {
			bool listed = false;
			for (size_t i = 0; i < v->violations.n && !listed; i++)
				listed = !strcmp(v->violations.v[i].path, p);
			if (!listed) {
				char *shown = judge_display_path(in, p);
				char *grant = grant_spelling(in, p, fs_is_dir(p));
				add_note(v, "hidden-path-in-output", p,
					 xasprintf("the task's last line names %s, which exists on "
						   "the host and "
						   "the sandbox hides (a lookup the trace cannot "
						   "see, such as stat); "
						   "grant it with allow.read: [\"%s\"]",
						   shown, grant));
				free(grant);
				free(shown);
			}
		}
		free(real);
		free(abs);
	}
	free(copy);
}

bool judge_network_ignored(const struct judge_input *in, const char *target)
{
	const char *colon = strrchr(target, ':');
	char *host = xstrndup(target, colon ? (size_t)(colon - target) : strlen(target));
	bool quiet = false;
	for (size_t i = 0; i < in->n_ignore_network && !quiet; i++)
		quiet = glob_match(in->ignore_network[i], target) ||
			glob_match(in->ignore_network[i], host);
	free(host);
	return quiet;
}

/* A connection the sandbox refused: its network namespace has no route out
 * (ENETUNREACH, EHOSTUNREACH), or a filter said no. Loopback is the task's
 * own (a test server it started), and a refused loopback port is its own
 * business. ignore.network globs match "ADDR:PORT" or "ADDR". */
static bool network_refused(const struct judge_input *in, const struct access_event *e)
{
	if (e->err != ENETUNREACH && e->err != EHOSTUNREACH && e->err != EACCES &&
	    e->err != EPERM && e->err != ENETDOWN)
		return false;
	if (!strncmp(e->path, "127.", 4) || !strncmp(e->path, "[::1]:", 6) ||
	    !strncmp(e->path, "[::ffff:127.", 12))
		return false;
	return !judge_network_ignored(in, e->path);
}

/* What was reported already, by kind and path ("w/x", "u/x", "n"): each
 * once. The map looks up, the vector owns the keys (they never move). */
struct seen {
	struct strmap map;
	struct strvec keys;
};

/* Takes key: true the first time it is seen. */
static bool seen_first(struct seen *s, char *key)
{
	size_t at;
	if (strmap_get(&s->map, key, &at)) {
		free(key);
		return false;
	}
	strvec_push_nodup(&s->keys, key);
	strmap_put(&s->map, key, 0);
	return true;
}

static void seen_clear(struct seen *s)
{
	strmap_clear(&s->map);
	strvec_clear(&s->keys);
}

/* A write that succeeded in a widened dir, on a path no allow.write entry
 * names, that left something behind: made and not removed again, or a file
 * that was there before removed. Each path once (seen). */
static bool widened_write(const struct judge_input *in, const struct access_event *e,
			  const struct strmap *made, const struct strmap *gone, struct seen *seen)
{
	if (!(e->write_intent || e->op == ACCESS_RENAME_FROM) || e->op == ACCESS_UTIME ||
	    e->op == ACCESS_PROBE_WRITE)
		return false;
	bool held = false;
	for (size_t i = 0; i < in->n_widened && !held; i++)
		held = path_is_within(in->widened[i], e->path) && strcmp(in->widened[i], e->path);
	size_t at;
	if (!held || (strmap_get(made, e->path, &at) && strmap_get(gone, e->path, &at)) ||
	    ignored(in, in->allow_write, in->n_allow_write, e->path) ||
	    ignored(in, in->ignore_write, in->n_ignore_write, e->path))
		return false;
	return seen_first(seen, xasprintf("w%s", e->path));
}

static int cmp_rel(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

/* Does the cached task's key hold the workspace-relative file rel? */
static bool in_key(const struct judge_input *in, const char *rel)
{
	return in->keyed && bsearch(rel, in->keyed, in->n_keyed, sizeof *in->keyed, cmp_rel);
}

static bool has_component(const char *rel, const char *name)
{
	size_t n = strlen(name);
	for (const char *s = rel; (s = strstr(s, name)); s += n)
		if ((s == rel || s[-1] == '/') && (s[n] == '/' || !s[n]))
			return true;
	return false;
}

/* Is rel (workspace-relative) a tool's own incremental cache, one the
 * tool validates itself against the inputs it reads (content hashes or
 * versions of each source), so what an earlier run left there cannot
 * change what this run makes (issue 54 item 3: after a sandboxed build,
 * the first rebuild after any edit failed read-unkeyed on
 * .next/cache/webpack/.../index.pack and .cache/tsbuildinfo.json, and
 * learn went round removing them)? A leftover read there is judged as
 * `sandbox.ignore.read` would have it: not a violation. The table, and
 * why each is safe, is docs/violations.md's. */
bool judge_tool_cache(const char *rel)
{
	static const char *const dirs[] = {
	    ".next/cache",	   /* webpack's and SWC's, keyed by content hashes */
	    "node_modules/.cache", /* babel-loader, terser, eslint-loader: content-keyed */
	    "node_modules/.vite",  /* Vite's optimized deps (lockfile-hashed), vitest's results */
	    ".parcel-cache",	   /* Parcel's, content-keyed */
	    ".angular/cache",	   /* the Angular CLI's, content-keyed */
	    ".swc",		   /* SWC's plugin cache, keyed by plugin version */
	    NULL,
	};
	for (const char *const *d = dirs; *d; d++) {
		const char *at = strstr(rel, *d);
		size_t n = strlen(*d);
		if (at && (at == rel || at[-1] == '/') && at[n] == '/')
			return true;
	}
	const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	/* ESLint's and Stylelint's caches, keyed by each file's content and
	 * the config's hash */
	return !strcmp(base, ".eslintcache") || !strcmp(base, ".stylelintcache");
}

static bool self_validating_cache(const struct judge_input *in, const char *path, const char *rel)
{
	if (judge_tool_cache(rel))
		return true;
	const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	/* tsc's build info (its sources' hashes: tsc -b, --incremental), any
	 * name a tsconfig gives it, only where the task's outputs hold it:
	 * kept while the dist/ it describes is deleted or restored older,
	 * tsc emits only what changed and the dist/ is incomplete
	 * (Turborepo's stale-output report); saved and restored with it,
	 * the two agree. */
	if (!strstr(base, "tsbuildinfo") || !under(in->project_dir, path))
		return false;
	char *own = path_relative(in->project_dir, path);
	bool held = globlist_match((char *const *)in->own_outputs, in->n_own_outputs, own);
	free(own);
	return held;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char *violation_op_name(enum violation_op op)
{
	static const char *const names[VIOLATION_OPS] = {"read", "write", "exec", "network",
							 "read-unkeyed"};
	return op < VIOLATION_OPS ? names[op] : "?";
}

bool violation_unkeyed(const struct violation *v)
{
	return v->op == VIOLATION_READ_UNKEYED || (v->op == VIOLATION_EXEC && !v->err);
}

/* What an unkeyed read is, for its fix. */
enum unkeyed {
	KEYED = 0,
	UNKEYED_PROJECT,    /* the task's own file: inputs.files, or workspaceFiles */
	UNKEYED_WORKSPACE,  /* another file of the workspace: inputs.workspaceFiles */
	UNKEYED_DEP_OUTPUT, /* a file a dependency wrote in this run: its outputs */
	UNKEYED_EXTERNAL,   /* node_modules with no lockfile keying it (once) */
	UNKEYED_OUTSIDE,    /* a file under a read grant outside the workspace: inputs.toolchain */
	UNKEYED_LEFTOVER,   /* a file in a write grant the task read before writing it:
			     * left by an earlier run (a tool's cache: ignore.read) */
};

/* The paths the task made in this run, each with the index of its first
 * event (a file written, linked or renamed there, a directory made), by
 * its lexical path and by the one its directory resolves to. */
static void note_written(struct strmap *written, struct strvec *keys, const struct access_event *ev,
			 size_t nev)
{
	/* a directory's resolution, once (keys borrowed from names): into reals */
	struct strmap dirs = STRMAP_INIT;
	struct strvec names = STRVEC_INIT, reals = STRVEC_INIT;
	for (size_t i = 0; i < nev; i++) {
		const struct access_event *e = &ev[i];
		if (e->err || e->unresolved || e->truncated || e->path[0] != '/' ||
		    !(e->op == ACCESS_WRITE || e->op == ACCESS_RENAME_TO ||
		      e->op == ACCESS_LINK_TO || e->op == ACCESS_SYMLINK ||
		      e->op == ACCESS_TRUNCATE || e->op == ACCESS_MKDIR))
			continue;
		size_t first;
		if (!strmap_get(written, e->path, &first))
			strmap_put(written, e->path, i);
		char *dir = path_dirname(e->path);
		size_t at;
		if (!strmap_get(&dirs, dir, &at)) {
			char *rdir = realpath(dir, NULL);
			at = reals.n;
			strvec_push(&reals, rdir ? rdir : "");
			free(rdir);
			strvec_push_nodup(&names, dir);
			strmap_put(&dirs, dir, at);
		} else {
			free(dir);
		}
		if (*reals.v[at]) {
			char *real = path_join(reals.v[at], path_basename(e->path));
			if (strcmp(real, e->path) && !strmap_get(written, real, &first)) {
				strvec_push_nodup(keys, real);
				strmap_put(written, real, i);
			} else {
				free(real);
			}
		}
	}
	strmap_clear(&dirs);
	strvec_clear(&names);
	strvec_clear(&reals);
}

/* The write grant path lies in (the first that holds it), or NULL. */
static const char *write_root_of(const struct judge_input *in, const char *path)
{
	for (size_t i = 0; i < in->n_write_roots; i++)
		if (path_is_within(in->write_roots[i], path))
			return in->write_roots[i];
	return NULL;
}

/* The task made path (or a directory it lies in, below root) before
 * event at, or vx made it empty for a file grant: what it reads there is
 * its own work, not an earlier run's. */
static bool made_in_run(const struct judge_input *in, const struct strmap *written,
			const char *root, const char *path, size_t at)
{
	for (size_t i = 0; i < in->n_placeholders; i++)
		if (!strcmp(in->placeholders[i].path, path))
			return true;
	char *p = xstrdup(path);
	bool made = false;
	for (;;) {
		size_t first;
		if (strmap_get(written, p, &first) && first < at) {
			made = true;
			break;
		}
		char *slash = strrchr(p, '/');
		if (!strcmp(p, root) || !slash || slash == p)
			break;
		*slash = '\0';
	}
	free(p);
	return made;
}

/* The ignore.read entry a leftover read needs, project-relative: the file
 * when it is the grant or lies at its top, else its top directory below
 * the grant ("/" ended: it and all below), so a tool cache of many files
 * is one entry. */
static char *leftover_fix(const struct judge_input *in, const char *root, const char *path)
{
	const char *below = path + strlen(root);
	while (*below == '/')
		below++;
	const char *slash = strchr(below, '/');
	char *top = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(path);
	char *fix = grant_spelling(in, top, slash != NULL);
	free(top);
	return fix;
}

/* A successful read of a regular file of the workspace that the cached
 * task's key does not hold: a hit would replay a build that read it (the
 * sandbox shows it, so only the key can answer for it). The key holds the
 * task's own files, and through each dependency's key its files and the
 * outputs it made; node_modules is the lockfile's (lockfiles.md). Outputs
 * of the task itself (under a write root, written before they are read)
 * and .git and the cache (walled) are not judged. Each path once (seen). */
static enum unkeyed unkeyed_read(const struct judge_input *in, const struct access_event *e,
				 size_t at, const struct strmap *written, struct seen *seen,
				 char **real_out)
{
	*real_out = NULL;
	if (!in->keyed ||
	    (e->op != ACCESS_READ && e->op != ACCESS_EXEC && e->op != ACCESS_READLINK))
		return KEYED;
	/* Judged where the kernel opened it (issue 37: `src/config.json ->
	 * ../config/dev.json` was keyed by its text, and its target read
	 * unkeyed: a stale hit). A link on the path, the last component's or
	 * a directory's, leads to the file judged; readlink reads the link
	 * itself (`current -> releases/v1` repointed replayed v1), so only
	 * its directories are followed. */
	char *opened = NULL;
	if (e->op == ACCESS_READLINK) {
		char *dir = path_dirname(e->path), *rdir = realpath(dir, NULL);
		opened = rdir ? path_join(rdir, path_basename(e->path)) : NULL;
		free(rdir);
		free(dir);
	} else {
		opened = realpath(e->path, NULL);
	}
	if (opened && strcmp(opened, e->path)) {
		struct access_event opened_at = *e;
		opened_at.path = opened;
		enum unkeyed u = unkeyed_read(in, &opened_at, at, written, seen, real_out);
		free(opened);
		return u;
	}
	free(opened);
	if (!under(in->workspace_root, e->path)) {
		/* outside: only what a read grant there lets through is judged;
		 * the OS roots are the toolchain's, not file by file */
		bool granted = false;
		for (size_t i = 0; i < in->n_outside_grants && !granted; i++)
			granted = under(in->outside_grants[i], e->path);
		char *real = granted ? realpath(e->path, NULL) : NULL;
		struct stat st;
		if (!real || stat(real, &st) || !S_ISREG(st.st_mode) ||
		    (in->toolchain && bsearch(&real, in->toolchain, in->n_toolchain,
					      sizeof *in->toolchain, cmp_str)) ||
		    ignored(in, in->ignore_read, in->n_ignore_read, e->path)) {
			free(real);
			return KEYED;
		}
		if (!seen_first(seen, xasprintf("u%s", real))) {
			free(real);
			return KEYED;
		}
		*real_out = real;
		return UNKEYED_OUTSIDE;
	}
	if (!strcmp(in->project_dir, e->path))
		return KEYED;
	/* In a write grant, what the task made in this run is its own; a file
	 * an earlier run left there and the task read is judged like any
	 * (issue 37: a build that read its old output replayed it). */
	const char *leftover = write_root_of(in, e->path);
	if (leftover && made_in_run(in, written, leftover, e->path, at))
		return KEYED;
	char *rel = path_relative(in->workspace_root, e->path);
	char *path = xstrdup(e->path);
	struct stat st;
	enum unkeyed what = KEYED;
	if (has_component(rel, "node_modules")) {
		/* a workspace package linked there is judged where it lies */
		char *real = realpath(e->path, NULL);
		char *rrel = real && under(in->workspace_root, real)
				 ? path_relative(in->workspace_root, real)
				 : NULL;
		if (rrel && !has_component(rrel, "node_modules")) {
			free(rel);
			free(path);
			rel = rrel;
			path = real;
		} else {
			free(rrel);
			free(real);
			/* one violation for the lot (the directory), not one per file */
			if (!in->externals_keyed && !lstat(e->path, &st) && S_ISREG(st.st_mode) &&
			    seen_first(seen, xstrdup("n")))
				what = UNKEYED_EXTERNAL;
			goto out;
		}
	}
	/* The root's lockfile (rel has no '/'), when it keys node_modules: the
	 * key already folds what it decides for the task (its packages'
	 * closure, lockfiles.md); Next and the package managers read it whole,
	 * and keying its bytes would miss every task on any package's change,
	 * which the closure exists to avoid (issue 40 item 5). */
	if (has_component(rel, ".git") || has_component(rel, ".vx") || lstat(path, &st) ||
	    (e->op == ACCESS_READLINK ? !S_ISLNK(st.st_mode) : !S_ISREG(st.st_mode)) ||
	    in_key(in, rel) || (in->externals_keyed && sandbox_lockfile_name(rel)) ||
	    (in->dep_keyed &&
	     bsearch(&rel, in->dep_keyed, in->n_dep_keyed, sizeof *in->dep_keyed, cmp_str)) ||
	    (in->dep_outputs && bsearch(&path, in->dep_outputs, in->n_dep_outputs,
					sizeof *in->dep_outputs, cmp_str)) ||
	    ignored(in, in->ignore_read, in->n_ignore_read, path))
		goto out;
	if (leftover && !path_is_within(leftover, path))
		leftover = NULL; /* a linked workspace package's file, judged where it lies */
	if (leftover && self_validating_cache(in, path, rel))
		goto out;
	char *fix = leftover ? leftover_fix(in, leftover, path) : NULL;
	char *key = fix ? xasprintf("l%s", fix) : xasprintf("u%s", path);
	free(fix);
	if (!seen_first(seen, key))
		goto out;
	if (leftover)
		what = UNKEYED_LEFTOVER;
	else if (under(in->project_dir, path))
		what = UNKEYED_PROJECT;
	else if (dep_written(in, path))
		what = UNKEYED_DEP_OUTPUT;
	else
		what = UNKEYED_WORKSPACE;
out:
	free(rel);
	if (what && what != UNKEYED_EXTERNAL)
		*real_out = path;
	else
		free(path);
	return what;
}

/* The task of the same project whose outputs name path (a project file),
 * when this task does not depend on it, or NULL (issue 40 item 3: a build
 * that read lint's .cache/.eslintcache was told to key it). */
static const struct judge_other_output *other_task_output(const struct judge_input *in,
							  const char *path)
{
	char *rel = path_relative(in->project_dir, path);
	const struct judge_other_output *maker = NULL;
	for (size_t i = 0; i < in->n_other_outputs && !maker; i++)
		if (glob_match(in->other_outputs[i].glob, rel))
			maker = &in->other_outputs[i];
	free(rel);
	return maker;
}

/* An unkeyed read's violation, and its fix: inputs.files for the task's
 * own file when it lists them, else inputs.workspaceFiles (which add to the
 * defaults); a note naming the dependency's outputs entry for a file a
 * dependency wrote; a note naming the lockfile for node_modules. */
static void unkeyed_verdict(const struct judge_input *in, struct verdict *out,
			    const struct access_event *e, const char *where, enum unkeyed u)
{
	char *path = xstrdup(where);
	if (u == UNKEYED_EXTERNAL) {
		/* the node_modules directory the read was under */
		char *nm = strstr(path, "/node_modules");
		while (nm && nm[13] && nm[13] != '/')
			nm = strstr(nm + 1, "/node_modules");
		if (nm)
			nm[13] = '\0';
	}
	struct violation v = {.op = e->op == ACCESS_EXEC ? VIOLATION_EXEC : VIOLATION_READ_UNKEYED,
			      .path = path,
			      .syscall = e->syscall};
	vec_push(&out->violations, v);
	const struct judge_other_output *maker =
	    u == UNKEYED_PROJECT ? other_task_output(in, where) : NULL;
	if (maker) {
		char *rel = path_relative(in->project_dir, where);
		/* issue 54 item 8: a printed edge, followed, made a cycle */
		char *how = maker->cycle
				? xasprintf("an edge to it would be a cycle (%s depends on this "
					    "task): do not read it, or take it out of %s's outputs",
					    maker->task, maker->task)
				: xasprintf("add dependsOn: [\"%s\"] (it then comes as that task's "
					    "output), or do not read it",
					    maker->task);
		add_note(out, "other-task-output", where,
			 xasprintf("%s is what this project's task %s makes (its outputs name "
				   "it): keying it would key another task's result, which changes "
				   "whenever that task runs; %s",
				   rel, maker->task, how));
		free(how);
		free(rel);
	} else if (u == UNKEYED_PROJECT && in->inputs_explicit) {
		char *rel = path_relative(in->project_dir, where);
		strvec_push_nodup(&out->fix_inputs, spell_glob(rel));
		free(rel);
	} else if (u == UNKEYED_PROJECT || u == UNKEYED_WORKSPACE) {
		strvec_push_nodup(&out->fix_workspace_inputs, ws_key_entry(in, where, false));
	} else if (u == UNKEYED_OUTSIDE) {
		/* spelled so every machine's vx.yaml finds it: ${HOME} for home */
		struct strbuf spelled = STRBUF_INIT;
		if (in->home && *in->home && strcmp(in->home, "/") &&
		    path_is_within(in->home, where)) {
			char *rel = path_relative(in->home, where);
			strbuf_addstr(&spelled, "${HOME}/");
			spell_escaped(&spelled, rel, false, NULL);
			free(rel);
		} else {
			spell_escaped(&spelled, where, false, NULL);
		}
		strvec_push_nodup(&out->fix_toolchain, strbuf_detach(&spelled, NULL));
	} else if (u == UNKEYED_LEFTOVER) {
		char *fix = leftover_fix(in, write_root_of(in, where), where);
		char *rel = path_relative(in->project_dir, where);
		add_note(
		    out, "leftover", where,
		    xasprintf("%s was left there before the task ran (an earlier run's, or "
			      "put there by hand) and the task read it before writing it: "
			      "what it makes may depend on it, and the key does not hold it; "
			      "remove it before the task runs, or, if it is a tool's own cache "
			      "that never changes what the task makes (.eslintcache, a "
			      "tsbuildinfo, .next/cache), say so with sandbox.ignore.read: "
			      "[\"%s\"]",
			      rel, fix));
		strvec_push_nodup(&out->fix_ignore_read, fix);
		free(rel);
	} else if (u == UNKEYED_DEP_OUTPUT) {
		const struct judge_dep *d = dep_of(in, where);
		char *rel = path_relative(d->dir, where);
		add_note(out, "unlisted-output", where,
			 xasprintf("%s was written by the dependency %s in this run and is not "
				   "among its outputs, so a replay of it would not bring it back: "
				   "add to %s tasks.%s.outputs: [\"%s\"]",
				   rel, d->id, d->config, d->task, rel));
		free(rel);
	} else {
		char *rel = path_relative(in->workspace_root, path);
		add_note(out, "unkeyed-node-modules", path,
			 xasprintf("%s holds external packages, and no lockfile keys them: the "
				   "key cannot see an install change them; commit the package "
				   "manager's lockfile (package-lock.json, pnpm-lock.yaml, "
				   "yarn.lock, bun.lock) at the workspace root",
				   rel));
		free(rel);
	}
}

/* Granting a read the key does not fold would be a stale hit: the fix
 * keys it too, as inputs.files when the task lists them, else (the default
 * inputs leave it out: a nested project's file, a gitignored one) as
 * inputs.workspaceFiles, which add to the defaults. */
static void key_fix(const struct judge_input *in, struct verdict *out, const char *path)
{
	bool dir = fs_is_dir(path);
	char *ws_rel = path_relative(in->workspace_root, path);
	bool keyed = !dir && in_key(in, ws_rel);
	if (in->inputs_explicit) {
		char *rel = path_relative(in->project_dir, path);
		char *spelled = spell_glob(rel);
		if (!keyed &&
		    !globlist_match((char *const *)in->input_files, in->n_input_files, rel))
			strvec_push_nodup(&out->fix_inputs,
					  dir ? xasprintf("%s/**", spelled) : xstrdup(spelled));
		free(spelled);
		free(rel);
	} else if (!keyed && in->keyed) {
		strvec_push_nodup(&out->fix_workspace_inputs, ws_key_entry(in, path, dir));
	}
	free(ws_rel);
}

/* A write that made or changed a file that decides what vx runs, which no
 * grant names (issue 36: a config not there yet cannot be walled by a
 * mount, and `vx watch` would plan from what the task wrote): a violation
 * with a note, and no fix. Returns true when e was
 * one (reported once per path). */
/* Is path one of the files that decide what vx runs? */
static bool is_config(const struct judge_input *in, const char *path)
{
	for (size_t i = 0; i < in->n_configs; i++)
		if (!strcmp(in->configs[i], path))
			return true;
	return false;
}

/* The config note for path, once. */
static void note_config(const struct judge_input *in, struct verdict *out, const char *path)
{
	if (has_note(out, "config", path))
		return;
	char *shown = judge_display_path(in, path);
	add_note(out, "config", path,
		 xasprintf("%s decides what vx runs: a sandboxed task writes it only when a "
			   "write grant names that very file, and `vx watch` never plans from "
			   "what a task wrote",
			   shown));
	free(shown);
}

static bool config_write(const struct judge_input *in, struct verdict *out,
			 const struct access_event *e, struct seen *seen)
{
	if (!e->write_intent || e->op == ACCESS_UTIME || e->op == ACCESS_PROBE_WRITE ||
	    e->op == ACCESS_RENAME_FROM || e->op == ACCESS_LINK_FROM)
		return false;
	if (!is_config(in, e->path))
		return false;
	if (!seen_first(seen, xasprintf("w%s", e->path)))
		return true;
	struct violation v = {
	    .op = VIOLATION_WRITE, .path = xstrdup(e->path), .syscall = e->syscall};
	vec_push(&out->violations, v);
	note_config(in, out, e->path);
	/* no fix: a grant over what decides what vx runs is a person's call
	 * (SPEC §4, "a fix never names one"; issue 53 item 2: learn wrote
	 * `write: ["vx.yaml"]` for a task that appended to its own) */
	return true;
}

/* The grant for a write a widened directory let through: the topmost
 * directory the task made on the way to it (`dist/` for dist/a.js after
 * mkdir dist: a file grant there would be no directory), else the file by
 * name. */
static char *widened_fix(const struct judge_input *in, const struct access_event *e,
			 const struct strmap *made_dirs)
{
	size_t plen = strlen(in->project_dir);
	for (const char *s = e->path + plen + 1; (s = strchr(s, '/')); s++) {
		char *dir = xstrndup(e->path, (size_t)(s - e->path));
		size_t at;
		bool mine = strmap_get(made_dirs, dir, &at);
		if (mine) {
			char *fix = grant_spelling(in, dir, true);
			free(dir);
			return fix;
		}
		free(dir);
	}
	return grant_spelling(in, e->path, e->op == ACCESS_MKDIR);
}

static bool request_sees(const char *path, void *ctx)
{
	return sandbox_request_sees(ctx, path);
}

void judge_input_from_request(struct judge_input *in, const struct sandbox_request *req,
			      struct strvec *roots, struct strvec *unwritten)
{
	for (size_t k = 0; k < req->mounts.n; k++) {
		const struct sandbox_mount *m = &req->mounts.v[k];
		if (m->kind != SANDBOX_RW)
			continue;
		if (req->stage && !strcmp(m->src, req->stage)) {
			/* the stage: its grants are the staged entries */
			for (size_t s = 0; s < req->staged.n; s++)
				strvec_push_nodup(roots, path_join(req->cwd, req->staged.v[s]));
			continue;
		}
		strvec_push(roots, m->dst);
	}
	for (size_t k = 0; k < req->placeholders.n; k++)
		if (sandbox_placeholder_untouched(&req->placeholders.v[k]))
			strvec_push(unwritten, req->placeholders.v[k].path);
	in->project_dir = req->cwd;
	in->withheld = (const char *const *)req->withheld.v;
	in->n_withheld = req->withheld.n;
	in->widened = (const char *const *)req->widened.v;
	in->n_widened = req->widened.n;
	in->configs = (const char *const *)req->configs.v;
	in->n_configs = req->configs.n;
	in->sees = request_sees;
	in->sees_ctx = (void *)req;
	in->write_roots = (const char *const *)roots->v;
	in->n_write_roots = roots->n;
	in->unwritten = (const char *const *)unwritten->v;
	in->n_unwritten = unwritten->n;
	in->placeholders = req->placeholders.v;
	in->n_placeholders = req->placeholders.n;
	in->walls = req->walls.v;
	in->n_walls = req->walls.n;
}

typedef VEC(struct access_event) access_event_vec;

#define LINK_HOPS 8   /* the kernel's own limit is 40; a chain the task made */
#define LINK_PATHS 16 /* what one read may reach through links, at most */

/* The link of links (each path's first) that path is, or lies below,
 * longest first; its length into *len. -1 when none. */
static long link_prefix(const struct strmap *by_path, const char *path, size_t *len)
{
	size_t n = strlen(path), at;
	for (size_t k = n; k > 1; k--)
		if ((k == n || path[k] == '/') && strmap_getn(by_path, path, k, &at)) {
			*len = k;
			return (long)at;
		}
	return -1;
}

/* Appends to out, for each read, exec, probe or readlink of ev that went
 * through a link the task made (issue 53 item 8: `/tmp/n -> notes.txt`,
 * read as /tmp/n, was settled as the task's own temp dir, and a changed
 * notes.txt replayed the old bytes), the same access at each path the
 * links reach: the rules then judge it where it landed. A link the task
 * made twice with two targets reaches both. */
static void through_links(const struct access_event *ev, size_t nev,
			  const struct strace_link *links, size_t nlinks, access_event_vec *out)
{
	struct strmap by_path = STRMAP_INIT;
	for (size_t k = 0; k < nlinks; k++) {
		size_t dummy;
		if (!strmap_get(&by_path, links[k].path, &dummy))
			strmap_put(&by_path, links[k].path, k);
	}
	for (size_t i = 0; i < nev; i++) {
		const struct access_event *e = &ev[i];
		if (e->write_intent || e->unresolved || e->truncated || e->path[0] != '/' ||
		    (e->op != ACCESS_READ && e->op != ACCESS_EXEC && e->op != ACCESS_PROBE &&
		     e->op != ACCESS_READLINK))
			continue;
		struct strvec todo = STRVEC_INIT, reached = STRVEC_INIT;
		strvec_push(&todo, e->path);
		for (int hop = 0; todo.n && hop <= LINK_HOPS; hop++) {
			struct strvec next = STRVEC_INIT;
			for (size_t t = 0; t < todo.n; t++) {
				size_t len;
				long at = link_prefix(&by_path, todo.v[t], &len);
				if (at < 0) {
					if (hop && reached.n < LINK_PATHS &&
					    strvec_find(&reached, todo.v[t]) < 0)
						strvec_push(&reached, todo.v[t]);
					continue;
				}
				for (size_t k = (size_t)at; k < nlinks; k++) {
					if (strlen(links[k].path) != len ||
					    strncmp(links[k].path, todo.v[t], len))
						continue;
					char *joined =
					    xasprintf("%s%s", links[k].target, todo.v[t] + len);
					char *norm = path_normalize(joined);
					free(joined);
					if (next.n < LINK_PATHS)
						strvec_push(&next, norm);
					free(norm);
				}
			}
			strvec_clear(&todo);
			todo = next;
		}
		strvec_clear(&todo);
		for (size_t r = 0; r < reached.n; r++) {
			struct access_event x = *e;
			x.path = xstrdup(reached.v[r]);
			vec_push(out, x);
		}
		strvec_clear(&reached);
	}
	strmap_clear(&by_path);
}

int judge_trace(const struct judge_input *in, const char *log_path, struct verdict *out)
{
	memset(out, 0, sizeof *out);
	/* The task can write the log's directory: never follow a link it
	 * planted there to a host file. */
	int fd = open(log_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		out->incomplete = true;
		return -1;
	}
	struct strace_parser *p = strace_parser_new(in->project_dir, 0);
	if (in->wrapped)
		strace_parser_wrapped(p);
	char buf[65536];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		strace_parser_feed(p, buf, (size_t)n);
	}
	close(fd);
	strace_parser_finish(p);
	const struct strace_summary *sum = strace_parser_summary(p);
	out->lines = sum->lines;
	out->incomplete = !sum->root_exited;
	size_t nev, nlinks;
	const struct access_event *ev = strace_parser_events(p, &nev);
	const struct strace_link *links = strace_parser_links(p, &nlinks);
	if (!nlinks) {
		judge_events(in, ev, nev, out);
	} else {
		/* each read through a link the task made, judged at what the
		 * link reaches too */
		access_event_vec all = {0};
		for (size_t i = 0; i < nev; i++)
			vec_push(&all, ev[i]);
		size_t own = all.n;
		through_links(ev, nev, links, nlinks, &all);
		judge_events(in, all.v, all.n, out);
		for (size_t i = own; i < all.n; i++)
			free(all.v[i].path);
		vec_free(&all);
	}
	strace_parser_free(p);
	return 0;
}

/* An inputs fix as the task's whole resulting list: what it has now (from
 * whichever layer: turbo.json, a package turbo.json, a vx.yaml), in its
 * order, then what the fix adds, sorted. Written into a vx.yaml it
 * replaces the inherited list with itself and more; added to one it only
 * repeats entries: read either way, the key only grows (issue 40: a fix
 * of one new entry, written as printed over turbo.json's inputs, keyed
 * that file alone). */
static void whole_list(struct strvec *fix, const char *const *now, size_t n_now)
{
	strvec_sort_unique(fix);
	if (!fix->n || !n_now)
		return;
	struct strvec all = STRVEC_INIT;
	for (size_t i = 0; i < n_now; i++)
		if (strvec_find(&all, now[i]) < 0)
			strvec_push(&all, now[i]);
	for (size_t i = 0; i < fix->n; i++)
		if (strvec_find(&all, fix->v[i]) < 0)
			strvec_push(&all, fix->v[i]);
	strvec_clear(fix);
	*fix = all;
}

/* What judge_events gathers before and while its rules run. */
struct judging {
	const struct judge_input *in;
	struct verdict *out;
	struct strmap touched;		     /* paths whose times the task set (touch) */
	struct strmap made, gone, made_dirs; /* in a widened dir: written, removed, mkdir'd */
	struct strmap written; /* what the task made in a write grant (note_written) */
	struct strvec written_keys;
	struct seen seen;	       /* what was reported already */
	struct strmap read_seen;       /* what it read, once each, */
	VEC(const char *) read_paths;  /* in order */
	const struct access_event *ev; /* all of them, for a rule that looks back */
};

/* A rule's word on an event: go on to the next rule, or it is settled. */
enum rule_says { RULE_NEXT, RULE_SETTLED };

/* A name the task looked up itself (issue 54 item 7: the violation named
 * the resolver it could not reach, 10.255.255.53:53, and nobody could tell
 * what was asked). The sandbox has no DNS: its resolv.conf names its own
 * loopback, where nothing answers, so a client's query is sent, and the
 * trace holds the name. A network violation naming the host; what the
 * proxy would allow it is no grant of a lookup: the client must use the
 * proxy. "localhost" and its kind never leave /etc/hosts. */
static void lookup_violation(struct judging *j, const struct access_event *e)
{
	size_t n = strlen(e->path);
	if (!strcmp(e->path, "localhost") || (n > 10 && !strcmp(e->path + n - 10, ".localhost")) ||
	    judge_network_ignored(j->in, e->path))
		return;
	bool allowed = j->in->net_allowed && j->in->net_allowed(e->path, j->in->net_ctx);
	struct violation v = {
	    .op = VIOLATION_NETWORK,
	    .path = xstrdup(e->path),
	    .syscall = "lookup",
	    .reason = xstrdup(allowed ? "a DNS lookup of its own, which allow.network cannot "
					"grant: the proxy resolves the names it allows"
				      : "a DNS lookup of its own: a sandboxed task has no DNS")};
	vec_push(&j->out->violations, v);
	j->out->needs_network = true;
	note_name(j->in, j->out, e->path, true);
}

static enum rule_says rule_network(struct judging *j, const struct access_event *e, size_t i)
{
	(void)i;
	if (e->op == ACCESS_LOOKUP) {
		lookup_violation(j, e);
		return RULE_SETTLED;
	}
	if (e->op != ACCESS_CONNECT || e->unresolved || e->path[0] == '/')
		return RULE_NEXT;
	if (network_refused(j->in, e)) {
		struct violation v = {.op = VIOLATION_NETWORK,
				      .path = xstrdup(e->path),
				      .syscall = e->syscall,
				      .err = e->err};
		vec_push(&j->out->violations, v);
		j->out->needs_network = true;
	}
	return RULE_SETTLED;
}

static enum rule_says rule_unplaced(struct judging *j, const struct access_event *e, size_t i)
{
	(void)i;
	if (!e->unresolved || e->err || !j->in->keyed || e->op == ACCESS_CONNECT ||
	    e->op == ACCESS_CHDIR || e->op == ACCESS_PROBE || e->op == ACCESS_PROBE_WRITE)
		return RULE_NEXT;
	if (!seen_first(&j->seen, xasprintf("?%s", e->path)))
		return RULE_SETTLED;
	struct violation v = {.op = e->write_intent	   ? VIOLATION_WRITE
				    : e->op == ACCESS_EXEC ? VIOLATION_EXEC
							   : VIOLATION_READ,
			      .path = xstrdup(e->path),
			      .syscall = e->syscall};
	vec_push(&j->out->violations, v);
	if (!has_note(j->out, "unplaced", ""))
		add_note(
		    j->out, "unplaced", "",
		    xasprintf("%s %s a path relative to a descriptor the trace never saw opened "
			      "(one received over a socket, or made by a call vx does not "
			      "follow): it cannot be judged, so the task is not cached; open it "
			      "by its path",
			      e->syscall, e->write_intent ? "wrote" : "read"));
	return RULE_SETTLED;
}

static enum rule_says rule_unplaceable(struct judging *j, const struct access_event *e, size_t i)
{
	(void)j, (void)i;
	return e->unresolved || e->truncated || e->path[0] != '/' ? RULE_SETTLED : RULE_NEXT;
}

static enum rule_says rule_record(struct judging *j, const struct access_event *e, size_t i)
{
	(void)i;
	const struct judge_input *in = j->in;
	if (e->err)
		return RULE_NEXT;
	if (e->op == ACCESS_EXEC && !under(in->workspace_root, e->path) &&
	    !under("/proc", e->path) && !under("/tmp", e->path)) {
		char *real = realpath(e->path, NULL);
		if (real && strvec_find(&j->out->execs, real) < 0)
			strvec_push(&j->out->execs, real);
		free(real);
	}
	/* tsc's build info the task wrote where its outputs do not hold it:
	 * the next build reads it (learn declares it the task's output, so it
	 * is saved, restored and cleared with what it describes) */
	const char *base = strrchr(e->path, '/');
	if ((e->op == ACCESS_WRITE || e->op == ACCESS_RENAME_TO) && base &&
	    strstr(base, "tsbuildinfo") && in->cached && under(in->project_dir, e->path) &&
	    !has_note(j->out, "tool-state", e->path)) {
		char *own = path_relative(in->project_dir, e->path);
		if (!globlist_match((char *const *)in->own_outputs, in->n_own_outputs, own))
			add_note(j->out, "tool-state", e->path,
				 xasprintf("the task wrote %s, tsc's build info, which its outputs "
					   "do not hold: the next build reads it; declare it an "
					   "output, so it is saved, restored and cleared with what "
					   "it describes",
					   own));
		free(own);
	}
	size_t dummy;
	if (in->keyed && (e->op == ACCESS_READ || e->op == ACCESS_EXEC) &&
	    !strmap_get(&j->read_seen, e->path, &dummy)) {
		strmap_put(&j->read_seen, e->path, 0);
		vec_push(&j->read_paths, e->path);
	}
	return RULE_NEXT;
}

static enum rule_says rule_done(struct judging *j, const struct access_event *e, size_t i)
{
	const struct judge_input *in = j->in;
	if (e->err)
		return RULE_NEXT;
	char *real;
	enum unkeyed u = unkeyed_read(in, e, i, &j->written, &j->seen, &real);
	if (u) {
		unkeyed_verdict(in, j->out, e, real ? real : e->path, u);
		free(real);
		return RULE_SETTLED;
	}
	if (config_write(in, j->out, e, &j->seen))
		return RULE_SETTLED;
	if (widened_write(in, e, &j->made, &j->gone, &j->seen)) {
		struct violation v = {
		    .op = VIOLATION_WRITE, .path = xstrdup(e->path), .syscall = e->syscall};
		vec_push(&j->out->violations, v);
		strvec_push_nodup(&j->out->fix_write, widened_fix(in, e, &j->made_dirs));
	}
	return RULE_SETTLED;
}

static enum rule_says rule_own_places(struct judging *j, const struct access_event *e, size_t i)
{
	(void)i;
	const struct judge_input *in = j->in;
	return under("/dev", e->path) || under("/proc", e->path) || under("/sys", e->path) ||
		       (under(in->tmpdir ? in->tmpdir : "/tmp", e->path) &&
			!under(in->workspace_root, e->path))
		   ? RULE_SETTLED
		   : RULE_NEXT;
}

static enum rule_says rule_mkdir_exists(struct judging *j, const struct access_event *e, size_t i)
{
	(void)j, (void)i;
	return e->op == ACCESS_MKDIR && e->err == EEXIST ? RULE_SETTLED : RULE_NEXT;
}

static enum rule_says rule_grant_root(struct judging *j, const struct access_event *e, size_t i)
{
	(void)i;
	const struct judge_input *in = j->in;
	if (!((e->err == EBUSY || e->err == EROFS) && is_write_root(in, e->path) &&
	      (e->op == ACCESS_RMDIR || e->op == ACCESS_UNLINK || e->op == ACCESS_RENAME_FROM ||
	       e->op == ACCESS_RENAME_TO)))
		return RULE_NEXT;
	if (!has_note(j->out, "grant-root-busy", e->path)) {
		char *rel = path_relative(in->project_dir, e->path);
		const char *slash = strchr(rel, '/');
		add_note(j->out, "grant-root-busy", e->path,
			 xasprintf("%s is a write grant's root, a mount point in the sandbox: it "
				   "cannot be removed or renamed (%s %s); empty it instead (rm -rf "
				   "%s/*, not rm -rf %s)%s",
				   rel, e->syscall, e->err == EBUSY ? "EBUSY" : "EROFS", rel, rel,
				   slash ? ", or grant the top-level directory that holds it, "
					   "which lives in the task's stage and can go"
					 : ""));
		/* A tool that deletes its own output root (Remix's build/,
		 * Nitro's .output/ under a deeper grant) failed with no
		 * violation and nothing to learn (issue 54 item 2): a refusal
		 * that fails a task is a violation with its fix, the
		 * top-level directory holding the root, which is staged. */
		if (slash && path_is_within(in->project_dir, e->path)) {
			struct violation v = {.op = VIOLATION_WRITE,
					      .path = xstrdup(e->path),
					      .syscall = e->syscall,
					      .err = e->err};
			vec_push(&j->out->violations, v);
			char *top = xstrndup(rel, (size_t)(slash - rel));
			char *abs = path_join(in->project_dir, top);
			strvec_push_nodup(&j->out->fix_write, grant_spelling(in, abs, true));
			free(abs);
			free(top);
		}
		free(rel);
	}
	return RULE_SETTLED;
}

static enum rule_says rule_not_refused(struct judging *j, const struct access_event *e, size_t i)
{
	(void)i;
	bool refused =
	    e->err == EACCES || e->err == EPERM || e->err == EROFS ||
	    (e->err == ENOENT && exists_on_host(e->path) && !shown_inside(j->in, e->path));
	return refused ? RULE_NEXT : RULE_SETTLED;
}

static enum rule_says rule_times(struct judging *j, const struct access_event *e, size_t i)
{
	(void)i;
	size_t at;
	if (e->op == ACCESS_UTIME && e->err != ENOENT)
		return RULE_SETTLED;
	if (e->op == ACCESS_WRITE && e->err != ENOENT && strmap_get(&j->touched, e->path, &at))
		return RULE_SETTLED;
	return RULE_NEXT;
}

/* A refusal outside the project that made the task fail (issue 40: a
 * hidden root .gitignore broke ESLint, a hidden root .env broke dotenv, and
 * each was a note only): a violation with its fix — the grant, and for a
 * cached task the key entry — when one can be given: a read in the
 * workspace, or a write anywhere but a credential store, a wall, or a
 * dependency's file (whose fix is its outputs: a note says so). A task
 * that succeeded keeps such refusals as notes (a tool probing for an
 * optional file). Returns whether it made the violation. */
static bool outside_fix(const struct judge_input *in, struct verdict *out,
			const struct access_event *e, bool write)
{
	if (!in->failed || credential_store(in, e->path) || dep_written(in, e->path) ||
	    (!write && !under(in->workspace_root, e->path)))
		return false;
	/* a temp file in the host's shared /tmp or /var/tmp: the note's
	 * advice (write under $TMPDIR) is the better fix than a grant */
	if (write && (path_is_within("/var/tmp", e->path) ||
		      (path_is_within("/tmp", e->path) && !under(in->workspace_root, e->path))))
		return false;
	for (size_t w = 0; w < in->n_walls; w++)
		if (path_is_within(in->walls[w].path, e->path))
			return false;
	struct violation v = {.op = write ? VIOLATION_WRITE : VIOLATION_READ,
			      .path = xstrdup(e->path),
			      .syscall = e->syscall,
			      .err = e->err};
	vec_push(&out->violations, v);
	if (write) {
		char *dir = path_dirname(e->path);
		strvec_push_nodup(&out->fix_write, grant_spelling(in, dir, true));
		free(dir);
		return true;
	}
	bool dir = fs_is_dir(e->path);
	strvec_push_nodup(&out->fix_read, grant_spelling(in, e->path, dir));
	if (in->cached)
		strvec_push_nodup(&out->fix_workspace_inputs, ws_key_entry(in, e->path, dir));
	return true;
}

/* The directory a refused mkdir of node_modules was on the way to: a
 * recursive mkdir that works upwards (Node's fs.mkdir {recursive: true}:
 * vitest's node_modules/.vite/vitest/) first tried the deepest, which
 * failed with ENOENT. node_modules is the lockfile's (installed packages):
 * the grant is that deepest one, never all of node_modules (issue 40 item
 * 3: `write: ["node_modules/"]` for vitest). Any other refused mkdir asks
 * for itself: next's .next/cache/ first, then the rest of .next/, so the
 * deepest would cost a round. e's path when nothing deeper was tried just
 * before. */
static const char *mkdir_meant(const struct judging *j, const struct access_event *e, size_t i)
{
	const char *best = e->path;
	size_t n = strlen(e->path);
	if (strcmp(path_basename(e->path), "node_modules"))
		return best;
	/* libuv runs each step of an async recursive mkdir as its own request,
	 * on whichever pool thread takes it: the steps before it, by any
	 * thread, among the events just before */
	for (size_t k = i, seen = 0; k-- > 0 && seen < 64; seen++) {
		const struct access_event *x = &j->ev[k];
		if (x->op == ACCESS_MKDIR && x->err == ENOENT && !strncmp(x->path, e->path, n) &&
		    x->path[n] == '/' && strlen(x->path) > strlen(best))
			best = x->path;
	}
	return best;
}

/* A refusal the task met: a violation, with its note (outside the
 * project, a withheld package, a mandatory deny, a wall) or its fix. */
static enum rule_says rule_refused(struct judging *j, const struct access_event *e, size_t i)
{
	const struct judge_input *in = j->in;
	struct verdict *out = j->out;
	bool write = e->write_intent && e->op != ACCESS_UTIME;
	if (!seen_first(&j->seen, xasprintf("%c%s", write ? 'w' : 'r', e->path)))
		return RULE_SETTLED;
	/* A withheld package is reached through a link in node_modules:
	 * judged by where the link leads on the host. */
	char *real = realpath(e->path, NULL);
	bool withheld = false;
	const char *real_path = NULL;
	for (size_t w = 0; w < in->n_withheld && !withheld; w++) {
		withheld =
		    under(in->withheld[w], e->path) || (real && under(in->withheld[w], real));
		if (withheld)
			real_path = in->withheld[w];
	}
	free(real);
	bool inside = withheld || under(in->project_dir, e->path);
	if (!inside && !outside_fix(in, out, e, write))
		note_outside(in, out, e->path, write);
	if (!inside)
		return RULE_SETTLED;
	if (write ? ignored(in, in->ignore_write, in->n_ignore_write, e->path)
		  : ignored(in, in->ignore_read, in->n_ignore_read, e->path))
		return RULE_SETTLED;
	struct violation v = {.op = write		   ? VIOLATION_WRITE
				    : e->op == ACCESS_EXEC ? VIOLATION_EXEC
							   : VIOLATION_READ,
			      .path = xstrdup(e->path),
			      .syscall = e->syscall,
			      .err = e->err};
	vec_push(&out->violations, v);
	if (withheld) {
		note_withheld(in, out, e->path, real_path);
		return RULE_SETTLED; /* the fix is a dependsOn edge (the note says so), not a grant
				      */
	}
	const struct wall *wall = NULL;
	for (size_t w = 0; w < in->n_walls && !wall; w++)
		if (path_is_within(in->walls[w].path, e->path))
			wall = &in->walls[w];
	size_t deny_len = 0;
	const struct deny_rule *deny = NULL;
	if (write && !wall) {
		const char *bases[] = {in->workspace_root, in->home ? in->home : in->workspace_root,
				       NULL};
		deny = denies_holding(e->path, bases, &deny_len);
	}
	if (deny) {
		/* issue 36: the fix named .vscode/, and merged as printed it
		 * opened .vscode/tasks.json to the next run */
		char *at = xstrndup(e->path, deny_len);
		if (!has_note(out, "walled", at)) {
			char *shown = judge_display_path(in, at);
			add_note(
			    out, "walled", at,
			    xasprintf("%s is a mandatory deny (%s), which no grant opens to a "
				      "sandboxed task; change the command so it does not write "
				      "there",
				      shown, deny->why));
			free(shown);
		}
		free(at);
		return RULE_SETTLED;
	}
	if (wall) {
		if (!has_note(out, "walled", wall->path)) {
			char *shown = judge_display_path(in, wall->path);
			add_note(out, "walled", wall->path,
				 xasprintf(
				     "%s is %s, which no grant opens to a sandboxed task; change "
				     "the command so it does not %s there",
				     shown, walls_kind_name(wall->kind), write ? "write" : "read"));
			free(shown);
		}
		return RULE_SETTLED;
	}
	if (write && path_is_within(in->workspace_root, e->path) &&
	    (is_config(in, e->path) || config_name(path_basename(e->path)))) {
		note_config(in, out, e->path); /* and no fix: SPEC §4 */
		return RULE_SETTLED;
	}
	const char *meant = e->op == ACCESS_MKDIR && write ? mkdir_meant(j, e, i) : e->path;
	strvec_push_nodup(write ? &out->fix_write : &out->fix_read,
			  fix_entry(in, meant, write,
				    e->op == ACCESS_MKDIR ||
					(e->op == ACCESS_PROBE_WRITE && fs_is_dir(e->path))));
	if (!write && in->cached)
		key_fix(in, out, e->path);
	return RULE_SETTLED;
}

/* Each event goes down the rows in order until one settles it: the
 * judge's rules, each with its why (the strace parser's sysdefs[] is the
 * model). */
static const struct rule {
	const char *name;
	enum rule_says (*judge)(struct judging *j, const struct access_event *e, size_t i);
	const char *why;
} rules[] = {
    {"network", rule_network,
     "a connect to a host by name or address: refused unless a network grant names it"},
    {"unplaced", rule_unplaced,
     "an access relative to a descriptor the trace never saw opened cannot be placed, so "
     "nothing can say the key holds it: fail closed (issue 37)"},
    {"unplaceable", rule_unplaceable,
     "what is left unresolved, cut off by strace, or not a path cannot be judged further"},
    {"record", rule_record,
     "every program run outside the workspace (the key's toolchain check) and every read "
     "(--explain-key) is recorded; never settles"},
    {"done", rule_done,
     "an access that succeeded: a read the key does not hold, a config file written, a "
     "write in a widened directory that left something behind"},
    {"own-places", rule_own_places,
     "/dev, /proc, /sys and the task's own TMPDIR are the task's (a workspace under /tmp "
     "is bound back in at its host path, and judged)"},
    {"mkdir-exists", rule_mkdir_exists, "a directory bwrap made for a bind already exists"},
    {"grant-root", rule_grant_root,
     "a write grant's root is a mount point: removing or renaming it fails, and the "
     "command is what needs the change"},
    {"not-refused", rule_not_refused,
     "ENOENT is a refusal only where the sandbox hid the path; where it shows the path, it "
     "is plain absence at that moment (issue 11)"},
    {"times", rule_times,
     "a timestamp refused on a path the task can read changes nothing the build depends "
     "on, nor does touch's open for writing before it sets the times"},
    {"refused", rule_refused, "every other refusal is a violation, with its note or fix"},
};

void judge_events(const struct judge_input *in, const struct access_event *ev, size_t nev,
		  struct verdict *out)
{
	struct judging j = {.in = in, .out = out, .ev = ev};
	/* touch opens the file for writing before it sets the times: the paths
	 * whose times the task tried to set (keys borrowed from the parser). */
	for (size_t i = 0; i < nev; i++)
		if (ev[i].op == ACCESS_UTIME && ev[i].path[0] == '/')
			strmap_put(&j.touched, ev[i].path, i);
	/* In a widened dir the wall lets every write through: the trace is
	 * the only judge. A file the task made and removed again (a temp file
	 * renamed over its output) changed nothing. */
	for (size_t i = 0; in->n_widened && i < nev; i++) {
		const struct access_event *e = &ev[i];
		if (e->err || e->op == ACCESS_PROBE_WRITE ||
		    !(e->write_intent || e->op == ACCESS_RENAME_FROM) || e->path[0] != '/')
			continue;
		bool removes =
		    e->op == ACCESS_UNLINK || e->op == ACCESS_RMDIR || e->op == ACCESS_RENAME_FROM;
		strmap_put(removes ? &j.gone : &j.made, e->path, i);
		if (e->op == ACCESS_MKDIR)
			strmap_put(&j.made_dirs, e->path, i);
	}
	if (in->keyed && in->n_write_roots) /* read only under a write grant */
		note_written(&j.written, &j.written_keys, ev, nev);
	for (size_t i = 0; i < nev; i++)
		for (size_t r = 0; r < sizeof rules / sizeof *rules; r++)
			if (rules[r].judge(&j, &ev[i], i) == RULE_SETTLED)
				break;
	/* what it read, for --explain-key: the unkeyed ones by their
	 * violations, the rest by where they lie (directories left out) */
	for (size_t r = 0; r < j.read_paths.n; r++) {
		const char *path = j.read_paths.v[r];
		bool unkeyed = false;
		for (size_t k = 0; k < out->violations.n && !unkeyed; k++)
			unkeyed = violation_unkeyed(&out->violations.v[k]) &&
				  path_is_within(out->violations.v[k].path, path);
		struct stat st;
		bool inside = under(in->workspace_root, path);
		if (inside && (lstat(path, &st) || S_ISDIR(st.st_mode)))
			continue;
		strvec_pushf(&out->reads, "%c %s", unkeyed ? 'U' : inside ? 'K' : 'O', path);
	}
	vec_free(&j.read_paths);
	strmap_clear(&j.read_seen);
	seen_clear(&j.seen);
	strmap_clear(&j.touched);
	strmap_clear(&j.made);
	strmap_clear(&j.gone);
	strmap_clear(&j.made_dirs);
	strmap_clear(&j.written);
	strvec_clear(&j.written_keys);
	note_unwritten(in, out);
	note_git(in, out);
	note_last_line(in, out);
	note_network(in, out);
	strvec_sort_unique(&out->fix_network);
	strvec_sort_unique(&out->fix_read);
	strvec_sort_unique(&out->fix_write);
	whole_list(&out->fix_inputs, in->input_files, in->n_input_files);
	whole_list(&out->fix_workspace_inputs, in->input_ws_files, in->n_input_ws_files);
}

void judge_output(const struct judge_input *in, struct verdict *out)
{
	memset(out, 0, sizeof *out);
	note_git(in, out);
	note_last_line(in, out);
	note_network(in, out);
}

void verdict_release(struct verdict *v)
{
	for (size_t i = 0; i < v->violations.n; i++) {
		free(v->violations.v[i].path);
		free(v->violations.v[i].reason);
	}
	vec_free(&v->violations);
	strvec_clear(&v->fix_network);
	for (size_t i = 0; i < v->notes.n; i++) {
		free(v->notes.v[i].path);
		free(v->notes.v[i].text);
	}
	vec_free(&v->notes);
	strvec_clear(&v->fix_read);
	strvec_clear(&v->fix_write);
	strvec_clear(&v->fix_inputs);
	strvec_clear(&v->fix_workspace_inputs);
	strvec_clear(&v->execs);
	strvec_clear(&v->reads);
	strvec_clear(&v->fix_toolchain);
	strvec_clear(&v->fix_ignore_read);
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
	add_note(out, "installs-at-build", pkg,
		 xasprintf("the task installs %s from the npm registry as it runs (npx, pnpm dlx, "
			   "yarn dlx or bunx): add it to the project's devDependencies (npm "
			   "install -D %s, or your package manager's add) so it is installed "
			   "before the build and its version is in the lockfile; a registry "
			   "grant would make the build fetch whatever the registry serves that "
			   "day",
			   name, *pkg ? pkg : "PACKAGE"));
}
