/* crypto_lib.c - libcrypto by dlopen() (crypto_lib.h says why). */
#include "cache/crypto_lib.h"

#include <pthread.h>
#include <stddef.h>

#include "util/dynlib.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct crypto_lib lib;
static const struct crypto_lib *loaded;
static const char *load_why;

static const struct dynlib_sym syms[] = {
#define SYM(member, name) DYNLIB_SYM(struct crypto_lib, member, name)
    SYM(mac_fetch, "EVP_MAC_fetch"),
    SYM(mac_free, "EVP_MAC_free"),
    SYM(mac_ctx_new, "EVP_MAC_CTX_new"),
    SYM(mac_ctx_free, "EVP_MAC_CTX_free"),
    SYM(mac_init, "EVP_MAC_init"),
    SYM(mac_update, "EVP_MAC_update"),
    SYM(mac_final, "EVP_MAC_final"),
    SYM(param_utf8_string, "OSSL_PARAM_construct_utf8_string"),
    SYM(param_end, "OSSL_PARAM_construct_end"),
    SYM(encode_block, "EVP_EncodeBlock"),
    SYM(memcmp, "CRYPTO_memcmp"),
#undef SYM
};

static void load(void)
{
	if (!dynlib_load(CRYPTO_SONAME, syms, sizeof syms / sizeof *syms, &lib, &load_why))
		loaded = &lib;
}

const struct crypto_lib *crypto_lib(const char **why)
{
	pthread_once(&once, load);
	if (!loaded)
		*why = load_why ? load_why : "cannot open " CRYPTO_SONAME;
	return loaded;
}
