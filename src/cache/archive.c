/* archive.c - ustar with pax records inside one zstd frame, streamed through
 * fixed buffers both ways so a member of any size costs the same memory. */
#include "cache/archive.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "cache/fsafe.h"
#include "util/io.h"
#include "util/die.h"
#include "util/vec.h"

#define BLOCK 512
/* The largest size the 11 octal digits of a ustar size field hold. */
#define USTAR_MAX_SIZE 077777777777ULL

struct ustar {
	char name[100], mode[8], uid[8], gid[8], size[12], mtime[12], chksum[8], typeflag;
	char linkname[100], magic[6], version[2], uname[32], gname[32], devmajor[8], devminor[8];
	char prefix[155], pad[12];
};
_Static_assert(sizeof(struct ustar) == BLOCK, "ustar header is one block");

/* Reads until n bytes or EOF; returns the count, or -1 with errno. */
static ssize_t read_some(int fd, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t k = read(fd, (char *)buf + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

/* One read (again on EINTR): a regular file's read is short only at its end. */
static ssize_t read_once(int fd, void *buf, size_t n)
{
	ssize_t k;
	while ((k = read(fd, buf, n)) < 0 && errno == EINTR)
		;
	return k;
}

void archive_member_release(struct archive_member *m)
{
	free(m->path);
	free(m->target);
	memset(m, 0, sizeof *m);
}

void archive_hash_hex(XXH128_hash_t h, char out[ARCHIVE_HASH_HEX])
{
	snprintf(out, ARCHIVE_HASH_HEX, "%016" PRIx64 "%016" PRIx64, (uint64_t)h.high64,
		 (uint64_t)h.low64);
}

bool archive_path_ok(const char *path)
{
	if (!path[0] || path[0] == '/')
		return false;
	for (const char *s = path;;) {
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
			return false;
		if (!e)
			return true;
		s = e + 1;
	}
}

/* ---- writing ---- */

struct archive_writer {
	int fd;
	const char *name; /* fd's file, for error lines */
	ZSTD_CCtx *cctx;
	unsigned char *in; /* tar bytes not yet handed to zstd */
	size_t in_len;
	unsigned char *out;
	size_t out_cap;
	XXH3_state_t *hash;	   /* of the compressed bytes, as they reach fd */
	XXH3_state_t *member_hash; /* of one member's bytes, reset for each */
	uint64_t size;
	bool failed;		    /* sticks, so finish reports a failed add the caller ignored */
	struct fsafe_parent parent; /* the directory of the last member added */
};

struct archive_writer *archive_writer_new(int fd, const char *name, int level)
{
	struct archive_writer *w = xcalloc(1, sizeof *w);
	w->fd = fd;
	w->name = name;
	w->cctx = ZSTD_createCCtx();
	w->hash = XXH3_createState();
	w->member_hash = XXH3_createState();
	if (!w->cctx || !w->hash || !w->member_hash)
		die("out of memory");
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel,
			       level ? level : ARCHIVE_LEVEL_DEFAULT);
	/* zstd's own frame checksum lets `zstd -t` vouch for an entry by hand. */
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
	XXH3_128bits_reset(w->hash);
	w->in = xmalloc(ARCHIVE_IOBUF);
	w->out_cap = ZSTD_CStreamOutSize();
	w->out = xmalloc(w->out_cap);
	return w;
}

void archive_writer_free(struct archive_writer *w)
{
	if (!w)
		return;
	fsafe_parent_release(&w->parent);
	ZSTD_freeCCtx(w->cctx);
	XXH3_freeState(w->hash);
	XXH3_freeState(w->member_hash);
	free(w->in);
	free(w->out);
	free(w);
}

static int writer_compress(struct archive_writer *w, ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = {w->in, w->in_len, 0};
	for (;;) {
		ZSTD_outBuffer out = {w->out, w->out_cap, 0};
		size_t left = ZSTD_compressStream2(w->cctx, &out, &in, mode);
		if (ZSTD_isError(left))
			return error("cannot compress the archive: zstd: %s",
				     ZSTD_getErrorName(left));
		if (out.pos) {
			if (write_all(w->fd, w->out, out.pos) < 0)
				return error_errno("cannot write %s", w->name);
			XXH3_128bits_update(w->hash, w->out, out.pos);
			w->size += out.pos;
		}
		if (mode == ZSTD_e_continue ? in.pos == in.size : left == 0)
			break;
	}
	w->in_len = 0;
	return 0;
}

static int writer_put(struct archive_writer *w, const void *data, size_t n)
{
	const char *p = data;
	while (n) {
		size_t k = ARCHIVE_IOBUF - w->in_len < n ? ARCHIVE_IOBUF - w->in_len : n;
		memcpy(w->in + w->in_len, p, k);
		w->in_len += k;
		p += k;
		n -= k;
		if (w->in_len == ARCHIVE_IOBUF && writer_compress(w, ZSTD_e_continue) < 0)
			return -1;
	}
	return 0;
}

static int writer_pad(struct archive_writer *w, uint64_t size)
{
	static const char zeros[BLOCK];
	size_t pad = (size_t)((BLOCK - size % BLOCK) % BLOCK);
	return writer_put(w, zeros, pad);
}

/* v in width - 1 octal digits, zero-padded, then a NUL; the caller keeps
 * v below 8^(width-1). By hand: snprintf was 4% of a 100 000-file save. */
static void field_octal(char *field, size_t width, uint64_t v)
{
	field[width - 1] = '\0';
	for (size_t i = width - 1; i-- > 0; v >>= 3)
		field[i] = (char)('0' + (v & 7));
}

/* A ustar string field holds up to width bytes, NUL-terminated only when
 * shorter. */
static void field_copy(char *field, size_t width, const char *s)
{
	size_t n = strlen(s);
	memcpy(field, s, n < width ? n : width);
}

/* One "LEN key=value\n" record, LEN counting itself. */
static void pax_record(struct strbuf *sb, const char *key, const char *value)
{
	size_t body = strlen(key) + strlen(value) + 3; /* ' ', '=', '\n' */
	size_t len = body + 1;
	for (;;) {
		int digits = snprintf(NULL, 0, "%zu", len);
		if (body + (size_t)digits == len)
			break;
		len = body + (size_t)digits;
	}
	strbuf_addf(sb, "%zu %s=%s\n", len, key, value);
}

static int writer_header_block(struct archive_writer *w, char type, const char *name,
			       const char *link, unsigned mode, uint64_t size)
{
	struct ustar h;
	memset(&h, 0, sizeof h);
	/* A longer name went in a pax record; this copy is only for old readers. */
	field_copy(h.name, sizeof h.name, name);
	if (link)
		field_copy(h.linkname, sizeof h.linkname, link);
	field_octal(h.mode, sizeof h.mode, mode);
	field_octal(h.uid, sizeof h.uid, 0);
	field_octal(h.gid, sizeof h.gid, 0);
	field_octal(h.size, sizeof h.size, size > USTAR_MAX_SIZE ? 0 : size);
	/* mtime 0: vx never restores mtimes, and equal outputs then make equal
	 * archives, byte for byte. */
	field_octal(h.mtime, sizeof h.mtime, 0);
	h.typeflag = type;
	memcpy(h.magic, "ustar", 6);
	memcpy(h.version, "00", 2);
	memset(h.chksum, ' ', sizeof h.chksum);
	unsigned sum = 0;
	for (size_t i = 0; i < BLOCK; i++)
		sum += ((unsigned char *)&h)[i];
	field_octal(h.chksum, 7, sum);
	h.chksum[7] = ' ';
	return writer_put(w, &h, BLOCK);
}

static int writer_header(struct archive_writer *w, char type, const char *path, const char *link,
			 unsigned mode, uint64_t size)
{
	char *name = type == '5' ? xasprintf("%s/", path) : xstrdup(path);
	struct strbuf pax = STRBUF_INIT;
	if (strlen(name) > sizeof((struct ustar *)0)->name)
		pax_record(&pax, "path", name);
	if (link && strlen(link) > sizeof((struct ustar *)0)->linkname)
		pax_record(&pax, "linkpath", link);
	if (size > USTAR_MAX_SIZE) {
		char num[24];
		snprintf(num, sizeof num, "%" PRIu64, size);
		pax_record(&pax, "size", num);
	}
	int ret = 0;
	if (pax.len)
		ret = writer_header_block(w, 'x', "PaxHeader", NULL, 0644, pax.len) ||
		      writer_put(w, pax.buf, pax.len) || writer_pad(w, pax.len);
	if (!ret)
		ret = writer_header_block(w, type, name, link, mode, size);
	strbuf_release(&pax);
	free(name);
	return ret ? -1 : 0;
}

/* Copies exactly size bytes of fd into the archive, hashing them; a file
 * that turns out shorter or longer than its stat is an output still being
 * written, which must not be cached. The last read asks for one byte more
 * than is left, where the buffer has room: a short read is the end of the
 * file, so a small file costs one read, not two (issue 43). */
static int writer_stream_fd(struct archive_writer *w, int fd, uint64_t size, const char *what,
			    char hash[ARCHIVE_HASH_HEX])
{
	XXH3_state_t *st = w->member_hash;
	XXH3_128bits_reset(st);
	uint64_t left = size;
	bool at_end = false; /* a read has shown the end of the file */
	int ret = 0;
	while (left) {
		if (w->in_len == ARCHIVE_IOBUF && writer_compress(w, ZSTD_e_continue) < 0) {
			ret = -1;
			break;
		}
		size_t room = ARCHIVE_IOBUF - w->in_len, want = room;
		if (want > left)
			want = (size_t)left;
		size_t ask = want < room ? want + 1 : want;
		ssize_t k = read_once(fd, w->in + w->in_len, ask);
		if (k > 0 && (size_t)k < want) { /* short of the stat: read on to the end */
			ssize_t more = read_some(fd, w->in + w->in_len + k, ask - (size_t)k);
			k = more < 0 ? -1 : k + more;
		}
		if (k < 0) {
			ret = error_errno("cannot read %s", what);
			break;
		}
		if ((size_t)k < want) {
			ret = error("cannot archive %s: it shrank while being archived", what);
			break;
		}
		if ((size_t)k > want) {
			ret = error("cannot archive %s: it grew while being archived", what);
			break;
		}
		at_end = ask > want;
		XXH3_128bits_update(st, w->in + w->in_len, (size_t)k);
		w->in_len += (size_t)k;
		left -= (uint64_t)k;
	}
	if (!ret && !at_end) {
		char extra;
		ssize_t k = read_some(fd, &extra, 1);
		if (k < 0)
			ret = error_errno("cannot read %s", what);
		else if (k > 0)
			ret = error("cannot archive %s: it grew while being archived", what);
	}
	if (!ret)
		ret = writer_pad(w, size);
	archive_hash_hex(XXH3_128bits_digest(st), hash);
	return ret;
}

static int writer_fail(struct archive_writer *w)
{
	w->failed = true;
	return -1;
}

int archive_writer_add_log(struct archive_writer *w, const void *buf, size_t len)
{
	if (writer_header(w, '0', ARCHIVE_LOG_PATH, NULL, 0644, len) < 0 ||
	    writer_put(w, buf, len) < 0 || writer_pad(w, len) < 0)
		return writer_fail(w);
	return 0;
}

int archive_writer_add_log_fd(struct archive_writer *w, int fd)
{
	struct stat st;
	off_t pos = lseek(fd, 0, SEEK_CUR);
	if (pos < 0 || fstat(fd, &st) < 0)
		return writer_fail(w), error_errno("cannot archive the task log");
	uint64_t size = st.st_size > pos ? (uint64_t)(st.st_size - pos) : 0;
	char hash[ARCHIVE_HASH_HEX];
	if (writer_header(w, '0', ARCHIVE_LOG_PATH, NULL, 0644, size) < 0 ||
	    writer_stream_fd(w, fd, size, "the log", hash) < 0)
		return writer_fail(w);
	return 0;
}

static char *link_read(int dirfd, const char *name)
{
	size_t cap = 256;
	for (;;) {
		char *buf = xmalloc(cap);
		ssize_t n = readlinkat(dirfd, name, buf, cap);
		if (n < 0) {
			free(buf);
			return NULL;
		}
		if ((size_t)n < cap) {
			buf[n] = '\0';
			return buf;
		}
		free(buf);
		cap *= 2;
	}
}

int archive_writer_add(struct archive_writer *w, int rootfd, const char *path,
		       struct archive_member *m)
{
	struct archive_member tmp;
	if (!m)
		m = &tmp;
	memset(m, 0, sizeof *m);
	if (!archive_path_ok(path) || !strcmp(path, ARCHIVE_LOG_PATH))
		return writer_fail(w), error("refusing to archive path '%s'", path);
	const char *leaf;
	int dfd = fsafe_parent_open(&w->parent, rootfd, path, false, &leaf);
	if (dfd < 0)
		return writer_fail(w), error_errno("cannot archive %s", path);
	struct stat st;
	int ret = 0, fd = -1;
	if (fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		ret = error_errno("cannot archive %s", path);
		goto out;
	}
	m->path = xstrdup(path);
	m->lstat = st;
	m->mode = st.st_mode & 0777;
	if (S_ISREG(st.st_mode) && (st.st_mode & (S_ISUID | S_ISGID))) {
		/* issue 36: a hit would restore it without the bit (modes are
		 * kept to 0777), not what ran; and a set-ID file travelling
		 * through a shared cache is not something to hand around */
		ret =
		    error("refusing to archive %s: it is set-user-ID or set-group-ID (mode %04o); "
			  "clear the bit, or leave the file out of outputs",
			  path, (unsigned)(st.st_mode & 07777));
	} else if (S_ISREG(st.st_mode)) {
		m->type = ARCHIVE_FILE;
		/* no second stat of what was opened: exactly the size read, and
		 * not a byte more, is the check (a file swapped or changed in
		 * between is refused as shrunk or grown); O_NONBLOCK: a fifo
		 * swapped in is such a refusal, never a hang */
		fd = openat(dfd, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			ret = error_errno("cannot archive %s", path);
			goto out;
		}
		m->size = (uint64_t)st.st_size;
		ret = writer_header(w, '0', path, NULL, m->mode, m->size);
		if (!ret)
			ret = writer_stream_fd(w, fd, m->size, path, m->hash);
	} else if (S_ISLNK(st.st_mode)) {
		m->type = ARCHIVE_SYMLINK;
		m->mode = 0777;
		m->target = link_read(dfd, leaf);
		if (!m->target) {
			ret = error_errno("cannot readlink %s", path);
			goto out;
		}
		archive_hash_hex(XXH3_128bits(m->target, strlen(m->target)), m->hash);
		ret = writer_header(w, '2', path, m->target, m->mode, 0);
	} else if (S_ISDIR(st.st_mode)) {
		m->type = ARCHIVE_DIR;
		ret = writer_header(w, '5', path, NULL, m->mode, 0);
	} else {
		/* one rule, whichever spelling of outputs matched it: the save
		 * fails naming it (issue 57: matched by a glob it was left out
		 * unsaid, and a hit restored the rest) */
		ret = error("cannot archive %s: it is a %s (an entry holds files, directories "
			    "and symlinks); leave it out of outputs",
			    path,
			    S_ISFIFO(st.st_mode)   ? "fifo"
			    : S_ISSOCK(st.st_mode) ? "socket"
			    : S_ISCHR(st.st_mode)  ? "character device"
			    : S_ISBLK(st.st_mode)  ? "block device"
						   : "special file");
	}
out:
	if (fd >= 0)
		close(fd);
	if (m == &tmp)
		archive_member_release(m);
	return ret ? writer_fail(w) : 0;
}

int archive_writer_finish(struct archive_writer *w, uint64_t *size, char hash[ARCHIVE_HASH_HEX])
{
	static const char end[2 * BLOCK];
	if (w->failed)
		return error("cannot finish the archive: an earlier member failed");
	if (writer_put(w, end, sizeof end) < 0 || writer_compress(w, ZSTD_e_end) < 0)
		return writer_fail(w);
	*size = w->size;
	archive_hash_hex(XXH3_128bits_digest(w->hash), hash);
	return 0;
}

/* ---- reading ---- */

struct archive_reader {
	int fd;
	ZSTD_DCtx *dctx;
	unsigned char *in;
	ZSTD_inBuffer zin;
	bool eof;	 /* fd gave its last byte */
	bool frame_done; /* the last decompress call ended a frame */
	unsigned char *out;
	size_t out_cap, out_pos, out_len; /* out[out_pos..out_len) not yet consumed */
	uint64_t left;			  /* data bytes of the current member not yet read */
	uint64_t pad;			  /* its padding to the next block */
	bool ended;
};

struct archive_reader *archive_reader_new(int fd)
{
	struct archive_reader *r = xcalloc(1, sizeof *r);
	r->fd = fd;
	r->dctx = ZSTD_createDCtx();
	if (!r->dctx)
		die("out of memory");
	r->in = xmalloc(ARCHIVE_IOBUF);
	r->zin = (ZSTD_inBuffer){r->in, 0, 0};
	r->out_cap = ZSTD_DStreamOutSize();
	r->out = xmalloc(r->out_cap);
	return r;
}

void archive_reader_free(struct archive_reader *r)
{
	if (!r)
		return;
	ZSTD_freeDCtx(r->dctx);
	free(r->in);
	free(r->out);
	free(r);
}

/* Makes decompressed bytes available. Returns 1, 0 at the clean end of the
 * stream, -1 after error() (a stream that stops inside a frame is truncated). */
static int reader_fill(struct archive_reader *r)
{
	while (r->out_pos == r->out_len) {
		if (r->zin.pos == r->zin.size && !r->eof) {
			ssize_t k = read_some(r->fd, r->in, ARCHIVE_IOBUF);
			if (k < 0)
				return error_errno("cannot read the archive");
			r->zin = (ZSTD_inBuffer){r->in, (size_t)k, 0};
			r->eof = k == 0;
		}
		if (r->zin.pos == r->zin.size && r->eof) {
			if (!r->frame_done)
				return error("truncated archive (the zstd frame does not end)");
			return 0;
		}
		ZSTD_outBuffer out = {r->out, r->out_cap, 0};
		size_t ret = ZSTD_decompressStream(r->dctx, &out, &r->zin);
		if (ZSTD_isError(ret))
			return error("corrupt archive: zstd: %s", ZSTD_getErrorName(ret));
		r->frame_done = ret == 0;
		r->out_pos = 0;
		r->out_len = out.pos;
	}
	return 1;
}

/* Copies exactly n decompressed bytes to buf (or drops them when buf is
 * NULL). Returns 0, or -1 after error(). */
static int reader_take(struct archive_reader *r, void *buf, uint64_t n)
{
	while (n) {
		int f = reader_fill(r);
		if (f < 0)
			return -1;
		if (f == 0)
			return error("truncated archive (the tar stream stops early)");
		size_t k = r->out_len - r->out_pos;
		if (k > n)
			k = (size_t)n;
		if (buf) {
			memcpy(buf, r->out + r->out_pos, k);
			buf = (char *)buf + k;
		}
		r->out_pos += k;
		n -= k;
	}
	return 0;
}

static uint64_t field_number(const char *f, size_t width)
{
	/* GNU base-256 for sizes past 8 GiB, which other writers may use. */
	if ((unsigned char)f[0] & 0x80) {
		uint64_t v = (unsigned char)f[0] & 0x7f;
		for (size_t i = 1; i < width; i++)
			v = v << 8 | (unsigned char)f[i];
		return v;
	}
	uint64_t v = 0;
	while (width && *f == ' ')
		f++, width--;
	for (size_t i = 0; i < width && f[i] >= '0' && f[i] <= '7'; i++)
		v = v * 8 + (uint64_t)(f[i] - '0');
	return v;
}

static bool header_sum_ok(const struct ustar *h)
{
	unsigned sum = 0;
	const unsigned char *p = (const unsigned char *)h;
	for (size_t i = 0; i < BLOCK; i++)
		sum +=
		    (i >= offsetof(struct ustar, chksum) && i < offsetof(struct ustar, chksum) + 8)
			? ' '
			: p[i];
	return field_number(h->chksum, sizeof h->chksum) == sum;
}

/* Applies the records of a pax header to *path, *link and *size. */
static int pax_parse(const char *p, size_t n, char **path, char **link, uint64_t *size,
		     bool *has_size)
{
	const char *end = p + n;
	while (p < end && *p) {
		char *sp;
		unsigned long len = strtoul(p, &sp, 10);
		if (*sp != ' ' || len == 0 || len > (size_t)(end - p) || p[len - 1] != '\n')
			return error("corrupt archive pax header");
		const char *key = sp + 1, *eq = memchr(key, '=', (size_t)(p + len - key));
		if (!eq)
			return error("corrupt archive pax header");
		size_t klen = (size_t)(eq - key);
		char *value = xstrndup(eq + 1, (size_t)(p + len - 1 - (eq + 1)));
		if (klen == 4 && !memcmp(key, "path", 4)) {
			free(*path);
			*path = value;
		} else if (klen == 8 && !memcmp(key, "linkpath", 8)) {
			free(*link);
			*link = value;
		} else if (klen == 4 && !memcmp(key, "size", 4)) {
			*size = strtoull(value, NULL, 10);
			*has_size = true;
			free(value);
		} else {
			free(value);
		}
		p += len;
	}
	return 0;
}

static bool block_zero(const unsigned char *b)
{
	for (size_t i = 0; i < BLOCK; i++)
		if (b[i])
			return false;
	return true;
}

int archive_reader_next(struct archive_reader *r, struct archive_member *m)
{
	memset(m, 0, sizeof *m);
	if (r->ended)
		return 0;
	if (reader_take(r, NULL, r->left + r->pad) < 0)
		return -1;
	r->left = r->pad = 0;
	char *pax_path = NULL, *pax_link = NULL;
	uint64_t pax_size = 0;
	bool has_size = false;
	for (;;) {
		union {
			struct ustar h;
			unsigned char b[BLOCK];
		} u;
		if (reader_take(r, u.b, BLOCK) < 0)
			goto fail;
		if (block_zero(u.b)) {
			/* The end: the second zero block, then the rest of the frame,
			 * so a cut-off tail (zstd's checksum) is caught here too. */
			if (reader_take(r, u.b, BLOCK) < 0)
				goto fail;
			int f;
			while ((f = reader_fill(r)) > 0)
				r->out_pos = r->out_len;
			if (f < 0)
				goto fail;
			free(pax_path);
			free(pax_link);
			r->ended = true;
			return 0;
		}
		const struct ustar *h = &u.h;
		if (!header_sum_ok(h)) {
			error("corrupt archive (bad header checksum)");
			goto fail;
		}
		uint64_t size = has_size ? pax_size : field_number(h->size, sizeof h->size);
		uint64_t pad = (BLOCK - size % BLOCK) % BLOCK;
		if (h->typeflag == 'x' || h->typeflag == 'g') {
			if (size > 1 << 20) {
				error("corrupt archive (pax header of %" PRIu64 " bytes)", size);
				goto fail;
			}
			char *buf = xmalloc((size_t)size + 1);
			if (reader_take(r, buf, size) < 0 || reader_take(r, NULL, pad) < 0) {
				free(buf);
				goto fail;
			}
			buf[size] = '\0';
			int ret = h->typeflag == 'x' ? pax_parse(buf, (size_t)size, &pax_path,
								 &pax_link, &pax_size, &has_size)
						     : 0;
			free(buf);
			if (ret < 0)
				goto fail;
			continue;
		}
		if (pax_path) {
			m->path = pax_path;
			pax_path = NULL;
		} else {
			size_t pn = strnlen(h->prefix, sizeof h->prefix);
			size_t nn = strnlen(h->name, sizeof h->name);
			struct strbuf sb = STRBUF_INIT;
			if (pn) {
				strbuf_add(&sb, h->prefix, pn);
				strbuf_addch(&sb, '/');
			}
			strbuf_add(&sb, h->name, nn);
			m->path = strbuf_detach(&sb, NULL);
		}
		size_t plen = strlen(m->path);
		if (plen > 1 && m->path[plen - 1] == '/')
			m->path[plen - 1] = '\0';
		m->mode = (unsigned)field_number(h->mode, sizeof h->mode) & 0777;
		switch (h->typeflag) {
		case '0':
		case '\0':
			m->type = strcmp(m->path, ARCHIVE_LOG_PATH) ? ARCHIVE_FILE : ARCHIVE_LOG;
			m->size = size;
			break;
		case '5':
			m->type = ARCHIVE_DIR;
			break;
		case '2':
			m->type = ARCHIVE_SYMLINK;
			m->target = pax_link ? pax_link
					     : xstrndup(h->linkname,
							strnlen(h->linkname, sizeof h->linkname));
			pax_link = NULL;
			break;
		default:
			error("corrupt archive: member '%s' has type '%c', which vx never writes",
			      m->path, h->typeflag);
			goto fail;
		}
		if (!archive_path_ok(m->path)) {
			error("refusing unsafe member path '%s'", m->path);
			goto fail;
		}
		free(pax_link);
		r->left = size;
		r->pad = pad;
		if (m->type != ARCHIVE_FILE && m->type != ARCHIVE_LOG)
			m->size = 0;
		return 1;
	}
fail:
	free(pax_path);
	free(pax_link);
	archive_member_release(m);
	return -1;
}

ssize_t archive_reader_read(struct archive_reader *r, void *buf, size_t n)
{
	if (n > r->left)
		n = (size_t)r->left;
	if (!n)
		return 0;
	int f = reader_fill(r);
	if (f < 0)
		return -1;
	if (f == 0)
		return error("truncated archive (a member stops early)");
	size_t k = r->out_len - r->out_pos;
	if (k > n)
		k = n;
	memcpy(buf, r->out + r->out_pos, k);
	r->out_pos += k;
	r->left -= k;
	return (ssize_t)k;
}
