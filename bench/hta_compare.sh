#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Side by side: Holistic Trace Analysis's temporal breakdown against
# `gpuscope analyze` on the same generated Kineto traces, timed in one run.
#
#   bench/hta_compare.sh [SIZE...]        (default sizes: 1e4 1e5)
#
# Needs HTA (`pip install HolisticTraceAnalysis`; `python3 -c 'import hta'`
# must work; HTA 0.5.0 needs pandas < 2.3): without it the script says so and
# exits 0. Needs the Release
# build of `make bench` (build-bench/), or GPUSCOPE= and GEN= pointing at a
# gpuscope binary and at gs_bench_gen. PYTHON= picks the interpreter.
#
# For each size: a trace of that many GPU ops (bench/gen.c) as gzip Kineto
# JSON in a temporary directory (deleted at the end), then
#   - gpuscope: `gpuscope analyze TRACE` (load + every analysis + report),
#   - HTA: TraceAnalysis(trace_dir) (parse) + get_temporal_breakdown(),
# each timed as wall-clock time of a fresh process, best of REPEAT (3) runs,
# and the ratio HTA / gpuscope. Not part of `make check`.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
PYTHON=${PYTHON:-python3}
GPUSCOPE=${GPUSCOPE:-$root/build-bench/analyzer/gpuscope}
GEN=${GEN:-$root/build-bench/bench/gs_bench_gen}
REPEAT=${REPEAT:-3}

if ! "$PYTHON" -c 'import hta' >/dev/null 2>&1; then
	echo "hta_compare: skipped: Holistic Trace Analysis is not installed" \
		"(pip install HolisticTraceAnalysis; '$PYTHON -c \"import hta\"' fails)"
	exit 0
fi
for b in "$GPUSCOPE" "$GEN"; do
	if [ ! -x "$b" ]; then
		echo "hta_compare: error: $b not found: run 'make bench BENCH_SIZES=1e4' first," \
			"or set GPUSCOPE= and GEN=" >&2
		exit 1
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hta_compare.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

[ $# -gt 0 ] || set -- 1e4 1e5
for n in "$@"; do
	mkdir -p "$tmp/$n"
	"$GEN" --ops "$n" --json-gz "$tmp/$n/rank-0.json.gz" >/dev/null
done

"$PYTHON" - "$GPUSCOPE" "$REPEAT" "$tmp" "$@" <<'EOF'
import os
import subprocess
import sys
import time

gpuscope, repeat, tmp, sizes = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]

HTA = r"""
import sys, time, warnings, logging
warnings.filterwarnings("ignore")
logging.disable(logging.CRITICAL)
t0 = time.perf_counter()
from hta.trace_analysis import TraceAnalysis
t1 = time.perf_counter()
a = TraceAnalysis(trace_dir=sys.argv[1])
t2 = time.perf_counter()
df = a.get_temporal_breakdown(visualize=False)
t3 = time.perf_counter()
print(t3 - t1, t2 - t1, t3 - t2)
print(df.to_string(), file=sys.stderr)
"""

def best(cmd, parse):
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - t0
        if r.returncode != 0:
            sys.exit("hta_compare: error: %s failed:\n%s" % (cmd[0], r.stderr[-2000:]))
        v = parse(r, wall)
        out = v if out is None or v[0] < out[0] else out
    return out

print("%-8s %12s %12s %12s %12s %8s" % ("GPU ops", "JSON.gz MB", "gpuscope s", "HTA s",
                                          "HTA parse s", "HTA/gs"))
for n in sizes:
    d = os.path.join(tmp, n)
    f = os.path.join(d, "rank-0.json.gz")
    g = best([gpuscope, "analyze", "-o", os.devnull, f], lambda r, w: (w,))
    h = best([sys.executable, "-c", HTA, d],
             lambda r, w: tuple(float(x) for x in r.stdout.split()[:3]))
    print("%-8s %12.1f %12.3f %12.3f %12.3f %8.1f" % (n, os.path.getsize(f) / 1e6, g[0], h[0],
                                                      h[1], h[0] / g[0]))
print("HTA s: TraceAnalysis (parse) + get_temporal_breakdown, in-process, imports excluded;")
print("gpuscope s: the whole `gpuscope analyze` process (load, every analysis, report).")
EOF
