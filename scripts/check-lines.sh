#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# No source file over 1,500 lines: every .c, .h, .cu, .py and .sh file git
# tracks (and new ones not yet added, unless ignored: as `make format-check`
# picks them) must be at most LIMIT lines. A longer file is split by theme,
# its shared helpers in a small header or .c beside the pieces.
#
#   scripts/check-lines.sh [SRCDIR]
#
# LIMIT is 1500 (GS_MAX_LINES overrides it). No generated or vendored file
# is tracked today (generated code, such as the protobuf-c sources, lives in
# the build directory), so none is left out. A file over the limit while it
# waits to be split is listed in `known` below (none is today), so that the
# check passes; one that is no longer over it fails too, so that the list
# only shrinks. Prints each file over the limit with its count; exit 1 if
# any (or a stale `known` entry), 0 if none. Outside a git checkout, every
# such file under SRCDIR is checked (build*/ directories left out).
set -u

src=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
cd "$src" || exit 2
limit=${GS_MAX_LINES:-1500}

# Over the limit today: none. Remove a line when its file is split.
known=()

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	mapfile -t files < <(git ls-files --cached --others --exclude-standard -- \
		'*.c' '*.h' '*.cu' '*.py' '*.sh' | sort -u)
else
	mapfile -t files < <(find . -path './build*' -prune -o \
		\( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.py' -o -name '*.sh' \) \
		-type f -print | sed 's|^\./||' | sort)
fi
if [ ${#files[@]} -eq 0 ]; then
	echo "check-lines: no source files under $src" >&2
	exit 2
fi

is_known() {
	local k
	for k in "${known[@]}"; do
		[ "$k" = "$1" ] && return 0
	done
	return 1
}

fail=0 over=0
declare -A seen=()
for f in "${files[@]}"; do
	[ -f "$f" ] || continue # tracked, deleted in the work tree
	n=$(wc -l <"$f")
	[ "$n" -gt "$limit" ] || continue
	if is_known "$f"; then
		seen[$f]=1
		echo "check-lines: $f: $n lines (over $limit; known)"
		continue
	fi
	echo "check-lines: $f: $n lines, over $limit: split it by theme" >&2
	over=$((over + 1))
	fail=1
done
for k in "${known[@]}"; do
	if [ -z "${seen[$k]:-}" ]; then
		echo "check-lines: $k is listed as known but is not over $limit lines:" \
			"remove it from scripts/check-lines.sh" >&2
		fail=1
	fi
done
if [ "$fail" = 0 ]; then
	echo "check-lines: ${#files[@]} files, none over $limit lines (${#known[@]} known)"
elif [ "$over" -gt 0 ]; then
	echo "check-lines: $over file(s) over $limit lines" >&2
fi
exit "$fail"
