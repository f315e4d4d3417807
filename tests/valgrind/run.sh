#!/bin/sh
# SPDX-License-Identifier: MIT
#
# gpuscope's commands under valgrind: every run must be free of memory
# errors and of definite or indirect leaks (valgrind exits 99 then), and
# exit with its usual status. Success paths and error paths both.
#
#   run.sh GPUSCOPE SOURCE_DIR WORK_DIR
#
# Exits 77 (skipped) when valgrind is not installed (scripts/install-deps.sh
# --ci installs it; `make valgrind` and .ci/run use it).
set -u

gpuscope=$1
src=$2
work=$3

if ! command -v valgrind >/dev/null 2>&1; then
	echo "skipped: valgrind not installed"
	exit 77
fi
rm -rf "$work"
mkdir -p "$work" || exit 1

fail=0
count=0
# check STATUS ARGS...: gpuscope ARGS under valgrind exits STATUS.
check() {
	want=$1
	shift
	count=$((count + 1))
	valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
		--errors-for-leak-kinds=definite,indirect --track-origins=yes \
		"$gpuscope" "$@" >"$work/out.$count" 2>"$work/err.$count"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "FAIL: gpuscope $* exited $got, expected $want (99: valgrind found errors):" >&2
		sed 's/^/    /' "$work/err.$count" | head -n 60 >&2
		fail=1
	else
		echo "ok: gpuscope $*"
	fi
}

k=$src/tests/data/kineto
check 0 info "$k/new_style.json"
check 0 info --format json "$k/rocm.json"
check 0 dump --limit 5 "$k/old_style.json"
check 0 convert "$k/new_style.json" -o "$work/new.gscope"
check 0 info "$work/new.gscope"
check 0 analyze "$src/tests/data/schedule/pipelined_events.json"
check 0 analyze --format json "$src/tests/data/analyze/overlap.json" "$src/tests/data/analyze/serial_loop.json"
check 0 plan "$src/tests/cli/plan/data/example2.json"
check 0 plan --format json "$src/tests/cli/plan/data/example4_pageable.json"
gzip -c "$k/new_style.json" >"$work/new.json.gz"
check 0 analyze "$work/new.json.gz"
# '-': read in one pass (the bytes read ahead handed on; a .gscope in memory).
check 0 info - <"$work/new.json.gz"
check 0 dump --limit 5 - <"$work/new.gscope"
# Error paths: one line, exit 1, nothing leaked.
head -c 300 "$work/new.gscope" >"$work/cut.gscope"
check 0 info "$work/cut.gscope" # cut short: a warning
head -c 300 "$k/new_style.json" >"$work/cut.json"
check 1 info "$work/cut.json"
check 1 info - <"$work/cut.json"
printf 'not a trace\n' >"$work/text.txt"
check 1 analyze "$work/text.txt"
printf '{"stages": [{"name": "a", "duration_us": 1, "stream": "s", "depends_on": ["a"]}]}' \
	>"$work/cycle.json"
check 1 plan "$work/cycle.json"
GPUSCOPE_LIMIT_MAX_OPS=1 check 1 info "$k/new_style.json"
check 2 info --no-such-option

if [ "$fail" != 0 ]; then
	echo "valgrind: FAILED" >&2
	exit 1
fi
echo "valgrind: $count runs, no errors, no leaks"
