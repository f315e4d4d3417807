#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Builds the GPU check bundle: everything tests/gpu/run.sh needs on a machine
# that has only an NVIDIA driver and python3 (no protobuf-c, cJSON, SQLite or
# CUDA toolkit), laid out in one directory that travels to that machine.
# See tests/gpu/README.md.
usage() {
	cat <<'EOF'
usage: scripts/gpu-bundle.sh [--build-dir DIR] [--out DIR]

Build gpuscope, the CUPTI collector and kernels/ in Release (build-gpu-bundle/,
warnings as errors, no tests), compile tests/gpu/probe.cu, launch_loop.cu and
experiments.cu (twice: the second with --default-stream per-thread) for sm_90
(with PTX), and lay out the bundle:

  bin/      probe, launch_loop, experiments, experiments_ptsz; gpuscope and
            test_samples: scripts that run libexec/'s through the dynamic
            loader with --library-path lib/ (for that process alone)
  libexec/  gpuscope, test_samples
  lib/      libgpuscope_collector.so (RUNPATH $ORIGIN), libcupti.so.13 (also
            the NVTX injection library) and every shared library the programs
            link that a bare machine may lack, under its SONAME (not glibc,
            libstdc++, libgcc_s or libcuda.so.1, which the driver provides)
  kernels/  the kernels/ programs (sm_80 and sm_90 machine code, PTX)
  run.sh, experiments.sh, gpucheck.py, torch_streams.py, MANIFEST

No LD_LIBRARY_PATH is needed or set: the bundle's libraries never reach the
programs it records (PyTorch keeps its own libz, libcupti, ...).

The bundle must stay under 40 MiB: the script fails when it is over. On the
GPU machine: sh gpu-bundle/run.sh OUTDIR.

options:
  --build-dir DIR  use this build (it must have the collector and kernels/)
                   instead of configuring and building build-gpu-bundle/
  --out DIR        the bundle's directory (default: gpu-bundle/ at the top of
                   the source tree); replaced when it holds a bundle
  -h, --help       show this help
EOF
}
set -u

die() {
	echo "gpu-bundle: $*" >&2
	exit 1
}

root=$(cd "$(dirname "$0")/.." && pwd)
build=
outdir=$root/gpu-bundle
max_bytes=$((40 * 1024 * 1024))
while [ $# -gt 0 ]; do
	case $1 in
	--build-dir)
		[ $# -ge 2 ] || die "--build-dir needs a directory"
		build=$2
		shift 2
		;;
	--out)
		[ $# -ge 2 ] || die "--out needs a directory"
		outdir=$2
		shift 2
		;;
	-h | --help)
		usage
		exit 0
		;;
	*)
		usage >&2
		exit 2
		;;
	esac
done

nvcc=$(command -v nvcc 2>/dev/null || true)
[ -n "$nvcc" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc=/usr/local/cuda/bin/nvcc
[ -n "$nvcc" ] || die "nvcc not found: the CUDA toolkit (with CUPTI) is needed to build the bundle"
command -v python3 >/dev/null 2>&1 || die "python3 not found (it checks the machine code and the size)"
command -v ldd >/dev/null 2>&1 || die "ldd not found"

# ---- the build ----
if [ -z "$build" ]; then
	build=$root/build-gpu-bundle
	launcher=
	if command -v ccache >/dev/null 2>&1; then
		launcher="-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache"
		export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}" CCACHE_NOHASHDIR=1
	fi
	echo "gpu-bundle: building in $build"
	mkdir -p "$build" || die "cannot create $build"
	# shellcheck disable=SC2086 # $launcher is two words or none
	cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DGPUSCOPE_WERROR=ON \
		-DBUILD_TESTING=OFF -DGPUSCOPE_BUILD_KERNELS=ON $launcher >"$build/gpu-bundle.log" 2>&1 ||
		die "configure failed (see $build/gpu-bundle.log)"
	cmake --build "$build" -j "${JOBS:-2}" >>"$build/gpu-bundle.log" 2>&1 ||
		die "build failed (see $build/gpu-bundle.log)"
fi
[ -d "$build" ] || die "$build: no such build directory"
build=$(cd "$build" && pwd)
gpuscope=$build/analyzer/gpuscope
collector=$build/collector/libgpuscope_collector.so
[ -x "$gpuscope" ] || die "$gpuscope not built"
[ -f "$collector" ] || die "no collector in $build: CUPTI was not found when it was configured (the CUDA toolkit with CUPTI is needed)"
kernels=
for f in "$build"/kernels/*; do
	[ -f "$f" ] && [ -x "$f" ] && kernels="$kernels $f"
done
[ -n "$kernels" ] || die "no kernels/ programs in $build (GPUSCOPE_BUILD_KERNELS, nvcc)"

# ---- probe, launch loop, experiments: sm_90 machine code and compute_90 PTX ----
# The experiments link CUPTI, found through their RPATH in the bundle's lib/
# (DT_RPATH: it also serves what those libraries load).
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-bundle.XXXXXX") || die "mktemp -d failed"
trap 'rm -rf "$work"' EXIT
rpath="-Xlinker -rpath -Xlinker \$ORIGIN/../lib -Xlinker --disable-new-dtags"
for prog in probe launch_loop experiments experiments_ptsz; do
	src=$prog opts='' libs=''
	case $prog in
	probe) libs="-lcuda -lpthread" ;;
	experiments) libs="-lcupti -lpthread $rpath" ;;
	experiments_ptsz)
		src=experiments opts="--default-stream per-thread"
		libs="-lcupti -lpthread $rpath"
		;;
	esac
	# shellcheck disable=SC2086 # $opts and $libs are several words or none
	"$nvcc" -arch=sm_90 -O2 $opts -Xcompiler=-Wall,-Wextra -Werror=all-warnings \
		-o "$work/$prog" "$root/tests/gpu/$src.cu" $libs >"$work/$prog.log" 2>&1 ||
		{ cat "$work/$prog.log" >&2; die "nvcc $src.cu ($prog) failed"; }
done

# test_samples (what each kernels/ program promises) when cmocka is here.
samples_bin=
if [ -x "$build/tests/test_samples" ]; then
	samples_bin=$build/tests/test_samples
elif cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -I/usr/include/cjson \
	-o "$work/test_samples" "$root/tests/samples/test_samples.c" -lcjson -lcmocka -lm \
	>"$work/test_samples.log" 2>&1; then
	samples_bin=$work/test_samples
else
	echo "gpu-bundle: warning: test_samples not built (cmocka or cJSON headers missing): the bundle checks no promised findings" >&2
fi

# ---- the layout ----
if [ -e "$outdir" ]; then
	[ -d "$outdir" ] || die "$outdir exists and is not a directory"
	if [ -n "$(ls -A "$outdir")" ] && [ ! -f "$outdir/MANIFEST" ]; then
		die "$outdir is not empty and holds no bundle (no MANIFEST): not replacing it"
	fi
	rm -rf "$outdir"
fi
mkdir -p "$outdir/bin" "$outdir/lib" "$outdir/libexec" "$outdir/kernels" ||
	die "cannot create $outdir"
outdir=$(cd "$outdir" && pwd)
cp "$gpuscope" "$outdir/libexec/gpuscope" || die "copy failed"
cp "$work/probe" "$work/launch_loop" "$work/experiments" "$work/experiments_ptsz" \
	"$outdir/bin/" || die "copy failed"
[ -n "$samples_bin" ] && cp "$samples_bin" "$outdir/libexec/test_samples"
cp "$collector" "$outdir/lib/libgpuscope_collector.so" || die "copy failed"
for f in $kernels; do
	cp "$f" "$outdir/kernels/" || die "copy failed"
done
cp "$root/tests/gpu/run.sh" "$root/tests/gpu/experiments.sh" "$root/tests/gpu/gpucheck.py" \
	"$root/tests/gpu/torch_streams.py" "$outdir/" || die "copy failed"

# gpuscope and test_samples (built with no RPATH) run through the dynamic
# loader with the bundle's lib/ as its --library-path: that holds for their
# own process alone, so the programs `gpuscope record` starts (PyTorch) load
# their own libraries, never the bundle's.
interp=$(readelf -l "$gpuscope" 2>/dev/null | sed -n 's/.*program interpreter: \(.*\)]$/\1/p')
[ -n "$interp" ] || die "no program interpreter in $gpuscope (readelf -l)"
for f in "$outdir"/libexec/*; do
	name=$(basename "$f")
	{
		echo '#!/bin/sh'
		echo "# $name of the GPU check bundle, with the bundle's lib/ for this process alone."
		echo 'here=$(cd "$(dirname "$0")/.." && pwd)'
		echo 'GPUSCOPE_COLLECTOR=${GPUSCOPE_COLLECTOR:-$here/lib/libgpuscope_collector.so}'
		echo 'export GPUSCOPE_COLLECTOR'
		echo "exec $interp --library-path \"\$here/lib\" \"\$here/libexec/$name\" \"\$@\""
	} >"$outdir/bin/$name"
	chmod 0755 "$outdir/bin/$name"
done

# Every sm_90 program: machine code for sm_90 in its fatbin (an H200 runs it
# without JIT), and PTX. Reads the fatbin headers (.nv_fatbin section).
python3 - "$outdir"/kernels/* "$outdir/bin/probe" "$outdir/bin/launch_loop" \
	"$outdir/bin/experiments" "$outdir/bin/experiments_ptsz" <<'PY' || die "machine code check failed"
import struct, subprocess, sys, tempfile, os
bad = 0
for path in sys.argv[1:]:
    with tempfile.TemporaryDirectory() as t:
        fb = os.path.join(t, "fb")
        r = subprocess.run(["objcopy", "-O", "binary", "--only-section=.nv_fatbin", path, fb])
        data = open(fb, "rb").read() if r.returncode == 0 and os.path.exists(fb) else b""
    sass, ptx, off = set(), set(), 0
    while off + 16 <= len(data):
        magic, _, hs, size = struct.unpack_from("<IHHQ", data, off)
        if magic != 0xBA55ED50:
            off += 8
            continue
        p, end = off + hs, off + hs + size
        while p + 32 <= end:
            kind, _, ehs, pad = struct.unpack_from("<HHII", data, p)
            arch = struct.unpack_from("<I", data, p + 28)[0]
            (sass if kind == 2 else ptx).add(arch)
            p += ehs + pad
        off = end
    ok = 90 in sass and ptx
    print("gpu-bundle: %-20s sm %s, PTX compute %s%s" % (os.path.basename(path), sorted(sass),
          sorted(ptx), "" if ok else "  <- no sm_90 machine code or no PTX"))
    bad += not ok
sys.exit(1 if bad else 0)
PY

# ---- shared libraries: the ones a bare GPU machine may lack ----
# ldd gives each ELF's whole closure; the loader's own set stays out.
system_lib() {
	case $1 in
	linux-vdso.so.* | ld-linux*.so.* | libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | \
		librt.so.* | libutil.so.* | libresolv.so.* | libstdc++.so.* | libgcc_s.so.* | \
		libcuda.so.*) return 0 ;;
	esac
	return 1
}
copy_libs() { # ELF...
	for elf in "$@"; do
		ldd "$elf" >"$work/ldd.txt" 2>&1 || die "ldd $elf failed: $(cat "$work/ldd.txt")"
		while read -r name arrow path _; do
			[ "$arrow" = "=>" ] || continue
			system_lib "$name" && continue
			[ -e "$outdir/lib/$name" ] && continue
			[ "$path" != "not" ] && [ -f "$path" ] || die "$elf needs $name, not found here"
			cp -L "$path" "$outdir/lib/$name" || die "copy of $path failed"
			chmod 0644 "$outdir/lib/$name"
		done <"$work/ldd.txt"
	done
}
copy_libs "$outdir"/lib/libgpuscope_collector.so "$outdir"/libexec/* "$outdir"/bin/probe \
	"$outdir"/bin/launch_loop "$outdir"/bin/experiments "$outdir"/kernels/*
[ -f "$outdir/lib/libcupti.so.13" ] || die "the collector does not link libcupti.so.13 (CUPTI 13 is needed)"
copy_libs "$outdir"/lib/*.so*

# The collector, loaded by the driver into the recorded program, finds its
# libraries beside it: its RUNPATH (the CUDA toolkit's directory, from the
# build) becomes $ORIGIN, rewritten in place in .dynstr.
python3 - "$outdir/lib/libgpuscope_collector.so" <<'PY' || die "cannot set the collector's RUNPATH"
import struct, sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())
if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
    sys.exit("gpu-bundle: %s: not a 64-bit little-endian ELF" % path)
phoff, = struct.unpack_from("<Q", data, 0x20)
phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
loads, dyn = [], None
for i in range(phnum):
    p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", data,
                                                                   phoff + i * phentsize)
    if p_type == 1:
        loads.append((p_vaddr, p_offset, p_filesz))
    elif p_type == 2:
        dyn = (p_offset, p_filesz)
if dyn is None:
    sys.exit("gpu-bundle: %s: no dynamic section" % path)
strtab, paths = None, []
for off in range(dyn[0], dyn[0] + dyn[1], 16):
    tag, val = struct.unpack_from("<qQ", data, off)
    if tag == 0:
        break
    if tag == 5:  # DT_STRTAB
        strtab = val
    elif tag in (15, 29):  # DT_RPATH, DT_RUNPATH
        paths.append(val)
base = None
if strtab is not None:
    base = next((o + strtab - v for v, o, n in loads if v <= strtab < v + n), None)
if base is None or not paths:
    sys.exit("gpu-bundle: %s has no RUNPATH to point at the bundle's lib/" % path)
for p in paths:
    at = base + p
    old = bytes(data[at:data.index(b"\0", at)])
    new = b"$ORIGIN"
    if len(old) < len(new):
        sys.exit("gpu-bundle: %s: RUNPATH %r is shorter than $ORIGIN" % (path, old))
    data[at:at + len(old)] = new + b"\0" * (len(old) - len(new))
open(path, "wb").write(data)
PY

# ---- the manifest and the size ----
commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
git -C "$root" diff --quiet HEAD 2>/dev/null || commit="$commit (with uncommitted changes)"
glibc=$(for f in "$outdir"/bin/* "$outdir"/libexec/* "$outdir"/lib/* "$outdir"/kernels/*; do
	objdump -T "$f" 2>/dev/null
done | sed -n 's/.*GLIBC_\([0-9][0-9.]*\).*/\1/p' | sort -t. -k1,1n -k2,2n -u | tail -n 1)
{
	echo "gpuscope GPU check bundle"
	echo "commit: $commit"
	echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -srm), $(ldd --version 2>&1 | head -n 1)"
	echo "nvcc: $("$nvcc" --version | tail -n 1)"
	echo "needs: GLIBC_${glibc:-?} or newer, an NVIDIA driver for CUDA 13"
	echo "run: sh run.sh OUTDIR"
	echo "files (bytes):"
	(cd "$outdir" && find . -type f ! -name MANIFEST | sort | while read -r f; do
		printf '  %10d  %s\n' "$(wc -c <"$f")" "${f#./}"
	done)
} >"$outdir/MANIFEST"
total=$(find "$outdir" -type f -exec cat {} + | wc -c)
echo "total: $total bytes" >>"$outdir/MANIFEST"
if [ "$total" -gt "$max_bytes" ]; then
	die "the bundle is $total bytes, over the $max_bytes (40 MiB) limit: $(du -sh "$outdir" | cut -f1) in $outdir"
fi
echo "gpu-bundle: $outdir: $(find "$outdir" -type f | wc -l) files, $total bytes (limit $max_bytes)"
