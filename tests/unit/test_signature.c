/* Unit tests for cache/signature.c against Turborepo's own client: the
 * fixture is the body turbo 2.11.13 (npm) uploaded for its task hash
 * b70be7cbfaeef94a with TURBO_REMOTE_CACHE_SIGNATURE_KEY
 * "0123456789abcdef0123456789abcdef", once with TURBO_TEAMID=team_xyz and
 * once with only a slug, and the x-artifact-tag it sent each time
 * (captured by a server that logged its PUTs): vx's tag must be those
 * bytes. Then the tag as a verifier: a flipped byte, another team, a short
 * body, a tag of the wrong length all fail. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/signature.h"
#include "check.h"
#include "fstest.h"
#include "util/die.h"

#define KEY "0123456789abcdef0123456789abcdef"
#define HASH "b70be7cbfaeef94a"
#define TAG_TEAM "t1azuCOn+3I+EBiHlgeHgT39BZTnQ85jZ+nDWMc/Ga4="
#define TAG_SLUG "Pd9sgn4nmqY9NSJ7o/IeicyI1jcYEd84hBdgqVwZiGQ="

int main(void)
{
	int fd = open("fixtures/turbo-signed/" HASH ".body", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die_errno("fixtures/turbo-signed/" HASH ".body");
	struct stat st;
	if (fstat(fd, &st))
		die_errno("fstat");
	uint64_t size = (uint64_t)st.st_size;
	CHECK_INT(size, 237);
	char tag[SIGNATURE_TAG_SIZE];
	CHECK_INT(signature_tag(KEY, HASH, "team_xyz", NULL, 0, fd, 0, size, tag), 0);
	CHECK_STR(tag, TAG_TEAM);
	CHECK_INT(signature_tag(KEY, HASH, "", NULL, 0, fd, 0, size, tag), 0);
	CHECK_STR(tag, TAG_SLUG);
	CHECK_INT(signature_tag(KEY, HASH, NULL, NULL, 0, fd, 0, size, tag), 0);
	CHECK_STR(tag, TAG_SLUG);

	/* A body given as a head in memory and the rest from the file signs
	 * the same bytes: the upload's shape. */
	char head[40];
	CHECK_INT(pread(fd, head, sizeof head, 0), sizeof head);
	CHECK_INT(signature_tag(KEY, HASH, "team_xyz", head, sizeof head, fd, sizeof head,
				size - sizeof head, tag),
		  0);
	CHECK_STR(tag, TAG_TEAM);

	CHECK_INT(signature_verify(KEY, HASH, "team_xyz", fd, 0, size, TAG_TEAM), 1);
	CHECK_INT(signature_verify(KEY, HASH, "", fd, 0, size, TAG_SLUG), 1);
	/* the team is signed: a tag for one team does not pass for another */
	CHECK_INT(signature_verify(KEY, HASH, "team_xy", fd, 0, size, TAG_TEAM), 0);
	CHECK_INT(signature_verify(KEY, HASH, "", fd, 0, size, TAG_TEAM), 0);
	/* the hash, the key, the body are signed */
	CHECK_INT(signature_verify(KEY, "b70be7cbfaeef94b", "team_xyz", fd, 0, size, TAG_TEAM), 0);
	CHECK_INT(signature_verify("0123456789abcdef0123456789abcdeF", HASH, "team_xyz", fd, 0,
				   size, TAG_TEAM),
		  0);
	CHECK_INT(signature_verify(KEY, HASH, "team_xyz", fd, 1, size - 1, TAG_TEAM), 0);
	/* the length prefixes: moving a byte from the hash to the team is
	 * another message (without them, "b70b…4a"+"team_xyz" would equal
	 * "b70b…4at"+"eam_xyz") */
	CHECK_INT(signature_verify(KEY, HASH "t", "eam_xyz", fd, 0, size, TAG_TEAM), 0);
	/* a tag of the wrong length, or none */
	CHECK_INT(signature_verify(KEY, HASH, "team_xyz", fd, 0, size, "t1azuCOn"), 0);
	CHECK_INT(signature_verify(KEY, HASH, "team_xyz", fd, 0, size, ""), 0);
	/* a body shorter than said is an error, not a tag */
	CHECK_INT(signature_tag(KEY, HASH, "", NULL, 0, fd, 0, size + 1, tag), -1);

	/* a flipped byte */
	char *dir = fs_tmpdir();
	char *copy = xasprintf("%s/body", dir);
	int out = open(copy, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	char buf[237];
	CHECK_INT(pread(fd, buf, sizeof buf, 0), sizeof buf);
	buf[100] ^= 1;
	CHECK_INT(pwrite(out, buf, sizeof buf, 0), sizeof buf);
	CHECK_INT(signature_verify(KEY, HASH, "team_xyz", out, 0, size, TAG_TEAM), 0);
	close(out);
	close(fd);
	fs_rmtree(dir);
	free(dir);
	free(copy);
	return check_finish("signature");
}
