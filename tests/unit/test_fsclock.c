/* Unit tests for util/fsclock.c: "now" is the stamp's mtime, read from the
 * file system; vx's own clock when nothing is anchored or the stamp cannot
 * be written (issue 57 item 5). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "skew_clock.h"
#include "util/die.h"
#include "util/fsclock.h"

static void sleep_ms(long ms)
{
	struct timespec d = {ms / 1000, (ms % 1000) * 1000000};
	nanosleep(&d, NULL);
}

int main(void)
{
	char dir[] = "/tmp/vx-test-fsclock-XXXXXX";
	if (!mkdtemp(dir))
		die_errno("mkdtemp");
	char *cache = xasprintf("%s/cache", dir);
	char *stamp = xasprintf("%s/%s", cache, FS_CLOCK_FILE);
	clock_skew = 86400;
	time_t real = time(NULL); /* the vDSO's: not the skewed one */

	/* Nothing anchored: vx's own clock, a day ahead. */
	CHECK(fs_clock_sec() >= real + 86400);

	/* Anchored at a directory not made yet (a first run): vx's own
	 * clock, and nothing made. */
	fs_clock_anchor(cache);
	CHECK(fs_clock_sec() >= real + 86400);
	CHECK(access(cache, F_OK) != 0);

	/* Once the directory is there (after 50 ms: a failure is not tried
	 * again sooner), the stamp is made and its mtime is "now". */
	if (mkdir(cache, 0755))
		die_errno("mkdir %s", cache);
	sleep_ms(60);
	int64_t now = fs_clock_sec();
	struct stat st;
	CHECK_INT(stat(stamp, &st), 0);
	CHECK_INT(now, st.st_mtim.tv_sec);
	CHECK(now >= real && now <= real + 5);
	CHECK_INT(st.st_size, 1);

	/* It moves with the file system's clock. */
	sleep_ms(1100);
	int64_t later = fs_clock_sec();
	CHECK(later > now);
	CHECK(later <= time(NULL));

	/* A stamp that cannot be written (a directory in its place): vx's
	 * own clock again. */
	fs_clock_anchor(NULL);
	unlink(stamp);
	if (mkdir(stamp, 0755))
		die_errno("mkdir %s", stamp);
	fs_clock_anchor(cache);
	CHECK(fs_clock_sec() >= real + 86400);
	rmdir(stamp);

	/* Behind too: the stamp, not the clock. */
	clock_skew = -86400;
	fs_clock_anchor(NULL);
	fs_clock_anchor(cache);
	now = fs_clock_sec();
	CHECK(now >= real && now <= time(NULL));
	fs_clock_anchor(NULL);
	CHECK(fs_clock_sec() < real);

	/* A hard link planted at the stamp's name (a review): never written
	 * through, vx's own clock instead. */
	clock_skew = 86400;
	unlink(stamp);
	char *victim = xasprintf("%s/victim", dir);
	FILE *f = fopen(victim, "w");
	CHECK(f && fputs("ABC", f) >= 0 && fclose(f) == 0);
	CHECK_INT(link(victim, stamp), 0);
	fs_clock_anchor(cache);
	CHECK(fs_clock_sec() >= real + 86400);
	char got[8] = {0};
	f = fopen(victim, "r");
	CHECK(f && fread(got, 1, sizeof got - 1, f) == 3);
	if (f)
		fclose(f);
	CHECK_STR(got, "ABC");
	fs_clock_anchor(NULL);
	unlink(victim);
	free(victim);

	unlink(stamp);
	rmdir(cache);
	rmdir(dir);
	free(stamp);
	free(cache);
	return check_finish("test_fsclock");
}
