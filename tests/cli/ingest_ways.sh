#!/bin/sh
# SPDX-License-Identifier: MIT
# Kineto JSON read every way a build can read it gives the same output: the
# scanner's character masks by AVX2, SSE2 or the portable code
# (GPUSCOPE_TEST_SCAN), gzip inflated by ISA-L or zlib
# (GPUSCOPE_TEST_INFLATE), on a second thread or not
# (GPUSCOPE_TEST_INFLATE_AHEAD), the document walk on its own thread or not
# (GPUSCOPE_TEST_SCAN_THREAD), on one CPU. `analyze --format json` (stdout,
# stderr, exit status) byte for byte against the default way, on every
# Kineto trace of ../shared/data as gzip and as plain JSON, the JSON sample,
# a generated trace (plain and gzip), and damaged copies of it (cut, a byte
# changed in the gzip, junk in the JSON).
# usage: ingest_ways.sh GPUSCOPE GS_BENCH_GEN SHARED_DATA SAMPLES WORKDIR
set -eu
gpuscope=$1
gen=$2
data=$3/kineto
samples=$4
work=$5

rm -rf "$work"
mkdir -p "$work/in"
inputs=$work/inputs.txt
: >"$inputs"
if [ -d "$data" ]; then
	for f in "$data"/*/*.json.gz; do
		echo "$f" >>"$inputs"
		plain=$work/in/$(basename "$f" .gz)
		gzip -dc "$f" >"$plain"
		echo "$plain" >>"$inputs"
	done
else
	echo "(../shared/data absent: generated traces and samples only)"
fi
echo "$samples/tiny_pipeline.json" >>"$inputs"
"$gen" --ops 20000 --json "$work/in/gen.json" --json-gz "$work/in/gen.json.gz" >/dev/null
echo "$work/in/gen.json" >>"$inputs"
echo "$work/in/gen.json.gz" >>"$inputs"
# Damaged: gzip cut, gzip with a byte changed, JSON cut, JSON with junk.
size=$(wc -c <"$work/in/gen.json.gz")
head -c $((size * 3 / 5)) "$work/in/gen.json.gz" >"$work/in/cut.json.gz"
cp "$work/in/gen.json.gz" "$work/in/flip.json.gz"
printf 'Z' | dd of="$work/in/flip.json.gz" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
size=$(wc -c <"$work/in/gen.json")
head -c $((size / 2)) "$work/in/gen.json" >"$work/in/cut.json"
cp "$work/in/gen.json" "$work/in/junk.json"
printf '}\\"' | dd of="$work/in/junk.json" bs=1 seek=$((size / 3)) conv=notrunc 2>/dev/null
for f in cut.json.gz flip.json.gz cut.json junk.json; do
	echo "$work/in/$f" >>"$inputs"
done

run() { # run OUT ENV... : analyze the input in $f
	out=$1
	shift
	rc=0
	env "$@" "$gpuscope" analyze --format json "$f" >"$out" 2>"$out.err" || rc=$?
	echo "exit $rc" >>"$out.err"
}

ways="GPUSCOPE_TEST_SCAN=portable GPUSCOPE_TEST_SCAN=sse2 GPUSCOPE_TEST_SCAN=avx2
GPUSCOPE_TEST_INFLATE=zlib GPUSCOPE_TEST_INFLATE_AHEAD=off GPUSCOPE_TEST_SCAN_THREAD=off
GPUSCOPE_TEST_SCAN_THREAD=on"
one_cpu=
if command -v taskset >/dev/null 2>&1 && taskset -c 0 true 2>/dev/null; then
	one_cpu=yes
fi
fail=0
n=0
while read -r f; do
	n=$((n + 1))
	base=$work/out.$n
	run "$base.default" GS_NONE=1
	for w in $ways; do
		run "$base.way" "$w"
		for s in "" .err; do
			if ! cmp -s "$base.default$s" "$base.way$s"; then
				echo "FAIL $(basename "$f"): $w differs ($s)"
				fail=1
			fi
		done
	done
	if [ -n "$one_cpu" ]; then
		rc=0
		taskset -c 0 "$gpuscope" analyze --format json "$f" >"$base.one" 2>"$base.one.err" || rc=$?
		echo "exit $rc" >>"$base.one.err"
		if ! cmp -s "$base.default" "$base.one" || ! cmp -s "$base.default.err" "$base.one.err"; then
			echo "FAIL $(basename "$f"): one CPU differs"
			fail=1
		fi
	fi
	rm -f "$base".*
done <"$inputs"
echo "$n inputs, each read $(echo $ways | wc -w) ways${one_cpu:+ and on one CPU}"
exit $fail
