#include "util/errnames.h"

#include <errno.h>
#include <string.h>

#define E(x)                                                                                       \
	{                                                                                          \
#x, sizeof #x - 1, x                                                               \
	}

/* A row per name, in glibc's number order on Linux; a number's first row
 * is the name printed. The aliases come last so that they are never the
 * name of a number, only read. */
static const struct errname {
	const char *name;
	size_t len;
	int value;
} rows[] = {
    {"0", 1, 0},
    /* the names glibc and macOS both have */
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
#ifdef __linux__
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
#endif
    E(ENOSTR),
    E(ENODATA),
    E(ETIME),
    E(ENOSR),
#ifdef __linux__
    E(ENONET),
    E(ENOPKG),
#endif
    E(EREMOTE),
    E(ENOLINK),
#ifdef __linux__
    E(EADV),
    E(ESRMNT),
    E(ECOMM),
#endif
    E(EPROTO),
    E(EMULTIHOP),
#ifdef __linux__
    E(EDOTDOT),
#endif
    E(EBADMSG),
    E(EOVERFLOW),
#ifdef __linux__
    E(ENOTUNIQ),
    E(EBADFD),
    E(EREMCHG),
    E(ELIBACC),
    E(ELIBBAD),
    E(ELIBSCN),
    E(ELIBMAX),
    E(ELIBEXEC),
#endif
    E(EILSEQ),
#ifdef __linux__
    E(ERESTART),
    E(ESTRPIPE),
#endif
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
#ifdef __linux__
    E(EUCLEAN),
    E(ENOTNAM),
    E(ENAVAIL),
    E(EISNAM),
    E(EREMOTEIO),
#endif
    E(EDQUOT),
#ifdef __linux__
    E(ENOMEDIUM),
    E(EMEDIUMTYPE),
#endif
    E(ECANCELED),
#ifdef __linux__
    E(ENOKEY),
    E(EKEYEXPIRED),
    E(EKEYREVOKED),
    E(EKEYREJECTED),
#endif
    E(EOWNERDEAD),
    E(ENOTRECOVERABLE),
#ifdef __linux__
    E(ERFKILL),
    E(EHWPOISON),
#endif
    /* aliases: a number whose name is one of the above on Linux */
    E(EWOULDBLOCK),
    E(ENOTSUP),
#ifdef EDEADLOCK
    E(EDEADLOCK),
#endif
};

#undef E

const char *errname_of(int err)
{
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
		if (rows[i].value == err)
			return rows[i].name;
	return NULL;
}

int errname_value(const char *name, size_t len)
{
	/* row 0 is "0": its value is the 0 that says unknown */
	for (size_t i = 1; i < sizeof rows / sizeof *rows; i++)
		if (rows[i].len == len && !memcmp(rows[i].name, name, len))
			return rows[i].value;
	return 0;
}
