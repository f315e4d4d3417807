#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line tests of the CI gate, --fail-if of analyze and diff (ctest
# label "cli").
#
#   run.sh GPUSCOPE GS_BENCH_GEN SRCDIR WORKDIR
#
# Two generated runs of a 2-rank NCCL job with ProfilerStep#N steps: BASE,
# and NEW where rank 1 arrives 2 ms late at every other collective (a
# straggler: the steps get longer, rank 0 waits in its all-reduces, so its
# exposed communication and idle share grow). diff NEW against BASE with
# thresholds must exit 3, say each threshold crossed on stderr, still
# write the diff, and give the verdict in the JSON; BASE against itself
# must exit 0. Then analyze --fail-if, the errors of the grammar (exit 1
# before any input is read), and metrics a trace lacks. The lines on
# stderr and the JSON verdict are compared with SRCDIR/expected/NAME.txt
# (GS_UPDATE_GOLDEN=1 rewrites them; review the diff before keeping it).
set -u

gs=${1:?usage: run.sh GPUSCOPE GS_BENCH_GEN SRCDIR WORKDIR}
gen=${2:?gs_bench_gen}
src=${3:?source dir of tests/cli/gate}
work=${4:?work dir}

case $gs in /*) ;; *) gs=$(pwd)/$gs ;; esac
case $gen in /*) ;; *) gen=$(pwd)/$gen ;; esac
case $src in /*) ;; *) src=$(pwd)/$src ;; esac

# fail, run, expect, finish
. "$(cd "$(dirname "$0")/.." && pwd)/harness.sh" || exit 1

rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1
unset NO_COLOR
export TERM=dumb LC_ALL=C

# has NAME out|err TEXT: the output holds TEXT (fixed string).
has() {
	checks=$((checks + 1))
	grep -qF -- "$3" "$1.$2" || fail "$1: std$2 lacks '$3'"
}

# lines NAME N: NAME's stderr has N lines.
lines() {
	checks=$((checks + 1))
	n=$(wc -l <"$1.err" | tr -d ' ')
	[ "$n" = "$2" ] || fail "$1: $n lines on stderr, want $2: $(cat "$1.err")"
}

# golden NAME FILE: FILE against expected/NAME.txt.
golden() {
	checks=$((checks + 1))
	exp=$src/expected/$1.txt
	if [ "${GS_UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$2" "$exp"
		return
	fi
	if [ ! -f "$exp" ]; then
		fail "$1: no expected file $exp (GS_UPDATE_GOLDEN=1 makes one)"
		return
	fi
	diff -u "$exp" "$2" >&2 || fail "$1: differs from $exp"
}

# The "gate" member of a JSON report or diff (it comes last).
gate_of() {
	sed -n '/^  "gate": {/,$p' "$1"
}

"$gen" --job 2 --out-dir base --steps --collectives 20 >/dev/null || exit 1
"$gen" --job 2 --out-dir new --steps --collectives 20 --straggler 1 \
	--straggler-delay-ns 2000000 >/dev/null || exit 1
rm -f base/expected.json new/expected.json
thresholds='step_time>+5%,exposed_comm>+2ms,idle_share>+3pp'

# The regression: exit 3, one line per threshold crossed, the diff written.
expect regression 3 diff base new --fail-if "$thresholds"
lines regression 3
golden regression_err regression.err
has regression out "base: base"
has regression out "rank 0 · GPU 0"
# The same run on both sides: exit 0, nothing on stderr.
expect self 0 diff base base --fail-if "$thresholds"
lines self 0
has self out "base: base"
# A threshold the change stays within.
expect within 0 diff base new --fail-if 'step_time>+500%,ops>+1'
lines within 0

# The verdict in the JSON, written whole to -o; -q leaves out warnings,
# never the verdict.
expect regression_json 3 diff -q --format json -o diff.json base new --fail-if "$thresholds" \
	--fail-if 'efficiency<-0.05,ops>+0'
lines regression_json 4
checks=$((checks + 1))
[ -s regression_json.out ] && fail "regression_json: printed on stdout with -o"
gate_of diff.json >diff.gate
golden regression_gate diff.gate
has diff json '"schema": "gpuscope.diff/1"'
expect self_json 0 diff --format json base base --fail-if "$thresholds"
gate_of self_json.out >self.gate
has self gate '"passed": true'
has self gate '"crossed": 0'
checks=$((checks + 1))
[ "$(grep -c '"crossed": false' self.gate)" = 3 ] || fail "self_json: not 3 thresholds passed"
# Without --fail-if, no verdict.
expect plain_json 0 diff --format json base new
checks=$((checks + 1))
grep -q '"gate"' plain_json.out && fail "plain_json: a gate without --fail-if"

# analyze: thresholds over one run's GPUs (a job: every rank's).
expect analyze_new 3 analyze -o new.txt new --fail-if 'efficiency<0.8,step_time>2ms,idle_share>10%'
golden analyze_err analyze_new.err
checks=$((checks + 1))
[ -s new.txt ] || fail "analyze_new: no report written"
expect analyze_base 0 analyze -o base.txt base --fail-if 'efficiency<0.8,step_time>2ms,idle_share>10%'
lines analyze_base 0
expect analyze_json 3 analyze -q --format json new --fail-if 'efficiency<0.8'
gate_of analyze_json.out >analyze.gate
golden analyze_gate analyze.gate
has analyze_json out '"schema": "gpuscope.report/1"'
# One rank's trace alone: no rank named.
expect analyze_one 3 analyze -q new/rank0.json --fail-if 'exposed_comm>=10ms'
lines analyze_one 1
has analyze_one err "gpuscope: threshold crossed: exposed_comm>=10ms: 18.817 ms on GPU 0"

# Errors: exit 1, one line naming the threshold and the token, before any
# input is read (a missing file is not what is reported), nothing written.
bad() {
	name=$1
	line=$2
	shift 2
	expect "$name" 1 "$@" -o bad.out no-such-trace.json
	checks=$((checks + 1))
	[ "$(cat "$name.err")" = "gpuscope: error: $line" ] ||
		fail "$name: stderr is '$(cat "$name.err")', want 'gpuscope: error: $line'"
	[ -s "$name.out" ] && fail "$name: printed on stdout"
	[ -e bad.out ] && fail "$name: bad.out written"
}
bad unknown_metric "--fail-if: 'step_tim>5ms': unknown metric 'step_tim' (step_time, window, kernel_time, copy_time, sync_time, idle_time, kernel_share, copy_share, sync_share, idle_share, efficiency, gap, host_bound, launch_latency, exposed_comm, comm_time, wait_time, missed_overlap, ops)" \
	analyze --fail-if 'step_tim>5ms'
bad no_op "--fail-if: 'step_time+5%': no comparison after 'step_time' (>, >=, <, <=)" \
	diff base --fail-if 'step_time+5%'
bad no_unit "--fail-if: 'step_time>5': step_time is a time: '5' wants a unit, ns, us, ms or s (12ms)" \
	analyze --fail-if 'step_time>5'
bad change_in_analyze "--fail-if: 'step_time>+5%': '+5%' is a change, which needs two runs (gpuscope diff BASE NEW --fail-if ...); here give a value, without a sign" \
	analyze --fail-if 'step_time>+5%'
bad pp_without_sign "--fail-if: 'idle_share>3pp': pp (percentage points) is a change: give its sign ('+3pp'), in gpuscope diff; a share here is 30% or 0.3" \
	diff base --fail-if 'idle_share>3pp'
bad empty_threshold "--fail-if: 'efficiency<0.6,': an empty threshold (two commas, or one at an end)" \
	analyze --fail-if 'efficiency<0.6,'
bad bad_number "--fail-if: 'efficiency<high': 'high' is not a number with a unit (ns, us, ms, s, %, pp)" \
	analyze --fail-if 'efficiency<high'

# A metric no GPU has: exit 1 after reading, nothing written.
expect no_steps 1 analyze -q -o none.json --step none new --fail-if 'step_time>1ms'
checks=$((checks + 1))
[ "$(cat no_steps.err)" = "gpuscope: error: --fail-if: step_time>1ms: no GPU has a step time: no steps analysed (none found, or --window, --step none) (ProfilerStep#N ranges, --step-marker REGEX, or a repeated top-level annotation)" ] ||
	fail "no_steps: stderr is '$(cat no_steps.err)'"
[ -e none.json ] && fail "no_steps: none.json written"

# GPUs whose ids differ: nothing compared, an error (not a pass) that names --pair.
expect no_pair 1 diff -q base/rank0.json new/rank1.json --fail-if "$thresholds"
has no_pair err "nothing is compared"
has no_pair err "--pair 0:1"

finish
