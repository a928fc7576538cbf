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
