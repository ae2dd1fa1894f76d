#!/usr/bin/env bash
# buildid-list --with-hits on a recording whose DSO hits depend on the
# order of its records (testdata/make-hits.py): a sample a round before
# its library's MMAP2, samples and MMAP2s of equal time either way round,
# a thread whose first sample in time (not in the file) decides its maps,
# a library mapped over another between two samples of one thread.
# pa marks hits in a pass that orders samples only against such records
# (session/order.c, struct qhit); its list must be perf's, compared with
# perf when it is here and always with the golden copy of perf 6.1's
# answer (testdata/golden/hits), and with the DSOs pa report finds
# samples in: a flat report sums in the same pass, a report sorted by
# symbol first orders every sample.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
need_python
private_home
cd "$WORK" || exit 1
GOLD=$TESTDATA/golden/hits

python3 "$TESTDATA/make-hits.py" hits.data || { fail "generator failed"; finish; }
for opt in --with-hits ""; do
	tag=list${opt:+-hits}
	if ! pa buildid-list -i hits.data $opt >"$tag.pa" 2>"$tag.err"; then
		fail "pa buildid-list $opt failed: $(head -n 2 "$tag.err")"
		continue
	fi
	same "buildid-list $opt (golden)" "$GOLD/buildid-list.txt" "$tag.pa"
	if command -v perf >/dev/null 2>&1; then
		perf buildid-list -i hits.data $opt >"$tag.perf" 2>/dev/null
		same "buildid-list $opt (perf)" "$tag.perf" "$tag.pa"
	fi
done
# The recording must test the order: the golden list names four of the
# seven libraries, and not the ones the file's order alone would hit.
CHECKS=$((CHECKS + 1))
grep -c '/opt/hits/lib[acdg]\.so$' list-hits.pa | grep -qx 4 &&
	! grep -q '/opt/hits/lib[bef]\.so$' list-hits.pa ||
	fail "hits: expected liba, libc, libd and libg alone: $(tr '\n' ' ' <list-hits.pa)"

# A flat report sums its samples in the same pass (pa_session_set_summing):
# its rows are perf's, with the golden copy of perf 6.1's too.
if pa report -i hits.data --stdio --no-children --sort pid,dso >rows.raw 2>rows.err; then
	grep -v '^#' rows.raw | grep -v '^$' >rows.pa
	same "report --sort pid,dso (golden)" "$GOLD/report-pid-dso.txt" rows.pa
	if command -v perf >/dev/null 2>&1; then
		perf report -i hits.data --stdio --no-children --sort pid,dso 2>/dev/null |
			grep -v '^#' | grep -v '^$' >rows.perf
		same "report --sort pid,dso (perf)" rows.perf rows.pa
	fi
else
	fail "pa report --sort pid,dso failed: $(head -n 2 rows.err)"
fi

# The DSOs with samples of a report that orders every sample (symbols
# before DSOs in the sort keys: no summing) are the same ones.
if pa report -i hits.data --stdio --no-children --sort sym,dso >rep 2>rep.err; then
	grep -o 'lib[a-g]\.so' rep | sort >rep.dsos
	grep -o 'lib[a-g]\.so' list-hits.pa | sort >list.dsos
	[ -s rep.dsos ] || fail "pa report names none of the libraries"
	same "report's DSOs with samples" rep.dsos list.dsos
else
	fail "pa report failed: $(head -n 2 rep.err)"
fi

# An entry's -v address is that of its first sample in time: a flat report
# that sums a round's samples in the file's order makes its rows in the
# order of each bucket's earliest sample (firstip_gen.py). Where the event
# has no sample_id_all, perf report and script read the whole file in its
# order (perf's ordering_requires_timestamps): pa too. Golden copies of
# perf 6.1's outputs: testdata/make-generated-golden.sh (-v's DSO column
# is as wide as the program's path, which differs here: compared with
# runs of blanks and dots squeezed).
cp "$TESTDATA/inline/symfs/tmp/pa-inline/prog" prog || exit 1
squeeze() { sed -E 's/  +/ /g; s/\.\.+/../g'; }
for ids in "" no-ids; do
	tag=firstip${ids:+-$ids}
	# shellcheck disable=SC2086
	python3 "$HERE/firstip_gen.py" "$tag.data" "$WORK/prog" $ids || {
		fail "firstip_gen.py $ids failed"
		continue
	}
	k=0
	while IFS= read -r o; do # (the option sets the golden copies were made with)
		k=$((k + 1))
		# shellcheck disable=SC2206
		[ "$o" = script ] && cmd=(script -i "$tag.data") || cmd=(report -i "$tag.data" --stdio $o)
		pa "${cmd[@]}" </dev/null 2>/dev/null | sed "s#$WORK/##g" | grep -v '^# (Tip' >"$tag-$k.pa"
		squeeze <"$GOLD/$tag-$k.txt" >"$tag-$k.gold"
		squeeze <"$tag-$k.pa" >"$tag-$k.sq"
		same "$tag: ${cmd[*]} (golden)" "$tag-$k.gold" "$tag-$k.sq"
		if command -v perf >/dev/null 2>&1 && [ -z "$PA_EMU" ]; then
			perf "${cmd[@]}" </dev/null 2>/dev/null | sed "s#$WORK/##g" | grep -v '^# (Tip' >"$tag-$k.perf"
			same "$tag: ${cmd[*]} (perf)" "$tag-$k.perf" "$tag-$k.pa"
		fi
	done <"$GOLD/optsets"
done
finish
