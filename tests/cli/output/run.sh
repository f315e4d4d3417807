#!/bin/sh
# SPDX-License-Identifier: MIT
# The output policy of every -o (docs/guide.md "Output files", gpuscope/outfile.h),
# for gpuscope and for gpuscope-mpi, which share its one implementation.
#
# gpuscope: for each of analyze, diff, export (chrome and csv) and convert;
# gpuscope-mpi: analyze -o OUT, and -o DIR/ (DIR/job.json and each rank's
# DIR/rank-NNNNN.json). OUT is never one of the inputs (by name, ./name,
# absolute path, hard link, symbolic link; for -o DIR/ the inputs' own
# directory, with --force too), never a symbolic link (dangling or not),
# never an existing file without --force, never a non-regular file even
# with it (/dev/null, /dev/full, a directory, a FIFO); a refusal is one
# error line naming OUT and exit status 1. A new file has mode 0666 less the
# umask. A write over the file size limit (the program ignores SIGXFSZ
# itself) is one "OUT: write failed: File too large" line and exit 1; a
# refused, failed or interrupted write (SIGTERM, SIGINT, SIGQUIT, SIGUSR1,
# SIGUSR2, SIGALRM, SIGHUP, SIGPIPE: ended by that signal) leaves an
# existing OUT byte for byte as it was and no temporary file behind.
#
# Every run is under `timeout` (60 s) and, when MEM_MB > 0, `ulimit -v`
# (MEM_MB MiB), as the bad-input corpus runs.
#
#   run.sh PROGRAM SRCDIR WORKDIR [MEM_MB]
#
# PROGRAM is gpuscope or gpuscope-mpi (run as one MPI process, without
# mpirun: the policy is the root's and each process's alike; tests/mpi
# runs it under mpirun). Exit 77 (skipped) when gpuscope-mpi is not built.
set -u
gs=${1:?program}
root=${2:?source root}
work=${3:?work dir}
mem_mb=${4:-0}
time_s=${GS_OUTPUT_TIME_S:-60}

case $gs in /*) ;; *) gs=$(pwd)/$gs ;; esac
case $root in /*) ;; *) root=$(pwd)/$root ;; esac

case ${gs##*/} in
gpuscope-mpi)
	mode=mpi
	me=gpuscope-mpi
	if [ ! -x "$gs" ]; then
		echo "skipped: gpuscope-mpi is not built (no MPI found at configure)"
		exit 77
	fi
	# Under ASan (make asan) the MPI library's own allocations that live
	# to the end are not ours to report (as tests/mpi/run.sh).
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	;;
*)
	mode=gs
	me=gpuscope
	;;
esac

rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1

failures=0
checks=0

fail() {
	printf 'FAIL: %s\n' "$*" >&2
	failures=$((failures + 1))
}

# limited CMD [ARGS...]: CMD under the memory and time limits, no core file.
limited() {
	(
		if [ "$mem_mb" -gt 0 ]; then
			ulimit -v $((mem_mb * 1024)) || exit 98
		fi
		ulimit -c 0
		exec timeout -s KILL "$time_s" "$@"
	)
}

# prog_pid PID: the program's process: PID (a background run of `limited`)
# or one of its descendants (the subshell, timeout, env in between).
prog_pid() {
	p=$1
	for _ in 1 2 3 4 5; do
		if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$me" ]; then
			echo "$p"
			return
		fi
		p=$(pgrep -P "$p" | head -n 1)
		[ -n "$p" ] || return
	done
}

# signum NAME: the signal's number (Linux; dash's kill -l takes no name).
signum() {
	case $1 in
	HUP) echo 1 ;;
	INT) echo 2 ;;
	QUIT) echo 3 ;;
	USR1) echo 10 ;;
	USR2) echo 12 ;;
	PIPE) echo 13 ;;
	ALRM) echo 14 ;;
	TERM) echo 15 ;;
	esac
}

# killed: the last run hit the time or memory limit.
killed() {
	if [ "$rc" = 137 ] || [ "$rc" = 98 ]; then
		fail "$what: killed (time limit ${time_s} s, or memory) or no limits: exit $rc"
		return 0
	fi
	return 1
}

cp "$root/tests/cli/data/small.json" small.json || exit 1
cp small.json other.json
cp small.json pristine.json
# Larger outputs than the file size limit of the write-failure checks allows.
big=$root/samples/synthetic/launch_bound.gscope
big2=$root/samples/synthetic/event_chain.gscope
small2=$root/samples/synthetic/serial_stream.gscope

# run CMD OUT [OPTIONS...]: one command writing OUT, stdout and stderr in
# $n.out and $n.err ($n counts the runs), the exit status in $rc.
n=0
run() {
	cmd=$1
	out=$2
	shift 2
	case $cmd in
	analyze) set -- analyze --format json "$@" -o "$out" small.json ;;
	diff) set -- diff "$@" -o "$out" small.json other.json ;;
	export) set -- export "$@" -o "$out" small.json ;;
	csv) set -- export --format csv "$@" -o "$out" small.json ;;
	convert) set -- convert "$@" small.json -o "$out" ;;
	mpi) set -- analyze --format json "$@" -o "$out" small.json ;;
	*)
		fail "run: unknown command $cmd"
		return
		;;
	esac
	run_args "$@"
}

# run_args ARGS...: PROGRAM ARGS, as run does.
run_args() {
	n=$((n + 1))
	limited "$gs" "$@" >"$n.out" 2>"$n.err"
	rc=$?
	what="$me $*"
}

# refused REASON PATH: the last run failed with one line "PROGRAM: error:
# PATH: REASON" and nothing on stdout.
refused() {
	checks=$((checks + 1))
	killed && return
	if [ "$rc" != 1 ]; then
		fail "$what: exit $rc, want 1"
		sed 's/^/    /' "$n.err" >&2
		return
	fi
	[ -s "$n.out" ] && fail "$what: printed on stdout"
	lines=$(wc -l <"$n.err")
	[ "$lines" -eq 1 ] || fail "$what: $lines lines on stderr, want 1: $(cat "$n.err")"
	grep -qxF "$me: error: $2: $1" "$n.err" ||
		fail "$what: stderr is not '$me: error: $2: $1': $(cat "$n.err")"
}

ok() {
	checks=$((checks + 1))
	killed && return
	[ "$rc" = 0 ] || {
		fail "$what: exit $rc, want 0"
		sed 's/^/    /' "$n.err" >&2
	}
}

# same A B: A is byte for byte B.
same() {
	checks=$((checks + 1))
	cmp -s "$1" "$2" || fail "$what: $1 changed"
}

# absent PATH...: none of them exists (not even as a dangling link).
absent() {
	for f in "$@"; do
		checks=$((checks + 1))
		if [ -e "$f" ] || [ -L "$f" ]; then
			fail "$what: wrote $f"
		fi
	done
}

# no_tmp: no temporary file left anywhere under the work directory (those
# found are reported, then removed: the next case starts clean).
no_tmp() {
	checks=$((checks + 1))
	left=$(find . -name '.*.tmp-*' | head -n 3)
	if [ -n "$left" ]; then
		fail "$what: temporary files left: $left"
		find . -name '.*.tmp-*' -exec rm -f {} +
	fi
}

# mode_is FILE: FILE has the mode of a new file under umask 027.
mode_is() {
	checks=$((checks + 1))
	[ -s "$1" ] || fail "$what: $1 not written"
	got_mode=$(ls -l "$1" | cut -c1-10)
	[ "$got_mode" = "-rw-r-----" ] ||
		fail "$what: $1 has mode $got_mode, want -rw-r----- (umask 027)"
}

# The files a command writes for -o OUT (csv: two).
outputs() {
	if [ "$1" = csv ]; then
		echo "$2.ops.csv $2.segments.csv"
	else
		echo "$2"
	fi
}

echo keep >keep.txt
mkdir -p adir
fifo=
if mkfifo afifo 2>/dev/null; then
	fifo=afifo
fi

if [ "$mode" = mpi ]; then
	cmds=mpi
else
	cmds="analyze diff export csv convert"
fi

for cmd in $cmds; do
	# ---- one of the inputs: by name, other spellings, links ----------------
	if [ "$cmd" = csv ]; then
		# PREFIX.ops.csv is the input.
		cp small.json "in.ops.csv"
		run_args export --format csv --force -o in in.ops.csv
		refused "is one of the inputs" in.ops.csv
		same in.ops.csv pristine.json
		absent in.segments.csv
	else
		rm -f hard.json sym.json
		ln small.json hard.json
		ln -s small.json sym.json
		for out in small.json ./small.json "$work/small.json" hard.json sym.json; do
			for force in "" --force; do
				run "$cmd" "$out" $force
				refused "is one of the inputs" "$out"
				same small.json pristine.json
			done
		done
		if [ "$cmd" = diff ]; then
			run diff other.json --force
			refused "is one of the inputs" other.json
			same other.json pristine.json
		fi
	fi
	no_tmp

	# ---- symbolic links: dangling, and to a file ---------------------------
	rm -f dangling.out link.out nowhere.out
	ln -s nowhere.out dangling.out
	cp keep.txt victim.txt
	ln -s victim.txt link.out
	for force in "" --force; do
		if [ "$cmd" = csv ]; then
			rm -f dangling.ops.csv link.segments.csv
			ln -s nowhere.out dangling.ops.csv
			ln -s victim.txt link.segments.csv
			run csv dangling $force
			refused "is a symbolic link" dangling.ops.csv
			run csv link $force
			refused "is a symbolic link" link.segments.csv
			absent link.ops.csv
		else
			run "$cmd" dangling.out $force
			refused "is a symbolic link" dangling.out
			run "$cmd" link.out $force
			refused "is a symbolic link" link.out
		fi
		absent nowhere.out
		same victim.txt keep.txt
	done
	no_tmp

	# ---- an existing file: refused without --force, replaced with it ---------
	for f in $(outputs "$cmd" exist); do
		cp keep.txt "$f"
	done
	run "$cmd" exist
	first=$(outputs "$cmd" exist | cut -d' ' -f1)
	refused "exists (use --force to replace it)" "$first"
	for f in $(outputs "$cmd" exist); do
		same "$f" keep.txt
	done
	if [ "$cmd" = csv ]; then
		# Only the second exists: the first is not written either.
		rm -f half.ops.csv
		cp keep.txt half.segments.csv
		run csv half
		refused "exists (use --force to replace it)" half.segments.csv
		absent half.ops.csv
	fi
	run "$cmd" exist --force
	ok
	for f in $(outputs "$cmd" exist); do
		checks=$((checks + 1))
		cmp -s "$f" keep.txt && fail "$what: $f not replaced"
		[ -s "$f" ] || fail "$what: $f empty"
	done
	no_tmp

	# ---- not a regular file: refused even with --force -----------------------
	# (csv -o /dev/null would be the prefix of /dev/null.ops.csv, and a
	# directory is where it writes: its case is a directory at DIR/ops.csv.)
	if [ "$cmd" != csv ]; then
		for out in /dev/null /dev/full adir $fifo; do
			for force in "" --force; do
				run "$cmd" "$out" $force
				refused "is not a regular file" "$out"
			done
		done
	fi
	checks=$((checks + 1))
	[ -c /dev/null ] || fail "/dev/null is no longer a character device"
	if [ "$cmd" = csv ]; then
		mkdir -p csvdir/ops.csv
		run csv csvdir --force
		refused "is not a regular file" csvdir/ops.csv
		absent csvdir/segments.csv
	fi
	no_tmp

	# ---- a new file, mode 0666 less the umask; "-" is stdout -------------------
	for f in $(outputs "$cmd" new); do
		rm -f "$f"
	done
	mask=$(umask)
	umask 027
	run "$cmd" new
	umask "$mask"
	ok
	for f in $(outputs "$cmd" new); do
		mode_is "$f"
	done
	if [ "$cmd" != csv ]; then
		run "$cmd" -
		ok
		checks=$((checks + 1))
		[ -s "$n.out" ] || fail "$what: nothing on stdout"
		[ -e ./- ] && fail "$what: created a file named '-'"
	fi
	run "$cmd" no-such-dir/x.out --force
	checks=$((checks + 1))
	[ "$rc" = 1 ] || fail "$what: exit $rc, want 1"
	grep -q "^$me: error: no-such-dir/x\\.out.*: cannot create: " "$n.err" ||
		fail "$what: no 'cannot create' line naming the path: $(cat "$n.err")"
	no_tmp
done

# ---- gpuscope-mpi -o DIR/: DIR/job.json and DIR/rank-00000.json (small.json
# is rank 0), each under the same policy; every path is checked before any
# is written, so a refusal leaves DIR as it was. ----
if [ "$mode" = mpi ]; then
	# The inputs' own directory, the rank file named as the report would be:
	# by the directory, by name, by absolute path.
	mkdir -p ranks && cp small.json ranks/rank-00000.json
	for in in ranks ranks/rank-00000.json "$work/ranks/rank-00000.json"; do
		for force in "" --force; do
			run_args analyze --format json $force -o ranks/ "$in"
			refused "is one of the inputs" ranks/rank-00000.json
			same ranks/rank-00000.json pristine.json
			absent ranks/job.json
		done
	done
	# A hard link and a symbolic link to the input at a rank's path; the
	# input at the job report's path.
	mkdir -p hl sl jd
	ln -f small.json hl/rank-00000.json
	ln -sf ../small.json sl/rank-00000.json
	cp small.json jd/job.json
	for force in "" --force; do
		run_args analyze --format json $force -o hl/ small.json
		refused "is one of the inputs" hl/rank-00000.json
		run_args analyze --format json $force -o sl/ small.json
		refused "is one of the inputs" sl/rank-00000.json
		run_args analyze --format json $force -o jd/ jd/job.json
		refused "is one of the inputs" jd/job.json
		same small.json pristine.json
		same jd/job.json pristine.json
		absent hl/job.json sl/job.json jd/rank-00000.json
	done
	# A symbolic link to another file at a rank's path.
	mkdir -p ld
	cp keep.txt victim.txt
	ln -sf ../victim.txt ld/rank-00000.json
	for force in "" --force; do
		run_args analyze --format json $force -o ld/ small.json
		refused "is a symbolic link" ld/rank-00000.json
		same victim.txt keep.txt
		absent ld/job.json
	done
	# Existing files: refused without --force (the rank's, found once the
	# ranks are known, leaves no job.json either), replaced with it.
	mkdir -p ex1 ex2
	cp keep.txt ex1/rank-00000.json
	cp keep.txt ex2/job.json
	run_args analyze --format json -o ex1/ small.json
	refused "exists (use --force to replace it)" ex1/rank-00000.json
	same ex1/rank-00000.json keep.txt
	absent ex1/job.json
	run_args analyze --format json -o ex2/ small.json
	refused "exists (use --force to replace it)" ex2/job.json
	same ex2/job.json keep.txt
	absent ex2/rank-00000.json
	for d in ex1 ex2; do
		run_args analyze --format json --force -o $d/ small.json
		ok
		for f in $d/job.json $d/rank-00000.json; do
			checks=$((checks + 1))
			cmp -s "$f" keep.txt && fail "$what: $f not replaced"
			[ -s "$f" ] || fail "$what: $f empty"
		done
	done
	# Not regular files, even with --force.
	mkdir -p nd1/job.json nd2/rank-00000.json
	for force in "" --force; do
		run_args analyze --format json $force -o nd1/ small.json
		refused "is not a regular file" nd1/job.json
		run_args analyze --format json $force -o nd2/ small.json
		refused "is not a regular file" nd2/rank-00000.json
		absent nd2/job.json
	done
	# New files (and the new directory) as the umask gives.
	mask=$(umask)
	umask 027
	run_args analyze --format json -o newdir/ small.json
	umask "$mask"
	ok
	mode_is newdir/job.json
	mode_is newdir/rank-00000.json
	checks=$((checks + 1))
	[ "$(ls -ld newdir | cut -c1-10)" = drwxr-x--- ] ||
		fail "$what: newdir/ has mode $(ls -ld newdir | cut -c1-10), want drwxr-x---"
	no_tmp
fi

# ---- a write that fails (the file size limit): one line, exit 1, OUT as it
# was, no temporary file. The program ignores SIGXFSZ itself, so that the
# write fails with EFBIG instead of the process being killed. ----
# write_failed RE: the last run failed with one line "PROGRAM: error: RE"
# (an extended regex) and left full.out and the csv files as they were.
write_failed() {
	checks=$((checks + 1))
	killed && return
	[ "$rc" = 1 ] || fail "$what: exit $rc, want 1 ($(head -c 300 "$n.err"))"
	lines=$(wc -l <"$n.err")
	[ "$lines" -eq 1 ] || fail "$what: $lines lines on stderr, want 1: $(cat "$n.err")"
	grep -Eqx "$me: error: $1" "$n.err" ||
		fail "$what: stderr is not '$me: error: $1': $(cat "$n.err")"
	for f in full.out full.ops.csv full.segments.csv; do
		same "$f" keep.txt
	done
	no_tmp
}

efbig='File too large'
if [ "$mode" = gs ]; then
	if (ulimit -f 2) 2>/dev/null; then
		for c in analyze diff export csv convert; do
			out=full.out
			case $c in
			analyze) set -- analyze --format json --force -o full.out "$big" ;;
			diff) set -- diff --format json --force -o full.out "$big2" "$small2" ;;
			export) set -- export --force -o full.out "$big" ;;
			csv)
				set -- export --format csv --force -o full "$big"
				out=full.ops.csv
				;;
			convert) set -- convert --force "$big" -o full.out ;;
			esac
			for f in full.out full.ops.csv full.segments.csv; do
				cp keep.txt "$f"
			done
			n=$((n + 1))
			(
				ulimit -f 2
				limited "$gs" "$@"
			) >"$n.out" 2>"$n.err"
			rc=$?
			what="$me $* (file size limit)"
			if [ "$c" = convert ]; then
				write_failed "$out: write failed at byte [0-9]+: $efbig"
			else
				write_failed "$out: write failed: $efbig"
			fi
		done
	else
		echo "note: ulimit -f not available: the write-failure checks are skipped"
	fi
elif [ -n "$fifo" ] && command -v prlimit >/dev/null 2>&1; then
	# Open MPI cannot start under a small file size limit (its PMIx store
	# is a file): the limit is set on the running process, waiting on its
	# input (a FIFO) with its temporary file created, then the input comes.
	for o in full.out fdir/; do
		for f in full.out full.ops.csv full.segments.csv; do
			cp keep.txt "$f"
		done
		rm -rf fdir
		n=$((n + 1))
		set -- analyze --format json --force -o "$o" "$fifo"
		what="$me $* (file size limit)"
		limited "$gs" "$@" >"$n.out" 2>"$n.err" &
		pid=$!
		tries=0
		while [ -z "$(find . -name '.*.tmp-*')" ] && [ $tries -lt 200 ]; do
			sleep 0.05
			tries=$((tries + 1))
		done
		child=$(prog_pid "$pid")
		prlimit --pid "$child" --fsize=2048 || fail "$what: prlimit failed"
		# (A writer that waits for no reader ends with the time limit.)
		timeout -s KILL "$time_s" sh -c 'cat small.json >"$1"' sh "$fifo"
		wait "$pid"
		rc=$?
		if [ "$o" = full.out ]; then
			write_failed "full.out: write failed: $efbig"
		else
			# The rank's report is written first, by its process.
			write_failed "fdir/rank-00000.json: write failed: $efbig \\(MPI process 0\\)"
			absent fdir/job.json fdir/rank-00000.json
		fi
	done
else
	echo "note: no FIFO or no prlimit: the write-failure checks are skipped"
fi

# ---- interrupted: the input a FIFO nobody writes, so the command waits in
# the load with its temporary file created; each signal removes that file
# and ends the process by that signal. `env --default-signal` undoes the
# SIGINT and SIGQUIT that a shell ignores for a background command. ----
if [ -n "$fifo" ]; then
	if env --default-signal true 2>/dev/null; then
		dflt="env --default-signal"
		sigs="TERM INT QUIT USR1 USR2 ALRM HUP PIPE"
	else
		dflt=
		sigs="TERM USR1 USR2 ALRM HUP"
		echo "note: no env --default-signal: SIGINT, SIGQUIT and SIGPIPE are not checked"
	fi
	if [ "$mode" = mpi ]; then
		cmds="mpi mpidir"
	else
		cmds="analyze convert csv"
	fi
	for c in $cmds; do
		case $c in
		analyze) set -- analyze --force -o int.out "$fifo" ;;
		convert) set -- convert --force "$fifo" -o int.out ;;
		csv) set -- export --format csv --force -o int "$fifo" ;;
		mpi) set -- analyze --force -o int.out "$fifo" ;;
		mpidir) set -- analyze --force -o intdir/ "$fifo" ;;
		esac
		for sig in $sigs; do
			for f in int.out int.ops.csv int.segments.csv; do
				cp keep.txt "$f"
			done
			rm -rf intdir && mkdir intdir && cp keep.txt intdir/job.txt
			what="$me $* (SIG$sig)"
			# shellcheck disable=SC2086 # $dflt is a word list on purpose
			limited $dflt "$gs" "$@" >/dev/null 2>int.err &
			pid=$!
			tries=0
			while [ -z "$(find . -name '.*.tmp-*')" ] && [ $tries -lt 200 ]; do
				sleep 0.05
				tries=$((tries + 1))
			done
			checks=$((checks + 1))
			[ $tries -lt 200 ] || fail "$what: no temporary file while loading"
			child=$(prog_pid "$pid")
			checks=$((checks + 1))
			if [ -z "$child" ]; then
				fail "$what: the program is not running"
				child=$pid
			fi
			kill -"$sig" "$child"
			wait "$pid"
			rc=$?
			want=$((128 + $(signum "$sig")))
			checks=$((checks + 1))
			[ "$rc" = "$want" ] ||
				fail "$what: exit $rc, want $want (ended by SIG$sig): $(head -c 300 int.err)"
			for f in int.out int.ops.csv int.segments.csv intdir/job.txt; do
				same "$f" keep.txt
			done
			no_tmp
		done
	done
else
	echo "note: mkfifo not available: the interrupt and FIFO checks are skipped"
fi

checks=$((checks + 1))
[ -c /dev/full ] || fail "/dev/full is no longer a character device"

if [ "$failures" -ne 0 ]; then
	echo "$failures of $checks checks failed (work dir: $work)" >&2
	exit 1
fi
echo "$me: $checks checks passed"
exit 0
