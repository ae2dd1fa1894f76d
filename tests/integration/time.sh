#!/usr/bin/env bash
# --time as perf reads it, on fixtures that record their first and last
# sample times: percentages of the recording's time (10%/2, several
# slices, 0%-10% ranges, 50%), absolute start,stop (either side open),
# several absolute ranges apart by spaces, and the "(time slices: ...)"
# perf adds to the header. Compared with the golden copies of perf 6.1's
# reports (testdata/golden/time), and with perf when it is here. Strings
# perf cannot read, and percentages of a file without sample times, are
# usage errors (perf says "Invalid time string" and goes on unfiltered).
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
private_home
cd "$WORK" || exit 1
GOLD=$TESTDATA/golden/time

# golden name, file, --time
cases=(
	"file-slice le-file.data 10%/2"
	"file-slices le-file.data 20%/1,20%/4"
	"file-ranges le-file.data 0%-30%,60%-90%"
	"file-half le-file.data 50%"
	"file-abs le-file.data 1034.23,1034.25"
	"file-from le-file.data 1034.240000,"
	"file-to le-file.data ,1034.24"
	"file-abs2 le-file.data 1034.22,1034.23 1034.25,1034.255"
	"two-slice le-two-events.data 25%/3"
	"two-ranges le-two-events.data 10%-40%"
)
for c in "${cases[@]}"; do
	read -r name file t <<<"$c"
	if ! pa report -i "$TESTDATA/$file" --stdio --no-children -g none --sort comm,dso \
		--time "$t" >"$name.pa" 2>"$name.err"; then
		fail "$name: pa report --time '$t' failed: $(head -n 2 "$name.err")"
		continue
	fi
	same "$name: --time '$t' (golden)" "$GOLD/$name.txt" "$name.pa"
	if command -v perf >/dev/null 2>&1; then
		perf report -i "$TESTDATA/$file" --stdio --no-children -g none --sort comm,dso \
			--time "$t" 2>/dev/null | grep -v '^# (Tip' >"$name.perf"
		same "$name: --time '$t' (perf)" "$name.perf" "$name.pa"
	fi
done

# pa script reads --time the same way (the filter is shared).
if pa script -i "$TESTDATA/le-file.data" --time 0%-20%,60%-70% -F comm,tid,time,ip \
	>script.pa 2>script.err; then
	same "script --time 0%-20%,60%-70% (golden)" "$GOLD/script-ranges.txt" script.pa
	if command -v perf >/dev/null 2>&1; then
		perf script -i "$TESTDATA/le-file.data" --time 0%-20%,60%-70% -F comm,tid,time,ip \
			>script.perf 2>/dev/null
		same "script --time 0%-20%,60%-70% (perf)" script.perf script.pa
	fi
else
	fail "pa script --time failed: $(head -n 2 script.err)"
fi

# The slices split the samples: each 25% slice has some, and the four
# add up to the whole (a sample at a slice's end is counted once).
total=0
for n in 1 2 3 4; do
	k=$(pa report -i "$TESTDATA/le-file.data" --stdio -n --no-children -g none --sort comm \
		--time "25%/$n" 2>/dev/null | awk '/^# Samples:/ {print $3}')
	CHECKS=$((CHECKS + 1))
	[ -n "$k" ] && [ "$k" -gt 0 ] || fail "25%/$n: no sample in the slice"
	total=$((total + ${k:-0}))
done
all=$(pa report -i "$TESTDATA/le-file.data" --stdio --no-children -g none --sort comm 2>/dev/null |
	awk '/^# Samples:/ {print $3}')
CHECKS=$((CHECKS + 1))
[ "$total" = "$all" ] || fail "the four 25% slices hold $total samples, the file $all"

# Usage errors: one line naming the string, exit 1, nothing on stdout.
for bad in "10%/0" "101%" "0%-10%x,5" "1034.3,1034.2" "1,2 2,3" "5" "10%,20%"; do
	pa report -i "$TESTDATA/le-file.data" --stdio --time "$bad" >out 2>err
	st=$?
	CHECKS=$((CHECKS + 1))
	[ $st -eq 1 ] && [ ! -s out ] && [ "$(wc -l <err)" = 1 ] && grep -q -- "--time" err ||
		fail "--time '$bad': want exit 1 and a one-line error (status $st: $(head -n 1 err))"
done
# A pipe has no header features, so no sample times to take percentages of.
pa report -i "$TESTDATA/le-pipe.data" --stdio --time 10%/2 >out 2>err
st=$?
CHECKS=$((CHECKS + 1))
[ $st -eq 1 ] && [ ! -s out ] && grep -q "no first and last sample times" err ||
	fail "le-pipe.data (no sample times) --time 10%/2: status $st: $(head -n 1 err)"
# A big-endian file's sample times are read swapped (perf 6.1 on this
# host reads them as 0 and refuses): its slice is the little-endian
# twin's, whose samples it holds.
pa report -i "$TESTDATA/be-file.data" --stdio --no-children -g none --sort comm,dso \
	--time 10%/2 >be.pa 2>be.err
same "be-file.data --time 10%/2 (the le twin's golden)" "$GOLD/file-slice.txt" be.pa
finish
