#!/usr/bin/env bash
# Branch-stack recordings (perf record -b): perf report's branch mode, where
# each branch entry of a sample is a hist entry of period 1, with the branch
# sort keys (dso_from/to, symbol_from/to, addr_from/to, mispredict, in_tx,
# abort, cycles, srcline_from/to), its quirks (comparators that say only
# "differ", the mispredict cell that repeats the row before, statistics
# counted by the branch that made each entry, source lines computed only
# when a comparison reaches them, "(null)" where none did) and its "Branch
# Statistics" trailer. (perf 6.1 dies on srcline_from after symbol_from or
# symbol_to: such orders are not compared.) No PMU
# here records branches: testdata/src/gen-branch.c writes the recordings,
# little- and big-endian, with and without hw_index.
#  1. the committed fixtures (testdata/branch, made by make-branch.sh) are
#     what the generator writes from their spec;
#  2. pa on each of them equals perf 6.1's golden report for every option
#     set of golden/branch/optsets (perf read all four alike);
#     and pa script's brstack, brstacksym and brstackoff fields equal
#     perf script's golden text for golden/branch/script-optsets;
#  3. with perf here: pa equals perf on recordings generated now from the
#     programs built here and other seeds, for more key orders, and pa
#     script equals perf script there (with call chains, and without the
#     programs' symbols: brstackoff's offsets, brstacksym's [unknown]);
#  4. -b without branch stacks and a branch key outside branch mode are
#     refused (usage errors, exit 1), as perf refuses them; pa script's
#     brstackinsn (not printed yet) is refused, not left out silently.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
private_home
cd "$WORK" || exit 1
B=$TESTDATA/branch
GOLD=$TESTDATA/golden/branch
command -v cc >/dev/null 2>&1 || skip "no C compiler to build the generator"
cc -O1 -o gen-branch "$TESTDATA/src/gen-branch.c" || exit 1

# 1. the generator writes the committed fixtures
for v in le be le-hw be-hw; do
	opts=()
	case $v in be*) opts+=(--be) ;; esac
	case $v in *hw) opts+=(--hw-index) ;; esac
	./gen-branch "${opts[@]}" "$B/branch.spec" "$v.data" || exit 1
	CHECKS=$((CHECKS + 1))
	cmp -s "$v.data" "$B/$v.data" || fail "gen-branch ${opts[*]}: not the committed $v.data"
done

# 2. perf's golden answers (each option set on one of the four files under
# the reduced runs, the diagonal): goldens OPTSETS PREFIX PA-COMMAND...
goldens() {
	local sets=$1 prefix=$2 i=0 o v
	shift 2
	while IFS= read -r o; do
		i=$((i + 1))
		CASE=$i
		for v in le be le-hw be-hw; do
			in_subset $((CASE++)) || continue
			# shellcheck disable=SC2086 # options split on purpose
			pa "$@" -i "$B/$v.data" --symfs "$B/symfs" $o >got.txt 2>got.err
			same "$v.data $1 '$o': perf's text" "$GOLD/$prefix-$i.txt" got.txt
		done
	done <"$GOLD/$sets"
}
goldens optsets report report --stdio --no-pager
goldens script-optsets script script

# 4. refusals
pa report -i "$TESTDATA/le-file.data" --stdio -b >/dev/null 2>err.txt
st=$?
CHECKS=$((CHECKS + 1))
[ $st = 1 ] && grep -q "no branch stacks" err.txt || fail "-b without branch stacks: exit $st, $(cat err.txt)"
pa report -i "$TESTDATA/le-file.data" --stdio --sort dso_from >/dev/null 2>err.txt
st=$?
CHECKS=$((CHECKS + 1))
[ $st = 1 ] && grep -q "dso_from" err.txt || fail "dso_from outside branch mode: exit $st, $(cat err.txt)"

pa script -i "$B/le.data" --symfs "$B/symfs" -F ip,brstackinsn >out.txt 2>err.txt
st=$?
CHECKS=$((CHECKS + 1))
[ $st = 1 ] && ! [ -s out.txt ] && grep -q "brstackinsn" err.txt ||
	fail "pa script -F brstackinsn (not printed yet) must say so: exit $st, $(cat err.txt)"

# 3. live, against perf
if ! command -v perf >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
	note "no perf or python3: the live comparison is left out"
	finish
fi
cc -O1 -g -fno-omit-frame-pointer -o burn "$TESTDATA/src/burn.c" &&
	cc -O1 -g -fPIC -shared -o libbr.so "$TESTDATA/src/branch-lib.c" || exit 1
keys=("" "--sort dso_to,mispredict,cycles" "--sort in_tx,abort,mispredict"
	"--sort comm,addr_to" "--sort sym,abort" "--sort dso_from,in_tx" "--sort mispredict,comm"
	"--sort cycles,pid" "-n --sort dso,cycles" "--sort srcline_from,srcline_to"
	"--sort srcline_to,in_tx,srcline_from" "--sort dso_to -F overhead,srcline_from,dso_from"
	"--sort comm,pid,dso_from,dso_to,mispredict,in_tx,abort,cycles -F overhead,sample,comm,pid,dso_from,dso_to,mispredict,in_tx,abort,cycles")
for seed in 1 2 3; do
	python3 "$TESTDATA/make-branch-spec.py" "$PWD/burn" "$PWD/libbr.so" "$seed" $((seed * 150)) \
		>live.spec || exit 1
	opts=()
	[ $seed = 2 ] && opts+=(--be)
	[ $seed = 3 ] && opts+=(--hw-index)
	./gen-branch "${opts[@]}" live.spec live.data || exit 1
	CASE=$seed
	for o in "${keys[@]}"; do
		in_subset $((CASE++)) || continue
		# (perf 6.1 dies on an explicit sort naming "symbol" in this
		# mode: it adds ipc_lbr; such orders are left to the goldens)
		# shellcheck disable=SC2086
		perf report -i live.data --stdio $o 2>/dev/null | sed '/^# (Tip/d' >perf.txt
		if [ "${PIPESTATUS[0]}" != 0 ] || ! [ -s perf.txt ]; then
			note "perf report $o failed on seed $seed: not compared"
			continue
		fi
		# shellcheck disable=SC2086
		pa report -i live.data --stdio --no-pager $o >got.txt 2>got.err
		same "seed $seed '$o': pa is perf" perf.txt got.txt
	done
	# pa script: with call chains on seed 1, without the programs'
	# symbols (an empty --symfs) on seed 2
	chain=()
	[ $seed = 1 ] && chain+=(--callchain) && ./gen-branch "${opts[@]}" "${chain[@]}" live.spec live.data
	sym=()
	[ $seed = 2 ] && mkdir -p empty && sym+=(--symfs empty)
	for o in "-F +brstack" "-F ip,sym,brstacksym,dso" "-F ip,dso,brstackoff" "-F tid,brstackoff"; do
		in_subset $((CASE++)) || continue
		# shellcheck disable=SC2086
		perf script -i live.data "${sym[@]}" $o >perf.txt 2>/dev/null
		# shellcheck disable=SC2086
		pa script -i live.data "${sym[@]}" $o >got.txt 2>got.err
		same "seed $seed script ${chain[*]} ${sym[*]} '$o': pa is perf" perf.txt got.txt
	done
done
finish
