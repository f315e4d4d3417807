#!/bin/sh
# SPDX-License-Identifier: MIT
#
# ctest wrapper of the kernels/ programs (label "gpu"):
#   run_if_gpu.sh PROGRAM [ARGS...]
# Runs PROGRAM when `nvidia-smi -L` lists a GPU; otherwise prints why and
# exits 77 (skipped). The program's own exit status is passed on (1: wrong
# results or a failed CUDA call).
if ! command -v nvidia-smi >/dev/null 2>&1; then
	echo "skipped: nvidia-smi not found (no GPU)"
	exit 77
fi
if ! gpus=$(nvidia-smi -L 2>&1) || [ -z "$gpus" ]; then
	echo "skipped: nvidia-smi found no usable GPU: $(echo "$gpus" | head -n 1)"
	exit 77
fi
exec "$@"
