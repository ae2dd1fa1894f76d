#!/usr/bin/env bash
# scripts/demo's install step stays readable: scripts/deps --build --quiet
# (what scripts/demo runs) prints one summary line naming its log, where
# apt's output goes, and installs only what building pa needs; without
# --quiet, scripts/deps prints as it always did (for scripts/test and the
# README). apt-get, dpkg-query, sudo and npm are fakes on PATH that only log:
# nothing is installed.
. "$(dirname "$0")/lib.sh"
cd "$WORK" || exit 1
DEPS=$HERE/../../scripts/deps
DEMO=$HERE/../../scripts/demo
mkdir -p bin
# every package missing; apt-get logs its arguments and talks like apt
cat >bin/dpkg-query <<'X'
#!/bin/sh
printf 'unknown ok not-installed'
X
cat >bin/apt-get <<X
#!/bin/sh
echo "apt-get \$*" >>$WORK/apt.calls
echo "Reading package lists... (fake apt-get \$1)"
echo "Setting up something (fake)" >&2
X
cat >bin/sudo <<'X'
#!/bin/sh
exec "$@"
X
cat >bin/npm <<X
#!/bin/sh
echo "npm \$*" >>$WORK/apt.calls
echo "added 1 package (fake npm)"
X
chmod +x bin/*
export PATH=$WORK/bin:$PATH

# what scripts/demo runs
CHECKS=$((CHECKS + 1))
grep -q '^"$top/scripts/deps" --build --quiet$' "$DEMO" || fail "scripts/demo does not run scripts/deps --build --quiet"
rm -f apt.calls
PA_DEPS_LOG=$WORK/deps.log bash "$DEPS" --build --quiet >out 2>err || fail "scripts/deps --build --quiet failed: $(cat err)"
CHECKS=$((CHECKS + 1))
[ -s out ] && fail "scripts/deps --quiet wrote on stdout: $(cat out)"
CHECKS=$((CHECKS + 1))
[ "$(wc -l <err)" = 1 ] && grep -q "^pa: installed .*cmake.* (details: $WORK/deps.log)$" err ||
	fail "scripts/deps --build --quiet: not one summary line naming the log: $(cat err)"
CHECKS=$((CHECKS + 1))
grep -q "fake apt-get install" deps.log && grep -q "Setting up something" deps.log ||
	fail "apt's output is not in the log: $(cat deps.log)"
CHECKS=$((CHECKS + 1))
grep -q "^apt-get install .*libelf-dev" apt.calls || fail "scripts/deps --build installed no build dependency"
for p in linux-perf chromium firefox-esr strace golang-go nodejs debuginfod libc6-dbg npm; do
	CHECKS=$((CHECKS + 1))
	grep -qw -- "$p" apt.calls && fail "scripts/deps --build installs $p, which building pa does not use"
done
CHECKS=$((CHECKS + 1))
grep -q "^npm" apt.calls && fail "scripts/deps --build ran npm"

# quiet, everything (the tests' tools and speedscope too): still one line
rm -f apt.calls
PA_SPEEDSCOPE_DIR=$WORK/ss PA_DEPS_LOG=$WORK/all.log bash "$DEPS" --quiet >out 2>err ||
	fail "scripts/deps --quiet failed: $(cat err)"
CHECKS=$((CHECKS + 1))
[ "$(wc -l <err)" = 1 ] && grep -q "^pa: installed .*linux-perf.*speedscope@.* (details: $WORK/all.log)$" err ||
	fail "scripts/deps --quiet: not one summary line: $(cat err)"

# the default output is kept: the packages named, apt's output on stderr
rm -f apt.calls
PA_SPEEDSCOPE_DIR=$WORK/ss2 bash "$DEPS" >out 2>err || fail "scripts/deps failed: $(cat err)"
CHECKS=$((CHECKS + 1))
grep -q "^pa: installing .*linux-perf" err && grep -q "Setting up something" err ||
	fail "scripts/deps without --quiet: not its usual output: $(cat err)"
CHECKS=$((CHECKS + 1))
bash "$DEPS" --bogus >/dev/null 2>&1 && fail "scripts/deps accepted an unknown option"
finish
