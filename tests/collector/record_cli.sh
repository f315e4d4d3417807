#!/bin/sh
# SPDX-License-Identifier: MIT
# `gpuscope record`: exit statuses, messages, and (with the collector built)
# an end-to-end run of a stand-in CUDA program through the collector linked
# against the CUPTI test double, with an exec'd descendant.
#
#   record_cli.sh GPUSCOPE with-collector|without-collector WORKDIR [COLLECTOR_DOUBLE FAKE_APP]
set -u
gpuscope=$1 mode=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# run EXPECTED_STATUS CMD...: stderr in $work/err, stdout in $work/out
run() {
	want=$1
	shift
	"$@" >out 2>err
	got=$?
	[ "$got" -eq "$want" ] || { fail "$* exited $got, expected $want"; sed 's/^/  stderr: /' err >&2; }
}
has() { grep -q -- "$1" err || fail "stderr lacks '$1': $(cat err)"; }

# Usage errors: 2, whatever the build.
run 2 "$gpuscope" record
has "no PROGRAM given"
run 2 "$gpuscope" record --flush-ms 0 -- true
run 2 "$gpuscope" record --flush-ms abc -- true
run 2 "$gpuscope" record -o 'x-%q.gscope' -- true
run 2 "$gpuscope" record --bogus -- true
run 0 "$gpuscope" record --help
grep -q "usage: gpuscope record" out || fail "--help is not on stdout"

if [ "$mode" = without-collector ]; then
	env -u GPUSCOPE_COLLECTOR "$gpuscope" record -- sh -c 'exit 3' >out 2>err
	[ $? -eq 1 ] || fail "without the collector, record must exit 1"
	has "built without the CUPTI collector"
	[ "$failures" -eq 0 ] && echo "ok: record without the collector" && exit 0
	exit 1
fi

# The program's exit status, as a shell gives it; no CUDA: no trace.
run 3 "$gpuscope" record -- sh -c 'exit 3'
has "no trace written: 'sh' made no CUDA calls"
[ ! -s out ] || fail "record wrote to stdout: $(cat out)"
run 143 "$gpuscope" record -- sh -c 'kill -TERM $$'
has "ended by signal 15"
run 0 "$gpuscope" record -- true
run 127 "$gpuscope" record -- ./no-such-program
has "cannot run './no-such-program'"
GPUSCOPE_COLLECTOR=/no/such.so run 1 "$gpuscope" record -- true
has "GPUSCOPE_COLLECTOR=/no/such.so: no such file"
: >taken.gscope
run 1 "$gpuscope" record -o taken.gscope -- true
has "exists (use --force to replace it)"
[ ! -s taken.gscope ] || fail "taken.gscope was written"

# -o is checked before the run as every -o is (README "Output files").
ln -s taken.gscope link.gscope
run 1 "$gpuscope" record --force -o link.gscope -- true
has "link.gscope: is a symbolic link"
ln -s nowhere.gscope dangling.gscope
run 1 "$gpuscope" record --force -o dangling.gscope -- true
has "dangling.gscope: is a symbolic link"
[ ! -e nowhere.gscope ] || fail "record created the target of a dangling link"
run 1 "$gpuscope" record --force -o /dev/null -- true
has "/dev/null: is not a regular file"
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
mkdir -p adir
run 1 "$gpuscope" record --force -o adir -- true
has "adir: is not a regular file"
printf '#!/bin/sh\nexit 0\n' >prog && chmod +x prog && cp prog prog.orig
run 1 "$gpuscope" record --force -o prog -- ./prog
has "prog: is one of the inputs"
cmp -s prog prog.orig || fail "record replaced PROGRAM"
# %h is the host name in the name checked, not a literal "%h".
host=$(uname -n | tr / _)
: >"h-$host.gscope"
run 1 "$gpuscope" record -o 'h-%h.gscope' -- true
has "h-$host.gscope: exists (use --force to replace it)"
# --force and no trace written: the old file is put back as it was.
echo old >forced.gscope
run 0 "$gpuscope" record --force -o forced.gscope -- true
[ "$(cat forced.gscope)" = old ] || fail "record --force lost the old file: $(cat forced.gscope)"
ls -a | grep -q '\.old-' && fail "record --force left the old file aside: $(ls -a)"

# End to end: a stand-in CUDA program and its exec'd child, one trace each.
if [ $# -ge 5 ]; then
	double=$4 app=$5
	GPUSCOPE_COLLECTOR=$double run 5 "$gpuscope" record -o "$work/app-%p.gscope" \
		--flush-ms 50 -- "$app" --spawn --exit 5
	grep -q "fake_cuda_app done" out || fail "the program's stdout was lost"
	n=$(grep -c "trace written: $work/app-[0-9]*\.gscope" err)
	[ "$n" -eq 2 ] || fail "expected 2 traces listed, got $n: $(cat err)"
	for t in "$work"/app-*.gscope; do
		"$gpuscope" info --format json "$t" >info.json 2>info.err ||
			fail "info $t: $(cat info.err)"
		grep -q '"kernel": 2' info.json || fail "$t: expected 2 kernels: $(cat info.json)"
		grep -q '"api_calls": 2' info.json || fail "$t: expected 2 API calls"
	done
	# --force and a trace written: the old file is replaced, nothing left aside.
	echo old >forced.gscope
	GPUSCOPE_COLLECTOR=$double run 0 "$gpuscope" record --force -o "$work/forced.gscope" \
		-- "$app"
	has "trace written: $work/forced.gscope"
	"$gpuscope" info forced.gscope >/dev/null 2>info.err ||
		fail "record --force: forced.gscope is not the new trace: $(cat info.err)"
	ls -a | grep -q '\.old-' && fail "record --force left the old file aside: $(ls -a)"
	# --data-deps reaches the collector.
	GPUSCOPE_COLLECTOR=$double GPUSCOPE_LOG=debug run 0 "$gpuscope" record \
		-o "$work/deps-%p.gscope" --data-deps -- "$app"
	has "data deps on"
	# A launcher's rank reaches the trace (torchrun's RANK, WORLD_SIZE).
	env -u OMPI_COMM_WORLD_RANK -u PMI_RANK -u SLURM_PROCID -u OMPI_COMM_WORLD_SIZE \
		-u PMI_SIZE -u SLURM_NTASKS RANK=2 WORLD_SIZE=4 GPUSCOPE_COLLECTOR=$double \
		"$gpuscope" record -o "$work/rank-%p.gscope" -- "$app" >out 2>err ||
		fail "record with RANK=2 failed: $(cat err)"
	for t in "$work"/rank-*.gscope; do
		"$gpuscope" info --format json "$t" >info.json 2>info.err ||
			fail "info $t: $(cat info.err)"
		grep -q '"rank": 2, "world_size": 4}' info.json ||
			fail "$t: expected rank 2 of 4: $(cat info.json)"
	done
fi

[ "$failures" -eq 0 ] || exit 1
echo "ok: record"
