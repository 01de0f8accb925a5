#include "orchestrator/keys/toolchain.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/die.h"
#include "util/path.h"

/* Builtins of sh that a PATH lookup would find a different program for
 * (echo, test, printf, true, false, kill, pwd): the shell runs its own. */
static const char *const BUILTINS[] = {
    "cd",   "echo",   "test",  "[",	"printf", "true",    "false",  "kill", "pwd",
    "exit", "export", "set",   "unset", "exec",	  "eval",    "source", ".",    ":",
    "wait", "read",   "shift", "trap",	"umask",  "command", NULL};

static bool builtin(const char *w)
{
	for (const char *const *b = BUILTINS; *b; b++)
		if (!strcmp(*b, w))
			return true;
	return false;
}

void toolchain_first_word(const char *s, struct strbuf *out)
{
	strbuf_reset(out);
	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '(')
			s++;
		strbuf_reset(out);
		char q = 0;
		for (; *s; s++) {
			if (q) {
				if (*s == q)
					q = 0;
				else
					strbuf_addch(out, *s);
			} else if (*s == '\'' || *s == '"') {
				q = *s;
			} else if (*s == '\\' && s[1]) {
				strbuf_addch(out, *++s);
			} else if (strchr(" \t\n;&|<>()`$", *s)) {
				break;
			} else {
				strbuf_addch(out, *s);
			}
		}
		if (*s == '$' || *s == '`' || *s == '<' || *s == '>') {
			strbuf_reset(out); /* an expansion or a redirection first: unknown */
			return;
		}
		/* NAME=VALUE before the program: the next word */
		const char *eq = strchr(out->buf, '=');
		if (out->len && eq && eq != out->buf &&
		    strspn(out->buf,
			   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") ==
			(size_t)(eq - out->buf))
			continue;
		if (builtin(out->buf))
			strbuf_reset(out);
		return;
	}
}

/* The canonical path of name found on path (or as a path from cwd), or
 * NULL. */
static char *find(const char *name, const char *path, const char *cwd)
{
	struct stat st;
	if (strchr(name, '/')) {
		char *p = name[0] == '/' ? xstrdup(name) : path_join(cwd, name);
		char *real = realpath(p, NULL);
		free(p);
		if (real && (stat(real, &st) || !S_ISREG(st.st_mode))) {
			free(real);
			real = NULL;
		}
		return real;
	}
	for (const char *d = path; d && *d;) {
		size_t n = strcspn(d, ":");
		char *dir = n ? xstrndup(d, n) : xstrdup(".");
		char *p = dir[0] == '/' ? path_join(dir, name) : path_join(cwd, dir);
		if (dir[0] != '/') {
			char *q = path_join(p, name);
			free(p);
			p = q;
		}
		free(dir);
		char *real = NULL;
		if (!access(p, X_OK) && !stat(p, &st) && S_ISREG(st.st_mode))
			real = realpath(p, NULL);
		free(p);
		if (real)
			return real;
		d += n + (d[n] == ':');
	}
	return NULL;
}

/* The interpreter a "#!" line names, with env's argument resolved on PATH:
 * into out ("" when none). */
static void interpreter(const char *file, struct strbuf *out)
{
	strbuf_reset(out);
	char buf[256];
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n < 3 || buf[0] != '#' || buf[1] != '!')
		return;
	buf[n] = '\0';
	char *s = buf + 2, *end = strchr(s, '\n');
	if (end)
		*end = '\0';
	while (*s == ' ' || *s == '\t')
		s++;
	size_t w = strcspn(s, " \t");
	strbuf_add(out, s, w);
	if (!strcmp(path_basename(out->buf), "env")) {
		/* "#!/usr/bin/env node", "#!/usr/bin/env -S node --flag" */
		s += w;
		for (;;) {
			while (*s == ' ' || *s == '\t')
				s++;
			if (*s != '-')
				break;
			s += strcspn(s, " \t");
		}
		strbuf_reset(out);
		strbuf_add(out, s, strcspn(s, " \t"));
	}
}

void toolchain_resolve(const char *name, const char *path, const char *cwd, struct strvec *out)
{
	struct strbuf interp = STRBUF_INIT;
	char *cur = *name && !builtin(name) ? find(name, path, cwd) : NULL;
	for (int depth = 0; cur && depth < 4; depth++) {
		if (strvec_find(out, cur) >= 0) {
			free(cur);
			break;
		}
		strvec_push(out, cur);
		interpreter(cur, &interp);
		free(cur);
		cur = interp.len ? find(interp.buf, path, cwd) : NULL;
	}
	strbuf_release(&interp);
}
