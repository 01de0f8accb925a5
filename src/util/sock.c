/* sock.c - a TCP listener on the loopback (sock.h). */
#include "util/sock.h"

#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

int sock_listen_loopback(int family, int port, bool nonblock)
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);
	if (fd < 0)
		return -1;
	int one = 1, rc;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (family == AF_INET6) {
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
		struct sockaddr_in6 sa = {.sin6_family = AF_INET6,
					  .sin6_port = htons((uint16_t)port),
					  .sin6_addr = IN6ADDR_LOOPBACK_INIT};
		rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
	} else {
		struct sockaddr_in sa = {.sin_family = AF_INET,
					 .sin_port = htons((uint16_t)port),
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
	}
	if (rc < 0 || listen(fd, 128) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}
