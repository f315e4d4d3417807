#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line tests of `gpuscope analyze` (ctest label "cli").
#
#   run.sh GPUSCOPE SRCDIR WORKDIR [SHARED_DATA]
#
# Golden outputs (stdout, stderr, exit status) of the hand-written Kineto
# traces in SRCDIR against SRCDIR/expected/NAME.txt, the worked-example numbers
# they must show, exit statuses and error lines, -o, colour, and
# with SHARED_DATA the real A100 trace. GS_UPDATE_GOLDEN=1 rewrites the
# expected files from the current outputs (review the diff before keeping it).
#
# The traces (times in µs from the first op):
#   serial.json     Example 2 as recorded: two batches of HtoD 12 / kernel 40 /
#                   DtoH 10 on one stream, pageable copies that block the host
#   pipelined.json  the same batches over three streams with events, pinned
#   graphs.json     5 iterations of 3 small kernels with slow launches and a
#                   cudaStreamSynchronize each: a CUDA Graph candidate
#   q3.json         Example 5: kernel 18, copy 2, sync 1, idle 1
#   rank1.json      a second process on device 1 (rank 1 of a job with another input)
set -u

gs=${1:?usage: run.sh GPUSCOPE SRCDIR WORKDIR [SHARED_DATA]}
src=${2:?source dir of tests/cli/analyze}
work=${3:?work dir}
shared=${4:-}

case $gs in /*) ;; *) gs=$(pwd)/$gs ;; esac
case $src in /*) ;; *) src=$(pwd)/$src ;; esac

rm -rf "$work" && mkdir -p "$work" || exit 1
cp "$src"/*.json "$work"/ || exit 1
cd "$work" || exit 1
# Colour and locale must not depend on the caller's environment.
unset NO_COLOR
export TERM=dumb LC_ALL=C

failures=0
checks=0

fail() {
	printf 'FAIL: %s\n' "$*" >&2
	failures=$((failures + 1))
}

# run NAME ARGS...: gpuscope analyze ARGS > NAME.out 2> NAME.err; status in $rc.
run() {
	name=$1
	shift
	checks=$((checks + 1))
	"$gs" analyze "$@" >"$name.out" 2>"$name.err"
	rc=$?
}

normalise() {
	sed -e "s|$work|WORKDIR|g" "$1"
}

# golden NAME ARGS...: stdout, stderr and status against expected/NAME.txt.
golden() {
	name=$1
	shift
	run "$name" "$@"
	{
		normalise "$name.out"
		echo "--- stderr"
		normalise "$name.err"
		echo "--- exit $rc"
	} >"$name.txt"
	exp=$src/expected/$name.txt
	if [ "${GS_UPDATE_GOLDEN:-0}" = 1 ]; then
		mkdir -p "$src/expected" && cp "$name.txt" "$exp"
		return
	fi
	if [ ! -f "$exp" ]; then
		fail "$name: no expected file $exp (GS_UPDATE_GOLDEN=1 makes one)"
		return
	fi
	diff -u "$exp" "$name.txt" >&2 || fail "$name: output differs from $exp"
}

# expect NAME STATUS ARGS...: exit status; failures print nothing on stdout
# and start stderr with "gpuscope: error: " (exactly one line for status 1).
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

# has NAME out|err TEXT: the output holds TEXT (fixed string).
has() {
	checks=$((checks + 1))
	grep -qF -- "$3" "$1.$2" || fail "$1: std$2 lacks '$3'"
}

hasnt() {
	checks=$((checks + 1))
	grep -qF -- "$3" "$1.$2" && fail "$1: std$2 has '$3'"
	return 0
}

# ---- golden outputs -------------------------------------------------------

golden help --help
golden serial serial.json
golden pipelined pipelined.json
golden pipelined_json --format json pipelined.json
golden graphs graphs.json
golden q3 q3.json
golden merged --top 3 pipelined.json rank1.json
golden window --window +10us:+60us pipelined.json
golden device --device 1 --format json pipelined.json rank1.json

# ---- the numbers of docs/design.md's worked examples -----------------------

# Example 5: kernel 18, copy 2, sync 1, idle 1: total 22, dominant kernel.
has q3 out "kernel       18.000 us    81.8%"
has q3 out "copy          2.000 us     9.1%"
has q3 out "sync          1.000 us     4.5%"
has q3 out "idle          1.000 us     4.5%"
has q3 out "window       22.000 us   100.0%"
has q3 out "dominant: kernel"
# Example 2: serial 124, pipelined 102; pageable copies: pinned memory first.
has serial out "dependency bound   124.000 us"
has serial out "pipelined batches  102.000 us"
has serial out "needs pinned_memory"
# One stream, no data dependencies recorded: each copy is a possible missed
# overlap, independence unknown, the hideable time an upper bound.
run serial_json --format json "$src/serial.json"
has serial_json out '"missing_conditions": ["pinned_memory", "concurrent_resources"], "conditions": {"pinned_memory": "missing", "independent": "unknown", "concurrent_resources": "missing"}, "possible": true'
has serial_json out '"hideable_ns": 12000, "hideable_is_upper_bound": true'
has serial_json out '"stream_order": {"ops": 2, "delay_sum_ns": 15000}'
run serial_html --format html "$src/serial.json"
has serial_html out "Missed overlap (2 exposed copies a kernel could have hidden, 2 possible: 22.000 µs, up to 22.000 µs hideable)"
has serial_html out '<td class="n">up to 12.000 µs</td>'
# The same batches pipelined by hand: 102 µs, nothing left to gain.
has pipelined out "actual             102.000 us"
has pipelined out "ideal              102.000 us"
has pipelined out "efficiency         1.00"
# JSON: exact integers, the fixed field names.
has pipelined_json out '"schema": "gpuscope.report/1"'
has pipelined_json out '"window_ns": [1700000000000002000, 1700000000000104000]'
has pipelined_json out '"kernel_ns": 80000'
has pipelined_json out '"ideal_ns": 102000'
has pipelined_json out '"efficiency": 1.0000'
has pipelined_json out '"kind": "event"'
# The graph candidate and the sync each iteration.
has graphs out "CUDA Graph candidates"
has graphs out "inside cudaStreamSynchronize"
# The CUDA Graph replay what-if: the candidate's 4 occurrences hold gaps of
# 3 and 19 us, each shrunk to the node cost: 1 us removes 4 x (2 + 18) = 80
# us of the 181, 5 us removes 4 x (0 + 14) = 56 (the ideal is 75 us).
has graphs out "CUDA Graph replay  101.000 us  (1 candidate, 1.000 us per node;"
run graphs_node --graph-node-ns 5000 --format json "$src/graphs.json"
has graphs_node out '"name": "cuda_graph_replay", "makespan_ns": 125000, "saving_ns": 56000, "saving_vs_ideal_ns": -50000'
has graphs_node out '"graph_node_ns": 5000'
has graphs_node out '"replay": {"makespan_ns": 125000, "saving_ns": 56000, "saving_vs_ideal_ns": -50000}'
expect graphs_node_bad 2 --graph-node-ns -1 "$src/graphs.json"
has graphs_node_bad err "--graph-node-ns wants ns from 0 to 1000000000, not '-1'"
# Two inputs, two devices, one timeline each.
has merged out "2 inputs (kineto)"
has merged out "2 ranks, 2 GPUs with ops"
has merged out "rank 0 · pid 4242 · GPU 0 NVIDIA A100-SXM4-80GB"
has merged out "rank 1 · pid 5252 · GPU 1 NVIDIA A100-SXM4-80GB"
has device out '"device": 1,'
hasnt device out '"device": 0,'
# The recorded run's kernels overlapped (nothing tells their share of the
# device: as recorded, up to two at once): the what-if runs on the same
# device as the ideal, so it is never slower than the ideal for running
# kernels one at a time, in text and HTML.
run overlap "$src/../../data/analyze/overlap.json"
has overlap out "pipelined batches  70.000 us  (3 batches; 0 ns beyond the ideal; its 30.000 us saving is"
hasnt overlap out "slower than the actual run"
hasnt overlap out "saves -"
run overlap_html --format html "$src/../../data/analyze/overlap.json"
has overlap_html out "3 batches, 0 ns beyond the ideal"
hasnt overlap_html out "slower than the actual run"
hasnt overlap_html out "saves -"

# ---- exit statuses and error lines ---------------------------------------------

expect missing 1 no-such-file.json
has missing err "no-such-file.json"
expect missing2 1 pipelined.json no-such-file.json
has missing2 err "no-such-file.json"
printf 'not a trace\n' >junk.txt
expect junk 1 junk.txt
has junk err "junk.txt"
expect no_trace 2
has no_trace err "no TRACE given"
has no_trace err "usage: gpuscope analyze"
expect bad_format 2 --format xml pipelined.json
expect html 0 --format html -o report.html pipelined.json
checks=$((checks + 1))
grep -q '<svg class="lanes"' report.html || fail "html: no timeline in report.html"
expect bad_device 2 --device x pipelined.json
expect bad_device2 2 --device -1 pipelined.json
expect absent_device 1 --device 3 pipelined.json
has absent_device err "device 3 has no GPU ops in the trace (devices with ops: 0)"
for w in 5 5: :5 10:5 5:5 +1ms:2ms 1ms:+2ms +1xs:+2ms 1.5.2:3 0.0000000001s:1s abc; do
	expect "bad_window_$w" 2 --window "$w" pipelined.json
	has "bad_window_$w" err "--window"
done
expect good_window 0 --window 1700000000000002000:1700000000000050us pipelined.json
has good_window out "48.000 us (--window)"
# A window that overlaps no op is an error naming the trace's span, in
# every format, for one trace and for a job; one that overlaps a part is not.
expect empty_window 1 --window +5s:+6s pipelined.json
has empty_window err "pipelined.json: --window +5s:+6s: the trace spans +0.000 us .. +102.000 us"
expect empty_window_json 1 --format json --window +103us:+1s pipelined.json
has empty_window_json err "--window +103us:+1s: the trace spans +0.000 us .. +102.000 us"
expect empty_window_abs 1 --window 5:6 pipelined.json
has empty_window_abs err "--window 5:6: the trace spans 1700000000000002000 .. 1700000000000104000 ns (+0.000 us .. +102.000 us)"
expect empty_window_job 1 --window +5s:+6s pipelined.json rank1.json
has empty_window_job err "--window +5s:+6s: the traces span +0.000 us .. +102.000 us"
expect empty_window_rank 1 --rank 1 --window +5s:+6s pipelined.json rank1.json
has empty_window_rank err "the trace spans +1.000 us .. +68.000 us"
expect part_window 0 --window +100us:+5s pipelined.json
has part_window out "window   +0.000 s .. +5.000 s into the trace: 4.999 s (--window)"
expect bad_top 2 --top 0 pipelined.json
for v in 0 -1 +1 abc 3x '' 10000000000; do
	expect "bad_rows_$v" 2 --rows "$v" pipelined.json
	has "bad_rows_$v" err "--rows wants a count from 1 or 'all'"
done
# --rows 1 cuts the critical path and says so; all and the default keep
# every entry of a small trace, with no count fields.
expect rows_one 0 --format json --rows 1 pipelined.json
has rows_one out '"critical_path_count": '
expect rows_one_text 0 --rows 1 pipelined.json
has rows_one_text out " shown (--top N; the report keeps 1, --rows N or --rows all for more)"
expect rows_all 0 --format json --rows all pipelined.json
run rows_default --format json pipelined.json
checks=$((checks + 1))
cmp -s rows_all.out rows_default.out || fail "rows_all: differs from the default"
grep -qE '"(critical_path|missed_overlap|waits)_count"' rows_all.out && fail "rows_all: a count field in an uncut report"
expect bad_color 2 --color=sometimes pipelined.json
expect unknown_opt 2 --bogus pipelined.json

# -o writes the file, not stdout; the same bytes as stdout.
expect out_file 0 -o report.txt pipelined.json
checks=$((checks + 1))
[ -s out_file.out ] && fail "out_file: printed on stdout"
run plain pipelined.json
checks=$((checks + 1))
cmp -s report.txt plain.out || fail "out_file: report.txt differs from stdout"
expect out_json 0 --format json --output report.json pipelined.json
checks=$((checks + 1))
grep -q '"schema": "gpuscope.report/1"' report.json || fail "out_json: not a report"
expect out_dir 1 -o no-such-dir/report.txt pipelined.json
has out_dir err "no-such-dir/report.txt"
expect json_quiet 0 --format json pipelined.json
checks=$((checks + 1))
[ -s json_quiet.err ] && fail "json_quiet: wrote to stderr"

# Colour: only when asked (a pipe is not a terminal), never with JSON.
checks=$((checks + 1))
esc=$(printf '\033')
grep -q "$esc" plain.out && fail "plain: colour on a pipe"
expect color 0 --color=always pipelined.json
checks=$((checks + 1))
grep -q "$esc" color.out || fail "color: no colour with --color=always"
expect color_never 0 --color=never pipelined.json
checks=$((checks + 1))
grep -q "$esc" color_never.out && fail "color_never: colour"
NO_COLOR=1 "$gs" analyze --color=auto pipelined.json >no_color.out 2>&1
checks=$((checks + 1))
grep -q "$esc" no_color.out && fail "no_color: colour"

# A full disk is an error, not a success; -o leaves no partial file.
if [ -w /dev/full ]; then
	checks=$((checks + 1))
	"$gs" analyze pipelined.json >/dev/full 2>full.err
	rc=$?
	[ "$rc" = 1 ] || fail "full: exit $rc, want 1"
	grep -q '^gpuscope: error: .*No space left' full.err ||
		fail "full: no error line: $(cat full.err)"
	checks=$((checks + 1))
	"$gs" analyze --format json pipelined.json >/dev/full 2>full2.err
	rc=$?
	[ "$rc" = 1 ] || fail "full json: exit $rc, want 1"
fi

# ---- the real A100 trace -----------------------------------------------------

a100=$shared/kineto/hta-misc/a100_16rank_rank0_graphs_waits.json.gz
if [ -n "$shared" ] && [ -f "$a100" ]; then
	# The whole trace, with --step none.
	expect a100 0 --step none "$a100"
	has a100 out "Top findings"
	has a100 out "device 0: NVIDIA A100-SXM4-80GB"
	has a100 out "1.231 s (first op start to last op end)"
	expect a100_json 0 --format json --step none "$a100"
	has a100_json out '"total_ns": 1231461000'
	# By default its steps 551..554 (ProfilerStep#550..554: the first is the
	# warm-up), said in the header; the window is from step 551's first GPU
	# op to step 554's last op end.
	expect a100_steps 0 "$a100"
	has a100_steps out "steps 551..554, 4 of 5 (ProfilerStep#N ranges); step 550 left out as warm-up"
	has a100_steps out "(the steps chosen)"
	has a100_steps out "Steps (GPU window of each"
	# --step 552: exactly that step's GPU window, as the steps list gives it.
	expect a100_552 0 --format json --step 552 "$a100"
	checks=$((checks + 1))
	python3 - "$work/a100_552.out" <<'PY' || fail "a100_552: the window is not step 552's GPU window"
import json, sys
j = json.load(open(sys.argv[1]))
d = j["devices"][0]
st = [s for s in d["steps"] if s["step"] == 552][0]
assert st["analysed"] and sum(s["analysed"] for s in d["steps"]) == 1
assert d["window_ns"] == st["gpu_window_ns"], (d["window_ns"], st["gpu_window_ns"])
assert d["breakdown"]["total_ns"] == st["time_ns"]
PY
	expect a100_nostep 1 --quiet --step 3 "$a100"
	has a100_nostep err "--step 3: no such step with GPU work (the trace has steps 550..554)"
	expect a100_both 2 --step 552 --window +1ms:+2ms "$a100"
	has a100_both err "--step and --window both choose the window"
else
	echo "skipped: the A100 trace (../shared/data absent)"
fi

if [ "$failures" -ne 0 ]; then
	echo "$failures of $checks checks failed (work dir: $work)" >&2
	exit 1
fi
echo "$checks checks passed"
exit 0
