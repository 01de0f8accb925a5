/* curl_lib.c - libcurl by dlopen() (curl_lib.h says why). */
#include "cache/curl_lib.h"

#include <pthread.h>
#include <stddef.h>

#include "util/dynlib.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct curl_lib lib;
static const struct curl_lib *loaded;
static const char *load_why;

/* Each member's symbol, in the struct's order. */
static const struct dynlib_sym syms[] = {
#define SYM(member, name) DYNLIB_SYM(struct curl_lib, member, name)
    SYM(global_init, "curl_global_init"),
    SYM(easy_init, "curl_easy_init"),
    SYM(easy_cleanup, "curl_easy_cleanup"),
    SYM(easy_reset, "curl_easy_reset"),
    SYM(easy_setopt, "curl_easy_setopt"),
    SYM(easy_getinfo, "curl_easy_getinfo"),
    SYM(easy_perform, "curl_easy_perform"),
    SYM(easy_strerror, "curl_easy_strerror"),
    SYM(easy_escape, "curl_easy_escape"),
    SYM(free, "curl_free"),
    SYM(slist_append, "curl_slist_append"),
    SYM(slist_free_all, "curl_slist_free_all"),
    SYM(multi_init, "curl_multi_init"),
    SYM(multi_setopt, "curl_multi_setopt"),
    SYM(multi_add_handle, "curl_multi_add_handle"),
    SYM(multi_remove_handle, "curl_multi_remove_handle"),
    SYM(multi_perform, "curl_multi_perform"),
    SYM(multi_info_read, "curl_multi_info_read"),
    SYM(multi_poll, "curl_multi_poll"), /* 7.66 and later */
    SYM(multi_cleanup, "curl_multi_cleanup"),
#undef SYM
};

static void load(void)
{
	if (dynlib_load(CURL_SONAME, syms, sizeof syms / sizeof *syms, &lib, &load_why))
		return;
	CURLcode c = lib.global_init(CURL_GLOBAL_DEFAULT);
	if (c != CURLE_OK) {
		load_why = lib.easy_strerror(c);
		return;
	}
	loaded = &lib;
}

const struct curl_lib *curl_lib(const char **why)
{
	pthread_once(&once, load);
	if (!loaded)
		*why = load_why ? load_why : "cannot open " CURL_SONAME;
	return loaded;
}
