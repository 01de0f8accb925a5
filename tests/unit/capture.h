/* capture.h - collect what a call prints on stderr, for asserting error lines. */
#ifndef VX_TEST_CAPTURE_H
#define VX_TEST_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int capture_saved_fd = -1;
static FILE *capture_file;
static char capture_buf[8192];

static inline void capture_begin(void)
{
	fflush(stderr);
	capture_file = tmpfile();
	capture_saved_fd = dup(2);
	dup2(fileno(capture_file), 2);
}

/* Returns what was printed since capture_begin (valid until the next call). */
static inline const char *capture_end(void)
{
	fflush(stderr);
	dup2(capture_saved_fd, 2);
	close(capture_saved_fd);
	rewind(capture_file);
	size_t n = fread(capture_buf, 1, sizeof capture_buf - 1, capture_file);
	capture_buf[n] = '\0';
	fclose(capture_file);
	return capture_buf;
}

#endif
