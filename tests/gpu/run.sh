#!/bin/sh
# SPDX-License-Identifier: MIT
#
# GPU check of the collector, for a machine with an NVIDIA GPU and driver.
#
#   tests/gpu/run.sh [OUTDIR]        (default: $OUT, else ./gpu-check-out)
#
# 1. builds gpuscope and libgpuscope_collector.so (Release; reuses
#    $GPUSCOPE_BUILD when set), kernels/ when present, and the two programs
#    here (probe.cu: every pattern the collector must record; launch_loop.cu:
#    a launch-heavy loop);
# 2. records each program (probe with --data-deps and without) and checks
#    each trace: ops present, no drops, the sync and event records, the
#    expected dependency edges (event, default stream, host sync, sync copy,
#    data), NVTX ranges, breakdown sums equal to the window, the launch API
#    names (__cudaLaunchKernel, cuLaunchKernel);
# 3. measures the collector's overhead on the launch loop (median of 5 runs
#    with and without it);
# 4. writes OUTDIR/summary.txt and OUTDIR/summary.json (and every trace,
#    report and log under OUTDIR).
#
# Exit status: 0 all checks passed, 1 a check failed, 77 skipped (no GPU).
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-${OUT:-$PWD/gpu-check-out}}
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
log=$out/run.log
: >"$log"
say() { echo "$*" | tee -a "$log"; }

if ! command -v nvidia-smi >/dev/null 2>&1; then
	echo "skipped: nvidia-smi not found (no GPU)"
	exit 77
fi
if ! nvidia-smi -L >"$out/gpus.txt" 2>&1; then
	echo "skipped: nvidia-smi failed (no usable GPU): $(head -1 "$out/gpus.txt")"
	exit 77
fi
say "GPUs: $(cat "$out/gpus.txt")"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >>"$log" 2>&1

command -v python3 >/dev/null 2>&1 || { say "FAIL: python3 is needed for the checks"; exit 1; }
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
jobs=$(nproc 2>/dev/null || echo 4)

# ---- build ----
build=${GPUSCOPE_BUILD:-$out/build}
if [ ! -x "$build/analyzer/gpuscope" ] || [ ! -f "$build/collector/libgpuscope_collector.so" ]; then
	say "building in $build"
	cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
		>>"$log" 2>&1 &&
		cmake --build "$build" -j "$jobs" >>"$log" 2>&1 ||
		{ say "FAIL: build (see $log)"; exit 1; }
fi
gpuscope=$build/analyzer/gpuscope
collector=$build/collector/libgpuscope_collector.so
[ -f "$collector" ] || { say "FAIL: $collector was not built (CUPTI not found?)"; exit 1; }
export GPUSCOPE_COLLECTOR="$collector"

bin=$out/bin
mkdir -p "$bin" "$out/traces"
arch=-arch=native
"$nvcc" $arch -O2 -o "$bin/probe" "$here/probe.cu" -lcuda >>"$log" 2>&1 ||
	{ arch=""; "$nvcc" -O2 -o "$bin/probe" "$here/probe.cu" -lcuda >>"$log" 2>&1; } ||
	{ say "FAIL: nvcc probe.cu"; exit 1; }
"$nvcc" $arch -O2 -o "$bin/launch_loop" "$here/launch_loop.cu" >>"$log" 2>&1 ||
	{ say "FAIL: nvcc launch_loop.cu"; exit 1; }

failures=0
results=$out/results.tsv
: >"$results"
check() { # NAME OK(0/1) DETAIL
	if [ "$2" -eq 0 ]; then
		say "ok   $1: $3"
	else
		say "FAIL $1: $3"
		failures=$((failures + 1))
	fi
	printf '%s\t%s\t%s\n' "$1" "$([ "$2" -eq 0 ] && echo ok || echo fail)" "$3" >>"$results"
}

# record NAME [record options] -- PROGRAM ARGS: the trace path in $trace
record() {
	name=$1
	shift
	rm -f "$out/traces/$name"-*.gscope
	"$gpuscope" record -o "$out/traces/$name-%p.gscope" "$@" \
		>"$out/$name.stdout" 2>"$out/$name.stderr"
	rc=$?
	trace=$(ls "$out/traces/$name"-*.gscope 2>/dev/null | head -1)
	if [ "$rc" -ne 0 ] || [ -z "$trace" ]; then
		check "$name: record" 1 "exit $rc, trace '${trace}': $(tail -3 "$out/$name.stderr")"
		return 1
	fi
	check "$name: record" 0 "$trace"
	"$gpuscope" info --format json "$trace" >"$out/$name.info.json" 2>>"$log"
	"$gpuscope" analyze --format json "$trace" >"$out/$name.report.json" 2>>"$log" ||
		check "$name: analyze" 1 "gpuscope analyze failed"
	"$gpuscope" dump "$trace" >"$out/$name.dump.txt" 2>>"$log"
	return 0
}

# verify NAME PROFILE: checks on the JSON outputs (python3), one line each
verify() {
	python3 - "$out/$1.info.json" "$out/$1.report.json" "$out/$1.dump.txt" "$2" \
		>"$out/$1.checks.tsv" 2>>"$log" <<'PY'
import json, re, sys
info_p, rep_p, dump_p, profile = sys.argv[1:5]
def load(p):
    try:
        with open(p) as f:
            return json.load(f)
    except Exception as e:
        return {"_error": str(e)}
info, rep = load(info_p), load(rep_p)
dump = open(dump_p, errors="replace").read() if dump_p else ""
def out(name, ok, detail):
    print("%s\t%d\t%s" % (name, 0 if ok else 1, detail))
ops = info.get("ops", {})
out("ops present", info.get("op_total", 0) > 0, "ops=%s" % ops)
out("no drops", info.get("dropped", -1) == 0, "dropped=%s" % info.get("dropped"))
for dev in rep.get("devices", []):
    b = dev.get("breakdown", {})
    s = sum(b.get(k, 0) for k in ("kernel_ns", "copy_ns", "sync_ns", "idle_ns"))
    w = dev.get("window_ns", [0, 0])
    out("breakdown sums (device %s)" % dev.get("device"),
        s == b.get("total_ns") and b.get("total_ns") == w[1] - w[0],
        "kernel+copy+sync+idle=%d total=%s window=%d" % (s, b.get("total_ns"), w[1] - w[0]))
edges = rep.get("trace", {}).get("graph", {}).get("edges_by_kind", {})
if profile.startswith("probe"):
    sy = info.get("syncs_by_kind", {})
    out("kernels", ops.get("kernel", 0) >= 9, "kernels=%s (want >= 9)" % ops.get("kernel"))
    out("copies", ops.get("memcpy", 0) >= 3, "memcpy=%s (want >= 3)" % ops.get("memcpy"))
    out("memset", ops.get("memset", 0) >= 1, "memset=%s" % ops.get("memset"))
    for k in ("stream_wait", "stream_sync", "event_sync", "context_sync"):
        out("sync " + k, sy.get(k, 0) >= 1, "%s=%s" % (k, sy.get(k)))
    out("event records", info.get("event_records", 0) >= 1, "event_records=%s" % info.get("event_records"))
    for k in ("event", "default_stream", "host_sync", "sync_copy"):
        out("edge " + k, edges.get(k, 0) >= 1, "%s edges=%s" % (k, edges.get(k)))
    out("devices", info.get("devices", 0) >= 1, "device_list=%s" % info.get("device_list"))
    out("nvtx range", info.get("nvtx_ranges", 0) >= 1, "nvtx_ranges=%s" % info.get("nvtx_ranges"))
    out("__cudaLaunchKernel named", "__cudaLaunchKernel" in dump, "in dump")
    out("cuLaunchKernel named", "cuLaunchKernel" in dump, "in dump")
    out("graph kernels", re.search(r"kernel .* graph=[1-9]", dump) is not None,
        "kernels with a graph id in the dump")
    if profile == "probe-deps":
        out("allocations", info.get("allocations", 0) >= 2, "allocations=%s" % info.get("allocations"))
        out("edge data", edges.get("data", 0) >= 1, "data edges=%s" % edges.get("data"))
PY
	[ -s "$out/$1.checks.tsv" ] || check "$1: checks" 1 "python3 checks did not run (see $log)"
	while IFS='	' read -r what bad detail; do
		check "$1: $what" "$bad" "$detail"
	done <"$out/$1.checks.tsv"
}

# ---- kernels/ programs ----
# Each recording is also kept as OUTDIR/samples/NAME.gscope: the real traces
# that replace samples/synthetic/ (samples/README.md), checked against what
# each program promises when the sample test is built (GPUSCOPE_BUILD with
# tests).
if [ -d "$build/kernels" ]; then
	mkdir -p "$out/samples"
	for prog in "$build"/kernels/*; do
		[ -f "$prog" ] && [ -x "$prog" ] || continue
		case $prog in *.so | *.a | *.cmake) continue ;; esac
		name=kernels-$(basename "$prog")
		if record "$name" -- "$prog"; then
			verify "$name" generic
			cp "$trace" "$out/samples/$(basename "$prog").gscope"
		fi
	done
	if [ -x "$build/tests/test_samples" ]; then
		"$build/tests/test_samples" "$gpuscope" "$out/samples" >"$out/samples.log" 2>&1
		check "kernels: the findings each program promises" $? \
			"$(grep -c 'OK \]' "$out/samples.log") programs ok (see $out/samples.log)"
	fi
fi

# ---- the probe ----
if record probe -- "$bin/probe"; then
	verify probe probe
	grep -q "probe ok" "$out/probe.stdout"
	check "probe: program result" $? "$(cat "$out/probe.stdout")"
fi
if record probe-deps --data-deps -- "$bin/probe"; then
	verify probe-deps probe-deps
fi
# Without the collector the probe must give the same result.
"$bin/probe" >"$out/probe-plain.stdout" 2>&1
check "probe without collector" $? "$(cat "$out/probe-plain.stdout")"

# ---- overhead on the launch loop ----
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
loops=${LAUNCHES:-200000}
: >"$out/loop-base.txt"
: >"$out/loop-rec.txt"
: >"$out/loop-deps.txt"
for i in 1 2 3 4 5; do
	"$bin/launch_loop" "$loops" | sed -n 's/.*total_ns=\([0-9]*\).*/\1/p' >>"$out/loop-base.txt"
	rm -f "$out/traces/loop-"*.gscope
	"$gpuscope" record -o "$out/traces/loop-%p.gscope" -- "$bin/launch_loop" "$loops" \
		2>>"$log" | sed -n 's/.*total_ns=\([0-9]*\).*/\1/p' >>"$out/loop-rec.txt"
	"$gpuscope" record -o "$out/traces/loopdeps-%p.gscope" --data-deps -- \
		"$bin/launch_loop" "$loops" 2>>"$log" |
		sed -n 's/.*total_ns=\([0-9]*\).*/\1/p' >>"$out/loop-deps.txt"
done
base=$(median <"$out/loop-base.txt")
rec=$(median <"$out/loop-rec.txt")
deps=$(median <"$out/loop-deps.txt")
if [ -n "$base" ] && [ -n "$rec" ] && [ "$base" -gt 0 ]; then
	over=$(awk -v b="$base" -v r="$rec" -v n="$loops" \
		'BEGIN {printf "%.1f ns/launch added (%.2f%%): %.1f -> %.1f ns/launch", (r-b)/n, 100*(r-b)/b, b/n, r/n}')
	over_deps=$(awk -v b="$base" -v r="${deps:-0}" -v n="$loops" \
		'BEGIN {printf "%.1f ns/launch added (%.2f%%)", (r-b)/n, 100*(r-b)/b}')
	say "overhead, launch loop of $loops: $over"
	say "overhead with --data-deps: $over_deps"
	trace=$(ls "$out/traces/loop-"*.gscope 2>/dev/null | head -1)
	if [ -n "$trace" ]; then
		"$gpuscope" info --format json "$trace" >"$out/loop.info.json" 2>>"$log"
		python3 -c "import json,sys; d=json.load(open(sys.argv[1])); k=d['ops']['kernel']; print(k); sys.exit(0 if k >= int(sys.argv[2]) and d['dropped'] == 0 else 1)" \
			"$out/loop.info.json" "$loops" >"$out/loop.kernels" 2>&1
		check "launch loop: every launch recorded, no drops" $? \
			"kernels=$(cat "$out/loop.kernels") of $loops (+1000 warm-up)"
	fi
	verdict=$(awk -v b="$base" -v r="$rec" -v n="$loops" \
		'BEGIN {print ((r-b)/n < 1000 && (r-b)/b < 0.03) ? "within" : "over"}')
	say "targets (< 1 us/launch and < 3%): $verdict"
else
	check "launch loop" 1 "no timings (see $log)"
	over="n/a" over_deps="n/a" verdict="n/a"
fi

# ---- summary ----
{
	echo "gpuscope collector GPU check, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "GPU: $(head -1 "$out/gpus.txt")"
	echo "checks: $(grep -c '	ok	' "$results") ok, $failures failed"
	echo "overhead (launch loop, $loops launches, median of 5): $over"
	echo "overhead with --data-deps: $over_deps"
	echo "targets (< 1 us/launch, < 3% end to end): $verdict"
	echo
	cat "$results"
} >"$out/summary.txt"
python3 - "$results" "$out/summary.json" "$over" "$over_deps" "$verdict" <<'PY' 2>>"$log"
import json, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
json.dump({"schema": "gpuscope.gpucheck/1",
           "checks": [{"name": r[0], "status": r[1], "detail": r[2] if len(r) > 2 else ""} for r in rows],
           "failed": sum(1 for r in rows if r[1] != "ok"),
           "overhead": sys.argv[3], "overhead_data_deps": sys.argv[4], "targets": sys.argv[5]},
          open(sys.argv[2], "w"), indent=2)
PY
cat "$out/summary.txt"
[ "$failures" -eq 0 ]
