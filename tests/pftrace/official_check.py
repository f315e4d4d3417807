#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a `gpuscope export --format perfetto` file against Perfetto's own
schema: the generated classes of the official `Trace` proto that the PyPI
package `perfetto` ships (perfetto/protos/perfetto/trace/perfetto_trace_pb2.py),
not formats/proto/perfetto_trace.proto (the trimmed copy the C decoder of
tests/pftrace is built from).

    official_check.py [--chrome CHROME.json] PFTRACE [PFTRACE CHROME ...]

PFTRACE (plain or gzip) must:
  - parse as perfetto.protos.Trace, with no unknown field in any message at
    any depth (a field number the official schema does not have, or a wire
    type it does not expect, shows up as an unknown field); a packet of
    compressed_packets holds nothing else, inflates (zlib, as
    trace_processor does) to a Trace that parses the same way, without
    compressed packets of its own, and its packets take its place;
  - resolve as trace_processor resolves it: per packet sequence
    (trusted_packet_sequence_id, required), the interned data (event
    categories, event names, debug annotation names and string values)
    cleared by SEQ_INCREMENTAL_STATE_CLEARED (or incremental_state_cleared),
    every iid used defined earlier on its sequence and the packets that use
    them marked SEQ_NEEDS_INCREMENTAL_STATE; TracePacketDefaults
    (timestamp_clock_id, TrackEventDefaults.track_uuid and
    extra_counter_track_uuids); clocks: a sequence-scoped clock (ids 64-127)
    defined by a ClockSnapshot of its sequence before it is used, an
    incremental one advanced by each timestamp, converted to trace time
    (BOOTTIME) through its snapshot;
  - then: every track used is described once (its parent before it);
    every slice has a category and a name, on a track that is not a counter
    track; times of a sequence never go back on an incremental clock; on
    each track, the events sorted by time (ties in file order) nest: every
    end closes an open slice, nothing stays open, a slice lies within the
    one it is nested in (no two slices overlap without nesting); counter
    values only on counter tracks, as many extra values as extra tracks;
    every flow id is the source (flow_ids) of exactly one slice and the
    destination (terminating_flow_ids) of exactly one other.
With CHROME (the Chrome JSON export of the same trace with the same options):
the same number of slices, and the same multiset of (process name,
category, name, start, duration, args) as Chrome's complete events (times to
the ns); as many flows as Chrome's flow starts; each process's counter tracks
hold, at every Chrome counter event, the values that event holds.

Exit status: 0 when every check passes, 1 otherwise, 2 on usage errors, 77
when the `perfetto` and `protobuf` Python modules cannot be imported.
"""
import collections
import decimal
import gzip
import json
import sys
import zlib

try:
    from perfetto.protos.perfetto.trace import perfetto_trace_pb2 as pb
    from google.protobuf.descriptor import FieldDescriptor
except ImportError as e:  # pragma: no cover - depends on the machine
    print("skipped: the perfetto and protobuf Python modules are needed (%s)" % e)
    sys.exit(77)

try:
    from google.protobuf import unknown_fields as _uf

    def unknown_count(m):
        return len(_uf.UnknownFieldSet(m))
except ImportError:  # older protobuf

    def unknown_count(m):
        return len(m.UnknownFields())



def is_repeated(fd):
    rep = getattr(fd, "is_repeated", None)  # protobuf >= 5.29; label went in 7
    return rep if rep is not None else fd.label == FieldDescriptor.LABEL_REPEATED


SEQ_INCREMENTAL_STATE_CLEARED = 1
SEQ_NEEDS_INCREMENTAL_STATE = 2
BOOTTIME = 6
TYPE_SLICE_BEGIN, TYPE_SLICE_END, TYPE_INSTANT, TYPE_COUNTER = 1, 2, 3, 4

MAX_PROBLEMS = 20


class Checker:
    def __init__(self, path):
        self.path = path
        self.problems = 0

    def fail(self, msg):
        self.problems += 1
        if self.problems <= MAX_PROBLEMS:
            print("FAIL: %s: %s" % (self.path, msg))

    # ---- schema -------------------------------------------------------------

    def unknown(self, m, where):
        """Unknown fields anywhere in message m."""
        if unknown_count(m):
            self.fail("%s (%s): %d unknown field(s)" % (where, m.DESCRIPTOR.full_name, unknown_count(m)))
        for fd, v in m.ListFields():
            if fd.type != FieldDescriptor.TYPE_MESSAGE:
                continue
            if is_repeated(fd):
                for i, x in enumerate(v):
                    self.unknown(x, "%s.%s[%d]" % (where, fd.name, i))
            else:
                self.unknown(v, "%s.%s" % (where, fd.name))


class Seq:
    """The incremental state of one packet sequence."""

    def __init__(self):
        self.valid = False
        self.clear()
        self.clocks = {}  # clock id -> [snapshot value, boottime at it, incremental, last value]
        self.defaults = None

    def clear(self):
        self.cats, self.names, self.keys, self.strings = {}, {}, {}, {}


def value_of(c, da, seq, where):
    """A debug annotation's value, as a Python value comparable to JSON's."""
    if da.HasField("uint_value"):
        return da.uint_value
    if da.HasField("int_value"):
        return da.int_value
    if da.HasField("bool_value"):
        return int(da.bool_value)
    if da.HasField("double_value"):
        return decimal.Decimal(repr(da.double_value))
    if da.HasField("string_value"):
        return da.string_value
    if da.HasField("string_value_iid"):
        if da.string_value_iid not in seq.strings:
            c.fail("%s: string value iid %d not interned" % (where, da.string_value_iid))
            return None
        return seq.strings[da.string_value_iid]
    if len(da.array_values):
        return [value_of(c, x, seq, where) for x in da.array_values]
    if len(da.dict_entries):
        return {x.name: value_of(c, x, seq, where) for x in da.dict_entries}
    return None


def resolve(c, packets):
    """Resolves the trace as trace_processor does; returns (tracks, slices,
    counters, flows)."""
    seqs = collections.defaultdict(Seq)
    tracks = {}  # uuid -> TrackDescriptor
    events = []  # (ts, file order, track, kind, payload)
    counters = []  # (track, ts, value)
    flow_src = collections.Counter()
    flow_dst = collections.Counter()
    last_ts = {}
    for n, p in enumerate(packets):
        where = "packet %d" % n
        if not p.HasField("trusted_packet_sequence_id"):
            c.fail("%s: no trusted_packet_sequence_id" % where)
            continue
        sid = p.trusted_packet_sequence_id
        s = seqs[sid]
        flags = p.sequence_flags
        if flags & SEQ_INCREMENTAL_STATE_CLEARED or p.incremental_state_cleared:
            s.clear()
            s.valid = True
            s.defaults = None
            s.clocks = {}
        if flags & SEQ_NEEDS_INCREMENTAL_STATE and not s.valid:
            c.fail("%s: needs incremental state before its sequence %d cleared it" % (where, sid))
        if p.HasField("trace_packet_defaults"):
            s.defaults = p.trace_packet_defaults
        if p.HasField("interned_data"):
            d = p.interned_data
            if not s.valid:
                c.fail("%s: interned data on sequence %d before it was cleared" % (where, sid))
            for tab, lst in ((s.cats, d.event_categories), (s.names, d.event_names),
                             (s.keys, d.debug_annotation_names), (s.strings, d.debug_annotation_string_values)):
                for e in lst:
                    if not e.iid:
                        c.fail("%s: interned entry without iid" % where)
                    v = e.str if hasattr(e, "str") and e.HasField("str") else e.name
                    if isinstance(v, bytes):
                        v = v.decode("utf-8", "replace")
                    tab[e.iid] = v
        if p.HasField("clock_snapshot"):
            boot = None
            for clk in p.clock_snapshot.clocks:
                if clk.clock_id == BOOTTIME:
                    boot = clk.timestamp
            if boot is None:
                c.fail("%s: a clock snapshot without BOOTTIME" % where)
                boot = 0
            for clk in p.clock_snapshot.clocks:
                if 64 <= clk.clock_id <= 127:
                    s.clocks[clk.clock_id] = [clk.timestamp, boot, clk.is_incremental, clk.timestamp]
                elif clk.clock_id != BOOTTIME:
                    c.fail("%s: clock %d (only BOOTTIME and sequence clocks are expected)" % (where, clk.clock_id))
        # The packet's time.
        ts = None
        if p.HasField("timestamp"):
            cid = BOOTTIME
            if p.HasField("timestamp_clock_id"):
                cid = p.timestamp_clock_id
            elif s.defaults is not None and s.defaults.HasField("timestamp_clock_id"):
                cid = s.defaults.timestamp_clock_id
            if cid == BOOTTIME:
                ts = p.timestamp
            elif cid in s.clocks:
                k = s.clocks[cid]
                v = k[3] + p.timestamp if k[2] else p.timestamp
                if k[2]:
                    k[3] = v
                ts = k[1] + (v - k[0])
            else:
                c.fail("%s: clock %d not defined on sequence %d" % (where, cid, sid))
                continue
            if cid != BOOTTIME and s.clocks[cid][2]:
                if sid in last_ts and ts < last_ts[sid]:
                    c.fail("%s: time goes back on sequence %d's incremental clock" % (where, sid))
                last_ts[sid] = ts
        if p.HasField("track_descriptor"):
            td = p.track_descriptor
            if td.uuid in tracks:
                c.fail("%s: track %d described twice" % (where, td.uuid))
            if td.HasField("parent_uuid") and td.parent_uuid not in tracks:
                c.fail("%s: track %d's parent %d not described before it" % (where, td.uuid, td.parent_uuid))
            if td.HasField("process") and not (1 <= td.process.pid <= 2**31 - 1):
                c.fail("%s: process pid %d" % (where, td.process.pid))
            tracks[td.uuid] = td
        if p.HasField("track_event"):
            te = p.track_event
            if ts is None:
                c.fail("%s: a track event without a timestamp" % where)
                continue
            dte = s.defaults.track_event_defaults if s.defaults is not None and s.defaults.HasField("track_event_defaults") else None
            track = te.track_uuid if te.HasField("track_uuid") else (dte.track_uuid if dte is not None else 0)
            if track not in tracks:
                c.fail("%s: event on track %d, not described" % (where, track))
                continue
            uses_iids = te.category_iids or te.HasField("name_iid") or any(
                d.HasField("name_iid") or d.HasField("string_value_iid") for d in te.debug_annotations)
            if uses_iids and not flags & SEQ_NEEDS_INCREMENTAL_STATE:
                c.fail("%s: uses interned data without SEQ_NEEDS_INCREMENTAL_STATE" % where)
            if te.type == TYPE_SLICE_BEGIN:
                if tracks[track].HasField("counter"):
                    c.fail("%s: slice on counter track %d" % (where, track))
                cats = []
                for i in te.category_iids:
                    if i not in s.cats:
                        c.fail("%s: category iid %d not interned" % (where, i))
                    cats.append(s.cats.get(i, "?"))
                cats += list(te.categories)
                name = None
                if te.HasField("name_iid"):
                    name = s.names.get(te.name_iid)
                    if name is None:
                        c.fail("%s: name iid %d not interned" % (where, te.name_iid))
                elif te.HasField("name"):
                    name = te.name
                if not name:
                    c.fail("%s: a slice without a name" % where)
                if not cats:
                    c.fail("%s: a slice without a category" % where)
                args = []
                for d in te.debug_annotations:
                    if d.HasField("name_iid"):
                        key = s.keys.get(d.name_iid)
                        if key is None:
                            c.fail("%s: annotation name iid %d not interned" % (where, d.name_iid))
                    else:
                        key = d.name
                    args.append((key, value_of(c, d, s, where)))
                for f in te.flow_ids:
                    flow_src[f] += 1
                for f in te.terminating_flow_ids:
                    flow_dst[f] += 1
                events.append((ts, n, track, "B", (",".join(cats), name, args, list(te.flow_ids),
                                                   list(te.terminating_flow_ids))))
            elif te.type == TYPE_SLICE_END:
                events.append((ts, n, track, "E", None))
            elif te.type == TYPE_COUNTER:
                uuids = [track]
                if len(te.extra_counter_track_uuids):
                    uuids += list(te.extra_counter_track_uuids)
                elif dte is not None:
                    uuids += list(dte.extra_counter_track_uuids)
                vals = [te.counter_value] + list(te.extra_counter_values)
                if len(vals) > len(uuids):
                    c.fail("%s: %d counter values for %d tracks" % (where, len(vals), len(uuids)))
                for u, v in zip(uuids, vals):
                    if u not in tracks or not tracks[u].HasField("counter"):
                        c.fail("%s: counter value on track %d, not a counter track" % (where, u))
                    counters.append((u, ts, v))
            else:
                c.fail("%s: track event of type %d" % (where, te.type))
    # Slices: per track, by time (ties in file order), properly nested.
    slices = []
    by_track = collections.defaultdict(list)
    for e in events:
        by_track[e[2]].append(e)
    for track, evs in by_track.items():
        evs.sort(key=lambda e: (e[0], e[1]))
        stack = []
        for ts, n, _, kind, payload in evs:
            if kind == "B":
                if stack and ts < stack[-1][0]:
                    c.fail("track %d: a slice begins before the one it nests in" % track)
                stack.append([ts, None, track, payload])
            else:
                if not stack:
                    c.fail("track %d: an end at %d with no open slice (packet %d)" % (track, ts, n))
                    continue
                sl = stack.pop()
                sl[1] = ts
                if stack and stack[-1][0] > sl[0]:
                    c.fail("track %d: slices overlap without nesting" % track)
                slices.append(sl)
        if stack:
            c.fail("track %d: %d slice(s) never end" % (track, len(stack)))
    flows = 0
    for f in set(flow_src) | set(flow_dst):
        if flow_src[f] != 1 or flow_dst[f] != 1:
            c.fail("flow %d: %d source(s), %d destination(s)" % (f, flow_src[f], flow_dst[f]))
        else:
            flows += 1
    return tracks, slices, counters, flows


def process_of(tracks, uuid):
    """The process track above track uuid (None: none)."""
    while uuid in tracks:
        t = tracks[uuid]
        if t.HasField("process"):
            return t
        if not t.HasField("parent_uuid"):
            return None
        uuid = t.parent_uuid
    return None


def proc_key(name, pid):
    """Processes by name: the pids differ where Chrome's is not one Perfetto
    takes (0, a device's; above 2^31 - 1)."""
    del pid
    return name if name else "(no name)"


def ns(x):
    """A Chrome JSON time in us (int or decimal) as integer ns."""
    return int(decimal.Decimal(x) * 1000)


def norm(v):
    if isinstance(v, list):
        return tuple(norm(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, norm(x)) for k, x in v.items()))
    if isinstance(v, decimal.Decimal) and v == v.to_integral_value():
        return int(v)
    return v


def compare_chrome(c, chrome_path, tracks, slices, counters, flows):
    opener = gzip.open if chrome_path.endswith(".gz") else open
    with opener(chrome_path, "rt", encoding="utf-8") as fh:
        doc = json.load(fh, parse_float=decimal.Decimal)
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    pname = {}
    for e in evs:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            pname[e["pid"]] = e.get("args", {}).get("name", "")
    want = collections.Counter()
    for e in evs:
        if e.get("ph") == "X":
            args = tuple((k, norm(v)) for k, v in (e.get("args") or {}).items())
            want[(proc_key(pname.get(e["pid"]), e["pid"]), e.get("cat", ""), e["name"],
                  ns(e["ts"]), ns(e["dur"]), args)] += 1
    have = collections.Counter()
    for ts, end, track, (cat, name, args, _, _) in slices:
        p = process_of(tracks, track)
        pk = proc_key(p.process.process_name, p.process.pid) if p is not None else "?"
        have[(pk, cat, name, ts, end - ts, tuple((k, norm(v)) for k, v in args))] += 1
    n_x = sum(want.values())
    if len(slices) != n_x:
        c.fail("%d slices, the Chrome export has %d complete events" % (len(slices), n_x))
    # Times: the same up to one offset for the whole file (the Perfetto
    # export lifts negative times to 0).
    off = 0
    if want and have:
        off = min(k[3] for k in have) - min(k[3] for k in want)
        if off:
            have = collections.Counter({(k[0], k[1], k[2], k[3] - off) + k[4:]: v for k, v in have.items()})
    missing = want - have
    extra = have - want
    for k in list(missing)[:5]:
        c.fail("Chrome slice not in the Perfetto file: %r" % (k,))
    for k in list(extra)[:5]:
        c.fail("Perfetto slice not in the Chrome file: %r" % (k,))
    n_s = sum(1 for e in evs if e.get("ph") == "s")
    n_f = sum(1 for e in evs if e.get("ph") == "f")
    if flows != n_s or n_s != n_f:
        c.fail("%d flows, the Chrome export has %d flow starts and %d ends" % (flows, n_s, n_f))
    # Counters: per process and counter track name, the value at each Chrome
    # counter event.
    series = collections.defaultdict(list)
    for u, ts, v in counters:
        p = process_of(tracks, u)
        pk = proc_key(p.process.process_name, p.process.pid) if p is not None else "?"
        series[(pk, tracks[u].name)].append((ts - off, v))
    for k in series:
        series[k].sort(key=lambda x: x[0])
    n_c = 0
    checked = 0
    for e in evs:
        if e.get("ph") != "C":
            continue
        n_c += 1
        pk = proc_key(pname.get(e["pid"]), e["pid"])
        t = ns(e["ts"])
        for key, v in (e.get("args") or {}).items():
            s = series.get((pk, "%s %s" % (e["name"], key)))
            if not s:
                c.fail("no counter track '%s %s' in process %s" % (e["name"], key, pk))
                continue
            got = None
            for ts, val in s:  # the last value at or before t
                if ts > t:
                    break
                got = val
            checked += 1
            if got != norm(v):
                c.fail("counter '%s %s' of %s at %d ns: %r, Chrome %r" % (e["name"], key, pk, t, got, v))
    return n_x, n_s, n_c, checked


def check(path, chrome):
    c = Checker(path)
    with open(path, "rb") as fh:
        data = fh.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    try:
        trace = pb.Trace.FromString(data)
    except Exception as e:  # DecodeError and what upb raises
        c.fail("does not parse as perfetto.protos.Trace: %s" % e)
        return 1
    c.unknown(trace, "trace")
    packets = []
    n_z = 0
    for n, p in enumerate(trace.packet):
        if not p.HasField("compressed_packets"):
            packets.append(p)
            continue
        n_z += 1
        if len(p.ListFields()) != 1:
            c.fail("packet %d: compressed_packets with other fields" % n)
        try:
            inner = pb.Trace.FromString(zlib.decompress(p.compressed_packets))
        except Exception as e:  # zlib.error, DecodeError
            c.fail("packet %d: compressed_packets do not inflate to a Trace: %s" % (n, e))
            continue
        c.unknown(inner, "trace.packet[%d].compressed_packets" % n)
        for q in inner.packet:
            if q.HasField("compressed_packets"):
                c.fail("packet %d: compressed packets within compressed packets" % n)
            packets.append(q)
    tracks, slices, counters, flows = resolve(c, packets)
    seqs = len({p.trusted_packet_sequence_id for p in packets})
    line = "%d packets (%d compressed packets of %d), %d sequences, %d tracks, %d slices, %d flows, %d counter values" % (
        len(packets), n_z, len(packets) - (len(trace.packet) - n_z), seqs, len(tracks), len(slices), flows,
        len(counters))
    if chrome:
        n_x, n_s, n_c, checked = compare_chrome(c, chrome, tracks, slices, counters, flows)
        line += "; Chrome: %d slices, %d flows, %d counter events (%d values) alike" % (n_x, n_s, n_c, checked)
    print("%s: %s: %s" % (path, "FAIL (%d problems)" % c.problems if c.problems else "ok", line))
    return 1 if c.problems else 0


def main(argv):
    pairs = []
    args = argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args else 2
    while args:
        if args[0] == "--chrome" and len(args) >= 3:
            pairs.append((args[2], args[1]))
            args = args[3:]
        elif args[0].startswith("-"):
            print("usage: official_check.py [--chrome CHROME.json] PFTRACE ...", file=sys.stderr)
            return 2
        else:
            pairs.append((args[0], None))
            args = args[1:]
    rc = 0
    for path, chrome in pairs:
        rc |= check(path, chrome)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
