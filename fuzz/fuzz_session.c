/* fuzz_session.c - perf.data (either mode) through the session layer:
 * events -> machines, threads, maps, DSOs in perf's time order, as
 * `pa buildid-list --with-hits` and `pa report` drive it. Every sample's
 * ip and call chain is resolved against the maps of its time, and the
 * maps/DSO tables are walked afterwards.
 */
#include "fuzz_common.h"
#include "session/session.h"

#include <string.h>

static uint64_t touch_loc(const struct pa_addr_loc *loc)
{
	uint64_t h = loc->addr + (uint64_t)loc->level;
	if (loc->map) {
		if (loc->map->dso != loc->dso)
			fuzz_fail("loc dso differs from its map's");
		h += loc->map->start ^ loc->map->end ^ loc->map->pgoff;
	}
	if (loc->dso)
		h += fuzz_touch_str(loc->dso->long_name) + fuzz_touch_str(loc->dso->short_name);
	return h;
}

static int on_sample(void *ctx, struct pa_session *s, const struct pa_event *ev,
		     struct pa_thread *t, const struct pa_addr_loc *loc)
{
	uint64_t *h = ctx;
	*h += fuzz_touch_str(pa_thread_comm(t)) + (uint64_t)pa_thread_pid(t) +
	      (uint64_t)pa_thread_tid(t) + pa_thread_idx(t);
	*h += touch_loc(loc);
	if (loc->map && (ev->sample.ip < loc->map->start || ev->sample.ip >= loc->map->end))
		fuzz_fail("map [%#llx, %#llx) does not cover ip %#llx",
			  (unsigned long long)loc->map->start, (unsigned long long)loc->map->end,
			  (unsigned long long)ev->sample.ip);
	/* What a call graph does: walk the chain, switching address space at
	 * the context markers. */
	uint8_t cpumode = ev->misc & PA_MISC_CPUMODE_MASK;
	uint64_t nr = ev->sample.callchain ? ev->sample.callchain_nr : 0;
	for (uint64_t i = 0; i < nr && i < 512; i++) {
		uint64_t ip = ev->sample.callchain[i];
		if (ip >= PA_CONTEXT_MAX) {
			cpumode = ip == PA_CONTEXT_KERNEL ? PA_MISC_KERNEL
				  : ip == PA_CONTEXT_USER ? PA_MISC_USER
							  : PA_MISC_HYPERVISOR;
			continue;
		}
		struct pa_addr_loc cl;
		if (pa_session_find_map(s, t, cpumode, ip, &cl))
			*h += touch_loc(&cl);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_file ff;
	if (fuzz_file_open(&ff, data, size))
		return 0;
	struct pa_err err = {0};
	struct pa_file *f = pa_file_open(ff.path, NULL, &err);
	if (!f)
		goto out;
	/* Both orders, chosen by the input so a corpus covers each. */
	struct pa_session_opts so = {.sz = sizeof(so), .unordered = size % 7 == 3,
				     .no_callchains = size % 5 == 1};
	struct pa_session *s = pa_session_new(f, &so, &err);
	if (!s) {
		if (err.code >= 0 || !err.msg[0])
			fuzz_fail("pa_session_new failed without an error");
		pa_file_close(f);
		goto out;
	}
	uint64_t h = 0;
	int r = pa_session_process(s, on_sample, &h, &err);
	if (r < 0 && !err.msg[0])
		fuzz_fail("pa_session_process failed (%d) without a message", r);
	if (r > 0)
		fuzz_fail("pa_session_process returned %d; the callback never stops it", r);
	for (unsigned i = 0; i < pa_session_nr_machines(s); i++) {
		struct pa_machine *m = pa_session_machine(s, i);
		h += (uint64_t)pa_machine_pid(m);
		for (unsigned k = 0; k < pa_machine_nr_dsos(m); k++) {
			const struct pa_dso *d = pa_machine_dso(m, k);
			if (d->machine != m || pa_session_dso(s, d->idx) != d)
				fuzz_fail("DSO tables disagree");
			if (d->build_id_size > 20)
				fuzz_fail("build-id of %u bytes", d->build_id_size);
			h += fuzz_touch_str(d->long_name) + fuzz_touch_str(d->short_name) +
			     fuzz_touch(d->build_id, d->build_id_size) + d->hit;
		}
	}
	h += pa_session_nr_samples(s) + pa_session_nr_lost(s) + pa_session_nr_lost_samples(s) +
	     pa_session_nr_unordered(s) + pa_session_nr_dsos(s);
	fuzz_sink += h;
	pa_session_free(s);
	pa_file_close(f);
out:
	fuzz_file_close(&ff);
	return 0;
}
