#!/bin/sh
# SPDX-License-Identifier: MIT
# The collector library: exports InitializeInjection (default visibility,
# what the CUDA driver looks up), nothing of the format library, and does
# not depend on libcudart or libcuda.
#   check_exports.sh LIBRARY
set -eu
lib=$1
fail() { echo "check_exports: $lib: $*" >&2; exit 1; }
command -v readelf >/dev/null 2>&1 || { echo "skipped: readelf absent"; exit 77; }
command -v nm >/dev/null 2>&1 || { echo "skipped: nm absent"; exit 77; }
[ -f "$lib" ] || fail "missing"

needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "NEEDED: $(echo $needed)"
echo "$needed" | grep -q '^libcupti\.so' || fail "does not link libcupti"
if echo "$needed" | grep -q 'libcudart'; then fail "depends on libcudart"; fi
if echo "$needed" | grep -q '^libcuda\.so'; then fail "depends on libcuda"; fi

exports=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TtWwDdBbRr]$/ {print $3}')
echo "exports: $(echo $exports)"
echo "$exports" | grep -qx 'InitializeInjection' || fail "does not export InitializeInjection"
extra=$(echo "$exports" | grep -v -x -e InitializeInjection -e '_init' -e '_fini' || true)
[ -z "$extra" ] || fail "exports more than InitializeInjection: $(echo $extra)"
nm -D --defined-only "$lib" | grep -q ' T InitializeInjection$' ||
	fail "InitializeInjection is not a global function"
echo "ok: exports InitializeInjection only; no libcudart/libcuda dependency"
