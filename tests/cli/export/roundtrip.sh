#!/bin/sh
# SPDX-License-Identifier: MIT
# Round trips keep the job (ctest label "cli"): TRACEs exported to Chrome
# JSON (with the ideal schedule) and the export read back by `analyze` give
# the analysis of the TRACEs themselves: the same GPUs by (rank, device),
# each with the same window, breakdown, actual, dependency-bound and ideal
# schedule and efficiency, and the same job analysis (REPORT_SAME; a rank
# that shares its recorded pid with an earlier rank comes back as pid +
# k * 2^32). EXPORT_CHECK checks each export (flows, tracks) and that it
# reads back with the sources' ops. Over:
#   - a two-process, two-GPU Nsight export (GEN_NSYS_2PROC) whose
#     correlation ids coincide across the processes;
#   - two ranks of GS_BENCH_GEN --job 9 on two hosts (ranks 0 and 8: both
#     pid 1000 on device 0), then the same with rank 8's wall clock 7 us
#     off: its times are written 7 us later (on rank 0's clock) and read
#     back as recorded, with its own clock;
#   - a job of six ranks (a straggler and a planted skew): distributedInfo
#     as HTA reads it ("rank": 0 with its space, "backend": "nccl");
#   - one GPU of a process with two (export --device 1) against
#     analyze --device 1;
#   - every trace of SHARED_DATA with GPU ops on its own, and all of them
#     as one job (skipped without SHARED_DATA).
#
#   roundtrip.sh GPUSCOPE REPORT_SAME EXPORT_CHECK WORKDIR GEN_NSYS_2PROC GS_BENCH_GEN [SHARED_DATA]
set -u

gs=${1:?usage: roundtrip.sh GPUSCOPE REPORT_SAME EXPORT_CHECK WORKDIR GEN_NSYS_2PROC GS_BENCH_GEN [SHARED_DATA]}
same=${2:?report_same}
check=${3:?export_check}
work=${4:?work dir}
gen2proc=${5:?gen_nsys_2proc}
benchgen=${6:?gs_bench_gen}
data=${7:-}

for v in gs same check gen2proc benchgen; do
	eval "p=\$$v"
	case $p in /*) ;; *) eval "$v=\$(pwd)/\$p" ;; esac
done
case $data in '' | /*) ;; *) data=$(pwd)/$data ;; esac

rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1
export LC_ALL=C

failures=0
checks=0

fail() {
	printf 'FAIL: %s\n' "$*" >&2
	failures=$((failures + 1))
}

# has FILE TEXT: the file holds TEXT (fixed string).
has() {
	checks=$((checks + 1))
	grep -qF -- "$2" "$1" || fail "$1 lacks '$2'"
}

# roundtrip [--first-description] [--no-check] NAME TRACE...: export, read
# back, the same analysis and (but with --no-check) the same ops.
roundtrip() {
	opt=
	ops=1
	while :; do
		case $1 in
		--first-description) opt=$1 ;;
		--no-check) ops=0 ;;
		*) break ;;
		esac
		shift
	done
	name=$1
	shift
	checks=$((checks + 1))
	if ! "$gs" export --with-ideal -o "$name.json" "$@" 2>"$name.export.err"; then
		fail "$name: export failed: $(tail -n 1 "$name.export.err")"
		return
	fi
	if ! "$gs" analyze --format json "$@" >"$name.source.json" 2>"$name.source.err"; then
		fail "$name: analyze of the source failed: $(tail -n 1 "$name.source.err")"
		return
	fi
	if ! "$gs" analyze --format json "$name.json" >"$name.back.json" 2>"$name.back.err"; then
		fail "$name: analyze of the export failed: $(tail -n 1 "$name.back.err")"
		return
	fi
	if ! "$same" $opt "$name.source.json" "$name.back.json" >"$name.same" 2>&1; then
		fail "$name: the export read back is not the same job"
		sed 's/^/    /' "$name.same" >&2
	fi
	if [ "$ops" = 1 ] && ! "$check" "$name.json" "$@" >"$name.check" 2>&1; then
		fail "$name: export_check"
		sed 's/^/    /' "$name.check" >&2
	fi
	echo "$name: $(cat "$name.same")"
}

# ---- a two-process Nsight export -------------------------------------------

"$gen2proc" 2proc.sqlite || fail "gen_nsys_2proc"
roundtrip nsys2 2proc.sqlite
has nsys2.same "2 GPUs of 2 ranks"
has nsys2.check "2 GPU processes, 2 ranks, 0 flows across ranks"
# Each rank's ids in a range of its own: rank 1's correlation 3 is 1003.
has nsys2.json '"name":"cudaEventRecord","pid":1002,"tid":200,"ts":1000000.047,"dur":0.005,"args":{"correlation":1003}'
# Without a declared rank or backend: the rank alone, as PyTorch spells it.
has nsys2.json '"distributedInfo": {"rank": 0},'

# ---- two hosts, one device number, one pid ---------------------------------

"$benchgen" --job 9 --collectives 8 --straggler 2 --out-dir job9 >job9.gen 2>&1 ||
	fail "gs_bench_gen --job 9"
roundtrip hosts2 job9/rank0.json job9/rank8.json
has hosts2.same "2 GPUs of 2 ranks"
has hosts2.check "2 GPU processes, 2 ranks, 0 flows across ranks"
# same_processes NAME TRACE...: read back, each rank's process record (that
# of the pid NAME.source.json gives it) is its source's: host, command
# line, versions, world size, backend, clock and its offset, start and
# records dropped; but for the pid, and the rank, which the export always
# declares (the job's number: the file is the job).
same_processes() {
	name=$1
	shift
	grep -o '"pid": [0-9]*' "$name.source.json" | sed 's/.* //' | sort -u >"$name.pids"
	for f in "$@"; do
		"$gs" dump "$f" 2>/dev/null | grep '^process '
	done | awk 'NR == FNR { want["pid=" $1] = 1; next } want[$2]' "$name.pids" - |
		sed -e 's/^process pid=[^ ]* //' -e 's/ rank=[^ ]*//' | sort >"$name.procs.source"
	"$gs" dump "$name.json" 2>/dev/null | grep '^process ' |
		sed -e 's/^process pid=[^ ]* //' -e 's/ rank=[^ ]*//' | sort >"$name.procs.back"
	checks=$((checks + 1))
	if ! cmp -s "$name.procs.source" "$name.procs.back"; then
		fail "$name: the process records read back differ"
		diff "$name.procs.source" "$name.procs.back" | head -10 >&2
	fi
}
same_processes nsys2 2proc.sqlite

# Read back, rank 8 (pid 1000 on bench-node-1, like rank 0 on bench-node-0)
# is a process of its own, pid 1000 + 2^32.
same_processes hosts2 job9/rank0.json job9/rank8.json
"$gs" dump hosts2.json >hosts2.dump 2>/dev/null
has hosts2.dump 'process pid=1000 host="bench-node-0"'
has hosts2.dump 'process pid=4294968296 host="bench-node-1"'

# The read-back job exported again is the same job again (rank 8 recorded
# pid 1000 + 2^32 this time, and keeps it).
checks=$((checks + 1))
if "$gs" export -o hosts2_again.json hosts2.json 2>/dev/null &&
	"$gs" analyze --format json hosts2_again.json >hosts2_again.back.json 2>/dev/null; then
	"$same" hosts2.source.json hosts2_again.back.json >hosts2_again.same 2>&1 || {
		fail "hosts2_again: exported twice, not the same job"
		sed 's/^/    /' hosts2_again.same >&2
	}
else
	fail "hosts2_again: export or analyze failed"
fi

# Rank 8's wall clock 7 us ahead: its times go 7 us later onto rank 0's
# clock, and come back as recorded, with its own clock.
sed 's/"baseTimeNanoseconds": 1718294400000000000/"baseTimeNanoseconds": 1718294400000007000/' \
	job9/rank8.json >rank8_late.json
roundtrip clocks2 job9/rank0.json rank8_late.json
has clocks2.json '"time_shift_ns":7000'
has clocks2.json '"clock":"kineto_base","wall_offset_ns":"1718294400000007000","time_shift_ns":"7000"'
same_processes clocks2 job9/rank0.json rank8_late.json
"$gs" dump clocks2.json >clocks2.dump 2>/dev/null
has clocks2.dump ' rank=8 world_size=9 backend="nccl" clock=kineto_base wall_offset=1718294400000007000'
# Every event of rank 8's GPU (pid 8000) is 7 us later than in hosts2.
ts_of() {
	grep '^{"ph":"X","cat":"kernel",.*"pid":8000,' "$1" | sed 's/.*"ts":\([0-9.]*\),.*/\1/'
}
ts_of hosts2.json >hosts2.ts
ts_of clocks2.json >clocks2.ts
checks=$((checks + 1))
if [ ! -s hosts2.ts ] || ! paste -d ' ' hosts2.ts clocks2.ts |
	awk '{ if ($2 - $1 != 7) bad = 1 } END { exit bad }'; then
	fail "clocks2: rank 8's kernels are not 7 us later than in hosts2"
fi

# ---- six ranks of one host: a straggler and a skew --------------------------

"$benchgen" --job 6 --collectives 12 --straggler 3 --skew-ns 200000 --out-dir job6 \
	>job6.gen 2>&1 || fail "gs_bench_gen --job 6"
set -- job6/rank0.json job6/rank1.json job6/rank2.json job6/rank3.json job6/rank4.json \
	job6/rank5.json
roundtrip job6 "$@"
same_processes job6 "$@"
has job6.same "6 GPUs of 6 ranks"
has job6.back.json '"straggler": true'
# As Holistic Trace Analysis reads a rank: "rank": 0 with its space.
has job6.json '"distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 6}'
has job6.json '"rank": 0'
has job6.json '"backend": "nccl"'

# ---- one GPU of a process with two (--device 1) -----------------------------

"$benchgen" --ops 2000 --devices 2 --json two.json >two.gen 2>&1 || fail "gs_bench_gen --ops"
checks=$((checks + 1))
if "$gs" export --with-ideal --device 1 -o two_dev1.json two.json 2>two_dev1.err &&
	"$gs" analyze --format json --device 1 two.json >two_dev1.source.json 2>/dev/null &&
	"$gs" analyze --format json two_dev1.json >two_dev1.back.json 2>/dev/null; then
	"$same" two_dev1.source.json two_dev1.back.json >two_dev1.same 2>&1 || {
		fail "two_dev1: GPU 1 read back is not GPU 1 of the source"
		sed 's/^/    /' two_dev1.same >&2
	}
	echo "two_dev1: $(cat two_dev1.same)"
else
	fail "two_dev1: export or analyze failed"
fi

# ---- the shared real traces ------------------------------------------------

if [ -n "$data" ] && [ -d "$data" ]; then
	set --
	for f in "$data"/kineto/*/*.json.gz "$data"/nsys/*/*.sqlite; do
		[ -f "$f" ] || continue
		name=$(basename "$f")
		# A trace without GPU ops is no rank of a job read back.
		case $name in cpu_only.*) continue ;; esac
		# (cli_export_shared checks each one's export and ops.)
		roundtrip --no-check "shared_$name" "$f"
		set -- "$@" "$f"
	done
	# All of them as one job: ids, devices and clocks of a dozen processes.
	# A device id has one description in the file (deviceProperties): the
	# GPUs' names are left out of the comparison.
	roundtrip --first-description shared_job "$@"
	same_processes shared_job "$@"
else
	echo "shared traces skipped: ../shared/data absent"
fi

echo "$checks checks, $failures failures"
[ "$failures" = 0 ]
