#!/bin/sh
# SPDX-License-Identifier: MIT
# Every real trace in ../shared/data/kineto: `convert` to .gscope, and
# `info --format json` of the copy must equal that of the original in
# everything but the file name and format. The .gscope of the V100
# ResNet50 trace must take at most 12 bytes per record (GPU ops, API
# calls, syncs and host ranges together).
# usage: shared_convert.sh GPUSCOPE SHARED_DATA WORKDIR
set -eu
gpuscope=$1
data=$2/kineto
work=$3

if [ ! -d "$data" ]; then
	echo "skipped: ../shared/data absent"
	exit 77
fi
rm -rf "$work"
mkdir -p "$work"
fail=0
n=0
for f in "$data"/*/*.json.gz; do
	base=$(basename "$f" .json.gz)
	out="$work/$base.gscope"
	"$gpuscope" convert "$f" -o "$out" 2>/dev/null
	"$gpuscope" info --format json "$f" 2>/dev/null | grep -v -e '"file":' -e '"format":' >"$work/$base.a"
	"$gpuscope" info --format json "$out" 2>/dev/null | grep -v -e '"file":' -e '"format":' >"$work/$base.b"
	if ! cmp -s "$work/$base.a" "$work/$base.b"; then
		echo "FAIL $base: info differs after convert"
		diff "$work/$base.a" "$work/$base.b" | head -20
		fail=1
	fi
	n=$((n + 1))
done

# Bytes per record of the V100 ResNet50 trace.
v100="$work/v100_resnet50_workers0_2021-01"
if [ -f "$v100.gscope" ]; then
	size=$(wc -c <"$v100.gscope")
	recs=$(sed -n -e 's/.*"op_total": \([0-9]*\).*/\1/p' -e 's/^  "api_calls": \([0-9]*\).*/\1/p' \
		-e 's/^  "syncs": \([0-9]*\).*/\1/p' -e 's/^  "host_ranges": \([0-9]*\).*/\1/p' \
		"$v100.b" | awk '{s += $1} END {print s}')
	echo "v100 resnet50: $size bytes for $recs records"
	if [ "$recs" -lt 50000 ] || [ $((size)) -gt $((recs * 12)) ]; then
		echo "FAIL v100 resnet50: more than 12 bytes per record (or records missing)"
		fail=1
	fi
fi
echo "$n traces converted"
exit $fail
