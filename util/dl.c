/* dl.c - shared libraries opened when first needed (dl.h). */
#include "dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

void *pa_dl_open(const char *soname, const char *const *names, void **slots, size_t n,
                 char *why, size_t why_size)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!h) {
		const char *e = dlerror();
		snprintf(why, why_size, "%s", e ? e : soname);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		void *sym = dlsym(h, names[i]);
		if (!sym) {
			snprintf(why, why_size, "%s: no %s", soname, names[i]);
			dlclose(h);
			return NULL;
		}
		slots[i] = sym;
	}
	return h;
}

/* The libraries' tables are the one state kept for the whole process here:
 * what the dynamic loader keeps for it anyway, written once (under the
 * lock, by the first caller) and only read after. A context of pa's own
 * would have to reach libarchive's and capstone's every call site. */
static pthread_mutex_t load_mu = PTHREAD_MUTEX_INITIALIZER;

bool pa_dl_lib_load(struct pa_dl_lib *l)
{
	if (!atomic_load_explicit(&l->done, memory_order_acquire)) {
		pthread_mutex_lock(&load_mu);
		if (!atomic_load_explicit(&l->done, memory_order_relaxed)) {
			if (l->soname)
				l->handle = pa_dl_open(l->soname, l->names, l->slots, l->n, l->why,
				                       sizeof(l->why));
			else
				snprintf(l->why, sizeof(l->why), "pa was built without it");
			atomic_store_explicit(&l->done, 1, memory_order_release);
		}
		pthread_mutex_unlock(&load_mu);
	}
	return l->handle != NULL;
}

const char *pa_dl_lib_why(struct pa_dl_lib *l)
{
	return pa_dl_lib_load(l) ? NULL : l->why;
}
