#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/check-log finds every kind of kernel report the VM runner must
# fail a run on, and passes a clean boot log.
. "$(dirname "$0")/../../scripts/lib.sh"
check=$NUMAB_ROOT/scripts/check-log
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0
echo "TAP version 13"

clean='[    0.000000] Linux version 6.12.117 (numab@localhost)
[    0.120000] ACPI: SRAT: Node 1 PXM 1 [mem 0x80000000-0xffffffff]
[    1.300000] Run /init as init process
[    1.400000] numab: userland up at 1.40 s'
printf '%s\n' "$clean" >"$tmp/clean.log"
n=$((n + 1))
if "$check" "$tmp/clean.log" >/dev/null; then echo "ok $n clean log passes"; else echo "not ok $n clean log passes"; bad=1; fi

while IFS='|' read -r name line; do
	[ -n "$name" ] || continue
	{ printf '%s\n' "$clean"; printf '%s\n' "$line"; echo "[    2.000000] after"; } >"$tmp/$name.log"
	n=$((n + 1))
	msg=$("$check" "$tmp/$name.log")
	rc=$?
	if [ $rc = 1 ] && grep -q "line 5" <<<"$msg"; then
		echo "ok $n detects $name at its line"
	else
		echo "not ok $n detects $name at its line"
		echo "# rc=$rc: $msg"
		bad=1
	fi
done <<'LOGS'
warn|[    2.1] WARNING: CPU: 0 PID: 1 at drivers/misc/lkdtm/bugs.c:1 lkdtm_WARNING+0x0/0x10
cut-here|[    2.1] ------------[ cut here ]------------
bug|[    2.1] kernel BUG at mm/mprotect.c:42!
oops|[    2.1] Oops: general protection fault, probably for non-canonical address
null-deref|[    2.1] BUG: kernel NULL pointer dereference, address: 0000000000000008
kasan|[    2.1] BUG: KASAN: slab-use-after-free in show_numa_vmas+0x1/0x2
ubsan|[    2.1] UBSAN: array-index-out-of-bounds in kernel/sched/fair.c:3300:5
kfence|[    2.1] BUG: KFENCE: out-of-bounds read in test+0x0/0x1
lockdep|[    2.1] WARNING: possible circular locking dependency detected
lockdep-state|[    2.1] WARNING: inconsistent lock state
rcu|[    2.1] WARNING: suspicious RCU usage
rcu-stall|[    2.1] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
hung|[    2.1] INFO: task numab:77 blocked for more than 120 seconds.
softlockup|[    2.1] watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [numab:77]
panic|[    2.1] Kernel panic - not syncing: Fatal exception
sleeping|[    2.1] BUG: sleeping function called from invalid context at mm/mmap.c:1
odebug|[    2.1] ODEBUG: free active (active state 0) object: 0000 object type: timer_list
list|[    2.1] list_add corruption. prev->next should be next
calltrace|[    2.1] Call Trace:
LOGS

n=$((n + 1))
"$check" "$tmp/missing.log" >/dev/null 2>&1
rc=$?
if [ $rc = 2 ]; then echo "ok $n unreadable log is an error"; else echo "not ok $n unreadable log is an error # rc=$rc"; bad=1; fi
echo "1..$n"
exit $bad
