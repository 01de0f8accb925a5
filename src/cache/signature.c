/* signature.c - HMAC-SHA256 artifact tags over OpenSSL's EVP_MAC
 * (signature.h says the layout and where it comes from). */
#include "cache/signature.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "cache/crypto_lib.h"
#include "util/die.h"

#define DOMAIN "artifact-signature:v2"

/* libcrypto, or NULL after a warning (errno ENOSYS): without it nothing
 * is signed, and nothing verifies. */
static const struct crypto_lib *crypto(void)
{
	const char *why;
	const struct crypto_lib *lib = crypto_lib(&why);
	if (!lib) {
		warning("artifact signatures need libcrypto: %s", why);
		errno = ENOSYS;
	}
	return lib;
}

static int update_len(const struct crypto_lib *lib, EVP_MAC_CTX *c, uint64_t n)
{
	unsigned char le[8];
	for (int k = 0; k < 8; k++)
		le[k] = (unsigned char)(n >> (8 * k));
	return lib->mac_update(c, le, sizeof le);
}

static int update_field(const struct crypto_lib *lib, EVP_MAC_CTX *c, const void *p, size_t n)
{
	return update_len(lib, c, n) && (!n || lib->mac_update(c, p, n));
}

/* The 32-byte MAC of the body; 0, or -1 with errno. */
static int mac(const struct crypto_lib *lib, const char *key, const char *hash, const char *team_id,
	       const void *head, size_t head_len, int fd, off_t at, uint64_t size,
	       unsigned char out[32])
{
	EVP_MAC *m = lib->mac_fetch(NULL, "HMAC", NULL);
	EVP_MAC_CTX *c = m ? lib->mac_ctx_new(m) : NULL;
	char digest[] = "SHA256";
	OSSL_PARAM params[] = {lib->param_utf8_string("digest", digest, 0), lib->param_end()};
	int rc = -1;
	errno = EINVAL;
	if (!c || !lib->mac_init(c, (const unsigned char *)key, strlen(key), params))
		goto out;
	if (!team_id)
		team_id = "";
	if (!update_field(lib, c, DOMAIN, strlen(DOMAIN)) ||
	    !update_field(lib, c, hash, strlen(hash)) ||
	    !update_field(lib, c, team_id, strlen(team_id)) ||
	    !update_len(lib, c, head_len + size) ||
	    (head_len && !lib->mac_update(c, head, head_len)))
		goto out;
	unsigned char buf[65536];
	uint64_t left = size;
	while (left) {
		ssize_t n = pread(fd, buf, left < sizeof buf ? left : sizeof buf, at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			goto out;
		}
		if (!lib->mac_update(c, buf, (size_t)n))
			goto out;
		at += n;
		left -= (uint64_t)n;
	}
	size_t len = 0;
	if (lib->mac_final(c, out, &len, 32) && len == 32)
		rc = 0;
out:
	lib->mac_ctx_free(c);
	lib->mac_free(m);
	return rc;
}

int signature_tag(const char *key, const char *hash, const char *team_id, const void *head,
		  size_t head_len, int fd, off_t at, uint64_t size, char tag[SIGNATURE_TAG_SIZE])
{
	const struct crypto_lib *lib = crypto();
	unsigned char out[32];
	if (!lib || mac(lib, key, hash, team_id, head, head_len, fd, at, size, out))
		return -1;
	lib->encode_block((unsigned char *)tag, out, 32);
	return 0;
}

int signature_verify(const char *key, const char *hash, const char *team_id, int fd, off_t at,
		     uint64_t size, const char *tag)
{
	char want[SIGNATURE_TAG_SIZE];
	if (signature_tag(key, hash, team_id, NULL, 0, fd, at, size, want))
		return -1;
	if (strlen(tag) != SIGNATURE_TAG_SIZE - 1)
		return 0;
	/* loaded: the tag above was made with it */
	return crypto()->memcmp(want, tag, SIGNATURE_TAG_SIZE - 1) == 0;
}
