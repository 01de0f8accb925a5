/* seccomp.c - the system call filter every sandboxed task runs under.
 *
 * What it refuses, and why (docs/violations.md has the table):
 *
 * - io_uring's file operations (IORING_OP_OPENAT, _READ, _STATX, ...) are
 *   carried out by the kernel on the ring's behalf, never through the
 *   system calls strace sees. The walls still hold for them, but a task
 *   could read an undeclared file inside a grant and no violation would be
 *   reported. So io_uring_setup/enter/register fail with ENOSYS, which
 *   io_uring users (liburing, libuv) take as "no io_uring here". openat2
 *   and fchmodat2 likewise: strace 6.1 cannot decode them, and libc falls
 *   back to openat and fchmodat, which the trace sees. open_tree,
 *   move_mount, fsopen, fsconfig, fsmount, fspick, mount_setattr and
 *   pidfd_getfd likewise (issue 37): each mints a descriptor the trace
 *   never sees opened, and a path relative to it cannot be placed.
 * - A filter with a listener (seccomp(2) with
 *   SECCOMP_FILTER_FLAG_NEW_LISTENER) fails with EPERM (issue 36, item 8):
 *   its SECCOMP_RET_USER_NOTIF answers a call from a supervisor of the
 *   task's own, and SECCOMP_USER_NOTIF_FLAG_CONTINUE then lets the kernel
 *   run the call with no ptrace stop: the tracer never sees it.
 * - A set-user-ID or set-group-ID bit fails with EPERM (item 5), on every
 *   call that sets a mode: chmod, fchmod, fchmodat, mknod, mknodat, and
 *   open, openat, creat when they create. Run as root (CI is), a task's
 *   `chmod 4755 dist/sh` left a setuid-root shell in the workspace.
 * - A process the tracer never sees (issue 36, a review of ptrace(2)):
 *   clone with CLONE_UNTRACED gets no ptrace event, so strace -f never
 *   attaches the child and none of its calls are judged. clone with that
 *   flag fails with EPERM; clone3, whose flags lie in memory seccomp
 *   cannot read, fails with ENOSYS, which glibc (2.34+) and the other
 *   runtimes take as "use clone" (Docker's default profile does the same).
 * - A user namespace of the task's own fails with EPERM (clone or
 *   unshare with CLONE_NEWUSER; clone3 is ENOSYS already): in one a task
 *   has every capability, and with a mount namespace could bind a secret
 *   over a keyed path, which strace -y then names for the secret's bytes
 *   (a review, session 30). init's pid and mount namespaces need none.
 *   Chrome's own sandbox needs one: run it with --no-sandbox, as in a
 *   container.
 * - The kernel keyring fails with ENOSYS (item 9): keyctl, add_key and
 *   request_key. The session keyring is the one of whoever started vx
 *   (Kerberos KEYRING: caches, tools' secrets), and the user keyring is
 *   the UID's: joining a fresh session keyring would still leave that one.
 *   No build uses the kernel keyring; its users fall back to files.
 *
 * The architecture is checked: the native one, and on x86_64 the i386
 * ABI (int 0x80), each with its own numbers; the x32 ABI arrives as
 * x86_64 with bit 30 set on the number, which is cleared before the
 * compare. Any other architecture kills the process: a number there means
 * something this filter does not know.
 *
 * Hand-written classic BPF, assembled below from a table of rules
 * (libseccomp is not one of our dependencies, and the program is short).
 * bwrap installs it just before it execs the task (with no_new_privs);
 * strace's own --seccomp-bpf filter stacks on top, and the stricter
 * action (ERRNO over TRACE) wins. */
#include "sandbox/seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/io.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "seccomp.c reads an argument's low 32 bits at its first word: little-endian only"
#endif

#define X32_BIT 0x40000000u
#define SETID_BITS 06000u /* S_ISUID | S_ISGID */
#ifndef __O_TMPFILE
#define __O_TMPFILE 020000000
#endif
#define CREATES ((uint32_t)(O_CREAT | __O_TMPFILE))
#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif

/* One refusal: the call nr fails with err; when arg >= 0 only if the
 * argument's low 32 bits have a bit of mask set (and, when arg2 >= 0,
 * arg2's a bit of mask2). */
struct rule {
	int nr;
	int err;
	int arg;
	uint32_t mask;
	int arg2;
	uint32_t mask2;
};

#define NOSYS(n)                                                                                   \
	{                                                                                          \
		(n), ENOSYS, -1, 0, -1, 0                                                          \
	}
#define SETID(n, a)                                                                                \
	{                                                                                          \
		(n), EPERM, (a), SETID_BITS, -1, 0                                                 \
	}
#define CREATE_SETID(n, flags, mode)                                                               \
	{                                                                                          \
		(n), EPERM, (flags), CREATES, (mode), SETID_BITS                                   \
	}
#define LISTENER(n)                                                                                \
	{                                                                                          \
		(n), EPERM, 1, SECCOMP_FILTER_FLAG_NEW_LISTENER, -1, 0                             \
	}
#define UNTRACED(n)                                                                                \
	{                                                                                          \
		(n), EPERM, 0, CLONE_UNTRACED | CLONE_NEWUSER, -1, 0                               \
	}
#define NEWUSER(n)                                                                                 \
	{                                                                                          \
		(n), EPERM, 0, CLONE_NEWUSER, -1, 0                                                \
	}

/* 425..427 io_uring, 435 clone3, 437 openat2 and 452 fchmodat2 are the
 * unified numbers every architecture shares; so are 428..433 open_tree,
 * move_mount, fsopen, fsconfig, fsmount, fspick, 438 pidfd_getfd and 442
 * mount_setattr, which mint descriptors the trace never sees opened. */
#define COMMON                                                                                     \
	NOSYS(425), NOSYS(426), NOSYS(427), NOSYS(435), NOSYS(437), NOSYS(452), NOSYS(428),        \
	    NOSYS(429), NOSYS(430), NOSYS(431), NOSYS(432), NOSYS(433), NOSYS(438), NOSYS(442)

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
static const struct rule native[] = {
    COMMON,
    NOSYS(248),
    NOSYS(249),
    NOSYS(250), /* add_key request_key keyctl */
    LISTENER(317),
    SETID(90, 1),
    SETID(91, 1), /* seccomp chmod fchmod */
    SETID(268, 2),
    SETID(133, 1),
    SETID(259, 2), /* fchmodat mknod mknodat */
    CREATE_SETID(2, 1, 2),
    CREATE_SETID(257, 2, 3),
    SETID(85, 1), /* open openat creat */
    UNTRACED(56), /* clone */
    NEWUSER(272), /* unshare */
};
#define COMPAT_ARCH AUDIT_ARCH_I386
static const struct rule compat[] = {
    COMMON,
    NOSYS(286),
    NOSYS(287),
    NOSYS(288), /* add_key request_key keyctl */
    LISTENER(354),
    SETID(15, 1),
    SETID(94, 1), /* seccomp chmod fchmod */
    SETID(306, 2),
    SETID(14, 1),
    SETID(297, 2), /* fchmodat mknod mknodat */
    CREATE_SETID(5, 1, 2),
    CREATE_SETID(295, 2, 3),
    SETID(8, 1),   /* open openat creat */
    UNTRACED(120), /* clone */
    NEWUSER(310),  /* unshare */
};
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
static const struct rule native[] = {
    COMMON,	   NOSYS(217),
    NOSYS(218),	   NOSYS(219), /* add_key request_key keyctl */
    LISTENER(277), SETID(52, 1),
    SETID(53, 2),			   /* seccomp fchmod fchmodat */
    SETID(33, 2),  CREATE_SETID(56, 2, 3), /* mknodat openat */
    UNTRACED(220),			   /* clone */
    NEWUSER(97),			   /* unshare */
};
#else
#error "seccomp.c knows the system call numbers of x86_64 and aarch64 only"
#endif

#define MAX_PROGRAM 256

struct program {
	struct sock_filter v[MAX_PROGRAM];
	size_t n;
};

static size_t emit(struct program *p, struct sock_filter f)
{
	p->v[p->n] = f;
	return p->n++;
}

static void load_arg(struct program *p, int arg)
{
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					     offsetof(struct seccomp_data, args) +
						 8u * (unsigned)arg));
}

/* Emits the rules of one architecture, then its three returns (allow,
 * ENOSYS, EPERM). Each jump to a return is forward, within 255. */
static void emit_rules(struct program *p, const struct rule *r, size_t n, bool x32)
{
	size_t fix[64], nfix = 0; /* jt fields to point at a return: index, errno */
	int fix_err[64];
	for (size_t i = 0; i < n; i++) {
		emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						     offsetof(struct seccomp_data, nr)));
		if (x32)
			emit(p, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~X32_BIT));
		if (r[i].arg < 0) {
			fix_err[nfix] = r[i].err;
			fix[nfix++] =
			    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
								 (uint32_t)r[i].nr, 0, 0));
			continue;
		}
		/* nr, then arg (and arg2): each miss jumps past the rule */
		unsigned tail = r[i].arg2 >= 0 ? 4 : 2;
		emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)r[i].nr,
						     0, (uint8_t)tail));
		load_arg(p, r[i].arg);
		if (r[i].arg2 >= 0) {
			emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, r[i].mask,
							     0, 2));
			load_arg(p, r[i].arg2);
		}
		fix_err[nfix] = r[i].err;
		fix[nfix++] = emit(
		    p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
						    r[i].arg2 >= 0 ? r[i].mask2 : r[i].mask, 0, 0));
	}
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	size_t nosys =
	    emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
						 SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)));
	size_t perm = emit(p, (struct sock_filter)BPF_STMT(
				  BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)));
	for (size_t k = 0; k < nfix; k++)
		p->v[fix[k]].jt = (uint8_t)((fix_err[k] == ENOSYS ? nosys : perm) - fix[k] - 1);
}

static struct program built;

static void build(void)
{
	struct program *p = &built;
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					     offsetof(struct seccomp_data, arch)));
#ifdef COMPAT_ARCH
	size_t to_compat =
	    emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, COMPAT_ARCH, 0, 0));
#endif
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0));
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
#if defined(__x86_64__)
	emit_rules(p, native, sizeof native / sizeof *native, true);
#else
	emit_rules(p, native, sizeof native / sizeof *native, false);
#endif
#ifdef COMPAT_ARCH
	p->v[to_compat].jt = (uint8_t)(p->n - to_compat - 1);
	emit_rules(p, compat, sizeof compat / sizeof *compat, false);
#endif
}

const struct sock_filter *seccomp_program(size_t *n)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, build);
	*n = built.n;
	return built.v;
}

int seccomp_program_fd(void)
{
	size_t n;
	const struct sock_filter *prog = seccomp_program(&n);
	int fd = memfd_create("vx-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write_all(fd, prog, n * sizeof *prog) < 0 || lseek(fd, 0, SEEK_SET) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}
