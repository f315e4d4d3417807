#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The synthetic samples never drift from their generator:
#
#   regen.sh GEN_SYNTHETIC SAMPLES_DIR WORKDIR GPUSCOPE
#
# runs GEN_SYNTHETIC into WORKDIR and compares every file with
# SAMPLES_DIR/synthetic/ byte for byte: the same set of .gscope files, the
# same bytes. Fix a failure with `cmake --build BUILD --target
# synthetic_samples` (it rewrites samples/synthetic/) and commit the result.
#
# The bytes depend on zlib's deflate too. When they differ but
# `gpuscope dump` of both is the same (the same records) and the local zlib is
# not the one the samples were written with, the test is skipped (77) with a
# message instead of failing.
set -u

gen=${1:?usage: regen.sh GEN_SYNTHETIC SAMPLES_DIR WORKDIR GPUSCOPE}
samples=${2:?samples dir}
work=${3:?work dir}
gs=${4:?gpuscope}
# zlib of the checked-in samples (Debian 12, like CI).
made_with_zlib=1.2.13

rm -rf "$work" && mkdir -p "$work" || exit 1
"$gen" "$work" || { echo "FAIL: $gen $work"; exit 1; }

failures=0
differ_bytes=0
for f in "$work"/*.gscope; do
	name=$(basename "$f")
	ref=$samples/synthetic/$name
	if [ ! -f "$ref" ]; then
		echo "FAIL: $name is generated but not in $samples/synthetic/"
		failures=$((failures + 1))
		continue
	fi
	cmp -s "$f" "$ref" && continue
	differ_bytes=$((differ_bytes + 1))
	"$gs" dump "$f" >"$work/$name.new.txt" 2>&1
	"$gs" dump "$ref" >"$work/$name.old.txt" 2>&1
	if cmp -s "$work/$name.new.txt" "$work/$name.old.txt"; then
		echo "note: $name: same records, different bytes"
	else
		echo "FAIL: $name differs from what the generator writes (records differ):"
		diff "$work/$name.old.txt" "$work/$name.new.txt" | head -n 10
		failures=$((failures + 1))
	fi
done
for ref in "$samples"/synthetic/*.gscope; do
	[ -f "$ref" ] || continue
	name=$(basename "$ref")
	if [ ! -f "$work/$name" ]; then
		echo "FAIL: $samples/synthetic/$name is not written by the generator"
		failures=$((failures + 1))
	fi
done
if [ "$failures" -ne 0 ]; then
	echo "$failures problems: regenerate with 'cmake --build BUILD --target synthetic_samples'"
	exit 1
fi
if [ "$differ_bytes" -ne 0 ]; then
	zlib=$("$gen" --zlib-version)
	if [ "$zlib" != "$made_with_zlib" ]; then
		echo "skipped: $differ_bytes files hold the same records in other bytes:" \
			"zlib $zlib here, $made_with_zlib for the samples"
		exit 77
	fi
	echo "FAIL: $differ_bytes files differ in their bytes with the same zlib ($zlib)"
	exit 1
fi
echo "$(ls "$work"/*.gscope | wc -l) synthetic samples are what the generator writes"
exit 0
