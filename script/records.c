/* records.c - the side records perf script prints with --show-mmap-events,
 * --show-task-events and --show-switch-events: the start of the line as
 * a sample's, then perf's text of the record (its perf_event__fprintf). */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>

static void print_task(const struct pa_event *ev, struct obuf *b)
{
	if (ev->type == PA_REC_COMM) {
		ob_printf(b, "%s: %s:%d/%d\n", ev->misc & PA_SCRIPT_MISC_COMM_EXEC ? " exec" : "",
		          ev->u.comm.comm, (int32_t)ev->u.comm.pid, (int32_t)ev->u.comm.tid);
		return;
	}
	ob_printf(b, "(%d:%d):(%d:%d)\n", (int32_t)ev->u.fork.pid, (int32_t)ev->u.fork.tid,
	          (int32_t)ev->u.fork.ppid, (int32_t)ev->u.fork.ptid);
}

static void print_mmap(const struct pa_event *ev, struct obuf *b)
{
	ob_printf(b, " %d/%d: [%#" PRIx64 "(%#" PRIx64 ") @ %#" PRIx64, (int32_t)ev->u.mmap.pid,
	          (int32_t)ev->u.mmap.tid, ev->u.mmap.start, ev->u.mmap.len, ev->u.mmap.pgoff);
	if (ev->type == PA_REC_MMAP) {
		ob_printf(b, "]: %c %s\n", ev->misc & PA_SCRIPT_MISC_MMAP_DATA ? 'r' : 'x',
		          ev->u.mmap.filename);
		return;
	}
	if (ev->u.mmap.build_id_size) {
		char hex[41];
		pa_hex(hex, ev->u.mmap.build_id, ev->u.mmap.build_id_size);
		ob_printf(b, " <%s>", hex);
	} else {
		ob_printf(b, " %02x:%02x %" PRIu64 " %" PRIu64, ev->u.mmap.maj, ev->u.mmap.min,
		          ev->u.mmap.ino, ev->u.mmap.ino_generation);
	}
	uint32_t prot = ev->u.mmap.prot; /* PROT_READ 1, PROT_WRITE 2, PROT_EXEC 4 */
	ob_printf(b, "]: %c%c%c%c %s\n", prot & 1 ? 'r' : '-', prot & 2 ? 'w' : '-',
	          prot & 4 ? 'x' : '-', ev->u.mmap.flags & 1 ? 's' : 'p', /* MAP_SHARED */
	          ev->u.mmap.filename);
}

static void print_switch(const struct pa_event *ev, struct obuf *b)
{
	bool out = ev->misc & PA_SCRIPT_MISC_SWITCH_OUT;
	const char *io = !out                                              ? "IN         "
	                 : !(ev->misc & PA_SCRIPT_MISC_SWITCH_OUT_PREEMPT) ? "OUT        "
	                                                                   : "OUT preempt";
	if (ev->type == PA_REC_SWITCH)
		ob_printf(b, " %s\n", io);
	else
		ob_printf(b, " %s  %s pid/tid: %5d/%-5d\n", io, out ? "next" : "prev",
		          (int32_t)ev->u.context_switch.next_prev_pid,
		          (int32_t)ev->u.context_switch.next_prev_tid);
}

static void print_record(const struct pa_event *ev, struct obuf *b)
{
	static const char *const names[] = {[PA_REC_MMAP] = "MMAP",
	                                    [PA_REC_COMM] = "COMM",
	                                    [PA_REC_EXIT] = "EXIT",
	                                    [PA_REC_FORK] = "FORK",
	                                    [PA_REC_MMAP2] = "MMAP2",
	                                    [PA_REC_SWITCH] = "SWITCH",
	                                    [PA_REC_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE"};
	ob_str(b, "PERF_RECORD_");
	ob_str(b, names[ev->type]);
	switch (ev->type) {
	case PA_REC_COMM:
	case PA_REC_FORK:
	case PA_REC_EXIT:
		print_task(ev, b);
		break;
	case PA_REC_MMAP:
	case PA_REC_MMAP2:
		print_mmap(ev, b);
		break;
	default:
		print_switch(ev, b);
		break;
	}
}

int pa_script_side(void *ctx, const struct pa_trace_side *sd)
{
	struct pa_script_walk *w = ctx;
	const struct pa_event *ev = sd->ev;
	const struct pa_evsel *e = ev->evsel ? ev->evsel : pa_file_evsel(w->f, 0);
	struct pa_script_line ls = {.comm = sd->tid == -1 ? ":-1" : sd->comm,
	                            .pid = (int32_t)ev->sample.pid,
	                            .tid = (int32_t)ev->sample.tid,
	                            .cpu = ev->sample.cpu,
	                            .time = ev->sample.time,
	                            .misc = ev->misc,
	                            .type = ev->type};
	if (e && !pa_attr_flag(&e->attr, PA_ATTR_SAMPLE_ID_ALL)) {
		/* perf's fields of a record without a sample_id trailer */
		ls.cpu = 0;
		ls.pid = sd->pid;
		ls.tid = sd->tid;
		ls.time = ev->type == PA_REC_FORK || ev->type == PA_REC_EXIT ? ev->u.fork.time : 0;
	}
	if (e)
		pa_script_line_start(w->sc, &w->sc->out[pa_script_output_type(e)], e, &ls, w->b);
	print_record(ev, w->b);
	return ferror(w->b->f) ? -EIO : 0;
}
