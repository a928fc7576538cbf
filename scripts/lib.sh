# SPDX-License-Identifier: GPL-2.0
# Common paths and helpers for the numab scripts. Sourced, not executed.
#
# NUMAB_CACHE   where the unpacked kernel trees and build folders live
#               (default ~/.cache/numab); safe to delete at any time.
# NUMAB_KLINE   the kernel line to work on: a folder of kernel/ with a BASE
#               file and a patches/ series, mainline (the default, the
#               series' primary line) or 6.12 (its LTS backport); make's
#               KLINE=... sets it.

NUMAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NUMAB_CACHE=${NUMAB_CACHE:-$HOME/.cache/numab}
NUMAB_OUT=${NUMAB_OUT:-$NUMAB_ROOT/build}
KLINE_PRIMARY=mainline
NUMAB_KLINE=${NUMAB_KLINE:-$KLINE_PRIMARY}
export NUMAB_KLINE

die() { echo "${0##*/}: error: $*" >&2; exit 1; }
warn() { echo "${0##*/}: warning: $*" >&2; }
info() { echo "${0##*/}: $*" >&2; }

# kernel_lines: every kernel line (a folder of kernel/ with a BASE file),
# the primary one first
kernel_lines() {
	local d l
	echo "$KLINE_PRIMARY"
	for d in "$NUMAB_ROOT"/kernel/*/BASE; do
		[ -f "$d" ] || continue
		l=$(basename "$(dirname "$d")")
		[ "$l" = "$KLINE_PRIMARY" ] || echo "$l"
	done
}

# kline_known LINE: LINE is a kernel line of this repository
kline_known() { [ -n "$1" ] && [ -f "$NUMAB_ROOT/kernel/$1/BASE" ]; }

kline_unknown_msg() {
	echo "unknown kernel line '$1' (NUMAB_KLINE, make KLINE=, tests/run --kline):" \
		"the lines are the folders of kernel/ with a BASE file:" \
		"$(kernel_lines | tr '\n' ' ')"
}

# A wrong NUMAB_KLINE is refused at once, not at the first file it names
# (a copy of the scripts without kernel/, as a host test makes, checks
# nothing).
if [ -d "$NUMAB_ROOT/kernel" ] && ! kline_known "$NUMAB_KLINE"; then
	die "$(kline_unknown_msg "$NUMAB_KLINE")"
fi

# kline_dir: the line's folder, kernel/LINE
kline_dir() {
	kline_known "$NUMAB_KLINE" || die "$(kline_unknown_msg "$NUMAB_KLINE")"
	echo "$NUMAB_ROOT/kernel/$NUMAB_KLINE"
}

# patches_dir: the line's series, kernel/LINE/patches
patches_dir() { echo "$(kline_dir)/patches"; }

# base_var NAME [LINE]: a value from kernel/LINE/BASE (default: the line
# in use)
base_var() {
	local line=${2:-$NUMAB_KLINE}
	kline_known "$line" || die "$(kline_unknown_msg "$line")"
	sed -n "s/^$1=//p" "$NUMAB_ROOT/kernel/$line/BASE"
}

# kline_short [LINE]: the line's kernel as test names show it, major and
# minor of KERNELVERSION: 7.3, 6.12
kline_short() {
	base_var KERNELVERSION "${1:-}" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/'
}

# kline_fetched: the line's source and stock image come from the suite
# DEB_SUITE names, through scripts/fetch-debian's private apt
# configuration; otherwise from the host's own apt sources (scripts/deps
# installs the source package)
kline_fetched() { [ -n "$(base_var DEB_SUITE)" ]; }

# Debian version of the installed source package (DEB_PACKAGE), or empty.
installed_source_version() {
	dpkg-query -W -f='${Version}' "$(base_var DEB_PACKAGE)" 2>/dev/null || true
}

# source_version: the Debian version of the line's source: the pinned
# DEB_VERSION for a fetched line (scripts/fetch-debian fetches nothing
# else), the installed package's for a line from the host's archive.
source_version() {
	if kline_fetched; then
		base_var DEB_VERSION
	else
		installed_source_version
	fi
}

# The cache key of the line's source: its Debian version, made file-name
# safe (6.12.117-1~deb12u1 -> 6.12.117-1_deb12u1, 7.3~rc7-1~exp1 ->
# 7.3_rc7-1_exp1).
source_key() {
	local v
	v=$(source_version)
	[ -n "$v" ] || die "$(base_var DEB_PACKAGE) is not installed; run scripts/deps"
	echo "$v" | tr '~:/' '___'
}

kernel_tree() { echo "$NUMAB_CACHE/src/linux-$(source_key)"; }

# The base (tag numab-base) checked out on its own: a detached git worktree
# of the kernel tree, so the base builds without touching the series
# checkout (scripts/build-kernel base).
stock_tree() { echo "$(kernel_tree)-stock"; }

# kernel_build_dir VARIANT (test|debug|stock|base)
kernel_build_dir() { echo "$NUMAB_CACHE/build/linux-$(source_key)-$1"; }

# kernel_image VARIANT: stock is Debian's image, unpacked (scripts/build-kernel)
kernel_image() {
	case "$1" in
	stock) echo "$(kernel_build_dir "$1")/vmlinuz" ;;
	*) echo "$(kernel_build_dir "$1")/arch/x86/boot/bzImage" ;;
	esac
}

# Hash of the series file and every patch it lists, in order.
series_hash() {
	local dir
	dir=$(patches_dir)
	{
		cat "$dir/series"
		series_patches | while read -r p; do cat "$dir/$p"; done
	} | sha256sum | cut -d' ' -f1
}

# The patch files listed in kernel/LINE/patches/series, in order.
series_patches() {
	local dir
	dir=$(patches_dir)
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$dir/series"
}

# guest_dir: what scripts/vm puts under the guest's /numab/: the guest
# programs built against the line's tree (tests/Makefile) and numabctl
guest_dir() { echo "$NUMAB_OUT/guest/$NUMAB_KLINE"; }

# git inside the kernel tree, with a fixed identity so `git am` works on
# a machine that has none configured.
ktree_git() {
	git -C "$(kernel_tree)" -c user.name="numab" \
		-c user.email="numab@localhost" -c advice.detachedHead=false "$@"
}

# One kernel build at a time: two makes in one build folder corrupt it
# (seen as a half-written asm-offsets.h), and a tree prepare under a
# running build changes its sources. Takes the lock on fd 9 for the rest
# of the script, waiting (and saying so) while another build holds it.
build_lock() {
	mkdir -p "$NUMAB_CACHE"
	exec 9>"$NUMAB_CACHE/build.lock"
	if ! flock -n 9; then
		info "waiting for another kernel build to finish"
		flock 9
	fi
}

# config_unstuck FRAGMENT DOTCONFIG [TREE]: the lines of FRAGMENT,
# CONFIG_X=v or "# CONFIG_X is not set", that DOTCONFIG does not have as
# asked. With TREE, an option whose symbol no Kconfig file of TREE declares
# is left out, saying so on stderr: kernel/configs/ serves every line and
# the series, and a kernel lacks some of their symbols (one the series
# adds, in the base or before the series is ported; one another line's
# kernel has: CONFIG_PROC_SYSCTL, merged into CONFIG_SYSCTL in 7.3;
# CONFIG_NUMA_MIGRATION, new in 7.3; CONFIG_SCHED_DEBUG, gone in 7.3).
config_unstuck() {
	local line name
	while read -r line; do
		case "$line" in
		CONFIG_*=*) grep -qxF "$line" "$2" && continue
			name=${line%%=*} ;;
		"# CONFIG_"*" is not set")
			name=${line#\# }; name=${name%% *}
			grep -q "^$name=" "$2" || continue ;;
		*) continue ;;
		esac
		if [ -n "${3:-}" ] && ! kconfig_declared "$3" "${name#CONFIG_}"; then
			info "$name is not in the Kconfig of $3: not checked"
			continue
		fi
		printf '%s\n' "$line"
	done <"$1"
}

# kconfig_declared TREE SYMBOL: a Kconfig file of TREE declares SYMBOL
kconfig_declared() {
	grep -rqE --include='Kconfig*' "^[[:space:]]*(menu)?config[[:space:]]+$2[[:space:]]*$" "$1"
}

now_s() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now_s)" 'BEGIN { printf "%.1f", b - a }'; }
