#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The GPU check of the collector, run from a bundle that scripts/gpu-bundle.sh
# laid out (this file is copied to its top as run.sh; see tests/gpu/README.md):
#
#   sh gpu-bundle/run.sh [--dry-run] [OUTDIR]   (default: $OUT, else ./gpu-check-out)
#
# --dry-run (or GPUCHECK_DRY_RUN=1): no GPU looked for; everything runs end
# to end as on a GPU machine, so that a machine without one checks the
# bundle and this script: the checks that need a GPU fail (exit 1), the
# others pass. summary.txt says it was a dry run.
#
# Needs only the NVIDIA driver: everything else is in the bundle (gpuscope,
# the collector, CUPTI, the libraries they link, the programs). python3 runs
# the checks (gpucheck.py, standard library only); the PyTorch comparison
# runs where python3 has torch with CUDA, and is skipped elsewhere. No
# LD_LIBRARY_PATH is set: the bundle's programs find its lib/ themselves
# (RPATH, RUNPATH, bin/gpuscope's loader --library-path), so the programs
# recorded (PyTorch) load their own libraries, never the bundle's.
#
# 1. prints and logs the GPUs (nvidia-smi -L) and the driver; exits 77 when
#    there is none;
# 2. records the probe with and without --data-deps: event, default stream,
#    host sync, sync copy and data edges (these on a <<<>>> and on a
#    cuLaunchKernel kernel), the event wait, syncs, NVTX range,
#    launch API names, graph kernels, and its thread ids equal to the ones
#    the probe printed (gettid()); and runs it without the collector;
# 3. runs the nine one-shot experiments (experiments.sh, sourced): one
#    line each in OUTDIR/experiments.txt;
# 4. records every kernels/ program with `gpuscope record` (the collector
#    through CUDA_INJECTION64_PATH) and checks each trace: ops present, no
#    drops, devices with SM and copy-engine counts, breakdown sums to the
#    window, waits linked, thread ids that are OS thread ids; then what each
#    program promises (test_samples);
# 5. runs tests/gpu/torch_streams.py once under torch.profiler (Kineto JSON)
#    and once under `gpuscope record`, and compares the two (gpucheck.py torch);
# 6. reports the collector's overhead on the launch loop (median of 5 runs
#    without it, with it, with --data-deps; LAUNCHES, default 50000): a
#    number to read, not a pass/fail.
#
# NVTX_INJECTION64_PATH is not set: the collector points it at the CUPTI the
# program loaded (torch's own under PyTorch).
#
# Every program runs under `timeout` (GPUCHECK_TIMEOUT s at most, default 60,
# less when the run's budget
# of GPUCHECK_BUDGET seconds, default 330, runs short; once two kernels/
# programs have timed out the others are not run). Scratch files live in
# a mktemp -d directory, removed at the end (kept with GPUCHECK_KEEP=1).
# OUTDIR gets at most 8 files: summary.txt, summary.json, run.log,
# experiments.txt and up to 4 files of traces of at most 2 MB each
# (probe.gscope, probe-deps.gscope, kernels.tar.gz with every kernels/ trace,
# torch.tar.gz with the profiler's JSON and torch-record.gscope).
#
# Exit status: 0 every check passed, 1 a check failed, 77 skipped (no GPU).
set -u

here=$(cd "$(dirname "$0")" && pwd)
dry=${GPUCHECK_DRY_RUN:-0}
if [ "${1:-}" = "--dry-run" ]; then
	dry=1
	shift
fi
out=${1:-${OUT:-$PWD/gpu-check-out}}
mkdir -p "$out" || exit 1
out=$(cd "$out" && pwd)
log=$out/run.log
: >"$log"
start=$(date +%s)
budget=${GPUCHECK_BUDGET:-330}
max_file=$((2 * 1024 * 1024))

say() { echo "$*" | tee -a "$log"; }

skip() { # REASON: no GPU here
	say "skipped: $1"
	echo "gpuscope collector GPU check: skipped: $1" >"$out/summary.txt"
	exit 77
}

if [ ! -x "$here/bin/gpuscope" ] || [ ! -f "$here/lib/libgpuscope_collector.so" ]; then
	say "FAIL: $here is not a GPU check bundle (no bin/gpuscope or lib/libgpuscope_collector.so): build one with scripts/gpu-bundle.sh"
	exit 1
fi
if [ "$dry" = 1 ]; then
	gpus="none (dry run: the checks that need a GPU fail)"
	driver=none
	say "dry run: no GPU looked for"
else
	if ! command -v nvidia-smi >/dev/null 2>&1; then
		[ -x /usr/local/nvidia/bin/nvidia-smi ] || skip "no GPU: nvidia-smi not found"
		PATH=$PATH:/usr/local/nvidia/bin
	fi
	gpus=$(nvidia-smi -L 2>&1)
	if [ $? -ne 0 ] || [ -z "$gpus" ]; then
		skip "no GPU: nvidia-smi -L failed: $(echo "$gpus" | head -n 1)"
	fi
	driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1)
	nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm \
		--format=csv >>"$log" 2>&1
fi
say "GPUs: $gpus"
say "driver: $driver"
say "host: $(uname -srm); $(ldd --version 2>&1 | head -n 1)"
[ -f "$here/MANIFEST" ] && sed -n '1,4p' "$here/MANIFEST" >>"$log"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/gpucheck.XXXXXX") || { say "FAIL: mktemp -d"; exit 1; }
if [ "${GPUCHECK_KEEP:-0}" = 1 ]; then
	say "scratch (kept): $scratch"
else
	trap 'rm -rf "$scratch"' EXIT
	trap 'rm -rf "$scratch"; exit 1' HUP INT TERM
fi
results=$scratch/results.tsv
: >"$results"
timeouts=0

export GPUSCOPE_COLLECTOR="$here/lib/libgpuscope_collector.so"
unset CUDA_INJECTION64_PATH GPUSCOPE_OUTPUT GPUSCOPE_DATA_DEPS NVTX_INJECTION64_PATH \
	GPUSCOPE_BUFFER_SIZE GPUSCOPE_MAX_BUFFERS 2>/dev/null
gpuscope=$here/bin/gpuscope
check_py=$here/gpucheck.py
say "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-} (left as it was: the bundle does not need it)"
say "GPUSCOPE_COLLECTOR=$GPUSCOPE_COLLECTOR"

check() { # NAME ok|FAIL|skip|info DETAIL
	printf '%-4s %s: %s\n' "$2" "$1" "$3" | tee -a "$log"
	printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$results"
}

# Seconds the next program may run: GPUCHECK_TIMEOUT (default 60), or what
# is left of the budget; fails (status 1) when less than 5 s are left.
per_program=${GPUCHECK_TIMEOUT:-60}
limit() {
	left=$((budget - ($(date +%s) - start)))
	[ "$left" -ge 5 ] || return 1
	[ "$left" -gt "$per_program" ] && left=$per_program
	echo "$left"
}

if command -v timeout >/dev/null 2>&1; then
	have_timeout=1
else
	have_timeout=0
	say "warning: no timeout command: programs run without a time limit"
fi

# bounded SECONDS CMD...: CMD under timeout (SIGKILL 5 s after SIGTERM).
bounded() {
	s=$1
	shift
	if [ "$have_timeout" = 1 ]; then
		timeout -k 5 "$s" "$@"
	else
		"$@"
	fi
}

# logtail NAME FILE: the end of a program's output in the log.
logtail() {
	[ -s "$2" ] || return 0
	echo "--- $1 (last lines)" >>"$log"
	tail -n 15 "$2" >>"$log"
}

have_python=0
if command -v python3 >/dev/null 2>&1 && python3 -c 'import json, statistics' 2>>"$log"; then
	have_python=1
else
	check "python3" FAIL "python3 is needed for the checks"
fi

# pycheck PREFIX ARGS...: gpucheck.py ARGS, each of its lines a check named PREFIX: NAME.
pycheck() {
	prefix=$1
	shift
	[ "$have_python" = 1 ] || return 0
	t=$(limit) || { check "$prefix: checks" FAIL "not run: the time budget is spent"; return 0; }
	bounded "$t" python3 "$check_py" "$@" >"$scratch/check.tsv" 2>"$scratch/check.err"
	rc=$?
	logtail "$prefix: gpucheck.py stderr" "$scratch/check.err"
	if [ ! -s "$scratch/check.tsv" ]; then
		check "$prefix: checks" FAIL "gpucheck.py gave no result (exit $rc; see run.log)"
		return 0
	fi
	while IFS='	' read -r what status detail; do
		check "$prefix: $what" "$status" "$detail"
	done <"$scratch/check.tsv"
}

# record NAME [record options] -- PROGRAM ARGS: the trace in $trace, its
# output in $scratch/NAME/stdout; status 1 when no trace was written. A run
# that timed out counts in $timeouts.
record() {
	name=$1
	shift
	dir=$scratch/$name
	mkdir -p "$dir"
	trace=
	t=$(limit) || { check "$name: record" FAIL "not run: the time budget is spent"; return 1; }
	bounded "$t" "$gpuscope" record -o "$dir/trace-%p.gscope" "$@" \
		>"$dir/stdout" 2>"$dir/stderr"
	rc=$?
	logtail "$name stdout" "$dir/stdout"
	logtail "$name stderr" "$dir/stderr"
	trace=$(ls "$dir"/trace-*.gscope 2>/dev/null | head -n 1)
	if [ "$rc" -ne 0 ] || [ -z "$trace" ]; then
		case $rc in
		124 | 137)
			why="timed out after $t s"
			timeouts=$((timeouts + 1))
			;;
		*) why="exit $rc" ;;
		esac
		check "$name: record" FAIL "$why, trace '$trace': $(tail -n 2 "$dir/stderr" | tr '\n' ' ')"
		[ -n "$trace" ]
		return
	fi
	check "$name: record" ok "$(wc -c <"$trace") bytes"
	return 0
}

# keep FILE NAME: FILE as OUTDIR/NAME when it is at most 2 MB.
keep() {
	[ -f "$1" ] || return 0
	size=$(wc -c <"$1")
	if [ "$size" -le "$max_file" ]; then
		cp "$1" "$out/$2"
	else
		say "not kept: $2 is $size bytes (over $max_file)"
	fi
}

# ---- preflight: the bundle's programs start here ----
if ! ver=$("$gpuscope" --version 2>&1); then
	check "gpuscope starts" FAIL "$ver"
	ldd "$gpuscope" "$GPUSCOPE_COLLECTOR" >>"$log" 2>&1
else
	check "gpuscope starts" ok "$ver"
fi
ldd "$GPUSCOPE_COLLECTOR" >>"$log" 2>&1

# ---- the probe ----
if record probe -- "$here/bin/probe"; then
	grep -q "probe ok" "$scratch/probe/stdout"
	check "probe: program result" "$([ $? -eq 0 ] && echo ok || echo FAIL)" \
		"$(tr '\n' ' ' <"$scratch/probe/stdout")"
	pycheck probe trace "$gpuscope" "$trace" probe --stdout "$scratch/probe/stdout"
	keep "$trace" probe.gscope
fi
if record probe-deps --data-deps -- "$here/bin/probe"; then
	pycheck probe-deps trace "$gpuscope" "$trace" probe-deps --stdout "$scratch/probe-deps/stdout"
	keep "$trace" probe-deps.gscope
fi
if t=$(limit); then # the same result without the collector
	bounded "$t" "$here/bin/probe" >"$scratch/probe-plain.txt" 2>&1
	rc=$?
	check "probe without collector" "$([ $rc -eq 0 ] && echo ok || echo FAIL)" \
		"exit $rc: $(tr '\n' ' ' <"$scratch/probe-plain.txt" | cut -c1-300)"
fi

# ---- the one-shot experiments ----
if [ -f "$here/experiments.sh" ]; then
	. "$here/experiments.sh"
else
	check "experiments" FAIL "no experiments.sh in the bundle"
fi

# ---- kernels/ programs ----
mkdir -p "$scratch/samples"
timeouts=0
for prog in "$here"/kernels/*; do
	[ -f "$prog" ] && [ -x "$prog" ] || continue
	base=$(basename "$prog")
	if [ "$timeouts" -ge 2 ]; then # keep the budget for what follows
		check "kernels-$base: record" FAIL "not run: two kernels/ programs timed out"
		continue
	fi
	if record "kernels-$base" -- "$prog"; then
		pycheck "kernels-$base" trace "$gpuscope" "$trace" generic
		cp "$trace" "$scratch/samples/$base.gscope"
	fi
done
if [ -x "$here/bin/test_samples" ] && [ -n "$(ls "$scratch/samples" 2>/dev/null)" ]; then
	if t=$(limit); then
		bounded "$t" "$here/bin/test_samples" "$gpuscope" "$scratch/samples" \
			>"$scratch/samples.log" 2>&1
		rc=$?
		logtail "test_samples" "$scratch/samples.log"
		grep -E 'FAILED|\[  (ERROR|FAILURE)' "$scratch/samples.log" >>"$log"
		check "kernels: the findings each program promises" \
			"$([ "$rc" -eq 0 ] && echo ok || echo FAIL)" \
			"test_samples exit $rc: $(grep -c 'OK \]' "$scratch/samples.log") ok, $(grep -c 'FAILED \]' "$scratch/samples.log") failed"
	else
		check "kernels: the findings each program promises" FAIL "not run: the time budget is spent"
	fi
fi
if [ -n "$(ls "$scratch/samples" 2>/dev/null)" ]; then
	(cd "$scratch/samples" && tar -czf "$scratch/kernels.tar.gz" ./*.gscope) &&
		keep "$scratch/kernels.tar.gz" kernels.tar.gz
fi

# ---- PyTorch: its profiler against gpuscope record ----
torch_py=$here/torch_streams.py
if [ "$have_python" = 1 ] && python3 -c 'import torch' >/dev/null 2>&1; then
	tdir=$scratch/torch
	mkdir -p "$tdir"
	torch_ok=0
	if t=$(limit); then
		bounded "$t" python3 "$torch_py" --profile "$tdir/kineto.json" \
			--maps "$tdir/maps-profile.txt" >"$tdir/profile.out" 2>&1
		rc=$?
		logtail "torch under torch.profiler" "$tdir/profile.out"
		if [ "$rc" -eq 77 ]; then
			check "torch" skip "PyTorch sees no GPU: $(tail -n 1 "$tdir/profile.out")"
		elif [ "$rc" -eq 0 ] && [ -s "$tdir/kineto.json" ]; then
			check "torch: under torch.profiler" ok "$(tail -n 1 "$tdir/profile.out")"
			torch_ok=1
		else
			check "torch: under torch.profiler" FAIL "exit $rc: $(tail -n 2 "$tdir/profile.out" | tr '\n' ' ')"
		fi
	else
		check "torch: under torch.profiler" FAIL "not run: the time budget is spent"
	fi
	if [ "$torch_ok" = 1 ]; then
		# The process loads one libcupti: torch's own (RPATH) or the bundle's;
		# the collector points NVTX's injection at that same file.
		cupti=$(head -n 1 "$tdir/maps-profile.txt" 2>/dev/null)
		say "torch loads CUPTI from: ${cupti:-?}"
		if record torch-record -- python3 "$torch_py" --maps "$tdir/maps-record.txt"; then
			pycheck torch-record trace "$gpuscope" "$trace" generic
			pycheck "torch: profiler vs record" torch "$gpuscope" "$tdir/kineto.json" \
				"$trace" --maps "$tdir/maps-record.txt"
			cp "$trace" "$tdir/torch-record.gscope"
		fi
		# One file: the profiler's JSON and gpuscope's trace of the same program.
		cp "$tdir/kineto.json" "$tdir/torch-profiler.json"
		files=torch-profiler.json
		[ -f "$tdir/torch-record.gscope" ] && files="$files torch-record.gscope"
		# shellcheck disable=SC2086 # $files: one or two names
		(cd "$tdir" && tar -czf "$scratch/torch.tar.gz" $files) &&
			keep "$scratch/torch.tar.gz" torch.tar.gz
	fi
else
	check "torch" skip "python3 has no torch here: the profiler comparison is not run"
fi

# ---- overhead on the launch loop ----
loops=${LAUNCHES:-50000}
ldir=$scratch/loop
mkdir -p "$ldir"
: >"$ldir/base.txt"
: >"$ldir/rec.txt"
: >"$ldir/deps.txt"
total_ns() { sed -n 's/.*total_ns=\([0-9]*\).*/\1/p'; }
for i in 1 2 3 4 5; do
	t=$(limit) || break
	bounded "$t" "$here/bin/launch_loop" "$loops" 2>>"$log" |
		total_ns >>"$ldir/base.txt"
	t=$(limit) || break
	rm -f "$ldir"/rec-*.gscope
	bounded "$t" "$gpuscope" record -o "$ldir/rec-%p.gscope" -- "$here/bin/launch_loop" "$loops" \
		2>>"$ldir/rec.err" | total_ns >>"$ldir/rec.txt"
	t=$(limit) || break
	rm -f "$ldir"/deps-*.gscope
	bounded "$t" "$gpuscope" record -o "$ldir/deps-%p.gscope" --data-deps -- \
		"$here/bin/launch_loop" "$loops" 2>>"$ldir/rec.err" | total_ns >>"$ldir/deps.txt"
done
logtail "launch loop under record" "$ldir/rec.err"
say "launch loop total_ns without: $(tr '\n' ' ' <"$ldir/base.txt")"
say "launch loop total_ns with:    $(tr '\n' ' ' <"$ldir/rec.txt")"
say "launch loop total_ns --data-deps: $(tr '\n' ' ' <"$ldir/deps.txt")"
pycheck "launch loop" overhead "$loops" "$ldir/base.txt" "$ldir/rec.txt" "$ldir/deps.txt"
trace=$(ls "$ldir"/rec-*.gscope 2>/dev/null | head -n 1)
if [ -n "$trace" ]; then
	pycheck "launch loop" trace "$gpuscope" "$trace" loop --launches "$loops"
else
	check "launch loop: record" FAIL "no trace (see run.log)"
fi

# ---- summary ----
elapsed=$(($(date +%s) - start))
n_ok=$(grep -c '	ok	' "$results")
n_fail=$(grep -c '	FAIL	' "$results")
n_skip=$(grep -c '	skip	' "$results")
overhead=$(grep '^launch loop: overhead	' "$results" | cut -f3)
commit=$(sed -n 's/^commit: //p' "$here/MANIFEST" 2>/dev/null | head -n 1)
{
	echo "gpuscope collector GPU check$([ "$dry" = 1 ] && echo ' (DRY RUN, no GPU)'), $(date -u +%Y-%m-%dT%H:%M:%SZ), ${elapsed} s"
	echo "bundle: ${commit:-unknown commit}"
	echo "GPU: $(echo "$gpus" | head -n 1)"
	echo "driver: $driver"
	echo "checks: $n_ok ok, $n_fail failed, $n_skip skipped"
	echo "overhead (launch loop, $loops launches; reported, not judged): ${overhead:-n/a}"
	echo
	grep '	FAIL	' "$results" | sed 's/^/FAIL /'
	[ "$n_fail" -gt 0 ] && echo
	cat "$results"
} >"$out/summary.txt"
if [ "$have_python" = 1 ]; then
	python3 "$check_py" summary "$results" "$out/summary.json" "gpu=$(echo "$gpus" | head -n 1)" \
		"driver=$driver" "commit=${commit:-}" "elapsed_s=$elapsed" "launches=$loops" \
		"overhead=${overhead:-}" 2>>"$log" || say "FAIL: summary.json not written"
fi
echo
sed -n '1,/^$/p' "$out/summary.txt"
grep '	FAIL	' "$results" | sed 's/^/FAIL /'
[ "$n_fail" -eq 0 ] && [ -s "$out/summary.json" ]
