#!/bin/sh
# SPDX-License-Identifier: MIT
# The CUDA Graph what-ifs agree with themselves (ctest label "cli"):
# `gpuscope analyze --format json` of every sample trace and, when
# SHARED_DATA is there, of every real trace in it, checked by whatif_check
# (candidates cover launch gaps only and no communication kernel; each
# saves at most its gaps, all together at most the sum; the finding counts
# what the what-if replays).
#
#   run.sh GPUSCOPE WHATIF_CHECK PROJECT_DIR WORKDIR [SHARED_DATA]
set -u

gs=${1:?usage: run.sh GPUSCOPE WHATIF_CHECK PROJECT_DIR WORKDIR [SHARED_DATA]}
check=${2:?whatif_check}
project=${3:?project dir}
work=${4:?work dir}
shared=${5:-}

rm -rf "$work" && mkdir -p "$work" || exit 1
failures=0
runs=0

one() {
	runs=$((runs + 1))
	out="$work/$runs.json"
	if ! "$gs" analyze --format json --quiet "$1" >"$out" 2>"$work/$runs.err"; then
		# A profile of the host only has no report: refused, saying what
		# to record.
		grep -q 'no GPU ops: .*ProfilerActivity.CUDA' "$work/$runs.err" && return
		printf 'FAIL: %s: gpuscope analyze failed:\n' "$1"
		cat "$work/$runs.err"
		failures=$((failures + 1))
		return
	fi
	if ! "$check" "$out" >"$work/$runs.check"; then
		printf 'FAIL: %s\n' "$1"
		cat "$work/$runs.check"
		failures=$((failures + 1))
	fi
}

for f in "$project"/samples/*.json "$project"/samples/synthetic/*.gscope; do
	[ -f "$f" ] && one "$f"
done
if [ -n "$shared" ] && [ -d "$shared" ]; then
	for f in $(find "$shared" -type f \( -name '*.json.gz' -o -name '*.json' -o -name '*.sqlite' \) | sort); do
		one "$f"
	done
else
	echo "shared data absent: samples only"
fi
echo "$runs traces, $failures failed"
[ "$failures" -eq 0 ]
