# SPDX-License-Identifier: MIT
# shellcheck shell=sh disable=SC2154 # run.sh's variables
#
# The GPU check's one-shot experiments: sourced by run.sh (it uses run.sh's
# say, check, limit, bounded, logtail and its variables), copied to the
# bundle beside it. See tests/gpu/README.md.
#
# Nine questions the CUPTI headers leave open, each settled by one run of
# bin/experiments (tests/gpu/experiments.cu) or of PyTorch, each under its
# own timeout (and what is left of run.sh's budget), each writing one line
# `NAME: RESULT` to OUTDIR/experiments.txt and one `experiment NAME` line to
# the summary:
#
#   a device-name   `record` under GLIBC_TUNABLES=glibc.malloc.check=3 (with
#                   libc_malloc_debug preloaded where glibc has it): does the
#                   program run clean with the collector (which copies CUPTI's
#                   device name, never frees it)
#   b query-records cudaEventQuery / cudaStreamQuery on unfinished and finished
#                   work, with cuptiActivityEnableAllSyncRecords 1 and 0: which
#                   SYNCHRONIZATION records come, with which returnValue
#   c nested-driver does a runtime launch (<<<>>>, cudaLaunchKernel) raise
#                   nested driver callbacks (cuLaunchKernel), and driver records
#   d per-thread    the streams recorded for default-stream kernels from two
#                   threads, legacy build and --default-stream per-thread
#                   (_ptsz APIs), and for cudaStreamPerThread / cudaStreamLegacy
#   e drops         GPUSCOPE_BUFFER_SIZE=64K GPUSCOPE_MAX_BUFFERS=2 under a
#                   launch loop: are the dropped records counted by `info`
#   f torch-cupti   the CUPTI PyTorch loads (path, cuptiGetVersion); "torch not
#                   present" where python3 has no torch
#   g kill-9        a launch loop killed with SIGKILL 3 s into its launches:
#                   kernels kept, trace readable
#   h reset         cudaDeviceReset and cuCtxCreate/cuCtxDestroy mid-run: the
#                   program runs on, the trace reads, kernels on both sides
#   i subscribe     cuptiSubscribe from a program of its own (no collector) and
#                   non-zero kernel timestamps
#
# b, c and i come from one run (experiments cupti). A result is `info` (a
# finding to read), `ok`/`FAIL` where the collector or gpuscope is judged
# (a, e, g, h, i), `skip` in a dry run: there each program runs as far as
# it can (record warns that there is no driver, the program exits 77) and
# the line says "needs a GPU".

xfile=$out/experiments.txt
: >"$xfile"
xdir=$scratch/x
mkdir -p "$xdir"
xbin=$here/bin/experiments

# experiment NAME STATUS RESULT: its line in experiments.txt and the summary.
experiment() {
	echo "$1: $3" >>"$xfile"
	check "experiment $1" "$2" "$3"
}

# xtime SECONDS: SECONDS, or what is left of the budget when less (status 1
# when it is spent).
xtime() {
	xt=$(limit) || return 1
	[ "$xt" -gt "$1" ] && xt=$1
	echo "$xt"
}

# xrun NAME SECONDS CMD...: CMD under its own timeout; its output in
# $xdir/NAME.out and NAME.err, its status in $xrc (124/137: timed out; 200:
# not run, the budget is spent).
xrun() {
	xn=$1
	xs=$2
	shift 2
	if ! xt=$(xtime "$xs"); then
		xrc=200
		: >"$xdir/$xn.out"
		echo "not run: the time budget is spent" >"$xdir/$xn.err"
		return 0
	fi
	bounded "$xt" "$@" >"$xdir/$xn.out" 2>"$xdir/$xn.err"
	xrc=$?
	logtail "experiment $xn stdout" "$xdir/$xn.out"
	logtail "experiment $xn stderr" "$xdir/$xn.err"
}

# xtrace NAME: the trace `record -o $xdir/NAME-%p.gscope` wrote, or nothing.
xtrace() {
	ls "$xdir/$1"-*.gscope 2>/dev/null | head -n 1
}

# xfacts TRACE: gpucheck.py facts (kernels=, dropped=, ...), "no trace" or
# "unreadable: ..."; status 1 unless the trace reads.
xfacts() {
	if [ -z "$1" ]; then
		echo "no trace"
		return 1
	fi
	if [ "$have_python" != 1 ]; then
		echo "no python3 to read the trace"
		return 1
	fi
	python3 "$check_py" facts "$gpuscope" "$1" 2>&1 | head -n 1
	return 0
}

# xnum KEY LINE: the number after KEY= in LINE (0 if none).
xnum() {
	v=$(echo "$2" | sed -n "s/.*$1=\([0-9][0-9]*\).*/\1/p" | tail -n 1)
	echo "${v:-0}"
}

# xfailed NAME: when $xrc says the run did not get to its result (no GPU,
# timed out, not run), its experiment line, and status 0; else status 1.
xfailed() {
	case $xrc in
	77)
		msg=$(grep -h -m 1 "needs a GPU" "$xdir/$1.err" "$xdir/$1.out" 2>/dev/null)
		msg=${msg:-$(tail -n 1 "$xdir/$1.err" 2>/dev/null)}
		msg=${msg#needs a GPU: }
		if [ "$dry" = 1 ]; then
			experiment "$1" skip "needs a GPU (dry run: $msg)"
		else
			experiment "$1" FAIL "no usable GPU: $msg"
		fi
		;;
	124 | 137) experiment "$1" FAIL "timed out: $(tail -n 1 "$xdir/$1.err" | cut -c1-200)" ;;
	200) experiment "$1" FAIL "not run: the time budget is spent" ;;
	*) return 1 ;;
	esac
	return 0
}

say "experiments: one line each in experiments.txt"

# ---- a: the device name under malloc checking ----
mdebug=
for f in /lib/x86_64-linux-gnu/libc_malloc_debug.so.0 /lib64/libc_malloc_debug.so.0 \
	/usr/lib64/libc_malloc_debug.so.0 /usr/lib/x86_64-linux-gnu/libc_malloc_debug.so.0; do
	if [ -f "$f" ]; then
		mdebug=$f
		break
	fi
done
if [ -n "$mdebug" ]; then
	xrun device-name 30 env GLIBC_TUNABLES=glibc.malloc.check=3 LD_PRELOAD="$mdebug" \
		"$gpuscope" record -o "$xdir/device-name-%p.gscope" -- "$xbin" small
	how="glibc.malloc.check=3, $mdebug preloaded"
else
	xrun device-name 30 env GLIBC_TUNABLES=glibc.malloc.check=3 \
		"$gpuscope" record -o "$xdir/device-name-%p.gscope" -- "$xbin" small
	how="glibc.malloc.check=3 (no libc_malloc_debug: glibc's own check)"
fi
if ! xfailed device-name; then
	facts=$(xfacts "$(xtrace device-name)")
	frc=$?
	bad=$(grep -i -m 1 -E 'free\(\)|malloc|corrupt|double free|munmap_chunk' "$xdir/device-name.err")
	if [ "$xrc" -eq 0 ] && [ "$frc" -eq 0 ] && [ -z "$bad" ] &&
		grep -q "^small ok" "$xdir/device-name.out"; then
		experiment device-name ok "runs clean under $how: $(grep -m 1 '^small ok' "$xdir/device-name.out" | cut -c10-); trace: $facts"
	else
		experiment device-name FAIL "under $how: record exit $xrc, ${bad:-$(tail -n 1 "$xdir/device-name.err")}; trace: $facts"
	fi
fi

# ---- b, c, i: a CUPTI subscriber of its own ----
xrun cupti 30 "$xbin" cupti
for x in query-records:b nested-driver:c subscribe:i; do
	name=${x%:*}
	letter=${x#*:}
	cp "$xdir/cupti.out" "$xdir/$name.out"
	cp "$xdir/cupti.err" "$xdir/$name.err"
	xfailed "$name" && continue
	line=$(sed -n "s/^result $letter: //p" "$xdir/cupti.out" | head -n 1)
	if [ -z "$line" ]; then
		experiment "$name" FAIL "no result (exit $xrc): $(tail -n 1 "$xdir/cupti.err")"
	elif [ "$letter" = i ]; then
		experiment "$name" "$([ "$xrc" -eq 0 ] && echo ok || echo FAIL)" "$line"
	else
		experiment "$name" info "$line"
	fi
done

# ---- d: the per-thread default stream ----
xrun per-thread-legacy 20 "$gpuscope" record -o "$xdir/per-thread-legacy-%p.gscope" -- \
	"$xbin" streams
legacy_rc=$xrc
xrun per-thread 20 "$gpuscope" record -o "$xdir/per-thread-%p.gscope" -- \
	"$here/bin/experiments_ptsz" streams
if [ "$legacy_rc" -eq 77 ] && [ "$xrc" -ne 77 ]; then
	cp "$xdir/per-thread-legacy.err" "$xdir/per-thread.err"
	xrc=77
fi
if ! xfailed per-thread; then
	lt=$(xtrace per-thread-legacy)
	pt=$(xtrace per-thread)
	if [ -z "$lt" ] || [ -z "$pt" ] || [ "$have_python" != 1 ]; then
		experiment per-thread FAIL "record exit $legacy_rc (legacy), $xrc (per-thread): traces '$lt' '$pt'"
	else
		experiment per-thread info "$(python3 "$check_py" streams "$gpuscope" legacy "$lt" \
			"$xdir/per-thread-legacy.out" per-thread "$pt" "$xdir/per-thread.out" 2>&1 |
			head -n 1)"
	fi
fi

# ---- e: drops with two 64 KiB buffers ----
xrun drops 30 env GPUSCOPE_BUFFER_SIZE=64K GPUSCOPE_MAX_BUFFERS=2 \
	"$gpuscope" record -o "$xdir/drops-%p.gscope" -- "$xbin" launches 200000 10
if ! xfailed drops; then
	launched=$(xnum launched "$(grep '^launched=' "$xdir/drops.out" | tail -n 1)")
	facts=$(xfacts "$(xtrace drops)")
	frc=$?
	kept=$(xnum kernels "$facts")
	dropped=$(xnum dropped "$facts")
	what="$launched launches, 2 buffers of 64 KiB: $facts"
	if [ "$frc" -ne 0 ]; then
		experiment drops FAIL "$what (record exit $xrc)"
	elif [ "$dropped" -gt 0 ]; then
		experiment drops ok "drops counted: $what"
	elif [ "$kept" -lt "$launched" ]; then
		experiment drops FAIL "kernels lost but no drop counted: $what"
	else
		experiment drops info "no overflow, every launch kept: $what"
	fi
fi

# ---- f: the CUPTI PyTorch loads ----
if [ "$have_python" = 1 ] && python3 -c 'import torch' >/dev/null 2>&1; then
	xrun torch-cupti 60 python3 -c '
import ctypes, sys
import torch

def cupti_maps():
    paths = []
    for line in open("/proc/self/maps"):
        f = line.split()
        if len(f) >= 6 and "libcupti" in f[-1] and f[-1] not in paths:
            paths.append(f[-1])
    return paths

at_import = cupti_maps()
if not torch.cuda.is_available():
    sys.stderr.write("needs a GPU: torch %s sees no GPU\n" % torch.__version__)
    sys.exit(77)
x = torch.ones(1024, device="cuda")
from torch.profiler import profile, ProfilerActivity
with profile(activities=[ProfilerActivity.CUDA]):
    (x * 2).sum().item()
found = []
for p in cupti_maps():
    v = ctypes.c_uint32(0)
    try:
        rc = ctypes.CDLL(p).cuptiGetVersion(ctypes.byref(v))
        found.append("%s (cuptiGetVersion %d, rc %d)" % (p, v.value, rc))
    except (OSError, AttributeError) as e:
        found.append("%s (%s)" % (p, e))
print("torch %s, CUDA %s: %s; mapped at import: %s" % (torch.__version__, torch.version.cuda,
      "; ".join(found) or "no libcupti mapped", "yes" if at_import else "no"))
'
	if ! xfailed torch-cupti; then
		if [ "$xrc" -eq 0 ] && [ -s "$xdir/torch-cupti.out" ]; then
			experiment torch-cupti info "$(tail -n 1 "$xdir/torch-cupti.out")"
		else
			experiment torch-cupti FAIL "exit $xrc: $(tail -n 2 "$xdir/torch-cupti.err" | tr '\n' ' ')"
		fi
	fi
else
	experiment torch-cupti info "torch not present"
fi

# ---- g: SIGKILL 3 s into a launch loop ----
if xt=$(xtime 30); then
	bounded "$xt" "$gpuscope" record -o "$xdir/kill-9-%p.gscope" -- "$xbin" launches \
		1000000000 20 >"$xdir/kill-9.out" 2>"$xdir/kill-9.err" &
	bg=$!
	pid=
	i=0
	while [ "$i" -lt 200 ]; do # CUDA's start, then the pid line: 20 s at most
		pid=$(sed -n 's/^experiments pid=\([0-9][0-9]*\)$/\1/p' "$xdir/kill-9.out")
		[ -n "$pid" ] && break
		kill -0 "$bg" 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	before=
	if [ -n "$pid" ]; then
		sleep 3
		before=$(grep '^launched=' "$xdir/kill-9.out" | tail -n 1)
		kill -9 "$pid" 2>/dev/null
	fi
	wait "$bg"
	xrc=$?
	logtail "experiment kill-9 stderr" "$xdir/kill-9.err"
else
	xrc=200
fi
if ! xfailed kill-9; then
	facts=$(xfacts "$(xtrace kill-9)")
	frc=$?
	if [ -z "$pid" ]; then
		experiment kill-9 FAIL "the loop never started (record exit $xrc): $(tail -n 1 "$xdir/kill-9.err")"
	elif [ "$frc" -eq 0 ] && [ "$(xnum kernels "$facts")" -gt 0 ]; then
		experiment kill-9 ok "killed 3 s in, ${before:-launched=?} by then: $facts; record exit $xrc"
	else
		experiment kill-9 FAIL "killed 3 s in, ${before:-launched=?} by then: $facts; record exit $xrc"
	fi
fi

# ---- h: cudaDeviceReset and cuCtxDestroy mid-run ----
xrun reset 30 "$gpuscope" record -o "$xdir/reset-%p.gscope" -- "$xbin" reset
if ! xfailed reset; then
	facts=$(xfacts "$(xtrace reset)")
	frc=$?
	done_line=$(grep -m 1 '^reset ok' "$xdir/reset.out")
	if [ "$xrc" -eq 0 ] && [ -n "$done_line" ] && [ "$frc" -eq 0 ]; then
		experiment reset ok "the program ran on ($done_line launched); trace: $facts"
	else
		experiment reset FAIL "record exit $xrc, '${done_line:-no reset ok line}': $(tail -n 1 "$xdir/reset.err"); trace: $facts"
	fi
fi
