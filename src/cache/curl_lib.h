/* curl_lib.h - libcurl, opened when the remote cache first needs it.
 *
 * Linked, libcurl and the ~30 libraries it pulls in (TLS, HTTP/2, SSH,
 * LDAP, Kerberos…) cost every vx process 3.3 ms to map and relocate before
 * main() (an empty program: 0.75 ms alone, 4.8 ms linked with libcurl; this
 * 2-core machine, perf stat -r 50), whether or not a remote cache is set:
 * a tenth of a fully cached 1000-project run, most of a small one's. vx is
 * built against libcurl's headers and opens the library with dlopen() the
 * first time a remote cache client is made. */
#ifndef VX_CACHE_CURL_LIB_H
#define VX_CACHE_CURL_LIB_H

/* the library opened, by its ABI's name (`vx version` names it too) */
#ifdef __APPLE__
#define CURL_SONAME "libcurl.4.dylib"
#else
#define CURL_SONAME "libcurl.so.4" /* the ABI curl has kept since 7.16 (2006) */
#endif

#include <curl/curl.h>

struct curl_lib {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	void (*easy_cleanup)(CURL *h);
	void (*easy_reset)(CURL *h);
	CURLcode (*easy_setopt)(CURL *h, CURLoption opt, ...);
	CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
	CURLcode (*easy_perform)(CURL *h);
	const char *(*easy_strerror)(CURLcode c);
	char *(*easy_escape)(CURL *h, const char *s, int len);
	void (*free)(void *p);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
	CURLM *(*multi_init)(void);
	CURLMcode (*multi_setopt)(CURLM *m, CURLMoption opt, ...);
	CURLMcode (*multi_add_handle)(CURLM *m, CURL *h);
	CURLMcode (*multi_remove_handle)(CURLM *m, CURL *h);
	CURLMcode (*multi_perform)(CURLM *m, int *running);
	CURLMsg *(*multi_info_read)(CURLM *m, int *left);
	CURLMcode (*multi_poll)(CURLM *m, struct curl_waitfd extra[], unsigned n, int timeout_ms,
				int *ret);
	CURLMcode (*multi_cleanup)(CURLM *m);
};

/* Opens libcurl and runs curl_global_init, once per process (thread-safe).
 * Returns its functions, or NULL with *why set (static text or dlerror's). */
const struct curl_lib *curl_lib(const char **why);

#endif
