#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line tests of `gpuscope export --format perfetto` (ctest label "cli").
#
#   perfetto.sh GPUSCOPE PFTRACE_CHECK TESTSDIR WORKDIR GEN_NSYS_2PROC GS_BENCH_GEN SAMPLES
#
# Every sample and hand-written trace, a generated trace and generated jobs
# (ranks of several hosts, a two-process Nsight export), with and without
# the ideal schedule, --device, --rank and --max-flows, plain and gzip: the
# Perfetto file is a valid stream that says what the Chrome export of the
# same traces with the same options says (PFTRACE_CHECK --chrome: slices,
# args, flows, counters, processes and tracks) and, for one rank, holds the
# source's ops. The decoded text of one sample against its golden file and
# the file itself against its golden bytes; a trace with times before 0;
# stdout; bad inputs fail exactly as the Chrome export's do (status and
# message), leaving nothing behind.
# GS_UPDATE_GOLDEN=1 rewrites the golden files from the current outputs.
set -u

gs=${1:?usage: perfetto.sh GPUSCOPE PFTRACE_CHECK TESTSDIR WORKDIR GEN_NSYS_2PROC GS_BENCH_GEN SAMPLES}
check=${2:?pftrace_check}
tests=${3:?tests dir}
work=${4:?work dir}
gen2proc=${5:?gen_nsys_2proc}
benchgen=${6:?gs_bench_gen}
samples=${7:?samples dir}

abs() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
gs=$(abs "$gs")
check=$(abs "$check")
tests=$(abs "$tests")
gen2proc=$(abs "$gen2proc")
benchgen=$(abs "$benchgen")
samples=$(abs "$samples")
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

# same NAME OPTIONS -- TRACE...: the Perfetto and the Chrome export with
# OPTIONS (NAME.pftrace, NAME.json) agree, the Perfetto one is valid.
same() {
	name=$1
	shift
	opts=
	while [ "$1" != -- ]; do
		opts="$opts $1"
		shift
	done
	shift
	checks=$((checks + 1))
	# shellcheck disable=SC2086
	if ! "$gs" export -q $opts -o "$name.json" "$@" 2>"$name.cerr" ||
		! "$gs" export -q --format perfetto $opts -o "$name.pftrace" "$@" 2>"$name.perr"; then
		fail "$name: export failed: $(tail -n 1 "$name.cerr" "$name.perr")"
		return
	fi
	if ! "$check" --chrome "$name.json" "$name.pftrace" >"$name.check" 2>&1; then
		fail "$name: pftrace_check"
		sed 's/^/    /' "$name.check" >&2
	fi
}

# model NAME TRACE: NAME.pftrace (of TRACE alone, one rank, every device)
# holds TRACE's ops.
model() {
	checks=$((checks + 1))
	if ! "$check" "$1.pftrace" "$2" >"$1.model" 2>&1; then
		fail "$1: the ops differ from the source's"
		sed 's/^/    /' "$1.model" >&2
	fi
}

for f in "$samples"/synthetic/*.gscope "$samples"/*.json "$tests"/data/kineto/*.json \
	"$tests"/cli/analyze/*.json; do
	[ -f "$f" ] || continue
	n=$(basename "$f")
	same "x_$n" -- "$f"
	model "x_$n" "$f"
	same "x_$n.ideal" --with-ideal -- "$f"
done

# A generated training trace: plain and gzip, the ideal schedule, few flows.
"$benchgen" --ops 3000 --devices 2 --json gen.json >gen.out 2>&1 || fail "gs_bench_gen --ops"
same x_gen --with-ideal -- gen.json
model x_gen gen.json
same x_gen_flows --max-flows 50 -- gen.json
same x_gen_dev1 --device 1 --with-ideal -- gen.json
checks=$((checks + 1))
"$gs" export -q --format perfetto --with-ideal -o gen.pftrace.gz gen.json &&
	gzip -dc gen.pftrace.gz | cmp -s - x_gen.pftrace ||
	fail "gen: the .gz file is not the plain one gzipped"
"$gs" export --format perfetto --max-flows 50 -o gen_flows2.pftrace gen.json 2>gen_flows2.err
checks=$((checks + 1))
grep -q "dependency flows written" gen_flows2.err || fail "gen_flows: no warning for the flows left out"
# stdout when it is not a terminal
checks=$((checks + 1))
"$gs" export -q --format perfetto --with-ideal gen.json >stdout.pftrace &&
	cmp -s stdout.pftrace x_gen.pftrace || fail "stdout: not the file -o writes"

# Jobs: ranks of several hosts sharing pids and device ids, with --rank and
# --device; a two-process Nsight export.
"$benchgen" --job 3 --out-dir job3 --ops-per-rank 1500 --threads 1 >job3.out 2>&1 ||
	fail "gs_bench_gen --job"
same job3 --with-ideal -- job3/rank0.json job3/rank1.json job3/rank2.json
same job3_flows --max-flows 100 -- job3/rank0.json job3/rank1.json job3/rank2.json
same job3_rank --rank 1 -- job3/rank0.json job3/rank1.json job3/rank2.json
same job3_dev --device 2:2 --with-ideal -- job3/rank0.json job3/rank1.json job3/rank2.json
"$gen2proc" 2proc.sqlite >/dev/null 2>&1 || fail "gen_nsys_2proc"
same nsys2 --with-ideal -- 2proc.sqlite

# Golden: the decoded text and the bytes of one sample's export.
g=$samples/synthetic/serial_stream.gscope
"$gs" export -q --format perfetto --with-ideal -o golden.pftrace "$g" || fail "golden export"
"$check" --dump golden.pftrace >golden.txt 2>&1 || fail "golden: pftrace_check"
checks=$((checks + 2))
if [ "${GS_UPDATE_GOLDEN:-0}" = 1 ]; then
	cp golden.txt "$src/expected/serial_stream.pftrace.txt"
	cp golden.pftrace "$src/expected/serial_stream.pftrace"
else
	diff -u "$src/expected/serial_stream.pftrace.txt" golden.txt >&2 ||
		fail "golden: decoded text differs from expected/serial_stream.pftrace.txt"
	cmp -s "$src/expected/serial_stream.pftrace" golden.pftrace ||
		fail "golden: bytes differ from expected/serial_stream.pftrace"
fi

# Times before 0: written later by one offset, with a warning; valid.
cat >negative.json <<'EOF'
{"traceEvents": [
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": -20, "dur": 5, "args": {"correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": -10, "dur": 4, "args": {"device": 0, "stream": 7, "correlation": 1}}
]}
EOF
checks=$((checks + 2))
if "$gs" export --format perfetto -o negative.pftrace negative.json 2>negative.err; then
	grep -q "times before 0; every time is written 20000 ns later" negative.err ||
		fail "negative: no warning: $(cat negative.err)"
	"$check" --dump negative.pftrace >negative.txt 2>&1 || fail "negative: invalid"
	grep -q '^slice GPU 0/stream 7|10000|4000|kernel|k|' negative.txt ||
		fail "negative: the kernel is not at +10 us"
else
	fail "negative: export failed"
fi

# ---- bad inputs: as the Chrome export -----------------------------------------

# bad NAME ARGS...: both formats give the same exit status (not 0) and the
# same stderr (OUT in the args stands for out.json / out.pftrace); no file
# is left behind.
bad() {
	name=$1
	shift
	checks=$((checks + 1))
	a=$(echo "$@" | sed 's/OUT/out.json/g')
	b=$(echo "$@" | sed 's/OUT/out.pftrace/g')
	# shellcheck disable=SC2086
	"$gs" export $a >"$name.c.out" 2>"$name.c.err"
	rc_c=$?
	# shellcheck disable=SC2086
	"$gs" export --format perfetto $b >"$name.p.out" 2>"$name.p.err"
	rc_p=$?
	sed 's/out\.json/OUT/g' "$name.c.err" >"$name.c.txt"
	sed 's/out\.pftrace/OUT/g' "$name.p.err" >"$name.p.txt"
	[ "$rc_c" != 0 ] || fail "$name: the Chrome export succeeded"
	[ "$rc_c" = "$rc_p" ] || fail "$name: exit $rc_p, Chrome $rc_c"
	cmp -s "$name.c.txt" "$name.p.txt" ||
		fail "$name: stderr differs: $(head -n 1 "$name.p.err") / $(head -n 1 "$name.c.err")"
	[ -s "$name.p.out" ] && fail "$name: printed on stdout when failing"
	[ -e out.pftrace ] && [ "$name" != exists ] && fail "$name: out.pftrace left behind"
}

clean=$tests/cli/analyze/serial.json
printf 'this is not a trace\n' >junk.txt
bad missing -o OUT nothing-here.json
bad junk -o OUT junk.txt
bad no_dir -o no/such/dir/OUT "$clean"
bad rank_missing --rank 9 -o OUT "$clean"
bad device_missing --device 9 -o OUT "$clean"
bad max_flows_bad --max-flows x -o OUT "$clean"
cp "$clean" input.json
bad input_as_output -o input.json input.json
: >out.json
: >out.pftrace
bad exists -o OUT "$clean"
checks=$((checks + 1))
[ -s out.pftrace ] && fail "exists: out.pftrace replaced without --force"
rm -f out.json out.pftrace
if [ -w /dev/full ]; then
	bad full -o /dev/full "$clean"
	checks=$((checks + 1))
	"$gs" export --format perfetto "$clean" >/dev/full 2>full.err
	st=$?
	[ $st = 1 ] && grep -q "No space left on device" full.err ||
		fail "stdout full: exit $st: $(cat full.err)"
fi
checks=$((checks + 1))
leftover=$(find . -name '.*.tmp-*' | head -n 3)
[ -z "$leftover" ] || fail "temporary files left: $leftover"
checks=$((checks + 1))
"$gs" export --help | grep -q "perfetto: Perfetto's own protobuf trace format" ||
	fail "--help does not describe perfetto"

echo "$checks checks, $failures failures"
[ "$failures" = 0 ]
