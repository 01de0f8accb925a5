/* Unit tests for cache/archive.c: round trips on real directories, a 100 MiB
 * member streamed in bounded memory, corruption and truncation caught,
 * members that would escape the target refused. */
#include <sys/resource.h>

#include <zstd.h>

#include "cache/restore.h"
#include "cache/archive.h"
#include "check.h"
#include "fstest.h"

static char *root;

/* Writes an archive of paths (relative to dir, in order) and the log to
 * file. Returns archive_writer_finish's result. */
static int archive_make(const char *file, const char *dir, const char *const *paths, size_t n,
			const char *log)
{
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || rootfd < 0)
		die_errno("open");
	struct archive_writer *w = archive_writer_new(fd, "test.tar.zst", 0);
	archive_writer_add_log(w, log, strlen(log));
	for (size_t i = 0; i < n; i++)
		archive_writer_add(w, rootfd, paths[i], NULL);
	uint64_t size;
	char hash[ARCHIVE_HASH_HEX];
	int ret = archive_writer_finish(w, &size, hash);
	if (!ret)
		CHECK_INT(size, fs_size(file));
	archive_writer_free(w);
	close(fd);
	close(rootfd);
	return ret;
}

static int extract(const char *file, const char *dir, struct strbuf *log)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	int rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || rootfd < 0)
		die_errno("open");
	struct restore_log sink = restore_log_strbuf(log);
	struct restore_opts o = {.log = log ? &sink : NULL};
	int ret = restore_archive(fd, rootfd, &o);
	close(fd);
	close(rootfd);
	return ret;
}

static const char long_name[] =
    "deep/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.txt";

static void test_round_trip(void)
{
	char *src = xasprintf("%s/src", root), *dst = xasprintf("%s/dst", root);
	char *file = xasprintf("%s/rt.tar.zst", root);
	fs_mkdir(root, "src", 0755);
	fs_mkdir(root, "dst", 0755);
	fs_write(src, "a.txt", "hello\n", 0644);
	fs_mkdir(src, "bin", 0750);
	fs_write(src, "bin/run.sh", "#!/bin/sh\necho hi\n", 0755);
	fs_write(src, "secret", "s3cret", 0600);
	fs_symlink(src, "link", "a.txt");
	fs_symlink(src, "abs-link", "/nonexistent/target");
	fs_mkdir(src, "empty", 0700);
	fs_mkdir(src, "nested", 0755);
	fs_mkdir(src, "nested/deeper", 0755);
	fs_write(src, "nested/deeper/x.js", "x", 0644);
	fs_write(src, "sp ace \xc3\xbc.txt", "utf8 name", 0644);
	fs_mkdir(src, "deep", 0755);
	fs_write(src, long_name, "pax path", 0644);
	fs_mkdir(src, "ro", 0555 | 0200);
	fs_write(src, "ro/f", "in a read-only dir", 0444);
	char *ro = xasprintf("%s/ro", src);
	chmod(ro, 0555);
	free(ro);
	const char *paths[] = {"a.txt",
			       "abs-link",
			       "bin",
			       "bin/run.sh",
			       "deep",
			       long_name,
			       "empty",
			       "link",
			       "nested",
			       "nested/deeper",
			       "nested/deeper/x.js",
			       "ro",
			       "ro/f",
			       "secret",
			       "sp ace \xc3\xbc.txt"};
	size_t n = sizeof paths / sizeof *paths;
	CHECK_INT(archive_make(file, src, paths, n, "line 1\nerr 2\nline 3\n"), 0);

	/* The reader sees exactly what went in, log first. */
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	struct archive_reader *r = archive_reader_new(fd);
	struct archive_member m;
	CHECK_INT(archive_reader_next(r, &m), 1);
	CHECK_INT(m.type, ARCHIVE_LOG);
	CHECK_INT(m.size, 20);
	archive_member_release(&m);
	for (size_t i = 0; i < n; i++) {
		CHECK_INT(archive_reader_next(r, &m), 1);
		CHECK_STR(m.path, paths[i]);
		archive_member_release(&m);
	}
	CHECK_INT(archive_reader_next(r, &m), 0);
	archive_reader_free(r);
	close(fd);

	struct strbuf log = STRBUF_INIT;
	CHECK_INT(extract(file, dst, &log), 0);
	CHECK_STR(log.buf, "line 1\nerr 2\nline 3\n");
	strbuf_release(&log);
	const char *files[] = {
	    "a.txt",   "bin/run.sh", "secret", "nested/deeper/x.js", "sp ace \xc3\xbc.txt",
	    long_name, "ro/f"};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		char *a = fs_read(src, files[i]), *b = fs_read(dst, files[i]);
		CHECK_STR(b, a);
		CHECK_INT(fs_mode(dst, files[i]), fs_mode(src, files[i]));
		free(a);
		free(b);
	}
	CHECK_INT(fs_mode(dst, "a.txt"), 0644);
	CHECK_INT(fs_mode(dst, "bin/run.sh"), 0755);
	CHECK_INT(fs_mode(dst, "secret"), 0600);
	CHECK_INT(fs_mode(dst, "bin"), 0750);
	CHECK_INT(fs_mode(dst, "ro"), 0555);
	CHECK_INT(fs_type(dst, "empty"), S_IFDIR);
	CHECK_INT(fs_mode(dst, "empty"), 0700);
	CHECK_INT(fs_type(dst, "link"), S_IFLNK);
	char *l = fs_readlink(dst, "link");
	CHECK_STR(l, "a.txt");
	free(l);
	l = fs_readlink(dst, "abs-link");
	CHECK_STR(l, "/nonexistent/target");
	free(l);

	/* Extracting over the previous extraction replaces files and links. */
	fs_write(dst, "a.txt", "changed", 0600);
	CHECK_INT(extract(file, dst, NULL), 0);
	char *a = fs_read(dst, "a.txt");
	CHECK_STR(a, "hello\n");
	free(a);
	CHECK_INT(fs_mode(dst, "a.txt"), 0644);

	/* Plain tar reads it too: the point of choosing ustar. */
	if (!system("command -v zstd >/dev/null && command -v tar >/dev/null")) {
		char *cmd = xasprintf("zstd -qdc %s | tar -tf - | grep -c .", file);
		FILE *p = popen(cmd, "r");
		int count = -1;
		if (p && fscanf(p, "%d", &count) != 1)
			count = -1;
		if (p)
			pclose(p);
		CHECK_INT(count, n + 1);
		free(cmd);
	}
	free(src);
	free(dst);
	free(file);
}

static long maxrss_kib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static void test_big_file_streams(void)
{
	char *src = xasprintf("%s/big", root), *dst = xasprintf("%s/big-out", root);
	char *file = xasprintf("%s/big.tar.zst", root);
	fs_mkdir(root, "big", 0755);
	fs_mkdir(root, "big-out", 0755);
	char *path = xasprintf("%s/blob", src);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	/* Varying 64 KiB blocks, so zstd has real work and the output is not
	 * one repeated match. */
	enum { CHUNK = 64 * 1024, TOTAL = 100 * 1024 * 1024 };
	unsigned char *chunk = xmalloc(CHUNK);
	uint64_t x = 88172645463325252ULL;
	for (size_t off = 0; off < TOTAL; off += CHUNK) {
		for (size_t i = 0; i < CHUNK; i += 8) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			uint64_t v = (i % 512 < 256) ? x & 0x0f0f0f0f0f0f0f0fULL : off;
			memcpy(chunk + i, &v, 8);
		}
		if (write(fd, chunk, CHUNK) != CHUNK)
			die_errno("write %s", path);
	}
	free(chunk);
	close(fd);

	long before = maxrss_kib();
	const char *paths[] = {"blob"};
	CHECK_INT(archive_make(file, src, paths, 1, ""), 0);
	CHECK_INT(extract(file, dst, NULL), 0);
	long grew = maxrss_kib() - before;
	CHECK(grew < 50 * 1024);
	fprintf(stderr, "100 MiB round trip: peak RSS grew %ld KiB, archive %lld bytes\n", grew,
		(long long)fs_size(file));

	char *out = xasprintf("%s/blob", dst);
	char h1[33], h2[33];
	fs_hash(path, h1);
	fs_hash(out, h2);
	CHECK(h1[0]);
	CHECK_STR(h2, h1);
	CHECK_INT(fs_size(out), TOTAL);
	unlink(path);
	unlink(out);
	unlink(file);
	free(out);
	free(path);
	free(src);
	free(dst);
	free(file);
}

/* File sizes about the write buffer's edges, each starting where the
 * last left it: the last read asks one byte beyond the size (issue 43:
 * a short read is the end, one read for a small file), so every edge
 * round-trips byte for byte; a file longer than its stat is refused. */
static void test_buffer_edges(void)
{
	char *src = xasprintf("%s/edges", root), *dst = xasprintf("%s/edges-out", root);
	char *file = xasprintf("%s/edges.tar.zst", root);
	fs_mkdir(root, "edges", 0755);
	fs_mkdir(root, "edges-out", 0755);
	const size_t sizes[] = {0,
				1,
				ARCHIVE_IOBUF - 513,
				ARCHIVE_IOBUF,
				ARCHIVE_IOBUF - 1,
				ARCHIVE_IOBUF + 1,
				1,
				511,
				512,
				513,
				2 * ARCHIVE_IOBUF + 7,
				3};
	enum { N = sizeof sizes / sizeof *sizes };
	const char *paths[N];
	char *names[N];
	for (size_t i = 0; i < N; i++) {
		names[i] = xasprintf("f%02zu", i);
		paths[i] = names[i];
		char *data = xmalloc(sizes[i] + 1);
		for (size_t k = 0; k < sizes[i]; k++)
			data[k] = (char)('a' + (k * 7 + i) % 26);
		data[sizes[i]] = 0;
		fs_write(src, names[i], data, 0644);
		free(data);
	}
	CHECK_INT(archive_make(file, src, paths, N, "log"), 0);
	CHECK_INT(extract(file, dst, NULL), 0);
	for (size_t i = 0; i < N; i++) {
		char *a = xasprintf("%s/%s", src, names[i]), *b = xasprintf("%s/%s", dst, names[i]);
		char ha[33], hb[33];
		fs_hash(a, ha);
		fs_hash(b, hb);
		CHECK_STR(hb, ha);
		CHECK_INT(fs_size(b), (off_t)sizes[i]);
		free(a);
		free(b);
		free(names[i]);
	}
	/* /proc's files stat as empty and read as more: grown, refused */
	int fd = open(file, O_WRONLY | O_TRUNC | O_CLOEXEC);
	int procfd = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct archive_writer *w = archive_writer_new(fd, "grew.tar.zst", 0);
	CHECK_INT(archive_writer_add(w, procfd, "status", NULL), -1);
	archive_writer_free(w);
	close(procfd);
	close(fd);
	free(src);
	free(dst);
	free(file);
}

static void test_corrupt_and_truncated(void)
{
	char *src = xasprintf("%s/src", root);
	char *file = xasprintf("%s/c.tar.zst", root);
	const char *paths[] = {"a.txt", "nested", "nested/deeper", "nested/deeper/x.js"};
	CHECK_INT(archive_make(file, src, paths, 4, "log"), 0);
	off_t size = fs_size(file);
	char *copy = xasprintf("cp %s %s.orig", file, file);
	CHECK_INT(system(copy), 0);
	free(copy);

	char *dst = xasprintf("%s/c1", root);
	fs_mkdir(root, "c1", 0755);
	fs_flip(file, size / 2);
	CHECK_INT(extract(file, dst, NULL), -1);

	/* Cut in the middle, and cut only zstd's 4-byte checksum off the end. */
	char *orig = xasprintf("%s.orig", file);
	off_t cuts[] = {size / 2, size - 2};
	for (size_t i = 0; i < 2; i++) {
		char *cmd = xasprintf("cp %s %s", orig, file);
		CHECK_INT(system(cmd), 0);
		free(cmd);
		CHECK_INT(truncate(file, cuts[i]), 0);
		CHECK_INT(extract(file, dst, NULL), -1);
	}
	/* An empty file is no archive either. */
	CHECK_INT(truncate(file, 0), 0);
	CHECK_INT(extract(file, dst, NULL), -1);
	free(orig);
	free(dst);
	free(src);
	free(file);
}

/* A raw tar member, as a hostile writer would make it. */
static void raw_member_mode(struct strbuf *tar, const char *name, char type, const char *link,
			    const char *data, unsigned mode)
{
	char h[512] = {0};
	size_t n = data ? strlen(data) : 0;
	snprintf(h, 100, "%s", name);
	snprintf(h + 100, 8, "%07o", mode);
	snprintf(h + 108, 8, "%07o", 0);
	snprintf(h + 116, 8, "%07o", 0);
	snprintf(h + 124, 12, "%011o", (unsigned)(n & 07777777));
	snprintf(h + 136, 12, "%011o", 0);
	h[156] = type;
	if (link)
		snprintf(h + 157, 100, "%s", link);
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	unsigned sum = 0;
	for (size_t i = 0; i < 512; i++)
		sum += (unsigned char)h[i];
	snprintf(h + 148, 8, "%06o", sum);
	strbuf_add(tar, h, 512);
	if (n) {
		strbuf_add(tar, data, n);
		static const char zeros[512];
		strbuf_add(tar, zeros, (512 - n % 512) % 512);
	}
}

static void raw_member(struct strbuf *tar, const char *name, char type, const char *link,
		       const char *data)
{
	raw_member_mode(tar, name, type, link, data, 0644);
}

static void raw_archive(const char *file, struct strbuf *tar)
{
	static const char zeros[1024];
	strbuf_add(tar, zeros, sizeof zeros);
	size_t cap = ZSTD_compressBound(tar->len);
	char *z = xmalloc(cap);
	size_t zn = ZSTD_compress(z, cap, tar->buf, tar->len, 3);
	CHECK(!ZSTD_isError(zn));
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, z, zn) != (ssize_t)zn || close(fd) < 0)
		die_errno("write %s", file);
	free(z);
	strbuf_reset(tar);
}

static void test_escapes_refused(void)
{
	fs_mkdir(root, "esc", 0755);
	fs_mkdir(root, "esc/target", 0755);
	fs_mkdir(root, "esc/elsewhere", 0755);
	char *esc = xasprintf("%s/esc", root), *target = xasprintf("%s/esc/target", root);
	char *file = xasprintf("%s/esc.tar.zst", root);
	char *abs = xasprintf("%s/esc/abs-victim", root);
	char *elsewhere = xasprintf("%s/esc/elsewhere", root);
	struct strbuf tar = STRBUF_INIT;

	raw_member(&tar, "../dotdot-victim", '0', NULL, "pwned");
	raw_archive(file, &tar);
	CHECK_INT(extract(file, target, NULL), -1);
	CHECK_INT(fs_type(esc, "dotdot-victim"), 0);

	raw_member(&tar, "ok/../../dotdot-victim", '0', NULL, "pwned");
	raw_archive(file, &tar);
	CHECK_INT(extract(file, target, NULL), -1);
	CHECK_INT(fs_type(esc, "dotdot-victim"), 0);
	CHECK_INT(fs_type(target, "ok"), 0);

	raw_member(&tar, abs, '0', NULL, "pwned");
	raw_archive(file, &tar);
	CHECK_INT(extract(file, target, NULL), -1);
	CHECK_INT(fs_type(esc, "abs-victim"), 0);

	/* A link member, then a file "through" it. */
	raw_member(&tar, "evil", '2', elsewhere, NULL);
	raw_member(&tar, "evil/pwned", '0', NULL, "pwned");
	raw_archive(file, &tar);
	CHECK_INT(extract(file, target, NULL), -1);
	CHECK_INT(fs_type(elsewhere, "pwned"), 0);
	CHECK_INT(fs_type(target, "evil"), S_IFLNK);

	/* A hard link is a type vx never writes. */
	raw_member(&tar, "hard", '1', "/etc/passwd", NULL);
	raw_archive(file, &tar);
	CHECK_INT(extract(file, target, NULL), -1);
	CHECK_INT(fs_type(target, "hard"), 0);

	/* A planted `dist -> elsewhere` in the target: a file member below
	 * it is refused, nothing lands in elsewhere. */
	fs_symlink(target, "dist", elsewhere);
	raw_member(&tar, "dist/a.js", '0', NULL, "pwned");
	raw_archive(file, &tar);
	CHECK_INT(extract(file, target, NULL), -1);
	CHECK_INT(fs_type(elsewhere, "a.js"), 0);

	/* With a directory member for dist (as vx writes it), the link is
	 * replaced by a real directory, still nothing in elsewhere. */
	raw_member(&tar, "dist/", '5', NULL, NULL);
	raw_member(&tar, "dist/a.js", '0', NULL, "real");
	raw_archive(file, &tar);
	CHECK_INT(extract(file, target, NULL), 0);
	CHECK_INT(fs_type(elsewhere, "a.js"), 0);
	CHECK_INT(fs_type(target, "dist"), S_IFDIR);
	char *a = fs_read(target, "dist/a.js");
	CHECK_STR(a, "real");
	free(a);

	/* The writer refuses unsafe paths too. */
	int fd = open(file, O_WRONLY | O_TRUNC | O_CLOEXEC);
	int rootfd = open(target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct archive_writer *w = archive_writer_new(fd, "test.tar.zst", 0);
	CHECK_INT(archive_writer_add(w, rootfd, "../esc", NULL), -1);
	CHECK_INT(archive_writer_add(w, rootfd, "/etc/passwd", NULL), -1);
	CHECK_INT(archive_writer_add(w, rootfd, ARCHIVE_LOG_PATH, NULL), -1);
	uint64_t size;
	char hash[ARCHIVE_HASH_HEX];
	CHECK_INT(archive_writer_finish(w, &size, hash), -1);
	archive_writer_free(w);
	close(fd);
	close(rootfd);

	CHECK(!archive_path_ok(""));
	CHECK(!archive_path_ok("a//b"));
	CHECK(!archive_path_ok("./a"));
	CHECK(!archive_path_ok("a/.."));
	CHECK(archive_path_ok("a/..b/c.."));
	strbuf_release(&tar);
	free(esc);
	free(target);
	free(file);
	free(abs);
	free(elsewhere);
}

/* A set-user-ID or set-group-ID file is never archived (issue 36): a
 * hit restores modes to 0777, which would differ from what ran, and a
 * set-ID file is no thing to pass around a team's cache. The save fails;
 * the same file without the bit is archived. Restore never sets the bits:
 * a hostile archive's 4755 comes back 0755. */
static void test_setid_refused(void)
{
	fs_mkdir(root, "sid", 0755);
	fs_mkdir(root, "sid/out", 0755);
	char *dir = xasprintf("%s/sid", root), *file = xasprintf("%s/sid.tar.zst", root);
	char *out = xasprintf("%s/sid/out", root);
	fs_write(dir, "suid", "x", 0644);
	fs_write(dir, "plain", "y", 0644);
	char *suid = xasprintf("%s/suid", dir);
	CHECK(chmod(suid, 04755) == 0);
	const char *one[] = {"suid"}, *two[] = {"plain"};
	CHECK_INT(archive_make(file, dir, one, 1, ""), -1);
	CHECK(chmod(suid, 02755) == 0);
	CHECK_INT(archive_make(file, dir, one, 1, ""), -1);
	CHECK(chmod(suid, 0755) == 0);
	CHECK_INT(archive_make(file, dir, one, 1, ""), 0);
	CHECK_INT(archive_make(file, dir, two, 1, ""), 0);
	struct strbuf tar = STRBUF_INIT;
	raw_member_mode(&tar, "evil", '0', NULL, "x", 06755);
	raw_archive(file, &tar);
	CHECK_INT(extract(file, out, NULL), 0);
	struct stat st;
	char *evil = xasprintf("%s/evil", out);
	CHECK(lstat(evil, &st) == 0 && (st.st_mode & 07777) == 0755);
	free(evil);
	strbuf_release(&tar);
	free(suid);
	free(out);
	free(file);
	free(dir);
}

/* A sparse output comes back sparse, byte for byte (issue 36: a
 * `truncate -s 2G` file was a 65 KB entry whose restore wrote 2 GiB of
 * real blocks), and a restore refuses an entry past its bound before it
 * writes the file. */
static void test_sparse_and_bound(void)
{
	fs_mkdir(root, "sp", 0755);
	fs_mkdir(root, "sp/out", 0755);
	fs_mkdir(root, "sp/out2", 0755);
	char *dir = xasprintf("%s/sp", root), *file = xasprintf("%s/sp.tar.zst", root);
	char *big = xasprintf("%s/big", dir);
	int fd = open(big, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	CHECK(fd >= 0);
	CHECK(pwrite(fd, "head", 4, 0) == 4);
	CHECK(pwrite(fd, "middle", 6, 300 << 20) == 6);
	CHECK(ftruncate(fd, 512 << 20) == 0); /* 512 MiB, a trailing hole */
	close(fd);
	const char *paths[] = {"big"};
	CHECK_INT(archive_make(file, dir, paths, 1, "log"), 0);
	CHECK(fs_size(file) < (1 << 20));
	char *out = xasprintf("%s/sp/out", root);
	CHECK_INT(extract(file, out, NULL), 0);
	char *back = xasprintf("%s/big", out);
	struct stat st;
	CHECK(stat(back, &st) == 0);
	CHECK_INT(st.st_size, 512 << 20);
	CHECK((long long)st.st_blocks * 512 < (4 << 20)); /* holes, not 512 MiB of blocks */
	char buf[8] = {0};
	fd = open(back, O_RDONLY | O_CLOEXEC);
	CHECK(pread(fd, buf, 4, 0) == 4 && !memcmp(buf, "head", 4));
	CHECK(pread(fd, buf, 6, 300 << 20) == 6 && !memcmp(buf, "middle", 6));
	CHECK(pread(fd, buf, 4, (300 << 20) - 4) == 4 && !memcmp(buf, "\0\0\0\0", 4));
	close(fd);
	/* the bound: refused before the file is made */
	char *out2 = xasprintf("%s/sp/out2", root);
	int afd = open(file, O_RDONLY | O_CLOEXEC), rootfd = open(out2, O_RDONLY | O_DIRECTORY);
	struct restore_opts bound = {.limit = 100 << 20};
	CHECK_INT(restore_archive(afd, rootfd, &bound), -1);
	close(afd);
	close(rootfd);
	CHECK_INT(fs_type(out2, "big"), 0);
	free(out2);
	free(back);
	free(out);
	free(big);
	free(file);
	free(dir);
}

int main(void)
{
	root = fs_tmpdir();
	test_round_trip();
	test_big_file_streams();
	test_buffer_edges();
	test_corrupt_and_truncated();
	test_escapes_refused();
	test_setid_refused();
	test_sparse_and_bound();
	fs_rmtree(root);
	free(root);
	return check_finish("test_archive");
}
