# SPDX-License-Identifier: GPL-2.0
# Common paths and helpers for the numab scripts. Sourced, not executed.
#
# NUMAB_CACHE   where the unpacked kernel tree and build folders live
#               (default ~/.cache/numab); safe to delete at any time.

NUMAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NUMAB_CACHE=${NUMAB_CACHE:-$HOME/.cache/numab}
NUMAB_OUT=${NUMAB_OUT:-$NUMAB_ROOT/build}

die() { echo "${0##*/}: error: $*" >&2; exit 1; }
warn() { echo "${0##*/}: warning: $*" >&2; }
info() { echo "${0##*/}: $*" >&2; }

# base_var NAME: a value from kernel/BASE
base_var() {
	sed -n "s/^$1=//p" "$NUMAB_ROOT/kernel/BASE"
}

# Debian version of the installed linux-source-6.12, or empty.
installed_source_version() {
	dpkg-query -W -f='${Version}' "$(base_var DEB_PACKAGE)" 2>/dev/null || true
}

# The cache key of the installed source: its Debian version, made
# file-name safe (6.12.117-1~deb12u1 -> 6.12.117-1_deb12u1).
source_key() {
	local v
	v=$(installed_source_version)
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
	local dir=$NUMAB_ROOT/kernel/patches
	{
		cat "$dir/series"
		series_patches | while read -r p; do cat "$dir/$p"; done
	} | sha256sum | cut -d' ' -f1
}

# The patch files listed in kernel/patches/series, in order.
series_patches() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' \
		"$NUMAB_ROOT/kernel/patches/series"
}

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

# config_unstuck FRAGMENT DOTCONFIG: the lines of FRAGMENT, CONFIG_X=v or
# "# CONFIG_X is not set", that DOTCONFIG does not have as asked
config_unstuck() {
	local line name
	while read -r line; do
		case "$line" in
		CONFIG_*=*) grep -qxF "$line" "$2" && continue ;;
		"# CONFIG_"*" is not set")
			name=${line#\# }; name=${name%% *}
			grep -q "^$name=" "$2" || continue ;;
		*) continue ;;
		esac
		printf '%s\n' "$line"
	done <"$1"
}

now_s() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now_s)" 'BEGIN { printf "%.1f", b - a }'; }
