#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The VM runner's own guarantees, on the real test kernel:
#  - the guest command's exit status comes back to the host;
#  - a kernel WARNING fails the run (exit 125) although the command
#    succeeded, and the message points at the console log;
#  - a command that outruns its timeout is killed and the run fails.
. "$(dirname "$0")/../../scripts/lib.sh"
vm=$NUMAB_ROOT/scripts/vm
n=0 bad=0
t() { # t NAME CONDITION-RESULT(0/1) [diagnostic]
	n=$((n + 1))
	if [ "$2" = 0 ]; then echo "ok $n $1"; else echo "not ok $n $1"; bad=1; [ -n "${3:-}" ] && echo "# $3"; fi
}
echo "TAP version 13"

msg=$("$vm" --quiet --name runner-exit --timeout 60 -- 'echo hello from the guest; exit 3' 2>&1)
rc=$?
t "guest exit status 3 reaches the host" $([ $rc = 3 ]; echo $?) "rc=$rc: $msg"
grep -q 'hello from the guest' "$NUMAB_OUT/vm/runner-exit.out"
t "guest output is captured" $?

msg=$("$vm" --quiet --name runner-warn --timeout 60 -- \
	'echo WARNING > /sys/kernel/debug/provoke-crash/DIRECT; echo provoked; exit 0' 2>&1)
rc=$?
t "a kernel WARNING fails a successful command (exit 125)" $([ $rc = 125 ]; echo $?) "rc=$rc: $msg"
grep -q "kernel splat in $NUMAB_OUT/vm/runner-warn.log line [0-9]" <<<"$msg"
t "the failure message names the console log and line" $? "$msg"
grep -q 'WARNING' <<<"$msg"
t "the failure message quotes the WARNING" $? "$msg"

msg=$("$vm" --quiet --name runner-hang --timeout 5 -- 'sleep 600' 2>&1)
rc=$?
t "a command past its timeout fails the run" $([ $rc != 0 ]; echo $?) "rc=$rc: $msg"
grep -q 'timeout' <<<"$msg"
t "the message says it timed out" $? "$msg"

echo "1..$n"
exit $bad
