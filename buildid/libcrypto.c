/* libcrypto.c - libcrypto, opened when SHA-1 (a file without a build-id
 * note) or base64 (pa view's page) is first asked for (util/dl.h: linked,
 * it slowed every pa start). The functions pa calls, by their own names. */
#include "util/dl.h"

#include <openssl/evp.h>
#include <string.h>

#ifndef PA_SONAME_CRYPTO
#define PA_SONAME_CRYPTO NULL
#endif

/* (a failed open: no context, no digest, -1 bytes of base64) */
#define C EVP_MD_CTX *ctx
#define FUNCS(X, V)                                                                                \
	X(const EVP_MD *, EVP_sha1, (void), (), NULL)                                              \
	X(EVP_MD_CTX *, EVP_MD_CTX_new, (void), (), NULL)                                          \
	V(EVP_MD_CTX_free, (C), (ctx))                                                             \
	X(int, EVP_DigestInit_ex, (C, const EVP_MD *t, ENGINE *e), (ctx, t, e), 0)                 \
	X(int, EVP_DigestUpdate, (C, const void *d, size_t n), (ctx, d, n), 0)                     \
	X(int, EVP_DigestFinal_ex, (C, unsigned char *md, unsigned int *s), (ctx, md, s), 0)       \
	X(int, EVP_Digest,                                                                         \
	  (const void *d, size_t n, unsigned char *md, unsigned int *s, const EVP_MD *t, ENGINE *e), \
	  (d, n, md, s, t, e), 0)                                                                  \
	X(int, EVP_EncodeBlock, (unsigned char *t, const unsigned char *f, int n), (t, f, n), -1)

#define PA_DL_THIS libcrypto
PA_DL_DEFINE(PA_SONAME_CRYPTO, FUNCS)
