/* seatbelt.c - a sandbox request as a Seatbelt profile.
 *
 * The profile is `(deny default)` and then allows, and the walls come
 * LAST: Seatbelt takes the last rule that matches an operation, so a deny
 * placed before the grants would be inert. Every path is the resolved one
 * (macOS checks the vnode's path: /tmp is /private/tmp). One rule per
 * grant, with a comment naming the entry it comes from, so `vx sandbox
 * show --platform darwin` reads as the config does. The rules are
 * collected first (seatbelt_rules.c), then written here section by
 * section; every path and glob is spelled by seatbelt_spell.c. */
#include "sandbox/seatbelt.h"

#include <stdlib.h>
#include <string.h>

#include "sandbox/denies.h"
#include "sandbox/grants.h"
#include "sandbox/seatbelt_rules.h"
#include "sandbox/seatbelt_spell.h"
#include "util/path.h"

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

static void add_filter(struct strbuf *out, const struct seatbelt_rule *r)
{
	static const char *const names[] = {"literal", "subpath", "regex"};
	strbuf_addf(out, "(%s ", names[r->kind]);
	if (r->kind == SB_REGEX)
		strbuf_addf(out, "#\"%s\"", r->text);
	else
		sbpl_string(out, r->text);
	strbuf_addch(out, ')');
}

static const char *ops_text(unsigned ops)
{
	return ops & SB_WRITE  ? "file-read* file-write*"
	       : ops & SB_READ ? "file-read*"
			       : "file-read-metadata";
}

static void add_allow(struct strbuf *out, const struct seatbelt_rule *r)
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
		sbpl_string(out, stem);
		strbuf_addch(out, ')');
		free(stem);
	}
}

enum reach { R_NONE, R_ABOVE, R_EQUAL, R_INSIDE };

/* Where rule r's matches stand to directory w. */
static enum reach reach(const struct seatbelt_rule *r, const char *w)
{
	if (!strcmp(r->root, w))
		return R_EQUAL;
	if (r->kind != SB_LITERAL && path_is_within(r->root, w))
		return R_ABOVE;
	if (path_is_within(w, r->root))
		return R_INSIDE;
	return R_NONE;
}

/* (deny OPS W) with each carve-out, a rule inside W (or W itself) of the
 * denied kind, taken back out: the grant stands, the rest of W does not. */
/* Is rule r taken back out of wall w? Every grant in it, when carve_all
 * (a nested project, the anchor); else only its TMPDIR. */
static bool carved(const struct seatbelt_rule *r, const char *w, bool carve_all)
{
	enum reach at = reach(r, w);
	return (at == R_EQUAL || at == R_INSIDE) && (carve_all || r->own);
}

/* Is the directory m above a grant carved out of w? */
static bool meta_carved(const struct seatbelt_rules *b, const char *m, const char *w,
			bool carve_all)
{
	if (!path_is_within(w, m))
		return false;
	for (size_t i = 0; !carve_all && i < b->rules.n; i++)
		if (b->rules.v[i].own && path_is_within(m, b->rules.v[i].root))
			return true;
	return carve_all;
}

static void add_deny(struct strbuf *out, struct seatbelt_rules *b, const char *w, unsigned deny_ops,
		     bool carve_all, const char *why)
{
	struct strbuf c = STRBUF_INIT;
	for (size_t i = 0; i < b->rules.n; i++) {
		const struct seatbelt_rule *r = &b->rules.v[i];
		bool kind = deny_ops == SB_WRITE ? (r->ops & SB_WRITE) != 0 : true;
		if (kind && carved(r, w, carve_all)) {
			strbuf_addstr(&c, "\n        (require-not ");
			add_filter(&c, r);
			strbuf_addch(&c, ')');
		}
	}
	for (size_t i = 0; deny_ops != SB_WRITE && i < b->meta.n; i++)
		if (meta_carved(b, b->meta.v[i], w, carve_all)) {
			strbuf_addstr(&c, "\n        (require-not (literal ");
			sbpl_string(&c, b->meta.v[i]);
			strbuf_addstr(&c, "))");
		}
	const char *ops = deny_ops == SB_WRITE	? "file-write*"
			  : deny_ops == SB_READ ? "file-read*"
						: "file-read* file-write*";
	strbuf_addf(out, "(deny %s ", ops);
	if (c.len) {
		strbuf_addstr(out, "(require-all (subpath ");
		sbpl_string(out, w);
		strbuf_addf(out, ")%s)", c.buf);
	} else {
		strbuf_addstr(out, "(subpath ");
		sbpl_string(out, w);
		strbuf_addch(out, ')');
	}
	strbuf_addf(out, ") ; %s\n", why);
	strbuf_release(&c);
}

/* A wall with carve-outs: read and write denied apart when what is carved
 * differs (a read grant inside must not become writable through a write
 * grant above). */
static void add_wall(struct strbuf *out, struct seatbelt_rules *b, const char *w, bool carve_all,
		     const char *why)
{
	bool differ = false;
	for (size_t i = 0; i < b->rules.n; i++)
		differ |= carved(&b->rules.v[i], w, carve_all) && !(b->rules.v[i].ops & SB_WRITE);
	for (size_t i = 0; i < b->meta.n; i++)
		differ |= meta_carved(b, b->meta.v[i], w, carve_all);
	if (differ) {
		add_deny(out, b, w, SB_READ, carve_all, why);
		add_deny(out, b, w, SB_WRITE, carve_all, why);
	} else {
		add_deny(out, b, w, SB_READ | SB_WRITE, carve_all, why);
	}
}

/* The walls, last. The workspace anchor when a grant from outside it
 * (an OS root, a toolchain, ~) would reach into it; each wall a grant
 * reaches from above (or, for .git, the cache and the credential stores,
 * from inside: no grant opens them); a nested project keeps the grants
 * inside it carved out. */
static void walls_section(struct strbuf *out, struct seatbelt_rules *b)
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
			const struct seatbelt_rule *r = &b->rules.v[i];
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
		char *d = grants_canonical(b->in->other_outputs[i]);
		bool held = !path_is_within(b->proj, d) || !strcmp(d, b->proj);
		for (size_t k = 0; k < b->rules.n && !held; k++) {
			const struct seatbelt_rule *r = &b->rules.v[k];
			held = path_is_within(d, r->root) ||
			       ((r->ops & SB_WRITE) && path_is_within(r->root, d));
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
static void configs_section(struct strbuf *out, struct seatbelt_rules *b)
{
	bool header = false;
	for (size_t i = 0; i < b->in->n_config; i++) {
		char *f = grants_canonical(b->in->config_files[i]);
		bool inside = false, named = false;
		for (size_t k = 0; k < b->rules.n; k++) {
			const struct seatbelt_rule *r = &b->rules.v[k];
			if (!r->denies || !path_is_within(r->root, f))
				continue;
			inside = true;
			named |= r->kind == SB_LITERAL && !strcmp(r->root, f);
		}
		if (inside && !named) {
			if (!header)
				strbuf_addstr(out, "\n;; what decides what vx runs: read-only in a "
						   "write grant that does not name it\n");
			header = true;
			char *spelled = seatbelt_spell(f);
			strbuf_addstr(out, "(deny file-write* (literal ");
			sbpl_string(out, spelled);
			strbuf_addstr(out, "))\n");
			free(spelled);
		}
		free(f);
	}
}

static void denies_section(struct strbuf *out, struct seatbelt_rules *b)
{
	bool header = false;
	for (size_t i = 0; i < b->rules.n; i++) {
		const struct seatbelt_rule *r = &b->rules.v[i];
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
		if (r->kind == SB_LITERAL)
			continue;
		strbuf_addstr(out, "(deny file-write*");
		for (const struct deny_rule *d = denies_table; d->name; d++) {
			strbuf_addstr(out, "\n    (regex #\"^");
			char *root = seatbelt_spell(r->root);
			sbpl_rx_literal(out, root, strlen(root));
			free(root);
			strbuf_addstr(out, "/(.*/)?");
			sbpl_rx_literal(out, d->name, strlen(d->name));
			strbuf_addstr(out, "(/.*)?$\")");
		}
		strbuf_addf(out, ") ; inside %s\n", r->why);
	}
	configs_section(out, b);
}

static void network_section(struct strbuf *out, const struct seatbelt_rules *b)
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
		if (!sbpl_string(&s, b->sockets.v[i]))
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

static void write_profile(struct strbuf *out, struct seatbelt_rules *b)
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
	for (const char *const *r = seatbelt_os_roots; *r; r++) {
		strbuf_addstr(out, "\n    (subpath ");
		sbpl_string(out, *r);
		strbuf_addch(out, ')');
	}
	strbuf_addstr(out, ")\n(allow file-read-metadata (literal \"/private\")");
	for (const char *const *l = seatbelt_os_links; *l; l++)
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
			sbpl_string(out, b->meta.v[i]);
			strbuf_addch(out, ')');
		}
		strbuf_addstr(out, ") ; the directories above a grant: stat, not list\n");
	}
	network_section(out, b);
	walls_section(out, b);
	denies_section(out, b);
}

int seatbelt_profile(const struct sandbox_input *in, struct strbuf *out, struct strvec *notes,
		     struct strbuf *err)
{
	struct seatbelt_rules b;
	int rc = seatbelt_rules_make(&b, in, notes, err);
	if (!rc)
		write_profile(out, &b);
	seatbelt_rules_release(&b);
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
