/* seatbelt.c - a sandbox request as a Seatbelt profile.
 *
 * The profile is `(deny default)` and then allows, and the walls come
 * LAST: Seatbelt takes the last rule that matches an operation, so a deny
 * placed before the grants would be inert. Every path is the resolved one
 * (macOS checks the vnode's path: /tmp is /private/tmp). One rule per
 * grant, with a comment naming the entry it comes from, so `vx sandbox
 * show --platform darwin` reads as the config does. */
#include "sandbox/seatbelt.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sandbox/denies.h"
#include "sandbox/grants.h"
#include "sandbox/rootfiles.h"
#include "sandbox/walls.h"
#include "util/glob.h"
#include "util/io.h"
#include "util/path.h"

enum { OP_READ = 1, OP_WRITE = 2, OP_META = 4 };
enum filt { F_LITERAL, F_SUBPATH, F_REGEX };

struct rule {
	enum filt kind;
	unsigned ops;
	char *text;  /* the path (literal, subpath) or the regex */
	char *root;  /* the directory that bounds its matches: the path, or the glob's head */
	char *why;   /* the comment: where it comes from */
	bool denies; /* an allow.write grant: the mandatory denies are scoped to it */
	bool own;    /* its TMPDIR: carved out of the wall it lies in (vx's run dirs) */
};

struct builder {
	const struct sandbox_input *in;
	struct strvec *notes;
	struct strbuf *err;
	char *ws, *proj, *home, *tmp; /* as the profile names them */
	wall_vec walls;		      /* likewise */
	VEC(struct rule) rules;
	struct strvec meta;    /* directories above a grant: file-read-metadata, literal */
	struct strvec sockets; /* allow.unixSockets resolved (sandbox_socket_paths) */
};

/* The OS and its toolchains, read-only, for every task (hermetic too):
 * dyld's shared cache and the timezone database lie under /private/var/db;
 * /opt/homebrew and /usr/local hold Homebrew; Xcode and its command line
 * tools hold cc, git, make. */
static const char *const os_roots[] = {
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

/* The links macOS keeps at / (readlink of each is a metadata read). */
static const char *const os_links[] = {"/etc", "/tmp", "/var", NULL};

/* Read-only kernel facts a process reads before its main(): the page
 * size and CPUs (libSystem, node's os module, every thread pool), the OS
 * release (uname), the stack top. None names the user or the machine. */
static const char *const sysctl_base[] = {
    "hw.activecpu",
    "hw.byteorder",
    "hw.cachelinesize",
    "hw.cpufamily",
    "hw.cputype",
    "hw.logicalcpu",
    "hw.logicalcpu_max",
    "hw.machine",
    "hw.memsize",
    "hw.ncpu",
    "hw.optional.*",
    "hw.pagesize",
    "hw.pagesize_compat",
    "hw.perflevel*",
    "hw.physicalcpu",
    "hw.physicalcpu_max",
    "kern.argmax",
    "kern.osproductversion",
    "kern.osrelease",
    "kern.ostype",
    "kern.osvariant_status",
    "kern.osversion",
    "kern.secure_kernel",
    "kern.usrstack64",
    "kern.version",
    "sysctl.proc_cputype",
    NULL,
};

/* The links at / that macOS resolves: a canonical path under one of them
 * is named under /private. (On macOS realpath already says so; on any
 * other host, where `vx sandbox show --platform darwin` and the tests
 * run, the builder keeps host paths for its file system checks and
 * spells them so only in the text.) */
char *seatbelt_spell(const char *c)
{
	for (const char *const *l = os_links; *l; l++)
		if (path_is_within(*l, c))
			return xasprintf("/private%s", c);
	return xstrdup(c);
}

char *seatbelt_path(const char *p)
{
	char *c = grants_canonical(p);
	char *s = seatbelt_spell(c);
	free(c);
	return s;
}

/* Appends path (a host path) as an SBPL string ("…", `\` and `"`
 * escaped), spelled as macOS names it. Returns -1 (and appends nothing)
 * for a control character: no spelling. */
static int add_string(struct strbuf *out, const char *path)
{
	char *s = seatbelt_spell(path);
	for (const char *q = s; *q; q++)
		if ((unsigned char)*q < 0x20 || *q == 0x7f) {
			free(s);
			return -1;
		}
	strbuf_addch(out, '"');
	for (const char *q = s; *q; q++) {
		if (*q == '"' || *q == '\\')
			strbuf_addch(out, '\\');
		strbuf_addch(out, *q);
	}
	strbuf_addch(out, '"');
	free(s);
	return 0;
}

/* A host path, canonical. */
static char *host_path(const char *p)
{
	return grants_canonical(p);
}

/* Appends the n bytes of s as a regex matching them literally. A character
 * that is an operator is a one-member bracket (`.` is `[.]`, `[` is `[[]`;
 * `]` alone is itself). `*` and `?` (only escaped ones reach here), `"`,
 * `\`, `^` and control characters have no spelling inside `#"…"`: -1. */
static int add_rx_literal(struct strbuf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f || strchr("*?\"\\^", c))
			return -1;
		if (strchr(".+()|${}[", c))
			strbuf_addf(out, "[%c]", c);
		else
			strbuf_addch(out, (char)c);
	}
	return 0;
}

/* Appends a bracket expression of glob class at *p (just past its `[`),
 * moving *p past its `]`. The class's members are read as glob.c's
 * class_has reads them (an escape is its byte; `x-y` every byte from x to
 * y) and written out one by one, so no ERE range, collating form or
 * locale can read them otherwise (fuzz_seatbelt_profile found `a-c-c` and
 * `[.` inside a class). Returns -1 when it has no spelling (a `"`, `\` or
 * control byte among the members, a positive class of nothing but `^` or
 * `/`), 1 when the `[` is unclosed (a literal then), 0 when done. */
static int add_rx_class(struct strbuf *out, const char **p)
{
	const char *q = *p;
	bool neg = *q == '!' || *q == '^';
	if (neg)
		q++;
	const char *first = q;
	while (*q && (*q != ']' || q == first)) {
		if (*q == '\\' && q[1])
			q++;
		q++;
	}
	if (!*q)
		return 1;
	const char *end = q;
	bool set[256] = {false};
	for (const char *m = first; m < end;) {
		if (*m == '\\' && m + 1 < end)
			m++;
		unsigned char lo = (unsigned char)*m++, hi = lo;
		if (m + 1 < end && *m == '-') {
			m++;
			if (*m == '\\' && m + 1 < end)
				m++;
			hi = (unsigned char)*m++;
		}
		for (unsigned c = lo; c <= hi; c++)
			set[c] = true;
	}
	set['/'] = false; /* a class never matches '/' (glob.h) */
	size_t n = 0;
	for (unsigned c = 0; c < 256; c++) {
		if (!set[c])
			continue;
		if (c < 0x20 || c == 0x7f || c == '"' || c == '\\')
			return -1;
		n++;
	}
	if (!neg && (n == 0 || (n == 1 && set['^'])))
		return -1;
	/* `]` first, the plain bytes, then `[` (never followed by . : =),
	 * `^` (never first of a positive class) and `-` last */
	struct strbuf m = STRBUF_INIT;
	if (set[']'])
		strbuf_addch(&m, ']');
	if (neg)
		strbuf_addch(&m, '/'); /* after a `]` member: first, it would close */
	for (unsigned c = 0; c < 256; c++)
		if (set[c] && !strchr("]^-[", (int)c))
			strbuf_addch(&m, (char)c);
	if (set['['])
		strbuf_addch(&m, '[');
	if (set['^']) {
		if (!neg && !m.len) {
			strbuf_addch(&m, '-'); /* {^, -}: "-^", not a negation */
			set['-'] = false;
		}
		strbuf_addch(&m, '^');
	}
	if (set['-'])
		strbuf_addch(&m, '-');
	strbuf_addstr(out, neg ? "[^" : "[");
	strbuf_add(out, m.buf, m.len);
	strbuf_addch(out, ']');
	strbuf_release(&m);
	*p = end + 1;
	return 0;
}

/* Appends the regex for glob pat (relative, braces expanded): `*` is
 * `[^/]*`, `?` is `[^/]`, a whole `**` segment is any number of them, and
 * a trailing "/" + "**" also matches the directory itself. Returns -1 when
 * pat has no spelling. */
static int add_rx_glob(struct strbuf *out, const char *pat)
{
	for (const char *p = pat; *p;) {
		bool seg_start = p == pat || p[-1] == '/';
		if (seg_start && p[0] == '*' && p[1] == '*' && (p[2] == '/' || !p[2])) {
			if (p[2] == '/') {
				strbuf_addstr(out, "(.*/)?");
				p += 3;
			} else {
				strbuf_addstr(out, ".*");
				p += 2;
			}
			continue;
		}
		if (p[0] == '/' && p[1] == '*' && p[2] == '*' && !p[3]) {
			strbuf_addstr(out, "(/.*)?");
			break;
		}
		switch (*p) {
		case '*':
			while (*p == '*')
				p++;
			strbuf_addstr(out, "[^/]*");
			continue;
		case '?':
			strbuf_addstr(out, "[^/]");
			p++;
			continue;
		case '[': {
			p++;
			int rc = add_rx_class(out, &p);
			if (rc < 0)
				return -1;
			if (rc > 0)
				strbuf_addstr(out, "[[]");
			continue;
		}
		case '\\':
			if (!p[1])
				return -1;
			p++;
			if (*p == '[')
				strbuf_addstr(out, "[[]");
			else if (*p == ']')
				strbuf_addch(out, ']');
			else if (add_rx_literal(out, p, 1))
				return -1;
			p++;
			continue;
		default:
			if (add_rx_literal(out, p, 1))
				return -1;
			p++;
		}
	}
	return 0;
}

static void rule_add(struct builder *b, enum filt kind, unsigned ops, char *text, char *root,
		     char *why)
{
	struct rule r = {kind, ops, text, root, why, false, false};
	vec_push(&b->rules, r);
}

/* A path rule; dropped with a note when the path has no spelling. */
static void path_rule(struct builder *b, enum filt kind, unsigned ops, const char *path, char *why)
{
	struct strbuf t = STRBUF_INIT;
	if (add_string(&t, path)) {
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
static void meta_above(struct builder *b, const char *path)
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
static int grant(struct builder *b, const char *entry, bool write)
{
	struct strvec pats = STRVEC_INIT;
	if (glob_expand_braces(entry, &pats) < 0) {
		strbuf_addf(b->err,
			    "grant '%s': its braces are unclosed or expand to too many paths",
			    entry);
		return -1;
	}
	const char *key = write ? "allow.write" : "allow.read";
	unsigned ops = write ? OP_READ | OP_WRITE : OP_READ;
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
				path_rule(b, subpath ? F_SUBPATH : F_LITERAL, ops, path, why);
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
		int bad_rx = add_rx_literal(&rx, head_spelled, strlen(head_spelled));
		free(head_spelled);
		if (strcmp(head, "/"))
			strbuf_addch(&rx, '/');
		if (!bad_rx)
			bad_rx = add_rx_glob(&rx, rest);
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
			rule_add(b, F_REGEX, ops, strbuf_detach(&rx, NULL), xstrdup(head), why);
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
static void base_read(struct builder *b, const char *path, char *why)
{
	path_rule(b, F_SUBPATH, OP_READ, path, why);
	meta_above(b, path);
}

/* What request.c's baseline_reads and dep_output grant, the same way. */
static void baselines(struct builder *b)
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
		path_rule(b, F_LITERAL, OP_READ, root.v[i], xstrdup("a workspace root file"));
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
			path_rule(b, F_LITERAL, OP_READ, at, xstrdup("a dependency's output"));
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
static void toolchain_reads(struct builder *b, const char *path_var)
{
	const char *s = path_var;
	for (char *dir; (dir = grants_path_next(&s));) {
		char *real = host_path(dir);
		free(dir);
		char *spelled = seatbelt_spell(real);
		bool in_os = false;
		for (const char *const *r = os_roots; *r; r++)
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

/* ---- writing the profile ---- */

static void add_filter(struct strbuf *out, const struct rule *r)
{
	static const char *const names[] = {"literal", "subpath", "regex"};
	strbuf_addf(out, "(%s ", names[r->kind]);
	if (r->kind == F_REGEX)
		strbuf_addf(out, "#\"%s\"", r->text);
	else
		add_string(out, r->text);
	strbuf_addch(out, ')');
}

static const char *ops_text(unsigned ops)
{
	return ops & OP_WRITE  ? "file-read* file-write*"
	       : ops & OP_READ ? "file-read*"
			       : "file-read-metadata";
}

static void add_allow(struct strbuf *out, const struct rule *r)
{
	strbuf_addf(out, "(allow %s ", ops_text(r->ops));
	add_filter(out, r);
	strbuf_addf(out, ") ; %s\n", r->why);
}

/* The names list as (NAME "x") filters; a trailing `*` is a -prefix one. */
static void add_names(struct strbuf *out, const char *filter, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		bool prefix = len && names[i][len - 1] == '*';
		char *stem = xstrndup(names[i], prefix ? len - 1 : len);
		strbuf_addf(out, "\n    (%s%s ", filter, prefix ? "-prefix" : "");
		add_string(out, stem);
		strbuf_addch(out, ')');
		free(stem);
	}
}

enum reach { R_NONE, R_ABOVE, R_EQUAL, R_INSIDE };

/* Where rule r's matches stand to directory w. */
static enum reach reach(const struct rule *r, const char *w)
{
	if (!strcmp(r->root, w))
		return R_EQUAL;
	if (r->kind != F_LITERAL && path_is_within(r->root, w))
		return R_ABOVE;
	if (path_is_within(w, r->root))
		return R_INSIDE;
	return R_NONE;
}

/* (deny OPS W) with each carve-out, a rule inside W (or W itself) of the
 * denied kind, taken back out: the grant stands, the rest of W does not. */
/* Is rule r taken back out of wall w? Every grant in it, when carve_all
 * (a nested project, the anchor); else only its TMPDIR. */
static bool carved(const struct rule *r, const char *w, bool carve_all)
{
	enum reach at = reach(r, w);
	return (at == R_EQUAL || at == R_INSIDE) && (carve_all || r->own);
}

/* Is the directory m above a grant carved out of w? */
static bool meta_carved(const struct builder *b, const char *m, const char *w, bool carve_all)
{
	if (!path_is_within(w, m))
		return false;
	for (size_t i = 0; !carve_all && i < b->rules.n; i++)
		if (b->rules.v[i].own && path_is_within(m, b->rules.v[i].root))
			return true;
	return carve_all;
}

static void add_deny(struct strbuf *out, struct builder *b, const char *w, unsigned deny_ops,
		     bool carve_all, const char *why)
{
	struct strbuf c = STRBUF_INIT;
	for (size_t i = 0; i < b->rules.n; i++) {
		const struct rule *r = &b->rules.v[i];
		bool kind = deny_ops == OP_WRITE ? (r->ops & OP_WRITE) != 0 : true;
		if (kind && carved(r, w, carve_all)) {
			strbuf_addstr(&c, "\n        (require-not ");
			add_filter(&c, r);
			strbuf_addch(&c, ')');
		}
	}
	for (size_t i = 0; deny_ops != OP_WRITE && i < b->meta.n; i++)
		if (meta_carved(b, b->meta.v[i], w, carve_all)) {
			strbuf_addstr(&c, "\n        (require-not (literal ");
			add_string(&c, b->meta.v[i]);
			strbuf_addstr(&c, "))");
		}
	const char *ops = deny_ops == OP_WRITE	? "file-write*"
			  : deny_ops == OP_READ ? "file-read*"
						: "file-read* file-write*";
	strbuf_addf(out, "(deny %s ", ops);
	if (c.len) {
		strbuf_addstr(out, "(require-all (subpath ");
		add_string(out, w);
		strbuf_addf(out, ")%s)", c.buf);
	} else {
		strbuf_addstr(out, "(subpath ");
		add_string(out, w);
		strbuf_addch(out, ')');
	}
	strbuf_addf(out, ") ; %s\n", why);
	strbuf_release(&c);
}

/* A wall with carve-outs: read and write denied apart when what is carved
 * differs (a read grant inside must not become writable through a write
 * grant above). */
static void add_wall(struct strbuf *out, struct builder *b, const char *w, bool carve_all,
		     const char *why)
{
	bool differ = false;
	for (size_t i = 0; i < b->rules.n; i++)
		differ |= carved(&b->rules.v[i], w, carve_all) && !(b->rules.v[i].ops & OP_WRITE);
	for (size_t i = 0; i < b->meta.n; i++)
		differ |= meta_carved(b, b->meta.v[i], w, carve_all);
	if (differ) {
		add_deny(out, b, w, OP_READ, carve_all, why);
		add_deny(out, b, w, OP_WRITE, carve_all, why);
	} else {
		add_deny(out, b, w, OP_READ | OP_WRITE, carve_all, why);
	}
}

/* The walls, last. The workspace anchor when a grant from outside it
 * (an OS root, a toolchain, ~) would reach into it; each wall a grant
 * reaches from above (or, for .git, the cache and the credential stores,
 * from inside: no grant opens them); a nested project keeps the grants
 * inside it carved out. */
static void walls_section(struct strbuf *out, struct builder *b)
{
	bool anchor = false;
	for (size_t i = 0; i < b->rules.n; i++)
		anchor |= reach(&b->rules.v[i], b->ws) == R_ABOVE;
	bool header = false;
	if (anchor) {
		strbuf_addstr(out, "\n;; walls: last, so they win over the grants above\n");
		header = true;
		add_wall(out, b, b->ws, true, "the workspace: only what is granted in it");
	}
	for (size_t k = 0; k < b->walls.n; k++) {
		const struct wall *w = &b->walls.v[k];
		bool nested = w->kind == WALL_NESTED, hit = false;
		for (size_t i = 0; i < b->rules.n && !hit; i++) {
			const struct rule *r = &b->rules.v[i];
			enum reach at = reach(r, w->path);
			hit = at == R_ABOVE || (!nested && !r->own && at != R_NONE);
		}
		if (!hit)
			continue;
		if (!header) {
			strbuf_addstr(out, "\n;; walls: last, so they win over the grants above\n");
			header = true;
		}
		char *rel = path_is_within(b->ws, w->path) ? path_relative(b->ws, w->path) : NULL;
		char *in_home = !rel && b->home && path_is_within(b->home, w->path)
				    ? path_relative(b->home, w->path)
				    : NULL;
		char *why = rel	      ? xasprintf("%s: %s", walls_kind_name(w->kind), rel)
			    : in_home ? xasprintf("%s: ~/%s", walls_kind_name(w->kind), in_home)
				      : xstrdup(walls_kind_name(w->kind));
		free(in_home);
		add_wall(out, b, w->path, nested, why);
		free(why);
		free(rel);
	}
	/* another task's outputs this one does not wait for, as the bwrap
	 * plan masks them (request.c other_outputs) */
	for (size_t i = 0; i < b->in->n_other_outputs; i++) {
		char *d = host_path(b->in->other_outputs[i]);
		bool held = !path_is_within(b->proj, d) || !strcmp(d, b->proj);
		for (size_t k = 0; k < b->rules.n && !held; k++) {
			const struct rule *r = &b->rules.v[k];
			held = path_is_within(d, r->root) ||
			       ((r->ops & OP_WRITE) && path_is_within(r->root, d));
		}
		if (!held) {
			if (!header) {
				strbuf_addstr(
				    out, "\n;; walls: last, so they win over the grants above\n");
				header = true;
			}
			add_wall(out, b, d, true,
				 "another task's outputs, which it does not wait for");
		}
		free(d);
	}
}

/* Inside each allow.write grant, the startup files and hooks of
 * denies.h stay read-only (a regex covers those made later too). */
/* The files that decide what vx runs stay read-only inside every write
 * grant but a literal one naming that very file, as the bwrap plan binds
 * them (request.c's protect_configs); here a missing one is refused too. */
static void configs_section(struct strbuf *out, struct builder *b)
{
	bool header = false;
	for (size_t i = 0; i < b->in->n_config; i++) {
		char *f = host_path(b->in->config_files[i]);
		bool inside = false, named = false;
		for (size_t k = 0; k < b->rules.n; k++) {
			const struct rule *r = &b->rules.v[k];
			if (!r->denies || !path_is_within(r->root, f))
				continue;
			inside = true;
			named |= r->kind == F_LITERAL && !strcmp(r->root, f);
		}
		if (inside && !named) {
			if (!header)
				strbuf_addstr(out, "\n;; what decides what vx runs: read-only in a "
						   "write grant that does not name it\n");
			header = true;
			char *spelled = seatbelt_spell(f);
			strbuf_addstr(out, "(deny file-write* (literal ");
			add_string(out, spelled);
			strbuf_addstr(out, "))\n");
			free(spelled);
		}
		free(f);
	}
}

static void denies_section(struct strbuf *out, struct builder *b)
{
	bool header = false;
	for (size_t i = 0; i < b->rules.n; i++) {
		const struct rule *r = &b->rules.v[i];
		if (!r->denies)
			continue;
		if (!header) {
			strbuf_addstr(out, "\n;; mandatory denies: inside a write grant, startup "
					   "files and hooks stay read-only\n");
			header = true;
		}
		const struct deny_rule *whole = denies_match(r->root);
		if (whole) {
			strbuf_addstr(out, "(deny file-write* ");
			add_filter(out, r);
			strbuf_addf(out, ") ; %s: %s\n", r->why, whole->why);
			continue;
		}
		if (r->kind == F_LITERAL)
			continue;
		strbuf_addstr(out, "(deny file-write*");
		for (const struct deny_rule *d = denies_table; d->name; d++) {
			strbuf_addstr(out, "\n    (regex #\"^");
			char *root = seatbelt_spell(r->root);
			add_rx_literal(out, root, strlen(root));
			free(root);
			strbuf_addstr(out, "/(.*/)?");
			add_rx_literal(out, d->name, strlen(d->name));
			strbuf_addstr(out, "(/.*)?$\")");
		}
		strbuf_addf(out, ") ; inside %s\n", r->why);
	}
	configs_section(out, b);
}

static void network_section(struct strbuf *out, const struct builder *b)
{
	const struct sandbox_input *in = b->in;
	strbuf_addstr(out, "\n;; network: none but what is listed\n(deny network*)\n");
	bool any = (in->proxy && in->proxy_port) || in->n_relays || in->n_local || in->local_any ||
		   b->sockets.n;
	if (any)
		strbuf_addstr(out, "(allow system-socket)\n");
	if (in->proxy && in->proxy_port)
		strbuf_addf(out,
			    "(allow network-outbound (remote ip \"localhost:%d\")) ; the task's "
			    "proxy (allow.network hosts)\n",
			    in->proxy_port);
	for (size_t i = 0; i < in->n_relays; i++)
		strbuf_addf(
		    out,
		    "(allow network-outbound (remote ip \"localhost:%d\")) ; allow.network: "
		    "localhost:%d\n",
		    in->relay_ports[i], in->relay_ports[i]);
	if (in->n_local || in->local_any) {
		strbuf_addstr(out,
			      "(allow network-bind network-inbound (local ip \"localhost:*\")) ; "
			      "localBinding: a profile cannot narrow it to ");
		if (in->local_any)
			strbuf_addstr(out, "any port anyway");
		for (size_t i = 0; i < in->n_local; i++)
			strbuf_addf(out, "%s%d", i ? ", " : "its ports ", in->local_ports[i]);
		strbuf_addch(out, '\n');
		for (size_t i = 0; i < in->n_local; i++)
			strbuf_addf(out,
				    "(allow network-outbound (remote ip \"localhost:%d\")) ; "
				    "localBinding: its own server\n",
				    in->local_ports[i]);
	}
	for (size_t i = 0; i < b->sockets.n; i++) {
		struct strbuf s = STRBUF_INIT;
		if (!add_string(&s, b->sockets.v[i]))
			strbuf_addf(
			    out,
			    "(allow network-outbound (remote unix-socket (path-literal %s))) "
			    "; allow.unixSockets\n",
			    s.buf);
		strbuf_release(&s);
	}
}

static int meta_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void write_profile(struct strbuf *out, struct builder *b)
{
	const struct sandbox_input *in = b->in;
	strbuf_addstr(out, "(version 1)\n(deny default)\n\n;; processes: its own tree\n"
			   "(allow process-exec process-fork)\n"
			   "(allow signal (target same-sandbox))\n"
			   "(allow process-info* (target same-sandbox))\n");
	strbuf_addstr(out, "(allow sysctl-read");
	size_t nbase = 0;
	while (sysctl_base[nbase])
		nbase++;
	add_names(out, "sysctl-name", sysctl_base, nbase);
	strbuf_addstr(out, ") ; what every process reads before main()\n");
	if (in->n_system_info) {
		strbuf_addstr(out, "(allow sysctl-read");
		add_names(out, "sysctl-name", in->system_info, in->n_system_info);
		strbuf_addstr(out, ") ; allow.systemInfo\n");
	}
	if (in->n_mach) {
		strbuf_addstr(out, "(allow mach-lookup");
		add_names(out, "global-name", in->mach_lookup, in->n_mach);
		strbuf_addstr(out, ") ; allow.machLookup\n");
	}
	strbuf_addstr(out, "\n;; the OS and its toolchains: read\n(allow file-read*");
	for (const char *const *r = os_roots; *r; r++) {
		strbuf_addstr(out, "\n    (subpath ");
		add_string(out, *r);
		strbuf_addch(out, ')');
	}
	strbuf_addstr(out, ")\n(allow file-read-metadata (literal \"/private\")");
	for (const char *const *l = os_links; *l; l++)
		strbuf_addf(out, " (literal \"%s\")", *l);
	strbuf_addstr(out, ") ; the links at /\n");
	strbuf_addstr(out, "(allow file-read* file-write* (literal \"/dev/null\") (literal "
			   "\"/dev/tty\") (literal \"/dev/dtracehelper\"))\n");
	if (in->pty)
		strbuf_addstr(out, "(allow pseudo-tty)\n(allow file-read* file-write* file-ioctl "
				   "(literal \"/dev/ptmx\") (regex #\"^/dev/ttys[0-9]+$\")) ; "
				   "allow.pty\n");
	strbuf_addstr(out, "\n;; its TMPDIR, its project, what it was granted\n");
	for (size_t i = 0; i < b->rules.n; i++)
		add_allow(out, &b->rules.v[i]);
	if (b->meta.n) {
		qsort(b->meta.v, b->meta.n, sizeof *b->meta.v, meta_cmp);
		strbuf_addstr(out, "(allow file-read-metadata");
		for (size_t i = 0; i < b->meta.n; i++) {
			strbuf_addstr(out, "\n    (literal ");
			add_string(out, b->meta.v[i]);
			strbuf_addch(out, ')');
		}
		strbuf_addstr(out, ") ; the directories above a grant: stat, not list\n");
	}
	network_section(out, b);
	walls_section(out, b);
	denies_section(out, b);
}

static void builder_release(struct builder *b)
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

int seatbelt_profile(const struct sandbox_input *in, struct strbuf *out, struct strvec *notes,
		     struct strbuf *err)
{
	if (!in->workspace_root || !in->project_dir) {
		strbuf_addstr(err,
			      "a sandbox request needs the workspace root and the project dir");
		return -1;
	}
	struct builder b = {.in = in, .notes = notes, .err = err};
	b.ws = host_path(in->workspace_root);
	b.proj = host_path(in->project_dir);
	b.home = in->home && *in->home ? host_path(in->home) : NULL;
	b.tmp = host_path(in->tmpdir ? in->tmpdir : "/tmp");
	char *proj_spelled = seatbelt_spell(b.proj);
	int rc = plain_project(proj_spelled, err);
	free(proj_spelled);
	struct strvec env = STRVEC_INIT;
	struct env_input ei = in->env;
	ei.home = in->home;
	ei.tmpdir = b.tmp;
	if (!rc)
		rc = env_build(&ei, &env, err);
	if (!rc) {
		char *cache = in->cache_dir ? host_path(in->cache_dir) : NULL;
		char *run = in->run_base ? host_path(in->run_base) : NULL;
		struct walls_input wi = {.workspace_root = b.ws,
					 .project_dir = b.proj,
					 .home = b.home,
					 .cache_dir = cache,
					 .run_base = run,
					 .nested_dirs = in->nested_dirs,
					 .n_nested = in->n_nested};
		walls_collect(&wi, &b.walls);
		free(cache);
		free(run);
	}
	if (!rc) {
		path_rule(&b, F_SUBPATH, OP_READ | OP_WRITE, b.tmp, xstrdup("its TMPDIR"));
		if (b.rules.n)
			b.rules.v[b.rules.n - 1].own = true;
		meta_above(&b, b.tmp);
	}
	if (!rc)
		baselines(&b);
	const char *path_var = NULL;
	for (size_t i = 0; i < env.n; i++)
		if (!strncmp(env.v[i], "PATH=", 5))
			path_var = env.v[i] + 5;
	if (!rc && !in->hermetic)
		toolchain_reads(&b, path_var);
	for (size_t i = 0; !rc && i < in->n_read; i++)
		rc = grant(&b, in->allow_read[i], false);
	for (size_t i = 0; !rc && i < in->n_write; i++)
		rc = grant(&b, in->allow_write[i], true);
	if (!rc) {
		/* a literal can name a socket made later (a bind cannot): one
		 * that names nothing yet is granted too */
		struct strvec missing = STRVEC_INIT;
		rc = sandbox_socket_paths(in, b.proj, b.home, &b.walls, &b.sockets, &missing, err);
		for (size_t i = 1; i < missing.n; i += 2)
			strvec_push(&b.sockets, missing.v[i]);
		strvec_clear(&missing);
		for (size_t i = 0; !rc && i < b.sockets.n; i++)
			path_rule(&b, F_LITERAL, OP_READ | OP_WRITE, b.sockets.v[i],
				  xstrdup("allow.unixSockets"));
	}
	if (!rc)
		write_profile(out, &b);
	strvec_clear(&env);
	builder_release(&b);
	return rc;
}

void seatbelt_argv(const char *profile, const char *shell, const char *command, struct strvec *argv)
{
	strvec_push(argv, "/usr/bin/sandbox-exec");
	strvec_push(argv, "-p");
	strvec_push(argv, profile);
	strvec_push(argv, shell ? shell : "/bin/sh");
	strvec_push(argv, "-c");
	strvec_push(argv, command);
}

static void list_entries(struct strbuf *out, const char *what, const char *const *v, size_t n)
{
	if (!n)
		return;
	strbuf_addf(out, "; %s: ", what);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(out, "%s%s", i ? ", " : "", v[i]);
}

void seatbelt_failure_note(const struct sandbox_input *in, size_t heard, const char *task_id,
			   struct strbuf *out)
{
	strbuf_addf(out,
		    "it ran under a Seatbelt profile: reads of the OS roots, its project and its "
		    "TMPDIR%s, writes to its TMPDIR",
		    in->hermetic ? " (hermetic: no toolchain outside them)"
				 : ", its PATH's toolchain");
	list_entries(out, "allow.read", in->allow_read, in->n_read);
	list_entries(out, "allow.write", in->allow_write, in->n_write);
	strbuf_addstr(out, "; no network");
	if (in->proxy)
		strbuf_addstr(out, " but its proxy");
	if (!heard)
		strbuf_addstr(out,
			      ". macOS reported no denial of it: the OS does not always report "
			      "what a profile applied by sandbox-exec refused, so an access "
			      "outside these may have failed without a word");
	strbuf_addf(out, ". `vx sandbox show %s --platform darwin` prints the whole profile",
		    task_id);
}
