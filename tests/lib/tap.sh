# SPDX-License-Identifier: GPL-2.0
# TAP helpers of the host tests (tests/host/*.sh), sourced: t NAME STATUS
# [diagnostic file or text] prints "ok N NAME" or "not ok N NAME" with the
# diagnostic as comments (the last TAP_DIAG_LINES lines of a file, default
# all) and sets bad=1; skip_all REASON skips the whole test; need_numabctl
# NX TMPDIR builds tools/numab/numabctl when NX is not there (its log in
# TMPDIR), or skips the whole test.
n=0 bad=0
t() {
	n=$((n + 1))
	if [ "$2" = 0 ]; then echo "ok $n $1"; else
		echo "not ok $n $1"; bad=1
		if [ -f "${3:-}" ]; then sed 's/^/# /' "$3" | tail -n "${TAP_DIAG_LINES:-+1}"
		elif [ -n "${3:-}" ]; then echo "# $3"; fi
	fi
}
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
need_numabctl() {
	[ -x "$1" ] && return 0
	make -s -C "$NUMAB_ROOT/tools/numab" numabctl >"$2/build" 2>&1 ||
		skip_all "numabctl does not build: $(tail -n 1 "$2/build")"
}
