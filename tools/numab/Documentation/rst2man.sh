#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rst -> man(7) on standard output.  Uses docutils' rst2man when it is
# installed; otherwise a small converter that handles what numabctl.rst
# uses (sections, literal blocks, line blocks, definition lists, **bold**,
# *italic*, ``literal``).
rst=$1
for c in rst2man rst2man.py; do
	if command -v $c > /dev/null 2>&1 && $c "$rst" 2> /dev/null; then
		exit 0
	fi
done
awk '
function inline(s) {
	gsub(/\\/, "\\e", s)
	gsub(/\*\*[^*]+\*\*/, "\\fB&\\fR", s); gsub(/\\fB\*\*/, "\\fB", s); gsub(/\*\*\\fR/, "\\fR", s)
	gsub(/``/, "", s)
	gsub(/\*[^* ][^*]*\*/, "\\fI&\\fR", s); gsub(/\\fI\*/, "\\fI", s); gsub(/\*\\fR/, "\\fR", s)
	sub(/^[.'"'"']/, "\\\\\\&&", s)
	return s
}
BEGIN { n = 0; lit = 0 }
{ line[++n] = $0 }
END {
	print ".TH NUMABCTL 8 \"\" \"numabctl\" \"System Administration\""
	for (i = 1; i <= n; i++) {
		l = line[i]; nx = line[i + 1]
		if (l ~ /^(=+|-+)$/ && i < 8) continue
		if (i < 8 && nx ~ /^(=+|-+)$/ && line[i - 1] ~ /^(=+|-+)$/) {
			if (l ~ /inspect/) { print ".SH NAME"; print "numabctl \\- " l }
			i++; continue
		}
		if (l ~ /^:Manual/) continue
		if (nx ~ /^=+$/ && length(nx) == length(l)) { print ".SH " toupper(l); i++; lit = 0; continue }
		if (nx ~ /^-+$/ && length(nx) == length(l)) { print ".SS " inline(l); i++; lit = 0; continue }
		if (lit && l != "" && l !~ /^   /) { print ".fi"; lit = 0 }
		if (lit) { sub(/^   /, "", l); gsub(/\\/, "\\e", l); print l; continue }
		if (l ~ /::$/) { sub(/::$/, ":", l); print inline(l); print ".nf"; lit = 1; continue }
		if (l ~ /^\| /) { sub(/^\| /, "", l); print inline(l); print ".br"; continue }
		if (l == "") { print ".PP"; continue }
		if (l ~ /^    /) { sub(/^ +/, "", l); print ".RS"; print inline(l); print ".RE"; continue }
		print inline(l)
	}
	if (lit) print ".fi"
}' "$rst"
