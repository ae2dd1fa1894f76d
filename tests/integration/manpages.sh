#!/usr/bin/env bash
# The man pages in docs/man against the pa under test:
#  - every command `pa --help` lists has docs/man/pa-CMD.1, and pa.1 names it;
#    no page is left for a command that is gone;
#  - every option `pa CMD --help` prints (long and short) is documented in the
#    page's OPTIONS section, as a .TP tag, in roff's escaped form (\-\-name);
#    every option a tag documents is one `pa CMD --help` prints;
#  - every page has the usual sections, and its EXIT STATUS lists the exit
#    statuses of cli/cli.h;
#  - every page renders with `groff -man -ww` without a warning, and no
#    rendered line is wider than 80 columns.
# Without groff the rendering checks cannot run: the test then reports the
# other checks' failures, or else skips (exit 77), never a pass.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

ROOT=$(cd "$HERE/../.." && pwd)
MANDIR=$ROOT/docs/man
[ -d "$MANDIR" ] || { fail "no man page directory $MANDIR"; finish; }
HAVE_GROFF=1
command -v groff >/dev/null 2>&1 || HAVE_GROFF=0

# roff NAME: NAME with every '-' written '\-', as the pages must write
# options and command names.
roff() { printf '%s' "$1" | sed 's/-/\\-/g'; }
# ere TEXT: TEXT with ERE metacharacters escaped (options are [A-Za-z0-9-]).
ere() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'; }
# The lines of section NAME of a page (between ".SH NAME" and the next .SH).
section() { awk -v s="$2" '/^\.SH / {f = ($0 == ".SH " s || $0 == ".SH \"" s "\"")} f && !/^\.SH /' "$1"; }
# stdin without font changes (\fB, \f(CW, \f[...]) and \&, which may sit
# right before or after an option.
plain() { sed -E 's/\\f(\[[^]]*\]|\(..|.)//g; s/\\&//g'; }
# The tag lines of the .TP paragraphs on stdin.
tags() { awk 'tp {print; tp = 0} /^\.TP/ {tp = 1}'; }
# has_opt FILE ROFF_OPTION: the option occurs in FILE as a whole word
# ("\-\-pid" does not match "\-\-pids" nor "\-\-no\-pid").
has_opt() {
	grep -Eq "(^|[^-A-Za-z0-9])$(ere "$2")([^-A-Za-z0-9\\]|\\\\[^-]|$)" "$1"
}

# ---- the commands ----
pa --help >"$WORK/help" 2>"$WORK/help.err"
st=$?
[ "$st" -eq 0 ] || fail "pa --help: exit status $st: $(head -n 3 "$WORK/help.err")"
awk '/^commands:/ {f = 1; next} f && /^ +[a-z]/ {print $1} f && /^$/ {f = 0}' "$WORK/help" >"$WORK/commands"
[ -s "$WORK/commands" ] || { fail "no command list in pa --help"; finish; }
pass

# exit statuses from cli/cli.h: "PA_EXIT_OK = 0, ..."
grep -oE 'PA_EXIT_[A-Z]+ = [0-9]+' "$ROOT/cli/cli.h" | awk '{print $3}' | sort -u >"$WORK/statuses"
[ "$(wc -l <"$WORK/statuses")" -ge 3 ] || fail "cannot read the exit statuses from cli/cli.h"

# check_page PAGE TITLE NAME: what every page needs.
check_page() {
	local page=$1 title=$2 name=$3 s v
	CHECKS=$((CHECKS + 1))
	head -n 1 "$page" | grep -Eq "^\.TH $(ere "$title") 1( |$)" ||
		fail "$(basename "$page"): does not start with '.TH $title 1'"
	section "$page" NAME | grep -Eq "^$(ere "$name") \\\\- " ||
		fail "$(basename "$page"): NAME is not '$name \\- ...'"
	for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES "SEE ALSO"; do
		[ -n "$(section "$page" "$s")" ] || fail "$(basename "$page"): no $s section"
	done
	section "$page" "EXIT STATUS" >"$WORK/exit.roff"
	while read -r v; do
		tags <"$WORK/exit.roff" | plain | grep -Eq "^\.B ${v}\$" ||
			fail "$(basename "$page"): EXIT STATUS does not list $v (cli/cli.h)"
	done <"$WORK/statuses"
	grep -Fq "$ROOT" "$page" && fail "$(basename "$page"): names this checkout's path"
	if [ "$HAVE_GROFF" = 1 ]; then
		# -ww: all warnings; -z: no output, only the diagnostics
		groff -man -Tutf8 -ww -z "$page" >/dev/null 2>"$WORK/groff.err"
		st=$?
		if [ "$st" -ne 0 ] || [ -s "$WORK/groff.err" ]; then
			fail "$(basename "$page"): groff -man -ww: exit status $st: $(head -n 5 "$WORK/groff.err")"
		fi
		groff -man -Tascii -P-cbou "$page" 2>/dev/null |
			awk 'length($0) > 80 {print length($0) ": " $0}' >"$WORK/wide"
		[ -s "$WORK/wide" ] && fail "$(basename "$page"): rendered lines over 80 columns: $(head -n 3 "$WORK/wide")"
	fi
}

# ---- pa.1 ----
if [ ! -f "$MANDIR/pa.1" ]; then
	fail "no docs/man/pa.1"
else
	check_page "$MANDIR/pa.1" PA pa
	for o in --version --help; do
		CHECKS=$((CHECKS + 1))
		section "$MANDIR/pa.1" OPTIONS | plain >"$WORK/pa.opts"
		has_opt "$WORK/pa.opts" "$(roff "$o")" || fail "pa.1: OPTIONS does not document $o"
	done
	while read -r cmd; do
		CHECKS=$((CHECKS + 1))
		grep -Eq "^\.BR? $(ere "$(roff "pa-$cmd")") \(1\)" "$MANDIR/pa.1" ||
			fail "pa.1 does not refer to pa-$cmd(1)"
	done <"$WORK/commands"
fi

# ---- no page for a command that does not exist ----
for page in "$MANDIR"/pa-*.1; do
	[ -e "$page" ] || continue
	cmd=$(basename "$page" .1)
	cmd=${cmd#pa-}
	CHECKS=$((CHECKS + 1))
	grep -qxF -- "$cmd" "$WORK/commands" || fail "$(basename "$page"): 'pa $cmd' is not a command of pa --help"
done

# ---- one page per command ----
while read -r cmd; do
	page=$MANDIR/pa-$cmd.1
	CHECKS=$((CHECKS + 1))
	[ -f "$page" ] || { fail "no man page docs/man/pa-$cmd.1 for 'pa $cmd'"; continue; }
	check_page "$page" "$(roff "PA-$(printf '%s' "$cmd" | tr '[:lower:]' '[:upper:]')")" "$(roff "pa-$cmd")"

	pa "$cmd" --help >"$WORK/$cmd.help" 2>"$WORK/$cmd.help.err"
	st=$?
	[ "$st" -eq 0 ] || { fail "pa $cmd --help: exit status $st: $(head -n 3 "$WORK/$cmd.help.err")"; continue; }
	# option lines: "    -i, --input <file>  help", "    --stats  help"
	sed -nE 's/^    (-[A-Za-z0-9], )?--([a-z0-9][a-z0-9-]*).*/--\2/p' "$WORK/$cmd.help" >"$WORK/$cmd.long"
	sed -nE 's/^    (-[A-Za-z0-9])([ ,].*)?$/\1/p' "$WORK/$cmd.help" >"$WORK/$cmd.short"
	[ -s "$WORK/$cmd.long" ] || { fail "pa $cmd --help: no options found (format changed?)"; continue; }

	section "$page" OPTIONS >"$WORK/$cmd.opts"
	tags <"$WORK/$cmd.opts" | plain >"$WORK/$cmd.tags"
	plain <"$page" >"$WORK/$cmd.plain"
	while read -r o; do
		CHECKS=$((CHECKS + 1))
		if ! has_opt "$WORK/$cmd.tags" "$(roff "$o")"; then
			if grep -Eq "(^|[^-A-Za-z0-9\\])$(ere "$o")([^-A-Za-z0-9]|\$)" "$WORK/$cmd.tags"; then
				fail "pa-$cmd.1: $o is written with unescaped '-' (roff needs '$(roff "$o")')"
			elif has_opt "$WORK/$cmd.plain" "$(roff "$o")"; then
				fail "pa-$cmd.1: $o is mentioned but not documented in OPTIONS (a .TP tag)"
			else
				fail "pa-$cmd.1: option $o (pa $cmd --help) is not documented"
			fi
		fi
	done < <(cat "$WORK/$cmd.long" "$WORK/$cmd.short")

	# and the other way: options documented that pa does not have
	grep -oE '(^|[^-A-Za-z0-9])\\-(\\-[a-z0-9]+(\\-[a-z0-9]+)*|[A-Za-z0-9])([^A-Za-z0-9]|$)' "$WORK/$cmd.tags" |
		grep -oE '\\-(\\-[a-z0-9]+(\\-[a-z0-9]+)*|[A-Za-z0-9])' | sed 's/\\-/-/g' | sort -u >"$WORK/$cmd.documented"
	while read -r o; do
		CHECKS=$((CHECKS + 1))
		case $o in
		--no-*) grep -qxF -- "--${o#--no-}" "$WORK/$cmd.long" && continue ;;
		esac
		grep -qxF -- "$o" "$WORK/$cmd.long" "$WORK/$cmd.short" ||
			fail "pa-$cmd.1: OPTIONS documents $o, which pa $cmd --help does not list"
	done <"$WORK/$cmd.documented"
done <"$WORK/commands"

if [ "$HAVE_GROFF" = 0 ] && [ "$FAILS" -eq 0 ]; then
	echo "$CHECKS checks, $FAILS failed"
	skip "groff is not installed: the pages' rendering was not checked (Debian: groff-base)"
fi
finish
