#!/bin/sh
# SPDX-License-Identifier: MIT
# The Perfetto export against Perfetto's official schema (official_check.py,
# with the `perfetto` and `protobuf` Python modules; exit 77, skipped, when
# they are not importable). Every trace of ../shared/data (when present), of
# samples/ and a generated trace and job: the Chrome and the Perfetto
# export of each (and with --with-ideal for the samples and the generated
# trace), the Perfetto one checked against the Chrome one. Then files the
# checker must refuse: an unknown field, compressed packets that do not
# inflate, a slice left open, a name iid nobody interned (and the packets
# uncompressed, which it must take).
#
#   official_check.sh GPUSCOPE GS_BENCH_GEN SAMPLES SHARED_DATA WORKDIR
#
# The Python: $GS_PYTHON, else the virtual environment
# scripts/install-deps.sh --ci makes ($GS_PYVENV, default
# ~/.cache/gpuscope/pyvenv), else python3.
set -u
gs=${1:?usage: official_check.sh GPUSCOPE GS_BENCH_GEN SAMPLES SHARED_DATA WORKDIR}
benchgen=${2:?gs_bench_gen}
samples=${3:?samples dir}
data=${4:?shared data dir}
work=${5:?work dir}
here=$(cd "$(dirname "$0")" && pwd)
checker=$here/official_check.py

venv=${GS_PYVENV:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/gpuscope/pyvenv}
py=${GS_PYTHON:-}
if [ -z "$py" ]; then
	if [ -x "$venv/bin/python" ]; then
		py=$venv/bin/python
	else
		py=python3
	fi
fi
if ! "$py" -c 'import perfetto.protos.perfetto.trace.perfetto_trace_pb2, google.protobuf' \
	>/dev/null 2>&1; then
	echo "skipped: $py cannot import perfetto and protobuf (scripts/install-deps.sh --ci installs them)"
	exit 77
fi
rm -rf "$work" && mkdir -p "$work" || exit 1

fail=0
n=0
# one NAME OPTIONS -- TRACE...: both exports, then the check.
one() {
	name=$1
	shift
	opts=
	while [ "$1" != -- ]; do
		opts="$opts $1"
		shift
	done
	shift
	# shellcheck disable=SC2086
	if ! "$gs" export -q $opts -o "$work/$name.json" "$@" 2>"$work/$name.err" ||
		! "$gs" export -q --format perfetto $opts -o "$work/$name.pftrace" "$@" \
			2>>"$work/$name.err"; then
		echo "FAIL $name: export failed: $(tail -n 1 "$work/$name.err")"
		fail=1
		return
	fi
	if ! "$py" "$checker" --chrome "$work/$name.json" "$work/$name.pftrace" >"$work/$name.check" 2>&1; then
		echo "FAIL $name:"
		sed 's/^/    /' "$work/$name.check"
		fail=1
	else
		sed "s|^$work/||" "$work/$name.check"
	fi
	n=$((n + 1))
	rm -f "$work/$name.json"
}

for f in "$data"/kineto/*/*.json.gz "$data"/nsys/*/*.sqlite; do
	[ -f "$f" ] || continue
	one "$(basename "$f")" -- "$f"
done
for f in "$samples"/*.json "$samples"/synthetic/*.gscope; do
	[ -f "$f" ] || continue
	one "$(basename "$f")" -- "$f"
	one "$(basename "$f").ideal" --with-ideal -- "$f"
done
if "$benchgen" --ops 20000 --devices 2 --json "$work/gen-src.json" >"$work/gen.out" 2>&1; then
	one gen -- "$work/gen-src.json"
	one gen.ideal --with-ideal -- "$work/gen-src.json"
	one gen.flows --max-flows 100 -- "$work/gen-src.json"
else
	echo "FAIL gs_bench_gen --ops"
	fail=1
fi
if "$benchgen" --job 3 --out-dir "$work/job" --ops-per-rank 1000 --threads 1 >"$work/job.out" 2>&1; then
	one job3 --with-ideal -- "$work"/job/rank0.json "$work"/job/rank1.json "$work"/job/rank2.json
else
	echo "FAIL gs_bench_gen --job"
	fail=1
fi

# The checker refuses what is wrong (each a valid file with one flaw).
refuse() {
	n=$((n + 1))
	if "$py" "$checker" "$work/$1.pftrace" >"$work/$1.check" 2>&1; then
		echo "FAIL the checker takes $1: $(cat "$work/$1.check")"
		fail=1
	elif ! grep -q "$2" "$work/$1.check"; then
		echo "FAIL the checker refuses $1, not for '$2': $(head -n 3 "$work/$1.check")"
		fail=1
	else
		echo "refused as it should be: $1 ($2)"
	fi
}
good=$work/serial_stream.gscope.pftrace
if [ -f "$good" ]; then
	# A packet with field 1000 (no such field in TracePacket).
	{ cat "$good" && printf '\012\003\300\076\001'; } >"$work/bad_unknown.pftrace"
	refuse bad_unknown "unknown field"
	"$py" - "$good" "$work" <<'EOF' || fail=1
import sys, zlib
from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb
good, work = sys.argv[1], sys.argv[2]
z = pb.Trace.FromString(open(good, "rb").read())
# The same packets, not compressed: as valid.
t = pb.Trace()
for p in z.packet:
    if p.HasField("compressed_packets"):
        t.packet.extend(pb.Trace.FromString(zlib.decompress(p.compressed_packets)).packet)
    else:
        t.packet.add().CopyFrom(p)
open(work + "/flat.pftrace", "wb").write(t.SerializeToString())
# Compressed packets that do not inflate.
u = pb.Trace(); u.CopyFrom(z); u.packet.add().compressed_packets = b"not deflated"
open(work + "/bad_zlib.pftrace", "wb").write(u.SerializeToString())
# The last slice end dropped: a slice left open.
ends = [i for i, p in enumerate(t.packet) if p.HasField("track_event") and p.track_event.type == 2]
u = pb.Trace(); u.CopyFrom(t); del u.packet[ends[-1]]
open(work + "/bad_open.pftrace", "wb").write(u.SerializeToString())
# A name iid nobody interned.
b = [i for i, p in enumerate(t.packet) if p.HasField("track_event") and p.track_event.type == 1]
u = pb.Trace(); u.CopyFrom(t); u.packet[b[-1]].track_event.name_iid = 99999
open(work + "/bad_iid.pftrace", "wb").write(u.SerializeToString())
EOF
	n=$((n + 1))
	if ! "$py" "$checker" "$work/flat.pftrace" >"$work/flat.check" 2>&1; then
		echo "FAIL the packets of serial_stream uncompressed: $(cat "$work/flat.check")"
		fail=1
	fi
	refuse bad_zlib "do not inflate"
	refuse bad_open "never end"
	refuse bad_iid "name iid 99999 not interned"
else
	echo "FAIL no serial_stream.gscope export to alter"
	fail=1
fi
echo "$n files checked against Perfetto's official schema"
exit $fail
