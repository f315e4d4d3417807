#!/bin/sh
# SPDX-License-Identifier: MIT
# The issue's "done when" on the real traces of ../shared/data (skips with
# exit 77 when it is absent): for every trace gpuscope reads there (Kineto
# JSON, Nsight Systems SQLite), the Chrome export (with the ideal schedule,
# gzip-compressed) is valid JSON whose flows all pair up and bind, whose
# tracks never mis-nest, and which gpuscope reads back with the same ops
# (export_check); for the Kineto traces, `info` of the export also equals
# `info` of the source but for the file name, format and loading warnings.
#
#   shared.sh GPUSCOPE EXPORT_CHECK SHARED_DATA WORKDIR
set -u
gs=${1:?usage: shared.sh GPUSCOPE EXPORT_CHECK SHARED_DATA WORKDIR}
check=${2:?export_check}
data=${3:?shared data dir}
work=${4:?work dir}

if [ ! -d "$data" ]; then
	echo "skipped: ../shared/data absent"
	exit 77
fi
rm -rf "$work" && mkdir -p "$work" || exit 1

info_json() {
	"$gs" info --format json "$1" 2>/dev/null |
		grep -v -e '"file":' -e '"format":' | sed '/"warnings":/,$d'
}

fail=0
n=0
for f in "$data"/kineto/*/*.json.gz "$data"/nsys/*/*.sqlite; do
	[ -f "$f" ] || continue
	name=$(basename "$f")
	out=$work/$name.export.json.gz
	if ! "$gs" export --with-ideal -o "$out" "$f" 2>"$work/$name.err"; then
		echo "FAIL $name: export failed: $(tail -n 1 "$work/$name.err")"
		fail=1
		continue
	fi
	if ! "$check" "$out" "$f" >"$work/$name.check" 2>&1; then
		echo "FAIL $name: export_check"
		sed 's/^/    /' "$work/$name.check"
		fail=1
	fi
	case $f in
	*.json.gz)
		info_json "$f" >"$work/$name.a"
		info_json "$out" >"$work/$name.b"
		if ! cmp -s "$work/$name.a" "$work/$name.b"; then
			echo "FAIL $name: info of the export differs from info of the source"
			diff "$work/$name.a" "$work/$name.b" | head -10
			fail=1
		fi
		;;
	esac
	echo "$name: $(tail -n 3 "$work/$name.check" | tr '\n' ' ')"
	n=$((n + 1))
done
echo "$n traces exported and checked"

# diff of two real runs of one model (before / after more data-loader
# workers): text within 100 columns, JSON with its schema.
v0=$data/kineto/tb-plugin/v100_resnet50_workers0_2021-01.json.gz
v4=$data/kineto/tb-plugin/v100_resnet50_workers4_2021-06.json.gz
if [ -f "$v0" ] && [ -f "$v4" ]; then
	if ! "$gs" diff "$v0" "$v4" >"$work/diff.txt" 2>"$work/diff.err"; then
		echo "FAIL diff: $(tail -n 1 "$work/diff.err")"
		fail=1
	elif awk 'length > 100 { bad = 1 } END { exit !bad }' "$work/diff.txt"; then
		echo "FAIL diff: a line over 100 columns"
		fail=1
	fi
	if ! "$gs" diff --format json "$v0" "$v4" 2>/dev/null |
		grep -q '"schema": "gpuscope.diff/1"'; then
		echo "FAIL diff --format json"
		fail=1
	fi
	grep -q "kernels whose total time changed most" "$work/diff.txt" ||
		{ echo "FAIL diff: no kernel table"; fail=1; }
fi
[ "$n" -gt 0 ] || fail=1
exit $fail
