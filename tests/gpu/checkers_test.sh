#!/bin/sh
# SPDX-License-Identifier: MIT
#
# ctest gpu_checkers (label gpu-bundle): the GPU check's checkers
# (tests/gpu/gpucheck.py) on traces this machine has, so their code runs
# without a GPU, and each can fail.
#
#   checkers_test.sh SRCDIR GPUSCOPE WORKDIR
set -u
src=$1
gpuscope=$2
work=$3
py=$src/tests/gpu/gpucheck.py
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}
rm -rf "$work"
mkdir -p "$work" || exit 1

PYTHONPYCACHEPREFIX="$work/pycache" python3 -m py_compile "$py" "$src/tests/gpu/torch_streams.py" || bad "py_compile"

# expect WANT_EXIT NAME STATUS [NAME STATUS...] -- gpucheck.py ARGS: the exit
# status, and each named check with that status.
expect() {
	want=$1
	shift
	pairs=
	while [ "$1" != "--" ]; do
		pairs="$pairs$1	$2
"
		shift 2
	done
	shift
	python3 "$py" "$@" >"$work/out.tsv" 2>"$work/err.txt"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		cat "$work/out.tsv" "$work/err.txt"
		bad "gpucheck.py $1 $(basename "$4" 2>/dev/null): exit $rc, want $want"
	fi
	printf '%s' "$pairs" | while IFS='	' read -r name status; do
		[ -n "$name" ] || continue
		grep -q "^$name	$status	" "$work/out.tsv" ||
			{ echo "FAIL: gpucheck.py $1: no line '$name	$status'"; cat "$work/out.tsv"; }
	done >"$work/pairs.txt"
	if [ -s "$work/pairs.txt" ]; then
		cat "$work/pairs.txt"
		fail=1
	fi
}

echo "== every synthetic sample passes the generic trace checks"
for f in "$src"/samples/synthetic/*.gscope; do
	expect 0 "ops present" ok "breakdown sums (device 0)" ok "devices" ok \
		"thread ids are OS tids" ok "main thread id is the pid" ok -- trace "$gpuscope" "$f" generic
done

echo "== the probe's checks fail on a trace that is not the probe's"
printf 'probe pid=24892\nprobe tid main=24892\nprobe tid worker=24893\nprobe ok\n' >"$work/probe.out"
expect 1 "nvtx range" FAIL "edge default_stream" FAIL "cuLaunchKernel named" FAIL \
	"__cudaLaunchKernel named" ok "thread ids include the program's" FAIL -- \
	trace "$gpuscope" "$src/samples/synthetic/event_chain.gscope" probe --stdout "$work/probe.out"
printf 'probe pid=24892\nprobe tid main=24892\nprobe ok\n' >"$work/probe1.out"
expect 1 "thread ids include the program's" ok -- \
	trace "$gpuscope" "$src/samples/synthetic/event_chain.gscope" probe --stdout "$work/probe1.out"
expect 1 "every launch recorded" FAIL -- \
	trace "$gpuscope" "$src/samples/synthetic/launch_bound.gscope" loop --launches 1000000

echo "== thread ids that are not OS thread ids (pthread_t values) fail"
sed 's/"tid": 41237/"tid": 139872498521856/' "$src/samples/tiny_pipeline.json" >"$work/pthread_ids.json"
expect 1 "thread ids are OS tids" FAIL "main thread id is the pid" FAIL -- \
	trace "$gpuscope" "$work/pthread_ids.json" generic
expect 0 "thread ids are OS tids" ok -- trace "$gpuscope" "$src/samples/tiny_pipeline.json" generic

echo "== profiler against record: the same run agrees, a different one does not"
# tiny_pipeline.json with its step annotation as the measured range.
sed 's/"ProfilerStep#2"/"gpucheck_measured"/' "$src/samples/tiny_pipeline.json" >"$work/tiny.json"
"$gpuscope" convert "$work/tiny.json" -o "$work/tiny.gscope" || bad "convert"
printf '/opt/x/libcupti.so.13\n' >"$work/maps1.txt"
expect 0 "op count kernel" ok "measured range" ok "measured op count kernel" ok \
	"measured kernel time" ok "measured memcpy time" ok "streams with ops" ok \
	"cross-stream waits" ok "event edges" ok "breakdown kernel_ns" ok "breakdown copy_ns" ok \
	"waits in the breakdown" ok "one libcupti in the process" ok -- \
	torch "$gpuscope" "$work/tiny.json" "$work/tiny.gscope" --maps "$work/maps1.txt"
# One kernel 10 % longer, one libcupti too many.
python3 - "$work/tiny.json" "$work/longer.json" <<'PY' || bad "longer.json"
import json, sys
d = json.load(open(sys.argv[1]))
k = [e for e in d["traceEvents"] if e.get("cat") == "kernel"]
k[0]["dur"] = round(k[0]["dur"] * 1.1, 3)
json.dump(d, open(sys.argv[2], "w"))
PY
printf '/opt/x/libcupti.so.13\n/usr/local/cuda/lib64/libcupti.so.13\n' >"$work/maps2.txt"
expect 1 "op count kernel" ok "measured kernel time" FAIL "measured memcpy time" ok \
	"one libcupti in the process" FAIL -- \
	torch "$gpuscope" "$work/longer.json" "$work/tiny.gscope" --maps "$work/maps2.txt"
# No measured range in the recording; another program altogether.
expect 1 "measured range" FAIL "op count kernel" ok -- \
	torch "$gpuscope" "$work/tiny.json" "$src/samples/tiny_pipeline.json"
expect 1 "op count kernel" FAIL "streams with ops" FAIL -- \
	torch "$gpuscope" "$work/tiny.json" "$src/samples/synthetic/serial_stream.gscope"

echo "== overhead: medians, reported (info), never judged"
printf '400000000\n410000000\n390000000\n' >"$work/base.txt"
printf '402000000\n401000000\n499000000\n' >"$work/rec.txt"
printf '600000000\n' >"$work/slow.txt"
expect 0 "overhead" info -- overhead 200000 "$work/base.txt" "$work/rec.txt"
expect 0 "overhead" info "overhead --data-deps" info -- overhead 200000 "$work/base.txt" \
	"$work/slow.txt" "$work/rec.txt"
: >"$work/none.txt"
expect 1 "overhead" FAIL -- overhead 200000 "$work/none.txt" "$work/rec.txt"

echo "== --data-deps: data edges wanted on <<<>>> and cuLaunchKernel kernels"
# A trace with no allocations: neither kernel kind has a data edge.
expect 1 "edge data" FAIL "data edge on a <<<>>> kernel" FAIL \
	"data edge on a cuLaunchKernel kernel" FAIL -- \
	trace "$gpuscope" "$src/samples/synthetic/event_chain.gscope" probe-deps --stdout "$work/probe.out"

echo "== the experiments' readers"
python3 "$py" facts "$gpuscope" "$src/samples/synthetic/event_chain.gscope" >"$work/facts.txt" ||
	bad "facts on event_chain: exit $?"
grep -q '^kernels=48 memcpy=1 memset=1 dropped=0 warnings=\[\] devices=\["NVIDIA A100-SXM4-80GB"\]$' \
	"$work/facts.txt" || bad "facts on event_chain: $(cat "$work/facts.txt")"
printf 'not a trace\n' >"$work/junk.gscope"
if python3 "$py" facts "$gpuscope" "$work/junk.gscope" >"$work/facts.txt"; then
	bad "facts on a file that is no trace: exit 0"
fi
grep -q '^unreadable: gpuscope info exit ' "$work/facts.txt" ||
	bad "facts on a file that is no trace: $(cat "$work/facts.txt")"
printf 'streams build=legacy tid main=24892 worker=1\n' >"$work/streams.out"
python3 "$py" streams "$gpuscope" legacy "$src/samples/synthetic/event_chain.gscope" \
	"$work/streams.out" >"$work/streams.txt" || bad "streams: exit $?"
grep -q '^legacy: main __cudaLaunchKernel -> stream 13 (non_blocking) x' "$work/streams.txt" ||
	bad "streams on event_chain: $(cat "$work/streams.txt")"

echo "== summary.json"
printf 'a\tok\tfine\nb\tFAIL\tbroken\nc\tskip\tno torch\n' >"$work/results.tsv"
python3 "$py" summary "$work/results.tsv" "$work/summary.json" gpu=H200 elapsed_s=3 ||
	bad "summary exit $?"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert (d["schema"], d["ok"], d["failed"], d["skipped"], d["gpu"]) == \
    ("gpuscope.gpucheck/2", 1, 1, 1, "H200"), d
assert d["checks"][1] == {"name": "b", "status": "FAIL", "detail": "broken"}' \
	"$work/summary.json" || bad "summary.json content"

[ "$fail" -eq 0 ] && echo "gpu_checkers: all checks passed"
exit "$fail"
