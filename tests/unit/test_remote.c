/* Unit tests for cache/remote.c's pure parts (the artifact URL, the
 * redaction, the failure state machine) and cache/transfer.c (an entry out
 * of one store and into another; every torn or forged body refused with
 * nothing entering the store). */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "cache/entry.h"
#include "cache/remote.h"
#include "cache/store.h"
#include "cache/transfer.h"
#include "check.h"
#include "fstest.h"
#include "util/die.h"
#include "util/io.h"

static void test_url(void)
{
	char *u = remote_artifact_url("http://h:3000", "ab12", NULL, NULL);
	CHECK_STR(u, "http://h:3000/v8/artifacts/ab12");
	free(u);
	/* as turbo 2.11.13 sends them: --team is a slug whatever it looks
	 * like, TURBO_TEAMID the id, both when both are set, id first */
	u = remote_artifact_url("http://h:3000/api", "ab12", NULL, "team_Xy9");
	CHECK_STR(u, "http://h:3000/api/v8/artifacts/ab12?slug=team_Xy9");
	free(u);
	u = remote_artifact_url("http://h:3000/api", "ab12", "team_Xy9", NULL);
	CHECK_STR(u, "http://h:3000/api/v8/artifacts/ab12?teamId=team_Xy9");
	free(u);
	u = remote_artifact_url("http://h", "ab12", "team_xyz", "myslug");
	CHECK_STR(u, "http://h/v8/artifacts/ab12?teamId=team_xyz&slug=myslug");
	free(u);
	u = remote_artifact_url("https://h", "ab12", "", "my team&co");
	CHECK_STR(u, "https://h/v8/artifacts/ab12?slug=my%20team%26co");
	free(u);
}

static void test_status(void)
{
	char *u = remote_status_url("http://h:3000", "team_1", NULL);
	CHECK_STR(u, "http://h:3000/v8/artifacts/status?teamId=team_1");
	free(u);
	const char *cases[][2] = {
	    {"{\"status\":\"enabled\"}", "enabled"},
	    {"{ \"status\" : \"over_limit\" }", "over_limit"},
	    {"{\"x\":1,\"status\":\n\"disabled\"}", "disabled"},
	    {"{\"status\":\"paused\"}", "paused"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		char *st = remote_status_parse(cases[k][0]);
		CHECK_STR(st, cases[k][1]);
		free(st);
	}
	const char *bad[] = {"",
			     "{}",
			     "{\"status\":1}",
			     "{\"status\":\"\"}",
			     "{\"status\":\"en abled\"}",
			     "{\"status\":\"enabled",
			     "{\"status\"}",
			     "<html>"};
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
		CHECK(remote_status_parse(bad[k]) == NULL);
}

/* A server's error body: its message, for a warning that says what is
 * wrong (issue 41: a team-less request was "HTTP 400" three times). */
static void test_error_message(void)
{
	const char *cases[][2] = {
	    {"{\"message\":\"querystring should have required property 'team'\"}",
	     "querystring should have required property 'team'"},
	    {"{\"error\":{\"code\":\"forbidden\",\"message\":\"Not authorized\"}}",
	     "Not authorized"},
	    {"{\"statusCode\":400,\"error\":\"Bad Request\"}", "Bad Request"},
	    {"{\"message\" : \"a \\\"quoted\\\" word\"}", "a \\\"quoted\\\" word"},
	    {"{\"message\":\"tab\there\"}", "tab?here"},
	};
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		char *m = remote_error_message(cases[k][0], strlen(cases[k][0]));
		CHECK_STR(m, cases[k][1]);
		free(m);
	}
	const char *none[] = {"", "<html>400</html>", "{\"message\":\"\"}", "{\"message\":3}",
			      "{\"message\""};
	for (size_t k = 0; k < sizeof none / sizeof *none; k++)
		CHECK(remote_error_message(none[k], strlen(none[k])) == NULL);
	/* bounded: a long message is cut, never read past len */
	char big[600];
	memset(big, 'x', sizeof big);
	memcpy(big, "{\"message\":\"", 12);
	char *m = remote_error_message(big, sizeof big);
	CHECK(m && strlen(m) == 200);
	free(m);
}

static void test_redact(void)
{
	char *r = remote_redact("https://user:pa55@cache.example.com:8443/v8/artifacts/x");
	CHECK_STR(r, "https://***@cache.example.com:8443/v8/artifacts/x");
	free(r);
	r = remote_redact("http://cache.example.com/v8/artifacts/x?slug=a@b");
	CHECK_STR(r, "http://cache.example.com/v8/artifacts/x?slug=a@b");
	free(r);
	r = remote_redact("http://tok@h/x");
	CHECK_STR(r, "http://***@h/x");
	free(r);
}

static void test_state(void)
{
	struct remote_state s = {0};
	/* a failure, a success: the count starts over */
	CHECK_STR(remote_state_after(&s, -1), "");
	CHECK(remote_state_after(&s, 0) == NULL);
	CHECK_INT(s.failures, 0);
	/* three in a row: off, said once */
	CHECK_STR(remote_state_after(&s, 500), "");
	CHECK_STR(remote_state_after(&s, -1), "");
	const char *off = remote_state_after(&s, 502);
	CHECK(off && strstr(off, "off for the rest of this run"));
	CHECK(s.off);
	CHECK(remote_state_after(&s, -1) == NULL);
	/* a refused token: off at once, said once */
	struct remote_state t = {0};
	const char *auth = remote_state_after(&t, 401);
	CHECK(auth && strstr(auth, "refused the token"));
	CHECK(t.off);
	CHECK(remote_state_after(&t, 403) == NULL);
}

static char *root;
static struct store a, b;
static const char KEY[] = "0123456789abcdef0123456789abcdef";

/* An entry of KEY in store a, and its body in a file; returns the fd. */
static int body_of(const char *name)
{
	char *proj = xasprintf("%s/proj", root);
	static bool made;
	if (!made) {
		fs_mkdir(root, "proj", 0755);
		fs_mkdir(proj, "dist", 0755);
		made = true;
	}
	fs_write(proj, "dist/out.txt", "built\n", 0644);
	const char *outputs[] = {"dist/out.txt"};
	struct entry_save_request req = {.key = KEY,
					 .task = "p#build",
					 .project_dir = proj,
					 .outputs = outputs,
					 .n_outputs = 1,
					 .log_fd = -1,
					 .log = "log\n",
					 .log_len = 4};
	CHECK_INT(entry_save(&a, &req, NULL), 0);
	char *head;
	size_t head_len;
	int afd;
	uint64_t size;
	CHECK_INT(transfer_export(&a, KEY, &head, &head_len, &afd, &size), 0);
	char *path = xasprintf("%s/%s", root, name);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	CHECK(write_all(fd, head, head_len) == 0);
	char buf[65536];
	ssize_t n;
	while ((n = read(afd, buf, sizeof buf)) > 0)
		CHECK(write_all(fd, buf, (size_t)n) == 0);
	close(afd);
	free(head);
	free(path);
	free(proj);
	return fd;
}

static bool in_b_as(const char *suffix)
{
	char *m = store_entry_path(&b, KEY, suffix);
	bool there = access(m, F_OK) == 0;
	free(m);
	return there;
}

static bool in_b(void)
{
	return in_b_as(STORE_MANIFEST_SUFFIX) || in_b_as(STORE_BUNDLE_SUFFIX);
}

static char *body_path(const char *name)
{
	return xasprintf("%s/%s", root, name);
}

/* Refused, with why naming it, and nothing in store b. */
static void refused(int fd, const char *key, const char *why_has)
{
	struct strbuf why = STRBUF_INIT;
	char *tmp = body_path("refused");
	CHECK_INT(transfer_import(&b, key, fd, tmp, &why), 1);
	free(tmp);
	CHECK(strstr(why.buf, why_has) != NULL);
	if (!strstr(why.buf, why_has))
		fprintf(stderr, "  why: %s\n", why.buf);
	CHECK(!in_b());
	strbuf_release(&why);
}

static void test_transfer(void)
{
	int fd = body_of("body");
	struct stat st;
	fstat(fd, &st);
	/* whole: the download itself enters, as one file (a bundle), and opens
	 * as a verified entry whose export is the same body, head and all */
	struct strbuf why = STRBUF_INIT;
	char *tmp = body_path("body");
	CHECK_INT(transfer_import(&b, KEY, fd, tmp, &why), 0);
	CHECK(access(tmp, F_OK) != 0);
	free(tmp);
	CHECK(in_b_as(STORE_BUNDLE_SUFFIX) && !in_b_as(STORE_MANIFEST_SUFFIX) &&
	      !in_b_as(STORE_ARCHIVE_SUFFIX));
	struct entry e;
	CHECK_INT(entry_open(&b, KEY, &e, &why), ENTRY_HIT);
	CHECK(e.archive_off > 0);
	entry_close(&e);
	struct store_stats stats;
	CHECK(store_stats(&b, &stats) == 0 && stats.entries == 1);
	char *head;
	size_t head_len;
	int afd;
	uint64_t size;
	CHECK_INT(transfer_export(&b, KEY, &head, &head_len, &afd, &size), 0);
	CHECK(head_len == 0 && size == (uint64_t)st.st_size);
	close(afd);
	free(head);
	strbuf_release(&why);
	store_clean(&b);
	CHECK(!in_b());

	/* asked for another key: its manifest names KEY */
	refused(fd, "ffffffffffffffffffffffffffffffff", "manifest is for key");
	/* torn: the archive cut short */
	CHECK(ftruncate(fd, st.st_size - 3) == 0);
	refused(fd, KEY, "archive is");
	close(fd);
	/* a byte of the archive changed */
	fd = body_of("body2");
	char c;
	CHECK(pread(fd, &c, 1, st.st_size - 5) == 1);
	c ^= 0x40;
	CHECK(pwrite(fd, &c, 1, st.st_size - 5) == 1);
	refused(fd, KEY, "checksum");
	close(fd);
	/* no head, a head with a length past the body, an empty body */
	char *junk = xasprintf("%s/junk", root);
	fd = open(junk, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	free(junk);
	CHECK(write_all(fd, "<html>502</html>\n", 17) == 0);
	refused(fd, KEY, "not a vx cache entry");
	CHECK(ftruncate(fd, 0) == 0);
	CHECK(pwrite(fd, "vx-entry 1 999999\n{}", 20, 0) == 20);
	refused(fd, KEY, "ends inside its manifest");
	CHECK(ftruncate(fd, 0) == 0);
	refused(fd, KEY, "not a vx cache entry");
	close(fd);
}

int main(void)
{
	test_url();
	test_redact();
	test_error_message();
	test_status();
	test_state();
	root = fs_tmpdir();
	char *sa = xasprintf("%s/a", root), *sb = xasprintf("%s/b", root);
	if (store_open(&a, sa) || store_open(&b, sb))
		return 1;
	test_transfer();
	store_close(&a);
	store_close(&b);
	fs_rmtree(root);
	free(sa);
	free(sb);
	return check_finish("remote");
}
