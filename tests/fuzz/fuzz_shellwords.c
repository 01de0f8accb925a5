/* fuzz_shellwords.c - libFuzzer target for sandbox/shellwords.c. The input
 * is a command. shellwords must return without crashing, and the words it
 * returns must be the command's blank-separated words exactly: none empty,
 * none holding a blank or a byte outside the letters it admits, joined by
 * one space they give the command with its blanks squeezed and trimmed,
 * and the first with no '='. (tests/unit/test_shellwords.c checks the
 * split against /bin/sh itself.) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/shellwords.h"

static int letter(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c >= 0x80 || (c && strchr("-_./,:+@%=", c));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *cmd = malloc(size + 1);
	if (!cmd)
		return 0;
	memcpy(cmd, data, size);
	cmd[size] = '\0';
	char **words = shellwords(cmd);
	if (words) {
		/* the command, squeezed: what the words must spell */
		char *want = malloc(strlen(cmd) + 1);
		size_t n = 0;
		for (const char *s = cmd; *s; s++) {
			if (*s == ' ' || *s == '\t') {
				if (n && want[n - 1] != ' ')
					want[n++] = ' ';
				continue;
			}
			want[n++] = *s;
		}
		if (n && want[n - 1] == ' ')
			n--;
		want[n] = '\0';
		size_t at = 0;
		if (!words[0] || strchr(words[0], '='))
			abort();
		for (size_t i = 0; words[i]; i++) {
			size_t len = strlen(words[i]);
			if (!len)
				abort();
			for (size_t k = 0; k < len; k++)
				if (!letter((unsigned char)words[i][k]))
					abort();
			if (i && want[at++] != ' ')
				abort();
			if (strncmp(want + at, words[i], len))
				abort();
			at += len;
		}
		if (at != n)
			abort();
		free(want);
	}
	free(words);
	free(cmd);
	return 0;
}
