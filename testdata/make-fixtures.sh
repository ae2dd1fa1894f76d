#!/usr/bin/env bash
# make-fixtures.sh - record the perf.data fixtures in testdata/ (see README.md).
#
#   testdata/make-fixtures.sh            record everything, replace the fixtures
#   PA_FIXTURES_NO_BE=1 testdata/make-fixtures.sh   skip the big-endian twins
#
# Needs the host perf (perf record must work: perf_event_paranoid <= 1 or root),
# cc and python3; for the big-endian twins also scripts/sysroot s390x (Debian's
# s390x perf, run under qemu-s390x-static). Everything is recorded in a temp
# directory from testdata/src/burn.c; nothing of this machine's paths ends up in
# the fixtures but that directory's name.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
pdtool=$top/tests/integration/perfdata.py
ms=${PA_FIXTURES_MS:-40} # workload length: ~40 samples at -F 999
log() { echo "make-fixtures: $*" >&2; }
die() { log "$*"; exit 1; }

command -v perf >/dev/null || die "no perf (Debian: apt-get install linux-perf)"
command -v python3 >/dev/null || die "no python3"
hostperf=$(readlink -f "$(command -v perf)")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/pa-fixtures.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cc -O1 -g -fno-omit-frame-pointer -o "$tmp/burn" "$here/src/burn.c"
cd "$tmp"
mkdir out

# A fixture must not name this checkout or the home directory (a system-wide
# recording sees every process that happens to run).
leaks() {
	grep -aqF "$top" "$1" && return 0
	[ -n "${HOME:-}" ] && [ "$HOME" != / ] && grep -aqF "$HOME/" "$1" && return 0
	return 1
}

# rec NAME perf-record-args... : record out/NAME (file mode: -o NAME is added).
rec() {
	local name=$1 try
	shift
	for try in 1 2 3; do
		rm -f "$name"
		perf record -q "$@" -o "$name" ./burn "$ms" 2>"$name.err" ||
			die "perf record $* failed: $(cat "$name.err")"
		leaks "$name" || break
		[ "$try" = 3 ] && die "$name keeps naming $top or $HOME; record it when idle"
		log "$name names a local path, recording again"
	done
	mv "$name" out/
}

# recpipe NAME args... : the same through a pipe (perf record -o - > NAME).
recpipe() {
	local name=$1
	shift
	perf record -q "$@" -o - ./burn "$ms" >"$name" 2>"$name.err" ||
		die "perf record $* -o - failed: $(cat "$name.err")"
	leaks "$name" && die "$name names a local path"
	mv "$name" out/
}

log "recording with $(perf --version)"
rec le-file.data -g -F 999
recpipe le-pipe.data -g -F 999
rec le-zstd.data -g -F 999 -z
recpipe le-pipe-zstd.data -g -F 999 -z
rec le-buildid-mmap.data -g -F 999 --buildid-mmap
rec le-two-events.data -g -F 999 -e cpu-clock,task-clock
rec le-group.data -g -F 999 -e '{cpu-clock,task-clock}'
rec le-dwarf.data --call-graph dwarf,1024 -F 99
# System-wide for 50 ms: the workload is `sleep` here, not burn.
for try in 1 2 3; do
	rm -f le-sysw.data
	perf record -q -g -F 999 -a -o le-sysw.data sleep 0.05 2>sysw.err ||
		die "perf record -a failed: $(cat sysw.err)"
	leaks le-sysw.data || break
	[ "$try" = 3 ] && die "le-sysw.data keeps naming $top or $HOME; record it when idle"
done
mv le-sysw.data out/

# ---- big-endian twins --------------------------------------------------------
#
# perf inject -b run by Debian's s390x perf (under qemu-user) reads a
# little-endian file and writes a big-endian one. The same inject run by the
# host perf gives the little-endian twin: inject rewrites the command line,
# the build-id table, EVENT_DESC and SAMPLE_TIME, so the original recording is
# not the twin. To make the two runs see the same world, the host perf runs
# under qemu-user too (qemu gives neither a vdso, so neither can add a [vdso]
# build-id the other lacks), with the same arguments and as the same
# executable path (CMDLINE records /proc/self/exe): in a private mount
# namespace the s390x binary is bind-mounted over the host perf's path;
# without namespaces both are copied to one temp path in turn.
be_twins() {
	local sysroot nsok=0 hostqemu
	sysroot=$("$top/scripts/sysroot" s390x) || return 1
	command -v qemu-s390x-static >/dev/null || return 1
	hostqemu=qemu-$(uname -m)-static
	command -v "$hostqemu" >/dev/null || return 1
	[ -x "$sysroot/usr/bin/perf-real" ] || return 1
	unshare -m true 2>/dev/null && nsok=1
	mkdir -p "$tmp/bin"

	# inject_as host|s390x DIR ARGS... (stdout is inject's stdout)
	inject_as() {
		local who=$1 dir=$2
		shift 2
		if [ "$nsok" = 1 ]; then
			if [ "$who" = host ]; then
				(cd "$dir" && "$hostqemu" "$hostperf" inject "$@")
			else
				# shellcheck disable=SC2016 # expanded by that sh
				(cd "$dir" && unshare -m sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' \
					sh "$sysroot/usr/bin/perf-real" "$hostperf" \
					qemu-s390x-static -L "$sysroot" "$hostperf" inject "$@")
			fi
		else
			if [ "$who" = host ]; then
				cp "$hostperf" "$tmp/bin/perf"
				(cd "$dir" && "$hostqemu" "$tmp/bin/perf" inject "$@")
			else
				cp "$(readlink -f "$sysroot/usr/bin/perf-real")" "$tmp/bin/perf"
				(cd "$dir" && qemu-s390x-static -L "$sysroot" "$tmp/bin/perf" inject "$@")
			fi
		fi
	}

	# twin LE-INPUT BE-NAME LE-NAME [pipe]
	twin() {
		local in=$1 be=$2 le=$3 pipe=${4:-} who
		for who in host s390x; do
			rm -rf "$tmp/inj" && mkdir "$tmp/inj" && cp "$in" "$tmp/inj/in.data"
			if [ -n "$pipe" ]; then
				inject_as "$who" "$tmp/inj" -b -i in.data -o - >"$tmp/inj/out.data" 2>"$tmp/inj.err"
			else
				inject_as "$who" "$tmp/inj" -b -i in.data -o out.data 2>"$tmp/inj.err"
			fi || die "$who perf inject -b of $in failed: $(cat "$tmp/inj.err")"
			if [ "$who" = host ]; then
				mv "$tmp/inj/out.data" "out/$le"
			else
				mv "$tmp/inj/out.data" "out/$be"
			fi
		done
		[ "$(head -c 8 "out/$be")" = 2ELIFREP ] || die "$be is not big-endian"
		[ "$(head -c 8 "out/$le")" = PERFILE2 ] || die "$le is not little-endian"
		leaks "out/$be" && die "$be names a local path"
		leaks "out/$le" && die "$le names a local path"
		return 0
	}

	# Not zstd: inject passes COMPRESSED records through untouched, so the
	# s390x output holds little-endian records inside a big-endian file.
	# Not sysw: inject swaps sample bodies as u64 words, which leaves each
	# u32 pair ({pid, tid}, {cpu, res}) in the wrong order; harmless only
	# when both halves are equal, as in the single-threaded burn recordings
	# (no CPU field, pid == tid).
	local x
	for x in file buildid-mmap two-events group dwarf; do
		log "big-endian twin of le-$x.data"
		twin "out/le-$x.data" "be-$x.data" "le-$x.inj.data"
	done
	# A big-endian pipe: s390x perf inject from a file to -o - (it cannot
	# take an LE pipe: it repipes the pipe header half-swapped). In pipe
	# output inject writes every feature afresh, describing the converting
	# perf and machine; drop those that differ between the host and the
	# s390x perf (and the live NUMA free-memory figure) so that the twins
	# agree.
	log "big-endian pipe twin"
	python3 "$pdtool" strip out/le-file.data "$tmp/nomach.data" \
		VERSION ARCH CPUDESC CPUID NUMA_TOPOLOGY CACHE
	twin "$tmp/nomach.data" be-pipe.data le-pipe.inj.data pipe
}

if [ "${PA_FIXTURES_NO_BE:-0}" = 1 ]; then
	log "skipping the big-endian twins (PA_FIXTURES_NO_BE=1)"
elif ! be_twins; then
	log "no s390x perf (scripts/sysroot s390x failed?): big-endian twins not made"
fi

# Stack copies the kernel could not fill: the DWARF recording (and its
# twins) with the samples' dyn_size made 0 (perf then unwinds nothing, not
# even the ip) and 24 (it unwinds what three words of stack give), in turn.
for x in le-dwarf le-dwarf.inj be-dwarf; do
	[ -e "out/$x.data" ] || continue
	python3 "$pdtool" stack-dyn "out/$x.data" "out/${x/dwarf/dwarf-dyn}.data" 0 24 - ||
		die "stack-dyn of $x.data failed"
done

# ---- check and install ----------------------------------------------------------
total=0
for f in out/*.data; do
	sz=$(stat -c %s "$f")
	total=$((total + sz))
	[ "$sz" -lt 204800 ] || die "$(basename "$f") is $sz bytes (limit 200 KB)"
	printf '%8d  %s\n' "$sz" "$(basename "$f")" >&2
done
[ "$total" -lt 2097152 ] || die "fixtures total $total bytes (limit 2 MB)"
log "total $total bytes"

pa=${PA:-$top/build/pa}
if [ -x "$pa" ]; then
	# The twins must read the same; the test suite checks this too.
	for be in out/be-*.data; do
		[ -e "$be" ] || continue
		x=${be#out/be-}
		le=out/le-${x%.data}.inj.data
		for cmd in header dump buildid-list; do
			cmp -s <("$pa" $cmd -i "$be" 2>&1 | grep -v '^# captured on') \
				<("$pa" $cmd -i "$le" 2>&1 | grep -v '^# captured on') ||
				log "warning: pa $cmd differs between $(basename "$be") and $(basename "$le")"
		done
	done
fi

chmod 644 out/*.data
rm -f "$here"/le-*.data "$here"/be-*.data
cp out/*.data "$here/"
log "fixtures written to testdata/"
