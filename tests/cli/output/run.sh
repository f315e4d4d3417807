#!/bin/sh
# SPDX-License-Identifier: MIT
# The output policy of every -o (README "Output files", cli.h): for each of
# analyze, diff, export (chrome and csv) and convert, OUT is never one of the
# inputs (by name, ./name, absolute path, hard link, symbolic link), never a
# symbolic link (dangling or not), never an existing file without --force,
# never a non-regular file even with it (/dev/null, /dev/full, a directory,
# a FIFO); a refusal is one error line naming OUT and exit status 1; a
# refused, failed (file size limit) or interrupted write leaves an existing
# OUT byte for byte as it was and no temporary file behind.
#
#   run.sh GPUSCOPE SRCDIR WORKDIR     (SRCDIR: the source tree's root)
set -u
gs=${1:?gpuscope binary}
root=${2:?source root}
work=${3:?work dir}

case $gs in /*) ;; *) gs=$(pwd)/$gs ;; esac
case $root in /*) ;; *) root=$(pwd)/$root ;; esac

rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1

failures=0
checks=0

fail() {
	printf 'FAIL: %s\n' "$*" >&2
	failures=$((failures + 1))
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
	*)
		fail "run: unknown command $cmd"
		return
		;;
	esac
	n=$((n + 1))
	"$gs" "$@" >"$n.out" 2>"$n.err"
	rc=$?
	what="gpuscope $*"
}

# refused REASON PATH: the last run failed with one line "gpuscope: error:
# PATH: REASON" and nothing on stdout.
refused() {
	checks=$((checks + 1))
	if [ "$rc" != 1 ]; then
		fail "$what: exit $rc, want 1"
		sed 's/^/    /' "$n.err" >&2
		return
	fi
	[ -s "$n.out" ] && fail "$what: printed on stdout"
	lines=$(wc -l <"$n.err")
	[ "$lines" -eq 1 ] || fail "$what: $lines lines on stderr, want 1: $(cat "$n.err")"
	grep -qxF "gpuscope: error: $2: $1" "$n.err" ||
		fail "$what: stderr is not 'gpuscope: error: $2: $1': $(cat "$n.err")"
}

ok() {
	checks=$((checks + 1))
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

# no_tmp: no temporary file left anywhere under the work directory.
no_tmp() {
	checks=$((checks + 1))
	left=$(find . -name '.*.tmp-*' | head -n 3)
	[ -z "$left" ] || fail "$what: temporary files left: $left"
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

for cmd in analyze diff export csv convert; do
	# ---- one of the inputs: by name, other spellings, links ----------------
	if [ "$cmd" = csv ]; then
		# PREFIX.ops.csv is the input.
		cp small.json "in.ops.csv"
		n=$((n + 1))
		"$gs" export --format csv --force -o in in.ops.csv >"$n.out" 2>"$n.err"
		rc=$?
		what="gpuscope export --format csv --force -o in in.ops.csv"
		refused "is one of the inputs" in.ops.csv
		same in.ops.csv pristine.json
		checks=$((checks + 1))
		[ -e in.segments.csv ] && fail "$what: wrote in.segments.csv"
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
			checks=$((checks + 1))
			[ -e link.ops.csv ] && fail "$what: wrote link.ops.csv beside the refused link"
		else
			run "$cmd" dangling.out $force
			refused "is a symbolic link" dangling.out
			run "$cmd" link.out $force
			refused "is a symbolic link" link.out
		fi
		checks=$((checks + 1))
		[ -e nowhere.out ] && fail "$what: created the target of a dangling link"
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
		checks=$((checks + 1))
		[ -e half.ops.csv ] && fail "$what: wrote half.ops.csv"
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
		checks=$((checks + 1))
		[ -e csvdir/segments.csv ] && fail "$what: wrote csvdir/segments.csv"
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
		checks=$((checks + 1))
		[ -s "$f" ] || fail "$cmd: $f not written"
		mode=$(ls -l "$f" | cut -c1-10)
		[ "$mode" = "-rw-r-----" ] || fail "$cmd: $f has mode $mode, want -rw-r----- (umask 027)"
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
	grep -q '^gpuscope: error: no-such-dir/x\.out.*: cannot create: ' "$n.err" ||
		fail "$what: no 'cannot create' line naming the path: $(cat "$n.err")"
	no_tmp
done

# ---- a write that fails (the file size limit): OUT as it was, no temporary ----
# SIGXFSZ ignored: write() fails with EFBIG instead of the process ending.
if (ulimit -f 2) 2>/dev/null; then
	for c in analyze diff export csv convert; do
		case $c in
		analyze) set -- analyze --format json --force -o full.out "$big" ;;
		diff) set -- diff --format json --force -o full.out "$big2" "$small2" ;;
		export) set -- export --force -o full.out "$big" ;;
		csv) set -- export --format csv --force -o full "$big" ;;
		convert) set -- convert --force "$big" -o full.out ;;
		esac
		for f in full.out full.ops.csv full.segments.csv; do
			cp keep.txt "$f"
		done
		n=$((n + 1))
		(
			trap '' XFSZ
			ulimit -f 2
			exec "$gs" "$@"
		) >"$n.out" 2>"$n.err"
		rc=$?
		what="gpuscope $* (file size limit)"
		checks=$((checks + 1))
		[ "$rc" = 1 ] || fail "$what: exit $rc, want 1"
		grep -Eq '^gpuscope: error: full[^:]*: write (error|failed)' "$n.err" ||
			fail "$what: no write error naming OUT: $(cat "$n.err")"
		for f in full.out full.ops.csv full.segments.csv; do
			same "$f" keep.txt
		done
		no_tmp
	done
else
	echo "note: ulimit -f not available: the write-failure checks are skipped"
fi

# ---- interrupted: the input a FIFO nobody writes, so the command waits in
# the load with its temporary file created; SIGTERM removes that file. ----
if [ -n "$fifo" ]; then
	for c in analyze convert csv; do
		case $c in
		analyze) set -- analyze --force -o int.out "$fifo" ;;
		convert) set -- convert --force "$fifo" -o int.out ;;
		csv) set -- export --format csv --force -o int "$fifo" ;;
		esac
		for f in int.out int.ops.csv int.segments.csv; do
			cp keep.txt "$f"
		done
		what="gpuscope $* (SIGTERM)"
		"$gs" "$@" >/dev/null 2>int.err &
		pid=$!
		tries=0
		while [ -z "$(find . -name '.int*.tmp-*')" ] && [ $tries -lt 100 ]; do
			sleep 0.05
			tries=$((tries + 1))
		done
		checks=$((checks + 1))
		[ $tries -lt 100 ] || fail "$what: no temporary file while loading"
		kill -TERM "$pid"
		wait "$pid"
		rc=$?
		checks=$((checks + 1))
		[ "$rc" = 143 ] || fail "$what: exit $rc, want 143 (ended by SIGTERM)"
		for f in int.out int.ops.csv int.segments.csv; do
			same "$f" keep.txt
		done
		no_tmp
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
echo "$checks checks passed"
exit 0
