/* fuzz_common.h - helpers shared by the fuzz harnesses (fuzz/fuzz_*.c).
 *
 * The loaders take paths, so an input is handed to them as a file: a memfd
 * named through /proc/self/fd (no disk traffic), or, where memfd or /proc is
 * missing (some emulators), an unlinked-on-close temporary file. The pipe
 * harness uses a real pipe so the reader takes its streaming path.
 *
 * Everything here is also built without libFuzzer (fuzz/replay.c), with gcc
 * as well as clang, for the regression replay tests.
 */
#ifndef PA_FUZZ_COMMON_H
#define PA_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An input as a file: fills path (at least 64 bytes), returns a handle for
 * fuzz_file_close(), or -1 (the harness then returns: not a finding). */
struct fuzz_file {
	int fd;
	char path[256];
	int unlink_on_close;
	int saved_stdin; /* pipe inputs: the real stdin, restored on close */
};
int fuzz_file_open(struct fuzz_file *ff, const void *data, size_t size);
void fuzz_file_close(struct fuzz_file *ff);

/* The same through a pipe installed as standard input (path "-"): FIFO
 * semantics, no size, no mmap. Inputs longer than the pipe's capacity are
 * cut to it. Returns 0 or -1; fuzz_file_close() restores standard input. */
int fuzz_pipe_open(struct fuzz_file *ff, const void *data, size_t size);

/* An empty directory made once per process (symfs, build-id cache), so that
 * a fuzzed file never makes the harness read this machine's binaries. */
const char *fuzz_empty_dir(void);

/* A stream to print into; output is discarded. */
FILE *fuzz_devnull(void);

/* Read every byte an event points to, so ASan checks the pointers; returns
 * a value that depends on the bytes (the caller folds it into fuzz_sink). */
uint64_t fuzz_touch_event(const struct pa_event *ev);
uint64_t fuzz_touch(const void *p, size_t n);
uint64_t fuzz_touch_str(const char *s);
extern volatile uint64_t fuzz_sink;

/* abort() with a message: a harness-level invariant failed. */
void fuzz_fail(const char *fmt, ...) PA_PRINTF(1, 2);

#endif
