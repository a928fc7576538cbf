#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The series' selftests as kselftest users run them: tools/testing/
# selftests/mm/run_vmtests.sh -t numa_vmas, with bash (Debian's
# bash-static, copied into the guest). It runs ./numa_vmas and
# ./numa_filters from its own folder and reports each as a TAP line;
# both must pass (a skip fails here, as this kernel has the series).
# run_vmtests.sh reserves huge pages before any category (hugetlbfs, in
# the test kernel's configuration).
. "$(dirname "$0")/tap.sh"
echo "TAP version 13"
dir=$(dirname "$0")
if ! command -v bash >/dev/null; then
	t_skip "run_vmtests.sh -t numa_vmas" "no bash in the guest (install bash-static on the host)"
	echo "1..$n"; exit 0
fi
if [ ! -f "$dir/run_vmtests.sh" ]; then
	t "run_vmtests.sh is in the guest" 1 "missing: built from the kernel tree by tests/Makefile"
	echo "1..$n"; exit 1
fi
out=$(cd "$dir" && bash ./run_vmtests.sh -t numa_vmas 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
for name in numa_vmas numa_filters; do
	line=$(echo "$out" | grep -E "^(not )?ok [0-9]+ $name( |\$)")
	case "$line" in
	"ok "*"# SKIP"*) t "run_vmtests.sh ran $name and it passed" 1 "skipped: $line" ;;
	"ok "*) t "run_vmtests.sh ran $name and it passed" 0 ;;
	*) t "run_vmtests.sh ran $name and it passed" 1 "${line:-no TAP line for $name}" ;;
	esac
done
t "run_vmtests.sh exit status 0" "$rc" "exit $rc"
echo "1..$n"
exit $bad
