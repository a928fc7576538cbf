#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The filter numabctl's BPF backend shows, against what this machine's
# own kernel does (tests/vm/filter_oracle.sh: one VMA of each kind,
# compared with the sched_skip_vma_numa tracepoint while NUMA balancing
# is on). tracefs is mounted for the test if it is not, and unmounted
# after; the guest script switches kernel.numa_balancing and puts it back.
# Skips, saying why, without root, BTF, a BPF build or the tracepoint.
#
# NUMABCTL=path tests that binary (default tools/numab/numabctl).
. "$(dirname "$0")/../../scripts/lib.sh"
. "$NUMAB_ROOT/tools/numab/tests/knobs.sh"
nx=${NUMABCTL:-$NUMAB_ROOT/tools/numab/numabctl}
tmp=$(mktemp -d)
trap 'knobs_restore; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
skip_all() { echo "TAP version 13"; echo "1..0 # SKIP $1"; exit 0; }

[ "$(id -u)" = 0 ] || skip_all "not root: tracing, BPF and kernel.numa_balancing need root"
if [ ! -x "$nx" ]; then
	make -s -C "$NUMAB_ROOT/tools/numab" numabctl >"$tmp/build" 2>&1 ||
		skip_all "numabctl does not build: $(tail -n 1 "$tmp/build")"
fi
"$nx" status 2>/dev/null | grep -qE "^ *bpf_backend +yes" ||
	skip_all "numabctl cannot use its BPF backend here: $("$nx" status 2>/dev/null | sed -n 's/^ *bpf_backend *//p')"
cc -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -o "$tmp/filter_oracle" \
	"$NUMAB_ROOT/tests/vm/filter_oracle.c" 2>"$tmp/cc" ||
	skip_all "filter_oracle does not build: $(head -n 1 "$tmp/cc")"
knobs_tracefs || skip_all "tracefs is not mounted and cannot be mounted"
# the file mappings on a disk file system, not tmpfs (which is shmem)
mkdir -p "$NUMAB_OUT/tests"
FO_PROG=$tmp/filter_oracle NX=$nx FO_DIR=$NUMAB_OUT/tests sh "$NUMAB_ROOT/tests/vm/filter_oracle.sh"
