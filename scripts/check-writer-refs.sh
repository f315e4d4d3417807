#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The analyses never call the writers: no object of an analysis file of
# gs_analyzer (analyzer/src/, writers apart) references a symbol that a
# writer's object defines. The writers are the files that render a report
# (report_text*, report_json, report_html*, job_text/json/html, job_view,
# *_out, diff_write, plan_output, dump); the output sink (out.c) is no
# writer but what they all write through.
#
#   scripts/check-writer-refs.sh BUILDDIR
#
# Prints each reference; exit 1 if any, 0 if none, 2 when BUILDDIR has no
# gs_analyzer objects.
set -u

dir=${1:?usage: check-writer-refs.sh BUILDDIR}/analyzer/CMakeFiles/gs_analyzer.dir/src
nm=${NM:-nm}
if ! ls "$dir"/*.c.o >/dev/null 2>&1; then
	echo "check-writer-refs: no objects under $dir" >&2
	exit 2
fi

is_writer() {
	case $(basename "$1" .c.o) in
	report_text* | report_json | report_html* | job_text | job_json | job_html | job_view | \
		*_out | diff_write | plan_output | dump) return 0 ;;
	esac
	return 1
}

# Only objects of sources that still exist: a build directory keeps the
# objects of files since renamed or removed.
src=$(cd "$(dirname "$0")/../analyzer/src" && pwd)
writers=() analyses=()
for o in "$dir"/*.c.o; do
	[ -e "$src/$(basename "$o" .o)" ] || continue
	if is_writer "$o"; then writers+=("$o"); else analyses+=("$o"); fi
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
