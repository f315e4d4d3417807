#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The analyses never call the writers: no object of gs_analyzer built from
# analyzer/analyses/ or analyzer/results/ references a symbol that an
# object built from analyzer/writers/ defines.
#
#   scripts/check-writer-refs.sh BUILDDIR
#
# Prints each reference; exit 1 if any, 0 if none, 2 when BUILDDIR has no
# gs_analyzer objects.
set -u

dir=${1:?usage: check-writer-refs.sh BUILDDIR}/analyzer/CMakeFiles/gs_analyzer.dir
root=$(cd "$(dirname "$0")/.." && pwd)/analyzer
nm=${NM:-nm}
if ! ls "$dir"/*/*.c.o >/dev/null 2>&1; then
	echo "check-writer-refs: no objects under $dir" >&2
	exit 2
fi

# Only objects of sources that still exist: a build directory keeps the
# objects of files since renamed or removed.
writers=() analyses=()
for o in "$dir"/analyses/*.c.o "$dir"/results/*.c.o "$dir"/writers/*.c.o; do
	[ -e "$o" ] || continue
	folder=$(basename "$(dirname "$o")")
	[ -e "$root/$folder/$(basename "$o" .o)" ] || continue
	if [ "$folder" = writers ]; then writers+=("$o"); else analyses+=("$o"); fi
done
defined=$("$nm" --defined-only -g "${writers[@]}" | awk 'NF == 3 { print $3 }' | LC_ALL=C sort -u)
bad=0
for o in "${analyses[@]}"; do
	while read -r sym; do
		[ -n "$sym" ] || continue
		echo "$(basename "$o" .o) references $sym (a writer's)"
		bad=1
	done < <("$nm" -u "$o" | awk '{ print $NF }' | LC_ALL=C sort -u | LC_ALL=C comm -12 - <(echo "$defined"))
done
if [ $bad = 1 ]; then
	echo "check-writer-refs: an analysis calls a writer (docs/design.md, Layers)" >&2
	exit 1
fi
echo "check-writer-refs: ${#analyses[@]} analysis objects, none references the ${#writers[@]} writers'"
exit 0
