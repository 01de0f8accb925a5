/* crypto_lib.h - OpenSSL's libcrypto, opened when an artifact signature is
 * first made or checked (a remote cache with a signature key).
 *
 * Linked, libcrypto cost every vx process 0.65-0.8 ms to map and relocate
 * before main() (an empty program: 0.64-0.93 ms alone, 1.29-1.76 ms linked
 * with -lcrypto; this 2-core machine, perf stat -r 100): a tenth of a fully
 * cached run of a small workspace (8.5 ms), for the few runs that sign.
 * vx is built against its headers and opens it with dlopen(), as libcurl
 * (curl_lib.h). */
#ifndef VX_CACHE_CRYPTO_LIB_H
#define VX_CACHE_CRYPTO_LIB_H

/* the library opened, by its ABI's name (`vx version` names it too) */
#ifdef __APPLE__
#define CRYPTO_SONAME "libcrypto.3.dylib"
#else
#define CRYPTO_SONAME "libcrypto.so.3" /* OpenSSL 3's ABI (EVP_MAC is 3.0's) */
#endif

#include <openssl/evp.h>
#include <openssl/params.h>

struct crypto_lib {
	EVP_MAC *(*mac_fetch)(OSSL_LIB_CTX *ctx, const char *algorithm, const char *properties);
	void (*mac_free)(EVP_MAC *mac);
	EVP_MAC_CTX *(*mac_ctx_new)(EVP_MAC *mac);
	void (*mac_ctx_free)(EVP_MAC_CTX *ctx);
	int (*mac_init)(EVP_MAC_CTX *ctx, const unsigned char *key, size_t keylen,
			const OSSL_PARAM params[]);
	int (*mac_update)(EVP_MAC_CTX *ctx, const unsigned char *data, size_t datalen);
	int (*mac_final)(EVP_MAC_CTX *ctx, unsigned char *out, size_t *outl, size_t outsize);
	OSSL_PARAM (*param_utf8_string)(const char *key, char *buf, size_t bsize);
	OSSL_PARAM (*param_end)(void);
	int (*encode_block)(unsigned char *t, const unsigned char *f, int n);
	int (*memcmp)(const void *a, const void *b, size_t len);
};

/* Opens libcrypto, once per process (thread-safe). Returns its functions,
 * or NULL with *why set (static text or dlerror's). */
const struct crypto_lib *crypto_lib(const char **why);

#endif
