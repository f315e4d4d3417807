#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/compare-builds.sh BUILD_A BUILD_B [OUTDIR]
#
# Runs both builds' gpuscope on the same traces and says, per output,
# whether they are byte-identical: a refactoring that should not change
# behaviour must say "identical" everywhere. Outputs: analyze (text,
# --format json, --format html) and export (--format chrome, --format csv),
# each with its exit status and stderr. Traces: every readable trace in
# ../shared/data (the Kineto .json.gz and Nsight .sqlite files; pipit's
# .csv event lists are not gpuscope inputs), every trace in samples/, and
# one generated trace of GS_COMPARE_OPS (100000) ops from BUILD_A's (else
# BUILD_B's) bench/gs_bench_gen, skipped when neither build has it.
#
# Normalised before comparing: the tool version ("gpuscope 0.1.0" ->
# "gpuscope VERSION"), the one field that may legitimately differ between
# two builds. Nothing else is.
#
# Exit 0 when every output is identical, 1 when any differs, 2 on misuse.
set -u

usage() {
	echo "usage: bench/compare-builds.sh BUILD_A BUILD_B [OUTDIR]" >&2
	exit 2
}
[ $# -ge 2 ] && [ $# -le 3 ] || usage
A=$(cd "$1" 2>/dev/null && pwd) || { echo "compare-builds: no build directory $1" >&2; exit 2; }
B=$(cd "$2" 2>/dev/null && pwd) || { echo "compare-builds: no build directory $2" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
OUT=${3:-$(mktemp -d "${TMPDIR:-/tmp}/gs-compare.XXXXXX")}
mkdir -p "$OUT" || exit 2
OUT=$(cd "$OUT" && pwd)
GA=$A/analyzer/gpuscope
GB=$B/analyzer/gpuscope
for g in "$GA" "$GB"; do
	[ -x "$g" ] || { echo "compare-builds: no gpuscope at $g" >&2; exit 2; }
done

DATA=${GS_SHARED_DATA:-$here/../shared/data}
[ -d "$DATA" ] || DATA=/work/shared/data
OPS=${GS_COMPARE_OPS:-100000}

traces=$OUT/traces.txt
: >"$traces"
if [ -d "$DATA" ]; then
	find "$DATA" -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.sqlite' \) |
		sort | while read -r f; do [ -r "$f" ] && echo "$f"; done >>"$traces"
else
	echo "compare-builds: no shared data ($DATA): skipped" >&2
fi
find "$here/samples" -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.gscope' \) |
	sort >>"$traces"
gen=
for b in "$A" "$B"; do
	if [ -x "$b/bench/gs_bench_gen" ]; then
		gen=$b/bench/gs_bench_gen
		break
	fi
done
if [ -n "$gen" ]; then
	if "$gen" --ops "$OPS" --gscope "$OUT/bench_$OPS.gscope" >/dev/null 2>"$OUT/gen.err"; then
		echo "$OUT/bench_$OPS.gscope" >>"$traces"
	else
		echo "compare-builds: $gen failed: $(head -1 "$OUT/gen.err")" >&2
	fi
else
	echo "compare-builds: no bench/gs_bench_gen in either build: no generated trace" >&2
fi

norm() {
	sed -E 's/gpuscope [0-9]+\.[0-9]+\.[0-9]+[-+~.0-9A-Za-z]*/gpuscope VERSION/g' "$1"
}

# run NAME GPUSCOPE DIR ARGS...: in DIR (so that the outputs' names, as
# a message may say them, are the same for both builds), stdout to
# NAME.out, stderr and the exit status to NAME.err.
run() {
	name=$1 g=$2 d=$3
	shift 3
	(cd "$d" && "$g" "$@" >"$name.out" 2>"$name.err.raw"
	echo "exit $?" >>"$name.err.raw"
	mv "$name.err.raw" "$name.err")
}

ndiff=0
nsame=0
n=0
while read -r t; do
	n=$((n + 1))
	case $t in
	"$DATA"/*) rel=data/${t#"$DATA"/} ;;
	"$here"/*) rel=${t#"$here"/} ;;
	*) rel=$(basename "$t") ;;
	esac
	for side in a b; do
		if [ $side = a ]; then g=$GA; else g=$GB; fi
		d=$OUT/$side/$n
		rm -rf "$d"
		mkdir -p "$d/csv"
		run analyze_text "$g" "$d" analyze "$t"
		run analyze_json "$g" "$d" analyze --format json "$t"
		run analyze_html "$g" "$d" analyze --format html "$t"
		run export_chrome "$g" "$d" export --format chrome -o chrome.json "$t"
		run export_csv "$g" "$d" export --format csv -o csv/ "$t"
	done
	files=$( (cd "$OUT/a/$n" && find . -type f; cd "$OUT/b/$n" && find . -type f) |
		sed 's|^\./||' | sort -u)
	for f in $files; do
		fa=$OUT/a/$n/$f
		fb=$OUT/b/$n/$f
		if [ ! -f "$fa" ] || [ ! -f "$fb" ]; then
			ndiff=$((ndiff + 1))
			echo "DIFFERENT  $rel $f: written by one build only"
			continue
		fi
		norm "$fa" >"$OUT/na"
		norm "$fb" >"$OUT/nb"
		if cmp -s "$OUT/na" "$OUT/nb"; then
			nsame=$((nsame + 1))
			echo "identical  $rel $f"
		else
			ndiff=$((ndiff + 1))
			first=$(cmp "$OUT/na" "$OUT/nb" 2>&1 | sed -n 's/.* line \([0-9]*\).*/\1/p')
			echo "DIFFERENT  $rel $f: first at line $first:"
			echo "  A: $(sed -n "${first:-1}p" "$OUT/na" | cut -c1-160)"
			echo "  B: $(sed -n "${first:-1}p" "$OUT/nb" | cut -c1-160)"
		fi
	done
done <"$traces"
rm -f "$OUT/na" "$OUT/nb"
echo "compare-builds: $n traces, $nsame outputs identical, $ndiff different (outputs in $OUT)"
[ "$ndiff" -eq 0 ]
