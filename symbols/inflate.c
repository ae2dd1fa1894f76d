/* inflate.c - the compressed bytes some symbol tables come in: gzip'd and
 * xz'd kernel modules (.ko.gz, .ko.xz) and MiniDebugInfo's xz'd
 * .gnu_debugdata. What they inflate to is capped (PA_INFLATE_MAX), and so
 * is the memory liblzma may take for it (PA_XZ_MEMLIMIT): the stream's
 * headers choose the decoder's dictionary size, up to 4 GiB. */
#include "symbols/internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#ifdef PA_HAVE_LZMA
#include <lzma.h>
#endif

/* The output buffer grown, doubling from hint (at least 1 MiB). */
static int grow_out(uint8_t **out, size_t *cap, size_t hint, const char *what, struct pa_err *err)
{
	if (*cap >= PA_INFLATE_MAX)
		return pa_err_set(err, PA_ERR_LIMIT, "%s: inflates to more than %u MiB", what,
		                  PA_INFLATE_MAX >> 20);
	size_t ncap = *cap ? *cap * 2 : hint > (1u << 20) ? hint : 1u << 20;
	if (ncap > PA_INFLATE_MAX)
		ncap = PA_INFLATE_MAX;
	uint8_t *p = realloc(*out, ncap);
	if (!p)
		return pa_err_set(err, -ENOMEM, "out of memory");
	*out = p;
	*cap = ncap;
	return 0;
}

/* zlib counts in uInt */
static uInt clamp_uint(size_t v)
{
	return v < (size_t)UINT_MAX ? (uInt)v : UINT_MAX;
}

int pa_inflate_gzip(const uint8_t *in, size_t inlen, const char *what, uint8_t **out,
                    size_t *outlen, struct pa_err *err)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return pa_err_set(err, PA_ERR_DECOMPRESS, "%s: zlib init failed", what);
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;
	int r = 0;
	z.next_in = (Bytef *)(uintptr_t)in;
	z.avail_in = clamp_uint(inlen);
	for (;;) {
		if (n == cap && (r = grow_out(&buf, &cap, inlen * 4, what, err)))
			break;
		uInt room = clamp_uint(cap - n);
		z.next_out = buf + n;
		z.avail_out = room;
		int zr = inflate(&z, Z_NO_FLUSH);
		n += room - z.avail_out;
		if (zr == Z_STREAM_END)
			break;
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			r = pa_err_set(err, PA_ERR_DECOMPRESS, "%s: bad gzip data", what);
			break;
		}
		if (zr == Z_BUF_ERROR && z.avail_out) {
			r = pa_err_set(err, PA_ERR_DECOMPRESS, "%s: truncated gzip data", what);
			break;
		}
	}
	inflateEnd(&z);
	if (r) {
		free(buf);
		return r;
	}
	*out = buf;
	*outlen = n;
	return 0;
}

#ifdef PA_HAVE_LZMA
int pa_inflate_xz(const uint8_t *in, size_t inlen, const char *what, uint8_t **out, size_t *outlen,
                  struct pa_err *err)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	if (lzma_stream_decoder(&strm, PA_XZ_MEMLIMIT, LZMA_CONCATENATED) != LZMA_OK)
		return pa_err_set(err, PA_ERR_DECOMPRESS, "%s: lzma init failed", what);
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;
	int r = 0;
	strm.next_in = in;
	strm.avail_in = inlen;
	for (;;) {
		if (n == cap && (r = grow_out(&buf, &cap, inlen * 4, what, err)))
			break;
		strm.next_out = buf + n;
		strm.avail_out = cap - n;
		lzma_ret lr = lzma_code(&strm, LZMA_FINISH);
		n = cap - strm.avail_out;
		if (lr == LZMA_STREAM_END)
			break;
		if (lr == LZMA_MEMLIMIT_ERROR) {
			r = pa_err_set(err, PA_ERR_LIMIT,
			               "%s: needs more than %u MiB to decompress", what,
			               PA_XZ_MEMLIMIT >> 20);
			break;
		}
		if (lr != LZMA_OK) {
			r = pa_err_set(err, PA_ERR_DECOMPRESS, "%s: xz error %d", what, (int)lr);
			break;
		}
	}
	lzma_end(&strm);
	if (r) {
		free(buf);
		return r;
	}
	*out = buf;
	*outlen = n;
	return 0;
}
#endif
