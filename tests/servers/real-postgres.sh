#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PostgreSQL 15 from Debian, unmodified, in the tiered guest
# (scripts/servers, tests/vm/servers.sh): a 256 MiB buffer pool prewarmed
# and 4 pgbench connections (forked backends) running from the warm-up on,
# then every process of the server moved to the slow tier (migratepages),
# the state demotion leaves behind. On the series with its default
# filters the memory PostgreSQL uses must come back to the fast tier:
#  - the buffer pool (shared): at least 90% within REAL_PG_BOUND (60 s);
#  - all it uses (buffer pool, program text and heaps, "hot"): at least
#    80% within the same bound.
# Stock 6.12 and the series with the legacy filters run the same; what
# they did is printed, not judged.
#
# The bound, measured (4 runs on the series, 2 vCPUs under TCG): the
# buffer pool reached 90% 8, 11, 19 and 33 s after the move, all the used
# memory 80% after 16, 17, 27 and 28 s; 60 s is about twice the slowest.
# 90% of all the used memory is not asserted: it was reached in 1 run of 4
# (after 36 s; the others ended at 81% to 85% after 68 to 74 s), because
# the program text stays on the slow tier (0% in every run, stock and
# legacy too) and the backends' heaps come back slowly (4% to 37%).
# Stock reached the same marks after 30 and 34 s, legacy after 21 and
# 24 s, in one run each: with 4 connections the filters strand nothing
# here (Documentation/bench.rst, "Real servers").
#
# REAL_PG_SECONDS (default 75) is how long pgbench runs after the move.
. "$(dirname "$0")/../../scripts/lib.sh"
bound=${REAL_PG_BOUND:-60}
seconds=${REAL_PG_SECONDS:-75}
out=$NUMAB_OUT/real-postgres
rm -rf "$out"
exec "$NUMAB_ROOT/scripts/servers" --servers postgres --modes move \
	--configs stock,legacy,numab --args "-c 4" --seconds "$seconds" --size 256 \
	--out "$out" --show \
	--check "numab.postgres.move/main:shared>=0.9@$bound" \
	--check "numab.postgres.move/main:hot>=0.8@$bound"
