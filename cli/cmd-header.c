/* cmd-header.c - `pa header`: the header block perf report --header-only
 * prints, field for field. */
#include "cli.h"

#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

struct bit_name {
	uint64_t bit;
	const char *name;
};

/* perf's order, which is not the bit order. */
static const struct bit_name sample_bits[] = {
	{PA_SAMPLE_IP, "IP"},
	{PA_SAMPLE_TID, "TID"},
	{PA_SAMPLE_TIME, "TIME"},
	{PA_SAMPLE_ADDR, "ADDR"},
	{PA_SAMPLE_READ, "READ"},
	{PA_SAMPLE_CALLCHAIN, "CALLCHAIN"},
	{PA_SAMPLE_ID, "ID"},
	{PA_SAMPLE_CPU, "CPU"},
	{PA_SAMPLE_PERIOD, "PERIOD"},
	{PA_SAMPLE_STREAM_ID, "STREAM_ID"},
	{PA_SAMPLE_RAW, "RAW"},
	{PA_SAMPLE_BRANCH_STACK, "BRANCH_STACK"},
	{PA_SAMPLE_REGS_USER, "REGS_USER"},
	{PA_SAMPLE_STACK_USER, "STACK_USER"},
	{PA_SAMPLE_IDENTIFIER, "IDENTIFIER"},
	{PA_SAMPLE_REGS_INTR, "REGS_INTR"},
	{PA_SAMPLE_DATA_SRC, "DATA_SRC"},
	{PA_SAMPLE_WEIGHT, "WEIGHT"},
	{PA_SAMPLE_PHYS_ADDR, "PHYS_ADDR"},
	{PA_SAMPLE_AUX, "AUX"},
	{PA_SAMPLE_CGROUP, "CGROUP"},
	{PA_SAMPLE_DATA_PAGE_SIZE, "DATA_PAGE_SIZE"},
	{PA_SAMPLE_CODE_PAGE_SIZE, "CODE_PAGE_SIZE"},
	{PA_SAMPLE_WEIGHT_STRUCT, "WEIGHT_STRUCT"},
	{0, NULL},
};

static const struct bit_name read_bits[] = {
	{PA_FORMAT_TOTAL_TIME_ENABLED, "TOTAL_TIME_ENABLED"},
	{PA_FORMAT_TOTAL_TIME_RUNNING, "TOTAL_TIME_RUNNING"},
	{PA_FORMAT_ID, "ID"},
	{PA_FORMAT_GROUP, "GROUP"},
	{PA_FORMAT_LOST, "LOST"},
	{0, NULL},
};

static const struct bit_name branch_bits[] = {
	{1 << 0, "USER"},       {1 << 1, "KERNEL"},      {1 << 2, "HV"},
	{1 << 3, "ANY"},        {1 << 4, "ANY_CALL"},    {1 << 5, "ANY_RETURN"},
	{1 << 6, "IND_CALL"},   {1 << 7, "ABORT_TX"},    {1 << 8, "IN_TX"},
	{1 << 9, "NO_TX"},      {1 << 10, "COND"},       {1 << 11, "CALL_STACK"},
	{1 << 12, "IND_JUMP"},  {1 << 13, "CALL"},       {1 << 14, "NO_FLAGS"},
	{1 << 15, "NO_CYCLES"}, {1 << 16, "TYPE_SAVE"},  {1 << 17, "HW_INDEX"},
	{1 << 18, "PRIV_SAVE"}, {0, NULL},
};

static void print_bits(FILE *out, const char *name, uint64_t v, const struct bit_name *b)
{
	if (!v)
		return;
	fprintf(out, ", %s = ", name);
	const char *sep = "";
	for (; b->name; b++)
		if (v & b->bit) {
			fprintf(out, "%s%s", sep, b->name);
			sep = "|";
		}
}

static void print_u(FILE *out, const char *name, uint64_t v)
{
	if (v)
		fprintf(out, ", %s = %" PRIu64, name, v);
}

static void print_x(FILE *out, const char *name, uint64_t v)
{
	if (v)
		fprintf(out, ", %s = %#" PRIx64, name, v);
}

static const char *const flag_names[PA_ATTR_FLAG_COUNT] = {
	"disabled", "inherit", "pinned", "exclusive", "exclude_user", "exclude_kernel",
	"exclude_hv", "exclude_idle", "mmap", "comm", "freq", "inherit_stat", "enable_on_exec",
	"task", "watermark", "precise_ip", NULL, "mmap_data", "sample_id_all", "exclude_host",
	"exclude_guest", "exclude_callchain_kernel", "exclude_callchain_user", "mmap2",
	"comm_exec", "use_clockid", "context_switch", "write_backward", "namespaces", "ksymbol",
	"bpf_event", "aux_output", "cgroup", "text_poke", "build_id", "inherit_thread",
	"remove_on_exec", "sigtrap",
};

/* perf_event_attr__fprintf: only non-zero fields, in perf's order. */
static void print_attr(FILE *out, const struct pa_attr *a)
{
	print_u(out, "type", a->type);
	print_u(out, "size", a->size);
	print_x(out, "config", a->config);
	print_u(out, "{ sample_period, sample_freq }", a->sample_period);
	print_bits(out, "sample_type", a->sample_type, sample_bits);
	print_bits(out, "read_format", a->read_format, read_bits);
	for (unsigned i = 0; i < PA_ATTR_FLAG_COUNT; i++) {
		if (!flag_names[i])
			continue;
		if (i == PA_ATTR_PRECISE_IP)
			print_u(out, "precise_ip", a->precise_ip);
		else
			print_u(out, flag_names[i], pa_attr_flag(a, i));
	}
	print_u(out, "{ wakeup_events, wakeup_watermark }", a->wakeup_events);
	print_u(out, "bp_type", a->bp_type);
	print_x(out, "{ bp_addr, config1 }", a->config1);
	print_x(out, "{ bp_len, config2 }", a->config2);
	print_bits(out, "branch_sample_type", a->branch_sample_type, branch_bits);
	print_x(out, "sample_regs_user", a->sample_regs_user);
	print_u(out, "sample_stack_user", a->sample_stack_user);
	if (a->clockid)
		fprintf(out, ", clockid = %" PRId32, a->clockid);
	print_x(out, "sample_regs_intr", a->sample_regs_intr);
	print_u(out, "aux_watermark", a->aux_watermark);
	print_u(out, "sample_max_stack", a->sample_max_stack);
	print_u(out, "aux_sample_size", a->aux_sample_size);
	print_u(out, "sig_data", a->sig_data);
}

static void print_events(FILE *out, const struct pa_header_info *h)
{
	for (uint32_t i = 0; i < h->nr_event_desc; i++) {
		const struct pa_event_desc *d = &h->event_desc[i];
		fprintf(out, "# event : name = %s, ", d->name);
		if (d->nr_ids) {
			fprintf(out, ", id = {");
			for (uint32_t k = 0; k < d->nr_ids; k++)
				fprintf(out, "%s %" PRIu64, k ? "," : "", d->ids[k]);
			fprintf(out, " }");
		}
		print_attr(out, &d->attr);
		fputc('\n', out);
	}
}

static void print_time(FILE *out, const char *what, uint64_t ns)
{
	fprintf(out, "# %s : %" PRIu64 ".%06" PRIu64 "\n", what, ns / 1000000000u,
		(ns % 1000000000u) / 1000u);
}

/* perf names a group's members by its evsels' names: those EVENT_DESC
 * gives, else (a damaged EVENT_DESC) the names their attrs make. */
static const char *member_name(struct pa_file *f, const struct pa_header_info *h, uint32_t idx,
			       char *buf, size_t size)
{
	if (h->event_desc)
		return h->event_desc[idx].name;
	return pa_evsel_name(pa_file_evsel(f, idx), buf, size);
}

static void print_groups(FILE *out, struct pa_file *f, const struct pa_header_info *h)
{
	/* GROUP_DESC names leaders by evsel index; members follow them. */
	uint32_t nr = h->event_desc ? h->nr_event_desc : pa_file_nr_evsels(f);
	char buf[256];
	for (uint32_t g = 0; g < h->nr_groups; g++) {
		const struct pa_group_desc *d = &h->groups[g];
		if (d->nr_members <= 1)
			continue;
		/* in 64 bits: both come from the file, their u32 sum may wrap */
		if ((uint64_t)d->leader_idx + d->nr_members > nr)
			continue;
		/* perf writes "{anon_group}" for groups without a name */
		const char *gname = d->name && strcmp(d->name, "{anon_group}") ? d->name : "";
		fprintf(out, "# group: %s{%s", gname, member_name(f, h, d->leader_idx, buf, sizeof(buf)));
		for (uint32_t m = 1; m < d->nr_members; m++)
			fprintf(out, ",%s", member_name(f, h, d->leader_idx + m, buf, sizeof(buf)));
		fprintf(out, "}\n");
	}
}

/* A string feature perf could not read prints as glibc prints NULL. */
static const char *str_or_null(const char *s)
{
	return s ? s : "(null)";
}

/* One feature's lines, as perf's print functions write them: from what was
 * read, so a damaged feature (its fields emptied) prints as perf prints one
 * whose section it failed to read. */
static void print_feature(FILE *out, struct pa_file *f, unsigned feat)
{
	const struct pa_header_info *h = pa_file_header(f);
	switch (feat) {
	case PA_FEAT_HOSTNAME:
		fprintf(out, "# hostname : %s\n", str_or_null(h->hostname));
		break;
	case PA_FEAT_OSRELEASE:
		fprintf(out, "# os release : %s\n", str_or_null(h->osrelease));
		break;
	case PA_FEAT_VERSION:
		fprintf(out, "# perf version : %s\n", str_or_null(h->version));
		break;
	case PA_FEAT_ARCH:
		fprintf(out, "# arch : %s\n", str_or_null(h->arch));
		break;
	case PA_FEAT_NRCPUS:
		fprintf(out, "# nrcpus online : %u\n# nrcpus avail : %u\n", h->nr_cpus_online,
			h->nr_cpus_avail);
		break;
	case PA_FEAT_CPUDESC:
		fprintf(out, "# cpudesc : %s\n", str_or_null(h->cpudesc));
		break;
	case PA_FEAT_CPUID:
		fprintf(out, "# cpuid : %s\n", str_or_null(h->cpuid));
		break;
	case PA_FEAT_TOTAL_MEM:
		fprintf(out, "# total memory : %" PRIu64 " kB\n", h->total_mem);
		break;
	case PA_FEAT_CMDLINE:
		fprintf(out, "# cmdline : ");
		for (uint32_t i = 0; i < h->nr_cmdline; i++)
			fprintf(out, "%s ", h->cmdline[i]);
		fputc('\n', out);
		break;
	case PA_FEAT_EVENT_DESC:
		if (pa_header_feat_damaged(h, feat))
			fprintf(out, "# event desc: not available or unable to read\n");
		else
			print_events(out, h);
		break;
	case PA_FEAT_CPU_TOPOLOGY:
	case PA_FEAT_NUMA_TOPOLOGY:
	case PA_FEAT_CACHE:
	case PA_FEAT_MEM_TOPOLOGY:
		fprintf(out, "# %s info available, use -I to display\n", pa_feat_name(feat));
		break;
	case PA_FEAT_BRANCH_STACK:
		fprintf(out, "# contains samples with branch stack\n");
		break;
	case PA_FEAT_PMU_MAPPINGS:
		if (!h->nr_pmu_mappings) {
			fprintf(out, "# pmu mappings: not available\n");
			break;
		}
		fprintf(out, "# pmu mappings: ");
		for (uint32_t i = 0; i < h->nr_pmu_mappings; i++)
			fprintf(out, "%s%s = %" PRIu32, i ? ", " : "", h->pmu_mappings[i].name,
				h->pmu_mappings[i].type);
		fputc('\n', out);
		break;
	case PA_FEAT_GROUP_DESC:
		print_groups(out, f, h);
		break;
	case PA_FEAT_AUXTRACE:
		fprintf(out, "# contains AUX area data (e.g. instruction trace)\n");
		break;
	case PA_FEAT_STAT:
		fprintf(out, "# contains stat data\n");
		break;
	case PA_FEAT_SAMPLE_TIME: {
		print_time(out, "time of first sample", h->first_sample_time);
		print_time(out, "time of last sample", h->last_sample_time);
		double ms = (double)(h->last_sample_time - h->first_sample_time) / 1e6;
		fprintf(out, "# sample duration : %10.3f ms\n", ms);
		break;
	}
	case PA_FEAT_CLOCKID:
		fprintf(out, "# clockid frequency: %" PRIu64 " MHz\n", h->clockid_res_ns * 1000);
		break;
	case PA_FEAT_COMPRESSED:
		fprintf(out, "# compressed : %s, level = %u, ratio = %u\n",
			h->compressed.type == 1 ? "Zstd" : "Unknown", h->compressed.level,
			h->compressed.ratio);
		break;
	default:
		break; /* perf prints nothing for these without -I */
	}
}

/* perf's file-header lines. A pipe has no file header: perf prints zeros
 * (and the version its magic says). "captured on" is the input's mtime
 * (for standard input, that of the pipe or file behind it). */
static void print_file_header(FILE *out, struct pa_file *f)
{
	const struct pa_file_layout *l = pa_file_layout(f);
	bool pipe = pa_file_mode(f) == PA_FILE_MODE_PIPE;
	const char *path = pa_file_path(f);
	struct stat st;
	if (strcmp(path, "-") ? stat(path, &st) == 0 : fstat(0, &st) == 0) {
		char tbuf[64];
		time_t t = st.st_mtime;
		strftime(tbuf, sizeof(tbuf), "%a %b %e %H:%M:%S %Y", localtime(&t));
		fprintf(out, "# captured on    : %s\n", tbuf);
	}
	fprintf(out, "# header version : %d\n", l->version - 1);
	fprintf(out, "# data offset    : %" PRIu64 "\n", pipe ? 0 : l->data_offset);
	fprintf(out, "# data size      : %" PRIu64 "\n", pipe ? 0 : l->data_size);
	fprintf(out, "# feat offset    : %" PRIu64 "\n", pipe ? 0 : l->feat_offset);
}

/* File mode: the header block, features in bit order, then the missing
 * ones. Pipe mode: the block perf prints before it reads the stream, then
 * the features read (in bit order here; pa_cli_print_header prints them in
 * record order, as perf does); no missing features line. */
int pa_print_header(FILE *out, struct pa_file *f)
{
	const struct pa_header_info *h = pa_file_header(f);
	bool pipe = pa_file_mode(f) == PA_FILE_MODE_PIPE;

	fprintf(out, "# ========\n");
	print_file_header(out, f);
	if (pipe)
		fprintf(out, "# ========\n#\n");
	for (unsigned feat = 1; feat < PA_FEAT_LAST_KNOWN; feat++)
		if (pa_header_has_feat(h, feat))
			print_feature(out, f, feat);
	if (pipe)
		return 0;
	fprintf(out, "# missing features: ");
	for (unsigned feat = 1; feat < PA_FEAT_LAST_KNOWN; feat++)
		if (!pa_header_has_feat(h, feat))
			fprintf(out, "%s ", pa_feat_name(feat));
	fprintf(out, "\n# ========\n#\n");
	return 0;
}

/* A pipe, as perf report --header-only prints it: the block, then each
 * HEADER_FEATURE record's lines as the record streams by (one that is
 * damaged prints nothing: perf stops there, pa warns and reads on). The
 * whole stream is read, as perf reads it. */
static int print_pipe_header(FILE *out, struct pa_file *f, const char *path)
{
	const struct pa_header_info *h = pa_file_header(f);
	struct pa_event ev;
	struct pa_err err = {0};
	int r;
	fprintf(out, "# ========\n");
	print_file_header(out, f);
	fprintf(out, "# ========\n#\n");
	while ((r = pa_file_next(f, &ev, &err)) > 0) {
		if (ev.type != PA_REC_HEADER_FEATURE)
			continue;
		uint64_t feat = ev.u.feature.feat;
		if (!feat || feat >= PA_FEAT_LAST_KNOWN)
			continue;
		/* perf's EVENT_DESC reader does not fail: it prints "not
		 * available" for a damaged one */
		if (!pa_header_feat_damaged(h, (unsigned)feat) || feat == PA_FEAT_EVENT_DESC)
			print_feature(out, f, (unsigned)feat);
	}
	return r < 0 ? pa_cli_error(path, &err) : 0;
}

int pa_cli_print_header(struct pa_file *f, const char *path)
{
	if (pa_file_mode(f) == PA_FILE_MODE_PIPE)
		return print_pipe_header(stdout, f, path);
	return pa_print_header(stdout, f);
}

int cmd_header(int argc, const char **argv)
{
	const char *input = NULL;
	const struct pa_option opts[] = {
		OPT_STRING('i', "input", &input, "file", "input file name (default perf.data, - for stdin)"),
		OPT_END(),
	};
	int n = pa_parse_options(argc, argv, opts, "pa header [-i FILE]");
	if (n < 0)
		return n;
	int status = 0;
	struct pa_file *f = pa_cli_open(input, &status);
	if (!f)
		return status;
	status = pa_cli_print_header(f, input ? input : "perf.data");
	pa_file_close(f);
	return status;
}
