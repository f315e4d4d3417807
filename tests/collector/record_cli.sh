#!/bin/sh
# SPDX-License-Identifier: MIT
# `gpuscope record`: exit statuses, messages, and (with the collector built)
# an end-to-end run of a stand-in CUDA program through the collector linked
# against the CUPTI test double, with an exec'd descendant; what record says
# when no trace is written (no driver, the collector disabled, never loaded,
# no CUDA call) and the checks made before the program starts.
#
#   record_cli.sh GPUSCOPE with-collector|without-collector WORKDIR
#                 [COLLECTOR_DOUBLE FAKE_APP DRIVER_DOUBLE_DIR FATBIN_APP]
#
# A driver is made present with the driver double (libcuda.so.1 in
# DRIVER_DOUBLE_DIR, through LD_LIBRARY_PATH: it comes before the system's)
# and missing with the tests' driver name found nowhere
# (GPUSCOPE_TEST_DRIVER_NAME, collector/src/config.h), whatever the machine.
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
# is TEXT: stderr is exactly TEXT
is() { [ "$(cat err)" = "$1" ] || fail "stderr is not exactly: $1
  got: $(cat err)"; }

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

# A driver for record to find (its probe, and the fake programs' collector).
if [ $# -ge 6 ]; then
	LD_LIBRARY_PATH="$6${LD_LIBRARY_PATH:+:}${LD_LIBRARY_PATH:-}"
	export LD_LIBRARY_PATH
fi
unset GPUSCOPE_TEST_DRIVER_NAME GPUSCOPE_STATUS_FILE
nodriver="GPUSCOPE_TEST_DRIVER_NAME=libgpuscope-test-no-driver.so.1"
p="gpuscope: record: no trace written:"

# The program's exit status, as a shell gives it; no CUDA: no trace.
run 3 "$gpuscope" record -- sh -c 'exit 3'
is "$p 'sh' made no CUDA calls (the CUDA driver never loaded the collector)"
[ ! -s out ] || fail "record wrote to stdout: $(cat out)"
run 143 "$gpuscope" record -- sh -c 'kill -TERM $$'
has "ended by signal 15"
run 0 "$gpuscope" record -- true
run 127 "$gpuscope" record -- ./no-such-program
has "cannot run './no-such-program'"
GPUSCOPE_COLLECTOR=/no/such.so run 1 "$gpuscope" record -- true
has "GPUSCOPE_COLLECTOR=/no/such.so: no such file"

# Checked before the program starts (it would touch ./started): exit 1.
head -c 200 /dev/zero | tr '\0' x >bad.so
GPUSCOPE_COLLECTOR=$work/bad.so run 1 "$gpuscope" record -- sh -c ': >started'
is "gpuscope: error: record: cannot load the collector: $work/bad.so: invalid ELF header"
run 1 "$gpuscope" record -o /no-such-dir-$$/x.gscope -- sh -c ': >started'
is "gpuscope: error: record: cannot write traces in /no-such-dir-$$: no such directory"
run 2 "$gpuscope" record -o "no-dir-%h-%p/x.gscope" -- sh -c ': >started'
has "record: -o: %p in the directory of '$work/no-dir-%h-%p/x.gscope': the collector creates no directory (put %p in the file name)"
run 1 "$gpuscope" record -o "no-dir-%h/x-%p.gscope" -- sh -c ': >started'
is "gpuscope: error: record: cannot write traces in $work/no-dir-$(uname -n | tr / _): no such directory"
: >afile
run 1 "$gpuscope" record -o afile/x.gscope -- sh -c ': >started'
is "gpuscope: error: record: cannot write traces in $work/afile: not a directory"
run 1 "$gpuscope" record -o afile/sub/x-%p.gscope -- sh -c ': >started'
is "gpuscope: error: record: cannot write traces in $work/afile/sub: not a directory"
mkdir ro && chmod 555 ro
if [ "$(id -u)" -ne 0 ]; then # root may write anywhere
	run 1 "$gpuscope" record -o ro/x.gscope -- sh -c ': >started'
	is "gpuscope: error: record: cannot write traces in $work/ro: Permission denied"
fi
chmod 755 ro
[ ! -e started ] || fail "record started the program after a failed check"
: >taken.gscope
run 1 "$gpuscope" record -o taken.gscope -- true
has "exists (use --force to replace it)"
[ ! -s taken.gscope ] || fail "taken.gscope was written"

# -o is checked before the run as every -o is (docs/guide.md, "Output files").
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
	# No driver: said before the run and after it; the program runs as usual.
	env "$nodriver" "$gpuscope" record -- sh -c 'exit 4' >out 2>err
	[ $? -eq 4 ] || fail "record without a driver: expected the program's 4"
	is "gpuscope: warning: record: no CUDA driver on this machine (libcuda.so.1 not found): 'sh' runs without the collector, no trace will be written
$p no CUDA driver (see the warning above)"
	# ... and the collector, if something loads it anyway, says it once,
	# however many threads initialise CUDA at once.
	env "$nodriver" GPUSCOPE_COLLECTOR=$double "$gpuscope" record -o "$work/nd-%p.gscope" \
		-- "$app" --threads 8 >out 2>err || fail "record --threads 8: $(cat err)"
	is "gpuscope: warning: record: no CUDA driver on this machine (libcuda.so.1 not found): '$app' runs without the collector, no trace will be written
gpuscope: collector disabled: no CUDA driver (libcuda.so.1 not found)
$p no CUDA driver (see the warning above)"
	# The collector loaded, and disabled: its reason.
	GPUSCOPE_COLLECTOR=$double run 0 "$gpuscope" record -o "$work/dis-%p.gscope" \
		-- "$app" --cupti-fail 999
	why="CUDA driver present but CUPTI cannot use it (CUPTI_ERROR_UNKNOWN, error 999, from cuptiSubscribe): is a GPU visible here (nvidia-smi), and does the driver support CUDA 13?"
	[ "$(sed -n 1p err)" = "gpuscope: collector disabled: $why" ] ||
		fail "the collector's line: $(sed -n 1p err)"
	sed -n 2p err | grep -qx "$p the collector was loaded but disabled (pid [0-9]*): $why" ||
		fail "record's line after a disabled collector: $(cat err)"
	[ "$(wc -l <err)" -eq 2 ] || fail "expected 2 lines: $(cat err)"
	# The collector loaded, and nothing to record.
	GPUSCOPE_COLLECTOR=$double run 0 "$gpuscope" record -o "$work/idle-%p.gscope" \
		-- "$app" --no-kernels
	is "$p the collector was loaded but nothing was recorded: '$app' made no CUDA call after initialising CUDA, or was killed before its first flush"
	# A CUDA program the collector never reached: it links the driver ...
	GPUSCOPE_COLLECTOR=$double run 0 "$gpuscope" record -o "$work/ni-%p.gscope" \
		-- "$app" --no-init
	is "$p '$app' links CUDA, but the CUDA driver never loaded the collector: it made no CUDA call, or CUDA_INJECTION64_PATH was cleared or replaced before it did"
	# ... or carries CUDA device code.
	if [ $# -ge 7 ]; then
		fatbin=$7
		run 0 "$gpuscope" record -- "$fatbin"
		is "$p '$fatbin' links CUDA, but the CUDA driver never loaded the collector: it made no CUDA call, or CUDA_INJECTION64_PATH was cleared or replaced before it did"
	fi
	ls "$work"/nd-* "$work"/dis-* "$work"/idle-* "$work"/ni-* >/dev/null 2>&1 &&
		fail "a trace was written where none should be"
	ls "${TMPDIR:-/tmp}" | grep -q "^gpuscope-record-" &&
		fail "record left its status directory: $(ls "${TMPDIR:-/tmp}" | grep gpuscope-record)"
	# A launcher's rank reaches the trace (torchrun's RANK, WORLD_SIZE).
	env -u OMPI_COMM_WORLD_RANK -u PMI_RANK -u SLURM_PROCID -u OMPI_COMM_WORLD_SIZE \
		-u PMI_SIZE -u SLURM_NTASKS RANK=2 WORLD_SIZE=4 GPUSCOPE_COLLECTOR=$double \
		"$gpuscope" record -o "$work/rank-%p.gscope" -- "$app" >out 2>err ||
		fail "record with RANK=2 failed: $(cat err)"
	for t in "$work"/rank-*.gscope; do
		"$gpuscope" info --format json "$t" >info.json 2>info.err ||
			fail "info $t: $(cat info.err)"
		grep -q '"rank": 2, "world_size": 4,' info.json ||
			fail "$t: expected rank 2 of 4: $(cat info.json)"
	done
fi

# A signal at any moment of record's start (a timeout, as the GPU check's
# for a hung program) leaves no status directory behind and no program
# running on: the signal waits for the program and is passed on to it.
if command -v timeout >/dev/null 2>&1; then
	rm -rf "$work/sigtmp" && mkdir -p "$work/sigtmp/out"
	i=0
	while [ $i -lt 150 ]; do
		i=$((i + 1))
		TMPDIR=$work/sigtmp timeout -k 3 "0.00$((i % 9 + 1))" "$gpuscope" record \
			-o "$work/sigtmp/out/t%p.gscope" -- sh -c 'sleep 20' >/dev/null 2>&1
		[ $? -eq 137 ] && fail "record killed after a TERM it did not pass on (try $i)"
	done
	left=$(ls "$work/sigtmp" | grep gpuscope-record)
	[ -z "$left" ] || fail "record left status directories after a TERM: $left"
fi

[ "$failures" -eq 0 ] || exit 1
echo "ok: record"
