#include "cache/statcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "cache/filehash.h"
#include "util/die.h"
#include "util/fsclock.h"
#include "util/io.h"
#include "util/readcache.h"
#include "util/strbuf.h"
#include "util/vec.h"

#define MAGIC "VXSTATC\n"
#define MAGIC_LEN 8
/* magic, u32 version, u32 zero, i64 save_sec, u64 count */
#define HEADER_LEN (MAGIC_LEN + 4 + 4 + 8 + 8)
/* u64 size, i64 mtime_ns, i64 ctime_ns, u64 ino, u64 dev, u32 mode,
 * u32 path_len, 16 hash bytes; then the path */
#define ENTRY_FIXED_LEN (8 * 5 + 4 + 4 + 16)
/* XXH3-64 of every byte before it */
#define TRAILER_LEN 8

/* The lstat data an entry is trusted by: any change to one re-hashes. */
struct stat_data {
	uint64_t size, ino, dev;
	int64_t mtime_ns, ctime_ns;
	uint32_t mode;
};

struct stat_entry {
	char *path;	     /* owned; the table's key */
	struct stat_data sd; /* lstat of path taken before it was hashed */
	char hex[KEY_HEX_SIZE];
	bool racy; /* set when hashed: mtime not older than the hashing second */
	bool gone; /* set when a lookup found the path missing: not saved */
};

struct statcache {
	char *file;
	VEC(struct stat_entry) entries;
	size_t *slots; /* open addressing: entry index + 1, 0 for empty */
	size_t nslots; /* a power of two, at least twice entries.n */
	struct statcache_stats stats;
	bool dirty; /* the file would change: a hash, a path gone, an entry dropped at load */
	const struct readcache *reads; /* lstats already taken this run, or NULL */
};

static struct stat_data stat_data_of(const struct stat *st)
{
	return (struct stat_data){
	    .size = (uint64_t)st->st_size,
	    .ino = (uint64_t)st->st_ino,
	    .dev = (uint64_t)st->st_dev,
	    .mtime_ns = fs_ns(st->st_mtim),
	    .ctime_ns = fs_ns(st->st_ctim),
	    .mode = (uint32_t)st->st_mode,
	};
}

static bool stat_data_equal(const struct stat_data *a, const struct stat_data *b)
{
	return a->size == b->size && a->ino == b->ino && a->dev == b->dev &&
	       a->mtime_ns == b->mtime_ns && a->ctime_ns == b->ctime_ns && a->mode == b->mode;
}

static size_t slot_of(const struct statcache *sc, const char *path)
{
	return (size_t)XXH3_64bits(path, strlen(path)) & (sc->nslots - 1);
}

static struct stat_entry *table_find(struct statcache *sc, const char *path)
{
	if (!sc->nslots)
		return NULL;
	for (size_t i = slot_of(sc, path);; i = (i + 1) & (sc->nslots - 1)) {
		size_t idx = sc->slots[i];
		if (!idx)
			return NULL;
		if (!strcmp(sc->entries.v[idx - 1].path, path))
			return &sc->entries.v[idx - 1];
	}
}

static void table_place(struct statcache *sc, size_t idx)
{
	size_t i = slot_of(sc, sc->entries.v[idx].path);
	while (sc->slots[i])
		i = (i + 1) & (sc->nslots - 1);
	sc->slots[i] = idx + 1;
}

/* Makes room for n entries in all: the slots at least twice that. */
static void table_reserve(struct statcache *sc, size_t n)
{
	vec_reserve(&sc->entries, n);
	if (2 * n <= sc->nslots)
		return;
	size_t want = sc->nslots ? sc->nslots : 64;
	while (want < 2 * n)
		want *= 2;
	free(sc->slots);
	sc->nslots = want;
	sc->slots = xcalloc(sc->nslots, sizeof *sc->slots);
	for (size_t i = 0; i < sc->entries.n; i++)
		table_place(sc, i);
}

/* Returns path's entry, added empty (and racy, so never trusted) if new;
 * owned (NULL: path is copied) is path itself, the table's to keep or free. */
static struct stat_entry *table_get_owned(struct statcache *sc, const char *path, char *owned)
{
	struct stat_entry *e = table_find(sc, path);
	if (e) {
		free(owned);
		return e;
	}
	table_reserve(sc, sc->entries.n + 1);
	vec_push(&sc->entries,
		 ((struct stat_entry){.path = owned ? owned : xstrdup(path), .racy = true}));
	table_place(sc, sc->entries.n - 1);
	return &sc->entries.v[sc->entries.n - 1];
}

static struct stat_entry *table_get(struct statcache *sc, const char *path)
{
	return table_get_owned(sc, path, NULL);
}

/* Little-endian fields, whatever the host, so the file is one format. */
static void put_le(struct strbuf *sb, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		strbuf_addch(sb, (char)(unsigned char)(v >> (8 * i)));
}

static uint64_t get_le(const unsigned char *p, int bytes)
{
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Parses the loaded bytes into sc. Returns NULL, or why the file is corrupt;
 * *other_version is set when the file is well-formed but of another version. */
static const char *parse(struct statcache *sc, const unsigned char *p, size_t len,
			 bool *other_version)
{
	if (len < HEADER_LEN + TRAILER_LEN || memcmp(p, MAGIC, MAGIC_LEN))
		return "not a vx stat cache";
	if (get_le(p + MAGIC_LEN, 4) != STATCACHE_VERSION) {
		*other_version = true;
		return NULL;
	}
	size_t body = len - TRAILER_LEN;
	if (XXH3_64bits(p, body) != get_le(p + body, 8))
		return "checksum mismatch";
	int64_t save_sec = (int64_t)get_le(p + MAGIC_LEN + 8, 8);
	uint64_t count = get_le(p + MAGIC_LEN + 16, 8);
	if (count > (body - HEADER_LEN) / ENTRY_FIXED_LEN)
		return "entry count exceeds the file";

	size_t off = HEADER_LEN;
	table_reserve(sc, sc->entries.n + (size_t)count);
	for (uint64_t n = 0; n < count; n++) {
		if (body - off < ENTRY_FIXED_LEN)
			return "truncated entry";
		const unsigned char *q = p + off;
		struct stat_data sd = {
		    .size = get_le(q, 8),
		    .mtime_ns = (int64_t)get_le(q + 8, 8),
		    .ctime_ns = (int64_t)get_le(q + 16, 8),
		    .ino = get_le(q + 24, 8),
		    .dev = get_le(q + 32, 8),
		    .mode = (uint32_t)get_le(q + 40, 4),
		};
		size_t plen = (size_t)get_le(q + 44, 4);
		const unsigned char *hash = q + 48;
		off += ENTRY_FIXED_LEN;
		if (plen == 0 || plen > body - off)
			return "bad path length";
		const char *path = (const char *)p + off;
		if (memchr(path, '\0', plen))
			return "NUL in a path";
		off += plen;

		/* git's racy rule: an entry whose mtime is not strictly older
		 * than the second the file was written in may have changed in
		 * that second without its stat data changing. Re-hash it. */
		if (fs_sec_of(sd.mtime_ns) >= save_sec) {
			sc->stats.dropped++;
			continue;
		}
		char *key = xstrndup(path, plen);
		struct stat_entry *e = table_get_owned(sc, key, key);
		e->sd = sd;
		key_hex(hash, e->hex);
		e->racy = false;
		e->gone = false;
		sc->stats.loaded++;
	}
	if (off != body)
		return "trailing bytes";
	return NULL;
}

static void clear_entries(struct statcache *sc)
{
	for (size_t i = 0; i < sc->entries.n; i++)
		free(sc->entries.v[i].path);
	vec_free(&sc->entries);
	free(sc->slots);
	sc->slots = NULL;
	sc->nslots = 0;
}

void statcache_use_reads(struct statcache *sc, const struct readcache *reads)
{
	sc->reads = reads;
}

struct statcache *statcache_load(const char *file)
{
	struct statcache *sc = xcalloc(1, sizeof *sc);
	sc->file = xstrdup(file);

	struct strbuf sb = STRBUF_INIT;
	if (strbuf_read_file(&sb, file) < 0) {
		if (errno != ENOENT) {
			warning("cannot read stat cache %s: %s; hashing every input", file,
				strbuf_read_strerror(errno));
			sc->dirty = true; /* to be replaced */
		}
		strbuf_release(&sb);
		return sc;
	}
	bool other_version = false;
	const char *why = parse(sc, (const unsigned char *)sb.buf, sb.len, &other_version);
	if (why || other_version) {
		/* Half a corrupt file is not to be trusted: start over. */
		clear_entries(sc);
		sc->stats = (struct statcache_stats){0};
	}
	if (why)
		warning("stat cache %s is corrupt (%s); hashing every input", file, why);
	/* what the racy rule dropped, or a file to replace, is a change */
	sc->dirty = why || other_version || sc->stats.dropped;
	strbuf_release(&sb);
	return sc;
}

/* Records path's hash, computed after lstat gave sd at or after second t0. */
static void record(struct statcache *sc, const char *path, const struct stat_data *sd, int64_t t0,
		   const char *hex)
{
	struct stat_entry *e = table_get(sc, path);
	e->sd = *sd;
	memcpy(e->hex, hex, KEY_HEX_SIZE);
	e->gone = false;
	sc->dirty = true;
	/* The stricter half of the racy rule (docs/cache-hashing.md): a write
	 * after our read can keep the mtime only if the mtime is in the second
	 * we started in, or later. Such an entry serves nobody: not this run's
	 * next lookup, not the next run. t0 is the file system's second
	 * (fs_clock_sec): by vx's own clock, a year ahead of an NFS server's,
	 * every fresh file looked a year old (issue 57 item 5). */
	e->racy = fs_sec_of(sd->mtime_ns) >= t0;
	if (e->racy)
		sc->stats.racy++;
	sc->stats.hashed++;
}

/* The lookup half: lstat path and answer from a trusted entry. Returns 1 with
 * hex filled on a hit, 0 on a miss (*sd filled), -1 with errno set. */
static int probe(struct statcache *sc, const char *path, struct stat_data *sd,
		 char hex[KEY_HEX_SIZE])
{
	sc->stats.lookups++;
	struct stat st;
	struct stat_entry *e = table_find(sc, path);
	if (!readcache_lstat(sc->reads, path, &st) && fs_stat(path, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (e && !e->gone) {
			e->gone = true;
			sc->dirty = true;
		}
		return -1;
	}
	*sd = stat_data_of(&st);
	if (e && !e->gone && !e->racy && stat_data_equal(&e->sd, sd)) {
		memcpy(hex, e->hex, KEY_HEX_SIZE);
		sc->stats.hits++;
		return 1;
	}
	return 0;
}

int statcache_lookup_or_hash(struct statcache *sc, const char *path, char hex[KEY_HEX_SIZE])
{
	int64_t t0 = fs_clock_sec();
	struct stat_data sd;
	int r = probe(sc, path, &sd, hex);
	if (r != 0)
		return r < 0 ? -1 : 0;
	if (filehash_path(path, hex) < 0)
		return -1;
	record(sc, path, &sd, t0, hex);
	return 0;
}

size_t statcache_lookup_many(struct statcache *sc, const char *const *paths, size_t n,
			     char (*out)[KEY_HEX_SIZE], int *errnos, int threads)
{
	int64_t t0 = fs_clock_sec();
	size_t failed = 0, nmiss = 0;
	size_t *miss = xcalloc(n ? n : 1, sizeof *miss);
	struct stat_data *sds = xcalloc(n ? n : 1, sizeof *sds);
	for (size_t i = 0; i < n; i++) {
		int r = probe(sc, paths[i], &sds[i], out[i]);
		errnos[i] = r < 0 ? errno : 0;
		if (r < 0) {
			out[i][0] = '\0';
			failed++;
		} else if (r == 0) {
			miss[nmiss++] = i;
		}
	}

	const char **mpaths = xcalloc(nmiss ? nmiss : 1, sizeof *mpaths);
	char(*mout)[KEY_HEX_SIZE] = xcalloc(nmiss ? nmiss : 1, sizeof *mout);
	int *merr = xcalloc(nmiss ? nmiss : 1, sizeof *merr);
	for (size_t j = 0; j < nmiss; j++)
		mpaths[j] = paths[miss[j]];
	filehash_many(mpaths, nmiss, mout, merr, threads);
	for (size_t j = 0; j < nmiss; j++) {
		size_t i = miss[j];
		memcpy(out[i], mout[j], KEY_HEX_SIZE);
		errnos[i] = merr[j];
		if (merr[j])
			failed++;
		else
			record(sc, paths[i], &sds[i], t0, out[i]);
	}
	free(mpaths), free(mout), free(merr), free(miss), free(sds);
	return failed;
}

static int hex_to_bytes(const char *hex, unsigned char out[16])
{
	for (int i = 0; i < 16; i++) {
		int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

static void serialize(const struct statcache *sc, int64_t save_sec, struct strbuf *sb)
{
	strbuf_add(sb, MAGIC, MAGIC_LEN);
	put_le(sb, STATCACHE_VERSION, 4);
	put_le(sb, 0, 4);
	put_le(sb, (uint64_t)save_sec, 8);
	size_t count_at = sb->len;
	put_le(sb, 0, 8);

	uint64_t count = 0;
	for (size_t i = 0; i < sc->entries.n; i++) {
		const struct stat_entry *e = &sc->entries.v[i];
		unsigned char hash[16];
		size_t plen = strlen(e->path);
		if (e->racy || e->gone || plen > UINT32_MAX || hex_to_bytes(e->hex, hash))
			continue;
		put_le(sb, e->sd.size, 8);
		put_le(sb, (uint64_t)e->sd.mtime_ns, 8);
		put_le(sb, (uint64_t)e->sd.ctime_ns, 8);
		put_le(sb, e->sd.ino, 8);
		put_le(sb, e->sd.dev, 8);
		put_le(sb, e->sd.mode, 4);
		put_le(sb, plen, 4);
		strbuf_add(sb, hash, sizeof hash);
		strbuf_add(sb, e->path, plen);
		count++;
	}
	for (int i = 0; i < 8; i++)
		sb->buf[count_at + i] = (char)(unsigned char)(count >> (8 * i));
	put_le(sb, XXH3_64bits(sb->buf, sb->len), 8);
}

int statcache_save(struct statcache *sc)
{
	if (!sc->dirty)
		return 0; /* the file says it all already: a no-op run writes nothing */
	struct strbuf sb = STRBUF_INIT;
	serialize(sc, fs_clock_sec(), &sb);

	/* Same directory, so rename(2) replaces the file atomically. No fsync:
	 * after a crash a torn or empty file fails its checksum and costs one
	 * re-hash of every input, never a wrong hash. */
	int ret = 0;
	if (write_file_atomic(sc->file, sb.buf, sb.len) < 0)
		ret = error_errno("cannot write %s", sc->file);
	strbuf_release(&sb);
	return ret;
}

bool statcache_changed(struct statcache *sc, const char *path)
{
	struct stat_entry *e = table_find(sc, path);
	struct stat st;
	if (!e || lstat(path, &st) < 0)
		return true;
	struct stat_data now = stat_data_of(&st);
	return !stat_data_equal(&now, &e->sd);
}

struct statcache_stats statcache_stats(const struct statcache *sc)
{
	return sc->stats;
}

void statcache_free(struct statcache *sc)
{
	if (!sc)
		return;
	clear_entries(sc);
	free(sc->file);
	free(sc);
}
