/* signature.c - HMAC-SHA256 artifact tags over OpenSSL's EVP_MAC
 * (signature.h says the layout and where it comes from). */
#include "cache/signature.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <string.h>
#include <unistd.h>

#define DOMAIN "artifact-signature:v2"

static int update_len(EVP_MAC_CTX *c, uint64_t n)
{
	unsigned char le[8];
	for (int k = 0; k < 8; k++)
		le[k] = (unsigned char)(n >> (8 * k));
	return EVP_MAC_update(c, le, sizeof le);
}

static int update_field(EVP_MAC_CTX *c, const void *p, size_t n)
{
	return update_len(c, n) && (!n || EVP_MAC_update(c, p, n));
}

/* The 32-byte MAC of the body; 0, or -1 with errno. */
static int mac(const char *key, const char *hash, const char *team_id, const void *head,
	       size_t head_len, int fd, off_t at, uint64_t size, unsigned char out[32])
{
	EVP_MAC *m = EVP_MAC_fetch(NULL, "HMAC", NULL);
	EVP_MAC_CTX *c = m ? EVP_MAC_CTX_new(m) : NULL;
	char digest[] = "SHA256";
	OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", digest, 0),
			       OSSL_PARAM_construct_end()};
	int rc = -1;
	errno = EINVAL;
	if (!c || !EVP_MAC_init(c, (const unsigned char *)key, strlen(key), params))
		goto out;
	if (!team_id)
		team_id = "";
	if (!update_field(c, DOMAIN, strlen(DOMAIN)) || !update_field(c, hash, strlen(hash)) ||
	    !update_field(c, team_id, strlen(team_id)) || !update_len(c, head_len + size) ||
	    (head_len && !EVP_MAC_update(c, head, head_len)))
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
		if (!EVP_MAC_update(c, buf, (size_t)n))
			goto out;
		at += n;
		left -= (uint64_t)n;
	}
	size_t len = 0;
	if (EVP_MAC_final(c, out, &len, 32) && len == 32)
		rc = 0;
out:
	EVP_MAC_CTX_free(c);
	EVP_MAC_free(m);
	return rc;
}

int signature_tag(const char *key, const char *hash, const char *team_id, const void *head,
		  size_t head_len, int fd, off_t at, uint64_t size, char tag[SIGNATURE_TAG_SIZE])
{
	unsigned char out[32];
	if (mac(key, hash, team_id, head, head_len, fd, at, size, out))
		return -1;
	EVP_EncodeBlock((unsigned char *)tag, out, 32);
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
	return CRYPTO_memcmp(want, tag, SIGNATURE_TAG_SIZE - 1) == 0;
}
