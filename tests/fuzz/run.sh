#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Run every libFuzzer target of a GPUSCOPE_FUZZ=ON build for a while.
#
#   tests/fuzz/run.sh BUILD_DIR [SECONDS] [TARGET...]
#
# Each target runs for SECONDS (default 60) on its checked-in corpus
# (tests/fuzz/corpus/<target>, read only) plus a work corpus kept in
# BUILD_DIR/fuzz-corpus/<target> (new inputs go there, so runs add up).
# Limits: 2048 MB RSS, 10 s an input. A crash, leak, timeout or OOM leaves
# its input in BUILD_DIR/fuzz-artifacts/ and fails the run: turn it into a
# regression test (tests/bad/ or a unit test) and fix it.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:?usage: run.sh BUILD_DIR [SECONDS] [TARGET...]}
seconds=${2:-60}
shift $(($# >= 2 ? 2 : 1))
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for c in "$here"/fuzz_*.c; do
		t=$(basename "$c" .c)
		[ -x "$build/tests/fuzz/$t" ] && targets+=("$t")
	done
fi
if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz: no fuzz targets in $build/tests/fuzz (configure with CC=clang -DGPUSCOPE_FUZZ=ON)" >&2
	exit 1
fi

mkdir -p "$build/fuzz-artifacts"
status=0
for t in "${targets[@]}"; do
	name=${t#fuzz_}
	bin=$build/tests/fuzz/$t
	work=$build/fuzz-corpus/$name
	seeds=$here/corpus/$name
	dict=()
	[ -f "$here/$name.dict" ] && dict=(-dict="$here/$name.dict")
	mkdir -p "$work"
	[ -d "$seeds" ] || seeds=
	echo "==== $t: $seconds s (seeds: ${seeds:-none}) ===="
	# ASan: no leak false positives from the fuzzer itself; a report aborts.
	if ! ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1} \
		UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
		"$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
		-max_len=65536 -print_final_stats=1 "${dict[@]}" \
		-artifact_prefix="$build/fuzz-artifacts/$name-" "$work" ${seeds:+"$seeds"} \
		>"$build/fuzz-$name.log" 2>&1; then
		status=1
		tail -n 60 "$build/fuzz-$name.log" >&2
		echo "==== $t FAILED: input in $build/fuzz-artifacts/ ====" >&2
	else
		grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb)' \
			"$build/fuzz-$name.log" || true
		echo "corpus: $(find "$work" -type f | wc -l) inputs"
	fi
done
exit $status
