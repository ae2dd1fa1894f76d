/* attr.c - perf_event_attr of any size and either byte order. */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>

/* Known sizes: VER0 64 ... VER8 136. Fields past the recorded size stay 0;
 * bytes past what we know (a newer perf) are ignored. */
#define ATTR_VER0 64u

static bool flag_bit(const uint8_t raw[8], bool big_endian, unsigned bit)
{
	/* A big-endian compiler allocates bitfields from the most significant
	 * bit of the u64 down, i.e. flag N sits in byte N/8, bit 7 - N%8. */
	unsigned byte = big_endian ? bit / 8 : bit / 8;
	unsigned shift = big_endian ? 7 - bit % 8 : bit % 8;
	return (raw[byte] >> shift) & 1;
}

uint64_t pa_attr_decode_flags(const uint8_t raw[8], bool big_endian, uint32_t *precise_ip)
{
	uint64_t flags = 0;
	for (unsigned bit = 0; bit < 64; bit++)
		if (flag_bit(raw, big_endian, bit))
			flags |= 1ull << bit;
	if (big_endian) {
		/* A multi-bit field keeps its most significant bit first on a
		 * big-endian writer: precise_ip's value bits are reversed
		 * relative to the little-endian layout. */
		uint64_t lo = (flags >> PA_ATTR_PRECISE_IP) & 1;
		uint64_t hi = (flags >> (PA_ATTR_PRECISE_IP + 1)) & 1;
		flags &= ~(3ull << PA_ATTR_PRECISE_IP);
		flags |= (hi | lo << 1) << PA_ATTR_PRECISE_IP;
	}
	if (precise_ip)
		*precise_ip = (uint32_t)((flags >> PA_ATTR_PRECISE_IP) & 3);
	return flags;
}

uint32_t pa_attr_decode(struct pa_attr *a, const uint8_t *p, size_t avail, bool swap,
			bool big_endian)
{
	memset(a, 0, sizeof(*a));
	if (avail < ATTR_VER0)
		return 0;
	a->type = ld32(p, swap);
	a->size = ld32(p + 4, swap);
	uint32_t size = a->size ? a->size : ATTR_VER0;
	if (size < ATTR_VER0)
		return 0;
	size_t have = avail < size ? avail : size;
#define HAVE(off, n) ((off) + (n) <= have)
	a->config = ld64(p + 8, swap);
	a->sample_period = ld64(p + 16, swap);
	a->sample_type = ld64(p + 24, swap);
	a->read_format = ld64(p + 32, swap);
	a->flags = pa_attr_decode_flags(p + 40, big_endian, &a->precise_ip);
	a->wakeup_events = ld32(p + 48, swap);
	a->bp_type = ld32(p + 52, swap);
	a->config1 = ld64(p + 56, swap);
	if (HAVE(64, 8))
		a->config2 = ld64(p + 64, swap);
	if (HAVE(72, 8))
		a->branch_sample_type = ld64(p + 72, swap);
	if (HAVE(80, 8))
		a->sample_regs_user = ld64(p + 80, swap);
	if (HAVE(88, 4))
		a->sample_stack_user = ld32(p + 88, swap);
	if (HAVE(92, 4))
		a->clockid = (int32_t)ld32(p + 92, swap);
	if (HAVE(96, 8))
		a->sample_regs_intr = ld64(p + 96, swap);
	if (HAVE(104, 4))
		a->aux_watermark = ld32(p + 104, swap);
	if (HAVE(108, 2))
		a->sample_max_stack = ld16(p + 108, swap);
	if (HAVE(112, 4))
		a->aux_sample_size = ld32(p + 112, swap);
	if (HAVE(116, 4))
		a->aux_action = ld32(p + 116, swap);
	if (HAVE(120, 8))
		a->sig_data = ld64(p + 120, swap);
	if (HAVE(128, 8))
		a->config3 = ld64(p + 128, swap);
#undef HAVE
	return size;
}

/* ---- perf's evsel__name() for an event without a recorded name ---- */

static const char *const hw_names[] = {
	"cycles",		   "instructions",	     "cache-references", "cache-misses",
	"branches",		   "branch-misses",	     "bus-cycles",	 "stalled-cycles-frontend",
	"stalled-cycles-backend", "ref-cycles",
};

static const char *const sw_names[] = {
	"cpu-clock",	 "task-clock",	     "page-faults",	"context-switches",
	"cpu-migrations", "minor-faults",    "major-faults",	"alignment-faults",
	"emulation-faults", "dummy",	     "bpf-output",	"cgroup-switches",
};

/* ":kuhpppHG": which contexts the event counts (perf's modifier rules:
 * H and G only when exclude_guest differs from what k/u/h or precise
 * would imply). */
static size_t add_modifiers(const struct pa_attr *a, char *buf, size_t size, size_t n)
{
	size_t start = n;
	bool guest_default = false;
#define MOD(flag, c)                                                                               \
	do {                                                                                       \
		if (!pa_attr_flag(a, flag) && n + 2 < size) {                                      \
			if (n == start)                                                            \
				buf[n++] = ':';                                                    \
			buf[n++] = (c);                                                            \
		}                                                                                  \
	} while (0)
	if (pa_attr_flag(a, PA_ATTR_EXCLUDE_KERNEL) || pa_attr_flag(a, PA_ATTR_EXCLUDE_USER) ||
	    pa_attr_flag(a, PA_ATTR_EXCLUDE_HV)) {
		MOD(PA_ATTR_EXCLUDE_KERNEL, 'k');
		MOD(PA_ATTR_EXCLUDE_USER, 'u');
		MOD(PA_ATTR_EXCLUDE_HV, 'h');
		guest_default = true;
	}
	if (a->precise_ip) {
		if (n == start && n + 1 < size)
			buf[n++] = ':';
		for (uint32_t i = 0; i < a->precise_ip && i < 3 && n + 1 < size; i++)
			buf[n++] = 'p';
		guest_default = true;
	}
	if (pa_attr_flag(a, PA_ATTR_EXCLUDE_HOST) ||
	    pa_attr_flag(a, PA_ATTR_EXCLUDE_GUEST) == guest_default) {
		MOD(PA_ATTR_EXCLUDE_HOST, 'H');
		MOD(PA_ATTR_EXCLUDE_GUEST, 'G');
	}
#undef MOD
	buf[n < size ? n : size - 1] = 0;
	return n;
}

const char *pa_evsel_name(const struct pa_evsel *e, char *buf, size_t size)
{
	if (e->name)
		return e->name;
	const struct pa_attr *a = &e->attr;
	int n;
	if (a->type == 0 && a->config < sizeof(hw_names) / sizeof(hw_names[0]))
		n = snprintf(buf, size, "%s", hw_names[a->config]);
	else if (a->type == 1 && a->config < sizeof(sw_names) / sizeof(sw_names[0]))
		n = snprintf(buf, size, "%s", sw_names[a->config]);
	else if (a->type == 4)
		n = snprintf(buf, size, "raw 0x%" PRIx64, a->config);
	else
		return snprintf(buf, size, "unknown attr type: %u", a->type), buf;
	if (n < 0 || (size_t)n >= size)
		return buf;
	add_modifiers(a, buf, size, (size_t)n);
	return buf;
}

bool pa_evsel_period_is_ns(const struct pa_file *f, const struct pa_evsel *e)
{
	/* perf's cpu-clock and task-clock (PERF_TYPE_SOFTWARE 1, configs 0
	 * and 1); a sysprof capture's synthesized cpu-clock counts samples */
	return e && e->attr.type == 1 && (e->attr.config == 0 || e->attr.config == 1) &&
	       pa_file_format(f) != PA_FILE_FORMAT_SYSCAP;
}
