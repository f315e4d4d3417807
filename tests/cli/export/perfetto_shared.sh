#!/bin/sh
# SPDX-License-Identifier: MIT
# Every trace gpuscope reads in ../shared/data (Kineto JSON, Nsight Systems
# SQLite; skips with exit 77 when it is absent): `export --format perfetto
# --with-ideal` is a valid Perfetto stream that says, slice by slice, flow
# by flow and counter by counter, what the Chrome export with the same
# options says, and holds the source's ops (pftrace_check --chrome and
# SOURCE). Prints each file's sizes.
#
#   perfetto_shared.sh GPUSCOPE PFTRACE_CHECK SHARED_DATA WORKDIR
set -u
gs=${1:?usage: perfetto_shared.sh GPUSCOPE PFTRACE_CHECK SHARED_DATA WORKDIR}
check=${2:?pftrace_check}
data=${3:?shared data dir}
work=${4:?work dir}

if [ ! -d "$data" ]; then
	echo "skipped: ../shared/data absent"
	exit 77
fi
rm -rf "$work" && mkdir -p "$work" || exit 1

fail=0
n=0
for f in "$data"/kineto/*/*.json.gz "$data"/nsys/*/*.sqlite; do
	[ -f "$f" ] || continue
	name=$(basename "$f")
	c=$work/$name.json
	p=$work/$name.pftrace
	if ! "$gs" export -q --with-ideal -o "$c" "$f" 2>"$work/$name.err" ||
		! "$gs" export -q --format perfetto --with-ideal -o "$p" "$f" 2>>"$work/$name.err"; then
		echo "FAIL $name: export failed: $(tail -n 1 "$work/$name.err")"
		fail=1
		continue
	fi
	if ! "$check" --chrome "$c" "$p" "$f" >"$work/$name.check" 2>&1; then
		echo "FAIL $name: pftrace_check"
		sed 's/^/    /' "$work/$name.check"
		fail=1
	fi
	echo "$name: chrome $(wc -c <"$c") bytes, perfetto $(wc -c <"$p") bytes;" \
		"$(tail -n 1 "$work/$name.check")"
	n=$((n + 1))
done
echo "$n traces exported and compared"
[ "$n" -gt 0 ] || fail=1
exit $fail
