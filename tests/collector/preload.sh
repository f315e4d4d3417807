#!/bin/sh
# SPDX-License-Identifier: MIT
# The real collector preloaded (LD_PRELOAD) where there is no CUDA driver:
# programs that show no CUDA (/bin/true, a shell) say nothing at all and
# are left alone; programs with CUDA (the driver's library linked, CUDA
# device code in the executable) say it once, in these exact words, even
# when several threads initialise CUDA at once. "No driver" is made with
# the tests' driver name found nowhere (collector/src/config.h), so the
# same holds on a machine that has one.
#
#   preload.sh COLLECTOR WORKDIR FAKE_CUDA_APP FATBIN_APP
set -u
collector=$1 work=$2 app=$3 fatbin=$4
rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
line='gpuscope: collector disabled: no CUDA driver (libcuda.so.1 not found)'

# A sanitizer build's collector needs its runtime first in the list.
rt=$(ldd "$collector" 2>/dev/null | awk '$1 ~ /^lib(asan|ubsan|tsan)\.so/ {printf "%s ", $3}')
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0"

# pre EXPECTED_STATUS CMD...: under the collector; stderr in err, stdout in out
pre() {
	want=$1
	shift
	env -u CUDA_INJECTION64_PATH -u GPUSCOPE_LOG -u GPUSCOPE_STATUS_FILE \
		GPUSCOPE_TEST_DRIVER_NAME=libgpuscope-test-no-driver.so.1 \
		GPUSCOPE_OUTPUT="$work/t-%p.gscope" LD_PRELOAD="$rt$collector" "$@" >out 2>err
	got=$?
	[ "$got" -eq "$want" ] || fail "$* exited $got, expected $want: $(cat err)"
}
silent() { [ ! -s err ] || fail "$1: expected no message, got: $(cat err)"; }
once() {
	[ "$(cat err)" = "$line" ] || fail "$1: expected exactly '$line', got: '$(cat err)'"
}

pre 0 /bin/true
silent /bin/true
pre 0 sh -c true
silent "sh -c true"
pre 3 sh -c 'ls / >/dev/null; exit 3'
silent "sh -c 'ls; exit 3'"
pre 0 sh -c 'echo hi'
[ "$(cat out)" = hi ] || fail "sh -c 'echo hi' printed '$(cat out)'"
silent "sh -c 'echo hi'"
# A shell that runs a CUDA program: the shell says nothing, the program once.
pre 4 sh -c "\"$fatbin\" --exit 4"
once "sh -c fatbin_app"
grep -q "fatbin_app done" out || fail "fatbin_app's stdout was lost: $(cat out)"
# CUDA device code in the executable (nvcc's default: the runtime linked in).
pre 0 "$fatbin"
once fatbin_app
# The driver's library in the link map; it never initialises CUDA.
pre 0 "$app" --no-init
once "fake_cuda_app --no-init"
# Eight threads initialise CUDA at once (InitializeInjection from each).
env -u GPUSCOPE_LOG GPUSCOPE_TEST_DRIVER_NAME=libgpuscope-test-no-driver.so.1 \
	CUDA_INJECTION64_PATH="$collector" GPUSCOPE_OUTPUT="$work/t-%p.gscope" \
	LD_PRELOAD="$rt" "$app" --threads 8 >out 2>err
[ $? -eq 0 ] || fail "fake_cuda_app --threads 8 failed: $(cat err)"
once "fake_cuda_app --threads 8"
ls "$work"/t-*.gscope >/dev/null 2>&1 && fail "a trace was written without a driver"

[ "$failures" -eq 0 ] || exit 1
echo "ok: collector preloaded without a driver"
