#!/bin/sh
# SPDX-License-Identifier: MIT
# A TRACE of '-' is standard input; pipes and FIFOs (what process
# substitution, <(zcat x.gz), hands over as /dev/fd/N) work for every
# format read in one pass. For Kineto JSON (plain, gzip, gzip of several
# members with empty ones, as `cat a.gz b.gz` makes) and .gscope, through
# stdin as a pipe, stdin redirected from the file, /dev/stdin (a /dev/fd
# name of a pipe) and a FIFO made here, info, dump, analyze, convert,
# export and diff print what they print for the file itself, but for its
# name (messages call stdin "stdin"). An Nsight SQLite export from a pipe
# is one error line; '-' twice is a usage error; -o never replaces the
# file stdin comes from.
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
export LC_ALL=C TERM=dumb

failures=0
checks=0

fail() {
	printf 'FAIL: %s\n' "$*" >&2
	failures=$((failures + 1))
}

cp "$root/tests/cli/data/small.json" small.json || exit 1
cp "$root/tests/cli/data/cpu_only.json" cpu_only.json || exit 1
# The other side of diff: a trace of GPU ops (a host-only one compares nothing).
cp small.json other.json || exit 1
"$gs" convert -q small.json -o small.gscope || exit 1
have_gzip=0
if command -v gzip >/dev/null 2>&1; then
	have_gzip=1
	gzip -n -c small.json >small.json.gz
	# Several members, an empty one first, between and last: zcat reads
	# them as the one file.
	size=$(wc -c <small.json | tr -d ' ')
	third=$((size / 3))
	: | gzip -n -c >multi.json.gz
	dd if=small.json bs=1 count=$third 2>/dev/null | gzip -n -c >>multi.json.gz
	: | gzip -n -c >>multi.json.gz
	dd if=small.json bs=1 skip=$third 2>/dev/null | gzip -n -c >>multi.json.gz
	: | gzip -n -c >>multi.json.gz
	checks=$((checks + 1))
	gzip -dc multi.json.gz | cmp -s - small.json || fail "multi.json.gz: zcat differs"
fi

# run NAME VIA FILE CMD...: gpuscope CMD... with FILE given VIA (file,
# pipe, redirect, devstdin, fifo) where CMD has the word TRACE; stdout and
# stderr in NAME.out / NAME.err with the input's name as NAME; status in $rc.
run() {
	name=$1
	via=$2
	file=$3
	shift 3
	checks=$((checks + 1))
	case $via in
	file) arg=$file ;;
	pipe | redirect) arg=- ;;
	devstdin) arg=/dev/stdin ;;
	fifo)
		arg=$name.fifo
		rm -f "$arg"
		mkfifo "$arg" || {
			fail "$name: mkfifo failed"
			return
		}
		;;
	esac
	# TRACE stands for the input.
	first=1
	for w in "$@"; do
		if [ "$first" = 1 ]; then
			set --
			first=0
		fi
		if [ "$w" = TRACE ]; then set -- "$@" "$arg"; else set -- "$@" "$w"; fi
	done
	case $via in
	file)
		"$gs" "$@" >"$name.raw" 2>"$name.rawerr"
		rc=$?
		;;
	pipe | devstdin)
		cat "$file" | "$gs" "$@" >"$name.raw" 2>"$name.rawerr"
		rc=$?
		;;
	redirect)
		"$gs" "$@" <"$file" >"$name.raw" 2>"$name.rawerr"
		rc=$?
		;;
	fifo)
		cat "$file" >"$arg" &
		"$gs" "$@" >"$name.raw" 2>"$name.rawerr"
		rc=$?
		wait
		rm -f "$arg"
		;;
	esac
	# The input's name, whatever it was, as NAME.
	case $via in
	file) shown=$file ;;
	pipe | redirect) shown=stdin ;;
	devstdin) shown=/dev/stdin ;;
	fifo) shown=$arg ;;
	esac
	sed "s|$shown|NAME|g" "$name.raw" >"$name.out"
	sed "s|$shown|NAME|g" "$name.rawerr" >"$name.err"
}

# same NAME REF: NAME printed what REF printed (stdout, stderr, status).
same() {
	checks=$((checks + 1))
	cmp -s "$1.out" "$2.out" || {
		diff -u "$2.out" "$1.out" | head -n 20 >&2
		fail "$1: stdout differs from $2"
	}
	cmp -s "$1.err" "$2.err" || {
		diff -u "$2.err" "$1.err" >&2
		fail "$1: stderr differs from $2"
	}
}

inputs="small.json small.gscope"
[ "$have_gzip" = 1 ] && inputs="$inputs small.json.gz multi.json.gz"
vias="pipe redirect devstdin fifo"

for f in $inputs; do
	for cmd in info dump analyze "analyze --format json" "export -o -"; do
		tag=$(printf '%s_%s' "$f" "$cmd" | tr -c 'a-zA-Z0-9_\n' _)
		# shellcheck disable=SC2086 # $cmd is a word list
		run "$tag.file" file "$f" $cmd TRACE
		checks=$((checks + 1))
		[ "$rc" = 0 ] || fail "$tag.file: exit $rc: $(cat "$tag.file.err")"
		for via in $vias; do
			# shellcheck disable=SC2086
			run "$tag.$via" "$via" "$f" $cmd TRACE
			checks=$((checks + 1))
			[ "$rc" = 0 ] || fail "$tag.$via: exit $rc: $(cat "$tag.$via.err")"
			same "$tag.$via" "$tag.file"
		done
	done
	# convert: the same .gscope records (dump of each result).
	base=$(printf '%s' "$f" | tr -c 'a-zA-Z0-9_\n' _)
	"$gs" dump -q "$f" >"$base.ref.dump"
	for via in $vias; do
		run "$base.convert.$via" "$via" "$f" convert -q TRACE -o "$base.$via.gscope"
		checks=$((checks + 1))
		[ "$rc" = 0 ] || fail "$base.convert.$via: exit $rc: $(cat "$base.convert.$via.err")"
		"$gs" dump -q "$base.$via.gscope" >"$base.$via.dump"
		checks=$((checks + 1))
		cmp -s "$base.$via.dump" "$base.ref.dump" || fail "$base.convert.$via: other records"
	done
	# diff: stdin against a file, either side.
	run "$base.diff.file" file "$f" diff TRACE other.json
	run "$base.diff.pipe" pipe "$f" diff other.json TRACE
	run "$base.diff.file2" file "$f" diff other.json TRACE
	same "$base.diff.pipe" "$base.diff.file2"
	run "$base.diff.pipe" pipe "$f" diff TRACE other.json
	checks=$((checks + 1))
	[ "$rc" = 0 ] || fail "$base.diff.pipe: exit $rc: $(cat "$base.diff.pipe.err")"
	same "$base.diff.pipe" "$base.diff.file"
	# Two FIFOs at once (two process substitutions): read on two CPUs,
	# as a file and a FIFO are read (the same trace as two files is
	# refused; a FIFO's content is never compared with another input's).
	cp "$f" "$base.a.file"
	mkfifo "$base.a.fifo" "$base.b.fifo"
	cat "$f" >"$base.b.fifo" &
	"$gs" analyze -q "$base.a.file" "$base.b.fifo" >"$base.analyze2.ref" 2>&1
	wait
	sed -e "s|$base.a.file|NAME|g" -e "s|$base.b.fifo|NAME|g" "$base.analyze2.ref" \
		>"$base.analyze2.file.out"
	: >"$base.analyze2.file.err"
	cat "$f" >"$base.a.fifo" &
	cat "$f" >"$base.b.fifo" &
	"$gs" analyze -q "$base.a.fifo" "$base.b.fifo" >"$base.analyze2.raw" 2>"$base.analyze2.err"
	rc=$?
	wait
	checks=$((checks + 1))
	[ "$rc" = 0 ] || fail "$base.analyze2: exit $rc: $(cat "$base.analyze2.err")"
	sed -e "s|$base.a.fifo|NAME|g" -e "s|$base.b.fifo|NAME|g" "$base.analyze2.raw" \
		>"$base.analyze2.out"
	same "$base.analyze2" "$base.analyze2.file"
	rm -f "$base.a.fifo" "$base.b.fifo"
done

# Warnings name stdin, once each, and -q leaves them out.
run warn pipe small.json info TRACE
checks=$((checks + 1))
grep -q '^gpuscope: warning: NAME: skipped 1 events of unknown category' warn.err ||
	fail "warn: no warning naming stdin: $(cat warn.err)"
run warn_q pipe small.json info -q TRACE
checks=$((checks + 1))
[ -s warn_q.err ] && fail "warn_q: -q wrote to stderr: $(cat warn_q.err)"
run warn_job pipe small.json analyze --format json -o warn.json TRACE cpu_only.json
checks=$((checks + 1))
grep -q '^gpuscope: warning: NAME: skipped 1 events of unknown category' warn_job.err ||
	fail "warn_job: no warning naming stdin: $(cat warn_job.err)"

# An Nsight SQLite export must be a file: one error line, exit 1.
printf 'SQLite format 3\000' >fake.sqlite
dd if=/dev/zero bs=1 count=84 2>/dev/null >>fake.sqlite
for via in pipe fifo; do
	for cmd in info analyze "export -o -" "convert -o never.gscope"; do
		tag=$(printf 'nsys_%s_%s' "$via" "$cmd" | tr -c 'a-zA-Z0-9_\n' _)
		# shellcheck disable=SC2086
		run "$tag" "$via" fake.sqlite $cmd TRACE
		checks=$((checks + 1))
		[ "$rc" = 1 ] || fail "$tag: exit $rc, want 1"
		checks=$((checks + 1))
		want="gpuscope: error: NAME: an Nsight SQLite export must be a file, not a pipe (save it first)"
		[ "$(cat "$tag.err")" = "$want" ] || fail "$tag: stderr: $(cat "$tag.err")"
		checks=$((checks + 1))
		[ -s "$tag.out" ] && fail "$tag: printed on stdout"
	done
done
checks=$((checks + 1))
[ -e never.gscope ] && fail "nsys convert from a pipe left an output"

# '-' twice: a usage error (2) before anything is read.
for cmd in "analyze - -" "export -o x.json - small.json -" "diff - -"; do
	tag=$(printf 'twice_%s' "$cmd" | tr -c 'a-zA-Z0-9_\n' _)
	checks=$((checks + 1))
	# shellcheck disable=SC2086
	"$gs" $cmd <small.json >"$tag.out" 2>"$tag.err"
	rc=$?
	[ "$rc" = 2 ] || fail "$tag: exit $rc, want 2"
	checks=$((checks + 1))
	grep -q "^gpuscope: error: .*'-' (stdin) given twice" "$tag.err" ||
		fail "$tag: stderr: $(cat "$tag.err")"
done

# -o is never the file stdin is redirected from.
cp small.gscope keep.gscope
checks=$((checks + 1))
"$gs" convert --force - -o keep.gscope <keep.gscope >self.out 2>self.err
rc=$?
[ "$rc" = 1 ] || fail "self: exit $rc, want 1"
grep -q '^gpuscope: error: keep.gscope: is one of the inputs$' self.err ||
	fail "self: stderr: $(cat self.err)"
checks=$((checks + 1))
cmp -s keep.gscope small.gscope || fail "self: keep.gscope changed"

# Nothing on stdin at all.
checks=$((checks + 1))
"$gs" info - </dev/null >empty.out 2>empty.err
rc=$?
[ "$rc" = 1 ] || fail "empty: exit $rc, want 1"
[ "$(cat empty.err)" = "gpuscope: error: stdin: empty file" ] ||
	fail "empty: stderr: $(cat empty.err)"

if [ "$failures" -ne 0 ]; then
	echo "cli pipes: $failures of $checks checks failed" >&2
	exit 1
fi
echo "cli pipes: $checks checks passed"
