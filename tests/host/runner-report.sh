#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/run turns each unit's output into results: a failing unit that
# prints no TAP names its failing checks in its result line (the log shown
# after it can be cut short in a CI report), a passing one and a skipping
# one are counted as such, and the summary line adds them up.
. "$(dirname "$0")/../../scripts/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/tap.sh"

# a copy of the runner with five host units of its own
mkdir -p "$tmp/tests/host" "$tmp/scripts"
cp "$NUMAB_ROOT/tests/run" "$tmp/tests/run"
cp "$NUMAB_ROOT/scripts/lib.sh" "$tmp/scripts/lib.sh"
printf '#!/bin/bash\necho "a line of output"\necho "FAIL: hash: 85.0%% on the fast tier (want >= 90%%)"\necho "more output"\necho "FAIL: arenas: 12.0%%"\nexit 1\n' >"$tmp/tests/host/a-fails.sh"
printf '#!/bin/bash\necho "bench: mm: check failed: numab_faster"\nexit 2\n' >"$tmp/tests/host/b-bench.sh"
printf '#!/bin/bash\necho "all fine"\n' >"$tmp/tests/host/c-passes.sh"
printf '#!/bin/bash\necho "no fixture here"\nexit 4\n' >"$tmp/tests/host/d-skips.sh"
printf '#!/bin/bash\necho "just died"\nexit 3\n' >"$tmp/tests/host/e-silent.sh"
chmod +x "$tmp"/tests/host/*.sh
NUMAB_OUT=$tmp/out "$tmp/tests/run" -t host >"$tmp/run.out" 2>&1
rc=$?

line() { grep -E "^(not )?ok [0-9]+ host/$1( |$)" "$tmp/run.out" | head -1; }
t "the runner exits non-zero when a unit fails (rc $rc)" test $rc != 0
t "a failing unit's result line quotes its first FAIL line" \
	grep -q "^not ok .* host/a-fails .*exit status 1; FAIL: hash: 85.0% on the fast tier (want >= 90%); FAIL: arenas: 12.0%, see " <<<"$(line a-fails)"
t "a failing unit's result line quotes a 'check failed' line" \
	grep -q "^not ok .* host/b-bench .*exit status 2; bench: mm: check failed: numab_faster, see " <<<"$(line b-bench)"
t "a unit that says nothing gets the exit status alone" \
	grep -q "^not ok .* host/e-silent  # exit status 3, see " <<<"$(line e-silent)"
t "a passing unit is ok" grep -q "^ok .* host/c-passes" <<<"$(line c-passes)"
t "a unit exiting 4 is a skip with its last line" grep -q "^ok .* host/d-skips # SKIP no fixture here" <<<"$(line d-skips)"
t "the summary adds them up" grep -q "^numab: 1 passed, 3 failed, 1 skipped$" "$tmp/run.out"
t "the failed list names every failed unit" \
	test "$(grep -c '^# failed: host/' "$tmp/run.out")" = 3
[ $bad = 0 ] || sed 's/^/# /' "$tmp/run.out"
tap_end
