#!/usr/bin/env bash
# The build-id cache under crashes and races, at the command level:
#  - `pa buildid-cache --add` and `pa archive --unpack` killed with SIGKILL at
#    random moments (seeded) leave nothing half-written under a final name:
#    every cached file is byte-identical to its source, every .build-id link
#    resolves, only ".tmp-*" names may be left behind, and the next add or
#    unpack completes the cache;
#  - two `pa archive --unpack` and a `pa buildid-cache --add` at once, on one
#    cache, leave it consistent and complete (and readable by perf, if here).
# The ELF files are made here with the host's cc (pa reads any ELF, so
# emulated runs use them too); a 24 MB section makes each write take long
# enough to be interrupted.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
command -v cc >/dev/null 2>&1 || skip "no C compiler"
command -v objcopy >/dev/null 2>&1 || skip "no objcopy"
command -v tar >/dev/null 2>&1 || skip "no tar"

cd "$WORK" || exit 1
RANDOM=${PA_CRASH_SEED:-7}

# big NAME N: an ELF with its own build-id and a 24 MB section
big() {
	printf 'int main(void) { return %d; }\n' "$2" >"$1.c"
	cc -o "$1.small" "$1.c" -Wl,--build-id=sha1 || return 1
	head -c $((24 << 20)) /dev/zero | tr '\0' "\\$(printf '%03o' "$2")" >"$1.pad"
	objcopy --add-section .pa_pad="$1.pad" --set-section-flags .pa_pad=readonly "$1.small" "$1" || return 1
	rm -f "$1.c" "$1.small" "$1.pad"
}
mkdir -p src
for n in 1 2 3; do
	big "$WORK/src/big$n" "$n" || skip "cannot build the test ELF files"
done
# A perf-style tarball of big1 and big2 (a cache, tarred: what perf archive makes)
pa buildid-cache --buildid-dir "$WORK/tarcache" --add "$WORK/src/big1,$WORK/src/big2" ||
	fail "cannot fill the cache to tar"
(cd tarcache && find . -mindepth 1 ! -type d | sed 's|^\./||' | sort >../tar.list &&
	tar -cf ../two.tar -T ../tar.list) || fail "cannot make the tarball"

idof() { pa buildid-list -i "$1" 2>/dev/null; }

# check CACHE WHAT: the invariants, whatever happened before
check() {
	local c=$1 what=$2 f want id src
	[ -d "$c" ] || return 0
	CHECKS=$((CHECKS + 1))
	# regular files under final names: complete copies of their source
	while IFS= read -r f; do
		id=$(basename "$(dirname "$f")")
		src=
		for want in big1 big2 big3; do
			[ "$(idof "src/$want")" = "$id" ] && src=src/$want
		done
		if [ -z "$src" ]; then
			fail "$what: $f is under an id no source has"
		elif ! cmp -s "$f" "$src"; then
			fail "$what: $f differs from $src ($(stat -c %s "$f") of $(stat -c %s "$src") bytes)"
		fi
	done < <(find "$c" -type f -name elf ! -path '*/.tmp-*')
	# nothing else but temporaries
	f=$(find "$c" -mindepth 1 ! -type d ! -name elf ! -path '*/.tmp-*' ! -path '*/.build-id/*' -print -quit)
	[ -z "$f" ] || fail "$what: unexpected file $f"
	# links resolve
	f=$(find "$c/.build-id" -xtype l ! -name '.tmp-*' -print -quit 2>/dev/null)
	[ -z "$f" ] || fail "$what: dangling link $f -> $(readlink "$f")"
}

# ---- SIGKILL mid-write ------------------------------------------------------------
# pa itself in the background (not the shell function pa, whose subshell would
# take the SIGKILL and leave pa running on): $! is pa, or its emulator.
# shellcheck disable=SC2086 # PA_EMU is a command prefix
pa_bg() { $PA_EMU "$PA_BIN" "$@" >/dev/null 2>&1 & }
kills=${PA_CRASH_KILLS:-16}
midwrite=0
for i in $(seq "$kills"); do
	c=$WORK/kill$i
	# a delay of 0 to 80 ms, seeded (an add of both files takes ~50 ms here)
	d=$((RANDOM % 80))
	if [ $((i % 2)) = 0 ]; then
		what="unpack killed after ${d} ms"
		pa_bg archive --unpack two.tar --buildid-dir "$c"
	else
		what="add killed after ${d} ms"
		pa_bg buildid-cache --buildid-dir "$c" --add "$WORK/src/big1,$WORK/src/big2"
	fi
	p=$!
	sleep "$(printf '0.%03d' "$d")"
	kill -9 "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	[ -n "$(find "$c" -name '.tmp-*' -print -quit 2>/dev/null)" ] && midwrite=$((midwrite + 1))
	check "$c" "$what"
	# the next run completes the cache
	if [ $((i % 2)) = 0 ]; then
		pa archive --unpack two.tar --buildid-dir "$c" >/dev/null 2>"$c.err" ||
			fail "$what: the unpack after it failed: $(head -n 2 "$c.err")"
	else
		pa buildid-cache --buildid-dir "$c" --add "$WORK/src/big1,$WORK/src/big2" 2>"$c.err" ||
			fail "$what: the add after it failed: $(head -n 2 "$c.err")"
	fi
	check "$c" "$what, then completed"
	CHECKS=$((CHECKS + 1))
	n=$(pa buildid-cache --buildid-dir "$c" --list 2>/dev/null | wc -l)
	[ "$n" -eq 2 ] || fail "$what, then completed: --list shows $n entries, want 2"
	rm -rf "$c"
done

note "$midwrite of $kills kills left temporaries behind (interrupted mid-write)"

# ---- two unpacks and an add at once ------------------------------------------------
for round in 1 2 3; do
	c=$WORK/race$round
	pa archive --unpack two.tar --buildid-dir "$c" >/dev/null 2>"race$round.u1" &
	p1=$!
	pa archive --unpack two.tar --buildid-dir "$c" >/dev/null 2>"race$round.u2" &
	p2=$!
	pa buildid-cache --buildid-dir "$c" --add "$WORK/src/big3,$WORK/src/big1" 2>"race$round.a" &
	p3=$!
	for p in $p1 $p2 $p3; do
		CHECKS=$((CHECKS + 1))
		wait "$p" || fail "race $round: a racer failed: $(cat "race$round".* | head -n 3)"
	done
	check "$c" "race $round"
	pa buildid-cache --buildid-dir "$c" --list 2>/dev/null | awk '{print $1}' | sort >"race$round.list"
	for n in 1 2 3; do idof "src/big$n"; done | sort >"race$round.want"
	same "race $round: --list" "race$round.want" "race$round.list"
	CHECKS=$((CHECKS + 1))
	[ -z "$(find "$c" -name '.tmp-*')" ] || fail "race $round: temporaries left: $(find "$c" -name '.tmp-*' | head -n 3)"
	if command -v perf >/dev/null 2>&1; then
		perf --buildid-dir "$c" buildid-cache --list 2>/dev/null | awk '{print $1}' | sort >"race$round.perf"
		same "race $round: perf buildid-cache --list" "race$round.want" "race$round.perf"
	fi
done

finish
