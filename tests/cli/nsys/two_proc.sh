#!/bin/sh
# SPDX-License-Identifier: MIT
# The two-process, two-GPU Nsight export of tests/unit/nsys_build.h (its
# sync and event-record rows all say device 0): `gpuscope dump` shows
# process 100's streams, syncs and event records on device 0 and process
# 200's on device 1 only, and `info` four streams.
# usage: two_proc.sh GPUSCOPE GEN_NSYS_2PROC WORKDIR
set -eu
gpuscope=$1
gen=$2
work=$3

rm -rf "$work"
mkdir -p "$work"
"$gen" "$work/2proc.sqlite"
"$gpuscope" dump "$work/2proc.sqlite" >"$work/dump.txt"
"$gpuscope" info "$work/2proc.sqlite" >"$work/info.txt"
fail=0
check() { # what, expected count, pattern
	got=$(grep -c -E "$3" "$work/dump.txt" || true)
	if [ "$got" != "$2" ]; then
		echo "FAIL: $1: $got lines, want $2"
		fail=1
	fi
}
check "streams of 100 on device 0" 2 '^stream .* pid=100 dev=0 '
check "streams of 200 on device 1" 2 '^stream .* pid=200 dev=1 '
check "streams elsewhere" 0 '^stream .* pid=(100 dev=[^0]|200 dev=[^1])'
check "syncs of 100 on device 0" 3 ' sync .* pid=100 .* dev=0 '
check "syncs of 200 on device 1" 3 ' sync .* pid=200 .* dev=1 '
check "event records of 200 on device 1" 1 ' event_record pid=200 dev=1 '
check "ops of 200 on device 1" 5 ' (kernel|memcpy|memset) pid=200 dev=1 '
if ! grep -q -E '^streams: +4$' "$work/info.txt"; then
	echo "FAIL: info does not say 4 streams"
	fail=1
fi
[ "$fail" = 0 ] && echo "ok: two processes on two GPUs"
exit "$fail"
