/* libFuzzer target: a grant as written, in a Seatbelt profile
 * (seatbelt.h). Each line of the input is an allow.read or allow.write
 * entry of a task in a workspace that does not exist; the profile must
 * be made or refused without crashing, leaking or reading out of bounds,
 * and every regex it holds must compile as POSIX ERE (a glob's spelling
 * that is no regex would fail on macOS at the profile compiler). */
#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox/seatbelt.h"
#include "util/die.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strvec reads = STRVEC_INIT, writes = STRVEC_INIT;
	const char *s = (const char *)data, *end = s + size;
	for (int i = 0; s < end; i++) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		char *entry = xstrndup(s, n);
		if (!memchr(s, '\0', n))
			strvec_push_nodup(i % 2 ? &writes : &reads, entry);
		else
			free(entry);
		s += n + (nl != NULL);
	}
	const char *host[] = {"PATH=/usr/bin:/bin", NULL};
	struct sandbox_input in = {
	    .workspace_root = "/nonexistent-vx-fuzz/ws",
	    .project_dir = "/nonexistent-vx-fuzz/ws/app",
	    .home = "/nonexistent-vx-fuzz/home",
	    .tmpdir = "/nonexistent-vx-fuzz/tmp",
	    .allow_read = (const char *const *)reads.v,
	    .n_read = reads.n,
	    .allow_write = (const char *const *)writes.v,
	    .n_write = writes.n,
	    .env = {.host = host},
	};
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct strvec notes = STRVEC_INIT;
	if (seatbelt_profile(&in, &out, &notes, &err) == 0) {
		/* A regex filter starts a rule's filter or a line of a deny's
		 * list (a grant cannot start a line: control characters have
		 * no spelling), and holds no '"' (no spelling either). */
		static const char *const starts[] = {"(allow file-read* (regex #\"",
						     "(allow file-read* file-write* (regex #\"",
						     "    (regex #\""};
		for (const char *line = out.buf; *line;) {
			const char *nl = strchr(line, '\n');
			const char *p = NULL;
			for (size_t k = 0; k < 3 && !p; k++)
				if (!strncmp(line, starts[k], strlen(starts[k])))
					p = line + strlen(starts[k]);
			line = nl ? nl + 1 : line + strlen(line);
			if (!p)
				continue;
			const char *e = strchr(p, '"');
			if (!e)
				abort();
			char *rx = xstrndup(p, (size_t)(e - p));
			regex_t re;
			if (regcomp(&re, rx, REG_EXTENDED | REG_NOSUB))
				abort(); /* a regex vx wrote that no ERE engine takes */
			regfree(&re);
			free(rx);
		}
	}
	strbuf_release(&out);
	strbuf_release(&err);
	strvec_clear(&notes);
	strvec_clear(&reads);
	strvec_clear(&writes);
	return 0;
}
