#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Builds one libFuzzer binary per parser and runs each for FUZZ_SECONDS.
# Seeds: fuzz/corpus/<target>/ (kept in git); new inputs go to
# build-fuzz/corpus-<target>/ so the tree stays clean.  Crashes land in
# build-fuzz/ and fail the run.  TAP output.
# Usage: fuzz/run.sh CLANG SECONDS "SCOLS_CFLAGS" TARGET...
CLANG=$1 SECS=$2; shift 3
n=0; failed=0; skipped=0
mkdir -p build-fuzz
if ! command -v "$CLANG" > /dev/null ||
   ! echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){(void)d;(void)n;return 0;}' |
	"$CLANG" -x c -fsanitize=fuzzer -o build-fuzz/probe - > /dev/null 2>&1; then
	echo "ok 1 - fuzz # SKIP clang with libFuzzer not available (apt-get install clang)"
	echo "1..1"; echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
# fuzz_one N TARGET: build and run one target; its TAP line (and any
# failure's log) to build-fuzz/TARGET.tap, exit status 1 on failure
fuzz_one() {
	n=$1 t=$2 bin=build-fuzz/fuzz-$2
	if ! "$CLANG" -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -DFUZZ_$t -o "$bin" fuzz/fuzz.c parse.c 2> build-fuzz/$t.build; then
		{ echo "not ok $n - fuzz $t: build"; sed 's/^/# /' build-fuzz/$t.build; } > build-fuzz/$t.tap
		return 1
	fi
	mkdir -p build-fuzz/corpus-$t fuzz/corpus/$t
	if (cd build-fuzz && "./fuzz-$t" -max_total_time="$SECS" -max_len=4096 -timeout=10 \
		-artifact_prefix="./$t-" "corpus-$t" "../fuzz/corpus/$t" > "$t.log" 2>&1); then
		echo "ok $n - fuzz $t: $(grep -o 'Done [0-9]* runs' build-fuzz/$t.log | tail -1) in ${SECS}s" > build-fuzz/$t.tap
	else
		{ echo "not ok $n - fuzz $t"; tail -30 build-fuzz/$t.log | sed 's/^/# /'; } > build-fuzz/$t.tap
		return 1
	fi
}
# Two targets at a time: each is a single-threaded build and fuzzer, and
# CI machines have 2 cores (82 s one at a time, 42 s two at a time here)
while [ $# -gt 0 ]; do
	a=$1; shift; b=
	[ $# -gt 0 ] && { b=$1; shift; }
	n=$((n + 1)); na=$n
	fuzz_one $na "$a" & pa=$!
	if [ -n "$b" ]; then
		n=$((n + 1))
		fuzz_one $n "$b" || failed=$((failed + 1))
		wait $pa || failed=$((failed + 1))
		cat build-fuzz/$a.tap build-fuzz/$b.tap
	else
		wait $pa || failed=$((failed + 1))
		cat build-fuzz/$a.tap
	fi
done
echo "1..$n"
echo "$((n - failed - skipped)) passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
