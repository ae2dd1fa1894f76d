#!/usr/bin/env bash
# Pack what le-file.data needs (the burn binary and the kernel's kallsyms, by
# build-id) into le-file.data.tar.zst, so that `scripts/demo` shows symbols on
# any machine. Run on the machine that recorded the fixtures, right after
# make-fixtures.sh (the burn binary is then in the build-id cache):
#   testdata/make-archive.sh PATH_TO_PA
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pa=${1:?usage: $0 PATH_TO_PA}
"$pa" archive -i "$here/le-file.data" -o "$here/le-file.data.tar.zst"
