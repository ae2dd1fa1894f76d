#!/usr/bin/env bash
# Hist entries that perf splits: recordings (testdata/make-split.py) whose
# unresolved addresses lie 2^63 and more apart, where perf's symbol key is
# no order, its entry tree changes shape under a key and a later sample of
# the key misses the entry it made before: perf report --sort sym prints
# the key twice. pa must print what perf prints, split rows and their order
# included, with and without call graphs and --children, and where a
# collapse key (comm) merges the split entries again.
#
# Each output is compared with perf's (when perf is here) and with the
# golden copy of perf 6.1's output in testdata/golden/split, so that the
# behaviour is tested where perf is absent too. The fixtures must split:
# the test checks that the golden --sort sym output holds more rows than
# distinct addresses.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
need_python
cd "$WORK" || exit 1
GOLD=$TESTDATA/golden/split
SEED=4

optsets=(
	"--no-children -g none --sort sym"
	"--children --sort sym"
	"--children -g none --sort sym"
	"--no-children -g caller --sort sym"
	"--children -g folded --sort sym"
	"--no-children -g none --sort sym,cpu"
	"--no-children -g none --sort sym,comm"
	"--no-children -g none -n --sort pid,sym"
)
have_perf=0
command -v perf >/dev/null 2>&1 && have_perf=1
[ $have_perf = 1 ] || note "no perf here: compared with the golden outputs only"

for mode in flat chains; do
	python3 "$TESTDATA/make-split.py" "$mode.data" "$mode" "$SEED" || {
		fail "$mode: generator failed"
		continue
	}
	i=0
	for o in "${optsets[@]}"; do
		i=$((i + 1))
		gold=$GOLD/$mode-$i.txt
		# shellcheck disable=SC2086
		if ! pa report -i "$mode.data" --stdio $o >got 2>got.err; then
			fail "$mode '$o': pa failed: $(head -n 2 got.err)"
			continue
		fi
		if [ -f "$gold" ]; then
			same "$mode: report $o (golden)" "$gold" got
		else
			fail "$mode '$o': no golden output $gold"
		fi
		if [ $have_perf = 1 ]; then
			# shellcheck disable=SC2086
			perf report -i "$mode.data" --stdio $o 2>/dev/null | grep -v '^# (Tip' >exp
			CHECKS=$((CHECKS + 1))
			[ -s exp ] || fail "$mode '$o': perf printed nothing"
			same_graphs "$mode: report $o (perf)" exp got
		fi
	done
	# the case is there: a key printed twice (rows > distinct addresses)
	CHECKS=$((CHECKS + 1))
	rows=$(grep -c '\[\.\] 0x' "$GOLD/$mode-1.txt")
	keys=$(grep -o '\[\.\] 0x[0-9a-f]*' "$GOLD/$mode-1.txt" | sort -u | wc -l)
	[ "$rows" -gt "$keys" ] || fail "$mode: the fixture splits no entry ($rows rows, $keys keys)"
done
finish
