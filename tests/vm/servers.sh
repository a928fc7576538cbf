#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Real servers on the slow tier, guest side (scripts/servers boots the
# tiered guest with the host's root filesystem, scripts/vm --rootfs host,
# and runs this): unmodified Debian PostgreSQL 15, Redis and memcached,
# driven by their own clients (pgbench, redis-benchmark, memaslap).
#
#   servers.sh [options] SERVER
#
# SERVER: postgres, redis or memcached. One run:
#   1. start the server, load its data and warm it with its client;
#   2. put its memory on the slow node (node 1): -m move (default) moves
#      every process of the server there with migratepages(8) after
#      warming, the state demotion leaves behind; -m fill fills the fast
#      node (tests/vm/hold) before the server starts, so that it loads
#      and warms on the slow node, then makes room;
#   3. run the client for -T seconds (default 60) while srvsample records
#      every second each process's memory per region on the fast and slow
#      tier and the vmstat counters; the client's own throughput and
#      latency are kept (SRV_CLIENT lines);
#   4. save numabctl vmas of each of the server's processes and a numabctl
#      report of the busiest one (the most CPU time).
#
# Options:
#   -F legacy|default|none  system filters set first with numabctl filter
#                 --legacy / --default; none leaves them (stock has none)
#   -2            side by side: two instances at once under the system
#                 filters, instance "legacy" started by numabctl run
#                 --legacy (per-process overrides), instance "numab" not
#   -s MIB        data size (default 320): shared_buffers of PostgreSQL
#                 (pgbench scale MIB/16, prewarmed), Redis' dataset,
#                 memcached's items
#   -c N          PostgreSQL: client connections, one forked backend each
#                 (default 16); memcached: worker threads (-t, default 16);
#                 Redis: I/O threads (--io-threads, default 1: none)
#   -w SEC        warm-up with the client before the move (default 20)
#   -R SEC        -m move: move every process of the server to the slow
#                 node again SEC seconds after the first move (a second
#                 demotion wave, the same way; SRV_EVENT "moved again"
#                 and SRV_INFO again_t=SEC)
#   -t DIR        PostgreSQL: copy this data directory (initdb and pgbench
#                 -i done, its scale in DIR/numab-scale) instead of making
#                 one here (scripts/servers makes it on the host)
#   -l LABEL      label of every output line (default SERVER)
#   -H            srvsample -H: name each followed page the server used on
#                 the slow node, every second (SRV_HOTSLOW lines)
#   -S            Redis: BGSAVE by the server's own schedule (started with
#                 --save "3 1": one once 3 s have passed since the last and
#                 a key changed) instead of redis-cli bgsave every 3 s: no
#                 program is started during the run (a new process maps
#                 the server's libraries, and what it uses of them counts
#                 as used in the server's "other" region)
#   -a BYTES      fault-around for the run (/sys/kernel/debug/fault_around_bytes,
#                 restored on exit): a read fault on a file maps the pages
#                 around it too, and x86 installs every PTE with the
#                 accessed bit set, so idle page tracking counts those
#                 neighbours as used though nothing read them; 4096 maps
#                 only the page faulted on (the kernel rounds BYTES down
#                 to a power of two and refuses more than 2 MiB)
#   -D NAME=VALUE a NUMA balancing tunable for the run (a file of
#                 /sys/kernel/debug/sched/numa_balancing, e.g.
#                 scan_period_max_ms=2000; restored on exit; repeatable)
#   -N            no numabctl trace of the busiest process: the tracer runs
#                 for the whole run and uses library pages of its own that
#                 the server maps too (libc), which count as used in the
#                 server's "other" region and stay on the slow node (the
#                 tracer uses too little CPU time for its own scans)
#
# PostgreSQL: pgbench -S (select-only) with -c connections. Redis: 90% GET
# and 10% SET by two redis-benchmark processes over the loaded keys, and a
# BGSAVE every 3 s (a forked child shares the heap copy-on-write while it
# writes). memcached: one memaslap run, whose task windows set every key
# once and then only get them: it is started before the move, the move
# comes when all its keys are set, and it goes on for -T seconds.
#
# Output lines: SRV_INFO (with -a and -D: "tunable=NAME value=V was=W"),
# SRV_WARN (a tunable that could not be restored), SRV_EVENT (guest
# seconds since the move), SRV_SAMPLE/SRV_REGION/SRV_PROC (srvsample, label LABEL/INSTANCE),
# SRV_CLIENT (the client's per-second figures), SRV_RESULT (throughput,
# hit rate, errors), and "=== BEGIN NAME" ... "=== END NAME" sections
# (numabctl output). Exit status 0 when the run completed; 1 after one
# "SRV_FAIL label=L what" line when a step failed (a missing program, a
# server that does not start, a client error or miss). Every wait is
# bounded, and the servers are stopped on every exit.
set -u

mode=move filters=none seconds=60 size=320 conns= side=0 label= warm=20 template= hotslow= notrace= selfsave= around= tunables=
again=
while getopts "m:F:T:s:c:l:w:t:a:D:R:2HNS" o; do
	case "$o" in
	t) template=$OPTARG ;;
	m) mode=$OPTARG ;;
	F) filters=$OPTARG ;;
	T) seconds=$OPTARG ;;
	s) size=$OPTARG ;;
	c) conns=$OPTARG ;;
	l) label=$OPTARG ;;
	w) warm=$OPTARG ;;
	2) side=1 ;;
	H) hotslow=-H ;;
	a) around=$OPTARG ;;
	D) case ${OPTARG%%=*}=${OPTARG#*=} in
	   =* | *[!a-z_]*=* | *=*[!0-9]* | *=)
		echo "SRV_FAIL label=? -D $OPTARG: not NAME=NUMBER"; exit 1 ;;
	   esac
	   tunables="$tunables $OPTARG" ;;
	R) again=$OPTARG ;;
	N) notrace=1 ;;
	S) selfsave=1 ;;
	*) echo "SRV_FAIL label=? usage"; exit 1 ;;
	esac
done
shift $((OPTIND - 1))
server=${1:-}
label=${label:-$server}
if [ -n "$selfsave" ] && [ "$server" != redis ]; then
	echo "SRV_FAIL label=$label -S is Redis's save schedule: not for ${server:-no server}"
	exit 1
fi
D=/tmp/srv
rm -rf $D
mkdir -p $D
chmod 1777 $D
t0= holder= instances= bg_pids= cpids=

now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", (a == "" ? 0 : b - a) }'; }
event() { echo "SRV_EVENT label=$label t=$(since) up=$(now) $*"; }
section() { echo "=== BEGIN $1"; cat "$2"; echo "=== END $1"; }
fail() {
	echo "SRV_FAIL label=$label $*"
	for f in $D/*.log $D/*.out; do [ -s "$f" ] && section "log ${f##*/}" "$f"; done
	exit 1
}
need() {
	local how
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 && continue
		case $c in
		numabctl|srvsample|hold) how="'make guest numabctl' builds it into build/guest" ;;
		*) how="scripts/deps installs the servers, clients and numactl on the host" ;;
		esac
		fail "missing $c ($how)"
	done
}
# wait_for SECONDS COMMAND...: poll every 0.2 s until COMMAND succeeds
wait_for() {
	_n=$(($1 * 5))
	shift
	while [ $_n -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2
		_n=$((_n - 1))
	done
	return 1
}
# stop_clients: ends until_stopped's wait of every instance
stop_clients() {
	for i in $instances; do
		: >"$D/stop-$i"
		[ -s "$D/stopper-$i" ] && kill "$(cat "$D/stopper-$i")" 2>/dev/null
	done
	return 0
}
# stop_tree PID...: each PID and its descendants
stop_tree() { for p in "$@"; do kill $(descendants "$p") "$p" 2>/dev/null; done; }
FA=/sys/kernel/debug/fault_around_bytes
NB=/sys/kernel/debug/sched/numa_balancing
restore=
# set_knob OPTION FILE VALUE: write a numeric debugfs tunable for the run;
# cleanup writes back what it held, the last one set first
set_knob() {
	local was
	case $3 in "" | *[!0-9]*) fail "$1 $3: not a number" ;; esac
	[ -f "$2" ] || fail "$1: no $2 (CONFIG_DEBUG_FS, debugfs mounted)"
	was=$(cat "$2") || fail "$1: cannot read $2"
	echo "$3" >"$2" 2>/dev/null || fail "$1 $3: $2 refused it"
	restore="$2=$was $restore"
	echo "SRV_INFO label=$label tunable=${2##*/} value=$(cat "$2") was=$was"
}
cleanup() {
	stop_tree $cpids $bg_pids $holder
	for i in $instances; do stop_$server "$i" 2>/dev/null; done
	for kv in $restore; do
		echo "${kv#*=}" >"${kv%%=*}" 2>/dev/null ||
			echo "SRV_WARN label=$label could not restore ${kv%%=*} to ${kv#*=}"
	done
}
trap cleanup EXIT
trap 'fail "interrupted"' INT TERM

# until_stopped INSTANCE MAX PID...: the client processes PID run until the
# run stops them (stop_clients) or for MAX seconds. One sleep waits for the
# whole run, not a poll: a helper exec'ed twice a second touches pages of
# the shared libraries the server maps, which idle page tracking counts as
# the server's used memory, and it never lives long enough to be scanned.
until_stopped() {
	_i=$1
	sleep "$2" &
	echo $! >"$D/stopper-$_i"
	[ -e "$D/stop-$_i" ] && kill $! 2>/dev/null
	wait $! 2>/dev/null
	rm -f "$D/stopper-$_i"
	shift 2
	# SIGTERM to each and its descendants: a background job of a script
	# ignores SIGINT, and pgbench runs under runuser
	for _p in "$@"; do kill -TERM $(descendants "$_p") "$_p" 2>/dev/null; done
	wait "$@" 2>/dev/null
}
# descendants PID: its children, theirs, ...
descendants() {
	for _c in $(pgrep -P "$1"); do
		echo "$_c"
		descendants "$_c"
	done
}

# port INSTANCE BASE: instance legacy on BASE + 1, the others (main, numab) on BASE
port() { case "$1" in legacy) echo $(($2 + 1)) ;; *) echo "$2" ;; esac; }

# ---- PostgreSQL ----------------------------------------------------------------
PGBIN=/usr/lib/postgresql/15/bin
pg() { runuser -u postgres -- "$@"; }
need_postgres() { need "$PGBIN/postgres" "$PGBIN/pgbench" "$PGBIN/psql" runuser; }
start_postgres() { # start_postgres INSTANCE [PREFIX...]
	inst=$1
	shift
	dir=$D/pg-$inst p=$(port "$inst" 5432)
	rm -rf "$dir"
	# pgbench_accounts and its index about fill shared_buffers: scale 1
	# is 100000 rows, about 15 MiB of table and index
	scale=$((size / 16))
	if [ -n "$template" ]; then
		# a data directory that scripts/servers made on the host with the
		# same binaries (initdb and pgbench -i there take seconds, here
		# minutes)
		[ -s "$template/PG_VERSION" ] || fail "no PostgreSQL data directory in $template"
		cp -a "$template" "$dir" || fail "cp -a $template"
		scale=$(cat "$template/numab-scale" 2>/dev/null || echo "$scale")
	else
		mkdir -p "$dir"
		chown postgres "$dir"
		pg "$PGBIN/initdb" -D "$dir" -A trust --no-sync -E UTF8 --locale=C \
			>"$D/initdb-$inst.log" 2>&1 || fail "initdb of postgres $inst"
	fi
	cat >>"$dir/postgresql.conf" <<EOF
port = $p
listen_addresses = '127.0.0.1'
unix_socket_directories = '/tmp'
shared_buffers = ${size}MB
max_connections = 120
huge_pages = off
fsync = off
synchronous_commit = off
full_page_writes = off
autovacuum = off
max_wal_size = 2GB
checkpoint_timeout = 30min
EOF
	"$@" runuser -u postgres -- "$PGBIN/pg_ctl" -D "$dir" -l "$D/postgres-$inst.log" \
		-w -t 120 start >/dev/null 2>&1 || fail "postgres $inst did not start"
	if [ -z "$template" ]; then
		pg "$PGBIN/pgbench" -h /tmp -p "$p" -i -I dtGp -s "$scale" -q postgres \
			>"$D/pgbench-init-$inst.log" 2>&1 || fail "pgbench -i of postgres $inst"
	fi
	# the prewarming backend stays connected, asleep, with all of
	# shared_buffers mapped (a long-lived connection): migratepages moves
	# the pages a process maps, and this one maps the whole buffer pool
	pg "$PGBIN/psql" -h /tmp -p "$p" -qAt -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" \
		-c "SELECT pg_prewarm('pgbench_accounts') + pg_prewarm('pgbench_accounts_pkey')" \
		-c "SELECT pg_sleep(100000)" postgres >"$D/prewarm-$inst.out" 2>&1 &
	bg_pids="$bg_pids $!"
	wait_for 300 grep -qE '^[0-9]+$' "$D/prewarm-$inst.out" || fail "pg_prewarm of postgres $inst"
	blocks=$(grep -E '^[0-9]+$' "$D/prewarm-$inst.out")
	echo "SRV_INFO label=$label instance=$inst port=$p scale=$scale prewarmed_mib=$((blocks * 8 / 1024))"
}
stop_postgres() { pg "$PGBIN/pg_ctl" -D "$D/pg-$1" -m immediate -w -t 30 stop >/dev/null 2>&1; }
main_pid_postgres() { head -n 1 "$D/pg-$1/postmaster.pid" 2>/dev/null; }
# client_postgres INSTANCE MAX: select-only, a forked backend per
# connection, until stopped
client_postgres() {
	pg "$PGBIN/pgbench" -h /tmp -p "$(port "$1" 5432)" -S -c "${conns:-16}" -j 2 \
		-T "$2" -P 1 postgres >"$D/client-$1-run.out" 2>&1 &
	until_stopped "$1" "$2" $!
}
# "progress: 5.0 s, 123.4 tps, lat 12.3 ms stddev 4.5, 0 failed"
client_lines_postgres() {
	sed -n 's/^progress: \([0-9.]*\) s, \([0-9.]*\) tps, lat \([0-9.]*\) ms.*/\1 \2 \3/p' \
		"$D/client-$1-run.out" | while read -r t tps lat; do
		echo "SRV_CLIENT label=$label instance=$1 t=$t ops_s=$tps lat_ms=$lat"
	done
}
# the progress lines' transactions a second and failures (pgbench is stopped
# before its summary)
result_postgres() {
	f=$D/client-$1-run.out
	set -- "$1" $(sed -n 's/^progress: [0-9.]* s, \([0-9.]*\) tps, .* \([0-9]*\) failed$/\1 \2/p' "$f" |
		awk '{ n++; t += $1; f += $2 } END { if (n) printf "%.1f %d %d", t / n, f, n }')
	echo "SRV_RESULT label=$label instance=$1 ops_s=${2:-?} failed=${3:-?} seconds=${4:-0}"
	[ "${3:-x}" = 0 ] && [ "${4:-0}" -gt 0 ]
}

# ---- Redis -----------------------------------------------------------------------
need_redis() { need redis-server redis-cli redis-benchmark; }
start_redis() { # start_redis INSTANCE [PREFIX...]
	inst=$1
	shift
	p=$(port "$inst" 6379)
	mkdir -p "$D/redis-$inst"
	"$@" redis-server --port "$p" --bind 127.0.0.1 --daemonize yes \
		--pidfile "$D/redis-$inst.pid" --logfile "$D/redis-$inst.log" \
		--dir "$D/redis-$inst" --save "${selfsave:+3 1}" --appendonly no \
		--io-threads "${conns:-1}" --io-threads-do-reads yes ||
		fail "redis $inst did not start"
	wait_for 60 redis-cli -p "$p" ping || fail "redis $inst does not answer"
	# keys key:%012d as redis-benchmark's __rand_int__ makes them, 512
	# byte values (about 700 bytes of memory each)
	keys=$((size * 1024 * 1024 / 700))
	n=$(redis-cli -p "$p" eval "for i = 0, ARGV[1] - 1 do redis.call('SET', string.format('key:%012d', i), string.rep('v', 512)) end return redis.call('DBSIZE')" 0 "$keys" 2>&1)
	[ "$n" = "$keys" ] || fail "redis $inst: loaded $n keys of $keys"
	echo "SRV_INFO label=$label instance=$inst port=$p keys=$keys used_memory=$(redis-cli -p "$p" info memory | sed -n 's/^used_memory_human:\(.*\)\r*$/\1/p' | tr -d '\r')"
}
stop_redis() { redis-cli -p "$(port "$1" 6379)" shutdown nosave >/dev/null 2>&1; }
main_pid_redis() { cat "$D/redis-$1.pid" 2>/dev/null; }
# 90% GET, 10% SET over the loaded keys; a BGSAVE every 3 s
client_redis() {
	p=$(port "$1" 6379) keys=$((size * 1024 * 1024 / 700))
	redis-cli -p "$p" config resetstat >/dev/null
	stdbuf -oL redis-benchmark -p "$p" -c 12 -n 1000000000 -r "$keys" \
		GET key:__rand_int__ >"$D/client-$1-run.out" 2>&1 &
	g=$!
	stdbuf -oL redis-benchmark -p "$p" -c 2 -n 1000000000 -r "$keys" \
		SET key:__rand_int__ "$(printf "%0512d" 0)" >"$D/client-$1-run-set.out" 2>&1 &
	s=$!
	if [ -n "$selfsave" ]; then
		until_stopped "$1" "$2" $g $s
		return
	fi
	(
		saves=0
		while [ ! -e "$D/stop-$1" ]; do
			redis-cli -p "$p" bgsave >/dev/null 2>&1 && saves=$((saves + 1))
			echo "$saves" >"$D/client-$1-run.saves"
			sleep 3
		done
	) &
	until_stopped "$1" "$2" $g $s $!
}
# redis-benchmark redraws "GET ...: rps=R (overall: O) avg_msec=A (overall: B)"
# every 250 ms: every fourth one is a second
client_lines_redis() {
	tr '\r' '\n' <"$D/client-$1-run.out" |
		sed -n 's/.*: rps=\([0-9.]*\) (overall: [0-9.]*) avg_msec=\([0-9.]*\) .*/\1 \2/p' |
		awk -v l="$label" -v i="$1" 'NR % 4 == 0 { printf "SRV_CLIENT label=%s instance=%s t=%d ops_s=%s lat_ms=%s\n", l, i, NR / 4, $1, $2 }'
}
result_redis() {
	p=$(port "$1" 6379)
	st=$(redis-cli -p "$p" info stats | tr -d '\r')
	hits=$(echo "$st" | sed -n 's/^keyspace_hits://p')
	misses=$(echo "$st" | sed -n 's/^keyspace_misses://p')
	forks=$(echo "$st" | sed -n 's/^total_forks://p')
	echo "SRV_RESULT label=$label instance=$1 hits=$hits misses=$misses forks=$forks bgsave_requests=$(cat "$D/client-$1-run.saves" 2>/dev/null || echo 0)"
	[ "${hits:-0}" -gt 0 ] && [ "${misses:-1}" -le $((hits / 100)) ]
}

# ---- memcached -------------------------------------------------------------------
need_memcached() { need memcached memcaslap memcstat; }
start_memcached() { # start_memcached INSTANCE [PREFIX...]
	inst=$1
	shift
	p=$(port "$inst" 11211)
	"$@" memcached -d -u nobody -p "$p" -l 127.0.0.1 -m $((size * 2)) \
		-t "${conns:-16}" -c 1024 -P "$D/memcached-$inst.pid" >"$D/memcached-$inst.log" 2>&1 ||
		fail "memcached $inst did not start"
	wait_for 60 memcstat --servers="127.0.0.1:$p" || fail "memcached $inst does not answer"
	echo "SRV_INFO label=$label instance=$inst port=$p threads=${conns:-16}"
}
# gone before the next run starts one on the same port: a memcached -d
# that cannot bind exits after its parent returned 0, and the old server
# would answer for it until it is gone
stop_memcached() {
	local p
	p=$(cat "$D/memcached-$1.pid" 2>/dev/null) || return 0
	kill "$p" 2>/dev/null
	wait_for 30 sh -c "! kill -0 $p 2>/dev/null"
}
main_pid_memcached() { cat "$D/memcached-$1.pid" 2>/dev/null; }
mc_stat() { memcstat --servers="127.0.0.1:$(port "$1" 11211)" 2>/dev/null | sed -n "s/^[[:space:]]*$2: //p"; }
# memaslap's keys: 32 concurrencies x a window of W thousand (1024) keys,
# 1000-byte values (about 1100 bytes an item); each key is set once, then
# only read (get ratio 1.0)
mc_window_k() { w=$((size * 1024 * 1024 / 1100 / 32 / 1024)); echo $((w > 0 ? w : 1)); }
mc_keys() { echo $((32 * $(mc_window_k) * 1024)); }
mc_filled() { [ "$(mc_stat "$1" curr_items)" -ge "$(mc_keys)" ]; }
client_memcached() { # loads, then reads, until stopped
	printf 'key\n64 64 1\nvalue\n1000 1000 1\ncmd\n0 0.0\n1 1.0\n' >$D/memaslap.cfg
	stdbuf -oL memcaslap -s "127.0.0.1:$(port "$1" 11211)" -T 2 -c 32 -w "$(mc_window_k)k" \
		-F $D/memaslap.cfg -S 1s -t "$2s" >"$D/client-$1-run.out" 2>&1 &
	until_stopped "$1" "$2" $!
}
# the "Total Statistics" block's "Period" line, every second
client_lines_memcached() {
	awk -v l="$label" -v i="$1" '/^Total Statistics/ { tot = 1; next }
		/^Get Statistics|^Set Statistics/ { tot = 0 }
		tot && $1 == "Period" { t++; printf "SRV_CLIENT label=%s instance=%s t=%d ops_s=%s lat_ms=%.3f\n", l, i, t, $4, $9 / 1000 }' \
		"$D/client-$1-run.out"
}
result_memcached() {
	hits=$(mc_stat "$1" get_hits) misses=$(mc_stat "$1" get_misses)
	echo "SRV_RESULT label=$label instance=$1 hits=$hits misses=$misses items=$(mc_stat "$1" curr_items) keys=$(mc_keys)"
	[ "${hits:-0}" -gt 0 ] && [ "${misses:-1}" -le $((hits / 100)) ]
}

# ---- the run ---------------------------------------------------------------------
case "$server" in
postgres | redis | memcached) ;;
*) fail "unknown server '$server' (postgres, redis or memcached)" ;;
esac
case "$mode" in move | fill) ;; *) fail "bad -m $mode (move or fill)" ;; esac
case "$again" in
"") ;;
*[!0-9]*) fail "bad -R $again (seconds)" ;;
*) [ "$mode" = move ] && [ "$again" -gt 0 ] && [ "$again" -lt "$seconds" ] ||
	fail "-R $again: a second move needs -m move and 0 < SEC < -T $seconds" ;;
esac
need_$server
need numabctl srvsample hold migratepages
case "$filters" in
legacy | default) numabctl filter --$filters >/dev/null 2>&1 || fail "numabctl filter --$filters" ;;
none) ;;
*) fail "bad -F $filters (legacy, default or none)" ;;
esac
echo 2 >/proc/sys/kernel/numa_balancing || fail "cannot set numa_balancing=2"
# -D took NAME=NUMBER only, and set_knob takes numbers only: the lists
# below split on spaces, unquoted, and hold no glob
[ -n "$around" ] && set_knob -a $FA "$around"
for kv in $tunables; do set_knob -D "$NB/${kv%%=*}" "${kv#*=}"; done
echo "SRV_INFO label=$label server=$server mode=$mode filters=$filters side=$side seconds=$seconds size_mib=$size kernel=$(uname -r)"
if [ -r /proc/sys/kernel/numa_balancing_filter_pid ]; then
	f=
	for n in pid shared_ro scan_delay shared_folio cpuset promo_slowdown; do
		f="$f $n=$(cat /proc/sys/kernel/numa_balancing_filter_$n 2>/dev/null)"
	done
	echo "SRV_INFO label=$label system_filters:$f"
fi
instances=main
[ $side = 1 ] && instances="legacy numab"

if [ "$mode" = fill ]; then
	# the fast node full while the server starts, loads and warms; clean
	# page cache dropped, so that the server's binary is read in under it
	rm -f $D/hold.ready
	hold -n 0 -f 48 -r $D/hold.ready >$D/hold.log 2>&1 &
	holder=$!
	wait_for 300 test -e $D/hold.ready || fail "hold did not fill node 0: $(cat $D/hold.log)"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	event "fast node filled: $(cat $D/hold.log)"
fi
for i in $instances; do
	if [ "$i" = legacy ]; then
		start_$server "$i" numabctl run --legacy --
	else
		start_$server "$i"
	fi
done
event "loaded"

# The clients run from the warm-up through the measurement and past it,
# as a connection pool does: the server's processes that serve them have
# been running (and scanning) before their memory goes to the slow tier.
# They run on after the samples, while numabctl looks at the server.
# A client runs until the run stops it, at most this long:
client_max=$((warm + seconds + 900))
for i in $instances; do
	rm -f "$D/stop-$i" "$D/stopper-$i"
	eval "cstart_$i=\$(now)"
	client_$server "$i" "$client_max" &
	cpids="$cpids $!"
done
if [ "$server" = memcached ]; then
	for i in $instances; do
		wait_for 300 mc_filled "$i" ||
			fail "memaslap did not set its $(mc_keys) keys in 300 s ($(mc_stat "$i" curr_items))"
	done
	event "memaslap set its $(mc_keys) keys"
fi
sleep "$warm"
event "warmed"

# every process of every instance to the slow node. The server is stopped
# while its memory moves (SIGSTOP, then SIGCONT): the move is one moment,
# not a minute of its own work competing with the server's, and a process
# cannot exit half-moved.
move_all() {
	local i main pids p
	for i in $instances; do
		main=$(main_pid_$server "$i")
		pids="$main $(pgrep -P "$main")"
		kill -STOP $pids
		for p in $pids; do
			migratepages "$p" 0 1 && continue
			# a child (Redis's BGSAVE) that exited before the stop
			# is gone or a zombie: it has no memory left to move
			case $(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' /proc/$p/status 2>/dev/null) in
			"" | Z) continue ;;
			esac
			kill -CONT $pids
			fail "migratepages $p 0 1"
		done
		kill -CONT $pids
	done
}

mv0=$(now)
if [ "$mode" = fill ]; then
	kill "$holder"
	wait "$holder" 2>/dev/null
	holder=
	what="room made on the fast node"
else
	move_all
	what="moved to the slow node"
fi
# time 0: the move done (or the room made); samples count from here
t0=$(now)
event "$what in $(awk -v a="$mv0" -v b="$t0" 'BEGIN { printf "%.1f", b - a }') s"
samplers=
for i in $instances; do
	# ahead of the server's processes, so that samples come every second
	nice -n -20 srvsample -l "$label/$i" -r "$(main_pid_$server "$i")" -P $hotslow -i 1 >$D/samples-$i.txt 2>&1 &
	samplers="$samplers $!"
done
# what the scanner did with each VMA of one process over the whole run
# (sched_skip_vma_numa): the server's busiest process, the main one or
# the child that used the most CPU before the move
tracer= traced=
if [ -z "$notrace" ] && { [ -e /sys/kernel/tracing/events/sched/sched_skip_vma_numa ] ||
	[ -e /sys/kernel/debug/tracing/events/sched/sched_skip_vma_numa ]; }; then
	i=${instances%% *}
	main=$(main_pid_$server "$i")
	traced=$(ps -o pid=,time= --ppid "$main" -p "$main" --sort=-time 2>/dev/null | awk 'NR == 1 { print $1 }')
	if [ -n "$traced" ]; then
		timeout $((seconds + 30)) numabctl trace -d "$seconds" "$traced" >$D/trace-$traced.txt 2>&1 &
		tracer=$!
	fi
fi
if [ -n "$again" ]; then
	# the second wave at t=again, on the clock of the first (t0)
	sleep "$(awk -v a="$t0" -v b="$(now)" -v r="$again" 'BEGIN { d = a + r - b; printf "%.1f", (d > 0 ? d : 0) }')"
	mv1=$(now)
	move_all
	echo "SRV_INFO label=$label again_t=$(since)"
	event "moved again in $(awk -v a="$mv1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s"
	sleep "$(awk -v a="$t0" -v b="$(now)" -v r="$seconds" 'BEGIN { d = a + r - b; printf "%.1f", (d > 0 ? d : 0) }')"
else
	sleep "$seconds"
fi
kill $samplers 2>/dev/null
wait $samplers 2>/dev/null
if [ -n "$tracer" ]; then
	wait $tracer 2>/dev/null
	section "trace $label ${instances%% *} $traced $(cat /proc/$traced/comm 2>/dev/null)" $D/trace-$traced.txt
fi
event "sampled"
rc=0
[ "$server" = memcached ] && for i in $instances; do result_memcached "$i" >$D/result-$i.txt || rc=1; done

# numabctl on the real server while the clients still run: the verdicts
# (and why) of the main process and of the three others with the most
# memory on the slow node and of the busiest one (the most CPU time), and
# a report of the busiest: a PostgreSQL backend rather than a process that
# maps the buffer pool and stays idle. The main process when that one is
# gone (a Redis BGSAVE child exits within seconds) or cannot be told.
slow_kb() {
	awk '{ n = 4; for (f = 1; f <= NF; f++) { if ($f ~ /^kernelpagesize_kB=/) n = substr($f, 19) }
	       for (f = 1; f <= NF; f++) if ($f ~ /^N1=/) s += substr($f, 4) * n } END { print s + 0 }' \
		/proc/$1/numa_maps 2>/dev/null
}
for i in $instances; do
	main=$(main_pid_$server "$i")
	ranked=$(for p in $(pgrep -P "$main") "$main"; do echo "$(slow_kb "$p") $p"; done | sort -rn)
	busiest=$(ps -o pid= --ppid "$main" -p "$main" --sort=-time 2>/dev/null | awk 'NR == 1 { print $1 }')
	busiest=${busiest:-$main}
	# the release prediction of a stranded VMA waits up to 10 s to
	# measure the scan rate: the main process's vmas and the report
	# measure it, the others go without (--rate 0)
	for p in "$main" $( (echo "$ranked" | cut -d' ' -f2 | grep -vx "$main" | head -n 3; echo "$busiest") |
			     grep -vx "$main" | awk '!seen[$0]++'); do
		rate=
		[ "$p" = "$main" ] || rate="--rate 0"
		numabctl vmas --min-size 64K -o +WHY $rate "$p" >$D/vmas-$p.txt 2>&1
		section "vmas $label $i $p $(cat /proc/$p/comm 2>/dev/null)" $D/vmas-$p.txt
	done
	if [ -n "$busiest" ]; then
		numabctl report -d 2 -w $D/report-$i.txt "$busiest" >$D/report-$i.err 2>&1
		rrc=$?
		if [ $rrc = 5 ] && [ "$busiest" != "$main" ]; then
			busiest=$main
			numabctl report -d 2 -w $D/report-$i.txt "$busiest" >>$D/report-$i.err 2>&1
			rrc=$?
		fi
		[ $rrc = 0 ] || section "report error $label $i" $D/report-$i.err
		[ -s $D/report-$i.txt ] && section "report $label $i $busiest" $D/report-$i.txt
	fi
done
event "numabctl done"
stop_clients
wait $cpids 2>/dev/null
cpids=
event "client done"
for i in $instances; do
	cat $D/samples-$i.txt
	# the client's clock started before the move
	eval "off=\$(awk -v a=\"\$cstart_$i\" -v b=\"$t0\" 'BEGIN { print b - a }')"
	client_lines_$server "$i" | awk -v off="$off" '{
		for (f = 1; f <= NF; f++) if ($f ~ /^t=/) { $f = sprintf("t=%.1f", substr($f, 3) - off) }
		print }'
	if [ "$server" = memcached ]; then
		cat $D/result-$i.txt
	else
		result_$server "$i" || rc=1
	fi
done
[ $rc = 0 ] || fail "client errors or misses (SRV_RESULT lines)"
event "done"
exit 0
