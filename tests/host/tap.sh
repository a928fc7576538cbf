# SPDX-License-Identifier: GPL-2.0
# TAP helpers for the host tests. Sourced (not executable, so tests/run
# does not take it for a test): t NAME COMMAND... runs COMMAND and prints
# "ok N NAME" or "not ok N NAME"; tap_end prints the plan and exits 1 if
# any failed.
n=0 bad=0
echo "TAP version 13"
t() {
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n $name"; else echo "not ok $n $name"; bad=1; fi
}
tap_end() {
	echo "1..$n"
	exit $bad
}
