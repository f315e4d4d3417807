#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line tests of `gpuscope plan` (ctest "cli_plan", label cli).
#
#   run.sh GPUSCOPE SRCDIR WORKDIR
#
# SRCDIR is tests/cli/plan: data/*.json are plans (the worked examples of docs/design.md),
# expected/NAME.txt what gpuscope prints for them (stdout, stderr, exit
# status). GS_UPDATE_GOLDEN=1 rewrites the expected files (review the diff).
# The worked examples' numbers are also checked one by one below, so a rewrite
# cannot hide a wrong number.
set -u

gs=${1:?usage: run.sh GPUSCOPE SRCDIR WORKDIR}
src=${2:?source dir of tests/cli/plan}
work=${3:?work dir}

case $gs in /*) ;; *) gs=$(pwd)/$gs ;; esac
case $src in /*) ;; *) src=$(pwd)/$src ;; esac

rm -rf "$work" && mkdir -p "$work" || exit 1
cp "$src"/data/*.json "$work"/ || exit 1
cd "$work" || exit 1

failures=0
checks=0

fail() {
	printf 'FAIL: %s\n' "$*" >&2
	failures=$((failures + 1))
}

# run NAME ARGS...: gpuscope ARGS > NAME.out 2> NAME.err; status in $rc.
run() {
	name=$1
	shift
	checks=$((checks + 1))
	"$gs" "$@" >"$name.out" 2>"$name.err"
	rc=$?
}

# golden NAME ARGS...: stdout, stderr and status against expected/NAME.txt.
golden() {
	name=$1
	shift
	run "$name" "$@"
	{
		cat "$name.out"
		echo "--- stderr"
		cat "$name.err"
		echo "--- exit $rc"
	} >"$name.txt"
	exp=$src/expected/$name.txt
	if [ "${GS_UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$name.txt" "$exp"
		return
	fi
	if [ ! -f "$exp" ]; then
		fail "$name: no expected file $exp (GS_UPDATE_GOLDEN=1 makes one)"
		return
	fi
	diff -u "$exp" "$name.txt" >&2 || fail "$name: output differs from $exp"
}

# has NAME out|err TEXT: the output holds TEXT (a fixed string).
has() {
	checks=$((checks + 1))
	grep -qF -- "$3" "$1.$2" || fail "$1: std$2 lacks '$3'"
}

# json NAME FILE KEY VALUE...: `plan --format json FILE` has "KEY": VALUE
# for each pair (top-level lines).
json() {
	name=$1
	file=$2
	shift 2
	run "$name" plan --format json "$file"
	[ "$rc" = 0 ] || fail "$name: exit $rc: $(cat "$name.err")"
	while [ $# -ge 2 ]; do
		has "$name" out "  \"$1\": $2"
		shift 2
	done
}

# stage NAME STAGE START END: a stage line of NAME.out (json) has them.
stage() {
	has "$1" out "{\"name\": \"$2\", "
	checks=$((checks + 1))
	grep -F "{\"name\": \"$2\", " "$1.out" | grep -qF "\"start_us\": $3, \"end_us\": $4," ||
		fail "$1: stage $2 does not run $3 .. $4"
}

# bad NAME STATUS CONTENT MESSAGE: a plan NAME.json holding CONTENT fails
# with STATUS, nothing on stdout and exactly the line
# "gpuscope: error: NAME.json: MESSAGE" on stderr.
bad() {
	printf '%s' "$3" >"$1.json"
	expect_error "$1" "$2" "$1.json: $4" plan "$1.json"
}

# expect_error NAME STATUS MESSAGE ARGS...
expect_error() {
	name=$1
	want=$2
	msg=$3
	shift 3
	run "$name" "$@"
	[ "$rc" = "$want" ] || fail "$name: exit $rc, want $want"
	[ -s "$name.out" ] && fail "$name: printed on stdout when failing"
	printf 'gpuscope: error: %s\n' "$msg" >"$name.want"
	cmp -s "$name.want" "$name.err" || {
		fail "$name: stderr differs"
		diff -u "$name.want" "$name.err" >&2
	}
}

# usage NAME ARGS...: exit 2 with "gpuscope: error: plan: ..." and the synopsis.
usage() {
	name=$1
	shift
	run "$name" "$@"
	[ "$rc" = 2 ] || fail "$name: exit $rc, want 2"
	[ -s "$name.out" ] && fail "$name: printed on stdout"
	head -n 1 "$name.err" | grep -q '^gpuscope: error: plan: ' ||
		fail "$name: no 'gpuscope: error: plan:' line"
	has "$name" err "usage: gpuscope plan [--format text|json] STAGES.json"
}

# ---- golden outputs ----------------------------------------------------------
golden help_plan plan --help
for f in *.json; do
	n=${f%.json}
	golden "text_$n" plan "$f"
	golden "json_$n" plan --format json "$f"
done

# ---- docs/design.md, worked examples, one by one -----------------------------
# Example 1: Kernel starts 12, D2H 52, Post ends 70; serial = ideal = 70.
json q2 example1.json serial_us 70, ideal_us 70, saved_us 0, overlap_ratio 0,
stage q2 Kernel 12 52
stage q2 D2H 52 62
stage q2 Post 62 70
has q2 out '"critical_path": ["H2D", "Kernel", "D2H", "Post"],'
has q2 out '{"from": "H2D", "to": "Kernel", "kind": "depends_on"}'
has q2 out '{"from": "H2D", "to": "D2H", "kind": "stream_order"}'
has q2 out '{"from": "Kernel", "to": "D2H", "kind": "depends_on"}'
has q2 out '{"from": "D2H", "to": "Post", "kind": "depends_on"}'
# Example 2: serial 124, ideal 102; overhead 3 -> net 19; 25 -> -3.
json q4 example2.json serial_us 124, ideal_us 102, saved_us 22, net_saved_us 19, \
	exposed_overhead_us 3, estimated_elapsed_us 105, overlap_ratio 0.177419,
stage q4 in1 12 24
stage q4 compute1 52 92
stage q4 out1 92 102
json q4_25 example2_overhead25.json serial_us 124, ideal_us 102, net_saved_us -3,
json q4_kinds example2_kinds.json ideal_us 102, net_saved_us 19, \
	missing_conditions '["independent"]'
has q4_kinds out '{"name": "in1", "kind": "h2d", "memory": "pinned", "hidden_us": 12, "exposed_us": 0,'
# Example 3: serial 34, elapsed 24, hidden 10 / dependent: 34, 0 / copy 0: speedup 1.
json q1i example3_independent.json serial_us 34, ideal_us 24, saved_us 10,
json q1d example3_dependent.json serial_us 34, ideal_us 34, saved_us 0,
json q1z example3_copy0.json speedup 1,
# Example 4: hidden 10, net 9 / one condition missing: hidden 0, listed / net -2.
json q2a example4_all.json saved_us 10, net_saved_us 9, missing_conditions '[]'
has q2a out '"hidden_us": 10, "exposed_us": 0, "hideable_us": 10, "missing_conditions": []}'
for c in pageable:pinned_memory dependent:independent no_engine:concurrent_resources; do
	json "q2_${c%%:*}" "example4_${c%%:*}.json" saved_us 0, net_saved_us -1, \
		missing_conditions "[\"${c#*:}\"]"
	has "q2_${c%%:*}" out "\"hidden_us\": 0, \"exposed_us\": 10,"
done
json q2s example4_small.json saved_us 1, net_saved_us -2,
# Example 5: total 22 dominant kernel / sync / copy.
json q3k example5_kernel.json ideal_us 22,
has q3k out '"breakdown": {"kernel_us": 18, "copy_us": 2, "sync_us": 1, "idle_us": 1, "total_us": 22,'
has q3k out '"dominant": "kernel"}'
json q3s example5_sync.json ideal_us 21,
has q3s out '"dominant": "sync"}'
json q3c example5_copy.json ideal_us 22,
has q3c out '"dominant": "copy"}'
# Fractions of a microsecond print exactly.
json frac fractions.json serial_us 12.751, ideal_us 12.251, saved_us 0.5, net_saved_us 0.375,

# The same plan from stdin.
checks=$((checks + 1))
"$gs" plan --format json - <example2.json >stdin.out 2>stdin.err || fail "stdin: exit $?"
grep -qF '"file": "<stdin>"' stdin.out || fail "stdin: no <stdin> label"
grep -qF '"ideal_us": 102,' stdin.out || fail "stdin: wrong ideal"

# ---- Example 6 and other bad input: exit 1, one line ---------------------------
S='"duration_us": 1, "stream": "s"'
bad dup 1 "{\"stages\": [{\"name\": \"a\", $S}, {\"name\": \"a\", $S}]}" \
	"stage 'a' (stages[1]): duplicate name (first at stages[0])"
bad unknown 1 "{\"stages\": [{\"name\": \"a\", $S, \"depends_on\": [\"ghost\"]}]}" \
	"stage 'a' (stages[0]): unknown predecessor 'ghost' in depends_on"
bad cycle 1 "{\"stages\": [{\"name\": \"a\", \"duration_us\": 1, \"stream\": \"s\", \"depends_on\": [\"c\"]},
 {\"name\": \"b\", \"duration_us\": 1, \"stream\": \"t\", \"depends_on\": [\"a\"]},
 {\"name\": \"c\", \"duration_us\": 1, \"stream\": \"u\", \"depends_on\": [\"b\"]}]}" \
	"stage 'a' (stages[0]): the dependencies form a cycle: 'a' -> 'b' -> 'c' -> 'a'"
bad stream_cycle 1 "{\"stages\": [{\"name\": \"a\", $S, \"depends_on\": [\"b\"]}, {\"name\": \"b\", $S}]}" \
	"stage 'a' (stages[0]): the dependencies form a cycle: 'a' -(stream order)-> 'b' -> 'a'"
bad self 1 "{\"stages\": [{\"name\": \"a\", $S, \"depends_on\": [\"a\"]}]}" \
	"stage 'a' (stages[0]): the dependencies form a cycle: 'a' -> 'a'"
bad negative 1 '{"stages": [{"name": "a", "duration_us": -5, "stream": "s"}]}' \
	"stage 'a' (stages[0]): duration_us -5 is negative"
bad infinite 1 '{"stages": [{"name": "a", "duration_us": 1e999, "stream": "s"}]}' \
	"stage 'a' (stages[0]): duration_us is not a finite number"
bad nan 1 '{"stages": [{"name": "a", "duration_us": NaN, "stream": "s"}]}' \
	"not JSON: syntax error at line 1, column 42"
bad infinity 1 '{"stages": [{"name": "a", "duration_us": Infinity, "stream": "s"}]}' \
	"not JSON: syntax error at line 1, column 42"
bad huge 1 '{"stages": [{"name": "a", "duration_us": 1e300, "stream": "s"}]}' \
	"stage 'a' (stages[0]): duration_us 1e+300 is over 7 days (604800000000 us)"
bad sub_ns 1 '{"stages": [{"name": "a", "duration_us": 1.0001, "stream": "s"}]}' \
	"stage 'a' (stages[0]): duration_us 1.0001 is finer than 1 ns (at most 3 decimals)"
bad empty_name 1 "{\"stages\": [{\"name\": \"\", $S}]}" \
	"stages[0]: the name must be a non-empty string"
bad blank_name 1 "{\"stages\": [{\"name\": \"  \", $S}]}" \
	"stages[0]: the name must be a non-empty string"
bad empty_dep 1 "{\"stages\": [{\"name\": \"a\", $S, \"depends_on\": [\"\"]}]}" \
	"stage 'a' (stages[0]): depends_on[0] must be a non-empty stage name"
bad empty_stream 1 '{"stages": [{"name": "a", "duration_us": 1, "stream": ""}]}' \
	"stage 'a' (stages[0]): the stream must be a non-empty string"
bad no_name 1 "{\"stages\": [{$S}]}" 'stages[0]: no "name"'
bad no_duration 1 '{"stages": [{"name": "a", "stream": "s"}]}' \
	"stage 'a' (stages[0]): no \"duration_us\""
bad no_stream 1 '{"stages": [{"name": "a", "duration_us": 1}]}' \
	"stage 'a' (stages[0]): no \"stream\""
bad no_stages 1 '{"exposed_overhead_us": 3}' 'no "stages" array'
bad string_duration 1 '{"stages": [{"name": "a", "duration_us": "12", "stream": "s"}]}' \
	"stage 'a' (stages[0]): duration_us must be a number of microseconds, not a string"
bad number_name 1 "{\"stages\": [{\"name\": 3, $S}]}" \
	'stages[0]: "name" must be a string, not a number'
bad deps_string 1 "{\"stages\": [{\"name\": \"a\", $S, \"depends_on\": \"b\"}]}" \
	"stage 'a' (stages[0]): \"depends_on\" must be an array of stage names, not a string"
bad typo_key 1 "{\"stages\": [{\"name\": \"a\", $S, \"depend_on\": []}]}" \
	"stage 'a' (stages[0]): unknown key 'depend_on' (expected name, duration_us, stream, depends_on, kind, memory, comment)"
bad bad_kind 1 "{\"stages\": [{\"name\": \"a\", $S, \"kind\": \"dma\"}]}" \
	"stage 'a' (stages[0]): unknown kind 'dma' (expected h2d or copy_in, d2h or copy_out, compute or kernel, sync, host, other)"
bad memory_kind 1 "{\"stages\": [{\"name\": \"a\", $S, \"kind\": \"compute\", \"memory\": \"pageable\"}]}" \
	"stage 'a' (stages[0]): memory applies to h2d/d2h copies only (kind is compute)"
bad bad_memory 1 "{\"stages\": [{\"name\": \"a\", $S, \"kind\": \"h2d\", \"memory\": \"huge\"}]}" \
	"stage 'a' (stages[0]): memory must be \"pinned\" or \"pageable\""
bad neg_overhead 1 '{"stages": [], "exposed_overhead_us": -1}' \
	"exposed_overhead_us -1 is negative"
bad engines 1 '{"stages": [], "copy_engines": -1}' \
	"copy_engines -1 must be a whole number from 0 to 64"
bad engines_key 1 '{"stages": [], "copy_engines": {"h2d": 1, "p2p": 1}}' \
	"copy_engines: unknown key 'p2p' (expected h2d, d2h)"
bad top_array 1 '[{"name": "a"}]' \
	'the top level must be an object with a "stages" array, not an array'
bad not_json 1 'stages: [a, b]' "not JSON: syntax error at line 1, column 1"
bad cut 1 '{"stages": [{"name": "a", "duration_us": 1, ' "not JSON: syntax error at line 1, column 44"
bad trailing 1 '{"stages": []} {}' "not JSON: more text after the value at line 1, column 16"
bad empty 1 '' 'empty file (expected a JSON object with "stages")'
bad blank 1 '
  ' 'only white space (expected a JSON object with "stages")'
# A stage name with a newline still gives one line.
bad nl_name 1 "{\"stages\": [{\"name\": \"x\\ny\", $S}, {\"name\": \"x\\ny\", $S}]}" \
	"stage 'x?y' (stages[1]): duplicate name (first at stages[0])"

# Files: missing, a directory, too large.
expect_error missing 1 "no-such-plan.json: cannot open: No such file or directory" \
	plan no-such-plan.json
mkdir -p adir
expect_error directory 1 "adir: read error: Is a directory" plan adir
dd if=/dev/zero of=big.json bs=1 count=0 seek=16777217 2>/dev/null
expect_error too_big 1 "big.json: larger than the 16 MiB limit for a plan" plan big.json
# More than 100000 stages.
awk 'BEGIN { printf "{\"stages\": ["; for (i = 0; i <= 100000; i++)
	printf "%s{\"name\":\"s%d\",\"duration_us\":1,\"stream\":\"s\"}", i ? "," : "", i;
	print "]}" }' >many.json
expect_error too_many 1 "many.json: more than 100000 stages (the limit of a plan)" plan many.json
# 100000 stages are fine (a chain on one stream).
awk 'BEGIN { printf "{\"stages\": ["; for (i = 0; i < 100000; i++)
	printf "%s{\"name\":\"s%d\",\"duration_us\":0.5,\"stream\":\"s%d\"%s}", i ? "," : "",
		i, i % 7, i ? ",\"depends_on\":[\"s" (i - 1) "\"]" : "";
	print "]}" }' >chain.json
json chain chain.json serial_us 50000, ideal_us 50000,

# ---- usage errors: exit 2 -----------------------------------------------------
usage no_file plan
usage two_files plan example2.json example1.json
usage bad_format plan --format xml example2.json
usage no_format_value plan example2.json --format
usage bad_option plan --frobnicate example2.json
has bad_option err "'--frobnicate'"

# ---- help ----------------------------------------------------------------------
run help plan --help
[ "$rc" = 0 ] || fail "help: exit $rc"
has help out "usage: gpuscope plan"
has help out "(default"
has help out "example:"
for k in h2d copy_in d2h copy_out compute kernel sync host pinned pageable copy_engines \
	exposed_overhead_us depends_on; do
	has help out "$k"
done
run help2 help plan
checks=$((checks + 1))
cmp -s help.out help2.out || fail "'gpuscope help plan' differs from 'plan --help'"
run main_help --help
has main_help out "  plan "

# ---- a full disk is an error ----------------------------------------------------
if [ -w /dev/full ]; then
	checks=$((checks + 1))
	"$gs" plan example2.json >/dev/full 2>full.err
	rc=$?
	[ "$rc" = 1 ] || fail "full: exit $rc, want 1"
	grep -q '^gpuscope: error: .*No space left' full.err || fail "full: $(cat full.err)"
fi

if [ "$failures" -ne 0 ]; then
	echo "$failures of $checks checks failed (work dir: $work)" >&2
	exit 1
fi
echo "$checks checks passed"
exit 0
