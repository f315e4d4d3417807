# SPDX-License-Identifier: MIT
# The harness the command-line test scripts share (sourced, POSIX sh;
# tests/cli/gate/run.sh and tests/cli/inputs/run.sh): checks and failures
# counted, gpuscope ($gs) run with its outputs in files, and the summary.
# The sourcing script sets gs and changes to its work dir first.

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
	"$gs" "$@" >"$name.out" 2>"$name.err"
	rc=$?
}

# expect NAME STATUS ARGS...: run, and the exit status must be STATUS.
expect() {
	name=$1
	want=$2
	shift 2
	run "$name" "$@"
	checks=$((checks + 1))
	if [ "$rc" != "$want" ]; then
		fail "$name: exit $rc, want $want (gpuscope $*)"
		sed 's/^/    /' "$name.err" >&2
	fi
}

# finish: the count of checks; exit 1 when any failed (naming $work).
finish() {
	if [ "$failures" -ne 0 ]; then
		echo "$failures of $checks checks failed (work dir: $work)" >&2
		exit 1
	fi
	echo "$checks checks passed"
	exit 0
}
