/* objdump.c - --objdump PATH: disassemble by running objdump exactly as
 * perf 6.1 does (symbol__disassemble's command line), its output parsed
 * with perf's rules (listing.c). */
#include "annotate/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* perf: objdump [-M STYLE] --start-address=0x%016 --stop-address=0x%016
 * -l -d [--no-show-raw-insn] [-S] -C FILE, stderr dropped */
static void run_child(const struct pa_annotate *a, const struct ann_sym *s, const char *path,
                      int fd)
{
	char startb[40], stopb[40];
	const char *argv[16];
	int n = 0;
	snprintf(startb, sizeof(startb), "--start-address=0x%016" PRIx64, s->start);
	snprintf(stopb, sizeof(stopb), "--stop-address=0x%016" PRIx64, s->end);
	argv[n++] = a->opts.objdump;
	if (a->opts.style) {
		argv[n++] = "-M";
		argv[n++] = a->opts.style;
	}
	argv[n++] = startb;
	argv[n++] = stopb;
	argv[n++] = "-l";
	argv[n++] = "-d";
	if (!a->opts.asm_raw)
		argv[n++] = "--no-show-raw-insn";
	if (!a->opts.no_source)
		argv[n++] = "-S";
	argv[n++] = "-C";
	argv[n++] = path;
	argv[n] = NULL;
	int null = open("/dev/null", O_WRONLY);
	if (dup2(fd, 1) < 0 || (null >= 0 && dup2(null, 2) < 0))
		_exit(127);
	execvp(argv[0], (char *const *)argv);
	_exit(127);
}

/* perf skips every line naming the file followed by ':' */
static bool names_file(const char *line, const char *path)
{
	const char *m = strstr(line, path);
	return m && m[strlen(path)] == ':';
}

int ann_disasm_objdump(struct pa_annotate *a, const struct ann_sym *s, const char *path,
                       struct ann_listing *l, struct pa_err *err)
{
	int fds[2], rc = 0, status = 0;
	FILE *in = NULL;
	char *line = NULL;
	size_t cap = 0;
	/* a kcore: objdump reads perf's extract of the symbol's bytes */
	char *extract = ann_from_kcore(a, s) ? ann_core_extract(path, s->start, s->end) : NULL;
	if (extract)
		path = extract;
	if (pipe2(fds, O_CLOEXEC)) {
		rc = pa_err_set(err, -errno, "annotate: pipe: %s", strerror(errno));
		goto done;
	}
	pid_t pid = fork(); /* (the child execs or _exits: no stdio flushed twice) */
	if (pid < 0) {
		rc = pa_err_set(err, -errno, "annotate: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		goto done;
	}
	if (pid == 0)
		run_child(a, s, path, fds[1]);
	close(fds[1]);
	in = fdopen(fds[0], "r");
	if (!in) {
		close(fds[0]);
		rc = pa_err_set(err, -ENOMEM, "annotate: %s", strerror(ENOMEM));
		goto out;
	}
	while (getline(&line, &cap, in) >= 0) {
		if (names_file(line, path))
			continue;
		if ((rc = ann_listing_feed(l, line, s->start, s->end))) {
			pa_err_set(err, rc, "annotate: %s", pa_strerror(rc));
			break;
		}
	}
out:
	if (in)
		fclose(in);
	free(line);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!rc && WIFEXITED(status) && WEXITSTATUS(status) == 127 && !l->n)
		rc = pa_err_set(err, -ENOENT, "annotate: cannot run '%s'", a->opts.objdump);
done:
	if (extract)
		unlink(extract);
	free(extract);
	return rc;
}
