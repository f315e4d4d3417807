#!/bin/sh
# SPDX-License-Identifier: MIT
# gpuscope-mpi against gpuscope analyze: 16 generated rank traces analysed
# by 1, 3 and 4 MPI processes give the same JSON (but options.mpi), the
# same text (the straggler's sections only, and with --ranks all every
# rank's) and the same HTML page (byte for byte: the page shows no
# options.mpi); -o DIR/ writes DIR/job.EXT and each rank's report; a truncated rank file is one error line and exit 1, or with
# --keep-going exit 0 and a report that names it; one process split over
# inputs of two MPI processes is refused; a directory and --inputs FILE
# give what gpuscope analyze gives for the directory, the same trace twice
# is refused. Output files over several MPI processes (the policy itself is
# tests/cli/output's): --keep-going with every input bad is one line more and
# exit 1 with nothing written; -o DIR/ over the inputs' own directory is
# refused with one line, with --force too; rank reports written by another
# process than the root have the mode the umask gives; SIGTERM to mpirun
# leaves no temporary file. --fail-if gives gpuscope analyze's verdict, lines
# and exit status. These cases run under `timeout` and, when
# MEM_MB > 0, `ulimit -v`.
#   run.sh GPUSCOPE GPUSCOPE_MPI GS_BENCH_GEN WORKDIR [MEM_MB]
# Exit 77 (skipped) without mpirun or gpuscope-mpi.
set -u
GS=$1 MPI=$2 GEN=$3 W=$4 MEM_MB=${5:-0}

if [ ! -x "$MPI" ]; then
	echo "skipped: gpuscope-mpi is not built (no MPI found at configure)"
	exit 77
fi
if ! command -v mpirun >/dev/null 2>&1; then
	echo "skipped: no mpirun on PATH"
	exit 77
fi
# Under ASan (make asan) the MPI library's own allocations that live to
# the end are not ours to report.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
RUN="mpirun --oversubscribe"
if [ "$(id -u)" = 0 ]; then
	RUN="$RUN --allow-run-as-root"
fi
fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

rm -rf "$W" && mkdir -p "$W/job" || exit 1
# A straggler (rank 5): with 16 GPUs (more than the rank table's 8) the text
# shows its sections only, which the root must ask of its MPI process alone.
"$GEN" --job 16 --out-dir "$W/job" --ops-per-rank 400 --straggler 5 >/dev/null || exit 1
rm -f "$W/job/expected.json"
set -- "$W"/job/rank*.json
"$GS" analyze --format json "$@" >"$W/ref.json" || bad "gpuscope analyze --format json"
"$GS" analyze "$@" >"$W/ref.txt" || bad "gpuscope analyze"
"$GS" analyze --format html "$@" >"$W/ref.html" || bad "gpuscope analyze --format html"
"$GS" analyze --ranks all "$@" >"$W/ref-all.txt" || bad "gpuscope analyze --ranks all"
[ "$(grep -c '^━━ rank ' "$W/ref.txt")" = 1 ] && grep -q '^━━ rank 5 ' "$W/ref.txt" ||
	bad "gpuscope analyze: not the straggler's sections alone"
grep -q "^15 of 16 ranks' sections not shown" "$W/ref.txt" || bad "no left-out line"
[ "$(grep -c '^━━ rank ' "$W/ref-all.txt")" = 16 ] || bad "--ranks all: not every section"

# The JSON without its "mpi" member of "options" (and the comma before it).
strip_mpi() {
	awk -v want="$2" '
		/^    "mpi": \{"processes": [0-9]+\}$/ {
			if ($0 != "    \"mpi\": {\"processes\": " want "}") bad = 1
			sub(/,$/, "", prev); seen = 1; next
		}
		{ if (NR > 1) print prev; prev = $0 }
		END { print prev; if (!seen || bad) exit 1 }' "$1"
}

for n in 1 3 4; do
	$RUN -n $n "$MPI" analyze --format json "$@" >"$W/mpi-$n.json" 2>"$W/mpi-$n.err" ||
		bad "-n $n --format json: exit $?"
	if ! strip_mpi "$W/mpi-$n.json" $n >"$W/mpi-$n.stripped"; then
		bad "-n $n: no options.mpi {\"processes\": $n}"
	fi
	cmp "$W/ref.json" "$W/mpi-$n.stripped" || bad "-n $n: JSON differs from gpuscope analyze"
	$RUN -n $n "$MPI" analyze "$@" >"$W/mpi-$n.txt" 2>>"$W/mpi-$n.err" || bad "-n $n text: exit $?"
	cmp "$W/ref.txt" "$W/mpi-$n.txt" || bad "-n $n: text differs from gpuscope analyze"
	$RUN -n $n "$MPI" analyze --format html "$@" >"$W/mpi-$n.html" 2>>"$W/mpi-$n.err" ||
		bad "-n $n --format html: exit $?"
	cmp "$W/ref.html" "$W/mpi-$n.html" || bad "-n $n: HTML differs from gpuscope analyze"
	$RUN -n $n "$MPI" analyze --ranks all "$@" >"$W/mpi-$n-all.txt" 2>>"$W/mpi-$n.err" ||
		bad "-n $n --ranks all: exit $?"
	cmp "$W/ref-all.txt" "$W/mpi-$n-all.txt" || bad "-n $n --ranks all: text differs"
done

# -o DIR/: the job report and one report per rank.
$RUN -n 3 "$MPI" analyze --format json -o "$W/out/" "$@" 2>"$W/dir.err" || bad "-o DIR/: exit $?"
strip_mpi "$W/out/job.json" 3 | cmp - "$W/ref.json" || bad "-o DIR/: job.json differs"
[ -f "$W/out/rank-00000.json" ] && [ -f "$W/out/rank-00015.json" ] || bad "-o DIR/: rank files"
$RUN -n 4 "$MPI" analyze --format html -o "$W/html/" "$@" 2>"$W/html.err" ||
	bad "-o DIR/ --format html: exit $?"
cmp "$W/html/job.html" "$W/ref.html" || bad "-o DIR/: job.html differs from gpuscope analyze"
[ -s "$W/html.err" ] && bad "-o DIR/ --format html: stderr: $(head -c 300 "$W/html.err")"
[ -f "$W/html/rank-00000.html" ] && [ "$(tail -n 1 "$W/html/rank-00015.html")" = "</html>" ] ||
	bad "-o DIR/ --format html: rank pages"

# A truncated rank file: one error line naming it and its MPI process.
mkdir -p "$W/bad" && cp "$W"/job/rank*.json "$W/bad/" || exit 1
head -c 3000 "$W/job/rank7.json" >"$W/bad/rank7.json"
set -- "$W"/bad/rank*.json
$RUN -n 4 "$MPI" analyze --format json "$@" >"$W/bad.json" 2>"$W/bad.err"
rc=$?
[ $rc = 1 ] || bad "truncated rank file: exit $rc, not 1"
n_err=$(grep -c '^gpuscope-mpi: error: ' "$W/bad.err")
[ "$n_err" = 1 ] || bad "truncated rank file: $n_err error lines, not 1"
grep -q "^gpuscope-mpi: error: $W/bad/rank7.json (MPI process [0-3]): " "$W/bad.err" ||
	bad "truncated rank file: the error line does not name the file and process"
$RUN -n 4 "$MPI" analyze --keep-going --format json "$@" >"$W/keep.json" 2>"$W/keep.err"
rc=$?
[ $rc = 0 ] || bad "--keep-going: exit $rc, not 0"
grep -q "\"message\": \"$W/bad/rank7.json (MPI process [0-3]) could not be read: " "$W/keep.json" ||
	bad "--keep-going: the report does not name the file"
grep -q '"ops": 6000,' "$W/keep.json" || bad "--keep-going: not the other 15 ranks' ops"

# One process in two inputs (rank 0 and the same with a blank line more:
# not the same file) read by two MPI processes.
{ cat "$W/job/rank0.json" && echo; } >"$W/rank0-again.json"
$RUN -n 2 "$MPI" analyze "$W/job/rank0.json" "$W/rank0-again.json" >/dev/null 2>"$W/split.err"
rc=$?
[ $rc = 1 ] || bad "one process in two inputs: exit $rc, not 1"
grep -q "^gpuscope-mpi: error: .* are one process .*does not join one process split" \
	"$W/split.err" || bad "one process in two inputs: no error saying so"

# A directory and --inputs, read as gpuscope analyze reads them: the job
# directory with a README, a hidden file and a subdirectory, one warning
# from the root; a list with a comment, a blank line and a directory.
mkdir -p "$W/dir/sub" && cp "$W"/job/rank*.json "$W/dir/" || exit 1
echo "16 ranks" >"$W/dir/README"
cp "$W/job/rank3.json" "$W/dir/.hidden.json"
"$GS" analyze --format json "$W/dir" >"$W/dir-ref.json" 2>"$W/dir-ref.err" ||
	bad "gpuscope analyze DIR: exit $?"
$RUN -n 3 "$MPI" analyze --format json "$W/dir" >"$W/mpi-dir.json" 2>"$W/mpi-dir.err" ||
	bad "-n 3 DIR: exit $?"
strip_mpi "$W/mpi-dir.json" 3 | cmp - "$W/dir-ref.json" || bad "-n 3 DIR: JSON differs from gpuscope analyze DIR"
[ "$(cat "$W/mpi-dir.err")" = "gpuscope-mpi: warning: $W/dir: skipped 2 entries that are not traces (README, sub/)" ] ||
	bad "-n 3 DIR: stderr is not the one warning: $(head -c 300 "$W/mpi-dir.err")"
{ echo "# the job"; echo; echo "  $W/dir  "; } >"$W/list.txt"
$RUN -n 4 "$MPI" analyze --quiet --inputs "$W/list.txt" >"$W/mpi-list.txt" 2>"$W/mpi-list.err" ||
	bad "-n 4 --inputs: exit $?"
"$GS" analyze "$W/dir" >"$W/dir-ref.txt" 2>/dev/null
cmp "$W/mpi-list.txt" "$W/dir-ref.txt" || bad "-n 4 --inputs: text differs from gpuscope analyze DIR"
[ -s "$W/mpi-list.err" ] && bad "-n 4 --inputs --quiet: stderr: $(head -c 300 "$W/mpi-list.err")"
# The same trace twice (a rank file directly and in the directory): one
# error line from the root, exit 1.
$RUN -n 2 "$MPI" analyze "$W/dir" "$W/job/rank5.json" "$W/dir/rank5.json" >"$W/twice.out" 2>"$W/twice.err"
rc=$?
[ $rc = 1 ] || bad "the same trace twice: exit $rc, not 1"
[ "$(grep -c '^gpuscope-mpi: error: ' "$W/twice.err")" = 1 ] &&
	grep -q "^gpuscope-mpi: error: $W/dir/rank5.json (in $W/dir) and $W/job/rank5.json are the same trace (same content); give each input once\$" "$W/twice.err" ||
	bad "the same trace twice: not the one error line: $(head -c 400 "$W/twice.err")"
[ -s "$W/twice.out" ] && bad "the same trace twice: a report on stdout"

# --fail-if: the verdict and exit status of gpuscope analyze --fail-if on
# the same job, on one and on several MPI processes: thresholds no GPU
# crosses (exit 0, no line), thresholds some cross (exit 3, the same lines
# on stderr but for the program's name, the same "gate" in the JSON, every
# metric but the step time, which this job has none of); the step time on a
# job with steps; one rank alone; a threshold no GPU has and an unknown
# metric: exit 1, one line, no report.
set -- "$W"/job/rank*.json
gate_all='window>1s,kernel_time>1s,copy_time>1s,sync_time>1s,idle_time>1s,kernel_share<1%'
gate_all="$gate_all,copy_share>99%,sync_share>99%,idle_share>5%,efficiency<0.9,gap>1s"
gate_all="$gate_all,host_bound>1s,launch_latency>1s,exposed_comm>1s,comm_time>1s"
gate_all="$gate_all,wait_time>1s,missed_overlap>1s,ops>399"
gate_pass='efficiency<0.1,idle_share>50%'
"$GS" analyze --format json --fail-if "$gate_all" "$@" >"$W/gate-ref.json" 2>"$W/gate-ref.err"
rc=$?
[ $rc = 3 ] || bad "gpuscope analyze --fail-if: exit $rc, not 3"
grep -q '"passed": false' "$W/gate-ref.json" || bad "gpuscope analyze --fail-if: no failed gate in the JSON"
[ "$(grep -c '^gpuscope: threshold crossed: ' "$W/gate-ref.err")" -ge 2 ] ||
	bad "gpuscope analyze --fail-if: fewer than two thresholds crossed: $(head -c 300 "$W/gate-ref.err")"
grep '^gpuscope: ' "$W/gate-ref.err" >"$W/gate-ref.lines"
"$GS" analyze --fail-if "$gate_pass" "$@" >"$W/gate-pass-ref.txt" 2>"$W/gate-pass-ref.err" ||
	bad "gpuscope analyze --fail-if (passing): exit $?"
for n in 1 3 4; do
	$RUN -n $n "$MPI" analyze --format json --fail-if "$gate_all" "$@" >"$W/gate-$n.json" \
		2>"$W/gate-$n.err"
	rc=$?
	[ $rc = 3 ] || bad "-n $n --fail-if (crossed): exit $rc, not 3"
	strip_mpi "$W/gate-$n.json" $n | cmp - "$W/gate-ref.json" ||
		bad "-n $n --fail-if (crossed): JSON differs from gpuscope analyze's"
	grep '^gpuscope-mpi: ' "$W/gate-$n.err" | sed 's/^gpuscope-mpi: /gpuscope: /' |
		cmp - "$W/gate-ref.lines" ||
		bad "-n $n --fail-if (crossed): stderr lines differ: $(head -c 400 "$W/gate-$n.err")"
	$RUN -n $n "$MPI" analyze --fail-if "${gate_pass%%,*}" --fail-if "${gate_pass#*,}" "$@" \
		>"$W/gate-pass-$n.txt" 2>"$W/gate-pass-$n.err"
	rc=$?
	[ $rc = 0 ] || bad "-n $n --fail-if (passing): exit $rc, not 0"
	cmp "$W/gate-pass-$n.txt" "$W/gate-pass-ref.txt" ||
		bad "-n $n --fail-if (passing): text differs from gpuscope analyze's"
	[ -s "$W/gate-pass-$n.err" ] &&
		bad "-n $n --fail-if (passing): stderr: $(head -c 300 "$W/gate-pass-$n.err")"
done
# The step time, on a job whose ranks mark their steps: the median step of
# each rank is taken by the process that analysed it.
mkdir -p "$W/steps" && "$GEN" --job 4 --out-dir "$W/steps" --ops-per-rank 400 --steps >/dev/null &&
	rm -f "$W/steps/expected.json" || exit 1
"$GS" analyze --format json --fail-if 'step_time>1ns,step_time<1ns' "$W"/steps/rank*.json \
	>"$W/gate-steps-ref.json" 2>"$W/gate-steps-ref.err"
[ $? = 3 ] || bad "gpuscope analyze --fail-if step_time: exit not 3"
for n in 1 3; do
	$RUN -n $n "$MPI" analyze --format json --fail-if 'step_time>1ns,step_time<1ns' \
		"$W"/steps/rank*.json >"$W/gate-steps-$n.json" 2>"$W/gate-steps-$n.err"
	rc=$?
	[ $rc = 3 ] || bad "-n $n --fail-if step_time: exit $rc, not 3"
	strip_mpi "$W/gate-steps-$n.json" $n | cmp - "$W/gate-steps-ref.json" ||
		bad "-n $n --fail-if step_time: JSON differs from gpuscope analyze's"
	grep '^gpuscope-mpi: ' "$W/gate-steps-$n.err" | sed 's/^gpuscope-mpi: /gpuscope: /' |
		cmp - "$W/gate-steps-ref.err" || bad "-n $n --fail-if step_time: stderr lines differ"
done
"$GS" analyze --format json --fail-if 'efficiency<0.9,ops>5' "$W/job/rank3.json" \
	>"$W/gate-one-ref.json" 2>/dev/null
$RUN -n 2 "$MPI" analyze --format json --fail-if 'efficiency<0.9,ops>5' "$W/job/rank3.json" \
	>"$W/gate-one.json" 2>"$W/gate-one.err"
rc=$?
[ $rc = 3 ] || bad "one rank --fail-if: exit $rc, not 3"
strip_mpi "$W/gate-one.json" 2 | cmp - "$W/gate-one-ref.json" ||
	bad "one rank --fail-if: JSON differs from gpuscope analyze's"
for gate in 'step_time>+0s' 'step_time>1s' 'foo>1s'; do
	"$GS" analyze --fail-if "$gate" "$@" >/dev/null 2>"$W/gate-bad-ref.err"
	want=$?
	$RUN -n 3 "$MPI" analyze --fail-if "$gate" "$@" >"$W/gate-bad.out" 2>"$W/gate-bad.err"
	rc=$?
	[ $rc = $want ] || bad "--fail-if '$gate': exit $rc, gpuscope analyze's is $want"
	[ "$(grep -c '^gpuscope-mpi: error: ' "$W/gate-bad.err")" = 1 ] &&
		[ "$(grep '^gpuscope-mpi: ' "$W/gate-bad.err" | sed 's/^gpuscope-mpi: /gpuscope: /')" = \
			"$(cat "$W/gate-bad-ref.err")" ] ||
		bad "--fail-if '$gate': not gpuscope analyze's one line: $(head -c 400 "$W/gate-bad.err")"
	[ -s "$W/gate-bad.out" ] && bad "--fail-if '$gate': a report on stdout"
done

# ---- output files over several MPI processes ----
# limited CMD...: CMD under `timeout` and the memory limit, no core file.
limited() {
	(
		if [ "$MEM_MB" -gt 0 ]; then
			ulimit -v $((MEM_MB * 1024)) || exit 98
		fi
		ulimit -c 0
		exec timeout -s KILL 120 "$@"
	)
}
# no_tmp DIR WHAT: no temporary file left under DIR.
no_tmp() {
	left=$(find "$1" -name '.*.tmp-*' | head -n 3)
	[ -z "$left" ] || bad "$2: temporary files left: $left"
}

# --keep-going with every input bad: each one's line, then one saying that
# nothing could be read; exit 1 and no report (it used to be exit 0 and a
# report of 0 ranks).
mkdir -p "$W/allbad" || exit 1
for i in 0 1 2; do
	echo "not a trace $i" >"$W/allbad/rank$i.json"
done
limited $RUN -n 2 "$MPI" analyze --keep-going --format json -o "$W/allbad.json" \
	"$W"/allbad/rank*.json >"$W/allbad.out" 2>"$W/allbad.err"
rc=$?
[ $rc = 1 ] || bad "--keep-going, every input bad: exit $rc, not 1"
[ "$(grep -c '^gpuscope-mpi: error: ' "$W/allbad.err")" = 4 ] &&
	grep -qx 'gpuscope-mpi: error: none of the 3 inputs could be read: nothing to analyse' \
		"$W/allbad.err" ||
	bad "--keep-going, every input bad: not three lines and the one saying so: $(head -c 600 "$W/allbad.err")"
[ -e "$W/allbad.json" ] && bad "--keep-going, every input bad: a report was written"
no_tmp "$W" "--keep-going, every input bad"

# -o DIR/ over the inputs' own directory, named as the reports would be: one
# line from the root (the rank files are checked before any is written),
# with --force too; the inputs as they were, no job report.
mkdir -p "$W/own" || exit 1
for i in 0 1 2 3; do
	cp "$W/job/rank$i.json" "$W/own/rank-0000$i.json" || exit 1
done
for force in "" --force; do
	limited $RUN -n 2 "$MPI" analyze --format json $force -o "$W/own/" "$W/own" \
		>"$W/own.out" 2>"$W/own.err"
	rc=$?
	[ $rc = 1 ] || bad "-o DIR/ over its inputs $force: exit $rc, not 1"
	[ "$(grep -c '^gpuscope-mpi: error: ' "$W/own.err")" = 1 ] &&
		grep -qx "gpuscope-mpi: error: $W/own/rank-00000.json: is one of the inputs" "$W/own.err" ||
		bad "-o DIR/ over its inputs $force: not the one line: $(head -c 400 "$W/own.err")"
	for i in 0 1 2 3; do
		cmp -s "$W/job/rank$i.json" "$W/own/rank-0000$i.json" ||
			bad "-o DIR/ over its inputs $force: rank-0000$i.json changed"
	done
	[ -e "$W/own/job.json" ] && bad "-o DIR/ over its inputs $force: wrote job.json"
	no_tmp "$W" "-o DIR/ over its inputs $force"
done

# Reports written by the other process: mode 0666 less the umask (mkstemp's
# 0600 before).
mask=$(umask)
umask 027
limited $RUN -n 2 "$MPI" analyze --format json -o "$W/modes/" "$W/own" >/dev/null 2>"$W/modes.err" ||
	bad "-o DIR/ under umask 027: exit $?: $(head -c 300 "$W/modes.err")"
umask "$mask"
for f in job.json rank-00000.json rank-00001.json rank-00002.json rank-00003.json; do
	m=$(ls -l "$W/modes/$f" 2>/dev/null | cut -c1-10)
	[ "$m" = "-rw-r-----" ] || bad "-o DIR/ under umask 027: $f has mode '$m', want -rw-r-----"
done

# SIGTERM to mpirun while one process waits on its input (a FIFO) and the
# root holds its report's temporary file: mpirun passes it on, the file goes.
if mkfifo "$W/stall" 2>/dev/null; then
	cp "$W/job/rank2.json" "$W/keep.json"
	cp "$W/keep.json" "$W/int.json"
	# mpirun follows SIGTERM with SIGKILL after odls_base_sigkill_timeout
	# (1 s by default): on a loaded machine the processes need longer to
	# act on the SIGTERM, and nothing survives a SIGKILL.
	export OMPI_MCA_odls_base_sigkill_timeout=20
	limited $RUN -n 2 "$MPI" analyze --format json --force -o "$W/int.json" "$W/stall" \
		"$W/job/rank1.json" >/dev/null 2>"$W/int.err" &
	pid=$!
	unset OMPI_MCA_odls_base_sigkill_timeout
	tries=0
	while [ -z "$(find "$W" -name '.int.json.tmp-*')" ] && [ $tries -lt 400 ]; do
		sleep 0.05
		tries=$((tries + 1))
	done
	[ $tries -lt 400 ] || bad "SIGTERM: no temporary file while loading"
	# The process tree: the shell's subshell, timeout, mpirun.
	p=$pid
	for _ in 1 2 3 4; do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = mpirun ] && break
		p=$(pgrep -P "$p" | head -n 1)
		[ -n "$p" ] || break
	done
	[ -n "$p" ] && kill -TERM "$p"
	wait $pid
	rc=$?
	[ $rc != 0 ] || bad "SIGTERM to mpirun: exit 0"
	cmp -s "$W/int.json" "$W/keep.json" || bad "SIGTERM to mpirun: the existing OUT changed"
	no_tmp "$W" "SIGTERM to mpirun"
fi

[ $fail = 0 ] && echo "ok: gpuscope-mpi -n 1, 3, 4 equal gpuscope analyze (JSON, text, HTML); failures as documented"
exit $fail
