/* pprof_write.c - the profile's tables (export/pprof.h) as profile.proto,
 * encoded by protobuf-c a message at a time and gzip-compressed as they
 * come: the head (sample types, strings...), the tables, the samples. */
#ifdef PA_HAVE_PROTOBUF_C

#include "export/pprof.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- output ------------------------------------------------------------------------------- */

static int zout_drain(struct zout *o, int flush)
{
	int rc;
	do {
		o->z.next_out = o->buf;
		o->z.avail_out = sizeof(o->buf);
		rc = deflate(&o->z, flush);
		if (rc == Z_STREAM_ERROR)
			return -EIO; /* (a zlib bug: it has no other cause) */
		size_t have = sizeof(o->buf) - o->z.avail_out;
		if (have && fwrite(o->buf, 1, have, o->out) != have)
			return -EIO;
	} while (o->z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
	return 0;
}

static void zout_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct zout *o = (struct zout *)b;
	while (len && !o->err) {
		uInt chunk = len > (1u << 30) ? (1u << 30) : (uInt)len;
		o->z.next_in = data;
		o->z.avail_in = chunk;
		o->err = zout_drain(o, Z_NO_FLUSH);
		data += chunk;
		len -= chunk;
	}
}

static void emit(struct zout *o, const PbProfile *chunk)
{
	if (!o->err)
		perftools__profiles__profile__pack_to_buffer(chunk, &o->base);
}

static int64_t clamp64(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* The profile's wall-clock start (see the file's comment). */
static int64_t start_time(struct pp *p)
{
	struct stat st;
	const struct pa_header_info *h = pa_file_header(p->f);
	if (!p->has_time || pa_file_mode(p->f) != PA_FILE_MODE_FILE ||
	    stat(pa_file_path(p->f), &st))
		return 0;
	uint64_t end = p->t_last;
	if (pa_header_has_feat(h, PA_FEAT_SAMPLE_TIME) && h->last_sample_time > end)
		end = h->last_sample_time;
	int64_t mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	int64_t back = clamp64(end - p->t_first);
	return mtime > back ? mtime - back : 0;
}

/* Every string the output names, interned before the string table is
 * written (the walk and finish_locations added the others). */
static int intern_output_strings(struct pp *p)
{
	int ret;
	if ((ret = pa_pprof_str_idx(p, "comm", &p->k_comm)) ||
	    (ret = pa_pprof_str_idx(p, "pid", &p->k_pid)) ||
	    (ret = pa_pprof_str_idx(p, "tid", &p->k_tid)) ||
	    (ret = pa_pprof_str_idx(p, "count", &p->k_count)) ||
	    (p->cpu_label && (ret = pa_pprof_str_idx(p, "cpu", &p->k_cpu))))
		return ret;
	for (size_t i = 0; i < p->nr_maps; i++) {
		struct pmap *m = &p->maps[i];
		char hex[2 * sizeof(m->dso->build_id) + 1];
		size_t n = m->dso->build_id_size;
		pa_hex(hex, m->dso->build_id,
		       n < sizeof(m->dso->build_id) ? n : sizeof(m->dso->build_id));
		m->build_id = 0;
		if ((ret = pa_pprof_str_idx(p, m->dso->long_name, &m->file)) ||
		    (n && (ret = pa_pprof_str_idx(p, hex, &m->build_id))))
			return ret;
	}
	return 0;
}

/* The string table, sample types, mappings and the profile's scalars:
 * one message. */
static int write_head(struct pp *p, struct zout *o)
{
	PbProfile pr = PERFTOOLS__PROFILES__PROFILE__INIT;
	PbValueType ptype = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	unsigned ntypes = 0, first = UINT32_MAX;
	int ret = -ENOMEM;
	for (unsigned e = 0; e < p->nr_evs; e++)
		if (p->evs[e].used) {
			ntypes += 2;
			first = first == UINT32_MAX ? e : first;
		}
	PbValueType *vt = calloc(ntypes + 1, sizeof(*vt));
	PbValueType **vtp = calloc(ntypes + 1, sizeof(*vtp));
	PbMapping *mp = calloc(p->nr_maps + 1, sizeof(*mp));
	PbMapping **mpp = calloc(p->nr_maps + 1, sizeof(*mpp));
	if (!vt || !vtp || !mp || !mpp)
		goto out;
	for (unsigned e = 0, k = 0; e < p->nr_evs; e++) {
		const struct pev *ev = &p->evs[e];
		if (!ev->used)
			continue;
		vt[k] = (PbValueType)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
		vt[k].type = ev->type_samples;
		vt[k].unit = p->k_count;
		vt[k + 1] = (PbValueType)PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
		vt[k + 1].type = ev->type_period;
		vt[k + 1].unit = ev->unit_period;
		vtp[k] = &vt[k];
		vtp[k + 1] = &vt[k + 1];
		k += 2;
	}
	for (size_t i = 0; i < p->nr_maps; i++) {
		const struct pmap *m = &p->maps[i];
		PbMapping *x = &mp[m->id - 1];
		uint64_t lo = m->lo == UINT64_MAX ? 0 : m->lo & ~(uint64_t)4095;
		uint64_t hi = m->lo == UINT64_MAX ? 0 : PA_ALIGN_UP(m->hi + 1, 4096);
		*x = (PbMapping)PERFTOOLS__PROFILES__MAPPING__INIT;
		x->id = m->id;
		x->memory_start = lo + m->bias;
		x->memory_limit = hi + m->bias;
		x->file_offset = lo;
		x->filename = m->file;
		x->build_id = m->build_id;
		x->has_functions = m->has_fn;
		x->has_filenames = m->has_file;
		x->has_line_numbers = m->has_line;
		x->has_inline_frames = m->has_inl;
		mpp[m->id - 1] = x;
	}
	pr.n_string_table = p->nr_strs;
	pr.string_table = p->strs;
	pr.n_sample_type = ntypes;
	pr.sample_type = vtp;
	pr.n_mapping = p->nr_maps;
	pr.mapping = mpp;
	pr.time_nanos = start_time(p);
	pr.duration_nanos = p->has_time ? clamp64(p->t_last - p->t_first) : 0;
	if (first != UINT32_MAX) {
		ptype.type = p->evs[first].type_period;
		ptype.unit = p->evs[first].unit_period;
		pr.period_type = &ptype;
		pr.period = pa_pprof_event_period(p, first);
		pr.default_sample_type = p->evs[first].type_period;
	}
	emit(o, &pr);
	ret = o->err;
out:
	free(vt);
	free(vtp);
	free(mp);
	free(mpp);
	return ret;
}

/* Functions and locations, a message each: concatenated messages merge,
 * their repeated fields append. */
static int write_tables(struct pp *p, struct zout *o)
{
	size_t max_lines = 0;
	for (size_t i = 0; i < p->nr_plocs; i++)
		if (p->plocs[i].nr_lines > max_lines)
			max_lines = p->plocs[i].nr_lines;
	PbLine *ln = calloc(max_lines + 1, sizeof(*ln));
	PbLine **lnp = calloc(max_lines + 1, sizeof(*lnp));
	int ret = -ENOMEM;
	if (!ln || !lnp)
		goto out;
	for (size_t i = 0; i < p->nr_funcs && !o->err; i++) {
		PbFunction fn = PERFTOOLS__PROFILES__FUNCTION__INIT, *fnp = &fn;
		PbProfile pr = PERFTOOLS__PROFILES__PROFILE__INIT;
		fn.id = i + 1;
		fn.name = p->funcs[i].name;
		fn.system_name = p->funcs[i].system_name;
		fn.start_line = p->funcs[i].start_line;
		fn.filename = p->funcs[i].file;
		pr.n_function = 1;
		pr.function = &fnp;
		emit(o, &pr);
	}
	for (size_t i = 0; i < p->nr_plocs && !o->err; i++) {
		const struct ploc *q = &p->plocs[i];
		PbLocation loc = PERFTOOLS__PROFILES__LOCATION__INIT, *locp = &loc;
		PbProfile pr = PERFTOOLS__PROFILES__PROFILE__INIT;
		for (uint32_t k = 0; k < q->nr_lines; k++) {
			const struct pline *l = &p->lines[q->first_line + k];
			ln[k] = (PbLine)PERFTOOLS__PROFILES__LINE__INIT;
			ln[k].function_id = l->fn + 1;
			ln[k].line = l->line;
			lnp[k] = &ln[k];
		}
		loc.id = i + 1;
		loc.mapping_id = q->map ? p->maps[q->map - 1].id : 0;
		loc.address = q->addr + (q->map ? p->maps[q->map - 1].bias : 0);
		loc.n_line = q->nr_lines;
		loc.line = lnp;
		pr.n_location = 1;
		pr.location = &locp;
		emit(o, &pr);
	}
	ret = o->err;
out:
	free(ln);
	free(lnp);
	return ret;
}

/* A string label (str != 0), else a number with the unit "count": pprof's
 * reader drops a number label of 0 (pid 0, cpu 0) that has no unit, and
 * prints "count" as no unit at all. */
static void set_label(struct pp *p, PbLabel *lb, uint32_t key, uint32_t str, int64_t num)
{
	*lb = (PbLabel)PERFTOOLS__PROFILES__LABEL__INIT;
	lb->key = key;
	lb->str = str;
	lb->num = num;
	lb->num_unit = str ? 0 : p->k_count;
}

static int write_samples(struct pp *p, struct zout *o)
{
	unsigned nval = 0;
	size_t max_len = 0;
	for (unsigned e = 0; e < p->nr_evs; e++)
		nval += p->evs[e].used ? 2 : 0;
	for (size_t i = 0; i < p->nr_aggs; i++)
		max_len = p->aggs[i].len > max_len ? p->aggs[i].len : max_len;
	uint64_t *ids = calloc(max_len + 1, sizeof(*ids));
	int64_t *vals = calloc(nval + 1, sizeof(*vals));
	int ret = -ENOMEM;
	if (!ids || !vals)
		goto out;
	for (size_t i = 0; i < p->nr_aggs && !o->err; i++) {
		const struct pagg *a = &p->aggs[i];
		PbSample sm = PERFTOOLS__PROFILES__SAMPLE__INIT, *smp = &sm;
		PbProfile pr = PERFTOOLS__PROFILES__PROFILE__INIT;
		PbLabel lb[4], *lbp[4];
		size_t nl = 0;
		for (uint32_t k = 0; k < a->len; k++)
			ids[k] = (uint64_t)p->pool[a->off + k] + 1;
		memset(vals, 0, nval * sizeof(*vals));
		if (a->evsel < p->nr_evs && p->evs[a->evsel].used) {
			vals[p->evs[a->evsel].slot] = clamp64(a->samples);
			vals[p->evs[a->evsel].slot + 1] = clamp64(a->period);
		}
		set_label(p, &lb[nl++], p->k_comm, a->comm, 0);
		set_label(p, &lb[nl++], p->k_pid, 0, a->pid);
		set_label(p, &lb[nl++], p->k_tid, 0, a->tid);
		if (p->cpu_label && a->cpu != UINT32_MAX)
			set_label(p, &lb[nl++], p->k_cpu, 0, a->cpu);
		for (size_t k = 0; k < nl; k++)
			lbp[k] = &lb[k];
		sm.n_location_id = a->len;
		sm.location_id = ids;
		sm.n_value = nval;
		sm.value = vals;
		sm.n_label = nl;
		sm.label = lbp;
		pr.n_sample = 1;
		pr.sample = &smp;
		emit(o, &pr);
	}
	ret = o->err;
out:
	free(ids);
	free(vals);
	return ret;
}

int pa_pprof_write(struct pp *p, FILE *out)
{
	struct zout *o = NULL;
	int ret = intern_output_strings(p);
	if (ret)
		goto out;
	ret = -ENOMEM;
	if (!(o = calloc(1, sizeof(*o))))
		goto out;
	o->base.append = zout_append;
	o->out = out;
	if (deflateInit2(&o->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16 /* gzip */, 8,
	                 Z_DEFAULT_STRATEGY) != Z_OK)
		goto out;
	o->z_ready = true;
	if ((ret = write_head(p, o)) || (ret = write_tables(p, o)) || (ret = write_samples(p, o)) ||
	    (ret = zout_drain(o, Z_FINISH)))
		goto out;
	if (fflush(out) || ferror(out))
		ret = -EIO;
out:
	if (o && o->z_ready)
		deflateEnd(&o->z);
	free(o);
	return ret;
}

#endif
