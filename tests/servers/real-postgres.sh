#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PostgreSQL 15 from Debian, unmodified, with its buffer pool, program
# text and backends' heaps moved to the slow tier of the tiered guest
# (scripts/servers, tests/vm/servers.sh): on the series with its default
# filters, at least REAL_PG_SHARE (90%) of the memory PostgreSQL uses must
# be back on the fast tier within REAL_PG_BOUND seconds of the move. In the
# same boot a second PostgreSQL runs under the legacy filters
# (numabctl run --legacy), and a boot of stock 6.12 runs the same; what
# those did is printed, not judged.
#
# REAL_PG_SECONDS (default 60) is how long pgbench runs after the move.
. "$(dirname "$0")/../../scripts/lib.sh"
share=${REAL_PG_SHARE:-0.9}
bound=${REAL_PG_BOUND:-45}
seconds=${REAL_PG_SECONDS:-60}
out=$NUMAB_OUT/real-postgres
rm -rf "$out"
exec "$NUMAB_ROOT/scripts/servers" --servers postgres --modes move \
	--configs stock,side --seconds "$seconds" --size 256 --out "$out" --show \
	--check "side.postgres.move/numab:hot>=$share@$bound"
