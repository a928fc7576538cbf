#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# numabctl export with the real parts: Debian's prometheus-node-exporter,
# its textfile collector pointed at a directory, and prometheus scraping
# it every second, both started here on loopback on free ports and
# stopped on every way out (bounded waits). A known process (a 16 MiB
# touched anonymous mapping, a name with a double quote, a backslash, a
# line feed, UTF-8 and a byte that is no UTF-8) is exported with every
# other process of the host; Prometheus' HTTP API then has its memory
# per tier with the values of its numa_maps, its name decoded as the
# escaping says, the host's kernel.numa_balancing (switched to 2 for the
# test, put back after), node_exporter's textfile scrape without error,
# and the example alerting rules loaded and healthy. promtool check
# metrics accepts the file, check rules and test rules the rules.
# Skips, saying why, without the packages (scripts/deps installs them).
#
# NUMABCTL=path tests that binary (default tools/numab/numabctl).
. "$(dirname "$0")/../../scripts/lib.sh"
. "$NUMAB_ROOT/tools/numab/tests/knobs.sh"
nx=${NUMABCTL:-$NUMAB_ROOT/tools/numab/numabctl}
rules=$NUMAB_ROOT/tools/numab/prometheus
tmp=$(mktemp -d)
. "$NUMAB_ROOT/tests/lib/tap.sh"
TAP_DIAG_LINES=40 pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do
		# bounded: SIGKILL after 5 s
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	knobs_restore
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
echo "TAP version 13"

for c in prometheus prometheus-node-exporter promtool curl python3 cc; do
	command -v $c >/dev/null || skip_all "$c is missing (scripts/deps installs prometheus, prometheus-node-exporter)"
done
need_numabctl "$nx" "$tmp"

# promtool on its own: the rules and their tests
promtool check rules "$rules/numab-alerts.yml" >"$tmp/rules" 2>&1
t "promtool check rules accepts the example alerting rules" $? "$tmp/rules"
(cd "$rules" && promtool test rules numab-alerts.test.yml) >"$tmp/rtest" 2>&1
t "promtool test rules: stranded memory alerts after 10 minutes, not before; stale exports by their timestamp" $? "$tmp/rtest"

# the known process: 16 MiB touched, then asleep under a hard name
cat >"$tmp/known.c" <<'EOF'
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
int main(void)
{
	size_t sz = 16 << 20;
	char *p = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	memset(p, 1, sz);
	prctl(PR_SET_NAME, "n\"a\\b\n\xc3\xa9\xff", 0, 0, 0);
	write(1, "ready\n", 6);
	pause();
	return 0;
}
EOF
cc -O1 -w -o "$tmp/known" "$tmp/known.c" || skip_all "cannot build the test process"
"$tmp/known" >"$tmp/known.out" &
pids+=($!)
kp=$!
for _ in $(seq 100); do grep -q ready "$tmp/known.out" && break; sleep 0.1; done

# NUMA balancing in tiering mode while the test runs (if this kernel has it)
knobs_balancing 2 || echo "# kernel.numa_balancing cannot be set: the mode is checked as it is"
mode=$(cat /proc/sys/kernel/numa_balancing 2>/dev/null)

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ne_port=$(free_port) pr_port=$(free_port)
mkdir -p "$tmp/textfile" "$tmp/tsdb"

start=$(now_s)
"$nx" export --top 1000 --textfile-directory "$tmp/textfile" 2>"$tmp/export.err"
rc=$?
t "numabctl export of every process into the textfile directory ($(elapsed "$start") s)" \
	$([ $rc = 0 ] && [ "$(ls -A "$tmp/textfile")" = numabctl.prom ]; echo $?) "rc $rc: $(cat "$tmp/export.err")"
cp "$tmp/textfile/numabctl.prom" "$tmp/exported.prom"
promtool check metrics <"$tmp/exported.prom" >"$tmp/lint" 2>&1
t "promtool check metrics accepts the file" $? "$tmp/lint"
# what the file should say about the known process: numa_maps' pages
want_fast=$(awk '{ ps = 4; for (i = 2; i <= NF; i++) if ($i ~ /^kernelpagesize_kB=/) { split($i, a, "="); ps = a[2] }
	for (i = 2; i <= NF; i++) if ($i ~ /^N[0-9]+=/) { split($i, a, "="); s += a[2] * ps * 1024 } } END { print s + 0 }' \
	"/proc/$kp/numa_maps")

cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $rules/numab-alerts.yml
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$ne_port']
EOF
prometheus-node-exporter --web.listen-address="127.0.0.1:$ne_port" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$tmp/textfile" >"$tmp/ne.log" 2>&1 &
pids+=($!)
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--web.listen-address="127.0.0.1:$pr_port" --log.level=warn >"$tmp/prom.log" 2>&1 &
pids+=($!)

# query PROMQL: the result's JSON in $tmp/q.json
query() {
	curl -sf --max-time 5 -G "http://127.0.0.1:$pr_port/api/v1/query" \
		--data-urlencode "query=$1" >"$tmp/q.json" 2>/dev/null
}
# value PROMQL: the value of its only sample, or nothing
value() {
	query "$1" && python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["data"]["result"]
print(r[0]["value"][1] if len(r) == 1 else "")' "$tmp/q.json"
}

start=$(now_s)
got=
for _ in $(seq 120); do	# bounded: 60 s for both to start and one scrape
	got=$(value "numab_process_memory_bytes{pid=\"$kp\",tier=\"fast\"}" 2>/dev/null)
	[ -n "$got" ] && break
	sleep 0.5
done
t "Prometheus scraped the known process's metrics through node_exporter ($(elapsed "$start") s)" \
	$([ -n "$got" ]; echo $?) "$(tail -n 5 "$tmp/ne.log" "$tmp/prom.log")"
t "its fast-tier memory is numa_maps' ($want_fast bytes, at least the 16 MiB it touched)" \
	$([ "$got" = "$want_fast" ] && [ "$want_fast" -ge $((16 << 20)) ]; echo $?) "Prometheus: $got, numa_maps: $want_fast"
got=$(value "numab_process_memory_bytes{pid=\"$kp\",tier=\"slow\"}")
t "its slow-tier memory is 0 (a host with one tier)" $([ "$got" = 0 ]; echo $?) "got '$got'"
query "numab_process_memory_bytes{pid=\"$kp\",tier=\"fast\"}"
python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))["data"]["result"][0]["metric"]
want = "n\"a\\b\n\u00e9\\xff"
sys.exit(0 if m["comm"] == want else 1)' "$tmp/q.json"
t "its name comes back decoded: quote, backslash, line feed, UTF-8, \\xff for the byte that is no UTF-8" $? "$tmp/q.json"
# the backend label: what status says this host's scan state comes from
scan=$("$nx" status 2>/dev/null | awk '$1 == "scan_state" { print $2 }')
got=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["data"]["result"][0]["metric"]["backend"])' "$tmp/q.json")
t "its backend label is the host's scan state ($scan)" $([ -n "$scan" ] && [ "$got" = "$scan" ]; echo $?) "got '$got'"
got=$(value "numab_balancing_mode")
t "numab_balancing_mode is kernel.numa_balancing ($mode)" $([ -n "$mode" ] && [ "$got" = "$mode" ]; echo $?) "got '$got'"
got=$(value 'time() - numab_export_last_success_timestamp_seconds')
t "numab_export_last_success_timestamp_seconds is the export's time (age ${got:-none} s)" \
	$(python3 -c 'import sys; sys.exit(0 if -5 < float(sys.argv[1]) < 600 else 1)' "${got:-x}" 2>/dev/null; echo $?) "got '$got'"
got=$(value 'node_textfile_scrape_error')
t "node_exporter read the file without error (node_textfile_scrape_error 0)" $([ "$got" = 0 ]; echo $?) "got '$got'"
got=$(value 'count(node_textfile_mtime_seconds{file=~"(.*/)?numabctl\\.prom"})')
t "node_exporter names the file in node_textfile_mtime_seconds" $([ "$got" = 1 ]; echo $?) "got '$got'"
for _ in $(seq 20); do	# bounded: the first evaluation within 10 s
	curl -sf --max-time 5 "http://127.0.0.1:$pr_port/api/v1/rules" >"$tmp/rules.json"
	python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))["data"]["groups"]
r = [x for gr in g if gr["name"] == "numab" for x in gr["rules"]]
sys.exit(0 if len(r) == 2 and all(x["health"] == "ok" for x in r) else 1)' "$tmp/rules.json" 2>/dev/null
	rc=$?
	[ $rc = 0 ] && break
	sleep 0.5
done
t "Prometheus loaded the example alerting rules, both healthy" $rc "$tmp/rules.json"

echo "1..$n"
exit $bad
