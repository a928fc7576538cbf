# SPDX-License-Identifier: GPL-2.0
# Host state a live test needs for a while: tracefs mounted, NUMA
# balancing on.  Each function records how to put back what it changed;
# knobs_restore does that and must run on every exit path (call it from
# the test's EXIT/INT/TERM trap).  POSIX sh, sourced by tests/check.sh and
# by the host tests (tests/host/*.sh).  Only root changes anything.

KNOBS_UNDO=

# knobs_undo CMD: run CMD (one shell command) when restoring, newest first
knobs_undo() { KNOBS_UNDO="$1${KNOBS_UNDO:+; $KNOBS_UNDO}"; }

knobs_restore() {
	[ -n "$KNOBS_UNDO" ] || return 0
	eval "$KNOBS_UNDO"
	KNOBS_UNDO=
}

# knobs_tracefs: KNOBS_TRACEFS= the tracefs mount point, mounting it at
# /sys/kernel/tracing if no tracefs is mounted (unmounted again by
# knobs_restore); status 1 if there is none and it cannot be mounted (not
# root, no tracefs in this kernel).  Not in $(...): the undo would be lost.
knobs_tracefs() {
	KNOBS_TRACEFS=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts 2> /dev/null)
	[ -n "$KNOBS_TRACEFS" ] && return 0
	[ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing ] || return 1
	mount -t tracefs nodev /sys/kernel/tracing 2> /dev/null || return 1
	knobs_undo "umount /sys/kernel/tracing 2> /dev/null || umount -l /sys/kernel/tracing"
	KNOBS_TRACEFS=/sys/kernel/tracing
}

# knobs_balancing MODE: kernel.numa_balancing=MODE until knobs_restore;
# status 1 if it cannot be set (not root, no CONFIG_NUMA_BALANCING)
knobs_balancing() {
	_kb=/proc/sys/kernel/numa_balancing
	_old=$(cat "$_kb" 2> /dev/null) || return 1
	[ "$_old" = "$1" ] && return 0
	echo "$1" > "$_kb" 2> /dev/null || return 1
	knobs_undo "echo $_old > $_kb"
}
