# SPDX-License-Identifier: GPL-2.0
#
# TAP helpers of the guest's shell tests (busybox ash), sourced:
#   . "$(dirname "$0")/tap.sh"
#   t NAME STATUS [DIAGNOSTIC]  a test line: "ok" when STATUS is 0, else
#                               "not ok" (bad=1) and DIAGNOSTIC as a comment
#   t_skip NAME REASON          a skipped test and why
# n counts the tests ("1..$n" at the end); bad is the exit status.
n=0 bad=0
t() {
	n=$((n + 1))
	if [ "$2" = 0 ]; then echo "ok $n $1"; else echo "not ok $n $1"; bad=1; [ -n "$3" ] && echo "# $3"; fi
}
t_skip() {
	n=$((n + 1))
	echo "ok $n $1 # SKIP $2"
}
