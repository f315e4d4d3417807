# SPDX-License-Identifier: MIT
"""Checks of the GPU check (tests/gpu/run.sh), on what gpuscope prints.

Standard library only (it runs under the GPU machine's python3). Every check
prints one line `NAME<TAB>ok|FAIL|skip<TAB>DETAIL` on stdout; the exit status
is 1 when a line is FAIL, else 0.

  gpucheck.py trace GPUSCOPE TRACE PROFILE [--stdout FILE] [--launches N]
      one trace: `gpuscope info --format json`, `analyze --format json` and
      `dump`. PROFILE is generic (any program), probe, probe-deps (the probe
      recorded with --data-deps: data edges on kernels launched with both
      <<<>>> and cuLaunchKernel) or loop (the launch loop: --launches N
      launches all recorded). --stdout FILE: the program's output; with the
      probe's "probe pid=/tid" lines the trace's thread ids must be those.
  gpucheck.py torch GPUSCOPE KINETO.json GSCOPE [--maps FILE] [--tolerance F]
                     [--range NAME]
      the same PyTorch program under torch.profiler (Kineto JSON) and under
      gpuscope record: op counts by kind, streams, cross-stream waits linked
      (whole run); inside the host range NAME (default gpucheck_measured)
      of each trace: op counts, kernel and copy time within F (default
      0.02), the analyze breakdown of that window. --maps FILE: the libcupti
      paths the recorded process had mapped (one only).
  gpucheck.py overhead N BASE REC [DEPS]
      the launch loop's total_ns per run (one number a line) without and
      with the collector (and with --data-deps): medians, ns added per
      launch, % end to end, against the targets (< 1 us/launch, < 3 %).
  gpucheck.py facts GPUSCOPE TRACE
      one line for the experiments: op counts, dropped records, warnings,
      device names (exit 1 when the trace cannot be read).
  gpucheck.py streams GPUSCOPE LABEL TRACE STDOUT [LABEL TRACE STDOUT...]
      one line: each trace's kernels by launching thread, launch API and
      recorded stream (the per-thread default stream experiment).
  gpucheck.py summary RESULTS.tsv OUT.json [KEY=VALUE...]
      the result lines as JSON (schema gpuscope.gpucheck/2).
"""
import decimal
import json
import os
import re
import statistics
import subprocess
import sys

TIMEOUT = 60  # seconds per gpuscope command
PID_MAX = 1 << 22  # Linux's largest pid_max: an OS thread id is below it

failed = False


def out(name, status, detail):
    """One result line; status True/False or 'skip'/'info'."""
    global failed
    if status is True:
        word = "ok"
    elif status is False:
        word = "FAIL"
        failed = True
    else:
        word = status
    detail = " ".join(str(detail).split())
    print("%s\t%s\t%s" % (name, word, detail[:400]))


def run(cmd):
    """(exit status, stdout, stderr) of a command, -1 on timeout."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return -1, "", "timed out after %d s" % TIMEOUT
    except OSError as e:
        return -2, "", str(e)
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"))


def gs_json(gpuscope, what, trace, name, extra=()):
    """`gpuscope WHAT --format json [EXTRA] TRACE` parsed, None (and a FAIL) if not."""
    rc, text, err = run([gpuscope, what, "--format", "json"] + list(extra) + [trace])
    if rc != 0:
        out(name, False, "gpuscope %s exit %d: %s" % (what, rc, err.strip()[-200:]))
        return None
    try:
        return json.loads(text)
    except ValueError as e:
        out(name, False, "gpuscope %s: not JSON: %s" % (what, e))
        return None


def gs_dump(gpuscope, trace, name):
    rc, text, err = run([gpuscope, "dump", trace])
    if rc != 0:
        out(name, False, "gpuscope dump exit %d: %s" % (rc, err.strip()[-200:]))
        return None
    return text


API_RE = re.compile(r"^\d+ api kind=(\w+) pid=(-?\d+) tid=(-?\d+) .* name=\"([^\"]*)\"")


def api_calls(dump):
    """[(kind, pid, tid, name)] of the dump's API call lines."""
    calls = []
    for line in dump.splitlines():
        m = API_RE.match(line)
        if m:
            calls.append((m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)))
    return calls


def program_ids(path):
    """The probe's own pid and thread ids from its output: (pid, {tids})."""
    pid, tids = None, set()
    try:
        text = open(path, errors="replace").read()
    except OSError:
        return None, tids
    for m in re.finditer(r"^probe pid=(\d+)$", text, re.M):
        pid = int(m.group(1))
    for m in re.finditer(r"^probe tid \w+=(\d+)$", text, re.M):
        tids.add(int(m.group(1)))
    return pid, tids


def check_common(info, rep, dump, stdout_path):
    """What holds for every trace the collector writes."""
    ops = info.get("ops", {})
    out("ops present", info.get("op_total", 0) > 0, "ops=%s" % json.dumps(ops))
    out("no drops", info.get("dropped", -1) == 0 and not info.get("warnings"),
        "dropped=%s warnings=%s" % (info.get("dropped"), info.get("warnings")))
    devs = info.get("device_list", [])
    # The collector writes both counts; a Kineto trace has no copy-engine count.
    ce = 1 if info.get("format") == "gscope" else 0
    out("devices", bool(devs) and all(d.get("sm_count", 0) > 0 and d.get("copy_engines", 0) >= ce
                                      for d in devs),
        "; ".join("%s %s: %s SMs, %s copy engines, cc %s" %
                  (d.get("id"), d.get("name"), d.get("sm_count"), d.get("copy_engines"),
                   d.get("compute_capability")) for d in devs) or "no device")
    if rep is not None:
        for dev in rep.get("devices", []):
            b = dev.get("breakdown", {})
            s = sum(b.get(k, 0) for k in ("kernel_ns", "copy_ns", "sync_ns", "idle_ns"))
            w = dev.get("window_ns") or [0, 0]
            out("breakdown sums (device %s)" % dev.get("device"),
                s == b.get("total_ns") and b.get("total_ns") == w[1] - w[0],
                "kernel+copy+sync+idle=%d total=%s window=%d" % (s, b.get("total_ns"),
                                                                 w[1] - w[0]))
        g = rep.get("trace", {}).get("graph", {})
        out("waits linked", g.get("unlinked_waits", -1) == 0,
            "unlinked_waits=%s unlinked_wait_calls=%s" % (g.get("unlinked_waits"),
                                                         g.get("unlinked_wait_calls")))
    if dump is None:
        return
    calls = api_calls(dump)
    procs = [p.get("pid") for p in info.get("process_list", [])]
    tids = set(c[2] for c in calls)
    pids = set(c[1] for c in calls)
    out("api calls", len(calls) > 0, "%d API calls in the dump" % len(calls))
    # Every id an OS thread id (gettid): pthread_t values are addresses, far above pid_max.
    out("thread ids are OS tids", bool(tids) and all(0 < t < PID_MAX for t in tids),
        "tids=%s" % sorted(tids)[:8])
    # The main thread's OS tid is the pid: a program whose main thread calls CUDA shows it.
    out("main thread id is the pid", bool(procs) and all(p in tids for p in procs),
        "pids=%s tids=%s" % (procs, sorted(tids)[:8]))
    out("api pids", pids <= set(procs), "api pids=%s processes=%s" % (sorted(pids), procs))
    if stdout_path:
        ppid, ptids = program_ids(stdout_path)
        if ppid is None or not ptids:
            out("thread ids = the program's", False, "no 'probe pid=/tid' lines in its output")
        else:
            # The program's launching threads are in the trace; CUDA's own
            # threads may be there too.
            out("thread ids include the program's", ptids <= tids and procs == [ppid],
                "trace pid %s tids %s, program pid %s tids %s" %
                (procs, sorted(tids), ppid, sorted(ptids)))


def check_probe(info, rep, dump, deps, gpuscope, trace):
    ops = info.get("ops", {})
    sy = info.get("syncs_by_kind", {})
    edges = rep.get("trace", {}).get("graph", {}).get("edges_by_kind", {}) if rep else {}
    out("kernels", ops.get("kernel", 0) >= 10, "kernels=%s (want >= 10)" % ops.get("kernel"))
    out("copies", ops.get("memcpy", 0) >= 3, "memcpy=%s (want >= 3)" % ops.get("memcpy"))
    out("memset", ops.get("memset", 0) >= 1, "memset=%s" % ops.get("memset"))
    for k in ("stream_wait", "stream_sync", "event_sync", "context_sync"):
        out("sync " + k, sy.get(k, 0) >= 1, "%s=%s" % (k, sy.get(k)))
    out("event records", info.get("event_records", 0) >= 1,
        "event_records=%s" % info.get("event_records"))
    for k in ("event", "default_stream", "host_sync", "sync_copy"):
        out("edge " + k, edges.get(k, 0) >= 1, "%s edges=%s" % (k, edges.get(k)))
    waits = rep.get("waits", []) if rep else []
    ev = [w for w in waits if w.get("kind") == "event"]
    out("event wait", any("spin_add" in (w.get("producer_name") or "") and
                          "spin_add" in (w.get("consumer_name") or "") for w in ev),
        "event waits: %s" % ["%s -> %s" % (w.get("producer_name"), w.get("consumer_name"))
                             for w in ev][:4])
    d = dump or ""
    out("nvtx range", info.get("nvtx_ranges", 0) >= 1 and
        re.search(r"range kind=nvtx .*name=\"probe\"", d) is not None,
        "nvtx_ranges=%s, 'probe' in the dump: %s" %
        (info.get("nvtx_ranges"), re.search(r"range kind=nvtx .*name=\"probe\"", d) is not None))
    names = set(c[3] for c in api_calls(d))
    for n in ("__cudaLaunchKernel", "cuLaunchKernel"):
        out(n + " named", any(x == n or x.startswith(n + "_") for x in names),
            "launch APIs in the dump: %s" % sorted(x for x in names if "aunch" in x))
    out("graph kernels", re.search(r"kernel .* graph=[1-9]", d) is not None,
        "kernels with a graph id in the dump")
    if deps:
        out("allocations", info.get("allocations", 0) >= 2,
            "allocations=%s" % info.get("allocations"))
        out("edge data", edges.get("data", 0) >= 1, "data edges=%s" % edges.get("data"))
        linked = data_linked_launches(gpuscope, trace, d)
        if linked is not None:
            apis = sorted(linked)
            # A memset and a copy alone do not do: the kernels' own pointers must link.
            for what, prefixes in (("<<<>>>", ("__cudaLaunchKernel", "cudaLaunchKernel")),
                                   ("cuLaunchKernel", ("cuLaunchKernel",))):
                out("data edge on a %s kernel" % what,
                    any(a == p or a.startswith(p + "_") for a in apis for p in prefixes),
                    "launch APIs of the kernels with a data edge: %s" % (apis or "none"))


KERNEL_CORR_RE = re.compile(r"^\d+ kernel dev=(\d+) stream=(\d+) .*?\bcorr=(\d+) ")
API_CORR_RE = re.compile(r"^\d+ api kind=(\w+) pid=-?\d+ tid=(-?\d+) .*?\bcorr=(\d+) .*"
                         r"name=\"([^\"]*)\"")


def api_by_corr(dump):
    """{correlation: (tid, name)} of the dump's runtime and driver calls."""
    calls = {}
    for line in dump.splitlines():
        m = API_CORR_RE.match(line)
        if m and m.group(1) in ("runtime", "driver"):
            calls.setdefault(int(m.group(3)), (int(m.group(2)), m.group(4)))
    return calls


def data_linked_launches(gpuscope, trace, dump):
    """The launch APIs of the kernels at either end of a data edge: the edges
    are the `data` arrows of `gpuscope export` (each bound to a point inside
    its op), the API by the kernel's correlation in the dump. None (and a
    FAIL) when the export fails."""
    rc, text, err = run([gpuscope, "export", "-o", "-", trace])
    if rc != 0:
        out("data edges by launch API", False, "gpuscope export exit %d: %s" %
            (rc, err.strip()[-200:]))
        return None
    try:  # Decimal: timestamps are us with ns decimals, past a double's precision
        events = json.loads(text, parse_float=decimal.Decimal).get("traceEvents", [])
    except ValueError as e:
        out("data edges by launch API", False, "gpuscope export: not JSON: %s" % e)
        return None
    kernels = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "kernel":
            kernels.setdefault((e.get("pid"), e.get("tid")), []).append(e)
    calls = api_by_corr(dump or "")
    linked = set()
    for e in events:
        if e.get("cat") != "dependency" or e.get("name") != "data" or e.get("ph") not in ("s", "f"):
            continue
        for k in kernels.get((e.get("pid"), e.get("tid")), []):
            if k["ts"] <= e["ts"] <= k["ts"] + k.get("dur", 0):
                corr = k.get("args", {}).get("correlation")
                linked.add(calls.get(corr, (0, "?"))[1])
    return linked


def options(cmd, args, known):
    """--NAME VALUE pairs after the positional arguments: {NAME: VALUE}."""
    got = {}
    for i in range(0, len(args), 2):
        name = args[i][2:] if args[i].startswith("--") else None
        if name not in known or i + 1 >= len(args):
            raise SystemExit("gpucheck: %s: bad option %s" % (cmd, args[i]))
        got[name] = args[i + 1]
    return got


def cmd_trace(args):
    gpuscope, trace, profile = args[0], args[1], args[2]
    opt = options("trace", args[3:], ("stdout", "launches"))
    stdout_path, launches = opt.get("stdout"), int(opt.get("launches", 0))
    info = gs_json(gpuscope, "info", trace, "info")
    if info is None:
        return
    rep = gs_json(gpuscope, "analyze", trace, "analyze")
    dump = gs_dump(gpuscope, trace, "dump")
    check_common(info, rep, dump, stdout_path if profile.startswith("probe") else None)
    if profile.startswith("probe"):
        check_probe(info, rep, dump, profile == "probe-deps", gpuscope, trace)
    elif profile == "loop":
        k = info.get("ops", {}).get("kernel", 0)
        out("every launch recorded", k >= launches,
            "kernels=%s of %d launches (+ the warm-up)" % (k, launches))
    elif profile != "generic":
        raise SystemExit("gpucheck: unknown profile %s" % profile)


def rel_close(a, b, tol):
    if a == b:
        return True
    return max(abs(a), abs(b)) > 0 and abs(a - b) / max(abs(a), abs(b)) <= tol


OP_RE = re.compile(r"^(\d+) (kernel|memcpy|memset) .*?\bdur=(\d+)")


def measured(dump, name):
    """The host range NAME of a dump, and the GPU ops inside it:
    ((t0, t1), {kind: [count, ns]}), or (None, {}) without the range."""
    window = None
    # The host's range (NVTX, or the profiler's record_function), not its GPU drawing.
    rng = re.compile(r"^(\d+) range kind=(?:nvtx|user_annotation) .*?\bdur=(\d+) .*name=\"%s\"$"
                     % re.escape(name))
    for line in dump.splitlines():
        m = rng.match(line)
        if m:
            window = (int(m.group(1)), int(m.group(1)) + int(m.group(2)))
            break
    ops = {"kernel": [0, 0], "memcpy": [0, 0], "memset": [0, 0]}
    if window is None:
        return None, {}
    for line in dump.splitlines():
        m = OP_RE.match(line)
        if m:
            t, d = int(m.group(1)), int(m.group(3))
            if window[0] <= t and t + d <= window[1]:
                ops[m.group(2)][0] += 1
                ops[m.group(2)][1] += d
    return window, ops


def pct(a, b):
    return 100.0 * (b - a) / a if a else 0.0


def cmd_torch(args):
    """The profiler's trace (Kineto) against gpuscope's of the same program.
    Counts over the whole run; times inside the program's measured range (the
    GPU is warm there: the warm-up before it runs at rising clocks)."""
    gpuscope, kineto, gscope = args[0], args[1], args[2]
    opt = options("torch", args[3:], ("maps", "tolerance", "range"))
    maps, tol = opt.get("maps"), float(opt.get("tolerance", 0.02))
    name = opt.get("range", "gpucheck_measured")
    ki = gs_json(gpuscope, "info", kineto, "kineto info")
    gi = gs_json(gpuscope, "info", gscope, "gscope info")
    kr = gs_json(gpuscope, "analyze", kineto, "kineto analyze")
    gr = gs_json(gpuscope, "analyze", gscope, "gscope analyze")
    kdump = gs_dump(gpuscope, kineto, "kineto dump")
    gdump = gs_dump(gpuscope, gscope, "gscope dump")
    if None in (ki, gi, kr, gr, kdump, gdump):
        return
    for k in ("kernel", "memcpy", "memset"):
        a, b = ki.get("ops", {}).get(k, 0), gi.get("ops", {}).get(k, 0)
        out("op count " + k, a == b, "whole run: profiler %d, gpuscope %d" % (a, b))
    for k in ("kernel", "memcpy"):
        a, b = ki.get("op_ns", {}).get(k, 0), gi.get("op_ns", {}).get(k, 0)
        out("%s time, whole run" % k, "info", "profiler %d ns, gpuscope %d ns (%.2f%%)" %
            (a, b, pct(a, b)))
    kwin, kops = measured(kdump, name)
    gwin, gops = measured(gdump, name)
    out("measured range", kwin is not None and gwin is not None,
        "range '%s': profiler %s, gpuscope %s" % (name, kwin, gwin))
    if kwin is not None and gwin is not None:
        for k in ("kernel", "memcpy", "memset"):
            a, b = kops[k][0], gops[k][0]
            out("measured op count " + k, a == b, "profiler %d, gpuscope %d" % (a, b))
        for k in ("kernel", "memcpy"):
            a, b = kops[k][1], gops[k][1]
            out("measured %s time" % k, a > 0 and rel_close(a, b, tol),
                "profiler %d ns, gpuscope %d ns (%.2f%%, tolerance %.0f%%)" %
                (a, b, pct(a, b), 100 * tol))

    def dev_streams(rep):
        return sum(len(d.get("streams", [])) for d in rep.get("devices", []))

    a, b = dev_streams(kr), dev_streams(gr)
    out("streams with ops", a == b and a >= 2, "profiler %d, gpuscope %d (want >= 2)" % (a, b))

    def waits(rep, info):
        g = rep.get("trace", {}).get("graph", {})
        ev = [w for w in rep.get("waits", []) if w.get("kind") == "event"]
        return (info.get("syncs_by_kind", {}).get("stream_wait", 0),
                g.get("edges_by_kind", {}).get("event", 0), len(ev), g.get("unlinked_waits", 0))

    kw, gw = waits(kr, ki), waits(gr, gi)
    out("cross-stream waits", kw[0] >= 1 and kw[0] == gw[0] and kw[3] == 0 and gw[3] == 0,
        "stream waits profiler %d, gpuscope %d; unlinked %d, %d" % (kw[0], gw[0], kw[3], gw[3]))
    out("event edges", kw[1] >= 1 and kw[1] == gw[1],
        "profiler %d, gpuscope %d" % (kw[1], gw[1]))
    out("waits", kw[2] == gw[2], "event waits found: profiler %d, gpuscope %d" % (kw[2], gw[2]))
    kd, gd = kr.get("devices", []), gr.get("devices", [])
    out("devices analyzed", len(kd) == len(gd) == 1, "profiler %d, gpuscope %d" % (len(kd),
                                                                                  len(gd)))
    if kwin is not None and gwin is not None:
        # The breakdown of the measured range, each trace on its own clock.
        kr = gs_json(gpuscope, "analyze", kineto, "kineto analyze --window",
                     ["--window", "%d:%d" % kwin])
        gr = gs_json(gpuscope, "analyze", gscope, "gscope analyze --window",
                     ["--window", "%d:%d" % gwin])
        kd = kr.get("devices", []) if kr else []
        gd = gr.get("devices", []) if gr else []
    if len(kd) == len(gd) == 1:
        where = "measured range" if kwin is not None and gwin is not None else "whole run"
        kb, gb = kd[0].get("breakdown", {}), gd[0].get("breakdown", {})
        for k in ("kernel_ns", "copy_ns"):
            a, b = kb.get(k, 0), gb.get(k, 0)
            out("breakdown " + k, rel_close(a, b, tol), "%s: profiler %d, gpuscope %d (%.2f%%)" %
                (where, a, b, pct(a, b)))
        # sync and idle depend on the host's pace, which the profiler slows: shown only.
        for k in ("sync_ns", "idle_ns", "total_ns"):
            out("breakdown " + k, "info", "%s: profiler %d, gpuscope %d" %
                (where, kb.get(k, 0), gb.get(k, 0)))
        a, b = (kd[0].get("waits_summary", {}).get("count", 0),
                gd[0].get("waits_summary", {}).get("count", 0))
        out("waits in the breakdown", a == b, "%s: profiler %d, gpuscope %d" % (where, a, b))
    if maps:
        try:
            paths = sorted(set(l.strip() for l in open(maps) if l.strip()))
        except OSError:
            paths = []
        out("one libcupti in the process", len(paths) == 1, "mapped: %s" % paths)


def cmd_overhead(args):
    n = int(args[0])

    def med(path):
        try:
            v = [int(l) for l in open(path) if l.strip().isdigit()]
        except OSError:
            v = []
        return (statistics.median(v) if v else None), len(v)

    base, nb = med(args[1])
    rec, nr = med(args[2])
    deps, nd = med(args[3]) if len(args) > 3 else (None, 0)
    if not base or not rec:
        out("overhead", False, "no timings: %d runs without, %d with the collector" % (nb, nr))
        return
    per = (rec - base) / n
    pct = 100.0 * (rec - base) / base
    # Reported, not judged: kernel tracing alone costs about 2 us a launch,
    # and an empty-kernel loop is the worst case, not a program's cost.
    out("overhead", "info",
        "%.3f us/launch added (%.2f%% end to end), median of %d/%d runs: %.3f -> %.3f us "
        "per launch" %
        (per / 1000, pct, nb, nr, base / n / 1000, rec / n / 1000))
    if deps:
        out("overhead --data-deps", "info", "%.3f us/launch added (%.2f%%), median of %d runs" %
            ((deps - base) / n / 1000, 100.0 * (deps - base) / base, nd))


def cmd_facts(args):
    """One line about a trace (for the experiments): op counts, drops,
    warnings, devices; exit 1 when gpuscope cannot read it."""
    gpuscope, trace = args[0], args[1]
    rc, text, err = run([gpuscope, "info", "--format", "json", trace])
    try:
        info = json.loads(text) if rc == 0 else None
    except ValueError:
        info = None
    if info is None:
        print("unreadable: gpuscope info exit %d: %s" % (rc, " ".join(err.split())[-200:]))
        return 1
    ops = info.get("ops", {})
    print("kernels=%d memcpy=%d memset=%d dropped=%s warnings=%s devices=%s" %
          (ops.get("kernel", 0), ops.get("memcpy", 0), ops.get("memset", 0),
           info.get("dropped"), json.dumps(info.get("warnings", []))[:300],
           json.dumps([d.get("name") for d in info.get("device_list", [])])))
    return 0


def cmd_streams(args):
    """The per-thread default stream experiment: for each LABEL TRACE STDOUT,
    the stream each kernel was recorded on, by launching thread (main or
    worker, from the program's "tid main=T worker=T" line) and launch API."""
    gpuscope, parts = args[0], []
    for i in range(1, len(args) - 2, 3):
        label, trace, stdout = args[i], args[i + 1], args[i + 2]
        rc, dump, err = run([gpuscope, "dump", trace])
        if rc != 0:
            parts.append("%s: gpuscope dump exit %d" % (label, rc))
            continue
        roles = {}
        try:
            m = re.search(r"tid main=(\d+) worker=(\d+)", open(stdout, errors="replace").read())
        except OSError:
            m = None
        if m:
            roles = {int(m.group(1)): "main", int(m.group(2)): "worker"}
        kinds = {}
        for line in dump.splitlines():
            sm = re.match(r"^stream index=\d+ pid=-?\d+ dev=\d+ ctx=\d+ id=(\d+) kind=(\w+)", line)
            if sm:
                kinds[sm.group(1)] = sm.group(2)
        calls = api_by_corr(dump)
        seen = []
        for line in dump.splitlines():
            km = KERNEL_CORR_RE.match(line)
            if not km:
                continue
            tid, api = calls.get(int(km.group(3)), (None, "?"))
            key = "%s %s -> stream %s (%s)" % (roles.get(tid, "tid %s" % tid), api, km.group(2),
                                               kinds.get(km.group(2), "?"))
            seen.append(key)
        counts = {}
        for k in seen:
            counts[k] = counts.get(k, 0) + 1
        parts.append("%s: %s" % (label, ", ".join("%s x%d" % (k, n) for k, n in counts.items())
                                 or "no kernels"))
    print("; ".join(parts))
    return 0


def cmd_summary(args):
    rows = []
    for line in open(args[0], errors="replace"):
        f = line.rstrip("\n").split("\t")
        if len(f) >= 2:
            rows.append({"name": f[0], "status": f[1], "detail": f[2] if len(f) > 2 else ""})
    doc = {"schema": "gpuscope.gpucheck/2",
           "ok": sum(1 for r in rows if r["status"] == "ok"),
           "failed": sum(1 for r in rows if r["status"] == "FAIL"),
           "skipped": sum(1 for r in rows if r["status"] == "skip"),
           "checks": rows}
    for kv in args[2:]:
        k, _, v = kv.partition("=")
        doc[k] = v
    with open(args[1], "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def main(argv):
    cmds = {"trace": (cmd_trace, 3), "torch": (cmd_torch, 3), "overhead": (cmd_overhead, 3),
            "summary": (cmd_summary, 2), "facts": (cmd_facts, 2), "streams": (cmd_streams, 4)}
    if len(argv) < 2 or argv[1] not in cmds or len(argv) - 2 < cmds[argv[1]][1]:
        sys.stderr.write(__doc__)
        return 2
    rc = cmds[argv[1]][0](argv[2:])
    sys.stdout.flush()
    return 1 if failed or rc else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
