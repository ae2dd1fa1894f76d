/* view.c - pa_view_write(): the model built from the trace, then the page. */
#include "internal.h"

#include <errno.h>

int pa_view_write(struct pa_trace *t, const struct pa_view_opts *opts, FILE *out,
                  struct pa_err *err)
{
	struct vmodel m = {.t = t};
	const char *what = "unknown view options";
	int ret = pa_opts_check(opts, sizeof(*opts));
	if (ret)
		goto out;
	m.nr_buckets = PA_OPTS_GET(opts, struct pa_view_opts, nr_buckets, 0);
	if (!m.nr_buckets || m.nr_buckets > 100000)
		m.nr_buckets = 500;
	ret = vmodel_build(&m);
	if (ret) {
		what = ret == -EINVAL ? "a sample names a location the trace does not have"
		                      : "out of memory";
		goto out;
	}
	ret = vpage_write(&m, opts, out);
	what = ret == -ENOSYS ? "libcrypto (base64) cannot be opened" : "out of memory";
	if (!ret && (fflush(out) || ferror(out))) {
		what = "write error";
		ret = -EIO;
	}
out:
	if (ret)
		pa_err_set(err, ret, "view: %s", what);
	vmodel_release(&m);
	return ret;
}
