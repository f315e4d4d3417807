# SPDX-License-Identifier: MIT
"""Two-stream PyTorch program for the GPU check (tests/gpu/run.sh).

  torch_streams.py [--profile OUT.json] [--maps OUT.txt]

Each step uploads a pinned batch on a side stream, records an event there,
makes the default stream wait for it and runs three matrix products on the
default stream; then torch.cuda.synchronize() and one copy back, checked.

--profile: the whole run (from before the first CUDA call) under
torch.profiler, written as Kineto JSON with export_chrome_trace. Without it
no profiler is started: that is the run to record with `gpuscope record`
(one CUPTI client per process). --maps: write the libcupti files this
process has mapped, one a line. Exit 0 when the results are right, 1 when
not, 77 when PyTorch sees no GPU.
"""
import argparse
import sys

STEPS = 8
N = 2048


def work(torch):
    dev = torch.device("cuda")
    side = torch.cuda.Stream()
    main = torch.cuda.current_stream()
    host = [torch.full((N, N), float(i + 1)).pin_memory() for i in range(STEPS)]
    w = torch.eye(N, device=dev) * 0.5
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
    ok = work(torch)
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
