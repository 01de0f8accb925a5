/* strbuf.h - the one growing string of vx (after git's strbuf). */
#ifndef VX_UTIL_STRBUF_H
#define VX_UTIL_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/die.h"

/* buf is always NUL-terminated and never NULL; len excludes the NUL. */
struct strbuf {
	char *buf;
	size_t len;
	size_t alloc; /* 0: buf points at a shared empty string, not owned */
};

extern char strbuf_empty[];
#define STRBUF_INIT                                                                                \
	{                                                                                          \
		.buf = strbuf_empty, .len = 0, .alloc = 0                                          \
	}

void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
/* Returns the buffer, now owned by the caller; sb is left empty. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_reset(struct strbuf *sb);
void strbuf_setlen(struct strbuf *sb, size_t len);
void strbuf_add(struct strbuf *sb, const void *data, size_t n);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
/* Appends code point cp as UTF-8; a surrogate or one past U+10FFFF as
 * U+FFFD (a JSON or JavaScript escape read into text). */
void strbuf_add_utf8(struct strbuf *sb, unsigned long cp);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) VX_PRINTF(2, 3);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Appends s quoted for /bin/sh (single quotes, ' as '\''). */
void strbuf_add_shell_quoted(struct strbuf *sb, const char *s);
/* Appends s as a JSON string literal, quotes included. */
void strbuf_add_json_string(struct strbuf *sb, const char *s);
/* Appends s as git quotes a path when it holds a control byte (< 0x20 or
 * 0x7f): in double quotes, C-style (\n \t \" \\, else \ooo); as it is
 * otherwise. A printed path can then never start a line of its own or
 * move the terminal's cursor. */
void strbuf_add_quoted(struct strbuf *sb, const char *s);
/* Appends s with each control byte but none written C-style (\n, \033),
 * unquoted: for a sentence that holds words a task chose. */
void strbuf_add_controls_escaped(struct strbuf *sb, const char *s);
/* A report_to() sink (util/die.h): appends each line error() or warning()
 * makes to the strbuf ctx, for a caller that says them later or as one. */
void strbuf_report_line(const char *line, void *ctx);
/* Appends all of fd until EOF. Returns 0, or -1 with errno set. */
int strbuf_read_fd(struct strbuf *sb, int fd);
/* The most strbuf_read_file reads of one file (a config, a lockfile, a
 * cache of vx's own). */
#define STRBUF_READ_MAX_MIB 256
#define STRBUF_READ_MAX ((long long)STRBUF_READ_MAX_MIB << 20)

/* Appends the file's contents. Returns 0, or -1 with errno set: EINVAL for
 * what is not a regular file (a FIFO, a device: opened without blocking,
 * never read), EISDIR for a directory, EFBIG past STRBUF_READ_MAX. */
int strbuf_read_file(struct strbuf *sb, const char *path);
/* What a failed strbuf_read_file says, for an error line: "it is not a
 * regular file" (EINVAL, EISDIR), "it is larger than 256 MiB" (EFBIG),
 * else strerror(err). */
const char *strbuf_read_strerror(int err);
/* strbuf_read_file, setting *st to the opened file's fstat (all zero when
 * it failed), taken before its bytes were read. */
struct stat;
int strbuf_read_file_stat(struct strbuf *sb, const char *path, struct stat *st);
bool strbuf_ends_with(const struct strbuf *sb, const char *suffix);

#endif
