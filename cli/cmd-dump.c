/* cmd-dump.c - `pa dump`: one line per record, like a terse perf report -D. */
#include "cli.h"

#include <inttypes.h>
#include <string.h>

static void dump_sample(FILE *out, const struct pa_event *ev)
{
	const struct pa_sample *s = &ev->sample;
	fprintf(out, " %u/%u: %#" PRIx64 " period: %" PRIu64 " cpu: %u time: %" PRIu64, s->pid,
		s->tid, s->ip, s->period, s->cpu, s->time);
	if (ev->evsel && ev->evsel->name)
		fprintf(out, " event: %s", ev->evsel->name);
	if (s->type & PA_SAMPLE_CALLCHAIN)
		fprintf(out, " callchain: %" PRIu64, s->callchain_nr);
	if (s->type & PA_SAMPLE_STACK_USER)
		fprintf(out, " stack: %" PRIu64, s->user_stack.size);
}

static void dump_fields(FILE *out, const struct pa_event *ev)
{
	switch (ev->type) {
	case PA_REC_SAMPLE:
		dump_sample(out, ev);
		break;
	case PA_REC_MMAP:
	case PA_REC_MMAP2:
		fprintf(out, " %u/%u: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64 "]", ev->u.mmap.pid,
			ev->u.mmap.tid, ev->u.mmap.start, ev->u.mmap.len, ev->u.mmap.pgoff);
		if (ev->u.mmap.build_id_size) {
			char hex[41];
			pa_hex(hex, ev->u.mmap.build_id, ev->u.mmap.build_id_size);
			fprintf(out, " buildid %s", hex);
		}
		fprintf(out, ": %s", ev->u.mmap.filename);
		break;
	case PA_REC_COMM:
		fprintf(out, " %s:%u/%u%s", ev->u.comm.comm, ev->u.comm.pid, ev->u.comm.tid,
			ev->misc & PA_MISC_COMM_EXEC ? " exec" : "");
		break;
	case PA_REC_FORK:
	case PA_REC_EXIT:
		fprintf(out, " (%u:%u):(%u:%u)", ev->u.fork.pid, ev->u.fork.tid, ev->u.fork.ppid,
			ev->u.fork.ptid);
		break;
	case PA_REC_LOST:
		fprintf(out, " id %" PRIu64 " lost %" PRIu64, ev->u.lost.id, ev->u.lost.lost);
		break;
	case PA_REC_LOST_SAMPLES:
		fprintf(out, " lost %" PRIu64, ev->u.lost_samples.lost);
		break;
	case PA_REC_KSYMBOL:
		fprintf(out, " addr %#" PRIx64 " len %u type %u flags %#x name %s",
			ev->u.ksymbol.addr, ev->u.ksymbol.len, ev->u.ksymbol.ksym_type,
			ev->u.ksymbol.flags, ev->u.ksymbol.name);
		break;
	case PA_REC_HEADER_BUILD_ID: {
		char hex[41];
		pa_hex(hex, ev->u.build_id.id, ev->u.build_id.size);
		fprintf(out, " pid %d %s %s", ev->u.build_id.pid, hex, ev->u.build_id.filename);
		break;
	}
	case PA_REC_HEADER_ATTR:
		fprintf(out, " type %u config %#" PRIx64 " sample_type %#" PRIx64 " ids %u",
			ev->u.header_attr.evsel->attr.type, ev->u.header_attr.evsel->attr.config,
			ev->u.header_attr.evsel->attr.sample_type,
			ev->u.header_attr.evsel->nr_ids);
		break;
	case PA_REC_HEADER_FEATURE: {
		const char *n = pa_feat_name((unsigned)ev->u.feature.feat);
		fprintf(out, " %s", n ? n : "unknown");
		break;
	}
	case PA_REC_AUXTRACE:
		fprintf(out, " size %#" PRIx64 " offset %#" PRIx64 " cpu %u", ev->u.auxtrace.size,
			ev->u.auxtrace.offset, ev->u.auxtrace.cpu);
		break;
	default:
		break;
	}
}

int cmd_dump(int argc, const char **argv)
{
	const char *input = NULL;
	bool stats = false;
	const struct pa_option opts[] = {
		OPT_STRING('i', "input", &input, "file", "input file name (default perf.data, - for stdin)"),
		OPT_BOOL(0, "stats", &stats, "only print the number of records of each type"),
		OPT_END(),
	};
	int n = pa_parse_options(argc, argv, opts, "pa dump [-i FILE] [--stats]");
	if (n < 0)
		return n;
	int status = 0;
	struct pa_file *f = pa_cli_open(input, &status);
	if (!f)
		return status;
	struct pa_event ev;
	struct pa_err err = {0};
	int r;
	while ((r = pa_file_next(f, &ev, &err)) > 0) {
		if (stats)
			continue;
		const char *name = pa_rec_type_name(ev.type);
		if (ev.compressed)
			printf("%#" PRIx64 "+0x%" PRIx64, ev.offset, ev.dec_offset);
		else
			printf("%#" PRIx64, ev.offset);
		printf(" [%#x]: PERF_RECORD_%s", ev.size, name ? name : "UNKNOWN");
		if (!name)
			printf("(%u)", ev.type);
		dump_fields(stdout, &ev);
		putchar('\n');
	}
	if (r < 0)
		status = pa_cli_error(input ? input : "perf.data", &err);
	if (!status) {
		printf("%s#\n# records by type:\n", stats ? "" : "\n");
		for (uint32_t t = 0; t < PA_REC_USER_MAX; t++)
			if (pa_file_count(f, t))
				printf("# %20s: %" PRIu64 "\n", pa_rec_type_name(t), pa_file_count(f, t));
		if (pa_file_unknown_count(f))
			printf("# %20s: %" PRIu64 "\n", "unknown (skipped)", pa_file_unknown_count(f));
		if (pa_file_was_truncated(f))
			fprintf(stderr, "pa: '%s': warning: data cut short, read up to the last "
					"complete record\n",
				input ? input : "perf.data");
	}
	pa_file_close(f);
	return status;
}
