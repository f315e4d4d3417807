#!/bin/sh
# SPDX-License-Identifier: MIT
#
# scripts/python-check.sh BUILD_DIR [--install-only]
#
# The Python package (python/) in a virtual environment of its own,
# BUILD_DIR/python-venv: made when missing, the package installed into it
# from this tree with its test dependencies (`pip install ./python[test]`:
# scikit-build-core builds the extension with the project's CMake, in
# python/build/, kept between runs), then its tests (pytest, python/tests)
# against BUILD_DIR's gpuscope. `make python` runs it with --install-only,
# `make check` in full. Needs python3 with venv (scripts/install-deps.sh)
# and the Python package index (or a pip configured with a mirror).
set -eu

[ $# -ge 1 ] || { echo "usage: scripts/python-check.sh BUILD_DIR [--install-only]" >&2; exit 2; }
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
venv=$build/python-venv
PYTHON=${PYTHON:-python3}

if [ ! -x "$venv/bin/python" ]; then
	echo "python-check: making the virtual environment $venv"
	"$PYTHON" -m venv "$venv"
fi
echo "python-check: installing the package (pip install ./python[test])"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$root/python[test]"
if [ "${2:-}" = --install-only ]; then
	echo "python-check: ready: $venv/bin/python -c 'import gpuscope'"
	exit 0
fi
GPUSCOPE_BIN=$build/analyzer/gpuscope "$venv/bin/python" -m pytest -q -p no:cacheprovider \
	"$root/python/tests"
