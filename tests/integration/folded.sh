#!/usr/bin/env bash
# pa folded vs `perf script | stackcollapse`, on recordings made now. The
# collapsing is done by stackcollapse.py (next to this script), an
# independent re-implementation of FlameGraph's stackcollapse-perf.pl rules
# that reads real perf script output; its pa-only options (idle, -U/-K,
# -d, --trim) apply pa folded's documented rules on perf script's text, so
# both sides stay independent. Every line must be identical.
#
# Compared: the default (today's stackcollapse-perf.pl: stacks weigh perf
# script's period column, idle stacks kept), --exclude-idle --count (bcc's
# profile: pid 0 dropped, sample counts), --period, --pid/--tid,
# -a/--kernel/--jit annotations, -U/-K, -d, --trim-frames, --max-stack,
# --event (stackcollapse keeps the first event by default), and the filters
# --comms/--pids/--tids/--cpu/--time/--dsos against perf script's own.
. "$(dirname "$0")/lib.sh"
need_perf
need_python

cd "$WORK" || exit 1
REF=$HERE/stackcollapse.py
command -v cc >/dev/null 2>&1 || skip "no C compiler"
cc -O1 -g -fno-omit-frame-pointer -o burn "$TESTDATA/src/burn.c" ||
	skip "cannot build burn.c"
cc -O1 -g -fno-omit-frame-pointer -pthread -o mt "$TESTDATA/src/mt.c" || skip "cannot build mt.c"
if ! perf record -q -g -o probe.data -- ./burn 5 >/dev/null 2>probe.err; then
	skip "perf record -g does not work here: $(head -n 2 probe.err | tr '\n' ' ')"
fi

cases=(
	"burn|-g -F 1999|./burn 300"
	"mt|-g -F 2999|./mt 300"
	"two|-g -F 1999 -e cpu-clock,task-clock|./mt 200"
	"pipe.pipe|-g -F 1999|./mt 200"
	"sysw|-g -F 499 -a|./mt 500"
)
record_cases "${cases[@]}"

FIELDS=comm,pid,tid,time,event,ip,sym,dso
# perf script's output for one recording, fields and options is made once
# and kept for every check that reads the same (most differ only in
# stackcollapse.py's and pa folded's options).
declare -A SCRIPTS=()
# check WHAT FILE "perf script options" "stackcollapse.py options" "pa folded options"
# (under a sanitizer or an emulator, case CASE only when in_subset CASE)
check() {
	local what=$1 f=$2 popts=$3 ropts=$4 aopts=$5 fields=$FIELDS
	[ -n "${NOSUB:-}" ] || in_subset $((CASE++)) || return 0
	# (pa folded weighs stacks by period unless told --count: the checks
	# of stackcollapse without the period column count samples)
	if [[ " $ropts " == *" --period "* ]]; then
		fields=$FIELDS,period
	else
		aopts="--count $aopts"
	fi
	ropts=${ropts/--period/}
	local key="$f|$fields|$popts"
	if [ -z "${SCRIPTS[$key]:-}" ]; then
		SCRIPTS[$key]=script.${#SCRIPTS[@]}.txt
		# shellcheck disable=SC2086
		perf script -i "$f" -F "$fields" $popts 2>/dev/null >"${SCRIPTS[$key]}"
	fi
	# shellcheck disable=SC2086
	python3 "$REF" $ropts "${SCRIPTS[$key]}" >exp 2>ref.err
	# shellcheck disable=SC2086
	if ! pa folded -i "$f" $aopts >got 2>got.err; then
		fail "$(basename "$f") $what: pa folded failed: $(head -n 2 got.err)"
		return
	fi
	[ -s exp ] || note "$(basename "$f") $what: nothing to compare"
	same "$(basename "$f") $what" exp got
}

# (the cases numbered along each recording, starting one further for the
# next: a diagonal, so that each check runs on some recording)
k=0
for f in "${files[@]}"; do
	base=$(basename "$f")
	CASE=$k k=$((k + 1))
	# The system-wide recording also holds whatever else runs here: keep
	# our processes and the idle task.
	sel_p="" sel_a=""
	if [[ $base == sysw.data ]]; then
		sel_p="--comms mt,swapper"
		sel_a="--comms mt,swapper"
	fi
	check "(default: period, idle kept)" "$f" "$sel_p" "--period" "$sel_a"
	check "--include-idle" "$f" "$sel_p" "" "--include-idle $sel_a"
	check "--exclude-idle --count" "$f" "$sel_p" "--exclude-idle" "--exclude-idle $sel_a"
	check "--period" "$f" "$sel_p" "--period" "--include-idle --period $sel_a"
	check "--pid" "$f" "$sel_p" "--pid" "--include-idle --pid $sel_a"
	check "--tid" "$f" "$sel_p" "--tid" "--include-idle --tid $sel_a"
	check "-a" "$f" "$sel_p" "--all" "--include-idle -a $sel_a"
	check "--kernel" "$f" "$sel_p" "--kernel" "--include-idle --kernel $sel_a"
	check "-U" "$f" "$sel_p" "--user-only" "--include-idle -U $sel_a"
	check "-K" "$f" "$sel_p" "--kernel-only" "--include-idle -K $sel_a"
	check "-d" "$f" "$sel_p" "--delimiter" "--include-idle -d $sel_a"
	check "-d -a --tid" "$f" "$sel_p" "--delimiter --all --tid" "--include-idle -d -a --tid $sel_a"
	check "--trim-frames" "$f" "$sel_p" "--trim ^(leaf|spin)$" "--include-idle --trim-frames ^(leaf|spin)$ $sel_a"
	# the kernel frame most often sampled, trimmed by its bare name under -a
	# (where it is printed NAME_[k]). Only a name that is a plain symbol
	# (letters, digits, '_', '.') is taken: the regex is then the name
	# itself (its dots escaped), not "[[kernel.kallsyms]]" (kernel frames
	# without symbols), whose brackets would make it a character class.
	# Equal counts: any of them does.
	# (one case of the subset: the name, the check and the leaf test)
	kleaf="" kcase=0
	# shellcheck disable=SC2086
	in_subset $((CASE++)) && kcase=1 && kleaf=$(pa folded -i "$f" -a --include-idle $sel_a 2>/dev/null |
		awk '{w = $NF; sub(/ [0-9]+$/, ""); n = split($0, fr, ";")
		      if (fr[n] ~ /^[A-Za-z_][A-Za-z0-9_.]*_\[k\]$/) c[substr(fr[n], 1, length(fr[n]) - 4)] += w}
		     END {for (k in c) if (c[k] > best) {best = c[k]; name = k}; print name}')
	if [ -n "$kleaf" ]; then
		kre="^${kleaf//./\\.}\$"
		NOSUB=1 check "-a --trim-frames $kre" "$f" "$sel_p" "--all --trim $kre" \
			"--include-idle -a --trim-frames $kre $sel_a"
		CHECKS=$((CHECKS + 1))
		# the leaf is the last frame: after a ';' or at the line's start,
		# so that a caller whose name ends in this one's does not count
		awk -v k="${kleaf}_[k]" '{sub(/ [0-9]+$/, ""); n = split($0, fr, ";"); if (fr[n] == k) bad = 1}
			END {exit !bad}' got &&
			fail "$(basename "$f"): -a --trim-frames $kre left $kleaf as a leaf"
	elif [ $kcase = 1 ]; then
		note "$(basename "$f"): no kernel leaf frame with a symbol name to trim"
	fi
	check "--max-stack 3" "$f" "--max-stack 3 $sel_p" "" "--include-idle --max-stack 3 $sel_a"
	check "--comms" "$f" "--comms burn,mt" "" "--include-idle --comms burn,mt"
	# (libc may have no sample of its own, burn's clock_gettime goes to the
	# vdso: check() then notes "nothing to compare"; the programs' own
	# binaries always have samples)
	check "--dsos" "$f" "--dsos libc.so.6 $sel_p" "" "--include-idle --dsos libc.so.6 $sel_a"
	check "--dsos burn,mt" "$f" "--dsos burn,mt $sel_p" "" "--include-idle --dsos burn,mt $sel_a"
	# a thread and its process, from the recording itself
	# shellcheck disable=SC2086
	tid=$(perf script -i "$f" -F comm,pid,tid $sel_p 2>/dev/null | awk '$1 == "mt" || $1 == "burn" {print $2; exit}')
	if [ -n "$tid" ]; then
		pid=${tid%%/*} tid=${tid##*/}
		check "--pids" "$f" "--pid $pid" "" "--include-idle --pids $pid"
		check "--tids" "$f" "--tid $tid" "" "--include-idle --tids $tid"
	else
		fail "$base: perf script shows no sample of burn or mt"
	fi
	# the middle of the recording, by perf script's own clock
	# shellcheck disable=SC2086
	span=$(perf script -i "$f" -F time -G $sel_p 2>/dev/null | tr -d ' :' |
		awk '/^[0-9]+\.[0-9]+$/ {if (!n++) a = $1; b = $1} END {if (n) printf "%.6f,%.6f", a + (b - a) / 4, a + (b - a) / 2}')
	[ -n "$span" ] && check "--time $span" "$f" "--time $span $sel_p" "" "--include-idle --time $span $sel_a"
	if [[ $base == sysw.data ]]; then
		# CPUs our program ran on, from the recording (not a fixed number:
		# "--cpu 1" compared nothing on a one-CPU machine): the CPU of
		# its first sample, and all of them at once
		cpus=$(perf script -i "$f" -F comm,cpu --comms mt 2>/dev/null |
			awk 'match($0, /\[[0-9]+\]/) {c = substr($0, RSTART + 1, RLENGTH - 2) + 0
			      if (!(c in s)) {s[c]; l = l (l == "" ? "" : ",") c}} END {print l}')
		if [ -n "$cpus" ]; then
			check "--cpu ${cpus%%,*}" "$f" "--cpu ${cpus%%,*} $sel_p" "" "--include-idle --cpu ${cpus%%,*} $sel_a"
			[[ $cpus == *,* ]] && check "--cpu $cpus" "$f" "--cpu $cpus $sel_p" "" "--include-idle --cpu $cpus $sel_a"
		else
			fail "$base: perf script shows no CPU of an mt sample"
		fi
	fi
	if [[ $base == two.data ]]; then
		# the second event, by the name perf script prints
		ev=$(perf script -i "$f" -F event 2>/dev/null | tr -d ' ' | sed 's/:$//' | awk '!seen[$0]++' | sed -n 2p)
		if [ -n "$ev" ]; then
			check "--event $ev" "$f" "" "--event-filter $ev" "--include-idle --event $ev"
		else
			note "$base: only one of its events has samples; --event not compared"
		fi
	fi
done

# A sample perf gives tid -1 (a thread sampled on its way out, after its pid
# was released; rare in a recording, met once by the system-wide --pids
# check): mt's recording with one sample's tid made -1, so that every run
# has one. (Its record is "header, ip, pid, tid": the sample type of a
# one-event -g recording; perf script showing the -1 proves the edit.)
if [ -s "$WORK/mt.data" ]; then
	cp "$WORK/mt.data" tidm1.data
	off=$(python3 "$HERE/perfdata.py" records tidm1.data | awk '$2 == 9 && ++n == 50 {print $1}')
	[ -n "$off" ] && python3 "$HERE/perfdata.py" put tidm1.data $((off + 20)) 4 4294967295
	mtpid=$(perf script -i tidm1.data -F pid,tid 2>/dev/null | awk '$1 ~ /\/-1$/ {sub(/\/.*/, "", $1); print $1; exit}')
	if [ -n "$mtpid" ]; then
		NOSUB=1 check "tid -1, --pids" "$WORK/tidm1.data" "--pid $mtpid" "" "--include-idle --pids $mtpid"
		NOSUB=1 check "tid -1, --tid" "$WORK/tidm1.data" "" "--tid" "--include-idle --tid"
		grep -q '^:-1-[0-9]*/-1;' got || fail "tidm1.data: no stack of the tid -1 sample in pa folded --tid"
	else
		fail "tidm1.data: perf script shows no sample of tid -1 after the edit"
	fi
fi
finish
