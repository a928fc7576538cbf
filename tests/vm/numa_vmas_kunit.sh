#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The KUnit suite numa_vmas (fs/proc/numa_vmas_test.c, built in with
# CONFIG_PROC_NUMA_VMAS_KUNIT_TEST) runs at boot: it checks that the *_ms
# times of /proc/<pid>/numa_vmas are computed in 64 bits, beyond the 49.7
# days at which an unsigned int of milliseconds wraps, and that with
# memory tiering the shared-folio checks let a lower-tier folio be marked
# and go to the top tier only (numa_balancing_skip_shared(), on the tiered
# topology: it needs a node in a lower tier). This unit reads its result
# from the kernel log.
echo "TAP version 13"
echo "1..1"
log=$(dmesg)
res=$(echo "$log" | grep -E "(not )?ok [0-9]+ numa_vmas\$" | tail -n 1)
case "$res" in
*"not ok"*)
	echo "not ok 1 KUnit suite numa_vmas"
	echo "$log" | grep -A 20 "Subtest: numa_vmas" | sed 's/^/# /'
	exit 1 ;;
*ok*)
	echo "$log" | grep -A 20 "Subtest: numa_vmas" | sed 's/^/# /'
	echo "ok 1 KUnit suite numa_vmas" ;;
*)
	echo "not ok 1 KUnit suite numa_vmas did not run (a kernel without CONFIG_PROC_NUMA_VMAS_KUNIT_TEST)"
	exit 1 ;;
esac
