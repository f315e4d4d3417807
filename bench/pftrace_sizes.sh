#!/bin/sh
# SPDX-License-Identifier: MIT
# The Perfetto export against the Chrome export, trace by trace: bytes of
# each and how many times smaller the .pftrace is (the requirement: 4x).
#
#   bench/pftrace_sizes.sh BUILD [OPTIONS --] [TRACE...]
#
# Without TRACEs: every trace of ../shared/data (Kineto JSON, Nsight
# SQLite) and of samples/. OPTIONS (before a `--`) go to both exports
# (--with-ideal, say). The files are written to $TMPDIR and deleted.
set -u
build=${1:?usage: bench/pftrace_sizes.sh BUILD [OPTIONS --] [TRACE...]}
shift
gs=$build/analyzer/gpuscope
opts=
case " $* " in
*" -- "*)
	while [ "$1" != -- ]; do
		opts="$opts $1"
		shift
	done
	shift
	;;
esac
here=$(dirname "$0")/..
if [ $# = 0 ]; then
	set -- "$here"/../shared/data/kineto/*/*.json.gz "$here"/../shared/data/nsys/*/*.sqlite \
		"$here"/samples/*.json "$here"/samples/synthetic/*.gscope
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pftrace-sizes.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
printf '%-42s %14s %14s %7s\n' trace chrome perfetto smaller
status=0
for f in "$@"; do
	[ -f "$f" ] || continue
	# shellcheck disable=SC2086
	if ! "$gs" export -q $opts -o "$tmp/c.json" "$f" ||
		! "$gs" export -q --format perfetto $opts -o "$tmp/p.pftrace" "$f"; then
		echo "$f: export failed" >&2
		status=1
		continue
	fi
	c=$(wc -c <"$tmp/c.json")
	p=$(wc -c <"$tmp/p.pftrace")
	printf '%-42s %14d %14d %6.2fx\n' "$(basename "$f")" "$c" "$p" \
		"$(echo "$c $p" | awk '{print $1 / $2}')"
	rm -f "$tmp/c.json" "$tmp/p.pftrace"
done
exit $status
