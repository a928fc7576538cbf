#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs the unit tests and drives the numabctl binary against the fixture
# trees.  Output: TAP lines, then "N passed, N failed, N skipped".
# Usage: tests/check.sh UNIT_BINARY NUMABCTL_BINARY   (from tools/numab)
#        UPDATE=1 tests/check.sh ...   rewrites tests/expected/*
UNIT=$1
BIN=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
FIX=$(pwd)/tests/fixtures
EXP=$(pwd)/tests/expected
TMP=$(mktemp -d "${TMPDIR:-/tmp}/numab-check.XXXXXX")
. "$(dirname "$0")/knobs.sh"
# tracefs mounted and NUMA balancing on for the live tests: put back on
# every way out
trap 'knobs_restore; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
chmod 755 "$TMP"
n=0; failed=0; skipped=0

pass() { n=$((n + 1)); echo "ok $n - $*"; }
fail() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); skipped=$((skipped + 1)); echo "ok $n - $1 # SKIP $2"; }
t() { d=$1; shift; if "$@"; then pass "$d"; else fail "$d"; fi; }
diag() { sed 's/^/# /' "$@"; }

# numabctl with a fixture sysroot; stdout, stderr and status kept in $TMP
nx() {
	fx=$1; shift
	"$BIN" --sysroot "$fx" "$@" > "$TMP/out" 2> "$TMP/err"
	echo $? > "$TMP/rc"
}
rc() { [ "$(cat "$TMP/rc")" = "$1" ] || { echo "# exit status $(cat "$TMP/rc"), expected $1"; diag "$TMP/err"; return 1; }; }
has() { grep -q -- "$1" "$TMP/${2:-out}" || { echo "# '$1' not in $2"; diag "$TMP/${2:-out}"; return 1; }; }
hasnt() { ! grep -q -- "$1" "$TMP/${2:-out}"; }
lines() { [ "$(wc -l < "$TMP/${2:-out}")" -eq "$1" ] || { echo "# expected $1 lines in ${2:-out}:"; diag "$TMP/${2:-out}"; return 1; }; }
# compare stdout with a golden file (UPDATE=1 rewrites it)
golden() {
	if [ -n "$UPDATE" ]; then cp "$TMP/out" "$EXP/$1"; fi
	diff -u "$EXP/$1" "$TMP/out" > "$TMP/diff" || { diag "$TMP/diff"; return 1; }
}
# json EXPR: python3 evaluates EXPR on d, the JSON document on stdout
json() {
	command -v python3 > /dev/null || { echo "# python3 not installed"; return 1; }
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$TMP/out" "$1" || { echo "# false: $1"; diag "$TMP/out"; return 1; }
}
# a writable copy of a fixture, so that filter/run never touch /proc/sys
copy() { rm -rf "$TMP/$1"; cp -a "$FIX/$1" "$TMP/$1"; echo "$TMP/$1"; }
sysctl_is() { [ "$(cat "$1/proc/sys/kernel/numa_balancing_filter_$2")" = "$3" ] || { echo "# filter_$2 is $(cat "$1/proc/sys/kernel/numa_balancing_filter_$2"), expected $3"; return 1; }; }

# --- unit tests (renumbered into this stream) -------------------------------
"$UNIT" "$FIX" > "$TMP/unit" 2> "$TMP/unit.err"; urc=$?
while IFS= read -r line; do
	case $line in
	"ok "*) pass "unit: ${line#* - }" ;;
	"not ok "*) fail "unit: ${line#* - }" ;;
	esac
done < "$TMP/unit"
[ $urc -eq 0 ] || { fail "unit test binary exited $urc"; diag "$TMP/unit.err"; }

. "$(dirname "$0")/cli.sh"
. "$(dirname "$0")/cli-conventions.sh"
. "$(dirname "$0")/cli-outputs.sh"
. "$(dirname "$0")/cli-export.sh"

echo "1..$n"
echo "$((n - failed - skipped)) passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
