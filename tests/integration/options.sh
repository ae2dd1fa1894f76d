#!/usr/bin/env bash
# Long options as perf's parser takes them: a prefix of one option's name
# stands for it (--stdi, --comm for --comms; the names are pa's, so a
# prefix perf finds ambiguous may be pa's only one), --no- and a prefix of a
# flag's name for its negation (--no-chil); a prefix of several is an
# error naming two of them, exit 1, nothing printed on stdout; and where
# perf is here, it takes the same command lines and prints the same.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
# (a HOME of its own: perf and pa read the build-id cache and pa writes its
# symbol indexes there, which other tests running beside this one change)
private_home
cd "$WORK" || exit 1
f=$TESTDATA/le-file.data

# same_run WHAT -- FULL ARGS -- SHORT ARGS: the two print the same
same_run() {
	local what=$1
	shift 2
	local full=() short=()
	while [ "$1" != -- ]; do full+=("$1"); shift; done
	shift
	short=("$@")
	pa "${full[@]}" >full.out 2>full.err || fail "$what: pa ${full[*]} failed: $(cat full.err)"
	pa "${short[@]}" >short.out 2>short.err ||
		fail "$what: pa ${short[*]} failed: $(cat short.err)"
	[ -s full.out ] || fail "$what: no output"
	same "$what" full.out short.out
}

same_run "--stdi" -- report -i "$f" --stdio --no-children -g none --sort comm \
	-- report -i "$f" --stdi --no-children -g none --sort comm
same_run "--no-chil" -- report -i "$f" --stdio --no-children -g none --sort dso \
	-- report -i "$f" --stdio --no-chil -g none --sort dso
same_run "--comm" -- script -i "$f" --comms burn -- script -i "$f" --comm burn
same_run "--sor=" -- report -i "$f" --stdio --no-children --sort=sym \
	-- report -i "$f" --stdio --no-children --sor=sym

# a prefix of several: which two, no report
CHECKS=$((CHECKS + 1))
if pa report -i "$f" --s comm >amb.out 2>amb.err; then
	fail "--s: accepted"
else
	rc=$?
	[ "$rc" -eq 1 ] || fail "--s: exit $rc, not 1"
	grep -q "^pa: ambiguous option '--s' (--[a-z-]* or --[a-z-]*)$" amb.err ||
		fail "--s: not the ambiguity error: $(cat amb.err)"
	[ -s amb.out ] && fail "--s: printed a report"
fi
# an exact name wins over the longer ones it is a prefix of
CHECKS=$((CHECKS + 1))
pa report -i "$f" --stdio --no-children --sort comm >exact.out 2>&1 ||
	fail "--sort: refused as a prefix of a longer name: $(cat exact.out)"

if command -v perf >/dev/null 2>&1; then
	# (not --stdi: perf also has --stdio-color)
	for args in "--stdio --no-chil -g none --sort comm" "--stdio --no-children --sor=sym"; do
		# shellcheck disable=SC2086
		perf report -i "$f" $args 2>/dev/null | grep -v '^#' >perf.out
		# shellcheck disable=SC2086
		pa report -i "$f" $args 2>/dev/null | grep -v '^#' >pa.out
		same "perf and pa: report $args" perf.out pa.out
	done
else
	note "perf is not installed: the comparison with perf was not run"
fi
finish
