/* syscap-writer.c - write a sysprof capture from a stacks file, with the
 * writer sysprof itself uses: Debian's libsysprof-capture-4
 * (libsysprof-4-dev). Built and run by testdata/make-syscap.sh, natively
 * and for s390x under qemu-user (a big-endian capture).
 *
 *   syscap-writer STACKS OUT.syscap
 *
 * STACKS (testdata/syscap-burn.stacks) holds what sysprof's perf source
 * would have been told by perf, one event per line, times in ns, addresses
 * in hex with perf's PERF_CONTEXT_* markers kept:
 *
 *   capture-time ISO8601
 *   jit PID NAME                       a JIT'd function (first lines)
 *   comm TIME CPU PID NAME             -> PROCESS
 *   fork TIME CPU PARENT CHILD         -> FORK
 *   exit TIME CPU PID                  -> EXIT
 *   map TIME CPU PID START END OFFSET INODE PATH   -> MAP
 *   sample TIME CPU PID TID ADDR...    -> SAMPLE; an ADDR "j:NAME" is the
 *                                        JIT address of NAME
 *
 * Besides, as a real capture has them: a TIMESTAMP, a METADATA and a MARK
 * frame, and a LOG frame (a type readers skip). The writer's buffer is one
 * page, so that it flushes in the middle and the JITMAP frame (written at
 * the final flush) lands after samples that use its addresses, as it does
 * in long sysprof recordings.
 *
 * For a capture that depends on the stacks file only, the header's times
 * and capture_time and the JITMAP frame's pid and time (the writer's own
 * pid and clock) are set from the stacks file afterwards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sysprof-capture.h>

#define MAX_ADDRS 1024
#define MAX_JIT 64

struct jit {
	char *name;
	uint64_t addr;
	int32_t pid;
};

static struct jit jits[MAX_JIT];
static unsigned nr_jits;
static char capture_time[64] = "1970-01-01T00:00:00Z";
static int64_t first_time = -1, last_time;

static void die(const char *what, unsigned long line)
{
	fprintf(stderr, "syscap-writer: line %lu: %s\n", line, what);
	exit(1);
}

static uint64_t jit_addr(const char *name, unsigned long line)
{
	for (unsigned i = 0; i < nr_jits; i++)
		if (!strcmp(jits[i].name, name))
			return jits[i].addr;
	die("JIT name not declared by a jit line", line);
	return 0;
}

static void saw_time(int64_t t)
{
	if (first_time < 0 || t < first_time)
		first_time = t;
	if (t > last_time)
		last_time = t;
}

/* Walk the finished file in this host's order (the writer's): the header's
 * times and capture_time, and the JITMAP frames' pid and time. */
static void settle(const char *path)
{
	int fd = open(path, O_RDWR);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	SysprofCaptureFileHeader h;
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		die("cannot read back the header", 0);
	memset(h.capture_time, 0, sizeof(h.capture_time));
	snprintf(h.capture_time, sizeof(h.capture_time), "%s", capture_time);
	h.time = first_time;
	h.end_time = last_time;
	if (pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		die("cannot write the header", 0);
	off_t pos = sizeof(h);
	SysprofCaptureFrame fr;
	while (pread(fd, &fr, sizeof(fr), pos) == (ssize_t)sizeof(fr) && fr.len >= sizeof(fr)) {
		if (fr.type == SYSPROF_CAPTURE_FRAME_JITMAP) {
			fr.pid = nr_jits ? jits[0].pid : -1;
			fr.time = first_time;
			if (pwrite(fd, &fr, sizeof(fr), pos) != (ssize_t)sizeof(fr))
				die("cannot patch a JITMAP frame", 0);
		}
		pos += fr.len;
	}
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: syscap-writer STACKS OUT.syscap\n");
		return 2;
	}
	FILE *in = fopen(argv[1], "r");
	if (!in) {
		perror(argv[1]);
		return 1;
	}
	/* one page: flushes happen while samples are written */
	SysprofCaptureWriter *w = sysprof_capture_writer_new(argv[2], (size_t)getpagesize());
	if (!w) {
		perror(argv[2]);
		return 1;
	}
	char *line = NULL;
	size_t cap = 0;
	unsigned long lineno = 0;
	int64_t t;
	int cpu, n;
	int32_t pid, tid, child;
	bool started = false;
	static SysprofCaptureAddress addrs[MAX_ADDRS];
	while (getline(&line, &cap, in) > 0) {
		lineno++;
		line[strcspn(line, "\n")] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		if (!strncmp(line, "capture-time ", 13)) {
			snprintf(capture_time, sizeof(capture_time), "%s", line + 13);
			continue;
		}
		if (!strncmp(line, "jit ", 4)) {
			if (nr_jits == MAX_JIT || sscanf(line, "jit %" SCNd32 " %n", &pid, &n) != 1)
				die("bad jit line", lineno);
			jits[nr_jits].pid = pid;
			jits[nr_jits].name = strdup(line + n);
			jits[nr_jits].addr = sysprof_capture_writer_add_jitmap(w, line + n);
			if (!jits[nr_jits].name || !jits[nr_jits].addr)
				die("add_jitmap failed", lineno);
			nr_jits++;
			continue;
		}
		if (sscanf(line, "%*s %" SCNd64 " %d", &t, &cpu) != 2)
			die("no time and cpu", lineno);
		saw_time(t);
		if (!started) {
			/* what a recording starts with */
			started = true;
			if (!sysprof_capture_writer_add_timestamp(w, t, -1, -1) ||
			    !sysprof_capture_writer_add_metadata(
				    w, t, -1, -1, "pa.source",
				    "testdata/make-syscap.sh: perf record -g of syscap-burn", -1) ||
			    !sysprof_capture_writer_add_log(w, t, -1, -1, 16 /* G_LOG_LEVEL_INFO */,
							    "pa", "a frame type readers skip"))
				die("writer failed", lineno);
		}
		bool ok = true;
		if (!strncmp(line, "comm ", 5)) {
			if (sscanf(line, "comm %*d %*d %" SCNd32 " %n", &pid, &n) != 1)
				die("bad comm line", lineno);
			ok = sysprof_capture_writer_add_process(w, t, cpu, pid, line + n);
		} else if (!strncmp(line, "fork ", 5)) {
			if (sscanf(line, "fork %*d %*d %" SCNd32 " %" SCNd32, &pid, &child) != 2)
				die("bad fork line", lineno);
			ok = sysprof_capture_writer_add_fork(w, t, cpu, pid, child);
		} else if (!strncmp(line, "exit ", 5)) {
			if (sscanf(line, "exit %*d %*d %" SCNd32, &pid) != 1)
				die("bad exit line", lineno);
			ok = sysprof_capture_writer_add_exit(w, t, cpu, pid);
		} else if (!strncmp(line, "map ", 4)) {
			uint64_t start, end, off, ino;
			if (sscanf(line, "map %*d %*d %" SCNd32 " %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNu64 " %n",
				   &pid, &start, &end, &off, &ino, &n) != 5)
				die("bad map line", lineno);
			ok = sysprof_capture_writer_add_map(w, t, cpu, pid, start, end, off, ino, line + n);
		} else if (!strncmp(line, "sample ", 7)) {
			if (sscanf(line, "sample %*d %*d %" SCNd32 " %" SCNd32 " %n", &pid, &tid, &n) != 2)
				die("bad sample line", lineno);
			unsigned nr = 0;
			for (char *tok = strtok(line + n, " "); tok; tok = strtok(NULL, " ")) {
				if (nr == MAX_ADDRS)
					die("too many addresses", lineno);
				if (!strncmp(tok, "j:", 2))
					addrs[nr++] = jit_addr(tok + 2, lineno);
				else
					addrs[nr++] = strtoull(tok, NULL, 16);
			}
			ok = sysprof_capture_writer_add_sample(w, t, cpu, pid, tid, addrs, nr);
		} else {
			die("unknown line", lineno);
		}
		if (!ok)
			die("writer failed", lineno);
	}
	free(line);
	fclose(in);
	if (started &&
	    !sysprof_capture_writer_add_mark(w, first_time, -1, -1, (uint64_t)(last_time - first_time),
					     "pa", "recording", "the whole recording"))
		die("writer failed", lineno);
	if (!sysprof_capture_writer_flush(w))
		die("flush failed", lineno);
	sysprof_capture_writer_unref(w);
	settle(argv[2]);
	for (unsigned i = 0; i < nr_jits; i++)
		free(jits[i].name);
	return 0;
}
