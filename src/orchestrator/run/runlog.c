#include "orchestrator/run/runlog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/io.h"
#include "util/path.h"
#include "util/strbuf.h"

void runlog_append(const char *dir, size_t hits, size_t misses)
{
	char *path = path_join(dir, "runs.log");
	const char *rel; /* from the anchor: a deep workspace's path may pass PATH_MAX */
	int at = fs_at(path, &rel);
	int fd = openat(at, rel, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	free(path);
	if (fd < 0)
		return;
	char line[96];
	int n = snprintf(line, sizeof line, "%lld %zu %zu\n", (long long)time(NULL), hits, misses);
	ssize_t w;
	do
		w = write(fd, line, (size_t)n);
	while (w < 0 && errno == EINTR);
	close(fd);
}

size_t runlog_read(const char *dir, struct runlog_line *out, size_t max)
{
	char *path = path_join(dir, "runs.log");
	struct strbuf sb = STRBUF_INIT;
	int rc = strbuf_read_file(&sb, path);
	free(path);
	size_t n = 0;
	if (rc) {
		strbuf_release(&sb);
		return 0;
	}
	/* Keep the newest max lines: walk all, write into a ring. */
	size_t total = 0;
	for (char *s = sb.buf; *s;) {
		char *e = strchr(s, '\n');
		if (!e)
			break; /* a torn last line is skipped */
		*e = '\0';
		struct runlog_line l;
		if (sscanf(s, "%lld %zu %zu", &l.when, &l.hits, &l.misses) == 3) {
			out[total % max] = l;
			total++;
		}
		s = e + 1;
	}
	n = total < max ? total : max;
	if (total > max) {
		/* rotate so the oldest kept line comes first */
		struct runlog_line *tmp = xmalloc(max * sizeof *tmp);
		for (size_t i = 0; i < max; i++)
			tmp[i] = out[(total + i) % max];
		memcpy(out, tmp, max * sizeof *tmp);
		free(tmp);
	}
	strbuf_release(&sb);
	return n;
}
