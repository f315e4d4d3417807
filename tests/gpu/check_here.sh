#!/bin/sh
# SPDX-License-Identifier: MIT
#
# ctest gpu_check (label gpu): the GPU check with this build, on this machine.
#
#   check_here.sh SRCDIR BUILDDIR COLLECTOR|none WORKDIR
#
# Skipped (77) without a working GPU or without the collector; otherwise the
# bundle of this build (scripts/gpu-bundle.sh --build-dir) in WORKDIR, then
# its run.sh with WORKDIR/out for the summary and traces.
set -u
src=$1
build=$2
collector=$3
work=$4
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
	echo "skipped: no GPU (nvidia-smi not found or nvidia-smi -L failed)"
	exit 77
fi
if [ "$collector" = none ]; then
	echo "skipped: this build has no collector (the CUDA toolkit with CUPTI was not found)"
	exit 77
fi
rm -rf "$work"
mkdir -p "$work" || exit 1
sh "$src/scripts/gpu-bundle.sh" --build-dir "$build" --out "$work/gpu-bundle" || exit 1
exec sh "$work/gpu-bundle/run.sh" "$work/out"
