#!/usr/bin/env bash
# debuginfod: a Debian `debuginfod` server indexes a directory of pa archives
# (-Z .tar.zst=zstdcat: it reads the tarballs themselves), on 127.0.0.1 in a
# private network namespace when one can be made (else on a free port). With
# DEBUGINFOD_URLS pointing at it and the recorded program gone, pa report
# symbolizes from an empty cache exactly as perf did, and writes nothing
# into the cache (a read-only command: what it fetched stays in the
# debuginfod client's own cache); pa archive fetches a missing binary the
# same way
# (and does not with --no-debuginfod). Skips (77) only when the debuginfod
# program cannot run here.
if [ -z "${PA_DEBUGINFOD_NETNS:-}" ] && command -v ip >/dev/null 2>&1 &&
	unshare -n true 2>/dev/null; then
	PA_DEBUGINFOD_NETNS=1 exec unshare -n bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/archive-common.sh"
need_perf
command -v debuginfod >/dev/null 2>&1 || skip "no debuginfod program (Debian: apt-get install debuginfod)"
command -v zstd >/dev/null 2>&1 || skip "no zstd program"
# perf and pa default to the build-id cache in $HOME/.debug (and a debuginfod
# client to ~/.cache/debuginfod_client), which the tests running beside this
# one share: a private HOME.
export HOME=$WORK/home
mkdir -p "$HOME" || exit 1
if [ -n "${PA_DEBUGINFOD_NETNS:-}" ]; then
	ip link set lo up || fail "cannot bring up lo in the network namespace"
fi

cd "$WORK" || exit 1
make_workload "$WORK/prog"
record_workload "$WORK/prog" "$WORK/perf-cache" "$WORK/rec.data"
expect_reports "$WORK/rec.data" "$WORK/perf-cache" "$WORK/exp"
prog_id=$(pa buildid-list -i prog/spin)

mkdir -p srv
# Under an emulator pa is on "another machine": the running vdso is not the
# recorded one's to take. The recording host's pa would have it from perf
# record's cache, as here.
[ -n "$PA_EMU" ] && cp -a "$WORK/perf-cache" "$WORK/pack-cache"
pa archive -i rec.data -o srv/rec.tar.zst --buildid-dir "$WORK/pack-cache" >/dev/null 2>pack.err ||
	fail "pa archive: $(cat pack.err)"
mv prog prog.away

# ---- the server ----------------------------------------------------------------
port=8002
if [ -z "${PA_DEBUGINFOD_NETNS:-}" ]; then
	need_python
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
fi
debuginfod -p "$port" -d "$WORK/db.sqlite" -F -Z .tar.zst=zstdcat -t 0 -g 0 -c 1 "$WORK/srv" \
	>server.log 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null' EXIT
url=http://127.0.0.1:$port
fetch() { # fetch URL OUT: 0 when the server answered 200
	if command -v curl >/dev/null 2>&1; then
		curl -sf --max-time 5 "$1" -o "$2"
	else
		python3 -c 'import sys, urllib.request; open(sys.argv[2], "wb").write(urllib.request.urlopen(sys.argv[1], timeout=5).read())' "$1" "$2" 2>/dev/null
	fi
}
# (up to a minute: a loaded machine may take a while to start and index)
ready=
start=$SECONDS
while [ $((SECONDS - start)) -lt 60 ]; do
	if ! kill -0 "$server" 2>/dev/null; then
		skip "debuginfod cannot run here: $(tail -n 3 server.log | tr '\n' ' ')"
	fi
	if fetch "$url/buildid/$prog_id/executable" probe.bin; then
		ready=1
		break
	fi
	sleep 0.2
done
[ -n "$ready" ] || { fail "debuginfod did not serve $prog_id within 60 s: $(tail -n 5 server.log)"; finish; }
CHECKS=$((CHECKS + 1))
cmp -s probe.bin "$WORK/pack-cache/${WORK#/}/prog/spin/$prog_id/elf" || fail "debuginfod served another file"

# ---- pa report from an empty cache ------------------------------------------------------
export DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$WORK/dcache DEBUGINFOD_TIMEOUT=10
same_reports "debuginfod, empty cache" rec.data "$WORK/empty" "$WORK/exp"
unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH
CHECKS=$((CHECKS + 1))
left=$(find "$WORK/empty" -mindepth 1 2>/dev/null | head -n 3)
[ -z "$left" ] || fail "pa report wrote the download into the build-id cache: $left"
CHECKS=$((CHECKS + 1))
[ -n "$(find "$WORK/dcache" -type f 2>/dev/null | head -n 1)" ] ||
	fail "the download is not in the debuginfod client's cache"
# without the server the program has no symbols: the names did come from it
pa report -i rec.data "${REPORT_FLAGS[@]}" --sort sym --buildid-dir "$WORK/empty2" >nosrv 2>/dev/null
CHECKS=$((CHECKS + 1))
grep -q 'user_work' nosrv && fail "user_work named without debuginfod?"

# ---- pa archive fetches what the cache and the path lack -------------------------------
(
	export DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$WORK/dcache2 DEBUGINFOD_TIMEOUT=10
	pa archive -i rec.data -o fetched.tar.zst --buildid-dir "$WORK/fresh" >/dev/null 2>fetch.err
	pa archive -i rec.data -o nodi.tar.zst --no-debuginfod --buildid-dir "$WORK/fresh2" >/dev/null 2>nodi.err
)
CHECKS=$((CHECKS + 1))
tar tf fetched.tar.zst >fetched.members 2>/dev/null
grep -qx "${WORK#/}/prog/spin/$prog_id/elf" fetched.members ||
	fail "pa archive did not fetch the program: $(cat fetch.err)"
CHECKS=$((CHECKS + 1))
grep -q "^pa: '$WORK/prog/spin' (build-id $prog_id): not packed: .*not found" nodi.err ||
	fail "--no-debuginfod: $(cat nodi.err)"
finish
