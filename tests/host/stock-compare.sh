#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/stock-compare's comparison (--compare, no guest): outputs within
# the tolerances match; one extra fault per page, a
# stranding that differs, a changed placement time or a missing scenario
# fail; a timed scenario is compared per second.
. "$(dirname "$0")/../../scripts/lib.sh"
cmp=$NUMAB_ROOT/scripts/stock-compare
fx=$(dirname "$0")/fixtures/stock-compare
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$NUMAB_ROOT/tests/lib/tap.sh"
echo "TAP version 13"
line() { # line SCENARIO MODE PTE FAULTS MIGRATED PROMOTED REACHED SECONDS [EXTRA]
	local stranded=0
	[ "$7" = not_reached ] && stranded=1
	echo "STOCK_COMPARE scenario=$1 mode=$2 pages=8192 pte_updates=$3 hint_faults=$4 hint_faults_local=0 pages_migrated=$5 promote_success=$6 seqs=13 reached=$7 seconds=$8 placed=8192 stranded=$stranded${9:+ $9}"
}
{
	echo "LEGACY set: (none) missing: pid=1"
	line first_touch_m1 1 8193 8193 8193 0 2 1.1
	line strand_pid_m2 2 0 4843 4843 4827 not_reached 25.0 timed=1
	line rofile_m2 2 0 0 0 0 not_reached 1.9
} >"$tmp/stock"

# run NAME: compare stock with $tmp/NAME; output in $tmp/NAME.tap
run() {
	"$cmp" --out "$tmp/out-$1" --compare "$tmp/stock" "$tmp/$1" >"$tmp/$1.tap" 2>&1
}

{
	line first_touch_m1 1 8230 8228 8190 0 5 1.2
	line strand_pid_m2 2 0 3900 3900 3890 not_reached 20.1 timed=1
	line rofile_m2 2 0 40 0 0 not_reached 2.0
} >"$tmp/same"
run same
t "counters within tolerance match (exit 0)" $? "$(cat "$tmp/same.tap")"
[ "$(grep -c '^ok ' "$tmp/same.tap")" = 3 ]
t "one ok line per scenario" $? "$(cat "$tmp/same.tap")"
grep -q '| first_touch_m1 (mode 1) | 8193 / 8230 |' "$tmp/out-same/table.md"
t "table.md has a row per scenario" $? "$(cat "$tmp/out-same/table.md")"

{
	line first_touch_m1 1 16386 16386 8193 0 24 2.0
	line strand_pid_m2 2 0 4773 4773 4773 not_reached 24.7 timed=1
	line rofile_m2 2 0 0 0 0 not_reached 2.3
} >"$tmp/defect1"
run defect1
rc=$?
t "two faults per page fails (exit 1)" $([ $rc = 1 ]; echo $?) "rc=$rc"
grep -q '^not ok 1 first_touch_m1 .*hint_faults 8193 vs 16386' "$tmp/defect1.tap"
t "the failure names the scenario and the counter" $? "$(cat "$tmp/defect1.tap")"
grep -q '^ok 2 strand_pid_m2' "$tmp/defect1.tap"
t "the other scenarios still match" $? "$(cat "$tmp/defect1.tap")"
grep -q '1.00 / 2.00' "$tmp/out-defect1/table.md"
t "the table shows faults per migrated page" $? "$(cat "$tmp/out-defect1/table.md")"

{
	line first_touch_m1 1 8193 8193 8193 0 2 1.1
	line strand_pid_m2 2 0 0 8192 8192 3 5.0 timed=1
	line rofile_m2 2 0 0 0 0 not_reached 1.9
} >"$tmp/unstranded"
run unstranded
t "a stranding that differs fails" $([ $? = 1 ]; echo $?)
grep -q '^not ok 2 strand_pid_m2 .*stranded 1 vs 0' "$tmp/unstranded.tap"
t "... and says so" $? "$(cat "$tmp/unstranded.tap")"

{
	line first_touch_m1 1 8193 8193 8193 0 7 1.8
	line strand_pid_m2 2 0 2400 2400 2400 not_reached 25.0 timed=1
} >"$tmp/slower"
run slower
t "placement 0.7 s later, half the rate, a missing scenario fail" $([ $? = 1 ]; echo $?)
grep -q 'not ok 1 first_touch_m1 .*seconds to placement 1.1 vs 1.8' "$tmp/slower.tap" &&
	grep -q 'not ok 2 strand_pid_m2 .*hint_faults 4843 in 25.0 s vs 2400 in 25.0 s' "$tmp/slower.tap" &&
	grep -q 'not ok 3 rofile_m2 .*missing on the series' "$tmp/slower.tap"
t "... each named" $? "$(cat "$tmp/slower.tap")"

# A measured run whose series made one pass over strand_pid_m2's B in
# the window (12288 PTE updates against stock's 0) and matched otherwise
"$cmp" --out "$tmp/out-bpass" --compare "$fx/b-pass-stock.out" "$fx/b-pass-series.out" >"$tmp/bpass.tap" 2>&1
t "a timed scenario's PTE updates (0 vs 12288, one pass over B) are shown, not judged" $? "$(cat "$tmp/bpass.tap")"
grep -q '| strand_pid_m2 (mode 2, timed) | 0 / 12288 |.*| match |' "$tmp/out-bpass/table.md"
t "... the table shows them" $? "$(cat "$tmp/out-bpass/table.md")"
sed 's/\(scenario=strand_pid_m2 .*\)hint_faults=4939 \(.*\)pages_migrated=4939 promote_success=4935/\1hint_faults=2400 \2pages_migrated=2400 promote_success=2400/' \
	"$fx/b-pass-series.out" >"$tmp/bpass-half"
"$cmp" --out "$tmp/out-bpass-half" --compare "$fx/b-pass-stock.out" "$tmp/bpass-half" >"$tmp/bpass-half.tap" 2>&1
t "... and the same run at half the fault rate still fails" $([ $? = 1 ]; echo $?) "$(cat "$tmp/bpass-half.tap")"
grep -q '^not ok 3 strand_pid_m2 .*hint_faults 5423 in 28.4 s vs 2400 in 25.6 s' "$tmp/bpass-half.tap"
t "... naming the faults, not the PTE updates" $? "$(cat "$tmp/bpass-half.tap")"

# Repeated placement scenarios: the medians are compared.
"$cmp" --out "$tmp/out-busy" --compare "$fx/busy-host-stock.out" "$fx/busy-host-series.out" >"$tmp/busy.tap" 2>&1
t "a measured run on a busy host (placement sequences 1 to 5 on both kernels) matches" $? "$(cat "$tmp/busy.tap")"
grep -q '| first_touch_m3 (mode 3) |.*| 1.0 (0.9-1.1) / 1.0 (1.0-1.1) |' "$tmp/out-busy/table.md"
t "the table shows the seconds to placement" $? "$(cat "$tmp/out-busy/table.md")"

# placement: SCENARIO FILE then "REACHED SECONDS" pairs, one line a run
placement() {
	local s=$1 f=$2
	shift 2
	while [ $# -gt 0 ]; do
		line "$s" 3 8193 8193 8193 0 "$1" "$2" >>"$f"
		shift 2
	done
}
placement first_touch_m3 "$tmp/r-stock" 1 1.0 2 1.0 2 1.0 3 1.1 2 1.0
placement first_touch_m3 "$tmp/r-outlier" 1 1.0 1 1.0 9 1.9 1 1.0 2 1.0
"$cmp" --out "$tmp/out-outlier" --compare "$tmp/r-stock" "$tmp/r-outlier" >"$tmp/outlier.tap" 2>&1
t "one slow run of five (9 sequences, 1.9 s) does not fail the medians" $? "$(cat "$tmp/outlier.tap")"
placement first_touch_m3 "$tmp/r-late" 6 1.5 7 1.6 7 1.6 8 1.7 7 1.6
"$cmp" --out "$tmp/out-late" --compare "$tmp/r-stock" "$tmp/r-late" >"$tmp/late.tap" 2>&1
rc=$?
t "placement 5 sequences and 0.6 s later in every run fails" $([ $rc = 1 ]; echo $?) "$(cat "$tmp/late.tap")"
grep -q 'not ok 1 first_touch_m3 .*seconds to placement 1.0 (1.0-1.1) vs 1.6 (1.5-1.7)' "$tmp/late.tap"
t "... with the medians and ranges of both" $? "$(cat "$tmp/late.tap")"
grep -q '^not ok.*sequences to placement' "$tmp/late.tap"
t "... and the sequences are not judged" $([ $? = 1 ]; echo $?) "$(cat "$tmp/late.tap")"
placement first_touch_m3 "$tmp/r-ci" 2 1.0
placement first_touch_m3 "$tmp/r-ci2" 6 1.0
"$cmp" --out "$tmp/out-ci" --compare "$tmp/r-ci" "$tmp/r-ci2" >"$tmp/ci.tap" 2>&1
t "single runs 2 vs 6 sequences, both placed at 1.0 s, match (the spread of a busy host)" $? "$(cat "$tmp/ci.tap")"
# Debian's kernel as stock: more sequences for the same seconds
"$cmp" --out "$tmp/out-deb" --compare "$fx/debian-stock.out" "$fx/debian-series.out" >"$tmp/deb.tap" 2>&1
t "a measured run with Debian's kernel as stock (first_touch_m3: 6 (4-8) vs 2 (0-3) sequences, 1.2 vs 1.1 s) matches" $? "$(cat "$tmp/deb.tap")"
grep -q '| first_touch_m3 (mode 3) |.*| 6 (4-8) / 2 (0-3) |' "$tmp/out-deb/table.md"
t "... and its table shows the sequences" $? "$(cat "$tmp/out-deb/table.md")"

echo "1..$n"
exit $bad
