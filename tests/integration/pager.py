#!/usr/bin/env python3
"""pager.py - run a command with its stdout (and stdin) on a pseudo-terminal.

usage: pager.py PTY_OUT STDERR [--stdout FILE] -- COMMAND [ARGS...]

What the command wrote to the terminal goes to PTY_OUT (the terminal's
"\\r\\n" turned back into "\\n"); its stderr goes to the file STDERR, or to
the terminal too when STDERR is "tty"; its stdout to FILE with --stdout. Exits with the command's status
(128 + N when signal N ended it); 124 when it ran past 60 seconds.
"""
import os
import pty
import select
import subprocess
import sys
import time


def main():
    args, stdout_path = sys.argv[1:], None
    if len(args) > 4 and args[2] == "--stdout":
        stdout_path = args[3]
        del args[2:4]
    if len(args) < 4 or args[2] != "--":
        sys.stderr.write(__doc__)
        return 2
    out_path, err_path, cmd = args[0], args[1], args[3:]
    master, slave = pty.openpty()
    err = slave if err_path == "tty" else open(err_path, "wb")
    out = open(stdout_path, "wb") if stdout_path else slave
    proc = subprocess.Popen(cmd, stdin=slave, stdout=out, stderr=err,
                            start_new_session=True)
    os.close(slave)
    got = bytearray()
    deadline = time.monotonic() + 60
    while True:
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the last writer closed the terminal
                data = b""
            if not data:
                break
            got += data
        elif proc.poll() is not None:
            break
        if time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            return 124
    status = proc.wait()
    os.close(master)
    with open(out_path, "wb") as f:
        f.write(bytes(got).replace(b"\r\n", b"\n"))
    return 128 - status if status < 0 else status


if __name__ == "__main__":
    sys.exit(main())
