/* pager.c - perf's and git's pager: a command's text on a terminal goes
 * through $PAGER (`less` with LESS=FRSX by default), started by the
 * command, waited for by it (no atexit, no signal handlers). */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* perf's order (PERF_PAGER, then PAGER), pa's own first; unset: less.
 * "" and "cat" mean no pager. */
static const char *pager_command(void)
{
	const char *names[] = {"PA_PAGER", "PERF_PAGER", "PAGER"};
	for (size_t i = 0; i < PA_ARRAY_SIZE(names); i++) {
		const char *v = getenv(names[i]);
		if (v)
			return *v && strcmp(v, "cat") ? v : NULL;
	}
	return "less";
}

static bool pager_wanted(bool off)
{
	return !off && isatty(STDOUT_FILENO) && pager_command();
}

void pa_pager_start(struct pa_pager *p, bool off)
{
	*p = (struct pa_pager){.pid = -1, .saved_out = -1, .saved_err = -1};
	if (!pager_wanted(off))
		return;
	const char *cmd = pager_command();
	int fds[2];
	if (fflush(stdout) || pipe(fds))
		return;
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (!pid) {
		/* git's and perf's defaults for less: quit when it fits one
		 * screen (-F), colours (-R), no wrapping (-S), no clearing (-X) */
		setenv("LESS", "FRSX", 0);
		if (dup2(fds[0], STDIN_FILENO) < 0)
			_exit(127);
		close(fds[0]);
		close(fds[1]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	p->pid = pid;
	p->saved_out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	dup2(fds[1], STDOUT_FILENO);
	/* messages on the terminal go through the pager too (git's rule),
	 * where they are seen instead of scrolled away */
	if (isatty(STDERR_FILENO)) {
		p->saved_err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
		if (p->saved_err >= 0)
			dup2(fds[1], STDERR_FILENO);
	}
	close(fds[1]);
}

int pa_pager_finish(struct pa_pager *p, int status)
{
	if (p->pid < 0)
		return status;
	fflush(stdout);
	/* the terminal back on stdout and stderr: the pipe's last write end
	 * closes, the pager sees the end of its input */
	if (p->saved_err >= 0) {
		dup2(p->saved_err, STDERR_FILENO);
		close(p->saved_err);
	}
	if (p->saved_out >= 0) {
		dup2(p->saved_out, STDOUT_FILENO);
		close(p->saved_out);
	} else {
		close(STDOUT_FILENO);
	}
	while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
		;
	/* A write error on a pipe means the pager went away: the user quit
	 * it (with SIGPIPE ignored; otherwise that signal ended pa quietly
	 * at the first write): not an error to report. */
	clearerr(stdout);
	p->pid = -1;
	return status;
}
