/* Unit tests for sandbox/shellwords.c: which commands the sandbox's init
 * runs without a shell, and that what it runs is what /bin/sh would have
 * run (each accepted command is split by sh itself and compared). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fixture.h"
#include "sandbox/shellwords.h"

extern char **environ;

/* What run(arg) prints to its stdout in a child of this process. */
static char *child_output(void (*run)(void *), void *arg)
{
	int p[2];
	if (pipe(p) < 0)
		return NULL;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		run(arg);
		fflush(stdout);
		_exit(127);
	}
	close(p[1]);
	size_t len = 0, cap = 4096;
	char *out = malloc(cap);
	ssize_t n;
	while ((n = read(p[0], out + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (cap - len < 2)
			out = realloc(out, cap *= 2);
	}
	out[len] = '\0';
	close(p[0]);
	waitpid(pid, NULL, 0);
	return out;
}

struct sh_run {
	const char *script;
	char **env; /* NULL: this process's */
};

static void run_sh(void *arg)
{
	const struct sh_run *r = arg;
	char *const argv[] = {"sh", "-c", (char *)r->script, NULL};
	execve("/bin/sh", argv, r->env ? r->env : environ);
}

/* What sh prints for script, run with env (NULL: this process's). */
static char *sh_output(const char *script, char **env)
{
	struct sh_run r = {script, env};
	return child_output(run_sh, &r);
}

/* The words as sh splits them, a line each. */
static char *sh_words(const char *command)
{
	char script[4096];
	snprintf(script, sizeof script, "set -- %s\nprintf '%%s\\n' \"$@\"", command);
	return sh_output(script, NULL);
}

static char *joined(char **words)
{
	static char buf[4096];
	buf[0] = '\0';
	for (size_t i = 0; words[i]; i++) {
		strcat(buf, words[i]);
		strcat(buf, "\n");
	}
	return buf;
}

static void split(const char *command, const char *want)
{
	char **words = shellwords(command);
	CHECK(words != NULL);
	if (!words) {
		fprintf(stderr, "  refused: \"%s\"\n", command);
		return;
	}
	CHECK_STR(joined(words), want);
	char *sh = sh_words(command);
	CHECK_STR(joined(words), sh);
	free(sh);
	free(words);
}

static void shell(const char *command)
{
	char **words = shellwords(command);
	CHECK(words == NULL);
	if (words)
		fprintf(stderr, "  split, but the shell must run it: \"%s\"\n", command);
	free(words);
}

static void test_split(void)
{
	split("tsc -p .", "tsc\n-p\n.\n");
	split("  node   build.js\t--out=dist/a,b:c ", "node\nbuild.js\n--out=dist/a,b:c\n");
	split("./node_modules/.bin/vite build", "./node_modules/.bin/vite\nbuild\n");
	split("make -j4 all", "make\n-j4\nall\n");
	split("/bin/echo hi", "/bin/echo\nhi\n"); /* a path is the program, not the builtin */
	split("cc -O2 -DX=1 a.c -o a", "cc\n-O2\n-DX=1\na.c\n-o\na\n");
	split("node caf\xc3\xa9.js @scope/pkg 50% a+b",
	      "node\ncaf\xc3\xa9.js\n@scope/pkg\n50%\na+b\n");
}

static void test_shell(void)
{
	/* builtins and reserved words: their programs differ, or there is none */
	const char *own[] = {"true",	  "false",    "echo hi",   "cd dist",	"exit 1",
			     "exec node", "export A", ". ./env",   ": x",	"[ -f x ]",
			     "test -f x", "pwd",      "printf x",  "kill 1",	"if",
			     "for",	  "while",    "source x",  "time make", "command -v node",
			     "set -e",	  "trap x",   "ulimit -n", "wait"};
	for (size_t i = 0; i < sizeof own / sizeof *own; i++)
		shell(own[i]);
	/* what the shell reads as more than letters */
	const char *meta[] = {"a;b",   "a && b",  "a | b",  "a > f", "a < f",	"a 2>&1",
			      "a &",   "a $X",	  "a ${X}", "a `b`", "a $(b)",	"a \"b\"",
			      "a 'b'", "a\\ b",	  "ls *.c", "ls ?",  "ls [ab]", "ls ~/x",
			      "a #c",  "! a",	  "{ a; }", "a\nb",  "a(b)",	"a\x01",
			      "a\rb",  "a {b,c}", "a ^b",   "a !b"};
	for (size_t i = 0; i < sizeof meta / sizeof *meta; i++)
		shell(meta[i]);
	/* no words, an assignment first */
	shell("");
	shell(" \t ");
	shell("FOO=1 node x.js");
	shell("a=b");
}

/* Random commands over letters and specials: each one split must be
 * split by sh the same way. */
static void test_against_sh(void)
{
	static const char alphabet[] = "ab-_./,:+@%= \t;&|<>$`\\\"'*?[]~#!{}()^\n";
	unsigned seed = 43;
	int accepted = 0;
	for (int round = 0; round < 1000; round++) {
		char cmd[24];
		size_t len = 1 + (seed = seed * 1103515245 + 12345) % 16;
		for (size_t i = 0; i < len; i++) {
			seed = seed * 1103515245 + 12345;
			/* mostly letters, so that many are accepted */
			cmd[i] = (seed >> 16) % 8 ? "ab-_./,:+@%= \t\x81\xc3"[(seed >> 8) % 16]
						  : alphabet[(seed >> 8) % (sizeof alphabet - 1)];
		}
		cmd[len] = '\0';
		char **words = shellwords(cmd);
		if (!words)
			continue;
		accepted++;
		char *sh = sh_words(cmd);
		CHECK_STR(joined(words), sh);
		free(sh);
		free(words);
	}
	CHECK(accepted > 150);
}

static void test_path(void)
{
	const char *root = fixture_dir();
	char d1[256], d2[256], d3[256], want[300], path[1024];
	snprintf(d1, sizeof d1, "%s/d1", root);
	snprintf(d2, sizeof d2, "%s/d2", root);
	snprintf(d3, sizeof d3, "%s/d3", root);
	mkdir(d1, 0755);
	mkdir(d2, 0755);
	mkdir(d3, 0755);
	fixture_write(root, "d1/prog/inner", ""); /* a directory named prog: skipped */
	fixture_write(root, "d2/prog", "#!/bin/sh\n");
	fixture_write(root, "d3/prog", "#!/bin/sh\n");
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	snprintf(path, sizeof path, "%s:%s:%s", d1, d2, d3);
	setenv("PATH", path, 1);
	snprintf(want, sizeof want, "%s/prog", d2);
	char *got = shellwords_path("prog");
	CHECK_STR(got, want);
	free(got);
	CHECK(shellwords_path("absent-program-x") == NULL);
	got = shellwords_path("sub/prog");
	CHECK_STR(got, "sub/prog");
	free(got);
	/* an empty entry is the working directory */
	snprintf(path, sizeof path, "%s::%s", d1, d3);
	setenv("PATH", path, 1);
	char cwd[4096];
	CHECK(getcwd(cwd, sizeof cwd) != NULL);
	CHECK(chdir(d2) == 0);
	got = shellwords_path("prog");
	CHECK_STR(got, "./prog");
	free(got);
	CHECK(chdir(cwd) == 0);
	if (old) {
		setenv("PATH", old, 1);
		free(old);
	}
}

/* The environment a program gets: this process's after shellwords_env and
 * shellwords_pwd against what `sh -c env` gives a program, sorted. */
static char *sorted_lines(char *text)
{
	char *lines[256];
	size_t n = 0;
	for (char *s = strtok(text, "\n"); s && n < 256; s = strtok(NULL, "\n"))
		lines[n++] = s;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(lines[j - 1], lines[j]) > 0; j--) {
			char *t = lines[j];
			lines[j] = lines[j - 1];
			lines[j - 1] = t;
		}
	static char buf[16384];
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		strcat(buf, lines[i]);
		strcat(buf, "\n");
	}
	return buf;
}

/* The environment a program gets from init's exec, env given. */
static void run_shellwords_env(void *arg)
{
	environ = arg;
	shellwords_env();
	shellwords_pwd();
	for (size_t i = 0; environ[i]; i++)
		printf("%s\n", environ[i]);
}

static void env_case(const char *dir, char **env)
{
	char cwd[4096];
	CHECK(getcwd(cwd, sizeof cwd) != NULL);
	CHECK(chdir(dir) == 0);
	char *sh = sh_output("exec env", env);
	char *want = strdup(sorted_lines(sh));
	char *got = child_output(run_shellwords_env, env);
	CHECK_STR(sorted_lines(got), want);
	free(got);
	free(want);
	free(sh);
	CHECK(chdir(cwd) == 0);
}

static void test_env(void)
{
	const char *root = fixture_dir();
	char dir[256], link[256], pwd_other[300], pwd_link[300], pwd_same[300];
	snprintf(dir, sizeof dir, "%s/proj", root);
	snprintf(link, sizeof link, "%s/via", root);
	mkdir(dir, 0755);
	CHECK(symlink("proj", link) == 0);
	snprintf(pwd_other, sizeof pwd_other, "PWD=%s", root); /* not the cwd: replaced */
	snprintf(pwd_link, sizeof pwd_link, "PWD=%s", link);   /* the cwd through a link: kept */
	snprintf(pwd_same, sizeof pwd_same, "PWD=%s", dir);
	char *e1[] = {"A=1",  "a-b=2",	 "BASH_FUNC_f%%=() { :; }", "1X=3", "_u=4",
		      "noeq", pwd_other, "PATH=/usr/bin:/bin",	    NULL};
	env_case(dir, e1);
	char *e2[] = {pwd_link, "B=x=y", NULL};
	env_case(dir, e2);
	char *e3[] = {"C=", NULL}; /* no PWD: set */
	env_case(dir, e3);
	char *e4[] = {pwd_same, "PWD2=relative", NULL};
	env_case(dir, e4);
	char *e5[] = {"PWD=relative/x", NULL};
	env_case(dir, e5);
}

int main(void)
{
	test_split();
	test_shell();
	test_against_sh();
	test_path();
	test_env();
	return check_finish("test_shellwords");
}
