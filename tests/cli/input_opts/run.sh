#!/bin/sh
# SPDX-License-Identifier: MIT
# The trace-input options (--rank, --device, --window, --step,
# --step-marker, --align, --salvage, -q, --inputs, the operands) as each
# front end takes them, one parser for all (analyzer/opts/input_opts.c):
# the same good and bad option blocks through analyze, export, diff and
# gpuscope-mpi (as one MPI process, no mpirun needed), their stderr and
# exit status (stdout too when the command fails) against expected.txt
# and expected_mpi.txt, which pin what each printed before the parser was
# shared. The mpi part is left out when gpuscope-mpi is not built.
#   run.sh GPUSCOPE GPUSCOPE_MPI SRCDIR WORKDIR
# GS_UPDATE_GOLDEN=1 rewrites the expected files (review the diff).
set -u
GS=$1 MPI=$2 SRC=$3 W=$4
here=$SRC/tests/cli/input_opts

rm -rf "$W" && mkdir -p "$W/dir" || exit 1
cp "$SRC/tests/cli/data/small.json" "$SRC/tests/cli/data/nccl_rank.json" \
	"$SRC/samples/tiny_pipeline.json" "$W/" || exit 1
cp "$SRC/tests/cli/data/small.json" "$W/dir/" || exit 1
printf 'small.json\n# a comment\n\ntiny_pipeline.json\n' >"$W/list.txt"
printf 'small.json\nsmall.json\n' >"$W/twice.txt"
cd "$W" || exit 1
# Under ASan the MPI library's own allocations that live to the end are
# not ours to report.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# case PROG ARGS...: one case into the current result file.
case_() {
	prog=$1
	shift
	echo "=== $*"
	"$prog" "$@" </dev/null >out.txt 2>err.txt
	rc=$?
	if [ $rc != 0 ]; then
		cat out.txt
	fi
	# (gpuscope-mpi takes --st as --stats: its numbers change per run)
	sed -e "s|$W|WORKDIR|g" -e 's/^\(gpuscope-mpi: stats:\).*/\1 .../' err.txt
	echo "--- exit $rc"
}

# The option blocks, one case a line (words split at blanks; '' is an
# empty argument).
cases() {
	cat <<'CASES'
--rank
--rank=x small.json
--rank -1 small.json
--rank 4294967295 small.json
--rank 0 small.json
--ran 0 small.json
--device x small.json
--device 1:x small.json
--device :0 small.json
--device 0: small.json
--device 0:0 small.json
--rank 1 --device 0:0 small.json
--device 0:0 --rank 1 small.json
--device 99 small.json
--rank 7 small.json
--window 0:1 small.json
--window +1ms:+5ms small.json
--window 1ms small.json
--window 5:1 small.json
--window +1:2 small.json
--window 1x:2 small.json
--window 1:2:3 small.json
--window 0.5ns:1 small.json
--window=+0:+1s small.json
--step 1 small.json
--step x small.json
--step all --window 0:1 small.json
--step-marker '' small.json
--step-marker
--align x small.json
--align
--salvage small.json
--salvage=1 small.json
-q
-q small.json
--qu small.json
small.json -q
--inputs
--inputs ''
--inputs missing.txt
--inputs list.txt
--inputs twice.txt
--inputs - small.json
''
dir
missing.json
small.json small.json
--s small.json
--st 1 small.json
--w 0:1 small.json
--ra 0 small.json
--in list.txt
--bogus small.json
-z small.json
-- --rank
CASES
}


fail=0
compare() { # compare RESULT EXPECTED
	if [ "${GS_UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$1" "$2"
	elif ! diff -u "$2" "$1"; then
		echo "FAIL: $1 differs from $2" >&2
		fail=1
	fi
}

{
	for cmd in analyze export diff; do
		cases | while IFS= read -r line; do
			eval "set -- $line"
			case_ "$GS" "$cmd" "$@"
		done
	done
	case_ "$GS" diff small.json tiny_pipeline.json --salvage -q
	case_ "$GS" diff --inputs list.txt small.json tiny_pipeline.json
} >result.txt
compare result.txt "$here/expected.txt"

if [ -x "$MPI" ]; then
	{
		cases | while IFS= read -r line; do
			eval "set -- $line"
			case_ "$MPI" analyze "$@"
		done
		case_ "$MPI"
		case_ "$MPI" analyze --window 1:2x small.json
		case_ "$MPI" analyze --window +0:+100000000000 small.json
	} >result_mpi.txt
	compare result_mpi.txt "$here/expected_mpi.txt"
else
	echo "gpuscope-mpi is not built: its part left out"
fi
[ $fail = 0 ] && echo "input_opts: every case as expected"
exit $fail
