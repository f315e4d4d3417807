#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Install the build dependencies of gpuscope that are missing, from the
# Debian / Ubuntu archive. Checks first and installs only what is missing;
# prints nothing and exits 0 when everything is already there.
#
#   scripts/install-deps.sh          build + test dependencies
#   scripts/install-deps.sh --ci     also what .ci/run's other checks use: clang-format,
#                                    clang with the libFuzzer runtime, clang-tidy, valgrind,
#                                    and the Python modules perfetto and protobuf (pip, in
#                                    a virtual environment: the Perfetto export's check
#                                    against the official schema, tests/pftrace)
#   scripts/install-deps.sh --browser  also chromium (the HTML report's browser test)
#
# Runs apt-get directly as root, through `sudo -n` otherwise; when neither
# works it prints the packages and the command to run, and exits 1.
set -euo pipefail

usage() {
	cat <<'USAGE'
usage: scripts/install-deps.sh [--ci] [--browser]

Installs the missing build dependencies of gpuscope from Debian/Ubuntu:
protobuf-c (compiler and library), zlib, ISA-L (optional: faster gzip
input), cJSON, SQLite, cmocka, Open MPI (for
gpuscope-mpi and its test), Python 3 with venv and its headers (the Python
package), cmake, pkg-config, a C compiler and make. Installs
nothing when all are present.

  --ci        also install clang-format, clang and its libFuzzer runtime
              (make fuzz), clang-tidy (make tidy) and valgrind (make valgrind),
              and the Python modules perfetto and protobuf with pip into a
              virtual environment, $GS_PYVENV (default
              ~/.cache/gpuscope/pyvenv), for the test pftrace_official
  --browser   also install chromium (headless, for the browser test of the
              HTML report; without it that test is skipped)
  -h, --help  show this help
USAGE
}

want_ci=0
want_browser=0
for arg in "$@"; do
	case "$arg" in
	--ci) want_ci=1 ;;
	--browser) want_browser=1 ;;
	-h | --help)
		usage
		exit 0
		;;
	*)
		echo "install-deps: unknown option '$arg'" >&2
		usage >&2
		exit 2
		;;
	esac
done

# True when the Debian package is installed (false where dpkg is absent).
dpkg_has() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

have_cmd() {
	command -v "$1" >/dev/null 2>&1
}

# A library counts as present when pkg-config finds it, or when its Debian
# package is installed (pkg-config itself may still be missing).
have_pc() {
	local module=$1 package=$2
	if have_cmd pkg-config && pkg-config --exists "$module" 2>/dev/null; then
		return 0
	fi
	dpkg_has "$package"
}

missing=()
need() {
	missing+=("$@")
}

have_cmd cc || have_cmd gcc || need gcc
# gcc only recommends the C library headers; without them nothing compiles.
[ -e /usr/include/stdio.h ] || dpkg_has libc6-dev || need libc6-dev
have_cmd make || need make
have_cmd cmake || need cmake
have_cmd pkg-config || need pkg-config
have_cmd protoc-c || need protobuf-c-compiler
have_pc libprotobuf-c libprotobuf-c-dev || need libprotobuf-c-dev
have_pc zlib zlib1g-dev || need zlib1g-dev
# ISA-L inflates gzip input several times faster than zlib; the build
# falls back to zlib without it.
have_pc libisal libisal-dev || need libisal-dev
have_pc libcjson libcjson-dev || need libcjson-dev
have_pc cmocka libcmocka-dev || need libcmocka-dev
have_pc sqlite3 libsqlite3-dev || need libsqlite3-dev
# gpuscope-mpi builds when MPI is found, and make check runs its test.
have_pc ompi-c libopenmpi-dev || need libopenmpi-dev
have_cmd mpirun || need openmpi-bin
# The Python package (python/: make python, and its tests in make check):
# python3 able to make a virtual environment, with its C headers.
have_python_dev() {
	have_cmd python3 && python3 -c 'import ensurepip, os, sys, sysconfig, venv
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
		2>/dev/null
}
have_python_dev || need python3 python3-dev python3-venv
if [ "$want_ci" = 1 ]; then
	have_cmd clang-format || need clang-format
	have_cmd clang || need clang
	# The libFuzzer runtime is only recommended by clang (Debian 12: LLVM 14).
	have_fuzzer_rt() {
		local f
		for f in /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a \
			/usr/lib/llvm-*/lib/clang/*/lib/*/libclang_rt.fuzzer.a; do
			[ -e "$f" ] && return 0
		done
		return 1
	}
	have_fuzzer_rt || dpkg_has libclang-rt-14-dev || need libclang-rt-14-dev
	have_cmd clang-tidy || need clang-tidy
	have_cmd valgrind || need valgrind
	# The virtual environment of the Python modules (pyvenv_install below).
	have_cmd python3 || need python3
	python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || need python3-venv
fi
if [ "$want_browser" = 1 ]; then
	have_cmd chromium || have_cmd chromium-browser || need chromium
fi

# CMakeLists.txt asks for CMake 3.20 (Debian 12 ships 3.25).
if have_cmd cmake; then
	cmake_version=$(cmake --version 2>/dev/null | sed -n 's/^cmake version \([0-9][0-9.]*\).*/\1/p')
	if [ -n "$cmake_version" ] &&
		[ "$(printf '%s\n%s\n' 3.20 "$cmake_version" | sort -V | head -n1)" != 3.20 ]; then
		echo "install-deps: warning: cmake $cmake_version is older than 3.20," \
			"which gpuscope needs; install a newer cmake" >&2
	fi
fi

# The Python modules of tests/pftrace/official_check.py, from PyPI into a
# virtual environment of the user's (not root's through sudo: the tests run
# as the user). A failure (no network) is a warning: that test then skips.
pyvenv=${GS_PYVENV:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/gpuscope/pyvenv}
pyvenv_install() {
	[ "$want_ci" = 1 ] || return 0
	if [ -x "$pyvenv/bin/python" ] &&
		"$pyvenv/bin/python" -c 'import perfetto.protos.perfetto.trace.perfetto_trace_pb2, google.protobuf' \
			>/dev/null 2>&1; then
		return 0
	fi
	echo "install-deps: pip install perfetto protobuf into $pyvenv" >&2
	if ! python3 -m venv "$pyvenv" >&2 ||
		! "$pyvenv/bin/python" -m pip install -q perfetto protobuf >&2; then
		echo "install-deps: warning: could not install the Python modules perfetto and" \
			"protobuf into $pyvenv; the test pftrace_official will be skipped" >&2
	fi
	return 0
}

if [ ${#missing[@]} -eq 0 ]; then
	pyvenv_install
	exit 0
fi

# Order kept, duplicates dropped.
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | awk '!seen[$0]++')
pkgs="${missing[*]}"
manual="apt-get update && apt-get install -y --no-install-recommends $pkgs"

if ! have_cmd apt-get; then
	echo "install-deps: missing build dependencies: $pkgs" >&2
	echo "install-deps: apt-get not found; these are Debian package names." \
		"Install the equivalent packages with your system's package manager." >&2
	exit 1
fi

if [ "$(id -u)" = 0 ]; then
	as_root=()
elif have_cmd sudo && sudo -n true 2>/dev/null; then
	as_root=(sudo -n)
else
	echo "install-deps: missing build dependencies: $pkgs" >&2
	echo "install-deps: not root, and sudo is missing or needs a password;" \
		"run as root (or prefix each command with sudo):" >&2
	echo "    $manual" >&2
	exit 1
fi

echo "install-deps: installing $pkgs" >&2
apt_env=(env DEBIAN_FRONTEND=noninteractive)
if ! "${as_root[@]}" "${apt_env[@]}" apt-get update -q >&2 ||
	! "${as_root[@]}" "${apt_env[@]}" apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >&2; then
	echo "install-deps: apt-get failed; to install by hand, run as root:" >&2
	echo "    $manual" >&2
	exit 1
fi
pyvenv_install
echo "install-deps: done" >&2
