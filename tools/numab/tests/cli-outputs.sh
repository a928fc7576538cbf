# SPDX-License-Identifier: GPL-2.0
# CLI tests: what numabctl does with the files it is told to write, the
# columns and options it is given, and what it says when there is nothing
# to show.  Sourced by tests/check.sh (its helpers).
P=$FIX/patched U=$FIX/unpatched-6.12

# --- output files are written through, like shell redirection ------------------
# report -w and filter --save: a regular file is replaced atomically (its
# mode kept); anything else (a symlink, a FIFO, a character device) is
# opened and written, never replaced by a regular file.
O=$TMP/outfiles; rm -rf "$O"; mkdir -p "$O"
echo old > "$O/reg"; chmod 600 "$O/reg"
nx "$P" filter --save "$O/reg"
t "filter --save to a regular file: replaced, its mode kept" eval 'rc 0 && [ -f "$O/reg" ] && grep -q "^kernel.numa_balancing_filter_pid = 2$" "$O/reg" && [ "$(stat -c %a "$O/reg")" = 600 ] && [ -z "$(ls "$O" | grep -v "^reg$")" ]'
echo old > "$O/target"; ln -s target "$O/link"
nx "$P" filter --save "$O/link"
t "filter --save to a symlink: the link stays, its target gets the data" eval 'rc 0 && [ -L "$O/link" ] && grep -q "^kernel.numa_balancing_filter_pid = 2$" "$O/target"'
ln -s nowhere "$O/dangling"
nx "$P" filter --save "$O/dangling"
t "filter --save to a dangling symlink: the link stays, its target is created" eval 'rc 0 && [ -L "$O/dangling" ] && grep -q "^kernel.numa_balancing_filter_pid = 2$" "$O/nowhere"'
nx "$P" report 4242 -d 0 --no-trace -w "$O/link"
t "report -w to a symlink: the link stays" eval 'rc 0 && [ -L "$O/link" ] && grep -q "^numabctl " "$O/target"'
mkfifo "$O/fifo"
# the reader first, every wait bounded (a FIFO open blocks until both ends are there)
( timeout 20 cat "$O/fifo" > "$O/fifo.read" ) & rd=$!
timeout 20 "$BIN" --sysroot "$P" report 4242 -d 0 --no-trace -w "$O/fifo" > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
wait $rd
t "report -w to a FIFO: its reader gets the report, the FIFO stays a FIFO" eval 'rc 0 && [ -p "$O/fifo" ] && grep -q "^Report:" "$O/fifo.read"'
( timeout 20 cat "$O/fifo" > "$O/fifo.read" ) & rd=$!
timeout 20 "$BIN" --sysroot "$P" filter --save "$O/fifo" > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
wait $rd
t "filter --save to a FIFO: its reader gets the values" eval 'rc 0 && [ -p "$O/fifo" ] && grep -q "^kernel.numa_balancing_filter_pid = 2$" "$O/fifo.read"'
# /dev/stdout itself is not written to here: an old numabctl would replace it
ln -s /dev/stdout "$O/stdout"
nx "$P" report 4242 -d 0 --no-trace -w "$O/stdout"
t "report -w to a link to /dev/stdout: to standard output, the link stays" eval 'rc 0 && has "^Report:" && [ -L "$O/stdout" ]'
if [ "$(id -u)" = 0 ] && mknod "$O/full" c 1 7 2> /dev/null && mknod "$O/null" c 1 3 2> /dev/null; then
	nx "$P" report 4242 -d 0 --no-trace -w "$O/full"
	t "report -w to a full device: write error, exit 2, the device stays" eval 'rc 2 && [ -c "$O/full" ] && has "No space left" err'
	nx "$P" filter --save "$O/full"
	t "filter --save to a full device: exit 2, the device stays" eval 'rc 2 && [ -c "$O/full" ]'
	nx "$P" report 4242 -d 0 --no-trace -w "$O/null"
	t "report -w to a character device: written, the device stays" eval 'rc 0 && [ -c "$O/null" ] && [ -z "$(ls "$O" | grep "^null\.")" ]'
else
	skip "report -w to a character device" "needs root (mknod)"
fi
mkdir "$O/dir"
nx "$P" filter --save "$O/dir"
t "filter --save to a directory: exit 2, says it is one" eval 'rc 2 && [ -d "$O/dir" ] && has "Is a directory" err'
nx "$P" filter --save "$O/new"
t "filter --save to a new file: created" eval 'rc 0 && [ -f "$O/new" ] && [ -z "$(ls "$O" | grep "^new\.")" ]'

# --- columns are checked before any work, in every command --------------------
nx "$P" status -o NODE,FREE,BOGUS
t "status -o NODE,FREE,BOGUS: exit 1, names the column, prints nothing" eval 'rc 1 && lines 0 && has BOGUS err && has "Try " err'
nx "$P" status -J -o BOGUS
t "status -J -o BOGUS: exit 1" eval 'rc 1 && lines 0 && has BOGUS err'
# a column error comes before the process is looked at (31337 does not exist)
nx "$P" vmas -o START,BOGUS 31337
t "vmas -o BOGUS: exit 1 before the process is read" eval 'rc 1 && has BOGUS err && hasnt 31337 err'
nx "$P" watch -o BOGUS -n 1 31337
t "watch -o BOGUS: exit 1 before sampling" eval 'rc 1 && has BOGUS err'
timeout 10 "$BIN" --sysroot "$P" trace -o BOGUS -d 3 31337 > "$TMP/out" 2> "$TMP/err"; echo $? > "$TMP/rc"
t "trace -o BOGUS -d 3: exit 1 at once, before tracing" eval 'rc 1 && has BOGUS err'
nx "$P" filter -o NAME,BOGUS
t "filter -o BOGUS: exit 1" eval 'rc 1 && lines 0 && has BOGUS err'
nx "$FIX/per-process" filter --pid 4242 -o NAME,BOGUS
t "filter --pid -o BOGUS: exit 1" eval 'rc 1 && lines 0 && has BOGUS err'

# --- every command-line error says how to get help (Try line), exit 1 --------------
try_line() { # DESCRIPTION ARGS...: exit 1 and the Try line
	d=$1; shift
	nx "$P" "$@"
	t "usage error has the Try line: $d" eval 'rc 1 && has "^Try '"'"'numabctl " err'
}
try_line "vmas --backend bogus" vmas --backend bogus 4242
try_line "vmas --rate -1" vmas --rate -1 4242
try_line "vmas --rate x" vmas --rate x 4242
try_line "run -f bogus" run -f bogus -- true
try_line "run -f pid=bogus" run -f pid=bogus -- true
try_line "filter --pid PID bogus=1" filter --pid 4242 bogus=1
try_line "filter --pid PID pid=bogus" filter --pid 4242 pid=bogus
try_line "filter --pid PID bogus" filter --pid 4242 bogus
try_line "filter pid=bogus" filter pid=bogus
try_line "vmas --min-size x" vmas --min-size x 4242
try_line "vmas --stale x" vmas --stale x 4242
try_line "vmas -p '('" vmas -p '(' 
try_line "watch -i x" watch -i x 4242
try_line "watch -n x" watch -n x 4242
try_line "trace -d -1" trace -d -1 4242
try_line "report -d x" report -d x 4242
try_line "status operand" status extra
try_line "--json=bogus" status --json=bogus
