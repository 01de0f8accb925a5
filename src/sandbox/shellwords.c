/* shellwords.c - a command the shell would only split (shellwords.h).
 *
 * A whitelist, not a list of what is special: a byte is a letter of a word
 * when it is alphanumeric, one of "-_./,:+@%=", or not ASCII (the shell
 * takes those as letters); blanks are spaces and tabs. Anything else sends
 * the command to the shell, so a character this file does not know about
 * costs an exec, never a different meaning. */
#include "sandbox/shellwords.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* dash 0.5.12's builtins and reserved words, and bash's, which a /bin/sh
 * may be: each runs in the shell, not as the program of its name. */
static const char *const shell_own[] = {
    ".",	":",	    "[",	 "[[",	     "]]",	"alias",   "bg",     "bind",
    "break",	"bltin",    "builtin",	 "caller",   "case",	"cd",	   "chdir",  "command",
    "compgen",	"complete", "compopt",	 "continue", "coproc",	"declare", "dirs",   "disown",
    "do",	"done",	    "echo",	 "elif",     "else",	"enable",  "esac",   "eval",
    "exec",	"exit",	    "export",	 "false",    "fc",	"fg",	   "fi",     "for",
    "function", "getopts",  "hash",	 "help",     "history", "if",	   "in",     "jobs",
    "kill",	"let",	    "local",	 "logout",   "mapfile", "popd",	   "printf", "pushd",
    "pwd",	"read",	    "readarray", "readonly", "return",	"select",  "set",    "shift",
    "shopt",	"source",   "suspend",	 "test",     "then",	"time",	   "times",  "trap",
    "true",	"type",	    "typeset",	 "ulimit",   "umask",	"unalias", "unset",  "until",
    "wait",	"while",
};

static bool letter(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c >= 0x80 || (c && strchr("-_./,:+@%=", c));
}

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

char **shellwords(const char *command)
{
	size_t n = 0, len = strlen(command);
	for (size_t i = 0; i < len; i++) {
		if (blank(command[i]))
			continue;
		if (!letter((unsigned char)command[i]))
			return NULL;
		if (i == 0 || blank(command[i - 1]))
			n++;
	}
	if (!n)
		return NULL;
	const char *first = command + strspn(command, " \t");
	size_t flen = strcspn(first, " \t");
	if (memchr(first, '=', flen))
		return NULL;
	if (!memchr(first, '/', flen))
		for (size_t i = 0; i < sizeof shell_own / sizeof *shell_own; i++)
			if (strlen(shell_own[i]) == flen && !memcmp(shell_own[i], first, flen))
				return NULL;
	char **words = malloc((n + 1) * sizeof *words + len + 1);
	if (!words)
		return NULL;
	char *text = (char *)(words + n + 1);
	memcpy(text, command, len + 1);
	size_t k = 0;
	for (char *s = text; *s;) {
		if (blank(*s)) {
			*s++ = '\0';
			continue;
		}
		words[k++] = s;
		while (*s && !blank(*s))
			s++;
	}
	words[k] = NULL;
	return words;
}

char *shellwords_path(const char *name)
{
	if (strchr(name, '/'))
		return strdup(name);
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	size_t nlen = strlen(name);
	char *buf = malloc(strlen(path) + nlen + 3);
	if (!buf)
		return NULL;
	for (const char *dir = path;; dir++) {
		size_t dlen = strcspn(dir, ":");
		if (dlen)
			memcpy(buf, dir, dlen);
		else
			buf[dlen++] = '.';
		buf[dlen] = '/';
		memcpy(buf + dlen + 1, name, nlen + 1);
		struct stat st;
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode))
			return buf;
		dir += strcspn(dir, ":");
		if (!*dir)
			break;
	}
	free(buf);
	return NULL;
}

int shellwords_pwd(void)
{
	const char *pwd = getenv("PWD");
	struct stat a, b;
	if (pwd && pwd[0] == '/' && stat(pwd, &a) == 0 && stat(".", &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return 0;
	char *cwd = getcwd(NULL, 0);
	if (!cwd)
		return -1;
	int r = setenv("PWD", cwd, 1);
	free(cwd);
	return r;
}

static bool shell_name(const char *entry)
{
	const char *eq = strchr(entry, '=');
	if (!eq || eq == entry || (entry[0] >= '0' && entry[0] <= '9'))
		return false;
	for (const char *s = entry; s < eq; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

extern char **environ;

void shellwords_env(void)
{
	size_t k = 0;
	for (size_t i = 0; environ && environ[i]; i++)
		if (shell_name(environ[i]))
			environ[k++] = environ[i];
	if (environ)
		environ[k] = NULL;
}
