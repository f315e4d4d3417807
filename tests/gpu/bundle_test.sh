#!/bin/sh
# SPDX-License-Identifier: MIT
#
# ctest gpu_bundle (label gpu-bundle): scripts/gpu-bundle.sh on this build,
# then the bundle checked for what a bare GPU machine needs.
#
#   bundle_test.sh SRCDIR BUILDDIR COLLECTOR|none WORKDIR [DOUBLE FAKE_APP]
#
# - every ELF in the bundle has all its libraries found, each one inside the
#   bundle or the set the machine provides (glibc, libstdc++, libgcc_s;
#   libcuda.so.1 from the driver, which may be missing here): bin/, kernels/
#   and the collector with no LD_LIBRARY_PATH (their RPATH, RUNPATH),
#   libexec/ and lib/'s other libraries with lib/ as the library path (what
#   bin/gpuscope gives them); the bundle's libraries stay out of the programs
#   `bin/gpuscope record` runs (no LD_LIBRARY_PATH reaches them);
# - at most 40 MiB; run.sh sh -n clean; the checkers compile (py_compile);
#   MANIFEST lists every file;
# - the check can fail: the same bundle without libprotobuf-c or without
#   libcupti (found through the collector's RUNPATH outside it) is refused;
# - run.sh exits 77 with "no GPU" when nvidia-smi fails, and, where no GPU
#   works, runs to its end with --dry-run: exit 1 (no program can use a
#   GPU), summary.txt, summary.json, run.log and experiments.txt only, at
#   most 8 files, its scratch directory removed; the nine experiments each
#   one line there, each "needs a GPU" (or "torch not present"), none failed;
# - with DOUBLE (the collector built on the CUPTI test double) and FAKE_APP
#   (a program that calls it as the driver would) in a copy of the bundle
#   for the collector, the kernels/ programs and the probe, and a stand-in
#   launch loop: run.sh records, checks and keeps traces: every record ok,
#   the checks' lines in summary.json, probe.gscope and kernels.tar.gz back;
#   two programs that hang time out and the next one is not run.
# Skipped (77) when this build has no collector (CUPTI not found).
set -u
src=$1
build=$2
collector=$3
work=$4
double=${5:-}
fake_app=${6:-}

if [ "$collector" = none ] || [ ! -f "$collector" ]; then
	echo "skipped: this build has no collector (the CUDA toolkit with CUPTI was not found)"
	exit 77
fi
if ! ls "$build"/kernels/serial_stream >/dev/null 2>&1; then
	echo "skipped: this build has no kernels/ programs (GPUSCOPE_BUILD_KERNELS or nvcc)"
	exit 77
fi

fail=0
bad() {
	echo "FAIL: $*"
	fail=1
}

rm -rf "$work"
mkdir -p "$work/tmp" || exit 1
bundle=$work/gpu-bundle

# check_bundle DIR: 0 when complete; each problem on one line.
check_bundle() {
	d=$(cd "$1" && pwd -P)
	problems=0
	for f in "$d"/bin/* "$d"/kernels/* "$d"/libexec/* "$d"/lib/*; do
		[ "$(od -An -c -N4 "$f" | tr -d ' ')" = '177ELF' ] || continue
		case $f in
		"$d"/bin/* | "$d"/kernels/* | "$d"/lib/libgpuscope_collector.so) libpath= ;;
		*) libpath=$d/lib ;;
		esac
		env -i PATH=/usr/bin:/bin ${libpath:+LD_LIBRARY_PATH="$libpath"} ldd "$f" \
			>"$work/ldd.txt" 2>&1 || {
			echo "  $f: ldd failed: $(head -n 1 "$work/ldd.txt")"
			problems=$((problems + 1))
			continue
		}
		while read -r name arrow path _; do
			[ "$arrow" = "=>" ] || continue
			case $name in
			linux-vdso.so.* | ld-linux*.so.* | libc.so.* | libm.so.* | libpthread.so.* | \
				libdl.so.* | librt.so.* | libutil.so.* | libresolv.so.* | libstdc++.so.* | \
				libgcc_s.so.* | libcuda.so.*) continue ;;
			esac
			# An RPATH's $ORIGIN/../lib shows as bin/../lib.
			[ -e "$path" ] && path=$(readlink -f "$path")
			case $path in
			"$d"/lib/*) ;;
			not)
				echo "  $f: $name not found"
				problems=$((problems + 1))
				;;
			*)
				echo "  $f: $name resolves outside the bundle: $path"
				problems=$((problems + 1))
				;;
			esac
		done <"$work/ldd.txt"
	done
	size=$(find "$d" -type f -exec cat {} + | wc -c)
	if [ "$size" -gt $((40 * 1024 * 1024)) ]; then
		echo "  $d is $size bytes, over 40 MiB"
		problems=$((problems + 1))
	fi
	for f in run.sh experiments.sh gpucheck.py torch_streams.py MANIFEST bin/gpuscope \
		libexec/gpuscope bin/probe bin/launch_loop bin/experiments bin/experiments_ptsz \
		lib/libgpuscope_collector.so lib/libcupti.so.13; do
		[ -f "$d/$f" ] || {
			echo "  $f missing"
			problems=$((problems + 1))
		}
	done
	[ "$problems" -eq 0 ]
}

echo "== gpu-bundle.sh --build-dir $build"
if ! sh "$src/scripts/gpu-bundle.sh" --build-dir "$build" --out "$bundle" >"$work/bundle.log" 2>&1; then
	cat "$work/bundle.log"
	echo "FAIL: gpu-bundle.sh failed"
	exit 1
fi
tail -n 1 "$work/bundle.log"

echo "== the bundle is complete"
check_bundle "$bundle" || bad "the bundle is incomplete (above)"
for f in $(cd "$bundle" && find . -type f ! -name MANIFEST | sed 's|^\./||'); do
	grep -q "  $f\$" "$bundle/MANIFEST" || bad "MANIFEST does not list $f"
done
for f in run.sh experiments.sh bin/gpuscope; do
	sh -n "$bundle/$f" || bad "sh -n $f"
	if command -v dash >/dev/null 2>&1; then
		dash -n "$bundle/$f" || bad "dash -n $f"
	fi
done

echo "== the bundle's libraries stay out of the programs it records"
msg=$(env -u LD_LIBRARY_PATH "$bundle/bin/gpuscope" --version 2>&1) ||
	bad "bin/gpuscope --version with no LD_LIBRARY_PATH: $msg"
env -u LD_LIBRARY_PATH "$bundle/bin/gpuscope" record -o "$work/env-%p.gscope" -- \
	/usr/bin/env >"$work/env.txt" 2>"$work/env.err"
if ! grep -q '^GPUSCOPE_COLLECTOR=' "$work/env.txt"; then
	cat "$work/env.err"
	bad "record -- env: the program did not run (no GPUSCOPE_COLLECTOR in its environment)"
elif grep '^LD_LIBRARY_PATH=' "$work/env.txt" | grep -q "$bundle"; then
	bad "the recorded program gets the bundle's lib/: $(grep '^LD_LIBRARY_PATH=' "$work/env.txt")"
else
	echo "ok: the recorded program's LD_LIBRARY_PATH: $(grep '^LD_LIBRARY_PATH=' "$work/env.txt" || echo unset)"
fi
PYTHONPYCACHEPREFIX="$work/pycache" python3 -m py_compile "$bundle/gpucheck.py" "$bundle/torch_streams.py" || bad "py_compile of the checkers"
[ -x "$bundle/bin/test_samples" ] || echo "note: no bin/test_samples in the bundle"

echo "== the check can fail"
for lib in libprotobuf-c.so.1 libcupti.so.13; do
	rm -rf "$work/broken"
	cp -a "$bundle" "$work/broken"
	rm -f "$work/broken/lib/$lib"
	if check_bundle "$work/broken" >"$work/broken.txt"; then
		bad "a bundle without $lib passed"
	elif ! grep -q "$lib" "$work/broken.txt"; then
		cat "$work/broken.txt"
		bad "a bundle without $lib failed, but not for $lib"
	else
		echo "ok: without $lib: $(grep -m1 "$lib" "$work/broken.txt")"
	fi
done
rm -rf "$work/broken"

echo "== gpu-bundle.sh refuses a build without the collector"
mkdir -p "$work/nocupti/analyzer"
cp "$build/analyzer/gpuscope" "$work/nocupti/analyzer/"
msg=$(sh "$src/scripts/gpu-bundle.sh" --build-dir "$work/nocupti" --out "$work/x" 2>&1)
rc=$?
[ "$rc" -eq 1 ] && [ "$(echo "$msg" | wc -l)" -eq 1 ] && echo "$msg" | grep -q "no collector" ||
	bad "without the collector: exit $rc, '$msg' (want exit 1 and one 'no collector' line)"
[ ! -e "$work/x" ] || bad "without the collector: $work/x was created"

echo "== run.sh without a GPU: exit 77"
mkdir -p "$work/nogpu"
printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver" >&2\nexit 9\n' \
	>"$work/nogpu/nvidia-smi"
chmod +x "$work/nogpu/nvidia-smi"
msg=$(PATH="$work/nogpu:$PATH" sh "$bundle/run.sh" "$work/out77" 2>&1)
rc=$?
[ "$rc" -eq 77 ] && echo "$msg" | grep -q "no GPU" ||
	bad "run.sh with a failing nvidia-smi: exit $rc, '$msg' (want 77, 'no GPU')"
echo "$msg"

gpu_here=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
	gpu_here=1
fi
if [ "$gpu_here" = 0 ]; then
	echo "== run.sh --dry-run to its end (no program can use a GPU here)"
	mkdir -p "$work/tmp"
	TMPDIR="$work/tmp" GPUCHECK_BUDGET=120 LAUNCHES=1000 \
		sh "$bundle/run.sh" --dry-run "$work/out" >"$work/dry.log" 2>&1
	rc=$?
	[ "$rc" -eq 1 ] || bad "dry run: exit $rc, want 1 (checks fail without a GPU)"
	n=$(find "$work/out" -type f | wc -l)
	deep=$(find "$work/out" -mindepth 2 | wc -l)
	[ "$n" -le 8 ] && [ "$deep" -eq 0 ] || bad "dry run: $n files, $deep below the top of OUTDIR"
	for f in summary.txt summary.json run.log experiments.txt; do
		[ -s "$work/out/$f" ] || bad "dry run: no $f"
	done
	# The experiments run as far as they can: only the GPU is missing.
	nx=$(wc -l <"$work/out/experiments.txt")
	[ "$nx" -eq 9 ] || bad "dry run: $nx lines in experiments.txt, want 9"
	others=$(grep -v -e ': needs a GPU (dry run: ' -e '^torch-cupti: torch not present$' \
		"$work/out/experiments.txt")
	[ -z "$others" ] || bad "dry run: experiments that did not stop at the GPU: $others"
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "gpuscope.gpucheck/2", d["schema"]
assert d["failed"] > 0 and d["ok"] >= 1, (d["ok"], d["failed"])
names = [c["name"] for c in d["checks"]]
assert "gpuscope starts" in names and "probe: record" in names, names
assert [c for c in d["checks"] if c["name"] == "gpuscope starts"][0]["status"] == "ok"
xs = [c for c in d["checks"] if c["name"].startswith("experiment ")]
assert len(xs) == 9 and all(c["status"] in ("skip", "info") for c in xs), xs' \
		"$work/out/summary.json" || bad "dry run: summary.json (above)"
	[ -z "$(ls -A "$work/tmp")" ] || bad "dry run: scratch left in TMPDIR: $(ls "$work/tmp")"
	grep -q "^checks: " "$work/out/summary.txt" || bad "dry run: summary.txt has no 'checks:' line"
	grep -q "DRY RUN" "$work/out/summary.txt" || bad "dry run: summary.txt does not say so"
	[ "$fail" -eq 0 ] && echo "ok: dry run exit $rc, $n files: $(ls "$work/out" | tr '\n' ' ')"
fi

if [ "$gpu_here" = 0 ] && [ -n "$double" ] && [ -n "$fake_app" ]; then
	echo "== run.sh with the CUPTI test double for the collector and the GPU"
	fb=$work/double-bundle
	rm -rf "$fb" "$work/out2"
	cp -a "$bundle" "$fb"
	cp "$double" "$fb/lib/libgpuscope_collector.so"
	rm -f "$fb"/kernels/*
	cp "$fake_app" "$fb/kernels/fake_cuda_app"
	cp "$fake_app" "$fb/bin/probe"
	printf '#!/bin/sh\necho "launches=$1 total_ns=$((400000000 + $$ %% 1000))"\n' >"$fb/bin/launch_loop"
	for h in zz_hang1 zz_hang2 zz_hang3; do # two time out, the third is not run
		printf '#!/bin/sh\nsleep 30\n' >"$fb/kernels/$h"
		chmod +x "$fb/kernels/$h"
	done
	GPUCHECK_DRY_RUN=1 TMPDIR="$work/tmp" GPUCHECK_BUDGET=120 GPUCHECK_TIMEOUT=2 LAUNCHES=1000 \
		sh "$fb/run.sh" "$work/out2" >"$work/double.log" 2>&1
	rc=$?
	[ "$rc" -eq 1 ] || bad "test double run: exit $rc, want 1 (the probe's checks fail on it)"
	n=$(find "$work/out2" -type f | wc -l)
	[ "$n" -le 8 ] && [ -z "$(find "$work/out2" -mindepth 2)" ] || bad "test double run: $n files"
	for f in summary.txt summary.json run.log probe.gscope probe-deps.gscope kernels.tar.gz; do
		[ -s "$work/out2/$f" ] || bad "test double run: no $f"
	done
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
st = {c["name"]: c["status"] for c in d["checks"]}
want = {"kernels-fake_cuda_app: record": "ok", "kernels-fake_cuda_app: ops present": "ok",
        "kernels-fake_cuda_app: breakdown sums (device 0)": "ok", "probe: record": "ok",
        "probe: nvtx range": "FAIL", "probe-deps: record": "ok", "probe without collector": "ok",
        "launch loop: overhead": "info", "kernels-zz_hang1: record": "FAIL",
        "kernels-zz_hang2: record": "FAIL", "kernels-zz_hang3: record": "FAIL"}
detail = {c["name"]: c["detail"] for c in d["checks"]}
assert "timed out after 2 s" in detail["kernels-zz_hang2: record"], detail
assert "not run: two kernels/ programs timed out" in detail["kernels-zz_hang3: record"], detail
bad = {k: (v, st.get(k)) for k, v in want.items() if st.get(k) != v}
assert not bad, bad' "$work/out2/summary.json" || bad "test double run: summary.json (above)"
	tar -tzf "$work/out2/kernels.tar.gz" | grep -q "fake_cuda_app.gscope" ||
		bad "test double run: kernels.tar.gz has no fake_cuda_app.gscope"
	[ -z "$(ls -A "$work/tmp")" ] || bad "test double run: scratch left in TMPDIR: $(ls "$work/tmp")"
	[ "$fail" -eq 0 ] && echo "ok: test double run exit $rc, $n files: $(ls "$work/out2" | tr '\n' ' ')"
fi

[ "$fail" -eq 0 ] && echo "gpu_bundle: all checks passed"
exit "$fail"
