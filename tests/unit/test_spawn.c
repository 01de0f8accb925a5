/* Unit tests for util/spawn.c: a capture, and a helper started now and
 * collected later (its output larger than a pipe holds, so a pipe-backed
 * version would block the helper), its exit status, and abandoning one. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "check.h"
#include "util/spawn.h"

int main(void)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char *echo[] = {"sh", "-c", "echo out; echo err >&2; exit 4", NULL};
	CHECK_INT(spawn_capture(echo, NULL, &out, &err), 4);
	CHECK_STR(out.buf, "out\n");
	CHECK_STR(err.buf, "err\n");
	strbuf_reset(&out);

	struct spawned s;
	char *seq[] = {"sh", "-c", "seq 1 100000; echo done >&2", NULL};
	CHECK_INT(spawn_start(seq, "/", &s), 0);
	CHECK(s.pid > 0);
	CHECK_INT(spawn_finish(&s, &out), 0);
	CHECK_INT(s.pid, 0);
	CHECK_INT(out.len, 588895); /* the digits and newlines of 1..100000 */
	CHECK(!strncmp(out.buf, "1\n2\n", 4));
	CHECK(!strcmp(out.buf + out.len - 7, "100000\n"));
	strbuf_reset(&out);

	char *fail[] = {"sh", "-c", "pwd; exit 3", NULL};
	CHECK_INT(spawn_start(fail, "/tmp", &s), 0);
	CHECK_INT(spawn_finish(&s, &out), 3);
	CHECK_STR(out.buf, "/tmp\n");
	CHECK_INT(spawn_finish(&s, &out), -1); /* collected once */

	char *sleeper[] = {"sleep", "30", NULL};
	CHECK_INT(spawn_start(sleeper, NULL, &s), 0);
	pid_t pid = s.pid;
	spawn_abandon(&s);
	CHECK_INT(s.pid, 0);
	CHECK(waitpid(pid, NULL, WNOHANG) == -1 && errno == ECHILD); /* killed and reaped */

	char *missing[] = {"vx-no-such-program", NULL};
	CHECK_INT(spawn_start(missing, NULL, &s), -1);

	/* A signal is 128+N, and named; an exit is its status. */
	char *killed[] = {"sh", "-c", "kill -TERM $$", NULL};
	CHECK_INT(spawn_capture(killed, NULL, NULL, NULL), 128 + SIGTERM);
	int sig = -1;
	CHECK_INT(spawn_exit_code(SIGKILL, &sig),
		  128 + SIGKILL); /* raw status of a SIGKILL death */
	CHECK_INT(sig, SIGKILL);
	CHECK_INT(spawn_exit_code(7 << 8, &sig), 7);
	CHECK_INT(sig, 0);
	strbuf_release(&out);
	strbuf_release(&err);
	return check_finish("spawn");
}
