#!/usr/bin/env bash
# Recordings perf record cannot make here, written by a generator and read
# by both perf and pa: guest samples (perf report hides them but counts
# them, and they join host entries of the same key), guest call-chain
# contexts, and events without recorded names (perf derives the name from
# the attr: "cpu-clock:HG", "cycles:u", "raw 0x1a2b:HG"...). pa's output
# must equal perf's, full layout included.
. "$(dirname "$0")/lib.sh"
need_perf
need_python
# perf and pa default to the build-id cache in $HOME/.debug (perf record
# writes to it; perf also reads ~/.perfconfig), which the tests running beside
# this one share: a private HOME. No debuginfod server either.
export HOME=$WORK/home
mkdir -p "$HOME" || exit 1
unset DEBUGINFOD_URLS
cd "$WORK" || exit 1

cat >gen.py <<'PY'
import struct, sys
out, chains, ev_type, config, flags = sys.argv[1], sys.argv[2] == "chains", int(sys.argv[3]), int(sys.argv[4], 0), int(sys.argv[5], 0)
ST = 0x1 | 0x2 | 0x4 | 0x80 | 0x100 | (0x20 if chains else 0)  # IP TID TIME CPU PERIOD [CALLCHAIN]
b = bytearray(b"PERFILE2" + struct.pack("<Q", 16))  # pipe mode, little-endian
attr = struct.pack("<IIQQQQQ", ev_type, 128, config, 4000, ST, 0, flags) + bytes(128 - 48)
b += struct.pack("<IHH", 64, 0, 8 + len(attr) + 8) + attr + struct.pack("<Q", 1)
def rec(t, misc, body):
    return struct.pack("<IHH", t, misc, 8 + len(body)) + body
def comm(pid, name):
    return rec(3, 0, struct.pack("<II", pid, pid) + name.encode() + b"\0" * (8 - len(name) % 8))
CTX = {1: 2**64 - 128, 2: 2**64 - 512, 4: 2**64 - 2176, 5: 2**64 - 2560}
b += comm(100, "qemu-kvm") + comm(200, "worker")
t = 1000
for i in range(64):
    t += 10
    misc = [1, 2, 4, 5][i % 4]  # host kernel, host user, guest kernel, guest user
    base = [0xffffffff81000000, 0x400000, 0xffffffff81000100, 0x500000][i % 4]
    ip = base + (i % 8) * 4
    pid = 100 if i % 3 else 200
    body = struct.pack("<QIIQIIQ", ip, pid, pid, t, i % 2, 0, 1000 + i % 5)
    if chains:
        chain = [CTX[misc], ip, base + 0x40, base + 0x80]
        body += struct.pack("<Q", len(chain)) + b"".join(struct.pack("<Q", c) for c in chain)
    b += rec(9, misc, body)
open(out, "wb").write(b)
PY

# name type config flags: flags bit 4 exclude_user, 5 exclude_kernel,
# 6 exclude_hv, 15-16 precise_ip, 19 exclude_host, 20 exclude_guest
variants=(
	"sw-chains chains 1 0 0"
	"sw-flat flat 1 0 0"
	"hw-user chains 0 0 $(((1 << 5) | (1 << 6) | (1 << 20)))"
	"hw-pp flat 0 1 $(((2 << 15) | (1 << 20)))"
	"raw flat 4 0x1a2b 0"
	"nohost flat 1 1 $((1 << 19))"
)
optsets=(
	""
	"--no-children"
	"-g caller"
	"-g folded"
	"--no-children -g none --sort comm,dso,sym"
	"--sort pid"
	"--sort dso"
	"--sort cpu,sym"
	"--no-children --sort sym"
	"--percentage relative --sort dso"
)
for v in "${variants[@]}"; do
	# shellcheck disable=SC2086
	set -- $v
	python3 gen.py "$1.data" "$2" "$3" "$4" "$5" || { fail "$1: generator failed"; continue; }
	for o in "${optsets[@]}"; do
		# shellcheck disable=SC2086
		perf report -i "$1.data" --stdio $o 2>/dev/null | grep -v '^# (Tip' >exp
		# shellcheck disable=SC2086
		pa report -i "$1.data" --stdio $o >got 2>got.err || { fail "$1 '$o': pa failed: $(head -n 2 got.err)"; continue; }
		CHECKS=$((CHECKS + 1))
		[ -s exp ] || fail "$1 '$o': perf printed nothing"
		same "$1: report $o" exp got
	done
done
# the hidden guest samples still count: 64 samples, a quarter per context
CHECKS=$((CHECKS + 1))
grep -q "^# Samples: 64 " got || fail "sample count: $(grep '^# Samples' got)"

# Many distinct stacks, each sampled twice in a row and again in later
# rounds, more of them than pa's cache of recent samples has slots: the
# sums it keeps for a stack must reach the report when another stack takes
# the slot. Halfway, an mmap changes where the same addresses resolve,
# between two samples of the same stack.
cat >many.py <<'PY'
import struct, sys
ST = 0x1 | 0x2 | 0x4 | 0x80 | 0x100 | 0x20  # IP TID TIME CPU PERIOD CALLCHAIN
b = bytearray(b"PERFILE2" + struct.pack("<Q", 16))
attr = struct.pack("<IIQQQQQ", 1, 128, 0, 4000, ST, 0, 0) + bytes(128 - 48)
b += struct.pack("<IHH", 64, 0, 8 + len(attr) + 8) + attr + struct.pack("<Q", 1)
def rec(t, misc, body):
    return struct.pack("<IHH", t, misc, 8 + len(body)) + body
name = b"worker"
b += rec(3, 0, struct.pack("<II", 200, 200) + name + b"\0" * (8 - len(name) % 8))
t, n = 1000, 0
for rnd in range(3):
    if rnd == 2:
        fn = b"/nonexistent/libmany.so"
        body = struct.pack("<IIQQQ", 200, 200, 0x400000, 0x100000, 0) + fn + b"\0" * (8 - len(fn) % 8)
        b += rec(1, 2, body)
    # every other round backwards: a round starts with the stack the one
    # before ended with, across the mmap too
    for k in (range(20000) if rnd % 2 == 0 else reversed(range(20000))):
        ip = 0x400000 + (k % 8) * 16
        chain = [2**64 - 512, ip, 0x480000 + (k // 8) * 16]
        for twice in range(2):
            t += 10
            n += 1
            body = struct.pack("<QIIQIIQ", ip, 200, 200, t, k % 2, 0, 1000 + n % 7)
            body += struct.pack("<Q", len(chain)) + b"".join(struct.pack("<Q", c) for c in chain)
            b += rec(9, 2, body)
    b += rec(68, 0, b"")  # FINISHED_ROUND: this round is delivered before the mmap
open(sys.argv[1], "wb").write(b)
PY
if python3 many.py many.data; then
	# (a pipe: no children; call graphs, so the samples' chains are read)
	for o in "-n --no-children --sort dso,sym" "-n --no-children -g caller --sort comm,dso" \
		"-n --no-children --sort cpu,sym"; do
		# shellcheck disable=SC2086
		perf report -i many.data --stdio $o 2>/dev/null | grep -v '^# (Tip' >exp
		# shellcheck disable=SC2086
		pa report -i many.data --stdio $o >got 2>got.err || fail "many '$o': pa failed: $(head -n 2 got.err)"
		CHECKS=$((CHECKS + 1))
		[ -s exp ] || fail "many '$o': perf printed nothing"
		same "many stacks: report $o" exp got
	done
else
	fail "many: generator failed"
fi
finish
