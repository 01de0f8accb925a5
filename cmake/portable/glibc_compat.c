/* glibc_compat.c - close_range, strerrorname_np and sigabbrev_np for a
 * glibc older than the one that added each (glibc_compat.h). The names
 * are glibc 2.36's, printed by it for every number (tests/unit/
 * test_glibc_compat.c compares the two where both exist). */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_close_range
#define __NR_close_range 436 /* the same number on every architecture */
#endif

int vx_glibc_close_range(unsigned int first, unsigned int last, int flags)
{
	return (int)syscall(__NR_close_range, first, last, flags);
}

const char *vx_glibc_strerrorname_np(int err)
{
	static const char *const names[] = {
#define E(x) [x] = #x
	    [0] = "0",
	    E(EPERM),
	    E(ENOENT),
	    E(ESRCH),
	    E(EINTR),
	    E(EIO),
	    E(ENXIO),
	    E(E2BIG),
	    E(ENOEXEC),
	    E(EBADF),
	    E(ECHILD),
	    E(EAGAIN),
	    E(ENOMEM),
	    E(EACCES),
	    E(EFAULT),
	    E(ENOTBLK),
	    E(EBUSY),
	    E(EEXIST),
	    E(EXDEV),
	    E(ENODEV),
	    E(ENOTDIR),
	    E(EISDIR),
	    E(EINVAL),
	    E(ENFILE),
	    E(EMFILE),
	    E(ENOTTY),
	    E(ETXTBSY),
	    E(EFBIG),
	    E(ENOSPC),
	    E(ESPIPE),
	    E(EROFS),
	    E(EMLINK),
	    E(EPIPE),
	    E(EDOM),
	    E(ERANGE),
	    E(EDEADLK),
	    E(ENAMETOOLONG),
	    E(ENOLCK),
	    E(ENOSYS),
	    E(ENOTEMPTY),
	    E(ELOOP),
	    E(ENOMSG),
	    E(EIDRM),
	    E(ECHRNG),
	    E(EL2NSYNC),
	    E(EL3HLT),
	    E(EL3RST),
	    E(ELNRNG),
	    E(EUNATCH),
	    E(ENOCSI),
	    E(EL2HLT),
	    E(EBADE),
	    E(EBADR),
	    E(EXFULL),
	    E(ENOANO),
	    E(EBADRQC),
	    E(EBADSLT),
	    E(EBFONT),
	    E(ENOSTR),
	    E(ENODATA),
	    E(ETIME),
	    E(ENOSR),
	    E(ENONET),
	    E(ENOPKG),
	    E(EREMOTE),
	    E(ENOLINK),
	    E(EADV),
	    E(ESRMNT),
	    E(ECOMM),
	    E(EPROTO),
	    E(EMULTIHOP),
	    E(EDOTDOT),
	    E(EBADMSG),
	    E(EOVERFLOW),
	    E(ENOTUNIQ),
	    E(EBADFD),
	    E(EREMCHG),
	    E(ELIBACC),
	    E(ELIBBAD),
	    E(ELIBSCN),
	    E(ELIBMAX),
	    E(ELIBEXEC),
	    E(EILSEQ),
	    E(ERESTART),
	    E(ESTRPIPE),
	    E(EUSERS),
	    E(ENOTSOCK),
	    E(EDESTADDRREQ),
	    E(EMSGSIZE),
	    E(EPROTOTYPE),
	    E(ENOPROTOOPT),
	    E(EPROTONOSUPPORT),
	    E(ESOCKTNOSUPPORT),
	    E(EOPNOTSUPP),
	    E(EPFNOSUPPORT),
	    E(EAFNOSUPPORT),
	    E(EADDRINUSE),
	    E(EADDRNOTAVAIL),
	    E(ENETDOWN),
	    E(ENETUNREACH),
	    E(ENETRESET),
	    E(ECONNABORTED),
	    E(ECONNRESET),
	    E(ENOBUFS),
	    E(EISCONN),
	    E(ENOTCONN),
	    E(ESHUTDOWN),
	    E(ETOOMANYREFS),
	    E(ETIMEDOUT),
	    E(ECONNREFUSED),
	    E(EHOSTDOWN),
	    E(EHOSTUNREACH),
	    E(EALREADY),
	    E(EINPROGRESS),
	    E(ESTALE),
	    E(EUCLEAN),
	    E(ENOTNAM),
	    E(ENAVAIL),
	    E(EISNAM),
	    E(EREMOTEIO),
	    E(EDQUOT),
	    E(ENOMEDIUM),
	    E(EMEDIUMTYPE),
	    E(ECANCELED),
	    E(ENOKEY),
	    E(EKEYEXPIRED),
	    E(EKEYREVOKED),
	    E(EKEYREJECTED),
	    E(EOWNERDEAD),
	    E(ENOTRECOVERABLE),
	    E(ERFKILL),
	    E(EHWPOISON),
#undef E
	};
	if (err < 0 || (size_t)err >= sizeof names / sizeof *names)
		return NULL;
	return names[err];
}

const char *vx_glibc_sigabbrev_np(int sig)
{
	static const char *const names[] = {
#define S(x) [SIG##x] = #x
	    S(HUP),  S(INT),	S(QUIT), S(ILL),   S(TRAP), S(ABRT), S(BUS),  S(FPE),
	    S(KILL), S(USR1),	S(SEGV), S(USR2),  S(PIPE), S(ALRM), S(TERM), S(STKFLT),
	    S(CHLD), S(CONT),	S(STOP), S(TSTP),  S(TTIN), S(TTOU), S(URG),  S(XCPU),
	    S(XFSZ), S(VTALRM), S(PROF), S(WINCH), S(POLL), S(PWR),  S(SYS),
#undef S
	};
	if (sig < 0 || (size_t)sig >= sizeof names / sizeof *names)
		return NULL;
	return names[sig];
}
