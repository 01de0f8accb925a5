#include "util/strbuf.h"
#include "util/io.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char strbuf_empty[1];

void strbuf_init(struct strbuf *sb)
{
	sb->buf = strbuf_empty;
	sb->len = 0;
	sb->alloc = 0;
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb);
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	if (!sb->alloc)
		strbuf_grow(sb, 0);
	char *p = sb->buf;
	if (len)
		*len = sb->len;
	strbuf_init(sb);
	return p;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 < sb->len)
		die("string too long");
	size_t need = sb->len + extra + 1;
	if (need <= sb->alloc)
		return;
	size_t alloc = sb->alloc ? sb->alloc : 64;
	while (alloc < need)
		alloc = alloc / 2 * 3 + 16;
	if (sb->alloc) {
		sb->buf = xrealloc(sb->buf, alloc);
	} else {
		sb->buf = xmalloc(alloc);
		sb->buf[0] = '\0';
	}
	sb->alloc = alloc;
}

void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (!sb->alloc)
		return; /* only 0 is a valid length for the shared empty buffer */
	sb->len = len;
	sb->buf[len] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t n)
{
	strbuf_grow(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c)
{
	strbuf_grow(sb, 1);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(sb->buf + sb->len, sb->alloc ? sb->alloc - sb->len : 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		die("cannot format a string");
	if (!sb->alloc || (size_t)n >= sb->alloc - sb->len) {
		strbuf_grow(sb, (size_t)n);
		vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	}
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_add_shell_quoted(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

void strbuf_add_json_string(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			strbuf_addstr(sb, "\\\"");
			break;
		case '\\':
			strbuf_addstr(sb, "\\\\");
			break;
		case '\n':
			strbuf_addstr(sb, "\\n");
			break;
		case '\r':
			strbuf_addstr(sb, "\\r");
			break;
		case '\t':
			strbuf_addstr(sb, "\\t");
			break;
		default:
			if (*p < 0x20)
				strbuf_addf(sb, "\\u%04x", *p);
			else
				strbuf_addch(sb, (char)*p);
		}
	}
	strbuf_addch(sb, '"');
}

/* Appends fd until EOF, failing with EFBIG past max bytes appended. */
static int read_fd_max(struct strbuf *sb, int fd, size_t max)
{
	size_t from = sb->len;
	for (;;) {
		strbuf_grow(sb, 8192);
		ssize_t n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			sb->buf[sb->len] = '\0';
			return -1;
		}
		if (n == 0)
			break;
		sb->len += (size_t)n;
		if (sb->len - from > max) {
			sb->buf[sb->len] = '\0';
			errno = EFBIG;
			return -1;
		}
	}
	sb->buf[sb->len] = '\0';
	return 0;
}

void strbuf_report_line(const char *line, void *ctx)
{
	strbuf_addstr(ctx, line);
}

int strbuf_read_fd(struct strbuf *sb, int fd)
{
	return read_fd_max(sb, fd, SIZE_MAX);
}

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

const char *strbuf_read_strerror(int err)
{
	if (err == EINVAL || err == EISDIR)
		return "it is not a regular file";
	if (err == EFBIG)
		return "it is larger than " STRINGIFY(STRBUF_READ_MAX_MIB) " MiB";
	return strerror(err);
}

int strbuf_read_file(struct strbuf *sb, const char *path)
{
	struct stat st;
	return strbuf_read_file_stat(sb, path, &st);
}

int strbuf_read_file_stat(struct strbuf *sb, const char *path, struct stat *stp)
{
	memset(stp, 0, sizeof *stp);
	const char *rel;
	int at = fs_at(path, &rel);
	/* O_NONBLOCK: a FIFO's open must not wait for a writer (issue 39: a
	 * vx.yaml that was a FIFO hung vx forever); it is refused below */
	int fd = openat(at, rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* Only a regular file, and at most STRBUF_READ_MAX bytes of it: a link
	 * to /dev/zero read until 3.5 GB of memory and "out of memory". */
	if (fstat(fd, stp) < 0 || !S_ISREG(stp->st_mode) || stp->st_size > STRBUF_READ_MAX) {
		int e = S_ISREG(stp->st_mode) ? EFBIG : S_ISDIR(stp->st_mode) ? EISDIR : EINVAL;
		close(fd);
		memset(stp, 0, sizeof *stp);
		errno = e;
		return -1;
	}
	/* A regular file's size lets one read do (and its short count mean
	 * the end): a config file costs open, fstat, read, close. */
	if (stp->st_size > 0) {
		size_t want = (size_t)stp->st_size;
		strbuf_grow(sb, want + 1);
		ssize_t n;
		do
			n = read(fd, sb->buf + sb->len, want + 1);
		while (n < 0 && errno == EINTR);
		if (n >= 0 && (size_t)n <= want) {
			sb->len += (size_t)n;
			sb->buf[sb->len] = '\0';
			close(fd);
			return 0;
		}
		if (n > 0) {
			sb->len += (size_t)n; /* it grew: read the rest */
			sb->buf[sb->len] = '\0';
		}
	}
	/* grown since its fstat, or a size procfs does not tell: read on,
	 * bounded */
	int rc = read_fd_max(sb, fd, (size_t)STRBUF_READ_MAX);
	int saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

bool strbuf_ends_with(const struct strbuf *sb, const char *suffix)
{
	size_t n = strlen(suffix);
	return sb->len >= n && memcmp(sb->buf + sb->len - n, suffix, n) == 0;
}

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

static void add_c_escape(struct strbuf *sb, unsigned char c)
{
	static const char named[] = "\a\b\t\n\v\f\r";
	static const char letters[] = "abtnvfr";
	const char *at = c ? memchr(named, c, sizeof named - 1) : NULL;
	if (at)
		strbuf_addf(sb, "\\%c", letters[at - named]);
	else
		strbuf_addf(sb, "\\%03o", c);
}

void strbuf_add_quoted(struct strbuf *sb, const char *s)
{
	bool quote = false;
	for (const char *c = s; *c && !quote; c++)
		quote = is_control((unsigned char)*c);
	if (!quote) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_addch(sb, '"');
	for (const char *c = s; *c; c++) {
		unsigned char ch = (unsigned char)*c;
		if (ch == '"' || ch == '\\') {
			strbuf_addch(sb, '\\');
			strbuf_addch(sb, (char)ch);
		} else if (is_control(ch)) {
			add_c_escape(sb, ch);
		} else {
			strbuf_addch(sb, (char)ch);
		}
	}
	strbuf_addch(sb, '"');
}

void strbuf_add_controls_escaped(struct strbuf *sb, const char *s)
{
	for (const char *c = s; *c; c++) {
		if (is_control((unsigned char)*c))
			add_c_escape(sb, (unsigned char)*c);
		else
			strbuf_addch(sb, *c);
	}
}

void strbuf_add_utf8(struct strbuf *sb, unsigned long cp)
{
	if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		cp = 0xFFFD;
	if (cp < 0x80) {
		strbuf_addch(sb, (char)cp);
	} else if (cp < 0x800) {
		strbuf_addch(sb, (char)(0xC0 | (cp >> 6)));
		strbuf_addch(sb, (char)(0x80 | (cp & 0x3F)));
	} else if (cp < 0x10000) {
		strbuf_addch(sb, (char)(0xE0 | (cp >> 12)));
		strbuf_addch(sb, (char)(0x80 | ((cp >> 6) & 0x3F)));
		strbuf_addch(sb, (char)(0x80 | (cp & 0x3F)));
	} else {
		strbuf_addch(sb, (char)(0xF0 | (cp >> 18)));
		strbuf_addch(sb, (char)(0x80 | ((cp >> 12) & 0x3F)));
		strbuf_addch(sb, (char)(0x80 | ((cp >> 6) & 0x3F)));
		strbuf_addch(sb, (char)(0x80 | (cp & 0x3F)));
	}
}
