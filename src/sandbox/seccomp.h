/* seccomp.h - the system call filter every sandboxed task runs under. */
#ifndef VX_SANDBOX_SECCOMP_H
#define VX_SANDBOX_SECCOMP_H

#include <stddef.h>

#include <linux/filter.h>

/* The filter as a classic BPF program (what bwrap's --seccomp reads):
 * io_uring_setup, io_uring_enter and io_uring_register fail with ENOSYS,
 * everything else is allowed. Sets *n to its length. */
const struct sock_filter *seccomp_program(size_t *n);

/* Returns an fd (O_CLOEXEC) of a memory file holding the program, read from
 * its start; or -1 with errno set. */
int seccomp_program_fd(void);

#endif
