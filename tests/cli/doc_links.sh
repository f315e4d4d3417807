#!/bin/sh
# SPDX-License-Identifier: MIT
# Every relative link of README.md and docs/*.md points at a file or
# directory of the source tree, and every #anchor at a heading of the page
# it names (GitHub's anchors: the heading in lower case, punctuation but
# '-' and '_' dropped, blanks as '-', a repeated heading numbered -1, -2).
# Links inside code (fenced blocks, `spans`) are not links; http(s) and
# mailto links are not checked.
#   doc_links.sh SOURCE_DIR
set -u
SRC=${1:?usage: doc_links.sh SOURCE_DIR}
cd "$SRC" || exit 1

# anchors FILE: the anchors of FILE's headings, one a line.
anchors() {
	awk '
		/^```/ { code = !code; next }
		code || !/^#+ / { next }
		{
			h = $0
			sub(/^#+ +/, "", h)
			sub(/ +#*$/, "", h)
			h = tolower(h)
			gsub(/[^a-z0-9 _-]/, "", h)
			gsub(/ /, "-", h)
			if (h in seen) { seen[h]++; h = h "-" seen[h] } else seen[h] = 0
			print h
		}' "$1"
}

# links FILE: each link target of FILE, one a line.
links() {
	awk '
		/^```/ { code = !code; next }
		code { next }
		{
			line = $0
			gsub(/`[^`]*`/, "", line)
			while (match(line, /\]\([^) ]+\)/)) {
				print substr(line, RSTART + 2, RLENGTH - 3)
				line = substr(line, RSTART + RLENGTH)
			}
		}' "$1"
}

fail=0
checked=0
for page in README.md docs/*.md; do
	dir=$(dirname "$page")
	for target in $(links "$page"); do
		case $target in
		http://* | https://* | mailto:*) continue ;;
		esac
		path=${target%%#*}
		anchor=
		case $target in
		*#*) anchor=${target#*#} ;;
		esac
		if [ -z "$path" ]; then
			file=$page
		else
			file=$dir/$path
		fi
		checked=$((checked + 1))
		if [ ! -e "$file" ]; then
			echo "FAIL: $page: link to $target: no $file"
			fail=1
			continue
		fi
		if [ -n "$anchor" ]; then
			case $file in
			*.md) ;;
			*)
				echo "FAIL: $page: link to $target: an anchor into a file that is not Markdown"
				fail=1
				continue
				;;
			esac
			if ! anchors "$file" | grep -qx -- "$anchor"; then
				echo "FAIL: $page: link to $target: no heading '#$anchor' in $file"
				fail=1
			fi
		fi
	done
done
[ $checked -gt 0 ] || {
	echo "FAIL: no link found at all"
	fail=1
}
[ $fail = 0 ] && echo "ok: $checked relative links of README.md and docs/*.md resolve"
exit $fail
