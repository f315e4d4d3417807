#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# clang-tidy (the checks of .clang-tidy) over gpuscope's C sources, with the
# flags of a build's compile database; every finding is an error.
#
#   scripts/tidy.sh BUILD_DIR [FILE...]
#
# Without FILEs: every .c under formats/, analyzer/ and collector/ that the
# compile database has (the collector only where CUPTI was found). Runs
# one clang-tidy per core. A finding that is a false positive gets a
# NOLINT(check-name) comment on its line that says why.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
build=${1:?usage: scripts/tidy.sh BUILD_DIR [FILE...]}
shift
tidy=${CLANG_TIDY:-clang-tidy}
db=$build/compile_commands.json

if ! command -v "$tidy" >/dev/null 2>&1; then
	echo "tidy: $tidy not found (scripts/install-deps.sh --ci installs it)" >&2
	exit 1
fi
if [ ! -f "$db" ]; then
	echo "tidy: no $db (configure $build first)" >&2
	exit 1
fi

files=("$@")
if [ ${#files[@]} -eq 0 ]; then
	while IFS= read -r f; do
		# Only what the database compiles (its flags, its generated headers).
		grep -q "\"file\": \"$PWD/$f\"" "$db" && files+=("$f")
	done < <(git ls-files --cached --others --exclude-standard -- \
		'formats/*.c' 'analyzer/*.c' 'collector/*.c' 2>/dev/null | sort -u)
fi
if [ ${#files[@]} -eq 0 ]; then
	echo "tidy: no sources found in $db" >&2
	exit 1
fi

"$tidy" --version | head -n 2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# One file per clang-tidy; a file's output is written whole, so lines of
# different files do not interleave.
printf '%s\n' "${files[@]}" |
	xargs -P "$(nproc 2>/dev/null || echo 2)" -I{} sh -c \
		'out=$("$0" -p "$1" --quiet --warnings-as-errors="*" "$2" 2>&1) || \
			{ printf "%s\n" "$out"; echo "TIDY-FAILED: $2"; }' "$tidy" "$build" {} >"$log" || true
failed=$(grep -c '^TIDY-FAILED: ' "$log" || true)
if [ "$failed" != 0 ]; then
	grep -v '^TIDY-FAILED: \|warnings generated\|^Suppressed \|^Use -header-filter' "$log" >&2 || true
	echo "tidy: findings in $failed of ${#files[@]} files:" >&2
	sed -n 's/^TIDY-FAILED: /  /p' "$log" >&2
	exit 1
fi
echo "tidy: ${#files[@]} files, no findings"
