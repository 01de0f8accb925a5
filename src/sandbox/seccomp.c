/* seccomp.c - the system call filter every sandboxed task runs under.
 *
 * io_uring's file operations (IORING_OP_OPENAT, _READ, _STATX, ...) are
 * carried out by the kernel on the ring's behalf, never through the system
 * calls strace sees. The walls still hold for them (the ring resolves paths
 * in the task's mount namespace), but a task could read an undeclared file
 * inside a grant, or probe for a hidden one, and no violation would be
 * reported. So the three io_uring calls fail with ENOSYS, which io_uring
 * users (liburing, libuv) take as "no io_uring here": they fall back to
 * plain read/write, which the trace sees. openat2 and fchmodat2 are
 * refused the same way, for the same reason (docs/violations.md, the
 * table of path calls).
 *
 * No architecture check: 425..427 are io_uring_setup/enter/register in the
 * unified numbering every architecture vx runs on shares (as are 437
 * and 452) (x86_64, i386,
 * arm, aarch64, riscv), so a task switching to the 32-bit ABI (int 0x80 on
 * x86_64) meets the same numbers; the x32 ABI's are the same with bit 30
 * set, and are denied too. A number meaning something else on a foreign
 * architecture would only fail with ENOSYS, never let anything through.
 * bwrap installs the filter just before it execs the task (with
 * no_new_privs); strace's own --seccomp-bpf filter stacks on top, and the
 * stricter action (ERRNO over TRACE) wins. */
#include "sandbox/seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/io.h"

#define X32_BIT 0x40000000u

/* 425..427 io_uring_setup/enter/register; 437 openat2 and 452 fchmodat2,
 * path calls strace 6.1 cannot decode (its open_how, a call newer than it):
 * refused, so libc and tools fall back to openat and fchmodat, which the
 * trace sees (issue 12). */
static const struct sock_filter program[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    /* each: equal -> jump to the ENOSYS return, else the next test */
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 425, 10, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 426, 9, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 427, 8, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 437, 7, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 452, 6, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 425 | X32_BIT, 5, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 426 | X32_BIT, 4, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 427 | X32_BIT, 3, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 437 | X32_BIT, 2, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 452 | X32_BIT, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
};

const struct sock_filter *seccomp_program(size_t *n)
{
	*n = sizeof program / sizeof *program;
	return program;
}

int seccomp_program_fd(void)
{
	int fd = memfd_create("vx-seccomp", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write_all(fd, program, sizeof program) < 0 || lseek(fd, 0, SEEK_SET) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}
