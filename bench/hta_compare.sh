#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Side by side: Holistic Trace Analysis's temporal breakdown against
# `gpuscope analyze --format json` on the same Kineto traces, timed in one run.
#
#   bench/hta_compare.sh [SIZE|TRACE.json.gz ...]
#
# A SIZE (1e4, 100000) is a generated trace of that many GPU ops (bench/gen.c)
# as gzip Kineto JSON; a TRACE is a real one, copied into a directory of its
# own (HTA reads a directory). Default: 1e4 1e5 and every Kineto .json.gz of
# 1 MB or more under $GS_SHARED_DATA/kineto (default ../shared/data next to
# the source tree).
#
# Needs HTA (`pip install HolisticTraceAnalysis`; `python3 -c 'import hta'`
# must work; HTA 0.5.0 needs pandas < 2.3): without it the script says so and
# exits 0. Needs the Release build of `make bench` (build-bench/), or
# GPUSCOPE= and GEN= pointing at a gpuscope binary and at gs_bench_gen (GEN
# only for SIZEs). PYTHON= picks the interpreter.
#
# For each trace, each timed as the wall-clock time of a fresh process, best
# of REPEAT (3) runs:
#   - gpuscope: `gpuscope analyze --format json TRACE` (load + every analysis
#     + the JSON report, read from a pipe),
#   - HTA: TraceAnalysis(trace_dir) (parse) + get_temporal_breakdown(),
#     in-process, its imports left out,
#   - `igzip -dc` and `gzip -dc` of the same file to /dev/null, when installed:
#     what inflating alone costs,
# and the ratio HTA / gpuscope. Not part of `make check`.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
PYTHON=${PYTHON:-python3}
GPUSCOPE=${GPUSCOPE:-$root/build-bench/analyzer/gpuscope}
GEN=${GEN:-$root/build-bench/bench/gs_bench_gen}
REPEAT=${REPEAT:-3}
SHARED=${GS_SHARED_DATA:-$(dirname "$root")/shared/data}

if ! "$PYTHON" -c 'import hta' >/dev/null 2>&1; then
	echo "hta_compare: skipped: Holistic Trace Analysis is not installed" \
		"(pip install HolisticTraceAnalysis; '$PYTHON -c \"import hta\"' fails)"
	exit 0
fi
if [ $# -eq 0 ]; then
	set -- 1e4 1e5
	if [ -d "$SHARED/kineto" ]; then
		for f in $(find "$SHARED/kineto" -name '*.json.gz' -size +1000k | sort); do
			set -- "$@" "$f"
		done
	fi
fi
need_gen=0
for a in "$@"; do
	[ -f "$a" ] || need_gen=1
done
if [ ! -x "$GPUSCOPE" ] || { [ $need_gen = 1 ] && [ ! -x "$GEN" ]; }; then
	echo "hta_compare: error: $GPUSCOPE or $GEN not found: run 'make bench" \
		"BENCH_SIZES=1e4' first, or set GPUSCOPE= and GEN=" >&2
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hta_compare.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

i=0
for a in "$@"; do
	i=$((i + 1))
	mkdir -p "$tmp/$i"
	if [ -f "$a" ]; then
		cp "$a" "$tmp/$i/"
		basename "$a" >"$tmp/$i.name"
	else
		"$GEN" --ops "$a" --json-gz "$tmp/$i/rank-0.json.gz" >/dev/null
		echo "$a ops" >"$tmp/$i.name"
	fi
done

"$PYTHON" - "$GPUSCOPE" "$REPEAT" "$tmp" "$i" <<'EOF'
import os
import shutil
import subprocess
import sys
import time

gpuscope, repeat, tmp, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])

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

def best(cmd, parse, may_fail=False):
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - t0
        if r.returncode != 0:
            last = (r.stderr.strip().splitlines() or ["(no message)"])[-1]
            if may_fail:
                print("hta_compare: %s: HTA failed: %s" % (name, last[:160]))
                return None
            sys.exit("hta_compare: error: %s failed:\n%s" % (cmd[0], r.stderr[-2000:]))
        v = parse(r, wall)
        out = v if out is None or v[0] < out[0] else out
    return out

def inflate(tool, f):
    if not shutil.which(tool):
        return None
    t = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run([tool, "-dc", f], stdout=subprocess.DEVNULL, check=True)
        w = time.perf_counter() - t0
        t = w if t is None or w < t else t
    return t

def seconds(v):
    return "%.3f" % v if v is not None else "-"

print("%-36s %8s %10s %9s %9s %8s %8s %7s" % ("trace", "gzip MB", "gpuscope s", "HTA s",
      "HTA parse", "igzip s", "gzip s", "HTA/gs"))
for i in range(1, count + 1):
    d = os.path.join(tmp, str(i))
    with open(d + ".name") as n:
        name = n.read().strip()
    f = os.path.join(d, os.listdir(d)[0])
    g = best([gpuscope, "analyze", "--format", "json", f], lambda r, w: (w,))
    h = best([sys.executable, "-c", HTA, d],
             lambda r, w: tuple(float(x) for x in r.stdout.split()[:3]), may_fail=True)
    if h is None:
        continue
    print("%-36s %8.1f %10.3f %9.3f %9.3f %8s %8s %7.1f" % (
        name[:36], os.path.getsize(f) / 1e6, g[0], h[0], h[1], seconds(inflate("igzip", f)),
        seconds(inflate("gzip", f)), h[0] / g[0]))
print("HTA s: TraceAnalysis (parse) + get_temporal_breakdown, in-process, imports excluded;")
print("gpuscope s: the whole `gpuscope analyze --format json` process (load, every analysis,")
print("report); igzip s, gzip s: inflating the same file alone, to /dev/null.")
EOF
