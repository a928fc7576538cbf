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
#    90% within the same bound.
# Stock 6.12 and the series with the legacy filters run the same; what
# they did is printed, not judged.
#
# The bound, measured (2 vCPUs under TCG): before the series stopped its
# forced retry in mode 2, the buffer pool reached 90% 8, 11, 19 and 33 s
# after the move; since, 11 to 35 s in 8 runs of this unit's own
# arrangement (legacy, then the defaults, in one boot: 4 runs, a
# fresh-cache CI run, and 24, 21 and 35 s in 3 with the bound in time
# below). 60 s is 1.7 times the slowest. With the defaults alone in a
# boot the buffer pool took longer and spread wider: 14, 20, 50, 54, 57
# and 60 s, and 88% at the end of one 60 s run (7 runs, with and without
# the bound in time on the promotion-only backoff). Why: the first
# PostgreSQL run of every boot stalls. pgbench fell below 100
# transactions a second in 6 to 15 of the samples from 3 to 35 s after
# the move in all 7 of those runs, in the first run of this unit's boots
# (legacy: 9 of 32; stock: 7 of 26) and, with the order reversed (the
# defaults first, then legacy), in the defaults' run (21 of 30), but
# never in a second run (0 of 32, 0 of 32). The cause of the stall was
# not found. While it lasts few pages are touched (the buffer pool's
# pages on the fast tier 60 s after the move: 88 MiB when the defaults
# ran first, 150 MiB second; 116 to 170 MiB in the 7 runs alone), and a
# 4-second window that touched 1 to 3 MiB of it can read 90% fast: the
# 14 and 20 s above, legacy's 16 s in this unit and the defaults' 18 s
# when first are such windows, not a steady crossing. This unit judges
# the defaults' run, the second in its boot; stock and legacy, printed,
# run first and stall.
# All the used memory reached 90% after 12, 14, 17, 20, 21, 24 and 25 s
# in the 7 runs since the series bounds that backoff in time (3 in this
# unit's arrangement); 60 s is 2.4 times the slowest. Before, one run in
# 3 ended at 82% and one of 4 earlier ones at 87%, with the program text
# still on the slow tier (7%, 4%): its promotion-only scans had backed
# off to one in four scan sequences while it was on the fast tier, and a
# backend completed 2 sequences in 75 s. With the bound the text came
# back within 3 s in all 7.
# Stock brought the buffer pool to 90% after 16, 30 and 54 s, legacy
# after 9, 21 and 28 s (3 runs each): with 4 connections no filter
# strands the buffer pool here, but stock and legacy left the program
# text and the heaps on the slow tier (0% to 9%) in every run
# (Documentation/bench.rst, "Real servers").
#
# REAL_PG_SECONDS is how long pgbench runs after the move: by default the
# bound, since nothing later can change the verdict. The runs above ran
# 75 s (their shares at the end are at 75 s); 60 s takes 3 x 15 s off the
# unit, which two fresh-cache CI runs of a slow 2-core machine left with
# 59.5 and 59.6 minutes of the hour used.
. "$(dirname "$0")/../../scripts/lib.sh"
bound=${REAL_PG_BOUND:-60}
seconds=${REAL_PG_SECONDS:-$bound}
out=$NUMAB_OUT/real-postgres
rm -rf "$out"
exec "$NUMAB_ROOT/scripts/servers" --servers postgres --modes move \
	--configs stock,legacy,numab --args "-c 4" --seconds "$seconds" --size 256 \
	--out "$out" --show \
	--check "numab.postgres.move/main:shared>=0.9@$bound" \
	--check "numab.postgres.move/main:hot>=0.9@$bound"
