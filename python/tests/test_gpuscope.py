# SPDX-License-Identifier: MIT
"""The Python package against the command line: on every shared trace and
sample, each table equals the matching part of `gpuscope analyze --format
json` field for field; bad input raises the message the command line
prints; two analyses on two threads give what one at a time gives.

GPUSCOPE_BIN names the gpuscope binary (make check sets it);
GS_SHARED_DATA the shared traces (default ../shared/data beside the tree).
"""
import glob
import json
import math
import os
import subprocess
import sys
import threading

import pytest

import gpuscope

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.environ.get("GS_SHARED_DATA", os.path.join(os.path.dirname(ROOT), "shared", "data"))
GPUSCOPE = os.environ.get("GPUSCOPE_BIN", os.path.join(ROOT, "build", "analyzer", "gpuscope"))


def traces():
    found = sorted(glob.glob(os.path.join(SHARED, "kineto", "*", "*.json.gz")))
    found += sorted(glob.glob(os.path.join(SHARED, "nsys", "*", "*.sqlite")))
    found += sorted(glob.glob(os.path.join(ROOT, "samples", "synthetic", "*.gscope")))
    found.append(os.path.join(ROOT, "samples", "tiny_pipeline.json"))
    return found


def cli(*args):
    if not os.access(GPUSCOPE, os.X_OK):
        pytest.skip("no gpuscope binary at %s (set GPUSCOPE_BIN)" % GPUSCOPE)
    return subprocess.run([GPUSCOPE, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)


def report_json(path):
    r = cli("analyze", "--format", "json", "-q", path)
    if r.returncode != 0:
        return None, r
    return json.loads(r.stdout), r


def same(a, b, where):
    """JSON writes ratios with a few decimals; everything else is exact."""
    if isinstance(a, float) or isinstance(b, float):
        if a is None or b is None:
            assert a == b, where
            return
        assert math.isclose(a, b, rel_tol=1e-3, abs_tol=1e-4), "%s: %r != %r" % (where, a, b)
    else:
        assert a == b, "%s: %r != %r" % (where, a, b)


def same_row(row, want, keys, where):
    for k in keys:
        same(row[k], want[k], "%s.%s" % (where, k))


def device_key(d):
    return (d["rank"], d["device"])


@pytest.mark.parametrize("path", traces(), ids=os.path.basename)
def test_tables_equal_json_report(path):
    want, run = report_json(path)
    try:
        r = gpuscope.analyze(path)
    except gpuscope.Error as e:
        assert want is None, "the CLI analysed %s, Python raised %s" % (path, e)
        assert run.returncode == 1
        assert str(e) in run.stderr
        return
    assert want is not None, "Python analysed %s, the CLI said: %s" % (path, run.stderr)
    devices = {device_key(d): d for d in want["devices"]}
    got = r.rows("devices")
    assert sorted(device_key(d) for d in got) == sorted(devices)
    for d in got:
        w = devices[device_key(d)]
        where = "%s rank %d device %d" % (os.path.basename(path), d["rank"], d["device"])
        same_row(d, w, ["name", "host", "pid", "uuid", "window_default", "ops"], where)
        assert [d["window_start_ns"], d["window_end_ns"]] == w["window_ns"], where
        s = w["schedule"]
        same_row(d, s, ["actual_ns", "dependency_bound_ns", "ideal_ns", "efficiency",
                        "efficiency_bounded", "gap_ns"], where + " schedule")

    def per_device(name, rows_of):
        by = {}
        for row in r.rows(name):
            by.setdefault(device_key(row), []).append(row)
        for key, w in devices.items():
            got_rows = by.get(key, [])
            want_rows = rows_of(w)
            assert len(got_rows) == len(want_rows), "%s %s: %d rows, JSON %d" % (
                name, key, len(got_rows), len(want_rows))
            for i, (g, x) in enumerate(zip(got_rows, want_rows)):
                yield "%s %s %s[%d]" % (os.path.basename(path), key, name, i), g, x

    for where, g, w in per_device("breakdown", lambda w: [w]):
        b = w["breakdown"]
        same_row(g, b, ["kernel_ns", "copy_ns", "sync_ns", "idle_ns", "total_ns", "dominant"],
                 where)
        same(g["segments"], w["segments"], where)
        same_row(g, w["overlap"], ["copy_total_ns", "copy_hidden_ns", "kernel_concurrency_ns"],
                 where)
        same_row(g, w["idle"], ["host_bound_ns", "launch_latency_ns", "unattributed_ns"], where)
    for where, g, w in per_device("findings", lambda w: w["findings"]):
        same_row(g, w, ["kind", "ns", "evidence", "text", "advice", "advice_kind"], where)
        assert sorted(g["numbers"]) == sorted(w["numbers"]), where
        for k in w["numbers"]:
            same(float(g["numbers"][k]), float(w["numbers"][k]), where + " " + k)
    for where, g, w in per_device("kernels", lambda w: w["kernels"]):
        same_row(g, w, ["name", "count", "ns", "mean_ns", "min_ns", "median_ns", "p95_ns",
                        "max_ns", "std_ns", "class"], where)
    for where, g, w in per_device("streams", lambda w: w["streams"]):
        same_row(g, w, ["stream", "kind", "priority", "ops", "kernel_ns", "copy_ns", "kernels",
                        "copies", "busy_ns", "pid", "index"], where)
    for where, g, w in per_device("gap", lambda w: w["schedule"]["gap"] or []):
        same_row(g, w, ["cause", "ns", "evidence"], where)
    for where, g, w in per_device("steps", lambda w: w["steps"]):
        same_row(g, w, ["step", "name", "analysed", "partial", "gpu_drawn", "ops"], where)
        assert [g["host_start_ns"], g["host_end_ns"]] == w["host_ns"], where
        assert [g["gpu_start_ns"], g["gpu_end_ns"]] == w["gpu_window_ns"], where
        assert g["figures"] == ("time_ns" in w), where
        if g["figures"]:
            same_row(g, w, ["time_ns", "kernel_ns", "copy_ns", "sync_ns", "idle_ns",
                            "actual_ns", "ideal_ns", "efficiency", "gap_cause"], where)
    for where, g, w in per_device("operators", lambda w: w["operators"]["rows"]):
        same_row(g, w, ["name", "source", "outside", "calls", "total_calls", "kernels",
                        "copies", "gpu_ns", "kernel_ns", "copy_ns"], where)
    for where, g, w in per_device("critical_path", lambda w: w["schedule"]["critical_path"]):
        same_row(g, w, ["op", "op_index", "name", "stream", "ns", "kind", "start_ns"], where)

    waits = r.rows("waits")
    assert len(waits) == len(want["waits"])
    for i, (g, w) in enumerate(zip(waits, want["waits"])):
        same_row(g, w, list(w), "%s waits[%d]" % (os.path.basename(path), i))

    ranks = r.rows("ranks")
    assert sorted(x["rank"] for x in ranks) == sorted({d["rank"] for d in want["devices"]} |
                                                      {x["rank"] for x in ranks})


@pytest.mark.parametrize("path", traces()[:3] + traces()[-2:], ids=os.path.basename)
def test_ops_equal_the_trace(path):
    info = cli("info", "--format", "json", path)
    assert info.returncode == 0, info.stderr
    want = json.loads(info.stdout)["ops"]
    ops = gpuscope.load(path).ops()
    got = ops["kind"].value_counts().to_dict()
    assert got == {k: v for k, v in want.items() if v}
    assert (ops["end_ns"] - ops["start_ns"] == ops["dur_ns"]).all()
    assert ops["name"].map(lambda s: isinstance(s, str)).all()


def test_bad_input_raises_the_cli_message(tmp_path):
    cases = {
        "empty.json": b"",
        "garbage.json": b"{\"traceEvents\": [ {\"ph\": \"X\", ",
        "notatrace.bin": b"\x00\x01\x02 definitely not a trace",
    }
    for name, data in cases.items():
        p = tmp_path / name
        p.write_bytes(data)
        run = cli("analyze", "-q", str(p))
        assert run.returncode == 1, run.stderr
        with pytest.raises(gpuscope.Error) as e:
            gpuscope.analyze(p)
        assert run.stderr.strip() == "gpuscope: error: " + str(e.value)
        assert e.value.causes and all(c in str(e.value) for c in e.value.causes)
    with pytest.raises(gpuscope.Error) as e:
        gpuscope.analyze(tmp_path / "missing.json.gz")
    assert "missing.json.gz" in str(e.value)
    with pytest.raises(ValueError):
        gpuscope.analyze([])
    with pytest.raises(ValueError):
        gpuscope.analyze(traces()[-1], step="sometimes")


def test_two_threads_at_once():
    paths = [p for p in traces() if p.endswith(".json.gz")][:4] or traces()[:4]
    alone = {p: gpuscope.analyze(p).rows("findings") for p in paths}
    results, errors = {}, []

    def work(p):
        try:
            for _ in range(3):
                results.setdefault(p, []).append(gpuscope.analyze(p).rows("findings"))
        except Exception as e:  # reported below, not lost in the thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(p,)) for p in paths]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for p in paths:
        assert all(x == alone[p] for x in results[p])


def test_error_in_one_thread_stays_there(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"{")
    good = traces()[-1]
    messages = []

    def fail():
        for _ in range(20):
            try:
                gpuscope.analyze(bad)
            except gpuscope.Error as e:
                messages.append(str(e))

    t = threading.Thread(target=fail)
    t.start()
    for _ in range(20):
        gpuscope.analyze(good)
    t.join()
    assert len(messages) == 20 and len(set(messages)) == 1 and "bad.json" in messages[0]


def test_lists_without_pandas(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    r = gpuscope.analyze(traces()[-1])
    b = r.breakdown()
    assert isinstance(b, list) and b and b[0]["total_ns"] > 0
    ops = gpuscope.load(traces()[-1]).ops()
    assert isinstance(ops, list) and set(ops[0]) >= {"name", "start_ns", "end_ns"}


GEN = os.environ.get("GS_BENCH_GEN", os.path.join(os.path.dirname(GPUSCOPE), "..", "bench",
                                                 "gs_bench_gen"))


def test_job_tables_equal_json_report(tmp_path):
    if not os.access(GEN, os.X_OK):
        pytest.skip("no gs_bench_gen at %s (set GS_BENCH_GEN)" % GEN)
    subprocess.run([GEN, "--job", "4", "--out-dir", str(tmp_path), "--collectives", "24",
                    "--straggler", "2", "--skew-ns", "400000", "--steps", "--threads", "1"],
                   check=True, stdout=subprocess.DEVNULL)
    ranks = sorted(str(p) for p in tmp_path.glob("rank*.json"))
    run = cli("analyze", "--format", "json", "-q", *ranks)
    assert run.returncode == 0, run.stderr
    job = json.loads(run.stdout)["job"]
    r = gpuscope.analyze(ranks)

    comms = r.rows("communicators")
    assert len(comms) == len(job["communicators"]) > 0
    for g, w in zip(comms, job["communicators"]):
        same_row(g, w, [k for k in w if k not in ("ranks", "counts", "unmatched")],
                 "communicator %d" % w["id"])
        assert g["ranks"] == len(w["ranks"])
    coll = r.rows("collectives")
    assert len(coll) == job["collectives_total"] >= job["collectives_listed"] > 0
    for g, w in zip(coll, job["collectives"]):
        same_row(g, w, [k for k in w if k != "ranks"], "collective %d" % w["index"])
        assert g["ranks"] == len(w["ranks"])
    assert any(g["last_rank"] == 2 for g in coll)
    steps = r.rows("job_steps")
    assert len(steps) == len(job["steps"]["by_number"]) > 0
    for g, w in zip(steps, job["steps"]["by_number"]):
        same_row(g, w, [k for k in w if k != "by_rank"], "step %d" % w["number"])

    with_pandas = pytest.importorskip("pandas")
    assert isinstance(r.job.collectives(), with_pandas.DataFrame)
    assert list(r.job.ranks()["rank"]) == [0, 1, 2, 3]
    one = gpuscope.analyze(ranks[0])
    assert one.rows("collectives") == [] and one.rows("job_steps") == []


def test_example_notebook_runs():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    path = os.path.join(ROOT, "python", "examples", "quickstart.ipynb")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": os.path.dirname(path)}})
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
