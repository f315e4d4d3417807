#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line tests of `gpuscope export` and `gpuscope diff` (ctest label "cli").
#
#   run.sh GPUSCOPE EXPORT_CHECK TESTSDIR WORKDIR GEN_NSYS_2PROC GS_BENCH_GEN
#
# On the hand-written traces of TESTSDIR (cli/data, data/kineto, data/analyze,
# cli/analyze): every Chrome export (plain, gzip, with the ideal schedule) is
# checked by EXPORT_CHECK (valid JSON, flows paired, no track mis-nests, the
# same ops read back), `info` of the export equals `info` of the source but
# for the file name, format and loading warnings; CSV files, names and
# quoting; jobs (several TRACEs, a multi-process Nsight export): a Chrome
# process per rank and GPU with a pid of its own though ranks share pids
# and device numbers, names naming rank and pid, no flow across ranks, the
# same ops read back, a rank column in the CSV files, a clock warning; the
# golden text of one diff; exit statuses and error lines
# (docs/design.md, Output files); no partial or temporary file left behind on failure.
# GS_UPDATE_GOLDEN=1 rewrites the expected files from the current outputs.
set -u

gs=${1:?usage: run.sh GPUSCOPE EXPORT_CHECK TESTSDIR WORKDIR}
check=${2:?export_check}
tests=${3:?tests dir}
work=${4:?work dir}
gen2proc=${5:?gen_nsys_2proc}
benchgen=${6:?gs_bench_gen}

case $gs in /*) ;; *) gs=$(pwd)/$gs ;; esac
case $check in /*) ;; *) check=$(pwd)/$check ;; esac
case $gen2proc in /*) ;; *) gen2proc=$(pwd)/$gen2proc ;; esac
case $benchgen in /*) ;; *) benchgen=$(pwd)/$benchgen ;; esac
case $tests in /*) ;; *) tests=$(pwd)/$tests ;; esac
src=$tests/cli/export

rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1
export LC_ALL=C TERM=dumb

failures=0
checks=0

fail() {
	printf 'FAIL: %s\n' "$*" >&2
	failures=$((failures + 1))
}

# run NAME ARGS...: gpuscope ARGS > NAME.out 2> NAME.err; exit status in $rc.
run() {
	name=$1
	shift
	checks=$((checks + 1))
	"$gs" "$@" >"$name.out" 2>"$name.err"
	rc=$?
}

# expect NAME STATUS ARGS...: the exit status; on failure nothing on stdout
# and a "gpuscope: error: " first line (exactly one line for status 1).
expect() {
	name=$1
	want=$2
	shift 2
	run "$name" "$@"
	if [ "$rc" != "$want" ]; then
		fail "$name: exit $rc, want $want (gpuscope $*)"
		sed 's/^/    /' "$name.err" >&2
		return
	fi
	[ "$want" = 0 ] && return
	[ -s "$name.out" ] && fail "$name: printed on stdout when failing"
	head -n 1 "$name.err" | grep -q '^gpuscope: error: ' ||
		fail "$name: stderr does not start with 'gpuscope: error: '"
	if [ "$want" = 1 ]; then
		lines=$(wc -l <"$name.err")
		[ "$lines" -eq 1 ] || fail "$name: $lines lines on stderr, want 1"
	fi
}

# has FILE TEXT: the file holds TEXT (fixed string).
has() {
	checks=$((checks + 1))
	grep -qF -- "$2" "$1" || fail "$1 lacks '$2'"
}

# info_json FILE: `info --format json` without the file name, format and
# loading warnings (an export warns that it skips its counters).
info_json() {
	"$gs" info --format json "$1" 2>/dev/null |
		grep -v -e '"file":' -e '"format":' | sed '/"warnings":/,$d'
}

# roundtrip NAME TRACE [EXPORT ARGS...]: export, check, same info.
roundtrip() {
	name=$1
	trace=$2
	shift 2
	checks=$((checks + 1))
	if ! "$gs" export "$@" -o "$name.json" "$trace" 2>"$name.err"; then
		fail "$name: export failed: $(cat "$name.err")"
		return
	fi
	"$check" "$name.json" "$trace" >"$name.check" 2>&1 || {
		fail "$name: export_check"
		sed 's/^/    /' "$name.check" >&2
	}
	info_json "$trace" >"$name.a"
	info_json "$name.json" >"$name.b"
	cmp -s "$name.a" "$name.b" || {
		fail "$name: info of the export differs from info of the source"
		diff "$name.a" "$name.b" | head -10 >&2
	}
}

# ---- Chrome export of every hand-written trace ---------------------------

for f in "$tests"/cli/data/*.json "$tests"/data/kineto/*.json "$tests"/data/analyze/*.json \
	"$tests"/cli/analyze/*.json; do
	base=$(basename "$(dirname "$f")")_$(basename "$f" .json)
	roundtrip "$base" "$f"
	roundtrip "$base.ideal" "$f" --with-ideal
done

small=$tests/cli/data/small.json

# stdout is the same as -o; "-" is stdout; gzip by name, and it reads back.
run stdout export "$small"
run stdout_dash export -o - "$small"
"$gs" export -o file.json "$small" 2>/dev/null
checks=$((checks + 1))
cmp -s stdout.out file.json || fail "export to stdout differs from export -o file.json"
cmp -s stdout.out stdout_dash.out || fail "export -o - differs from export to stdout"
expect gz 0 export -o small.json.gz "$small"
checks=$((checks + 1))
[ "$(od -An -tx1 -N2 small.json.gz | tr -d ' ')" = 1f8b ] || fail "small.json.gz is not gzip"
"$check" small.json.gz "$small" >gz.check 2>&1 || fail "gzip export: export_check"
info_json small.json.gz >gz.b
info_json "$small" >gz.a
cmp -s gz.a gz.b || fail "gzip export: info differs"
# Loading warnings of the source go to stderr; the export itself is clean.
run warn export -o warn.json "$small"
has warn.err "gpuscope: warning: "
has warn.json '"process_name"'
has warn.json '"cat":"ac2g"'
has warn.json '"cat":"dependency"'
has warn.json '"ph":"C","name":"breakdown"'
run ideal export --with-ideal "$small"
has ideal.out '"GPU 0 ideal schedule"'
has ideal.out '"cat":"ideal"'

# ---- CSV -----------------------------------------------------------------

expect csv 0 export --format csv -o run "$small"
checks=$((checks + 1))
[ -f run.ops.csv ] && [ -f run.segments.csv ] || fail "csv: run.ops.csv or run.segments.csv missing"
[ -s csv.out ] && fail "csv: printed on stdout"
has run.ops.csv "index,kind,device,pid,context,stream,stream_kind,stream_priority,start_ns,end_ns,dur_ns,correlation,name,"
has run.segments.csv "device,start_ns,end_ns,dur_ns,category"
has run.ops.csv ',"void add_kernel<float>(float*, float const*, int)",'
has run.ops.csv ',cudaMemcpyAsync,4242,4242'
ops=$(sed -n 's/^  "op_total": \([0-9]*\).*/\1/p' gz.a)
rows=$(($(wc -l <run.ops.csv) - 1))
checks=$((checks + 1))
[ "$rows" = "$ops" ] || fail "csv: $rows op rows, want $ops"
# A trailing .csv of PREFIX is dropped; a directory gets ops.csv, segments.csv.
expect csv_ext 0 export --format csv -o named.csv "$small"
checks=$((checks + 1))
[ -f named.ops.csv ] && [ -f named.segments.csv ] || fail "csv: -o named.csv"
mkdir -p outdir
expect csv_dir 0 export --format csv -o outdir "$small"
checks=$((checks + 1))
[ -f outdir/ops.csv ] && [ -f outdir/segments.csv ] || fail "csv: -o outdir"
expect csv_ideal 0 export --format csv --with-ideal -o ideal "$small"
has ideal.ops.csv ",launch_tid,ideal_start_ns,delay_ns,bound_by"
# RFC 4180: a name with a comma, a quote and a line break.
cat >quoting.json <<'JSON'
{"traceEvents": [
{"ph": "X", "cat": "kernel", "name": "k, \"quoted\"\nnext", "pid": 0, "tid": 7, "ts": 10, "dur": 5,
 "args": {"device": 0, "stream": 7, "correlation": 1}}
]}
JSON
expect csv_quote 0 export --format csv -o quoting quoting.json
has quoting.ops.csv ',5000,1,"k, ""quoted""'

# ---- jobs ------------------------------------------------------------------

# checked NAME EXPORT WANT SOURCE...: export_check passes and prints WANT.
checked() {
	name=$1
	json=$2
	want=$3
	shift 3
	checks=$((checks + 1))
	"$check" "$json" "$@" >"$name.check" 2>&1 || {
		fail "$name: export_check"
		sed 's/^/    /' "$name.check" >&2
	}
	has "$name.check" "$want"
}

# A multi-process Nsight export: a rank per process (100 on GPU 0, 200 on
# GPU 1), a Chrome process per rank and GPU and one per host process.
"$gen2proc" 2proc.sqlite || fail "gen_nsys_2proc"
expect nsys2 0 export --with-ideal -o nsys2.json 2proc.sqlite
checked nsys2 nsys2.json "2 GPU processes, 2 ranks, 0 flows across ranks" 2proc.sqlite
has nsys2.check "10 ops in the source, 10 read back, 0 differ"
has nsys2.json '"name":"rank 0 · gpunode1 · pid 100 · GPU 0 NVIDIA H100 80GB HBM3","rank":0,"pid":100,'
has nsys2.json '"name":"rank 1 · gpunode1 · pid 200 · GPU 1 NVIDIA H100 80GB HBM3","rank":1,"pid":200,'
has nsys2.json '"name":"rank 0 · gpunode1 · pid 100 (host)"'
has nsys2.json '"name":"rank 1 · gpunode1 · pid 200 (host)"'
has nsys2.json '"name":"rank 1 · GPU 1 ideal"'
has nsys2.json '"labels":"GPU 1, rank 1, pid 200"'
has nsys2.json '"labels":"CPU, rank 0, pid 100"'
# pid = rank * 1000 + lane, GPUs first; the sort index is the pid.
has nsys2.json '{"ph":"M","name":"process_sort_index","pid":1000,"tid":0,"args":{"sort_index":1000}}'
has nsys2.json '{"ph":"M","name":"process_sort_index","pid":1002,"tid":0,"args":{"sort_index":1002}}'

# Nine ranks on two nodes of eight GPUs: ranks 0 and 8 are both pid 1000 on
# device 0 (of bench-node-0 and bench-node-1), and still two processes.
"$benchgen" --job 9 --collectives 4 --out-dir job9 >job9.gen 2>&1 || fail "gs_bench_gen --job 9"
set -- job9/rank0.json job9/rank1.json job9/rank2.json job9/rank3.json job9/rank4.json \
	job9/rank5.json job9/rank6.json job9/rank7.json job9/rank8.json
expect job9 0 export -o job9.json "$@"
checked job9 job9.json "9 GPU processes, 9 ranks, 0 flows across ranks" "$@"
has job9.check "288 ops in the source, 288 read back, 0 differ"
has job9.json '"pid":0,"tid":0,"args":{"name":"rank 0 · bench-node-0 · pid 1000 · GPU 0 NVIDIA H100 80GB HBM3"'
has job9.json '"pid":8000,"tid":0,"args":{"name":"rank 8 · bench-node-1 · pid 1000 · GPU 0 NVIDIA H100 80GB HBM3"'
has job9.json '"pid":8001,"tid":0,"args":{"name":"rank 8 · bench-node-1 · pid 1000 (host)"'
# The ranks' host names differ: none at the top level.
checks=$((checks + 1))
grep -q '"host_name"' job9.json && fail "job9: a host_name though the ranks' hosts differ"
# The same with the ideal schedule, gzip-compressed.
expect job9_ideal 0 export --with-ideal -o job9.json.gz "$@"
checked job9_ideal job9.json.gz "9 GPU processes, 9 ranks, 0 flows across ranks" "$@"
# Two inputs of one process are one rank (merged, with a warning), written
# as a trace on its own; what both hold is kept once: here every record
# (the second is the first with a blank line more, so not the same file).
{ cat job9/rank8.json && echo; } >rank8-again.json
expect job1 0 export -o job1.json job9/rank8.json rank8-again.json
has job1.err "are one process"
has job1.err "job9/rank8.json and rank8-again.json hold "
has job1.json '"pid":0,"tid":0,"args":{"name":"GPU 0: NVIDIA H100 80GB HBM3"}'
checked job1 job1.json "1 GPU processes, 0 ranks, 0 flows across ranks" job9/rank8.json
has job1.check "32 ops in the source, 32 read back, 0 differ"
# The same trace twice (by name, or a copy) is refused: one line, no file.
cp job9/rank8.json rank8-copy.json
expect job1_twice 1 export -o twice.json job9/rank8.json rank8-copy.json
has job1_twice.err "gpuscope: error: job9/rank8.json and rank8-copy.json are the same trace (same content); give each input once"
checks=$((checks + 1))
[ -e twice.json ] && fail "job1_twice: twice.json written"

# CSV of a job: a rank column first in both files, every op once.
expect job9_csv 0 export --format csv -o job9csv "$@"
has job9csv.ops.csv "rank,index,kind,device,pid,context,stream,"
has job9csv.segments.csv "rank,device,start_ns,end_ns,dur_ns,category"
has job9csv.ops.csv "8,0,kernel,0,0,"
checks=$((checks + 1))
rows=$(($(wc -l <job9csv.ops.csv) - 1))
[ "$rows" = 288 ] || fail "job9 csv: $rows op rows, want 288"
checks=$((checks + 1))
ranks=$(sed 1d job9csv.segments.csv | cut -d, -f1 | sort -un | tr '\n' ' ')
[ "$ranks" = "0 1 2 3 4 5 6 7 8 " ] || fail "job9 csv: segment ranks '$ranks'"

# --rank R and --device [R:]N (as analyze takes them): one rank's trace,
# byte for byte that rank exported alone; one GPU of it likewise when the
# rank has no other.
"$gs" export -o rank8_alone.json job9/rank8.json 2>/dev/null
expect rank8 0 export --rank 8 -o rank8.json "$@"
checks=$((checks + 1))
cmp -s rank8.json rank8_alone.json || fail "export --rank 8 differs from rank 8 exported alone"
expect dev8 0 export --device 8:0 -o dev8.json "$@"
checks=$((checks + 1))
cmp -s dev8.json rank8_alone.json || fail "export --device 8:0 differs from rank 8 exported alone"
# R and N are whole integers, however many leading zeros (a rank cut to its
# first 31 characters was rank 0), and out of range a usage error.
z40=0000000000000000000000000000000000000000
expect dev8_zeros 0 export --device ${z40}8:${z40}0 -o dev8_zeros.json "$@"
checks=$((checks + 1))
cmp -s dev8_zeros.json rank8_alone.json || fail "export --device ${z40}8:0 is not rank 8"
expect dev_rank_huge 2 export --device 4294967295:0 "$@"
has dev_rank_huge.err "gpuscope: error: export: --device wants N or R:N (rank R, device N), not '4294967295:0'"
expect dev_rank_wraps 2 export --device 18446744073709551624:0 "$@"
expect dev_rank_top 1 export --device 4294967294:0 "$@"
expect an_dev8 0 analyze --format json --device 8:0 "$@"
expect an_dev8_zeros 0 analyze --format json --device ${z40}8:0 "$@"
checks=$((checks + 1))
cmp -s an_dev8.out an_dev8_zeros.out || fail "analyze --device ${z40}8:0 is not rank 8"
expect an_dev_rank_huge 2 analyze --device 4294967295:0 "$@"
expect rank8_csv 0 export --format csv --rank 8 -o rank8csv "$@"
has rank8csv.ops.csv "index,kind,device,pid,context,stream,"
expect dev_rank_missing 1 export --rank 9 "$@"
has dev_rank_missing.err "gpuscope: error: rank 9 is not in the job (ranks: 0, 1, 2, 3, 4, 5, 6, 7, 8)"
expect dev_two_ranks 1 export --device 0 "$@"
has dev_two_ranks.err "gpuscope: error: device 0 is on 2 ranks (0, 8): say which with --device R:0 or --rank R"
expect dev_none 1 export --device 9 "$@"
has dev_none.err "gpuscope: error: device 9 has no GPU ops on any rank of the job"
expect dev_not_rank 1 export --device 3:5 "$@"
has dev_not_rank.err "gpuscope: error: rank 3 has no GPU ops on device 5 (its devices with ops: 3)"
expect dev_one 1 export --device 1 job9/rank8.json
has dev_one.err "gpuscope: error: device 1 has no GPU ops (devices with ops: 0)"
expect dev_bad 2 export --device x "$@"
expect dev_bad_rank 2 export --device a:0 "$@"
expect dev_disagree 2 export --rank 1 --device 2:0 "$@"
expect rank_bad 2 export --rank -1 "$@"
# The Nsight export's rank 1 (pid 200) has GPU 1 only: --device 1 is that
# GPU of rank 1 alone, nothing of rank 0 or of its device 0.
expect nsys_dev1 0 export --device 1 -o nsys_dev1.json 2proc.sqlite
expect nsys_rank1 0 export --rank 1 -o nsys_rank1.json 2proc.sqlite
has nsys_dev1.json '"name":"GPU 1: NVIDIA H100 80GB HBM3"'
has nsys_dev1.json '"name":"proc-b"'
checks=$((checks + 1))
grep -q -e '"id":0,' -e '"name":"GPU 0' -e '"proc-a"' nsys_dev1.json &&
	fail "nsys_dev1: device 0 or rank 0 in the export"
checked nsys_dev1 nsys_dev1.json "1 GPU processes, 0 ranks, 0 flows across ranks"
checks=$((checks + 1))
grep -q '"proc-a"' nsys_rank1.json && fail "nsys_rank1: rank 0's process in the export"
# One GPU of a process with two: only its ops (CSV rows: as many as its ops
# over the whole trace, --step none).
"$benchgen" --ops 600 --devices 2 --json two.json >two.gen 2>&1 || fail "gs_bench_gen --ops"
expect two_dev1 0 export --device 1 --with-ideal -o two_dev1.json two.json
checks=$((checks + 1))
grep -q '"name":"GPU 0' two_dev1.json && fail "two_dev1: a process for GPU 0"
has two_dev1.json '"name":"GPU 1: '
expect two_dev1_csv 0 export --format csv --device 1 -o two_dev1 two.json
ops1=$("$gs" analyze --format json --step none --device 1 two.json 2>/dev/null |
	sed -n 's/^      "ops": \([0-9]*\),.*/\1/p' | head -n 1)
rows=$(($(wc -l <two_dev1.ops.csv) - 1))
checks=$((checks + 1))
[ -n "$ops1" ] && [ "$rows" = "$ops1" ] || fail "two_dev1 csv: $rows op rows, want ${ops1:-?}"
checks=$((checks + 1))
sed 1d two_dev1.segments.csv | cut -d, -f1 | sort -u | grep -qvx 1 &&
	fail "two_dev1 csv: segments of another device"

# Ranks on clocks hours apart: exported with their own times, and the
# job's warning.
rank1=$tests/cli/analyze/rank1.json
sed 's/"ts": 17000000/"ts": 17000100/' "$rank1" >late.json
expect clocks 0 export -o clocks.json "$tests/cli/analyze/pipelined.json" late.json
has clocks.err "gpuscope: warning: "
has clocks.err "cannot be one run"
has clocks.json '"ts":1700010000000003,'
checked clocks clocks.json "2 GPU processes, 2 ranks, 0 flows across ranks" \
	"$tests/cli/analyze/pipelined.json" late.json
# A failing input is named; nothing is written.
expect job_missing 1 export -o job_missing.json "$@" nothing-here.json
has job_missing.err "nothing-here.json"
checks=$((checks + 1))
[ -e job_missing.json ] && fail "job_missing: an output file was left behind"

# ---- diff ----------------------------------------------------------------

serial=$tests/cli/analyze/serial.json
pipelined=$tests/cli/analyze/pipelined.json
expect diff 0 diff "$serial" "$pipelined"
sed -e "s|$tests|TESTS|g" diff.out >diff.txt
exp=$src/expected/diff_serial_pipelined.txt
if [ "${GS_UPDATE_GOLDEN:-0}" = 1 ]; then
	cp diff.txt "$exp"
elif ! diff -u "$exp" diff.txt >&2; then
	fail "diff: output differs from $exp"
fi
checks=$((checks + 1))
awk 'length > 100 { bad = 1 } END { exit bad }' diff.out || fail "diff: a line over 100 columns"
expect diff_json 0 diff --format json "$serial" "$pipelined"
has diff_json.out '"schema": "gpuscope.diff/1"'
has diff_json.out '"status": "vanished"'
expect diff_o 0 diff -o diff_o.txt "$serial" "$pipelined"
checks=$((checks + 1))
cmp -s diff.out diff_o.txt || fail "diff -o differs from stdout"
expect diff_top 0 diff --top 1 "$serial" "$pipelined"

# golden NAME: NAME.out (paths as TESTS) against expected/NAME.txt.
golden() {
	sed -e "s|$tests|TESTS|g" -e "s|$work/||g" "$1.out" >"$1.txt"
	checks=$((checks + 1))
	if [ "${GS_UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$1.txt" "$src/expected/$1.txt"
	elif ! diff -u "$src/expected/$1.txt" "$1.txt" >&2; then
		fail "$1: output differs from expected/$1.txt"
	fi
	awk 'length > 100 { bad = 1 } END { exit bad }' "$1.out" || fail "$1: a line over 100 columns"
}

# loop N GEMM_US MARKS: a Kineto trace (µs) of N iterations, step k one
# gemm at 5000 k + 10 on stream 7, inside a ProfilerStep#k annotation when
# MARKS is 1.
loop() {
	awk -v n="$1" -v us="$2" -v marks="$3" 'BEGIN {
		q = "\""
		printf "{%sdeviceProperties%s: [{%sid%s: 0, %sname%s: %sTest GPU%s}],\n", q, q, q, q, q, q, q, q
		printf "%straceEvents%s: [\n", q, q
		for (k = 0; k < n; k++) {
			t = 5000 * k
			if (marks)
				printf "{%sph%s: %sX%s, %scat%s: %suser_annotation%s, %sname%s: %sProfilerStep#%d%s, %spid%s: 100, %stid%s: 100, %sts%s: %d, %sdur%s: 4900},\n", q, q, q, q, q, q, q, q, q, q, q, k + 1, q, q, q, q, q, q, q, t, q, q
			printf "{%sph%s: %sX%s, %scat%s: %scuda_runtime%s, %sname%s: %scudaLaunchKernel%s, %spid%s: 100, %stid%s: 100, %sts%s: %d, %sdur%s: 5, %sargs%s: {%scorrelation%s: %d}},\n", q, q, q, q, q, q, q, q, q, q, q, q, q, q, q, q, q, q, t + 1, q, q, q, q, q, q, k + 1
			printf "{%sph%s: %sX%s, %scat%s: %skernel%s, %sname%s: %sgemm%s, %spid%s: 0, %stid%s: 7, %sts%s: %d, %sdur%s: %d, %sargs%s: {%sdevice%s: 0, %sstream%s: 7, %scorrelation%s: %d}}%s\n", q, q, q, q, q, q, q, q, q, q, q, q, q, q, q, q, q, q, t + 10, q, q, us, q, q, q, q, q, q, q, q, k + 1, (k + 1 < n ? "," : "")
		}
		print "]}"
	}'
}

# 34 iterations of a 3.999 ms gemm against 30 of a 4.012 ms one: 15.606
# ms less in total, 13 us more per iteration and per call.
loop 34 3999 1 >steps34.json
loop 30 4012 1 >steps30.json
expect diff_steps 0 diff steps34.json steps30.json
golden diff_steps
has diff_steps.out "compared per iteration: 34 iterations in base, 30 in new (ProfilerStep#N ranges)"
expect diff_steps_json 0 diff --format json steps34.json steps30.json
has diff_steps_json.out '"basis": "per_iteration", "iterations": {"base": 34, "new": 30, "from": "profiler_steps"}'
has diff_steps_json.out '"base_ns": 135966000, "new_ns": 120360000, "delta_ns": -15606000, "base_mean_ns": 3999000, "new_mean_ns": 4012000, "delta_mean_ns": 13000'
# No marks, the same gemms, 22 against 20 (10% more ops): NEW scaled.
loop 20 100 0 >ops20.json
loop 22 100 0 >ops22.json
expect diff_ops 0 diff ops20.json ops22.json
has diff_ops.out "compared per op: 20 ops in base, 22 in new (+10.0%), no iterations marked; new scaled to base"
has diff_ops.out "  kernel                            2.000 ms            2.000 ms               ="
# --pair: base GPU 0 against new GPU 1 (by id they would not meet).
expect diff_pair 0 diff --pair 0:1 "$serial" "$tests/cli/analyze/rank1.json"
golden diff_pair
expect diff_pair_rank 0 diff --pair 0/0:1 "$serial" "$tests/cli/analyze/rank1.json"
checks=$((checks + 1))
cmp -s diff_pair.out diff_pair_rank.out || fail "diff --pair 0/0:1 differs from --pair 0:1"
expect diff_pair_none 1 diff --pair 5:1 "$serial" "$tests/cli/analyze/rank1.json"
has diff_pair_none.err "no GPU 5 in base"
expect diff_pair_twice 1 diff --pair 0:1 --pair 0:1 "$serial" "$tests/cli/analyze/rank1.json"
has diff_pair_twice.err "base GPU 0 is in two pairs"
expect diff_pair_bad 2 diff --pair 1 "$serial" "$serial"
expect diff_pair_bad2 2 diff --pair 0:1:2 "$serial" "$serial"
expect diff_pair_bad3 2 diff --pair a/0:1 "$serial" "$serial"
# Waits in a cycle: the efficiency is named, not compared.
expect diff_cycle 0 diff "$src/data/cycle.json" "$serial"
golden diff_cycle
has diff_cycle.out "n/a (cycles broken)"

# ---- exit statuses ---------------------------------------------------------

# A trace that loads without warnings: failures print exactly one line.
clean=$serial

expect help 0 export --help
has help.out "usage: gpuscope export"
expect help_diff 0 diff --help
has help_diff.out "usage: gpuscope diff"
expect no_trace 2 export
expect bad_format 2 export --format xml "$clean"
expect csv_no_o 2 export --format csv "$clean"
expect csv_stdout 2 export --format csv -o - "$clean"
expect bad_option 2 export --bogus "$clean"
expect empty_o 2 export -o "" "$clean"
expect diff_one 2 diff "$clean"
expect diff_none 2 diff
expect diff_three 2 diff "$clean" "$clean" "$clean"
expect diff_top0 2 diff --top 0 "$clean" "$clean"
expect diff_fmt 2 diff --format html "$clean" "$clean"
expect missing 1 export nothing-here.json
has missing.err "nothing-here.json"
printf 'this is not a trace\n' >junk.txt
expect junk 1 export -o junk_out.json junk.txt
checks=$((checks + 1))
[ -e junk_out.json ] && fail "junk: an output file was left behind"
expect no_dir 1 export -o no/such/dir/out.json "$clean"
expect csv_no_dir 1 export --format csv -o no/such/dir/run "$clean"
expect diff_missing 1 diff "$clean" nothing-here.json
expect diff_junk 1 diff junk.txt "$clean"
expect diff_no_dir 1 diff -o no/such/dir/d.txt "$clean" "$clean"
if [ -w /dev/full ]; then
	# Written in place (a device is never replaced), and the error shows.
	expect full 1 export -o /dev/full "$clean"
	checks=$((checks + 1))
	[ -c /dev/full ] || fail "/dev/full is no longer a device"
	"$gs" export "$clean" >/dev/full 2>full_stdout.err
	st=$?
	checks=$((checks + 1))
	[ $st = 1 ] || fail "export to a full stdout: exit $st, want 1"
fi
# No temporary file is left behind, whatever happened.
checks=$((checks + 1))
leftover=$(find . -name '.*.tmp-*' | head -n 3)
[ -z "$leftover" ] || fail "temporary files left: $leftover"

echo "$checks checks, $failures failures"
[ "$failures" = 0 ]
