# SPDX-License-Identifier: MIT
"""Two-stream PyTorch program for the GPU check (tests/gpu/run.sh).

  torch_streams.py [--profile OUT.json] [--maps OUT.txt]

First a warm-up (matrix products until the GPU's clocks are up, then a
synchronize); then, inside the host range "gpucheck_measured", 8 steps: each
uploads a pinned batch on a side stream, records an event there, makes the
default stream wait for it and runs three matrix products on the default
stream; then torch.cuda.synchronize() and one copy back, checked.

--profile: the whole run (from before the first CUDA call) under
torch.profiler, written as Kineto JSON with export_chrome_trace; the range
is a record_function. Without it no profiler is started and the range is an
NVTX range: that is the run to record with `gpuscope record` (one CUPTI
client per process). --maps: write the libcupti files this
process has mapped, one a line. Exit 0 when the results are right, 1 when
not, 77 when PyTorch sees no GPU.
"""
import argparse
import sys

STEPS = 8
WARMUP = 300
N = 2048
RANGE = "gpucheck_measured"


def work(torch, profiled):
    dev = torch.device("cuda")
    side = torch.cuda.Stream()
    main = torch.cuda.current_stream()
    host = [torch.full((N, N), float(i + 1)).pin_memory() for i in range(STEPS)]
    w = torch.eye(N, device=dev) * 0.5
    for _ in range(WARMUP):
        torch.mm(w, w)
    torch.cuda.synchronize()
    if profiled:
        rng = torch.profiler.record_function(RANGE)
        rng.__enter__()
    else:
        torch.cuda.nvtx.range_push(RANGE)
    outs = []
    for i in range(STEPS):
        with torch.cuda.stream(side):
            x = host[i].to(dev, non_blocking=True)
            ev = torch.cuda.Event()
            ev.record(side)
        main.wait_event(ev)
        x.record_stream(main)
        y = x @ w
        y = y @ w
        y = y @ w
        outs.append(y)
    torch.cuda.synchronize()
    if profiled:
        rng.__exit__(None, None, None)
    else:
        torch.cuda.nvtx.range_pop()
    got = torch.stack([o[0, 0] for o in outs]).cpu()
    want = [(i + 1) * 0.125 for i in range(STEPS)]
    return all(abs(float(g) - v) < 1e-3 for g, v in zip(got, want))


def mapped_cupti():
    try:
        with open("/proc/self/maps") as f:
            return sorted(set(l.split()[-1] for l in f if "libcupti" in l))
    except OSError:
        return []


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", metavar="OUT.json")
    ap.add_argument("--maps", metavar="OUT.txt")
    args = ap.parse_args()
    import torch

    prof = None
    if args.profile:
        import torch.profiler
        from torch.profiler import ProfilerActivity, profile

        kw = {}
        try:  # the profiler's cuda_sync events (stream waits) are opt-in
            kw["experimental_config"] = torch._C._profiler._ExperimentalConfig(
                enable_cuda_sync_events=True)
        except (AttributeError, TypeError):
            pass
        prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], **kw)
        prof.__enter__()
    if not torch.cuda.is_available():
        print("torch_streams: PyTorch sees no GPU")
        return 77
    ok = work(torch, prof is not None)
    if prof is not None:
        prof.__exit__(None, None, None)
        prof.export_chrome_trace(args.profile)
    if args.maps:
        with open(args.maps, "w") as f:
            for p in mapped_cupti():
                f.write(p + "\n")
    print("torch_streams %s: torch %s, %d steps" % ("ok" if ok else "WRONG RESULTS",
                                                    torch.__version__, STEPS))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
