/* seatbelt_rules.c - what a Seatbelt profile allows a task, collected
 * from its request (sandbox/seatbelt_rules.h): the grants, refusals and
 * baselines request.c gives the bwrap plan, each a rule with a comment
 * naming the entry it comes from. A refusal here is the one Linux makes
 * (a credential store, a write through a link out of the project, a write
 * into a wall or a mandatory deny). */
#include "sandbox/seatbelt_rules.h"

#include <stdlib.h>
#include <string.h>

#include "sandbox/denies.h"
#include "sandbox/grants.h"
#include "sandbox/rootfiles.h"
#include "sandbox/seatbelt.h"
#include "sandbox/seatbelt_spell.h"
#include "util/glob.h"
#include "util/io.h"
#include "util/path.h"

/* The OS and its toolchains, read-only, for every task (hermetic too):
 * dyld's shared cache and the timezone database lie under /private/var/db;
 * /opt/homebrew and /usr/local hold Homebrew; Xcode and its command line
 * tools hold cc, git, make. */
const char *const seatbelt_os_roots[] = {
    "/usr",
    "/bin",
    "/sbin",
    "/System",
    "/Library",
    "/private/etc",
    "/private/var/db/dyld",
    "/private/var/db/timezone",
    "/dev",
    "/opt/homebrew",
    "/Applications/Xcode.app",
    NULL,
};

/* A host path, canonical. */
static char *host_path(const char *p)
{
	return grants_canonical(p);
}

static void rule_add(struct seatbelt_rules *b, enum sb_filter kind, unsigned ops, char *text,
		     char *root, char *why)
{
	struct seatbelt_rule r = {kind, ops, text, root, why, false, false};
	vec_push(&b->rules, r);
}

/* A path rule; dropped with a note when the path has no spelling. */
static void path_rule(struct seatbelt_rules *b, enum sb_filter kind, unsigned ops, const char *path,
		      char *why)
{
	struct strbuf t = STRBUF_INIT;
	if (sbpl_string(&t, path)) {
		strvec_pushf(b->notes, "%s: the path has a control character; it is not granted",
			     why);
		free(why);
	} else {
		rule_add(b, kind, ops, xstrdup(path), xstrdup(path), why);
	}
	strbuf_release(&t);
}

/* Each directory above path, "/" included, gets file-read-metadata: a
 * realpath, or node's module lookup, stats every component. */
static void meta_above(struct seatbelt_rules *b, const char *path)
{
	char *d = path_dirname(path);
	while (strcmp(d, path) && strvec_find(&b->meta, d) < 0) {
		strvec_push(&b->meta, d);
		if (!strcmp(d, "/"))
			break;
		char *up = path_dirname(d);
		free(d);
		d = up;
	}
	free(d);
}

/* One allow.read or allow.write entry: a literal is a subpath (a write
 * grant of a file is that file alone: macOS needs no directory widened),
 * a glob is a regex of its resolved head and the rest. */
static int grant(struct seatbelt_rules *b, const char *entry, bool write)
{
	struct strvec pats = STRVEC_INIT;
	if (glob_expand_braces(entry, &pats) < 0) {
		strbuf_addf(b->err,
			    "grant '%s': its braces are unclosed or expand to too many paths",
			    entry);
		return -1;
	}
	const char *key = write ? "allow.write" : "allow.read";
	unsigned ops = write ? SB_READ | SB_WRITE : SB_READ;
	int rc = 0;
	for (size_t i = 0; i < pats.n && !rc; i++) {
		char *pat = pats.v[i];
		bool tree = grants_collapse_tree(pat);
		/* from the canonical project, as request.c resolves grants: a
		 * "..", and the link checks below, mean what they mean there */
		char *abs = grants_absolute(pat, entry, b->proj, b->in->home, b->err);
		if (!abs) {
			rc = -1;
			break;
		}
		size_t plen = strlen(pat);
		bool want_dir = tree || (plen && pat[plen - 1] == '/');
		char *why = xasprintf("%s: \"%s\"", key, entry);
		if (!glob_has_magic(abs)) {
			char *lit = glob_unescape(abs, strlen(abs));
			char *path = host_path(lit);
			const struct wall *w = walls_holding(&b->walls, path);
			if (w && w->kind == WALL_CREDENTIAL) {
				strbuf_addf(
				    b->err,
				    "%s grant '%s' lies in %s, a credential store; vx never "
				    "grants it",
				    write ? "write" : "read", entry, w->path);
				rc = -1;
				free(why);
			} else if (write && grants_link_out(b->proj, lit, path)) {
				grants_say_link_out(b->err, entry, path, b->proj);
				rc = -1;
				free(why);
			} else if (write && w && w->kind != WALL_NESTED) {
				rc = walls_say_no_writes(b->err, entry, w);
				free(why);
			} else if (write &&
				   denies_refuse_write(b->err, entry, path, b->ws, b->home)) {
				rc = -1;
				free(why);
			} else {
				bool subpath = !write || want_dir || fs_is_dir(path);
				size_t before = b->rules.n;
				path_rule(b, subpath ? SB_SUBPATH : SB_LITERAL, ops, path, why);
				if (b->rules.n > before) {
					b->rules.v[before].denies = write;
					meta_above(b, path);
				}
			}
			free(path);
			free(lit);
			free(abs);
			continue;
		}
		const char *bad;
		size_t off;
		if (glob_check(abs + 1, &bad, &off)) {
			strbuf_addf(b->err, "grant '%s': %s", entry, bad);
			free(why);
			free(abs);
			rc = -1;
			break;
		}
		size_t lit = glob_literal_prefix(abs + 1);
		char *head_lex = lit ? glob_unescape(abs, lit + 1) : xstrdup("/");
		char *head = host_path(head_lex);
		/* a write glob's head, refused as a literal write grant is */
		const struct wall *hw = write ? walls_holding(&b->walls, head) : NULL;
		bool refused = write && grants_link_out(b->proj, head_lex, head);
		if (refused)
			grants_say_link_out(b->err, entry, head, b->proj);
		else if (hw && hw->kind != WALL_NESTED)
			refused = walls_say_no_writes(b->err, entry, hw) < 0;
		else if (write)
			refused = denies_refuse_write(b->err, entry, head, b->ws, b->home) < 0;
		if (refused) {
			free(head);
			free(head_lex);
			free(why);
			free(abs);
			rc = -1;
			break;
		}
		char *head_spelled = seatbelt_spell(head);
		const char *rest = abs + 1 + lit + (lit ? 1 : 0);
		struct strbuf rx = STRBUF_INIT;
		strbuf_addch(&rx, '^');
		int bad_rx = sbpl_rx_literal(&rx, head_spelled, strlen(head_spelled));
		free(head_spelled);
		if (strcmp(head, "/"))
			strbuf_addch(&rx, '/');
		if (!bad_rx)
			bad_rx = sbpl_rx_glob(&rx, rest);
		/* A hit that is a directory is granted whole, as on Linux. */
		strbuf_addstr(&rx, "(/.*)?$");
		if (bad_rx) {
			strvec_pushf(
			    b->notes,
			    "%s %s has no spelling in a Seatbelt profile (an escaped * or ?, "
			    "a \", \\ or ^, or a class of a quote, a backslash or a control "
			    "byte): it is left out on macOS",
			    key, entry);
			free(why);
			strbuf_release(&rx);
		} else {
			rule_add(b, SB_REGEX, ops, strbuf_detach(&rx, NULL), xstrdup(head), why);
			b->rules.v[b->rules.n - 1].denies = write;
			if (strvec_find(&b->meta, head) < 0 && strcmp(head, "/"))
				strvec_push(&b->meta, head);
			meta_above(b, head);
		}
		free(head);
		free(head_lex);
		free(abs);
	}
	strvec_clear(&pats);
	return rc;
}

/* A baseline read (the project, node_modules, a linked package, a
 * toolchain): a subpath, and its ancestors' metadata. */
static void base_read(struct seatbelt_rules *b, const char *path, char *why)
{
	path_rule(b, SB_SUBPATH, SB_READ, path, why);
	meta_above(b, path);
}

/* What request.c's baseline_reads and dep_output grant, the same way. */
static void baselines(struct seatbelt_rules *b)
{
	base_read(b, b->proj, xstrdup("the project"));
	const char *roots[] = {b->proj, b->ws};
	for (size_t i = 0; i < 2; i++) {
		char *nm = path_join(roots[i], "node_modules");
		if (fs_is_dir(nm) && (i == 0 || strcmp(b->proj, b->ws)))
			base_read(b, nm,
				  xstrdup(i ? "the workspace's node_modules"
					    : "the project's node_modules"));
		free(nm);
	}
	struct strvec root = STRVEC_INIT;
	sandbox_root_files(b->ws, b->proj, b->in->input_ws_files, b->in->n_input_ws_files, &root);
	for (size_t i = 0; i < root.n; i++) {
		path_rule(b, SB_LITERAL, SB_READ, root.v[i], xstrdup("a workspace root file"));
		meta_above(b, root.v[i]);
	}
	strvec_clear(&root);
	for (size_t i = 0; i < b->in->n_linked; i++) {
		char *real = host_path(b->in->linked_projects[i]);
		if (walls_show_linked(&b->walls, b->ws, b->proj, real) &&
		    sandbox_input_keys(b->in, real)) {
			char *rel = path_relative(b->ws, real);
			base_read(b, real, xasprintf("a linked workspace package (%s)", rel));
			free(rel);
		}
		free(real);
	}
	for (size_t i = 0; i < b->in->n_dep_outputs; i++) {
		/* the file it is: a link stays the link, and what it points
		 * at is read only where the task may read it anyway */
		char *at = grants_canonical_dir(b->in->dep_outputs[i]);
		const struct wall *w = walls_holding(&b->walls, at);
		if (path_is_within(b->ws, at) && (!w || w->kind == WALL_NESTED)) {
			path_rule(b, SB_LITERAL, SB_READ, at, xstrdup("a dependency's output"));
			meta_above(b, at);
		} else {
			strvec_pushf(
			    b->notes,
			    "a dependency's output %s leads through a link to %s, %s; it is "
			    "not shown to the task",
			    b->in->dep_outputs[i], at,
			    w ? walls_kind_name(w->kind) : "outside the workspace");
		}
		free(at);
	}
}

/* The toolchain a task's PATH names outside the OS roots and the
 * workspace (a bin/ under home brings its install prefix, as on Linux),
 * and the read-only tool caches under home. Not for a hermetic task. */
static void toolchain_reads(struct seatbelt_rules *b, const char *path_var)
{
	const char *s = path_var;
	for (char *dir; (dir = grants_path_next(&s));) {
		char *real = host_path(dir);
		free(dir);
		char *spelled = seatbelt_spell(real);
		bool in_os = false;
		for (const char *const *r = seatbelt_os_roots; *r; r++)
			in_os |= path_is_within(*r, spelled);
		free(spelled);
		char *grant_dir = grants_toolchain_dir(real, b->home);
		if (!in_os && !path_is_within(b->ws, grant_dir) && strcmp(grant_dir, "/") &&
		    !(b->home && !strcmp(grant_dir, b->home)) &&
		    !walls_holding(&b->walls, grant_dir) && fs_is_dir(grant_dir)) {
			bool dup = false;
			for (size_t i = 0; i < b->rules.n; i++)
				dup |= !strcmp(b->rules.v[i].text, grant_dir);
			if (!dup)
				base_read(b, grant_dir, xstrdup("a toolchain directory on PATH"));
		}
		free(grant_dir);
		free(real);
	}
	for (const char *const *c = sandbox_home_caches; b->home && *c; c++) {
		char *p = path_join(b->home, *c);
		if (fs_is_dir(p))
			base_read(b, p, xasprintf("a tool cache (~/%s)", *c));
		free(p);
	}
}

void seatbelt_rules_release(struct seatbelt_rules *b)
{
	for (size_t i = 0; i < b->rules.n; i++) {
		free(b->rules.v[i].text);
		free(b->rules.v[i].root);
		free(b->rules.v[i].why);
	}
	vec_free(&b->rules);
	walls_clear(&b->walls);
	strvec_clear(&b->meta);
	strvec_clear(&b->sockets);
	free(b->ws);
	free(b->proj);
	free(b->home);
	free(b->tmp);
}

/* Refuses a project whose path a glob would misread. */
static int plain_project(const char *proj, struct strbuf *err)
{
	size_t bad = strcspn(proj, "[*?{");
	if (!proj[bad])
		return 0;
	strbuf_addf(err,
		    "the project %s lies under a directory whose name holds '%c': its grants "
		    "could not be told from globs in a Seatbelt profile; rename the directory",
		    proj, proj[bad]);
	return -1;
}

int seatbelt_rules_make(struct seatbelt_rules *b, const struct sandbox_input *in,
			struct strvec *notes, struct strbuf *err)
{
	*b = (struct seatbelt_rules){.in = in, .notes = notes, .err = err};
	if (!in->workspace_root || !in->project_dir) {
		strbuf_addstr(err,
			      "a sandbox request needs the workspace root and the project dir");
		return -1;
	}
	b->ws = host_path(in->workspace_root);
	b->proj = host_path(in->project_dir);
	b->home = in->home && *in->home ? host_path(in->home) : NULL;
	b->tmp = host_path(in->tmpdir ? in->tmpdir : "/tmp");
	char *proj_spelled = seatbelt_spell(b->proj);
	int rc = plain_project(proj_spelled, err);
	free(proj_spelled);
	struct strvec env = STRVEC_INIT;
	struct env_input ei = in->env;
	ei.home = in->home;
	ei.tmpdir = b->tmp;
	if (!rc)
		rc = env_build(&ei, &env, err);
	if (!rc) {
		char *cache = in->cache_dir ? host_path(in->cache_dir) : NULL;
		char *run = in->run_base ? host_path(in->run_base) : NULL;
		struct walls_input wi = {.workspace_root = b->ws,
					 .project_dir = b->proj,
					 .home = b->home,
					 .cache_dir = cache,
					 .run_base = run,
					 .nested_dirs = in->nested_dirs,
					 .n_nested = in->n_nested};
		walls_collect(&wi, &b->walls);
		free(cache);
		free(run);
	}
	if (!rc) {
		path_rule(b, SB_SUBPATH, SB_READ | SB_WRITE, b->tmp, xstrdup("its TMPDIR"));
		if (b->rules.n)
			b->rules.v[b->rules.n - 1].own = true;
		meta_above(b, b->tmp);
	}
	if (!rc)
		baselines(b);
	const char *path_var = NULL;
	for (size_t i = 0; i < env.n; i++)
		if (!strncmp(env.v[i], "PATH=", 5))
			path_var = env.v[i] + 5;
	if (!rc && !in->hermetic)
		toolchain_reads(b, path_var);
	for (size_t i = 0; !rc && i < in->n_read; i++)
		rc = grant(b, in->allow_read[i], false);
	for (size_t i = 0; !rc && i < in->n_write; i++)
		rc = grant(b, in->allow_write[i], true);
	if (!rc) {
		/* a literal can name a socket made later (a bind cannot): one
		 * that names nothing yet is granted too */
		struct strvec missing = STRVEC_INIT;
		rc = sandbox_socket_paths(in, b->proj, b->home, &b->walls, &b->sockets, &missing,
					  err);
		for (size_t i = 1; i < missing.n; i += 2)
			strvec_push(&b->sockets, missing.v[i]);
		strvec_clear(&missing);
		for (size_t i = 0; !rc && i < b->sockets.n; i++)
			path_rule(b, SB_LITERAL, SB_READ | SB_WRITE, b->sockets.v[i],
				  xstrdup("allow.unixSockets"));
	}
	strvec_clear(&env);
	return rc;
}
